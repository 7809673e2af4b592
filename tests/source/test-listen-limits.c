/* test-listen-limits.c - what one listener accepts (issue 10 item 22):
 * a cap on open connections, a timeout for silent connections, a bound on
 * the memory that unfinished lines of all connections hold, Unix sockets
 * owner-only whatever the umask, a warning when binding beyond loopback, and
 * the accept hook / disconnect the GUI uses to start a session over.
 *
 * The clients are plain sockets in this thread, non-blocking, so the test
 * pumps the listener's main context itself; every wait is bounded by a
 * deadline and polls a condition, never sleeps.
 */
#include "core/source.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gio/gunixsocketaddress.h>

#define DEADLINE_US (20 * G_USEC_PER_SEC)

typedef struct {
  GPtrArray *warnings, *events;
  ViperDiag diag;
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperTramSource *src;
  guint taken;
  gboolean hold;            /* on_ready leaves the trams queued */
  gboolean out_of_order;    /* a tram's TIME was not its arrival index */
} Fx;

static void
sink (ViperDiagKind kind, const char *message, gpointer data)
{
  Fx *f = data;
  if (kind == VIPER_DIAG_WARNING)
    g_ptr_array_add (f->warnings, g_strdup (message));
  else
    g_ptr_array_add (f->events, g_strdup (message));
}

static void
on_ready (ViperTramSource *src, gpointer data)
{
  Fx *f = data;
  ViperTram *t;
  if (f->hold)
    return;
  while ((t = viper_get_tram (src)) != NULL)
    {
      if (t->time != (double) f->taken)
        f->out_of_order = TRUE;
      f->taken++;
      viper_tram_pool_release (f->pool, t);
    }
}

static void
fx_init (Fx *f)
{
  memset (f, 0, sizeof *f);
  f->warnings = g_ptr_array_new_with_free_func (g_free);
  f->events = g_ptr_array_new_with_free_func (g_free);
  f->pool = viper_tram_pool_new ();
  f->channels = viper_channels_new ();
  viper_diag_init (&f->diag, sink, f);
}

static void
fx_listen (Fx *f, const char *address, const ViperListenLimits *limits)
{
  GError *error = NULL;
  f->src = viper_listen_source_new (address, f->pool, &f->diag, f->channels, &error);
  g_assert_no_error (error);
  if (limits)
    viper_listen_source_set_limits (f->src, limits);
  viper_tram_source_set_ready_func (f->src, on_ready, f);
  viper_tram_source_attach (f->src, NULL);
}

static void
fx_clear (Fx *f)
{
  if (f->src)
    viper_tram_source_free (f->src);
  g_assert_cmpuint (viper_tram_pool_live (f->pool), ==, 0);
  viper_channels_free (f->channels);
  viper_tram_pool_free (f->pool);
  viper_diag_clear (&f->diag);
  g_ptr_array_unref (f->warnings);
  g_ptr_array_unref (f->events);
}

static guint
count_with (GPtrArray *a, const char *needle)
{
  guint n = 0;
  for (guint i = 0; i < a->len; i++)
    n += strstr (a->pdata[i], needle) != NULL;
  return n;
}

static gboolean
tick_cb (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

/* Pump the default context until pred holds; FALSE at the deadline.  A 10 ms
 * tick wakes the loop for the timeout checks (a poll, not a synchronisation). */
static gboolean
pump_until (gboolean (*pred) (Fx *f, gpointer d), Fx *f, gpointer d)
{
  gint64 end = g_get_monotonic_time () + DEADLINE_US;
  guint tick = g_timeout_add (10, tick_cb, NULL);
  gboolean ok = TRUE;
  while (!pred (f, d))
    {
      if (g_get_monotonic_time () > end)
        {
          ok = FALSE;
          break;
        }
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (tick);
  return ok;
}

static GSocket *
client (Fx *f)
{
  GError *error = NULL;
  const char *addr = viper_listen_source_address (f->src);
  GSocketAddress *sa;
  if (g_str_has_prefix (addr, "unix:"))
    sa = g_unix_socket_address_new (addr + 5);
  else
    {
      char *host = NULL;
      guint16 port = 0;
      g_assert_true (viper_listen_address_parse (addr, &host, &port, NULL, NULL));
      sa = g_inet_socket_address_new_from_string (host, port);
      g_free (host);
    }
  GSocket *s = g_socket_new (g_socket_address_get_family (sa), G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                             &error);
  g_assert_no_error (error);
  g_assert_true (g_socket_connect (s, sa, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (sa);
  g_socket_set_blocking (s, FALSE);
  return s;
}

/* Send len bytes, pumping the listener while the socket is full. */
static void
send_pumping (GSocket *s, const char *p, gsize len)
{
  gint64 end = g_get_monotonic_time () + DEADLINE_US;
  gsize off = 0;
  while (off < len && g_get_monotonic_time () < end)
    {
      gssize n = g_socket_send (s, p + off, len - off, NULL, NULL);
      if (n > 0)
        off += (gsize) n;
      else
        g_main_context_iteration (NULL, FALSE);
    }
  g_assert_cmpuint (off, ==, len);
}

static gboolean
total_at_least (Fx *f, gpointer d)
{
  return viper_listen_source_total_connections (f->src) >= GPOINTER_TO_UINT (d);
}

static gboolean
open_at_most (Fx *f, gpointer d)
{
  return viper_listen_source_open_connections (f->src) <= GPOINTER_TO_UINT (d);
}

static gboolean
warned (Fx *f, gpointer d)
{
  return count_with (f->warnings, d) > 0;
}

static gboolean
taken_at_least (Fx *f, gpointer d)
{
  return f->taken >= GPOINTER_TO_UINT (d);
}

static void
test_unix_owner_only (void)
{
  Fx f;
  fx_init (&f);
  char *dir = g_dir_make_tmp ("viper-limits-XXXXXX", NULL);
  char *path = g_build_filename (dir, "v.sock", NULL);
  char *address = g_strdup_printf ("unix:%s", path);
  mode_t old = umask (0);
  fx_listen (&f, address, NULL);
  umask (old);
  struct stat st;
  g_assert_cmpint (lstat (path, &st), ==, 0);
  g_assert_true (S_ISSOCK (st.st_mode));
  /* nobody but the owner may connect, even with umask 0 */
  g_assert_cmpint (st.st_mode & 0077, ==, 0);
  g_assert_cmpuint (count_with (f.warnings, "beyond loopback"), ==, 0);
  fx_clear (&f);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (dir);
  g_free (path);
  g_free (address);
}

static void
test_beyond_loopback (void)
{
  Fx f;
  fx_init (&f);
  fx_listen (&f, "tcp:127.0.0.1:0", NULL);
  g_assert_cmpuint (count_with (f.warnings, "beyond loopback"), ==, 0);
  viper_tram_source_free (f.src);
  f.src = NULL;
  fx_listen (&f, "tcp:0.0.0.0:0", NULL);
  g_assert_cmpuint (count_with (f.warnings, "beyond loopback: the protocol has no authentication"), ==, 1);
  fx_clear (&f);
}

static void
test_cap (void)
{
  Fx f;
  fx_init (&f);
  ViperListenLimits lim = VIPER_LISTEN_LIMITS_DEFAULT;
  lim.max_connections = 2;
  fx_listen (&f, "tcp:127.0.0.1:0", &lim);
  GSocket *c[3];
  for (int i = 0; i < 3; i++)
    c[i] = client (&f);
  g_assert_true (pump_until (warned, &f, "refused a connection"));
  g_assert_cmpuint (viper_listen_source_open_connections (f.src), ==, 2);
  g_assert_cmpuint (viper_listen_source_total_connections (f.src), ==, 2);
  g_assert_cmpuint (count_with (f.warnings, "the bound (--max-connections)"), ==, 1);
  /* one closes: a new one is taken again */
  g_socket_close (c[0], NULL);
  g_assert_true (pump_until (open_at_most, &f, GUINT_TO_POINTER (1)));
  GSocket *d = client (&f);
  g_assert_true (pump_until (total_at_least, &f, GUINT_TO_POINTER (3)));
  g_assert_cmpuint (viper_listen_source_open_connections (f.src), ==, 2);
  for (int i = 0; i < 3; i++)
    g_object_unref (c[i]);
  g_object_unref (d);
  fx_clear (&f);
}

static void
test_timeout (void)
{
  Fx f;
  fx_init (&f);
  ViperListenLimits lim = VIPER_LISTEN_LIMITS_DEFAULT;
  lim.conn_timeout_ms = 150;
  fx_listen (&f, "tcp:127.0.0.1:0", &lim);
  GSocket *silent = client (&f);
  GSocket *talker = client (&f);
  g_assert_true (pump_until (total_at_least, &f, GUINT_TO_POINTER (2)));
  /* the talker keeps talking (one tram each round) while the silent one times out */
  gint64 end = g_get_monotonic_time () + DEADLINE_US;
  int sent = 0;
  while (viper_listen_source_open_connections (f.src) > 1 && g_get_monotonic_time () < end)
    {
      char line[64];
      g_snprintf (line, sizeof line, "-3 -21 %d.0 1 0 4 2 %d 7 0 0\n", sent, sent);
      send_pumping (talker, line, strlen (line));
      sent++;
      guint want = f.taken + 1;
      g_assert_true (pump_until (taken_at_least, &f, GUINT_TO_POINTER (want)));
    }
  g_assert_cmpuint (viper_listen_source_open_connections (f.src), ==, 1);
  g_assert_cmpuint (count_with (f.warnings, "silent for"), ==, 1);
  g_assert_cmpuint (count_with (f.warnings, "#1"), ==, 1);      /* the silent one, accepted first */
  g_assert_cmpuint (viper_listen_source_lost_connections (f.src), ==, 1);
  g_object_unref (silent);
  g_object_unref (talker);
  fx_clear (&f);
}

static void
test_partial_bound (void)
{
  Fx f;
  fx_init (&f);
  ViperListenLimits lim = VIPER_LISTEN_LIMITS_DEFAULT;
  lim.max_partial_bytes = 100000;
  fx_listen (&f, "tcp:127.0.0.1:0", &lim);
  char *junk = g_malloc (60000);
  memset (junk, '7', 60000);
  GSocket *a = client (&f), *b = client (&f);
  g_assert_true (pump_until (total_at_least, &f, GUINT_TO_POINTER (2)));
  send_pumping (a, junk, 60000);
  send_pumping (b, junk, 60000);
  /* 120,000 bytes of unfinished lines: over the bound, one is closed */
  g_assert_true (pump_until (warned, &f, "over the bound of 100000 (--max-partial)"));
  g_assert_cmpuint (viper_listen_source_open_connections (f.src), ==, 1);
  /* the cut-off line it held is reported, as at any close mid-line */
  g_assert_cmpuint (f.diag.bad, ==, 1);
  g_assert_cmpuint (viper_listen_source_lost_connections (f.src), ==, 1);
  g_free (junk);
  g_object_unref (a);
  g_object_unref (b);
  fx_clear (&f);
}

/* Trams received and not taken stop at the bound: reading pauses with one
 * warning (the senders' data waits in their sockets), no connection is
 * timed out for the pause, and once the engine takes half of them reading
 * goes on, nothing lost and in order. */
static void
test_queue_bound (void)
{
  Fx f;
  fx_init (&f);
  ViperListenLimits lim = VIPER_LISTEN_LIMITS_DEFAULT;
  lim.max_queued = 50;
  lim.conn_timeout_ms = 40;
  fx_listen (&f, "tcp:127.0.0.1:0", &lim);
  GString *lines = g_string_new (NULL);
  for (guint i = 0; i < 4000; i++)
    g_string_append_printf (lines, "1 1 %u 0 0 0\n", i);
  gsize half = 0;
  for (guint i = 0; i < 2000; i++)
    half += strlen ("1 1  0 0 0\n") + (i < 10 ? 1 : i < 100 ? 2 : i < 1000 ? 3 : 4);
  f.hold = TRUE;
  GSocket *c = client (&f);
  send_pumping (c, lines->str, half);
  g_assert_true (pump_until (warned, &f, "(--max-queued)"));
  g_assert_cmpuint (viper_listen_source_pauses (f.src), ==, 1);
  /* paused: what is sent now stays in the socket, however long */
  send_pumping (c, lines->str + half, lines->len - half);
  guint64 read_before = f.src->bytes_read;
  gint64 end = g_get_monotonic_time () + 200 * 1000;   /* 5 connection timeouts */
  guint tick = g_timeout_add (10, tick_cb, NULL);
  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick);
  g_assert_cmpuint (f.src->bytes_read, ==, read_before);
  g_assert_cmpuint (viper_listen_source_open_connections (f.src), ==, 1);   /* not timed out */
  g_assert_cmpuint (count_with (f.warnings, "silent for"), ==, 0);
  /* the engine takes them: reading goes on, to the last line */
  f.hold = FALSE;
  on_ready (f.src, &f);
  g_assert_true (pump_until (taken_at_least, &f, GUINT_TO_POINTER (4000)));
  g_assert_cmpuint (f.taken, ==, 4000);
  g_assert_false (f.out_of_order);
  g_assert_cmpuint (f.src->bytes_read, ==, lines->len);
  g_assert_cmpuint (count_with (f.warnings, "(--max-queued)"), ==, 1);   /* said once */
  g_assert_cmpuint (f.diag.bad, ==, 0);
  g_string_free (lines, TRUE);
  g_object_unref (c);
  fx_clear (&f);
}

static gboolean
read_at_least (Fx *f, gpointer d)
{
  return f->src->bytes_read >= GPOINTER_TO_UINT (d);
}

/* Viper closing a connection itself (the replay ends, interrupted) does
 * not say the sender closed it: the cut line is reported as Viper's. */
static void
test_own_close (void)
{
  Fx f;
  fx_init (&f);
  fx_listen (&f, "tcp:127.0.0.1:0", NULL);
  GSocket *c = client (&f);
  const char *text = "1 1 0 0 0 0\n1 1 1 0";
  send_pumping (c, text, strlen (text));
  g_assert_true (pump_until (read_at_least, &f, GUINT_TO_POINTER (strlen (text))));
  g_assert_cmpuint (f.taken, ==, 1);
  viper_tram_source_free (f.src);
  f.src = NULL;
  g_assert_cmpuint (f.diag.bad, ==, 1);
  g_assert_cmpuint (count_with (f.events, "Viper stopped reading in the middle of this line"), ==, 1);
  g_assert_cmpuint (count_with (f.events, "connection closed in the middle"), ==, 0);
  g_object_unref (c);
  fx_clear (&f);
}

typedef struct {
  guint calls;
  guint open_before[4];
} AcceptLog;

static void
on_accept (ViperTramSource *s, guint open_before, gpointer data)
{
  (void) s;
  AcceptLog *log = data;
  if (log->calls < G_N_ELEMENTS (log->open_before))
    log->open_before[log->calls] = open_before;
  log->calls++;
}

static void
test_accept_and_disconnect (void)
{
  Fx f;
  fx_init (&f);
  fx_listen (&f, "tcp:127.0.0.1:0", NULL);
  AcceptLog log = { 0 };
  viper_listen_source_set_accept_func (f.src, on_accept, &log);
  GSocket *a = client (&f), *b = client (&f);
  g_assert_true (pump_until (total_at_least, &f, GUINT_TO_POINTER (2)));
  g_assert_cmpuint (log.calls, ==, 2);
  g_assert_cmpuint (log.open_before[0], ==, 0);
  g_assert_cmpuint (log.open_before[1], ==, 1);
  const char *line = "-3 -21 1.0 1 0 4 2 1 7 0 0\n";
  send_pumping (a, line, strlen (line));
  g_assert_true (pump_until (taken_at_least, &f, GUINT_TO_POINTER (1)));
  /* Reset while connected: both closed, neither counted as lost */
  g_assert_cmpuint (viper_listen_source_disconnect_all (f.src), ==, 2);
  g_assert_cmpuint (viper_listen_source_open_connections (f.src), ==, 0);
  g_assert_cmpuint (viper_listen_source_lost_connections (f.src), ==, 0);
  g_assert_cmpuint (count_with (f.events, "disconnected by the user"), ==, 2);
  g_object_unref (a);
  g_object_unref (b);
  fx_clear (&f);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/source/listen-limits/unix-owner-only", test_unix_owner_only);
  g_test_add_func ("/source/listen-limits/beyond-loopback", test_beyond_loopback);
  g_test_add_func ("/source/listen-limits/cap", test_cap);
  g_test_add_func ("/source/listen-limits/timeout", test_timeout);
  g_test_add_func ("/source/listen-limits/partial-bound", test_partial_bound);
  g_test_add_func ("/source/listen-limits/queue-bound", test_queue_bound);
  g_test_add_func ("/source/listen-limits/own-close", test_own_close);
  g_test_add_func ("/source/listen-limits/accept-and-disconnect", test_accept_and_disconnect);
  return g_test_run ();
}
