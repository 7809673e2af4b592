/* test-views.c - the views without a display: every view of every paradigm
 * rendered to PNG at a stop point, pixels probed against the state the model
 * reports, and the damage coalescing the redraw timer relies on.
 *
 * The expected colours are written out here (the spec's traffic lights,
 * ParaGraph's utilisation colours) rather than read from the renderers, so a
 * renderer that paints the wrong colour for a state fails.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/picl/picl.h"
#include "paradigms/monalisa/monalisa.h"
#include "tests/common/test-pixels.h"
#include "tests/common/test-replay.h"

#define W 800
#define H 600

typedef struct {
  TestReplay rp;
  char *dir;
} Replay;

static void
replay_open (Replay *r, const char *paradigm, const char *trace, const char *setup, double until)
{
  memset (r, 0, sizeof *r);
  test_replay_open (&r->rp, paradigm, trace, setup, 0, NULL, NULL);
  viper_scheduler_set_breakpoint (r->rp.sched, until);
  viper_scheduler_go (r->rp.sched);
  ViperStopReason why = viper_scheduler_run (r->rp.sched);
  g_assert_true (why == (isnan (until) ? VIPER_STOP_END : VIPER_STOP_BREAKPOINT));
  GError *error = NULL;
  r->dir = g_dir_make_tmp ("viper-views-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
replay_close (Replay *r)
{
  test_replay_close (&r->rp);
  GDir *d = g_dir_open (r->dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    {
      char *p = g_build_filename (r->dir, name, NULL);
      g_unlink (p);
      g_free (p);
    }
  if (d)
    g_dir_close (d);
  g_rmdir (r->dir);
  g_free (r->dir);
}

/* Pixels that are not the white background. */
static guint
ink (cairo_surface_t *s)
{
  guint n = 0;
  for (int y = 0; y < cairo_image_surface_get_height (s); y++)
    for (int x = 0; x < cairo_image_surface_get_width (s); x++)
      if (test_pixel (s, x, y) != 0xffffff)
        n++;
  return n;
}

static cairo_surface_t *
render (Replay *r, ViperViewKind kind, const char *ext)
{
  char *name = g_strdup_printf ("%s.%s", viper_view_kind_name (kind), ext);
  char *path = g_build_filename (r->dir, name, NULL);
  GError *error = NULL;
  g_assert_true (viper_view_render_to_file (viper_view_kind_name (kind), r->rp.model, r->rp.run, path, W, H, &error));
  g_assert_no_error (error);
  cairo_surface_t *s = NULL;
  if (g_str_equal (ext, "png"))
    {
      s = cairo_image_surface_create_from_png (path);
      g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
      g_assert_cmpint (cairo_image_surface_get_width (s), ==, W);
      /* non-blank: a view draws much more than a few stray pixels */
      g_assert_cmpuint (ink (s), >, 2000);
    }
  else
    {
      GStatBuf st;
      g_assert_cmpint (g_stat (path, &st), ==, 0);
      g_assert_cmpint (st.st_size, >, 500);
    }
  g_free (path);
  g_free (name);
  return s;
}

/* Check the colour at each module's point in every module view. */
static void
probe_modules (Replay *r, guint32 (*expected) (const ViperModel *m, gint64 id), guint n_expected)
{
  const ViperViewKind kinds[] = { VIPER_VIEW_ANIMATION, VIPER_VIEW_SPACETIME, VIPER_VIEW_VARIABLES };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      cairo_surface_t *s = render (r, kinds[k], "png");
      ViperViewGeometry *g = viper_view_geometry_new (kinds[k], r->rp.model, r->rp.run, NULL, NULL, W, H);
      g_assert_cmpuint (viper_view_geometry_n_modules (g), ==, n_expected);
      for (guint i = 0; i < viper_view_geometry_n_modules (g); i++)
        {
          gint64 id = viper_view_geometry_module (g, i);
          double x, y;
          g_assert_true (viper_view_geometry_module_point (g, id, &x, &y));
          guint32 want = expected (r->rp.model, id), got = test_pixel (s, x, y);
          if (want != got)
            g_error ("%s view: module %" G_GINT64_FORMAT " at (%.0f, %.0f) is #%06x, its state's colour is #%06x",
                     viper_view_kind_name (kinds[k]), id, x, y, got, want);
        }
      viper_view_geometry_free (g);
      cairo_surface_destroy (s);
    }
}

static guint32
program_colour (const char *word)
{
  if (g_str_equal (word, "running")) return 0x3cb44b;
  if (g_str_equal (word, "deadlock")) return 0xf5c800;
  if (g_str_equal (word, "abnormal")) return 0xd7263d;
  if (g_str_equal (word, "terminated")) return 0x2864dc;
  return 0xa0a0a0;
}

static void
probe_program (Replay *r, const char *want_word)
{
  g_assert_cmpstr (viper_model_program_state (r->rp.model), ==, want_word);
  cairo_surface_t *s = render (r, VIPER_VIEW_PROGRAM, "png");
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_PROGRAM, r->rp.model, r->rp.run, NULL, NULL, W, H);
  double x, y;
  g_assert_true (viper_view_geometry_module_point (g, -1, &x, &y));
  g_assert_cmphex (test_pixel (s, x, y), ==, program_colour (want_word));
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  cairo_surface_destroy (render (r, VIPER_VIEW_ANIMATION, "svg"));
  cairo_surface_destroy (render (r, VIPER_VIEW_SPACETIME, "pdf"));
}

/* ---- picl ----------------------------------------------------------------------- */

/* P1 waits for P0's message (idle), gets it; P2 waits for a message P1 never
 * sends (idle to the end); P0 sends a second message nobody receives. */
static const char picl_trace[] =
  "-3 -901 0.0 0 0 0\n"
  "-3 -901 0.0 1 0 0\n"
  "-3 -901 0.0 2 0 0\n"
  "-3 -52 1.0 1 0 3 2 7 0 0\n"
  "-3 -21 2.0 0 0 4 2 8 7 1 0\n"
  "-4 -21 2.5 0 0 0\n"
  "-4 -52 3.0 1 0 4 2 8 7 0 0\n"
  "-3 -52 4.0 2 0 3 2 9 1 0\n"
  "-3 -21 5.0 0 0 4 2 8 7 1 0\n";

static char *
write_temp (const char *text)
{
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("viper-views-XXXXXX.trc", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  return path;
}

static guint32
picl_colour (const ViperModel *m, gint64 id)
{
  switch (viper_picl_model_state (m, id))
    {
    case VIPER_PICL_BUSY: return 0x3cb44b;
    case VIPER_PICL_COMMUNICATING: return 0xf5c800;
    case VIPER_PICL_IDLE: return 0xd7263d;
    default: return 0;
    }
}

static void
test_picl_end (void)
{
  char *trace = write_temp (picl_trace);
  Replay r;
  replay_open (&r, "picl", trace, NULL, NAN);
  /* what the trace says, independently of the colours */
  g_assert_cmpint (viper_picl_model_state (r.rp.model, 0), ==, VIPER_PICL_COMMUNICATING);
  g_assert_cmpint (viper_picl_model_state (r.rp.model, 1), ==, VIPER_PICL_BUSY);
  g_assert_cmpint (viper_picl_model_state (r.rp.model, 2), ==, VIPER_PICL_IDLE);
  probe_modules (&r, picl_colour, 3);
  probe_program (&r, "running");
  replay_close (&r);
  g_unlink (trace);
  g_free (trace);
}

static void
test_picl_breakpoint (void)
{
  char *trace = write_temp (picl_trace);
  Replay r;
  replay_open (&r, "picl", trace, NULL, 2.2);
  /* inside the first send: both ends communicate */
  g_assert_cmpint (viper_picl_model_state (r.rp.model, 0), ==, VIPER_PICL_COMMUNICATING);
  g_assert_cmpint (viper_picl_model_state (r.rp.model, 1), ==, VIPER_PICL_COMMUNICATING);
  g_assert_cmpint (viper_picl_model_state (r.rp.model, 2), ==, VIPER_PICL_BUSY);
  probe_modules (&r, picl_colour, 3);
  probe_program (&r, "running");
  replay_close (&r);
  g_unlink (trace);
  g_free (trace);
}

/* Ink dark enough to be an arrow across the line between two modules'
 * discs, at its middle: searched a few pixels to either side, because the
 * renderer offsets an arrow from the centre line (so opposite arrows lie
 * side by side) and the probe should not depend on by how much. */
static gboolean
dark_across_midpoint (cairo_surface_t *s, const ViperViewGeometry *g, gint64 a, gint64 b)
{
  double xa, ya, xb, yb;
  g_assert_true (viper_view_geometry_module_point (g, a, &xa, &ya));
  g_assert_true (viper_view_geometry_module_point (g, b, &xb, &yb));
  double len = hypot (xb - xa, yb - ya);
  g_assert_cmpfloat (len, >, 20);
  double px = -(yb - ya) / len, py = (xb - xa) / len;
  for (double d = -7; d <= 7; d += 0.5)
    {
      guint32 c = test_pixel (s, (xa + xb) / 2 + px * d, (ya + yb) / 2 + py * d);
      if (((c >> 16) & 0xff) < 0x50 && ((c >> 8) & 0xff) < 0x50 && (c & 0xff) < 0x50)
        return TRUE;
    }
  return FALSE;
}

/* picl's animation view draws each message underway (sent, receive end not
 * applied) as an arrow from sender to receiver, and nothing once it has been
 * received: stops inside the first message, between the two, and at the
 * end with the second one never received. */
static void
test_picl_arrows (void)
{
  const struct {
    double until;
    guint n;
    double sent;
  } stops[] = { { 2.2, 1, 2.0 }, { 4.5, 0, 0 }, { NAN, 1, 5.0 } };
  char *trace = write_temp (picl_trace);
  for (guint k = 0; k < G_N_ELEMENTS (stops); k++)
    {
      Replay r;
      replay_open (&r, "picl", trace, NULL, stops[k].until);
      GArray *msgs = g_array_new (FALSE, FALSE, sizeof (ViperPiclMessage));
      g_assert_cmpuint (viper_picl_model_underway (r.rp.model, msgs), ==, stops[k].n);
      g_assert_cmpuint (msgs->len, ==, viper_picl_model_unreceived (r.rp.model));
      if (stops[k].n)
        {
          const ViperPiclMessage *x = &g_array_index (msgs, ViperPiclMessage, 0);
          g_assert_cmpint (x->src, ==, 0);
          g_assert_cmpint (x->dest, ==, 1);
          g_assert_cmpint (x->tag, ==, 7);
          g_assert_cmpfloat (x->sent, ==, stops[k].sent);
        }
      cairo_surface_t *s = render (&r, VIPER_VIEW_ANIMATION, "png");
      ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_ANIMATION, r.rp.model, r.rp.run, NULL, NULL, W, H);
      g_assert_cmpuint (viper_view_geometry_n_modules (g), ==, 3);
      if (dark_across_midpoint (s, g, 0, 1) != (stops[k].n > 0))
        g_error ("stop %u: P0 -> P1 with %u message(s) underway, but an arrow is %s", k, stops[k].n,
                 stops[k].n ? "missing" : "drawn");
      /* no message ever travels between P2 and the others */
      g_assert_false (dark_across_midpoint (s, g, 0, 2));
      g_assert_false (dark_across_midpoint (s, g, 1, 2));
      viper_view_geometry_free (g);
      cairo_surface_destroy (s);
      g_array_unref (msgs);
      replay_close (&r);
    }
  g_unlink (trace);
  g_free (trace);
}

/* ---- Mona Lisa: the bundled Farm ---------------------------------------------------- */

static guint32
monalisa_colour (const ViperModel *m, gint64 id)
{
  const char *s = viper_monalisa_module_state_name (viper_monalisa_module_state (m, id));
  if (g_str_equal (s, "executing")) return 0x3cb44b;
  if (g_str_equal (s, "interacting")) return 0xf5c800;
  if (g_str_equal (s, "blocked")) return 0xd7263d;
  return 0xa0a0a0;
}

static gboolean
farm_ready (char **trace, char **setup)
{
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  viper_paradigms_register_all ();
  const ViperParadigm *p = viper_paradigm_lookup ("monalisa");
  if (!root || !p || !p->render)
    {
      g_test_skip ("the monalisa paradigm or its renderer is not built in");
      return FALSE;
    }
  *trace = g_build_filename (root, "traces", "farm.trc", NULL);
  *setup = g_build_filename (root, "setup", "farm.setup", NULL);
  if (!g_file_test (*trace, G_FILE_TEST_EXISTS) || !g_file_test (*setup, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("traces/farm.trc or setup/farm.setup is missing");
      g_free (*trace);
      g_free (*setup);
      return FALSE;
    }
  return TRUE;
}

static void
test_farm (gconstpointer data)
{
  double until = *(const double *) data;
  char *trace, *setup;
  if (!farm_ready (&trace, &setup))
    return;
  Replay r;
  replay_open (&r, "monalisa", trace, setup, until);
  g_assert_cmpuint (viper_monalisa_model_n_modules (r.rp.model), ==, 5);
  probe_modules (&r, monalisa_colour, 5);
  probe_program (&r, viper_model_program_state (r.rp.model));
  replay_close (&r);
  g_free (trace);
  g_free (setup);
}

/* ---- space-time over a long history ------------------------------------------------- */

static const guint32 ml_state_rgb[] = { 0xa0a0a0, 0x3cb44b, 0xf5c800, 0xd7263d };  /* inactive .. blocked */

typedef struct {
  double from, to;
  gint state;
} Segment;

static int
cmp_entry_t0 (gconstpointer a, gconstpointer b)
{
  const ViperHistoryEntry *x = a, *y = b;
  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static cairo_surface_t *
render_window (const ViperModel *m, const ViperTimeWindow *w, const char *dir)
{
  char *path = g_build_filename (dir, "spacetime.png", NULL);
  GError *error = NULL;
  g_assert_true (viper_view_render_kind_to_file (VIPER_VIEW_SPACETIME, m, NULL, NULL, w, path, W, H, &error));
  g_assert_no_error (error);
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  g_unlink (path);
  g_free (path);
  return s;
}

/* Whether the tooltip finds `what` anywhere on the horizontal line y. */
static gboolean
describe_finds (const ViperModel *m, const ViperTimeWindow *w, double y, const char *what)
{
  for (int x = 0; x < W; x++)
    {
      char *d = viper_view_spacetime_describe (m, NULL, w, W, H, x, y);
      gboolean hit = d && strstr (d, what);
      g_free (d);
      if (hit)
        return TRUE;
    }
  return FALSE;
}

/* The space-time view draws from the model's per-module index and jumps over
 * changes that share a pixel column.  Over 25,000 changes per module -
 * stretches of one state between bursts of many changes per pixel - every
 * probe in the middle of a stretch must still show the stretch's state, in
 * the view that follows the clock and in a zoomed window.  Then messages: one
 * underway since the start (it lives in the index's open list) and one that
 * arrived but crosses a zoomed window from long before it (found through
 * arrow_span) must both be found under the pointer among thousands of short
 * ones. */
static void
test_spacetime_dense (void)
{
  char *trace, *setup_path;
  if (!farm_ready (&trace, &setup_path))
    return;
  const ViperParadigm *p = viper_paradigm_lookup ("monalisa");
  GError *error = NULL;
  ViperSetup *setup = p->setup_load (setup_path, &error);
  g_assert_no_error (error);
  ViperModel *m = p->model_new (p, setup);
  viper_model_set_history (m, 0);
  GRand *rand = g_rand_new_with_seed (11);
  const double end = 10000;
  const guint n_mods = 5;
  GArray *entries = g_array_new (FALSE, FALSE, sizeof (ViperHistoryEntry));
  GArray *segs[5];
  for (guint mod = 0; mod < n_mods; mod++)
    {
      segs[mod] = g_array_new (FALSE, FALSE, sizeof (Segment));
      double t = g_rand_double_range (rand, 0, 2);
      while (t < end)
        {
          /* a stretch of one state, 80 to 400 time units (5 to 30 pixels at full width) */
          Segment sg = { t, MIN (t + g_rand_double_range (rand, 80, 400), end), g_rand_int_range (rand, 0, 4) };
          g_array_append_val (segs[mod], sg);
          ViperHistoryEntry e = { sg.from, sg.from, (gint32) mod, -1, sg.state, 0 };
          g_array_append_val (entries, e);
          /* then a burst: many changes in a few pixels */
          t = sg.to;
          double burst_end = MIN (t + g_rand_double_range (rand, 5, 40), end);
          while (t < burst_end)
            {
              ViperHistoryEntry b = { t, t, (gint32) mod, -1, g_rand_int_range (rand, 0, 4), 0 };
              g_array_append_val (entries, b);
              t += g_rand_double_range (rand, 0.001, 0.05);
            }
        }
    }
  g_array_sort (entries, cmp_entry_t0);
  for (guint i = 0; i < entries->len; i++)
    viper_model_history_add (m, &g_array_index (entries, ViperHistoryEntry, i));
  g_assert_cmpuint (m->history->len, >, 25000 * n_mods);
  m->clock = end;

  char *dir = g_dir_make_tmp ("viper-views-XXXXXX", &error);
  g_assert_no_error (error);
  ViperTimeWindow follow, zoom;
  viper_time_window_init (&follow);
  viper_time_window_init (&zoom);
  zoom.follow = FALSE;
  zoom.start = 4000;
  zoom.span = 900;
  const ViperTimeWindow *windows[] = { &follow, &zoom };
  for (guint k = 0; k < G_N_ELEMENTS (windows); k++)
    {
      cairo_surface_t *s = render_window (m, windows[k], dir);
      ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, m, NULL, NULL, windows[k], W, H);
      g_assert_cmpuint (viper_view_geometry_n_modules (g), ==, n_mods);
      double t0, t1;
      viper_time_window_range (windows[k], m, &t0, &t1);
      guint probes = 0;
      for (guint mod = 0; mod < n_mods; mod++)
        {
          double sx, y;
          g_assert_true (viper_view_geometry_module_point (g, mod, &sx, &y));
          for (guint i = 0; i < segs[mod]->len; i++)
            {
              const Segment *sg = &g_array_index (segs[mod], Segment, i);
              double xa, xb;
              g_assert_true (viper_view_geometry_time_x (g, sg->from, &xa));
              g_assert_true (viper_view_geometry_time_x (g, sg->to, &xb));
              /* two clear pixels either side of the probe, inside the window */
              if (xb - xa < 6 || sg->from < t0 || sg->to > t1)
                continue;
              double x = floor ((xa + xb) / 2) + 0.5;
              guint32 got = test_pixel (s, x, y);
              if (got != ml_state_rgb[sg->state])
                g_error ("window %u, module %u: at %.0f (t = %.1f .. %.1f, state %d) #%06x, want #%06x", k, mod, x,
                         sg->from, sg->to, sg->state, got, ml_state_rgb[sg->state]);
              probes++;
            }
        }
      g_assert_cmpuint (probes, >=, k == 0 ? 100 : 10);
      viper_view_geometry_free (g);
      cairo_surface_destroy (s);
    }

  /* messages: SLAVE[2] -> SLAVE[3] thousands of short ones; MASTER -> SLAVE[1]
   * sent at 100 and underway; SLAVE[4] -> SLAVE[3] from 50 to 9500 */
  ViperHistoryEntry under = { 100, NAN, 0, 1, VIPER_ML_HISTORY_ARROW, 0 };
  viper_model_history_add (m, &under);
  ViperHistoryEntry longer = { 50, 9500, 4, 3, VIPER_ML_HISTORY_ARROW, 0 };
  viper_model_history_add (m, &longer);
  for (double t = 101; t < end; t += 2.5)
    {
      ViperHistoryEntry e = { t, t + 1, 2, 3, VIPER_ML_HISTORY_ARROW, 0 };
      viper_model_history_add (m, &e);
    }
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, m, NULL, NULL, &follow, W, H);
  double x, y0, y1, y3, y4;
  g_assert_true (viper_view_geometry_module_point (g, 0, &x, &y0));
  g_assert_true (viper_view_geometry_module_point (g, 1, &x, &y1));
  g_assert_true (viper_view_geometry_module_point (g, 3, &x, &y3));
  g_assert_true (viper_view_geometry_module_point (g, 4, &x, &y4));
  viper_view_geometry_free (g);
  g_assert_true (describe_finds (m, &follow, (y0 + y1) / 2, "sent at 100, underway"));
  g_assert_true (describe_finds (m, &zoom, (y3 + y4) / 2, "sent at 50, received at 9500"));
  /* a window after the long message: nothing of it is left to find */
  zoom.start = 9600;
  g_assert_false (describe_finds (m, &zoom, (y3 + y4) / 2, "sent at 50"));

  g_rmdir (dir);
  g_free (dir);
  for (guint mod = 0; mod < n_mods; mod++)
    g_array_unref (segs[mod]);
  g_array_unref (entries);
  g_rand_free (rand);
  viper_model_free (m);
  p->setup_free (setup);
  g_free (trace);
  g_free (setup_path);
}

/* ---- damage coalescing -------------------------------------------------------------- */

static void
test_damage_coalescing (void)
{
  /* P0 sends N messages to P1 (2N state changes of P0) before P1 receives one */
  enum { N = 50 };
  GString *t = g_string_new ("-3 -901 0.0 0 0 0\n-3 -901 0.0 1 0 0\n");
  for (int i = 0; i < N; i++)
    g_string_append_printf (t, "-3 -21 %d.0 0 0 4 2 8 7 1 0\n-4 -21 %d.5 0 0 0\n", i + 1, i + 1);
  char *trace = write_temp (t->str);
  g_string_free (t, TRUE);
  Replay r;
  replay_open (&r, "picl", trace, NULL, NAN);
  /* the first tick after the replay: everything marked since the start */
  GArray *areas = g_array_new (FALSE, FALSE, sizeof (ViperArea));
  viper_damage_take (r.rp.model->damage, areas);
  g_assert_cmpuint (viper_damage_marks (r.rp.model->damage), >=, 2 * N);
  guint module0 = 0;
  for (guint i = 0; i < areas->len; i++)
    {
      const ViperArea *a = &g_array_index (areas, ViperArea, i);
      if (a->kind == VIPER_AREA_MODULE && a->a == 0)
        module0++;
    }
  g_assert_cmpuint (module0, ==, 1);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      ViperTimeWindow w;
      viper_time_window_init (&w);
      w.follow = FALSE;   /* a fixed window maps module areas to rows */
      w.span = 100;
      ViperViewGeometry *g = viper_view_geometry_new (k, r.rp.model, r.rp.run, NULL, &w, W, H);
      GArray *rects = g_array_new (FALSE, FALSE, sizeof (cairo_rectangle_int_t));
      guint n = viper_view_damage_rects (g, areas, rects);
      g_assert_cmpuint (n, ==, rects->len);
      g_assert_cmpuint (n, <=, areas->len);
      /* module 0's redraw region appears exactly once */
      if (k == VIPER_VIEW_ANIMATION || k == VIPER_VIEW_SPACETIME || k == VIPER_VIEW_VARIABLES)
        {
          ViperArea m0 = { VIPER_AREA_MODULE, 0, 0 };
          cairo_rectangle_int_t want;
          g_assert_true (viper_view_area_rect (g, &m0, &want));
          guint same = 0;
          for (guint i = 0; i < rects->len; i++)
            {
              const cairo_rectangle_int_t *q = &g_array_index (rects, cairo_rectangle_int_t, i);
              same += q->x == want.x && q->y == want.y && q->width == want.width && q->height == want.height;
            }
          g_assert_cmpuint (same, ==, 1);
        }
      g_array_unref (rects);
      viper_view_geometry_free (g);
    }
  /* a second tick with nothing applied in between redraws nothing */
  g_array_set_size (areas, 0);
  viper_damage_take (r.rp.model->damage, areas);
  g_assert_cmpuint (areas->len, ==, 0);
  g_array_unref (areas);
  replay_close (&r);
  g_unlink (trace);
  g_free (trace);
}

/* Module areas land inside the module's own disc box, and a link covers both ends. */
static void
test_area_mapping (void)
{
  char *trace = write_temp (picl_trace);
  Replay r;
  replay_open (&r, "picl", trace, NULL, NAN);
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_ANIMATION, r.rp.model, r.rp.run, NULL, NULL, W, H);
  for (gint64 id = 0; id < 3; id++)
    {
      ViperArea a = { VIPER_AREA_MODULE, id, 0 };
      cairo_rectangle_int_t rect;
      double x, y;
      g_assert_true (viper_view_area_rect (g, &a, &rect));
      g_assert_true (viper_view_geometry_module_point (g, id, &x, &y));
      g_assert_true (x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height);
      g_assert_cmpint (rect.width, <, W);
    }
  ViperArea link = { VIPER_AREA_LINK, 0, 2 }, unknown = { VIPER_AREA_MODULE, 99, 0 }, all = { VIPER_AREA_ALL, 0, 0 };
  cairo_rectangle_int_t rect;
  g_assert_true (viper_view_area_rect (g, &link, &rect));
  double x0, y0, x2, y2;
  viper_view_geometry_module_point (g, 0, &x0, &y0);
  viper_view_geometry_module_point (g, 2, &x2, &y2);
  g_assert_true (x0 >= rect.x && x2 >= rect.x && x0 < rect.x + rect.width && x2 < rect.x + rect.width);
  g_assert_true (y0 >= rect.y && y2 >= rect.y && y0 < rect.y + rect.height && y2 < rect.y + rect.height);
  g_assert_false (viper_view_area_rect (g, &unknown, &rect));
  g_assert_true (viper_view_area_rect (g, &all, &rect));
  g_assert_cmpint (rect.width, ==, W);
  g_assert_cmpint (rect.height, ==, H);
  viper_view_geometry_free (g);
  /* the tooltip names the state under the pointer */
  ViperTimeWindow w;
  viper_time_window_init (&w);
  ViperViewGeometry *st = viper_view_geometry_new (VIPER_VIEW_SPACETIME, r.rp.model, r.rp.run, NULL, &w, W, H);
  double sx, sy;
  viper_view_geometry_module_point (st, 2, &sx, &sy);
  viper_view_geometry_free (st);
  char *tip = viper_view_spacetime_describe (r.rp.model, r.rp.run, &w, W, H, sx - 40, sy);
  g_assert_nonnull (tip);
  g_assert_nonnull (strstr (tip, "P2: idle"));
  g_free (tip);
  GError *error = NULL;
  g_assert_false (viper_view_render_to_file ("nosuch", r.rp.model, r.rp.run, "/tmp/x.png", W, H, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (viper_view_render_to_file ("animation", r.rp.model, r.rp.run, "/tmp/x.bmp", W, H, &error));
  g_clear_error (&error);
  replay_close (&r);
  g_unlink (trace);
  g_free (trace);
}

/* A space-time view that follows the clock still repaints a module's row when
 * its state changes without the clock moving (a late tram whose adjusted time
 * is behind the clock, such as the Farm's last terminations): the strip at
 * the right edge shows the state now and went stale before. */
static void
test_follow_module_damage (void)
{
  char *trace = write_temp (picl_trace);
  Replay r;
  replay_open (&r, "picl", trace, NULL, NAN);
  ViperTimeWindow w;
  viper_time_window_init (&w);
  g_assert_true (w.follow);
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, r.rp.model, r.rp.run, NULL, &w, W, H);
  for (gint64 id = 0; id < 3; id++)
    {
      ViperArea a = { VIPER_AREA_MODULE, id, 0 };
      cairo_rectangle_int_t rect;
      double x, y;
      g_assert_true (viper_view_geometry_module_point (g, id, &x, &y));
      g_assert_true (viper_view_area_rect (g, &a, &rect));
      g_assert_true (x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height);
      ViperArea link = { VIPER_AREA_LINK, id, (id + 1) % 3 };
      g_assert_true (viper_view_area_rect (g, &link, &rect));
      g_assert_true (x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height);
    }
  viper_view_geometry_free (g);
  replay_close (&r);
  g_unlink (trace);
  g_free (trace);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static const double farm_end = NAN, farm_mid = 6.6, farm_early = 2.6;
  g_test_add_func ("/views/picl/end", test_picl_end);
  g_test_add_func ("/views/picl/breakpoint", test_picl_breakpoint);
  g_test_add_func ("/views/picl/arrows", test_picl_arrows);
  g_test_add_data_func ("/views/monalisa/farm-early", &farm_early, test_farm);
  g_test_add_data_func ("/views/monalisa/farm-mid", &farm_mid, test_farm);
  g_test_add_data_func ("/views/monalisa/farm-end", &farm_end, test_farm);
  g_test_add_func ("/views/spacetime/dense", test_spacetime_dense);
  g_test_add_func ("/views/damage/coalescing", test_damage_coalescing);
  g_test_add_func ("/views/damage/mapping", test_area_mapping);
  g_test_add_func ("/views/damage/follow-module", test_follow_module_damage);
  return g_test_run ();
}
