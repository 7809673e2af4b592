/* picl-snapshot.c - checkpoints of the picl model (core/model.h, seek).
 *
 * A snapshot is a deep copy of the model's tables: processors with their
 * open calls and spans, the (a, b, c) maps (flat slot arrays, copied whole),
 * the sends underway, the open collectives.  Subsets never change once
 * defined, so their member arrays are shared by reference and the position
 * tables rebuilt on restore.
 *
 * The picl model also edits history entries in place after appending them:
 * a message arrow is completed at its receive, and a group's first state
 * entry is corrected when the group ends.  The base restores the history
 * from a later version of it (core/model.c), so the snapshot keeps those
 * entries as they were - every send's arrow and every processor's group
 * entry - and restore writes them back.
 */
#include "picl-model-priv.h"

typedef struct {
  guint64 pos;
  ViperHistoryEntry e;
} SavedEntry;

typedef struct {
  gboolean any_applied;
  guint n_tracing, n_started, n_subsets, n_open_groups;
  guint64 messages, unreceived;
  double last_stop, first_time;
  GArray *procs;            /* of Proc, calls and spans copied */
  Map proc_index, channels, counts, requests, coll_counts, seen;
  GArray *pending;
  gint32 free_pending;
  GArray *subset_ids;       /* gint64 */
  GPtrArray *subset_members;/* GArray* (referenced) */
  GPtrArray *insts;         /* Inst*, begins copied */
  ChangeVec decided;
  GArray *entries;          /* SavedEntry */
} PiclSnap;

static void
map_copy (Map *dst, const Map *src)
{
  dst->cap = src->cap;
  dst->n = src->n;
  dst->s = src->s ? g_memdup2 (src->s, (gsize) src->cap * sizeof (MapSlot)) : NULL;
}

static GArray *
procs_copy (const GArray *src)
{
  GArray *dst = g_array_copy ((GArray *) src);
  for (guint i = 0; i < dst->len; i++)
    {
      Proc *p = &g_array_index (dst, Proc, i);
      const Proc *q = &g_array_index (src, Proc, i);
      PICL_VEC_COPY (&p->calls, &q->calls);
      PICL_VEC_COPY (&p->spans, &q->spans);
    }
  return dst;
}

static void
procs_unref (GArray *procs)
{
  for (guint i = 0; i < procs->len; i++)
    {
      Proc *p = &g_array_index (procs, Proc, i);
      g_free (p->calls.v);
      g_free (p->spans.v);
    }
  g_array_unref (procs);
}

static Inst *
inst_copy (const Inst *i)
{
  Inst *n = g_memdup2 (i, sizeof *i);
  n->begins = g_array_copy (i->begins);
  /* the prefix cache is made again from the begins when it is needed */
  n->pre_made = FALSE;
  n->pre_irregular = FALSE;
  n->pre_done = n->pre_n = n->pre_len = 0;
  n->pre_seen = NULL;
  n->pre_w = NULL;
  return n;
}

static void
save_entry (const PiclModel *m, GArray *entries, guint64 pos)
{
  const ViperHistoryEntry *e = viper_model_history_at (&m->base, pos);
  if (!e)
    return;
  SavedEntry s = { pos, *e };
  g_array_append_val (entries, s);
}

gpointer
picl_snapshot (const ViperModel *base, gsize *bytes)
{
  const PiclModel *m = (const PiclModel *) base;
  PiclSnap *s = g_new0 (PiclSnap, 1);
  s->any_applied = m->any_applied;
  s->n_tracing = m->n_tracing;
  s->n_started = m->n_started;
  s->n_subsets = m->n_subsets;
  s->n_open_groups = m->n_open_groups;
  s->messages = m->messages;
  s->unreceived = m->unreceived;
  s->last_stop = m->last_stop;
  s->first_time = m->first_time;
  s->procs = procs_copy (m->procs);
  map_copy (&s->proc_index, &m->proc_index);
  map_copy (&s->channels, &m->channels);
  map_copy (&s->counts, &m->counts);
  map_copy (&s->requests, &m->requests);
  map_copy (&s->coll_counts, &m->coll_counts);
  map_copy (&s->seen, &m->seen);
  s->pending = g_array_copy (m->pending);
  s->free_pending = m->free_pending;
  s->subset_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  s->subset_members = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  gsize b = sizeof *s;
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, m->subsets);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      g_array_append_val (s->subset_ids, *(gint64 *) k);
      g_ptr_array_add (s->subset_members, g_array_ref (v));
      b += 24;
    }
  s->insts = g_ptr_array_new_with_free_func (picl_inst_free);
  g_hash_table_iter_init (&it, m->insts);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      g_ptr_array_add (s->insts, inst_copy (v));
      b += sizeof (Inst) + ((Inst *) v)->begins->len * sizeof (InstBegin);
    }
  PICL_VEC_COPY (&s->decided, &m->decided);
  s->entries = g_array_new (FALSE, FALSE, sizeof (SavedEntry));
  for (guint i = 0; i < m->pending->len; i++)
    save_entry (m, s->entries, g_array_index (m->pending, Pending, i).arrow);
  for (guint i = 0; i < m->procs->len; i++)
    save_entry (m, s->entries, g_array_index (m->procs, Proc, i).group_pos);
  for (guint i = 0; i < s->procs->len; i++)
    {
      const Proc *p = &g_array_index (s->procs, Proc, i);
      b += sizeof (Proc) + p->calls.len * sizeof (Call) + p->spans.len * sizeof (Span);
    }
  b += (gsize) (s->proc_index.cap + s->channels.cap + s->counts.cap + s->requests.cap + s->coll_counts.cap + s->seen.cap)
       * sizeof (MapSlot);
  b += s->pending->len * sizeof (Pending) + s->decided.len * sizeof (ViperPiclChange)
       + s->entries->len * sizeof (SavedEntry);
  *bytes = b;
  return s;
}

void
picl_restore (ViperModel *base, gconstpointer snap)
{
  PiclModel *m = (PiclModel *) base;
  const PiclSnap *s = snap;
  m->any_applied = s->any_applied;
  m->n_tracing = s->n_tracing;
  m->n_started = s->n_started;
  m->n_subsets = s->n_subsets;
  m->n_open_groups = s->n_open_groups;
  m->messages = s->messages;
  m->unreceived = s->unreceived;
  m->last_stop = s->last_stop;
  m->first_time = s->first_time;
  procs_unref (m->procs);
  m->procs = procs_copy (s->procs);
  map_clear (&m->proc_index);
  map_copy (&m->proc_index, &s->proc_index);
  map_clear (&m->channels);
  map_copy (&m->channels, &s->channels);
  map_clear (&m->counts);
  map_copy (&m->counts, &s->counts);
  map_clear (&m->requests);
  map_copy (&m->requests, &s->requests);
  map_clear (&m->coll_counts);
  map_copy (&m->coll_counts, &s->coll_counts);
  map_clear (&m->seen);
  map_copy (&m->seen, &s->seen);
  g_array_set_size (m->pending, 0);
  g_array_append_vals (m->pending, s->pending->data, s->pending->len);
  m->free_pending = s->free_pending;
  picl_proc_cache_clear (m);
  g_hash_table_remove_all (m->subset_pos);
  g_hash_table_remove_all (m->subsets);
  for (guint i = 0; i < s->subset_ids->len; i++)
    {
      gint64 id = g_array_index (s->subset_ids, gint64, i);
      GArray *members = s->subset_members->pdata[i];
      g_hash_table_insert (m->subsets, g_memdup2 (&id, sizeof id), g_array_ref (members));
      GHashTable *pos = g_hash_table_new (g_int64_hash, g_int64_equal);
      for (guint k = 0; k < members->len; k++)
        if (!g_hash_table_contains (pos, &g_array_index (members, gint64, k)))
          g_hash_table_insert (pos, &g_array_index (members, gint64, k), GUINT_TO_POINTER (k + 1));
      g_hash_table_insert (m->subset_pos, g_memdup2 (&id, sizeof id), pos);
    }
  g_hash_table_remove_all (m->insts);
  for (guint i = 0; i < s->insts->len; i++)
    {
      Inst *n = inst_copy (s->insts->pdata[i]);
      g_hash_table_insert (m->insts, &n->key, n);
    }
  g_free (m->decided.v);
  PICL_VEC_COPY (&m->decided, &s->decided);
  /* the entries edited in place since, as they were */
  for (guint i = 0; i < s->entries->len; i++)
    {
      const SavedEntry *se = &g_array_index (s->entries, SavedEntry, i);
      ViperHistoryEntry *e = (ViperHistoryEntry *) viper_model_history_at (base, se->pos);
      if (e)
        {
          viper_model_history_set_state (base, se->pos, se->e.state);   /* and its ref's copy */
          *e = se->e;
        }
    }
}

void
picl_snapshot_free (gpointer snap)
{
  PiclSnap *s = snap;
  procs_unref (s->procs);
  map_clear (&s->proc_index);
  map_clear (&s->channels);
  map_clear (&s->counts);
  map_clear (&s->requests);
  map_clear (&s->coll_counts);
  map_clear (&s->seen);
  g_array_unref (s->pending);
  g_array_unref (s->subset_ids);
  g_ptr_array_unref (s->subset_members);
  g_ptr_array_unref (s->insts);
  g_free (s->decided.v);
  g_array_unref (s->entries);
  g_free (s);
}
