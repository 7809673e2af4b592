/* macrame-render.h - drawing Macrame devices with cairo (spec macrame.md section 3).
 *
 * Plain cairo functions the GUI's views and the tests share: the node
 * meter, the switch rectangle, and a whole animation view laid out by a view
 * setup file.  Also the ViperRenderer table the generic views use
 * (paradigms/views.h): its decorate_module hook draws the real device shape
 * over the generic disc.
 */
#pragma once

#include <cairo.h>
#include "macrame.h"
#include "paradigms/views.h"

G_BEGIN_DECLS

extern const ViperRenderer macrame_renderer;

/* Table 13 (setup state) and Table 14 (dynamic state) colours.  Pure colours:
 * black (0,0,0), red (1,0,0), yellow (1,1,0), grey (0.5,0.5,0.5), blue
 * (0,0,1); green is (0,0.8,0) so that it stays distinct from yellow on screen. */
ViperColor macrame_setup_color (MacrameSetupClass c);
ViperColor macrame_dynamic_color (MacrameState s);

/* Where the parts of a node drawn in (x, y, w, h) lie. */
typedef struct {
  double base_x, base_y, base_w, base_h;        /* setup-state base (bottom quarter) */
  double tx_x, tx_y, tx_w, tx_h;                /* transmitter meter (left) */
  double rx_x, rx_y, rx_w, rx_h;                /* receiver meter (right) */
} MacrameNodeGeometry;

void macrame_node_geometry (double x, double y, double w, double h, MacrameNodeGeometry *g);
/* The pixels of cairo_rectangle (x, y, w, h) stroked with a line width of 1
 * (and mitred corners), drawn as a fill in the current source. */
void macrame_outline_rect (cairo_t *cr, double x, double y, double w, double h);

/* A node: two meters (filled lower part = rate / MAXRATE in the dynamic
 * colour, transparent upper part) over a base in the setup colour, and a
 * white cross over the whole node when its transmitter or receiver is in error. */
void macrame_draw_node (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double w, double h);
/* A switch: a rectangle in the setup colour (the dynamic colour, red, when
 * in error) with its label centred; label NULL draws "S<id>". */
void macrame_draw_switch (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double w, double h,
                          const char *label);

/* The view setup's coordinates scaled uniformly into a w x h picture, centred. */
void macrame_view_transform (const ViperViewSetup *vs, int w, int h, double *scale, double *ox, double *oy);

/* The animation view: white background, layout elements, then every module
 * of the view setup drawn by its representation. */
void macrame_draw_view (cairo_t *cr, const ViperModel *m, const ViperViewSetup *vs, int w, int h);

/* The space-time view: one row per module of the view setup's `spacetime`
 * line (all nodes when it has none), node transmitter states over adjusted
 * time from the history. */
void macrame_draw_spacetime (cairo_t *cr, const ViperModel *m, const ViperViewSetup *vs, int w, int h);

/* Render the animation view (or the space-time view) to a PNG file. */
gboolean macrame_render_view_to_png (const ViperModel *m, const ViperViewSetup *vs, const char *path, int w, int h,
                                     GError **error);
gboolean macrame_render_spacetime_to_png (const ViperModel *m, const ViperViewSetup *vs, const char *path, int w,
                                          int h, GError **error);

G_END_DECLS
