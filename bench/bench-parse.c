/* bench-parse.c - how fast trace text becomes pooled trams.
 *
 * Writes a realistic trace (native PICL message passing lines mixed with
 * Mona Lisa lines, some comments and trace messages) into a temporary
 * directory, then reads it back with large read() calls through the line
 * splitter, the scanner and the pool, the way a file source does.  The pool
 * keeps a ring of recently parsed trams alive so that allocation works on a
 * warm free list, as it does under the engine.  Each stage is timed on its
 * own (split only, split + scan, split + scan + pool) so that a regression
 * points at its layer; the best of a few passes is printed, in thread CPU
 * time (and wall time, which includes the kernel's copies and any neighbours
 * on the machine), with peak RSS.
 *
 * Usage: bench-parse [LINES [FILE]]   (default 1,000,000 lines, a temp file)
 */
#include "core/tramparse.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define READ_SIZE (1 << 20)
#define RING 1024
#define PASSES 5

typedef enum { STAGE_SPLIT, STAGE_SCAN, STAGE_FULL } Stage;

typedef struct {
  Stage stage;
  ViperTramFields *fields;
  ViperTramPool *pool;
  ViperTram *ring[RING];
  guint ring_pos;
  guint64 lines, trams, comments, bad, bytes;
  double checksum;          /* keeps the compiler from dropping the work */
} Bench;

static void
write_trace (const char *path, guint64 n)
{
  FILE *f = fopen (path, "w");
  if (!f)
    g_error ("cannot create %s: %s", path, g_strerror (errno));
  GRand *r = g_rand_new_with_seed (2024);
  double t = 0.0;
  guint64 ms = 0;
  fputs ("# bench-parse trace: PICL and Mona Lisa lines\n", f);
  for (guint64 i = 1; i < n; i++)
    {
      int proc = g_rand_int_range (r, 0, 64);
      int kind = g_rand_int_range (r, 0, 100);
      t += g_rand_double_range (r, 0.0, 0.0001);
      ms += (guint64) g_rand_int_range (r, 0, 5);
      if (kind < 25)
        fprintf (f, "-3 -21 %.8f %d 0 4 2 %d %d %d 0\n", t, proc, g_rand_int_range (r, 1, 65536),
                 g_rand_int_range (r, 0, 100), g_rand_int_range (r, 0, 64));
      else if (kind < 40)
        fprintf (f, "-4 -21 %.8f %d 0 0\n", t, proc);
      else if (kind < 50)
        fprintf (f, "-3 -52 %.8f %d 0 3 2 %d %d 0\n", t, proc, g_rand_int_range (r, 0, 100),
                 g_rand_int_range (r, -1, 64));
      else if (kind < 60)
        fprintf (f, "-4 -52 %.8f %d 0 4 2 %d %d %d 0\n", t, proc, g_rand_int_range (r, 1, 65536),
                 g_rand_int_range (r, 0, 100), g_rand_int_range (r, 0, 64));
      else if (kind < 95)
        fprintf (f, "%d %d %" G_GUINT64_FORMAT " %d 0 3 2 %" G_GUINT64_FORMAT " %d %d\n", g_rand_int_range (r, 1, 4),
                 g_rand_int_range (r, 1, 20), 12100 + ms, proc, i, g_rand_int_range (r, 0, 8),
                 g_rand_int_range (r, 0, 1000));
      else if (kind < 98)
        fprintf (f, "-3 -911 %.8f %d 0 3 \"%%d %%s %%s\" 5 hello world\n", t, proc);
      else
        fputs (kind == 98 ? "# phase boundary\n" : "\n", f);
    }
  if (fclose (f) != 0)
    g_error ("cannot write %s: %s", path, g_strerror (errno));
  g_rand_free (r);
}

static void
on_line (const char *line, gsize len, guint64 lineno, gpointer user_data)
{
  Bench *b = user_data;
  (void) lineno;
  b->lines++;
  b->bytes += len + 1;
  if (b->stage == STAGE_SPLIT)
    {
      b->checksum += (double) (guint8) line[0];
      return;
    }
  ViperParseError err;
  ViperLineKind kind = viper_tram_scan (line, len, b->fields, &err);
  if (kind == VIPER_LINE_COMMENT)
    {
      b->comments++;
      return;
    }
  if (kind == VIPER_LINE_BAD)
    {
      b->bad++;
      return;
    }
  b->trams++;
  if (b->stage == STAGE_SCAN)
    {
      b->checksum += b->fields->time;
      return;
    }
  ViperTram *t = viper_tram_from_fields (b->pool, b->fields, line);
  b->checksum += t->time;
  ViperTram **slot = &b->ring[b->ring_pos++ % RING];
  if (*slot)
    viper_tram_pool_release (b->pool, *slot);
  *slot = t;
}

static void
on_error (guint64 lineno, guint column, const char *reason, const char *head, gsize head_len,
          gpointer user_data)
{
  Bench *b = user_data;
  (void) head;
  (void) head_len;
  b->bad++;
  g_printerr ("line %" G_GUINT64_FORMAT ":%u: %s\n", lineno, column, reason);
}

/* CPU time of this thread: on a shared machine wall time measures the
 * neighbours as much as the parser. */
static gint64
cpu_usec (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static double
run_pass (const char *path, Stage stage, char *buf, Bench *out, double *wall)
{
  Bench *b = g_new0 (Bench, 1);
  b->stage = stage;
  b->fields = viper_tram_fields_new ();
  b->pool = viper_tram_pool_new ();
  ViperLineSplitter *s = viper_line_splitter_new (on_line, on_error, b);

  int fd = open (path, O_RDONLY);
  if (fd < 0)
    g_error ("cannot open %s: %s", path, g_strerror (errno));
  gint64 w0 = g_get_monotonic_time (), t0 = cpu_usec ();
  for (;;)
    {
      ssize_t n = read (fd, buf, READ_SIZE);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        g_error ("read %s: %s", path, g_strerror (errno));
      if (n == 0)
        break;
      viper_line_splitter_feed (s, buf, (gsize) n);
    }
  viper_line_splitter_finish (s, TRUE);
  gint64 t1 = cpu_usec (), w1 = g_get_monotonic_time ();
  *wall = (double) (w1 - w0) / 1e6;
  close (fd);

  for (guint i = 0; i < RING; i++)
    if (b->ring[i])
      viper_tram_pool_release (b->pool, b->ring[i]);
  if (viper_tram_pool_live (b->pool) != 0)
    g_error ("pool still holds %" G_GSIZE_FORMAT " trams", viper_tram_pool_live (b->pool));
  viper_line_splitter_free (s);
  viper_tram_pool_free (b->pool);
  viper_tram_fields_free (b->fields);
  b->pool = NULL;
  b->fields = NULL;
  *out = *b;
  g_free (b);
  return (double) (t1 - t0) / 1e6;
}

int
main (int argc, char **argv)
{
  guint64 n = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 1000000;
  char *dir = NULL, *path;
  if (argc > 2)
    path = g_strdup (argv[2]);
  else
    {
      GError *error = NULL;
      dir = g_dir_make_tmp ("bench-parse-XXXXXX", &error);
      if (!dir)
        g_error ("%s", error->message);
      path = g_build_filename (dir, "trace.picl", NULL);
      write_trace (path, n);
    }

  char *buf = g_malloc (READ_SIZE);
  static const char *const names[] = { "split", "split+scan", "split+scan+pool" };
  Bench last = { 0 };
  for (Stage stage = STAGE_SPLIT; stage <= STAGE_FULL; stage++)
    {
      double best = G_MAXDOUBLE, best_wall = G_MAXDOUBLE;
      for (int pass = 0; pass < PASSES; pass++)
        {
          double wall;
          best = MIN (best, run_pass (path, stage, buf, &last, &wall));
          best_wall = MIN (best_wall, wall);
        }
      printf ("%-16s %9" G_GUINT64_FORMAT " lines %6.1f MB  cpu %6.3f s %6.2f M lines/s %6.1f MB/s"
              "  (wall %6.2f M lines/s)\n",
              names[stage], last.lines, last.bytes / 1e6, best, last.lines / best / 1e6, last.bytes / best / 1e6,
              last.lines / best_wall / 1e6);
    }
  printf ("trams %" G_GUINT64_FORMAT ", comments %" G_GUINT64_FORMAT ", bad %" G_GUINT64_FORMAT " (checksum %g)\n",
          last.trams, last.comments, last.bad, last.checksum);

  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  printf ("peak RSS %.1f MB\n", ru.ru_maxrss / 1024.0);

  g_free (buf);
  if (dir)
    {
      g_unlink (path);
      g_rmdir (dir);
    }
  g_free (path);
  g_free (dir);
  return last.bad == 0 ? 0 : 1;
}
