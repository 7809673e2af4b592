/* viewsetup.h - view setup files: which modules a view shows, where, drawn
 * how, plus layout-only elements (spec macrame.md section 4, docs/view-setup.md).
 *
 * One file describes one view of one program or testbed.  The reader is
 * paradigm independent: it checks the syntax and keeps what the file says;
 * a paradigm checks the words that are its own (the representations it
 * draws, whether MAXRATE means anything to it).  Coordinates are in the
 * file's own space (`size W H`, default 1000 x 1000); a view scales that
 * space to its window.  Nothing here needs cairo.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define VIPER_VIEW_SETUP_ERROR (viper_view_setup_error_quark ())
GQuark viper_view_setup_error_quark (void);

typedef enum {
  VIPER_VIEW_SETUP_ERROR_READ,    /* the file cannot be read */
  VIPER_VIEW_SETUP_ERROR_SYNTAX,  /* "FILE:LINE:COLUMN: expected ..." */
} ViperViewSetupError;

#define VIPER_VIEW_SETUP_DEFAULT_MAXRATE 100
#define VIPER_VIEW_SETUP_DEFAULT_SIZE 1000.0

typedef struct {
  double r, g, b;           /* 0..1 */
} ViperViewRgb;

typedef struct {
  gint64 id;
  char *repr;               /* "node", "switch", "circle", or a paradigm's own word */
  double x, y, w, h;        /* top-left corner and size */
  char *label;              /* NULL when the line gives none */
  guint line;               /* where it was defined, for the paradigm's own errors */
  guint repr_col;           /* the column of repr in that line */
} ViperViewModule;

typedef enum {
  VIPER_VIEW_ELEMENT_LINE,
  VIPER_VIEW_ELEMENT_RECT,
  VIPER_VIEW_ELEMENT_TEXT,
} ViperViewElementKind;

/* A layout-only element, drawn below the modules in file order. */
typedef struct {
  ViperViewElementKind kind;
  double x1, y1;            /* line: start; rect: top-left; text: start of the baseline */
  double x2, y2;            /* line: end; rect: bottom-right (x + w, y + h); text: unused */
  gboolean filled;          /* rect: fill given */
  ViperViewRgb fill;
  char *text;               /* text: the words; else NULL */
  guint line;
} ViperViewElement;

/* ---- clusters (Lilith Lights, paradigm lights; docs/view-setup.md) --------
 * A cluster view adds a topology, the virtual links the arrows stand for,
 * the routes that map node-to-node traffic onto them, and the range of
 * interest of the arrows' colours.  Files without these lines read as
 * before (cluster stays NULL). */
typedef enum {
  VIPER_VIEW_TOPO_NONE = 0, /* links as listed; routes listed or shortest paths */
  VIPER_VIEW_TOPO_MESH,     /* ROWS x COLS in module order, dimension-order routing (columns first) */
  VIPER_VIEW_TOPO_TORUS,    /* the mesh with wrap-around links, shorter way round per dimension */
  VIPER_VIEW_TOPO_RING,     /* modules in order on a ring, the shorter way round */
  VIPER_VIEW_TOPO_PHYSICAL, /* the links are physical: nothing is routed */
} ViperViewTopology;

typedef struct {
  gint64 from, to;          /* one direction: a `link A B` line gives both */
  guint line;
  guint from_col, to_col;   /* the columns of the two ids in that line (0: a topology's own link) */
} ViperViewLink;

typedef struct {
  gint64 src, dst;
  guint first, n;           /* hops (node ids, src .. dst) in route_nodes, their columns in route_cols */
  guint line;
} ViperViewRoute;

typedef struct {
  ViperViewTopology topology;
  guint rows, cols;         /* mesh, torus */
  guint topology_line;
  guint topology_col;       /* the column of its keyword */
  GArray *links;            /* ViperViewLink in file order (empty: the topology's own) */
  GArray *routes;           /* ViperViewRoute */
  GArray *route_nodes;      /* gint64 */
  GArray *route_cols;       /* guint: the column of each of route_nodes in its route's line */
  gboolean has_range;       /* range of interest given */
  double range_min, range_max;  /* bytes per second */
  gboolean has_below, has_above;
  ViperViewRgb below, above;    /* arrow colours under min, over max */
  guint range_line;
} ViperViewCluster;

typedef struct {
  char *name;               /* the path (or name) the errors cite */
  char *paradigm;           /* NULL when the file names none */
  gint64 maxrate;           /* VIPER_VIEW_SETUP_DEFAULT_MAXRATE unless given */
  gboolean has_maxrate;
  guint paradigm_line;      /* 0 when not given */
  guint paradigm_col;       /* the column of the paradigm's name in that line */
  double width, height;     /* coordinate space */
  GArray *modules;          /* of ViperViewModule, in file order */
  GArray *elements;         /* of ViperViewElement, in file order */
  GArray *spacetime;        /* of gint64: the space-time view's modules in order (empty: all) */
  GHashTable *index;        /* id -> position in modules + 1 */
  ViperViewCluster *cluster;    /* topology, link, route, range lines; NULL when none */
} ViperViewSetup;

/* Columns, in every message and field above, are 1-based byte columns of
 * the line, as in the trace reader's messages (docs/formats.md): a tab is
 * one column; a missing word is reported just after the line's last byte
 * before any comment (not counting a \r\n end). */

/* The cluster lines (viewsetup-cluster.c): parse one line whose keyword is
 * kw; line is the line's first byte (column 1), args the byte just after the
 * keyword and end the end of the line (its comment's '#' or its end).  NULL,
 * or the error text with *col the column it is about.  FALSE from
 * viper_view_cluster_keyword: not a cluster keyword. */
gboolean viper_view_cluster_keyword (const char *kw);
char *viper_view_cluster_parse_line (ViperViewSetup *vs, const char *kw, const char *line, const char *args,
                                     const char *end, guint lineno, guint *col);
void viper_view_cluster_free (ViperViewCluster *c);

/* Read a file; NULL and an error "FILE:LINE:COLUMN: expected ..." on bad syntax. */
ViperViewSetup *viper_view_setup_load (const char *path, GError **error);
/* Parse text; name is what errors cite. */
ViperViewSetup *viper_view_setup_parse (const char *text, gsize len, const char *name, GError **error);
void viper_view_setup_free (ViperViewSetup *vs);

/* The module with this id, or NULL. */
const ViperViewModule *viper_view_setup_module (const ViperViewSetup *vs, gint64 id);
guint viper_view_setup_n_modules (const ViperViewSetup *vs);
const ViperViewModule *viper_view_setup_module_at (const ViperViewSetup *vs, guint i);

/* A default layout: the ids on a circle (Mona Lisa's default when a
 * program has no view setup file), each drawn as `repr`. */
ViperViewSetup *viper_view_setup_new_circle (const gint64 *ids, guint n, const char *repr);

/* Colour by name (black, white, grey, lightgrey, darkgrey, red, green,
 * blue, yellow, orange, brown, beige, cyan, magenta) or 0xRRGGBB. */
gboolean viper_view_rgb_parse (const char *word, ViperViewRgb *out);

G_END_DECLS
