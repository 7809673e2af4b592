/* viper-view-widget.c - a view on screen: a drawing area that paints with
 * views.c and turns damaged areas into invalidated rectangles.
 *
 * The widget never paints outside the draw signal: damage only queues
 * regions, and GTK coalesces them into the next frame, so the number of
 * paints is bounded by the frame rate however fast trams are applied.
 *
 * The space-time view zooms with Ctrl+wheel, scrolls with the wheel (which
 * stops following the clock) and follows the clock again on a double click;
 * its tooltip describes the state bar or message under the pointer.
 */
#include <math.h>
#include "viper-view-widget.h"

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
};

/* Damage repaints as a region of at most this many rectangles, else as their
 * bounding box (viper_view_widget_damage). */
#define VIPER_VIEW_WIDGET_MAX_CLIP_RECTS 16

G_DEFINE_TYPE (ViperViewWidget, viper_view_widget, GTK_TYPE_DRAWING_AREA)

static ViperViewGeometry *
geometry (ViperViewWidget *self)
{
  GtkWidget *w = GTK_WIDGET (self);
  return viper_view_geometry_new (self->kind, self->model, self->run, self->layout, &self->window,
                                  gtk_widget_get_allocated_width (w), gtk_widget_get_allocated_height (w));
}

static gboolean
viper_view_widget_draw (GtkWidget *w, cairo_t *cr)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  self->frames++;
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (self->kind, cr, self->model, self->run, self->layout, &self->window,
                   gtk_widget_get_allocated_width (w), gtk_widget_get_allocated_height (w));
  return TRUE;
}

static gboolean
viper_view_widget_scroll (GtkWidget *w, GdkEventScroll *ev)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  if (self->kind != VIPER_VIEW_SPACETIME || !self->model)
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
  double t0, t1;
  viper_time_window_range (&self->window, self->model, &t0, &t1);
  double span = t1 - t0;
  if (ev->state & GDK_CONTROL_MASK)
    {
      /* zoom about the right edge while following, else about the left edge */
      double f = pow (1.25, dy);
      self->window.span = span * f;
      if (!self->window.follow)
        self->window.start = t0;
    }
  else
    {
      double shift = (fabs (dx) > fabs (dy) ? dx : dy) * span * 0.1;
      self->window.follow = FALSE;
      self->window.start = t0 + shift;
      self->window.span = span;
    }
  gtk_widget_queue_draw (w);
  return TRUE;
}

static gboolean
viper_view_widget_button_press (GtkWidget *w, GdkEventButton *ev)
{
  ViperViewWidget *self = VIPER_VIEW_WIDGET (w);
  if (self->kind == VIPER_VIEW_SPACETIME && ev->type == GDK_2BUTTON_PRESS)
    {
      self->window.follow = TRUE;
      gtk_widget_queue_draw (w);
      return TRUE;
    }
  return FALSE;
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
    s = viper_view_animation_describe (self->model, self->run, self->layout, width, height, x, y);
  if (!s)
    return FALSE;
  gtk_tooltip_set_text (tip, s);
  g_free (s);
  return TRUE;
}

static void
viper_view_widget_class_init (ViperViewWidgetClass *klass)
{
  GtkWidgetClass *wc = GTK_WIDGET_CLASS (klass);
  wc->draw = viper_view_widget_draw;
  wc->scroll_event = viper_view_widget_scroll;
  wc->button_press_event = viper_view_widget_button_press;
  wc->query_tooltip = viper_view_widget_query_tooltip;
}

static void
viper_view_widget_init (ViperViewWidget *self)
{
  viper_time_window_init (&self->window);
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
      break;
    case VIPER_VIEW_SPACETIME:
      gtk_widget_set_size_request (w, 360, 200);
      gtk_widget_add_events (w, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK);
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
const ViperTimeWindow *viper_view_widget_time_window (ViperViewWidget *self) { return &self->window; }

void
viper_view_widget_set_model (ViperViewWidget *self, const ViperModel *model, const ViperRun *run)
{
  self->model = model;
  self->run = run;
  self->window.follow = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
viper_view_widget_set_layout (ViperViewWidget *self, const ViperLayout *layout)
{
  self->layout = layout;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
viper_view_widget_set_breakpoint (ViperViewWidget *self, double clock)
{
  self->window.breakpoint = clock;
  if (self->kind == VIPER_VIEW_SPACETIME)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
viper_view_widget_damage (ViperViewWidget *self, const GArray *areas)
{
  if (!areas->len || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return 0;
  ViperViewGeometry *g = geometry (self);
  guint nm = viper_view_geometry_n_modules (g);
  if (nm != self->last_n_modules)
    {
      self->last_n_modules = nm;
      viper_view_geometry_free (g);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      self->invalidations++;
      return 1;
    }
  GArray *rects = g_array_new (FALSE, FALSE, sizeof (cairo_rectangle_int_t));
  guint n = viper_view_damage_rects (g, areas, rects);
  cairo_region_t *region = cairo_region_create ();
  for (guint i = 0; i < rects->len; i++)
    cairo_region_union_rectangle (region, &g_array_index (rects, cairo_rectangle_int_t, i));
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
  return ok;
}

gboolean
viper_view_widget_module_box (ViperViewWidget *self, gint64 id, double *x, double *y, double *w, double *h)
{
  ViperViewGeometry *g = geometry (self);
  gboolean ok = viper_view_geometry_module_box (g, id, x, y, w, h);
  viper_view_geometry_free (g);
  return ok;
}
