/* viewlayout.c - a view setup file as the views' geometry (viewlayout.h).
 *
 * Kept apart from views.c so that the generic views only ask "where is
 * module M" and "draw the file's own elements": the file's coordinates,
 * its subset and its elements stay this file's business.
 */
#include <math.h>
#include "viewlayout.h"

void
viper_view_transform_fit (const ViperViewSetup *vs, double x, double y, double w, double h, ViperViewTransform *t)
{
  double vw = vs && vs->width > 0 ? vs->width : VIPER_VIEW_SETUP_DEFAULT_SIZE;
  double vh = vs && vs->height > 0 ? vs->height : VIPER_VIEW_SETUP_DEFAULT_SIZE;
  w = MAX (w, 1.0);
  h = MAX (h, 1.0);
  /* one scale for both axes: a square board stays square whatever the window */
  double s = MIN (w / vw, h / vh);
  t->scale = s;
  t->ox = x + (w - vw * s) / 2;
  t->oy = y + (h - vh * s) / 2;
}

gboolean
viper_view_layout_box (const ViperViewSetup *vs, const ViperViewTransform *t, gint64 id, double *x, double *y,
                       double *w, double *h)
{
  const ViperViewModule *mod = vs ? viper_view_setup_module (vs, id) : NULL;
  if (!mod)
    return FALSE;
  *x = t->ox + mod->x * t->scale;
  *y = t->oy + mod->y * t->scale;
  *w = mod->w * t->scale;
  *h = mod->h * t->scale;
  return TRUE;
}

void
viper_view_layout_select (const ViperViewSetup *vs, ViperViewKind kind, GArray *ids)
{
  if (!vs)
    return;
  if (kind == VIPER_VIEW_SPACETIME && vs->spacetime->len)
    {
      /* the file's order, but only modules the paradigm knows: a row for a
       * module the model has never heard of would stay empty forever */
      GHashTable *known = g_hash_table_new (g_int64_hash, g_int64_equal);
      for (guint i = 0; i < ids->len; i++)
        g_hash_table_add (known, &g_array_index (ids, gint64, i));
      GArray *rows = g_array_sized_new (FALSE, FALSE, sizeof (gint64), vs->spacetime->len);
      for (guint i = 0; i < vs->spacetime->len; i++)
        if (g_hash_table_contains (known, &g_array_index (vs->spacetime, gint64, i)))
          g_array_append_val (rows, g_array_index (vs->spacetime, gint64, i));
      g_hash_table_destroy (known);
      g_array_set_size (ids, 0);
      g_array_append_vals (ids, rows->data, rows->len);
      g_array_unref (rows);
      return;
    }
  if (kind != VIPER_VIEW_ANIMATION)
    return;
  /* modules the file does not place are not part of this view */
  guint k = 0;
  for (guint i = 0; i < ids->len; i++)
    if (viper_view_setup_module (vs, g_array_index (ids, gint64, i)))
      g_array_index (ids, gint64, k++) = g_array_index (ids, gint64, i);
  g_array_set_size (ids, k);
}

void
viper_view_layout_draw_elements (cairo_t *cr, const ViperViewSetup *vs, const ViperViewTransform *t)
{
  if (!vs)
    return;
  double s = t->scale;
  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  /* the file's text is sized for its own space; below 6 px it is unreadable anyway */
  cairo_set_font_size (cr, MAX (12 * s, 6.0));
  for (guint i = 0; i < vs->elements->len; i++)
    {
      const ViperViewElement *e = &g_array_index (vs->elements, ViperViewElement, i);
      double x1 = t->ox + e->x1 * s, y1 = t->oy + e->y1 * s;
      double x2 = t->ox + e->x2 * s, y2 = t->oy + e->y2 * s;
      cairo_new_path (cr);
      cairo_set_source_rgb (cr, 0, 0, 0);
      switch (e->kind)
        {
        case VIPER_VIEW_ELEMENT_LINE:
          cairo_move_to (cr, x1, y1);
          cairo_line_to (cr, x2, y2);
          cairo_stroke (cr);
          break;
        case VIPER_VIEW_ELEMENT_RECT:
          cairo_rectangle (cr, x1, y1, x2 - x1, y2 - y1);
          if (e->filled)
            {
              cairo_set_source_rgb (cr, e->fill.r, e->fill.g, e->fill.b);
              cairo_fill_preserve (cr);
              cairo_set_source_rgb (cr, 0, 0, 0);
            }
          cairo_stroke (cr);
          break;
        case VIPER_VIEW_ELEMENT_TEXT:
          if (e->text)
            {
              cairo_move_to (cr, x1, y1);
              cairo_show_text (cr, e->text);
            }
          break;
        }
    }
  cairo_restore (cr);
}
