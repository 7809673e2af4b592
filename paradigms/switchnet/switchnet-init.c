/* switchnet-init.c - the init file: the Cplant tool's defaults (directories,
 * range of interest, colours) and Viper's view options, keyword lines like
 * the model file (docs/paradigm-switchnet.md). */
#include <string.h>
#include "switchnet.h"
#include "switchnet-lines.h"


void
swn_init_defaults (SwnInit *init)
{
  memset (init, 0, sizeof *init);
  init->min = 0;
  init->max = 100;
  init->above = (SwnRgb) { 1, 1, 0 };          /* yellow, as in the paper's analyses */
  init->below = (SwnRgb) { 0.55, 0.55, 0.55 }; /* grey */
  init->background = (SwnRgb) { 0.08, 0.08, 0.1 };
  init->switch_color = (SwnRgb) { 0.35, 0.37, 0.42 };
  init->route = (SwnRgb) { 0.1, 0.9, 0.3 };
  init->links = (SwnRgb) { 0.75, 0.75, 0.75 };
  init->view = SWN_VIEW_NETWORK;
  init->mode = SWN_MODE_SLICE;
  init->zoom = 1;
  init->yaw = 30;
  init->pitch = 35;
}

void
swn_init_clear (SwnInit *init)
{
  g_free (init->model_dir);
  g_free (init->data_dir);
  g_free (init->route_from);
  g_free (init->route_to);
  g_free (init->highlight);
  g_free (init->model);
  if (init->select)
    g_ptr_array_unref (init->select);
  memset (init, 0, sizeof *init);
}


static gboolean
rgb (Ctx *c, Field *f, guint n, SwnRgb *out)
{
  if (!swn_want (c, f, n, 3, "three fractions R G B"))
    return FALSE;
  double v[3];
  for (guint i = 0; i < 3; i++)
    if (!swn_field_double (&f[i + 1], 0, 1, &v[i]))
      return swn_fail (c, f[i + 1].col, "expected a fraction 0..1, got '%.*s'", (int) f[i + 1].len, f[i + 1].s);
  *out = (SwnRgb) { v[0], v[1], v[2] };
  return TRUE;
}

static gboolean
init_line (Ctx *c, Field *f, guint n, gpointer data)
{
  SwnInit *in = data;
  static const struct {
    const char *key;
    gsize off;
  } colors[] = {
    { "above", G_STRUCT_OFFSET (SwnInit, above) },
    { "color_above", G_STRUCT_OFFSET (SwnInit, above) },
    { "below", G_STRUCT_OFFSET (SwnInit, below) },
    { "color_below", G_STRUCT_OFFSET (SwnInit, below) },
    { "background", G_STRUCT_OFFSET (SwnInit, background) },
    { "switch", G_STRUCT_OFFSET (SwnInit, switch_color) },
    { "route", G_STRUCT_OFFSET (SwnInit, route) },
    { "links", G_STRUCT_OFFSET (SwnInit, links) },
  };
  for (guint i = 0; i < G_N_ELEMENTS (colors); i++)
    if (swn_field_is (&f[0], colors[i].key))
      return rgb (c, f, n, G_STRUCT_MEMBER_P (in, colors[i].off));
  if (swn_field_is (&f[0], "model_dir") || swn_field_is (&f[0], "data_dir") || swn_field_is (&f[0], "model"))
    {
      if (!swn_want (c, f, n, 1, swn_field_is (&f[0], "model") ? "a file" : "a directory"))
        return FALSE;
      char **dst = swn_field_is (&f[0], "model_dir") ? &in->model_dir
                   : swn_field_is (&f[0], "data_dir") ? &in->data_dir : &in->model;
      g_free (*dst);
      *dst = swn_field_dup (&f[1]);
      return TRUE;
    }
  if (swn_field_is (&f[0], "min") || swn_field_is (&f[0], "max"))
    {
      if (!swn_want (c, f, n, 1, "an integer"))
        return FALSE;
      gint64 v;
      if (!swn_field_int (&f[1], G_MININT64 / 4, G_MAXINT64 / 4, &v))
        return swn_fail (c, f[1].col, "expected an integer, got '%.*s'", (int) f[1].len, f[1].s);
      *(swn_field_is (&f[0], "min") ? &in->min : &in->max) = v;
      return TRUE;
    }
  if (swn_field_is (&f[0], "view"))
    {
      if (!swn_want (c, f, n, 1, "network, processor or torus"))
        return FALSE;
      if (swn_field_is (&f[1], "network"))
        in->view = SWN_VIEW_NETWORK;
      else if (swn_field_is (&f[1], "processor"))
        in->view = SWN_VIEW_PROCESSOR;
      else if (swn_field_is (&f[1], "torus"))
        in->view = SWN_VIEW_TORUS;
      else
        return swn_fail (c, f[1].col, "expected network, processor or torus, got '%.*s'", (int) f[1].len, f[1].s);
      return TRUE;
    }
  if (swn_field_is (&f[0], "mode"))
    {
      if (!swn_want (c, f, n, 1, "slice, running or total"))
        return FALSE;
      if (swn_field_is (&f[1], "slice"))
        in->mode = SWN_MODE_SLICE;
      else if (swn_field_is (&f[1], "running"))
        in->mode = SWN_MODE_RUNNING;
      else if (swn_field_is (&f[1], "total"))
        in->mode = SWN_MODE_TOTAL;
      else
        return swn_fail (c, f[1].col, "expected slice, running or total, got '%.*s'", (int) f[1].len, f[1].s);
      return TRUE;
    }
  if (swn_field_is (&f[0], "jobs"))
    {
      if (!swn_want (c, f, n, 1, "on or off"))
        return FALSE;
      if (!swn_field_is (&f[1], "on") && !swn_field_is (&f[1], "off"))
        return swn_fail (c, f[1].col, "expected on or off, got '%.*s'", (int) f[1].len, f[1].s);
      in->jobs = swn_field_is (&f[1], "on");
      return TRUE;
    }
  if (swn_field_is (&f[0], "rotate") || swn_field_is (&f[0], "pan"))
    {
      if (!swn_want (c, f, n, 2, "two numbers"))
        return FALSE;
      double a, b;
      double lim = swn_field_is (&f[0], "rotate") ? 3600 : 10;
      if (!swn_field_double (&f[1], -lim, lim, &a))
        return swn_fail (c, f[1].col, "expected a number within +-%g, got '%.*s'", lim, (int) f[1].len, f[1].s);
      if (!swn_field_double (&f[2], -lim, lim, &b))
        return swn_fail (c, f[2].col, "expected a number within +-%g, got '%.*s'", lim, (int) f[2].len, f[2].s);
      if (swn_field_is (&f[0], "rotate"))
        in->yaw = a, in->pitch = b;
      else
        in->pan_x = a, in->pan_y = b;
      return TRUE;
    }
  if (swn_field_is (&f[0], "zoom"))
    {
      if (!swn_want (c, f, n, 1, "a factor"))
        return FALSE;
      if (!swn_field_double (&f[1], 0.05, 50, &in->zoom))
        return swn_fail (c, f[1].col, "expected a zoom factor 0.05..50, got '%.*s'", (int) f[1].len, f[1].s);
      return TRUE;
    }
  if (swn_field_is (&f[0], "hide_plane"))
    {
      if (!swn_want (c, f, n, 1, "a plane number"))
        return FALSE;
      gint64 p;
      if (!swn_field_int (&f[1], 0, 63, &p))
        return swn_fail (c, f[1].col, "expected a plane number 0..63, got '%.*s'", (int) f[1].len, f[1].s);
      in->hidden_planes |= G_GUINT64_CONSTANT (1) << p;
      return TRUE;
    }
  if (swn_field_is (&f[0], "route_between"))
    {
      if (!swn_want (c, f, n, 2, "two switch labels or node names"))
        return FALSE;
      g_free (in->route_from);
      g_free (in->route_to);
      in->route_from = swn_field_dup (&f[1]);
      in->route_to = swn_field_dup (&f[2]);
      return TRUE;
    }
  if (swn_field_is (&f[0], "select"))
    {
      if (n < 2)
        return swn_fail (c, f[0].col + f[0].len, "select needs port labels");
      if (!in->select)
        in->select = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 1; i < n; i++)
        g_ptr_array_add (in->select, swn_field_dup (&f[i]));
      return TRUE;
    }
  if (swn_field_is (&f[0], "highlight"))
    {
      if (!swn_want (c, f, n, 1, "a switch or port label"))
        return FALSE;
      g_free (in->highlight);
      in->highlight = swn_field_dup (&f[1]);
      return TRUE;
    }
  return swn_fail (c, f[0].col, "unknown keyword '%.*s'", (int) f[0].len, f[0].s);
}

gboolean
swn_init_parse (SwnInit *init, const char *text, gsize len, const char *name, GError **error)
{
  return swn_each_line (text, len, name, error, init_line, init);
}

gboolean
swn_init_load (SwnInit *init, const char *path, GError **error)
{
  char *text;
  gsize len;
  if (!swn_read_file (path, &text, &len, error))
    return FALSE;
  gboolean ok = swn_init_parse (init, text, len, path, error);
  g_free (text);
  return ok;
}

