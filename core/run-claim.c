/* run-claim.c - the primitive builder (thesis 5.1.2): claiming, primitives,
 * expectations, and the claim window.
 *
 * Claiming walks a list's queue in order.  A START opens a primitive list
 * from its profile and posts an *expectation* for each further slot under
 * the key (list, match class, key1, key2); a SLOT tram takes the oldest
 * expectation under its own key.  Messages between two modules never
 * overtake (thesis Figure 28), so "oldest" is the right one and matching is
 * O(1) per tram: no buffer is ever scanned.  When no expectation exists yet
 * the cursor stalls on that tram and the bucket remembers the list; posting
 * the expectation later resumes it.  Stalling costs nothing: the tram could
 * not leave before its own sequence predecessor anyway.
 *
 * The claim window bounds how far a cursor runs ahead of its list's
 * transfers (see viper_run_advance_claims).  The transfer, the heap and the
 * lists are run.c's.
 */
#include <math.h>
#include <string.h>
#include "run-priv.h"
#include "model.h"
#include "join.h"

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


static guint32
slot_class (const ViperRun *run, const ViperSlot *s, guint16 start_type)
{
  (void) run;
  (void) start_type;
  return s->match_class;
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

void
viper_run_prim_free_all (ViperRun *run)
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

void
viper_run_prim_unref (ViperRun *run, Prim *p)
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
        viper_run_prim_unref (run, b->reply_prim);
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
          p->entries[e].lamport = 0;
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
          viper_run_prim_unref (run, p);
          t->flags |= VIPER_TRAM_F_CLAIMED | VIPER_TRAM_F_FREE;
          t->state = VIPER_TRAM_INTEGRATED;
          return TRUE;
        }
      fill_entry (run, p, entry, t);
      post_replies (run, p, entry, NULL);
      viper_run_prim_unref (run, p);      /* the expectation's reference */
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
          viper_run_prim_unref (run, p);
          return TRUE;
        }
      viper_run_prim_unref (run, p);
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
 * run: when nothing is ready the held lists claim on (viper_run_claims_force), and a
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
          viper_run_maybe_ready (run, l, t);
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


/* Held lists claim on: by one more window each while nothing is ready, or
 * (all) to the end of what they hold. */
void
viper_run_claims_force (ViperRun *run, gboolean all)
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
    viper_run_claims_force (run, TRUE);
}

/* VIPER_CLAIM_WINDOW=N in the environment sets another window (tests run
 * with 1, the tightest; 0 = no bound); anything else keeps the default. */
guint32
viper_run_claim_window_env (void)
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
