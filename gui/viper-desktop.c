/* viper-desktop.c - what a GNOME user expects of an app (GNOME HIG, the way
 * Sysprof does it): recent files, drag-and-drop, a shortcuts window, About,
 * Help.  The actions themselves live in viper-app.c; this file builds the
 * pieces they show.
 */
#include <string.h>
#include "viper-desktop.h"
#include "viper-open-dialog.h"
#include "core/jsonout.h"

#define MAX_RECENT 8

void
viper_desktop_add_recent (const char *path)
{
  /* relative paths (a command line's) are made absolute: a URI needs one */
  char *abs = g_canonicalize_filename (path, NULL);
  char *uri = g_filename_to_uri (abs, NULL, NULL);
  g_free (abs);
  if (!uri)
    return;
  GtkRecentData rd = { 0 };
  rd.display_name = NULL;
  rd.mime_type = (char *) (viper_is_setup_file (path) ? "text/plain" : "text/x-picl-trace");
  rd.app_name = (char *) g_get_application_name ();
  rd.app_exec = (char *) "viper %f";
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &rd);
  g_free (uri);
}

static gint
by_time (gconstpointer a, gconstpointer b)
{
  time_t ta = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  time_t tb = gtk_recent_info_get_modified ((GtkRecentInfo *) b);
  return ta < tb ? 1 : ta > tb ? -1 : 0;
}

void
viper_desktop_fill_recent (GMenu *menu)
{
  g_menu_remove_all (menu);
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  items = g_list_sort (items, by_time);
  guint n = 0;
  for (GList *l = items; l && n < MAX_RECENT; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      if (!gtk_recent_info_has_application (info, g_get_application_name ()) || !gtk_recent_info_is_local (info))
        continue;
      char *path = g_filename_from_uri (gtk_recent_info_get_uri (info), NULL, NULL);
      if (path && g_file_test (path, G_FILE_TEST_IS_REGULAR) && !viper_is_setup_file (path))
        {
          char *base = g_path_get_basename (path);
          /* underscores in file names are not mnemonics */
          char **parts = g_strsplit (base, "_", -1);
          char *label = g_strjoinv ("__", parts);
          GMenuItem *it = g_menu_item_new (label, NULL);
          g_menu_item_set_action_and_target_value (it, "app.open-recent", g_variant_new_string (path));
          g_menu_append_item (menu, it);
          g_object_unref (it);
          g_free (label);
          g_strfreev (parts);
          g_free (base);
          n++;
        }
      g_free (path);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  if (n == 0)
    {
      GMenuItem *it = g_menu_item_new ("(none yet)", "app.nothing");
      g_menu_append_item (menu, it);
      g_object_unref (it);
    }
}

/* ---- drag and drop ---------------------------------------------------------------- */

typedef struct {
  ViperDropFunc open;
  gpointer data;
} Drop;

static void
on_drop (GtkWidget *w, GdkDragContext *ctx, gint x, gint y, GtkSelectionData *sel, guint info, guint time,
         gpointer user)
{
  (void) w, (void) x, (void) y, (void) info;
  Drop *d = user;
  char **uris = gtk_selection_data_get_uris (sel);
  GPtrArray *traces = g_ptr_array_new_with_free_func (g_free);
  char *setup = NULL;
  for (char **u = uris; u && *u; u++)
    {
      char *path = g_filename_from_uri (*u, NULL, NULL);
      if (!path)
        continue;
      if (viper_is_setup_file (path) && !setup)
        setup = path;
      else
        g_ptr_array_add (traces, path);
    }
  g_strfreev (uris);
  gboolean ok = traces->len > 0;
  if (ok)
    {
      g_ptr_array_add (traces, NULL);
      d->open ((char **) traces->pdata, setup, d->data);
    }
  gtk_drag_finish (ctx, ok, FALSE, time);
  g_ptr_array_unref (traces);
  g_free (setup);
}

void
viper_desktop_enable_drop (GtkWidget *w, ViperDropFunc open, gpointer data)
{
  Drop *d = g_new0 (Drop, 1);
  d->open = open;
  d->data = data;
  gtk_drag_dest_set (w, GTK_DEST_DEFAULT_ALL, NULL, 0, GDK_ACTION_COPY);
  gtk_drag_dest_add_uri_targets (w);
  g_signal_connect_data (w, "drag-data-received", G_CALLBACK (on_drop), d, (GClosureNotify) (void (*) (void)) g_free, 0);
}

/* ---- dialogs that fit the screen ------------------------------------------------------- */

/* The work area of the monitor the dialog will be on: its parent's, else
 * the display's first.  FALSE when there is none. */
static gboolean
dialog_workarea (GtkWindow *d, GdkRectangle *area)
{
  GdkDisplay *dpy = gtk_widget_get_display (GTK_WIDGET (d));
  GtkWindow *parent = gtk_window_get_transient_for (d);
  GdkWindow *pw = parent ? gtk_widget_get_window (GTK_WIDGET (parent)) : NULL;
  GdkMonitor *mon = pw ? gdk_display_get_monitor_at_window (dpy, pw) : NULL;
  if (!mon)
    mon = gdk_display_get_primary_monitor (dpy);
  if (!mon && gdk_display_get_n_monitors (dpy) > 0)
    mon = gdk_display_get_monitor (dpy, 0);
  if (!mon)
    return FALSE;
  gdk_monitor_get_workarea (mon, area);
  return area->width > 0 && area->height > 0;
}

/* No bigger than the work area, less a margin: GTK keeps a window centred
 * on its parent inside the work area, so all of it is on the screen,
 * buttons included.  A size hint, not a size: GtkFileChooserDialog sizes
 * itself after it is mapped (45 lines of its font: 959 px high on a
 * 900 px screen, its Open button off the screen without a window manager
 * to move it), and GTK bounds every size it asks for by the hints. */
void
viper_dialog_fit_screen (GtkWidget *dialog)
{
  GtkWindow *d = GTK_WINDOW (dialog);
  gtk_window_set_position (d, GTK_WIN_POS_CENTER_ON_PARENT);
  GdkRectangle area;
  if (!dialog_workarea (d, &area))
    return;
  int margin = MIN (48, MIN (area.width, area.height) / 20);
  GdkGeometry geo = { 0 };
  geo.max_width = area.width - 2 * margin;
  geo.max_height = area.height - 2 * margin;
  gtk_window_set_geometry_hints (d, NULL, &geo, GDK_HINT_MAX_SIZE);
}

/* ---- shortcuts, about, help ------------------------------------------------------------ */

#define SC_GROUP(title) \
  "   <child><object class='GtkShortcutsGroup'><property name='visible'>1</property><property name='title'>" title \
  "</property>"
#define SC(accel, title) \
  "    <child><object class='GtkShortcutsShortcut'><property name='visible'>1</property><property name='accelerator'>" \
  accel "</property><property name='title'>" title "</property></object></child>"
#define SC_END "   </object></child>"

/* Every key of the app (gui/viper-app.c, viper-playback.c, viper-view-widget.c,
 * viper-lights-panel.c, viper-switchnet-panel.c); the test gui-xvfb-menus
 * checks that none is missing. */
static const char shortcuts_ui[] =
  "<interface>"
  " <object class='GtkShortcutsWindow' id='w'><property name='modal'>1</property>"
  "  <child><object class='GtkShortcutsSection'><property name='visible'>1</property>"
  "   <property name='section-name'>main</property>"
  SC_GROUP ("Replay")
  SC ("space", "Go / Stop")
  SC ("Right s", "Step one state change")
  SC ("Left BackSpace", "Back one state change")
  SC ("r", "Reset")
  SC ("b", "Breakpoint…")
  SC ("&lt;Control&gt;g", "Go to clock…")
  SC_END
  SC_GROUP ("Replay speed")
  SC ("bracketright", "Faster")
  SC ("bracketleft", "Slower")
  SC ("f", "As fast as possible (and back)")
  SC_END
  SC_GROUP ("Files")
  SC ("&lt;Control&gt;o", "Open trace…")
  SC ("&lt;Control&gt;l", "Listen…")
  SC ("&lt;Control&gt;e", "Export view…")
  SC ("&lt;Shift&gt;&lt;Control&gt;e", "Export trace…")
  SC ("&lt;Shift&gt;&lt;Control&gt;o", "View setup…")
  SC_END
  SC_GROUP ("Views")
  SC ("&lt;Alt&gt;1", "Show or hide the animation")
  SC ("&lt;Alt&gt;2", "Show or hide the space-time view")
  SC ("&lt;Alt&gt;3", "Show or hide the variables")
  SC ("&lt;Alt&gt;4", "Show or hide the program state")
  SC ("plus equal KP_Add", "Space-time: zoom in")
  SC ("minus KP_Subtract", "Space-time: zoom out")
  SC ("Home", "Space-time: fit the whole run")
  SC ("End", "Space-time: follow the clock")
  SC_END
  SC_GROUP ("Window")
  SC ("F9 &lt;Control&gt;i", "Diagnostics")
  SC ("&lt;Shift&gt;F9", "Dock diagnostics in the window")
  SC ("&lt;Control&gt;comma", "Settings…")
  SC ("&lt;Control&gt;question &lt;Control&gt;F1", "Keyboard shortcuts")
  SC ("F1", "Help")
  SC ("&lt;Control&gt;q", "Quit")
  SC_END
  SC_GROUP ("Cluster lights")
  SC ("&lt;Shift&gt;f", "Freeze the lights")
  SC ("i", "Range of interest…")
  SC_END
  SC_GROUP ("Switch networks")
  SC ("&lt;Alt&gt;n", "Layout: planar network")
  SC ("&lt;Alt&gt;p", "Layout: processor ports")
  SC ("&lt;Alt&gt;o", "Layout: torus")
  SC ("&lt;Alt&gt;s", "Values: slice")
  SC ("&lt;Alt&gt;r", "Values: running total")
  SC ("&lt;Alt&gt;t", "Values: total")
  SC ("&lt;Alt&gt;j", "Colour by job")
  SC ("&lt;Alt&gt;Left &lt;Alt&gt;Right", "Turn the torus")
  SC ("&lt;Alt&gt;Up &lt;Alt&gt;Down", "Tilt the torus")
  SC ("&lt;Alt&gt;plus &lt;Alt&gt;minus", "Zoom the torus")
  SC_END
  "  </object></child>"
  " </object>"
  "</interface>";

void
viper_desktop_shortcuts (GtkWindow *parent)
{
  GtkBuilder *b = gtk_builder_new_from_string (shortcuts_ui, -1);
  GtkWidget *w = GTK_WIDGET (gtk_builder_get_object (b, "w"));
  gtk_window_set_transient_for (GTK_WINDOW (w), parent);
  gtk_window_set_title (GTK_WINDOW (w), "Keyboard Shortcuts");   /* the window's name, as the menu says */
  gtk_widget_show_all (w);
  g_object_unref (b);
}

char **
viper_desktop_shortcuts_accels (void)
{
  GtkBuilder *b = gtk_builder_new_from_string (shortcuts_ui, -1);
  GPtrArray *out = g_ptr_array_new ();
  GSList *objs = gtk_builder_get_objects (b);
  for (GSList *l = objs; l; l = l->next)
    {
      if (!GTK_IS_SHORTCUTS_SHORTCUT (l->data))
        continue;
      char *accel = NULL;
      g_object_get (l->data, "accelerator", &accel, NULL);
      char **keys = g_strsplit (accel ? accel : "", " ", -1);
      for (char **k = keys; *k; k++)
        {
          guint key;
          GdkModifierType mods;
          gtk_accelerator_parse (*k, &key, &mods);
          if (key)
            g_ptr_array_add (out, gtk_accelerator_name (key, mods));
        }
      g_strfreev (keys);
      g_free (accel);
    }
  g_slist_free (objs);
  gtk_widget_destroy (GTK_WIDGET (gtk_builder_get_object (b, "w")));
  g_object_unref (b);
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

void
viper_desktop_about (GtkWindow *parent)
{
  static const char *authors[] = { "The Viper developers", NULL };
  gtk_show_about_dialog (parent, "program-name", "Viper", "version", VIPER_VERSION, "logo-icon-name",
                         "utilities-system-monitor", "comments",
                         "Replays the traces of parallel programs and reconstructs, causally, what happened: "
                         "live or post mortem.\nAfter R. Schiefer's Viper (CERN / TU Eindhoven).",
                         "authors", authors, "license-type", GTK_LICENSE_CUSTOM, "license",
                         "See the project's repository.", NULL);
}

char *
viper_desktop_user_guide (void)
{
  char *p = g_build_filename (VIPER_DOC_DIR, "user-guide.md", NULL);
  if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
    return p;
  g_free (p);
  p = g_build_filename (VIPER_SOURCE_DIR, "docs", "user-guide.md", NULL);
  if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
    return p;
  g_free (p);
  return NULL;
}

/* The guide in a window of its own: the text as written (Markdown reads
 * well as it is), wrapped, searchable with the text view's own keys. */
static void
help_show_here (GtkWindow *parent, const char *guide)
{
  char *text = NULL;
  GError *e = NULL;
  if (!g_file_get_contents (guide, &text, NULL, &e))
    {
      text = g_strdup_printf ("%s", e->message);
      g_error_free (e);
    }
  GtkWidget *w = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title (GTK_WINDOW (w), "Viper User Guide");
  gtk_window_set_transient_for (GTK_WINDOW (w), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (w), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (w), 760, 600);
  gtk_window_set_position (GTK_WINDOW (w), GTK_WIN_POS_CENTER_ON_PARENT);
  GtkWidget *sw = gtk_scrolled_window_new (NULL, NULL);
  GtkWidget *tv = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (tv), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (tv), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (tv), 12);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (tv), 12);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (tv), 8);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (tv)), text, -1);
  g_free (text);
  gtk_container_add (GTK_CONTAINER (sw), tv);
  gtk_container_add (GTK_CONTAINER (w), sw);
  gtk_widget_show_all (w);
}

/* For the tests (VIPER_DEBUG_DIR): what the fallback said, once it is shown. */
static void
help_dump (GtkWidget *dialog, gpointer data)
{
  (void) data;
  const char *dir = g_getenv ("VIPER_DEBUG_DIR");
  if (!dir || !*dir)
    return;
  char *primary = NULL, *secondary = NULL;
  g_object_get (dialog, "text", &primary, "secondary-text", &secondary, NULL);
  GString *j = g_string_new ("{\"shown\": true, \"text\": ");
  viper_json_append_string (j, primary);
  g_string_append (j, ", \"secondary\": ");
  viper_json_append_string (j, secondary);
  g_string_append (j, "}\n");
  char *path = g_build_filename (dir, "help.json", NULL);
  g_file_set_contents (path, j->str, -1, NULL);
  g_free (path);
  g_string_free (j, TRUE);
  g_free (primary);
  g_free (secondary);
}

/* Open the guide with the application the desktop has for it, else say
 * where it is and offer to show it here.  Not gtk_show_uri_on_window: with
 * no application registered for text/markdown, GLib then asks the desktop
 * portal over D-Bus (even outside a sandbox), and GTK 3 returns TRUE before
 * the answer comes - the failure was never shown, F1 did nothing.  The
 * handler is looked up here and launched synchronously, so every failure
 * reaches the fallback. */
void
viper_desktop_help (GtkWindow *parent)
{
  char *guide = viper_desktop_user_guide ();
  GError *e = NULL;
  gboolean opened = FALSE;
  if (guide)
    {
      GFile *f = g_file_new_for_path (guide);
      GAppInfo *app = g_file_query_default_handler (f, NULL, &e);
      if (app)
        {
          GList files = { f, NULL, NULL };
          GdkAppLaunchContext *ctx = gdk_display_get_app_launch_context (
            parent ? gtk_widget_get_display (GTK_WIDGET (parent)) : gdk_display_get_default ());
          opened = g_app_info_launch (app, &files, G_APP_LAUNCH_CONTEXT (ctx), &e);
          g_object_unref (ctx);
          g_object_unref (app);
        }
      g_object_unref (f);
    }
  if (!opened)
    {
      GtkWidget *m = gtk_message_dialog_new (parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                             GTK_MESSAGE_INFO, GTK_BUTTONS_NONE, "%s",
                                             guide ? "No application here opens the user guide"
                                                   : "The user guide is not installed");
      gtk_window_set_title (GTK_WINDOW (m), "Viper Help");
      if (guide)
        gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (m), "It is at %s\n(%s)", guide,
                                                  e ? e->message : "no application for it");
      else
        gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (m),
                                                  "It is docs/user-guide.md in Viper's source tree.");
      /* the path can be copied */
      GtkWidget *area = gtk_message_dialog_get_message_area (GTK_MESSAGE_DIALOG (m));
      GList *labels = gtk_container_get_children (GTK_CONTAINER (area));
      for (GList *l = labels; l; l = l->next)
        if (GTK_IS_LABEL (l->data))
          gtk_label_set_selectable (GTK_LABEL (l->data), TRUE);
      g_list_free (labels);
      if (guide)
        gtk_dialog_add_button (GTK_DIALOG (m), "_Show It Here", GTK_RESPONSE_ACCEPT);
      gtk_dialog_add_button (GTK_DIALOG (m), "_Close", GTK_RESPONSE_CLOSE);
      gtk_dialog_set_default_response (GTK_DIALOG (m), guide ? GTK_RESPONSE_ACCEPT : GTK_RESPONSE_CLOSE);
      g_signal_connect (m, "map", G_CALLBACK (help_dump), NULL);
      int r = gtk_dialog_run (GTK_DIALOG (m));
      gtk_widget_destroy (m);
      if (r == GTK_RESPONSE_ACCEPT)
        help_show_here (parent, guide);
    }
  g_clear_error (&e);
  g_free (guide);
}
