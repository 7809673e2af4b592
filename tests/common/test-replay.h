/* test-replay.h - a replay through the scheduler viper-replay and the GUI
 * use, set up from a trace file: shared by the tests that render or export
 * what a replay built (tests/gui, tests/export). */
#pragma once

#include "core/scheduler.h"
#include "paradigms/paradigms.h"

typedef struct {
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag diag;
  const ViperParadigm *paradigm;
  ViperSetup *setup;
  ViperModel *model;
  ViperRun *run;
  ViperScheduler *sched;
} TestReplay;

/* Registers the paradigms, loads SETUP (may be NULL) with PARADIGM's loader,
 * and sets up pool, channels, diagnostics (to SINK, may be NULL), model with
 * HISTORY (as viper_model_set_history), run and scheduler fed by TRACE.
 * Any failure fails the test. */
void test_replay_open (TestReplay *r, const char *paradigm, const char *trace, const char *setup,
                       double history, ViperDiagSink sink, gpointer sink_data);
void test_replay_close (TestReplay *r);
