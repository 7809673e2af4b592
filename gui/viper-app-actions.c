/* viper-app-actions.c - what the GUI's menu, buttons and keys do (the
 * application's actions): Go, Step, Reset, breakpoints, opening traces and
 * sockets, exporting, settings, and showing or hiding the views and the
 * diagnostics. */
#include "viper-app-private.h"
#include "core/tramparse.h"

/* Go and Step from a breakpoint's stop pass the breakpoint (Reset arms it
 * again).  A stop by clock before it - Back from it goes back in time, Go to
 * clock - leaves it ahead of the state shown: Go stops there again, as after
 * Back by steps. */
static void
pass_breakpoint (App *a)
{
  ViperScheduler *sc = a->s->sched;
  double at, bp = viper_scheduler_breakpoint (sc);
  if (viper_scheduler_stopped_at_clock (sc, &at) && (at == bp || !(bp > viper_run_clock (a->s->run))))
    viper_scheduler_set_breakpoint (sc, NAN);
}

static void
act_go (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (!a->s)
    return;
  /* Back presses still gathered come first (viper-playback.c) */
  viper_playback_flush_back (a->pb);
  if (viper_scheduler_state (a->s->sched) != VIPER_SCHED_IDLE)
    {
      viper_scheduler_stop (a->s->sched);
      return;
    }
  pass_breakpoint (a);
  viper_scheduler_go_on (a->s->sched);
}

static void
act_step (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (!a->s)
    return;
  viper_playback_flush_back (a->pb);
  pass_breakpoint (a);
  viper_scheduler_step (a->s->sched);
}

static void
act_reset (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (!a->s)
    return;
  viper_playback_flush_back (a->pb);
  guint open = 0, total = 0;
  viper_session_connections (a->s, &open, &total);
  if (open > 0)
    {
      /* The connected programs' next trams continue their sequences: replayed
       * on a cleared state they would wait forever for what came before.  So
       * Reset while connected disconnects them, after asking. */
      GtkWidget *d = gtk_message_dialog_new (GTK_WINDOW (a->window), GTK_DIALOG_MODAL, GTK_MESSAGE_QUESTION,
                                             GTK_BUTTONS_NONE, "Disconnect the program (%u %s) and reset?", open,
                                             open == 1 ? "connection" : "connections");
      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (d),
                                                "Their next trams continue where they are and cannot be replayed "
                                                "from a cleared state. Viper keeps listening: the next run that "
                                                "connects starts afresh.");
      gtk_dialog_add_buttons (GTK_DIALOG (d), "_Cancel", GTK_RESPONSE_CANCEL, "_Disconnect and Reset",
                              GTK_RESPONSE_ACCEPT, NULL);
      gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_ACCEPT);
      gtk_window_set_title (GTK_WINDOW (d), "Reset While Connected");
      int r = gtk_dialog_run (GTK_DIALOG (d));
      gtk_widget_destroy (d);
      if (r != GTK_RESPONSE_ACCEPT)
        return;
      viper_session_disconnect (a->s);
    }
  gboolean live = viper_session_has_listener (a->s);
  GError *error = NULL;
  if (live)
    viper_session_start_over (a->s);
  else
    viper_scheduler_reset (a->s->sched, &error);
  viper_scheduler_set_breakpoint (a->s->sched, a->breakpoint);
  viper_app_forget_run (a);
  /* said after the old run's messages are cleared, or it would go with them
   * (standard input that cannot be read again) */
  if (error)
    {
      viper_app_diag_sink (VIPER_DIAG_WARNING, error->message, a);
      g_error_free (error);
    }
  /* a listening session goes on listening */
  if (live && viper_scheduler_state (a->s->sched) == VIPER_SCHED_IDLE)
    viper_scheduler_go (a->s->sched);
  viper_app_flush (a);
  viper_app_update_controls (a);
  viper_app_request_dump (a, "reset");
}

/* The playback went back by a checkpoint (gui/viper-playback.c): the engine
 * kept its place, so nothing is reset or read again; what is shown of the
 * state it left is forgotten, as Reset does. */
static void
act_seeked (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (!a->s)
    return;
  a->have_applied = FALSE;
  a->pending_reasons_at = 0;
  if (a->infobar)
    viper_infobar_clear (a->infobar);
  if (a->inspect)
    viper_inspect_seeked (a->inspect);
  viper_app_flush (a);
  viper_app_update_controls (a);
  viper_app_request_dump (a, "seek");
}

static void
apply_breakpoint (App *a, double bp)
{
  a->breakpoint = bp;
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_widget_set_breakpoint (VIPER_VIEW_WIDGET (a->views[k]), bp);
  /* a clock or a tram, not both */
  viper_tram_ref_clear (&a->bp_tram);
  a->has_bp_tram = FALSE;
  if (!a->s)
    return;
  viper_scheduler_set_tram_stop (a->s->sched, NULL);
  viper_scheduler_set_breakpoint (a->s->sched, bp);
  /* a breakpoint ahead of the clock is a fast-forward to it */
  double clock = viper_run_clock (a->s->run);
  if (!isnan (bp) && (!isfinite (clock) || bp > clock) && viper_scheduler_state (a->s->sched) == VIPER_SCHED_IDLE)
    viper_scheduler_go (a->s->sched);
}

/* Stop right after a tram (core/scheduler.h): a fast-forward to it. */
static void
apply_tram_breakpoint (App *a, const ViperTramRef *ref)
{
  apply_breakpoint (a, NAN);
  viper_tram_ref_copy (&a->bp_tram, ref);
  a->has_bp_tram = TRUE;
  if (!a->s)
    return;
  viper_scheduler_set_tram_stop (a->s->sched, ref);
  /* a tram the state shown has passed: seek back to it, as Go to clock
   * does for an earlier clock (the trail says; without one, Go runs on) */
  if (viper_scheduler_tram_stop_behind (a->s->sched, NULL) && viper_playback_back_to_tram (a->pb))
    return;
  if (viper_scheduler_state (a->s->sched) == VIPER_SCHED_IDLE)
    viper_scheduler_go (a->s->sched);
}

static void
bp_kind_toggled (GtkToggleButton *radio, gpointer data)
{
  App *a = data;
  GtkWidget *entry = g_object_get_data (G_OBJECT (radio), "viper-entry");
  gboolean tram = gtk_toggle_button_get_active (radio);
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), tram ? "PROC:SEQ or FILE:LINE" : "clock");
  gtk_widget_grab_focus (entry);
  viper_app_request_dump (a, "breakpoint-kind");
}

gboolean
viper_app_parse_number (const char *text, double *out)
{
  return viper_parse_number (text, out) == VIPER_NUMBER_OK;
}

/* The Breakpoint dialog: the run's known range and the clock (kept current,
 * as in Go to clock), the breakpoint as it is, and a message in the dialog
 * for text that is not a clock value (the dialog stays open). */
static void
act_breakpoint (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (a->bp_range)
    return;
  GtkWidget *d = gtk_dialog_new_with_buttons ("Breakpoint", GTK_WINDOW (a->window), GTK_DIALOG_MODAL,
                                              "_Cancel", GTK_RESPONSE_CANCEL, "_Set", GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_OK);
  GtkWidget *box = gtk_dialog_get_content_area (GTK_DIALOG (d));
  gtk_container_set_border_width (GTK_CONTAINER (box), 12);
  gtk_box_set_spacing (GTK_BOX (box), 6);
  a->bp_range = viper_playback_run_label_new (a->pb);
  gtk_container_add (GTK_CONTAINER (box), a->bp_range);
  GtkWidget *what = gtk_label_new ("Fast-forward until the execution clock would pass a clock value, or until a "
                                    "tram is transferred (empty: no breakpoint):");
  gtk_label_set_xalign (GTK_LABEL (what), 0);
  gtk_label_set_line_wrap (GTK_LABEL (what), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (what), 60);
  gtk_container_add (GTK_CONTAINER (box), what);
  GtkWidget *kinds = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *by_clock = gtk_radio_button_new_with_mnemonic (NULL, "_Clock");
  a->bp_tram_radio = gtk_radio_button_new_with_mnemonic_from_widget (GTK_RADIO_BUTTON (by_clock),
                                                                     "_Tram (PROC:SEQ or FILE:LINE)");
  gtk_container_add (GTK_CONTAINER (kinds), by_clock);
  gtk_container_add (GTK_CONTAINER (kinds), a->bp_tram_radio);
  gtk_container_add (GTK_CONTAINER (box), kinds);
  GtkWidget *entry = gtk_entry_new ();
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), "clock");
  if (a->has_bp_tram)
    {
      char *t = viper_tram_ref_format (&a->bp_tram);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (a->bp_tram_radio), TRUE);
      gtk_entry_set_placeholder_text (GTK_ENTRY (entry), "PROC:SEQ or FILE:LINE");
      gtk_entry_set_text (GTK_ENTRY (entry), t);
      g_free (t);
    }
  else if (!isnan (a->breakpoint))
    {
      char tb[32];
      gtk_entry_set_text (GTK_ENTRY (entry), viper_format_double (a->breakpoint, tb));
    }
  g_object_set_data (G_OBJECT (a->bp_tram_radio), "viper-entry", entry);
  g_signal_connect (a->bp_tram_radio, "toggled", G_CALLBACK (bp_kind_toggled), a);
  gtk_container_add (GTK_CONTAINER (box), entry);
  a->bp_error = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (a->bp_error), 0);
  /* a long paste in a message: wrapped, at most three lines */
  gtk_label_set_line_wrap (GTK_LABEL (a->bp_error), TRUE);
  gtk_label_set_line_wrap_mode (GTK_LABEL (a->bp_error), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (a->bp_error), 60);
  gtk_label_set_lines (GTK_LABEL (a->bp_error), 3);
  gtk_label_set_ellipsize (GTK_LABEL (a->bp_error), PANGO_ELLIPSIZE_END);
  gtk_container_add (GTK_CONTAINER (box), a->bp_error);
  gtk_widget_show_all (d);
  gtk_widget_hide (a->bp_error);
  gtk_widget_grab_focus (entry);   /* not the radio buttons before it */
  viper_app_request_dump (a, "breakpoint-dialog");
  while (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_OK)
    {
      char *t = g_strstrip (g_strdup (gtk_entry_get_text (GTK_ENTRY (entry))));
      gboolean tram = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (a->bp_tram_radio));
      double v = NAN;
      ViperTramRef ref;
      char *why = NULL;
      gboolean empty = !*t;
      gboolean ok = empty || (tram ? viper_tram_ref_parse (t, &ref, &why) : viper_app_parse_number (t, &v));
      if (ok)
        {
          g_free (t);
          if (tram && !empty)
            {
              apply_tram_breakpoint (a, &ref);
              viper_tram_ref_clear (&ref);
            }
          else
            apply_breakpoint (a, empty ? NAN : v);
          break;
        }
      char *msg;
      if (tram)
        /* what viper-replay --until-tram says of the same text */
        msg = g_steal_pointer (&why);
      else
        {
          /* a long paste is cut (at a character, not a byte) */
          char *cut = g_utf8_strlen (t, -1) > 40 ? g_utf8_substring (t, 0, 40) : NULL;
          msg = g_strdup_printf ("\u201c%s%s\u201d is not a clock value: type a number such as 12.5 or "
                                 "1795549589.25, or nothing for no breakpoint.", cut ? cut : t, cut ? "\u2026" : "");
          g_free (cut);
        }
      gtk_label_set_text (GTK_LABEL (a->bp_error), msg);
      gtk_widget_show (a->bp_error);
      gtk_widget_error_bell (entry);
      gtk_widget_grab_focus (entry);
      g_free (msg);
      g_free (t);
      viper_app_request_dump (a, "breakpoint-refused");
    }
  a->bp_range = a->bp_error = a->bp_tram_radio = NULL;
  gtk_widget_destroy (d);
  viper_app_request_dump (a, "breakpoint-dialog-closed");
}

static void
remember_folder (char **slot, const char *path, gboolean is_dir)
{
  if (!path)
    return;
  g_free (*slot);
  *slot = is_dir ? g_strdup (path) : g_path_get_dirname (path);
}

static void
act_open (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  ViperOpenChoice c;
  /* the paradigm is the dialog's (automatic by default), never the last session's */
  if (!viper_open_dialog_run (GTK_WINDOW (a->window), a->open_folder, a->setup_folder, &c))
    return;
  remember_folder (&a->open_folder, c.folder, TRUE);
  remember_folder (&a->setup_folder, c.setup, FALSE);
  char *traces[] = { c.trace, NULL };
  viper_app_open_session (a, c.paradigm, c.setup, traces, NULL);
  viper_open_choice_clear (&c);
  viper_app_request_dump (a, "open");
}

/* Recent files, drag-and-drop and double-clicked files: the paradigm from the
 * content, and a setup file with the trace's stem when there is one. */
void
viper_app_open_files (char **traces, const char *setup, gpointer data)
{
  App *a = data;
  char *proposed = setup ? g_strdup (setup) : viper_propose_setup (traces[0]);
  if (proposed && !setup)
    {
      char *msg = g_strdup_printf ("using the setup file %s (same name as the trace)", proposed);
      viper_app_open_session (a, NULL, proposed, traces, NULL);
      viper_app_diag_sink (VIPER_DIAG_TRACE_START, msg, a);
      g_free (msg);
    }
  else
    viper_app_open_session (a, NULL, proposed, traces, NULL);
  if (!g_str_equal (traces[0], "-"))
    remember_folder (&a->open_folder, traces[0], FALSE);
  g_free (proposed);
}

static void
act_open_recent (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action;
  char *traces[] = { (char *) g_variant_get_string (param, NULL), NULL };
  viper_app_open_files (traces, NULL, data);
}

static void
act_listen (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  ViperOpenChoice c;
  const char *setup = a->s ? a->s->setup_path : a->setup;
  const char *pname = a->s && !a->s->detect_reason ? a->s->paradigm->name : NULL;
  if (!viper_listen_dialog_run (GTK_WINDOW (a->window), NULL, setup, pname, a->setup_folder, &c))
    return;
  remember_folder (&a->setup_folder, c.setup, FALSE);
  char *listen[] = { c.address, NULL };
  if (viper_app_open_session (a, c.paradigm, c.setup, NULL, listen))
    viper_scheduler_go (a->s->sched);
  viper_open_choice_clear (&c);
}

static void
act_export (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (!a->s)
    return;
  GtkWidget *d = gtk_file_chooser_dialog_new ("Export a view", GTK_WINDOW (a->window), GTK_FILE_CHOOSER_ACTION_SAVE,
                                              "_Cancel", GTK_RESPONSE_CANCEL, "_Export", GTK_RESPONSE_ACCEPT, NULL);
  gtk_file_chooser_set_do_overwrite_confirmation (GTK_FILE_CHOOSER (d), TRUE);
  viper_dialog_fit_screen (d);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (d), "animation.png");
  if (a->export_folder)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (d), a->export_folder);
  GtkWidget *extra = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_container_add (GTK_CONTAINER (extra), gtk_label_new ("View:"));
  GtkWidget *combo = gtk_combo_box_text_new ();
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (combo), viper_view_kind_name (k), viper_view_kind_name (k));
  gtk_combo_box_set_active (GTK_COMBO_BOX (combo), 0);
  gtk_container_add (GTK_CONTAINER (extra), combo);
  gtk_container_add (GTK_CONTAINER (extra), gtk_label_new ("(.png, .svg or .pdf)"));
  gtk_widget_show_all (extra);
  gtk_file_chooser_set_extra_widget (GTK_FILE_CHOOSER (d), extra);
  if (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_ACCEPT)
    {
      char *path = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (d));
      remember_folder (&a->export_folder, path, FALSE);
      int k = gtk_combo_box_get_active (GTK_COMBO_BOX (combo));
      ViperViewWidget *v = VIPER_VIEW_WIDGET (a->views[k]);
      int w = MAX (gtk_widget_get_allocated_width (a->views[k]), 200);
      int h = MAX (gtk_widget_get_allocated_height (a->views[k]), 200);
      GError *error = NULL;
      if (!viper_view_render_kind_to_file (k, a->s->model, a->s->run, NULL, viper_view_widget_time_window (v), path,
                                           w, h, &error))
        {
          GtkWidget *m = gtk_message_dialog_new (GTK_WINDOW (a->window), GTK_DIALOG_MODAL, GTK_MESSAGE_ERROR,
                                                 GTK_BUTTONS_CLOSE, "%s", error->message);
          gtk_dialog_run (GTK_DIALOG (m));
          gtk_widget_destroy (m);
          g_error_free (error);
        }
      g_free (path);
    }
  gtk_widget_destroy (d);
}

static void
act_settings (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  GtkWidget *d = gtk_dialog_new_with_buttons ("Settings", GTK_WINDOW (a->window), GTK_DIALOG_MODAL,
                                              "_Cancel", GTK_RESPONSE_CANCEL, "_Apply", GTK_RESPONSE_OK, NULL);
  GtkWidget *box = gtk_dialog_get_content_area (GTK_DIALOG (d));
  GtkGrid *g = GTK_GRID (gtk_grid_new ());
  gtk_container_set_border_width (GTK_CONTAINER (g), 12);
  gtk_grid_set_row_spacing (g, 6);
  gtk_grid_set_column_spacing (g, 12);
  gtk_grid_attach (g, gtk_label_new ("Screen update interval (ms, 0 = after every tram)"), 0, 0, 1, 1);
  GtkWidget *upd = gtk_spin_button_new_with_range (0, 10000, 10);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (upd), a->interval_ms);
  gtk_grid_attach (g, upd, 1, 0, 1, 1);
  gtk_grid_attach (g, gtk_label_new ("History interval (trace time, 0 = keep all)"), 0, 1, 1, 1);
  GtkWidget *hist = gtk_spin_button_new_with_range (0, 1e12, 1);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (hist), 3);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (hist), a->history);
  gtk_grid_attach (g, hist, 1, 1, 1, 1);
  gtk_container_add (GTK_CONTAINER (box), GTK_WIDGET (g));
  gtk_widget_show_all (d);
  if (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_OK)
    {
      a->interval_ms = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (upd));
      a->history = gtk_spin_button_get_value (GTK_SPIN_BUTTON (hist));
      if (a->s)
        viper_model_set_history (a->s->model, a->history);
      viper_app_restart_timer (a);
    }
  gtk_widget_destroy (d);
}

/* Once the window has its size: the dock gets its kept height, or room for
 * the counts and a few conditions (the paned alone would give it its
 * minimum, a few pixels). */
static gboolean
place_dock (gpointer data)
{
  App *a = data;
  int h = gtk_widget_get_allocated_height (a->main_paned);
  int kept = viper_settings_get_int (a->settings, "diagnostics", "dock-split", -1);
  if (h > 100)
    gtk_paned_set_position (GTK_PANED (a->main_paned), kept > 0 && kept < h - 60 ? kept : MAX (h / 2, h - 320));
  return G_SOURCE_REMOVE;
}

/* The diagnostics: in their window, or the dock below the views. */
void
viper_app_show_diagnostics_pane (App *a, gboolean show)
{
  if (viper_status_docked (a->status))
    {
      gboolean was = gtk_widget_get_visible (a->dock);
      gtk_widget_set_visible (a->dock, show);
      if (show && !was)
        g_idle_add_full (G_PRIORITY_LOW, place_dock, a, NULL);
    }
  else
    {
      gtk_widget_set_visible (viper_status_window (a->status), show);
      if (show)
        gtk_window_present (GTK_WINDOW (viper_status_window (a->status)));
    }
  GAction *act = g_action_map_lookup_action (G_ACTION_MAP (a->gapp), "status");
  if (act)
    g_simple_action_set_state (G_SIMPLE_ACTION (act), g_variant_new_boolean (show));
  if (show && a->s)
    {
      viper_status_update (a->status, a->s, a->rate);
      viper_status_set_pending_reasons (a->status, a->s);
    }
}

/* A stateful toggle action was activated: flip its state and return the new one. */
static gboolean
toggle_state (GSimpleAction *action)
{
  GVariant *st = g_action_get_state (G_ACTION (action));
  gboolean on = !g_variant_get_boolean (st);
  g_variant_unref (st);
  g_simple_action_set_state (action, g_variant_new_boolean (on));
  return on;
}

/* The info bar's button. */
void
viper_app_infobar_diagnostics (gpointer data)
{
  App *a = data;
  viper_app_show_diagnostics_pane (a, TRUE);
  viper_app_request_dump (a, "diagnostics");
}

static void
act_status (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) param;
  App *a = data;
  gboolean show = toggle_state (action);
  viper_app_show_diagnostics_pane (a, show);
  viper_app_request_dump (a, "diagnostics");
}

static void
act_dock_status (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) param;
  App *a = data;
  gboolean dock = toggle_state (action);
  gboolean shown = viper_status_shown (a->status);
  viper_status_set_docked (a->status, dock ? a->dock : NULL);
  viper_app_show_diagnostics_pane (a, shown);
  viper_app_request_dump (a, "dock");
}

static void
act_shortcuts (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  viper_desktop_shortcuts (GTK_WINDOW (((App *) data)->window));
}

static void
act_help (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  viper_desktop_help (GTK_WINDOW (((App *) data)->window));
}

static void
act_about (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  viper_desktop_about (GTK_WINDOW (((App *) data)->window));
}

/* A row whose views are all hidden goes, so the other fills the window
 * instead of leaving a hole. */
void
viper_app_reflow (App *a)
{
  gtk_widget_set_visible (a->top, gtk_widget_get_visible (a->frames[VIPER_VIEW_ANIMATION])
                                      || gtk_widget_get_visible (a->frames[VIPER_VIEW_PROGRAM]));
  gtk_widget_set_visible (a->bottom, gtk_widget_get_visible (a->frames[VIPER_VIEW_SPACETIME])
                                         || gtk_widget_get_visible (a->frames[VIPER_VIEW_VARIABLES]));
}

static void
act_show_view (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) param;
  App *a = data;
  int k = viper_view_kind_from_name (g_action_get_name (G_ACTION (action)) + strlen ("show-"));
  if (k < 0)
    return;
  gboolean show = toggle_state (action);
  gtk_widget_set_visible (a->frames[k], show);
  viper_app_reflow (a);
  viper_app_request_dump (a, "views");
}

static void
act_export_trace (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  viper_export_trace_dialog (GTK_WINDOW (a->window), a->s, a->status);
}

static void
act_view_setup (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  viper_view_setup_ctl_dialog (a->vsc, GTK_WINDOW (a->window), a->status);
  viper_app_request_dump (a, "view-setup");
}

static void
act_quit (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  viper_app_save_settings (a);
  gtk_widget_destroy (a->window);
}

static const GActionEntry actions[] = {
  { "go", act_go, NULL, NULL, NULL, { 0 } },
  { "step", act_step, NULL, NULL, NULL, { 0 } },
  { "reset", act_reset, NULL, NULL, NULL, { 0 } },
  { "seeked", act_seeked, NULL, NULL, NULL, { 0 } },
  { "breakpoint", act_breakpoint, NULL, NULL, NULL, { 0 } },
  { "open", act_open, NULL, NULL, NULL, { 0 } },
  { "listen", act_listen, NULL, NULL, NULL, { 0 } },
  { "export", act_export, NULL, NULL, NULL, { 0 } },
  { "export-trace", act_export_trace, NULL, NULL, NULL, { 0 } },
  { "settings", act_settings, NULL, NULL, NULL, { 0 } },
  { "status", act_status, NULL, "false", NULL, { 0 } },
  { "show-animation", act_show_view, NULL, "true", NULL, { 0 } },
  { "show-spacetime", act_show_view, NULL, "true", NULL, { 0 } },
  { "show-variables", act_show_view, NULL, "true", NULL, { 0 } },
  { "show-program", act_show_view, NULL, "true", NULL, { 0 } },
  { "view-setup", act_view_setup, NULL, NULL, NULL, { 0 } },
  { "quit", act_quit, NULL, NULL, NULL, { 0 } },
  { "open-recent", act_open_recent, "s", NULL, NULL, { 0 } },
  { "dock-status", act_dock_status, NULL, "false", NULL, { 0 } },
  { "shortcuts", act_shortcuts, NULL, NULL, NULL, { 0 } },
  { "help", act_help, NULL, NULL, NULL, { 0 } },
  { "about", act_about, NULL, NULL, NULL, { 0 } },
};

void
viper_app_add_actions (App *a, GActionMap *map)
{
  g_action_map_add_action_entries (map, actions, G_N_ELEMENTS (actions), a);
}
