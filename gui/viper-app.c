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
 * from there.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gtk/gtk.h>
#include "core/stateout.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "viper-export-trace.h"
#include "viper-playback.h"
#include "viper-session.h"
#include "viper-setup-dialog.h"
#include "viper-switchnet-panel.h"
#include "viper-lights-panel.h"
#include "viper-status.h"
#include "viper-view-widget.h"

typedef struct {
  /* options */
  char *paradigm;
  char *setup;
  char *view;               /* --view: a view setup file beside the paradigm's setup */
  char **listen;
  char **traces;
  double decay;
  double breakpoint;        /* the user's breakpoint, NAN = none */
  int interval_ms;
  double history;
  gboolean demo;

  GtkApplication *gapp;
  ViperSession *s;
  GtkWidget *window, *header, *go_button, *progress;
  GtkWidget *views[VIPER_VIEW_N_KINDS], *frames[VIPER_VIEW_N_KINDS];
  ViperStatus *status;
  ViperViewSetupCtl *vsc;   /* the view setup the views draw (Setup...) */
  ViperSwitchnetPanel *swp; /* switch-network controls (switchnet sessions) */
  ViperLightsPanel *lights; /* Freeze and Range for the lights paradigm */
  guint timer;
  GArray *areas;
  ViperPlayback *pb;        /* speed, timeline, seek (viper-playback.c) */

  gint64 rate_t;
  guint64 rate_applied;
  double rate;
  gboolean have_applied;
  gint64 ap_proc;
  double ap_time, ap_adjusted;

  char *debug_dir;
  guint dumps;
  const char *dump_why;
  gboolean dump_pending;
  guint64 live_dumped_at;
  char *last_layout;
  gboolean progress_dump_pending;  /* the progress bar appeared: say so after the next frame */
  gint64 go_t;              /* when processing last started (benchmark numbers in the dump) */
  gint64 paint_t;           /* when the frame being painted started */
  guint64 go_frames[VIPER_VIEW_N_KINDS];  /* each view's paints by then: frames/s counts the run's own */
} App;

static App app;

/* ---- the pipeline ----------------------------------------------------------- */

static void flush (App *a);
static void update_progress (App *a);

static void
diag_sink (ViperDiagKind kind, const char *message, gpointer data)
{
  App *a = data;
  if (a->status)
    viper_status_condition (a->status, kind, message);
  if (kind == VIPER_DIAG_BAD_INPUT)
    g_printerr ("%s\n", message);
}

static void
transfer_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  App *a = data;
  if (changed)
    {
      a->have_applied = TRUE;
      a->ap_proc = t->proc;
      a->ap_time = t->time;
      a->ap_adjusted = t->adjusted;
    }
  if (a->interval_ms == 0)
    flush (a);
}

static const char *
stop_name (ViperStopReason why)
{
  switch (why)
    {
    case VIPER_STOP_BREAKPOINT: return "breakpoint";
    case VIPER_STOP_STEP: return "step";
    case VIPER_STOP_END: return "end";
    case VIPER_STOP_WAITING: return "waiting";
    case VIPER_STOP_USER: return "stopped";
    case VIPER_STOP_STRICT: return "bad input";
    case VIPER_STOP_NONE:
    default: return "running";
    }
}

static void
request_dump (App *a, const char *why)
{
  if (!a->debug_dir)
    return;
  a->dump_why = why;
  a->dump_pending = TRUE;
  /* the views get what changed since the last tick now, so the next frame
   * shows the state the dump describes; and that frame must be painted */
  flush (a);
  gtk_widget_queue_draw (a->views[VIPER_VIEW_PROGRAM]);
}

static void
update_controls (App *a)
{
  gboolean running = a->s && viper_scheduler_state (a->s->sched) != VIPER_SCHED_IDLE;
  gtk_button_set_image (GTK_BUTTON (a->go_button),
                        gtk_image_new_from_icon_name (running ? "media-playback-pause-symbolic"
                                                              : "media-playback-start-symbolic",
                                                      GTK_ICON_SIZE_BUTTON));
  gtk_widget_set_tooltip_text (a->go_button, running ? "Stop (Space)" : "Go (Space)");
  char sub[160], tb[32];
  if (!a->s)
    g_strlcpy (sub, "no trace", sizeof sub);
  else
    {
      double clock = viper_run_clock (a->s->run);
      ViperStopReason last = viper_scheduler_last_stop (a->s->sched);
      g_snprintf (sub, sizeof sub, "%s \u00b7 %s \u00b7 clock %s", a->s->paradigm->name,
                  running ? "running" : last == VIPER_STOP_NONE ? "ready" : stop_name (last),
                  viper_view_format_clock (clock, 0, tb, sizeof tb));
    }
  gtk_header_bar_set_subtitle (GTK_HEADER_BAR (a->header), sub);
}

static void
sched_notify (ViperScheduler *sched, ViperStopReason why, gpointer data)
{
  (void) sched;
  App *a = data;
  if (why == VIPER_STOP_NONE && viper_scheduler_state (sched) != VIPER_SCHED_IDLE)
    {
      a->go_t = g_get_monotonic_time ();
      for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
        a->go_frames[k] = viper_view_widget_frames (VIPER_VIEW_WIDGET (a->views[k]));
    }
  update_progress (a);
  if (why != VIPER_STOP_NONE && why != VIPER_STOP_WAITING)
    {
      /* show the stop point now rather than at the next tick */
      flush (a);
      request_dump (a, stop_name (why));
    }
  update_controls (a);
}

static void
set_session (App *a, ViperSession *s)
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
  if (a->status)
    viper_status_clear (a->status);
  if (a->swp)
    viper_switchnet_panel_set_session (a->swp, s);
  if (s)
    {
      viper_scheduler_add_hook (s->sched, transfer_hook, a);
      viper_scheduler_set_notify (s->sched, sched_notify, a);
      viper_scheduler_set_breakpoint (s->sched, a->breakpoint);
      for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
        viper_view_widget_set_model (VIPER_VIEW_WIDGET (a->views[k]), s->model, s->run);
      GError *verr = NULL;
      if (!viper_view_setup_ctl_attach (a->vsc, s, a->view, &verr))
        {
          /* the replay works without it: the views fall back to the default layout */
          diag_sink (VIPER_DIAG_WARNING, verr->message, a);
          g_printerr ("viper: %s\n", verr->message);
          g_error_free (verr);
        }
      char *title = g_strdup_printf ("Viper \u2014 %s", s->title && *s->title ? s->title : "(nothing)");
      gtk_header_bar_set_title (GTK_HEADER_BAR (a->header), title);
      g_free (title);
    }
  if (a->lights)
    viper_lights_panel_set_model (a->lights, s ? s->model : NULL);
  viper_playback_set_session (a->pb, s);
  update_controls (a);
}

static gboolean
open_session (App *a, const char *paradigm, const char *setup, char **traces, char **listen)
{
  GError *error = NULL;
  ViperSession *s = viper_session_new (paradigm, setup, (const char *const *) traces, (const char *const *) listen,
                                       a->decay, a->history, diag_sink, a, &error);
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
  set_session (a, s);
  return TRUE;
}

/* ---- the redraw tick ------------------------------------------------------------ */

static void
update_progress (App *a)
{
  gboolean ff = a->s && viper_scheduler_state (a->s->sched) == VIPER_SCHED_RUNNING
                && !isnan (viper_scheduler_breakpoint (a->s->sched)) && a->s->file_bytes > 0;
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

static void
flush (App *a)
{
  if (!a->s)
    return;
  g_array_set_size (a->areas, 0);
  viper_damage_take (a->s->model->damage, a->areas);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    if (gtk_widget_get_visible (a->frames[k]))
      viper_view_widget_damage (VIPER_VIEW_WIDGET (a->views[k]), a->areas);
}

static gboolean
tick (gpointer data)
{
  App *a = data;
  flush (a);
  if (!a->s)
    return G_SOURCE_CONTINUE;
  viper_playback_tick (a->pb);
  gint64 now = g_get_monotonic_time ();
  if (now - a->rate_t >= 500000)
    {
      a->rate = (double) (a->s->model->applied - a->rate_applied) * 1e6 / (double) (now - a->rate_t);
      a->rate_applied = a->s->model->applied;
      a->rate_t = now;
    }
  if (a->status && gtk_widget_get_visible (viper_status_window (a->status)))
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
  if (viper_scheduler_state (a->s->sched) != VIPER_SCHED_IDLE)
    update_controls (a);
  /* live: once every sender has closed and all is applied, say so for the tests */
  if (a->debug_dir && viper_session_has_listener (a->s))
    {
      guint open, total;
      viper_session_connections (a->s, &open, &total);
      if (total > 0 && open == 0 && viper_scheduler_last_stop (a->s->sched) == VIPER_STOP_WAITING
          && a->s->model->applied != a->live_dumped_at)
        {
          a->live_dumped_at = a->s->model->applied;
          request_dump (a, "live-idle");
        }
    }
  return G_SOURCE_CONTINUE;
}

static void
restart_timer (App *a)
{
  if (a->timer)
    g_source_remove (a->timer);
  /* zero: flushed by the transfer hook; the timer still refreshes the status */
  a->timer = g_timeout_add (a->interval_ms > 0 ? (guint) a->interval_ms : 40, tick, a);
}

/* ---- debug dumps (tests) ------------------------------------------------------------- */

/* Where the widget's (0, 0) is in root pixels.  gdk_window_get_origin asks
 * the X server, so write_layout asks once per view, not once per module. */
static gboolean
root_origin (GtkWidget *w, int *ox, int *oy)
{
  GdkWindow *gw = gtk_widget_get_window (w);
  if (!gw || !gtk_widget_get_mapped (w))
    return FALSE;
  gdk_window_get_origin (gw, ox, oy);
  if (!gtk_widget_get_has_window (w))
    {
      GtkAllocation al;
      gtk_widget_get_allocation (w, &al);
      *ox += al.x;
      *oy += al.y;
    }
  return TRUE;
}

static void
write_layout (App *a)
{
  GString *j = g_string_new ("{\"views\": {");
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      ViperViewWidget *v = VIPER_VIEW_WIDGET (a->views[k]);
      g_string_append_printf (j, "%s\"%s\": [", k ? ", " : "", viper_view_kind_name (k));
      if (a->s && gtk_widget_get_mapped (a->views[k]))
        {
          GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
          if (k == VIPER_VIEW_PROGRAM)
            {
              gint64 minus = -1;
              g_array_append_val (ids, minus);
            }
          else
            viper_view_renderer (a->s->model)->modules (a->s->model, a->s->run, ids);
          /* one layout per view and dump: this runs after every frame, and
           * laying the view out again for each of 1088 modules made every
           * frame take seconds, so the replay's idle slices never ran */
          ViperViewGeometry *g = viper_view_widget_geometry (v);
          int ox = 0, oy = 0;
          gboolean placed = root_origin (a->views[k], &ox, &oy);
          gboolean first = TRUE;
          for (guint i = 0; placed && i < ids->len; i++)
            {
              gint64 id = g_array_index (ids, gint64, i);
              double x, y;
              if (viper_view_geometry_module_point (g, id, &x, &y))
                {
                  int rx = ox + (int) floor (x), ry = oy + (int) floor (y);
                  g_string_append_printf (j, "%s{\"id\": %" G_GINT64_FORMAT ", \"x\": %d, \"y\": %d",
                                          first ? "" : ", ", id, rx, ry);
                  /* a view setup's box, with the root offset of the widget's (0, 0) */
                  double bx, by, bw, bh;
                  if (viper_view_geometry_module_box (g, id, &bx, &by, &bw, &bh))
                    g_string_append_printf (j, ", \"box\": [%.3f, %.3f, %.3f, %.3f]", bx + ox, by + oy,
                                            bw, bh);
                  g_string_append (j, "}");
                  first = FALSE;
                }
            }
          viper_view_geometry_free (g);
          g_array_unref (ids);
        }
      g_string_append (j, "]");
    }
  GdkWindow *gw = gtk_widget_get_window (a->window);
  int wx = 0, wy = 0;
  if (gw)
    gdk_window_get_origin (gw, &wx, &wy);
  g_string_append_printf (j, "}, \"window\": {\"x\": %d, \"y\": %d, \"width\": %d, \"height\": %d}}\n", wx, wy,
                          gtk_widget_get_allocated_width (a->window), gtk_widget_get_allocated_height (a->window));
  if (g_strcmp0 (j->str, a->last_layout) != 0)
    {
      char *path = g_build_filename (a->debug_dir, "layout.json", NULL);
      GError *e = NULL;
      if (!g_file_set_contents (path, j->str, -1, &e))
        {
          g_printerr ("viper: %s\n", e->message);
          g_error_free (e);
        }
      g_free (path);
      g_free (a->last_layout);
      a->last_layout = g_string_free (j, FALSE);
    }
  else
    g_string_free (j, TRUE);
}

/* progress.json: the fast-forward progress bar as the frame that first
 * showed it painted it (its root box and fraction), with the views' layout
 * of that frame, for tests: the views must not move when it comes or goes. */
static void
write_progress (App *a)
{
  a->progress_dump_pending = FALSE;
  int ox = 0, oy = 0;
  gboolean placed = root_origin (a->progress, &ox, &oy);
  GtkAllocation al;
  gtk_widget_get_allocation (a->progress, &al);
  char fr[32];
  char *doc = g_strdup_printf ("{\"visible\": %s, \"fraction\": %s, \"box\": [%d, %d, %d, %d], \"layout\": %s}\n",
                               placed && gtk_widget_get_visible (a->progress) ? "true" : "false",
                               viper_format_double (gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (a->progress)),
                                                    fr),
                               ox, oy, al.width, al.height, a->last_layout ? a->last_layout : "null");
  char *path = g_build_filename (a->debug_dir, "progress.json", NULL);
  GError *e = NULL;
  if (!g_file_set_contents (path, doc, -1, &e))
    {
      g_printerr ("viper: %s\n", e->message);
      g_error_free (e);
    }
  g_free (path);
  g_free (doc);
}

static void
write_state (App *a)
{
  a->dump_pending = FALSE;
  a->dumps++;
  char *state = a->s ? viper_state_to_json (a->s->run, a->s->model, FALSE) : g_strdup ("null");
  g_strchomp (state);
  char *sw = a->swp ? viper_switchnet_panel_describe (a->swp, a->views[VIPER_VIEW_ANIMATION]) : NULL;
  if (sw)
    {
      /* the switch-network settings beside the state */
      char *with = g_strdup_printf ("%.*s, \"switchnet\": %s}", (int) strlen (state) - 1, state, sw);
      g_free (state);
      g_free (sw);
      state = with;
    }
  guint64 painted[2] = { viper_view_widget_frames (VIPER_VIEW_WIDGET (a->views[VIPER_VIEW_ANIMATION])),
                        viper_view_widget_frames (VIPER_VIEW_WIDGET (a->views[VIPER_VIEW_SPACETIME])) };
  char *doc = g_strdup_printf ("{\"dumps\": %u, \"why\": \"%s\", \"progress_visible\": %s, \"steps\": %" G_GUINT64_FORMAT
                               ", \"changes\": %" G_GUINT64_FORMAT ", \"applied\": %" G_GUINT64_FORMAT
                               ", \"seconds\": %.6f, \"frames\": {\"animation\": %" G_GUINT64_FORMAT
                               ", \"spacetime\": %" G_GUINT64_FORMAT "}, \"run_frames\": {\"animation\": %"
                               G_GUINT64_FORMAT ", \"spacetime\": %" G_GUINT64_FORMAT "}, \"state\": %s}\n",
                               a->dumps, a->dump_why, gtk_widget_get_visible (a->progress) ? "true" : "false",
                               a->s ? viper_scheduler_steps_done (a->s->sched) : 0,
                               a->s ? a->s->model->changes : 0, a->s ? a->s->model->applied : 0,
                               (double) (g_get_monotonic_time () - a->go_t) / 1e6, painted[0], painted[1],
                               painted[0] - a->go_frames[VIPER_VIEW_ANIMATION],
                               painted[1] - a->go_frames[VIPER_VIEW_SPACETIME], state);
  char *path = g_build_filename (a->debug_dir, "state.json", NULL);
  GError *e = NULL;
  /* g_file_set_contents renames into place: a reader never sees half a file */
  if (!g_file_set_contents (path, doc, -1, &e))
    {
      g_printerr ("viper: %s\n", e->message);
      g_error_free (e);
    }
  g_free (path);
  g_free (doc);
  g_free (state);
}

/* Painting and replaying share the main loop: painting comes first (GDK's
 * priority), replaying gets the idle time.  When frames take longer than the
 * update interval, that idle time shrinks to nothing and the replay would
 * crawl; so the scheduler's slice follows the frame time, which keeps at
 * least half of the time for replaying however slow drawing is. */
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
  if (a->debug_dir)
    {
      /* the server has the pixels before the files say they are there */
      gdk_display_sync (gtk_widget_get_display (a->window));
      write_layout (a);
      if (a->progress_dump_pending)
        write_progress (a);
      if (a->dump_pending)
        write_state (a);
    }
  if (a->paint_t && a->s)
    {
      gint64 took = g_get_monotonic_time () - a->paint_t;
      viper_scheduler_set_slice (a->s->sched, (guint) CLAMP (took, 8000, 250000));
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

/* ---- actions ------------------------------------------------------------------------ */

static void
act_go (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (!a->s)
    return;
  if (viper_scheduler_state (a->s->sched) != VIPER_SCHED_IDLE)
    {
      viper_scheduler_stop (a->s->sched);
      return;
    }
  /* going on from a breakpoint passes it; reset arms it again */
  if (viper_scheduler_last_stop (a->s->sched) == VIPER_STOP_BREAKPOINT)
    viper_scheduler_set_breakpoint (a->s->sched, NAN);
  viper_scheduler_go (a->s->sched);
}

static void
act_step (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (!a->s)
    return;
  if (viper_scheduler_last_stop (a->s->sched) == VIPER_STOP_BREAKPOINT)
    viper_scheduler_set_breakpoint (a->s->sched, NAN);
  viper_scheduler_step (a->s->sched);
}

static void
act_reset (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  if (!a->s)
    return;
  GError *error = NULL;
  if (!viper_scheduler_reset (a->s->sched, &error))
    {
      /* a live stream cannot rewind: the state is cleared all the same */
      diag_sink (VIPER_DIAG_WARNING, error->message, a);
      g_error_free (error);
    }
  viper_scheduler_set_breakpoint (a->s->sched, a->breakpoint);
  a->have_applied = FALSE;
  if (a->status)
    viper_status_clear (a->status);
  flush (a);
  update_controls (a);
  request_dump (a, "reset");
}

static void
apply_breakpoint (App *a, double bp)
{
  a->breakpoint = bp;
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_widget_set_breakpoint (VIPER_VIEW_WIDGET (a->views[k]), bp);
  if (!a->s)
    return;
  viper_scheduler_set_breakpoint (a->s->sched, bp);
  /* a breakpoint ahead of the clock is a fast-forward to it */
  double clock = viper_run_clock (a->s->run);
  if (!isnan (bp) && (!isfinite (clock) || bp > clock) && viper_scheduler_state (a->s->sched) == VIPER_SCHED_IDLE)
    viper_scheduler_go (a->s->sched);
}

static gboolean
parse_number (const char *text, double *out)
{
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod (text, &end);
  if (!text[0] || *end || errno || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}

static void
act_breakpoint (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  GtkWidget *d = gtk_dialog_new_with_buttons ("Breakpoint", GTK_WINDOW (a->window), GTK_DIALOG_MODAL,
                                              "_Cancel", GTK_RESPONSE_CANCEL, "_Set", GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_OK);
  GtkWidget *box = gtk_dialog_get_content_area (GTK_DIALOG (d));
  gtk_container_set_border_width (GTK_CONTAINER (box), 12);
  gtk_box_set_spacing (GTK_BOX (box), 6);
  gtk_container_add (GTK_CONTAINER (box),
                     gtk_label_new ("Fast-forward until the execution clock would pass (empty: no breakpoint):"));
  GtkWidget *entry = gtk_entry_new ();
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  if (!isnan (a->breakpoint))
    {
      char tb[32];
      gtk_entry_set_text (GTK_ENTRY (entry), viper_format_double (a->breakpoint, tb));
    }
  gtk_container_add (GTK_CONTAINER (box), entry);
  gtk_widget_show_all (d);
  while (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_OK)
    {
      const char *t = gtk_entry_get_text (GTK_ENTRY (entry));
      double v;
      if (!*t)
        {
          apply_breakpoint (a, NAN);
          break;
        }
      if (parse_number (t, &v))
        {
          apply_breakpoint (a, v);
          break;
        }
      gtk_widget_error_bell (entry);
    }
  gtk_widget_destroy (d);
}

static char *
choose_file (App *a, const char *title, gboolean optional)
{
  GtkWidget *d = gtk_file_chooser_dialog_new (title, GTK_WINDOW (a->window), GTK_FILE_CHOOSER_ACTION_OPEN,
                                              optional ? "_None" : "_Cancel", GTK_RESPONSE_CANCEL,
                                              "_Open", GTK_RESPONSE_ACCEPT, NULL);
  char *path = NULL;
  GtkWidget *clock = NULL;
  if (!optional)
    {
      /* global time for the trace (issue 15): decay, or post-mortem drift / clc */
      clock = gtk_combo_box_text_new ();
      gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (clock), "decay", "Clock: decay (live)");
      gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (clock), "drift", "Clock: offset and drift");
      gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (clock), "clc", "Clock: drift + controlled logical clock");
      gtk_combo_box_set_active_id (GTK_COMBO_BOX (clock), viper_clock_mode_name (viper_session_clock_mode ()));
      gtk_file_chooser_set_extra_widget (GTK_FILE_CHOOSER (d), clock);
    }
  if (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_ACCEPT)
    {
      path = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (d));
      ViperClockMode m;
      if (clock && viper_clock_mode_parse (gtk_combo_box_get_active_id (GTK_COMBO_BOX (clock)), &m))
        viper_session_set_clock_mode (m);
    }
  gtk_widget_destroy (d);
  return path;
}

static void
act_open (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  char *trace = choose_file (a, "Open a trace", FALSE);
  if (!trace)
    return;
  const char *pname = a->s ? a->s->paradigm->name : a->paradigm;
  const ViperParadigm *p = viper_paradigm_lookup (pname ? pname : "monalisa");
  char *setup = p && p->setup_load ? choose_file (a, "Setup file (optional)", TRUE) : NULL;
  char *traces[] = { trace, NULL };
  open_session (a, pname, setup, traces, NULL);
  g_free (trace);
  g_free (setup);
}

static void
act_listen (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  GtkWidget *d = gtk_dialog_new_with_buttons ("Listen", GTK_WINDOW (a->window), GTK_DIALOG_MODAL,
                                              "_Cancel", GTK_RESPONSE_CANCEL, "_Listen", GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_OK);
  GtkWidget *box = gtk_dialog_get_content_area (GTK_DIALOG (d));
  gtk_container_set_border_width (GTK_CONTAINER (box), 12);
  gtk_box_set_spacing (GTK_BOX (box), 6);
  gtk_container_add (GTK_CONTAINER (box), gtk_label_new ("Accept trams on (tcp:HOST:PORT, tcp:PORT or unix:PATH):"));
  GtkWidget *entry = gtk_entry_new ();
  gtk_entry_set_text (GTK_ENTRY (entry), "tcp:127.0.0.1:7405");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_container_add (GTK_CONTAINER (box), entry);
  gtk_widget_show_all (d);
  if (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_OK)
    {
      char *addr = g_strdup (gtk_entry_get_text (GTK_ENTRY (entry)));
      char *listen[] = { addr, NULL };
      const char *pname = a->s ? a->s->paradigm->name : a->paradigm;
      char *setup = a->s && a->setup ? g_strdup (a->setup) : NULL;
      gtk_widget_destroy (d);
      d = NULL;
      if (open_session (a, pname, setup, NULL, listen))
        viper_scheduler_go (a->s->sched);
      g_free (addr);
      g_free (setup);
    }
  if (d)
    gtk_widget_destroy (d);
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
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (d), "animation.png");
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
      restart_timer (a);
    }
  gtk_widget_destroy (d);
}

static void
act_status (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) param;
  App *a = data;
  GVariant *st = g_action_get_state (G_ACTION (action));
  gboolean show = !g_variant_get_boolean (st);
  g_variant_unref (st);
  g_simple_action_set_state (action, g_variant_new_boolean (show));
  gtk_widget_set_visible (viper_status_window (a->status), show);
}

static void
act_show_view (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) param;
  App *a = data;
  int k = viper_view_kind_from_name (g_action_get_name (G_ACTION (action)) + strlen ("show-"));
  if (k < 0)
    return;
  GVariant *st = g_action_get_state (G_ACTION (action));
  gboolean show = !g_variant_get_boolean (st);
  g_variant_unref (st);
  g_simple_action_set_state (action, g_variant_new_boolean (show));
  gtk_widget_set_visible (a->frames[k], show);
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
  request_dump (a, "view-setup");
}

static void
act_quit (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  App *a = data;
  gtk_widget_destroy (a->window);
}

static const GActionEntry actions[] = {
  { "go", act_go, NULL, NULL, NULL, { 0 } },
  { "step", act_step, NULL, NULL, NULL, { 0 } },
  { "reset", act_reset, NULL, NULL, NULL, { 0 } },
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
};

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
build_menu (void)
{
  GMenu *menu = g_menu_new ();
  GMenu *file = g_menu_new ();
  g_menu_append (file, "_Open trace\u2026", "app.open");
  g_menu_append (file, "_Listen\u2026", "app.listen");
  g_menu_append (file, "_Export view\u2026", "app.export");
  g_menu_append (file, "Export _trace\u2026", "app.export-trace");
  g_menu_append (file, "View _setup\u2026", "app.view-setup");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (file));
  GMenu *views = g_menu_new ();
  g_menu_append (views, "Animation", "app.show-animation");
  g_menu_append (views, "Space-time", "app.show-spacetime");
  g_menu_append (views, "Variables", "app.show-variables");
  g_menu_append (views, "Program state", "app.show-program");
  g_menu_append_section (menu, "Views", G_MENU_MODEL (views));
  GMenu *other = g_menu_new ();
  g_menu_append (other, "_Status window", "app.status");
  g_menu_append (other, "Se_ttings\u2026", "app.settings");
  g_menu_append (other, "_Breakpoint\u2026", "app.breakpoint");
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
  request_dump (data, "switchnet");
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
build_window (App *a)
{
  a->window = gtk_application_window_new (a->gapp);
  gtk_window_set_default_size (GTK_WINDOW (a->window), 1100, 760);
  a->header = gtk_header_bar_new ();
  gtk_header_bar_set_show_close_button (GTK_HEADER_BAR (a->header), TRUE);
  gtk_header_bar_set_title (GTK_HEADER_BAR (a->header), "Viper");
  a->go_button = tool_button ("media-playback-start-symbolic", "app.go", "Go (Space)");
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header), a->go_button);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header),
                             tool_button ("media-skip-forward-symbolic", "app.step", "Step one state change (Right, S)"));
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header),
                             tool_button ("media-seek-backward-symbolic", "app.reset", "Reset (R)"));
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header),
                             tool_button ("media-record-symbolic", "app.breakpoint", "Breakpoint (B)"));
  GtkWidget *menu = gtk_menu_button_new ();
  gtk_button_set_image (GTK_BUTTON (menu), gtk_image_new_from_icon_name ("open-menu-symbolic", GTK_ICON_SIZE_BUTTON));
  GMenuModel *model = build_menu ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu), model);
  g_object_unref (model);
  gtk_widget_set_can_focus (menu, FALSE);
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
  gtk_paned_set_position (GTK_PANED (vp), 400);
  gtk_paned_set_position (GTK_PANED (bottom), 760);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_container_set_border_width (GTK_CONTAINER (box), 6);
  gtk_box_pack_start (GTK_BOX (box), vp, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (box), viper_playback_timeline (a->pb), FALSE, FALSE, 0);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (a->header), viper_playback_speed_widget (a->pb));
  gtk_container_add (GTK_CONTAINER (a->window), box);
  g_signal_connect (a->window, "realize", G_CALLBACK (on_realize), a);
  a->status = viper_status_new (GTK_WINDOW (a->window));
  a->vsc = viper_view_setup_ctl_new (a->views, VIPER_VIEW_N_KINDS);
  viper_view_setup_ctl_add_menu (a->vsc, a->views[VIPER_VIEW_ANIMATION], "app.view-setup");
  viper_view_setup_ctl_add_menu (a->vsc, a->views[VIPER_VIEW_SPACETIME], "app.view-setup");
  a->swp = viper_switchnet_panel_new (a->views, VIPER_VIEW_N_KINDS, switchnet_changed, a);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (a->header), viper_switchnet_panel_button (a->swp));
}

/* ---- start-up ------------------------------------------------------------------------------ */

/* The bundled Farm demo: installed data first, then the source tree. */
static char *
find_demo (const char *sub, const char *name)
{
  char *p = g_build_filename (VIPER_DATA_DIR, name, NULL);
  if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
    return p;
  g_free (p);
  p = g_build_filename (VIPER_SOURCE_DIR, sub, name, NULL);
  if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
    return p;
  g_free (p);
  return NULL;
}

static void
on_activate (GtkApplication *gapp, gpointer data)
{
  App *a = data;
  if (a->window)
    {
      gtk_window_present (GTK_WINDOW (a->window));
      return;
    }
  g_action_map_add_action_entries (G_ACTION_MAP (gapp), actions, G_N_ELEMENTS (actions), a);
  const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.go", { "space", NULL } },
    { "app.step", { "Right", "s", NULL } },
    { "app.breakpoint", { "b", NULL } },
    { "app.reset", { "r", NULL } },
    { "app.open", { "<Control>o", NULL } },
    { "app.listen", { "<Control>l", NULL } },
    { "app.export", { "<Control>e", NULL } },
    { "app.export-trace", { "<Shift><Control>e", NULL } },
    { "app.view-setup", { "<Shift><Control>o", NULL } },
    { "app.lights-freeze", { "<Shift>f", NULL } },
    { "app.lights-range", { "i", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "app.status", { "<Control>i", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (gapp, accels[i].action, accels[i].accels);
  build_window (a);
  viper_switchnet_panel_add_actions (a->swp, gapp);
  viper_playback_install (a->pb, gapp, GTK_WINDOW (a->window), a->debug_dir);
  viper_view_widget_add_actions (VIPER_VIEW_WIDGET (a->views[VIPER_VIEW_SPACETIME]), gapp);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_widget_set_breakpoint (VIPER_VIEW_WIDGET (a->views[k]), a->breakpoint);
  gtk_widget_show_all (a->window);
  restart_timer (a);

  char *demo_trace = NULL, *demo_setup = NULL;
  if (a->demo)
    {
      demo_trace = find_demo ("traces", "farm.trc");
      demo_setup = find_demo ("setup", "farm.setup");
      if (!demo_trace)
        g_printerr ("viper: the Farm demo trace is not installed; use Open\n");
      else
        {
          g_strfreev (a->traces);
          a->traces = g_new0 (char *, 2);
          a->traces[0] = g_strdup (demo_trace);
          if (!a->setup)
            a->setup = g_strdup (demo_setup);
        }
    }
  if (a->traces || a->listen)
    {
      if (open_session (a, a->paradigm, a->setup, a->traces, a->listen)
          && (a->listen || !isnan (a->breakpoint)))
        viper_scheduler_go (a->s->sched);
    }
  else
    set_session (a, NULL);
  g_free (demo_trace);
  g_free (demo_setup);
}

int
main (int argc, char **argv)
{
  App *a = &app;
  a->decay = 0.5;
  a->breakpoint = NAN;
  a->interval_ms = 40;
  a->history = 0;
  char *decay_s = NULL, *bp_s = NULL, *hist_s = NULL, *clock_s = NULL;
  int interval = -1;
  gboolean version = FALSE;
  GOptionEntry entries[] = {
    { "setup", 's', 0, G_OPTION_ARG_FILENAME, &a->setup, "The paradigm's setup file (Mona Lisa: the Module Setup file)", "FILE" },
    { "view", 0, 0, G_OPTION_ARG_FILENAME, &a->view, "A view setup file for the views (Macrame: also its setup)", "FILE" },
    { "paradigm", 'p', 0, G_OPTION_ARG_STRING, &a->paradigm, "Paradigm of the trace (default monalisa)", "NAME" },
    { "listen", 'l', 0, G_OPTION_ARG_STRING_ARRAY, &a->listen, "Accept trams on ADDR (tcp:HOST:PORT, tcp:PORT, unix:PATH) and play them live", "ADDR" },
    { "decay", 'd', 0, G_OPTION_ARG_STRING, &decay_s, "Clock-offset decay in [0,1] (default 0.5)", "X" },
    { "clock", 0, 0, G_OPTION_ARG_STRING, &clock_s, "Global time: decay (default), drift or clc (trace files only)", "MODE" },
    { "breakpoint", 'b', 0, G_OPTION_ARG_STRING, &bp_s, "Fast-forward until the execution clock would pass CLOCK", "CLOCK" },
    { "update-interval", 'u', 0, G_OPTION_ARG_INT, &interval, "Screen update interval in ms (default 40; 0 = after every tram)", "MS" },
    { "history", 0, 0, G_OPTION_ARG_STRING, &hist_s, "Keep INTERVAL trace time units of history for the space-time view (default 0 = all)", "INTERVAL" },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->traces, NULL, "[TRACE...]" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionContext *ctx = g_option_context_new ("[TRACE...] - watch a parallel program's trace replayed");
  g_option_context_set_summary (ctx, "Without a trace or --listen, opens the bundled Farm demo (Mona Lisa).");
  /* playback's --speed lives in the main group, so that --help lists it */
  a->pb = viper_playback_new ();
  g_option_context_set_main_group (ctx, viper_playback_option_group (a->pb));
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gtk_get_option_group (FALSE));
  GError *error = NULL;
  int rc = 0;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("viper: %s\nTry 'viper --help' for more information.\n", error->message);
      g_error_free (error);
      g_option_context_free (ctx);
      return 2;
    }
  g_option_context_free (ctx);
  if (version)
    {
      printf ("viper %s\n", VIPER_VERSION);
      return 0;
    }
  if ((decay_s && (!parse_number (decay_s, &a->decay) || a->decay < 0 || a->decay > 1))
      || (bp_s && !parse_number (bp_s, &a->breakpoint))
      || (hist_s && (!parse_number (hist_s, &a->history) || a->history < 0)) || interval < -1)
    {
      g_printerr ("viper: --decay takes a number in [0,1], --breakpoint a number, --history and "
                  "--update-interval numbers >= 0\n");
      return 2;
    }
  if (interval >= 0)
    a->interval_ms = interval;
  ViperClockMode clock_mode = VIPER_CLOCK_DECAY;
  if (clock_s && !viper_clock_mode_parse (clock_s, &clock_mode))
    {
      g_printerr ("viper: --clock must be decay, drift or clc\n");
      g_free (clock_s);
      return 2;
    }
  viper_session_set_clock_mode (clock_mode);
  g_free (clock_s);
  a->demo = !a->traces && !a->listen;
  if (a->demo && !a->paradigm)
    a->paradigm = g_strdup ("monalisa");
  const char *dbg = g_getenv ("VIPER_DEBUG_DIR");
  a->debug_dir = dbg && *dbg ? g_strdup (dbg) : NULL;
  a->areas = g_array_new (FALSE, FALSE, sizeof (ViperArea));
  if (!gtk_init_check (NULL, NULL))
    {
      g_printerr ("viper: cannot open a display\n");
      return 1;
    }
  a->gapp = gtk_application_new ("org.viper.Viper", G_APPLICATION_NON_UNIQUE);
  g_signal_connect (a->gapp, "activate", G_CALLBACK (on_activate), a);
  char *args[] = { argv[0], NULL };
  rc = g_application_run (G_APPLICATION (a->gapp), 1, args);
  if (a->timer)
    g_source_remove (a->timer);
  /* the widgets are gone with the window: free the pipeline alone */
  viper_playback_set_session (a->pb, NULL);
  viper_session_free (a->s);
  a->s = NULL;
  viper_playback_free (a->pb);
  viper_view_setup_ctl_free (a->vsc);
  viper_switchnet_panel_free (a->swp);
  g_object_unref (a->gapp);
  g_array_unref (a->areas);
  g_free (a->paradigm);
  g_free (a->setup);
  g_free (a->view);
  g_strfreev (a->listen);
  g_strfreev (a->traces);
  g_free (a->debug_dir);
  g_free (a->last_layout);
  g_free (decay_s);
  g_free (bp_s);
  g_free (hist_s);
  return rc;
}
