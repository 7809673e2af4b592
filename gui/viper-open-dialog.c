/* viper-open-dialog.c - opening a trace or listening, with the paradigm in
 * plain sight.
 *
 * File > Open used to keep the previous session's paradigm, so a PICL trace
 * opened after a Macrame session was read as Macrame (132 transferred, 605
 * rejected, 400 pending, "no module has started").  Now the paradigm is a
 * choice in the dialog, "Automatic" by default: the trace's first lines and
 * the setup file's kind decide (core/detect.c, shared with viper-replay
 * --paradigm=auto), and the reason is shown under the choice as soon as a
 * file is selected.  A setup file with the trace's stem is proposed.
 */
#include <string.h>
#include "viper-open-dialog.h"
#include "core/detect.h"
#include "paradigms/paradigms.h"
#include "viper-session.h"
#include "viper-desktop.h"

void
viper_open_choice_clear (ViperOpenChoice *c)
{
  g_free (c->trace);
  g_free (c->address);
  g_free (c->setup);
  g_free (c->paradigm);
  g_free (c->folder);
  memset (c, 0, sizeof *c);
}

gboolean
viper_is_setup_file (const char *path)
{
  return g_str_has_suffix (path, ".setup") || g_str_has_suffix (path, ".view");
}

static void
add_filter (GtkFileChooser *fc, const char *name, const char *const *patterns, const char *mime)
{
  GtkFileFilter *f = gtk_file_filter_new ();
  gtk_file_filter_set_name (f, name);
  for (const char *const *p = patterns; *p; p++)
    gtk_file_filter_add_pattern (f, *p);
  if (mime)
    gtk_file_filter_add_mime_type (f, mime);
  gtk_file_chooser_add_filter (fc, f);
}

void
viper_add_trace_filters (GtkFileChooser *fc)
{
  static const char *const traces[] = { "*.trc", "*.trf", "*.txt", NULL };
  static const char *const all[] = { "*", NULL };
  add_filter (fc, "Traces (.trc, .trf, .txt)", traces, "text/x-picl-trace");
  add_filter (fc, "All files", all, NULL);
}

void
viper_add_setup_filters (GtkFileChooser *fc)
{
  static const char *const setups[] = { "*.setup", "*.view", NULL };
  static const char *const all[] = { "*", NULL };
  add_filter (fc, "Setup files (.setup, .view)", setups, NULL);
  add_filter (fc, "All files", all, NULL);
}

/* ---- the shared part: paradigm, setup, the detection's reason ------------- */

typedef struct {
  GtkWidget *combo, *setup, *reason, *clear;
  GtkWidget *clock;                /* Open only: the global time (issue 15) */
  GtkFileChooser *trace_chooser;   /* NULL for Listen */
  gboolean setup_by_user;          /* the user picked a setup: stop proposing */
  gboolean proposing;
} Extra;

static char *
chosen_setup (Extra *x)
{
  return gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (x->setup));
}

static void
update_reason (Extra *x)
{
  char *trace = x->trace_chooser ? gtk_file_chooser_get_filename (x->trace_chooser) : NULL;
  char *setup = chosen_setup (x);
  const char *id = gtk_combo_box_get_active_id (GTK_COMBO_BOX (x->combo));
  char *text;
  if (id && !g_str_equal (id, "auto"))
    text = g_strdup_printf ("Chosen: %s.", id);
  else if (!trace && !setup)
    text = g_strdup (x->trace_chooser ? "Select a trace: its first lines decide the paradigm."
                                      : "No trace to look at yet: the setup file's kind decides, else picl.");
  else
    {
      ViperDetect d;
      const char *traces[] = { trace, NULL };
      viper_paradigm_detect (trace && g_file_test (trace, G_FILE_TEST_IS_REGULAR) ? traces : NULL, setup, &d);
      text = g_strdup_printf ("Detected: %s (%s).", d.paradigm ? d.paradigm->name : "picl by default", d.reason);
      viper_detect_clear (&d);
    }
  gtk_label_set_text (GTK_LABEL (x->reason), text);
  gtk_widget_set_tooltip_text (x->reason, text);
  g_free (text);
  g_free (trace);
  g_free (setup);
}

static void
on_trace_changed (GtkFileChooser *fc, gpointer data)
{
  Extra *x = data;
  char *trace = gtk_file_chooser_get_filename (fc);
  if (trace && !x->setup_by_user && g_file_test (trace, G_FILE_TEST_IS_REGULAR))
    {
      char *proposed = viper_propose_setup (trace);
      x->proposing = TRUE;
      if (proposed)
        gtk_file_chooser_set_filename (GTK_FILE_CHOOSER (x->setup), proposed);
      else
        gtk_file_chooser_unselect_all (GTK_FILE_CHOOSER (x->setup));
      x->proposing = FALSE;
      g_free (proposed);
    }
  g_free (trace);
  update_reason (x);
}

static void
on_setup_changed (GtkFileChooserButton *b, gpointer data)
{
  (void) b;
  Extra *x = data;
  if (!x->proposing)
    x->setup_by_user = TRUE;
  update_reason (x);
}

static void
on_clear (GtkButton *b, gpointer data)
{
  (void) b;
  Extra *x = data;
  gtk_file_chooser_unselect_all (GTK_FILE_CHOOSER (x->setup));
  x->setup_by_user = TRUE;
  update_reason (x);
}

static void
on_combo (GtkComboBox *c, gpointer data)
{
  (void) c;
  update_reason (data);
}

static GtkWidget *
build_extra (Extra *x, GtkWindow *parent, const char *setup, const char *paradigm, const char *setup_folder)
{
  (void) parent;
  viper_paradigms_register_all ();
  GtkGrid *g = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_row_spacing (g, 6);
  gtk_grid_set_column_spacing (g, 8);
  GtkWidget *l = gtk_label_new_with_mnemonic ("_Paradigm:");
  gtk_widget_set_halign (l, GTK_ALIGN_END);
  gtk_grid_attach (g, l, 0, 0, 1, 1);
  x->combo = gtk_combo_box_text_new ();
  gtk_widget_set_name (x->combo, "paradigm");
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), x->combo);
  gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (x->combo), "auto", "Automatic (from the content)");
  guint n = 0;
  const ViperParadigm *const *list = viper_paradigm_list (&n);
  for (guint i = 0; i < n; i++)
    if (list[i]->model_new)
      {
        char *label = g_strdup_printf ("%s \u2014 %s", list[i]->name, list[i]->description ? list[i]->description : "");
        gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (x->combo), list[i]->name, label);
        g_free (label);
      }
  if (!paradigm || !gtk_combo_box_set_active_id (GTK_COMBO_BOX (x->combo), paradigm))
    gtk_combo_box_set_active_id (GTK_COMBO_BOX (x->combo), "auto");
  gtk_grid_attach (g, x->combo, 1, 0, 2, 1);
  l = gtk_label_new_with_mnemonic ("S_etup file:");
  gtk_widget_set_halign (l, GTK_ALIGN_END);
  gtk_grid_attach (g, l, 0, 1, 1, 1);
  /* the button's own dialog, made here so that it fits the screen too */
  GtkWidget *sd = gtk_file_chooser_dialog_new ("Setup file", parent, GTK_FILE_CHOOSER_ACTION_OPEN, "_Cancel",
                                               GTK_RESPONSE_CANCEL, "_Open", GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (sd), GTK_RESPONSE_ACCEPT);
  viper_dialog_fit_screen (sd);
  x->setup = gtk_file_chooser_button_new_with_dialog (sd);
  gtk_widget_set_name (x->setup, "setup");
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), x->setup);
  viper_add_setup_filters (GTK_FILE_CHOOSER (x->setup));
  if (setup_folder)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (x->setup), setup_folder);
  if (setup)
    gtk_file_chooser_set_filename (GTK_FILE_CHOOSER (x->setup), setup);
  gtk_widget_set_hexpand (x->setup, TRUE);
  gtk_grid_attach (g, x->setup, 1, 1, 1, 1);
  x->clear = gtk_button_new_with_mnemonic ("_No setup");
  gtk_widget_set_tooltip_text (x->clear, "Open without a setup file");
  gtk_grid_attach (g, x->clear, 2, 1, 1, 1);
  x->reason = gtk_label_new (NULL);
  gtk_widget_set_name (x->reason, "reason");
  gtk_label_set_xalign (GTK_LABEL (x->reason), 0);
  gtk_label_set_line_wrap (GTK_LABEL (x->reason), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (x->reason), 90);
  gtk_style_context_add_class (gtk_widget_get_style_context (x->reason), "dim-label");
  gtk_grid_attach (g, x->reason, 0, 2, 3, 1);
  if (x->trace_chooser)
    {
      /* global time for a trace file: decay, or post-mortem drift / clc */
      l = gtk_label_new_with_mnemonic ("C_lock:");
      gtk_widget_set_halign (l, GTK_ALIGN_END);
      gtk_grid_attach (g, l, 0, 3, 1, 1);
      x->clock = gtk_combo_box_text_new ();
      gtk_widget_set_name (x->clock, "clock");
      gtk_label_set_mnemonic_widget (GTK_LABEL (l), x->clock);
      gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (x->clock), "decay", "Decay (as live)");
      gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (x->clock), "drift", "Offset and drift (post-mortem)");
      gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (x->clock), "clc", "Drift + controlled logical clock");
      gtk_combo_box_set_active_id (GTK_COMBO_BOX (x->clock), viper_clock_mode_name (viper_session_clock_mode ()));
      gtk_grid_attach (g, x->clock, 1, 3, 2, 1);
    }
  g_signal_connect (x->combo, "changed", G_CALLBACK (on_combo), x);
  g_signal_connect (x->setup, "file-set", G_CALLBACK (on_setup_changed), x);
  g_signal_connect (x->clear, "clicked", G_CALLBACK (on_clear), x);
  gtk_widget_show_all (GTK_WIDGET (g));
  return GTK_WIDGET (g);
}

static void
take_choice (Extra *x, ViperOpenChoice *out)
{
  out->setup = chosen_setup (x);
  const char *id = gtk_combo_box_get_active_id (GTK_COMBO_BOX (x->combo));
  out->paradigm = id && !g_str_equal (id, "auto") ? g_strdup (id) : NULL;
  ViperClockMode m;
  if (x->clock && viper_clock_mode_parse (gtk_combo_box_get_active_id (GTK_COMBO_BOX (x->clock)), &m))
    viper_session_set_clock_mode (m);
}

gboolean
viper_open_dialog_run (GtkWindow *parent, const char *folder, const char *setup_folder, ViperOpenChoice *out)
{
  memset (out, 0, sizeof *out);
  GtkWidget *d = gtk_file_chooser_dialog_new ("Open Trace", parent, GTK_FILE_CHOOSER_ACTION_OPEN, "_Cancel",
                                              GTK_RESPONSE_CANCEL, "_Open", GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_ACCEPT);
  viper_dialog_fit_screen (d);
  GtkFileChooser *fc = GTK_FILE_CHOOSER (d);
  viper_add_trace_filters (fc);
  /* start in a folder, not in "Recent" (File > Open Recent is the menu's) */
  char *cwd = g_get_current_dir ();
  gtk_file_chooser_set_current_folder (fc, folder && g_file_test (folder, G_FILE_TEST_IS_DIR) ? folder : cwd);
  g_free (cwd);
  Extra x = { 0 };
  x.trace_chooser = fc;
  gtk_file_chooser_set_extra_widget (fc, build_extra (&x, parent, NULL, NULL, setup_folder));
  g_signal_connect (fc, "selection-changed", G_CALLBACK (on_trace_changed), &x);
  update_reason (&x);
  gboolean ok = FALSE;
  if (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_ACCEPT)
    {
      out->trace = gtk_file_chooser_get_filename (fc);
      if (out->trace)
        {
          take_choice (&x, out);
          out->folder = g_path_get_dirname (out->trace);
          ok = TRUE;
        }
    }
  gtk_widget_destroy (d);
  return ok;
}

gboolean
viper_listen_dialog_run (GtkWindow *parent, const char *address, const char *setup, const char *paradigm,
                         const char *setup_folder, ViperOpenChoice *out)
{
  memset (out, 0, sizeof *out);
  GtkWidget *d = gtk_dialog_new_with_buttons ("Listen", parent, GTK_DIALOG_MODAL, "_Cancel", GTK_RESPONSE_CANCEL,
                                              "_Listen", GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_OK);
  GtkWidget *box = gtk_dialog_get_content_area (GTK_DIALOG (d));
  gtk_container_set_border_width (GTK_CONTAINER (box), 12);
  gtk_box_set_spacing (GTK_BOX (box), 8);
  GtkWidget *l = gtk_label_new ("Accept trams on (tcp:HOST:PORT, tcp:PORT or unix:PATH):");
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_container_add (GTK_CONTAINER (box), l);
  GtkWidget *entry = gtk_entry_new ();
  gtk_widget_set_name (entry, "address");
  gtk_entry_set_text (GTK_ENTRY (entry), address ? address : "tcp:127.0.0.1:7405");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_container_add (GTK_CONTAINER (box), entry);
  GtkWidget *note = gtk_label_new ("Only programs on this machine can connect to 127.0.0.1 or a unix: path; the "
                                   "protocol has no authentication. A new run that connects when none is "
                                   "connected starts the session over.");
  gtk_label_set_line_wrap (GTK_LABEL (note), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (note), 70);
  gtk_label_set_xalign (GTK_LABEL (note), 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (note), "dim-label");
  gtk_container_add (GTK_CONTAINER (box), note);
  Extra x = { 0 };
  gtk_container_add (GTK_CONTAINER (box), build_extra (&x, parent, setup, paradigm, setup_folder));
  update_reason (&x);
  gtk_widget_show_all (d);
  gboolean ok = FALSE;
  if (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_OK)
    {
      out->address = g_strdup (gtk_entry_get_text (GTK_ENTRY (entry)));
      take_choice (&x, out);
      ok = TRUE;
    }
  gtk_widget_destroy (d);
  return ok;
}
