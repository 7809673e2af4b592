/* test-seek.c - seeking through the scheduler's API, in process (issue 13):
 * after a replay to the end with the trail on, viper_scheduler_rewind() and
 * a replay forward reach the state document a fresh pipeline reaches with
 * the same stop, by clock and by step count, forward and backward, with the
 * run's figures (counts, offsets, pending reasons) of that point; and a
 * trail that passes its bound is dropped, said once, and seeking then
 * reports that it cannot (the caller replays from the start). */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "core/stateout.h"
#include "core/trail.h"
#include "paradigms/paradigms.h"
#include "paradigms/picl/picl-gen-lib.h"
#include "pipe-fx.h"

/* the engine's pipe (pipe-fx.h) first, so that a Pipe is one */
typedef struct {
  EnginePipe e;
  GPtrArray *warnings;
} Pipe;

static void
sink (ViperDiagKind kind, const char *message, gpointer data)
{
  if (kind == VIPER_DIAG_WARNING && g_str_has_prefix (message, "seek:"))
    g_ptr_array_add (data, g_strdup (message));
}

static Pipe *
pipe_new (const char *path, double history)
{
  Pipe *x = g_new0 (Pipe, 1);
  x->warnings = g_ptr_array_new_with_free_func (g_free);
  engine_pipe_open (&x->e, path, history, sink, x->warnings);
  return x;
}

static void
pipe_free (Pipe *x)
{
  engine_pipe_close (&x->e);
  g_ptr_array_unref (x->warnings);
  g_free (x);
}

static const char *trace_path;

static GArray *
stuck_at (gpointer data, guint64 transferred, gboolean peek, double breakpoint)
{
  (void) data;
  Pipe *x = pipe_new (trace_path, -1);
  if (isnan (breakpoint))
    viper_scheduler_set_transfer_limit (x->e.s, transferred, peek);
  else
    viper_scheduler_set_breakpoint (x->e.s, breakpoint);   /* a breakpoint stop: as a replay to it */
  viper_scheduler_run (x->e.s);
  GArray *a = viper_run_stuck (x->e.run);
  pipe_free (x);
  return a;
}

static char *
straight (double clock, guint64 steps)
{
  Pipe *x = pipe_new (trace_path, -1);
  viper_scheduler_set_breakpoint (x->e.s, clock);
  viper_scheduler_set_step_limit (x->e.s, steps);
  viper_scheduler_run (x->e.s);
  char *j = viper_state_to_json (x->e.run, x->e.m, TRUE);
  pipe_free (x);
  return j;
}

/* A pipeline over trace_path whose seeks take their stuck lists from fresh
 * replays (stuck_at), with a checkpoint every `every` trams at first. */
static Pipe *
seekable_pipe (guint64 every)
{
  Pipe *x = pipe_new (trace_path, 0);
  viper_scheduler_enable_trail (x->e.s, 0);
  viper_trail_set_first_every (viper_scheduler_get_trail (x->e.s), every);
  viper_scheduler_set_stuck_func (x->e.s, stuck_at, NULL);
  return x;
}

static char *
write_trace (guint messages)
{
  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  o.procs = 5;
  o.messages = messages;
  o.seed = 11;
  o.barriers = 2;
  o.collectives = 2;
  GError *error = NULL;
  ViperPiclGenTrace *t = viper_picl_gen (&o, &error);
  g_assert_no_error (error);
  GString *s = g_string_new (NULL);
  viper_picl_gen_write (t, s);
  viper_picl_gen_free (t);
  char *path = engine_fx_write_trace (s->str, (gssize) s->len);
  g_string_free (s, TRUE);
  return path;
}

static void
test_seek (void)
{
  char *path = write_trace (200);
  trace_path = path;
  Pipe *x = seekable_pipe (9);
  g_assert_cmpint (viper_scheduler_run (x->e.s), ==, VIPER_STOP_END);
  guint64 steps = viper_scheduler_steps_done (x->e.s);
  double t1 = viper_run_clock (x->e.run);
  g_assert_cmpuint (viper_trail_n_ckpts (viper_scheduler_get_trail (x->e.s)), >, 10);
  /* forward and backward, by clock and by steps, ending behind the engine */
  struct { double f; guint64 k; } targets[] = {
    { 0.8, 0 }, { 0.1, 0 }, { NAN, 7 }, { 0.5, 0 }, { NAN, 0 }, { NAN, 0 }, { 0.95, 0 }, { 0.3, 0 },
  };
  targets[4].k = steps / 2;
  targets[5].k = steps - 1;
  gboolean any_pending = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      double clock = isnan (targets[i].f) ? NAN : targets[i].f * t1;
      guint64 k = targets[i].k;
      g_assert_true (viper_scheduler_rewind (x->e.s, clock, k));
      guint64 done = viper_scheduler_steps_done (x->e.s);
      g_assert_true (!k || done < k);
      viper_scheduler_set_breakpoint (x->e.s, clock);
      viper_scheduler_set_step_limit (x->e.s, k ? k - done : 0);
      viper_scheduler_run (x->e.s);
      viper_scheduler_set_step_limit (x->e.s, 0);
      viper_scheduler_set_breakpoint (x->e.s, NAN);
      g_assert_true (viper_scheduler_replaying (x->e.s));
      ViperCounts c;
      viper_run_counts (x->e.run, &c);
      any_pending |= c.pending > 0;
      char *got = viper_state_to_json (x->e.run, x->e.m, TRUE);
      char *want = straight (clock, k);
      g_assert_cmpstr (got, ==, want);
      g_free (got);
      g_free (want);
    }
  /* the pending trams and their reasons came from the stuck function */
  g_assert_true (any_pending);
  /* back to the start, then forward to the end: the engine takes over */
  g_assert_true (viper_scheduler_rewind (x->e.s, NAN, 0));
  g_assert_cmpuint (x->e.m->applied, ==, 0);
  g_assert_cmpint (viper_scheduler_run (x->e.s), ==, VIPER_STOP_END);
  g_assert_false (viper_scheduler_replaying (x->e.s));
  g_assert_cmpuint (viper_scheduler_steps_done (x->e.s), ==, steps);
  pipe_free (x);
  g_unlink (path);
  g_free (path);
}

/* A breakpoint reached by the engine itself with the trail on (the GUI's
 * breakpoint, before anything was read to the end): the stop is the trams
 * at or before it, as a fresh pipeline without a trail reaches it, even on
 * shuffled lines; moving it, and Go to the end, land where fresh replays do,
 * and the trail stays the run's own order (a seek by steps afterwards). */
static void
test_breakpoint_ahead (void)
{
  char *path = write_trace (200);
  trace_path = path;
  Pipe *end = pipe_new (path, -1);
  g_assert_cmpint (viper_scheduler_run (end->e.s), ==, VIPER_STOP_END);
  double t1 = viper_run_clock (end->e.run);
  guint64 steps = viper_scheduler_steps_done (end->e.s);
  pipe_free (end);
  Pipe *x = seekable_pipe (9);
  double bps[] = { 0.3 * t1, 0.6 * t1, NAN };
  gboolean any_skip = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (bps); i++)
    {
      viper_scheduler_set_breakpoint (x->e.s, bps[i]);
      ViperStopReason r = viper_scheduler_run (x->e.s);
      g_assert_cmpint (r, ==, isnan (bps[i]) ? VIPER_STOP_END : VIPER_STOP_BREAKPOINT);
      ViperCounts c;
      viper_run_counts (x->e.run, &c);
      /* trams past the breakpoint transferred by the engine, not applied */
      any_skip |= !isnan (bps[i]) && viper_trail_length (viper_scheduler_get_trail (x->e.s)) > c.transferred;
      char *got = viper_state_to_json (x->e.run, x->e.m, TRUE);
      char *want = straight (bps[i], 0);
      g_assert_cmpstr (got, ==, want);
      g_free (got);
      g_free (want);
    }
  g_assert_true (any_skip);
  g_assert_cmpuint (viper_scheduler_steps_done (x->e.s), ==, steps);
  g_assert_true (viper_scheduler_rewind (x->e.s, NAN, steps / 2));
  viper_scheduler_set_step_limit (x->e.s, steps / 2 - viper_scheduler_steps_done (x->e.s));
  viper_scheduler_run (x->e.s);
  viper_scheduler_set_step_limit (x->e.s, 0);
  char *got = viper_state_to_json (x->e.run, x->e.m, TRUE);
  char *want = straight (NAN, steps / 2);
  g_assert_cmpstr (got, ==, want);
  g_free (got);
  g_free (want);
  pipe_free (x);
  g_unlink (path);
  g_free (path);
}

static void
test_bound (void)
{
  /* about 40 bytes a tram: 60,000 messages pass a 1 MiB bound */
  char *path = write_trace (60000);
  Pipe *x = pipe_new (path, -1);
  viper_scheduler_enable_trail (x->e.s, (gsize) 1 << 20);
  g_assert_cmpint (viper_scheduler_run (x->e.s), ==, VIPER_STOP_END);
  g_assert_null (viper_scheduler_get_trail (x->e.s));
  g_assert_cmpuint (x->warnings->len, ==, 1);
  g_assert_true (strstr (x->warnings->pdata[0], "the trail passed its bound of 1 MiB at tram") != NULL);
  g_assert_false (viper_scheduler_rewind (x->e.s, 0.0, 0));
  /* a reset records again (and says so again when it passes the bound) */
  g_assert_true (viper_scheduler_reset (x->e.s, NULL));
  viper_scheduler_set_transfer_limit (x->e.s, 100, FALSE);
  viper_scheduler_run (x->e.s);
  g_assert_nonnull (viper_scheduler_get_trail (x->e.s));
  g_assert_cmpuint (viper_trail_length (viper_scheduler_get_trail (x->e.s)), ==, 100);
  pipe_free (x);
  g_unlink (path);
  g_free (path);
}

/* A state document without its counts and pending lists: the modules, the
 * clock and the messages.  A replay that read further (the engine holding at
 * a breakpoint reads to the end) may transfer a tram that changes nothing in
 * another order; the state shown is the same. */
static char *
shown (char *json)
{
  char *c = strstr (json, "  \"counts\"");
  char *m = c ? strstr (c, "  \"messages\"") : NULL;
  char *st = m ? strstr (m, "  \"stuck\"") : NULL;
  g_assert_nonnull (st);
  char *r = g_strdup_printf ("%.*s%.*s", (int) (c - json), json, (int) (st - m), m);
  g_free (json);
  return r;
}

/* One Step as the GUI makes it (no main context: pumped here). */
static ViperStopReason
step_once (Pipe *x)
{
  viper_scheduler_step (x->e.s);
  for (guint i = 0; i < 100000; i++)
    {
      ViperStopReason r = viper_scheduler_pump (x->e.s, 64);
      if (r != VIPER_STOP_NONE)
        return r;
    }
  g_assert_not_reached ();
}

/* Step onto the breakpoint's state, then Step again: the second press takes
 * one more state change, as a replay from the start to it has, instead of
 * stopping "at the breakpoint" where it already was (a press that did
 * nothing); and Go from there plays on to the end.  Both ways the GUI gets there: Back from the breakpoint stop and
 * steps forward (behind the engine, by the trail), and steps from the start
 * with the breakpoint armed (the engine itself). */
static void
test_step_onto_breakpoint (void)
{
  char *path = write_trace (200);
  trace_path = path;
  Pipe *end = pipe_new (path, -1);
  g_assert_cmpint (viper_scheduler_run (end->e.s), ==, VIPER_STOP_END);
  double bp = 0.5 * viper_run_clock (end->e.run);
  guint64 steps = viper_scheduler_steps_done (end->e.s);
  pipe_free (end);
  guint64 k = 0;   /* the state changes at or before the breakpoint */
  for (int v = 0; v < 3; v++)
    {
      gboolean trail = v != 1, go = v == 2;
      Pipe *x = pipe_new (path, trail ? 0 : -1);
      if (trail)
        {
          viper_scheduler_enable_trail (x->e.s, 0);
          viper_trail_set_first_every (viper_scheduler_get_trail (x->e.s), 9);
          viper_scheduler_set_stuck_func (x->e.s, stuck_at, NULL);
        }
      viper_scheduler_set_breakpoint (x->e.s, bp);
      if (trail)
        {
          g_assert_cmpint (viper_scheduler_run (x->e.s), ==, VIPER_STOP_BREAKPOINT);
          k = viper_scheduler_steps_done (x->e.s);
          g_assert_cmpuint (k, >, 3);
          /* Back three times, as the GUI's seek does it, the breakpoint kept */
          g_assert_true (viper_scheduler_rewind (x->e.s, NAN, k - 3));
          viper_scheduler_set_step_limit (x->e.s, k - 3 - viper_scheduler_steps_done (x->e.s));
          viper_scheduler_run (x->e.s);
          viper_scheduler_set_step_limit (x->e.s, 0);
          viper_scheduler_set_breakpoint (x->e.s, bp);
          g_assert_cmpuint (viper_scheduler_steps_done (x->e.s), ==, k - 3);
          for (int i = 0; i < 3; i++)
            g_assert_cmpint (step_once (x), ==, VIPER_STOP_STEP);
        }
      else
        {
          /* k steps from the start: the last state change at or before it */
          for (guint64 i = 0; i < k; i++)
            g_assert_cmpint (step_once (x), ==, VIPER_STOP_STEP);
        }
      g_assert_cmpuint (viper_scheduler_steps_done (x->e.s), ==, k);
      char *got = viper_state_to_json (x->e.run, x->e.m, TRUE);
      char *want = straight (NAN, k);
      g_assert_cmpstr (got, ==, want);
      g_free (got);
      g_free (want);
      if (go)
        {
          /* Go (the user's) from there passes it too and plays to the end */
          viper_scheduler_go_on (x->e.s);
          ViperStopReason r = VIPER_STOP_NONE;
          for (guint i = 0; i < 100000 && r == VIPER_STOP_NONE; i++)
            r = viper_scheduler_pump (x->e.s, 64);
          g_assert_cmpint (r, ==, VIPER_STOP_END);
          g_assert_cmpuint (viper_scheduler_steps_done (x->e.s), ==, steps);
          pipe_free (x);
          continue;
        }
      /* the state is the breakpoint's: this press steps past it */
      g_assert_cmpint (step_once (x), ==, VIPER_STOP_STEP);
      g_assert_cmpuint (viper_scheduler_steps_done (x->e.s), ==, k + 1);
      g_assert_true (isnan (viper_scheduler_breakpoint (x->e.s)));
      got = viper_state_to_json (x->e.run, x->e.m, TRUE);
      want = straight (NAN, k + 1);
      if (trail)
        g_assert_cmpstr (got, ==, want);   /* by the trail: the very run order */
      got = shown (got);
      want = shown (want);
      g_assert_cmpstr (got, ==, want);
      g_free (got);
      g_free (want);
      pipe_free (x);
    }
  g_unlink (path);
  g_free (path);
}

/* A collective over every processor (SUBSET -1), with a processor whose
 * first line comes late in the file: a seek by steps to each step gives the
 * state a fresh replay stopped there gives.  The model learns the
 * processors before the first such collective is applied, in both (the
 * files are read ahead for them); it kept them across seeks while a fresh
 * replay learnt them only at the end of the input, and the states of an
 * open barrier differed. */
static void
test_subset_all (void)
{
  static const char trace[] =
    "-3 -901 0.0 0 0 0\n"
    "-3 -901 0.0 1 0 0\n"
    "-3 -21 0.001 0 0 4 2 8 5 1 0\n"
    "-4 -21 0.0015 0 0 0\n"
    "-3 -52 0.001 1 0 3 2 5 0 0\n"
    "-4 -52 0.002 1 0 4 2 8 5 0 0\n"
    "-3 -402 0.003 0 0 0\n"
    "-3 -402 0.0031 1 0 0\n"
    "-4 -402 0.004 0 0 0\n"
    "-4 -402 0.0041 1 0 0\n"
    "-3 -901 0.0 2 0 0\n"
    "-3 -402 0.0032 2 0 0\n"
    "-4 -402 0.0042 2 0 0\n"
    "-4 -901 0.01 0 0 0\n"
    "-4 -901 0.01 1 0 0\n"
    "-4 -901 0.01 2 0 0\n";
  char *path = engine_fx_write_trace (trace, -1);
  trace_path = path;
  Pipe *x = seekable_pipe (1);
  g_assert_cmpint (viper_scheduler_run (x->e.s), ==, VIPER_STOP_END);
  guint64 steps = viper_scheduler_steps_done (x->e.s);
  g_assert_cmpuint (steps, >=, 12);
  for (guint64 k = 1; k <= steps; k++)
    {
      g_assert_true (viper_scheduler_rewind (x->e.s, NAN, k));
      guint64 done = viper_scheduler_steps_done (x->e.s);
      viper_scheduler_set_step_limit (x->e.s, k - done);
      viper_scheduler_run (x->e.s);
      viper_scheduler_set_step_limit (x->e.s, 0);
      char *got = viper_state_to_json (x->e.run, x->e.m, TRUE);
      char *want = straight (NAN, k);
      g_test_message ("step %" G_GUINT64_FORMAT, k);
      g_assert_cmpstr (got, ==, want);
      g_free (got);
      g_free (want);
    }
  pipe_free (x);
  g_unlink (path);
  g_free (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  viper_paradigms_register_all ();
  g_test_add_func ("/seek/rewind-equals-fresh-replay", test_seek);
  g_test_add_func ("/seek/trail-bound", test_bound);
  g_test_add_func ("/seek/breakpoint-ahead", test_breakpoint_ahead);
  g_test_add_func ("/seek/step-onto-breakpoint", test_step_onto_breakpoint);
  g_test_add_func ("/seek/subset-all", test_subset_all);
  return g_test_run ();
}
