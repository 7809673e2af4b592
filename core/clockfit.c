/* clockfit.c - fitting one module pair's line (core/clocksync.c explains
 * the method: the gap between the two facing convex hulls is concave in the
 * slope; golden section for its top, bisection for the feasible interval's
 * ends, the middle slope of that interval). */
#include <math.h>
#include <stdlib.h>
#include "clockfit.h"

#define BETA_RANGE 0.05                 /* search slopes within +-5 % (50,000 ppm) */

/* ---- fitting one pair ------------------------------------------------------ */

static gint
cmp_pt (gconstpointer a, gconstpointer b)
{
  const ViperClockPt *p = a, *q = b;
  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return (p->y > q->y) - (p->y < q->y);
}

static double
cross (ViperClockPt o, ViperClockPt a, ViperClockPt b)
{
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Lower (lower=TRUE) or upper convex hull of pts, in place; returns its size.
 * Points shifted by x0 first. */
static guint
hull (ViperClockPts *pts, double x0, gboolean lower)
{
  ViperClockPt *p = pts->v;
  guint n = pts->len;
  gboolean sorted = TRUE;
  for (guint i = 0; i < n; i++)
    {
      p[i].x -= x0;
      if (i && cmp_pt (&p[i - 1], &p[i]) > 0)
        sorted = FALSE;
    }
  if (!sorted)
    qsort (p, n, sizeof *p, cmp_pt);
  guint k = 0;
  for (guint i = 0; i < n; i++)
    {
      while (k >= 2 && (lower ? cross (p[k - 2], p[k - 1], p[i]) <= 0 : cross (p[k - 2], p[k - 1], p[i]) >= 0))
        k--;
      p[k++] = p[i];
    }
  pts->len = k;
  return k;
}

static double
min_resid (const ViperClockPts *pts, double beta)
{
  double m = INFINITY;
  for (guint i = 0; i < pts->len; i++)
    {
      const ViperClockPt *p = &pts->v[i];
      double r = p->y - beta * p->x;
      if (r < m)
        m = r;
    }
  return m;
}

static double
max_resid (const ViperClockPts *pts, double beta)
{
  double m = -INFINITY;
  for (guint i = 0; i < pts->len; i++)
    {
      const ViperClockPt *p = &pts->v[i];
      double r = p->y - beta * p->x;
      if (r > m)
        m = r;
    }
  return m;
}

static double
margin (const ViperClockPts *up, const ViperClockPts *down, double beta)
{
  return min_resid (up, beta) - max_resid (down, beta);
}

/* Fit y = alpha + beta (x - x0) between the hulls of up (line below) and
 * down (line above). */
void
viper_clock_fit_pair (ViperClockPairFit *pd)
{
  gboolean sync = pd->sync_up.len || pd->sync_down.len;
  ViperClockPts *up = sync ? &pd->sync_up : &pd->up;
  ViperClockPts *down = sync ? &pd->sync_down : &pd->down;
  double sx = 0;
  guint n = 0;
  for (guint i = 0; i < up->len; i++, n++)
    sx += up->v[i].x;
  for (guint i = 0; i < down->len; i++, n++)
    sx += down->v[i].x;
  pd->x0 = n ? sx / n : 0;
  pd->beta = 1;
  pd->fitted = TRUE;
  if (!up->len && !down->len)
    {
      pd->alpha = 0;
      pd->fitted = FALSE;
      return;
    }
  double xmin = INFINITY, xmax = -INFINITY;
  for (guint s = 0; s < 2; s++)
    for (guint i = 0; i < (s ? down : up)->len; i++)
      {
        double x = (s ? down : up)->v[i].x;
        xmin = MIN (xmin, x);
        xmax = MAX (xmax, x);
      }
  double half_span = (xmax - xmin) / 2;
  /* one way only: usable, but only where nothing better links the pair */
  pd->cost = 1e6 / (double) (up->len + down->len);
  hull (up, pd->x0, TRUE);
  hull (down, pd->x0, FALSE);
  if (!down->len)
    {
      pd->alpha = min_resid (up, 1);     /* one way: just keep them causal */
      return;
    }
  if (!up->len)
    {
      pd->alpha = max_resid (down, 1);
      return;
    }
  /* golden section on the concave F */
  double lo = 1 - BETA_RANGE, hi = 1 + BETA_RANGE;
  const double g = 0.6180339887498949;
  double b1 = hi - g * (hi - lo), b2 = lo + g * (hi - lo);
  double f1 = min_resid (up, b1) - max_resid (down, b1);
  double f2 = min_resid (up, b2) - max_resid (down, b2);
  for (int it = 0; it < 200 && hi - lo > 1e-15; it++)
    {
      if (f1 < f2)
        {
          lo = b1;
          b1 = b2;
          f1 = f2;
          b2 = lo + g * (hi - lo);
          f2 = min_resid (up, b2) - max_resid (down, b2);
        }
      else
        {
          hi = b2;
          b2 = b1;
          f2 = f1;
          b1 = hi - g * (hi - lo);
          f1 = min_resid (up, b1) - max_resid (down, b1);
        }
    }
  double best = (lo + hi) / 2;
  /* Every slope with F >= 0 keeps all messages causal.  Take the middle of
   * that interval (Duda et al.): where the two clouds do not interleave in
   * time, F grows with the tilt up to the search bound, and the largest
   * margin would be an artefact.  With no feasible slope (noise), the best
   * margin. */
  if (margin (up, down, best) >= 0)
    {
      double l = 1 - BETA_RANGE, r = best;
      if (margin (up, down, l) < 0)
        for (int it = 0; it < 100 && r - l > 1e-15; it++)
          {
            double m = (l + r) / 2;
            if (margin (up, down, m) >= 0)
              r = m;
            else
              l = m;
          }
      /* an end the data do not bound is the search limit, not the top of F
       * (samples close together in time leave F flat or peaked anywhere) */
      gboolean lo_bound = margin (up, down, 1 - BETA_RANGE) < 0;
      double b_lo = lo_bound ? r : 1 - BETA_RANGE;
      l = best;
      r = 1 + BETA_RANGE;
      gboolean hi_bound = margin (up, down, r) < 0;
      if (hi_bound)
        for (int it = 0; it < 100 && r - l > 1e-15; it++)
          {
            double m = (l + r) / 2;
            if (margin (up, down, m) >= 0)
              l = m;
            else
              r = m;
          }
      double b_hi = hi_bound ? l : 1 + BETA_RANGE;
      /* an end the data do not bound is only the search limit: then take
       * the feasible slope closest to 1 (clocks drift little) */
      if (lo_bound && hi_bound)
        best = (b_lo + b_hi) / 2;
      else
        best = CLAMP (1.0, b_lo, b_hi);
      /* how far the line may be off: half the gap, plus the slope's freedom
       * over the pair's time span */
      pd->cost = margin (up, down, best) / 2 + (b_hi - b_lo) / 2 * half_span;
    }
  else
    pd->cost = -margin (up, down, best) / 2 + BETA_RANGE * half_span;
  pd->beta = best;
  pd->alpha = (min_resid (up, pd->beta) + max_resid (down, pd->beta)) / 2;
}

