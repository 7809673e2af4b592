/* mpi-flood: N barriers (2 records each) as fast as MPI allows, to fill a
 * live connection whose viewer does not read. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  long n = argc > 1 ? atol (argv[1]) : 100000;
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  for (long i = 0; i < n; i++)
    MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    printf ("mpi-flood: %ld barriers\n", n);
  MPI_Finalize ();
  return 0;
}
