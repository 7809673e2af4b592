/* viper-title.c - the header bar's title and subtitle, the subtitle in the
 * room there is.
 *
 * The subtitle says the paradigm, what the replay is doing and the clock.
 * At the window's smallest width GtkHeaderBar's own subtitle was cut to
 * "picl · we...": what it was doing and the clock, the parts that change,
 * were the ones lost.  Here the subtitle is two labels on top of each
 * other in an overlay, the whole line (which gives the overlay its size)
 * and a compact one ("went to clock · 0.0203885"); when the overlay is
 * given less than the whole line's width, the compact one shows and the
 * whole one goes transparent.  Opacity, not visibility: which one shows
 * changes no size, so choosing in the allocation never moves the layout
 * (a GtkStack switched there kept its new child at the old child's width).
 * The overlay's minimum width keeps room for a compact line; the title
 * (the trace's name, also the window's name) gives way first.
 */
#include "viper-title.h"
#include "core/jsonout.h"

/* the compact line's room: "breakpoint · 18.732" and more at the subtitle's font */
#define COMPACT_MIN_W 170

struct _ViperTitle {
  GtkWidget *box, *title, *overlay, *full, *compact;
  gboolean compact_shown;
};

static GtkWidget *
line_label (const char *style)
{
  GtkWidget *l = gtk_label_new (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (l), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (l), TRUE);
  gtk_style_context_add_class (gtk_widget_get_style_context (l), style);
  return l;
}

/* The line that fits the overlay's width now. */
static void
pick (ViperTitle *t)
{
  int nat = 0;
  gtk_widget_get_preferred_width (t->full, NULL, &nat);
  t->compact_shown = gtk_widget_get_allocated_width (t->overlay) < nat;
  gtk_widget_set_opacity (t->full, t->compact_shown ? 0 : 1);
  gtk_widget_set_opacity (t->compact, t->compact_shown ? 1 : 0);
}

static void
on_allocate (GtkWidget *w, GdkRectangle *al, gpointer data)
{
  (void) w, (void) al;
  pick (data);
}

static void
on_destroy (GtkWidget *w, gpointer data)
{
  (void) w;
  g_free (data);
}

GtkWidget *
viper_title_new (ViperTitle **out)
{
  ViperTitle *t = g_new0 (ViperTitle, 1);
  t->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_valign (t->box, GTK_ALIGN_CENTER);
  t->title = line_label ("title");
  t->full = line_label ("subtitle");
  t->compact = line_label ("subtitle");
  t->overlay = gtk_overlay_new ();
  gtk_container_add (GTK_CONTAINER (t->overlay), t->full);
  gtk_overlay_add_overlay (GTK_OVERLAY (t->overlay), t->compact);
  gtk_overlay_set_overlay_pass_through (GTK_OVERLAY (t->overlay), t->compact, TRUE);
  gtk_widget_set_size_request (t->overlay, COMPACT_MIN_W, -1);
  gtk_style_context_add_class (gtk_widget_get_style_context (t->overlay), "dim-label");
  gtk_box_pack_start (GTK_BOX (t->box), t->title, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (t->box), t->overlay, FALSE, FALSE, 0);
  g_signal_connect (t->overlay, "size-allocate", G_CALLBACK (on_allocate), t);
  g_signal_connect (t->box, "destroy", G_CALLBACK (on_destroy), t);
  gtk_widget_show_all (t->box);
  gtk_widget_set_opacity (t->compact, 0);
  *out = t;
  return t->box;
}

void
viper_title_set (ViperTitle *t, const char *title)
{
  gtk_label_set_text (GTK_LABEL (t->title), title);
}

void
viper_title_set_subtitle (ViperTitle *t, const char *full, const char *compact)
{
  gtk_label_set_text (GTK_LABEL (t->full), full);
  gtk_label_set_text (GTK_LABEL (t->compact), compact);
}

void
viper_title_to_json (ViperTitle *t, GString *out)
{
  GtkWidget *shown = t->compact_shown ? t->compact : t->full;
  PangoLayout *layout = shown ? gtk_label_get_layout (GTK_LABEL (shown)) : NULL;
  g_string_append (out, "{\"shown\": ");
  viper_json_append_string (out, shown ? gtk_label_get_text (GTK_LABEL (shown)) : NULL);
  g_string_append_printf (out, ", \"compact\": %s, \"cut\": %s, \"width\": %d, \"title_cut\": %s}",
                          shown == t->compact ? "true" : "false",
                          layout && pango_layout_is_ellipsized (layout) ? "true" : "false",
                          gtk_widget_get_allocated_width (t->overlay),
                          pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (t->title))) ? "true" : "false");
}
