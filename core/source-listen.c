/* source-listen.c - trams from programs that connect to Viper (spec picl.md
 * section 4): a listening TCP or Unix stream socket and any number of
 * connections, each a FIFO channel.
 *
 * Everything runs in the GMainContext the source is attached to; there are no
 * threads.  The listening socket and every connection have a GSocket source
 * at G_PRIORITY_HIGH, above processing and drawing, because a monitored
 * program blocks when its socket buffer fills: Viper must drain sockets first
 * and replay later.  The price is that unconsumed trams accumulate, and
 * dropping them would break the replay: so the queue has a bound
 * (max_queued, --max-queued) at which reading pauses instead - every
 * connection's watch is removed, the senders' socket buffers fill and they
 * wait, with one warning - until the engine has taken half of the queue.
 * The bound is checked after each chunk read, so the queue may pass it by
 * the lines of one READ_CHUNK.  Memory is otherwise bounded by: one shared
 * read buffer per source, and per connection only its line
 * splitter, which holds at most VIPER_MAX_LINE bytes of a partial line and
 * skips (with one report) longer runs without '\n', however much garbage a
 * peer sends.
 *
 * Reading: sockets are non-blocking; a wake-up reads up to READS_PER_WAKEUP
 * chunks of READ_CHUNK bytes, and stops early on a short read (the socket is
 * drained) or EAGAIN.  The cap keeps one fast sender from starving the other
 * connections: the main loop round-robins between ready sources.  Bytes go
 * straight to the connection's ViperLineSplitter, whose callback parses each
 * line and appends the tram to the source's single FIFO queue, so trams are
 * queued in arrival order and each connection's order is preserved.
 *
 * Closing: end of stream or an error (ECONNRESET...) closes the connection
 * with a report; a partial last line is bad input there (a socket's partial
 * line is not a line, unlike a file's), reported with the connection's
 * channel name, line and column.  Garbage bytes are just bad lines: reported,
 * skipped, and the connection stays open.
 *
 * Unix sockets: a socket file left behind by a dead listener would make bind()
 * fail, so an existing path is removed - but only if it is a socket and a
 * connect() to it is refused (nobody listens there).  A regular file or a live
 * listener at that path is an error, never deleted.  On close the socket file
 * is removed if it is still the one this source created (same device and
 * inode).  The socket file is created owner-only (mode 0600) whatever the
 * umask: the protocol has no authentication, so whoever can connect can
 * inject trams.  It appears only once its socket listens (bound under a
 * temporary name, then linked), so a client that waits for the file and
 * connects at once is never refused.  For the same reason binding TCP beyond loopback is warned
 * about.
 *
 * TCP: a host name gets one listening socket per address it resolves to
 * ("localhost" = ::1 and 127.0.0.1: a sender may try either first), all on
 * the same port and feeding the same queue; connections are named after the
 * address they came to.
 *
 * Limits (ViperListenLimits, the command line's --max-connections,
 * --conn-timeout and --max-partial): a connection beyond the cap is accepted
 * and closed at once with a warning; a connection silent for longer than the
 * timeout is closed with a warning (so one silent peer cannot hold
 * --idle-exit forever); and when the unfinished last lines of all connections
 * together hold more than the bound, the connection whose line grew past it
 * is closed with a warning, so 4,000 idle peers each sending 64 KB without a
 * newline cannot take 260 MB.  Trams already received are kept in every case.
 */
#include "core/source.h"
#include "core/tramparse.h"
#include "core/listen-bind.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK (256u * 1024u)
#define READS_PER_WAKEUP 8
#define ACCEPT_RETRY_MS 100

typedef struct _ListenSource ListenSource;

/* One listening socket: a source listens on every address its host name
 * resolves to ("localhost" = ::1 and 127.0.0.1), all feeding one queue. */
typedef struct {
  ListenSource *ls;
  GSocket *sock;
  GSource *accept_watch;
  GSource *accept_retry;    /* after a failing accept() (e.g. EMFILE) */
  char *address;            /* as bound: "tcp:127.0.0.1:40123", "unix:/path" */
} Listener;

typedef struct {
  ListenSource *ls;
  GSocket *sock;
  GSource *watch;
  ViperLineSplitter *split;
  guint32 channel;
  const char *name;         /* owned by the ViperChannels */
  guint64 lines;            /* tram lines (good or bad) on this connection */
  gsize partial;            /* bytes of its unfinished last line (bounded by VIPER_MAX_LINE) */
  gint64 last_byte;         /* monotonic time of its last byte (or of its accept) */
} Conn;

struct _ListenSource {
  ViperTramSource base;
  GPtrArray *listeners;     /* Listener *, at least one */
  GMainContext *ctx;
  char **addresses;         /* the listeners' addresses, NULL-terminated */
  const char *address;      /* the first of them */
  ViperUnixSocketFile unix_file;  /* socket file this source created (path NULL: none) */

  GPtrArray *conns;         /* Conn *, the open connections */
  guint total;              /* connections accepted so far */
  gint64 last_activity;

  char *rbuf;               /* READ_CHUNK bytes, shared by all connections */
  ViperTramFields *scratch;
  ViperTram *head, *tail;   /* parsed, not yet taken (linked through ->next) */
  gboolean notify;          /* something happened in this wake-up */

  ViperListenLimits limits;
  GSource *timeout_watch;   /* checks for silent connections */
  gsize partial_total;      /* sum of the connections' partial bytes */
  guint lost;               /* connections closed with an error or a cut-off line */
  guint refused;            /* connections closed at once (over max_connections) */
  guint64 n_queued;         /* trams in the queue */
  gboolean closing;         /* this source is closing its connections itself */
  gboolean paused;          /* reading stopped at max_queued (every conn disarmed) */
  guint pauses;
  ViperListenAcceptFunc accept_func;
  gpointer accept_data;
  ViperListenProcFunc proc_func;   /* once, at the next tram line (viper_listen_source_watch_next_proc) */
  gpointer proc_data;
};

/* ---- the tram queue --------------------------------------------------------- */

static void
queue_push (ListenSource *ls, ViperTram *t)
{
  t->next = NULL;
  if (ls->tail)
    ls->tail->next = t;
  else
    ls->head = t;
  ls->tail = t;
  ls->n_queued++;
  ls->notify = TRUE;
}

static void conn_arm (Conn *c);
static void conn_disarm (Conn *c);

static gboolean
queue_full (const ListenSource *ls)
{
  return ls->limits.max_queued && ls->n_queued >= ls->limits.max_queued;
}

/* The queue reached its bound: no connection is read until it drains. */
static void
reading_pause (ListenSource *ls)
{
  if (ls->paused)
    return;
  ls->paused = TRUE;
  for (guint i = 0; i < ls->conns->len; i++)
    conn_disarm (g_ptr_array_index (ls->conns, i));
  if (!ls->pauses++ && ls->base.diag)
    viper_diag_event (ls->base.diag, VIPER_DIAG_WARNING,
                      "%s: %" G_GUINT64_FORMAT " tram%s received and not yet replayed, the bound (--max-queued): "
                      "reading pauses until half of them are replayed, and the senders wait",
                      ls->address, ls->n_queued, ls->n_queued == 1 ? "" : "s");
}

static void
reading_resume (ListenSource *ls)
{
  ls->paused = FALSE;
  gint64 now = g_get_monotonic_time ();
  for (guint i = 0; i < ls->conns->len; i++)
    {
      Conn *c = g_ptr_array_index (ls->conns, i);
      c->last_byte = now;   /* the pause was Viper's, not the peer's silence */
      conn_arm (c);
    }
}

static void
conn_report_bad (Conn *c, guint64 lineno, guint column, const char *reason)
{
  c->lines++;
  c->ls->base.lines_read++;
  c->ls->base.lines_bad++;
  if (c->ls->base.diag)
    viper_diag_bad (c->ls->base.diag, c->name, lineno, column, "%s", reason);
}

/* PROC of a tram line, without parsing the line into the pool (the owner's
 * watch may reset everything the pool holds): what viper_tram_salvage reads
 * of any line, comments and blank lines left out. */
static gboolean
line_proc (const char *line, gsize len, gint64 *proc)
{
  gsize i = 0;
  while (i < len && (line[i] == ' ' || line[i] == '\t'))
    i++;
  gint64 d1;
  return i < len && line[i] != '#' && viper_tram_salvage (line, len, proc, &d1);
}

static void
conn_on_line (const char *line, gsize len, guint64 lineno, gpointer user_data)
{
  Conn *c = user_data;
  ListenSource *ls = c->ls;
  ViperLineKind kind = VIPER_LINE_BAD;
  ViperParseError err;
  ViperTram *t;
  gint64 proc;

  if (viper_tram_source_stopping (&ls->base))
    return;                     /* --strict: the bad line before was the last */
  if (ls->proc_func && line_proc (line, len, &proc))
    {
      ViperListenProcFunc f = ls->proc_func;
      ls->proc_func = NULL;
      f (&ls->base, proc, ls->proc_data);
    }
  memset (&err, 0, sizeof err);
  t = viper_tram_parse (ls->base.pool, ls->scratch, line, len, &kind, &err);
  if (kind == VIPER_LINE_COMMENT)
    return;
  if (kind == VIPER_LINE_BAD || t == NULL)
    {
      err.reason[sizeof err.reason - 1] = '\0';
      conn_report_bad (c, lineno, err.column, err.reason[0] ? err.reason : "bad line");
      viper_tram_source_salvage (&ls->base, line, len, c->channel, lineno);
      return;
    }
  c->lines++;
  ls->base.lines_read++;
  t->channel = c->channel;
  t->line = lineno > G_MAXUINT32 ? G_MAXUINT32 : (guint32) lineno;
  queue_push (ls, t);
}

static void
conn_on_error (guint64 lineno, guint column, const char *reason, const char *head, gsize head_len,
               gpointer user_data)
{
  Conn *c = user_data;
  conn_report_bad (c, lineno, column, reason);
  viper_tram_source_salvage_cut (&c->ls->base, head, head_len, TRUE, c->channel, lineno);
}

/* ---- connections -------------------------------------------------------------- */

static gboolean conn_cb (GSocket *sock, GIOCondition cond, gpointer user_data);

static void
conn_arm (Conn *c)
{
  if (c->watch || c->ls->ctx == NULL || c->ls->paused)
    return;
  c->watch = g_socket_create_source (c->sock, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_priority (c->watch, G_PRIORITY_HIGH);
  g_source_set_callback (c->watch, G_SOURCE_FUNC (conn_cb), c, NULL);
  g_source_set_name (c->watch, "viper connection reader");
  g_source_attach (c->watch, c->ls->ctx);
}

/* Detach and drop a source this file holds a reference to (NULL: none). */
static void
drop_source (GSource **src)
{
  if (!*src)
    return;
  g_source_destroy (*src);
  g_source_unref (*src);
  *src = NULL;
}

static void
conn_disarm (Conn *c)
{
  drop_source (&c->watch);
}

/* Close and forget a connection; error says why, if not a clean end. */
static void
conn_close (Conn *c, const GError *error)
{
  ListenSource *ls = c->ls;

  if (error || c->partial > 0)
    ls->lost++;
  ls->partial_total -= c->partial;
  /* A socket's partial last line is cut off, not a line (spec section 4);
   * when Viper itself closes (it stops reading: interrupted, done), it says so */
  viper_line_splitter_finish_cut (c->split, FALSE,
                                  ls->closing ? "Viper stopped reading in the middle of this line (the sender had not "
                                                "finished it)"
                                              : "connection closed in the middle of a line");
  if (ls->base.diag)
    {
      if (error)
        viper_diag_event (ls->base.diag, VIPER_DIAG_CONNECTION,
                          "connection %s closed (%" G_GUINT64_FORMAT " line%s): %s",
                          c->name, c->lines, c->lines == 1 ? "" : "s", error->message);
      else
        viper_diag_event (ls->base.diag, VIPER_DIAG_CONNECTION,
                          "connection %s closed (%" G_GUINT64_FORMAT " line%s)", c->name, c->lines,
                          c->lines == 1 ? "" : "s");
    }
  conn_disarm (c);
  g_socket_close (c->sock, NULL);
  g_object_unref (c->sock);
  viper_line_splitter_free (c->split);
  g_ptr_array_remove_fast (ls->conns, c);
  g_free (c);
  ls->last_activity = g_get_monotonic_time ();
  ls->notify = TRUE;
}

/* Tell the owner, as the last thing a callback does (the ready func may
 * well take every tram, or even free the source). */
static void
listen_notify (ListenSource *ls)
{
  if (!ls->notify)
    return;
  ls->notify = FALSE;
  if (ls->base.ready)
    ls->base.ready (&ls->base, ls->base.ready_data);
}

static gboolean
conn_cb (GSocket *sock, GIOCondition cond, gpointer user_data)
{
  Conn *c = user_data;
  ListenSource *ls = c->ls;
  (void) cond;

  for (int i = 0; i < READS_PER_WAKEUP; i++)
    {
      GError *error = NULL;
      gssize n = g_socket_receive (sock, ls->rbuf, READ_CHUNK, NULL, &error);

      if (n > 0)
        {
          ls->base.bytes_read += (guint64) n;
          ls->last_activity = c->last_byte = g_get_monotonic_time ();
          viper_line_splitter_feed (c->split, ls->rbuf, (gsize) n);
          /* what the splitter keeps of an unfinished line (it keeps at most VIPER_MAX_LINE) */
          const char *nl = memrchr (ls->rbuf, '\n', (gsize) n);
          gsize before = c->partial;
          c->partial = MIN (nl ? (gsize) n - (gsize) (nl + 1 - ls->rbuf) : c->partial + (gsize) n,
                            (gsize) VIPER_MAX_LINE);
          ls->partial_total = ls->partial_total - before + c->partial;
          if (ls->limits.max_partial_bytes && ls->partial_total > ls->limits.max_partial_bytes && c->partial > 0)
            {
              GError *e = g_error_new (G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                                       "unfinished lines of %u connections hold %" G_GSIZE_FORMAT
                                       " bytes, over the bound of %" G_GSIZE_FORMAT " (--max-partial)",
                                       ls->conns->len, ls->partial_total, ls->limits.max_partial_bytes);
              if (ls->base.diag)
                viper_diag_event (ls->base.diag, VIPER_DIAG_WARNING, "closing connection %s: %s", c->name,
                                  e->message);
              conn_close (c, e);
              g_error_free (e);
              listen_notify (ls);
              return G_SOURCE_REMOVE;
            }
          if (queue_full (ls))
            {
              reading_pause (ls);
              listen_notify (ls);
              return G_SOURCE_REMOVE;
            }
          if ((gsize) n < READ_CHUNK)
            break;              /* drained: the next wake-up will say when there is more */
          continue;
        }
      if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          g_error_free (error);
          break;
        }
      /* 0 = orderly end of stream; < 0 = reset or another error. */
      conn_close (c, error);
      g_clear_error (&error);
      listen_notify (ls);
      return G_SOURCE_REMOVE;
    }
  listen_notify (ls);
  return G_SOURCE_CONTINUE;
}

static void
conn_open (Listener *l, GSocket *sock)
{
  ListenSource *ls = l->ls;
  Conn *c = g_new0 (Conn, 1);
  char *name;
  guint open_before = ls->conns->len;

  g_socket_set_blocking (sock, FALSE);
  c->ls = ls;
  c->sock = sock;
  ls->total++;
  /* the address it came to; N counts the connections of all addresses */
  name = g_strdup_printf ("%s#%u", l->address, ls->total);
  c->channel = viper_channels_add (ls->base.channels, name);
  c->name = viper_channels_name (ls->base.channels, c->channel);
  g_free (name);
  c->split = viper_line_splitter_new (conn_on_line, conn_on_error, c);
  g_ptr_array_add (ls->conns, c);
  ls->last_activity = c->last_byte = g_get_monotonic_time ();
  ls->notify = TRUE;
  /* before anything is read from it: the owner may start over (a new run) */
  if (ls->accept_func)
    ls->accept_func (&ls->base, open_before, ls->accept_data);
  if (ls->base.diag)
    viper_diag_event (ls->base.diag, VIPER_DIAG_CONNECTION, "connection %s opened", c->name);
  conn_arm (c);
}

/* ---- the listening socket ------------------------------------------------------ */

static gboolean accept_cb (GSocket *sock, GIOCondition cond, gpointer user_data);

static void
accept_arm (Listener *l)
{
  if (l->accept_watch || l->accept_retry || l->ls->ctx == NULL)
    return;
  l->accept_watch = g_socket_create_source (l->sock, G_IO_IN, NULL);
  g_source_set_priority (l->accept_watch, G_PRIORITY_HIGH);
  g_source_set_callback (l->accept_watch, G_SOURCE_FUNC (accept_cb), l, NULL);
  g_source_set_name (l->accept_watch, "viper listener");
  g_source_attach (l->accept_watch, l->ls->ctx);
}

static void
accept_disarm (Listener *l)
{
  drop_source (&l->accept_watch);
  drop_source (&l->accept_retry);
}

static void
listener_free (gpointer data)
{
  Listener *l = data;
  accept_disarm (l);
  g_socket_close (l->sock, NULL);
  g_object_unref (l->sock);
  g_free (l->address);
  g_free (l);
}

static gboolean
accept_retry_cb (gpointer user_data)
{
  Listener *l = user_data;
  g_source_unref (l->accept_retry);
  l->accept_retry = NULL;
  accept_arm (l);
  return G_SOURCE_REMOVE;
}

static gboolean
accept_cb (GSocket *sock, GIOCondition cond, gpointer user_data)
{
  Listener *l = user_data;
  ListenSource *ls = l->ls;
  (void) cond;

  /* Bounded: a burst of connections is taken in slices, like reads. */
  for (int i = 0; i < 64; i++)
    {
      GError *error = NULL;
      GSocket *conn = g_socket_accept (sock, NULL, &error);

      if (conn && ls->limits.max_connections && ls->conns->len >= ls->limits.max_connections)
        {
          ls->refused++;
          if (ls->base.diag)
            viper_diag_event (ls->base.diag, VIPER_DIAG_WARNING,
                              "%s: refused a connection: %u are open, the bound (--max-connections); %u refused so far",
                              l->address, ls->conns->len, ls->refused);
          g_socket_close (conn, NULL);
          g_object_unref (conn);
          continue;
        }
      if (conn)
        {
          conn_open (l, conn);
          continue;
        }
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          g_error_free (error);
          break;
        }
      /* Out of descriptors or the like: the socket stays readable, so
       * polling again at once would spin.  Say so and retry a bit later. */
      if (ls->base.diag)
        viper_diag_event (ls->base.diag, VIPER_DIAG_WARNING, "%s: cannot accept a connection: %s",
                          l->address, error->message);
      g_error_free (error);
      g_source_unref (l->accept_watch);
      l->accept_watch = NULL;
      l->accept_retry = g_timeout_source_new (ACCEPT_RETRY_MS);
      g_source_set_callback (l->accept_retry, accept_retry_cb, l, NULL);
      g_source_attach (l->accept_retry, ls->ctx);
      listen_notify (ls);
      return G_SOURCE_REMOVE;
    }
  listen_notify (ls);
  return G_SOURCE_CONTINUE;
}

/* ---- the source ------------------------------------------------------------------ */

static gboolean
listen_pending (ViperTramSource *src)
{
  return ((ListenSource *) src)->head != NULL;
}

static ViperTram *
listen_get (ViperTramSource *src)
{
  ListenSource *ls = (ListenSource *) src;
  ViperTram *t = ls->head;

  if (t == NULL)
    return NULL;
  ls->head = t->next;
  if (ls->head == NULL)
    ls->tail = NULL;
  t->next = NULL;
  ls->n_queued--;
  if (G_UNLIKELY (ls->paused) && ls->n_queued <= ls->limits.max_queued / 2)
    reading_resume (ls);
  return t;
}

static gboolean
listen_at_end (ViperTramSource *src)
{
  /* Peers may always come: when to stop is the caller's policy (--idle-exit). */
  (void) src;
  return FALSE;
}

static void
timeout_disarm (ListenSource *ls)
{
  drop_source (&ls->timeout_watch);
}

/* Close the connections silent for longer than the limit. */
static gboolean
timeout_cb (gpointer user_data)
{
  ListenSource *ls = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 limit = (gint64) ls->limits.conn_timeout_ms * 1000;
  if (ls->paused)
    return G_SOURCE_CONTINUE;   /* nobody is read: silence says nothing */
  for (guint i = ls->conns->len; i-- > 0;)
    {
      Conn *c = g_ptr_array_index (ls->conns, i);
      if (now - c->last_byte < limit)
        continue;
      GError *e = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "silent for %.3g s (--conn-timeout=%.3g)",
                               (double) (now - c->last_byte) / 1e6, ls->limits.conn_timeout_ms / 1000.0);
      if (ls->base.diag)
        viper_diag_event (ls->base.diag, VIPER_DIAG_WARNING, "closing connection %s: %s", c->name, e->message);
      conn_close (c, e);
      g_error_free (e);
    }
  listen_notify (ls);
  return G_SOURCE_CONTINUE;
}

static void
timeout_arm (ListenSource *ls)
{
  timeout_disarm (ls);
  if (!ls->limits.conn_timeout_ms || !ls->ctx)
    return;
  /* a quarter of the limit: a silent peer is closed within 1.25 times it */
  ls->timeout_watch = g_timeout_source_new (CLAMP (ls->limits.conn_timeout_ms / 4, 10, 1000));
  /* as high as the readers: a busy connection must not starve the check of a silent one */
  g_source_set_priority (ls->timeout_watch, G_PRIORITY_HIGH);
  g_source_set_callback (ls->timeout_watch, timeout_cb, ls, NULL);
  g_source_set_name (ls->timeout_watch, "viper connection timeout");
  g_source_attach (ls->timeout_watch, ls->ctx);
}

static void
listen_attach (ViperTramSource *src, GMainContext *ctx)
{
  ListenSource *ls = (ListenSource *) src;

  for (guint i = 0; i < ls->listeners->len; i++)
    accept_disarm (g_ptr_array_index (ls->listeners, i));
  for (guint i = 0; i < ls->conns->len; i++)
    conn_disarm (g_ptr_array_index (ls->conns, i));
  if (ls->ctx)
    g_main_context_unref (ls->ctx);
  ls->ctx = ctx ? g_main_context_ref (ctx) : g_main_context_ref_thread_default ();
  for (guint i = 0; i < ls->listeners->len; i++)
    accept_arm (g_ptr_array_index (ls->listeners, i));
  timeout_arm (ls);
  for (guint i = 0; i < ls->conns->len; i++)
    conn_arm (g_ptr_array_index (ls->conns, i));
}

static void
listen_destroy (ViperTramSource *src)
{
  ListenSource *ls = (ListenSource *) src;
  struct stat st;

  for (guint i = 0; i < ls->listeners->len; i++)
    accept_disarm (g_ptr_array_index (ls->listeners, i));
  timeout_disarm (ls);
  /* Closing reports each connection (and any partial line it loses). */
  ls->closing = TRUE;
  while (ls->conns->len > 0)
    conn_close (g_ptr_array_index (ls->conns, ls->conns->len - 1), NULL);
  g_ptr_array_unref (ls->conns);
  g_ptr_array_unref (ls->listeners);
  if (ls->unix_file.path && lstat (ls->unix_file.path, &st) == 0
      && st.st_dev == ls->unix_file.dev && st.st_ino == ls->unix_file.ino)
    (void) unlink (ls->unix_file.path);
  while (ls->head)
    {
      ViperTram *t = ls->head;
      ls->head = t->next;
      t->next = NULL;
      viper_tram_pool_release (ls->base.pool, t);
    }
  if (ls->ctx)
    g_main_context_unref (ls->ctx);
  if (ls->scratch)
    viper_tram_fields_free (ls->scratch);
  g_free (ls->rbuf);
  g_free (ls->unix_file.path);
  g_free (ls->addresses);       /* the strings are the listeners' */
}

static const ViperTramSourceClass listen_class = {
  .kind = "listen",
  .pending = listen_pending,
  .get = listen_get,
  .reset = NULL,            /* a live stream cannot be rewound */
  .at_end = listen_at_end,
  .attach = listen_attach,
  .destroy = listen_destroy,
};

ViperTramSource *
viper_listen_source_new (const char *address, ViperTramPool *pool, ViperDiag *diag,
                         ViperChannels *channels, GError **error)
{
  ListenSource *ls;
  char *host = NULL, *path = NULL;
  guint16 port = 0;
  GPtrArray *socks = g_ptr_array_new_with_free_func (g_object_unref);
  gboolean ok;

  g_return_val_if_fail (address != NULL && pool != NULL && channels != NULL, NULL);

  if (!viper_listen_address_parse (address, &host, &port, &path, error))
    {
      g_ptr_array_unref (socks);
      return NULL;
    }

  ls = g_new0 (ListenSource, 1);
  if (path)
    {
      GSocket *sock = viper_listen_bind_unix (address, path, &ls->unix_file, error);
      ok = sock != NULL;
      if (ok)
        g_ptr_array_add (socks, sock);
    }
  else
    ok = viper_listen_bind_tcp (address, host, port, socks, error);
  g_free (host);

  if (!ok)
    {
      if (ls->unix_file.path)
        (void) unlink (ls->unix_file.path);
      g_free (ls->unix_file.path);
      g_free (path);
      g_free (ls);
      g_ptr_array_unref (socks);
      return NULL;
    }

  ls->listeners = g_ptr_array_new_with_free_func (listener_free);
  ls->addresses = g_new0 (char *, socks->len + 1);
  for (guint i = 0; i < socks->len; i++)
    {
      Listener *l = g_new0 (Listener, 1);
      GSocketAddress *local = path ? NULL : g_socket_get_local_address (socks->pdata[i], NULL);
      l->ls = ls;
      l->sock = g_object_ref (socks->pdata[i]);
      l->address = path ? g_strdup_printf ("unix:%s", path) : local ? viper_listen_format_inet (local) : g_strdup (address);
      g_clear_object (&local);
      g_socket_set_blocking (l->sock, FALSE);
      g_ptr_array_add (ls->listeners, l);
      ls->addresses[i] = l->address;
    }
  g_free (path);
  g_ptr_array_unref (socks);
  ls->address = ls->addresses[0];

  ls->base.klass = &listen_class;
  ls->base.name = g_strdup (ls->address);
  ls->base.pool = pool;
  ls->base.diag = diag;
  ls->base.channels = channels;
  ls->conns = g_ptr_array_new ();
  ls->rbuf = g_malloc (READ_CHUNK);
  ls->scratch = viper_tram_fields_new ();
  ls->last_activity = g_get_monotonic_time ();
  ViperListenLimits defaults = VIPER_LISTEN_LIMITS_DEFAULT;
  ls->limits = defaults;
  for (guint i = 0; diag && i < ls->listeners->len; i++)
    {
      Listener *l = ls->listeners->pdata[i];
      viper_diag_event (diag, VIPER_DIAG_TRACE_START, "listening on %s", l->address);
      if (!ls->unix_file.path && !viper_listen_is_loopback (l->sock))
        viper_diag_event (diag, VIPER_DIAG_WARNING,
                          "listening on %s, beyond loopback: the protocol has no authentication, so anyone who "
                          "can reach this port can inject trams", l->address);
    }
  return &ls->base;
}

static ListenSource *
as_listen (ViperTramSource *s)
{
  g_return_val_if_fail (s != NULL && s->klass == &listen_class, NULL);
  return (ListenSource *) s;
}

guint
viper_listen_source_open_connections (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  return ls ? ls->conns->len : 0;
}

guint
viper_listen_source_total_connections (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  return ls ? ls->total : 0;
}

gint64
viper_listen_source_last_activity (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  return ls ? ls->last_activity : 0;
}

const char *
viper_listen_source_address (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  return ls ? ls->address : NULL;
}

const char *const *
viper_listen_source_addresses (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  return ls ? (const char *const *) ls->addresses : NULL;
}

void
viper_listen_source_set_limits (ViperTramSource *s, const ViperListenLimits *limits)
{
  ListenSource *ls = as_listen (s);
  if (!ls)
    return;
  ls->limits = *limits;
  if (ls->ctx)
    timeout_arm (ls);
}

void
viper_listen_source_set_accept_func (ViperTramSource *s, ViperListenAcceptFunc f, gpointer data)
{
  ListenSource *ls = as_listen (s);
  if (!ls)
    return;
  ls->accept_func = f;
  ls->accept_data = data;
}

void
viper_listen_source_watch_next_proc (ViperTramSource *s, ViperListenProcFunc f, gpointer data)
{
  ListenSource *ls = as_listen (s);
  if (!ls)
    return;
  ls->proc_func = f;
  ls->proc_data = data;
}

guint
viper_listen_source_pauses (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  return ls ? ls->pauses : 0;
}

guint
viper_listen_source_lost_connections (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  return ls ? ls->lost : 0;
}

guint64
viper_listen_source_discard (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  guint64 n = 0;
  if (!ls)
    return 0;
  while (ls->head)
    {
      ViperTram *t = ls->head;
      ls->head = t->next;
      t->next = NULL;
      viper_tram_pool_release (ls->base.pool, t);
      n++;
    }
  ls->tail = NULL;
  ls->n_queued = 0;
  if (ls->paused)
    reading_resume (ls);
  if (n && ls->base.diag)
    viper_diag_event (ls->base.diag, VIPER_DIAG_WARNING,
                      "%s: discarded %" G_GUINT64_FORMAT " tram%s received but not yet replayed (the session started over)",
                      ls->address, n, n == 1 ? "" : "s");
  return n;
}

guint
viper_listen_source_disconnect_all (ViperTramSource *s)
{
  ListenSource *ls = as_listen (s);
  guint n = 0;
  if (!ls)
    return 0;
  GError *e = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "disconnected by the user (reset)");
  while (ls->conns->len > 0)
    {
      Conn *c = g_ptr_array_index (ls->conns, ls->conns->len - 1);
      /* the user's choice, not a lost connection: nothing of a cut line is reported */
      c->partial = 0;
      viper_line_splitter_reset (c->split);
      conn_close (c, e);
      ls->lost--;
      n++;
    }
  g_error_free (e);
  viper_listen_source_discard (s);
  return n;
}
