/* viper-export-trace.c - File > Export trace.
 *
 * A file trace is exported whole: a worker thread replays the same files
 * from the start on a pipeline of its own (viper_export_files), so the
 * export is the same bytes viper-replay --export writes, whatever the
 * window is showing, and the UI stays responsive.  A live session cannot be
 * replayed, so its exporter is attached to the session's scheduler and
 * records every tram from the moment the user asks until the session ends
 * (viper_session_free finishes the file).
 */
#include "viper-export-trace.h"
#include "paradigms/export.h"
#include "viper-desktop.h"

typedef struct {
  char *paradigm, *setup, *format, *path;
  char **traces;
  double decay;
  ViperStatus *status;
  GtkWindow *parent;
  guint64 trams;
  ViperExportStats stats;   /* the shift and the clamps, said in the status window */
} Job;

static void
job_free (Job *j)
{
  g_free (j->paradigm);
  g_free (j->setup);
  g_free (j->format);
  g_free (j->path);
  g_strfreev (j->traces);
  if (j->parent)
    g_object_unref (j->parent);
  g_free (j);
}

const char *
viper_export_format_for_path (const char *path)
{
  if (g_str_has_suffix (path, ".trc") || g_str_has_suffix (path, ".picl"))
    return "paragraph";
  if (g_str_has_suffix (path, ".paje") || g_str_has_suffix (path, ".trace"))
    return "paje";
  if (g_str_has_suffix (path, ".json"))
    return "chrome";
  return NULL;
}

static void
worker (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  (void) source, (void) cancel;
  Job *j = data;
  GError *error = NULL;
  if (viper_export_files_stats (j->paradigm, j->setup, (const char *const *) j->traces, j->decay, j->format,
                                j->path, &j->trams, &j->stats, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
show_error (GtkWindow *parent, const char *message)
{
  GtkWidget *m = gtk_message_dialog_new (parent, GTK_DIALOG_MODAL, GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE,
                                         "Export failed: %s", message);
  gtk_dialog_run (GTK_DIALOG (m));
  gtk_widget_destroy (m);
}

static void
done (GObject *source, GAsyncResult *res, gpointer data)
{
  (void) source, (void) data;
  Job *j = g_task_get_task_data (G_TASK (res));
  GError *error = NULL;
  char *msg;
  if (g_task_propagate_boolean (G_TASK (res), &error))
    {
      /* what the export had to change is said, never silent (spec section 5) */
      GString *m = g_string_new (NULL);
      g_string_printf (m, "exported %" G_GUINT64_FORMAT " trams as %s to %s", j->trams, j->format, j->path);
      char num[32];
      if (j->stats.shift != 0)
        g_string_append_printf (m, "; times shifted by +%s s so that the run starts at 0",
                                viper_format_double (j->stats.shift, num));
      if (j->stats.clamped)
        g_string_append_printf (m, "; %" G_GUINT64_FORMAT " records written up to %s s later than their time",
                                j->stats.clamped, viper_format_double (j->stats.max_clamp, num));
      if (j->stats.left_out)
        g_string_append_printf (m, "; %" G_GUINT64_FORMAT " clock-synchronisation samples left out",
                                j->stats.left_out);
      msg = g_string_free (m, FALSE);
    }
  else
    {
      msg = g_strdup_printf ("export to %s failed: %s", j->path, error->message);
      show_error (j->parent, error->message);
      g_error_free (error);
    }
  if (j->status)
    viper_status_condition (j->status, VIPER_DIAG_TRACE_END, msg);
  g_print ("viper: %s\n", msg);
  g_free (msg);
}

static void
export_live (GtkWindow *parent, ViperSession *s, ViperStatus *status, const char *format, const char *path)
{
  GError *error = NULL;
  ViperExporter *ex = viper_exporter_open (s->paradigm, s->model, format, path, &error);
  if (!ex)
    {
      show_error (parent, error->message);
      g_error_free (error);
      return;
    }
  g_ptr_array_add (s->exporters, ex);
  viper_scheduler_add_hook (s->sched, viper_exporter_hook, ex);
  char *msg = g_strdup_printf ("exporting live as %s to %s until the session ends", format, path);
  if (status)
    viper_status_condition (status, VIPER_DIAG_TRACE_START, msg);
  g_free (msg);
}

void
viper_export_trace_dialog (GtkWindow *parent, ViperSession *s, ViperStatus *status)
{
  if (!s)
    return;
  GtkWidget *d = gtk_file_chooser_dialog_new ("Export the trace", parent, GTK_FILE_CHOOSER_ACTION_SAVE,
                                              "_Cancel", GTK_RESPONSE_CANCEL, "_Export", GTK_RESPONSE_ACCEPT, NULL);
  gtk_file_chooser_set_do_overwrite_confirmation (GTK_FILE_CHOOSER (d), TRUE);
  viper_dialog_fit_screen (d);
  GtkWidget *extra = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_container_add (GTK_CONTAINER (extra), gtk_label_new ("Format:"));
  GtkWidget *combo = gtk_combo_box_text_new ();
  static const char *const labels[] = { "ParaGraph (PICL)", "Pajé (ViTE, PajeNG)", "Chrome trace (Perfetto)" };
  static const char *const formats[] = { "paragraph", "paje", "chrome" };
  static const char *const names[] = { "run.trc", "run.paje", "run.json" };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (viper_export_supported (s->paradigm, formats[i], NULL))
      gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (combo), formats[i], labels[i]);
  gtk_combo_box_set_active (GTK_COMBO_BOX (combo), 0);
  gtk_container_add (GTK_CONTAINER (extra), combo);
  gtk_widget_show_all (extra);
  gtk_file_chooser_set_extra_widget (GTK_FILE_CHOOSER (d), extra);
  const char *first = gtk_combo_box_get_active_id (GTK_COMBO_BOX (combo));
  for (guint i = 0; first && i < G_N_ELEMENTS (formats); i++)
    if (g_str_equal (first, formats[i]))
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (d), names[i]);
  if (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_ACCEPT)
    {
      char *path = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (d));
      /* the extension wins when it names a format the paradigm has */
      const char *format = viper_export_format_for_path (path);
      if (!format || !viper_export_supported (s->paradigm, format, NULL))
        format = gtk_combo_box_get_active_id (GTK_COMBO_BOX (combo));
      gtk_widget_hide (d);
      if (s->traces && s->traces[0])
        {
          Job *j = g_new0 (Job, 1);
          j->paradigm = g_strdup (s->paradigm->name);
          j->setup = g_strdup (s->setup_path);
          j->traces = g_strdupv (s->traces);
          j->decay = s->decay;
          j->format = g_strdup (format);
          j->path = g_strdup (path);
          j->status = status;
          j->parent = parent ? g_object_ref (parent) : NULL;
          if (status)
            {
              char *msg = g_strdup_printf ("exporting the whole run as %s to %s", format, path);
              viper_status_condition (status, VIPER_DIAG_TRACE_START, msg);
              g_free (msg);
            }
          GTask *task = g_task_new (NULL, NULL, done, NULL);
          g_task_set_task_data (task, j, (GDestroyNotify) job_free);
          g_task_run_in_thread (task, worker);
          g_object_unref (task);
        }
      else
        export_live (parent, s, status, format, path);
      g_free (path);
    }
  gtk_widget_destroy (d);
}
