/* viper-app-main.c - viper's start-up: the options, the demo trace, the
 * window and the first session (gui/viper-app.c has the rest). */
#include "viper-app-private.h"
#include "core/options.h"
#include "core/stdin-keep.h"

static App app;

/* A pipe into viper is kept up to this many bytes (a temporary file) for the
 * timeline and Reset; past it the replay goes on, but only once. */
#define STDIN_KEEP_BYTES (G_GUINT64_CONSTANT (2) << 30)

/* ---- start-up ------------------------------------------------------------------------------ */

/* The bundled Farm demo: installed data first, then the source tree. */
static char *
find_demo (const char *sub, const char *name)
{
  char *p = g_build_filename (VIPER_DATA_DIR, name, NULL);
  if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
    return p;
  g_free (p);
  p = g_build_filename (VIPER_SOURCE_DIR, sub, name, NULL);
  if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
    return p;
  g_free (p);
  return NULL;
}

static void
on_activate (GtkApplication *gapp, gpointer data)
{
  App *a = data;
  if (a->window)
    {
      gtk_window_present (GTK_WINDOW (a->window));
      return;
    }
  viper_app_add_actions (a, G_ACTION_MAP (gapp));
  const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.go", { "space", NULL } },
    { "app.step", { "Right", "s", NULL } },
    { "app.breakpoint", { "b", NULL } },
    { "app.reset", { "r", NULL } },
    { "app.open", { "<Control>o", NULL } },
    { "app.listen", { "<Control>l", NULL } },
    { "app.export", { "<Control>e", NULL } },
    { "app.export-trace", { "<Shift><Control>e", NULL } },
    { "app.view-setup", { "<Shift><Control>o", NULL } },
    { "app.lights-freeze", { "<Shift>f", NULL } },
    { "app.lights-range", { "i", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "app.status", { "F9", "<Control>i", NULL } },
    { "app.dock-status", { "<Shift>F9", NULL } },
    { "app.settings", { "<Control>comma", NULL } },
    { "app.shortcuts", { "<Control>question", "<Control>F1", NULL } },
    { "app.help", { "F1", NULL } },
    { "app.show-animation", { "<Alt>1", NULL } },
    { "app.show-spacetime", { "<Alt>2", NULL } },
    { "app.show-variables", { "<Alt>3", NULL } },
    { "app.show-program", { "<Alt>4", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (gapp, accels[i].action, accels[i].accels);
  viper_app_build_window (a);
  viper_switchnet_panel_add_actions (a->swp, gapp);
  viper_playback_install (a->pb, gapp, GTK_WINDOW (a->window), a->debug_dir);
  viper_view_widget_add_actions (VIPER_VIEW_WIDGET (a->views[VIPER_VIEW_SPACETIME]), gapp);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_widget_set_breakpoint (VIPER_VIEW_WIDGET (a->views[k]), a->breakpoint);
  gtk_widget_show_all (a->window);
  viper_app_restore_layout (a);
  viper_app_restart_timer (a);

  char *demo_trace = NULL, *demo_setup = NULL;
  if (a->demo)
    {
      demo_trace = find_demo ("traces", "farm.trc");
      demo_setup = find_demo ("setup", "farm.setup");
      if (!demo_trace)
        g_printerr ("viper: the Farm demo trace is not installed; use Open\n");
      else
        {
          g_strfreev (a->traces);
          a->traces = g_new0 (char *, 2);
          a->traces[0] = g_strdup (demo_trace);
          if (!a->setup)
            a->setup = g_strdup (demo_setup);
        }
    }
  if (a->traces && !a->listen && !a->paradigm && !a->setup && !a->demo)
    {
      /* a double-clicked file: the content says the paradigm, the stem the setup */
      viper_app_open_files (a->traces, NULL, a);
      if (a->s && (!isnan (a->breakpoint) || a->has_bp_tram))
        viper_scheduler_go (a->s->sched);
    }
  else if (a->traces || a->listen)
    {
      if (viper_app_open_session (a, a->paradigm, a->setup, a->traces, a->listen)
          && (a->listen || !isnan (a->breakpoint) || a->has_bp_tram))
        viper_scheduler_go (a->s->sched);
    }
  else
    viper_app_set_session (a, NULL);
  g_free (demo_trace);
  g_free (demo_setup);
}

int
main (int argc, char **argv)
{
  App *a = &app;
  a->decay = 0.5;
  a->breakpoint = NAN;
  a->interval_ms = 40;
  a->history = 0;
  char *decay_s = NULL, *bp_s = NULL, *hist_s = NULL, *clock_s = NULL, *tram_s = NULL, *tram_why = NULL;
  int interval = -1;
  gboolean version = FALSE;
  GOptionEntry entries[] = {
    { "setup", 's', 0, G_OPTION_ARG_FILENAME, &a->setup, "The paradigm's setup file (Mona Lisa: the Module Setup file)", "FILE" },
    { "view", 0, 0, G_OPTION_ARG_FILENAME, &a->view, "A view setup file for the views (Macrame: also its setup)", "FILE" },
    { "paradigm", 'p', 0, G_OPTION_ARG_STRING, &a->paradigm, "Paradigm of the trace (default: detected from the content; auto, picl, monalisa, macrame, switchnet, lights)", "NAME" },
    { "listen", 'l', 0, G_OPTION_ARG_STRING_ARRAY, &a->listen, "Accept trams on ADDR (tcp:HOST:PORT, tcp:PORT, unix:PATH) and play them live", "ADDR" },
    { "decay", 'd', 0, G_OPTION_ARG_STRING, &decay_s, "Clock-offset decay in [0,1] (default 0.5)", "X" },
    { "clock", 0, 0, G_OPTION_ARG_STRING, &clock_s, "Global time: decay (default), drift or clc (trace files only)", "MODE" },
    { "breakpoint", 'b', 0, G_OPTION_ARG_STRING, &bp_s, "Fast-forward until the execution clock would pass CLOCK", "CLOCK" },
    { "until-tram", 0, 0, G_OPTION_ARG_STRING, &tram_s, "Fast-forward until the tram PROC:SEQ (its module and sequence number) or FILE:LINE (the line it was read from) is transferred, as viper-replay --until-tram", "TRAM" },
    { "update-interval", 'u', 0, G_OPTION_ARG_INT, &interval, "Screen update interval in ms (default 40; 0 = after every tram)", "MS" },
    { "history", 0, 0, G_OPTION_ARG_STRING, &hist_s, "Keep INTERVAL trace time units of history for the space-time view (default 0 = all)", "INTERVAL" },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->traces, NULL, "[TRACE...]" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionContext *ctx = g_option_context_new ("- watch a parallel program's trace replayed");
  g_option_context_set_summary (ctx, "Without a trace or --listen, opens the bundled Farm demo (Mona Lisa).");
  g_option_context_set_description (ctx, "Exit status: 0 the window was closed (Quit), 1 no display could be opened,\n"
                                         "2 a usage error (an unknown option or a malformed value).");
  /* playback's --speed lives in the main group, so that --help lists it */
  a->pb = viper_playback_new ();
  g_option_context_set_main_group (ctx, viper_playback_option_group (a->pb));
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gtk_get_option_group (FALSE));
  GError *error = NULL;
  int rc = 0;
  if (!viper_options_parse (ctx, (const GOptionEntry *const[]) { entries, NULL }, &argc, &argv, &error))
    {
      g_printerr ("viper: %s\nTry 'viper --help' for more information.\n", error->message);
      g_error_free (error);
      g_option_context_free (ctx);
      return 2;
    }
  g_option_context_free (ctx);
  /* GTK's option group set the user's locale for everything: numbers stay C
   * (files are written and read with '.') */
  setlocale (LC_NUMERIC, "C");
  if (version)
    {
      printf ("viper %s\n", VIPER_VERSION);
      return 0;
    }
  /* a malformed value is a usage error (2) naming the option, as viper-replay's */
  const char *bad = NULL, *bad_value = NULL;
  char ibuf[24];
  if (decay_s && (!viper_app_parse_number (decay_s, &a->decay) || a->decay < 0 || a->decay > 1))
    bad = "--decay takes a number in [0,1]", bad_value = decay_s;
  else if (bp_s && !viper_app_parse_number (bp_s, &a->breakpoint))
    bad = "--breakpoint takes a number (a clock value)", bad_value = bp_s;
  else if (tram_s && bp_s)
    bad = "--until-tram and --breakpoint are one stop, a tram or a clock: give one of them";
  else if (tram_s && !viper_tram_ref_parse (tram_s, &a->bp_tram, &tram_why))
    bad = "--until-tram takes PROC:SEQ or FILE:LINE", bad_value = tram_why;
  else if (hist_s && (!viper_app_parse_number (hist_s, &a->history) || a->history < 0))
    bad = "--history takes a number >= 0", bad_value = hist_s;
  else if (interval < -1)
    {
      g_snprintf (ibuf, sizeof ibuf, "%d", interval);
      bad = "--update-interval takes a number of ms >= 0", bad_value = ibuf;
    }
  if (bad && !bad_value)
    g_printerr ("viper: %s\nTry 'viper --help' for more information.\n", bad);
  else if (bad && bad_value == tram_why)
    g_printerr ("viper: %s: %s\nTry 'viper --help' for more information.\n", bad, tram_why);
  else if (bad)
    g_printerr ("viper: %s, not '%s'\nTry 'viper --help' for more information.\n", bad, bad_value);
  a->has_bp_tram = tram_s && !bad;
  g_free (tram_why);
  for (char **l = a->listen; !bad && l && *l; l++)
    if (!viper_listen_address_parse (*l, NULL, NULL, NULL, &error))
      {
        g_printerr ("viper: --listen: %s\nTry 'viper --help' for more information.\n", error->message);
        g_clear_error (&error);
        bad = "--listen";
      }
  viper_paradigms_register_all ();
  if (!bad && a->paradigm && !g_str_equal (a->paradigm, "auto") && !viper_paradigm_lookup (a->paradigm))
    {
      g_printerr ("viper: --paradigm: unknown paradigm '%s' (auto or one of viper-replay --list-paradigms)\n"
                  "Try 'viper --help' for more information.\n", a->paradigm);
      bad = "--paradigm";
    }
  /* parsed into a: free them now, so that no early return leaks them */
  gboolean hist_given = hist_s != NULL;
  g_free (decay_s);
  g_free (bp_s);
  g_free (tram_s);
  g_free (hist_s);
  if (bad)
    {
      g_free (clock_s);
      viper_tram_ref_clear (&a->bp_tram);
      return 2;
    }
  if (interval >= 0)
    a->interval_ms = interval;
  ViperClockMode clock_mode = VIPER_CLOCK_DECAY;
  if (clock_s && !viper_clock_mode_parse (clock_s, &clock_mode))
    {
      g_printerr ("viper: --clock must be decay, drift or clc\n");
      g_free (clock_s);
      return 2;
    }
  viper_session_set_clock_mode (clock_mode);
  g_free (clock_s);
  /* a trace on standard input is read by the detection, the replay, the
   * timeline's index and every reset: it is read once and kept for them
   * (core/stdin-keep.h; VIPER_STDIN_KEEP: the spool's bound in bytes) */
  const char *keep_s = g_getenv ("VIPER_STDIN_KEEP");
  guint64 keep = keep_s && *keep_s ? g_ascii_strtoull (keep_s, NULL, 10) : STDIN_KEEP_BYTES;
  viper_stdin_keep (keep ? keep : 1);
  /* setup files among the files (a desktop's %F): the setup, not a trace */
  for (guint i = 0; a->traces && a->traces[i];)
    if (!a->setup && viper_is_setup_file (a->traces[i]))
      {
        a->setup = a->traces[i];
        memmove (a->traces + i, a->traces + i + 1, (g_strv_length (a->traces + i + 1) + 1) * sizeof (char *));
      }
    else
      i++;
  if (a->traces && !a->traces[0])
    g_clear_pointer (&a->traces, g_strfreev);
  a->demo = !a->traces && !a->listen;
  if (a->demo && !a->paradigm)
    a->paradigm = g_strdup ("monalisa");
  const char *dbg = g_getenv ("VIPER_DEBUG_DIR");
  a->debug_dir = dbg && *dbg ? g_strdup (dbg) : NULL;
  a->no_layout_dump = g_strcmp0 (g_getenv ("VIPER_DEBUG_LAYOUT"), "0") == 0;
  a->areas = g_array_new (FALSE, FALSE, sizeof (ViperArea));
  a->settings = viper_settings_load ();
  if (interval < 0)
    a->interval_ms = MAX (0, viper_settings_get_int (a->settings, "replay", "update-interval", a->interval_ms));
  if (!hist_given)
    a->history = MAX (0.0, viper_settings_get_double (a->settings, "replay", "history", a->history));
  a->open_folder = viper_settings_get_string (a->settings, "folders", "open");
  a->setup_folder = viper_settings_get_string (a->settings, "folders", "setup");
  a->export_folder = viper_settings_get_string (a->settings, "folders", "export");
  if (!gtk_init_check (NULL, NULL))
    {
      g_printerr ("viper: cannot open a display\n");
      return 1;
    }
  g_set_application_name ("Viper");
  a->gapp = gtk_application_new ("org.viper.Viper", G_APPLICATION_NON_UNIQUE);
  g_signal_connect (a->gapp, "activate", G_CALLBACK (on_activate), a);
  char *args[] = { argv[0], NULL };
  rc = g_application_run (G_APPLICATION (a->gapp), 1, args);
  viper_ticker_free (a->ticker);
  a->ticker = NULL;
  /* the widgets are gone with the window: free the pipeline alone */
  viper_playback_set_session (a->pb, NULL);
  viper_session_free (a->s);
  a->s = NULL;
  viper_playback_free (a->pb);
  viper_view_setup_ctl_free (a->vsc);
  viper_switchnet_panel_free (a->swp);
  g_object_unref (a->gapp);
  g_array_unref (a->areas);
  g_free (a->paradigm);
  g_free (a->setup);
  g_free (a->view);
  g_strfreev (a->listen);
  g_strfreev (a->traces);
  g_free (a->debug_dir);
  g_free (a->last_layout);
  viper_infobar_free (a->infobar);
  viper_inspect_free (a->inspect);
  g_clear_object (&a->recent_menu);
  g_clear_object (&a->paradigm_menu);
  viper_settings_free (a->settings);
  g_free (a->open_folder);
  g_free (a->setup_folder);
  g_free (a->export_folder);
  viper_tram_ref_clear (&a->bp_tram);
  return rc;
}
