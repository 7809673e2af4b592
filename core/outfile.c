/* outfile.c - output files that never lie (see outfile.h for the rules).
 *
 * The decision is taken once, when the output is opened, from what the path
 * names after following its symbolic links:
 *   STDOUT   "-", or the very file this process's standard output (or
 *            error) already is: the existing stdio stream is used, so that
 *            its buffering and order with other writes to it are kept;
 *   INPLACE  anything that is not a regular file (tty, /dev/null, a
 *            character device): opened for writing, never replaced;
 *   FIFO     as INPLACE, but opened only at the first write, because
 *            opening a FIFO blocks until someone reads it;
 *   REPLACE  a regular file, or nothing yet: a temporary file next to the
 *            real target (same directory, so rename() is atomic) receives
 *            the bytes and is renamed over the target when all is written.
 * Replacing keeps the target's permission bits (and, when we may, its
 * owner), so a read-only file stays read-only; a target we may not write is
 * refused up front with EACCES, which is what ">" in a shell says.  When the
 * target is writable but its directory is not (no room for the temporary
 * file), the target is truncated and written in place, again as ">" does.
 *
 * Errors: the first failing call's errno is kept; close reports it with the
 * path.  stdio is used for buffering; fflush/fclose are checked too, since a
 * full disk usually shows only there.
 */
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

typedef enum { OUT_STDOUT, OUT_INPLACE, OUT_FIFO, OUT_REPLACE } OutKind;

struct _ViperOutFile {
  OutKind kind;
  char *name;               /* for messages: the path as given, or "standard output" */
  char *target;             /* the file written or renamed over (links followed) */
  char *tmp;                /* REPLACE: the temporary file */
  char *who;
  FILE *fp;
  gboolean own_fp;          /* fclose at the end (not stdout/stderr) */
  int err;                  /* errno of the first failure, 0 = none */
};

static void
fail (ViperOutFile *o, int err)
{
  if (!o->err)
    o->err = err ? err : EIO;
}

/* Follow symbolic links (up to 40, like the kernel) to the path that is
 * really written; a dangling link gives the path it points to. */
static char *
resolve_links (const char *path)
{
  char *p = g_strdup (path);
  for (int i = 0; i < 40; i++)
    {
      struct stat st;
      if (lstat (p, &st) != 0 || !S_ISLNK (st.st_mode))
        return p;
      char *link = g_file_read_link (p, NULL);
      if (!link)
        return p;
      if (!g_path_is_absolute (link))
        {
          char *dir = g_path_get_dirname (p);
          char *joined = g_build_filename (dir, link, NULL);
          g_free (dir);
          g_free (link);
          link = joined;
        }
      g_free (p);
      p = link;
    }
  return p;
}

/* The process's umask, without changing it (umask(2) would, for a moment,
 * for every thread). */
static mode_t
current_umask (void)
{
  mode_t mask = 022;
  char *status = NULL;
  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    {
      const char *u = strstr (status, "\nUmask:");
      if (u)
        mask = (mode_t) strtoul (u + 7, NULL, 8);
      g_free (status);
    }
  return mask & 0777;
}

static gboolean
same_file (const struct stat *st, int fd)
{
  struct stat fs;
  return fstat (fd, &fs) == 0 && fs.st_dev == st->st_dev && fs.st_ino == st->st_ino;
}

static void
set_error (GError **error, const ViperOutFile *o, int err)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s", o->name, g_strerror (err));
}

static gboolean
open_fd (ViperOutFile *o, int fd)
{
  o->fp = fdopen (fd, "w");
  if (!o->fp)
    {
      fail (o, errno);
      close (fd);
      return FALSE;
    }
  o->own_fp = TRUE;
  return TRUE;
}

static void
outfile_free (ViperOutFile *o)
{
  g_free (o->name);
  g_free (o->target);
  g_free (o->tmp);
  g_free (o->who);
  g_free (o);
}

ViperOutFile *
viper_outfile_open (const char *path, const char *who, GError **error)
{
  ViperOutFile *o = g_new0 (ViperOutFile, 1);
  o->who = g_strdup (who);
  if (g_str_equal (path, "-"))
    {
      o->kind = OUT_STDOUT;
      o->name = g_strdup ("standard output");
      o->fp = stdout;
      return o;
    }
  o->name = g_strdup (path);
  struct stat st;
  gboolean exists = stat (path, &st) == 0;
  if (!exists && errno != ENOENT)
    {
      set_error (error, o, errno);
      outfile_free (o);
      return NULL;
    }
  /* What the kernel opens (it follows /dev/stdout's magic links too); the
   * link chain is resolved by hand only to find the directory a regular
   * file is replaced in. */
  o->target = g_strdup (path);
  if (!exists || S_ISREG (st.st_mode))
    {
      char *real = resolve_links (path);
      struct stat rst;
      gboolean rexists = stat (real, &rst) == 0;
      if (rexists == exists && (!exists || (rst.st_dev == st.st_dev && rst.st_ino == st.st_ino)))
        {
          g_free (o->target);
          o->target = real;
        }
      else
        {
          /* e.g. /proc/self/fd/N of a deleted file: write it where it is */
          g_free (real);
          if (exists)
            st.st_mode = (st.st_mode & ~(mode_t) S_IFMT) | S_IFCHR;   /* in place below */
        }
    }
  if (exists && (same_file (&st, STDOUT_FILENO) || same_file (&st, STDERR_FILENO)))
    {
      o->kind = OUT_STDOUT;
      o->fp = same_file (&st, STDOUT_FILENO) ? stdout : stderr;
      return o;
    }
  if (exists && S_ISDIR (st.st_mode))
    {
      set_error (error, o, EISDIR);
      outfile_free (o);
      return NULL;
    }
  if (exists && S_ISFIFO (st.st_mode))
    {
      o->kind = OUT_FIFO;   /* opened at the first write */
      if (access (o->target, W_OK) != 0)
        {
          set_error (error, o, errno);
          outfile_free (o);
          return NULL;
        }
      return o;
    }
  if (exists && !S_ISREG (st.st_mode))
    {
      o->kind = OUT_INPLACE;
      int fd = open (o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_TRUNC);
      if (fd < 0 || !open_fd (o, fd))
        {
          set_error (error, o, fd < 0 ? errno : o->err);
          outfile_free (o);
          return NULL;
        }
      return o;
    }
  /* a regular file, or nothing yet */
  if (exists && access (o->target, W_OK) != 0)
    {
      set_error (error, o, errno);
      outfile_free (o);
      return NULL;
    }
  o->kind = OUT_REPLACE;
  char *dir = g_path_get_dirname (o->target);
  char *base = g_path_get_basename (o->target);
  o->tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  g_free (dir);
  g_free (base);
  int fd = g_mkstemp_full (o->tmp, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int err = errno;
      g_clear_pointer (&o->tmp, g_free);
      if (!exists)
        {
          set_error (error, o, err);   /* a missing directory: what ">" says */
          outfile_free (o);
          return NULL;
        }
      /* The target exists but no file can be made beside it.  Say what is
       * true of the target itself when it cannot be opened for writing
       * (not the temporary file's reason: in /proc that is "No such file or
       * directory" for a file that is there). */
      fd = open (o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd < 0)
        {
          set_error (error, o, errno);
          outfile_free (o);
          return NULL;
        }
      if (err == EACCES || err == EROFS || err == EPERM)
        {
          /* the file may be written, its directory not: write it in place,
           * truncated, as ">" does */
          o->kind = OUT_INPLACE;
          if (ftruncate (fd, 0) == 0 && open_fd (o, fd))
            return o;
          err = o->err ? o->err : errno;
          if (!o->err)
            close (fd);
        }
      else
        {
          /* nothing may be created there (a pseudo file system), or no room:
           * the target stays as it is, and the message says which step failed */
          close (fd);
          char *dir = g_path_get_dirname (o->target);
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                       "%s: cannot create a temporary file in %s to replace it: %s", o->name, dir, g_strerror (err));
          g_free (dir);
          outfile_free (o);
          return NULL;
        }
      set_error (error, o, err);
      outfile_free (o);
      return NULL;
    }
  mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~current_umask ());
  if (fchmod (fd, mode) != 0)
    {
      int err = errno;
      close (fd);
      g_unlink (o->tmp);
      set_error (error, o, err);
      outfile_free (o);
      return NULL;
    }
  if (exists && (st.st_uid != geteuid () || st.st_gid != getegid ()))
    {
      /* best effort, as an editor does: only root may give a file away */
      if (fchown (fd, st.st_uid, st.st_gid) != 0)
        (void) 0;
    }
  if (!open_fd (o, fd))
    {
      g_unlink (o->tmp);
      set_error (error, o, o->err);
      outfile_free (o);
      return NULL;
    }
  return o;
}

/* FIFO: open now; say what we wait for when nobody reads yet. */
static gboolean
open_fifo (ViperOutFile *o)
{
  int fd = open (o->target, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENXIO)
    {
      fprintf (stderr, "%s%swaiting for a reader on FIFO %s\n", o->who ? o->who : "", o->who ? ": " : "", o->name);
      fflush (stderr);
      do
        fd = open (o->target, O_WRONLY | O_CLOEXEC);
      while (fd < 0 && errno == EINTR);
    }
  if (fd < 0)
    {
      fail (o, errno);
      return FALSE;
    }
  int flags = fcntl (fd, F_GETFL);
  if (flags >= 0)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  return open_fd (o, fd);
}

gboolean
viper_outfile_write (ViperOutFile *o, const void *data, gsize len)
{
  if (o->err)
    return FALSE;
  if (!o->fp && (o->kind != OUT_FIFO || !open_fifo (o)))
    return FALSE;
  if (len && fwrite (data, 1, len, o->fp) != len)
    {
      fail (o, errno);
      return FALSE;
    }
  return TRUE;
}

gboolean
viper_outfile_printf (ViperOutFile *o, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  gboolean ok = viper_outfile_write (o, s, strlen (s));
  g_free (s);
  return ok;
}

gboolean
viper_outfile_ok (const ViperOutFile *o)
{
  return o->err == 0;
}

const char *
viper_outfile_name (const ViperOutFile *o)
{
  return o->name;
}

gboolean
viper_outfile_close (ViperOutFile *o, GError **error)
{
  if (!o)
    return TRUE;
  /* an empty output still exists afterwards (a FIFO's reader sees its end) */
  if (!o->fp && !o->err && o->kind == OUT_FIFO)
    open_fifo (o);
  if (o->fp)
    {
      errno = 0;
      if (fflush (o->fp) != 0 || ferror (o->fp))
        {
          fail (o, errno);
          if (!o->own_fp)
            clearerr (o->fp);   /* reported here, not again by viper_stdout_flush */
        }
      if (o->own_fp && fclose (o->fp) != 0)
        fail (o, errno);
      o->fp = NULL;
    }
  if (o->kind == OUT_REPLACE && o->tmp)
    {
      if (!o->err && g_rename (o->tmp, o->target) != 0)
        fail (o, errno);
      if (o->err)
        g_unlink (o->tmp);
    }
  gboolean ok = o->err == 0;
  if (!ok)
    set_error (error, o, o->err);
  outfile_free (o);
  return ok;
}

void
viper_outfile_abort (ViperOutFile *o)
{
  if (!o)
    return;
  if (o->fp && o->own_fp)
    fclose (o->fp);
  if (o->kind == OUT_REPLACE && o->tmp)
    g_unlink (o->tmp);
  outfile_free (o);
}

gboolean
viper_outfile_set_contents (const char *path, const char *who, const char *data, gsize len, GError **error)
{
  ViperOutFile *o = viper_outfile_open (path, who, error);
  if (!o)
    return FALSE;
  viper_outfile_write (o, data, len);
  return viper_outfile_close (o, error);
}

/* The path a not yet existing output would be created at: links followed,
 * the directory resolved, absolute. */
static char *
target_key (const char *path)
{
  char *real = resolve_links (path);
  char *dir = g_path_get_dirname (real);
  char *base = g_path_get_basename (real);
  char *rdir = realpath (dir, NULL);
  char *joined = g_build_filename (rdir ? rdir : dir, base, NULL);
  char *key = g_canonicalize_filename (joined, NULL);
  free (rdir);
  g_free (joined);
  g_free (base);
  g_free (dir);
  g_free (real);
  return key;
}

/* Written as a stream, in order, never replaced: standard output or error,
 * a character device.  "-" is standard output. */
static gboolean
stream_stat (const char *path, struct stat *st)
{
  if (g_str_equal (path, "-"))
    return fstat (STDOUT_FILENO, st) == 0;
  return stat (path, st) == 0
         && (S_ISCHR (st->st_mode) || same_file (st, STDOUT_FILENO) || same_file (st, STDERR_FILENO));
}

ViperOutSame
viper_outfile_compare (const char *a, const char *b)
{
  struct stat sa, sb;
  gboolean ta = stream_stat (a, &sa), tb = stream_stat (b, &sb);
  if (ta || tb)
    {
      struct stat null;
      if (!ta || !tb || sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
        return VIPER_OUT_DIFFERENT;
      if (S_ISCHR (sa.st_mode) && stat ("/dev/null", &null) == 0 && null.st_rdev == sa.st_rdev)
        return VIPER_OUT_DIFFERENT;   /* nothing there to mix */
      return VIPER_OUT_SAME_STREAM;
    }
  gboolean ea = stat (a, &sa) == 0, eb = stat (b, &sb) == 0;
  if (ea && eb)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino ? VIPER_OUT_SAME_FILE : VIPER_OUT_DIFFERENT;
  char *ka = target_key (a), *kb = target_key (b);
  gboolean same = g_str_equal (ka, kb);
  g_free (ka);
  g_free (kb);
  return same ? VIPER_OUT_SAME_FILE : VIPER_OUT_DIFFERENT;
}

gboolean
viper_stdout_flush (GError **error)
{
  errno = 0;
  if (fflush (stdout) == 0 && !ferror (stdout))
    return TRUE;
  int err = errno ? errno : EIO;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "standard output: %s", g_strerror (err));
  return FALSE;
}
