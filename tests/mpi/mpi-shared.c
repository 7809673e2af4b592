/* mpi-shared: small non-blocking sends round a ring, completed in every
 * way.  Open MPI 4.1 gives a send of one int that completes at once one
 * shared, already completed request (ompi_request_empty): the three
 * handles of three MPI_Isend are equal.  Each of those sends is still a
 * request of the program's and must get its own wait in the trace
 * (test_mpi.py, case shared).
 *
 * Each rank receives from the previous one and sends to the next, one
 * phase per tag:
 *   1  Irecv x3, Isend x3, Waitall on the sends, Waitall on the receives
 *   2  the same, MPI_Wait on each request
 *   3  Waitany on the sends until none is left, Testsome on the receives
 *   4  Testsome on the sends, Waitany on the receives
 *   5  one Waitall over sends and receives interleaved
 *   6  Isend x2, MPI_Request_free on the first, MPI_Wait on the second;
 *      the receiver uses MPI_Recv
 *   7  Isend x2, MPI_Wait on the first only (the second is never
 *      completed); the receiver uses MPI_Recv
 * and says how many sends and receives it completed with a completion
 * call, and whether its sends shared handles. */
#include <mpi.h>
#include <stdio.h>

static int waited_sends, waited_recvs, shared;

static void
post (int tag, int prev, int next, int *in, const int *out, MPI_Request *r, MPI_Request *s)
{
  for (int i = 0; i < 3; i++)
    MPI_Irecv (&in[i], 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &r[i]);
  for (int i = 0; i < 3; i++)
    MPI_Isend (&out[i], 1, MPI_INT, next, tag, MPI_COMM_WORLD, &s[i]);
  if (s[0] == s[1] || s[1] == s[2])
    shared = 1;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out[3] = { rank, rank + 10, rank + 20 }, in[3], sum = 0;
  MPI_Request r[3], s[3], all[6];

  /* 1: the tester's program */
  post (1, prev, next, in, out, r, s);
  MPI_Waitall (3, s, MPI_STATUSES_IGNORE);
  MPI_Waitall (3, r, MPI_STATUSES_IGNORE);
  waited_sends += 3;
  waited_recvs += 3;
  sum += in[0] + in[1] + in[2];

  /* 2: a wait per request */
  post (2, prev, next, in, out, r, s);
  for (int i = 0; i < 3; i++)
    MPI_Wait (&s[i], MPI_STATUS_IGNORE);
  for (int i = 0; i < 3; i++)
    MPI_Wait (&r[i], MPI_STATUS_IGNORE);
  waited_sends += 3;
  waited_recvs += 3;
  sum += in[0] + in[1] + in[2];

  /* 3: Waitany on the sends, Testsome on the receives */
  post (3, prev, next, in, out, r, s);
  for (int idx = 0;;)
    {
      MPI_Waitany (3, s, &idx, MPI_STATUS_IGNORE);
      if (idx == MPI_UNDEFINED)
        break;
      waited_sends++;
    }
  for (int outcount = 0, ind[3];;)
    {
      MPI_Testsome (3, r, &outcount, ind, MPI_STATUSES_IGNORE);
      if (outcount == MPI_UNDEFINED)
        break;
      waited_recvs += outcount;
    }
  sum += in[0] + in[1] + in[2];

  /* 4: Testsome on the sends, Waitany on the receives */
  post (4, prev, next, in, out, r, s);
  for (int outcount = 0, ind[3];;)
    {
      MPI_Testsome (3, s, &outcount, ind, MPI_STATUSES_IGNORE);
      if (outcount == MPI_UNDEFINED)
        break;
      waited_sends += outcount;
    }
  for (int idx = 0;;)
    {
      MPI_Waitany (3, r, &idx, MPI_STATUS_IGNORE);
      if (idx == MPI_UNDEFINED)
        break;
      waited_recvs++;
    }
  sum += in[0] + in[1] + in[2];

  /* 5: one Waitall, sends and receives interleaved */
  post (5, prev, next, in, out, r, s);
  for (int i = 0; i < 3; i++)
    {
      all[2 * i] = s[i];
      all[2 * i + 1] = r[i];
    }
  MPI_Waitall (6, all, MPI_STATUSES_IGNORE);
  waited_sends += 3;
  waited_recvs += 3;
  sum += in[0] + in[1] + in[2];

  /* 6: one send freed, one waited for */
  MPI_Isend (&out[0], 1, MPI_INT, next, 6, MPI_COMM_WORLD, &s[0]);
  MPI_Isend (&out[1], 1, MPI_INT, next, 6, MPI_COMM_WORLD, &s[1]);
  shared |= s[0] == s[1];
  MPI_Request_free (&s[0]);
  MPI_Wait (&s[1], MPI_STATUS_IGNORE);
  waited_sends++;
  MPI_Recv (&in[0], 1, MPI_INT, prev, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv (&in[1], 1, MPI_INT, prev, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  sum += in[0] + in[1];

  /* 7: a send never completed by the program (with a shared handle it
   * is complete already; a real request of one int has gone eagerly) */
  MPI_Isend (&out[0], 1, MPI_INT, next, 7, MPI_COMM_WORLD, &s[0]);
  MPI_Isend (&out[1], 1, MPI_INT, next, 7, MPI_COMM_WORLD, &s[1]);
  shared |= s[0] == s[1];
  MPI_Wait (&s[0], MPI_STATUS_IGNORE);
  waited_sends++;
  MPI_Recv (&in[0], 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv (&in[1], 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  sum += in[0] + in[1];

  MPI_Barrier (MPI_COMM_WORLD);
  printf ("rank %d: waited sends %d receives %d shared %d sum %d\n", rank, waited_sends, waited_recvs, shared,
          sum);
  MPI_Finalize ();
  return 0;
}
