/* mpi-order: receives of one channel completed out of the order they were
 * posted in, on 2 ranks.
 *
 * MPI matches the messages of one channel (source, tag, communicator) to the
 * receives in the order the receives were posted (non-overtaking): when rank
 * 1 sends a short message and then a long one, the receive posted first gets
 * the short one, whichever the program waits for first.  Each phase below
 * posts its receives at rank 0, then rank 1 sends (after a barrier, so that
 * every receive is posted first), a second barrier lets the messages arrive,
 * and rank 0 completes the receives in reverse post order with one of the
 * completion calls.  Every phase has its own tag.  Rank 0 checks the sizes
 * MPI reports (so the program itself verifies what the trace must say) and
 * prints them; test_mpi.py checks that the trace pairs every receive end
 * with the send of the same size.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BIG 25000            /* ints: 100,000 bytes, past the eager limits of shared memory and TCP */

static int rank;
static int a[BIG], b[BIG], c[BIG], out[BIG];

static void
check (int ok, const char *what)
{
  if (!ok)
    {
      fprintf (stderr, "mpi-order: rank %d: %s\n", rank, what);
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
}

static int
count_of (const MPI_Status *st)
{
  int n = -1;
  MPI_Get_count (st, MPI_INT, &n);
  return n;
}

/* rank 1: send the counts given (ints), all with TAG, between the barriers */
static void
send_between (int tag, int n1, int n2)
{
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 1)
    {
      MPI_Send (out, n1, MPI_INT, 0, tag, MPI_COMM_WORLD);
      if (n2 >= 0)
        MPI_Send (out, n2, MPI_INT, 0, tag, MPI_COMM_WORLD);
    }
  MPI_Barrier (MPI_COMM_WORLD);
}

static void
said (const char *phase, int first, int second)
{
  printf ("%s: first posted %d, second posted %d\n", phase, first, second);
  check (first == 1 && second == 100, "MPI did not match in post order (first 1 int, then 100)");
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  check (size == 2, "needs 2 ranks");
  MPI_Request r[3], q[3];
  MPI_Status st[3];
  int idx, flag, n, ids[3];

  /* 1. Wait(B), then Wait(A) */
  if (rank == 0)
    {
      MPI_Irecv (a, 200, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, 200, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[1]);
    }
  send_between (1, 1, 100);
  if (rank == 0)
    {
      MPI_Wait (&r[1], &st[1]);
      MPI_Wait (&r[0], &st[0]);
      said ("wait", count_of (&st[0]), count_of (&st[1]));
    }

  /* 2. Waitall({B, A}) */
  if (rank == 0)
    {
      MPI_Irecv (a, 200, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, 200, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[1]);
    }
  send_between (2, 1, 100);
  if (rank == 0)
    {
      q[0] = r[1];
      q[1] = r[0];
      MPI_Waitall (2, q, st);
      said ("waitall", count_of (&st[1]), count_of (&st[0]));
    }

  /* 3. Waitany({B, A}) twice: both are complete, it returns B first */
  if (rank == 0)
    {
      int got[2] = { -1, -1 };
      MPI_Irecv (a, 200, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, 200, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[1]);
      q[0] = r[1];
      q[1] = r[0];
      send_between (3, 1, 100);
      for (int i = 0; i < 2; i++)
        {
          MPI_Waitany (2, q, &idx, &st[0]);
          got[1 - idx] = count_of (&st[0]);
        }
      said ("waitany", got[0], got[1]);
    }
  else
    send_between (3, 1, 100);

  /* 4. Testsome({B, A}) until both are done */
  if (rank == 0)
    {
      int got[2] = { -1, -1 }, left = 2;
      MPI_Irecv (a, 200, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, 200, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[1]);
      q[0] = r[1];
      q[1] = r[0];
      send_between (4, 1, 100);
      while (left > 0)
        {
          MPI_Testsome (2, q, &n, ids, st);
          for (int i = 0; i < n; i++)
            got[1 - ids[i]] = count_of (&st[i]);
          left -= n;
        }
      said ("testsome", got[0], got[1]);
    }
  else
    send_between (4, 1, 100);

  /* 5. Testany({B, A}) and Waitsome({B, A}) */
  if (rank == 0)
    {
      int got[2] = { -1, -1 }, left = 2;
      MPI_Irecv (a, 200, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, 200, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[1]);
      q[0] = r[1];
      q[1] = r[0];
      send_between (5, 1, 100);
      do
        MPI_Testany (2, q, &idx, &flag, &st[0]);
      while (!flag);
      got[1 - idx] = count_of (&st[0]);
      left--;
      while (left > 0)
        {
          MPI_Waitsome (2, q, &n, ids, st);
          for (int i = 0; i < n; i++)
            got[1 - ids[i]] = count_of (&st[i]);
          left -= n;
        }
      said ("testany+waitsome", got[0], got[1]);
    }
  else
    send_between (5, 1, 100);

  /* 6. Test(B) until done, then Test(A) until done */
  if (rank == 0)
    {
      MPI_Irecv (a, 200, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, 200, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[1]);
      send_between (6, 1, 100);
      do
        MPI_Test (&r[1], &flag, &st[1]);
      while (!flag);
      do
        MPI_Test (&r[0], &flag, &st[0]);
      while (!flag);
      said ("test", count_of (&st[0]), count_of (&st[1]));
    }
  else
    send_between (6, 1, 100);

  /* 7. A from any source, B from rank 1: A gets the first message */
  if (rank == 0)
    {
      MPI_Irecv (a, 200, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, 200, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[1]);
    }
  send_between (7, 1, 100);
  if (rank == 0)
    {
      MPI_Wait (&r[1], &st[1]);
      MPI_Wait (&r[0], &st[0]);
      said ("any source", count_of (&st[0]), count_of (&st[1]));
    }

  /* 8. A with any tag, B with tag 8 */
  if (rank == 0)
    {
      MPI_Irecv (a, 200, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, 200, MPI_INT, 1, 8, MPI_COMM_WORLD, &r[1]);
    }
  send_between (8, 1, 100);
  if (rank == 0)
    {
      MPI_Wait (&r[1], &st[1]);
      MPI_Wait (&r[0], &st[0]);
      said ("any tag", count_of (&st[0]), count_of (&st[1]));
    }

  /* 9. persistent receives, started twice: Wait(B), Wait(A); Waitall({B, A}) */
  if (rank == 0)
    {
      MPI_Recv_init (a, 200, MPI_INT, 1, 9, MPI_COMM_WORLD, &r[0]);
      MPI_Recv_init (b, 200, MPI_INT, 1, 9, MPI_COMM_WORLD, &r[1]);
      for (int round = 0; round < 2; round++)
        {
          MPI_Startall (2, r);
          send_between (9, 1, 100);
          if (round == 0)
            {
              MPI_Wait (&r[1], &st[1]);
              MPI_Wait (&r[0], &st[0]);
            }
          else
            {
              q[0] = r[1];
              q[1] = r[0];
              MPI_Waitall (2, q, st);
              MPI_Status t = st[0];
              st[0] = st[1];
              st[1] = t;
            }
          said ("persistent", count_of (&st[0]), count_of (&st[1]));
        }
      MPI_Request_free (&r[0]);
      MPI_Request_free (&r[1]);
    }
  else
    {
      send_between (9, 1, 100);
      send_between (9, 1, 100);
    }

  /* 10. a cancelled receive between A and B: Wait(B), Wait(X), Wait(A) */
  if (rank == 0)
    {
      MPI_Irecv (a, 200, MPI_INT, 1, 10, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (c, 200, MPI_INT, 1, 10, MPI_COMM_WORLD, &r[2]);
      MPI_Irecv (b, 200, MPI_INT, 1, 10, MPI_COMM_WORLD, &r[1]);
      MPI_Cancel (&r[2]);
    }
  send_between (10, 1, 100);
  if (rank == 0)
    {
      MPI_Wait (&r[1], &st[1]);
      MPI_Wait (&r[2], &st[2]);
      MPI_Wait (&r[0], &st[0]);
      MPI_Test_cancelled (&st[2], &flag);
      check (flag, "the receive between was not cancelled");
      said ("cancelled between", count_of (&st[0]), count_of (&st[1]));
    }

  /* 11. A gets a long message (rendezvous, still arriving), B a short one */
  if (rank == 0)
    {
      MPI_Irecv (a, BIG, MPI_INT, 1, 11, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (b, BIG, MPI_INT, 1, 11, MPI_COMM_WORLD, &r[1]);
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Wait (&r[1], &st[1]);
      MPI_Wait (&r[0], &st[0]);
      printf ("long first: first posted %d, second posted %d\n", count_of (&st[0]), count_of (&st[1]));
      check (count_of (&st[0]) == BIG && count_of (&st[1]) == 1, "MPI did not match in post order (long first)");
    }
  else
    {
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Request s[2];
      MPI_Isend (out, BIG, MPI_INT, 0, 11, MPI_COMM_WORLD, &s[0]);
      MPI_Isend (out, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &s[1]);
      MPI_Waitall (2, s, MPI_STATUSES_IGNORE);
    }

  /* 12. Irecv A, then a blocking Recv on the same channel, then Wait(A) */
  if (rank == 0)
    {
      MPI_Irecv (a, 200, MPI_INT, 1, 12, MPI_COMM_WORLD, &r[0]);
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Recv (b, 200, MPI_INT, 1, 12, MPI_COMM_WORLD, &st[1]);
      MPI_Wait (&r[0], &st[0]);
      said ("recv", count_of (&st[0]), count_of (&st[1]));
    }
  else
    {
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Send (out, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
      MPI_Send (out, 100, MPI_INT, 0, 12, MPI_COMM_WORLD);
    }

  /* 13. Irecv A, then Sendrecv receiving on the same channel, then Wait(A) */
  if (rank == 0)
    {
      MPI_Irecv (a, 200, MPI_INT, 1, 13, MPI_COMM_WORLD, &r[0]);
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Sendrecv (out, 3, MPI_INT, 1, 14, b, 200, MPI_INT, 1, 13, MPI_COMM_WORLD, &st[1]);
      MPI_Wait (&r[0], &st[0]);
      said ("sendrecv", count_of (&st[0]), count_of (&st[1]));
    }
  else
    {
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Send (out, 1, MPI_INT, 0, 13, MPI_COMM_WORLD);
      MPI_Sendrecv (out, 100, MPI_INT, 0, 13, c, 3, MPI_INT, 0, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
