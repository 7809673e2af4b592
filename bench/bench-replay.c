/* bench-replay - end-to-end replay throughput and memory per tram in flight.
 *
 * 1. Generates a scrambled message-passing trace of about 1,000,000 trams
 *    (viper-picl-gen's library: skewed clocks, shuffled delivery that keeps
 *    each processor's order) and replays it with the real viper-replay
 *    binary (parse + reconstruct + model), timing it and reading its peak
 *    RSS from wait4().
 * 2. Memory per tram in flight: in a child process, feeds every tram except
 *    the first one of processor 0, so nearly the whole run piles up pending,
 *    and divides the growth of the resident set by the number pending.
 * 3. The same events written as a Pajé trace (states per processor, links per
 *    message) and simulated by PajeNG's `pj_dump -q`, side by side, when
 *    pj_dump is installed.
 *
 * A benchmark prints figures; it asserts nothing.  Usage:
 *   bench-replay [VIPER_REPLAY] [MESSAGES]
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/run.h"
#include "core/model.h"
#include "core/tramparse.h"
#include "paradigms/paradigms.h"
#include "paradigms/picl/picl-gen-lib.h"

static double
now (void)
{
  return (double) g_get_monotonic_time () / G_USEC_PER_SEC;
}

static long
rss_kib (void)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f)
    {
      if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
      fclose (f);
    }
  return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

/* Run argv, return wall seconds and the child's peak RSS (KiB); -1 on failure. */
static double
timed_run (char **argv, long *maxrss_kib, int *status)
{
  fflush (stdout);
  double t0 = now ();
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      if (!freopen ("/dev/null", "w", stdout) || !freopen ("/dev/null", "w", stderr))
        _exit (127);
      execv (argv[0], argv);
      execvp (argv[0], argv);
      _exit (127);
    }
  struct rusage ru;
  if (wait4 (pid, status, 0, &ru) < 0)
    return -1;
  *maxrss_kib = ru.ru_maxrss;
  return now () - t0;
}

static gint
by_true_time (gconstpointer a, gconstpointer b, gpointer data)
{
  const ViperPiclGenLine *L = data;
  double x = L[*(const guint *) a].true_time, y = L[*(const guint *) b].true_time;
  return x < y ? -1 : x > y;
}

/* Pajé: one container per processor, a state per call, a link per message. */
static guint64
write_paje (const ViperPiclGenTrace *t, const char *path)
{
  FILE *f = fopen (path, "w");
  if (!f)
    return 0;
  guint64 lines = 0;
  fputs ("%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeDefineLinkType 2\n% Alias string\n% Type string\n% StartContainerType string\n"
         "% EndContainerType string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeCreateContainer 3\n% Time date\n% Alias string\n% Type string\n% Container string\n"
         "% Name string\n%EndEventDef\n"
         "%EventDef PajeDestroyContainer 4\n% Time date\n% Name string\n% Type string\n%EndEventDef\n"
         "%EventDef PajeSetState 5\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
         "%EventDef PajeStartLink 6\n% Time date\n% Type string\n% Container string\n% StartContainer string\n"
         "% Value string\n% Key string\n%EndEventDef\n"
         "%EventDef PajeEndLink 7\n% Time date\n% Type string\n% Container string\n% EndContainer string\n"
         "% Value string\n% Key string\n%EndEventDef\n", f);
  fputs ("0 CP 0 Program\n0 CT CP Processor\n1 ST CT State\n2 LT CP CT CT Message\n3 0 root CP 0 root\n", f);
  for (guint p = 0; p < t->procs; p++)
    fprintf (f, "3 0 p%u CT root P%u\n", p, p);
  /* events in true-time order (Pajé wants time order) */
  guint n = t->lines->len;
  const ViperPiclGenLine *L = (const ViperPiclGenLine *) t->lines->data;
  GArray *idx = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
  for (guint i = 0; i < n; i++)
    g_array_append_val (idx, i);
  g_array_sort_with_data (idx, by_true_time, (gpointer) L);
  double last = 0;
  for (guint k = 0; k < n; k++)
    {
      const ViperPiclGenLine *l = &L[g_array_index (idx, guint, k)];
      if (l->proc < 0)
        continue;
      last = l->true_time;
      const char *state = l->role == VIPER_PICL_LINE_SEND ? "send" : l->role == VIPER_PICL_LINE_RECV_END ? "busy" : "comm";
      fprintf (f, "5 %.9f ST p%" G_GINT64_FORMAT " %s\n", l->true_time, l->proc, state);
      lines++;
      if (l->role == VIPER_PICL_LINE_SEND)
        fprintf (f, "6 %.9f LT root p%" G_GINT64_FORMAT " m k%d\n", l->true_time, l->proc, l->message), lines++;
      else if (l->role == VIPER_PICL_LINE_RECV_END)
        fprintf (f, "7 %.9f LT root p%" G_GINT64_FORMAT " m k%d\n", l->true_time, l->proc, l->message), lines++;
    }
  for (guint p = 0; p < t->procs; p++)
    fprintf (f, "4 %.9f p%u CT\n", last + 1, p);
  g_array_unref (idx);
  fclose (f);
  return lines;
}

/* Child: feed everything but processor 0's first tram; report bytes per pending tram. */
static void
measure_in_flight (const char *trace_path)
{
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (trace_path, &text, &len, NULL))
    _exit (1);
  viper_paradigms_register_all ();
  const ViperParadigm *p = viper_paradigm_lookup ("picl");
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperChannels *ch = viper_channels_new ();
  viper_channels_add (ch, "bench");
  ViperModel *model = p->model_new (p, NULL);
  ViperRun *run = viper_run_new (p, model, pool, ch, NULL, 0.5);
  ViperTramFields *f = viper_tram_fields_new ();
  viper_model_set_history (model, -1.0);
  long before = rss_kib ();
  /* pass 0: every processor but 0; pass 1: processor 0, which releases the pile */
  for (int pass = 0; pass < 2; pass++)
    {
      char *line = text, *end = text + len;
      while (line < end)
        {
          char *nl = memchr (line, '\n', (gsize) (end - line));
          gsize n = nl ? (gsize) (nl - line) : (gsize) (end - line);
          ViperLineKind kind;
          ViperParseError err;
          ViperTram *t = viper_tram_parse (pool, f, line, n, &kind, &err);
          line = nl ? nl + 1 : end;
          if (!t)
            continue;
          if ((t->proc == 0) != (pass == 1))
            {
              viper_tram_pool_release (pool, t);
              continue;
            }
          viper_run_insert (run, t);
          const ViperTram *o;
          while ((o = viper_run_transfer_next (run)))
            viper_model_apply (model, o);
        }
      if (pass == 0)
        {
          ViperCounts c;
          viper_run_counts (run, &c);
          long after = rss_kib ();
          printf ("in flight: %" G_GUINT64_FORMAT " trams pending (processor 0 held back): pool %.1f B/tram, "
                  "resident growth %.1f B/tram\n",
                  c.pending, c.pending ? (double) viper_run_bytes_in_flight (run) / (double) c.pending : 0.0,
                  c.pending ? (double) (after - before) * 1024.0 / (double) c.pending : 0.0);
        }
    }
  ViperCounts c;
  viper_run_counts (run, &c);
  printf ("after releasing processor 0: %" G_GUINT64_FORMAT " pending, %" G_GUINT64_FORMAT " transferred\n",
          c.pending, c.transferred);
  fflush (stdout);
  _exit (0);
}

int
main (int argc, char **argv)
{
  const char *replay = argc > 1 ? argv[1] : "cli/viper-replay";
  guint messages = argc > 2 ? (guint) g_ascii_strtoull (argv[2], NULL, 10) : 250000;
  char *dir = g_dir_make_tmp ("viper-bench-XXXXXX", NULL);
  char *trace = g_build_filename (dir, "mp.trc", NULL);
  char *paje = g_build_filename (dir, "mp.paje", NULL);

  /* Generate in a child so this process stays small: a child's peak RSS
   * (wait4) includes what it inherited at fork time. */
  fflush (stdout);
  pid_t gen = fork ();
  if (gen == 0)
    {
      ViperPiclGenOptions o;
      viper_picl_gen_options_init (&o);
      o.procs = 16;
      o.messages = messages;
      o.seed = 42;
      o.delivery = VIPER_PICL_DELIVERY_SHUFFLED;
      double t0 = now ();
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      GString *s = g_string_new (NULL);
      viper_picl_gen_write (t, s);
      if (!g_file_set_contents (trace, s->str, (gssize) s->len, NULL))
        _exit (1);
      guint64 plines = write_paje (t, paje);
      printf ("generated %u trams (%u processors, %u messages, shuffled, skewed clocks) in %.2f s\n",
              t->lines->len, o.procs, o.messages, now () - t0);
      char *counts = g_strdup_printf ("%u %" G_GUINT64_FORMAT, t->lines->len, plines);
      char *cpath = g_strconcat (trace, ".counts", NULL);
      g_file_set_contents (cpath, counts, -1, NULL);
      fflush (stdout);
      _exit (0);
    }
  int gstatus = 0;
  waitpid (gen, &gstatus, 0);
  char *cpath = g_strconcat (trace, ".counts", NULL);
  char *counts = NULL;
  guint64 trams = 0, plines = 0;
  if (!WIFEXITED (gstatus) || WEXITSTATUS (gstatus) != 0 || !g_file_get_contents (cpath, &counts, NULL, NULL)
      || sscanf (counts, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &trams, &plines) != 2)
    {
      printf ("generating the trace failed\n");
      return 1;
    }
  g_free (counts);
  unlink (cpath);
  g_free (cpath);

  /* 1. end to end with the product binary */
  char *argv1[] = { (char *) replay, "--paradigm=picl", "--quiet", trace, NULL };
  long rss = 0;
  int status = 0;
  double best = INFINITY;
  for (int i = 0; i < 3; i++)
    {
      double secs = timed_run (argv1, &rss, &status);
      if (secs < 0 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
        {
          printf ("viper-replay failed (status %d)\n", status);
          return 1;
        }
      best = MIN (best, secs);
    }
  printf ("viper-replay (parse + reconstruct + model): %.3f s, %.2f million trams/s, peak RSS %.1f MiB\n",
          best, (double) trams / best / 1e6, (double) rss / 1024.0);

  /* 2. memory per tram in flight */
  fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0)
    measure_in_flight (trace);
  waitpid (pid, &status, 0);

  /* 3. PajeNG side by side */
  char *pj = g_find_program_in_path ("pj_dump");
  if (pj)
    {
      char *argv2[] = { pj, "-q", paje, NULL };
      double pbest = INFINITY;
      for (int i = 0; i < 3; i++)
        {
          double secs = timed_run (argv2, &rss, &status);
          if (secs < 0 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
            {
              printf ("pj_dump failed (status %d)\n", status);
              pbest = NAN;
              break;
            }
          pbest = MIN (pbest, secs);
        }
      if (!isnan (pbest))
        {
          printf ("pj_dump -q on the same events as Pajé (%" G_GUINT64_FORMAT " event lines, links for messages): "
                  "%.3f s, %.2f million lines/s, peak RSS %.1f MiB\n",
                  plines, pbest, (double) plines / pbest / 1e6, (double) rss / 1024.0);
          printf ("viper-replay is %.1fx faster per event line than pj_dump -q\n",
                  ((double) trams / best) / ((double) plines / pbest));
        }
      g_free (pj);
    }
  else
    printf ("pj_dump not installed (Debian package pajeng): no side-by-side figure\n");

  unlink (trace);
  unlink (paje);
  rmdir (dir);
  g_free (trace);
  g_free (paje);
  g_free (dir);
  return 0;
}
