/* run.c - causal reconstruction: sequence lists, primitive builders, merge.
 *
 * The pipeline of one sequence list L, in sequence order:
 *
 *   [transferred] head .. [claimed] .. claim .. [QUEUED, unclaimed] .. tail   [INITIAL above the cut]
 *
 * Claiming (the thesis's primitive builder, 5.1.2) walks L's queue in order.
 * A START opens a primitive list and posts an *expectation* for each further
 * slot under the key (list, match class, key1, key2); a SLOT tram takes the
 * oldest expectation under its own key.  Messages between two modules never
 * overtake (thesis Figure 28), so "oldest" is the right one and matching is
 * O(1) per tram: no buffer is ever scanned.  When no expectation exists yet
 * the cursor stalls on that tram and the bucket remembers L; posting the
 * expectation later resumes L.  Stalling costs nothing: the tram could not
 * leave before its own sequence predecessor anyway.
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

static void
rejected_lines_free (gpointer p)
{
  RejectedLines *rl = p;
  g_string_free (rl->text, TRUE);
  g_free (rl);
}

static Bucket *
bucket_get (ViperRun *run, const BucketKey *key, gboolean create)
{
  return create ? viper_buckets_get (&run->buckets, key) : viper_buckets_lookup (&run->buckets, key);
}

/* A bucket that holds nothing (no expectation, no reply, no stalled list)
 * leaves the table: message tags that are used once (a fresh tag per
 * message) would otherwise keep one bucket each for the whole run. */
static void
bucket_drop_if_empty (ViperRun *run, Bucket *b)
{
  if (!b->head && !b->reply_prim && !b->stalled)
    viper_buckets_remove (&run->buckets, b);
}

guint
viper_run_n_buckets (const ViperRun *run)
{
  return run->buckets.n;
}

/* ---- helpers --------------------------------------------------------------- */

static guint32
slot_class (const ViperRun *run, const ViperSlot *s, guint16 start_type)
{
  (void) run;
  (void) start_type;
  return s->match_class;
}

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
  if (!run->any_order)        /* any order: a stack */
    while (i > 0)
      {
        guint p = (i - 1) / 2;
        if (!heap_less (&e, &h[p]))
          break;
        h[i] = h[p];
        i = p;
      }
  h[i] = e;
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
  guint i = 0;
  for (;;)
    {
      guint l = 2 * i + 1, m;
      if (l >= n)
        break;
      m = l + 1 < n && heap_less (&h[l + 1], &h[l]) ? l + 1 : l;
      if (!heap_less (&h[m], &last))
        break;
      h[i] = h[m];
      i = m;
    }
  h[i] = last;
  return top;
}

/* ---- readiness ------------------------------------------------------------- */

/* t is the head of l: if claimed and not waiting, fix its adjusted time and
 * let it into the heap. */
static void
maybe_ready (ViperRun *run, ViperSeqList *l, ViperTram *t)
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
        maybe_ready (run, viper_run_list_get (run, w->proc, FALSE), w);
      w = n;
    }
}

/* A collective's end whose begins have all left (core/join.c). */
static void
join_ready (ViperTram *t, gpointer data)
{
  ViperRun *run = data;
  maybe_ready (run, viper_run_list_get (run, t->proc, FALSE), t);
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
        maybe_ready (run, viper_run_list_get (run, t->proc, FALSE), t);
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

/* ---- primitives: creation, filling ------------------------------------------ */

static Expect *
expect_new (ViperRun *run, Prim *p, guint entry)
{
  Expect *e = run->free_expects;
  if (e)
    run->free_expects = e->next;
  else
    e = g_new (Expect, 1);
  e->next = NULL;
  e->prim = p;
  e->entry = (guint16) entry;
  p->refs++;
  return e;
}

static void
expect_free (ViperRun *run, Expect *e)
{
  e->next = run->free_expects;
  run->free_expects = e;
}

static Prim *
prim_alloc (ViperRun *run, guint n)
{
  gsize size = sizeof (Prim) + n * sizeof (PrimEntry);
  Prim *p = n < PRIM_FREE_SIZES ? run->free_prims[n] : NULL;
  if (!p)
    return g_malloc0 (size);
  run->free_prims[n] = p->next;
  run->n_free_prims[n]--;
  memset (p, 0, size);
  return p;
}

static void
prim_free (ViperRun *run, Prim *p)
{
  guint n = p->n_entries;
  if (n < PRIM_FREE_SIZES && run->n_free_prims[n] + 1 <= PRIM_FREE_KEEP)
    {
      p->next = run->free_prims[n];
      run->free_prims[n] = p;
      run->n_free_prims[n]++;
    }
  else
    g_free (p);
}

static void
prim_free_all (ViperRun *run)
{
  for (guint n = 0; n < PRIM_FREE_SIZES; n++)
    {
      while (run->free_prims[n])
        {
          Prim *next = run->free_prims[n]->next;
          g_free (run->free_prims[n]);
          run->free_prims[n] = next;
        }
      run->n_free_prims[n] = 0;
    }
}

static void
prim_unref (ViperRun *run, Prim *p)
{
  if (--p->refs)
    return;
  if (p->prev)
    p->prev->next = p->next;
  else
    run->prims = p->next;
  if (p->next)
    p->next->prev = p->prev;
  prim_free (run, p);
}

/* Put the tram t into entry e of primitive p. */
static void
fill_entry (ViperRun *run, Prim *p, guint e, ViperTram *t)
{
  (void) run;
  PrimEntry *pe = &p->entries[e];
  pe->filled = 1;
  pe->tram = t;
  t->prim = p;
  t->slot = (guint16) e;
  t->flags |= VIPER_TRAM_F_CLAIMED;
  t->state = VIPER_TRAM_INTEGRATED;
  const ViperSlot *s = &p->profile->slots[pe->slot];
  if (s->after != VIPER_NO_SLOT)
    {
      PrimEntry *dep = &p->entries[p->slot_entry[s->after]];
      if (dep->transferred)
        {
          if (t->adjusted < dep->adjusted)
            t->adjusted = dep->adjusted;
        }
      else
        {
          t->waits++;
          ViperTram **chain = &dep->waiters;
          t->waiter_next = *chain;
          *chain = t;
        }
    }
}

static void
post_expect (ViperRun *run, const BucketKey *key, Prim *p, guint entry, gboolean reply)
{
  Bucket *b = bucket_get (run, key, TRUE);
  if (reply)
    {
      if (b->reply_prim)
        prim_unref (run, b->reply_prim);
      b->reply_prim = p;
      b->reply_entry = (guint16) entry;
      p->refs++;
    }
  else
    {
      Expect *e = expect_new (run, p, entry);
      if (b->tail)
        ((Expect *) b->tail)->next = e;
      else
        b->head = e;
      b->tail = e;
    }
  if (b->stalled)
    {
      ViperSeqList *l = b->stalled;
      b->stalled = NULL;
      l->stalled = FALSE;
      /* its claim resumes soon, on a tram that stalled long ago */
      if (l->claim)
        viper_tram_prefetch (l->claim);
      g_ptr_array_add (run->resume, l);
    }
}

static BucketKey
entry_key (ViperRun *run, Prim *p, guint e, const ViperTram *start)
{
  const ViperSlot *s = &p->profile->slots[p->entries[e].slot];
  BucketKey k;
  k.list = p->entries[e].list;
  k.cls = slot_class (run, s, start->type);
  k.k1 = s->key1_caller ? p->caller : 0;
  k.k2 = s->key2_start_field != VIPER_NO_FIELD ? viper_tram_datum (start, (guint) s->key2_start_field, 0) : 0;
  return k;
}

/* A START was claimed: build its primitive and post the expectations. */
static void
open_primitive (ViperRun *run, ViperTram *start, const ViperTramType *tt)
{
  const ViperProfile *prof = &run->paradigm->profiles[tt->profile];
  gint64 partner = prof->partner_field >= 0 ? viper_tram_datum (start, (guint) prof->partner_field, start->proc)
                                            : start->proc;
  gint64 stack_members[MEMBERS_ON_STACK];
  gint64 *members = stack_members;
  guint n_members = 0;
  gboolean need_members = FALSE;
  for (guint s = 1; s < prof->n_slots; s++)
    if (prof->slots[s].from == VIPER_FROM_EACH_MEMBER)
      need_members = TRUE;
  if (need_members)
    {
      /* every member, however many: a group is never cut short */
      guint cap = MEMBERS_ON_STACK;
      if (run->model && run->model->klass->group_members)
        while ((n_members = run->model->klass->group_members (run->model, partner, members, cap)) == cap
               && cap < MAX_ENTRIES)
          {
            cap = MIN (cap * 4, MAX_ENTRIES);
            if (members != stack_members)
              g_free (members);
            members = g_new (gint64, cap);
          }
      if (n_members == 0)
        {
          members[0] = partner;
          n_members = 1;
        }
    }
  guint n = 0;
  for (guint s = 0; s < prof->n_slots; s++)
    n += prof->slots[s].from == VIPER_FROM_EACH_MEMBER ? n_members : 1;
  if (n > MAX_ENTRIES)
    {
      /* more members than a primitive can index: say so, and let the start
       * pass on its own rather than match a part of the group */
      if (run->diag)
        viper_diag_bad (run->diag, run->channels ? viper_channels_name (run->channels, start->channel) : "-",
                        start->line, 1, "group %" G_GINT64_FORMAT " has %u members; a group primitive holds at most "
                        "%u entries", partner, n_members, MAX_ENTRIES);
      if (members != stack_members)
        g_free (members);
      start->flags |= VIPER_TRAM_F_CLAIMED | VIPER_TRAM_F_FREE;
      start->state = VIPER_TRAM_INTEGRATED;
      return;
    }

  Prim *p = prim_alloc (run, n);
  p->profile = prof;
  p->caller = start->proc;
  p->caller_seq = start->seq;
  p->caller_type = start->type;
  p->n_entries = n;
  p->refs = n;
  p->next = run->prims;
  if (run->prims)
    run->prims->prev = p;
  run->prims = p;

  guint e = 0;
  for (guint s = 0; s < prof->n_slots && s < G_N_ELEMENTS (p->slot_entry); s++)
    {
      const ViperSlot *sl = &prof->slots[s];
      p->slot_entry[s] = (guint16) e;
      guint count = sl->from == VIPER_FROM_EACH_MEMBER ? n_members : 1;
      for (guint i = 0; i < count; i++, e++)
        {
          p->entries[e].slot = (guint8) s;
          p->entries[e].adjusted = -INFINITY;
          switch (sl->from)
            {
            case VIPER_FROM_CALLER: p->entries[e].list = start->proc; break;
            case VIPER_FROM_PARTNER: p->entries[e].list = partner; break;
            case VIPER_FROM_EACH_MEMBER: p->entries[e].list = members[i]; break;
            case VIPER_FROM_REPLY: p->entries[e].list = G_MININT64; break;   /* known when a member answers */
            default: break;
            }
        }
    }
  if (members != stack_members)
    g_free (members);
  fill_entry (run, p, 0, start);
  for (e = 1; e < n; e++)
    {
      const ViperSlot *sl = &prof->slots[p->entries[e].slot];
      if (sl->from == VIPER_FROM_REPLY)
        continue;               /* posted when its request slot is filled */
      BucketKey k = entry_key (run, p, e, start);
      post_expect (run, &k, p, e, FALSE);
    }
}

/* A tram filled a request slot: post the reply expectation in its list. */
static void
post_replies (ViperRun *run, Prim *p, guint e_filled, const ViperTram *start_or_null)
{
  const ViperProfile *prof = p->profile;
  guint8 slot = p->entries[e_filled].slot;
  for (guint s = 1; s < prof->n_slots; s++)
    {
      const ViperSlot *sl = &prof->slots[s];
      if (sl->from != VIPER_FROM_REPLY || sl->ref != (gint8) slot)
        continue;
      guint e = p->slot_entry[s];
      if (p->entries[e].filled)
        continue;
      BucketKey k;
      k.list = p->entries[e_filled].list;
      k.cls = slot_class (run, sl, p->caller_type);
      k.k1 = sl->key1_caller ? p->caller : 0;
      k.k2 = 0;
      if (sl->key2_start_field != VIPER_NO_FIELD && start_or_null)
        k.k2 = viper_tram_datum (start_or_null, (guint) sl->key2_start_field, 0);
      post_expect (run, &k, p, e, TRUE);
    }
}

/* Claim t (the claim cursor of l).  FALSE = stall: its primitive is not known yet. */
static gboolean
claim (ViperRun *run, ViperSeqList *l, ViperTram *t)
{
  const ViperTramType *tt = tram_type (run, t);
  if (run->join && tt && (!run->type_joins || run->type_joins[t->type])
      && !viper_join_claim (run->join, t, l, run->resume))
    return FALSE;
  if (!tt || tt->role == VIPER_ROLE_FREE)
    {
      t->flags |= VIPER_TRAM_F_CLAIMED | VIPER_TRAM_F_FREE;
      t->state = VIPER_TRAM_INTEGRATED;
      if (tt && run->paradigm->after_input && run->paradigm->after_input (t))
        {
          t->waits++;           /* viper_run_release_after_input() */
          g_ptr_array_add (run->after_input, t);
        }
      return TRUE;
    }
  if (tt->role == VIPER_ROLE_START)
    {
      open_primitive (run, t, tt);
      return TRUE;
    }
  BucketKey k;
  k.list = l->proc;
  k.cls = type_class (run, t->type);
  k.k1 = tt->key1_field != VIPER_NO_FIELD ? viper_tram_datum (t, (guint) tt->key1_field, 0) : 0;
  k.k2 = tt->key2_field != VIPER_NO_FIELD ? viper_tram_datum (t, (guint) tt->key2_field, 0) : 0;
  Bucket *b = bucket_get (run, &k, FALSE);
  if (b && b->head)
    {
      Expect *e = b->head;
      b->head = e->next;
      if (!b->head)
        b->tail = NULL;
      Prim *p = e->prim;
      guint entry = e->entry;
      expect_free (run, e);
      bucket_drop_if_empty (run, b);
      if (p->entries[entry].filled)
        {
          /* cannot happen with well-formed profiles; keep the tram moving */
          prim_unref (run, p);
          t->flags |= VIPER_TRAM_F_CLAIMED | VIPER_TRAM_F_FREE;
          t->state = VIPER_TRAM_INTEGRATED;
          return TRUE;
        }
      fill_entry (run, p, entry, t);
      post_replies (run, p, entry, NULL);
      prim_unref (run, p);      /* the expectation's reference */
      return TRUE;
    }
  if (b && b->reply_prim)
    {
      Prim *p = b->reply_prim;
      guint entry = b->reply_entry;
      b->reply_prim = NULL;
      bucket_drop_if_empty (run, b);
      if (!p->entries[entry].filled)
        {
          p->entries[entry].list = l->proc;
          fill_entry (run, p, entry, t);
          prim_unref (run, p);
          return TRUE;
        }
      prim_unref (run, p);
    }
  if (tt->key1_field == VIPER_NO_FIELD)
    {
      /* A caller-side slot with no open primitive in its own list: none can
       * ever come (its START would precede it here).  A one-tram list. */
      t->flags |= VIPER_TRAM_F_CLAIMED | VIPER_TRAM_F_FREE;
      t->state = VIPER_TRAM_INTEGRATED;
      return TRUE;
    }
  b = bucket_get (run, &k, TRUE);
  b->stalled = l;
  l->stalled = TRUE;
  return FALSE;
}

/* The claim window.  Claiming runs ahead of the transfers only so far: a
 * claimed tram is looked at again when it leaves, and on shuffled input the
 * trams of a list lie anywhere in memory, so a cursor that ran the whole
 * list ahead would meet every tram twice from main memory.  Within the
 * window the second look finds it in the cache.  Holding never changes the
 * run: when nothing is ready the held lists claim on (claims_force), and a
 * breakpoint lifts the window (viper_run_bound_claims). */
static inline gboolean
claims_full (const ViperRun *run, const ViperSeqList *l)
{
  return run->claim_window && l->claimed_ahead >= (l->claim_limit ? l->claim_limit : run->claim_window);
}

static void
hold (ViperRun *run, ViperSeqList *l)
{
  l->held = TRUE;
  if (!l->in_held)
    {
      l->in_held = TRUE;
      g_ptr_array_add (run->held, l);
    }
}

/* Claim in order until the cursor stalls or the window is full; when every
 * queued tram is claimed, queue the next batch the cut can pass (seqlist.c). */
void
viper_run_advance_claims (ViperRun *run, ViperSeqList *l)
{
  for (;;)
    {
      while (l->claim && !l->stalled)
        {
          if (G_UNLIKELY (claims_full (run, l)))
            {
              hold (run, l);
              return;
            }
          ViperTram *t = l->claim;
          if (t->next)
            viper_tram_prefetch (t->next);
          if (!claim (run, l, t))
            break;
          l->claimed_ahead++;
          l->claim = t->next;
          maybe_ready (run, l, t);
        }
      if (l->claim || l->stalled || !l->pages)
        return;
      if (G_UNLIKELY (claims_full (run, l)))
        {
          hold (run, l);
          return;
        }
      ViperTram *first;
      if (!viper_seqlist_drain (l, &first, VIPER_SEQ_BATCH))
        return;
    }
}

static guint32 claim_window_default (void);

/* Held lists claim on: by one more window each while nothing is ready, or
 * (all) to the end of what they hold. */
static void
claims_force (ViperRun *run, gboolean all)
{
  while ((all || !run->heap_len) && run->held->len)
    {
      GPtrArray *todo = run->held;
      run->held = run->held_spare;
      run->held_spare = todo;
      for (guint i = 0; i < todo->len; i++)
        {
          ViperSeqList *l = todo->pdata[i];
          l->in_held = FALSE;
          if (!l->held)
            continue;
          l->held = FALSE;
          l->claim_limit = all ? 0 : l->claimed_ahead + run->claim_window;
          viper_run_advance_claims (run, l);
        }
      g_ptr_array_set_size (todo, 0);
      viper_run_drain_resume (run);
    }
}

guint
viper_run_claims_held (const ViperRun *run)
{
  guint n = 0;
  for (guint i = 0; i < run->held->len; i++)
    n += ((const ViperSeqList *) run->held->pdata[i])->held;
  return n;
}

void
viper_run_bound_claims (ViperRun *run, gboolean bounded)
{
  guint32 trams = bounded ? run->claim_window_default : 0;
  if (run->claim_window == trams)
    return;
  run->claim_window = trams;
  if (!trams)
    claims_force (run, TRUE);
}

/* VIPER_CLAIM_WINDOW=N in the environment sets another window (tests run
 * with 1, the tightest; 0 = no bound); anything else keeps the default. */
static guint32
claim_window_default (void)
{
  const char *v = g_getenv ("VIPER_CLAIM_WINDOW");
  guint64 n;
  if (v && g_ascii_string_to_unsigned (v, 10, 0, G_MAXUINT32, &n, NULL))
    return (guint32) n;
  return VIPER_RUN_CLAIM_WINDOW;
}

static void
resume_list (ViperRun *run, ViperSeqList *l)
{
  viper_run_advance_claims (run, l);
}

void
viper_run_drain_resume (ViperRun *run)
{
  while (run->resume->len)
    {
      ViperSeqList *l = g_ptr_array_steal_index_fast (run->resume, run->resume->len - 1);
      resume_list (run, l);
    }
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
  run->claim_window_default = claim_window_default ();
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
  prim_free_all (run);
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

gboolean
viper_run_insert (ViperRun *run, ViperTram *t)
{
  run->counts.read++;
  if (run->last_out)
    {
      viper_tram_pool_release (run->pool, run->last_out);
      run->last_out = NULL;
    }
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
       * waiting for it names it. */
      viper_run_note_line (run->uninterpreted_at, t->proc, 0,
                 run->channels ? viper_channels_name (run->channels, t->channel) : "-", t->line);
      t->type = VIPER_TYPE_UNKNOWN;
      t->flags |= VIPER_TRAM_F_UNINTERPRETED;
      tt = NULL;
    }
  /* an exact count is said as one whether the line has too few or too many */
  if (tt && t->ndata < tt->min_ndata)
    return viper_run_reject_as (run, t, TRUE, t->raw_len + 1, "%s needs %s %u data field%s, has %u", tt->name,
                                run->paradigm->exact_ndata ? "exactly" : "at least", tt->min_ndata,
                                tt->min_ndata == 1 ? "" : "s", t->ndata);
  if (tt && run->paradigm->exact_ndata)
    {
      if (t->ndata != tt->min_ndata)
        return viper_run_reject_as (run, t, TRUE, viper_run_data_column (t, tt->min_ndata),
                                    "%s needs exactly %u data field%s, has %u", tt->name,
                                    tt->min_ndata, tt->min_ndata == 1 ? "" : "s", t->ndata);
      if (t->ndata && t->dtype != VIPER_DTYPE_INT)
        return viper_run_reject_as (run, t, TRUE, viper_run_data_column (t, 0), "%s needs integer data (DTYPE 2)",
                                    tt->name);
    }
  if (tt && run->paradigm->validate)
    {
      char reason[160] = "";
      guint field = 0;
      if (!run->paradigm->validate (t, &field, reason, sizeof reason))
        return viper_run_reject_as (run, t, TRUE, viper_run_data_column (t, field), "%s",
                                    reason[0] ? reason : "violates the paradigm's rules");
    }
  if (run->paradigm->explicit_seq)
    {
      if (t->dtype != VIPER_DTYPE_INT || t->ndata < 1)
        return viper_run_reject_as (run, t, TRUE, t->ndata ? viper_run_data_column (t, 0) : t->raw_len + 1,
                                    "missing sequence number (D1)");
      t->seq = viper_tram_data (t)[0];
      if (t->seq < 1)
        return viper_run_reject_as (run, t, TRUE, viper_run_data_column (t, 0),
                                    "sequence number %" G_GINT64_FORMAT " is not positive", t->seq);
    }
  else
    t->seq = run->channels ? viper_channels_next_seq (run->channels, t->channel, t->proc)
                           : (gint64) viper_run_proc_count (run, t->proc) + 1;
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
      if (!run->paradigm->explicit_seq && l->inserted && l->first_channel != t->channel)
        {
          /* the numbers are arrival order per channel (spec section 2): a
           * second channel's lines of a processor number themselves again */
          const char *other = run->channels ? viper_channels_name (run->channels, l->first_channel) : NULL;
          return viper_run_reject_as (run, t, FALSE, 1,
                            "proc %" G_GINT64_FORMAT " already has lines on %s (a native PICL processor's "
                            "lines must come from one file or connection: spec section 2)",
                            t->proc, other ? other : "another channel");
        }
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
    claims_force (run, FALSE);
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
    claims_force (run, FALSE);
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
  if (t->adjusted > run->clock)
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

  run->cause_valid = FALSE;
  ViperTram *waiters = NULL;
  if (t->prim)
    {
      Prim *p = t->prim;
      PrimEntry *pe = &p->entries[t->slot];
      const ViperSlot *sl = &p->profile->slots[pe->slot];
      if (sl->after != VIPER_NO_SLOT)
        {
          const PrimEntry *dep = &p->entries[p->slot_entry[sl->after]];
          if (dep->transferred && dep->list != t->proc)
            {
              run->cause_valid = TRUE;
              run->cause_proc = dep->list;
              run->cause_seq = dep->seq;
              run->cause_time = dep->time;
            }
        }
      waiters = pe->waiters;  /* before time and seq take its place */
      pe->transferred = 1;
      pe->adjusted = t->adjusted;
      pe->time = t->time;
      pe->seq = t->seq;
      t->prim = NULL;
      prim_unref (run, p);
    }
  l->last_adjusted = t->adjusted;
  if (l->head)
    maybe_ready (run, l, l->head);
  wake_waiters (run, waiters, t->adjusted);
  if (run->join && !(t->flags & VIPER_TRAM_F_UNINTERPRETED)
      && (!run->type_joins || t->type == VIPER_TYPE_UNKNOWN || run->type_joins[t->type]))
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
