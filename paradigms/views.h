/* views.h - the four views, drawn with cairo for any paradigm (thesis 3.2.1).
 *
 * The GUI's view widgets and viper-replay --render draw through the same
 * functions here, so an exported image is the view on screen.  A paradigm
 * describes what there is to draw with a ViperRenderer table, which it puts in
 * its description's opaque `render` field; a paradigm without one is drawn
 * with a generic renderer (modules are the run's PROCs, one neutral state).
 *
 * Views never read the model while it changes: they draw the state as it is
 * when they are asked.  What to redraw is decided from the model's damage
 * set: viper_view_geometry_new() computes where each abstract area lies in
 * a view of a given size, and viper_view_damage_rects() turns a set of
 * damaged areas into exactly one rectangle per area the view shows.
 */
#pragma once

#include <cairo.h>
#include "core/model.h"
#include "core/outfile.h"
#include "core/run.h"
#include "paradigms/viewsetup.h"

G_BEGIN_DECLS

typedef enum {
  VIPER_VIEW_ANIMATION = 0,
  VIPER_VIEW_SPACETIME,
  VIPER_VIEW_VARIABLES,
  VIPER_VIEW_PROGRAM,
  VIPER_VIEW_N_KINDS
} ViperViewKind;

const char *viper_view_kind_name (ViperViewKind kind);          /* "animation", ... */
/* -1 when the name is none of the four. */
int viper_view_kind_from_name (const char *name);

typedef struct {
  double r, g, b;           /* 0..1 */
} ViperColor;

/* The program state words every paradigm maps to (thesis 3.2). */
typedef enum {
  VIPER_PROGRAM_INACTIVE = 0,
  VIPER_PROGRAM_RUNNING,
  VIPER_PROGRAM_DEADLOCK,
  VIPER_PROGRAM_ABNORMAL,
  VIPER_PROGRAM_TERMINATED,
} ViperProgramWord;

/* "running" etc. -> the word; unknown words are running. */
ViperProgramWord viper_program_word_from_string (const char *word);
const char *viper_program_word_name (ViperProgramWord w);
/* green running, yellow deadlock, red abnormal, grey inactive, blue terminated */
ViperColor viper_program_word_color (ViperProgramWord w);

/* An arrow underway in the animation view. */
typedef struct {
  gint64 from, to;
  ViperColor color;
  gboolean dashed;
} ViperViewArrow;

/* One global variable of a module for the variables view. */
typedef struct {
  const char *name;         /* NULL: "v<id>" */
  const char *type;         /* from the setup file, NULL when unknown */
  const char *state;        /* "exposed", "hidden", ... */
  gboolean highlight;       /* drawn in the "available" colour (exposed) */
} ViperViewVariable;

/* One entry of a view's legend: a swatch and what its colour stands for
 * (ViperRenderer.legend). */
typedef struct {
  ViperColor color;
  const char *text;
} ViperLegendEntry;

/* A module's state from t on (ViperRenderer.open_states). */
typedef struct {
  double t;
  gint state;
} ViperViewChange;

typedef struct _ViperRenderer {
  /* The modules to show, in display order (the setup file's order): appends
   * gint64 ids to `ids`.  run may be NULL. */
  void (*modules) (const ViperModel *m, const ViperRun *run, GArray *ids);
  /* Label of a module, newly allocated. */
  char *(*module_label) (const ViperModel *m, gint64 id);
  /* The module's state code (0 .. n_states-1), its name and its colour. */
  gint (*module_state) (const ViperModel *m, gint64 id);
  const char *(*state_name) (gint state);
  ViperColor (*state_color) (gint state);
  guint n_states;
  /* Marks drawn around a module after its disc (e.g. the exposure circle);
   * they stay inside the disc's radius + VIPER_VIEW_DECORATION_MARGIN.  May be NULL. */
  void (*decorate_module) (cairo_t *cr, const ViperModel *m, gint64 id, double x, double y, double radius);
  /* Arrows underway now (animation view); appends ViperViewArrow.  May be NULL. */
  void (*arrows) (const ViperModel *m, const ViperRun *run, GArray *out);
  /* Is this history entry an arrow (space-time view), and in which colour?
   * Entries that are not arrows are state changes (state = module state code). */
  gboolean (*history_arrow) (const ViperModel *m, const ViperHistoryEntry *e, ViperColor *color);
  /* Global variables of a module.  May be NULL (no variables). */
  guint (*n_variables) (const ViperModel *m, gint64 id);
  void (*variable) (const ViperModel *m, gint64 id, guint var, ViperViewVariable *out);
  /* TRUE when the program state was reported by the program (the program
   * manager) rather than derived by Viper.  May be NULL (always derived). */
  gboolean (*program_reported) (const ViperModel *m);
  /* The unit of the trace's time stamps for axis labels ("s"); NULL: none known. */
  const char *time_unit;
  /* A one-line description of the module's current activity for the
   * animation view and tooltips ("inglb MASTER.JOB"), newly allocated; may be NULL. */
  char *(*module_activity) (const ViperModel *m, gint64 id);
  /* TRUE when the module has ended by its own account though its state is
   * not a final one (picl: tracing stopped outside a call, a rank that
   * finalized).  A live session that lost its senders names only modules
   * neither in a final state nor ended.  May be NULL (never). */
  gboolean (*module_ended) (const ViperModel *m, gint64 id);
  /* Draw the module as a view setup file's representation `repr` filling the
   * box (x, y, w, h); label is the file's (may be NULL).  FALSE when repr is
   * not one of the paradigm's own: the view then draws its disc in the box.
   * May be NULL. */
  gboolean (*draw_module) (cairo_t *cr, const ViperModel *m, gint64 id, const char *repr, double x, double y,
                           double w, double h, const char *label);
  /* Draw the whole view of this kind itself (a paradigm whose picture is
   * not modules on a circle, e.g. a switch network); FALSE: the generic
   * view is drawn.  A paradigm that uses it marks VIPER_AREA_ALL as damaged
   * for what it changes.  May be NULL. */
  gboolean (*draw_view) (cairo_t *cr, const ViperModel *m, ViperViewKind kind, int width, int height);
  /* For a view it draws itself: what lies under (x, y) in a width x height
   * view, as text for a tooltip or an inspection popover (newly allocated;
   * NULL: nothing there).  May be NULL. */
  char *(*describe_at) (const ViperModel *m, ViperViewKind kind, int width, int height, double x, double y);
  /* The view setup the model itself holds (a paradigm whose setup file is a
   * view setup file): the views use it when given no layout.  May be NULL. */
  const ViperViewSetup *(*view_setup) (const ViperModel *m);
  /* Lines under the program state (nodes up and lost, latency), newly
   * allocated, '\n' separated; may be NULL. */
  char *(*program_detail) (const ViperModel *m);
  /* State changes of the module not in the history yet because they are
   * not final (PICL: calls still open, whose states are decided when they
   * end): appends ViperViewChange in time order, none before the module's
   * last history state entry.  The space-time view draws them from that
   * entry to the clock.  May be NULL. */
  void (*open_states) (const ViperModel *m, gint64 id, GArray *out);
  /* The legend of a view of this kind when one swatch per state would
   * mislead (states that share a colour, colours drawn that are no state):
   * *entries points at the renderer's own entries, one per colour drawn;
   * returns their number.  May be NULL: one entry per state. */
  guint (*legend) (ViperViewKind kind, const ViperLegendEntry **entries);
} ViperRenderer;

#define VIPER_VIEW_DECORATION_MARGIN 8.0

/* The renderer of the model's paradigm, or the generic one. */
const ViperRenderer *viper_view_renderer (const ViperModel *m);

/* ---- module placement (animation view) ------------------------------------ */

/* Where modules stand in the animation view, as fractions (0..1) of its width
 * and height.  A view setup file fills one; modules it does not name, and
 * every module when there is no layout, go on the default circle. */
typedef struct {
  GArray *ids;              /* gint64 */
  GArray *pos;              /* double x, y pairs, fractions of the view */
  /* A view setup file (not owned; NULL: none).  When set, the animation view
   * shows its modules in their boxes over its elements, and the space-time
   * view its `spacetime` subset (paradigms/viewlayout.h); ids/pos are unused. */
  const ViperViewSetup *setup;
} ViperLayout;

ViperLayout *viper_layout_new (void);
void viper_layout_free (ViperLayout *l);
void viper_layout_set (ViperLayout *l, gint64 id, double fx, double fy);
gboolean viper_layout_get (const ViperLayout *l, gint64 id, double *fx, double *fy);

/* ---- space-time window ---------------------------------------------------- */

/* Which slice of adjusted time the space-time view shows.  With `follow`
 * the window ends at the clock and is `span` long (span <= 0: everything
 * the history holds); otherwise it shows [start, start + span]. */
typedef struct {
  gboolean follow;
  double start;
  double span;
  double breakpoint;        /* NAN: none */
  /* The tram a tram stop stopped right after: marked on its module's row at
   * its adjusted time, with its label (PROC:SEQ).  has_tram FALSE: none. */
  gboolean has_tram;
  gint64 tram_module;
  double tram_time;
  char tram_label[48];
  /* Rows: when the modules do not fit at VIPER_VIEW_MIN_ROW pixels a row,
   * the view shows the rows from first_row on (scrolled); row_zoom > 1 makes
   * rows taller than the fit (1 = fit, the default). */
  guint first_row;
  double row_zoom;
} ViperTimeWindow;

#define VIPER_VIEW_MIN_ROW 3.0

/* The whole run so far: [earliest adjusted time applied, clock] (once the
 * history was trimmed, from its first entry); FALSE when empty. */
gboolean viper_time_window_extent (const ViperModel *m, double *t0, double *t1);

void viper_time_window_init (ViperTimeWindow *w);
/* Mark the tram PROC:SEQ at adjusted time t (a tram stop's); clear_tram: none. */
void viper_time_window_mark_tram (ViperTimeWindow *w, gint64 proc, gint64 seq, double t);
void viper_time_window_clear_tram (ViperTimeWindow *w);
/* The time range drawn for this model. */
void viper_time_window_range (const ViperTimeWindow *w, const ViperModel *m, double *t0, double *t1);

/* ---- geometry and damage -------------------------------------------------- */

typedef struct _ViperViewGeometry ViperViewGeometry;

/* Where things are in a view of this size for the model as it is now.
 * layout and window may be NULL (defaults). */
ViperViewGeometry *viper_view_geometry_new (ViperViewKind kind, const ViperModel *m, const ViperRun *run,
                                            const ViperLayout *layout, const ViperTimeWindow *window,
                                            int width, int height);
void viper_view_geometry_free (ViperViewGeometry *g);
ViperViewKind viper_view_geometry_kind (const ViperViewGeometry *g);
guint viper_view_geometry_n_modules (const ViperViewGeometry *g);
gint64 viper_view_geometry_module (const ViperViewGeometry *g, guint i);
/* The point that shows the module's state colour (disc centre, bar row,
 * state word) - for tests, and for tools that probe images. */
gboolean viper_view_geometry_module_point (const ViperViewGeometry *g, gint64 id, double *x, double *y);
/* Animation view laid out by a view setup file: the module's box; FALSE otherwise. */
gboolean viper_view_geometry_module_box (const ViperViewGeometry *g, gint64 id, double *x, double *y, double *w,
                                         double *h);
/* Animation view, a disc: the room of its label (line 0) or activity line
 * (line 1), where that text is drawn when it is; FALSE when it has none
 * (the text is then on the tooltip only) or in other views. */
gboolean viper_view_geometry_module_text_room (const ViperViewGeometry *g, gint64 id, guint line, double *x,
                                               double *y, double *w, double *h);
/* Space-time view: the x where adjusted time t is drawn (it may lie outside
 * the plot), for tests and tools that probe images; FALSE in other views,
 * and while there is no run (nothing transferred: no time axis is drawn). */
gboolean viper_view_geometry_time_x (const ViperViewGeometry *g, double t, double *x);
/* Space-time view: the plot's time range and pixel columns (FALSE while
 * there is no run, as above), and its rows (all of them, those shown from
 * first on, their height); FALSE in other views. */
gboolean viper_view_geometry_plot (const ViperViewGeometry *g, double *t0, double *t1, double *x0, double *x1);
gboolean viper_view_geometry_rows (const ViperViewGeometry *g, guint *n, guint *first, guint *shown, double *row_h);

/* Rectangle of the view that shows an area; FALSE when the view does not
 * show it.  VIPER_AREA_ALL (and areas that move the whole picture, such as
 * the clock in a space-time view that follows it) give the whole view. */
gboolean viper_view_area_rect (const ViperViewGeometry *g, const ViperArea *area, cairo_rectangle_int_t *out);
/* One rectangle per damaged area the view shows (areas come from
 * viper_damage_take, so each at most once); appends to rects
 * (cairo_rectangle_int_t) and returns how many. */
guint viper_view_damage_rects (const ViperViewGeometry *g, const GArray *areas, GArray *rects);

/* Renderer helpers paradigms may reuse: the run's PROCs >= 0 as modules,
 * and "P<id>" as a module's label. */
void viper_view_modules_from_run (const ViperModel *m, const ViperRun *run, GArray *ids);
char *viper_view_label_p (const ViperModel *m, gint64 id);

/* The renderer's legend for its animation view (viper_view_legend: a swatch
 * per entry, by default one per state) from (x, y) within [x, right]: moved left, then set smaller (down to 8 pt), then only
 * the entries that fit whole.  Returns where the next mark may go. */
double viper_view_draw_state_legend (cairo_t *cr, const ViperRenderer *r, double x, double y, double right);
/* The legend's entries for a view of this kind (the renderer's own, else
 * one per state): returns their number and fills at most max into out. */
guint viper_view_legend (const ViperRenderer *r, ViperViewKind kind, ViperLegendEntry *out, guint max);

/* ---- clock readouts -------------------------------------------------------- */

/* A clock value as every readout shows it: about six significant digits,
 * more when `resolution` (the smallest difference that matters, e.g. a
 * pixel of a zoomed axis; 0 = none) needs them, and no float noise (31.508,
 * not 31.508000000000003).  Without a resolution a clock of 1e5 or more
 * keeps all its integer digits and three decimals (1795549589.123, not
 * 1.79555e+09).  "-" when not finite.  Returns buf. */
char *viper_view_format_clock (double t, double resolution, char *buf, gsize len);

/* The unit a time axis over a span of `span` trace time units is labelled
 * in, every paradigm alike: for a trace unit that is a time (`ViperRenderer`
 * time_unit "s", "ms", "us" or "ns") the largest of s, ms, µs and ns in
 * which the span is at least 1 (s for anything longer); *scale multiplies a
 * trace time into it.  Another unit (switchnet's "step") is kept, scale 1;
 * none (NULL) gives "" (an axis without a unit is a bug in its renderer). */
const char *viper_view_axis_unit (const char *trace_unit, double span, double *scale);

/* One label of the space-time view's time axis as the view draws it at
 * width x height (views-axis.c): its box (x, y the top left) and text, and
 * the time it stands for (NAN for the base "t0 = ..." of labels relative
 * to it, which comes first).  For tests: labels never overlap nor leave the view. */
typedef struct {
  double x, y, width, height;
  double t;
  gboolean base;
  char text[64];
} ViperAxisLabel;
GArray *viper_view_spacetime_axis_labels (const ViperModel *m, const ViperRun *run, const ViperTimeWindow *window,
                                          int width, int height);

/* ---- drawing -------------------------------------------------------------- */

/* Draw the view into [0, width) x [0, height) of cr.  run, layout and window may be NULL. */
void viper_view_draw (ViperViewKind kind, cairo_t *cr, const ViperModel *m, const ViperRun *run,
                      const ViperLayout *layout, const ViperTimeWindow *window, int width, int height);

/* A description of what lies under (x, y) in the space-time view (the state
 * bar or message and the times), newly allocated, or NULL. */
char *viper_view_spacetime_describe (const ViperModel *m, const ViperRun *run, const ViperTimeWindow *window,
                                     int width, int height, double x, double y);

/* The module under (x, y) in the animation view (its label, state and
 * activity), newly allocated, or NULL: what a crowded view leaves unlabelled. */
char *viper_view_animation_describe (const ViperModel *m, const ViperRun *run, const ViperLayout *layout, int width,
                                     int height, double x, double y);

/* Render one view to an image file; the format follows the extension:
 * .png, .svg or .pdf.  view: "animation", "spacetime", "variables" or "program". */
gboolean viper_view_render_to_file (const char *view, ViperModel *model, const ViperRun *run, const char *path,
                                    int width, int height, GError **error);

/* Same, with a layout and a time window (the GUI's export). */
gboolean viper_view_render_kind_to_file (ViperViewKind kind, const ViperModel *model, const ViperRun *run,
                                         const ViperLayout *layout, const ViperTimeWindow *window,
                                         const char *path, int width, int height, GError **error);

/* The image format a file name asks for, from its extension (any case):
 * 0 .png, 1 .svg, 2 .pdf, -1 none of them. */
int viper_view_image_format (const char *path);

/* Render one view into an output opened beforehand with viper_outfile_open
 * (so that a bad path is refused before a long replay), in the image
 * format fmt (viper_view_image_format).  Closes out in every case (aborts
 * it when drawing fails, leaving the target as it was). */
gboolean viper_view_render_to_outfile (const char *view, ViperModel *model, const ViperRun *run,
                                       const ViperTimeWindow *window, ViperOutFile *out, int fmt, int width,
                                       int height, GError **error);

/* ---- frame cache (views-cache.c) ---------------------------------------------- */

/* A view's last frame kept as an image and redrawn only where stale: the
 * rectangles given to viper_view_cache_damage, or all of it when the key
 * (kind, image size, layout size, offset, scale) changed or after
 * viper_view_cache_invalidate.  The GUI paints its views through one each. */
typedef struct _ViperViewCache ViperViewCache;

ViperViewCache *viper_view_cache_new (void);
void viper_view_cache_free (ViperViewCache *c);
/* Everything stale: what the picture shows changed other than by the
 * model's damage (time window, layout, another model, a reset). */
void viper_view_cache_invalidate (ViperViewCache *c);
/* A rectangle of the image (its coordinates) is stale. */
void viper_view_cache_damage (ViperViewCache *c, const cairo_rectangle_int_t *r);
gboolean viper_view_cache_is_valid (const ViperViewCache *c);
/* Frames redrawn whole and in part so far. */
void viper_view_cache_counts (const ViperViewCache *c, guint64 *full, guint64 *partial);
/* The image (w x h logical pixels, `scale` device pixels each; owned by the
 * cache) of the view laid out at vw x vh and shown from (ox, oy), brought up
 * to date. */
cairo_surface_t *viper_view_cache_update (ViperViewCache *c, ViperViewKind kind, const ViperModel *m,
                                          const ViperRun *run, const ViperLayout *layout,
                                          const ViperTimeWindow *window, int vw, int vh, int ox, int oy, int w,
                                          int h, int scale);
/* Headless use (tests, benchmarks): mark the damaged areas (NULL: none) of
 * a width x height view stale, update and paint the image onto cr at (0, 0). */
void viper_view_cache_paint (ViperViewCache *c, cairo_t *cr, ViperViewKind kind, const ViperModel *m,
                             const ViperRun *run, const ViperLayout *layout, const ViperTimeWindow *window,
                             int width, int height, const GArray *areas);

G_END_DECLS
