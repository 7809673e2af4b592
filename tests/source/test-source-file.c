/* test-source-file.c - the file and stdin tram sources.
 *
 * Each test writes a trace into a fresh temporary directory, reads it back
 * through the public API and checks what arrived (values, line numbers,
 * channel) and what was reported (the diagnostics sink is captured, so the
 * exact "PATH:LINE:COL: reason" form is checked).  The stdin tests replace
 * file descriptor 0 with a pipe fed by a writer thread; they are driven by
 * the main loop and conditions, never by sleeps.
 *
 * Regular files are read and parsed on a second thread (core/readahead.c)
 * unless VIPER_READAHEAD=0: every regular-file test runs both ways
 * (/source/file/thread/... and /source/file/sync/...), and /modes-agree
 * checks that the two deliver the same trams and the same reports.
 */
#include "core/source.h"
#include "core/tramparse.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

/* ---- helpers ------------------------------------------------------------- */

typedef struct {
  GPtrArray *bad;            /* messages of VIPER_DIAG_BAD_INPUT */
  guint starts, ends, warnings;
} Capture;

static void
capture_sink (ViperDiagKind kind, const char *message, gpointer user_data)
{
  Capture *cap = user_data;
  switch (kind)
    {
    case VIPER_DIAG_BAD_INPUT: g_ptr_array_add (cap->bad, g_strdup (message)); break;
    case VIPER_DIAG_TRACE_START: cap->starts++; break;
    case VIPER_DIAG_TRACE_END: cap->ends++; break;
    case VIPER_DIAG_WARNING: cap->warnings++; break;
    default: break;
    }
}

typedef struct {
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag diag;
  Capture cap;
  char *dir;
  gboolean read_ahead;
} Fixture;

static ViperTramSource *
open_file (Fixture *f, const char *path, GError **error)
{
  ViperTramSource *src = viper_file_source_new (path, f->pool, &f->diag, f->channels, error);
  if (src)
    viper_file_source_set_read_ahead (src, f->read_ahead);
  return src;
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  /* data: "1" or "0", whether this test's regular files are read ahead */
  f->read_ahead = !data || strcmp (data, "0") != 0;
  f->pool = viper_tram_pool_new ();
  f->channels = viper_channels_new ();
  f->cap.bad = g_ptr_array_new_with_free_func (g_free);
  viper_diag_init (&f->diag, capture_sink, &f->cap);
  f->dir = g_dir_make_tmp ("viper-source-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  (void) data;
  g_assert_cmpuint (viper_tram_pool_live (f->pool), ==, 0);   /* nothing leaked */
  viper_diag_clear (&f->diag);
  g_ptr_array_unref (f->cap.bad);
  viper_channels_free (f->channels);
  viper_tram_pool_free (f->pool);
  g_assert_cmpint (g_rmdir (f->dir), ==, 0);
  g_free (f->dir);
}

static char *
write_trace (Fixture *f, const char *name, const char *text, gsize len)
{
  char *path = g_build_filename (f->dir, name, NULL);
  GError *error = NULL;
  g_file_set_contents (path, text, (gssize) len, &error);
  g_assert_no_error (error);
  return path;
}

typedef struct {
  char *raw;
  guint32 line, channel;
  gint64 rec, ev, proc, d0;
  double time;
} Seen;

static void
seen_free (gpointer p)
{
  Seen *s = p;
  g_free (s->raw);
  g_free (s);
}

static Seen *
seen_new (const ViperTram *t)
{
  Seen *s = g_new0 (Seen, 1);
  GString *text = g_string_new (NULL);
  viper_tram_print (t, FALSE, text);      /* the line, or its canonical regeneration */
  s->raw = g_string_free (text, FALSE);
  s->line = t->line;
  s->channel = t->channel;
  s->rec = t->rec;
  s->ev = t->ev;
  s->proc = t->proc;
  s->time = t->time;
  s->d0 = viper_tram_datum (t, 0, -999);
  return s;
}

/* Everything a regular file source delivers, up to its end.  For a regular
 * file pending() must be exactly "get() would give a tram". */
static GPtrArray *
read_all (ViperTramSource *src, ViperTramPool *pool, guint limit)
{
  GPtrArray *all = g_ptr_array_new_with_free_func (seen_free);

  for (guint i = 0; i <= limit; i++)
    {
      gboolean pending = viper_tram_pending (src);
      /* A tram that can be taken means the source is not at its end. */
      g_assert_cmpint (viper_tram_source_at_end (src), ==, !pending);
      ViperTram *t = viper_get_tram (src);
      g_assert_cmpint (pending, ==, t != NULL);
      if (t == NULL)
        break;
      g_ptr_array_add (all, seen_new (t));
      viper_tram_pool_release (pool, t);
    }
  g_assert_true (viper_tram_source_at_end (src));
  g_assert_null (viper_get_tram (src));
  g_assert_false (viper_tram_pending (src));
  return all;
}

static gboolean
has_prefix_and_reason (const char *msg, const char *prefix)
{
  return g_str_has_prefix (msg, prefix) && strlen (msg) > strlen (prefix);
}

/* ---- a small trace: values, comments, bad lines, reset -------------------- */

static const char small_trace[] =
  "# a comment\n"                              /* 1 */
  "-3 -21 1.5 0 0 4 2 100 7 1 0\n"             /* 2 tram */
  "\n"                                         /* 3 blank */
  "   \t# indented comment\n"                  /* 4 */
  "-4 -21 2.0 0 0 0\r\n"                       /* 5 tram, CRLF */
  "-3 -21 x 0 0 0\n"                           /* 6 bad: TIME at column 8 */
  "1 2\n"                                      /* 7 bad: fields missing */
  "-3 -52 3.25 1 0 3 2 7 0 0\n"                /* 8 tram */
  "-3 -52 4 1 0 3 2 7 0\n"                     /* 9 bad: NDATA 3, 2 fields */
  "5 6 7.5 2 0 1 2 42";                        /* 10 tram, no final newline */

static void
check_small (GPtrArray *all, guint32 channel)
{
  static const guint32 lines[] = { 2, 5, 8, 10 };
  g_assert_cmpuint (all->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      Seen *s = all->pdata[i];
      g_assert_cmpuint (s->line, ==, lines[i]);
      g_assert_cmpuint (s->channel, ==, channel);
    }
  Seen *a = all->pdata[0], *b = all->pdata[1], *c = all->pdata[2], *d = all->pdata[3];
  g_assert_cmpint (a->rec, ==, -3);
  g_assert_cmpint (a->ev, ==, -21);
  g_assert_cmpfloat (a->time, ==, 1.5);
  g_assert_cmpint (a->proc, ==, 0);
  g_assert_cmpint (a->d0, ==, 100);
  g_assert_cmpstr (a->raw, ==, "-3 -21 1.5 0 0 4 2 100 7 1 0");
  g_assert_cmpint (b->rec, ==, -4);
  g_assert_cmpfloat (b->time, ==, 2.0);
  g_assert_cmpint (c->proc, ==, 1);
  g_assert_cmpfloat (c->time, ==, 3.25);
  g_assert_cmpint (d->rec, ==, 5);
  g_assert_cmpint (d->ev, ==, 6);
  g_assert_cmpint (d->proc, ==, 2);
  g_assert_cmpint (d->d0, ==, 42);
  g_assert_cmpstr (d->raw, ==, "5 6 7.5 2 0 1 2 42");
}

static void
test_small_and_reset (Fixture *f, gconstpointer data)
{
  (void) data;
  char *path = write_trace (f, "small.trace", small_trace, sizeof small_trace - 1);
  GError *error = NULL;
  ViperTramSource *src = open_file (f, path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (src);
  g_assert_cmpstr (src->name, ==, path);
  g_assert_cmpuint (viper_channels_count (f->channels), ==, 1);
  g_assert_cmpstr (viper_channels_name (f->channels, 0), ==, path);

  GPtrArray *first = read_all (src, f->pool, 100);
  check_small (first, 0);
  g_assert_cmpuint (src->lines_read, ==, 7);           /* 4 good + 3 bad, no comments */
  g_assert_cmpuint (src->bytes_read, ==, sizeof small_trace - 1);
  g_assert_cmpuint (f->diag.bad, ==, 3);
  g_assert_cmpuint (f->cap.bad->len, ==, 3);
  char *p6 = g_strdup_printf ("%s:6:8: ", path);
  char *p7 = g_strdup_printf ("%s:7:", path);
  char *p9 = g_strdup_printf ("%s:9:", path);
  g_assert_true (has_prefix_and_reason (f->cap.bad->pdata[0], p6));
  g_assert_true (has_prefix_and_reason (f->cap.bad->pdata[1], p7));
  g_assert_true (has_prefix_and_reason (f->cap.bad->pdata[2], p9));
  g_assert_cmpuint (f->cap.starts, ==, 1);
  g_assert_cmpuint (f->cap.ends, ==, 1);

  /* Rewind: the same trams with the same line numbers, the same reports. */
  g_assert_true (viper_tram_source_reset (src, &error));
  g_assert_no_error (error);
  g_assert_false (viper_tram_source_at_end (src));
  GPtrArray *second = read_all (src, f->pool, 100);
  check_small (second, 0);
  g_assert_cmpuint (second->len, ==, first->len);
  for (guint i = 0; i < first->len; i++)
    {
      Seen *x = first->pdata[i], *y = second->pdata[i];
      g_assert_cmpstr (x->raw, ==, y->raw);
      g_assert_cmpuint (x->line, ==, y->line);
      g_assert_cmpint (x->d0, ==, y->d0);
      g_assert_cmpfloat (x->time, ==, y->time);
    }
  g_assert_cmpuint (src->lines_read, ==, 7);
  g_assert_cmpuint (f->diag.bad, ==, 6);
  g_assert_cmpstr (f->cap.bad->pdata[3], ==, f->cap.bad->pdata[0]);
  g_assert_cmpuint (viper_channels_count (f->channels), ==, 1);   /* same channel */
  g_assert_cmpuint (f->cap.starts, ==, 2);
  g_assert_cmpuint (f->cap.ends, ==, 2);

  /* Reset in the middle of a pass, with trams parsed but not taken. */
  ViperTram *t = viper_get_tram (src);
  g_assert_null (t);                                    /* at end: nothing */
  g_assert_true (viper_tram_source_reset (src, &error));
  t = viper_get_tram (src);
  g_assert_nonnull (t);
  g_assert_cmpuint (t->line, ==, 2);
  viper_tram_pool_release (f->pool, t);
  g_assert_true (viper_tram_pending (src));
  g_assert_true (viper_tram_source_reset (src, &error));
  GPtrArray *third = read_all (src, f->pool, 100);
  check_small (third, 0);

  g_ptr_array_unref (first);
  g_ptr_array_unref (second);
  g_ptr_array_unref (third);
  g_free (p6);
  g_free (p7);
  g_free (p9);
  viper_tram_source_free (src);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_free (path);
}

/* ---- missing files, directories ---------------------------------------------- */

static void
test_open_errors (Fixture *f, gconstpointer data)
{
  (void) data;
  GError *error = NULL;
  char *missing = g_build_filename (f->dir, "nope.trace", NULL);
  ViperTramSource *src = open_file (f, missing, &error);
  g_assert_null (src);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  src = open_file (f, f->dir, &error);
  g_assert_null (src);
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpuint (viper_channels_count (f->channels), ==, 0);
  g_free (missing);

  /* An empty file: at its end at once, start and end reported. */
  char *empty = write_trace (f, "empty.trace", "", 0);
  src = open_file (f, empty, &error);
  g_assert_no_error (error);
  g_assert_false (viper_tram_pending (src));
  g_assert_null (viper_get_tram (src));
  g_assert_true (viper_tram_source_at_end (src));
  g_assert_cmpuint (f->cap.starts, ==, 1);
  g_assert_cmpuint (f->cap.ends, ==, 1);
  viper_tram_source_free (src);
  g_unlink (empty);
  g_free (empty);
}

/* ---- an over-long line straddling a read block ---------------------------------- */

#define LONG_LINE 70000

static void
test_long_line (Fixture *f, gconstpointer data)
{
  (void) data;
  GString *text = g_string_new (NULL);
  GArray *line_of = g_array_new (FALSE, FALSE, sizeof (guint32));   /* counter -> line */
  guint32 line = 0, long_line = 0;
  gint64 counter = 0;

  /* Short lines up to just before 1 MiB, the long line across the 1 MiB read
   * boundary, then short lines up to more than 3 MiB. */
  while (text->len < 3u * 1024 * 1024 + 123)
    {
      if (long_line == 0 && text->len > 1024 * 1024 - 30000)
        {
          long_line = ++line;
          g_string_append (text, "-3 -21 1.0 0 0 1 2 ");
          for (gsize n = 19; n < LONG_LINE; n++)
            g_string_append_c (text, (char) ('0' + n % 10));
          g_string_append_c (text, '\n');
          continue;
        }
      line++;
      g_array_append_val (line_of, line);
      g_string_append_printf (text, "-3 -21 %" G_GINT64_FORMAT ".25 %d 0 1 2 %" G_GINT64_FORMAT "\n",
                              counter, (int) (counter % 7), counter);
      counter++;
    }
  char *path = write_trace (f, "long.trace", text->str, text->len);
  GError *error = NULL;
  ViperTramSource *src = open_file (f, path, &error);
  g_assert_no_error (error);

  GPtrArray *all = read_all (src, f->pool, (guint) counter + 10);
  g_assert_cmpuint (all->len, ==, (guint) counter);
  for (guint i = 0; i < all->len; i++)
    {
      Seen *s = all->pdata[i];
      g_assert_cmpint (s->d0, ==, (gint64) i);
      g_assert_cmpuint (s->line, ==, g_array_index (line_of, guint32, i));
      g_assert_cmpint (s->proc, ==, (gint64) (i % 7));
    }
  g_assert_cmpuint (f->diag.bad, ==, 1);
  char *prefix = g_strdup_printf ("%s:%u:", path, long_line);
  g_assert_true (has_prefix_and_reason (f->cap.bad->pdata[0], prefix));
  g_assert_cmpuint (src->lines_read, ==, (guint64) counter + 1);
  g_assert_cmpuint (src->bytes_read, ==, text->len);

  g_free (prefix);
  g_ptr_array_unref (all);
  g_array_unref (line_of);
  g_string_free (text, TRUE);
  viper_tram_source_free (src);
  g_unlink (path);
  g_free (path);
}

/* ---- a large file is streamed, not loaded ------------------------------------------- */

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

static void
test_large_file_bounded (Fixture *f, gconstpointer data)
{
  (void) data;
  const gsize target = 96u * 1024 * 1024;
  char *path = g_build_filename (f->dir, "large.trace", NULL);
  FILE *out = fopen (path, "w");
  gsize written = 0;
  guint64 n = 0;

  g_assert_nonnull (out);
  while (written < target)
    {
      int k = fprintf (out, "-3 -21 %" G_GUINT64_FORMAT ".5 %u 0 4 2 %" G_GUINT64_FORMAT " 7 1 0\n",
                       n, (unsigned) (n % 16), n);
      g_assert_cmpint (k, >, 0);
      written += (gsize) k;
      n++;
    }
  g_assert_cmpint (fclose (out), ==, 0);

  if (rss_bytes () == 0)
    {
      g_test_skip ("no /proc/self/status");
      g_unlink (path);
      g_free (path);
      return;
    }

  GError *error = NULL;
  ViperTramSource *src = open_file (f, path, &error);
  g_assert_no_error (error);
  gsize base = rss_bytes (), peak = base;
  guint64 got = 0;
  ViperTram *t;
  while ((t = viper_get_tram (src)) != NULL)
    {
      g_assert_cmpint (viper_tram_datum (t, 0, -1), ==, (gint64) got);
      viper_tram_pool_release (f->pool, t);
      if (++got % 65536 == 0)
        peak = MAX (peak, rss_bytes ());
    }
  peak = MAX (peak, rss_bytes ());
  g_assert_cmpuint (got, ==, n);
  g_assert_true (viper_tram_source_at_end (src));
  g_assert_cmpuint (src->bytes_read, ==, written);
  /* A file 96 MiB long must cost a few MiB, not its size. */
  g_test_message ("RSS growth while reading %" G_GSIZE_FORMAT " bytes: %" G_GSIZE_FORMAT " bytes",
                  written, peak - base);
  g_assert_cmpuint (peak - base, <, 32u * 1024 * 1024);
  viper_tram_source_free (src);
  g_unlink (path);
  g_free (path);
}

/* Lines of 60 KB (kept as text: a quoted DTYPE) are as bounded as short ones:
 * the read-ahead batches are limited in bytes, not only in lines. */
static void
test_long_lines_bounded (Fixture *f, gconstpointer data)
{
  (void) data;
  char *path = g_build_filename (f->dir, "wide.trace", NULL);
  FILE *out = fopen (path, "w");
  g_assert_nonnull (out);
  char *word = g_malloc (60001);
  memset (word, 'x', 60000);
  word[60000] = '\0';
  const guint n = 1600;     /* 96 MB */
  gsize written = 0;
  for (guint i = 0; i < n; i++)
    {
      int k = fprintf (out, "-3 -21 %u.5 %u 0 1 \"%%s\" %s\n", i, i % 4, word);
      g_assert_cmpint (k, >, 0);
      written += (gsize) k;
    }
  g_assert_cmpint (fclose (out), ==, 0);
  g_free (word);
  if (rss_bytes () == 0)
    {
      g_test_skip ("no /proc/self/status");
      g_unlink (path);
      g_free (path);
      return;
    }
  GError *error = NULL;
  ViperTramSource *src = open_file (f, path, &error);
  g_assert_no_error (error);
  gsize base = rss_bytes (), peak = base;
  guint got = 0;
  ViperTram *t;
  while ((t = viper_get_tram (src)) != NULL)
    {
      g_assert_cmpfloat (t->time, ==, got + 0.5);
      g_assert_cmpuint (t->raw_len, >, 60000);
      viper_tram_pool_release (f->pool, t);
      if (++got % 64 == 0)
        peak = MAX (peak, rss_bytes ());
    }
  g_assert_cmpuint (got, ==, n);
  g_assert_cmpuint (src->bytes_read, ==, written);
  g_assert_cmpuint (f->diag.bad, ==, 0);
  g_test_message ("RSS growth while reading %" G_GSIZE_FORMAT " bytes of 60 KB lines: %" G_GSIZE_FORMAT " bytes",
                  written, peak - base);
#ifdef __SANITIZE_ADDRESS__
  /* Trams this big are single allocations, and AddressSanitizer keeps freed
   * blocks in its quarantine (256 MB by default) instead of reusing them: the
   * plain build checks the bound. */
  g_test_message ("AddressSanitizer: RSS bound not checked");
#else
  g_assert_cmpuint (peak - base, <, 32u * 1024 * 1024);
#endif
  viper_tram_source_free (src);
  g_unlink (path);
  g_free (path);
}

/* ---- attached regular file: the ready func is kicked from the main loop -------------- */

typedef struct {
  Fixture *f;
  GMainLoop *loop;
  GPtrArray *seen;
  guint readies;
  gboolean timed_out;
} Driven;

static void
driven_ready (ViperTramSource *src, gpointer user_data)
{
  Driven *d = user_data;
  ViperTram *t;
  d->readies++;
  while ((t = viper_get_tram (src)) != NULL)
    {
      g_ptr_array_add (d->seen, seen_new (t));
      viper_tram_pool_release (d->f->pool, t);
    }
  if (viper_tram_source_at_end (src))
    g_main_loop_quit (d->loop);
}

static gboolean
watchdog (gpointer user_data)
{
  Driven *d = user_data;
  d->timed_out = TRUE;
  g_main_loop_quit (d->loop);
  return G_SOURCE_REMOVE;
}

static void
test_attached_file (Fixture *f, gconstpointer data)
{
  (void) data;
  char *path = write_trace (f, "small.trace", small_trace, sizeof small_trace - 1);
  GError *error = NULL;
  ViperTramSource *src = open_file (f, path, &error);
  g_assert_no_error (error);
  Driven d = { f, g_main_loop_new (NULL, FALSE), g_ptr_array_new_with_free_func (seen_free), 0, FALSE };

  viper_tram_source_set_ready_func (src, driven_ready, &d);
  viper_tram_source_attach (src, NULL);
  guint dog = g_timeout_add_seconds (30, watchdog, &d);
  g_main_loop_run (d.loop);
  g_assert_false (d.timed_out);
  g_source_remove (dog);
  g_assert_cmpuint (d.readies, >=, 1);
  check_small (d.seen, 0);

  g_ptr_array_unref (d.seen);
  g_main_loop_unref (d.loop);
  viper_tram_source_free (src);
  g_unlink (path);
  g_free (path);
}

/* ---- standard input ----------------------------------------------------------------- */

static guint count_threads (void);

static void
test_stdin_no_reset (Fixture *f, gconstpointer data)
{
  (void) data;
  GError *error = NULL;
  ViperTramSource *src = viper_file_source_new ("-", f->pool, &f->diag, f->channels, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (src->name, ==, "-");
  g_assert_cmpstr (src->klass->kind, ==, "stdin");
  g_assert_cmpstr (viper_channels_name (f->channels, 0), ==, "<stdin>");
  g_assert_false (viper_tram_source_reset (src, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "<stdin>"));
  g_clear_error (&error);
  viper_tram_source_free (src);
}

/* "viper-replay - < FILE": standard input is a regular file, read ahead on
 * the second thread like a named one (but still not rewound). */
static void
test_stdin_regular_file (Fixture *f, gconstpointer data)
{
  (void) data;
  /* more lines than the read-ahead queue holds, so the reader is still
   * alive (waiting for room) when the threads are counted; line 7 is bad */
  GString *text = g_string_new (NULL);
  const guint n = 40000;
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, i == 6 ? "-3 -21 x 0 0 0\n" : "-3 -21 %u.5 %u 0 1 2 %u\n", i, i % 4, i);
  char *path = write_trace (f, "stdin.trace", text->str, text->len);
  int saved = dup (STDIN_FILENO);
  int fd = open (path, O_RDONLY);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (dup2 (fd, STDIN_FILENO), ==, STDIN_FILENO);
  close (fd);

  GError *error = NULL;
  guint threads_before = count_threads ();
  ViperTramSource *src = viper_file_source_new ("-", f->pool, &f->diag, f->channels, &error);
  g_assert_no_error (error);
  g_assert_true (viper_tram_pending (src));
  g_assert_cmpuint (count_threads (), ==, threads_before + 1);
  GPtrArray *all = read_all (src, f->pool, n + 1);
  g_assert_cmpuint (all->len, ==, n - 1);
  for (guint i = 0; i < all->len; i++)
    {
      Seen *x = all->pdata[i];
      guint want = i < 6 ? i : i + 1;
      g_assert_cmpint (x->d0, ==, (gint64) want);
      g_assert_cmpuint (x->line, ==, want + 1);
    }
  g_assert_cmpuint (f->diag.bad, ==, 1);
  g_assert_true (has_prefix_and_reason (f->cap.bad->pdata[0], "<stdin>:7:8: "));
  g_assert_cmpuint (src->bytes_read, ==, text->len);
  g_assert_false (viper_tram_source_reset (src, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  viper_tram_source_free (src);

  g_assert_cmpint (dup2 (saved, STDIN_FILENO), ==, STDIN_FILENO);
  close (saved);
  g_ptr_array_unref (all);
  g_unlink (path);
  g_free (path);
  g_string_free (text, TRUE);
}

#define STDIN_FIRST 1000
#define STDIN_TOTAL 5000

typedef struct {
  int fd;
  GMutex lock;
  GCond cond;
  gboolean go_on;            /* the main loop took the first part */
  gboolean gave_up;          /* waited too long: the main loop was blocked */
} Writer;

static void
write_lines (int fd, int from, int to)
{
  GString *s = g_string_new (NULL);
  for (int i = from; i < to; i++)
    g_string_append_printf (s, "-3 -21 %d 1 0 1 2 %d\n", i, i);
  for (gsize off = 0; off < s->len;)
    {
      gssize n = write (fd, s->str + off, s->len - off);
      if (n < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (n, >, 0);
      off += (gsize) n;
    }
  g_string_free (s, TRUE);
}

static gpointer
stdin_writer (gpointer data)
{
  Writer *w = data;
  gint64 deadline = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;

  write_lines (w->fd, 0, STDIN_FIRST);
  /* Wait until the main loop has taken every line so far: it can only do so
   * if reading stdin did not block it.  The deadline turns a blocked main
   * loop into a failed test instead of a hang. */
  g_mutex_lock (&w->lock);
  while (!w->go_on)
    if (!g_cond_wait_until (&w->cond, &w->lock, deadline))
      {
        w->gave_up = TRUE;
        break;
      }
  g_mutex_unlock (&w->lock);
  write_lines (w->fd, STDIN_FIRST, STDIN_TOTAL);
  close (w->fd);
  return NULL;
}

typedef struct {
  Fixture *f;
  GMainLoop *loop;
  Writer *w;
  int got;
  gboolean bad_order;
  gboolean timed_out;
} StdinRun;

static void
stdin_ready (ViperTramSource *src, gpointer user_data)
{
  StdinRun *r = user_data;
  ViperTram *t;
  while ((t = viper_get_tram (src)) != NULL)
    {
      if (viper_tram_datum (t, 0, -1) != r->got || t->line != (guint32) r->got + 1)
        r->bad_order = TRUE;
      r->got++;
      viper_tram_pool_release (r->f->pool, t);
    }
  if (r->got == STDIN_FIRST)
    {
      g_mutex_lock (&r->w->lock);
      r->w->go_on = TRUE;
      g_cond_signal (&r->w->cond);
      g_mutex_unlock (&r->w->lock);
    }
  if (viper_tram_source_at_end (src))
    g_main_loop_quit (r->loop);
}

static gboolean
stdin_watchdog (gpointer user_data)
{
  StdinRun *r = user_data;
  r->timed_out = TRUE;
  g_main_loop_quit (r->loop);
  return G_SOURCE_REMOVE;
}

static void
test_stdin_main_loop (Fixture *f, gconstpointer data)
{
  (void) data;
  int pipefd[2];
  int saved = dup (STDIN_FILENO);
  g_assert_cmpint (saved, >=, 0);
  g_assert_cmpint (pipe (pipefd), ==, 0);
  g_assert_cmpint (dup2 (pipefd[0], STDIN_FILENO), ==, STDIN_FILENO);
  close (pipefd[0]);

  Writer w = { .fd = pipefd[1] };
  g_mutex_init (&w.lock);
  g_cond_init (&w.cond);

  GError *error = NULL;
  ViperTramSource *src = viper_file_source_new ("-", f->pool, &f->diag, f->channels, &error);
  g_assert_no_error (error);
  StdinRun r = { f, g_main_loop_new (NULL, FALSE), &w, 0, FALSE, FALSE };
  viper_tram_source_set_ready_func (src, stdin_ready, &r);
  viper_tram_source_attach (src, NULL);
  g_assert_false (viper_tram_pending (src));     /* nothing written yet: must not block */

  GThread *th = g_thread_new ("stdin-writer", stdin_writer, &w);
  guint dog = g_timeout_add_seconds (60, stdin_watchdog, &r);
  g_main_loop_run (r.loop);
  g_thread_join (th);
  g_assert_false (r.timed_out);
  g_source_remove (dog);

  g_assert_false (w.gave_up);
  g_assert_false (r.bad_order);
  g_assert_cmpint (r.got, ==, STDIN_TOTAL);
  g_assert_true (viper_tram_source_at_end (src));
  g_assert_cmpuint (src->lines_read, ==, STDIN_TOTAL);
  g_assert_cmpuint (f->cap.starts, ==, 1);
  g_assert_cmpuint (f->cap.ends, ==, 1);

  viper_tram_source_free (src);
  g_main_loop_unref (r.loop);
  g_mutex_clear (&w.lock);
  g_cond_clear (&w.cond);
  g_assert_cmpint (dup2 (saved, STDIN_FILENO), ==, STDIN_FILENO);
  close (saved);
}

/* Not attached: plain blocking reads of a pipe are fine. */
static void
test_stdin_blocking (Fixture *f, gconstpointer data)
{
  (void) data;
  int pipefd[2];
  int saved = dup (STDIN_FILENO);
  g_assert_cmpint (pipe (pipefd), ==, 0);
  g_assert_cmpint (dup2 (pipefd[0], STDIN_FILENO), ==, STDIN_FILENO);
  close (pipefd[0]);
  const char text[] = "1 2 3 4 5 0\n# c\nbad line\n1 2 3.5 4 5 1 2 9";
  g_assert_cmpint (write (pipefd[1], text, sizeof text - 1), ==, (gssize) sizeof text - 1);
  close (pipefd[1]);

  GError *error = NULL;
  ViperTramSource *src = viper_file_source_new ("-", f->pool, &f->diag, f->channels, &error);
  g_assert_no_error (error);
  GPtrArray *all = read_all (src, f->pool, 10);
  g_assert_cmpuint (all->len, ==, 2);
  g_assert_cmpuint (((Seen *) all->pdata[1])->line, ==, 4);
  g_assert_cmpint (((Seen *) all->pdata[1])->d0, ==, 9);
  g_assert_cmpuint (f->cap.bad->len, ==, 1);
  g_assert_true (g_str_has_prefix (f->cap.bad->pdata[0], "<stdin>:3:1: "));
  g_ptr_array_unref (all);
  viper_tram_source_free (src);
  dup2 (saved, STDIN_FILENO);
  close (saved);
}


/* ---- both ways of reading a regular file agree ------------------------------------- */

/* A trace of about 3 MiB: good lines, comments, blank and CRLF lines, and
 * bad lines of several kinds (one over-long line across a read block), with
 * no newline at the end.  Returns it; *n_good counts its trams. */
static GString *
mixed_trace (guint32 seed, guint *n_good)
{
  static const char nul_line[] = "-3 -21 1.0 0\0 0 0\n";
  GRand *r = g_rand_new_with_seed (seed);
  GString *t = g_string_new (NULL);
  gboolean long_done = FALSE;
  *n_good = 0;
  for (guint i = 0; t->len < 3u * 1024 * 1024; i++)
    {
      if (!long_done && t->len > 1024 * 1024 - 1000)
        {
          long_done = TRUE;
          g_string_append (t, "-3 -21 1.0 0 0 1 2 ");
          for (int n = 0; n < LONG_LINE; n++)
            g_string_append_c (t, (char) ('0' + n % 10));
          g_string_append_c (t, '\n');
          continue;
        }
      switch (g_rand_int_range (r, 0, 40))
        {
        case 0: g_string_append (t, "# a comment\n"); break;
        case 1: g_string_append (t, "\n"); break;
        case 2: g_string_append_printf (t, "-3 -21 x%u 0 0 0\n", i); break;               /* bad TIME */
        case 3: g_string_append_printf (t, "-3 -52 %u.5 1 0 3 2 7 0\n", i); break;       /* NDATA 3, 2 */
        case 4: g_string_append_len (t, nul_line, sizeof nul_line - 1); break;              /* NUL */
        case 5: g_string_append_printf (t, "-4 -21 %u.25 %u 0 0\r\n", i, i % 5); (*n_good)++; break;
        case 6: g_string_append_printf (t, "-3 -21 %u 0 0 1 \"%%d\" %u\n", i, i); (*n_good)++; break;
        default:
          g_string_append_printf (t, "-3 -21 %u.%u %u 0 2 2 %u %d\n", i, g_rand_int_range (r, 0, 1000),
                                  i % 9, i, -(int) i);
          (*n_good)++;
          break;
        }
    }
  g_string_append (t, "5 6 7.5 2 0 1 2 42");
  (*n_good)++;
  g_rand_free (r);
  return t;
}

typedef struct {
  GPtrArray *seen, *bad;
  guint64 lines_read, lines_bad, bytes_read;
  guint starts, ends;
} Pass;

static void
read_pass (Fixture *f, const char *path, const char *mode, Pass *out)
{
  f->read_ahead = strcmp (mode, "0") != 0;
  g_ptr_array_set_size (f->cap.bad, 0);
  f->cap.starts = f->cap.ends = 0;
  GError *error = NULL;
  ViperTramSource *src = open_file (f, path, &error);
  g_assert_no_error (error);
  out->seen = read_all (src, f->pool, 1u << 30);
  out->bad = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < f->cap.bad->len; i++)
    g_ptr_array_add (out->bad, g_strdup (f->cap.bad->pdata[i]));
  out->lines_read = src->lines_read;
  out->lines_bad = src->lines_bad;
  out->bytes_read = src->bytes_read;
  out->starts = f->cap.starts;
  out->ends = f->cap.ends;
  viper_tram_source_free (src);
}

static void
test_modes_agree (Fixture *f, gconstpointer data)
{
  (void) data;
  for (guint32 seed = 1; seed <= 3; seed++)
    {
      guint n_good;
      GString *text = mixed_trace (seed, &n_good);
      char *path = write_trace (f, "mixed.trace", text->str, text->len);
      Pass a, b;
      read_pass (f, path, "0", &a);
      read_pass (f, path, "1", &b);
      g_assert_cmpuint (a.seen->len, ==, n_good);
      g_assert_cmpuint (b.seen->len, ==, n_good);
      for (guint i = 0; i < n_good; i++)
        {
          Seen *x = a.seen->pdata[i], *y = b.seen->pdata[i];
          g_assert_cmpstr (x->raw, ==, y->raw);
          g_assert_cmpuint (x->line, ==, y->line);
          g_assert_cmpint (x->rec, ==, y->rec);
          g_assert_cmpint (x->proc, ==, y->proc);
          g_assert_cmpint (x->d0, ==, y->d0);
          g_assert_cmpfloat (x->time, ==, y->time);
        }
      /* the same reports, in the same order: FILE:LINE:COLUMN: reason */
      g_assert_cmpuint (a.bad->len, >, 10);
      g_assert_cmpuint (a.bad->len, ==, b.bad->len);
      for (guint i = 0; i < a.bad->len; i++)
        g_assert_cmpstr (a.bad->pdata[i], ==, b.bad->pdata[i]);
      g_assert_cmpuint (a.lines_read, ==, b.lines_read);
      g_assert_cmpuint (a.lines_bad, ==, a.bad->len);
      g_assert_cmpuint (b.lines_bad, ==, b.bad->len);
      g_assert_cmpuint (a.lines_read, ==, n_good + a.lines_bad);
      g_assert_cmpuint (a.bytes_read, ==, text->len);
      g_assert_cmpuint (b.bytes_read, ==, text->len);
      g_assert_true (a.starts == 1 && a.ends == 1 && b.starts == 1 && b.ends == 1);
      g_ptr_array_unref (a.seen);
      g_ptr_array_unref (b.seen);
      g_ptr_array_unref (a.bad);
      g_ptr_array_unref (b.bad);
      g_unlink (path);
      g_free (path);
      g_string_free (text, TRUE);
    }
}

/* ---- reset and free in the middle of a large file ------------------------------------ */

/* Threads of this process, from /proc (0 when there is no /proc). */
static guint
count_threads (void)
{
  GDir *d = g_dir_open ("/proc/self/task", 0, NULL);
  guint n = 0;
  if (d)
    {
      while (g_dir_read_name (d))
        n++;
      g_dir_close (d);
    }
  return n;
}

static void
test_reset_mid_file (Fixture *f, gconstpointer data)
{
  (void) data;
  GString *text = g_string_new (NULL);
  const guint n = 60000;      /* many read-ahead batches */
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "-3 -21 %u.5 %u 0 1 2 %u\n", i, i % 4, i);
  char *path = write_trace (f, "many.trace", text->str, text->len);
  GError *error = NULL;
  guint threads_before = count_threads ();
  ViperTramSource *src = open_file (f, path, &error);
  g_assert_no_error (error);
  g_assert_true (viper_tram_pending (src));
  /* the read-ahead thread exists exactly when asked for */
  g_assert_cmpuint (count_threads (), ==, threads_before + (f->read_ahead ? 1 : 0));

  for (int pass = 0; pass < 3; pass++)
    {
      /* take part of the file (the reader is ahead of us), then rewind */
      guint take = 1000 + 20000 * (guint) pass;
      for (guint i = 0; i < take; i++)
        {
          ViperTram *t = viper_get_tram (src);
          g_assert_nonnull (t);
          g_assert_cmpint (viper_tram_datum (t, 0, -1), ==, (gint64) i);
          g_assert_cmpuint (t->line, ==, i + 1);
          viper_tram_pool_release (f->pool, t);
        }
      g_assert_cmpuint (src->lines_read, ==, take);
      g_assert_true (viper_tram_source_reset (src, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (src->lines_read, ==, 0);
    }
  GPtrArray *all = read_all (src, f->pool, n + 1);
  g_assert_cmpuint (all->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (((Seen *) all->pdata[i])->d0, ==, (gint64) i);
  g_assert_cmpuint (src->bytes_read, ==, text->len);
  g_assert_cmpuint (f->cap.starts, ==, 4);
  g_assert_cmpuint (f->cap.ends, ==, 1);
  g_ptr_array_unref (all);

  /* free while the reader is ahead: nothing leaks, nothing hangs */
  g_assert_true (viper_tram_source_reset (src, &error));
  ViperTram *t = viper_get_tram (src);
  g_assert_nonnull (t);
  viper_tram_pool_release (f->pool, t);
  viper_tram_source_free (src);
  g_assert_cmpuint (f->diag.bad, ==, 0);

  g_unlink (path);
  g_free (path);
  g_string_free (text, TRUE);
}

/* ---- the look ahead (issue 11): trams announced before they are taken ------ */

typedef struct {
  GArray *procs;            /* PROC of each announced tram, in announcement order */
} Ahead;

static void
record_ahead (const ViperTram *upcoming, gpointer data)
{
  Ahead *a = data;
  g_array_append_val (a->procs, upcoming->proc);
}

static void
test_ahead_func (Fixture *f, gconstpointer data)
{
  (void) data;
  /* each line's PROC is its index: 5,000 trams and a bad line in the middle */
  GString *text = g_string_new (NULL);
  for (guint i = 0; i < 5000; i++)
    {
      g_string_append_printf (text, "-3 -21 %u.5 %u 0 1 2 7\n", i, i);
      if (i == 2500)
        g_string_append (text, "-3 -21 x 0 0 0\n");
    }
  char *path = write_trace (f, "ahead.trc", text->str, text->len);
  GError *error = NULL;
  ViperTramSource *src = open_file (f, path, &error);
  g_assert_no_error (error);
  Ahead a = { g_array_new (FALSE, FALSE, sizeof (gint64)) };
  viper_tram_source_set_ahead_func (src, record_ahead, &a);
  guint taken = 0, announced_early = 0;
  for (ViperTram *t; (t = viper_get_tram (src)); taken++)
    {
      g_assert_cmpint (t->proc, ==, taken);
      /* every announcement names a tram not taken yet, at most
       * VIPER_SOURCE_AHEAD after the one taken when it was made (fewer
       * across a bad line) */
      for (guint i = 0; i < a.procs->len; i++)
        {
          gint64 p = g_array_index (a.procs, gint64, i);
          g_assert_cmpint (p, >, t->proc);
          g_assert_cmpint (p, <=, t->proc + VIPER_SOURCE_AHEAD);
          announced_early++;
        }
      g_array_set_size (a.procs, 0);
      viper_tram_pool_release (f->pool, t);
    }
  g_assert_cmpuint (taken, ==, 5000);
  g_assert_cmpuint (f->cap.bad->len, ==, 1);
  if (f->read_ahead)
    g_assert_cmpuint (announced_early, >, 4000);  /* all but the ends of the worker's batches */
  else
    g_assert_cmpuint (announced_early, ==, 0);    /* nothing known ahead when parsed on demand */
  g_array_unref (a.procs);
  viper_tram_source_free (src);
  g_unlink (path);
  g_free (path);
  g_string_free (text, TRUE);
}

/* A file source knows the file it opened: the same path, unchanged, is
 * the same file; grown, or replaced by another under its name, it is not
 * (core/scheduler-modules.c reads the files again by name). */
static void
test_same_file (Fixture *f, gconstpointer data)
{
  (void) data;
  char *path = g_build_filename (f->dir, "same-file.trc", NULL);
  g_assert_true (g_file_set_contents (path, "-3 -901 0.0 0 0 0\n", -1, NULL));
  GError *error = NULL;
  ViperTramSource *src = viper_file_source_new (path, f->pool, NULL, f->channels, &error);
  g_assert_no_error (error);
  g_assert_true (viper_tram_source_same_file (src, path));
  /* grown */
  FILE *fp = fopen (path, "a");
  g_assert_nonnull (fp);
  fputs ("-4 -901 1.0 0 0 0\n", fp);
  fclose (fp);
  g_assert_false (viper_tram_source_same_file (src, path));
  viper_tram_source_free (src);
  /* replaced by another file of the same content */
  src = viper_file_source_new (path, f->pool, NULL, f->channels, &error);
  g_assert_no_error (error);
  char *other = g_strconcat (path, ".new", NULL);
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (other, text, -1, NULL));
  g_assert_cmpint (g_rename (other, path), ==, 0);
  g_assert_false (viper_tram_source_same_file (src, path));
  g_assert_false (viper_tram_source_same_file (src, "/nonexistent/viper"));
  viper_tram_source_free (src);
  g_free (text);
  g_free (other);
  g_unlink (path);
  g_free (path);
}

/* At most 4 files are read on threads of their own at once (each holds a
 * few MiB: a trace of one file per rank, 1,024 files, took 1.4 GiB); the
 * others are read on the caller's thread, to the same trams; a file that
 * ends gives its thread's place to the next one opened. */
static void
test_read_ahead_bound (Fixture *f, gconstpointer data)
{
  (void) data;
  if (!f->read_ahead)
    return;
  ViperTramSource *src[7];
  for (guint i = 0; i < G_N_ELEMENTS (src); i++)
    {
      char *path = g_strdup_printf ("%s/bound%u.trc", f->dir, i);
      GString *t = g_string_new (NULL);
      for (guint k = 0; k < 3000; k++)
        g_string_append_printf (t, "-3 -901 %u.5 %u 0 0\n", k, i);
      g_assert_true (g_file_set_contents (path, t->str, (gssize) t->len, NULL));
      g_string_free (t, TRUE);
      GError *error = NULL;
      src[i] = open_file (f, path, &error);
      g_assert_no_error (error);
      g_free (path);
    }
  guint ahead = 0;
  for (guint i = 0; i < 6; i++)
    {
      g_assert_true (viper_tram_pending (src[i]));
      ahead += viper_file_source_reading_ahead (src[i]);
    }
  g_assert_cmpuint (ahead, ==, 4);
  g_assert_true (viper_file_source_reading_ahead (src[0]));
  g_assert_false (viper_file_source_reading_ahead (src[5]));
  /* every file gives all its trams, threaded or not */
  for (guint i = 0; i < 6; i++)
    {
      guint n = 0;
      for (ViperTram *t; (t = viper_get_tram (src[i])); n++)
        {
          g_assert_cmpint (t->proc, ==, i);
          viper_tram_pool_release (f->pool, t);
        }
      g_assert_cmpuint (n, ==, 3000);
    }
  /* all ended: the seventh reads ahead */
  g_assert_true (viper_tram_pending (src[6]));
  g_assert_true (viper_file_source_reading_ahead (src[6]));
  for (guint i = 0; i < G_N_ELEMENTS (src); i++)
    {
      char *path = g_strdup_printf ("%s/bound%u.trc", f->dir, i);
      viper_tram_source_free (src[i]);
      g_unlink (path);
      g_free (path);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add ("/source/file/" name, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  /* regular files: on the read-ahead thread (the default) and without it */
#define ADD2(name, fn)                                                                         \
  g_test_add ("/source/file/thread/" name, Fixture, "1", fixture_setup, fn, fixture_teardown); \
  g_test_add ("/source/file/sync/" name, Fixture, "0", fixture_setup, fn, fixture_teardown)
  ADD2 ("small-and-reset", test_small_and_reset);
  ADD2 ("open-errors", test_open_errors);
  ADD2 ("long-line", test_long_line);
  ADD2 ("large-file-bounded", test_large_file_bounded);
  ADD2 ("long-lines-bounded", test_long_lines_bounded);
  ADD2 ("attached", test_attached_file);
  ADD2 ("reset-mid-file", test_reset_mid_file);
  ADD2 ("ahead-func", test_ahead_func);
  ADD ("modes-agree", test_modes_agree);
  ADD ("stdin-no-reset", test_stdin_no_reset);
  ADD ("stdin-regular-file", test_stdin_regular_file);
  ADD ("stdin-main-loop", test_stdin_main_loop);
  ADD ("stdin-blocking", test_stdin_blocking);
  ADD ("same-file", test_same_file);
  ADD ("read-ahead-bound", test_read_ahead_bound);
#undef ADD
#undef ADD2
  return g_test_run ();
}
