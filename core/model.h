/* model.h - the program-state model base (thesis 4.1: "update state").
 *
 * A paradigm's model is a ViperModel subclass: apply() takes each transferred
 * tram in run order and updates the state, marking what changed in the damage
 * set; it never draws.  The base keeps what every paradigm shares: the
 * execution clock, the inconsistency count, the damage set and the history
 * (state changes and arrows over time, for the space-time view), which drops
 * entries older than clock - history_interval so memory stays bounded.
 */
#pragma once

#include "tram.h"
#include "damage.h"
#include "diag.h"
#include "jsonout.h"
#include "paradigm.h"

G_BEGIN_DECLS

typedef struct _ViperRun ViperRun;
typedef struct _ViperHistoryIndex ViperHistoryIndex;

typedef struct {
  /* Apply one transferred tram; return TRUE when the visible state changed. */
  gboolean (*apply) (ViperModel *m, const ViperTram *t);
  void (*reset) (ViperModel *m);
  void (*destroy) (ViperModel *m);
  /* "running", "deadlock", ...: the program state word for --state-out. */
  const char *(*program_state) (const ViperModel *m);
  /* Paradigm top-level fields (after "counts"), e.g. "reported". May be NULL. */
  void (*write_top) (const ViperModel *m, ViperJson *j);
  /* One object per module, inside the "modules" array; offset from the run. */
  void (*write_modules) (const ViperModel *m, const ViperRun *run, ViperJson *j);
  /* Members of a group (core's VIPER_FROM_EACH_MEMBER); NULL = a module is its own group. */
  guint (*group_members) (const ViperModel *m, gint64 group, gint64 *out, guint max);
  /* Checkpoints (seek, core/trail.h): a copy of the paradigm's own state
   * (not the base's) and its size in bytes; restore puts a copy back, so one
   * snapshot serves any number of restores.  restore runs after the base has
   * put back the history, so that a paradigm that edits entries in place
   * after appending them can write them back as they were.  All three or none: a paradigm
   * without them seeks by replaying the trail from the start. */
  gpointer (*snapshot) (const ViperModel *m, gsize *bytes);
  void (*restore) (ViperModel *m, gconstpointer snap);
  void (*snapshot_free) (gpointer snap);
  /* Optional: viper_model_set_modules told the model every module of the
   * run (the input ended); a paradigm whose states depend on them (a
   * collective over all processors) looks again at what waits. */
  void (*modules_known) (ViperModel *m);
  /* Optional: at the end of the input, with nothing pending, why the
   * program is not over when every module still running waits for
   * something that never came (a hung program cut short, or killed: "the
   * input ended with every processor still tracing blocked: P0 in receive
   * from P2 tag 2 since 0.0012; ..."), the whole sentence; NULL when not
   * so.  To free. */
  char *(*all_blocked) (const ViperModel *m);
} ViperModelClass;

/* A state change or an arrow kept for the space-time view. */
typedef struct {
  double t0, t1;            /* t1 = t0 for a state change; arrival for an arrow (NAN while underway) */
  gint32 module;            /* state: module; arrow: from */
  gint32 other;             /* arrow: to; state: -1 */
  gint32 state;             /* paradigm's state code, or arrow kind */
  gint32 flags;
} ViperHistoryEntry;

/* Whether what the model shows can still be current: a live session whose
 * collectors have all disconnected says so, so that a monitor paradigm shows
 * its last readings as stale instead of as the present. */
typedef enum {
  VIPER_COLLECTION_ON = 0,      /* no live source, or one still connected */
  VIPER_COLLECTION_ENDED,       /* every live connection closed cleanly */
  VIPER_COLLECTION_LOST,        /* closed, at least one with an error or mid-line */
} ViperCollectionEnd;

struct _ViperModel {
  const ViperModelClass *klass;
  const ViperParadigm *paradigm;
  ViperSetup *setup;                /* not owned */
  ViperDamage *damage;              /* owned */
  ViperDiag *diag;                  /* not owned, may be NULL */
  struct _ViperChannels *channels;  /* not owned, may be NULL: names a tram's file or connection in
                                     * warnings (set by viper_scheduler_new) */
  double clock;                     /* adjusted time of the last applied tram's maximum */
  double start;                     /* earliest adjusted time applied (+INFINITY before any):
                                     * with clock, the run so far, which views show whole */
  guint64 applied;                  /* trams applied */
  guint64 changes;                  /* applies that changed the visible state */
  guint64 inconsistent;
  double history_interval;          /* 0: keep everything; < 0: keep none (headless replay) */
  GArray *history;                  /* of ViperHistoryEntry, time ordered by t0 */
  guint history_dropped;            /* entries dropped from the front so far */
  ViperHistoryIndex *history_index; /* per-module refs into history (viper_model_history_module) */
  struct _ViperHistoryStash *stash; /* checkpoints: the furthest history seen (model.c) */
  gboolean rewinding;               /* inside viper_model_rewind_start (a seek, not the user's reset) */
  gboolean off_run;                 /* applied trams are not a prefix of the run's order (playback to a
                                     * breakpoint skipped some): its history is no version of the
                                     * run's, never stashed nor truncated into a checkpoint's */
  ViperCollectionEnd collection_end; /* the live sources' end (viper_model_set_collection_end);
                                     * kept across resets and seeks */
  GArray *modules;                  /* every module >= 0 of the run, sorted, once the input ended
                                     * (viper_model_set_modules); NULL before.  A property of the
                                     * input, not of a position: kept across seeks, dropped by
                                     * viper_model_reset */
};

void viper_model_init (ViperModel *m, const ViperModelClass *klass, const ViperParadigm *p,
                       ViperSetup *setup);
void viper_model_finish (ViperModel *m);                 /* base part of destroy */
void viper_model_free (ViperModel *m);

/* Apply through the class, maintaining clock, counts and history trimming. */
gboolean viper_model_apply (ViperModel *m, const ViperTram *t);
void viper_model_reset (ViperModel *m);
/* A reset for a seek to the start of the same run: keeps what checkpoints
 * restore from (the furthest history, see viper_model_restore). */
void viper_model_rewind_start (ViperModel *m);
const char *viper_model_program_state (const ViperModel *m);
/* The class's all_blocked, or NULL. */
char *viper_model_all_blocked (const ViperModel *m);
/* The live session's collectors all closed (or one connected again): marks
 * the program and every module damaged when it changes. */
void viper_model_set_collection_end (ViperModel *m, ViperCollectionEnd e);
/* The input ended: procs (sorted, as viper_run_procs gives them; ids below
 * 0 are left out) are every module the run will ever have.  Calls the
 * class's modules_known.  NULL: not known (yet). */
void viper_model_set_modules (ViperModel *m, const GArray *procs);
const GArray *viper_model_modules (const ViperModel *m);

/* Report an inconsistency (a tram that broke a paradigm rule): counted, warned. */
void viper_model_inconsistent (ViperModel *m, const ViperTram *t, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

/* interval > 0: drop entries older than clock - interval; 0: keep all; < 0: record none. */
void viper_model_set_history (ViperModel *m, double interval);
void viper_model_history_add (ViperModel *m, const ViperHistoryEntry *e);
/* The arrow at absolute position pos (appended with t1 = t0 when its start
 * was known) arrived at t1: writes t1 and keeps the module's arrow_span
 * true.  Appending arrows at their start keeps each module's arrows in its
 * own order, whatever the order of the arrivals.  No-op once trimmed. */
void viper_model_history_arrow_arrived (ViperModel *m, guint64 pos, double t1);

/* ---- checkpoints -------------------------------------------------------------
 * A checkpoint holds the base's counters, the paradigm's snapshot and, for
 * the history, only its length and the arrows underway: the history is
 * append-only in run order (arrows complete in place), so restoring
 * truncates it and re-opens those arrows instead of copying it.  Restoring
 * fails (FALSE, nothing changed) when the class has no hook or when history
 * trimming has since dropped entries the checkpoint still had; the caller
 * then replays from the start. */
typedef struct _ViperModelCkpt ViperModelCkpt;
gboolean viper_model_can_checkpoint (const ViperModel *m);
ViperModelCkpt *viper_model_checkpoint (const ViperModel *m);     /* NULL without the hook */
gboolean viper_model_restore (ViperModel *m, const ViperModelCkpt *c);
void viper_model_ckpt_free (ViperModelCkpt *c);
gsize viper_model_ckpt_bytes (const ViperModelCkpt *c);
/* For a paradigm's snapshot and restore: a copy of a table from g_malloc'd
 * gint64 keys (g_int64_hash, freed with g_free) to values it does not own;
 * the keys are duplicated, the values shared. */
GHashTable *viper_int64_table_copy (GHashTable *table);

/* ---- the history by module --------------------------------------------------
 * A view that shows a slice of time (the space-time view) must not walk the
 * whole history each frame.  The base therefore keeps, for each module, where
 * its entries are, in order of addition, which is time order for each module
 * in every paradigm so far.  A ref names an entry by its absolute position
 * (history_dropped + index) and carries the largest t0 among it and the
 * module's earlier refs: seeking that running maximum is exact even when a
 * paradigm appends a module's entries slightly out of time order, and
 * `disorder` bounds how far below the maximum a later t0 can lie, so a scan
 * can stop once t0_max passes its end + disorder (with disorder 0, every
 * ref's t0_max is its entry's t0: a view can read times from the refs alone,
 * without touching the entries spread over the history).  Entries with other >= 0
 * are arrows, filed under their sender (module); the others are state
 * changes.  Arrows appended while underway (t1 NAN) are also listed in
 * `open`, because the paradigm completes them in place and their length is
 * unknown until then; `arrow_span` is the longest length of the module's
 * arrows not in `open`, so an arrow that reaches a window [a, b] either
 * starts at or after a - arrow_span or is in `open`. */
typedef struct {
  guint64 pos;              /* absolute position: history index + history_dropped */
  double t0_max;            /* max t0 of this and the earlier refs of the list */
  gint32 state;             /* the entry's state (states lists; kept by viper_model_history_set_state) */
  gint32 spare;             /* 0 */
} ViperHistoryRef;

typedef struct {
  GArray *states;           /* ViperHistoryRef: the module's state changes */
  GArray *arrows;           /* ViperHistoryRef: arrows it sent */
  double state_disorder, arrow_disorder;  /* t0 >= t0_max - disorder for every ref */
  GArray *open;             /* guint64 positions: arrows underway when last looked at */
  double arrow_span;        /* longest t1 - t0 among its arrows not in open */
  guint open_kept;          /* open->len after the last sweep (sweeps are amortised) */
} ViperHistoryModule;

/* The module's refs, or NULL when the history holds nothing of it. */
const ViperHistoryModule *viper_model_history_module (const ViperModel *m, gint64 module);
/* The first ref whose t0_max >= t (refs->len when none): every ref before it has t0 < t. */
guint viper_history_refs_seek (const GArray *refs, double t);
/* The entry at an absolute position; NULL once trimmed away (or never
 * recorded).  Inline: paradigms look up entries they edit on every apply. */
static inline const ViperHistoryEntry *
viper_model_history_at (const ViperModel *m, guint64 pos)
{
  if (pos < m->history_dropped || pos - m->history_dropped >= m->history->len)
    return NULL;
  return &g_array_index (m->history, ViperHistoryEntry, (guint) (pos - m->history_dropped));
}
/* A paradigm that decides a state change's state after appending it writes
 * it through this (never into the entry directly): the module's ref keeps a
 * copy, which the space-time view reads instead of the scattered entries.
 * No-op once trimmed or when the entry is not a state change. */
void viper_model_history_set_state (ViperModel *m, guint64 pos, gint32 state);

G_END_DECLS
