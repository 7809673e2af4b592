/* test-views-ticks.c - the space-time view's tick labels never overlap nor
 * leave the view, whatever the clock's magnitude (outside trial 3, finding 4).
 *
 * On a trace stamped in Unix seconds the axis read
 * "1795897589.51795897590179589..." as one run of digits, the rightmost
 * label clipped; shifted to epoch milliseconds or microseconds the labels
 * ("1.79589600002e+12") collided.  Now the labels are spaced by their
 * measured width and, when the times are large next to the span, written
 * relative to a base written once ("t0 = 1795897589 s", "+10").
 *
 * For small times, epoch seconds (a 2 ms and a 30 s run), epoch milliseconds
 * and epoch microseconds, at three widths, the view rendered as viper-replay
 * --render renders it:
 *   ink     the row of tick labels, read from the pixels: nothing at the
 *           view's right edge (no label clipped) and the labels apart (a gap
 *           of at least 5 blank columns between two runs of ink);
 *   boxes   the labels the view says it drew (viper_view_spacetime_axis_labels):
 *           inside the view, apart from each other, each over ink and no
 *           ink in the row outside them; the base for large times only, and
 *           each tick's time inside the view's span.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "tests/common/test-pixels.h"
#include "tests/common/test-replay.h"

#define H 420

static gboolean
dark (guint32 c)
{
  return ((c >> 16) & 0xff) < 0xb0 && ((c >> 8) & 0xff) < 0xb0 && (c & 0xff) < 0xb0;
}

static gboolean
column_ink (cairo_surface_t *s, int x, int y0, int y1)
{
  for (int y = y0; y < y1; y++)
    if (dark (test_pixel (s, x, y)))
      return TRUE;
  return FALSE;
}

/* The row of the axis line: dark across the whole plot; -1 when none. */
static int
axis_row (cairo_surface_t *s, double x0, double x1)
{
  for (int y = cairo_image_surface_get_height (s) - 1; y >= 0; y--)
    {
      guint32 a = test_pixel (s, x0 + 3, y), b = test_pixel (s, (x0 + x1) / 2 + 0.5, y), c = test_pixel (s, x1 - 3, y);
      if (dark (a) && a == b && b == c)
        return y;
    }
  return -1;
}

typedef struct {
  const char *name;
  const char *base;         /* added to every time stamp, as text (exact) */
  double mult;              /* the relative times' unit in the trace's */
  double span;              /* the run's length in the relative unit */
  gboolean relative;        /* labels relative to a base are expected */
} Case;

static const Case cases[] = {
  { "small-2ms", "0", 1, 0.002, FALSE },
  { "small-6s", "0", 1, 6, FALSE },
  { "epoch-s-2ms", "1795897589", 1, 0.002, TRUE },
  { "epoch-s-9s", "1795897589", 1, 9, TRUE },     /* viper-lights-sim --samples=30 --interval=300 */
  { "epoch-s-30s", "1795897589", 1, 30, TRUE },
  { "epoch-ms", "1795896000000", 1000, 0.002, TRUE },
  { "epoch-us", "1795897589000000", 1e6, 0.002, TRUE },
};
static const int widths[] = { 1024, 640, 360 };

/* A picl run of two processors over [0, span] (relative time, seconds
 * times mult), each time stamp base + t as text. */
static char *
trace_text (const Case *c)
{
  static const struct { const char *head; double at; const char *tail; } lines[] = {
    { "-3 -901", 0.0, "0 0 0" }, { "-3 -21", 0.25, "0 0 4 2 8 1 1 0" }, { "-4 -21", 0.45, "0 0 0" },
    { "-3 -52", 0.05, "1 0 3 2 1 0 0" }, { "-4 -52", 0.6, "1 0 4 2 8 1 0 0" }, { "-4 -901", 1.0, "0 0 0" },
    { "-3 -901", 0.02, "1 0 0" }, { "-4 -901", 0.98, "1 0 0" },
  };
  GString *g = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      /* base + t written exactly: the base's digits, then t's as a fraction */
      double t = lines[i].at * c->span * c->mult;
      char tb[64];
      g_ascii_formatd (tb, sizeof tb, "%.9f", t);
      if (g_str_equal (c->base, "0"))
        g_string_append_printf (g, "%s %s %s\n", lines[i].head, tb, lines[i].tail);
      else
        {
          /* integer base + t >= 0: add the integer parts as text-free integers */
          char *dot = strchr (tb, '.');
          gint64 ip = g_ascii_strtoll (tb, NULL, 10);
          gint64 base = g_ascii_strtoll (c->base, NULL, 10);
          g_string_append_printf (g, "%s %" G_GINT64_FORMAT "%s %s\n", lines[i].head, base + ip, dot ? dot : "",
                                  lines[i].tail);
        }
    }
  return g_string_free (g, FALSE);
}

typedef struct {
  TestReplay rp;
  char *trace;
} Run;

static void
run_open (Run *r, const Case *c)
{
  GError *error = NULL;
  int fd = g_file_open_tmp ("viper-ticks-XXXXXX.trc", &r->trace, &error);
  g_assert_no_error (error);
  close (fd);
  char *text = trace_text (c);
  g_assert_true (g_file_set_contents (r->trace, text, -1, &error));
  g_free (text);
  test_replay_open (&r->rp, "picl", r->trace, NULL, 0, NULL, NULL);
  viper_scheduler_go (r->rp.sched);
  g_assert_true (viper_scheduler_run (r->rp.sched) == VIPER_STOP_END);
  g_assert_cmpuint (r->rp.model->applied, ==, 8);
}

static void
run_close (Run *r)
{
  test_replay_close (&r->rp);
  g_unlink (r->trace);
  g_free (r->trace);
}

static cairo_surface_t *
render (Run *r, int w, const char *name)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, H);
  cairo_t *cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);   /* as viper_view_render_to_file */
  cairo_paint (cr);
  viper_view_draw (VIPER_VIEW_SPACETIME, cr, r->rp.model, r->rp.run, NULL, NULL, w, H);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  const char *keep = g_getenv ("VIPER_TEST_KEEP");
  if (keep && *keep)
    {
      char *base = g_strdup_printf ("ticks-%s-%d.png", name, w);
      char *path = g_build_filename (keep, base, NULL);
      cairo_surface_write_to_png (s, path);
      g_free (path);
      g_free (base);
    }
  return s;
}

static void
test_ink (gconstpointer data)
{
  const Case *c = data;
  Run r;
  run_open (&r, c);
  for (guint k = 0; k < G_N_ELEMENTS (widths); k++)
    {
      int w = widths[k];
      cairo_surface_t *s = render (&r, w, c->name);
      ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, r.rp.model, r.rp.run, NULL, NULL, w, H);
      double t0, t1, x0, x1;
      g_assert_true (viper_view_geometry_plot (g, &t0, &t1, &x0, &x1));
      viper_view_geometry_free (g);
      int bottom = axis_row (s, x0, x1);
      g_assert_cmpint (bottom, >=, 0);
      /* the labels' row: under the ticks (4 px), above the unit and notes */
      int y0 = bottom + 7, y1 = bottom + 16;
      for (int x = w - 2; x < w; x++)
        if (column_ink (s, x, y0, y1))
          g_error ("%s at %d px: a tick label reaches the view's right edge (column %d): clipped", c->name, w, x);
      /* runs of ink 6 or more blank columns apart: one per label (a label's
       * own spaces are narrower); labels that run together make one run
       * wider than any label (the widest, a base of 16 digits, is 160 px) */
      int runs = 0, start = -1, last = -100, widest = 0;
      for (int x = 0; x <= w; x++)
        {
          if (x < w && !column_ink (s, x, y0, y1))
            continue;
          if (start >= 0 && (x == w || x - last - 1 >= 6))
            {
              widest = MAX (widest, last - start + 1);
              start = -1;
            }
          if (x == w)
            break;
          if (start < 0)
            {
              start = x;
              runs++;
            }
          last = x;
        }
      if (widest > 180)
        g_error ("%s at %d px: tick labels run together (%d px of ink without a gap)", c->name, w, widest);
      if (w >= 640 && runs < 3)
        g_error ("%s at %d px: %d tick labels", c->name, w, runs);
      cairo_surface_destroy (s);
    }
  run_close (&r);
}

#ifndef TICKS_PIXELS_ONLY
static void
test_boxes (gconstpointer data)
{
  const Case *c = data;
  Run r;
  run_open (&r, c);
  for (guint k = 0; k < G_N_ELEMENTS (widths); k++)
    {
      int w = widths[k];
      cairo_surface_t *s = render (&r, w, c->name);
      GArray *labels = viper_view_spacetime_axis_labels (r.rp.model, r.rp.run, NULL, w, H);
      ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, r.rp.model, r.rp.run, NULL, NULL, w, H);
      double t0, t1, x0, x1;
      g_assert_true (viper_view_geometry_plot (g, &t0, &t1, &x0, &x1));
      viper_view_geometry_free (g);
      g_assert_cmpuint (labels->len, >=, 2);
      const ViperAxisLabel *first = &g_array_index (labels, ViperAxisLabel, 0);
      if (c->relative != first->base)
        g_error ("%s at %d px: %s", c->name, w, first->base ? "a base for small times" : "no base for large times");
      if (first->base)
        g_assert_true (g_str_has_prefix (first->text, "t0 = ") && g_str_has_suffix (first->text, " s"));
      double last_right = -G_MAXDOUBLE;
      int ticks = 0;
      for (guint i = 0; i < labels->len; i++)
        {
          const ViperAxisLabel *l = &g_array_index (labels, ViperAxisLabel, i);
          if (l->x < 0 || l->x + l->width > w)
            g_error ("%s at %d px: label \"%s\" [%.1f, %.1f] leaves the view", c->name, w, l->text, l->x,
                     l->x + l->width);
          if (l->x < last_right + 4)
            g_error ("%s at %d px: label \"%s\" at %.1f overlaps the one before (ending at %.1f)", c->name, w,
                     l->text, l->x, last_right);
          last_right = l->x + l->width;
          if (!l->base)
            {
              ticks++;
              /* a tick label stands for a time in the view; relative ones start with + */
              g_assert_true (l->t >= t0 - (t1 - t0) * 1e-9 && l->t <= t1 + (t1 - t0) * 1e-9);
              g_assert_true (!c->relative || l->text[0] == '+');
              g_assert_true (strlen (l->text) <= 8);
            }
          /* drawn where it says: ink inside its box */
          gboolean ink = FALSE;
          for (int x = (int) floor (l->x); x <= (int) ceil (l->x + l->width) && x < w && !ink; x++)
            ink = column_ink (s, MAX (x, 0), (int) ceil (l->y) + 1, (int) floor (l->y + l->height) - 1);
          if (!ink)
            g_error ("%s at %d px: no ink under label \"%s\"", c->name, w, l->text);
        }
      if (w >= 640 && ticks < 3)
        g_error ("%s at %d px: only %d tick labels", c->name, w, ticks);
      /* and no label drawn anywhere else in that row */
      const ViperAxisLabel *any = &g_array_index (labels, ViperAxisLabel, labels->len - 1);
      int y0 = (int) ceil (any->y) + 1, y1 = (int) floor (any->y + any->height) - 1;
      for (int x = 0; x < w; x++)
        {
          if (!column_ink (s, x, y0, y1))
            continue;
          gboolean inside = FALSE;
          for (guint i = 0; i < labels->len && !inside; i++)
            {
              const ViperAxisLabel *l = &g_array_index (labels, ViperAxisLabel, i);
              inside = x >= floor (l->x) - 1 && x <= ceil (l->x + l->width) + 1;
            }
          if (!inside)
            g_error ("%s at %d px: ink at column %d of the labels' row outside every label", c->name, w, x);
        }
      g_array_unref (labels);
      cairo_surface_destroy (s);
    }
  run_close (&r);
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *path = g_strdup_printf ("/views-ticks/ink/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], test_ink);
      g_free (path);
#ifndef TICKS_PIXELS_ONLY
      path = g_strdup_printf ("/views-ticks/boxes/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], test_boxes);
      g_free (path);
#endif
    }
  return g_test_run ();
}
