/* test-views-labels.c - the animation view draws a module's label and
 * activity line only where they fit: never over another module's disc (nor
 * hidden under one), at the GUI's default pane size and others, for 2 to 16
 * modules on the circle and for a grid.
 *
 * Each PICL rank of the trace starts and stops tracing, so its activity line
 * is the long "not tracing, 0 sent, 0 received".  The views are rendered to
 * PNG as viper-replay --render does; inside every disc (its radius read from
 * its own pixels) every pixel must be the disc's state colour: a text drawn
 * over it, or a disc drawn over a text, shows there.  And the text is not
 * simply dropped: at the GUI's default animation pane (830 x 380) with 6
 * ranks every label and every activity line is drawn.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "tests/common/test-pixels.h"
#include "tests/common/test-replay.h"

static char *dir;

static char *
write_trace (guint ranks)
{
  GString *t = g_string_new (NULL);
  for (guint p = 0; p < ranks; p++)
    g_string_append_printf (t, "-3 -901 0.0 %u 0 0\n", p);
  for (guint p = 0; p < ranks; p++)
    g_string_append_printf (t, "-4 -901 1.0 %u 0 0\n", p);
  char *path = g_strdup_printf ("%s/ranks-%u.trc", dir, ranks);
  GError *error = NULL;
  g_assert_true (g_file_set_contents (path, t->str, -1, &error));
  g_assert_no_error (error);
  g_string_free (t, TRUE);
  return path;
}

/* Pixels of text ink (the labels' 0.1 and the activity lines' 0.3 grey,
 * antialiased) in [x0, x1) x [y0, y1). */
static guint
text_ink (cairo_surface_t *s, int x0, int x1, int y0, int y1)
{
  guint n = 0;
  for (int y = MAX (y0, 0); y < y1 && y < cairo_image_surface_get_height (s); y++)
    for (int x = MAX (x0, 0); x < x1 && x < cairo_image_surface_get_width (s); x++)
      {
        guint32 c = test_pixel (s, x, y);
        int r = (c >> 16) & 0xff, g = (c >> 8) & 0xff, b = c & 0xff;
        if (r < 0x90 && r == g && g == b)
          n++;
      }
  return n;
}

/* The disc's radius in whole pixels: the longest run of its centre's colour
 * from the centre, up, down, left or right (a text over one side cannot
 * shorten all four). */
static int
disc_radius (cairo_surface_t *s, int cx, int cy)
{
  guint32 c = test_pixel (s, cx, cy);
  const int dx[] = { 0, 0, -1, 1 }, dy[] = { -1, 1, 0, 0 };
  int best = 0;
  int w = cairo_image_surface_get_width (s), h = cairo_image_surface_get_height (s);
  for (int d = 0; d < 4; d++)
    {
      int k = 1;
      while (cx + dx[d] * k >= 0 && cx + dx[d] * k < w && cy + dy[d] * k >= 0 && cy + dy[d] * k < h
             && test_pixel (s, cx + dx[d] * k, cy + dy[d] * k) == c)
        k++;
      best = MAX (best, k - 1);
    }
  return best;
}

typedef struct {
  guint ranks;
  int w, h;
  gboolean all_text;   /* every label and activity line must show */
} Case;

static void
check (const Case *c)
{
  char *trace = write_trace (c->ranks);
  TestReplay rp;
  test_replay_open (&rp, "picl", trace, NULL, 0, NULL, NULL);
  viper_scheduler_go (rp.sched);
  g_assert_true (viper_scheduler_run (rp.sched) == VIPER_STOP_END);
  char *png = g_strdup_printf ("%s/anim-%u-%dx%d.png", dir, c->ranks, c->w, c->h);
  GError *error = NULL;
  g_assert_true (viper_view_render_to_file ("animation", rp.model, rp.run, png, c->w, c->h, &error));
  g_assert_no_error (error);
  cairo_surface_t *s = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_ANIMATION, rp.model, rp.run, NULL, NULL, c->w, c->h);
  g_assert_cmpuint (viper_view_geometry_n_modules (g), ==, c->ranks);
  for (guint i = 0; i < c->ranks; i++)
    {
      gint64 id = viper_view_geometry_module (g, i);
      double x, y;
      g_assert_true (viper_view_geometry_module_point (g, id, &x, &y));
      int cx = (int) floor (x), cy = (int) floor (y);
      guint32 colour = test_pixel (s, cx, cy);
      g_assert_cmphex (colour, ==, 0x3cb44b);   /* busy: tracing stopped */
      int r = disc_radius (s, cx, cy);
      g_assert_cmpint (r, >=, 3);
      /* the disc's inside, clear of its antialiased outline */
      double in = r - 1.0;
      for (int py = cy - r; py <= cy + r; py++)
        for (int px = cx - r; px <= cx + r; px++)
          if (hypot (px - cx, py - cy) <= in && test_pixel (s, px, py) != colour)
            g_error ("%u ranks at %dx%d: P%" G_GINT64_FORMAT "'s disc (centre %d,%d radius %d) has #%06x at (%d, %d): "
                     "a label or activity line drawn over it (%s)",
                     c->ranks, c->w, c->h, id, cx, cy, r, test_pixel (s, px, py), px, py, png);
      if (c->all_text)
        {
          /* the label in the 16 rows under the disc and its margin, the
           * activity line in the 14 under those (views-animation.c) */
          int top = cy + r + 9;
          if (text_ink (s, cx - 10, cx + 10, top, top + 15) < 10)
            g_error ("%u ranks at %dx%d: P%" G_GINT64_FORMAT "'s label is missing (%s)", c->ranks, c->w, c->h, id, png);
          if (text_ink (s, cx - 40, cx + 40, top + 16, top + 29) < 40)
            g_error ("%u ranks at %dx%d: P%" G_GINT64_FORMAT "'s activity line is missing (%s)", c->ranks, c->w, c->h,
                     id, png);
        }
    }
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  test_replay_close (&rp);
  g_unlink (png);
  g_free (png);
  g_unlink (trace);
  g_free (trace);
}

static void
test_case (gconstpointer data)
{
  check (data);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  GError *error = NULL;
  dir = g_dir_make_tmp ("viper-labels-XXXXXX", &error);
  g_assert_no_error (error);
  /* the GUI's default animation pane first (the trial's six ranks) */
  static const Case cases[] = {
    { 6, 830, 380, TRUE }, { 6, 700, 400, FALSE },  { 6, 1024, 420, FALSE }, { 6, 1024, 500, TRUE },
    { 2, 830, 380, TRUE }, { 4, 830, 380, TRUE },   { 8, 830, 380, FALSE },  { 12, 830, 380, FALSE },
    { 16, 830, 380, FALSE }, { 16, 1600, 1000, FALSE }, { 6, 300, 200, FALSE }, { 30, 830, 380, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *name = g_strdup_printf ("/views/animation/labels/%u-ranks-%dx%d", cases[i].ranks, cases[i].w, cases[i].h);
      g_test_add_data_func (name, &cases[i], test_case);
      g_free (name);
    }
  int rc = g_test_run ();
  g_rmdir (dir);
  g_free (dir);
  return rc;
}
