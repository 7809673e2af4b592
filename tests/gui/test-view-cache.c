/* test-view-cache.c - the GUI's frame cache (paradigms/views-cache.c) never
 * shows a stale picture.
 *
 * A cached frame is redrawn only where the model's damage says the picture
 * changed, or whole when its key changed or it was invalidated.  So after
 * every replay step, window change, resize, zoom and pan, reset and seek,
 * the cached image of each of the four views is compared pixel by pixel with
 * a fresh render of the same view: they must agree to a shade of rounding.  Replays: a
 * generated 40-processor PICL trace (a grid of discs, many arrows), the Mona
 * Lisa Farm and the Macrame 3x3 testbed laid out by its view setup.
 *
 * And the comparison is shown to see staleness: a cache that is not told
 * about a change (the window moved, the model reset) differs from the fresh
 * render, so a cache that missed an invalidation fails this test.
 *
 * The space-time view reads a module's state changes from the copies its
 * history refs keep (times and states, views-spacetime.c) rather than from
 * the entries: at every check its fresh render is also compared, exactly,
 * with one that walks the entries (VIPER_ST_WALK=entries) - after PICL
 * decides states after appending them, and after a seek back restores a
 * checkpoint, the copies must still be the entries' states.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "core/trail.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/viewsetup.h"
#include "paradigms/picl/picl-gen-lib.h"
#include "tests/common/test-replay.h"

#define W 720
#define H 420

typedef struct {
  TestReplay rp;
  ViperViewSetup *view_setup;
  ViperLayout *layout;
  GArray *areas;
  ViperViewCache *cache[VIPER_VIEW_N_KINDS];
  ViperTimeWindow window;
  int w, h;                 /* the widget's size */
  int vw, vh, ox, oy;       /* the animation laid out at vw x vh, shown from (ox, oy) */
  guint checks;
} Rig;

static void
rig_open (Rig *r, const char *paradigm, const char *trace, const char *setup, const char *view_setup)
{
  memset (r, 0, sizeof *r);
  test_replay_open (&r->rp, paradigm, trace, setup, 0, NULL, NULL);
  /* seeks back by checkpoints, a few dozen trams apart */
  viper_scheduler_enable_trail (r->rp.sched, 0);
  viper_trail_set_first_every (viper_scheduler_get_trail (r->rp.sched), 37);
  GError *error = NULL;
  if (view_setup)
    {
      r->view_setup = viper_view_setup_load (view_setup, &error);
      g_assert_no_error (error);
      r->layout = viper_layout_new ();
      r->layout->setup = r->view_setup;
    }
  r->areas = g_array_new (FALSE, FALSE, sizeof (ViperArea));
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    r->cache[k] = viper_view_cache_new ();
  viper_time_window_init (&r->window);
  r->w = r->vw = W, r->h = r->vh = H;
}

static void
rig_close (Rig *r)
{
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_cache_free (r->cache[k]);
  g_array_unref (r->areas);
  viper_layout_free (r->layout);
  viper_view_setup_free (r->view_setup);
  test_replay_close (&r->rp);
}

static void
view_key (const Rig *r, ViperViewKind k, int *vw, int *vh, int *ox, int *oy)
{
  gboolean an = k == VIPER_VIEW_ANIMATION;
  *vw = an ? r->vw : r->w, *vh = an ? r->vh : r->h;
  *ox = an ? r->ox : 0, *oy = an ? r->oy : 0;
}

/* What the GUI's damage hand-over does: each damaged area's rectangle, in
 * the widget's coordinates, is stale in every view's cache. */
static void
take_damage (Rig *r)
{
  g_array_set_size (r->areas, 0);
  viper_damage_take (r->rp.model->damage, r->areas);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      int vw, vh, ox, oy;
      view_key (r, k, &vw, &vh, &ox, &oy);
      ViperViewGeometry *g = viper_view_geometry_new (k, r->rp.model, r->rp.run, r->layout, &r->window, vw, vh);
      GArray *rects = g_array_new (FALSE, FALSE, sizeof (cairo_rectangle_int_t));
      viper_view_damage_rects (g, r->areas, rects);
      for (guint i = 0; i < rects->len; i++)
        {
          cairo_rectangle_int_t rc = g_array_index (rects, cairo_rectangle_int_t, i);
          rc.x -= ox, rc.y -= oy;
          viper_view_cache_damage (r->cache[k], &rc);
        }
      g_array_unref (rects);
      viper_view_geometry_free (g);
    }
}

/* Two pixels differ by more than rounding.  cairo antialiases an edge a
 * shade differently (one level of 255) depending on the clip and on what
 * else the operation covers, so a frame redrawn in part and one drawn
 * whole may disagree by a level or two at edges; stale content (a disc in
 * its old colour, an arrow gone or not drawn) is tens of levels off. */
#define SHADE 3

static gboolean
differ (guint32 p, guint32 q)
{
  for (int c = 0; c < 24; c += 8)
    if (abs ((int) ((p >> c) & 0xff) - (int) ((q >> c) & 0xff)) > SHADE)
      return TRUE;
  return FALSE;
}

/* Pixels of the cached frame that differ from a fresh render of the view. */
static guint
stale_pixels (Rig *r, ViperViewKind k, ViperViewCache *c, gboolean report)
{
  int vw, vh, ox, oy;
  view_key (r, k, &vw, &vh, &ox, &oy);
  cairo_surface_t *img = viper_view_cache_update (c, k, r->rp.model, r->rp.run, r->layout, &r->window, vw, vh, ox, oy,
                                                  r->w, r->h, 1);
  cairo_surface_t *fresh = cairo_image_surface_create (CAIRO_FORMAT_RGB24, r->w, r->h);
  cairo_t *cr = cairo_create (fresh);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_translate (cr, -ox, -oy);
  viper_view_draw (k, cr, r->rp.model, r->rp.run, r->layout, &r->window, vw, vh);
  cairo_destroy (cr);
  cairo_surface_flush (img);
  cairo_surface_flush (fresh);
  g_assert_cmpint (cairo_image_surface_get_width (img), ==, r->w);
  g_assert_cmpint (cairo_image_surface_get_height (img), ==, r->h);
  guint bad = 0;
  int sa = cairo_image_surface_get_stride (img), sb = cairo_image_surface_get_stride (fresh);
  const guint8 *a = cairo_image_surface_get_data (img), *b = cairo_image_surface_get_data (fresh);
  for (int y = 0; y < r->h; y++)
    for (int x = 0; x < r->w; x++)
      if (differ (((const guint32 *) (a + y * sa))[x], ((const guint32 *) (b + y * sb))[x]))
        bad++;
  if (bad && report)
    {
      /* for whoever reads the failure: both frames and where they differ */
      int x0 = r->w, y0 = r->h, x1 = -1, y1 = -1;
      for (int y = 0; y < r->h; y++)
        for (int x = 0; x < r->w; x++)
          if (differ (((const guint32 *) (a + y * sa))[x], ((const guint32 *) (b + y * sb))[x]))
            x0 = MIN (x0, x), x1 = MAX (x1, x), y0 = MIN (y0, y), y1 = MAX (y1, y);
      char *pa = g_build_filename (g_get_tmp_dir (), "viper-cache-cached.png", NULL);
      char *pb = g_build_filename (g_get_tmp_dir (), "viper-cache-fresh.png", NULL);
      cairo_surface_write_to_png (img, pa);
      cairo_surface_write_to_png (fresh, pb);
      g_test_message ("%s view: they differ in x %d..%d, y %d..%d (%s, %s)", viper_view_kind_name (k), x0, x1, y0,
                      y1, pa, pb);
      g_free (pa);
      g_free (pb);
    }
  cairo_surface_destroy (fresh);
  return bad;
}

static cairo_surface_t *
render_spacetime (Rig *r)
{
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, r->w, r->h);
  cairo_t *cr = cairo_create (img);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (VIPER_VIEW_SPACETIME, cr, r->rp.model, r->rp.run, r->layout, &r->window, r->w, r->h);
  cairo_destroy (cr);
  cairo_surface_flush (img);
  return img;
}

/* Pixels of the space-time view (as drawn, from the refs' copies) that
 * differ from the view drawn by walking the history entries. */
static guint
walks_differ (Rig *r)
{
  cairo_surface_t *a = render_spacetime (r);
  g_setenv ("VIPER_ST_WALK", "entries", TRUE);
  cairo_surface_t *b = render_spacetime (r);
  g_unsetenv ("VIPER_ST_WALK");
  guint bad = 0;
  int sa = cairo_image_surface_get_stride (a), sb = cairo_image_surface_get_stride (b);
  const guint8 *pa = cairo_image_surface_get_data (a), *pb = cairo_image_surface_get_data (b);
  for (int y = 0; y < r->h; y++)
    bad += memcmp (pa + y * sa, pb + y * sb, (size_t) r->w * 4) != 0;
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
  return bad;
}

/* State changes whose ref's copy of the state is not the entry's. */
static guint
refs_stale (Rig *r)
{
  const ViperModel *m = r->rp.model;
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  viper_view_renderer (m)->modules (m, r->rp.run, ids);
  guint bad = 0;
  for (guint i = 0; i < ids->len; i++)
    {
      const ViperHistoryModule *h = viper_model_history_module (m, g_array_index (ids, gint64, i));
      for (guint k = 0; h && k < h->states->len; k++)
        {
          const ViperHistoryRef *ref = &g_array_index (h->states, ViperHistoryRef, k);
          const ViperHistoryEntry *e = viper_model_history_at (m, ref->pos);
          bad += e && e->state != ref->state;
        }
    }
  g_array_unref (ids);
  return bad;
}

/* Every view's cached frame equals a fresh render. */
static void
check_all (Rig *r, const char *when)
{
  guint stale = refs_stale (r);
  if (stale)
    g_error ("%s: %u history refs keep a state their entry no longer has", when, stale);
  guint rows = walks_differ (r);
  if (rows)
    g_error ("%s: space-time view: %u rows of pixels differ between the refs' states and the entries'", when, rows);
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      guint bad = stale_pixels (r, k, r->cache[k], TRUE);
      if (bad)
        g_error ("%s: %s view: %u pixels of the cached frame differ from a fresh render", when,
                 viper_view_kind_name (k), bad);
      r->checks++;
    }
}

static void
invalidate_all (Rig *r)
{
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    viper_view_cache_invalidate (r->cache[k]);
}

static guint64
count_trams (Rig *r)
{
  viper_scheduler_run (r->rp.sched);
  guint64 n = r->rp.model->applied;
  GError *error = NULL;
  g_assert_true (viper_scheduler_reset (r->rp.sched, &error));
  g_assert_no_error (error);
  take_damage (r);
  return n;
}

/* n more trams applied, the damage taken, every frame checked */
static void
step_check (Rig *r, guint64 n, const char *when)
{
  viper_scheduler_pump (r->rp.sched, (guint) n);
  take_damage (r);
  check_all (r, when);
}

/* Replay step by step checking every frame, then move the window, resize,
 * zoom and pan, reset, seek - checking after each. */
static void
exercise (Rig *r, guint steps)
{
  guint64 total = count_trams (r);
  g_assert_cmpuint (total, >, steps);
  check_all (r, "first frame");
  guint64 step = MAX (total / steps, 1);
  for (guint i = 0; i < steps / 2; i++)
    step_check (r, step, "replay step");
  /* the time window moves (zoomed in on the middle, rows scrolled): the
   * GUI invalidates; a cache left alone shows the old window */
  double t0, t1;
  viper_time_window_range (&r->window, r->rp.model, &t0, &t1);
  ViperViewCache *left_alone = viper_view_cache_new ();
  g_assert_cmpuint (stale_pixels (r, VIPER_VIEW_SPACETIME, left_alone, FALSE), ==, 0);
  r->window.follow = FALSE;
  r->window.start = t0 + (t1 - t0) * 0.3;
  r->window.span = (t1 - t0) * 0.4;
  r->window.first_row = 3;
  r->window.row_zoom = 4;
  g_assert_cmpuint (stale_pixels (r, VIPER_VIEW_SPACETIME, left_alone, FALSE), >, 0);
  viper_view_cache_free (left_alone);
  invalidate_all (r);
  check_all (r, "window moved");
  /* replaying on under a fixed window: damage alone keeps it right */
  for (guint i = 0; i < steps / 4; i++)
    step_check (r, step, "replay step, fixed window");
  r->window.follow = TRUE;
  r->window.span = 0;
  r->window.first_row = 0;
  r->window.row_zoom = 1;
  invalidate_all (r);
  check_all (r, "following again");
  /* a resize: the key changes, nothing to be told */
  r->w = W + 37, r->h = H - 23;
  r->vw = r->w, r->vh = r->h;
  check_all (r, "resized");
  /* the animation zoomed twice and panned: laid out larger, shown from an offset */
  r->vw = 2 * r->w, r->vh = 2 * r->h, r->ox = 211, r->oy = 97;
  check_all (r, "animation zoomed");
  step_check (r, step, "replay step, zoomed");
  r->ox = 40, r->oy = 300;
  check_all (r, "animation panned");
  r->vw = r->w, r->vh = r->h, r->ox = r->oy = 0;
  check_all (r, "zoom reset");
  /* a frame not told of the model's damage keeps showing the old state */
  ViperViewCache *not_told = viper_view_cache_new ();
  g_assert_cmpuint (stale_pixels (r, VIPER_VIEW_ANIMATION, not_told, FALSE), ==, 0);
  viper_scheduler_pump (r->rp.sched, (guint) step);
  take_damage (r);
  g_assert_cmpuint (stale_pixels (r, VIPER_VIEW_ANIMATION, not_told, FALSE), >, 0);
  viper_view_cache_free (not_told);
  check_all (r, "replay step");
  /* reset: the model's damage covers everything it drew */
  GError *error = NULL;
  g_assert_true (viper_scheduler_reset (r->rp.sched, &error));
  g_assert_no_error (error);
  take_damage (r);
  check_all (r, "reset");
  /* a seek: forward to a point the replay passed, in one go */
  while (r->rp.model->applied < total * 2 / 3)
    if (viper_scheduler_pump (r->rp.sched, 4096) != VIPER_STOP_NONE)
      break;
  take_damage (r);
  check_all (r, "seek");
  for (guint i = 0; i < steps / 4; i++)
    step_check (r, step, "replay step after the seek");
  viper_scheduler_run (r->rp.sched);
  take_damage (r);
  check_all (r, "end");
  /* a seek back: a checkpoint restored and the logged trams replayed to a
   * clock in the middle (the GUI's Go to clock), then on to the end */
  double lo, hi;
  g_assert_true (viper_time_window_extent (r->rp.model, &lo, &hi));
  for (int i = 9; i >= 1; i -= 2)
    {
      double mid = lo + (hi - lo) * i / 10.0;
      g_assert_true (viper_scheduler_rewind (r->rp.sched, mid, 0));
      viper_scheduler_set_breakpoint (r->rp.sched, mid);
      g_assert_cmpint (viper_scheduler_run (r->rp.sched), ==, VIPER_STOP_BREAKPOINT);
      g_assert_cmpfloat (r->rp.model->clock, <=, mid);
      take_damage (r);
      check_all (r, "seek back");
    }
  viper_scheduler_set_breakpoint (r->rp.sched, NAN);
  viper_scheduler_run (r->rp.sched);
  take_damage (r);
  check_all (r, "end again");
  /* the cache redrew in part most of the time, or this proves little */
  guint64 full, partial;
  viper_view_cache_counts (r->cache[VIPER_VIEW_ANIMATION], &full, &partial);
  g_test_message ("animation: %" G_GUINT64_FORMAT " full and %" G_GUINT64_FORMAT " partial redraws, %u checks",
                  full, partial, r->checks);
  g_assert_cmpuint (partial, >, full);
}

static void
test_picl (void)
{
  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  o.procs = 40;
  o.messages = 600;
  o.seed = 11;
  o.barriers = 2;
  o.collectives = 2;
  o.delivery = VIPER_PICL_DELIVERY_SHUFFLED;
  GError *error = NULL;
  ViperPiclGenTrace *t = viper_picl_gen (&o, &error);
  g_assert_no_error (error);
  GString *text = g_string_new (NULL);
  viper_picl_gen_write (t, text);
  viper_picl_gen_free (t);
  char *path = NULL;
  int fd = g_file_open_tmp ("viper-cache-XXXXXX.trc", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_string_free (text, TRUE);
  Rig r;
  rig_open (&r, "picl", path, NULL, NULL);
  exercise (&r, 40);
  rig_close (&r);
  g_unlink (path);
  g_free (path);
}

static char *
source_file (const char *dir, const char *name)
{
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  char *p = g_build_filename (root ? root : ".", dir, name, NULL);
  if (!g_file_test (p, G_FILE_TEST_EXISTS))
    {
      g_free (p);
      return NULL;
    }
  return p;
}

/* exercises PARADIGM on the source tree's traces/TRACE with setup/SETUP or
 * the view setup setup/VIEW (either may be NULL); skips when one is missing */
static void
exercise_source (const char *paradigm, const char *trace, const char *setup, const char *view)
{
  char *trace_p = source_file ("traces", trace);
  char *setup_p = setup ? source_file ("setup", setup) : NULL;
  char *view_p = view ? source_file ("setup", view) : NULL;
  if (!trace_p || (setup && !setup_p) || (view && !view_p) || !viper_paradigm_lookup (paradigm))
    g_test_skip_printf ("traces/%s, setup/%s or the %s paradigm is missing", trace, setup ? setup : view, paradigm);
  else
    {
      Rig r;
      rig_open (&r, paradigm, trace_p, setup_p, view_p);
      exercise (&r, 40);
      rig_close (&r);
    }
  g_free (trace_p);
  g_free (setup_p);
  g_free (view_p);
}

static void
test_farm (void)
{
  exercise_source ("monalisa", "farm.trc", "farm.setup", NULL);
}

static void
test_macrame (void)
{
  exercise_source ("macrame", "mesh3x3.trc", NULL, "mesh3x3-hardware.view");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  viper_paradigms_register_all ();
  g_test_add_func ("/view-cache/picl", test_picl);
  g_test_add_func ("/view-cache/monalisa-farm", test_farm);
  g_test_add_func ("/view-cache/macrame-3x3", test_macrame);
  return g_test_run ();
}
