/* lights-model-priv.h - the lights model's insides, shared by
 * lights-model.c (the model) and lights-snapshot.c (its checkpoints). */
#pragma once

#include <math.h>
#include <string.h>
#include "lights.h"
#include "core/run.h"

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
} LightsModel;

static inline Node *
node_at (const LightsModel *m, guint i)
{
  return &g_array_index (m->nodes, Node, i);
}

/* lights-model.c, for lights-snapshot.c */
void lights_priv_nodes_clear (LightsModel *m);
void lights_priv_free_messages (LightsModel *m);
void lights_priv_adopt_setup (LightsModel *m, const ViperViewSetup *vs);
gint8 lights_priv_bw_class (const LightsRange *r, double bw);
guint8 lights_priv_bw_shade (const LightsRange *r, double bw);

/* lights-snapshot.c: checkpoints (core/model.h) */
gpointer lights_snapshot (const ViperModel *base, gsize *bytes);
void lights_restore (ViperModel *base, gconstpointer snap);
void lights_snapshot_free (gpointer snap);
