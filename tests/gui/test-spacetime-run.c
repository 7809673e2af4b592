/* test-spacetime-run.c - the space-time view shows the whole run: its axis
 * starts at the run's start (not at the first state change), a processor's
 * row is busy from its first tram on (before its first call, and when it
 * never communicates), and every message is an arrow even when two rows
 * send in the same pixel column.
 *
 * The traces are the new-user trial's reproductions (simple.trc,
 * missing-arrow.trc from a real viper-trace run); pixels are probed in the
 * PNG viper-replay --render writes, with the colours written out here.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "tests/common/test-pixels.h"
#include "tests/common/test-replay.h"

#define W 800
#define H 600
#define BUSY 0x3cb44b
#define IDLE 0xd7263d

/* Tracing on at 0 on P0 and P1; P1 posts a receive at 0.5, P0 sends at 1.0. */
static const char simple_trace[] =
  "-3 -901 0.0 0 0 0\n"
  "-3 -901 0.0 1 0 0\n"
  "-3 -52 0.5 1 0 3 2 7 0 0\n"
  "-3 -21 1.0 0 0 4 2 8 7 1 0\n"
  "-4 -21 1.1 0 0 0\n"
  "-4 -52 1.2 1 0 4 2 8 7 0 0\n"
  "-3 -21 2.0 1 0 4 2 8 7 0 0\n"
  "-4 -21 2.1 1 0 0\n"
  "-3 -52 1.5 0 0 3 2 7 1 0\n"
  "-4 -52 2.2 0 0 4 2 8 7 1 0\n"
  "-4 -901 3.0 0 0 0\n"
  "-4 -901 3.0 1 0 0\n";

/* P2 traces from 0.5 to 2.5 and never communicates; P3's first tram is a
 * clock sample at 0.2, before its tracing starts at 0.4 (the exports start
 * its state at the sample). */
static const char quiet_trace[] =
  "-3 -901 0.0 0 0 0\n"
  "-3 -901 0.0 1 0 0\n"
  "-3 -901 0.5 2 0 0\n"
  "-6 -951 0.2 3 0 4 2 0 200000000 200000000 200000000\n"
  "-3 -901 0.4 3 0 0\n"
  "-4 -901 2.5 3 0 0\n"
  "-3 -21 1.0 0 0 4 2 8 7 1 0\n"
  "-4 -21 1.1 0 0 0\n"
  "-3 -52 1.0 1 0 3 2 7 0 0\n"
  "-4 -52 1.2 1 0 4 2 8 7 0 0\n"
  "-4 -901 3.0 0 0 0\n"
  "-4 -901 3.0 1 0 0\n"
  "-4 -901 2.5 2 0 0\n";

/* Three ranks of a real run; P0 and P2 begin their sends 50 us apart, in
 * one pixel column of the whole run. */
static const char missing_arrow_trace[] =
  "-3 -901 1.4191 0 0 0\n"
  "-3 -57 3.3038 0 0 3 2 9 2 0\n"
  "-4 -57 3.31171 0 0 1 2 1\n"
  "-3 -27 3.40836 0 0 4 2 4 9 1 0\n"
  "-4 -27 3.41867 0 0 1 2 2\n"
  "-3 -61 3.43129 0 0 1 2 1\n"
  "-3 -31 3.43129 0 0 1 2 2\n"
  "-4 -61 3.44842 0 0 4 2 4 9 2 0\n"
  "-4 -31 3.44842 0 0 0\n"
  "-4 -901 6.4671 0 0 0\n"
  "-3 -901 2.46175 1 0 0\n"
  "-3 -57 3.67575 1 0 3 2 9 0 0\n"
  "-4 -57 3.68316 1 0 1 2 1\n"
  "-3 -27 3.7756 1 0 4 2 4 9 2 0\n"
  "-4 -27 3.78461 1 0 1 2 2\n"
  "-3 -61 3.82728 1 0 1 2 1\n"
  "-3 -31 3.82728 1 0 1 2 2\n"
  "-4 -61 3.83369 1 0 4 2 4 9 0 0\n"
  "-4 -31 3.83369 1 0 0\n"
  "-4 -901 4.67003 1 0 0\n"
  "-3 -901 2.95814 2 0 0\n"
  "-3 -57 3.27591 2 0 3 2 9 1 0\n"
  "-4 -57 3.29163 2 0 1 2 1\n"
  "-3 -27 3.40841 2 0 4 2 4 9 0 0\n"
  "-4 -27 3.41892 2 0 1 2 2\n"
  "-3 -61 3.43334 2 0 1 2 1\n"
  "-3 -31 3.43334 2 0 1 2 2\n"
  "-4 -61 3.79007 2 0 4 2 4 9 1 0\n"
  "-4 -31 3.79007 2 0 0\n"
  "-4 -901 6.47315 2 0 0\n";

typedef struct {
  TestReplay rp;
  char *trace, *png;
  cairo_surface_t *s;
  ViperViewGeometry *g;
} Shot;

/* Replays TEXT to its end and renders the space-time view as --render does. */
static void
shot_open (Shot *x, const char *text)
{
  memset (x, 0, sizeof *x);
  GError *error = NULL;
  int fd = g_file_open_tmp ("viper-st-run-XXXXXX.trc", &x->trace, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (x->trace, text, -1, &error));
  fd = g_file_open_tmp ("viper-st-run-XXXXXX.png", &x->png, &error);
  g_assert_no_error (error);
  close (fd);
  test_replay_open (&x->rp, "picl", x->trace, NULL, 0, NULL, NULL);
  viper_scheduler_go (x->rp.sched);
  g_assert_true (viper_scheduler_run (x->rp.sched) == VIPER_STOP_END);
  g_assert_true (viper_view_render_to_file ("spacetime", x->rp.model, x->rp.run, x->png, W, H, &error));
  g_assert_no_error (error);
  x->s = cairo_image_surface_create_from_png (x->png);
  g_assert_cmpint (cairo_surface_status (x->s), ==, CAIRO_STATUS_SUCCESS);
  x->g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, x->rp.model, x->rp.run, NULL, NULL, W, H);
}

static void
shot_close (Shot *x)
{
  viper_view_geometry_free (x->g);
  cairo_surface_destroy (x->s);
  test_replay_close (&x->rp);
  g_unlink (x->trace);
  g_unlink (x->png);
  g_free (x->trace);
  g_free (x->png);
}

/* Where adjusted time t of processor id's row is drawn. */
static void
at (const Shot *x, gint64 id, double t, double *px, double *py)
{
  double sx;
  g_assert_true (viper_view_geometry_module_point (x->g, id, &sx, py));
  g_assert_true (viper_view_geometry_time_x (x->g, t, px));
}

static void
assert_colour (const Shot *x, gint64 id, double t, guint32 want)
{
  double px, py;
  at (x, id, t, &px, &py);
  guint32 got = test_pixel (x->s, px, py);
  if (got != want)
    g_error ("P%" G_GINT64_FORMAT " at %g (%.0f, %.0f) is #%06x, want #%06x", id, t, px, py, got, want);
}

/* The axis spans the run [0, 3]; both rows are busy from 0 to their first
 * call, as the Pajé export says (processor 0 busy 0 - 1, processor 1 busy
 * 0 - 0.5), and the Home extent is the same run. */
static void
test_run_start (void)
{
  Shot x;
  shot_open (&x, simple_trace);
  double t0, t1, x0, x1;
  g_assert_true (viper_view_geometry_plot (x.g, &t0, &t1, &x0, &x1));
  g_assert_cmpfloat (t0, ==, 0.0);
  g_assert_cmpfloat (t1, ==, 3.0);
  g_assert_true (viper_time_window_extent (x.rp.model, &t0, &t1));
  g_assert_cmpfloat (t0, ==, 0.0);
  g_assert_cmpfloat (t1, ==, 3.0);
  assert_colour (&x, 0, 0.05, BUSY);
  assert_colour (&x, 0, 0.5, BUSY);
  assert_colour (&x, 0, 0.95, BUSY);
  assert_colour (&x, 1, 0.05, BUSY);
  assert_colour (&x, 1, 0.45, BUSY);
  assert_colour (&x, 1, 0.75, IDLE);
  assert_colour (&x, 0, 1.75, IDLE);
  shot_close (&x);
}

/* A processor that traces and never communicates is busy all along, from
 * its first tram. */
static void
test_quiet_processor (void)
{
  Shot x;
  shot_open (&x, quiet_trace);
  for (double t = 0.55; t < 3.0; t += 0.25)
    assert_colour (&x, 2, t, BUSY);
  assert_colour (&x, 0, 0.5, BUSY);
  assert_colour (&x, 3, 0.25, BUSY);
  assert_colour (&x, 3, 0.35, BUSY);
  shot_close (&x);
}

static gboolean
dark (guint32 c)
{
  return ((c >> 16) & 0xff) < 0x50 && ((c >> 8) & 0xff) < 0x50 && (c & 0xff) < 0x50;
}

/* An arrow from (a, ta) to (b, tb) crosses the row of `via` (between
 * them): dark ink a few pixels either side of where it does. */
static gboolean
arrow_crosses (const Shot *x, gint64 a, double ta, gint64 b, double tb, gint64 via)
{
  double xa, ya, xb, yb, xv, yv;
  at (x, a, ta, &xa, &ya);
  at (x, b, tb, &xb, &yb);
  at (x, via, ta, &xv, &yv);
  g_assert_cmpfloat (fabs (yb - ya), >, 20);
  double cx = xa + (yv - ya) / (yb - ya) * (xb - xa);
  for (double d = -3; d <= 3; d += 1)
    if (dark (test_pixel (x->s, cx + d, yv)))
      return TRUE;
  return FALSE;
}

/* P0 and P2 send 50 us apart (one pixel column): both are drawn, as are
 * the other messages (P0 -> P1 crosses nothing: checked at its middle). */
static void
test_same_column_arrows (void)
{
  Shot x;
  shot_open (&x, missing_arrow_trace);
  double xa, xb;
  g_assert_true (viper_view_geometry_time_x (x.g, 3.40836, &xa));
  g_assert_true (viper_view_geometry_time_x (x.g, 3.40841, &xb));
  g_assert_cmpfloat (floor (xa), ==, floor (xb));   /* the case: one column */
  if (!arrow_crosses (&x, 2, 3.40841, 0, 3.44842, 1))
    g_error ("no arrow P2 -> P0 (sent 3.40841, received 3.44842)");
  /* P1 -> P2 and P0 -> P1: checked at mid-height between the rows */
  double x1, y1, x2, y2;
  at (&x, 1, 3.7756, &x1, &y1);
  at (&x, 2, 3.79007, &x2, &y2);
  gboolean seen = FALSE;
  for (double d = -3; d <= 3 && !seen; d++)
    seen = dark (test_pixel (x.s, (x1 + x2) / 2 + d, (y1 + y2) / 2));
  g_assert_true (seen);
  at (&x, 0, 3.40836, &x1, &y1);
  at (&x, 1, 3.83369, &x2, &y2);
  seen = FALSE;
  for (double d = -3; d <= 3 && !seen; d++)
    seen = dark (test_pixel (x.s, (x1 + x2) / 2 + d, (y1 + y2) / 2));
  g_assert_true (seen);
  shot_close (&x);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/spacetime-run/start", test_run_start);
  g_test_add_func ("/spacetime-run/quiet-processor", test_quiet_processor);
  g_test_add_func ("/spacetime-run/same-column-arrows", test_same_column_arrows);
  return g_test_run ();
}
