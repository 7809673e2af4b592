/* lights-view.c - the animation view of cluster lights, drawn by the
 * paradigm itself (the renderer's draw_view hook, paradigms/views.h), for
 * the GUI and `viper-replay --render` alike (docs/paradigm-lights.md).
 *
 * The picture is the generic animation view's of a view setup file - the
 * same geometry (viper_view_geometry_new), so damage rectangles, the GUI's
 * layout dumps and the tests' probes stay right - drawn for a thousand
 * nodes and four thousand links at the frame rate:
 *  - what does not change between frames (the white ground, the file's
 *    elements, the legend; the bars' outlines and labels) is drawn once per
 *    view size and view setup into two cached images, keyed by the model's
 *    view serial, so a reloaded setup or a reset draws them again;
 *  - the arrows' geometry is computed once with them; each frame the
 *    arrows are put into buckets by colour step (the 64 steps of the range
 *    of interest, below, above) and each bucket is one stroke of its shafts
 *    and one fill of its heads, instead of two requests per arrow;
 *  - bars are one fill of their white boxes and one fill per load value;
 *  - only what lies inside the clip (the damaged region) is built;
 *  - arrows that would be shorter than a pixel and a half are not drawn,
 *    and arrows shrink (margins, heads, width, the side-by-side offset)
 *    where the boxes leave less room than the generic view's 12 px heads
 *    need - the generic view drew them reversed across the boxes there;
 *  - on screen and in PNGs the frame is composed in a client-side image
 *    and copied in one request, instead of a few thousand trapezoid
 *    requests the X server would rasterise; SVG and PDF, and views larger
 *    than CACHE_MAX_PIXELS (zoomed in), get the same layers as vectors.
 */
#include <math.h>
#include <string.h>
#include "lights-render.h"
#include "paradigms/viewlayout.h"

#define CACHE_MAX_PIXELS (2560 * 1600)
#define N_SHADES 66           /* below, 64 steps through the range, above */
#define N_LOADS (LIGHTS_MAX_LOAD + 3)   /* per mille, no sample, lost */
#define LOAD_NONE (LIGHTS_MAX_LOAD + 1)
#define LOAD_LOST (LIGHTS_MAX_LOAD + 2)
#define CLOCK_H 30.0          /* the clock line above the file's space (views-private.h AN_TOP) */

static const ViperColor LOST_GREY = { 0.25, 0.25, 0.25 }, NO_SAMPLE = { 0.85, 0.85, 0.85 };

typedef struct {
  gint64 id;
  double x, y, w, h;        /* the module's box */
  double bx, by, bw, bh;    /* its bar (lights_bar_geometry) */
  double cx, cy, r;         /* centre and radius, as the generic view has them */
  const char *label;        /* the file's, or NULL */
} Bar;

typedef struct {
  guint link;
  double x0, y0, xs, ys;    /* shaft */
  double hx[3], hy[3];      /* head */
  double l, t, r, b;        /* bounds */
} Arrow;

typedef struct {
  guint64 serial;
  int w, h;
  GArray *bars;             /* Bar */
  GArray *arrows;           /* Arrow, those long enough to draw */
  double line_w;
  gboolean has_xf;
  ViperViewTransform xf;
  cairo_surface_t *base, *overlay, *frame;
  gint *next;               /* scratch: bucket chains */
  guint next_cap;
} Cache;

/* One: the GUI shows one animation view; a render at another size makes it again. */
static Cache cache;

typedef struct {
  double l, t, r, b;
} Clip;

static gboolean
in_clip (const Clip *c, double l, double t, double r, double b)
{
  return l < c->r && r > c->l && t < c->b && b > c->t;
}

/* ---- the geometry, once per size and setup ----------------------------------- */

static gboolean
arrow_geometry (const Bar *f, const Bar *t, Arrow *a, double *k_out)
{
  double dx = t->cx - f->cx, dy = t->cy - f->cy, d = hypot (dx, dy);
  if (d < 1)
    return FALSE;
  double ux = dx / d, uy = dy / d;
  /* the generic view's margins (3 px after the source, 8 before the
   * target), side offset (4 px) and head (12 px) where there is room, all
   * shrunk together where the boxes leave less */
  double room = d - f->r - t->r, k = CLAMP (room / 22.0, 0.0, 1.0);
  double s0 = f->r + MAX (3 * k, 0.5), s1 = t->r + MAX (8 * k, 0.5), off = MAX (4 * k, 0.6);
  double len = d - s0 - s1;
  if (len < 1.5)
    return FALSE;
  double head = MIN (12.0, len * 0.5), ox = -uy * off, oy = ux * off;
  double x0 = f->cx + ux * s0 + ox, y0 = f->cy + uy * s0 + oy;
  double x1 = t->cx - ux * s1 + ox, y1 = t->cy - uy * s1 + oy;
  a->x0 = x0, a->y0 = y0;
  a->xs = x1 - ux * head * 0.8, a->ys = y1 - uy * head * 0.8;
  a->hx[0] = x1, a->hy[0] = y1;
  a->hx[1] = x1 - ux * head - uy * head * 0.45, a->hy[1] = y1 - uy * head + ux * head * 0.45;
  a->hx[2] = x1 - ux * head + uy * head * 0.45, a->hy[2] = y1 - uy * head - ux * head * 0.45;
  a->l = MIN (MIN (x0, a->hx[1]), MIN (a->hx[0], a->hx[2])) - 3;
  a->r = MAX (MAX (x0, a->hx[1]), MAX (a->hx[0], a->hx[2])) + 3;
  a->t = MIN (MIN (y0, a->hy[1]), MIN (a->hy[0], a->hy[2])) - 3;
  a->b = MAX (MAX (y0, a->hy[1]), MAX (a->hy[0], a->hy[2])) + 3;
  *k_out = k;
  return TRUE;
}

static void
cache_clear (Cache *c)
{
  g_clear_pointer (&c->base, cairo_surface_destroy);
  g_clear_pointer (&c->overlay, cairo_surface_destroy);
  g_clear_pointer (&c->frame, cairo_surface_destroy);
  if (c->bars)
    g_array_set_size (c->bars, 0);
  if (c->arrows)
    g_array_set_size (c->arrows, 0);
}

static Cache *
cache_get (const ViperModel *m, int w, int h)
{
  Cache *c = &cache;
  guint64 serial = lights_model_view_serial (m);
  if (c->bars && c->serial == serial && c->w == w && c->h == h)
    return c;
  cache_clear (c);
  if (!c->bars)
    {
      c->bars = g_array_new (FALSE, FALSE, sizeof (Bar));
      c->arrows = g_array_new (FALSE, FALSE, sizeof (Arrow));
    }
  c->serial = serial, c->w = w, c->h = h;
  const ViperViewSetup *vs = lights_model_view_setup (m);
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_ANIMATION, m, NULL, NULL, NULL, w, h);
  c->has_xf = viper_view_geometry_transform (g, &c->xf);
  guint n = viper_view_geometry_n_modules (g);
  GHashTable *at = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_array_set_size (c->bars, n);
  guint nb = 0;
  for (guint i = 0; i < n; i++)
    {
      Bar *b = &g_array_index (c->bars, Bar, nb);
      b->id = viper_view_geometry_module (g, i);
      if (!viper_view_geometry_module_box (g, b->id, &b->x, &b->y, &b->w, &b->h))
        continue;
      lights_bar_geometry (b->x, b->y, b->w, b->h, &b->bx, &b->by, &b->bw, &b->bh);
      b->cx = floor (b->x + b->w / 2) + 0.5;
      b->cy = floor (b->y + b->h / 2) + 0.5;
      b->r = MAX (MIN (b->w, b->h) / 2, 1.0);
      const ViperViewModule *mod = viper_view_setup_module (vs, b->id);
      b->label = mod ? mod->label : NULL;
      nb++;
    }
  g_array_set_size (c->bars, nb);
  for (guint i = 0; i < nb; i++)
    g_hash_table_insert (at, &g_array_index (c->bars, Bar, i).id, GUINT_TO_POINTER (i + 1));
  viper_view_geometry_free (g);
  double kmin = 1;
  guint nl = lights_model_n_links (m);
  for (guint li = 0; li < nl; li++)
    {
      LightsLink l;
      lights_model_link (m, li, &l);
      guint f = GPOINTER_TO_UINT (g_hash_table_lookup (at, &l.from));
      guint t = GPOINTER_TO_UINT (g_hash_table_lookup (at, &l.to));
      Arrow a = { .link = li };
      double k;
      if (f && t && f != t
          && arrow_geometry (&g_array_index (c->bars, Bar, f - 1), &g_array_index (c->bars, Bar, t - 1), &a, &k))
        {
          g_array_append_val (c->arrows, a);
          kmin = MIN (kmin, k);
        }
    }
  g_hash_table_destroy (at);
  c->line_w = MAX (1.0, 2.5 * kmin);
  guint need = MAX (c->arrows->len, c->bars->len) + 1;
  if (need > c->next_cap)
    {
      c->next = g_renew (gint, c->next, need);
      c->next_cap = need;
    }
  return c;
}

/* ---- the layers ------------------------------------------------------------- */

static void
set_color (cairo_t *cr, ViperColor c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

/* The white ground, the file's elements and the legend (the generic views'
 * state legend, kept within the view: twelve states did not fit a narrow one). */
static void
draw_base (cairo_t *cr, const Cache *c, const ViperModel *m)
{
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  if (c->has_xf)
    viper_view_layout_draw_elements (cr, lights_model_view_setup (m), &c->xf);
  cairo_new_path (cr);
  viper_view_draw_state_legend (cr, &lights_renderer, 8, c->h - 8, c->w - 4);
}

/* The bars' outlines and labels (as lights_draw_bar). */
static void
draw_overlay (cairo_t *cr, const Cache *c, const Clip *clip)
{
  cairo_new_path (cr);
  for (guint i = 0; i < c->bars->len; i++)
    {
      const Bar *b = &g_array_index (c->bars, Bar, i);
      if (in_clip (clip, b->bx - 1, b->by - 1, b->bx + b->bw + 1, b->by + b->bh + 1))
        cairo_rectangle (cr, b->bx, b->by, b->bw, b->bh);
    }
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_set_line_width (cr, 1.0);
  cairo_stroke (cr);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  for (guint i = 0; i < c->bars->len; i++)
    {
      const Bar *b = &g_array_index (c->bars, Bar, i);
      if (b->h < 40 || !in_clip (clip, b->x, b->y, b->x + b->w, b->y + b->h))
        continue;
      char fallback[32];
      const char *label = b->label;
      if (!label)
        {
          g_snprintf (fallback, sizeof fallback, "%" G_GINT64_FORMAT, b->id);
          label = fallback;
        }
      cairo_set_font_size (cr, MIN (12.0, b->h * 0.22));
      cairo_text_extents_t e;
      cairo_text_extents (cr, label, &e);
      cairo_move_to (cr, b->x + b->w / 2 - e.width / 2 - e.x_bearing, b->y + b->h - 2);
      cairo_show_text (cr, label);
    }
}

static guint
arrow_shade (const LightsRange *r, double bw)
{
  if (bw < r->min)
    return 0;
  if (bw > r->max)
    return N_SHADES - 1;
  return 1 + (guint) MIN ((int) ((bw - r->min) / (r->max - r->min) * 64), 63);
}

static ViperColor
shade_color (const LightsRange *r, guint shade)
{
  if (shade == 0)
    return lights_bw_color (r, r->min - 1);
  if (shade == N_SHADES - 1)
    return lights_bw_color (r, r->max + 1);
  return lights_bw_color (r, r->min + (shade - 0.5) / 64 * (r->max - r->min));
}

/* The arrows inside the clip, one stroke and one fill per colour step. */
static void
draw_arrows (cairo_t *cr, Cache *c, const ViperModel *m, const Clip *clip)
{
  LightsRange range;
  lights_model_range (m, &range);
  gint head[N_SHADES];
  for (guint s = 0; s < N_SHADES; s++)
    head[s] = -1;
  for (guint i = 0; i < c->arrows->len; i++)
    {
      const Arrow *a = &g_array_index (c->arrows, Arrow, i);
      if (!in_clip (clip, a->l, a->t, a->r, a->b))
        continue;
      guint s = arrow_shade (&range, lights_model_shown_link_bw (m, a->link));
      c->next[i] = head[s];
      head[s] = (gint) i;
    }
  cairo_set_line_width (cr, c->line_w);
  for (guint s = 0; s < N_SHADES; s++)
    {
      if (head[s] < 0)
        continue;
      set_color (cr, shade_color (&range, s));
      cairo_new_path (cr);
      for (gint i = head[s]; i >= 0; i = c->next[i])
        {
          const Arrow *a = &g_array_index (c->arrows, Arrow, i);
          cairo_move_to (cr, a->x0, a->y0);
          cairo_line_to (cr, a->xs, a->ys);
        }
      cairo_stroke (cr);
      for (gint i = head[s]; i >= 0; i = c->next[i])
        {
          const Arrow *a = &g_array_index (c->arrows, Arrow, i);
          cairo_move_to (cr, a->hx[0], a->hy[0]);
          cairo_line_to (cr, a->hx[1], a->hy[1]);
          cairo_line_to (cr, a->hx[2], a->hy[2]);
          cairo_close_path (cr);
        }
      cairo_fill (cr);
    }
}

/* The bars inside the clip: their white boxes, then one fill per load. */
static void
draw_bars (cairo_t *cr, Cache *c, const ViperModel *m, const Clip *clip)
{
  static gint head[N_LOADS];
  for (guint k = 0; k < N_LOADS; k++)
    head[k] = -1;
  cairo_new_path (cr);
  for (guint i = 0; i < c->bars->len; i++)
    {
      const Bar *b = &g_array_index (c->bars, Bar, i);
      if (!in_clip (clip, b->x, b->y, b->x + b->w, b->y + b->h))
        continue;
      cairo_rectangle (cr, b->x, b->y, b->w, b->h);
      guint8 state;
      gint32 load = lights_model_shown_load (m, b->id, &state);
      guint k = state == LIGHTS_NODE_LOST ? LOAD_LOST : load < 0 ? LOAD_NONE : (guint) MIN (load, LIGHTS_MAX_LOAD);
      if (k == 0)
        continue;           /* an empty bar */
      c->next[i] = head[k];
      head[k] = (gint) i;
    }
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_fill (cr);
  for (guint k = 1; k < N_LOADS; k++)
    {
      if (head[k] < 0)
        continue;
      cairo_new_path (cr);
      for (gint i = head[k]; i >= 0; i = c->next[i])
        {
          const Bar *b = &g_array_index (c->bars, Bar, i);
          double f = k <= LIGHTS_MAX_LOAD ? k / 1000.0 : 1;
          cairo_rectangle (cr, b->bx, b->by + b->bh * (1 - f), b->bw, b->bh * f);
        }
      set_color (cr, k == LOAD_LOST ? LOST_GREY : k == LOAD_NONE ? NO_SAMPLE : lights_load_color ((gint32) k));
      cairo_fill (cr);
    }
  /* lost: a red cross over the grey bar */
  cairo_set_source_rgb (cr, 1, 0, 0);
  for (gint i = head[LOAD_LOST]; i >= 0; i = c->next[i])
    {
      const Bar *b = &g_array_index (c->bars, Bar, i);
      cairo_new_path (cr);
      cairo_set_line_width (cr, MAX (2.0, MIN (b->bw, b->bh) * 0.08));
      cairo_move_to (cr, b->bx, b->by);
      cairo_line_to (cr, b->bx + b->bw, b->by + b->bh);
      cairo_move_to (cr, b->bx + b->bw, b->by);
      cairo_line_to (cr, b->bx, b->by + b->bh);
      cairo_stroke (cr);
    }
}

static void
draw_clock (cairo_t *cr, const ViperModel *m, const Clip *clip)
{
  if (!in_clip (clip, 0, 0, clip->r, CLOCK_H))
    return;
  char buf[64], tb[32];
  viper_view_format_clock (m->clock, 0, tb, sizeof tb);
  g_snprintf (buf, sizeof buf, "clock %s", tb);
  cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 13);
  cairo_move_to (cr, 8, 20);
  cairo_show_text (cr, buf);
}

static cairo_surface_t *
layer (const Cache *c, cairo_format_t format, void (*draw) (cairo_t *, const Cache *, const ViperModel *, const Clip *),
       const ViperModel *m)
{
  cairo_surface_t *s = cairo_image_surface_create (format, c->w, c->h);
  cairo_t *cr = cairo_create (s);
  Clip all = { 0, 0, c->w, c->h };
  draw (cr, c, m, &all);
  cairo_destroy (cr);
  return s;
}

static void
base_layer (cairo_t *cr, const Cache *c, const ViperModel *m, const Clip *clip)
{
  (void) clip;
  draw_base (cr, c, m);
}

static void
overlay_layer (cairo_t *cr, const Cache *c, const ViperModel *m, const Clip *clip)
{
  (void) m;
  draw_overlay (cr, c, clip);
}

void
lights_view_forget (void)
{
  cache_clear (&cache);
  cache.serial = 0;
}

gboolean
lights_draw_animation (cairo_t *cr, const ViperModel *m, int w, int h)
{
  if (!lights_model_view_setup (m) || w <= 0 || h <= 0)
    return FALSE;           /* no file: the generic view's circle of nodes */
  Cache *c = cache_get (m, w, h);
  double x0, y0, x1, y1;
  cairo_clip_extents (cr, &x0, &y0, &x1, &y1);
  int l = (int) floor (MAX (x0, 0.0)), t = (int) floor (MAX (y0, 0.0));
  int r = (int) ceil (MIN (x1, (double) w)), b = (int) ceil (MIN (y1, (double) h));
  if (r <= l || b <= t)
    return TRUE;
  Clip clip = { l, t, r, b };
  cairo_surface_type_t type = cairo_surface_get_type (cairo_get_target (cr));
  gboolean raster = (type == CAIRO_SURFACE_TYPE_IMAGE || type == CAIRO_SURFACE_TYPE_XLIB
                     || type == CAIRO_SURFACE_TYPE_XCB) && (gsize) w * (gsize) h <= CACHE_MAX_PIXELS;
  if (!raster)
    {
      /* vectors (SVG, PDF) or a view too large to cache: the same layers on cr */
      cairo_save (cr);
      draw_base (cr, c, m);
      draw_arrows (cr, c, m, &clip);
      draw_bars (cr, c, m, &clip);
      draw_overlay (cr, c, &clip);
      draw_clock (cr, m, &clip);
      cairo_restore (cr);
      return TRUE;
    }
  if (!c->base)
    {
      c->base = layer (c, CAIRO_FORMAT_RGB24, base_layer, m);
      c->overlay = layer (c, CAIRO_FORMAT_ARGB32, overlay_layer, m);
      c->frame = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
    }
  cairo_t *fc = cairo_create (c->frame);
  cairo_rectangle (fc, l, t, r - l, b - t);
  cairo_clip (fc);
  cairo_set_source_surface (fc, c->base, 0, 0);
  cairo_paint (fc);
  draw_arrows (fc, c, m, &clip);
  draw_bars (fc, c, m, &clip);
  cairo_set_source_surface (fc, c->overlay, 0, 0);
  cairo_paint (fc);
  draw_clock (fc, m, &clip);
  cairo_destroy (fc);
  cairo_surface_flush (c->frame);
  cairo_save (cr);
  cairo_rectangle (cr, l, t, r - l, b - t);
  cairo_clip (cr);
  cairo_set_source_surface (cr, c->frame, 0, 0);
  cairo_paint (cr);
  cairo_restore (cr);
  return TRUE;
}
