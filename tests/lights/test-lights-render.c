/* test-lights-render.c - the lights paradigm's views drawn to pixels: bars,
 * arrows, the range of interest recolouring them, freeze, the program view
 * and legends fitting, and link sums kept by aggregation equal to sums made
 * afresh (model and picture).
 */
#include "lights-fx.h"

/* ---- pixels ------------------------------------------------------------------- */

static cairo_surface_t *
draw (Fx *fx, ViperViewKind kind, int w, int h, ViperViewGeometry **geom)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (kind, cr, fx->model, fx->run, NULL, NULL, w, h);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  *geom = viper_view_geometry_new (kind, fx->model, fx->run, NULL, NULL, w, h);
  return s;
}

static ViperColor
pixel (cairo_surface_t *s, double x, double y)
{
  const guint8 *d = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  guint32 p = *(const guint32 *) (d + (int) y * stride + (int) x * 4);
  return (ViperColor) { ((p >> 16) & 0xff) / 255.0, ((p >> 8) & 0xff) / 255.0, (p & 0xff) / 255.0 };
}

static void
assert_color (cairo_surface_t *s, double x, double y, ViperColor want, const char *what)
{
  ViperColor got = pixel (s, x, y);
  if (fabs (got.r - want.r) > 0.03 || fabs (got.g - want.g) > 0.03 || fabs (got.b - want.b) > 0.03)
    g_error ("%s at (%.0f, %.0f): got %.2f %.2f %.2f, want %.2f %.2f %.2f", what, x, y, got.r, got.g, got.b,
             want.r, want.g, want.b);
}

/* The middle of the arrow from a to b, on its side of the pair. */
static void
arrow_mid (ViperViewGeometry *g, gint64 a, gint64 b, double *x, double *y)
{
  double ax, ay, bx, by;
  g_assert_true (viper_view_geometry_module_point (g, a, &ax, &ay));
  g_assert_true (viper_view_geometry_module_point (g, b, &bx, &by));
  double dx = bx - ax, dy = by - ay, len = hypot (dx, dy), ux = dx / len, uy = dy / len;
  *x = (ax + bx) / 2 - uy * 4;
  *y = (ay + by) / 2 + ux * 4;
}

static void
test_render (void)
{
  Fx fx;
  fx_init (&fx, MESH "range 1k 100k below lightgrey above magenta\n");
  g_assert_true (feed (&fx, "4 40 1.0 0 0 3 2 1 250 500"));
  g_assert_true (feed (&fx, "4 40 1.0 1 0 3 2 1 900 500"));
  /* 0 -> 1: 25 kB in 500 ms = 50 kB/s, mid range; 1 -> 2: 500 kB/s above */
  g_assert_true (feed (&fx, "4 41 1.0 0 0 4 2 2 500 1 25000"));
  g_assert_true (feed (&fx, "4 41 1.0 1 0 4 2 2 500 2 250000"));
  ViperViewGeometry *g;
  cairo_surface_t *s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  write_shot (s, "lights-render.png");
  LightsRange r;
  lights_model_range (fx.model, &r);
  double x, y, w, h, bx, by, bw, bh;
  g_assert_true (viper_view_geometry_module_box (g, 0, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  /* bar 0 at 25 %: filled at 10 % of its height, empty at 50 % */
  assert_color (s, bx + bw / 2, by + bh * 0.9, lights_load_color (250), "bar 0 fill");
  assert_color (s, bx + bw / 2, by + bh * 0.5, (ViperColor) { 1, 1, 1 }, "bar 0 above its load");
  g_assert_true (viper_view_geometry_module_box (g, 1, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw / 2, by + bh * 0.2, lights_load_color (900), "bar 1 at 90 %");
  g_assert_true (viper_view_geometry_module_box (g, 2, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw / 2, by + bh * 0.5, lights_load_color (-1), "bar 2 no sample");
  arrow_mid (g, 0, 1, &x, &y);
  assert_color (s, x, y, lights_bw_color (&r, 50e3), "arrow 0->1 in range");
  arrow_mid (g, 1, 2, &x, &y);
  assert_color (s, x, y, (ViperColor) { 1, 0, 1 }, "arrow 1->2 above");
  arrow_mid (g, 1, 0, &x, &y);
  assert_color (s, x, y, (ViperColor) { 0.83, 0.83, 0.83 }, "arrow 1->0 idle, below");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);

  /* freeze, then more traffic and load: the picture stands still */
  lights_model_set_frozen (fx.model, TRUE);
  g_assert_true (feed (&fx, "4 41 1.5 0 0 4 2 3 500 1 0"));
  g_assert_true (feed (&fx, "4 40 1.5 0 0 3 2 4 950 500"));
  s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  arrow_mid (g, 0, 1, &x, &y);
  assert_color (s, x, y, lights_bw_color (&r, 50e3), "frozen arrow 0->1");
  g_assert_true (viper_view_geometry_module_box (g, 0, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw / 2, by + bh * 0.5, (ViperColor) { 1, 1, 1 }, "frozen bar 0");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  lights_model_set_frozen (fx.model, FALSE);
  s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  arrow_mid (g, 0, 1, &x, &y);
  assert_color (s, x, y, (ViperColor) { 0.83, 0.83, 0.83 }, "thawed arrow 0->1 idle");
  g_assert_true (viper_view_geometry_module_box (g, 0, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw / 2, by + bh * 0.5, lights_load_color (950), "thawed bar 0 at 95 %");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);

  /* the range of interest moved: 500 kB/s is now inside, 50 kB/s... */
  LightsRange r2 = { 100e3, 1e6, { 0, 0, 1 }, { 1, 0, 0 } };
  lights_model_set_range (fx.model, &r2);
  g_assert_true (feed (&fx, "4 41 2.0 0 0 4 2 5 500 1 25000"));
  s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  arrow_mid (g, 1, 2, &x, &y);
  assert_color (s, x, y, lights_bw_color (&r2, 500e3), "arrow 1->2 in the new range");
  arrow_mid (g, 0, 1, &x, &y);
  assert_color (s, x, y, (ViperColor) { 0, 0, 1 }, "arrow 0->1 below the new range");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);

  /* node 1 lost: dark bar */
  g_assert_true (feed (&fx, "4 43 3.0 0 0 2 2 6 1"));
  s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  g_assert_true (viper_view_geometry_module_box (g, 1, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw * 0.5, by + bh * 0.2, (ViperColor) { 0.25, 0.25, 0.25 }, "lost bar");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  fx_clear (&fx);
}

/* ---- incremental aggregates against fresh ones ------------------------------- */

/* A rows x cols cluster (mesh or torus), boxes on a grid, plus extra lines. */
static char *
grid_setup (const char *topo, guint rows, guint cols, const char *extra)
{
  GString *g = g_string_new ("paradigm lights\n");
  g_string_append_printf (g, "size %u %u\ntopology %s %u %u\n", cols * 100, rows * 100, topo, rows, cols);
  for (guint k = 0; k < rows * cols; k++)
    g_string_append_printf (g, "module %u bar %u %u 50 50 n%u\n", k, (k % cols) * 100 + 25, (k / cols) * 100 + 25, k);
  g_string_append (g, extra);
  return g_string_free (g, FALSE);
}

/* Every link's rate and bytes summed afresh from the pairs over a topology
 * made from the model's view setup now, route by route (never the model's
 * source trees or its running sums); they must equal the model's. */
static void
check_links_fresh (Fx *fx, const char *when)
{
  const ViperViewSetup *vs = lights_model_view_setup (fx->model);
  GError *error = NULL;
  LightsTopo *t = lights_topo_new (vs, &error);
  g_assert_no_error (error);
  guint nl = lights_topo_n_links (t);
  g_assert_cmpuint (nl, ==, lights_model_n_links (fx->model));
  double *bw = g_new0 (double, nl);
  guint64 *bytes = g_new0 (guint64, nl), unrouted = 0;
  GArray *ids = lights_model_ids (fx->model), *r = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < ids->len; i++)
    for (guint j = 0; j < ids->len; j++)
      {
        gint64 s = g_array_index (ids, gint64, i), d = g_array_index (ids, gint64, j);
        guint64 b = lights_model_pair_bytes (fx->model, s, d);
        double w = lights_model_pair_bw (fx->model, s, d);
        if (s == d || (!b && w == 0))
          continue;
        g_array_set_size (r, 0);
        if (!lights_topo_route (t, s, d, r))
          {
            unrouted += b;
            continue;
          }
        for (guint k = 0; k < r->len; k++)
          {
            bw[g_array_index (r, guint, k)] += w;
            bytes[g_array_index (r, guint, k)] += b;
          }
      }
  for (guint li = 0; li < nl; li++)
    {
      LightsLink l;
      gint64 from, to;
      lights_model_link (fx->model, li, &l);
      lights_topo_link (t, li, &from, &to);
      if (l.from != from || l.to != to || fabs (l.bw - bw[li]) > 1e-6 * MAX (1.0, bw[li]) || l.bytes != bytes[li])
        g_error ("%s: link %u (%" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT "): model %.3f B/s %" G_GUINT64_FORMAT
                 " B, fresh %.3f B/s %" G_GUINT64_FORMAT " B", when, li, l.from, l.to, l.bw, l.bytes, bw[li],
                 bytes[li]);
    }
  g_assert_cmpuint (lights_model_unrouted (fx->model), ==, unrouted);
  g_array_unref (r);
  g_array_unref (ids);
  g_free (bw);
  g_free (bytes);
  lights_topo_free (t);
}

typedef struct {
  GPtrArray *lines;         /* everything fed, for a fresh model */
  guint seq[64];
  double time;
} Gen;

static void
gen_feed (Fx *fx, Gen *gen, char *line)
{
  g_assert_true (feed (fx, line));
  g_ptr_array_add (gen->lines, line);
}

/* One sample: every node's load, and its traffic to every other node (some
 * nodes to all, some to a few: both ways of moving pairs onto links). */
static void
gen_sample (Fx *fx, Gen *gen, GRand *rng, guint n)
{
  gen->time += 0.5;
  for (guint k = 0; k < n; k++)
    {
      gen_feed (fx, gen, g_strdup_printf ("4 40 %.3f %u 0 3 2 %u %d 500", gen->time, k, ++gen->seq[k],
                                          g_rand_int_range (rng, 0, 1001)));
      GString *g = g_string_new (NULL);
      guint pairs = 0;
      gboolean few = g_rand_int_range (rng, 0, 4) == 0;
      for (guint d = 0; d < n; d++)
        if (d != k && (!few || g_rand_int_range (rng, 0, 8) == 0))
          {
            /* zero bytes now and then: a pair that falls idle */
            g_string_append_printf (g, " %u %d", d, g_rand_int_range (rng, 0, 5) ? g_rand_int_range (rng, 1, 200000) : 0);
            pairs++;
          }
      gen_feed (fx, gen, g_strdup_printf ("4 41 %.3f %u 0 %u 2 %u 500%s", gen->time, k, 2 + 2 * pairs,
                                          ++gen->seq[k], g->str));
      g_string_free (g, TRUE);
    }
}

static ViperViewSetup *
setup_of (const char *text)
{
  GError *error = NULL;
  ViperViewSetup *vs = parse (text, &error);
  g_assert_no_error (error);
  return vs;
}

static guint
count_differing (cairo_surface_t *a, cairo_surface_t *b)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  int sa = cairo_image_surface_get_stride (a), sb = cairo_image_surface_get_stride (b);
  const guint8 *da = cairo_image_surface_get_data (a), *db = cairo_image_surface_get_data (b);
  guint n = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w * 4; x++)
      n += abs ((int) da[y * sa + x] - (int) db[y * sb + x]) > 2;
  return n;
}

/* The link sums are kept incrementally (source trees, running rates) and
 * the animation view may cache what it drew: after samples, a range
 * change, a view setup reloaded mid-run (mesh -> torus -> mesh with a
 * listed route that makes some sources' routes not prefix-closed), lost
 * nodes and a rejoin, every link equals a sum made afresh from the pairs,
 * and the model and its picture equal those of a fresh model fed the same
 * trams under the final setup. */
static void
test_aggregate_fresh (void)
{
  const guint rows = 5, cols = 6, n = rows * cols;
  /* 0 -> 7 column first: the XY routes from 0 through 1 -> 7 are no longer prefix-closed */
  char *mesh = grid_setup ("mesh", rows, cols, "range 10k 4M\nroute 0 6 7\n");
  char *torus = grid_setup ("torus", rows, cols, "");
  ViperViewSetup *vs0 = setup_of (mesh);
  LightsTopo *t0 = lights_topo_new (vs0, NULL);
  g_assert_null (lights_topo_tree (t0, 0));        /* its routes disagree: walked */
  const LightsTree *tree = lights_topo_tree (t0, 1);
  g_assert_nonnull (tree);
  g_assert_cmpuint (tree->n_order, ==, n - 1);
  lights_topo_free (t0);
  viper_view_setup_free (vs0);
  Fx fx;
  fx_init (&fx, mesh);
  Gen gen = { g_ptr_array_new_with_free_func (g_free), { 0 }, 0 };
  GRand *rng = g_rand_new_with_seed (16);
  for (int i = 0; i < 3; i++)
    gen_sample (&fx, &gen, rng, n);
  check_links_fresh (&fx, "mesh, 3 samples");
  ViperViewGeometry *g;
  cairo_surface_destroy (draw (&fx, VIPER_VIEW_ANIMATION, 700, 600, &g));   /* whatever it caches, now */
  viper_view_geometry_free (g);

  LightsRange r = { 50e3, 2e6, { 0, 0, 1 }, { 1, 0, 1 } };
  lights_model_set_range (fx.model, &r);
  check_links_fresh (&fx, "range changed");

  ViperViewSetup *vt = setup_of (torus);
  lights_model_set_view_setup (fx.model, vt);
  check_links_fresh (&fx, "reloaded as a torus");
  cairo_surface_destroy (draw (&fx, VIPER_VIEW_ANIMATION, 700, 600, &g));
  viper_view_geometry_free (g);
  for (int i = 0; i < 2; i++)
    gen_sample (&fx, &gen, rng, n);
  check_links_fresh (&fx, "torus, 2 more samples");

  gen_feed (&fx, &gen, g_strdup_printf ("4 43 %.3f 0 0 3 2 %u 7 12", gen.time + 0.1, ++gen.seq[0]));
  check_links_fresh (&fx, "nodes 7 and 12 lost");
  gen_sample (&fx, &gen, rng, n);   /* their late samples count bytes, no rate */
  check_links_fresh (&fx, "a sample after the loss");
  g_assert_cmpfloat (lights_model_pair_bw (fx.model, 7, 8), ==, 0);
  gen_feed (&fx, &gen, g_strdup_printf ("4 42 %.3f 7 0 2 2 %u 3", gen.time + 0.1, ++gen.seq[7]));
  gen_sample (&fx, &gen, rng, n);
  check_links_fresh (&fx, "node 7 rejoined");

  cairo_surface_destroy (draw (&fx, VIPER_VIEW_ANIMATION, 700, 600, &g));   /* the torus's arrows, cached */
  viper_view_geometry_free (g);
  ViperViewSetup *vm = setup_of (mesh);
  lights_model_set_view_setup (fx.model, vm);
  lights_model_set_range (fx.model, &r);
  check_links_fresh (&fx, "reloaded as the mesh");
  gen_sample (&fx, &gen, rng, n);
  check_links_fresh (&fx, "mesh again, a sample");

  /* a fresh model fed the same trams under the final setup */
  Fx fresh;
  fx_init (&fresh, mesh);
  lights_model_set_range (fresh.model, &r);
  for (guint i = 0; i < gen.lines->len; i++)
    g_assert_true (feed (&fresh, g_ptr_array_index (gen.lines, i)));
  g_assert_cmpuint (lights_model_n_links (fresh.model), ==, lights_model_n_links (fx.model));
  for (guint li = 0; li < lights_model_n_links (fx.model); li++)
    {
      LightsLink a, b;
      lights_model_link (fx.model, li, &a);
      lights_model_link (fresh.model, li, &b);
      g_assert_cmpuint (a.bytes, ==, b.bytes);
      g_assert_cmpfloat_with_epsilon (a.bw, b.bw, 1e-6 * MAX (1.0, b.bw));
    }
  g_assert_cmpuint (lights_model_unrouted (fx.model), ==, lights_model_unrouted (fresh.model));
  /* the kept model's picture as the view keeps it between frames, against
   * the fresh model's drawn from nothing */
  ViperViewGeometry *g2;
  cairo_surface_t *s1 = draw (&fx, VIPER_VIEW_ANIMATION, 700, 600, &g);
  lights_view_forget ();
  cairo_surface_t *s2 = draw (&fresh, VIPER_VIEW_ANIMATION, 700, 600, &g2);
  guint diff = count_differing (s1, s2);
  if (diff)
    {
      write_shot (s1, "lights-aggregate-kept.png");
      write_shot (s2, "lights-aggregate-fresh.png");
    }
  g_assert_cmpuint (diff, ==, 0);
  cairo_surface_destroy (s1);
  cairo_surface_destroy (s2);
  viper_view_geometry_free (g);
  viper_view_geometry_free (g2);

  fx_clear (&fresh);
  fx_clear (&fx);
  viper_view_setup_free (vt);
  viper_view_setup_free (vm);
  g_ptr_array_unref (gen.lines);
  g_rand_free (rng);
  g_free (mesh);
  g_free (torus);
}

/* The program view at the width the GUI's default window gives it (about
 * 250 px): a collector's message longer than the view was drawn centred and
 * cut off on both sides ("ent of node 1 up, interval 200 ms, load from").
 * Every line now stays inside the view: set smaller, or cut with an
 * ellipsis at the right, never ink in the outer columns. */
static void
test_program_view_fits (void)
{
  Fx fx;
  fx_init (&fx, MESH);
  /* "agent of node 1 up, interval 200 ms, load from /proc/stat" as code points */
  const char *msg = "agent of node 1 up, interval 200 ms, load from /proc/stat";
  GString *t = g_string_new (NULL);
  g_string_append_printf (t, "4 44 1.0 0 0 %u 2 1", (unsigned) strlen (msg) + 1);
  for (const char *c = msg; *c; c++)
    g_string_append_printf (t, " %d", *c);
  g_assert_true (feed (&fx, t->str));
  g_string_free (t, TRUE);
  const int w = 200, h = 400;
  ViperViewGeometry *g;
  cairo_surface_t *s = draw (&fx, VIPER_VIEW_PROGRAM, w, h, &g);
  write_shot (s, "lights-program.png");
  int inked = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        ViperColor c = pixel (s, x, y);
        if (c.r > 0.6 || c.g > 0.6 || c.b > 0.6)
          continue;                       /* not text ink */
        if (fabs (c.r - c.g) > 0.1 || fabs (c.g - c.b) > 0.1)
          continue;                       /* the square's colour, not grey ink */
        if (x < 2 || x >= w - 2)
          g_error ("program view: ink at (%d, %d), the text runs past the view's edge", x, y);
        inked++;
      }
  g_assert_cmpint (inked, >, 0);
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  fx_clear (&fx);
}

/* Every state of the renderer has a swatch (6 x 6 pixels of its colour:
 * antialiased text has every grey) in rows [y0, y1) of S. */
static void
assert_legend (cairo_surface_t *s, const ViperRenderer *r, int w, int y0, int y1, const char *what)
{
  for (guint k = 0; k < r->n_states; k++)
    {
      ViperColor want = r->state_color ((gint) k);
      gboolean found = FALSE;
      for (int y = y0; y + 6 <= y1 && !found; y++)
        for (int x = 0; x + 6 <= w && !found; x++)
          {
            found = TRUE;
            for (int dy = 0; dy < 6 && found; dy++)
              for (int dx = 0; dx < 6 && found; dx++)
                {
                  ViperColor c = pixel (s, x + dx, y + dy);
                  found = fabs (c.r - want.r) < 0.02 && fabs (c.g - want.g) < 0.02 && fabs (c.b - want.b) < 0.02;
                }
          }
      if (!found)
        g_error ("%s legend at %d px: no swatch of state %u (%s)", what, w, k, r->state_name ((gint) k));
    }
}

/* The legends at the widths the GUI gives the views: the lights paradigm
 * has twelve states, and their legend ran past the right edge ("90-100%",
 * "no sample" and "lost" not shown) - the space-time view's at the default
 * window's 760 px, the animation's in a narrower panel.  Every state's
 * swatch is in the legend strip. */
static void
test_legends_fit (void)
{
  Fx fx;
  fx_init (&fx, MESH);
  g_assert_true (feed (&fx, "4 40 1.0 0 0 3 2 1 950 500"));
  g_assert_true (feed (&fx, "4 40 1.5 1 0 3 2 1 50 500"));
  const ViperRenderer *r = viper_view_renderer (fx.model);
  g_assert_cmpuint (r->n_states, >=, 12);
  const int h = 300;
  ViperViewGeometry *g;
  cairo_surface_t *s = draw (&fx, VIPER_VIEW_SPACETIME, 760, h, &g);
  write_shot (s, "lights-spacetime-legend.png");
  assert_legend (s, r, 760, h - 15, h - 4, "space-time");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  s = draw (&fx, VIPER_VIEW_ANIMATION, 680, h, &g);
  write_shot (s, "lights-animation-legend.png");
  assert_legend (s, r, 680, h - 17, h - 6, "animation");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  fx_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lights/render", test_render);
  g_test_add_func ("/lights/render/program-view-fits", test_program_view_fits);
  g_test_add_func ("/lights/render/legends-fit", test_legends_fit);
  g_test_add_func ("/lights/model/aggregate-fresh", test_aggregate_fresh);
  return g_test_run ();
}
