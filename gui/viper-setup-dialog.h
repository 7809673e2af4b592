/* viper-setup-dialog.h - the views' view setup file (docs/view-setup.md):
 * which one the views draw, and Setup... to load another mid-replay. */
#pragma once

#include <gtk/gtk.h>
#include "viper-session.h"
#include "viper-status.h"
#include "paradigms/views.h"

G_BEGIN_DECLS

typedef struct _ViperViewSetupCtl ViperViewSetupCtl;

/* views: the view widgets (ViperViewWidget) that get the layout. */
ViperViewSetupCtl *viper_view_setup_ctl_new (GtkWidget *const *views, guint n_views);
void viper_view_setup_ctl_free (ViperViewSetupCtl *c);

/* A new session (NULL: none; call with NULL before freeing a session).
 * Macrame's setup file is its view setup, so its views follow it; other
 * paradigms read view_path (viper --view) when given.  FALSE with an error
 * when view_path cannot be read: the views keep the default layout. */
gboolean viper_view_setup_ctl_attach (ViperViewSetupCtl *c, ViperSession *s, const char *view_path, GError **error);

/* Replace the view setup, keeping the replay position and every state;
 * on error ("FILE:LINE:COLUMN: expected ...") the current one stays. */
gboolean viper_view_setup_ctl_load (ViperViewSetupCtl *c, const char *path, GError **error);

/* Setup...: choose a file and load it; errors go to a dialog and the status window. */
void viper_view_setup_ctl_dialog (ViperViewSetupCtl *c, GtkWindow *parent, ViperStatus *status);

/* A right-click menu on the view with Setup... (the app action `action`). */
void viper_view_setup_ctl_add_menu (ViperViewSetupCtl *c, GtkWidget *view, const char *action);

/* The file the views draw now, or NULL (default layout). */
const ViperViewSetup *viper_view_setup_ctl_current (const ViperViewSetupCtl *c);

G_END_DECLS
