/* test-seqlist.c - the paged sequence list on its own: distances, pages
 * given back, duplicates, used marks, gap skipping, shuffled order; each
 * with waiting trams kept as they are and packed into their slots, and
 * packing that gives back every field. */
#include <math.h>
#include <string.h>
#include "core/seqlist.h"
#include "tests/common/test-tram.h"

static ViperTramPool *pool;
static gboolean packing;    /* the tests' trams are canonical and the lists have a pool */

static void
init (ViperSeqList *l, gint64 proc)
{
  viper_seqlist_init (l, proc);
  if (packing)
    viper_seqlist_set_pool (l, pool);
}

/* Packing: a canonical tram with D1 = seq and a second field derived from it. */
static ViperTram *
mk (gint64 seq)
{
  if (!packing)
    {
      ViperTram *t = viper_tram_pool_alloc (pool, 0, 0);
      t->seq = seq;
      return t;
    }
  ViperTram *t = viper_tram_pool_alloc (pool, 2, 0);
  t->seq = seq;
  t->proc = 3;
  t->time = (double) seq / 8;
  t->adjusted = -INFINITY;
  t->rec = 1;
  t->ev = 10;
  t->ndata = 2;
  t->dtype = VIPER_DTYPE_INT;
  t->flags = VIPER_TRAM_F_CANON;
  t->line = (guint32) seq + 1;
  gint64 *d = viper_tram_data (t);
  d[0] = seq;
  d[1] = -(seq % 1000);
  return t;
}

/* What mk gave, after waiting (packed or not). */
static void
check_mk (const ViperTram *t)
{
  if (!packing)
    return;
  g_assert_cmpint (t->ndata, ==, 2);
  g_assert_cmpfloat (t->time, ==, (double) t->seq / 8);
  g_assert_cmpuint (t->line, ==, (guint32) t->seq + 1);
  g_assert_cmpint (viper_tram_datum (t, 0, -1), ==, t->seq);
  g_assert_cmpint (viper_tram_datum (t, 1, -1), ==, -(t->seq % 1000));
}

static void
release (ViperTram *t, gpointer data)
{
  viper_tram_pool_release (data, t);
}

/* Pop every QUEUED tram, and every tram the cut can pass (a batch at a
 * time), checking they come in sequence order from `from`; returns how many. */
static guint64
pop_all (ViperSeqList *l, gint64 *from)
{
  guint64 n = 0;
  ViperTram *first;
  while (l->head || viper_seqlist_drain (l, &first, VIPER_SEQ_BATCH))
    {
      ViperTram *t = l->head;
      l->head = t->next;
      g_assert_cmpint (t->seq, ==, *from);
      check_mk (t);
      (*from)++;
      viper_tram_pool_release (pool, t);
      n++;
      if (!l->head)
        l->tail = l->claim = NULL;
    }
  return n;
}

/* A tram at distance d above the cut: one page, found again, duplicate
 * detected; then the cut reaches it (by filling, or by skipping the gap)
 * and every page is given back. */
static void
test_distances (gconstpointer mode)
{
  packing = GPOINTER_TO_INT (mode);
  static const guint64 dist[] = { 1, 1024, 1u << 20, 1u << 30 };
  for (guint i = 0; i < G_N_ELEMENTS (dist); i++)
    {
      ViperSeqList l;
      init (&l, 7);
      ViperTram *first;
      gint64 far = 1 + (gint64) dist[i];
      /* a prefetch (the source's look ahead) anywhere changes nothing */
      viper_seqlist_prefetch (&l, far);
      g_assert_cmpint (viper_seqlist_insert (&l, mk (far), &first), ==, VIPER_SEQ_INITIAL);
      viper_seqlist_prefetch (&l, far + 1);
      viper_seqlist_prefetch (&l, far + (gint64) dist[i]);
      viper_seqlist_prefetch (&l, 0);
      g_assert_cmpuint (viper_seqlist_pages (&l), ==, 1);
      g_assert_null (first);
      g_assert_cmpuint (viper_seqlist_pages (&l), ==, 1);
      g_assert_cmpuint (viper_seqlist_initial (&l), ==, 1);
      g_assert_cmpuint (viper_seqlist_bytes (&l), <, 200 * 1024);   /* not proportional to d */
      ViperTram *dup = mk (far);
      g_assert_cmpint (viper_seqlist_insert (&l, dup, &first), ==, VIPER_SEQ_DUPLICATE);
      viper_tram_pool_release (pool, dup);
      /* its successor lands on the same or the next page */
      g_assert_cmpint (viper_seqlist_insert (&l, mk (far + 1), &first), ==, VIPER_SEQ_INITIAL);
      g_assert_cmpuint (viper_seqlist_pages (&l), <=, 2);
      gint64 expect = 1;
      if (dist[i] <= 1024)
        {
          /* fill the gap in reverse, then the tram at the cut takes all */
          for (gint64 s = far - 1; s >= 2; s--)
            g_assert_cmpint (viper_seqlist_insert (&l, mk (s), &first), ==, VIPER_SEQ_INITIAL);
          g_assert_cmpint (viper_seqlist_insert (&l, mk (1), &first), ==, VIPER_SEQ_QUEUED);
          g_assert_nonnull (first);
          g_assert_cmpuint (pop_all (&l, &expect), ==, (guint64) far + 1);
        }
      else
        {
          g_assert_cmpuint (viper_seqlist_skip_gap (&l, &first), ==, dist[i]);
          g_assert_nonnull (first);
          expect = far;
          g_assert_cmpuint (pop_all (&l, &expect), ==, 2);
        }
      g_assert_cmpint (l.next_seq, ==, far + 2);
      g_assert_cmpuint (viper_seqlist_pages (&l), ==, 0);
      g_assert_cmpuint (viper_seqlist_initial (&l), ==, 0);
      g_assert_cmpuint (viper_seqlist_bytes (&l), <, 16 * 1024);   /* at most one spare page (8 KiB) left */
      /* below the cut is a duplicate */
      ViperTram *old = mk (far);
      g_assert_cmpint (viper_seqlist_insert (&l, old, &first), ==, VIPER_SEQ_DUPLICATE);
      viper_tram_pool_release (pool, old);
      viper_seqlist_clear (&l, release, pool);
    }
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
}

/* Far pages (beyond the directory) come into it as the cut advances, and a
 * 1 Gi tram waiting while a million others pass stays found. */
static void
test_far_pages_move_in (gconstpointer mode)
{
  packing = GPOINTER_TO_INT (mode);
  ViperSeqList l;
  init (&l, 1);
  ViperTram *first;
  const gint64 n = 3 << 19;   /* past the directory's reach of 1 Mi */
  gint64 huge = ((gint64) 1 << 30) + 5;
  g_assert_cmpint (viper_seqlist_insert (&l, mk (huge), &first), ==, VIPER_SEQ_INITIAL);
  /* every 4 Ki-th seq far ahead first (beyond the directory's reach) */
  for (gint64 s = n; s > 1; s -= 4096)
    g_assert_cmpint (viper_seqlist_insert (&l, mk (s), &first), ==, VIPER_SEQ_INITIAL);
  gint64 expect = 1;
  guint64 got = 0;
  for (gint64 s = 1; s <= n; s++)
    {
      if (s <= n && s > 1 && (n - s) % 4096 == 0)
        continue;       /* already waiting */
      ViperSeqResult r = viper_seqlist_insert (&l, mk (s), &first);
      g_assert_cmpint (r, ==, VIPER_SEQ_QUEUED);
      got += pop_all (&l, &expect);
    }
  g_assert_cmpuint (got, ==, (guint64) n);
  g_assert_cmpuint (viper_seqlist_initial (&l), ==, 1);
  /* the huge one's page, and perhaps the cut's, kept until the cut leaves it */
  g_assert_cmpuint (viper_seqlist_pages (&l), <=, 2);
  ViperTram *dup = mk (huge);
  g_assert_cmpint (viper_seqlist_insert (&l, dup, &first), ==, VIPER_SEQ_DUPLICATE);
  viper_tram_pool_release (pool, dup);
  viper_seqlist_clear (&l, release, pool);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
}

/* A full random permutation: every tram out once, in order, pages back. */
static void
test_shuffled (gconstpointer mode)
{
  packing = GPOINTER_TO_INT (mode);
  ViperSeqList l;
  init (&l, 3);
  const guint n = 200000;
  gint64 *perm = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    perm[i] = i + 1;
  GRand *r = g_rand_new_with_seed (11);
  for (guint i = n - 1; i > 0; i--)
    {
      guint j = (guint) g_rand_int_range (r, 0, (gint32) i + 1);
      gint64 tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
    }
  gint64 expect = 1;
  guint64 got = 0, peak_pages = 0;
  ViperTram *first;
  for (guint i = 0; i < n; i++)
    {
      viper_seqlist_insert (&l, mk (perm[i]), &first);
      peak_pages = MAX (peak_pages, viper_seqlist_pages (&l));
      got += pop_all (&l, &expect);
      if (i % 1000 == 0)
        {
          ViperTram *d = mk (perm[i / 2]);   /* every one of these was seen */
          g_assert_cmpint (viper_seqlist_insert (&l, d, &first), ==, VIPER_SEQ_DUPLICATE);
          viper_tram_pool_release (pool, d);
        }
    }
  g_assert_cmpuint (got, ==, n);
  g_assert_cmpuint (peak_pages, <=, n / VIPER_SEQ_PAGE_SLOTS + 1);
  g_assert_cmpuint (viper_seqlist_pages (&l), ==, 0);
  g_rand_free (r);
  g_free (perm);
  viper_seqlist_clear (&l, release, pool);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
}

/* A used mark (a rejected line's seq) lets the cut pass, and is a duplicate. */
static void
test_used_marks (gconstpointer mode)
{
  packing = GPOINTER_TO_INT (mode);
  ViperSeqList l;
  init (&l, 0);
  ViperTram *first;
  g_assert_cmpint (viper_seqlist_insert (&l, mk (3), &first), ==, VIPER_SEQ_INITIAL);
  g_assert_cmpint (viper_seqlist_mark_used (&l, 2, &first), ==, VIPER_SEQ_INITIAL);
  g_assert_cmpint (viper_seqlist_mark_used (&l, 2, &first), ==, VIPER_SEQ_DUPLICATE);
  g_assert_cmpuint (viper_seqlist_initial (&l), ==, 1);
  g_assert_cmpint (viper_seqlist_insert (&l, mk (1), &first), ==, VIPER_SEQ_QUEUED);
  gint64 expect = 1;
  g_assert_nonnull (l.head);
  g_assert_cmpint (l.head->seq, ==, 1);
  g_assert_cmpint (l.head->next->seq, ==, 3);
  g_assert_null (l.head->next->next);
  g_assert_cmpint (l.next_seq, ==, 4);
  /* at the cut: passes at once */
  g_assert_cmpint (viper_seqlist_mark_used (&l, 4, &first), ==, VIPER_SEQ_QUEUED);
  g_assert_null (first);
  g_assert_cmpint (l.next_seq, ==, 5);
  ViperTram *d = mk (2);
  g_assert_cmpint (viper_seqlist_insert (&l, d, &first), ==, VIPER_SEQ_DUPLICATE);
  viper_tram_pool_release (pool, d);
  (void) expect;
  viper_seqlist_clear (&l, release, pool);
  g_assert_cmpuint (viper_seqlist_pages (&l), ==, 0);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
}

static void
visit (const ViperTram *t, gpointer data)
{
  GArray *seen = data;
  g_array_append_val (seen, t->seq);
}

static gint
cmp_seq (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* foreach visits every tram the list holds once: the QUEUED ones in order,
 * then the INITIAL ones in the directory and in far pages; used marks are
 * not trams (clocksync takes the samples of pending trams this way). */
static void
test_foreach (gconstpointer mode)
{
  packing = GPOINTER_TO_INT (mode);
  ViperSeqList l;
  init (&l, 3);
  ViperTram *first;
  static const gint64 seqs[] = { 1, 2, 3, 10, 300, ((gint64) 1 << 30) + 7 };
  for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
    viper_seqlist_insert (&l, mk (seqs[i]), &first);
  g_assert_cmpint (viper_seqlist_mark_used (&l, 11, &first), ==, VIPER_SEQ_INITIAL);
  GArray *seen = g_array_new (FALSE, FALSE, sizeof (gint64));
  viper_seqlist_foreach (&l, visit, seen);
  g_assert_cmpuint (seen->len, ==, G_N_ELEMENTS (seqs));
  for (guint i = 0; i < 3; i++)
    g_assert_cmpint (g_array_index (seen, gint64, i), ==, seqs[i]);    /* the queue first, in order */
  g_array_sort (seen, cmp_seq);
  for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
    g_assert_cmpint (g_array_index (seen, gint64, i), ==, seqs[i]);
  g_array_unref (seen);
  viper_seqlist_clear (&l, release, pool);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
}

/* A tram at the cut behind defer_at unclaimed ones waits packed (with a
 * pool), the cut staying before it; a duplicate of it is still one; the
 * trams come out in order when the queue has been taken. */
static void
test_defer (gconstpointer mode)
{
  packing = GPOINTER_TO_INT (mode);
  ViperSeqList l;
  init (&l, 3);
  l.defer_at = 4;
  ViperTram *first;
  for (gint64 s = 1; s <= 4; s++)
    {
      g_assert_cmpint (viper_seqlist_insert (&l, mk (s), &first), ==, VIPER_SEQ_QUEUED);
      l.in_flight++;            /* as viper_run_insert counts it */
    }
  g_assert_true (l.claim == l.head);   /* none claimed */
  ViperSeqResult r = viper_seqlist_insert (&l, mk (5), &first);
  l.in_flight++;
  if (!packing)
    {
      g_assert_cmpint (r, ==, VIPER_SEQ_QUEUED);   /* nothing is packed without a pool */
      g_assert_cmpint (l.next_seq, ==, 6);
    }
  else
    {
      g_assert_cmpint (r, ==, VIPER_SEQ_INITIAL);
      g_assert_null (first);
      g_assert_cmpint (l.next_seq, ==, 5);
      g_assert_cmpuint (viper_seqlist_initial (&l), ==, 1);
      ViperTram *dup = mk (5);
      g_assert_cmpint (viper_seqlist_insert (&l, dup, &first), ==, VIPER_SEQ_DUPLICATE);
      viper_tram_pool_release (pool, dup);
      g_assert_cmpint (viper_seqlist_mark_used (&l, 5, &first), ==, VIPER_SEQ_DUPLICATE);
      g_assert_cmpint (viper_seqlist_insert (&l, mk (6), &first), ==, VIPER_SEQ_INITIAL);   /* above the cut */
      l.in_flight++;
    }
  gint64 expect = 1;
  g_assert_cmpuint (pop_all (&l, &expect), ==, packing ? 6 : 5);
  g_assert_cmpuint (viper_seqlist_pages (&l), ==, 0);
  viper_seqlist_clear (&l, release, pool);

  /* the same queue, mostly claimed: one unclaimed tram is fewer than defer_at */
  init (&l, 4);
  l.defer_at = 4;
  for (gint64 s = 1; s <= 4; s++)
    {
      g_assert_cmpint (viper_seqlist_insert (&l, mk (s), &first), ==, VIPER_SEQ_QUEUED);
      l.in_flight++;
    }
  l.claim = l.tail;             /* three claimed, the cursor on the fourth */
  l.claimed_ahead = 3;
  g_assert_cmpint (viper_seqlist_insert (&l, mk (5), &first), ==, VIPER_SEQ_QUEUED);
  g_assert_cmpint (l.next_seq, ==, 6);
  g_assert_cmpuint (viper_seqlist_initial (&l), ==, 0);
  viper_seqlist_clear (&l, release, pool);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
}

/* ---- packing ----------------------------------------------------------------- */

/* A tram as viper_run_insert hands it over: fields from the spec, text only
 * when not canonical. */
static ViperTram *
mk_full (gint64 seq, guint flags, gint32 rec, gint32 ev, gint32 process, guint32 raw_len, guint32 channel,
         guint16 type, guint16 data_off, guint ndata, const gint64 *data, const char *text)
{
  ViperTram *t = text ? viper_tram_pool_alloc (pool, ndata, (guint32) strlen (text))
                      : viper_tram_pool_alloc (pool, ndata, 0);
  t->seq = seq;
  t->proc = 5;
  t->time = -12.345678 * (double) seq;
  t->adjusted = -INFINITY;
  t->rec = rec;
  t->ev = ev;
  t->process = process;
  t->raw_len = text ? (guint32) strlen (text) : raw_len;
  t->line = 4000000000u - (guint32) seq;
  t->channel = channel;
  t->ndata = (guint16) ndata;
  t->data_off = data_off;
  t->type = type;
  t->dtype = VIPER_DTYPE_INT;
  t->flags = (guint8) flags | (text ? 0 : VIPER_TRAM_F_CANON);
  if (ndata)
    memcpy (viper_tram_data (t), data, ndata * sizeof (gint64));
  if (text)
    memcpy ((char *) viper_tram_raw (t), text, strlen (text) + 1);
  return t;
}

/* b came back from waiting in a list: a's content, and fresh engine fields */
static void
assert_same (const ViperTram *a, const ViperTram *b)
{
  test_assert_same_tram (a, b);
  g_assert_true (isinf (b->adjusted) && b->adjusted < 0);
  g_assert_null (b->prim);
  g_assert_null (b->waiter_next);
  g_assert_cmpuint (b->waits, ==, 0);
}

static guint64 visited;
static gint64 seq_base;

static void
visit_same (const ViperTram *t, gpointer data)
{
  GPtrArray *orig = data;
  assert_same (orig->pdata[t->seq - seq_base], t);
  visited++;
}

/* Every field survives a wait, packed (small fields, canonical) or kept
 * (too large for a slot, text kept, wide): the trams that leave are equal to
 * those inserted, foreach shows them equal meanwhile, and packed ones gave
 * their blocks back while they waited. */
static void
test_pack_fields (void)
{
  static const gint64 small[] = { 2, -3, 63, -64 };          /* D1 = seq put first below */
  static const gint64 six[] = { 0, 8191, -8192, 0 };          /* 1 + 2 + 2 + 1 bytes: fits exactly */
  static const gint64 seven[] = { 0, 8192, -8192, 0 };        /* 1 + 3 + 2 + 1: one byte over */
  static const gint64 big[] = { 0, G_MAXINT64, G_MININT64 };
  struct {
    guint flags;
    gint32 rec, ev, process;
    guint32 raw_len, channel;
    guint16 type, data_off;
    guint ndata;
    const gint64 *data;
    gboolean d1_seq;
    const char *text;
    gboolean packs;
  } cases[] = {
    { 0, 1, 10, 0, 20, 0, 3, 12, 4, small, TRUE, NULL, TRUE },
    { 0, 1, 10, 0, 20, 0, 3, 12, 4, small, FALSE, NULL, TRUE },      /* D1 is not the seq */
    { 0, -32768, 32767, -128, 65535, 65535, 254, 255, 4, six, FALSE, NULL, TRUE },
    { 0, -32768, 32767, 127, 65535, 65535, VIPER_TYPE_UNKNOWN, 255, 4, six, FALSE, NULL, TRUE },
    { 0, 2, 30, 0, 20, 0, 1, 12, 4, seven, FALSE, NULL, FALSE },
    { 0, 2, 30, 0, 20, 0, 1, 12, 0, NULL, TRUE, NULL, TRUE },        /* no data */
    { VIPER_TRAM_F_IGNORED | VIPER_TRAM_F_UNINTERPRETED, 7, 7, 0, 9, 2, VIPER_TYPE_UNKNOWN, 0, 0, NULL, TRUE,
      NULL, TRUE },
    { 0, 32768, 1, 0, 20, 0, 1, 12, 1, small, TRUE, NULL, FALSE },   /* REC over 16 bits */
    { 0, 1, -32769, 0, 20, 0, 1, 12, 1, small, TRUE, NULL, FALSE },  /* EV */
    { 0, 1, 1, 128, 20, 0, 1, 12, 1, small, TRUE, NULL, FALSE },     /* PROCESS over 8 bits */
    { 0, 1, 1, 0, 65536, 0, 1, 12, 1, small, TRUE, NULL, FALSE },    /* a long line */
    { 0, 1, 1, 0, 20, 65536, 1, 12, 1, small, TRUE, NULL, FALSE },   /* channel */
    { 0, 1, 1, 0, 20, 0, 255, 12, 1, small, TRUE, NULL, FALSE },     /* type index 255 */
    { 0, 1, 1, 0, 20, 0, 1, 256, 1, small, TRUE, NULL, FALSE },      /* DTYPE far in the line */
    { 0, 1, 1, 0, 20, 0, 1, 12, 3, big, TRUE, NULL, FALSE },
    { 0, 1, 10, 0, 0, 0, 3, 12, 2, small, TRUE, "1  10 0.5 5 0 2 2 x 2", FALSE },   /* text kept */
    { VIPER_TRAM_F_WIDE, 1, 10, 0, 20, 0, VIPER_TYPE_UNKNOWN, 12, 2, small, TRUE, NULL, FALSE },
  };
  for (int round = 0; round < 2; round++)
    {
      ViperSeqList l;
      viper_seqlist_init (&l, 5);
      viper_seqlist_set_pool (&l, pool);
      GPtrArray *orig = g_ptr_array_new ();
      ViperTram *first;
      guint n = G_N_ELEMENTS (cases);
      guint live0 = (guint) viper_tram_pool_live (pool), kept = 0;
      /* the second round far above the cut, beyond the directory's reach */
      seq_base = round ? ((gint64) 1 << 30) : 2;
      for (guint k = 0; k < n; k++)
        {
          gint64 seq = seq_base + (gint64) k;
          gint64 data[8];
          memcpy (data, cases[k].data ? cases[k].data : small, sizeof (gint64) * MAX (cases[k].ndata, 1));
          if (cases[k].ndata)
            data[0] = cases[k].d1_seq ? seq : 5;
          ViperTram *t = mk_full (seq, cases[k].flags, cases[k].rec, cases[k].ev, cases[k].process, cases[k].raw_len,
                                  cases[k].channel, cases[k].type, cases[k].data_off, cases[k].ndata, data, cases[k].text);
          g_ptr_array_add (orig, viper_tram_copy (pool, t));
          /* the copy is a fresh tram: give it the engine's -inf and the flags the copy drops */
          ((ViperTram *) orig->pdata[k])->adjusted = -INFINITY;
          ((ViperTram *) orig->pdata[k])->flags = t->flags;
          g_assert_cmpint (viper_seqlist_insert (&l, t, &first), ==, VIPER_SEQ_INITIAL);
          kept += !cases[k].packs;
          /* packed: its block went back (the copies stay) */
          g_test_message ("round %d case %u", round, k);
          g_assert_cmpuint (viper_tram_pool_live (pool), ==, live0 + k + 1 + kept);
        }
      visited = 0;
      viper_seqlist_foreach (&l, visit_same, orig);
      g_assert_cmpuint (visited, ==, n);
      if (round == 1)
        {
          /* let them go by clearing: nothing leaks */
          viper_seqlist_clear (&l, release, pool);
          g_assert_cmpuint (viper_tram_pool_live (pool), ==, live0 + n);
        }
      else
        {
          g_assert_cmpint (viper_seqlist_insert (&l, mk_full (1, 0, 1, 1, 0, 5, 0, 1, 0, 0, NULL, NULL), &first), ==,
                           VIPER_SEQ_QUEUED);
          ViperTram *t = l.head;
          g_assert_cmpint (t->seq, ==, 1);
          l.head = t->next;
          viper_tram_pool_release (pool, t);
          while (l.head || viper_seqlist_drain (&l, &first, VIPER_SEQ_BATCH))
            {
              t = l.head;
              l.head = t->next;
              g_assert_cmpint (t->state, ==, VIPER_TRAM_QUEUED);
              t->state = VIPER_TRAM_INITIAL;
              assert_same (orig->pdata[t->seq - seq_base], t);
              viper_tram_pool_release (pool, t);
            }
          l.tail = l.claim = NULL;
          g_assert_cmpint (l.next_seq, ==, (gint64) n + 2);
          g_assert_cmpuint (viper_seqlist_pages (&l), ==, 0);
          viper_seqlist_clear (&l, release, pool);
        }
      for (guint k = 0; k < n; k++)
        viper_tram_pool_release (pool, orig->pdata[k]);
      g_ptr_array_unref (orig);
      g_assert_cmpuint (viper_tram_pool_live (pool), ==, live0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  pool = viper_tram_pool_new ();
  static const struct { const char *name; GTestDataFunc fn; } tests[] = {
    { "distances", test_distances },
    { "far-pages-move-in", test_far_pages_move_in },
    { "shuffled", test_shuffled },
    { "used-marks", test_used_marks },
    { "foreach", test_foreach },
    { "defer", test_defer },
  };
  for (int mode = 0; mode < 2; mode++)
    for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
      {
        char *path = g_strdup_printf ("/seqlist/%s/%s", mode ? "packed" : "kept", tests[i].name);
        g_test_add_data_func (path, GINT_TO_POINTER (mode), tests[i].fn);
        g_free (path);
      }
  g_test_add_func ("/seqlist/pack-fields", test_pack_fields);
  int rc = g_test_run ();
  viper_tram_pool_free (pool);
  return rc;
}
