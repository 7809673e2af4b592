/* lights-render.h - drawing cluster lights with cairo (docs/paradigm-lights.md).
 *
 * The ViperRenderer table the generic views use (paradigms/views.h): each
 * node is a load bar in its view setup box, each link an arrow from the
 * views' arrow hook coloured by its rate through the range of interest, the
 * space-time view shows load deciles and link colour changes, the variables
 * view per-node and per-link figures, the program view nodes up / lost and
 * the display latency.  Plain functions here are shared with the tests.
 */
#pragma once

#include <cairo.h>
#include "lights.h"
#include "paradigms/views.h"

G_BEGIN_DECLS

extern const ViperRenderer lights_renderer;

/* The arrow colour of a rate: below / above the range, else dark blue (min)
 * to bright yellow (max), linear. */
ViperColor lights_bw_color (const LightsRange *r, double bw);
/* The bar colour of a load (per mille): green, yellow, red by tenths. */
ViperColor lights_load_color (gint32 load);

/* Where the bar of a node drawn in (x, y, w, h) lies: the filled part grows
 * from the bottom of this rectangle. */
void lights_bar_geometry (double x, double y, double w, double h, double *bx, double *by, double *bw, double *bh);
void lights_draw_bar (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double w, double h,
                      const char *label);

/* The animation view of a model with a view setup (lights-view.c): FALSE
 * without one (the generic view draws it). */
gboolean lights_draw_animation (cairo_t *cr, const ViperModel *m, int width, int height);
/* Drop what the animation view keeps between frames (tests: a picture
 * drawn from nothing to compare a cached one with). */
void lights_view_forget (void);

/* "12.3 MB/s", "512 B/s" */
void lights_format_rate (double bw, char *buf, gsize len);
void lights_format_bytes (guint64 b, char *buf, gsize len);

G_END_DECLS
