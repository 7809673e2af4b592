/* scheduler-seek.c - seek by checkpoints (core/trail.h, core/scheduler.h):
 * playback of the logged trams behind the engine, and the run's figures
 * (clock, counts, offsets, pending reasons) while it plays behind. */
#include <math.h>
#include <string.h>
#include "scheduler-priv.h"

/* Playback from checkpoint c, whose model state was just restored, or
 * (c NULL) from the start with the model rewound there. */
static void
play_from (ViperScheduler *s, const ViperTrailCkpt *c)
{
  if (c)
    {
      viper_trail_pos_copy (&s->play, &c->pos);
      s->steps_done = c->steps;
    }
  else
    {
      viper_model_rewind_start (s->model);
      viper_trail_pos_clear (&s->play);
      viper_trail_pos_init (&s->play);
      s->steps_done = 0;
    }
  viper_sched_start_replay (s);
}

/* Playback skipped trams past the breakpoint, and the breakpoint moved (Go
 * past it, a later one, a step): they must be applied in run order, so
 * playback starts again from a checkpoint - for Go or another breakpoint the
 * latest before the first of them; for a step (or a step limit) the latest
 * before the target state change, which is then reached as a replay from
 * the start reaches it (the steps count in run order). */
void
viper_sched_reposition (ViperScheduler *s)
{
  gboolean stepping = s->state == VIPER_SCHED_STEPPING || s->step_limit;
  guint64 target = s->steps_done + (s->state == VIPER_SCHED_STEPPING ? 1 : s->step_limit);
  for (guint i = viper_trail_n_ckpts (s->trail); i-- > 0;)
    {
      const ViperTrailCkpt *c = viper_trail_ckpt (s->trail, i);
      if ((stepping ? c->steps >= target : c->pos.index > s->first_skip) || !c->model
          || !viper_model_restore (s->model, c->model))
        continue;
      play_from (s, c);
      goto replay;
    }
  play_from (s, NULL);
replay:
  if (stepping)
    {
      /* one step from there would stop at the checkpoint's next change */
      s->step_limit = target - s->steps_done;
      if (s->state == VIPER_SCHED_STEPPING)
        s->state = VIPER_SCHED_RUNNING;
    }
}

/* ---- seek by checkpoints ---------------------------------------------------------- */

static double
view_clock (gpointer data)
{
  return ((ViperScheduler *) data)->play.clock;
}

static double
view_offset (gpointer data, gint64 proc)
{
  const double *o = g_hash_table_lookup (((ViperScheduler *) data)->play.offsets, &proc);
  return o ? *o : 0.0;
}

static void
view_counts (gpointer data, ViperCounts *out)
{
  ViperScheduler *s = data;
  memset (out, 0, sizeof *out);
  out->read = s->view_read;
  out->rejected = s->view_rejected;
  out->transferred = s->play.index - s->skipped;
  out->ignored = s->play.ignored;
  out->pending = out->read - out->transferred - out->rejected;
}

static GArray *
view_stuck (gpointer data)
{
  ViperScheduler *s = data;
  guint64 applied = s->play.index - s->skipped;
  if (s->stuck_fn && s->view_read > applied + s->view_rejected)
    {
      gboolean bp = s->last_stop == VIPER_STOP_BREAKPOINT;
      GArray *a = s->stuck_fn (s->stuck_data, applied, bp, bp ? s->stop_bp : NAN);
      if (a)
        return a;
    }
  return g_array_new (FALSE, TRUE, sizeof (ViperStuck));
}

static const ViperRunView trail_view = { view_clock, view_offset, view_counts, view_stuck };

void
viper_sched_leave_replay (ViperScheduler *s)
{
  s->replaying = FALSE;
  viper_run_set_view (s->run, NULL, NULL);
}

void
viper_scheduler_enable_trail (ViperScheduler *s, gsize max_bytes)
{
  if (s->trail)
    return;
  s->trail = viper_trail_new (max_bytes, viper_run_decay (s->run));
  viper_trail_set_paradigm (s->trail, viper_run_paradigm (s->run));
}

ViperTrail *
viper_scheduler_get_trail (const ViperScheduler *s)
{
  return s->trail && !viper_trail_failed (s->trail) ? s->trail : NULL;
}

gboolean
viper_scheduler_replaying (const ViperScheduler *s)
{
  return s->replaying;
}

void
viper_scheduler_set_stuck_func (ViperScheduler *s, ViperStuckFunc fn, gpointer data)
{
  s->stuck_fn = fn;
  s->stuck_data = data;
}

void
viper_scheduler_set_transfer_limit (ViperScheduler *s, guint64 transferred, gboolean peek)
{
  s->transfer_limit = transferred;
  s->transfer_limit_peek = peek;
}

/* A replay forward from a position with this clock and this many state
 * changes stops where a replay from the start does. */
static gboolean
reaches (double clock, guint64 steps, double at_clock, guint64 at_steps)
{
  if (isnan (clock) && !steps)
    return at_steps == 0 && !isfinite (at_clock);   /* the start */
  return (isnan (clock) || !(at_clock > clock)) && (!steps || at_steps < steps);
}

/* Playback is placed (play_from): the scheduler waits for a run there. */
static void
replay_ready (ViperScheduler *s)
{
  s->state = VIPER_SCHED_IDLE;
  s->last_stop = VIPER_STOP_NONE;
  s->pace_clock0 = NAN;
}

gboolean
viper_scheduler_rewind (ViperScheduler *s, double clock, guint64 steps)
{
  if (!s->trail || viper_trail_failed (s->trail) || !s->model)
    return FALSE;
  guint64 len = viper_trail_length (s->trail);
  if (!s->replaying && s->model->applied != len)
    return FALSE;             /* the trail does not describe this run (enabled late) */
  guint64 here = s->replaying ? s->play.index : len;
  /* going on from here cannot apply trams skipped before here */
  gboolean here_ok = !s->skipped && reaches (clock, steps, viper_run_clock (s->run), s->steps_done);
  /* the latest checkpoint that reaches the target and can be restored */
  for (guint i = viper_trail_n_ckpts (s->trail); i-- > 0;)
    {
      const ViperTrailCkpt *c = viper_trail_ckpt (s->trail, i);
      if (!reaches (clock, steps, c->pos.clock, c->steps) || !c->model)
        continue;
      if (here_ok && here >= c->pos.index)
        return TRUE;          /* going on from here is as short */
      if (!viper_model_restore (s->model, c->model))
        continue;
      play_from (s, c);
      goto replay;
    }
  if (here_ok)
    return TRUE;
  play_from (s, NULL);
replay:
  replay_ready (s);
  return TRUE;
}

gboolean
viper_scheduler_rewind_to_tram_stop (ViperScheduler *s)
{
  guint64 index;
  if (!viper_sched_tram_stop_index (s, &index, NULL))
    return FALSE;
  /* the latest checkpoint that has not applied the tram yet (one at
   * position p has applied entries 0 .. p-1) */
  for (guint i = viper_trail_n_ckpts (s->trail); i-- > 0;)
    {
      const ViperTrailCkpt *c = viper_trail_ckpt (s->trail, i);
      if (c->pos.index <= index && c->model && viper_model_restore (s->model, c->model))
        {
          play_from (s, c);
          replay_ready (s);
          return TRUE;
        }
    }
  play_from (s, NULL);
  replay_ready (s);
  return TRUE;
}

/* Playback from s->play (just restored) behind the engine. */
void
viper_sched_start_replay (ViperScheduler *s)
{
  s->view_read = s->play.read;
  s->view_rejected = s->play.rejected;
  s->replaying = TRUE;
  s->skipped = 0;
  s->ahead = FALSE;
  viper_run_set_view (s->run, &trail_view, s);
}

/* ---- Back ------------------------------------------------------------------------ */

gboolean
viper_scheduler_stopped_at_clock (const ViperScheduler *s, double *clock)
{
  if (s->last_stop != VIPER_STOP_BREAKPOINT || isnan (s->stop_bp))
    return FALSE;
  if (clock)
    *clock = s->stop_bp;
  return TRUE;
}

/* Keep the n largest distinct values seen (kept[0] largest, *len of them). */
static void
keep_largest (double *kept, guint n, guint *len, double v)
{
  guint i = *len;
  if (i == n && !(v > kept[n - 1]))
    return;
  for (guint j = 0; j < *len; j++)
    if (kept[j] == v)
      return;
  if (i == n)
    i--;                      /* the smallest goes */
  while (i > 0 && kept[i - 1] < v)
    {
      kept[i] = kept[i - 1];
      i--;
    }
  kept[i] = v;
  if (*len < n)
    (*len)++;
}

gboolean
viper_scheduler_back_target (ViperScheduler *s, guint n, double *clock, guint64 *steps)
{
  *clock = NAN;
  *steps = 0;
  if (!n)
    return FALSE;
  double horizon;
  if (!viper_scheduler_stopped_at_clock (s, &horizon))
    {
      /* reached by steps (or from the start): the state is a prefix of the
       * run order, and one state change fewer there is a subset of it */
      guint64 k = s->steps_done;
      if (!k)
        return FALSE;
      *steps = k > n ? k - n : 0;
      return TRUE;
    }
  double shown = viper_run_clock (s->run);
  gboolean trail_ok = s->trail && !viper_trail_failed (s->trail) && s->model
                      && (s->replaying || s->model->applied == viper_trail_length (s->trail));
  if (!trail_ok)
    {
      /* no log of the run order to find the changes' clocks in: just before
       * the clock shown (the caller replays from the start) */
      if (!isfinite (shown))
        return FALSE;
      *clock = nextafter (shown, -INFINITY);
      return TRUE;
    }
  /* The state is every tram at or before the horizon, whatever their run
   * order; the n+1 latest clocks at which a tram of it changed the state:
   * the (n+1)-th is the state without the n latest changes. */
  guint64 here = s->replaying ? s->play.index : viper_trail_length (s->trail);
  double *kept = g_new (double, (gsize) n + 1);
  guint len = 0;
  ViperTrailPos p;
  viper_trail_pos_init (&p);
  for (guint64 i = 0; i < here; i++)
    {
      const ViperTram *t = viper_trail_peek (s->trail, &p, NULL, NULL);
      /* an entry of the state never applied cannot be: counted as a change */
      if (isfinite (t->adjusted) && t->adjusted <= horizon && viper_trail_changed (s->trail, i) != 0)
        keep_largest (kept, n + 1, &len, t->adjusted);
      viper_trail_skip (s->trail, &p);
    }
  viper_trail_pos_clear (&p);
  gboolean any = len > 0 || s->steps_done > 0 || isfinite (shown);
  if (len == n + 1)
    *clock = kept[n];         /* else fewer changes than presses: the start */
  g_free (kept);
  return any;
}
