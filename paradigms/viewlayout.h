/* viewlayout.h - a view setup file (viewsetup.h) as the views' geometry.
 *
 * The animation view lays a view setup file's coordinate space into its
 * drawing area uniformly (the aspect ratio is kept) and centred; everything
 * that must agree on where a module lies - drawing, damage rectangles, the
 * GUI's debug dump, the tests' probes - goes through the transform here.
 * The space-time view takes the file's `spacetime` subset and order.
 */
#pragma once

#include <cairo.h>
#include "paradigms/views.h"
#include "paradigms/viewsetup.h"

G_BEGIN_DECLS

typedef struct {
  double scale;             /* view pixels per file unit */
  double ox, oy;            /* where the file's (0, 0) lands */
} ViperViewTransform;

/* Fit the file's space into the rectangle (x, y, w, h) of the view. */
void viper_view_transform_fit (const ViperViewSetup *vs, double x, double y, double w, double h,
                               ViperViewTransform *t);

/* The module's box in view pixels; FALSE when the file does not name it. */
gboolean viper_view_layout_box (const ViperViewSetup *vs, const ViperViewTransform *t, gint64 id, double *x,
                                double *y, double *w, double *h);

/* Keep, of the renderer's module ids, those this view of the file shows:
 * the animation view the file's modules (in the renderer's order); the
 * space-time view the `spacetime` line's, in its order, when it has one. */
void viper_view_layout_select (const ViperViewSetup *vs, ViperViewKind kind, GArray *ids);

/* An animation view laid out by a view setup file: its transform (for a
 * paradigm that draws that view itself on the same geometry); FALSE otherwise. */
gboolean viper_view_geometry_transform (const ViperViewGeometry *g, ViperViewTransform *out);

/* The layout-only elements (lines, rectangles, text) in file order. */
void viper_view_layout_draw_elements (cairo_t *cr, const ViperViewSetup *vs, const ViperViewTransform *t);

G_END_DECLS
