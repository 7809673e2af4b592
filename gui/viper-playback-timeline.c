/* viper-playback-timeline.c - the timeline under the views: the run's
 * extent, the state changes as ticks, the clock, click and drag to seek. */
#include "viper-playback-priv.h"
#include "core/stdin-keep.h"

/* Where the run begins: from the file's index, or live (no index) from
 * the earliest adjusted time applied so far; NAN while none is known. */
static double
run_start (ViperPlayback *pb)
{
  if (isfinite (pb->run_t0))
    return pb->run_t0;
  if ((pb_is_live (pb) || pb->index_waits) && pb->s->model->applied && isfinite (pb->s->model->start))
    return pb->s->model->start;
  return NAN;
}

void
pb_timeline_range (ViperPlayback *pb, double *t0, double *t1)
{
  double clock = pb->s ? viper_run_clock (pb->s->run) : NAN;
  double start = run_start (pb);
  *t0 = isfinite (start) ? start : 0;
  *t1 = isfinite (pb->run_t1) ? pb->run_t1 : *t0;
  if (isfinite (clock))
    *t1 = MAX (*t1, clock);
  if (!(*t1 > *t0))
    *t1 = *t0 + 1;
}

static double
timeline_x (ViperPlayback *pb, double t, int width)
{
  double t0, t1;
  pb_timeline_range (pb, &t0, &t1);
  return TL_PAD + (t - t0) / (t1 - t0) * (width - 2 * TL_PAD);
}

static double
timeline_t (ViperPlayback *pb, double x, int width)
{
  double t0, t1;
  pb_timeline_range (pb, &t0, &t1);
  return t0 + CLAMP ((x - TL_PAD) / (width - 2 * TL_PAD), 0, 1) * (t1 - t0);
}

/* Without the index (standard input not kept whole, core/stdin-keep.h) the
 * run's trams are known when the replay on screen has reached the end. */
gboolean
pb_total_known (ViperPlayback *pb)
{
  return pb->index_done
         || (pb->s && pb->index_waits && viper_scheduler_last_stop (pb->s->sched) == VIPER_STOP_END);
}

guint64
pb_total_trams (ViperPlayback *pb)
{
  if (pb->index_done)
    return pb->index_trams;
  return pb_total_known (pb) ? pb->s->model->applied : 0;
}

/* The line under the timeline: trams, clock and the run (none before a
 * tram was read: a file with no trams has no run, not the range 0 - 1 the
 * timeline is drawn over). */
void
pb_status_line (ViperPlayback *pb, char *line, gsize len)
{
  char cb[32], ab[32], bb[32], m[48], run[96];
  if (!pb->s)
    {
      line[0] = 0;
      return;
    }
  if (pb_is_live (pb))
    g_strlcpy (m, "live", sizeof m);
  else if (pb_total_known (pb))
    g_snprintf (m, sizeof m, "%" G_GUINT64_FORMAT, pb_total_trams (pb));
  else if (pb->index_waits)
    {
      /* the total of a stream is known at its end */
      const char *why = NULL;
      viper_stdin_complete (&why);
      g_strlcpy (m, why && strstr (why, "not ended") ? "? (standard input still open)" : "? (standard input read once)",
                 sizeof m);
    }
  else
    g_strlcpy (m, "? (reading)", sizeof m);
  if (isfinite (run_start (pb)))
    {
      double t0, t1;
      pb_timeline_range (pb, &t0, &t1);
      g_snprintf (run, sizeof run, "run %s \u2013 %s", viper_view_format_clock (t0, 0, ab, sizeof ab),
                  viper_view_format_clock (t1, 0, bb, sizeof bb));
    }
  else
    g_strlcpy (run, pb_total_known (pb) && !pb_is_live (pb) ? "no run (no trams)" : "run not known yet", sizeof run);
  g_snprintf (line, len, "tram %" G_GUINT64_FORMAT " of %s \u00b7 clock %s \u00b7 %s", pb->s->model->applied, m,
              viper_view_format_clock (viper_run_clock (pb->s->run), 0, cb, sizeof cb), run);
}

static gboolean
timeline_draw (GtkWidget *w, cairo_t *cr, gpointer data)
{
  ViperPlayback *pb = data;
  int width = gtk_widget_get_allocated_width (w), height = gtk_widget_get_allocated_height (w);
  cairo_set_source_rgb (cr, 0.97, 0.97, 0.98);
  cairo_paint (cr);
  double bar_top = 4, bar_h = height - 22;
  /* activity: state changes per 3-pixel bin, scaled to the busiest (square
   * root, so quiet stretches still show) */
  const int bin = 3;
  int cols = MAX ((width - 2 * (int) TL_PAD) / bin, 1);
  guint *hist = g_new0 (guint, cols);
  guint peak = 1;
  for (guint i = 0; i < pb->samples->len; i++)
    {
      int c = (int) floor ((timeline_x (pb, g_array_index (pb->samples, double, i), width) - TL_PAD) / bin);
      if (c >= 0 && c < cols)
        peak = MAX (peak, ++hist[c]);
    }
  cairo_set_source_rgb (cr, 0.55, 0.65, 0.85);
  for (int c = 0; c < cols; c++)
    if (hist[c])
      {
        double h = MAX (bar_h * sqrt ((double) hist[c] / peak), 1.0);
        cairo_rectangle (cr, TL_PAD + c * bin, bar_top + bar_h - h, bin - 1, h);
      }
  cairo_fill (cr);
  g_free (hist);
  cairo_set_source_rgb (cr, 0.6, 0.6, 0.6);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, TL_PAD - 0.5, bar_top - 0.5, width - 2 * TL_PAD + 1, bar_h + 1);
  cairo_stroke (cr);
  if (pb->s)
    {
      /* the breakpoint, the clock (and where a drag would seek) */
      double bp = viper_scheduler_breakpoint (pb->s->sched);
      if (isfinite (bp))
        {
          double x = floor (timeline_x (pb, bp, width)) + 0.5;
          cairo_set_source_rgb (cr, 0.1, 0.3, 0.9);
          double d[] = { 3, 2 };
          cairo_set_dash (cr, d, 2, 0);
          cairo_move_to (cr, x, bar_top);
          cairo_line_to (cr, x, bar_top + bar_h);
          cairo_stroke (cr);
          cairo_set_dash (cr, NULL, 0, 0);
        }
      double clock = viper_run_clock (pb->s->run);
      double pos = isfinite (pb->drag_t) ? pb->drag_t : clock;
      if (isfinite (pos))
        {
          double x = floor (timeline_x (pb, pos, width)) + 0.5;
          cairo_set_source_rgb (cr, 0.85, 0.1, 0.1);
          cairo_set_line_width (cr, 2);
          cairo_move_to (cr, x, bar_top - 2);
          cairo_line_to (cr, x, bar_top + bar_h + 2);
          cairo_stroke (cr);
        }
      char line[256];
      pb_status_line (pb, line, sizeof line);
      cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
      cairo_set_font_size (cr, 11);
      cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
      cairo_move_to (cr, TL_PAD, height - 5);
      cairo_show_text (cr, line);
    }
  return TRUE;
}

static gboolean
timeline_press (GtkWidget *w, GdkEventButton *ev, gpointer data)
{
  ViperPlayback *pb = data;
  if (ev->button != 1 || ev->type != GDK_BUTTON_PRESS || !pb_can_seek (pb))
    return FALSE;
  pb->drag_t = timeline_t (pb, ev->x, gtk_widget_get_allocated_width (w));
  gtk_widget_queue_draw (w);
  return TRUE;
}

static gboolean
timeline_motion (GtkWidget *w, GdkEventMotion *ev, gpointer data)
{
  ViperPlayback *pb = data;
  if (isnan (pb->drag_t))
    return FALSE;
  pb->drag_t = timeline_t (pb, ev->x, gtk_widget_get_allocated_width (w));
  gtk_widget_queue_draw (w);
  return TRUE;
}

static gboolean
timeline_release (GtkWidget *w, GdkEventButton *ev, gpointer data)
{
  ViperPlayback *pb = data;
  if (ev->button != 1 || isnan (pb->drag_t))
    return FALSE;
  double t = timeline_t (pb, ev->x, gtk_widget_get_allocated_width (w));
  pb->drag_t = NAN;
  pb_seek_clock (pb, t);
  gtk_widget_queue_draw (w);
  return TRUE;
}

static gboolean
timeline_tooltip (GtkWidget *w, gint x, gint y, gboolean keyboard, GtkTooltip *tip, gpointer data)
{
  (void) y;
  ViperPlayback *pb = data;
  if (keyboard || !pb->s)
    return FALSE;
  char tb[32], buf[256];
  int n = g_snprintf (buf, sizeof buf, "click or drag to go to clock %s",
                      viper_view_format_clock (timeline_t (pb, x, gtk_widget_get_allocated_width (w)), 0, tb,
                                               sizeof tb));
  /* what seeking holds, against its bound */
  ViperTrail *tr = viper_scheduler_get_trail (pb->s->sched);
  if (tr && n > 0 && (gsize) n < sizeof buf)
    g_snprintf (buf + n, sizeof buf - (gsize) n, "\nseek log: %" G_GUINT64_FORMAT " trams, %.1f of %" G_GSIZE_FORMAT
                " MiB, %u checkpoints %" G_GUINT64_FORMAT " trams apart", viper_trail_length (tr),
                viper_trail_bytes (tr) / 1048576.0, viper_trail_max_bytes (tr) >> 20, viper_trail_n_ckpts (tr),
                viper_trail_every (tr));
  gtk_tooltip_set_text (tip, buf);
  return TRUE;
}

GtkWidget *
viper_playback_timeline (ViperPlayback *pb)
{
  if (pb->timeline)
    return pb->timeline;
  pb->timeline = gtk_drawing_area_new ();
  gtk_widget_set_size_request (pb->timeline, 200, 44);
  gtk_widget_add_events (pb->timeline, GDK_BUTTON_PRESS_MASK | GDK_BUTTON_RELEASE_MASK | GDK_BUTTON1_MOTION_MASK);
  gtk_widget_set_has_tooltip (pb->timeline, TRUE);
  g_signal_connect (pb->timeline, "destroy", G_CALLBACK (gtk_widget_destroyed), &pb->timeline);
  g_signal_connect (pb->timeline, "draw", G_CALLBACK (timeline_draw), pb);
  g_signal_connect (pb->timeline, "button-press-event", G_CALLBACK (timeline_press), pb);
  g_signal_connect (pb->timeline, "motion-notify-event", G_CALLBACK (timeline_motion), pb);
  g_signal_connect (pb->timeline, "button-release-event", G_CALLBACK (timeline_release), pb);
  g_signal_connect (pb->timeline, "query-tooltip", G_CALLBACK (timeline_tooltip), pb);
  return pb->timeline;
}
