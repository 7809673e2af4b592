/* lights-snapshot.c - checkpoints of the lights model (core/model.h, seek):
 * nodes with their pairs, the links' rates and bytes, the messages.  The
 * freeze and the colour range stay as the user set them (the classes are
 * derived again from the rates), and a view setup swapped since rebuilds
 * the links from the pairs. */
#include <math.h>
#include <string.h>

#include "lights-model-private.h"

typedef struct {
  GArray *nodes;            /* Node, out and out_idx copied */
  guint32 *dense;
  guint dense_cap;
  GHashTable *sparse;
  const ViperViewSetup *vs;
  guint n_links;
  double *link_bw;
  guint64 *link_bytes, unrouted;
  double latency;
  char *msgs[N_MESSAGES];
  guint msg_first, n_msgs;
  gboolean any;
  double now;
} LightsSnap;

static GArray *
nodes_copy (const GArray *src)
{
  GArray *dst = g_array_copy ((GArray *) src);
  for (guint i = 0; i < dst->len; i++)
    {
      Node *n = &g_array_index (dst, Node, i);
      n->out = g_array_copy (n->out);
      GHashTable *idx = g_hash_table_new (g_direct_hash, g_direct_equal);
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, n->out_idx);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_hash_table_insert (idx, k, v);
      n->out_idx = idx;
    }
  return dst;
}

gpointer
lights_snapshot (const ViperModel *base, gsize *bytes)
{
  const LightsModel *m = (const LightsModel *) base;
  LightsSnap *s = g_new0 (LightsSnap, 1);
  s->nodes = nodes_copy (m->nodes);
  s->dense = m->dense ? g_memdup2 (m->dense, m->dense_cap * sizeof (guint32)) : NULL;
  s->dense_cap = m->dense_cap;
  s->sparse = viper_int64_table_copy (m->sparse);
  s->vs = m->vs;
  s->n_links = m->n_links;
  s->link_bw = g_memdup2 (m->link_bw, MAX (m->n_links, 1u) * sizeof (double));
  s->link_bytes = g_memdup2 (m->link_bytes, MAX (m->n_links, 1u) * sizeof (guint64));
  s->unrouted = m->unrouted;
  s->latency = m->latency;
  for (guint i = 0; i < m->n_msgs; i++)
    s->msgs[(m->msg_first + i) % N_MESSAGES] = g_strdup (m->msgs[(m->msg_first + i) % N_MESSAGES]);
  s->msg_first = m->msg_first;
  s->n_msgs = m->n_msgs;
  s->any = m->any;
  s->now = m->now;
  gsize b = sizeof *s + m->dense_cap * sizeof (guint32) + m->n_links * 16;
  for (guint i = 0; i < m->nodes->len; i++)
    b += sizeof (Node) + node_at (m, i)->out->len * (sizeof (Out) + 32);
  *bytes = b;
  return s;
}

void
lights_restore (ViperModel *base, gconstpointer snap)
{
  LightsModel *m = (LightsModel *) base;
  const LightsSnap *s = snap;
  lights_priv_nodes_clear (m);
  g_array_unref (m->nodes);
  m->nodes = nodes_copy (s->nodes);
  for (guint i = 0; i < m->nodes->len; i++)
    node_at (m, i)->rx_gen = node_at (m, i)->tx_gen = 0;
  g_free (m->dense);
  m->dense = s->dense ? g_memdup2 (s->dense, s->dense_cap * sizeof (guint32)) : NULL;
  m->dense_cap = s->dense_cap;
  g_hash_table_destroy (m->sparse);
  m->sparse = viper_int64_table_copy (s->sparse);
  lights_priv_free_messages (m);
  for (guint i = 0; i < N_MESSAGES; i++)
    m->msgs[i] = NULL;
  for (guint i = 0; i < s->n_msgs; i++)
    m->msgs[(s->msg_first + i) % N_MESSAGES] = g_strdup (s->msgs[(s->msg_first + i) % N_MESSAGES]);
  m->msg_first = s->msg_first;
  m->n_msgs = s->n_msgs;
  m->latency = s->latency;
  m->any = s->any;
  m->now = s->now;
  m->next_due = -INFINITY;   /* worked out again at the next tram */
  if (s->vs != m->vs || s->n_links != m->n_links)
    {
      lights_priv_adopt_setup (m, m->vs);
      return;
    }
  memcpy (m->link_bw, s->link_bw, MAX (m->n_links, 1u) * sizeof (double));
  memcpy (m->link_bytes, s->link_bytes, MAX (m->n_links, 1u) * sizeof (guint64));
  m->unrouted = s->unrouted;
  for (guint i = 0; i < m->n_links; i++)
    {
      m->link_shade[i] = lights_bw_shade (&m->range, m->link_bw[i]);
      m->link_class[i] = lights_shade_class (m->link_shade[i]);
      m->link_dgen[i] = 0;   /* damage marks of the restored state: none yet */
    }
}

void
lights_snapshot_free (gpointer snap)
{
  LightsSnap *s = snap;
  for (guint i = 0; i < s->nodes->len; i++)
    {
      Node *n = &g_array_index (s->nodes, Node, i);
      g_array_unref (n->out);
      g_hash_table_destroy (n->out_idx);
    }
  g_array_unref (s->nodes);
  g_free (s->dense);
  g_hash_table_destroy (s->sparse);
  g_free (s->link_bw);
  g_free (s->link_bytes);
  for (guint i = 0; i < N_MESSAGES; i++)
    g_free (s->msgs[i]);
  g_free (s);
}
