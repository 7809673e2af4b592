/* viper - the graphical front end (thesis 3.2.1, 3.2.3, 4.1): a control
 * panel in the header bar, the four views, and the status window.
 *
 * Who runs when (thesis 4.1.2): the session's sources read at
 * G_PRIORITY_HIGH, the scheduler applies trams in ~8 ms idle slices, and ONE
 * timer at the update interval takes the model's damage set and hands it to
 * every visible view, which invalidates the damaged areas' rectangles (or,
 * when there are many, the one rectangle around them).  GTK paints that
 * region in its next frame.  So reading never waits for the
 * screen, applying never paints, and a million-tram file costs as many
 * frames as the timer allows.  An interval of zero hands the damage over
 * after every tram instead (the thesis's "update after every trace message").
 *
 * VIPER_DEBUG_DIR=DIR makes the app write DIR/layout.json (where each
 * module's state colour shows, in root-window pixels) and DIR/state.json
 * (the --state-out document and why it stopped, after every stop, reset and
 * live idle) once the frame that shows that state has been painted - what
 * the Xvfb tests synchronise on instead of sleeping.  The dump also says how
 * long the run took since Go ("seconds") and how many times each view was
 * painted in that time ("run_frames"): bench/bench-gui.py reads its figures
 * from there.  Its "ui" object says what the window shows besides the views
 * (title, subtitle, the info bar's text, the diagnostics pane, which views
 * are shown, the paradigm and why, the live connections).
 *
 * Problems in plain sight (issue 14): the info bar above the views
 * (viper-infobar.c) says whenever something is rejected, pending,
 * inconsistent or disconnected; the diagnostics (viper-status.c) float or
 * dock below the views; the paradigm is detected from the content unless
 * chosen (viper-open-dialog.c).  Live: a connection that arrives while none
 * is open in a session that holds trams is a new run and starts the session
 * over (viper-session.c); Reset while programs are connected asks, then
 * disconnects them.
 */
#include "viper-app-private.h"


/* ---- the pipeline ----------------------------------------------------------- */

static void update_progress (App *a);

void
viper_app_diag_sink (ViperDiagKind kind, const char *message, gpointer data)
{
  App *a = data;
  if (a->status)
    viper_status_condition (a->status, kind, message);
  if (a->infobar)
    viper_infobar_note (a->infobar, kind, message);
  if (kind == VIPER_DIAG_BAD_INPUT)
    g_printerr ("%s\n", message);
}

static void
transfer_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  App *a = data;
  if (a->inspect)
    viper_inspect_transfer (a->inspect, t);
  if (changed)
    {
      a->have_applied = TRUE;
      a->ap_proc = t->proc;
      a->ap_time = t->time;
      a->ap_adjusted = t->adjusted;
    }
  if (a->interval_ms == 0)
    viper_app_flush (a);
}

static const char *
stop_name (ViperStopReason why)
{
  switch (why)
    {
    case VIPER_STOP_BREAKPOINT: return "breakpoint";
    case VIPER_STOP_TRAM: return "tram";
    case VIPER_STOP_STEP: return "step";
    case VIPER_STOP_END: return "end";
    case VIPER_STOP_WAITING: return "waiting";
    case VIPER_STOP_USER: return "stopped";
    case VIPER_STOP_STRICT: return "bad input";
    case VIPER_STOP_NONE:
    default: return "running";
    }
}

void
viper_app_request_dump (App *a, const char *why)
{
  if (!a->debug_dir || a->closing)
    return;
  a->dump_why = why;
  a->dump_pending = TRUE;
  /* the views get what changed since the last tick now, so the next frame
   * shows the state the dump describes; and that frame must be painted */
  viper_app_flush (a);
  gtk_widget_queue_draw (a->views[VIPER_VIEW_PROGRAM]);
}

void
viper_app_update_controls (App *a)
{
  if (a->closing)
    return;
  gboolean running = a->s && viper_scheduler_state (a->s->sched) != VIPER_SCHED_IDLE;
  /* this runs at every tick while replaying: a new image each time made GTK
   * lay out the header bar again at the frame rate */
  if (a->go_shows != 1 + running)
    {
      a->go_shows = 1 + running;
      gtk_button_set_image (GTK_BUTTON (a->go_button),
                            gtk_image_new_from_icon_name (running ? "media-playback-pause-symbolic"
                                                                  : "media-playback-start-symbolic",
                                                          GTK_ICON_SIZE_BUTTON));
      gtk_widget_set_tooltip_text (a->go_button, running ? "Stop (Space)" : "Go (Space)");
    }
  /* stopped right after the tram stop's tram: the space-time view rings it */
  gint64 hit_proc = 0, hit_seq = 0;
  double hit_time = NAN;
  gboolean hit = a->s && !running && viper_scheduler_tram_stop_hit (a->s->sched, &hit_proc, &hit_seq, &hit_time);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_widget_set_tram_mark (VIPER_VIEW_WIDGET (a->views[k]), hit, hit_proc, hit_seq, hit_time);
  char sub[160], compact[160], tb[32];
  if (!a->s)
    {
      g_strlcpy (sub, "no trace", sizeof sub);
      g_strlcpy (compact, sub, sizeof compact);
    }
  else
    {
      double clock = viper_run_clock (a->s->run);
      ViperStopReason last = viper_scheduler_last_stop (a->s->sched);
      char livebuf[48];
      const char *what = running ? "running" : last == VIPER_STOP_NONE ? "ready" : stop_name (last);
      guint open = 0;
      switch (viper_session_note_live_end (a->s, &open))
        {
        case VIPER_LIVE_LISTENING: what = "listening"; break;
        case VIPER_LIVE_CONNECTED:
          g_snprintf (livebuf, sizeof livebuf, "%u connected", open);
          what = livebuf;
          break;
        case VIPER_LIVE_ENDED: what = a->s->paradigm->monitor ? "collection ended" : "program ended"; break;
        case VIPER_LIVE_LOST: what = "connection lost"; break;
        case VIPER_LIVE_NONE:
        default: break;
        }
      if (!running && last == VIPER_STOP_USER)
        what = "stopped";
      const char *said = running ? NULL : viper_playback_seek_said (a->pb);
      if (said)
        what = said;
      char trambuf[96] = "";
      if (!running && last == VIPER_STOP_TRAM && viper_scheduler_tram_stop (a->s->sched))
        {
          /* the tram breakpoint as it was typed, cut to fit on a character
           * boundary (a FILE name may be UTF-8) */
          char *t = viper_tram_ref_format (viper_scheduler_tram_stop (a->s->sched));
          char *cut = g_utf8_validate (t, -1, NULL) ? g_utf8_substring (t, 0, MIN (40, g_utf8_strlen (t, -1)))
                                                    : g_strdup ("?");
          g_snprintf (trambuf, sizeof trambuf, "at tram %s", cut);
          g_free (cut);
          g_free (t);
          what = trambuf;
        }
      g_snprintf (sub, sizeof sub, "%s \u00b7 %s \u00b7 clock %s", a->s->paradigm->name, what,
                  viper_view_format_clock (clock, 0, tb, sizeof tb));
      /* what shows in a narrow window: what it does and the clock */
      g_snprintf (compact, sizeof compact, "%s \u00b7 %s", what, tb);
    }
  /* a new subtitle makes GTK measure the header bar (and the window) again:
   * while replaying, the running clock in it changes at most five times a
   * second; what the session does shows at once */
  gint64 now = g_get_monotonic_time ();
  const char *clock_at = strstr (sub, " \u00b7 clock ");
  gsize head = clock_at ? (gsize) (clock_at - sub) : strlen (sub);
  if (strcmp (sub, a->last_sub) != 0
      && (!running || now - a->sub_t >= 200000 || strncmp (sub, a->last_sub, head) != 0 || a->last_sub[head] != sub[head]))
    {
      g_strlcpy (a->last_sub, sub, sizeof a->last_sub);
      a->sub_t = now;
      gtk_header_bar_set_subtitle (GTK_HEADER_BAR (a->header), sub);
      viper_title_set_subtitle (a->title, sub, compact);
    }
  if (a->infobar)
    viper_infobar_update (a->infobar, a->s);
}

static void
sched_notify (ViperScheduler *sched, ViperStopReason why, gpointer data)
{
  (void) sched;
  App *a = data;
  if (a->closing)
    return;
  if (why == VIPER_STOP_NONE && viper_scheduler_state (sched) != VIPER_SCHED_IDLE)
    {
      a->go_t = g_get_monotonic_time ();
      for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
        {
          a->go_frames[k] = viper_view_widget_frames (VIPER_VIEW_WIDGET (a->views[k]));
          a->go_draw_us[k] = viper_view_widget_draw_us (VIPER_VIEW_WIDGET (a->views[k]));
        }
    }
  update_progress (a);
  if (why != VIPER_STOP_NONE && why != VIPER_STOP_WAITING)
    {
      /* show the stop point now rather than at the next tick */
      viper_app_flush (a);
      viper_app_request_dump (a, stop_name (why));
    }
  viper_app_update_controls (a);
}

/* What was said about the run so far (diagnostics, the info bar, the last
 * inspected module, the applied tram and the live state dumped) is
 * forgotten: a reset or a new run starts it again. */
void
viper_app_forget_run (App *a)
{
  a->have_applied = FALSE;
  a->pending_reasons_at = 0;
  a->live_dumped = VIPER_LIVE_NONE;
  a->live_dumped_at = G_MAXUINT64;
  if (a->status)
    viper_status_clear (a->status);
  if (a->infobar)
    viper_infobar_clear (a->infobar);
  if (a->inspect)
    viper_inspect_clear (a->inspect);
}

/* A new run connected to the listening session, which started over. */
static void
on_new_run (gpointer data)
{
  App *a = data;
  viper_app_forget_run (a);
  /* the warning that says so went to the cleared lists: say it again */
  char *msg = g_strdup_printf ("a new run connected while none was connected: the session started over (run %u)",
                               a->s->new_runs + 1);
  viper_app_diag_sink (VIPER_DIAG_WARNING, msg, a);
  g_free (msg);
  viper_app_flush (a);
  viper_app_update_controls (a);
  viper_app_request_dump (a, "new-run");
}

void
viper_app_set_session (App *a, ViperSession *s)
{
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_widget_set_model (VIPER_VIEW_WIDGET (a->views[k]), NULL, NULL);
  viper_view_setup_ctl_attach (a->vsc, NULL, NULL, NULL);
  viper_session_free (a->s);
  a->s = s;
  a->have_applied = FALSE;
  a->rate = 0;
  a->rate_applied = 0;
  a->rate_t = g_get_monotonic_time ();
  a->live_dumped = VIPER_LIVE_NONE;
  a->pending_reasons_at = 0;
  if (a->status)
    viper_status_clear (a->status);
  if (a->swp)
    viper_switchnet_panel_set_session (a->swp, s);
  if (a->infobar)
    viper_infobar_clear (a->infobar);
  if (a->inspect)
    {
      viper_inspect_close (a->inspect);
      viper_inspect_clear (a->inspect);
    }
  if (a->status)
    {
      char *p = s ? g_strdup_printf ("%s%s%s%s", s->paradigm->name, s->detect_reason ? " (detected: " : " (chosen)",
                                     s->detect_reason ? s->detect_reason : "", s->detect_reason ? ")" : "")
                  : NULL;
      viper_status_set_paradigm (a->status, p);
      g_free (p);
    }
  if (s)
    {
      s->on_new_run = on_new_run;
      s->on_new_run_data = a;
      viper_scheduler_add_hook (s->sched, transfer_hook, a);
      viper_scheduler_set_notify (s->sched, sched_notify, a);
      viper_scheduler_set_breakpoint (s->sched, a->breakpoint);
      viper_scheduler_set_tram_stop (s->sched, a->has_bp_tram ? &a->bp_tram : NULL);
      for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
        viper_view_widget_set_model (VIPER_VIEW_WIDGET (a->views[k]), s->model, s->run);
      GError *verr = NULL;
      if (!viper_view_setup_ctl_attach (a->vsc, s, a->view, &verr))
        {
          /* the replay works without it: the views fall back to the default layout */
          viper_app_diag_sink (VIPER_DIAG_WARNING, verr->message, a);
          g_printerr ("viper: %s\n", verr->message);
          g_error_free (verr);
        }
      char *title = g_strdup_printf ("Viper \u2014 %s", s->title && *s->title ? s->title : "(nothing)");
      gtk_header_bar_set_title (GTK_HEADER_BAR (a->header), title);
      viper_title_set (a->title, title);
      g_free (title);
    }
  if (a->lights)
    viper_lights_panel_set_model (a->lights, s ? s->model : NULL);
  if (a->paradigm_menu)
    viper_keys_fill_paradigm_menu (a->paradigm_menu, s ? s->paradigm->name : NULL);
  viper_playback_set_session (a->pb, s);
  viper_app_update_controls (a);
}

gboolean
viper_app_open_session (App *a, const char *paradigm, const char *setup, char **traces, char **listen)
{
  GError *error = NULL;
  ViperSession *s = viper_session_new (paradigm, setup, (const char *const *) traces, (const char *const *) listen,
                                       a->decay, a->history, viper_app_diag_sink, a, &error);
  if (!s)
    {
      if (a->window)
        {
          GtkWidget *d = gtk_message_dialog_new (GTK_WINDOW (a->window), GTK_DIALOG_MODAL, GTK_MESSAGE_ERROR,
                                                 GTK_BUTTONS_CLOSE, "%s", error->message);
          gtk_dialog_run (GTK_DIALOG (d));
          gtk_widget_destroy (d);
        }
      g_printerr ("viper: %s\n", error->message);
      g_error_free (error);
      return FALSE;
    }
  viper_app_set_session (a, s);
  for (char **t = traces; t && *t; t++)
    if (!g_str_equal (*t, "-"))
      viper_desktop_add_recent (*t);
  if (a->recent_menu)
    viper_desktop_fill_recent (a->recent_menu);
  return TRUE;
}

/* ---- the redraw tick ------------------------------------------------------------ */

static void
update_progress (App *a)
{
  if (a->closing)
    return;
  gboolean ff = a->s && viper_scheduler_state (a->s->sched) == VIPER_SCHED_RUNNING
                && (!isnan (viper_scheduler_breakpoint (a->s->sched)) || viper_scheduler_tram_stop_armed (a->s->sched))
                && a->s->file_bytes > 0;
  if (ff && !gtk_widget_get_visible (a->progress) && a->debug_dir)
    {
      a->progress_dump_pending = TRUE;
      gtk_widget_queue_draw (a->views[VIPER_VIEW_PROGRAM]);   /* make sure a frame comes */
    }
  gtk_widget_set_visible (a->progress, ff);
  if (ff)
    gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (a->progress),
                                   MIN (1.0, (double) viper_session_bytes_read (a->s) / (double) a->s->file_bytes));
}

void
viper_app_flush (App *a)
{
  if (!a->s || a->closing)
    return;
  g_array_set_size (a->areas, 0);
  viper_damage_take (a->s->model->damage, a->areas);
  /* hidden views too: they drop the damage but know their cached frame is stale */
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_widget_damage (VIPER_VIEW_WIDGET (a->views[k]), a->areas);
  /* the open module description follows the same damage */
  if (a->inspect)
    viper_inspect_refresh (a->inspect, a->areas);
}

static gboolean
tick (gpointer data)
{
  App *a = data;
  if (a->closing)
    return G_SOURCE_CONTINUE;
  viper_app_flush (a);
  if (!a->s)
    return G_SOURCE_CONTINUE;
  viper_playback_tick (a->pb);
  /* the replay stops in time for the next tick (after_paint) */
  viper_scheduler_set_deadline (a->s->sched, viper_ticker_due (a->ticker), a->replay_min_us);
  gint64 now = g_get_monotonic_time ();
  if (now - a->rate_t >= 500000)
    {
      a->rate = (double) (a->s->model->applied - a->rate_applied) * 1e6 / (double) (now - a->rate_t);
      a->rate_applied = a->s->model->applied;
      a->rate_t = now;
    }
  if (a->status && viper_status_shown (a->status))
    {
      viper_status_update (a->status, a->s, a->rate);
      if (a->have_applied)
        {
          char *label = viper_view_renderer (a->s->model)->module_label (a->s->model, a->ap_proc);
          viper_status_set_last_applied (a->status, a->ap_proc < 0 ? "program manager" : label, a->ap_time,
                                         a->ap_adjusted);
          g_free (label);
        }
      else
        viper_status_set_last_applied (a->status, NULL, 0, 0);
    }
  update_progress (a);
  /* live sessions change state without a stop (connections come and go) */
  if (viper_scheduler_state (a->s->sched) != VIPER_SCHED_IDLE || viper_session_has_listener (a->s))
    viper_app_update_controls (a);
  if (a->status && viper_status_shown (a->status))
    {
      ViperStopReason last = viper_scheduler_last_stop (a->s->sched);
      if ((last == VIPER_STOP_END || last == VIPER_STOP_WAITING || last == VIPER_STOP_USER)
          && a->pending_reasons_at != a->s->model->applied + 1)
        {
          a->pending_reasons_at = a->s->model->applied + 1;
          viper_status_set_pending_reasons (a->status, a->s);
        }
    }
  /* live: once every sender has closed and all is applied, say so for the tests */
  if (a->debug_dir && viper_session_has_listener (a->s))
    {
      guint open, total;
      viper_session_connections (a->s, &open, &total);
      if (total > 0 && open == 0 && viper_scheduler_last_stop (a->s->sched) == VIPER_STOP_WAITING
          && a->s->model->applied != a->live_dumped_at)
        {
          a->live_dumped_at = a->s->model->applied;
          viper_app_request_dump (a, "live-idle");
        }
      ViperLiveState ls = viper_session_live_state (a->s, NULL);
      gint64 now_us = g_get_monotonic_time ();
      if (ls == VIPER_LIVE_CONNECTED && a->live_dumped == ls && a->s->model->applied != a->live_progress_at
          && now_us - a->live_progress_t > 200000)
        {
          /* while connected, what has arrived so far (at most five times a second) */
          a->live_progress_at = a->s->model->applied;
          a->live_progress_t = now_us;
          viper_app_request_dump (a, "live-progress");
        }
      else if (ls != a->live_dumped && (ls == VIPER_LIVE_CONNECTED || ls == VIPER_LIVE_LISTENING))
        {
          a->live_dumped = ls;
          viper_app_request_dump (a, ls == VIPER_LIVE_CONNECTED ? "live-connected" : "live-listening");
        }
      else if (ls != a->live_dumped && viper_scheduler_last_stop (a->s->sched) == VIPER_STOP_WAITING)
        a->live_dumped = ls;
    }
  return G_SOURCE_CONTINUE;
}

void
viper_app_restart_timer (App *a)
{
  viper_ticker_free (a->ticker);
  /* zero: flushed by the transfer hook; the timer still refreshes the status */
  a->ticker = viper_ticker_new (a->interval_ms > 0 ? (guint) a->interval_ms : 40, tick, a);
}

/* Painting and replaying share the main loop: painting comes first (GDK's
 * priority), replaying gets the idle time, in slices that end when the next
 * tick is due (viper-ticker.c keeps ticks on a fixed grid), so frames keep
 * the update interval's pace while they take less than about two thirds of
 * it.  When frames take longer, that idle time would shrink to nothing and
 * the replay crawl; so the replay gets at least half the frame time between
 * two frames (a third of the time), however slow drawing is. */
static void
before_paint (GdkFrameClock *clock, gpointer data)
{
  (void) clock;
  ((App *) data)->paint_t = g_get_monotonic_time ();
}

static void
after_paint (GdkFrameClock *clock, gpointer data)
{
  (void) clock;
  App *a = data;
  if (a->debug_dir && (!a->no_layout_dump || a->progress_dump_pending || a->dump_pending))
    {
      /* the server has the pixels before the files say they are there (a
       * round trip, so only when a file is written: a benchmark's frames
       * waited on the X server for nothing) */
      gdk_display_sync (gtk_widget_get_display (a->window));
      /* every module of every view after every frame: for a thousand nodes
       * that cost more than painting them, so a benchmark can do without */
      if (!a->no_layout_dump)
        viper_app_write_layout (a);
      if (a->progress_dump_pending)
        viper_app_write_progress (a);
      if (a->dump_pending)
        viper_app_write_state (a);
    }
  if (a->paint_t && a->s)
    {
      gint64 took = g_get_monotonic_time () - a->paint_t;
      viper_scheduler_set_slice (a->s->sched, (guint) CLAMP (took, 8000, 250000));
      a->replay_min_us = (guint) CLAMP (took / 2, 2000, 125000);
      if (a->ticker)
        viper_scheduler_set_deadline (a->s->sched, viper_ticker_due (a->ticker), a->replay_min_us);
    }
}

static void
on_realize (GtkWidget *w, gpointer data)
{
  GdkFrameClock *fc = gtk_widget_get_frame_clock (w);
  if (fc)
    {
      g_signal_connect (fc, "before-paint", G_CALLBACK (before_paint), data);
      g_signal_connect (fc, "after-paint", G_CALLBACK (after_paint), data);
    }
}

/* ---- the window ------------------------------------------------------------------------ */

static GtkWidget *
tool_button (const char *icon, const char *action, const char *tip)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon, GTK_ICON_SIZE_BUTTON);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (b), action);
  gtk_widget_set_tooltip_text (b, tip);
  /* Space and the arrows are the replay's keys, not the focused button's */
  gtk_widget_set_can_focus (b, FALSE);
  return b;
}

static GMenuModel *
build_menu (App *a)
{
  GMenu *menu = g_menu_new ();
  GMenu *file = g_menu_new ();
  g_menu_append (file, "_Open Trace\u2026", "app.open");
  a->recent_menu = g_menu_new ();
  viper_desktop_fill_recent (a->recent_menu);
  g_menu_append_submenu (file, "Open _Recent", G_MENU_MODEL (a->recent_menu));
  g_menu_append (file, "_Listen\u2026", "app.listen");
  g_menu_append (file, "_Export View\u2026", "app.export");
  g_menu_append (file, "Export _Trace\u2026", "app.export-trace");
  g_menu_append (file, "View _Setup\u2026", "app.view-setup");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (file));
  GMenu *replay = g_menu_new ();
  g_menu_append (replay, "_Go / Stop", "app.go");
  g_menu_append (replay, "St_ep", "app.step");
  g_menu_append (replay, "Step _Back", "app.back");
  g_menu_append (replay, "_Reset", "app.reset");
  g_menu_append (replay, "_Breakpoint\u2026", "app.breakpoint");
  g_menu_append (replay, "Go to _Clock\u2026", "app.goto");
  g_menu_append_section (menu, "Replay", G_MENU_MODEL (replay));
  g_object_unref (replay);
  /* every key is in the menu with its key beside it (viper-keys.c) */
  GMenu *speed = g_menu_new ();
  g_menu_append (speed, "_Faster", "app.faster");
  g_menu_append (speed, "_Slower", "app.slower");
  g_menu_append (speed, "As Fast as _Possible", "app.full-speed");
  g_menu_append_section (menu, "Replay Speed", G_MENU_MODEL (speed));
  g_object_unref (speed);
  GMenu *views = g_menu_new ();
  g_menu_append (views, "Animation", "app.show-animation");
  g_menu_append (views, "Space-time", "app.show-spacetime");
  g_menu_append (views, "Variables", "app.show-variables");
  g_menu_append (views, "Program state", "app.show-program");
  GMenu *nav = g_menu_new ();
  g_menu_append (nav, "Zoom _In", "app.zoom-in");
  g_menu_append (nav, "Zoom _Out", "app.zoom-out");
  g_menu_append (nav, "Fit the _Whole Run", "app.zoom-fit");
  g_menu_append (nav, "_Follow the Clock", "app.follow");
  g_menu_append_submenu (views, "Space-time _Navigation", G_MENU_MODEL (nav));
  g_object_unref (nav);
  g_menu_append_section (menu, "Views", G_MENU_MODEL (views));
  a->paradigm_menu = g_menu_new ();
  g_menu_append_section (menu, NULL, G_MENU_MODEL (a->paradigm_menu));
  GMenu *other = g_menu_new ();
  g_menu_append (other, "_Diagnostics", "app.status");
  g_menu_append (other, "_Dock Diagnostics in the Window", "app.dock-status");
  g_menu_append (other, "Se_ttings\u2026", "app.settings");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (other));
  g_object_unref (other);
  other = g_menu_new ();
  g_menu_append (other, "_Keyboard Shortcuts", "app.shortcuts");
  g_menu_append (other, "_Help", "app.help");
  g_menu_append (other, "_About Viper", "app.about");
  g_menu_append (other, "_Quit", "app.quit");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (other));
  g_object_unref (file);
  g_object_unref (views);
  g_object_unref (other);
  return G_MENU_MODEL (menu);
}

static void
switchnet_changed (gpointer data)
{
  viper_app_request_dump (data, "switchnet");
}

static GtkWidget *
framed (App *a, ViperViewKind k, const char *title)
{
  a->views[k] = viper_view_widget_new (k);
  GtkWidget *f = gtk_frame_new (title);
  gtk_container_add (GTK_CONTAINER (f), viper_view_widget_wrap (VIPER_VIEW_WIDGET (a->views[k])));
  a->frames[k] = f;
  return f;
}

static void
inspect_notify (gpointer data)
{
  viper_app_request_dump (data, "inspect");
}

static void
lights_range_shown (gpointer data)
{
  viper_app_request_dump (data, "lights-range");
}

/* Keep the layout and the settings for the next run. */
void
viper_app_save_settings (App *a)
{
  ViperSettings *set = a->settings;
  GtkWindow *w = GTK_WINDOW (a->window);
  gboolean max = gtk_window_is_maximized (w);
  viper_settings_set_bool (set, "window", "maximized", max);
  if (!max)
    {
      int width, height;
      gtk_window_get_size (w, &width, &height);
      viper_settings_set_int (set, "window", "width", width);
      viper_settings_set_int (set, "window", "height", height);
    }
  viper_settings_set_int (set, "window", "views-split", gtk_paned_get_position (GTK_PANED (a->vp)));
  viper_settings_set_int (set, "window", "bottom-split", gtk_paned_get_position (GTK_PANED (a->bottom)));
  if (gtk_widget_get_visible (a->dock))
    viper_settings_set_int (set, "diagnostics", "dock-split", gtk_paned_get_position (GTK_PANED (a->main_paned)));
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      char *key = g_strdup_printf ("show-%s", viper_view_kind_name (k));
      viper_settings_set_bool (set, "views", key, gtk_widget_get_visible (a->frames[k]));
      g_free (key);
    }
  viper_settings_set_bool (set, "diagnostics", "docked", viper_status_docked (a->status));
  viper_settings_set_bool (set, "diagnostics", "shown", viper_status_shown (a->status));
  viper_settings_set_string (set, "folders", "open", a->open_folder);
  viper_settings_set_string (set, "folders", "setup", a->setup_folder);
  viper_settings_set_string (set, "folders", "export", a->export_folder);
  viper_settings_set_int (set, "replay", "update-interval", a->interval_ms);
  viper_settings_set_double (set, "replay", "history", a->history);
  viper_settings_save (set);
}

static void
on_destroy (GtkWidget *w, gpointer data)
{
  (void) w;
  ((App *) data)->closing = TRUE;
}

static gboolean
on_delete (GtkWidget *w, GdkEvent *e, gpointer data)
{
  (void) w, (void) e;
  viper_app_save_settings (data);
  return FALSE;
}

/* Views and the diagnostics as the last run left them (after show_all). */
void
viper_app_restore_layout (App *a)
{
  ViperSettings *set = a->settings;
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      char *key = g_strdup_printf ("show-%s", viper_view_kind_name (k));
      gboolean show = viper_settings_get_bool (set, "views", key, TRUE);
      g_free (key);
      gtk_widget_set_visible (a->frames[k], show);
      char *name = g_strdup_printf ("show-%s", viper_view_kind_name (k));
      GAction *act = g_action_map_lookup_action (G_ACTION_MAP (a->gapp), name);
      g_free (name);
      if (act)
        g_simple_action_set_state (G_SIMPLE_ACTION (act), g_variant_new_boolean (show));
    }
  viper_app_reflow (a);
  GAction *dock = g_action_map_lookup_action (G_ACTION_MAP (a->gapp), "dock-status");
  if (dock)
    g_simple_action_set_state (G_SIMPLE_ACTION (dock), g_variant_new_boolean (viper_status_docked (a->status)));
  if (viper_settings_get_bool (set, "diagnostics", "shown", FALSE))
    viper_app_show_diagnostics_pane (a, TRUE);
}

void
viper_app_build_window (App *a)
{
  a->window = gtk_application_window_new (a->gapp);
  a->header = gtk_header_bar_new ();
  gtk_header_bar_set_show_close_button (GTK_HEADER_BAR (a->header), TRUE);
  gtk_header_bar_set_title (GTK_HEADER_BAR (a->header), "Viper");
  /* shown by a title of ours: the subtitle keeps what changes when narrow */
  gtk_header_bar_set_custom_title (GTK_HEADER_BAR (a->header), viper_title_new (&a->title));
  viper_title_set (a->title, "Viper");
  a->go_button = tool_button ("media-playback-start-symbolic", "app.go", "Go (Space)");
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header), a->go_button);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header),
                             tool_button ("media-skip-forward-symbolic", "app.step", "Step one state change (Right, S)"));
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header),
                             tool_button ("media-seek-backward-symbolic", "app.reset", "Reset (R)"));
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header),
                             tool_button ("mark-location-symbolic", "app.breakpoint",
                                          "Breakpoint: fast-forward until the clock would pass a time (B)"));
  GtkWidget *menu = gtk_menu_button_new ();
  gtk_button_set_image (GTK_BUTTON (menu), gtk_image_new_from_icon_name ("open-menu-symbolic", GTK_ICON_SIZE_BUTTON));
  GMenuModel *model = build_menu (a);
  /* a classic menu: it shows each action's key beside it */
  gtk_menu_button_set_use_popover (GTK_MENU_BUTTON (menu), FALSE);
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu), model);
  g_object_unref (model);
  gtk_widget_set_can_focus (menu, FALSE);
  gtk_widget_set_tooltip_text (menu, "Every action, with its key");
  viper_keys_watch_menu (menu, a->gapp, a->debug_dir);
  a->menu_button = menu;
  gtk_header_bar_pack_end (GTK_HEADER_BAR (a->header), menu);
  /* The fast-forward progress lives in the header bar: shown below the
   * views it took their height while running and gave it back at the stop,
   * so every view was laid out again (and the stop's frame, painted before
   * the next tick hid the bar, showed the modules where they are not). */
  a->progress = gtk_progress_bar_new ();
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (a->progress), "fast-forward to the breakpoint");
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (a->progress), TRUE);
  gtk_widget_set_valign (a->progress, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (a->progress, 200, -1);
  gtk_widget_set_no_show_all (a->progress, TRUE);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (a->header), a->progress);
  a->lights = viper_lights_panel_new (G_ACTION_MAP (a->gapp));
  viper_lights_panel_set_notify (a->lights, lights_range_shown, a);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (a->header), viper_lights_panel_widget (a->lights));
  gtk_window_set_titlebar (GTK_WINDOW (a->window), a->header);

  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_pack_start (GTK_BOX (top), framed (a, VIPER_VIEW_ANIMATION, "Animation"), TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (top), framed (a, VIPER_VIEW_PROGRAM, "Program state"), FALSE, FALSE, 0);
  GtkWidget *bottom = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_pack1 (GTK_PANED (bottom), framed (a, VIPER_VIEW_SPACETIME, "Space-time"), TRUE, FALSE);
  gtk_paned_pack2 (GTK_PANED (bottom), framed (a, VIPER_VIEW_VARIABLES, "Variables"), FALSE, FALSE);
  GtkWidget *vp = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_pack1 (GTK_PANED (vp), top, TRUE, FALSE);
  gtk_paned_pack2 (GTK_PANED (vp), bottom, TRUE, FALSE);
  ViperSettings *set = a->settings;
  gtk_paned_set_position (GTK_PANED (vp), viper_settings_get_int (set, "window", "views-split", 400));
  gtk_paned_set_position (GTK_PANED (bottom), viper_settings_get_int (set, "window", "bottom-split", 760));
  a->top = top;
  a->bottom = bottom;
  a->vp = vp;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_container_set_border_width (GTK_CONTAINER (box), 6);
  a->infobar = viper_infobar_new (viper_app_infobar_diagnostics, a);
  gtk_box_pack_start (GTK_BOX (box), viper_infobar_widget (a->infobar), FALSE, FALSE, 0);
  /* the views above, the docked diagnostics below */
  a->main_paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_pack1 (GTK_PANED (a->main_paned), vp, TRUE, FALSE);
  a->dock = gtk_frame_new ("Diagnostics");
  gtk_widget_set_name (a->dock, "diagnostics-dock");
  gtk_widget_set_no_show_all (a->dock, TRUE);

  gtk_paned_pack2 (GTK_PANED (a->main_paned), a->dock, FALSE, TRUE);
  gtk_box_pack_start (GTK_BOX (box), a->main_paned, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (box), viper_playback_timeline (a->pb), FALSE, FALSE, 0);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header), viper_playback_speed_widget (a->pb));
  gtk_container_add (GTK_CONTAINER (a->window), box);
  g_signal_connect (a->window, "realize", G_CALLBACK (on_realize), a);
  g_signal_connect (a->window, "delete-event", G_CALLBACK (on_delete), a);
  g_signal_connect (a->window, "destroy", G_CALLBACK (on_destroy), a);
  viper_desktop_enable_drop (a->window, viper_app_open_files, a);
  gtk_window_set_default_size (GTK_WINDOW (a->window), viper_settings_get_int (set, "window", "width", 1100),
                               viper_settings_get_int (set, "window", "height", 760));
  if (viper_settings_get_bool (set, "window", "maximized", FALSE))
    gtk_window_maximize (GTK_WINDOW (a->window));
  a->inspect = viper_inspect_new (&a->s, inspect_notify, a);
  viper_inspect_set_debug_dir (a->inspect, a->debug_dir);
  viper_inspect_attach (a->inspect, a->views[VIPER_VIEW_ANIMATION], TRUE);
  viper_inspect_attach (a->inspect, a->views[VIPER_VIEW_VARIABLES], TRUE);
  viper_inspect_attach (a->inspect, a->views[VIPER_VIEW_PROGRAM], TRUE);
  a->status = viper_status_new (GTK_WINDOW (a->window));
  if (viper_settings_get_bool (set, "diagnostics", "docked", FALSE))
    viper_status_set_docked (a->status, a->dock);

  a->vsc = viper_view_setup_ctl_new (a->views, VIPER_VIEW_N_KINDS);
  viper_view_setup_ctl_add_menu (a->vsc, a->views[VIPER_VIEW_ANIMATION], "app.view-setup");
  viper_view_setup_ctl_add_menu (a->vsc, a->views[VIPER_VIEW_SPACETIME], "app.view-setup");
  a->swp = viper_switchnet_panel_new (a->views, VIPER_VIEW_N_KINDS, switchnet_changed, a);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (a->header), viper_switchnet_panel_button (a->swp));
}
