/* test-picl-cases.c - the run construction on fixed PICL scenarios: the
 * crossing messages of the thesis's Figures 10/11 with lying time stamps,
 * fed in every interleaving; decay 0 / 0.5 / 1 on a hand-made skewed trace
 * with the numbers worked out by hand; bad lines, real writers' barriers,
 * unmatched receives, message buckets; a barrier over every processor
 * (SUBSET -1) whose members appear late in the file.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "picl-harness.h"

/* ---- the crossing messages of Figures 10/11 ----------------------------------- */

/* P1 (the Slave) sends its request m1 to P0 (the Master); the Master receives
 * it, sends m2 (tag 2) and then the reply m3 (tag 3); the Slave takes m3
 * before m2, so the arrows cross.  The stamps lie twice: the Master's clock
 * says m1 arrived (t=2) before it was sent (t=10), and the Slave says m3
 * arrived at 13, before the Master's corrected send time. */
static const char *const cross_p0[] = {
  "-3 -901 0 0 0 0",
  "-3 -52 1 0 0 3 2 1 1 0",
  "-4 -52 2 0 0 4 2 64 1 1 0",
  "-3 -21 3 0 0 4 2 64 2 1 0",
  "-4 -21 4 0 0 0",
  "-3 -21 7 0 0 4 2 64 3 1 0",
  "-4 -21 8 0 0 0",
  "-4 -901 9 0 0 0",
};
static const char *const cross_p1[] = {
  "-3 -901 0 1 0 0",
  "-3 -21 10 1 0 4 2 64 1 0 0",
  "-4 -21 11 1 0 0",
  "-3 -52 12 1 0 3 2 3 0 0",
  "-4 -52 13 1 0 4 2 64 3 0 0",
  "-3 -52 14 1 0 3 2 2 0 0",
  "-4 -52 15 1 0 4 2 64 2 0 0",
  "-4 -901 16 1 0 0",
};
/* worked out by hand from t' = max(t + offset, t' of predecessors) */
static const double cross_adj_decay1[2][8] = {
  { 0, 1, 10, 11, 12, 15, 16, 17 },       /* P0: offset 8 from m1 on */
  { 0, 10, 11, 12, 15, 16, 17, 18 },      /* P1: offset 2 from m3 on */
};
static const double cross_adj_decay0[2][8] = {
  { 0, 1, 10, 10, 10, 10, 10, 10 },       /* P0: held at 10 by its own predecessors */
  { 0, 10, 11, 12, 13, 14, 15, 16 },      /* P1: no correction needed */
};

static void
run_crossing (double decay, const double expect[2][8])
{
  guint orders = 0;
  for (guint mask = 0; mask < (1u << 16); mask++)
    {
      if (__builtin_popcount (mask) != 8)
        continue;
      orders++;
      Harness h;
      harness_init (&h, decay);
      guint k0 = 0, k1 = 0;
      for (guint b = 0; b < 16; b++)
        harness_feed (&h, (mask >> b) & 1 ? cross_p1[k1++] : cross_p0[k0++]);
      g_assert_cmpuint (h.out->len, ==, 16);
      double adj[2][8];
      gint64 next[2] = { 1, 1 };
      for (guint k = 0; k < h.out->len; k++)
        {
          const Transfer *x = &g_array_index (h.out, Transfer, k);
          g_assert_cmpint (x->seq, ==, next[x->proc]++);
          adj[x->proc][x->seq - 1] = x->adjusted;
        }
      for (int p = 0; p < 2; p++)
        for (int i = 0; i < 8; i++)
          if (adj[p][i] != expect[p][i])
            g_error ("order %#x decay %g: P%d seq %d adjusted %g, expected %g", mask, decay, p, i + 1, adj[p][i],
                     expect[p][i]);
      /* consistent: every receive end after its send */
      g_assert_cmpuint (viper_picl_model_messages (h.model), ==, 3);
      g_assert_cmpuint (h.model->inconsistent, ==, 0);
      /* the arrows, recorded at the send: m2 first */
      const ViperHistoryEntry *m2 = NULL, *m3 = NULL;
      for (guint k = 0; k < h.model->history->len; k++)
        {
          const ViperHistoryEntry *e = &g_array_index (h.model->history, ViperHistoryEntry, k);
          if (e->state != VIPER_PICL_ARROW_MESSAGE || e->module != 0)
            continue;
          g_assert_cmpint (e->other, ==, 1);
          if (!m2)
            m2 = e;
          else
            m3 = e;
        }
      g_assert_nonnull (m2);
      g_assert_nonnull (m3);
      g_assert_cmpfloat (m2->t0, ==, expect[0][3]);
      g_assert_cmpfloat (m3->t0, ==, expect[0][5]);
      g_assert_cmpfloat (m2->t1, ==, expect[1][6]);
      g_assert_cmpfloat (m3->t1, ==, expect[1][4]);
      if (decay == 1.0)
        {
          /* they cross: m2 sent before m3, received after it */
          g_assert_cmpfloat (m2->t0, <, m3->t0);
          g_assert_cmpfloat (m2->t1, >, m3->t1);
          g_assert_cmpfloat (viper_run_offset (h.run, 0), ==, 8);
          g_assert_cmpfloat (viper_run_offset (h.run, 1), ==, 2);
        }
      harness_clear (&h);
    }
  g_assert_cmpuint (orders, ==, 12870);
}

static void
test_crossing_messages (void)
{
  run_crossing (1.0, cross_adj_decay1);
  run_crossing (0.0, cross_adj_decay0);
}

/* ---- decay on a hand-made skewed trace -------------------------------------- */

/* P0 sends at 10; P1 stamps the arrival at 5: P1 runs 5 behind.  P1's later
 * trams are stamped 20 and 30 with nothing forcing them. */
static const char *const skew_lines[] = {
  "-3 -901 0 0 0 0",
  "-3 -21 10 0 0 4 2 8 7 1 0",
  "-4 -21 11 0 0 0",
  "-3 -901 0 1 0 0",
  "-3 -52 1 1 0 3 2 7 0 0",
  "-4 -52 5 1 0 4 2 8 7 0 0",
  "-3 -911 20 1 0 0",
  "-4 -911 30 1 0 0",
};

static void
check_skew (double decay, const double adj[5], const double off[5])
{
  Harness h;
  harness_init (&h, decay);
  /* the receiver first: its arrival must wait for the send */
  for (int i = 3; i < 8; i++)
    harness_feed (&h, skew_lines[i]);
  g_assert_cmpuint (h.out->len, ==, 2);   /* -3 -901 and -3 -52 of P1 */
  for (int i = 0; i < 3; i++)
    harness_feed (&h, skew_lines[i]);
  g_assert_cmpuint (h.out->len, ==, 8);
  guint k1 = 0;
  for (guint k = 0; k < h.out->len; k++)
    {
      const Transfer *x = &g_array_index (h.out, Transfer, k);
      if (x->proc != 1)
        {
          g_assert_cmpfloat (x->adjusted, ==, x->time);  /* P0 is never corrected */
          continue;
        }
      g_assert_cmpfloat (x->adjusted, ==, adj[k1]);
      g_assert_cmpfloat (x->offset_after, ==, off[k1]);
      k1++;
    }
  g_assert_cmpuint (k1, ==, 5);
  g_assert_cmpfloat (viper_run_clock (h.run), ==, adj[4]);
  harness_clear (&h);
}

static void
test_decay (void)
{
  /* decay 1: the offset of 5 found at the arrival stays for good */
  check_skew (1.0, (const double[]) { 0, 1, 10, 25, 35 }, (const double[]) { 0, 0, 5, 5, 5 });
  /* decay 0: back to 0 after every transfer; the arrival alone is lifted */
  check_skew (0.0, (const double[]) { 0, 1, 10, 20, 30 }, (const double[]) { 0, 0, 0, 0, 0 });
  /* decay 0.5: 5 -> 2.5 at once, then halved at every tram */
  check_skew (0.5, (const double[]) { 0, 1, 10, 22.5, 31.25 }, (const double[]) { 0, 0, 2.5, 1.25, 0.625 });
}

/* ---- small rules ------------------------------------------------------------- */

static void
test_table_and_bad_lines (void)
{
  Harness h;
  harness_init (&h, 1.0);
  g_assert_true (viper_paradigm_lookup ("picl") == &viper_picl_paradigm);
  g_assert_false (viper_picl_paradigm.explicit_seq);
  /* every line of spec section 3 has a type */
  static const gint64 known[][2] = {
    { -3, -901 }, { -4, -901 }, { -3, -21 }, { -4, -21 }, { -3, -27 }, { -4, -27 }, { -3, -31 }, { -4, -31 },
    { -3, -52 }, { -4, -52 }, { -3, -57 }, { -4, -57 }, { -3, -61 }, { -4, -61 }, { -202, -812 },
    { -3, -402 }, { -4, -402 }, { -3, -911 }, { -4, -911 },
    /* the collectives of the COMMON contract and the clock-sync sample */
    { -3, -782 }, { -4, -782 }, { -3, -783 }, { -4, -783 }, { -3, -784 }, { -4, -784 }, { -3, -785 }, { -4, -785 },
    { -3, -786 }, { -4, -786 }, { -3, -787 }, { -4, -787 }, { -3, -790 }, { -4, -790 }, { -3, -791 }, { -4, -791 },
    { -3, -792 }, { -4, -792 }, { -6, -951 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    g_assert_cmpuint (viper_paradigm_type_index (&viper_picl_paradigm, known[i][0], known[i][1]), !=,
                      VIPER_TYPE_UNKNOWN);
  g_assert_cmpuint (viper_picl_paradigm.n_types, ==, G_N_ELEMENTS (known));

  /* a send begin without its DEST is bad input; an unknown event is ignored, in order */
  g_assert_false (harness_feed (&h, "-3 -21 1 0 0 2 2 64 1"));
  g_assert_true (harness_feed (&h, "-3 -999 2 0 0 0"));
  g_assert_true (harness_feed (&h, "-3 -911 3 0 0 2 \"%d %s\" 5 hello"));
  /* the same line twice is two trams: implicit numbering is arrival order */
  g_assert_true (harness_feed (&h, "-4 -911 4 0 0 0"));
  g_assert_true (harness_feed (&h, "-4 -911 4 0 0 0"));
  ViperCounts c;
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.read, ==, 5);
  g_assert_cmpuint (c.rejected, ==, 1);
  g_assert_cmpuint (c.transferred, ==, 4);
  g_assert_cmpuint (c.ignored, ==, 1);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (h.bad, ==, 1);
  g_assert_cmpint (g_array_index (h.out, Transfer, 0).seq, ==, 1);
  g_assert_cmpint (g_array_index (h.out, Transfer, 3).seq, ==, 4);
  harness_clear (&h);
}

/* What real writers write (spec section 1): a barrier begin without SUBSET
 * is over all processors, a send without DESTPROCESS goes to process 0.
 * Both are accepted and replayed; a send without DEST is still bad input,
 * with the reason docs/formats.md lists. */
static void
test_real_writers (void)
{
  Harness h;
  harness_init (&h, 1.0);
  g_assert_true (harness_feed (&h, "-3 -901 0 0 0 0"));
  g_assert_true (harness_feed (&h, "-3 -901 0 1 0 0"));
  g_assert_true (harness_feed (&h, "-3 -402 1 0 0 0"));
  g_assert_true (harness_feed (&h, "-3 -402 1 1 0 0"));
  g_assert_true (harness_feed (&h, "-4 -402 2 0 0 0"));
  g_assert_true (harness_feed (&h, "-4 -402 2 1 0 0"));
  g_assert_true (harness_feed (&h, "-3 -27 3 0 0 3 2 64 7 1"));
  g_assert_true (harness_feed (&h, "-4 -27 4 0 0 1 2 0"));
  g_assert_true (harness_feed (&h, "-3 -21 5 0 0 3 2 64 7 1"));
  g_assert_true (harness_feed (&h, "-4 -21 6 0 0 0"));
  g_assert_true (harness_feed (&h, "-3 -52 3 1 0 3 2 7 0 0"));
  g_assert_true (harness_feed (&h, "-4 -52 8 1 0 4 2 64 7 0 0"));
  g_assert_true (harness_feed (&h, "-3 -52 9 1 0 3 2 7 0 0"));
  g_assert_true (harness_feed (&h, "-4 -52 10 1 0 4 2 64 7 0 0"));
  g_assert_false (harness_feed (&h, "-3 -21 11 0 0 2 2 64 7"));
  g_assert_cmpstr (h.last_bad, ==, "gen.trc:15:23: SEND BEGIN needs at least 3 data fields, has 2");
  ViperCounts c;
  /* the barriers name no subset (all processors): they end once every
   * processor is known, at the end of the input */
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 10);
  harness_end (&h);
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.rejected, ==, 1);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (h.bad, ==, 1);
  g_assert_cmpuint (h.model->inconsistent, ==, 0);
  g_assert_cmpuint (viper_picl_model_messages (h.model), ==, 2);
  g_assert_cmpuint (viper_picl_model_received (h.model, 1), ==, 2);
  harness_clear (&h);
}

/* A receive end whose send never comes holds up its processor's tail only. */
static void
test_unmatched_receive (void)
{
  Harness h;
  harness_init (&h, 1.0);
  harness_feed (&h, "-3 -901 0 1 0 0");
  harness_feed (&h, "-3 -52 1 1 0 3 2 4 0 0");
  harness_feed (&h, "-4 -52 2 1 0 4 2 8 4 0 0");
  harness_feed (&h, "-4 -901 3 1 0 0");
  harness_feed (&h, "-3 -901 0 0 0 0");
  harness_feed (&h, "-3 -21 1 0 0 4 2 8 5 1 0");      /* tag 5: not the one P1 waits for */
  harness_feed (&h, "-4 -21 2 0 0 0");
  g_assert_cmpuint (h.out->len, ==, 5);
  GArray *stuck = viper_run_stuck (h.run);
  g_assert_cmpuint (stuck->len, ==, 1);
  const ViperStuck *e = &g_array_index (stuck, ViperStuck, 0);
  g_assert_cmpint (e->proc, ==, 1);
  g_assert_cmpuint (e->trams, ==, 2);
  g_assert_cmpstr (e->waiting_for, ==, "the primitive of RECV END seq 3 of proc 1 (no matching start from proc 0 yet)");
  viper_stuck_array_free (stuck);
  /* the right send arrives late: everything leaves */
  harness_feed (&h, "-3 -21 3 0 0 4 2 8 4 1 0");
  g_assert_cmpuint (h.out->len, ==, 8);
  g_assert_cmpuint (viper_picl_model_messages (h.model), ==, 1);
  g_assert_cmpuint (viper_picl_model_unreceived (h.model), ==, 1);
  harness_clear (&h);
}

/* Fresh tags every message (issue 10 item 20): the run's matching buckets
 * hold what waits, not one per (channel, tag) ever seen. */
static void
test_unique_tags_buckets (void)
{
  Harness h;
  harness_init (&h, 0.5);
  g_assert_true (harness_feed (&h, "-3 -901 0 0 0 0"));
  g_assert_true (harness_feed (&h, "-3 -901 0 1 0 0"));
  char line[128];
  guint most = 0;
  for (int i = 0; i < 20000; i++)
    {
      g_snprintf (line, sizeof line, "-3 -21 %d 0 0 4 2 8 %d 1 0", i + 1, i);
      g_assert_true (harness_feed (&h, line));
      g_snprintf (line, sizeof line, "-4 -21 %d 0 0 0", i + 1);
      g_assert_true (harness_feed (&h, line));
      g_snprintf (line, sizeof line, "-3 -52 %d 1 0 3 2 %d 0 0", i + 1, i);
      g_assert_true (harness_feed (&h, line));
      g_snprintf (line, sizeof line, "-4 -52 %d 1 0 4 2 8 %d 0 0", i + 2, i);
      g_assert_true (harness_feed (&h, line));
      most = MAX (most, viper_run_n_buckets (h.run));
    }
  ViperCounts c;
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (viper_picl_model_messages (h.model), ==, 20000);
  /* a message's bucket leaves once it is matched: a handful at any time */
  g_assert_cmpuint (most, <, 16);
  g_assert_cmpuint (viper_run_n_buckets (h.run), <, 16);
  harness_clear (&h);
}

/* SUBSET -1 is every processor of the run, whatever the line order (spec
 * section 3): P1's clock is ahead and its first line comes after P0's
 * barrier has ended in a time-sorted file, and yet P0's end waits for P1's
 * begin, in every order; until the input ends it waits for that. */
static const char *const skewbar[] = {
  "-3 -901 0 0 0 0",
  "-3 -402 1.0 0 0 1 2 -1",
  "-4 -402 1.1 0 0 0",
  "-3 -901 1.5 1 0 0",
  "-3 -402 2.5 1 0 1 2 -1",
  "-4 -402 2.6 1 0 0",
  "-4 -901 3 0 0 0",
  "-4 -901 4 1 0 0",
};

static void
test_barrier_over_all_late_proc (void)
{
  /* file order; P1's -901 first; grouped by processor, P1 first */
  static const guint orders[3][8] = {
    { 0, 1, 2, 3, 4, 5, 6, 7 },
    { 3, 0, 1, 2, 4, 5, 6, 7 },
    { 3, 4, 5, 7, 0, 1, 2, 6 },
  };
  for (guint o = 0; o < G_N_ELEMENTS (orders); o++)
    {
      Harness h;
      harness_init (&h, 1.0);
      for (guint i = 0; i < G_N_ELEMENTS (skewbar); i++)
        g_assert_true (harness_feed (&h, skewbar[orders[o][i]]));
      /* before the end of the input P0's end waits: a processor may still appear */
      GArray *stuck = viper_run_stuck (h.run);
      gboolean said = FALSE;
      for (guint i = 0; i < stuck->len; i++)
        {
          const ViperStuck *s = &g_array_index (stuck, ViperStuck, i);
          if (s->proc == 0)
            said = strstr (s->waiting_for, "the end of the input") != NULL;
        }
      viper_stuck_array_free (stuck);
      g_assert_true (said);
      harness_end (&h);
      ViperCounts c;
      viper_run_counts (h.run, &c);
      g_assert_cmpuint (c.pending, ==, 0);
      g_assert_cmpuint (h.model->inconsistent, ==, 0);
      /* both barrier ends wait for the later begin, P1's at 2.5 */
      guint ends = 0;
      for (guint i = 0; i < h.out->len; i++)
        {
          const Transfer *t = &g_array_index (h.out, Transfer, i);
          if (t->time == 1.1 || t->time == 2.6)
            {
              g_assert_cmpfloat (t->adjusted, ==, t->proc == 0 ? 2.5 : 2.6);
              ends++;
            }
        }
      g_assert_cmpuint (ends, ==, 2);
      harness_clear (&h);
    }
}

/* Live input: group -1 made final at a pause with the processors heard
 * from (what the scheduler does for a listener: viper_run_modules_known),
 * then a processor heard from only afterwards.  Its first collectives over
 * -1 are the ones done without it; they wait for nobody, and its next one
 * is the next instance, which waits for it.  Before, its first barrier
 * waited for begins that had all been used, and stayed pending. */
static void
test_barrier_over_all_live_late (void)
{
  Harness h;
  harness_init (&h, 1.0);
  for (int p = 0; p < 2; p++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "-3 -901 0 %d 0 0", p);
      g_assert_true (harness_feed (&h, line));
      g_snprintf (line, sizeof line, "-3 -402 1 %d 0 0", p);
      g_assert_true (harness_feed (&h, line));
      g_snprintf (line, sizeof line, "-4 -402 2 %d 0 0", p);
      g_assert_true (harness_feed (&h, line));
    }
  ViperCounts c;
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 2);         /* both barrier ends wait to know everyone */
  g_assert_true (viper_run_wants_modules (h.run));
  GArray *procs = viper_run_procs (h.run);      /* a pause: the ones heard from */
  viper_run_modules_known (h.run, procs);
  viper_model_set_modules (h.model, procs);
  g_array_unref (procs);
  harness_drain (&h);
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_false (viper_run_wants_modules (h.run));
  /* processor 2, late: the same barrier, then a second one that P0 joins */
  static const char *const late[] = {
    "-3 -901 0 2 0 0", "-3 -402 1 2 0 0", "-4 -402 2 2 0 0", "-3 -402 3 2 0 0", "-4 -402 4 2 0 0",
  };
  for (guint i = 0; i < G_N_ELEMENTS (late); i++)
    g_assert_true (harness_feed (&h, late[i]));
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 1);          /* P2's second barrier end waits for P0 and P1 */
  for (int p = 0; p < 2; p++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "-3 -402 3.5 %d 0 0", p);
      g_assert_true (harness_feed (&h, line));
      g_snprintf (line, sizeof line, "-4 -402 5 %d 0 0", p);
      g_assert_true (harness_feed (&h, line));
    }
  harness_end (&h);
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_test_message ("warning: %s", h.last_warning ? h.last_warning : "none");
  g_assert_cmpuint (h.model->inconsistent, ==, 0);
  /* P2's second end left after the last of the three begins */
  const Transfer *last_end = NULL;
  for (guint i = 0; i < h.out->len; i++)
    {
      const Transfer *x = &g_array_index (h.out, Transfer, i);
      if (x->proc == 2 && x->seq == 5)
        last_end = x;
    }
  g_assert_nonnull (last_end);
  g_assert_cmpfloat (last_end->adjusted, >=, 3.5);
  harness_clear (&h);
}

/* What the scheduler does at a pause of live input: when an end over -1 is
 * held up, the modules heard from are all (viper_run_modules_known). */
static void
pause_of_live_input (Harness *h)
{
  if (!viper_run_end_waits_for_modules (h->run))
    return;
  GArray *procs = viper_run_procs (h->run);
  viper_run_modules_known (h->run, procs);
  viper_model_set_modules (h->model, procs);
  g_array_unref (procs);
  harness_drain (h);
}

static void
feed_all (Harness *h, const char *const *lines, guint n)
{
  for (guint i = 0; i < n; i++)
    g_assert_true (harness_feed (h, lines[i]));
}

/* A late processor whose begin comes after the pause that made -1 final,
 * and the ends of the others after it: they do not wait for its begin (it
 * is no member of that instance), and the next barrier is everyone's.
 * Before, they waited for it for ever (a live session deadlocked). */
static void
test_barrier_over_all_live_late_between (void)
{
  Harness h;
  harness_init (&h, 1.0);
  static const char *const first[] = {
    "-3 -901 0 0 0 0", "-3 -901 0 1 0 0", "-3 -402 1.0 0 -1 0", "-3 -402 1.1 1 -1 0", "-4 -402 1.6 0 -1 0",
  };
  feed_all (&h, first, G_N_ELEMENTS (first));
  pause_of_live_input (&h);                    /* P0's end waits: {0, 1} are all */
  static const char *const second[] = {
    "-3 -901 0 2 0 0", "-3 -402 1.5 2 -1 0",    /* P2, late: its barrier 1 was done without it */
    "-4 -402 1.6 1 -1 0", "-4 -402 1.6 2 -1 0",
    "-3 -402 2.0 0 -1 0", "-3 -402 2.1 1 -1 0", "-3 -402 2.2 2 -1 0",
    "-4 -402 2.5 0 -1 0", "-4 -402 2.5 1 -1 0", "-4 -402 2.5 2 -1 0",
    "-4 -901 3 0 0 0", "-4 -901 3 1 0 0", "-4 -901 3 2 0 0",
  };
  feed_all (&h, second, G_N_ELEMENTS (second));
  pause_of_live_input (&h);
  ViperCounts c;
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (h.model->inconsistent, ==, 0);
  harness_clear (&h);
}

/* A pause with begins over -1 read but no end held up changes nothing: a
 * processor a few lines behind (its first line after the pause) is a member
 * like the others (the trial's live2b). */
static void
test_barrier_over_all_live_pause_before_ends (void)
{
  Harness h;
  harness_init (&h, 1.0);
  static const char *const first[] = { "-3 -901 0 0 0 0", "-3 -901 0 1 0 0", "-3 -402 1.0 0 -1 0",
                                       "-3 -402 1.1 1 -1 0" };
  feed_all (&h, first, G_N_ELEMENTS (first));
  g_assert_true (viper_run_wants_modules (h.run));
  g_assert_false (viper_run_end_waits_for_modules (h.run));
  pause_of_live_input (&h);
  static const char *const second[] = {
    "-3 -901 0 2 0 0", "-3 -402 1.5 2 -1 0",
    "-4 -402 1.6 0 -1 0", "-4 -402 1.6 1 -1 0", "-4 -402 1.6 2 -1 0",
  };
  feed_all (&h, second, G_N_ELEMENTS (second));
  pause_of_live_input (&h);                    /* now {0, 1, 2} */
  ViperCounts c;
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (h.model->inconsistent, ==, 0);
  /* every end left after the latest begin, P2's at 1.5 */
  for (guint i = 0; i < h.out->len; i++)
    {
      const Transfer *x = &g_array_index (h.out, Transfer, i);
      if (x->seq == 3)
        g_assert_cmpfloat (x->adjusted, >=, 1.5);
    }
  harness_clear (&h);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/picl/run/table-and-bad-lines", test_table_and_bad_lines);
  g_test_add_func ("/picl/run/unmatched-receive", test_unmatched_receive);
  g_test_add_func ("/picl/run/real-writers", test_real_writers);
  g_test_add_func ("/picl/run/decay", test_decay);
  g_test_add_func ("/picl/run/crossing-messages", test_crossing_messages);
  g_test_add_func ("/picl/run/unique-tags-buckets", test_unique_tags_buckets);
  g_test_add_func ("/picl/run/barrier-over-all-late-proc", test_barrier_over_all_late_proc);
  g_test_add_func ("/picl/run/barrier-over-all-live-late", test_barrier_over_all_live_late);
  g_test_add_func ("/picl/run/barrier-over-all-live-late-between", test_barrier_over_all_live_late_between);
  g_test_add_func ("/picl/run/barrier-over-all-live-pause-before-ends",
                   test_barrier_over_all_live_pause_before_ends);
  return g_test_run ();
}
