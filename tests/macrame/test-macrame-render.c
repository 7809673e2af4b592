/* test-macrame-render.c - the colours and shapes of spec section 3 (Tables 13
 * and 14), checked by rendering to PNG and probing pixels.
 *
 * Every case builds a device state by applying trams to a real model, draws
 * through the public renderers (macrame_render_view_to_png, the same path the
 * GUI takes), reads the PNG back and looks at points whose colour the spec
 * fixes: a node's base (setup colour), the inside of its meters below and
 * above the rate line (dynamic colour, background), a point of the white
 * cross, a switch's corner (setup colour, red on error).
 */
#include <string.h>
#include <glib/gstdio.h>
#include "core/run.h"
#include "core/tramparse.h"
#include "paradigms/paradigms.h"
#include "paradigms/macrame/macrame-render.h"

#define W 400
#define H 300
/* the view space is the picture: scale 1, no offset */
#define SETUP \
  "paradigm macrame\nmaxrate 100\nsize 400 300\n" \
  "module 0 switch 20 20 160 60 SW\n" \
  "module 1 node 220 20 100 160\n" \
  "rect 10 200 60 40 fill 0x123456\n"

typedef struct {
  ViperTramPool *pool;
  ViperTramFields *fields;
  ViperViewSetup *vs;
  ViperModel *model;
  ViperRun *run;
  cairo_surface_t *png;
  char *dir;
} Fx;

static void
fx_init (Fx *fx)
{
  memset (fx, 0, sizeof *fx);
  viper_paradigms_register_all ();
  fx->pool = viper_tram_pool_new ();
  fx->fields = viper_tram_fields_new ();
  GError *error = NULL;
  fx->vs = viper_view_setup_parse (SETUP, strlen (SETUP), "render.view", &error);
  g_assert_no_error (error);
  fx->model = viper_macrame_paradigm.model_new (&viper_macrame_paradigm, (ViperSetup *) fx->vs);
  fx->run = viper_run_new (&viper_macrame_paradigm, fx->model, fx->pool, NULL, NULL, 0.5);
  fx->dir = g_dir_make_tmp ("macrame-render-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fx_clear (Fx *fx)
{
  if (fx->png)
    cairo_surface_destroy (fx->png);
  viper_run_free (fx->run);
  viper_model_free (fx->model);
  viper_view_setup_free (fx->vs);
  viper_tram_pool_free (fx->pool);
  viper_tram_fields_free (fx->fields);
  char *path = g_build_filename (fx->dir, "view.png", NULL);
  g_unlink (path);
  g_free (path);
  g_rmdir (fx->dir);
  g_free (fx->dir);
}

static void
feed (Fx *fx, const char *line)
{
  ViperLineKind kind;
  ViperParseError err;
  ViperTram *t = viper_tram_parse (fx->pool, fx->fields, line, strlen (line), &kind, &err);
  g_assert_nonnull (t);
  g_assert_true (viper_run_insert (fx->run, t));
  const ViperTram *out;
  while ((out = viper_run_transfer_next (fx->run)))
    viper_model_apply (fx->model, out);
}

/* Render to a PNG file and read it back. */
static void
render (Fx *fx)
{
  char *path = g_build_filename (fx->dir, "view.png", NULL);
  GError *error = NULL;
  g_assert_true (macrame_render_view_to_png (fx->model, fx->vs, path, W, H, &error));
  g_assert_no_error (error);
  if (fx->png)
    cairo_surface_destroy (fx->png);
  fx->png = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (fx->png), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (fx->png), ==, W);
  g_free (path);
}

static void
assert_pixel (Fx *fx, double x, double y, ViperColor want, const char *what)
{
  cairo_surface_flush (fx->png);
  const guint8 *data = cairo_image_surface_get_data (fx->png);
  int stride = cairo_image_surface_get_stride (fx->png);
  guint32 px = *(const guint32 *) (data + (int) y * stride + (int) x * 4);
  int r = (px >> 16) & 0xff, g = (px >> 8) & 0xff, b = px & 0xff;
  int wr = (int) (want.r * 255 + 0.5), wg = (int) (want.g * 255 + 0.5), wb = (int) (want.b * 255 + 0.5);
  if (ABS (r - wr) > 2 || ABS (g - wg) > 2 || ABS (b - wb) > 2)
    g_error ("%s at (%g, %g): got %d,%d,%d, want %d,%d,%d", what, x, y, r, g, b, wr, wg, wb);
}

static const ViperColor BLACK = { 0, 0, 0 }, RED = { 1, 0, 0 }, YELLOW = { 1, 1, 0 }, GREY = { 0.5, 0.5, 0.5 },
                        BLUE = { 0, 0, 1 }, GREEN = { 0, 0.8, 0 }, WHITE = { 1, 1, 1 };

static MacrameNodeGeometry
node_geo (void)
{
  MacrameNodeGeometry g;
  macrame_node_geometry (220, 20, 100, 160, &g);
  return g;
}

/* a point in the node's base, away from the cross's diagonals */
static void
base_point (double *x, double *y)
{
  MacrameNodeGeometry g = node_geo ();
  *x = g.base_x + g.base_w / 2;
  *y = g.base_y + g.base_h / 2;
}

/* a point in the switch's rectangle, away from its label */
#define SW_X 24
#define SW_Y 24

static void
test_table13 (void)
{
  Fx fx;
  fx_init (&fx);
  double bx, by;
  base_point (&bx, &by);
  render (&fx);
  assert_pixel (&fx, bx, by, BLACK, "node not A, not B");
  assert_pixel (&fx, SW_X, SW_Y, BLACK, "switch not A, not B");
  assert_pixel (&fx, 5, 5, WHITE, "background");
  assert_pixel (&fx, 40, 220, (ViperColor) { 0x12 / 255.0, 0x34 / 255.0, 0x56 / 255.0 }, "layout rect fill");
  feed (&fx, "2 31 1 1 0 1 2 1");
  feed (&fx, "2 31 1 0 0 1 2 1");
  render (&fx);
  assert_pixel (&fx, bx, by, RED, "node not A, B");
  assert_pixel (&fx, SW_X, SW_Y, RED, "switch not A, B");
  fx_clear (&fx);

  fx_init (&fx);
  feed (&fx, "2 30 1 1 0 1 2 1");
  feed (&fx, "2 30 1 0 0 1 2 1");
  render (&fx);
  assert_pixel (&fx, bx, by, YELLOW, "node A, not B");
  assert_pixel (&fx, SW_X, SW_Y, YELLOW, "switch A, not B");
  feed (&fx, "2 31 1 1 0 1 2 2");
  feed (&fx, "2 31 1 0 0 1 2 2");
  render (&fx);
  assert_pixel (&fx, bx, by, GREY, "node A, B, undefined");
  assert_pixel (&fx, SW_X, SW_Y, GREY, "switch A, B, undefined");
  feed (&fx, "2 32 1 1 0 5 2 3 0 0 5 0");
  feed (&fx, "2 33 1 0 0 2 2 3 0");
  render (&fx);
  assert_pixel (&fx, bx, by, BLUE, "node A, B, defined");
  assert_pixel (&fx, SW_X, SW_Y, BLUE, "switch A, B, defined");
  /* the switch's dynamic states other than error leave the setup colour */
  feed (&fx, "2 33 1 0 0 2 2 4 2");
  render (&fx);
  assert_pixel (&fx, SW_X, SW_Y, BLUE, "switch congested");
  feed (&fx, "2 33 1 0 0 2 2 5 4");
  render (&fx);
  assert_pixel (&fx, SW_X, SW_Y, RED, "switch in error (dynamic colour)");
  fx_clear (&fx);
}

/* Table 14 in both meters: full rate, the whole meter in the state's colour. */
static void
test_table14 (void)
{
  static const struct {
    MacrameState s;
    ViperColor c;
  } rows[] = {
    { MACRAME_UNDEFINED, { 0, 0, 0 } }, { MACRAME_IDLE, { 0, 0.8, 0 } }, { MACRAME_COMMUNICATING, { 0, 0.8, 0 } },
    { MACRAME_CONGESTED, { 1, 1, 0 } }, { MACRAME_OVERFLOW, { 1, 0, 0 } }, { MACRAME_ERROR, { 1, 0, 0 } },
  };
  MacrameNodeGeometry g = node_geo ();
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      Fx fx;
      fx_init (&fx);
      char line[128];
      /* the receiver is never congested or overflow: those rows only on the transmitter */
      gboolean rx_ok = rows[i].s != MACRAME_CONGESTED && rows[i].s != MACRAME_OVERFLOW;
      g_snprintf (line, sizeof line, "2 32 1 1 0 5 2 1 %d 100 %d 100", rows[i].s, rx_ok ? rows[i].s : 1);
      feed (&fx, line);
      render (&fx);
      char *what = g_strdup_printf ("transmitter %s", macrame_state_name (rows[i].s));
      /* near the top of the meter (the cross of the error row runs across the middle) */
      assert_pixel (&fx, g.tx_x + g.tx_w - 3, g.tx_y + 3, rows[i].c, what);
      g_free (what);
      if (rx_ok)
        {
          what = g_strdup_printf ("receiver %s", macrame_state_name (rows[i].s));
          assert_pixel (&fx, g.rx_x + 3, g.rx_y + 3, rows[i].c, what);
          g_free (what);
        }
      ViperColor c = macrame_dynamic_color (rows[i].s);
      g_assert_true (c.r == rows[i].c.r && c.g == rows[i].c.g && c.b == rows[i].c.b);
      fx_clear (&fx);
    }
}

static void
test_meter_height (void)
{
  Fx fx;
  fx_init (&fx);
  MacrameNodeGeometry g = node_geo ();
  feed (&fx, "2 32 1 1 0 5 2 1 2 25 1 75");
  render (&fx);
  double tx = g.tx_x + g.tx_w / 2, rx = g.rx_x + g.rx_w / 2;
  /* transmitter 25 %: yellow in the lowest quarter, background above */
  assert_pixel (&fx, tx, g.tx_y + g.tx_h * 0.85, YELLOW, "transmitter below its rate");
  assert_pixel (&fx, tx, g.tx_y + g.tx_h * 0.65, WHITE, "transmitter above its rate (transparent)");
  /* receiver 75 % */
  assert_pixel (&fx, rx, g.rx_y + g.rx_h * 0.35, GREEN, "receiver below its rate");
  assert_pixel (&fx, rx, g.rx_y + g.rx_h * 0.15, WHITE, "receiver above its rate (transparent)");
  /* rate 0: nothing filled */
  feed (&fx, "2 32 1 1 0 5 2 2 2 0 1 0");
  render (&fx);
  assert_pixel (&fx, tx, g.tx_y + g.tx_h * 0.9, WHITE, "transmitter at rate 0");
  /* the meter follows MAXRATE: 50 of 100 fills half */
  feed (&fx, "2 32 1 1 0 5 2 3 2 50 1 0");
  render (&fx);
  assert_pixel (&fx, tx, g.tx_y + g.tx_h * 0.55, YELLOW, "transmitter at half, just below");
  assert_pixel (&fx, tx, g.tx_y + g.tx_h * 0.45, WHITE, "transmitter at half, just above");
  fx_clear (&fx);
}

static void
test_cross (void)
{
  Fx fx;
  fx_init (&fx);
  feed (&fx, "2 30 1 1 0 1 2 1");
  feed (&fx, "2 31 1 1 0 1 2 2");
  /* a point on the diagonal inside the base: setup colour until the node is in error */
  double px = 220 + 100 * 0.85, py = 20 + 160 * 0.85;
  feed (&fx, "2 32 1 1 0 5 2 3 1 50 1 50");
  render (&fx);
  assert_pixel (&fx, px, py, BLUE, "base on the diagonal, no error");
  feed (&fx, "2 32 1 1 0 5 2 4 4 0 1 50");
  render (&fx);
  assert_pixel (&fx, px, py, WHITE, "white cross (transmitter in error)");
  assert_pixel (&fx, 220 + 100 * 0.15, 20 + 160 * 0.85, WHITE, "white cross, other diagonal");
  feed (&fx, "2 32 1 1 0 5 2 5 1 50 4 0");
  render (&fx);
  assert_pixel (&fx, px, py, WHITE, "white cross (receiver in error)");
  feed (&fx, "2 32 1 1 0 5 2 6 1 50 1 50");
  render (&fx);
  assert_pixel (&fx, px, py, BLUE, "repaired: no cross");
  fx_clear (&fx);
}

static void
test_spacetime (void)
{
  Fx fx;
  fx_init (&fx);
  viper_model_set_history (fx.model, 0);
  feed (&fx, "2 32 0 1 0 5 2 1 1 50 1 50");
  feed (&fx, "2 32 50 1 0 5 2 2 2 50 1 50");
  feed (&fx, "2 32 100 1 0 5 2 3 3 50 1 50");
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 100, 10);
  cairo_t *cr = cairo_create (s);
  macrame_draw_spacetime (cr, fx.model, fx.vs, 100, 10);
  cairo_destroy (cr);
  if (fx.png)
    cairo_surface_destroy (fx.png);
  fx.png = s;
  assert_pixel (&fx, 25, 3, GREEN, "communicating in the first half");
  assert_pixel (&fx, 75, 3, YELLOW, "congested in the second half");
  fx_clear (&fx);
}

/* macrame_outline_rect fills exactly the pixels a 1-wide stroke of the
 * rectangle covers, wherever it lies between pixels and however thin
 * (meters of small nodes are under a pixel wide, or of negative width). */
static void
test_outline (void)
{
  static const double sizes[] = { 7.3, 3.0, 1.6, 1.0, 0.7, 0.2, -0.4, -2.5, 24.75 };
  guint cases = 0;
  for (int ox = 0; ox < 4; ox++)
    for (int oy = 0; oy < 3; oy++)
      for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
        for (guint j = 0; j < G_N_ELEMENTS (sizes); j++)
          {
            double x = 6 + ox * 0.27, y = 5 + oy * 0.41, w = sizes[i], h = sizes[j];
            cairo_surface_t *a = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 40, 40);
            cairo_surface_t *b = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 40, 40);
            cairo_t *ca = cairo_create (a), *cb = cairo_create (b);
            cairo_set_source_rgb (ca, 1, 1, 1);
            cairo_paint (ca);
            cairo_set_source_rgb (cb, 1, 1, 1);
            cairo_paint (cb);
            cairo_set_source_rgb (ca, 0, 0, 0);
            cairo_set_source_rgb (cb, 0, 0, 0);
            cairo_set_line_width (ca, 1.0);
            cairo_rectangle (ca, x, y, w, h);
            cairo_stroke (ca);
            macrame_outline_rect (cb, x, y, w, h);
            cairo_destroy (ca);
            cairo_destroy (cb);
            cairo_surface_flush (a);
            cairo_surface_flush (b);
            const guint8 *pa = cairo_image_surface_get_data (a), *pb = cairo_image_surface_get_data (b);
            int sa = cairo_image_surface_get_stride (a), sb = cairo_image_surface_get_stride (b);
            gboolean inked = FALSE;
            for (int row = 0; row < 40; row++)
              {
                if (memcmp (pa + row * sa, pb + row * sb, 40 * 4) != 0)
                  g_error ("outline of (%g, %g, %g, %g): row %d differs from the stroke", x, y, w, h, row);
                for (int c = 0; c < 40; c++)
                  inked |= ((const guint32 *) (gconstpointer) (pb + row * sb))[c] != 0xffffffffu;
              }
            g_assert_true (inked);
            cairo_surface_destroy (a);
            cairo_surface_destroy (b);
            cases++;
          }
  g_assert_cmpuint (cases, ==, 4 * 3 * 81);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/macrame/render/table13", test_table13);
  g_test_add_func ("/macrame/render/table14", test_table14);
  g_test_add_func ("/macrame/render/meter-height", test_meter_height);
  g_test_add_func ("/macrame/render/cross", test_cross);
  g_test_add_func ("/macrame/render/outline", test_outline);
  g_test_add_func ("/macrame/render/spacetime", test_spacetime);
  return g_test_run ();
}
