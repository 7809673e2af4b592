/* buckets.h - the run's matching buckets: an open-addressing hash table
 * whose entries live in the table itself (core/run.c).
 *
 * A bucket holds what is known under one key (sequence list, match class,
 * key1, key2): the FIFO of expectations, the latest reply expectation, and
 * the list whose claim cursor waits there.  Every message makes a bucket
 * and empties it again, so the table must be cheap to fill and to empty:
 * one probe sequence per lookup, no allocation per bucket, deletion by
 * backward shift (no tombstones).  A pointer to a bucket stays valid only
 * until the next insert or remove.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gint64 list, k1, k2;
  guint32 cls;
  guint32 hash;             /* the table's: nonzero while the entry is used */
} ViperBucketKey;

typedef struct {
  ViperBucketKey key;
  gpointer head, tail;      /* Expect FIFO (core/run.c) */
  gpointer reply_prim;      /* VIPER_FROM_REPLY: latest wins */
  gpointer stalled;         /* the ViperSeqList whose claim cursor waits here */
  guint16 reply_entry;
} ViperBucket;

typedef struct {
  ViperBucket *slots;
  guint cap;                /* power of two, or 0 before the first insert */
  guint n;
  guint removed;            /* removals in the current window (cap of them) */
  guint peak;               /* the most buckets held in the current window */
} ViperBuckets;

void viper_buckets_init (ViperBuckets *t);
/* Free the table (not what the buckets point to). */
void viper_buckets_clear (ViperBuckets *t);
ViperBucket *viper_buckets_lookup (const ViperBuckets *t, const ViperBucketKey *key);
/* The bucket of key, a new zeroed one if there was none. */
ViperBucket *viper_buckets_get (ViperBuckets *t, const ViperBucketKey *key);
/* Take b (a pointer into the table) out. */
void viper_buckets_remove (ViperBuckets *t, ViperBucket *b);

G_END_DECLS
