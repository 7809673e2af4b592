/* views-axis.c - the time axis under the space-time view (GUI and
 * viper-replay --render alike): tick labels that never overlap nor leave the
 * view, whatever the clock's magnitude.
 *
 * Spacing.  The step is the smallest 1-2-5 step whose labels, set in the
 * view's font and measured, fit between their ticks with a gap: a fixed
 * count of ticks per pixel made "1795897589.5" labels run together into
 * one string of digits.  A label that would stick out of the view is moved
 * in, and dropped if it then meets its neighbour.
 *
 * Magnitude.  When the times are large next to the span shown (Unix time
 * stamps: 1.8e9 s over 30 s, or microseconds since the epoch), an absolute
 * label needs a dozen digits to tell its ticks apart.  Then the ticks are
 * labelled relative to a round base written once at the axis's left, as
 * Vampir and Paraver do: "t0 = 1795897580 s" and "+10", "+20", the unit
 * right of the axis reading "clock (s) after t0".  The base is a multiple of
 * the power of ten below the span, so the offsets keep two or three digits.
 */
#include <math.h>
#include <string.h>
#include "views-private.h"

#define TICK_GAP 12.0         /* pixels between two labels, at least */
#define LABEL_SIZE 10.0
#define RELATIVE_FROM 1e4     /* |time| / step from which labels are relative to a base */
#define EDGE 2.0              /* labels keep this far from the view's edges */
#define MIN_TICK_PX 50.0      /* ticks closer than this read as a ruler, not as times */

static double
nice_at_least (double raw)
{
  double p = pow (10, floor (log10 (raw)));
  double f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* The next 1-2-5 step after `step`. */
static double
nice_next (double step)
{
  double p = pow (10, floor (log10 (step) + 1e-9));
  double f = step / p;
  return (f < 1.5 ? 2 : f < 3.5 ? 5 : 10) * p;
}

double
vv_text_width (cairo_t *cr, const char *s)
{
  cairo_text_extents_t e;
  cairo_text_extents (cr, s, &e);
  return e.x_advance;
}

/* Decimals that show a multiple of `step` exactly (a 1-2-5 step). */
static int
step_decimals (double step)
{
  return (int) MAX (0, -floor (log10 (step) + 1e-9));
}

static void
label_text (const VvAxis *ax, double v, double step, char *buf, gsize len)
{
  if (ax->relative)
    g_snprintf (buf, len, "+%.*f", step_decimals (step), fabs (v) < step * 1e-9 ? 0.0 : v);
  else
    viper_view_format_clock (fabs (v) < step * 1e-9 ? 0 : v, step, buf, len);
}

/* Ticks at multiples of `step` (axis units, relative to ax->base) over the
 * view, with their labels measured; FALSE when too many to be told apart. */
static gboolean
ticks_for (cairo_t *cr, VvAxis *ax, const ViperViewGeometry *g, double step, double span, double from,
           double *widest)
{
  g_array_set_size (ax->ticks, 0);
  *widest = 0;
  double px = step / span * g->plot_w;
  if (px < 8)
    return FALSE;
  double first = ceil (from / step) * step, prev = NAN;
  for (int i = 0; i < 1000; i++)
    {
      double v = first + i * step;     /* axis units after the base */
      double x = g->plot_x + (v - from) / span * g->plot_w;
      if (x > g->plot_x + g->plot_w + 1e-6)
        break;
      if (v == prev)
        continue;    /* far from 0 a step may round away: never loop on it */
      prev = v;
      VvAxisTick t = { .v = v, .x = floor (x) + 0.5 };
      label_text (ax, v, step, t.text, sizeof t.text);
      t.w = vv_text_width (cr, t.text);
      *widest = MAX (*widest, t.w);
      g_array_append_val (ax->ticks, t);
    }
  return TRUE;
}

void
vv_axis_layout (cairo_t *cr, const ViperViewGeometry *g, VvAxis *ax)
{
  memset (ax, 0, sizeof *ax);
  ax->ticks = g_array_new (FALSE, FALSE, sizeof (VvAxisTick));
  ax->unit = viper_view_axis_unit (g->r->time_unit, g->t1 - g->t0, &ax->scale);
  double span = (g->t1 - g->t0) * ax->scale;
  if (!(span > 0) || !isfinite (span) || g->plot_w < 1)
    return;
  cairo_save (cr);
  vv_font (cr, LABEL_SIZE, FALSE);
  /* a first step, as many ticks as 90 pixels each: are the times large next to it? */
  double step = nice_at_least (span / MAX (g->plot_w / 90, 2));
  double big = MAX (fabs (g->t0), fabs (g->t1)) * ax->scale;
  ax->relative = big / step >= RELATIVE_FROM;
  double from = g->t0 * ax->scale;   /* the view's left edge, axis units after the base */
  if (ax->relative)
    {
      /* the base: a multiple of the power of ten below the span, in the
       * trace's unit (exact in decimal), at or before the view's start */
      double p = pow (10, floor (log10 (span))) / ax->scale;
      double base = floor (g->t0 / p) * p;
      if (base > g->t0)
        base -= p;
      ax->base = base;
      from = (g->t0 - base) * ax->scale;
      int dec = (int) MAX (0, -floor (log10 (p) + 1e-9));
      char num[48];
      g_snprintf (num, sizeof num, "%.*f", dec, base);
      if (strchr (num, '.'))
        {
          /* 1795897589, not 1795897589.000 */
          char *end = num + strlen (num);
          while (end[-1] == '0')
            *--end = '\0';
          if (end[-1] == '.')
            end[-1] = '\0';
        }
      const char *tu = g->r->time_unit ? g->r->time_unit : "";
      g_snprintf (ax->base_text, sizeof ax->base_text, "t0 = %s%s%s", num, *tu ? " " : "", tu);
      vv_font (cr, LABEL_SIZE, TRUE);
      ax->base_w = vv_text_width (cr, ax->base_text);
      vv_font (cr, LABEL_SIZE, FALSE);
    }
  /* the smallest step whose widest label fits between two ticks */
  step = nice_at_least (span / MAX (g->plot_w / 8, 1));
  double widest = 0;
  for (int k = 0; k < 60; k++, step = nice_next (step))
    {
      if (!ticks_for (cr, ax, g, step, span, from, &widest))
        continue;
      if (step / span * g->plot_w >= MAX (widest + TICK_GAP, MIN_TICK_PX) || ax->ticks->len <= 1)
        break;
    }
  ax->step = step;
  /* each label's box, centred on its tick: one under the base is left out
   * (its neighbours say where it is), one past the right edge is moved in
   * and left out if it then meets the one before */
  double left = ax->relative ? EDGE + ax->base_w + TICK_GAP : EDGE, right = g->width - EDGE;
  double last_end = left - TICK_GAP;
  for (guint i = 0; i < ax->ticks->len; i++)
    {
      VvAxisTick *t = &g_array_index (ax->ticks, VvAxisTick, i);
      t->lx = t->x - t->w / 2;
      if (t->lx + t->w > right)
        t->lx = right - t->w;
      t->shown = t->lx >= last_end + TICK_GAP - 1e-9;
      if (t->shown)
        last_end = t->lx + t->w;
    }
  cairo_restore (cr);
}

void
vv_axis_clear (VvAxis *ax)
{
  if (ax->ticks)
    g_array_unref (ax->ticks);
  ax->ticks = NULL;
}

void
vv_axis_draw (cairo_t *cr, const ViperViewGeometry *g, const VvAxis *ax)
{
  double bottom = g->bottom;
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, g->plot_x, bottom + 0.5);
  cairo_line_to (cr, g->plot_x + g->plot_w, bottom + 0.5);
  cairo_stroke (cr);
  vv_font (cr, LABEL_SIZE, FALSE);
  for (guint i = 0; i < ax->ticks->len; i++)
    {
      const VvAxisTick *t = &g_array_index (ax->ticks, VvAxisTick, i);
      cairo_move_to (cr, t->x, bottom);
      cairo_line_to (cr, t->x, bottom + 4);
      cairo_stroke (cr);
      if (t->shown)
        vv_text (cr, t->lx, bottom + 15, 0, t->text);
    }
  if (ax->relative)
    {
      vv_font (cr, LABEL_SIZE, TRUE);
      vv_text (cr, EDGE, bottom + 15, 0, ax->base_text);
    }
}

void
vv_axis_unit_text (const VvAxis *ax, char *buf, gsize len)
{
  g_snprintf (buf, len, "clock%s%s%s%s", *ax->unit ? " (" : "", ax->unit, *ax->unit ? ")" : "",
              ax->relative ? " after t0" : "");
}

GArray *
viper_view_spacetime_axis_labels (const ViperModel *m, const ViperRun *run, const ViperTimeWindow *window, int width,
                                  int height)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (ViperAxisLabel));
  if (!m)
    return out;
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, m, run, NULL, window, width, height);
  if (!g->no_run)
    {
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1, 1);
      cairo_t *cr = cairo_create (s);
      VvAxis ax;
      vv_axis_layout (cr, g, &ax);
      cairo_font_extents_t fe;
      vv_font (cr, LABEL_SIZE, TRUE);
      cairo_font_extents (cr, &fe);
      double base_y = g->bottom + 15;
      if (ax.relative)
        {
          ViperAxisLabel l = { EDGE, base_y - fe.ascent, ax.base_w, fe.ascent + fe.descent, NAN, TRUE, "" };
          g_strlcpy (l.text, ax.base_text, sizeof l.text);
          g_array_append_val (out, l);
        }
      for (guint i = 0; i < ax.ticks->len; i++)
        {
          const VvAxisTick *t = &g_array_index (ax.ticks, VvAxisTick, i);
          if (!t->shown)
            continue;
          ViperAxisLabel l = { t->lx, base_y - fe.ascent, t->w, fe.ascent + fe.descent,
                               ax.relative ? ax.base + t->v / ax.scale : t->v / ax.scale, FALSE, "" };
          g_strlcpy (l.text, t->text, sizeof l.text);
          g_array_append_val (out, l);
        }
      vv_axis_clear (&ax);
      cairo_destroy (cr);
      cairo_surface_destroy (s);
    }
  viper_view_geometry_free (g);
  return out;
}
