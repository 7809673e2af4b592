/* test-clc - the controlled logical clock on hand-made runs (core/clc.c). */
#include <math.h>
#include "core/clocksync.h"

/* p0: one send at 10.  p1: trams at 0, 1, 2, 3, 4, then the receive at 5
 * (before its send: a violation of 5.001), then 6, 7.  The receive must
 * move to the send's time, the trams before it must share the jump (later,
 * in order, each interval stretched by a part of it), and the trams after
 * it must run on from there without going back in time. */
static void
test_jump_amortised (void)
{
  double p0[] = { 10.001 };
  double p1[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
  double *times[] = { p0, p1 };
  guint counts[] = { 1, 8 };
  ViperClockRef order[] = { { 1, 0 }, { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 0, 0 }, { 1, 5 }, { 1, 6 }, { 1, 7 } };
  ViperClockPair pairs[] = { { { 0, 0 }, { 1, 5 } } };
  viper_clc_apply (times, counts, 2, order, G_N_ELEMENTS (order), pairs, G_N_ELEMENTS (pairs));
  g_assert_cmpfloat (p0[0], ==, 10.001);
  g_assert_cmpfloat (p1[5], >=, p0[0]);
  g_assert_cmpfloat (p1[5], ==, 10.001);
  g_assert_cmpfloat (p1[0], ==, 0);            /* the window's start stays */
  double jump = 10.001 - 5;
  for (guint i = 1; i < 5; i++)
    {
      /* linear share of the jump: (t_i - t_0) / (t_5 - t_0) */
      g_assert_cmpfloat_with_epsilon (p1[i], i + jump * i / 5.0, 1e-9);
      double stretch = (p1[i] - p1[i - 1]) - 1.0;
      g_assert_cmpfloat (stretch, >, 0);
      g_assert_cmpfloat (stretch, <=, jump / 5 + 1e-9);
    }
  for (guint i = 6; i < 8; i++)
    {
      g_assert_cmpfloat (p1[i], >, p1[i - 1]);
      g_assert_cmpfloat (p1[i], >=, i);          /* never before its own stamp */
      g_assert_cmpfloat (p1[i] - p1[i - 1], >=, 0.99 - 1e-12);   /* shrinks at most 1 % */
    }
}

/* A send inside the amortisation window may not pass its own receive. */
static void
test_send_capped (void)
{
  /* p1: 0, 1 (send to p2), 2 .. receive at 4 from p0's send at 9
   * p2: its receive of p1's send at 1.5 */
  double p0[] = { 9 };
  double p1[] = { 0, 1, 2, 3, 4 };
  double p2[] = { 1.5 };
  double *times[] = { p0, p1, p2 };
  guint counts[] = { 1, 5, 1 };
  ViperClockRef order[] = { { 1, 0 }, { 1, 1 }, { 2, 0 }, { 1, 2 }, { 1, 3 }, { 0, 0 }, { 1, 4 } };
  ViperClockPair pairs[] = { { { 1, 1 }, { 2, 0 } }, { { 0, 0 }, { 1, 4 } } };
  viper_clc_apply (times, counts, 3, order, G_N_ELEMENTS (order), pairs, G_N_ELEMENTS (pairs));
  g_assert_cmpfloat (p1[4], ==, 9);
  g_assert_cmpfloat (p1[1], <=, p2[0]);        /* the send stays before its receive */
  g_assert_cmpfloat (p1[1], >=, 1);
  for (guint i = 1; i < 5; i++)
    g_assert_cmpfloat (p1[i], >=, p1[i - 1]);
}

/* Nothing to repair: nothing moves. */
static void
test_consistent_untouched (void)
{
  double p0[] = { 1, 2 };
  double p1[] = { 1.5, 3 };
  double *times[] = { p0, p1 };
  guint counts[] = { 2, 2 };
  ViperClockRef order[] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 } };
  ViperClockPair pairs[] = { { { 0, 0 }, { 1, 0 } }, { { 0, 1 }, { 1, 1 } } };
  viper_clc_apply (times, counts, 2, order, 4, pairs, 2);
  g_assert_cmpfloat (p0[0], ==, 1);
  g_assert_cmpfloat (p0[1], ==, 2);
  g_assert_cmpfloat (p1[0], ==, 1.5);
  g_assert_cmpfloat (p1[1], ==, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/clc/jump-amortised", test_jump_amortised);
  g_test_add_func ("/clc/send-capped", test_send_capped);
  g_test_add_func ("/clc/consistent-untouched", test_consistent_untouched);
  return g_test_run ();
}
