/* views-variables.c - the variables view: a block per module listing its
 * global variables and their states (thesis 3.2.1).
 */
#include <math.h>
#include <string.h>
#include "views-private.h"

void
vv_place_variables (ViperViewGeometry *g, const ViperModel *m)
{
  int w = g->width, h = g->height;
  int cols = MAX (w / VAR_COL_W, 1);
  double cw = (double) w / cols;
  double y = 8, row_max = 0;
  for (guint i = 0; i < g->mods->len; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      int col = (int) (i % (guint) cols);
      if (col == 0 && i > 0)
        {
          y += row_max + 10;
          row_max = 0;
        }
      guint nv = g->r->n_variables ? g->r->n_variables (m, b->id) : 0;
      double bh = VAR_HEAD + VAR_ROW * MAX (nv, 1u) + 6;
      row_max = MAX (row_max, bh);
      double x0 = col * cw + 6, x1 = (col + 1) * cw - 6;
      b->x = floor (x0 + 12) + 0.5;
      b->y = floor (y + VAR_HEAD / 2.0) + 0.5;
      /* without variables the block shows the module's activity: its box holds that line */
      b->box = vv_rect_around (x0, y, x1, y + (nv ? VAR_HEAD : bh), w, h);
      b->first_var = g->vars->len;
      b->n_vars = nv;
      for (guint v = 0; v < nv; v++)
        {
          VarBox vb = { b->id, v, vv_rect_around (x0, y + VAR_HEAD + v * VAR_ROW, x1, y + VAR_HEAD + (v + 1) * VAR_ROW, w, h) };
          g_array_append_val (g->vars, vb);
        }
    }
  g->clock_box = (cairo_rectangle_int_t) { 0, 0, 0, 0 };
}

/* ---- variables view ---------------------------------------------------------------- */

void
vv_draw_variables (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m)
{
  const ViperRenderer *r = g->r;
  if (!g->mods->len)
    {
      cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
      vv_font (cr, 12, FALSE);
      vv_text (cr, 10, 24, 0, "no modules yet");
      return;
    }
  /* the view scrolls: of a thousand blocks only the few in the exposed part
   * need their text laid out, which is what a block costs */
  double cx0, cy0, cx1, cy1;
  cairo_clip_extents (cr, &cx0, &cy0, &cx1, &cy1);
  for (guint i = 0; i < g->mods->len; i++)
    {
      const ModBox *b = &g_array_index (g->mods, ModBox, i);
      if (b->box.x >= cx1 || b->box.y >= cy1 || b->box.x + b->box.width <= cx0)
        continue;
      if (b->n_vars)
        {
          const VarBox *last = &g_array_index (g->vars, VarBox, b->first_var + b->n_vars - 1);
          if (last->box.y + last->box.height <= cy0)
            continue;
        }
      else if (b->box.y + VAR_HEAD + 18 <= cy0)
        continue;
      /* the block's text stays in the block: a long activity line ran into
       * the margin, where no damage of the block reaches to repaint it */
      cairo_save (cr);
      int bottom = b->box.y + b->box.height;
      if (b->n_vars)
        {
          const VarBox *last = &g_array_index (g->vars, VarBox, b->first_var + b->n_vars - 1);
          bottom = last->box.y + last->box.height;
        }
      cairo_rectangle (cr, b->box.x, b->box.y, b->box.width, bottom - b->box.y);
      cairo_clip (cr);
      cairo_set_source_rgb (cr, 0.93, 0.94, 0.96);
      cairo_rectangle (cr, b->box.x + 1, b->box.y + 1, b->box.width - 2, b->box.height - 2);
      cairo_fill (cr);
      cairo_new_path (cr);
      cairo_arc (cr, b->x, b->y, 6, 0, 2 * G_PI);
      vv_set_color (cr, r->state_color (r->module_state (m, b->id)));
      cairo_fill (cr);
      char *label = r->module_label (m, b->id);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      vv_font (cr, 12, TRUE);
      vv_text_fit (cr, b->x + 12, b->y + 4.5, 0, label, b->box.x + b->box.width - 8 - (b->x + 12));
      g_free (label);
      vv_font (cr, 11, FALSE);
      if (!b->n_vars)
        {
          /* a paradigm without global variables: what it knows of the
           * module instead (PICL: messages sent and received; Macrame: its
           * queues), else say there are none */
          char *act = r->module_activity && !r->n_variables ? r->module_activity (m, b->id) : NULL;
          cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
          vv_text_fit (cr, b->box.x + 10, b->box.y + VAR_HEAD + 13, 0, act ? act : "no global variables",
                       b->box.width - 18);
          g_free (act);
        }
      for (guint v = 0; v < b->n_vars; v++)
        {
          const VarBox *vb = &g_array_index (g->vars, VarBox, b->first_var + v);
          ViperViewVariable var = { 0 };
          r->variable (m, b->id, v, &var);
          double base = vb->box.y + 13;
          char fallback[32];
          g_snprintf (fallback, sizeof fallback, "v%u", v);
          /* three columns, each cut with an ellipsis where it would meet
           * the next: the state (right-aligned) first, then the type */
          double left = vb->box.x + 10, tx = vb->box.x + vb->box.width * 0.38, right = vb->box.x + vb->box.width - 8;
          const char *type = var.type ? var.type : "?";
          cairo_text_extents_t te;
          cairo_text_extents (cr, type, &te);
          if (var.highlight)
            cairo_set_source_rgb (cr, 0.1, 0.55, 0.2);
          else
            cairo_set_source_rgb (cr, 0.5, 0.5, 0.5);
          vv_font (cr, 11, var.highlight);
          double sw = vv_text_fit (cr, right, base, 1, var.state ? var.state : "",
                                   right - (tx + MIN (te.x_advance, 40.0) + 8));
          vv_font (cr, 11, FALSE);
          cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
          vv_text_fit (cr, tx, base, 0, type, right - sw - 8 - tx);
          cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
          vv_text_fit (cr, left, base, 0, var.name ? var.name : fallback, tx - 6 - left);
        }
      cairo_restore (cr);
    }
}
