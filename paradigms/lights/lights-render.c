/* lights-render.c - cluster lights in cairo (docs/paradigm-lights.md).
 *
 * Lilith Lights drew each node's load as a moving vertical bar and each
 * link as a unidirectional arrow, brighter for more bandwidth.  Here a
 * node's bar fills its view setup box from the bottom up to load / 100 %,
 * green through yellow to red; a lost node is dark grey with a red cross,
 * a node not heard from yet light grey.  The arrows are the generic views'
 * (paradigms/views.c draws them between the boxes, opposite directions side
 * by side); their colour comes from the link's rate through the range of
 * interest, which the view setup file or the GUI's popover sets.  Frozen,
 * every figure drawn is the one taken when the display was frozen.
 */
#include <math.h>
#include <string.h>
#include "lights-render.h"

static const ViperColor LOST_GREY = { 0.25, 0.25, 0.25 }, NO_SAMPLE = { 0.85, 0.85, 0.85 };

ViperColor
lights_bw_color (const LightsRange *r, double bw)
{
  if (bw < r->min)
    return (ViperColor) { r->below.r, r->below.g, r->below.b };
  if (bw > r->max)
    return (ViperColor) { r->above.r, r->above.g, r->above.b };
  double f = r->max > r->min ? CLAMP ((bw - r->min) / (r->max - r->min), 0.0, 1.0) : 1.0;
  return (ViperColor) { 0.1 + 0.9 * f, 0.15 + 0.8 * f, 0.5 - 0.5 * f };
}

ViperColor
lights_load_color (gint32 load)
{
  if (load < 0)
    return NO_SAMPLE;
  double f = CLAMP (load / 1000.0, 0.0, 1.0);
  /* green (0.1, 0.7, 0.1) -> yellow (0.95, 0.85, 0) -> red (0.9, 0.1, 0.1) */
  if (f < 0.5)
    {
      double k = f / 0.5;
      return (ViperColor) { 0.1 + 0.85 * k, 0.7 + 0.15 * k, 0.1 - 0.1 * k };
    }
  double k = (f - 0.5) / 0.5;
  return (ViperColor) { 0.95 - 0.05 * k, 0.85 - 0.75 * k, 0.1 * k };
}

static void
set_color (cairo_t *cr, ViperColor c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

void
lights_format_rate (double bw, char *buf, gsize len)
{
  if (bw >= 1e9)
    g_snprintf (buf, len, "%.2f GB/s", bw / 1e9);
  else if (bw >= 1e6)
    g_snprintf (buf, len, "%.2f MB/s", bw / 1e6);
  else if (bw >= 1e3)
    g_snprintf (buf, len, "%.1f kB/s", bw / 1e3);
  else
    g_snprintf (buf, len, "%.0f B/s", bw);
}

void
lights_format_bytes (guint64 b, char *buf, gsize len)
{
  if (b >= 1000000000ull)
    g_snprintf (buf, len, "%.2f GB", b / 1e9);
  else if (b >= 1000000ull)
    g_snprintf (buf, len, "%.2f MB", b / 1e6);
  else if (b >= 1000ull)
    g_snprintf (buf, len, "%.1f kB", b / 1e3);
  else
    g_snprintf (buf, len, "%" G_GUINT64_FORMAT " B", b);
}

void
lights_bar_geometry (double x, double y, double w, double h, double *bx, double *by, double *bw, double *bh)
{
  double pad = MAX (MIN (w, h) * 0.08, 1.0);
  double label = h >= 40 ? MIN (14.0, h * 0.25) : 0;
  *bx = x + pad;
  *by = y + pad;
  *bw = MAX (w - 2 * pad, 1.0);
  *bh = MAX (h - 2 * pad - label, 1.0);
}

void
lights_draw_bar (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double w, double h,
                 const char *label)
{
  guint8 state;
  gint32 load = lights_model_shown_load (m, id, &state);
  double bx, by, bw, bh;
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  cairo_save (cr);
  cairo_new_path (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill (cr);
  if (state == LIGHTS_NODE_LOST)
    {
      set_color (cr, LOST_GREY);
      cairo_rectangle (cr, bx, by, bw, bh);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 1, 0, 0);
      cairo_set_line_width (cr, MAX (2.0, MIN (bw, bh) * 0.08));
      cairo_move_to (cr, bx, by);
      cairo_line_to (cr, bx + bw, by + bh);
      cairo_move_to (cr, bx + bw, by);
      cairo_line_to (cr, bx, by + bh);
      cairo_stroke (cr);
    }
  else if (load < 0)
    {
      set_color (cr, NO_SAMPLE);
      cairo_rectangle (cr, bx, by, bw, bh);
      cairo_fill (cr);
    }
  else if (load > 0)
    {
      double f = MIN (load / 1000.0, 1.0);
      set_color (cr, lights_load_color (load));
      cairo_rectangle (cr, bx, by + bh * (1 - f), bw, bh * f);
      cairo_fill (cr);
    }
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_set_line_width (cr, 1.0);
  cairo_rectangle (cr, bx, by, bw, bh);
  cairo_stroke (cr);
  char fallback[32];
  if (!label)
    {
      g_snprintf (fallback, sizeof fallback, "%" G_GINT64_FORMAT, id);
      label = fallback;
    }
  if (h >= 40)
    {
      double size = MIN (12.0, h * 0.22);
      cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
      cairo_set_font_size (cr, size);
      cairo_text_extents_t e;
      cairo_text_extents (cr, label, &e);
      cairo_move_to (cr, x + w / 2 - e.width / 2 - e.x_bearing, y + h - 2);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      cairo_show_text (cr, label);
    }
  cairo_restore (cr);
}

/* ---- the generic views' renderer table ---------------------------------------- */

static void
r_modules (const ViperModel *m, const ViperRun *run, GArray *ids)
{
  (void) run;
  GArray *all = lights_model_ids (m);
  g_array_append_vals (ids, all->data, all->len);
  g_array_unref (all);
}

static char *
r_label (const ViperModel *m, gint64 id)
{
  const ViperViewModule *mod = viper_view_setup_module (lights_model_view_setup (m), id);
  if (mod && mod->label)
    return g_strdup (mod->label);
  return g_strdup_printf ("node %" G_GINT64_FORMAT, id);
}

static gint
r_state (const ViperModel *m, gint64 id)
{
  guint8 state;
  gint32 load = lights_model_shown_load (m, id, &state);
  if (state == LIGHTS_NODE_LOST)
    return LIGHTS_STATE_LOST;
  if (load < 0)
    return LIGHTS_STATE_NO_SAMPLE;
  return MIN (load / 100, 9);
}

static const char *
r_state_name (gint s)
{
  static const char *const names[] = { "load 0-9%", "10-19%", "20-29%", "30-39%", "40-49%", "50-59%",
                                       "60-69%", "70-79%", "80-89%", "90-100%", "no sample", "lost" };
  return s >= 0 && s < LIGHTS_N_STATES ? names[s] : "?";
}

static ViperColor
r_state_color (gint s)
{
  if (s == LIGHTS_STATE_LOST)
    return LOST_GREY;
  if (s == LIGHTS_STATE_NO_SAMPLE || s < 0)
    return NO_SAMPLE;
  return lights_load_color (s * 100 + 50);
}

static void
r_decorate (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double radius)
{
  lights_draw_bar (cr, m, id, x - radius * 0.6, y - radius, 1.2 * radius, 2 * radius, NULL);
}

static void
r_arrows (const ViperModel *m, const ViperRun *run, GArray *out)
{
  (void) run;
  LightsRange range;
  lights_model_range (m, &range);
  guint n = lights_model_n_links (m);
  for (guint i = 0; i < n; i++)
    {
      LightsLink l;
      lights_model_link (m, i, &l);
      ViperViewArrow a = { l.from, l.to, lights_bw_color (&range, lights_model_shown_link_bw (m, i)), FALSE };
      g_array_append_val (out, a);
    }
}

static gboolean
r_history_arrow (const ViperModel *m, const ViperHistoryEntry *e, ViperColor *color)
{
  if (e->other < 0)
    return FALSE;
  LightsRange r;
  lights_model_range (m, &r);
  double span = r.max - r.min;
  double bw = e->state <= 0 ? r.min - 1 : e->state >= 9 ? r.max + 1 : r.min + span * (e->state - 0.5) / 8;
  *color = lights_bw_color (&r, bw);
  return TRUE;
}

/* The variables view's strings live until the next few calls: the view
 * draws each variable right after asking for it. */
static char *
scratch (void)
{
  static char bufs[8][128];
  static guint next;
  return bufs[next++ % G_N_ELEMENTS (bufs)];
}

#define FIXED_VARS 4

static guint
r_n_variables (const ViperModel *m, gint64 id)
{
  return FIXED_VARS + lights_model_n_out_links (m, id);
}

static void
r_variable (const ViperModel *m, gint64 id, guint var, ViperViewVariable *out)
{
  LightsNode n;
  lights_model_node (m, id, &n);
  char *st = scratch (), a[32], b[32];
  out->type = "node";
  out->highlight = FALSE;
  out->state = st;
  switch (var)
    {
    case 0:
      out->name = "state";
      if (n.state == LIGHTS_NODE_STALE && m->collection_end == VIPER_COLLECTION_ON)
        g_snprintf (st, 128, "stale, silent %.3g s", lights_model_now (m) - n.last_heard);
      else
        g_strlcpy (st, n.state == LIGHTS_NODE_UP      ? "up"
                       : n.state == LIGHTS_NODE_LOST  ? "lost"
                       : n.state == LIGHTS_NODE_STALE ? "stale (collection ended)"
                                                      : "unknown", 128);
      out->highlight = n.state == LIGHTS_NODE_UP;
      return;
    case 1:
      out->name = "load";
      if (n.load < 0)
        g_strlcpy (st, "-", 128);
      else
        g_snprintf (st, 128, "%.1f %% (%" G_GUINT64_FORMAT " samples)", n.load / 10.0, n.samples);
      return;
    case 2:
      out->name = "sent";
      lights_format_rate (n.bw_out, a, sizeof a);
      lights_format_bytes (n.bytes_out, b, sizeof b);
      g_snprintf (st, 128, "%s, %s", a, b);
      return;
    case 3:
      out->name = "received";
      lights_format_rate (n.bw_in, a, sizeof a);
      lights_format_bytes (n.bytes_in, b, sizeof b);
      g_snprintf (st, 128, "%s, %s", a, b);
      return;
    default:
      break;
    }
  guint k = var - FIXED_VARS;
  if (k < lights_model_n_out_links (m, id))
    {
      guint i = lights_model_out_link (m, id, k);
      LightsLink l;
      lights_model_link (m, i, &l);
      char *name = scratch ();
      g_snprintf (name, 128, "link -> %" G_GINT64_FORMAT, l.to);
      out->name = name;
      out->type = "link";
      gboolean stale = m->collection_end != VIPER_COLLECTION_ON;
      /* stale: the last rate, said to be the last (the arrow shows none) */
      lights_format_rate (stale ? l.bw : lights_model_shown_link_bw (m, i), a, sizeof a);
      lights_format_bytes (l.bytes, b, sizeof b);
      g_snprintf (st, 128, stale ? "last %s, %s" : "%s, %s", a, b);
      out->highlight = l.bw > 0 && !stale;
      return;
    }
  out->name = "?";
  g_strlcpy (st, "", 128);
}

static char *
r_activity (const ViperModel *m, gint64 id)
{
  LightsNode n;
  lights_model_node (m, id, &n);
  if (n.state == LIGHTS_NODE_LOST)
    return g_strdup ("lost");
  if (n.state == LIGHTS_NODE_STALE)
    return n.load < 0 ? g_strdup ("stale, no sample") : g_strdup_printf ("stale, last load %.1f %%", n.load / 10.0);
  if (n.load < 0)
    return g_strdup (n.state == LIGHTS_NODE_UP ? "up, no sample" : "not heard from");
  char a[32];
  lights_format_rate (n.bw_out, a, sizeof a);
  return g_strdup_printf ("load %.1f %%, sends %s", n.load / 10.0, a);
}

static gboolean
r_draw_module (cairo_t *cr, const ViperModel *m, gint64 id, const char *repr, double x, double y, double w,
               double h, const char *label)
{
  if (!g_str_equal (repr, "bar") && !g_str_equal (repr, "node"))
    return FALSE;
  lights_draw_bar (cr, m, id, x, y, w, h, label);
  return TRUE;
}

static gboolean
r_draw_view (cairo_t *cr, const ViperModel *m, ViperViewKind kind, int w, int h)
{
  return kind == VIPER_VIEW_ANIMATION && lights_draw_animation (cr, m, w, h);
}

static const ViperViewSetup *
r_view_setup (const ViperModel *m)
{
  return lights_model_view_setup (m);
}

static char *
r_program_detail (const ViperModel *m)
{
  guint up, lost, unknown, stale;
  lights_model_counts (m, &up, &lost, &unknown, &stale);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "nodes: %u up, %u lost, %u not heard from", up, lost, unknown);
  if (stale)
    g_string_append_printf (s, ", %u stale", stale);
  if (m->collection_end != VIPER_COLLECTION_ON)
    g_string_append_printf (s, "\ncollection %s: not current", m->collection_end == VIPER_COLLECTION_LOST ? "lost" : "ended");
  double lat = lights_model_latency (m);
  if (isfinite (lat))
    g_string_append_printf (s, "\ndisplay latency %.3f s", lat);
  if (lights_model_frozen (m))
    g_string_append (s, "\ndisplay frozen");
  guint n = lights_model_n_messages (m);
  for (guint i = n > 3 ? n - 3 : 0; i < n; i++)
    g_string_append_printf (s, "\n%s", lights_model_message (m, i));
  return g_string_free (s, FALSE);
}

const ViperRenderer lights_renderer = {
  .modules = r_modules,
  .module_label = r_label,
  .module_state = r_state,
  .state_name = r_state_name,
  .state_color = r_state_color,
  .n_states = LIGHTS_N_STATES,
  .decorate_module = r_decorate,
  .arrows = r_arrows,
  .history_arrow = r_history_arrow,
  .n_variables = r_n_variables,
  .variable = r_variable,
  .program_reported = NULL,
  .module_activity = r_activity,
  .draw_module = r_draw_module,
  .draw_view = r_draw_view,
  .view_setup = r_view_setup,
  .program_detail = r_program_detail,
  .time_unit = "s",                 /* TIME: the node's Unix time in seconds */
};
