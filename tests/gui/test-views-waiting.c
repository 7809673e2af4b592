/* test-views-waiting.c - a PICL receive posted long before its message is
 * sent: the space-time view and the exports must show the same state of the
 * receiver at every time (spec section 3: idle while the message it waits
 * for has not been sent, communicating from the send to its arrival).
 *
 * The view used to colour a receive still open at the stop point
 * communicating from its begin as soon as the message was sent, and the
 * exports left that receive out (busy to the end).  The colour probed in
 * the view is compared with the legend's swatch for the state the Pajé
 * export writes at the same time, and that state with the spec's.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/export.h"
#include "tests/common/test-pixels.h"
#include "tests/common/test-replay.h"

#define W 900
#define H 500

/* P1 posts its receive at 1 s; P0 computes until 5 s, sends 5.0-5.1; the
 * message arrives at 5.2. */
static const char trace_text[] =
  "-3 -901 0.0 0 0 0\n"
  "-3 -901 0.0 1 0 0\n"
  "-3 -52 1.0 1 0 3 2 7 0 0\n"
  "-3 -21 5.0 0 0 4 2 100 7 1 0\n"
  "-4 -21 5.1 0 0 0\n"
  "-4 -52 5.2 1 0 4 2 100 7 0 0\n"
  "-4 -901 6.0 0 0 0\n"
  "-4 -901 6.0 1 0 0\n";

/* The legend's swatches, in state order: the first runs of 9 to 11 pixels
 * of one colour that is not a grey, along a row through them. */
static guint
legend_swatches (cairo_surface_t *s, guint32 *out, guint max)
{
  int h = cairo_image_surface_get_height (s), w = cairo_image_surface_get_width (s);
  for (int y = h - 20; y < h; y++)
    {
      guint n = 0;
      for (int x = 0; x < w && n < max;)
        {
          guint32 c = test_pixel (s, x, y);
          int run = 1;
          while (x + run < w && test_pixel (s, x + run, y) == c)
            run++;
          guint r = (c >> 16) & 0xff, g = (c >> 8) & 0xff, b = c & 0xff;
          if (run >= 9 && run <= 11 && !(r == g && g == b))
            out[n++] = c;
          x += run;
        }
      if (n == max)
        return n;
    }
  return 0;
}

/* The state name the Pajé export gives container `alias` at time t. */
static char *
paje_state_at (const char *paje, const char *alias, double t)
{
  char *state = NULL;
  char **lines = g_strsplit (paje, "\n", -1);
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (char **l = lines; *l; l++)
    {
      char **f = g_strsplit (*l, " ", 5);
      guint n = g_strv_length (f);
      if (n >= 5 && g_str_equal (f[0], "4") && g_str_equal (f[2], "SM"))
        {
          /* 4 sK SM "name" "r g b" */
          char *name = g_strdup (f[3]);
          g_strdelimit (name, "\"", ' ');
          g_hash_table_insert (names, g_strdup (f[1]), g_strdup (g_strstrip (name)));
          g_free (name);
        }
      else if (n >= 5 && g_str_equal (f[0], "7") && g_str_equal (f[2], "SM") && g_str_equal (f[3], alias)
               && g_ascii_strtod (f[1], NULL) <= t)
        {
          const char *name = g_hash_table_lookup (names, f[4]);
          g_assert_nonnull (name);
          g_free (state);
          state = g_strdup (name);
        }
      g_strfreev (f);
    }
  g_hash_table_unref (names);
  g_strfreev (lines);
  return state;
}

static void
test_waiting (gconstpointer data)
{
  double until = *(const double *) data;
  GError *error = NULL;
  char *trace = NULL;
  int fd = g_file_open_tmp ("viper-waiting-XXXXXX.trc", &trace, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (trace, trace_text, -1, &error));

  TestReplay rp;
  test_replay_open (&rp, "picl", trace, NULL, 0, NULL, NULL);
  GString *paje = g_string_new (NULL);
  ViperExporter *ex = viper_exporter_open_string (rp.paradigm, rp.model, "paje", paje, &error);
  g_assert_no_error (error);
  viper_scheduler_add_hook (rp.sched, viper_exporter_hook, ex);
  viper_scheduler_set_breakpoint (rp.sched, until);
  viper_scheduler_go (rp.sched);
  ViperStopReason why = viper_scheduler_run (rp.sched);
  g_assert_true (why == (isnan (until) ? VIPER_STOP_END : VIPER_STOP_BREAKPOINT));
  g_assert_true (viper_exporter_close (ex, &error));
  g_assert_no_error (error);
  /* the stop points lie at or after the send: the whole waiting interval is drawn */
  g_assert_cmpfloat (rp.model->clock, >=, 5.0);

  char *dir = g_dir_make_tmp ("viper-waiting-XXXXXX", &error);
  g_assert_no_error (error);
  char *png = g_build_filename (dir, "spacetime.png", NULL);
  g_assert_true (viper_view_render_to_file ("spacetime", rp.model, rp.run, png, W, H, &error));
  g_assert_no_error (error);
  cairo_surface_t *s = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);

  const ViperRenderer *r = viper_view_renderer (rp.model);
  g_assert_cmpuint (r->n_states, ==, 3);
  guint32 swatch[3];
  g_assert_cmpuint (legend_swatches (s, swatch, 3), ==, 3);

  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, rp.model, rp.run, NULL, NULL, W, H);
  double px, py;
  g_assert_true (viper_view_geometry_module_point (g, 1, &px, &py));
  /* P1 waits 1-5 s (idle), then the message travels 5-5.2 s (communicating) */
  const struct {
    double t;
    const char *spec;
  } probes[] = { { 0.5, "busy" }, { 2.0, "idle" }, { 3.0, "idle" }, { 4.8, "idle" }, { 5.05, "communicating" } };
  for (guint i = 0; i < G_N_ELEMENTS (probes) && probes[i].t < rp.model->clock; i++)
    {
      double x;
      g_assert_true (viper_view_geometry_time_x (g, probes[i].t, &x));
      guint32 got = test_pixel (s, x, py);
      char *exported = paje_state_at (paje->str, "m1", probes[i].t);
      if (!exported || !g_str_equal (exported, probes[i].spec))
        g_error ("stop %g: the Paje export says P1 is %s at %g s, the spec %s", until, exported ? exported : "nothing",
                 probes[i].t, probes[i].spec);
      gint k = -1;
      for (guint st = 0; st < r->n_states; st++)
        if (g_str_equal (r->state_name ((gint) st), exported))
          k = (gint) st;
      g_assert_cmpint (k, >=, 0);
      if (got != swatch[k])
        g_error ("stop %g: P1's row at %g s is #%06x, the legend's %s is #%06x", until, probes[i].t, got, exported,
                 swatch[k]);
      g_free (exported);
    }
  /* the tooltip over the waiting interval names the same state and its span */
  double x3;
  g_assert_true (viper_view_geometry_time_x (g, 3.0, &x3));
  char *tip = viper_view_spacetime_describe (rp.model, rp.run, NULL, W, H, x3, py);
  if (!tip || !g_str_equal (tip, "P1: idle from 1 to 5"))
    g_error ("stop %g: the tooltip at 3 s on P1 says \"%s\", not \"P1: idle from 1 to 5\"", until, tip ? tip : "");
  g_free (tip);
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  g_unlink (png);
  g_rmdir (dir);
  g_free (png);
  g_free (dir);
  g_string_free (paje, TRUE);
  test_replay_close (&rp);
  g_unlink (trace);
  g_free (trace);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* inside the send (the receive still open), after the send, at the end */
  static const double inside = 5.05, open = 5.15, end = NAN;
  g_test_add_data_func ("/views/picl/waiting/send-underway", &inside, test_waiting);
  g_test_add_data_func ("/views/picl/waiting/receive-open", &open, test_waiting);
  g_test_add_data_func ("/views/picl/waiting/end", &end, test_waiting);
  return g_test_run ();
}
