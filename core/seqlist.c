/* seqlist.c - sequence lists: the cut between arrived-in-order and early trams.
 *
 * Trams above the cut wait in a paged array indexed by sequence number.  A
 * page holds the slots of 64 consecutive sequence numbers (2 KiB: many
 * modules with a tram or two waiting each cost little); it is allocated
 * when the first tram lands in it and given back as soon as the cut has
 * left it, so memory follows the trams that wait, not the span of their
 * numbers.  Pages are found through a directory, a ring of page
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
 *
 * A slot is a 32-byte record, not a pointer.  A tram in canonical form
 * (the common case: its text is regenerated, not stored) whose fields are
 * small is packed into its slot and its pool block released: on fully
 * shuffled input the whole trace waits here, and a sweep then reads the
 * records one after the other instead of fetching trams of 100-150 bytes
 * from anywhere in memory (two or three cache and TLB misses each), and
 * the trace waits in a quarter of the memory (issue 11).  The sweep unpacks
 * each record into a fresh block of the pool, which at that point recycles
 * the blocks of trams just transferred, still in the cache.  Any other tram
 * (its text kept, a wide field, data that do not fit) waits as a pointer,
 * as do all trams of a list with no pool (viper_seqlist_set_pool).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "seqlist.h"
#include "varint.h"

#define PAGE_BITS 6
#define PAGE_SLOTS (1u << PAGE_BITS)
G_STATIC_ASSERT (PAGE_SLOTS == VIPER_SEQ_PAGE_SLOTS);
#define PAGE_MASK ((guint64) PAGE_SLOTS - 1)
#define DIR_MIN 4u
#define DIR_MAX (1u << 14)
#define DIR_KEEP 64u            /* an emptied directory larger than this shrinks back */
#define DRAIN_AHEAD 12          /* trams a sweep prefetches ahead */

enum {
  REC_EMPTY = 0,
  REC_PACKED,               /* the tram's fields, below */
  REC_TRAM,                 /* a pointer to the tram */
  REC_USED,                 /* a sequence number used by a rejected line */
  REC_KIND = 3,             /* kind bits */
  REC_D1_SEQ = 1 << 2,      /* packed: data field 1 is the sequence number, left out */
};

#define REC_DATA 6          /* bytes of packed data fields (zigzag varints) */
#define REC_NO_TYPE 0xffu   /* packed type of VIPER_TYPE_UNKNOWN */

/* A slot: 32 bytes, so a record never straddles two cache lines. */
typedef struct {
  union {
    double time;            /* packed: TIME */
    ViperTram *tram;        /* REC_TRAM */
  };
  guint32 line;
  guint16 raw_len;
  guint16 channel;
  gint16 rec, ev;
  guint8 kind;              /* REC_* and REC_D1_SEQ */
  guint8 type;              /* type index, REC_NO_TYPE for unknown */
  guint8 flags;
  guint8 ndata;
  guint8 data_off;
  gint8 process;
  guint8 data[REC_DATA];
} SeqRec;

G_STATIC_ASSERT (sizeof (SeqRec) == 32);

/* A page keeps no count of its slots: placing a tram then touches its slot
 * alone, one cache line and one TLB entry (a page's header is elsewhere).
 * Every allocated page but the cut's holds a waiting slot (slots are taken
 * only at the cut), so a page goes when the cut leaves it, or when nothing
 * waits any more. */
struct _SeqPage {
  gint64 pageno;            /* key of the far table; sequence number >> PAGE_BITS */
  guint8 pad_[64 - sizeof (gint64)];   /* records on 32-byte boundaries */
  SeqRec slot[PAGE_SLOTS];
};

/* The directory itself (dir, dir_cap) is in the list, beside the cut: a
 * look ahead finds a slot with one load less (on the 1,088 lists of a
 * shuffled Macrame trace each of these loads missed the cache). */
struct _ViperSeqPages {
  guint n_pages;            /* allocated pages */
  GHashTable *far;          /* pageno -> page, for pages beyond the directory */
  guint64 waiting;          /* trams in the pages */
  guint64 occupied;         /* occupied slots: trams and used marks */
};

void
viper_seqlist_init (ViperSeqList *l, gint64 proc)
{
  memset (l, 0, sizeof *l);
  l->proc = proc;
  l->next_seq = 1;
  l->last_adjusted = -INFINITY;
}

void
viper_seqlist_set_pool (ViperSeqList *l, ViperTramPool *pool)
{
  l->pool = pool;
}

/* ---- records ---------------------------------------------------------------- */

/* Pack t (its sequence number is the slot's) into r; FALSE when it does not
 * fit: text kept, a wide field, or fields too large for the record. */
static inline gboolean
rec_pack (SeqRec *r, const ViperTram *t)
{
  if ((t->flags & (VIPER_TRAM_F_CANON | VIPER_TRAM_F_WIDE)) != VIPER_TRAM_F_CANON
      || t->dtype != VIPER_DTYPE_INT || t->ndata > G_MAXUINT8 || t->data_off > G_MAXUINT8
      || t->raw_len > G_MAXUINT16 || t->channel > G_MAXUINT16
      || t->rec != (gint16) t->rec || t->ev != (gint16) t->ev || t->process != (gint8) t->process
      || (t->type >= REC_NO_TYPE && t->type != VIPER_TYPE_UNKNOWN))
    return FALSE;
  const gint64 *d = (const gint64 *) (t + 1);
  guint i = 0;
  guint8 kind = REC_PACKED;
  if (t->ndata && d[0] == t->seq)
    {
      kind |= REC_D1_SEQ;
      i = 1;
    }
  guint8 buf[REC_DATA + 10], *p = buf;
  for (; i < t->ndata; i++)
    {
      p = viper_varint_put_s (p, d[i]);
      if (p - buf > REC_DATA)
        return FALSE;
    }
  r->time = t->time;
  r->line = t->line;
  r->raw_len = (guint16) t->raw_len;
  r->channel = (guint16) t->channel;
  r->rec = (gint16) t->rec;
  r->ev = (gint16) t->ev;
  r->type = t->type == VIPER_TYPE_UNKNOWN ? REC_NO_TYPE : (guint8) t->type;
  r->flags = t->flags;
  r->ndata = (guint8) t->ndata;
  r->data_off = (guint8) t->data_off;
  r->process = (gint8) t->process;
  memcpy (r->data, buf, REC_DATA);
  r->kind = kind;
  return TRUE;
}

/* The tram r holds, in a fresh block of pool (as viper_run_insert left it
 * before it was packed), or written into the caller's block (pool NULL,
 * room for the header and ndata fields).  Every field is stored once (a
 * compound literal would clear the block first). */
static inline ViperTram *
rec_unpack (const SeqRec *r, gint64 proc, gint64 seq, ViperTramPool *pool, ViperTram *into)
{
  ViperTram *t = into ? into : viper_tram_pool_alloc_raw (pool, r->ndata);
  t->time = r->time;
  t->adjusted = -INFINITY;
  t->proc = proc;
  t->seq = seq;
  t->next = NULL;
  t->prim = NULL;
  t->waiter_next = NULL;
  t->rec = r->rec;
  t->ev = r->ev;
  t->process = r->process;
  t->raw_len = r->raw_len;
  t->line = r->line;
  t->channel = r->channel;
  if (into)
    t->pool_slab = 0;
  t->ndata = r->ndata;
  t->data_off = r->data_off;
  t->type = r->type == REC_NO_TYPE ? VIPER_TYPE_UNKNOWN : r->type;
  t->slot = 0;
  t->dtype = VIPER_DTYPE_INT;
  t->state = VIPER_TRAM_INITIAL;
  t->waits = 0;
  t->flags = r->flags;
  gint64 *d = (gint64 *) (t + 1);
  guint i = 0;
  if (r->ndata && (r->kind & REC_D1_SEQ))
    d[i++] = seq;
  const guint8 *p = r->data;
  for (; i < r->ndata; i++)
    d[i] = viper_varint_get_s (&p);
  return t;
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
      l->dir_cap = DIR_MIN;
      l->dir = g_new0 (SeqPage *, DIR_MIN);
    }
  return l->pages;
}

static SeqPage *
page_new (ViperSeqList *l, guint64 pageno)
{
  ViperSeqPages *P = l->pages;
  /* counted with the trams' memory; the pool keeps a few emptied pages for
   * lists whose cuts take and give pages back */
  SeqPage *pg = viper_tram_pool_page_alloc (l->pool, sizeof *pg);
  pg->pageno = (gint64) pageno;
  P->n_pages++;
  return pg;
}

static void
page_drop (ViperSeqList *l, SeqPage *pg)
{
  l->pages->n_pages--;
  viper_tram_pool_page_free (l->pool, pg, sizeof *pg);
}

static void
release_page (ViperSeqList *l, SeqPage *pg, void (*release) (ViperTram *, gpointer), gpointer data)
{
  for (guint i = 0; i < PAGE_SLOTS; i++)
    if ((pg->slot[i].kind & REC_KIND) == REC_TRAM)
      release (pg->slot[i].tram, data);
  viper_tram_pool_page_free (l->pool, pg, sizeof *pg);
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
      for (guint i = 0; i < l->dir_cap; i++)
        if (l->dir[i])
          release_page (l, l->dir[i], release, data);
      if (P->far)
        {
          GHashTableIter it;
          gpointer k, v;
          g_hash_table_iter_init (&it, P->far);
          while (g_hash_table_iter_next (&it, &k, &v))
            release_page (l, v, release, data);
          g_hash_table_destroy (P->far);
        }
      g_free (l->dir);
      g_free (P);
    }
  gint64 proc = l->proc;
  ViperTramPool *pool = l->pool;
  viper_seqlist_init (l, proc);
  l->pool = pool;
}

static void
foreach_page (const ViperSeqList *l, const SeqPage *pg, void (*fn) (const ViperTram *, gpointer), gpointer data)
{
  for (guint i = 0; i < PAGE_SLOTS; i++)
    if (pg->slot[i].kind != REC_EMPTY)
      {
        const SeqRec *r = &pg->slot[i];
        if ((r->kind & REC_KIND) == REC_TRAM)
          fn (r->tram, data);
        else if ((r->kind & REC_KIND) == REC_PACKED)
          {
            /* unpacked for fn alone, into a block of its own that goes
             * after the call: a caller that kept it is caught by
             * AddressSanitizer (foreach is for reports, not a hot path) */
            ViperTram *t = g_malloc (sizeof (ViperTram) + r->ndata * sizeof (gint64));
            fn (rec_unpack (r, l->proc, (pg->pageno << PAGE_BITS) + (gint64) i, NULL, t), data);
            g_free (t);
          }
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
  for (guint i = 0; i < l->dir_cap; i++)
    if (l->dir[i])
      foreach_page (l, l->dir[i], fn, data);
  if (P->far)
    {
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, P->far);
      while (g_hash_table_iter_next (&it, &k, &v))
        foreach_page (l, v, fn, data);
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
  return sizeof *P + (gsize) l->dir_cap * sizeof (SeqPage *) + far
         + (gsize) P->n_pages * sizeof (SeqPage);
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
  for (guint i = 0; i < l->dir_cap; i++)
    if (l->dir[i])
      g_ptr_array_add (moved, l->dir[i]);
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
  g_free (l->dir);
  l->dir = dir;
  l->dir_cap = cap;
}

/* Store t (NULL: a used mark) in the slot of seq >= next_seq, packed when
 * it can be (and then released); FALSE if the slot is taken. */
static gboolean
place (ViperSeqList *l, guint64 seq, ViperTram *t)
{
  ViperSeqPages *P = pages_get (l);
  guint64 pageno = seq >> PAGE_BITS;
  guint64 dist = pageno - base_page (l);
  SeqPage *pg;
  if (dist >= l->dir_cap && dist < DIR_MAX)
    {
      guint cap = l->dir_cap;
      while (cap <= dist)
        cap <<= 1;
      rewindow (l, cap);
    }
  if (dist < l->dir_cap)
    {
      SeqPage **slot = &l->dir[pageno & (l->dir_cap - 1)];
      pg = *slot;
      if (!pg)
        pg = *slot = page_new (l, pageno);
    }
  else
    {
      if (!P->far)
        P->far = g_hash_table_new (g_int64_hash, g_int64_equal);
      gint64 key = (gint64) pageno;
      pg = g_hash_table_lookup (P->far, &key);
      if (!pg)
        {
          pg = page_new (l, pageno);
          g_hash_table_insert (P->far, &pg->pageno, pg);
        }
    }
  SeqRec *r = &pg->slot[seq & PAGE_MASK];
  if (r->kind != REC_EMPTY)
    return FALSE;
  P->occupied++;
  if (!t)
    {
      r->kind = REC_USED;
      return TRUE;
    }
  P->waiting++;
  t->state = VIPER_TRAM_INITIAL;
  if (l->pool && rec_pack (r, t))
    {
      viper_tram_pool_release (l->pool, t);
      return TRUE;
    }
  r->tram = t;
  r->kind = REC_TRAM;
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

/* The page the cut is in, which may hold nothing, goes (its directory
 * slot, which is the cut's page's or empty). */
static void
drop_cut_page (ViperSeqList *l)
{
  guint64 base = base_page (l);
  SeqPage **s = &l->dir[base & (l->dir_cap - 1)];
  if (*s)
    {
      g_assert ((guint64) (*s)->pageno == base);
      page_drop (l, *s);
      *s = NULL;
    }
}

/* The cut has consumed next_seq: move it on.  Leaving a page, drop it (the
 * cut has passed each of its slots) and slide the directory window by one
 * page. */
static inline void
advance (ViperSeqList *l)
{
  ViperSeqPages *P = l->pages;
  if (G_UNLIKELY (((guint64) l->next_seq & PAGE_MASK) == PAGE_MASK) && P)
    drop_cut_page (l);
  l->next_seq++;
  if (G_UNLIKELY (((guint64) l->next_seq & PAGE_MASK) == 0) && P && P->far && g_hash_table_size (P->far))
    {
      /* the slot of the page just left now stands for base + dir_cap - 1 */
      gint64 key = (gint64) (base_page (l) + l->dir_cap - 1);
      SeqPage *pg = g_hash_table_lookup (P->far, &key);
      if (pg)
        {
          g_hash_table_remove (P->far, &key);
          l->dir[(guint64) key & (l->dir_cap - 1)] = pg;
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
      SeqPage *pg = l->dir[(seq >> PAGE_BITS) & (l->dir_cap - 1)];
      if (!pg)
        break;
      SeqRec *r = &pg->slot[seq & PAGE_MASK];
      guint8 kind = r->kind & REC_KIND;
      if (kind == REC_EMPTY)
        break;
      /* the trams of a sweep lie anywhere in memory: ask for the ones a
       * few slots on while this one is linked */
      if ((seq & PAGE_MASK) + DRAIN_AHEAD < PAGE_SLOTS
          && (pg->slot[(seq & PAGE_MASK) + DRAIN_AHEAD].kind & REC_KIND) == REC_TRAM)
        viper_tram_prefetch (pg->slot[(seq & PAGE_MASK) + DRAIN_AHEAD].tram);
      ViperTram *t = kind == REC_TRAM ? r->tram
                   : kind == REC_PACKED ? rec_unpack (r, l->proc, (gint64) seq, l->pool, NULL) : NULL;
      r->kind = REC_EMPTY;
      P->occupied--;
      if (t)
        {
          P->waiting--;
          append (l, t, first);
          n++;
        }
      advance (l);
    }
  if (P && !P->occupied && P->n_pages)
    drop_cut_page (l);        /* nothing waits: no page is needed */
  if (P && !P->occupied && l->dir_cap > DIR_KEEP)
    {
      /* a burst far ahead has drained: give its directory back */
      g_free (l->dir);
      l->dir = g_new0 (SeqPage *, DIR_MIN);
      l->dir_cap = DIR_MIN;
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
  if (pageno - base_page (l) >= l->dir_cap)
    return;
  const SeqPage *pg = l->dir[pageno & (l->dir_cap - 1)];
  if (pg)
    __builtin_prefetch (&pg->slot[(guint64) seq & PAGE_MASK], 1);   /* a record: one line */
}

/* Something waits in the slot at the cut: a tram deferred there. */
static gboolean
cut_taken (const ViperSeqList *l)
{
  const ViperSeqPages *P = l->pages;
  if (!P || !P->occupied)
    return FALSE;
  guint64 seq = (guint64) l->next_seq;
  const SeqPage *pg = l->dir[(seq >> PAGE_BITS) & (l->dir_cap - 1)];
  return pg && pg->slot[seq & PAGE_MASK].kind != REC_EMPTY;
}

/* A tram at the cut goes to the queue only when it may be claimed soon:
 * behind defer_at unclaimed trams or more (a claim cursor that waits for a
 * partner, or for the transfers of its window), it waits packed in its slot
 * like a tram above the cut, and the cut stays (viper_seqlist_drain takes
 * it when the cursor gets there).  A trace read far ahead of its replay -
 * one processor's lines after another's - then waits in a quarter of the
 * memory. */
static inline gboolean
defer (const ViperSeqList *l)
{
  if (!l->claim || !l->defer_at || !l->pool)   /* nothing unclaimed: the common case first */
    return FALSE;
  guint64 waiting = l->pages ? l->pages->waiting : 0;
  guint64 queued = l->in_flight - waiting;   /* in the queue, claimed or not */
  return queued >= l->claimed_ahead + l->defer_at;
}

ViperSeqResult
viper_seqlist_insert (ViperSeqList *l, ViperTram *t, ViperTram **first_queued)
{
  *first_queued = NULL;
  if (t->seq < l->next_seq)
    return VIPER_SEQ_DUPLICATE;
  if (t->seq > l->next_seq)
    return place (l, (guint64) t->seq, t) ? VIPER_SEQ_INITIAL : VIPER_SEQ_DUPLICATE;
  if (G_UNLIKELY (l->pages && l->pages->occupied) && cut_taken (l))
    return VIPER_SEQ_DUPLICATE;
  if (G_UNLIKELY (defer (l)))
    return place (l, (guint64) t->seq, t) ? VIPER_SEQ_INITIAL : VIPER_SEQ_DUPLICATE;
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
    return place (l, (guint64) seq, NULL) ? VIPER_SEQ_INITIAL : VIPER_SEQ_DUPLICATE;
  if (cut_taken (l))
    return VIPER_SEQ_DUPLICATE;
  advance (l);
  drain (l, first_queued, VIPER_SEQ_BATCH);
  return VIPER_SEQ_QUEUED;
}

/* First occupied slot of pg at or after index from; PAGE_SLOTS if none. */
static guint
first_slot (const SeqPage *pg, guint from)
{
  for (guint i = from; i < PAGE_SLOTS; i++)
    if (pg->slot[i].kind != REC_EMPTY)
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
  for (guint i = 0; i < l->dir_cap && best == G_MAXUINT64; i++)
    {
      const SeqPage *pg = l->dir[(base + i) & (l->dir_cap - 1)];
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
  if (new_page)
    drop_cut_page (l);        /* nothing waits in it: the first waiting slot is further */
  l->next_seq = (gint64) best;
  if (new_page)
    rewindow (l, l->dir_cap);
  drain (l, first_queued, VIPER_SEQ_BATCH);
  return skipped;
}
