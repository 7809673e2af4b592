/* clc.c - the controlled logical clock with backward amortisation.
 *
 * After the drift map (core/clocksync.c) a few effects may still come before
 * their cause.  Following Becker, Rabenseifner and Wolf ("Timestamp
 * synchronization for event traces of large-scale message-passing
 * applications"), two passes repair them without big jumps.
 *
 * Forward, in a causal order (the order the run transferred the trams), each
 * tram i of a module gets
 *   LC_i = max(t_i, LC_{i-1} + GAMMA (t_i - t_{i-1}), LC_{i-1}, LC(cause))
 * so an effect never precedes its cause.  When the cause pushes it, the
 * interval before it is stretched by E = LC_i - (LC_{i-1} + (t_i - t_{i-1}))
 * (a jump); GAMMA < 1 lets the clock drift back to t afterwards, shrinking
 * each following interval by at most 1 % and never by more than the
 * correction it carries.
 *
 * Backward, per module, each jump is spread over the trams since the
 * previous jump (or the first tram): tram j in that window moves later by
 *   E (t_j - t_k) / (t_i - t_k)
 * so that the one stretched interval becomes many slightly longer ones.  A
 * tram that is a cause may only move up to its earliest effect's clock (the
 * limit taken as a running minimum from the end of the window, so the order
 * within the module is kept).  Every move is later, never earlier, and every
 * tram is visited a constant number of times: O(n).
 */
#include <math.h>
#include <string.h>
#include "clocksync.h"

#define CLC_GAMMA 0.99

typedef struct {
  guint32 proc, index;
  double excess;
} Jump;

/* The clock of tram i of module p lives at lc[p][2 i + 1], set by the
 * caller to its (mapped) time as read, a[p] + b[p] * lc[p][2 i]; cap[p][i]
 * (the earliest clock of its effects) set by the caller to infinity.  One array per module for
 * both, so the drift analysis hands over the array the replay reads
 * (core/clocksync.c) and no copy of the times is made. */
void
viper_clc_apply_mapped (double **lc, const double *a, const double *b, double **cap, const guint *counts,
                        guint n_procs, const ViperClockRef *order, gsize n_order,
                        const ViperClockPair *pairs, gsize n_pairs)
{
#define ORIG(p, i) (a[p] + b[p] * lc[p][2 * (gsize) (i)])
#define LC(p, i) lc[p][2 * (gsize) (i) + 1]
  GArray *jumps = g_array_new (FALSE, FALSE, sizeof (Jump));

  /* forward */
  gsize pc = 0;
  for (gsize k = 0; k < n_order; k++)
    {
      guint32 p = order[k].proc, i = order[k].index;
      if (p >= n_procs || i >= counts[p])
        continue;
      double m = ORIG (p, i);
      double clock = m, natural = m;
      if (i > 0)
        {
          double lprev = LC (p, i - 1), d = m - ORIG (p, i - 1);
          clock = MAX (clock, lprev + CLC_GAMMA * d);
          clock = MAX (clock, lprev);
          natural = lprev + MAX (d, 0.0);
          natural = MAX (natural, m);
        }
      /* pairs come in the order of their effects, each effect at most once */
      if (pc < n_pairs && pairs[pc].effect.proc == p && pairs[pc].effect.index == i)
        {
          const ViperClockRef *c = &pairs[pc].cause;
          pc++;
          if (c->proc < n_procs && c->index < counts[c->proc])
            {
              double lcause = LC (c->proc, c->index);
              if (lcause > clock)
                clock = lcause;
            }
        }
      LC (p, i) = clock;
      if (clock > natural && i > 0)
        {
          Jump j = { p, i, clock - natural };
          g_array_append_val (jumps, j);
        }
    }

  /* earliest effect of each cause */
  for (gsize k = 0; k < n_pairs; k++)
    {
      const ViperClockPair *q = &pairs[k];
      if (q->cause.proc >= n_procs || q->cause.index >= counts[q->cause.proc]
          || q->effect.proc >= n_procs || q->effect.index >= counts[q->effect.proc])
        continue;
      double e = LC (q->effect.proc, q->effect.index);
      double *c = &cap[q->cause.proc][q->cause.index];
      if (e < *c)
        *c = e;
    }

  /* backward amortisation, window by window */
  guint *last_jump = g_new0 (guint, n_procs);
  for (guint k = 0; k < jumps->len; k++)
    {
      const Jump *jp = &g_array_index (jumps, Jump, k);
      guint p = jp->proc, i = jp->index, from = last_jump[p];
      last_jump[p] = i;
      double o_from = ORIG (p, from);
      double span = ORIG (p, i) - o_from;
      if (!(span > 0) || i <= from + 1)
        continue;
      double slack = INFINITY;
      for (guint j = i - 1; j > from; j--)
        {
          double clock = LC (p, j);
          if (cap[p][j] - clock < slack)
            slack = cap[p][j] - clock;
          double ramp = jp->excess * (ORIG (p, j) - o_from) / span;
          double add = MIN (ramp, slack);
          if (add > 0)
            {
              double v = clock + add;
              LC (p, j) = MIN (v, cap[p][j]);
            }
        }
    }
#undef ORIG
#undef LC
  g_free (last_jump);
  g_array_unref (jumps);
}

void
viper_clc_apply (double **times, const guint *counts, guint n_procs,
                 const ViperClockRef *order, gsize n_order,
                 const ViperClockPair *pairs, gsize n_pairs)
{
  double **lc = g_new (double *, n_procs);
  double **cap = g_new (double *, n_procs);
  double *a = g_new0 (double, n_procs + 1);
  double *b = g_new (double, n_procs + 1);
  for (guint p = 0; p < n_procs; p++)
    {
      b[p] = 1;
      lc[p] = g_new (double, 2 * (gsize) counts[p] + 1);
      cap[p] = g_new (double, counts[p] + 1);
      for (guint i = 0; i < counts[p]; i++)
        {
          lc[p][2 * (gsize) i] = times[p][i];
          lc[p][2 * (gsize) i + 1] = a[p] + b[p] * times[p][i];
          cap[p][i] = INFINITY;
        }
    }
  viper_clc_apply_mapped (lc, a, b, cap, counts, n_procs, order, n_order, pairs, n_pairs);
  for (guint p = 0; p < n_procs; p++)
    {
      for (guint i = 0; i < counts[p]; i++)
        times[p][i] = lc[p][2 * (gsize) i + 1];
      g_free (lc[p]);
      g_free (cap[p]);
    }
  g_free (lc);
  g_free (cap);
  g_free (a);
  g_free (b);
}
