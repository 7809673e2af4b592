/* scheduler-priv.h - the scheduler's state, shared by core/scheduler.c (the
 * replay loop) and core/scheduler-seek.c (seek by checkpoints: playback of
 * the trail behind the engine). */
#pragma once

#include "scheduler.h"
#include "trail.h"

typedef struct {
  ViperTransferHook fn;
  gpointer data;
} Hook;

typedef struct {
  ViperTramSource *src;
  guint64 trams_got;        /* trams taken from it */
  guint64 bad_seen;         /* its lines_bad when last looked at */
} SourceSlot;

struct _ViperScheduler {
  ViperRun *run;
  ViperModel *model;
  ViperChannels *channels;
  ViperDiag *diag;
  GArray *sources;          /* of SourceSlot */
  guint rr;                 /* round-robin position */
  GArray *hooks;            /* of Hook */
  ViperSchedNotify notify;
  gpointer notify_data;
  ViperSchedTick tick;
  gpointer tick_data;

  ViperSchedState state;
  double breakpoint;
  ViperTramRef tram_stop;   /* proc/seq or file:line; none when !has_tram_stop */
  gboolean has_tram_stop;
  gboolean tram_armed;
  gboolean tram_seen;       /* transferred by the engine since the reset */
  gint64 tram_hit_proc, tram_hit_seq;   /* the tram the last VIPER_STOP_TRAM stopped after */
  double tram_hit_time;     /* its adjusted time */
  guint64 step_limit;       /* remaining steps before a stop, 0 = none */
  guint64 steps_done;
  gboolean last_changed;    /* the last tram delivered changed the state (its trail mark) */
  guint64 step_from;        /* steps_done when the current Step or go_on began */
  gboolean pass_held;       /* RUNNING from go_on: a breakpoint that holds it at once is passed */
  ViperStopReason last_stop;

  double last_read_time;
  gint64 last_read_proc;
  gboolean have_last_read;

  /* replay speed (trace time per wall second, 0 = unlimited) and where the
   * pace started: clock pace_clock0 at monotonic time pace_t0 (NAN = at the
   * next tram) */
  double speed;
  double pace_clock0;
  gint64 pace_t0;
  gint64 pace_wait_us;      /* how long until the pace reaches the next tram */
  gboolean pacing;          /* inside idle_cb: the pace applies */
  GSource *pace_timer;

  GMainContext *ctx;
  GSource *idle;
  guint slice_us;           /* processing per idle dispatch */
  gint64 deadline_us;       /* monotonic: dispatches stop here (0: none) */
  guint min_slice_us;       /* ... but process at least this long */

  /* seek (core/trail.h): the trail, and playback behind the engine */
  ViperTrail *trail;
  gboolean trail_warned;
  gboolean bound_warned;    /* the breakpoint's reading hit the pending bound (said once) */
  /* Playback to a breakpoint applies the trams at or before it and skips the
   * others (the run order is not sorted by time): `skipped` entries before
   * play.index are not applied, the first at first_skip, under skip_bp.
   * Past the trail's end the engine then works ahead (reading on, its
   * transfers only logged) and playback applies what it logs. */
  guint64 skipped;
  guint64 first_skip;
  double skip_bp;
  gboolean ahead;           /* playback took over from the engine at a breakpoint (below) */
  double stop_bp;           /* the breakpoint of the last breakpoint stop */
  gboolean replaying;
  ViperTrailPos play;
  guint64 view_read, view_rejected;
  ViperStuckFunc stuck_fn;
  gpointer stuck_data;
  guint64 transferred;      /* by the engine since the reset */
  guint64 transfer_limit;
  gboolean transfer_limit_peek;

  /* every module, learnt ahead for collectives over group -1 (scheduler-modules.c) */
  gboolean modules_tried;   /* since the reset */
  GArray *known_modules;    /* what the files held, kept across resets; NULL: not learnt */
  struct _ViperModulesScan *scan;   /* the files being read for them, or NULL */
};

/* core/scheduler-modules.c: the run wants every module (a collective over
 * group -1): read them from the files ahead, when every source is one, on a
 * thread (FALSE while it reads: the engine waits); at a pause of live input,
 * the ones heard from (TRUE when it told them).  _stop: a reset or the end
 * stops the reading. */
typedef struct _ViperModulesScan ViperModulesScan;
gboolean viper_sched_learn_modules (ViperScheduler *s);
gboolean viper_sched_modules_at_pause (ViperScheduler *s);
void viper_sched_modules_stop (ViperScheduler *s);
/* Block until the files are read (a synchronous caller: nothing else to do). */
void viper_sched_modules_wait (ViperScheduler *s);
/* core/scheduler.c: the engine may go on (arm the idle when attached). */
void viper_sched_kick (ViperScheduler *s);

/* core/scheduler-seek.c */
void viper_sched_start_replay (ViperScheduler *s);   /* playback from s->play (just restored) */
void viper_sched_leave_replay (ViperScheduler *s);   /* back where the engine is */
void viper_sched_reposition (ViperScheduler *s);
gboolean viper_sched_tram_stop_index (ViperScheduler *s, guint64 *index, double *clock);     /* skipped trams and a moved breakpoint: from a checkpoint */
