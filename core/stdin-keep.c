/* stdin-keep.c - standard input read once, for every reader of "-".
 *
 * Two readers of file descriptor 0 share one offset: whatever one reads,
 * the other never sees.  The GUI had three (the paradigm's detection, the
 * replay and the timeline's index pass): with a file redirected to it the
 * index pass took every line before the replay started, and with a pipe
 * the two split the lines between them.
 *
 * A regular file is simple: /proc/self/fd/0 opens it again with an offset
 * of its own (a reader then is a file reader like any other: read ahead on
 * a thread, rewound by reset).  A stream is read once, into a spool: an
 * unlinked temporary file that grows by what the puller read and that every
 * reader reads with pread() at its own offset.  The puller is the one reader
 * that waits on descriptor 0 (the replay's source, through its fd watch); a
 * reader that is behind reads the spool and never waits.  The detection
 * reads its sample into the spool too, before any source exists, so the
 * replay starts with those bytes.  The spool is bounded (a live program's
 * pipe may never end): past the bound the puller goes on with the stream
 * alone and nobody can read standard input again.
 *
 * Every reader lives on the main thread except the GUI's export, which
 * reads only a complete spool; the lock keeps the bookkeeping whole anyway.
 */
#include "core/stdin-keep.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

enum { KIND_UNKNOWN, KIND_FILE, KIND_STREAM };

static GMutex lock;
static struct {
  guint64 max;              /* 0: keeping off */
  int kind;
  gint64 origin;            /* a regular file: standard input's offset when first asked */
  int spool;                /* -1 until the first bytes of a stream */
  guint64 len;              /* bytes in the spool */
  guint64 pulled;           /* bytes read from the stream (more than len once it overflowed) */
  gboolean ended;           /* the stream's end (or a read error) was read */
  gboolean overflow;        /* the spool stopped growing: standard input cannot be read again */
  char *why;                /* why it cannot, for the user */
  gpointer puller;
} K = { .spool = -1 };

void
viper_stdin_keep (guint64 max_bytes)
{
  g_mutex_lock (&lock);
  K.max = max_bytes;
  g_mutex_unlock (&lock);
}

gboolean
viper_stdin_keeping (void)
{
  return K.max > 0;
}

static void
ensure_kind (void)
{
  if (K.kind != KIND_UNKNOWN)
    return;
  struct stat st;
  K.kind = KIND_STREAM;
  if (fstat (STDIN_FILENO, &st) == 0 && S_ISREG (st.st_mode))
    {
      K.origin = lseek (STDIN_FILENO, 0, SEEK_CUR);
      /* a file is read again only if it can be opened again: else it is
       * spooled like a pipe (read() works on it the same way) */
      int fd = open ("/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
      if (fd >= 0 && K.origin >= 0)
        K.kind = KIND_FILE;
      if (fd >= 0)
        close (fd);
      if (K.origin < 0)
        K.origin = 0;
    }
}

gboolean
viper_stdin_is_stream (void)
{
  g_mutex_lock (&lock);
  ensure_kind ();
  gboolean r = K.kind == KIND_STREAM;
  g_mutex_unlock (&lock);
  return r;
}

int
viper_stdin_reopen (gint64 *origin)
{
  g_mutex_lock (&lock);
  ensure_kind ();
  int fd = -1;
  if (K.kind == KIND_FILE)
    {
      fd = open ("/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
      if (fd >= 0 && lseek (fd, K.origin, SEEK_SET) != K.origin)
        {
          int e = errno;
          close (fd);
          fd = -1;
          errno = e;
        }
    }
  else
    errno = ESPIPE;
  if (origin)
    *origin = K.origin;
  g_mutex_unlock (&lock);
  return fd;
}

/* Stop keeping: the puller goes on alone (under the lock). */
static void
overflow (const char *why)
{
  if (K.overflow)
    return;
  K.overflow = TRUE;
  K.why = g_strdup (why);
}

/* The spool, created on first use (under the lock).  FALSE: it cannot be. */
static gboolean
spool_open (void)
{
  if (K.spool >= 0)
    return TRUE;
  if (K.overflow)
    return FALSE;
  GError *e = NULL;
  char *path = NULL;
  K.spool = g_file_open_tmp ("viper-stdin-XXXXXX", &path, &e);
  if (K.spool < 0)
    {
      char *why = g_strdup_printf ("standard input was not kept: %s", e->message);
      overflow (why);
      g_free (why);
      g_error_free (e);
      return FALSE;
    }
  g_unlink (path);   /* gone with the last descriptor, whatever happens to us */
  g_free (path);
  return TRUE;
}

/* Add what the stream gave to the spool (under the lock). */
static void
spool_add (const char *buf, gsize n)
{
  K.pulled += n;
  if (K.overflow)
    return;
  if (K.len + n > K.max)
    {
      char *size = g_format_size_full (K.max, G_FORMAT_SIZE_IEC_UNITS);
      char *why = g_strdup_printf ("standard input passed %s and was not kept", size);
      g_free (size);
      overflow (why);
      g_free (why);
      return;
    }
  if (!spool_open ())
    return;
  gsize done = 0;
  while (done < n)
    {
      gssize w = pwrite (K.spool, buf + done, n - done, (off_t) (K.len + done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          char *why = g_strdup_printf ("standard input was not kept: %s", g_strerror (errno));
          overflow (why);
          g_free (why);
          return;
        }
      done += (gsize) w;
    }
  K.len += n;
}

/* One read() of the stream into buf (under the lock): as read(). */
static gssize
pull (char *buf, gsize len)
{
  gssize n;
  do
    n = read (STDIN_FILENO, buf, len);
  while (n < 0 && errno == EINTR);
  if (n > 0)
    spool_add (buf, (gsize) n);
  else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
    {
      int e = errno;
      K.ended = TRUE;
      if (n < 0 && !K.overflow)
        {
          /* what was kept is all there is: the replay says the read error */
          char *why = g_strdup_printf ("standard input could not be read to its end: %s", g_strerror (e));
          overflow (why);
          g_free (why);
        }
      errno = e;
    }
  return n;
}

gboolean
viper_stdin_claim (gpointer reader, GError **error)
{
  g_mutex_lock (&lock);
  ensure_kind ();
  gboolean ok = TRUE;
  if (K.puller == reader)
    ;
  else if (K.ended && !K.overflow)
    ;                         /* the spool holds it all: any number of readers */
  else if (!K.puller && !K.overflow && K.pulled == K.len)
    K.puller = reader;        /* the stream goes on where the spool ends */
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, "%s",
                   K.overflow ? K.why : "standard input has not ended yet: it is read once, by the replay");
      ok = FALSE;
    }
  g_mutex_unlock (&lock);
  return ok;
}

void
viper_stdin_release (gpointer reader)
{
  g_mutex_lock (&lock);
  if (K.puller == reader)
    K.puller = NULL;
  g_mutex_unlock (&lock);
}

gssize
viper_stdin_read (gpointer reader, guint64 *off, char *buf, gsize len)
{
  gssize n;
  g_mutex_lock (&lock);
  if (*off < K.len)
    {
      do
        n = pread (K.spool, buf, MIN (len, K.len - *off), (off_t) *off);
      while (n < 0 && errno == EINTR);
    }
  else if (K.ended && *off >= K.pulled)
    n = 0;
  else if (reader != K.puller || *off != K.pulled)
    {
      /* behind a spool that stopped growing: those bytes are lost (reset
       * refuses this; say it rather than hang) */
      errno = reader != K.puller ? EAGAIN : EIO;
      n = -1;
    }
  else
    n = pull (buf, len);
  if (n > 0)
    *off += (guint64) n;
  g_mutex_unlock (&lock);
  return n;
}

gboolean
viper_stdin_ready (guint64 off)
{
  g_mutex_lock (&lock);
  gboolean r = off < K.len || K.ended;
  g_mutex_unlock (&lock);
  return r;
}

gboolean
viper_stdin_complete (const char **why)
{
  g_mutex_lock (&lock);
  ensure_kind ();
  const char *w = NULL;
  if (!K.max)
    w = "standard input is read once";
  else if (K.kind == KIND_STREAM)
    w = K.overflow ? K.why : !K.ended ? "standard input has not ended yet" : NULL;
  if (why)
    *why = w;
  g_mutex_unlock (&lock);
  return w == NULL;
}

gboolean
viper_stdin_rewindable (void)
{
  g_mutex_lock (&lock);
  ensure_kind ();
  gboolean r = K.max && (K.kind == KIND_FILE || !K.overflow);
  g_mutex_unlock (&lock);
  return r;
}

/* Up to len bytes of fd from off, until the end or an error (*last: what
 * the read that stopped returned, 0 at the end). */
static gsize
pread_upto (int fd, char *buf, gsize len, off_t off, gssize *last)
{
  gsize got = 0;
  *last = 1;
  while (got < len)
    {
      gssize n = pread (fd, buf + got, len - got, off + (off_t) got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          *last = n;
          break;
        }
      got += (gsize) n;
    }
  return got;
}

gsize
viper_stdin_sample (char *buf, gsize len, guint wait_ms, gboolean *whole)
{
  g_mutex_lock (&lock);
  ensure_kind ();
  gsize got = 0;
  *whole = FALSE;
  if (K.kind == KIND_FILE)
    {
      gssize last = 0;
      got = pread_upto (STDIN_FILENO, buf, len, (off_t) K.origin, &last);
      *whole = got < len && last == 0;
      g_mutex_unlock (&lock);
      return got;
    }
  /* a stream: into the spool, while it comes (a live program may be slow
   * to say anything: its first moment is the sample) */
  gint64 deadline = g_get_monotonic_time () + (gint64) wait_ms * 1000;
  char *block = g_malloc (65536);
  /* no spool, no sample: the bytes read would be lost to the replay */
  while (K.max && !K.ended && K.len < len && K.puller == NULL && spool_open ())
    {
      gint64 left = deadline - g_get_monotonic_time ();
      struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
      int r = poll (&p, 1, left > 0 ? (int) ((left + 999) / 1000) : 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      /* never past the bound: what the spool cannot take would be lost */
      gsize room = (gsize) MIN ((guint64) 65536, K.max - K.len);
      if (!room)
        break;
      gssize n = pull (block, room);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        continue;
      if (K.overflow)
        break;
    }
  g_free (block);
  gssize last;
  got = pread_upto (K.spool, buf, MIN (len, K.len), 0, &last);
  *whole = K.ended && !K.overflow && got == K.len;
  g_mutex_unlock (&lock);
  return got;
}

void
viper_stdin_keep_reset (void)
{
  g_mutex_lock (&lock);
  if (K.spool >= 0)
    close (K.spool);
  g_free (K.why);
  memset (&K, 0, sizeof K);
  K.spool = -1;
  g_mutex_unlock (&lock);
}
