/* monalisa-render.c - the Mona Lisa paradigm in the views (spec monalisa.md
 * section 5, thesis 3.2.1).
 *
 * A disc per module in traffic-light colours, a second circle around a module
 * that exposes at least one variable, a red arrow C -> P while a request is
 * underway and a black arrow P -> C while data are underway.  Everything is
 * read through monalisa.h's accessors; the renderer keeps no state, so the
 * GUI and viper-replay --render draw the same picture of the same model.
 */
#include "monalisa-render.h"
#include "monalisa.h"

/* The model's setup is the paradigm's own (monalisa-setup.c returns it). */
static const ViperMonalisaSetup *
setup_of (const ViperModel *m)
{
  return (const ViperMonalisaSetup *) m->setup;
}

static void
ml_modules (const ViperModel *m, const ViperRun *run, GArray *ids)
{
  (void) run;
  guint n = viper_monalisa_model_n_modules (m);
  for (guint i = 0; i < n; i++)
    if (viper_monalisa_module_exists (m, i))
      {
        gint64 id = i;
        g_array_append_val (ids, id);
      }
}

static char *
ml_label (const ViperModel *m, gint64 id)
{
  const char *name = viper_monalisa_module_name (m, id);
  return name ? g_strdup (name) : g_strdup_printf ("module %" G_GINT64_FORMAT, id);
}

static gint
ml_state (const ViperModel *m, gint64 id)
{
  return (gint) viper_monalisa_module_state (m, id);
}

static const char *
ml_state_name (gint s)
{
  return viper_monalisa_module_state_name ((ViperMonalisaModuleState) s);
}

static ViperColor
ml_color (gint s)
{
  switch (s)
    {
    case VIPER_ML_EXECUTING: return (ViperColor) { 60 / 255.0, 180 / 255.0, 75 / 255.0 };
    case VIPER_ML_INTERACTING: return (ViperColor) { 245 / 255.0, 200 / 255.0, 0 };
    case VIPER_ML_BLOCKED: return (ViperColor) { 215 / 255.0, 38 / 255.0, 61 / 255.0 };
    case VIPER_ML_INACTIVE:
    default: return (ViperColor) { 160 / 255.0, 160 / 255.0, 160 / 255.0 };
    }
}

static ViperColor
arrow_color (ViperMonalisaArrowKind k)
{
  switch (k)
    {
    case VIPER_ML_ARROW_REQUEST: return (ViperColor) { 0.85, 0.1, 0.1 };
    case VIPER_ML_ARROW_REPLY: return (ViperColor) { 0.45, 0.45, 0.45 };
    case VIPER_ML_ARROW_DATA:
    default: return (ViperColor) { 0, 0, 0 };
    }
}

static gboolean
in_deadlock (const ViperModel *m, gint64 id)
{
  guint n = 0;
  const gint64 *set = viper_monalisa_deadlock_cycle (m, &n);
  for (guint i = 0; i < n; i++)
    if (set[i] == id)
      return TRUE;
  return FALSE;
}

static void
ml_decorate (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double radius)
{
  if (in_deadlock (m, id))
    {
      /* the deadlocked set, in the program state's deadlock colour darkened, outside the exposure ring */
      cairo_set_source_rgb (cr, 0.9, 0.45, 0.0);
      cairo_set_line_width (cr, 3);
      cairo_new_path (cr);
      cairo_arc (cr, x, y, radius + VIPER_VIEW_DECORATION_MARGIN - 1.5, 0, 2 * G_PI);
      cairo_stroke (cr);
    }
  if (!viper_monalisa_module_any_exposed (m, id))
    return;
  cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
  cairo_set_line_width (cr, 2);
  cairo_new_path (cr);
  cairo_arc (cr, x, y, radius + VIPER_VIEW_DECORATION_MARGIN / 2, 0, 2 * G_PI);
  cairo_stroke (cr);
}

static void
ml_arrows (const ViperModel *m, const ViperRun *run, GArray *out)
{
  (void) run;
  guint n = viper_monalisa_model_n_modules (m);
  for (guint i = 0; i < n; i++)
    {
      guint k = viper_monalisa_module_n_arrows (m, i);
      for (guint j = 0; j < k; j++)
        {
          const ViperMonalisaArrow *a = viper_monalisa_module_arrow (m, i, j);
          ViperViewArrow v = { a->from, a->to, arrow_color (a->kind), FALSE };
          g_array_append_val (out, v);
        }
    }
}

static gboolean
ml_history_arrow (const ViperModel *m, const ViperHistoryEntry *e, ViperColor *color)
{
  (void) m;
  if (e->state < VIPER_ML_HISTORY_ARROW)
    return FALSE;
  *color = arrow_color ((ViperMonalisaArrowKind) (e->state - VIPER_ML_HISTORY_ARROW));
  return TRUE;
}

static guint
ml_n_variables (const ViperModel *m, gint64 id)
{
  return viper_monalisa_module_n_variables (m, id);
}

static void
ml_variable (const ViperModel *m, gint64 id, guint var, ViperViewVariable *out)
{
  out->name = viper_monalisa_variable_name (m, id, var);
  const ViperMonalisaSetup *s = setup_of (m);
  out->type = s && (guint64) id < viper_monalisa_setup_n_modules (s)
                && var < viper_monalisa_setup_n_attributes (s, (guint) id)
              ? viper_monalisa_setup_attribute_type (s, (guint) id, var) : NULL;
  gboolean exposed = viper_monalisa_variable_exposed (m, id, var);
  out->state = exposed ? "exposed" : "hidden";
  out->highlight = exposed;
}

static gboolean
ml_reported (const ViperModel *m)
{
  return viper_monalisa_reported (m) != VIPER_ML_PROGRAM_INACTIVE;
}

/* "inglb MASTER.JOB": the primitive under way, for the animation view */
static char *
ml_activity (const ViperModel *m, gint64 id)
{
  ViperMonalisaPrimitive p;
  if (!viper_monalisa_module_primitive (m, id, &p) || p.prim == VIPER_ML_PRIM_NONE)
    return NULL;
  const char *prim = viper_monalisa_prim_name (p.prim);
  const char *owner = p.partner >= 0 ? viper_monalisa_module_name (m, p.partner) : NULL;
  const ViperMonalisaSetup *s = setup_of (m);
  if (!owner && s && p.partner >= 0)
    for (guint g = 0; g < viper_monalisa_setup_n_groups (s); g++)
      if (viper_monalisa_setup_group_id (s, g) == p.partner)
        owner = viper_monalisa_setup_group_name (s, g);
  /* the variable lives at the partner (its owner), or at the module for expose / hide */
  gint64 holder = p.partner >= 0 && owner && viper_monalisa_module_exists (m, p.partner) ? p.partner : id;
  gint64 member;
  /* a group's variable is each instance's: name it after the first instance's */
  if (p.partner >= 0 && s && !viper_monalisa_module_exists (m, p.partner)
      && viper_monalisa_setup_group_members (s, p.partner, &member, 1) == 1)
    holder = member;
  const char *var = p.var >= 0 ? viper_monalisa_variable_name (m, holder, p.var) : NULL;
  char vbuf[32];
  if (!var && p.var >= 0)
    {
      g_snprintf (vbuf, sizeof vbuf, "v%" G_GINT64_FORMAT, p.var);
      var = vbuf;
    }
  if (owner && var)
    return g_strdup_printf ("%s %s.%s", prim, owner, var);
  if (var)
    return g_strdup_printf ("%s %s", prim, var);
  return g_strdup (prim);
}

const ViperRenderer viper_monalisa_renderer = {
  .modules = ml_modules,
  .module_label = ml_label,
  .module_state = ml_state,
  .state_name = ml_state_name,
  .state_color = ml_color,
  .n_states = 4,
  .decorate_module = ml_decorate,
  .arrows = ml_arrows,
  .history_arrow = ml_history_arrow,
  .n_variables = ml_n_variables,
  .variable = ml_variable,
  .program_reported = ml_reported,
  .module_activity = ml_activity,
  .time_unit = "ms",                /* TIME in milliseconds (formats.md) */
};
