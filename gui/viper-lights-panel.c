/* viper-lights-panel.c - Freeze and the range of interest (docs/paradigm-lights.md).
 *
 * Lilith Lights had pull-down menus to freeze the display and pop-up
 * windows to recolour the traffic arrows for a range of interest.  Here
 * both sit in the header bar while a lights model is shown: the Freeze
 * toggle (Shift+F) makes the views draw the loads and link rates as they were
 * (lights_model_set_frozen: the replay goes on underneath, Export view
 * prints the frozen picture), and the Range popover sets MIN and MAX in
 * bytes per second (k, M, G allowed) and the colours below and above.
 * The fields show the rates as the views write them (lights_format_rate:
 * "125.00 MB/s", not "1.25e+08") and read that text back; a field left as
 * shown keeps the exact value it showed.
 * The model owns both settings; this file only edits them, and the
 * model's damage set makes every view repaint at the next tick.
 */
#include <math.h>
#include <string.h>
#include "viper-lights-panel.h"
#include "paradigms/lights/lights.h"
#include "paradigms/lights/lights-render.h"
#include "core/jsonout.h"

struct _ViperLightsPanel {
  ViperModel *m;            /* not owned; NULL unless a lights model */
  GSimpleAction *freeze, *range;
  GtkWidget *box, *freeze_button, *range_button, *popover;
  GtkWidget *min_entry, *max_entry, *below, *above, *error;
  /* what the fields were given and the exact rates behind that text */
  char shown[2][32];
  double shown_v[2];
  void (*notify) (gpointer);   /* the popover's text changed (the app's dump) */
  gpointer notify_data;
};

static void
notify (ViperLightsPanel *p)
{
  if (p->notify)
    p->notify (p->notify_data);
}

static gboolean
parse_rate (const char *s, double *out)
{
  while (*s == ' ')
    s++;
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);
  if (end == s || !isfinite (v) || v < 0)
    return FALSE;
  double mult = 1;
  while (*end == ' ')
    end++;
  if (*end == 'k' || *end == 'K')
    mult = 1e3, end++;
  else if (*end == 'M')
    mult = 1e6, end++;
  else if (*end == 'G')
    mult = 1e9, end++;
  /* the unit as the fields show it: "125.00 MB/s", "512 B/s" */
  if (*end == 'B')
    end += strncmp (end, "B/s", 3) == 0 ? 3 : 1;
  while (*end == ' ')
    end++;
  if (*end || !isfinite (v * mult))
    return FALSE;
  *out = v * mult;
  return TRUE;
}

static void
rgba_of (const ViperViewRgb *c, GdkRGBA *out)
{
  *out = (GdkRGBA) { c->r, c->g, c->b, 1 };
}

static void
show_range (ViperLightsPanel *p)
{
  if (!p->m)
    return;
  LightsRange r;
  lights_model_range (p->m, &r);
  p->shown_v[0] = r.min;
  p->shown_v[1] = r.max;
  lights_format_rate (r.min, p->shown[0], sizeof p->shown[0]);
  lights_format_rate (r.max, p->shown[1], sizeof p->shown[1]);
  gtk_entry_set_text (GTK_ENTRY (p->min_entry), p->shown[0]);
  gtk_entry_set_text (GTK_ENTRY (p->max_entry), p->shown[1]);
  GdkRGBA c;
  rgba_of (&r.below, &c);
  gtk_color_chooser_set_rgba (GTK_COLOR_CHOOSER (p->below), &c);
  rgba_of (&r.above, &c);
  gtk_color_chooser_set_rgba (GTK_COLOR_CHOOSER (p->above), &c);
  gtk_label_set_text (GTK_LABEL (p->error), "");
  notify (p);
}

/* A field's rate: the exact one it was given if its text is still that
 * (the text is rounded to what reads well), else what is typed. */
static gboolean
field_rate (ViperLightsPanel *p, int i, double *out)
{
  const char *t = gtk_entry_get_text (GTK_ENTRY (i ? p->max_entry : p->min_entry));
  if (strcmp (t, p->shown[i]) == 0)
    {
      *out = p->shown_v[i];
      return TRUE;
    }
  return parse_rate (t, out);
}

static void
on_apply (GtkWidget *w, gpointer data)
{
  (void) w;
  ViperLightsPanel *p = data;
  if (!p->m)
    return;
  LightsRange r;
  if (!field_rate (p, 0, &r.min) || !field_rate (p, 1, &r.max) || !(r.max > r.min))
    {
      gtk_label_set_text (GTK_LABEL (p->error), "MIN and MAX: bytes per second (such as 125 MB/s, 125M or "
                                                "125000000), MAX > MIN");
      notify (p);
      return;
    }
  GdkRGBA c;
  gtk_color_chooser_get_rgba (GTK_COLOR_CHOOSER (p->below), &c);
  r.below = (ViperViewRgb) { c.red, c.green, c.blue };
  gtk_color_chooser_get_rgba (GTK_COLOR_CHOOSER (p->above), &c);
  r.above = (ViperViewRgb) { c.red, c.green, c.blue };
  lights_model_set_range (p->m, &r);
  gtk_label_set_text (GTK_LABEL (p->error), "");
  gtk_popover_popdown (GTK_POPOVER (p->popover));
  notify (p);
}

static void
act_freeze (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) param;
  ViperLightsPanel *p = data;
  gboolean on = !g_variant_get_boolean (g_action_get_state (G_ACTION (action)));
  if (!p->m)
    on = FALSE;
  g_simple_action_set_state (action, g_variant_new_boolean (on));
  if (p->m)
    lights_model_set_frozen (p->m, on);
}

static void
act_range (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action;
  (void) param;
  ViperLightsPanel *p = data;
  if (!p->m)
    return;
  show_range (p);
  gtk_popover_popup (GTK_POPOVER (p->popover));
  gtk_widget_grab_focus (p->min_entry);
}

static GtkWidget *
row (GtkWidget *grid, int y, const char *label, GtkWidget *w)
{
  GtkWidget *l = gtk_label_new (label);
  gtk_widget_set_halign (l, GTK_ALIGN_END);
  gtk_grid_attach (GTK_GRID (grid), l, 0, y, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), w, 1, y, 1, 1);
  return w;
}

ViperLightsPanel *
viper_lights_panel_new (GActionMap *map)
{
  ViperLightsPanel *p = g_new0 (ViperLightsPanel, 1);
  p->freeze = g_simple_action_new_stateful ("lights-freeze", NULL, g_variant_new_boolean (FALSE));
  g_signal_connect (p->freeze, "activate", G_CALLBACK (act_freeze), p);
  g_action_map_add_action (map, G_ACTION (p->freeze));
  p->range = g_simple_action_new ("lights-range", NULL);
  g_signal_connect (p->range, "activate", G_CALLBACK (act_range), p);
  g_action_map_add_action (map, G_ACTION (p->range));

  p->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  p->freeze_button = gtk_toggle_button_new_with_label ("Freeze");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (p->freeze_button), "app.lights-freeze");
  gtk_widget_set_tooltip_text (p->freeze_button, "Freeze the display; the replay goes on (Shift+F)");
  gtk_widget_set_can_focus (p->freeze_button, FALSE);
  gtk_box_pack_start (GTK_BOX (p->box), p->freeze_button, FALSE, FALSE, 0);
  p->range_button = gtk_menu_button_new ();
  gtk_button_set_label (GTK_BUTTON (p->range_button), "Range\u2026");
  gtk_widget_set_tooltip_text (p->range_button, "Range of interest of the traffic arrows' colours (I)");
  gtk_widget_set_can_focus (p->range_button, FALSE);
  gtk_box_pack_start (GTK_BOX (p->box), p->range_button, FALSE, FALSE, 0);

  p->popover = gtk_popover_new (p->range_button);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (p->range_button), p->popover);
  g_signal_connect_swapped (p->popover, "show", G_CALLBACK (show_range), p);
  /* (closing may animate: the popover is hidden when that ends) */
  g_signal_connect_swapped (p->popover, "hide", G_CALLBACK (notify), p);
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 8);
  gtk_container_set_border_width (GTK_CONTAINER (grid), 10);
  p->min_entry = row (grid, 0, "Min (bytes/s)", gtk_entry_new ());
  p->max_entry = row (grid, 1, "Max (bytes/s)", gtk_entry_new ());
  p->below = row (grid, 2, "Below min", gtk_color_button_new ());
  p->above = row (grid, 3, "Above max", gtk_color_button_new ());
  GtkWidget *apply = gtk_button_new_with_label ("Apply");
  g_signal_connect (apply, "clicked", G_CALLBACK (on_apply), p);
  /* Return applies from either field (the user guide says so; MIN alone
   * is the common change) */
  g_signal_connect (p->min_entry, "activate", G_CALLBACK (on_apply), p);
  g_signal_connect (p->max_entry, "activate", G_CALLBACK (on_apply), p);
  gtk_grid_attach (GTK_GRID (grid), apply, 1, 4, 1, 1);
  p->error = gtk_label_new ("");
  gtk_grid_attach (GTK_GRID (grid), p->error, 0, 5, 2, 1);
  gtk_widget_show_all (grid);
  gtk_container_add (GTK_CONTAINER (p->popover), grid);
  gtk_widget_show_all (p->box);
  gtk_widget_set_no_show_all (p->box, TRUE);
  gtk_widget_hide (p->box);
  return p;
}

void
viper_lights_panel_free (ViperLightsPanel *p)
{
  if (!p)
    return;
  g_object_unref (p->freeze);
  g_object_unref (p->range);
  g_free (p);
}

GtkWidget *
viper_lights_panel_widget (ViperLightsPanel *p)
{
  return p->box;
}

void
viper_lights_panel_set_notify (ViperLightsPanel *p, void (*fn) (gpointer), gpointer data)
{
  p->notify = fn;
  p->notify_data = data;
}

void
viper_lights_panel_describe (ViperLightsPanel *p, GString *j)
{
  if (!p || !p->m || !gtk_widget_get_visible (p->popover))
    {
      g_string_append (j, "null");
      return;
    }
  g_string_append (j, "{\"min\": ");
  viper_json_append_string (j, gtk_entry_get_text (GTK_ENTRY (p->min_entry)));
  g_string_append (j, ", \"max\": ");
  viper_json_append_string (j, gtk_entry_get_text (GTK_ENTRY (p->max_entry)));
  g_string_append (j, ", \"error\": ");
  viper_json_append_string (j, gtk_label_get_text (GTK_LABEL (p->error)));
  g_string_append (j, "}");
}

void
viper_lights_panel_set_model (ViperLightsPanel *p, ViperModel *m)
{
  p->m = m && g_str_equal (m->paradigm->name, "lights") ? m : NULL;
  g_simple_action_set_state (p->freeze, g_variant_new_boolean (p->m && lights_model_frozen (p->m)));
  g_simple_action_set_enabled (p->range, p->m != NULL);
  gtk_widget_set_visible (p->box, p->m != NULL);
}
