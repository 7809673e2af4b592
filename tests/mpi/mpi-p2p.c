/* mpi-p2p: every point-to-point call libviper-mpi records, on 4 ranks.
 *
 * A plain MPI program (it knows nothing of Viper); test_mpi.py runs it with
 * and without the library, compares its output and checks the trace.  Each
 * phase ends in a barrier so that phases do not mix.  Rank 0 prints a
 * checksum of everything it received: deterministic whatever the timing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;
static long checksum;

static void
check (int ok, const char *what)
{
  if (!ok)
    {
      fprintf (stderr, "mpi-p2p: rank %d: %s\n", rank, what);
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  check (size >= 2 && size % 2 == 0, "needs an even number of ranks");
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int v = rank * 10, w = -1;
  MPI_Status st;

  /* 1. ring with Send / Recv (MPI_ANY_TAG), then Ssend, Bsend */
  for (int kind = 0; kind < 3; kind++)
    {
      char bsendbuf[1024];
      if (kind == 2)
        MPI_Buffer_attach (bsendbuf, sizeof bsendbuf);
      for (int turn = 0; turn < 2; turn++)
        {
          if ((rank % 2) == turn)
            {
              if (kind == 0)
                MPI_Send (&v, 1, MPI_INT, right, 100 + kind, MPI_COMM_WORLD);
              else if (kind == 1)
                MPI_Ssend (&v, 1, MPI_INT, right, 100 + kind, MPI_COMM_WORLD);
              else
                MPI_Bsend (&v, 1, MPI_INT, right, 100 + kind, MPI_COMM_WORLD);
            }
          else
            {
              MPI_Recv (&w, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
              check (w == left * 10 && st.MPI_TAG == 100 + kind, "ring");
              checksum += w;
            }
        }
      if (kind == 2)
        {
          void *b;
          int bs;
          MPI_Buffer_detach (&b, &bs);
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);

  /* 2. MPI_ANY_SOURCE: everybody sends to 0, tags = rank */
  if (rank == 0)
    for (int i = 1; i < size; i++)
      {
        MPI_Recv (&w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        check (st.MPI_TAG == st.MPI_SOURCE && w == st.MPI_SOURCE * 10, "any source");
        checksum += w;
      }
  else
    MPI_Send (&v, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
  MPI_Barrier (MPI_COMM_WORLD);

  /* 3. Rsend: the receive is posted before the barrier */
  {
    MPI_Request r;
    int peer = rank ^ 1;
    if (rank % 2)
      MPI_Irecv (&w, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &r);
    MPI_Barrier (MPI_COMM_WORLD);
    if (rank % 2 == 0)
      MPI_Rsend (&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
    else
      {
        MPI_Wait (&r, MPI_STATUS_IGNORE);
        checksum += w;
      }
  }
  MPI_Barrier (MPI_COMM_WORLD);

  /* 4. Isend / Irecv ring, Waitall with statuses ignored; 3 messages double each */
  {
    double out[3] = { rank, rank + 0.5, rank + 0.25 }, in[3];
    MPI_Request r[6];
    for (int i = 0; i < 3; i++)
      MPI_Irecv (&in[i], 1, MPI_DOUBLE, left, 40 + i, MPI_COMM_WORLD, &r[i]);
    MPI_Isend (&out[0], 1, MPI_DOUBLE, right, 40, MPI_COMM_WORLD, &r[3]);
    MPI_Issend (&out[1], 1, MPI_DOUBLE, right, 41, MPI_COMM_WORLD, &r[4]);
    MPI_Isend (&out[2], 1, MPI_DOUBLE, right, 42, MPI_COMM_WORLD, &r[5]);
    MPI_Waitall (6, r, MPI_STATUSES_IGNORE);
    check (in[0] == left && in[1] == left + 0.5, "waitall");
    checksum += (long) (in[0] + in[1] + in[2]);
  }
  MPI_Barrier (MPI_COMM_WORLD);

  /* 5. Ibsend + Wait, Irsend after a posted receive + Test loop */
  {
    char bsendbuf[1024];
    MPI_Buffer_attach (bsendbuf, sizeof bsendbuf);
    MPI_Request r, rr;
    int peer = rank ^ 1;
    MPI_Irecv (&w, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rr);
    MPI_Barrier (MPI_COMM_WORLD);
    if (rank % 2 == 0)
      MPI_Ibsend (&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r);
    else
      MPI_Irsend (&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r);
    MPI_Wait (&r, &st);
    int flag = 0;
    for (long spins = 0; !flag; spins++)
      {
        MPI_Test (&rr, &flag, &st);
        check (spins < 2000000000L, "test loop never completed");
      }
    check (st.MPI_SOURCE == peer && w == peer * 10, "test");
    checksum += w;
    void *b;
    int bs;
    MPI_Buffer_detach (&b, &bs);
  }
  MPI_Barrier (MPI_COMM_WORLD);

  /* 6. Waitany at rank 0 (one receive from each rank), Testsome at rank 1 */
  if (rank == 0)
    {
      MPI_Request r[64];
      int in[64];
      for (int i = 1; i < size; i++)
        MPI_Irecv (&in[i], 1, MPI_INT, i, 6, MPI_COMM_WORLD, &r[i - 1]);
      for (int k = 1; k < size; k++)
        {
          int idx;
          MPI_Waitany (size - 1, r, &idx, &st);
          check (idx + 1 == st.MPI_SOURCE && in[idx + 1] == st.MPI_SOURCE * 10, "waitany");
          checksum += in[idx + 1];
        }
    }
  else
    MPI_Send (&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
  if (rank == 1)
    {
      MPI_Request r[64];
      int in[64], done = 0, idx[64];
      for (int i = 0; i < size; i++)
        if (i != 1)
          MPI_Irecv (&in[i], 1, MPI_INT, i, 7, MPI_COMM_WORLD, &r[i]);
        else
          r[i] = MPI_REQUEST_NULL;
      for (long spins = 0; done < size - 1; spins++)
        {
          int n;
          MPI_Testsome (size, r, &n, idx, MPI_STATUSES_IGNORE);
          done += n > 0 ? n : 0;
          check (spins < 2000000000L, "testsome never completed");
        }
    }
  else
    {
      MPI_Request r;
      int flag = 0;
      MPI_Isend (&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r);
      for (long spins = 0; !flag; spins++)
        {
          MPI_Testall (1, &r, &flag, MPI_STATUSES_IGNORE);
          check (spins < 2000000000L, "testall never completed");
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);

  /* 7. Testany and Waitsome at rank 2 (from 0 and 1) */
  if (rank == 2)
    {
      MPI_Request r[2];
      int in[2], idx[2], n, got = 0;
      MPI_Irecv (&in[0], 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv (&in[1], 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &r[1]);
      int index, flag = 0;
      for (long spins = 0; !flag; spins++)
        {
          MPI_Testany (2, r, &index, &flag, &st);
          check (spins < 2000000000L, "testany never completed");
        }
      got++;
      while (got < 2)
        {
          MPI_Waitsome (2, r, &n, idx, MPI_STATUSES_IGNORE);
          got += n;
        }
      checksum += in[0] + in[1];
    }
  else if (rank < 2)
    MPI_Send (&v, 1, MPI_INT, 2, 8, MPI_COMM_WORLD);
  MPI_Barrier (MPI_COMM_WORLD);

  /* 8. probes: Probe + Recv, Iprobe loop + Recv, Mprobe + Mrecv, Improbe + Imrecv */
  for (int kind = 0; kind < 4; kind++)
    {
      if (rank % 2 == 0)
        {
          int data[3] = { v, v + 1, v + 2 };
          MPI_Send (data, 3, MPI_INT, rank + 1, 80 + kind, MPI_COMM_WORLD);
        }
      else
        {
          int data[3], count, flag = 0;
          MPI_Message m;
          MPI_Request r;
          if (kind == 0)
            MPI_Probe (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
          else if (kind == 1)
            for (long spins = 0; !flag; spins++)
              {
                MPI_Iprobe (rank - 1, 81, MPI_COMM_WORLD, &flag, &st);
                check (spins < 2000000000L, "iprobe never found");
              }
          else if (kind == 2)
            MPI_Mprobe (rank - 1, 82, MPI_COMM_WORLD, &m, &st);
          else
            for (long spins = 0; !flag; spins++)
              {
                MPI_Improbe (MPI_ANY_SOURCE, 83, MPI_COMM_WORLD, &flag, &m, &st);
                check (spins < 2000000000L, "improbe never found");
              }
          MPI_Get_count (&st, MPI_INT, &count);
          check (count == 3 && st.MPI_SOURCE == rank - 1, "probe");
          if (kind < 2)
            MPI_Recv (data, 3, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
          else if (kind == 2)
            MPI_Mrecv (data, 3, MPI_INT, &m, &st);
          else
            {
              MPI_Imrecv (data, 3, MPI_INT, &m, &r);
              MPI_Wait (&r, &st);
            }
          checksum += data[0] + data[1] + data[2];
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);

  /* 9. Sendrecv and Sendrecv_replace around the ring */
  MPI_Sendrecv (&v, 1, MPI_INT, right, 9, &w, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &st);
  check (w == left * 10, "sendrecv");
  checksum += w;
  w = v;
  MPI_Sendrecv_replace (&w, 1, MPI_INT, right, 10, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check (w == left * 10, "sendrecv_replace");
  checksum += w;
  MPI_Barrier (MPI_COMM_WORLD);

  /* 10. persistent requests: three rounds of Startall + Waitall, one Start + Wait */
  {
    MPI_Request r[2];
    int out = v, in = -1;
    MPI_Send_init (&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init (&in, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &r[1]);
    for (int round = 0; round < 3; round++)
      {
        out = v + round;
        MPI_Startall (2, r);
        MPI_Waitall (2, r, MPI_STATUSES_IGNORE);
        check (in == left * 10 + round, "persistent");
        checksum += in;
      }
    MPI_Start (&r[1]);
    MPI_Start (&r[0]);
    MPI_Wait (&r[0], MPI_STATUS_IGNORE);
    MPI_Wait (&r[1], MPI_STATUS_IGNORE);
    MPI_Request_free (&r[0]);
    MPI_Request_free (&r[1]);
  }
  MPI_Barrier (MPI_COMM_WORLD);

  /* 11. a cancelled receive, and MPI_PROC_NULL (neither is a message) */
  {
    MPI_Request r;
    int cancelled = 0;
    MPI_Irecv (&w, 1, MPI_INT, right, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel (&r);
    MPI_Wait (&r, &st);
    MPI_Test_cancelled (&st, &cancelled);
    check (cancelled, "cancel");
    MPI_Send (&v, 1, MPI_INT, MPI_PROC_NULL, 12, MPI_COMM_WORLD);
    MPI_Recv (&w, 1, MPI_INT, MPI_PROC_NULL, 12, MPI_COMM_WORLD, &st);
  }
  MPI_Barrier (MPI_COMM_WORLD);

  /* 12. point-to-point on a split communicator: ranks are translated */
  {
    MPI_Comm half;
    int hr, hs;
    MPI_Comm_split (MPI_COMM_WORLD, rank % 2, -rank, &half);   /* reversed order */
    MPI_Comm_rank (half, &hr);
    MPI_Comm_size (half, &hs);
    int x = rank;
    if (hr == 0)
      for (int i = 1; i < hs; i++)
        {
          MPI_Recv (&w, 1, MPI_INT, MPI_ANY_SOURCE, 13, half, &st);
          checksum += w;
        }
    else
      MPI_Send (&x, 1, MPI_INT, 0, 13, half);
    MPI_Comm_free (&half);
  }
  MPI_Barrier (MPI_COMM_WORLD);

  long total = 0;
  MPI_Reduce (&checksum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf ("mpi-p2p: %d ranks, checksum %ld\n", size, total);
  MPI_Finalize ();
  return 0;
}
