/* viper-inspect.c - tooltips and click-to-inspect on modules, their
 * variables and devices in the animation, variables and program views.
 *
 * What a module is doing was only readable in the space-time view's tooltip.
 * Here each view's pointer position is matched to the nearest module with
 * the view's own geometry (the one the screen is drawn with), and the module
 * is described from the model and the run: its state and since when (the
 * last state change in the model's history), what it is doing (the
 * renderer's activity line: the current primitive), its variables, and its
 * last trams.  The last trams are kept here, a few per module, from the
 * scheduler's transfer hook: the run keeps none once applied.
 */
#include <string.h>
#include "viper-inspect.h"
#include "viper-view-widget.h"
#include "paradigms/views.h"

#define LAST_TRAMS 4
#define HIT_RADIUS 40.0

typedef struct {
  gint64 rec, ev;
  double time, adjusted;
} Last;

typedef struct {
  Last last[LAST_TRAMS];
  guint n, next;
  guint64 count;
} Ring;

struct _ViperInspect {
  ViperSession **session;
  GHashTable *rings;        /* proc -> Ring */
  char *last_text;          /* what the last click showed */
  void (*notify) (gpointer data);
  gpointer notify_data;
};

ViperInspect *
viper_inspect_new (ViperSession **session, void (*notify) (gpointer data), gpointer data)
{
  ViperInspect *in = g_new0 (ViperInspect, 1);
  in->session = session;
  in->rings = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  in->notify = notify;
  in->notify_data = data;
  return in;
}

void
viper_inspect_free (ViperInspect *in)
{
  if (!in)
    return;
  g_hash_table_unref (in->rings);
  g_free (in->last_text);
  g_free (in);
}

void
viper_inspect_clear (ViperInspect *in)
{
  g_hash_table_remove_all (in->rings);
}

const char *viper_inspect_last_text (ViperInspect *in) { return in->last_text; }

void
viper_inspect_transfer (ViperInspect *in, const ViperTram *t)
{
  Ring *r = g_hash_table_lookup (in->rings, &t->proc);
  if (!r)
    {
      gint64 *k = g_new (gint64, 1);
      *k = t->proc;
      r = g_new0 (Ring, 1);
      g_hash_table_insert (in->rings, k, r);
    }
  r->last[r->next] = (Last) { t->rec, t->ev, t->time, t->adjusted };
  r->next = (r->next + 1) % LAST_TRAMS;
  r->n = MIN (r->n + 1, LAST_TRAMS);
  r->count++;
}

static const char *
type_name (const ViperParadigm *p, gint64 rec, gint64 ev)
{
  guint16 i = viper_paradigm_type_index (p, rec, ev);
  return i == VIPER_TYPE_UNKNOWN ? NULL : p->types[i].name;
}

char *
viper_inspect_describe (ViperInspect *in, ViperSession *s, gint64 id)
{
  const ViperRenderer *r = viper_view_renderer (s->model);
  GString *g = g_string_new (NULL);
  char tb[32], ab[32];
  if (id < 0)
    {
      ViperCounts c;
      viper_run_counts (s->run, &c);
      g_string_append_printf (g, "Program: %s\n", viper_model_program_state (s->model));
      g_string_append_printf (g, "trams read %" G_GUINT64_FORMAT ", transferred %" G_GUINT64_FORMAT ", pending %"
                              G_GUINT64_FORMAT ", rejected %" G_GUINT64_FORMAT ", inconsistent %" G_GUINT64_FORMAT,
                              c.read, c.transferred, c.pending, c.rejected, s->model->inconsistent);
    }
  else
    {
      char *label = r->module_label (s->model, id);
      g_string_append_printf (g, "%s (module %" G_GINT64_FORMAT ")\n", label, id);
      g_free (label);
      const char *state = r->state_name (r->module_state (s->model, id));
      g_string_append_printf (g, "state: %s", state);
      const ViperHistoryModule *hm = viper_model_history_module (s->model, id);
      if (hm && hm->states->len)
        {
          const ViperHistoryRef *ref = &g_array_index (hm->states, ViperHistoryRef, hm->states->len - 1);
          const ViperHistoryEntry *e = viper_model_history_at (s->model, ref->pos);
          if (e)
            g_string_append_printf (g, " since %s", viper_format_double (e->t0, tb));
        }
      g_string_append_c (g, '\n');
      char *act = r->module_activity ? r->module_activity (s->model, id) : NULL;
      if (act && *act)
        g_string_append_printf (g, "doing: %s\n", act);
      g_free (act);
      guint nv = r->n_variables ? r->n_variables (s->model, id) : 0;
      for (guint v = 0; v < nv && v < 8; v++)
        {
          ViperViewVariable var = { 0 };
          r->variable (s->model, id, v, &var);
          g_string_append_printf (g, "variable %s%s%s: %s\n", var.name ? var.name : "?", var.type ? " " : "",
                                  var.type ? var.type : "", var.state ? var.state : "?");
        }
      if (nv > 8)
        g_string_append_printf (g, "(and %u more variables)\n", nv - 8);
      Ring *ring = g_hash_table_lookup (in->rings, &id);
      g_string_append_printf (g, "trams applied: %" G_GUINT64_FORMAT, ring ? ring->count : 0);
      for (guint k = 0; ring && k < ring->n; k++)
        {
          const Last *l = &ring->last[(ring->next + LAST_TRAMS - 1 - k) % LAST_TRAMS];
          const char *name = type_name (s->paradigm, l->rec, l->ev);
          g_string_append_printf (g, "\n  %s (%" G_GINT64_FORMAT " %" G_GINT64_FORMAT ") at %s, adjusted %s",
                                  name ? name : "tram", l->rec, l->ev, viper_format_double (l->time, tb),
                                  viper_format_double (l->adjusted, ab));
        }
    }
  return g_string_free (g, FALSE);
}

/* The module nearest to (x, y) within the hit radius (or inside its box). */
static gboolean
hit (GtkWidget *w, double x, double y, gint64 *id_out)
{
  ViperViewGeometry *geo = viper_view_widget_geometry (VIPER_VIEW_WIDGET (w));
  if (!geo)
    return FALSE;
  double best = HIT_RADIUS * HIT_RADIUS;
  gboolean found = FALSE;
  for (guint i = 0; i < viper_view_geometry_n_modules (geo); i++)
    {
      gint64 id = viper_view_geometry_module (geo, i);
      double bx, by, bw, bh, px, py;
      if (viper_view_geometry_module_box (geo, id, &bx, &by, &bw, &bh) && x >= bx && x < bx + bw && y >= by
          && y < by + bh)
        {
          *id_out = id;
          found = TRUE;
          break;
        }
      if (viper_view_geometry_module_point (geo, id, &px, &py))
        {
          double d = (px - x) * (px - x) + (py - y) * (py - y);
          if (d < best)
            {
              best = d;
              *id_out = id;
              found = TRUE;
            }
        }
    }
  viper_view_geometry_free (geo);
  return found;
}

/* A paradigm that draws this view itself says what is under the pointer
 * (its geometry is not the generic one); NULL when it does not. */
static char *
custom_describe (GtkWidget *w, ViperSession *s, double x, double y, gboolean *custom)
{
  const ViperRenderer *r = viper_view_renderer (s->model);
  ViperViewKind kind = viper_view_widget_kind (VIPER_VIEW_WIDGET (w));
  *custom = r->draw_view && r->describe_at;
  if (!*custom)
    return NULL;
  return r->describe_at (s->model, kind, gtk_widget_get_allocated_width (w), gtk_widget_get_allocated_height (w),
                         x, y);
}

static gboolean
on_query_tooltip (GtkWidget *w, gint x, gint y, gboolean keyboard, GtkTooltip *tip, gpointer data)
{
  ViperInspect *in = data;
  ViperSession *s = *in->session;
  gint64 id;
  gboolean custom = FALSE;
  char *text = !keyboard && s ? custom_describe (w, s, x, y, &custom) : NULL;
  if (custom && !text)
    return FALSE;
  if (!text && (keyboard || !s || !hit (w, x, y, &id)))
    return FALSE;
  if (!text)
    text = viper_inspect_describe (in, s, id);
  gtk_tooltip_set_text (tip, text);
  g_free (text);
  return TRUE;
}

static gboolean
on_button (GtkWidget *w, GdkEventButton *ev, gpointer data)
{
  ViperInspect *in = data;
  ViperSession *s = *in->session;
  gint64 id;
  if (ev->type != GDK_BUTTON_PRESS || ev->button != 1 || !s)
    return FALSE;
  gboolean custom = FALSE;
  char *text = custom_describe (w, s, ev->x, ev->y, &custom);
  if (custom && !text)
    return FALSE;
  if (!text && !hit (w, ev->x, ev->y, &id))
    return FALSE;
  if (!text)
    text = viper_inspect_describe (in, s, id);
  GtkWidget *pop = gtk_popover_new (w);
  gtk_widget_set_name (pop, "inspect");
  GdkRectangle rect = { (int) ev->x, (int) ev->y, 1, 1 };
  gtk_popover_set_pointing_to (GTK_POPOVER (pop), &rect);
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_container_set_border_width (GTK_CONTAINER (pop), 8);
  gtk_container_add (GTK_CONTAINER (pop), label);
  g_signal_connect (pop, "closed", G_CALLBACK (gtk_widget_destroy), NULL);
  gtk_widget_show_all (pop);
  gtk_popover_popup (GTK_POPOVER (pop));
  gtk_label_select_region (GTK_LABEL (label), 0, 0);   /* selectable, not selected */
  g_free (in->last_text);
  in->last_text = text;
  if (in->notify)
    in->notify (in->notify_data);
  return TRUE;
}

void
viper_inspect_attach (ViperInspect *in, GtkWidget *view, gboolean click)
{
  gtk_widget_set_has_tooltip (view, TRUE);
  g_signal_connect (view, "query-tooltip", G_CALLBACK (on_query_tooltip), in);
  if (click)
    {
      gtk_widget_add_events (view, GDK_BUTTON_PRESS_MASK);
      g_signal_connect (view, "button-press-event", G_CALLBACK (on_button), in);
    }
}
