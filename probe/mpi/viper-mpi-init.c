/* viper-mpi-init.c - the life of a traced rank: Init, Finalize, Abort.
 *
 * Time base: every rank reads CLOCK_REALTIME; rank 0's reading at the end of
 * MPI_Init is broadcast and subtracted by every rank, so times are small and
 * the true offsets between hosts' clocks stay visible in the trace.
 *
 * Clock synchronisation (the POM method: offset measured before and after
 * the run, drift between): at Init and at Finalize every rank but 0 does a
 * few ping-pongs with rank 0 on the library's private communicator and
 * records each as `-6 -951 T P 0 4 2 0 T1 TR T2` (ns).
 *
 * Cross-check: at Finalize every rank writes its counts as a comment at the
 * end of its trace, and rank 0 gathers them and prints one line per rank on
 * standard error (`viper-mpi: rank R: sent S received V collectives C
 * records N dropped D`), which the tests compare with the replay.
 */
#include "viper-mpi.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

VmState vm = { .lock = PTHREAD_MUTEX_INITIALIZER, .world = { .refs = 1, .subset = -1 } };

static int started, finalized;
#define SYNC_TAG 7405

int64_t
vm_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec - vm.epoch_ns;
}

static int
sync_rounds (void)
{
  return vm_env_sync ();
}

/* rank 0 serves each rank in turn; ranks record T1 TR T2 */
static void
clock_sync (void)
{
  int rounds = sync_rounds ();
  if (rounds == 0 || vm.size < 2)
    return;
  if (vm.rank == 0)
    {
      for (int r = 1; r < vm.size; r++)
        for (int k = 0; k < rounds; k++)
          {
            int64_t ping;
            PMPI_Recv (&ping, 1, MPI_INT64_T, r, SYNC_TAG, vm.comm, MPI_STATUS_IGNORE);
            int64_t tr = vm_now ();
            PMPI_Send (&tr, 1, MPI_INT64_T, r, SYNC_TAG, vm.comm);
          }
      return;
    }
  for (int k = 0; k < rounds; k++)
    {
      int64_t t1 = vm_now (), tr;
      PMPI_Send (&t1, 1, MPI_INT64_T, 0, SYNC_TAG, vm.comm);
      PMPI_Recv (&tr, 1, MPI_INT64_T, 0, SYNC_TAG, vm.comm, MPI_STATUS_IGNORE);
      int64_t t2 = vm_now ();
      VM_E (VM_SYNC_REC, VM_EV_SYNC, t2, 4, 0, t1, tr, t2);
    }
}

/* A world started by MPI_Comm_spawn has its own MPI_COMM_WORLD, ranks from
 * 0: traced, its ranks would write the spawning world's files rank-NNNN.trc
 * (both worlds' lines interleaved in one file) and take its processor
 * numbers.  It runs untraced; its rank 0 says so (even with --quiet: the trace
 * is not the whole program) and tells viper-trace, whose exit status says it. */
/* A mark for viper-trace beside its status file (VIPER_MPI_STATUS): the
 * file STATUS+suffix, created, with text appended when given. */
static void
status_mark (const char *suffix, const char *text)
{
  const char *status = getenv ("VIPER_MPI_STATUS");
  char mark[4096];
  if (!status || !*status || (size_t) snprintf (mark, sizeof mark, "%s%s", status, suffix) >= sizeof mark)
    return;
  int m = open (mark, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (m < 0)
    return;
  size_t n = text ? strlen (text) : 0;
  if (n && write (m, text, n) != (ssize_t) n)
    { /* viper-trace then does not know: nothing better to do */ }
  close (m);
}

static void
spawned_world (void)
{
  if (vm.rank != 0)
    return;
  fprintf (stderr,
           "viper-mpi: %d process%s started by MPI_Comm_spawn not traced: only the world that mpirun "
           "started is (a spawned world's ranks would take its processor numbers and files)\n",
           vm.size, vm.size == 1 ? "" : "es");
  char line[32];
  snprintf (line, sizeof line, "%d\n", vm.size);
  status_mark (".spawned", line);
}

static void
start (int provided)
{
  const char *out = getenv ("VIPER_MPI_OUT");
  const char *live = getenv ("VIPER_MPI_LIVE");
  if ((!out || !*out) && (!live || !*live))
    return;   /* preloaded but not asked to trace: a plain MPI program */
  PMPI_Comm_rank (MPI_COMM_WORLD, &vm.rank);
  PMPI_Comm_size (MPI_COMM_WORLD, &vm.size);
  MPI_Comm parent = MPI_COMM_NULL;
  PMPI_Comm_get_parent (&parent);
  if (parent != MPI_COMM_NULL)
    {
      spawned_world ();
      return;
    }
  /* tell viper-trace that a rank (of this host) got here: with no status
   * file and no such mark, it knows no rank called MPI_Init */
  status_mark (".init", NULL);
  vm.mt = provided == MPI_THREAD_MULTIPLE;
  vm.quiet = getenv ("VIPER_MPI_QUIET") && *getenv ("VIPER_MPI_QUIET") && strcmp (getenv ("VIPER_MPI_QUIET"), "0");
  /* every rank takes part in the collectives below, traced or not */
  PMPI_Comm_dup (MPI_COMM_WORLD, &vm.comm);
  started = 1;
  vm.active = 1;
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  int64_t epoch = (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
  PMPI_Bcast (&epoch, 1, MPI_INT64_T, 0, vm.comm);
  vm.epoch_ns = epoch;
  /* a bad VIPER_MPI_* value is said (per rank, like an unwritable file) and
   * the rank runs untraced: better than tracing with a guessed value */
  int ok = vm_env_check () == 0 && vm_out_open () == 0;
  vm.on = ok;
  /* before the clock synchronisation, which waits for every other rank: a
   * job torn down meanwhile still leaves this rank's lines */
  if (ok)
    vm_signals_install ();
  vm_comm_init ();
  VM_E0 (VM_BEGIN, VM_EV_TRACING, vm_now ());
  clock_sync ();
}

int
MPI_Init (int *argc, char ***argv)
{
  int rc = PMPI_Init (argc, argv);
  if (rc == MPI_SUCCESS)
    start (MPI_THREAD_SINGLE);
  return rc;
}

int
MPI_Init_thread (int *argc, char ***argv, int required, int *provided)
{
  int rc = PMPI_Init_thread (argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    start (*provided);
  return rc;
}

static void
cross_check (void)
{
  int64_t mine[6] = { vm.on, vm.sent, vm.received, vm.collectives, vm.records, vm.dropped };
  char text[256];
  snprintf (text, sizeof text,
            "viper-mpi: rank %d: sent %lld received %lld collectives %lld records %lld dropped %lld",
            vm.rank, (long long) vm.sent, (long long) vm.received, (long long) vm.collectives,
            (long long) vm.records, (long long) vm.dropped);
  vm_emit_comment (text);
  int64_t *all = vm.rank == 0 ? malloc (sizeof mine * (size_t) vm.size) : NULL;
  PMPI_Gather (mine, 6, MPI_INT64_T, all, 6, MPI_INT64_T, 0, vm.comm);
  if (vm.rank != 0 || !all)
    return;
  /* a rank traced to the end has recording on; one that failed at Init
   * recorded nothing, one that failed later recorded part of its run */
  int traced = 0;
  for (int r = 0; r < vm.size; r++)
    traced += all[6 * r] != 0;
  const char *dest = getenv ("VIPER_MPI_LIVE") && *getenv ("VIPER_MPI_LIVE") ? getenv ("VIPER_MPI_LIVE")
                                                                              : getenv ("VIPER_MPI_OUT");
  if (!vm.quiet)
    {
      for (int r = 0; r < vm.size; r++)
        {
          const int64_t *c = all + 6 * r;
          fprintf (stderr,
                   "viper-mpi: rank %d: sent %lld received %lld collectives %lld records %lld dropped %lld%s\n",
                   r, (long long) c[1], (long long) c[2], (long long) c[3], (long long) c[4], (long long) c[5],
                   c[0] ? "" : c[4] ? " (not traced to the end)" : " (not traced)");
        }
      if (traced == vm.size)
        fprintf (stderr, "viper-mpi: %d ranks traced to %s\n", vm.size, dest);
    }
  if (traced < vm.size)
    {
      /* said even with --quiet: the trace is not what was asked for */
      char list[200];
      size_t n = 0;
      int shown = 0;
      list[0] = 0;
      for (int r = 0; r < vm.size && n < sizeof list - 16; r++)
        if (!all[6 * r])
          n += (size_t) snprintf (list + n, sizeof list - n, "%s%d", shown++ ? " " : "", r);
      fprintf (stderr, "viper-mpi: %d of %d ranks traced to %s; not traced (to the end): rank%s %s%s\n", traced,
               vm.size, dest, vm.size - traced == 1 ? "" : "s", list, shown < vm.size - traced ? " ..." : "");
    }
  /* viper-trace's exit status: what the ranks achieved, for its caller */
  const char *status = getenv ("VIPER_MPI_STATUS");
  FILE *f = status && *status ? fopen (status, "w") : NULL;
  if (f)
    {
      fprintf (f, "ranks %d traced %d\n", vm.size, traced);
      fclose (f);
    }
  free (all);
}

int
MPI_Finalize (void)
{
  if (started && !finalized)
    {
      finalized = 1;
      clock_sync ();
      VM_E0 (VM_END, VM_EV_TRACING, vm_now ());
      vm_out_drain ();
      cross_check ();
      vm_signals_restore ();
      vm_out_close (1);
      if (vm.dropped && !vm.quiet)
        fprintf (stderr, "viper-mpi: rank %d: %lld records dropped (%s)\n", vm.rank, (long long) vm.dropped,
                 vm_sink_name ());
      vm.on = 0;
      vm.active = 0;
      vm_comm_fini ();
      vm_req_fini ();
      PMPI_Comm_free (&vm.comm);
    }
  return PMPI_Finalize ();
}

int
MPI_Abort (MPI_Comm comm, int errorcode)
{
  if (vm.on)
    {
      VM_E0 (VM_END, VM_EV_TRACING, vm_now ());
      vm_signals_restore ();
      vm_out_close (0);
      vm.on = 0;
    }
  return PMPI_Abort (comm, errorcode);
}

/* a program that exits without MPI_Finalize still leaves its complete lines */
__attribute__ ((destructor)) static void
at_exit (void)
{
  if (vm.on && !finalized)
    {
      VM_E0 (VM_END, VM_EV_TRACING, vm_now ());
      vm_signals_restore ();
      vm_out_close (0);
      vm.on = 0;
    }
}
