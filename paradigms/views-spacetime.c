/* views-spacetime.c - the space-time view: one row per module, its states as
 * bars along adjusted time, messages as arrows from the sender's row at the
 * send to the receiver's row at the arrival, and a strip at the right edge
 * with every module's state now.
 *
 * A frame costs a few searches per pixel column of each row, not a walk over
 * the history: the model keeps a per-module index of its state changes and
 * messages sorted by time (core/model.h), and changes or messages that fall
 * into one pixel column are drawn as the one the column can show.
 */
#include <math.h>
#include <string.h>
#include "views-private.h"

void
vv_place_spacetime (ViperViewGeometry *g, const ViperModel *m, const ViperTimeWindow *window)
{
  int w = g->width, h = g->height;
  guint n = MAX (g->mods->len, 1u);
  g->follow = window ? window->follow : TRUE;
  viper_time_window_range (window, m, &g->t0, &g->t1);
  /* before the first transfer there is no run (no clock): t0 .. t1 is only a default */
  g->no_run = !m || !isfinite (m->clock);
  g->plot_x = ST_LABEL_W;
  g->strip_x = MAX (w - ST_STRIP - 4.0, g->plot_x + 10);
  g->plot_w = MAX (g->strip_x - 6.0 - g->plot_x, 10.0);
  g->top = ST_TOP;
  /* rows fit the height down to VIPER_VIEW_MIN_ROW pixels (taller when
   * zoomed); past that the view shows a scrolled part of them */
  double avail = MAX (h - ST_TOP - ST_AXIS, 10.0);
  double zoom = window && window->row_zoom > 1 ? window->row_zoom : 1;
  g->row_h = MAX (avail / n * zoom, VIPER_VIEW_MIN_ROW);
  g->rows_shown = MIN ((guint) floor (avail / g->row_h + 1e-9), n);
  g->rows_shown = MAX (g->rows_shown, 1u);
  if (g->rows_shown > g->mods->len)
    g->rows_shown = g->mods->len;
  guint first = window ? window->first_row : 0;
  g->first_row = g->mods->len > g->rows_shown ? MIN (first, g->mods->len - g->rows_shown) : 0;
  g->bottom = g->top + g->rows_shown * g->row_h;
  for (guint i = 0; i < g->mods->len; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      double y0 = g->top + ((double) i - g->first_row) * g->row_h;
      if (i < g->first_row || i >= g->first_row + g->rows_shown)
        {
          /* scrolled out: nothing of it is on screen */
          b->x = b->y = -1;
          b->box = (cairo_rectangle_int_t) { 0, 0, 0, 0 };
          continue;
        }
      b->x = floor (g->strip_x + ST_STRIP / 2) + 0.5;
      b->y = floor (y0 + g->row_h / 2) + 0.5;
      b->box = vv_rect_around (0, y0, w, y0 + g->row_h, w, h);
    }
  g->clock_box = vv_rect_around (g->plot_x, 0, w, h, w, h);
}

/* ---- space-time view ------------------------------------------------------------------ */

/* More messages than this in a frame are drawn without antialiasing. */
#define ST_AA_ARROWS 64
/* A pixel column shows arrows from this many rows at most (st_row_arrows). */
#define ST_COL_ARROWS 4

typedef struct {
  double last_t;
  gint last_state;
  /* the bar not painted yet: bars that share a pixel column merge into it,
   * so a row costs at most one rectangle per pixel however long the history */
  double px0, px1;
  gint pstate;
  gboolean pending;
} RowState;

double
vv_st_x (const ViperViewGeometry *g, double t)
{
  return g->plot_x + (t - g->t0) / (g->t1 - g->t0) * g->plot_w;
}

/* Top of a row (rows scrolled out lie above or below the plot). */
static double
st_row_y (const ViperViewGeometry *g, gint row)
{
  return g->top + ((double) row - g->first_row) * g->row_h;
}

static gint
row_of (const ViperViewGeometry *g, gint64 id)
{
  const ModBox *b = vv_find_mod (g, id);
  return b ? (gint) (b - &g_array_index (g->mods, ModBox, 0)) : -1;
}

/* The tram stop's tram: a ring on its module's row at its adjusted time,
 * with a tick down to the axis and its PROC:SEQ, in the breakpoint's blue -
 * where the stop is, at any zoom (nothing when its row or time is not
 * shown: the subtitle still names it). */
static void
st_draw_tram_mark (cairo_t *cr, const ViperViewGeometry *g, const ViperTimeWindow *w)
{
  gint row = row_of (g, w->tram_module);
  if (row < 0 || (guint) row < g->first_row || (guint) row >= g->first_row + g->rows_shown
      || !(w->tram_time >= g->t0 && w->tram_time <= g->t1))
    return;
  double x = floor (vv_st_x (g, w->tram_time)) + 0.5;
  double y = st_row_y (g, row) + 0.5 * g->row_h, rad = MAX (5.0, MIN (9.0, g->row_h * 0.6));
  cairo_save (cr);
  cairo_new_path (cr);          /* text drawn before leaves a current point */
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_set_line_width (cr, 4.5);
  cairo_arc (cr, x, y, rad, 0, 2 * G_PI);
  cairo_stroke (cr);
  cairo_set_source_rgb (cr, 0.1, 0.3, 0.9);
  cairo_set_line_width (cr, 2.5);
  cairo_arc (cr, x, y, rad, 0, 2 * G_PI);
  cairo_stroke (cr);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, x, y + rad);
  cairo_line_to (cr, x, g->bottom);
  cairo_stroke (cr);
  if (w->tram_label[0])
    {
      /* on a white box, right of the ring, or left of it near the right edge */
      vv_font (cr, 10, TRUE);
      cairo_text_extents_t e;
      cairo_text_extents (cr, w->tram_label, &e);
      gboolean left = x + rad + 6 + e.x_advance > g->plot_x + g->plot_w;
      double tx = left ? x - rad - 4 - e.x_advance : x + rad + 4, ty = y - rad - 2;
      cairo_set_source_rgba (cr, 1, 1, 1, 0.9);
      cairo_rectangle (cr, tx - 2, ty - 10, e.x_advance + 4, 13);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0.1, 0.3, 0.9);
      vv_text (cr, tx, ty, 0, w->tram_label);
      cairo_new_path (cr);
    }
  cairo_restore (cr);
}

/* A bar to fill: bars are collected, not filled one by one, so a frame sends
 * the (X) server one path per state instead of one request per bar, and
 * their edges sit on whole pixels, which the server fills without
 * computing coverage. */
typedef struct {
  gint state;
  double x0, y0, x1, y1;
} StBar;

static void
st_paint (GArray *bars, const ViperViewGeometry *g, gint row, RowState *rs)
{
  if (!rs->pending)
    return;
  rs->pending = FALSE;
  double y0 = st_row_y (g, row) + g->row_h * 0.2;
  StBar b = { rs->pstate, round (rs->px0), round (y0), round (rs->px1), round (y0 + g->row_h * 0.6) };
  /* a state shorter than a pixel still shows as one */
  if (b.x1 <= b.x0)
    b.x1 = b.x0 + 1;
  if (b.y1 <= b.y0)
    b.y1 = b.y0 + 1;
  g_array_append_val (bars, b);
}

static int
cmp_bar_state (gconstpointer a, gconstpointer b)
{
  const StBar *x = a, *y = b;
  return (x->state > y->state) - (x->state < y->state);
}

/* An opaque colour as cairo's image backend stores it (x8r8g8b8). */
static guint32
st_pixel (ViperColor c)
{
  guint32 r = (guint32) (c.r * 65535.0 + 0.5) >> 8, g = (guint32) (c.g * 65535.0 + 0.5) >> 8;
  guint32 b = (guint32) (c.b * 65535.0 + 0.5) >> 8;
  return 0xff000000u | MIN (r, 255u) << 16 | MIN (g, 255u) << 8 | MIN (b, 255u);
}

/* The bars written straight into an image target: tens of thousands of
 * rectangles of a few pixels each cost cairo a path and a fill each, and
 * cost this a few stores.  Bars have whole-pixel edges and opaque colours,
 * so the pixels are the ones cairo_fill would write (where two bars of a row
 * share a pixel, the later one shows it rather than the higher state's
 * colour).  FALSE (nothing
 * written) unless the target is an RGB24/ARGB32 image, the transformation a
 * whole-pixel shift and the clip one rectangle. */
/* An image target cairo's drawing can be replaced on by stores: an
 * RGB24/ARGB32 image at scale 1, a whole-pixel shift, the OVER operator and
 * at most one clip rectangle with whole-pixel edges (in device pixels,
 * inside the image). */
typedef struct {
  cairo_surface_t *t;
  guint8 *data;
  int stride;
  int dx, dy;               /* user to device: a shift */
  int cx0, cy0, cx1, cy1;   /* the clip */
} StImage;

static gboolean
st_image_target (cairo_t *cr, StImage *im)
{
  cairo_surface_t *t = cairo_get_target (cr);
  if (cairo_surface_get_type (t) != CAIRO_SURFACE_TYPE_IMAGE)
    return FALSE;
  cairo_format_t fmt = cairo_image_surface_get_format (t);
  double sx, sy;
  cairo_surface_get_device_scale (t, &sx, &sy);
  cairo_matrix_t mx;
  cairo_get_matrix (cr, &mx);
  if ((fmt != CAIRO_FORMAT_RGB24 && fmt != CAIRO_FORMAT_ARGB32) || sx != 1 || sy != 1 || mx.xx != 1 || mx.yy != 1
      || mx.xy != 0 || mx.yx != 0 || mx.x0 != floor (mx.x0) || mx.y0 != floor (mx.y0)
      || cairo_get_operator (cr) != CAIRO_OPERATOR_OVER)
    return FALSE;
  cairo_rectangle_list_t *clips = cairo_copy_clip_rectangle_list (cr);
  gboolean ok = clips->status == CAIRO_STATUS_SUCCESS && clips->num_rectangles <= 1;
  /* the clip in device pixels (an empty list: nothing is drawn) */
  int cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0;
  if (ok && clips->num_rectangles == 1)
    {
      const cairo_rectangle_t *c = &clips->rectangles[0];
      double a = c->x + mx.x0, b = c->y + mx.y0;
      ok = a == floor (a) && b == floor (b) && c->width == floor (c->width) && c->height == floor (c->height);
      cx0 = (int) a, cy0 = (int) b, cx1 = (int) (a + c->width), cy1 = (int) (b + c->height);
    }
  cairo_rectangle_list_destroy (clips);
  if (!ok)
    return FALSE;
  int w = cairo_image_surface_get_width (t), h = cairo_image_surface_get_height (t);
  im->t = t;
  im->cx0 = MAX (cx0, 0), im->cy0 = MAX (cy0, 0), im->cx1 = MIN (cx1, w), im->cy1 = MIN (cy1, h);
  im->dx = (int) mx.x0, im->dy = (int) mx.y0;
  cairo_surface_flush (t);
  im->data = cairo_image_surface_get_data (t);
  im->stride = cairo_image_surface_get_stride (t);
  return TRUE;
}

static void
st_image_done (const StImage *im)
{
  cairo_surface_mark_dirty_rectangle (im->t, im->cx0, im->cy0, MAX (im->cx1 - im->cx0, 0),
                                      MAX (im->cy1 - im->cy0, 0));
}

static gboolean
st_store_bars (cairo_t *cr, const ViperRenderer *r, const GArray *bars)
{
  StImage im;
  if (!st_image_target (cr, &im))
    return FALSE;
  guint8 *data = im.data;
  int stride = im.stride, cx0 = im.cx0, cy0 = im.cy0, cx1 = im.cx1, cy1 = im.cy1;
  gint last_state = G_MININT;
  guint32 px = 0;
  for (guint i = 0; i < bars->len; i++)
    {
      const StBar *b = &g_array_index (bars, StBar, i);
      int x0 = MAX ((int) b->x0 + im.dx, cx0), x1 = MIN ((int) b->x1 + im.dx, cx1);
      int y0 = MAX ((int) b->y0 + im.dy, cy0), y1 = MIN ((int) b->y1 + im.dy, cy1);
      if (x0 >= x1 || y0 >= y1)
        continue;
      if (b->state != last_state)
        last_state = b->state, px = st_pixel (r->state_color (b->state));
      for (int y = y0; y < y1; y++)
        {
          guint32 *row = (guint32 *) (data + (gsize) y * (gsize) stride);
          for (int x = x0; x < x1; x++)
            row[x] = px;
        }
    }
  st_image_done (&im);
  return TRUE;
}

static void
st_fill_bars (cairo_t *cr, const ViperRenderer *r, GArray *bars)
{
  if (st_store_bars (cr, r, bars))
    return;
  g_array_sort (bars, cmp_bar_state);
  for (guint i = 0; i < bars->len;)
    {
      gint state = g_array_index (bars, StBar, i).state;
      cairo_new_path (cr);
      for (; i < bars->len && g_array_index (bars, StBar, i).state == state; i++)
        {
          const StBar *b = &g_array_index (bars, StBar, i);
          cairo_rectangle (cr, b->x0, b->y0, b->x1 - b->x0, b->y1 - b->y0);
        }
      vv_set_color (cr, r->state_color (state));
      cairo_fill (cr);
    }
}

static void
st_bar (GArray *bars, const ViperViewGeometry *g, gint row, RowState *rs, double a, double b, gint state)
{
  a = MAX (a, g->t0);
  b = MIN (b, g->t1);
  if (b < a)
    return;
  double x0 = vv_st_x (g, a), x1 = vv_st_x (g, b);
  if (rs->pending && (rs->pstate == state || floor (x1) <= floor (rs->px1)) && x0 <= rs->px1 + 0.5)
    {
      /* the same state going on, or a bar that ends inside the pixel the
       * pending one ends in: it cannot be seen apart from it */
      rs->px1 = MAX (rs->px1, x1);
      return;
    }
  st_paint (bars, g, row, rs);
  rs->px0 = x0;
  rs->px1 = x1;
  rs->pstate = state;
  rs->pending = TRUE;
}

/* The time at pixel column x of the plot. */
static double
st_t (const ViperViewGeometry *g, double x)
{
  return g->t0 + (x - g->plot_x) / g->plot_w * (g->t1 - g->t0);
}

/* viper_history_refs_seek from `from` on: the walks below move forward a
 * pixel column at a time, so the answer is usually a few refs ahead.
 * Galloping (1, 2, 4, ... refs) brackets it in O(log distance) steps that
 * stay in the cache lines just read, where a search over the whole list
 * would touch a cold line per step. */
static guint
refs_seek_from (const GArray *refs, guint from, double t)
{
  guint n = refs->len, lo = from, step = 1;
  if (lo >= n || g_array_index (refs, ViperHistoryRef, lo).t0_max >= t)
    return lo;
  /* invariant: t0_max[lo] < t */
  guint hi = lo + step;
  while (hi < n && g_array_index (refs, ViperHistoryRef, hi).t0_max < t)
    {
      lo = hi;
      step *= 2;
      hi = step < n - lo ? lo + step : n;
    }
  lo++;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (refs, ViperHistoryRef, mid).t0_max < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static const ViperHistoryEntry *
ref_entry (const ViperModel *m, const GArray *refs, guint i)
{
  return viper_model_history_at (m, g_array_index (refs, ViperHistoryRef, i).pos);
}

static double
ref_t0_max (const GArray *refs, guint i)
{
  return g_array_index (refs, ViperHistoryRef, i).t0_max;
}

/* One row's state bars, from the model's per-module index rather than the
 * whole history: a binary search finds the change in effect at the window's
 * start, and wherever more than one change falls inside one pixel column
 * another search jumps to the change in effect at the next column.  The
 * changes jumped over are bars that st_bar would merge into the one the
 * column shows anyway, so the picture is the same and a row costs at most
 * a few searches per pixel column, however long the history.  Leaves the
 * last change drawn in rs->last_t / last_state for the bar up to the clock. */
static void st_row_bars_ordered (GArray *bars, const ViperViewGeometry *g, const ViperModel *m, gint row,
                                 RowState *rs, const ViperHistoryModule *h);

static void
st_row_bars (GArray *bars, const ViperViewGeometry *g, const ViperModel *m, gint row, RowState *rs,
             gboolean by_refs)
{
  const ViperHistoryModule *h = viper_model_history_module (m, g_array_index (g->mods, ModBox, row).id);
  if (!h || !h->states->len)
    return;
  if (by_refs && h->state_disorder == 0)
    {
      st_row_bars_ordered (bars, g, m, row, rs, h);
      return;
    }
  const GArray *refs = h->states;
  guint n = refs->len;
  /* past this, every change starts after the window */
  double stop = g->t1 + h->state_disorder;
  guint i = viper_history_refs_seek (refs, g->t0);
  i = i > 0 ? i - 1 : 0;
  const ViperHistoryEntry *cur = NULL;
  while (i < n)
    {
      const ViperHistoryEntry *e = ref_entry (m, refs, i);
      if (!e)
        {
          i++;
          continue;
        }
      if (cur)
        st_bar (bars, g, row, rs, cur->t0, e->t0, cur->state);
      cur = e;
      if (ref_t0_max (refs, i) > stop)
        break;
      double col = floor (vv_st_x (g, MAX (e->t0, g->t0)));
      guint k = refs_seek_from (refs, i, st_t (g, col + 1));
      const ViperHistoryEntry *last = k > i + 2 ? ref_entry (m, refs, k - 1) : NULL;
      if (last)
        {
          /* changes i+1 .. k-2 end inside this column: one bar up to the
           * start of k-1 (the change in effect at the next column) stands
           * for them */
          st_bar (bars, g, row, rs, cur->t0, last->t0, cur->state);
          cur = last;
          i = k;
        }
      else
        i++;
    }
  if (cur)
    {
      rs->last_t = cur->t0;
      rs->last_state = cur->state;
    }
}

/* st_row_bars for a module whose changes were appended in time order
 * (state_disorder 0): every ref's t0_max is then its entry's t0, and every
 * ref carries its entry's state, so the walk reads the refs alone - one
 * compact array per module.  The entries lie scattered over the whole
 * history: reading them (two per pixel column of each row) was one cache
 * miss each, and most of a frame went waiting on memory (PICL, 64 ranks:
 * 80% of the view's time).  Makes the same st_bar calls as st_row_bars, so
 * the picture is the same (tests/gui/test-view-cache.c compares them). */
static void
st_row_bars_ordered (GArray *bars, const ViperViewGeometry *g, const ViperModel *m, gint row, RowState *rs,
                     const ViperHistoryModule *h)
{
  const GArray *refs = h->states;
  const ViperHistoryRef *rf = (const ViperHistoryRef *) (gconstpointer) refs->data;
  guint n = refs->len;
  /* refs of trimmed entries are skipped, as st_row_bars skips them */
  guint64 lo = m->history_dropped, hi = lo + m->history->len;
  guint i = viper_history_refs_seek (refs, g->t0);
  i = i > 0 ? i - 1 : 0;
  const ViperHistoryRef *cur = NULL;
  while (i < n)
    {
      const ViperHistoryRef *e = &rf[i];
      if (e->pos < lo || e->pos >= hi)
        {
          i++;
          continue;
        }
      if (cur)
        st_bar (bars, g, row, rs, cur->t0_max, e->t0_max, cur->state);
      cur = e;
      if (e->t0_max > g->t1)
        break;
      double col = floor (vv_st_x (g, MAX (e->t0_max, g->t0)));
      guint k = refs_seek_from (refs, i, st_t (g, col + 1));
      const ViperHistoryRef *last = k > i + 2 && rf[k - 1].pos >= lo && rf[k - 1].pos < hi ? &rf[k - 1] : NULL;
      if (last)
        {
          st_bar (bars, g, row, rs, cur->t0_max, last->t0_max, cur->state);
          cur = last;
          i = k;
        }
      else
        i++;
    }
  if (cur)
    {
      rs->last_t = cur->t0_max;
      rs->last_state = cur->state;
    }
}

/* The states not in the history yet (r->open_states: a PICL call still
 * open), after the row's last change, up to the last of them; the caller
 * draws that one to the clock. */
static void
st_open_bars (GArray *bars, const ViperViewGeometry *g, const ViperModel *m, gint row, RowState *rs, GArray *open)
{
  if (!g->r->open_states)
    return;
  g_array_set_size (open, 0);
  g->r->open_states (m, g_array_index (g->mods, ModBox, row).id, open);
  for (guint k = 0; k < open->len; k++)
    {
      const ViperViewChange *c = &g_array_index (open, ViperViewChange, k);
      if (c->t < rs->last_t)
        continue;
      if (c->t > rs->last_t)
        st_bar (bars, g, row, rs, rs->last_t, c->t, rs->last_state);
      rs->last_t = c->t;
      rs->last_state = c->state;
    }
}

/* Where a message is drawn: from its sender's row at the send to the
 * receiver's row at the arrival (the clock while underway).  FALSE when it is
 * not drawn: not an arrow for the renderer, a receiver without a row, or
 * outside the window. */
typedef struct {
  const ViperHistoryEntry *e;
  double x0, y0, x1, y1;
  ViperColor color;
  gboolean underway;
} StArrow;

static gboolean
st_arrow_place (const ViperViewGeometry *g, const ViperModel *m, gint row, const ViperHistoryEntry *e, double clock,
                StArrow *out)
{
  if (!g->r->history_arrow || !g->r->history_arrow (m, e, &out->color))
    return FALSE;
  gint rb = row_of (g, e->other);
  if (rb < 0)
    return FALSE;
  /* rows scrolled out of view: a message between two of them is not seen */
  guint lo = g->first_row, hi = g->first_row + g->rows_shown;
  if (((guint) row < lo || (guint) row >= hi) && ((guint) rb < lo || (guint) rb >= hi))
    return FALSE;
  out->underway = isnan (e->t1);
  double t1 = out->underway ? clock : e->t1;
  if (t1 < g->t0 || e->t0 > g->t1)
    return FALSE;
  out->e = e;
  out->x0 = vv_st_x (g, e->t0);
  out->y0 = st_row_y (g, row) + 0.5 * g->row_h;
  out->x1 = vv_st_x (g, t1);
  out->y1 = st_row_y (g, rb) + 0.5 * g->row_h;
  return TRUE;
}

/* Called for each message the view shows; TRUE stops the walk. */
typedef gboolean (*StArrowVisit) (const StArrow *a, gpointer data);

/* The messages a row's module sent that the view shows.  Those that have
 * arrived and fit in the module's arrow_span start at or after
 * t0 - arrow_span: a binary search finds the first, and one arrived message
 * per pixel column of their start in the sender's row is all a screen can
 * show (taken[] marks the columns of this row that have one), so after each
 * a search jumps to the next column.  The columns are the sender row's own:
 * two rows sending in the same column start two arrows a row apart (columns
 * shared by all rows lost P2 -> P0 when P0 sent 50 us before it, in one
 * column of a 3 s run).  A column holds arrows of up to ST_COL_ARROWS rows
 * (count[], NULL for rows scrolled out; the rows after see it taken): past
 * that many it is solid ink, and 64 ranks sending in every column would
 * cost a frame ten times as long for the same picture.  Rows scrolled out
 * of view share one taken[]: their arrows enter the plot from its edge, and
 * sharing keeps them a few jumps each.  Underway ones (and arrived ones
 * longer than the span, not yet swept from the list) are in the module's
 * `open` list and are all shown: they are few, and each is news.  The
 * painter and the tooltip both walk this, so the tooltip names only what
 * is drawn. */
static gboolean
st_row_arrows (const ViperViewGeometry *g, const ViperModel *m, gint row, double clock, guint8 *taken,
               guint8 *count, guint8 *mine, StArrowVisit visit, gpointer data)
{
  const ViperHistoryModule *h = viper_model_history_module (m, g_array_index (g->mods, ModBox, row).id);
  if (!h)
    return FALSE;
  const GArray *refs = h->arrows;
  double stop = g->t1 + h->arrow_disorder;
  StArrow a;
  /* the first pass (mine != NULL) takes only columns of the plot: the
   * messages sent before the window are the second pass's */
  guint i = viper_history_refs_seek (refs, mine ? g->t0 : g->t0 - h->arrow_span);
  while (i < refs->len && ref_t0_max (refs, i) <= stop)
    {
      const ViperHistoryEntry *e = ref_entry (m, refs, i++);
      if (!e || isnan (e->t1))
        continue;
      /* a column another message of the row took shows that one: this
       * one is not placed at all */
      double col = floor (vv_st_x (g, e->t0));
      double c = col - floor (g->plot_x);
      gboolean in_plot = c >= 0 && c <= g->plot_w;
      if ((in_plot ? !taken[(guint) c] : !mine) && st_arrow_place (g, m, row, e, clock, &a))
        {
          if (visit (&a, data))
            return TRUE;
          if (in_plot)
            {
              taken[(guint) c] = 1;
              if (count)
                count[(guint) c]++;
              if (mine)
                mine[(guint) c] = 1;
            }
        }
      double next = col + 1;
      if (in_plot && h->arrow_disorder == 0)
        {
          /* in time order, every message up to the next free column lands
           * in a taken one: jump there (rows scrolled out of view, whose
           * messages mostly find their columns taken, cost a few jumps) */
          gsize ncols = (gsize) floor (g->plot_w) + 1, from = (gsize) c + 1;
          const guint8 *free_col = from < ncols ? memchr (taken + from, 0, ncols - from) : NULL;
          if (!free_col)
            break;
          next = floor (g->plot_x) + (double) (free_col - taken);
        }
      guint k = refs_seek_from (refs, i, st_t (g, next));
      i = MAX (i, k);
    }
  for (guint o = 0; !mine && o < h->open->len; o++)
    {
      const ViperHistoryEntry *e = viper_model_history_at (m, g_array_index (h->open, guint64, o));
      if (e && (isnan (e->t1) || e->t1 - e->t0 > h->arrow_span) && st_arrow_place (g, m, row, e, clock, &a)
          && visit (&a, data))
        return TRUE;
    }
  return FALSE;
}

/* Every row's messages: a row on screen keeps one per pixel column of its
 * own, in the columns that have fewer than ST_COL_ARROWS; the rows scrolled
 * out share theirs.  Which rows a crowded column shows turns with the
 * column: a first pass lets each row on screen take only every G-th column
 * (G = rows / ST_COL_ARROWS, shifted by its row number), so that where
 * every row sends, every row's messages are seen - the rows walked first
 * took every column, and 16 ranks sending everywhere showed the messages
 * of P0 to P3 only.  The usual pass then fills the columns that still have
 * room (a row that sends alone in a column keeps its message there).  Two
 * walks of a row each bounded by the pixel columns, as before. */
static gboolean
st_arrows (const ViperViewGeometry *g, const ViperModel *m, double clock, StArrowVisit visit, gpointer data)
{
  gsize ncols = (gsize) g->plot_w + 2;
  guint8 *taken = g_malloc0 (ncols), *taken_out = g_malloc0 (ncols), *count = g_malloc0 (ncols);
  guint shown_n = MIN (g->rows_shown, g->mods->len - MIN (g->first_row, g->mods->len));
  guint groups = (shown_n + ST_COL_ARROWS - 1) / ST_COL_ARROWS;
  /* the columns each row on screen took in the first pass */
  guint8 *mine = groups > 1 && m ? g_malloc0 (ncols * shown_n) : NULL;
  gboolean stopped = FALSE;
  for (guint k = 0; mine && k < shown_n && !stopped; k++)
    {
      guint8 *own = mine + (gsize) k * ncols;
      for (gsize c = 0; c < ncols; c++)
        taken[c] = count[c] >= ST_COL_ARROWS || (c + k) % groups != 0;
      stopped = st_row_arrows (g, m, (gint) (g->first_row + k), clock, taken, count, own, visit, data);
    }
  for (guint i = 0; m && i < g->mods->len && !stopped; i++)
    {
      gboolean shown = i >= g->first_row && i < g->first_row + shown_n;
      const guint8 *own = mine && shown ? mine + (gsize) (i - g->first_row) * ncols : NULL;
      if (shown)
        for (gsize c = 0; c < ncols; c++)
          taken[c] = count[c] >= ST_COL_ARROWS || (own && own[c]);
      stopped = st_row_arrows (g, m, (gint) i, clock, shown ? taken : taken_out, shown ? count : NULL, NULL, visit,
                               data);
    }
  g_free (mine);
  g_free (taken);
  g_free (taken_out);
  g_free (count);
  return stopped;
}

/* ---- dense messages --------------------------------------------------------------------
 *
 * Zoomed out on a real-size run (16 ranks, 150,000 messages in 10 s) the
 * walk above still draws thousands of lines, most of them across many rows:
 * drawn opaque with their heads they covered every pixel of the plot, and
 * the state bars under them were gone (a black rectangle).  So the lines'
 * ink is measured first: their length in pixels over the plot's area is how
 * many lines cross a pixel of the plot on average (the coverage).  Up to
 * ST_DENSE_COVER each message is an arrow, as before.  Past it the arrived
 * messages are drawn as 1-pixel lines without heads, all with the one alpha
 * that darkens the plot by ST_DENSE_DARK on average: a pixel crossed by k
 * lines is darkened 1 - (1 - alpha)^k, so where messages crowd the plot is
 * darker, where there are none it is the bars' colours, and the bars show
 * through everywhere.  Messages underway stay opaque arrows (they are few,
 * and each is news).  A head is drawn only on a line long enough to carry
 * one (ST_HEAD_MIN heads' lengths): a two-pixel message is a dot, not a
 * triangle.  The cost is one pass over the lines the walk chose (bounded by
 * the pixel columns) and a seek per row to count the messages sent in the
 * window for the note under the plot. */
#define ST_DENSE_COVER 0.3
#define ST_DENSE_DARK 0.3
#define ST_DENSE_ALPHA_MIN 0.04
#define ST_HEAD_MIN 2.0

typedef struct {
  const ViperViewGeometry *g;
  GArray *all;              /* VvArrow (dashed = underway): every message the walk chose */
  guint n_in;               /* of those, the messages sent inside the window */
} StArrowSet;

typedef struct {
  double cover;             /* arrived lines' pixels per plot pixel */
  double alpha;             /* of the arrived lines: 1 = opaque */
  gboolean dense;           /* arrived lines faint, without heads */
  double head;              /* a head's length */
  guint64 sent;             /* messages sent in the window, by every row */
} StInk;

static gboolean
st_arrow_collect (const StArrow *a, gpointer data)
{
  StArrowSet *s = data;
  VvArrow v = { a->x0, a->y0, a->x1, a->y1, a->color, a->underway };
  g_array_append_val (s->all, v);
  if (a->e->t0 >= s->g->t0 && a->e->t0 <= s->g->t1)
    s->n_in++;
  return FALSE;
}

/* How much ink the arrived lines would lay on the plot, and so how they are
 * drawn; counts the messages sent in the window (a seek per row). */
static void
st_ink (const StArrowSet *s, const ViperViewGeometry *g, const ViperModel *m, StInk *ink)
{
  double len = 0;
  for (guint i = 0; i < s->all->len; i++)
    {
      const VvArrow *a = &g_array_index (s->all, VvArrow, i);
      if (!a->dashed)
        len += MAX (hypot (a->x1 - a->x0, a->y1 - a->y0), 1.0);
    }
  double area = MAX (g->plot_w * (g->bottom - g->top), 1.0);
  ink->cover = len / area;
  ink->dense = ink->cover > ST_DENSE_COVER;
  ink->alpha = ink->dense ? MAX (1 - pow (1 - ST_DENSE_DARK, 1 / ink->cover), ST_DENSE_ALPHA_MIN) : 1;
  ink->head = MIN (7.0, g->row_h * 0.4 + 2);
  ink->sent = 0;
  for (guint i = 0; m && i < g->mods->len; i++)
    {
      const ViperHistoryModule *h = viper_model_history_module (m, g_array_index (g->mods, ModBox, i).id);
      if (h && h->arrows->len)
        ink->sent += viper_history_refs_seek (h->arrows, nextafter (g->t1, INFINITY))
                     - viper_history_refs_seek (h->arrows, g->t0);
    }
}

/* st_stroke_faint into an image target: one pixel per step along the
 * longer axis (as a 1-pixel line without antialiasing is drawn), each
 * blended with the line's colour at alpha.  Thousands of translucent
 * strokes cost cairo a composite each; this costs a blend per pixel. */
static gboolean
st_store_faint (cairo_t *cr, const GArray *lines, double alpha)
{
  StImage im;
  if (!st_image_target (cr, &im))
    return FALSE;
  guint32 a = (guint32) CLAMP (alpha * 256 + 0.5, 1, 256);
  for (guint i = 0; i < lines->len; i++)
    {
      const VvArrow *l = &g_array_index (lines, VvArrow, i);
      guint32 cr8 = (guint32) CLAMP (l->color.r * 255 + 0.5, 0, 255), cg8 = (guint32) CLAMP (l->color.g * 255 + 0.5, 0, 255);
      guint32 cb8 = (guint32) CLAMP (l->color.b * 255 + 0.5, 0, 255);
      double fx0 = floor (l->x0) + im.dx, fy0 = floor (l->y0) + im.dy;
      double fx1 = floor (l->x1) + im.dx, fy1 = floor (l->y1) + im.dy;
      /* nothing of it inside the clip (and no coordinate too far for an int) */
      if (MAX (fx0, fx1) < im.cx0 || MIN (fx0, fx1) >= im.cx1 || MAX (fy0, fy1) < im.cy0
          || MIN (fy0, fy1) >= im.cy1 || fabs (fx0) > 1e6 || fabs (fx1) > 1e6 || fabs (fy0) > 1e6 || fabs (fy1) > 1e6)
        continue;
      int x0 = (int) fx0, y0 = (int) fy0, x1 = (int) fx1, y1 = (int) fy1;
      int n = MAX (ABS (x1 - x0), ABS (y1 - y0));
      for (int k = 0; k <= n; k++)
        {
          int x = n ? x0 + (int) floor ((double) (x1 - x0) * k / n + 0.5) : x0;
          int y = n ? y0 + (int) floor ((double) (y1 - y0) * k / n + 0.5) : y0;
          if (x < im.cx0 || x >= im.cx1 || y < im.cy0 || y >= im.cy1)
            continue;
          guint32 *p = (guint32 *) (im.data + (gsize) y * (gsize) im.stride) + x, d = *p;
          guint32 dr = d >> 16 & 0xff, dg = d >> 8 & 0xff, db = d & 0xff;
          dr = (dr * (256 - a) + cr8 * a) >> 8;
          dg = (dg * (256 - a) + cg8 * a) >> 8;
          db = (db * (256 - a) + cb8 * a) >> 8;
          *p = (d & 0xff000000u) | dr << 16 | dg << 8 | db;
        }
    }
  st_image_done (&im);
  return TRUE;
}

/* Lines without heads, each stroked on its own so that where they cross
 * their alpha adds up. */
static void
st_stroke_faint (cairo_t *cr, const GArray *lines, double alpha)
{
  if (st_store_faint (cr, lines, alpha))
    return;
  cairo_save (cr);
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < lines->len; i++)
    {
      const VvArrow *a = &g_array_index (lines, VvArrow, i);
      cairo_set_source_rgba (cr, a->color.r, a->color.g, a->color.b, alpha);
      /* on the pixel centres: a 1-pixel line not antialiased lights one
       * pixel per step, antialiased two at half */
      cairo_move_to (cr, floor (a->x0) + 0.5, floor (a->y0) + 0.5);
      cairo_line_to (cr, floor (a->x1) + 0.5, floor (a->y1) + 0.5);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

/* The messages as the ink allows: faint lines when dense, else arrows with
 * heads where a line is long enough to carry one; underway ones always
 * opaque. */
static void
st_stroke_messages (cairo_t *cr, const StArrowSet *s, const StInk *ink)
{
  GArray *headed = g_array_new (FALSE, FALSE, sizeof (VvArrow));
  GArray *plain = g_array_new (FALSE, FALSE, sizeof (VvArrow));
  GArray *faint = g_array_new (FALSE, FALSE, sizeof (VvArrow));
  for (guint i = 0; i < s->all->len; i++)
    {
      const VvArrow *a = &g_array_index (s->all, VvArrow, i);
      if (!a->dashed && ink->dense)
        g_array_append_val (faint, *a);
      else if (hypot (a->x1 - a->x0, a->y1 - a->y0) >= ST_HEAD_MIN * ink->head)
        g_array_append_val (headed, *a);
      else
        g_array_append_val (plain, *a);
    }
  st_stroke_faint (cr, faint, ink->alpha);
  vv_stroke_arrows (cr, plain, 0, TRUE);
  vv_stroke_arrows (cr, headed, ink->head, TRUE);
  g_array_unref (headed);
  g_array_unref (plain);
  g_array_unref (faint);
}

/* The legend of the marks that are not states: a message, one underway
 * (dashed, to the clock) and the breakpoint line. */
static void
st_draw_marks_legend (cairo_t *cr, double x, double y, double width, const StInk *ink)
{
  static const char *const names[] = { "message", "underway", "breakpoint" };
  double dash[] = { 5, 3 }, bdash[] = { 4, 3 };
  vv_font (cr, 11, FALSE);
  for (int k = 0; k < 3; k++)
    {
      cairo_text_extents_t e;
      cairo_text_extents (cr, names[k], &e);
      if (x + 26 + e.x_advance > width)
        return;
      /* dense: the messages as drawn, faint lines without heads (the
       * sample no fainter than can be seen on white) */
      gboolean faint = k == 0 && ink && ink->dense;
      cairo_new_path (cr);
      cairo_set_line_width (cr, k == 2 ? 1.5 : faint ? 1 : 1.2);
      if (k == 2)
        cairo_set_source_rgb (cr, 0.1, 0.3, 0.9);
      else if (faint)
        cairo_set_source_rgba (cr, 0.15, 0.15, 0.15, MAX (ink->alpha, 0.35));
      else
        cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
      cairo_set_dash (cr, k == 1 ? dash : bdash, k ? 2 : 0, 0);
      if (k == 2)
        {
          cairo_move_to (cr, x + 8.5, y - 10);
          cairo_line_to (cr, x + 8.5, y + 1);
        }
      else
        {
          cairo_move_to (cr, x, y - 4);
          cairo_line_to (cr, x + 14, y - 4);
        }
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
      if (k < 2 && !faint)
        {
          cairo_move_to (cr, x + 18, y - 4);
          cairo_line_to (cr, x + 12, y - 7);
          cairo_line_to (cr, x + 12, y - 1);
          cairo_close_path (cr);
          cairo_fill (cr);
        }
      cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
      x += 22 + vv_text (cr, x + 22, y, 0, names[k]) + 12;
    }
}

/* n with thousands separated: 150,000 */
static void
st_count (guint64 n, char out[32])
{
  char d[24];
  int len = g_snprintf (d, sizeof d, "%" G_GUINT64_FORMAT, n), o = 0;
  for (int i = 0; i < len; i++)
    {
      if (i && (len - i) % 3 == 0)
        out[o++] = ',';
      out[o++] = d[i];
    }
  out[o] = 0;
}

/* Under the axis, left of its unit: how the messages are drawn when the
 * view cannot show each of them - dense (faint lines) or one per row and
 * pixel column (fewer lines than messages) - with the counts, so the
 * picture is not taken for every message.  Nothing when every message
 * sent in the window has its arrow. */
static void
st_draw_ink_note (cairo_t *cr, const ViperViewGeometry *g, const StInk *ink, guint drawn, double right)
{
  if (!ink->dense && drawn >= ink->sent)
    return;
  char full[200], brief[120], ns[32], nd[32];
  st_count (ink->sent, ns);
  st_count (drawn, nd);
  if (ink->dense)
    {
      g_snprintf (full, sizeof full,
                  "dense: %s messages sent here, %s drawn as faint lines without heads (darker: more); "
                  "zoom in for arrows", ns, nd);
      g_snprintf (brief, sizeof brief, "dense: %s of %s messages, faint lines", nd, ns);
    }
  else
    {
      g_snprintf (full, sizeof full, "%s of %s messages sent here drawn (one per row and pixel column); zoom in for each",
                  nd, ns);
      g_snprintf (brief, sizeof brief, "%s of %s messages drawn", nd, ns);
    }
  vv_font (cr, 9.5, FALSE);
  const char *say = vv_text_width (cr, full) <= right - g->plot_x ? full
                  : vv_text_width (cr, brief) <= right - g->plot_x ? brief : NULL;
  if (!say)
    return;
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  vv_text (cr, g->plot_x, g->bottom + 27, 0, say);
}

/* No tram transferred (an empty file, a file of bad lines, a replay at its
 * start): no run, so no time axis - a range of 0 to 1 would be a run that
 * never happened.  Says so in the plot, with what was read. */
static void
st_draw_no_run (cairo_t *cr, const ViperViewGeometry *g, const ViperRun *run)
{
  ViperCounts c = { 0 };
  if (run)
    viper_run_counts (run, &c);
  char detail[160];
  if (!run)
    g_strlcpy (detail, "nothing transferred", sizeof detail);
  else if (c.read == 0)
    g_strlcpy (detail, "nothing transferred: no trams read", sizeof detail);
  else if (c.pending == 0)
    g_snprintf (detail, sizeof detail, "nothing transferred: %" G_GUINT64_FORMAT " tram%s read, all rejected", c.read,
                c.read == 1 ? "" : "s");
  else
    g_snprintf (detail, sizeof detail,
                "nothing transferred yet: %" G_GUINT64_FORMAT " tram%s read, %" G_GUINT64_FORMAT " pending, %"
                G_GUINT64_FORMAT " rejected",
                c.read, c.read == 1 ? "" : "s", c.pending, c.rejected);
  double cx = g->plot_x + g->plot_w / 2;
  double cy = g->mods->len ? (g->top + g->bottom) / 2 : g->height / 2.0 - 20;
  vv_font (cr, 16, TRUE);
  cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
  vv_text (cr, cx, cy, 0.5, run && c.pending ? "no run yet" : "no run");
  vv_font (cr, 11, FALSE);
  vv_text (cr, cx, cy + 18, 0.5, detail);
}

void
vv_draw_spacetime (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m, const ViperRun *run,
                   const ViperTimeWindow *window)
{
  const ViperRenderer *r = g->r;
  guint n = g->mods->len;
  double bottom = g->bottom;
  /* rows: a light band every other row, and labels: every row when rows are
   * tall enough for text, else every k-th row (ticks mark the others'
   * positions; the tooltip names any row) so labels never overlap */
  double fs = CLAMP (g->row_h - 1, 8, 11);
  guint every = g->row_h >= 9 ? 1 : (guint) ceil (11.0 / g->row_h);
  vv_font (cr, fs, TRUE);
  for (guint i = g->first_row; i < g->first_row + g->rows_shown; i++)
    {
      const ModBox *b = &g_array_index (g->mods, ModBox, i);
      double y0 = st_row_y (g, (gint) i);
      if (i % 2)
        {
          cairo_set_source_rgb (cr, 0.96, 0.96, 0.97);
          cairo_rectangle (cr, g->plot_x, y0, g->plot_w, g->row_h);
          cairo_fill (cr);
        }
      if (i % every == 0)
        {
          char *label = r->module_label (m, b->id);
          cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
          vv_text (cr, g->plot_x - (every > 1 ? 9 : 6), y0 + g->row_h / 2 + fs * 0.36, 1, label);
          g_free (label);
          if (every > 1)
            {
              cairo_set_line_width (cr, 1);
              cairo_move_to (cr, g->plot_x - 6, floor (y0 + g->row_h / 2) + 0.5);
              cairo_line_to (cr, g->plot_x - 1, floor (y0 + g->row_h / 2) + 0.5);
              cairo_stroke (cr);
            }
        }
      /* the "now" strip: each module's current state */
      vv_set_color (cr, r->state_color (r->module_state (m, b->id)));
      cairo_rectangle (cr, g->strip_x, y0 + g->row_h * 0.15, ST_STRIP, MAX (g->row_h * 0.7, 1));
      cairo_fill (cr);
    }
  if (g->rows_shown < n)
    {
      /* scrolled: say which rows these are */
      char rb[64];
      g_snprintf (rb, sizeof rb, "rows %u\u2013%u of %u", g->first_row + 1, g->first_row + g->rows_shown, n);
      vv_font (cr, 10, FALSE);
      cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
      vv_text (cr, 4, bottom + 15, 0, rb);
    }

  if (g->no_run)
    {
      st_draw_no_run (cr, g, run);
      vv_draw_legend_fit (cr, r, VIPER_VIEW_SPACETIME, g->plot_x, g->height - 6, g->width - 4);
      return;
    }

  /* state bars: each state lasts from its change to the module's next change */
  RowState *rows = g_new (RowState, MAX (n, 1u));
  for (guint i = 0; i < n; i++)
    rows[i] = (RowState) { NAN, 0, 0, 0, 0, FALSE };
  cairo_save (cr);
  cairo_rectangle (cr, g->plot_x, 0, g->plot_w, bottom);
  cairo_clip (cr);
  double clock = m && isfinite (m->clock) ? m->clock : g->t1;
  GArray *bars = g_array_new (FALSE, FALSE, sizeof (StBar));
  /* VIPER_ST_WALK=entries: every row by its entries (tests compare the two) */
  const char *walk = g_getenv ("VIPER_ST_WALK");
  gboolean by_refs = !walk || !g_str_equal (walk, "entries");
  GArray *open = g_array_new (FALSE, FALSE, sizeof (ViperViewChange));
  for (guint i = g->first_row; m && i < g->first_row + g->rows_shown; i++)
    {
      st_row_bars (bars, g, m, (gint) i, &rows[i], by_refs);
      if (!isnan (rows[i].last_t))
        {
          st_open_bars (bars, g, m, (gint) i, &rows[i], open);
          st_bar (bars, g, (gint) i, &rows[i], rows[i].last_t, clock, rows[i].last_state);
        }
      st_paint (bars, g, (gint) i, &rows[i]);
    }
  st_fill_bars (cr, r, bars);
  g_array_unref (bars);
  g_array_unref (open);
  g_free (rows);

  /* messages: from the sender's row at the send to the receiver's row at the
   * arrival, row by row of their senders */
  cairo_set_line_width (cr, 1.2);
  StArrowSet set = { g, g_array_new (FALSE, FALSE, sizeof (VvArrow)), 0 };
  st_arrows (g, m, clock, st_arrow_collect, &set);
  StInk ink;
  st_ink (&set, g, m, &ink);
  /* hundreds of messages (one per pixel column): each shaft stroked on its
   * own - one path of hundreds of crossing lines makes cairo find every
   * crossing - and, past a few dozen, without antialiasing, which pixman
   * fills several times faster and which a 1-pixel line hardly shows */
  if (set.all->len > ST_AA_ARROWS)
    cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  st_stroke_messages (cr, &set, &ink);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  guint drawn = set.n_in;
  g_array_unref (set.all);
  cairo_restore (cr);

  /* the time axis, its ticks and their labels (views-axis.c) */
  VvAxis axis;
  vv_axis_layout (cr, g, &axis);
  vv_axis_draw (cr, g, &axis);
  /* the breakpoint marker */
  double bp = window ? window->breakpoint : NAN;
  if (isfinite (bp) && bp >= g->t0 && bp <= g->t1)
    {
      double x = floor (vv_st_x (g, bp)) + 0.5, d[] = { 4, 3 };
      cairo_set_source_rgb (cr, 0.1, 0.3, 0.9);
      cairo_set_line_width (cr, 1.5);
      cairo_set_dash (cr, d, 2, 0);
      cairo_move_to (cr, x, g->top);
      cairo_line_to (cr, x, bottom);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      vv_font (cr, 10, TRUE);
      vv_text (cr, x + 3, g->top + 9, 0, "breakpoint");
    }
  if (window && window->has_tram)
    st_draw_tram_mark (cr, g, window);
  /* the axis's unit, right of its last label */
  vv_font (cr, 10, TRUE);
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  char unit[64];
  vv_axis_unit_text (&axis, unit, sizeof unit);
  vv_axis_clear (&axis);
  vv_text (cr, g->width - 4, bottom + 28, 1, unit);
  double unit_w = vv_text_width (cr, unit);
  st_draw_ink_note (cr, g, &ink, drawn, g->width - 4 - unit_w - 12);
  double lx = vv_draw_legend_fit (cr, r, VIPER_VIEW_SPACETIME, g->plot_x, g->height - 6, g->width - 4);
  /* marks: after the states, on the same line when there is room */
  st_draw_marks_legend (cr, lx, g->height - 6, g->width, &ink);
}

typedef struct {
  double x, y;
  const ViperHistoryEntry *e;
} StNear;

static gboolean
st_arrow_near (const StArrow *a, gpointer data)
{
  StNear *n = data;
  double dx = a->x1 - a->x0, dy = a->y1 - a->y0, l2 = dx * dx + dy * dy;
  double u = l2 > 0 ? CLAMP (((n->x - a->x0) * dx + (n->y - a->y0) * dy) / l2, 0, 1) : 0;
  if (hypot (a->x0 + u * dx - n->x, a->y0 + u * dy - n->y) > 3)
    return FALSE;
  n->e = a->e;
  return TRUE;
}

char *
viper_view_spacetime_describe (const ViperModel *m, const ViperRun *run, const ViperTimeWindow *window,
                               int width, int height, double x, double y)
{
  if (!m)
    return NULL;
  ViperViewGeometry *g = viper_view_geometry_new (VIPER_VIEW_SPACETIME, m, run, NULL, window, width, height);
  const ViperRenderer *r = g->r;
  char *out = NULL;
  gint row = (gint) floor ((y - g->top) / g->row_h) + (gint) g->first_row;
  if (x < g->plot_x - ST_LABEL_W || x > g->plot_x + g->plot_w + ST_STRIP + 6 || y < g->top || y >= g->bottom
      || row < 0 || (guint) row >= g->mods->len)
    goto done;
  if (x < g->plot_x || x > g->plot_x + g->plot_w)
    {
      /* over the labels or the strip: the row's module and its state now */
      gint64 rid = g_array_index (g->mods, ModBox, row).id;
      char *label = r->module_label (m, rid);
      out = g_strdup_printf ("%s: %s now", label, r->state_name (r->module_state (m, rid)));
      g_free (label);
      goto done;
    }
  double t = g->t0 + (x - g->plot_x) / g->plot_w * (g->t1 - g->t0);
  gint64 id = g_array_index (g->mods, ModBox, row).id;
  /* a message passing close to the pointer wins over the bar under it */
  StNear near = { x, y, NULL };
  if (st_arrows (g, m, isfinite (m->clock) ? m->clock : g->t1, st_arrow_near, &near))
    {
      const ViperHistoryEntry *e = near.e;
      char *a = r->module_label (m, e->module), *b = r->module_label (m, e->other);
      char t0s[32], t1s[32];
      vv_format_time (e->t0, t0s, sizeof t0s);
      vv_format_time (e->t1, t1s, sizeof t1s);
      out = isnan (e->t1) ? g_strdup_printf ("message %s \u2192 %s sent at %s, underway", a, b, t0s)
                          : g_strdup_printf ("message %s \u2192 %s sent at %s, received at %s", a, b, t0s, t1s);
      g_free (a);
      g_free (b);
      goto done;
    }
  /* the bar under the pointer: the last change at or before t and the next one */
  double from = NAN, to = NAN;
  gint state = -1;
  const ViperHistoryModule *h = viper_model_history_module (m, id);
  if (h && h->states->len)
    {
      guint k = viper_history_refs_seek (h->states, nextafter (t, INFINITY));
      const ViperHistoryEntry *e = k > 0 ? ref_entry (m, h->states, k - 1) : NULL;
      const ViperHistoryEntry *next = k < h->states->len ? ref_entry (m, h->states, k) : NULL;
      if (e)
        {
          from = e->t0;
          state = e->state;
          to = next ? next->t0 : NAN;
        }
    }
  if (state >= 0 && isnan (to) && r->open_states)
    {
      /* after the last change: the states not in the history yet */
      GArray *open = g_array_new (FALSE, FALSE, sizeof (ViperViewChange));
      r->open_states (m, id, open);
      for (guint k = 0; k < open->len; k++)
        {
          const ViperViewChange *c = &g_array_index (open, ViperViewChange, k);
          if (c->t < from)
            continue;
          if (c->t > t)
            {
              to = c->t;
              break;
            }
          from = c->t;
          state = c->state;
        }
      g_array_unref (open);
    }
  if (state >= 0)
    {
      char *label = r->module_label (m, id);
      char fs[32], ts[32];
      vv_format_time (from, fs, sizeof fs);
      vv_format_time (isnan (to) ? m->clock : to, ts, sizeof ts);
      out = g_strdup_printf ("%s: %s from %s to %s%s", label, r->state_name (state), fs, ts,
                             isnan (to) ? " (now)" : "");
      g_free (label);
    }
done:
  viper_view_geometry_free (g);
  return out;
}
