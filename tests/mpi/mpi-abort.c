/* mpi-abort: rank 1 sends 5 messages to rank 0, then dies: by MPI_Abort
 * ("abort") or by a fatal signal ("segv").  Its trace must still hold the
 * 5 sends and end with -4 -901. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, v = 7;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  const char *mode = argc > 1 ? argv[1] : "abort";
  if (rank == 1)
    for (int i = 0; i < 5; i++)
      MPI_Send (&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
  else if (rank == 0)
    for (int i = 0; i < 5; i++)
      MPI_Recv (&v, 1, MPI_INT, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 1)
    {
      if (strcmp (mode, "segv") == 0)
        {
          struct rlimit no_core = { 0, 0 };
          setrlimit (RLIMIT_CORE, &no_core);
          raise (SIGSEGV);
        }
      MPI_Abort (MPI_COMM_WORLD, 3);
    }
  MPI_Barrier (MPI_COMM_WORLD);   /* the others wait here until the job is torn down */
  MPI_Finalize ();
  return 0;
}
