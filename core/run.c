/* run.c - causal reconstruction: sequence lists and the merge.
 *
 * The pipeline of one sequence list L, in sequence order:
 *
 *   [transferred] head .. [claimed] .. claim .. [QUEUED, unclaimed] .. tail   [INITIAL above the cut]
 *
 * Inserting puts a tram in its list (core/seqlist.c: the cut); claiming, the
 * thesis's primitive builder (5.1.2), walks L's queue in order and ties
 * requests to replies across lists (core/run-claim.c).
 *
 * Transfer: only the head of a list can leave.  It is ready when claimed and
 * its cross-dependency (the tram of the slot it waits for) is transferred;
 * then its adjusted time t' = max(t + offset, t' of its predecessors) is fixed
 * and it enters a min-heap on t'.  viper_run_transfer_next() pops the heap,
 * updates the offset (raise to t' - t if needed, then multiply by decay) and
 * the clock, and wakes the trams that waited for it.  A primitive remembers
 * the adjusted time of its transferred slots so a late partner tram still
 * finds its dependency's time after that tram has been released.
 */
#include <math.h>
#include <string.h>
#include "run-priv.h"
#include "model.h"
#include "join.h"
#include "heap.h"

static void
rejected_lines_free (gpointer p)
{
  RejectedLines *rl = p;
  g_string_free (rl->text, TRUE);
  g_free (rl);
}

/* ---- helpers --------------------------------------------------------------- */

ViperSeqList *
viper_run_list_get (ViperRun *run, gint64 proc, gboolean create)
{
  if (run->last_list && run->last_list->proc == proc)
    return run->last_list;
  gboolean small = proc >= -1 && proc < DIRECT_LISTS - 1;
  ViperSeqList *l = small ? run->direct[proc + 1] : g_hash_table_lookup (run->lists, &proc);
  if (!l && create)
    {
      l = g_new (ViperSeqList, 1);
      viper_seqlist_init (l, proc);
      viper_seqlist_set_pool (l, run->pool);
      /* a tram at the cut waits packed behind as many unclaimed ones as a
       * claim window holds (VIPER_CLAIM_WINDOW=1 in the tests: behind one) */
      l->defer_at = run->claim_window_default;
      g_hash_table_insert (run->lists, &l->proc, l);
      g_clear_pointer (&run->procs_sorted, g_array_unref);
      if (small)
        run->direct[proc + 1] = l;
      if (run->join)
        viper_join_add_module (run->join, proc);
    }
  if (l)
    run->last_list = l;
  return l;
}

static void
release_tram (ViperTram *t, gpointer data)
{
  viper_tram_pool_release (data, t);
}

/* ---- heap ------------------------------------------------------------------ */

static inline gboolean
heap_less (const HeapEnt *a, const HeapEnt *b)
{
  if (a->adjusted != b->adjusted)
    return a->adjusted < b->adjusted;
  if (a->proc != b->proc)
    return a->proc < b->proc;
  return a->seq < b->seq;
}

static void
heap_push (ViperRun *run, ViperSeqList *l, ViperTram *t)
{
  if (G_UNLIKELY (run->heap_len == run->heap_cap))
    {
      run->heap_cap = run->heap_cap ? 2 * run->heap_cap : 256;
      run->heap = g_renew (HeapEnt, run->heap, run->heap_cap);
    }
  HeapEnt e = { t->adjusted, t->proc, t->seq, t, l };
  HeapEnt *h = run->heap;
  guint i = run->heap_len++;
  if (run->any_order)         /* any order: a stack */
    h[i] = e;
  else
    VIPER_HEAP_SIFT_UP (h, i, e, heap_less);
}

static ViperTram *
heap_pop (ViperRun *run, ViperSeqList **list)
{
  if (!run->heap_len)
    return NULL;
  HeapEnt *h = run->heap;
  guint n = --run->heap_len;
  if (run->any_order)
    {
      *list = h[n].l;
      return h[n].t;
    }
  ViperTram *top = h[0].t;
  *list = h[0].l;
  if (!n)
    return top;
  HeapEnt last = h[n];
  VIPER_HEAP_SIFT_DOWN (h, n, last, heap_less);
  return top;
}

/* ---- readiness ------------------------------------------------------------- */

/* t is the head of l: if claimed and not waiting, fix its adjusted time and
 * let it into the heap. */
void
viper_run_maybe_ready (ViperRun *run, ViperSeqList *l, ViperTram *t)
{
  if (t != l->head || t->waits || !(t->flags & VIPER_TRAM_F_CLAIMED) || t->state == VIPER_TRAM_READY)
    return;
  double adj = t->time + l->offset;
  if (t->adjusted > adj)         /* holds the max of the cross-dependencies' t' */
    adj = t->adjusted;
  if (l->last_adjusted > adj)    /* the sequence predecessor */
    adj = l->last_adjusted;
  t->adjusted = adj;
  t->state = VIPER_TRAM_READY;
  heap_push (run, l, t);
  /* On shuffled input the trams of a list lie anywhere in memory; when t
   * leaves, its successor and the trams it wakes are looked at next. */
  if (t->next)
    viper_tram_prefetch (t->next);
  if (t->prim && ((Prim *) t->prim)->entries[t->slot].waiters)
    viper_tram_prefetch (((Prim *) t->prim)->entries[t->slot].waiters);
}

static void
wake_waiters (ViperRun *run, ViperTram *first, double adjusted)
{
  for (ViperTram *w = first; w;)
    {
      ViperTram *n = w->waiter_next;
      w->waiter_next = NULL;
      if (w->adjusted < adjusted)
        w->adjusted = adjusted;
      w->waits--;
      if (!w->waits)
        viper_run_maybe_ready (run, viper_run_list_get (run, w->proc, FALSE), w);
      w = n;
    }
}

/* A collective's end whose begins have all left (core/join.c). */
static void
join_ready (ViperTram *t, gpointer data)
{
  ViperRun *run = data;
  viper_run_maybe_ready (run, viper_run_list_get (run, t->proc, FALSE), t);
}

guint
viper_run_release_after_input (ViperRun *run)
{
  guint n = run->after_input->len;
  if (!n)
    return 0;
  /* in reading order: a later one of the same list waits behind its predecessor anyway */
  GPtrArray *a = run->after_input;
  run->after_input = g_ptr_array_new ();
  for (guint i = 0; i < a->len; i++)
    {
      ViperTram *t = a->pdata[i];
      t->waits--;
      if (!t->waits)
        viper_run_maybe_ready (run, viper_run_list_get (run, t->proc, FALSE), t);
    }
  g_ptr_array_unref (a);
  return n;
}

gboolean
viper_run_waits_for_input (const ViperRun *run, const ViperTram *t)
{
  for (guint i = 0; i < run->after_input->len; i++)
    if (run->after_input->pdata[i] == t)
      return TRUE;
  return FALSE;
}

/* ---- public API ------------------------------------------------------------ */

gboolean
viper_run_input_end (ViperRun *run)
{
  if (run->input_ended)
    return FALSE;
  run->input_ended = TRUE;
  if (run->join)
    {
      viper_join_modules_final (run->join, run->resume);
      viper_run_drain_resume (run);
    }
  return TRUE;
}

gboolean
viper_run_wants_modules (const ViperRun *run)
{
  return run->join && viper_join_wants_modules (run->join);
}

gboolean
viper_run_end_waits_for_modules (const ViperRun *run)
{
  return run->join && viper_join_end_waits_for_modules (run->join);
}

void
viper_run_modules_known (ViperRun *run, const GArray *procs)
{
  if (!run->join)
    return;
  for (guint i = 0; i < procs->len; i++)
    viper_join_add_module (run->join, g_array_index (procs, gint64, i));
  viper_join_modules_final (run->join, run->resume);
  viper_run_drain_resume (run);
}

gboolean
viper_run_input_ended (const ViperRun *run)
{
  return run->input_ended;
}

ViperRun *
viper_run_new (const ViperParadigm *paradigm, const ViperModel *model, ViperTramPool *pool,
               ViperChannels *channels, ViperDiag *diag, double decay)
{
  g_return_val_if_fail (paradigm && pool, NULL);
  ViperRun *run = g_new0 (ViperRun, 1);
  run->paradigm = paradigm;
  run->model = model;
  run->pool = pool;
  run->channels = channels;
  run->diag = diag;
  run->decay = CLAMP (decay, 0.0, 1.0);
  run->lists = g_hash_table_new (g_int64_hash, g_int64_equal);
  viper_buckets_init (&run->buckets);
  run->rejected_at = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, rejected_lines_free);
  run->after_input = g_ptr_array_new ();
  run->uninterpreted_at = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, rejected_lines_free);
  run->resume = g_ptr_array_new ();
  run->held = g_ptr_array_new ();
  run->held_spare = g_ptr_array_new ();
  run->claim_window_default = viper_run_claim_window_env ();
  run->claim_window = run->claim_window_default;
  run->clock = -INFINITY;
  run->join = paradigm->join ? viper_join_new (paradigm->join) : NULL;
  if (run->join && paradigm->join->may_join)
    {
      run->type_joins = g_new (guint8, MAX (paradigm->n_types, 1));
      for (guint i = 0; i < paradigm->n_types; i++)
        run->type_joins[i] = (guint8) paradigm->join->may_join (paradigm->types[i].rec, paradigm->types[i].ev);
    }
  run->max_pending = VIPER_RUN_DEFAULT_MAX_PENDING;
  run->max_procs = VIPER_RUN_DEFAULT_MAX_PROCS;
  return run;
}

static void
clear_all (ViperRun *run)
{
  if (run->last_out)
    {
      viper_tram_pool_release (run->pool, run->last_out);
      run->last_out = NULL;
    }
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, run->lists);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      viper_seqlist_clear (v, release_tram, run->pool);
      g_free (v);
    }
  g_hash_table_remove_all (run->lists);
  g_clear_pointer (&run->procs_sorted, g_array_unref);
  run->last_list = NULL;
  memset (run->direct, 0, sizeof run->direct);
  for (guint i = 0; i < run->buckets.cap; i++)
    for (Expect *e = run->buckets.slots[i].head; e;)
      {
        Expect *n = e->next;
        g_free (e);
        e = n;
      }
  viper_buckets_clear (&run->buckets);
  while (run->free_expects)
    {
      Expect *n = run->free_expects->next;
      g_free (run->free_expects);
      run->free_expects = n;
    }
  while (run->prims)
    {
      Prim *n = run->prims->next;
      g_free (run->prims);
      run->prims = n;
    }
  viper_run_prim_free_all (run);
  run->heap_len = 0;
  g_ptr_array_set_size (run->resume, 0);
  g_ptr_array_set_size (run->held, 0);
  g_hash_table_remove_all (run->rejected_at);
  g_hash_table_remove_all (run->uninterpreted_at);
  g_ptr_array_set_size (run->after_input, 0);
  run->clock = -INFINITY;
  memset (&run->counts, 0, sizeof run->counts);
  if (run->join)
    viper_join_reset (run->join);
  run->input_ended = FALSE;
}

void
viper_run_free (ViperRun *run)
{
  if (!run)
    return;
  clear_all (run);
  viper_join_free (run->join);
  g_hash_table_destroy (run->lists);
  g_clear_pointer (&run->procs_sorted, g_array_unref);
  g_hash_table_destroy (run->rejected_at);
  g_hash_table_destroy (run->uninterpreted_at);
  g_ptr_array_unref (run->after_input);
  g_free (run->heap);
  g_free (run->type_joins);
  g_ptr_array_free (run->resume, TRUE);
  g_ptr_array_free (run->held, TRUE);
  g_ptr_array_free (run->held_spare, TRUE);
  g_free (run);
}

void
viper_run_reset (ViperRun *run)
{
  clear_all (run);
}

/* Classify t (its type and flags, its sequence number when the paradigm
 * carries them) and check it against the paradigm's rules.  NULL when it
 * passes; else why not (to free), the column to name and whether its
 * sequence number counts as used.  Nothing changes but t. */
static inline __attribute__ ((always_inline)) char *
classify_check (ViperRun *run, ViperTram *t, guint *column, gboolean *passes, const ViperTramType **type)
{
  *passes = TRUE;
  /* unsigned: REC and EV are any 32-bit values, and signed overflow is undefined */
  guint slot = ((guint32) t->rec * 31u + (guint32) t->ev) & 63u;
  if (t->flags & VIPER_TRAM_F_WIDE)
    t->type = VIPER_TYPE_UNKNOWN;
  else if (run->type_cache[slot].valid && run->type_cache[slot].rec == t->rec && run->type_cache[slot].ev == t->ev)
    t->type = run->type_cache[slot].type;
  else
    {
      t->type = viper_paradigm_type_index (run->paradigm, t->rec, t->ev);
      run->type_cache[slot].rec = t->rec;
      run->type_cache[slot].ev = t->ev;
      run->type_cache[slot].type = t->type;
      run->type_cache[slot].valid = TRUE;
    }
  const ViperTramType *tt = tram_type (run, t);
  t->flags &= (guint8) ~VIPER_TRAM_F_UNINTERPRETED;
  if (tt && t->ndata && t->dtype != VIPER_DTYPE_INT && !run->paradigm->exact_ndata && !run->paradigm->explicit_seq
      && (tt->min_ndata || tt->role != VIPER_ROLE_FREE || (run->type_joins && run->type_joins[t->type])))
    {
      /* A known type whose data the paradigm reads, in a format it does not
       * interpret (spec section 1: keep the raw text, do not fail): the whole
       * tram is uninterpreted, as an unknown one (ignored, passed through),
       * never matched or applied on data it does not have.  A tram left
       * waiting for it names it (viper_run_insert). */
      t->type = VIPER_TYPE_UNKNOWN;
      t->flags |= VIPER_TRAM_F_UNINTERPRETED;
      tt = NULL;
    }
  /* an exact count is said as one whether the line has too few or too many */
  if (tt && t->ndata < tt->min_ndata)
    {
      *column = t->raw_len + 1;
      return g_strdup_printf ("%s needs %s %u data field%s, has %u", tt->name,
                              run->paradigm->exact_ndata ? "exactly" : "at least", tt->min_ndata,
                              tt->min_ndata == 1 ? "" : "s", t->ndata);
    }
  if (tt && run->paradigm->exact_ndata)
    {
      if (t->ndata != tt->min_ndata)
        {
          *column = viper_run_data_column (t, tt->min_ndata);
          return g_strdup_printf ("%s needs exactly %u data field%s, has %u", tt->name,
                                  tt->min_ndata, tt->min_ndata == 1 ? "" : "s", t->ndata);
        }
      if (t->ndata && t->dtype != VIPER_DTYPE_INT)
        {
          *column = viper_run_data_column (t, 0);
          return g_strdup_printf ("%s needs integer data (DTYPE 2)", tt->name);
        }
    }
  if (tt && run->paradigm->validate)
    {
      char reason[160] = "";
      guint field = 0;
      if (!run->paradigm->validate (t, &field, reason, sizeof reason))
        {
          *column = viper_run_data_column (t, field);
          return g_strdup (reason[0] ? reason : "violates the paradigm's rules");
        }
    }
  if (run->paradigm->explicit_seq)
    {
      if (t->dtype != VIPER_DTYPE_INT || t->ndata < 1)
        {
          *column = t->ndata ? viper_run_data_column (t, 0) : t->raw_len + 1;
          return g_strdup ("missing sequence number (D1)");
        }
      t->seq = viper_tram_data (t)[0];
      if (t->seq < 1)
        {
          *column = viper_run_data_column (t, 0);
          return g_strdup_printf ("sequence number %" G_GINT64_FORMAT " is not positive", t->seq);
        }
    }
  *type = tt;
  return NULL;
}

gboolean
viper_run_accepts (ViperRun *run, ViperTram *t)
{
  guint column;
  gboolean passes;
  const ViperTramType *tt;
  char *why = classify_check (run, t, &column, &passes, &tt);
  g_free (why);
  return why == NULL;
}

gboolean
viper_run_insert (ViperRun *run, ViperTram *t)
{
  run->counts.read++;
  if (run->last_out)
    {
      viper_tram_pool_release (run->pool, run->last_out);
      run->last_out = NULL;
    }
  guint column = 1;
  gboolean passes = TRUE;
  const ViperTramType *tt = NULL;
  char *why = classify_check (run, t, &column, &passes, &tt);
  if (G_UNLIKELY (why))
    {
      gboolean r = viper_run_reject_as (run, t, passes, column, "%s", why);
      g_free (why);
      return r;
    }
  if (!run->paradigm->explicit_seq)
    {
      /* the numbers are arrival order per channel (spec section 2): a
       * second channel's lines of a processor would number themselves again,
       * and those past the first channel's count would splice into its run.
       * Global records (PROC -1: subset definitions, one in each member's
       * file) have one counter over every channel (core/channels.c). */
      const ViperSeqList *known = t->proc == -1 ? NULL : viper_run_list_get (run, t->proc, FALSE);
      if (G_UNLIKELY (known && known->inserted && known->first_channel != t->channel))
        {
          const char *other = run->channels ? viper_channels_name (run->channels, known->first_channel) : NULL;
          return viper_run_reject_as (run, t, FALSE, 1,
                                      "proc %" G_GINT64_FORMAT " already has lines on %s (a native PICL processor's "
                                      "lines must come from one file or connection: spec section 2)",
                                      t->proc, other ? other : "another channel");
        }
      t->seq = run->channels ? viper_channels_next_seq (run->channels, t->channel, t->proc)
                             : (gint64) viper_run_proc_count (run, t->proc) + 1;
    }
  if (!tt)
    t->flags |= VIPER_TRAM_F_IGNORED;
  if (run->time_map)
    t->time = run->time_map (run->time_map_data, t->proc, t->seq, t->time);
  t->adjusted = -INFINITY;
  t->waits = 0;
  t->waiter_next = NULL;
  t->prim = NULL;
  t->flags &= (guint8) ~(VIPER_TRAM_F_CLAIMED | VIPER_TRAM_F_FREE);

  if (G_UNLIKELY (g_hash_table_size (run->lists) >= run->max_procs) && !viper_run_list_get (run, t->proc, FALSE))
    return viper_run_reject_as (run, t, FALSE, 1,
                      "a new PROC %" G_GINT64_FORMAT " past the bound of %" G_GUINT64_FORMAT
                      " modules (--max-procs): line not accepted", t->proc, run->max_procs);
  if (G_UNLIKELY (t->flags & VIPER_TRAM_F_UNINTERPRETED))
    /* a tram left waiting for it names it; past the bound of modules it
     * was refused above and kept nothing */
    viper_run_note_line (run->uninterpreted_at, t->proc, 0,
                         run->channels ? viper_channels_name (run->channels, t->channel) : "-", t->line);
  ViperSeqList *l = viper_run_list_get (run, t->proc, TRUE);
  if (G_UNLIKELY (run->counts.read - 1 - run->counts.transferred - run->counts.rejected >= run->max_pending)
      && (t->seq > l->next_seq || (l->claim && !l->held)))
    {
      /* Live memory is bounded.  A tram that would only wait (above a gap
       * in its module, or behind a claim that waits) is refused past the
       * bound, reported and counted like any bad line, never dropped
       * silently; a tram that can let others move is still taken. */
      char *why = viper_run_first_stuck_reason (run);
      /* not passed over (that would make a hole in the run), but named
       * where its module waits for it */
      viper_run_note_line (run->rejected_at, t->proc, t->seq,
                           run->channels ? viper_channels_name (run->channels, t->channel) : "-", t->line);
      gboolean r = viper_run_reject_as (run, t, FALSE, 1,
                              "%" G_GUINT64_FORMAT " %s pending, the bound (--max-pending): "
                              "line not accepted; %s", run->max_pending,
                              run->max_pending == 1 ? "tram is" : "trams are", why);
      g_free (why);
      return r;
    }
  ViperTram *first = NULL;
  guint32 channel = t->channel;   /* t may be packed and released by the insert */
  switch (viper_seqlist_insert (l, t, &first))
    {
    case VIPER_SEQ_DUPLICATE:
      return viper_run_reject_as (run, t, FALSE, run->paradigm->explicit_seq ? viper_run_data_column (t, 0) : 1,
                     "duplicate sequence number %" G_GINT64_FORMAT " for proc %" G_GINT64_FORMAT,
                     t->seq, t->proc);
    case VIPER_SEQ_INITIAL:
    case VIPER_SEQ_QUEUED:
      break;
    }
  if (!l->inserted)
    l->first_channel = channel;
  l->inserted++;
  l->in_flight++;
  if (first)
    {
      viper_run_advance_claims (run, l);
      viper_run_drain_resume (run);
    }
  return TRUE;
}

void
viper_run_prefetch (ViperRun *run, const ViperTram *t)
{
  /* while few trams wait, the slots they land in are in the cache anyway.
   * The scheduler asks only for paradigms with explicit sequence numbers
   * (without them a list's trams come in order and are never placed); for
   * others data[0] is no sequence number and the prefetch is merely wasted */
  if (run->counts.read - run->counts.transferred < PREFETCH_PENDING
      || t->dtype != VIPER_DTYPE_INT || t->ndata < 1)
    return;
  gboolean small = t->proc >= -1 && t->proc < DIRECT_LISTS - 1;
  ViperSeqList *l = small ? run->direct[t->proc + 1] : NULL;
  if (l)
    viper_seqlist_prefetch (l, viper_tram_data (t)[0]);
}

void
viper_run_count_rejected (ViperRun *run, guint64 n)
{
  run->counts.read += n;
  run->counts.rejected += n;
}

const ViperTram *
viper_run_peek (ViperRun *run)
{
  if (G_UNLIKELY (!run->heap_len) && run->held->len)
    viper_run_claims_force (run, FALSE);
  if (!run->heap_len)
    return NULL;
  return run->heap[run->any_order ? run->heap_len - 1 : 0].t;
}

const ViperTram *
viper_run_transfer_next (ViperRun *run)
{
  if (run->last_out)
    {
      viper_tram_pool_release (run->pool, run->last_out);
      run->last_out = NULL;
    }
  if (G_UNLIKELY (!run->heap_len) && run->held->len)
    viper_run_claims_force (run, FALSE);
  ViperSeqList *l = NULL;
  ViperTram *t = heap_pop (run, &l);
  if (!t)
    return NULL;
  g_assert (l && l->head == t);

  /* clock-offset decay (thesis 5.2) */
  double gap = t->adjusted - t->time;
  if (gap > l->offset)
    l->offset = gap;
  l->offset *= run->decay;
  /* a timeless tram (a global definition) keeps its adjusted time but is no
   * module's clock: it does not move the run's */
  if (t->adjusted > run->clock && !viper_paradigm_timeless (run->paradigm, t))
    run->clock = t->adjusted;
  t->state = VIPER_TRAM_TRANSFERRED;
  run->counts.transferred++;
  if (t->flags & VIPER_TRAM_F_IGNORED)
    run->counts.ignored++;
  l->in_flight--;

  /* leave the list; the successor inherits our t' as a lower bound */
  l->head = t->next;
  if (!l->head)
    l->tail = NULL;
  if (l->claim == t)
    l->claim = t->next;
  else if (l->claimed_ahead)
    l->claimed_ahead--;
  t->next = NULL;

  /* Its Lamport number: 1 + the largest of its sequence predecessor's and
   * of its causes' (the slot it waited for, the BEGINs of a collective it
   * ended), the same places that raised its adjusted time, so it depends
   * only on the trams and never on their line order.  Saturates (a chain of
   * 4 Gi trams). */
  guint32 lamport = l->last_lamport;
  gboolean joins = run->join && !(t->flags & VIPER_TRAM_F_UNINTERPRETED)
                   && (!run->type_joins || t->type == VIPER_TYPE_UNKNOWN || run->type_joins[t->type]);
  if (joins)
    {
      guint32 ends = viper_join_take_lamport (run->join, t);
      if (ends > lamport)
        lamport = ends;
    }
  run->cause_valid = FALSE;
  ViperTram *waiters = NULL;
  PrimEntry *pe = NULL;
  if (t->prim)
    {
      Prim *p = t->prim;
      pe = &p->entries[t->slot];
      const ViperSlot *sl = &p->profile->slots[pe->slot];
      if (sl->after != VIPER_NO_SLOT)
        {
          const PrimEntry *dep = &p->entries[p->slot_entry[sl->after]];
          if (dep->transferred && dep->lamport > lamport)
            lamport = dep->lamport;
          if (dep->transferred && dep->list != t->proc)
            {
              run->cause_valid = TRUE;
              run->cause_proc = dep->list;
              run->cause_seq = dep->seq;
              run->cause_time = dep->time;
            }
        }
    }
  if (lamport < G_MAXUINT32)
    lamport++;
  l->last_lamport = lamport;
  if (t->prim)
    {
      Prim *p = t->prim;
      waiters = pe->waiters;  /* before time and seq take its place */
      pe->transferred = 1;
      pe->lamport = lamport;
      pe->adjusted = t->adjusted;
      pe->time = t->time;
      pe->seq = t->seq;
      t->prim = NULL;
      viper_run_prim_unref (run, p);
    }
  l->last_adjusted = t->adjusted;
  if (l->head)
    viper_run_maybe_ready (run, l, l->head);
  wake_waiters (run, waiters, t->adjusted);
  /* waiter_next is NULL once it left its entry's chain: its union holds the number from now on */
  t->lamport = lamport;
  if (joins)
    viper_join_transferred (run->join, t, join_ready, run);
  if (G_UNLIKELY (l->held || l->claim_limit) && l->claimed_ahead <= run->claim_window / 2)
    {
      l->claim_limit = 0;
      if (l->held)
        {
          l->held = FALSE;
          viper_run_advance_claims (run, l);
          viper_run_drain_resume (run);
        }
    }
  run->last_out = t;
  return t;
}
