/* viper-setup-dialog.c - which view setup file the views draw, and Setup...
 *
 * Two owners are possible.  Macrame's setup file IS a view setup file (the
 * device kinds and MAXRATE come from it), so the session owns it and a new
 * one goes through macrame_model_set_view_setup(), which keeps every device
 * state and the clock.  Mona Lisa and picl keep their own setup (the Module
 * Setup file) and get a view setup beside it (viper --view), owned here.
 * Either way the views see it through one ViperLayout, so a reload swaps a
 * pointer and repaints: nothing of the replay is touched, which is what
 * "without losing the replay position" asks.
 */
#include "viper-setup-dialog.h"
#include "viper-view-widget.h"
#include "viper-desktop.h"
#include "paradigms/macrame/macrame.h"
#include "paradigms/lights/lights.h"

struct _ViperViewSetupCtl {
  GPtrArray *views;         /* GtkWidget* (ViperViewWidget), not owned */
  ViperSession *s;          /* not owned */
  ViperLayout *layout;      /* what the views are given */
  ViperViewSetup *own;      /* the view setup of a paradigm whose setup is something else */
};

static gboolean
setup_is_view_setup (const ViperSession *s)
{
  return s && (g_str_equal (s->paradigm->name, "macrame") || g_str_equal (s->paradigm->name, "lights"));
}

/* The model of a paradigm whose setup is a view setup file. */
static const ViperViewSetup *
model_view_setup (const ViperSession *s)
{
  return g_str_equal (s->paradigm->name, "lights") ? lights_model_view_setup (s->model)
                                                    : macrame_model_view_setup (s->model);
}

static void
publish (ViperViewSetupCtl *c)
{
  const ViperViewSetup *vs = NULL;
  if (setup_is_view_setup (c->s))
    vs = model_view_setup (c->s);
  else if (c->s)
    vs = c->own;
  c->layout->setup = vs;
  for (guint i = 0; i < c->views->len; i++)
    viper_view_widget_set_layout (VIPER_VIEW_WIDGET (g_ptr_array_index (c->views, i)), c->layout);
}

ViperViewSetupCtl *
viper_view_setup_ctl_new (GtkWidget *const *views, guint n_views)
{
  ViperViewSetupCtl *c = g_new0 (ViperViewSetupCtl, 1);
  c->views = g_ptr_array_new ();
  for (guint i = 0; i < n_views; i++)
    g_ptr_array_add (c->views, views[i]);
  c->layout = viper_layout_new ();
  return c;
}

void
viper_view_setup_ctl_free (ViperViewSetupCtl *c)
{
  if (!c)
    return;
  g_ptr_array_unref (c->views);
  viper_layout_free (c->layout);
  viper_view_setup_free (c->own);
  g_free (c);
}

/* A view setup for a paradigm whose own setup is another file: the file
 * may name no paradigm, or must name this one. */
static ViperViewSetup *
load_own (const ViperSession *s, const char *path, GError **error)
{
  ViperViewSetup *vs = viper_view_setup_load (path, error);
  if (vs && vs->paradigm && !g_str_equal (vs->paradigm, s->paradigm->name))
    {
      g_set_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_SYNTAX,
                   "%s:%u:%u: expected paradigm %s, got %s", path, vs->paradigm_line, vs->paradigm_col,
                   s->paradigm->name, vs->paradigm);
      viper_view_setup_free (vs);
      return NULL;
    }
  return vs;
}

gboolean
viper_view_setup_ctl_attach (ViperViewSetupCtl *c, ViperSession *s, const char *view_path, GError **error)
{
  c->s = s;
  viper_view_setup_free (c->own);
  c->own = NULL;
  gboolean ok = TRUE;
  if (s && view_path && *view_path)
    {
      if (setup_is_view_setup (s))
        ok = viper_view_setup_ctl_load (c, view_path, error);
      else
        ok = (c->own = load_own (s, view_path, error)) != NULL;
    }
  publish (c);
  return ok;
}

gboolean
viper_view_setup_ctl_load (ViperViewSetupCtl *c, const char *path, GError **error)
{
  ViperSession *s = c->s;
  if (!s)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: no trace is open to show it", path);
      return FALSE;
    }
  if (setup_is_view_setup (s))
    {
      /* the paradigm's own reader: it also checks that every module is a node or a switch */
      ViperSetup *ns = s->paradigm->setup_load (path, error);
      if (!ns)
        return FALSE;
      if (g_str_equal (s->paradigm->name, "lights"))
        lights_model_set_view_setup (s->model, (const ViperViewSetup *) ns);
      else
        macrame_model_set_view_setup (s->model, (const ViperViewSetup *) ns);
      /* the model now points at the new file: the old one can go */
      if (s->setup && s->paradigm->setup_free)
        s->paradigm->setup_free (s->setup);
      s->setup = ns;
      g_free (s->setup_path);
      s->setup_path = g_strdup (path);
    }
  else
    {
      ViperViewSetup *vs = load_own (s, path, error);
      if (!vs)
        return FALSE;
      viper_view_setup_free (c->own);
      c->own = vs;
      viper_damage_add (s->model->damage, VIPER_AREA_ALL, 0, 0);
    }
  publish (c);
  return TRUE;
}

const ViperViewSetup *
viper_view_setup_ctl_current (const ViperViewSetupCtl *c)
{
  return c->layout->setup;
}

void
viper_view_setup_ctl_dialog (ViperViewSetupCtl *c, GtkWindow *parent, ViperStatus *status)
{
  static char *last_dir;    /* the dialog starts where it was last left */
  GtkWidget *d = gtk_file_chooser_dialog_new ("View Setup", parent, GTK_FILE_CHOOSER_ACTION_OPEN,
                                              "_Cancel", GTK_RESPONSE_CANCEL, "_Load", GTK_RESPONSE_ACCEPT, NULL);
  viper_dialog_fit_screen (d);
  GtkFileFilter *f = gtk_file_filter_new ();
  gtk_file_filter_set_name (f, "View setup files (*.view)");
  gtk_file_filter_add_pattern (f, "*.view");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (d), f);
  GtkFileFilter *all = gtk_file_filter_new ();
  gtk_file_filter_set_name (all, "All files");
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (d), all);
  if (last_dir)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (d), last_dir);
  else if (c->s && c->s->setup_path && setup_is_view_setup (c->s))
    {
      char *dir = g_path_get_dirname (c->s->setup_path);
      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (d), dir);
      g_free (dir);
    }
  char *path = NULL;
  if (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_ACCEPT)
    path = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (d));
  gtk_widget_destroy (d);
  if (!path)
    return;
  g_free (last_dir);
  last_dir = g_path_get_dirname (path);
  GError *error = NULL;
  if (viper_view_setup_ctl_load (c, path, &error))
    {
      char *msg = g_strdup_printf ("view setup %s", path);
      if (status)
        viper_status_condition (status, VIPER_DIAG_WARNING, msg);
      g_free (msg);
    }
  else
    {
      /* the status window keeps it after the dialog is gone */
      if (status)
        viper_status_condition (status, VIPER_DIAG_WARNING, error->message);
      g_printerr ("viper: %s\n", error->message);
      GtkWidget *m = gtk_message_dialog_new (parent, GTK_DIALOG_MODAL, GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE,
                                             "The view setup file was not loaded; the current one stays.");
      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (m), "%s", error->message);
      gtk_window_set_title (GTK_WINDOW (m), "View setup error");
      gtk_dialog_run (GTK_DIALOG (m));
      gtk_widget_destroy (m);
      g_error_free (error);
    }
  g_free (path);
}

static gboolean
on_button_press (GtkWidget *view, GdkEventButton *ev, gpointer data)
{
  (void) view;
  if (ev->type != GDK_BUTTON_PRESS || ev->button != GDK_BUTTON_SECONDARY)
    return FALSE;
  gtk_menu_popup_at_pointer (GTK_MENU (data), (GdkEvent *) ev);
  return TRUE;
}

void
viper_view_setup_ctl_add_menu (ViperViewSetupCtl *c, GtkWidget *view, const char *action)
{
  (void) c;
  GMenu *menu = g_menu_new ();
  g_menu_append (menu, "View _Setup\u2026", action);   /* the same name as in the main menu */
  /* one menu per view for the view's lifetime: attached, it goes with the view */
  GtkWidget *popup = gtk_menu_new_from_model (G_MENU_MODEL (menu));
  g_object_unref (menu);
  gtk_menu_attach_to_widget (GTK_MENU (popup), view, NULL);
  gtk_widget_add_events (view, GDK_BUTTON_PRESS_MASK);
  g_signal_connect (view, "button-press-event", G_CALLBACK (on_button_press), popup);
}
