/* test-trail.c - the logged run order behind seeking (core/trail.c): every
 * field of every tram reads back exactly (extremes, text, canonical lines,
 * other data formats), the counts and module offsets follow the run's
 * formula, checkpoints stay at most VIPER_TRAIL_MAX_CKPTS with a doubling
 * spacing, and the memory bound drops the trail (and says so) instead of
 * growing past it. */
#include <math.h>
#include <string.h>
#include "core/trail.h"

static ViperTram *
make (ViperTramPool *pool, guint i)
{
  static const gint64 extremes[] = { 0, 1, -1, G_MAXINT64, G_MININT64, 127, 128, -129, 1LL << 40 };
  guint nd = i % 5;
  gboolean canon = i % 3 == 0;
  gboolean other = i % 7 == 6;
  char text[96];
  g_snprintf (text, sizeof text, "-3 %u %u.25 %u 0 %u %s line %u", i, i, i % 13, nd, other ? "X" : "2", i);
  guint32 raw_len = canon ? 0 : (guint32) strlen (text);
  ViperTram *t = viper_tram_pool_alloc (pool, other ? 0 : nd, raw_len);
  t->time = i * 0.25 - 3;
  t->adjusted = t->time + (i % 4) * 0.5;
  t->proc = (gint64) (i % 13) - 1 + (i % 11 == 0 ? (1LL << 50) : 0);
  t->seq = i + 1;
  t->rec = -3 - (gint32) (i % 2);
  t->ev = (gint32) i * 7 - 300;
  t->process = (gint32) (i % 3);
  t->line = i * 2 + 1;
  t->channel = i % 4;
  t->type = i % 9 == 0 ? VIPER_TYPE_UNKNOWN : (guint16) (i % 5);
  t->flags = (guint8) ((canon ? VIPER_TRAM_F_CANON : 0) | (i % 9 == 0 ? VIPER_TRAM_F_IGNORED : 0));
  t->dtype = other ? VIPER_DTYPE_OTHER : VIPER_DTYPE_INT;
  t->ndata = (guint16) nd;
  t->data_off = (guint16) (nd ? 10 : 0);
  t->raw_len = raw_len ? raw_len : 20;
  if (!other)
    for (guint k = 0; k < nd; k++)
      ((gint64 *) (t + 1))[k] = extremes[(i + k) % G_N_ELEMENTS (extremes)];
  if (!canon)
    memcpy ((char *) viper_tram_raw (t), text, raw_len + 1);
  return t;
}

static void
test_roundtrip (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTrail *tr = viper_trail_new (0, 0.5);
  const guint n = 5000;
  GPtrArray *keep = g_ptr_array_new ();
  guint64 read = 0, rejected = 0;
  for (guint i = 0; i < n; i++)
    {
      ViperTram *t = make (pool, i);
      read += 1 + i % 3;
      rejected += i % 17 == 0;
      g_assert_true (viper_trail_append (tr, t, read, rejected));
      g_ptr_array_add (keep, t);
    }
  g_assert_cmpuint (viper_trail_length (tr), ==, n);
  /* the run's offset formula, by hand */
  GHashTable *off = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  ViperTrailPos p;
  viper_trail_pos_init (&p);
  read = rejected = 0;
  double clock = -INFINITY;
  guint64 ignored = 0;
  for (guint i = 0; i < n; i++)
    {
      const ViperTram *want = keep->pdata[i];
      guint64 r, j;
      const ViperTram *got = viper_trail_peek (tr, &p, &r, &j);
      read += 1 + i % 3;
      rejected += i % 17 == 0;
      g_assert_cmpuint (r, ==, read);
      g_assert_cmpuint (j, ==, rejected);
      g_assert_true (memcmp (&got->time, &want->time, sizeof (double)) == 0);
      g_assert_true (memcmp (&got->adjusted, &want->adjusted, sizeof (double)) == 0);
      g_assert_cmpint (got->proc, ==, want->proc);
      g_assert_cmpint (got->seq, ==, want->seq);
      g_assert_cmpint (got->rec, ==, want->rec);
      g_assert_cmpint (got->ev, ==, want->ev);
      g_assert_cmpint (got->process, ==, want->process);
      g_assert_cmpuint (got->line, ==, want->line);
      g_assert_cmpuint (got->channel, ==, want->channel);
      g_assert_cmpuint (got->type, ==, want->type);
      g_assert_cmpuint (got->flags, ==, want->flags);
      g_assert_cmpint (got->dtype, ==, want->dtype);
      g_assert_cmpuint (got->ndata, ==, want->ndata);
      g_assert_cmpuint (got->data_off, ==, want->data_off);
      g_assert_cmpuint (got->raw_len, ==, want->raw_len);
      if (want->dtype == VIPER_DTYPE_INT)
        g_assert_true (memcmp (viper_tram_data (got), viper_tram_data (want), want->ndata * sizeof (gint64)) == 0);
      g_assert_cmpstr (viper_tram_raw (got), ==, viper_tram_raw (want));
      viper_trail_advance (tr, &p);
      double *o = g_hash_table_lookup (off, &want->proc);
      if (!o)
        {
          o = g_new0 (double, 1);
          g_hash_table_insert (off, g_memdup2 (&want->proc, sizeof (gint64)), o);
        }
      double gap = want->adjusted - want->time;
      if (gap > *o)
        *o = gap;
      *o *= 0.5;
      clock = MAX (clock, want->adjusted);
      ignored += (want->flags & VIPER_TRAM_F_IGNORED) != 0;
      const double *po = g_hash_table_lookup (p.offsets, &want->proc);
      g_assert_nonnull (po);
      g_assert_true (*po == *o);
      g_assert_true (p.clock == clock);
      g_assert_cmpuint (p.ignored, ==, ignored);
      g_assert_cmpuint (p.index, ==, i + 1);
    }
  viper_trail_pos_clear (&p);
  g_hash_table_destroy (off);
  for (guint i = 0; i < keep->len; i++)
    viper_tram_pool_release (pool, keep->pdata[i]);
  g_ptr_array_unref (keep);
  viper_trail_free (tr);
  viper_tram_pool_free (pool);
}

static void
test_checkpoints (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTrail *tr = viper_trail_new (0, 1.0);
  viper_trail_set_first_every (tr, 3);
  guint added = 0;
  for (guint i = 0; i < 3000; i++)
    {
      ViperTram *t = make (pool, i);
      g_assert_true (viper_trail_append (tr, t, i + 1, 0));
      viper_tram_pool_release (pool, t);
      if (viper_trail_ckpt_due (tr))
        {
          viper_trail_add_ckpt (tr, i, NULL);
          added++;
        }
      g_assert_cmpuint (viper_trail_n_ckpts (tr), <=, VIPER_TRAIL_MAX_CKPTS);
    }
  g_assert_cmpuint (added, >, VIPER_TRAIL_MAX_CKPTS);
  guint64 every = viper_trail_every (tr);
  g_assert_cmpuint (every, >, 3);
  g_assert_cmpuint (every % 3, ==, 0);
  /* evenly spread at the current spacing, in order, each at its position */
  guint64 last = 0;
  for (guint i = 0; i < viper_trail_n_ckpts (tr); i++)
    {
      const ViperTrailCkpt *c = viper_trail_ckpt (tr, i);
      g_assert_cmpuint (c->pos.index % every, ==, 0);
      g_assert_cmpuint (c->pos.index, >, last);
      g_assert_cmpuint (c->pos.read, ==, c->pos.index);
      g_assert_cmpuint (c->steps, ==, c->pos.index - 1);
      last = c->pos.index;
    }
  g_assert_cmpuint (3000 - last, <, every);
  /* a checkpoint's position decodes the next tram */
  const ViperTrailCkpt *c = viper_trail_ckpt (tr, 1);
  const ViperTram *t = viper_trail_peek (tr, &c->pos, NULL, NULL);
  g_assert_cmpint (t->seq, ==, (gint64) c->pos.index + 1);
  viper_trail_free (tr);
  viper_tram_pool_free (pool);
}

static void
test_bound (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTrail *tr = viper_trail_new ((gsize) 3 << 20, 0.5);
  gboolean ok = TRUE;
  guint i = 0;
  char *text = g_strnfill (40000, 'x');
  for (; ok && i < 1000; i++)
    {
      ViperTram *t = viper_tram_pool_alloc (pool, 0, 40000);
      t->dtype = VIPER_DTYPE_OTHER;
      t->raw_len = 40000;
      t->seq = i + 1;
      memcpy ((char *) viper_tram_raw (t), text, 40001);
      ok = viper_trail_append (tr, t, i + 1, 0);
      viper_tram_pool_release (pool, t);
      g_assert_cmpuint (viper_trail_bytes (tr), <=, (gsize) 3 << 20);
    }
  g_assert_false (ok);
  g_assert_cmpuint (i, <, 1000);
  g_assert_true (viper_trail_failed (tr));
  g_assert_cmpuint (viper_trail_length (tr), ==, 0);
  g_assert_cmpuint (viper_trail_bytes (tr), ==, 0);
  /* off until cleared (a reset): then it records again */
  ViperTram *t = make (pool, 1);
  g_assert_false (viper_trail_append (tr, t, 1, 0));
  viper_trail_clear (tr);
  g_assert_true (viper_trail_append (tr, t, 1, 0));
  g_assert_cmpuint (viper_trail_length (tr), ==, 1);
  viper_tram_pool_release (pool, t);
  g_free (text);
  viper_trail_free (tr);
  viper_tram_pool_free (pool);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/trail/roundtrip", test_roundtrip);
  g_test_add_func ("/trail/checkpoints", test_checkpoints);
  g_test_add_func ("/trail/bound", test_bound);
  return g_test_run ();
}
