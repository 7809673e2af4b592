/* viper-replay - headless replay of a trace (the CLI twin of the viper GUI).
 *
 * Reads trams from files, standard input and listening sockets, rebuilds
 * the consistent run with the paradigm's profiles, replays it into the
 * paradigm's model, and writes the outputs of the spec (--run-out,
 * --state-out, --stats).  Everything is done by the core scheduler, the same
 * loop the GUI uses, so both replay identically.
 *
 * Exit status: 0 stop point or end reached with nothing pending; 1 I/O error
 * or bad input under --strict; 2 usage error; 3 end reached with trams pending.
 */
#include "replay-app.h"
#include "core/tramparse.h"

static void
diag_sink (ViperDiagKind kind, const char *message, gpointer data)
{
  App *app = data;
  viper_progress_clear (app->progress);
  switch (kind)
    {
    case VIPER_DIAG_BAD_INPUT:
      fprintf (stderr, "%s\n", message);
      break;
    case VIPER_DIAG_WARNING:
      if (!app->opt.quiet)
        fprintf (stderr, "viper-replay: warning: %s\n", message);
      break;
    case VIPER_DIAG_CONNECTION:
      /* a live monitor says who connected and when they left (with how
       * many lines): by default, as the listening address; -q silences it */
      if (!app->opt.quiet)
        fprintf (stderr, "viper-replay: %s\n", message);
      break;
    default:
      break;
    }
}

static gboolean
parse_double_arg (const char *name, const char *text, double *out, GError **error)
{
  switch (viper_parse_number (text, out))
    {
    case VIPER_NUMBER_OK:
      return TRUE;
    case VIPER_NUMBER_RANGE:
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: '%s' is out of range (a finite number "
                   "of magnitude below 1.8e308)", name, text);
      return FALSE;
    default:
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: '%s' is not a number", name, text);
      return FALSE;
    }
}

/* A count (--steps, the bounds): a decimal whole number from 0 to max, one
 * rule for all (GOption's own INT and INT64 would take "0x3", read "010" as
 * 8, and leave -1 to mean "not given"). */
static gboolean
parse_count (const char *name, const char *text, gint64 max, gint64 *out, GError **error)
{
  const char *p = text + (text[0] == '-');
  gboolean digits = p[0] != '\0';
  for (const char *q = p; *q; q++)
    digits = digits && g_ascii_isdigit (*q);
  gint64 v = 0;
  if (!digits)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: '%s' is not a decimal whole number", name,
                   text);
      return FALSE;
    }
  gboolean in_range = g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &v, NULL);
  if (text[0] == '-' && (!in_range || v < 0))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s must not be negative", name);
      return FALSE;
    }
  if (!in_range || v > max)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: '%s' is too large (at most %"
                   G_GINT64_FORMAT ")", name, text, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
on_signal (App *app, int sig)
{
  app->interrupted = TRUE;
  if (!app->signal)
    app->signal = sig;
  viper_scheduler_stop (app->sched);
  if (app->loop)
    g_main_loop_quit (app->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer data)
{
  return on_signal (data, SIGINT);
}

static gboolean
on_sigterm (gpointer data)
{
  return on_signal (data, SIGTERM);
}

static void
progress_figures (App *app, ViperProgressFigures *f)
{
  ViperCounts c;
  viper_run_counts (app->run, &c);
  f->read = c.read;
  f->transferred = c.transferred;
  f->pending = c.pending;
  f->bytes = 0;
  for (guint i = 0; i < viper_scheduler_n_sources (app->sched); i++)
    f->bytes += viper_scheduler_source (app->sched, i)->bytes_read;
}

void
replay_progress_update (App *app)
{
  if (!viper_progress_due (app->progress))
    return;             /* nothing to gather: counts and sources are read when a line is due */
  ViperProgressFigures f;
  progress_figures (app, &f);
  viper_progress_update (app->progress, &f);
}

/* Between batches of a file replay: Ctrl-C and SIGTERM are heard (their
 * sources are dispatched here) and the progress line moves. */
static void
replay_tick (ViperScheduler *s, gpointer data)
{
  (void) s;
  App *app = data;
  g_main_context_iteration (NULL, FALSE);
  replay_progress_update (app);
}

/* The inputs' size in bytes when every one is a regular file read once
 * (0: unknown, the progress line shows no percentage). */
static guint64
inputs_size (const App *app)
{
  if (app->opt.listen || app->clock_sync || !app->opt.traces)
    return 0;
  guint64 total = 0;
  for (char **t = app->opt.traces; *t; t++)
    {
      GStatBuf st;
      if (g_str_equal (*t, "-") || g_stat (*t, &st) != 0 || !S_ISREG (st.st_mode))
        return 0;
      total += (guint64) st.st_size;
    }
  return total;
}

/* Mona Lisa without its Module Setup file: a group is taken for a module,
 * so group primitives wait for ever (docs/paradigm-monalisa.md).  Said
 * after the trams pending, with the file the GUI would take for the trace
 * (core/detect.h) when there is one. */
static void
replay_setup_hint (const App *app)
{
  if (app->opt.setup || !g_str_equal (app->paradigm->name, "monalisa"))
    return;
  char *proposed = NULL;
  for (char **t = app->opt.traces; t && *t && !proposed; t++)
    if (!g_str_equal (*t, "-"))
      {
        proposed = viper_propose_setup (*t);
        if (proposed && !g_str_has_suffix (proposed, ".setup"))
          g_clear_pointer (&proposed, g_free);
      }
  fprintf (stderr, "viper-replay: hint: no setup file was given: without the Module Setup file's groups, a group "
           "primitive waits for a module with the group's id; give it with --setup=FILE%s%s%s\n",
           proposed ? " (" : "", proposed ? proposed : "", proposed ? " has the trace's name: viper would take it)" : "");
  g_free (proposed);
}

static int
usage_error (GOptionContext *ctx, const char *msg)
{
  (void) ctx;
  fprintf (stderr, "viper-replay: %s\nTry 'viper-replay --help' for more information.\n", msg);
  return EXIT_USAGE;
}

int
main (int argc, char **argv)
{
  App app;
  memset (&app, 0, sizeof app);
  gint64 seek_test = 0, seek_bench = 0;     /* --seek-test, --seek-bench (seek-test.c) */
  gint64 seek_every = 0;
  char *seek_test_s = NULL, *seek_bench_s = NULL, *seek_every_s = NULL;
  app.opt.decay = 0.5;
  app.opt.idle_exit = 1.0;
  app.opt.steps = G_MININT64;   /* not given */
  char *decay_s = NULL, *idle_s = NULL, *history_s = NULL, *clock_s = NULL, *conn_timeout_s = NULL;
  char *stuck_s = NULL, *until_tram_s = NULL, *steps_s = NULL;
  ViperTramRef until_tram = { 0 };
  gboolean has_until_tram = FALSE;
  app.opt.stuck_after = 10.0;
  ViperClockMode clock_mode = VIPER_CLOCK_DECAY;
  gint64 max_pending = VIPER_RUN_DEFAULT_MAX_PENDING, max_procs = VIPER_RUN_DEFAULT_MAX_PROCS;
  gint64 clock_memory = (gint64) VIPER_CLOCK_KEEP_DEFAULT;
  gint64 max_connections = 0, max_partial = 0, max_queued = 0;   /* when given */
  char *max_connections_s = NULL, *max_partial_s = NULL, *max_queued_s = NULL;
  char *max_pending_s = NULL, *max_procs_s = NULL, *clock_memory_s = NULL;

  GOptionEntry entries[] = {
    { "listen", 'l', 0, G_OPTION_ARG_STRING_ARRAY, &app.opt.listen,
      "Accept trams on ADDR: tcp:HOST:PORT, tcp:PORT or unix:PATH (default port 7405, host 127.0.0.1); repeatable", "ADDR" },
    { "idle-exit", 0, 0, G_OPTION_ARG_STRING, &idle_s,
      "With --listen: finish once every sender has closed and nothing arrived for SECONDS (default 1)", "SECONDS" },
    { "max-connections", 0, 0, G_OPTION_ARG_STRING, &max_connections_s,
      "With --listen: connections open at once (default 1024; more are closed with a warning; 0 = no cap)", "N" },
    { "stuck-after", 0, 0, G_OPTION_ARG_STRING, &stuck_s,
      "With --listen: warn when trams have pended for SECONDS with no progress, saying what they wait for (default 10; 0 = never)", "SECONDS" },
    { "conn-timeout", 0, 0, G_OPTION_ARG_STRING, &conn_timeout_s,
      "With --listen: close a connection silent for SECONDS (default 3600; 0 = never)", "SECONDS" },
    { "max-partial", 0, 0, G_OPTION_ARG_STRING, &max_partial_s,
      "With --listen: bytes that unfinished lines of all connections may hold together (default 67108864; 0 = no bound)", "BYTES" },
    { "max-queued", 0, 0, G_OPTION_ARG_STRING, &max_queued_s,
      "With --listen: trams received and not yet replayed; at the bound reading pauses (the senders wait) until half are replayed (default 1000000; 0 = no bound)", "N" },
    { "paradigm", 'p', 0, G_OPTION_ARG_STRING, &app.opt.paradigm, "Paradigm: picl (default), monalisa, macrame, switchnet, lights, or auto = from the content (see --list-paradigms)", "NAME" },
    { "setup", 's', 0, G_OPTION_ARG_FILENAME, &app.opt.setup, "The paradigm's setup file (Mona Lisa: the Module Setup file; Macrame, lights: a view setup; switchnet: a .swm model or .init file)", "FILE" },
    { "decay", 'd', 0, G_OPTION_ARG_STRING, &decay_s, "Clock-offset decay in [0,1] (default 0.5)", "X" },
    { "clock", 0, 0, G_OPTION_ARG_STRING, &clock_s,
      "Global time: decay (default, live), drift (estimate each clock's offset and drift first) or clc "
      "(drift, then the controlled logical clock); drift and clc read the trace files first and replay the "
      "trams kept in memory (see --clock-memory)", "MODE" },
    { "clock-memory", 0, 0, G_OPTION_ARG_STRING, &clock_memory_s,
      "With --clock=drift|clc: bytes the trams may take in memory between the analysis and the replay "
      "(default 536870912; past it, or with 0, the files are read again)", "BYTES" },
    { "until", 'u', 0, G_OPTION_ARG_STRING, &app.opt.until, "Stop at the trams whose adjusted time is at most CLOCK (whatever the line order)", "CLOCK" },
    { "until-tram", 0, 0, G_OPTION_ARG_STRING, &until_tram_s,
      "Stop right after the tram PROC:SEQ (its module and sequence number) or FILE:LINE (the line it was read "
      "from) is transferred; when the end comes first that is said, with the end's exit status", "TRAM" },
    { "steps", 'n', 0, G_OPTION_ARG_STRING, &steps_s, "Stop after N steps (trams that changed the state); 0 = at the start, nothing transferred", "N" },
    { "max-pending", 0, 0, G_OPTION_ARG_STRING, &max_pending_s,
      "Refuse (and report) trams that would wait once N are pending; 0 = no bound (default 10000000)", "N" },
    { "max-procs", 0, 0, G_OPTION_ARG_STRING, &max_procs_s,
      "Refuse (and report) lines of a new PROC once N are known; 0 = no bound (default 1000000)", "N" },
    { "run-out", 0, 0, G_OPTION_ARG_FILENAME, &app.opt.run_out, "Write the consistent run, with adjusted times, to FILE ('-' = stdout)", "FILE" },
    { "state-out", 0, 0, G_OPTION_ARG_FILENAME, &app.opt.state_out, "Write the state at the stop point as JSON to FILE ('-' = stdout)", "FILE" },
    { "history", 0, 0, G_OPTION_ARG_STRING, &history_s, "Keep the state history (for rendering the space-time view) for INTERVAL trace time units; 0 = all (default: none)", "INTERVAL" },
    { "render", 0, 0, G_OPTION_ARG_STRING_ARRAY, &app.opt.render,
      "Draw VIEW (animation, spacetime, variables, program) at the stop point to FILE (.png, .svg, .pdf); repeatable", "VIEW:FILE" },
    { "export", 0, 0, G_OPTION_ARG_STRING_ARRAY, &app.opt.exports,
      "Write the run as FORMAT (paragraph, paje, chrome) to FILE ('-' = stdout); repeatable", "FORMAT:FILE" },
    { "render-size", 0, 0, G_OPTION_ARG_STRING, &app.opt.render_size, "Size of rendered views (default 1024x768)", "WxH" },
    { "seek-test", 0, 0, G_OPTION_ARG_STRING, &seek_test_s,
      "Replay to the end, then seek (as the GUI does) to N points and compare each state with a replay from the start; exit 1 on a difference", "N" },
    { "seek-bench", 0, 0, G_OPTION_ARG_STRING, &seek_bench_s, "Replay to the end, then time N seeks to random points", "N" },
    { "seek-every", 0, 0, G_OPTION_ARG_STRING, &seek_every_s,
      "With --seek-test/--seek-bench: a model checkpoint every N trams at first (default 4096; the spacing doubles as 64 fill up)", "N" },
    { "stats", 0, 0, G_OPTION_ARG_NONE, &app.opt.stats, "Print counts, per-processor counts and throughput", NULL },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &app.opt.strict, "Stop at the first bad line (exit status 1)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &app.opt.quiet, "Do not print warnings (bad lines are still reported)", NULL },
    { "progress", 0, 0, G_OPTION_ARG_STRING, &app.opt.progress,
      "Show how far the replay got on standard error: auto (default: on a terminal, redrawn in place), always (a line every 2 s and one at the end) or never", "WHEN" },
    { "list-paradigms", 0, 0, G_OPTION_ARG_NONE, &app.opt.list_paradigms, "List the paradigms and exit", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &app.opt.version, "Print the version and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &app.opt.traces, NULL, "[TRACE...]" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  /* GLib's messages in the user's language and charset (“quotes” under a UTF-8
   * locale, not ?quotes?); numbers stay C: traces are written with '.' */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  /* an output whose reader went away (a FIFO, '| head') is a failed write:
   * reported with its path and exit status 1, not a silent death by SIGPIPE */
  signal (SIGPIPE, SIG_IGN);
  GOptionContext *ctx = g_option_context_new ("- replay a trace headless");
  g_option_context_set_summary (ctx,
    "Rebuilds the consistent run of a parallel program from its trams (PICL trace lines)\n"
    "read from files ('-' = standard input) and sockets, replays it into the paradigm's\n"
    "program-state model, and writes the run and the state.");
  g_option_context_set_description (ctx,
    "Exit status: 0 stop point or end reached with nothing pending; 1 I/O error or bad\n"
    "input under --strict; 2 usage error; 3 end reached with trams still pending\n"
    "(an --until-tram tram that never came is said, with the end's status);\n"
    "130 (143) interrupted by SIGINT (SIGTERM): the outputs hold the state reached.\n"
    "Bad lines are reported on standard error as FILE:LINE:COLUMN: reason.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  /* --help is ours, not GLib's: GLib writes it and exits 0 even when the
   * write failed (a full disk, a closed pipe) */
  gboolean help = FALSE;
  GOptionEntry help_entries[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show help options", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, help_entries, NULL);
  GError *error = NULL;
  if (!viper_options_parse (ctx, (const GOptionEntry *const[]) { entries, help_entries, NULL }, &argc, &argv, &error))
    {
      int rc = usage_error (ctx, error->message);
      g_error_free (error);
      g_option_context_free (ctx);
      return rc;
    }
  if (help)
    {
      char *text = g_option_context_get_help (ctx, TRUE, NULL);
      errno = 0;
      gboolean ok = fputs (text, stdout) != EOF && fflush (stdout) == 0 && !ferror (stdout);
      int err = errno ? errno : EIO;
      g_free (text);
      g_option_context_free (ctx);
      if (!ok)
        {
          fprintf (stderr, "viper-replay: --help: standard output: %s\n", g_strerror (err));
          return EXIT_IO;
        }
      return 0;
    }

  viper_paradigms_register_all ();
  int rc = 0;
  if (app.opt.version)
    {
      printf ("viper-replay %s\n", VIPER_VERSION);
      if (!viper_stdout_flush (&error))
        {
          fprintf (stderr, "viper-replay: --version: %s\n", error->message);
          g_clear_error (&error);
          rc = EXIT_IO;
        }
      goto out_ctx;
    }
  if (app.opt.list_paradigms)
    {
      guint n;
      const ViperParadigm *const *list = viper_paradigm_list (&n);
      for (guint i = 0; i < n; i++)
        printf ("%-10s %s\n", list[i]->name, list[i]->description ? list[i]->description : "");
      if (!viper_stdout_flush (&error))
        {
          fprintf (stderr, "viper-replay: --list-paradigms: %s\n", error->message);
          g_clear_error (&error);
          rc = EXIT_IO;
        }
      goto out_ctx;
    }
  /* the counts: one rule for all (parse_count), a value given is given */
  const struct { const char *name; const char *text; gint64 max; gint64 *out; } counts[] = {
    { "--max-pending", max_pending_s, G_MAXINT64, &max_pending },
    { "--max-procs", max_procs_s, G_MAXINT64, &max_procs },
    { "--clock-memory", clock_memory_s, G_MAXINT64, &clock_memory },
    { "--max-connections", max_connections_s, G_MAXUINT, &max_connections },
    { "--max-partial", max_partial_s, G_MAXINT64, &max_partial },
    { "--max-queued", max_queued_s, G_MAXINT64, &max_queued },
    { "--steps", steps_s, G_MAXINT64, &app.opt.steps },
    { "--seek-test", seek_test_s, G_MAXINT, &seek_test },
    { "--seek-bench", seek_bench_s, G_MAXINT, &seek_bench },
    { "--seek-every", seek_every_s, G_MAXINT64, &seek_every },
  };
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    if (counts[i].text && !parse_count (counts[i].name, counts[i].text, counts[i].max, counts[i].out, &error))
      {
        rc = usage_error (ctx, error->message);
        goto out_ctx;
      }
  if (decay_s && (!parse_double_arg ("--decay", decay_s, &app.opt.decay, &error) || app.opt.decay < 0 || app.opt.decay > 1))
    {
      rc = usage_error (ctx, error ? error->message : "--decay must be between 0 and 1");
      goto out_ctx;
    }
  if (app.opt.progress && !g_str_equal (app.opt.progress, "auto") && !g_str_equal (app.opt.progress, "always")
      && !g_str_equal (app.opt.progress, "never"))
    {
      rc = usage_error (ctx, "--progress must be auto, always or never");
      goto out_ctx;
    }
  if (clock_s && !viper_clock_mode_parse (clock_s, &clock_mode))
    {
      rc = usage_error (ctx, "--clock must be decay, drift or clc");
      goto out_ctx;
    }
  if (app.opt.traces)
    {
      /* a file named twice is read once (as two channels its lines would be refused, or duplicates) */
      GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
      char **unique = viper_traces_unique ((const char *const *) app.opt.traces, notes);
      g_strfreev (app.opt.traces);
      app.opt.traces = unique;
      for (guint i = 0; i < notes->len && !app.opt.quiet; i++)
        fprintf (stderr, "viper-replay: warning: %s\n", (const char *) g_ptr_array_index (notes, i));
      g_ptr_array_unref (notes);
    }
  gboolean reads_stdin = FALSE;
  for (char **t = app.opt.traces; t && *t; t++)
    {
      if (reads_stdin && g_str_equal (*t, "-"))
        {
          rc = usage_error (ctx, "standard input ('-') can be named once");
          goto out_ctx;
        }
      reads_stdin |= g_str_equal (*t, "-");
    }
  if (clock_mode != VIPER_CLOCK_DECAY && (app.opt.listen || !app.opt.traces || reads_stdin))
    {
      rc = usage_error (ctx, "--clock=drift and --clock=clc need trace files, not standard input or --listen "
                             "(they read the whole trace first)");
      goto out_ctx;
    }
  for (char **t = app.opt.traces; clock_mode != VIPER_CLOCK_DECAY && t && *t; t++)
    {
      /* past --clock-memory the trace is read a second time: a pipe or a
       * FIFO would give nothing (or wait for ever) the second time */
      GStatBuf st;
      if (g_stat (*t, &st) == 0 && !S_ISREG (st.st_mode))
        {
          char *m = g_strdup_printf ("--clock=drift and --clock=clc need regular trace files (they may read them "
                                     "twice): %s is not one", *t);
          rc = usage_error (ctx, m);
          g_free (m);
          goto out_ctx;
        }
    }
  /* options that only act with others: say so rather than ignore them */
  if (!app.opt.quiet)
    {
      if (clock_mode == VIPER_CLOCK_DECAY && clock_memory_s)
        fprintf (stderr, "viper-replay: warning: --clock-memory has no effect without --clock=drift or --clock=clc\n");
      if (!app.opt.listen)
        {
          const char *live[] = { idle_s ? "--idle-exit" : NULL, stuck_s ? "--stuck-after" : NULL,
                                 conn_timeout_s ? "--conn-timeout" : NULL,
                                 max_connections_s ? "--max-connections" : NULL,
                                 max_partial_s ? "--max-partial" : NULL, max_queued_s ? "--max-queued" : NULL };
          for (guint i = 0; i < G_N_ELEMENTS (live); i++)
            if (live[i])
              fprintf (stderr, "viper-replay: warning: %s has no effect without --listen\n", live[i]);
        }
    }
  if (idle_s && (!parse_double_arg ("--idle-exit", idle_s, &app.opt.idle_exit, &error) || app.opt.idle_exit < 0))
    {
      rc = usage_error (ctx, error ? error->message : "--idle-exit must not be negative");
      goto out_ctx;
    }
  if (stuck_s && (!parse_double_arg ("--stuck-after", stuck_s, &app.opt.stuck_after, &error)
                  || app.opt.stuck_after < 0))
    {
      rc = usage_error (ctx, error ? error->message : "--stuck-after must not be negative");
      goto out_ctx;
    }
  if (history_s && (!parse_double_arg ("--history", history_s, &app.opt.history, &error) || app.opt.history < 0))
    {
      rc = usage_error (ctx, error ? error->message : "--history must not be negative");
      goto out_ctx;
    }
  double until = NAN;
  if (app.opt.until && !parse_double_arg ("--until", app.opt.until, &until, &error))
    {
      rc = usage_error (ctx, error->message);
      goto out_ctx;
    }
  if (until_tram_s)
    {
      char *why = NULL;
      if (!viper_tram_ref_parse (until_tram_s, &until_tram, &why))
        {
          char *msg = g_strdup_printf ("--until-tram: %s", why);
          rc = usage_error (ctx, msg);
          g_free (msg);
          g_free (why);
          goto out_ctx;
        }
      has_until_tram = TRUE;
    }
  ViperListenLimits limits = VIPER_LISTEN_LIMITS_DEFAULT;
  if (conn_timeout_s)
    {
      double v;
      if (!parse_double_arg ("--conn-timeout", conn_timeout_s, &v, &error) || v < 0 || v > 86400.0 * 365)
        {
          rc = usage_error (ctx, error ? error->message : "--conn-timeout takes SECONDS >= 0");
          goto out_ctx;
        }
      limits.conn_timeout_ms = (guint) (v * 1000 + 0.5);
      if (v > 0 && limits.conn_timeout_ms == 0)
        limits.conn_timeout_ms = 1;
    }
  if (max_connections_s)
    limits.max_connections = (guint) max_connections;
  if (max_partial_s)
    limits.max_partial_bytes = (gsize) max_partial;
  if (max_queued_s)
    limits.max_queued = (guint64) max_queued;
  int render_w = 1024, render_h = 768;
  if (app.opt.render_size && (sscanf (app.opt.render_size, "%dx%d", &render_w, &render_h) != 2 || render_w < 16
                              || render_h < 16 || render_w > 20000 || render_h > 20000))
    {
      rc = usage_error (ctx, "--render-size must be WIDTHxHEIGHT, each 16..20000");
      goto out_ctx;
    }
  for (char **r = app.opt.render; r && *r; r++)
    {
      const char *colon = strchr (*r, ':');
      static const char *const views[] = { "animation", "spacetime", "variables", "program" };
      gboolean known = FALSE;
      for (guint i = 0; colon && i < G_N_ELEMENTS (views); i++)
        known |= strlen (views[i]) == (gsize) (colon - *r) && strncmp (views[i], *r, (gsize) (colon - *r)) == 0;
      if (!colon || !known || !colon[1])
        {
          char *msg = g_strdup_printf ("--render=%s: expected VIEW:FILE with VIEW one of animation, spacetime, "
                                       "variables, program", *r);
          rc = usage_error (ctx, msg);
          g_free (msg);
          goto out_ctx;
        }
      if (replay_render_format (colon + 1) < 0)
        {
          char *msg = g_strdup_printf ("--render=%s: unknown image format (use .png, .svg or .pdf)", *r);
          rc = usage_error (ctx, msg);
          g_free (msg);
          goto out_ctx;
        }
    }
  if (!app.opt.traces && !app.opt.listen)
    {
      rc = usage_error (ctx, "no trace given (a file, '-' for standard input, or --listen=ADDR)");
      goto out_ctx;
    }
  /* a malformed address is a usage error (2); one that cannot be bound is 1 */
  for (char **l = app.opt.listen; l && *l; l++)
    if (!viper_listen_address_parse (*l, NULL, NULL, NULL, &error))
      {
        g_prefix_error (&error, "--listen: ");
        rc = usage_error (ctx, error->message);
        goto out_ctx;
      }
  const char *pname = app.opt.paradigm ? app.opt.paradigm : "picl";
  if (g_str_equal (pname, "auto"))
    {
      /* from the content (core/detect.c, as the GUI does); picl when nothing decides */
      ViperDetect det;
      viper_paradigm_detect ((const char *const *) app.opt.traces, app.opt.setup, &det);
      pname = det.paradigm ? det.paradigm->name : "picl";
      if (!app.opt.quiet)
        fprintf (stderr, "viper-replay: paradigm %s: %s\n", pname, det.reason);
      viper_detect_clear (&det);
    }
  app.paradigm = viper_paradigm_lookup (pname);
  if (!app.paradigm)
    {
      char *msg = g_strdup_printf ("unknown paradigm '%s' (see --list-paradigms)", pname);
      rc = usage_error (ctx, msg);
      g_free (msg);
      goto out_ctx;
    }
  for (char **x = app.opt.exports; x && *x; x++)
    {
      char *xformat = NULL, *xfile = NULL;
      gboolean ok = viper_export_parse_spec (*x, &xformat, &xfile, &error)
                    && viper_export_supported (app.paradigm, xformat, &error);
      g_free (xformat);
      g_free (xfile);
      if (!ok)
        {
          rc = usage_error (ctx, error->message);
          goto out_ctx;
        }
    }
  char *clash = replay_outputs_clash (&app.opt);
  if (clash)
    {
      rc = usage_error (ctx, clash);
      g_free (clash);
      goto out_ctx;
    }
  if (!app.opt.setup && app.paradigm->setup_required)
    {
      /* every tram would name a switch of no model: one usage error, not a
       * warning per tram */
      char *msg = g_strdup_printf ("paradigm '%s' needs --setup=FILE: %s", pname, app.paradigm->setup_required);
      rc = usage_error (ctx, msg);
      g_free (msg);
      goto out_ctx;
    }
  if (app.opt.setup)
    {
      if (!app.paradigm->setup_load)
        {
          char *msg = g_strdup_printf ("paradigm '%s' takes no setup file", pname);
          rc = usage_error (ctx, msg);
          g_free (msg);
          goto out_ctx;
        }
      /* "--setup: FILE: reason", as for every other file (the loaders say
       * GLib's "Failed to open file ..." without the option) */
      GStatBuf sst;
      int sfd = g_open (app.opt.setup, O_RDONLY | O_CLOEXEC, 0);
      int serr = sfd < 0 ? errno : fstat (sfd, &sst) != 0 ? errno : S_ISDIR (sst.st_mode) ? EISDIR : 0;
      if (sfd >= 0)
        close (sfd);
      if (serr)
        {
          fprintf (stderr, "viper-replay: --setup: %s: %s\n", app.opt.setup, g_strerror (serr));
          rc = EXIT_IO;
          goto out_ctx;
        }
      app.setup = app.paradigm->setup_load (app.opt.setup, &error);
      if (!app.setup)
        {
          fprintf (stderr, "viper-replay: --setup: %s\n", error->message);
          rc = EXIT_IO;
          goto out_ctx;
        }
    }

  if (seek_test < 0 || seek_bench < 0 || seek_every < 0 || ((seek_test || seek_bench) && (app.opt.listen || !app.opt.traces)))
    {
      rc = usage_error (ctx, "--seek-test and --seek-bench take a count and trace files (not --listen)");
      goto out_ctx;
    }

  app.pool = viper_tram_pool_new ();
  app.channels = viper_channels_new ();
  app.line = g_string_new (NULL);
  viper_diag_init (&app.diag, diag_sink, &app);
  app.diag.strict = app.opt.strict;
  if (app.paradigm->model_new)
    {
      app.model = app.paradigm->model_new (app.paradigm, app.setup);
      app.model->diag = &app.diag;
      /* nothing headless reads the history unless asked (or a view is drawn) */
      viper_model_set_history (app.model, history_s ? app.opt.history : app.opt.render ? 0.0 : -1.0);
      /* no view redraws here */
      viper_damage_set_enabled (app.model->damage, FALSE);
    }
  app.run = viper_run_new (app.paradigm, app.model, app.pool, app.channels, &app.diag, app.opt.decay);
  viper_run_set_max_pending (app.run, (guint64) max_pending);
  viper_run_set_max_procs (app.run, (guint64) max_procs);
  app.sched = viper_scheduler_new (app.run, app.model, app.channels, &app.diag);
  if (clock_mode != VIPER_CLOCK_DECAY)
    {
      gint64 c0 = g_get_monotonic_time ();
      app.clock_sync = viper_clock_sync_analyse_keep (clock_mode, app.paradigm, app.setup,
                                                      (const char *const *) app.opt.traces, (gsize) clock_memory, &error);
      if (!app.clock_sync)
        {
          fprintf (stderr, "viper-replay: %s\n", error->message);
          rc = EXIT_IO;
          goto out;
        }
      if (viper_clock_sync_keep_hit_bound (app.clock_sync))
        fprintf (stderr, "viper-replay: --clock=%s: the trams take more than --clock-memory=%" G_GINT64_FORMAT
                 " bytes: the trace files are read again for the replay\n", viper_clock_mode_name (clock_mode),
                 clock_memory);
      if (viper_clock_sync_samples_unused (app.clock_sync) && !app.opt.quiet)
        fprintf (stderr, "viper-replay: --clock=%s: %" G_GUINT64_FORMAT " clock-synchronisation sample(s) not used, "
                 "the first: %s\n", viper_clock_mode_name (clock_mode),
                 viper_clock_sync_samples_unused (app.clock_sync), viper_clock_sync_first_unused (app.clock_sync));
      viper_clock_sync_install (app.clock_sync, app.run);
      app.clock_seconds = (double) (g_get_monotonic_time () - c0) / G_USEC_PER_SEC;
    }

  for (char **t = app.opt.traces; t && *t; t++)
    {
      /* drift and clc: the trams the analysis kept, else the file again */
      ViperTramSource *src = app.clock_sync ? viper_clock_sync_source_new (app.clock_sync, (guint) (t - app.opt.traces),
                                                                           app.pool, &app.diag, app.channels, &error)
                                            : viper_file_source_new (*t, app.pool, &app.diag, app.channels, &error);
      if (!src)
        {
          fprintf (stderr, "viper-replay: %s\n", error->message);
          rc = EXIT_IO;
          goto out;
        }
      viper_scheduler_add_source (app.sched, src);
    }
  for (char **l = app.opt.listen; l && *l; l++)
    {
      ViperTramSource *src = viper_listen_source_new (*l, app.pool, &app.diag, app.channels, &error);
      if (!src)
        {
          fprintf (stderr, "viper-replay: %s\n", error->message);
          rc = EXIT_IO;
          goto out;
        }
      viper_listen_source_set_limits (src, &limits);
      for (const char *const *a = viper_listen_source_addresses (src); !app.opt.quiet && *a; a++)
        fprintf (stderr, "viper-replay: listening on %s\n", *a);
      viper_scheduler_add_source (app.sched, src);
    }
  if (seek_test || seek_bench)
    {
      ViperSeekConf sc = { app.paradigm, app.setup, app.opt.traces, app.opt.decay, history_s ? app.opt.history : -1,
                           app.clock_sync, (guint64) max_pending, (guint64) max_procs, 0,
                           (guint64) seek_every };
      rc = viper_seek_test (&sc, (guint) (seek_test ? seek_test : seek_bench), seek_test > 0);
      goto out;
    }
  if (app.opt.run_out)
    {
      app.run_out = viper_outfile_open (app.opt.run_out, "viper-replay", &error);
      if (!app.run_out)
        {
          fprintf (stderr, "viper-replay: --run-out: %s\n", error->message);
          rc = EXIT_IO;
          goto out;
        }
      viper_scheduler_add_hook (app.sched, replay_run_out_hook, &app);
    }
  if (app.opt.exports)
    app.exporters = g_ptr_array_new ();
  for (char **x = app.opt.exports; x && *x; x++)
    {
      char *xformat = NULL, *xfile = NULL;
      viper_export_parse_spec (*x, &xformat, &xfile, NULL);
      ViperExporter *ex = viper_exporter_open (app.paradigm, app.model, xformat, xfile, &error);
      g_free (xformat);
      g_free (xfile);
      if (!ex)
        {
          fprintf (stderr, "viper-replay: --export=%s: %s\n", *x, error->message);
          rc = EXIT_IO;
          goto out;
        }
      g_ptr_array_add (app.exporters, ex);
      viper_scheduler_add_hook (app.sched, viper_exporter_hook, ex);
    }
  /* --state-out and --render are written at the stop point, but opened now:
   * a bad path is refused before the replay, as for --run-out */
  if (app.opt.state_out)
    {
      app.state_out = viper_outfile_open (app.opt.state_out, "viper-replay", &error);
      if (!app.state_out)
        {
          fprintf (stderr, "viper-replay: --state-out: %s\n", error->message);
          rc = EXIT_IO;
          goto out;
        }
    }
  if (app.opt.render && app.model)
    app.render_out = g_new0 (ViperOutFile *, g_strv_length (app.opt.render));
  for (guint i = 0; app.render_out && app.opt.render[i]; i++)
    {
      app.render_out[i] = viper_outfile_open (strchr (app.opt.render[i], ':') + 1, "viper-replay", &error);
      if (!app.render_out[i])
        {
          fprintf (stderr, "viper-replay: --render=%s: %s\n", app.opt.render[i], error->message);
          rc = EXIT_IO;
          goto out;
        }
    }
  /* --steps=0: the state before the first step, at the start, as the GUI
   * shows it before Go or Step: no tram passes a breakpoint at -infinity
   * (the step limit's 0 means "no limit") */
  viper_scheduler_set_breakpoint (app.sched, app.opt.steps == 0 ? -INFINITY : until);
  viper_scheduler_set_step_limit (app.sched, app.opt.steps > 0 ? (guint64) app.opt.steps : 0);
  if (has_until_tram && until_tram.file && !app.opt.listen)
    {
      /* a FILE that names none of the traces would run to the end and
       * then blame the input: said now */
      gboolean named = FALSE;
      for (char **t = app.opt.traces; t && *t && !named; t++)
        named = viper_tram_ref_names_trace (&until_tram, strcmp (*t, "-") == 0 ? "<stdin>" : *t);
      if (!named)
        {
          char *list = app.opt.traces ? g_strjoinv (", ", app.opt.traces) : g_strdup ("none");
          char *msg = g_strdup_printf ("--until-tram=%s: %s names none of the traces (%s); FILE is a trace as "
                                       "named, another path to it, or its base name", until_tram_s, until_tram.file, list);
          rc = usage_error (ctx, msg);
          g_free (msg);
          g_free (list);
          goto out;
        }
    }
  if (has_until_tram)
    viper_scheduler_set_tram_stop (app.sched, &until_tram);

  /* from here to the end of the replay: the inputs were opened without
   * blocking (a FIFO waits for its writer in the replay's poll, where the
   * signal is heard too) */
  guint sigint = g_unix_signal_add (SIGINT, on_sigint, &app);
  guint sigterm = g_unix_signal_add (SIGTERM, on_sigterm, &app);
  /* said once the signals are heard, as an output FIFO says it waits for a
   * reader (core/outfile.c), also with --quiet */
  for (guint i = 0; i < viper_scheduler_n_sources (app.sched); i++)
    {
      ViperTramSource *src = viper_scheduler_source (app.sched, i);
      if (viper_file_source_awaits_writer (src))
        fprintf (stderr, "viper-replay: waiting for a writer on FIFO %s\n", src->name);
    }
  const char *when = app.opt.progress ? app.opt.progress : "auto";
  gboolean tty = isatty (STDERR_FILENO);
  if (g_str_equal (when, "always") || (g_str_equal (when, "auto") && tty))
    app.progress = viper_progress_new (stderr, tty, inputs_size (&app));
  gint64 t0 = g_get_monotonic_time ();
  ViperStopReason why;
  viper_scheduler_go (app.sched);
  if (app.opt.listen)
    why = replay_run_live (&app);
  else
    {
      viper_scheduler_attach (app.sched, NULL);
      viper_scheduler_set_tick (app.sched, replay_tick, &app);
      why = viper_scheduler_run (app.sched);
    }
  double seconds = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
  g_source_remove (sigint);
  g_source_remove (sigterm);
  if (app.progress)
    {
      ViperProgressFigures f;
      progress_figures (&app, &f);
      viper_progress_finish (app.progress, &f);
      g_clear_pointer (&app.progress, viper_progress_free);
    }
  if (app.interrupted)
    {
      /* cut short: what follows is the state it reached */
      ViperCounts ic;
      viper_run_counts (app.run, &ic);
      fprintf (stderr, "viper-replay: interrupted by %s after %" G_GUINT64_FORMAT " tram%s read and %" G_GUINT64_FORMAT
               " transferred; the outputs hold the state reached\n", app.signal == SIGTERM ? "SIGTERM" : "SIGINT",
               ic.read, ic.read == 1 ? "" : "s", ic.transferred);
    }

  if (app.run_out && !viper_outfile_close (g_steal_pointer (&app.run_out), &error))
    {
      fprintf (stderr, "viper-replay: --run-out: %s\n", error->message);
      g_clear_error (&error);
      app.io_error = TRUE;
    }
  for (guint i = 0; app.exporters && i < app.exporters->len; i++)
    {
      ViperExporter *ex = app.exporters->pdata[i];
      gboolean failed = !viper_exporter_finish (ex, &error);
      if (failed)
        {
          fprintf (stderr, "viper-replay: --export=%s: %s\n", app.opt.exports[i], error->message);
          g_clear_error (&error);
          app.io_error = TRUE;
        }
      replay_report_export (&app, app.opt.exports[i], ex, failed);
      viper_exporter_close (g_steal_pointer (&app.exporters->pdata[i]), NULL);
    }

  if (app.state_out)
    {
      char *json = viper_state_to_json (app.run, app.model, TRUE);
      ViperOutFile *so = g_steal_pointer (&app.state_out);
      viper_outfile_write (so, json, strlen (json));
      if (!viper_outfile_close (so, &error))
        {
          fprintf (stderr, "viper-replay: --state-out: %s\n", error->message);
          g_clear_error (&error);
          app.io_error = TRUE;
        }
      g_free (json);
    }
  /* the views show what the GUI would at this stop: the breakpoint, and
   * the tram a tram stop stopped after */
  ViperTimeWindow window;
  viper_time_window_init (&window);
  if (isfinite (until))
    window.breakpoint = until;
  gint64 hit_proc, hit_seq;
  double hit_time;
  if (viper_scheduler_tram_stop_hit (app.sched, &hit_proc, &hit_seq, &hit_time))
    viper_time_window_mark_tram (&window, hit_proc, hit_seq, hit_time);
  for (guint i = 0; app.render_out && app.opt.render[i]; i++)
    {
      const char *const *r = (const char *const *) &app.opt.render[i];
      char *view = g_strndup (*r, (gsize) (strchr (*r, ':') - *r));
      if (!viper_view_render_to_outfile (view, app.model, app.run, &window, g_steal_pointer (&app.render_out[i]),
                                         replay_render_format (strchr (*r, ':') + 1), render_w, render_h, &error))
        {
          fprintf (stderr, "viper-replay: --render=%s: %s\n", *r, error->message);
          g_clear_error (&error);
          app.io_error = TRUE;
        }
      g_free (view);
    }
  if (app.opt.render && !app.model)
    fprintf (stderr, "viper-replay: paradigm '%s' has no model to draw\n", app.paradigm->name);
  if (app.opt.stats)
    {
      GString *st = g_string_new (NULL);
      replay_print_stats (&app, seconds, st);
      if (!viper_outfile_set_contents ("-", "viper-replay", st->str, st->len, &error))
        {
          fprintf (stderr, "viper-replay: --stats: %s\n", error->message);
          g_clear_error (&error);
          app.io_error = TRUE;
        }
      g_string_free (st, TRUE);
    }
  if (!viper_stdout_flush (&error))
    {
      fprintf (stderr, "viper-replay: %s\n", error->message);
      g_clear_error (&error);
      app.io_error = TRUE;
    }

  ViperCounts c;
  viper_run_counts (app.run, &c);
  /* A clock stop point is reached when no pending tram can still be at or
   * before it (spec section 5, exit 0), also when no tram past it was ready:
   * a receive past the stop whose send never comes does not make the stop a
   * failure.  The scheduler decides it at the end of the files (the GUI's
   * breakpoint and Go to clock get the same answer); a live session's idle
   * exit is decided here, so it asks the scheduler the same question. */
  if (!app.interrupted && why == VIPER_STOP_END && viper_scheduler_breakpoint_reached (app.sched))
    why = VIPER_STOP_BREAKPOINT;
  if (app.io_error)
    rc = EXIT_IO;
  else if (why == VIPER_STOP_STRICT)
    {
      fprintf (stderr, "viper-replay: stopped at the first bad line (--strict)\n");
      rc = EXIT_IO;
    }
  else if (has_until_tram && why == VIPER_STOP_END && !viper_scheduler_tram_stop_seen (app.sched))
    {
      /* the stop point is after a tram that never came: said, and the
       * status is the end's (spec/picl.md 5: 3 only with trams pending) */
      char *what = viper_tram_ref_describe (&until_tram);
      fprintf (stderr, "viper-replay: --until-tram=%s: the replay ended before %s was transferred (%s)\n",
               until_tram_s, what, c.pending ? "it may be among the trams pending" :
               "nothing is pending: the input has no such tram, or its line was rejected");
      g_free (what);
    }
  if (!app.io_error && why != VIPER_STOP_STRICT && (why == VIPER_STOP_END || why == VIPER_STOP_USER) && c.pending > 0
      && !(app.interrupted && !app.opt.listen))
    {
      /* a live session's trams that still wait may be what its user is
       * looking for: they are said when it is interrupted too (a file cut
       * short would list the partners it had not read yet) */
      GArray *stuck = viper_run_stuck (app.run);
      fprintf (stderr, "viper-replay: %" G_GUINT64_FORMAT " tram%s still pending %s:\n", c.pending,
               c.pending == 1 ? "" : "s", app.interrupted ? "where it was interrupted" : "at the end");
      for (guint i = 0; i < stuck->len; i++)
        {
          const ViperStuck *s = &g_array_index (stuck, ViperStuck, i);
          fprintf (stderr, "  proc %" G_GINT64_FORMAT ": %" G_GUINT64_FORMAT " %s for %s\n", s->proc, s->trams,
                   s->trams == 1 ? "tram waits" : "trams wait", s->waiting_for);
        }
      viper_stuck_array_free (stuck);
      replay_setup_hint (&app);
      rc = EXIT_PENDING;
    }
  if (!app.io_error && why == VIPER_STOP_END && c.pending == 0 && !app.interrupted && !app.opt.quiet)
    {
      /* nothing pending, yet the program did not end: a hung program cut
       * short shows here, not only as "running" (trial 2, finding 6) */
      char *blocked = viper_model_all_blocked (app.model);
      if (blocked)
        fprintf (stderr, "viper-replay: warning: %s\n", blocked);
      g_free (blocked);
    }
  if (app.interrupted && !app.io_error && why != VIPER_STOP_STRICT)
    rc = 128 + app.signal;
out:
  viper_outfile_abort (app.run_out);
  viper_outfile_abort (app.state_out);
  for (guint i = 0; app.render_out && app.opt.render[i]; i++)
    viper_outfile_abort (app.render_out[i]);
  g_free (app.render_out);
  for (guint i = 0; app.exporters && i < app.exporters->len; i++)
    viper_exporter_close (app.exporters->pdata[i], NULL);
  if (app.exporters)
    g_ptr_array_unref (app.exporters);
  viper_scheduler_free (app.sched);
  viper_run_free (app.run);
  viper_clock_sync_free (app.clock_sync);
  if (app.model)
    viper_model_free (app.model);
  if (app.setup && app.paradigm->setup_free)
    app.paradigm->setup_free (app.setup);
  viper_channels_free (app.channels);
  viper_diag_clear (&app.diag);
  if (app.line)
    g_string_free (app.line, TRUE);
  if (app.export_stats)
    g_string_free (app.export_stats, TRUE);
  viper_tram_pool_free (app.pool);
out_ctx:
  g_clear_error (&error);
  g_option_context_free (ctx);
  g_strfreev (app.opt.listen);
  g_strfreev (app.opt.traces);
  g_strfreev (app.opt.render);
  g_strfreev (app.opt.exports);
  g_free (app.opt.render_size);
  g_free (app.opt.progress);
  g_free (app.opt.paradigm);
  g_free (app.opt.setup);
  g_free (app.opt.until);
  g_free (app.opt.run_out);
  g_free (app.opt.state_out);
  g_free (decay_s);
  g_free (idle_s);
  g_free (conn_timeout_s);
  g_free (stuck_s);
  g_free (steps_s);
  g_free (max_connections_s);
  g_free (max_partial_s);
  g_free (max_queued_s);
  g_free (max_pending_s);
  g_free (max_procs_s);
  g_free (clock_memory_s);
  g_free (seek_test_s);
  g_free (seek_bench_s);
  g_free (seek_every_s);
  g_free (history_s);
  g_free (clock_s);
  g_free (until_tram_s);
  viper_tram_ref_clear (&until_tram);
  return rc;
}
