/* views.c - the four views, drawn with cairo (thesis 3.2.1), and where
 * each abstract damaged area lies in them (thesis 4.1.1).
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
#include "views.h"
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
          /* everything the history holds.  It is appended in run order,
           * which is time order up to the offsets between modules, so the
           * earliest start is among the first entries: looking at a few keeps
           * this O(1) for a history of millions */
          a = b;
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
  if (!(b > a))
    b = a + 1.0;
  *t0 = a;
  *t1 = b;
}

/* ---- geometry ------------------------------------------------------------------- */

typedef struct {
  gint64 id;
  double x, y;              /* animation: disc centre; space-time: row centre at the state strip;
                               variables: header state dot */
  double r;                 /* animation: disc radius */
  cairo_rectangle_int_t box;  /* everything drawn for the module */
  guint first_var, n_vars;  /* variables view: rows in vars */
  double bx, by, bw, bh;    /* animation laid out by a view setup file: the module's box */
} ModBox;

typedef struct {
  gint64 id;
  guint var;
  cairo_rectangle_int_t box;
} VarBox;

struct _ViperViewGeometry {
  ViperViewKind kind;
  int width, height;
  const ViperRenderer *r;
  GArray *mods;             /* ModBox, display order */
  GHashTable *index;        /* gint64 id (pointing into mods) -> ModBox */
  GArray *vars;             /* VarBox (variables view) */
  cairo_rectangle_int_t clock_box;
  /* space-time */
  double t0, t1;
  double plot_x, plot_w, top, row_h;
  double strip_x;
  gboolean follow;
  /* program view */
  double px, py, pside;
  /* animation view laid out by a view setup file (viewlayout.h) */
  const ViperViewSetup *setup;
  ViperViewTransform xf;
};

#define ST_LABEL_W 110.0
#define ST_TOP 8.0
#define ST_AXIS 44.0      /* time axis and legend */
#define ST_STRIP 10.0     /* the "now" strip right of the plot */
#define AN_TOP 30.0
#define AN_LEGEND 26.0
#define VAR_COL_W 260
#define VAR_HEAD 24
#define VAR_ROW 18

static cairo_rectangle_int_t
rect_around (double x0, double y0, double x1, double y1, int w, int h)
{
  int a = (int) floor (x0) - 1, b = (int) floor (y0) - 1;
  int c = (int) ceil (x1) + 1, d = (int) ceil (y1) + 1;
  a = CLAMP (a, 0, w), c = CLAMP (c, 0, w);
  b = CLAMP (b, 0, h), d = CLAMP (d, 0, h);
  return (cairo_rectangle_int_t) { a, b, c - a, d - b };
}

static cairo_rectangle_int_t
rect_union (cairo_rectangle_int_t a, cairo_rectangle_int_t b)
{
  int x0 = MIN (a.x, b.x), y0 = MIN (a.y, b.y);
  int x1 = MAX (a.x + a.width, b.x + b.width), y1 = MAX (a.y + a.height, b.y + b.height);
  return (cairo_rectangle_int_t) { x0, y0, x1 - x0, y1 - y0 };
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
      const ViperViewModule *mod = viper_view_setup_module (g->setup, b->id);
      if (g->r->draw_module && mod && !g_str_equal (mod->repr, "circle"))
        b->box = rect_around (b->bx, b->by, b->bx + b->bw, b->by + b->bh, w, h);
      else
        {
          /* the generic disc with its label and activity lines under it */
          double rr = b->r + VIPER_VIEW_DECORATION_MARGIN, half = MAX (rr, 60.0);
          b->box = rect_around (b->x - half, b->y - rr, b->x + half, b->y + rr + 32, w, h);
        }
    }
  g->clock_box = rect_around (0, 0, w, AN_TOP, w, h);
}

static void
place_animation (ViperViewGeometry *g, const ViperLayout *layout)
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
  double R = 0.36 * m;
  double r = n <= 1 ? 0.15 * m : MIN (0.42 * 2 * R * sin (G_PI / n), 0.11 * m);
  r = MAX (r, 3.0);
  for (guint i = 0; i < n; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      double fx, fy;
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
          b->x = w / 2.0 + R * cos (a);
          b->y = AN_TOP + ah / 2.0 + R * sin (a);
        }
      /* whole pixels keep the disc centre one exact colour */
      b->x = floor (b->x) + 0.5;
      b->y = floor (b->y) + 0.5;
      b->r = r;
      double rr = r + VIPER_VIEW_DECORATION_MARGIN;
      double half = MAX (rr, 60.0);
      b->box = rect_around (b->x - half, b->y - rr, b->x + half, b->y + rr + 32, w, h);
    }
  g->clock_box = rect_around (0, 0, w, AN_TOP, w, h);
}

static void
place_spacetime (ViperViewGeometry *g, const ViperModel *m, const ViperTimeWindow *window)
{
  int w = g->width, h = g->height;
  guint n = MAX (g->mods->len, 1u);
  g->follow = window ? window->follow : TRUE;
  viper_time_window_range (window, m, &g->t0, &g->t1);
  g->plot_x = ST_LABEL_W;
  g->strip_x = MAX (w - ST_STRIP - 4.0, g->plot_x + 10);
  g->plot_w = MAX (g->strip_x - 6.0 - g->plot_x, 10.0);
  g->top = ST_TOP;
  g->row_h = MAX ((h - ST_TOP - ST_AXIS) / n, 2.0);
  for (guint i = 0; i < g->mods->len; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      double y0 = g->top + i * g->row_h;
      b->x = floor (g->strip_x + ST_STRIP / 2) + 0.5;
      b->y = floor (y0 + g->row_h / 2) + 0.5;
      b->box = rect_around (0, y0, w, y0 + g->row_h, w, h);
    }
  g->clock_box = rect_around (g->plot_x, 0, w, h, w, h);
}

static void
place_variables (ViperViewGeometry *g, const ViperModel *m)
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
      b->box = rect_around (x0, y, x1, y + VAR_HEAD, w, h);
      b->first_var = g->vars->len;
      b->n_vars = nv;
      for (guint v = 0; v < nv; v++)
        {
          VarBox vb = { b->id, v, rect_around (x0, y + VAR_HEAD + v * VAR_ROW, x1, y + VAR_HEAD + (v + 1) * VAR_ROW, w, h) };
          g_array_append_val (g->vars, vb);
        }
    }
  g->clock_box = (cairo_rectangle_int_t) { 0, 0, 0, 0 };
}

static void
place_program (ViperViewGeometry *g)
{
  int w = g->width, h = g->height;
  g->pside = floor (MAX (MIN (w * 0.5, h * 0.5), 10.0));
  g->px = floor ((w - g->pside) / 2);
  g->py = floor (MAX (h * 0.08, 6.0));
  g->clock_box = rect_around (0, g->py + g->pside, w, h, w, h);
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
  for (guint i = 0; i < g->mods->len; i++)
    {
      ModBox *b = &g_array_index (g->mods, ModBox, i);
      g_hash_table_insert (g->index, &b->id, b);
    }
  switch (kind)
    {
    case VIPER_VIEW_ANIMATION: place_animation (g, layout); break;
    case VIPER_VIEW_SPACETIME: place_spacetime (g, m, window); break;
    case VIPER_VIEW_VARIABLES: place_variables (g, m); break;
    case VIPER_VIEW_PROGRAM:
    default: place_program (g); break;
    }
  return g;
}

void
viper_view_geometry_free (ViperViewGeometry *g)
{
  if (!g)
    return;
  g_hash_table_destroy (g->index);
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

static const ModBox *
find_mod (const ViperViewGeometry *g, gint64 id)
{
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
  const ModBox *b = find_mod (g, id);
  if (!b)
    return FALSE;
  *x = b->x;
  *y = b->y;
  return TRUE;
}

gboolean
viper_view_geometry_module_box (const ViperViewGeometry *g, gint64 id, double *x, double *y, double *w, double *h)
{
  const ModBox *b = g->setup ? find_mod (g, id) : NULL;
  if (!b)
    return FALSE;
  *x = b->bx, *y = b->by, *w = b->bw, *h = b->bh;
  return TRUE;
}

static double st_x (const ViperViewGeometry *g, double t);

gboolean
viper_view_geometry_time_x (const ViperViewGeometry *g, double t, double *x)
{
  if (g->kind != VIPER_VIEW_SPACETIME)
    return FALSE;
  *x = st_x (g, t);
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
          if (!(a = find_mod (g, area->a)))
            return FALSE;
          *out = a->box;
          return TRUE;
        case VIPER_AREA_LINK:
          /* one rectangle that holds both discs holds the arrow between them */
          a = find_mod (g, area->a);
          b = find_mod (g, area->b);
          if (!a && !b)
            return FALSE;
          *out = a && b ? rect_union (a->box, b->box) : (a ? a : b)->box;
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
          if (g->follow)
            return FALSE;   /* a following view repaints all of itself on the clock */
          if (!(a = find_mod (g, area->a)))
            return FALSE;
          *out = a->box;
          return TRUE;
        case VIPER_AREA_LINK:
          if (g->follow)
            return FALSE;
          a = find_mod (g, area->a);
          b = find_mod (g, area->b);
          if (!a && !b)
            return FALSE;
          *out = a && b ? rect_union (a->box, b->box) : (a ? a : b)->box;
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
          if (!(a = find_mod (g, area->a)))
            return FALSE;
          *out = a->box;
          return TRUE;
        case VIPER_AREA_VARIABLE:
          if (!(a = find_mod (g, area->a)))
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

static void
set_color (cairo_t *cr, ViperColor c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

static void
font (cairo_t *cr, double size, gboolean bold)
{
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
}

/* align: 0 left, 0.5 centre, 1 right; y is the baseline */
static double
text (cairo_t *cr, double x, double y, double align, const char *s)
{
  cairo_text_extents_t e;
  cairo_text_extents (cr, s, &e);
  cairo_move_to (cr, x - align * e.x_advance, y);
  cairo_show_text (cr, s);
  return e.x_advance;
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

static void
format_time (double t, char *buf, gsize len)
{
  if (!isfinite (t))
    g_strlcpy (buf, "-", len);
  else
    g_snprintf (buf, len, "%.6g", t);
}

static void
draw_legend (cairo_t *cr, const ViperRenderer *r, double x, double y)
{
  cairo_new_path (cr);
  font (cr, 11, FALSE);
  for (guint s = 0; s < r->n_states; s++)
    {
      set_color (cr, r->state_color ((gint) s));
      cairo_rectangle (cr, x, y - 9, 10, 10);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
      x += 14 + text (cr, x + 14, y, 0, r->state_name ((gint) s)) + 12;
    }
}

/* ---- animation view ------------------------------------------------------------------- */

static void
draw_animation (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m, const ViperRun *run)
{
  const ViperRenderer *r = g->r;
  char buf[64], tb[32];
  format_time (m ? m->clock : NAN, tb, sizeof tb);
  g_snprintf (buf, sizeof buf, "clock %s", tb);
  cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
  font (cr, 13, TRUE);
  text (cr, 8, 20, 0, buf);
  if (!m)
    return;
  if (g->setup)
    viper_view_layout_draw_elements (cr, g->setup, &g->xf);

  /* arrows first: the discs cover their ends, so each disc's centre stays its state colour */
  if (r->arrows)
    {
      GArray *arrows = g_array_new (FALSE, FALSE, sizeof (ViperViewArrow));
      r->arrows (m, run, arrows);
      cairo_set_line_width (cr, 2.5);
      for (guint i = 0; i < arrows->len; i++)
        {
          const ViperViewArrow *a = &g_array_index (arrows, ViperViewArrow, i);
          const ModBox *f = find_mod (g, a->from), *t = find_mod (g, a->to);
          if (!f || !t || f == t)
            continue;
          double dx = t->x - f->x, dy = t->y - f->y, len = hypot (dx, dy);
          if (len < 1)
            continue;
          double ux = dx / len, uy = dy / len;
          /* parallel arrows of opposite directions side by side */
          double ox = -uy * 4, oy = ux * 4;
          set_color (cr, a->color);
          arrow_line (cr, f->x + ux * (f->r + 3) + ox, f->y + uy * (f->r + 3) + oy,
                      t->x - ux * (t->r + VIPER_VIEW_DECORATION_MARGIN) + ox,
                      t->y - uy * (t->r + VIPER_VIEW_DECORATION_MARGIN) + oy, 12, a->dashed);
        }
      g_array_unref (arrows);
    }

  for (guint i = 0; i < g->mods->len; i++)
    {
      const ModBox *b = &g_array_index (g->mods, ModBox, i);
      const ViperViewModule *mod = g->setup ? viper_view_setup_module (g->setup, b->id) : NULL;
      if (mod)
        {
          /* a damage repaint clips to a few boxes: of a thousand modules
           * skip those wholly outside it rather than build their paths */
          double cx0, cy0, cx1, cy1;
          cairo_clip_extents (cr, &cx0, &cy0, &cx1, &cy1);
          if (b->box.x >= cx1 || b->box.y >= cy1 || b->box.x + b->box.width <= cx0
              || b->box.y + b->box.height <= cy0)
            continue;
          if (r->draw_module && !g_str_equal (mod->repr, "circle"))
            {
              cairo_save (cr);
              gboolean drawn = r->draw_module (cr, m, b->id, mod->repr, b->bx, b->by, b->bw, b->bh, mod->label);
              cairo_restore (cr);
              if (drawn)
                continue;
            }
        }
      gint s = r->module_state (m, b->id);
      /* text leaves a current point; an arc would draw a line from it */
      cairo_new_path (cr);
      cairo_arc (cr, b->x, b->y, b->r, 0, 2 * G_PI);
      set_color (cr, r->state_color (s));
      cairo_fill_preserve (cr);
      cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
      if (r->decorate_module)
        {
          cairo_save (cr);
          r->decorate_module (cr, m, b->id, b->x, b->y, b->r);
          cairo_restore (cr);
        }
      char *label = mod && mod->label ? g_strdup (mod->label) : r->module_label (m, b->id);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      font (cr, 12, TRUE);
      text (cr, b->x, b->y + b->r + VIPER_VIEW_DECORATION_MARGIN + 12, 0.5, label);
      g_free (label);
      if (r->module_activity)
        {
          char *act = r->module_activity (m, b->id);
          if (act)
            {
              font (cr, 10, FALSE);
              cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
              text (cr, b->x, b->y + b->r + VIPER_VIEW_DECORATION_MARGIN + 25, 0.5, act);
              g_free (act);
            }
        }
    }
  draw_legend (cr, r, 8, g->height - 8);
}

/* ---- space-time view ------------------------------------------------------------------ */

typedef struct {
  double last_t;
  gint last_state;
  /* the bar not painted yet: bars that share a pixel column merge into it,
   * so a row costs at most one rectangle per pixel however long the history */
  double px0, px1;
  gint pstate;
  gboolean pending;
} RowState;

static double
st_x (const ViperViewGeometry *g, double t)
{
  return g->plot_x + (t - g->t0) / (g->t1 - g->t0) * g->plot_w;
}

static gint
row_of (const ViperViewGeometry *g, gint64 id)
{
  const ModBox *b = find_mod (g, id);
  return b ? (gint) (b - &g_array_index (g->mods, ModBox, 0)) : -1;
}

static double
nice_step (double span, int target)
{
  double raw = span / MAX (target, 1);
  double p = pow (10, floor (log10 (raw)));
  double f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
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
  double y0 = g->top + row * g->row_h + g->row_h * 0.2;
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

static void
st_fill_bars (cairo_t *cr, const ViperRenderer *r, GArray *bars)
{
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
      set_color (cr, r->state_color (state));
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
  double x0 = st_x (g, a), x1 = st_x (g, b);
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
static void
st_row_bars (GArray *bars, const ViperViewGeometry *g, const ViperModel *m, gint row, RowState *rs)
{
  const ViperHistoryModule *h = viper_model_history_module (m, g_array_index (g->mods, ModBox, row).id);
  if (!h || !h->states->len)
    return;
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
      double col = floor (st_x (g, MAX (e->t0, g->t0)));
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
  out->underway = isnan (e->t1);
  double t1 = out->underway ? clock : e->t1;
  if (t1 < g->t0 || e->t0 > g->t1)
    return FALSE;
  out->e = e;
  out->x0 = st_x (g, e->t0);
  out->y0 = g->top + (row + 0.5) * g->row_h;
  out->x1 = st_x (g, t1);
  out->y1 = g->top + (rb + 0.5) * g->row_h;
  return TRUE;
}

/* Called for each message the view shows; TRUE stops the walk. */
typedef gboolean (*StArrowVisit) (const StArrow *a, gpointer data);

/* The messages a row's module sent that the view shows.  Those that have
 * arrived and fit in the module's arrow_span start at or after
 * t0 - arrow_span: a binary search finds the first, and one arrived message
 * per pixel column of their start is all a screen can show (taken[] marks
 * the plot's columns that have one, whichever row sent it), so after each
 * a search jumps to the next column.  Underway ones (and arrived ones
 * longer than the span, not yet swept from the list) are in the module's
 * `open` list and are all shown: they are few, and each is news.  The
 * painter and the tooltip both walk this, so the tooltip names only what
 * is drawn. */
static gboolean
st_row_arrows (const ViperViewGeometry *g, const ViperModel *m, gint row, double clock, guint8 *taken,
               StArrowVisit visit, gpointer data)
{
  const ViperHistoryModule *h = viper_model_history_module (m, g_array_index (g->mods, ModBox, row).id);
  if (!h)
    return FALSE;
  const GArray *refs = h->arrows;
  double stop = g->t1 + h->arrow_disorder;
  StArrow a;
  guint i = viper_history_refs_seek (refs, g->t0 - h->arrow_span);
  while (i < refs->len && ref_t0_max (refs, i) <= stop)
    {
      const ViperHistoryEntry *e = ref_entry (m, refs, i++);
      if (!e || isnan (e->t1) || !st_arrow_place (g, m, row, e, clock, &a))
        continue;
      double col = floor (a.x0);
      double c = col - floor (g->plot_x);
      gboolean in_plot = c >= 0 && c <= g->plot_w;
      if (!in_plot || !taken[(guint) c])
        {
          if (visit (&a, data))
            return TRUE;
          if (in_plot)
            taken[(guint) c] = 1;
        }
      guint k = refs_seek_from (refs, i, st_t (g, col + 1));
      i = MAX (i, k);
    }
  for (guint o = 0; o < h->open->len; o++)
    {
      const ViperHistoryEntry *e = viper_model_history_at (m, g_array_index (h->open, guint64, o));
      if (e && (isnan (e->t1) || e->t1 - e->t0 > h->arrow_span) && st_arrow_place (g, m, row, e, clock, &a)
          && visit (&a, data))
        return TRUE;
    }
  return FALSE;
}

/* Every row's messages; taken[] is shared so a pixel column keeps one. */
static gboolean
st_arrows (const ViperViewGeometry *g, const ViperModel *m, double clock, StArrowVisit visit, gpointer data)
{
  guint8 *taken = g_malloc0 ((gsize) g->plot_w + 2);
  gboolean stopped = FALSE;
  for (guint i = 0; m && i < g->mods->len && !stopped; i++)
    stopped = st_row_arrows (g, m, (gint) i, clock, taken, visit, data);
  g_free (taken);
  return stopped;
}

static gboolean
st_arrow_collect (const StArrow *a, gpointer data)
{
  g_array_append_val ((GArray *) data, *a);
  return FALSE;
}

static int
cmp_arrow_look (gconstpointer a, gconstpointer b)
{
  const StArrow *x = a, *y = b;
  if (x->underway != y->underway)
    return x->underway - y->underway;
  if (x->color.r != y->color.r)
    return x->color.r < y->color.r ? -1 : 1;
  if (x->color.g != y->color.g)
    return x->color.g < y->color.g ? -1 : 1;
  return (x->color.b > y->color.b) - (x->color.b < y->color.b);
}

/* The messages as arrow_line draws them, but one stroke for the shafts and
 * one fill for the heads of all the arrows that look alike (colour, dashed):
 * a handful of requests a frame however many arrows there are. */
static void
st_stroke_arrows (cairo_t *cr, GArray *arrows, double head)
{
  g_array_sort (arrows, cmp_arrow_look);
  double dash[] = { 5, 3 };
  for (guint i = 0; i < arrows->len;)
    {
      guint j = i;
      while (j < arrows->len && cmp_arrow_look (&g_array_index (arrows, StArrow, i),
                                                &g_array_index (arrows, StArrow, j)) == 0)
        j++;
      const StArrow *first = &g_array_index (arrows, StArrow, i);
      set_color (cr, first->color);
      for (int part = 0; part < 2; part++)
        {
          cairo_new_path (cr);
          for (guint k = i; k < j; k++)
            {
              const StArrow *a = &g_array_index (arrows, StArrow, k);
              double dx = a->x1 - a->x0, dy = a->y1 - a->y0, len = hypot (dx, dy);
              if (len < 1)
                continue;
              double ux = dx / len, uy = dy / len;
              if (part == 0)
                {
                  cairo_move_to (cr, a->x0, a->y0);
                  cairo_line_to (cr, a->x1 - ux * head * 0.8, a->y1 - uy * head * 0.8);
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
              cairo_set_dash (cr, dash, first->underway ? 2 : 0, 0);
              cairo_stroke (cr);
              cairo_set_dash (cr, NULL, 0, 0);
            }
          else
            cairo_fill (cr);
        }
      i = j;
    }
}

static void
draw_spacetime (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m, const ViperTimeWindow *window)
{
  const ViperRenderer *r = g->r;
  guint n = g->mods->len;
  double bottom = g->top + n * g->row_h;
  /* rows: labels and a light band per row */
  font (cr, 11, TRUE);
  for (guint i = 0; i < n; i++)
    {
      const ModBox *b = &g_array_index (g->mods, ModBox, i);
      double y0 = g->top + i * g->row_h;
      if (i % 2)
        {
          cairo_set_source_rgb (cr, 0.96, 0.96, 0.97);
          cairo_rectangle (cr, g->plot_x, y0, g->plot_w, g->row_h);
          cairo_fill (cr);
        }
      if (g->row_h >= 9)
        {
          char *label = r->module_label (m, b->id);
          cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
          text (cr, g->plot_x - 6, y0 + g->row_h / 2 + 4, 1, label);
          g_free (label);
        }
      /* the "now" strip: each module's current state */
      set_color (cr, r->state_color (r->module_state (m, b->id)));
      cairo_rectangle (cr, g->strip_x, y0 + g->row_h * 0.15, ST_STRIP, MAX (g->row_h * 0.7, 1));
      cairo_fill (cr);
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
  for (guint i = 0; m && i < n; i++)
    {
      st_row_bars (bars, g, m, (gint) i, &rows[i]);
      if (!isnan (rows[i].last_t))
        st_bar (bars, g, (gint) i, &rows[i], rows[i].last_t, clock, rows[i].last_state);
      st_paint (bars, g, (gint) i, &rows[i]);
    }
  st_fill_bars (cr, r, bars);
  g_array_unref (bars);
  g_free (rows);

  /* messages: from the sender's row at the send to the receiver's row at the
   * arrival, row by row of their senders */
  cairo_set_line_width (cr, 1.2);
  GArray *arrows = g_array_new (FALSE, FALSE, sizeof (StArrow));
  st_arrows (g, m, clock, st_arrow_collect, arrows);
  st_stroke_arrows (cr, arrows, MIN (7.0, g->row_h * 0.4 + 2));
  g_array_unref (arrows);
  cairo_restore (cr);

  /* axis */
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, g->plot_x, bottom + 0.5);
  cairo_line_to (cr, g->plot_x + g->plot_w, bottom + 0.5);
  cairo_stroke (cr);
  double step = nice_step (g->t1 - g->t0, MAX ((int) (g->plot_w / 90), 2));
  font (cr, 10, FALSE);
  for (double t = ceil (g->t0 / step) * step; t <= g->t1 + step * 1e-9; t += step)
    {
      double x = floor (st_x (g, t)) + 0.5;
      cairo_move_to (cr, x, bottom);
      cairo_line_to (cr, x, bottom + 4);
      cairo_stroke (cr);
      char tb[32];
      format_time (fabs (t) < step * 1e-9 ? 0 : t, tb, sizeof tb);
      text (cr, x, bottom + 15, 0.5, tb);
    }
  /* the breakpoint marker */
  double bp = window ? window->breakpoint : NAN;
  if (isfinite (bp) && bp >= g->t0 && bp <= g->t1)
    {
      double x = floor (st_x (g, bp)) + 0.5, d[] = { 4, 3 };
      cairo_set_source_rgb (cr, 0.1, 0.3, 0.9);
      cairo_set_line_width (cr, 1.5);
      cairo_set_dash (cr, d, 2, 0);
      cairo_move_to (cr, x, g->top);
      cairo_line_to (cr, x, bottom);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      font (cr, 10, TRUE);
      text (cr, x + 3, g->top + 9, 0, "breakpoint");
    }
  draw_legend (cr, r, g->plot_x, g->height - 6);
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
  gint row = (gint) floor ((y - g->top) / g->row_h);
  if (x < g->plot_x || x > g->plot_x + g->plot_w || row < 0 || (guint) row >= g->mods->len)
    goto done;
  double t = g->t0 + (x - g->plot_x) / g->plot_w * (g->t1 - g->t0);
  gint64 id = g_array_index (g->mods, ModBox, row).id;
  /* a message passing close to the pointer wins over the bar under it */
  StNear near = { x, y, NULL };
  if (st_arrows (g, m, isfinite (m->clock) ? m->clock : g->t1, st_arrow_near, &near))
    {
      const ViperHistoryEntry *e = near.e;
      char *a = r->module_label (m, e->module), *b = r->module_label (m, e->other);
      char t0s[32], t1s[32];
      format_time (e->t0, t0s, sizeof t0s);
      format_time (e->t1, t1s, sizeof t1s);
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
  if (state >= 0)
    {
      char *label = r->module_label (m, id);
      char fs[32], ts[32];
      format_time (from, fs, sizeof fs);
      format_time (isnan (to) ? m->clock : to, ts, sizeof ts);
      out = g_strdup_printf ("%s: %s from %s to %s%s", label, r->state_name (state), fs, ts,
                             isnan (to) ? " (now)" : "");
      g_free (label);
    }
done:
  viper_view_geometry_free (g);
  return out;
}

/* ---- variables view ---------------------------------------------------------------- */

static void
draw_variables (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m)
{
  const ViperRenderer *r = g->r;
  if (!g->mods->len)
    {
      cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
      font (cr, 12, FALSE);
      text (cr, 10, 24, 0, "no modules yet");
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
      cairo_set_source_rgb (cr, 0.93, 0.94, 0.96);
      cairo_rectangle (cr, b->box.x + 1, b->box.y + 1, b->box.width - 2, b->box.height - 2);
      cairo_fill (cr);
      cairo_new_path (cr);
      cairo_arc (cr, b->x, b->y, 6, 0, 2 * G_PI);
      set_color (cr, r->state_color (r->module_state (m, b->id)));
      cairo_fill (cr);
      char *label = r->module_label (m, b->id);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      font (cr, 12, TRUE);
      text (cr, b->x + 12, b->y + 4.5, 0, label);
      g_free (label);
      font (cr, 11, FALSE);
      if (!b->n_vars)
        {
          cairo_set_source_rgb (cr, 0.45, 0.45, 0.45);
          text (cr, b->box.x + 10, b->box.y + VAR_HEAD + 13, 0, "no global variables");
        }
      for (guint v = 0; v < b->n_vars; v++)
        {
          const VarBox *vb = &g_array_index (g->vars, VarBox, b->first_var + v);
          ViperViewVariable var = { 0 };
          r->variable (m, b->id, v, &var);
          double base = vb->box.y + 13;
          char fallback[32];
          g_snprintf (fallback, sizeof fallback, "v%u", v);
          cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
          text (cr, vb->box.x + 10, base, 0, var.name ? var.name : fallback);
          cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
          text (cr, vb->box.x + vb->box.width * 0.38, base, 0, var.type ? var.type : "?");
          if (var.highlight)
            cairo_set_source_rgb (cr, 0.1, 0.55, 0.2);
          else
            cairo_set_source_rgb (cr, 0.5, 0.5, 0.5);
          font (cr, 11, var.highlight);
          text (cr, vb->box.x + vb->box.width - 8, base, 1, var.state ? var.state : "");
          font (cr, 11, FALSE);
        }
    }
}

/* ---- program state view ------------------------------------------------------------- */

static void
draw_program (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m)
{
  const ViperRenderer *r = g->r;
  ViperProgramWord w = m ? viper_program_word_from_string (viper_model_program_state (m)) : VIPER_PROGRAM_INACTIVE;
  gboolean reported = m && r->program_reported && r->program_reported (m);
  set_color (cr, viper_program_word_color (w));
  cairo_rectangle (cr, g->px, g->py, g->pside, g->pside);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  double cx = g->width / 2.0, y = g->py + g->pside + 24;
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  font (cr, 18, TRUE);
  text (cr, cx, y, 0.5, viper_program_word_name (w));
  font (cr, 11, FALSE);
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  const char *how = w == VIPER_PROGRAM_INACTIVE ? "no module has started"
                  : reported ? "reported by the program manager" : "detected by Viper";
  text (cr, cx, y + 20, 0.5, how);
  char buf[64], tb[32];
  format_time (m ? m->clock : NAN, tb, sizeof tb);
  g_snprintf (buf, sizeof buf, "clock %s", tb);
  text (cr, cx, y + 38, 0.5, buf);
  char *detail = m && r->program_detail ? r->program_detail (m) : NULL;
  char **lines = detail ? g_strsplit (detail, "\n", 16) : NULL;
  for (guint i = 0; lines && lines[i]; i++)
    text (cr, cx, y + 56 + 18 * i, 0.5, lines[i]);
  g_strfreev (lines);
  g_free (detail);
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
    case VIPER_VIEW_ANIMATION: draw_animation (cr, g, m, run); break;
    case VIPER_VIEW_SPACETIME: draw_spacetime (cr, g, m, window); break;
    case VIPER_VIEW_VARIABLES: draw_variables (cr, g, m); break;
    case VIPER_VIEW_PROGRAM:
    default: draw_program (cr, g, m); break;
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
  char *lower = g_ascii_strdown (path, -1);
  int fmt = g_str_has_suffix (lower, ".png") ? 0 : g_str_has_suffix (lower, ".svg") ? 1
            : g_str_has_suffix (lower, ".pdf") ? 2 : -1;
  g_free (lower);
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
      viper_outfile_abort (out);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cannot draw the image: %s", path,
                   cairo_status_to_string (st));
      return FALSE;
    }
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
