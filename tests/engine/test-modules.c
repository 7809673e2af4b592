/* test-modules.c - every module learnt ahead for a collective over every
 * processor (SUBSET -1, core/scheduler-modules.c), through the scheduler:
 * the files are read again on a thread while the engine waits
 * (VIPER_STOP_WAITING, the main loop going on), then the replay goes on to
 * the state a replay that waited for the end of the input reaches; a reset
 * while the thread reads stops it, and the replay after it is whole. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "core/stateout.h"
#include "paradigms/paradigms.h"
#include "pipe-fx.h"

/* Processors 0..n-1: tracing starts, a barrier over -1 (no SUBSET), then
 * `after` ignored events each; processor n-1's lines last in the file. */
static char *
write_trace (int n, int after)
{
  GString *t = g_string_new (NULL);
  for (int p = 0; p < n; p++)
    {
      g_string_append_printf (t, "-3 -901 0.0 %d 0 0\n-3 -402 0.001 %d 0 0\n-4 -402 0.002 %d 0 0\n", p, p, p);
      for (int i = 0; i < after; i++)
        g_string_append_printf (t, "-5 -77 %.6f %d 0 0\n", 0.003 + i * 1e-4, p);
    }
  char *path = engine_fx_write_trace (t->str, (gssize) t->len);
  g_string_free (t, TRUE);
  return path;
}

/* Pump until the end, iterating the main context while the engine waits
 * (at most `rounds` waits, each at most a second: nothing sleeps). */
static ViperStopReason
run_to_end (EnginePipe *x, guint *waits, guint rounds)
{
  *waits = 0;
  for (guint k = 0; k < 100000; k++)
    {
      ViperStopReason r = viper_scheduler_pump (x->s, 256);
      if (r == VIPER_STOP_WAITING)
        {
          g_assert_cmpuint (++*waits, <=, rounds);
          g_main_context_iteration (NULL, TRUE);   /* the reading's poll wakes it */
          continue;
        }
      if (r != VIPER_STOP_NONE)
        return r;
    }
  g_assert_not_reached ();
}

static void
test_waits_then_goes_on (void)
{
  char *path = write_trace (4, 2000);
  EnginePipe x;
  engine_pipe_open (&x, path, NAN, NULL, NULL);
  viper_scheduler_go (x.s);
  guint waits;
  g_assert_cmpint (run_to_end (&x, &waits, 10000), ==, VIPER_STOP_END);
  g_assert_cmpuint (waits, >=, 1);          /* the engine waited for the reading at least once */
  ViperCounts c;
  viper_run_counts (x.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (c.transferred, ==, 4 * (3 + 2000));
  char *got = viper_state_to_json (x.run, x.m, TRUE);
  engine_pipe_close (&x);

  /* the same replay waiting for the end of the input: the same state (the
   * processors learnt ahead are those the end gives).  A FIFO cannot be
   * read twice: give the file through one. */
  char *fifo = g_strconcat (path, ".fifo", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  GPid pid;
  char *argv[] = { "/bin/sh", "-c", "exec cat \"$0\" > \"$1\"", path, fifo, NULL };
  g_assert_true (g_spawn_async (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &pid, NULL));
  engine_pipe_open (&x, fifo, NAN, NULL, NULL);
  viper_scheduler_go (x.s);
  g_assert_cmpint (run_to_end (&x, &waits, 100000), ==, VIPER_STOP_END);
  char *want = viper_state_to_json (x.run, x.m, TRUE);
  g_assert_cmpstr (got, ==, want);
  engine_pipe_close (&x);
  g_spawn_close_pid (pid);
  g_unlink (fifo);
  g_free (fifo);
  g_free (got);
  g_free (want);
  g_unlink (path);
  g_free (path);
}

/* Go, and pump until the engine waits for the reading of the files. */
static void
go_until_reading (EnginePipe *x)
{
  viper_scheduler_go (x->s);
  ViperStopReason r;
  guint k = 0;
  while ((r = viper_scheduler_pump (x->s, 256)) == VIPER_STOP_NONE && k++ < 1000)
    ;
  g_assert_cmpint (r, ==, VIPER_STOP_WAITING);
}

/* A reset while the files are read (the GUI's rewind, or a new Go): the
 * thread stops, and the replay after the reset is whole. */
static void
test_reset_while_reading (void)
{
  char *path = write_trace (4, 20000);
  EnginePipe x;
  engine_pipe_open (&x, path, NAN, NULL, NULL);
  go_until_reading (&x);       /* the barrier's end: the files are read ahead */
  g_assert_true (viper_scheduler_reset (x.s, NULL));
  viper_scheduler_go (x.s);
  guint waits;
  g_assert_cmpint (run_to_end (&x, &waits, 100000), ==, VIPER_STOP_END);
  ViperCounts c;
  viper_run_counts (x.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (c.transferred, ==, 4 * (3 + 20000));
  engine_pipe_close (&x);      /* and freeing while nothing reads */
  /* freeing while it reads */
  engine_pipe_open (&x, path, NAN, NULL, NULL);
  go_until_reading (&x);
  engine_pipe_close (&x);
  g_unlink (path);
  g_free (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  viper_paradigms_register_all ();
  g_test_add_func ("/modules/waits-then-goes-on", test_waits_then_goes_on);
  g_test_add_func ("/modules/reset-while-reading", test_reset_while_reading);
  return g_test_run ();
}
