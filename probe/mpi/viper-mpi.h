/* viper-mpi.h - internals shared by the files of libviper-mpi (not installed).
 *
 * libviper-mpi is a PMPI interposition library: preloaded into an unmodified
 * MPI program it defines MPI_Send, MPI_Recv, ... which record PICL lines
 * (spec picl.md section 3, docs/formats.md "MPI records") and call the real
 * PMPI_ entry points.  Plain C and POSIX, no GLib.
 *
 * Files: viper-mpi-out.c (the per-rank buffer, line formatting, files and
 * the live socket, signals), viper-mpi-init.c (Init/Finalize/Abort, the time
 * base and clock synchronisation, the cross-check), viper-mpi-comm.c
 * (communicator -> world rank tables, subset ids, communicator creation),
 * viper-mpi-p2p.c (point-to-point, requests and completions),
 * viper-mpi-coll.c (collectives).
 */
#ifndef VIPER_MPI_H
#define VIPER_MPI_H

#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include <pthread.h>

/* PICL record and event numbers (spec section 3, COMMON contract, formats.md) */
enum {
  VM_BEGIN = -3, VM_END = -4, VM_SUBSET_REC = -202, VM_SYNC_REC = -6,
  VM_EV_TRACING = -901, VM_EV_SEND = -21, VM_EV_ISEND = -27, VM_EV_SEND_WAIT = -31,
  VM_EV_RECV = -52, VM_EV_IRECV = -57, VM_EV_RECV_WAIT = -61, VM_EV_SUBSET = -812,
  VM_EV_BARRIER = -402, VM_EV_ALLREDUCE = -782, VM_EV_ALLGATHER = -783, VM_EV_ALLTOALL = -784,
  VM_EV_BCAST = -785, VM_EV_GATHER = -786, VM_EV_SCATTER = -787, VM_EV_REDUCE = -790,
  VM_EV_REDUCE_SCATTER = -791, VM_EV_SCAN = -792, VM_EV_SYNC = -951,
  /* project records (docs/formats.md, "MPI records") */
  VM_EV_PROBE = -952, VM_EV_IPROBE = -953, VM_EV_CANCELLED = -954,
};

/* One communicator as the library sees it (cached as an MPI attribute). */
typedef struct {
  int refs;          /* the attribute + every outstanding request that names it */
  int size;          /* size of the group ranks are translated in (remote group of an intercomm) */
  int inter;         /* intercommunicator: p2p translated, collectives not recorded */
  int *world;        /* rank in the communicator -> MPI_COMM_WORLD rank; NULL = identity */
  int64_t subset;    /* -1 = all processors (world), 0 = not agreed yet, else the agreed id */
  int defined;       /* the subset definition line has been written by this rank */
  int outside;       /* some member is not in this MPI_COMM_WORLD (a spawned or connected world) */
} VmComm;

typedef struct {
  int active;             /* tracing asked for and MPI initialised: the library's collectives run on every rank */
  int on;                 /* recording (set up at Init, cleared at Finalize or on a fatal error) */
  int rank, size;         /* in MPI_COMM_WORLD */
  int mt;                 /* MPI_THREAD_MULTIPLE: appends take the lock */
  int quiet;
  int64_t epoch_ns;       /* rank 0's CLOCK_REALTIME at Init, subtracted by every rank */
  MPI_Comm comm;          /* private duplicate of MPI_COMM_WORLD for the library's own traffic */
  pthread_mutex_t lock;
  /* counts for the cross-check */
  int64_t sent, received, collectives, records, dropped, polls;
  int64_t next_req;       /* request ids, per rank from 1 */
  int64_t comms_led;      /* communicators this rank was the leader of (subset ids) */
  VmComm world;
} VmState;

extern VmState vm;

/* time in ns since the common epoch */
int64_t vm_now (void);

/* output (viper-mpi-out.c) */
int vm_out_open (void);            /* 0 = ok; on failure prints why and returns -1 */
int vm_env_check (void);           /* 0 = VIPER_MPI_BUFFER, _SYNC, _LIVE_TIMEOUT valid; else says which, -1 */
int vm_env_sync (void);            /* VIPER_MPI_SYNC's rounds (4 unset, 0 invalid) */
void vm_out_drain (void);          /* Finalize: flush (live: within a bound, the rest counted dropped) */
void vm_out_close (int drain);     /* flush (drain: as vm_out_drain), close */
void vm_emit_line (int64_t rec, int64_t ev, int64_t t, int64_t proc, int64_t process,
                   int ndata, const int64_t *data);
void vm_emit_comment (const char *text);
void vm_flush_now (void);
void vm_signals_install (void);
void vm_signals_restore (void);
const char *vm_sink_name (void);

static inline void vm_lock (void) { if (vm.mt) pthread_mutex_lock (&vm.lock); }
static inline void vm_unlock (void) { if (vm.mt) pthread_mutex_unlock (&vm.lock); }

#define VM_E(rec, ev, t, n, ...) vm_emit_line ((rec), (ev), (t), vm.rank, 0, (n), (const int64_t[]) { __VA_ARGS__ })
#define VM_E0(rec, ev, t) vm_emit_line ((rec), (ev), (t), vm.rank, 0, 0, NULL)

/* communicators (viper-mpi-comm.c) */
void vm_comm_init (void);
void vm_comm_fini (void);
VmComm *vm_comm_get (MPI_Comm comm);      /* never NULL once on (falls back to identity) */
void vm_comm_ref (VmComm *c);
void vm_comm_unref (VmComm *c);
int vm_comm_world_rank (const VmComm *c, int rank);   /* -1 for MPI_ANY_SOURCE */
int vm_comm_outside (const VmComm *c, int rank);      /* RANK is a process of another world: not recorded */
int vm_comm_subset (VmComm *c, MPI_Comm comm, int64_t t);   /* agree id + define; 0 = do not record */
void vm_comm_created (MPI_Comm newcomm);

static inline int64_t
vm_bytes (int count, MPI_Datatype type)
{
  int size = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size (type, &size) != MPI_SUCCESS)
    return 0;
  return (int64_t) count * size;
}

int64_t vm_status_bytes (const MPI_Status *st);

/* requests (viper-mpi-p2p.c) */
void vm_req_fini (void);

#endif
