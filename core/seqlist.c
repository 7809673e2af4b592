/* seqlist.c - sequence lists: the cut between arrived-in-order and early trams.
 *
 * Trams above the cut wait in a paged array indexed by sequence number.  A
 * page holds the slots of 256 consecutive sequence numbers; it is allocated
 * when the first tram lands in it and given back as soon as the cut has
 * taken its last one, so memory follows the trams that wait, not the span
 * of their numbers.  Pages are found through a directory, a ring of page
 * pointers indexed by page number modulo its size, covering the pages from
 * the cut's page on; it doubles as far as needed up to DIR_MAX pages (1 Mi
 * sequence numbers ahead).  A page further ahead than that lives in a hash
 * table keyed by page number and moves into the directory when the window
 * reaches it (the window moves one page at a time, so that is one lookup per
 * page crossed).  Insert, take and release are therefore O(1) at any
 * distance: no tree, no scan, no cap.
 *
 * When the tram at the cut arrives, it and the consecutive successors
 * already waiting move to the FIFO queue, VIPER_SEQ_BATCH at a time: the
 * engine claims each batch before it asks for the next, so a sweep over
 * trams scattered in memory touches each while it is still in the cache.  A sequence number
 * used by a rejected line is stored as a mark the sweep passes over.  In a
 * list whose trams arrive in order nothing waits, and the list never
 * allocates a page.
 */
#include <math.h>
#include <string.h>
#include "seqlist.h"

#define PAGE_BITS 8
#define PAGE_SLOTS (1u << PAGE_BITS)
#define PAGE_MASK ((guint64) PAGE_SLOTS - 1)
#define DIR_MIN 4u
#define DIR_MAX (1u << 12)
#define DIR_KEEP 64u            /* an emptied directory larger than this shrinks back */
#define DRAIN_AHEAD 12          /* trams a sweep prefetches ahead */

typedef struct {
  gint64 pageno;            /* key of the far table; sequence number >> PAGE_BITS */
  guint count;              /* occupied slots */
  ViperTram *slot[PAGE_SLOTS];
} SeqPage;

struct _ViperSeqPages {
  SeqPage **dir;            /* pages [base, base + dir_cap) at pageno & (dir_cap - 1) */
  guint dir_cap;            /* power of two, >= DIR_MIN */
  guint n_pages;            /* allocated pages (the spare one not counted) */
  GHashTable *far;          /* pageno -> page, for pages beyond the directory */
  SeqPage *spare;           /* one emptied page kept for the next need */
  guint64 waiting;          /* trams in the pages */
  guint64 occupied;         /* occupied slots: trams and used marks */
};

static const char used_mark;
#define USED ((ViperTram *) &used_mark)

void
viper_seqlist_init (ViperSeqList *l, gint64 proc)
{
  memset (l, 0, sizeof *l);
  l->proc = proc;
  l->next_seq = 1;
  l->last_adjusted = -INFINITY;
}

static inline guint64
base_page (const ViperSeqList *l)
{
  return (guint64) l->next_seq >> PAGE_BITS;
}

static ViperSeqPages *
pages_get (ViperSeqList *l)
{
  if (!l->pages)
    {
      l->pages = g_new0 (ViperSeqPages, 1);
      l->pages->dir_cap = DIR_MIN;
      l->pages->dir = g_new0 (SeqPage *, DIR_MIN);
    }
  return l->pages;
}

static SeqPage *
page_new (ViperSeqPages *P, guint64 pageno)
{
  SeqPage *pg = P->spare;
  if (pg)
    P->spare = NULL;                /* emptied: every slot is NULL already */
  else
    pg = g_malloc0 (sizeof *pg);
  pg->pageno = (gint64) pageno;
  pg->count = 0;
  P->n_pages++;
  return pg;
}

static void
page_drop (ViperSeqPages *P, SeqPage *pg)
{
  P->n_pages--;
  if (!P->spare)
    P->spare = pg;
  else
    g_free (pg);
}

static void
release_page (SeqPage *pg, void (*release) (ViperTram *, gpointer), gpointer data)
{
  for (guint i = 0; pg->count && i < PAGE_SLOTS; i++)
    if (pg->slot[i])
      {
        if (pg->slot[i] != USED)
          release (pg->slot[i], data);
        pg->slot[i] = NULL;
        pg->count--;
      }
  g_free (pg);
}

void
viper_seqlist_clear (ViperSeqList *l, void (*release) (ViperTram *t, gpointer), gpointer data)
{
  for (ViperTram *t = l->head; t;)
    {
      ViperTram *n = t->next;
      release (t, data);
      t = n;
    }
  ViperSeqPages *P = l->pages;
  if (P)
    {
      for (guint i = 0; i < P->dir_cap; i++)
        if (P->dir[i])
          release_page (P->dir[i], release, data);
      if (P->far)
        {
          GHashTableIter it;
          gpointer k, v;
          g_hash_table_iter_init (&it, P->far);
          while (g_hash_table_iter_next (&it, &k, &v))
            release_page (v, release, data);
          g_hash_table_destroy (P->far);
        }
      g_free (P->spare);
      g_free (P->dir);
      g_free (P);
    }
  gint64 proc = l->proc;
  viper_seqlist_init (l, proc);
}

static void
foreach_page (const SeqPage *pg, void (*fn) (const ViperTram *, gpointer), gpointer data)
{
  for (guint i = 0, seen = 0; seen < pg->count && i < PAGE_SLOTS; i++)
    if (pg->slot[i])
      {
        seen++;
        if (pg->slot[i] != USED)
          fn (pg->slot[i], data);
      }
}

void
viper_seqlist_foreach (const ViperSeqList *l, void (*fn) (const ViperTram *t, gpointer data), gpointer data)
{
  for (const ViperTram *t = l->head; t; t = t->next)
    fn (t, data);
  const ViperSeqPages *P = l->pages;
  if (!P || !P->waiting)
    return;
  for (guint i = 0; i < P->dir_cap; i++)
    if (P->dir[i])
      foreach_page (P->dir[i], fn, data);
  if (P->far)
    {
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, P->far);
      while (g_hash_table_iter_next (&it, &k, &v))
        foreach_page (v, fn, data);
    }
}

guint64
viper_seqlist_initial (const ViperSeqList *l)
{
  return l->pages ? l->pages->waiting : 0;
}

guint
viper_seqlist_pages (const ViperSeqList *l)
{
  return l->pages ? l->pages->n_pages : 0;
}

gsize
viper_seqlist_bytes (const ViperSeqList *l)
{
  const ViperSeqPages *P = l->pages;
  if (!P)
    return 0;
  gsize far = P->far ? g_hash_table_size (P->far) * 3 * sizeof (gpointer) + 64 : 0;
  return sizeof *P + (gsize) P->dir_cap * sizeof (SeqPage *) + far
         + ((gsize) P->n_pages + (P->spare != NULL)) * sizeof (SeqPage);
}

/* Put every page where it belongs for the current base: the directory
 * (size cap) for the near ones, the far table for the others. */
static void
rewindow (ViperSeqList *l, guint cap)
{
  ViperSeqPages *P = l->pages;
  guint64 base = base_page (l);
  SeqPage **dir = g_new0 (SeqPage *, cap);
  GPtrArray *moved = g_ptr_array_new ();
  for (guint i = 0; i < P->dir_cap; i++)
    if (P->dir[i])
      g_ptr_array_add (moved, P->dir[i]);
  if (P->far)
    {
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, P->far);
      while (g_hash_table_iter_next (&it, &k, &v))
        if ((guint64) ((SeqPage *) v)->pageno - base < cap)
          {
            g_ptr_array_add (moved, v);
            g_hash_table_iter_remove (&it);
          }
    }
  for (guint i = 0; i < moved->len; i++)
    {
      SeqPage *pg = moved->pdata[i];
      guint64 dist = (guint64) pg->pageno - base;
      if (dist < cap)
        dir[(guint64) pg->pageno & (cap - 1)] = pg;
      else
        {
          if (!P->far)
            P->far = g_hash_table_new (g_int64_hash, g_int64_equal);
          g_hash_table_insert (P->far, &pg->pageno, pg);
        }
    }
  g_ptr_array_free (moved, TRUE);
  g_free (P->dir);
  P->dir = dir;
  P->dir_cap = cap;
}

/* Store item (a tram or USED) in the slot of seq > next_seq; FALSE if taken. */
static gboolean
place (ViperSeqList *l, guint64 seq, ViperTram *item)
{
  ViperSeqPages *P = pages_get (l);
  guint64 pageno = seq >> PAGE_BITS;
  guint64 dist = pageno - base_page (l);
  SeqPage *pg;
  if (dist >= P->dir_cap && dist < DIR_MAX)
    {
      guint cap = P->dir_cap;
      while (cap <= dist)
        cap <<= 1;
      rewindow (l, cap);
    }
  if (dist < P->dir_cap)
    {
      SeqPage **slot = &P->dir[pageno & (P->dir_cap - 1)];
      pg = *slot;
      if (!pg)
        pg = *slot = page_new (P, pageno);
    }
  else
    {
      if (!P->far)
        P->far = g_hash_table_new (g_int64_hash, g_int64_equal);
      gint64 key = (gint64) pageno;
      pg = g_hash_table_lookup (P->far, &key);
      if (!pg)
        {
          pg = page_new (P, pageno);
          g_hash_table_insert (P->far, &pg->pageno, pg);
        }
    }
  ViperTram **s = &pg->slot[seq & PAGE_MASK];
  if (*s)
    return FALSE;
  *s = item;
  pg->count++;
  P->occupied++;
  if (item != USED)
    P->waiting++;
  return TRUE;
}

static void
append (ViperSeqList *l, ViperTram *t, ViperTram **first)
{
  t->next = NULL;
  t->state = VIPER_TRAM_QUEUED;
  if (l->tail)
    l->tail->next = t;
  else
    l->head = t;
  l->tail = t;
  if (!l->claim)
    l->claim = t;
  if (!*first)
    *first = t;
}

/* The cut has consumed next_seq: move it on, sliding the directory window
 * by one page when it enters a new page. */
static inline void
advance (ViperSeqList *l)
{
  l->next_seq++;
  ViperSeqPages *P = l->pages;
  if (G_UNLIKELY (((guint64) l->next_seq & PAGE_MASK) == 0) && P && P->far && g_hash_table_size (P->far))
    {
      /* the slot of the page just left now stands for base + dir_cap - 1 */
      gint64 key = (gint64) (base_page (l) + P->dir_cap - 1);
      SeqPage *pg = g_hash_table_lookup (P->far, &key);
      if (pg)
        {
          g_hash_table_remove (P->far, &key);
          P->dir[(guint64) key & (P->dir_cap - 1)] = pg;
        }
    }
}

/* Take whatever waits at the cut, and its consecutive successors: at most
 * max trams (used marks do not count).  Returns how many were queued. */
static guint
drain (ViperSeqList *l, ViperTram **first, guint max)
{
  ViperSeqPages *P = l->pages;
  guint n = 0;
  while (P && P->occupied && n < max)
    {
      guint64 seq = (guint64) l->next_seq;
      SeqPage **slot = &P->dir[(seq >> PAGE_BITS) & (P->dir_cap - 1)];
      SeqPage *pg = *slot;
      if (!pg || !pg->slot[seq & PAGE_MASK])
        break;
      ViperTram *t = pg->slot[seq & PAGE_MASK];
      /* the trams of a sweep lie anywhere in memory: ask for the ones a
       * few slots on while this one is linked */
      if ((seq & PAGE_MASK) + DRAIN_AHEAD < PAGE_SLOTS && pg->slot[(seq & PAGE_MASK) + DRAIN_AHEAD])
        {
          ViperTram *up = pg->slot[(seq & PAGE_MASK) + DRAIN_AHEAD];
          if (up != USED)
            viper_tram_prefetch (up);
        }
      pg->slot[seq & PAGE_MASK] = NULL;
      P->occupied--;
      if (--pg->count == 0)
        {
          *slot = NULL;
          page_drop (P, pg);
        }
      if (t != USED)
        {
          P->waiting--;
          append (l, t, first);
          n++;
        }
      advance (l);
    }
  if (P && !P->occupied && P->dir_cap > DIR_KEEP)
    {
      /* a burst far ahead has drained: give its directory back */
      g_free (P->dir);
      P->dir = g_new0 (SeqPage *, DIR_MIN);
      P->dir_cap = DIR_MIN;
    }
  return n;
}

guint
viper_seqlist_drain (ViperSeqList *l, ViperTram **first_queued, guint max)
{
  *first_queued = NULL;
  return drain (l, first_queued, max);
}

void
viper_seqlist_prefetch (const ViperSeqList *l, gint64 seq)
{
  const ViperSeqPages *P = l->pages;
  if (!P || seq <= l->next_seq)
    return;
  guint64 pageno = (guint64) seq >> PAGE_BITS;
  if (pageno - base_page (l) >= P->dir_cap)
    return;
  const SeqPage *pg = P->dir[pageno & (P->dir_cap - 1)];
  if (pg)
    {
      __builtin_prefetch (&pg->slot[(guint64) seq & PAGE_MASK], 1);
      __builtin_prefetch (&pg->count, 1);     /* place() counts the slot in the page's header */
    }
}

ViperSeqResult
viper_seqlist_insert (ViperSeqList *l, ViperTram *t, ViperTram **first_queued)
{
  *first_queued = NULL;
  if (t->seq < l->next_seq)
    return VIPER_SEQ_DUPLICATE;
  if (t->seq > l->next_seq)
    {
      if (!place (l, (guint64) t->seq, t))
        return VIPER_SEQ_DUPLICATE;
      t->state = VIPER_TRAM_INITIAL;
      return VIPER_SEQ_INITIAL;
    }
  /* seq == next_seq: its slot is empty (else the cut would have passed it) */
  append (l, t, first_queued);
  advance (l);
  drain (l, first_queued, VIPER_SEQ_BATCH - 1);
  return VIPER_SEQ_QUEUED;
}

ViperSeqResult
viper_seqlist_mark_used (ViperSeqList *l, gint64 seq, ViperTram **first_queued)
{
  *first_queued = NULL;
  if (seq < l->next_seq)
    return VIPER_SEQ_DUPLICATE;
  if (seq > l->next_seq)
    return place (l, (guint64) seq, USED) ? VIPER_SEQ_INITIAL : VIPER_SEQ_DUPLICATE;
  advance (l);
  drain (l, first_queued, VIPER_SEQ_BATCH);
  return VIPER_SEQ_QUEUED;
}

/* First occupied slot of pg at or after index from; PAGE_SLOTS if none. */
static guint
first_slot (const SeqPage *pg, guint from)
{
  for (guint i = from; i < PAGE_SLOTS; i++)
    if (pg->slot[i])
      return i;
  return PAGE_SLOTS;
}

guint64
viper_seqlist_skip_gap (ViperSeqList *l, ViperTram **first_queued)
{
  *first_queued = NULL;
  ViperSeqPages *P = l->pages;
  if (!P || !P->occupied)
    return 0;
  guint64 base = base_page (l), best = G_MAXUINT64;
  for (guint i = 0; i < P->dir_cap && best == G_MAXUINT64; i++)
    {
      const SeqPage *pg = P->dir[(base + i) & (P->dir_cap - 1)];
      guint s = pg ? first_slot (pg, i == 0 ? (guint) ((guint64) l->next_seq & PAGE_MASK) : 0) : PAGE_SLOTS;
      if (s < PAGE_SLOTS)
        best = ((guint64) pg->pageno << PAGE_BITS) + s;
    }
  if (best == G_MAXUINT64 && P->far)
    {
      const SeqPage *low = NULL;
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, P->far);
      while (g_hash_table_iter_next (&it, &k, &v))
        if (!low || ((const SeqPage *) v)->pageno < low->pageno)
          low = v;
      if (low)
        best = ((guint64) low->pageno << PAGE_BITS) + first_slot (low, 0);
    }
  g_return_val_if_fail (best != G_MAXUINT64, 0);
  guint64 skipped = best - (guint64) l->next_seq;
  gboolean new_page = (best >> PAGE_BITS) != base;
  l->next_seq = (gint64) best;
  if (new_page)
    rewindow (l, P->dir_cap);
  drain (l, first_queued, VIPER_SEQ_BATCH);
  return skipped;
}
