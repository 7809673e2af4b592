/* views-cache.c - a view's last frame, kept as an image and redrawn only
 * where it is stale (issue 13: 20 frames/s at 1,024 ranks).
 *
 * The GUI used to draw each view straight onto the window's surface, which
 * under X11 is the display server's: every arc, label and arrow was a
 * request the server rasterised, and a repaint of any part (an expose, a
 * tooltip going away) drew the view again.  With a cache the view is drawn
 * with cairo's image backend into memory, only in the rectangles the
 * model's damage names, and the window gets the frame as one image.
 *
 * What makes it safe is the key: the frame is redrawn whole when anything
 * but the model changes - the kind, the image size, the size the view is
 * laid out at, the offset it is shown from (a zoomed, panned animation),
 * the number of modules (one appearing moves the others) -
 * and when the owner says so (viper_view_cache_invalidate: the time
 * window, the layout, the model itself changed).  Damage between frames is
 * the model's own account of what changed, which is what the views were
 * already trusted with.  tests/gui/test-view-cache.c compares cached
 * frames with fresh renders after steps, resizes, zooms, window changes,
 * seeks and resets.
 */
#include <math.h>
#include <string.h>
#include "views.h"

struct _ViperViewCache {
  cairo_surface_t *img;     /* RGB24, w x h device pixels (times scale) */
  ViperViewKind kind;
  int w, h, vw, vh, ox, oy, scale;
  guint n_modules;          /* a module appearing moves the others */
  gboolean valid;           /* the key above describes img */
  cairo_region_t *stale;    /* image coordinates; ignored while !valid */
  guint64 full, partial;
};


ViperViewCache *
viper_view_cache_new (void)
{
  ViperViewCache *c = g_new0 (ViperViewCache, 1);
  c->stale = cairo_region_create ();
  c->scale = 1;
  return c;
}

void
viper_view_cache_free (ViperViewCache *c)
{
  if (!c)
    return;
  if (c->img)
    cairo_surface_destroy (c->img);
  cairo_region_destroy (c->stale);
  g_free (c);
}

void
viper_view_cache_invalidate (ViperViewCache *c)
{
  c->valid = FALSE;
}

void
viper_view_cache_damage (ViperViewCache *c, const cairo_rectangle_int_t *r)
{
  if (!c->valid || r->width <= 0 || r->height <= 0)
    return;
  if (c->kind == VIPER_VIEW_SPACETIME)
    {
      /* the space-time view shows one message per pixel column, whichever
       * row sent it: a message arriving in one row can take the column of
       * another row's, which no damage names - any change redraws it all
       * (as the moving clock does anyway while it follows) */
      c->valid = FALSE;
      return;
    }
  cairo_region_union_rectangle (c->stale, r);
}

gboolean
viper_view_cache_is_valid (const ViperViewCache *c)
{
  return c->valid;
}

void
viper_view_cache_counts (const ViperViewCache *c, guint64 *full, guint64 *partial)
{
  *full = c->full;
  *partial = c->partial;
}

static gboolean
rect_inside (const cairo_rectangle_int_t *a, const cairo_rectangle_int_t *b)
{
  return a->x >= b->x && a->y >= b->y && a->x + a->width <= b->x + b->width && a->y + a->height <= b->y + b->height;
}

/* The animation's repaint around whole modules: a clip edge across a
 * module's disc, ring or text makes cairo rasterise the shape through the
 * clip, a shade off from the whole frame's (test-view-cache saw a Mona Lisa
 * ring differ once the modules' boxes took their text rooms); so ext grows
 * until each module's box it meets lies wholly inside it. */
static void
grow_over_modules (cairo_rectangle_int_t *ext, const ViperModel *m, const ViperRun *run, const ViperLayout *layout,
                   const ViperTimeWindow *window, int vw, int vh, int ox, int oy)
{
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_ANIMATION, m, run, layout, window, vw, vh);
  guint n = viper_view_geometry_n_modules (g);
  gboolean grew = TRUE;
  for (guint round = 0; grew && round <= n; round++)
    {
      grew = FALSE;
      for (guint i = 0; i < n; i++)
        {
          ViperArea a = { VIPER_AREA_MODULE, viper_view_geometry_module (g, i), 0 };
          cairo_rectangle_int_t b;
          if (!viper_view_area_rect (g, &a, &b) || b.width <= 0 || b.height <= 0)
            continue;
          b.x -= ox, b.y -= oy;
          gboolean meets = b.x < ext->x + ext->width && b.x + b.width > ext->x && b.y < ext->y + ext->height
                           && b.y + b.height > ext->y;
          if (meets && !rect_inside (&b, ext))
            {
              cairo_rectangle_int_t u = *ext;
              cairo_rectangle_int_t bb = b;
              int x0 = MIN (u.x, bb.x), y0 = MIN (u.y, bb.y);
              int x1 = MAX (u.x + u.width, bb.x + bb.width), y1 = MAX (u.y + u.height, bb.y + bb.height);
              *ext = (cairo_rectangle_int_t) { x0, y0, x1 - x0, y1 - y0 };
              grew = TRUE;
            }
        }
    }
  viper_view_geometry_free (g);
}

/* Draw the view into img inside the clip already set (white first). */
static void
draw_into (ViperViewCache *c, cairo_t *cr, const ViperModel *m, const ViperRun *run, const ViperLayout *layout,
           const ViperTimeWindow *window)
{
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_translate (cr, -c->ox, -c->oy);
  viper_view_draw (c->kind, cr, m, run, layout, window, c->vw, c->vh);
}

cairo_surface_t *
viper_view_cache_update (ViperViewCache *c, ViperViewKind kind, const ViperModel *m, const ViperRun *run,
                         const ViperLayout *layout, const ViperTimeWindow *window, int vw, int vh, int ox, int oy,
                         int w, int h, int scale)
{
  w = MAX (w, 1), h = MAX (h, 1), scale = MAX (scale, 1);
  guint n_modules = 0;
  if (m)
    {
      GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
      viper_view_renderer (m)->modules (m, run, ids);
      n_modules = ids->len;
      g_array_unref (ids);
    }
  if (c->valid && (c->kind != kind || c->w != w || c->h != h || c->vw != vw || c->vh != vh || c->ox != ox
                   || c->oy != oy || c->scale != scale || c->n_modules != n_modules))
    c->valid = FALSE;
  c->n_modules = n_modules;
  if (!c->img || c->w != w || c->h != h || c->scale != scale)
    {
      if (c->img)
        cairo_surface_destroy (c->img);
      c->img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w * scale, h * scale);
      cairo_surface_set_device_scale (c->img, scale, scale);
      c->valid = FALSE;
    }
  c->kind = kind, c->w = w, c->h = h, c->vw = vw, c->vh = vh, c->ox = ox, c->oy = oy, c->scale = scale;
  if (!c->valid)
    {
      cairo_t *cr = cairo_create (c->img);
      draw_into (c, cr, m, run, layout, window);
      cairo_destroy (cr);
      cairo_region_destroy (c->stale);
      c->stale = cairo_region_create ();
      c->valid = TRUE;
      c->full++;
      return c->img;
    }
  cairo_rectangle_int_t all = { 0, 0, w, h };
  cairo_region_intersect_rectangle (c->stale, &all);
  if (!cairo_region_is_empty (c->stale))
    {
      /* one rectangle around the stale parts: the views cull by the clip's
       * extents anyway, and a clip of several rectangles makes cairo
       * composite antialiased edges through a mask, which rounds a shade
       * differently from a whole frame (test-view-cache saw it) */
      cairo_t *cr = cairo_create (c->img);
      cairo_rectangle_int_t ext;
      cairo_region_get_extents (c->stale, &ext);
      if (kind == VIPER_VIEW_ANIMATION && m)
        grow_over_modules (&ext, m, run, layout, window, vw, vh, ox, oy);
      cairo_rectangle (cr, ext.x, ext.y, ext.width, ext.height);
      cairo_clip (cr);
      draw_into (c, cr, m, run, layout, window);
      cairo_destroy (cr);
      cairo_region_destroy (c->stale);
      c->stale = cairo_region_create ();
      c->partial++;
    }
  return c->img;
}

void
viper_view_cache_paint (ViperViewCache *c, cairo_t *cr, ViperViewKind kind, const ViperModel *m, const ViperRun *run,
                        const ViperLayout *layout, const ViperTimeWindow *window, int width, int height,
                        const GArray *areas)
{
  if (areas && c->valid && c->kind == kind && c->w == width && c->h == height)
    {
      ViperViewGeometry *g = viper_view_geometry_new (kind, m, run, layout, window, width, height);
      GArray *rects = g_array_new (FALSE, FALSE, sizeof (cairo_rectangle_int_t));
      viper_view_damage_rects (g, areas, rects);
      for (guint i = 0; i < rects->len; i++)
        viper_view_cache_damage (c, &g_array_index (rects, cairo_rectangle_int_t, i));
      g_array_unref (rects);
      viper_view_geometry_free (g);
    }
  cairo_surface_t *img = viper_view_cache_update (c, kind, m, run, layout, window, width, height, 0, 0, width, height, 1);
  cairo_set_source_surface (cr, img, 0, 0);
  cairo_paint (cr);
}
