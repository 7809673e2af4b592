/* viper-session.h - one replay pipeline of the GUI: paradigm, setup, model,
 * run, scheduler and sources, built the way viper-replay builds its own. */
#pragma once

#include "core/scheduler.h"
#include "core/clocksync.h"

G_BEGIN_DECLS

typedef struct {
  const ViperParadigm *paradigm;
  ViperSetup *setup;
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag diag;
  ViperModel *model;
  ViperRun *run;
  ViperScheduler *sched;
  char *title;              /* trace file name or listen address, for the window title */
  char **traces;            /* the trace files (NULL-terminated, may be empty) */
  char *setup_path;         /* the setup file, or NULL */
  double decay;
  GPtrArray *exporters;     /* ViperExporter* attached live (File > Export trace); closed with the session */
  guint64 file_bytes;       /* total size of the trace files (progress of a fast-forward) */
  ViperClockSync *clock_sync;   /* global time (--clock=drift|clc), or NULL for decay */
} ViperSession;

/* The clock mode the next sessions use (viper --clock, the Open dialog's
 * Clock choice).  drift and clc read the trace files once first; a session
 * with listeners (live) uses decay whatever is set. */
void viper_session_set_clock_mode (ViperClockMode mode);
ViperClockMode viper_session_clock_mode (void);

/* traces and listen: NULL-terminated, either may be NULL or empty.  The diag
 * sink receives bad input and special conditions (the status window).  The
 * model keeps history_interval of history (0 = all). */
ViperSession *viper_session_new (const char *paradigm, const char *setup_path,
                                 const char *const *traces, const char *const *listen,
                                 double decay, double history_interval,
                                 ViperDiagSink sink, gpointer sink_data, GError **error);
void viper_session_free (ViperSession *s);

/* Bytes read so far from the trace files. */
guint64 viper_session_bytes_read (const ViperSession *s);
/* Connections open now on the listeners, and accepted so far. */
void viper_session_connections (const ViperSession *s, guint *open, guint *total);
gboolean viper_session_has_listener (const ViperSession *s);

G_END_DECLS
