/* test-clock-keep - the trams --clock=drift|clc keeps in memory play back
 * exactly as the file would be read again (core/clockkeep.c).
 *
 * A PICL trace with bad lines, comments, CRLF, a line in non-canonical form,
 * a line longer than VIPER_MAX_LINE and no final newline is analysed; then the
 * source the replay would use (viper_clock_sync_source_new) and a fresh file
 * source over the same file are drained side by side.  At every call the two
 * must agree: pending(), every field of the tram, its data and text, the
 * counters (lines read, rejected, bytes) and the diagnostics reported so far.
 * After a reset the played-back source must deliver it all again; with a bound
 * of 0 or one the trams pass, the replay's source must be the file again.
 */
#include <string.h>
#include <glib/gstdio.h>
#include "core/clocksync.h"
#include "paradigms/paradigms.h"
#include "tests/common/test-tram.h"

typedef struct {
  GString *log;
} Sink;

static void
sink_fn (ViperDiagKind kind, const char *message, gpointer data)
{
  Sink *s = data;
  g_string_append_printf (s->log, "%d %s\n", (int) kind, message);
}

static char *
write_trace (const char *dir)
{
  GString *t = g_string_new ("# a trace with everything a file source reports\n");
  for (int p = 0; p < 4; p++)
    g_string_append_printf (t, "-3 -901 0.%03d %d 0 0\n", p, p);
  for (int i = 0; i < 300; i++)
    {
      int from = i % 4, to = (i + 1) % 4;
      double ts = 0.01 + i * 0.001, tr = ts + (i % 7 == 0 ? -0.0005 : 0.0003);
      g_string_append_printf (t, "-3 -21 %.6f %d 0 4 2 8 %d %d 0\n", ts, from, i % 3, to);
      g_string_append_printf (t, "-4 -21 %.6f %d 0 0\n", ts + 0.00001, from);
      g_string_append_printf (t, i % 11 == 0 ? "-3  -52 %.6f %d 0 0\r\n" : "-3 -52 %.6f %d 0 0\n", tr, to);
      g_string_append_printf (t, "-4 -52 %.6f %d 0 3 2 8 %d %d\n", tr + 0.00001, to, i % 3, from);
      if (i % 50 == 7)
        g_string_append (t, "this is not a tram\n# comment\n\n");
      if (i == 120)
        {
          g_string_append (t, "-3 -21 1.0 0 0 1 2 ");
          for (int k = 0; k < VIPER_MAX_LINE / 2 + 10; k++)
            g_string_append (t, "7 ");
          g_string_append (t, "\n");
        }
    }
  for (int p = 0; p < 4; p++)
    g_string_append_printf (t, "-4 -901 9.%03d %d 0 0%s", p, p, p == 3 ? "" : "\n");
  char *path = g_build_filename (dir, "keep.trc", NULL);
  g_assert_true (g_file_set_contents (path, t->str, (gssize) t->len, NULL));
  g_string_free (t, TRUE);
  return path;
}

static void
assert_same_tram (const ViperTram *a, const ViperTram *b)
{
  test_assert_same_tram (a, b);
  g_assert_cmpuint (a->state, ==, b->state);
  g_assert_cmpuint (a->waits, ==, b->waits);
}

/* Drain both, call by call; returns the trams delivered. */
static guint
drain_side_by_side (ViperTramSource *kept, Sink *ks, ViperTramSource *file, Sink *fs, ViperTramPool *pool)
{
  guint n = 0;
  for (guint guard = 0; guard < 100000; guard++)
    {
      gboolean pk = viper_tram_pending (kept), pf = viper_tram_pending (file);
      g_assert_cmpint (pk, ==, pf);
      g_assert_cmpstr (ks->log->str, ==, fs->log->str);
      g_assert_cmpuint (kept->lines_read, ==, file->lines_read);
      g_assert_cmpuint (kept->lines_bad, ==, file->lines_bad);
      g_assert_cmpuint (kept->bytes_read, ==, file->bytes_read);
      g_assert_cmpint (viper_tram_source_at_end (kept), ==, viper_tram_source_at_end (file));
      if (!pk)
        {
          g_assert_true (viper_tram_source_at_end (kept));
          return n;
        }
      ViperTram *a = viper_get_tram (kept), *b = viper_get_tram (file);
      g_assert_nonnull (a);
      g_assert_nonnull (b);
      assert_same_tram (a, b);
      viper_tram_pool_release (pool, a);
      viper_tram_pool_release (pool, b);
      n++;
    }
  g_assert_not_reached ();
  return n;
}

static ViperClockSync *
analyse (const char *path, ViperClockMode mode, gsize limit)
{
  const char *paths[] = { path, NULL };
  GError *error = NULL;
  ViperClockSync *cs = viper_clock_sync_analyse_keep (mode, viper_paradigm_lookup ("picl"), NULL, paths, limit, &error);
  g_assert_no_error (error);
  g_assert_nonnull (cs);
  return cs;
}

static void
test_playback (void)
{
  char *dir = g_dir_make_tmp ("viper-keep-XXXXXX", NULL);
  char *path = write_trace (dir);
  for (int mode = VIPER_CLOCK_DRIFT; mode <= VIPER_CLOCK_CLC; mode++)
    {
      ViperClockSync *cs = analyse (path, (ViperClockMode) mode, VIPER_CLOCK_KEEP_DEFAULT);
      g_assert_true (viper_clock_sync_kept (cs));
      g_assert_false (viper_clock_sync_keep_hit_bound (cs));
      g_assert_cmpuint (viper_clock_sync_kept_bytes (cs), >, 0);
      ViperTramPool *pool = viper_tram_pool_new ();
      ViperChannels *ck = viper_channels_new (), *cf = viper_channels_new ();
      Sink ks = { g_string_new (NULL) }, fs = { g_string_new (NULL) };
      ViperDiag dk, df;
      viper_diag_init (&dk, sink_fn, &ks);
      viper_diag_init (&df, sink_fn, &fs);
      GError *error = NULL;
      ViperTramSource *kept = viper_clock_sync_source_new (cs, 0, pool, &dk, ck, &error);
      g_assert_no_error (error);
      ViperTramSource *file = viper_file_source_new (path, pool, &df, cf, &error);
      g_assert_no_error (error);
      /* played back, not read: the file source's kind reads a file, this one does not */
      g_assert_true (kept->klass != file->klass);
      guint n = drain_side_by_side (kept, &ks, file, &fs, pool);
      g_assert_cmpuint (n, ==, 8 + 4 * 300);
      g_assert_cmpuint (dk.bad, ==, 6 + 1);            /* six "not a tram", the long line */
      g_assert_nonnull (strstr (ks.log->str, "longer than"));
      g_assert_nonnull (strstr (ks.log->str, "end of trace"));
      /* rewound (the GUI's Reset): everything again */
      g_assert_true (viper_tram_source_reset (kept, &error));
      g_assert_true (viper_tram_source_reset (file, &error));
      g_string_truncate (ks.log, 0);
      g_string_truncate (fs.log, 0);
      g_assert_cmpuint (drain_side_by_side (kept, &ks, file, &fs, pool), ==, n);
      /* a reset half way, then freed with a tram queued (no leak) */
      g_assert_true (viper_tram_source_reset (kept, &error));
      g_assert_true (viper_tram_pending (kept));
      viper_tram_source_free (kept);
      viper_tram_source_free (file);
      g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
      viper_diag_clear (&dk);
      viper_diag_clear (&df);
      g_string_free (ks.log, TRUE);
      g_string_free (fs.log, TRUE);
      viper_channels_free (ck);
      viper_channels_free (cf);
      viper_tram_pool_free (pool);
      viper_clock_sync_free (cs);
    }
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

/* A bound of 0, or one the trams pass: nothing is kept, the file is read again. */
static void
test_bound (void)
{
  char *dir = g_dir_make_tmp ("viper-keep-XXXXXX", NULL);
  char *path = write_trace (dir);
  ViperClockSync *whole = analyse (path, VIPER_CLOCK_CLC, VIPER_CLOCK_KEEP_DEFAULT);
  gsize need = viper_clock_sync_kept_bytes (whole);
  const gsize limits[] = { 0, need / 2 };
  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      ViperClockSync *cs = analyse (path, VIPER_CLOCK_CLC, limits[i]);
      g_assert_false (viper_clock_sync_kept (cs));
      g_assert_cmpint (viper_clock_sync_keep_hit_bound (cs), ==, limits[i] > 0);
      g_assert_cmpuint (viper_clock_sync_kept_bytes (cs), ==, 0);
      /* the estimate does not depend on what was kept */
      g_assert_cmpuint (viper_clock_sync_n_procs (cs), ==, viper_clock_sync_n_procs (whole));
      for (guint p = 0; p < viper_clock_sync_n_procs (cs); p++)
        {
          g_assert_cmpfloat (viper_clock_sync_proc (cs, p)->offset, ==, viper_clock_sync_proc (whole, p)->offset);
          g_assert_cmpfloat (viper_clock_sync_proc (cs, p)->drift_ppm, ==, viper_clock_sync_proc (whole, p)->drift_ppm);
        }
      ViperTramPool *pool = viper_tram_pool_new ();
      ViperChannels *ch = viper_channels_new ();
      ViperDiag d;
      viper_diag_init (&d, NULL, NULL);
      GError *error = NULL;
      ViperTramSource *src = viper_clock_sync_source_new (cs, 0, pool, &d, ch, &error);
      g_assert_no_error (error);
      ViperTramSource *file = viper_file_source_new (path, pool, &d, ch, &error);
      g_assert_true (src->klass == file->klass);    /* the file again */
      viper_tram_source_free (src);
      viper_tram_source_free (file);
      viper_diag_clear (&d);
      viper_channels_free (ch);
      viper_tram_pool_free (pool);
      viper_clock_sync_free (cs);
    }
  viper_clock_sync_free (whole);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  viper_paradigms_register_all ();
  g_test_add_func ("/clock/keep/playback", test_playback);
  g_test_add_func ("/clock/keep/bound", test_bound);
  return g_test_run ();
}
