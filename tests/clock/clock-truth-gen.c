/* clock-truth-gen - a PICL trace with skewed clocks and its true times.
 *
 * Calls the picl generator in-process (paradigms/picl/picl-gen-lib.c) with
 * the clock figures of issue 15 as defaults (offsets up to +-50 ms, drift up
 * to +-1000 ppm, shuffled delivery) and writes, beside the trace, one true
 * time per trace line (same order) and the generator's message truth, so
 * that tests and benchmarks can measure the error of a global time.
 *
 *   clock-truth-gen -P 32 -M 9600 -s 5 TRACE TRUE-TIMES MESSAGES.json
 *
 * --sync=N adds, for every processor but 0, N clock-synchronisation samples
 * (-6 -951, docs/formats.md) against processor 0 before its first line and N
 * after its last, the way libviper-mpi takes them at init and finalize.  Each
 * processor's clock is recovered from its lines (stamp against true time,
 * least squares: exact but for the jitter).  MESSAGES.json then counts lines
 * without the samples; TRUE-TIMES has one time per line of TRACE.
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "paradigms/picl/picl-gen-lib.h"

typedef struct {
  double o, k;              /* stamp = o + k * true */
} Clock;

/* Each processor's clock from its lines. */
static Clock *
clocks_from_lines (const ViperPiclGenTrace *t)
{
  Clock *c = g_new0 (Clock, t->procs);
  double *sx = g_new0 (double, t->procs), *sy = g_new0 (double, t->procs), *sxx = g_new0 (double, t->procs),
         *sxy = g_new0 (double, t->procs), *n = g_new0 (double, t->procs);
  for (guint i = 0; i < t->lines->len; i++)
    {
      const ViperPiclGenLine *l = &g_array_index (t->lines, ViperPiclGenLine, i);
      if (l->proc < 0 || l->proc >= (gint64) t->procs)
        continue;
      double y = g_ascii_strtod (strchr (strchr (l->text, ' ') + 1, ' ') + 1, NULL);
      guint p = (guint) l->proc;
      sx[p] += l->true_time;
      sy[p] += y;
      sxx[p] += l->true_time * l->true_time;
      sxy[p] += l->true_time * y;
      n[p]++;
    }
  for (guint p = 0; p < t->procs; p++)
    {
      double d = n[p] * sxx[p] - sx[p] * sx[p];
      c[p].k = n[p] > 1 && d != 0 ? (n[p] * sxy[p] - sx[p] * sy[p]) / d : 1;
      c[p].o = n[p] ? (sy[p] - c[p].k * sx[p]) / n[p] : 0;
    }
  g_free (sx), g_free (sy), g_free (sxx), g_free (sxy), g_free (n);
  return c;
}

/* One sample of processor p against 0 starting at true time t; appends the
 * line and its true time.  Latencies are 20 and 25 microseconds. */
static void
add_sample (GString *trace, GString *truth, const Clock *c, guint p, double t)
{
  double t1 = t, tr = t + 20e-6, t2 = t + 45e-6;
  gint64 n1 = (gint64) llround ((c[p].o + c[p].k * t1) * 1e9);
  gint64 nr = (gint64) llround ((c[0].o + c[0].k * tr) * 1e9);
  gint64 n2 = (gint64) llround ((c[p].o + c[p].k * t2) * 1e9);
  char tb[32];
  g_string_append_printf (trace, "-6 -951 %s %u 0 4 2 0 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                          g_ascii_formatd (tb, sizeof tb, "%.9f", (double) n2 / 1e9), p, n1, nr, n2);
  g_string_append_printf (truth, "%.17g\n", t2);
}

static gboolean
write_file (const char *path, const GString *s)
{
  GError *error = NULL;
  if (!g_file_set_contents (path, s->str, (gssize) s->len, &error))
    {
      fprintf (stderr, "clock-truth-gen: %s\n", error->message);
      g_error_free (error);
      return FALSE;
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  o.offset = 0.05;
  o.drift = 1e-3;
  o.delivery = VIPER_PICL_DELIVERY_SHUFFLED;
  gint procs = 8, messages = 2000;
  gint64 seed = 1;
  gint sync = 0;
  GOptionEntry entries[] = {
    { "procs", 'P', 0, G_OPTION_ARG_INT, &procs, "Processors (default 8)", "P" },
    { "messages", 'M', 0, G_OPTION_ARG_INT, &messages, "Messages (default 2000)", "M" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Seed", "N" },
    { "offset", 0, 0, G_OPTION_ARG_DOUBLE, &o.offset, "Offsets up to +-S seconds (0.05)", "S" },
    { "drift", 0, 0, G_OPTION_ARG_DOUBLE, &o.drift, "Drift up to +-D (1e-3)", "D" },
    { "sync", 0, 0, G_OPTION_ARG_INT, &sync, "Clock-synchronisation samples per processor at start and end (0)", "N" },
    { "compute", 0, 0, G_OPTION_ARG_DOUBLE, &o.compute, "Mean computation between calls (1e-4 s)", "S" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionContext *ctx = g_option_context_new ("TRACE TRUE-TIMES MESSAGES.json");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 4)
    {
      fprintf (stderr, "clock-truth-gen: %s\n", error ? error->message : "expected TRACE TRUE-TIMES MESSAGES.json");
      return 2;
    }
  g_option_context_free (ctx);
  o.procs = (guint) procs;
  o.messages = (guint) messages;
  o.seed = (guint64) seed;
  ViperPiclGenTrace *t = viper_picl_gen (&o, &error);
  if (!t)
    {
      fprintf (stderr, "clock-truth-gen: %s\n", error->message);
      return 2;
    }
  GString *s = g_string_new (NULL), *truth = g_string_new (NULL);
  Clock *clk = sync > 0 ? clocks_from_lines (t) : NULL;
  guint *seen = g_new0 (guint, t->procs);
  for (guint i = 0; i < t->lines->len; i++)
    {
      const ViperPiclGenLine *l = &g_array_index (t->lines, ViperPiclGenLine, i);
      gboolean mine = clk && l->proc > 0 && l->proc < (gint64) t->procs;
      guint p = mine ? (guint) l->proc : 0;
      if (mine && seen[p] == 0)
        for (gint k = sync; k > 0; k--)
          add_sample (s, truth, clk, p, l->true_time - 1e-3 * k);
      g_string_append (s, l->text);
      g_string_append_c (s, '\n');
      g_string_append_printf (truth, "%.17g\n", l->true_time);
      if (mine && ++seen[p] == t->proc_lines[p])
        for (gint k = 1; k <= sync; k++)
          add_sample (s, truth, clk, p, l->true_time + 1e-3 * k);
    }
  g_free (seen);
  g_free (clk);
  gboolean ok = write_file (argv[1], s);
  ok = ok && write_file (argv[2], truth);
  g_string_free (truth, TRUE);
  g_string_truncate (s, 0);
  viper_picl_gen_write_truth (t, s);
  ok = ok && write_file (argv[3], s);
  g_string_free (s, TRUE);
  viper_picl_gen_free (t);
  return ok ? 0 : 1;
}
