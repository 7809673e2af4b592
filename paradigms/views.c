/* views.c - what the four views share: names, the generic renderer, the
 * time window, the geometry and where each abstract damaged area lies in a
 * view (thesis 4.1.1), text helpers, and rendering to files.  Each view
 * places and draws itself in its own file (views-animation.c,
 * views-spacetime.c, views-variables.c, views-progstate.c).
 *
 * Drawing and damage mapping share one geometry: viper_view_geometry_new()
 * places every module (a disc, a space-time row, a variables block) for the
 * model and the view size, and both the painter and the damage mapper read
 * the places from it.  That is what makes "redraw only the damaged areas"
 * safe: an area's rectangle is by construction where the painter puts it.
 *
 * Text uses cairo's own font selection rather than Pango so that the
 * paradigm library (shared with the headless CLI) needs nothing beyond cairo.
 * Colours of states are exact (no gradients, no antialiasing at the centre of
 * a disc) so that tests can probe pixels of a screenshot or an export.
 */
#include <math.h>
#include <string.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include "core/outfile.h"
#include "views-private.h"
#include "viewlayout.h"

/* ---- names and program states ---------------------------------------------- */

static const char *const kind_names[VIPER_VIEW_N_KINDS] = { "animation", "spacetime", "variables", "program" };

const char *
viper_view_kind_name (ViperViewKind kind)
{
  return (guint) kind < VIPER_VIEW_N_KINDS ? kind_names[kind] : "?";
}

int
viper_view_kind_from_name (const char *name)
{
  for (int i = 0; i < VIPER_VIEW_N_KINDS; i++)
    if (name && g_str_equal (name, kind_names[i]))
      return i;
  if (name && (g_str_equal (name, "space-time") || g_str_equal (name, "space_time")))
    return VIPER_VIEW_SPACETIME;
  return -1;
}

static const char *const word_names[] = { "inactive", "running", "deadlock", "abnormal", "terminated" };

ViperProgramWord
viper_program_word_from_string (const char *word)
{
  for (guint i = 0; i < G_N_ELEMENTS (word_names); i++)
    if (word && g_str_equal (word, word_names[i]))
      return (ViperProgramWord) i;
  return VIPER_PROGRAM_RUNNING;
}

const char *
viper_program_word_name (ViperProgramWord w)
{
  return (guint) w < G_N_ELEMENTS (word_names) ? word_names[w] : "running";
}

ViperColor
viper_program_word_color (ViperProgramWord w)
{
  switch (w)
    {
    case VIPER_PROGRAM_INACTIVE: return (ViperColor) { 160 / 255.0, 160 / 255.0, 160 / 255.0 };
    case VIPER_PROGRAM_DEADLOCK: return (ViperColor) { 245 / 255.0, 200 / 255.0, 0 };
    case VIPER_PROGRAM_ABNORMAL: return (ViperColor) { 215 / 255.0, 38 / 255.0, 61 / 255.0 };
    case VIPER_PROGRAM_TERMINATED: return (ViperColor) { 40 / 255.0, 100 / 255.0, 220 / 255.0 };
    case VIPER_PROGRAM_RUNNING:
    default: return (ViperColor) { 60 / 255.0, 180 / 255.0, 75 / 255.0 };
    }
}

/* ---- the generic renderer: any paradigm without its own ---------------------- */

void
viper_view_modules_from_run (const ViperModel *m, const ViperRun *run, GArray *ids)
{
  (void) m;
  if (!run)
    return;
  GArray *procs = viper_run_procs (run);
  for (guint i = 0; i < procs->len; i++)
    {
      gint64 p = g_array_index (procs, gint64, i);
      if (p >= 0)
        g_array_append_val (ids, p);
    }
  g_array_unref (procs);
}

char *
viper_view_label_p (const ViperModel *m, gint64 id)
{
  (void) m;
  return g_strdup_printf ("P%" G_GINT64_FORMAT, id);
}

static gint
generic_state (const ViperModel *m, gint64 id)
{
  (void) m, (void) id;
  return 0;
}

static const char *
generic_state_name (gint s)
{
  (void) s;
  return "seen";
}

static ViperColor
generic_color (gint s)
{
  (void) s;
  return (ViperColor) { 0.55, 0.62, 0.75 };
}

static gboolean
generic_history_arrow (const ViperModel *m, const ViperHistoryEntry *e, ViperColor *color)
{
  (void) m;
  if (e->other < 0)
    return FALSE;
  *color = (ViperColor) { 0, 0, 0 };
  return TRUE;
}

static const ViperRenderer generic_renderer = {
  .modules = viper_view_modules_from_run,
  .module_label = viper_view_label_p,
  .module_state = generic_state,
  .state_name = generic_state_name,
  .state_color = generic_color,
  .n_states = 1,
  .history_arrow = generic_history_arrow,
};

const ViperRenderer *
viper_view_renderer (const ViperModel *m)
{
  if (m && m->paradigm && m->paradigm->render)
    return m->paradigm->render;
  return &generic_renderer;
}

/* ---- layout ------------------------------------------------------------------- */

ViperLayout *
viper_layout_new (void)
{
  ViperLayout *l = g_new0 (ViperLayout, 1);
  l->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  l->pos = g_array_new (FALSE, FALSE, sizeof (double));
  return l;
}

void
viper_layout_free (ViperLayout *l)
{
  if (!l)
    return;
  g_array_unref (l->ids);
  g_array_unref (l->pos);
  g_free (l);
}

void
viper_layout_set (ViperLayout *l, gint64 id, double fx, double fy)
{
  for (guint i = 0; i < l->ids->len; i++)
    if (g_array_index (l->ids, gint64, i) == id)
      {
        g_array_index (l->pos, double, 2 * i) = fx;
        g_array_index (l->pos, double, 2 * i + 1) = fy;
        return;
      }
  g_array_append_val (l->ids, id);
  g_array_append_val (l->pos, fx);
  g_array_append_val (l->pos, fy);
}

gboolean
viper_layout_get (const ViperLayout *l, gint64 id, double *fx, double *fy)
{
  if (!l)
    return FALSE;
  for (guint i = 0; i < l->ids->len; i++)
    if (g_array_index (l->ids, gint64, i) == id)
      {
        *fx = g_array_index (l->pos, double, 2 * i);
        *fy = g_array_index (l->pos, double, 2 * i + 1);
        return TRUE;
      }
  return FALSE;
}

/* ---- time window ---------------------------------------------------------------- */

void
viper_time_window_init (ViperTimeWindow *w)
{
  w->follow = TRUE;
  w->start = 0;
  w->span = 0;
  w->breakpoint = NAN;
  w->has_tram = FALSE;
  w->tram_module = 0;
  w->tram_time = NAN;
  w->tram_label[0] = '\0';
  w->first_row = 0;
  w->row_zoom = 1;
}

void
viper_time_window_mark_tram (ViperTimeWindow *w, gint64 proc, gint64 seq, double t)
{
  w->has_tram = TRUE;
  w->tram_module = proc;
  w->tram_time = t;
  g_snprintf (w->tram_label, sizeof w->tram_label, "tram %" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, proc, seq);
}

void
viper_time_window_clear_tram (ViperTimeWindow *w)
{
  w->has_tram = FALSE;
  w->tram_time = NAN;
  w->tram_label[0] = '\0';
}

gboolean
viper_time_window_extent (const ViperModel *m, double *t0, double *t1)
{
  if (!m || !isfinite (m->clock))
    return FALSE;
  ViperTimeWindow all;
  viper_time_window_init (&all);
  viper_time_window_range (&all, m, t0, t1);
  return TRUE;
}

void
viper_time_window_range (const ViperTimeWindow *w, const ViperModel *m, double *t0, double *t1)
{
  ViperTimeWindow def;
  if (!w)
    {
      viper_time_window_init (&def);
      w = &def;
    }
  double clock = m && isfinite (m->clock) ? m->clock : 0.0;
  double a, b;
  if (w->follow)
    {
      b = clock;
      if (w->span > 0)
        a = b - w->span;
      else
        {
          /* the run so far: from its earliest adjusted time, not from its
           * first history entry (a processor is busy from its first tram on,
           * before any state change is written).  Once trimming dropped the
           * start, everything the history holds: it is appended in run
           * order, which is time order up to the offsets between modules,
           * so the earliest start is among the first entries: looking at a
           * few keeps this O(1) for a history of millions */
          a = b;
          if (m && m->history_dropped == 0 && isfinite (m->start))
            a = MIN (a, m->start);
          if (m && m->history)
            for (guint i = 0; i < MIN (m->history->len, 256u); i++)
              a = MIN (a, g_array_index (m->history, ViperHistoryEntry, i).t0);
        }
    }
  else
    {
      a = w->start;
      b = w->start + (w->span > 0 ? w->span : 1.0);
    }
  /* a window of at least one second; far from 0 (a clock of 1e16 s) the
   * next representable time, so that t1 - t0 is never 0 (a view dividing by
   * it draws at NaN) */
  if (!(b > a))
    b = a + 1.0;
  if (!(b > a))
    b = nextafter (a, INFINITY);
  *t0 = a;
  *t1 = b;
}


cairo_rectangle_int_t
vv_rect_around (double x0, double y0, double x1, double y1, int w, int h)
{
  int a = (int) floor (x0) - 1, b = (int) floor (y0) - 1;
  int c = (int) ceil (x1) + 1, d = (int) ceil (y1) + 1;
  a = CLAMP (a, 0, w), c = CLAMP (c, 0, w);
  b = CLAMP (b, 0, h), d = CLAMP (d, 0, h);
  return (cairo_rectangle_int_t) { a, b, c - a, d - b };
}

cairo_rectangle_int_t
vv_rect_union (cairo_rectangle_int_t a, cairo_rectangle_int_t b)
{
  int x0 = MIN (a.x, b.x), y0 = MIN (a.y, b.y);
  int x1 = MAX (a.x + a.width, b.x + b.width), y1 = MAX (a.y + a.height, b.y + b.height);
  return (cairo_rectangle_int_t) { x0, y0, x1 - x0, y1 - y0 };
}


ViperViewGeometry *
viper_view_geometry_new (ViperViewKind kind, const ViperModel *m, const ViperRun *run,
                         const ViperLayout *layout, const ViperTimeWindow *window, int width, int height)
{
  ViperViewGeometry *g = g_new0 (ViperViewGeometry, 1);
  g->kind = kind;
  g->width = MAX (width, 1);
  g->height = MAX (height, 1);
  g->r = viper_view_renderer (m);
  g->mods = g_array_new (FALSE, TRUE, sizeof (ModBox));
  g->vars = g_array_new (FALSE, TRUE, sizeof (VarBox));
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (m)
    g->r->modules (m, run, ids);
  const ViperViewSetup *vs = layout && layout->setup ? layout->setup
                           : m && g->r->view_setup ? g->r->view_setup (m) : NULL;
  if (vs)
    {
      viper_view_layout_select (vs, kind, ids);
      if (kind == VIPER_VIEW_ANIMATION)
        g->setup = vs;
    }
  g_array_set_size (g->mods, ids->len);
  for (guint i = 0; i < ids->len; i++)
    g_array_index (g->mods, ModBox, i).id = g_array_index (ids, gint64, i);
  g_array_unref (ids);
  /* the array is not resized after this, so keys may point into it */
  g->index = g_hash_table_new (g_int64_hash, g_int64_equal);
  gint64 lo = 0, hi = -1;
  for (guint i = 0; i < g->mods->len; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      g_hash_table_insert (g->index, &b->id, b);
      lo = MIN (lo, b->id), hi = MAX (hi, b->id);
    }
  /* ids 0 .. n (PICL's processors, most setups): an array finds them, the
   * hash is for the others - the space-time view looks up a row per message */
  if (lo >= 0 && hi >= 0 && hi < 4 * (gint64) g->mods->len + 64)
    {
      g->n_dense = hi + 1;
      g->dense = g_new (gint32, g->n_dense);
      memset (g->dense, 0xff, sizeof (gint32) * (gsize) g->n_dense);
      for (guint i = 0; i < g->mods->len; i++)
        {
          /* a repeated id: the last, as the hash keeps it */
          g->dense[g_array_index (g->mods, ModBox, i).id] = (gint32) i;
        }
    }
  switch (kind)
    {
    case VIPER_VIEW_ANIMATION: vv_place_animation (g, layout); break;
    case VIPER_VIEW_SPACETIME: vv_place_spacetime (g, m, window); break;
    case VIPER_VIEW_VARIABLES: vv_place_variables (g, m); break;
    case VIPER_VIEW_PROGRAM:
    default: vv_place_program (g); break;
    }
  return g;
}

void
viper_view_geometry_free (ViperViewGeometry *g)
{
  if (!g)
    return;
  g_hash_table_destroy (g->index);
  g_free (g->dense);
  g_array_unref (g->mods);
  g_array_unref (g->vars);
  g_free (g);
}

ViperViewKind viper_view_geometry_kind (const ViperViewGeometry *g) { return g->kind; }
guint viper_view_geometry_n_modules (const ViperViewGeometry *g) { return g->mods->len; }

gint64
viper_view_geometry_module (const ViperViewGeometry *g, guint i)
{
  return i < g->mods->len ? g_array_index (g->mods, ModBox, i).id : -1;
}

const ModBox *
vv_find_mod (const ViperViewGeometry *g, gint64 id)
{
  if (g->dense && id >= 0 && id < g->n_dense)
    return g->dense[id] < 0 ? NULL : &g_array_index (g->mods, ModBox, g->dense[id]);
  return g_hash_table_lookup (g->index, &id);
}

gboolean
viper_view_geometry_module_point (const ViperViewGeometry *g, gint64 id, double *x, double *y)
{
  if (g->kind == VIPER_VIEW_PROGRAM)
    {
      /* the program view has one "module": the square, asked for as -1 */
      if (id != -1)
        return FALSE;
      *x = g->px + g->pside / 2;
      *y = g->py + g->pside / 2;
      return TRUE;
    }
  const ModBox *b = vv_find_mod (g, id);
  if (!b)
    return FALSE;
  *x = b->x;
  *y = b->y;
  return TRUE;
}

gboolean
viper_view_geometry_module_box (const ViperViewGeometry *g, gint64 id, double *x, double *y, double *w, double *h)
{
  const ModBox *b = g->setup ? vv_find_mod (g, id) : NULL;
  if (!b)
    return FALSE;
  *x = b->bx, *y = b->by, *w = b->bw, *h = b->bh;
  return TRUE;
}

gboolean
viper_view_geometry_module_text_room (const ViperViewGeometry *g, gint64 id, guint line, double *x, double *y,
                                      double *w, double *h)
{
  const ModBox *b = g->kind == VIPER_VIEW_ANIMATION && line < 2 ? vv_find_mod (g, id) : NULL;
  if (!b || b->text_w[line] <= 0)
    return FALSE;
  *w = b->text_w[line];
  *x = b->text_x - b->text_align * *w;
  vv_an_text_band (b, line, y, h);
  *h -= *y;
  return TRUE;
}

gboolean
viper_view_geometry_transform (const ViperViewGeometry *g, ViperViewTransform *out)
{
  if (g->kind != VIPER_VIEW_ANIMATION || !g->setup)
    return FALSE;
  *out = g->xf;
  return TRUE;
}

gboolean
viper_view_geometry_time_x (const ViperViewGeometry *g, double t, double *x)
{
  if (g->kind != VIPER_VIEW_SPACETIME || g->no_run)
    return FALSE;
  *x = vv_st_x (g, t);
  return TRUE;
}

gboolean
viper_view_geometry_plot (const ViperViewGeometry *g, double *t0, double *t1, double *x0, double *x1)
{
  if (g->kind != VIPER_VIEW_SPACETIME || g->no_run)
    return FALSE;
  *t0 = g->t0, *t1 = g->t1;
  *x0 = g->plot_x, *x1 = g->plot_x + g->plot_w;
  return TRUE;
}

gboolean
viper_view_geometry_rows (const ViperViewGeometry *g, guint *n, guint *first, guint *shown, double *row_h)
{
  if (g->kind != VIPER_VIEW_SPACETIME)
    return FALSE;
  *n = g->mods->len, *first = g->first_row, *shown = g->rows_shown, *row_h = g->row_h;
  return TRUE;
}

gboolean
viper_view_area_rect (const ViperViewGeometry *g, const ViperArea *area, cairo_rectangle_int_t *out)
{
  cairo_rectangle_int_t whole = { 0, 0, g->width, g->height };
  if (area->kind == VIPER_AREA_ALL)
    {
      *out = whole;
      return TRUE;
    }
  const ModBox *a = NULL, *b = NULL;
  switch (g->kind)
    {
    case VIPER_VIEW_ANIMATION:
      switch (area->kind)
        {
        case VIPER_AREA_MODULE:
        case VIPER_AREA_VARIABLE:   /* the exposure circle */
          if (!(a = vv_find_mod (g, area->a)))
            return FALSE;
          *out = a->box;
          return TRUE;
        case VIPER_AREA_LINK:
          /* one rectangle that holds both discs holds the arrow between them */
          a = vv_find_mod (g, area->a);
          b = vv_find_mod (g, area->b);
          if (!a && !b)
            return FALSE;
          *out = a && b ? vv_rect_union (a->box, b->box) : (a ? a : b)->box;
          return TRUE;
        case VIPER_AREA_CLOCK:
          *out = g->clock_box;
          return TRUE;
        default:
          return FALSE;
        }
    case VIPER_VIEW_SPACETIME:
      switch (area->kind)
        {
        case VIPER_AREA_MODULE:
          /* even while following: a change whose adjusted time is behind
           * the clock does not move it, and without its row the strip at
           * the right edge would keep showing the old state */
          if (!(a = vv_find_mod (g, area->a)))
            return FALSE;
          *out = a->box;
          return TRUE;
        case VIPER_AREA_LINK:
          a = vv_find_mod (g, area->a);
          b = vv_find_mod (g, area->b);
          if (!a && !b)
            return FALSE;
          *out = a && b ? vv_rect_union (a->box, b->box) : (a ? a : b)->box;
          return TRUE;
        case VIPER_AREA_CLOCK:
          /* following: the time axis moves under everything */
          *out = g->follow ? whole : g->clock_box;
          return TRUE;
        default:
          return FALSE;
        }
    case VIPER_VIEW_VARIABLES:
      switch (area->kind)
        {
        case VIPER_AREA_MODULE:
          if (!(a = vv_find_mod (g, area->a)))
            return FALSE;
          *out = a->box;
          return TRUE;
        case VIPER_AREA_VARIABLE:
          if (!(a = vv_find_mod (g, area->a)))
            return FALSE;
          if (area->b < 0 || (guint64) area->b >= a->n_vars)
            {
              /* a variable the layout has no row for yet: its module's rows are stale */
              *out = whole;
              return TRUE;
            }
          *out = g_array_index (g->vars, VarBox, a->first_var + (guint) area->b).box;
          return TRUE;
        default:
          return FALSE;
        }
    case VIPER_VIEW_PROGRAM:
    default:
      switch (area->kind)
        {
        case VIPER_AREA_PROGRAM:
          *out = whole;
          return TRUE;
        case VIPER_AREA_CLOCK:
          *out = g->clock_box;
          return TRUE;
        default:
          return FALSE;
        }
    }
}

guint
viper_view_damage_rects (const ViperViewGeometry *g, const GArray *areas, GArray *rects)
{
  guint n = 0;
  for (guint i = 0; i < areas->len; i++)
    {
      cairo_rectangle_int_t r;
      if (viper_view_area_rect (g, &g_array_index (areas, ViperArea, i), &r) && r.width > 0 && r.height > 0)
        {
          g_array_append_val (rects, r);
          n++;
        }
    }
  return n;
}
/* ---- drawing helpers ---------------------------------------------------------------- */

void
vv_set_color (cairo_t *cr, ViperColor c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

void
vv_font (cairo_t *cr, double size, gboolean bold)
{
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
}

/* align: 0 left, 0.5 centre, 1 right; y is the baseline */
double
vv_text (cairo_t *cr, double x, double y, double align, const char *s)
{
  cairo_text_extents_t e;
  cairo_text_extents (cr, s, &e);
  cairo_move_to (cr, x - align * e.x_advance, y);
  cairo_show_text (cr, s);
  return e.x_advance;
}

double
vv_text_fit (cairo_t *cr, double x, double y, double align, const char *s, double max_w)
{
  cairo_text_extents_t e;
  cairo_text_extents (cr, s, &e);
  if (e.x_advance <= max_w || !g_utf8_validate (s, -1, NULL))
    return vv_text (cr, x, y, align, s);
  if (max_w <= 0)
    return 0;
  /* the longest start of s that fits with an ellipsis after it */
  glong n = g_utf8_strlen (s, -1), lo = 0, hi = n;
  char *best = g_strdup ("\u2026");
  while (lo < hi)
    {
      glong mid = (lo + hi + 1) / 2;
      char *head = g_utf8_substring (s, 0, mid);
      char *try = g_strconcat (g_strchomp (head), "\u2026", NULL);
      cairo_text_extents (cr, try, &e);
      g_free (head);
      if (e.x_advance <= max_w)
        {
          g_free (best);
          best = try;
          lo = mid;
        }
      else
        {
          g_free (try);
          hi = mid - 1;
        }
    }
  double w = vv_text (cr, x, y, align, best);
  g_free (best);
  return w;
}

char *
viper_view_format_clock (double t, double resolution, char *buf, gsize len)
{
  if (!isfinite (t))
    {
      g_strlcpy (buf, "-", len);
      return buf;
    }
  int digits = 6;
  if (resolution > 0 && t != 0)
    digits = CLAMP ((int) ceil (log10 (fabs (t) / resolution)) + 1, 6, 15);
  else if (fabs (t) >= 1e5)
    /* a large clock (Unix time stamps: 1.8e9 s) keeps every integer digit
     * and three decimals, so the readout moves as the clock does: six
     * significant digits ("1.79555e+09") stood still for hours */
    digits = CLAMP ((int) floor (log10 (fabs (t))) + 1 + 3, 6, 15);
  g_snprintf (buf, len, "%.*g", digits, t);
  return buf;
}

const char *
viper_view_axis_unit (const char *trace_unit, double span, double *scale)
{
  static const struct {
    const char *name, *alias;
    double seconds;
  } units[] = { { "s", "s", 1 }, { "ms", "ms", 1e-3 }, { "\u00b5s", "us", 1e-6 }, { "ns", "ns", 1e-9 } };
  *scale = 1;
  if (!trace_unit)
    return "";
  double per = 0;   /* seconds per trace unit */
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_equal (trace_unit, units[i].name) || g_str_equal (trace_unit, units[i].alias))
      per = units[i].seconds;
  if (per == 0)
    return trace_unit;
  double seconds = fabs (span) * per;
  guint k = 0;
  while (k + 1 < G_N_ELEMENTS (units) && seconds < units[k].seconds)
    k++;
  if (!(seconds > 0))
    for (k = 0; units[k].seconds != per; k++)
      ;    /* no span (a run of one instant): the trace's own unit */
  *scale = per / units[k].seconds;
  return units[k].name;
}

void
vv_format_time (double t, char *buf, gsize len)
{
  viper_view_format_clock (t, 0, buf, len);
}

guint
viper_view_legend (const ViperRenderer *r, ViperViewKind kind, ViperLegendEntry *out, guint max)
{
  const ViperLegendEntry *own = NULL;
  guint n = r->legend ? r->legend (kind, &own) : 0;
  if (own)
    {
      for (guint i = 0; i < MIN (n, max); i++)
        out[i] = own[i];
      return MIN (n, max);
    }
  n = MIN (r->n_states, max);
  for (guint s = 0; s < n; s++)
    {
      out[s].color = r->state_color ((gint) s);
      out[s].text = r->state_name ((gint) s);
    }
  return n;
}

#define LEGEND_MAX 32

/* The legend's width at font size FS with GAP between entries. */
static double
legend_width (cairo_t *cr, const ViperLegendEntry *e, guint n, double fs, double gap)
{
  double w = 0;
  vv_font (cr, fs, FALSE);
  for (guint s = 0; s < n; s++)
    {
      cairo_text_extents_t x;
      cairo_text_extents (cr, e[s].text, &x);
      w += 14 + x.x_advance + (s + 1 < n ? gap : 0);
    }
  return w;
}

/* The legend from (x, y) within [x, right]; *ink_right: where its last text ends. */
static double
legend_draw (cairo_t *cr, const ViperRenderer *r, ViperViewKind kind, double x, double y, double right,
             double *ink_right)
{
  ViperLegendEntry e[LEGEND_MAX];
  guint n = viper_view_legend (r, kind, e, LEGEND_MAX);
  *ink_right = x;
  /* as it is where it fits; else further left (down to 4 px), then smaller
   * (down to 8 pt, closer), and past that the entries that fit, whole */
  double fs = 11, gap = 12;
  double w = legend_width (cr, e, n, fs, gap);
  if (x + w > right)
    x = MAX (4.0, right - w);
  while (x + w > right && fs > 8)
    {
      fs -= 1;
      gap = MAX (gap - 2, 6.0);
      w = legend_width (cr, e, n, fs, gap);
    }
  for (guint s = 0; s < n; s++)
    {
      cairo_text_extents_t te;
      vv_font (cr, fs, FALSE);
      cairo_text_extents (cr, e[s].text, &te);
      if (x + 14 + te.x_advance > right)
        break;
      cairo_new_path (cr);
      vv_set_color (cr, e[s].color);
      cairo_rectangle (cr, x, y - 9, 10, 10);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
      x += 14 + vv_text (cr, x + 14, y, 0, e[s].text);
      *ink_right = x;
      x += gap;
    }
  vv_font (cr, 11, FALSE);
  return x;
}

double
vv_draw_legend_fit (cairo_t *cr, const ViperRenderer *r, ViperViewKind kind, double x, double y, double right)
{
  double ink;
  return legend_draw (cr, r, kind, x, y, right, &ink);
}

double
viper_view_draw_state_legend (cairo_t *cr, const ViperRenderer *r, double x, double y, double right)
{
  return vv_draw_legend_fit (cr, r, VIPER_VIEW_ANIMATION, x, y, right);
}

double
vv_draw_legend (cairo_t *cr, const ViperRenderer *r, ViperViewKind kind, double x, double y, double right)
{
  double ink;
  legend_draw (cr, r, kind, x, y, right, &ink);
  return MAX (ink - x, 0);
}


static int
cmp_arrow_look (gconstpointer a, gconstpointer b)
{
  const VvArrow *x = a, *y = b;
  if (x->dashed != y->dashed)
    return x->dashed - y->dashed;
  if (x->color.r != y->color.r)
    return x->color.r < y->color.r ? -1 : 1;
  if (x->color.g != y->color.g)
    return x->color.g < y->color.g ? -1 : 1;
  return (x->color.b > y->color.b) - (x->color.b < y->color.b);
}

void
vv_stroke_arrows (cairo_t *cr, GArray *arrows, double head, gboolean shaft_each)
{
  g_array_sort (arrows, cmp_arrow_look);
  double dash[] = { 5, 3 };
  for (guint i = 0; i < arrows->len;)
    {
      guint j = i;
      while (j < arrows->len
             && cmp_arrow_look (&g_array_index (arrows, VvArrow, i), &g_array_index (arrows, VvArrow, j)) == 0)
        j++;
      const VvArrow *first = &g_array_index (arrows, VvArrow, i);
      vv_set_color (cr, first->color);
      /* head 0: shafts only, to the end */
      for (int part = 0; part < (head > 0 ? 2 : 1); part++)
        {
          cairo_new_path (cr);
          if (part == 0)
            cairo_set_dash (cr, dash, first->dashed ? 2 : 0, 0);
          for (guint k = i; k < j; k++)
            {
              const VvArrow *a = &g_array_index (arrows, VvArrow, k);
              double dx = a->x1 - a->x0, dy = a->y1 - a->y0, len = hypot (dx, dy);
              if (len < 1)
                continue;
              double ux = dx / len, uy = dy / len;
              if (part == 0)
                {
                  cairo_move_to (cr, a->x0, a->y0);
                  cairo_line_to (cr, a->x1 - ux * head * 0.8, a->y1 - uy * head * 0.8);
                  if (shaft_each)
                    cairo_stroke (cr);
                }
              else
                {
                  cairo_move_to (cr, a->x1, a->y1);
                  cairo_line_to (cr, a->x1 - ux * head - uy * head * 0.45, a->y1 - uy * head + ux * head * 0.45);
                  cairo_line_to (cr, a->x1 - ux * head + uy * head * 0.45, a->y1 - uy * head - ux * head * 0.45);
                  cairo_close_path (cr);
                }
            }
          if (part == 0)
            {
              if (!shaft_each)
                cairo_stroke (cr);
              cairo_set_dash (cr, NULL, 0, 0);
            }
          else
            cairo_fill (cr);
        }
      i = j;
    }
}

void
viper_view_draw (ViperViewKind kind, cairo_t *cr, const ViperModel *m, const ViperRun *run,
                 const ViperLayout *layout, const ViperTimeWindow *window, int width, int height)
{
  const ViperRenderer *r = m ? viper_view_renderer (m) : NULL;
  if (r && r->draw_view)
    {
      cairo_save (cr);
      gboolean drawn = r->draw_view (cr, m, kind, width, height);
      cairo_restore (cr);
      if (drawn)
        return;
    }
  ViperViewGeometry *g = viper_view_geometry_new (kind, m, run, layout, window, width, height);
  cairo_save (cr);
  switch (kind)
    {
    case VIPER_VIEW_ANIMATION: vv_draw_animation (cr, g, m, run); break;
    case VIPER_VIEW_SPACETIME: vv_draw_spacetime (cr, g, m, run, window); break;
    case VIPER_VIEW_VARIABLES: vv_draw_variables (cr, g, m); break;
    case VIPER_VIEW_PROGRAM:
    default: vv_draw_program (cr, g, m); break;
    }
  cairo_restore (cr);
  viper_view_geometry_free (g);
}

/* ---- files -------------------------------------------------------------------------- */

/* cairo's stream callback: the bytes go to a ViperOutFile, which keeps the
 * real reason of a failure (cairo itself only knows "error while writing to
 * output stream"). */
static cairo_status_t
write_to_outfile (void *closure, const unsigned char *data, unsigned int length)
{
  return viper_outfile_write (closure, data, length) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int
viper_view_image_format (const char *path)
{
  char *lower = g_ascii_strdown (path, -1);
  int fmt = g_str_has_suffix (lower, ".png") ? 0 : g_str_has_suffix (lower, ".svg") ? 1
            : g_str_has_suffix (lower, ".pdf") ? 2 : -1;
  g_free (lower);
  return fmt;
}

/* Draw into out (already open) and close it; the target is left as it was
 * on any failure. */
static gboolean
render_kind_to_outfile (ViperViewKind kind, const ViperModel *model, const ViperRun *run, const ViperLayout *layout,
                        const ViperTimeWindow *window, ViperOutFile *out, int fmt, int width, int height,
                        GError **error)
{
  if (width <= 0 || height <= 0 || fmt < 0 || fmt > 2)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: %s", viper_outfile_name (out),
                   fmt < 0 || fmt > 2 ? "unknown image format (use .png, .svg or .pdf)"
                                      : "the image size must be positive");
      viper_outfile_abort (out);
      return FALSE;
    }
  cairo_surface_t *s = fmt == 0 ? cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height)
                       : fmt == 1 ? cairo_svg_surface_create_for_stream (write_to_outfile, out, width, height)
                                  : cairo_pdf_surface_create_for_stream (write_to_outfile, out, width, height);
  cairo_t *cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (kind, cr, model, run, layout, window, width, height);
  cairo_destroy (cr);
  cairo_status_t st = fmt == 0 ? cairo_surface_write_to_png_stream (s, write_to_outfile, out) : CAIRO_STATUS_SUCCESS;
  cairo_surface_finish (s);
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_status (s);
  cairo_surface_destroy (s);
  if (st != CAIRO_STATUS_SUCCESS && viper_outfile_ok (out))
    {
      /* cairo's own failure (memory, size): nothing is written */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cannot draw the image: %s", viper_outfile_name (out),
                   cairo_status_to_string (st));
      viper_outfile_abort (out);
      return FALSE;
    }
  GError *ferr = NULL;
  if (!viper_outfile_close (out, &ferr))
    {
      /* the real reason ("No space left on device"), from the file */
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, ferr->message);
      g_error_free (ferr);
      return FALSE;
    }
  return TRUE;
}

gboolean
viper_view_render_kind_to_file (ViperViewKind kind, const ViperModel *model, const ViperRun *run,
                                const ViperLayout *layout, const ViperTimeWindow *window,
                                const char *path, int width, int height, GError **error)
{
  if (width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: the image size must be positive", path);
      return FALSE;
    }
  int fmt = viper_view_image_format (path);
  if (fmt < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: unknown image format (use .png, .svg or .pdf)", path);
      return FALSE;
    }
  GError *ferr = NULL;
  ViperOutFile *out = viper_outfile_open (path, g_get_prgname (), &ferr);
  if (!out)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, ferr->message);
      g_error_free (ferr);
      return FALSE;
    }
  return render_kind_to_outfile (kind, model, run, layout, window, out, fmt, width, height, error);
}

gboolean
viper_view_render_to_outfile (const char *view, ViperModel *model, const ViperRun *run,
                              const ViperTimeWindow *window, ViperOutFile *out, int fmt, int width, int height,
                              GError **error)
{
  int kind = viper_view_kind_from_name (view);
  if (kind < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "unknown view '%s' (animation, spacetime, variables or program)", view ? view : "");
      viper_outfile_abort (out);
      return FALSE;
    }
  ViperTimeWindow w;
  if (window)
    w = *window;
  else
    viper_time_window_init (&w);
  return render_kind_to_outfile ((ViperViewKind) kind, model, run, NULL, &w, out, fmt, width, height, error);
}

gboolean
viper_view_render_to_file (const char *view, ViperModel *model, const ViperRun *run, const char *path,
                           int width, int height, GError **error)
{
  int kind = viper_view_kind_from_name (view);
  if (kind < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "unknown view '%s' (animation, spacetime, variables or program)", view ? view : "");
      return FALSE;
    }
  ViperTimeWindow w;
  viper_time_window_init (&w);
  return viper_view_render_kind_to_file ((ViperViewKind) kind, model, run, NULL, &w, path, width, height, error);
}
