/* test-probe.c - unit tests of libviperprobe.
 *
 * The library is tested through what a reader sees: the bytes in a file or
 * on a Unix socket.  The socket test runs in one thread without waiting for
 * anything: connect() completes against the listen backlog, the few
 * kilobytes written fit in the socket buffer, and the test accepts and reads
 * to end of file only after the probe has closed.  The write-bound tests
 * (a viewer that stops reading, one that reads slowly) run where a probe
 * that waits for ever fails the test instead of holding it: a subprocess
 * with a time limit; so do the FIFO tests (a FIFO nobody reads, one whose
 * reader comes).
 */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "viper-probe.h"

typedef struct {
  char *dir;
  char *path;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  (void) data;
  f->dir = g_dir_make_tmp ("viper-probe-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->path = g_build_filename (f->dir, "out.trc", NULL);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  (void) data;
  g_unlink (f->path);
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->dir);
}

static char *
slurp (const char *path)
{
  char *s = NULL;
  g_assert_true (g_file_get_contents (path, &s, NULL, NULL));
  return s;
}

static double
fake_clock (void *user_data)
{
  double *t = user_data;
  double v = *t;
  *t += 0.75;
  return v;
}

static void
test_file (Fixture *f, gconstpointer data)
{
  ViperProbe *p = viper_probe_open (f->path);
  ViperProbeModule *m, *pm;
  double t = 1.5;
  int64_t d[] = { 5, 0 }, list[] = { 1, 2 };
  char *s;

  (void) data;
  g_assert_nonnull (p);
  m = viper_probe_module_new (p, 3);
  pm = viper_probe_module_new (p, -1);
  viper_probe_module_set_clock (m, fake_clock, &t);
  g_assert_cmpint (viper_probe_emit (m, 1, 10, 0, 0, NULL), ==, 0);
  g_assert_cmpint (viper_probe_emit (m, 2, 14, 0, 2, d), ==, 0);
  g_assert_cmpint (viper_probe_emit_at (pm, -2.5, 6, 25, 0, 2, list), ==, 0);
  g_assert_cmpint (viper_probe_emit_at (m, -0.0001, 1, 11, 0, 0, NULL), ==, 0);
  g_assert_cmpuint (viper_probe_module_seq (m), ==, 3);
  g_assert_cmpuint (viper_probe_module_seq (pm), ==, 1);
  g_assert_cmpint (viper_probe_comment (p, "two\nlines"), ==, 0);
  viper_probe_set_time_decimals (p, 0);
  g_assert_cmpint (viper_probe_emit_at (pm, 12100, 1, 13, 0, 0, NULL), ==, 0);
  g_assert_cmpint (viper_probe_emit_at (pm, 1.0 / 0.0, 1, 13, 0, 0, NULL), ==, -1);
  g_assert_nonnull (strstr (viper_probe_error (p), "finite"));
  g_assert_cmpuint (viper_probe_lines_lost (p), ==, 0);   /* refused, not lost: the channel works */
  viper_probe_module_free (m);
  viper_probe_module_free (pm);
  g_assert_cmpint (viper_probe_close (p), ==, 0);

  s = slurp (f->path);
  g_assert_cmpstr (s, ==,
                   "1 10 1.500 3 0 1 2 1\n"
                   "2 14 2.250 3 0 3 2 2 5 0\n"
                   "6 25 -2.500 -1 0 3 2 1 1 2\n"
                   "1 11 0.000 3 0 1 2 3\n"
                   "# two lines\n"
                   "1 13 12100 -1 0 1 2 2\n");
  g_free (s);
}

static void
test_default_clock (Fixture *f, gconstpointer data)
{
  ViperProbe *p = viper_probe_open (f->path);
  ViperProbeModule *m = viper_probe_module_new (p, 0);
  char **lines, *s;
  double prev = -1;

  (void) data;
  for (int i = 0; i < 50; i++)
    g_assert_cmpint (viper_probe_emit (m, 1, 13, 0, 1, (int64_t[]) { 0 }), ==, 0);
  viper_probe_module_free (m);
  g_assert_cmpint (viper_probe_close (p), ==, 0);
  s = slurp (f->path);
  lines = g_strsplit (s, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 51);
  for (int i = 0; i < 50; i++) {
    char **fld = g_strsplit (lines[i], " ", -1);
    double t = g_ascii_strtod (fld[2], NULL);
    g_assert_cmpfloat (t, >=, prev);  /* CLOCK_MONOTONIC never goes back */
    prev = t;
    g_assert_cmpint (g_ascii_strtoll (fld[7], NULL, 10), ==, i + 1);
    g_strfreev (fld);
  }
  g_strfreev (lines);
  g_free (s);
}

static gint64
file_size (const char *path)
{
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_size;
}

static void
test_buffering (Fixture *f, gconstpointer data)
{
  ViperProbe *p = viper_probe_open (f->path);
  ViperProbeModule *m = viper_probe_module_new (p, 1);
  gint64 size;

  (void) data;
  g_assert_cmpint (viper_probe_set_buffering (p, true), ==, 0);
  for (int i = 0; i < 10; i++)
    viper_probe_emit_at (m, i, 1, 13, 0, 1, (int64_t[]) { 0 });
  g_assert_cmpint (file_size (f->path), ==, 0);
  g_assert_cmpuint (viper_probe_buffered (p), >, 0);
  g_assert_cmpint (viper_probe_flush (p), ==, 0);
  size = file_size (f->path);
  g_assert_cmpint (size, >, 0);
  g_assert_cmpuint (viper_probe_buffered (p), ==, 0);

  /* tracing(off): nothing written, no sequence number used */
  viper_probe_module_set_tracing (m, false);
  g_assert_cmpint (viper_probe_emit_at (m, 99, 1, 13, 0, 1, (int64_t[]) { 0 }), ==, 0);
  g_assert_cmpuint (viper_probe_module_seq (m), ==, 10);
  viper_probe_module_set_tracing (m, true);

  /* a limit writes out instead of dropping */
  viper_probe_set_buffer_limit (p, 100);
  for (int i = 0; i < 20; i++)
    viper_probe_emit_at (m, i, 1, 13, 0, 1, (int64_t[]) { 0 });
  g_assert_cmpint (file_size (f->path), >, size);
  g_assert_cmpuint (viper_probe_buffered (p), <, 100);
  /* switching buffering off writes the rest */
  g_assert_cmpint (viper_probe_set_buffering (p, false), ==, 0);
  g_assert_cmpuint (viper_probe_buffered (p), ==, 0);
  viper_probe_module_free (m);
  g_assert_cmpint (viper_probe_close (p), ==, 0);
  {
    char *s = slurp (f->path);
    char **lines = g_strsplit (s, "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, 31);
    g_assert_true (g_str_has_suffix (lines[29], " 2 30 0"));
    g_strfreev (lines);
    g_free (s);
  }
}

static int
listen_unix (const char *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM, 0);
  g_assert_cmpint (fd, >=, 0);
  g_strlcpy (sa.sun_path, path, sizeof sa.sun_path);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  g_assert_cmpint (listen (fd, 4), ==, 0);
  return fd;
}

static void
test_unix (Fixture *f, gconstpointer data)
{
  char *sock = g_build_filename (f->dir, "viper.sock", NULL);
  char *dest = g_strconcat ("unix:", sock, NULL);
  int lfd = listen_unix (sock), cfd;
  ViperProbe *p = viper_probe_open (dest);
  ViperProbeModule *m;
  GString *got = g_string_new (NULL);
  char buf[4096];
  ssize_t k;
  char **lines;

  (void) data;
  g_assert_nonnull (p);
  m = viper_probe_module_new (p, 7);
  for (int i = 0; i < 100; i++)
    g_assert_cmpint (viper_probe_emit_at (m, i * 0.5, 4, 14, 1, 2, (int64_t[]) { 2, 0 }), ==, 0);
  viper_probe_module_free (m);
  g_assert_cmpint (viper_probe_close (p), ==, 0);

  cfd = accept (lfd, NULL, NULL);
  g_assert_cmpint (cfd, >=, 0);
  while ((k = read (cfd, buf, sizeof buf)) > 0)
    g_string_append_len (got, buf, k);
  g_assert_cmpint (k, ==, 0);
  lines = g_strsplit (got->str, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 101);
  for (int i = 0; i < 100; i++) {
    char *want = g_strdup_printf ("4 14 %.3f 7 1 3 2 %d 2 0", i * 0.5, i + 1);
    g_assert_cmpstr (lines[i], ==, want);
    g_free (want);
  }
  g_strfreev (lines);
  g_string_free (got, TRUE);
  close (cfd);

  /* a peer that went away: an error, not SIGPIPE */
  p = viper_probe_open (dest);
  g_assert_nonnull (p);
  cfd = accept (lfd, NULL, NULL);
  close (cfd);
  m = viper_probe_module_new (p, 7);
  {
    int rc = 0;
    for (int i = 0; i < 1000 && rc == 0; i++)
      rc = viper_probe_emit_at (m, i, 1, 10, 0, 0, NULL);
    g_assert_cmpint (rc, ==, -1);
    g_assert_true (g_str_has_prefix (viper_probe_error (p), "write: "));
    /* the line being written is counted, and each later one */
    g_assert_true (g_str_has_suffix (viper_probe_error (p), "; 1 line of this channel was not delivered, nor will later ones be"));
    g_assert_cmpuint (viper_probe_lines_lost (p), ==, 1);
    g_assert_cmpint (viper_probe_emit_at (m, 0, 1, 10, 0, 0, NULL), ==, -1);  /* stays broken */
    g_assert_cmpuint (viper_probe_lines_lost (p), ==, 2);
    viper_probe_module_set_tracing (m, false);   /* discarded on purpose: not lost */
    g_assert_cmpint (viper_probe_emit_at (m, 0, 1, 10, 0, 0, NULL), ==, -1);
    g_assert_cmpuint (viper_probe_lines_lost (p), ==, 2);
  }
  viper_probe_module_free (m);
  g_assert_cmpint (viper_probe_close (p), ==, -1);
  g_assert_true (g_str_has_suffix (viper_probe_error (NULL), "; 2 lines of this channel were not delivered"));

  close (lfd);
  g_unlink (sock);
  g_free (dest);
  g_free (sock);
}

static void
test_errors (Fixture *f, gconstpointer data)
{
  char *missing = g_build_filename (f->dir, "no", "such", "dir", NULL);
  char *dest = g_strconcat ("unix:", missing, NULL);

  (void) data;
  g_assert_null (viper_probe_open (dest));
  g_assert_nonnull (strstr (viper_probe_error (NULL), "connect"));
  g_assert_null (viper_probe_open (missing));
  g_assert_nonnull (strstr (viper_probe_error (NULL), missing));
  g_assert_null (viper_probe_open ("tcp:nohostorport"));
  g_assert_nonnull (strstr (viper_probe_error (NULL), "HOST:PORT"));
  g_assert_null (viper_probe_open (""));
  g_assert_cmpint (viper_probe_close (NULL), ==, 0);
  g_free (dest);
  g_free (missing);
}

typedef struct {
  ViperProbe *p;
  int proc;
} Worker;

static void *
worker (void *data)
{
  Worker *w = data;
  ViperProbeModule *m = viper_probe_module_new (w->p, w->proc);
  for (int i = 0; i < 2000; i++)
    g_assert_cmpint (viper_probe_emit (m, 2, 16, 0, 2, (int64_t[]) { w->proc, i }), ==, 0);
  viper_probe_module_free (m);
  return NULL;
}

static void
test_threads (Fixture *f, gconstpointer data)
{
  ViperProbe *p = viper_probe_open (f->path);
  pthread_t th[4];
  Worker w[4];
  gint64 next[4] = { 1, 1, 1, 1 };
  double last[4] = { -1, -1, -1, -1 };
  char *s, **lines;

  (void) data;
  viper_probe_set_buffering (p, true);
  viper_probe_set_buffer_limit (p, 8192);
  for (int i = 0; i < 4; i++) {
    w[i] = (Worker) { p, i };
    g_assert_cmpint (pthread_create (&th[i], NULL, worker, &w[i]), ==, 0);
  }
  for (int i = 0; i < 4; i++)
    pthread_join (th[i], NULL);
  g_assert_cmpint (viper_probe_close (p), ==, 0);
  s = slurp (f->path);
  lines = g_strsplit (s, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 8001);
  for (int i = 0; i < 8000; i++) {
    char **fld = g_strsplit (lines[i], " ", -1);
    int proc = (int) g_ascii_strtoll (fld[3], NULL, 10);
    double t = g_ascii_strtod (fld[2], NULL);
    g_assert_cmpuint (g_strv_length (fld), ==, 10);
    g_assert_cmpint (proc, >=, 0);
    g_assert_cmpint (proc, <, 4);
    /* whole lines, each module's in sequence order, its clock never back */
    g_assert_cmpint (g_ascii_strtoll (fld[7], NULL, 10), ==, next[proc]);
    g_assert_cmpint (g_ascii_strtoll (fld[9], NULL, 10), ==, next[proc] - 1);
    g_assert_cmpfloat (t, >=, last[proc]);
    next[proc]++;
    last[proc] = t;
    g_strfreev (fld);
  }
  g_strfreev (lines);
  g_free (s);
}

/* A listener that never accepts, its backlog filled: a connect to it waits
 * (TCP: SYNs dropped, about 130 s of retries; Unix: for ever).  The probe
 * gives up after VIPER_PROBE_CONNECT_TIMEOUT seconds with "timed out".  Run
 * in a subprocess with a time limit, so a probe that hangs fails the test
 * instead of holding it. */
static int
full_listener (gboolean unix_socket, const char *dir, char **dest)
{
  int lfd;
  struct sockaddr_storage ss;
  socklen_t len;
  memset (&ss, 0, sizeof ss);
  if (unix_socket) {
    struct sockaddr_un *sa = (struct sockaddr_un *) &ss;
    char *path = g_build_filename (dir, "full.sock", NULL);
    sa->sun_family = AF_UNIX;
    g_strlcpy (sa->sun_path, path, sizeof sa->sun_path);
    len = sizeof *sa;
    *dest = g_strconcat ("unix:", path, NULL);
    g_free (path);
    lfd = socket (AF_UNIX, SOCK_STREAM, 0);
  } else {
    struct sockaddr_in *sa = (struct sockaddr_in *) &ss;
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    len = sizeof *sa;
    lfd = socket (AF_INET, SOCK_STREAM, 0);
  }
  g_assert_cmpint (lfd, >=, 0);
  g_assert_cmpint (bind (lfd, (struct sockaddr *) &ss, len), ==, 0);
  g_assert_cmpint (listen (lfd, 0), ==, 0);
  if (!unix_socket) {
    g_assert_cmpint (getsockname (lfd, (struct sockaddr *) &ss, &len), ==, 0);
    *dest = g_strdup_printf ("tcp:127.0.0.1:%u", ntohs (((struct sockaddr_in *) &ss)->sin_port));
  }
  /* fill the backlog (never closed: the subprocess exits) */
  for (int i = 0; i < 8; i++) {
    int fd = socket (ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    g_assert_cmpint (fd, >=, 0);
    if (connect (fd, (struct sockaddr *) &ss, len) < 0 && errno == EAGAIN)
      break;   /* Unix: the backlog is full */
  }
  return lfd;
}

/* Each kind (PROBE_TEST_KIND; one run with none when kinds is NULL) in a
 * subprocess of this test that is killed after seconds: a probe that waits
 * for ever fails the test instead of holding it.  run gets the fixture's
 * directory and the kind. */
typedef void (*SubprocessRun) (const char *dir, const char *kind);

static void
in_subprocess (Fixture *f, SubprocessRun run, const char *const *kinds, guint n_kinds, guint seconds)
{
  if (g_test_subprocess ()) {
    run (g_getenv ("PROBE_TEST_DIR"), g_getenv ("PROBE_TEST_KIND"));
    return;
  }
  for (guint i = 0; i < MAX (n_kinds, 1u); i++) {
    if (kinds)
      g_setenv ("PROBE_TEST_KIND", kinds[i], TRUE);
    g_setenv ("PROBE_TEST_DIR", f->dir, TRUE);
    g_test_trap_subprocess (NULL, (guint64) seconds * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
    g_test_trap_assert_passed ();
  }
}

static void
connect_timeout_kind (const char *dir, const char *kind)
{
  char *dest = NULL;
  full_listener (kind[0] == 'u', dir, &dest);
  g_setenv ("VIPER_PROBE_CONNECT_TIMEOUT", "0.3", TRUE);
  gint64 t0 = g_get_monotonic_time ();
  ViperProbe *p = viper_probe_open (dest);
  gint64 t1 = g_get_monotonic_time ();
  g_assert_null (p);
  g_assert_nonnull (strstr (viper_probe_error (NULL), "timed out"));
  g_assert_cmpint (t1 - t0, >=, 250000);
  g_free (dest);
}

static void
test_connect_timeout (Fixture *f, gconstpointer data)
{
  (void) data;
  static const char *const kinds[] = { "tcp", "unix" };
  in_subprocess (f, connect_timeout_kind, kinds, G_N_ELEMENTS (kinds), 20);
}

/* ---- the write bound: a viewer that stops reading ----------------------- */

/* Everything the reader fd gives until end of file, waiting at most 10 s
 * for each piece (the writer has closed or shut down: nothing should wait).
 * Bounded by reads of a byte at least: a FIFO written a line at a time may
 * hand over one line a read, 200,000 of them when the reader keeps up
 * (100,000 reads was too few on a loaded machine). */
static GString *
read_to_eof (int fd)
{
  GString *got = g_string_new (NULL);
  char buf[65536];
  for (long i = 0; i < 64L * 1024 * 1024; i++) {
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    g_assert_cmpint (poll (&pfd, 1, 10000), ==, 1);
    ssize_t k = read (fd, buf, sizeof buf);
    g_assert_cmpint (k, >=, 0);
    if (k == 0)
      return got;
    g_string_append_len (got, buf, k);
  }
  g_assert_not_reached ();
}

/* The complete lines of a received stream, checked: line k (from 0) is the
 * module's tram SEQ k + 1 with datum k (written by emit_numbered).  Returns
 * how many; a cut last line (the one the break interrupted) is allowed. */
static long
check_numbered (const GString *got)
{
  long k = 0;
  const char *c = got->str, *end = got->str + got->len;
  while (c < end) {
    const char *nl = memchr (c, '\n', (size_t) (end - c));
    if (!nl)
      break;   /* the line the break cut */
    char *line = g_strndup (c, (gsize) (nl - c));
    char *want = g_strdup_printf ("1 13 %ld.000 5 0 2 2 %ld %ld", k, k + 1, k);
    g_assert_cmpstr (line, ==, want);
    g_free (want);
    g_free (line);
    k++;
    c = nl + 1;
  }
  return k;
}

static int
emit_numbered (ViperProbeModule *m, long k)
{
  return viper_probe_emit_at (m, (double) k, 1, 13, 0, 1, (int64_t[]) { k });
}

/* The subprocess: a reader (Unix socket or FIFO) that never reads. */
static void
stalled_run (const char *dir, gboolean fifo, gboolean buffered)
{
  char *path = g_build_filename (dir, fifo ? "stalled.fifo" : "stalled.sock", NULL);
  char *dest = g_strconcat (fifo ? "file:" : "unix:", path, NULL);
  int lfd = -1, rfd = -1;
  if (fifo) {
    g_assert_cmpint (mkfifo (path, 0600), ==, 0);
    rfd = open (path, O_RDONLY | O_NONBLOCK);   /* a reader, so the probe's open does not wait */
    g_assert_cmpint (rfd, >=, 0);
  } else {
    lfd = listen_unix (path);
  }
  g_setenv ("VIPER_PROBE_WRITE_TIMEOUT", "0.2", TRUE);
  ViperProbe *p = viper_probe_open (dest);
  g_assert_nonnull (p);
  if (!fifo) {
    rfd = accept (lfd, NULL, NULL);
    g_assert_cmpint (rfd, >=, 0);
  }
  if (buffered) {
    viper_probe_set_buffering (p, true);
    viper_probe_set_buffer_limit (p, 16384);
  }
  ViperProbeModule *m = viper_probe_module_new (p, 5);

  /* emit until the reader's buffer is full and the bound passes */
  int rc = 0;
  long emitted = 0;
  gint64 took = 0;
  while (rc == 0 && emitted < 2000000) {
    gint64 t0 = g_get_monotonic_time ();
    rc = emit_numbered (m, emitted++);
    took = g_get_monotonic_time () - t0;
  }
  g_assert_cmpint (rc, ==, -1);
  g_assert_cmpint (took, >=, 190000);    /* it waited for the bound ... */
  g_assert_cmpint (took, <, 5000000);    /* ... and not much longer */
  uint64_t lost = viper_probe_lines_lost (p);
  g_assert_cmpuint (lost, >=, 1);
  if (!buffered)
    g_assert_cmpuint (lost, ==, 1);      /* the line being written */
  else
    g_assert_cmpuint (lost, >, 1);       /* the buffer's lines too */
  char *want = g_strdup_printf ("%s stopped reading: nothing could be written for 0.2 s; %" G_GUINT64_FORMAT
                                " line%s of this channel %s not delivered, nor will later ones be",
                                fifo ? "the reader" : "the viewer", lost, lost == 1 ? "" : "s",
                                lost == 1 ? "was" : "were");
  g_assert_cmpstr (viper_probe_error (p), ==, want);
  g_free (want);

  /* from now on every call fails at once, counted; the error stays */
  char *err = g_strdup (viper_probe_error (p));
  gint64 t0 = g_get_monotonic_time ();
  for (int i = 0; i < 100; i++)
    g_assert_cmpint (emit_numbered (m, emitted + i), ==, -1);
  g_assert_cmpint (viper_probe_comment (p, "late"), ==, -1);
  g_assert_cmpint (viper_probe_flush (p), ==, -1);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 100000);
  g_assert_cmpuint (viper_probe_lines_lost (p), ==, lost + 101);
  g_assert_cmpstr (viper_probe_error (p), ==, err);
  g_free (err);
  viper_probe_module_free (m);
  g_assert_cmpint (viper_probe_close (p), ==, -1);
  want = g_strdup_printf ("%s stopped reading: nothing could be written for 0.2 s; %" G_GUINT64_FORMAT
                          " lines of this channel were not delivered",
                          fifo ? "the reader" : "the viewer", lost + 101);
  g_assert_cmpstr (viper_probe_error (NULL), ==, want);
  g_free (want);

  /* the reader got every line up to the break, whole and in order, and then
   * the end of the stream; with the lost ones that is every line emitted */
  GString *got = read_to_eof (rfd);
  g_assert_cmpint (check_numbered (got) + (long) lost, ==, emitted);
  g_string_free (got, TRUE);
  close (rfd);
  if (lfd >= 0)
    close (lfd);
  g_unlink (path);
  g_free (dest);
  g_free (path);
}

static void
stalled_kind (const char *dir, const char *kind)
{
  stalled_run (dir, kind[0] == 'f', strstr (kind, "buffered") != NULL);
}

static void
test_write_timeout (Fixture *f, gconstpointer data)
{
  (void) data;
  static const char *const kinds[] = { "unix", "unix buffered", "fifo", "fifo buffered" };
  in_subprocess (f, stalled_kind, kinds, G_N_ELEMENTS (kinds), 20);
}

/* VIPER_PROBE_WRITE_TIMEOUT=0: no bound, the write waits for the reader as
 * long as it takes.  The subprocess fills a stalled socket and must still
 * be waiting when its time limit kills it. */
static void
test_write_timeout_zero (Fixture *f, gconstpointer data)
{
  (void) data;
  if (g_test_subprocess ()) {
    char *path = g_build_filename (g_getenv ("PROBE_TEST_DIR"), "zero.sock", NULL);
    char *dest = g_strconcat ("unix:", path, NULL);
    int lfd = listen_unix (path);
    g_setenv ("VIPER_PROBE_WRITE_TIMEOUT", "0", TRUE);
    ViperProbe *p = viper_probe_open (dest);
    g_assert_nonnull (p);
    int rfd = accept (lfd, NULL, NULL);
    g_assert_cmpint (rfd, >=, 0);
    ViperProbeModule *m = viper_probe_module_new (p, 5);
    printf ("filling\n");
    fflush (stdout);
    for (long k = 0; k < 2000000; k++)
      if (emit_numbered (m, k) != 0)
        break;
    printf ("returned: %s\n", viper_probe_error (p));
    return;
  }
  g_setenv ("PROBE_TEST_DIR", f->dir, TRUE);
  g_test_trap_subprocess (NULL, 2 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();                 /* killed at the time limit */
  g_test_trap_assert_stdout ("filling\n");      /* while it was writing */
  char *sock = g_build_filename (f->dir, "zero.sock", NULL);
  g_unlink (sock);
  g_free (sock);
}

/* A viewer that reads, slowly: the program is slowed (its writes wait), but
 * never for the bound at a time, so nothing is lost even though writing
 * takes far longer than the bound in all. */
typedef struct {
  int lfd;
  GString *got;
} SlowReader;

static void *
slow_reader (void *data)
{
  SlowReader *r = data;
  char buf[8192];
  int fd = accept (r->lfd, NULL, NULL);
  g_assert_cmpint (fd, >=, 0);
  for (int i = 0; i < 100000; i++) {
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    g_assert_cmpint (poll (&pfd, 1, 10000), ==, 1);
    ssize_t k = read (fd, buf, sizeof buf);
    g_assert_cmpint (k, >=, 0);
    if (k == 0)
      break;
    g_string_append_len (r->got, buf, k);
    poll (NULL, 0, 5);   /* pacing, not synchronisation: 8 KiB every 5 ms at most */
  }
  close (fd);
  return NULL;
}

static void
slow_run (const char *dir, gboolean buffered)
{
  char *path = g_build_filename (dir, "slow.sock", NULL);
  char *dest = g_strconcat ("unix:", path, NULL);
  SlowReader r = { listen_unix (path), g_string_new (NULL) };
  pthread_t th;
  const long n = 100000;   /* about 3.5 MB: at most 1.6 MB/s read, so over 2 s */

  g_setenv ("VIPER_PROBE_WRITE_TIMEOUT", "1", TRUE);
  ViperProbe *p = viper_probe_open (dest);
  g_assert_nonnull (p);
  g_assert_cmpint (pthread_create (&th, NULL, slow_reader, &r), ==, 0);
  ViperProbeModule *m = viper_probe_module_new (p, 5);
  if (buffered)
    viper_probe_set_buffering (p, true);   /* unbounded: one flush writes it all */
  gint64 t0 = g_get_monotonic_time ();
  for (long k = 0; k < n; k++)
    g_assert_cmpint (emit_numbered (m, k), ==, 0);
  g_assert_cmpint (viper_probe_flush (p), ==, 0);
  gint64 took = g_get_monotonic_time () - t0;
  g_assert_cmpint (took, >, 1000000);      /* longer than the bound in all */
  g_assert_cmpuint (viper_probe_lines_lost (p), ==, 0);
  g_assert_cmpstr (viper_probe_error (p), ==, "");
  viper_probe_module_free (m);
  g_assert_cmpint (viper_probe_close (p), ==, 0);
  g_assert_cmpint (pthread_join (th, NULL), ==, 0);
  g_assert_cmpint (check_numbered (r.got), ==, n);   /* all of them, in order */
  g_assert_cmpint (r.got->str[r.got->len - 1], ==, '\n');
  g_string_free (r.got, TRUE);
  close (r.lfd);
  g_unlink (path);
  g_free (dest);
  g_free (path);
}

static void
slow_kind (const char *dir, const char *kind)
{
  slow_run (dir, g_str_equal (kind, "buffered"));
}

static void
test_slow_viewer (Fixture *f, gconstpointer data)
{
  (void) data;
  static const char *const kinds[] = { "direct", "buffered" };
  in_subprocess (f, slow_kind, kinds, G_N_ELEMENTS (kinds), 30);
}

/* ---- a FIFO destination ------------------------------------------------ */

/* A FIFO nobody opens for reading: a plain open() for writing would wait
 * for ever.  The probe waits at most VIPER_PROBE_CONNECT_TIMEOUT seconds
 * (default 5), for a plain path and for file:PATH alike, and says so.  In
 * a subprocess with a time limit, so a probe that hangs fails the test. */
static void
fifo_no_reader_run (const char *dir, const char *kind)
{
  (void) kind;
  char *path = g_build_filename (dir, "lonely.fifo", NULL);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  static const struct {
    const char *timeout, *prefix, *shown;
    gint64 min_us;
  } cases[] = {
    { "0.3", "", "0.3", 250000 },
    { "0.3", "file:", "0.3", 250000 },
    { NULL, "", "5", 4900000 },   /* unset: the default */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    if (cases[i].timeout)
      g_setenv ("VIPER_PROBE_CONNECT_TIMEOUT", cases[i].timeout, TRUE);
    else
      g_unsetenv ("VIPER_PROBE_CONNECT_TIMEOUT");
    char *dest = g_strconcat (cases[i].prefix, path, NULL);
    gint64 t0 = g_get_monotonic_time ();
    ViperProbe *p = viper_probe_open (dest);
    gint64 took = g_get_monotonic_time () - t0;
    g_assert_null (p);
    g_assert_cmpint (errno, ==, ETIMEDOUT);
    char *want = g_strdup_printf ("%s: no reader opened the FIFO within %s s", path, cases[i].shown);
    g_assert_cmpstr (viper_probe_error (NULL), ==, want);
    g_assert_cmpint (took, >=, cases[i].min_us);                 /* it waited for the bound ... */
    g_assert_cmpint (took, <, cases[i].min_us + 3000000);        /* ... and not much longer */
    g_free (want);
    g_free (dest);
  }
  /* still a FIFO: neither truncated into nor replaced by a regular file */
  struct stat st;
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  g_unlink (path);
  g_free (path);
}

static void
test_fifo_no_reader (Fixture *f, gconstpointer data)
{
  (void) data;
  in_subprocess (f, fifo_no_reader_run, NULL, 0, 20);
}

/* A FIFO whose reader opens it (a thread doing a blocking open, before or
 * after the probe's first try: either way the probe's open succeeds) gets
 * every line: a 200,000-line stream, far more than the pipe holds, arrives
 * whole and in order. */
typedef struct {
  const char *path;
  GString *got;
} FifoReader;

static void *
fifo_reader (void *data)
{
  FifoReader *r = data;
  int fd = open (r->path, O_RDONLY | O_CLOEXEC);   /* waits for the writer */
  g_assert_cmpint (fd, >=, 0);
  r->got = read_to_eof (fd);
  close (fd);
  return NULL;
}

static void
fifo_reader_run (const char *dir, const char *kind)
{
  (void) kind;
  char *path = g_build_filename (dir, "read.fifo", NULL);
  FifoReader r = { path, NULL };
  pthread_t th;
  const long n = 200000;

  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  g_setenv ("VIPER_PROBE_CONNECT_TIMEOUT", "10", TRUE);
  g_assert_cmpint (pthread_create (&th, NULL, fifo_reader, &r), ==, 0);
  ViperProbe *p = viper_probe_open (path);
  g_assert_nonnull (p);
  ViperProbeModule *m = viper_probe_module_new (p, 5);
  for (long k = 0; k < n; k++)
    g_assert_cmpint (emit_numbered (m, k), ==, 0);
  viper_probe_module_free (m);
  g_assert_cmpint (viper_probe_close (p), ==, 0);
  g_assert_cmpint (pthread_join (th, NULL), ==, 0);
  g_assert_cmpint (check_numbered (r.got), ==, n);
  g_assert_cmpint (r.got->str[r.got->len - 1], ==, '\n');
  g_string_free (r.got, TRUE);
  g_unlink (path);
  g_free (path);
}

static void
test_fifo_reader (Fixture *f, gconstpointer data)
{
  (void) data;
  in_subprocess (f, fifo_reader_run, NULL, 0, 30);
}

/* Both bounds are parsed by one strict rule: seconds 0..3600, digits and
 * one point; anything else makes the open fail, naming the variable. */
static void
test_timeout_values (Fixture *f, gconstpointer data)
{
  static const char *const vars[] = { "VIPER_PROBE_WRITE_TIMEOUT", "VIPER_PROBE_CONNECT_TIMEOUT" };
  static const char *const bad[] = { "abc", "-1", "1e3", " 5", "5 ", "5s", "3600.5", "99999", "inf", "nan",
                                     "0x10", "1.2.3", ".", "+1", "1,5" };
  static const char *const good[] = { "", "0", "0.2", "10", "3600", ".5", "7." };

  (void) data;
  for (guint v = 0; v < G_N_ELEMENTS (vars); v++) {
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
      g_setenv (vars[v], bad[i], TRUE);
      g_assert_null (viper_probe_open (f->path));
      char *want = g_strdup_printf ("%s='%s': expected seconds from 0 to 3600 (0: no bound)", vars[v], bad[i]);
      g_assert_cmpstr (viper_probe_error (NULL), ==, want);
      g_free (want);
    }
    for (guint i = 0; i < G_N_ELEMENTS (good); i++) {
      g_setenv (vars[v], good[i], TRUE);
      ViperProbe *p = viper_probe_open (f->path);
      g_assert_nonnull (p);
      g_assert_cmpint (viper_probe_close (p), ==, 0);
    }
    g_unsetenv (vars[v]);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add (name, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("/probe/file", test_file);
  ADD ("/probe/default-clock", test_default_clock);
  ADD ("/probe/buffering", test_buffering);
  ADD ("/probe/unix", test_unix);
  ADD ("/probe/errors", test_errors);
  ADD ("/probe/threads", test_threads);
  ADD ("/probe/connect-timeout", test_connect_timeout);
  ADD ("/probe/write-timeout", test_write_timeout);
  ADD ("/probe/write-timeout-zero", test_write_timeout_zero);
  ADD ("/probe/slow-viewer", test_slow_viewer);
  ADD ("/probe/timeout-values", test_timeout_values);
  ADD ("/probe/fifo-no-reader", test_fifo_no_reader);
  ADD ("/probe/fifo-reader", test_fifo_reader);
  return g_test_run ();
}
