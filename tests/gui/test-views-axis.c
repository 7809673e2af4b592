/* test-views-axis.c - the space-time view's time axis says its unit, every
 * paradigm alike, in a unit that suits the range shown (a 2 ms picl run in
 * ms, a 1.27 s Mona Lisa run in s); and with no run at all there is no axis,
 * but "no run" in the plot.
 *
 * The label is read from the rendered PNG by its ink: the dark pixels right
 * of the plot under the tick labels must be as wide as "clock (UNIT)" set
 * in the view's font, and a tick label as wide as its time in the axis's
 * unit.  The unit choice itself is checked on the
 * shared routine, and every paradigm's renderer must name its trace unit.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "tests/common/test-pixels.h"
#include "tests/common/test-replay.h"

#define W 1024
#define H 600

static gboolean
dark (guint32 c)
{
  return ((c >> 16) & 0xff) < 0xb0 && ((c >> 8) & 0xff) < 0xb0 && (c & 0xff) < 0xb0;
}

/* Leftmost and rightmost columns with dark ink in [x0, x1) x [y0, y1); FALSE when none. */
static gboolean
ink_span (cairo_surface_t *s, int x0, int x1, int y0, int y1, int *left, int *right)
{
  *left = G_MAXINT, *right = -1;
  for (int y = MAX (y0, 0); y < y1 && y < cairo_image_surface_get_height (s); y++)
    for (int x = MAX (x0, 0); x < x1 && x < cairo_image_surface_get_width (s); x++)
      if (dark (test_pixel (s, x, y)))
        {
          *left = MIN (*left, x);
          *right = MAX (*right, x);
        }
  return *right >= 0;
}

/* The width of the ink of `text` in the views' font (views.c: Sans). */
static int
text_ink_width (const char *text, double size, gboolean bold)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 40);
  cairo_t *cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  cairo_move_to (cr, 20, 28);
  cairo_show_text (cr, text);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  int l, r;
  g_assert_true (ink_span (s, 0, 400, 0, 40, &l, &r));
  cairo_surface_destroy (s);
  return r - l + 1;
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
  const char *paradigm, *trace, *setup;   /* trace: a file under traces/, or inline text */
  const char *label;                      /* the unit label */
  double tick_t;                          /* a tick's time (trace unit), or NAN */
  const char *tick;                       /* its label in the axis's unit */
} Case;

static const char picl_6s[] =
  "-3 -901 0.0 0 0 0\n-3 -901 0.0 1 0 0\n-3 -52 1.0 1 0 3 2 7 0 0\n-3 -21 5.0 0 0 4 2 100 7 1 0\n"
  "-4 -21 5.1 0 0 0\n-4 -52 5.2 1 0 4 2 100 7 0 0\n-4 -901 6.0 0 0 0\n-4 -901 6.0 1 0 0\n";
static const char picl_2ms[] =
  "-3 -901 0.0 0 0 0\n-3 -21 0.0005 0 0 4 2 8 1 1 0\n-4 -21 0.0009 0 0 0\n-3 -52 0.0001 1 0 3 2 1 0 0\n"
  "-4 -52 0.0012 1 0 4 2 8 1 0 0\n-4 -901 0.002 0 0 0\n";

static const Case cases[] = {
  { "picl-6s", "picl", picl_6s, NULL, "clock (s)", 1.0, "1" },
  { "picl-2ms", "picl", picl_2ms, NULL, "clock (ms)", 0.001, "1" },
  { "monalisa-farm", "monalisa", "farm.trc", "farm.setup", "clock (ms)", 100.0, "100" },
  { "monalisa-trackfit", "monalisa", "trackfit.trc", "trackfit.setup", "clock (s)", 1000.0, "1" },
  { "macrame-mesh3x3", "macrame", "mesh3x3.trc", NULL, "clock (s)", 2000.0, "2" },
};

static void
test_label (gconstpointer data)
{
  const Case *c = data;
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  viper_paradigms_register_all ();
  const ViperParadigm *p = viper_paradigm_lookup (c->paradigm);
  if (!p || !p->render)
    {
      g_test_skip ("paradigm or its renderer not built in");
      return;
    }
  char *trace = NULL, *setup = NULL;
  gboolean inline_text = strchr (c->trace, '\n') != NULL;
  GError *error = NULL;
  if (inline_text)
    {
      int fd = g_file_open_tmp ("viper-axis-XXXXXX.trc", &trace, &error);
      g_assert_no_error (error);
      close (fd);
      g_assert_true (g_file_set_contents (trace, c->trace, -1, &error));
    }
  else
    {
      if (!root)
        {
          g_test_skip ("VIPER_SOURCE_ROOT is not set");
          return;
        }
      trace = g_build_filename (root, "traces", c->trace, NULL);
    }
  if (c->setup)
    setup = g_build_filename (root, "setup", c->setup, NULL);

  TestReplay rp;
  test_replay_open (&rp, c->paradigm, trace, setup, 0, NULL, NULL);
  viper_scheduler_go (rp.sched);
  g_assert_true (viper_scheduler_run (rp.sched) == VIPER_STOP_END);
  char *dir = g_dir_make_tmp ("viper-axis-XXXXXX", &error);
  g_assert_no_error (error);
  char *png = g_build_filename (dir, "spacetime.png", NULL);
  g_assert_true (viper_view_render_to_file ("spacetime", rp.model, rp.run, png, W, H, &error));
  g_assert_no_error (error);
  cairo_surface_t *s = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);

  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, rp.model, rp.run, NULL, NULL, W, H);
  double t0, t1, x0, x1;
  g_assert_true (viper_view_geometry_plot (g, &t0, &t1, &x0, &x1));
  int bottom = axis_row (s, x0, x1);
  g_assert_cmpint (bottom, >=, 0);
  /* the unit: right-aligned at the view's right edge, baseline 28 px under the axis */
  int l, r;
  g_assert_true (ink_span (s, (int) x1 - 150, W, bottom + 18, bottom + 33, &l, &r));
  int got = r - l + 1, want = text_ink_width (c->label, 10, TRUE);
  if (abs (got - want) > 1)
    g_error ("%s: the axis's unit label is %d px wide, \"%s\" is %d px (\"clock\" alone: %d px)", c->name, got,
             c->label, want, text_ink_width ("clock", 10, TRUE));
  if (!isnan (c->tick_t))
    {
      /* the tick label there is the time in the axis's unit (1 s: "1", not 1000 or 0.001) */
      double x;
      g_assert_true (viper_view_geometry_time_x (g, c->tick_t, &x));
      g_assert_true (ink_span (s, (int) x - 20, (int) x + 21, bottom + 6, bottom + 17, &l, &r));
      int tick = r - l + 1, want_tick = text_ink_width (c->tick, 10, FALSE);
      if (abs (tick - want_tick) > 1)
        g_error ("%s: the tick label at %g is %d px wide, \"%s\" is %d px", c->name, c->tick_t, tick, c->tick,
                 want_tick);
    }
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  g_unlink (png);
  g_rmdir (dir);
  g_free (png);
  g_free (dir);
  test_replay_close (&rp);
  if (inline_text)
    g_unlink (trace);
  g_free (trace);
  g_free (setup);
}

/* ---- no run ------------------------------------------------------------------

 * Nothing transferred (an empty file, a file of bad lines only): no axis
 * over a made-up 0 - 1 s, and "no run" said in the plot.  The plot's
 * columns are those of a view with a run (ST_LABEL_W .. the state strip). */

typedef struct {
  const char *name;
  const char *paradigm, *text, *setup;
  const char *detail;       /* the line under "no run" */
} NoRun;

static const NoRun no_runs[] = {
  { "picl-empty", "picl", "", NULL, "nothing transferred: no trams read" },
  { "picl-bad-lines", "picl", "garbage line\n-3 x y\n", NULL, "nothing transferred: 2 trams read, all rejected" },
  { "monalisa-empty", "monalisa", "", "farm.setup", "nothing transferred: no trams read" },
};

static void
test_no_run (gconstpointer data)
{
  const NoRun *c = data;
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  char *setup = NULL;
  if (c->setup)
    {
      if (!root)
        {
          g_test_skip ("VIPER_SOURCE_ROOT is not set");
          return;
        }
      setup = g_build_filename (root, "setup", c->setup, NULL);
    }
  GError *error = NULL;
  char *trace = NULL;
  int fd = g_file_open_tmp ("viper-norun-XXXXXX.trc", &trace, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (trace, c->text, -1, &error));
  TestReplay rp;
  test_replay_open (&rp, c->paradigm, trace, setup, 0, NULL, NULL);
  viper_scheduler_go (rp.sched);
  g_assert_true (viper_scheduler_run (rp.sched) == VIPER_STOP_END);
  g_assert_cmpuint (rp.model->applied, ==, 0);

  char *dir = g_dir_make_tmp ("viper-norun-XXXXXX", &error);
  g_assert_no_error (error);
  char *png = g_build_filename (dir, "spacetime.png", NULL);
  g_assert_true (viper_view_render_to_file ("spacetime", rp.model, rp.run, png, W, H, &error));
  g_assert_no_error (error);
  cairo_surface_t *s = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);

  double px0 = 110, px1 = W - 10 - 4 - 6;   /* views-private.h: ST_LABEL_W, ST_STRIP */
  int bottom = axis_row (s, px0, px1);
  if (bottom >= 0)
    g_error ("%s: an axis line at row %d over a run that never happened", c->name, bottom);
  /* no tick labels either: no ink under the plot but the legend's */
  int l, r;
  if (ink_span (s, (int) px0 + 20, W, H - 40, H - 18, &l, &r))
    g_error ("%s: ink at columns %d-%d under the plot (a tick or unit label?)", c->name, l, r);
  /* "no run" and what was read, centred in the plot */
  int want_title = text_ink_width ("no run", 16, TRUE), want_detail = text_ink_width (c->detail, 11, FALSE);
  gboolean title = FALSE, detail = FALSE;
  for (int y = 0; y < H - 60; y++)
    {
      if (!ink_span (s, (int) px0, (int) px1, y, y + 1, &l, &r))
        continue;
      /* the widest ink of a text line: scan its rows together */
      int top = y, b = y;
      while (b + 1 < H - 60 && ink_span (s, (int) px0, (int) px1, b + 1, b + 2, &l, &r))
        b++;
      g_assert_true (ink_span (s, (int) px0, (int) px1, top, b + 1, &l, &r));
      int width = r - l + 1, centre = (l + r) / 2;
      if (abs (centre - (int) ((px0 + px1) / 2)) <= 3)
        {
          title = title || abs (width - want_title) <= 1;
          detail = detail || abs (width - want_detail) <= 1;
        }
      y = b;
    }
  if (!title || !detail)
    g_error ("%s: the plot does not say \"no run\" (%s) and \"%s\" (%s)", c->name, title ? "found" : "missing",
             c->detail, detail ? "found" : "missing");
  /* no time range to report either */
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, rp.model, rp.run, NULL, NULL, W, H);
  double t0, t1, x0, x1, x;
  g_assert_false (viper_view_geometry_plot (g, &t0, &t1, &x0, &x1));
  g_assert_false (viper_view_geometry_time_x (g, 0, &x));
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  g_unlink (png);
  g_rmdir (dir);
  g_free (png);
  g_free (dir);
  test_replay_close (&rp);
  g_unlink (trace);
  g_free (trace);
  g_free (setup);
}

/* The unit an axis is labelled in, by range, from the shared routine. */
static void
test_unit_routine (void)
{
  const struct {
    const char *trace_unit;
    double span;
    const char *unit;
    double scale;
  } cases[] = {
    { "s", 6, "s", 1 },           { "s", 1, "s", 1 },         { "s", 0.002, "ms", 1e3 },
    { "s", 2e-6, "\u00b5s", 1e6 }, { "s", 5e-9, "ns", 1e9 },   { "s", 1e-12, "ns", 1e9 },
    { "s", 3600, "s", 1 },        { "ms", 125.674, "ms", 1 }, { "ms", 1265.6, "s", 1e-3 },
    { "ms", 0.25, "\u00b5s", 1e3 }, { "ms", 0, "ms", 1 },       { "step", 100, "step", 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double scale = -1;
      const char *u = viper_view_axis_unit (cases[i].trace_unit, cases[i].span, &scale);
      if (!g_str_equal (u, cases[i].unit) || fabs (scale / cases[i].scale - 1) > 1e-12)
        g_error ("%g %s: labelled in %s (x%g), expected %s (x%g)", cases[i].span, cases[i].trace_unit, u, scale,
                 cases[i].unit, cases[i].scale);
    }
  double scale = -1;
  g_assert_cmpstr (viper_view_axis_unit (NULL, 1, &scale), ==, "");
  g_assert_cmpfloat (scale, ==, 1);
}

/* Every paradigm that draws the views names the unit of its time stamps. */
static void
test_every_paradigm (void)
{
  viper_paradigms_register_all ();
  guint n = 0;
  const ViperParadigm *const *list = viper_paradigm_list (&n);
  guint checked = 0;
  for (guint i = 0; i < n; i++)
    {
      const ViperRenderer *r = list[i]->render;
      if (!r)
        continue;
      if (!r->time_unit || !*r->time_unit)
        g_error ("paradigm %s: its renderer names no time unit, so its time axis has none", list[i]->name);
      checked++;
    }
  g_assert_cmpuint (checked, >=, 4);
}

/* The clock readouts (animation, program view, status line, subtitle) of a
 * cluster stamped in Unix seconds: six significant digits made 1795549589.0
 * and 1795549590.5 both "1.79555e+09", a clock that never moved.  Every
 * integer digit and three decimals show; small clocks read as before. */
static void
test_clock_readout (void)
{
  char a[64], b[64];
  g_assert_cmpstr (viper_view_format_clock (1795549589.0, 0, a, sizeof a), ==, "1795549589");
  g_assert_cmpstr (viper_view_format_clock (1795549590.5, 0, b, sizeof b), ==, "1795549590.5");
  g_assert_cmpstr (viper_view_format_clock (1795549589.1234, 0, a, sizeof a), ==, "1795549589.123");
  g_assert_cmpstr (viper_view_format_clock (-123456.78912, 0, a, sizeof a), ==, "-123456.789");
  g_assert_cmpstr (viper_view_format_clock (31.508000000000003, 0, a, sizeof a), ==, "31.508");
  g_assert_cmpstr (viper_view_format_clock (0.0999975327, 0, a, sizeof a), ==, "0.0999975");
  g_assert_cmpstr (viper_view_format_clock (99999.5, 0, a, sizeof a), ==, "99999.5");
  g_assert_cmpstr (viper_view_format_clock (NAN, 0, a, sizeof a), ==, "-");
}

/* A clock far from 0 (fuzz-replay: a Mona Lisa tram at TIME 1e16): the
 * default one-second window was [1e16, 1e16 + 1] = [1e16, 1e16], and the
 * space-time view divided by t1 - t0 = 0 and drew its bars at NaN.  Every
 * window has t1 > t0, the plot maps times to finite columns. */
static void
test_far_window (void)
{
  viper_paradigms_register_all ();
  const ViperParadigm *p = viper_paradigm_lookup ("monalisa");
  ViperModel *m = p->model_new (p, NULL);
  ViperTimeWindow w;
  double t0, t1;
  static const double clocks[] = { 1e16, -1e16, 1e299, 3.5 };
  for (guint i = 0; i < G_N_ELEMENTS (clocks); i++)
    for (int follow = 0; follow < 2; follow++)
      for (int k = 0; k < 3; k++)
        {
          viper_time_window_init (&w);
          w.follow = follow;
          w.start = clocks[i];
          w.span = k == 0 ? 0 : k == 1 ? 0.5 : 1e-9;
          m->clock = clocks[i];
          viper_time_window_range (&w, m, &t0, &t1);
          g_assert_true (isfinite (t0) && isfinite (t1));
          g_assert_cmpfloat (t1, >, t0);
          g_assert_true (isfinite ((clocks[i] - t0) / (t1 - t0)));
        }
  viper_model_free (m);
}

/* Zoomed in on a trace stamped in Unix seconds (the GUI lets the window
 * shrink to 1e-12 of the run): a microsecond near 1.8e9 s is 4 ulps, the
 * tick step 1e-7 s less than half a ulp, so the axis's `t += step` never
 * moved and the space-time view hung.  The view is drawn. */
static void
test_zoomed_far (void)
{
  static const char trace[] =
    "-3 -901 1795549589.0 0 0 0\n-3 -901 1795549589.0 1 0 0\n"
    "-3 -21 1795549589.001 0 0 4 2 64 7 1 0\n-4 -21 1795549589.002 0 0 0\n"
    "-3 -52 1795549589.0005 1 0 3 2 7 0 0\n-4 -52 1795549589.003 1 0 4 2 64 7 0 0\n"
    "-4 -901 1795549599.0 0 0 0\n-4 -901 1795549599.0 1 0 0\n";
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("viper-axis-XXXXXX.trc", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, trace, -1, &error));
  TestReplay rp;
  test_replay_open (&rp, "picl", path, NULL, 0, NULL, NULL);
  viper_scheduler_go (rp.sched);
  g_assert_true (viper_scheduler_run (rp.sched) == VIPER_STOP_END);
  ViperTimeWindow w;
  viper_time_window_init (&w);
  w.follow = FALSE;
  w.start = 1795549589.0015;
  w.span = 1e-6;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, W, H);
  cairo_t *cr = cairo_create (s);
  viper_view_draw (VIPER_VIEW_SPACETIME, cr, rp.model, rp.run, NULL, &w, W, H);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  test_replay_close (&rp);
  g_unlink (path);
  g_free (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/views/axis/unit-by-range", test_unit_routine);
  g_test_add_func ("/views/axis/clock-readout", test_clock_readout);
  g_test_add_func ("/views/axis/far-window", test_far_window);
  g_test_add_func ("/views/axis/zoomed-far", test_zoomed_far);
  g_test_add_func ("/views/axis/every-paradigm", test_every_paradigm);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *path = g_strdup_printf ("/views/axis/label/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], test_label);
      g_free (path);
    }
  for (guint i = 0; i < G_N_ELEMENTS (no_runs); i++)
    {
      char *path = g_strdup_printf ("/views/axis/no-run/%s", no_runs[i].name);
      g_test_add_data_func (path, &no_runs[i], test_no_run);
      g_free (path);
    }
  return g_test_run ();
}
