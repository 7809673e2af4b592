/* viper-export-trace.h - File > Export trace: the run in a format other
 * tools open (ParaGraph, Pajé, Chrome). */
#pragma once

#include <gtk/gtk.h>
#include "viper-session.h"
#include "viper-status.h"

G_BEGIN_DECLS

/* Ask for a file and a format, then export: the whole run of the session's
 * trace files (replayed from the start in a worker thread, so the window's
 * position in the replay does not matter), or, for a live session, every
 * tram from now until the session ends.  Progress and the outcome go to the
 * status window; errors also to a dialog. */
void viper_export_trace_dialog (GtkWindow *parent, ViperSession *s, ViperStatus *status);

/* The format a file name suggests: .trc/.picl -> paragraph, .paje/.trace ->
 * paje, .json -> chrome; NULL when the extension says nothing. */
const char *viper_export_format_for_path (const char *path);

G_END_DECLS
