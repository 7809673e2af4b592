/* lights-model-private.h - what lights-model.c, lights-links.c and
 * lights-snapshot.c (its checkpoints) share: the model's structures
 * (docs/paradigm-lights.md).  Not for the views.
 */
#pragma once

#include "lights.h"

G_BEGIN_DECLS

#define DENSE_LIMIT (1 << 20)
#define N_MESSAGES 64
#define HISTORY_LINK_LIMIT 512

typedef struct {
  guint peer;               /* node index */
  double bw;                /* bytes per second, last sample */
  double nbw;               /* being summed from the tram at hand */
  guint64 total;
  guint64 pending;          /* bytes of the tram at hand */
} Out;

typedef struct {
  LightsNode n;
  gint32 topo;              /* index in the view setup's topology, -1 */
  gboolean heard;
  gint hstate;              /* state code last put in the history, -1 */
  guint64 rx_gen, tx_gen;   /* damage generation + 1 its received / sent rows were marked in */
  GArray *out;              /* Out */
  GHashTable *out_idx;      /* peer index + 1 -> position + 1 */
} Node;

typedef struct _LightsModel {
  ViperModel base;
  const ViperViewSetup *vs;
  LightsTopo *topo;
  GArray *nodes;            /* Node */
  guint32 *dense;
  guint dense_cap;
  GHashTable *sparse;
  guint n_links;
  double *link_bw;
  guint64 *link_bytes;
  gint8 *link_class;
  guint8 *link_shade;       /* the arrow colour last damaged for, in 66 steps */
  guint64 unrouted;
  LightsRange range;
  gboolean frozen;
  GArray *frozen_load;      /* gint32 per node index */
  GArray *frozen_state;     /* guint8 per node index */
  double *frozen_bw;
  guint n_frozen_bw;
  double latency;
  char *msgs[N_MESSAGES];
  guint msg_first, n_msgs;
  guint *route;             /* scratch: link indexes of one route */
  guint route_cap;
  double *link_dbw;         /* rate changes of the tram at hand, per link */
  guint *touched;           /* links with a change pending */
  guint n_touched;
  gboolean *is_touched;
  gboolean any;
  guint64 *link_dgen;       /* damage generation + 1 the link's arrow was marked in */
  double *acc_bw;           /* per topology node: a source tree's sums being pushed up */
  guint64 *acc_bytes;
  GArray *changed;          /* Changed: the pairs of the tram at hand that moved */
  guint64 view_serial;      /* new for every setup adopted (lights_model_view_serial) */
  GArray *ids;              /* lights_model_ids(), NULL when a node outside the setup was heard since */
  double now;               /* the latest adjusted time applied (trace time), -inf before */
  double next_due;          /* no up node's readings can turn stale before this (a lower bound) */
} LightsModel;

typedef struct {
  guint peer;               /* node index */
  double dbw;
  guint64 bytes;
} Changed;

/* A source with this many moved pairs or more sums them up its route tree
 * (lights-route.c) when that is cheaper than walking each route. */
#define TREE_FROM_PAIRS 8

/* The variables view's rows of a node (lights-render.c) */
#define ROW_SENT 2
#define ROW_RECEIVED 3
#define ROW_FIRST_LINK 4

static inline Node *
node_at (const LightsModel *m, guint i)
{
  return &g_array_index (m->nodes, Node, i);
}

/* TRUE the first time an area is marked since the damage set was last
 * taken: a sample of a thousand nodes marks each peer a thousand times. */
static inline gboolean
mark_once (LightsModel *m, guint64 *stamp)
{
  guint64 gen = viper_damage_generation (m->base.damage) + 1;
  if (*stamp == gen)
    return FALSE;
  *stamp = gen;
  return TRUE;
}

/* lights-links.c: the links' rates and bytes from the pairs */
G_GNUC_INTERNAL guint8 lights_bw_shade (const LightsRange *r, double bw);
G_GNUC_INTERNAL gint8 lights_shade_class (guint8 shade);
/* the pairs of sender si in m->changed onto the links (t: the tram, NULL when rebuilding) */
G_GNUC_INTERNAL void lights_pairs_to_links (LightsModel *m, guint si, const ViperTram *t);
/* every link afresh from the pairs' rates and totals (a new view setup) */
G_GNUC_INTERNAL void lights_links_rebuild (LightsModel *m);

/* lights-model.c, for lights-snapshot.c */
G_GNUC_INTERNAL void lights_priv_nodes_clear (LightsModel *m);
G_GNUC_INTERNAL void lights_priv_free_messages (LightsModel *m);
G_GNUC_INTERNAL void lights_priv_adopt_setup (LightsModel *m, const ViperViewSetup *vs);

/* lights-snapshot.c: checkpoints (core/model.h) */
G_GNUC_INTERNAL gpointer lights_snapshot (const ViperModel *base, gsize *bytes);
G_GNUC_INTERNAL void lights_restore (ViperModel *base, gconstpointer snap);
G_GNUC_INTERNAL void lights_snapshot_free (gpointer snap);

G_END_DECLS
