/* views-private.h - what the view files share and nobody else sees: the
 * geometry's layout of modules, the sizes of the views' parts, and the
 * drawing helpers.  Not installed, not included outside paradigms/views*.c.
 */
#pragma once

#include "views.h"
#include "viewlayout.h"

G_BEGIN_DECLS

/* ---- geometry ------------------------------------------------------------------- */

typedef struct {
  gint64 id;
  double x, y;              /* animation: disc centre; space-time: row centre at the state strip;
                               variables: header state dot */
  double r;                 /* animation: disc radius */
  cairo_rectangle_int_t box;  /* everything drawn for the module */
  guint first_var, n_vars;  /* variables view: rows in vars */
  double bx, by, bw, bh;    /* animation laid out by a view setup file: the module's box */
  double text_w[2];         /* animation, a disc's label [0] and activity line [1]: the width
                               at text_x they may take without touching another module's box or
                               text room (0: none) */
  double text_x, text_align;  /* animation: where a disc's texts are set (align: 0 left-aligned
                               from text_x, 0.5 centred on it, 1 right-aligned to it) */
  double text_y;            /* animation: the top of the label's band */
  gboolean act_above;       /* animation: the activity line above the label (a disc at the top
                               of the ring, its texts above it), else under it */
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
  gint32 *dense;            /* ids 0 .. n_dense-1 (when they are that dense): index in mods, -1 none */
  gint64 n_dense;
  GArray *vars;             /* VarBox (variables view) */
  cairo_rectangle_int_t clock_box;
  /* space-time */
  double t0, t1;
  double plot_x, plot_w, top, row_h;
  double strip_x;
  gboolean follow;
  guint first_row, rows_shown;  /* rows drawn: first_row .. first_row + rows_shown - 1 */
  double bottom;            /* below the last row shown */
  gboolean no_run;          /* nothing transferred yet: no time axis to show */
  /* animation view: the room each module's label and activity line may use
   * (wide and tall enough on the circle; a grid cell for many modules) */
  double cell_w, cell_h;
  gboolean grid;
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
#define AN_GRID_FROM 16   /* more modules than this (and no positions): a grid */
#define AN_MAX_ARROWS 256 /* arrows a grid shows at most */
#define VAR_COL_W 260
#define VAR_HEAD 24
#define VAR_ROW 18

/* shared helpers (views.c) */
G_GNUC_INTERNAL cairo_rectangle_int_t vv_rect_around (double x0, double y0, double x1, double y1, int w, int h);
G_GNUC_INTERNAL cairo_rectangle_int_t vv_rect_union (cairo_rectangle_int_t a, cairo_rectangle_int_t b);
G_GNUC_INTERNAL const ModBox *vv_find_mod (const ViperViewGeometry *g, gint64 id);
G_GNUC_INTERNAL void vv_set_color (cairo_t *cr, ViperColor c);

/* An arrow drawn with the others that look alike (colour, dashed). */
typedef struct {
  double x0, y0, x1, y1;
  ViperColor color;
  gboolean dashed;
} VvArrow;
/* Many arrows in a few requests: per look, the shafts, then one fill of the
 * heads.  shaft_each strokes each shaft on its own (a crowded animation:
 * one path of a thousand crossing lines makes cairo find every crossing);
 * otherwise one stroke per look (space-time messages, which rarely cross).
 * head 0: no heads, each shaft to its end.  Sorts arrows. */
G_GNUC_INTERNAL void vv_stroke_arrows (cairo_t *cr, GArray *arrows, double head, gboolean shaft_each);
G_GNUC_INTERNAL void vv_font (cairo_t *cr, double size, gboolean bold);
/* align: 0 left, 0.5 centre, 1 right; y is the baseline; returns the advance */
G_GNUC_INTERNAL double vv_text (cairo_t *cr, double x, double y, double align, const char *s);
/* The same cut to max_w with an ellipsis ("rx commu…") when it is wider:
 * text cut by a clip instead reads as whole ("rx communic") */
G_GNUC_INTERNAL double vv_text_fit (cairo_t *cr, double x, double y, double align, const char *s, double max_w);
G_GNUC_INTERNAL void vv_format_time (double t, char *buf, gsize len);
/* the legend of a view of this kind (viper_view_legend: a swatch and its
 * text per entry) from x, baseline y (11 pt, boxes from y - 9 to y + 1),
 * fitted into [x, right] as vv_draw_legend_fit; returns its width */
G_GNUC_INTERNAL double vv_draw_legend (cairo_t *cr, const ViperRenderer *r, ViperViewKind kind, double x, double y,
                                       double right);
/* The same within [x, right]: moved left, then set smaller (down to 8 pt),
 * then only the entries that fit whole; returns where the next mark may go. */
G_GNUC_INTERNAL double vv_draw_legend_fit (cairo_t *cr, const ViperRenderer *r, ViperViewKind kind, double x, double y,
                                           double right);

/* each view's placing and drawing (views-<view>.c) */
G_GNUC_INTERNAL void vv_place_animation (ViperViewGeometry *g, const ViperLayout *layout);
/* The rows a disc's label (k 0) or activity line (k 1) may lie in. */
G_GNUC_INTERNAL void vv_an_text_band (const ModBox *b, guint k, double *y0, double *y1);
G_GNUC_INTERNAL void vv_draw_animation (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m, const ViperRun *run);
G_GNUC_INTERNAL void vv_place_spacetime (ViperViewGeometry *g, const ViperModel *m, const ViperTimeWindow *window);
G_GNUC_INTERNAL void vv_draw_spacetime (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m, const ViperRun *run,
                                        const ViperTimeWindow *window);
G_GNUC_INTERNAL double vv_st_x (const ViperViewGeometry *g, double t);

/* the space-time view's time axis (views-axis.c) */
typedef struct {
  double v;                 /* the tick's time in the axis's unit (after the base when relative) */
  double x;                 /* where the tick is drawn */
  double lx, w;             /* its label's left edge and width */
  gboolean shown;           /* the label is drawn (it fits, apart from its neighbours) */
  char text[40];
} VvAxisTick;
typedef struct {
  const char *unit;         /* the axis's unit (viper_view_axis_unit) */
  double scale;             /* trace time -> the axis's unit */
  double step;              /* between ticks, in the axis's unit */
  gboolean relative;        /* labelled after base (large times next to the span) */
  double base;              /* trace time */
  char base_text[64];       /* "t0 = 1795897580 s" */
  double base_w;
  GArray *ticks;            /* VvAxisTick */
} VvAxis;
G_GNUC_INTERNAL void vv_axis_layout (cairo_t *cr, const ViperViewGeometry *g, VvAxis *ax);
G_GNUC_INTERNAL void vv_axis_draw (cairo_t *cr, const ViperViewGeometry *g, const VvAxis *ax);
G_GNUC_INTERNAL void vv_axis_unit_text (const VvAxis *ax, char *buf, gsize len);
G_GNUC_INTERNAL void vv_axis_clear (VvAxis *ax);
/* how far s advances in cr's font */
G_GNUC_INTERNAL double vv_text_width (cairo_t *cr, const char *s);
G_GNUC_INTERNAL void vv_place_variables (ViperViewGeometry *g, const ViperModel *m);
G_GNUC_INTERNAL void vv_draw_variables (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m);
G_GNUC_INTERNAL void vv_place_program (ViperViewGeometry *g);
G_GNUC_INTERNAL void vv_draw_program (cairo_t *cr, const ViperViewGeometry *g, const ViperModel *m);

G_END_DECLS
