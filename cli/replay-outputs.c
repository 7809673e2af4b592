/* replay-outputs.c - what viper-replay writes besides the replay itself:
 * the run (--run-out), what exporters changed, --stats, and the check that
 * no two outputs (or an output and an input) share a file. */
#include "replay-app.h"

void
replay_run_out_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  (void) changed;
  App *app = data;
  g_string_truncate (app->line, 0);
  viper_tram_print (t, TRUE, app->line);
  g_string_append_c (app->line, '\n');
  viper_outfile_write (app->run_out, app->line->str, app->line->len);
}

/* Whatever an exporter had to change to meet its format (a shift to start
 * at 0, records raised to keep the time order) is said, never silent: on
 * standard error (unless --quiet, or the export failed: its error is what
 * counts, notes on a file not written would mislead) and in --stats. */
void
replay_report_export (App *app, const char *spec, const ViperExporter *ex, gboolean failed)
{
  ViperExportStats st;
  viper_exporter_stats (ex, &st);
  char shift[32], moved[32];
  viper_format_double (st.shift, shift);
  viper_format_double (st.max_clamp, moved);
  gboolean quiet = app->opt.quiet || failed;
  if (!quiet && st.shift != 0)
    fprintf (stderr, "viper-replay: --export=%s: times shifted by +%s s so that the run starts at 0\n", spec, shift);
  guint64 raised = st.clamped - st.out_of_range;
  if (!app->opt.quiet && raised)
    fprintf (stderr, "viper-replay: --export=%s: %" G_GUINT64_FORMAT " record%s written up to %s s later than "
             "their time, to keep the file in time order\n", spec, raised, raised == 1 ? "" : "s", moved);
  if (!quiet && st.out_of_range)
    fprintf (stderr, "viper-replay: --export=%s: %" G_GUINT64_FORMAT " event%s with a time or duration beyond "
             "the range of a double in microseconds, written as +-1.7976931348623157e+308\n", spec, st.out_of_range,
             st.out_of_range == 1 ? "" : "s");
  if (!quiet && st.left_out)
    fprintf (stderr, "viper-replay: --export=%s: %" G_GUINT64_FORMAT " clock-synchronisation sample%s left out: "
             "they hold the original clocks' readings, which the adjusted times replaced\n", spec, st.left_out,
             st.left_out == 1 ? "" : "s");
  if (!quiet && st.undefined_use)
    fprintf (stderr, "viper-replay: --export=%s: %" G_GUINT64_FORMAT " record%s written before the definition of "
             "the subset %s, which came more than the merge's limit of records later, or never\n", spec,
             st.undefined_use, st.undefined_use == 1 ? "" : "s", st.undefined_use == 1 ? "it uses" : "they use");
  if (!app->export_stats)
    app->export_stats = g_string_new (NULL);
  g_string_append_printf (app->export_stats, "export %s shift: %s\nexport %s clamped: %" G_GUINT64_FORMAT "\n",
                          spec, shift, spec, st.clamped);
  if (st.undefined_use)
    g_string_append_printf (app->export_stats, "export %s undefined: %" G_GUINT64_FORMAT "\n", spec, st.undefined_use);
  if (st.left_out)
    g_string_append_printf (app->export_stats, "export %s left out: %" G_GUINT64_FORMAT "\n", spec, st.left_out);
}

void
replay_print_stats (App *app, double seconds, GString *out)
{
  ViperCounts c;
  viper_run_counts (app->run, &c);
  if (app->model)
    c.inconsistent = app->model->inconsistent;
  g_string_append_printf (out, "read: %" G_GUINT64_FORMAT "\n", c.read);
  g_string_append_printf (out, "transferred: %" G_GUINT64_FORMAT "\n", c.transferred);
  g_string_append_printf (out, "pending: %" G_GUINT64_FORMAT "\n", c.pending);
  g_string_append_printf (out, "rejected: %" G_GUINT64_FORMAT "\n", c.rejected);
  g_string_append_printf (out, "ignored: %" G_GUINT64_FORMAT "\n", c.ignored);
  g_string_append_printf (out, "inconsistent: %" G_GUINT64_FORMAT "\n", c.inconsistent);
  GArray *procs = viper_run_procs (app->run);
  for (guint i = 0; i < procs->len; i++)
    {
      gint64 p = g_array_index (procs, gint64, i);
      g_string_append_printf (out, "proc %" G_GINT64_FORMAT ": %" G_GUINT64_FORMAT "\n", p, viper_run_proc_count (app->run, p));
    }
  g_array_unref (procs);
  double clock = viper_run_clock (app->run);
  char buf[32];
  g_string_append_printf (out, "clock: %s\n", isfinite (clock) ? viper_format_double (clock, buf) : "none");
  if (app->clock_sync)
    {
      g_string_append_printf (out, "violations repaired: %" G_GUINT64_FORMAT "\n",
                              viper_clock_sync_violations_repaired (app->clock_sync));
      g_string_append_printf (out, "clock seconds: %.3f\n", app->clock_seconds);
      g_string_append_printf (out, "clock bytes: %" G_GSIZE_FORMAT "\n", viper_clock_sync_bytes (app->clock_sync));
      if (viper_clock_sync_samples_pending (app->clock_sync))
        g_string_append_printf (out, "clock samples pending: %" G_GUINT64_FORMAT "\n",
                                viper_clock_sync_samples_pending (app->clock_sync));
      if (viper_clock_sync_kept (app->clock_sync))
        g_string_append_printf (out, "clock kept: %" G_GSIZE_FORMAT " bytes of trams in memory (bound %" G_GSIZE_FORMAT ")\n",
                                viper_clock_sync_kept_bytes (app->clock_sync), viper_clock_sync_keep_limit (app->clock_sync));
      else
        g_string_append_printf (out, "clock kept: none, the files were read again (bound %" G_GSIZE_FORMAT "%s)\n",
                                viper_clock_sync_keep_limit (app->clock_sync),
                                viper_clock_sync_keep_hit_bound (app->clock_sync) ? " hit" : "");
    }
  g_string_append_printf (out, "seconds: %.3f\n", seconds);
  g_string_append_printf (out, "lines/s: %.0f\n", seconds > 0 ? (double) c.read / seconds : 0.0);
  /* what the tram pool holds from the system now and held at most: a burst
   * of pending trams that drained must have given its memory back */
  g_string_append_printf (out, "pool bytes: %" G_GSIZE_FORMAT "\n", viper_tram_pool_bytes_reserved (app->pool));
  g_string_append_printf (out, "pool bytes peak: %" G_GSIZE_FORMAT "\n",
                          viper_tram_pool_bytes_reserved_peak (app->pool));
  if (app->export_stats)
    g_string_append (out, app->export_stats->str);
}

/* Two outputs on one file: the later would replace the earlier (or cut
 * into it), so one of them would be lost while the exit status says all is
 * well; an output on an input file would replace the trace or setup read.  The message naming both options, or NULL when every output has a
 * file of its own.  Standard output (or a terminal) may take several
 * outputs, one after the other, but not two of those written during the
 * replay (--run-out, --export): their lines would mix. */
char *
replay_outputs_clash (const Options *o)
{
  GPtrArray *opt = g_ptr_array_new_with_free_func (g_free), *path = g_ptr_array_new_with_free_func (g_free);
  guint n_live = 0;   /* the first n_live outputs are written during the replay */
  if (o->run_out)
    {
      g_ptr_array_add (opt, g_strdup_printf ("--run-out=%s", o->run_out));
      g_ptr_array_add (path, g_strdup (o->run_out));
    }
  for (char **x = o->exports; x && *x; x++)
    {
      char *xformat = NULL, *xfile = NULL;
      if (viper_export_parse_spec (*x, &xformat, &xfile, NULL))
        {
          g_ptr_array_add (opt, g_strdup_printf ("--export=%s", *x));
          g_ptr_array_add (path, g_steal_pointer (&xfile));
        }
      g_free (xformat);
      g_free (xfile);
    }
  n_live = path->len;
  if (o->state_out)
    {
      g_ptr_array_add (opt, g_strdup_printf ("--state-out=%s", o->state_out));
      g_ptr_array_add (path, g_strdup (o->state_out));
    }
  for (char **r = o->render; r && *r; r++)
    {
      g_ptr_array_add (opt, g_strdup_printf ("--render=%s", *r));
      g_ptr_array_add (path, g_strdup (strchr (*r, ':') + 1));
    }
  char *msg = NULL;
  /* an output onto one of the inputs would replace the trace (or setup)
   * being read: refused like two outputs on one file */
  for (guint i = 0; !msg && i < path->len; i++)
    {
      for (char **t = o->traces; !msg && t && *t; t++)
        if (!g_str_equal (*t, "-") && viper_outfile_compare (path->pdata[i], *t) == VIPER_OUT_SAME_FILE)
          msg = g_strdup_printf ("%s would replace the trace %s it reads; give the output a file of its own",
                                 (char *) opt->pdata[i], *t);
      if (!msg && o->setup && viper_outfile_compare (path->pdata[i], o->setup) == VIPER_OUT_SAME_FILE)
        msg = g_strdup_printf ("%s would replace the setup file %s it reads; give the output a file of its own",
                               (char *) opt->pdata[i], o->setup);
    }
  for (guint i = 0; !msg && i < path->len; i++)
    for (guint j = i + 1; !msg && j < path->len; j++)
      {
        ViperOutSame same = viper_outfile_compare (path->pdata[i], path->pdata[j]);
        if (same == VIPER_OUT_SAME_FILE)
          msg = g_strdup_printf ("%s and %s write the same file; give each output a file of its own",
                                 (char *) opt->pdata[i], (char *) opt->pdata[j]);
        else if (same == VIPER_OUT_SAME_STREAM && j < n_live)
          msg = g_strdup_printf ("%s and %s would both write to %s during the replay, their lines mixed; "
                                 "give one of them a file", (char *) opt->pdata[i], (char *) opt->pdata[j],
                                 g_str_equal (path->pdata[i], "-") ? "standard output" : (char *) path->pdata[i]);
      }
  g_ptr_array_unref (opt);
  g_ptr_array_unref (path);
  return msg;
}

/* --render's image format: the file's extension; "-" (standard output,
 * spec picl.md section 5) is PNG. */
int
replay_render_format (const char *path)
{
  return g_str_equal (path, "-") ? 0 : viper_view_image_format (path);
}
