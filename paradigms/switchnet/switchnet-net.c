/* switchnet-net.c - the model file, the init file and route following.
 *
 * Both files are lines of a keyword and its values; blanks separate fields,
 * `#` starts a comment.  Every error names FILE:LINE:COLUMN of the field at
 * fault.  The model is read in one pass, so each keyword needs what it
 * refers to before it: sizes before `switch`, port definitions before
 * `rowdef`, switches before `link`.
 *
 * Routes are the Cplant tool's: a route file per compute node holds a line
 * per destination node (line d + 1 for node d), each a list of route bytes.
 * A byte names the port by which the route leaves the current switch; a
 * network port leads over its cable into the peer switch, where the next
 * byte is read, until a processor port - which must be the destination's -
 * ends the route.  Route files are read when a route is asked for and kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "switchnet.h"
#include "switchnet-lines.h"

G_DEFINE_QUARK (viper-switchnet-error-quark, swn_error)

guint
swn_n_ports (const SwnNet *n)
{
  return n->n_proc_ports + n->n_net_ports;
}

gboolean
swn_is_net_port (const SwnNet *n, guint port)
{
  return port >= n->n_proc_ports && port < swn_n_ports (n);
}

/* ---- the model file ------------------------------------------------------------ */

typedef struct {
  SwnNet *n;
  const char *base_dir;
  GHashTable *portdef_index;    /* label -> index + 1 */
  GPtrArray *rowdefs;           /* logical row -> GArray of guint portdef index, or NULL */
  gboolean sizes_done;
  guint init_line, init_col;    /* where the model names its init file */
} ModelParse;

static void
portdef_free (gpointer p)
{
  SwnPortDef *d = p;
  g_free (d->label);
  g_free (d);
}

static gboolean
size_key (Ctx *c, Field *f, guint n, guint *dst, guint lo, guint hi, gboolean locked)
{
  if (!swn_want (c, f, n, 1, "a number"))
    return FALSE;
  if (locked)
    return swn_fail (c, f[0].col, "%.*s must come before the first switch", (int) f[0].len, f[0].s);
  gint64 v;
  if (!swn_field_int (&f[1], lo, hi, &v))
    return swn_fail (c, f[1].col, "expected a number %u..%u, got '%.*s'", lo, hi, (int) f[1].len, f[1].s);
  *dst = (guint) v;
  return TRUE;
}

static int
side_of (const Field *f)
{
  static const char *const names[] = { "north", "east", "south", "west" };
  for (int i = 0; i < 4; i++)
    if (swn_field_is (f, names[i]))
      return i;
  return -1;
}

/* portdef LABEL SIDE PORT... [SIDE PORT...]: ports listed in visual order
 * along each side (north and south left to right, east and west top to
 * bottom); ports not listed are not drawn. */
static gboolean
model_portdef (Ctx *c, ModelParse *mp, Field *f, guint n)
{
  SwnNet *net = mp->n;
  if (n < 3)
    return swn_fail (c, f[n - 1].col + f[n - 1].len, "portdef needs a label, then sides and ports");
  char *label = swn_field_dup (&f[1]);
  if (g_hash_table_contains (mp->portdef_index, label))
    {
      g_free (label);
      return swn_fail (c, f[1].col, "port definition '%.*s' defined twice", (int) f[1].len, f[1].s);
    }
  SwnPortDef *d = g_new0 (SwnPortDef, 1);
  d->label = label;
  memset (d->side, -1, sizeof d->side);
  int side = -1;
  guint nports = swn_n_ports (net);
  for (guint i = 2; i < n; i++)
    {
      int s = side_of (&f[i]);
      if (s >= 0)
        {
          side = s;
          continue;
        }
      gint64 p;
      if (side < 0)
        {
          portdef_free (d);
          return swn_fail (c, f[i].col, "expected north, east, south or west before the ports");
        }
      if (!swn_field_int (&f[i], 0, (gint64) nports - 1, &p))
        {
          portdef_free (d);
          return swn_fail (c, f[i].col, "expected a port 0..%u, got '%.*s'", nports - 1, (int) f[i].len, f[i].s);
        }
      if (d->side[p] >= 0)
        {
          portdef_free (d);
          return swn_fail (c, f[i].col, "port %" G_GINT64_FORMAT " placed twice", p);
        }
      d->side[p] = (gint8) side;
      d->pos[p] = d->n_on_side[side]++;
    }
  g_ptr_array_add (net->portdefs, d);
  g_hash_table_insert (mp->portdef_index, g_strdup (d->label), GUINT_TO_POINTER (net->portdefs->len));
  return TRUE;
}

/* The port definition used when the model gives none: processor ports split
 * over north and south, network ports over east and west. */
static SwnPortDef *
default_portdef (const SwnNet *net)
{
  SwnPortDef *d = g_new0 (SwnPortDef, 1);
  d->label = g_strdup ("(default)");
  memset (d->side, -1, sizeof d->side);
  guint half = (net->n_proc_ports + 1) / 2;
  for (guint p = 0; p < net->n_proc_ports; p++)
    {
      int s = p < half ? 0 : 2;
      d->side[p] = (gint8) s;
      d->pos[p] = d->n_on_side[s]++;
    }
  guint nh = (net->n_net_ports + 1) / 2;
  for (guint k = 0; k < net->n_net_ports; k++)
    {
      int s = k < nh ? 1 : 3;
      guint p = net->n_proc_ports + k;
      d->side[p] = (gint8) s;
      d->pos[p] = d->n_on_side[s]++;
    }
  return d;
}

static gboolean
model_rowdef (Ctx *c, ModelParse *mp, Field *f, guint n)
{
  SwnNet *net = mp->n;
  if (!mp->sizes_done && net->cols == 0)
    return swn_fail (c, f[0].col, "rowdef needs columns first");
  if (n < 3)
    return swn_fail (c, f[n - 1].col + f[n - 1].len, "rowdef needs a row, then a port definition per column");
  gint64 row;
  if (!swn_field_int (&f[1], 0, 4095, &row))
    return swn_fail (c, f[1].col, "expected a row number, got '%.*s'", (int) f[1].len, f[1].s);
  if (n - 2 != net->cols)
    return swn_fail (c, f[MIN (n - 1, 2 + net->cols)].col, "rowdef lists %u port definitions, the model has %u columns",
                 n - 2, net->cols);
  GArray *defs = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 2; i < n; i++)
    {
      char *l = swn_field_dup (&f[i]);
      guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (mp->portdef_index, l));
      g_free (l);
      if (!idx)
        {
          g_array_unref (defs);
          return swn_fail (c, f[i].col, "no port definition '%.*s'", (int) f[i].len, f[i].s);
        }
      idx--;
      g_array_append_val (defs, idx);
    }
  if (mp->rowdefs->len <= (guint) row)
    g_ptr_array_set_size (mp->rowdefs, (guint) row + 1);
  if (g_ptr_array_index (mp->rowdefs, row))
    {
      g_array_unref (defs);
      return swn_fail (c, f[1].col, "row %" G_GINT64_FORMAT " defined twice", row);
    }
  g_ptr_array_index (mp->rowdefs, row) = defs;
  return TRUE;
}

static guint64
cell_key (guint plane, guint row, guint col)
{
  return ((guint64) plane << 40) | ((guint64) row << 20) | col;
}

static gboolean
model_switch (Ctx *c, ModelParse *mp, Field *f, guint n)
{
  SwnNet *net = mp->n;
  if (!swn_want (c, f, n, 5, "LABEL ROW COLUMN PLANE FIRSTNODE"))
    return FALSE;
  if (!net->rows || !net->cols || !net->planes || !swn_n_ports (net))
    return swn_fail (c, f[0].col, "switch needs rows, columns, planes, processor_ports and network_ports first");
  mp->sizes_done = TRUE;
  if (f[1].len == 0 || memchr (f[1].s, '.', f[1].len) || (f[1].s[0] == 'n' && f[1].len > 1 && g_ascii_isdigit (f[1].s[1])))
    return swn_fail (c, f[1].col, "a switch label has no '.' and is not a node name (n<digits>)");
  char *label = swn_field_dup (&f[1]);
  if (g_hash_table_contains (net->by_label, label))
    {
      g_free (label);
      return swn_fail (c, f[1].col, "switch '%.*s' defined twice", (int) f[1].len, f[1].s);
    }
  gint64 row, col, plane, first;
  if (!swn_field_int (&f[2], 0, net->rows - 1, &row))
    return g_free (label), swn_fail (c, f[2].col, "expected a row 0..%u", net->rows - 1);
  if (!swn_field_int (&f[3], 0, net->cols - 1, &col))
    return g_free (label), swn_fail (c, f[3].col, "expected a column 0..%u", net->cols - 1);
  if (!swn_field_int (&f[4], 0, net->planes - 1, &plane))
    return g_free (label), swn_fail (c, f[4].col, "expected a plane 0..%u", net->planes - 1);
  if (!swn_field_int (&f[5], 0, G_MAXINT32, &first))
    return g_free (label), swn_fail (c, f[5].col, "expected a node id 0..%d", G_MAXINT32);
  guint64 key = cell_key ((guint) plane, (guint) row, (guint) col);
  if (g_hash_table_contains (net->by_cell, &key))
    return g_free (label), swn_fail (c, f[2].col, "another switch stands at row %" G_GINT64_FORMAT " column %"
                                 G_GINT64_FORMAT " plane %" G_GINT64_FORMAT, row, col, plane);
  for (guint p = 0; p < net->n_proc_ports; p++)
    if (g_hash_table_contains (net->node_switch, GINT_TO_POINTER ((gint) (first + p))))
      return g_free (label), swn_fail (c, f[5].col, "node %" G_GINT64_FORMAT " is already on another switch",
                                   first + p);
  SwnSwitch s = { 0 };
  s.label = label;
  s.row = (guint) row;
  s.col = (guint) col;
  s.plane = (guint) plane;
  s.first_node = first;
  s.portdef = G_MAXUINT;    /* from the row definition, at the end */
  for (guint p = 0; p < SWN_MAX_PORTS; p++)
    s.peer_switch[p] = -1, s.peer_port[p] = -1;
  g_array_append_val (net->switches, s);
  guint idx = net->switches->len;
  g_hash_table_insert (net->by_label, g_strdup (label), GUINT_TO_POINTER (idx));
  guint64 *k = g_new (guint64, 1);
  *k = key;
  g_hash_table_insert (net->by_cell, k, GUINT_TO_POINTER (idx));
  for (guint p = 0; p < net->n_proc_ports; p++)
    g_hash_table_insert (net->node_switch, GINT_TO_POINTER ((gint) (first + p)), GUINT_TO_POINTER (idx));
  net->n_nodes = MAX (net->n_nodes, first + net->n_proc_ports);
  return TRUE;
}

static gboolean
link_end (Ctx *c, SwnNet *net, Field *f, guint *sw, guint *port)
{
  char *l = swn_field_dup (f);
  gboolean ok = swn_port_by_label (net, l, sw, port);
  g_free (l);
  if (!ok)
    return swn_fail (c, f->col, "expected SWITCH.PORT of a defined switch, got '%.*s'", (int) f->len, f->s);
  if (!swn_is_net_port (net, *port))
    return swn_fail (c, f->col, "port %u is not a network port (%u..%u)", *port, net->n_proc_ports,
                 swn_n_ports (net) - 1);
  SwnSwitch *s = &g_array_index (net->switches, SwnSwitch, *sw);
  if (s->peer_switch[*port] >= 0)
    return swn_fail (c, f->col, "%.*s is already cabled", (int) f->len, f->s);
  return TRUE;
}

static gboolean
model_link (Ctx *c, ModelParse *mp, Field *f, guint n)
{
  SwnNet *net = mp->n;
  if (!swn_want (c, f, n, 2, "two ports SWITCH.PORT"))
    return FALSE;
  guint a, pa, b, pb;
  if (!link_end (c, net, &f[1], &a, &pa) || !link_end (c, net, &f[2], &b, &pb))
    return FALSE;
  if (a == b && pa == pb)
    return swn_fail (c, f[2].col, "a port cannot be cabled to itself");
  SwnSwitch *sa = &g_array_index (net->switches, SwnSwitch, a);
  SwnSwitch *sb = &g_array_index (net->switches, SwnSwitch, b);
  sa->peer_switch[pa] = (gint) b, sa->peer_port[pa] = (gint8) pb;
  sb->peer_switch[pb] = (gint) a, sb->peer_port[pb] = (gint8) pa;
  return TRUE;
}

static gboolean
model_line (Ctx *c, Field *f, guint n, gpointer data)
{
  ModelParse *mp = data;
  SwnNet *net = mp->n;
  gboolean locked = net->switches->len > 0 || net->portdefs->len > 0;
  if (swn_field_is (&f[0], "rows"))
    return size_key (c, f, n, &net->rows, 1, 4096, locked);
  if (swn_field_is (&f[0], "columns"))
    return size_key (c, f, n, &net->cols, 1, 4096, locked);
  if (swn_field_is (&f[0], "planes"))
    return size_key (c, f, n, &net->planes, 1, 64, locked);
  if (swn_field_is (&f[0], "processor_ports"))
    return size_key (c, f, n, &net->n_proc_ports, 0, SWN_MAX_PORTS, locked);
  if (swn_field_is (&f[0], "network_ports"))
    {
      if (!size_key (c, f, n, &net->n_net_ports, 0, SWN_MAX_PORTS, locked))
        return FALSE;
      if (swn_n_ports (net) > SWN_MAX_PORTS)
        return swn_fail (c, f[1].col, "a switch has at most %d ports", SWN_MAX_PORTS);
      return TRUE;
    }
  if (swn_field_is (&f[0], "portdef"))
    {
      if (!swn_n_ports (net))
        return swn_fail (c, f[0].col, "portdef needs processor_ports and network_ports first");
      return model_portdef (c, mp, f, n);
    }
  if (swn_field_is (&f[0], "rowdef"))
    return model_rowdef (c, mp, f, n);
  if (swn_field_is (&f[0], "switch"))
    return model_switch (c, mp, f, n);
  if (swn_field_is (&f[0], "link"))
    return model_link (c, mp, f, n);
  if (swn_field_is (&f[0], "routes"))
    {
      if (n != 2 && n != 3)
        return swn_fail (c, f[MIN (n - 1, 3)].col, "routes takes a directory and an optional file extension");
      g_free (net->route_dir);
      g_free (net->route_ext);
      net->route_dir = swn_field_dup (&f[1]);
      net->route_ext = n == 3 ? swn_field_dup (&f[2]) : g_strdup ("");
      return TRUE;
    }
  if (swn_field_is (&f[0], "init"))
    {
      if (!swn_want (c, f, n, 1, "a file"))
        return FALSE;
      char *p = swn_field_dup (&f[1]);
      g_free (net->init_path);
      net->init_path = g_path_is_absolute (p) || !mp->base_dir ? g_strdup (p) : g_build_filename (mp->base_dir, p, NULL);
      mp->init_line = c->line;
      mp->init_col = f[1].col;
      g_free (p);
      return TRUE;
    }
  return swn_fail (c, f[0].col, "unknown keyword '%.*s'", (int) f[0].len, f[0].s);
}

static void
switch_clear (gpointer p)
{
  g_free (((SwnSwitch *) p)->label);
}

SwnNet *
swn_net_new_empty (const char *name)
{
  SwnNet *n = g_new0 (SwnNet, 1);
  n->path = g_strdup (name);
  n->portdefs = g_ptr_array_new_with_free_func (portdef_free);
  n->switches = g_array_new (FALSE, TRUE, sizeof (SwnSwitch));
  g_array_set_clear_func (n->switches, switch_clear);
  n->by_label = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  n->by_cell = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  n->node_switch = g_hash_table_new (g_direct_hash, g_direct_equal);
  swn_init_defaults (&n->init);
  return n;
}

void
swn_net_free (SwnNet *n)
{
  if (!n)
    return;
  g_free (n->path);
  g_ptr_array_unref (n->portdefs);
  g_array_unref (n->switches);
  g_hash_table_destroy (n->by_label);
  g_hash_table_destroy (n->by_cell);
  g_hash_table_destroy (n->node_switch);
  g_free (n->route_dir);
  g_free (n->route_ext);
  g_free (n->init_path);
  if (n->route_hops)
    g_array_unref (n->route_hops);
  if (n->selected)
    g_array_unref (n->selected);
  swn_init_clear (&n->init);
  g_free (n);
}

/* rowdefs has NULL holes (rows not defined, or defined after a higher one) */
static void
rowdef_free (gpointer p)
{
  if (p)
    g_array_unref (p);
}

SwnNet *
swn_net_parse (const char *text, gsize len, const char *name, const char *base_dir, GError **error)
{
  SwnNet *n = swn_net_new_empty (name);
  ModelParse mp = { n, base_dir, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
                    g_ptr_array_new_with_free_func (rowdef_free), FALSE, 0, 0 };
  gboolean ok = swn_each_line (text, len, name, error, model_line, &mp);
  if (ok && n->switches->len == 0)
    {
      g_set_error (error, SWN_ERROR, 0, "%s:1:1: the model defines no switch", name);
      ok = FALSE;
    }
  if (ok)
    {
      /* each switch takes the port definition of its logical row's column,
       * else the first definition, else the default one */
      if (n->portdefs->len == 0)
        g_ptr_array_add (n->portdefs, default_portdef (n));
      for (guint i = 0; i < n->switches->len; i++)
        {
          SwnSwitch *s = &g_array_index (n->switches, SwnSwitch, i);
          GArray *defs = s->row < mp.rowdefs->len ? g_ptr_array_index (mp.rowdefs, s->row) : NULL;
          s->portdef = defs ? g_array_index (defs, guint, s->col) : 0;
        }
    }
  g_hash_table_destroy (mp.portdef_index);
  g_ptr_array_unref (mp.rowdefs);
  if (ok && n->init_path)
    {
      GError *ierr = NULL;
      char *text;
      gsize len2;
      if (!swn_read_file (n->init_path, &text, &len2, &ierr))
        {
          /* the init file cannot be read: say where the model names it */
          g_set_error (error, SWN_ERROR, 0, "%s:%u:%u: init file %s", name, mp.init_line, mp.init_col,
                       ierr->message);
          g_error_free (ierr);
          ok = FALSE;
        }
      else
        {
          ok = swn_init_parse (&n->init, text, len2, n->init_path, error);
          g_free (text);
        }
    }
  if (!ok)
    {
      swn_net_free (n);
      return NULL;
    }
  return n;
}

SwnNet *
swn_net_load (const char *path, GError **error)
{
  char *text;
  gsize len;
  if (!swn_read_file (path, &text, &len, error))
    return NULL;
  char *dir = g_path_get_dirname (path);
  SwnNet *n = swn_net_parse (text, len, path, dir, error);
  g_free (dir);
  g_free (text);
  return n;
}

/* ---- names ------------------------------------------------------------------- */

gint
swn_switch_by_label (const SwnNet *n, const char *label)
{
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (n->by_label, label)) - 1;
}

gboolean
swn_node_port (const SwnNet *n, gint64 node, guint *sw, guint *port)
{
  if (node < 0 || node > G_MAXINT32)
    return FALSE;
  guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (n->node_switch, GINT_TO_POINTER ((gint) node)));
  if (!idx)
    return FALSE;
  *sw = idx - 1;
  *port = (guint) (node - g_array_index (n->switches, SwnSwitch, idx - 1).first_node);
  return TRUE;
}

gboolean
swn_port_by_label (const SwnNet *n, const char *label, guint *sw, guint *port)
{
  if (label[0] == 'n' && g_ascii_isdigit (label[1]))
    {
      char *end;
      gint64 node = g_ascii_strtoll (label + 1, &end, 10);
      return *end == 0 && swn_node_port (n, node, sw, port);
    }
  const char *dot = strrchr (label, '.');
  if (!dot || !g_ascii_isdigit (dot[1]))
    return FALSE;
  char *end;
  gint64 p = g_ascii_strtoll (dot + 1, &end, 10);
  if (*end || p < 0 || p >= swn_n_ports (n))
    return FALSE;
  char *name = g_strndup (label, (gsize) (dot - label));
  gint s = swn_switch_by_label (n, name);
  g_free (name);
  if (s < 0)
    return FALSE;
  *sw = (guint) s;
  *port = (guint) p;
  return TRUE;
}

char *
swn_port_label (const SwnNet *n, guint sw, guint port)
{
  const SwnSwitch *s = &g_array_index (n->switches, SwnSwitch, sw);
  if (port < n->n_proc_ports)
    return g_strdup_printf ("%s.%u (n%" G_GINT64_FORMAT ")", s->label, port, s->first_node + port);
  return g_strdup_printf ("%s.%u", s->label, port);
}

/* ---- routes ------------------------------------------------------------------- */

gboolean
swn_route_follow (const SwnNet *n, gint64 src, gint64 dst, const guint8 *bytes, guint n_bytes, GArray *hops,
                  char *reason, gsize reason_size, guint *bad_byte)
{
  guint sw, port, dsw, dport;
  *bad_byte = 0;
  if (!swn_node_port (n, src, &sw, &port))
    {
      g_snprintf (reason, reason_size, "node %" G_GINT64_FORMAT " is on no switch", src);
      return FALSE;
    }
  if (!swn_node_port (n, dst, &dsw, &dport))
    {
      g_snprintf (reason, reason_size, "node %" G_GINT64_FORMAT " is on no switch", dst);
      return FALSE;
    }
  guint limit = n->switches->len + 1;
  for (guint i = 0; i < n_bytes; i++)
    {
      *bad_byte = i;
      guint b = bytes[i];
      const SwnSwitch *s = &g_array_index (n->switches, SwnSwitch, sw);
      if (b >= swn_n_ports (n))
        {
          g_snprintf (reason, reason_size, "route byte %u is no port of switch %s", b, s->label);
          return FALSE;
        }
      SwnHop h = { sw, b };
      g_array_append_val (hops, h);
      if (!swn_is_net_port (n, b))
        {
          if (sw != dsw || b != dport)
            {
              g_snprintf (reason, reason_size, "route leaves switch %s by processor port %u (node %" G_GINT64_FORMAT
                          "), not at node %" G_GINT64_FORMAT, s->label, b, s->first_node + b, dst);
              return FALSE;
            }
          if (i + 1 != n_bytes)
            {
              *bad_byte = i + 1;
              g_snprintf (reason, reason_size, "route goes on after reaching node %" G_GINT64_FORMAT, dst);
              return FALSE;
            }
          return TRUE;
        }
      if (s->peer_switch[b] < 0)
        {
          g_snprintf (reason, reason_size, "network port %u of switch %s has no cable", b, s->label);
          return FALSE;
        }
      if (hops->len > limit)
        {
          g_snprintf (reason, reason_size, "route passes more switches than the model has (a loop)");
          return FALSE;
        }
      sw = (guint) s->peer_switch[b];
    }
  *bad_byte = n_bytes;
  g_snprintf (reason, reason_size, "route ends inside the network before node %" G_GINT64_FORMAT, dst);
  return FALSE;
}

gboolean
swn_route (SwnNet *n, gint64 src, gint64 dst, GArray *hops, GError **error)
{
  if (!n->route_dir)
    {
      g_set_error (error, SWN_ERROR, 0, "%s: the model names no route files (keyword routes)", n->path);
      return FALSE;
    }
  guint a, b;
  if (!swn_node_port (n, src, &a, &b) || !swn_node_port (n, dst, &a, &b))
    {
      g_set_error (error, SWN_ERROR, 0, "no node %" G_GINT64_FORMAT, !swn_node_port (n, src, &a, &b) ? src : dst);
      return FALSE;
    }
  char *base = g_path_get_dirname (n->path);
  char *file = g_strdup_printf ("%" G_GINT64_FORMAT "%s", src, n->route_ext ? n->route_ext : "");
  char *path = g_path_is_absolute (n->route_dir) ? g_build_filename (n->route_dir, file, NULL)
                                                 : g_build_filename (base, n->route_dir, file, NULL);
  g_free (base);
  g_free (file);
  char *text;
  gsize len;
  if (!swn_read_file (path, &text, &len, error))
    {
      g_free (path);
      return FALSE;
    }
  /* the line for dst is line dst + 1; only that line is read */
  gsize i = 0;
  gint64 line = 0;
  const char *l = NULL;
  gsize ll = 0;
  while (i < len)
    {
      gsize st = i;
      while (i < len && text[i] != '\n')
        i++;
      if (line++ == dst)
        {
          l = text + st;
          ll = i - st;
          break;
        }
      i++;
    }
  gboolean ok = FALSE;
  if (!l)
    g_set_error (error, SWN_ERROR, 0, "%s:%" G_GINT64_FORMAT ":1: no line for destination node %" G_GINT64_FORMAT
                 " (the file has %" G_GINT64_FORMAT " lines)", path, dst + 1, dst, line);
  else
    {
      Field f[MAX_FIELDS];
      gboolean more;
      guint nf = swn_split_fields (l, ll, f, &more);
      guint8 bytes[MAX_FIELDS];
      ok = TRUE;
      for (guint k = 0; k < nf && ok; k++)
        {
          gint64 v;
          if (!swn_field_int (&f[k], 0, 255, &v))
            {
              g_set_error (error, SWN_ERROR, 0, "%s:%" G_GINT64_FORMAT ":%u: expected a route byte 0..255, got '%.*s'",
                           path, dst + 1, f[k].col, (int) MIN (f[k].len, 40), f[k].s);
              ok = FALSE;
            }
          else
            bytes[k] = (guint8) v;
        }
      if (ok && more)
        {
          g_set_error (error, SWN_ERROR, 0, "%s:%" G_GINT64_FORMAT ":%u: a route of more than %d bytes", path, dst + 1,
                       f[MAX_FIELDS - 1].col, MAX_FIELDS);
          ok = FALSE;
        }
      if (ok)
        {
          char reason[200];
          guint bad;
          ok = swn_route_follow (n, src, dst, bytes, nf, hops, reason, sizeof reason, &bad);
          if (!ok)
            g_set_error (error, SWN_ERROR, 0, "%s:%" G_GINT64_FORMAT ":%u: %s", path, dst + 1,
                         bad < nf ? f[bad].col : (guint) ll + 1, reason);
        }
    }
  g_free (text);
  g_free (path);
  return ok;
}

static gboolean
route_end (SwnNet *n, const char *name, gint64 *node, GError **error)
{
  guint sw, port;
  gint s = swn_switch_by_label (n, name);
  if (s >= 0)
    {
      if (n->n_proc_ports == 0)
        {
          g_set_error (error, SWN_ERROR, 0, "%s: switch %s has no processor port to route from", n->path, name);
          return FALSE;
        }
      *node = g_array_index (n->switches, SwnSwitch, s).first_node;
      return TRUE;
    }
  if (name[0] == 'n' && swn_port_by_label (n, name, &sw, &port))
    {
      *node = g_array_index (n->switches, SwnSwitch, sw).first_node + port;
      return TRUE;
    }
  g_set_error (error, SWN_ERROR, 0, "%s: route_between: '%s' is neither a switch label nor a node (nID)",
               n->init_path ? n->init_path : n->path, name);
  return FALSE;
}

gboolean
swn_net_follow_init_route (SwnNet *n, GError **error)
{
  if (n->route_hops)
    g_array_set_size (n->route_hops, 0);
  if (!n->init.route_from)
    return TRUE;
  if (!route_end (n, n->init.route_from, &n->route_src, error) || !route_end (n, n->init.route_to, &n->route_dst, error))
    return FALSE;
  if (!n->route_hops)
    n->route_hops = g_array_new (FALSE, FALSE, sizeof (SwnHop));
  if (!swn_route (n, n->route_src, n->route_dst, n->route_hops, error))
    {
      g_array_set_size (n->route_hops, 0);
      return FALSE;
    }
  return TRUE;
}

gboolean
swn_net_resolve_select (SwnNet *n, GError **error)
{
  if (!n->selected)
    n->selected = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_set_size (n->selected, 0);
  for (guint i = 0; n->init.select && i < n->init.select->len; i++)
    {
      const char *l = g_ptr_array_index (n->init.select, i);
      guint sw, port;
      if (!swn_port_by_label (n, l, &sw, &port))
        {
          g_set_error (error, SWN_ERROR, 0, "%s: select: '%s' is no port of the model (SWITCH.PORT or nNODE)",
                       n->init_path ? n->init_path : n->path, l);
          return FALSE;
        }
      guint id = sw * SWN_MAX_PORTS + port;
      g_array_append_val (n->selected, id);
    }
  return TRUE;
}
