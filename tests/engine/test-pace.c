/* test-pace.c - the scheduler's replay speed (issue 13).
 *
 * Inside a main context, RUNNING at speed S moves the clock at most S trace
 * time units per wall second: every transferred tram's adjusted time stays
 * within S x (time since Go) of the first one's, so a trace spanning T takes
 * at least T / S seconds; a breakpoint turns it into a fast-forward, and the
 * headless viper_scheduler_run() ignores the speed.  The bounds are lower
 * bounds on elapsed time, which hold however slow the machine is.
 * A deadline (viper_scheduler_set_deadline, the GUI's next frame) ends an
 * idle dispatch: one already passed lets it do one batch of steps, one
 * ahead keeps it going until then, and the least time it is given holds
 * even when the deadline has passed.
 */
#include <math.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "pipe-fx.h"

typedef struct {
  gint64 go;
  double first, speed;
  guint n, late;
} Watch;

static void
hook (const ViperTram *t, gboolean changed, gpointer data)
{
  (void) changed;
  Watch *w = data;
  double since = (double) (g_get_monotonic_time () - w->go) / 1e6;
  if (w->n++ == 0)
    w->first = t->adjusted;
  else if (w->speed > 0 && t->adjusted - w->first > w->speed * since + 1e-9)
    w->late++;   /* the clock ran ahead of the pace */
}

/* Write text to a temporary trace file; returns its path. */
static char *
write_trace (const char *text)
{
  return engine_fx_write_trace (text, -1);
}

static char *
trace (void)
{
  /* processor 0 starts and stops tracing ten times, 0.03 s apart: 0.27 s in all */
  GString *s = g_string_new (NULL);
  for (int i = 0; i < 10; i++)
    g_string_append_printf (s, "-3 -901 %.2f 0 0 0\n", i * 0.03);
  char *path = write_trace (s->str);
  g_string_free (s, TRUE);
  return path;
}

/* A picl replay of one file: the engine's parts, set up and torn down together. */
typedef EnginePipe Rig;

static void
rig_open (Rig *r, const char *path, gboolean attach)
{
  engine_pipe_open (r, path, NAN, NULL, NULL);
  if (attach)
    viper_scheduler_attach (r->s, NULL);
}

static void
rig_close (Rig *r)
{
  engine_pipe_close (r);
}

/* Replay the trace in the default main context at `speed` (breakpoint bp);
 * returns the seconds it took, and the watch. */
static double
play (const char *path, double speed, double bp, gboolean headless, Watch *w)
{
  Rig r;
  rig_open (&r, path, !headless);
  ViperScheduler *s = r.s;
  viper_scheduler_set_speed (s, speed);
  g_assert_cmpfloat (viper_scheduler_speed (s), ==, speed);
  viper_scheduler_set_breakpoint (s, bp);
  *w = (Watch) { g_get_monotonic_time (), 0, speed, 0, 0 };
  viper_scheduler_add_hook (s, hook, w);
  gint64 t0 = g_get_monotonic_time ();
  if (headless)
    viper_scheduler_run (s);
  else
    {
      viper_scheduler_go (s);
      /* bounded: the replay takes 0.27 s at speed 1; give it 60 s */
      gint64 deadline = t0 + 60 * G_USEC_PER_SEC;
      while (viper_scheduler_state (s) != VIPER_SCHED_IDLE && g_get_monotonic_time () < deadline)
        g_main_context_iteration (NULL, TRUE);
    }
  double took = (double) (g_get_monotonic_time () - t0) / 1e6;
  g_assert_cmpint (viper_scheduler_last_stop (s), ==, VIPER_STOP_END);
  g_assert_cmpuint (r.m->applied, ==, 10);
  rig_close (&r);
  return took;
}

static void
test_speed (void)
{
  char *path = trace ();
  Watch w;
  double took = play (path, 1.0, NAN, FALSE, &w);
  g_assert_cmpuint (w.late, ==, 0);
  g_assert_cmpfloat (took, >=, 0.27 * 0.98);
  took = play (path, 3.0, NAN, FALSE, &w);
  g_assert_cmpuint (w.late, ==, 0);
  g_assert_cmpfloat (took, >=, 0.09 * 0.98);
  g_unlink (path);
  g_free (path);
}

static void
test_unpaced (void)
{
  char *path = trace ();
  Watch w;
  /* a speed so slow that pacing would take 27 s: a breakpoint past the end
   * (fast-forward) and the headless loop both ignore it, so they end at
   * once; 27 s would hit the test's timeout */
  double took = play (path, 0.01, 1e300, FALSE, &w);
  g_assert_cmpfloat (took, <, 20);
  took = play (path, 0.01, NAN, TRUE, &w);
  g_assert_cmpfloat (took, <, 20);
  g_unlink (path);
  g_free (path);
}

/* One main-context iteration that replays (the reading source may take
 * some first); returns how many trams it applied and sets *took_us to the
 * time the iteration took. */
static guint64
replaying_iteration (ViperScheduler *s, ViperModel *m, gint64 *took_us, gint64 *ended)
{
  for (int i = 0; i < 10000 && viper_scheduler_state (s) != VIPER_SCHED_IDLE; i++)
    {
      guint64 before = m->applied;
      gint64 t0 = g_get_monotonic_time ();
      g_main_context_iteration (NULL, TRUE);
      *ended = g_get_monotonic_time ();
      *took_us = *ended - t0;
      if (m->applied != before)
        return m->applied - before;
    }
  g_assert_not_reached ();
  return 0;
}

static void
test_deadline (void)
{
  /* 200,000 trams: more than the slices below replay */
  GString *str = g_string_new (NULL);
  for (int i = 0; i < 200000; i++)
    g_string_append_printf (str, "-3 -901 %d.%06d 0 0 0\n", i / 1000000, i % 1000000);
  char *path = write_trace (str->str);
  g_string_free (str, TRUE);

  Rig r;
  rig_open (&r, path, TRUE);
  ViperScheduler *s = r.s;
  ViperModel *m = r.m;
  viper_scheduler_set_speed (s, 0);
  viper_scheduler_go (s);
  gint64 took, ended;

  /* a deadline already passed, no least time: one batch of at most 256
   * steps (a slice of 8 ms would replay thousands) */
  viper_scheduler_set_deadline (s, 1, 0);
  guint64 n = replaying_iteration (s, m, &took, &ended);
  g_assert_cmpuint (n, <=, 256);

  /* a deadline 3 ms ahead: the dispatch goes on until then (the trams are
   * cheap: 200,000 take about 30 ms) */
  gint64 due = g_get_monotonic_time () + 3000;
  viper_scheduler_set_deadline (s, due, 0);
  n = replaying_iteration (s, m, &took, &ended);
  g_assert_cmpuint (n, >, 0);
  g_assert_cmpint (viper_scheduler_state (s), !=, VIPER_SCHED_IDLE);
  g_assert_cmpint (ended, >=, due);

  /* a passed deadline with a least time of 2 ms: at least that */
  viper_scheduler_set_deadline (s, 1, 2000);
  n = replaying_iteration (s, m, &took, &ended);
  g_assert_cmpuint (n, >, 0);
  g_assert_cmpint (viper_scheduler_state (s), !=, VIPER_SCHED_IDLE);
  g_assert_cmpint (took, >=, 2000);

  rig_close (&r);
  g_unlink (path);
  g_free (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scheduler/pace/speed", test_speed);
  g_test_add_func ("/scheduler/pace/unpaced", test_unpaced);
  g_test_add_func ("/scheduler/deadline", test_deadline);
  return g_test_run ();
}
