/* mpi-coll: every collective libviper-mpi records, on MPI_COMM_WORLD and on
 * communicators made by Comm_split (two disjoint halves), Comm_dup,
 * Comm_create and Cart_create, on 4 ranks.  A plain MPI program; rank 0
 * prints what it computed (deterministic). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int wrank;

static long
all_collectives (MPI_Comm comm)
{
  int rank, size;
  MPI_Comm_rank (comm, &rank);
  MPI_Comm_size (comm, &size);
  long acc = 0;
  int v = wrank + 1, sum = 0;
  int *buf = calloc ((size_t) size * 4, sizeof (int)), *counts = calloc ((size_t) size, sizeof (int)),
      *displs = calloc ((size_t) size, sizeof (int));
  for (int i = 0; i < size; i++)
    {
      counts[i] = 1 + i % 2;
      displs[i] = 2 * i;
    }
  int root = size - 1;

  MPI_Barrier (comm);
  int b = rank == root ? 42 : 0;
  MPI_Bcast (&b, 1, MPI_INT, root, comm);
  acc += b;
  MPI_Reduce (&v, &sum, 1, MPI_INT, MPI_SUM, root, comm);
  if (rank == root)
    acc += sum;
  MPI_Allreduce (&v, &sum, 1, MPI_INT, MPI_MAX, comm);
  acc += sum;
  MPI_Gather (&v, 1, MPI_INT, buf, 1, MPI_INT, 0, comm);
  if (rank == 0)
    for (int i = 0; i < size; i++)
      acc += buf[i];
  int two[2] = { v, v };
  MPI_Gatherv (two, counts[rank], MPI_INT, buf, counts, displs, MPI_INT, root, comm);
  for (int i = 0; i < size * 2; i++)
    buf[i] = i;
  MPI_Scatter (buf, 1, MPI_INT, &b, 1, MPI_INT, 0, comm);
  acc += b;
  MPI_Scatterv (buf, counts, displs, MPI_INT, two, counts[rank], MPI_INT, root, comm);
  acc += two[0];
  MPI_Allgather (&v, 1, MPI_INT, buf, 1, MPI_INT, comm);
  acc += buf[size - 1];
  MPI_Allgatherv (two, counts[rank], MPI_INT, buf, counts, displs, MPI_INT, comm);
  int *sendv = calloc ((size_t) size * 2, sizeof (int));
  for (int i = 0; i < size * 2; i++)
    sendv[i] = v * 100 + i;
  MPI_Alltoall (sendv, 1, MPI_INT, buf, 1, MPI_INT, comm);
  acc += buf[0];
  int *sc = calloc ((size_t) size, sizeof (int));
  for (int i = 0; i < size; i++)
    sc[i] = counts[rank];   /* what every rank expects from me */
  MPI_Alltoallv (sendv, sc, displs, MPI_INT, buf, counts, displs, MPI_INT, comm);
  free (sc);
  int *rc = calloc ((size_t) size, sizeof (int));
  for (int i = 0; i < size; i++)
    rc[i] = 1;
  MPI_Reduce_scatter (sendv, &b, rc, MPI_INT, MPI_SUM, comm);
  acc += b;
  MPI_Scan (&v, &sum, 1, MPI_INT, MPI_SUM, comm);
  acc += sum;
  MPI_Allreduce (MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, comm);
  acc += v;
  free (buf);
  free (counts);
  free (displs);
  free (sendv);
  free (rc);
  return acc;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int size;
  MPI_Comm_rank (MPI_COMM_WORLD, &wrank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  long acc = all_collectives (MPI_COMM_WORLD);

  MPI_Comm half, dup, first3, cart;
  MPI_Comm_split (MPI_COMM_WORLD, wrank % 2, wrank, &half);
  acc += all_collectives (half);
  acc += all_collectives (half);   /* the second round on the same subset */
  MPI_Comm_dup (MPI_COMM_WORLD, &dup);
  acc += all_collectives (dup);

  MPI_Group wg, g3;
  int three[3] = { 0, 1, 2 };
  MPI_Comm_group (MPI_COMM_WORLD, &wg);
  MPI_Group_incl (wg, 3, three, &g3);
  MPI_Comm_create (MPI_COMM_WORLD, g3, &first3);
  if (first3 != MPI_COMM_NULL)
    {
      acc += all_collectives (first3);
      MPI_Comm_free (&first3);
    }
  MPI_Group_free (&g3);
  MPI_Group_free (&wg);

  int dims[1] = { size }, periods[1] = { 1 };
  MPI_Cart_create (MPI_COMM_WORLD, 1, dims, periods, 1, &cart);
  MPI_Barrier (cart);
  MPI_Comm_free (&cart);

  /* the halves again after other communicators came and went */
  acc += all_collectives (half);
  MPI_Comm_free (&half);
  MPI_Comm_free (&dup);

  long total = 0;
  MPI_Reduce (&acc, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (wrank == 0)
    printf ("mpi-coll: %d ranks, total %ld\n", size, total);
  MPI_Finalize ();
  return 0;
}
