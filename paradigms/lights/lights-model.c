/* lights-model.c - the cluster lights state model (docs/paradigm-lights.md).
 *
 * Per node: up / lost / unknown, the last load sample, and what it sent to
 * each peer in its last traffic sample.  Per link of the view setup: the
 * rate routed over it now and the bytes routed over it so far.
 *
 * A traffic tram replaces the sender's previous sample: every pair of the
 * sender gets its new rate (zero for a peer the tram does not list), and
 * only pairs whose rate changed, or that carried bytes, move their
 * difference onto the links of their routes (lights-links.c: route by
 * route, or summed up the sender's route tree).  A link's rate
 * is therefore always the sum of the latest rates of the pairs routed over
 * it, however the nodes' samples interleave.  Nothing per pair is kept but
 * its last rate and its total, so a view setup swapped mid-run (another
 * virtual topology) recomputes every link from the pairs exactly.
 *
 * A node is up once heard from; it is lost when an agent reports it (its
 * collection subtree broke) and its pairs stop counting; only a new joined
 * tram brings it back, since samples already underway may still arrive.
 * An up node that sends nothing for LIGHTS_STALE_INTERVALS of its sample
 * intervals while trace time goes on (other nodes' trams) turns stale: its
 * pairs stop counting too, and any tram of its own makes it up again.
 * Load changes of a decile and link colour-class changes go to the history
 * for the space-time view.  Freezing copies what the views draw so that the
 * picture stands still while the replay goes on.
 */
#include <math.h>
#include <string.h>
#include "core/run.h"

#include "lights-model-private.h"

static const ViperModelClass lights_class;

static LightsModel *
lm (const ViperModel *m)
{
  g_return_val_if_fail (m != NULL && m->klass == &lights_class, NULL);
  return (LightsModel *) m;
}

/* ---- nodes ------------------------------------------------------------------ */

static gint
node_find (const LightsModel *m, gint64 id)
{
  guint i;
  if (id >= 0 && id < (gint64) m->dense_cap)
    i = m->dense[id];
  else
    i = GPOINTER_TO_UINT (g_hash_table_lookup (m->sparse, &id));
  return (gint) i - 1;
}

static guint
node_get (LightsModel *m, gint64 id)
{
  gint f = node_find (m, id);
  if (f >= 0)
    return (guint) f;
  Node fresh = { .n = { .id = id, .state = LIGHTS_NODE_UNKNOWN, .load = -1, .last_sample = NAN, .last_heard = NAN,
                        .parent = -1 },
                 .hstate = -1 };
  fresh.topo = lights_topo_index (m->topo, id);
  fresh.out = g_array_new (FALSE, FALSE, sizeof (Out));
  fresh.out_idx = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_array_append_val (m->nodes, fresh);
  guint32 idx = m->nodes->len;
  if (id >= 0 && id < DENSE_LIMIT)
    {
      if (id >= (gint64) m->dense_cap)
        {
          guint cap = MAX (m->dense_cap, 1024u);
          while ((gint64) cap <= id)
            cap *= 2;
          m->dense = g_renew (guint32, m->dense, cap);
          memset (m->dense + m->dense_cap, 0, (cap - m->dense_cap) * sizeof (guint32));
          m->dense_cap = cap;
        }
      m->dense[id] = idx;
    }
  else
    g_hash_table_insert (m->sparse, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (idx));
  return idx - 1;
}

static void
nodes_clear (LightsModel *m)
{
  for (guint i = 0; i < m->nodes->len; i++)
    {
      g_array_unref (node_at (m, i)->out);
      g_hash_table_destroy (node_at (m, i)->out_idx);
    }
  g_array_set_size (m->nodes, 0);
  g_clear_pointer (&m->ids, g_array_unref);
  if (m->dense)
    memset (m->dense, 0, m->dense_cap * sizeof (guint32));
  g_hash_table_remove_all (m->sparse);
}

static gint
state_code (const LightsNode *n)
{
  if (n->state == LIGHTS_NODE_LOST)
    return LIGHTS_STATE_LOST;
  if (n->load < 0 || n->state == LIGHTS_NODE_STALE)
    return LIGHTS_STATE_NO_SAMPLE;
  return MIN (n->load / 100, 9);
}

static void
node_history (LightsModel *m, Node *nd, double t)
{
  gint s = state_code (&nd->n);
  if (s == nd->hstate)
    return;
  nd->hstate = s;
  ViperHistoryEntry e = { t, t, (gint32) nd->n.id, -1, s, 0 };
  viper_model_history_add (&m->base, &e);
}

static void
adopt_setup (LightsModel *m, const ViperViewSetup *vs)
{
  static gsize serials;
  m->view_serial = (guint64) g_atomic_pointer_add (&serials, 1) + 1;
  g_clear_pointer (&m->ids, g_array_unref);
  m->vs = vs;
  lights_topo_free (m->topo);
  GError *error = NULL;
  m->topo = lights_topo_new (vs, &error);
  if (!m->topo)
    {
      /* the paradigm's reader checked it; a file given otherwise shows nodes only */
      g_warning ("%s", error->message);
      g_error_free (error);
      m->topo = lights_topo_new (NULL, NULL);
    }
  m->route_cap = (vs ? vs->modules->len : 0) + 1;
  m->route = g_renew (guint, m->route, m->route_cap);
  for (guint i = 0; i < m->nodes->len; i++)
    node_at (m, i)->topo = lights_topo_index (m->topo, node_at (m, i)->n.id);
  const ViperViewCluster *cl = vs ? vs->cluster : NULL;
  m->range.min = cl && cl->has_range ? cl->range_min : LIGHTS_DEFAULT_RANGE_MIN;
  m->range.max = cl && cl->has_range ? cl->range_max : LIGHTS_DEFAULT_RANGE_MAX;
  m->range.below = cl && cl->has_below ? cl->below : (ViperViewRgb) { 0.8, 0.8, 0.8 };
  m->range.above = cl && cl->has_above ? cl->above : (ViperViewRgb) { 1, 0, 0 };
  for (guint i = 0; vs && i < vs->modules->len; i++)
    node_get (m, g_array_index (vs->modules, ViperViewModule, i).id);
  lights_links_rebuild (m);
}

/* ---- apply ------------------------------------------------------------------- */

static gboolean
apply_traffic (LightsModel *m, guint si, const ViperTram *t, const gint64 *d)
{
  double per_s = 1000.0 / (double) d[1];   /* 1 / the interval in seconds */
  Node *s = node_at (m, si);
  for (guint k = 0; k < s->out->len; k++)
    g_array_index (s->out, Out, k).nbw = 0;
  for (guint i = 2; i + 1 < t->ndata; i += 2)
    {
      if (d[i] == s->n.id)
        continue;           /* validate rejected it; never count a loop */
      guint pi = node_get (m, d[i]);
      s = node_at (m, si);  /* the array may have moved */
      /* a collector lists its peers in the same order every sample: try
       * the pair's place in the last one before the hash */
      guint j = (i - 2) / 2, pos;
      if (j < s->out->len && g_array_index (s->out, Out, j).peer == pi)
        pos = j + 1;
      else if (!(pos = GPOINTER_TO_UINT (g_hash_table_lookup (s->out_idx, GUINT_TO_POINTER (pi + 1)))))
        {
          Out o = { .peer = pi };
          g_array_append_val (s->out, o);
          pos = s->out->len;
          g_hash_table_insert (s->out_idx, GUINT_TO_POINTER (pi + 1), GUINT_TO_POINTER (pos));
        }
      Out *o = &g_array_index (s->out, Out, pos - 1);
      guint64 b = (guint64) d[i + 1];
      o->nbw += (double) b * per_s;
      o->pending += b;
    }
  gboolean lost = s->n.state == LIGHTS_NODE_LOST;
  double out_bw = 0;
  g_array_set_size (m->changed, s->out->len);
  Changed *ch = (Changed *) (void *) m->changed->data;
  guint nch = 0;
  guint64 gen = viper_damage_generation (m->base.damage) + 1;
  for (guint k = 0; k < s->out->len; k++)
    {
      Out *o = &g_array_index (s->out, Out, k);
      double nbw = lost ? 0 : o->nbw;
      if (nbw == o->bw && !o->pending)
        continue;
      Node *p = node_at (m, o->peer);
      p->n.bytes_in += o->pending;
      p->n.bw_in = MAX (p->n.bw_in + (nbw - o->bw), 0.0);
      s->n.bytes_out += o->pending;
      o->total += o->pending;
      ch[nch++] = (Changed) { o->peer, nbw - o->bw, o->pending };
      o->bw = nbw;
      o->pending = 0;
      if (p->rx_gen != gen)
        {
          p->rx_gen = gen;
          viper_damage_add (m->base.damage, VIPER_AREA_VARIABLE, p->n.id, ROW_RECEIVED);
        }
    }
  g_array_set_size (m->changed, nch);
  lights_pairs_to_links (m, si, t);
  s = node_at (m, si);
  for (guint k = 0; k < s->out->len; k++)
    out_bw += g_array_index (s->out, Out, k).bw;
  s->n.bw_out = out_bw;
  if (mark_once (m, &s->tx_gen))
    viper_damage_add (m->base.damage, VIPER_AREA_VARIABLE, s->n.id, ROW_SENT);
  return TRUE;
}

/* The node's pairs stop counting (it was lost). */
static void
silence (LightsModel *m, guint si, const ViperTram *t)
{
  Node *s = node_at (m, si);
  g_array_set_size (m->changed, 0);
  for (guint k = 0; k < s->out->len; k++)
    {
      Out *o = &g_array_index (s->out, Out, k);
      if (o->bw == 0)
        continue;
      double old = o->bw;
      o->bw = 0;
      Node *p = node_at (m, o->peer);
      p->n.bw_in = MAX (p->n.bw_in - old, 0.0);
      if (mark_once (m, &p->rx_gen))
        viper_damage_add (m->base.damage, VIPER_AREA_VARIABLE, p->n.id, ROW_RECEIVED);
      Changed c = { o->peer, -old, 0 };
      g_array_append_val (m->changed, c);
    }
  lights_pairs_to_links (m, si, t);
  s->n.bw_out = 0;
}

static void
add_message (LightsModel *m, char *msg)
{
  if (m->n_msgs == N_MESSAGES)
    {
      g_free (m->msgs[m->msg_first]);
      m->msgs[m->msg_first] = msg;
      m->msg_first = (m->msg_first + 1) % N_MESSAGES;
    }
  else
    m->msgs[(m->msg_first + m->n_msgs++) % N_MESSAGES] = msg;
  if (m->base.diag)
    viper_diag_event (m->base.diag, VIPER_DIAG_NOTE, "%s", msg);
}

/* When an up node's readings turn stale: +inf for none. */
static inline double
stale_at (const LightsNode *n)
{
  if (n->state != LIGHTS_NODE_UP || !(n->interval > 0) || !isfinite (n->last_heard))
    return INFINITY;
  return n->last_heard + LIGHTS_STALE_INTERVALS * n->interval;
}

/* Trace time reached m->next_due: the up nodes silent for too long (but
 * node si, heard from right now) turn stale; next_due becomes the earliest
 * time the others can. */
G_NO_INLINE static void
age_nodes (LightsModel *m, guint si, const ViperTram *t)
{
  double next = INFINITY;
  for (guint i = 0; i < m->nodes->len; i++)
    {
      Node *nd = node_at (m, i);
      double due = stale_at (&nd->n);
      if (i == si || due == INFINITY)
        continue;
      if (due >= m->now)
        {
          next = MIN (next, due);
          continue;
        }
      /* it went silent when the sample after its last tram did not come:
       * the space-time row says so from there, not from 3 intervals on,
       * when the silence is only certain (its last entry is no later) */
      double silent_from = nd->n.last_heard + nd->n.interval;
      nd->n.state = LIGHTS_NODE_STALE;
      silence (m, i, t);
      nd = node_at (m, i);
      node_history (m, nd, silent_from);
      viper_damage_add (m->base.damage, VIPER_AREA_MODULE, nd->n.id, 0);
      viper_damage_add (m->base.damage, VIPER_AREA_PROGRAM, 0, 0);
    }
  m->next_due = next;
}

static gboolean
lights_apply (ViperModel *base, const ViperTram *t)
{
  LightsModel *m = (LightsModel *) base;
  const gint64 *d = viper_tram_data (t);
  guint si = node_get (m, t->proc);
  Node *s = node_at (m, si);
  gboolean changed = FALSE;
  m->any = TRUE;
  if (t->adjusted > m->now)
    m->now = t->adjusted;
  if (G_UNLIKELY (m->now > m->next_due))
    {
      age_nodes (m, si, t);
      s = node_at (m, si);
    }
  if (s->n.state == LIGHTS_NODE_STALE)
    {
      /* heard from again: its readings are current from this one on */
      s->n.state = LIGHTS_NODE_UP;
      changed = TRUE;
      viper_damage_add (base->damage, VIPER_AREA_PROGRAM, 0, 0);
    }
  if (!s->heard)
    {
      s->heard = TRUE;
      if (s->topo < 0)
        g_clear_pointer (&m->ids, g_array_unref);   /* shown after the file's nodes */
      changed = TRUE;
      if (s->n.state == LIGHTS_NODE_UNKNOWN)
        s->n.state = LIGHTS_NODE_UP;
      viper_damage_add (base->damage, VIPER_AREA_PROGRAM, 0, 0);
    }
  switch (t->ev)
    {
    case LIGHTS_EV_LOAD:
      s->n.load = (gint32) d[1];
      s->n.interval = (double) d[2] / 1000.0;
      s->n.last_sample = t->adjusted;
      s->n.samples++;
      if (t->time > 1e9 && t->time < 1e11)
        m->latency = (double) g_get_real_time () / 1e6 - t->time;
      changed = TRUE;
      break;
    case LIGHTS_EV_TRAFFIC:
      changed |= apply_traffic (m, si, t, d);
      break;
    case LIGHTS_EV_JOINED:
      s->n.parent = d[1];
      if (s->n.state != LIGHTS_NODE_UP)
        {
          s->n.state = LIGHTS_NODE_UP;
          viper_damage_add (base->damage, VIPER_AREA_PROGRAM, 0, 0);
        }
      changed = TRUE;
      break;
    case LIGHTS_EV_LOST:
      {
        GString *who = g_string_new (NULL);
        for (guint i = 1; i < t->ndata; i++)
          {
            guint li = node_get (m, d[i]);
            Node *x = node_at (m, li);
            g_string_append_printf (who, "%s%" G_GINT64_FORMAT, who->len ? " " : "", d[i]);
            if (x->n.state == LIGHTS_NODE_LOST)
              continue;
            x->n.state = LIGHTS_NODE_LOST;
            silence (m, li, t);
            node_history (m, node_at (m, li), t->adjusted);
            viper_damage_add (base->damage, VIPER_AREA_MODULE, d[i], 0);
          }
        add_message (m, g_strdup_printf ("node %" G_GINT64_FORMAT ": lost node%s %s", t->proc,
                                         t->ndata > 2 ? "s" : "", who->str));
        g_string_free (who, TRUE);
        viper_damage_add (base->damage, VIPER_AREA_PROGRAM, 0, 0);
        changed = TRUE;
        break;
      }
    case LIGHTS_EV_MESSAGE:
      {
        GString *txt = g_string_new (NULL);
        g_string_append_printf (txt, "node %" G_GINT64_FORMAT ": ", t->proc);
        for (guint i = 1; i < t->ndata; i++)
          g_string_append_unichar (txt, (gunichar) d[i]);
        add_message (m, g_string_free (txt, FALSE));
        viper_damage_add (base->damage, VIPER_AREA_PROGRAM, 0, 0);
        changed = TRUE;
        break;
      }
    default:
      break;
    }
  s = node_at (m, si);
  /* heard from: its readings are current for 3 more of its intervals */
  if (!(s->n.last_heard >= t->adjusted))
    s->n.last_heard = t->adjusted;
  m->next_due = MIN (m->next_due, stale_at (&s->n));
  node_history (m, s, t->adjusted);
  if (changed)
    viper_damage_add (base->damage, VIPER_AREA_MODULE, t->proc, 0);
  return changed;
}

static void
free_messages (LightsModel *m)
{
  for (guint i = 0; i < m->n_msgs; i++)
    g_free (m->msgs[(m->msg_first + i) % N_MESSAGES]);
  m->n_msgs = m->msg_first = 0;
}

static void
lights_reset (ViperModel *base)
{
  LightsModel *m = (LightsModel *) base;
  nodes_clear (m);
  free_messages (m);
  m->any = FALSE;
  m->latency = NAN;
  m->now = -INFINITY;
  m->next_due = INFINITY;
  /* a frozen display stays frozen (the GUI's toggle says so), now on the
   * empty state - unless this is a seek going back (the replay goes on under
   * a frozen picture: it stays as it was) */
  gboolean frozen = m->frozen, keep = frozen && base->rewinding;
  m->frozen = FALSE;
  adopt_setup (m, m->vs);
  if (keep)
    m->frozen = TRUE;
  else
    lights_model_set_frozen (base, frozen);
}

static void
lights_destroy (ViperModel *base)
{
  LightsModel *m = (LightsModel *) base;
  nodes_clear (m);
  free_messages (m);
  g_array_unref (m->nodes);
  g_free (m->dense);
  g_hash_table_destroy (m->sparse);
  lights_topo_free (m->topo);
  g_free (m->link_bw);
  g_free (m->link_bytes);
  g_free (m->link_class);
  g_free (m->link_shade);
  g_array_unref (m->frozen_load);
  g_array_unref (m->frozen_state);
  g_free (m->frozen_bw);
  g_free (m->route);
  g_free (m->link_dbw);
  g_free (m->touched);
  g_free (m->is_touched);
  g_free (m->link_dgen);
  g_free (m->acc_bw);
  g_free (m->acc_bytes);
  g_array_unref (m->changed);
  viper_model_finish (base);
  g_free (m);
}

static const char *
lights_program_state (const ViperModel *base)
{
  const LightsModel *m = (const LightsModel *) base;
  if (!m->any)
    return "inactive";
  /* the collectors are gone: nothing shown is current any more (the words
   * every paradigm maps to: terminated, or abnormal when cut off) */
  if (base->collection_end == VIPER_COLLECTION_LOST)
    return "abnormal";
  if (base->collection_end == VIPER_COLLECTION_ENDED)
    return "terminated";
  guint up, lost, unknown, stale;
  lights_model_counts (base, &up, &lost, &unknown, &stale);
  return lost ? "abnormal" : "running";
}

static void
lights_write_top (const ViperModel *base, ViperJson *j)
{
  const LightsModel *m = (const LightsModel *) base;
  guint up, lost, unknown, stale;
  lights_model_counts (base, &up, &lost, &unknown, &stale);
  viper_json_key (j, "nodes");
  viper_json_begin_object (j);
  viper_json_key (j, "up");
  viper_json_int (j, up);
  viper_json_key (j, "lost");
  viper_json_int (j, lost);
  viper_json_key (j, "unknown");
  viper_json_int (j, unknown);
  viper_json_key (j, "stale");
  viper_json_int (j, stale);
  viper_json_end_object (j);
  viper_json_key (j, "topology");
  viper_json_string (j, lights_topology_name (m->vs && m->vs->cluster ? m->vs->cluster->topology
                                                                        : VIPER_VIEW_TOPO_NONE));
  viper_json_key (j, "unrouted_bytes");
  viper_json_int (j, (gint64) m->unrouted);
  viper_json_key (j, "links");
  viper_json_begin_array (j);
  for (guint i = 0; i < m->n_links; i++)
    {
      LightsLink l;
      lights_model_link (base, i, &l);
      viper_json_begin_object (j);
      viper_json_key (j, "from");
      viper_json_int (j, l.from);
      viper_json_key (j, "to");
      viper_json_int (j, l.to);
      viper_json_key (j, "bw");
      viper_json_double (j, l.bw);
      viper_json_key (j, "bytes");
      viper_json_int (j, (gint64) l.bytes);
      viper_json_end_object (j);
    }
  viper_json_end_array (j);
  viper_json_key (j, "messages");
  viper_json_begin_array (j);
  for (guint i = 0; i < m->n_msgs; i++)
    viper_json_string (j, lights_model_message (base, i));
  viper_json_end_array (j);
}

static const char *
node_state_name (guint8 s)
{
  return s == LIGHTS_NODE_UP ? "up" : s == LIGHTS_NODE_LOST ? "lost" : s == LIGHTS_NODE_STALE ? "stale" : "unknown";
}

static void
lights_write_modules (const ViperModel *base, const ViperRun *run, ViperJson *j)
{
  const LightsModel *m = (const LightsModel *) base;
  GArray *ids = lights_model_ids (base);
  for (guint i = 0; i < ids->len; i++)
    {
      LightsNode n;
      lights_model_node (base, g_array_index (ids, gint64, i), &n);
      viper_json_begin_object (j);
      viper_json_key (j, "id");
      viper_json_int (j, n.id);
      /* every module has id, name and offset (spec section 5) */
      char name[32];
      g_snprintf (name, sizeof name, "node %" G_GINT64_FORMAT, n.id);
      viper_json_key (j, "name");
      viper_json_string (j, name);
      viper_json_key (j, "offset");
      viper_json_double (j, run ? viper_run_offset (run, n.id) : 0.0);
      viper_json_key (j, "state");
      viper_json_string (j, node_state_name (n.state));
      viper_json_key (j, "load");
      viper_json_int (j, n.load);
      viper_json_key (j, "samples");
      viper_json_int (j, (gint64) n.samples);
      viper_json_key (j, "parent");
      viper_json_int (j, n.parent);
      viper_json_key (j, "bytes_out");
      viper_json_int (j, (gint64) n.bytes_out);
      viper_json_key (j, "bytes_in");
      viper_json_int (j, (gint64) n.bytes_in);
      if (ids->len > LIGHTS_STATE_PEERS_LIMIT)
        {
          viper_json_end_object (j);
          continue;
        }
      viper_json_key (j, "peers");
      viper_json_begin_array (j);
      gint ni = node_find (m, n.id);
      const Node *nd = ni >= 0 ? node_at (m, (guint) ni) : NULL;
      for (guint k = 0; nd && k < nd->out->len; k++)
        {
          const Out *o = &g_array_index (nd->out, Out, k);
          viper_json_begin_object (j);
          viper_json_key (j, "peer");
          viper_json_int (j, node_at (m, o->peer)->n.id);
          viper_json_key (j, "bytes");
          viper_json_int (j, (gint64) o->total);
          viper_json_key (j, "bw");
          viper_json_double (j, o->bw);
          viper_json_end_object (j);
        }
      viper_json_end_array (j);
      viper_json_end_object (j);
    }
  g_array_unref (ids);
}

static const ViperModelClass lights_class = {
  .apply = lights_apply,
  .reset = lights_reset,
  .destroy = lights_destroy,
  .program_state = lights_program_state,
  .write_top = lights_write_top,
  .write_modules = lights_write_modules,
  .group_members = NULL,
  .snapshot = lights_snapshot,
  .restore = lights_restore,
  .snapshot_free = lights_snapshot_free,
};

ViperModel *
lights_model_new (const ViperParadigm *p, ViperSetup *setup)
{
  LightsModel *m = g_new0 (LightsModel, 1);
  viper_model_init (&m->base, &lights_class, p, setup);
  m->nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  m->changed = g_array_new (FALSE, FALSE, sizeof (Changed));
  m->sparse = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  m->frozen_load = g_array_new (FALSE, FALSE, sizeof (gint32));
  m->frozen_state = g_array_new (FALSE, FALSE, sizeof (guint8));
  m->latency = NAN;
  m->now = -INFINITY;
  m->next_due = INFINITY;
  adopt_setup (m, (const ViperViewSetup *) setup);
  return &m->base;
}

/* ---- accessors ----------------------------------------------------------- */

/* An up node's readings are not current once the live collection ended. */
static guint8
shown_state (const ViperModel *base, guint8 state)
{
  return state == LIGHTS_NODE_UP && base->collection_end != VIPER_COLLECTION_ON ? LIGHTS_NODE_STALE : state;
}

void
lights_model_node (const ViperModel *base, gint64 id, LightsNode *out)
{
  const LightsModel *m = lm (base);
  gint i = node_find (m, id);
  if (i >= 0)
    {
      *out = node_at (m, (guint) i)->n;
      out->state = shown_state (base, out->state);
      return;
    }
  *out = (LightsNode) { .id = id, .state = LIGHTS_NODE_UNKNOWN, .load = -1, .last_sample = NAN, .last_heard = NAN,
                        .parent = -1 };
}

double
lights_model_now (const ViperModel *base)
{
  return lm (base)->now;
}

static gint
cmp_id (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

GArray *
lights_model_ids (const ViperModel *base)
{
  LightsModel *m = (LightsModel *) lm (base);
  /* every view asks at every frame: kept until the nodes shown change */
  if (m->ids)
    return g_array_ref (m->ids);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *rest = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; m->vs && i < m->vs->modules->len; i++)
    g_array_append_val (ids, g_array_index (m->vs->modules, ViperViewModule, i).id);
  for (guint i = 0; i < m->nodes->len; i++)
    {
      const Node *nd = node_at (m, i);
      if (nd->heard && !viper_view_setup_module (m->vs, nd->n.id))
        g_array_append_val (rest, nd->n.id);
    }
  g_array_sort (rest, cmp_id);
  g_array_append_vals (ids, rest->data, rest->len);
  g_array_unref (rest);
  m->ids = g_array_ref (ids);
  return ids;
}

guint
lights_model_n_links (const ViperModel *base)
{
  return lm (base)->n_links;
}

void
lights_model_link (const ViperModel *base, guint i, LightsLink *out)
{
  const LightsModel *m = lm (base);
  g_return_if_fail (i < m->n_links);
  lights_topo_link (m->topo, i, &out->from, &out->to);
  out->bw = m->link_bw[i];
  out->bytes = m->link_bytes[i];
}

guint
lights_model_n_out_links (const ViperModel *base, gint64 id)
{
  const LightsModel *m = lm (base);
  return lights_topo_out_degree (m->topo, lights_topo_index (m->topo, id));
}

guint
lights_model_out_link (const ViperModel *base, gint64 id, guint k)
{
  const LightsModel *m = lm (base);
  return lights_topo_out_link (m->topo, lights_topo_index (m->topo, id), k);
}

gint
lights_model_link_index (const ViperModel *base, gint64 from, gint64 to)
{
  return lights_topo_link_index (lm (base)->topo, from, to);
}

static const Out *
pair (const LightsModel *m, gint64 src, gint64 dst)
{
  gint a = node_find (m, src), b = node_find (m, dst);
  if (a < 0 || b < 0)
    return NULL;
  const Node *s = node_at (m, (guint) a);
  guint pos = GPOINTER_TO_UINT (g_hash_table_lookup (s->out_idx, GUINT_TO_POINTER ((guint) b + 1)));
  return pos ? &g_array_index (s->out, Out, pos - 1) : NULL;
}

guint64
lights_model_pair_bytes (const ViperModel *base, gint64 src, gint64 dst)
{
  const Out *o = pair (lm (base), src, dst);
  return o ? o->total : 0;
}

double
lights_model_pair_bw (const ViperModel *base, gint64 src, gint64 dst)
{
  const Out *o = pair (lm (base), src, dst);
  return o ? o->bw : 0;
}

guint64
lights_model_unrouted (const ViperModel *base)
{
  return lm (base)->unrouted;
}

double
lights_model_latency (const ViperModel *base)
{
  return lm (base)->latency;
}

guint
lights_model_n_messages (const ViperModel *base)
{
  return lm (base)->n_msgs;
}

const char *
lights_model_message (const ViperModel *base, guint i)
{
  const LightsModel *m = lm (base);
  g_return_val_if_fail (i < m->n_msgs, NULL);
  return m->msgs[(m->msg_first + i) % N_MESSAGES];
}

void
lights_model_counts (const ViperModel *base, guint *up, guint *lost, guint *unknown, guint *stale)
{
  const LightsModel *m = lm (base);
  *up = *lost = *unknown = *stale = 0;
  for (guint i = 0; i < m->nodes->len; i++)
    {
      const Node *nd = node_at (m, i);
      if (!nd->heard && !viper_view_setup_module (m->vs, nd->n.id))
        continue;   /* a peer named in traffic only */
      switch (shown_state (base, nd->n.state))
        {
        case LIGHTS_NODE_UP: (*up)++; break;
        case LIGHTS_NODE_STALE: (*stale)++; break;
        case LIGHTS_NODE_LOST: (*lost)++; break;
        default: (*unknown)++; break;
        }
    }
}

void
lights_model_set_view_setup (ViperModel *base, const ViperViewSetup *vs)
{
  LightsModel *m = lm (base);
  gboolean frozen = m->frozen;
  lights_model_set_frozen (base, FALSE);
  adopt_setup (m, vs);
  base->setup = (ViperSetup *) vs;
  lights_model_set_frozen (base, frozen);
  viper_damage_add (base->damage, VIPER_AREA_ALL, 0, 0);
}

const ViperViewSetup *
lights_model_view_setup (const ViperModel *base)
{
  return lm (base)->vs;
}

void
lights_model_range (const ViperModel *base, LightsRange *out)
{
  *out = lm (base)->range;
}

void
lights_model_set_range (ViperModel *base, const LightsRange *r)
{
  LightsModel *m = lm (base);
  if (!(r->max > r->min) || r->min < 0)
    return;
  m->range = *r;
  for (guint i = 0; i < m->n_links; i++)
    {
      m->link_shade[i] = lights_bw_shade (&m->range, m->link_bw[i]);
      m->link_class[i] = lights_shade_class (m->link_shade[i]);
    }
  viper_damage_add (base->damage, VIPER_AREA_ALL, 0, 0);
}

void
lights_model_set_frozen (ViperModel *base, gboolean frozen)
{
  LightsModel *m = lm (base);
  if (frozen == m->frozen)
    return;
  m->frozen = frozen;
  if (frozen)
    {
      g_array_set_size (m->frozen_load, m->nodes->len);
      g_array_set_size (m->frozen_state, m->nodes->len);
      for (guint i = 0; i < m->nodes->len; i++)
        {
          g_array_index (m->frozen_load, gint32, i) = node_at (m, i)->n.load;
          g_array_index (m->frozen_state, guint8, i) = node_at (m, i)->n.state;
        }
      g_free (m->frozen_bw);
      m->frozen_bw = g_memdup2 (m->link_bw, MAX (m->n_links, 1u) * sizeof (double));
      m->n_frozen_bw = m->n_links;
    }
  viper_damage_add (base->damage, VIPER_AREA_ALL, 0, 0);
}

gboolean
lights_model_frozen (const ViperModel *base)
{
  return lm (base)->frozen;
}

gint32
lights_model_shown_load (const ViperModel *base, gint64 id, guint8 *state)
{
  const LightsModel *m = lm (base);
  gint i = node_find (m, id);
  if (i < 0)
    {
      *state = LIGHTS_NODE_UNKNOWN;
      return -1;
    }
  if (m->frozen)
    {
      if ((guint) i >= m->frozen_load->len)
        {
          *state = LIGHTS_NODE_UNKNOWN;
          return -1;
        }
      *state = shown_state (base, g_array_index (m->frozen_state, guint8, i));
      return *state == LIGHTS_NODE_STALE ? -1 : g_array_index (m->frozen_load, gint32, i);
    }
  /* a stale node's bar shows no load: its last reading is not the present */
  *state = shown_state (base, node_at (m, (guint) i)->n.state);
  return *state == LIGHTS_NODE_STALE ? -1 : node_at (m, (guint) i)->n.load;
}

double
lights_model_shown_link_bw (const ViperModel *base, guint i)
{
  const LightsModel *m = lm (base);
  /* the collection ended: no arrow shows a rate as the present */
  if (base->collection_end != VIPER_COLLECTION_ON)
    return 0;
  if (m->frozen)
    return i < m->n_frozen_bw ? m->frozen_bw[i] : 0;
  return i < m->n_links ? m->link_bw[i] : 0;
}

guint64
lights_model_view_serial (const ViperModel *base)
{
  return lm (base)->view_serial;
}

/* ---- for lights-snapshot.c ------------------------------------------------ */

void lights_priv_nodes_clear (LightsModel *m) { nodes_clear (m); }
void lights_priv_free_messages (LightsModel *m) { free_messages (m); }
void lights_priv_adopt_setup (LightsModel *m, const ViperViewSetup *vs) { adopt_setup (m, vs); }
