/* viper-mpi-p2p.c - point-to-point calls: sends, receives, probes, Sendrecv
 * and persistent requests.  Their requests, completions and the post order
 * of receives are viper-mpi-req.c's (see there).
 */
#include "viper-mpi-req.h"

#include <stdlib.h>
#include <string.h>

/* ---- blocking sends ---- */

#define BLOCKING_SEND(call)                                                          \
  do                                                                                 \
    {                                                                                \
      if (!vm.on || dest == MPI_PROC_NULL)                                           \
        return call;                                                                 \
      VmComm *c_ = vm_comm_get (comm);                                               \
      if (vm_comm_outside (c_, dest))                                                \
        return call;                                                                 \
      VM_E (VM_BEGIN, VM_EV_SEND, vm_now (), 4, vm_bytes (count, datatype), tag,     \
            vm_comm_world_rank (c_, dest), 0);                                       \
      __atomic_add_fetch (&vm.sent, 1, __ATOMIC_RELAXED);                            \
      int rc_ = call;                                                                \
      VM_E0 (VM_END, VM_EV_SEND, vm_now ());                                         \
      return rc_;                                                                    \
    }                                                                                \
  while (0)

int
MPI_Send (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  BLOCKING_SEND (PMPI_Send (buf, count, datatype, dest, tag, comm));
}

int
MPI_Ssend (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  BLOCKING_SEND (PMPI_Ssend (buf, count, datatype, dest, tag, comm));
}

int
MPI_Bsend (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  BLOCKING_SEND (PMPI_Bsend (buf, count, datatype, dest, tag, comm));
}

int
MPI_Rsend (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  BLOCKING_SEND (PMPI_Rsend (buf, count, datatype, dest, tag, comm));
}

/* ---- non-blocking sends and receives ---- */

#define NONBLOCKING_SEND(call)                                                       \
  do                                                                                 \
    {                                                                                \
      if (!vm.on || dest == MPI_PROC_NULL)                                           \
        return call;                                                                 \
      VmComm *c_ = vm_comm_get (comm);                                               \
      if (vm_comm_outside (c_, dest))                                                \
        return call;                                                                 \
      int64_t t0_ = vm_now ();                                                       \
      int rc_ = call;                                                                \
      int64_t t1_ = vm_now ();                                                       \
      if (rc_ != MPI_SUCCESS)                                                        \
        return rc_;                                                                  \
      int w_ = vm_comm_world_rank (c_, dest);                                        \
      int64_t id_ = vm_req_track (*request, K_SEND, w_, 0, tag, 0, NULL, comm, 1);              \
      if (id_ == 0)                                                                  \
        return rc_;                                                                  \
      VM_E (VM_BEGIN, VM_EV_ISEND, t0_, 4, vm_bytes (count, datatype), tag, w_, 0);  \
      VM_E (VM_END, VM_EV_ISEND, t1_, 1, id_);                                       \
      __atomic_add_fetch (&vm.sent, 1, __ATOMIC_RELAXED);                            \
      return rc_;                                                                    \
    }                                                                                \
  while (0)

int
MPI_Isend (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request)
{
  NONBLOCKING_SEND (PMPI_Isend (buf, count, datatype, dest, tag, comm, request));
}

int
MPI_Issend (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
            MPI_Request *request)
{
  NONBLOCKING_SEND (PMPI_Issend (buf, count, datatype, dest, tag, comm, request));
}

int
MPI_Ibsend (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
            MPI_Request *request)
{
  NONBLOCKING_SEND (PMPI_Ibsend (buf, count, datatype, dest, tag, comm, request));
}

int
MPI_Irsend (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
            MPI_Request *request)
{
  NONBLOCKING_SEND (PMPI_Irsend (buf, count, datatype, dest, tag, comm, request));
}

/* A blocking receive while receives posted before it on C that it might
 * overtake in the trace are pending (see "Post order"): it is written as
 * what the standard says it is, a post and a wait, so that the earlier ones
 * it finds matched can end inside its wait, before its own end.  Returns
 * the request id (0: none pending, a plain -52 receive). */
static int64_t
recv_begin (VmComm *c, MPI_Comm mc, int source, int tag, int64_t t0)
{
  int64_t rid = vm_pending_overlap (c, mc, source, tag) ? vm_req_new_id () : 0;
  if (!rid)
    {
      VM_E (VM_BEGIN, VM_EV_RECV, t0, 3, vm_wtag (tag), vm_comm_world_rank (c, source), 0);
      return 0;
    }
  VM_E (VM_BEGIN, VM_EV_IRECV, t0, 3, vm_wtag (tag), vm_comm_world_rank (c, source), 0);
  VM_E (VM_END, VM_EV_IRECV, t0, 1, rid);
  VM_E (VM_BEGIN, VM_EV_RECV_WAIT, t0, 1, rid);
  return rid;
}

/* after the earlier ones of its channel: the end of receive RID (0: -52) */
static void
recv_end (VmComm *c, MPI_Comm mc, int64_t rid, const MPI_Status *st, int64_t t0, int64_t t1)
{
  if (rid)
    {
      DoneBuf b;
      vm_done_init (&b);
      vm_rlock ();
      vm_earlier_first (c, mc, st->MPI_SOURCE, st->MPI_TAG, rid, &b);
      vm_pend_tidy ();
      vm_runlock ();
      for (int i = 0; i < b.n; i++)
        VM_E (VM_BEGIN, VM_EV_RECV_WAIT, t0, 1, b.v[i].id);
      for (int i = 0; i < b.n; i++)
        {
          VM_E (VM_END, VM_EV_RECV_WAIT, t1, 4, b.v[i].bytes, b.v[i].tag, b.v[i].src, 0);
          __atomic_add_fetch (&vm.received, 1, __ATOMIC_RELAXED);
        }
      vm_done_free (&b);
    }
  VM_E (VM_END, rid ? VM_EV_RECV_WAIT : VM_EV_RECV, t1, 4, vm_status_bytes (st), st->MPI_TAG,
        vm_world_src (c, st->MPI_SOURCE), 0);
  __atomic_add_fetch (&vm.received, 1, __ATOMIC_RELAXED);
}

int
MPI_Recv (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
  if (!vm.on || source == MPI_PROC_NULL)
    return PMPI_Recv (buf, count, datatype, source, tag, comm, status);
  VmComm *c = vm_comm_get (comm);
  if (vm_comm_outside (c, source))
    return PMPI_Recv (buf, count, datatype, source, tag, comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int64_t t0 = vm_now ();
  int64_t rid = recv_begin (c, comm, source, tag, t0);
  int rc = PMPI_Recv (buf, count, datatype, source, tag, comm, st);
  int64_t t1 = vm_now ();
  if (rc == MPI_SUCCESS)
    recv_end (c, comm, rid, st, t0, t1);
  return rc;
}

static int
irecv_post (int rc, MPI_Request *request, int source, int tag, VmComm *c, MPI_Comm comm, int64_t t0)
{
  int64_t t1 = vm_now ();
  if (rc != MPI_SUCCESS)
    return rc;
  int64_t id = vm_req_track (*request, K_RECV, -1, source, tag, 0, c, comm, 1);
  if (id)
    {
      VM_E (VM_BEGIN, VM_EV_IRECV, t0, 3, vm_wtag (tag), vm_comm_world_rank (c, source), 0);
      VM_E (VM_END, VM_EV_IRECV, t1, 1, id);
    }
  return rc;
}

int
MPI_Irecv (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
           MPI_Request *request)
{
  if (!vm.on || source == MPI_PROC_NULL)
    return PMPI_Irecv (buf, count, datatype, source, tag, comm, request);
  VmComm *c = vm_comm_get (comm);
  if (vm_comm_outside (c, source))
    return PMPI_Irecv (buf, count, datatype, source, tag, comm, request);
  int64_t t0 = vm_now ();
  int rc = PMPI_Irecv (buf, count, datatype, source, tag, comm, request);
  return irecv_post (rc, request, source, tag, c, comm, t0);
}

/* ---- matched probe / receive (mpi4py's pickled receives use these) ---- */

/* A matched message's status names its source in the probed communicator,
 * which MPI_Mrecv is not told: the last M(i)probe that found one keeps it. */
static VmComm *vm_probe_comm;
static MPI_Comm vm_probe_mcomm = MPI_COMM_NULL;

int
MPI_Mrecv (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
  if (!vm.on || *message == MPI_MESSAGE_NO_PROC)
    return PMPI_Mrecv (buf, count, datatype, message, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  /* the message was chosen by the probe: the begin names any source and tag */
  VmComm *c = vm_probe_comm ? vm_probe_comm : &vm.world;
  int64_t t0 = vm_now ();
  MPI_Comm mc = vm_probe_mcomm;
  int64_t rid = recv_begin (c, mc, MPI_ANY_SOURCE, MPI_ANY_TAG, t0);
  int rc = PMPI_Mrecv (buf, count, datatype, message, st);
  int64_t t1 = vm_now ();
  if (rc == MPI_SUCCESS)
    recv_end (c, mc, rid, st, t0, t1);
  return rc;
}

int
MPI_Imrecv (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
  if (!vm.on || *message == MPI_MESSAGE_NO_PROC)
    return PMPI_Imrecv (buf, count, datatype, message, request);
  int64_t t0 = vm_now ();
  int rc = PMPI_Imrecv (buf, count, datatype, message, request);
  return irecv_post (rc, request, MPI_ANY_SOURCE, MPI_ANY_TAG, vm_probe_comm ? vm_probe_comm : &vm.world,
                     vm_probe_mcomm, t0);
}

static void
probe_set_comm (VmComm *c, MPI_Comm comm)
{
  /* remember the communicator of the last probe for a following M(i)recv;
   * the world table needs no reference */
  vm_probe_mcomm = comm;
  if (vm_probe_comm == c)
    return;
  vm_comm_ref (c);
  VmComm *old = vm_probe_comm;
  vm_probe_comm = c;
  vm_comm_unref (old);
}

static int
probe_common (int rc, int found, int ev, int source, int tag, VmComm *c, MPI_Status *st, int64_t t0)
{
  int64_t t1 = vm_now ();
  if (rc != MPI_SUCCESS)
    return rc;
  if (!found)
    {
      vm.polls++;
      return rc;
    }
  if (ev == VM_EV_IPROBE)
    VM_E (VM_BEGIN, ev, t0, 3, vm_wtag (tag), vm_comm_world_rank (c, source), 0);
  VM_E (VM_END, ev, t1, 4, vm_status_bytes (st), st->MPI_TAG, vm_comm_world_rank (c, st->MPI_SOURCE), 0);
  return rc;
}

int
MPI_Probe (int source, int tag, MPI_Comm comm, MPI_Status *status)
{
  if (!vm.on || source == MPI_PROC_NULL)
    return PMPI_Probe (source, tag, comm, status);
  VmComm *c = vm_comm_get (comm);
  if (vm_comm_outside (c, source))
    return PMPI_Probe (source, tag, comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int64_t t0 = vm_now ();
  VM_E (VM_BEGIN, VM_EV_PROBE, t0, 3, vm_wtag (tag), vm_comm_world_rank (c, source), 0);
  int rc = PMPI_Probe (source, tag, comm, st);
  return probe_common (rc, 1, VM_EV_PROBE, source, tag, c, st, t0);
}

int
MPI_Iprobe (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
  if (!vm.on || source == MPI_PROC_NULL)
    return PMPI_Iprobe (source, tag, comm, flag, status);
  VmComm *c = vm_comm_get (comm);
  if (vm_comm_outside (c, source))
    return PMPI_Iprobe (source, tag, comm, flag, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int64_t t0 = vm_now ();
  int rc = PMPI_Iprobe (source, tag, comm, flag, st);
  return probe_common (rc, *flag, VM_EV_IPROBE, source, tag, c, st, t0);
}

int
MPI_Mprobe (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
  if (!vm.on || source == MPI_PROC_NULL)
    return PMPI_Mprobe (source, tag, comm, message, status);
  VmComm *c = vm_comm_get (comm);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int64_t t0 = vm_now ();
  VM_E (VM_BEGIN, VM_EV_PROBE, t0, 3, vm_wtag (tag), vm_comm_world_rank (c, source), 0);
  int rc = PMPI_Mprobe (source, tag, comm, message, st);
  probe_set_comm (c, comm);
  return probe_common (rc, 1, VM_EV_PROBE, source, tag, c, st, t0);
}

int
MPI_Improbe (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
  if (!vm.on || source == MPI_PROC_NULL)
    return PMPI_Improbe (source, tag, comm, flag, message, status);
  VmComm *c = vm_comm_get (comm);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int64_t t0 = vm_now ();
  int rc = PMPI_Improbe (source, tag, comm, flag, message, st);
  if (rc == MPI_SUCCESS && *flag)
    probe_set_comm (c, comm);
  return probe_common (rc, *flag, VM_EV_IPROBE, source, tag, c, st, t0);
}

/* ---- Sendrecv: isend + irecv posted together, two overlapping waits ---- */

static void
sendrecv_post (int64_t t0, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, int source, int recvtag,
               VmComm *c, int64_t *sid, int64_t *rid)
{
  *sid = *rid = 0;
  if (dest != MPI_PROC_NULL && !vm_comm_outside (c, dest))
    {
      *sid = vm_req_new_id ();
      VM_E (VM_BEGIN, VM_EV_ISEND, t0, 4, vm_bytes (sendcount, sendtype), sendtag, vm_comm_world_rank (c, dest), 0);
      VM_E (VM_END, VM_EV_ISEND, t0, 1, *sid);
      __atomic_add_fetch (&vm.sent, 1, __ATOMIC_RELAXED);
    }
  if (source != MPI_PROC_NULL && !vm_comm_outside (c, source))
    {
      *rid = vm_req_new_id ();
      VM_E (VM_BEGIN, VM_EV_IRECV, t0, 3, vm_wtag (recvtag), vm_comm_world_rank (c, source), 0);
      VM_E (VM_END, VM_EV_IRECV, t0, 1, *rid);
    }
}

static void
sendrecv_done (int64_t t0, int64_t sid, int64_t rid, VmComm *c, MPI_Comm mc, const MPI_Status *st)
{
  int64_t t1 = vm_now ();
  DoneBuf b;
  vm_done_init (&b);
  if (rid)
    {
      /* receives posted before it that took earlier messages of its channel (see "Post order") */
      vm_rlock ();
      vm_earlier_first (c, mc, st->MPI_SOURCE, st->MPI_TAG, rid, &b);
      vm_pend_tidy ();
      vm_runlock ();
    }
  if (sid)
    VM_E (VM_BEGIN, VM_EV_SEND_WAIT, t0, 1, sid);
  for (int i = 0; i < b.n; i++)
    VM_E (VM_BEGIN, VM_EV_RECV_WAIT, t0, 1, b.v[i].id);
  if (rid)
    VM_E (VM_BEGIN, VM_EV_RECV_WAIT, t0, 1, rid);
  if (sid)
    VM_E0 (VM_END, VM_EV_SEND_WAIT, t1);
  for (int i = 0; i < b.n; i++)
    {
      VM_E (VM_END, VM_EV_RECV_WAIT, t1, 4, b.v[i].bytes, b.v[i].tag, b.v[i].src, 0);
      __atomic_add_fetch (&vm.received, 1, __ATOMIC_RELAXED);
    }
  vm_done_free (&b);
  if (rid)
    {
      VM_E (VM_END, VM_EV_RECV_WAIT, t1, 4, vm_status_bytes (st), st->MPI_TAG,
            vm_comm_world_rank (c, st->MPI_SOURCE), 0);
      __atomic_add_fetch (&vm.received, 1, __ATOMIC_RELAXED);
    }
}

int
MPI_Sendrecv (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
  if (!vm.on || (dest == MPI_PROC_NULL && source == MPI_PROC_NULL))
    return PMPI_Sendrecv (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                          recvtag, comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int64_t sid, rid;
  VmComm *c = vm_comm_get (comm);
  int64_t t0 = vm_now ();
  sendrecv_post (t0, sendcount, sendtype, dest, sendtag, source, recvtag, c, &sid, &rid);
  int rc = PMPI_Sendrecv (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                          recvtag, comm, st);
  if (rc == MPI_SUCCESS)
    sendrecv_done (t0, sid, rid, c, comm, st);
  return rc;
}

int
MPI_Sendrecv_replace (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                      int recvtag, MPI_Comm comm, MPI_Status *status)
{
  if (!vm.on || (dest == MPI_PROC_NULL && source == MPI_PROC_NULL))
    return PMPI_Sendrecv_replace (buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int64_t sid, rid;
  VmComm *c = vm_comm_get (comm);
  int64_t t0 = vm_now ();
  sendrecv_post (t0, count, datatype, dest, sendtag, source, recvtag, c, &sid, &rid);
  int rc = PMPI_Sendrecv_replace (buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS)
    sendrecv_done (t0, sid, rid, c, comm, st);
  return rc;
}

/* ---- persistent requests: nothing at init, a new post at every start ---- */

#define PERSISTENT_SEND(call)                                                        \
  do                                                                                 \
    {                                                                                \
      int rc_ = call;                                                                \
      if (rc_ == MPI_SUCCESS && vm.on && dest != MPI_PROC_NULL                       \
          && !vm_comm_outside (vm_comm_get (comm), dest))                            \
        vm_req_track (*request, K_SEND | K_PERSISTENT, vm_comm_world_rank (vm_comm_get (comm), dest), 0, tag, \
               vm_bytes (count, datatype), NULL, comm, 0);                              \
      return rc_;                                                                    \
    }                                                                                \
  while (0)

int
MPI_Send_init (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
  PERSISTENT_SEND (PMPI_Send_init (buf, count, datatype, dest, tag, comm, request));
}

int
MPI_Ssend_init (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
  PERSISTENT_SEND (PMPI_Ssend_init (buf, count, datatype, dest, tag, comm, request));
}

int
MPI_Bsend_init (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
  PERSISTENT_SEND (PMPI_Bsend_init (buf, count, datatype, dest, tag, comm, request));
}

int
MPI_Rsend_init (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
  PERSISTENT_SEND (PMPI_Rsend_init (buf, count, datatype, dest, tag, comm, request));
}

int
MPI_Recv_init (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
  int rc = PMPI_Recv_init (buf, count, datatype, source, tag, comm, request);
  if (rc == MPI_SUCCESS && vm.on && source != MPI_PROC_NULL)
    {
      VmComm *c = vm_comm_get (comm);
      /* the source is kept (as a world rank) in peer for the post lines */
      if (!vm_comm_outside (c, source))
        vm_req_track (*request, K_RECV | K_PERSISTENT, vm_comm_world_rank (c, source), source, tag, 0, c, comm, 0);
    }
  return rc;
}

/* Each started request gets its own slice of the call's time, so that a
 * rank's posts stay in time order (they are not overlapping calls). */
static void
started (const MPI_Request *reqs, int n, int64_t t0, int64_t t1)
{
  for (int i = 0; i < n; i++)
    {
      int64_t tb = t0 + (t1 - t0) * i / n, te = t0 + (t1 - t0) * (i + 1) / n;
      vm_rlock ();
      VmReq *e = vm_req_persistent (vm_rkey (reqs[i]));
      VmReq copy = { 0 };
      if (e)
        {
          vm_unpend (e);
          e->active = 1;
          e->id = vm_req_new_id ();
          e->written = e->known = 0;
          e->now = NULL;
          if (e->kind & K_RECV)
            vm_pend_add (e);
          copy = *e;
        }
      vm_runlock ();
      if (!copy.key)
        continue;
      if (copy.kind & K_SEND)
        {
          VM_E (VM_BEGIN, VM_EV_ISEND, tb, 4, copy.bytes, copy.tag, copy.peer, 0);
          VM_E (VM_END, VM_EV_ISEND, te, 1, copy.id);
          __atomic_add_fetch (&vm.sent, 1, __ATOMIC_RELAXED);
        }
      else
        {
          VM_E (VM_BEGIN, VM_EV_IRECV, tb, 3, vm_wtag (copy.tag), copy.peer, 0);
          VM_E (VM_END, VM_EV_IRECV, te, 1, copy.id);
        }
    }
}

int
MPI_Start (MPI_Request *request)
{
  if (!vm.on)
    return PMPI_Start (request);
  int64_t t0 = vm_now ();
  int rc = PMPI_Start (request);
  if (rc == MPI_SUCCESS)
    started (request, 1, t0, vm_now ());
  return rc;
}

int
MPI_Startall (int count, MPI_Request requests[])
{
  if (!vm.on)
    return PMPI_Startall (count, requests);
  int64_t t0 = vm_now ();
  int rc = PMPI_Startall (count, requests);
  if (rc == MPI_SUCCESS)
    started (requests, count, t0, vm_now ());
  return rc;
}
