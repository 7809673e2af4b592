/* macrame-sim.c - viper-macrame-sim: write a Macrame testbed trace, its truth
 * and its view setup files (docs/man/viper-macrame-sim.1).
 *
 * A thin command line over macrame-sim-lib.c, which holds the simulation so
 * that tests run it in-process; this file only parses options and writes
 * files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>
#include "macrame-sim-lib.h"
#include "core/outfile.h"
#include "core/options.h"

static gboolean
write_text (const char *path, const char *text, gsize len)
{
  /* core/outfile: "-" is standard output, devices and FIFOs in place */
  GError *error = NULL;
  if (!viper_outfile_set_contents (path, "viper-macrame-sim", text, len, &error))
    {
      fprintf (stderr, "viper-macrame-sim: %s\n", error->message);
      g_error_free (error);
      return FALSE;
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  MacrameSimOptions o;
  macrame_sim_options_init (&o);
  gint mesh = 3, malformed = 0;
  gint64 seed = 1, trams = -1, maxrate = 100;
  gboolean ordered = FALSE, version = FALSE;
  char *out = NULL, *truth = NULL, *view = NULL, *view_out = NULL;
  GOptionEntry entries[] = {
    { "mesh", 'm', 0, G_OPTION_ARG_INT, &mesh, "Mesh size R: R x R switches, 16 nodes each (default 3)", "R" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Random seed (default 1)", "N" },
    { "trams", 'n', 0, G_OPTION_ARG_INT64, &trams, "About N good trams, setup phase included (default 20 per device)", "N" },
    { "malformed", 0, 0, G_OPTION_ARG_INT, &malformed, "Inject N bad lines and rule-breaking trams (default 0)", "N" },
    { "maxrate", 0, 0, G_OPTION_ARG_INT64, &maxrate, "MAXRATE of the rates (default 100)", "N" },
    { "offset", 0, 0, G_OPTION_ARG_DOUBLE, &o.offset, "Clock offsets up to +-MS (default 50)", "MS" },
    { "drift", 0, 0, G_OPTION_ARG_DOUBLE, &o.drift, "Clock drift up to +-D (default 1e-4)", "D" },
    { "jitter", 0, 0, G_OPTION_ARG_DOUBLE, &o.jitter, "Clock reading jitter up to +-MS (default 0.05)", "MS" },
    { "ordered", 0, 0, G_OPTION_ARG_NONE, &ordered, "Deliver in true time order (no shuffling)", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write the trace to FILE (default: standard output)", "FILE" },
    { "truth-out", 0, 0, G_OPTION_ARG_FILENAME, &truth, "Write the true final state and counts (JSON) to FILE", "FILE" },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view, "Write the view setup file VIEW (topology or hardware) instead of a trace", "VIEW" },
    { "view-out", 0, 0, G_OPTION_ARG_FILENAME, &view_out, "Where --view writes (default: standard output)", "FILE" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  /* GLib's messages in the user's language and charset (“quotes” under a UTF-8
   * locale, not ?quotes?); numbers stay C: traces are written with '.' */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  GOptionContext *ctx = g_option_context_new ("- write Macrame testbed traces and view setup files");
  g_option_context_set_description (ctx, "Exit status: 0 success, 1 a file could not be written, 2 a usage error.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  int rc = 0;
  if (!viper_options_parse (ctx, (const GOptionEntry *const[]) { entries, NULL }, &argc, &argv, &error) || argc > 1)
    {
      fprintf (stderr, "viper-macrame-sim: %s\n", error ? error->message : "unexpected argument");
      rc = 2;
      goto done;
    }
  if (version)
    {
      printf ("viper-macrame-sim %s\n", VIPER_VERSION);
      goto done;
    }
  if (mesh < 1 || mesh > 32 || malformed < 0 || maxrate < 1 || maxrate > G_MAXINT32 || seed < 0
      || o.offset < 0 || o.drift < 0 || o.drift >= 0.5 || o.jitter < 0)
    {
      fprintf (stderr, "viper-macrame-sim: --mesh must be 1..32, --maxrate 1..2^31-1; --seed, --malformed, "
                       "--offset and --jitter not negative; --drift 0..0.5\n");
      rc = 2;
      goto done;
    }
  if (view)
    {
      MacrameSimView v;
      if (g_str_equal (view, "topology"))
        v = MACRAME_SIM_VIEW_TOPOLOGY;
      else if (g_str_equal (view, "hardware"))
        v = MACRAME_SIM_VIEW_HARDWARE;
      else
        {
          fprintf (stderr, "viper-macrame-sim: --view must be topology or hardware\n");
          rc = 2;
          goto done;
        }
      char *text = macrame_sim_view ((guint) mesh, v, maxrate);
      rc = write_text (view_out ? view_out : "-", text, strlen (text)) ? 0 : 1;
      g_free (text);
      goto done;
    }
  o.mesh = (guint) mesh;
  o.seed = (guint64) seed;
  o.malformed = (guint) malformed;
  o.maxrate = maxrate;
  o.shuffle = !ordered;
  o.trams = trams >= 0 ? (guint64) trams : (guint64) mesh * mesh * 17 * 20;
  MacrameSimResult res = { 0 };
  macrame_sim_run (&o, &res);
  if (!write_text (out ? out : "-", res.trace->str, res.trace->len))
    rc = 1;
  if (truth && !write_text (truth, res.truth, strlen (res.truth)))
    rc = 1;
  macrame_sim_result_clear (&res);
done:
  g_option_context_free (ctx);
  g_free (out);
  g_free (truth);
  g_free (view);
  g_free (view_out);
  if (error)
    g_error_free (error);
  return rc;
}
