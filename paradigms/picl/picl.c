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
#include "core/join.h"

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
  /* SRCPROCESS (the last field of receive begins, posts and ends) is not
   * used by matching either: missing means 0 */
  { B, VIPER_PICL_EV_RECV, "RECV BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { E, VIPER_PICL_EV_RECV, "RECV END", VIPER_ROLE_SLOT, 0, RECV_END, VIPER_PICL_RECV_SRC, VIPER_PICL_RECV_TAG, 3 },
  { B, VIPER_PICL_EV_IRECV, "IRECV BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { E, VIPER_PICL_EV_IRECV, "IRECV END", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { B, VIPER_PICL_EV_RECV_WAIT, "RECV WAIT BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { E, VIPER_PICL_EV_RECV_WAIT, "RECV WAIT END", VIPER_ROLE_SLOT, 0, RECV_END, VIPER_PICL_RECV_SRC,
    VIPER_PICL_RECV_TAG, 3 },
  { VIPER_PICL_REC_SUBSET, VIPER_PICL_EV_SUBSET, "SUBSET", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  /* a barrier begin without SUBSET is over all processors */
  { B, VIPER_PICL_EV_BARRIER, "BARRIER BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_BARRIER, "BARRIER END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_MESSAGE, "TRACE MESSAGE BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_MESSAGE, "TRACE MESSAGE END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  /* collectives: rooted begins need ROOT (field 1); a missing SUBSET means all */
  { B, VIPER_PICL_EV_ALLREDUCE, "ALLREDUCE BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_ALLREDUCE, "ALLREDUCE END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_ALLGATHER, "ALLGATHER BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_ALLGATHER, "ALLGATHER END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_ALLTOALL, "ALLTOALL BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_ALLTOALL, "ALLTOALL END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_BCAST, "BCAST BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { E, VIPER_PICL_EV_BCAST, "BCAST END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_GATHER, "GATHER BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { E, VIPER_PICL_EV_GATHER, "GATHER END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_SCATTER, "SCATTER BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { E, VIPER_PICL_EV_SCATTER, "SCATTER END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_REDUCE, "REDUCE BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { E, VIPER_PICL_EV_REDUCE, "REDUCE END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_REDUCE_SCATTER, "REDUCE_SCATTER BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_REDUCE_SCATTER, "REDUCE_SCATTER END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { B, VIPER_PICL_EV_SCAN, "SCAN BEGIN", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  { E, VIPER_PICL_EV_SCAN, "SCAN END", VIPER_ROLE_FREE, 0, 0, NF, NF, 0 },
  /* clock-synchronisation sample REF T1 TR T2: known, no state, no dependency */
  { VIPER_PICL_REC_SYNC, VIPER_PICL_EV_SYNC, "CLOCK SYNC", VIPER_ROLE_FREE, 0, 0, NF, NF, 4 },
};

static const ViperSlot send_slots[] = {
  /* match_class, from, ref, after, key2_start_field, key1_caller */
  { 0, VIPER_FROM_CALLER, -1, VIPER_NO_SLOT, NF, FALSE },
  { RECV_END, VIPER_FROM_PARTNER, VIPER_NO_SLOT, 0, VIPER_PICL_SEND_TAG, TRUE },
};

static const ViperProfile picl_profiles[] = {
  [PROFILE_SEND] = { "send", VIPER_PICL_SEND_DEST, G_N_ELEMENTS (send_slots), send_slots },
};

/* Collectives for the run (core/join.h): the k-th collective of one kind
 * over one SUBSET on each member belongs together; subsets are defined by
 * -202 -812 lines (repeats are harmless: the first definition counts). */
static ViperJoinRole
picl_join_classify (const ViperTram *t, gint64 *kind, gint64 *group, gint64 *root, ViperJoinShape *shape)
{
  if (t->rec == VIPER_PICL_REC_SUBSET && t->ev == VIPER_PICL_EV_SUBSET)
    return VIPER_JOIN_GROUP;
  if ((t->rec != VIPER_PICL_REC_BEGIN && t->rec != VIPER_PICL_REC_END) || t->proc < 0)
    return VIPER_JOIN_NONE;
  ViperPiclShape s = viper_picl_collective_shape (t->ev);
  if (s == VIPER_PICL_SHAPE_NONE)
    return VIPER_JOIN_NONE;
  static const ViperJoinShape shapes[] = {
    [VIPER_PICL_SHAPE_ALL_TO_ALL] = VIPER_JOIN_ALL_TO_ALL, [VIPER_PICL_SHAPE_ONE_TO_ALL] = VIPER_JOIN_ONE_TO_ALL,
    [VIPER_PICL_SHAPE_ALL_TO_ONE] = VIPER_JOIN_ALL_TO_ONE, [VIPER_PICL_SHAPE_PREFIX] = VIPER_JOIN_PREFIX,
  };
  *kind = t->ev;
  *shape = shapes[s];
  if (t->rec == VIPER_PICL_REC_BEGIN)
    {
      *group = viper_picl_collective_subset (t);
      *root = viper_picl_collective_root (t);
      return VIPER_JOIN_BEGIN;
    }
  /* an end names no subset (-782's does, and it is the begin's): the run
   * takes the subset of the member's open begin of the same kind */
  *group = VIPER_JOIN_GROUP_OF_BEGIN;
  return VIPER_JOIN_END;
}

static gboolean
picl_join_group (const ViperTram *t, gint64 *group, const gint64 **members, guint *n)
{
  if (t->dtype != VIPER_DTYPE_INT || t->ndata < 1)
    return FALSE;
  const gint64 *d = viper_tram_data (t);
  *group = d[0];
  *members = d + 1;
  *n = t->ndata - 1u;
  return TRUE;
}

static gboolean
picl_join_may_join (gint64 rec, gint64 ev)
{
  if (rec == VIPER_PICL_REC_SUBSET && ev == VIPER_PICL_EV_SUBSET)
    return TRUE;
  return (rec == VIPER_PICL_REC_BEGIN || rec == VIPER_PICL_REC_END)
         && viper_picl_collective_shape (ev) != VIPER_PICL_SHAPE_NONE;
}

static const ViperJoinClass picl_join = {
  .classify = picl_join_classify,
  .group_def = picl_join_group,
  .may_join = picl_join_may_join,
};

/* A global record (PROC -1: spec section 1), such as a subset definition,
 * carries no processor's clock: real writers date the definitions 0 while
 * the processors' events carry epoch seconds.  Its TIME stays in the run
 * (--run-out); the run's range and the exports' origin come from the
 * processors' trams. */
static gboolean
picl_timeless (const ViperTram *t)
{
  return t->proc < 0;
}

const ViperParadigm viper_picl_paradigm = {
  .name = "picl",
  .description = "Native PICL 2.0 message passing (MPICL / ParaGraph traces; times in seconds)",
  .explicit_seq = FALSE,
  .types = picl_types,
  .n_types = G_N_ELEMENTS (picl_types),
  .profiles = picl_profiles,
  .n_profiles = G_N_ELEMENTS (picl_profiles),
  .timeless = picl_timeless,
  .group_members = NULL,
  .model_new = viper_picl_model_new,
  .setup_load = NULL,
  .setup_free = NULL,
  .render = &viper_picl_renderer,
  .export = &viper_picl_exports,
  .join = &picl_join,
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

ViperPiclShape
viper_picl_collective_shape (gint64 ev)
{
  switch (ev)
    {
    case VIPER_PICL_EV_BARRIER:
    case VIPER_PICL_EV_ALLREDUCE:
    case VIPER_PICL_EV_ALLGATHER:
    case VIPER_PICL_EV_ALLTOALL:
    case VIPER_PICL_EV_REDUCE_SCATTER:
      return VIPER_PICL_SHAPE_ALL_TO_ALL;
    case VIPER_PICL_EV_BCAST:
    case VIPER_PICL_EV_SCATTER:
      return VIPER_PICL_SHAPE_ONE_TO_ALL;
    case VIPER_PICL_EV_GATHER:
    case VIPER_PICL_EV_REDUCE:
      return VIPER_PICL_SHAPE_ALL_TO_ONE;
    case VIPER_PICL_EV_SCAN:
      return VIPER_PICL_SHAPE_PREFIX;
    default:
      return VIPER_PICL_SHAPE_NONE;
    }
}

const char *
viper_picl_collective_name (gint64 ev)
{
  switch (ev)
    {
    case VIPER_PICL_EV_BARRIER: return "barrier";
    case VIPER_PICL_EV_ALLREDUCE: return "allreduce";
    case VIPER_PICL_EV_ALLGATHER: return "allgather";
    case VIPER_PICL_EV_ALLTOALL: return "alltoall";
    case VIPER_PICL_EV_BCAST: return "broadcast";
    case VIPER_PICL_EV_GATHER: return "gather";
    case VIPER_PICL_EV_SCATTER: return "scatter";
    case VIPER_PICL_EV_REDUCE: return "reduce";
    case VIPER_PICL_EV_REDUCE_SCATTER: return "reduce_scatter";
    case VIPER_PICL_EV_SCAN: return "scan";
    default: return NULL;
    }
}

static gboolean
rooted (gint64 ev)
{
  ViperPiclShape s = viper_picl_collective_shape (ev);
  return s == VIPER_PICL_SHAPE_ONE_TO_ALL || s == VIPER_PICL_SHAPE_ALL_TO_ONE;
}

/* Begin data: barrier SUBSET; rooted BYTES ROOT SUBSET; others BYTES SUBSET. */
gint64
viper_picl_collective_subset (const ViperTram *t)
{
  guint field = t->ev == VIPER_PICL_EV_BARRIER ? 0 : rooted (t->ev) ? 2 : 1;
  return t->dtype == VIPER_DTYPE_INT ? viper_tram_datum (t, field, -1) : -1;
}

gint64
viper_picl_collective_root (const ViperTram *t)
{
  return rooted (t->ev) && t->dtype == VIPER_DTYPE_INT ? viper_tram_datum (t, 1, -1) : -1;
}
