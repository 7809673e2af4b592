/* test-spacetime-dense.c - the space-time view of a real-size run stays
 * readable (outside trial, finding 9).
 *
 * A 16-rank PICL run of 40,000 messages (viper-picl-gen's program), its
 * whole run in a 1024x400 view as `viper-replay --render` draws it: zoomed
 * out, the messages were thousands of opaque arrows with heads and the plot
 * was solid black.  Now most of every state bar must still show its state's
 * colour (darkened where messages cross it, but a colour, not grey ink),
 * the messages must still be seen (ink between the bars), and zoomed in to
 * one message it is an arrow again, with its head.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/picl/picl-gen-lib.h"
#include "tests/common/test-pixels.h"
#include "tests/common/test-replay.h"

#define W 1024
#define H 400

static TestReplay rp;
static char *trace, *dir;

static void
setup_run (void)
{
  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  o.procs = 16;
  o.messages = 40000;
  o.seed = 9;
  GError *error = NULL;
  ViperPiclGenTrace *t = viper_picl_gen (&o, &error);
  g_assert_no_error (error);
  GString *text = g_string_new (NULL);
  viper_picl_gen_write (t, text);
  viper_picl_gen_free (t);
  int fd = g_file_open_tmp ("viper-st-dense-XXXXXX.trf", &trace, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (trace, text->str, (gssize) text->len, &error));
  g_string_free (text, TRUE);
  dir = g_dir_make_tmp ("viper-st-dense-XXXXXX", &error);
  g_assert_no_error (error);
  /* the whole history, as --history=0 keeps it */
  test_replay_open (&rp, "picl", trace, NULL, 0, NULL, NULL);
  viper_scheduler_go (rp.sched);
  g_assert_true (viper_scheduler_run (rp.sched) == VIPER_STOP_END);
}

static cairo_surface_t *
render (const ViperTimeWindow *w)
{
  char *path = g_build_filename (dir, "spacetime.png", NULL);
  GError *error = NULL;
  g_assert_true (viper_view_render_kind_to_file (VIPER_VIEW_SPACETIME, rp.model, rp.run, NULL, w, path, W, H, &error));
  g_assert_no_error (error);
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  g_unlink (path);
  g_free (path);
  return s;
}

/* A state's colour, darkened or not (busy, communicating, idle are
 * saturated; the messages' ink, the background and the bands are grey). */
static gboolean
coloured (guint32 p)
{
  int r = p >> 16 & 0xff, g = p >> 8 & 0xff, b = p & 0xff;
  return MAX (r, MAX (g, b)) - MIN (r, MIN (g, b)) >= 40;
}

static gboolean
dark (guint32 p)
{
  int r = p >> 16 & 0xff, g = p >> 8 & 0xff, b = p & 0xff;
  return r + g + b < 3 * 0x70;
}

/* Zoomed out: the bars show through, and the messages show. */
static void
test_whole_run (void)
{
  ViperTimeWindow w;
  viper_time_window_init (&w);
  cairo_surface_t *s = render (&w);
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, rp.model, rp.run, NULL, &w, W, H);
  double t0, t1, x0, x1, row_h;
  guint n, first, shown;
  g_assert_true (viper_view_geometry_plot (g, &t0, &t1, &x0, &x1));
  g_assert_true (viper_view_geometry_rows (g, &n, &first, &shown, &row_h));
  g_assert_cmpuint (n, ==, 16);
  g_assert_cmpuint (shown, ==, 16);
  guint bar = 0, bar_coloured = 0, gap = 0, gap_ink = 0;
  for (guint i = 0; i < n; i++)
    {
      double sx, y;
      g_assert_true (viper_view_geometry_module_point (g, viper_view_geometry_module (g, i), &sx, &y));
      for (int x = (int) x0 + 2; x < (int) x1 - 2; x++)
        {
          /* the middle of the bar, and the gap below it (no bar: the
           * background or the light band) */
          for (int dy = -1; dy <= 1; dy++)
            {
              bar++;
              bar_coloured += coloured (test_pixel (s, x + 0.5, y + dy));
            }
          if (i + 1 < n)
            {
              gap++;
              gap_ink += dark (test_pixel (s, x + 0.5, y + row_h / 2));
            }
        }
    }
  g_test_message ("bars: %u of %u pixels in a state's colour; gaps: %u of %u dark", bar_coloured, bar, gap_ink, gap);
  if (bar_coloured < bar * 0.85)
    g_error ("the whole run of 40,000 messages: only %u of %u pixels of the state bars show a state's colour "
             "(the messages' ink covers the rest)", bar_coloured, bar);
  /* the messages are there: lines cross the gaps between the bars (faint
   * ones darken the white gap only a little, so count any ink) */
  guint gap_any = 0;
  for (guint i = 0; i + 1 < n; i++)
    {
      double sx, y;
      g_assert_true (viper_view_geometry_module_point (g, viper_view_geometry_module (g, i), &sx, &y));
      for (int x = (int) x0 + 2; x < (int) x1 - 2; x++)
        {
          guint32 p = test_pixel (s, x + 0.5, y + row_h / 2);
          gap_any += p != 0xffffff && p != 0xf5f5f7;
        }
    }
  g_test_message ("gaps: %u of %u pixels crossed by a message", gap_any, gap);
  g_assert_cmpuint (gap_any, >, gap / 10);
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
}

/* Zoomed in to one message between rows far apart: an arrow with its head
 * (the head is wider than the shaft: both sides of the shaft are dark a few
 * pixels before the tip). */
static void
test_zoomed_arrow (void)
{
  const ViperModel *m = rp.model;
  /* a message from P1 to a row at least 4 rows away, in the middle of the run */
  const ViperHistoryEntry *pick = NULL;
  const ViperHistoryModule *h = viper_model_history_module (m, 1);
  g_assert_nonnull (h);
  for (guint k = h->arrows->len / 2; k < h->arrows->len && !pick; k++)
    {
      const ViperHistoryEntry *e = viper_model_history_at (m, g_array_index (h->arrows, ViperHistoryRef, k).pos);
      if (e && isfinite (e->t1) && e->t1 > e->t0 && e->other >= 5)
        pick = e;
    }
  g_assert_nonnull (pick);
  ViperTimeWindow w;
  viper_time_window_init (&w);
  w.follow = FALSE;
  double d = pick->t1 - pick->t0;
  w.start = pick->t0 - d;
  w.span = 3 * d;
  cairo_surface_t *s = render (&w);
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, m, rp.run, NULL, &w, W, H);
  double xa, xb, sx, ya, yb;
  g_assert_true (viper_view_geometry_time_x (g, pick->t0, &xa));
  g_assert_true (viper_view_geometry_time_x (g, pick->t1, &xb));
  g_assert_true (viper_view_geometry_module_point (g, pick->module, &sx, &ya));
  g_assert_true (viper_view_geometry_module_point (g, pick->other, &sx, &yb));
  double len = hypot (xb - xa, yb - ya), ux = (xb - xa) / len, uy = (yb - ya) / len;
  /* 5 pixels back from the tip the head is 4.5 wide: 1.5 either side of the shaft */
  double cx = xb - 5 * ux, cy = yb - 5 * uy;
  guint32 left = test_pixel (s, cx - 1.5 * uy, cy + 1.5 * ux), right = test_pixel (s, cx + 1.5 * uy, cy - 1.5 * ux);
  guint32 mid = test_pixel (s, (xa + xb) / 2, (ya + yb) / 2);
  if (!dark (mid) || !dark (left) || !dark (right))
    g_error ("zoomed in to the message P1 -> P%d (%.0f,%.0f -> %.0f,%.0f): shaft #%06x, either side "
             "of its end #%06x #%06x: want an opaque arrow with its head", (int) pick->other, xa, ya, xb, yb, mid, left,
             right);
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  setup_run ();
  g_test_add_func ("/spacetime-dense/whole-run", test_whole_run);
  g_test_add_func ("/spacetime-dense/zoomed-arrow", test_zoomed_arrow);
  int rc = g_test_run ();
  test_replay_close (&rp);
  g_unlink (trace);
  g_rmdir (dir);
  g_free (trace);
  g_free (dir);
  return rc;
}
