/* mpi-hang: rank 1 sends rank 0 one message (tag 1); rank 0 receives it,
 * says its pid on standard output, and then waits forever in MPI_Recv for a
 * message nobody sends (tag 2).  The other ranks wait in MPI_Barrier.  The
 * job ends only when it is torn down (test_mpi.py, case teardown). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, v = 7;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (rank == 1)
    MPI_Send (&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  else if (rank == 0)
    {
      MPI_Recv (&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf ("rank 0 pid %d\n", (int) getpid ());
      fflush (stdout);
      MPI_Recv (&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
