/* picl.c - the description of the native PICL paradigm (spec picl.md section 3).
 *
 * PICL traces carry no sequence numbers, so the run construction numbers each
 * processor's lines by arrival (explicit_seq = FALSE).  The only causal
 * dependency between processors is the message: the send begin (blocking
 * -21 or non-blocking -27) opens a primitive with one open slot, the receive
 * end on the destination (-4 -52 or -4 -61, which share one match class).
 * The slot is keyed by (destination list, source = the caller, tag from the
 * send), so the k-th send on channel (SRC, DEST, TAG) meets the k-th receive
 * end on DEST naming (SRC, TAG): the engine's FIFO expectations do the
 * matching, this file only declares it.  Receive begins, posts, waits,
 * barriers, tracing and trace messages are one-tram lists: they are ordered
 * by their own processor's sequence only.
 */
#include "picl.h"
#include "picl-render.h"
#include "picl-export.h"

#define B VIPER_PICL_REC_BEGIN
#define E VIPER_PICL_REC_END
#define RECV_END VIPER_PICL_CLASS_RECV_END
#define NF VIPER_NO_FIELD

enum { PROFILE_SEND = 0 };

static const ViperTramType picl_types[] = {
  /* rec, ev, name, role, profile, match_class, key1_field, key2_field, min_ndata */
  { B, VIPER_PICL_EV_TRACING, "TRACE START", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_TRACING, "TRACE STOP", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  /* DESTPROCESS (field 3) is not used by matching: real writers omit it */
  { B, VIPER_PICL_EV_SEND, "SEND BEGIN", VIPER_ROLE_START, PROFILE_SEND, 0, NF, NF, 3 },
  { E, VIPER_PICL_EV_SEND, "SEND END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_ISEND, "ISEND BEGIN", VIPER_ROLE_START, PROFILE_SEND, 0, NF, NF, 3 },
  { E, VIPER_PICL_EV_ISEND, "ISEND END", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { B, VIPER_PICL_EV_SEND_WAIT, "SEND WAIT BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { E, VIPER_PICL_EV_SEND_WAIT, "SEND WAIT END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_RECV, "RECV BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 3 },
  { E, VIPER_PICL_EV_RECV, "RECV END", VIPER_ROLE_SLOT, 0, RECV_END, VIPER_PICL_RECV_SRC, VIPER_PICL_RECV_TAG, 4 },
  { B, VIPER_PICL_EV_IRECV, "IRECV BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 3 },
  { E, VIPER_PICL_EV_IRECV, "IRECV END", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { B, VIPER_PICL_EV_RECV_WAIT, "RECV WAIT BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { E, VIPER_PICL_EV_RECV_WAIT, "RECV WAIT END", VIPER_ROLE_SLOT, 0, RECV_END, VIPER_PICL_RECV_SRC,
    VIPER_PICL_RECV_TAG, 4 },
  { VIPER_PICL_REC_SUBSET, VIPER_PICL_EV_SUBSET, "SUBSET", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  /* a barrier begin without SUBSET is over all processors */
  { B, VIPER_PICL_EV_BARRIER, "BARRIER BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_BARRIER, "BARRIER END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_MESSAGE, "TRACE MESSAGE BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_MESSAGE, "TRACE MESSAGE END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
};

static const ViperSlot send_slots[] = {
  /* match_class, from, ref, after, key2_start_field, key1_caller */
  { 0, VIPER_FROM_CALLER, -1, VIPER_NO_SLOT, NF, FALSE },
  { RECV_END, VIPER_FROM_PARTNER, VIPER_NO_SLOT, 0, VIPER_PICL_SEND_TAG, TRUE },
};

static const ViperProfile picl_profiles[] = {
  [PROFILE_SEND] = { "send", VIPER_PICL_SEND_DEST, G_N_ELEMENTS (send_slots), send_slots },
};

const ViperParadigm viper_picl_paradigm = {
  .name = "picl",
  .description = "Native PICL 2.0 message passing (MPICL / ParaGraph traces; times in seconds)",
  .explicit_seq = FALSE,
  .types = picl_types,
  .n_types = G_N_ELEMENTS (picl_types),
  .profiles = picl_profiles,
  .n_profiles = G_N_ELEMENTS (picl_profiles),
  .group_members = NULL,
  .model_new = viper_picl_model_new,
  .setup_load = NULL,
  .setup_free = NULL,
  .render = &viper_picl_renderer,
  .export = &viper_picl_exports,
};

const char *
viper_picl_state_name (ViperPiclState s)
{
  switch (s)
    {
    case VIPER_PICL_BUSY: return "busy";
    case VIPER_PICL_COMMUNICATING: return "communicating";
    case VIPER_PICL_IDLE: return "idle";
    default: return "busy";
    }
}
