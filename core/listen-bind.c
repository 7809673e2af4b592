/* listen-bind.c - the listening side of a listen source (core/source-listen.c):
 * parsing an address, binding TCP on every address a host name resolves to,
 * and a Unix socket file created owner-only under a temporary name, then
 * linked (the reasons are in source-listen.c's opening comment). */
#include "core/listen-bind.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <gio/gunixsocketaddress.h>

#define DEFAULT_HOST "127.0.0.1"

static gboolean
parse_port (const char *s, const char *address, guint16 *port, GError **error)
{
  guint64 v = 0;

  if (*s == '\0')
    {
      *port = VIPER_DEFAULT_PORT;
      return TRUE;
    }
  for (const char *p = s; *p; p++)
    {
      if (!g_ascii_isdigit (*p) || (v = v * 10 + (guint64) (*p - '0')) > 65535)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "bad port '%s' in address '%s' (expected 0 to 65535)", s, address);
          return FALSE;
        }
    }
  *port = (guint16) v;
  return TRUE;
}

gboolean
viper_listen_address_parse (const char *address, char **host, guint16 *port,
                            char **unix_path, GError **error)
{
  g_return_val_if_fail (address != NULL, FALSE);
  if (host)
    *host = NULL;
  if (unix_path)
    *unix_path = NULL;
  if (port)
    *port = 0;

  if (g_str_has_prefix (address, "unix:"))
    {
      const char *path = address + 5;
      if (*path == '\0')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "missing path in address '%s' (expected unix:PATH)", address);
          return FALSE;
        }
      if (unix_path)
        *unix_path = g_strdup (path);
      return TRUE;
    }

  if (g_str_has_prefix (address, "tcp:"))
    {
      const char *rest = address + 4;
      const char *port_str;
      char *h;
      guint16 p;
      gboolean all_digits = *rest != '\0';

      for (const char *q = rest; *q; q++)
        all_digits = all_digits && g_ascii_isdigit (*q);

      if (*rest == '\0' || all_digits)                    /* "tcp:" or "tcp:PORT" */
        {
          h = g_strdup (DEFAULT_HOST);
          port_str = rest;
        }
      else if (*rest == '[')                              /* "tcp:[v6]:PORT" */
        {
          const char *close = strchr (rest, ']');
          if (close == NULL || close == rest + 1 || (close[1] != '\0' && close[1] != ':'))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "bad address '%s' (expected tcp:[IPV6]:PORT)", address);
              return FALSE;
            }
          h = g_strndup (rest + 1, (gsize) (close - rest - 1));
          port_str = close[1] ? close + 2 : close + 1;
        }
      else                                                /* "tcp:HOST[:PORT]" */
        {
          const char *colon = strrchr (rest, ':');
          if (colon && memchr (rest, ':', (gsize) (colon - rest)) != NULL)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "bad address '%s' (an IPv6 host goes in brackets: tcp:[::1]:PORT)",
                           address);
              return FALSE;
            }
          if (colon)
            {
              h = colon == rest ? g_strdup (DEFAULT_HOST) : g_strndup (rest, (gsize) (colon - rest));
              port_str = colon + 1;
            }
          else
            {
              h = g_strdup (rest);
              port_str = "";
            }
        }
      if (!parse_port (port_str, address, &p, error))
        {
          g_free (h);
          return FALSE;
        }
      if (port)
        *port = p;
      if (host)
        *host = h;
      else
        g_free (h);
      return TRUE;
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "unsupported address '%s' (expected tcp:HOST:PORT or unix:PATH)", address);
  return FALSE;
}

char *
viper_listen_format_inet (GSocketAddress *sa)
{
  GInetSocketAddress *isa = G_INET_SOCKET_ADDRESS (sa);
  GInetAddress *ia = g_inet_socket_address_get_address (isa);
  char *host = g_inet_address_to_string (ia);
  char *s;

  if (g_inet_address_get_family (ia) == G_SOCKET_FAMILY_IPV6)
    s = g_strdup_printf ("tcp:[%s]:%u", host, g_inet_socket_address_get_port (isa));
  else
    s = g_strdup_printf ("tcp:%s:%u", host, g_inet_socket_address_get_port (isa));
  g_free (host);
  return s;
}

/* Bind and listen on one address; NULL and error if it cannot. */
static GSocket *
bind_inet (GInetAddress *ia, guint16 port, gboolean v6only, GError **error)
{
  GSocketAddress *sa = g_inet_socket_address_new (ia, port);
  GSocket *sock = g_socket_new (g_socket_address_get_family (sa), G_SOCKET_TYPE_STREAM,
                                G_SOCKET_PROTOCOL_DEFAULT, error);

  /* GLib makes IPv6 sockets dual-stack: beside an IPv4 address of the same
   * name, an IPv6 one must take IPv6 only (or "::" would clash with 0.0.0.0) */
  if (sock && v6only && g_socket_address_get_family (sa) == G_SOCKET_FAMILY_IPV6)
    (void) g_socket_set_option (sock, IPPROTO_IPV6, IPV6_V6ONLY, 1, NULL);
  if (sock && g_socket_bind (sock, sa, TRUE, error))
    {
      g_socket_set_listen_backlog (sock, 128);
      if (g_socket_listen (sock, error))
        {
          g_object_unref (sa);
          return sock;
        }
    }
  g_clear_object (&sock);
  g_object_unref (sa);
  return NULL;
}

static guint16
bound_port (GSocket *sock)
{
  GSocketAddress *local = g_socket_get_local_address (sock, NULL);
  guint16 port = local ? g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)) : 0;
  g_clear_object (&local);
  return port;
}

/* Listen on every address HOST resolves to (a name is resolved once, at
 * start-up, synchronously): "localhost" is ::1 and 127.0.0.1, and a sender
 * may try either first.  All get the same port (with port 0, the one the
 * system picks for the first).  An address in use or not permitted is an
 * error; one that cannot exist here (IPv6 on a machine without it) is skipped
 * when another one is bound.  Appends the sockets, listening, to SOCKS. */
gboolean
viper_listen_bind_tcp (const char *address, const char *host, guint16 port, GPtrArray *socks, GError **error)
{
  GInetAddress *literal = g_inet_address_new_from_string (host);
  GList *list = NULL;

  if (literal)
    list = g_list_append (NULL, literal);
  else
    {
      GResolver *r = g_resolver_get_default ();
      GError *e = NULL;
      list = g_resolver_lookup_by_name (r, host, NULL, &e);
      g_object_unref (r);
      if (list == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "cannot resolve '%s' in address '%s': %s",
                       host, address, e ? e->message : "no address");
          g_clear_error (&e);
          return FALSE;
        }
    }
  /* the same address twice would clash with itself */
  for (GList *a = list; a; a = a->next)
    for (GList *b = a->next, *next; b; b = next)
      {
        next = b->next;
        if (g_inet_address_equal (a->data, b->data))
          {
            g_object_unref (b->data);
            list = g_list_delete_link (list, b);
          }
      }

  gboolean v6only = list->next != NULL;
  GString *skipped = g_string_new (NULL);
  gboolean ok = FALSE;
  /* with port 0, a port free on the first address may be taken on another: try again */
  for (int attempt = 0; attempt < 16 && !ok; attempt++)
    {
      guint16 p = port;
      GError *e = NULL;
      ok = TRUE;
      g_string_truncate (skipped, 0);
      for (GList *a = list; a && ok; a = a->next)
        {
          GSocket *sock = bind_inet (a->data, p, v6only, &e);
          if (sock)
            {
              g_ptr_array_add (socks, sock);
              if (p == 0)
                p = bound_port (sock);
              continue;
            }
          char *text = g_inet_address_to_string (a->data);
          gboolean hard = g_error_matches (e, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE)
                          || g_error_matches (e, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
          if (hard && port == 0 && p != 0 && attempt < 15)
            ok = FALSE;                         /* another port for all */
          else if (hard)
            {
              g_set_error (error, e->domain, e->code, "cannot listen on '%s': %s", address, e->message);
              g_free (text);
              g_error_free (e);
              g_ptr_array_set_size (socks, 0);
              g_string_free (skipped, TRUE);
              g_list_free_full (list, g_object_unref);
              return FALSE;
            }
          else
            g_string_append_printf (skipped, "%s%s: %s", skipped->len ? "; " : "", text, e->message);
          g_free (text);
          g_clear_error (&e);
        }
      if (!ok)
        g_ptr_array_set_size (socks, 0);
    }
  g_list_free_full (list, g_object_unref);
  if (socks->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE, "cannot listen on '%s': %s", address,
                   skipped->len ? skipped->str : "no port free on all its addresses");
      g_string_free (skipped, TRUE);
      return FALSE;
    }
  g_string_free (skipped, TRUE);
  return TRUE;
}

/* Remove a socket file nobody listens on any more; refuse everything else. */
static gboolean
clear_stale_socket (const char *path, const char *address, GError **error)
{
  struct stat st;
  GSocket *probe;
  GSocketAddress *sa;
  GError *e = NULL;
  gboolean alive;

  if (lstat (path, &st) != 0)
    return TRUE;                /* nothing there (or unreachable: bind will say) */
  if (!S_ISSOCK (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "cannot listen on '%s': %s exists and is not a socket (not removing it)", address, path);
      return FALSE;
    }
  probe = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
  if (probe == NULL)
    return TRUE;
  sa = g_unix_socket_address_new (path);
  alive = g_socket_connect (probe, sa, NULL, &e);
  g_object_unref (sa);
  g_socket_close (probe, NULL);
  g_object_unref (probe);
  if (alive)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE,
                   "cannot listen on '%s': another program is listening there", address);
      return FALSE;
    }
  if (g_error_matches (e, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
    (void) unlink (path);
  g_clear_error (&e);
  return TRUE;
}

static gboolean
start_listening (GSocket *sock, const char *address, GError **error)
{
  g_socket_set_listen_backlog (sock, 128);
  if (g_socket_listen (sock, error))
    return TRUE;
  g_prefix_error (error, "cannot listen on '%s': ", address);
  return FALSE;
}

/* Bind and listen on a Unix socket at PATH.  The socket is bound under a
 * temporary name beside PATH and hard-linked to PATH only once it listens, so
 * a client that waits for the socket file never finds it refusing connections
 * (and clear_stale_socket in another Viper never takes a socket still being set
 * up for a dead one).  link() also refuses to replace a file that appeared at
 * PATH meanwhile.  When the temporary name would not fit in sun_path, PATH is
 * bound directly (with the short window between bind and listen). */
GSocket *
viper_listen_bind_unix (const char *address, const char *path, ViperUnixSocketFile *file, GError **error)
{
  GSocketAddress *sa;
  GSocket *sock;
  struct stat st;
  static gint serial;
  char *tmp = g_strdup_printf ("%s.%ld-%d~", path, (long) getpid (), g_atomic_int_add (&serial, 1));

  if (strlen (tmp) >= 108)      /* sizeof sun_path on Linux */
    g_clear_pointer (&tmp, g_free);
  if (!clear_stale_socket (path, address, error))
    {
      g_free (tmp);
      return NULL;
    }
  sock = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
  if (sock == NULL)
    {
      g_free (tmp);
      return NULL;
    }
  if (tmp)
    (void) unlink (tmp);        /* our own pid's name: a leftover of a crash */
  sa = g_unix_socket_address_new (tmp ? tmp : path);
  /* owner-only from the start, whatever the umask (no window for a chmod race).
   * The umask is the process's: this is safe because Viper's other thread
   * (the read-ahead) creates no files, and the window is one bind() call. */
  mode_t old_mask = umask (0177);
  gboolean bound = g_socket_bind (sock, sa, FALSE, error);
  umask (old_mask);
  g_object_unref (sa);
  if (!bound)
    {
      g_prefix_error (error, "cannot listen on '%s': ", address);
      g_object_unref (sock);
      g_free (tmp);
      return NULL;
    }
  if (!start_listening (sock, address, error))
    {
      if (tmp)
        (void) unlink (tmp);
      else
        (void) unlink (path);
      g_object_unref (sock);
      g_free (tmp);
      return NULL;
    }
  if (tmp)
    {
      int rc = link (tmp, path);
      int saved = errno;
      if (rc != 0 && saved != EEXIST)
        {
          /* a file system without hard links: rename (may replace a file
           * that appeared since clear_stale_socket; nothing better exists) */
          rc = rename (tmp, path);
          saved = errno;
        }
      (void) unlink (tmp);
      if (rc != 0)
        {
          if (saved == EEXIST)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE,
                         "cannot listen on '%s': %s appeared meanwhile (another program?)", address, path);
          else
            g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                         "cannot listen on '%s': cannot create %s: %s", address, path, g_strerror (saved));
          g_object_unref (sock);
          g_free (tmp);
          return NULL;
        }
      g_free (tmp);
    }
  if (lstat (path, &st) == 0)
    {
      (void) chmod (path, 0600);
      file->path = g_strdup (path);
      file->dev = st.st_dev;
      file->ino = st.st_ino;
    }
  return sock;
}

gboolean
viper_listen_is_loopback (GSocket *sock)
{
  GSocketAddress *local = g_socket_get_local_address (sock, NULL);
  gboolean lo = TRUE;
  if (local && G_IS_INET_SOCKET_ADDRESS (local))
    lo = g_inet_address_get_is_loopback (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (local)));
  g_clear_object (&local);
  return lo;
}
