/* viper-view-widget.h - one of the four views as a GTK widget. */
#pragma once

#include <gtk/gtk.h>
#include "paradigms/views.h"

G_BEGIN_DECLS

#define VIPER_TYPE_VIEW_WIDGET (viper_view_widget_get_type ())
G_DECLARE_FINAL_TYPE (ViperViewWidget, viper_view_widget, VIPER, VIEW_WIDGET, GtkDrawingArea)

GtkWidget *viper_view_widget_new (ViperViewKind kind);
ViperViewKind viper_view_widget_kind (ViperViewWidget *self);
/* The model and run to draw (not owned); NULL clears. */
void viper_view_widget_set_model (ViperViewWidget *self, const ViperModel *model, const ViperRun *run);
void viper_view_widget_set_layout (ViperViewWidget *self, const ViperLayout *layout);
void viper_view_widget_set_breakpoint (ViperViewWidget *self, double clock);
/* Mark the tram PROC:SEQ at adjusted time t (the space-time view rings it);
 * on FALSE: no mark.  Redraws only when the mark changes. */
void viper_view_widget_set_tram_mark (ViperViewWidget *self, gboolean on, gint64 proc, gint64 seq, double t);
const ViperTimeWindow *viper_view_widget_time_window (ViperViewWidget *self);

/* Invalidate exactly one region per damaged area the view shows (areas from
 * viper_damage_take).  Returns how many regions were invalidated. */
guint viper_view_widget_damage (ViperViewWidget *self, const GArray *areas);
/* Regions invalidated by damage so far (tests, statistics). */
guint64 viper_view_widget_invalidations (ViperViewWidget *self);
/* Frames drawn so far, and the CPU time (thread, microseconds) they took. */
guint64 viper_view_widget_frames (ViperViewWidget *self);
gint64 viper_view_widget_draw_us (ViperViewWidget *self);

/* The geometry the next paint would use (free with viper_view_geometry_free).
 * Building it lays out every module, so a caller asking about many modules
 * builds it once and queries it rather than going through the per-module
 * calls below. */
ViperViewGeometry *viper_view_widget_geometry (ViperViewWidget *self);
/* Where a module's state colour shows, in widget coordinates (program view: id -1). */
gboolean viper_view_widget_module_point (ViperViewWidget *self, gint64 id, double *x, double *y);
/* Animation view laid out by a view setup file: the module's box in widget coordinates. */
gboolean viper_view_widget_module_box (ViperViewWidget *self, gint64 id, double *x, double *y, double *w, double *h);

/* Space-time navigation: zoom by factor (< 1 in) about the middle (about the
 * clock while following), fit the whole run (Home), follow the clock at the
 * current zoom (End). */
void viper_view_widget_zoom (ViperViewWidget *self, double factor);
void viper_view_widget_fit (ViperViewWidget *self);
void viper_view_widget_follow (ViperViewWidget *self);
/* The widget to pack: the space-time view with its scrollbars (time, and
 * rows when they do not all fit); other views as they are. */
GtkWidget *viper_view_widget_wrap (ViperViewWidget *self);
/* app.zoom-in (+), app.zoom-out (-), app.zoom-fit (Home), app.follow (End) on this view. */
void viper_view_widget_add_actions (ViperViewWidget *self, GtkApplication *gapp);

/* Whether a tooltip is up.  A tooltip is asked for again only then: a
 * query while none is shown counts as a pointer motion and would put the
 * hover delay off at every redraw, so that no tooltip ever appeared while
 * playing (the views' and viper-inspect.c's module tooltips). */
gboolean viper_tooltip_visible (void);

G_END_DECLS
