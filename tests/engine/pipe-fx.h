/* pipe-fx.h - the engine tests' picl replay of one file: paradigm model,
 * run, scheduler and file source, set up and torn down together
 * (test-seek, test-tramstop, test-pace). */
#pragma once

#include "core/scheduler.h"
#include "paradigms/paradigms.h"

typedef struct {
  ViperTramPool *pool;
  ViperChannels *ch;
  ViperDiag diag;
  ViperModel *m;
  ViperRun *run;
  ViperScheduler *s;
} EnginePipe;

/* path replayed by the picl paradigm; history: viper_model_set_history's
 * interval, NAN to keep the model's default; sink may be NULL. */
void engine_pipe_open (EnginePipe *x, const char *path, double history, ViperDiagSink sink, gpointer sink_data);
void engine_pipe_close (EnginePipe *x);

/* text written to a new temporary .trc file; its path (g_free, g_unlink). */
char *engine_fx_write_trace (const char *text, gssize len);
