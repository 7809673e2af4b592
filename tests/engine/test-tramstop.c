/* test-tramstop.c - stopping at a tram (viper-replay --until-tram, the GUI's
 * Breakpoint dialog), in process: the scheduler stops right after the tram
 * PROC:SEQ or FILE:LINE names, with the state a stop after as many steps
 * (--steps) reaches at that tram's place; the stop disarms when it stops and
 * a reset arms it again; playback behind the engine (a seek) stops there
 * too; a tram that never comes ends the replay as the end; and the values
 * the user types are parsed, or refused with a reason. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "core/stateout.h"
#include "core/trail.h"
#include "core/tramref.h"
#include "paradigms/paradigms.h"
#include "paradigms/picl/picl-gen-lib.h"
#include "pipe-fx.h"

typedef EnginePipe Pipe;

static Pipe *
pipe_new (const char *path)
{
  Pipe *x = g_new0 (Pipe, 1);
  engine_pipe_open (x, path, NAN, NULL, NULL);
  return x;
}

static void
pipe_free (Pipe *x)
{
  engine_pipe_close (x);
  g_free (x);
}

static char *
write_trace (void)
{
  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  o.procs = 4;
  o.messages = 120;
  o.seed = 5;
  o.barriers = 1;
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

/* One transferred tram of a replay to the end, and the steps done after it. */
typedef struct {
  gint64 proc, seq;
  guint32 line;
  gboolean changed;
  guint64 steps;
} Seen;

static void
record (const ViperTram *t, gboolean changed, gpointer data)
{
  GArray *a = data;
  Seen n = { t->proc, t->seq, t->line, changed, (a->len ? g_array_index (a, Seen, a->len - 1).steps : 0) + !!changed };
  g_array_append_val (a, n);
}

static char *
state_after_steps (const char *path, guint64 steps)
{
  Pipe *x = pipe_new (path);
  viper_scheduler_set_step_limit (x->s, steps);
  g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_STEP);
  char *j = viper_state_to_json (x->run, x->m, TRUE);
  pipe_free (x);
  return j;
}

static void
test_stop_equals_steps (void)
{
  char *path = write_trace ();
  Pipe *all = pipe_new (path);
  GArray *seen = g_array_new (FALSE, FALSE, sizeof (Seen));
  viper_scheduler_add_hook (all->s, record, seen);
  g_assert_cmpint (viper_scheduler_run (all->s), ==, VIPER_STOP_END);
  pipe_free (all);
  g_assert_cmpuint (seen->len, >, 100);
  char *base = g_path_get_basename (path);
  guint checked = 0;
  for (guint f = 1; f <= 4; f++)
    {
      /* a tram that changed the state, about f fifths into the run */
      guint i = seen->len * f / 5;
      while (i < seen->len && !g_array_index (seen, Seen, i).changed)
        i++;
      g_assert_cmpuint (i, <, seen->len);
      const Seen *n = &g_array_index (seen, Seen, i);
      char *want = state_after_steps (path, n->steps);
      char *texts[] = { g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, n->proc, n->seq),
                        g_strdup_printf ("%s:%u", base, n->line), g_strdup_printf ("%s:%u", path, n->line) };
      for (guint k = 0; k < G_N_ELEMENTS (texts); k++)
        {
          ViperTramRef ref;
          char *why = NULL;
          g_assert_true (viper_tram_ref_parse (texts[k], &ref, &why));
          g_assert_null (why);
          Pipe *x = pipe_new (path);
          viper_scheduler_set_tram_stop (x->s, &ref);
          viper_tram_ref_clear (&ref);
          g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_TRAM);
          g_assert_cmpint (viper_scheduler_last_stop (x->s), ==, VIPER_STOP_TRAM);
          g_assert_true (viper_scheduler_tram_stop_seen (x->s));
          g_assert_false (viper_scheduler_tram_stop_armed (x->s));
          g_assert_cmpuint (viper_scheduler_steps_done (x->s), ==, n->steps);
          char *got = viper_state_to_json (x->run, x->m, TRUE);
          g_assert_cmpstr (got, ==, want);
          g_free (got);
          /* disarmed: going on goes to the end */
          g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_END);
          /* a reset arms it again: the same stop */
          g_assert_true (viper_scheduler_reset (x->s, NULL));
          g_assert_true (viper_scheduler_tram_stop_armed (x->s));
          g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_TRAM);
          got = viper_state_to_json (x->run, x->m, TRUE);
          g_assert_cmpstr (got, ==, want);
          g_free (got);
          pipe_free (x);
          g_free (texts[k]);
          checked++;
        }
      g_free (want);
    }
  g_assert_cmpuint (checked, ==, 12);
  g_free (base);
  g_array_unref (seen);
  g_unlink (path);
  g_free (path);
}

/* Playback behind the engine (a seek back to the start, then Go) stops at
 * the tram too, in the state the engine stopped in. */
static void
test_stop_in_playback (void)
{
  char *path = write_trace ();
  Pipe *x = pipe_new (path);
  viper_scheduler_enable_trail (x->s, 0);
  viper_trail_set_first_every (viper_scheduler_get_trail (x->s), 7);
  ViperTramRef ref;
  char *why = NULL;
  g_assert_true (viper_tram_ref_parse ("2:9", &ref, &why));
  viper_scheduler_set_tram_stop (x->s, &ref);
  viper_tram_ref_clear (&ref);
  g_assert_false (viper_scheduler_tram_stop_behind (x->s, NULL));   /* not come yet */
  g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_TRAM);
  char *want = viper_state_to_json (x->run, x->m, TRUE);
  double at = viper_run_clock (x->run), behind_at = NAN;
  g_assert_true (viper_scheduler_tram_stop_behind (x->s, &behind_at));   /* just applied */
  g_assert_cmpfloat (behind_at, <=, at);
  g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_END);
  g_assert_true (viper_scheduler_tram_stop_behind (x->s, NULL));   /* passed: the GUI seeks back */
  g_assert_true (viper_tram_ref_parse ("99:1", &ref, &why));
  viper_scheduler_set_tram_stop (x->s, &ref);                       /* never in the run */
  viper_tram_ref_clear (&ref);
  g_assert_false (viper_scheduler_tram_stop_behind (x->s, NULL));
  g_assert_true (viper_tram_ref_parse ("2:9", &ref, &why));
  viper_scheduler_set_tram_stop (x->s, &ref);
  viper_tram_ref_clear (&ref);
  g_assert_true (viper_scheduler_rewind (x->s, NAN, 0));
  g_assert_false (viper_scheduler_tram_stop_behind (x->s, NULL));   /* at the start: ahead again */
  viper_scheduler_arm_tram_stop (x->s, TRUE);
  g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_TRAM);
  g_assert_true (viper_scheduler_replaying (x->s));
  char *got = viper_state_to_json (x->run, x->m, TRUE);
  g_assert_cmpstr (got, ==, want);
  g_free (got);
  /* back to it from the end: from the latest checkpoint before it, not from
   * the start (checkpoints every 7 trams), to the same state */
  g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_END);
  guint64 len = viper_trail_length (viper_scheduler_get_trail (x->s));
  g_assert_true (viper_scheduler_tram_stop_behind (x->s, NULL));
  g_assert_true (viper_scheduler_rewind_to_tram_stop (x->s));
  g_assert_cmpuint (x->m->applied, >, 0);
  g_assert_cmpuint (x->m->applied, <, len);
  g_assert_false (viper_scheduler_tram_stop_behind (x->s, NULL));   /* ahead again */
  viper_scheduler_arm_tram_stop (x->s, TRUE);
  g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_TRAM);
  got = viper_state_to_json (x->run, x->m, TRUE);
  g_assert_cmpstr (got, ==, want);
  g_free (got);
  /* not behind (a tram never in the run): nothing is done */
  g_assert_true (viper_tram_ref_parse ("99:1", &ref, &why));
  viper_scheduler_set_tram_stop (x->s, &ref);
  viper_tram_ref_clear (&ref);
  guint64 applied = x->m->applied;
  g_assert_false (viper_scheduler_rewind_to_tram_stop (x->s));
  g_assert_cmpuint (x->m->applied, ==, applied);
  g_free (want);
  /* disarmed (a seek that is not the user's): no stop there */
  g_assert_true (viper_scheduler_rewind (x->s, NAN, 0));
  viper_scheduler_arm_tram_stop (x->s, FALSE);
  g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_END);
  pipe_free (x);
  g_unlink (path);
  g_free (path);
}

static void
test_never_comes (void)
{
  char *path = write_trace ();
  const char *absent[] = { "99:1", "2:100000", "nosuchfile.trc:3", "-1:100000" };
  for (guint k = 0; k < G_N_ELEMENTS (absent); k++)
    {
      ViperTramRef ref;
      char *why = NULL;
      g_assert_true (viper_tram_ref_parse (absent[k], &ref, &why));
      Pipe *x = pipe_new (path);
      viper_scheduler_set_tram_stop (x->s, &ref);
      viper_tram_ref_clear (&ref);
      g_assert_cmpint (viper_scheduler_run (x->s), ==, VIPER_STOP_END);
      g_assert_false (viper_scheduler_tram_stop_seen (x->s));
      g_assert_true (viper_scheduler_tram_stop_armed (x->s));
      pipe_free (x);
    }
  g_unlink (path);
  g_free (path);
}

static void
test_parse (void)
{
  struct { const char *text; const char *file; guint64 line; gint64 proc, seq; } good[] = {
    { "2:14", NULL, 0, 2, 14 },
    { "-1:3", NULL, 0, -1, 3 },
    { "run.trc:120", "run.trc", 120, 0, 0 },
    { "./3:7", "./3", 7, 0, 0 },
    { "tcp:127.0.0.1:7405#2:5", "tcp:127.0.0.1:7405#2", 5, 0, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      ViperTramRef r;
      char *why = NULL;
      g_assert_true (viper_tram_ref_parse (good[i].text, &r, &why));
      g_assert_cmpstr (r.file, ==, good[i].file);
      g_assert_cmpuint (r.line, ==, good[i].line);
      g_assert_cmpint (r.proc, ==, good[i].proc);
      g_assert_cmpint (r.seq, ==, good[i].seq);
      char *back = viper_tram_ref_format (&r);
      g_assert_cmpstr (back, ==, good[i].text);
      g_free (back);
      viper_tram_ref_clear (&r);
    }
  struct { const char *text; const char *says; } bad[] = {
    { "", "does not name a tram" }, { "12", "does not name a tram" }, { "2:", "does not name a tram" },
    { ":5", "does not name a tram" }, { "2:0", "sequence number" }, { "2:-4", "sequence number" },
    { "2:x", "sequence number" }, { "2:1.5", "sequence number" }, { "2:99999999999999999999", "sequence number" },
    { "run.trc:0", "line number" }, { "run.trc:4294967296", "line number" }, { "run.trc:x", "line number" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ViperTramRef r;
      char *why = NULL;
      g_assert_false (viper_tram_ref_parse (bad[i].text, &r, &why));
      g_assert_nonnull (why);
      g_assert_nonnull (strstr (why, bad[i].says));
      char *quoted = g_strdup_printf ("'%s'", bad[i].text);
      g_assert_nonnull (strstr (why, quoted));
      g_free (quoted);
      g_free (why);
      g_assert_null (r.file);
    }
  /* FILE matches the channel's name or its base name */
  ViperTramRef r;
  char *why = NULL;
  g_assert_true (viper_tram_ref_parse ("run.trc:4", &r, &why));
  ViperTram t = { .line = 4 };
  g_assert_true (viper_tram_ref_matches (&r, &t, "run.trc"));
  g_assert_true (viper_tram_ref_matches (&r, &t, "/tmp/x/run.trc"));
  g_assert_false (viper_tram_ref_matches (&r, &t, "/tmp/x/brun.trc"));
  g_assert_false (viper_tram_ref_matches (&r, &t, NULL));
  t.line = 5;
  g_assert_false (viper_tram_ref_matches (&r, &t, "run.trc"));
  viper_tram_ref_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  viper_paradigms_register_all ();
  g_test_add_func ("/tramstop/parse", test_parse);
  g_test_add_func ("/tramstop/equals-steps", test_stop_equals_steps);
  g_test_add_func ("/tramstop/in-playback", test_stop_in_playback);
  g_test_add_func ("/tramstop/never-comes", test_never_comes);
  return g_test_run ();
}
