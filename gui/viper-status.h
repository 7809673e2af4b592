/* viper-status.h - the status window (thesis Figure 13). */
#pragma once

#include <gtk/gtk.h>
#include "viper-session.h"

G_BEGIN_DECLS

typedef struct _ViperStatus ViperStatus;

ViperStatus *viper_status_new (GtkWindow *parent);
void viper_status_free (ViperStatus *st);
GtkWidget *viper_status_window (ViperStatus *st);
/* Refresh the progress lines from the session (cheap; called every tick). */
void viper_status_update (ViperStatus *st, ViperSession *s, double trams_per_s);
/* The last tram that changed the state (module and time stamp). */
void viper_status_set_last_applied (ViperStatus *st, const char *module, double time, double adjusted);
/* A special condition: start or end of a trace, bad input, a connection. */
void viper_status_condition (ViperStatus *st, ViperDiagKind kind, const char *message);
void viper_status_clear (ViperStatus *st);
/* Move the content into dock (a GtkBox in the main window), or back into its
 * own window with NULL. */
void viper_status_set_docked (ViperStatus *st, GtkWidget *dock);
gboolean viper_status_docked (ViperStatus *st);
gboolean viper_status_shown (ViperStatus *st);
/* The session's paradigm and why (detection). */
void viper_status_set_paradigm (ViperStatus *st, const char *text);
/* Why trams are pending (viper_run_stuck), once the replay has settled. */
void viper_status_set_pending_reasons (ViperStatus *st, ViperSession *s);

G_END_DECLS
