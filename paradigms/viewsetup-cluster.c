/* viewsetup-cluster.c - the cluster lines of a view setup file
 * (docs/view-setup.md, "Clusters"): topology, link, route and range.
 *
 * They describe a virtual topology the way Lilith Lights took it from its
 * configuration file: the node order and positions are the module lines,
 * `topology` names a regular shape whose links and default routes follow
 * from that order, `link` lists links explicitly, `route` overrides the
 * path of one source/destination pair, and `range` sets the range of
 * interest of the arrows' colours.  The reader keeps what the file says;
 * whether every node of a link or route is a module, and whether each hop
 * of a route is a link, is checked by the paradigm that draws the file
 * (paradigms/lights), because lines may come in any order.  Kept apart from
 * viewsetup.c so that the generic reader stays small.
 */
#include <math.h>
#include <string.h>
#include "viewsetup.h"

gboolean
viper_view_cluster_keyword (const char *kw)
{
  return g_str_equal (kw, "topology") || g_str_equal (kw, "link") || g_str_equal (kw, "route")
         || g_str_equal (kw, "range");
}

void
viper_view_cluster_free (ViperViewCluster *c)
{
  if (!c)
    return;
  g_array_unref (c->links);
  g_array_unref (c->routes);
  g_array_unref (c->route_nodes);
  g_array_unref (c->route_cols);
  g_free (c);
}

static ViperViewCluster *
cluster (ViperViewSetup *vs)
{
  if (!vs->cluster)
    {
      ViperViewCluster *c = g_new0 (ViperViewCluster, 1);
      c->links = g_array_new (FALSE, FALSE, sizeof (ViperViewLink));
      c->routes = g_array_new (FALSE, FALSE, sizeof (ViperViewRoute));
      c->route_nodes = g_array_new (FALSE, FALSE, sizeof (gint64));
      c->route_cols = g_array_new (FALSE, FALSE, sizeof (guint));
      vs->cluster = c;
    }
  return vs->cluster;
}

static gboolean
id_of (const char *w, gint64 *out)
{
  guint64 v;
  if (!w || !g_ascii_string_to_unsigned (w, 10, 0, G_MAXINT64, &v, NULL))
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

/* A rate: a decimal number >= 0 with an optional k, M or G (powers of 1000). */
static gboolean
rate_of (const char *w, double *out)
{
  if (!w || !*w)
    return FALSE;
  gsize n = strlen (w);
  double mult = 1;
  char last = w[n - 1];
  if (last == 'k' || last == 'K')
    mult = 1e3, n--;
  else if (last == 'M')
    mult = 1e6, n--;
  else if (last == 'G')
    mult = 1e9, n--;
  if (!n)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!(g_ascii_isdigit (w[i]) || w[i] == '.' || w[i] == 'e' || w[i] == 'E' || w[i] == '+' || w[i] == '-'))
      return FALSE;
  char *num = g_strndup (w, n), *end = NULL;
  double v = g_ascii_strtod (num, &end);
  gboolean ok = *end == '\0' && isfinite (v) && v >= 0;
  g_free (num);
  *out = v * mult;
  return ok;
}

/* The words of one cluster line after its keyword, with where they stand. */
typedef struct {
  char **w;
  guint *col;               /* the column of each word */
  guint n;
  guint kw_col;             /* the keyword's column */
  guint end_col;            /* just after the line's last byte (before its comment) */
  guint lineno;
  guint err_col;            /* out: the column an error is about */
} Words;

/* The error text, with the column it is about. */
static char *
bad (Words *a, guint col, char *msg)
{
  a->err_col = col;
  return msg;
}

/* The column of word i, or the end of the line when there are fewer words. */
static guint
col_at (const Words *a, guint i)
{
  return i < a->n ? a->col[i] : a->end_col;
}

static char *
parse_topology (ViperViewCluster *c, Words *a)
{
  char **w = a->w;
  guint n = a->n;
  if (c->topology_line)
    return bad (a, a->kw_col, g_strdup_printf ("expected one topology line (the first is line %u)", c->topology_line));
  if (n < 1)
    return bad (a, a->end_col, g_strdup ("expected a topology (mesh ROWS COLS, torus ROWS COLS, ring, physical, none)"));
  guint64 r = 0, k = 0;
  if (g_str_equal (w[0], "mesh") || g_str_equal (w[0], "torus"))
    {
      /* the first word that is not what its place wants */
      guint at = n < 2 || !g_ascii_string_to_unsigned (w[1], 10, 1, 65536, &r, NULL) ? 1
               : n < 3 || !g_ascii_string_to_unsigned (w[2], 10, 1, 65536, &k, NULL) ? 2
               : n > 3 ? 3 : 0;
      if (at)
        return bad (a, col_at (a, at), g_strdup_printf ("expected %s ROWS COLS (integers 1..65536)", w[0]));
      c->topology = g_str_equal (w[0], "mesh") ? VIPER_VIEW_TOPO_MESH : VIPER_VIEW_TOPO_TORUS;
      c->rows = (guint) r, c->cols = (guint) k;
    }
  else if (g_str_equal (w[0], "ring") || g_str_equal (w[0], "physical") || g_str_equal (w[0], "none"))
    {
      if (n != 1)
        return bad (a, a->col[1], g_strdup_printf ("expected end of line after %s", w[0]));
      c->topology = g_str_equal (w[0], "ring") ? VIPER_VIEW_TOPO_RING
                  : g_str_equal (w[0], "physical") ? VIPER_VIEW_TOPO_PHYSICAL : VIPER_VIEW_TOPO_NONE;
    }
  else
    return bad (a, a->col[0],
                g_strdup_printf ("expected a topology (mesh ROWS COLS, torus ROWS COLS, ring, physical, none), got '%s'",
                                 w[0]));
  c->topology_line = a->lineno;
  c->topology_col = a->kw_col;
  return NULL;
}

static char *
parse_link (ViperViewCluster *c, Words *a)
{
  char **w = a->w;
  guint n = a->n;
  if (n < 2)
    return bad (a, a->end_col, g_strdup ("expected two or more node ids after link"));
  gint64 prev = -1;
  for (guint i = 0; i < n; i++)
    {
      gint64 id;
      if (!id_of (w[i], &id))
        return bad (a, a->col[i], g_strdup_printf ("expected a node id (an integer >= 0), got '%s'", w[i]));
      if (i > 0)
        {
          if (id == prev)
            return bad (a, a->col[i],
                        g_strdup_printf ("expected a link between two nodes, got %" G_GINT64_FORMAT " to itself", id));
          ViperViewLink l = { .from = prev, .to = id, .line = a->lineno, .from_col = a->col[i - 1], .to_col = a->col[i] };
          ViperViewLink back = { .from = id, .to = prev, .line = a->lineno, .from_col = a->col[i], .to_col = a->col[i - 1] };
          g_array_append_val (c->links, l);
          g_array_append_val (c->links, back);
        }
      prev = id;
    }
  return NULL;
}

static char *
parse_route (ViperViewCluster *c, Words *a)
{
  char **w = a->w;
  guint n = a->n;
  if (n < 2)
    return bad (a, a->end_col, g_strdup ("expected SRC [HOP...] DST (node ids) after route"));
  ViperViewRoute r = { .first = c->route_nodes->len, .n = n, .line = a->lineno };
  char *err = NULL;
  for (guint i = 0; !err && i < n; i++)
    {
      gint64 id;
      if (!id_of (w[i], &id))
        err = bad (a, a->col[i], g_strdup_printf ("expected a node id (an integer >= 0), got '%s'", w[i]));
      else
        {
          g_array_append_val (c->route_nodes, id);
          g_array_append_val (c->route_cols, a->col[i]);
        }
    }
  if (!err)
    {
      r.src = g_array_index (c->route_nodes, gint64, r.first);
      r.dst = g_array_index (c->route_nodes, gint64, r.first + n - 1);
      for (guint i = 0; !err && i < c->routes->len; i++)
        {
          const ViperViewRoute *o = &g_array_index (c->routes, ViperViewRoute, i);
          if (o->src == r.src && o->dst == r.dst)
            err = bad (a, a->kw_col, g_strdup_printf ("expected one route from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
                                                      " (the first is line %u)", r.src, r.dst, o->line));
        }
    }
  if (!err && r.src == r.dst)
    err = bad (a, a->col[n - 1], g_strdup_printf ("expected a route between two nodes, got %" G_GINT64_FORMAT
                                                  " to itself", r.src));
  if (err)
    {
      g_array_set_size (c->route_nodes, r.first);
      g_array_set_size (c->route_cols, r.first);
      return err;
    }
  g_array_append_val (c->routes, r);
  return NULL;
}

static char *
parse_range (ViperViewCluster *c, Words *a)
{
  char **w = a->w;
  guint n = a->n;
  if (c->range_line)
    return bad (a, a->kw_col, g_strdup_printf ("expected one range line (the first is line %u)", c->range_line));
  double lo = 0, hi = 0;
  for (guint i = 0; i < 2; i++)
    if (i >= n || !rate_of (w[i], i ? &hi : &lo))
      return bad (a, col_at (a, i), g_strdup ("expected MIN MAX (bytes per second, >= 0, optional k, M or G) after range"));
  if (!(hi > lo))
    return bad (a, a->col[1], g_strdup ("expected MAX greater than MIN"));
  c->has_range = TRUE;
  c->range_min = lo, c->range_max = hi;
  for (guint i = 2; i < n; i += 2)
    {
      gboolean below = g_str_equal (w[i], "below");
      if (!below && !g_str_equal (w[i], "above"))
        return bad (a, a->col[i],
                    g_strdup_printf ("expected 'below COLOUR', 'above COLOUR' or end of line, got '%s'", w[i]));
      ViperViewRgb rgb;
      if (i + 1 >= n || !viper_view_rgb_parse (w[i + 1], &rgb))
        return bad (a, col_at (a, i + 1), g_strdup_printf ("expected a colour (a name or 0xRRGGBB) after %s", w[i]));
      if (below)
        c->below = rgb, c->has_below = TRUE;
      else
        c->above = rgb, c->has_above = TRUE;
    }
  c->range_line = a->lineno;
  return NULL;
}

static gboolean
is_blank (char ch)
{
  return ch == ' ' || ch == '\t' || ch == '\r';
}

char *
viper_view_cluster_parse_line (ViperViewSetup *vs, const char *kw, const char *line, const char *args,
                               const char *end, guint lineno, guint *col)
{
  /* the words between args and end, each with its column */
  GPtrArray *words = g_ptr_array_new ();
  GArray *cols = g_array_new (FALSE, FALSE, sizeof (guint));
  for (const char *p = args; p < end;)
    {
      while (p < end && is_blank (*p))
        p++;
      if (p >= end)
        break;
      const char *s = p;
      while (p < end && !is_blank (*p))
        p++;
      g_ptr_array_add (words, g_strndup (s, (gsize) (p - s)));
      guint cl = (guint) (s - line) + 1;
      g_array_append_val (cols, cl);
    }
  Words a = { .n = words->len, .col = (guint *) (void *) cols->data, .lineno = lineno,
              .kw_col = (guint) (args - line) + 1 - (guint) strlen (kw), .end_col = (guint) (end - line) + 1 };
  g_ptr_array_add (words, NULL);
  a.w = (char **) words->pdata;
  ViperViewCluster *c = cluster (vs);
  char *err;
  if (g_str_equal (kw, "topology"))
    err = parse_topology (c, &a);
  else if (g_str_equal (kw, "link"))
    err = parse_link (c, &a);
  else if (g_str_equal (kw, "route"))
    err = parse_route (c, &a);
  else
    err = parse_range (c, &a);
  if (err)
    *col = a.err_col;
  g_strfreev ((char **) g_ptr_array_free (words, FALSE));
  g_array_unref (cols);
  return err;
}
