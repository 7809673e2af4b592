/* switchnet-render.c - the network, processor and toroidal views.
 *
 * One geometry function places switches and ports for the current view and
 * size; drawing and the pixel probes of the tests (swn_port_point) both use
 * it, so what a test probes is what is drawn.  The planar views put the
 * planes side by side, each a grid of rows and columns; a cable between
 * switches that are not neighbours in the grid (a wrap-around, or between
 * planes) is drawn first, as a curve behind the switches.  The toroidal view
 * puts switch (plane p, row r, column c) on a torus - each row a ring around
 * the tube, rows around the major circle, plane p a layer further out - then
 * rotates (yaw, pitch), projects in perspective and draws far things first.
 */
#include <math.h>
#include <string.h>
#include "switchnet-render.h"

typedef struct {
  const SwnNet *net;
  const SwnInit *in;
  int w, h;
  gboolean torus;
  double cell, side, pr;    /* planar: grid cell height, switch height, port radius */
  double cell_w, side_w;    /* planar: grid cell width, switch width (wider when there is room) */
  double ox, oy;            /* planar: top-left of the grid */
  /* torus */
  double cx, cy, scale;
  double tside;             /* switch side at depth factor 1 */
} Geo;

#define TOP 22.0
#define BOTTOM 24.0

static void
geo_init (Geo *g, const ViperModel *m, int w, int h)
{
  memset (g, 0, sizeof *g);
  g->net = swn_model_net (m);
  g->in = &g->net->init;
  g->w = w;
  g->h = h;
  g->torus = g->in->view == SWN_VIEW_TORUS;
  const SwnNet *n = g->net;
  guint rows = MAX (n->rows, 1), cols = MAX (n->cols, 1), planes = MAX (n->planes, 1);
  double aw = MAX (w - 20.0, 10), ah = MAX (h - TOP - BOTTOM - 10, 10);
  if (!g->torus)
    {
      double tc = planes * cols + (planes - 1) * 0.6;
      /* cells as large as the view allows, at most 2.5 times as wide as high
       * or the other way round, so that ports stay visible in wide windows */
      double cw = aw / tc, ch = ah / rows;
      cw = MIN (cw, ch * 2.5);
      ch = MIN (ch, cw * 2.5);
      g->cell = ch * g->in->zoom;
      g->cell_w = cw * g->in->zoom;
      g->side = g->cell * 0.58;
      g->side_w = g->cell_w * 0.62;
      guint max_ns = 1, max_ew = 1;
      for (guint i = 0; i < n->portdefs->len; i++)
        {
          const SwnPortDef *d = g_ptr_array_index (n->portdefs, i);
          max_ns = MAX (max_ns, MAX (d->n_on_side[0], d->n_on_side[2]));
          max_ew = MAX (max_ew, MAX (d->n_on_side[1], d->n_on_side[3]));
        }
      g->pr = MIN (MIN (g->side_w / (2.0 * max_ns), g->side / (2.0 * max_ew)) * 0.88,
                   MIN (g->cell, g->cell_w) * 0.09);
      g->ox = 10 + (aw - tc * g->cell_w) / 2 + g->in->pan_x * w;
      g->oy = TOP + 5 + (ah - rows * g->cell) / 2 + g->in->pan_y * h;
    }
  else
    {
      g->cx = w / 2.0 + g->in->pan_x * w;
      g->cy = TOP + (h - TOP - BOTTOM) / 2.0 + g->in->pan_y * h;
      g->scale = MIN (aw, ah) / 2.0 / (1.0 + 0.35 + 0.15 * planes) * 0.9 * g->in->zoom;
      /* a switch takes under half the distance to its neighbours */
      double along = 2 * G_PI * (n->rows <= 1 ? 1.0 : 0.35) / cols;
      double across = n->rows <= 1 ? along : 2 * G_PI * 1.0 / rows;
      g->tside = CLAMP (0.45 * MIN (along, across) * g->scale, 4.0, 80.0);
    }
}

static const SwnSwitch *
sw_at (const Geo *g, guint sw)
{
  return &g_array_index (g->net->switches, SwnSwitch, sw);
}

static gboolean
plane_hidden (const Geo *g, guint plane)
{
  return plane < 64 && (g->in->hidden_planes >> plane) & 1;
}

/* torus: the switch's point after rotation (x, y on screen before the
 * perspective divide, z depth: larger is nearer) */
static void
torus_point (const Geo *g, const SwnSwitch *s, double *x, double *y, double *z)
{
  const SwnNet *n = g->net;
  double rows = MAX (n->rows, 1), cols = MAX (n->cols, 1);
  double phi = 2 * G_PI * s->col / cols;
  double px, py, pz;
  if (n->rows <= 1)
    {
      double rho = 1.0 + 0.2 * s->plane;
      px = rho * cos (phi), py = rho * sin (phi), pz = 0;
    }
  else
    {
      double theta = 2 * G_PI * s->row / rows;
      double R = 1.0, rho = 0.35 + 0.15 * s->plane;
      px = (R + rho * cos (phi)) * cos (theta);
      py = (R + rho * cos (phi)) * sin (theta);
      pz = rho * sin (phi);
    }
  double yaw = g->in->yaw * G_PI / 180, pitch = g->in->pitch * G_PI / 180;
  double x1 = px * cos (yaw) - py * sin (yaw);
  double y1 = px * sin (yaw) + py * cos (yaw);
  double y2 = y1 * cos (pitch) - pz * sin (pitch);
  double z2 = y1 * sin (pitch) + pz * cos (pitch);
  *x = x1;
  *y = y2;
  *z = z2;
}

static void
project (const Geo *g, double x, double y, double z, double *sx, double *sy, double *k)
{
  double f = 4.0;
  *k = f / (f - z);
  *sx = g->cx + x * g->scale * *k;
  *sy = g->cy - y * g->scale * *k;
}

static gboolean
switch_center (const Geo *g, guint sw, double *x, double *y, double *k)
{
  const SwnSwitch *s = sw_at (g, sw);
  if (plane_hidden (g, s->plane))
    return FALSE;
  if (g->torus)
    {
      double a, b, c;
      torus_point (g, s, &a, &b, &c);
      project (g, a, b, c, x, y, k);
      return TRUE;
    }
  *k = 1;
  *x = g->ox + (s->plane * (g->net->cols + 0.6) + s->col + 0.5) * g->cell_w;
  *y = g->oy + (s->row + 0.5) * g->cell;
  return TRUE;
}

static gboolean
port_shown (const Geo *g, guint port)
{
  gboolean net = swn_is_net_port (g->net, port);
  return g->in->view == SWN_VIEW_PROCESSOR ? !net : (g->in->view == SWN_VIEW_NETWORK ? net : TRUE);
}

static gboolean
port_point (const Geo *g, guint sw, guint port, double *x, double *y, double *r)
{
  double cx, cy, k;
  if (port >= swn_n_ports (g->net) || !switch_center (g, sw, &cx, &cy, &k))
    return FALSE;
  const SwnPortDef *d = g_ptr_array_index (g->net->portdefs, sw_at (g, sw)->portdef);
  if (d->side[port] < 0)
    return FALSE;
  if (g->torus)
    {
      /* ports in a ring around the switch, in port order */
      guint n = swn_n_ports (g->net);
      double a = 2 * G_PI * port / n - G_PI / 2;
      double rr = g->tside * k * 0.72;
      *x = cx + rr * cos (a);
      *y = cy + rr * sin (a);
      *r = MAX (MIN (rr * G_PI / n * 0.8, g->tside * k * 0.2), 1.2);
      return TRUE;
    }
  int s = d->side[port];
  double n = MAX (d->n_on_side[s], 1);
  gboolean ns = s == 0 || s == 2;
  double along = ns ? g->side_w : g->side;
  double off = ((d->pos[port] + 0.5) / n - 0.5) * along;
  double out = (ns ? g->side : g->side_w) / 2 + g->pr * 1.15;
  switch (s)
    {
    case 0: *x = cx + off, *y = cy - out; break;
    case 1: *x = cx + out, *y = cy + off; break;
    case 2: *x = cx + off, *y = cy + out; break;
    default: *x = cx - out, *y = cy + off; break;
    }
  *r = g->pr;
  return TRUE;
}

static gboolean
switch_drawn (const ViperModel *m, const Geo *g, guint sw)
{
  if (plane_hidden (g, sw_at (g, sw)->plane))
    return FALSE;
  return !swn_model_any_data (m) || swn_model_switch_has_data (m, sw);
}

gboolean
swn_port_circle (const ViperModel *m, int w, int h, guint sw, guint port, double *x, double *y, double *r)
{
  Geo g;
  geo_init (&g, m, w, h);
  if (sw >= g.net->switches->len || !switch_drawn (m, &g, sw) || !port_shown (&g, port))
    return FALSE;
  return port_point (&g, sw, port, x, y, r);
}

gboolean
swn_port_point (const ViperModel *m, int w, int h, guint sw, guint port, double *x, double *y)
{
  double r;
  return swn_port_circle (m, w, h, sw, port, x, y, &r);
}

gboolean
swn_switch_point (const ViperModel *m, int w, int h, guint sw, double *x, double *y)
{
  Geo g;
  geo_init (&g, m, w, h);
  double k;
  if (sw >= g.net->switches->len || !switch_drawn (m, &g, sw))
    return FALSE;
  return switch_center (&g, sw, x, y, &k);
}

/* ---- drawing ------------------------------------------------------------------- */

static void
rgb (cairo_t *cr, SwnRgb c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

static SwnRgb
contrast (SwnRgb bg)
{
  double l = 0.3 * bg.r + 0.59 * bg.g + 0.11 * bg.b;
  return l > 0.5 ? (SwnRgb) { 0, 0, 0 } : (SwnRgb) { 1, 1, 1 };
}

static gboolean
is_wrap (const SwnSwitch *a, const SwnSwitch *b)
{
  if (a->plane != b->plane)
    return TRUE;
  int dr = abs ((int) a->row - (int) b->row), dc = abs ((int) a->col - (int) b->col);
  return dr + dc > 1;
}

static void
draw_cables (cairo_t *cr, const ViperModel *m, const Geo *g, gboolean wraps)
{
  const SwnNet *n = g->net;
  rgb (cr, g->in->links);
  for (guint a = 0; a < n->switches->len; a++)
    {
      const SwnSwitch *sa = sw_at (g, a);
      for (guint p = n->n_proc_ports; p < swn_n_ports (n); p++)
        {
          if (sa->peer_switch[p] < 0)
            continue;
          guint b = (guint) sa->peer_switch[p], q = (guint) sa->peer_port[p];
          if (b < a || (b == a && q < p))
            continue;
          const SwnSwitch *sb = sw_at (g, b);
          if (!switch_drawn (m, g, a) || !switch_drawn (m, g, b))
            continue;
          double x0, y0, x1, y1, r;
          if (!port_point (g, a, p, &x0, &y0, &r) || !port_point (g, b, q, &x1, &y1, &r))
            continue;
          gboolean wrap = !g->torus && is_wrap (sa, sb);
          if (wrap != wraps)
            continue;
          cairo_set_line_width (cr, MAX (g->torus ? 1.0 : g->pr * 0.35, 1.0));
          cairo_move_to (cr, x0, y0);
          if (wrap)
            {
              /* behind the row or column: bulge outwards from the grid */
              double bulge = (sa->row == sb->row ? g->cell : g->cell_w) * 0.42;
              double dx = sa->row == sb->row ? 0 : -bulge, dy = sa->row == sb->row ? -bulge : 0;
              cairo_curve_to (cr, x0 + dx, y0 + dy - (dy ? 0 : 0), x1 + dx, y1 + dy, x1, y1);
              cairo_save (cr);
              double dash[] = { 4, 3 };
              cairo_set_dash (cr, dash, 2, 0);
              cairo_stroke (cr);
              cairo_restore (cr);
            }
          else
            {
              cairo_line_to (cr, x1, y1);
              cairo_stroke (cr);
            }
        }
    }
}

static void
draw_port (cairo_t *cr, const ViperModel *m, const Geo *g, guint sw, guint port, gboolean hl)
{
  double x, y, r;
  if (!port_shown (g, port) || !port_point (g, sw, port, &x, &y, &r))
    return;
  SwnPortState ps;
  swn_model_port (m, sw, port, &ps);
  gboolean data = swn_model_any_data (m);
  gboolean job_port = g->in->jobs && port < g->net->n_proc_ports;
  SwnRgb c = { 1, 1, 1 };
  if (data)
    c = swn_value_color (g->in, swn_port_shown (g->in, &ps));
  else if (job_port)
    c = swn_job_color (ps.job);
  if (job_port && data)
    {
      /* the shallow box in the job's colour around the port */
      rgb (cr, swn_job_color (ps.job));
      cairo_rectangle (cr, x - r * 1.3, y - r * 1.3, r * 2.6, r * 2.6);
      cairo_fill (cr);
    }
  rgb (cr, c);
  cairo_arc (cr, x, y, r, 0, 2 * G_PI);
  cairo_fill (cr);
  if (hl)
    {
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_set_line_width (cr, MAX (r * 0.35, 1.5));
      cairo_arc (cr, x, y, r * 1.8, 0, 2 * G_PI);
      cairo_stroke (cr);
    }
}

static void
draw_switch (cairo_t *cr, const ViperModel *m, const Geo *g, guint sw, guint hl_sw, gint hl_port)
{
  double cx, cy, k;
  if (!switch_drawn (m, g, sw) || !switch_center (g, sw, &cx, &cy, &k))
    return;
  const SwnSwitch *s = sw_at (g, sw);
  double side = g->torus ? g->tside * k * 0.9 : g->side;
  double side_w = g->torus ? side : g->side_w;
  rgb (cr, g->in->switch_color);
  cairo_rectangle (cr, cx - side_w / 2, cy - side / 2, side_w, side);
  cairo_fill (cr);
  if (sw == hl_sw && hl_port < 0)
    {
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_set_line_width (cr, 2.5);
      cairo_rectangle (cr, cx - side_w / 2 - 2, cy - side / 2 - 2, side_w + 4, side + 4);
      cairo_stroke (cr);
    }
  if (!g->torus && side > 14)
    {
      rgb (cr, contrast (g->in->switch_color));
      cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
      cairo_set_font_size (cr, MIN (side * 0.45, 13));
      cairo_text_extents_t e;
      cairo_text_extents (cr, s->label, &e);
      if (e.width < side_w * 0.95)
        {
          cairo_move_to (cr, cx - e.width / 2 - e.x_bearing, cy - e.height / 2 - e.y_bearing);
          cairo_show_text (cr, s->label);
        }
    }
  for (guint p = 0; p < swn_n_ports (g->net); p++)
    draw_port (cr, m, g, sw, p, sw == hl_sw && (gint) p == hl_port);
}

static void
draw_route (cairo_t *cr, const Geo *g)
{
  const SwnNet *n = g->net;
  if (!n->route_hops || n->route_hops->len == 0)
    return;
  rgb (cr, g->in->route);
  cairo_set_line_width (cr, g->torus ? 3.0 : MAX (g->pr * 0.8, 2.5));
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  /* enter at the source node's port, then through each switch to the port it
   * leaves by, over the cable, into the next switch */
  guint ssw, sport;
  if (!swn_node_port (n, n->route_src, &ssw, &sport))
    return;
  double x, y, r, cx, cy, k;
  gboolean have = port_point (g, ssw, sport, &x, &y, &r);
  if (have)
    cairo_move_to (cr, x, y);
  for (guint i = 0; i < n->route_hops->len; i++)
    {
      const SwnHop *h = &g_array_index (n->route_hops, SwnHop, i);
      if (switch_center (g, h->sw, &cx, &cy, &k))
        {
          if (have)
            cairo_line_to (cr, cx, cy);
          else
            cairo_move_to (cr, cx, cy), have = TRUE;
        }
      if (port_point (g, h->sw, h->out_port, &x, &y, &r))
        cairo_line_to (cr, x, y);
      const SwnSwitch *s = sw_at (g, h->sw);
      if (swn_is_net_port (n, h->out_port) && s->peer_switch[h->out_port] >= 0
          && port_point (g, (guint) s->peer_switch[h->out_port], (guint) s->peer_port[h->out_port], &x, &y, &r))
        cairo_line_to (cr, x, y);
    }
  cairo_stroke (cr);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
}

static void
draw_caption (cairo_t *cr, const ViperModel *m, const Geo *g)
{
  static const char *const modes[] = { "slice", "running total", "total" };
  static const char *const views[] = { "network ports", "processor ports", "torus" };
  SwnRgb fg = contrast (g->in->background);
  rgb (cr, fg);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 12);
  char buf[200];
  g_snprintf (buf, sizeof buf, "step %" G_GINT64_FORMAT " \xc2\xb7 %s \xc2\xb7 %s%s", swn_model_step (m),
              modes[g->in->mode], views[g->in->view], g->in->jobs ? " \xc2\xb7 jobs" : "");
  cairo_move_to (cr, 8, 15);
  cairo_show_text (cr, buf);
  /* the range of interest: below, min (blue) .. max (red), above */
  double y = g->h - BOTTOM + 6, x = 8, bw = 14;
  struct {
    SwnRgb c;
    char text[48];
  } keys[4];
  keys[0].c = g->in->below;
  g_snprintf (keys[0].text, sizeof keys[0].text, "< %" G_GINT64_FORMAT, g->in->min);
  keys[1].c = (SwnRgb) { 0, 0, 1 };
  g_snprintf (keys[1].text, sizeof keys[1].text, "%" G_GINT64_FORMAT, g->in->min);
  keys[2].c = (SwnRgb) { 1, 0, 0 };
  g_snprintf (keys[2].text, sizeof keys[2].text, "%" G_GINT64_FORMAT, g->in->max);
  keys[3].c = g->in->above;
  g_snprintf (keys[3].text, sizeof keys[3].text, "> %" G_GINT64_FORMAT, g->in->max);
  for (int i = 0; i < 4; i++)
    {
      rgb (cr, keys[i].c);
      cairo_rectangle (cr, x, y, bw, 12);
      cairo_fill (cr);
      rgb (cr, fg);
      cairo_move_to (cr, x + bw + 4, y + 10);
      cairo_show_text (cr, keys[i].text);
      cairo_text_extents_t e;
      cairo_text_extents (cr, keys[i].text, &e);
      x += bw + 12 + e.x_advance;
    }
}

typedef struct {
  guint sw;
  double z;
} Depth;

static gint
cmp_depth (gconstpointer a, gconstpointer b)
{
  double x = ((const Depth *) a)->z, y = ((const Depth *) b)->z;
  return x < y ? -1 : x > y;
}

void
swn_draw_view (cairo_t *cr, const ViperModel *m, int w, int h)
{
  Geo g;
  geo_init (&g, m, w, h);
  cairo_save (cr);
  rgb (cr, g.in->background);
  cairo_rectangle (cr, 0, 0, w, h);
  cairo_fill (cr);
  guint hl_sw = G_MAXUINT;
  gint hl_port = -1;
  if (g.in->highlight)
    {
      guint s, p;
      gint k = swn_switch_by_label (g.net, g.in->highlight);
      if (k >= 0)
        hl_sw = (guint) k;
      else if (swn_port_by_label (g.net, g.in->highlight, &s, &p))
        hl_sw = s, hl_port = (gint) p;
    }
  guint n = g.net->switches->len;
  if (!g.torus)
    {
      if (g.in->view == SWN_VIEW_NETWORK)
        draw_cables (cr, m, &g, TRUE);
      if (g.in->view == SWN_VIEW_NETWORK)
        draw_cables (cr, m, &g, FALSE);
      for (guint sw = 0; sw < n; sw++)
        draw_switch (cr, m, &g, sw, hl_sw, hl_port);
    }
  else
    {
      draw_cables (cr, m, &g, FALSE);
      GArray *order = g_array_sized_new (FALSE, FALSE, sizeof (Depth), n);
      for (guint sw = 0; sw < n; sw++)
        {
          double x, y, z;
          torus_point (&g, sw_at (&g, sw), &x, &y, &z);
          Depth d = { sw, z };
          g_array_append_val (order, d);
        }
      g_array_sort (order, cmp_depth);
      for (guint i = 0; i < n; i++)
        draw_switch (cr, m, &g, g_array_index (order, Depth, i).sw, hl_sw, hl_port);
      g_array_unref (order);
    }
  draw_route (cr, &g);
  draw_caption (cr, m, &g);
  cairo_restore (cr);
}

/* ---- the renderer table for the generic views -------------------------------------- */

static gboolean
port_id (const SwnNet *n, gint64 id, guint *sw, guint *port)
{
  if (id < SWN_PORT_ID_BASE || !n->switches)
    return FALSE;
  gint64 k = id - SWN_PORT_ID_BASE;
  *sw = (guint) (k / SWN_MAX_PORTS);
  *port = (guint) (k % SWN_MAX_PORTS);
  return *sw < n->switches->len && *port < swn_n_ports (n);
}

static void
r_modules (const ViperModel *m, const ViperRun *run, GArray *ids)
{
  (void) run;
  const SwnNet *n = swn_model_net (m);
  /* the selected ports first (their series), then every switch */
  for (guint i = 0; n->selected && i < n->selected->len; i++)
    {
      gint64 id = SWN_PORT_ID_BASE + g_array_index (n->selected, guint, i);
      g_array_append_val (ids, id);
    }
  for (guint i = 0; n->switches && i < n->switches->len; i++)
    {
      gint64 id = i;
      g_array_append_val (ids, id);
    }
}

static char *
r_label (const ViperModel *m, gint64 id)
{
  const SwnNet *n = swn_model_net (m);
  guint sw, port;
  if (port_id (n, id, &sw, &port))
    return g_strdup_printf ("%s.%u", g_array_index (n->switches, SwnSwitch, sw).label, port);
  if (!n->switches || id < 0 || id >= n->switches->len)
    return g_strdup_printf ("S%" G_GINT64_FORMAT, id);
  return g_strdup (g_array_index (n->switches, SwnSwitch, id).label);
}

static gint
r_state (const ViperModel *m, gint64 id)
{
  guint sw, port;
  if (port_id (swn_model_net (m), id, &sw, &port))
    {
      SwnPortState ps;
      swn_model_port (m, sw, port, &ps);
      return ps.has_value ? swn_value_class (&swn_model_net (m)->init, ps.value) : SWN_CLASS_NONE;
    }
  return id < 0 ? SWN_CLASS_NONE : swn_model_switch_class (m, (guint) id);
}

static const char *
r_state_name (gint s)
{
  static const char *const names[] = { "no data", "below min", "min", "low", "middle", "high", "max", "above max" };
  return (guint) s < G_N_ELEMENTS (names) ? names[s] : "no data";
}

static ViperColor
r_state_color (gint s)
{
  SwnInit in;
  swn_init_defaults (&in);
  switch (s)
    {
    case SWN_CLASS_BELOW: return (ViperColor) { in.below.r, in.below.g, in.below.b };
    case SWN_CLASS_ABOVE: return (ViperColor) { in.above.r, in.above.g, in.above.b };
    case SWN_CLASS_NONE: return (ViperColor) { 0.92, 0.92, 0.92 };
    default:
      {
        double f = (double) (s - SWN_CLASS_MIN) / (SWN_CLASS_MAX - SWN_CLASS_MIN);
        return (ViperColor) { f, 0, 1 - f };
      }
    }
}

static guint
r_n_variables (const ViperModel *m, gint64 id)
{
  const SwnNet *n = swn_model_net (m);
  return n->switches && id >= 0 && id < n->switches->len ? swn_n_ports (n) : 0;
}

static void
r_variable (const ViperModel *m, gint64 id, guint var, ViperViewVariable *out)
{
  /* the strings live until the next call for the same slot: the views use
   * them at once */
  static char names[4][48], states[4][96];
  static guint slot;
  guint k = slot++ % 4;
  const SwnNet *n = swn_model_net (m);
  SwnPortState ps;
  swn_model_port (m, (guint) id, var, &ps);
  g_snprintf (names[k], sizeof names[k], "%s.%u", g_array_index (n->switches, SwnSwitch, id).label, var);
  if (var < n->n_proc_ports)
    g_snprintf (states[k], sizeof states[k], "%" G_GINT64_FORMAT " job %" G_GINT64_FORMAT,
                swn_port_shown (&n->init, &ps), ps.job);
  else
    g_snprintf (states[k], sizeof states[k], "%" G_GINT64_FORMAT, swn_port_shown (&n->init, &ps));
  out->name = names[k];
  out->type = var < n->n_proc_ports ? "processor port" : "network port";
  out->state = states[k];
  out->highlight = ps.has_value && swn_value_class (&n->init, swn_port_shown (&n->init, &ps)) == SWN_CLASS_ABOVE;
}

static gboolean
r_draw_view (cairo_t *cr, const ViperModel *m, ViperViewKind kind, int w, int h)
{
  if (kind != VIPER_VIEW_ANIMATION)
    return FALSE;
  swn_draw_view (cr, m, w, h);
  return TRUE;
}

static char *
r_describe_at (const ViperModel *m, ViperViewKind kind, int w, int h, double x, double y)
{
  if (kind != VIPER_VIEW_ANIMATION)
    return NULL;
  Geo g;
  geo_init (&g, m, w, h);
  const SwnNet *n = g.net;
  /* a port first (the nearest within twice its radius), then a switch's box */
  double best = G_MAXDOUBLE;
  gint bsw = -1, bport = -1;
  for (guint sw = 0; sw < n->switches->len; sw++)
    {
      if (!switch_drawn (m, &g, sw))
        continue;
      for (guint p = 0; p < swn_n_ports (n); p++)
        {
          double px, py, r;
          if (!port_shown (&g, p) || !port_point (&g, sw, p, &px, &py, &r))
            continue;
          double d = (px - x) * (px - x) + (py - y) * (py - y);
          if (d <= 4 * r * r && d < best)
            best = d, bsw = (gint) sw, bport = (gint) p;
        }
    }
  static const char *const modes[] = { "slice", "running total", "total" };
  if (bsw >= 0)
    {
      SwnPortState ps;
      swn_model_port (m, (guint) bsw, (guint) bport, &ps);
      char *label = swn_port_label (n, (guint) bsw, (guint) bport);
      GString *t = g_string_new (NULL);
      g_string_append_printf (t, "port %s, %s port", label,
                              swn_is_net_port (n, (guint) bport) ? "network" : "processor");
      const SwnSwitch *s = &g_array_index (n->switches, SwnSwitch, bsw);
      if (s->peer_switch[bport] >= 0)
        g_string_append_printf (t, ", cabled to %s.%d",
                                g_array_index (n->switches, SwnSwitch, s->peer_switch[bport]).label,
                                s->peer_port[bport]);
      g_string_append_printf (t, "\nstep %" G_GINT64_FORMAT ": value %" G_GINT64_FORMAT ", running total %"
                              G_GINT64_FORMAT ", total %" G_GINT64_FORMAT " (shown: %s %" G_GINT64_FORMAT ")",
                              swn_model_step (m), ps.value, ps.running, ps.total, modes[n->init.mode],
                              swn_port_shown (&n->init, &ps));
      if ((guint) bport < n->n_proc_ports)
        g_string_append_printf (t, "\njob %" G_GINT64_FORMAT, ps.job);
      g_free (label);
      return g_string_free (t, FALSE);
    }
  for (guint sw = 0; sw < n->switches->len; sw++)
    {
      double cx, cy, k;
      if (!switch_drawn (m, &g, sw) || !switch_center (&g, sw, &cx, &cy, &k))
        continue;
      double hw = g.torus ? g.tside * k * 0.45 : g.side_w / 2, hh = g.torus ? hw : g.side / 2;
      if (x >= cx - hw && x <= cx + hw && y >= cy - hh && y <= cy + hh)
        {
          const SwnSwitch *s = &g_array_index (n->switches, SwnSwitch, sw);
          return g_strdup_printf ("switch %s: row %u, column %u, plane %u\nprocessor ports 0-%u: nodes %"
                                  G_GINT64_FORMAT "-%" G_GINT64_FORMAT "; network ports %u-%u%s",
                                  s->label, s->row, s->col, s->plane, n->n_proc_ports ? n->n_proc_ports - 1 : 0,
                                  s->first_node, s->first_node + MAX (n->n_proc_ports, 1) - 1, n->n_proc_ports,
                                  swn_n_ports (n) - 1,
                                  swn_model_switch_has_data (m, sw) ? "" : "\nno data");
        }
    }
  return NULL;
}

const ViperRenderer swn_renderer = {
  .modules = r_modules,
  .module_label = r_label,
  .module_state = r_state,
  .state_name = r_state_name,
  .state_color = r_state_color,
  .n_states = SWN_N_CLASSES,
  .n_variables = r_n_variables,
  .variable = r_variable,
  .draw_view = r_draw_view,
  .describe_at = r_describe_at,
  .time_unit = "step",              /* TIME: the time step (not a time: the axis keeps it) */
};
