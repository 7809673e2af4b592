/* viper-desktop.h - desktop conventions of the viper app: recent files,
 * drag-and-drop, the shortcuts window, About and Help. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Recent files (GtkRecentManager): remember a trace opened; fill a menu
 * section with the last few as app.open-recent('PATH') items. */
void viper_desktop_add_recent (const char *path);
void viper_desktop_fill_recent (GMenu *menu);

/* Files dropped on the widget: traces and setups (by name) handed to open. */
typedef void (*ViperDropFunc) (char **traces, const char *setup, gpointer data);
void viper_desktop_enable_drop (GtkWidget *w, ViperDropFunc open, gpointer data);

void viper_desktop_shortcuts (GtkWindow *parent);
/* Every key the shortcuts window lists (gtk_accelerator_name spellings), NULL-terminated. */
char **viper_desktop_shortcuts_accels (void);
void viper_desktop_about (GtkWindow *parent);
/* A dialog (a file chooser above all) no bigger than its monitor's work
 * area and centred on its parent inside it: call before it is shown. */
void viper_dialog_fit_screen (GtkWidget *dialog);
/* Open the user guide (installed, else the source tree's docs/user-guide.md). */
void viper_desktop_help (GtkWindow *parent);
/* Where Help looks (for tests and the man page); newly allocated, or NULL. */
char *viper_desktop_user_guide (void);

G_END_DECLS
