/* clockkeep.h - keeping a trace's trams in memory between the two passes of
 * --clock=drift|clc (core/clocksync.c).
 *
 * The analysis reads every trace file once.  Instead of reading and parsing
 * them again for the replay, the analysis keeps, per file, everything the file
 * source delivered (a "tape"): each tram in a compact form (varints, the text
 * only for lines not in canonical form), each diagnostic the source reported
 * (bad lines, warnings, start and end of trace) and its counters, in the
 * order the source produced them.  The replay's source for that file then
 * plays the tape back: it hands out the same trams, reports the same
 * diagnostics at the same places and keeps the same counters as a file source
 * reading the file again would, so every output of the replay is the same
 * (tests/clock checks it byte for byte against the files read again).
 *
 * Memory is bounded: the tapes of all files together may hold at most the
 * limit given to viper_clock_keep_new (bytes of allocated chunks).  When a
 * chunk would pass it, every tape is dropped and nothing more is kept: the
 * replay reads the files again (viper_clock_keep_hit_bound says so).
 */
#pragma once

#include "source.h"

G_BEGIN_DECLS

typedef struct _ViperClockKeep ViperClockKeep;

/* limit: bytes the tapes may hold together (0 = keep nothing). */
ViperClockKeep *viper_clock_keep_new (gsize limit);
void viper_clock_keep_free (ViperClockKeep *k);

/* Pass 1: a source that delivers what inner delivers and records it on the
 * next tape (tapes are numbered 0, 1, ... in the order of wrapping).  The
 * wrapper owns inner.  Diagnostics inner reports while the wrapper calls it
 * must be passed to viper_clock_keep_diag by the diag's sink. */
ViperTramSource *viper_clock_keep_wrap (ViperClockKeep *k, ViperTramSource *inner);
void viper_clock_keep_diag (ViperClockKeep *k, ViperDiagKind kind, const char *message);

/* Pass 2: a source that plays tape i back into pool, diag and channels (its
 * channel is added under the same name as the file source's), resettable;
 * NULL when tape i was not kept whole (bound hit, or its file was not read to
 * its end): then read the file again.  k must outlive the source. */
ViperTramSource *viper_clock_keep_source_new (ViperClockKeep *k, guint i, ViperTramPool *pool, ViperDiag *diag,
                                              ViperChannels *channels);

gboolean viper_clock_keep_hit_bound (const ViperClockKeep *k);
gsize viper_clock_keep_limit (const ViperClockKeep *k);
/* Bytes the tapes hold now, and the most they held. */
gsize viper_clock_keep_bytes (const ViperClockKeep *k);
gsize viper_clock_keep_peak_bytes (const ViperClockKeep *k);
guint viper_clock_keep_n_tapes (const ViperClockKeep *k);
guint64 viper_clock_keep_trams (const ViperClockKeep *k);   /* trams on the kept tapes */

G_END_DECLS
