/* scheduler.h - who does what when (thesis 4.1.2: idle / running / stepping).
 *
 * The scheduler owns the sources and drives run construction and the model.
 * One loop step: if a tram is ready, transfer it and apply it to the model
 * (unless it would pass the breakpoint: then it is held); otherwise take one
 * tram from a source and insert it.  A breakpoint stops once every tram at
 * or before it is applied and the sources are at their end: the stop is the
 * set of trams whose adjusted time is at most the breakpoint, whatever the
 * line order (spec section 3).  Transferring everything ready before reading more is
 * the minimal-delay policy, and it makes a replay from a file deterministic.
 *
 * Inside a GMainContext (attach): sources read at G_PRIORITY_HIGH, the
 * scheduler processes in time-sliced batches at idle priority, so reading
 * always wins and the UI stays responsive.  Headless callers use
 * viper_scheduler_run() which loops until a stop condition.
 */
#pragma once

#include "run.h"
#include "model.h"
#include "source.h"
#include "tramref.h"

G_BEGIN_DECLS

typedef enum {
  VIPER_SCHED_IDLE,
  VIPER_SCHED_RUNNING,
  VIPER_SCHED_STEPPING,
} ViperSchedState;

typedef enum {
  VIPER_STOP_NONE,
  VIPER_STOP_BREAKPOINT,    /* every tram at or before the breakpoint is applied, the sources are at
                             * their end, and trams past it are held */
  VIPER_STOP_STEP,          /* a step (one state change) or the step limit was reached */
  VIPER_STOP_END,           /* every source is at its end and nothing is ready */
  VIPER_STOP_WAITING,       /* nothing ready, sources may still deliver (live) */
  VIPER_STOP_USER,          /* stop() */
  VIPER_STOP_STRICT,        /* bad input under --strict */
  VIPER_STOP_PACE,          /* running at a replay speed: the next tram is ahead of the pace (still running) */
  VIPER_STOP_TRAM,          /* the tram stop's tram was just transferred and applied */
} ViperStopReason;

typedef struct _ViperScheduler ViperScheduler;

/* Called for every transferred tram after the model applied it. */
typedef void (*ViperTransferHook) (const ViperTram *t, gboolean changed, gpointer data);
/* Called when the scheduler state changes or it stops (GUI). */
typedef void (*ViperSchedNotify) (ViperScheduler *s, ViperStopReason why, gpointer data);

ViperScheduler *viper_scheduler_new (ViperRun *run, ViperModel *model, ViperChannels *channels, ViperDiag *diag);
void viper_scheduler_free (ViperScheduler *s);                 /* frees the sources too */
void viper_scheduler_add_source (ViperScheduler *s, ViperTramSource *src);   /* takes ownership */
guint viper_scheduler_n_sources (const ViperScheduler *s);
ViperTramSource *viper_scheduler_source (const ViperScheduler *s, guint i);
void viper_scheduler_add_hook (ViperScheduler *s, ViperTransferHook hook, gpointer data);
void viper_scheduler_set_notify (ViperScheduler *s, ViperSchedNotify notify, gpointer data);

/* NAN clears the breakpoint. */
void viper_scheduler_set_breakpoint (ViperScheduler *s, double clock);
double viper_scheduler_breakpoint (const ViperScheduler *s);
/* At the end of the input with trams pending: TRUE when a breakpoint is
 * set and no pending tram can still get an adjusted time at or before it
 * (viper_run_pending_earliest): the stop point is reached (spec section 5),
 * not the end with trams pending - a receive past it whose send never comes
 * does not hold it.  The scheduler's own end of the files stops as
 * VIPER_STOP_BREAKPOINT then; a front end that decides the end itself (a
 * live session's idle exit) asks it. */
gboolean viper_scheduler_breakpoint_reached (const ViperScheduler *s);
/* The input ended (viper_run_input_end, and the model told every module):
 * the scheduler's own end of the files does it; a live front end calls it
 * when it decides that the program ended (every connection closed), then
 * pumps on when it returns TRUE (the first time). */
gboolean viper_scheduler_input_end (ViperScheduler *s);
/* Stop right after the tram `ref` names is transferred and applied
 * (VIPER_STOP_TRAM), whether the engine transfers it or playback behind the
 * engine applies it again (a seek).  ref is copied; NULL clears it.  Setting
 * it arms it; it disarms when it stops (Go goes on past it), and a reset
 * arms it again.  A seek that is not the user's (the GUI's synchronous
 * replays) disarms it for the while. */
void viper_scheduler_set_tram_stop (ViperScheduler *s, const ViperTramRef *ref);
const ViperTramRef *viper_scheduler_tram_stop (const ViperScheduler *s);   /* NULL: none */
gboolean viper_scheduler_tram_stop_armed (const ViperScheduler *s);
void viper_scheduler_arm_tram_stop (ViperScheduler *s, gboolean armed);
/* The tram stop's tram was transferred since the reset (by the engine). */
gboolean viper_scheduler_tram_stop_seen (const ViperScheduler *s);
/* The last stop was at the tram stop: the tram it stopped right after (its
 * module, sequence number and adjusted time; each pointer may be NULL), for
 * the views' marker.  FALSE after any other stop. */
gboolean viper_scheduler_tram_stop_hit (const ViperScheduler *s, gint64 *proc, gint64 *seq, double *adjusted);
/* TRUE when the tram stop's tram is among the trams the model has applied
 * (it would never come again going forward), by the trail; *clock (may be
 * NULL) gets its adjusted time.  FALSE without a usable trail. */
gboolean viper_scheduler_tram_stop_behind (ViperScheduler *s, double *clock);
/* The tram stop's tram is behind (viper_scheduler_tram_stop_behind): go back
 * to the latest checkpoint that has not applied it yet (or the start), so
 * that a run with the stop armed stops right after it, as a replay from the
 * start would.  FALSE (nothing done) when it is not behind. */
gboolean viper_scheduler_rewind_to_tram_stop (ViperScheduler *s);
/* Stop after this many more steps (state changes); 0 = no limit. */
void viper_scheduler_set_step_limit (ViperScheduler *s, guint64 steps);

/* Replay speed: while RUNNING inside a main context (attach), the clock
 * moves at most `speed` trace time units per wall-clock second from where
 * Go (or the last speed change) found it; the scheduler waits on a timer for
 * the pace to reach the next tram.  0 (the default) = as fast as possible.
 * A breakpoint makes RUNNING a fast-forward to it, which ignores the speed;
 * stepping and the headless viper_scheduler_run() ignore it too. */
void viper_scheduler_set_speed (ViperScheduler *s, double speed);
double viper_scheduler_speed (const ViperScheduler *s);

ViperSchedState viper_scheduler_state (const ViperScheduler *s);
void viper_scheduler_go (ViperScheduler *s);
/* Go as the user's Go: a breakpoint that would stop it before any state
 * change (the state is already the breakpoint's, or the breakpoint is
 * behind the clock) is passed instead (cleared), as Step passes it.
 * viper_scheduler_go() stops there: a fast-forward to a breakpoint just set. */
void viper_scheduler_go_on (ViperScheduler *s);
void viper_scheduler_stop (ViperScheduler *s);
void viper_scheduler_step (ViperScheduler *s);
/* Clear run and model, rewind the file sources.  FALSE if a source cannot rewind. */
gboolean viper_scheduler_reset (ViperScheduler *s, GError **error);

/* Do at most `budget` loop steps now; returns why it stopped (NONE = budget used up). */
ViperStopReason viper_scheduler_pump (ViperScheduler *s, guint budget);
/* Headless: loop until a stop condition other than budget (blocking reads on files). */
ViperStopReason viper_scheduler_run (ViperScheduler *s);
/* Called by viper_scheduler_run() between batches of a few thousand steps
 * and before it waits for live input: a headless front end shows progress
 * and dispatches its signal handlers there.  A stop() from the tick (or
 * from what it dispatched) ends the run with VIPER_STOP_USER. */
typedef void (*ViperSchedTick) (ViperScheduler *s, gpointer data);
void viper_scheduler_set_tick (ViperScheduler *s, ViperSchedTick tick, gpointer data);

void viper_scheduler_attach (ViperScheduler *s, GMainContext *ctx);
/* How long one idle dispatch may process (default 8 ms).  A GUI whose frames
 * take longer sets about its frame time here, so that replaying keeps at
 * least half of the time however slow drawing gets. */
void viper_scheduler_set_slice (ViperScheduler *s, guint usec);
/* Instead of the slice: each idle dispatch stops at until_us (monotonic
 * time, g_get_monotonic_time) but processes at least min_us - a GUI's next
 * redraw, so that replaying never delays a frame past its time and frames
 * keep the update interval's pace; 0 goes back to the slice. */
void viper_scheduler_set_deadline (ViperScheduler *s, gint64 until_us, guint min_us);

/* ---- seek by checkpoints (core/trail.h) ------------------------------------
 * Files only (a live session cannot replay).  With a trail enabled, every
 * tram the engine transfers is logged, with model checkpoints every so many
 * trams.  viper_scheduler_rewind() then puts the model at the latest
 * checkpoint from which a replay forward reaches the target - the stop a
 * breakpoint at `clock` makes (NAN: none) and/or the `steps`-th state change
 * (0: none; both unset: the start) - and the scheduler replays the logged
 * trams from there, with no engine work, until it is back where the engine
 * is, where the engine takes over again.  Behind the engine the run's
 * figures (clock, counts, offsets, pending reasons) are the ones of the
 * replayed position (viper_run_set_view).  The caller then arms the same
 * breakpoint, and a step limit of steps - viper_scheduler_steps_done(), and
 * runs.  The state reached is the one a replay from the start reaches.
 * max_bytes: the trail's bound (0 = VIPER_TRAIL_DEFAULT_MAX_BYTES). */
typedef struct _ViperTrail ViperTrail;
void viper_scheduler_enable_trail (ViperScheduler *s, gsize max_bytes);
ViperTrail *viper_scheduler_get_trail (const ViperScheduler *s);   /* NULL when off */
/* FALSE when there is no usable trail (the caller resets and replays). */
gboolean viper_scheduler_rewind (ViperScheduler *s, double clock, guint64 steps);
/* The last stop was a stop by clock (a breakpoint, or a seek to a clock):
 * the state is every tram whose adjusted time is at most *clock (may be
 * NULL), whatever their run order.  FALSE after a stop by steps, at a tram,
 * at the end, by the user, and at the start. */
gboolean viper_scheduler_stopped_at_clock (const ViperScheduler *s, double *clock);
/* Where Back goes from the state shown, for n presses (the GUI gathers held
 * presses into one seek): a target for viper_scheduler_rewind() and the run
 * that follows.  After a stop by steps (or at a tram), n state changes fewer
 * in the run order (*steps; 0 with *clock NAN: the start), a subset of the
 * trams shown, so the clock never moves forward.  After a stop by clock the
 * trams shown are not a prefix of the run order (lines out of time order),
 * and a prefix with fewer state changes can hold trams later than the
 * clock: Back goes back in time instead.  *clock is the clock of the state
 * change before the n latest ones among the trams shown (by the trail's
 * marks, viper_trail_changed), so the clock shown after the seek (*clock
 * itself) is strictly earlier, and Back again goes on back; fewer changes
 * than n: the start (*clock NAN, *steps 0).  Without a usable trail: the
 * clock just before the one shown.  FALSE when there is nothing behind (the
 * start): nothing to do. */
gboolean viper_scheduler_back_target (ViperScheduler *s, guint n, double *clock, guint64 *steps);
/* TRUE while the scheduler replays the trail behind the engine. */
gboolean viper_scheduler_replaying (const ViperScheduler *s);
/* Pending reasons behind the engine are not in the engine any more: this
 * function works them out (a fresh pipeline run to `transferred` trams;
 * `peek`: then on until the next tram is ready; at a breakpoint stop
 * `breakpoint` is the breakpoint (else NAN), and the fresh pipeline runs to
 * it instead, as a replay from the start does).  Without one, the list
 * there is empty. */
typedef GArray *(*ViperStuckFunc) (gpointer data, guint64 transferred, gboolean peek, double breakpoint);
void viper_scheduler_set_stuck_func (ViperScheduler *s, ViperStuckFunc fn, gpointer data);
/* Stop (as STEP) once `transferred` trams have been transferred since the
 * reset: right after the last one, or with `peek` once the next is ready.
 * G_MAXUINT64 = no limit (the default). */
void viper_scheduler_set_transfer_limit (ViperScheduler *s, guint64 transferred, gboolean peek);

ViperRun *viper_scheduler_get_run (const ViperScheduler *s);
ViperModel *viper_scheduler_get_model (const ViperScheduler *s);
/* The last tram read from a source (its time stamp and module); FALSE before any. */
gboolean viper_scheduler_last_read (const ViperScheduler *s, double *time, gint64 *proc);
guint64 viper_scheduler_steps_done (const ViperScheduler *s);
ViperStopReason viper_scheduler_last_stop (const ViperScheduler *s);

G_END_DECLS
