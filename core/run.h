/* run.h - causal reconstruction of a consistent run (thesis chapter 5).
 *
 * Trams go in one at a time with viper_run_insert(), in whatever order they
 * arrive.  Per module (PROC) a sequence list holds them INITIAL until every
 * predecessor has arrived, then QUEUED.  Each list claims its QUEUED trams in
 * sequence order into primitive lists driven by the paradigm's profiles
 * (core/paradigm.h): a START opens a primitive and posts one expectation per
 * slot, keyed by (sequence list, match class, key1, key2); a SLOT tram takes
 * the oldest expectation with its key (message channels are FIFO, so the
 * oldest is the right one, thesis 5.1.1).  A tram becomes ready when it is
 * claimed, its sequence predecessor is transferred and the tram its slot
 * waits for (cross-dependency) is transferred; ready trams leave with
 * viper_run_transfer_next(), smallest adjusted time first.
 *
 * Adjusted time (thesis 5.2, DESIGN.md):
 *   t' = max(t + offset[m], t' of the sequence predecessor and the cross-dependency)
 *   if t' - t > offset[m] then offset[m] = t' - t;  offset[m] *= decay
 * The execution clock is the largest t' transferred so far.
 */
#pragma once

#include "tram.h"
#include "diag.h"
#include "paradigm.h"
#include "source.h"

G_BEGIN_DECLS

typedef struct _ViperRun ViperRun;

typedef struct {
  guint64 read;             /* every tram line: transferred + pending + rejected */
  guint64 transferred;
  guint64 pending;
  guint64 rejected;
  guint64 ignored;          /* transferred trams whose (REC, EV) the paradigm does not know */
  guint64 inconsistent;     /* filled in by the model */
} ViperCounts;

typedef struct {
  gint64 proc;
  char *waiting_for;        /* "seq 14 of proc 2", "partner tram S_INRQ RECEIVED from proc 0 (inglb of proc 3)" */
  guint64 trams;            /* pending trams held up in this list */
} ViperStuck;

/* model: optional, used for group members (VIPER_FROM_EACH_MEMBER). */
ViperRun *viper_run_new (const ViperParadigm *paradigm, const ViperModel *model, ViperTramPool *pool,
                         ViperChannels *channels, ViperDiag *diag, double decay);
void viper_run_free (ViperRun *run);

/* Live memory bound: at most max trams pending (read, not yet transferred
 * or rejected); past it viper_run_insert() refuses the line as bad input with
 * a reason that names the bound and what the run waits for.  0 = no bound.
 * The default, VIPER_RUN_DEFAULT_MAX_PENDING, is about 1.5 GB of trams. */
#define VIPER_RUN_DEFAULT_MAX_PENDING 10000000u
void viper_run_set_max_pending (ViperRun *run, guint64 max);
guint64 viper_run_max_pending (const ViperRun *run);   /* G_MAXUINT64: no bound */
/* Bound on distinct PROCs (each keeps a sequence list and model state);
 * a line with a new PROC past it is refused and reported.  0 = no bound. */
#define VIPER_RUN_DEFAULT_MAX_PROCS 1000000u
void viper_run_set_max_procs (ViperRun *run, guint64 max);
guint64 viper_run_max_procs (const ViperRun *run);   /* G_MAXUINT64: no bound */

/* The input ended: no line comes any more, so every module of the run is
 * known.  A collective over all processors (group -1, core/join.h) waits
 * for this before its ENDs are claimed.  TRUE the first time (trams may
 * have become ready), FALSE after; viper_run_reset forgets it.  Whoever
 * calls it also tells the model (viper_model_set_modules with
 * viper_run_procs); viper_scheduler_input_end does both. */
gboolean viper_run_input_end (ViperRun *run);
gboolean viper_run_input_ended (const ViperRun *run);
/* A collective over every module (group -1) waits to know them all: TRUE
 * until the input ends or viper_run_modules_known is called. */
gboolean viper_run_wants_modules (const ViperRun *run);
/* ... and an END over it is already held up by that (not only a begin). */
gboolean viper_run_end_waits_for_modules (const ViperRun *run);
/* Every module the input will bring, learnt ahead of the end (the
 * scheduler reads the processors of its files ahead): group -1 is these
 * from now on, as viper_run_input_end would make it.  The caller tells the
 * model too (viper_model_set_modules). */
void viper_run_modules_known (ViperRun *run, const GArray *procs);

/* Take a parsed tram (ownership passes to the run).  Returns FALSE when it is
 * rejected as bad input (reported to the diag, counted, released). */
gboolean viper_run_insert (ViperRun *run, ViperTram *tram);
/* Would viper_run_insert take t into its list, not reject it as bad input
 * (the paradigm's type, data and sequence number rules; not the bounds, nor
 * duplicates)?  Classifies t as the insert would; nothing else changes. */
gboolean viper_run_accepts (ViperRun *run, ViperTram *tram);
/* A tram that will be inserted soon (a source's look ahead): prefetch the
 * slot it will take in its sequence list.  Changes nothing. */
void viper_run_prefetch (ViperRun *run, const ViperTram *upcoming);
/* Count n bad lines the sources rejected (read and rejected). */
void viper_run_count_rejected (ViperRun *run, guint64 n);
/* A line a source rejected as bad input (counted with viper_run_count_rejected)
 * whose PROC, and D1 (0: unreadable), could still be read: it does not strand
 * its module (spec section 1).  With explicit sequence numbers D1 counts as
 * used; the line is remembered, so that a tram that waits for it names it. */
void viper_run_note_rejected (ViperRun *run, gint64 proc, gint64 d1, guint32 channel, guint64 line);

/* The ready tram with the smallest adjusted time, or NULL.  Peek does not
 * transfer; transfer_next does (updating offsets and the clock).  The tram
 * returned by transfer_next stays valid until the next call that changes the
 * run (insert, transfer_next, reset, free). */
const ViperTram *viper_run_peek (ViperRun *run);
/* Trams a list claims ahead of its first (issue 11: claimed trams are looked
 * at again when they leave, and within the window they are still in the
 * cache).  The adjusted times and states are the same either way; a
 * breakpoint needs every tram claimed that can be (bounded FALSE, which
 * claims on at once).  Bounded by default, with VIPER_CLAIM_WINDOW trams
 * from the environment or this many. */
#define VIPER_RUN_CLAIM_WINDOW 256u
void viper_run_bound_claims (ViperRun *run, gboolean bounded);
/* Lists whose claim cursor waits at the window now (for tests). */
guint viper_run_claims_held (const ViperRun *run);
const ViperTram *viper_run_transfer_next (ViperRun *run);
/* The input has nothing more now (its end, or a pause of live input) and
 * nothing is ready: let the trams that wait for that (paradigm after_input)
 * go.  Returns how many were waiting. */
guint viper_run_release_after_input (ViperRun *run);

/* Post-mortem clock modes (core/clocksync.h): map is called for every
 * accepted tram at insert, after its sequence number is known, and its result
 * replaces TIME (what the run then adjusts).  NULL = none (decay alone). */
typedef double (*ViperTimeMapFunc) (gpointer data, gint64 proc, gint64 seq, double time);
void viper_run_set_time_map (ViperRun *run, ViperTimeMapFunc map, gpointer data);
ViperTimeMapFunc viper_run_get_time_map (const ViperRun *run, gpointer *data);
/* The cross-dependency of the tram viper_run_transfer_next() returned last,
 * when it waited for a tram of another module (a receive for its send, a
 * reply for its request): that tram's module, sequence number and TIME.
 * The pairs the paradigm's profiles make, with no paradigm named. */
gboolean viper_run_last_cause (const ViperRun *run, gint64 *proc, gint64 *seq, double *time);
/* For an analysis that needs only the dependencies (core/clocksync.c's first
 * reading): ready trams leave in a causal order but not by adjusted time
 * (the last made ready first), which saves the heap's work.  Set before the
 * first insert. */
void viper_run_set_any_order (ViperRun *run, gboolean any_order);

double viper_run_clock (const ViperRun *run);          /* -inf before the first transfer */
double viper_run_offset (const ViperRun *run, gint64 proc);
double viper_run_decay (const ViperRun *run);
void viper_run_counts (const ViperRun *run, ViperCounts *out);
/* The engine's own counts, also while a view answers for the run. */
void viper_run_engine_counts (const ViperRun *run, ViperCounts *out);
const ViperParadigm *viper_run_paradigm (const ViperRun *run);

/* Modules (PROCs) seen so far, in increasing order. */
GArray *viper_run_procs (const ViperRun *run);   /* of gint64; free with g_array_unref */
/* Per-PROC count of trams inserted (accepted). */
guint64 viper_run_proc_count (const ViperRun *run, gint64 proc);

/* Call fn on every pending tram (accepted, not yet transferred): modules in
 * increasing order, each module's trams in no defined order (sort them by
 * seq, unique in a module, for one).  Changes nothing; fn must not touch
 * the run, nor keep t beyond its call (a tram waiting packed is shown in a
 * block that the next one reuses).  The engine's own lists, not a view's. */
void viper_run_foreach_pending (const ViperRun *run, void (*fn) (const ViperTram *t, gpointer data), gpointer data);
/* Why pending trams cannot leave: one entry per held-up sequence list. */
GArray *viper_run_stuck (const ViperRun *run);          /* of ViperStuck; free with viper_stuck_array_free */
void viper_stuck_array_free (GArray *stuck);
/* A lower bound of the adjusted times pending trams can still get (the
 * engine's own lists, not a view's): per list with trams in flight, its next
 * tram's t + offset, or the t' its predecessor or dependencies already fixed,
 * raised to the bound of the list it waits for; -inf when that next tram has
 * not arrived (it could have any time); +inf when nothing is pending.  A
 * replay stopped at CLOCK has reached its stop point when this is above CLOCK. */
double viper_run_pending_earliest (const ViperRun *run);

/* A stand-in for the run's own figures: while set, viper_run_clock,
 * viper_run_offset, viper_run_counts and viper_run_stuck answer from it.
 * The scheduler sets one while it replays the trail (core/trail.h) behind
 * the engine's own position.  NULL: the run's own. */
typedef struct {
  double (*clock) (gpointer data);
  double (*offset) (gpointer data, gint64 proc);
  void (*counts) (gpointer data, ViperCounts *out);
  GArray *(*stuck) (gpointer data);
} ViperRunView;
void viper_run_set_view (ViperRun *run, const ViperRunView *view, gpointer data);

/* Forget everything (trams, lists, offsets, clock, counts). */
void viper_run_reset (ViperRun *run);

/* Memory held by trams in flight (pool bytes) - for benchmarks. */
gsize viper_run_bytes_in_flight (const ViperRun *run);

/* Matching buckets held now (one per (list, class, key1, key2) with
 * something waiting): bounded by what waits, not by the keys ever seen. */
guint viper_run_n_buckets (const ViperRun *run);

G_END_DECLS
