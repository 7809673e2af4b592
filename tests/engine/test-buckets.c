/* test-buckets.c - the run's matching-bucket table (core/buckets.c) against
 * a GHashTable: random inserts and removes with keys that collide on
 * purpose, so that deletion by backward shift must keep every probe run
 * whole; the table shrinks back when it empties. */
#include "core/buckets.h"

static guint
ref_hash (gconstpointer p)
{
  const gint64 *k = p;
  return (guint) (k[0] * 31 + k[1] * 7 + k[2]);
}

static gboolean
ref_equal (gconstpointer a, gconstpointer b)
{
  const gint64 *x = a, *y = b;
  return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}

static void
test_random (void)
{
  ViperBuckets t;
  viper_buckets_init (&t);
  GHashTable *ref = g_hash_table_new_full (ref_hash, ref_equal, g_free, NULL);
  GRand *r = g_rand_new_with_seed (11);
  guint peak_cap = 0;
  for (guint round = 0; round < 3; round++)
    {
      /* fill to a few thousand live keys, then drain to none */
      for (guint step = 0; step < 60000; step++)
        {
          gboolean filling = step < 40000;
          ViperBucketKey k = { .list = g_rand_int_range (r, 0, 64), .k1 = g_rand_int_range (r, 0, 64),
                               .k2 = g_rand_int_range (r, -2, 2), .cls = (guint32) g_rand_int_range (r, 1, 4) };
          gint64 rk[4] = { k.list, k.k1, k.k2, k.cls };
          gpointer stored = g_hash_table_lookup (ref, rk);
          ViperBucket *b = viper_buckets_lookup (&t, &k);
          g_assert_true ((b != NULL) == (stored != NULL));
          if (b)
            g_assert_true (b->stalled == stored);
          if (b && (!filling || g_rand_boolean (r)))
            {
              viper_buckets_remove (&t, b);
              g_hash_table_remove (ref, rk);
            }
          else if (!b && filling)
            {
              b = viper_buckets_get (&t, &k);
              g_assert_null (b->head);
              g_assert_null (b->stalled);
              gint64 *copy = g_memdup2 (rk, sizeof rk);
              b->stalled = copy;          /* any pointer unique to the key */
              g_hash_table_insert (ref, copy, copy);
            }
          g_assert_cmpuint (t.n, ==, g_hash_table_size (ref));
          peak_cap = MAX (peak_cap, t.cap);
        }
      /* every key left is found with its value, and nothing else is */
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init (&it, ref);
      while (g_hash_table_iter_next (&it, &key, NULL))
        {
          const gint64 *rk = key;
          ViperBucketKey k = { .list = rk[0], .k1 = rk[1], .k2 = rk[2], .cls = (guint32) rk[3] };
          ViperBucket *b = viper_buckets_lookup (&t, &k);
          g_assert_nonnull (b);
          g_assert_true (b->stalled == key);
          viper_buckets_remove (&t, b);
        }
      g_hash_table_remove_all (ref);
      g_assert_cmpuint (t.n, ==, 0);
      /* emptied: back to the least size once a whole window of as many
       * removals as the table has slots never held more than an eighth of
       * them (the window under way began during the fill: two windows) */
      guint window = t.cap;
      for (guint i = 0; i < 2 * window; i++)
        {
          ViperBucketKey k = { .list = -1, .k1 = i, .cls = 1 };
          viper_buckets_remove (&t, viper_buckets_get (&t, &k));
        }
      g_assert_cmpuint (t.cap, <=, 64);
    }
  g_assert_cmpuint (peak_cap, >=, 4096);
  viper_buckets_clear (&t);
  g_rand_free (r);
  g_hash_table_destroy (ref);
}

/* A count that swings across the shrink threshold must not resize the
 * table back and forth (the Farm's open messages swing between 15 and 33). */
static void
test_swing (void)
{
  ViperBuckets t;
  viper_buckets_init (&t);
  guint cap = 0;
  for (guint cycle = 0; cycle < 200; cycle++)
    {
      for (guint i = 0; i < 33; i++)
        {
          ViperBucketKey k = { .list = i, .k1 = cycle, .cls = 1 };
          viper_buckets_get (&t, &k);
        }
      if (cycle == 0)
        cap = t.cap;
      g_assert_cmpuint (t.cap, ==, cap);
      for (guint i = 0; i < 33 - 15; i++)
        {
          ViperBucketKey k = { .list = i, .k1 = cycle, .cls = 1 };
          ViperBucket *b = viper_buckets_lookup (&t, &k);
          g_assert_nonnull (b);
          viper_buckets_remove (&t, b);
        }
      g_assert_cmpuint (t.cap, ==, cap);
      for (guint i = 33 - 15; i < 33; i++)
        {
          ViperBucketKey k = { .list = i, .k1 = cycle, .cls = 1 };
          viper_buckets_remove (&t, viper_buckets_lookup (&t, &k));
        }
    }
  g_assert_cmpuint (cap, ==, 128);
  g_assert_cmpuint (t.n, ==, 0);
  viper_buckets_clear (&t);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/buckets/random", test_random);
  g_test_add_func ("/buckets/swing", test_swing);
  return g_test_run ();
}
