/* test-picl-run.c - the run construction on PICL traces.
 *
 * Random deadlock-free programs from the generator are delivered scrambled
 * (each processor's order kept, as the PICL channel promises), fed one line
 * at a time, and everything ready is transferred after each insert.  What
 * the engine produced is checked against expectations computed here,
 * independently of the engine:
 *  - the message pairing (k-th send on a channel <-> k-th receive end), from
 *    the lines' data alone;
 *  - a topological walk (processor order + send before its receive end) that
 *    yields the adjusted times and offsets of thesis 5.2 from the formula,
 *    the moment each tram must leave under minimal delay, and the set of
 *    trams an incomplete trace can never transfer.
 * The fixed scenarios are in test-picl-cases.c.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "picl-harness.h"

#define LINE(t, i) (&g_array_index ((t)->lines, ViperPiclGenLine, (i)))
#define NONE G_MAXUINT

static guint
n_seeds (guint normal)
{
  const char *env = g_getenv ("VIPER_PICL_SEEDS");
  return env ? (guint) atoi (env) : normal;
}

/* ---- expectations computed without the engine ----------------------------- */

typedef struct {
  guint n;                  /* lines */
  guint n_streams;          /* processors + 1 (stream 0 = PROC -1) */
  GArray **streams;         /* positions of each processor's lines, in delivery order */
  guint *prev;              /* the processor predecessor of each line, or NONE */
  guint *send_of;           /* receive end -> the send it pairs with (k-th on its channel), or NONE */
  GArray **deps;            /* collective end -> the begins it depends on (lines), or NULL */
  guint *def_of;            /* collective end -> the definition of its subset it needs, or NONE */
  guint *order;             /* a topological order of the lines that can ever leave */
  guint n_order;
} Plan;

static gint64
channel_key_hash (gint64 src, gint64 dest, gint64 tag)
{
  return (src << 40) ^ (dest << 20) ^ tag;
}

/* lines: delivery order; msgs: (src, dest, tag) per message id. */
/* Collective dependencies, worked out from the text of the lines: the k-th
 * begin of (EV, SUBSET) on each member is instance k; an end depends on the
 * begins its shape names (spec section 3). */
typedef struct {
  GHashTable *begin_of;     /* proc -> line + 1 */
  gint64 root;
} PlanInst;

static gint64
field_i64 (const char *text, guint f)
{
  /* the f-th blank-separated field (0-based), without allocating */
  const char *p = text;
  for (guint n = 0;; n++)
    {
      while (*p == ' ' || *p == '\t')
        p++;
      if (!*p)
        return G_MININT64;
      if (n == f)
        return g_ascii_strtoll (p, NULL, 10);
      while (*p && *p != ' ' && *p != '\t')
        p++;
    }
}

static void
plan_inst_free (gpointer x)
{
  PlanInst *pi = x;
  g_hash_table_destroy (pi->begin_of);
  g_free (pi);
}

static void
plan_collectives (Plan *p, const GArray *lines, guint procs)
{
  p->deps = g_new0 (GArray *, p->n);
  p->def_of = g_new (guint, p->n);
  for (guint i = 0; i < p->n; i++)
    p->def_of[i] = NONE;
  GHashTable *subsets = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);
  GHashTable *def_line = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint k = 0; k < p->streams[0]->len; k++)
    {
      const char *text = g_array_index (lines, ViperPiclGenLine, g_array_index (p->streams[0], guint, k)).text;
      if (!g_str_has_prefix (text, "-202 -812 "))
        continue;
      gint64 n = field_i64 (text, 5), id = field_i64 (text, 7);
      if (g_hash_table_contains (subsets, &id))
        continue;
      g_hash_table_insert (def_line, g_memdup2 (&id, sizeof id),
                           GUINT_TO_POINTER (g_array_index (p->streams[0], guint, k) + 1));
      GArray *mem = g_array_new (FALSE, FALSE, sizeof (gint64));
      for (gint64 f = 1; f < n; f++)
        {
          gint64 v = field_i64 (text, 7 + (guint) f);
          g_array_append_val (mem, v);
        }
      g_hash_table_insert (subsets, g_memdup2 (&id, sizeof id), mem);
    }
  GArray *all = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (gint64 q = 0; q < (gint64) procs; q++)
    g_array_append_val (all, q);
  GHashTable *insts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, plan_inst_free);
  GHashTable *nth = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (guint));
  GPtrArray *end_inst = g_ptr_array_new_with_free_func (g_free);
  for (guint s = 1; s < p->n_streams; s++)
    {
      GArray *open = g_array_new (FALSE, FALSE, sizeof (gint64[2]));   /* (ev, subset) begun, not ended */
      for (guint k = 0; k < p->streams[s]->len; k++)
        {
          guint i = g_array_index (p->streams[s], guint, k);
          const char *text = g_array_index (lines, ViperPiclGenLine, i).text;
          gint64 rec = field_i64 (text, 0), ev = field_i64 (text, 1);
          ViperPiclShape shape = viper_picl_collective_shape (ev);
          if (shape == VIPER_PICL_SHAPE_NONE)
            continue;
          gint64 proc = (gint64) s - 1;
          if (rec == -3)
            {
              gint64 nd = field_i64 (text, 5);
              gboolean rooted = shape == VIPER_PICL_SHAPE_ONE_TO_ALL || shape == VIPER_PICL_SHAPE_ALL_TO_ONE;
              guint sf = ev == -402 ? 0 : rooted ? 2 : 1;
              gint64 subset = nd > (gint64) sf ? field_i64 (text, 7 + sf) : -1;
              gint64 pair[2] = { ev, subset };
              g_array_append_val (open, pair);
              char *ck = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, ev, subset, proc);
              guint kth = GPOINTER_TO_UINT (g_hash_table_lookup (nth, ck));
              g_hash_table_insert (nth, ck, GUINT_TO_POINTER (kth + 1));
              char *ik = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%u", ev, subset, kth);
              PlanInst *pi = g_hash_table_lookup (insts, ik);
              if (!pi)
                {
                  pi = g_new0 (PlanInst, 1);
                  pi->begin_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
                  pi->root = -1;
                  g_hash_table_insert (insts, g_strdup (ik), pi);
                }
              g_hash_table_insert (pi->begin_of, g_memdup2 (&proc, sizeof proc), GUINT_TO_POINTER (i + 1));
              if (rooted)
                pi->root = field_i64 (text, 8);
              g_free (ik);
            }
          else if (open->len)
            {
              gint64 *pair = &g_array_index (open, gint64, 0);
              char *ck = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "e", pair[0],
                                          pair[1], proc);
              guint kth = GPOINTER_TO_UINT (g_hash_table_lookup (nth, ck));
              g_hash_table_insert (nth, ck, GUINT_TO_POINTER (kth + 1));
              g_array_append_val (ends, i);
              g_ptr_array_add (end_inst, g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%u", pair[0],
                                                          pair[1], kth));
              g_array_remove_index (open, 0);
            }
        }
      g_array_unref (open);
    }
  for (guint e = 0; e < ends->len; e++)
    {
      guint i = g_array_index (ends, guint, e);
      const ViperPiclGenLine *l = &g_array_index (lines, ViperPiclGenLine, i);
      const char *ik = end_inst->pdata[e];
      PlanInst *pi = g_hash_table_lookup (insts, ik);
      gint64 ev = 0, subset = 0;
      sscanf (ik, "%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, &ev, &subset);
      const GArray *mem = subset == -1 ? all : g_hash_table_lookup (subsets, &subset);
      GArray *d = g_array_new (FALSE, FALSE, sizeof (guint));
      if (!mem)
        {
          /* its subset's definition was lost: it can never be matched */
          g_array_append_val (d, (guint) { NONE });
          p->deps[i] = d;
          continue;
        }
      ViperPiclShape shape = viper_picl_collective_shape (ev);
      for (guint k = 0; k < mem->len; k++)
        {
          gint64 q = g_array_index (mem, gint64, k);
          gboolean need;
          switch (shape)
            {
            case VIPER_PICL_SHAPE_ONE_TO_ALL: need = q == pi->root; break;
            case VIPER_PICL_SHAPE_ALL_TO_ONE: need = l->proc == pi->root; break;
            case VIPER_PICL_SHAPE_PREFIX:
              {
                need = TRUE;
                for (guint j = 0; j <= k; j++)
                  if (g_array_index (mem, gint64, j) == l->proc && j < k)
                    need = FALSE;
                break;
              }
            default: need = TRUE; break;
            }
          guint b = GPOINTER_TO_UINT (g_hash_table_lookup (pi->begin_of, &q));
          /* a begin that is missing (a lost line) holds the end for good: NONE */
          if (need && q != l->proc)
            g_array_append_val (d, (guint) { b ? b - 1 : NONE });
        }
      p->deps[i] = d;
      if (subset != -1)
        p->def_of[i] = GPOINTER_TO_UINT (g_hash_table_lookup (def_line, &subset)) - 1;
    }
  g_hash_table_destroy (def_line);
  g_array_unref (ends);
  g_ptr_array_unref (end_inst);
  g_hash_table_destroy (nth);
  g_hash_table_destroy (insts);
  g_hash_table_destroy (subsets);
  g_array_unref (all);
}

static void
plan_init (Plan *p, const GArray *lines, guint procs, const GArray *msgs)
{
  memset (p, 0, sizeof *p);
  p->n = lines->len;
  p->n_streams = procs + 1;
  p->streams = g_new (GArray *, p->n_streams);
  for (guint s = 0; s < p->n_streams; s++)
    p->streams[s] = g_array_new (FALSE, FALSE, sizeof (guint));
  p->prev = g_new (guint, p->n);
  p->send_of = g_new (guint, p->n);
  for (guint i = 0; i < p->n; i++)
    {
      const ViperPiclGenLine *l = &g_array_index (lines, ViperPiclGenLine, i);
      GArray *s = p->streams[l->proc + 1];
      p->prev[i] = s->len ? g_array_index (s, guint, s->len - 1) : NONE;
      g_array_append_val (s, i);
      p->send_of[i] = NONE;
    }
  /* sends per channel in their sender's order, then the k-th receive end */
  GHashTable *sends = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);
  GHashTable *taken = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint s = 0; s < p->n_streams; s++)
    for (guint k = 0; k < p->streams[s]->len; k++)
      {
        guint i = g_array_index (p->streams[s], guint, k);
        const ViperPiclGenLine *l = &g_array_index (lines, ViperPiclGenLine, i);
        if (l->role != VIPER_PICL_LINE_SEND)
          continue;
        const ViperPiclGenMessage *m = &g_array_index (msgs, ViperPiclGenMessage, l->message);
        gint64 key = channel_key_hash (m->src, m->dest, m->tag);
        GArray *a = g_hash_table_lookup (sends, &key);
        if (!a)
          {
            a = g_array_new (FALSE, FALSE, sizeof (guint));
            g_hash_table_insert (sends, g_memdup2 (&key, sizeof key), a);
          }
        g_array_append_val (a, i);
      }
  for (guint s = 0; s < p->n_streams; s++)
    for (guint k = 0; k < p->streams[s]->len; k++)
      {
        guint i = g_array_index (p->streams[s], guint, k);
        const ViperPiclGenLine *l = &g_array_index (lines, ViperPiclGenLine, i);
        if (l->role != VIPER_PICL_LINE_RECV_END)
          continue;
        const ViperPiclGenMessage *m = &g_array_index (msgs, ViperPiclGenMessage, l->message);
        gint64 key = channel_key_hash (m->src, m->dest, m->tag);
        guint nth = GPOINTER_TO_UINT (g_hash_table_lookup (taken, &key));
        g_hash_table_insert (taken, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (nth + 1));
        GArray *a = g_hash_table_lookup (sends, &key);
        if (a && nth < a->len)
          p->send_of[i] = g_array_index (a, guint, nth);
      }
  g_hash_table_destroy (sends);
  g_hash_table_destroy (taken);
  plan_collectives (p, lines, procs);

  /* walk: advance every processor as far as its receive ends allow */
  p->order = g_new (guint, p->n);
  guint8 *done = g_new0 (guint8, p->n);
  guint *cur = g_new0 (guint, p->n_streams);
  for (gboolean moved = TRUE; moved;)
    {
      moved = FALSE;
      for (guint s = 0; s < p->n_streams; s++)
        while (cur[s] < p->streams[s]->len)
          {
            guint i = g_array_index (p->streams[s], guint, cur[s]);
            const ViperPiclGenLine *l = &g_array_index (lines, ViperPiclGenLine, i);
            if (l->role == VIPER_PICL_LINE_RECV_END && (p->send_of[i] == NONE || !done[p->send_of[i]]))
              break;
            gboolean ready = TRUE;
            for (guint d = 0; p->deps[i] && d < p->deps[i]->len && ready; d++)
              ready = g_array_index (p->deps[i], guint, d) != NONE && done[g_array_index (p->deps[i], guint, d)];
            if (p->def_of[i] != NONE && !done[p->def_of[i]])
              ready = FALSE;
            if (!ready)
              break;
            done[i] = 1;
            p->order[p->n_order++] = i;
            cur[s]++;
            moved = TRUE;
          }
    }
  g_free (done);
  g_free (cur);
}

static void
plan_clear (Plan *p)
{
  for (guint s = 0; s < p->n_streams; s++)
    g_array_unref (p->streams[s]);
  g_free (p->streams);
  g_free (p->prev);
  g_free (p->send_of);
  g_free (p->order);
  for (guint i = 0; i < p->n; i++)
    if (p->deps[i])
      g_array_unref (p->deps[i]);
  g_free (p->deps);
  g_free (p->def_of);
}

/* ---- the property check ------------------------------------------------------ */

typedef struct {
  const ViperPiclGenTrace *trace;
  GHashTable *index;
  guint8 *done;
  double *adj, *time, *off_before, *off_after;
  guint64 *at_insert;
  gint64 *last_seq;         /* per stream */
  double *last_adj;
  guint transferred;
  double decay;
  ViperTramPool *pool;      /* for re-parsing the written lines */
  ViperTramFields *fields;
} Check;

static guint64 stat_corrected, stat_held;

static void
check_transfer (Harness *h, const ViperTram *t, const Transfer *rec, gpointer data)
{
  Check *c = data;
  stat_corrected += t->adjusted != t->time + rec->offset_before;
  stat_held += t->line != h->inserts;
  guint i = harness_lookup (c->index, t->proc, t->seq);
  g_assert_cmpuint (i, !=, NONE);
  const ViperPiclGenLine *l = LINE (c->trace, i);
  /* identity, exactly once */
  {
    /* same fields: print both through the printer (TIME in its shortest form) */
    GString *got = g_string_new (NULL), *want = g_string_new (NULL);
    viper_tram_print (t, FALSE, got);
    if (!c->pool)
      {
        c->pool = viper_tram_pool_new ();
        c->fields = viper_tram_fields_new ();
      }
    ViperLineKind kind;
    ViperParseError err;
    ViperTram *u = viper_tram_parse (c->pool, c->fields, l->text, strlen (l->text), &kind, &err);
    g_assert_nonnull (u);
    viper_tram_print (u, FALSE, want);
    g_assert_cmpstr (got->str, ==, want->str);
    viper_tram_pool_release (c->pool, u);
    g_string_free (got, TRUE);
    g_string_free (want, TRUE);
  }
  g_assert_false (c->done[i]);
  c->done[i] = 1;
  c->transferred++;
  /* each processor in its own order, adjusted times never going back */
  guint s = (guint) (t->proc + 1);
  g_assert_cmpint (t->seq, ==, c->last_seq[s] + 1);
  c->last_seq[s] = t->seq;
  g_assert_cmpfloat (t->adjusted, >=, c->last_adj[s]);
  c->last_adj[s] = t->adjusted;
  /* a receive end after its send begin, and not earlier in time */
  if (l->role == VIPER_PICL_LINE_RECV_END)
    {
      guint send = g_array_index (c->trace->messages, ViperPiclGenMessage, l->message).send_line;
      g_assert_true (c->done[send]);
      g_assert_cmpfloat (c->adj[send], <=, t->adjusted);
    }
  /* the time stamp as written */
  const char *p = l->text;
  for (int f = 0; f < 2; f++)
    {
      p = strchr (p, ' ');
      g_assert_nonnull (p);
      p++;
    }
  double written = g_ascii_strtod (p, NULL);
  g_assert_cmpfloat (fabs (t->time - written), <=, 1e-15 * MAX (1.0, fabs (written)));
  c->adj[i] = t->adjusted;
  c->time[i] = t->time;
  c->off_before[i] = rec->offset_before;
  c->off_after[i] = rec->offset_after;
  c->at_insert[i] = rec->at_insert;
  /* the decay rule around this transfer */
  if (c->decay == 1.0)
    g_assert_cmpfloat (rec->offset_after, >=, rec->offset_before);
  else if (c->decay == 0.0)
    g_assert_cmpfloat (rec->offset_after, ==, 0.0);
  else
    g_assert_cmpfloat (rec->offset_after, ==, c->decay * MAX (rec->offset_before, t->adjusted - t->time));
}

static gint
cmp_arrow (gconstpointer a, gconstpointer b)
{
  const double *x = a, *y = b;
  for (int k = 0; k < 4; k++)
    if (x[k] != y[k])
      return x[k] < y[k] ? -1 : 1;
  return 0;
}

/* Replay trace (already in delivery order) and check every property. */
static void
replay_and_check (const ViperPiclGenTrace *trace, double decay, guint64 seed)
{
  guint n = trace->lines->len;
  Check c = { .trace = trace, .decay = decay };
  c.index = harness_seq_index (trace->lines);
  c.done = g_new0 (guint8, n);
  c.adj = g_new0 (double, n);
  c.time = g_new0 (double, n);
  c.off_before = g_new0 (double, n);
  c.off_after = g_new0 (double, n);
  c.at_insert = g_new0 (guint64, n);
  c.last_seq = g_new0 (gint64, trace->procs + 1);
  c.last_adj = g_new (double, trace->procs + 1);
  for (guint s = 0; s <= trace->procs; s++)
    c.last_adj[s] = -INFINITY;

  Harness h;
  harness_init (&h, decay);
  h.on_transfer = check_transfer;
  h.on_transfer_data = &c;
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (harness_feed (&h, LINE (trace, i)->text));
      ViperCounts counts;
      viper_run_counts (h.run, &counts);
      g_assert_cmpuint (counts.read, ==, i + 1);
      g_assert_cmpuint (counts.read, ==, counts.transferred + counts.pending + counts.rejected);
      g_assert_cmpuint (counts.transferred, ==, c.transferred);
      g_assert_cmpuint (counts.rejected, ==, 0);
    }
  ViperCounts counts;
  viper_run_counts (h.run, &counts);
  g_assert_cmpuint (counts.pending, ==, 0);
  g_assert_cmpuint (counts.ignored, ==, 0);
  g_assert_cmpuint (c.transferred, ==, n);
  GArray *stuck = viper_run_stuck (h.run);
  g_assert_cmpuint (stuck->len, ==, 0);
  viper_stuck_array_free (stuck);
  g_assert_cmpuint (h.bad, ==, 0);

  /* the engine pairs as the generator meant, and adjusted times follow the formula */
  Plan plan;
  GArray *msgs = trace->messages;
  plan_init (&plan, trace->lines, trace->procs, msgs);
  g_assert_cmpuint (plan.n_order, ==, n);
  for (guint k = 0; k < msgs->len; k++)
    {
      const ViperPiclGenMessage *m = &g_array_index (msgs, ViperPiclGenMessage, k);
      g_assert_cmpuint (plan.send_of[m->recv_line], ==, m->send_line);
    }
  double *off = g_new0 (double, plan.n_streams);
  double *oracle = g_new (double, n);
  for (guint k = 0; k < plan.n_order; k++)
    {
      guint i = plan.order[k];
      guint s = (guint) (LINE (trace, i)->proc + 1);
      double a = c.time[i] + off[s];
      if (plan.prev[i] != NONE && oracle[plan.prev[i]] > a)
        a = oracle[plan.prev[i]];
      if (plan.send_of[i] != NONE && oracle[plan.send_of[i]] > a)
        a = oracle[plan.send_of[i]];
      for (guint d = 0; plan.deps[i] && d < plan.deps[i]->len; d++)
        a = MAX (a, oracle[g_array_index (plan.deps[i], guint, d)]);
      oracle[i] = a;
      if (a - c.time[i] > off[s])
        off[s] = a - c.time[i];
      off[s] *= decay;
      if (oracle[i] != c.adj[i] || off[s] != c.off_after[i])
        g_error ("seed %" G_GUINT64_FORMAT " decay %g: line %u '%s': adjusted %.17g offset %.17g, expected %.17g / %.17g",
                 seed, decay, i, LINE (trace, i)->text, c.adj[i], c.off_after[i], oracle[i], off[s]);
    }
  g_free (off);
  g_free (oracle);
  plan_clear (&plan);

  /* the model: every message matched, arrows equal to the true pairs */
  ViperModel *m = h.model;
  g_assert_cmpuint (viper_picl_model_messages (m), ==, msgs->len);
  g_assert_cmpuint (viper_picl_model_unreceived (m), ==, 0);
  g_assert_cmpuint (m->inconsistent, ==, 0);
  g_assert_cmpuint (h.warnings, ==, 0);
  g_assert_cmpuint (m->applied, ==, n);
  g_assert_cmpstr (viper_model_program_state (m), ==, "terminated");
  guint64 *sent = g_new0 (guint64, trace->procs), *recv = g_new0 (guint64, trace->procs);
  GArray *want = g_array_new (FALSE, FALSE, sizeof (double[4]));
  GArray *got = g_array_new (FALSE, FALSE, sizeof (double[4]));
  for (guint k = 0; k < msgs->len; k++)
    {
      const ViperPiclGenMessage *msg = &g_array_index (msgs, ViperPiclGenMessage, k);
      sent[msg->src]++;
      recv[msg->dest]++;
      double e[4] = { (double) msg->src, (double) msg->dest, c.adj[msg->send_line], c.adj[msg->recv_line] };
      g_array_append_val (want, e);
    }
  for (guint k = 0; k < m->history->len; k++)
    {
      const ViperHistoryEntry *e = &g_array_index (m->history, ViperHistoryEntry, k);
      if (e->state != VIPER_PICL_ARROW_MESSAGE || isnan (e->t1))
        continue;
      g_assert_cmpfloat (e->t0, <=, e->t1);
      double a[4] = { e->module, e->other, e->t0, e->t1 };
      g_array_append_val (got, a);
    }
  g_array_sort (want, cmp_arrow);
  g_array_sort (got, cmp_arrow);
  g_assert_cmpuint (got->len, ==, want->len);
  g_assert_cmpmem (got->data, got->len * sizeof (double[4]), want->data, want->len * sizeof (double[4]));
  for (guint p = 0; p < trace->procs; p++)
    {
      g_assert_cmpuint (viper_picl_model_sent (m, p), ==, sent[p]);
      g_assert_cmpuint (viper_picl_model_received (m, p), ==, recv[p]);
      g_assert_false (viper_picl_model_tracing (m, p));
      g_assert_cmpint (viper_picl_model_state (m, p), ==, VIPER_PICL_BUSY);
    }
  g_free (sent);
  g_free (recv);
  g_array_unref (want);
  g_array_unref (got);

  harness_clear (&h);
  g_hash_table_destroy (c.index);
  g_free (c.done);
  g_free (c.adj);
  g_free (c.time);
  g_free (c.off_before);
  g_free (c.off_after);
  g_free (c.at_insert);
  if (c.pool)
    {
      viper_tram_fields_free (c.fields);
      viper_tram_pool_free (c.pool);
    }
  g_free (c.last_seq);
  g_free (c.last_adj);
}

static void
test_property_random (void)
{
  static const double decays[] = { 1.0, 0.5, 0.0 };
  guint seeds = n_seeds (3000);
  guint64 trams = 0, messages = 0;
  for (guint s = 1; s <= seeds; s++)
    {
      ViperPiclGenOptions o;
      harness_small_options (&o, s);
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      g_assert_nonnull (t);
      replay_and_check (t, decays[s % 3], s);
      trams += t->lines->len;
      messages += t->messages->len;
      viper_picl_gen_free (t);
    }
  g_test_message ("%u programs, %" G_GUINT64_FORMAT " trams, %" G_GUINT64_FORMAT " messages, %" G_GUINT64_FORMAT
                  " time stamps corrected, %" G_GUINT64_FORMAT " trams held back by a dependency",
                  seeds, trams, messages, stat_corrected, stat_held);
}

/* The same programs delivered in true-time order and with perfect clocks. */
static void
test_property_inorder_true_time (void)
{
  guint seeds = n_seeds (3000) / 10;
  for (guint s = 1; s <= seeds; s++)
    {
      ViperPiclGenOptions o;
      harness_small_options (&o, 100000 + s);
      o.delivery = VIPER_PICL_DELIVERY_INORDER;
      o.true_time = s % 2;
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      replay_and_check (t, 1.0, s);
      viper_picl_gen_free (t);
    }
}

/* ---- minimal delay ---------------------------------------------------------- */

/* Concatenate whole processors in a random order: the harshest scramble that
 * keeps each processor's order.  Message positions follow. */
static void
deliver_in_blocks (ViperPiclGenTrace *t, GRand *r)
{
  viper_picl_gen_redeliver (t, VIPER_PICL_DELIVERY_SHUFFLED, 1);
  guint streams = t->procs + 1;
  guint *perm = g_new (guint, streams);
  for (guint s = 0; s < streams; s++)
    perm[s] = s;
  for (guint s = streams - 1; s > 0; s--)
    {
      guint j = (guint) g_rand_int_range (r, 0, (gint32) s + 1);
      guint tmp = perm[s];
      perm[s] = perm[j];
      perm[j] = tmp;
    }
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (ViperPiclGenLine), t->lines->len);
  for (guint k = 0; k < streams; k++)
    for (guint i = 0; i < t->lines->len; i++)
      if ((guint) (LINE (t, i)->proc + 1) == perm[k])
        g_array_append_val (out, *LINE (t, i));
  g_array_unref (t->lines);
  t->lines = out;
  for (guint i = 0; i < out->len; i++)
    {
      const ViperPiclGenLine *l = LINE (t, i);
      ViperPiclGenMessage *m = l->message >= 0 ? &g_array_index (t->messages, ViperPiclGenMessage, l->message) : NULL;
      if (l->role == VIPER_PICL_LINE_SEND)
        m->send_line = i;
      else if (l->role == VIPER_PICL_LINE_RECV_END)
        m->recv_line = i;
    }
  g_free (perm);
}

static void
test_minimal_delay (void)
{
  guint seeds = n_seeds (3000) / 5;
  GRand *r = g_rand_new_with_seed (4242);
  for (guint s = 1; s <= seeds; s++)
    {
      ViperPiclGenOptions o;
      harness_small_options (&o, 200000 + s);
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      if (s % 3 == 0)
        deliver_in_blocks (t, r);
      Plan plan;
      plan_init (&plan, t->lines, t->procs, t->messages);
      g_assert_cmpuint (plan.n_order, ==, t->lines->len);
      /* inserted as line i + 1; leaves with the last of itself and its predecessors */
      guint64 *expect = g_new (guint64, t->lines->len);
      for (guint k = 0; k < plan.n_order; k++)
        {
          guint i = plan.order[k];
          guint64 e = i + 1;
          if (plan.prev[i] != NONE)
            e = MAX (e, expect[plan.prev[i]]);
          if (plan.send_of[i] != NONE)
            e = MAX (e, expect[plan.send_of[i]]);
          for (guint d = 0; plan.deps[i] && d < plan.deps[i]->len; d++)
            e = MAX (e, expect[g_array_index (plan.deps[i], guint, d)]);
          if (plan.def_of[i] != NONE)
            e = MAX (e, expect[plan.def_of[i]]);     /* the group must be known */
          expect[i] = e;
        }
      Harness h;
      harness_init (&h, 1.0);
      for (guint i = 0; i < t->lines->len; i++)
        harness_feed (&h, LINE (t, i)->text);
      GHashTable *index = harness_seq_index (t->lines);
      g_assert_cmpuint (h.out->len, ==, t->lines->len);
      for (guint k = 0; k < h.out->len; k++)
        {
          const Transfer *x = &g_array_index (h.out, Transfer, k);
          guint i = harness_lookup (index, x->proc, x->seq);
          if (x->at_insert != expect[i])
            g_error ("seed %u: '%s' (line %u) left after insert %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                     s, LINE (t, i)->text, i + 1, x->at_insert, expect[i]);
        }
      g_hash_table_destroy (index);
      harness_clear (&h);
      g_free (expect);
      plan_clear (&plan);
      viper_picl_gen_free (t);
    }
  g_rand_free (r);
}

/* ---- incomplete traces ------------------------------------------------------- */

static void
test_incomplete (void)
{
  guint seeds = n_seeds (3000) / 6;
  GRand *r = g_rand_new_with_seed (777);
  guint saw_stuck = 0, saw_clean = 0;
  for (guint s = 1; s <= seeds; s++)
    {
      ViperPiclGenOptions o;
      harness_small_options (&o, 300000 + s);
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      /* drop one line; half of the time a send begin, whose loss matters most */
      guint drop;
      do
        drop = (guint) g_rand_int_range (r, 0, (gint32) t->lines->len);
      while (s % 2 == 0 && LINE (t, drop)->role != VIPER_PICL_LINE_SEND);
      const char *dropped = LINE (t, drop)->text;
      g_array_remove_index (t->lines, drop);

      Plan plan;
      plan_init (&plan, t->lines, t->procs, t->messages);
      guint8 *can = g_new0 (guint8, t->lines->len);
      for (guint k = 0; k < plan.n_order; k++)
        can[plan.order[k]] = 1;

      Harness h;
      harness_init (&h, 1.0);
      for (guint i = 0; i < t->lines->len; i++)
        harness_feed (&h, LINE (t, i)->text);
      GHashTable *index = harness_seq_index (t->lines);
      guint8 *left = g_new0 (guint8, t->lines->len);
      for (guint k = 0; k < h.out->len; k++)
        {
          const Transfer *x = &g_array_index (h.out, Transfer, k);
          guint i = harness_lookup (index, x->proc, x->seq);
          g_assert_cmpuint (i, !=, NONE);
          g_assert_false (left[i]);
          left[i] = 1;
        }
      for (guint i = 0; i < t->lines->len; i++)
        if (left[i] != can[i])
          g_error ("seed %u, dropped line %u '%s': '%s' %s but should %s", s, drop, dropped, LINE (t, i)->text,
                   left[i] ? "left" : "is pending", can[i] ? "leave" : "stay pending");

      ViperCounts counts;
      viper_run_counts (h.run, &counts);
      g_assert_cmpuint (counts.pending, ==, t->lines->len - plan.n_order);
      g_assert_cmpuint (counts.read, ==, counts.transferred + counts.pending + counts.rejected);

      /* one stuck entry per held-up processor, naming its first pending tram */
      GArray *stuck = viper_run_stuck (h.run);
      guint held = 0;
      for (guint st = 0; st < plan.n_streams; st++)
        {
          GArray *lst = plan.streams[st];
          guint first = NONE, count = 0;
          for (guint k = 0; k < lst->len; k++)
            if (!can[g_array_index (lst, guint, k)])
              {
                if (first == NONE)
                  first = k;
                count++;
              }
          if (!count)
            continue;
          g_assert_cmpuint (count, ==, lst->len - first);     /* the whole tail, nothing else */
          const ViperStuck *e = NULL;
          for (guint k = 0; k < stuck->len; k++)
            if (g_array_index (stuck, ViperStuck, k).proc == (gint64) st - 1)
              e = &g_array_index (stuck, ViperStuck, k);
          g_assert_nonnull (e);
          g_assert_cmpuint (e->trams, ==, count);
          guint head = g_array_index (lst, guint, first);
          const ViperPiclGenLine *hl = LINE (t, head);
          if (plan.deps[head])
            {
              /* a collective's end: it names a missing begin (or the missing group) */
              char *pre = g_strdup_printf ("the begin of collective %" G_GINT64_FORMAT " #", field_i64 (hl->text, 1));
              if (!g_str_has_prefix (e->waiting_for, pre) && !g_str_has_prefix (e->waiting_for, "the definition of group "))
                g_error ("seed %u: stuck on '%s': %s", s, hl->text, e->waiting_for);
              g_free (pre);
              held++;
              continue;
            }
          g_assert_cmpint (hl->role, ==, VIPER_PICL_LINE_RECV_END);
          const ViperPiclGenMessage *m = &g_array_index (t->messages, ViperPiclGenMessage, hl->message);
          if (plan.send_of[head] != NONE)
            {
              /* its send begin is there but held up itself (behind a collective) */
              guint sl = plan.send_of[head];
              GArray *ss = plan.streams[LINE (t, sl)->proc + 1];
              guint seq = 0;
              while (g_array_index (ss, guint, seq) != sl)
                seq++;
              char *w = g_strdup_printf ("%s seq %u of proc %" G_GINT64_FORMAT " (send of proc %" G_GINT64_FORMAT ")",
                                         g_str_has_prefix (LINE (t, sl)->text, "-3 -21") ? "SEND BEGIN" : "ISEND BEGIN",
                                         seq + 1, LINE (t, sl)->proc, LINE (t, sl)->proc);
              /* or, when the send's list stalls behind a collective over a
               * subset whose definition was lost, not even claimed yet */
              char *w2 = g_strdup_printf ("the primitive of %s seq %u of proc %" G_GINT64_FORMAT
                                          " (no matching start from proc %" G_GINT64_FORMAT " yet)",
                                          g_str_has_prefix (hl->text, "-4 -52") ? "RECV END" : "RECV WAIT END",
                                          first + 1, hl->proc, m->src);
              if (strcmp (e->waiting_for, w) != 0 && strcmp (e->waiting_for, w2) != 0)
                g_error ("seed %u: '%s' not '%s'", s, e->waiting_for, w);
              g_free (w);
              g_free (w2);
              held++;
              continue;
            }
          char *want = g_strdup_printf ("the primitive of %s seq %u of proc %" G_GINT64_FORMAT
                                        " (no matching start from proc %" G_GINT64_FORMAT " yet)",
                                        g_str_has_prefix (hl->text, "-4 -52") ? "RECV END" : "RECV WAIT END",
                                        first + 1, hl->proc, m->src);
          g_assert_cmpstr (e->waiting_for, ==, want);
          g_free (want);
          held++;
        }
      g_assert_cmpuint (stuck->len, ==, held);
      if (held)
        saw_stuck++;
      else
        saw_clean++;
      viper_stuck_array_free (stuck);
      g_free (left);
      g_free (can);
      g_hash_table_destroy (index);
      harness_clear (&h);
      plan_clear (&plan);
      viper_picl_gen_free (t);
    }
  g_rand_free (r);
  /* both outcomes must have been exercised */
  g_assert_cmpuint (saw_stuck, >, seeds / 10);
  g_assert_cmpuint (saw_clean, >, seeds / 10);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/picl/run/property/scrambled", test_property_random);
  g_test_add_func ("/picl/run/property/inorder", test_property_inorder_true_time);
  g_test_add_func ("/picl/run/minimal-delay", test_minimal_delay);
  g_test_add_func ("/picl/run/incomplete", test_incomplete);
  return g_test_run ();
}
