/* lights.h - the cluster lights paradigm (Lilith Lights; docs/paradigm-lights.md).
 *
 * Modules are cluster nodes.  Each node's collector (viper-lights-agent, or
 * the simulator viper-lights-sim) sends, every interval, the node's CPU busy
 * share and the bytes it sent to each peer; agents also say when a node
 * joined, when a subtree of the collection tree was lost, and free text.
 * The view setup file (paradigms/viewsetup.h, with its cluster lines) is
 * this paradigm's setup file: node order and positions, the virtual links
 * the arrows stand for, routes, and the range of interest of the arrows'
 * colours.  Every tram is FREE (no cross-dependency): each node's trams
 * leave in its own sequence order, and the nodes' own clocks are merged by
 * the run construction.
 */
#pragma once

#include "core/paradigm.h"
#include "core/model.h"
#include "paradigms/viewsetup.h"

G_BEGIN_DECLS

extern const ViperParadigm viper_lights_paradigm;

#define LIGHTS_REC 4
enum {
  LIGHTS_EV_LOAD = 40,      /* SEQ BUSY INTERVAL: busy per mille (0..1000) over INTERVAL ms */
  LIGHTS_EV_TRAFFIC = 41,   /* SEQ INTERVAL PEER BYTES [PEER BYTES...]: bytes sent to each peer */
  LIGHTS_EV_JOINED = 42,    /* SEQ PARENT: the node's collector joined (PARENT node, -1 = Viper) */
  LIGHTS_EV_LOST = 43,      /* SEQ NODE [NODE...]: the reporter lost these nodes */
  LIGHTS_EV_MESSAGE = 44,   /* SEQ C1 [C2...]: collector text, one Unicode code point per field */
};

#define LIGHTS_MAX_LOAD 1000

typedef enum {
  LIGHTS_NODE_UNKNOWN = 0,  /* named by the setup, not heard from */
  LIGHTS_NODE_UP,
  LIGHTS_NODE_LOST,
  LIGHTS_NODE_STALE,        /* was up, but its readings are not current: it has sent no sample for
                             * LIGHTS_STALE_INTERVALS of its intervals while others went on (in the
                             * model), or the live collection has ended (only as shown:
                             * lights_model_node, lights_model_shown_load, counts) */
} LightsNodeState;

/* An up node whose last tram is older than this many of its own sample
 * intervals (from its load samples), in trace time (the latest time
 * applied), is stale until it is heard from again. */
#define LIGHTS_STALE_INTERVALS 3

/* States of the generic views: load deciles, then no sample, lost. */
#define LIGHTS_STATE_NO_SAMPLE 10
#define LIGHTS_STATE_LOST 11
#define LIGHTS_N_STATES 12

typedef struct {
  gint64 id;
  guint8 state;             /* LightsNodeState */
  gint32 load;              /* per mille of the last sample, -1 before the first */
  double interval;          /* of the last sample, seconds */
  double last_sample;       /* adjusted time of the last load sample, NAN before */
  double last_heard;        /* adjusted time of its last tram of any kind, NAN before */
  gint64 parent;            /* from the joined tram, -1 */
  guint64 samples;          /* load samples */
  guint64 bytes_out, bytes_in;  /* all traffic trams so far */
  double bw_out, bw_in;     /* bytes per second in the last intervals */
} LightsNode;

typedef struct {
  gint64 from, to;
  double bw;                /* bytes per second routed over it now */
  guint64 bytes;            /* bytes routed over it so far */
} LightsLink;

/* The range of interest: arrows below min and above max take their own
 * colours; in between, dark blue (min) to bright yellow (max). */
typedef struct {
  double min, max;          /* bytes per second */
  ViperViewRgb below, above;
} LightsRange;

#define LIGHTS_DEFAULT_RANGE_MIN 1e3
#define LIGHTS_DEFAULT_RANGE_MAX 125e6
/* --state-out lists each node's peers only for clusters up to this many
 * nodes: all-to-all traffic of a thousand nodes is a million pairs. */
#define LIGHTS_STATE_PEERS_LIMIT 256

/* ---- the topology (lights-route.c) ---------------------------------------- */

typedef struct _LightsTopo LightsTopo;

/* The links and routing of a view setup; NULL + "FILE:LINE:COLUMN: expected ..."
 * when a link or route names a node the file has no module for, a route
 * hop is not a link, or the topology does not fit the modules. */
LightsTopo *lights_topo_new (const ViperViewSetup *vs, GError **error);
void lights_topo_free (LightsTopo *t);
guint lights_topo_n_links (const LightsTopo *t);
void lights_topo_link (const LightsTopo *t, guint i, gint64 *from, gint64 *to);
/* Index of the link from -> to, or -1. */
gint lights_topo_link_index (const LightsTopo *t, gint64 from, gint64 to);
/* The route from src to dst as link indexes appended to out (guint); FALSE
 * when traffic between them is not shown (a node not in the file, no path,
 * physical mode without a direct link). */
gboolean lights_topo_route (LightsTopo *t, gint64 src, gint64 dst, GArray *out);
const char *lights_topology_name (ViperViewTopology topo);
/* The same by node index (position in the file, -1 when not in it): at
 * most cap link indexes written to buf, their count, or G_MAXUINT when
 * unroutable.  What the model walks for every pair of every sample. */
gint lights_topo_index (const LightsTopo *t, gint64 id);
/* The links out of node index idx, in the order they were made. */
guint lights_topo_out_degree (const LightsTopo *t, gint idx);
guint lights_topo_out_link (const LightsTopo *t, gint idx, guint k);
guint lights_topo_route_idx (LightsTopo *t, guint a, guint b, guint *buf, guint cap);
guint lights_topo_n_nodes (const LightsTopo *t);
guint lights_topo_link_from (const LightsTopo *t, guint link);

/* The routes from one source as a tree (lights-route.c): up[v] is the last
 * link of the route to node index v, plus one (0: the source itself, or
 * unroutable); order lists the routable nodes nearest first, so walking it
 * backwards meets every node before the node its route passes last. */
typedef struct {
  guint32 *up;
  guint32 *order;
  guint n_order;
  guint64 hops;             /* the routes' lengths summed */
} LightsTree;
/* Memory for source trees per topology; past it routes are walked. */
#define LIGHTS_TREE_BYTES (64u << 20)
/* The tree of source a, made on first use; NULL when its routes are not
 * prefix-closed or the bound is reached. */
const LightsTree *lights_topo_tree (LightsTopo *t, guint a);

/* ---- the model (lights-model.c) --------------------------------------------- */

ViperModel *lights_model_new (const ViperParadigm *p, ViperSetup *setup);
/* The node's state; a node neither in the setup nor heard from is unknown. */
void lights_model_node (const ViperModel *m, gint64 id, LightsNode *out);
/* The latest trace time applied (-inf before any tram). */
double lights_model_now (const ViperModel *m);
GArray *lights_model_ids (const ViperModel *m);            /* of gint64, setup order then the rest by id */
guint lights_model_n_links (const ViperModel *m);
void lights_model_link (const ViperModel *m, guint i, LightsLink *out);
gint lights_model_link_index (const ViperModel *m, gint64 from, gint64 to);
/* The links out of a node (the variables view): how many, and the k-th's index. */
guint lights_model_n_out_links (const ViperModel *m, gint64 id);
guint lights_model_out_link (const ViperModel *m, gint64 id, guint k);
/* Bytes from src to dst so far, and its rate in the last interval. */
guint64 lights_model_pair_bytes (const ViperModel *m, gint64 src, gint64 dst);
double lights_model_pair_bw (const ViperModel *m, gint64 src, gint64 dst);
/* Bytes no link shows (unroutable pairs, nodes outside the file). */
guint64 lights_model_unrouted (const ViperModel *m);
/* Display latency: wall clock at apply minus the sample's time stamp, for
 * time stamps that are Unix times in seconds; NAN otherwise. */
double lights_model_latency (const ViperModel *m);
/* The collectors' messages, oldest first (the last 64). */
guint lights_model_n_messages (const ViperModel *m);
const char *lights_model_message (const ViperModel *m, guint i);
void lights_model_counts (const ViperModel *m, guint *up, guint *lost, guint *unknown, guint *stale);

void lights_model_set_view_setup (ViperModel *m, const ViperViewSetup *vs);
const ViperViewSetup *lights_model_view_setup (const ViperModel *m);
/* Different for every model and every view setup it adopted (a reload, a
 * reset): what a drawing cache of the views is keyed by. */
guint64 lights_model_view_serial (const ViperModel *m);
void lights_model_range (const ViperModel *m, LightsRange *out);
void lights_model_set_range (ViperModel *m, const LightsRange *r);
/* Freeze: the views show the loads and link rates as they were when frozen
 * while the replay goes on underneath. */
void lights_model_set_frozen (ViperModel *m, gboolean frozen);
gboolean lights_model_frozen (const ViperModel *m);
/* What the views draw: frozen or current. */
gint32 lights_model_shown_load (const ViperModel *m, gint64 id, guint8 *state);
double lights_model_shown_link_bw (const ViperModel *m, guint i);

/* The paradigm's setup file reader: a view setup file for paradigm lights
 * (or naming none) whose representations are bar or node, with a valid
 * topology. */
ViperSetup *lights_setup_load (const char *path, GError **error);
void lights_setup_free (ViperSetup *setup);

G_END_DECLS
