/* viper-keys.c - every key of the app in its menu.
 *
 * A user who does not know the keys finds every action in the main menu with
 * its key beside it (the GtkMenu shows the first accelerator of each item's
 * action).  The replay's and the views' items are in the menu model itself
 * (gui/viper-app.c); the keys that only mean something for one paradigm -
 * the cluster lights' Freeze and Range, the switch network's layouts, modes,
 * rotation and zoom - are a section filled when a session of that paradigm
 * opens, so other sessions' menus do not list them.
 *
 * For the tests (VIPER_DEBUG_DIR), each time the menu or one of its submenus
 * has been drawn, menu.json says what it shows: every item with its label,
 * detailed action, the key drawn beside it and where it is on the screen;
 * every key the application defines, with its action; and the keys the
 * keyboard shortcuts window lists.  The test compares them and clicks items.
 */
#include <string.h>
#include <glib/gstdio.h>
#include "viper-keys.h"
#include "core/jsonout.h"
#include "viper-desktop.h"

void
viper_keys_fill_paradigm_menu (GMenu *section, const char *paradigm)
{
  g_menu_remove_all (section);
  if (paradigm && g_str_equal (paradigm, "lights"))
    {
      g_menu_append (section, "_Freeze Lights", "app.lights-freeze");
      g_menu_append (section, "Range of _Interest\u2026", "app.lights-range");
    }
  else if (paradigm && g_str_equal (paradigm, "switchnet"))
    {
      static const struct { const char *label, *target; } items[] = {
        { "Planar _Network", "network" }, { "_Processor Ports", "processor" }, { "T_orus", "torus" },
        { NULL, NULL },
        { "_Slice", "slice" }, { "_Running Total", "running" }, { "_Total", "total" }, { "Colour by _Job", "jobs" },
        { NULL, NULL },
        { "Turn _Left", "left" }, { "Turn Ri_ght", "right" }, { "Tilt _Up", "up" }, { "Tilt _Down", "down" },
        { "_Zoom In", "zoom-in" }, { "Zoom Ou_t", "zoom-out" },
      };
      GMenu *net = g_menu_new ();
      GMenu *part = g_menu_new ();
      for (guint i = 0; i <= G_N_ELEMENTS (items); i++)
        {
          if (i == G_N_ELEMENTS (items) || !items[i].label)
            {
              g_menu_append_section (net, NULL, G_MENU_MODEL (part));
              g_object_unref (part);
              part = i == G_N_ELEMENTS (items) ? NULL : g_menu_new ();
              continue;
            }
          GMenuItem *it = g_menu_item_new (items[i].label, NULL);
          g_menu_item_set_action_and_target_value (it, "app.switchnet", g_variant_new_string (items[i].target));
          g_menu_append_item (part, it);
          g_object_unref (it);
        }
      g_menu_append_submenu (section, "_Network", G_MENU_MODEL (net));
      g_object_unref (net);
    }
}

/* ---- menu.json (tests) ------------------------------------------------------------------ */

typedef struct {
  GtkApplication *gapp;
  GtkWidget *button;
  GHashTable *actions;      /* "SUBMENU\x1fLABEL" (no mnemonics) -> detailed action, while writing */
  char *path;
  guint written;
  gboolean pending;
} Watch;

/* An accelerator in one spelling (gtk_accelerator_name's), or NULL. */
static char *
normal_accel (const char *accel)
{
  guint key;
  GdkModifierType mods;
  gtk_accelerator_parse (accel, &key, &mods);
  return key ? gtk_accelerator_name (key, mods) : NULL;
}

static GtkWidget *
find_label (GtkWidget *w)
{
  if (GTK_IS_LABEL (w))
    return w;
  if (!GTK_IS_CONTAINER (w))
    return NULL;
  GList *kids = gtk_container_get_children (GTK_CONTAINER (w));
  GtkWidget *found = NULL;
  for (GList *l = kids; l && !found; l = l->next)
    found = find_label (l->data);
  g_list_free (kids);
  return found;
}

static void watch_menu (Watch *w, GtkWidget *menu);

static char *
plain (const char *label)
{
  GString *g = g_string_new (NULL);
  for (const char *p = label ? label : ""; *p; p++)
    if (*p != '_' || p[1] == '_')
      g_string_append_c (g, *p);
    else if (p[1] == '_')
      p++;
  return g_string_free (g, FALSE);
}

/* A GtkMenu's items say their labels and keys, not their actions: the model
 * does (sections flatten into their menu, as on the screen). */
static void
model_actions (GMenuModel *m, const char *parent, GHashTable *map)
{
  for (int i = 0; i < g_menu_model_get_n_items (m); i++)
    {
      char *label = NULL, *action = NULL;
      g_menu_model_get_item_attribute (m, i, G_MENU_ATTRIBUTE_LABEL, "s", &label);
      g_menu_model_get_item_attribute (m, i, G_MENU_ATTRIBUTE_ACTION, "s", &action);
      char *text = plain (label);
      if (action)
        {
          GVariant *target = g_menu_model_get_item_attribute_value (m, i, G_MENU_ATTRIBUTE_TARGET, NULL);
          g_hash_table_replace (map, g_strconcat (parent, "\x1f", text, NULL),
                                g_action_print_detailed_name (action, target));
          if (target)
            g_variant_unref (target);
        }
      GMenuModel *sec = g_menu_model_get_item_link (m, i, G_MENU_LINK_SECTION);
      if (sec)
        {
          model_actions (sec, parent, map);
          g_object_unref (sec);
        }
      GMenuModel *sub = g_menu_model_get_item_link (m, i, G_MENU_LINK_SUBMENU);
      if (sub)
        {
          model_actions (sub, text, map);
          g_object_unref (sub);
        }
      g_free (text);
      g_free (label);
      g_free (action);
    }
}

static void
items_json (Watch *w, GtkWidget *menu, const char *parent, GString *j)
{
  GList *kids = gtk_container_get_children (GTK_CONTAINER (menu));
  for (GList *l = kids; l; l = l->next)
    {
      GtkWidget *item = l->data;
      if (!GTK_IS_MENU_ITEM (item))
        continue;
      GtkWidget *label = find_label (item);
      char *accel = NULL, *action = NULL;
      if (label && GTK_IS_ACCEL_LABEL (label))
        {
          guint key;
          GdkModifierType mods;
          gtk_accel_label_get_accel (GTK_ACCEL_LABEL (label), &key, &mods);
          if (key)
            accel = gtk_accelerator_name (key, mods);
        }
      const char *text = label ? gtk_label_get_text (GTK_LABEL (label)) : NULL;
      char *key = g_strconcat (parent, "\x1f", text ? text : "", NULL);
      action = g_strdup (g_hash_table_lookup (w->actions, key));
      g_free (key);
      g_string_append (j, j->str[j->len - 1] == '[' ? "{\"menu\": " : ", {\"menu\": ");
      viper_json_append_string (j, parent);
      g_string_append (j, ", \"label\": ");
      viper_json_append_string (j, text && *text ? text : NULL);
      g_string_append (j, ", \"action\": ");
      viper_json_append_string (j, action);
      g_string_append (j, ", \"accel\": ");
      viper_json_append_string (j, accel);
      g_string_append_printf (j, ", \"visible\": %s, \"sensitive\": %s, \"checked\": %s",
                              gtk_widget_get_visible (item) ? "true" : "false",
                              gtk_widget_is_sensitive (item) ? "true" : "false",
                              GTK_IS_CHECK_MENU_ITEM (item) && gtk_check_menu_item_get_active (GTK_CHECK_MENU_ITEM (item))
                                ? "true" : "false");
      GtkWidget *top = gtk_widget_get_toplevel (item);
      GdkWindow *gw = gtk_widget_get_window (top);
      int x, y;
      if (gtk_widget_get_mapped (item) && gw && gtk_widget_translate_coordinates (item, top, 0, 0, &x, &y))
        {
          int ox, oy;
          gdk_window_get_origin (gw, &ox, &oy);
          g_string_append_printf (j, ", \"box\": [%d, %d, %d, %d]", ox + x, oy + y,
                                  gtk_widget_get_allocated_width (item), gtk_widget_get_allocated_height (item));
        }
      g_string_append (j, "}");
      GtkWidget *sub = gtk_menu_item_get_submenu (GTK_MENU_ITEM (item));
      if (sub)
        {
          watch_menu (w, sub);
          items_json (w, sub, text ? text : "?", j);
        }
      g_free (accel);
      g_free (action);
    }
  g_list_free (kids);
}

static void
write_menu (Watch *w, GtkWidget *menu)
{
  /* the whole tree from the top menu, whichever menu was drawn */
  GtkWidget *top = menu;
  for (GtkWidget *m = menu; m && GTK_IS_MENU (m);)
    {
      top = m;
      GtkWidget *item = gtk_menu_get_attach_widget (GTK_MENU (m));
      m = item && GTK_IS_MENU_ITEM (item) ? gtk_widget_get_parent (item) : NULL;
    }
  GString *j = g_string_new (NULL);
  g_string_append_printf (j, "{\"written\": %u, \"items\": [", ++w->written);
  w->actions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GMenuModel *model = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (w->button));
  if (model)
    model_actions (model, "", w->actions);
  items_json (w, top, "", j);
  g_clear_pointer (&w->actions, g_hash_table_unref);
  g_string_append (j, "], \"keys\": [");
  char **actions = gtk_application_list_action_descriptions (w->gapp);
  for (char **a = actions; *a; a++)
    {
      char **accels = gtk_application_get_accels_for_action (w->gapp, *a);
      g_string_append (j, a == actions ? "{\"action\": " : ", {\"action\": ");
      viper_json_append_string (j, *a);
      g_string_append (j, ", \"accels\": [");
      for (char **k = accels; *k; k++)
        {
          char *n = normal_accel (*k);
          g_string_append (j, k == accels ? "" : ", ");
          viper_json_append_string (j, n);
          g_free (n);
        }
      g_string_append (j, "]}");
      g_strfreev (accels);
    }
  g_strfreev (actions);
  g_string_append (j, "], \"shortcuts_window\": [");
  char **listed = viper_desktop_shortcuts_accels ();
  for (char **k = listed; k && *k; k++)
    {
      g_string_append (j, k == listed ? "" : ", ");
      viper_json_append_string (j, *k);
    }
  g_strfreev (listed);
  g_string_append (j, "]}\n");
  char *tmp = g_strconcat (w->path, ".tmp", NULL);
  if (g_file_set_contents (tmp, j->str, (gssize) j->len, NULL))
    g_rename (tmp, w->path);
  g_free (tmp);
  g_string_free (j, TRUE);
}

static void
on_show (GtkWidget *menu, gpointer data)
{
  (void) menu;
  ((Watch *) data)->pending = TRUE;
}

static gboolean
on_draw (GtkWidget *menu, cairo_t *cr, gpointer data)
{
  (void) cr;
  Watch *w = data;
  if (w->pending)
    {
      w->pending = FALSE;
      write_menu (w, menu);
    }
  return FALSE;
}

static void
watch_menu (Watch *w, GtkWidget *menu)
{
  if (g_object_get_data (G_OBJECT (menu), "viper-keys-watched"))
    return;
  g_object_set_data (G_OBJECT (menu), "viper-keys-watched", w);
  g_signal_connect (menu, "show", G_CALLBACK (on_show), w);
  g_signal_connect_after (menu, "draw", G_CALLBACK (on_draw), w);
}

static void
free_watch (gpointer data, GClosure *closure)
{
  (void) closure;
  Watch *w = data;
  g_free (w->path);
  g_free (w);
}

static void
on_button_toggled (GtkToggleButton *button, gpointer data)
{
  Watch *w = data;
  GtkMenu *menu = gtk_menu_button_get_popup (GTK_MENU_BUTTON (button));
  if (menu)
    watch_menu (w, GTK_WIDGET (menu));
  /* it may have been shown before this handler ran */
  if (gtk_toggle_button_get_active (button))
    w->pending = TRUE;
}

void
viper_keys_watch_menu (GtkWidget *button, GtkApplication *gapp, const char *debug_dir)
{
  if (!debug_dir)
    return;
  Watch *w = g_new0 (Watch, 1);
  w->gapp = gapp;
  w->button = button;
  w->path = g_build_filename (debug_dir, "menu.json", NULL);
  GtkMenu *menu = gtk_menu_button_get_popup (GTK_MENU_BUTTON (button));
  if (menu)
    watch_menu (w, GTK_WIDGET (menu));
  g_signal_connect_data (button, "toggled", G_CALLBACK (on_button_toggled), w, free_watch, 0);
}
