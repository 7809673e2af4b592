/* views-animation.c - the animation view: one disc (or a view setup file's
 * box) per module with its state colour, the arrows underway between them,
 * and the clock and legend (thesis 3.2.1).
 */
#include <math.h>
#include <string.h>
#include "views-private.h"

/* A module shown as the generic disc (with its label and activity line by
 * it) rather than as a box its paradigm draws from a view setup file. */
static gboolean
an_is_disc (const ViperViewGeometry *g, const ModBox *b)
{
  if (!g->setup)
    return TRUE;
  const ViperViewModule *mod = viper_view_setup_module (g->setup, b->id);
  return !(g->r->draw_module && mod && !g_str_equal (mod->repr, "circle"));
}

/* Where a disc's two text lines may lie (rows text_y + [0, 16) for the
 * label; the activity line's under it, or above it on a ring's top): the
 * label (bold, 12 down to 8 pt) has its baseline at text_y + fs, the
 * activity line (10 down to 8 pt) at text_y + fs + 2 + fa under it or at
 * text_y - 3 above it (an_baseline), and their glyphs stay inside these
 * bands at every size. */
void
vv_an_text_band (const ModBox *b, guint k, double *y0, double *y1)
{
  if (k == 0)
    *y0 = b->text_y, *y1 = b->text_y + 16;
  else if (b->act_above)
    *y0 = b->text_y - 16, *y1 = b->text_y;
  else
    *y0 = b->text_y + 10, *y1 = b->text_y + 28;
}

/* The baseline of b's label (fa < 0) or of its activity line at fa pt
 * under a label at fs pt. */
static double
an_baseline (const ModBox *b, double fs, double fa)
{
  if (fa < 0)
    return b->text_y + fs;
  return b->act_above ? b->text_y - 3 : b->text_y + fs + 2 + fa;
}

/* A text line by a disc is at most this wide (some 55 characters at
 * 10 pt): a longer one is on the tooltip only, and a module's damage stays
 * narrower than a wide view. */
#define AN_TEXT_MAX_W 320.0

/* The clock line's ink ends above this row: no text room reaches it. */
#define AN_CLOCK_BOTTOM 24.0

/* The texts centred under the disc (a view setup's discs, those placed by a
 * layout, a ring's bottom). */
static void
an_text_under (ModBox *b)
{
  b->text_x = b->x;
  b->text_align = 0.5;
  b->text_y = b->y + b->r + VIPER_VIEW_DECORATION_MARGIN;
  b->act_above = FALSE;
}

/* On a ring the texts go outside it, away from its centre, so that
 * neighbours' texts lie side by side or one above the other rather than
 * into the next disc: a disc on either side has them beside it, vertically
 * centred on it (left of the ring right-aligned to the left of the disc,
 * right of it left-aligned to its right); one at the top has them centred
 * above it (the label next to the disc, the activity line above that)
 * where the label clears the clock line, else under it; one at the bottom
 * under it.  (c, s): the direction from the ring's centre. */
static void
an_text_outward (ModBox *b, double c, double s)
{
  double gap = b->r + VIPER_VIEW_DECORATION_MARGIN;
  an_text_under (b);
  if (fabs (c) > 0.6)
    {
      b->text_align = c > 0 ? 0 : 1;
      b->text_x = b->x + (c > 0 ? gap : -gap);
      b->text_y = b->y - 14;
    }
  else if (s < 0 && b->y - gap - 16 >= AN_CLOCK_BOTTOM)
    {
      b->text_y = b->y - gap - 16;
      b->act_above = TRUE;
    }
}

/* Narrow the extents *el left and *er right of x of a span so that it keeps
 * clear of [a0, a1] (none left when that covers x). */
static void
an_keep_clear (double x, double a0, double a1, double *el, double *er)
{
  if (a1 < x)
    *el = MIN (*el, x - a1);
  else if (a0 > x)
    *er = MIN (*er, a0 - x);
  else
    *el = *er = 0;
}

/* The room of each disc's label and activity line (circle and view setup
 * layouts): the width at text_x (centred on it, or from it on the side
 * away from the disc) they may take without reaching another module's text
 * room, a box a paradigm draws, the clock line or the view's edge,
 * AN_TEXT_MAX_W at most; two rooms that grow towards each other share the
 * gap between them, one that grows towards another that does not gets all
 * of it, so no two rooms overlap.  The room depends on the layout only,
 * never on the text shown, so a module's text changing never moves
 * another's; and the module's box grows to cover its rooms: what a damage
 * repaints.  The text drawn also keeps clear of other modules' discs and
 * of the legend (an_ink_clear). */
static void
an_text_room (ViperViewGeometry *g)
{
  guint n = g->mods->len;
  gboolean *disc = g_new (gboolean, MAX (n, 1u));
  for (guint i = 0; i < n; i++)
    disc[i] = an_is_disc (g, &g_array_index (g->mods, ModBox, i));
  for (guint i = 0; i < n; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      b->text_w[0] = b->text_w[1] = 0;
      if (!disc[i])
        continue;
      double a = b->text_x;
      gboolean gl = b->text_align > 0, gr = b->text_align < 1, centred = gl && gr;
      for (guint k = 0; k < 2; k++)
        {
          double y0, y1;
          vv_an_text_band (b, k, &y0, &y1);
          if (y0 < AN_CLOCK_BOTTOM)
            continue;
          double el = gl ? MIN (a, AN_TEXT_MAX_W) : 0, er = gr ? MIN (g->width - a, AN_TEXT_MAX_W) : 0;
          if (centred)
            el = er = MIN (MIN (el, er), AN_TEXT_MAX_W / 2);
          for (guint j = 0; j < n && (el > 0 || er > 0); j++)
            {
              const ModBox *o = &g_array_index (g->mods, ModBox, j);
              if (j == i)
                continue;
              if (!disc[j])
                {
                  if (o->by < y1 && o->by + o->bh > y0)
                    an_keep_clear (a, o->bx - 2, o->bx + o->bw + 2, &el, &er);
                  continue;
                }
              double ao = o->text_x;
              gboolean ogl = o->text_align > 0, ogr = o->text_align < 1;
              for (guint kk = 0; kk < 2; kk++)
                {
                  double oy0, oy1;
                  vv_an_text_band (o, kk, &oy0, &oy1);
                  if (oy0 >= y1 || oy1 <= y0)
                    continue;
                  if (ao > a)
                    er = MIN (er, ogl ? (ao - a) / 2 - 1 : ao - a - 2);
                  else if (ao < a)
                    el = MIN (el, ogr ? (a - ao) / 2 - 1 : a - ao - 2);
                  else if ((gl && ogl) || (gr && ogr))
                    el = er = 0;
                }
            }
          double x0, x1;
          if (centred)
            {
              double w = MIN (el, er);
              if (w <= 0)
                continue;
              b->text_w[k] = 2 * w;
              x0 = a - w, x1 = a + w;
            }
          else
            {
              double w = gl ? el : er;
              if (w <= 0)
                continue;
              b->text_w[k] = w;
              x0 = gl ? a - w : a, x1 = gl ? a : a + w;
            }
          b->box = vv_rect_union (b->box, vv_rect_around (x0, y0, x1, y1, g->width, g->height));
        }
    }
  g_free (disc);
}

/* Boxes from the file, scaled between the clock line and the legend. */
static void
place_animation_setup (ViperViewGeometry *g)
{
  int w = g->width, h = g->height;
  viper_view_transform_fit (g->setup, 0, AN_TOP, w, MAX (h - AN_TOP - AN_LEGEND, 10.0), &g->xf);
  for (guint i = 0; i < g->mods->len; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      viper_view_layout_box (g->setup, &g->xf, b->id, &b->bx, &b->by, &b->bw, &b->bh);
      b->x = floor (b->bx + b->bw / 2) + 0.5;
      b->y = floor (b->by + b->bh / 2) + 0.5;
      b->r = MAX (MIN (b->bw, b->bh) / 2, 1.0);
      an_text_under (b);
      const ViperViewModule *mod = viper_view_setup_module (g->setup, b->id);
      if (g->r->draw_module && mod && !g_str_equal (mod->repr, "circle"))
        b->box = vv_rect_around (b->bx, b->by, b->bx + b->bw, b->by + b->bh, w, h);
      else
        {
          /* the generic disc with its label and activity lines under it */
          double rr = b->r + VIPER_VIEW_DECORATION_MARGIN, half = MAX (rr, 60.0);
          b->box = vv_rect_around (b->x - half, b->y - rr, b->x + half, b->y + rr + 32, w, h);
        }
    }
  an_text_room (g);
  g->clock_box = vv_rect_around (0, 0, w, AN_TOP, w, h);
}

void
vv_place_animation (ViperViewGeometry *g, const ViperLayout *layout)
{
  if (g->setup)
    {
      place_animation_setup (g);
      return;
    }
  int w = g->width, h = g->height;
  double ah = MAX (h - AN_TOP - AN_LEGEND, 10.0);
  double m = MIN ((double) w, ah);
  guint n = g->mods->len;
  g->cell_w = 120;
  g->cell_h = 1e9;
  /* Many modules: a circle would put their discs and labels on top of each
   * other, so they fill the panel in a grid instead, in display order, with
   * as many columns as make the cells largest; labels get the cell's room. */
  guint placed = 0;
  for (guint i = 0; layout && i < n; i++)
    {
      double fx, fy;
      placed += viper_layout_get (layout, g_array_index (g->mods, ModBox, i).id, &fx, &fy);
    }
  if (n > AN_GRID_FROM && placed == 0)
    {
      guint best_c = 1;
      double best = 0;
      for (guint c = 1; c <= n; c++)
        {
          guint rows = (n + c - 1) / c;
          double cell = MIN (w / (double) c, ah / rows * 1.6);
          if (cell > best)
            best = cell, best_c = c;
        }
      guint rows = (n + best_c - 1) / best_c;
      g->grid = TRUE;
      g->cell_w = w / (double) best_c;
      g->cell_h = ah / rows;
      /* room for a label under the disc, or discs alone as large as the
       * cells allow (the tooltip names them) */
      gboolean labels = g->cell_h >= 30 && g->cell_w >= 36;
      double r = labels ? MIN (g->cell_w * 0.3, (g->cell_h - 18) / 2 - 2) : MIN (g->cell_w, g->cell_h) * 0.4;
      r = MAX (MIN (r, 0.11 * m), 2.0);
      for (guint i = 0; i < n; i++)
        {
          ModBox *b = &g_array_index (g->mods, ModBox, i);
          double cx = (i % best_c + 0.5) * g->cell_w, cy = AN_TOP + (i / best_c) * g->cell_h;
          b->x = floor (cx) + 0.5;
          b->y = floor (cy + (labels ? r + 3 : g->cell_h / 2)) + 0.5;
          b->r = r;
          b->box = vv_rect_around (cx - g->cell_w / 2, cy, cx + g->cell_w / 2, cy + g->cell_h, w, h);
          b->text_w[0] = b->text_w[1] = g->cell_w - 4;
          b->text_x = b->x;
          b->text_align = 0.5;
          b->text_y = b->y + b->r + 2;
          b->act_above = FALSE;
        }
      g->clock_box = vv_rect_around (0, 0, w, AN_TOP, w, h);
      return;
    }
  double R = 0.36 * m;
  double r = n <= 1 ? 0.15 * m : MIN (0.42 * 2 * R * sin (G_PI / n), 0.11 * m);
  r = MAX (r, 3.0);
  for (guint i = 0; i < n; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      double fx, fy, c = 0, s = 0;
      gboolean ring = FALSE;
      if (viper_layout_get (layout, b->id, &fx, &fy))
        {
          b->x = fx * w;
          b->y = AN_TOP + fy * ah;
        }
      else if (n == 1)
        {
          b->x = w / 2.0;
          b->y = AN_TOP + ah / 2.0;
        }
      else
        {
          /* the first module (the master, by setup order) on top, the rest clockwise */
          double a = -G_PI / 2 + 2 * G_PI * i / n;
          c = cos (a), s = sin (a);
          b->x = w / 2.0 + R * c;
          b->y = AN_TOP + ah / 2.0 + R * s;
          ring = TRUE;
        }
      /* whole pixels keep the disc centre one exact colour */
      b->x = floor (b->x) + 0.5;
      b->y = floor (b->y) + 0.5;
      b->r = r;
      if (ring)
        an_text_outward (b, c, s);
      else
        an_text_under (b);
      double rr = r + VIPER_VIEW_DECORATION_MARGIN;
      double half = MAX (rr, 60.0);
      b->box = vv_rect_around (b->x - half, b->y - rr, b->x + half, b->y + rr + 32, w, h);
    }
  an_text_room (g);
  g->clock_box = vv_rect_around (0, 0, w, AN_TOP, w, h);
}

static void
arrow_line (cairo_t *cr, double x0, double y0, double x1, double y1, double head, gboolean dashed)
{
  cairo_new_path (cr);
  double dx = x1 - x0, dy = y1 - y0, len = hypot (dx, dy);
  if (len < 1)
    return;
  double ux = dx / len, uy = dy / len;
  if (dashed)
    {
      double d[] = { 5, 3 };
      cairo_set_dash (cr, d, 2, 0);
    }
  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1 - ux * head * 0.8, y1 - uy * head * 0.8);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_move_to (cr, x1, y1);
  cairo_line_to (cr, x1 - ux * head - uy * head * 0.45, y1 - uy * head + ux * head * 0.45);
  cairo_line_to (cr, x1 - ux * head + uy * head * 0.45, y1 - uy * head - ux * head * 0.45);
  cairo_close_path (cr);
  cairo_fill (cr);
}

/* ---- disc sprites ---------------------------------------------------------------------- */

/* A thousand discs are a thousand arcs to tessellate and rasterise, and
 * their outlines one stroke of a thousand circles; on an image surface a
 * disc of a given colour, radius and outline is drawn once into a small
 * image and then copied to each module's place.  The centres sit on pixel
 * centres and the copies on whole pixels, so each copy covers its pixels as
 * the disc drawn there would (its centre stays the exact state colour).
 * Vector outputs (SVG, PDF) and transformed contexts keep the paths. */
#define AN_SPRITES 24

typedef struct {
  ViperColor color;
  double r, lw;
  int half;                 /* the image is 2 * half + 1 pixels square, centred on (half + 0.5, half + 0.5) */
  cairo_surface_t *img;
} DiscSprite;

typedef struct {
  gboolean usable;
  double sx, sy;            /* the target's device scale */
  guint n;
  DiscSprite s[AN_SPRITES];
} Sprites;

static void
sprites_init (Sprites *sp, cairo_t *cr)
{
  memset (sp, 0, sizeof *sp);
  cairo_surface_t *t = cairo_get_target (cr);
  cairo_matrix_t mx;
  cairo_get_matrix (cr, &mx);
  sp->usable = cairo_surface_get_type (t) == CAIRO_SURFACE_TYPE_IMAGE && mx.xx == 1 && mx.yy == 1 && mx.xy == 0
               && mx.yx == 0 && mx.x0 == floor (mx.x0) && mx.y0 == floor (mx.y0);
  cairo_surface_get_device_scale (t, &sp->sx, &sp->sy);
}

static void
sprites_clear (Sprites *sp)
{
  for (guint i = 0; i < sp->n; i++)
    cairo_surface_destroy (sp->s[i].img);
  sp->n = 0;
}

/* The disc (fill, then the outline over it) as the path code draws it. */
static void
disc_path_draw (cairo_t *cr, double x, double y, double r, double lw, ViperColor c)
{
  cairo_new_path (cr);
  cairo_arc (cr, x, y, r, 0, 2 * G_PI);
  vv_set_color (cr, c);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_line_width (cr, lw);
  cairo_stroke (cr);
}

static const DiscSprite *
sprite_get (Sprites *sp, ViperColor c, double r, double lw)
{
  for (guint i = 0; i < sp->n; i++)
    {
      const DiscSprite *d = &sp->s[i];
      if (d->r == r && d->lw == lw && d->color.r == c.r && d->color.g == c.g && d->color.b == c.b)
        return d;
    }
  if (sp->n == AN_SPRITES)
    return NULL;
  DiscSprite *d = &sp->s[sp->n];
  d->color = c, d->r = r, d->lw = lw;
  d->half = (int) ceil (r + lw / 2 + 1);
  int side = 2 * d->half + 1;
  d->img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (side * sp->sx), (int) ceil (side * sp->sy));
  cairo_surface_set_device_scale (d->img, sp->sx, sp->sy);
  cairo_t *c2 = cairo_create (d->img);
  disc_path_draw (c2, d->half + 0.5, d->half + 0.5, r, lw, c);
  cairo_destroy (c2);
  if (cairo_surface_status (d->img) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (d->img);
      return NULL;
    }
  sp->n++;
  return d;
}

/* A module's disc: copied from a sprite when it can be, else drawn. */
static void
draw_disc (Sprites *sp, cairo_t *cr, double x, double y, double r, double lw, ViperColor c)
{
  const DiscSprite *d = NULL;
  if (sp->usable && x - floor (x) == 0.5 && y - floor (y) == 0.5)
    d = sprite_get (sp, c, r, lw);
  if (!d)
    {
      disc_path_draw (cr, x, y, r, lw, c);
      return;
    }
  double x0 = floor (x) - d->half, y0 = floor (y) - d->half;
  int side = 2 * d->half + 1;
  cairo_new_path (cr);
  cairo_set_source_surface (cr, d->img, x0, y0);
  cairo_rectangle (cr, x0, y0, side, side);
  cairo_fill (cr);
}

/* ---- animation view ------------------------------------------------------------------- */

/* The discs of a grid (no view setup, no decorations), for modules inside
 * the clip: sprites on an image, else one fill per state and one stroke
 * for all outlines. */
static void
an_grid_discs (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m, Sprites *sp)
{
  const ViperRenderer *r = g->r;
  double cx0, cy0, cx1, cy1;
  cairo_clip_extents (cr, &cx0, &cy0, &cx1, &cy1);
  gint *state = g_new (gint, MAX (g->mods->len, 1u));
  for (guint i = 0; i < g->mods->len; i++)
    {
      const ModBox *b = &g_array_index (g->mods, ModBox, i);
      gboolean in = b->box.x < cx1 && b->box.y < cy1 && b->box.x + b->box.width > cx0 && b->box.y + b->box.height > cy0;
      state[i] = in ? r->module_state (m, b->id) : -1;
    }
  if (sp->usable)
    {
      for (guint i = 0; i < g->mods->len; i++)
        if (state[i] >= 0)
          {
            const ModBox *b = &g_array_index (g->mods, ModBox, i);
            draw_disc (sp, cr, b->x, b->y, b->r, MIN (1.5, MAX (b->r / 6, 0.6)), r->state_color (state[i]));
          }
      g_free (state);
      return;
    }
  for (guint s = 0; s < MAX (r->n_states, 1u); s++)
    {
      cairo_new_path (cr);
      gboolean any = FALSE;
      for (guint i = 0; i < g->mods->len; i++)
        if (state[i] == (gint) s)
          {
            const ModBox *b = &g_array_index (g->mods, ModBox, i);
            cairo_new_sub_path (cr);
            cairo_arc (cr, b->x, b->y, b->r, 0, 2 * G_PI);
            any = TRUE;
          }
      if (any)
        {
          vv_set_color (cr, r->state_color ((gint) s));
          cairo_fill (cr);
        }
    }
  cairo_new_path (cr);
  double lw = 1.5;
  for (guint i = 0; i < g->mods->len; i++)
    if (state[i] >= 0)
      {
        const ModBox *b = &g_array_index (g->mods, ModBox, i);
        cairo_new_sub_path (cr);
        cairo_arc (cr, b->x, b->y, b->r, 0, 2 * G_PI);
        lw = MIN (1.5, MAX (b->r / 6, 0.6));
      }
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_line_width (cr, lw);
  cairo_stroke (cr);
  g_free (state);
}

/* Whether the ink of s (set at the current font) at x (aligned as self's
 * texts) with its baseline at y stays 1 pixel clear of every other
 * module's disc (and its marks) and box, and of the legend. */
static gboolean
an_ink_clear (cairo_t *cr, const ViperViewGeometry *g, const ModBox *self, const char *s, double x, double y,
              const double *legend)
{
  cairo_text_extents_t e;
  cairo_text_extents (cr, s, &e);
  double x0 = x - e.x_advance * self->text_align + e.x_bearing - 1, x1 = x0 + e.width + 2;
  double y0 = y + e.y_bearing - 1, y1 = y0 + e.height + 2;
  if (legend[0] < x1 && legend[2] > x0 && legend[1] < y1 && legend[3] > y0)
    return FALSE;
  double pad = g->r->decorate_module ? VIPER_VIEW_DECORATION_MARGIN : 1;
  for (guint j = 0; j < g->mods->len; j++)
    {
      const ModBox *o = &g_array_index (g->mods, ModBox, j);
      if (o == self)
        continue;
      if (!an_is_disc (g, o))
        {
          if (o->bx < x1 && o->bx + o->bw > x0 && o->by < y1 && o->by + o->bh > y0)
            return FALSE;
          continue;
        }
      /* the rectangle's point nearest the disc's centre */
      double R = o->r + pad, nx = CLAMP (o->x, x0, x1), ny = CLAMP (o->y, y0, y1);
      if (hypot (nx - o->x, ny - o->y) < R)
        return FALSE;
    }
  return TRUE;
}

/* The font size (down to 8) at which s fits in width x height, selected on
 * cr; 0 when it does not fit at all.  Off a grid (whose cells keep texts
 * and discs apart) the text must also keep clear of other modules and of
 * the legend: b's label (label_fs < 0) or its activity line under a label
 * at label_fs, where an_baseline sets it. */
static double
fit_font (cairo_t *cr, const ViperViewGeometry *g, const ModBox *b, double label_fs, const char *s, double width,
          double height, double size, gboolean bold, const double *legend)
{
  for (double fs = size; fs >= 8; fs -= 2)
    {
      if (fs + 2 > height)
        continue;
      vv_font (cr, fs, bold);
      cairo_text_extents_t e;
      cairo_text_extents (cr, s, &e);
      double y = label_fs < 0 ? an_baseline (b, fs, -1) : an_baseline (b, label_fs, fs);
      if (e.x_advance <= width && (g->grid || an_ink_clear (cr, g, b, s, b->text_x, y, legend)))
        return fs;
    }
  return 0;
}

void
vv_draw_animation (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m, const ViperRun *run)
{
  const ViperRenderer *r = g->r;
  char buf[64], tb[32];
  vv_format_time (m ? m->clock : NAN, tb, sizeof tb);
  g_snprintf (buf, sizeof buf, "clock %s", tb);
  cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
  vv_font (cr, 13, TRUE);
  vv_text (cr, 8, 20, 0, buf);
  if (!m)
    return;
  if (g->setup)
    viper_view_layout_draw_elements (cr, g->setup, &g->xf);

  /* arrows first: the discs cover their ends, so each disc's centre stays its state colour */
  if (r->arrows)
    {
      GArray *arrows = g_array_new (FALSE, FALSE, sizeof (ViperViewArrow));
      r->arrows (m, run, arrows);
      /* on a grid of small discs, thin arrows keep the discs visible */
      double small = g->grid && g->mods->len ? g_array_index (g->mods, ModBox, 0).r : 1e9;
      double head = MIN (12.0, MAX (small * 0.7, 4.0));
      cairo_set_line_width (cr, MIN (2.5, MAX (small / 8, 0.7)));
      GArray *batch = g_array_new (FALSE, FALSE, sizeof (VvArrow));
      /* a crowded grid shows at most AN_MAX_ARROWS of them, spread evenly
       * over the list, and says so: past that they are a grey mass that
       * hides the discs, and every one costs the display server */
      guint stride = g->grid && arrows->len > AN_MAX_ARROWS ? (arrows->len + AN_MAX_ARROWS - 1) / AN_MAX_ARROWS : 1;
      if (stride > 1)
        {
          char note[96];
          g_snprintf (note, sizeof note, "%u of %u arrows shown", (arrows->len + stride - 1) / stride, arrows->len);
          vv_font (cr, 11, FALSE);
          cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
          vv_text (cr, g->width - 8, 20, 1, note);
        }
      for (guint i = 0; i < arrows->len; i += stride)
        {
          const ViperViewArrow *a = &g_array_index (arrows, ViperViewArrow, i);
          const ModBox *f = vv_find_mod (g, a->from), *t = vv_find_mod (g, a->to);
          if (!f || !t || f == t)
            continue;
          double dx = t->x - f->x, dy = t->y - f->y, len = hypot (dx, dy);
          if (len < 1)
            continue;
          double ux = dx / len, uy = dy / len;
          /* parallel arrows of opposite directions side by side */
          double ox = -uy * 4, oy = ux * 4;
          double x0 = f->x + ux * (f->r + 3) + ox, y0 = f->y + uy * (f->r + 3) + oy;
          double x1 = t->x - ux * (t->r + VIPER_VIEW_DECORATION_MARGIN) + ox;
          double y1 = t->y - uy * (t->r + VIPER_VIEW_DECORATION_MARGIN) + oy;
          if (g->grid)
            {
              /* hundreds of arrows: drawn below in one stroke and one fill per look */
              VvArrow aa = { x0, y0, x1, y1, a->color, a->dashed };
              g_array_append_val (batch, aa);
              continue;
            }
          vv_set_color (cr, a->color);
          arrow_line (cr, x0, y0, x1, y1, head, a->dashed);
        }
      /* hundreds of thin arrows: without antialiasing pixman fills their
       * spans several times faster, and at a pixel wide they look the same */
      cairo_save (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      vv_stroke_arrows (cr, batch, head, TRUE);
      cairo_restore (cr);
      g_array_unref (batch);
      g_array_unref (arrows);
    }

  Sprites sp;
  sprites_init (&sp, cr);
  gboolean batched = g->grid && !g->setup && !r->decorate_module;
  if (batched)
    an_grid_discs (cr, g, m, &sp);
  /* a damage repaint clips to a few boxes: of a thousand modules skip those
   * wholly outside it rather than build their paths */
  double cx0, cy0, cx1, cy1;
  cairo_clip_extents (cr, &cx0, &cy0, &cx1, &cy1);
  /* every disc first, then the texts: a text never hides under a disc (its
   * room keeps it off them, so none is drawn over one either) */
  gboolean *text = g_new0 (gboolean, MAX (g->mods->len, 1u));
  for (guint i = 0; i < g->mods->len; i++)
    {
      const ModBox *b = &g_array_index (g->mods, ModBox, i);
      if (b->box.x >= cx1 || b->box.y >= cy1 || b->box.x + b->box.width <= cx0 || b->box.y + b->box.height <= cy0)
        continue;
      const ViperViewModule *mod = g->setup ? viper_view_setup_module (g->setup, b->id) : NULL;
      if (mod && r->draw_module && !g_str_equal (mod->repr, "circle"))
        {
          cairo_save (cr);
          gboolean drawn = r->draw_module (cr, m, b->id, mod->repr, b->bx, b->by, b->bw, b->bh, mod->label);
          cairo_restore (cr);
          if (drawn)
            continue;
        }
      text[i] = TRUE;
      if (batched)
        continue;   /* the disc is drawn */
      gint s = r->module_state (m, b->id);
      /* (the path code starts a new path: text leaves a current point, and
       * an arc would draw a line from it) */
      draw_disc (&sp, cr, b->x, b->y, b->r, MIN (1.5, MAX (b->r / 6, 0.6)), r->state_color (s));
      if (r->decorate_module)
        {
          cairo_save (cr);
          r->decorate_module (cr, m, b->id, b->x, b->y, b->r);
          cairo_restore (cr);
        }
    }
  /* the legend before the texts, which keep clear of it */
  double legend[4] = { 8 - 1, g->height - 8 - 9 - 1, 0, g->height - 8 + 3 + 1 };
  legend[2] = 8 + vv_draw_legend (cr, r, VIPER_VIEW_ANIMATION, 8, g->height - 8, g->width - 8) + 1;
  for (guint i = 0; i < g->mods->len; i++)
    {
      if (!text[i])
        continue;
      const ModBox *b = &g_array_index (g->mods, ModBox, i);
      const ViperViewModule *mod = g->setup ? viper_view_setup_module (g->setup, b->id) : NULL;
      /* the label and the activity line only where they fit their room
       * (text_w): text dropped is on the tooltip, text overlapping is
       * nowhere readable */
      double below = b->text_y;
      double room_h = g->grid ? b->box.y + b->box.height - below : 1e9;
      char *label = mod && mod->label ? g_strdup (mod->label) : r->module_label (m, b->id);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      double fs = fit_font (cr, g, b, -1, label, b->text_w[0], room_h, 12, TRUE, legend);
      if (fs > 0 && g->grid)
        {
          /* arrows cross a crowded grid: a light plate keeps the label readable */
          cairo_text_extents_t e;
          cairo_text_extents (cr, label, &e);
          cairo_set_source_rgba (cr, 1, 1, 1, 0.85);
          cairo_rectangle (cr, b->x - e.x_advance / 2 - 2, below + 1, e.x_advance + 4, fs + 2);
          cairo_fill (cr);
          cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
        }
      if (fs > 0)
        vv_text (cr, b->text_x, an_baseline (b, fs, -1), b->text_align, label);
      g_free (label);
      if (fs > 0 && r->module_activity)
        {
          char *act = r->module_activity (m, b->id);
          double fa = act ? fit_font (cr, g, b, fs, act, b->text_w[1], room_h - fs - 2, 10, FALSE, legend) : 0;
          if (fa > 0)
            {
              cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
              vv_text (cr, b->text_x, an_baseline (b, fs, fa), b->text_align, act);
            }
          g_free (act);
        }
    }
  g_free (text);
  sprites_clear (&sp);
}

char *
viper_view_animation_describe (const ViperModel *m, const ViperRun *run, const ViperLayout *layout, int width,
                               int height, double x, double y)
{
  if (!m)
    return NULL;
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_ANIMATION, m, run, layout, NULL, width, height);
  const ViperRenderer *r = g->r;
  char *out = NULL;
  for (guint i = 0; i < g->mods->len && !out; i++)
    {
      const ModBox *b = &g_array_index (g->mods, ModBox, i);
      gboolean hit = g->setup ? (x >= b->bx && x < b->bx + b->bw && y >= b->by && y < b->by + b->bh)
                              : hypot (x - b->x, y - b->y) <= b->r + 2;
      if (!hit)
        continue;
      char *label = r->module_label (m, b->id);
      char *act = r->module_activity ? r->module_activity (m, b->id) : NULL;
      out = g_strdup_printf ("%s: %s%s%s", label, r->state_name (r->module_state (m, b->id)), act ? "\n" : "",
                             act ? act : "");
      g_free (act);
      g_free (label);
    }
  viper_view_geometry_free (g);
  return out;
}
