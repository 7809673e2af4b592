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
/* A seek restored a checkpoint: the last trams are read again from the
 * trail (up to the model's place) when a description needs them. */
void viper_inspect_seeked (ViperInspect *in);
/* The views took the model's damage (AREAS, of ViperArea): the open
 * popover's text is made again if they touch its module. */
void viper_inspect_refresh (ViperInspect *in, const GArray *areas);
/* Close the popover (another session: its module may not be there). */
void viper_inspect_close (ViperInspect *in);
/* Tests: write DIR/inspect.json each time the popover's text changes. */
void viper_inspect_set_debug_dir (ViperInspect *in, const char *dir);
/* Module id (or -1: the program), newly allocated. */
char *viper_inspect_describe (ViperInspect *in, ViperSession *s, gint64 id);
/* What the last click showed, or NULL. */
const char *viper_inspect_last_text (ViperInspect *in);

G_END_DECLS
