/* viper-mpi-req.h - the library's requests, shared by viper-mpi-req.c
 * (the request table, the post order of receives, completions: Wait, Test
 * and their kin) and viper-mpi-p2p.c (the calls that make requests).
 * Internal to libviper-mpi. */
#pragma once

#include "viper-mpi.h"

enum { K_SEND = 1, K_RECV = 2, K_PERSISTENT = 4 };

/* One posting: a request as the program posted it (Isend, Irecv, ...) or a
 * persistent request (Send_init, ...) with its latest start.  MPI handles
 * are not unique among live requests: Open MPI gives sends that completed
 * at once one shared, already completed request, so three MPI_Isend may
 * return one handle value.  So a handle stands for every posting made with
 * it that is not completed yet, in post order (viper-mpi-req.c, "Handles"). */
typedef struct {
  uintptr_t key;          /* the handle it was posted with; 0 = a free record */
  uint32_t self;          /* its record number */
  uint32_t next;          /* the next posting of the same handle (post order), or the next free record */
  int kind;
  int active;             /* persistent: started and not yet completed */
  int peer;               /* send: world rank of the destination */
  int tag;                /* receive: the tag asked for (may be MPI_ANY_TAG) */
  int src;                /* receive: the source asked for, in comm (may be MPI_ANY_SOURCE) */
  int64_t id;
  int64_t bytes;
  VmComm *comm;           /* receive: translates the status's source */
  MPI_Comm mcomm;         /* receive: the communicator it was posted on */
  /* receives completed out of post order (see "Post order" in viper-mpi-req.c) */
  int pending;            /* posted, its end not written: listed in pend[] */
  int written;            /* its wait is already in the trace: its completion writes nothing */
  int known, kcancel, ksrc, ktag;   /* complete: what its status said (cached, MPI not asked again) */
  int64_t kbytes;
  int waiters;            /* completion calls in flight that took it for one of their requests */
  int ours;               /* taken by the completion call being collected */
  int orphan;             /* named by a call passed through unrecorded: its handle may be freed */
  const MPI_Status *now;  /* completed by the call being collected: its status */
} VmReq;

typedef struct {
  int64_t id;
  int kind;               /* K_SEND / K_RECV, or 0 = cancelled */
  int64_t bytes;
  int tag, src;
} Done;

#define SMALL 16          /* completions held inline before the heap */

typedef struct {
  Done *v;
  int n, cap;
  Done inl[SMALL];
} DoneBuf;

extern pthread_mutex_t vm_req_lock;
static inline void vm_rlock (void) { if (vm.mt) pthread_mutex_lock (&vm_req_lock); }
static inline void vm_runlock (void) { if (vm.mt) pthread_mutex_unlock (&vm_req_lock); }

void vm_done_free (DoneBuf *b);
void vm_done_init (DoneBuf *b);
void vm_earlier_first (VmComm *c, MPI_Comm mc, int src, int tag, int64_t before, DoneBuf *out);
int64_t vm_req_new_id (void);
void vm_pend_add (VmReq *e);
void vm_pend_tidy (void);
int vm_pending_overlap (VmComm *c, MPI_Comm mc, int source, int tag);
uintptr_t vm_rkey (MPI_Request r);
VmReq *vm_req_persistent (uintptr_t k);
int64_t vm_req_track (MPI_Request r, int kind, int peer, int src, int tag, int64_t bytes, VmComm *comm, MPI_Comm mcomm, int active);
void vm_unpend (VmReq *e);
int vm_world_src (const VmComm *c, int src);
int vm_wtag (int tag);
