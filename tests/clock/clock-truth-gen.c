/* clock-truth-gen - a PICL trace with skewed clocks and its true times.
 *
 * Calls the picl generator in-process (paradigms/picl/picl-gen-lib.c) with
 * the clock figures of issue 15 as defaults (offsets up to +-50 ms, drift up
 * to +-1000 ppm, shuffled delivery) and writes, beside the trace, one true
 * time per trace line (same order) and the generator's message truth, so
 * that tests and benchmarks can measure the error of a global time.
 *
 *   clock-truth-gen -P 32 -M 9600 -s 5 TRACE TRUE-TIMES MESSAGES.json
 */
#include <stdio.h>
#include <stdlib.h>
#include "paradigms/picl/picl-gen-lib.h"

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
  GOptionEntry entries[] = {
    { "procs", 'P', 0, G_OPTION_ARG_INT, &procs, "Processors (default 8)", "P" },
    { "messages", 'M', 0, G_OPTION_ARG_INT, &messages, "Messages (default 2000)", "M" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Seed", "N" },
    { "offset", 0, 0, G_OPTION_ARG_DOUBLE, &o.offset, "Offsets up to +-S seconds (0.05)", "S" },
    { "drift", 0, 0, G_OPTION_ARG_DOUBLE, &o.drift, "Drift up to +-D (1e-3)", "D" },
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
  GString *s = g_string_new (NULL);
  viper_picl_gen_write (t, s);
  gboolean ok = write_file (argv[1], s);
  g_string_truncate (s, 0);
  for (guint i = 0; i < t->lines->len; i++)
    g_string_append_printf (s, "%.17g\n", g_array_index (t->lines, ViperPiclGenLine, i).true_time);
  ok = ok && write_file (argv[2], s);
  g_string_truncate (s, 0);
  viper_picl_gen_write_truth (t, s);
  ok = ok && write_file (argv[3], s);
  g_string_free (s, TRUE);
  viper_picl_gen_free (t);
  return ok ? 0 : 1;
}
