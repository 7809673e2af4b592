/* viper-status.c - the status window: is Viper reading, is it applying, and
 * what unusual happened (thesis 3.2.3, Figure 13).
 *
 * Reading and applying are decoupled (trams wait in the run until they are
 * consistent), so the window shows both the last tram read and the last tram
 * that changed the state, next to the clock and the pending count.  Special
 * conditions come from the session's diagnostics sink and are kept as a
 * bounded list, newest last, so a trace full of bad lines cannot grow it
 * without end.
 *
 * The same content can be docked in the main window (below the views) or
 * float in its own window (View > Dock diagnostics): one box, moved between
 * the two containers.  Messages wrap instead of being cut, and the reasons
 * trams are pending (what viper-replay prints at the end) have their own
 * section, so everything viper-replay says can be read here.
 */
#include <math.h>
#include "viper-status.h"
#include "paradigms/views.h"

#define MAX_CONDITIONS 500
#define FIRST_KEPT 250

struct _ViperStatus {
  GtkWidget *window;
  GtkWidget *content;       /* the box that moves between the window and the dock */
  GtkWidget *dock;          /* where it is docked, or NULL (in the window) */
  GtkWidget *paradigm, *pending_why;
  GtkWidget *read, *applied, *clock, *rate, *pending, *counts, *clock_mode, *clock_procs;
  GtkListStore *conditions;
  GtkWidget *view;
  GtkCellRenderer *msg_cell;
  GtkTreeViewColumn *kind_column;
  guint n_conditions;
  guint64 dropped;          /* conditions between the first and the latest, not listed */
};

static void
set_text (GtkWidget *label, const char *s)
{
  if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), s) != 0)
    gtk_label_set_text (GTK_LABEL (label), s);
}

static GtkWidget *
row (GtkGrid *grid, int y, const char *name)
{
  GtkWidget *l = gtk_label_new (name);
  gtk_widget_set_halign (l, GTK_ALIGN_START);
  gtk_style_context_add_class (gtk_widget_get_style_context (l), "dim-label");
  gtk_grid_attach (grid, l, 0, y, 1, 1);
  GtkWidget *v = gtk_label_new ("-");
  gtk_widget_set_halign (v, GTK_ALIGN_START);
  gtk_label_set_selectable (GTK_LABEL (v), FALSE);
  gtk_grid_attach (grid, v, 1, y, 1, 1);
  return v;
}

/* Messages wrap at the width the list has (docked it is narrower). */
static void
rewrap (GtkWidget *view, GdkRectangle *al, gpointer data)
{
  (void) view;
  ViperStatus *st = data;
  int w = MAX (120, al->width - gtk_tree_view_column_get_width (st->kind_column) - 16);
  int old = 0;
  g_object_get (st->msg_cell, "wrap-width", &old, NULL);
  if (ABS (old - w) > 8)
    {
      g_object_set (st->msg_cell, "wrap-width", w, NULL);
      gtk_tree_view_columns_autosize (GTK_TREE_VIEW (st->view));
    }
}

ViperStatus *
viper_status_new (GtkWindow *parent)
{
  ViperStatus *st = g_new0 (ViperStatus, 1);
  st->window = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title (GTK_WINDOW (st->window), "Viper status");
  gtk_window_set_transient_for (GTK_WINDOW (st->window), parent);
  gtk_window_set_default_size (GTK_WINDOW (st->window), 640, 420);
  gtk_window_set_position (GTK_WINDOW (st->window), GTK_WIN_POS_CENTER_ON_PARENT);
  gtk_window_set_skip_taskbar_hint (GTK_WINDOW (st->window), TRUE);
  /* closing only hides it: the menu's toggle brings it back */
  g_signal_connect (st->window, "delete-event", G_CALLBACK (gtk_widget_hide_on_delete), NULL);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_container_set_border_width (GTK_CONTAINER (box), 10);
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (grid, 12);
  gtk_grid_set_row_spacing (grid, 4);
  st->read = row (grid, 0, "Last tram read");
  st->applied = row (grid, 1, "Last state update");
  st->clock = row (grid, 2, "Execution clock");
  st->rate = row (grid, 3, "Trams/s");
  st->pending = row (grid, 4, "Pending");
  st->counts = row (grid, 5, "Read / transferred / rejected");
  st->paradigm = row (grid, 6, "Paradigm");
  st->pending_why = row (grid, 7, "Why pending");
  gtk_label_set_line_wrap (GTK_LABEL (st->paradigm), TRUE);
  gtk_label_set_line_wrap (GTK_LABEL (st->pending_why), TRUE);
  gtk_label_set_selectable (GTK_LABEL (st->pending_why), TRUE);
  gtk_label_set_xalign (GTK_LABEL (st->paradigm), 0);
  gtk_label_set_xalign (GTK_LABEL (st->pending_why), 0);
  gtk_widget_set_hexpand (st->pending_why, TRUE);
  st->clock_mode = row (grid, 8, "Global time");
  st->clock_procs = row (grid, 9, "Offset, drift, repaired");
  gtk_label_set_line_wrap (GTK_LABEL (st->clock_procs), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (st->clock_procs), 60);
  /* the counts scroll too: docked below the views they may get little height */
  GtkWidget *gsw = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (gsw), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (gsw), TRUE);
  gtk_scrolled_window_set_min_content_width (GTK_SCROLLED_WINDOW (gsw), 380);
  gtk_widget_set_halign (GTK_WIDGET (grid), GTK_ALIGN_START);
  gtk_container_add (GTK_CONTAINER (gsw), GTK_WIDGET (grid));
  gtk_box_pack_start (GTK_BOX (box), gsw, FALSE, FALSE, 0);
  GtkWidget *cbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *hdr = gtk_label_new ("Special conditions");
  gtk_widget_set_halign (hdr, GTK_ALIGN_START);
  gtk_box_pack_start (GTK_BOX (cbox), hdr, FALSE, FALSE, 0);
  st->conditions = gtk_list_store_new (2, G_TYPE_STRING, G_TYPE_STRING);
  st->view = gtk_tree_view_new_with_model (GTK_TREE_MODEL (st->conditions));
  gtk_tree_view_set_headers_visible (GTK_TREE_VIEW (st->view), FALSE);
  GtkCellRenderer *cell = gtk_cell_renderer_text_new ();
  gtk_tree_view_append_column (GTK_TREE_VIEW (st->view),
                               gtk_tree_view_column_new_with_attributes ("kind", cell, "text", 0, NULL));
  GtkCellRenderer *msg = gtk_cell_renderer_text_new ();
  /* long reasons wrap rather than being cut at the window's edge */
  g_object_set (msg, "wrap-mode", PANGO_WRAP_WORD_CHAR, "wrap-width", 520, NULL);
  gtk_tree_view_append_column (GTK_TREE_VIEW (st->view),
                               gtk_tree_view_column_new_with_attributes ("message", msg, "text", 1, NULL));
  gtk_tree_view_set_tooltip_column (GTK_TREE_VIEW (st->view), 1);
  st->msg_cell = msg;
  st->kind_column = gtk_tree_view_get_column (GTK_TREE_VIEW (st->view), 0);
  g_signal_connect (st->view, "size-allocate", G_CALLBACK (rewrap), st);
  GtkWidget *sw = gtk_scrolled_window_new (NULL, NULL);
  gtk_container_add (GTK_CONTAINER (sw), st->view);
  gtk_box_pack_start (GTK_BOX (cbox), sw, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (box), cbox, TRUE, TRUE, 0);
  gtk_container_add (GTK_CONTAINER (st->window), box);
  gtk_widget_show_all (box);
  st->content = box;
  return st;
}

void
viper_status_free (ViperStatus *st)
{
  if (!st)
    return;
  gtk_widget_destroy (st->window);
  g_object_unref (st->conditions);
  g_free (st);
}

GtkWidget *viper_status_window (ViperStatus *st) { return st->window; }

void
viper_status_set_docked (ViperStatus *st, GtkWidget *dock)
{
  if (dock == st->dock)
    return;
  g_object_ref (st->content);
  gtk_container_remove (GTK_CONTAINER (gtk_widget_get_parent (st->content)), st->content);
  /* docked: the counts beside the conditions, so both fit a low pane */
  gtk_orientable_set_orientation (GTK_ORIENTABLE (st->content),
                                  dock ? GTK_ORIENTATION_HORIZONTAL : GTK_ORIENTATION_VERTICAL);
  if (dock)
    {
      gtk_container_add (GTK_CONTAINER (dock), st->content);
      gtk_widget_hide (st->window);
    }
  else
    gtk_container_add (GTK_CONTAINER (st->window), st->content);
  g_object_unref (st->content);
  st->dock = dock;
}

gboolean viper_status_docked (ViperStatus *st) { return st->dock != NULL; }

gboolean
viper_status_shown (ViperStatus *st)
{
  return st->dock ? gtk_widget_get_visible (st->dock) : gtk_widget_get_visible (st->window);
}

void
viper_status_set_paradigm (ViperStatus *st, const char *text)
{
  set_text (st->paradigm, text ? text : "-");
}

void
viper_status_set_pending_reasons (ViperStatus *st, ViperSession *s)
{
  ViperCounts c;
  if (!s)
    {
      set_text (st->pending_why, "-");
      return;
    }
  viper_run_counts (s->run, &c);
  if (c.pending == 0)
    {
      set_text (st->pending_why, "-");
      return;
    }
  GArray *stuck = viper_run_stuck (s->run);
  GString *g = g_string_new (NULL);
  guint shown = MIN (stuck->len, 50);
  for (guint i = 0; i < shown; i++)
    {
      const ViperStuck *x = &g_array_index (stuck, ViperStuck, i);
      g_string_append_printf (g, "%sproc %" G_GINT64_FORMAT ": %" G_GUINT64_FORMAT " trams wait for %s", i ? "\n" : "",
                              x->proc, x->trams, x->waiting_for);
    }
  if (stuck->len > shown)
    g_string_append_printf (g, "\n(and %u more lists)", stuck->len - shown);
  viper_stuck_array_free (stuck);
  set_text (st->pending_why, g->str);
  g_string_free (g, TRUE);
}

static const char *
module_name (ViperSession *s, gint64 proc, char *buf, gsize len)
{
  /* the renderer's label names modules by the setup file when there is one */
  if (proc < 0)
    g_snprintf (buf, len, "program manager");
  else
    {
      char *label = viper_view_renderer (s->model)->module_label (s->model, proc);
      g_strlcpy (buf, label, len);
      g_free (label);
    }
  return buf;
}

void
viper_status_update (ViperStatus *st, ViperSession *s, double trams_per_s)
{
  char buf[160], name[64], tb[32];
  double t;
  gint64 proc;
  if (s && viper_scheduler_last_read (s->sched, &t, &proc))
    {
      g_snprintf (buf, sizeof buf, "%s, time stamp %s", module_name (s, proc, name, sizeof name),
                  viper_format_double (t, tb));
      set_text (st->read, buf);
    }
  else
    set_text (st->read, "-");
  double clock = s ? viper_run_clock (s->run) : NAN;
  set_text (st->clock, isfinite (clock) ? viper_format_double (clock, tb) : "-");
  g_snprintf (buf, sizeof buf, "%.0f", trams_per_s);
  set_text (st->rate, buf);
  if (s)
    {
      ViperCounts c;
      viper_run_counts (s->run, &c);
      g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, c.pending);
      set_text (st->pending, buf);
      g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT,
                  c.read, c.transferred, c.rejected);
      set_text (st->counts, buf);
    }
  /* global time: the mode, and per module the estimated offset and drift
   * and how many of its trams had to be repaired */
  const ViperClockSync *cs = s ? s->clock_sync : NULL;
  if (cs)
    {
      g_snprintf (buf, sizeof buf, "%s, reference %" G_GINT64_FORMAT ", %" G_GUINT64_FORMAT " violations repaired",
                  viper_clock_mode_name (viper_clock_sync_mode (cs)), viper_clock_sync_reference (cs),
                  viper_clock_sync_violations_repaired (cs));
      set_text (st->clock_mode, buf);
      GString *g = g_string_new (NULL);
      for (guint i = 0; i < viper_clock_sync_n_procs (cs) && i < 64; i++)
        {
          const ViperClockProc *p = viper_clock_sync_proc (cs, i);
          g_string_append_printf (g, "%s%" G_GINT64_FORMAT ": %+.6g, %+.1f ppm, %" G_GUINT64_FORMAT,
                                  i ? "\n" : "", p->proc, p->offset, p->drift_ppm, p->violations_repaired);
        }
      if (viper_clock_sync_n_procs (cs) > 64)
        g_string_append_printf (g, "\n... %u modules in all", viper_clock_sync_n_procs (cs));
      set_text (st->clock_procs, g->str);
      g_string_free (g, TRUE);
    }
  else
    {
      set_text (st->clock_mode, "decay");
      set_text (st->clock_procs, "-");
    }
}

void
viper_status_set_last_applied (ViperStatus *st, const char *module, double time, double adjusted)
{
  char buf[160], tb[32], ab[32];
  if (!module)
    {
      set_text (st->applied, "-");
      return;
    }
  g_snprintf (buf, sizeof buf, "%s, time stamp %s (adjusted %s)", module, viper_format_double (time, tb),
              viper_format_double (adjusted, ab));
  set_text (st->applied, buf);
}

void
viper_status_condition (ViperStatus *st, ViperDiagKind kind, const char *message)
{
  const char *k;
  switch (kind)
    {
    case VIPER_DIAG_BAD_INPUT: k = "bad input"; break;
    case VIPER_DIAG_WARNING: k = "warning"; break;
    case VIPER_DIAG_CONNECTION: k = "connection"; break;
    case VIPER_DIAG_TRACE_START: k = "start of trace"; break;
    case VIPER_DIAG_TRACE_END: k = "end of trace"; break;
    default: k = "note"; break;
    }
  /* The first conditions say the most (the first bad lines, why the rest
   * went wrong) and the last say what is happening now: keep both, and say
   * how many in between are not listed. */
  GtkTreeIter it;
  GtkTreeModel *tm = GTK_TREE_MODEL (st->conditions);
  if (st->n_conditions >= MAX_CONDITIONS)
    {
      GtkTreeIter marker;
      if (st->dropped == 0)
        gtk_list_store_insert (st->conditions, &marker, FIRST_KEPT);
      else
        gtk_tree_model_iter_nth_child (tm, &marker, NULL, FIRST_KEPT);
      /* the oldest of the recent ones goes */
      if (gtk_tree_model_iter_nth_child (tm, &it, NULL, FIRST_KEPT + 1))
        gtk_list_store_remove (st->conditions, &it);
      st->dropped++;
      char *text = g_strdup_printf ("%" G_GUINT64_FORMAT " more conditions not listed here (the first %d and the "
                                    "latest are); viper-replay prints them all", st->dropped, FIRST_KEPT);
      gtk_list_store_set (st->conditions, &marker, 0, "\u2026", 1, text, -1);
      g_free (text);
    }
  else
    st->n_conditions++;
  gtk_list_store_insert_with_values (st->conditions, &it, -1, 0, k, 1, message, -1);
}

void
viper_status_clear (ViperStatus *st)
{
  gtk_list_store_clear (st->conditions);
  st->n_conditions = 0;
  st->dropped = 0;
  set_text (st->applied, "-");
  set_text (st->pending_why, "-");
}
