/* views-progstate.c - the program state view: one square in the colour of the
 * program state word (running, deadlock, abnormal, terminated, inactive).
 */
#include <math.h>
#include <string.h>
#include "views-private.h"

void
vv_place_program (ViperViewGeometry *g)
{
  int w = g->width, h = g->height;
  g->pside = floor (MAX (MIN (w * 0.5, h * 0.5), 10.0));
  g->px = floor ((w - g->pside) / 2);
  g->py = floor (MAX (h * 0.08, 6.0));
  g->clock_box = vv_rect_around (0, g->py + g->pside, w, h, w, h);
}
/* ---- program state view ------------------------------------------------------------- */

void
vv_draw_program (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m)
{
  const ViperRenderer *r = g->r;
  ViperProgramWord w = m ? viper_program_word_from_string (viper_model_program_state (m)) : VIPER_PROGRAM_INACTIVE;
  gboolean reported = m && r->program_reported && r->program_reported (m);
  vv_set_color (cr, viper_program_word_color (w));
  cairo_rectangle (cr, g->px, g->py, g->pside, g->pside);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  double cx = g->width / 2.0, y = g->py + g->pside + 24;
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  vv_font (cr, 18, TRUE);
  vv_text (cr, cx, y, 0.5, viper_program_word_name (w));
  vv_font (cr, 11, FALSE);
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  const char *how = w == VIPER_PROGRAM_INACTIVE ? "no module has started"
                  : reported ? "reported by the program manager" : "detected by Viper";
  vv_text (cr, cx, y + 20, 0.5, how);
  char buf[64], tb[32];
  vv_format_time (m ? m->clock : NAN, tb, sizeof tb);
  g_snprintf (buf, sizeof buf, "clock %s", tb);
  vv_text (cr, cx, y + 38, 0.5, buf);
  char *detail = m && r->program_detail ? r->program_detail (m) : NULL;
  char **lines = detail ? g_strsplit (detail, "\n", 16) : NULL;
  for (guint i = 0; lines && lines[i]; i++)
    vv_text (cr, cx, y + 56 + 18 * i, 0.5, lines[i]);
  g_strfreev (lines);
  g_free (detail);
}
