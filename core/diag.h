/* diag.h - where bad input and special conditions are reported and counted.
 *
 * Every layer that finds bad input calls viper_diag_bad() with the place
 * (FILE:LINE:COLUMN, or tcp:ADDR#CONN:LINE:COLUMN for a socket connection)
 * and a reason; the message is formatted once, counted, and handed to the
 * sink (stderr for viper-replay, the status window for the GUI).  Nothing is
 * dropped silently: a caller that skips input must have reported it here.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  VIPER_DIAG_BAD_INPUT,     /* a rejected line: counted in "rejected" */
  VIPER_DIAG_WARNING,       /* worth saying, nothing lost (e.g. inconsistency) */
  VIPER_DIAG_CONNECTION,    /* a connection opened or closed */
  VIPER_DIAG_TRACE_START,   /* a source started delivering */
  VIPER_DIAG_TRACE_END,     /* a source has delivered everything */
  VIPER_DIAG_NOTE,          /* text from the observed system (a collector's message); not counted */
} ViperDiagKind;

typedef void (*ViperDiagSink) (ViperDiagKind kind, const char *message, gpointer user_data);

typedef struct _ViperDiag {
  guint64 bad;              /* bad lines reported */
  guint64 warnings;
  ViperDiagSink sink;
  gpointer sink_data;
  gboolean strict;          /* set by the caller; the first bad line sets stop_requested */
  gboolean stop_requested;
  char *first_bad;          /* message of the first bad line (for --strict and the GUI) */
  char *last_bad;           /* message of the last bad line */
} ViperDiag;

void viper_diag_init (ViperDiag *d, ViperDiagSink sink, gpointer sink_data);
void viper_diag_clear (ViperDiag *d);
/* Report one bad line: "WHERE:LINE:COLUMN: reason". */
void viper_diag_bad (ViperDiag *d, const char *where, guint64 line, guint column,
                     const char *fmt, ...) G_GNUC_PRINTF (5, 6);
void viper_diag_event (ViperDiag *d, ViperDiagKind kind, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

G_END_DECLS
