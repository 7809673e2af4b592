/* viper-probe.c - libviperprobe, the instrumentation side of Viper.
 *
 * Design.  A monitored program must never be held up by its tracing more
 * than necessary, and must never be killed by it, so the library is small
 * and predictable:
 *
 * - One channel = one descriptor plus one growable byte buffer and one
 *   mutex.  An emit formats its line straight into the buffer; without
 *   buffering the buffer is written out at once, with buffering (the
 *   thesis's trace_buf, section 6.8) it grows until flush, close, or its
 *   limit.  The limit triggers a write, never a drop: dropping a line
 *   would leave a hole in the module's sequence numbers and Viper would
 *   wait for it forever.
 * - The sequence number and the time stamp are taken under the channel
 *   mutex, in the same critical section that appends the line.  That is
 *   what makes a shared channel safe from many threads: each module's lines
 *   appear in sequence order and with non-decreasing clock readings, which
 *   is all Viper's run construction needs from a channel (spec/picl.md 2).
 *   One mutex per channel instead of per module: two modules on one channel
 *   must not interleave bytes inside a line anyway.
 * - Writes are full writes: EINTR and short writes are retried.  Sockets
 *   are written with send(MSG_NOSIGNAL) so a Viper that goes away yields
 *   EPIPE instead of SIGPIPE.  After the first write error the channel is
 *   marked broken and stays so; the program keeps running, its trace is
 *   over, and every later call returns -1 at once.
 * - A write waits for a reader that is slow, but not for one that stopped:
 *   sockets, pipes and terminals are written without blocking (send with
 *   MSG_DONTWAIT; pipes in pieces of PIPE_BUF after poll said there is
 *   room) and wait in poll, at most VIPER_PROBE_WRITE_TIMEOUT seconds
 *   (default 10) without progress.  Past that the channel breaks like on a
 *   write error.  A slow viewer therefore slows the program (nothing is
 *   dropped while the channel works: a dropped line is a sequence gap Viper
 *   waits for), a stalled or suspended one holds it at most that long, and
 *   the lines that never left are counted (viper_probe_lines_lost), never
 *   lost silently.  libviper-mpi chooses otherwise (it drops and counts
 *   lines and never waits): its records carry no sequence numbers.
 * - No GLib: the library links into arbitrary programs (Fortran via a C
 *   shim, in the thesis), so it uses libc, POSIX sockets and pthreads only.
 */
#include "viper-probe.h"
#include "viper-env-seconds.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define ERR_LEN 256

/* How a descriptor is written. */
enum {
  KIND_FILE,     /* a regular file or block device: write(), never waits on a reader */
  KIND_SOCKET,   /* send(MSG_DONTWAIT), poll when full */
  KIND_PIPE      /* pipe, FIFO, terminal: poll, then write() at most PIPE_BUF */
};

struct ViperProbe {
  pthread_mutex_t lock;
  int fd;
  int kind;
  bool nosignal;          /* a socket we opened: send(MSG_NOSIGNAL) */
  bool owns_fd;
  bool buffering;
  bool broken;
  double write_timeout;   /* seconds without progress; 0 = no bound */
  uint64_t lost;          /* lines accepted but not delivered */
  char cause[ERR_LEN];    /* why the channel broke, without the count */
  int decimals;
  size_t limit;
  char *buf;
  size_t len;
  size_t cap;
  ViperProbeClock clock;
  void *clock_data;
  char err[ERR_LEN];
};

struct ViperProbeModule {
  ViperProbe *p;
  long long proc;
  uint64_t seq;
  bool tracing;
  ViperProbeClock clock;
  void *clock_data;
};

static _Thread_local char open_error[ERR_LEN];

static void
set_err (char *dst, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (dst, ERR_LEN, fmt, ap);
  va_end (ap);
}

static double
monotonic_ms (void *user_data)
{
  struct timespec ts;
  (void) user_data;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

/* ---- opening ------------------------------------------------------------ */

/* Seconds from an environment variable, parsed strictly by the rule of
 * viper-env-seconds.h (digits with at most one decimal point, 0 to 3600;
 * 0 = no bound), the one libviper-mpi applies to VIPER_MPI_LIVE_TIMEOUT;
 * unset or empty gives dflt.  Anything else ("abc", "-1", "1e3", " 5",
 * "inf") fails with open_error naming the variable: a typo must not
 * silently give the default.  Shared by VIPER_PROBE_CONNECT_TIMEOUT and
 * VIPER_PROBE_WRITE_TIMEOUT. */
static int
env_seconds (const char *name, double dflt, double *out)
{
  const char *e = getenv (name);

  *out = dflt;
  if (!e || !*e)
    return 0;
  if (viper_parse_seconds (e, out) == 0)
    return 0;
  set_err (open_error, "%s='%.64s': expected seconds from 0 to 3600 (0: no bound)", name, e);
  errno = EINVAL;
  return -1;
}

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* When a bound of timeout seconds from now ends (0: no bound). */
static double
deadline_in (double timeout)
{
  return timeout > 0 ? now_s () + timeout : INFINITY;
}

/* connect() with a bounded wait: 0, or -1 with errno (ETIMEDOUT when the
 * deadline passed).  How long a connect may wait is VIPER_PROBE_CONNECT_TIMEOUT
 * seconds (default 5, as libviper-mpi; 0 = no bound): a viewer whose
 * backlog is full, or a host that drops SYNs, would otherwise hold the
 * program in viper_probe_open for minutes (TCP: the kernel's SYN retries,
 * about 130 s) or for ever (Unix).  The descriptor is put back in blocking
 * mode. */
static int
connect_bounded (int fd, const struct sockaddr *sa, socklen_t len, double deadline)
{
  int fl = fcntl (fd, F_GETFL);
  if (fl < 0 || fcntl (fd, F_SETFL, fl | O_NONBLOCK) < 0)
    return -1;
  /* no bound (INFINITY) takes the same loop: a signal does not fail the open */
  int rc = connect (fd, sa, len);
  while (rc < 0) {
    double left = deadline - now_s ();
    if (errno == EAGAIN && sa->sa_family == AF_UNIX) {
      /* the listener's backlog is full: nothing to wait on but time */
      if (left <= 0) {
        errno = ETIMEDOUT;
        break;
      }
      poll (NULL, 0, left < 0.02 ? 1 : 20);
      rc = connect (fd, sa, len);
      continue;
    }
    if (errno != EINPROGRESS && errno != EINTR && errno != EALREADY)
      break;
    /* past the deadline (a name's later address) one look still: a
     * connection that completed at once is taken */
    struct pollfd pfd = { .fd = fd, .events = POLLOUT };
    int n = poll (&pfd, 1, isinf (left) ? -1 : left <= 0 ? 0 : (int) ceil (left * 1000));
    if (n < 0) {
      if (errno == EINTR) {
        errno = EINPROGRESS;
        continue;
      }
      break;
    }
    if (n == 0) {
      if (left <= 0) {
        errno = ETIMEDOUT;
        break;
      }
      errno = EINPROGRESS;
      continue;
    }
    int err = 0;
    socklen_t el = sizeof err;
    if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
      break;
    if (err) {
      errno = err;
      break;
    }
    rc = 0;
  }
  int e = errno;
  if (fcntl (fd, F_SETFL, fl) < 0 && rc == 0) {
    rc = -1;
    e = errno;
  }
  errno = e;
  return rc;
}

static int
connect_unix (const char *path, double timeout)
{
  struct sockaddr_un sa;
  int fd;

  if (strlen (path) >= sizeof sa.sun_path) {
    set_err (open_error, "unix:%s: path too long", path);
    errno = ENAMETOOLONG;
    return -1;
  }
  memset (&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  memcpy (sa.sun_path, path, strlen (path) + 1);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    set_err (open_error, "unix:%s: socket: %s", path, strerror (errno));
    return -1;
  }
  if (connect_bounded (fd, (struct sockaddr *) &sa, sizeof sa, deadline_in (timeout)) < 0) {
    int e = errno;
    set_err (open_error, "unix:%s: connect: %s", path, strerror (e));
    close (fd);
    errno = e;
    return -1;
  }
  return fd;
}

static int
connect_tcp (const char *hostport, double timeout)
{
  char host[256];
  const char *colon = strrchr (hostport, ':');
  const char *port;
  struct addrinfo hints, *res = NULL, *ai;
  size_t hlen;
  int fd = -1, rc, e = 0;

  if (!colon || colon == hostport || colon[1] == '\0') {
    set_err (open_error, "tcp:%s: expected tcp:HOST:PORT", hostport);
    errno = EINVAL;
    return -1;
  }
  hlen = (size_t) (colon - hostport);
  if (hostport[0] == '[' && hlen >= 2 && hostport[hlen - 1] == ']') {
    hostport++;
    hlen -= 2;
  }
  if (hlen >= sizeof host) {
    set_err (open_error, "tcp:%s: host name too long", hostport);
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy (host, hostport, hlen);
  host[hlen] = '\0';
  port = colon + 1;

  memset (&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  rc = getaddrinfo (host, port, &hints, &res);
  if (rc != 0) {
    set_err (open_error, "tcp:%s:%s: %s", host, port, gai_strerror (rc));
    errno = EINVAL;
    return -1;
  }
  /* one bound for all the addresses a name has (localhost: ::1, then
   * 127.0.0.1), not one each */
  double deadline = deadline_in (timeout);
  for (ai = res; ai; ai = ai->ai_next) {
    fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      e = errno;
      continue;
    }
    rc = connect_bounded (fd, ai->ai_addr, ai->ai_addrlen, deadline);
    if (rc == 0)
      break;
    e = errno;
    close (fd);
    fd = -1;
  }
  freeaddrinfo (res);
  if (fd < 0) {
    set_err (open_error, "tcp:%s:%s: connect: %s", host, port, strerror (e));
    errno = e;
  }
  return fd;
}

/* open() of a file destination, bounded when it is a FIFO.  A FIFO's
 * open for writing waits until some process opens it for reading, for
 * ever if none does, holding the program in viper_probe_open; so a path
 * that is a FIFO is opened with O_NONBLOCK, which fails with ENXIO while
 * there is no reader, and retried in sleeps of 1 to 20 ms for at most
 * timeout seconds (VIPER_PROBE_CONNECT_TIMEOUT, the socket connects' bound;
 * 0 = no bound: a blocking open as before).  O_NONBLOCK is then cleared,
 * so writes behave as on any FIFO (their bound is the writer's poll).
 * Anything else (a regular file, a path that does not exist yet, a device)
 * is opened exactly as before; a path that becomes a FIFO between the stat
 * and the open gets the old blocking open, nothing worse.  Returns the
 * descriptor, or -1 with errno and open_error (ETIMEDOUT: no reader came). */
static int
open_path (const char *path, double timeout)
{
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  int fd;

  struct stat st;

  if (timeout == 0 || stat (path, &st) != 0 || !S_ISFIFO (st.st_mode)) {
    fd = open (path, flags, 0644);
    if (fd < 0)
      set_err (open_error, "%s: %s", path, strerror (errno));
    return fd;
  }
  double deadline = now_s () + timeout;
  long step_ns = 1000000;   /* 1 ms, doubled up to 20 ms */
  /* at most one try a millisecond over the bound, and one more */
  long tries = (long) (timeout * 1000) + 3;
  for (long i = 0;; i++) {
    fd = open (path, flags | O_NONBLOCK, 0644);
    if (fd >= 0)
      break;
    int e = errno;
    if (e == EINTR && i + 1 < tries)
      continue;
    if (e != ENXIO) {   /* ENXIO: no reader yet; anything else is said */
      set_err (open_error, "%s: %s", path, strerror (e));
      errno = e;
      return -1;
    }
    double left = deadline - now_s ();
    if (left <= 0 || i + 1 >= tries) {
      set_err (open_error, "%s: no reader opened the FIFO within %g s", path, timeout);
      errno = ETIMEDOUT;
      return -1;
    }
    struct timespec ts = { 0, step_ns };
    if (left < step_ns / 1e9)
      ts.tv_nsec = (long) (left * 1e9) + 1;
    nanosleep (&ts, NULL);   /* EINTR: the next try comes early, still bounded */
    if (step_ns < 20000000)
      step_ns = step_ns * 2 > 20000000 ? 20000000 : step_ns * 2;
  }
  int fl = fcntl (fd, F_GETFL);
  if (fl < 0 || fcntl (fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
    int e = errno;
    set_err (open_error, "%s: fcntl: %s", path, strerror (e));
    close (fd);
    errno = e;
    return -1;
  }
  return fd;
}

ViperProbe *
viper_probe_open (const char *dest)
{
  ViperProbe *p;
  int fd, kind = KIND_FILE;
  bool sock = false, owns = true;
  double connect_timeout, write_timeout;
  struct stat st;

  if (!dest || !*dest) {
    set_err (open_error, "empty destination");
    errno = EINVAL;
    return NULL;
  }
  /* both checked for every destination, as libviper-mpi checks its
   * variables at Init: a bad value is said at once, not when it matters */
  if (env_seconds ("VIPER_PROBE_CONNECT_TIMEOUT", 5.0, &connect_timeout) < 0
      || env_seconds ("VIPER_PROBE_WRITE_TIMEOUT", 10.0, &write_timeout) < 0)
    return NULL;
  if (strncmp (dest, "tcp:", 4) == 0) {
    fd = connect_tcp (dest + 4, connect_timeout);
    sock = true;
  } else if (strncmp (dest, "unix:", 5) == 0) {
    fd = connect_unix (dest + 5, connect_timeout);
    sock = true;
  } else if (strcmp (dest, "-") == 0) {
    fd = STDOUT_FILENO;
    owns = false;
  } else {
    const char *path = strncmp (dest, "file:", 5) == 0 ? dest + 5 : dest;
    fd = open_path (path, connect_timeout);
  }
  if (fd < 0)
    return NULL;
  if (sock)
    kind = KIND_SOCKET;
  else if (fstat (fd, &st) != 0)
    kind = KIND_PIPE;     /* not known: written as one that may stall */
  else if (S_ISSOCK (st.st_mode))
    kind = KIND_SOCKET;   /* "-" handed a socket: bounded too, SIGPIPE as the process says */
  else if (S_ISFIFO (st.st_mode) || (S_ISCHR (st.st_mode) && isatty (fd)))
    kind = KIND_PIPE;     /* pipes, FIFOs, terminals: whatever may have a reader that stalls */
  /* else a file, a block device or /dev/null: written as a file */

  p = calloc (1, sizeof *p);
  if (!p) {
    set_err (open_error, "out of memory");
    if (owns)
      close (fd);
    errno = ENOMEM;
    return NULL;
  }
  pthread_mutex_init (&p->lock, NULL);
  p->fd = fd;
  p->kind = kind;
  p->nosignal = sock;
  p->owns_fd = owns;
  p->write_timeout = write_timeout;
  p->decimals = 3;
  p->clock = monotonic_ms;
  return p;
}

const char *
viper_probe_error (const ViperProbe *p)
{
  return p ? p->err : open_error;
}

/* ---- writing ------------------------------------------------------------ */

/* Called with the lock held: the channel is over.  The lines in
 * buf[off..len) never left whole (the first may have left in part): they
 * are counted, and the error says why and how many.  A socket we opened is
 * shut down for writing, so a viewer that reads again sees the stream end
 * instead of waiting for lines that will not come. */
static void
break_channel (ViperProbe *p, size_t off, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (p->cause, ERR_LEN, fmt, ap);
  va_end (ap);
  for (size_t i = off; i < p->len; i++)
    p->lost += p->buf[i] == '\n';
  set_err (p->err, "%s; %llu line%s of this channel %s not delivered, nor will later ones be", p->cause,
           (unsigned long long) p->lost, p->lost == 1 ? "" : "s", p->lost == 1 ? "was" : "were");
  p->broken = true;
  p->len = 0;
  if (p->kind == KIND_SOCKET && p->owns_fd)
    shutdown (p->fd, SHUT_WR);
}

/* Called with the lock held: wait until fd takes bytes.  1 when it may,
 * 0 when *deadline passed (none if the bound is 0), -1 on a poll error. */
static int
wait_writable (ViperProbe *p, double deadline)
{
  for (;;) {
    int ms = -1;
    if (p->write_timeout > 0) {
      double left = deadline - now_s ();
      if (left <= 0)
        return 0;
      ms = (int) ceil (left * 1000);
    }
    struct pollfd pfd = { .fd = p->fd, .events = POLLOUT };
    int n = poll (&pfd, 1, ms);
    if (n > 0)
      return 1;   /* writable, or an error/hangup the next write reports */
    if (n < 0 && errno != EINTR)
      return -1;
  }
}

/* Called with the lock held.  Writes buf[0..len) fully or breaks the
 * channel: on a write error, or when nothing could be written for
 * write_timeout seconds (the time runs from the last progress, so a slow
 * reader is waited for, a stalled one is not). */
/* A wait of write_out: the bound (VIPER_PROBE_WRITE_TIMEOUT) counts from
 * the first wait since the last progress. */
#define DEADLINE_UNSET (-1.0)
static int
wait_bounded (ViperProbe *p, double *deadline)
{
  if (*deadline == DEADLINE_UNSET)
    *deadline = p->write_timeout > 0 ? now_s () + p->write_timeout : 0;
  return wait_writable (p, *deadline);
}

static int
write_out (ViperProbe *p)
{
  size_t off = 0;
  double deadline = DEADLINE_UNSET;   /* set at the first wait: no clock read per line */

  if (p->broken)
    return -1;
  while (off < p->len) {
    ssize_t k;
    size_t n = p->len - off;
    if (p->kind == KIND_SOCKET) {
      k = send (p->fd, p->buf + off, n, MSG_DONTWAIT | (p->nosignal ? MSG_NOSIGNAL : 0));
    } else if (p->kind == KIND_PIPE) {
      /* poll says a pipe is writable when PIPE_BUF bytes fit; a larger
       * blocking write could wait for the reader */
      int w = wait_bounded (p, &deadline);
      if (w == 0)
        goto timed_out;
      if (w < 0) {
        break_channel (p, off, "poll: %s", strerror (errno));
        return -1;
      }
      k = write (p->fd, p->buf + off, n < PIPE_BUF ? n : PIPE_BUF);
    } else {
      k = write (p->fd, p->buf + off, n);
    }
    if (k > 0) {
      off += (size_t) k;
      deadline = DEADLINE_UNSET;      /* progress: the bound counts afresh */
      continue;
    }
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      /* a full socket, or a descriptor someone made non-blocking */
      int w = wait_bounded (p, &deadline);
      if (w > 0)
        continue;
      if (w == 0)
        goto timed_out;
    }
    if (k == 0)
      errno = EIO;
    break_channel (p, off, "write: %s", strerror (errno));
    return -1;
  }
  p->len = 0;
  return 0;

timed_out:
  break_channel (p, off, "%s stopped reading: nothing could be written for %g s",
                 p->kind == KIND_SOCKET ? "the viewer" : "the reader", p->write_timeout);
  return -1;
}

/* Called with the lock held: room for need more bytes. */
static int
reserve (ViperProbe *p, size_t need)
{
  size_t cap;
  char *nb;

  if (p->len + need <= p->cap)
    return 0;
  cap = p->cap ? p->cap : 4096;
  while (cap < p->len + need)
    cap *= 2;
  nb = realloc (p->buf, cap);
  if (!nb) {
    set_err (p->err, "out of memory");
    return -1;
  }
  p->buf = nb;
  p->cap = cap;
  return 0;
}

/* Called with the lock held, after a line was appended. */
static int
after_append (ViperProbe *p)
{
  if (!p->buffering || (p->limit && p->len >= p->limit))
    return write_out (p);
  return 0;
}

int
viper_probe_flush (ViperProbe *p)
{
  int rc;
  pthread_mutex_lock (&p->lock);
  rc = p->broken ? -1 : write_out (p);
  pthread_mutex_unlock (&p->lock);
  return rc;
}

int
viper_probe_close (ViperProbe *p)
{
  int rc;

  if (!p)
    return 0;
  rc = viper_probe_flush (p);
  if (p->owns_fd && close (p->fd) < 0 && rc == 0) {
    set_err (p->err, "close: %s", strerror (errno));
    set_err (open_error, "%s", p->err);
    rc = -1;
  } else if (rc < 0 && p->broken) {
    /* the final count: the lines lost when the channel broke and since */
    set_err (open_error, "%s; %llu line%s of this channel %s not delivered", p->cause,
             (unsigned long long) p->lost, p->lost == 1 ? "" : "s", p->lost == 1 ? "was" : "were");
  } else if (rc < 0) {
    set_err (open_error, "%s", p->err);
  }
  pthread_mutex_destroy (&p->lock);
  free (p->buf);
  free (p);
  return rc;
}

void
viper_probe_set_clock (ViperProbe *p, ViperProbeClock clock, void *user_data)
{
  pthread_mutex_lock (&p->lock);
  p->clock = clock ? clock : monotonic_ms;
  p->clock_data = clock ? user_data : NULL;
  pthread_mutex_unlock (&p->lock);
}

void
viper_probe_set_time_decimals (ViperProbe *p, int decimals)
{
  pthread_mutex_lock (&p->lock);
  p->decimals = decimals < 0 ? 0 : decimals > 9 ? 9 : decimals;
  pthread_mutex_unlock (&p->lock);
}

int
viper_probe_set_buffering (ViperProbe *p, bool on)
{
  int rc = 0;
  pthread_mutex_lock (&p->lock);
  p->buffering = on;
  if (!on && p->len)
    rc = write_out (p);
  else if (p->broken)
    rc = -1;
  pthread_mutex_unlock (&p->lock);
  return rc;
}

void
viper_probe_set_buffer_limit (ViperProbe *p, size_t bytes)
{
  pthread_mutex_lock (&p->lock);
  p->limit = bytes;
  pthread_mutex_unlock (&p->lock);
}

size_t
viper_probe_buffered (const ViperProbe *p)
{
  size_t n;
  pthread_mutex_lock ((pthread_mutex_t *) &p->lock);
  n = p->len;
  pthread_mutex_unlock ((pthread_mutex_t *) &p->lock);
  return n;
}

uint64_t
viper_probe_lines_lost (const ViperProbe *p)
{
  uint64_t n;
  pthread_mutex_lock ((pthread_mutex_t *) &p->lock);
  n = p->lost;
  pthread_mutex_unlock ((pthread_mutex_t *) &p->lock);
  return n;
}

int
viper_probe_comment (ViperProbe *p, const char *text)
{
  size_t n = strlen (text);
  int rc = -1;

  pthread_mutex_lock (&p->lock);
  if (p->broken)
    p->lost++;
  else if (reserve (p, n + 3) == 0) {
    p->buf[p->len++] = '#';
    p->buf[p->len++] = ' ';
    for (size_t i = 0; i < n; i++)  /* one line: a newline in text would end the comment */
      p->buf[p->len++] = (text[i] == '\n' || text[i] == '\r') ? ' ' : text[i];
    p->buf[p->len++] = '\n';
    rc = after_append (p);
  }
  pthread_mutex_unlock (&p->lock);
  return rc;
}

/* ---- modules ------------------------------------------------------------ */

ViperProbeModule *
viper_probe_module_new (ViperProbe *p, long long proc)
{
  ViperProbeModule *m = calloc (1, sizeof *m);
  if (!m) {
    set_err (p->err, "out of memory");
    return NULL;
  }
  m->p = p;
  m->proc = proc;
  m->tracing = true;
  return m;
}

void
viper_probe_module_free (ViperProbeModule *m)
{
  free (m);
}

void
viper_probe_module_set_clock (ViperProbeModule *m, ViperProbeClock clock, void *user_data)
{
  pthread_mutex_lock (&m->p->lock);
  m->clock = clock;
  m->clock_data = user_data;
  pthread_mutex_unlock (&m->p->lock);
}

void
viper_probe_module_set_tracing (ViperProbeModule *m, bool on)
{
  pthread_mutex_lock (&m->p->lock);
  m->tracing = on;
  pthread_mutex_unlock (&m->p->lock);
}

uint64_t
viper_probe_module_seq (const ViperProbeModule *m)
{
  uint64_t s;
  pthread_mutex_lock (&m->p->lock);
  s = m->seq;
  pthread_mutex_unlock (&m->p->lock);
  return s;
}

long long
viper_probe_module_proc (const ViperProbeModule *m)
{
  return m->proc;
}

/* Append decimal v at the buffer's end (room reserved by the caller). */
static void
put_int (ViperProbe *p, long long v)
{
  char tmp[24];
  int i = 0;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long) v : (unsigned long long) v;

  do {
    tmp[i++] = (char) ('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0)
    p->buf[p->len++] = '-';
  while (i)
    p->buf[p->len++] = tmp[--i];
  p->buf[p->len++] = ' ';
}

static int
emit_locked (ViperProbeModule *m, bool have_time, double time, int rec, int ev, int process,
             size_t n, const int64_t *data)
{
  ViperProbe *p = m->p;
  int k;

  if (p->broken) {
    if (m->tracing)
      p->lost++;   /* not delivered either: counted, as the lines the break cut off */
    return -1;
  }
  if (!m->tracing)
    return 0;
  if (!have_time)
    time = m->clock ? m->clock (m->clock_data) : p->clock (p->clock_data);
  if (!isfinite (time)) {
    set_err (p->err, "time stamp is not a finite number");
    return -1;
  }
  m->seq++;
  /* 6 header integers, DTYPE, SEQ and n data, each at most 20 digits + sign
   * + blank; the time at most 330 characters with %.9f. */
  if (reserve (p, (n + 8) * 22 + 340) < 0)
    return -1;
  put_int (p, rec);
  put_int (p, ev);
  k = snprintf (p->buf + p->len, 340, "%.*f ", p->decimals, time);
  if (k < 0 || k >= 340) {
    set_err (p->err, "time stamp not printable");
    return -1;
  }
  if (p->buf[p->len] == '-' && strspn (p->buf + p->len + 1, "0.") == (size_t) k - 2) {
    memmove (p->buf + p->len, p->buf + p->len + 1, (size_t) k - 1);  /* "-0.000" -> "0.000" */
    k--;
  }
  p->len += (size_t) k;
  put_int (p, m->proc);
  put_int (p, process);
  put_int (p, (long long) n + 1);
  put_int (p, 2);
  put_int (p, (long long) m->seq);
  for (size_t i = 0; i < n; i++)
    put_int (p, data[i]);
  p->buf[p->len - 1] = '\n';
  return after_append (p);
}

int
viper_probe_emit (ViperProbeModule *m, int rec, int ev, int process, size_t n, const int64_t *data)
{
  int rc;
  pthread_mutex_lock (&m->p->lock);
  rc = emit_locked (m, false, 0.0, rec, ev, process, n, data);
  pthread_mutex_unlock (&m->p->lock);
  return rc;
}

int
viper_probe_emit_at (ViperProbeModule *m, double time, int rec, int ev, int process,
                     size_t n, const int64_t *data)
{
  int rc;
  pthread_mutex_lock (&m->p->lock);
  rc = emit_locked (m, true, time, rec, ev, process, n, data);
  pthread_mutex_unlock (&m->p->lock);
  return rc;
}
