/* viper-mpi-req.c - requests and their completions (point-to-point calls: viper-mpi-p2p.c).
 *
 * A blocking call writes its begin line before it calls PMPI (a rank that
 * hangs or dies inside shows where) and its end line after.  Non-blocking
 * calls get a request id of the library's own (per rank, from 1), kept with
 * what the completion needs (kind, peer, tag, communicator) under the
 * MPI_Request handle they were posted with; one handle may stand for several
 * postings at once ("Handles" below).
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
#include "viper-mpi-req.h"

#include <stdlib.h>
#include <string.h>

_Static_assert (sizeof (MPI_Request) <= sizeof (uintptr_t), "MPI_Request fits a uintptr_t");



/* Handles.  MPI handles are not unique among live requests.  Open MPI 4.1
 * (pml ob1 and ucx) gives a send that completed at once one shared, already
 * completed request (ompi_request_empty): three MPI_Isend of one int may
 * all return the same handle value (nothing in the standard forbids it, and
 * other MPIs may do the same).  Each such posting is still a request of the
 * program's, and gets its own wait.  So the table maps a handle to every
 * posting made with it and not completed yet, in post order (a multimap): a
 * completion call that names handle H completes the oldest of them, and a
 * call whose array names H k times completes k of them, the oldest first
 * (the first occurrence of H the oldest posting).  Before its MPI call, a
 * completion call takes its postings (claim(): per array position the
 * oldest one of the handle that no call in flight has taken yet), so that
 * under MPI_THREAD_MULTIPLE a handle MPI gives to another thread's next
 * request meanwhile is a new posting of its own, not one of ours.
 *
 * Postings are records in chunks that never move (a record is named by its
 * number, which pend[] and the claims keep along with the request id, ids
 * never being reused); the handles are an open-addressing table of heads
 * (the first and last posting of each handle). */
#define NONE UINT32_MAX
#define CHUNK 256

typedef struct {
  uintptr_t key;          /* 0 = free slot */
  uint32_t first, last;   /* its postings, oldest first */
} Head;

static Head *table;
static size_t tcap, tcount;
static VmReq **chunks;
static uint32_t nchunks, nrecs, free_rec = NONE;

static inline VmReq *
rec (uint32_t i)
{
  return &chunks[i / CHUNK][i % CHUNK];
}

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
  uint32_t at;            /* its record */
} Pend;

static Pend *pend;
static size_t pstart, pcount, pcap, plive;

void
vm_unpend (VmReq *e)
{
  if (e->pending)
    {
      e->pending = 0;
      plive--;
    }
}

pthread_mutex_t vm_req_lock = PTHREAD_MUTEX_INITIALIZER;


uintptr_t
vm_rkey (MPI_Request r)
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

static Head *
head_find (uintptr_t k)
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
  Head *nt = calloc (ncap, sizeof *nt);
  if (!nt)
    return -1;
  Head *old = table;
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

/* the head of handle K, made (with no postings) if it has none; NULL without memory */
static Head *
head_get (uintptr_t k)
{
  Head *h = head_find (k);
  if (h)
    return h;
  if ((tcount + 1) * 2 > tcap && grow () != 0)
    return NULL;
  size_t i = slot_of (k);
  while (table[i].key)
    i = (i + 1) & (tcap - 1);
  table[i] = (Head) { .key = k, .first = NONE, .last = NONE };
  tcount++;
  return &table[i];
}

/* remove slot i, shifting later entries of its cluster back (no tombstones) */
static void
head_erase (Head *h)
{
  size_t i = (size_t) (h - table);
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

/* a free record's number, NONE without memory */
static uint32_t
rec_alloc (void)
{
  if (free_rec == NONE)
    {
      if (nrecs / CHUNK == nchunks)
        {
          if (nchunks == NONE / CHUNK)
            return NONE;
          VmReq **nc = realloc (chunks, sizeof *nc * (nchunks + 1));
          if (!nc)
            return NONE;
          chunks = nc;
          if (!(chunks[nchunks] = calloc (CHUNK, sizeof (VmReq))))
            return NONE;
          nchunks++;
        }
      return nrecs++;
    }
  uint32_t i = free_rec;
  free_rec = rec (i)->next;
  return i;
}

/* E leaves its handle's postings and the table */
static void
erase (VmReq *e)
{
  vm_unpend (e);
  vm_comm_unref (e->comm);
  Head *h = head_find (e->key);
  if (h)
    {
      uint32_t prev = NONE;
      for (uint32_t i = h->first; i != NONE; prev = i, i = rec (i)->next)
        if (i == e->self)
          {
            if (prev == NONE)
              h->first = e->next;
            else
              rec (prev)->next = e->next;
            if (h->last == i)
              h->last = prev;
            break;
          }
      if (h->first == NONE)
        head_erase (h);
    }
  e->key = 0;
  e->id = 0;
  e->next = free_rec;
  free_rec = e->self;
}

/* the posting that a completion call naming handle K takes: the oldest
 * active one that no call in flight took (or, when every one is taken, the
 * oldest active one: a program that completes one request twice at once) */
static VmReq *
oldest_of (uintptr_t k)
{
  Head *h = head_find (k);
  VmReq *taken = NULL;
  for (uint32_t i = h ? h->first : NONE; i != NONE; i = rec (i)->next)
    {
      VmReq *e = rec (i);
      if (!e->active)
        continue;
      if (!e->waiters)
        return e;
      if (!taken)
        taken = e;
    }
  return taken;
}

/* the persistent request of handle K (Start, Startall), NULL when not known.  Under the lock. */
VmReq *
vm_req_persistent (uintptr_t k)
{
  Head *h = head_find (k);
  for (uint32_t i = h ? h->first : NONE; i != NONE; i = rec (i)->next)
    if (rec (i)->kind & K_PERSISTENT)
      return rec (i);
  return NULL;
}

/* list the receive E (just posted or started, with its new id) */
void
vm_pend_add (VmReq *e)
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
  pend[pcount++] = (Pend) { .id = e->id, .at = e->self };
  e->pending = 1;
  plive++;
}

static VmReq *
pend_entry (const Pend *p)
{
  VmReq *e = rec (p->at);
  return e->key && e->id == p->id && e->pending ? e : NULL;
}

/* drop the listed receives that are no longer pending: from the front, and
 * all of them when they outnumber the live ones */
void
vm_pend_tidy (void)
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

int64_t
vm_req_new_id (void)
{
  return __atomic_add_fetch (&vm.next_req, 1, __ATOMIC_RELAXED);
}

/* remember a posting made with handle R, after the others of R; returns its
 * id (0 when it could not be kept) */
int64_t
vm_req_track (MPI_Request r, int kind, int peer, int src, int tag, int64_t bytes, VmComm *comm, MPI_Comm mcomm,
       int active)
{
  uintptr_t k = vm_rkey (r);
  if (!k || r == MPI_REQUEST_NULL)
    return 0;
  vm_rlock ();
  /* postings named by a call that went unrecorded: a handle MPI gives out
   * again was freed by it, and they with it */
  Head *h = head_find (k);
  for (uint32_t i = h ? h->first : NONE, n; i != NONE; i = n)
    {
      n = rec (i)->next;
      if (rec (i)->orphan)
        erase (rec (i));
    }
  uint32_t at = rec_alloc ();
  h = at == NONE ? NULL : head_get (k);
  if (!h)
    {
      if (at != NONE)
        {
          rec (at)->next = free_rec;
          free_rec = at;
        }
      vm_runlock ();
      return 0;
    }
  VmReq *e = rec (at);
  vm_comm_ref (comm);
  *e = (VmReq) { .key = k, .self = at, .next = NONE, .kind = kind, .active = active, .peer = peer, .src = src,
                 .tag = tag, .id = active ? vm_req_new_id () : 0, .bytes = bytes, .comm = comm, .mcomm = mcomm };
  if (h->last == NONE)
    h->first = at;
  else
    rec (h->last)->next = at;
  h->last = at;
  if (active && (kind & K_RECV))
    vm_pend_add (e);
  int64_t id = e->id;
  vm_runlock ();
  return id;
}

void
vm_req_fini (void)
{
  for (uint32_t i = 0; i < nrecs; i++)
    if (rec (i)->key)
      vm_comm_unref (rec (i)->comm);
  for (uint32_t c = 0; c < nchunks; c++)
    free (chunks[c]);
  free (chunks);
  chunks = NULL;
  nchunks = nrecs = 0;
  free_rec = NONE;
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

int
vm_wtag (int tag)
{
  return tag == MPI_ANY_TAG ? -1 : tag;
}

/* ---- completions ---- */


/* the waits one call writes: its own completions and the receives posted
 * before them that it writes first (on the stack for a few) */

void
vm_done_init (DoneBuf *b)
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

void
vm_done_free (DoneBuf *b)
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

int
vm_world_src (const VmComm *c, int src)
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
void
vm_earlier_first (VmComm *c, MPI_Comm mc, int src, int tag, int64_t before, DoneBuf *out)
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
      Done d = { .id = e->id, .kind = K_RECV, .bytes = e->kbytes, .tag = e->ktag, .src = vm_world_src (c, e->ksrc) };
      if (!done_push (out, d))
        break;
      e->written = 1;
      vm_unpend (e);
    }
}

/* is a receive posted on C and not yet written one that a message matching
 * (source, tag) could complete (a blocking receive then writes itself as a
 * post and a wait, so that the earlier ones can end inside it) */
int
vm_pending_overlap (VmComm *c, MPI_Comm mc, int source, int tag)
{
  int found = 0;
  vm_rlock ();
  for (size_t i = pstart; plive && i < pcount && !found; i++)
    {
      VmReq *e = pend_entry (&pend[i]);
      found = e && same_comm (e, c, mc) && (e->src == MPI_ANY_SOURCE || source == MPI_ANY_SOURCE || e->src == source)
              && (e->tag == MPI_ANY_TAG || tag == MPI_ANY_TAG || e->tag == tag);
    }
  vm_runlock ();
  return found;
}

/* A completion call's postings, one per position of its array, taken before
 * the call (see "Handles"): the record and its id (at NONE: none). */
typedef struct {
  uint32_t at;
  int64_t id;
} Claim;

static void
claim (int n, const MPI_Request *reqs, Claim *c)
{
  vm_rlock ();
  for (int i = 0; i < n; i++)
    {
      VmReq *e = vm_rkey (reqs[i]) ? oldest_of (vm_rkey (reqs[i])) : NULL;
      if (e)
        {
          e->waiters++;
          c[i] = (Claim) { .at = e->self, .id = e->id };
        }
      else
        c[i] = (Claim) { .at = NONE, .id = 0 };
    }
  vm_runlock ();
}

/* the posting a claim took, while it is still that one (the same id) */
static VmReq *
claimed (Claim c)
{
  if (c.at == NONE)
    return NULL;
  VmReq *e = rec (c.at);
  return e->key && e->id == c.id ? e : NULL;
}

static void
unclaim (int n, const Claim *c)
{
  vm_rlock ();
  for (int i = 0; i < n; i++)
    {
      VmReq *e = claimed (c[i]);
      if (e && e->waiters > 0)
        e->waiters--;
    }
  vm_runlock ();
}

/* a request's completion is written (or was, early): it leaves the table,
 * a persistent one goes inactive */
static void
retire (VmReq *e)
{
  e->now = NULL;
  e->written = e->known = 0;
  vm_unpend (e);
  if (e->kind & K_PERSISTENT)
    e->active = 0;
  else
    erase (e);
}

/* Take the N completed requests of a call over COUNT (index[j] names them,
 * or the first N) out of the table and describe them, each receive after
 * the pending ones posted before it that took an earlier message of its
 * channel (see "Post order"); requests already written early give nothing.
 * c: the postings the call took before it ran, per position. */
static void
collect (int count, int n, const int *index, MPI_Status *st, DoneBuf *out, const Claim *c)
{
  vm_rlock ();
  /* statuses of this call's completions: their handles are freed already */
  for (int j = 0; j < n; j++)
    {
      VmReq *e = claimed (c[index ? index[j] : j]);
      if (e && e->active)
        e->now = &st[j];
    }
  for (int i = 0; i < count; i++)
    {
      VmReq *e = claimed (c[i]);
      if (e)
        e->ours = 1;
    }
  for (int j = 0; j < n; j++)
    {
      VmReq *e = claimed (c[index ? index[j] : j]);
      if (!e || !e->active)
        continue;
      if (e->written)
        {
          retire (e);
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
          d.src = vm_world_src (e->comm, st[j].MPI_SOURCE);
          vm_unpend (e);
          vm_earlier_first (e->comm, e->mcomm, st[j].MPI_SOURCE, st[j].MPI_TAG, e->id, out);
        }
      done_push (out, d);
      retire (e);
    }
  for (int i = 0; i < count; i++)
    {
      VmReq *e = claimed (c[i]);
      if (e)
        e->ours = 0;
    }
  vm_pend_tidy ();
  vm_runlock ();
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
  Claim claim[SMALL];
  MPI_Request *reqp;
  MPI_Status *stp;
  Claim *claimp;
} Scratch;

static int
scratch_get (Scratch *s, int n)
{
  if (n <= SMALL)
    {
      s->reqp = s->req;
      s->stp = s->st;
      s->claimp = s->claim;
      return 0;
    }
  s->reqp = malloc (sizeof (MPI_Request) * (size_t) n);
  s->stp = malloc (sizeof (MPI_Status) * (size_t) n);
  s->claimp = malloc (sizeof (Claim) * (size_t) n);
  if (!s->reqp || !s->stp || !s->claimp)
    {
      free (s->reqp);
      free (s->stp);
      free (s->claimp);
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
      free (s->claimp);
    }
}

/* before a completion call over COUNT requests: copy the handles, take their postings */
static void
scratch_claim (Scratch *s, int count, const MPI_Request *requests)
{
  memcpy (s->reqp, requests, sizeof (MPI_Request) * (size_t) count);
  claim (count, s->reqp, s->claimp);
}

static void
finish (int count, int n, const int *index, MPI_Status *st, int64_t t0, const Claim *c)
{
  int64_t t1 = vm_now ();
  DoneBuf b;
  vm_done_init (&b);
  collect (count, n, index, st, &b, c);
  emit_done (b.v, b.n, t0, t1);
  vm_done_free (&b);
}

/* Without scratch memory a call is passed through unrecorded: its requests
 * stop being listed as pending, and the postings it names are marked, since
 * it may free their handles: a posting with such a handle drops them. */
static void
unlist (int count, const MPI_Request *reqs)
{
  vm_rlock ();
  for (int i = 0; i < count; i++)
    {
      Head *h = vm_rkey (reqs[i]) ? head_find (vm_rkey (reqs[i])) : NULL;
      for (uint32_t k = h ? h->first : NONE; k != NONE; k = rec (k)->next)
        {
          VmReq *e = rec (k);
          if (e->active && !e->waiters && !e->orphan)
            {
              e->orphan = 1;
              vm_unpend (e);
              break;
            }
        }
    }
  vm_runlock ();
}

int
MPI_Wait (MPI_Request *request, MPI_Status *status)
{
  if (!vm.on)
    return PMPI_Wait (request, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  Claim c;
  claim (1, request, &c);
  int64_t t0 = vm_now ();
  int rc = PMPI_Wait (request, st);
  if (rc == MPI_SUCCESS)
    finish (1, 1, NULL, st, t0, &c);
  unclaim (1, &c);
  return rc;
}

int
MPI_Test (MPI_Request *request, int *flag, MPI_Status *status)
{
  if (!vm.on)
    return PMPI_Test (request, flag, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  Claim c;
  claim (1, request, &c);
  int64_t t0 = vm_now ();
  int rc = PMPI_Test (request, flag, st);
  if (rc == MPI_SUCCESS && *flag)
    finish (1, 1, NULL, st, t0, &c);
  else
    vm.polls++;
  unclaim (1, &c);
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
  scratch_claim (&s, count, requests);
  int64_t t0 = vm_now ();
  int rc = PMPI_Waitall (count, requests, st);
  if (rc == MPI_SUCCESS)
    finish (count, count, NULL, st, t0, s.claimp);
  unclaim (count, s.claimp);
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
  scratch_claim (&s, count, requests);
  int64_t t0 = vm_now ();
  int rc = PMPI_Testall (count, requests, flag, st);
  if (rc == MPI_SUCCESS && *flag)
    finish (count, count, NULL, st, t0, s.claimp);
  else
    vm.polls++;
  unclaim (count, s.claimp);
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
  scratch_claim (&s, count, requests);
  int64_t t0 = vm_now ();
  int rc = PMPI_Waitany (count, requests, index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
    finish (count, 1, index, st, t0, s.claimp);
  unclaim (count, s.claimp);
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
  scratch_claim (&s, count, requests);
  int64_t t0 = vm_now ();
  int rc = PMPI_Testany (count, requests, index, flag, st);
  if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
    finish (count, 1, index, st, t0, s.claimp);
  else
    vm.polls++;
  unclaim (count, s.claimp);
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
  scratch_claim (&s, incount, requests);
  int64_t t0 = vm_now ();
  int rc = PMPI_Waitsome (incount, requests, outcount, indices, st);
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && *outcount > 0)
    finish (incount, *outcount, indices, st, t0, s.claimp);
  unclaim (incount, s.claimp);
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
  scratch_claim (&s, incount, requests);
  int64_t t0 = vm_now ();
  int rc = PMPI_Testsome (incount, requests, outcount, indices, st);
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && *outcount > 0)
    finish (incount, *outcount, indices, st, t0, s.claimp);
  else
    vm.polls++;
  unclaim (incount, s.claimp);
  scratch_put (&s);
  return rc;
}

/* frees one posting of the handle: the oldest active one no call in flight
 * took, else (an inactive persistent request) the first */
int
MPI_Request_free (MPI_Request *request)
{
  if (vm.on && request)
    {
      vm_rlock ();
      uintptr_t k = vm_rkey (*request);
      VmReq *e = k ? oldest_of (k) : NULL;
      if (!e)
        {
          Head *h = k ? head_find (k) : NULL;
          e = h ? rec (h->first) : NULL;
        }
      if (e)
        erase (e);
      vm_runlock ();
    }
  return PMPI_Request_free (request);
}
