/* viper-inspect.h - tooltips and click-to-inspect on the modules of a view. */
#pragma once

#include <gtk/gtk.h>
#include "viper-session.h"

G_BEGIN_DECLS

typedef struct _ViperInspect ViperInspect;

/* session: where the app keeps its current session (read at each event);
 * notify: called after a click showed a module (tests dump the state). */
ViperInspect *viper_inspect_new (ViperSession **session, void (*notify) (gpointer data), gpointer data);
void viper_inspect_free (ViperInspect *in);
/* Tooltips on the view; click (button 1) pops the description up. */
void viper_inspect_attach (ViperInspect *in, GtkWidget *view, gboolean click);
/* Every transferred tram (the scheduler's hook): the last few per module. */
void viper_inspect_transfer (ViperInspect *in, const ViperTram *t);
void viper_inspect_clear (ViperInspect *in);
/* Module id (or -1: the program), newly allocated. */
char *viper_inspect_describe (ViperInspect *in, ViperSession *s, gint64 id);
/* What the last click showed, or NULL. */
const char *viper_inspect_last_text (ViperInspect *in);

G_END_DECLS
