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
};

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

/* `state` code of a history arrow (a message, module = from, other = to). */
#define VIPER_PICL_ARROW_MESSAGE 16

const char *viper_picl_state_name (ViperPiclState s);

/* Model accessors (for views and tests).  A processor the model has not seen
 * is busy, not tracing, with nothing sent or received. */
ViperModel *viper_picl_model_new (const ViperParadigm *p, ViperSetup *setup);
guint64 viper_picl_model_messages (const ViperModel *m);          /* matched send -> receive pairs */
guint64 viper_picl_model_unreceived (const ViperModel *m);        /* send begins not yet received */
ViperPiclState viper_picl_model_state (const ViperModel *m, gint64 proc);
gboolean viper_picl_model_tracing (const ViperModel *m, gint64 proc);
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

/* Appends the messages underway (ViperPiclMessage) to out, in order of
 * sending, and returns how many. */
guint viper_picl_model_underway (const ViperModel *m, GArray *out);

G_END_DECLS
