/* macrame-render.c - the Macrame devices in cairo (spec macrame.md section 3).
 *
 * The shapes follow the thesis's Figures 49 and 50.  A node is a rectangle:
 * its bottom quarter is the base in the setup-state colour (Table 13); above
 * it stand two meters, transmitter left and receiver right, whose lower part
 * is filled in the dynamic-state colour (Table 14) up to rate / MAXRATE of
 * the meter's height and whose upper part is left unpainted, so what is
 * behind the node shows through.  A node whose transmitter or receiver is in
 * error gets a white cross corner to corner.  A switch is a rectangle in the
 * setup colour, red instead when it is in error, with its label centred in
 * a colour that stays readable on the fill.
 *
 * Everything is drawn from the model's state at the time of the call, so the
 * GUI, viper-replay and the tests get the same pixels.  The whole-view
 * functions scale the view setup's coordinate space uniformly into the
 * picture and centre it; macrame_view_transform() gives tests that mapping.
 */
#include <math.h>
#include <string.h>
#include "macrame-render.h"

/* the colours, once (the legend's swatches are these) */
#define RGB_BLACK { 0, 0, 0 }
#define RGB_RED { 1, 0, 0 }
#define RGB_YELLOW { 1, 1, 0 }
#define RGB_GREY { 0.5, 0.5, 0.5 }
#define RGB_BLUE { 0, 0, 1 }
#define RGB_GREEN { 0, 0.8, 0 }
static const ViperColor BLACK = RGB_BLACK, RED = RGB_RED, YELLOW = RGB_YELLOW, GREY = RGB_GREY, BLUE = RGB_BLUE,
                        GREEN = RGB_GREEN, WHITE = { 1, 1, 1 };

ViperColor
macrame_setup_color (MacrameSetupClass c)
{
  switch (c)
    {
    case MACRAME_SETUP_USED_NOT_ALIVE: return RED;
    case MACRAME_SETUP_ALIVE_NOT_USED: return YELLOW;
    case MACRAME_SETUP_READY_UNDEFINED: return GREY;
    case MACRAME_SETUP_READY: return BLUE;
    case MACRAME_SETUP_NONE:
    default: return BLACK;
    }
}

ViperColor
macrame_dynamic_color (MacrameState s)
{
  switch (s)
    {
    case MACRAME_IDLE:
    case MACRAME_COMMUNICATING: return GREEN;
    case MACRAME_CONGESTED: return YELLOW;
    case MACRAME_OVERFLOW:
    case MACRAME_ERROR: return RED;
    case MACRAME_UNDEFINED:
    default: return BLACK;
    }
}

static void
set_color (cairo_t *cr, ViperColor c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

void
macrame_node_geometry (double x, double y, double w, double h, MacrameNodeGeometry *g)
{
  double pad = MAX (w * 0.08, 1.0);
  double top = h * 0.75;
  g->base_x = x, g->base_y = y + top, g->base_w = w, g->base_h = h - top;
  g->tx_x = x + pad, g->tx_y = y + pad, g->tx_w = w / 2 - 1.5 * pad, g->tx_h = top - pad;
  g->rx_x = x + w / 2 + 0.5 * pad, g->rx_y = g->tx_y, g->rx_w = g->tx_w, g->rx_h = g->tx_h;
}

/* The outline cairo_rectangle + cairo_stroke draws with a line width of 1
 * and mitred corners, as a fill: the ring between the rectangle grown and
 * shrunk by half a unit, or, when the rectangle is a unit thin or less (the
 * meters of a small node), the grown rectangle, which is what the strokes
 * of its sides cover together.  The same shape, which cairo fills several
 * times faster than it strokes (a thousand nodes, three outlines each, were
 * most of the 8x8 testbed's frame).  A rectangle with no width or height is
 * stroked. */
void
macrame_outline_rect (cairo_t *cr, double x, double y, double w, double h)
{
  cairo_new_path (cr);
  if (w == 0 || h == 0 || !isfinite (w) || !isfinite (h))
    {
      cairo_set_line_width (cr, 1.0);
      cairo_rectangle (cr, x, y, w, h);
      cairo_stroke (cr);
      return;
    }
  if (w < 0)
    x += w, w = -w;
  if (h < 0)
    y += h, h = -h;
  cairo_rectangle (cr, x - 0.5, y - 0.5, w + 1, h + 1);
  if (w > 1 && h > 1)
    {
      /* the hole, the other way round (the fill rule is winding) */
      cairo_move_to (cr, x + 0.5, y + 0.5);
      cairo_rel_line_to (cr, 0, h - 1);
      cairo_rel_line_to (cr, w - 1, 0);
      cairo_rel_line_to (cr, 0, -(h - 1));
      cairo_close_path (cr);
    }
  cairo_fill (cr);
}

static void
draw_meter (cairo_t *cr, double x, double y, double w, double h, MacrameState s, gint32 rate, gint64 maxrate)
{
  double f = maxrate > 0 ? CLAMP ((double) rate / (double) maxrate, 0.0, 1.0) : 0.0;
  if (f > 0 && w > 0 && h > 0)
    {
      set_color (cr, macrame_dynamic_color (s));
      cairo_rectangle (cr, x, y + h * (1 - f), w, h * f);
      cairo_fill (cr);
    }
  set_color (cr, BLACK);
  macrame_outline_rect (cr, x, y, w, h);
}

void
macrame_draw_node (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double w, double h)
{
  MacrameDevice d;
  macrame_model_device (m, id, &d);
  gint64 maxrate = macrame_model_maxrate (m);
  MacrameNodeGeometry g;
  macrame_node_geometry (x, y, w, h, &g);
  cairo_save (cr);
  set_color (cr, macrame_setup_color (macrame_device_setup_class (&d)));
  cairo_rectangle (cr, g.base_x, g.base_y, g.base_w, g.base_h);
  cairo_fill (cr);
  draw_meter (cr, g.tx_x, g.tx_y, g.tx_w, g.tx_h, (MacrameState) d.tx_state, d.tx_rate, maxrate);
  draw_meter (cr, g.rx_x, g.rx_y, g.rx_w, g.rx_h, (MacrameState) d.rx_state, d.rx_rate, maxrate);
  set_color (cr, BLACK);
  macrame_outline_rect (cr, x, y, w, h);
  if (d.tx_state == MACRAME_ERROR || d.rx_state == MACRAME_ERROR)
    {
      set_color (cr, WHITE);
      cairo_set_line_width (cr, MAX (2.0, MIN (w, h) * 0.1));
      cairo_move_to (cr, x, y);
      cairo_line_to (cr, x + w, y + h);
      cairo_move_to (cr, x + w, y);
      cairo_line_to (cr, x, y + h);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

static ViperColor
readable_on (ViperColor c)
{
  double lum = 0.3 * c.r + 0.59 * c.g + 0.11 * c.b;
  return lum > 0.45 ? BLACK : WHITE;
}

static void
centred_text (cairo_t *cr, const char *text, double cx, double cy, double size)
{
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
  cairo_text_extents_t e;
  cairo_text_extents (cr, text, &e);
  cairo_move_to (cr, cx - e.width / 2 - e.x_bearing, cy - e.height / 2 - e.y_bearing);
  cairo_show_text (cr, text);
}

void
macrame_draw_switch (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double w, double h,
                     const char *label)
{
  MacrameDevice d;
  macrame_model_device (m, id, &d);
  ViperColor fill = d.state == MACRAME_ERROR ? macrame_dynamic_color (MACRAME_ERROR)
                                             : macrame_setup_color (macrame_device_setup_class (&d));
  cairo_save (cr);
  set_color (cr, fill);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill_preserve (cr);
  set_color (cr, BLACK);
  cairo_set_line_width (cr, 1.0);
  cairo_stroke (cr);
  char fallback[32];
  if (!label)
    {
      g_snprintf (fallback, sizeof fallback, "S%" G_GINT64_FORMAT, id);
      label = fallback;
    }
  /* small enough for the box, centred; the corners keep the fill colour */
  double size = MIN (h * 0.35, w * 1.4 / MAX (strlen (label), 1u));
  if (size >= 4)
    {
      set_color (cr, readable_on (fill));
      centred_text (cr, label, x + w / 2, y + h / 2, size);
    }
  cairo_restore (cr);
}

void
macrame_view_transform (const ViperViewSetup *vs, int w, int h, double *scale, double *ox, double *oy)
{
  double vw = vs ? vs->width : VIPER_VIEW_SETUP_DEFAULT_SIZE, vh = vs ? vs->height : VIPER_VIEW_SETUP_DEFAULT_SIZE;
  double s = MIN (w / vw, h / vh);
  *scale = s;
  *ox = (w - vw * s) / 2;
  *oy = (h - vh * s) / 2;
}

void
macrame_draw_view (cairo_t *cr, const ViperModel *m, const ViperViewSetup *vs, int w, int h)
{
  cairo_save (cr);
  set_color (cr, WHITE);
  cairo_paint (cr);
  if (!vs)
    {
      cairo_restore (cr);
      return;
    }
  double s, ox, oy;
  macrame_view_transform (vs, w, h, &s, &ox, &oy);
#define X(v) (ox + (v) * s)
#define Y(v) (oy + (v) * s)
  for (guint i = 0; i < vs->elements->len; i++)
    {
      const ViperViewElement *e = &g_array_index (vs->elements, ViperViewElement, i);
      set_color (cr, BLACK);
      cairo_set_line_width (cr, 1.0);
      switch (e->kind)
        {
        case VIPER_VIEW_ELEMENT_LINE:
          cairo_move_to (cr, X (e->x1), Y (e->y1));
          cairo_line_to (cr, X (e->x2), Y (e->y2));
          cairo_stroke (cr);
          break;
        case VIPER_VIEW_ELEMENT_RECT:
          cairo_rectangle (cr, X (e->x1), Y (e->y1), (e->x2 - e->x1) * s, (e->y2 - e->y1) * s);
          if (e->filled)
            {
              cairo_set_source_rgb (cr, e->fill.r, e->fill.g, e->fill.b);
              cairo_fill_preserve (cr);
              set_color (cr, BLACK);
            }
          cairo_stroke (cr);
          break;
        case VIPER_VIEW_ELEMENT_TEXT:
          cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
          cairo_set_font_size (cr, MAX (12 * s, 6.0));
          cairo_move_to (cr, X (e->x1), Y (e->y1));
          cairo_show_text (cr, e->text);
          break;
        }
    }
  for (guint i = 0; i < vs->modules->len; i++)
    {
      const ViperViewModule *mod = &g_array_index (vs->modules, ViperViewModule, i);
      if (g_str_equal (mod->repr, "switch"))
        macrame_draw_switch (cr, m, mod->id, X (mod->x), Y (mod->y), mod->w * s, mod->h * s, mod->label);
      else
        macrame_draw_node (cr, m, mod->id, X (mod->x), Y (mod->y), mod->w * s, mod->h * s);
    }
#undef X
#undef Y
  cairo_restore (cr);
}

void
macrame_draw_spacetime (cairo_t *cr, const ViperModel *m, const ViperViewSetup *vs, int w, int h)
{
  cairo_save (cr);
  set_color (cr, WHITE);
  cairo_paint (cr);
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (vs && vs->spacetime->len)
    g_array_append_vals (rows, vs->spacetime->data, vs->spacetime->len);
  else
    {
      GArray *ids = macrame_model_ids (m);
      for (guint i = 0; i < ids->len; i++)
        {
          MacrameDevice d;
          macrame_model_device (m, g_array_index (ids, gint64, i), &d);
          if (d.kind == MACRAME_KIND_NODE)
            g_array_append_val (rows, d.id);
        }
      g_array_unref (ids);
    }
  if (!rows->len || !m->history->len || !isfinite (m->clock))
    {
      g_array_unref (rows);
      cairo_restore (cr);
      return;
    }
  GHashTable *row_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < rows->len; i++)
    g_hash_table_insert (row_of, g_memdup2 (&g_array_index (rows, gint64, i), sizeof (gint64)),
                         GUINT_TO_POINTER (i + 1));
  double t0 = g_array_index (m->history, ViperHistoryEntry, 0).t0, t1 = m->clock;
  double span = t1 > t0 ? t1 - t0 : 1;
  double left = 0, row_h = (double) h / rows->len;
  /* per row: time and state of the last change seen; undefined (black) before */
  double *since = g_new (double, rows->len);
  gint *state = g_new (gint, rows->len);
  for (guint i = 0; i < rows->len; i++)
    since[i] = t0, state[i] = MACRAME_UNDEFINED;
#define TX(t) (left + ((t) - t0) / span * (w - left))
  for (guint k = 0; k <= m->history->len; k++)
    {
      const ViperHistoryEntry *e = k < m->history->len ? &g_array_index (m->history, ViperHistoryEntry, k) : NULL;
      guint r;
      if (e)
        {
          gint64 id = e->module;
          r = GPOINTER_TO_UINT (g_hash_table_lookup (row_of, &id));
          if (!r)
            continue;
          r--;
          set_color (cr, macrame_dynamic_color ((MacrameState) state[r]));
          cairo_rectangle (cr, TX (since[r]), r * row_h, TX (e->t0) - TX (since[r]), row_h * 0.8);
          cairo_fill (cr);
          since[r] = e->t0;
          state[r] = e->state;
        }
      else
        for (r = 0; r < rows->len; r++)
          {
            set_color (cr, macrame_dynamic_color ((MacrameState) state[r]));
            cairo_rectangle (cr, TX (since[r]), r * row_h, TX (t1) - TX (since[r]), row_h * 0.8);
            cairo_fill (cr);
          }
    }
#undef TX
  g_free (since);
  g_free (state);
  g_hash_table_destroy (row_of);
  g_array_unref (rows);
  cairo_restore (cr);
}

static gboolean
write_png (cairo_surface_t *surf, const char *path, GError **error)
{
  cairo_status_t st = cairo_surface_write_to_png (surf, path);
  cairo_surface_destroy (surf);
  if (st != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", path, cairo_status_to_string (st));
      return FALSE;
    }
  return TRUE;
}

gboolean
macrame_render_view_to_png (const ViperModel *m, const ViperViewSetup *vs, const char *path, int w, int h,
                            GError **error)
{
  cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (surf);
  macrame_draw_view (cr, m, vs, w, h);
  cairo_destroy (cr);
  return write_png (surf, path, error);
}

gboolean
macrame_render_spacetime_to_png (const ViperModel *m, const ViperViewSetup *vs, const char *path, int w, int h,
                                 GError **error)
{
  cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (surf);
  macrame_draw_spacetime (cr, m, vs, w, h);
  cairo_destroy (cr);
  return write_png (surf, path, error);
}

/* ---- the generic views' renderer table -------------------------------------- */

static void
r_modules (const ViperModel *m, const ViperRun *run, GArray *ids)
{
  (void) run;
  const ViperViewSetup *vs = macrame_model_view_setup (m);
  GHashTable *seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; vs && i < vs->modules->len; i++)
    {
      const ViperViewModule *mod = &g_array_index (vs->modules, ViperViewModule, i);
      g_array_append_val (ids, mod->id);
      g_hash_table_add (seen, (gpointer) &mod->id);
    }
  GArray *all = macrame_model_ids (m);
  for (guint i = 0; i < all->len; i++)
    if (!g_hash_table_contains (seen, &g_array_index (all, gint64, i)))
      g_array_append_val (ids, g_array_index (all, gint64, i));
  g_hash_table_destroy (seen);
  g_array_unref (all);
}

static char *
r_label (const ViperModel *m, gint64 id)
{
  const ViperViewModule *mod = viper_view_setup_module (macrame_model_view_setup (m), id);
  if (mod && mod->label)
    return g_strdup (mod->label);
  return g_strdup_printf ("%" G_GINT64_FORMAT, id);
}

/* The generic views know one state per module: a switch's dynamic state,
 * a node's transmitter's (what the space-time view shows). */
static gint
r_state (const ViperModel *m, gint64 id)
{
  MacrameDevice d;
  macrame_model_device (m, id, &d);
  return d.kind == MACRAME_KIND_SWITCH ? d.state : d.tx_state;
}

static const char *
r_state_name (gint s)
{
  return macrame_state_name ((MacrameState) s);
}

static ViperColor
r_state_color (gint s)
{
  return macrame_dynamic_color ((MacrameState) s);
}

/* One swatch per colour drawn, with every state it stands for (spec
 * macrame.md section 3): the dynamic states share green (idle/ok and
 * communicating) and red (overflow and error), and the setup colours of
 * the switches and node bases - blue, grey, red, yellow, black - are what
 * a testbed's picture mostly shows.  A swatch per dynamic state gave two
 * greens and two reds and none of those.  The space-time view's bars are
 * the dynamic state only. */
static const ViperLegendEntry LEGEND_DEVICES[] = {
  { RGB_BLUE, "alive, used" },
  { RGB_GREY, "alive, used, undefined" },
  { RGB_GREEN, "idle/ok, communicating" },
  { RGB_YELLOW, "congested; alive, not used" },
  { RGB_RED, "overflow, error; used, not alive" },
  { RGB_BLACK, "undefined; not alive, not used" },
};
static const ViperLegendEntry LEGEND_DYNAMIC[] = {
  { RGB_GREEN, "idle/ok, communicating" },
  { RGB_YELLOW, "congested" },
  { RGB_RED, "overflow, error" },
  { RGB_BLACK, "undefined" },
};

static guint
r_legend (ViperViewKind kind, const ViperLegendEntry **entries)
{
  if (kind == VIPER_VIEW_SPACETIME)
    {
      *entries = LEGEND_DYNAMIC;
      return G_N_ELEMENTS (LEGEND_DYNAMIC);
    }
  *entries = LEGEND_DEVICES;
  return G_N_ELEMENTS (LEGEND_DEVICES);
}

/* The device's own shape over the generic disc, in the disc's square. */
static void
r_decorate (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double radius)
{
  MacrameDevice d;
  macrame_model_device (m, id, &d);
  cairo_save (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_rectangle (cr, x - radius, y - radius, 2 * radius, 2 * radius);
  cairo_fill (cr);
  if (d.kind == MACRAME_KIND_SWITCH)
    {
      const ViperViewModule *mod = viper_view_setup_module (macrame_model_view_setup (m), id);
      macrame_draw_switch (cr, m, id, x - radius, y - radius * 0.6, 2 * radius, 1.2 * radius,
                           mod ? mod->label : NULL);
    }
  else
    macrame_draw_node (cr, m, id, x - radius * 0.7, y - radius, 1.4 * radius, 2 * radius);
  cairo_restore (cr);
}

static char *
r_activity (const ViperModel *m, gint64 id)
{
  MacrameDevice d;
  macrame_model_device (m, id, &d);
  const char *setup = d.alive ? (d.used ? "alive, used" : "alive, not used") : (d.used ? "used, not alive" : "not alive");
  if (d.kind == MACRAME_KIND_SWITCH)
    return g_strdup_printf ("switch, %s, %s", setup, macrame_state_name ((MacrameState) d.state));
  return g_strdup_printf ("%s, %s, tx %s %d, rx %s %d", macrame_kind_name ((MacrameKind) d.kind), setup,
                          macrame_state_name ((MacrameState) d.tx_state), d.tx_rate,
                          macrame_state_name ((MacrameState) d.rx_state), d.rx_rate);
}

/* A view setup's node or switch drawn as itself in its box (the animation
 * view laid out by the file); any other word is not Macrame's. */
static gboolean
r_draw_module (cairo_t *cr, const ViperModel *m, gint64 id, const char *repr, double x, double y, double w,
               double h, const char *label)
{
  if (g_str_equal (repr, "switch"))
    macrame_draw_switch (cr, m, id, x, y, w, h, label);
  else if (g_str_equal (repr, "node"))
    macrame_draw_node (cr, m, id, x, y, w, h);
  else
    return FALSE;
  return TRUE;
}

const ViperRenderer macrame_renderer = {
  .modules = r_modules,
  .module_label = r_label,
  .module_state = r_state,
  .state_name = r_state_name,
  .state_color = r_state_color,
  .n_states = MACRAME_N_STATES,
  .decorate_module = r_decorate,
  .arrows = NULL,
  .history_arrow = NULL,
  .n_variables = NULL,
  .variable = NULL,
  .program_reported = NULL,
  .module_activity = r_activity,
  .time_unit = "ms",                /* TIME in milliseconds (formats.md) */
  .draw_module = r_draw_module,
  .legend = r_legend,
};
