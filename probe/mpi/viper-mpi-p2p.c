/* viper-mpi-p2p.c - point-to-point calls, requests and their completions.
 *
 * A blocking call writes its begin line before it calls PMPI (a rank that
 * hangs or dies inside shows where) and its end line after.  Non-blocking
 * calls get a request id of the library's own (per rank, from 1), kept in an
 * open-addressing table keyed by the MPI_Request handle together with what
 * the completion needs (kind, peer, tag, communicator).
 *
 * Completions (Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany,
 * Testsome) are written after the call returns, because only then is it
 * known which requests completed (and whether one was cancelled): each
 * completed request gets its own wait, `-3 -31 REQ` / `-3 -61 REQ`, all
 * beginning at the call's start and all ending at its return, ends in the
 * same order as the begins (spec section 3: overlapping waits).  A test that
 * completes nothing writes nothing (it is counted as a poll).  A receive's
 * end takes the source, tag and size from the status, so MPI_ANY_SOURCE and
 * MPI_ANY_TAG come out resolved; sources are translated to world ranks
 * through the request's communicator.  A cancelled request completes as
 * `-3 -954 REQ` / `-4 -954 REQ` instead (no message).  Requests the library
 * did not make (collectives, I/O, generalized) are passed over silently.
 * The receive ends of one channel are written in the order the receives
 * were posted, which is the order MPI matched them in, even when the
 * program completes them in another order ("Post order" below): a
 * receive's completion first writes, inside its own wait, those posted
 * before it that took earlier messages of its channel.
 *
 * Sendrecv is what the standard says it is: an isend and an irecv posted
 * together and two overlapping waits.  Persistent requests record nothing at
 * init; each MPI_Start posts anew, with a new request id.
 */
#include "viper-mpi.h"

#include <stdlib.h>
#include <string.h>

_Static_assert (sizeof (MPI_Request) <= sizeof (uintptr_t), "MPI_Request fits a uintptr_t");

enum { K_SEND = 1, K_RECV = 2, K_PERSISTENT = 4 };

typedef struct {
  uintptr_t key;          /* 0 = free slot */
  int kind;
  int active;             /* persistent: started and not yet completed */
  int peer;               /* send: world rank of the destination */
  int tag;                /* receive: the tag asked for (may be MPI_ANY_TAG) */
  int src;                /* receive: the source asked for, in comm (may be MPI_ANY_SOURCE) */
  int64_t id;
  int64_t bytes;
  VmComm *comm;           /* receive: translates the status's source */
  MPI_Comm mcomm;         /* receive: the communicator it was posted on */
  /* receives completed out of post order (see "Post order" below) */
  int pending;            /* posted, its end not written: listed in pend[] */
  int written;            /* its wait is already in the trace: its completion writes nothing */
  int known, kcancel, ksrc, ktag;   /* complete: what its status said (cached, MPI not asked again) */
  int64_t kbytes;
  int waiters;            /* threads: completion calls in flight that name it */
  int ours;               /* named by the completion call being collected */
  const MPI_Status *now;  /* completed by the call being collected: its status */
} VmReq;

static VmReq *table;
static size_t tcap, tcount;

/* Post order.  MPI matches the messages of one channel to the receives in
 * the order the receives were posted (the standard's non-overtaking rule,
 * MPI 3.1 section 3.5): when a receive R takes a message with envelope
 * (src, tag), every receive E posted before R on the same communicator
 * whose source and tag would also take it was no longer free to: E had
 * been matched already (to an earlier message of that channel, or to
 * another one).  The trace contract pairs the k-th send of a channel with
 * the k-th receive END on it, so the ends of one channel must be written in
 * post order, whatever order the program completes its requests in.
 *
 * So the receives posted and not yet written are listed here in post order
 * (request ids grow with posting); a completed receive first looks at the
 * ones posted before it that fit its envelope, asks MPI for their status
 * (MPI_Request_get_status: complete, or completing without anything else
 * the program does, since they are matched; the handle stays the
 * program's), and writes those that took a message of the same channel
 * before its own end, inside its own wait, marking them written: the
 * program's own later completion of such a request writes nothing. */
typedef struct {
  int64_t id;
  uintptr_t key;
} Pend;

static Pend *pend;
static size_t pstart, pcount, pcap, plive;

static void
unpend (VmReq *e)
{
  if (e->pending)
    {
      e->pending = 0;
      plive--;
    }
}

static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void rlock (void) { if (vm.mt) pthread_mutex_lock (&req_lock); }
static inline void runlock (void) { if (vm.mt) pthread_mutex_unlock (&req_lock); }

static inline uintptr_t
rkey (MPI_Request r)
{
  uintptr_t k = 0;
  memcpy (&k, &r, sizeof r);
  return k;
}

static inline size_t
slot_of (uintptr_t k)
{
  return (size_t) ((k * (uintptr_t) 0x9E3779B97F4A7C15ull) >> 7) & (tcap - 1);
}

static VmReq *
find (uintptr_t k)
{
  if (!tcap || !k)
    return NULL;
  for (size_t i = slot_of (k);; i = (i + 1) & (tcap - 1))
    {
      if (table[i].key == k)
        return &table[i];
      if (!table[i].key)
        return NULL;
    }
}

static int
grow (void)
{
  size_t ncap = tcap ? tcap * 2 : 256;
  VmReq *nt = calloc (ncap, sizeof *nt);
  if (!nt)
    return -1;
  VmReq *old = table;
  size_t ocap = tcap;
  table = nt;
  tcap = ncap;
  for (size_t i = 0; i < ocap; i++)
    if (old[i].key)
      {
        size_t j = slot_of (old[i].key);
        while (table[j].key)
          j = (j + 1) & (tcap - 1);
        table[j] = old[i];
      }
  free (old);
  return 0;
}

/* remove slot i, shifting later entries of its cluster back (no tombstones) */
static void
erase (VmReq *e)
{
  size_t i = (size_t) (e - table);
  unpend (e);
  vm_comm_unref (table[i].comm);
  table[i].key = 0;
  tcount--;
  for (size_t j = (i + 1) & (tcap - 1); table[j].key; j = (j + 1) & (tcap - 1))
    {
      size_t home = slot_of (table[j].key);
      /* entry j may move to i when i lies cyclically in [home, j) */
      if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j))
        {
          table[i] = table[j];
          table[j].key = 0;
          i = j;
        }
    }
}

/* list the receive E (just posted or started, with its new id) */
static void
pend_add (VmReq *e)
{
  if (pcount == pcap)
    {
      if (pstart > 0)
        {
          memmove (pend, pend + pstart, (pcount - pstart) * sizeof *pend);
          pcount -= pstart;
          pstart = 0;
        }
      if (pcount == pcap)
        {
          size_t ncap = pcap ? pcap * 2 : 64;
          Pend *np = realloc (pend, ncap * sizeof *np);
          if (!np)
            return;   /* not listed: its end is written when the program completes it, as before */
          pend = np;
          pcap = ncap;
        }
    }
  pend[pcount++] = (Pend) { .id = e->id, .key = e->key };
  e->pending = 1;
  plive++;
}

static VmReq *
pend_entry (const Pend *p)
{
  VmReq *e = find (p->key);
  return e && e->id == p->id && e->pending ? e : NULL;
}

/* drop the listed receives that are no longer pending: from the front, and
 * all of them when they outnumber the live ones */
static void
pend_tidy (void)
{
  while (pstart < pcount && !pend_entry (&pend[pstart]))
    pstart++;
  if (pstart == pcount)
    pstart = pcount = 0;
  else if (pcount - pstart > 2 * plive + 64)
    {
      size_t k = 0;
      for (size_t i = pstart; i < pcount; i++)
        if (pend_entry (&pend[i]))
          pend[k++] = pend[i];
      pstart = 0;
      pcount = k;
    }
}

static int64_t
new_id (void)
{
  return __atomic_add_fetch (&vm.next_req, 1, __ATOMIC_RELAXED);
}

/* remember a request; returns its id (0 when it could not be kept) */
static int64_t
track (MPI_Request r, int kind, int peer, int src, int tag, int64_t bytes, VmComm *comm, MPI_Comm mcomm,
       int active)
{
  uintptr_t k = rkey (r);
  if (!k || r == MPI_REQUEST_NULL)
    return 0;
  rlock ();
  VmReq *e = find (k);
  if (e)
    erase (e);   /* a handle MPI recycled behind our back (freed by an unwrapped path) */
  if ((tcount + 1) * 2 > tcap && grow () != 0)
    {
      runlock ();
      return 0;
    }
  size_t i = slot_of (k);
  while (table[i].key)
    i = (i + 1) & (tcap - 1);
  vm_comm_ref (comm);
  table[i] = (VmReq) { .key = k, .kind = kind, .active = active, .peer = peer, .src = src, .tag = tag,
                       .id = active ? new_id () : 0, .bytes = bytes, .comm = comm, .mcomm = mcomm };
  tcount++;
  if (active && (kind & K_RECV))
    pend_add (&table[i]);
  int64_t id = table[i].id;
  runlock ();
  return id;
}

void
vm_req_fini (void)
{
  for (size_t i = 0; i < tcap; i++)
    if (table[i].key)
      vm_comm_unref (table[i].comm);
  free (table);
  table = NULL;
  tcap = tcount = 0;
  free (pend);
  pend = NULL;
  pstart = pcount = pcap = plive = 0;
}

int64_t
vm_status_bytes (const MPI_Status *st)
{
  int n = 0;
  if (PMPI_Get_count (st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
    return 0;
  return n;
}

static inline int
wtag (int tag)
{
  return tag == MPI_ANY_TAG ? -1 : tag;
}

/* ---- completions ---- */

typedef struct {
  int64_t id;
  int kind;               /* K_SEND / K_RECV, or 0 = cancelled */
  int64_t bytes;
  int tag, src;
} Done;

/* the waits one call writes: its own completions and the receives posted
 * before them that it writes first (on the stack for a few) */
#define SMALL 16
typedef struct {
  Done *v;
  int n, cap;
  Done inl[SMALL];
} DoneBuf;

static void
done_init (DoneBuf *b)
{
  b->v = b->inl;
  b->n = 0;
  b->cap = SMALL;
}

static int
done_push (DoneBuf *b, Done d)
{
  if (b->n == b->cap)
    {
      int ncap = b->cap * 2;
      Done *nv = malloc (sizeof *nv * (size_t) ncap);
      if (!nv)
        return 0;
      memcpy (nv, b->v, sizeof *nv * (size_t) b->n);
      if (b->v != b->inl)
        free (b->v);
      b->v = nv;
      b->cap = ncap;
    }
  b->v[b->n++] = d;
  return 1;
}

static void
done_free (DoneBuf *b)
{
  if (b->v != b->inl)
    free (b->v);
}

/* a receive E was posted on the communicator (C, MC): the table of a
 * communicator is unique to it while E holds it, except the world's, which
 * also stands in for communicators whose table could not be made */
static inline int
same_comm (const VmReq *e, const VmComm *c, MPI_Comm mc)
{
  return e->comm == c && (c != &vm.world || e->mcomm == mc);
}

static inline int
world_src (const VmComm *c, int src)
{
  return vm_comm_world_rank (c ? c : &vm.world, src);
}

/* E is complete: what its status says, once (1), or 0 when it must not be
 * asked (another thread is completing it) or MPI would not say. */
static int
status_of (VmReq *e)
{
  if (e->known)
    return 1;
  MPI_Status st;
  if (e->now)
    st = *e->now;
  else
    {
      if (e->waiters && !e->ours)
        return 0;
      MPI_Request h;
      memcpy (&h, &e->key, sizeof h);
      int flag = 0;
      /* E is matched (see "Post order"): looping only waits for its data */
      do
        if (PMPI_Request_get_status (h, &flag, &st) != MPI_SUCCESS)
          return 0;
      while (!flag);
    }
  int cancelled = 0;
  e->kcancel = PMPI_Test_cancelled (&st, &cancelled) == MPI_SUCCESS && cancelled;
  e->ksrc = st.MPI_SOURCE;
  e->ktag = st.MPI_TAG;
  e->kbytes = e->kcancel ? 0 : vm_status_bytes (&st);
  e->known = 1;
  return 1;
}

/* A receive posted on C as request BEFORE took a message (src, tag), src a
 * rank of C: add the pending receives posted before it that took one of the
 * same channel, in post order, and mark them written.  Under the lock. */
static void
earlier_first (VmComm *c, MPI_Comm mc, int src, int tag, int64_t before, DoneBuf *out)
{
  if (!plive)
    return;
  for (size_t i = pstart; i < pcount && pend[i].id < before; i++)
    {
      VmReq *e = pend_entry (&pend[i]);
      if (!e || !same_comm (e, c, mc) || !(e->src == MPI_ANY_SOURCE || e->src == src)
          || !(e->tag == MPI_ANY_TAG || e->tag == tag) || !status_of (e))
        continue;
      if (e->kcancel || e->ksrc != src || e->ktag != tag)
        continue;   /* cancelled, or took another channel's message: written with that channel */
      Done d = { .id = e->id, .kind = K_RECV, .bytes = e->kbytes, .tag = e->ktag, .src = world_src (c, e->ksrc) };
      if (!done_push (out, d))
        break;
      e->written = 1;
      unpend (e);
    }
}

/* is a receive posted on C and not yet written one that a message matching
 * (source, tag) could complete (a blocking receive then writes itself as a
 * post and a wait, so that the earlier ones can end inside it) */
static int
pending_overlap (VmComm *c, MPI_Comm mc, int source, int tag)
{
  int found = 0;
  rlock ();
  for (size_t i = pstart; plive && i < pcount && !found; i++)
    {
      VmReq *e = pend_entry (&pend[i]);
      found = e && same_comm (e, c, mc) && (e->src == MPI_ANY_SOURCE || source == MPI_ANY_SOURCE || e->src == source)
              && (e->tag == MPI_ANY_TAG || tag == MPI_ANY_TAG || e->tag == tag);
    }
  runlock ();
  return found;
}

/* Under MPI_THREAD_MULTIPLE, MPI may hand a completed request's handle to
 * another thread's new request between our completion call and collect():
 * that thread's track() then replaces our entry, and collect() would take
 * its request for ours (a wait written for the wrong request, the other
 * thread's own wait lost).  So with threads the entries are copied before
 * the call, while the handles are still ours (snap), and an entry leaves the
 * table after it only when it is still the one copied (the same id). */
static void
snapshot (int n, const MPI_Request *reqs, VmReq *snap)
{
  rlock ();
  for (int i = 0; i < n; i++)
    {
      VmReq *e = find (rkey (reqs[i]));
      if (e && e->active)
        {
          e->waiters++;
          snap[i] = *e;
          vm_comm_ref (e->comm);
        }
      else
        snap[i].key = 0;
    }
  runlock ();
}

static void
snapshot_release (int n, VmReq *snap)
{
  rlock ();
  for (int i = 0; i < n; i++)
    if (snap[i].key)
      {
        VmReq *e = find (snap[i].key);
        if (e && e->id == snap[i].id && e->waiters > 0)
          e->waiters--;
        vm_comm_unref (snap[i].comm);
      }
  runlock ();
}

/* The live entry of request i of a completion call: in the table; with
 * threads, the one copied before the call if it is still there (MPI may have
 * handed the handle to another thread's request since). */
static VmReq *
live_of (const MPI_Request *saved, int i, VmReq *snap)
{
  if (!snap)
    return find (rkey (saved[i]));
  if (!snap[i].key)
    return NULL;
  VmReq *t = find (snap[i].key);
  return t && t->id == snap[i].id ? t : NULL;
}

/* a request's completion is written (or was, early): it leaves the table,
 * a persistent one goes inactive */
static void
retire (VmReq *e)
{
  e->now = NULL;
  e->written = e->known = 0;
  unpend (e);
  if (e->kind & K_PERSISTENT)
    e->active = 0;
  else
    erase (e);
}

/* Take the N completed requests of a call over COUNT (index[j] names them,
 * or the first N) out of the table and describe them, each receive after
 * the pending ones posted before it that took an earlier message of its
 * channel (see "Post order"); requests already written early give nothing.
 * snap: the entries copied before the call (threads), or NULL. */
static void
collect (int count, const MPI_Request *saved, int n, const int *index, MPI_Status *st, DoneBuf *out, VmReq *snap)
{
  rlock ();
  /* statuses of this call's completions: their handles are freed already */
  for (int j = 0; j < n; j++)
    {
      VmReq *e = live_of (saved, index ? index[j] : j, snap);
      if (e && e->active)
        e->now = &st[j];
    }
  if (snap)
    for (int i = 0; i < count; i++)
      {
        VmReq *e = live_of (saved, i, snap);
        if (e)
          e->ours = 1;
      }
  for (int j = 0; j < n; j++)
    {
      int i = index ? index[j] : j;
      VmReq *e = snap ? (snap[i].key ? &snap[i] : NULL) : find (rkey (saved[i]));
      if (!e || !e->active)
        continue;
      VmReq *live = snap ? live_of (saved, i, snap) : e;
      if (live && live->written)
        {
          retire (live);
          continue;
        }
      Done d = { .id = e->id, .kind = e->kind & (K_SEND | K_RECV) };
      int cancelled = 0;
      if (PMPI_Test_cancelled (&st[j], &cancelled) == MPI_SUCCESS && cancelled)
        d.kind = 0;
      else if (d.kind == K_RECV)
        {
          d.bytes = vm_status_bytes (&st[j]);
          d.tag = st[j].MPI_TAG;
          d.src = world_src (e->comm, st[j].MPI_SOURCE);
          if (live)
            unpend (live);
          earlier_first (e->comm, e->mcomm, st[j].MPI_SOURCE, st[j].MPI_TAG, e->id, out);
        }
      done_push (out, d);
      if (live)
        retire (live);
    }
  if (snap)
    for (int i = 0; i < count; i++)
      {
        VmReq *e = live_of (saved, i, snap);
        if (e)
          e->ours = 0;
      }
  pend_tidy ();
  runlock ();
}

static void
emit_done (const Done *d, int n, int64_t t0, int64_t t1)
{
  for (int i = 0; i < n; i++)
    {
      int ev = d[i].kind == K_SEND ? VM_EV_SEND_WAIT : d[i].kind == K_RECV ? VM_EV_RECV_WAIT : VM_EV_CANCELLED;
      VM_E (VM_BEGIN, ev, t0, 1, d[i].id);
    }
  for (int i = 0; i < n; i++)
    {
      if (d[i].kind == K_SEND)
        VM_E0 (VM_END, VM_EV_SEND_WAIT, t1);
      else if (d[i].kind == K_RECV)
        {
          VM_E (VM_END, VM_EV_RECV_WAIT, t1, 4, d[i].bytes, d[i].tag, d[i].src, 0);
          __atomic_add_fetch (&vm.received, 1, __ATOMIC_RELAXED);
        }
      else
        VM_E (VM_END, VM_EV_CANCELLED, t1, 1, d[i].id);
    }
}

/* scratch arrays: on the stack for a few requests, else on the heap */
typedef struct {
  MPI_Request req[SMALL];
  MPI_Status st[SMALL];
  VmReq snap[SMALL];
  MPI_Request *reqp;
  MPI_Status *stp;
  VmReq *snapp;           /* NULL without threads */
} Scratch;

static int
scratch_get (Scratch *s, int n)
{
  if (n <= SMALL)
    {
      s->reqp = s->req;
      s->stp = s->st;
      s->snapp = vm.mt ? s->snap : NULL;
      return 0;
    }
  s->reqp = malloc (sizeof (MPI_Request) * (size_t) n);
  s->stp = malloc (sizeof (MPI_Status) * (size_t) n);
  s->snapp = vm.mt ? malloc (sizeof (VmReq) * (size_t) n) : NULL;
  if (!s->reqp || !s->stp || (vm.mt && !s->snapp))
    {
      free (s->reqp);
      free (s->stp);
      free (s->snapp);
      return -1;
    }
  return 0;
}

static void
scratch_put (Scratch *s)
{
  if (s->reqp != s->req)
    {
      free (s->reqp);
      free (s->stp);
      free (s->snapp);
    }
}

static void
finish (int count, const MPI_Request *saved, int n, const int *index, MPI_Status *st, int64_t t0, VmReq *snap)
{
  int64_t t1 = vm_now ();
  DoneBuf b;
  done_init (&b);
  collect (count, saved, n, index, st, &b, snap);
  emit_done (b.v, b.n, t0, t1);
  done_free (&b);
}

/* Without scratch memory a call is passed through unrecorded: its requests
 * stop being listed as pending (their handles may be freed by it). */
static void
unlist (int count, const MPI_Request *reqs)
{
  rlock ();
  for (int i = 0; i < count; i++)
    {
      VmReq *e = find (rkey (reqs[i]));
      if (e)
        unpend (e);
    }
  runlock ();
}

int
MPI_Wait (MPI_Request *request, MPI_Status *status)
{
  if (!vm.on)
    return PMPI_Wait (request, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request saved = *request;
  VmReq one, *snap = vm.mt ? &one : NULL;
  if (snap)
    snapshot (1, &saved, snap);
  int64_t t0 = vm_now ();
  int rc = PMPI_Wait (request, st);
  if (rc == MPI_SUCCESS)
    finish (1, &saved, 1, NULL, st, t0, snap);
  if (snap)
    snapshot_release (1, snap);
  return rc;
}

int
MPI_Test (MPI_Request *request, int *flag, MPI_Status *status)
{
  if (!vm.on)
    return PMPI_Test (request, flag, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request saved = *request;
  VmReq one, *snap = vm.mt ? &one : NULL;
  if (snap)
    snapshot (1, &saved, snap);
  int64_t t0 = vm_now ();
  int rc = PMPI_Test (request, flag, st);
  if (rc == MPI_SUCCESS && *flag)
    finish (1, &saved, 1, NULL, st, t0, snap);
  else
    vm.polls++;
  if (snap)
    snapshot_release (1, snap);
  return rc;
}

int
MPI_Waitall (int count, MPI_Request requests[], MPI_Status statuses[])
{
  Scratch s;
  if (!vm.on || count <= 0)
    return PMPI_Waitall (count, requests, statuses);
  if (scratch_get (&s, count) != 0)
    {
      unlist (count, requests);
      return PMPI_Waitall (count, requests, statuses);
    }
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.stp : statuses;
  memcpy (s.reqp, requests, sizeof (MPI_Request) * (size_t) count);
  if (s.snapp)
    snapshot (count, s.reqp, s.snapp);
  int64_t t0 = vm_now ();
  int rc = PMPI_Waitall (count, requests, st);
  if (rc == MPI_SUCCESS)
    finish (count, s.reqp, count, NULL, st, t0, s.snapp);
  if (s.snapp)
    snapshot_release (count, s.snapp);
  scratch_put (&s);
  return rc;
}

int
MPI_Testall (int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
  Scratch s;
  if (!vm.on || count <= 0)
    return PMPI_Testall (count, requests, flag, statuses);
  if (scratch_get (&s, count) != 0)
    {
      unlist (count, requests);
      return PMPI_Testall (count, requests, flag, statuses);
    }
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.stp : statuses;
  memcpy (s.reqp, requests, sizeof (MPI_Request) * (size_t) count);
  if (s.snapp)
    snapshot (count, s.reqp, s.snapp);
  int64_t t0 = vm_now ();
  int rc = PMPI_Testall (count, requests, flag, st);
  if (rc == MPI_SUCCESS && *flag)
    finish (count, s.reqp, count, NULL, st, t0, s.snapp);
  else
    vm.polls++;
  if (s.snapp)
    snapshot_release (count, s.snapp);
  scratch_put (&s);
  return rc;
}

int
MPI_Waitany (int count, MPI_Request requests[], int *index, MPI_Status *status)
{
  Scratch s;
  if (!vm.on || count <= 0)
    return PMPI_Waitany (count, requests, index, status);
  if (scratch_get (&s, count) != 0)
    {
      unlist (count, requests);
      return PMPI_Waitany (count, requests, index, status);
    }
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  memcpy (s.reqp, requests, sizeof (MPI_Request) * (size_t) count);
  if (s.snapp)
    snapshot (count, s.reqp, s.snapp);
  int64_t t0 = vm_now ();
  int rc = PMPI_Waitany (count, requests, index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
    finish (count, s.reqp, 1, index, st, t0, s.snapp);
  if (s.snapp)
    snapshot_release (count, s.snapp);
  scratch_put (&s);
  return rc;
}

int
MPI_Testany (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
  Scratch s;
  if (!vm.on || count <= 0)
    return PMPI_Testany (count, requests, index, flag, status);
  if (scratch_get (&s, count) != 0)
    {
      unlist (count, requests);
      return PMPI_Testany (count, requests, index, flag, status);
    }
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  memcpy (s.reqp, requests, sizeof (MPI_Request) * (size_t) count);
  if (s.snapp)
    snapshot (count, s.reqp, s.snapp);
  int64_t t0 = vm_now ();
  int rc = PMPI_Testany (count, requests, index, flag, st);
  if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
    finish (count, s.reqp, 1, index, st, t0, s.snapp);
  else
    vm.polls++;
  if (s.snapp)
    snapshot_release (count, s.snapp);
  scratch_put (&s);
  return rc;
}

int
MPI_Waitsome (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
  Scratch s;
  if (!vm.on || incount <= 0)
    return PMPI_Waitsome (incount, requests, outcount, indices, statuses);
  if (scratch_get (&s, incount) != 0)
    {
      unlist (incount, requests);
      return PMPI_Waitsome (incount, requests, outcount, indices, statuses);
    }
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.stp : statuses;
  memcpy (s.reqp, requests, sizeof (MPI_Request) * (size_t) incount);
  if (s.snapp)
    snapshot (incount, s.reqp, s.snapp);
  int64_t t0 = vm_now ();
  int rc = PMPI_Waitsome (incount, requests, outcount, indices, st);
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && *outcount > 0)
    finish (incount, s.reqp, *outcount, indices, st, t0, s.snapp);
  if (s.snapp)
    snapshot_release (incount, s.snapp);
  scratch_put (&s);
  return rc;
}

int
MPI_Testsome (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
  Scratch s;
  if (!vm.on || incount <= 0)
    return PMPI_Testsome (incount, requests, outcount, indices, statuses);
  if (scratch_get (&s, incount) != 0)
    {
      unlist (incount, requests);
      return PMPI_Testsome (incount, requests, outcount, indices, statuses);
    }
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.stp : statuses;
  memcpy (s.reqp, requests, sizeof (MPI_Request) * (size_t) incount);
  if (s.snapp)
    snapshot (incount, s.reqp, s.snapp);
  int64_t t0 = vm_now ();
  int rc = PMPI_Testsome (incount, requests, outcount, indices, st);
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && *outcount > 0)
    finish (incount, s.reqp, *outcount, indices, st, t0, s.snapp);
  else
    vm.polls++;
  if (s.snapp)
    snapshot_release (incount, s.snapp);
  scratch_put (&s);
  return rc;
}

int
MPI_Request_free (MPI_Request *request)
{
  if (vm.on && request)
    {
      rlock ();
      VmReq *e = find (rkey (*request));
      if (e)
        erase (e);
      runlock ();
    }
  return PMPI_Request_free (request);
}

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
      int64_t id_ = track (*request, K_SEND, w_, 0, tag, 0, NULL, comm, 1);              \
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
  int64_t rid = pending_overlap (c, mc, source, tag) ? new_id () : 0;
  if (!rid)
    {
      VM_E (VM_BEGIN, VM_EV_RECV, t0, 3, wtag (tag), vm_comm_world_rank (c, source), 0);
      return 0;
    }
  VM_E (VM_BEGIN, VM_EV_IRECV, t0, 3, wtag (tag), vm_comm_world_rank (c, source), 0);
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
      done_init (&b);
      rlock ();
      earlier_first (c, mc, st->MPI_SOURCE, st->MPI_TAG, rid, &b);
      pend_tidy ();
      runlock ();
      for (int i = 0; i < b.n; i++)
        VM_E (VM_BEGIN, VM_EV_RECV_WAIT, t0, 1, b.v[i].id);
      for (int i = 0; i < b.n; i++)
        {
          VM_E (VM_END, VM_EV_RECV_WAIT, t1, 4, b.v[i].bytes, b.v[i].tag, b.v[i].src, 0);
          __atomic_add_fetch (&vm.received, 1, __ATOMIC_RELAXED);
        }
      done_free (&b);
    }
  VM_E (VM_END, rid ? VM_EV_RECV_WAIT : VM_EV_RECV, t1, 4, vm_status_bytes (st), st->MPI_TAG,
        world_src (c, st->MPI_SOURCE), 0);
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
  int64_t id = track (*request, K_RECV, -1, source, tag, 0, c, comm, 1);
  if (id)
    {
      VM_E (VM_BEGIN, VM_EV_IRECV, t0, 3, wtag (tag), vm_comm_world_rank (c, source), 0);
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
    VM_E (VM_BEGIN, ev, t0, 3, wtag (tag), vm_comm_world_rank (c, source), 0);
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
  VM_E (VM_BEGIN, VM_EV_PROBE, t0, 3, wtag (tag), vm_comm_world_rank (c, source), 0);
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
  VM_E (VM_BEGIN, VM_EV_PROBE, t0, 3, wtag (tag), vm_comm_world_rank (c, source), 0);
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
      *sid = new_id ();
      VM_E (VM_BEGIN, VM_EV_ISEND, t0, 4, vm_bytes (sendcount, sendtype), sendtag, vm_comm_world_rank (c, dest), 0);
      VM_E (VM_END, VM_EV_ISEND, t0, 1, *sid);
      __atomic_add_fetch (&vm.sent, 1, __ATOMIC_RELAXED);
    }
  if (source != MPI_PROC_NULL && !vm_comm_outside (c, source))
    {
      *rid = new_id ();
      VM_E (VM_BEGIN, VM_EV_IRECV, t0, 3, wtag (recvtag), vm_comm_world_rank (c, source), 0);
      VM_E (VM_END, VM_EV_IRECV, t0, 1, *rid);
    }
}

static void
sendrecv_done (int64_t t0, int64_t sid, int64_t rid, VmComm *c, MPI_Comm mc, const MPI_Status *st)
{
  int64_t t1 = vm_now ();
  DoneBuf b;
  done_init (&b);
  if (rid)
    {
      /* receives posted before it that took earlier messages of its channel (see "Post order") */
      rlock ();
      earlier_first (c, mc, st->MPI_SOURCE, st->MPI_TAG, rid, &b);
      pend_tidy ();
      runlock ();
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
  done_free (&b);
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
        track (*request, K_SEND | K_PERSISTENT, vm_comm_world_rank (vm_comm_get (comm), dest), 0, tag, \
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
        track (*request, K_RECV | K_PERSISTENT, vm_comm_world_rank (c, source), source, tag, 0, c, comm, 0);
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
      rlock ();
      VmReq *e = find (rkey (reqs[i]));
      VmReq copy = { 0 };
      if (e && (e->kind & K_PERSISTENT))
        {
          unpend (e);
          e->active = 1;
          e->id = new_id ();
          e->written = e->known = 0;
          e->now = NULL;
          if (e->kind & K_RECV)
            pend_add (e);
          copy = *e;
        }
      runlock ();
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
          VM_E (VM_BEGIN, VM_EV_IRECV, tb, 3, wtag (copy.tag), copy.peer, 0);
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
