/* buckets.c - open addressing with linear probing; see buckets.h.
 *
 * The table grows at half full and shrinks (never below MIN_CAP) when, over
 * a window of as many removals as it has slots, it never held more than an
 * eighth of them: its size follows the buckets that hold something - the
 * run removes a bucket as soon as it is empty - without thrashing.  A count
 * that swings across a fixed threshold (the Farm's open messages swing
 * between 15 and 33 all the time) used to resize every few hundred
 * operations, the whole table each time: 2,000 resizes and about 7 % of the
 * engine's instructions on 200,000 Farm trams.  A shrink goes straight to
 * the size the window's peak needs.  Resizes stay amortised O(1).
 */
#include <string.h>
#include "buckets.h"

#define MIN_CAP 64u
#define USED_BIT 0x80000000u

static inline guint32
key_hash (const ViperBucketKey *k)
{
  guint64 h = (guint64) k->list * 0x9E3779B97F4A7C15ull;
  h ^= (guint64) k->k1 * 0xC2B2AE3D27D4EB4Full + (h >> 29);
  h ^= (guint64) k->k2 * 0x165667B19E3779F9ull + (h >> 31);
  h ^= (guint64) k->cls * 0x27D4EB2F165667C5ull;
  h ^= h >> 32;
  h *= 0x9E3779B97F4A7C15ull;
  return (guint32) (h >> 32) | USED_BIT;
}

static inline gboolean
key_equal (const ViperBucketKey *a, const ViperBucketKey *b)
{
  return a->hash == b->hash && a->list == b->list && a->k1 == b->k1 && a->k2 == b->k2 && a->cls == b->cls;
}

void
viper_buckets_init (ViperBuckets *t)
{
  memset (t, 0, sizeof *t);
}

void
viper_buckets_clear (ViperBuckets *t)
{
  g_free (t->slots);
  viper_buckets_init (t);
}

static void
resize (ViperBuckets *t, guint cap)
{
  ViperBucket *old = t->slots;
  guint old_cap = t->cap;
  t->slots = g_new0 (ViperBucket, cap);
  t->cap = cap;
  for (guint i = 0; i < old_cap; i++)
    if (old[i].key.hash)
      {
        guint j = old[i].key.hash & (cap - 1);
        while (t->slots[j].key.hash)
          j = (j + 1) & (cap - 1);
        t->slots[j] = old[i];
      }
  g_free (old);
  t->removed = 0;
  t->peak = t->n;
}

ViperBucket *
viper_buckets_lookup (const ViperBuckets *t, const ViperBucketKey *key)
{
  if (!t->n)
    return NULL;
  ViperBucketKey k = *key;
  k.hash = key_hash (key);
  guint mask = t->cap - 1;
  for (guint i = k.hash & mask;; i = (i + 1) & mask)
    {
      ViperBucket *b = &t->slots[i];
      if (!b->key.hash)
        return NULL;
      if (key_equal (&b->key, &k))
        return b;
    }
}

ViperBucket *
viper_buckets_get (ViperBuckets *t, const ViperBucketKey *key)
{
  ViperBucket *b = viper_buckets_lookup (t, key);
  if (b)
    return b;
  if ((t->n + 1) * 2 > t->cap)
    resize (t, t->cap ? t->cap * 2 : MIN_CAP);
  ViperBucketKey k = *key;
  k.hash = key_hash (key);
  guint mask = t->cap - 1, i = k.hash & mask;
  while (t->slots[i].key.hash)
    i = (i + 1) & mask;
  b = &t->slots[i];
  memset (b, 0, sizeof *b);
  b->key = k;
  t->n++;
  if (t->n > t->peak)
    t->peak = t->n;
  return b;
}

void
viper_buckets_remove (ViperBuckets *t, ViperBucket *b)
{
  guint mask = t->cap - 1;
  guint i = (guint) (b - t->slots);
  /* backward shift: pull later entries of the probe run into the hole
   * unless their home slot lies cyclically in (i, j] */
  for (guint j = (i + 1) & mask; t->slots[j].key.hash; j = (j + 1) & mask)
    {
      guint home = t->slots[j].key.hash & mask;
      gboolean stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays)
        continue;
      t->slots[i] = t->slots[j];
      i = j;
    }
  memset (&t->slots[i], 0, sizeof t->slots[i]);
  t->n--;
  if (++t->removed >= t->cap)
    {
      guint cap = t->cap;
      while (cap > MIN_CAP && t->peak * 8 < cap)
        cap /= 2;
      if (cap != t->cap)
        resize (t, cap);
      t->removed = 0;
      t->peak = t->n;
    }
}
