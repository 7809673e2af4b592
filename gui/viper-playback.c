/* viper-playback.c - replay speed, the timeline, seek and step back.
 *
 * Speed.  Go plays at a replay speed in trace time per wall second (the
 * scheduler holds each tram until the pace reaches its adjusted time,
 * core/scheduler.h); the update interval stays the redraw rate.  Speeds
 * step along 1-2-5 decades; "max" is as fast as possible.  A breakpoint
 * ahead of the clock is a fast-forward and ignores the speed.  Until the
 * user picks one, the speed is chosen so that the whole run plays in about
 * 30 s once its length is known.  Live sessions play as trams come: the
 * control shows "live".
 *
 * The index.  To say "tram N of M" and to draw the timeline of the whole
 * run before it has been replayed, a second pipeline on the same files
 * replays them in the background (low-priority idle slices, no history, no
 * views, paused while the replay on screen runs): it learns M, the run's first and last clock, and the clock of
 * every state change - kept as at most INDEX_SAMPLES samples, every k-th
 * change with k doubling when they fill up, so memory stays bounded
 * (INDEX_SAMPLES doubles) whatever the length of the trace.  Standard
 * input is read once (core/stdin-keep.h): the index reads it when it has
 * ended and is kept whole; until then M is not known ("of ?"), and if it
 * never can be read again, M is what the replay on screen applied by its
 * end.
 *
 * Seek.  A file session logs its run order as the engine replays it
 * (core/trail.h: every transferred tram, compactly, with a model checkpoint
 * every so many trams).  Going to a clock or a step count restores the
 * latest checkpoint from which a replay forward reaches it and replays the
 * logged trams from there - no parsing, no run construction - until the
 * stop; once the replay is back where the engine is, the engine goes on.
 * The state is the one a replay from the start reaches (viper-replay
 * --seek-test checks it at many points).  Only what the engine has reached
 * is logged: the first visit past it replays with the engine, as before.
 * Without a usable trail (live sessions, the trail's memory bound passed)
 * going back resets and replays from the start.  Step back is a seek to
 * one state change fewer: in the run order when the state was reached by
 * steps, in time (the clock of the change before the latest one) when it
 * was reached by clock - the trams of a stop by clock are no prefix of the
 * run order when the lines are out of time order, and a prefix with one
 * change fewer could hold trams later than the clock shown.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "viper-playback-priv.h"
#include "core/jsonout.h"
#include "core/tramparse.h"
#include "core/trail.h"
#include "core/stdin-keep.h"
#include "paradigms/views.h"

#define INDEX_SAMPLES 65536
#define INDEX_SLICE_US 4000
#define AUTO_RUN_SECONDS 30.0

/* struct _ViperPlayback: viper-playback-priv.h */

/* ---- speed ---------------------------------------------------------------------- */

/* 1-2-5 steps from 1e-6 to 1e9 trace time units per second */
#define LADDER_LO (-6)
#define LADDER_N (16 * 3)

static double
ladder (int i)
{
  static const double m[3] = { 1, 2, 5 };
  return m[i % 3] * pow (10, LADDER_LO + i / 3);
}

static int
ladder_nearest (double v)
{
  int best = 0;
  for (int i = 1; i < LADDER_N; i++)
    if (fabs (log (ladder (i) / v)) < fabs (log (ladder (best) / v)))
      best = i;
  return best;
}

gboolean
pb_is_live (ViperPlayback *pb)
{
  return pb->s && viper_session_has_listener (pb->s);
}

static void write_dump (ViperPlayback *pb);

static void
apply_speed (ViperPlayback *pb)
{
  char buf[64], nb[32];
  if (!pb->s)
    g_strlcpy (buf, "speed -", sizeof buf);
  else if (pb_is_live (pb))
    g_strlcpy (buf, "live", sizeof buf);
  else if (pb->speed_i < 0)
    g_strlcpy (buf, "speed max", sizeof buf);
  else
    g_snprintf (buf, sizeof buf, "speed %s/s", viper_view_format_clock (ladder (pb->speed_i), 0, nb, sizeof nb));
  if (pb->speed_label)
    gtk_label_set_text (GTK_LABEL (pb->speed_label), buf);
  if (pb->s)
    viper_scheduler_set_speed (pb->s->sched, pb_is_live (pb) || pb->speed_i < 0 ? 0 : ladder (pb->speed_i));
  write_dump (pb);
}

static void
set_speed_index (ViperPlayback *pb, int i)
{
  pb->speed_i = i < 0 ? -1 : CLAMP (i, 0, LADDER_N - 1);
  if (pb->speed_i >= 0)
    pb->last_finite_i = pb->speed_i;
  apply_speed (pb);
}

static void
act_faster (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  ViperPlayback *pb = data;
  pb->speed_user = TRUE;
  if (pb->speed_i >= 0)
    set_speed_index (pb, pb->speed_i + 1 < LADDER_N ? pb->speed_i + 1 : -1);
}

static void
act_slower (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  ViperPlayback *pb = data;
  pb->speed_user = TRUE;
  set_speed_index (pb, pb->speed_i < 0 ? pb->last_finite_i : MAX (pb->speed_i - 1, 0));
}

static void
act_full_speed (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  ViperPlayback *pb = data;
  pb->speed_user = TRUE;
  set_speed_index (pb, pb->speed_i < 0 ? pb->last_finite_i : -1);
}

/* ---- the index pass ------------------------------------------------------------- */

static void
index_stop (ViperPlayback *pb)
{
  if (pb->index_idle)
    g_source_remove (pb->index_idle);
  pb->index_idle = 0;
  viper_session_free (pb->index);
  pb->index = NULL;
}

static void
index_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  ViperPlayback *pb = data;
  if (!isfinite (t->adjusted))
    return;
  /* the run's range and its ticks come from the trams that carry a
   * processor's clock: a subset definition dated 0 before epoch times would
   * put the whole program in the timeline's last pixel */
  if (pb->index && viper_paradigm_timeless (pb->index->paradigm, t))
    return;
  if (!isfinite (pb->run_t0) || t->adjusted < pb->run_t0)
    pb->run_t0 = t->adjusted;
  if (!isfinite (pb->run_t1) || t->adjusted > pb->run_t1)
    pb->run_t1 = t->adjusted;
  if (!changed || ++pb->since < pb->stride)
    return;
  pb->since = 0;
  if (pb->samples->len >= INDEX_SAMPLES)
    {
      /* full: keep every other sample and take every other change from now on */
      for (guint i = 0; i < pb->samples->len / 2; i++)
        g_array_index (pb->samples, double, i) = g_array_index (pb->samples, double, 2 * i + 1);
      g_array_set_size (pb->samples, pb->samples->len / 2);
      pb->stride *= 2;
    }
  g_array_append_val (pb->samples, t->adjusted);
}

static void
index_finished (ViperPlayback *pb)
{
  pb->index_done = TRUE;
  pb->index_trams = pb->index->model->applied;
  index_stop (pb);
  if (!pb->speed_user && isfinite (pb->run_t1) && pb->run_t1 > pb->run_t0)
    set_speed_index (pb, ladder_nearest ((pb->run_t1 - pb->run_t0) / AUTO_RUN_SECONDS));
  gtk_widget_queue_draw (pb->timeline);
  write_dump (pb);
}

static gboolean
index_idle (gpointer data)
{
  ViperPlayback *pb = data;
  if (pb->s && viper_scheduler_state (pb->s->sched) != VIPER_SCHED_IDLE)
    {
      /* the replay on screen comes first: indexing is a second full replay,
       * and on a busy machine it would halve the first one's speed; the
       * tick starts it again when the screen's replay stops */
      pb->index_idle = 0;
      return G_SOURCE_REMOVE;
    }
  gint64 until = g_get_monotonic_time () + INDEX_SLICE_US;
  do
    {
      ViperStopReason r = viper_scheduler_pump (pb->index->sched, 1024);
      if (r == VIPER_STOP_END || r == VIPER_STOP_STRICT)
        {
          pb->index_idle = 0;
          index_finished (pb);
          return G_SOURCE_REMOVE;
        }
      if (r == VIPER_STOP_WAITING)
        {
          /* the index's files are read ahead for their processors (a
           * collective over every one): look again shortly, not at once */
          pb->index_idle = g_timeout_add_full (G_PRIORITY_LOW, 20, index_idle, pb, NULL);
          return G_SOURCE_REMOVE;
        }
    }
  while (g_get_monotonic_time () < until);
  return G_SOURCE_CONTINUE;
}

/* The session reads standard input: a second reading must wait until it has
 * all been read (and kept). */
static gboolean
reads_stdin (ViperSession *s)
{
  for (char **t = s ? s->traces : NULL; t && *t; t++)
    if (g_str_equal (*t, "-"))
      return TRUE;
  return FALSE;
}

static void
index_start (ViperPlayback *pb)
{
  index_stop (pb);
  pb->index_waits = FALSE;
  pb->index_done = FALSE;
  pb->index_trams = 0;
  pb->run_t0 = pb->run_t1 = NAN;
  g_array_set_size (pb->samples, 0);
  pb->stride = 1;
  pb->since = 0;
  if (!pb->s || pb_is_live (pb) || !pb->s->traces[0])
    return;
  if (reads_stdin (pb->s) && !viper_stdin_complete (NULL))
    {
      pb->index_waits = TRUE;   /* viper_playback_tick starts it once standard input is kept whole */
      return;
    }
  GError *error = NULL;
  /* no history (-1) and no diagnostics: the session on screen reports those */
  pb->index = viper_session_new (pb->s->paradigm->name, pb->s->setup_path, (const char *const *) pb->s->traces,
                                 NULL, pb->s->decay, -1, NULL, NULL, &error);
  if (!pb->index)
    {
      g_printerr ("viper: timeline: %s\n", error->message);
      g_error_free (error);
      return;
    }
  viper_scheduler_add_hook (pb->index->sched, index_hook, pb);
  pb->index_idle = g_idle_add_full (G_PRIORITY_LOW, index_idle, pb, NULL);
}

/* ---- seeking -------------------------------------------------------------------- */

gboolean
pb_can_seek (ViperPlayback *pb)
{
  return pb->s && !pb_is_live (pb) && !pb->seeking;
}

/* Replay synchronously until the stop the caller armed; the user's breakpoint
 * is put back afterwards.  back: the target may lie behind (Back, a seek to
 * an earlier clock), so without a trail the pipeline must start over. */
static void
replay_to (ViperPlayback *pb, double clock, guint64 steps, gboolean back, const char *said)
{
  ViperScheduler *sc = pb->s->sched;
  double user_bp = viper_scheduler_breakpoint (sc);
  /* the user's tram breakpoint does not stop a seek on its way */
  gboolean user_tram = viper_scheduler_tram_stop_armed (sc);
  viper_scheduler_arm_tram_stop (sc, FALSE);
  pb->seeking = TRUE;
  pb->seek_said = said;     /* the stop shown while it runs is already the seek's */
  if (viper_scheduler_state (sc) != VIPER_SCHED_IDLE)
    viper_scheduler_stop (sc);
  guint64 was = pb->s->model->applied;
  if (viper_scheduler_rewind (sc, clock, steps))
    {
      if (pb->s->model->applied != was || viper_scheduler_replaying (sc))
        g_action_group_activate_action (G_ACTION_GROUP (pb->gapp), "seeked", NULL);
    }
  else if (back)
    /* the app's own reset: it clears what it shows of the old state too */
    g_action_group_activate_action (G_ACTION_GROUP (pb->gapp), "reset", NULL);
  if (!isnan (clock) || steps)
    {
      guint64 done = viper_scheduler_steps_done (sc);
      viper_scheduler_set_breakpoint (sc, clock);
      viper_scheduler_set_step_limit (sc, steps ? steps - MIN (done, steps - 1) : 0);
      viper_scheduler_arm_tram_stop (sc, FALSE);   /* a reset (above) arms it */
      viper_scheduler_run (sc);
      viper_scheduler_set_step_limit (sc, 0);
    }
  pb->seek_reason = viper_scheduler_last_stop (sc);
  pb->seek_steps = viper_scheduler_steps_done (sc);
  viper_scheduler_set_breakpoint (sc, user_bp);
  viper_scheduler_arm_tram_stop (sc, user_tram);
  pb->seeking = FALSE;
  gtk_widget_queue_draw (pb->timeline);
  write_dump (pb);
}

const char *
viper_playback_seek_said (ViperPlayback *pb)
{
  if (!pb->seek_said || !pb->s)
    return NULL;
  ViperScheduler *sc = pb->s->sched;
  ViperStopReason r = viper_scheduler_last_stop (sc);
  /* only while the seek's own stop is shown: any run since moved the
   * steps or replaced the stop */
  if (viper_scheduler_state (sc) != VIPER_SCHED_IDLE || (r != VIPER_STOP_BREAKPOINT && r != VIPER_STOP_STEP)
      || (!pb->seeking && (r != pb->seek_reason || viper_scheduler_steps_done (sc) != pb->seek_steps)))
    return NULL;
  return pb->seek_said;
}

/* The tram stop's tram is behind the state shown (core/scheduler.h,
 * viper_scheduler_tram_stop_behind): back to the latest checkpoint before it
 * and forward, by playback, to right after it - the state a fast-forward
 * from the start stops in.  FALSE without a trail: nothing is done. */
gboolean
viper_playback_back_to_tram (ViperPlayback *pb)
{
  ViperScheduler *sc = pb->s->sched;
  double user_bp = viper_scheduler_breakpoint (sc);
  pb->seeking = TRUE;
  if (viper_scheduler_state (sc) != VIPER_SCHED_IDLE)
    viper_scheduler_stop (sc);
  gboolean ok = viper_scheduler_rewind_to_tram_stop (sc);
  if (ok)
    {
      g_action_group_activate_action (G_ACTION_GROUP (pb->gapp), "seeked", NULL);
      viper_scheduler_set_breakpoint (sc, NAN);
      viper_scheduler_arm_tram_stop (sc, TRUE);
      viper_scheduler_run (sc);
      viper_scheduler_set_breakpoint (sc, user_bp);
    }
  pb->seeking = FALSE;
  gtk_widget_queue_draw (pb->timeline);
  write_dump (pb);
  return ok;
}

/* Pending reasons behind the engine (core/scheduler.h): a pipeline of its
 * own replays to the same point.  Only asked for when they are shown (the
 * diagnostics, the tests' state dump), never by a seek itself. */
static GArray *
stuck_at (gpointer data, guint64 transferred, gboolean peek, double breakpoint)
{
  ViperPlayback *pb = data;
  if (!pb->s || (reads_stdin (pb->s) && !viper_stdin_complete (NULL)))
    return NULL;
  GError *error = NULL;
  ViperSession *t = viper_session_new (pb->s->paradigm->name, pb->s->setup_path, (const char *const *) pb->s->traces,
                                       NULL, pb->s->decay, -1, NULL, NULL, &error);
  if (!t)
    {
      g_error_free (error);
      return NULL;
    }
  if (isnan (breakpoint))
    viper_scheduler_set_transfer_limit (t->sched, transferred, peek);
  else
    viper_scheduler_set_breakpoint (t->sched, breakpoint);   /* a breakpoint stop: as a replay to it */
  viper_scheduler_run (t->sched);
  GArray *a = viper_run_stuck (t->run);
  viper_session_free (t);
  return a;
}

void
pb_seek_clock (ViperPlayback *pb, double t)
{
  if (!pb_can_seek (pb) || !isfinite (t))
    return;
  double clock = viper_run_clock (pb->s->run);
  gboolean back = isfinite (clock) && t < clock;
  /* the clock after a stop is where the last transferred tram put it, so
   * seeking to the clock it shows is a no-op */
  if (isfinite (clock) && t == clock)
    return;
  replay_to (pb, t, 0, back, "went to clock");
}

/* Back: to a checkpoint (or the start), then forward to as many state
 * changes fewer as Back was pressed - in the run order after a stop by
 * steps, in time after a stop by clock (a breakpoint, Go to clock, the
 * timeline, Back itself there): core/scheduler.h, viper_scheduler_back_target
 * says where, so that the clock never moves forward.  A seek can take a good part of a
 * second on a large run, and a held key repeats 25 or more times a second:
 * seeking once per press would go on for seconds after the key is let go.
 * So a press only counts; the seek runs when the main loop is idle, after
 * every press already queued, and one seek serves them all. */
void
viper_playback_flush_back (ViperPlayback *pb)
{
  if (pb->back_idle)
    g_source_remove (pb->back_idle);
  pb->back_idle = 0;
  guint n = pb->back_pending;
  pb->back_pending = 0;
  if (!n || !pb_can_seek (pb))
    return;
  double clock;
  guint64 steps;
  if (!viper_scheduler_back_target (pb->s->sched, n, &clock, &steps))
    return;
  pb->back_seeks++;
  replay_to (pb, clock, steps, TRUE, "back");
}

static gboolean
back_idle (gpointer data)
{
  ViperPlayback *pb = data;
  pb->back_idle = 0;
  viper_playback_flush_back (pb);
  return G_SOURCE_REMOVE;
}

static void
act_back (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  ViperPlayback *pb = data;
  if (!pb_can_seek (pb))
    return;
  pb->back_pending++;
  if (!pb->back_idle)
    pb->back_idle = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, back_idle, pb, NULL);
}

static void
act_seek (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action;
  viper_playback_flush_back (data);
  pb_seek_clock (data, g_variant_get_double (param));
}

/* The run and the clock now, as the Go to clock and Breakpoint dialogs say
 * them (kept up to date by viper_playback_tick while they are open:
 * playback goes on, and the index pass reads on). */
void
viper_playback_run_text (ViperPlayback *pb, char *text, gsize len)
{
  char a[32], b[32], now[48];
  if (!pb->s)
    {
      g_strlcpy (text, "No trace is open.", len);
      return;
    }
  double clock = viper_run_clock (pb->s->run);
  if (isfinite (clock))
    g_snprintf (now, sizeof now, "the clock is at %s", viper_view_format_clock (clock, 0, a, sizeof a));
  else
    g_strlcpy (now, "the clock has not started", sizeof now);
  if (isfinite (pb->run_t0))
    {
      guint64 n = pb->index_done ? pb->index_trams : pb->index ? pb->index->model->applied : 0;
      g_snprintf (text, len, "The run goes from %s to %s (%" G_GUINT64_FORMAT " trams%s); %s.",
                  viper_view_format_clock (pb->run_t0, 0, a, sizeof a), viper_view_format_clock (pb->run_t1, 0, b, sizeof b),
                  n, pb->index_done ? "" : " so far, still reading", now);
    }
  else if (pb_is_live (pb))
    g_snprintf (text, len, "Live: %" G_GUINT64_FORMAT " trams so far; %s.", pb->s->model->applied, now);
  else if (pb->index_done)
    g_strlcpy (text, "The run has no trams.", len);
  else
    g_snprintf (text, len, "The run's range is not known yet; %s.", now);
}

static void
goto_update (ViperPlayback *pb)
{
  if (!pb->run_labels || !pb->run_labels->len)
    return;
  char range[200];
  viper_playback_run_text (pb, range, sizeof range);
  for (guint i = 0; i < pb->run_labels->len; i++)
    {
      GtkLabel *l = g_ptr_array_index (pb->run_labels, i);
      if (g_strcmp0 (gtk_label_get_text (l), range) != 0)
        gtk_label_set_text (l, range);
    }
}

static void
run_label_gone (GtkWidget *label, gpointer data)
{
  ViperPlayback *pb = data;
  g_ptr_array_remove (pb->run_labels, label);
}

GtkWidget *
viper_playback_run_label_new (ViperPlayback *pb)
{
  char range[200];
  viper_playback_run_text (pb, range, sizeof range);
  GtkWidget *label = gtk_label_new (range);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_line_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 60);
  if (!pb->run_labels)
    pb->run_labels = g_ptr_array_new ();
  g_ptr_array_add (pb->run_labels, label);
  g_signal_connect (label, "destroy", G_CALLBACK (run_label_gone), pb);
  return label;
}

static void
act_goto (GSimpleAction *action, GVariant *param, gpointer data)
{
  (void) action, (void) param;
  ViperPlayback *pb = data;
  if (!pb_can_seek (pb) || pb->goto_label)
    return;
  GtkWidget *d = gtk_dialog_new_with_buttons ("Go to clock", pb->window, GTK_DIALOG_MODAL, "_Cancel",
                                              GTK_RESPONSE_CANCEL, "_Go", GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (d), GTK_RESPONSE_OK);
  GtkWidget *box = gtk_dialog_get_content_area (GTK_DIALOG (d));
  gtk_container_set_border_width (GTK_CONTAINER (box), 12);
  gtk_box_set_spacing (GTK_BOX (box), 6);
  GtkWidget *label = viper_playback_run_label_new (pb);
  gtk_container_add (GTK_CONTAINER (box), label);
  GtkWidget *hint = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (hint), 0);
  gtk_container_add (GTK_CONTAINER (box), hint);
  GtkWidget *entry = gtk_entry_new ();
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), "clock");
  gtk_container_add (GTK_CONTAINER (box), entry);
  gtk_widget_show_all (d);
  gtk_widget_hide (hint);
  pb->goto_label = label;
  write_dump (pb);
  double t = NAN;
  while (gtk_dialog_run (GTK_DIALOG (d)) == GTK_RESPONSE_OK)
    {
      const char *txt = gtk_entry_get_text (GTK_ENTRY (entry));
      if (viper_parse_number (txt, &t) == VIPER_NUMBER_OK)
        break;
      t = NAN;
      gtk_label_set_text (GTK_LABEL (hint), "Type a number, such as 12.5.");
      gtk_widget_show (hint);
    }
  pb->goto_label = NULL;
  gtk_widget_destroy (d);
  write_dump (pb);
  pb_seek_clock (pb, t);
}

/* ---- debug dump (tests) --------------------------------------------------------- */

/* What seeking holds: the trail's trams, its bytes against its bound, the
 * checkpoints and their spacing; null without one. */
static char *
trail_json (ViperPlayback *pb)
{
  ViperTrail *tr = pb->s ? viper_scheduler_get_trail (pb->s->sched) : NULL;
  if (!tr)
    return g_strdup ("null");
  return g_strdup_printf ("{\"trams\": %" G_GUINT64_FORMAT ", \"bytes\": %" G_GSIZE_FORMAT ", \"bound\": %" G_GSIZE_FORMAT
                          ", \"checkpoints\": %u, \"every\": %" G_GUINT64_FORMAT ", \"replaying\": %s}",
                          viper_trail_length (tr), viper_trail_bytes (tr), viper_trail_max_bytes (tr),
                          viper_trail_n_ckpts (tr), viper_trail_every (tr),
                          viper_scheduler_replaying (pb->s->sched) ? "true" : "false");
}

/* TEXT as a JSON string, or null. */
static char *
json_text (const char *text)
{
  GString *o = g_string_new (NULL);
  viper_json_append_string (o, text);
  return g_string_free (o, FALSE);
}

static void
write_dump (ViperPlayback *pb)
{
  if (!pb->debug_dir)
    return;
  char sp[32], a[32], b[32], c[32];
  int ox = 0, oy = 0;
  GdkWindow *gw = pb->timeline ? gtk_widget_get_window (pb->timeline) : NULL;
  if (gw && gtk_widget_get_mapped (pb->timeline))
    {
      gdk_window_get_origin (gw, &ox, &oy);
      if (!gtk_widget_get_has_window (pb->timeline))
        {
          GtkAllocation al;
          gtk_widget_get_allocation (pb->timeline, &al);
          ox += al.x;
          oy += al.y;
        }
    }
  double t0, t1;
  pb_timeline_range (pb, &t0, &t1);
  char *trail = trail_json (pb);
  char line[256];
  pb_status_line (pb, line, sizeof line);
  char *status = json_text (line);
  char *go = json_text (pb->goto_label ? gtk_label_get_text (GTK_LABEL (pb->goto_label)) : NULL);
  int tw = pb->timeline ? gtk_widget_get_allocated_width (pb->timeline) : 0;
  char *doc = g_strdup_printf (
    "{\"speed\": %s, \"live\": %s, \"index_done\": %s, \"trams\": %" G_GUINT64_FORMAT ", \"run\": [%s, %s], "
    "\"clock\": %s, \"timeline\": {\"x\": %d, \"y\": %d, \"width\": %d, \"height\": %d, \"x0\": %d, \"x1\": %d}, "
    "\"trail\": %s, \"status\": %s, \"goto\": %s, \"back_seeks\": %" G_GUINT64_FORMAT "}\n",
    pb->speed_i < 0 ? "null" : viper_format_double (ladder (pb->speed_i), sp), pb_is_live (pb) ? "true" : "false",
    pb->index_done ? "true" : "false", pb_total_trams (pb), viper_format_double (t0, a), viper_format_double (t1, b),
    pb->s && isfinite (viper_run_clock (pb->s->run)) ? viper_format_double (viper_run_clock (pb->s->run), c) : "null",
    ox, oy, tw, pb->timeline ? gtk_widget_get_allocated_height (pb->timeline) : 0, ox + (int) TL_PAD,
    ox + tw - (int) TL_PAD, trail, status, go, pb->back_seeks);
  g_free (trail);
  g_free (status);
  g_free (go);
  if (g_strcmp0 (doc, pb->last_dump) == 0)
    {
      g_free (doc);
      return;
    }
  char *path = g_build_filename (pb->debug_dir, "playback.json", NULL);
  GError *e = NULL;
  /* renamed into place (a reader never sees half a file) but not fsync'ed:
   * this is written ten times a second while playing, and an fsync on a
   * busy disk stalls the main loop */
  if (!g_file_set_contents_full (path, doc, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &e))
    {
      g_printerr ("viper: %s\n", e->message);
      g_error_free (e);
    }
  g_free (path);
  g_free (pb->last_dump);
  pb->last_dump = doc;
}

/* ---- set-up --------------------------------------------------------------------- */

ViperPlayback *
viper_playback_new (void)
{
  ViperPlayback *pb = g_new0 (ViperPlayback, 1);
  pb->speed_i = -1;
  pb->last_finite_i = ladder_nearest (1.0);
  pb->samples = g_array_new (FALSE, FALSE, sizeof (double));
  pb->run_t0 = pb->run_t1 = NAN;
  pb->drag_t = NAN;
  pb->stride = 1;
  return pb;
}

void
viper_playback_free (ViperPlayback *pb)
{
  if (!pb)
    return;
  index_stop (pb);
  if (pb->back_idle)
    g_source_remove (pb->back_idle);
  for (guint i = 0; pb->run_labels && i < pb->run_labels->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (pb->run_labels, i), pb);
  if (pb->run_labels)
    g_ptr_array_unref (pb->run_labels);
  g_array_unref (pb->samples);
  g_free (pb->speed_opt);
  g_free (pb->debug_dir);
  g_free (pb->last_dump);
  g_free (pb);
}

static gboolean
parse_speed (const char *name, const char *value, gpointer data, GError **error)
{
  (void) name;
  ViperPlayback *pb = data;
  if (g_str_equal (value, "max"))
    {
      pb->speed_i = -1;
      pb->speed_user = TRUE;
      return TRUE;
    }
  char *end = NULL;
  double v = g_ascii_strtod (value, &end);
  if (!*value || *end || !isfinite (v) || v <= 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--speed takes a positive number (trace time per second) or 'max', not '%s'", value);
      return FALSE;
    }
  pb->speed_i = pb->last_finite_i = ladder_nearest (v);
  pb->speed_user = TRUE;
  return TRUE;
}

GOptionGroup *
viper_playback_option_group (ViperPlayback *pb)
{
  static GOptionEntry entries[] = {
    { "speed", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_speed,
      "Replay speed: trace time per second (1-2-5 steps), or max (default: the whole run in about 30 s)", "X" },
    { "checkpoint-every", 0, 0, G_OPTION_ARG_INT64, NULL,
      "Seeking: a model checkpoint every N trams at first (default 4096; the spacing doubles as 64 fill up)", "N" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  entries[1].arg_data = &pb->ckpt_every;
  GOptionGroup *g = g_option_group_new ("playback", "Playback options", "Show playback options", pb, NULL);
  g_option_group_add_entries (g, entries);
  return g;
}

void
viper_playback_install (ViperPlayback *pb, GtkApplication *gapp, GtkWindow *window, const char *debug_dir)
{
  pb->gapp = gapp;
  pb->window = window;
  pb->debug_dir = g_strdup (debug_dir);
  static const GActionEntry actions[] = {
    { "faster", act_faster, NULL, NULL, NULL, { 0 } },
    { "slower", act_slower, NULL, NULL, NULL, { 0 } },
    { "full-speed", act_full_speed, NULL, NULL, NULL, { 0 } },
    { "back", act_back, NULL, NULL, NULL, { 0 } },
    { "goto", act_goto, NULL, NULL, NULL, { 0 } },
    { "seek", act_seek, "d", NULL, NULL, { 0 } },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (gapp), actions, G_N_ELEMENTS (actions), pb);
  const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.faster", { "bracketright", NULL } },
    { "app.slower", { "bracketleft", NULL } },
    { "app.full-speed", { "f", NULL } },
    { "app.back", { "Left", "BackSpace", NULL } },
    { "app.goto", { "<Control>g", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (gapp, accels[i].action, accels[i].accels);
}

static GtkWidget *
small_button (const char *icon, const char *action, const char *tip)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon, GTK_ICON_SIZE_BUTTON);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (b), action);
  gtk_widget_set_tooltip_text (b, tip);
  gtk_widget_set_can_focus (b, FALSE);
  return b;
}

GtkWidget *
viper_playback_speed_widget (ViperPlayback *pb)
{
  if (pb->speed_box)
    return pb->speed_box;
  pb->speed_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (pb->speed_box), "linked");
  gtk_box_pack_start (GTK_BOX (pb->speed_box),
                      small_button ("media-skip-backward-symbolic", "app.back", "Step back one state change (Left)"),
                      FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (pb->speed_box), small_button ("list-remove-symbolic", "app.slower", "Slower ([)"),
                      FALSE, FALSE, 0);
  pb->speed_label = gtk_label_new ("speed -");
  g_signal_connect (pb->speed_label, "destroy", G_CALLBACK (gtk_widget_destroyed), &pb->speed_label);
  g_signal_connect (pb->speed_box, "destroy", G_CALLBACK (gtk_widget_destroyed), &pb->speed_box);
  gtk_label_set_width_chars (GTK_LABEL (pb->speed_label), 13);
  gtk_widget_set_tooltip_text (pb->speed_label,
                               "Replay speed: trace time per second ([ slower, ] faster, F as fast as possible)");
  gtk_box_pack_start (GTK_BOX (pb->speed_box), pb->speed_label, FALSE, FALSE, 4);
  gtk_box_pack_start (GTK_BOX (pb->speed_box), small_button ("list-add-symbolic", "app.faster", "Faster (])"),
                      FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (pb->speed_box),
                      small_button ("media-seek-forward-symbolic", "app.full-speed", "As fast as possible (F)"),
                      FALSE, FALSE, 0);
  apply_speed (pb);
  return pb->speed_box;
}


void
viper_playback_set_session (ViperPlayback *pb, ViperSession *s)
{
  /* Back presses were for the old session */
  if (pb->back_idle)
    g_source_remove (pb->back_idle);
  pb->back_idle = 0;
  pb->back_pending = 0;
  pb->s = s;
  index_start (pb);
  if (!s)
    return;
  if (!pb_is_live (pb) && s->traces && s->traces[0])
    {
      viper_scheduler_enable_trail (s->sched, 0);
      if (pb->ckpt_every > 0)
        viper_trail_set_first_every (viper_scheduler_get_trail (s->sched), (guint64) pb->ckpt_every);
      viper_scheduler_set_stuck_func (s->sched, stuck_at, pb);
    }
  apply_speed (pb);
  if (pb->timeline)
    gtk_widget_queue_draw (pb->timeline);
}

void
viper_playback_tick (ViperPlayback *pb)
{
  if (!pb->timeline || !pb->s)
    return;
  if (pb->index_waits && viper_stdin_complete (NULL))
    index_start (pb);
  if (pb->index && !pb->index_idle && viper_scheduler_state (pb->s->sched) == VIPER_SCHED_IDLE)
    pb->index_idle = g_idle_add_full (G_PRIORITY_LOW, index_idle, pb, NULL);
  /* the clock marker moves: repaint the strip (44 px high, cheap) */
  static double last_clock = NAN;
  static guint64 last_applied = G_MAXUINT64;
  double clock = viper_run_clock (pb->s->run);
  static gint64 last_t;
  gint64 now = g_get_monotonic_time ();
  if ((clock != last_clock || pb->s->model->applied != last_applied || pb->index_idle)
      && (now - last_t >= 100000 || viper_scheduler_state (pb->s->sched) == VIPER_SCHED_IDLE))
    {
      /* ten times a second is enough for a strip this coarse */
      last_t = now;
      last_clock = clock;
      last_applied = pb->s->model->applied;
      gtk_widget_queue_draw (pb->timeline);
      goto_update (pb);
      write_dump (pb);
    }
}
