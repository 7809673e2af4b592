/* mpi-hosts: a plain MPI program for the multi-host test.  Each rank names the
 * network namespace it runs in (the inode of /proc/self/ns/net: one per
 * "host" when the hosts are namespaces) and rank 0 prints them all, so the
 * test can check that the ranks really ran on different hosts.  Then a ring
 * exchange, any-source receives from every rank at rank 0, non-blocking
 * pairs with a Waitall, and collectives, all across those hosts.  The output
 * is deterministic for a given placement. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);

  struct stat st;
  long long ns = stat ("/proc/self/ns/net", &st) == 0 ? (long long) st.st_ino : -1;
  long long all[256];
  if (size > 256)
    MPI_Abort (MPI_COMM_WORLD, 2);
  MPI_Gather (&ns, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);

  /* a ring, both ways, a few rounds */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  long acc = 0;
  for (int round = 0; round < 5; round++)
    {
      int out = rank * 100 + round, in = -1;
      MPI_Sendrecv (&out, 1, MPI_INT, next, 10 + round, &in, 1, MPI_INT, prev, 10 + round, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
      acc += in;
      MPI_Sendrecv (&out, 1, MPI_INT, prev, 20 + round, &in, 1, MPI_INT, next, 20 + round, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
      acc += in;
    }

  /* every rank reports to rank 0, received from any source */
  if (rank == 0)
    for (int i = 1; i < size; i++)
      {
        long v;
        MPI_Recv (&v, 1, MPI_LONG, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        acc += v;
      }
  else
    MPI_Send (&acc, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD);

  /* non-blocking pairs across the halves, completed together */
  int peer = (rank + size / 2) % size, a = rank, b = -1;
  MPI_Request req[2];
  MPI_Irecv (&b, 1, MPI_INT, peer, 30, MPI_COMM_WORLD, &req[0]);
  MPI_Isend (&a, 1, MPI_INT, peer, 30, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall (2, req, MPI_STATUSES_IGNORE);

  long total = 0;
  MPI_Allreduce (&acc, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    {
      for (int i = 0; i < size; i++)
        printf ("rank %d netns %lld\n", i, all[i]);
      printf ("total %ld\n", total);
      fflush (stdout);
    }
  MPI_Finalize ();
  return 0;
}
