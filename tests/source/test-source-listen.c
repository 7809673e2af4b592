/* test-source-listen.c - the socket listener (spec picl.md section 4).
 *
 * Senders are real threads with blocking sockets on loopback; the listener
 * runs in this thread's main loop, exactly as in viper.  Each test runs the
 * loop until a condition on what arrived holds (trams taken, connections
 * closed), with a watchdog timeout that fails the test instead of hanging.
 * No sleeps are used to synchronise anything.
 *
 * The sender lines are PICL blocking-send begins,
 *     -3 -21 T P 0 4 2 COUNTER 7 0 0
 * where P is the sender's id and the first data field counts its lines, so
 * that every tram says which sender wrote it and where in its stream.
 */
#include "core/source.h"
#include "core/tramparse.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gio/gunixsocketaddress.h>

#define WATCHDOG_S 60

/* ---- listen(2) seen from inside --------------------------------------------
 * This program's listen() runs before libc's: when listen_watch names a path,
 * it records whether a file was already there when the socket started to
 * listen.  A client that waits for the socket file and then connects must
 * never be refused, so the file must not exist before listen(). */
static const char *listen_watch;
static int listen_calls, listen_saw_file;

int
listen (int fd, int backlog)
{
  int (*real) (int, int) = (int (*) (int, int)) dlsym (RTLD_NEXT, "listen");
  if (listen_watch)
    {
      listen_calls++;
      if (access (listen_watch, F_OK) == 0)
        listen_saw_file++;
    }
  return real (fd, backlog);
}

/* ---- fixture: pool, channels, captured diagnostics, one listener ---------- */

typedef struct {
  GPtrArray *bad, *conn_events;
  guint warnings;
} Capture;

static void
capture_sink (ViperDiagKind kind, const char *message, gpointer user_data)
{
  Capture *cap = user_data;
  if (kind == VIPER_DIAG_BAD_INPUT)
    g_ptr_array_add (cap->bad, g_strdup (message));
  else if (kind == VIPER_DIAG_CONNECTION)
    g_ptr_array_add (cap->conn_events, g_strdup (message));
  else if (kind == VIPER_DIAG_WARNING)
    cap->warnings++;
}

typedef struct {
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag diag;
  Capture cap;
  ViperTramSource *src;
  GMainLoop *loop;
  gboolean timed_out;
  char *dir;

  /* what the test waits for */
  guint want_trams, want_conns;
  /* what arrived; indexed by channel id / sender id */
  guint got;
  GArray *chan_sender;      /* gint64: sender seen on the channel, -1 = none yet */
  GArray *chan_next;        /* gint64: next counter expected on the channel */
  GArray *sender_count;     /* guint */
  guint order_errors;
  guint line_errors;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  (void) data;
  f->pool = viper_tram_pool_new ();
  f->channels = viper_channels_new ();
  f->cap.bad = g_ptr_array_new_with_free_func (g_free);
  f->cap.conn_events = g_ptr_array_new_with_free_func (g_free);
  viper_diag_init (&f->diag, capture_sink, &f->cap);
  f->loop = g_main_loop_new (NULL, FALSE);
  f->chan_sender = g_array_new (FALSE, TRUE, sizeof (gint64));
  f->chan_next = g_array_new (FALSE, TRUE, sizeof (gint64));
  f->sender_count = g_array_new (FALSE, TRUE, sizeof (guint));
  f->dir = g_dir_make_tmp ("viper-listen-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  (void) data;
  if (f->src)
    viper_tram_source_free (f->src);
  g_assert_cmpuint (viper_tram_pool_live (f->pool), ==, 0);
  viper_diag_clear (&f->diag);
  g_ptr_array_unref (f->cap.bad);
  g_ptr_array_unref (f->cap.conn_events);
  viper_channels_free (f->channels);
  viper_tram_pool_free (f->pool);
  g_main_loop_unref (f->loop);
  g_array_unref (f->chan_sender);
  g_array_unref (f->chan_next);
  g_array_unref (f->sender_count);
  g_assert_cmpint (g_rmdir (f->dir), ==, 0);
  g_free (f->dir);
}

static gboolean
done (Fixture *f)
{
  return f->got >= f->want_trams
         && viper_listen_source_total_connections (f->src) >= f->want_conns
         && viper_listen_source_open_connections (f->src) == 0;
}

/* The engine's part: take everything, check per-channel order. */
static void
on_ready (ViperTramSource *src, gpointer user_data)
{
  Fixture *f = user_data;
  ViperTram *t;

  while ((t = viper_get_tram (src)) != NULL)
    {
      guint ch = t->channel;
      gint64 sender = t->proc, counter = viper_tram_datum (t, 0, -1);

      if (ch >= f->chan_sender->len)
        {
          gint64 none = -1, zero = 0;
          while (f->chan_sender->len <= ch)
            {
              g_array_append_val (f->chan_sender, none);
              g_array_append_val (f->chan_next, zero);
            }
        }
      gint64 *cs = &g_array_index (f->chan_sender, gint64, ch);
      gint64 *cn = &g_array_index (f->chan_next, gint64, ch);
      if (*cs == -1)
        *cs = sender;
      if (*cs != sender || counter != *cn)
        f->order_errors++;
      *cn = counter + 1;
      if (sender >= 0 && sender < 100000)
        {
          guint zero = 0;
          while (f->sender_count->len <= (guint) sender)
            g_array_append_val (f->sender_count, zero);
          g_array_index (f->sender_count, guint, sender)++;
        }
      if (t->line == 0)
        f->line_errors++;
      f->got++;
      viper_tram_pool_release (f->pool, t);
    }
  if (done (f))
    g_main_loop_quit (f->loop);
}

static gboolean
on_watchdog (gpointer user_data)
{
  Fixture *f = user_data;
  f->timed_out = TRUE;
  g_main_loop_quit (f->loop);
  return G_SOURCE_REMOVE;
}

static void
run_until_done (Fixture *f)
{
  guint dog = g_timeout_add_seconds (WATCHDOG_S, on_watchdog, f);
  if (!done (f))
    g_main_loop_run (f->loop);
  if (f->timed_out)
    {
      g_test_fail_printf ("watchdog: %u of %u trams, %u of %u connections, %u open",
                          f->got, f->want_trams, viper_listen_source_total_connections (f->src),
                          f->want_conns, viper_listen_source_open_connections (f->src));
      /* Close every connection so that blocked senders fail instead of hanging. */
      viper_tram_source_free (f->src);
      f->src = NULL;
    }
  else
    g_source_remove (dog);
}

static void
start_listener (Fixture *f, const char *address)
{
  GError *error = NULL;
  f->src = viper_listen_source_new (address, f->pool, &f->diag, f->channels, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->src);
  viper_tram_source_set_ready_func (f->src, on_ready, f);
  viper_tram_source_attach (f->src, NULL);
}

/* A GSocketAddress to connect to, from the listener's bound address. */
static GSocketAddress *
connect_address (ViperTramSource *src)
{
  char *host = NULL, *path = NULL;
  guint16 port = 0;
  GError *error = NULL;
  GSocketAddress *sa;

  g_assert_true (viper_listen_address_parse (viper_listen_source_address (src), &host, &port, &path, &error));
  g_assert_no_error (error);
  if (path)
    sa = g_unix_socket_address_new (path);
  else
    sa = g_inet_socket_address_new_from_string (host, port);
  g_assert_nonnull (sa);
  g_free (host);
  g_free (path);
  return sa;
}

/* ---- senders ------------------------------------------------------------------ */

typedef enum { SEND_LINES, SEND_CUT, SEND_GARBAGE, SEND_RESET } SendMode;

typedef struct {
  GSocketAddress *addr;
  int id;
  int lines;
  SendMode mode;
  gsize garbage_run;        /* bytes without '\n' (SEND_GARBAGE) */
  gsize *rss_peak;          /* sampled while sending garbage */
  GMutex *rss_lock;
} Sender;

static void
append_line (GString *s, int id, int counter)
{
  g_string_append_printf (s, "-3 -21 %d.%03d %d 0 4 2 %d 7 0 0\n", counter / 1000, counter % 1000, id, counter);
}

static void
send_all (GSocket *sock, const char *p, gsize len)
{
  /* Odd-sized writes, so lines are cut across reads at every place. */
  const gsize step = 1009;
  for (gsize off = 0; off < len;)
    {
      GError *error = NULL;
      gssize n = g_socket_send (sock, p + off, MIN (step, len - off), NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (n, >, 0);
      off += (gsize) n;
    }
}

static gsize
rss_bytes (void)
{
  char *text = NULL;
  gsize kb = 0;
  if (g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    {
      const char *p = strstr (text, "VmRSS:");
      if (p)
        kb = (gsize) g_ascii_strtoull (p + 6, NULL, 10);
      g_free (text);
    }
  return kb * 1024;
}

static gpointer
sender_thread (gpointer data)
{
  Sender *s = data;
  GError *error = NULL;
  GSocket *sock = g_socket_new (g_socket_address_get_family (s->addr), G_SOCKET_TYPE_STREAM,
                                G_SOCKET_PROTOCOL_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_true (g_socket_connect (sock, s->addr, NULL, &error));
  g_assert_no_error (error);

  GString *text = g_string_new (NULL);
  int first = s->mode == SEND_GARBAGE ? 10 : s->lines;
  for (int i = 0; i < first; i++)
    append_line (text, s->id, i);
  if (s->mode == SEND_CUT)
    g_string_append (text, "-3 -21 9.5 0 0 4 2 1");     /* no '\n': cut off by the close */
  send_all (sock, text->str, text->len);

  if (s->mode == SEND_GARBAGE)
    {
      /* Random bytes (NULs included) without '\n', far beyond VIPER_MAX_LINE:
       * the listener must skip them without buffering them. */
      GRand *rand = g_rand_new_with_seed (4711);
      gsize chunk = 1024 * 1024;
      guint8 *junk = g_malloc (chunk);
      for (gsize sent = 0; sent < s->garbage_run; sent += chunk)
        {
          for (gsize i = 0; i < chunk; i++)
            {
              junk[i] = (guint8) g_rand_int_range (rand, 0, 256);
              if (junk[i] == '\n')
                junk[i] = 0;
            }
          send_all (sock, (const char *) junk, chunk);
          gsize rss = rss_bytes ();
          g_mutex_lock (s->rss_lock);
          *s->rss_peak = MAX (*s->rss_peak, rss);
          g_mutex_unlock (s->rss_lock);
        }
      /* Then short garbage lines (random, NULs, some newlines). */
      for (gsize i = 0; i < 64 * 1024; i++)
        {
          junk[i] = (guint8) g_rand_int_range (rand, 0, 256);
          if (g_rand_int_range (rand, 0, 50) == 0)
            junk[i] = '\n';
        }
      junk[0] = '\n';
      junk[64 * 1024 - 1] = '\n';
      send_all (sock, (const char *) junk, 64 * 1024);
      g_free (junk);
      g_rand_free (rand);
      g_string_truncate (text, 0);
      for (int i = 10; i < s->lines; i++)
        append_line (text, s->id, i);
      send_all (sock, text->str, text->len);
    }

  if (s->mode == SEND_RESET)
    {
      /* Linger 0: close() sends RST instead of FIN. */
      struct linger lg = { 1, 0 };
      g_assert_cmpint (setsockopt (g_socket_get_fd (sock), SOL_SOCKET, SO_LINGER, &lg, sizeof lg), ==, 0);
    }
  g_socket_close (sock, NULL);
  g_object_unref (sock);
  g_string_free (text, TRUE);
  return NULL;
}

static GThread **
start_senders (Fixture *f, Sender *senders, int n, int lines, SendMode mode)
{
  GThread **threads = g_new0 (GThread *, n);
  GSocketAddress *addr = connect_address (f->src);
  for (int i = 0; i < n; i++)
    {
      senders[i].addr = g_object_ref (addr);
      senders[i].id = i;
      senders[i].lines = lines;
      senders[i].mode = mode;
      threads[i] = g_thread_new ("sender", sender_thread, &senders[i]);
    }
  g_object_unref (addr);
  return threads;
}

static void
join_senders (Sender *senders, GThread **threads, int n)
{
  for (int i = 0; i < n; i++)
    {
      g_thread_join (threads[i]);
      g_object_unref (senders[i].addr);
    }
  g_free (threads);
}

static guint
count_events (Fixture *f, const char *suffix)
{
  guint n = 0;
  for (guint i = 0; i < f->cap.conn_events->len; i++)
    if (g_str_has_suffix (f->cap.conn_events->pdata[i], suffix))
      n++;
  return n;
}

/* Every sender's lines arrived exactly once, in order, one channel each. */
static void
check_senders (Fixture *f, int n, int lines, guint32 first_channel)
{
  const char *addr = viper_listen_source_address (f->src);
  g_assert_cmpuint (f->order_errors, ==, 0);
  g_assert_cmpuint (f->line_errors, ==, 0);
  g_assert_cmpuint (f->got, ==, (guint) (n * lines));
  g_assert_cmpuint (f->sender_count->len, ==, (guint) n);
  for (int i = 0; i < n; i++)
    g_assert_cmpuint (g_array_index (f->sender_count, guint, i), ==, (guint) lines);

  gboolean *seen = g_new0 (gboolean, n);
  g_assert_cmpuint (viper_channels_count (f->channels), ==, first_channel + (guint) n);
  for (int c = 0; c < n; c++)
    {
      guint32 ch = first_channel + (guint32) c;
      gint64 sender = g_array_index (f->chan_sender, gint64, ch);
      g_assert_cmpint (sender, >=, 0);
      g_assert_cmpint (sender, <, n);
      g_assert_false (seen[sender]);             /* one sender per connection */
      seen[sender] = TRUE;
      g_assert_cmpint (g_array_index (f->chan_next, gint64, ch), ==, lines);
      char *name = g_strdup_printf ("%s#%d", addr, c + 1);
      g_assert_cmpstr (viper_channels_name (f->channels, ch), ==, name);
      g_free (name);
    }
  g_free (seen);
}

/* ---- tests -------------------------------------------------------------------- */

#define TCP_SENDERS 32
#define TCP_LINES 10000

static void
test_tcp_many (Fixture *f, gconstpointer data)
{
  (void) data;
  start_listener (f, "tcp:127.0.0.1:0");
  const char *addr = viper_listen_source_address (f->src);
  g_assert_true (g_str_has_prefix (addr, "tcp:127.0.0.1:"));
  g_assert_cmpstr (addr + strlen ("tcp:127.0.0.1:"), !=, "0");
  g_assert_cmpstr (f->src->name, ==, addr);

  Sender senders[TCP_SENDERS] = { 0 };
  f->want_trams = TCP_SENDERS * TCP_LINES;
  f->want_conns = TCP_SENDERS;
  GThread **threads = start_senders (f, senders, TCP_SENDERS, TCP_LINES, SEND_LINES);
  run_until_done (f);
  join_senders (senders, threads, TCP_SENDERS);
  if (f->timed_out)
    return;

  check_senders (f, TCP_SENDERS, TCP_LINES, 0);
  g_assert_cmpuint (f->diag.bad, ==, 0);
  g_assert_cmpuint (f->src->lines_read, ==, TCP_SENDERS * TCP_LINES);
  g_assert_cmpuint (viper_listen_source_total_connections (f->src), ==, TCP_SENDERS);
  g_assert_cmpuint (count_events (f, " opened"), ==, TCP_SENDERS);
  g_assert_cmpuint (count_events (f, " closed (10000 lines)"), ==, TCP_SENDERS);
  char *first = g_strdup_printf ("connection %s#1 opened", addr);
  g_assert_cmpstr (f->cap.conn_events->pdata[0], ==, first);
  g_free (first);
  g_assert_false (viper_tram_source_at_end (f->src));   /* never by itself */
  g_assert_false (viper_tram_pending (f->src));
  g_assert_cmpint (viper_listen_source_last_activity (f->src), <=, g_get_monotonic_time ());
}

static void
test_unix (Fixture *f, gconstpointer data)
{
  (void) data;
  char *path = g_build_filename (f->dir, "viper.sock", NULL);
  char *address = g_strdup_printf ("unix:%s", path);
  start_listener (f, address);
  g_assert_cmpstr (viper_listen_source_address (f->src), ==, address);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  Sender senders[4] = { 0 };
  f->want_trams = 4 * 2000;
  f->want_conns = 4;
  GThread **threads = start_senders (f, senders, 4, 2000, SEND_LINES);
  run_until_done (f);
  join_senders (senders, threads, 4);
  if (f->timed_out)
    return;
  check_senders (f, 4, 2000, 0);
  g_assert_cmpuint (f->diag.bad, ==, 0);

  /* Closing the source removes the socket file it created. */
  viper_tram_source_free (f->src);
  f->src = NULL;
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
  g_free (address);
}

/* The socket file appears only once its socket listens, and no temporary
 * name is left beside it. */
static void
test_unix_ready (Fixture *f, gconstpointer data)
{
  (void) data;
  char *path = g_build_filename (f->dir, "ready.sock", NULL);
  char *address = g_strdup_printf ("unix:%s", path);
  listen_watch = path;
  listen_calls = listen_saw_file = 0;
  start_listener (f, address);
  listen_watch = NULL;
  g_assert_cmpint (listen_calls, ==, 1);
  g_assert_cmpint (listen_saw_file, ==, 0);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  GDir *dir = g_dir_open (f->dir, 0, NULL);
  const char *name;
  guint files = 0;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_assert_cmpstr (name, ==, "ready.sock");
      files++;
    }
  g_dir_close (dir);
  g_assert_cmpuint (files, ==, 1);

  /* it is the listener's socket: a connection arrives */
  GError *error = NULL;
  GSocket *c = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error);
  GSocketAddress *sa = g_unix_socket_address_new (path);
  g_assert_true (g_socket_connect (c, sa, NULL, &error));
  g_assert_no_error (error);
  g_socket_close (c, NULL);
  g_object_unref (c);
  g_object_unref (sa);
  f->want_conns = 1;
  run_until_done (f);
  g_assert_false (f->timed_out);

  viper_tram_source_free (f->src);
  f->src = NULL;
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
  g_free (address);
}

static void
test_unix_stale (Fixture *f, gconstpointer data)
{
  (void) data;
  GError *error = NULL;
  char *path = g_build_filename (f->dir, "stale.sock", NULL);
  char *address = g_strdup_printf ("unix:%s", path);

  /* A socket file whose listener died: bound, closed, never unlinked. */
  GSocket *dead = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error);
  GSocketAddress *sa = g_unix_socket_address_new (path);
  g_assert_true (g_socket_bind (dead, sa, FALSE, &error));
  g_assert_no_error (error);
  g_socket_close (dead, NULL);
  g_object_unref (dead);
  g_object_unref (sa);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  start_listener (f, address);                    /* replaces the stale file */

  /* A second listener on a live socket must fail and leave it alone. */
  ViperTramSource *again = viper_listen_source_new (address, f->pool, &f->diag, f->channels, &error);
  g_assert_null (again);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE);
  g_clear_error (&error);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  /* The probe connection shows up as an empty connection: drain it. */
  f->want_conns = 1;
  run_until_done (f);
  g_assert_false (f->timed_out);

  viper_tram_source_free (f->src);
  f->src = NULL;
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* A regular file is never deleted. */
  g_assert_true (g_file_set_contents (path, "precious", -1, NULL));
  again = viper_listen_source_new (address, f->pool, &f->diag, f->channels, &error);
  g_assert_null (again);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "not a socket"));
  g_clear_error (&error);
  char *contents = NULL;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "precious");
  g_free (contents);
  g_unlink (path);
  g_free (path);
  g_free (address);
}

static void
test_cut_line (Fixture *f, gconstpointer data)
{
  (void) data;
  start_listener (f, "tcp:0");
  Sender senders[2] = { 0 };
  GSocketAddress *addr = connect_address (f->src);
  GThread *threads[2];

  /* One at a time, so that connection #1 is the one that cuts its line. */
  senders[0] = (Sender) { g_object_ref (addr), 0, 100, SEND_CUT, 0, NULL, NULL };
  threads[0] = g_thread_new ("cut", sender_thread, &senders[0]);
  f->want_trams = 100;
  f->want_conns = 1;
  run_until_done (f);
  g_thread_join (threads[0]);
  if (f->timed_out)
    goto out;
  senders[1] = (Sender) { g_object_ref (addr), 1, 500, SEND_LINES, 0, NULL, NULL };
  threads[1] = g_thread_new ("whole", sender_thread, &senders[1]);
  f->want_trams = 600;
  f->want_conns = 2;
  run_until_done (f);
  g_thread_join (threads[1]);
  if (f->timed_out)
    goto out;

  g_assert_cmpuint (f->order_errors, ==, 0);
  g_assert_cmpuint (f->got, ==, 600);
  g_assert_cmpuint (g_array_index (f->sender_count, guint, 0), ==, 100);
  g_assert_cmpuint (g_array_index (f->sender_count, guint, 1), ==, 500);
  g_assert_cmpuint (f->diag.bad, ==, 1);
  char *prefix = g_strdup_printf ("%s#1:101:", viper_listen_source_address (f->src));
  g_assert_true (g_str_has_prefix (f->cap.bad->pdata[0], prefix));
  g_assert_cmpuint (strlen (f->cap.bad->pdata[0]), >, strlen (prefix) + 2);
  g_free (prefix);
  g_assert_cmpuint (f->src->lines_read, ==, 601);
  g_assert_cmpuint (count_events (f, "#1 closed (101 lines)"), ==, 1);
  g_assert_cmpuint (count_events (f, "#2 closed (500 lines)"), ==, 1);
out:
  g_object_unref (senders[0].addr);
  if (senders[1].addr)
    g_object_unref (senders[1].addr);
  g_object_unref (addr);
}

static void
test_garbage (Fixture *f, gconstpointer data)
{
  (void) data;
  const gsize run = 96u * 1024 * 1024;
  GMutex lock;
  gsize peak = 0;

  start_listener (f, "tcp:127.0.0.1:0");
  g_mutex_init (&lock);
  gsize base = rss_bytes ();
  GSocketAddress *addr = connect_address (f->src);
  Sender s = { g_object_ref (addr), 3, 110, SEND_GARBAGE, run, &peak, &lock };
  f->want_trams = 110;
  f->want_conns = 1;
  GThread *th = g_thread_new ("garbage", sender_thread, &s);
  run_until_done (f);
  g_thread_join (th);
  g_object_unref (s.addr);
  g_object_unref (addr);
  g_mutex_clear (&lock);
  if (f->timed_out)
    return;

  /* The valid lines before and after the garbage all arrived, in order. */
  g_assert_cmpuint (f->order_errors, ==, 0);
  g_assert_cmpuint (f->got, ==, 110);
  g_assert_cmpuint (g_array_index (f->chan_next, gint64, 0), ==, 110);
  g_assert_cmpuint (f->diag.bad, >=, 2);
  char *prefix = g_strdup_printf ("%s#1:11:", viper_listen_source_address (f->src));
  g_assert_true (g_str_has_prefix (f->cap.bad->pdata[0], prefix));   /* the long run */
  g_free (prefix);
  g_assert_cmpuint (f->src->bytes_read, >, run);
  g_assert_cmpuint (count_events (f, " closed (110 lines)"), ==, 0);   /* bad lines count too */
  g_assert_cmpuint (count_events (f, " lines)"), ==, 1);
  /* 96 MiB of garbage without a line end must not be buffered. */
  if (base > 0)
    {
      g_test_message ("RSS growth while receiving garbage: %" G_GSSIZE_FORMAT " bytes",
                      (gssize) peak - (gssize) base);
      g_assert_cmpuint (peak, <, base + 48u * 1024 * 1024);
    }
}

static void
test_reset_by_peer (Fixture *f, gconstpointer data)
{
  (void) data;
  start_listener (f, "tcp:127.0.0.1:0");
  Sender senders[3] = { 0 };
  f->want_trams = 0;
  f->want_conns = 3;
  GThread **threads = start_senders (f, senders, 3, 5, SEND_RESET);
  run_until_done (f);
  join_senders (senders, threads, 3);
  if (f->timed_out)
    return;
  /* Whatever arrived is in order; every connection was closed with a report. */
  g_assert_cmpuint (f->order_errors, ==, 0);
  g_assert_cmpuint (viper_listen_source_open_connections (f->src), ==, 0);
  g_assert_cmpuint (count_events (f, " opened"), ==, 3);
  guint closed = 0;
  for (guint i = 0; i < f->cap.conn_events->len; i++)
    if (strstr (f->cap.conn_events->pdata[i], " closed (") != NULL)
      closed++;
  g_assert_cmpuint (closed, ==, 3);
}

static void
test_close_with_open_connections (Fixture *f, gconstpointer data)
{
  (void) data;
  GError *error = NULL;
  start_listener (f, "tcp:127.0.0.1:0");
  GSocketAddress *addr = connect_address (f->src);
  GSocket *sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error);
  g_assert_true (g_socket_connect (sock, addr, NULL, &error));
  const char text[] = "-3 -21 0.0 0 0 4 2 0 7 0 0\n-3 -21 1.0 0 0 4 2 1 7 0 0\n-3 -21 2";
  g_assert_cmpint (g_socket_send (sock, text, sizeof text - 1, NULL, &error), ==, sizeof text - 1);
  g_assert_no_error (error);

  f->want_trams = 2;
  f->want_conns = 1;
  /* Wait for the two trams; the connection stays open. */
  guint dog = g_timeout_add_seconds (WATCHDOG_S, on_watchdog, f);
  while (!f->timed_out && f->got < 2)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (f->timed_out);
  g_source_remove (dog);
  g_assert_cmpuint (viper_listen_source_open_connections (f->src), ==, 1);
  g_assert_cmpuint (f->diag.bad, ==, 0);

  /* Closing the source closes the connection and says what was cut off. */
  viper_tram_source_free (f->src);
  f->src = NULL;
  g_assert_cmpuint (f->diag.bad, ==, 1);
  g_assert_cmpuint (count_events (f, "#1 closed (3 lines)"), ==, 1);
  char buf[16];
  gssize n = g_socket_receive (sock, buf, sizeof buf, NULL, NULL);
  g_assert_cmpint (n, <=, 0);                     /* the peer sees the close */
  g_object_unref (sock);
  g_object_unref (addr);
}

static void
test_addresses (void)
{
  char *host = NULL, *path = NULL;
  guint16 port = 0;
  GError *error = NULL;

  g_assert_true (viper_listen_address_parse ("tcp:", &host, &port, &path, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (host, ==, "127.0.0.1");
  g_assert_cmpuint (port, ==, VIPER_DEFAULT_PORT);
  g_assert_cmpuint (port, ==, 7405);
  g_assert_null (path);
  g_clear_pointer (&host, g_free);

  static const struct { const char *a, *host; guint16 port; } good[] = {
    { "tcp:9000", "127.0.0.1", 9000 },
    { "tcp:0", "127.0.0.1", 0 },
    { "tcp:0.0.0.0:80", "0.0.0.0", 80 },
    { "tcp:localhost:65535", "localhost", 65535 },
    { "tcp:myhost", "myhost", 7405 },
    { "tcp:myhost:", "myhost", 7405 },
    { "tcp::81", "127.0.0.1", 81 },
    { "tcp:[::1]:82", "::1", 82 },
    { "tcp:[::1]", "::1", 7405 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_assert_true (viper_listen_address_parse (good[i].a, &host, &port, &path, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (host, ==, good[i].host);
      g_assert_cmpuint (port, ==, good[i].port);
      g_assert_null (path);
      g_clear_pointer (&host, g_free);
    }
  g_assert_true (viper_listen_address_parse ("unix:/tmp/v.sock", &host, &port, &path, &error));
  g_assert_null (host);
  g_assert_cmpstr (path, ==, "/tmp/v.sock");
  g_clear_pointer (&path, g_free);

  g_assert_false (viper_listen_address_parse ("udp:x", &host, &port, &path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "unsupported address 'udp:x' (expected tcp:HOST:PORT or unix:PATH)");
  g_clear_error (&error);

  static const char *bad[] = { "", "tcp", "7405", "tcp:70000", "tcp:host:12x", "tcp:host:-1",
                               "tcp:::1:5", "tcp:[::1", "tcp:[]:5", "tcp:[::1]x", "unix:" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (viper_listen_address_parse (bad[i], &host, &port, &path, &error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, bad[i]));   /* says which address */
      g_assert_null (host);
      g_assert_null (path);
      g_clear_error (&error);
    }

  /* The constructor gives the same error, and binds nothing. */
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperChannels *ch = viper_channels_new ();
  ViperTramSource *src = viper_listen_source_new ("udp:x", pool, NULL, ch, &error);
  g_assert_null (src);
  g_assert_cmpstr (error->message, ==, "unsupported address 'udp:x' (expected tcp:HOST:PORT or unix:PATH)");
  g_clear_error (&error);

  /* A listener cannot be rewound and is never at its end by itself. */
  src = viper_listen_source_new ("tcp:0", pool, NULL, ch, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (src->klass->kind, ==, "listen");
  g_assert_false (viper_tram_source_reset (src, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  g_assert_false (viper_tram_source_at_end (src));
  g_assert_cmpuint (viper_listen_source_open_connections (src), ==, 0);
  g_assert_cmpuint (viper_listen_source_total_connections (src), ==, 0);
  viper_tram_source_free (src);
  viper_channels_free (ch);
  viper_tram_pool_free (pool);
}

int
main (int argc, char **argv)
{
  /* A sender writing to a connection the listener closed must fail, not die. */
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/source/listen/addresses", test_addresses);
#define ADD(name, fn) g_test_add ("/source/listen/" name, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("tcp-many", test_tcp_many);
  ADD ("unix", test_unix);
  ADD ("unix-ready", test_unix_ready);
  ADD ("unix-stale", test_unix_stale);
  ADD ("cut-line", test_cut_line);
  ADD ("garbage", test_garbage);
  ADD ("reset-by-peer", test_reset_by_peer);
  ADD ("close-with-open-connections", test_close_with_open_connections);
#undef ADD
  return g_test_run ();
}
