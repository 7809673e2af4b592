/* main.c - viper-monalisa-sim: options, then simulate, then write.
 *
 * The simulation always runs to completion before anything is written:
 * delivery orders other than "inorder" need the whole trace, the truth is
 * the final state, and a run that cannot be simulated should leave no
 * half-written files.  Live mode replays the finished simulation on the
 * sockets, paced by --speed.  See docs/man/viper-monalisa-sim.1.
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>
#include "core/options.h"

static char *
canonical_cmdline (const SimOptions *o, const char *delivery)
{
  GString *s = g_string_new ("viper-monalisa-sim");
  g_string_append_printf (s, " --program=%s --slaves=%d --tasks=%d", o->program, o->slaves, o->tasks);
  if (o->count > 0)
    g_string_append_printf (s, " --count=%" G_GINT64_FORMAT, o->count);
  g_string_append_printf (s, " --seed=%" G_GUINT64_FORMAT " --offset-ms=%g --drift-ppm=%g --jitter-ms=%g"
                          " --latency-ms=%g --delivery=%s --chunk=%d",
                          o->seed, o->offset_ms, o->drift_ppm, o->jitter_ms, o->latency_ms, delivery, o->chunk);
  if (o->true_time)
    g_string_append (s, " --emit-true-time");
  return g_string_free (s, FALSE);
}

int
main (int argc, char **argv)
{
  SimOptions o = { 0 };
  /* g_autofree: the usage errors below return early */
  g_autofree char *program = NULL;
  g_autofree char *delivery = NULL;
  g_autofree char *out = NULL;
  g_autofree char *setup_out = NULL;
  g_autofree char *truth_out = NULL;
  g_autofree char *connect = NULL;
  int slaves = 4, tasks = -1, chunk = 8;
  gint64 count = 0, seed = 1;
  double offset = 2.0, drift = 100.0, jitter = 0.05, lat = 1.0, speed = 1.0;
  gboolean true_time = FALSE, probe_buffer = FALSE, header = FALSE, stats = FALSE, version = FALSE;
  GOptionEntry entries[] = {
    { "program", 'p', 0, G_OPTION_ARG_STRING, &program, "farm (default), deadlock, abnormal or trackfit", "NAME" },
    { "slaves", 0, 0, G_OPTION_ARG_INT, &slaves, "Slave instances (farm, abnormal, trackfit; default 4)", "N" },
    { "tasks", 0, 0, G_OPTION_ARG_INT, &tasks, "Jobs (farm, abnormal: 20), events (trackfit: 10), good rounds (deadlock: 5)", "K" },
    { "count", 0, 0, G_OPTION_ARG_INT64, &count, "Instead of --tasks: go on until at least N trams, then end normally", "N" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Random seed (default 1)", "N" },
    { "offset-ms", 0, 0, G_OPTION_ARG_DOUBLE, &offset, "Clock offsets uniform in [-MS, MS] (default 2)", "MS" },
    { "drift-ppm", 0, 0, G_OPTION_ARG_DOUBLE, &drift, "Clock drifts uniform in [-PPM, PPM] (default 100)", "PPM" },
    { "jitter-ms", 0, 0, G_OPTION_ARG_DOUBLE, &jitter, "Time stamp jitter in [0, MS] (default 0.05)", "MS" },
    { "latency-ms", 0, 0, G_OPTION_ARG_DOUBLE, &lat, "Mean message latency (default 1)", "MS" },
    { "delivery", 'd', 0, G_OPTION_ARG_STRING, &delivery, "inorder (default), shuffled or interleaved", "MODE" },
    { "chunk", 0, 0, G_OPTION_ARG_INT, &chunk, "Largest chunk of the interleaved order (default 8)", "N" },
    { "emit-true-time", 0, 0, G_OPTION_ARG_NONE, &true_time, "Write true simulated times instead of the skewed clocks", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Trace file (default standard output)", "FILE" },
    { "setup-out", 0, 0, G_OPTION_ARG_FILENAME, &setup_out, "Write the Module Setup file", "FILE" },
    { "truth-out", 0, 0, G_OPTION_ARG_FILENAME, &truth_out, "Write the true final state (JSON)", "FILE" },
    { "connect", 'c', 0, G_OPTION_ARG_STRING, &connect, "Stream live to Viper, one connection per module", "tcp:HOST:PORT|unix:PATH" },
    { "speed", 0, 0, G_OPTION_ARG_DOUBLE, &speed, "Live pacing: simulated ms per wall ms (default 1; 0 = no pacing)", "F" },
    { "probe-buffer", 0, 0, G_OPTION_ARG_NONE, &probe_buffer, "Live: buffer each module's trams until the end (trace_buf)", NULL },
    { "header", 0, 0, G_OPTION_ARG_NONE, &header, "Start the trace with a comment giving the options", NULL },
    { "stats", 0, 0, G_OPTION_ARG_NONE, &stats, "Print a summary on standard error", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  /* GLib's messages in the user's language and charset (“quotes” under a UTF-8
   * locale, not ?quotes?); numbers stay C: traces are written with '.' */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  GOptionContext *ctx = g_option_context_new ("- simulate a Mona Lisa program and write its trace");
  g_option_context_set_description (ctx, "Exit status: 0 success, 1 an I/O error (also a Viper that cannot be reached),\n"
                                         "2 a usage error.");
  GError *error = NULL;
  Sim S;
  char *cmdline;
  int status = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!viper_options_parse (ctx, (const GOptionEntry *const[]) { entries, NULL }, &argc, &argv, &error)) {
    fprintf (stderr, "viper-monalisa-sim: %s\n", error->message);
    g_error_free (error);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (version) {
    printf ("viper-monalisa-sim %s\n", VIPER_VERSION);
    return 0;
  }

#define USAGE(...) do { fprintf (stderr, "viper-monalisa-sim: " __VA_ARGS__); fputc ('\n', stderr); return 2; } while (0)
  if (argc > 1)
    USAGE ("unexpected argument '%s'", argv[1]);
  o.program = program ? program : "farm";
  if (strcmp (o.program, "farm") && strcmp (o.program, "deadlock") && strcmp (o.program, "abnormal")
      && strcmp (o.program, "trackfit"))
    USAGE ("unknown program '%s' (farm, deadlock, abnormal, trackfit)", o.program);
  if (!delivery || strcmp (delivery, "inorder") == 0)
    o.delivery = DELIVER_INORDER;
  else if (strcmp (delivery, "shuffled") == 0)
    o.delivery = DELIVER_SHUFFLED;
  else if (strcmp (delivery, "interleaved") == 0)
    o.delivery = DELIVER_INTERLEAVED;
  else
    USAGE ("--delivery must be inorder, shuffled or interleaved");
  if (slaves < 1 || slaves > 1000)
    USAGE ("--slaves must be 1..1000");
  if (tasks < 0)
    tasks = strcmp (o.program, "trackfit") == 0 ? 10 : strcmp (o.program, "deadlock") == 0 ? 5 : 20;
  if (count < 0 || count > G_GINT64_CONSTANT (100000000))
    USAGE ("--count must be 0..100000000");
  if (chunk < 1)
    USAGE ("--chunk must be at least 1");
  if (!(offset >= 0 && offset < 1e9) || !(drift >= 0 && drift < 1e5) || !(jitter >= 0 && jitter < 1e9)
      || !(lat >= 0 && lat < 1e9) || !(speed >= 0 && speed < 1e12))
    USAGE ("clock, latency and speed options must be non-negative numbers in range");
  if (connect && strncmp (connect, "tcp:", 4) && strncmp (connect, "unix:", 5))
    USAGE ("--connect takes tcp:HOST:PORT or unix:PATH");
#undef USAGE

  o.slaves = slaves;
  o.tasks = tasks;
  o.count = count;
  o.seed = (guint64) seed;
  o.offset_ms = offset;
  o.drift_ppm = drift;
  o.jitter_ms = jitter;
  o.latency_ms = lat;
  o.chunk = chunk;
  o.true_time = true_time;
  o.out = out;
  o.setup_out = setup_out;
  o.truth_out = truth_out;
  o.connect = connect;
  o.speed = speed;
  o.probe_buffer = probe_buffer;
  o.header = header;
  o.stats = stats;
  cmdline = canonical_cmdline (&o, delivery ? delivery : "inorder");
  o.cmdline = cmdline;

  sim_init (&S, &o);
  if (!sim_build_program (&S, &error)) {
    fprintf (stderr, "viper-monalisa-sim: %s\n", error->message);
    g_error_free (error);
    sim_clear (&S);
    g_free (cmdline);
    return 2;
  }
  sim_run (&S);

  if (connect && !sim_write_live (&S, &error))
    status = 1;
  if (status == 0 && (!connect || out) && !sim_write_trace (&S, &error))
    status = 1;
  if (status == 0 && setup_out && !sim_write_setup (&S, setup_out, &error))
    status = 1;
  if (status == 0 && truth_out && !sim_write_truth (&S, truth_out, &error))
    status = 1;
  if (status)
    fprintf (stderr, "viper-monalisa-sim: %s\n", error->message);
  else if (stats)
    fprintf (stderr, "%s: %u modules, %u trams, %d tasks, %.3f ms simulated, program manager (6,%d)\n",
             o.program, (unsigned) S.nmods, S.trams->len, S.tasks_issued, S.now, S.reported);

  g_clear_error (&error);
  sim_clear (&S);
  g_free (cmdline);
  return status;
}
