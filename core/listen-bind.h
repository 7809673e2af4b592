/* listen-bind.h - binding a listen source's sockets (core/listen-bind.c).
 * Private to core/source-listen.c; viper_listen_address_parse is public
 * (core/source.h). */
#pragma once

#include <sys/stat.h>
#include <gio/gio.h>
#include "core/source.h"

/* The socket file a Unix listener created: removed on close only while it
 * is still this one (same device and inode). */
typedef struct {
  char *path;               /* NULL when none */
  dev_t dev;
  ino_t ino;
} ViperUnixSocketFile;

/* Listen on the Unix socket PATH (ADDRESS for messages); fills FILE. */
GSocket *viper_listen_bind_unix (const char *address, const char *path, ViperUnixSocketFile *file, GError **error);
/* Listen on every address HOST resolves to; appends the sockets to SOCKS. */
gboolean viper_listen_bind_tcp (const char *address, const char *host, guint16 port, GPtrArray *socks,
                                GError **error);
/* "tcp:HOST:PORT" ("tcp:[HOST]:PORT" for IPv6) of an inet socket address. */
char *viper_listen_format_inet (GSocketAddress *sa);
/* The socket's local address is a loopback one (or not an inet address). */
gboolean viper_listen_is_loopback (GSocket *sock);
