/* test-channels.c - ViperChannels: names by id, and the implicit sequence
 * numbers of native PICL traces (spec picl.md section 2): 1, 2, ... per
 * (channel, proc), independent across channels and procs, restarted by
 * reset_seq(). */
#include "core/source.h"

static void
test_names (void)
{
  ViperChannels *c = viper_channels_new ();

  g_assert_cmpuint (viper_channels_count (c), ==, 0);
  g_assert_null (viper_channels_name (c, 0));
  g_assert_cmpuint (viper_channels_add (c, "a.trace"), ==, 0);
  g_assert_cmpuint (viper_channels_add (c, "tcp:127.0.0.1:7405#1"), ==, 1);
  g_assert_cmpuint (viper_channels_count (c), ==, 2);
  g_assert_cmpstr (viper_channels_name (c, 0), ==, "a.trace");
  g_assert_cmpstr (viper_channels_name (c, 1), ==, "tcp:127.0.0.1:7405#1");
  g_assert_null (viper_channels_name (c, 2));
  viper_channels_free (c);
}

static void
test_seq (void)
{
  ViperChannels *c = viper_channels_new ();
  guint32 a = viper_channels_add (c, "a"), b = viper_channels_add (c, "b");

  g_assert_cmpint (viper_channels_next_seq (c, a, 0), ==, 1);
  g_assert_cmpint (viper_channels_next_seq (c, a, 0), ==, 2);
  g_assert_cmpint (viper_channels_next_seq (c, a, -1), ==, 1);
  g_assert_cmpint (viper_channels_next_seq (c, b, 0), ==, 1);   /* other channel, same proc */
  g_assert_cmpint (viper_channels_next_seq (c, a, 0), ==, 3);
  g_assert_cmpint (viper_channels_next_seq (c, b, 0), ==, 2);
  g_assert_cmpint (viper_channels_next_seq (c, a, G_MAXINT64), ==, 1);
  g_assert_cmpint (viper_channels_next_seq (c, a, G_MININT64), ==, 1);

  /* Many interleaved procs: each counts on its own. */
  for (int round = 1; round <= 5; round++)
    for (gint64 p = 100; p < 1100; p++)
      g_assert_cmpint (viper_channels_next_seq (c, (guint32) (p & 1), p), ==, round);

  /* Global records (PROC -1) count over all channels: every MPI rank's
   * file may carry a copy of the same subset definition. */
  viper_channels_reset_seq (c);
  g_assert_cmpint (viper_channels_next_seq (c, a, -1), ==, 1);
  g_assert_cmpint (viper_channels_next_seq (c, b, -1), ==, 2);
  g_assert_cmpint (viper_channels_next_seq (c, a, -1), ==, 3);
  g_assert_cmpint (viper_channels_next_seq (c, 100, -1), ==, 4);

  viper_channels_reset_seq (c);
  g_assert_cmpint (viper_channels_next_seq (c, a, 0), ==, 1);
  g_assert_cmpint (viper_channels_next_seq (c, b, 0), ==, 1);
  g_assert_cmpint (viper_channels_next_seq (c, a, 0), ==, 2);
  /* Names survive a reset of the counters. */
  g_assert_cmpstr (viper_channels_name (c, b), ==, "b");
  viper_channels_free (c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/channels/names", test_names);
  g_test_add_func ("/channels/seq", test_seq);
  return g_test_run ();
}
