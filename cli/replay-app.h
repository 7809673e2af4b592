/* replay-app.h - viper-replay's state and the parts of it outside main():
 * the outputs (cli/replay-outputs.c) and the live session
 * (cli/replay-live.c). */
#pragma once

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <locale.h>
#include "core/outfile.h"
#include "core/options.h"
#include "core/scheduler.h"
#include "core/clocksync.h"
#include "core/stateout.h"
#include "core/tramparse.h"
#include "core/detect.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/export.h"
#include "seek-test.h"
#include "progress.h"

#define EXIT_IO 1
#define EXIT_USAGE 2
#define EXIT_PENDING 3

typedef struct {
  char **listen;
  double idle_exit;
  double stuck_after;       /* live: warn when trams pend this long with no progress (0: never) */
  gboolean stats;
  gboolean strict;
  char *paradigm;
  char *setup;
  double decay;
  char *until;
  gint64 steps;
  char *run_out;
  char *state_out;
  double history;
  gboolean list_paradigms;
  gboolean version;
  gboolean quiet;
  char **render;
  char **exports;
  char *render_size;
  char **traces;
  char *progress;           /* auto (default), always, never */
} Options;

typedef struct {
  Options opt;
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag diag;
  const ViperParadigm *paradigm;
  ViperSetup *setup;
  ViperModel *model;
  ViperRun *run;
  ViperScheduler *sched;
  ViperOutFile *run_out;
  ViperOutFile *state_out;   /* opened before the replay, written at the stop point */
  ViperOutFile **render_out; /* one per --render, likewise */
  GString *line;
  gboolean io_error;
  gboolean interrupted;
  GMainLoop *loop;
  GPtrArray *exporters;      /* ViperExporter*, one per --export */
  GString *export_stats;     /* what the exporters changed, for --stats */
  ViperClockSync *clock_sync;  /* --clock=drift|clc */
  double clock_seconds;        /* its first reading of the trace */
  ViperProgress *progress;     /* NULL: no progress line */
  int signal;                  /* the signal that stopped the replay, 0 if none */
} App;

/* cli/viper-replay.c */
void replay_progress_update (App *app);

/* cli/replay-outputs.c */
void replay_run_out_hook (const ViperTram *t, gboolean changed, gpointer data);
void replay_report_export (App *app, const char *spec, const ViperExporter *ex, gboolean failed);
void replay_print_stats (App *app, double seconds, GString *out);
char *replay_outputs_clash (const Options *o);
int replay_render_format (const char *path);

/* cli/replay-live.c */
ViperStopReason replay_run_live (App *app);
