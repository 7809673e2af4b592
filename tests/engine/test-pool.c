/* test-pool.c - the tram pool gives memory back once a burst drains (issue 10
 * item 20): a million trams of mixed sizes released in random order leave
 * at most one spare slab per size class, the pages really go back to the
 * system (resident size, plain build), a second burst reuses the memory, and
 * alloc/release at a slab boundary keeps its spare instead of thrashing. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "core/tram.h"

#if defined(__SANITIZE_ADDRESS__)
#define POOL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_TEST_ASAN 1
#endif
#endif

#define SLAB VIPER_TRAM_POOL_SLAB_BYTES
#define BURST 1000000

/* Resident bytes of this process, or 0 when unknown. */
static gsize
resident (void)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  if (!f)
    return 0;
  unsigned long size = 0, res = 0;
  int n = fscanf (f, "%lu %lu", &size, &res);
  fclose (f);
  return n == 2 ? (gsize) res * (gsize) sysconf (_SC_PAGESIZE) : 0;
}

static gsize
block (guint32 ndata, guint32 raw_len)
{
  return (sizeof (ViperTram) + ndata * 8 + raw_len + 1 + 7) / 8 * 8;
}

typedef struct {
  ViperTram **t;
  guint32 *ndata, *len;
  gboolean cls_used[1025 / 8 + 1];
  guint n_classes;
} Burst;

/* BURST trams of mixed sizes (one in 1,000 over 1 KiB, a big tram), each
 * marked with its index and its text filled. */
static void
burst_alloc (ViperTramPool *pool, Burst *b, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  for (guint i = 0; i < BURST; i++)
    {
      guint32 nd = (guint32) g_rand_int_range (r, 0, 4);
      guint32 len = i % 1000 == 999 ? (guint32) g_rand_int_range (r, 1500, 4000) : (guint32) g_rand_int_range (r, 0, 400);
      b->ndata[i] = nd;
      b->len[i] = len;
      b->t[i] = viper_tram_pool_alloc (pool, nd, len);
      b->t[i]->line = i;
      memset ((char *) (b->t[i] + 1) + nd * 8, 'a' + (int) (i % 26), len);
      gsize sz = block (nd, len);
      if (sz <= 1024 && !b->cls_used[sz / 8])
        {
          b->cls_used[sz / 8] = TRUE;
          b->n_classes++;
        }
    }
  g_rand_free (r);
}

/* Release every tram in a random order, checking each is intact first. */
static void
burst_release (ViperTramPool *pool, Burst *b, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  guint32 *order = g_new (guint32, BURST);
  for (guint i = 0; i < BURST; i++)
    order[i] = i;
  for (guint i = BURST - 1; i > 0; i--)
    {
      guint j = (guint) g_rand_int_range (r, 0, (gint32) i + 1);
      guint32 x = order[i];
      order[i] = order[j];
      order[j] = x;
    }
  for (guint k = 0; k < BURST; k++)
    {
      guint i = order[k];
      ViperTram *t = b->t[i];
      g_assert_cmpuint (t->line, ==, i);
      const char *text = (const char *) (t + 1) + b->ndata[i] * 8;
      if (b->len[i])
        {
          g_assert_cmpint (text[0], ==, 'a' + (int) (i % 26));
          g_assert_cmpint (text[b->len[i] - 1], ==, 'a' + (int) (i % 26));
        }
      viper_tram_pool_release (pool, t);
      b->t[i] = NULL;
    }
  g_free (order);
  g_rand_free (r);
}

static void
test_burst_returns (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  Burst b = { 0 };
  b.t = g_new (ViperTram *, BURST);
  b.ndata = g_new (guint32, BURST);
  b.len = g_new (guint32, BURST);
  gsize rss0 = resident ();

  burst_alloc (pool, &b, 11);
  gsize in_use = viper_tram_pool_bytes_in_use (pool);
  gsize peak = viper_tram_pool_bytes_reserved_peak (pool);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, BURST);
  g_assert_cmpuint (in_use, >, (gsize) BURST * 100);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, peak);
  g_assert_cmpuint (peak, >=, in_use);
  g_assert_cmpuint (peak, <=, in_use + in_use / 8 + (gsize) b.n_classes * SLAB);   /* little waste */
  gsize rss1 = resident ();

  burst_release (pool, &b, 12);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, 0);
  /* what is left: one spare slab per class the burst used, no big tram */
  gsize left = viper_tram_pool_bytes_reserved (pool);
  g_test_message ("burst: %zu bytes in use, %zu reserved at peak, %zu after release (%u classes); "
                  "resident %zu -> %zu -> %zu",
                  in_use, peak, left, b.n_classes, rss0, rss1, resident ());
  g_assert_cmpuint (left, <=, (gsize) b.n_classes * SLAB);
  g_assert_cmpuint (left, <, peak / 50);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved_peak (pool), ==, peak);
#if defined(__linux__) && !defined(POOL_TEST_ASAN)
  /* the pages went back to the system, not only out of the pool's count
   * (the sanitizer's allocator keeps freed memory in quarantine) */
  if (rss0 && rss1 > rss0 + peak / 2)
    g_assert_cmpuint (resident (), <, rss0 + (rss1 - rss0) / 4);
  else
    g_test_message ("resident size not measurable here");
#endif

  /* the spares serve the next trams of their class: nothing new reserved */
  ViperTram *one = viper_tram_pool_alloc (pool, 0, 10);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, left);
  viper_tram_pool_release (pool, one);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, left);

  /* a second burst like the first reuses the memory: its peak is no higher */
  burst_alloc (pool, &b, 11);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, in_use);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved_peak (pool), ==, peak);
  burst_release (pool, &b, 13);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, left);

  g_free (b.t);
  g_free (b.ndata);
  g_free (b.len);
  viper_tram_pool_free (pool);
}

/* Alloc and release across a slab boundary: the emptied slab is kept as the
 * class's spare, not returned and taken again each time. */
static void
test_boundary_keeps_spare (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  GPtrArray *held = g_ptr_array_new ();
  /* fill the first slab of one class and take the first block of a second */
  while (viper_tram_pool_bytes_reserved (pool) < 2 * SLAB)
    {
      g_assert_cmpuint (held->len, <, SLAB);
      g_ptr_array_add (held, viper_tram_pool_alloc (pool, 2, 20));
    }
  g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, 2 * SLAB);
  for (guint i = 0; i < 10000; i++)
    {
      viper_tram_pool_release (pool, g_ptr_array_steal_index (held, held->len - 1));
      g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, 2 * SLAB);
      g_ptr_array_add (held, viper_tram_pool_alloc (pool, 2, 20));
      g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, 2 * SLAB);
    }
  /* all released: the class keeps one spare slab */
  for (guint i = 0; i < held->len; i++)
    viper_tram_pool_release (pool, held->pdata[i]);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, SLAB);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved_peak (pool), ==, 2 * SLAB);

  /* big trams are their own blocks, freed on release */
  ViperTram *big = viper_tram_pool_alloc (pool, 0, 5000);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), >, SLAB + 5000);
  viper_tram_pool_release (pool, big);
  g_assert_cmpuint (viper_tram_pool_bytes_reserved (pool), ==, SLAB);
  g_ptr_array_free (held, TRUE);
  viper_tram_pool_free (pool);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pool/burst-returns", test_burst_returns);
  g_test_add_func ("/pool/boundary-keeps-spare", test_boundary_keeps_spare);
  return g_test_run ();
}
