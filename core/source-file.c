/* source-file.c - trams from a trace file or from standard input.
 *
 * Reading: the file is read with plain read() in 1 MiB blocks into one buffer
 * that is reused for the whole file, so memory is bounded by that buffer plus
 * the line splitter's VIPER_MAX_LINE, whatever the size of the file (a 1 GB
 * trace never sits in memory).  read() rather than mmap() because it works the
 * same for regular files, pipes and terminals, and because a mapped file that
 * shrinks under us would crash the process with SIGBUS.
 *
 * Laziness: get() and pending() parse only as far as the next tram.  The
 * buffer is handed to the ViperLineSplitter one line at a time (up to and
 * including the next '\n', found with memchr), so that each feed delivers at
 * most one line and the queue between the splitter callback and get() holds
 * at most one tram in the steady state.  The splitter still does the real
 * work: joining lines across block boundaries, and skipping (with one report)
 * lines longer than VIPER_MAX_LINE without buffering them.
 *
 * Regular files never block in any way that matters, so they are read
 * synchronously from inside pending()/get(); pending() therefore answers
 * exactly "get() would return a tram now".  Standard input (and any other
 * non-seekable path, e.g. a FIFO) may block for ever: when the source is
 * attached to a GMainContext, reading is done by a unix fd watch at
 * G_PRIORITY_HIGH that performs one read() per wake-up and only while the
 * buffer is empty.  That gives back-pressure for free: while the engine has
 * not consumed the block already read, nothing more is read, and the writer
 * of the pipe simply waits.  Without a main context the reads block, which is
 * what a headless "viper-replay - < pipe" wants anyway.
 *
 * A FIFO named by path is opened without blocking: open() for reading waits
 * for a writer, and a signal cannot cut that wait short (its handler
 * restarts the call).  Until a writer has shown itself (data to read, or its
 * close) the descriptor stays non-blocking - a read then would say end of
 * file - and the source waits on poll(): the main context's watch when
 * attached, so that anything else the loop serves (a signal) is heard, else
 * a blocking poll().  viper_file_source_awaits_writer() tells the caller
 * that such a wait is ahead, to say so.
 *
 * Only regular files can be rewound: reset() seeks to 0 and forgets the
 * splitter state, so line numbers restart at 1.  The implicit per-PROC
 * sequence counters are the engine's to reset (viper_channels_reset_seq).
 *
 * Standard input kept for several readers (core/stdin-keep.h, the GUI): a
 * regular file behind it is opened again and read as the file it is; a
 * stream is read through the keeper's spool at this source's own offset,
 * which a reset sets back to 0.
 */
#include "core/source.h"
#include "core/tramparse.h"
#include "core/readahead.h"
#include "core/picl1.h"
#include "core/stdin-keep.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib-unix.h>

#define READ_BLOCK (1u << 20)

/* Files read on threads of their own at once, in the whole process.  Each
 * holds about 5 MiB (a read block and four batches) and a thread: a trace
 * written one file per rank (1,024 files) took 1.4 GiB and ran twice as
 * slowly as read on the engine's thread.  Past the bound a file is read
 * and parsed on the engine's thread, as with VIPER_READAHEAD=0; the first
 * files opened keep theirs until their end. */
#define READ_AHEAD_FILES 4
static gint active_read_aheads;

typedef struct {
  ViperTramSource base;
  int fd;
  gboolean is_stdin;
  gboolean seekable;        /* a regular file: reset() allowed, reads never wait */
  gboolean owns_fd;         /* fd is ours to close */
  gboolean kept;            /* standard input read through the keeper's spool */
  guint64 koff;             /* that reader's offset in standard input */
  gint64 origin;            /* where the file starts (standard input opened again: its offset) */
  guint32 channel;
  char *where;              /* name in diagnostics: the path, or "<stdin>" */

  char *buf;                /* READ_BLOCK bytes */
  gsize pos, len;           /* unparsed bytes are buf[pos, len) */
  gboolean eof;             /* read() said end of file (or failed) */
  gboolean finished;        /* splitter finished and TRACE_END reported */
  gboolean started;         /* TRACE_START reported */
  gboolean sniffed;         /* looked at the start for the PICL 1 layout */
  gboolean await_writer;    /* a FIFO no writer has shown itself on yet: fd is O_NONBLOCK */

  ViperLineSplitter *split;
  ViperTramFields *scratch;
  gboolean use_ahead;       /* a regular file (also as stdin): read and parsed on a second thread */
  gboolean ahead_decided;   /* use_ahead checked against the bound of threads (file_fill) */
  gboolean ahead_slot;      /* this source counts in active_read_aheads */
  ViperReadAhead *ahead;    /* that thread, from the first fill to the end or a reset */
  ViperTram *head, *tail;   /* parsed, not yet taken (linked through ->next) */

  GMainContext *ctx;        /* set by attach() */
  GSource *watch;           /* non-seekable input: armed only while buf is empty */
  GSource *kick;            /* one-shot: tell the ready func to look at us */
} FileSource;

static void file_on_line (const char *line, gsize len, guint64 lineno, gpointer user_data);
static void file_on_error (guint64 lineno, guint column, const char *reason, const char *head, gsize head_len,
                           gpointer user_data);

static void
file_push (FileSource *fs, ViperTram *t)
{
  t->next = NULL;
  if (fs->tail)
    fs->tail->next = t;
  else
    fs->head = t;
  fs->tail = t;
}

static void
file_drop_queue (FileSource *fs)
{
  while (fs->head)
    {
      ViperTram *t = fs->head;
      fs->head = t->next;
      t->next = NULL;
      viper_tram_pool_release (fs->base.pool, t);
    }
  fs->tail = NULL;
}

static void
file_new_splitter (FileSource *fs)
{
  /* A fresh splitter rather than viper_line_splitter_reset(): after finish()
   * a new one is the state that is certain to count lines from 1 again. */
  if (fs->split)
    viper_line_splitter_free (fs->split);
  fs->split = viper_line_splitter_new (file_on_line, file_on_error, fs);
}

static void
file_report_bad (FileSource *fs, guint64 lineno, guint column, const char *reason)
{
  fs->base.lines_read++;
  fs->base.lines_bad++;
  if (fs->base.diag)
    viper_diag_bad (fs->base.diag, fs->where, lineno, column, "%s", reason);
}

static void
file_on_line (const char *line, gsize len, guint64 lineno, gpointer user_data)
{
  FileSource *fs = user_data;
  ViperLineKind kind = VIPER_LINE_BAD;
  ViperParseError err;
  ViperTram *t;

  memset (&err, 0, sizeof err);
  t = viper_tram_parse (fs->base.pool, fs->scratch, line, len, &kind, &err);
  if (kind == VIPER_LINE_COMMENT)
    return;
  if (kind == VIPER_LINE_BAD || t == NULL)
    {
      err.reason[sizeof err.reason - 1] = '\0';
      file_report_bad (fs, lineno, err.column, err.reason[0] ? err.reason : "bad line");
      viper_tram_source_salvage (&fs->base, line, len, fs->channel, lineno);
      return;
    }
  fs->base.lines_read++;
  t->channel = fs->channel;
  t->line = lineno > G_MAXUINT32 ? G_MAXUINT32 : (guint32) lineno;
  file_push (fs, t);
}

static void
file_on_error (guint64 lineno, guint column, const char *reason, const char *head, gsize head_len,
               gpointer user_data)
{
  FileSource *fs = user_data;
  file_report_bad (fs, lineno, column, reason);
  viper_tram_source_salvage_cut (&fs->base, head, head_len, TRUE, fs->channel, lineno);
}

static gboolean
file_kick_cb (gpointer user_data)
{
  FileSource *fs = user_data;

  g_source_unref (fs->kick);
  fs->kick = NULL;
  if (fs->base.ready)
    fs->base.ready (&fs->base, fs->base.ready_data);
  return G_SOURCE_REMOVE;
}

/* Have the ready func called from the main loop (never from inside get(),
 * which the engine may be running in a loop of its own). */
static void
file_kick (FileSource *fs)
{
  if (fs->ctx == NULL || fs->kick != NULL)
    return;
  fs->kick = g_idle_source_new ();
  g_source_set_priority (fs->kick, G_PRIORITY_DEFAULT);
  g_source_set_callback (fs->kick, file_kick_cb, fs, NULL);
  g_source_set_name (fs->kick, "viper file source ready");
  g_source_attach (fs->kick, fs->ctx);
}

static void
file_start (FileSource *fs)
{
  if (fs->started)
    return;
  fs->started = TRUE;
  if (fs->base.diag)
    viper_diag_event (fs->base.diag, VIPER_DIAG_TRACE_START, "%s: start of trace", fs->where);
}

/* A writer has shown itself on the FIFO: reads block again, as on a pipe. */
static void
file_writer_seen (FileSource *fs)
{
  if (!fs->await_writer)
    return;
  fs->await_writer = FALSE;
  int flags = fcntl (fs->fd, F_GETFL);
  if (flags >= 0)
    fcntl (fs->fd, F_SETFL, flags & ~O_NONBLOCK);
}

/* One read() into the (empty) buffer.  Returns FALSE when nothing was read. */
static gboolean
file_read_block (FileSource *fs)
{
  gssize n;

  file_start (fs);
  if (fs->await_writer)
    {
      /* read synchronously (no main context): wait as the blocking open()
       * did, until a writer writes or closes */
      struct pollfd p = { fs->fd, POLLIN, 0 };
      int r;
      do
        r = poll (&p, 1, -1);
      while (r < 0 && errno == EINTR);
      file_writer_seen (fs);
    }
  fs->pos = fs->len = 0;
  if (fs->kept)
    n = viper_stdin_read (fs, &fs->koff, fs->buf, READ_BLOCK);
  else
    do
      n = read (fs->fd, fs->buf, READ_BLOCK);
    while (n < 0 && errno == EINTR);

  if (n > 0)
    {
      fs->len = (gsize) n;
      fs->base.bytes_read += (guint64) n;
      return TRUE;
    }
  if (n < 0)
    {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return FALSE;   /* someone made the fd non-blocking: try again later */
      /* Whatever was read stays good; the rest is lost and must be said. */
      if (fs->base.diag)
        viper_diag_event (fs->base.diag, VIPER_DIAG_WARNING, "%s: read error: %s",
                          fs->where, g_strerror (errno));
    }
  fs->eof = TRUE;
  return FALSE;
}

static void
file_finish (FileSource *fs)
{
  /* In a file a last line without '\n' is a complete line (spec 1). */
  if (!fs->use_ahead)
    viper_line_splitter_finish (fs->split, TRUE);
  fs->finished = TRUE;
  if (fs->base.diag)
    viper_diag_event (fs->base.diag, VIPER_DIAG_TRACE_END,
                      "%s: end of trace (%" G_GUINT64_FORMAT " line%s, %" G_GUINT64_FORMAT " byte%s)",
                      fs->where, fs->base.lines_read, fs->base.lines_read == 1 ? "" : "s", fs->base.bytes_read,
                      fs->base.bytes_read == 1 ? "" : "s");
  file_kick (fs);
}

static gboolean file_watch_cb (gint fd, GIOCondition cond, gpointer user_data);

static void
file_arm_watch (FileSource *fs)
{
  if (fs->watch != NULL || fs->ctx == NULL || fs->eof)
    return;
  fs->watch = g_unix_fd_source_new (fs->fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
  g_source_set_priority (fs->watch, G_PRIORITY_HIGH);
  g_source_set_callback (fs->watch, G_SOURCE_FUNC (file_watch_cb), fs, NULL);
  g_source_set_name (fs->watch, "viper stdin reader");
  g_source_attach (fs->watch, fs->ctx);
}

static gboolean
file_watch_cb (gint fd, GIOCondition cond, gpointer user_data)
{
  FileSource *fs = user_data;
  (void) fd;
  (void) cond;

  file_writer_seen (fs);   /* the watch fires on data or on a writer's close */
  if (file_read_block (fs) || fs->eof)
    {
      /* Disarm until the engine has consumed this block (back-pressure). */
      g_source_unref (fs->watch);
      fs->watch = NULL;
      if (fs->eof)
        file_finish (fs);   /* kicks the ready func */
      else if (fs->base.ready)
        fs->base.ready (&fs->base, fs->base.ready_data);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* The next item of the read-ahead thread, when it is a tram of the batch
 * being taken (nearly always): queued, TRUE.  The common case of a replay
 * from a file, kept short enough for pending() to do without file_fill(). */
static inline gboolean
file_take_image (FileSource *fs)
{
  const ViperTram *image = viper_read_ahead_next_tram (fs->ahead);
  if (G_UNLIKELY (!image))
    return FALSE;
  /* the images were written by the reading thread, on the other core: ask
   * for one a few on while this one is copied (2-4 % of a sorted replay) */
  const ViperTram *soon = viper_read_ahead_peek (fs->ahead, 8);
  if (soon)
    {
      __builtin_prefetch (soon, 0);
      __builtin_prefetch ((const char *) soon + 64, 0);
    }
  if (fs->base.ahead)
    {
      const ViperTram *up = viper_read_ahead_peek (fs->ahead, VIPER_SOURCE_AHEAD - 1);
      if (up)
        fs->base.ahead (up, fs->base.ahead_data);
    }
  ViperTram *t = viper_tram_copy_image (fs->base.pool, image);
  t->channel = fs->channel;
  fs->base.lines_read++;
  fs->head = fs->tail = t;   /* the queue was empty */
  return TRUE;
}

/* This file's read-ahead thread is done for good (its end, or the source's):
 * another file may have one. */
static void
file_release_slot (FileSource *fs)
{
  if (fs->ahead_slot)
    {
      fs->ahead_slot = FALSE;
      g_atomic_int_add (&active_read_aheads, -1);
    }
}

/* The read-ahead thread's next items, until a tram is queued or the file ends. */
static void
file_fill_ahead (FileSource *fs)
{
  if (!fs->ahead)
    {
      file_start (fs);
      fs->ahead = viper_read_ahead_new (fs->fd);
    }
  while (fs->head == NULL && !fs->finished && !viper_tram_source_stopping (&fs->base))
    {
      if (file_take_image (fs))
        break;
      ViperAheadItem it;
      viper_read_ahead_next (fs->ahead, &it);
      fs->base.bytes_read = viper_read_ahead_bytes (fs->ahead);
      switch (it.kind)
        {
        case VIPER_AHEAD_TRAM:
          {
            if (fs->base.ahead)
              {
                /* the tram a few takes on: its list slot (a cache miss on
                 * shuffled input) is fetched while these are inserted */
                const ViperTram *up = viper_read_ahead_peek (fs->ahead, VIPER_SOURCE_AHEAD - 1);
                if (up)
                  fs->base.ahead (up, fs->base.ahead_data);
              }
            ViperTram *t = viper_tram_copy_image (fs->base.pool, it.tram);
            t->channel = fs->channel;
            fs->base.lines_read++;
            file_push (fs, t);
            break;
          }
        case VIPER_AHEAD_BAD:
          file_report_bad (fs, it.lineno, it.column, it.text);
          if (it.salvaged && fs->base.reject)
            fs->base.reject (it.proc, it.d1, fs->channel, it.lineno, fs->base.reject_data);
          break;
        case VIPER_AHEAD_WARNING:
          /* whatever was read stays good; the rest is lost and must be said */
          if (fs->base.diag)
            viper_diag_event (fs->base.diag, VIPER_DIAG_WARNING, "%s: %s", fs->where, it.text);
          break;
        case VIPER_AHEAD_END:
        default:
          viper_read_ahead_free (fs->ahead);
          fs->ahead = NULL;
          file_release_slot (fs);
          fs->eof = TRUE;
          file_finish (fs);
          break;
        }
    }
}

/* Tram lines (not blank, not comments) from offset `from` to the end. */
static guint64
count_tram_lines (int fd, off_t from)
{
  char *buf = g_malloc (READ_BLOCK);
  guint64 n = 0;
  gboolean at_start = TRUE, counted = FALSE;
  for (off_t off = from;;)
    {
      gssize got = pread (fd, buf, READ_BLOCK, off);
      if (got <= 0)
        break;
      off += got;
      for (gssize i = 0; i < got; i++)
        {
          char c = buf[i];
          if (c == '\n')
            {
              at_start = TRUE;
              counted = FALSE;
            }
          else if (at_start && c != ' ' && c != '\t' && c != '\r')
            {
              at_start = FALSE;
              if (c != '#' && !counted)
                {
                  n++;
                  counted = TRUE;
                }
            }
        }
    }
  g_free (buf);
  return n;
}

/* A file in the older PICL 1 layout is said once, with its number of lines,
 * and skipped (its lines count as read and rejected), instead of a reason per
 * line that misleads.  Only files are looked at: a pipe cannot be read twice. */
static gboolean
file_sniff_picl1 (FileSource *fs)
{
  struct stat st;
  if (fs->sniffed || fstat (fs->fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      fs->sniffed = TRUE;
      return FALSE;
    }
  fs->sniffed = TRUE;
  off_t from = lseek (fs->fd, 0, SEEK_CUR);
  if (from < 0)
    return FALSE;
  gsize want = 65536;
  char *head = g_malloc (want);
  gssize got = pread (fs->fd, head, want, from);
  gboolean picl1 = got > 0 && viper_picl1_sniff (head, (gsize) got);
  g_free (head);
  if (!picl1)
    return FALSE;
  file_start (fs);
  guint64 n = count_tram_lines (fs->fd, from);
  fs->base.lines_read += n;
  fs->base.lines_bad += n;
  if (fs->base.diag)
    viper_diag_bad (fs->base.diag, fs->where, 1, 1,
                    "the file looks like a PICL 1 trace (record type first, no NDATA field), not PICL 2.0: "
                    "its %" G_GUINT64_FORMAT " line%s are skipped", n, n == 1 ? "" : "s");
  fs->eof = TRUE;
  file_finish (fs);
  return TRUE;
}

/* Parse until a tram is queued or no more input is available right now. */
static void
file_fill (FileSource *fs)
{
  if (!fs->sniffed && file_sniff_picl1 (fs))
    return;
  if (fs->use_ahead && !fs->ahead_decided)
    {
      fs->ahead_decided = TRUE;
      if (g_atomic_int_add (&active_read_aheads, 1) < READ_AHEAD_FILES)
        fs->ahead_slot = TRUE;
      else
        {
          g_atomic_int_add (&active_read_aheads, -1);
          fs->use_ahead = FALSE;
        }
    }
  if (fs->use_ahead)
    {
      file_fill_ahead (fs);
      return;
    }
  gboolean may_read = fs->seekable || fs->ctx == NULL || (fs->kept && viper_stdin_ready (fs->koff));

  while (fs->head == NULL && !fs->finished && !viper_tram_source_stopping (&fs->base))
    {
      if (fs->pos < fs->len)
        {
          const char *p = fs->buf + fs->pos;
          const char *nl = memchr (p, '\n', fs->len - fs->pos);
          gsize n = nl ? (gsize) (nl - p) + 1 : fs->len - fs->pos;
          fs->pos += n;
          viper_line_splitter_feed (fs->split, p, n);
        }
      else if (fs->eof)
        file_finish (fs);
      else if (may_read)
        {
          if (!file_read_block (fs) && !fs->eof)
            return;
          /* the spool ran out: the stream is waited for by the watch */
          may_read = fs->seekable || fs->ctx == NULL || (fs->kept && viper_stdin_ready (fs->koff));
        }
      else
        {
          file_start (fs);
          file_arm_watch (fs);
          return;
        }
    }
}

static gboolean
file_pending (ViperTramSource *src)
{
  FileSource *fs = (FileSource *) src;
  /* a queued tram means file_fill() has nothing to do; the read-ahead's
   * next tram is taken here, without its frame (issue 11) */
  if (fs->head == NULL
      && !(fs->ahead && !fs->finished && !viper_tram_source_stopping (&fs->base) && file_take_image (fs)))
    file_fill (fs);
  return fs->head != NULL;
}

static ViperTram *
file_get (ViperTramSource *src)
{
  FileSource *fs = (FileSource *) src;
  ViperTram *t;

  if (fs->head == NULL)
    file_fill (fs);
  t = fs->head;
  if (t == NULL)
    return NULL;
  fs->head = t->next;
  if (fs->head == NULL)
    fs->tail = NULL;
  t->next = NULL;
  return t;
}

static gboolean
file_at_end (ViperTramSource *src)
{
  FileSource *fs = (FileSource *) src;
  return fs->finished && fs->head == NULL;
}

static gboolean
file_reset (ViperTramSource *src, GError **error)
{
  FileSource *fs = (FileSource *) src;

  if (fs->kept)
    {
      const char *why = NULL;
      if (!viper_stdin_rewindable ())
        {
          viper_stdin_complete (&why);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s: cannot be rewound: %s", fs->where,
                       why ? why : "standard input was not kept");
          return FALSE;
        }
      if (fs->watch)
        {
          g_source_destroy (fs->watch);
          g_source_unref (fs->watch);
          fs->watch = NULL;
        }
      fs->koff = 0;
    }
  else if (!fs->seekable)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   fs->is_stdin ? "%s: standard input cannot be rewound"
                                : "%s: not a regular file, cannot be rewound", fs->where);
      return FALSE;
    }
  viper_read_ahead_free (fs->ahead);   /* stop the thread before the fd moves */
  fs->ahead = NULL;
  if (!fs->kept && lseek (fs->fd, fs->origin, SEEK_SET) != fs->origin)
    {
      int e = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e),
                   "%s: cannot rewind: %s", fs->where, g_strerror (e));
      return FALSE;
    }
  file_drop_queue (fs);
  file_new_splitter (fs);
  fs->pos = fs->len = 0;
  fs->eof = fs->finished = fs->started = fs->sniffed = FALSE;
  /* The counters describe the current pass over the file. */
  fs->base.lines_read = 0;
  fs->base.lines_bad = 0;
  fs->base.bytes_read = 0;
  file_kick (fs);
  return TRUE;
}

static void
file_attach (ViperTramSource *src, GMainContext *ctx)
{
  FileSource *fs = (FileSource *) src;

  if (fs->watch)
    {
      g_source_destroy (fs->watch);
      g_source_unref (fs->watch);
      fs->watch = NULL;
    }
  if (fs->kick)
    {
      g_source_destroy (fs->kick);
      g_source_unref (fs->kick);
      fs->kick = NULL;
    }
  if (fs->ctx)
    g_main_context_unref (fs->ctx);
  fs->ctx = ctx ? g_main_context_ref (ctx) : g_main_context_ref_thread_default ();

  if (fs->seekable)
    file_kick (fs);           /* trams are there to be taken from the start */
  else if (fs->pos < fs->len || fs->eof || (fs->kept && viper_stdin_ready (fs->koff)))
    file_kick (fs);
  else
    {
      file_start (fs);
      file_arm_watch (fs);
    }
}

static void
file_destroy (ViperTramSource *src)
{
  FileSource *fs = (FileSource *) src;

  viper_read_ahead_free (fs->ahead);
  fs->ahead = NULL;
  file_release_slot (fs);
  if (fs->watch)
    {
      g_source_destroy (fs->watch);
      g_source_unref (fs->watch);
    }
  if (fs->kick)
    {
      g_source_destroy (fs->kick);
      g_source_unref (fs->kick);
    }
  if (fs->ctx)
    g_main_context_unref (fs->ctx);
  file_drop_queue (fs);
  if (fs->split)
    viper_line_splitter_free (fs->split);
  if (fs->scratch)
    viper_tram_fields_free (fs->scratch);
  if (fs->owns_fd && fs->fd >= 0)
    close (fs->fd);
  if (fs->kept)
    viper_stdin_release (fs);
  g_free (fs->buf);
  g_free (fs->where);
}

static const ViperTramSourceClass file_class = {
  .kind = "file",
  .pending = file_pending,
  .get = file_get,
  .reset = file_reset,
  .at_end = file_at_end,
  .attach = file_attach,
  .destroy = file_destroy,
};

static const ViperTramSourceClass stdin_class = {
  .kind = "stdin",
  .pending = file_pending,
  .get = file_get,
  .reset = file_reset,
  .at_end = file_at_end,
  .attach = file_attach,
  .destroy = file_destroy,
};

/* The compressor whose magic number starts a regular file, or NULL: such a
 * file is said once for what it is, not read into a bad line per block. */
static const char *
compressed_kind (int fd)
{
  unsigned char m[6] = { 0 };
  ssize_t got;
  do
    got = pread (fd, m, sizeof m, 0);
  while (got < 0 && errno == EINTR);
  if (got >= 2 && m[0] == 0x1f && m[1] == 0x8b)
    return "gzip";
  if (got >= 4 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h' && m[3] >= '1' && m[3] <= '9')
    return "bzip2";
  if (got >= 6 && memcmp (m, "\xfd" "7zXZ\0", 6) == 0)
    return "xz";
  if (got >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
    return "zstd";
  return NULL;
}

ViperTramSource *
viper_file_source_new (const char *path, ViperTramPool *pool, ViperDiag *diag,
                       ViperChannels *channels, GError **error)
{
  FileSource *fs;
  struct stat st = { 0 };
  gboolean is_stdin;
  int fd;

  g_return_val_if_fail (path != NULL && pool != NULL && channels != NULL, NULL);

  is_stdin = strcmp (path, "-") == 0;
  gboolean kept = FALSE, owns_fd = !is_stdin;
  gint64 origin = 0;
  if (is_stdin && viper_stdin_keeping ())
    {
      /* a file behind standard input: read as that file, with an offset of
       * this source's own; a stream: through the spool */
      kept = viper_stdin_is_stream ();
      fd = kept ? STDIN_FILENO : viper_stdin_reopen (&origin);
      if (fd < 0)
        {
          int e = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "standard input: cannot open it again: %s",
                       g_strerror (e));
          return NULL;
        }
      owns_fd = !kept;
    }
  else if (is_stdin)
    fd = STDIN_FILENO;
  else
    {
      /* O_NONBLOCK: a FIFO's open() returns at once, writer or not (see
       * the top); cleared below for anything else */
      do
        fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
      while (fd < 0 && errno == EINTR);
      if (fd < 0)
        {
          int e = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e),
                       "%s: %s", path, g_strerror (e));
          return NULL;
        }
    }
  if (fstat (fd, &st) != 0 || S_ISDIR (st.st_mode))
    {
      int e = S_ISDIR (st.st_mode) ? EISDIR : errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e),
                   "%s: %s", path, g_strerror (e));
      if (owns_fd)
        close (fd);
      return NULL;
    }

  if (!is_stdin && !S_ISFIFO (st.st_mode))
    {
      int flags = fcntl (fd, F_GETFL);
      if (flags >= 0)
        fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
    }

  const char *packed = S_ISREG (st.st_mode) ? compressed_kind (fd) : NULL;
  if (packed)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: %s-compressed data, not a text trace: decompress it first (for example `%s %s | viper-replay -`)",
                   path, packed, g_str_equal (packed, "gzip") ? "zcat" : g_str_equal (packed, "bzip2") ? "bzcat"
                   : g_str_equal (packed, "xz") ? "xzcat" : "zstdcat", path);
      if (owns_fd)
        close (fd);
      return NULL;
    }

  fs = g_new0 (FileSource, 1);
  if (kept && !viper_stdin_claim (fs, error))
    {
      g_free (fs);
      return NULL;
    }
  fs->base.klass = is_stdin ? &stdin_class : &file_class;
  fs->base.name = g_strdup (path);
  fs->base.pool = pool;
  fs->base.diag = diag;
  fs->base.channels = channels;
  fs->fd = fd;
  fs->is_stdin = is_stdin;
  fs->owns_fd = owns_fd;
  fs->kept = kept;
  fs->origin = origin;
  fs->seekable = owns_fd && S_ISREG (st.st_mode);
  fs->await_writer = !is_stdin && S_ISFIFO (st.st_mode);
  if (owns_fd)
    viper_tram_source_set_file (&fs->base, &st);
  /* VIPER_READAHEAD=0 keeps reading and parsing on the engine's thread */
  fs->use_ahead = !kept && S_ISREG (st.st_mode) && g_strcmp0 (g_getenv ("VIPER_READAHEAD"), "0") != 0;
  fs->where = g_strdup (is_stdin ? "<stdin>" : path);
  fs->channel = viper_channels_add (channels, fs->where);
  fs->buf = g_malloc (READ_BLOCK);
  fs->scratch = viper_tram_fields_new ();
  file_new_splitter (fs);
  return &fs->base;
}

gboolean
viper_file_source_awaits_writer (const ViperTramSource *s)
{
  if (s->klass != &file_class)
    return FALSE;
  const FileSource *fs = (const FileSource *) s;
  if (!fs->await_writer)
    return FALSE;
  struct pollfd p = { fs->fd, POLLIN, 0 };
  int r;
  do
    r = poll (&p, 1, 0);
  while (r < 0 && errno == EINTR);
  return r == 0;
}

gboolean
viper_file_source_reading_ahead (const ViperTramSource *s)
{
  if (s->klass != &file_class && s->klass != &stdin_class)
    return FALSE;
  return ((const FileSource *) s)->ahead != NULL;
}

void
viper_file_source_set_read_ahead (ViperTramSource *s, gboolean on)
{
  g_return_if_fail (s && (s->klass == &file_class || s->klass == &stdin_class));
  FileSource *fs = (FileSource *) s;
  g_return_if_fail (fs->ahead == NULL && !fs->started);
  struct stat st;
  fs->use_ahead = on && fstat (fs->fd, &st) == 0 && S_ISREG (st.st_mode);
}
