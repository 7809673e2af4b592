/* viper-lights-panel.h - the cluster lights controls in the header bar:
 * Freeze (F) and the range of interest of the arrows' colours (a popover). */
#pragma once

#include <gtk/gtk.h>
#include "core/model.h"

G_BEGIN_DECLS

typedef struct _ViperLightsPanel ViperLightsPanel;

/* Adds the actions lights-freeze (stateful, boolean) and lights-range to map. */
ViperLightsPanel *viper_lights_panel_new (GActionMap *map);
void viper_lights_panel_free (ViperLightsPanel *p);
/* The controls, for the header bar: shown only while the model is a lights model. */
GtkWidget *viper_lights_panel_widget (ViperLightsPanel *p);
void viper_lights_panel_set_model (ViperLightsPanel *p, ViperModel *m);
/* fn(data) whenever the Range popover opens, closes or shows an error (the
 * app's state dump, for the tests). */
void viper_lights_panel_set_notify (ViperLightsPanel *p, void (*fn) (gpointer), gpointer data);
/* The open Range popover as JSON: {"min": TEXT, "max": TEXT, "error": TEXT},
 * or null when it is closed. */
void viper_lights_panel_describe (ViperLightsPanel *p, GString *j);

G_END_DECLS
