/* viper-infobar.h - problems in plain sight: the main window's info bar. */
#pragma once

#include <gtk/gtk.h>
#include "viper-session.h"

G_BEGIN_DECLS

typedef struct _ViperInfobar ViperInfobar;

/* show_diagnostics: what the "Diagnostics" button does. */
ViperInfobar *viper_infobar_new (void (*show_diagnostics) (gpointer data), gpointer data);
void viper_infobar_free (ViperInfobar *ib);
GtkWidget *viper_infobar_widget (ViperInfobar *ib);
/* Every diagnostic of the session (the first reasons of each kind are kept). */
void viper_infobar_note (ViperInfobar *ib, ViperDiagKind kind, const char *message);
/* Forget the notes (new session, reset). */
void viper_infobar_clear (ViperInfobar *ib);
/* Recompute what the bar says from the session (cheap: counts; the pending
 * reasons are looked up only once the replay has settled). */
void viper_infobar_update (ViperInfobar *ib, ViperSession *s);
/* For the debug dump: {"visible": .., "type": "warning", "text": ".."}. */
void viper_infobar_to_json (ViperInfobar *ib, GString *out);

G_END_DECLS
