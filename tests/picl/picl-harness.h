/* picl-harness.h - feed PICL lines to a run one at a time, the way the
 * scheduler does: after every insert, transfer everything ready and apply it
 * to the picl model, recording what left and when. */
#pragma once

#include "core/run.h"
#include "core/model.h"
#include "core/tramparse.h"
#include "paradigms/paradigms.h"
#include "paradigms/picl/picl.h"
#include "paradigms/picl/picl-gen-lib.h"

typedef struct {
  gint64 proc, seq;
  double time, adjusted;
  double offset_before, offset_after;   /* the module's offset around its transfer */
  guint64 at_insert;                    /* inserts done when it left (1-based) */
  guint16 type;
} Transfer;

typedef struct _Harness Harness;
typedef void (*TransferFunc) (Harness *h, const ViperTram *t, const Transfer *rec, gpointer data);

struct _Harness {
  ViperTramPool *pool;
  ViperTramFields *fields;
  ViperChannels *channels;
  ViperDiag diag;
  ViperModel *model;
  ViperRun *run;
  guint32 channel;
  guint64 inserts;
  guint64 bad;              /* bad-input reports */
  guint64 warnings;         /* inconsistency reports */
  char *last_bad;           /* text of the last bad-input report */
  char *last_warning;       /* text of the last warning */
  GArray *out;              /* of Transfer, in run order */
  GHashTable *offsets;      /* proc -> double* offset after its last transfer (for offset_before) */
  TransferFunc on_transfer;
  gpointer on_transfer_data;
};

void harness_init (Harness *h, double decay);
void harness_clear (Harness *h);
/* Parse and insert one line, then drain.  Returns what viper_run_insert said. */
gboolean harness_feed (Harness *h, const char *line);
/* Transfers that left during the last harness_feed: out->len before / after. */
void harness_drain (Harness *h);
/* The input ended (every processor is known: collectives over SUBSET -1
 * may end); transfers what that made ready. */
void harness_end (Harness *h);

/* Options for a random small program from a seed (procs 2-8, messages 10-60). */
void harness_small_options (ViperPiclGenOptions *o, guint64 seed);

/* Index of the line of each (proc, seq) after a delivery: lines of proc p in
 * delivery order are seq 1, 2, ...  Returns a table "proc:seq" -> position + 1. */
GHashTable *harness_seq_index (const GArray *lines);
guint harness_lookup (GHashTable *index, gint64 proc, gint64 seq);   /* position, or G_MAXUINT */
