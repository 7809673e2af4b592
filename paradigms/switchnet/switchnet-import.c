/* viper-switchnet-import - turn the Cplant tool's files into switchnet trams.
 *
 * Reads a model file, a parameter file and/or a job file, and writes the
 * trams (one per value change and job change, time = time step) to a file or
 * standard output, so that they replay like any trace:
 *
 *   viper-switchnet-import --model=M.swm --params=bad.par --jobs=jobs.job -o run.trc
 *   viper-replay --paradigm=switchnet --setup=M.swm run.trc
 *
 * Bad lines in the series files are reported as FILE:LINE:COLUMN: reason and
 * skipped (--strict: the first one stops with status 1).  --route=SRC,DST
 * prints the route between two nodes (or switches) instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <locale.h>
#include "switchnet.h"
#include "core/outfile.h"
#include "core/options.h"

static gboolean
write_out (const char *line, gsize len, gpointer data)
{
  return viper_outfile_write (data, line, len);
}

static char *opt_model, *opt_params, *opt_jobs, *opt_out, *opt_route;
static gboolean opt_strict, opt_quiet, opt_version;

static GOptionEntry entries[] = {
  { "model", 'm', 0, G_OPTION_ARG_FILENAME, &opt_model, "The model file (required)", "FILE" },
  { "params", 'p', 0, G_OPTION_ARG_FILENAME, &opt_params, "A parameter file: port label, then a value per time step", "FILE" },
  { "jobs", 'j', 0, G_OPTION_ARG_FILENAME, &opt_jobs, "A job file: processor port label, then a job id per time step", "FILE" },
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_out, "Write the trams here (default: standard output)", "FILE" },
  { "route", 'r', 0, G_OPTION_ARG_STRING, &opt_route, "Print the route from SRC to DST (node ids, nID or switch labels) and exit", "SRC,DST" },
  { "strict", 0, 0, G_OPTION_ARG_NONE, &opt_strict, "Stop at the first bad line (exit status 1)", NULL },
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "Do not print the summary", NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, &opt_version, "Print the version and exit", NULL },
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static int
report (const SwnSeriesFile *f)
{
  for (guint i = 0; i < f->problems->len; i++)
    {
      fprintf (stderr, "%s\n", (const char *) g_ptr_array_index (f->problems, i));
      if (opt_strict)
        return 1;
    }
  if (f->n_bad > f->problems->len)
    fprintf (stderr, "viper-switchnet-import: %u more bad lines not shown\n", f->n_bad - f->problems->len);
  return 0;
}

static gboolean
node_of (const SwnNet *n, const char *s, gint64 *node)
{
  gint sw = swn_switch_by_label (n, s);
  if (sw >= 0)
    {
      *node = g_array_index (n->switches, SwnSwitch, sw).first_node;
      return TRUE;
    }
  guint a, p;
  if (swn_port_by_label (n, s, &a, &p) && p < n->n_proc_ports)
    {
      *node = g_array_index (n->switches, SwnSwitch, a).first_node + p;
      return TRUE;
    }
  char *end;
  gint64 v = g_ascii_strtoll (s, &end, 10);
  if (*s && !*end && swn_node_port (n, v, &a, &p))
    {
      *node = v;
      return TRUE;
    }
  return FALSE;
}

static int
print_route (SwnNet *n)
{
  char **parts = g_strsplit (opt_route, ",", 3);
  gint64 src, dst;
  if (g_strv_length (parts) != 2 || !node_of (n, parts[0], &src) || !node_of (n, parts[1], &dst))
    {
      fprintf (stderr, "viper-switchnet-import: --route=%s: expected SRC,DST, each a node id, nID or switch label\n",
               opt_route);
      g_strfreev (parts);
      return 2;
    }
  g_strfreev (parts);
  GArray *hops = g_array_new (FALSE, FALSE, sizeof (SwnHop));
  GError *error = NULL;
  int rc = 0;
  if (!swn_route (n, src, dst, hops, &error))
    {
      fprintf (stderr, "viper-switchnet-import: %s\n", error->message);
      g_clear_error (&error);
      rc = 1;
    }
  else
    {
      printf ("n%" G_GINT64_FORMAT, src);
      for (guint i = 0; i < hops->len; i++)
        {
          const SwnHop *h = &g_array_index (hops, SwnHop, i);
          printf (" %s.%u", g_array_index (n->switches, SwnSwitch, h->sw).label, h->out_port);
        }
      printf (" n%" G_GINT64_FORMAT "\n", dst);
      if (fflush (stdout) != 0 || ferror (stdout))
        {
          fprintf (stderr, "viper-switchnet-import: standard output: %s\n", g_strerror (errno));
          rc = 1;
        }
    }
  g_array_unref (hops);
  return rc;
}

int
main (int argc, char **argv)
{
  /* GLib's messages in the user's language and charset (“quotes” under a UTF-8
   * locale, not ?quotes?); numbers stay C: traces are written with '.' */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  GOptionContext *ctx = g_option_context_new ("- turn switch-network model, parameter and job files into trams");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
    "The trams replay with: viper-replay --paradigm=switchnet --setup=MODEL TRACE\n"
    "Formats: docs/paradigm-switchnet.md; man viper-switchnet-import.\n"
    "Exit status: 0 done, 1 I/O error, an unreadable file or a bad line under --strict, 2 usage error.");
  GError *error = NULL;
  if (!viper_options_parse (ctx, (const GOptionEntry *const[]) { entries, NULL }, &argc, &argv, &error))
    {
      fprintf (stderr, "viper-switchnet-import: %s\n", error->message);
      g_error_free (error);
      g_option_context_free (ctx);
      return 2;
    }
  g_option_context_free (ctx);
  if (opt_version)
    {
      printf ("viper-switchnet-import %s\n", VIPER_VERSION);
      return 0;
    }
  if (!opt_model || argc > 1)
    {
      fprintf (stderr, "viper-switchnet-import: %s (see --help)\n",
               !opt_model ? "--model=FILE is required" : "unexpected argument");
      return 2;
    }
  if (!opt_route && !opt_params && !opt_jobs)
    {
      fprintf (stderr, "viper-switchnet-import: give --params, --jobs (or both), or --route (see --help)\n");
      return 2;
    }
  SwnNet *n = swn_net_load (opt_model, &error);
  if (!n)
    {
      fprintf (stderr, "viper-switchnet-import: %s\n", error->message);
      g_clear_error (&error);
      return 1;
    }
  if (opt_route)
    {
      int rc = print_route (n);
      swn_net_free (n);
      return rc;
    }
  /* the output first (core/outfile.h: '-' is standard output, a device or
   * FIFO is written in place, a link is followed, a regular file is
   * replaced whole at the end): one that cannot be written is said before
   * the inputs' bad lines are */
  ViperOutFile *out = viper_outfile_open (opt_out ? opt_out : "-", "viper-switchnet-import", &error);
  if (!out)
    {
      fprintf (stderr, "viper-switchnet-import: %s\n", error->message);
      g_clear_error (&error);
      swn_net_free (n);
      return 1;
    }
  SwnSeriesFile *params = NULL, *jobs = NULL;
  int rc = 0;
  if (opt_params && !(params = swn_series_load (n, opt_params, FALSE, &error)))
    rc = 1;
  if (!rc && opt_jobs && !(jobs = swn_series_load (n, opt_jobs, TRUE, &error)))
    rc = 1;
  if (rc)
    {
      fprintf (stderr, "viper-switchnet-import: %s\n", error->message);
      g_clear_error (&error);
    }
  if (!rc && params)
    rc = report (params);
  if (!rc && jobs)
    rc = report (jobs);
  if (!rc && params && jobs && params->n_steps && jobs->n_steps && params->n_steps != jobs->n_steps)
    fprintf (stderr, "viper-switchnet-import: warning: %s has %u time steps, %s has %u\n", opt_params,
             params->n_steps, opt_jobs, jobs->n_steps);
  if (rc)
    viper_outfile_abort (out);   /* the target stays as it was */
  else
    {
      gint64 written = swn_write_trams (n, params, jobs, write_out, out);
      if (!viper_outfile_close (out, &error))
        written = -1;
      else if (!opt_out || strcmp (opt_out, "-") == 0)
        {
          if (!viper_stdout_flush (&error))
            written = -1;
        }
      if (written < 0)
        {
          fprintf (stderr, "viper-switchnet-import: %s\n", error ? error->message : "write error");
          g_clear_error (&error);
          rc = 1;
        }
      else if (!opt_quiet)
        fprintf (stderr, "viper-switchnet-import: %" G_GINT64_FORMAT " trams, %u switches, %u steps, %u bad lines skipped\n",
                 written, n->switches->len, MAX (params ? params->n_steps : 0, jobs ? jobs->n_steps : 0),
                 (params ? params->n_bad : 0) + (jobs ? jobs->n_bad : 0));
    }
  swn_series_free (params);
  swn_series_free (jobs);
  swn_net_free (n);
  g_free (opt_model);
  g_free (opt_params);
  g_free (opt_jobs);
  g_free (opt_out);
  g_free (opt_route);
  return rc;
}
