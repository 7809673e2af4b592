/* seek-test.c - viper-replay --seek-test / --seek-bench: the GUI's seek,
 * headless.
 *
 * Replays the files to the end with the trail on (core/trail.h), then goes
 * to targets all over the run - clocks (a breakpoint's stop) and step counts
 * (Back's stop), forward and backward, before the first tram, at the first
 * and the last one, past the end - with viper_scheduler_rewind() and a
 * replay forward, exactly as the GUI's timeline, Go to clock and Back do.
 * --seek-test compares the state document there with the one a fresh
 * pipeline reaches by replaying from the start with the same stop (what
 * `viper-replay --until` / `--steps` write) and fails on any difference;
 * --seek-bench only times the seeks (median and maximum).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "seek-test.h"
#include "core/stateout.h"
#include "core/trail.h"

typedef struct {
  const ViperSeekConf *conf;
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag diag;
  ViperModel *model;
  ViperRun *run;
  ViperScheduler *sched;
} Pipe;

static void
quiet_sink (ViperDiagKind kind, const char *message, gpointer data)
{
  (void) kind, (void) message, (void) data;
}

static void
pipe_free (Pipe *p)
{
  if (!p)
    return;
  viper_scheduler_free (p->sched);
  viper_run_free (p->run);
  if (p->model)
    viper_model_free (p->model);
  viper_channels_free (p->channels);
  viper_diag_clear (&p->diag);
  viper_tram_pool_free (p->pool);
  g_free (p);
}

static Pipe *
pipe_new (const ViperSeekConf *conf, double history, GError **error)
{
  Pipe *p = g_new0 (Pipe, 1);
  p->conf = conf;
  p->pool = viper_tram_pool_new ();
  p->channels = viper_channels_new ();
  viper_diag_init (&p->diag, quiet_sink, NULL);
  if (conf->paradigm->model_new)
    {
      p->model = conf->paradigm->model_new (conf->paradigm, conf->setup);
      p->model->diag = &p->diag;
      viper_model_set_history (p->model, history);
      viper_damage_set_enabled (p->model->damage, FALSE);
    }
  p->run = viper_run_new (conf->paradigm, p->model, p->pool, p->channels, &p->diag, conf->decay);
  viper_run_set_max_pending (p->run, conf->max_pending);
  viper_run_set_max_procs (p->run, conf->max_procs);
  if (conf->clock_sync)
    viper_clock_sync_install (conf->clock_sync, p->run);
  p->sched = viper_scheduler_new (p->run, p->model, p->channels, &p->diag);
  for (char **t = conf->traces; t && *t; t++)
    {
      ViperTramSource *src = viper_file_source_new (*t, p->pool, &p->diag, p->channels, error);
      if (!src)
        {
          pipe_free (p);
          return NULL;
        }
      viper_scheduler_add_source (p->sched, src);
    }
  return p;
}

/* The pending reasons at a position behind the engine: a fresh pipeline
 * (no model history) run to the same number of transfers. */
static GArray *
stuck_at (gpointer data, guint64 transferred, gboolean peek, double breakpoint)
{
  const ViperSeekConf *conf = data;
  Pipe *p = pipe_new (conf, -1, NULL);
  if (!p)
    return NULL;
  if (isnan (breakpoint))
    viper_scheduler_set_transfer_limit (p->sched, transferred, peek);
  else
    viper_scheduler_set_breakpoint (p->sched, breakpoint);   /* a breakpoint stop: as a replay to it */
  viper_scheduler_run (p->sched);
  GArray *a = viper_run_stuck (p->run);
  pipe_free (p);
  return a;
}

typedef struct {
  double clock;             /* NAN: none */
  guint64 steps;            /* 0: none */
} Target;

/* The history the space-time view draws, and its index by module, as text
 * (a checksum of the entries, the refs per module), when one is kept. */
static void
history_digest (const ViperModel *m, GString *out)
{
  if (!m || m->history_interval < 0)
    return;
  GChecksum *ck = g_checksum_new (G_CHECKSUM_SHA1);
  for (guint i = 0; i < m->history->len; i++)
    {
      ViperHistoryEntry e = g_array_index (m->history, ViperHistoryEntry, i);
      if (isnan (e.t1))
        e.t1 = NAN;           /* one NaN */
      g_checksum_update (ck, (const guchar *) &e, sizeof e);
    }
  g_string_append_printf (out, "history: %u entries, %u dropped, %s\n", m->history->len, m->history_dropped,
                          g_checksum_get_string (ck));
  g_checksum_free (ck);
  gint64 last = -2;
  for (guint i = 0; i < m->history->len; i++)
    {
      gint64 mod = g_array_index (m->history, ViperHistoryEntry, i).module;
      if (mod == last)
        continue;
      last = mod;
      const ViperHistoryModule *h = viper_model_history_module (m, mod);
      ck = g_checksum_new (G_CHECKSUM_SHA1);
      g_checksum_update (ck, (const guchar *) h->states->data, h->states->len * sizeof (ViperHistoryRef));
      g_checksum_update (ck, (const guchar *) h->arrows->data, h->arrows->len * sizeof (ViperHistoryRef));
      g_string_append_printf (out, "module %" G_GINT64_FORMAT ": %u states, %u arrows, %s\n", mod, h->states->len,
                              h->arrows->len, g_checksum_get_string (ck));
      g_checksum_free (ck);
    }
}

static char *
state_text (Pipe *p)
{
  char *json = viper_state_to_json (p->run, p->model, TRUE);
  GString *g = g_string_new (json);
  g_free (json);
  history_digest (p->model, g);
  return g_string_free (g, FALSE);
}

static char *
straight (const ViperSeekConf *conf, const Target *t)
{
  Pipe *p = pipe_new (conf, conf->history, NULL);
  if (!p)
    return g_strdup ("(cannot open)");
  viper_scheduler_set_breakpoint (p->sched, t->clock);
  viper_scheduler_set_step_limit (p->sched, t->steps);
  if (!isnan (t->clock) || t->steps)
    viper_scheduler_run (p->sched);
  char *text = state_text (p);
  pipe_free (p);
  return text;
}

static void
seek (Pipe *p, const Target *t)
{
  ViperScheduler *sc = p->sched;
  if (!viper_scheduler_rewind (sc, t->clock, t->steps))
    {
      viper_scheduler_reset (sc, NULL);
    }
  if (!isnan (t->clock) || t->steps)
    {
      guint64 done = viper_scheduler_steps_done (sc);
      viper_scheduler_set_breakpoint (sc, t->clock);
      viper_scheduler_set_step_limit (sc, t->steps ? t->steps - MIN (done, t->steps - 1) : 0);
      viper_scheduler_run (sc);
      viper_scheduler_set_step_limit (sc, 0);
      viper_scheduler_set_breakpoint (sc, NAN);
    }
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The first line where two documents differ, for the report. */
static void
report_diff (const char *what, const char *a, const char *b)
{
  char **la = g_strsplit (a, "\n", -1), **lb = g_strsplit (b, "\n", -1);
  guint i = 0;
  while (la[i] && lb[i] && g_str_equal (la[i], lb[i]))
    i++;
  fprintf (stderr, "viper-replay: --seek-test: %s: differs at line %u:\n  seek:     %s\n  straight: %s\n", what, i + 1,
           la[i] ? la[i] : "(end)", lb[i] ? lb[i] : "(end)");
  g_strfreev (la);
  g_strfreev (lb);
}

/* Back as the GUI does it (viper_scheduler_back_target, then the seek): from
 * stops by clock at a few points of the run, Back once, three presses at
 * once, and once more; the clock shown must go strictly down (never past the
 * stop) and every state must be a replay from the start's to the target.
 * Then from a stop by steps, Back must be --steps=K-1.  The number of
 * failed checks. */
static guint
back_test (const ViperSeekConf *conf, Pipe *p, double c0, double t1)
{
  guint bad = 0, presses = 0;
  const double fractions[] = { 0.4, 0.75, 0.1 };
  for (guint f = 0; f < G_N_ELEMENTS (fractions); f++)
    {
      Target t = { c0 + fractions[f] * (t1 - c0), 0 };
      seek (p, &t);
      double was = viper_run_clock (p->run), bp = t.clock;
      const guint ns[] = { 1, 3, 1 };
      for (guint i = 0; i < G_N_ELEMENTS (ns); i++)
        {
          Target b;
          if (!viper_scheduler_back_target (p->sched, ns[i], &b.clock, &b.steps))
            break;
          presses += ns[i];
          seek (p, &b);
          double now = viper_run_clock (p->run);
          char what[160];
          g_snprintf (what, sizeof what, "Back x%u from the stop at clock %.17g (clock %.17g)", ns[i], bp, was);
          if (isfinite (now) && !(now < was && now <= bp))
            {
              fprintf (stderr, "viper-replay: --seek-test: %s: the clock went to %.17g, not back\n", what, now);
              bad++;
            }
          char *got = state_text (p);
          char *want = straight (conf, &b);
          if (!g_str_equal (got, want))
            {
              report_diff (what, got, want);
              bad++;
            }
          g_free (got);
          g_free (want);
          if (!isfinite (now))
            break;            /* the start */
          was = now;
        }
    }
  /* by steps: one state change fewer in the run order */
  guint64 steps = viper_scheduler_steps_done (p->sched);
  Target k = { NAN, MAX (steps, 2) + 5 };
  seek (p, &k);
  k.steps = viper_scheduler_steps_done (p->sched);
  Target b;
  if (k.steps > 1 && viper_scheduler_back_target (p->sched, 1, &b.clock, &b.steps))
    {
      presses++;
      if (!isnan (b.clock) || b.steps != k.steps - 1)
        {
          fprintf (stderr, "viper-replay: --seek-test: Back from %" G_GUINT64_FORMAT " steps goes to clock %.17g, "
                   "%" G_GUINT64_FORMAT " steps\n", k.steps, b.clock, b.steps);
          bad++;
        }
    }
  printf ("seek: %u presses of Back, %u states wrong\n", presses, bad);
  return bad;
}

int
viper_seek_test (const ViperSeekConf *conf, guint n, gboolean check)
{
  GError *error = NULL;
  Pipe *p = pipe_new (conf, conf->history, &error);
  if (!p)
    {
      fprintf (stderr, "viper-replay: %s\n", error->message);
      g_error_free (error);
      return 1;
    }
  viper_scheduler_enable_trail (p->sched, conf->trail_bytes);
  if (conf->every)
    viper_trail_set_first_every (viper_scheduler_get_trail (p->sched), conf->every);
  viper_scheduler_set_stuck_func (p->sched, stuck_at, (gpointer) conf);
  gint64 t0 = g_get_monotonic_time ();
  viper_scheduler_run (p->sched);
  double first = (double) (g_get_monotonic_time () - t0) / 1e3;
  ViperTrail *tr = viper_scheduler_get_trail (p->sched);
  guint64 trams = p->model ? p->model->applied : 0, steps = viper_scheduler_steps_done (p->sched);
  double t1 = viper_run_clock (p->run);
  if (!tr || !p->model || !trams)
    {
      fprintf (stderr, "viper-replay: --seek-test: nothing to seek in (%s)\n",
               !p->model ? "the paradigm has no model" : !trams ? "no tram" : "the trail passed its bound");
      pipe_free (p);
      return 1;
    }
  /* the clock of the first tram: a breakpoint below it stops before any */
  ViperTrailPos start;
  viper_trail_pos_init (&start);
  double c0 = viper_trail_peek (tr, &start, NULL, NULL)->adjusted;
  viper_trail_pos_clear (&start);
  printf ("seek: %" G_GUINT64_FORMAT " trams, %" G_GUINT64_FORMAT " steps, clock %.9g to %.9g; first replay %.0f ms; "
          "trail %.1f MiB (bound %" G_GSIZE_FORMAT " MiB), %u checkpoints every %" G_GUINT64_FORMAT " trams, "
          "model checkpoints: %s\n", trams, steps, c0, t1, first, viper_trail_bytes (tr) / 1048576.0,
          viper_trail_max_bytes (tr) >> 20, viper_trail_n_ckpts (tr), viper_trail_every (tr),
          viper_model_can_checkpoint (p->model) ? "yes" : "no (replays the trail from its start)");

  GArray *targets = g_array_new (FALSE, FALSE, sizeof (Target));
  Target fixed[] = {
    { t1, 0 }, { c0, 0 }, { NAN, 1 }, { NAN, steps }, { c0 - 1, 0 }, { NAN, steps ? steps - 1 : 1 },
    { t1 + 1, 0 }, { NAN, steps + 3 }, { NAN, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (fixed) && targets->len < n; i++)
    g_array_append_val (targets, fixed[i]);
  GRand *rnd = g_rand_new_with_seed (20261124);
  while (targets->len < n)
    {
      Target t = { NAN, 0 };
      if (g_rand_boolean (rnd))
        t.clock = c0 + (t1 - c0) * g_rand_double (rnd);
      else
        t.steps = 1 + (guint64) g_rand_double_range (rnd, 0, (double) MAX (steps, 1));
      g_array_append_val (targets, t);
    }
  g_rand_free (rnd);

  double *ms = g_new (double, targets->len);
  guint bad = 0;
  for (guint i = 0; i < targets->len; i++)
    {
      const Target *t = &g_array_index (targets, Target, i);
      gint64 a = g_get_monotonic_time ();
      seek (p, t);
      ms[i] = (double) (g_get_monotonic_time () - a) / 1e3;
      if (!check)
        continue;
      char *got = state_text (p);
      char *want = straight (conf, t);
      if (!g_str_equal (got, want))
        {
          char what[96];
          if (isnan (t->clock))
            g_snprintf (what, sizeof what, "seek %u to step %" G_GUINT64_FORMAT, i + 1, t->steps);
          else
            g_snprintf (what, sizeof what, "seek %u to clock %.17g", i + 1, t->clock);
          report_diff (what, got, want);
          bad++;
        }
      g_free (got);
      g_free (want);
    }
  if (check)
    bad += back_test (conf, p, c0, t1);
  double *sorted = g_memdup2 (ms, targets->len * sizeof (double));
  qsort (sorted, targets->len, sizeof (double), cmp_double);
  printf ("seek: %u seeks, median %.1f ms, max %.1f ms%s\n", targets->len, sorted[targets->len / 2],
          sorted[targets->len - 1], check ? "" : " (not compared)");
  if (check)
    printf ("seek: %u of %u states differ from a replay from the start\n", bad, targets->len);
  g_free (sorted);
  g_free (ms);
  g_array_unref (targets);
  pipe_free (p);
  return bad ? 1 : 0;
}
