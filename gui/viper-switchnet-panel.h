/* viper-switchnet-panel.h - the switch-network controls (a header-bar
 * popover and app.switchnet actions) for switchnet sessions. */
#pragma once

#include <gtk/gtk.h>
#include "viper-session.h"

G_BEGIN_DECLS

typedef struct _ViperSwitchnetPanel ViperSwitchnetPanel;

/* views: the widgets to redraw when a setting changes (copied); changed is
 * called after each change (may be NULL). */
ViperSwitchnetPanel *viper_switchnet_panel_new (GtkWidget **views, guint n_views, void (*changed) (gpointer data),
                                                gpointer data);
void viper_switchnet_panel_free (ViperSwitchnetPanel *p);
/* The "Network" menu button for the header bar; shown only for switchnet sessions. */
GtkWidget *viper_switchnet_panel_button (ViperSwitchnetPanel *p);
/* Follow a new session (NULL: none). */
void viper_switchnet_panel_set_session (ViperSwitchnetPanel *p, ViperSession *s);
/* app.switchnet('network'|'processor'|'torus'|'slice'|'running'|'total'|'jobs'|
 * 'left'|'right'|'up'|'down'|'zoom-in'|'zoom-out') and their accelerators. */
void viper_switchnet_panel_add_actions (ViperSwitchnetPanel *p, GtkApplication *app);
/* The settings as a JSON object for the debug dump, with the screen points
 * (root pixels) of the ports with data in the animation view; NULL when the
 * session is not switchnet.  Free with g_free. */
char *viper_switchnet_panel_describe (ViperSwitchnetPanel *p, GtkWidget *animation);

G_END_DECLS
