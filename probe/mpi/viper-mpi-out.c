/* viper-mpi-out.c - where libviper-mpi's lines go: one fixed buffer per rank.
 *
 * Every record is formatted by hand (no printf: it is the hot path) into one
 * buffer of fixed size.  A line is complete before the buffer's length moves
 * past it, so whoever flushes - the next append, Finalize, MPI_Abort, a fatal
 * signal - only ever writes whole lines.
 *
 * File mode (VIPER_MPI_OUT=DIR): DIR/rank-NNNN.trc; the buffer is written
 * with one write() when the next line does not fit, or when a line is made
 * FILE_FLUSH_NS after the last write, so tracing costs no system call per
 * event and no line waits long in memory.
 *
 * Live mode (VIPER_MPI_LIVE=tcp:HOST:PORT): one non-blocking TCP connection
 * per rank.  The buffer is the backlog: the unsent lines are [head, len).
 * An append tries a send() when the backlog passes a chunk or when 20 ms have
 * passed since the last try (the time is read for the record anyway), never
 * waits; when the viewer is slower than the program and the backlog is full,
 * whole lines are dropped and counted, and the count is reported at
 * Finalize.  Only Finalize waits, for a bounded time, to drain the backlog.
 *
 * When the directory or the viewer cannot be reached, the rank says so once
 * on standard error and runs untraced.
 *
 * Signals.  A fatal signal writes the complete lines and an end record.
 * SIGCONT writes the complete lines too, and the rank goes on: Open MPI tears
 * a job down with SIGCONT, SIGTERM a second later and SIGKILL a few ms after
 * that, too soon for a busy machine to run the SIGTERM handler, so what a
 * hung rank recorded is out by SIGCONT.  A handler writes [head, len) and
 * moves head; the main path publishes a line by storing len after the line
 * is complete, and blocks these signals (and sets `flushing', for the other
 * threads) while it moves head or len itself, so a handler never writes a
 * line twice or half.
 */
#include "viper-mpi.h"
#include "viper-env-seconds.h"   /* ../ : the probe's rule for seconds */

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LIVE_CHUNK (64 * 1024)
#define LIVE_RETRY_NS 20000000
#define FILE_FLUSH_NS 100000000

static char *buf;
static size_t cap, len, head;
static int fd = -1;
static off_t file_whole;   /* file mode: bytes in the file, whole lines only */
static int live;
static volatile sig_atomic_t appending;
static int64_t last_try;
static volatile sig_atomic_t flushing;
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP };
#define N_FATAL (int) (sizeof fatal_signals / sizeof fatal_signals[0])

/* The main path moves head or len only between guard_on and guard_off. */
static void
guard_on (sigset_t *old)
{
  sigset_t set;
  sigemptyset (&set);
  for (int i = 0; i < N_FATAL; i++)
    sigaddset (&set, fatal_signals[i]);
  sigaddset (&set, SIGCONT);
  pthread_sigmask (SIG_BLOCK, &set, old);
  flushing = 1;
  atomic_signal_fence (memory_order_seq_cst);
}

static void
guard_off (const sigset_t *old)
{
  atomic_signal_fence (memory_order_seq_cst);
  flushing = 0;
  pthread_sigmask (SIG_SETMASK, old, NULL);
}

/* a line is complete in buf: let a handler take it */
static inline void
publish (size_t new_len)
{
  __atomic_store_n (&len, new_len, __ATOMIC_RELEASE);
}
static char sink[512];

const char *
vm_sink_name (void)
{
  return sink;
}

static void
say (const char *what, const char *why)
{
  fprintf (stderr, "viper-mpi: rank %d: %s: %s; this rank is not traced from here on\n", vm.rank, what, why);
}

/* VIPER_MPI_BUFFER: bytes, or a number with a suffix K or M; 4K..1024M. */
#define VM_BUFFER_MIN ((unsigned long long) 4 << 10)
#define VM_BUFFER_MAX ((unsigned long long) 1 << 30)

static int
parse_size (const char *s, size_t *out)
{
  if (*s < '0' || *s > '9')
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull (s, &end, 10);
  if (errno)
    return -1;
  unsigned shift = 0;
  if (*end == 'k' || *end == 'K')
    shift = 10, end++;
  else if (*end == 'm' || *end == 'M')
    shift = 20, end++;
  if (*end || v > (VM_BUFFER_MAX >> shift))
    return -1;
  v <<= shift;
  if (v < VM_BUFFER_MIN)
    return -1;
  *out = (size_t) v;
  return 0;
}

/* an integer lo..hi (lo >= 0), decimal digits only, the whole string:
 * no sign, blank, hex or exponent (viper-trace's count_ok) */
static int
parse_int (const char *s, long lo, long hi, long *out)
{
  if (!*s || strspn (s, "0123456789") != strlen (s))
    return -1;
  char *end;
  errno = 0;
  long v = strtol (s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int
vm_env_check (void)
{
  const char *s;
  size_t size;
  long n;
  double secs;
  char what[160];
  if ((s = getenv ("VIPER_MPI_BUFFER")) && *s && parse_size (s, &size) != 0)
    {
      snprintf (what, sizeof what, "VIPER_MPI_BUFFER='%.64s'", s);
      say (what, "expected a size from 4K to 1024M (bytes, or a number with a suffix K or M)");
      return -1;
    }
  if ((s = getenv ("VIPER_MPI_SYNC")) && *s && parse_int (s, 0, 100, &n) != 0)
    {
      snprintf (what, sizeof what, "VIPER_MPI_SYNC='%.64s'", s);
      say (what, "expected a number of ping-pongs from 0 to 100");
      return -1;
    }
  if ((s = getenv ("VIPER_MPI_LIVE_TIMEOUT")) && *s && viper_parse_seconds (s, &secs) != 0)
    {
      snprintf (what, sizeof what, "VIPER_MPI_LIVE_TIMEOUT='%.64s'", s);
      say (what, "expected seconds from 0 to 3600");
      return -1;
    }
  return 0;
}

int
vm_env_sync (void)
{
  const char *s = getenv ("VIPER_MPI_SYNC");
  long n = 4;
  if (s && *s && parse_int (s, 0, 100, &n) != 0)
    n = 0;   /* rejected at Init (vm_env_check): the same on every rank */
  return (int) n;
}

static size_t
env_size (const char *name, size_t dflt)
{
  const char *s = getenv (name);
  size_t v;
  return s && *s && parse_size (s, &v) == 0 ? v : dflt;
}

static int
open_file (const char *dir)
{
  if (mkdir (dir, 0777) != 0 && errno != EEXIST)
    {
      snprintf (sink, sizeof sink, "%s", dir);
      say (dir, strerror (errno));
      return -1;
    }
  snprintf (sink, sizeof sink, "%s/rank-%04d.trc", dir, vm.rank);
  fd = open (sink, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  file_whole = 0;
  if (fd < 0)
    {
      say (sink, strerror (errno));
      return -1;
    }
  return 0;
}

static int
open_live (const char *addr)
{
  snprintf (sink, sizeof sink, "%s", addr);
  if (strncmp (addr, "tcp:", 4) != 0)
    {
      say (addr, "not a tcp:HOST:PORT address");
      return -1;
    }
  char host[256];
  const char *colon = strrchr (addr + 4, ':');
  if (!colon || colon == addr + 4 || (size_t) (colon - (addr + 4)) >= sizeof host || !colon[1])
    {
      say (addr, "not a tcp:HOST:PORT address");
      return -1;
    }
  memcpy (host, addr + 4, (size_t) (colon - (addr + 4)));
  host[colon - (addr + 4)] = 0;
  if (host[0] == '[' && host[strlen (host) - 1] == ']')
    {
      memmove (host, host + 1, strlen (host));
      host[strlen (host) - 1] = 0;
    }
  /* a decimal port only: getaddrinfo would look a name up in /etc/services
   * and take 99999 modulo 65536, connecting somewhere nobody asked for */
  const char *port = colon + 1;
  long pv = 0;
  for (const char *c = port; *c && pv <= 65535; c++)
    pv = *c >= '0' && *c <= '9' ? pv * 10 + (*c - '0') : 65536;
  if (pv < 1 || pv > 65535)
    {
      char why[128];
      snprintf (why, sizeof why, "port '%.16s' is not a number from 1 to 65535", port);
      say (addr, why);
      return -1;
    }
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV }, *res = NULL;
  int rc = getaddrinfo (host, port, &hints, &res);
  if (rc != 0)
    {
      say (addr, gai_strerror (rc));
      return -1;
    }
  int err = ECONNREFUSED;
  for (struct addrinfo *a = res; a; a = a->ai_next)
    {
      int s = socket (a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
      if (s < 0)
        {
          err = errno;
          continue;
        }
      if (connect (s, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS)
        {
          err = errno;
          close (s);
          continue;
        }
      /* connecting happens at Init, where waiting a bounded time is allowed */
      struct pollfd p = { .fd = s, .events = POLLOUT };
      int ready = poll (&p, 1, 5000);
      int soerr = 0;
      socklen_t sl = sizeof soerr;
      if (ready <= 0)
        soerr = ready == 0 ? ETIMEDOUT : errno;
      else if (getsockopt (s, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
        soerr = errno;
      if (soerr == 0)
        {
          freeaddrinfo (res);
          fd = s;
          return 0;
        }
      err = soerr;
      close (s);
    }
  freeaddrinfo (res);
  say (addr, strerror (err));
  return -1;
}

int
vm_out_open (void)
{
  const char *dir = getenv ("VIPER_MPI_OUT");
  const char *addr = getenv ("VIPER_MPI_LIVE");
  live = addr && *addr;
  cap = env_size ("VIPER_MPI_BUFFER", live ? (size_t) 4 << 20 : (size_t) 1 << 20);
  buf = malloc (cap);
  if (!buf)
    {
      say ("buffer", strerror (ENOMEM));
      return -1;
    }
  len = head = 0;
  int rc = live ? open_live (addr) : open_file (dir && *dir ? dir : ".");
  if (rc != 0)
    {
      free (buf);
      buf = NULL;
    }
  return rc;
}

/* A write of [start, len) stopped at head (a full disk, a file size limit):
 * the kernel may have taken part of a line.  Cut the file back to the last
 * whole line, so that a reader never sees half a line (the lines from there
 * on are counted as dropped by the caller).  The descriptor's offset and
 * head go back there too: a later write (after a cut from a handler, which
 * does not stop tracing) goes on at the cut, not past it, which would leave
 * a hole of NUL bytes and the rest of the cut line.  Async-signal-safe. */
static void
file_cut (size_t start)
{
  size_t whole = head;
  while (whole > start && buf[whole - 1] != '\n')
    whole--;
  file_whole += (off_t) (whole - start);
  if (whole != head)
    {
      if (ftruncate (fd, file_whole) != 0)
        { /* nothing better to do: the reader reports the cut line */ }
      if (lseek (fd, file_whole, SEEK_SET) < 0)
        { /* the same */ }
      head = whole;
    }
}

/* Write [head, len) to the file, whole; on error stop tracing (once). */
static void
file_flush (void)
{
  sigset_t old;
  guard_on (&old);
  size_t start = head;
  int failed = 0;
  while (head < len)
    {
      ssize_t n = write (fd, buf + head, len - head);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int err = errno;
          file_cut (start);
          errno = err;
          /* said once, whoever flushed (an append making room too): a rank
           * that only reported "N records dropped" at Finalize left no reason */
          say (sink, n < 0 ? strerror (errno) : "short write");
          vm.on = 0;
          for (size_t i = head; i < len; i++)
            vm.dropped += buf[i] == '\n';
          failed = 1;
          break;
        }
      head += (size_t) n;
    }
  if (!failed)
    file_whole += (off_t) (len - start);
  head = len = 0;
  guard_off (&old);
}

/* Send what the socket takes now, never wait. */
static void
live_send (void)
{
  sigset_t old;
  guard_on (&old);
  while (head < len)
    {
      ssize_t n = send (fd, buf + head, len - head, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0)
        {
          head += (size_t) n;
          continue;
        }
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        break;
      say (sink, n < 0 ? strerror (errno) : "connection closed");
      vm.on = 0;
      /* what never left is dropped, as a file's failed write: the
       * cross-check says what the viewer did not get */
      for (size_t i = head; i < len; i++)
        vm.dropped += buf[i] == '\n';
      head = len;
      break;
    }
  if (head == len)
    head = len = 0;
  guard_off (&old);
}

void
vm_flush_now (void)
{
  if (!buf || fd < 0)
    return;
  if (live)
    live_send ();
  else
    file_flush ();
}

/* Make room for NEED bytes at buf + len; 0 = no room (the line is dropped). */
static int
room (size_t need)
{
  if (len + need <= cap)
    return 1;
  if (!live)
    {
      file_flush ();
      return vm.on && need <= cap;
    }
  live_send ();
  if (head > 0)
    {
      sigset_t old;
      guard_on (&old);
      memmove (buf, buf + head, len - head);
      len -= head;
      head = 0;
      guard_off (&old);
    }
  return vm.on && len + need <= cap;
}

static char *
put_i64 (char *p, int64_t v)
{
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
  if (v < 0)
    *p++ = '-';
  do
    {
      tmp[n++] = (char) ('0' + u % 10);
      u /= 10;
    }
  while (u);
  while (n)
    *p++ = tmp[--n];
  return p;
}

/* ns -> seconds with 9 decimals, exactly (no floating point) */
static char *
put_time (char *p, int64_t ns)
{
  uint64_t u = ns < 0 ? (uint64_t) 0 - (uint64_t) ns : (uint64_t) ns;
  if (ns < 0)
    *p++ = '-';
  p = put_i64 (p, (int64_t) (u / 1000000000u));
  *p++ = '.';
  uint64_t f = u % 1000000000u;
  for (int i = 8; i >= 0; i--)
    {
      p[i] = (char) ('0' + f % 10);
      f /= 10;
    }
  return p + 9;
}

void
vm_emit_line (int64_t rec, int64_t ev, int64_t t, int64_t proc, int64_t process, int ndata,
              const int64_t *data)
{
  size_t need = 6 * 21 + 2 + (size_t) ndata * 21 + 4;
  vm_lock ();
  if (!vm.on || !buf)
    {
      vm_unlock ();
      return;
    }
  appending = 1;
  if (!room (need))
    {
      /* records counts the lines made, dropped those that never left */
      vm.records++;
      vm.dropped++;
      appending = 0;
      vm_unlock ();
      return;
    }
  char *p = buf + len;
  p = put_i64 (p, rec);
  *p++ = ' ';
  p = put_i64 (p, ev);
  *p++ = ' ';
  p = put_time (p, t);
  *p++ = ' ';
  p = put_i64 (p, proc);
  *p++ = ' ';
  p = put_i64 (p, process);
  *p++ = ' ';
  p = put_i64 (p, ndata);
  if (ndata > 0)
    {
      *p++ = ' ';
      *p++ = '2';
      for (int i = 0; i < ndata; i++)
        {
          *p++ = ' ';
          p = put_i64 (p, data[i]);
        }
    }
  *p++ = '\n';
  publish ((size_t) (p - buf));   /* the line is complete: now a flush may take it */
  vm.records++;
  appending = 0;
  /* live: try the socket every chunk or 20 ms; files: write when the oldest
   * unwritten line may be 100 ms old, so a rank that then blocks (or is
   * killed without warning) has little or nothing in memory */
  if (t - last_try >= (live ? LIVE_RETRY_NS : FILE_FLUSH_NS) || t < last_try || (live && len - head >= LIVE_CHUNK))
    {
      last_try = t;
      if (live)
        live_send ();
      else
        file_flush ();
    }
  vm_unlock ();
}

void
vm_emit_comment (const char *text)
{
  size_t n = strlen (text);
  vm_lock ();
  if (vm.on && buf && room (n + 3))
    {
      char *p = buf + len;
      *p++ = '#';
      *p++ = ' ';
      memcpy (p, text, n);
      p[n] = '\n';
      publish (len + n + 3);
    }
  vm_unlock ();
}

/* Finalize: get the buffer out.  Files are written; the viewer is given at
 * most VIPER_MPI_LIVE_TIMEOUT seconds, and what it did not take by then is
 * counted as dropped and discarded, so the cross-check that follows is true. */
void
vm_out_drain (void)
{
  if (!buf || fd < 0 || !vm.on)
    return;
  if (!live)
    {
      file_flush ();
      return;
    }
  double secs = 5;
  const char *s = getenv ("VIPER_MPI_LIVE_TIMEOUT");
  if (s && *s && viper_parse_seconds (s, &secs) != 0)
    secs = 5;   /* rejected at Init (vm_env_check) */
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  while (vm.on && head < len)
    {
      live_send ();
      if (head >= len || !vm.on)
        break;
      clock_gettime (CLOCK_MONOTONIC, &t1);
      double left = secs - ((double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9);
      if (left <= 0)
        break;
      struct pollfd p = { .fd = fd, .events = POLLOUT };
      poll (&p, 1, (int) (left * 1000) + 1);
    }
  if (head < len)
    {
      for (size_t i = head; i < len; i++)
        vm.dropped += buf[i] == '\n';
      fprintf (stderr, "viper-mpi: rank %d: %s: the viewer did not take the last lines in time\n", vm.rank, sink);
      head = len = 0;
    }
}

void
vm_out_close (int drain)
{
  if (!buf)
    return;
  if (drain)
    vm_out_drain ();
  else if (fd >= 0 && vm.on)
    vm_flush_now ();
  if (fd >= 0 && live)
    shutdown (fd, SHUT_WR);
  if (fd >= 0 && close (fd) != 0 && !live && vm.on)
    say (sink, strerror (errno));
  sigset_t old;
  guard_on (&old);
  fd = -1;
  free (buf);
  buf = NULL;
  head = len = 0;
  guard_off (&old);
}

/* ---- signals: write what is complete; fatal ones end the trace and chain ---- */

static struct sigaction old_actions[N_FATAL], old_cont;
static int installed;

/* [head, len) out, from a handler: write() and send() are async-signal-safe;
 * the file is written whole, the socket takes what it takes without waiting.
 * Not while the main path (this thread, or another) moves head or len. */
static void
write_complete (void)
{
  if (!vm.on || !buf || fd < 0 || flushing)
    return;
  size_t end = __atomic_load_n (&len, __ATOMIC_ACQUIRE), start = head;
  while (head < end)
    {
      ssize_t n = live ? send (fd, buf + head, end - head, MSG_NOSIGNAL | MSG_DONTWAIT)
                       : write (fd, buf + head, end - head);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (!live)
            file_cut (start);
          return;
        }
      head += (size_t) n;
    }
  if (!live)
    file_whole += (off_t) (end - start);
}

static void
on_fatal (int sig)
{
  int saved = errno;
  /* In the middle of an append (or holding the lock) the buffer is still
   * consistent up to len; only then is adding the end record unsafe.  A
   * comment says why the trace ends here, for whoever reads the file (a
   * reader skips it: the replay tells a rank that stopped inside a blocking
   * call by the call left open, docs/paradigm-picl.md). */
  if (vm.on && buf && !appending && !flushing && !vm.mt && len + 128 <= cap)
    {
      char *p = buf + len;
      static const char said[] = "# viper-mpi: rank ", by[] = ": tracing ended by signal ";
      memcpy (p, said, sizeof said - 1);
      p = put_i64 (p + sizeof said - 1, vm.rank);
      memcpy (p, by, sizeof by - 1);
      p = put_i64 (p + sizeof by - 1, sig);
      *p++ = '\n';
      p = put_i64 (p, VM_END);
      *p++ = ' ';
      p = put_i64 (p, VM_EV_TRACING);
      *p++ = ' ';
      p = put_time (p, vm_now ());
      *p++ = ' ';
      p = put_i64 (p, vm.rank);
      memcpy (p, " 0 0\n", 5);
      len = (size_t) (p + 5 - buf);
    }
  write_complete ();
  vm.on = 0;
  for (int i = 0; i < N_FATAL; i++)
    if (fatal_signals[i] == sig)
      sigaction (sig, &old_actions[i], NULL);
  errno = saved;
  /* pending until we return, then handled as if we had never been here */
  raise (sig);
}

/* SIGCONT: the first word of Open MPI's teardown (and of a job resumed
 * after Ctrl-Z): write the complete lines, go on, chain to the program's
 * own handler if it had one. */
static void
on_cont (int sig, siginfo_t *info, void *ctx)
{
  int saved = errno;
  write_complete ();
  errno = saved;
  if (old_cont.sa_flags & SA_SIGINFO)
    {
      if (old_cont.sa_sigaction)
        old_cont.sa_sigaction (sig, info, ctx);
    }
  else if (old_cont.sa_handler != SIG_DFL && old_cont.sa_handler != SIG_IGN)
    old_cont.sa_handler (sig);
}

void
vm_signals_install (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal;
  sigemptyset (&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int i = 0; i < N_FATAL; i++)
    {
      struct sigaction cur;
      sigaction (fatal_signals[i], NULL, &cur);
      /* a signal the program ignores stays ignored */
      if (cur.sa_handler == SIG_IGN)
        {
          old_actions[i] = cur;
          continue;
        }
      sigaction (fatal_signals[i], &sa, &old_actions[i]);
    }
  /* SA_RESTART: the program's interrupted system calls go on as they would
   * without a handler */
  struct sigaction sc;
  memset (&sc, 0, sizeof sc);
  sc.sa_sigaction = on_cont;
  sigemptyset (&sc.sa_mask);
  sc.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction (SIGCONT, &sc, &old_cont);
  installed = 1;
}

void
vm_signals_restore (void)
{
  if (!installed)
    return;
  for (int i = 0; i < N_FATAL; i++)
    {
      struct sigaction cur;
      sigaction (fatal_signals[i], NULL, &cur);
      if (cur.sa_handler == on_fatal)
        sigaction (fatal_signals[i], &old_actions[i], NULL);
    }
  struct sigaction cur;
  sigaction (SIGCONT, NULL, &cur);
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_cont)
    sigaction (SIGCONT, &old_cont, NULL);
  installed = 0;
}
