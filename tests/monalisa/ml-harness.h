/* ml-harness.h - feed Mona Lisa tram lines through the real run construction
 * (core/run.c) into the monalisa model, the way the scheduler does: after
 * every insert, transfer everything ready and apply it. */
#pragma once

#include "core/run.h"
#include "core/model.h"
#include "core/tramparse.h"
#include "core/stateout.h"
#include "paradigms/paradigms.h"
#include "paradigms/monalisa/monalisa.h"

typedef struct {
  ViperTramPool *pool;
  ViperTramFields *fields;
  ViperChannels *channels;
  ViperDiag diag;
  ViperMonalisaSetup *setup;
  ViperModel *model;
  ViperRun *run;
  guint32 channel;
  guint64 lines;
  guint64 bad;              /* bad-input reports */
  guint64 warnings;         /* inconsistency reports */
  guint64 transferred;
} MlHarness;

/* setup_text: a Module Setup file's text, or NULL for none. */
void ml_harness_init (MlHarness *h, const char *setup_text);
void ml_harness_clear (MlHarness *h);
/* One trace line (comments allowed); transfers and applies what is ready. */
/* The input pauses or ends: trams waiting for that (a program manager's verdict) go. */
void ml_pause (MlHarness *h);
/* One line delivered, more to come at once (no pause): as a file is read. */
void ml_feed_line (MlHarness *h, const char *line);
void ml_feed (MlHarness *h, const char *line);
void ml_feed_all (MlHarness *h, const char *const *lines, guint n);
/* Every line of a file. */
void ml_feed_file (MlHarness *h, const char *path);
/* A Module Setup file's text for the Farm: MASTER 0, SLAVE[1..4] 1..4, group SLAVE 6. */
extern const char *ml_farm_setup;

/* Short names for the checks. */
ViperMonalisaModuleState ml_state (MlHarness *h, gint64 module);
ViperMonalisaPrim ml_prim (MlHarness *h, gint64 module);
gint64 ml_partner (MlHarness *h, gint64 module);
gboolean ml_exposed (MlHarness *h, gint64 module, gint64 var);
const char *ml_program (MlHarness *h);
/* "0,1" - the deadlock cycle as text. */
char *ml_cycle (MlHarness *h);
/* How many history state entries put module into state s. */
guint ml_history_count (MlHarness *h, gint64 module, ViperMonalisaModuleState s);
