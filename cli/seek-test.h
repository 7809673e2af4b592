/* seek-test.h - viper-replay's --seek-test and --seek-bench (seek-test.c). */
#pragma once

#include "core/scheduler.h"
#include "core/clocksync.h"

typedef struct {
  const ViperParadigm *paradigm;
  ViperSetup *setup;
  char **traces;
  double decay;
  double history;           /* the seeking pipeline's history (-1: none), as the GUI keeps one */
  ViperClockSync *clock_sync;
  guint64 max_pending, max_procs;
  gsize trail_bytes;        /* 0: the default bound */
  guint64 every;            /* first checkpoint spacing, 0: the default */
} ViperSeekConf;

/* n seeks; check: compare each state with a replay from the start.  Prints
 * figures on standard output; returns the exit status (1 on a difference). */
int viper_seek_test (const ViperSeekConf *conf, guint n, gboolean check);
