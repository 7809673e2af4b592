/* clockfit.h - one line per module pair between the convex hulls of its
 * messages (internal to core/clocksync.c; see its header for the method). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  double x, y;
} ViperClockPt;

typedef struct {
  ViperClockPt *v;
  guint len, cap;
} ViperClockPts;

/* Points of one module pair, both directions, and the line fitted. */
typedef struct {
  guint lo, hi;                         /* proc indices, proc[lo] < proc[hi] */
  ViperClockPts up;                     /* lo -> hi: the line passes below */
  ViperClockPts down;                   /* hi -> lo: the line passes above */
  ViperClockPts sync_up, sync_down;     /* the same from sync samples */
  double alpha, beta, x0;               /* y = alpha + beta (x - x0), x on lo's clock, y on hi's */
  double cost;                          /* uncertainty of the line (tree edge cost) */
  gboolean fitted;
} ViperClockPairFit;

/* Fit the line between the hulls of up (line below) and down (line above);
 * reduces the points to their hulls, shifted by x0. */
void viper_clock_fit_pair (ViperClockPairFit *pd);

G_END_DECLS
