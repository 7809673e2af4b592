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
  char *detect_reason;      /* why this paradigm (content detection), NULL when chosen by the user */
  gboolean detect_binary;   /* detection found NUL bytes and no tram: not a text trace */
  char *detect_binary_lines;  /* detection found NUL bytes among trams: what to say of them, or NULL */
  gboolean detect_no_tram;  /* detection found no tram in the sample */
  guint new_runs;           /* times a new run started the session over (live) */
  /* Called when a new run of the program connects and the session starts over. */
  void (*on_new_run) (gpointer data);
  gpointer on_new_run_data;
} ViperSession;

/* The clock mode the next sessions use (viper --clock, the Open dialog's
 * Clock choice).  drift and clc read the trace files once first; a session
 * with listeners (live) uses decay whatever is set. */
void viper_session_set_clock_mode (ViperClockMode mode);
ViperClockMode viper_session_clock_mode (void);

/* What a live session is doing, for the subtitle and the info bar. */
typedef enum {
  VIPER_LIVE_NONE,          /* no listener */
  VIPER_LIVE_LISTENING,     /* nobody connected yet (or since the session started over) */
  VIPER_LIVE_CONNECTED,     /* connections open */
  VIPER_LIVE_ENDED,         /* all closed, everything applied, the program state is final */
  VIPER_LIVE_LOST,          /* all closed, but cut off, trams pending or the program unfinished */
} ViperLiveState;

/* paradigm NULL or "auto": detected from the traces' content and the setup
 * file's kind (core/detect.h); picl when nothing decides. */
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
/* Connections that were cut off (error or mid-line) so far. */
guint viper_session_lost_connections (const ViperSession *s);
ViperLiveState viper_session_live_state (const ViperSession *s, guint *open);
/* The live state (as viper_session_live_state, open connections in *open,
 * may be NULL), told to the model as well: whether the collection has ended
 * (or was lost), so that a monitor shows its last readings as stale.  Called
 * wherever the live state is shown. */
ViperLiveState viper_session_note_live_end (ViperSession *s, guint *open);
/* Close every connection and drop what they sent that was not replayed
 * (Reset while programs are connected); how many were closed. */
guint viper_session_disconnect (ViperSession *s);
/* Start the session over: drop what the listeners queued, reset run, model
 * and channels.  The listeners keep listening. */
void viper_session_start_over (ViperSession *s);
/* Modules whose state is not final ("inactive"/"terminated"), as labels, at most max. */
GPtrArray *viper_session_unfinished_modules (const ViperSession *s, guint max, guint *total);

G_END_DECLS
