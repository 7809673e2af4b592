/* test-seqlist.c - the paged sequence list on its own: distances, pages
 * given back, duplicates, used marks, gap skipping, shuffled order. */
#include <string.h>
#include "core/seqlist.h"

static ViperTramPool *pool;

static ViperTram *
mk (gint64 seq)
{
  ViperTram *t = viper_tram_pool_alloc (pool, 0, 0);
  t->seq = seq;
  return t;
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
test_distances (void)
{
  static const guint64 dist[] = { 1, 1024, 1u << 20, 1u << 30 };
  for (guint i = 0; i < G_N_ELEMENTS (dist); i++)
    {
      ViperSeqList l;
      viper_seqlist_init (&l, 7);
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
      g_assert_cmpuint (viper_seqlist_bytes (&l), <, 4096);        /* at most one spare page left */
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
test_far_pages_move_in (void)
{
  ViperSeqList l;
  viper_seqlist_init (&l, 1);
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
  g_assert_cmpuint (viper_seqlist_pages (&l), ==, 1);
  ViperTram *dup = mk (huge);
  g_assert_cmpint (viper_seqlist_insert (&l, dup, &first), ==, VIPER_SEQ_DUPLICATE);
  viper_tram_pool_release (pool, dup);
  viper_seqlist_clear (&l, release, pool);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
}

/* A full random permutation: every tram out once, in order, pages back. */
static void
test_shuffled (void)
{
  ViperSeqList l;
  viper_seqlist_init (&l, 3);
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
  g_assert_cmpuint (peak_pages, <=, n / 256 + 1);
  g_assert_cmpuint (viper_seqlist_pages (&l), ==, 0);
  g_rand_free (r);
  g_free (perm);
  viper_seqlist_clear (&l, release, pool);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
}

/* A used mark (a rejected line's seq) lets the cut pass, and is a duplicate. */
static void
test_used_marks (void)
{
  ViperSeqList l;
  viper_seqlist_init (&l, 0);
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
test_foreach (void)
{
  ViperSeqList l;
  viper_seqlist_init (&l, 3);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  pool = viper_tram_pool_new ();
  g_test_add_func ("/seqlist/distances", test_distances);
  g_test_add_func ("/seqlist/far-pages-move-in", test_far_pages_move_in);
  g_test_add_func ("/seqlist/shuffled", test_shuffled);
  g_test_add_func ("/seqlist/used-marks", test_used_marks);
  g_test_add_func ("/seqlist/foreach", test_foreach);
  int rc = g_test_run ();
  viper_tram_pool_free (pool);
  return rc;
}
