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

/* One centred line within [margin, width - margin]: set smaller, down to 8
 * pt, and when still too wide cut at a character with an ellipsis, so a
 * long collector message is never cut off on both sides by the view's edges. */
static void
fit_line (cairo_t *cr, double width, double y, double size, const char *s)
{
  const double margin = 4, room = MAX (width - 2 * margin, 1.0);
  cairo_text_extents_t e;
  for (double fs = size; fs >= 8; fs -= 1)
    {
      vv_font (cr, fs, FALSE);
      cairo_text_extents (cr, s, &e);
      if (e.x_advance <= room)
        {
          vv_text (cr, width / 2.0, y, 0.5, s);
          vv_font (cr, size, FALSE);
          return;
        }
    }
  /* 8 pt and still too wide: the longest prefix that fits with "…" */
  GString *t = g_string_new (NULL);
  for (const char *p = s; *p; p = g_utf8_next_char (p))
    {
      gsize keep = t->len;
      g_string_append_len (t, p, g_utf8_next_char (p) - p);
      g_string_append (t, "\u2026");
      cairo_text_extents (cr, t->str, &e);
      g_string_truncate (t, t->len - strlen ("\u2026"));
      if (e.x_advance > room)
        {
          g_string_truncate (t, keep);
          break;
        }
    }
  g_string_append (t, "\u2026");
  vv_text (cr, margin, y, 0, t->str);
  g_string_free (t, TRUE);
  vv_font (cr, size, FALSE);
}

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
  fit_line (cr, g->width, y + 20, 11, how);
  char buf[64], tb[32];
  vv_format_time (m ? m->clock : NAN, tb, sizeof tb);
  g_snprintf (buf, sizeof buf, "clock %s", tb);
  fit_line (cr, g->width, y + 38, 11, buf);
  char *detail = m && r->program_detail ? r->program_detail (m) : NULL;
  char **lines = detail ? g_strsplit (detail, "\n", 16) : NULL;
  for (guint i = 0; lines && lines[i]; i++)
    fit_line (cr, g->width, y + 56 + 18 * i, 11, lines[i]);
  g_strfreev (lines);
  g_free (detail);
}
