/* lights-route.c - links and routes of a cluster view (docs/paradigm-lights.md).
 *
 * The nodes are the view setup's modules in file order; node k of a mesh or
 * torus of C columns stands at row k / C, column k % C, and node k of a ring
 * is its k-th station.  When the file lists no links, the topology's own are
 * made (grid neighbours, the torus's wrap-around, the ring's successors),
 * both directions each.
 *
 * A route is followed hop by hop without storing it: Lilith drew traffic of
 * thousands of node pairs every half second, and a table of every pair's
 * path would cost more than walking it.  The next hop is
 *  - a listed route's next node, when the file lists one for the pair;
 *  - mesh: dimension order, along the row to the destination's column first,
 *    then along the column; torus: the same, each dimension the shorter way
 *    round (ties: increasing index); ring: the shorter way round (ties:
 *    increasing index);
 *  - no topology: a shortest path over the links (breadth first from the
 *    destination, ties by link order), its next-hop table computed once per
 *    destination;
 *  - physical: the direct link only - arrows are the physical links and
 *    nothing is routed.
 * Each hop must be a link; a hop that is not (the file listed links that
 * miss the topology's routing) makes the pair unroutable.  Hops are bounded
 * by the number of nodes, so a bad routing can never loop.
 *
 * Source trees.  A node sending to every other (Lilith's all-to-all) would
 * walk a thousand routes of ~20 hops per sample.  When the routes from a
 * source are prefix-closed - the route to v is the route to the node before
 * v plus one link, as dimension order and ring routing always are - they
 * form a tree rooted at the source, and what each link carries is the sum
 * over the nodes below it: one pass over the nodes, deepest first, instead
 * of one walk per pair (lights-model.c).  The tree of a source is made the
 * first time it is asked for (walking each route once and checking that
 * every link on it is the tree link of its head), kept until the topology
 * goes (a view setup reloaded makes a new one), and bounded in memory: past
 * LIGHTS_TREE_BYTES the routes are walked.  A source whose routes are not
 * prefix-closed (listed routes that disagree with each other) has none.
 */
#include <string.h>
#include "lights.h"

typedef struct {
  guint to;                 /* node index */
  guint link;
} Adj;

struct _LightsTopo {
  ViperViewTopology topo;
  guint rows, cols;
  guint n;                  /* nodes (modules) */
  gint64 *ids;              /* index -> id */
  GHashTable *index;        /* id -> index + 1 */
  GArray *links;            /* ViperViewLink */
  GArray **adj;             /* per node: Adj */
  GHashTable *routes;       /* (src index << 32 | dst index) -> route number + 1 */
  const ViperViewCluster *cl;
  guint32 **next;           /* no topology: next[dst][node] = next node index + 1 (0: none); lazily */
  GArray **radj;            /* per node: Adj of the links into it (to = the link's source); lazily */
  gint32 *dir;              /* mesh, torus, ring: dir[4 k + d] = the link from node k one step in
                               direction d (0 +column, 1 -column, 2 +row, 3 -row; ring: 0 up, 1 down), -1 */
  guint *link_to;           /* link -> the node index it leads to */
  guint *link_from;         /* link -> the node index it leaves */
  LightsTree **trees;       /* per source node index, lazily; &no_tree: routes not prefix-closed */
  gsize tree_bytes;
};

static LightsTree no_tree;

const char *
lights_topology_name (ViperViewTopology topo)
{
  switch (topo)
    {
    case VIPER_VIEW_TOPO_MESH: return "mesh";
    case VIPER_VIEW_TOPO_TORUS: return "torus";
    case VIPER_VIEW_TOPO_RING: return "ring";
    case VIPER_VIEW_TOPO_PHYSICAL: return "physical";
    case VIPER_VIEW_TOPO_NONE:
    default: return "none";
    }
}

static gint
idx_of (const LightsTopo *t, gint64 id)
{
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (t->index, &id)) - 1;
}

static gint
adj_link (const LightsTopo *t, guint a, guint b)
{
  const GArray *l = t->adj[a];
  for (guint i = 0; i < l->len; i++)
    if (g_array_index (l, Adj, i).to == b)
      return (gint) g_array_index (l, Adj, i).link;
  return -1;
}

static void
add_link (LightsTopo *t, guint a, guint b, guint line)
{
  if (a == b || adj_link (t, a, b) >= 0)
    return;
  ViperViewLink l = { .from = t->ids[a], .to = t->ids[b], .line = line };
  g_array_append_val (t->links, l);
  Adj x = { b, t->links->len - 1 };
  g_array_append_val (t->adj[a], x);
}

static void
add_both (LightsTopo *t, guint a, guint b, guint line)
{
  add_link (t, a, b, line);
  add_link (t, b, a, line);
}

static void
default_links (LightsTopo *t, guint line)
{
  if (t->topo == VIPER_VIEW_TOPO_RING)
    {
      for (guint i = 0; t->n > 1 && i < t->n; i++)
        add_both (t, i, (i + 1) % t->n, line);
      return;
    }
  if (t->topo != VIPER_VIEW_TOPO_MESH && t->topo != VIPER_VIEW_TOPO_TORUS)
    return;
  gboolean wrap = t->topo == VIPER_VIEW_TOPO_TORUS;
  for (guint r = 0; r < t->rows; r++)
    for (guint c = 0; c < t->cols; c++)
      {
        guint k = r * t->cols + c;
        if (c + 1 < t->cols)
          add_both (t, k, k + 1, line);
        else if (wrap && t->cols > 2)
          add_both (t, k, r * t->cols, line);
        if (r + 1 < t->rows)
          add_both (t, k, k + t->cols, line);
        else if (wrap && t->rows > 2)
          add_both (t, k, c, line);
      }
}

/* The one-step links of the regular topologies, so that a route is walked
 * without arithmetic or searching per hop. */
static void
build_steps (LightsTopo *t)
{
  t->link_to = g_new0 (guint, MAX (t->links->len, 1u));
  t->link_from = g_new0 (guint, MAX (t->links->len, 1u));
  for (guint i = 0; i < t->links->len; i++)
    {
      t->link_to[i] = (guint) idx_of (t, g_array_index (t->links, ViperViewLink, i).to);
      t->link_from[i] = (guint) idx_of (t, g_array_index (t->links, ViperViewLink, i).from);
    }
  gboolean grid = t->topo == VIPER_VIEW_TOPO_MESH || t->topo == VIPER_VIEW_TOPO_TORUS;
  if (!grid && t->topo != VIPER_VIEW_TOPO_RING)
    return;
  t->dir = g_new (gint32, 4 * MAX (t->n, 1u));
  for (guint k = 0; k < t->n; k++)
    {
      gint64 nb[4] = { -1, -1, -1, -1 };
      if (grid)
        {
          guint r = k / t->cols, c = k % t->cols;
          gboolean wrap = t->topo == VIPER_VIEW_TOPO_TORUS;
          if (c + 1 < t->cols || (wrap && t->cols > 1))
            nb[0] = r * t->cols + (c + 1) % t->cols;
          if (c > 0 || (wrap && t->cols > 1))
            nb[1] = r * t->cols + (c + t->cols - 1) % t->cols;
          if (r + 1 < t->rows || (wrap && t->rows > 1))
            nb[2] = ((r + 1) % t->rows) * t->cols + c;
          if (r > 0 || (wrap && t->rows > 1))
            nb[3] = ((r + t->rows - 1) % t->rows) * t->cols + c;
        }
      else
        {
          nb[0] = (k + 1) % t->n;
          nb[1] = (k + t->n - 1) % t->n;
        }
      for (int d = 0; d < 4; d++)
        t->dir[4 * k + d] = nb[d] < 0 ? -1 : adj_link (t, k, (guint) nb[d]);
    }
}

/* An error about the file's line and column (a keyword's or a node id's). */
static gboolean
fail (GError **error, const ViperViewSetup *vs, guint line, guint col, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static gboolean
fail (GError **error, const ViperViewSetup *vs, guint line, guint col, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_SYNTAX, "%s:%u:%u: %s", vs->name, line, col,
               msg);
  g_free (msg);
  return FALSE;
}

LightsTopo *
lights_topo_new (const ViperViewSetup *vs, GError **error)
{
  LightsTopo *t = g_new0 (LightsTopo, 1);
  const ViperViewCluster *cl = vs ? vs->cluster : NULL;
  t->cl = cl;
  t->topo = cl ? cl->topology : VIPER_VIEW_TOPO_NONE;
  t->rows = cl ? cl->rows : 0;
  t->cols = cl ? cl->cols : 0;
  t->n = vs ? vs->modules->len : 0;
  t->ids = g_new0 (gint64, MAX (t->n, 1u));
  t->index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  t->links = g_array_new (FALSE, FALSE, sizeof (ViperViewLink));
  t->adj = g_new0 (GArray *, MAX (t->n, 1u));
  t->routes = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < t->n; i++)
    {
      t->ids[i] = g_array_index (vs->modules, ViperViewModule, i).id;
      g_hash_table_insert (t->index, g_memdup2 (&t->ids[i], sizeof (gint64)), GUINT_TO_POINTER (i + 1));
      t->adj[i] = g_array_new (FALSE, FALSE, sizeof (Adj));
    }
  if (!cl)
    return t;
  gboolean ok = TRUE;
  if ((t->topo == VIPER_VIEW_TOPO_MESH || t->topo == VIPER_VIEW_TOPO_TORUS) && (guint64) t->rows * t->cols != t->n)
    ok = fail (error, vs, cl->topology_line, cl->topology_col, "expected %u x %u = %u modules for the %s, the file has %u",
               t->rows, t->cols, t->rows * t->cols, lights_topology_name (t->topo), t->n);
  else if (t->topo == VIPER_VIEW_TOPO_RING && t->n < 2)
    ok = fail (error, vs, cl->topology_line, cl->topology_col, "expected two or more modules for the ring, the file has %u",
               t->n);
  for (guint i = 0; ok && i < cl->links->len; i++)
    {
      const ViperViewLink *l = &g_array_index (cl->links, ViperViewLink, i);
      gint a = idx_of (t, l->from), b = idx_of (t, l->to);
      if (a < 0 || b < 0)
        ok = fail (error, vs, l->line, a < 0 ? l->from_col : l->to_col,
                   "expected a module for node %" G_GINT64_FORMAT " of the link", a < 0 ? l->from : l->to);
      else
        add_link (t, (guint) a, (guint) b, l->line);
    }
  if (ok && !cl->links->len)
    default_links (t, cl->topology_line);
  for (guint i = 0; ok && i < cl->routes->len; i++)
    {
      const ViperViewRoute *r = &g_array_index (cl->routes, ViperViewRoute, i);
      const gint64 *hops = &g_array_index (cl->route_nodes, gint64, r->first);
      const guint *cols = &g_array_index (cl->route_cols, guint, r->first);
      for (guint k = 0; ok && k < r->n; k++)
        if (idx_of (t, hops[k]) < 0)
          ok = fail (error, vs, r->line, cols[k], "expected a module for node %" G_GINT64_FORMAT " of the route",
                     hops[k]);
      /* a missing hop: at the node it should leave */
      for (guint k = 0; ok && k + 1 < r->n; k++)
        if (adj_link (t, (guint) idx_of (t, hops[k]), (guint) idx_of (t, hops[k + 1])) < 0)
          ok = fail (error, vs, r->line, cols[k], "expected a link from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
                     " for the route", hops[k], hops[k + 1]);
      if (ok)
        {
          gint64 *key = g_new (gint64, 1);
          *key = (gint64) ((guint64) idx_of (t, r->src) << 32 | (guint64) idx_of (t, r->dst));
          g_hash_table_insert (t->routes, key, GUINT_TO_POINTER (i + 1));
        }
    }
  if (!ok)
    {
      lights_topo_free (t);
      return NULL;
    }
  build_steps (t);
  return t;
}

void
lights_topo_free (LightsTopo *t)
{
  if (!t)
    return;
  for (guint i = 0; i < t->n; i++)
    {
      g_array_unref (t->adj[i]);
      if (t->next)
        g_free (t->next[i]);
      if (t->radj)
        g_array_unref (t->radj[i]);
    }
  for (guint i = 0; t->trees && i < t->n; i++)
    if (t->trees[i] && t->trees[i] != &no_tree)
      {
        g_free (t->trees[i]->up);
        g_free (t->trees[i]->order);
        g_free (t->trees[i]);
      }
  g_free (t->trees);
  g_free (t->radj);
  g_free (t->dir);
  g_free (t->link_to);
  g_free (t->link_from);
  g_free (t->next);
  g_free (t->adj);
  g_free (t->ids);
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, t->routes);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_free (k);
  g_hash_table_destroy (t->routes);
  g_hash_table_destroy (t->index);
  g_array_unref (t->links);
  g_free (t);
}

guint
lights_topo_n_links (const LightsTopo *t)
{
  return t ? t->links->len : 0;
}

void
lights_topo_link (const LightsTopo *t, guint i, gint64 *from, gint64 *to)
{
  const ViperViewLink *l = &g_array_index (t->links, ViperViewLink, i);
  *from = l->from;
  *to = l->to;
}

gint
lights_topo_link_index (const LightsTopo *t, gint64 from, gint64 to)
{
  if (!t)
    return -1;
  gint a = idx_of (t, from), b = idx_of (t, to);
  return a < 0 || b < 0 ? -1 : adj_link (t, (guint) a, (guint) b);
}

/* Breadth first from dst over reversed links: next[dst][v] = v's next hop. */
static const guint32 *
next_table (LightsTopo *t, guint dst)
{
  if (!t->next)
    t->next = g_new0 (guint32 *, t->n);
  if (t->next[dst])
    return t->next[dst];
  if (!t->radj)
    {
      t->radj = g_new0 (GArray *, t->n);
      for (guint i = 0; i < t->n; i++)
        t->radj[i] = g_array_new (FALSE, FALSE, sizeof (Adj));
      for (guint i = 0; i < t->links->len; i++)
        {
          const ViperViewLink *l = &g_array_index (t->links, ViperViewLink, i);
          Adj x = { (guint) idx_of (t, l->from), i };
          g_array_append_val (t->radj[idx_of (t, l->to)], x);
        }
    }
  guint32 *nx = g_new0 (guint32, t->n);
  guint *queue = g_new (guint, t->n);
  gboolean *seen = g_new0 (gboolean, t->n);
  guint qh = 0, qt = 0;
  queue[qt++] = dst;
  seen[dst] = TRUE;
  while (qh < qt)
    {
      guint v = queue[qh++];
      /* every u with a link u -> v, in link order */
      for (guint i = 0; i < t->radj[v]->len; i++)
        {
          guint u = g_array_index (t->radj[v], Adj, i).to;
          if (seen[u])
            continue;
          seen[u] = TRUE;
          nx[u] = v + 1;
          queue[qt++] = u;
        }
    }
  g_free (queue);
  g_free (seen);
  t->next[dst] = nx;
  return nx;
}

guint
lights_topo_out_degree (const LightsTopo *t, gint idx)
{
  return t && idx >= 0 && (guint) idx < t->n ? t->adj[idx]->len : 0;
}

guint
lights_topo_out_link (const LightsTopo *t, gint idx, guint k)
{
  return g_array_index (t->adj[idx], Adj, k).link;
}

gint
lights_topo_index (const LightsTopo *t, gint64 id)
{
  return t ? idx_of (t, id) : -1;
}

guint
lights_topo_route_idx (LightsTopo *t, guint a, guint b, guint *buf, guint cap)
{
  if (!t || a == b || a >= t->n || b >= t->n)
    return G_MAXUINT;
  guint n = 0;
  if (g_hash_table_size (t->routes))
    {
      gint64 key = (gint64) ((guint64) a << 32 | (guint64) b);
      guint r = GPOINTER_TO_UINT (g_hash_table_lookup (t->routes, &key));
      if (r)
        {
          const ViperViewRoute *rt = &g_array_index (t->cl->routes, ViperViewRoute, r - 1);
          const gint64 *hops = &g_array_index (t->cl->route_nodes, gint64, rt->first);
          for (guint k = 0; k + 1 < rt->n && n < cap; k++)
            buf[n++] = (guint) adj_link (t, (guint) idx_of (t, hops[k]), (guint) idx_of (t, hops[k + 1]));
          return n;
        }
    }
  if (t->topo == VIPER_VIEW_TOPO_PHYSICAL)
    {
      gint li = adj_link (t, a, b);
      if (li < 0 || cap < 1)
        return G_MAXUINT;
      buf[0] = (guint) li;
      return 1;
    }
  if (t->dir)
    {
      /* dimension order: the steps and their direction per dimension, then walk the one-step links */
      gboolean ring = t->topo == VIPER_VIEW_TOPO_RING, wrap = ring || t->topo == VIPER_VIEW_TOPO_TORUS;
      guint cols = ring ? t->n : t->cols;
      guint ca = ring ? a : a % cols, cb = ring ? b : b % cols;
      guint ra = ring ? 0 : a / cols, rb = ring ? 0 : b / cols;
      guint legs[2][2];     /* { direction, steps } for columns, then rows */
      for (int dim = 0; dim < 2; dim++)
        {
          guint x = dim ? ra : ca, y = dim ? rb : cb, size = dim ? t->rows : cols;
          guint up = y >= x ? y - x : y + size - x, down = x >= y ? x - y : x + size - y;
          if (!wrap)
            up = y >= x ? y - x : G_MAXUINT, down = x >= y ? x - y : G_MAXUINT;
          gboolean go_up = up <= down;
          legs[dim][0] = (guint) (2 * dim + (go_up ? 0 : 1));
          legs[dim][1] = x == y ? 0 : go_up ? up : down;
        }
      guint cur = a;
      for (int dim = 0; dim < 2; dim++)
        for (guint k = 0; k < legs[dim][1]; k++)
          {
            gint32 li = t->dir[4 * cur + legs[dim][0]];
            if (li < 0 || n >= cap)
              return G_MAXUINT;
            buf[n++] = (guint) li;
            cur = t->link_to[li];
          }
      return cur == b ? n : G_MAXUINT;
    }
  const guint32 *next = next_table (t, b);
  guint cur = a;
  while (cur != b)
    {
      if (n >= t->n || n >= cap || !next[cur])
        return G_MAXUINT;
      guint nxt = next[cur] - 1;
      gint li = adj_link (t, cur, nxt);
      if (li < 0)
        return G_MAXUINT;
      buf[n++] = (guint) li;
      cur = nxt;
    }
  return n;
}

gboolean
lights_topo_route (LightsTopo *t, gint64 src, gint64 dst, GArray *out)
{
  if (!t || src == dst)
    return FALSE;
  gint a = idx_of (t, src), b = idx_of (t, dst);
  if (a < 0 || b < 0)
    return FALSE;
  guint len0 = out->len;
  g_array_set_size (out, len0 + t->n + 1);
  guint n = lights_topo_route_idx (t, (guint) a, (guint) b, &g_array_index (out, guint, len0), t->n + 1);
  g_array_set_size (out, n == G_MAXUINT ? len0 : len0 + n);
  return n != G_MAXUINT;
}

guint
lights_topo_n_nodes (const LightsTopo *t)
{
  return t ? t->n : 0;
}

guint
lights_topo_link_from (const LightsTopo *t, guint link)
{
  return t->link_from[link];
}

const LightsTree *
lights_topo_tree (LightsTopo *t, guint a)
{
  if (!t || a >= t->n || t->n < 2)
    return NULL;
  if (!t->trees)
    t->trees = g_new0 (LightsTree *, t->n);
  if (t->trees[a])
    return t->trees[a] == &no_tree ? NULL : t->trees[a];
  gsize bytes = sizeof (LightsTree) + 2 * (gsize) t->n * sizeof (guint32);
  if (t->tree_bytes + bytes > LIGHTS_TREE_BYTES)
    return NULL;            /* not marked: a bound, not a property of the routes */
  LightsTree *tr = g_new0 (LightsTree, 1);
  tr->up = g_new0 (guint32, t->n);
  tr->order = g_new (guint32, t->n);
  guint32 *depth = g_new0 (guint32, t->n);
  guint32 *count = g_new0 (guint32, t->n + 1);
  GArray *paths = g_array_new (FALSE, FALSE, sizeof (guint));
  guint32 *start = g_new0 (guint32, t->n);
  guint *buf = g_new (guint, t->n + 1);
  gboolean closed = TRUE;
  for (guint v = 0; v < t->n; v++)
    {
      guint n = v == a ? G_MAXUINT : lights_topo_route_idx (t, a, v, buf, t->n + 1);
      start[v] = paths->len;
      if (n == G_MAXUINT || n == 0)
        continue;
      tr->up[v] = buf[n - 1] + 1;
      depth[v] = n;
      count[n]++;
      g_array_append_vals (paths, buf, n);
    }
  /* prefix-closed: every link on every route is the tree link of its head */
  for (guint v = 0; closed && v < t->n; v++)
    for (guint k = 0; k < depth[v]; k++)
      {
        guint li = g_array_index (paths, guint, start[v] + k);
        if (tr->up[t->link_to[li]] != li + 1 || (k == 0 && t->link_from[li] != a))
          {
            closed = FALSE;
            break;
          }
      }
  if (closed)
    {
      /* nearest first (counting sort by depth): a node's tree parent comes before it */
      guint32 pos = 0;
      for (guint d = 0; d <= t->n; d++)
        {
          guint32 c = count[d];
          count[d] = pos;
          pos += c;
        }
      for (guint v = 0; v < t->n; v++)
        if (depth[v])
          tr->order[count[depth[v]]++] = v;
      tr->n_order = pos;
      for (guint v = 0; v < t->n; v++)
        tr->hops += depth[v];
    }
  g_free (depth);
  g_free (count);
  g_free (start);
  g_free (buf);
  g_array_unref (paths);
  if (!closed)
    {
      g_free (tr->up);
      g_free (tr->order);
      g_free (tr);
      t->trees[a] = &no_tree;
      return NULL;
    }
  t->tree_bytes += bytes;
  t->trees[a] = tr;
  return tr;
}
