/* scheduler.c - the replay loop shared by the GUI and viper-replay.
 *
 * Sources are polled round-robin so one busy connection cannot starve the
 * others.  A line a source rejected (lines_bad) is counted in the run as
 * read and rejected, which keeps read = transferred + pending + rejected
 * exact at every stop.
 */
#include <math.h>
#include <string.h>
#include "scheduler.h"
#include "scheduler-priv.h"


ViperScheduler *
viper_scheduler_new (ViperRun *run, ViperModel *model, ViperChannels *channels, ViperDiag *diag)
{
  ViperScheduler *s = g_new0 (ViperScheduler, 1);
  s->run = run;
  s->model = model;
  s->channels = channels;
  if (model && channels)
    model->channels = channels;
  s->diag = diag;
  s->sources = g_array_new (FALSE, TRUE, sizeof (SourceSlot));
  s->hooks = g_array_new (FALSE, FALSE, sizeof (Hook));
  s->breakpoint = NAN;
  s->state = VIPER_SCHED_IDLE;
  s->slice_us = 8000;
  s->pace_clock0 = NAN;
  s->transfer_limit = G_MAXUINT64;
  /* without collectives there is nothing to learn the modules for */
  s->modules_tried = !viper_run_paradigm (run)->join;
  viper_trail_pos_init (&s->play);
  return s;
}

void
viper_scheduler_free (ViperScheduler *s)
{
  if (!s)
    return;
  if (s->idle)
    {
      g_source_destroy (s->idle);
      g_source_unref (s->idle);
    }
  if (s->pace_timer)
    {
      g_source_destroy (s->pace_timer);
      g_source_unref (s->pace_timer);
    }
  viper_sched_modules_stop (s);
  for (guint i = 0; i < s->sources->len; i++)
    viper_tram_source_free (g_array_index (s->sources, SourceSlot, i).src);
  g_array_unref (s->sources);
  g_array_unref (s->hooks);
  if (s->replaying)
    viper_run_set_view (s->run, NULL, NULL);
  viper_trail_free (s->trail);
  viper_trail_pos_clear (&s->play);
  viper_tram_ref_clear (&s->tram_stop);
  g_clear_pointer (&s->known_modules, g_array_unref);
  g_free (s);
}

static void ensure_idle (ViperScheduler *s);

static void
source_ready (ViperTramSource *src, gpointer data)
{
  (void) src;
  ViperScheduler *s = data;
  if (s->state != VIPER_SCHED_IDLE)
    ensure_idle (s);
}

static void
source_ahead (const ViperTram *upcoming, gpointer data)
{
  viper_run_prefetch (((ViperScheduler *) data)->run, upcoming);
}

/* A bad line that still names its PROC (and D1): its module goes on past it. */
static void
source_reject (gint64 proc, gint64 d1, guint32 channel, guint64 line, gpointer data)
{
  viper_run_note_rejected (((ViperScheduler *) data)->run, proc, d1, channel, line);
}

void
viper_scheduler_add_source (ViperScheduler *s, ViperTramSource *src)
{
  SourceSlot slot = { .src = src };
  g_array_append_val (s->sources, slot);
  viper_tram_source_set_ready_func (src, source_ready, s);
  viper_tram_source_set_reject_func (src, source_reject, s);
  /* only explicit sequence numbers land far from the cut (viper_run_prefetch) */
  if (viper_run_paradigm (s->run)->explicit_seq)
    viper_tram_source_set_ahead_func (src, source_ahead, s);
  if (s->ctx)
    viper_tram_source_attach (src, s->ctx);
}

guint
viper_scheduler_n_sources (const ViperScheduler *s)
{
  return s->sources->len;
}

ViperTramSource *
viper_scheduler_source (const ViperScheduler *s, guint i)
{
  return i < s->sources->len ? g_array_index (s->sources, SourceSlot, i).src : NULL;
}

void
viper_scheduler_add_hook (ViperScheduler *s, ViperTransferHook hook, gpointer data)
{
  Hook h = { hook, data };
  g_array_append_val (s->hooks, h);
}

void
viper_scheduler_set_notify (ViperScheduler *s, ViperSchedNotify notify, gpointer data)
{
  s->notify = notify;
  s->notify_data = data;
}

void
viper_scheduler_set_breakpoint (ViperScheduler *s, double clock)
{
  s->breakpoint = clock;
}

double
viper_scheduler_breakpoint (const ViperScheduler *s)
{
  return s->breakpoint;
}

void
viper_scheduler_set_tram_stop (ViperScheduler *s, const ViperTramRef *ref)
{
  s->has_tram_stop = ref != NULL;
  s->tram_armed = ref != NULL;
  s->tram_seen = FALSE;
  if (ref)
    viper_tram_ref_copy (&s->tram_stop, ref);   /* copies before it frees: ref may be the stop itself */
  else
    viper_tram_ref_clear (&s->tram_stop);
}

const ViperTramRef *
viper_scheduler_tram_stop (const ViperScheduler *s)
{
  return s->has_tram_stop ? &s->tram_stop : NULL;
}

gboolean
viper_scheduler_tram_stop_armed (const ViperScheduler *s)
{
  return s->has_tram_stop && s->tram_armed;
}

void
viper_scheduler_arm_tram_stop (ViperScheduler *s, gboolean armed)
{
  s->tram_armed = s->has_tram_stop && armed;
}

gboolean
viper_scheduler_tram_stop_seen (const ViperScheduler *s)
{
  return s->has_tram_stop && s->tram_seen;
}

/* t is the tram stop's tram. */
static gboolean
is_tram_stop (ViperScheduler *s, const ViperTram *t)
{
  if (!s->has_tram_stop)
    return FALSE;
  const char *channel = s->tram_stop.file && s->channels ? viper_channels_name (s->channels, t->channel) : NULL;
  return viper_tram_ref_matches (&s->tram_stop, t, channel);
}

/* The tram stop's tram among the trams the model has applied, by the trail:
 * its entry's index (and adjusted time). */
gboolean
viper_sched_tram_stop_index (ViperScheduler *s, guint64 *index, double *clock)
{
  if (!s->has_tram_stop || !s->trail || viper_trail_failed (s->trail) || !s->model)
    return FALSE;
  guint64 len = viper_trail_length (s->trail);
  if (!s->replaying && s->model->applied != len)
    return FALSE;             /* the trail does not describe this run */
  guint64 here = s->replaying ? s->play.index : len;
  ViperTrailPos p;
  viper_trail_pos_init (&p);
  gboolean found = FALSE;
  for (guint64 i = 0; i < here && !found; i++)
    {
      guint64 rd, rj;
      const ViperTram *t = viper_trail_peek (s->trail, &p, &rd, &rj);
      found = is_tram_stop (s, t);
      if (found)
        {
          if (clock)
            *clock = t->adjusted;
          if (index)
            *index = i;
        }
      viper_trail_skip (s->trail, &p);
    }
  viper_trail_pos_clear (&p);
  return found;
}

gboolean
viper_scheduler_tram_stop_behind (ViperScheduler *s, double *clock)
{
  return viper_sched_tram_stop_index (s, NULL, clock);
}

void
viper_scheduler_set_step_limit (ViperScheduler *s, guint64 steps)
{
  s->step_limit = steps;
}

void
viper_scheduler_set_speed (ViperScheduler *s, double speed)
{
  s->speed = isfinite (speed) && speed > 0 ? speed : 0;
  /* the new pace starts from where the clock is now */
  s->pace_clock0 = NAN;
  if (s->pace_timer && s->state == VIPER_SCHED_RUNNING)
    ensure_idle (s);
}

double
viper_scheduler_speed (const ViperScheduler *s)
{
  return s->speed;
}

ViperSchedState
viper_scheduler_state (const ViperScheduler *s)
{
  return s->state;
}

static void
set_stopped (ViperScheduler *s, ViperStopReason why)
{
  s->last_stop = why;
  /* what the stop point shows (the stuck lists' reasons) does not depend
   * on the claim window: held lists claim on */
  if (why != VIPER_STOP_NONE && s->run)
    viper_run_bound_claims (s->run, FALSE);
  if (why == VIPER_STOP_BREAKPOINT)
    s->stop_bp = s->breakpoint;
  if (why != VIPER_STOP_WAITING && why != VIPER_STOP_NONE)
    s->state = VIPER_SCHED_IDLE;
  if (s->notify)
    s->notify (s, why, s->notify_data);
}

void
viper_scheduler_go (ViperScheduler *s)
{
  s->state = VIPER_SCHED_RUNNING;
  s->pass_held = FALSE;
  s->pace_clock0 = NAN;
  ensure_idle (s);
  if (s->notify)
    s->notify (s, VIPER_STOP_NONE, s->notify_data);
}

void
viper_scheduler_go_on (ViperScheduler *s)
{
  viper_scheduler_go (s);
  s->pass_held = TRUE;
  s->step_from = s->steps_done;
}

void
viper_scheduler_stop (ViperScheduler *s)
{
  if (s->state == VIPER_SCHED_IDLE)
    return;
  set_stopped (s, VIPER_STOP_USER);
}

void
viper_scheduler_step (ViperScheduler *s)
{
  s->state = VIPER_SCHED_STEPPING;
  s->step_from = s->steps_done;
  ensure_idle (s);
  if (s->notify)
    s->notify (s, VIPER_STOP_NONE, s->notify_data);
}

gboolean
viper_scheduler_reset (ViperScheduler *s, GError **error)
{
  gboolean ok = TRUE;
  s->state = VIPER_SCHED_IDLE;
  s->pace_clock0 = NAN;
  if (s->replaying)
    viper_run_set_view (s->run, NULL, NULL);
  s->replaying = FALSE;
  s->skipped = 0;
  s->ahead = FALSE;
  if (s->trail)
    viper_trail_clear (s->trail);
  s->trail_warned = FALSE;
  s->transferred = 0;
  s->tram_armed = s->has_tram_stop;
  s->tram_seen = FALSE;
  s->modules_tried = !viper_run_paradigm (s->run)->join;
  viper_sched_modules_stop (s);
  viper_run_reset (s->run);
  if (s->model)
    viper_model_reset (s->model);
  if (s->channels)
    viper_channels_reset_seq (s->channels);
  for (guint i = 0; i < s->sources->len; i++)
    {
      SourceSlot *slot = &g_array_index (s->sources, SourceSlot, i);
      GError *e = NULL;
      if (!viper_tram_source_reset (slot->src, &e))
        {
          if (ok && error)
            *error = e;
          else
            g_clear_error (&e);
          ok = FALSE;
        }
      slot->trams_got = 0;
      slot->bad_seen = slot->src->lines_bad;
    }
  s->steps_done = 0;
  s->have_last_read = FALSE;
  s->last_stop = VIPER_STOP_NONE;
  if (s->diag)
    {
      s->diag->bad = 0;
      s->diag->stop_requested = FALSE;
    }
  return ok;
}

/* Account for lines the source rejected (trams are counted by insert). */
static void
sync_rejected (ViperScheduler *s, SourceSlot *slot)
{
  guint64 bad = slot->src->lines_bad;
  if (bad > slot->bad_seen)
    {
      viper_run_count_rejected (s->run, bad - slot->bad_seen);
      slot->bad_seen = bad;
    }
}

/* Take one tram from some source; FALSE when none is pending now. */
static gboolean
read_one (ViperScheduler *s, gboolean *all_at_end)
{
  guint n = s->sources->len;
  *all_at_end = TRUE;
  for (guint k = 0; k < n; k++)
    {
      guint i = (s->rr + k) % n;
      SourceSlot *slot = &g_array_index (s->sources, SourceSlot, i);
      if (viper_tram_pending (slot->src))
        {
          ViperTram *t = viper_get_tram (slot->src);
          if (t)
            {
              sync_rejected (s, slot);
              slot->trams_got++;
              s->last_read_time = t->time;
              s->last_read_proc = t->proc;
              s->have_last_read = TRUE;
              viper_run_insert (s->run, t);
              s->rr = (i + 1) % n;
              *all_at_end = FALSE;
              return TRUE;
            }
        }
      sync_rejected (s, slot);
      if (!viper_tram_source_at_end (slot->src))
        *all_at_end = FALSE;
    }
  return FALSE;
}

/* The pace holds `next` back: how long to wait is in pace_wait_us. */
static gboolean
pace_holds (ViperScheduler *s, const ViperTram *next)
{
  if (!(s->pacing && s->speed > 0 && s->state == VIPER_SCHED_RUNNING && isnan (s->breakpoint)))
    return FALSE;
  /* a timeless tram (a definition dated 0 before epoch times) is no moment
   * of the run: it neither waits nor sets the pace's origin */
  if (viper_paradigm_timeless (viper_run_paradigm (s->run), next))
    return FALSE;
  gint64 now = g_get_monotonic_time ();
  if (isnan (s->pace_clock0))
    {
      double clock = viper_run_clock (s->run);
      s->pace_clock0 = isfinite (clock) ? clock : next->adjusted;
      s->pace_t0 = now;
    }
  double horizon = s->pace_clock0 + s->speed * (double) (now - s->pace_t0) / 1e6;
  if (next->adjusted > horizon)
    {
      s->pace_wait_us = (gint64) ceil ((next->adjusted - horizon) / s->speed * 1e6);
      return TRUE;
    }
  return FALSE;
}

/* Apply a transferred tram (from the engine or the trail); a stop reason
 * when it ends the pump, else NONE. */
static ViperStopReason
deliver (ViperScheduler *s, const ViperTram *t)
{
  gboolean changed = s->model ? viper_model_apply (s->model, t) : TRUE;
  s->last_changed = changed;
  for (guint i = 0; i < s->hooks->len; i++)
    {
      Hook *h = &g_array_index (s->hooks, Hook, i);
      h->fn (t, changed, h->data);
    }
  ViperStopReason why = VIPER_STOP_NONE;
  if (changed)
    {
      s->steps_done++;
      if (s->state == VIPER_SCHED_STEPPING)
        why = VIPER_STOP_STEP;
      if (s->step_limit && --s->step_limit == 0)
        why = VIPER_STOP_STEP;
    }
  /* the tram stop: right after its tram, also when that tram changed nothing */
  if (s->tram_armed && is_tram_stop (s, t))
    {
      s->tram_armed = FALSE;
      s->tram_hit_proc = t->proc;
      s->tram_hit_seq = t->seq;
      s->tram_hit_time = t->adjusted;
      why = VIPER_STOP_TRAM;
    }
  if (why != VIPER_STOP_NONE)
    set_stopped (s, why);
  return why;
}

/* Log a transfer; a checkpoint when due, unless the model is behind the
 * engine (ahead: it does not describe this position). */
static void
trail_record (ViperScheduler *s, const ViperTram *t, gboolean ahead)
{
  if (!s->trail || viper_trail_failed (s->trail))
    return;
  ViperCounts c;
  viper_run_engine_counts (s->run, &c);
  if (!viper_trail_append (s->trail, t, c.read, c.rejected))
    {
      if (!s->trail_warned && s->diag)
        viper_diag_event (s->diag, VIPER_DIAG_WARNING,
                          "seek: the trail passed its bound of %" G_GSIZE_FORMAT " MiB at tram %" G_GUINT64_FORMAT
                          "; seeking back replays from the start", viper_trail_max_bytes (s->trail) >> 20,
                          s->transferred);
      s->trail_warned = TRUE;
      return;
    }
  if (!ahead)
    viper_trail_set_changed (s->trail, viper_trail_length (s->trail) - 1, s->last_changed);
  if (!ahead && viper_trail_ckpt_due (s->trail))
    viper_trail_add_ckpt (s->trail, s->steps_done, s->model ? viper_model_checkpoint (s->model) : NULL);
}

/* A Step (or a Go from viper_scheduler_go_on) held by the breakpoint before
 * it changed anything: the state shown is already the breakpoint's (reached
 * by steps, or by Back from beyond it), or the breakpoint is behind it, so
 * stopping "at the breakpoint" would make the press do nothing.  As from a
 * breakpoint stop, it passes the breakpoint and goes on. */
static gboolean
step_passes_breakpoint (ViperScheduler *s)
{
  gboolean pressed = s->state == VIPER_SCHED_STEPPING || (s->state == VIPER_SCHED_RUNNING && s->pass_held);
  if (!pressed || s->steps_done != s->step_from || isnan (s->breakpoint))
    return FALSE;
  s->breakpoint = NAN;
  return TRUE;
}

/* Reading on for a breakpoint holds every tram read after it: at the pending
 * bound (viper_run_set_max_pending) reading stops there instead of refusing
 * lines, and the stop says once that later trams are not in it. */
static gboolean
breakpoint_bound_hit (ViperScheduler *s)
{
  ViperCounts c;
  viper_run_engine_counts (s->run, &c);
  if (c.pending < viper_run_max_pending (s->run))
    return FALSE;
  if (!s->bound_warned && s->diag)
    viper_diag_event (s->diag, VIPER_DIAG_WARNING,
                      "breakpoint %.17g: stopped reading at %" G_GUINT64_FORMAT " pending trams (the bound, "
                      "--max-pending); trams read after them are not in this state", s->breakpoint, c.pending);
  s->bound_warned = TRUE;
  return TRUE;
}

/* One step of playback behind the engine; VIPER_STOP_NONE to go on. */
static ViperStopReason
replay_one (ViperScheduler *s)
{
  guint64 rd, rj;
  const ViperTram *t = viper_trail_peek (s->trail, &s->play, &rd, &rj);
  if (!isnan (s->breakpoint) && t->adjusted > s->breakpoint)
    {
      /* past the breakpoint: not applied, but later entries may be at or
       * before it (a replay from the start holds this one and goes on) */
      if (!s->skipped)
        {
          s->first_skip = s->play.index;
          s->skip_bp = s->breakpoint;
        }
      s->skipped++;
      if (s->model)
        s->model->off_run = TRUE;
      viper_trail_skip (s->trail, &s->play);
      return VIPER_STOP_NONE;
    }
  if (pace_holds (s, t))
    return VIPER_STOP_PACE;
  guint64 index = s->play.index;
  viper_trail_advance (s->trail, &s->play);
  s->view_read = rd;
  s->view_rejected = rj;
  ViperStopReason why = deliver (s, t);
  viper_trail_set_changed (s->trail, index, s->last_changed);
  return why;
}

/* The engine's real counts, also behind the engine (for the view). */
static void
engine_counts_to_view (ViperScheduler *s)
{
  ViperCounts c;
  viper_run_engine_counts (s->run, &c);
  s->view_read = c.read;
  s->view_rejected = c.rejected;
}

/* One step of the engine: transfer a ready tram, or read one.  ahead: the
 * model is behind (playback skipped trams past the breakpoint), so the
 * transfer is only logged and playback applies it.  VIPER_STOP_NONE to go on. */
static ViperStopReason
engine_one (ViperScheduler *s, gboolean ahead)
{
  if (s->transfer_limit != G_MAXUINT64 && s->transferred >= s->transfer_limit && !s->transfer_limit_peek)
    {
      set_stopped (s, VIPER_STOP_STEP);
      return VIPER_STOP_STEP;
    }
  /* a collective over every module: learn them before it goes on (the
   * files are read for them on a thread: meanwhile the engine waits) */
  if (G_UNLIKELY (!s->modules_tried) && viper_run_wants_modules (s->run) && !viper_sched_learn_modules (s))
    {
      s->last_stop = VIPER_STOP_WAITING;
      return VIPER_STOP_WAITING;
    }
  /* a breakpoint's stop point needs every tram claimed that can be */
  viper_run_bound_claims (s->run, isnan (s->breakpoint));
  const ViperTram *next = viper_run_peek (s->run);
  /* Held by the breakpoint: every ready tram would pass it.  A tram not
   * read yet may still be at or before it (the stop point is the set of
   * trams whose adjusted time is at most the breakpoint, whatever the line
   * order: spec section 3), so reading goes on to the end.  With a trail the
   * engine is not held (the trail stays the run's own order, which seeks by
   * steps follow): playback takes over at the trail's end, the engine works
   * ahead, and playback applies what it logs at or before the breakpoint. */
  gboolean held = !ahead && next && !isnan (s->breakpoint) && next->adjusted > s->breakpoint;
  if (held && s->trail && !viper_trail_failed (s->trail) && s->model
      && s->model->applied == viper_trail_length (s->trail))
    {
      viper_trail_pos_clear (&s->play);
      viper_trail_pos_end (s->trail, &s->play);
      viper_sched_start_replay (s);
      s->ahead = TRUE;
      s->skip_bp = s->breakpoint;
      return VIPER_STOP_NONE;
    }
  if (held && breakpoint_bound_hit (s))
    {
      set_stopped (s, VIPER_STOP_BREAKPOINT);
      return VIPER_STOP_BREAKPOINT;
    }
  if (next && !held)
    {
      if (s->transfer_limit != G_MAXUINT64 && s->transferred >= s->transfer_limit)
        {
          set_stopped (s, VIPER_STOP_STEP);
          return VIPER_STOP_STEP;
        }
      if (pace_holds (s, next))
        return VIPER_STOP_PACE;
      const ViperTram *t = viper_run_transfer_next (s->run);
      s->transferred++;
      if (s->has_tram_stop && !s->tram_seen && is_tram_stop (s, t))
        s->tram_seen = TRUE;
      if (ahead && s->trail && !viper_trail_failed (s->trail))
        {
          trail_record (s, t, TRUE);
          if (!viper_trail_failed (s->trail))
            return VIPER_STOP_NONE;
        }
      ViperStopReason r = deliver (s, t);
      trail_record (s, t, FALSE);
      return r;
    }
  gboolean all_at_end;
  if (read_one (s, &all_at_end))
    return VIPER_STOP_NONE;
  if (s->diag && s->diag->stop_requested)
    return VIPER_STOP_NONE;   /* a bad last line under --strict: stop as such, not as the end */
  /* nothing to read now (the end, or live input pausing), nothing ready:
   * what waits for that goes (a program manager's verdict) */
  if (viper_run_release_after_input (s->run))
    return VIPER_STOP_NONE;
  if (!all_at_end && viper_sched_modules_at_pause (s))
    return VIPER_STOP_NONE;
  if (all_at_end)
    {
      /* every module is known now: collectives over all of them may end */
      if (viper_scheduler_input_end (s))
        return VIPER_STOP_NONE;
      if (s->trail)
        {
          ViperCounts c;
          viper_run_engine_counts (s->run, &c);
          viper_trail_set_final (s->trail, c.read, c.rejected);
        }
      if (ahead)
        engine_counts_to_view (s);
      held = held || ahead || viper_scheduler_breakpoint_reached (s);
      if (held && step_passes_breakpoint (s))
        return VIPER_STOP_NONE;
      set_stopped (s, held ? VIPER_STOP_BREAKPOINT : VIPER_STOP_END);
      return held ? VIPER_STOP_BREAKPOINT : VIPER_STOP_END;
    }
  s->last_stop = VIPER_STOP_WAITING;
  return VIPER_STOP_WAITING;
}

gboolean
viper_scheduler_input_end (ViperScheduler *s)
{
  if (!viper_run_input_end (s->run))
    return FALSE;
  if (s->model)
    {
      GArray *procs = viper_run_procs (s->run);
      viper_model_set_modules (s->model, procs);
      g_array_unref (procs);
    }
  return TRUE;
}

gboolean
viper_scheduler_breakpoint_reached (const ViperScheduler *s)
{
  if (isnan (s->breakpoint))
    return FALSE;
  ViperCounts c;
  viper_run_engine_counts (s->run, &c);
  return c.pending > 0 && viper_run_pending_earliest (s->run) > s->breakpoint;
}

static gboolean
same_breakpoint (double a, double b)
{
  return (isnan (a) && isnan (b)) || a == b;
}

ViperStopReason
viper_scheduler_pump (ViperScheduler *s, guint budget)
{
  while (budget--)
    {
      if (s->diag && s->diag->stop_requested)
        {
          /* the bad line may have come in on a socket, outside read_one */
          for (guint i = 0; i < s->sources->len; i++)
            sync_rejected (s, &g_array_index (s->sources, SourceSlot, i));
          set_stopped (s, VIPER_STOP_STRICT);
          return VIPER_STOP_STRICT;
        }
      if (s->replaying && (s->skipped || s->ahead) && !same_breakpoint (s->breakpoint, s->skip_bp))
        {
          if (s->skipped && s->trail && !viper_trail_failed (s->trail))
            viper_sched_reposition (s);
          else
            s->skipped = 0, s->ahead = FALSE;   /* nothing skipped (or no trail): on from here */
        }
      if (s->replaying)
        {
          if (s->play.index < viper_trail_length (s->trail))
            {
              ViperStopReason r = replay_one (s);
              if (r != VIPER_STOP_NONE)
                return r;
              continue;
            }
          if ((s->skipped || s->ahead) && !viper_trail_failed (s->trail))
            {
              /* the engine reads on for the breakpoint; playback follows */
              ViperStopReason r = engine_one (s, TRUE);
              if (r != VIPER_STOP_NONE)
                return r;
              continue;
            }
          s->skipped = 0;
          s->ahead = FALSE;
          viper_sched_leave_replay (s);     /* back where the engine is */
        }
      ViperStopReason r = engine_one (s, FALSE);
      if (r != VIPER_STOP_NONE)
        return r;
    }
  return VIPER_STOP_NONE;
}

void
viper_scheduler_set_tick (ViperScheduler *s, ViperSchedTick tick, gpointer data)
{
  s->tick = tick;
  s->tick_data = data;
}

ViperStopReason
viper_scheduler_run (ViperScheduler *s)
{
  if (s->state == VIPER_SCHED_IDLE)
    s->state = VIPER_SCHED_RUNNING;
  for (;;)
    {
      ViperStopReason r = viper_scheduler_pump (s, 4096);
      if ((r == VIPER_STOP_NONE || r == VIPER_STOP_WAITING) && s->tick)
        {
          s->tick (s, s->tick_data);
          /* stopped from the tick, or by what its dispatch ran */
          if (s->state == VIPER_SCHED_IDLE)
            return s->last_stop;
        }
      if (r == VIPER_STOP_NONE)
        continue;
      if (r == VIPER_STOP_WAITING && s->scan)
        {
          /* the files read ahead for their processors: a synchronous run
           * waits for that alone, it dispatches nothing meanwhile */
          viper_sched_modules_wait (s);
          continue;
        }
      if (r == VIPER_STOP_WAITING)
        {
          /* live sources: let the main context deliver more */
          GMainContext *ctx = s->ctx ? s->ctx : g_main_context_default ();
          g_main_context_iteration (ctx, TRUE);
          if (s->state == VIPER_SCHED_IDLE)
            return s->last_stop;   /* a stop() (a signal) while waiting */
          continue;
        }
      return r;
    }
}

static gboolean
pace_timer_cb (gpointer data)
{
  ViperScheduler *s = data;
  g_source_unref (s->pace_timer);
  s->pace_timer = NULL;
  if (s->state != VIPER_SCHED_IDLE)
    ensure_idle (s);
  return G_SOURCE_REMOVE;
}

static void
pace_wait (ViperScheduler *s, guint ms)
{
  if (s->pace_timer || !s->ctx)
    return;
  s->pace_timer = g_timeout_source_new (ms);
  g_source_set_callback (s->pace_timer, pace_timer_cb, s, NULL);
  g_source_attach (s->pace_timer, s->ctx);
}

/* Time-sliced processing in the main loop: slice_us of work per dispatch,
 * or up to the deadline when one is set. */
static gboolean
idle_cb (gpointer data)
{
  ViperScheduler *s = data;
  if (s->state == VIPER_SCHED_IDLE)
    goto done;
  gint64 now = g_get_monotonic_time ();
  gint64 until = s->deadline_us > 0 ? MAX (s->deadline_us, now + s->min_slice_us) : now + s->slice_us;
  do
    {
      s->pacing = TRUE;
      ViperStopReason r = viper_scheduler_pump (s, 256);
      s->pacing = FALSE;
      if (r == VIPER_STOP_PACE)
        {
          /* wake when the pace reaches the next tram, or sooner, so that a
           * speed change takes effect while waiting on a long gap */
          pace_wait (s, (guint) CLAMP (s->pace_wait_us / 1000, 1, 40));
          goto done;
        }
      if (r != VIPER_STOP_NONE)
        goto done;
    }
  while (g_get_monotonic_time () < until);
  return G_SOURCE_CONTINUE;
done:
  g_source_unref (s->idle);
  s->idle = NULL;
  return G_SOURCE_REMOVE;
}

static void
ensure_idle (ViperScheduler *s)
{
  if (!s->ctx || s->idle)
    return;
  s->idle = g_idle_source_new ();
  g_source_set_priority (s->idle, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_callback (s->idle, idle_cb, s, NULL);
  g_source_attach (s->idle, s->ctx);
}

void
viper_sched_kick (ViperScheduler *s)
{
  if (s->state != VIPER_SCHED_IDLE)
    ensure_idle (s);
}

void
viper_scheduler_attach (ViperScheduler *s, GMainContext *ctx)
{
  s->ctx = ctx ? ctx : g_main_context_default ();
  for (guint i = 0; i < s->sources->len; i++)
    viper_tram_source_attach (g_array_index (s->sources, SourceSlot, i).src, s->ctx);
  if (s->state != VIPER_SCHED_IDLE)
    ensure_idle (s);
}

void
viper_scheduler_set_slice (ViperScheduler *s, guint usec)
{
  s->slice_us = CLAMP (usec, 1000u, 500000u);
}

void
viper_scheduler_set_deadline (ViperScheduler *s, gint64 until_us, guint min_us)
{
  s->deadline_us = until_us;
  s->min_slice_us = MIN (min_us, 500000u);
}

ViperRun *viper_scheduler_get_run (const ViperScheduler *s) { return s->run; }
ViperModel *viper_scheduler_get_model (const ViperScheduler *s) { return s->model; }
guint64 viper_scheduler_steps_done (const ViperScheduler *s) { return s->steps_done; }
ViperStopReason viper_scheduler_last_stop (const ViperScheduler *s) { return s->last_stop; }

gboolean
viper_scheduler_tram_stop_hit (const ViperScheduler *s, gint64 *proc, gint64 *seq, double *adjusted)
{
  if (s->last_stop != VIPER_STOP_TRAM)
    return FALSE;
  if (proc)
    *proc = s->tram_hit_proc;
  if (seq)
    *seq = s->tram_hit_seq;
  if (adjusted)
    *adjusted = s->tram_hit_time;
  return TRUE;
}

gboolean
viper_scheduler_last_read (const ViperScheduler *s, double *time, gint64 *proc)
{
  if (!s->have_last_read)
    return FALSE;
  if (time)
    *time = s->last_read_time;
  if (proc)
    *proc = s->last_read_proc;
  return TRUE;
}
