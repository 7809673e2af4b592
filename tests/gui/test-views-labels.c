/* test-views-labels.c - the animation view draws a module's label and
 * activity line only where they fit: never over another module's disc (nor
 * hidden under one), at the GUI's default pane size and others, for 2 to 16
 * modules on the circle and for a grid.  On the circle the texts go outside
 * it, so every label shows up to 16 modules at the default pane (the
 * geometry's text rooms say where; no two of them overlap).
 *
 * Each PICL rank of the trace starts and stops tracing, so its activity line
 * is the long "not tracing, 0 sent, 0 received".  The views are rendered to
 * PNG as viper-replay --render does; inside every disc (its radius read from
 * its own pixels) every pixel must be the disc's state colour: a text drawn
 * over it, or a disc drawn over a text, shows there.  And the text is not
 * simply dropped: at the GUI's default animation pane (830 x 380) with 6
 * ranks every label and every activity line is drawn.  The Farm laid out by
 * its view setup file (circle modules with Mona Lisa's rings) is checked
 * the same way at sizes that crowd it, and no text covers the legend.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/viewsetup.h"
#include "paradigms/viewlayout.h"
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
  gboolean labels;     /* every label must show */
} Case;

/* Text ink in the room of module i's line (0 label, 1 activity line) of g,
 * not counting any disc's outline: 0 when it has no room. */
static guint
room_ink (cairo_surface_t *s, ViperViewGeometry *g, guint i, guint line, const int *radius)
{
  double x, y, w, h;
  if (!viper_view_geometry_module_text_room (g, viper_view_geometry_module (g, i), line, &x, &y, &w, &h))
    return 0;
  guint n = 0;
  for (int py = (int) floor (y); py < (int) ceil (y + h); py++)
    for (int px = (int) floor (x); px < (int) ceil (x + w); px++)
      {
        gboolean on_disc = FALSE;
        for (guint j = 0; j < viper_view_geometry_n_modules (g) && !on_disc; j++)
          {
            double cx, cy;
            g_assert_true (viper_view_geometry_module_point (g, viper_view_geometry_module (g, j), &cx, &cy));
            on_disc = hypot (px + 0.5 - cx, py + 0.5 - cy) <= radius[j] + 3;
          }
        if (!on_disc)
          n += text_ink (s, px, px + 1, py, py + 1);
      }
  return n;
}

/* No two modules' text rooms overlap (a module's own label and activity
 * line share their rows by design). */
static void
check_rooms_apart (ViperViewGeometry *g, const char *what)
{
  guint n = viper_view_geometry_n_modules (g);
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      for (guint k = 0; k < 2; k++)
        for (guint kk = 0; kk < 2; kk++)
          {
            double x0, y0, w0, h0, x1, y1, w1, h1;
            gint64 a = viper_view_geometry_module (g, i), b = viper_view_geometry_module (g, j);
            if (!viper_view_geometry_module_text_room (g, a, k, &x0, &y0, &w0, &h0)
                || !viper_view_geometry_module_text_room (g, b, kk, &x1, &y1, &w1, &h1))
              continue;
            if (x0 < x1 + w1 && x1 < x0 + w0 && y0 < y1 + h1 && y1 < y0 + h0)
              g_error ("%s: module %" G_GINT64_FORMAT "'s %s room (%g,%g %gx%g) overlaps module %" G_GINT64_FORMAT
                       "'s %s room (%g,%g %gx%g)",
                       what, a, k ? "activity" : "label", x0, y0, w0, h0, b, kk ? "activity" : "label", x1, y1, w1,
                       h1);
          }
}

/* Every disc of g in s: its inside all its centre's colour (returns the
 * radius of module i in radius[i]). */
static void
check_discs (cairo_surface_t *s, ViperViewGeometry *g, const char *what, const char *png, int *radius)
{
  for (guint i = 0; i < viper_view_geometry_n_modules (g); i++)
    {
      gint64 id = viper_view_geometry_module (g, i);
      double x, y;
      g_assert_true (viper_view_geometry_module_point (g, id, &x, &y));
      int cx = (int) floor (x), cy = (int) floor (y);
      guint32 colour = test_pixel (s, cx, cy);
      int r = disc_radius (s, cx, cy);
      g_assert_cmpint (r, >=, 3);
      radius[i] = r;
      /* the disc's inside, clear of its antialiased outline */
      double in = r - 1.0;
      for (int py = cy - r; py <= cy + r; py++)
        for (int px = cx - r; px <= cx + r; px++)
          if (hypot (px - cx, py - cy) <= in && test_pixel (s, px, py) != colour)
            g_error ("%s: module %" G_GINT64_FORMAT "'s disc (centre %d,%d radius %d) has #%06x at (%d, %d), "
                     "not its #%06x: a label or activity line drawn over it (%s)",
                     what, id, cx, cy, r, test_pixel (s, px, py), px, py, colour, png);
    }
}

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
  char *what = g_strdup_printf ("%u ranks at %dx%d", c->ranks, c->w, c->h);
  int *radius = g_new0 (int, c->ranks);
  check_discs (s, g, what, png, radius);
  check_rooms_apart (g, what);
  for (guint i = 0; i < c->ranks && (c->all_text || c->labels); i++)
    {
      gint64 id = viper_view_geometry_module (g, i);
      double x, y;
      g_assert_true (viper_view_geometry_module_point (g, id, &x, &y));
      g_assert_cmphex (test_pixel (s, (int) floor (x), (int) floor (y)), ==, 0x3cb44b);   /* busy: tracing stopped */
      /* the label's ink in its room (a bold "P15" is some 60 pixels of it) */
      if (room_ink (s, g, i, 0, radius) < 10)
        g_error ("%s: P%" G_GINT64_FORMAT "'s label is missing (%s)", what, id, png);
      if (c->all_text && room_ink (s, g, i, 1, radius) < 40)
        g_error ("%s: P%" G_GINT64_FORMAT "'s activity line is missing (%s)", what, id, png);
    }
  g_free (radius);
  g_free (what);
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  test_replay_close (&rp);
  if (!g_getenv ("VIPER_TEST_KEEP"))
    g_unlink (png);
  g_free (png);
  g_unlink (trace);
  g_free (trace);
}

/* The legend stays readable: at sizes where the circle's bottom module sits
 * just above it, the legend (the bottom 20 rows, as far right as its ink
 * goes) is exactly that of a view so tall that no text comes near it. */
static void
test_legend (gconstpointer data)
{
  const int *size = data;
  char *trace = write_trace (6);
  TestReplay rp;
  test_replay_open (&rp, "picl", trace, NULL, 0, NULL, NULL);
  viper_scheduler_go (rp.sched);
  g_assert_true (viper_scheduler_run (rp.sched) == VIPER_STOP_END);
  cairo_surface_t *s[2];
  const int h[2] = { size[1], 1000 };
  char *png[2];
  for (int k = 0; k < 2; k++)
    {
      png[k] = g_strdup_printf ("%s/legend-%dx%d.png", dir, size[0], h[k]);
      GError *error = NULL;
      g_assert_true (viper_view_render_to_file ("animation", rp.model, rp.run, png[k], size[0], h[k], &error));
      g_assert_no_error (error);
      s[k] = cairo_image_surface_create_from_png (png[k]);
      g_assert_cmpint (cairo_surface_status (s[k]), ==, CAIRO_STATUS_SUCCESS);
    }
  /* the legend's columns: its ink in the tall view, where it is alone */
  int right = 0;
  for (int y = 0; y < 20; y++)
    for (int x = 0; x < size[0]; x++)
      if (test_pixel (s[1], x, h[1] - 20 + y) != 0xffffff)
        right = MAX (right, x);
  g_assert_cmpint (right, >, 150);   /* busy, communicating, idle */
  for (int y = 0; y < 20; y++)
    for (int x = 0; x <= MIN (right + 2, size[0] - 1); x++)
      if (test_pixel (s[0], x, h[0] - 20 + y) != test_pixel (s[1], x, h[1] - 20 + y))
        g_error ("6 ranks at %dx%d: a text over the legend at (%d, %d) (%s; alone: %s)", size[0], size[1], x,
                 h[0] - 20 + y, png[0], png[1]);
  for (int k = 0; k < 2; k++)
    {
      cairo_surface_destroy (s[k]);
      g_unlink (png[k]);
      g_free (png[k]);
    }
  test_replay_close (&rp);
  g_unlink (trace);
  g_free (trace);
}

/* The Farm laid out by its view setup file (setup/farm.view: the master
 * amid four slaves, discs with Mona Lisa's rings) at sizes that crowd it. */
static void
test_farm_view (gconstpointer data)
{
  const int *size = data;
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  viper_paradigms_register_all ();
  const ViperParadigm *p = viper_paradigm_lookup ("monalisa");
  if (!root || !p || !p->render)
    {
      g_test_skip ("VIPER_SOURCE_ROOT or the monalisa paradigm's renderer is missing");
      return;
    }
  char *trace = g_build_filename (root, "traces", "farm.trc", NULL);
  char *setup = g_build_filename (root, "setup", "farm.setup", NULL);
  char *view = g_build_filename (root, "setup", "farm.view", NULL);
  TestReplay rp;
  test_replay_open (&rp, "monalisa", trace, setup, 0, NULL, NULL);
  viper_scheduler_go (rp.sched);
  viper_scheduler_run (rp.sched);
  GError *error = NULL;
  ViperViewSetup *vs = viper_view_setup_load (view, &error);
  g_assert_no_error (error);
  ViperLayout *layout = viper_layout_new ();
  layout->setup = vs;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, size[0], size[1]);
  cairo_t *cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (VIPER_VIEW_ANIMATION, cr, rp.model, rp.run, layout, NULL, size[0], size[1]);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  char *png = g_strdup_printf ("%s/farm-%dx%d.png", dir, size[0], size[1]);
  cairo_surface_write_to_png (s, png);
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_ANIMATION, rp.model, rp.run, layout, NULL, size[0], size[1]);
  g_assert_cmpuint (viper_view_geometry_n_modules (g), ==, 5);
  char *what = g_strdup_printf ("the Farm's view setup at %dx%d", size[0], size[1]);
  int radius[5];
  check_discs (s, g, what, png, radius);
  g_free (what);
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  if (!g_getenv ("VIPER_TEST_KEEP"))
    g_unlink (png);
  g_free (png);
  viper_layout_free (layout);
  viper_view_setup_free (vs);
  test_replay_close (&rp);
  g_free (trace);
  g_free (setup);
  g_free (view);
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
  /* the GUI's default animation pane first (the trial's six ranks); every
   * label on the circle (up to AN_GRID_FROM modules) at the default panes
   * (830 x 380, and 790 x 340 of the default window) and larger */
  static const Case cases[] = {
    { 6, 830, 380, TRUE, TRUE },    { 6, 700, 400, FALSE, TRUE },   { 6, 1024, 420, FALSE, TRUE },
    { 6, 1024, 500, TRUE, TRUE },   { 2, 830, 380, TRUE, TRUE },    { 4, 830, 380, TRUE, TRUE },
    { 8, 830, 380, FALSE, TRUE },   { 12, 830, 380, FALSE, TRUE },  { 16, 830, 380, FALSE, TRUE },
    { 16, 1600, 1000, FALSE, TRUE }, { 6, 300, 200, FALSE, FALSE }, { 30, 830, 380, FALSE, FALSE },
    { 6, 790, 340, FALSE, TRUE },   { 12, 790, 340, FALSE, TRUE },  { 16, 790, 340, FALSE, TRUE },
    { 16, 1024, 768, FALSE, TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *name = g_strdup_printf ("/views/animation/labels/%u-ranks-%dx%d", cases[i].ranks, cases[i].w, cases[i].h);
      g_test_add_data_func (name, &cases[i], test_case);
      g_free (name);
    }
  static const int legend_sizes[][2] = { { 830, 380 }, { 500, 300 }, { 400, 250 }, { 700, 400 } };
  for (guint i = 0; i < G_N_ELEMENTS (legend_sizes); i++)
    {
      char *name = g_strdup_printf ("/views/animation/labels/legend-%dx%d", legend_sizes[i][0], legend_sizes[i][1]);
      g_test_add_data_func (name, legend_sizes[i], test_legend);
      g_free (name);
    }
  static const int farm_sizes[][2] = { { 830, 380 }, { 400, 300 }, { 300, 220 } };
  for (guint i = 0; i < G_N_ELEMENTS (farm_sizes); i++)
    {
      char *name = g_strdup_printf ("/views/animation/labels/farm-view-%dx%d", farm_sizes[i][0], farm_sizes[i][1]);
      g_test_add_data_func (name, farm_sizes[i], test_farm_view);
      g_free (name);
    }
  int rc = g_test_run ();
  g_rmdir (dir);
  g_free (dir);
  return rc;
}
