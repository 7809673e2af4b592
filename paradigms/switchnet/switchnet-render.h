/* switchnet-render.h - drawing a switch network with cairo.
 *
 * Three layouts of the same network (the Cplant tool's): the planar network
 * view (switches in planes of rows and columns, network ports and the cables
 * between them, wrap-around cables drawn behind), the planar processor view
 * (processor ports only), and the toroidal view (each plane a torus, planes
 * as concentric layers, projected in 3-D with rotation and zoom).  Ports are
 * coloured through the range of interest, or by job; a route between two
 * nodes is drawn as thick segments.  The animation view of the GUI and of
 * viper-replay --render is this drawing.
 */
#pragma once

#include <cairo.h>
#include "switchnet.h"
#include "paradigms/views.h"

G_BEGIN_DECLS

/* Range classes (space-time rows, legend): none, below, 5 steps from the
 * minimum (blue) to the maximum (red), above. */
enum {
  SWN_CLASS_NONE = 0,
  SWN_CLASS_BELOW,
  SWN_CLASS_MIN,
  SWN_CLASS_MAX = SWN_CLASS_MIN + 4,
  SWN_CLASS_ABOVE,
  SWN_N_CLASSES
};

gint swn_value_class (const SwnInit *init, gint64 v);
gint swn_model_switch_class (const ViperModel *m, guint sw);

/* The animation view of the model's network into [0, w) x [0, h). */
void swn_draw_view (cairo_t *cr, const ViperModel *m, int w, int h);

/* Where the port is drawn in a w x h animation view (planar views and the
 * torus); FALSE when the current view does not show it. */
gboolean swn_port_point (const ViperModel *m, int w, int h, guint sw, guint port, double *x, double *y);
/* The same, with the port disc's radius. */
gboolean swn_port_circle (const ViperModel *m, int w, int h, guint sw, guint port, double *x, double *y, double *r);
/* Centre of the switch in the view; FALSE when not drawn (a blank place, a hidden plane). */
gboolean swn_switch_point (const ViperModel *m, int w, int h, guint sw, double *x, double *y);

G_END_DECLS
