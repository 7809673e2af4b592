/* lights-links.c - the links' rates and bytes from the node pairs
 * (docs/paradigm-lights.md): a moved pair's difference walks its route, or
 * many of them are summed up the sender's route tree (lights-route.c) in
 * one pass; a link's colour step decides its damage, its class the
 * space-time history.
 */
#include <math.h>
#include "lights-model-private.h"
#include "core/run.h"

/* The arrow's colour in steps: 0 below the range, 1..64 through it, 65
 * above.  A link is repainted when its step changes, not at every tram that
 * moves its rate a little: a sample of a thousand nodes all-to-all touches
 * every link a thousand times. */
guint8
lights_bw_shade (const LightsRange *r, double bw)
{
  if (bw < r->min)
    return 0;
  if (bw > r->max)
    return 65;
  return (guint8) (1 + MIN ((int) ((bw - r->min) / (r->max - r->min) * 64), 63));
}

/* The space-time view's classes: 0 below, 1..8 through the range, 9 above -
 * every eighth step (8 divides 64, so a class never changes without a step). */
gint8
lights_shade_class (guint8 shade)
{
  return shade == 0 ? 0 : shade == 65 ? 9 : (gint8) (1 + (shade - 1) / 8);
}

/* A link's rate moved by d: damage when its colour step changes, history
 * when its class does. */
static void
link_moved (LightsModel *m, guint li, double d, const ViperTram *t, gboolean hist)
{
  double bw = m->link_bw[li] + d;
  /* sums of doubles: what should be zero may come out a hair below */
  if (bw < 1e-6)
    bw = MAX (bw, 0.0);
  m->link_bw[li] = bw;
  guint8 shade = lights_bw_shade (&m->range, bw);
  if (shade == m->link_shade[li])
    return;
  m->link_shade[li] = shade;
  gint64 from, to;
  lights_topo_link (m->topo, li, &from, &to);
  if (mark_once (m, &m->link_dgen[li]))
    {
      viper_damage_add (m->base.damage, VIPER_AREA_LINK, from, to);
      /* its row in the variables view, under its source node */
      guint from_idx = lights_topo_link_from (m->topo, li), deg = lights_topo_out_degree (m->topo, (gint) from_idx);
      for (guint k = 0; k < deg; k++)
        if (lights_topo_out_link (m->topo, (gint) from_idx, k) == li)
          viper_damage_add (m->base.damage, VIPER_AREA_VARIABLE, from, ROW_FIRST_LINK + k);
    }
  gint8 c = lights_shade_class (shade);
  if (hist && c != m->link_class[li])
    {
      ViperHistoryEntry e = { t->adjusted, t->adjusted, (gint32) from, (gint32) to, c, 0 };
      viper_model_history_add (&m->base, &e);
    }
  m->link_class[li] = c;
}

static gboolean
want_history (const LightsModel *m, const ViperTram *t)
{
  return t && m->n_links <= HISTORY_LINK_LIMIT && m->base.history_interval >= 0;
}

/* Move a pair's rate difference and bytes onto its route: the bytes at
 * once, the rate into link_dbw, which links_flush() applies once per link
 * when the tram is done (a sample of a thousand pairs crosses each link
 * many times: its damage and history are decided once). */
static void
route_add (LightsModel *m, guint si, guint pi, double dbw, guint64 bytes)
{
  gint32 a = node_at (m, si)->topo, b = node_at (m, pi)->topo;
  guint n = a < 0 || b < 0 ? G_MAXUINT
                           : lights_topo_route_idx (m->topo, (guint) a, (guint) b, m->route, m->route_cap);
  if (n == G_MAXUINT)
    {
      m->unrouted += bytes;
      return;
    }
  for (guint k = 0; k < n; k++)
    {
      guint li = m->route[k];
      m->link_bytes[li] += bytes;
      if (dbw == 0)
        continue;
      m->link_dbw[li] += dbw;
      if (!m->is_touched[li])
        {
          m->is_touched[li] = TRUE;
          m->touched[m->n_touched++] = li;
        }
    }
}

static void
links_flush (LightsModel *m, const ViperTram *t)
{
  gboolean hist = want_history (m, t);
  for (guint i = 0; i < m->n_touched; i++)
    {
      guint li = m->touched[i];
      double d = m->link_dbw[li];
      m->link_dbw[li] = 0;
      m->is_touched[li] = FALSE;
      if (d != 0)
        link_moved (m, li, d, t, hist);
    }
  m->n_touched = 0;
}

/* The moved pairs of sender si (m->changed) onto the links.  Many pairs:
 * each destination's difference is put at its node of the sender's route
 * tree and the sums are pushed up the tree, deepest node first, so each
 * link gets the sum of the nodes below it once - a pass over the nodes
 * instead of a walk per pair.  A few pairs, or no tree: each route is
 * walked. */
void
lights_pairs_to_links (LightsModel *m, guint si, const ViperTram *t)
{
  gint32 a = node_at (m, si)->topo;
  guint n = m->changed->len;
  const LightsTree *tree = a >= 0 && n >= TREE_FROM_PAIRS ? lights_topo_tree (m->topo, (guint) a) : NULL;
  if (tree && (guint64) n * tree->hops < (guint64) tree->n_order * MAX (tree->n_order, 1u))
    tree = NULL;            /* walking n routes of hops / n_order links is less than a pass over the tree */
  if (!tree)
    {
      for (guint k = 0; k < n; k++)
        {
          const Changed *c = &g_array_index (m->changed, Changed, k);
          route_add (m, si, c->peer, c->dbw, c->bytes);
        }
      links_flush (m, t);
      return;
    }
  for (guint k = 0; k < n; k++)
    {
      const Changed *c = &g_array_index (m->changed, Changed, k);
      gint32 b = node_at (m, c->peer)->topo;
      if (b < 0 || !tree->up[b])
        {
          m->unrouted += c->bytes;
          continue;
        }
      m->acc_bw[b] += c->dbw;
      m->acc_bytes[b] += c->bytes;
    }
  gboolean hist = want_history (m, t);
  for (guint k = tree->n_order; k-- > 0;)
    {
      guint v = tree->order[k];
      double x = m->acc_bw[v];
      guint64 y = m->acc_bytes[v];
      if (x == 0 && y == 0)
        continue;
      m->acc_bw[v] = 0;
      m->acc_bytes[v] = 0;
      guint li = tree->up[v] - 1, p = lights_topo_link_from (m->topo, li);
      m->acc_bw[p] += x;
      m->acc_bytes[p] += y;
      m->link_bytes[li] += y;
      if (x != 0)
        link_moved (m, li, x, t, hist);
    }
  m->acc_bw[a] = 0;
  m->acc_bytes[a] = 0;
}

/* Every link from the pairs' rates and totals (a new view setup). */
void
lights_links_rebuild (LightsModel *m)
{
  m->n_links = lights_topo_n_links (m->topo);
  g_free (m->link_bw);
  g_free (m->link_bytes);
  g_free (m->link_class);
  g_free (m->link_shade);
  g_free (m->link_dbw);
  g_free (m->touched);
  g_free (m->is_touched);
  g_free (m->link_dgen);
  g_free (m->acc_bw);
  g_free (m->acc_bytes);
  guint nn = lights_topo_n_nodes (m->topo) + 1;
  m->acc_bw = g_new0 (double, nn);
  m->acc_bytes = g_new0 (guint64, nn);
  m->link_dgen = g_new0 (guint64, MAX (m->n_links, 1u));
  m->link_shade = g_new0 (guint8, MAX (m->n_links, 1u));
  m->link_dbw = g_new0 (double, MAX (m->n_links, 1u));
  m->touched = g_new0 (guint, MAX (m->n_links, 1u));
  m->is_touched = g_new0 (gboolean, MAX (m->n_links, 1u));
  m->n_touched = 0;
  m->link_bw = g_new0 (double, MAX (m->n_links, 1u));
  m->link_bytes = g_new0 (guint64, MAX (m->n_links, 1u));
  m->link_class = g_new0 (gint8, MAX (m->n_links, 1u));
  m->unrouted = 0;
  for (guint i = 0; i < m->nodes->len; i++)
    {
      Node *nd = node_at (m, i);
      g_array_set_size (m->changed, 0);
      for (guint k = 0; k < nd->out->len; k++)
        {
          Out *o = &g_array_index (nd->out, Out, k);
          Changed c = { o->peer, nd->n.state == LIGHTS_NODE_LOST ? 0 : o->bw, o->total };
          g_array_append_val (m->changed, c);
        }
      lights_pairs_to_links (m, i, NULL);
    }
  for (guint i = 0; i < m->n_links; i++)
    {
      m->link_shade[i] = lights_bw_shade (&m->range, m->link_bw[i]);
      m->link_class[i] = lights_shade_class (m->link_shade[i]);
    }
}
