/* picl.h - the native PICL message-passing paradigm (spec picl.md section 3).
 *
 * The paradigm description registers the PICL 2.0 tram table: sends open a
 * two-slot primitive whose second slot is the receive end on the destination
 * (matched by source and tag), everything else belongs to no primitive.  The
 * state model (picl-model.c) tracks per processor busy / communicating /
 * idle, tracing, and the messages of the space-time view.
 */
#pragma once

#include "core/paradigm.h"
#include "core/model.h"

G_BEGIN_DECLS

extern const ViperParadigm viper_picl_paradigm;

/* Data field positions (0-based, after DTYPE). */
enum {
  VIPER_PICL_SEND_BYTES = 0, VIPER_PICL_SEND_TAG = 1, VIPER_PICL_SEND_DEST = 2, VIPER_PICL_SEND_DESTPROC = 3,
  VIPER_PICL_RECV_BYTES = 0, VIPER_PICL_RECV_TAG = 1, VIPER_PICL_RECV_SRC = 2, VIPER_PICL_RECV_SRCPROC = 3,
  VIPER_PICL_POST_TAG = 0, VIPER_PICL_POST_SRC = 1, VIPER_PICL_POST_SRCPROC = 2,
};

/* PICL event types (EV). */
enum {
  VIPER_PICL_EV_SEND = -21,
  VIPER_PICL_EV_ISEND = -27,
  VIPER_PICL_EV_SEND_WAIT = -31,
  VIPER_PICL_EV_RECV = -52,
  VIPER_PICL_EV_IRECV = -57,
  VIPER_PICL_EV_RECV_WAIT = -61,
  VIPER_PICL_EV_SUBSET = -812,
  VIPER_PICL_EV_BARRIER = -402,
  VIPER_PICL_EV_TRACING = -901,
  VIPER_PICL_EV_MESSAGE = -911,
  VIPER_PICL_EV_SYNC = -951,          /* clock-synchronisation sample: no state effect */
  /* collectives (COMMON contract; -402 barrier above) */
  VIPER_PICL_EV_ALLREDUCE = -782,
  VIPER_PICL_EV_ALLGATHER = -783,
  VIPER_PICL_EV_ALLTOALL = -784,
  VIPER_PICL_EV_BCAST = -785,
  VIPER_PICL_EV_GATHER = -786,
  VIPER_PICL_EV_SCATTER = -787,
  VIPER_PICL_EV_REDUCE = -790,
  VIPER_PICL_EV_REDUCE_SCATTER = -791,
  VIPER_PICL_EV_SCAN = -792,
};

#define VIPER_PICL_REC_SYNC (-6)

/* How the members of a collective depend on each other (spec section 3). */
typedef enum {
  VIPER_PICL_SHAPE_NONE = 0,        /* not a collective */
  VIPER_PICL_SHAPE_ALL_TO_ALL,      /* every end depends on every begin */
  VIPER_PICL_SHAPE_ONE_TO_ALL,      /* every end depends on the root's begin */
  VIPER_PICL_SHAPE_ALL_TO_ONE,      /* the root's end depends on every begin */
  VIPER_PICL_SHAPE_PREFIX,          /* member i's end depends on the begins of members 0..i */
} ViperPiclShape;

ViperPiclShape viper_picl_collective_shape (gint64 ev);
const char *viper_picl_collective_name (gint64 ev);     /* "barrier", ...; NULL if not one */
/* From a collective's begin: its SUBSET (-1 = all, also when missing) and
 * ROOT (-1 for the unrooted shapes). */
gint64 viper_picl_collective_subset (const ViperTram *begin);
gint64 viper_picl_collective_root (const ViperTram *begin);

#define VIPER_PICL_REC_BEGIN (-3)
#define VIPER_PICL_REC_END (-4)
#define VIPER_PICL_REC_SUBSET (-202)

/* Match class of the receive ends (the send profile's slot 1). */
#define VIPER_PICL_CLASS_RECV_END 1

/* Processor states; also the `state` code of history state entries. */
typedef enum {
  VIPER_PICL_BUSY = 0,
  VIPER_PICL_COMMUNICATING,
  VIPER_PICL_IDLE,
} ViperPiclState;

/* `state` code of a history arrow (a message, module = from, other = to).
 * The arrow is written at the send, in the sender's order, with t1 NaN: the
 * message is underway (the core history keeps it open, and a seek back
 * re-opens it the same way); the receive writes t1.  The space-time view
 * draws an underway message dashed to the clock. */
#define VIPER_PICL_ARROW_MESSAGE 16

const char *viper_picl_state_name (ViperPiclState s);

/* Model accessors (for views and tests).  A processor the model has not seen
 * is busy, not tracing, with nothing sent or received. */
ViperModel *viper_picl_model_new (const ViperParadigm *p, ViperSetup *setup);
guint64 viper_picl_model_messages (const ViperModel *m);          /* matched send -> receive pairs */
guint64 viper_picl_model_unreceived (const ViperModel *m);        /* send begins not yet received */
ViperPiclState viper_picl_model_state (const ViperModel *m, gint64 proc);
gboolean viper_picl_model_tracing (const ViperModel *m, gint64 proc);
/* Tracing started and then stopped outside a call: the processor ended
 * (a rank that finalized, or died between calls). */
gboolean viper_picl_model_ended (const ViperModel *m, gint64 proc);
guint64 viper_picl_model_sent (const ViperModel *m, gint64 proc);
guint64 viper_picl_model_received (const ViperModel *m, gint64 proc);
guint viper_picl_model_n_procs (const ViperModel *m);
guint viper_picl_model_n_subsets (const ViperModel *m);            /* (-202, -812) records seen */

/* A message underway in the reconstructed run: its send begin is applied,
 * the receive end that takes it is not yet. */
typedef struct {
  gint64 src, dest, tag;
  double sent;              /* adjusted time of the send begin */
} ViperPiclMessage;

/* A processor's state from `time` on, decided from adjusted times. */
typedef struct {
  gint64 proc;
  double time;
  ViperPiclState state;
} ViperPiclChange;

/* The state changes the last applied tram decided (for the exports): a
 * processor's changes are decided when its calls that overlap in time have
 * all ended; each processor's come in time order. */
const ViperPiclChange *viper_picl_model_changes (const ViperModel *m, guint *n);
/* The states of the processor's calls still open (of every processor's,
 * by processor, when proc is G_MININT64), from the begin of the first of
 * them to the clock, as far as the run so far shows: appended to out as
 * ViperPiclChange in time order, the first at that begin.  They are
 * decided (viper_picl_model_changes) when the calls end; meanwhile the
 * space-time view and the exports of a stop point show these.  Returns
 * how many. */
guint viper_picl_model_open_changes (const ViperModel *m, gint64 proc, GArray *out);
/* Bytes held by the model's per-channel and per-request tables (bounded by
 * what is underway, not by every channel ever used). */
gsize viper_picl_model_table_bytes (const ViperModel *m);
/* TRUE while a communication call of the processor is open. */
gboolean viper_picl_model_in_call (const ViperModel *m, gint64 proc);
/* Smallest adjusted time applied (INFINITY before any). */
double viper_picl_model_first_time (const ViperModel *m);
/* Latest adjusted time of a tracing stop (-INFINITY before any). */
double viper_picl_model_last_stop (const ViperModel *m);

/* Appends the messages underway (ViperPiclMessage) to out, in order of
 * sending, and returns how many. */
guint viper_picl_model_underway (const ViperModel *m, GArray *out);

G_END_DECLS
