/* bench-views - what a frame of each view costs to draw, headless.
 *
 * Replays a trace the way the GUI does (a session with the whole history
 * kept) and, at a few points of the run (a quarter, half, three quarters and
 * the end of its trams), draws each of the four views into a cairo image
 * surface of the GUI's default size for that view, as the GUI's widget
 * would: a full frame (nothing cached: a resize, the first frame), and a
 * frame after one more slice of trams with the widget's frame cache
 * (ViperViewCache) - what the GUI paints at every update while replaying.
 * Times are the thread's CPU time, the best of a few repetitions, in ms.
 *
 * A benchmark: prints figures, asserts nothing.  Usage:
 *   bench-views [--setup=FILE] [--size=VIEW:WxH ...] [--reps=N] [--slice=TRAMS]
 *               PARADIGM TRACE...
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "gui/viper-session.h"
#include "paradigms/views.h"
#include "paradigms/macrame/macrame.h"

/* The layout the GUI draws with: a Macrame trace is shown in its view
 * setup file's boxes (gui/viper-setup-dialog.c), not on the default grid. */
static ViperLayout *layout;

static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct {
  int w, h;
} Size;

/* One full frame: a white background and the view (the widget's draw). */
static double
full_frame (ViperViewKind k, ViperSession *s, const ViperTimeWindow *win, Size sz, int reps)
{
  cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, sz.w, sz.h);
  double best = INFINITY;
  for (int r = 0; r < reps; r++)
    {
      double t0 = cpu_ms ();
      cairo_t *cr = cairo_create (surf);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      viper_view_draw (k, cr, s->model, s->run, layout, win, sz.w, sz.h);
      cairo_destroy (cr);
      cairo_surface_flush (surf);
      best = MIN (best, cpu_ms () - t0);
    }
  cairo_surface_destroy (surf);
  return best;
}

/* Frames as the GUI paints them while replaying: apply `slice` trams, take
 * the damage, paint each view through its cache clipped to the damage. */
static void
replay_frames (ViperSession *s, Size *sizes, const ViperTimeWindow *win, guint slice, int frames, double *ms,
               ViperViewCache **caches)
{
  GArray *areas = g_array_new (FALSE, FALSE, sizeof (ViperArea));
  for (int f = 0; f < frames; f++)
    {
      viper_scheduler_pump (s->sched, slice);
      g_array_set_size (areas, 0);
      viper_damage_take (s->model->damage, areas);
      for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
        {
          double t0 = cpu_ms ();
          cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, sizes[k].w, sizes[k].h);
          cairo_t *cr = cairo_create (surf);
          viper_view_cache_paint (caches[k], cr, k, s->model, s->run, layout, win, sizes[k].w, sizes[k].h, areas);
          cairo_destroy (cr);
          cairo_surface_destroy (surf);
          ms[k] += cpu_ms () - t0;
        }
    }
  g_array_unref (areas);
}

int
main (int argc, char **argv)
{
  char *setup = NULL;
  char **size_opts = NULL;
  int reps = 3, frames = 20;
  int slice = 4000;
  GOptionEntry entries[] = {
    { "setup", 0, 0, G_OPTION_ARG_FILENAME, &setup, "Setup file", "FILE" },
    { "size", 0, 0, G_OPTION_ARG_STRING_ARRAY, &size_opts, "A view's size (default: the GUI's default window)", "VIEW:WxH" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "Repetitions of a full frame (best is kept)", "N" },
    { "frames", 0, 0, G_OPTION_ARG_INT, &frames, "Replay frames measured at each point", "N" },
    { "slice", 0, 0, G_OPTION_ARG_INT, &slice, "Trams applied between replay frames", "N" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionContext *ctx = g_option_context_new ("PARADIGM TRACE... - time each view's frame");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc < 3)
    {
      fprintf (stderr, "bench-views: %s\n", error ? error->message : "usage: bench-views PARADIGM TRACE...");
      return 2;
    }
  g_option_context_free (ctx);
  /* the GUI's default window (1100 wide): animation 740x340, program 300x340,
   * space-time 700x330, variables 330x330 (measured under Xvfb) */
  Size sizes[VIPER_VIEW_N_KINDS] = { { 740, 340 }, { 700, 330 }, { 330, 330 }, { 300, 340 } };
  for (char **o = size_opts; o && *o; o++)
    {
      char view[32];
      int w, h;
      if (sscanf (*o, "%31[a-z-]:%dx%d", view, &w, &h) != 3 || viper_view_kind_from_name (view) < 0 || w < 16 || h < 16)
        {
          fprintf (stderr, "bench-views: --size=%s: expected VIEW:WxH\n", *o);
          return 2;
        }
      sizes[viper_view_kind_from_name (view)] = (Size) { w, h };
    }
  ViperSession *s = viper_session_new (argv[1], setup, (const char *const *) argv + 2, NULL, 0.0, 0.0, NULL, NULL,
                                       &error);
  if (!s)
    {
      fprintf (stderr, "bench-views: %s\n", error->message);
      return 1;
    }
  layout = viper_layout_new ();
  if (g_str_equal (s->paradigm->name, "macrame"))
    layout->setup = macrame_model_view_setup (s->model);
  /* the whole replay once to learn the number of trams */
  viper_scheduler_run (s->sched);
  guint64 total = s->model->applied;
  guint nmod = 0;
  {
    ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, s->model, s->run, NULL, NULL, 100, 100);
    nmod = viper_view_geometry_n_modules (g);
    viper_view_geometry_free (g);
  }
  printf ("%s, %u modules, %" G_GUINT64_FORMAT " trams; sizes", argv[1], nmod, total);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    printf (" %s %dx%d", viper_view_kind_name (k), sizes[k].w, sizes[k].h);
  printf ("\nCPU ms per frame (best of %d full frames; mean of %d replay frames of %d trams each)\n", reps, frames,
          slice);
  printf ("%-8s %-6s %10s %10s %10s %10s %8s\n", "point", "frame", "animation", "spacetime", "variables", "program",
          "total");
  double worst_replay = 0;
  for (int q = 1; q <= 4; q++)
    {
      viper_scheduler_reset (s->sched, NULL);
      guint64 target = total * (guint64) q / 4;
      guint64 before = target > (guint64) slice * (guint64) frames ? target - (guint64) slice * (guint64) frames : 0;
      while (s->model->applied < before)
        if (viper_scheduler_pump (s->sched, (guint) MIN (before - s->model->applied, 65536)) != VIPER_STOP_NONE)
          break;
      ViperTimeWindow win;
      viper_time_window_init (&win);
      double full[VIPER_VIEW_N_KINDS], sum = 0;
      for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
        sum += full[k] = full_frame (k, s, &win, sizes[k], reps);
      char point[16];
      g_snprintf (point, sizeof point, "%d/4", q);
      printf ("%-8s %-6s %10.2f %10.2f %10.2f %10.2f %8.2f\n", point, "full", full[0], full[1], full[2], full[3], sum);
      ViperViewCache *caches[VIPER_VIEW_N_KINDS];
      for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
        caches[k] = viper_view_cache_new ();
      double ms[VIPER_VIEW_N_KINDS] = { 0 };
      /* the first frame fills the caches; not counted */
      replay_frames (s, sizes, &win, 1, 1, ms, caches);
      memset (ms, 0, sizeof ms);
      replay_frames (s, sizes, &win, (guint) slice, frames, ms, caches);
      sum = 0;
      for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
        {
          ms[k] /= frames;
          sum += ms[k];
          viper_view_cache_free (caches[k]);
        }
      worst_replay = MAX (worst_replay, sum);
      printf ("%-8s %-6s %10.2f %10.2f %10.2f %10.2f %8.2f\n", "", "replay", ms[0], ms[1], ms[2], ms[3], sum);
    }
  printf ("worst replay frame, all four views: %.2f ms of CPU (20 frames/s leaves 50 ms for drawing and replaying)\n",
          worst_replay);
  viper_session_free (s);
  g_strfreev (size_opts);
  viper_layout_free (layout);
  g_free (setup);
  return 0;
}
