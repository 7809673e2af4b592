/* bench-mpi: the MPI program bench-mpi.py runs with and without libviper-mpi.
 *   pingpong N : ranks 0 and 1 bounce an 8-byte message N times (after a
 *                warm-up); rank 0 prints the mean round trip in microseconds
 *   records N  : one rank calls MPI_Bcast on MPI_COMM_WORLD (size 1) N times,
 *                a call MPI does at once, so with the library the time is
 *                almost all recording (2 records per call); prints CPU ns/call
 * Best of 5 repetitions: the machine is shared. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "pingpong";
  long n = argc > 2 ? atol (argv[2]) : 20000;
  double best = 1e30;
  char msg[8] = { 0 };
  for (int rep = 0; rep < 5; rep++)
    {
      if (strcmp (mode, "pingpong") == 0)
        {
          MPI_Barrier (MPI_COMM_WORLD);
          double t0 = MPI_Wtime ();
          for (long i = 0; i < n; i++)
            if (rank == 0)
              {
                MPI_Send (msg, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv (msg, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
              }
            else if (rank == 1)
              {
                MPI_Recv (msg, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send (msg, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
              }
          double t = (MPI_Wtime () - t0) / (double) n * 1e6;
          if (t < best)
            best = t;
        }
      else
        {
          /* CPU time of the process (user + system, so the file writes count):
           * unlike wall time it does not grow when a busy machine preempts us */
          struct timespec a, b;
          clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &a);
          for (long i = 0; i < n; i++)
            MPI_Bcast (msg, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
          clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &b);
          double t = ((double) (b.tv_sec - a.tv_sec) * 1e9 + (double) (b.tv_nsec - a.tv_nsec)) / (double) n;
          if (t < best)
            best = t;
        }
    }
  if (rank == 0)
    printf ("%s %ld %.4f\n", mode, n, best);
  MPI_Finalize ();
  return 0;
}
