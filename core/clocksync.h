/* clocksync.h - global time for post-mortem replay (--clock=drift|clc).
 *
 * Live replay can only use clock-offset decay (core/run.c): it never sees
 * ahead.  A trace read from files can be read whole first.  The first pass
 * (viper_clock_sync_analyse) rebuilds the run once without a model and keeps,
 * per module, the TIME of each tram in sequence order, every cross-dependency
 * between modules (cause tram -> effect tram, as the paradigm's profiles pair
 * them: send -> receive, request -> reply) and the clock-synchronisation
 * samples (-6 -951, docs/formats.md), those of trams left pending at the end
 * included.  From those it estimates per module a
 * linear map  t_global = a + b * t_local  against a reference module (POM's
 * global time: Duda et al., Jezequel), and for `clc` also the controlled
 * logical clock with backward amortisation (Becker, Rabenseifner, Wolf) on
 * top of it.  The second pass is the ordinary replay with a time map set on
 * the run (viper_clock_sync_install): each tram's TIME is rewritten at
 * insert, then the run is built exactly as with decay, which repairs
 * whatever violation is left.  The second pass takes the trams the first
 * kept in memory (core/clockkeep.h, viper_clock_sync_source_new) rather
 * than reading and parsing the files again.
 */
#pragma once

#include "run.h"
#include "model.h"
#include "jsonout.h"
#include "source.h"

G_BEGIN_DECLS

typedef enum {
  VIPER_CLOCK_DECAY = 0,    /* no look-ahead: decay alone (default, live) */
  VIPER_CLOCK_DRIFT,        /* per-module offset and drift, then decay where a violation is left */
  VIPER_CLOCK_CLC,          /* drift, then the controlled logical clock with backward amortisation */
} ViperClockMode;

/* "decay", "drift", "clc" <-> mode; FALSE for an unknown name. */
gboolean viper_clock_mode_parse (const char *name, ViperClockMode *out);
const char *viper_clock_mode_name (ViperClockMode mode);

typedef struct _ViperClockSync ViperClockSync;

typedef struct {
  gint64 proc;
  double offset;            /* a: global time of local time 0 (seconds) */
  double drift_ppm;         /* (b - 1) * 1e6 */
  gboolean estimated;       /* FALSE: no pair links it to the reference (identity map) */
  gboolean from_sync;       /* its map came from -6 -951 samples */
  guint64 violations_raw;   /* its trams that were before their cause in the raw stamps */
  guint64 violations_repaired;   /* ... that were still before it under the map, repaired
                                    (by decay in drift mode, by the clc in clc mode) */
} ViperClockProc;

/* Pass 1: read the trace files (not "-": standard input cannot be read again)
 * with the paradigm (setup may be NULL) and estimate.  Bad lines are not
 * reported here (the replay reports them).  NULL + error on an I/O error. */
ViperClockSync *viper_clock_sync_analyse (ViperClockMode mode, const ViperParadigm *paradigm, ViperSetup *setup,
                                          const char *const *paths, GError **error);
#define VIPER_CLOCK_KEEP_DEFAULT ((gsize) 512 << 20)   /* 512 MiB: about 20 M lines of a PICL trace */

/* The same, keeping at most keep_limit bytes of the trace's trams in memory
 * for the replay (core/clockkeep.h; 0 = keep none; viper_clock_sync_analyse
 * keeps up to VIPER_CLOCK_KEEP_DEFAULT, 512 MiB). */
ViperClockSync *viper_clock_sync_analyse_keep (ViperClockMode mode, const ViperParadigm *paradigm, ViperSetup *setup,
                                               const char *const *paths, gsize keep_limit, GError **error);
void viper_clock_sync_free (ViperClockSync *cs);

/* The replay's source for paths[i]: the trams pass 1 kept, played back from
 * memory exactly as the file would deliver them again (the same trams,
 * diagnostics and counters; resettable), or, when they were not kept, the file
 * read again (viper_file_source_new).  cs must outlive the source. */
ViperTramSource *viper_clock_sync_source_new (ViperClockSync *cs, guint i, ViperTramPool *pool, ViperDiag *diag,
                                              ViperChannels *channels, GError **error);
/* TRUE: every file's trams were kept (the replay reads no file again). */
gboolean viper_clock_sync_kept (const ViperClockSync *cs);
/* TRUE: the trams did not fit in the bound; the files are read again. */
gboolean viper_clock_sync_keep_hit_bound (const ViperClockSync *cs);
gsize viper_clock_sync_kept_bytes (const ViperClockSync *cs);
gsize viper_clock_sync_keep_limit (const ViperClockSync *cs);

/* Pass 2: set the time map on the run (cs must outlive the run's use of it). */
void viper_clock_sync_install (ViperClockSync *cs, ViperRun *run);

ViperClockMode viper_clock_sync_mode (const ViperClockSync *cs);
gint64 viper_clock_sync_reference (const ViperClockSync *cs);
/* Modules in increasing order. */
guint viper_clock_sync_n_procs (const ViperClockSync *cs);
const ViperClockProc *viper_clock_sync_proc (const ViperClockSync *cs, guint i);
guint64 viper_clock_sync_pairs (const ViperClockSync *cs);        /* cause -> effect pairs found */
guint64 viper_clock_sync_samples (const ViperClockSync *cs);      /* -6 -951 samples used */
/* Samples that cannot be a ping and its pong (T2 before T1, REF = P or < 0):
 * left out of the estimate; the first as "FILE:LINE: why" (NULL if none). */
guint64 viper_clock_sync_samples_unused (const ViperClockSync *cs);
/* Of the samples (used or not), those whose trams stayed pending in the
 * first pass (their module waits for a missing file or partner): counted all
 * the same, after the transferred ones, by module and sequence number. */
guint64 viper_clock_sync_samples_pending (const ViperClockSync *cs);
const char *viper_clock_sync_first_unused (const ViperClockSync *cs);
guint64 viper_clock_sync_violations_raw (const ViperClockSync *cs);
guint64 viper_clock_sync_violations_repaired (const ViperClockSync *cs);
/* Bytes the analysis keeps for the replay: per module, and with clc each
 * tram's stamp and clock (16 bytes a tram). */
gsize viper_clock_sync_bytes (const ViperClockSync *cs);

/* The state document's fields: "clock_mode", "violations_repaired" and
 * "clock_sync" (reference, per-module offset, drift and violations). */
void viper_clock_sync_write_json (const ViperClockSync *cs, ViperJson *j);

/* Inside a module object of the state document: "clock_offset",
 * "clock_drift_ppm" and "violations_repaired" of proc when the run has a
 * clock mode other than decay installed; nothing otherwise.  Paradigms call
 * it from their write_modules. */
void viper_clock_sync_write_module (const ViperRun *run, gint64 proc, ViperJson *j);

/* The run's clock information, if a mode other than decay was installed. */
const ViperClockSync *viper_run_clock_sync (const ViperRun *run);

/* ---- internal (core/clc.c) ------------------------------------------------ */

/* One tram of the analysis, in the order the run transferred it (a causal
 * order): its module index and index in that module. */
typedef struct {
  guint32 proc, index;
} ViperClockRef;

/* cause -> effect */
typedef struct {
  ViperClockRef cause, effect;
} ViperClockPair;

/* Controlled logical clock.  times[p][i]: the (drift-corrected) time of the
 * i-th tram of module p, replaced in place by its logical clock.  order: all
 * trams in a causal order; pairs: sorted in the order of their effects in
 * `order` (each effect at most once). */
void viper_clc_apply (double **times, const guint *counts, guint n_procs,
                      const ViperClockRef *order, gsize n_order,
                      const ViperClockPair *pairs, gsize n_pairs);
/* The same on the arrays the replay reads: lc[p][2 i] holds the time as read
 * (kept), lc[p][2 i + 1] the clock, which the caller sets to a[p] + b[p] *
 * lc[p][2 i] to start; scratch[p] holds counts[p] doubles, set to infinity. */
void viper_clc_apply_mapped (double **lc, const double *a, const double *b, double **scratch, const guint *counts,
                             guint n_procs, const ViperClockRef *order, gsize n_order,
                             const ViperClockPair *pairs, gsize n_pairs);

G_END_DECLS
