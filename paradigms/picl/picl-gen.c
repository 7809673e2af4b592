/* picl-gen.c - viper-picl-gen: write a random PICL message-passing trace.
 *
 * A thin command line over picl-gen-lib.c: options fill a
 * ViperPiclGenOptions, the trace goes to standard output (or --output) and
 * the ground truth (which lines form each message) to --truth-out, so that
 * tests and demos can check a replay against what really happened.
 */
#include <stdio.h>
#include <string.h>
#include <locale.h>

#include "core/outfile.h"
#include "core/options.h"
#include "picl-gen-lib.h"

static gboolean
write_file (const char *path, const GString *s, GError **error)
{
  /* core/outfile: "-" is standard output, devices and FIFOs in place */
  return viper_outfile_set_contents (path, "viper-picl-gen", s->str, s->len, error);
}

int
main (int argc, char **argv)
{
  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  gint procs = (gint) o.procs, messages = (gint) o.messages, tags = (gint) o.tags, barriers = (gint) o.barriers;
  gint collectives = 0;
  gint64 seed = (gint64) o.seed;
  char *delivery = NULL, *output = NULL, *truth = NULL;
  gboolean true_time = FALSE, version = FALSE;

  GOptionEntry entries[] = {
    { "procs", 'P', 0, G_OPTION_ARG_INT, &procs, "Number of processors (>= 2, default 4)", "P" },
    { "messages", 'M', 0, G_OPTION_ARG_INT, &messages, "Number of messages (default 40)", "M" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Random seed (default 1)", "N" },
    { "tags", 0, 0, G_OPTION_ARG_INT, &tags, "Tags drawn from 0..T-1 (default 3)", "T" },
    { "nonblocking", 0, 0, G_OPTION_ARG_DOUBLE, &o.p_nonblocking, "Chance a send or receive is non-blocking (0.3)", "P" },
    { "anysource", 0, 0, G_OPTION_ARG_DOUBLE, &o.p_anysource, "Chance a receive names source -1 (0.2)", "P" },
    { "crossing", 0, 0, G_OPTION_ARG_DOUBLE, &o.p_hoist, "Chance a send moves before a preceding receive (0.5)", "P" },
    { "reorder", 0, 0, G_OPTION_ARG_DOUBLE, &o.p_delay, "Chance, per message, that a receive is delayed one more (0.4)", "P" },
    { "barriers", 0, 0, G_OPTION_ARG_INT, &barriers, "Number of global barriers (default 1)", "N" },
    { "collectives", 0, 0, G_OPTION_ARG_INT, &collectives,
      "Number of further collectives (bcast, reduce, allreduce, ..., scan) over subsets 2 and 3 (default 0)", "N" },
    { "waitall", 0, 0, G_OPTION_ARG_DOUBLE, &o.p_waitall,
      "Chance a receive wait also waits for the pending sends, written as overlapping waits (0)", "P" },
    { "notes", 0, 0, G_OPTION_ARG_DOUBLE, &o.p_note, "Chance of a trace message before a call (0.05)", "P" },
    { "offset", 0, 0, G_OPTION_ARG_DOUBLE, &o.offset, "Clock offset per processor, up to +-S seconds (1e-3)", "S" },
    { "drift", 0, 0, G_OPTION_ARG_DOUBLE, &o.drift, "Relative clock drift per processor, up to +-D (1e-4)", "D" },
    { "jitter", 0, 0, G_OPTION_ARG_DOUBLE, &o.jitter, "Time stamp noise per event, up to S seconds (2e-6)", "S" },
    { "latency", 0, 0, G_OPTION_ARG_DOUBLE, &o.latency, "Mean message latency in seconds (2e-5)", "S" },
    { "compute", 0, 0, G_OPTION_ARG_DOUBLE, &o.compute, "Mean computation between calls in seconds (1e-4)", "S" },
    { "true-time", 0, 0, G_OPTION_ARG_NONE, &true_time, "Stamp true times (no offset, drift or jitter)", NULL },
    { "delivery", 0, 0, G_OPTION_ARG_STRING, &delivery, "Line order: inorder (true time) or shuffled (default)", "ORDER" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the trace here (default standard output)", "FILE" },
    { "truth-out", 0, 0, G_OPTION_ARG_FILENAME, &truth, "Write the true messages and line counts (JSON)", "FILE" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GError *error = NULL;
  /* GLib's messages in the user's language and charset (“quotes” under a UTF-8
   * locale, not ?quotes?); numbers stay C: traces are written with '.' */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  GOptionContext *ctx = g_option_context_new ("- write a random PICL message-passing trace");
  g_option_context_set_summary (ctx,
    "Generates a random deadlock-free message-passing program (blocking and non-blocking\n"
    "sends and receives, any-source receives, tags, barriers, collectives, waitalls), runs it in simulated time\n"
    "and prints its PICL trace with imperfect per-processor clocks.");
  g_option_context_set_description (ctx,
    "Every chance P is 0..1; seconds S are 0 to below 1e6, the drift D 0 to below 0.5.\n"
    "Exit status: 0 done, 1 a file could not be written, 2 a usage error (a value out of range).\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!viper_options_parse (ctx, (const GOptionEntry *const[]) { entries, NULL }, &argc, &argv, &error))
    {
      g_printerr ("viper-picl-gen: %s\n", error->message);
      g_error_free (error);
      g_option_context_free (ctx);
      return 2;
    }
  g_option_context_free (ctx);
  if (version)
    {
      printf ("viper-picl-gen %s\n", VIPER_VERSION);
      return 0;
    }
  int status = 0;
  if (argc > 1)
    {
      g_printerr ("viper-picl-gen: unexpected argument '%s'\n", argv[1]);
      status = 2;
    }
  else if (procs < 2 || messages < 0 || tags < 1 || barriers < 0 || collectives < 0)
    {
      g_printerr ("viper-picl-gen: --procs must be >= 2, --tags >= 1, --messages, --barriers and --collectives >= 0\n");
      status = 2;
    }
  else if (delivery && strcmp (delivery, "inorder") != 0 && strcmp (delivery, "shuffled") != 0)
    {
      g_printerr ("viper-picl-gen: --delivery must be inorder or shuffled, not '%s'\n", delivery);
      status = 2;
    }
  if (status)
    goto out;

  o.procs = (guint) procs;
  o.messages = (guint) messages;
  o.tags = (guint) tags;
  o.barriers = (guint) barriers;
  o.collectives = (guint) collectives;
  o.seed = (guint64) seed;
  o.true_time = true_time;
  o.delivery = delivery && strcmp (delivery, "inorder") == 0 ? VIPER_PICL_DELIVERY_INORDER
                                                             : VIPER_PICL_DELIVERY_SHUFFLED;
  ViperPiclGenTrace *t = viper_picl_gen (&o, &error);
  if (!t)
    {
      g_printerr ("viper-picl-gen: %s\n", error->message);
      status = 2;
      goto out;
    }
  GString *s = g_string_new (NULL);
  viper_picl_gen_write (t, s);
  if (!write_file (output ? output : "-", s, &error))
    status = 1;
  if (!status && truth)
    {
      g_string_truncate (s, 0);
      viper_picl_gen_write_truth (t, s);
      if (!write_file (truth, s, &error))
        status = 1;
    }
  if (status)
    g_printerr ("viper-picl-gen: %s\n", error->message);
  g_string_free (s, TRUE);
  viper_picl_gen_free (t);
out:
  g_clear_error (&error);
  g_free (delivery);
  g_free (output);
  g_free (truth);
  return status;
}
