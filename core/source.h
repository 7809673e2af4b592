/* source.h - tram sources: where trams come from (thesis 4.1, TramSource).
 *
 * One interface for every source: pending() says whether a tram can be taken
 * now without blocking, get() takes it, reset() rewinds (files) and at_end()
 * says nothing more will ever come.  Sources plug into a GMainContext with
 * attach(): socket sources read whenever data arrive, at a priority above
 * processing and drawing, and queue parsed trams; file sources read lazily in
 * large blocks when get() needs more.  Bad lines are reported to the ViperDiag
 * and skipped; every tram line (good or bad) is counted in lines_read.
 *
 * Each file and each socket connection is a *channel* (ViperChannels): a
 * FIFO whose name prefixes diagnostics and which numbers a PROC's trams when
 * the paradigm carries no sequence numbers (spec picl.md section 2).
 */
#pragma once

#include <gio/gio.h>
#include "tram.h"
#include "diag.h"

G_BEGIN_DECLS

/* ---- channels ------------------------------------------------------------ */

typedef struct _ViperChannels ViperChannels;

ViperChannels *viper_channels_new (void);
void viper_channels_free (ViperChannels *c);
guint32 viper_channels_add (ViperChannels *c, const char *name);
const char *viper_channels_name (const ViperChannels *c, guint32 id);
guint32 viper_channels_count (const ViperChannels *c);
/* Implicit sequence number: 1, 2, ... per (channel, proc). */
gint64 viper_channels_next_seq (ViperChannels *c, guint32 channel, gint64 proc);
/* Forget the implicit counters (reset of the replay). */
void viper_channels_reset_seq (ViperChannels *c);

/* ---- sources ------------------------------------------------------------- */

typedef struct _ViperTramSource ViperTramSource;
typedef struct _ViperTramSourceClass ViperTramSourceClass;

/* Called (from the main loop) when trams became pending, a connection opened or
 * closed, or the source reached its end. */
typedef void (*ViperSourceReadyFunc) (ViperTramSource *src, gpointer user_data);
/* Called with a tram the source will hand out a few get()s later, when it
 * knows one (a file read ahead: up to VIPER_SOURCE_AHEAD trams on): a look only,
 * so the engine can prefetch the memory that tram will touch.  The tram is
 * not the source's yet: valid only during the call. */
typedef void (*ViperSourceAheadFunc) (const ViperTram *upcoming, gpointer user_data);
/* A bad line the source just reported (and counted in lines_bad) whose PROC
 * could still be read (viper_tram_salvage; d1 0 when D1 could not): the
 * engine lets its module go on past it (spec section 1).  Called in the
 * order the lines are taken, on the thread that takes them. */
typedef void (*ViperSourceRejectFunc) (gint64 proc, gint64 d1, guint32 channel, guint64 line, gpointer user_data);
#define VIPER_SOURCE_AHEAD 16

struct _ViperTramSourceClass {
  const char *kind;                                        /* "file", "stdin", "listen" */
  gboolean (*pending) (ViperTramSource *src);
  ViperTram *(*get) (ViperTramSource *src);                /* NULL when nothing pending */
  gboolean (*reset) (ViperTramSource *src, GError **error);
  gboolean (*at_end) (ViperTramSource *src);
  void (*attach) (ViperTramSource *src, GMainContext *ctx);
  void (*destroy) (ViperTramSource *src);
};

struct _ViperTramSource {
  const ViperTramSourceClass *klass;
  char *name;                   /* path, "-", or the listen address */
  ViperTramPool *pool;          /* not owned */
  ViperDiag *diag;              /* not owned */
  ViperChannels *channels;      /* not owned */
  guint64 lines_read;           /* tram lines seen (not comments), good or bad */
  guint64 lines_bad;            /* of those, rejected as bad input (reported to diag) */
  guint64 bytes_read;
  ViperSourceReadyFunc ready;
  gpointer ready_data;
  ViperSourceAheadFunc ahead;
  gpointer ahead_data;
  ViperSourceRejectFunc reject;
  gpointer reject_data;
  /* A regular file: which one, as it was opened (viper_file_source_new),
   * so that whoever reads it again by name can tell it is the same file,
   * unchanged (core/scheduler-modules.c); all 0 for anything else. */
  guint64 file_dev, file_ino, file_size;
  gint64 file_mtime_ns;
};

/* get() hands the tram over: the caller releases it to the pool.  attach()
 * with ctx NULL uses the thread-default main context.  A listener queues every
 * tram it reads until it is taken (nothing is dropped), so its memory grows
 * with the trams not yet consumed; everything else a source holds is bounded. */
static inline gboolean viper_tram_pending (ViperTramSource *s) { return s->klass->pending (s); }
static inline ViperTram *viper_get_tram (ViperTramSource *s) { return s->klass->get (s); }
/* --strict saw a bad line: a source reads no further (the first bad line is
 * the last one reported, not the first of a batch). */
static inline gboolean
viper_tram_source_stopping (const ViperTramSource *s)
{
  return s->diag && s->diag->stop_requested;
}
gboolean viper_tram_source_reset (ViperTramSource *s, GError **error);
gboolean viper_tram_source_at_end (ViperTramSource *s);
void viper_tram_source_attach (ViperTramSource *s, GMainContext *ctx);
void viper_tram_source_set_ready_func (ViperTramSource *s, ViperSourceReadyFunc f, gpointer data);
void viper_tram_source_set_ahead_func (ViperTramSource *s, ViperSourceAheadFunc f, gpointer data);
void viper_tram_source_set_reject_func (ViperTramSource *s, ViperSourceRejectFunc f, gpointer data);
/* For sources: tell the reject func about bad line `line` (if it has one and
 * the line's PROC can be read). */
void viper_tram_source_salvage (ViperTramSource *s, const char *line, gsize len, guint32 channel, guint64 lineno);
/* The same for the start of a line that could not be delivered whole (the
 * line splitter's head: viper_tram_salvage_cut). */
void viper_tram_source_salvage_cut (ViperTramSource *s, const char *line, gsize len, gboolean cut, guint32 channel,
                                    guint64 lineno);
void viper_tram_source_free (ViperTramSource *s);
/* For sources: s reads the file st describes (a regular file: its identity). */
struct stat;
void viper_tram_source_set_file (ViperTramSource *s, const struct stat *st);
/* The file at path is the regular file s was opened on, unchanged since. */
gboolean viper_tram_source_same_file (const ViperTramSource *s, const char *path);
/* traces (NULL-terminated, may be NULL) without the paths that name a
 * regular file named before them (the same device and inode: read twice, its
 * lines would be two channels' worth of the same trams).  For each one left
 * out a message is added to notes (g_free'd strings; notes may be NULL).
 * Returns a new NULL-terminated array (NULL when traces is NULL). */
char **viper_traces_unique (const char *const *traces, GPtrArray *notes);
/* For wrappers: the file identity of inner, to s. */
void viper_tram_source_copy_file (ViperTramSource *s, const ViperTramSource *inner);

/* A trace file ("-" = standard input, which cannot be reset).  A regular
 * file (also as standard input) is read and parsed on a second thread
 * (core/readahead.h) unless the environment says VIPER_READAHEAD=0. */
ViperTramSource *viper_file_source_new (const char *path, ViperTramPool *pool, ViperDiag *diag,
                                        ViperChannels *channels, GError **error);
/* Read a regular file on a second thread or not (tests; before the first
 * pending/get; no effect on other inputs). */
void viper_file_source_set_read_ahead (ViperTramSource *s, gboolean on);
/* A FIFO source with nothing to read yet and no writer seen: no writer has
 * opened it, or its writer has written nothing so far.  Reading it waits (a
 * source attached to a main context waits in its poll, so a signal source
 * of the same context is heard meanwhile). */
gboolean viper_file_source_awaits_writer (const ViperTramSource *s);
/* A file source with a read-ahead thread now.  At most 4 files are read on
 * threads of their own at once in a process; the others are read on the
 * thread that takes their trams (tests). */
gboolean viper_file_source_reading_ahead (const ViperTramSource *s);

/* Listen on "tcp:HOST:PORT", "tcp:PORT", "tcp:" (default 127.0.0.1:7405) or
 * "unix:PATH"; a HOST name on every address it resolves to.  Any number of
 * connections; each one is a channel named "tcp:ADDR:PORT#N" (the address
 * it came to) / "unix:PATH#N" (N counts connections from 1). */
ViperTramSource *viper_listen_source_new (const char *address, ViperTramPool *pool, ViperDiag *diag,
                                          ViperChannels *channels, GError **error);
/* For listeners: connections open now, accepted so far, and the monotonic
 * time (g_get_monotonic_time) of the last byte or connection event. */
guint viper_listen_source_open_connections (ViperTramSource *s);
guint viper_listen_source_total_connections (ViperTramSource *s);
gint64 viper_listen_source_last_activity (ViperTramSource *s);
/* The bound address (useful with port 0): "tcp:127.0.0.1:40123"; the first
 * of them when a host name resolved to several ("tcp:localhost:0" listens on
 * "tcp:[::1]:PORT" and "tcp:127.0.0.1:PORT", one socket each). */
const char *viper_listen_source_address (ViperTramSource *s);
/* Every bound address, NULL-terminated, owned by the source. */
const char *const *viper_listen_source_addresses (ViperTramSource *s);

#define VIPER_DEFAULT_PORT 7405

/* What one listener accepts (core/source-listen.c says what happens at each). */
typedef struct {
  guint max_connections;     /* open at once; more are closed at once with a warning (0 = no cap) */
  guint conn_timeout_ms;     /* a connection silent this long is closed with a warning (0 = never) */
  gsize max_partial_bytes;   /* unfinished lines of all connections together (0 = no bound beyond 64 KB each) */
  guint64 max_queued;        /* trams received and not yet taken: at the bound reading pauses, with a
                              * warning, until half of them are taken (0 = no bound) */
} ViperListenLimits;
#define VIPER_LISTEN_DEFAULT_MAX_QUEUED 1000000u
#define VIPER_LISTEN_LIMITS_DEFAULT { 1024, 3600 * 1000, 64 * 1024 * 1024, VIPER_LISTEN_DEFAULT_MAX_QUEUED }
void viper_listen_source_set_limits (ViperTramSource *s, const ViperListenLimits *limits);
/* Called for every accepted connection before anything is read from it,
 * with the number of connections that were open before it. */
typedef void (*ViperListenAcceptFunc) (ViperTramSource *s, guint open_before, gpointer data);
void viper_listen_source_set_accept_func (ViperTramSource *s, ViperListenAcceptFunc f, gpointer data);
/* Once: called with the PROC of the next tram line that arrives on any
 * connection, before that line is parsed and queued (the owner may start
 * over there: discard and reset).  Lines whose PROC does not parse leave it
 * armed.  NULL disarms. */
typedef void (*ViperListenProcFunc) (ViperTramSource *s, gint64 proc, gpointer data);
void viper_listen_source_watch_next_proc (ViperTramSource *s, ViperListenProcFunc f, gpointer data);
/* Connections that ended with an error or in the middle of a line so far. */
guint viper_listen_source_lost_connections (ViperTramSource *s);
/* Times reading paused at max_queued so far. */
guint viper_listen_source_pauses (ViperTramSource *s);
/* Drop the trams received and not yet taken (reported as a warning); how many. */
guint64 viper_listen_source_discard (ViperTramSource *s);
/* Close every open connection (reported) and discard what they sent that was
 * not taken yet: Reset while programs are connected.  How many were closed. */
guint viper_listen_source_disconnect_all (ViperTramSource *s);

/* Check a listen address without binding it (command lines, tests).  On
 * success either *unix_path is set (unix:PATH) or *host and *port are (tcp:,
 * with "tcp:" = 127.0.0.1:7405, "tcp:PORT" = 127.0.0.1:PORT, IPv6 hosts in
 * brackets: "tcp:[::1]:PORT").  Any out-pointer may be NULL; free with g_free. */
gboolean viper_listen_address_parse (const char *address, char **host, guint16 *port,
                                     char **unix_path, GError **error);

G_END_DECLS
