/* viper-view-widget.c - a view on screen: a drawing area that paints with
 * views.c and turns damaged areas into invalidated rectangles.
 *
 * The widget never paints outside the draw signal: damage only queues
 * regions, and GTK coalesces them into the next frame, so the number of
 * paints is bounded by the frame rate however fast trams are applied.
 *
 * The space-time view navigates like a trace browser: Ctrl+wheel zooms
 * about the time under the pointer, + and - about the middle; dragging pans
 * (time and rows); the wheel scrolls the rows when they do not all fit,
 * else time (Shift+wheel: always time); Home fits the whole run (and keeps
 * fitting it as it grows), End follows the clock at the current zoom, and so
 * does a double click.  Time is clamped to the run: the window never shows
 * more than [run start, clock], nor starts before it or ends after it.
 * Scrollbars (viper_view_widget_wrap) show and move the same window.  Its
 * tooltip describes the state bar, message or row under the pointer; the
 * animation view's names the module under it.
 *
 * The animation view zooms too (Ctrl+wheel about the pointer, up to 16
 * times): it is laid out at the zoomed size and shifted, so discs and boxes
 * grow and labels that did not fit appear; the wheel or a drag pans it and a
 * double click fits it to the panel again.  viper_view_widget_geometry()
 * gives the zoomed layout before the shift (the debug layout.json assumes
 * no zoom).
 *
 * VIPER_DEBUG_DIR=DIR: after every paint of the space-time view that moved
 * its window, DIR/spacetime.json says which time range its plot shows and
 * where the plot is on the screen, for the tests; DIR/spacetime-tooltip.json
 * holds the last tooltip text it gave.
 *
 * GTK asks for a tooltip only when the pointer moves: a tooltip up over the
 * space-time plot while it follows the clock said where the pointer had
 * been, not what is under it now.  While a tooltip is up and the pointer is
 * in the view, the damage of a redraw asks for it again (a few times a
 * second at most).
 */
#include <math.h>
#include <time.h>
#include "viper-view-widget.h"
#include "core/jsonout.h"

struct _ViperViewWidget {
  GtkDrawingArea parent;
  ViperViewKind kind;
  const ViperModel *model;
  const ViperRun *run;
  const ViperLayout *layout;
  ViperTimeWindow window;
  guint64 invalidations;
  guint64 frames;
  guint last_n_modules;     /* a module appearing moves the others: repaint all */
  /* space-time navigation */
  double drag_x, drag_y;    /* where a drag pans from (NAN: none) */
  ViperTimeWindow drag_w;
  GtkAdjustment *hadj, *vadj;
  gboolean syncing;         /* adjusting the scrollbars: ignore their signals */
  gint64 synced_at;         /* when the tick last moved them */
  gboolean synced_since;    /* and nothing changed since */
  char *last_dump;
  /* animation zoom: the view is drawn az times the widget's size, shifted
   * by (aox, aoy) pixels; az = 1 fits the panel */
  double az, aox, aoy;
  double adrag_x, adrag_y, adrag_ox, adrag_oy;   /* a pan drag (adrag_x NAN: none) */
  /* the last frame as an image (paradigms/views-cache.c), redrawn where
   * damaged; NULL when the paradigm draws the view itself (its panels
   * change the picture without damage) or VIPER_VIEW_CACHE=0 */
  ViperViewCache *cache;
  gint64 draw_us;           /* CPU time spent drawing so far (thread time) */
  gboolean pointer_in;      /* the pointer is in the view (its tooltip may be up) */
  gint64 tip_at;            /* when the tooltip was last asked for again */
};

/* Damage repaints as a region of at most this many rectangles, else as their
 * bounding box (viper_view_widget_damage). */
#define VIPER_VIEW_WIDGET_MAX_CLIP_RECTS 16

G_DEFINE_TYPE (ViperViewWidget, viper_view_widget, GTK_TYPE_DRAWING_AREA)

/* The size the view is laid out at: the widget's, times the animation zoom. */
static void
view_size (ViperViewWidget *self, int *w, int *h)
{
  GtkWidget *wd = GTK_WIDGET (self);
  double z = self->kind == VIPER_VIEW_ANIMATION ? self->az : 1;
  *w = (int) round (gtk_widget_get_allocated_width (wd) * z);
  *h = (int) round (gtk_widget_get_allocated_height (wd) * z);
}

static ViperViewGeometry *
geometry (ViperViewWidget *self)
{
  int w, h;
  view_size (self, &w, &h);
  return viper_view_geometry_new (self->kind, self->model, self->run, self->layout, &self->window, w, h);
}

/* The picture changed other than by the model's damage (zoom, pan, time
 * window, layout, model): the whole frame is stale. */
static void
redraw (ViperViewWidget *self)
{
  if (self->cache)
    viper_view_cache_invalidate (self->cache);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The animation's shift, in whole pixels: the cache and the damage agree on it. */
static int
shift_x (ViperViewWidget *self)
{
  return self->kind == VIPER_VIEW_ANIMATION ? (int) floor (self->aox) : 0;
}

static int
shift_y (ViperViewWidget *self)
{
  return self->kind == VIPER_VIEW_ANIMATION ? (int) floor (self->aoy) : 0;
}

/* ---- animation zoom and pan ----------------------------------------------------------- */

static void
an_clamp (ViperViewWidget *self)
{
  GtkWidget *w = GTK_WIDGET (self);
  int vw, vh;
  view_size (self, &vw, &vh);
  self->aox = CLAMP (self->aox, 0, MAX (vw - gtk_widget_get_allocated_width (w), 0));
  self->aoy = CLAMP (self->aoy, 0, MAX (vh - gtk_widget_get_allocated_height (w), 0));
}

/* Zoom by f keeping the point under (x, y) where it is. */
static void
an_zoom_at (ViperViewWidget *self, double f, double x, double y)
{
  double z = CLAMP (self->az * f, 1.0, 16.0);
  double k = z / self->az;
  self->aox = (self->aox + x) * k - x;
  self->aoy = (self->aoy + y) * k - y;
  self->az = z;
  an_clamp (self);
  redraw (self);
}


/* ---- space-time navigation ---------------------------------------------------------- */

/* The run the view can show: [run start, clock]; FALSE before any. */
static gboolean
run_extent (ViperViewWidget *self, double *lo, double *hi)
{
  if (!viper_time_window_extent (self->model, lo, hi))
    return FALSE;
  if (!(*hi > *lo))
    *hi = *lo + 1;
  return TRUE;
}

/* Keep a fixed window inside the run; a window as long as the run or longer
 * is the run (fit, following it as it grows). */
static void
clamp_window (ViperViewWidget *self)
{
  ViperTimeWindow *w = &self->window;
  double lo, hi;
  if (!run_extent (self, &lo, &hi))
    return;
  if (w->span > 0 && w->span < (hi - lo) * 1e-12)
    w->span = (hi - lo) * 1e-12;
  if (w->span <= 0 || w->span >= hi - lo)
    {
      w->follow = TRUE;
      w->span = 0;
      return;
    }
  if (!w->follow)
    w->start = CLAMP (w->start, lo, hi - w->span);
}

static void sync_scrollbars (ViperViewWidget *self);
static void dump_window (ViperViewWidget *self);

/* The window moved: repaint, and move the scrollbars and the debug dump
 * with it.  Never from the draw handler: configuring a scrollbar there
 * queues another frame, and the view would repaint at the frame rate for
 * ever, starving the replay. */
static void
changed (ViperViewWidget *self)
{
  clamp_window (self);
  redraw (self);
  sync_scrollbars (self);
  dump_window (self);
}

/* The plot's time range and columns as the next paint lays them out. */
static gboolean
plot (ViperViewWidget *self, double *t0, double *t1, double *x0, double *x1)
{
  ViperViewGeometry *g = geometry (self);
  gboolean ok = viper_view_geometry_plot (g, t0, t1, x0, x1);
  viper_view_geometry_free (g);
  return ok;
}

/* Zoom by f (< 1: in) keeping the time at column x where it is. */
static void
zoom_at (ViperViewWidget *self, double f, double x)
{
  double t0, t1, x0, x1;
  if (!self->model || !plot (self, &t0, &t1, &x0, &x1))
    return;
  double u = CLAMP ((x - x0) / (x1 - x0), 0, 1);
  double t = t0 + u * (t1 - t0);
  double span = (t1 - t0) * f;
  self->window.follow = FALSE;
  self->window.span = span;
  self->window.start = t - u * span;
  double lo, hi;
  if (f > 1 && run_extent (self, &lo, &hi) && span >= hi - lo)
    self->window.span = 0;   /* zoomed out to the whole run: fit it */
  changed (self);
}

static void
zoom_center (ViperViewWidget *self, double f)
{
  double t0, t1, x0, x1;
  if (!self->model || !plot (self, &t0, &t1, &x0, &x1))
    return;
  gboolean follow = self->window.follow;
  zoom_at (self, f, follow ? x1 : (x0 + x1) / 2);
  if (follow && self->window.span > 0)
    self->window.follow = TRUE;   /* following: zoom about the clock and keep following */
}

static void
scroll_rows (ViperViewWidget *self, double rows)
{
  ViperViewGeometry *g = geometry (self);
  guint n = 0, first = 0, shown = 0;
  double rh;
  viper_view_geometry_rows (g, &n, &first, &shown, &rh);
  viper_view_geometry_free (g);
  double nf = CLAMP ((double) first + rows, 0, (double) (n > shown ? n - shown : 0));
  self->window.first_row = (guint) nf;
  changed (self);
}

static gboolean
rows_overflow (ViperViewWidget *self)
{
  ViperViewGeometry *g = geometry (self);
  guint n = 0, first = 0, shown = 0;
  double rh;
  viper_view_geometry_rows (g, &n, &first, &shown, &rh);
  viper_view_geometry_free (g);
  return shown < n;
}

static void
pan_time (ViperViewWidget *self, double frac)
{
  double t0, t1, x0, x1;
  if (!self->model || !plot (self, &t0, &t1, &x0, &x1))
    return;
  self->window.follow = FALSE;
  self->window.span = t1 - t0;
  self->window.start = t0 + frac * (t1 - t0);
  changed (self);
}

static void
sync_scrollbars (ViperViewWidget *self)
{
  if (!self->hadj || !self->model)
    return;
  self->syncing = TRUE;
  double lo, hi, t0, t1, x0, x1;
  if (run_extent (self, &lo, &hi) && plot (self, &t0, &t1, &x0, &x1))
    {
      double a = MIN (lo, t0), b = MAX (hi, t1);
      gtk_adjustment_configure (self->hadj, t0, a, b, (t1 - t0) * 0.1, (t1 - t0) * 0.9, t1 - t0);
    }
  ViperViewGeometry *g = geometry (self);
  guint n = 0, first = 0, shown = 0;
  double rh;
  viper_view_geometry_rows (g, &n, &first, &shown, &rh);
  viper_view_geometry_free (g);
  gtk_adjustment_configure (self->vadj, first, 0, MAX (n, 1u), 1, MAX (shown, 2u) - 1, MAX (shown, 1u));
  GtkWidget *vbar = g_object_get_data (G_OBJECT (self), "vbar");
  if (vbar && gtk_widget_get_visible (vbar) != (shown < n))
    gtk_widget_set_visible (vbar, shown < n);
  self->syncing = FALSE;
}

static void
hadj_changed (GtkAdjustment *adj, gpointer data)
{
  ViperViewWidget *self = data;
  if (self->syncing || !self->model)
    return;
  double t0, t1, x0, x1;
  if (!plot (self, &t0, &t1, &x0, &x1))
    return;
  self->window.follow = FALSE;
  self->window.span = t1 - t0;
  self->window.start = gtk_adjustment_get_value (adj);
  changed (self);
}

static void
vadj_changed (GtkAdjustment *adj, gpointer data)
{
  ViperViewWidget *self = data;
  if (self->syncing)
    return;
  self->window.first_row = (guint) MAX (gtk_adjustment_get_value (adj), 0);
  changed (self);
}

static void
dump_window (ViperViewWidget *self)
{
  const char *dir = g_getenv ("VIPER_DEBUG_DIR");
  if (!dir || !*dir || !self->model)
    return;
  double t0, t1, x0, x1, lo = NAN, hi = NAN;
  if (!plot (self, &t0, &t1, &x0, &x1))
    return;
  run_extent (self, &lo, &hi);
  int ox = 0, oy = 0;
  GtkWidget *w = GTK_WIDGET (self);
  GdkWindow *gw = gtk_widget_get_window (w);
  if (gw)
    gdk_window_get_origin (gw, &ox, &oy);
  if (gw && !gtk_widget_get_has_window (w))
    {
      GtkAllocation al;
      gtk_widget_get_allocation (w, &al);
      ox += al.x;
      oy += al.y;
    }
  ViperViewGeometry *g = geometry (self);
  guint n = 0, first = 0, shown = 0;
  double rh = 0;
  viper_view_geometry_rows (g, &n, &first, &shown, &rh);
  viper_view_geometry_free (g);
  /* the time axis's labels on the screen: the tests check they never overlap */
  int vw, vh;
  view_size (self, &vw, &vh);
  GArray *labels = viper_view_spacetime_axis_labels (self->model, self->run, &self->window, vw, vh);
  GString *ax = g_string_new ("[");
  for (guint i = 0; i < labels->len; i++)
    {
      const ViperAxisLabel *l = &g_array_index (labels, ViperAxisLabel, i);
      g_string_append_printf (ax, "%s{\"x\": %.1f, \"y\": %.1f, \"width\": %.1f, \"height\": %.1f, \"base\": %s, "
                              "\"text\": ", i ? ", " : "", l->x + ox, l->y + oy, l->width, l->height,
                              l->base ? "true" : "false");
      viper_json_append_string (ax, l->text);
      g_string_append (ax, "}");
    }
  g_string_append (ax, "]");
  g_array_unref (labels);
  char a[32], b[32], c[32], d[32], e[32], f[32], rb[32];
  char *doc = g_strdup_printf ("{\"t0\": %s, \"t1\": %s, \"x0\": %s, \"x1\": %s, \"run\": [%s, %s], "
                               "\"follow\": %s, \"origin\": [%d, %d], \"width\": %d, \"height\": %d, \"rows\": %u, "
                               "\"first_row\": %u, \"rows_shown\": %u, \"row_h\": %s, \"axis\": %s}\n",
                               viper_format_double (t0, a), viper_format_double (t1, b),
                               viper_format_double (x0 + ox, c), viper_format_double (x1 + ox, d),
                               isfinite (lo) ? viper_format_double (lo, e) : "null",
                               isfinite (hi) ? viper_format_double (hi, f) : "null",
                               self->window.follow ? "true" : "false", ox, oy, gtk_widget_get_allocated_width (w),
                               gtk_widget_get_allocated_height (w), n, first, shown, viper_format_double (rh, rb),
                               ax->str);
  g_string_free (ax, TRUE);
  if (g_strcmp0 (doc, self->last_dump) != 0)
    {
      char *path = g_build_filename (dir, "spacetime.json", NULL);
      /* consistent (renamed into place), not durable: no fsync on the main loop */
      g_file_set_contents_full (path, doc, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, NULL);
      g_free (path);
      g_free (self->last_dump);
      self->last_dump = doc;
    }
  else
    g_free (doc);
}

static gboolean
viper_view_widget_draw (GtkWidget *w, cairo_t *cr)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  self->frames++;
  struct timespec c0, c1;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &c0);
  int vw, vh;
  view_size (self, &vw, &vh);
  const ViperRenderer *r = self->model ? viper_view_renderer (self->model) : NULL;
  if (self->cache && !(r && r->draw_view))
    {
      /* drawn into the cached frame where stale (client side, cairo's image
       * backend), then shown as one image: the display server rasterises
       * nothing, and an expose costs a copy */
      cairo_surface_t *img = viper_view_cache_update (self->cache, self->kind, self->model, self->run, self->layout,
                                                      &self->window, vw, vh, shift_x (self), shift_y (self),
                                                      gtk_widget_get_allocated_width (w),
                                                      gtk_widget_get_allocated_height (w),
                                                      gtk_widget_get_scale_factor (w));
      cairo_set_source_surface (cr, img, 0, 0);
      cairo_set_operator (cr, CAIRO_OPERATOR_SOURCE);
      cairo_paint (cr);
    }
  else
    {
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      if (self->kind == VIPER_VIEW_ANIMATION)
        cairo_translate (cr, -shift_x (self), -shift_y (self));
      viper_view_draw (self->kind, cr, self->model, self->run, self->layout, &self->window, vw, vh);
    }
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &c1);
  self->draw_us += (c1.tv_sec - c0.tv_sec) * G_USEC_PER_SEC + (c1.tv_nsec - c0.tv_nsec) / 1000;
  return TRUE;
}

static gboolean
viper_view_widget_scroll (GtkWidget *w, GdkEventScroll *ev)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  if ((self->kind != VIPER_VIEW_SPACETIME && self->kind != VIPER_VIEW_ANIMATION) || !self->model)
    return FALSE;
  double dx = 0, dy = 0;
  if (ev->direction == GDK_SCROLL_UP)
    dy = -1;
  else if (ev->direction == GDK_SCROLL_DOWN)
    dy = 1;
  else if (ev->direction == GDK_SCROLL_LEFT)
    dx = -1;
  else if (ev->direction == GDK_SCROLL_RIGHT)
    dx = 1;
  else if (ev->direction == GDK_SCROLL_SMOOTH)
    gdk_event_get_scroll_deltas ((GdkEvent *) ev, &dx, &dy);
  if (self->kind == VIPER_VIEW_ANIMATION)
    {
      /* Ctrl+wheel zooms about the pointer; the wheel pans a zoomed view */
      if (ev->state & GDK_CONTROL_MASK)
        {
          if (dy != 0)
            an_zoom_at (self, pow (1.25, -dy), ev->x, ev->y);
          return TRUE;
        }
      if (self->az <= 1)
        return FALSE;
      if (ev->state & GDK_SHIFT_MASK && dx == 0)
        dx = dy, dy = 0;
      self->aox += dx * 60;
      self->aoy += dy * 60;
      an_clamp (self);
      redraw (self);
      return TRUE;
    }
  if ((ev->state & GDK_CONTROL_MASK) && (ev->state & GDK_SHIFT_MASK))
    {
      /* taller or shorter rows (down to all of them fitting); a server may
       * turn Shift+wheel into a horizontal scroll */
      if (dy == 0)
        dy = dx;
      if (dy != 0)
        {
          self->window.row_zoom = CLAMP (self->window.row_zoom * pow (1.25, -dy), 1.0, 1e4);
          changed (self);
        }
      return TRUE;
    }
  if (ev->state & GDK_CONTROL_MASK)
    {
      /* zoom about the time under the pointer */
      if (dy != 0)
        zoom_at (self, pow (1.25, dy), ev->x);
      return TRUE;
    }
  if ((ev->state & GDK_SHIFT_MASK) && dx == 0)
    dx = dy, dy = 0;
  if (dy != 0 && rows_overflow (self))
    scroll_rows (self, dy * 3);
  else
    pan_time (self, (fabs (dx) > fabs (dy) ? dx : dy) * 0.1);
  return TRUE;
}

static gboolean
viper_view_widget_button_press (GtkWidget *w, GdkEventButton *ev)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  if (self->kind == VIPER_VIEW_ANIMATION)
    {
      if (ev->type == GDK_2BUTTON_PRESS)
        {
          /* back to the whole panel */
          self->adrag_x = NAN;
          self->az = 1;
          self->aox = self->aoy = 0;
          redraw (self);
          return TRUE;
        }
      if (ev->button == 1 && ev->type == GDK_BUTTON_PRESS && self->az > 1)
        {
          self->adrag_x = ev->x, self->adrag_y = ev->y;
          self->adrag_ox = self->aox, self->adrag_oy = self->aoy;
          return TRUE;
        }
      return FALSE;
    }
  if (self->kind != VIPER_VIEW_SPACETIME)
    return FALSE;
  if (ev->type == GDK_2BUTTON_PRESS)
    {
      self->drag_x = NAN;
      viper_view_widget_follow (self);
      return TRUE;
    }
  if (ev->button == 1 && ev->type == GDK_BUTTON_PRESS && self->model)
    {
      double t0, t1, x0, x1;
      if (!plot (self, &t0, &t1, &x0, &x1))
        return FALSE;
      self->drag_x = ev->x;
      self->drag_y = ev->y;
      self->drag_w = self->window;
      self->drag_w.start = t0;
      self->drag_w.span = t1 - t0;
      return TRUE;
    }
  return FALSE;
}

static gboolean
viper_view_widget_motion (GtkWidget *w, GdkEventMotion *ev)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  if (self->kind == VIPER_VIEW_ANIMATION && !isnan (self->adrag_x))
    {
      self->aox = self->adrag_ox - (ev->x - self->adrag_x);
      self->aoy = self->adrag_oy - (ev->y - self->adrag_y);
      an_clamp (self);
      redraw (self);
      return TRUE;
    }
  if (isnan (self->drag_x) || !self->model)
    return FALSE;
  double t0, t1, x0, x1;
  if (!plot (self, &t0, &t1, &x0, &x1))
    return FALSE;
  double dx = ev->x - self->drag_x;
  if (fabs (dx) >= 1)
    {
      /* the time under the pointer stays under it */
      self->window.follow = FALSE;
      self->window.span = self->drag_w.span;
      self->window.start = self->drag_w.start - dx / (x1 - x0) * self->drag_w.span;
      clamp_window (self);
    }
  ViperViewGeometry *g = geometry (self);
  guint n = 0, first = 0, shown = 0;
  double rh = 1;
  viper_view_geometry_rows (g, &n, &first, &shown, &rh);
  viper_view_geometry_free (g);
  if (shown < n)
    {
      double nf = (double) self->drag_w.first_row - (ev->y - self->drag_y) / rh;
      self->window.first_row = (guint) CLAMP (nf, 0, (double) (n - shown));
    }
  changed (self);
  return TRUE;
}

static gboolean
viper_view_widget_button_release (GtkWidget *w, GdkEventButton *ev)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  if (ev->button == 1 && !isnan (self->adrag_x))
    {
      self->adrag_x = NAN;
      return TRUE;
    }
  if (ev->button != 1 || isnan (self->drag_x))
    return FALSE;
  self->drag_x = NAN;
  return TRUE;
}

static gboolean
viper_view_widget_query_tooltip (GtkWidget *w, gint x, gint y, gboolean keyboard, GtkTooltip *tip)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  if (keyboard || !self->model)
    return FALSE;
  int width = gtk_widget_get_allocated_width (w), height = gtk_widget_get_allocated_height (w);
  char *s = NULL;
  if (self->kind == VIPER_VIEW_SPACETIME)
    s = viper_view_spacetime_describe (self->model, self->run, &self->window, width, height, x, y);
  else if (self->kind == VIPER_VIEW_ANIMATION)
    {
      int vw, vh;
      view_size (self, &vw, &vh);
      s = viper_view_animation_describe (self->model, self->run, self->layout, vw, vh, x + self->aox,
                                         y + self->aoy);
    }
  if (!s)
    return FALSE;
  const char *dir = self->kind == VIPER_VIEW_SPACETIME ? g_getenv ("VIPER_DEBUG_DIR") : NULL;
  if (dir && *dir)
    {
      GString *j = g_string_new ("{\"text\": ");
      viper_json_append_string (j, s);
      char cb[32];
      g_string_append_printf (j, ", \"clock\": %s}\n", isfinite (self->model->clock)
                              ? viper_format_double (self->model->clock, cb) : "null");
      char *path = g_build_filename (dir, "spacetime-tooltip.json", NULL);
      g_file_set_contents_full (path, j->str, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, NULL);
      g_free (path);
      g_string_free (j, TRUE);
    }
  gtk_tooltip_set_text (tip, s);
  g_free (s);
  return TRUE;
}

static gboolean
viper_view_widget_crossing (GtkWidget *w, GdkEventCrossing *ev)
{
  VIPER_VIEW_WIDGET (w)->pointer_in = ev->type == GDK_ENTER_NOTIFY;
  return FALSE;
}

gboolean
viper_tooltip_visible (void)
{
  gboolean up = FALSE;
  GList *all = gtk_window_list_toplevels ();
  for (GList *l = all; l && !up; l = l->next)
    up = gtk_widget_get_visible (l->data)
         && gtk_window_get_type_hint (GTK_WINDOW (l->data)) == GDK_WINDOW_TYPE_HINT_TOOLTIP;
  g_list_free (all);
  return up;
}

static void viper_view_widget_finalize (GObject *o);

static void
viper_view_widget_class_init (ViperViewWidgetClass *klass)
{
  GtkWidgetClass *wc = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->finalize = viper_view_widget_finalize;
  wc->draw = viper_view_widget_draw;
  wc->scroll_event = viper_view_widget_scroll;
  wc->button_press_event = viper_view_widget_button_press;
  wc->button_release_event = viper_view_widget_button_release;
  wc->motion_notify_event = viper_view_widget_motion;
  wc->query_tooltip = viper_view_widget_query_tooltip;
  wc->enter_notify_event = viper_view_widget_crossing;
  wc->leave_notify_event = viper_view_widget_crossing;
}

static void
viper_view_widget_init (ViperViewWidget *self)
{
  viper_time_window_init (&self->window);
  self->drag_x = NAN;
  self->adrag_x = NAN;
  self->az = 1;
  const char *c = g_getenv ("VIPER_VIEW_CACHE");
  if (!c || !g_str_equal (c, "0"))
    self->cache = viper_view_cache_new ();
}

static void
viper_view_widget_finalize (GObject *o)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (o);
  g_clear_object (&self->hadj);
  g_clear_object (&self->vadj);
  g_free (self->last_dump);
  viper_view_cache_free (self->cache);
  G_OBJECT_CLASS (viper_view_widget_parent_class)->finalize (o);
}

GtkWidget *
viper_view_widget_new (ViperViewKind kind)
{
  ViperViewWidget *self = g_object_new (VIPER_TYPE_VIEW_WIDGET, NULL);
  self->kind = kind;
  GtkWidget *w = GTK_WIDGET (self);
  switch (kind)
    {
    case VIPER_VIEW_ANIMATION:
      gtk_widget_set_size_request (w, 360, 300);
      gtk_widget_set_has_tooltip (w, TRUE);
      gtk_widget_add_events (w, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK
                                  | GDK_BUTTON_RELEASE_MASK | GDK_BUTTON1_MOTION_MASK);
      break;
    case VIPER_VIEW_SPACETIME:
      gtk_widget_set_size_request (w, 360, 200);
      gtk_widget_add_events (w, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK
                                  | GDK_BUTTON_RELEASE_MASK | GDK_BUTTON1_MOTION_MASK | GDK_ENTER_NOTIFY_MASK
                                  | GDK_LEAVE_NOTIFY_MASK);
      gtk_widget_set_has_tooltip (w, TRUE);
      break;
    case VIPER_VIEW_VARIABLES: gtk_widget_set_size_request (w, 260, 160); break;
    case VIPER_VIEW_PROGRAM:
    default: gtk_widget_set_size_request (w, 250, 200); break;
    }
  return w;
}

ViperViewKind viper_view_widget_kind (ViperViewWidget *self) { return self->kind; }
guint64 viper_view_widget_invalidations (ViperViewWidget *self) { return self->invalidations; }
guint64 viper_view_widget_frames (ViperViewWidget *self) { return self->frames; }
gint64 viper_view_widget_draw_us (ViperViewWidget *self) { return self->draw_us; }
const ViperTimeWindow *viper_view_widget_time_window (ViperViewWidget *self) { return &self->window; }

void
viper_view_widget_set_model (ViperViewWidget *self, const ViperModel *model, const ViperRun *run)
{
  self->model = model;
  self->run = run;
  /* a new trace: the whole of it, from the first row (the breakpoint stays) */
  double bp = self->window.breakpoint;
  viper_time_window_init (&self->window);
  self->window.breakpoint = bp;
  self->az = 1;
  self->aox = self->aoy = 0;
  redraw (self);
}

void
viper_view_widget_set_layout (ViperViewWidget *self, const ViperLayout *layout)
{
  self->layout = layout;
  redraw (self);
}

void
viper_view_widget_set_breakpoint (ViperViewWidget *self, double clock)
{
  self->window.breakpoint = clock;
  if (self->kind == VIPER_VIEW_SPACETIME)
    redraw (self);
}

void
viper_view_widget_set_tram_mark (ViperViewWidget *self, gboolean on, gint64 proc, gint64 seq, double t)
{
  ViperTimeWindow *w = &self->window;
  ViperTimeWindow want = *w;
  if (on)
    viper_time_window_mark_tram (&want, proc, seq, t);
  else
    viper_time_window_clear_tram (&want);
  if (want.has_tram == w->has_tram
      && (!on || (want.tram_module == w->tram_module && want.tram_time == w->tram_time
                  && strcmp (want.tram_label, w->tram_label) == 0)))
    return;
  *w = want;
  if (self->kind == VIPER_VIEW_SPACETIME)
    redraw (self);
}

guint
viper_view_widget_damage (ViperViewWidget *self, const GArray *areas)
{
  if (self->kind == VIPER_VIEW_SPACETIME && self->model && gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      /* the run grew: the scrollbars follow, a few times a second only (and
       * once after the last change) - moving a scrollbar relayouts its part
       * of the window, which at the frame rate took time from replaying and
       * painting */
      gint64 now = g_get_monotonic_time ();
      if (now - self->synced_at >= 250000 && (areas->len || !self->synced_since))
        {
          self->synced_at = now;
          self->synced_since = !areas->len;
          sync_scrollbars (self);
          dump_window (self);
        }
      else if (areas->len)
        self->synced_since = FALSE;
    }
  if (areas->len && self->cache && !gtk_widget_get_mapped (GTK_WIDGET (self)))
    /* a hidden view drops the damage: its frame is stale when it shows again */
    viper_view_cache_invalidate (self->cache);
  if (!areas->len || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return 0;
  if (self->kind == VIPER_VIEW_SPACETIME && self->pointer_in)
    {
      gint64 now = g_get_monotonic_time ();
      if (now - self->tip_at >= 200000 && viper_tooltip_visible ())
        {
          self->tip_at = now;
          gtk_widget_trigger_tooltip_query (GTK_WIDGET (self));
        }
    }

  ViperViewGeometry *g = geometry (self);
  guint nm = viper_view_geometry_n_modules (g);
  if (nm != self->last_n_modules)
    {
      self->last_n_modules = nm;
      viper_view_geometry_free (g);
      redraw (self);
      self->invalidations++;
      return 1;
    }
  GArray *rects = g_array_new (FALSE, FALSE, sizeof (cairo_rectangle_int_t));
  guint n = viper_view_damage_rects (g, areas, rects);
  cairo_region_t *region = cairo_region_create ();
  /* thousands of areas (every link of a cluster): their union, built
   * rectangle by rectangle, cost as much as painting them - past a few
   * hundred the one rectangle around them is what the paint gets anyway */
  gboolean many = rects->len > 16 * VIPER_VIEW_WIDGET_MAX_CLIP_RECTS;
  cairo_rectangle_int_t around = { 0, 0, 0, 0 };
  for (guint i = 0; i < rects->len; i++)
    {
      cairo_rectangle_int_t r = g_array_index (rects, cairo_rectangle_int_t, i);
      /* a zoomed animation: the widget shows the view shifted (by a
       * fraction of a pixel too: one more pixel covers it) */
      if (self->kind == VIPER_VIEW_ANIMATION)
        {
          r.x -= shift_x (self);
          r.y -= shift_y (self);
          r.width += 1, r.height += 1;
        }
      if (!many)
        {
          if (self->cache)
            viper_view_cache_damage (self->cache, &r);
          cairo_region_union_rectangle (region, &r);
        }
      else if (i == 0)
        around = r;
      else
        {
          int x1 = MAX (around.x + around.width, r.x + r.width), y1 = MAX (around.y + around.height, r.y + r.height);
          around.x = MIN (around.x, r.x), around.y = MIN (around.y, r.y);
          around.width = x1 - around.x, around.height = y1 - around.y;
        }
    }
  if (many)
    {
      if (self->cache)
        viper_view_cache_damage (self->cache, &around);
      cairo_region_union_rectangle (region, &around);
    }
  if (cairo_region_num_rectangles (region) > VIPER_VIEW_WIDGET_MAX_CLIP_RECTS)
    {
      /* a paint clipped to a region of a thousand boxes makes cairo test
       * every drawing operation against every box (35 ms a frame for the
       * 8x8 testbed against 6 ms for one box): past a few boxes, one
       * rectangle around them all is cheaper even though it repaints the
       * space between them */
      cairo_rectangle_int_t ext;
      cairo_region_get_extents (region, &ext);
      cairo_region_destroy (region);
      region = cairo_region_create_rectangle (&ext);
    }
  if (self->cache && !viper_view_cache_is_valid (self->cache))
    /* the cache redraws the whole frame (the space-time view does for any
     * change): all of it goes to the screen */
    gtk_widget_queue_draw (GTK_WIDGET (self));
  else
    gtk_widget_queue_draw_region (GTK_WIDGET (self), region);
  cairo_region_destroy (region);
  self->invalidations += n;
  g_array_unref (rects);
  viper_view_geometry_free (g);
  return n;
}

ViperViewGeometry *
viper_view_widget_geometry (ViperViewWidget *self)
{
  return geometry (self);
}

gboolean
viper_view_widget_module_point (ViperViewWidget *self, gint64 id, double *x, double *y)
{
  ViperViewGeometry *g = geometry (self);
  gboolean ok = viper_view_geometry_module_point (g, id, x, y);
  viper_view_geometry_free (g);
  if (ok && self->kind == VIPER_VIEW_ANIMATION)
    *x -= self->aox, *y -= self->aoy;
  return ok;
}

gboolean
viper_view_widget_module_box (ViperViewWidget *self, gint64 id, double *x, double *y, double *w, double *h)
{
  ViperViewGeometry *g = geometry (self);
  gboolean ok = viper_view_geometry_module_box (g, id, x, y, w, h);
  viper_view_geometry_free (g);
  if (ok && self->kind == VIPER_VIEW_ANIMATION)
    *x -= self->aox, *y -= self->aoy;
  return ok;
}

void
viper_view_widget_zoom (ViperViewWidget *self, double factor)
{
  zoom_center (self, factor);
}

void
viper_view_widget_fit (ViperViewWidget *self)
{
  self->window.follow = TRUE;
  self->window.span = 0;
  changed (self);
}

void
viper_view_widget_follow (ViperViewWidget *self)
{
  double t0, t1, x0, x1;
  if (self->model && plot (self, &t0, &t1, &x0, &x1) && !self->window.follow)
    self->window.span = t1 - t0;
  self->window.follow = TRUE;
  changed (self);
}

GtkWidget *
viper_view_widget_wrap (ViperViewWidget *self)
{
  GtkWidget *w = GTK_WIDGET (self);
  if (self->kind != VIPER_VIEW_SPACETIME)
    return w;
  self->hadj = g_object_ref_sink (gtk_adjustment_new (0, 0, 1, 0.1, 0.9, 1));
  self->vadj = g_object_ref_sink (gtk_adjustment_new (0, 0, 1, 1, 1, 1));
  g_signal_connect (self->hadj, "value-changed", G_CALLBACK (hadj_changed), self);
  g_signal_connect (self->vadj, "value-changed", G_CALLBACK (vadj_changed), self);
  GtkWidget *grid = gtk_grid_new ();
  gtk_widget_set_hexpand (w, TRUE);
  gtk_widget_set_vexpand (w, TRUE);
  gtk_grid_attach (GTK_GRID (grid), w, 0, 0, 1, 1);
  GtkWidget *hbar = gtk_scrollbar_new (GTK_ORIENTATION_HORIZONTAL, self->hadj);
  GtkWidget *vbar = gtk_scrollbar_new (GTK_ORIENTATION_VERTICAL, self->vadj);
  gtk_widget_set_no_show_all (vbar, TRUE);
  g_object_set_data (G_OBJECT (self), "vbar", vbar);
  gtk_grid_attach (GTK_GRID (grid), hbar, 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), vbar, 1, 0, 1, 1);
  return grid;
}

static void
act_nav (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) param;
  ViperViewWidget *self = data;
  const char *name = g_action_get_name (G_ACTION (action));
  if (g_str_equal (name, "zoom-in"))
    viper_view_widget_zoom (self, 0.5);
  else if (g_str_equal (name, "zoom-out"))
    viper_view_widget_zoom (self, 2.0);
  else if (g_str_equal (name, "zoom-fit"))
    viper_view_widget_fit (self);
  else
    viper_view_widget_follow (self);
}

void
viper_view_widget_add_actions (ViperViewWidget *self, GtkApplication *gapp)
{
  static const GActionEntry actions[] = {
    { "zoom-in", act_nav, NULL, NULL, NULL, { 0 } },
    { "zoom-out", act_nav, NULL, NULL, NULL, { 0 } },
    { "zoom-fit", act_nav, NULL, NULL, NULL, { 0 } },
    { "follow", act_nav, NULL, NULL, NULL, { 0 } },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (gapp), actions, G_N_ELEMENTS (actions), self);
  const struct { const char *action; const char *accels[4]; } accels[] = {
    { "app.zoom-in", { "plus", "equal", "KP_Add", NULL } },
    { "app.zoom-out", { "minus", "KP_Subtract", NULL, NULL } },
    { "app.zoom-fit", { "Home", NULL, NULL, NULL } },
    { "app.follow", { "End", NULL, NULL, NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (gapp, accels[i].action, accels[i].accels);
}
