/* test-mpi-req: libviper-mpi's request tracker (probe/mpi/viper-mpi-req.c and
 * viper-mpi-p2p.c, compiled into this program) driven through a fake MPI
 * (fake-mpi/mpi.h and the fake_* / PMPI_* below), with no MPI installed and
 * no runtime.  Deterministic: the fake decides which handle each call
 * returns.
 *
 * Open MPI 4.1 gives a small send that completes at once one shared,
 * already completed request (ompi_request_empty): three MPI_Isend return
 * the same handle value.  The tracker kept one entry per handle value, so
 * the three postings overwrote each other and MPI_Waitall over the three
 * handles wrote one wait instead of three.  Here every posting must get its
 * own wait, whichever completion call the program uses, and a wait on a
 * handle completes the oldest posting that has it.  Also: MPI_REQUEST_NULL
 * in the arrays, MPI_Request_free, persistent requests, a cancelled
 * receive, receives completed out of post order (their ends in post order),
 * postings never completed (nothing written for them, nothing leaked at
 * the end), and all of it once more with the thread lock on (vm.mt).
 * Plain C, no GLib: it links the probe's own files. */
#include "viper-mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fake MPI ---- */

struct fake_request {
  int kind;                 /* 1 send, 2 receive */
  int persistent, active;   /* persistent: started and not completed */
  int shared;               /* the one shared completed request */
  int ready;                /* complete as far as a test can tell */
  int src, tag, bytes;      /* a receive: the message it gets */
  int cancelled;
};
struct fake_comm { int unused; };
struct fake_type { int size; };
struct fake_message { int unused; };

struct fake_request fake_request_null;
struct fake_comm fake_comm_world;
struct fake_type fake_byte = { 1 }, fake_int = { 4 };
struct fake_message fake_message_no_proc;

/* Open MPI's ompi_request_empty: what a send that completed at once gets */
static struct fake_request fake_done = { .kind = 1, .active = 1, .shared = 1, .ready = 1 };
static int fake_slow;       /* new real requests are not complete until waited for */
static int fake_live;       /* real requests allocated and not freed */

static MPI_Request
fake_new (int kind, int persistent)
{
  struct fake_request *r = calloc (1, sizeof *r);
  if (!r)
    abort ();
  r->kind = kind;
  r->persistent = persistent;
  r->active = !persistent;
  r->ready = !fake_slow;
  fake_live++;
  return r;
}

static int
fake_isend (int count, MPI_Datatype type, MPI_Request *request)
{
  /* small messages complete at once and share one request, as ob1/ucx do */
  *request = count * type->size <= 8 ? &fake_done : fake_new (1, 0);
  return MPI_SUCCESS;
}

static int
fake_active (MPI_Request r)
{
  return r != MPI_REQUEST_NULL && r->active;
}

static void
fake_status (MPI_Request r, MPI_Status *st)
{
  if (!st)
    return;
  memset (st, 0, sizeof *st);
  st->MPI_SOURCE = r && r->kind == 2 ? r->src : MPI_ANY_SOURCE;
  st->MPI_TAG = r && r->kind == 2 ? r->tag : MPI_ANY_TAG;
  st->fake_bytes = r && r->kind == 2 && !r->cancelled ? r->bytes : 0;
  st->fake_cancelled = r ? r->cancelled : 0;
}

/* complete *h (it is active): its status, the handle as MPI leaves it */
static void
fake_complete (MPI_Request *h, MPI_Status *st)
{
  MPI_Request r = *h;
  fake_status (r, st);
  if (r->shared)
    *h = MPI_REQUEST_NULL;
  else if (r->persistent)
    r->active = 0;
  else
    {
      free (r);
      fake_live--;
      *h = MPI_REQUEST_NULL;
    }
}

static MPI_Status *
fake_st (MPI_Status *sts, int i)
{
  return sts ? &sts[i] : NULL;
}

#define UNUSED_SEND(name) \
  int PMPI_##name (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) \
  { (void) buf; (void) count; (void) datatype; (void) dest; (void) tag; (void) comm; return MPI_SUCCESS; }
UNUSED_SEND (Send)
UNUSED_SEND (Ssend)
UNUSED_SEND (Bsend)
UNUSED_SEND (Rsend)

#define FAKE_ISEND(name) \
  int PMPI_##name (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, \
                   MPI_Request *request) \
  { (void) buf; (void) dest; (void) tag; (void) comm; return fake_isend (count, datatype, request); }
FAKE_ISEND (Isend)
FAKE_ISEND (Issend)
FAKE_ISEND (Ibsend)
FAKE_ISEND (Irsend)

int
PMPI_Recv (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
  (void) buf;
  (void) comm;
  struct fake_request r = { .kind = 2, .src = source < 0 ? 1 : source, .tag = tag < 0 ? 0 : tag,
                            .bytes = count * datatype->size };
  fake_status (&r, status);
  return MPI_SUCCESS;
}

/* a receive gets a message of its own size from SOURCE (1 for any) with TAG (0 for any) */
int
PMPI_Irecv (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
  (void) buf;
  (void) comm;
  MPI_Request r = fake_new (2, 0);
  r->src = source < 0 ? 1 : source;
  r->tag = tag < 0 ? 0 : tag;
  r->bytes = count * datatype->size;
  *request = r;
  return MPI_SUCCESS;
}

int
PMPI_Mrecv (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
  (void) message;
  return PMPI_Recv (buf, count, datatype, 1, 0, MPI_COMM_WORLD, status);
}

int
PMPI_Imrecv (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
  (void) message;
  return PMPI_Irecv (buf, count, datatype, 1, 0, MPI_COMM_WORLD, request);
}

int
PMPI_Probe (int source, int tag, MPI_Comm comm, MPI_Status *status)
{
  (void) comm;
  struct fake_request r = { .kind = 2, .src = source < 0 ? 1 : source, .tag = tag < 0 ? 0 : tag };
  fake_status (&r, status);
  return MPI_SUCCESS;
}

int
PMPI_Iprobe (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
  *flag = 1;
  return PMPI_Probe (source, tag, comm, status);
}

int
PMPI_Mprobe (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
  *message = MPI_MESSAGE_NO_PROC;
  return PMPI_Probe (source, tag, comm, status);
}

int
PMPI_Improbe (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
  *flag = 1;
  return PMPI_Mprobe (source, tag, comm, message, status);
}

int
PMPI_Sendrecv (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
  (void) sendbuf;
  (void) sendcount;
  (void) sendtype;
  (void) dest;
  (void) sendtag;
  return PMPI_Recv (recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}

int
PMPI_Sendrecv_replace (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                       MPI_Comm comm, MPI_Status *status)
{
  (void) dest;
  (void) sendtag;
  return PMPI_Recv (buf, count, datatype, source, recvtag, comm, status);
}

#define FAKE_SEND_INIT(name) \
  int PMPI_##name (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, \
                   MPI_Request *request) \
  { (void) buf; (void) count; (void) datatype; (void) dest; (void) tag; (void) comm; \
    *request = fake_new (1, 1); return MPI_SUCCESS; }
FAKE_SEND_INIT (Send_init)
FAKE_SEND_INIT (Ssend_init)
FAKE_SEND_INIT (Bsend_init)
FAKE_SEND_INIT (Rsend_init)

int
PMPI_Recv_init (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request *request)
{
  (void) buf;
  (void) comm;
  MPI_Request r = fake_new (2, 1);
  r->src = source < 0 ? 1 : source;
  r->tag = tag < 0 ? 0 : tag;
  r->bytes = count * datatype->size;
  *request = r;
  return MPI_SUCCESS;
}

int
PMPI_Start (MPI_Request *request)
{
  (*request)->active = 1;
  (*request)->ready = !fake_slow;
  return MPI_SUCCESS;
}

int
PMPI_Startall (int count, MPI_Request requests[])
{
  for (int i = 0; i < count; i++)
    PMPI_Start (&requests[i]);
  return MPI_SUCCESS;
}

int
PMPI_Wait (MPI_Request *request, MPI_Status *status)
{
  if (fake_active (*request))
    fake_complete (request, status);
  else
    fake_status (NULL, status);
  return MPI_SUCCESS;
}

int
PMPI_Test (MPI_Request *request, int *flag, MPI_Status *status)
{
  *flag = !fake_active (*request) || (*request)->ready;
  if (*flag)
    return PMPI_Wait (request, status);
  return MPI_SUCCESS;
}

int
PMPI_Waitall (int count, MPI_Request requests[], MPI_Status statuses[])
{
  for (int i = 0; i < count; i++)
    PMPI_Wait (&requests[i], fake_st (statuses, i));
  return MPI_SUCCESS;
}

int
PMPI_Testall (int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
  *flag = 1;
  for (int i = 0; i < count; i++)
    if (fake_active (requests[i]) && !requests[i]->ready)
      *flag = 0;
  if (*flag)
    PMPI_Waitall (count, requests, statuses);
  return MPI_SUCCESS;
}

static int
fake_any (int count, MPI_Request requests[], int *index, MPI_Status *status, int need_ready)
{
  *index = MPI_UNDEFINED;
  int any = 0;
  for (int i = 0; i < count; i++)
    if (fake_active (requests[i]))
      {
        any = 1;
        if (!need_ready || requests[i]->ready)
          {
            *index = i;
            fake_complete (&requests[i], status);
            return 1;
          }
      }
  if (!any)
    fake_status (NULL, status);
  return !any;
}

int
PMPI_Waitany (int count, MPI_Request requests[], int *index, MPI_Status *status)
{
  fake_any (count, requests, index, status, 0);
  return MPI_SUCCESS;
}

int
PMPI_Testany (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
  *flag = fake_any (count, requests, index, status, 1);
  return MPI_SUCCESS;
}

static void
fake_some (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[], int need_ready)
{
  int any = 0, n = 0;
  for (int i = 0; i < incount; i++)
    if (fake_active (requests[i]))
      {
        any = 1;
        if (!need_ready || requests[i]->ready)
          {
            fake_complete (&requests[i], fake_st (statuses, n));
            indices[n++] = i;
          }
      }
  *outcount = any ? n : MPI_UNDEFINED;
}

int
PMPI_Waitsome (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
  fake_some (incount, requests, outcount, indices, statuses, 0);
  return MPI_SUCCESS;
}

int
PMPI_Testsome (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
  fake_some (incount, requests, outcount, indices, statuses, 1);
  return MPI_SUCCESS;
}

int
PMPI_Request_free (MPI_Request *request)
{
  MPI_Request r = *request;
  if (r != MPI_REQUEST_NULL && !r->shared)
    {
      free (r);
      fake_live--;
    }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int
PMPI_Request_get_status (MPI_Request request, int *flag, MPI_Status *status)
{
  if (fake_active (request))
    request->ready = 1;   /* a matched receive's data arrive */
  *flag = 1;
  fake_status (fake_active (request) ? request : NULL, status);
  return MPI_SUCCESS;
}

int
PMPI_Cancel (MPI_Request *request)
{
  if (fake_active (*request) && !(*request)->shared)
    (*request)->cancelled = 1;
  return MPI_SUCCESS;
}

int
MPI_Cancel (MPI_Request *request)
{
  return PMPI_Cancel (request);
}

int
PMPI_Test_cancelled (const MPI_Status *status, int *flag)
{
  *flag = status->fake_cancelled;
  return MPI_SUCCESS;
}

int
PMPI_Get_count (const MPI_Status *status, MPI_Datatype datatype, int *count)
{
  *count = status->fake_bytes / datatype->size;
  return MPI_SUCCESS;
}

int
PMPI_Type_size (MPI_Datatype datatype, int *size)
{
  *size = datatype->size;
  return MPI_SUCCESS;
}

/* ---- what the rest of libviper-mpi gives the tracker ---- */

VmState vm = { .lock = PTHREAD_MUTEX_INITIALIZER, .world = { .refs = 1, .subset = -1 } };

static int64_t clock_ns;

int64_t
vm_now (void)
{
  return clock_ns += 1000;
}

typedef struct {
  int64_t rec, ev;
  int n;
  int64_t d[8];
} Line;

static Line lines[4096];
static int nlines;

void
vm_emit_line (int64_t rec, int64_t ev, int64_t t, int64_t proc, int64_t process, int ndata, const int64_t *data)
{
  (void) t;
  (void) proc;
  (void) process;
  vm.records++;
  if (nlines == (int) (sizeof lines / sizeof lines[0]))
    return;
  Line *l = &lines[nlines++];
  l->rec = rec;
  l->ev = ev;
  l->n = ndata < 8 ? ndata : 8;
  if (l->n > 0)
    memcpy (l->d, data, sizeof *data * (size_t) l->n);
}

VmComm *
vm_comm_get (MPI_Comm comm)
{
  (void) comm;
  return &vm.world;
}

void
vm_comm_ref (VmComm *c)
{
  if (c)
    c->refs++;
}

void
vm_comm_unref (VmComm *c)
{
  if (c)
    c->refs--;
}

int
vm_comm_world_rank (const VmComm *c, int rank)
{
  (void) c;
  return rank < 0 ? -1 : rank;
}

int
vm_comm_outside (const VmComm *c, int rank)
{
  (void) c;
  (void) rank;
  return 0;
}

/* ---- checks ---- */

static int failures, checks;
static const char *scenario;

#define CHECK(cond, ...) \
  do \
    { \
      checks++; \
      if (!(cond)) \
        { \
          failures++; \
          printf ("FAIL %s (mt %d): ", scenario, vm.mt); \
          printf (__VA_ARGS__); \
          printf ("\n"); \
        } \
    } \
  while (0)

static void
begin (const char *name)
{
  scenario = name;
  nlines = 0;
}

static int
count (int64_t rec, int64_t ev)
{
  int n = 0;
  for (int i = 0; i < nlines; i++)
    n += lines[i].rec == rec && lines[i].ev == ev;
  return n;
}

/* the request ids of the lines (REC, EV) since begin(), in order */
static int
ids (int64_t rec, int64_t ev, int64_t *out, int max)
{
  int n = 0;
  for (int i = 0; i < nlines && n < max; i++)
    if (lines[i].rec == rec && lines[i].ev == ev && lines[i].n > 0)
      out[n++] = lines[i].d[0];
  return n;
}

/* SENDS send waits and RECVS receive waits since begin(), each begun and
 * ended once, each for a request posted since begin() and waited for once;
 * the send waits in post order when IN_ORDER */
static void
expect_waits (int sends, int recvs, int in_order)
{
  CHECK (count (VM_BEGIN, VM_EV_SEND_WAIT) == sends && count (VM_END, VM_EV_SEND_WAIT) == sends,
         "%d send wait begins, %d ends, want %d", count (VM_BEGIN, VM_EV_SEND_WAIT),
         count (VM_END, VM_EV_SEND_WAIT), sends);
  CHECK (count (VM_BEGIN, VM_EV_RECV_WAIT) == recvs && count (VM_END, VM_EV_RECV_WAIT) == recvs,
         "%d receive wait begins, %d ends, want %d", count (VM_BEGIN, VM_EV_RECV_WAIT),
         count (VM_END, VM_EV_RECV_WAIT), recvs);
  int64_t posted[512], waited[512];
  int np = ids (VM_END, VM_EV_ISEND, posted, 256);
  np += ids (VM_END, VM_EV_IRECV, posted + np, 256);
  int nw = ids (VM_BEGIN, VM_EV_SEND_WAIT, waited, 256);
  if (in_order)
    for (int i = 0; i < nw; i++)
      CHECK (waited[i] == posted[i], "send wait %d is for request %lld, the posting %d was %lld", i + 1,
             (long long) waited[i], i + 1, (long long) posted[i]);
  nw += ids (VM_BEGIN, VM_EV_RECV_WAIT, waited + nw, 256);
  nw += ids (VM_BEGIN, VM_EV_CANCELLED, waited + nw, 256);
  for (int i = 0; i < nw; i++)
    {
      int found = 0, twice = 0;
      for (int j = 0; j < np; j++)
        found |= posted[j] == waited[i];
      for (int j = 0; j < i; j++)
        twice |= waited[j] == waited[i];
      CHECK (found && !twice, "the wait for request %lld: %s", (long long) waited[i],
             !found ? "no such request posted" : "written twice");
    }
}

static int one = 1;

static void
isend_small (MPI_Request *r, int n)
{
  for (int i = 0; i < n; i++)
    MPI_Isend (&one, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[i]);
}

/* ---- scenarios ---- */

static void
shared_waitall (void)
{
  begin ("Isend x3 of one int, one shared handle, then Waitall");
  MPI_Request r[3];
  isend_small (r, 3);
  CHECK (r[0] == &fake_done && r[1] == r[0] && r[2] == r[0], "the fake did not share the handle");
  CHECK (count (VM_END, VM_EV_ISEND) == 3, "%d sends posted", count (VM_END, VM_EV_ISEND));
  MPI_Waitall (3, r, MPI_STATUSES_IGNORE);
  expect_waits (3, 0, 1);
  CHECK (r[0] == MPI_REQUEST_NULL && r[2] == MPI_REQUEST_NULL, "handles not freed");
}

static void
shared_wait_each (void)
{
  begin ("Isend x3, shared handle, MPI_Wait on each");
  MPI_Request r[3];
  isend_small (r, 3);
  for (int i = 0; i < 3; i++)
    MPI_Wait (&r[i], MPI_STATUS_IGNORE);
  expect_waits (3, 0, 1);
  begin ("Isend x3, shared handle, MPI_Test on each");
  isend_small (r, 3);
  for (int i = 0; i < 3; i++)
    {
      int flag = 0;
      MPI_Test (&r[i], &flag, MPI_STATUS_IGNORE);
      CHECK (flag, "test %d did not complete", i);
    }
  expect_waits (3, 0, 1);
}

static void
shared_any_some (void)
{
  begin ("Isend x3, shared handle, Waitany until none");
  MPI_Request r[20];
  isend_small (r, 3);
  int idx = 0, n = 0;
  for (;;)
    {
      MPI_Waitany (3, r, &idx, MPI_STATUS_IGNORE);
      if (idx == MPI_UNDEFINED)
        break;
      n++;
    }
  CHECK (n == 3, "Waitany completed %d", n);
  expect_waits (3, 0, 1);

  begin ("Isend x3, shared handle, Testany until none");
  isend_small (r, 3);
  n = 0;
  for (int flag = 0;;)
    {
      MPI_Testany (3, r, &idx, &flag, MPI_STATUS_IGNORE);
      if (idx == MPI_UNDEFINED)
        break;
      n += flag;
    }
  CHECK (n == 3, "Testany completed %d", n);
  expect_waits (3, 0, 1);

  begin ("Isend x3, shared handle, Testsome and Waitsome");
  isend_small (r, 3);
  int out = 0, ind[20];
  MPI_Testsome (3, r, &out, ind, MPI_STATUSES_IGNORE);
  CHECK (out == 3, "Testsome completed %d", out);
  expect_waits (3, 0, 1);
  begin ("... Waitsome");
  isend_small (r, 3);
  MPI_Waitsome (3, r, &out, ind, MPI_STATUSES_IGNORE);
  CHECK (out == 3, "Waitsome completed %d", out);
  expect_waits (3, 0, 1);

  begin ("Isend x3, shared handle, Testall");
  isend_small (r, 3);
  int flag = 0;
  MPI_Testall (3, r, &flag, MPI_STATUSES_IGNORE);
  CHECK (flag, "Testall did not complete");
  expect_waits (3, 0, 1);

  begin ("Isend x20 (more than the call's stack room), shared handle, Waitall");
  isend_small (r, 20);
  MPI_Waitall (20, r, MPI_STATUSES_IGNORE);
  expect_waits (20, 0, 1);
}

static void
mixed (void)
{
  begin ("a slow receive, shared sends and a real send, Testsome then Waitall");
  int big[100], got[100];
  MPI_Request r[6];
  fake_slow = 1;
  MPI_Irecv (got, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[0]);
  MPI_Isend (&one, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[1]);
  MPI_Isend (&one, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[2]);
  MPI_Isend (big, 100, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[3]);
  MPI_Isend (&one, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[4]);
  r[5] = MPI_REQUEST_NULL;
  CHECK (r[1] == r[2] && r[2] == r[4] && r[3] != r[1], "handles: %p %p %p %p", (void *) r[1], (void *) r[2],
         (void *) r[3], (void *) r[4]);
  int out = 0, ind[6];
  MPI_Testsome (6, r, &out, ind, MPI_STATUSES_IGNORE);
  CHECK (out == 3, "Testsome completed %d, want the 3 shared sends", out);
  expect_waits (3, 0, 0);
  fake_slow = 0;
  MPI_Waitall (6, r, MPI_STATUSES_IGNORE);
  expect_waits (4, 1, 0);
  int64_t w[8] = { 0 }, p[8] = { 0 };
  int n = ids (VM_BEGIN, VM_EV_SEND_WAIT, w, 8);
  ids (VM_END, VM_EV_ISEND, p, 8);
  /* the three shared sends first (Testsome), the real one last */
  CHECK (n == 4 && w[0] == p[0] && w[1] == p[1] && w[2] == p[3] && w[3] == p[2],
         "send waits for %lld %lld %lld %lld, posted %lld %lld %lld %lld", (long long) w[0], (long long) w[1],
         (long long) w[2], (long long) w[3], (long long) p[0], (long long) p[1], (long long) p[2], (long long) p[3]);
}

static void
null_handles (void)
{
  begin ("MPI_REQUEST_NULL in the arrays");
  MPI_Request r[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
  MPI_Waitall (3, r, MPI_STATUSES_IGNORE);
  int idx = 0, out = 0, ind[3], flag = 0;
  MPI_Waitany (3, r, &idx, MPI_STATUS_IGNORE);
  CHECK (idx == MPI_UNDEFINED, "Waitany over nulls gave %d", idx);
  MPI_Testsome (3, r, &out, ind, MPI_STATUSES_IGNORE);
  CHECK (out == MPI_UNDEFINED, "Testsome over nulls gave %d", out);
  MPI_Wait (&r[0], MPI_STATUS_IGNORE);
  MPI_Test (&r[0], &flag, MPI_STATUS_IGNORE);
  expect_waits (0, 0, 0);
  isend_small (&r[1], 1);
  MPI_Waitall (3, r, MPI_STATUSES_IGNORE);
  expect_waits (1, 0, 1);
  CHECK (nlines == 4, "%d lines, want the post and one wait", nlines);
}

static void
request_free (void)
{
  begin ("Isend x3, shared handle, Request_free on one, Waitall on the others");
  MPI_Request r[3];
  isend_small (r, 3);
  MPI_Request_free (&r[0]);
  MPI_Waitall (2, r + 1, MPI_STATUSES_IGNORE);
  /* the oldest posting is the one freed */
  int64_t w[4] = { 0 }, p[4] = { 0 };
  int n = ids (VM_BEGIN, VM_EV_SEND_WAIT, w, 4);
  ids (VM_END, VM_EV_ISEND, p, 4);
  CHECK (n == 2 && w[0] == p[1] && w[1] == p[2], "%d waits, for %lld %lld", n, (long long) w[0], (long long) w[1]);
  expect_waits (2, 0, 0);
}

static void
never_completed (void)
{
  begin ("Isend x3, shared handle, only one waited for");
  MPI_Request r[3];
  isend_small (r, 3);
  MPI_Wait (&r[0], MPI_STATUS_IGNORE);
  expect_waits (1, 0, 1);
  /* the two others are never completed by the program; a later posting with
   * the same handle still gets a wait when waited for */
  begin ("... then one more Isend and its Wait");
  MPI_Request s;
  isend_small (&s, 1);
  MPI_Wait (&s, MPI_STATUS_IGNORE);
  CHECK (count (VM_BEGIN, VM_EV_SEND_WAIT) == 1 && count (VM_END, VM_EV_SEND_WAIT) == 1, "%d waits",
         count (VM_BEGIN, VM_EV_SEND_WAIT));
  /* and a real request is untouched by them */
  begin ("... a real receive among them");
  MPI_Request q;
  int got;
  MPI_Irecv (&got, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &q);
  MPI_Wait (&q, MPI_STATUS_IGNORE);
  expect_waits (0, 1, 0);
}

static void
persistent (void)
{
  begin ("a persistent send started twice, with a shared send in the same Waitall");
  MPI_Request r[2];
  int big[100] = { 0 };
  MPI_Send_init (big, 100, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[0]);
  for (int k = 0; k < 2; k++)
    {
      MPI_Start (&r[0]);
      isend_small (&r[1], 1);
      MPI_Waitall (2, r, MPI_STATUSES_IGNORE);
      CHECK (r[0] != MPI_REQUEST_NULL, "the persistent request was freed");
    }
  expect_waits (4, 0, 0);
  MPI_Request_free (&r[0]);
  begin ("a persistent receive started twice, Waitany");
  int got[4];
  MPI_Recv_init (got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[0]);
  for (int k = 0; k < 2; k++)
    {
      MPI_Startall (1, r);
      int idx;
      MPI_Waitany (1, r, &idx, MPI_STATUS_IGNORE);
      CHECK (idx == 0, "Waitany gave %d", idx);
    }
  expect_waits (0, 2, 0);
  MPI_Request_free (&r[0]);
}

static void
post_order (void)
{
  begin ("Irecv A (4 bytes) and B (400) on one channel, Wait(B) first");
  int a[1], b[100];
  MPI_Request ra, rb;
  fake_slow = 1;
  MPI_Irecv (a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &ra);
  MPI_Irecv (b, 100, MPI_INT, 1, 5, MPI_COMM_WORLD, &rb);
  fake_slow = 0;
  MPI_Wait (&rb, MPI_STATUS_IGNORE);
  MPI_Wait (&ra, MPI_STATUS_IGNORE);
  expect_waits (0, 2, 0);
  int64_t bytes[2] = { -1, -1 };
  for (int i = 0, k = 0; i < nlines && k < 2; i++)
    if (lines[i].rec == VM_END && lines[i].ev == VM_EV_RECV_WAIT)
      bytes[k++] = lines[i].d[0];
  CHECK (bytes[0] == 4 && bytes[1] == 400, "receive ends of %lld then %lld bytes, want 4 then 400",
         (long long) bytes[0], (long long) bytes[1]);
  /* and with shared sends interleaved among them */
  begin ("the same with shared sends posted between, completed by one Waitall in reverse");
  MPI_Request r[4];
  fake_slow = 1;
  MPI_Irecv (a, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &r[3]);
  isend_small (&r[2], 1);
  MPI_Irecv (b, 100, MPI_INT, 1, 8, MPI_COMM_WORLD, &r[1]);
  isend_small (&r[0], 1);
  fake_slow = 0;
  MPI_Waitall (4, r, MPI_STATUSES_IGNORE);
  expect_waits (2, 2, 1);
  for (int i = 0, k = 0; i < nlines && k < 2; i++)
    if (lines[i].rec == VM_END && lines[i].ev == VM_EV_RECV_WAIT)
      bytes[k++] = lines[i].d[0];
  CHECK (bytes[0] == 4 && bytes[1] == 400, "receive ends of %lld then %lld bytes, want 4 then 400",
         (long long) bytes[0], (long long) bytes[1]);
}

static void
cancelled (void)
{
  begin ("a cancelled receive between shared sends");
  MPI_Request r[3];
  int got;
  isend_small (&r[0], 1);
  fake_slow = 1;
  MPI_Irecv (&got, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &r[1]);
  fake_slow = 0;
  isend_small (&r[2], 1);
  MPI_Cancel (&r[1]);
  MPI_Waitall (3, r, MPI_STATUSES_IGNORE);
  expect_waits (2, 0, 1);
  CHECK (count (VM_BEGIN, VM_EV_CANCELLED) == 1 && count (VM_END, VM_EV_CANCELLED) == 1, "%d cancelled",
         count (VM_BEGIN, VM_EV_CANCELLED));
}

int
main (void)
{
  vm.on = 1;
  vm.rank = 0;
  vm.size = 2;
  for (int mt = 0; mt < 2; mt++)
    {
      vm.mt = mt;
      shared_waitall ();
      shared_wait_each ();
      shared_any_some ();
      mixed ();
      null_handles ();
      request_free ();
      persistent ();
      post_order ();
      cancelled ();
      never_completed ();
      /* what MPI_Finalize does with the postings never completed: nothing
       * is written for them, and nothing is left allocated */
      begin ("the end with postings never completed");
      vm_req_fini ();
      CHECK (nlines == 0, "%d lines written at the end", nlines);
      CHECK (vm.world.refs == 1, "communicator references left: %d", vm.world.refs - 1);
    }
  CHECK (fake_live == 0, "%d fake requests never freed (by the test)", fake_live);
  printf ("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
