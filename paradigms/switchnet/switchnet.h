/* switchnet.h - switch-network analysis (the Cplant visual analysis tool,
 * docs/paradigm-switchnet.md).
 *
 * A cluster's interconnect is described by a *model file*: switches of
 * processor ports and network ports laid out in rows, columns and planes,
 * port definitions (where each port sits on a switch), row definitions
 * (which port definition each switch of a logical row uses), which network
 * port is cabled to which, and where the route files are.  Per-port counters
 * (parameter files) and per-processor-port job ids (job files) are time
 * series, one value per time step; viper-switchnet-import turns them into
 * trams of this paradigm, one per value change, so that they replay, step
 * and seek like any trace.
 *
 * This header holds the model (SwnNet) and its readers, which need neither
 * cairo nor the engine's model, so the importer links only them.
 */
#pragma once

#include <stdio.h>
#include <glib.h>
#include "core/paradigm.h"
#include "core/model.h"

G_BEGIN_DECLS

extern const ViperParadigm viper_switchnet_paradigm;

#define SWN_REC 1
enum {
  SWN_EV_VALUE = 1,         /* D2 PORT, D3 VALUE: the port's counter from this step on */
  SWN_EV_JOB = 2,           /* D2 PORT, D3 JOB: the processor port's job from this step on (0: none) */
  SWN_EV_TOTAL = 3,         /* D2 PORT, D3 TOTAL: the port's sum over the whole series */
  SWN_EV_END = 4,           /* no data: the switch's series ends at this step */
  SWN_EV_STEP = 5,          /* no data: time step TIME begins (switch 0 carries one per step) */
};

#define SWN_MAX_PORTS 64

#define SWN_ERROR (swn_error_quark ())
GQuark swn_error_quark (void);

typedef struct {
  double r, g, b;
} SwnRgb;

/* Where a port is drawn on its switch: side 0 north, 1 east, 2 south, 3 west;
 * pos = place along that side (0 .. n-1, left to right / top to bottom). */
typedef struct {
  char *label;
  gint8 side[SWN_MAX_PORTS];      /* -1: not shown */
  guint8 pos[SWN_MAX_PORTS];
  guint8 n_on_side[4];
} SwnPortDef;

typedef struct {
  char *label;
  guint row, col, plane;
  gint64 first_node;              /* node id of processor port 0 */
  guint portdef;                  /* index into portdefs (from the row definition) */
  gint peer_switch[SWN_MAX_PORTS];   /* network port cabled to: switch index, -1 none */
  gint8 peer_port[SWN_MAX_PORTS];
} SwnSwitch;

/* The initialisation file: default directories, range of interest, colours,
 * and Viper's view options (so headless renders and the GUI agree). */
typedef enum { SWN_VIEW_NETWORK = 0, SWN_VIEW_PROCESSOR, SWN_VIEW_TORUS } SwnViewMode;
typedef enum { SWN_MODE_SLICE = 0, SWN_MODE_RUNNING, SWN_MODE_TOTAL } SwnValueMode;

typedef struct {
  char *model_dir, *data_dir;
  gint64 min, max;
  SwnRgb above, below, background, switch_color, route, links;
  SwnViewMode view;
  SwnValueMode mode;
  gboolean jobs;
  double yaw, pitch, zoom, pan_x, pan_y;  /* torus: degrees; zoom 1 = fit; pan in view fractions */
  guint64 hidden_planes;          /* bit p: plane p not drawn */
  char *route_from, *route_to;    /* switch labels or node names ("n17"); NULL: no route shown */
  char *highlight;                /* a switch or port label to highlight, NULL: none */
  char *model;                    /* an init file given as the setup names its model file */
  GPtrArray *select;              /* port labels whose series the space-time view shows (NULL: none) */
} SwnInit;

/* A route: the hops from a source node's switch to the destination node.
 * Each hop is one switch with the port the route leaves it by. */
typedef struct {
  guint sw, out_port;
} SwnHop;

typedef struct {
  char *path;                     /* the model file, for messages */
  guint rows, cols, planes;
  guint n_proc_ports, n_net_ports;        /* ports 0..P-1 processor, P..P+N-1 network */
  GPtrArray *portdefs;            /* of SwnPortDef* */
  GArray *switches;               /* of SwnSwitch, in file order: the switch index is the tram's PROC */
  GHashTable *by_label;           /* label -> index + 1 */
  GHashTable *by_cell;            /* (plane, row, col) key -> index + 1 */
  char *route_dir, *route_ext;    /* NULL when the model names no routes */
  char *init_path;                /* NULL: defaults */
  SwnInit init;
  gint64 n_nodes;                 /* processor ports in all (first_node + P over switches, max) */
  GHashTable *node_switch;        /* node id -> switch index + 1 (port = node - first_node) */
  /* the route the init file asks to show (route_between), followed when the setup is loaded */
  gint64 route_src, route_dst;
  GArray *route_hops;             /* of SwnHop; NULL: none */
  GArray *selected;               /* guint: sw * SWN_MAX_PORTS + port, from init.select */
} SwnNet;

/* Module ids of selected ports in the views (switches are 0 .. n-1). */
#define SWN_PORT_ID_BASE G_GINT64_CONSTANT (1000000000)
/* Resolve init.select into selected; FALSE with an error naming an unknown label. */
gboolean swn_net_resolve_select (SwnNet *n, GError **error);

/* An empty network (no switches), for a model given no model file. */
SwnNet *swn_net_new_empty (const char *name);
/* Resolve route_between (switch labels: their first nodes; or node names nID)
 * and follow it into route_hops. */
gboolean swn_net_follow_init_route (SwnNet *n, GError **error);

guint swn_n_ports (const SwnNet *n);
gboolean swn_is_net_port (const SwnNet *n, guint port);

/* Read a model file (and the init file it names, if any). Errors are
 * "FILE:LINE:COLUMN: reason". */
SwnNet *swn_net_load (const char *path, GError **error);
SwnNet *swn_net_parse (const char *text, gsize len, const char *name, const char *base_dir, GError **error);
void swn_net_free (SwnNet *n);

void swn_init_defaults (SwnInit *init);
void swn_init_clear (SwnInit *init);
/* Read an init file over what init holds. */
gboolean swn_init_load (SwnInit *init, const char *path, GError **error);
gboolean swn_init_parse (SwnInit *init, const char *text, gsize len, const char *name, GError **error);

/* Switch index of a label, -1 when none. */
gint swn_switch_by_label (const SwnNet *n, const char *label);
/* Port label "LABEL.PORT" or node name "nID" -> switch and port; FALSE when unknown. */
gboolean swn_port_by_label (const SwnNet *n, const char *label, guint *sw, guint *port);
/* Node id -> switch and processor port; FALSE when no switch has it. */
gboolean swn_node_port (const SwnNet *n, gint64 node, guint *sw, guint *port);
char *swn_port_label (const SwnNet *n, guint sw, guint port);


/* Read the route file of `src` (route_dir/SRC + route_ext, relative to the
 * model file) and follow its line for `dst`: appends hops.  Errors name the
 * route file's line and column (a byte that is no port, a network port with
 * no cable, a loop, a route that ends on a processor port of another node). */
gboolean swn_route (SwnNet *n, gint64 src, gint64 dst, GArray *hops, GError **error);
/* Follow route bytes from a source node (the route file's content for dst),
 * without files: the same checks. */
gboolean swn_route_follow (const SwnNet *n, gint64 src, gint64 dst, const guint8 *bytes, guint n_bytes,
                           GArray *hops, char *reason, gsize reason_size, guint *bad_byte);

/* ---- series files -------------------------------------------------------- */

/* A parameter or job file: per listed port its series. */
typedef struct {
  guint sw, port;
  GArray *values;                 /* gint64, one per time step */
} SwnSeries;

#define SWN_MAX_PROBLEMS 100

typedef struct {
  GArray *series;                 /* of SwnSeries */
  guint n_steps;                  /* values per row (every row has as many) */
  guint n_bad;                    /* bad lines, reported and skipped */
  GPtrArray *problems;            /* "FILE:LINE:COLUMN: reason", the first SWN_MAX_PROBLEMS */
} SwnSeriesFile;

/* jobs: only processor ports may be listed.  Bad lines are skipped and
 * listed in problems; NULL only when the file cannot be read. */
SwnSeriesFile *swn_series_load (const SwnNet *n, const char *path, gboolean jobs, GError **error);
SwnSeriesFile *swn_series_parse (const SwnNet *n, const char *text, gsize len, const char *name, gboolean jobs,
                                 GError **error);
void swn_series_free (SwnSeriesFile *f);

/* Where the trams go: one line (with its '\n') a call; FALSE stops. */
typedef gboolean (*SwnWriteFn) (const char *line, gsize len, gpointer data);
/* Write the trams of a parameter and/or a job file (either may be NULL) in
 * time-step order, per switch consecutive sequence numbers.  Returns the
 * number of trams written, or -1 when write said FALSE. */
gint64 swn_write_trams (const SwnNet *n, const SwnSeriesFile *params, const SwnSeriesFile *jobs, SwnWriteFn write,
                        gpointer data);

/* ---- the state model ------------------------------------------------------ */

ViperModel *swn_model_new (const ViperParadigm *p, ViperSetup *setup);
const SwnNet *swn_model_net (const ViperModel *m);
/* The step the model has reached (the clock as a step number). */
gint64 swn_model_step (const ViperModel *m);
typedef struct {
  gboolean has_value;             /* any value tram for this port */
  gint64 value, running, total, job;
} SwnPortState;
void swn_model_port (const ViperModel *m, guint sw, guint port, SwnPortState *out);
/* Does any port of the switch have data (value or total)?  Switches without
 * are blank places once any data has arrived. */
gboolean swn_model_switch_has_data (const ViperModel *m, guint sw);
gboolean swn_model_any_data (const ViperModel *m);
/* The value the current mode shows. */
gint64 swn_port_shown (const SwnInit *init, const SwnPortState *s);
/* Range-of-interest colour of a value; has: FALSE = white (no data yet). */
SwnRgb swn_value_color (const SwnInit *init, gint64 v);
/* Stable colour of a job id (0: none, grey). */
SwnRgb swn_job_color (gint64 job);

ViperSetup *swn_setup_load (const char *path, GError **error);
void swn_setup_free (ViperSetup *setup);

/* The renderer table (paradigms/views.h's ViperRenderer). */
extern const struct _ViperRenderer swn_renderer;

G_END_DECLS
