/* test-macrame-views.c - the generic views laid out by a view setup file
 * (issue 6), headless: the bundled 3x3 testbed replayed to a stop point,
 * its topology and hardware views rendered to PNG through viper_view_draw
 * (what the GUI paints), and the pixels probed against the model's states:
 * a node's base in its setup colour (Table 13), its transmitter meter's
 * bottom in its dynamic colour (Table 14) when the rate fills it, a white
 * cross at the centre of a node in error, a switch's corner in its setup
 * colour (red when in error).  Loading the hardware view over the topology
 * view mid-replay keeps the clock and every device state, and the nodes are
 * then found at their hardware boxes.  The damage rectangle of a module
 * covers its box, and the space-time view has the file's rows in order.
 * The legends show each colour drawn once, with every state it stands for.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/scheduler.h"
#include "core/source.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/viewlayout.h"
#include "paradigms/macrame/macrame.h"
#include "paradigms/macrame/macrame-render.h"
#include "tests/common/test-pixels.h"

#define W 1100
#define H 900

typedef struct {
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag diag;
  const ViperParadigm *p;
  ViperSetup *setup;
  ViperModel *model;
  ViperRun *run;
  ViperScheduler *sched;
} Bed;

static char *
src_path (const char *sub, const char *name)
{
  return g_build_filename (g_getenv ("VIPER_SOURCE_ROOT") ? g_getenv ("VIPER_SOURCE_ROOT") : VIPER_SOURCE_DIR, sub,
                           name, NULL);
}

static void
bed_open (Bed *b, const char *view, const char *trace)
{
  memset (b, 0, sizeof *b);
  viper_paradigms_register_all ();
  b->p = viper_paradigm_lookup ("macrame");
  g_assert_nonnull (b->p);
  GError *error = NULL;
  b->setup = b->p->setup_load (view, &error);
  g_assert_no_error (error);
  b->pool = viper_tram_pool_new ();
  b->channels = viper_channels_new ();
  viper_diag_init (&b->diag, NULL, NULL);
  b->model = b->p->model_new (b->p, b->setup);
  b->run = viper_run_new (b->p, b->model, b->pool, b->channels, &b->diag, 0.5);
  b->sched = viper_scheduler_new (b->run, b->model, b->channels, &b->diag);
  ViperTramSource *src = viper_file_source_new (trace, b->pool, &b->diag, b->channels, &error);
  g_assert_no_error (error);
  viper_scheduler_add_source (b->sched, src);
}

static ViperStopReason
bed_run (Bed *b, double until)
{
  viper_scheduler_set_breakpoint (b->sched, until);
  viper_scheduler_go (b->sched);
  return viper_scheduler_run (b->sched);
}

static void
bed_close (Bed *b)
{
  viper_scheduler_free (b->sched);
  viper_run_free (b->run);
  viper_model_free (b->model);
  b->p->setup_free (b->setup);
  viper_channels_free (b->channels);
  viper_diag_clear (&b->diag);
  viper_tram_pool_free (b->pool);
}

static guint32
rgb (ViperColor c)
{
  return ((guint32) lround (c.r * 255) << 16) | ((guint32) lround (c.g * 255) << 8) | (guint32) lround (c.b * 255);
}

typedef struct {
  guint bases, meters, crosses, switches;
  guint classes[5];         /* setup classes seen on node bases */
} Probed;

/* Render the animation view as the GUI does and probe every module of the file. */
static Probed
probe_view (Bed *b, const ViperLayout *layout, const char *png)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, W, H);
  cairo_t *cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (VIPER_VIEW_ANIMATION, cr, b->model, b->run, layout, NULL, W, H);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  if (png)
    g_assert_cmpint (cairo_surface_write_to_png (s, png), ==, CAIRO_STATUS_SUCCESS);
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_ANIMATION, b->model, b->run, layout, NULL, W, H);
  const ViperViewSetup *vs = layout->setup;
  g_assert_cmpuint (viper_view_geometry_n_modules (g), ==, viper_view_setup_n_modules (vs));
  Probed pr = { 0 };
  for (guint i = 0; i < viper_view_setup_n_modules (vs); i++)
    {
      const ViperViewModule *mod = viper_view_setup_module_at (vs, i);
      double x, y, w, h;
      g_assert_true (viper_view_geometry_module_box (g, mod->id, &x, &y, &w, &h));
      /* the damage of the module repaints at least its whole box */
      ViperArea area = { .kind = VIPER_AREA_MODULE, .a = mod->id };
      cairo_rectangle_int_t r;
      g_assert_true (viper_view_area_rect (g, &area, &r));
      g_assert_cmpfloat (r.x, <=, x);
      g_assert_cmpfloat (r.y, <=, y);
      g_assert_cmpfloat (r.x + r.width, >=, x + w);
      g_assert_cmpfloat (r.y + r.height, >=, y + h);
      MacrameDevice d;
      macrame_model_device (b->model, mod->id, &d);
      MacrameSetupClass sc = macrame_device_setup_class (&d);
      if (g_str_equal (mod->repr, "switch"))
        {
          guint32 want = rgb (d.state == MACRAME_ERROR ? macrame_dynamic_color (MACRAME_ERROR) : macrame_setup_color (sc));
          g_assert_cmphex (test_pixel (s, x + 2.5, y + 2.5), ==, want);
          pr.switches++;
          continue;
        }
      if (d.tx_state == MACRAME_ERROR || d.rx_state == MACRAME_ERROR)
        {
          g_assert_cmphex (test_pixel (s, x + w / 2, y + h / 2), ==, 0xffffff);
          pr.crosses++;
          continue;
        }
      MacrameNodeGeometry ng;
      macrame_node_geometry (x, y, w, h, &ng);
      g_assert_cmphex (test_pixel (s, ng.base_x + ng.base_w / 2, ng.base_y + ng.base_h / 2), ==,
                       rgb (macrame_setup_color (sc)));
      pr.bases++;
      pr.classes[sc]++;
      double fill = ng.tx_h * CLAMP (d.tx_rate / (double) macrame_model_maxrate (b->model), 0.0, 1.0);
      if (fill >= 4 && ng.tx_w >= 3)
        {
          g_assert_cmphex (test_pixel (s, ng.tx_x + ng.tx_w / 2, ng.tx_y + ng.tx_h - 2.5), ==,
                           rgb (macrame_dynamic_color ((MacrameState) d.tx_state)));
          pr.meters++;
        }
    }
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  return pr;
}

static GArray *
all_devices (const ViperModel *m)
{
  GArray *ids = macrame_model_ids (m);
  GArray *devs = g_array_new (FALSE, FALSE, sizeof (MacrameDevice));
  for (guint i = 0; i < ids->len; i++)
    {
      MacrameDevice d;
      macrame_model_device (m, g_array_index (ids, gint64, i), &d);
      /* the kind follows the view setup; the states are what must stay */
      d.kind = 0;
      g_array_append_val (devs, d);
    }
  g_array_unref (ids);
  return devs;
}

static void
test_topology_then_hardware (void)
{
  char *topo = src_path ("setup", "mesh3x3-topology.view"), *hard = src_path ("setup", "mesh3x3-hardware.view");
  char *trace = src_path ("traces", "mesh3x3.trc");
  /* the clock at the end, to stop in the middle of the run */
  Bed end;
  bed_open (&end, topo, trace);
  g_assert_cmpint (bed_run (&end, NAN), ==, VIPER_STOP_END);
  double last = end.model->clock;
  bed_close (&end);

  Bed b;
  bed_open (&b, topo, trace);
  g_assert_cmpint (bed_run (&b, last / 2), ==, VIPER_STOP_BREAKPOINT);
  ViperLayout *layout = viper_layout_new ();
  layout->setup = macrame_model_view_setup (b.model);
  char *dir = g_dir_make_tmp ("viper-macrame-views-XXXXXX", NULL);
  char *png1 = g_build_filename (dir, "topology.png", NULL), *png2 = g_build_filename (dir, "hardware.png", NULL);
  Probed p1 = probe_view (&b, layout, png1);
  g_test_message ("topology: %u bases, %u meters, %u crosses, %u switches", p1.bases, p1.meters, p1.crosses,
                  p1.switches);
  g_assert_cmpuint (p1.switches, ==, 9);
  g_assert_cmpuint (p1.bases + p1.crosses, ==, 144);
  g_assert_cmpuint (p1.meters, >=, 10);
  /* the testbed has devices ready and devices never alive at this point */
  g_assert_cmpuint (p1.classes[MACRAME_SETUP_READY], >, 0);
  g_assert_cmpuint (p1.classes[MACRAME_SETUP_READY] + p1.classes[MACRAME_SETUP_READY_UNDEFINED], <, p1.bases);

  /* the space-time view: the file's rows, in its order */
  ViperViewGeometry *st = viper_view_geometry_new (VIPER_VIEW_SPACETIME, b.model, b.run, layout, NULL, W, H);
  g_assert_cmpuint (viper_view_geometry_n_modules (st), ==, layout->setup->spacetime->len);
  for (guint i = 0; i < layout->setup->spacetime->len; i++)
    g_assert_cmpint (viper_view_geometry_module (st, i), ==, g_array_index (layout->setup->spacetime, gint64, i));
  viper_view_geometry_free (st);

  /* Setup... mid-replay: the hardware view over the topology view */
  double clock = b.model->clock;
  guint64 applied = b.model->applied;
  GArray *before = all_devices (b.model);
  GError *error = NULL;
  ViperSetup *hs = b.p->setup_load (hard, &error);
  g_assert_no_error (error);
  macrame_model_set_view_setup (b.model, (const ViperViewSetup *) hs);
  b.p->setup_free (b.setup);
  b.setup = hs;
  layout->setup = macrame_model_view_setup (b.model);
  g_assert_cmpfloat (b.model->clock, ==, clock);
  g_assert_cmpuint (b.model->applied, ==, applied);
  GArray *after = all_devices (b.model);
  g_assert_cmpuint (after->len, ==, before->len);
  g_assert_cmpmem (before->data, before->len * sizeof (MacrameDevice), after->data, after->len * sizeof (MacrameDevice));
  Probed p2 = probe_view (&b, layout, png2);
  g_test_message ("hardware: %u bases, %u meters, %u crosses, %u switches", p2.bases, p2.meters, p2.crosses,
                  p2.switches);
  g_assert_cmpuint (p2.switches, ==, 9);
  g_assert_cmpuint (p2.bases + p2.crosses, ==, 144);
  /* the same states, so the same colours whatever the boxes */
  g_assert_cmpmem (p1.classes, sizeof p1.classes, p2.classes, sizeof p2.classes);
  /* and the replay goes on from there to the same end */
  g_assert_cmpint (bed_run (&b, NAN), ==, VIPER_STOP_END);
  g_assert_cmpfloat (b.model->clock, ==, last);
  if (g_getenv ("VIPER_KEEP_PNG"))
    g_test_message ("pictures in %s", dir);
  else
    {
      g_unlink (png1);
      g_unlink (png2);
      g_rmdir (dir);
    }
  g_array_unref (before);
  g_array_unref (after);
  viper_layout_free (layout);
  bed_close (&b);
  g_free (png1);
  g_free (png2);
  g_free (dir);
  g_free (topo);
  g_free (hard);
  g_free (trace);
}

/* The legend's swatches on the row through their middles, left to right:
 * 10 px squares of one colour (the texts' ink is never a square). */
static GArray *
legend_swatches (cairo_surface_t *s, int w, int y)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (int x = 0; x < w;)
    {
      guint32 c = test_pixel (s, x, y);
      int run = 1;
      while (x + run < w && test_pixel (s, x + run, y) == c)
        run++;
      gboolean square = c != 0xffffff && run >= 9 && run <= 11;
      for (int dy = -3; square && dy <= 3; dy++)
        square = test_pixel (s, x + run / 2, y + dy) == c;
      if (square)
        g_array_append_val (out, c);
      x += run;
    }
  return out;
}

/* The legend lists what is drawn, one swatch per colour (outside trial 3,
 * finding 5): "idle/ok" and "communicating" were two swatches of one green,
 * "overflow" and "error" two of one red, and the setup colours that fill
 * the switches and node bases (blue, grey, red, yellow, black) were not
 * there.  The animation: every colour of Tables 13 and 14, once each; the
 * space-time view (its bars are the dynamic states): those of Table 14. */
static void
test_legend (void)
{
  char *topo = src_path ("setup", "mesh3x3-topology.view"), *trace = src_path ("traces", "mesh3x3.trc");
  Bed b;
  bed_open (&b, topo, trace);
  g_assert_cmpint (bed_run (&b, NAN), ==, VIPER_STOP_END);
  ViperLayout *layout = viper_layout_new ();
  layout->setup = macrame_model_view_setup (b.model);
  GArray *setup_colours = g_array_new (FALSE, FALSE, sizeof (guint32));
  GArray *dynamic_colours = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (int c = MACRAME_SETUP_NONE; c <= MACRAME_SETUP_READY; c++)
    {
      guint32 v = rgb (macrame_setup_color ((MacrameSetupClass) c));
      g_array_append_val (setup_colours, v);
    }
  for (int st = 0; st < MACRAME_N_STATES; st++)
    {
      guint32 v = rgb (macrame_dynamic_color ((MacrameState) st));
      g_array_append_val (dynamic_colours, v);
    }
  /* the GUI's default animation pane, and a big one */
  static const struct { ViperViewKind kind; int w, h; } views[] = {
    { VIPER_VIEW_ANIMATION, 790, 380 }, { VIPER_VIEW_ANIMATION, W, H }, { VIPER_VIEW_SPACETIME, 730, 270 },
  };
  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      int w = views[v].w, h = views[v].h;
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
      cairo_t *cr = cairo_create (s);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      viper_view_draw (views[v].kind, cr, b.model, b.run, layout, NULL, w, h);
      cairo_destroy (cr);
      cairo_surface_flush (s);
      if (g_getenv ("VIPER_KEEP_PNG"))
        {
          char *png = g_strdup_printf ("%s/macrame-legend-%u.png", g_get_tmp_dir (), v);
          cairo_surface_write_to_png (s, png);
          g_test_message ("legend picture %s", png);
          g_free (png);
        }
      gboolean anim = views[v].kind == VIPER_VIEW_ANIMATION;
      /* swatches from baseline - 9 to baseline + 1: the animation's baseline is
       * 8 px above the bottom, the space-time view's 6 */
      GArray *sw = legend_swatches (s, w, anim ? h - 12 : h - 10);
      GString *seen = g_string_new (NULL);
      for (guint i = 0; i < sw->len; i++)
        g_string_append_printf (seen, " %06x", g_array_index (sw, guint32, i));
      g_test_message ("%s %dx%d legend:%s", anim ? "animation" : "space-time", w, h, seen->str);
      /* each colour once */
      for (guint i = 0; i < sw->len; i++)
        for (guint j = i + 1; j < sw->len; j++)
          if (g_array_index (sw, guint32, i) == g_array_index (sw, guint32, j))
            g_error ("the %s legend has two swatches of %06x:%s", anim ? "animation" : "space-time",
                     g_array_index (sw, guint32, i), seen->str);
      /* every colour the view draws is there */
      for (guint set = 0; set < (anim ? 2u : 1u); set++)
        {
          GArray *want = set ? setup_colours : dynamic_colours;
          for (guint i = 0; i < want->len; i++)
            {
              gboolean found = FALSE;
              for (guint j = 0; j < sw->len && !found; j++)
                found = g_array_index (sw, guint32, j) == g_array_index (want, guint32, i);
              if (!found)
                g_error ("the %s legend at %dx%d has no swatch of %06x (a %s colour):%s", anim ? "animation" : "space-time",
                         w, h, g_array_index (want, guint32, i), set ? "setup" : "dynamic", seen->str);
            }
        }
      if (!anim)
        g_assert_cmpuint (sw->len, ==, 4);   /* the setup colours are not drawn there */
      g_string_free (seen, TRUE);
      g_array_unref (sw);
      cairo_surface_destroy (s);
    }
  g_array_unref (setup_colours);
  g_array_unref (dynamic_colours);
  viper_layout_free (layout);
  bed_close (&b);
  g_free (topo);
  g_free (trace);
}

/* A narrow variables view (the window at its smallest): a device's line
 * that does not fit ends in an ellipsis inside its block, not cut by the
 * block's edge ("rx communic", outside trial 3, finding 7).  No text ink
 * in the block's last columns, on the header and the activity line. */
static gboolean
dark_ink (guint32 c)
{
  return ((c >> 16) & 0xff) < 0x90 && ((c >> 8) & 0xff) < 0x90 && (c & 0xff) < 0x90;
}

static void
test_variables_cut (void)
{
  char *topo = src_path ("setup", "mesh3x3-topology.view"), *trace = src_path ("traces", "mesh3x3.trc");
  Bed b;
  bed_open (&b, topo, trace);
  g_assert_cmpint (bed_run (&b, NAN), ==, VIPER_STOP_END);
  ViperLayout *layout = viper_layout_new ();
  layout->setup = macrame_model_view_setup (b.model);
  const int w = 250, h = 3000;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (VIPER_VIEW_VARIABLES, cr, b.model, b.run, layout, NULL, w, h);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  if (g_getenv ("VIPER_KEEP_PNG"))
    {
      char *png = g_build_filename (g_get_tmp_dir (), "macrame-variables-narrow.png", NULL);
      cairo_surface_write_to_png (s, png);
      g_test_message ("picture %s", png);
      g_free (png);
    }
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_VARIABLES, b.model, b.run, layout, NULL, w, h);
  guint checked = 0, long_lines = 0;
  for (guint i = 0; i < viper_view_geometry_n_modules (g); i++)
    {
      gint64 id = viper_view_geometry_module (g, i);
      ViperArea area = { .kind = VIPER_AREA_MODULE, .a = id };
      cairo_rectangle_int_t r;
      if (!viper_view_area_rect (g, &area, &r) || r.y + r.height > h - 1)
        continue;
      checked++;
      /* the block's last 5 columns inside its frame, over its text rows */
      for (int y = r.y + 2; y < r.y + r.height - 1; y++)
        for (int x = r.x + r.width - 6; x < r.x + r.width - 1; x++)
          if (dark_ink (test_pixel (s, x, y)))
            g_error ("module %" G_GINT64_FORMAT ": text reaches its block's edge at (%d, %d): cut, not ellipsized",
                     id, x, y);
      char *act = macrame_renderer.module_activity (b.model, id);
      cairo_surface_t *m = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1, 1);
      cairo_t *mc = cairo_create (m);
      cairo_select_font_face (mc, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
      cairo_set_font_size (mc, 11);
      cairo_text_extents_t e;
      cairo_text_extents (mc, act, &e);
      long_lines += e.x_advance > r.width - 18;
      cairo_destroy (mc);
      cairo_surface_destroy (m);
      g_free (act);
    }
  g_test_message ("%u blocks checked, %u with a line longer than the block", checked, long_lines);
  g_assert_cmpuint (checked, >=, 20);
  g_assert_cmpuint (long_lines, >=, 5);   /* the case in point is there */
  viper_view_geometry_free (g);
  cairo_surface_destroy (s);
  viper_layout_free (layout);
  bed_close (&b);
  g_free (topo);
  g_free (trace);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/macrame-views/topology-then-hardware", test_topology_then_hardware);
  g_test_add_func ("/macrame-views/legend", test_legend);
  g_test_add_func ("/macrame-views/variables-cut", test_variables_cut);
  return g_test_run ();
}
