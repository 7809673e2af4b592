/* mpi-threads: under MPI_THREAD_MULTIPLE, THREADS threads per rank each
 * exchange N messages around the ring (own tag per thread), each through an
 * irecv, an isend and a waitall.  MPI recycles a completed request's handle
 * at once, often for another thread's next request: the tracer must not take
 * one for the other.  Prints one line on rank 0; exits 2 without
 * MPI_THREAD_MULTIPLE. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 3

static int rank, size;
static long n;

static void *
work (void *arg)
{
  int tag = (int) (long) arg, in = 0, out = 0;
  for (long i = 0; i < n; i++)
    {
      MPI_Request q[2];
      MPI_Irecv (&in, 1, MPI_INT, (rank + size - 1) % size, tag, MPI_COMM_WORLD, &q[0]);
      MPI_Isend (&out, 1, MPI_INT, (rank + 1) % size, tag, MPI_COMM_WORLD, &q[1]);
      MPI_Waitall (2, q, MPI_STATUSES_IGNORE);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  int provided;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE)
    {
      fprintf (stderr, "mpi-threads: no MPI_THREAD_MULTIPLE\n");
      MPI_Finalize ();
      return 2;
    }
  n = argc > 1 ? atol (argv[1]) : 1000;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; t++)
    pthread_create (&th[t], NULL, work, (void *) t);
  for (int t = 0; t < THREADS; t++)
    pthread_join (th[t], NULL);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    printf ("mpi-threads: %d threads x %ld messages per rank\n", THREADS, n);
  MPI_Finalize ();
  return 0;
}
