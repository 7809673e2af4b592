/* mpi-spawn: a world of N ranks spawns 2 more processes (MPI_Comm_spawn).
 * Parent rank 0 sends to both children over the intercommunicator; the
 * parents and the children merge it (MPI_Intercomm_merge) and meet in a
 * barrier and an allreduce on the merged communicator, where parent rank 1
 * also sends to a child; the parents ring messages on their own world, the
 * children hold a barrier on theirs.  Prints what every world did. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPI_Comm parent, inter, merged;
  MPI_Comm_get_parent (&parent);
  int rank, size, x = 7, sum = 0;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (parent == MPI_COMM_NULL)
    {
      int errs[2];
      MPI_Comm_spawn (argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
      if (rank == 0)
        for (int c = 0; c < 2; c++)
          MPI_Send (&x, 1, MPI_INT, c, 5, inter);
      MPI_Intercomm_merge (inter, 0, &merged);
      /* merged: parents 0..size-1, then the children */
      if (rank == 1 % size)
        MPI_Send (&x, 1, MPI_INT, size, 6, merged);
      MPI_Barrier (merged);
      MPI_Allreduce (&x, &sum, 1, MPI_INT, MPI_SUM, merged);
      for (int i = 0; i < 3; i++)
        {
          MPI_Sendrecv_replace (&x, 1, MPI_INT, (rank + 1) % size, 1, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE);
        }
      MPI_Barrier (MPI_COMM_WORLD);
      printf ("parent %d of %d: sum %d\n", rank, size, sum);
    }
  else
    {
      int psize;
      MPI_Comm_remote_size (parent, &psize);
      MPI_Recv (&x, 1, MPI_INT, 0, 5, parent, MPI_STATUS_IGNORE);
      MPI_Intercomm_merge (parent, 1, &merged);
      if (rank == 0)
        MPI_Recv (&x, 1, MPI_INT, 1 % psize, 6, merged, MPI_STATUS_IGNORE);
      MPI_Barrier (merged);
      MPI_Allreduce (&x, &sum, 1, MPI_INT, MPI_SUM, merged);
      MPI_Barrier (MPI_COMM_WORLD);
      printf ("child %d of %d: sum %d\n", rank, size, sum);
      inter = parent;
    }
  MPI_Comm_free (&merged);
  MPI_Comm_disconnect (&inter);
  MPI_Finalize ();
  return 0;
}
