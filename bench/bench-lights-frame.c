/* bench-lights-frame - headless cost of the cluster lights views, per
 * sample and per frame, through the drawing code the GUI and
 * `viper-replay --render` share (paradigms/views.h).
 *
 * Reads a view setup file and a trace (viper-lights-sim writes both; see
 * bench-lights.py), then replays the trace as the GUI does: trams are
 * applied, and every FRAME_MS of trace time (the GUI's update interval at
 * real-time pace) the damage set is taken, turned into each view's damage
 * rectangles (one rectangle around them when there are more than 16, or
 * more than 256 before their union, as the view widget does) and the four views are redrawn clipped to them on
 * image surfaces of the sizes the GUI's default window gives them.
 * Printed, in CPU time of this process: applying one sample (every node's
 * load and traffic trams), a damage frame per view, and a whole frame
 * (unclipped) per view.
 *
 * A benchmark prints figures; it asserts nothing.  Usage:
 *   bench-lights-frame VIEW TRACE [FRAME_MS] [ANIMATION_WxH]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/run.h"
#include "core/tramparse.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/lights/lights.h"

static double
cpu_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct {
  int w, h;
  double damage_s, full_s;
  guint damage_n, full_n;
  cairo_surface_t *s;
} View;

static View views[VIPER_VIEW_N_KINDS] = {
  /* the GUI's default 1100 x 760 window under Xvfb (bench-lights.py's screenshot) */
  [VIPER_VIEW_ANIMATION] = { 790, 340, 0, 0, 0, 0, NULL },
  [VIPER_VIEW_SPACETIME] = { 720, 250, 0, 0, 0, 0, NULL },
  [VIPER_VIEW_VARIABLES] = { 310, 250, 0, 0, 0, 0, NULL },
  [VIPER_VIEW_PROGRAM] = { 240, 340, 0, 0, 0, 0, NULL },
};

static void
draw_view (ViperViewKind k, const ViperModel *m, const ViperRun *run, const ViperTimeWindow *win,
           const GArray *areas)
{
  View *v = &views[k];
  cairo_t *cr = cairo_create (v->s);
  double t0 = cpu_now ();
  if (areas)
    {
      ViperViewGeometry *g = viper_view_geometry_new (k, m, run, NULL, win, v->w, v->h);
      GArray *rects = g_array_new (FALSE, FALSE, sizeof (cairo_rectangle_int_t));
      viper_view_damage_rects (g, areas, rects);
      viper_view_geometry_free (g);
      if (!rects->len)
        {
          g_array_unref (rects);
          cairo_destroy (cr);
          return;
        }
      cairo_region_t *region = cairo_region_create ();
      if (rects->len > 256)
        {
          /* as the widget does: past a few hundred, the rectangle around them */
          cairo_rectangle_int_t a = g_array_index (rects, cairo_rectangle_int_t, 0);
          for (guint i = 1; i < rects->len; i++)
            {
              cairo_rectangle_int_t r = g_array_index (rects, cairo_rectangle_int_t, i);
              int x1 = MAX (a.x + a.width, r.x + r.width), y1 = MAX (a.y + a.height, r.y + r.height);
              a.x = MIN (a.x, r.x), a.y = MIN (a.y, r.y), a.width = x1 - a.x, a.height = y1 - a.y;
            }
          cairo_region_union_rectangle (region, &a);
        }
      else
        for (guint i = 0; i < rects->len; i++)
          cairo_region_union_rectangle (region, &g_array_index (rects, cairo_rectangle_int_t, i));
      if (cairo_region_num_rectangles (region) > 16)
        {
          cairo_rectangle_int_t ext;
          cairo_region_get_extents (region, &ext);
          cairo_region_destroy (region);
          region = cairo_region_create_rectangle (&ext);
        }
      for (int i = 0; i < cairo_region_num_rectangles (region); i++)
        {
          cairo_rectangle_int_t r;
          cairo_region_get_rectangle (region, i, &r);
          cairo_rectangle (cr, r.x, r.y, r.width, r.height);
        }
      cairo_clip (cr);
      cairo_region_destroy (region);
      g_array_unref (rects);
    }
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (k, cr, m, run, NULL, win, v->w, v->h);
  cairo_destroy (cr);
  cairo_surface_flush (v->s);
  double dt = cpu_now () - t0;
  if (areas)
    v->damage_s += dt, v->damage_n++;
  else
    v->full_s += dt, v->full_n++;
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: bench-lights-frame VIEW TRACE [FRAME_MS] [ANIMATION_WxH]\n");
      return 2;
    }
  double frame = argc > 3 ? g_ascii_strtod (argv[3], NULL) / 1000.0 : 0.05;
  if (argc > 4 && sscanf (argv[4], "%dx%d", &views[0].w, &views[0].h) != 2)
    return 2;
  viper_paradigms_register_all ();
  GError *error = NULL;
  ViperSetup *setup = lights_setup_load (argv[1], &error);
  if (!setup)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  char *text;
  gsize len;
  if (!g_file_get_contents (argv[2], &text, &len, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTramFields *fields = viper_tram_fields_new ();
  ViperChannels *channels = viper_channels_new ();
  guint channel = viper_channels_add (channels, argv[2]);
  ViperDiag diag;
  viper_diag_init (&diag, NULL, NULL);
  ViperModel *m = viper_lights_paradigm.model_new (&viper_lights_paradigm, setup);
  viper_model_set_history (m, 0);
  ViperRun *run = viper_run_new (&viper_lights_paradigm, m, pool, channels, &diag, 0.5);
  ViperTimeWindow win;
  viper_time_window_init (&win);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    views[k].s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, views[k].w, views[k].h);

  GArray *areas = g_array_new (FALSE, FALSE, sizeof (ViperArea));
  double apply_s = 0, next_frame = NAN;
  guint64 trams = 0, load_trams = 0, lineno = 0;
  guint frames = 0;
  char *p = text, *end = text + len;
  while (p < end)
    {
      char *nl = memchr (p, '\n', (gsize) (end - p));
      gsize ll = nl ? (gsize) (nl - p) : (gsize) (end - p);
      lineno++;
      ViperLineKind kind;
      ViperParseError err;
      ViperTram *t = ll ? viper_tram_parse (pool, fields, p, ll, &kind, &err) : NULL;
      p += ll + 1;
      if (!t)
        continue;
      t->line = (guint32) lineno;
      t->channel = channel;
      double tt = t->time;
      if (isnan (next_frame))
        next_frame = tt + frame;
      if (tt >= next_frame)
        {
          /* a frame: the damage so far, every view redrawn where it shows */
          g_array_set_size (areas, 0);
          viper_damage_take (m->damage, areas);
          for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
            draw_view ((ViperViewKind) k, m, run, &win, areas);
          frames++;
          while (next_frame <= tt)
            next_frame += frame;
        }
      double t0 = cpu_now ();
      load_trams += t->ev == LIGHTS_EV_LOAD;
      viper_run_insert (run, t);
      const ViperTram *out;
      while ((out = viper_run_transfer_next (run)))
        {
          viper_model_apply (m, out);
          trams++;
        }
      apply_s += cpu_now () - t0;
    }
  GArray *ids = lights_model_ids (m);
  guint nodes = ids->len;
  g_array_unref (ids);
  double samples = nodes ? (double) load_trams / nodes : 0;
  int reps = g_getenv ("BENCH_LIGHTS_REPS") ? atoi (g_getenv ("BENCH_LIGHTS_REPS")) : 3;
  for (int rep = 0; rep < reps; rep++)
    for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
      draw_view ((ViperViewKind) k, m, run, &win, NULL);
  printf ("headless, %u nodes, %u links, %.0f samples, %" G_GUINT64_FORMAT " trams, a frame every %.0f ms of "
          "trace time:\n", nodes, lights_model_n_links (m), samples, trams, frame * 1000);
  printf ("  apply: %.1f ms CPU per sample (parse excluded)\n", samples > 0 ? apply_s / samples * 1000 : 0.0);
  double frame_s = 0;
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      View *v = &views[k];
      double dmg = v->damage_n ? v->damage_s / frames : 0;
      frame_s += dmg;
      printf ("  %-9s %dx%d: %.2f ms CPU per damage frame (%u of %u frames drew), %.2f ms per whole frame\n",
              viper_view_kind_name ((ViperViewKind) k), v->w, v->h, dmg * 1000, v->damage_n, frames,
              v->full_n ? v->full_s / v->full_n * 1000 : 0.0);
    }
  /* the trace's samples are 500 ms apart: its length in real time */
  double secs = samples * 0.5, share = secs > 0 ? apply_s / secs + frame_s / frame : 0;
  printf ("  all four views: %.2f ms CPU per frame; at real time (2 samples/s) with a damage frame every %.0f ms "
          "(%.0f frames/s) the viewer's applying and drawing need %.0f %% of one core\n", frame_s * 1000,
          frame * 1000, 1 / frame, share * 100);
  if (g_getenv ("BENCH_LIGHTS_PNG"))
    cairo_surface_write_to_png (views[0].s, g_getenv ("BENCH_LIGHTS_PNG"));
  g_array_unref (areas);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    cairo_surface_destroy (views[k].s);
  viper_run_free (run);
  viper_model_free (m);
  lights_setup_free (setup);
  viper_tram_pool_free (pool);
  viper_tram_fields_free (fields);
  viper_channels_free (channels);
  viper_diag_clear (&diag);
  g_free (text);
  return 0;
}
