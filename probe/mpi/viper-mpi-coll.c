/* viper-mpi-coll.c - collectives, with the shapes of the lead's table.
 *
 * Begin lines: rooted `-3 EV T P 0 3 2 BYTES ROOT SUBSET`, unrooted
 * `-3 EV T P 0 2 2 BYTES SUBSET` (barrier `-3 -402 T P 0 1 2 SUBSET`); end
 * lines `-4 EV T P 0 1 2 BYTES` (allreduce `-4 -782 T P 0 1 2 SUBSET`,
 * barrier `-4 -402 T P 0 0`).  ROOT is a world rank, SUBSET the
 * communicator's agreed id (viper-mpi-comm.c; MPI_COMM_WORLD is 1).
 * BYTES on a begin is what this rank contributes (sends), on an end what it
 * gets (receives); reduce's non-roots end with -1 (MPICL).  The begin is
 * written before PMPI is called, so a rank stuck in a collective shows it.
 * Collectives on intercommunicators are not recorded.
 */
#include "viper-mpi.h"

typedef struct {
  VmComm *c;
  int64_t subset;
  int me;   /* rank in the communicator */
} Coll;

/* 1 = record this collective (the subset is agreed and defined) */
static int
coll_enter (MPI_Comm comm, Coll *k)
{
  if (!vm.active)
    return 0;
  k->c = vm_comm_get (comm);
  /* once defined, no clock read for the definition */
  if (!k->c->defined && !vm_comm_subset (k->c, comm, vm_now ()))
    return 0;
  k->subset = k->c->subset;
  k->me = vm.rank;
  if (k->c != &vm.world)
    PMPI_Comm_rank (comm, &k->me);
  if (vm.on)
    __atomic_add_fetch (&vm.collectives, 1, __ATOMIC_RELAXED);
  return 1;
}

static int64_t
sum_bytes (int n, const int *counts, MPI_Datatype type)
{
  int64_t total = 0;
  for (int i = 0; i < n; i++)
    total += counts[i];
  return vm_bytes (1, type) * total;
}

#define ROOTED_BEGIN(ev, bytes) \
  VM_E (VM_BEGIN, (ev), vm_now (), 3, (bytes), vm_comm_world_rank (k.c, root), k.subset)
#define UNROOTED_BEGIN(ev, bytes) VM_E (VM_BEGIN, (ev), vm_now (), 2, (bytes), k.subset)
#define END(ev, bytes) VM_E (VM_END, (ev), vm_now (), 1, (bytes))

int
MPI_Barrier (MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Barrier (comm);
  VM_E (VM_BEGIN, VM_EV_BARRIER, vm_now (), 1, k.subset);
  int rc = PMPI_Barrier (comm);
  VM_E0 (VM_END, VM_EV_BARRIER, vm_now ());
  return rc;
}

int
MPI_Bcast (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Bcast (buffer, count, datatype, root, comm);
  int64_t b = vm_bytes (count, datatype);
  ROOTED_BEGIN (VM_EV_BCAST, b);
  int rc = PMPI_Bcast (buffer, count, datatype, root, comm);
  END (VM_EV_BCAST, b);
  return rc;
}

int
MPI_Reduce (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
            MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Reduce (sendbuf, recvbuf, count, datatype, op, root, comm);
  int64_t b = vm_bytes (count, datatype);
  ROOTED_BEGIN (VM_EV_REDUCE, b);
  int rc = PMPI_Reduce (sendbuf, recvbuf, count, datatype, op, root, comm);
  END (VM_EV_REDUCE, k.me == root ? b : -1);
  return rc;
}

int
MPI_Allreduce (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Allreduce (sendbuf, recvbuf, count, datatype, op, comm);
  UNROOTED_BEGIN (VM_EV_ALLREDUCE, vm_bytes (count, datatype));
  int rc = PMPI_Allreduce (sendbuf, recvbuf, count, datatype, op, comm);
  VM_E (VM_END, VM_EV_ALLREDUCE, vm_now (), 1, k.subset);
  return rc;
}

int
MPI_Gather (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Gather (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  int isroot = k.me == root;
  ROOTED_BEGIN (VM_EV_GATHER, sendbuf == MPI_IN_PLACE ? vm_bytes (recvcount, recvtype) : vm_bytes (sendcount, sendtype));
  int rc = PMPI_Gather (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  END (VM_EV_GATHER, isroot ? k.c->size * vm_bytes (recvcount, recvtype) : 0);
  return rc;
}

int
MPI_Gatherv (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
             const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Gatherv (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  int isroot = k.me == root;
  ROOTED_BEGIN (VM_EV_GATHER, sendbuf == MPI_IN_PLACE ? vm_bytes (recvcounts[k.me], recvtype)
                                                      : vm_bytes (sendcount, sendtype));
  int rc = PMPI_Gatherv (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  END (VM_EV_GATHER, isroot ? sum_bytes (k.c->size, recvcounts, recvtype) : 0);
  return rc;
}

int
MPI_Scatter (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Scatter (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  int isroot = k.me == root;
  ROOTED_BEGIN (VM_EV_SCATTER, isroot ? k.c->size * vm_bytes (sendcount, sendtype) : 0);
  int rc = PMPI_Scatter (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  END (VM_EV_SCATTER, recvbuf == MPI_IN_PLACE ? vm_bytes (sendcount, sendtype) : vm_bytes (recvcount, recvtype));
  return rc;
}

int
MPI_Scatterv (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Scatterv (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  int isroot = k.me == root;
  ROOTED_BEGIN (VM_EV_SCATTER, isroot ? sum_bytes (k.c->size, sendcounts, sendtype) : 0);
  int rc = PMPI_Scatterv (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  END (VM_EV_SCATTER, recvbuf == MPI_IN_PLACE ? vm_bytes (sendcounts[k.me], sendtype)
                                              : vm_bytes (recvcount, recvtype));
  return rc;
}

int
MPI_Allgather (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Allgather (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  UNROOTED_BEGIN (VM_EV_ALLGATHER, sendbuf == MPI_IN_PLACE ? vm_bytes (recvcount, recvtype)
                                                           : vm_bytes (sendcount, sendtype));
  int rc = PMPI_Allgather (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  END (VM_EV_ALLGATHER, k.c->size * vm_bytes (recvcount, recvtype));
  return rc;
}

int
MPI_Allgatherv (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Allgatherv (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  UNROOTED_BEGIN (VM_EV_ALLGATHER, sendbuf == MPI_IN_PLACE ? vm_bytes (recvcounts[k.me], recvtype)
                                                           : vm_bytes (sendcount, sendtype));
  int rc = PMPI_Allgatherv (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  END (VM_EV_ALLGATHER, sum_bytes (k.c->size, recvcounts, recvtype));
  return rc;
}

int
MPI_Alltoall (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Alltoall (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  int64_t in = k.c->size * vm_bytes (recvcount, recvtype);
  UNROOTED_BEGIN (VM_EV_ALLTOALL, sendbuf == MPI_IN_PLACE ? in : k.c->size * vm_bytes (sendcount, sendtype));
  int rc = PMPI_Alltoall (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  END (VM_EV_ALLTOALL, in);
  return rc;
}

int
MPI_Alltoallv (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
               void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Alltoallv (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  int64_t in = sum_bytes (k.c->size, recvcounts, recvtype);
  UNROOTED_BEGIN (VM_EV_ALLTOALL, sendbuf == MPI_IN_PLACE ? in : sum_bytes (k.c->size, sendcounts, sendtype));
  int rc = PMPI_Alltoallv (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  END (VM_EV_ALLTOALL, in);
  return rc;
}

int
MPI_Reduce_scatter (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Reduce_scatter (sendbuf, recvbuf, recvcounts, datatype, op, comm);
  UNROOTED_BEGIN (VM_EV_REDUCE_SCATTER, sum_bytes (k.c->size, recvcounts, datatype));
  int rc = PMPI_Reduce_scatter (sendbuf, recvbuf, recvcounts, datatype, op, comm);
  END (VM_EV_REDUCE_SCATTER, vm_bytes (recvcounts[k.me], datatype));
  return rc;
}

int
MPI_Scan (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
  Coll k;
  if (!coll_enter (comm, &k))
    return PMPI_Scan (sendbuf, recvbuf, count, datatype, op, comm);
  int64_t b = vm_bytes (count, datatype);
  UNROOTED_BEGIN (VM_EV_SCAN, b);
  int rc = PMPI_Scan (sendbuf, recvbuf, count, datatype, op, comm);
  END (VM_EV_SCAN, b);
  return rc;
}
