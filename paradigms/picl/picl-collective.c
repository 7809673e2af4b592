/* picl-collective.c - collectives in the picl model: the k-th collective of
 * one kind over one SUBSET on each member belongs together (instance k);
 * a member's end stops waiting at the latest begin its shape names (spec
 * section 3).  The run (core/join.c) guarantees those begins, and the
 * subset's definition, are applied before the end. */
#include "picl-model-priv.h"

guint
picl_inst_hash (gconstpointer k)
{
  const InstKey *x = k;
  return map_hash (x->ev, x->subset, x->k);
}

gboolean
picl_inst_equal (gconstpointer a, gconstpointer b)
{
  const InstKey *x = a, *y = b;
  return x->ev == y->ev && x->subset == y->subset && x->k == y->k;
}

void
picl_inst_free (gpointer p)
{
  Inst *i = p;
  g_array_unref (i->begins);
  g_free (i->pre_seen);
  g_free (i->pre_w);
  g_free (i);
}

Inst *
picl_inst_get (PiclModel *m, gint64 ev, gint64 subset, gint64 k, gboolean create)
{
  InstKey key = { ev, subset, k };
  Inst *i = g_hash_table_lookup (m->insts, &key);
  if (!i && create)
    {
      i = g_new0 (Inst, 1);
      i->key = key;
      i->begins = g_array_new (FALSE, FALSE, sizeof (InstBegin));
      i->agg_w = -INFINITY;
      g_hash_table_insert (m->insts, &i->key, i);
    }
  return i;
}

/* Members of a subset in their defined order; for -1 every processor of
 * the run in increasing order.  NULL while not known: an undefined subset,
 * or -1 before the input ended (a processor may still appear). */
static const GArray *
picl_subset_members (const PiclModel *m, gint64 subset)
{
  if (subset == -1)
    return viper_model_modules (&m->base);
  return g_hash_table_lookup (m->subsets, &subset);
}

/* The open collectives over subset (G_MININT64: over -1 or any subset)
 * wait no more for their members to be known: look again at the idle. */
static void
picl_recheck_collectives (PiclModel *m, gint64 subset)
{
  for (guint i = 0; i < m->procs->len; i++)
    {
      Proc *p = &g_array_index (m->procs, Proc, i);
      if (p->state != VIPER_PICL_IDLE)
        continue;
      for (guint k = 0; k < p->calls.len; k++)
        if (p->calls.v[k].kind == CALL_COLL && (subset == G_MININT64 || p->calls.v[k].subset == subset))
          {
            picl_set_provisional (m, p);
            break;
          }
    }
}

void
picl_modules_known (ViperModel *base)
{
  ((PiclModel *) base)->modules_gen++;   /* the positions over -1 are made again */
  picl_recheck_collectives ((PiclModel *) base, -1);
}

gboolean
picl_apply_subset (PiclModel *m, const ViperTram *t)
{
  m->n_subsets++;
  if (t->dtype != VIPER_DTYPE_INT || t->ndata < 1)
    return FALSE;
  const gint64 *d = viper_tram_data (t);
  gint64 id = d[0];
  if (id == -1)
    return FALSE;           /* -1 is every processor, whatever a definition says */
  GArray *prev = g_hash_table_lookup (m->subsets, &id);
  if (prev)
    {
      /* an empty subset's array has no data (NULL): memcmp must not see it */
      gboolean same = prev->len == (guint) t->ndata - 1u
                      && (prev->len == 0 || memcmp (prev->data, d + 1, sizeof (gint64) * prev->len) == 0);
      if (!same)
        viper_model_inconsistent (&m->base, t, "subset %" G_GINT64_FORMAT " redefined with other members", id);
      return FALSE;
    }
  GArray *members = g_array_sized_new (FALSE, FALSE, sizeof (gint64), t->ndata - 1u);
  g_array_append_vals (members, d + 1, t->ndata - 1u);
  g_hash_table_insert (m->subsets, g_memdup2 (&id, sizeof id), members);
  /* each member's position, so that a collective's wait is linear in its
   * begins, not their product with the members (1,024 ranks: cubic before) */
  GHashTable *pos = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < members->len; i++)
    if (!g_hash_table_contains (pos, &g_array_index (members, gint64, i)))
      g_hash_table_insert (pos, &g_array_index (members, gint64, i), GUINT_TO_POINTER (i + 1));
  g_hash_table_insert (m->subset_pos, g_memdup2 (&id, sizeof id), pos);
  /* a collective over it that waited for its members may be complete */
  if (id != -1)
    picl_recheck_collectives (m, id);
  return FALSE;
}

static guint sorted_upto (const GArray *members, gint64 me);

/* The position + 1 of each member of subset (the first where it is listed
 * twice); for -1 of each module, in increasing order.  NULL while the
 * members are not known. */
static GHashTable *
member_pos (PiclModel *m, gint64 subset)
{
  if (subset != -1)
    return g_hash_table_lookup (m->subset_pos, &subset);
  const GArray *all = viper_model_modules (&m->base);
  if (!all)
    return NULL;
  if (!m->all_pos_made || m->all_pos_gen != m->modules_gen)
    {
      g_clear_pointer (&m->all_pos, g_hash_table_unref);
      m->all_pos_made = TRUE;
      m->all_pos_gen = m->modules_gen;
      for (guint i = 1; i < all->len; i++)
        if (g_array_index (all, gint64, i) <= g_array_index (all, gint64, i - 1))
          return NULL;          /* the ranks are sorted_upto's: only for increasing modules */
      m->all_pos = g_hash_table_new (g_int64_hash, g_int64_equal);
      for (guint i = 0; i < all->len; i++)
        g_hash_table_insert (m->all_pos, &g_array_index (all, gint64, i), GUINT_TO_POINTER (i + 1));
    }
  return m->all_pos;
}

/* Place the begins of a prefix instance that arrived since, by position,
 * and extend pre_len over the positions that all have theirs.  *from: the
 * pre_len before (0 when the cache was made now).  FALSE when the cache
 * cannot answer: the members are not known, or over -1 a begin came from
 * a processor that is no module (picl_collective_wait looks at every begin
 * then, as it did for every wait before). */
static gboolean
prefix_fold (PiclModel *m, Inst *inst, guint *from)
{
  gint64 subset = inst->key.subset;
  const GArray *members = picl_subset_members (m, subset);
  GHashTable *pos = members ? member_pos (m, subset) : NULL;
  *from = 0;
  if (!pos)
    return FALSE;
  if (inst->pre_made && (inst->pre_n != members->len || (subset == -1 && inst->pre_gen != m->modules_gen)))
    {
      /* over -1, the modules changed (live input, or the run learnt them again) */
      g_clear_pointer (&inst->pre_seen, g_free);
      g_clear_pointer (&inst->pre_w, g_free);
      inst->pre_made = FALSE;
    }
  if (!inst->pre_made)
    {
      inst->pre_made = TRUE;
      inst->pre_irregular = FALSE;
      inst->pre_done = inst->pre_len = 0;
      inst->pre_n = members->len;
      inst->pre_gen = m->modules_gen;
      inst->pre_seen = g_new0 (guint8, inst->pre_n);
      inst->pre_w = g_new (double, inst->pre_n);
    }
  *from = inst->pre_len;
  for (; inst->pre_done < inst->begins->len; inst->pre_done++)
    {
      const InstBegin *b = &g_array_index (inst->begins, InstBegin, inst->pre_done);
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (pos, &b->proc));
      if (!at)
        {
          /* outside a subset it counts for nobody; over -1 for the ends above it */
          if (subset == -1)
            inst->pre_irregular = TRUE;
          continue;
        }
      if (inst->pre_seen[at - 1])
        continue;               /* (one begin per member and instance) */
      inst->pre_seen[at - 1] = 1;
      inst->pre_w[at - 1] = b->adjusted;
    }
  for (; inst->pre_len < inst->pre_n && inst->pre_seen[inst->pre_len]; inst->pre_len++)
    if (inst->pre_len && inst->pre_w[inst->pre_len - 1] > inst->pre_w[inst->pre_len])
      inst->pre_w[inst->pre_len] = inst->pre_w[inst->pre_len - 1];
  return !inst->pre_irregular;
}

/* A processor that is no member of -1 though every processor is known:
 * live input made them known at a pause, and its lines came after
 * (core/join.c does the same).  Its collectives over -1 join no instance:
 * the first ones were done without it, and the run has already held its
 * later ends for the others' begins. */
static gboolean
late_for_all (const PiclModel *m, gint64 subset, gint64 proc)
{
  const GArray *all = subset == -1 ? viper_model_modules (&m->base) : NULL;
  return all && !sorted_upto (all, proc);
}

gboolean
picl_collective_begin (PiclModel *m, Proc *p, const ViperTram *t)
{
  Call c = { .ev = t->ev, .kind = CALL_COLL, .want_src = -1, .want_tag = -1 };
  c.subset = viper_picl_collective_subset (t);
  c.root = viper_picl_collective_root (t);
  MapSlot *n = map_insert (&m->coll_counts, p->id, t->ev, c.subset, NULL);
  c.k = n->v0++;
  if (late_for_all (m, c.subset, p->id))
    return picl_begin_call (m, p, t, &c);
  Inst *i = picl_inst_get (m, t->ev, c.subset, c.k, TRUE);
  InstBegin b = { p->id, t->adjusted };
  g_array_append_val (i->begins, b);
  /* a member waiting in this collective may stop being idle: only when
   * this begin is the last one its wait lacks (looking at every member at
   * every begin made a barrier of P members cost P^2: 4,096 ranks, 64
   * barriers took 10 s) */
  ViperPiclShape shape = viper_picl_collective_shape (t->ev);
  gboolean wake = TRUE;
  if (shape == VIPER_PICL_SHAPE_ONE_TO_ALL)
    wake = p->id == c.root;                 /* the others wait for the root alone */
  else if (shape == VIPER_PICL_SHAPE_ALL_TO_ONE || shape == VIPER_PICL_SHAPE_ALL_TO_ALL)
    {
      /* every waiter (the root of an all-to-one) waits for every member */
      Call all = c;
      guint missing = 1;
      picl_collective_wait (m, i, &all, shape == VIPER_PICL_SHAPE_ALL_TO_ONE ? c.root : p->id, &missing, TRUE);
      wake = missing == 0;
      if (wake && shape == VIPER_PICL_SHAPE_ALL_TO_ONE)
        {
          Proc *r = c.root != p->id ? picl_proc_find (m, c.root) : NULL;
          if (r && r->state == VIPER_PICL_IDLE)
            picl_set_provisional (m, r);
          wake = FALSE;
        }
    }
  else if (shape == VIPER_PICL_SHAPE_PREFIX)
    {
      /* member q waits for the begins at positions 0..q: those whose
       * positions this begin completed may stop waiting, and the processors
       * outside the subset (they wait for every member) when it completed
       * them all.  Looking at every member at every begin made a scan of P
       * members cost P^2. */
      guint from;
      if (prefix_fold (m, i, &from))
        {
          const GArray *members = picl_subset_members (m, c.subset);
          for (guint q = from; q < i->pre_len; q++)
            {
              Proc *r = picl_proc_find (m, g_array_index (members, gint64, q));
              if (r && r != p && r->state == VIPER_PICL_IDLE)
                picl_set_provisional (m, r);
            }
          wake = from < i->pre_n && i->pre_len == i->pre_n;
        }
      else if (!picl_subset_members (m, c.subset))
        wake = FALSE;           /* no wait ends before the members are known */
    }
  for (guint k = 0; wake && k < i->begins->len; k++)
    {
      Proc *q = picl_proc_find (m, g_array_index (i->begins, InstBegin, k).proc);
      if (q && q != p && q->state == VIPER_PICL_IDLE)
        picl_set_provisional (m, q);
    }
  p = picl_proc_find (m, t->proc);
  return picl_begin_call (m, p, t, &c);
}

/* The position + 1 of `me` among the sorted members (the processors <= me), 0 when not one. */
static guint
sorted_upto (const GArray *members, gint64 me)
{
  guint lo = 0, hi = members->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (members, gint64, mid) <= me)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 && g_array_index (members, gint64, lo - 1) == me ? lo : 0;
}

/* Latest adjusted time among the begins the end of member `me` depends on;
 * *missing counts the begins it depends on that were not applied, at least
 * 1 while the members are not known (an undefined subset, or -1 before the
 * input ended): then it still waits, whatever line order brought which
 * begins first (spec section 3).  exact FALSE: only whether *missing is 0
 * counts (a waiting member looked at again), and a prefix wait that lacks
 * a begin answers 1 at once. */
double
picl_collective_wait (PiclModel *m, Inst *inst, const Call *c, gint64 me, guint *missing, gboolean exact)
{
  ViperPiclShape shape = viper_picl_collective_shape (c->ev);
  const GArray *members = picl_subset_members (m, c->subset);
  double w = -INFINITY;
  *missing = 0;
  if (shape == VIPER_PICL_SHAPE_ONE_TO_ALL || (shape == VIPER_PICL_SHAPE_ALL_TO_ONE && me != c->root))
    {
      gint64 need = shape == VIPER_PICL_SHAPE_ONE_TO_ALL ? c->root : me;
      for (guint i = 0; i < inst->begins->len; i++)
        if (g_array_index (inst->begins, InstBegin, i).proc == need)
          return g_array_index (inst->begins, InstBegin, i).adjusted;
      *missing = 1;
      return w;
    }
  /* all-to-all, the root of all-to-one, prefix: over (a prefix of) the members */
  gboolean all = c->subset == -1;   /* members sorted, every begin is from one */
  gint64 limit = G_MAXINT64;        /* prefix over -1: the processors up to me */
  guint upto = members ? members->len : 0;
  GHashTable *pos = members && !all ? g_hash_table_lookup (m->subset_pos, &c->subset) : NULL;
  guint at = 0;                     /* prefix: my position + 1 among the members (0: not one) */
  if (shape == VIPER_PICL_SHAPE_PREFIX)
    {
      if (pos)
        at = GPOINTER_TO_UINT (g_hash_table_lookup (pos, &me));
      else
        {
          limit = me;
          if (members)
            {
              GHashTable *ranks = member_pos (m, -1);
              at = ranks ? GPOINTER_TO_UINT (g_hash_table_lookup (ranks, &me)) : sorted_upto (members, me);
            }
        }
      if (at)
        upto = at;
    }
  if (shape != VIPER_PICL_SHAPE_PREFIX)
    {
      /* every member counts: fold the begins that arrived since the last wait */
      Inst *agg = inst;           /* the aggregate is a cache of the append-only begins */
      for (; agg->agg_done < agg->begins->len; agg->agg_done++)
        {
          const InstBegin *b = &g_array_index (agg->begins, InstBegin, agg->agg_done);
          if (pos && !g_hash_table_lookup (pos, &b->proc))
            continue;
          agg->agg_seen++;
          if (b->adjusted > agg->agg_w)
            agg->agg_w = b->adjusted;
        }
      *missing = !members ? 1 : upto > agg->agg_seen ? upto - agg->agg_seen : 0;
      return agg->agg_w;
    }
  /* prefix: when the positions up to mine all have their begin, the
   * latest of them is kept (prefix_fold); for a member of -1, mine is its
   * rank among the modules, and the begins up to me are the modules' up to
   * me.  Else (a begin missing, or a processor that is no member of -1)
   * look at every begin: a waiting end that asks only whether any is
   * missing (exact FALSE) is told so without. */
  guint from;
  if (prefix_fold (m, inst, &from) && (!all || at))
    {
      if (upto <= inst->pre_len)
        return upto ? inst->pre_w[upto - 1] : -INFINITY;
      if (!exact)
        {
          *missing = 1;
          return w;
        }
    }
  else if (!exact && !members)
    {
      *missing = 1;
      return w;
    }
  guint seen = 0;
  for (guint i = 0; i < inst->begins->len; i++)
    {
      const InstBegin *b = &g_array_index (inst->begins, InstBegin, i);
      gboolean counts;
      if (pos)
        {
          guint at = GPOINTER_TO_UINT (g_hash_table_lookup (pos, &b->proc));
          counts = at && at <= upto;
        }
      else
        counts = b->proc <= limit;
      seen += counts;
      if (counts && b->adjusted > w)
        w = b->adjusted;
    }
  *missing = !members ? 1 : upto > seen ? upto - seen : 0;
  return w;
}

gboolean
picl_collective_end (PiclModel *m, Proc *p, const ViperTram *t)
{
  gint idx = picl_find_call (p, t->ev, G_MININT64, 0);
  if (idx < 0)
    return picl_end_call (m, p, t, -1, NAN);
  const Call *c = &p->calls.v[idx];
  Inst *inst = late_for_all (m, c->subset, p->id) ? NULL : picl_inst_get (m, c->ev, c->subset, c->k, FALSE);
  double w = NAN;
  if (inst)
    {
      guint missing = 0;
      w = picl_collective_wait (m, inst, c, p->id, &missing, TRUE);
      /* members not known (the run claims no end before they are): say nothing */
      if (missing && picl_subset_members (m, c->subset))
        viper_model_inconsistent (&m->base, t, "end of %s %" G_GINT64_FORMAT " over subset %" G_GINT64_FORMAT
                                  " before %u begin%s it depends on", picl_ev_name (c->ev), c->k + 1, c->subset,
                                  missing, missing == 1 ? "" : "s");
      inst->ends++;
      const GArray *members = picl_subset_members (m, c->subset);
      guint n = members ? members->len : m->procs->len;
      if (inst->ends >= n && inst->ends >= inst->begins->len)
        g_hash_table_remove (m->insts, &inst->key);
    }
  return picl_end_call (m, p, t, idx, w);
}
