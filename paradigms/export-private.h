/* export-private.h - what export.c (the merge, the exporters) and
 * export-timeline.c (Pajé and Chrome, the timeline) share: the exporter's
 * state.  Not for paradigms: they use export.h. */
#pragma once

#include <stdio.h>
#include "export.h"
#include "core/outfile.h"

G_BEGIN_DECLS

typedef enum { FMT_PARAGRAPH = 0, FMT_PAJE, FMT_CHROME, N_FMT } Fmt;
/* A sorted record: "HEAD TIME TAIL"; text holds head\0tail\0. */
/* Records are written in the order of (time, lamport, idx, text): a function
 * of the trams and their adjusted times only, never of the line order (see
 * export.c); serial (the order of production) only tells apart records
 * whose bytes are the same. */
typedef struct {
  double time;
  guint32 lamport;          /* ParaGraph: its tram's Lamport number; timeline: its track's (export-timeline.c) */
  guint32 idx;              /* ParaGraph: its index among its tram's records; timeline end: module order */
  guint64 serial;
  guint64 hold;             /* a use of a definition not pushed yet: its hold (0: none) */
  gint64 def_key;           /* with uses_def: the definition it uses */
  guint64 msg;              /* a message's link or flow: its number is given when first written (0: none) */
  double ts;                /* Chrome: the event's "ts" (µs) */
  gboolean uses_def;
  gboolean chrome_clamped;
  guint8 kind;              /* REC_TEXT, or a write-time state change, retraction or note (no text written) */
  guint state;              /* REC_STATE / REC_RETRACT: the state */
  gint64 track;             /* REC_STATE / REC_RETRACT: the module; REC_NOTE: the note's key */
  guint64 aux;              /* REC_STATE / REC_NOTE: the paradigm's */  /* Chrome: a value was beyond a double's range */
  gsize head_len;
  char text[];
} Rec;

enum { REC_TEXT = 0, REC_STATE, REC_RETRACT, REC_NOTE };

/* A heap entry: the record's key beside its pointer, so that sifting
 * reads no record but on a tie of (time, lamport, idx). */
typedef struct {
  double time;
  guint64 key;              /* lamport << 32 | idx */
  Rec *rec;
} HeapEnt;

typedef struct {
  gint64 id;
  double last;
  gboolean done;
} Source;

typedef struct {
  double time;
  guint64 id;
} Hold;

typedef struct {
  gint64 id;
  char *name;
  char *alias;              /* Pajé container alias */
  gboolean created;
  gboolean announced;       /* Pajé: its PajeCreateContainer is written or queued */
  gboolean has_state;
  guint state;
  double since;             /* start of the current state */
  double last;              /* latest time written about this track */
  guint32 lamport;          /* Lamport number of its latest record (export-timeline.c) */
  /* write-time states (states_at): the batch of one time (export-timeline.c) */
  guint64 aux;              /* the paradigm's, as last applied */
  gboolean in_batch;        /* changed in the open batch */
  guint pend_state, pend_prev_state;   /* its state after the batch's changes so far; before the last one */
  guint64 pend_aux, pend_prev_aux;
  gboolean pend_has, pend_prev_has;
} Track;

typedef struct {
  gint64 from, to, tag;
} ChanKey;

typedef struct {
  guint64 id;
  double time;
  guint64 hold;
  guint32 lamport;          /* of its start (the sender's track; write-time states: the sending tram's) */
  guint32 idx;              /* write-time states: its index among the sending tram's records */
  char *name;
} Msg;

struct _ViperExporter {
  Fmt fmt;
  const ViperParadigm *paradigm;
  const ViperExportTable *table;
  const ViperModel *model;
  ViperOutFile *file;       /* or */
  GString *string;
  gboolean begun;           /* header written (at the first tram: a FIFO opens only then) */
  gboolean io_error;
  gboolean finished;
  GError *io_err;           /* the write error, "PATH: reason" */
  GString *buf;             /* one record being formatted */

  /* the merge */
  HeapEnt *heap;            /* min-heap on (time, lamport, idx, text) */
  guint heap_len, heap_cap;
  guint64 serial;
  GHashTable *sources;      /* gint64* -> Source* */
  double src_low;           /* the smallest last time of the live sources, when src_low_known */
  gboolean src_low_known;   /* (recomputed only when the source holding it moves or ends) */
  GTree *holds;             /* Hold* -> Hold* ordered by (time, id) */
  GHashTable *hold_ids;     /* guint64* id -> Hold* */
  guint64 next_hold;
  guint64 limit;
  guint64 window;           /* records kept even when the watermark passed them */
  double last_written;
  gboolean any_written;
  double shift;             /* added to written times (runs that begin before 0), trace units */
  double units_per_second;  /* ParaGraph wants seconds: written time = (t + shift) / this */
  GPtrArray *defs;          /* timeless definitions without a key, written at the end (char* head\0tail) */
  GHashTable *def_texts;    /* gint64* key -> GPtrArray of char*: definitions waiting for their first use */
  GHashTable *def_done;     /* gint64* key -> GPtrArray of char*: definitions written (a copy is not repeated) */
  guint32 cur_lamport;      /* the Lamport number of the tram being exported */
  guint32 cur_idx;          /* records it produced so far */
  GHashTable *msg_numbers;  /* message id -> number written (first of its two records written) */
  guint64 msg_written;      /* numbers given */
  guint32 prog_lamport;     /* the program container's latest record */
  GHashTable *defined;      /* gint64* keys of the definitions pushed (viper_export_push_definition_of) */
  GHashTable *def_waits;    /* gint64* key -> GArray of guint64 holds: uses waiting for that definition */
  gint64 cur_source;        /* PROC of the tram being exported */

  /* the timeline */
  GHashTable *tracks;       /* gint64* -> Track* */
  GHashTable *chans;        /* ChanKey* -> GQueue* of Msg* */
  guint64 next_msg;
  char *last_event;
  char *start_value;        /* a start event not written yet (viper_timeline_start_event) */
  double start_time;        /* its time: the earliest given */
  gboolean start_done;      /* written: later calls are ignored */
  double max_time;
  gboolean chrome_first;
  FILE *chrome_spool;       /* Chrome events until the end: the shift is known only then */
  double chrome_ts_pending; /* the "ts" of the event being formatted (µs), NAN: none */
  double chrome_min_ts;
  gboolean chrome_ts_clamped; /* the event being formatted had a "ts" or "dur" beyond a double's range */
  int chrome_spool_errno;

  /* write-time states (states_at): the changes of one time, applied together */
  gboolean batch_open;
  double batch_time;
  GPtrArray *batch_tracks;  /* Track* changed in the batch */
  GArray *batch_notes;      /* of Rec copies' (track, aux) as gint64 pairs */

  ViperExportStats stats;
  gpointer priv;
};


/* export.c: output */
void viper_exp_sink (ViperExporter *e, const char *s, gsize len);
/* v, computed from numbers as large as scale (a shift, a conversion, a
 * difference), printed to 15 significant digits of the larger of the two
 * (buf: 32 bytes): the operation's rounding noise in v's last bits goes even
 * when v is much smaller than its operands (0.03 - 0.02997 is 3e-05, not
 * 2.99999999999998e-05), and rounding to a fixed grid never reorders two
 * times of the same scale. */
char *viper_exp_format_noisy (double v, double scale, char *buf);
/* A record into the merge, nothing written yet (viper_export_push writes
 * what the buffer limit forces out). */
void viper_exp_insert (ViperExporter *e, gint64 source, double time, const char *head, const char *tail);
/* A timeline record: its order among equal times is (lamport, idx, text);
 * msg: a link's message (its key is numbered when first written), or 0;
 * insert_only: write nothing yet (from inside the merge's own writing). */
Rec *viper_exp_push_keyed (ViperExporter *e, gint64 source, double time, guint32 lamport, guint32 idx, guint64 msg,
                           gboolean insert_only, const char *head, const char *tail);
/* Write what the merge's hard limit forces out. */
void viper_exp_push_limit (ViperExporter *e);
/* Write every record the merge holds. */
void viper_exp_flush_all (ViperExporter *e);
/* export-timeline.c: Chrome, one event into the spool (at the merge's write). */
void viper_exp_chrome_spool (ViperExporter *e, const Rec *r);
void viper_exp_sinkf (ViperExporter *e, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* export-timeline.c: write-time states.  A REC_STATE / REC_RETRACT /
 * REC_NOTE record leaves the merge (it is freed by the caller); the open
 * batch ends first when the record's time is another. */
void viper_exp_batch_rec (ViperExporter *e, const Rec *r);
/* A text record of time t is about to be written: the batch of an earlier
 * time (or of t, for the end records) is applied first. */
void viper_exp_batch_before (ViperExporter *e, double t, guint32 lamport);
/* Apply the open batch (nothing when none). */
void viper_exp_batch_end (ViperExporter *e);
/* A record written now, bypassing the merge (the batch's output). */
void viper_exp_write_now (ViperExporter *e, Rec *r);
/* export.c: an empty record (kind REC_TEXT) into the merge, keyed. */
Rec *viper_exp_rec_new (double time, guint32 lamport, guint32 idx, const char *head, const char *tail);
void viper_exp_heap_insert (ViperExporter *e, gint64 source, Rec *r);

/* export-timeline.c: Pajé and Chrome */
void viper_exp_paje_begin (ViperExporter *e);
void viper_exp_paje_program_container (ViperExporter *e, const char *time);
void viper_exp_paje_create_known_containers (ViperExporter *e, const char *time);
void viper_exp_chrome_begin (ViperExporter *e);
void viper_exp_timeline_end (ViperExporter *e);
/* The waiting start event goes into the merge now (or the Chrome spool). */
void viper_exp_timeline_start_now (ViperExporter *e);
guint viper_exp_chan_hash (gconstpointer k);
gboolean viper_exp_chan_equal (gconstpointer a, gconstpointer b);
void viper_exp_queue_free (gpointer q);

/* export.c's merge, for export-open.c */
void viper_exp_flush (ViperExporter *e);
void viper_exp_flush_upto (ViperExporter *e, double w, gboolean all);
Rec *viper_exp_heap_pop (ViperExporter *e);
char *viper_exp_out_time (ViperExporter *e, double t, char *num);
void viper_exp_write_defs_left (ViperExporter *e, const char *num);
/* the holds' order (a GTree's): by time, then by id */
gint viper_exp_hold_cmp (gconstpointer a, gconstpointer b, gpointer data);

G_END_DECLS
