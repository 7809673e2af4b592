/* test-macrame-viewsetup.c - the view setup file reader (docs/view-setup.md):
 * a file using every keyword read back field by field, defaults, every error
 * message exactly, the paradigm's own checks (macrame), the bundled files,
 * and the default circle layout. */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "paradigms/viewsetup.h"
#include "paradigms/macrame/macrame.h"

static ViperViewSetup *
parse (const char *text, GError **error)
{
  return viper_view_setup_parse (text, strlen (text), "v.view", error);
}

static void
test_good (void)
{
  const char *text =
    "# a comment line\n"
    "\n"
    "paradigm macrame   # trailing comment\n"
    "maxrate 250\n"
    "size 640 480.5\n"
    "module 7 switch 10 20 80 40 C104 (0,1)\n"
    "module 3 node 1.5 -2 20e0 30\n"
    "line 0 0 640 480\n"
    "rect 5 6 7 8\n"
    "rect 1 2 3 4 fill 0xff8000\n"
    "rect 1 2 3 4 fill Beige\n"
    "text 100 200   Crate  0   \n"
    "spacetime 3 7\n"
    "spacetime 12\r\n";
  GError *error = NULL;
  ViperViewSetup *vs = parse (text, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (vs->paradigm, ==, "macrame");
  g_assert_cmpuint (vs->paradigm_line, ==, 3);
  g_assert_cmpuint (vs->paradigm_col, ==, 10);
  g_assert_cmpint (vs->maxrate, ==, 250);
  g_assert_true (vs->has_maxrate);
  g_assert_cmpfloat (vs->width, ==, 640);
  g_assert_cmpfloat (vs->height, ==, 480.5);
  g_assert_cmpuint (viper_view_setup_n_modules (vs), ==, 2);
  const ViperViewModule *m = viper_view_setup_module_at (vs, 0);
  g_assert_cmpint (m->id, ==, 7);
  g_assert_cmpstr (m->repr, ==, "switch");
  g_assert_cmpfloat (m->x, ==, 10);
  g_assert_cmpfloat (m->y, ==, 20);
  g_assert_cmpfloat (m->w, ==, 80);
  g_assert_cmpfloat (m->h, ==, 40);
  g_assert_cmpstr (m->label, ==, "C104 (0,1)");
  g_assert_cmpuint (m->line, ==, 6);
  g_assert_cmpuint (m->repr_col, ==, 10);
  m = viper_view_setup_module (vs, 3);
  g_assert_nonnull (m);
  g_assert_cmpstr (m->repr, ==, "node");
  g_assert_cmpfloat (m->x, ==, 1.5);
  g_assert_cmpfloat (m->y, ==, -2);
  g_assert_null (m->label);
  g_assert_null (viper_view_setup_module (vs, 4));
  g_assert_cmpuint (vs->elements->len, ==, 5);
  const ViperViewElement *e = &g_array_index (vs->elements, ViperViewElement, 0);
  g_assert_cmpint (e->kind, ==, VIPER_VIEW_ELEMENT_LINE);
  g_assert_cmpfloat (e->x2, ==, 640);
  g_assert_cmpfloat (e->y2, ==, 480);
  e = &g_array_index (vs->elements, ViperViewElement, 1);
  g_assert_cmpint (e->kind, ==, VIPER_VIEW_ELEMENT_RECT);
  g_assert_false (e->filled);
  g_assert_cmpfloat (e->x2, ==, 12);
  g_assert_cmpfloat (e->y2, ==, 14);
  e = &g_array_index (vs->elements, ViperViewElement, 2);
  g_assert_true (e->filled);
  g_assert_cmpfloat (e->fill.r, ==, 1);
  g_assert_cmpfloat (e->fill.g, ==, 128 / 255.0);
  g_assert_cmpfloat (e->fill.b, ==, 0);
  e = &g_array_index (vs->elements, ViperViewElement, 4);
  g_assert_cmpint (e->kind, ==, VIPER_VIEW_ELEMENT_TEXT);
  g_assert_cmpstr (e->text, ==, "Crate  0");
  g_assert_cmpuint (vs->spacetime->len, ==, 3);
  g_assert_cmpint (g_array_index (vs->spacetime, gint64, 0), ==, 3);
  g_assert_cmpint (g_array_index (vs->spacetime, gint64, 2), ==, 12);
  viper_view_setup_free (vs);
}

static void
test_defaults (void)
{
  GError *error = NULL;
  ViperViewSetup *vs = parse ("", &error);
  g_assert_no_error (error);
  g_assert_null (vs->paradigm);
  g_assert_cmpint (vs->maxrate, ==, 100);
  g_assert_false (vs->has_maxrate);
  g_assert_cmpfloat (vs->width, ==, 1000);
  g_assert_cmpuint (vs->modules->len, ==, 0);
  g_assert_cmpuint (vs->spacetime->len, ==, 0);
  viper_view_setup_free (vs);
  /* no final newline */
  vs = parse ("module 1 circle 0 0 1 1", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (vs->modules->len, ==, 1);
  viper_view_setup_free (vs);
}

static void
test_errors (void)
{
  static const struct {
    const char *text, *msg;
  } cases[] = {
    { "bogus 1 2\n", "v.view:1:1: expected a keyword (paradigm, maxrate, size, module, line, rect, text, spacetime, topology, link, route, range), got 'bogus'" },
    { "paradigm\n", "v.view:1:9: expected a paradigm name" },
    { "paradigm 9x\n", "v.view:1:10: expected a paradigm name" },
    { "paradigm a b\n", "v.view:1:12: expected end of line after the paradigm name" },
    { "paradigm a\n\nparadigm b\n", "v.view:3:1: expected one paradigm line (the first is line 1)" },
    { "maxrate 0\n", "v.view:1:9: expected a positive integer MAXRATE" },
    { "maxrate x\n", "v.view:1:9: expected a positive integer MAXRATE" },
    { "maxrate\n", "v.view:1:8: expected a positive integer MAXRATE" },
    { "maxrate 5 6\n", "v.view:1:11: expected end of line after MAXRATE" },
    { "maxrate 5\nmaxrate 6\n", "v.view:2:1: expected one maxrate line" },
    { "size 10\n", "v.view:1:8: expected a positive width and height" },
    { "size 10 -1\n", "v.view:1:9: expected a positive width and height" },
    { "size 10 10 10\n", "v.view:1:12: expected end of line after the size" },
    { "module\n", "v.view:1:7: expected a module id (an integer >= 0)" },
    { "module -1 node 0 0 1 1\n", "v.view:1:8: expected a module id (an integer >= 0)" },
    { "module 1\n", "v.view:1:9: expected a representation (node, switch, circle, ...)" },
    { "module 1 2 0 0 1 1\n", "v.view:1:10: expected a representation (node, switch, circle, ...)" },
    { "module 1 node 0 0 1\n", "v.view:1:20: expected X Y W H (numbers) after the representation" },
    { "module 1 node 0 zero 1 1\n", "v.view:1:17: expected X Y W H (numbers) after the representation" },
    { "module 1 node 0 0 inf 1\n", "v.view:1:19: expected X Y W H (numbers) after the representation" },
    { "module 1 node 0 0 0x10 1\n", "v.view:1:19: expected X Y W H (numbers) after the representation" },
    { "module 1 node 0 0 0 1\n", "v.view:1:19: expected a positive width and height" },
    { "# x\nmodule 1 node 0 0 1 1\nmodule 1 switch 0 0 1 1\n",
      "v.view:3:8: expected each module once: module 1 is already at line 2" },
    { "line 0 0 1\n", "v.view:1:11: expected X1 Y1 X2 Y2 (numbers)" },
    { "line 0 0 1 1 1\n", "v.view:1:14: expected end of line after X1 Y1 X2 Y2" },
    { "rect 0 0 1\n", "v.view:1:11: expected X Y W H (numbers)" },
    { "rect 0 0 1 -1\n", "v.view:1:12: expected a positive width and height" },
    { "rect 0 0 1 1 red\n", "v.view:1:14: expected 'fill COLOUR' or end of line, got 'red'" },
    { "rect 0 0 1 1 fill\n", "v.view:1:18: expected a colour (a name or 0xRRGGBB) after fill" },
    { "rect 0 0 1 1 fill mauve\n", "v.view:1:19: expected a colour (a name or 0xRRGGBB), got 'mauve'" },
    { "rect 0 0 1 1 fill 0xfff\n", "v.view:1:19: expected a colour (a name or 0xRRGGBB), got '0xfff'" },
    { "rect 0 0 1 1 fill red blue\n", "v.view:1:23: expected end of line after the colour" },
    { "text 1\n", "v.view:1:7: expected X Y (numbers) and a text" },
    { "text 1 2\n", "v.view:1:9: expected a text after X Y" },
    { "text 1 2   # only a comment\n", "v.view:1:12: expected a text after X Y" },
    { "spacetime\n", "v.view:1:10: expected module ids after spacetime" },
    { "spacetime 1 x\n", "v.view:1:13: expected a module id (an integer >= 0), got 'x'" },
    { "spacetime 1 2\nspacetime 3 2\n", "v.view:2:13: expected each space-time module once: 2 is already at line 1" },
    /* columns are bytes + 1 as in the trace reader's messages: a tab is one, a missing word is
     * reported just after the line's last byte before a comment or a \r\n end */
    { "size\t10\tx\n", "v.view:1:9: expected a positive width and height" },
    { "size 10\r\n", "v.view:1:8: expected a positive width and height" },
    { "size -5 10\n", "v.view:1:6: expected a positive width and height" },
    { "maxrate   # none\n", "v.view:1:11: expected a positive integer MAXRATE" },
    { "module 3 node 10 20 abc 40 label\n", "v.view:1:21: expected X Y W H (numbers) after the representation" },
    { "module 3 node 10 20 30 -1 label\n", "v.view:1:24: expected a positive width and height" },
    { "line 0 0 1 1\textra\n", "v.view:1:14: expected end of line after X1 Y1 X2 Y2" },
    { "paradigm a\n   paradigm b\n", "v.view:2:4: expected one paradigm line (the first is line 1)" },
    { "module 5 node 0 0 1 1\n\t module 5 node 0 0 1 1\n",
      "v.view:2:10: expected each module once: module 5 is already at line 1" },
    { "rect 0 0 1 1 fill red   blue # x\n", "v.view:1:25: expected end of line after the colour" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      ViperViewSetup *vs = parse (cases[i].text, &error);
      g_assert_null (vs);
      g_assert_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_SYNTAX);
      if (!g_str_equal (error->message, cases[i].msg))
        g_error ("case %u (%s): got '%s', want '%s'", i, cases[i].text, error->message, cases[i].msg);
      g_error_free (error);
    }
  /* a NUL byte in a line */
  GError *error = NULL;
  g_assert_null (viper_view_setup_parse ("size 1 1\nmod\0e\n", 15, "v.view", &error));
  g_assert_cmpstr (error->message, ==, "v.view:2:4: expected text (the line holds a NUL byte)");
  g_clear_error (&error);
  /* a file that cannot be read */
  g_assert_null (viper_view_setup_load ("/nonexistent/x.view", &error));
  g_assert_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_READ);
  g_clear_error (&error);
}

static char *
write_tmp (const char *text)
{
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("macrame-XXXXXX.view", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_macrame_setup (void)
{
  static const struct {
    const char *text, *msg;
  } cases[] = {
    { "# x\nparadigm monalisa\n", ":2:10: expected paradigm macrame, got monalisa" },
    { "# x\n  paradigm\tmonalisa # y\n", ":2:12: expected paradigm macrame, got monalisa" },
    { "module 0 switch 0 0 1 1\nmodule 1 circle 0 0 1 1\n", ":2:10: expected representation node or switch, got circle" },
    { "module 0 switch 0 0 1 1\nmodule  12\tcircle 0 0 1 1\n",
      ":2:12: expected representation node or switch, got circle" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *path = write_tmp (cases[i].text);
      GError *error = NULL;
      g_assert_null (macrame_setup_load (path, &error));
      char *want = g_strconcat (path, cases[i].msg, NULL);
      g_assert_cmpstr (error->message, ==, want);
      g_free (want);
      g_clear_error (&error);
      g_unlink (path);
      g_free (path);
    }
  /* no paradigm line is fine */
  char *path = write_tmp ("module 0 node 0 0 1 1\n");
  GError *error = NULL;
  ViperSetup *s = macrame_setup_load (path, &error);
  g_assert_no_error (error);
  macrame_setup_free (s);
  g_unlink (path);
  g_free (path);
}

/* The bundled view setup files read, and describe the testbeds of spec section 5. */
static void
test_bundled (void)
{
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  if (!root)
    {
      g_test_skip ("VIPER_SOURCE_ROOT not set");
      return;
    }
  static const struct {
    const char *file;
    guint mesh;
  } files[] = { { "mesh3x3-topology.view", 3 }, { "mesh3x3-hardware.view", 3 }, { "mesh8x8.view", 8 } };
  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      char *path = g_build_filename (root, "setup", files[f].file, NULL);
      GError *error = NULL;
      ViperViewSetup *vs = (ViperViewSetup *) macrame_setup_load (path, &error);
      g_assert_no_error (error);
      guint R = files[f].mesh, switches = 0, nodes = 0;
      for (guint i = 0; i < vs->modules->len; i++)
        {
          const ViperViewModule *m = viper_view_setup_module_at (vs, i);
          gboolean sw = g_str_equal (m->repr, "switch");
          switches += sw;
          nodes += !sw;
          /* the spec's numbering */
          g_assert_true (sw ? m->id < R * R : (m->id >= R * R && m->id < R * R * 17));
          g_assert_true (m->x >= 0 && m->y >= 0 && m->x + m->w <= vs->width && m->y + m->h <= vs->height);
        }
      g_assert_cmpuint (switches, ==, R * R);
      g_assert_cmpuint (nodes, ==, 16 * R * R);
      g_assert_cmpuint (vs->spacetime->len, >, 0);
      if (strstr (files[f].file, "hardware"))
        g_assert_cmpuint (vs->elements->len, >=, R + R * R * 2);   /* crates, slots, boards */
      macrame_setup_free ((ViperSetup *) vs);
      g_free (path);
    }
  char *path = g_build_filename (root, "setup", "farm.view", NULL);
  GError *error = NULL;
  ViperViewSetup *vs = viper_view_setup_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (vs->paradigm, ==, "monalisa");
  g_assert_cmpuint (vs->modules->len, ==, 5);
  const ViperViewModule *master = viper_view_setup_module (vs, 0);
  g_assert_cmpfloat (master->x + master->w / 2, ==, vs->width / 2);
  g_assert_cmpfloat (master->y + master->h / 2, ==, vs->height / 2);
  viper_view_setup_free (vs);
  g_free (path);
}

static void
test_circle (void)
{
  gint64 ids[] = { 4, 9, 2, 9 };
  ViperViewSetup *vs = viper_view_setup_new_circle (ids, 4, "circle");
  g_assert_cmpuint (vs->modules->len, ==, 3);
  const ViperViewModule *first = viper_view_setup_module_at (vs, 0);
  g_assert_cmpint (first->id, ==, 4);
  /* the first one on top, in the middle */
  g_assert_cmpfloat (fabs (first->x + first->w / 2 - vs->width / 2), <, 1e-9);
  g_assert_cmpfloat (first->y, <, vs->height / 4);
  for (guint i = 0; i < vs->modules->len; i++)
    {
      const ViperViewModule *m = viper_view_setup_module_at (vs, i);
      g_assert_cmpstr (m->repr, ==, "circle");
      g_assert_true (m->x >= 0 && m->x + m->w <= vs->width);
    }
  viper_view_setup_free (vs);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/macrame/viewsetup/good", test_good);
  g_test_add_func ("/macrame/viewsetup/defaults", test_defaults);
  g_test_add_func ("/macrame/viewsetup/errors", test_errors);
  g_test_add_func ("/macrame/viewsetup/macrame-setup", test_macrame_setup);
  g_test_add_func ("/macrame/viewsetup/bundled", test_bundled);
  g_test_add_func ("/macrame/viewsetup/circle", test_circle);
  return g_test_run ();
}
