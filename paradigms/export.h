/* export.h - trace exports that other tools open (thesis 2.4.4, 5.4.3).
 *
 * An exporter is opened on a file for a format ("paragraph", "paje",
 * "chrome") and a paradigm.  It sees every transferred tram in run order,
 * after the model applied it (a scheduler transfer hook: the same in the GUI
 * and in viper-replay --export), and writes zero, one or more records for it:
 * the thesis's Tram::output().  viper_exporter_close() finishes the file.
 *
 * A paradigm supports exports through its description's `export` field, a
 * ViperExportTable:
 *   - `paragraph` translates one tram into PICL records (ParaGraph's format)
 *     with viper_export_push();
 *   - `timeline` describes one tram as module states, messages and program
 *     events with the viper_timeline_*() calls; the exporter turns that
 *     description into Pajé or Chrome trace records, so a paradigm writes its
 *     mapping once for both.
 * A NULL entry means the paradigm has no such form; asking for it is an error
 * that says why (VIPER_EXPORT_ERROR_UNSUPPORTED).
 *
 * Records that must be sorted by time (ParaGraph, Pajé) go through a bounded
 * merge keyed by (time, Lamport number, ...): see export.c and
 * docs/exports.md for the memory bound.
 */
#pragma once

#include <stdio.h>
#include "core/model.h"
#include "core/paradigm.h"
#include "core/tram.h"

G_BEGIN_DECLS

#define VIPER_EXPORT_ERROR (viper_export_error_quark ())
GQuark viper_export_error_quark (void);
typedef enum {
  VIPER_EXPORT_ERROR_SPEC,          /* not FORMAT:FILE */
  VIPER_EXPORT_ERROR_UNKNOWN,       /* no such format */
  VIPER_EXPORT_ERROR_UNSUPPORTED,   /* the paradigm has no form in that format */
  VIPER_EXPORT_ERROR_IO,
} ViperExportError;

typedef struct _ViperExporter ViperExporter;

/* What a paradigm's timeline looks like in Pajé and Chrome. */
typedef struct {
  const char *program;              /* name of the program container, "picl run" */
  const char *module_kind;          /* "processor", "module": names tracks "<kind> <id>" */
  const char *const *states;        /* state names, index = state code */
  const char *const *colors;        /* Pajé colours "r g b" in [0,1], one per state */
  guint n_states;
  double us_per_unit;               /* Chrome wants microseconds: 1e6 for seconds, 1e3 for ms */
  /* States come through viper_timeline_state_at() (a state decided by
   * several trams, produced out of time order): records carry the tram's
   * Lamport number instead of their track's count, are not raised to their
   * track's latest time, and states (and the program state, from
   * ViperExportTable.program_at) are applied in time order as the merge
   * writes (export-timeline.c, "write-time states"). */
  gboolean states_at;
} ViperTimelineInfo;

typedef void (*ViperExportTramFunc) (ViperExporter *e, const ViperTram *t, const ViperModel *m);

typedef struct {
  ViperExportTramFunc paragraph;    /* NULL: no ParaGraph form */
  ViperExportTramFunc timeline;     /* NULL: no Pajé / Chrome form */
  const ViperTimelineInfo *timeline_info;
  /* Called once when an exporter opens, before any tram (may be NULL). */
  void (*begin) (ViperExporter *e, const ViperModel *m);
  /* Called when the exporter is made, before the model applies anything:
   * begin waits for the first tram, after the model applied it (may be
   * NULL; writes nothing). */
  void (*attach) (ViperExporter *e, const ViperModel *m);
  /* Called once at close, before the last records are flushed (may be NULL). */
  void (*end) (ViperExporter *e, const ViperModel *m);
  gsize priv_size;                  /* zeroed private state per exporter */
  void (*priv_clear) (gpointer priv);
  /* Why a format is missing, for the error ("ParaGraph knows message passing only"). */
  const char *no_paragraph_reason;
  /* With timeline_info->states_at: the merge writes the changes and notes of
   * one time together, in their canonical order; then it calls applied once
   * per track whose state or aux changed (module, state, aux as they stand
   * after that time) and per note, then program_at for the program state
   * word at that time (written as a program event when it changed; NULL:
   * none).  Both may be NULL. */
  void (*applied) (ViperExporter *e, gint64 module, guint state, guint64 aux, gboolean note);
  const char *(*program_at) (ViperExporter *e, double time);
} ViperExportTable;

typedef struct {
  guint64 records;                  /* records written (lines, events) */
  guint64 clamped;                  /* records whose time was changed: raised (order), or out of range (below) */
  guint64 out_of_range;             /* of those, Chrome events whose "ts" or "dur" in microseconds (after the
                                     * shift) is beyond a double's range: written as +-DBL_MAX */
  double max_clamp;                 /* the most a record was moved later, in seconds */
  double shift;                     /* seconds added to every time so that the file starts at 0 (0: none) */
  guint64 undefined_use;            /* records written before the definition they use: it came more than the
                                     * merge's limit of records later, or never (ParaGraph subsets) */
  guint64 left_out;                 /* trams the format has no true form for, left out (counted, reported) */
  guint64 peak_buffered;            /* most records held by the merge at once */
  guint64 buffered;                 /* held now */
} ViperExportStats;

/* ---- formats and the command line ------------------------------------------ */

/* NULL-terminated {"paragraph", "paje", "chrome"}. */
const char *const *viper_export_format_names (void);
gboolean viper_export_format_known (const char *format);
/* TRUE when paradigm p can export format; else a VIPER_EXPORT_ERROR saying why. */
gboolean viper_export_supported (const ViperParadigm *p, const char *format, GError **error);
/* Split "FORMAT:FILE" (FILE may contain ':'); checks the format is known. */
gboolean viper_export_parse_spec (const char *spec, char **format, char **file, GError **error);

/* ---- exporters --------------------------------------------------------------- */

/* Open on a file ('-' = standard output).  model: the model the run is
 * applied to (read after each apply); may be NULL for formats that need none. */
ViperExporter *viper_exporter_open (const ViperParadigm *p, const ViperModel *model, const char *format,
                                    const char *file, GError **error);
/* The same, appending to a string (tests). */
ViperExporter *viper_exporter_open_string (const ViperParadigm *p, const ViperModel *model, const char *format,
                                           GString *out, GError **error);
/* Records for one transferred tram (call after the model applied it). */
void viper_exporter_tram (ViperExporter *e, const ViperTram *t);
/* A ViperTransferHook: data is the exporter. */
void viper_exporter_hook (const ViperTram *t, gboolean changed, gpointer data);
/* Bound of the merge (records held); beyond it the oldest record is written
 * anyway and a later, older record gets the last written time (counted as
 * clamped).  Default VIPER_EXPORT_DEFAULT_LIMIT. */
#define VIPER_EXPORT_DEFAULT_LIMIT (1u << 20)
void viper_exporter_set_buffer_limit (ViperExporter *e, guint64 limit);
/* Records kept even when the watermark has passed them, so that a processor
 * that appears late (its first line read after others' lines were merged)
 * is still placed exactly; at most the buffer limit. */
#define VIPER_EXPORT_DEFAULT_WINDOW (1u << 16)
void viper_exporter_set_window (ViperExporter *e, guint64 window);
void viper_exporter_stats (const ViperExporter *e, ViperExportStats *out);
const char *viper_exporter_format (const ViperExporter *e);
/* Finish the file (flush the merge, trailers, close it); the stats stay
 * readable.  Further calls return the same verdict without writing. */
gboolean viper_exporter_finish (ViperExporter *e, GError **error);
/* Finish (if not done) and free the exporter. */
gboolean viper_exporter_close (ViperExporter *e, GError **error);

/* ---- a whole run --------------------------------------------------------------- */

/* Replay the trace files from the start, headless and on its own pipeline
 * (the GUI's position does not matter), into one exporter on `file`.  Safe
 * to call from a worker thread: it touches no main context.  trams_out: the
 * trams transferred.  FALSE with an error when something cannot be read,
 * loaded or written; pending trams at the end are not an error (they are
 * simply not in the export). */
gboolean viper_export_files (const char *paradigm, const char *setup_path, const char *const *traces,
                             double decay, const char *format, const char *file, guint64 *trams_out,
                             GError **error);
/* The same, also giving the exporter's stats (its shift and clamps, which
 * the caller must report). */
gboolean viper_export_files_stats (const char *paradigm, const char *setup_path, const char *const *traces,
                                   double decay, const char *format, const char *file, guint64 *trams_out,
                                   ViperExportStats *stats_out, GError **error);

/* ---- for paradigm exporters -------------------------------------------------- */

gpointer viper_exporter_priv (ViperExporter *e);

/* A sorted record "HEAD TIME TAIL" (TAIL may be empty).  source: the record's
 * stream (a processor): records of one source come with non-decreasing times,
 * so a record is written once every live source has passed its time. */
void viper_export_push (ViperExporter *e, gint64 source, double time, const char *head, const char *tail);
void viper_export_pushf (ViperExporter *e, gint64 source, double time, const char *head, const char *tail_fmt,
                         ...) G_GNUC_PRINTF (5, 6);
/* A timeless record (a definition, e.g. PICL's subset definition -202 -812):
 * written just before the next record written, with that record's time, so
 * that it precedes every record pushed after it (and every record still in
 * the merge), whatever their times. */
void viper_export_push_definition (ViperExporter *e, const char *head, const char *tail);
/* A tram this format has no true form for is left out: counted in the
 * stats (left_out), which the caller reports. */
void viper_export_leave_out (ViperExporter *e);
/* A source that will produce records (holds the merge until it does). */
void viper_export_expect_source (ViperExporter *e, gint64 source);
/* A timeless definition with a key (a PICL subset id), and a sorted record
 * that uses the definition `key`: the record and everything later wait until
 * the definition is pushed, so the definition always precedes its first use
 * (spec section 5), however many records lie between.  Memory stays bounded
 * by the merge's limit: past it the oldest record is written anyway, a use
 * then before its definition (counted: stats.undefined_use). */
void viper_export_push_definition_of (ViperExporter *e, gint64 key, const char *head, const char *tail);
void viper_export_push_using (ViperExporter *e, gint64 source, double time, gint64 key, const char *head,
                              const char *tail);

/* A source that produces no more records (releases the merge). */
void viper_export_source_done (ViperExporter *e, gint64 source);
/* The time of the last record pushed for source, or -inf. */
double viper_export_source_time (const ViperExporter *e, gint64 source);
/* Promise a record at time (e.g. a message's start, known only when it is
 * received): nothing later is written until the hold is released. */
guint64 viper_export_hold (ViperExporter *e, double time);
void viper_export_release (ViperExporter *e, guint64 hold);

/* ---- the timeline (Pajé and Chrome) ------------------------------------------ */

/* Module (track) `module` is in state `state` (index into info->states) from time on. */
void viper_timeline_state (ViperExporter *e, gint64 module, double time, guint state);
/* A message from -> to on channel tag leaves at time; it becomes a link /
 * flow when viper_timeline_recv() takes it (FIFO per (from, to, tag)). */
void viper_timeline_send (ViperExporter *e, gint64 from, gint64 to, gint64 tag, double time, const char *name);
/* FALSE when no message was underway on that channel. */
gboolean viper_timeline_recv (ViperExporter *e, gint64 from, gint64 to, gint64 tag, double time);
/* Write-time states (ViperTimelineInfo.states_at): module is in state from
 * time on, decided by the tram of Lamport number lamport (idx orders the
 * changes of one number).  Applied when the merge writes that time, in the
 * order (time, lamport, idx, state): a change may be produced after later
 * ones, as long as the merge has not passed its time.  Of the changes of one
 * time, the last counts; aux is the paradigm's, handed back to applied(). */
void viper_timeline_state_at (ViperExporter *e, gint64 module, double time, guint32 lamport, guint32 idx, guint state,
                              guint64 aux);
/* Undo, among the changes of its time, the state_at(module, time, lamport,
 * idx, state, ...) made before: the track keeps what it had without it (a
 * state that turned out never to hold). */
void viper_timeline_retract_at (ViperExporter *e, gint64 module, double time, guint32 lamport, guint32 idx,
                                guint state);
/* A paradigm's note at time (a verdict): handed to applied() with note TRUE
 * when the merge writes that time; writes nothing itself. */
void viper_timeline_note_at (ViperExporter *e, gint64 key, double time, guint32 lamport, guint64 aux);
/* A program-level event (program state change) at time. */
void viper_timeline_event (ViperExporter *e, double time, const char *value);
/* The program event `value` (e.g. "running") at the earliest of the times
 * given for it, call after call (e.g. each tram's): written in time order as
 * soon as the merge passes that time, so a long run does not hold it until
 * its end (where the merge could only write it late, clamped).  Before any
 * other program event; calls after it is written are ignored. */
void viper_timeline_start_event (ViperExporter *e, double time, const char *value);
/* A module-level instant event (e.g. a variable exposed). */
void viper_timeline_instant (ViperExporter *e, gint64 module, double time, const char *value);
/* Name a track (default "<kind> <id>"); call before its first state. */
void viper_timeline_name (ViperExporter *e, gint64 module, const char *name);

G_END_DECLS
