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
} ViperModelClass;

/* A state change or an arrow kept for the space-time view. */
typedef struct {
  double t0, t1;            /* t1 = t0 for a state change; arrival for an arrow (NAN while underway) */
  gint32 module;            /* state: module; arrow: from */
  gint32 other;             /* arrow: to; state: -1 */
  gint32 state;             /* paradigm's state code, or arrow kind */
  gint32 flags;
} ViperHistoryEntry;

struct _ViperModel {
  const ViperModelClass *klass;
  const ViperParadigm *paradigm;
  ViperSetup *setup;                /* not owned */
  ViperDamage *damage;              /* owned */
  ViperDiag *diag;                  /* not owned, may be NULL */
  double clock;                     /* adjusted time of the last applied tram's maximum */
  guint64 applied;                  /* trams applied */
  guint64 changes;                  /* applies that changed the visible state */
  guint64 inconsistent;
  double history_interval;          /* 0: keep everything; < 0: keep none (headless replay) */
  GArray *history;                  /* of ViperHistoryEntry, time ordered by t0 */
  guint history_dropped;            /* entries dropped from the front so far */
};

void viper_model_init (ViperModel *m, const ViperModelClass *klass, const ViperParadigm *p,
                       ViperSetup *setup);
void viper_model_finish (ViperModel *m);                 /* base part of destroy */
void viper_model_free (ViperModel *m);

/* Apply through the class, maintaining clock, counts and history trimming. */
gboolean viper_model_apply (ViperModel *m, const ViperTram *t);
void viper_model_reset (ViperModel *m);
const char *viper_model_program_state (const ViperModel *m);

/* Report an inconsistency (a tram that broke a paradigm rule): counted, warned. */
void viper_model_inconsistent (ViperModel *m, const ViperTram *t, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

/* interval > 0: drop entries older than clock - interval; 0: keep all; < 0: record none. */
void viper_model_set_history (ViperModel *m, double interval);
void viper_model_history_add (ViperModel *m, const ViperHistoryEntry *e);

G_END_DECLS
