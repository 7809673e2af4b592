/* viper-switchnet-panel.c - the switch-network controls of the GUI.
 *
 * For a switchnet session the header bar gets a "Network" menu button whose
 * popover sets what the Cplant tool's GUI set: the layout (planar network,
 * processor ports, torus), the value mode (slice, running total, total), job
 * colouring, the range of interest, the torus's rotation and zoom, hidden
 * planes, the route between two nodes or switches, and a label to highlight.
 * The same settings are actions with accelerators (Alt+N/P/O layouts,
 * Alt+S/R/T modes, Alt+J jobs, Alt+arrows rotate, Alt+plus/minus zoom), so
 * the tests and keyboard users reach them without the popover.  Every change
 * writes the session's init settings (the model file's SwnNet) and redraws
 * the views: the drawing is the paradigm's, shared with viper-replay.
 */
#include <math.h>
#include <string.h>
#include "viper-switchnet-panel.h"
#include "paradigms/switchnet/switchnet.h"
#include "paradigms/switchnet/switchnet-render.h"

struct _ViperSwitchnetPanel {
  GtkWidget *button;
  ViperSession *s;          /* not owned; NULL or not switchnet: hidden */
  GtkWidget **views;
  guint n_views;
  void (*changed) (gpointer data);
  gpointer changed_data;
  GtkWidget *view_combo, *mode_combo, *jobs_check, *min_spin, *max_spin, *yaw_scale, *pitch_scale, *zoom_scale;
  GtkWidget *route_from, *route_to, *route_msg, *highlight, *planes_box;
  gboolean syncing;
};

static SwnNet *
net_of (ViperSwitchnetPanel *p)
{
  if (!p->s || !p->s->paradigm || !g_str_equal (p->s->paradigm->name, "switchnet") || !p->s->setup)
    return NULL;
  return (SwnNet *) p->s->setup;
}

static void
redraw (ViperSwitchnetPanel *p)
{
  for (guint i = 0; i < p->n_views; i++)
    gtk_widget_queue_draw (p->views[i]);
  if (p->changed)
    p->changed (p->changed_data);
}

static void
sync_controls (ViperSwitchnetPanel *p)
{
  SwnNet *n = net_of (p);
  gtk_widget_set_visible (p->button, n != NULL);
  if (!n)
    return;
  p->syncing = TRUE;
  gtk_combo_box_set_active (GTK_COMBO_BOX (p->view_combo), n->init.view);
  gtk_combo_box_set_active (GTK_COMBO_BOX (p->mode_combo), n->init.mode);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (p->jobs_check), n->init.jobs);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (p->min_spin), (double) n->init.min);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (p->max_spin), (double) n->init.max);
  gtk_range_set_value (GTK_RANGE (p->yaw_scale), n->init.yaw);
  gtk_range_set_value (GTK_RANGE (p->pitch_scale), n->init.pitch);
  gtk_range_set_value (GTK_RANGE (p->zoom_scale), n->init.zoom);
  gtk_entry_set_text (GTK_ENTRY (p->route_from), n->init.route_from ? n->init.route_from : "");
  gtk_entry_set_text (GTK_ENTRY (p->route_to), n->init.route_to ? n->init.route_to : "");
  gtk_entry_set_text (GTK_ENTRY (p->highlight), n->init.highlight ? n->init.highlight : "");
  /* one check box per plane */
  GList *kids = gtk_container_get_children (GTK_CONTAINER (p->planes_box));
  for (GList *l = kids; l; l = l->next)
    gtk_widget_destroy (l->data);
  g_list_free (kids);
  for (guint pl = 0; pl < n->planes && pl < 64; pl++)
    {
      char label[32];
      g_snprintf (label, sizeof label, "plane %u", pl);
      GtkWidget *c = gtk_check_button_new_with_label (label);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (c), !((n->init.hidden_planes >> pl) & 1));
      g_object_set_data (G_OBJECT (c), "plane", GUINT_TO_POINTER (pl));
      gtk_box_pack_start (GTK_BOX (p->planes_box), c, FALSE, FALSE, 0);
      gtk_widget_show (c);
    }
  p->syncing = FALSE;
}

static void
on_changed (GtkWidget *w, ViperSwitchnetPanel *p)
{
  SwnNet *n = net_of (p);
  if (!n || p->syncing)
    return;
  if (w == p->view_combo)
    n->init.view = (SwnViewMode) CLAMP (gtk_combo_box_get_active (GTK_COMBO_BOX (w)), 0, 2);
  else if (w == p->mode_combo)
    n->init.mode = (SwnValueMode) CLAMP (gtk_combo_box_get_active (GTK_COMBO_BOX (w)), 0, 2);
  else if (w == p->jobs_check)
    n->init.jobs = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (w));
  else if (w == p->min_spin || w == p->max_spin)
    {
      n->init.min = (gint64) gtk_spin_button_get_value (GTK_SPIN_BUTTON (p->min_spin));
      n->init.max = (gint64) gtk_spin_button_get_value (GTK_SPIN_BUTTON (p->max_spin));
    }
  else if (w == p->yaw_scale)
    n->init.yaw = gtk_range_get_value (GTK_RANGE (w));
  else if (w == p->pitch_scale)
    n->init.pitch = gtk_range_get_value (GTK_RANGE (w));
  else if (w == p->zoom_scale)
    n->init.zoom = gtk_range_get_value (GTK_RANGE (w));
  else if (w == p->highlight)
    {
      g_free (n->init.highlight);
      const char *t = gtk_entry_get_text (GTK_ENTRY (w));
      n->init.highlight = *t ? g_strdup (t) : NULL;
    }
  redraw (p);
}

static void
on_plane (GtkWidget *w, ViperSwitchnetPanel *p)
{
  SwnNet *n = net_of (p);
  if (!n || p->syncing || !GTK_IS_TOGGLE_BUTTON (w))
    return;
  guint pl = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (w), "plane"));
  guint64 bit = G_GUINT64_CONSTANT (1) << pl;
  if (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (w)))
    n->init.hidden_planes &= ~bit;
  else
    n->init.hidden_planes |= bit;
  redraw (p);
}

static void
on_plane_added (GtkContainer *box, GtkWidget *w, ViperSwitchnetPanel *p)
{
  (void) box;
  g_signal_connect (w, "toggled", G_CALLBACK (on_plane), p);
}

static void
on_route (GtkWidget *w, ViperSwitchnetPanel *p)
{
  (void) w;
  SwnNet *n = net_of (p);
  if (!n)
    return;
  const char *a = gtk_entry_get_text (GTK_ENTRY (p->route_from)), *b = gtk_entry_get_text (GTK_ENTRY (p->route_to));
  g_free (n->init.route_from);
  g_free (n->init.route_to);
  n->init.route_from = *a && *b ? g_strdup (a) : NULL;
  n->init.route_to = *a && *b ? g_strdup (b) : NULL;
  GError *error = NULL;
  if (!swn_net_follow_init_route (n, &error))
    {
      gtk_label_set_text (GTK_LABEL (p->route_msg), error->message);
      g_error_free (error);
    }
  else if (n->route_hops && n->route_hops->len)
    {
      char msg[64];
      g_snprintf (msg, sizeof msg, "%u switches", n->route_hops->len);
      gtk_label_set_text (GTK_LABEL (p->route_msg), msg);
    }
  else
    gtk_label_set_text (GTK_LABEL (p->route_msg), "");
  redraw (p);
}

static GtkWidget *
row (GtkWidget *grid, int r, const char *label, GtkWidget *w)
{
  GtkWidget *l = gtk_label_new (label);
  gtk_widget_set_halign (l, GTK_ALIGN_END);
  gtk_grid_attach (GTK_GRID (grid), l, 0, r, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), w, 1, r, 2, 1);
  return w;
}

static GtkWidget *
combo (const char *const *items)
{
  GtkWidget *c = gtk_combo_box_text_new ();
  for (guint i = 0; items[i]; i++)
    gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (c), items[i]);
  return c;
}

static GtkWidget *
scale (double lo, double hi, double step)
{
  GtkWidget *s = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, lo, hi, step);
  gtk_widget_set_size_request (s, 180, -1);
  return s;
}

ViperSwitchnetPanel *
viper_switchnet_panel_new (GtkWidget **views, guint n_views, void (*changed) (gpointer data), gpointer data)
{
  ViperSwitchnetPanel *p = g_new0 (ViperSwitchnetPanel, 1);
  p->changed = changed;
  p->changed_data = data;
  p->views = g_memdup2 (views, sizeof (GtkWidget *) * n_views);
  p->n_views = n_views;
  p->button = gtk_menu_button_new ();
  gtk_button_set_label (GTK_BUTTON (p->button), "Network");
  gtk_widget_set_tooltip_text (p->button, "Switch network: layout, values, range of interest, route");
  gtk_widget_set_can_focus (p->button, FALSE);
  gtk_widget_set_no_show_all (p->button, TRUE);
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 8);
  gtk_container_set_border_width (GTK_CONTAINER (grid), 8);
  static const char *const views_[] = { "Planar: network ports", "Planar: processor ports", "Torus", NULL };
  static const char *const modes[] = { "Slice (this step)", "Running total", "Total", NULL };
  int r = 0;
  p->view_combo = row (grid, r++, "Layout (Alt+N/P/O)", combo (views_));
  p->mode_combo = row (grid, r++, "Values (Alt+S/R/T)", combo (modes));
  p->jobs_check = row (grid, r++, "", gtk_check_button_new_with_label ("Colour by job (Alt+J)"));
  p->min_spin = row (grid, r++, "Minimum", gtk_spin_button_new_with_range (-1e12, 1e12, 1));
  p->max_spin = row (grid, r++, "Maximum", gtk_spin_button_new_with_range (-1e12, 1e12, 1));
  p->yaw_scale = row (grid, r++, "Torus: turn (Alt+\u2190\u2192)", scale (-180, 180, 5));
  p->pitch_scale = row (grid, r++, "Torus: tilt (Alt+\u2191\u2193)", scale (-90, 90, 5));
  p->zoom_scale = row (grid, r++, "Zoom (Alt+\u00b1)", scale (0.2, 8, 0.1));
  p->planes_box = row (grid, r++, "Planes shown", gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6));
  p->route_from = row (grid, r++, "Route from", gtk_entry_new ());
  p->route_to = row (grid, r++, "to", gtk_entry_new ());
  gtk_entry_set_placeholder_text (GTK_ENTRY (p->route_from), "node (n12) or switch");
  gtk_entry_set_placeholder_text (GTK_ENTRY (p->route_to), "node (n40) or switch");
  p->route_msg = row (grid, r++, "", gtk_label_new (""));
  gtk_label_set_line_wrap (GTK_LABEL (p->route_msg), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (p->route_msg), 40);
  p->highlight = row (grid, r++, "Highlight", gtk_entry_new ());
  gtk_entry_set_placeholder_text (GTK_ENTRY (p->highlight), "switch or port label (s0, s0.12, n5)");
  g_signal_connect (p->view_combo, "changed", G_CALLBACK (on_changed), p);
  g_signal_connect (p->mode_combo, "changed", G_CALLBACK (on_changed), p);
  g_signal_connect (p->jobs_check, "toggled", G_CALLBACK (on_changed), p);
  g_signal_connect (p->min_spin, "value-changed", G_CALLBACK (on_changed), p);
  g_signal_connect (p->max_spin, "value-changed", G_CALLBACK (on_changed), p);
  g_signal_connect (p->yaw_scale, "value-changed", G_CALLBACK (on_changed), p);
  g_signal_connect (p->pitch_scale, "value-changed", G_CALLBACK (on_changed), p);
  g_signal_connect (p->zoom_scale, "value-changed", G_CALLBACK (on_changed), p);
  g_signal_connect (p->highlight, "changed", G_CALLBACK (on_changed), p);
  g_signal_connect (p->route_from, "activate", G_CALLBACK (on_route), p);
  g_signal_connect (p->route_to, "activate", G_CALLBACK (on_route), p);
  g_signal_connect (p->planes_box, "add", G_CALLBACK (on_plane_added), p);
  gtk_widget_show_all (grid);
  GtkWidget *pop = gtk_popover_new (p->button);
  gtk_container_add (GTK_CONTAINER (pop), grid);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (p->button), pop);
  return p;
}

GtkWidget *
viper_switchnet_panel_button (ViperSwitchnetPanel *p)
{
  return p->button;
}

void
viper_switchnet_panel_set_session (ViperSwitchnetPanel *p, ViperSession *s)
{
  p->s = s;
  sync_controls (p);
}

void
viper_switchnet_panel_free (ViperSwitchnetPanel *p)
{
  if (!p)
    return;
  g_free (p->views);
  g_free (p);
}

/* ---- actions ---------------------------------------------------------------------------- */

static void
act_layout (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action;
  ViperSwitchnetPanel *p = data;
  SwnNet *n = net_of (p);
  if (!n)
    return;
  const char *v = g_variant_get_string (param, NULL);
  if (g_str_equal (v, "network"))
    n->init.view = SWN_VIEW_NETWORK;
  else if (g_str_equal (v, "processor"))
    n->init.view = SWN_VIEW_PROCESSOR;
  else if (g_str_equal (v, "torus"))
    n->init.view = SWN_VIEW_TORUS;
  else if (g_str_equal (v, "slice"))
    n->init.mode = SWN_MODE_SLICE;
  else if (g_str_equal (v, "running"))
    n->init.mode = SWN_MODE_RUNNING;
  else if (g_str_equal (v, "total"))
    n->init.mode = SWN_MODE_TOTAL;
  else if (g_str_equal (v, "jobs"))
    n->init.jobs = !n->init.jobs;
  else if (g_str_equal (v, "left") || g_str_equal (v, "right"))
    n->init.yaw = fmod (n->init.yaw + (g_str_equal (v, "left") ? -15 : 15) + 540, 360) - 180;
  else if (g_str_equal (v, "up") || g_str_equal (v, "down"))
    n->init.pitch = CLAMP (n->init.pitch + (g_str_equal (v, "up") ? -15 : 15), -90, 90);
  else if (g_str_equal (v, "zoom-in") || g_str_equal (v, "zoom-out"))
    n->init.zoom = CLAMP (n->init.zoom * (g_str_equal (v, "zoom-in") ? 1.25 : 0.8), 0.2, 8);
  sync_controls (p);
  redraw (p);
}

void
viper_switchnet_panel_add_actions (ViperSwitchnetPanel *p, GtkApplication *app)
{
  static const GActionEntry entries[] = {
    { "switchnet", act_layout, "s", NULL, NULL, { 0 } },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), p);
  static const struct {
    const char *target, *accel;
  } keys[] = {
    { "network", "<Alt>n" }, { "processor", "<Alt>p" }, { "torus", "<Alt>o" },
    { "slice", "<Alt>s" }, { "running", "<Alt>r" }, { "total", "<Alt>t" }, { "jobs", "<Alt>j" },
    { "left", "<Alt>Left" }, { "right", "<Alt>Right" }, { "up", "<Alt>Up" }, { "down", "<Alt>Down" },
    { "zoom-in", "<Alt>plus" }, { "zoom-out", "<Alt>minus" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      char *name = g_strdup_printf ("app.switchnet('%s')", keys[i].target);
      const char *accels[] = { keys[i].accel, NULL };
      gtk_application_set_accels_for_action (app, name, accels);
      g_free (name);
    }
}

char *
viper_switchnet_panel_describe (ViperSwitchnetPanel *p, GtkWidget *animation)
{
  static const char *const views_[] = { "network", "processor", "torus" };
  static const char *const modes[] = { "slice", "running", "total" };
  SwnNet *n = net_of (p);
  if (!n)
    return NULL;
  GString *j = g_string_new (NULL);
  g_string_append_printf (j, "{\"view\": \"%s\", \"mode\": \"%s\", \"jobs\": %s, \"yaw\": %g, \"pitch\": %g, "
                          "\"zoom\": %g, \"min\": %" G_GINT64_FORMAT ", \"max\": %" G_GINT64_FORMAT ", \"ports\": [",
                          views_[n->init.view], modes[n->init.mode], n->init.jobs ? "true" : "false", n->init.yaw,
                          n->init.pitch, n->init.zoom, n->init.min, n->init.max);
  /* where the ports with data are on the screen (root pixels), for the tests */
  GdkWindow *gw = animation ? gtk_widget_get_window (animation) : NULL;
  if (gw && gtk_widget_get_mapped (animation) && p->s->model)
    {
      int ox, oy;
      gdk_window_get_origin (gw, &ox, &oy);
      GtkAllocation al;
      gtk_widget_get_allocation (animation, &al);
      if (!gtk_widget_get_has_window (animation))
        ox += al.x, oy += al.y;
      guint listed = 0;
      for (guint sw = 0; sw < n->switches->len && listed < 200; sw++)
        for (guint port = 0; port < swn_n_ports (n) && listed < 200; port++)
          {
            SwnPortState ps;
            swn_model_port (p->s->model, sw, port, &ps);
            double x, y;
            if (!ps.has_value || !swn_port_point (p->s->model, al.width, al.height, sw, port, &x, &y))
              continue;
            g_string_append_printf (j, "%s{\"switch\": %u, \"port\": %u, \"shown\": %" G_GINT64_FORMAT
                                    ", \"x\": %d, \"y\": %d}", listed ? ", " : "", sw, port,
                                    swn_port_shown (&n->init, &ps), ox + (int) x, oy + (int) y);
            listed++;
          }
    }
  g_string_append (j, "]}");
  return g_string_free (j, FALSE);
}
