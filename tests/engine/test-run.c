/* test-run.c - the run construction engine on a small private paradigm that
 * has Mona Lisa's shapes: inglb (request to a partner, reply back) and
 * inrglb (request to every group member, one replies, ack, end).
 *
 * Every test feeds trams one at a time and transfers whatever is ready after
 * each insert (the scheduler's policy), recording the run. */
#include <math.h>
#include <string.h>
#include "core/run.h"
#include "core/model.h"
#include "core/tramparse.h"

enum { C_RQ = 1, C_RP, C_RPRECV, C_END, C_IRQ, C_IRP, C_IRPRECV, C_ACK, C_IEND };

static const ViperTramType types[] = {
  { 1, 10, "S_RUNNING", VIPER_ROLE_FREE, 0, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 1 },
  { 2, 14, "INRQ START", VIPER_ROLE_START, 0, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 3 },
  { 4, 14, "INRQ RECEIVED", VIPER_ROLE_SLOT, 0, C_RQ, 1, VIPER_NO_FIELD, 3 },
  { 5, 15, "INRP SEND", VIPER_ROLE_SLOT, 0, C_RP, 1, VIPER_NO_FIELD, 3 },
  { 4, 15, "INRP RECEIVED", VIPER_ROLE_SLOT, 0, C_RPRECV, VIPER_NO_FIELD, VIPER_NO_FIELD, 3 },
  { 3, 14, "INRQ END", VIPER_ROLE_SLOT, 0, C_END, VIPER_NO_FIELD, VIPER_NO_FIELD, 3 },
  { 2, 18, "INRRQ START", VIPER_ROLE_START, 1, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 3 },
  { 4, 18, "INRRQ RECEIVED", VIPER_ROLE_SLOT, 0, C_IRQ, 1, VIPER_NO_FIELD, 3 },
  { 5, 19, "INRRP SEND", VIPER_ROLE_SLOT, 0, C_IRP, 1, VIPER_NO_FIELD, 3 },
  { 4, 19, "INRRP RECEIVED", VIPER_ROLE_SLOT, 0, C_IRPRECV, VIPER_NO_FIELD, VIPER_NO_FIELD, 3 },
  { 5, 20, "ACK SEND", VIPER_ROLE_SLOT, 0, C_ACK, VIPER_NO_FIELD, VIPER_NO_FIELD, 3 },
  { 3, 18, "INRRQ END", VIPER_ROLE_SLOT, 0, C_IEND, VIPER_NO_FIELD, VIPER_NO_FIELD, 3 },
  { 1, 13, "M_EXPOSE", VIPER_ROLE_FREE, 0, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 2 },
  { 1, 99, "EXACT", VIPER_ROLE_FREE, 0, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 2 },
};

/* EXACT has exactly 2 data fields, and field 1 must be 0..5 */
static gboolean
validate (const ViperTram *t, guint *field, char *reason, gsize n)
{
  if (t->rec == 1 && t->ev == 99 && t->ndata != 2)
    {
      *field = 2;
      g_snprintf (reason, n, "EXACT has 2 data fields, not %u", t->ndata);
      return FALSE;
    }
  if (t->rec == 1 && t->ev == 99)
    {
      gint64 v = viper_tram_datum (t, 1, 0);
      if (v < 0 || v > 5)
        {
          *field = 1;
          g_snprintf (reason, n, "state %" G_GINT64_FORMAT " is not 0..5", v);
          return FALSE;
        }
    }
  return TRUE;
}

static const ViperSlot inglb_slots[] = {
  { 0, VIPER_FROM_CALLER, VIPER_NO_SLOT, VIPER_NO_SLOT, VIPER_NO_FIELD, FALSE },
  { C_RQ, VIPER_FROM_PARTNER, VIPER_NO_SLOT, 0, VIPER_NO_FIELD, TRUE },
  { C_RP, VIPER_FROM_PARTNER, VIPER_NO_SLOT, VIPER_NO_SLOT, VIPER_NO_FIELD, TRUE },
  { C_RPRECV, VIPER_FROM_CALLER, VIPER_NO_SLOT, 2, VIPER_NO_FIELD, FALSE },
  { C_END, VIPER_FROM_CALLER, VIPER_NO_SLOT, VIPER_NO_SLOT, VIPER_NO_FIELD, FALSE },
};

static const ViperSlot inrglb_slots[] = {
  { 0, VIPER_FROM_CALLER, VIPER_NO_SLOT, VIPER_NO_SLOT, VIPER_NO_FIELD, FALSE },
  { C_IRQ, VIPER_FROM_EACH_MEMBER, VIPER_NO_SLOT, 0, VIPER_NO_FIELD, TRUE },
  { C_IRP, VIPER_FROM_REPLY, 1, VIPER_NO_SLOT, VIPER_NO_FIELD, TRUE },
  { C_IRPRECV, VIPER_FROM_CALLER, VIPER_NO_SLOT, 2, VIPER_NO_FIELD, FALSE },
  { C_ACK, VIPER_FROM_CALLER, VIPER_NO_SLOT, VIPER_NO_SLOT, VIPER_NO_FIELD, FALSE },
  { C_IEND, VIPER_FROM_CALLER, VIPER_NO_SLOT, VIPER_NO_SLOT, VIPER_NO_FIELD, FALSE },
};

static const ViperProfile profiles[] = {
  { "inglb", 1, G_N_ELEMENTS (inglb_slots), inglb_slots },
  { "inrglb", 1, G_N_ELEMENTS (inrglb_slots), inrglb_slots },
};

static const ViperParadigm test_paradigm = {
  .name = "test-ml",
  .explicit_seq = TRUE,
  .types = types,
  .n_types = G_N_ELEMENTS (types),
  .profiles = profiles,
  .n_profiles = G_N_ELEMENTS (profiles),
  .validate = validate,
};

/* group 10 = modules 1, 2, 3; group 20 = modules 1 .. 2000 */
static guint
members (const ViperModel *m, gint64 group, gint64 *out, guint max)
{
  (void) m;
  if (group == 20)
    {
      guint n = MIN (2000u, max);
      for (guint i = 0; i < n; i++)
        out[i] = i + 1;
      return n;
    }
  if (group != 10 || max < 3)
    return 0;
  out[0] = 1, out[1] = 2, out[2] = 3;
  return 3;
}

static const ViperModelClass fake_class = { .group_members = members };

typedef struct {
  ViperTramPool *pool;
  ViperTramFields *fields;
  ViperChannels *channels;
  ViperDiag diag;
  ViperModel model;
  ViperRun *run;
  GPtrArray *out;           /* "proc:seq@adjusted" per transferred tram */
  GArray *out_adj;          /* adjusted times */
  GPtrArray *bad;
  guint inserted;
  GHashTable *when;         /* "proc:seq" -> insert count at transfer */
} Fix;

static void
sink (ViperDiagKind kind, const char *msg, gpointer data)
{
  Fix *f = data;
  if (kind == VIPER_DIAG_BAD_INPUT)
    g_ptr_array_add (f->bad, g_strdup (msg));
}

static void
fix_init (Fix *f, const ViperParadigm *p, double decay)
{
  memset (f, 0, sizeof *f);
  f->pool = viper_tram_pool_new ();
  f->fields = viper_tram_fields_new ();
  f->channels = viper_channels_new ();
  viper_channels_add (f->channels, "test.trc");
  f->bad = g_ptr_array_new_with_free_func (g_free);
  viper_diag_init (&f->diag, sink, f);
  f->model.klass = &fake_class;
  f->run = viper_run_new (p, &f->model, f->pool, f->channels, &f->diag, decay);
  f->out = g_ptr_array_new_with_free_func (g_free);
  f->out_adj = g_array_new (FALSE, FALSE, sizeof (double));
  f->when = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static void
fix_clear (Fix *f)
{
  viper_run_free (f->run);
  g_assert_cmpuint (viper_tram_pool_live (f->pool), ==, 0);
  viper_tram_pool_free (f->pool);
  viper_tram_fields_free (f->fields);
  viper_channels_free (f->channels);
  viper_diag_clear (&f->diag);
  g_ptr_array_unref (f->out);
  g_array_unref (f->out_adj);
  g_ptr_array_unref (f->bad);
  g_hash_table_destroy (f->when);
}

static void
drain (Fix *f)
{
  const ViperTram *t;
  while ((t = viper_run_transfer_next (f->run)))
    {
      g_ptr_array_add (f->out, g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, t->proc, t->seq));
      g_array_append_val (f->out_adj, t->adjusted);
      g_hash_table_insert (f->when, g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, t->proc, t->seq),
                           GUINT_TO_POINTER (f->inserted));
    }
}

static void
feed (Fix *f, const char *line)
{
  ViperLineKind kind;
  ViperParseError err;
  ViperTram *t = viper_tram_parse (f->pool, f->fields, line, strlen (line), &kind, &err);
  g_assert_nonnull (t);
  t->line = ++f->inserted;
  viper_run_insert (f->run, t);
  drain (f);
}

static gint
pos (Fix *f, const char *key)
{
  for (guint i = 0; i < f->out->len; i++)
    if (g_str_equal (f->out->pdata[i], key))
      return (gint) i;
  return -1;
}

static double
adj (Fix *f, const char *key)
{
  gint i = pos (f, key);
  g_assert_cmpint (i, >=, 0);
  return g_array_index (f->out_adj, double, i);
}

/* C = 0 calls inglb on P = 1; times lie (P's clock is 50 behind). */
static const char *inglb_lines[] = {
  "1 10 0 0 0 1 2 1",         /* 0:1 C starts */
  "1 10 0 1 0 1 2 1",         /* 1:1 P starts */
  "2 14 100 0 0 3 2 2 1 0",   /* 0:2 C inglb start */
  "4 14 60 1 1 3 2 2 0 0",    /* 1:2 P request received (clock lies: 60 < 100) */
  "1 13 70 1 0 2 2 3 0",      /* 1:3 P exposes */
  "5 15 75 1 1 3 2 4 0 0",    /* 1:4 P reply sent */
  "4 15 130 0 0 3 2 3 1 0",   /* 0:3 C reply received */
  "3 14 131 0 0 3 2 4 1 0",   /* 0:4 C inglb end */
};

static void
check_inglb_run (Fix *f)
{
  g_assert_cmpuint (f->out->len, ==, 8);
  g_assert_cmpint (pos (f, "0:2"), <, pos (f, "1:2"));      /* request received after start */
  g_assert_cmpint (pos (f, "1:4"), <, pos (f, "0:3"));      /* reply received after sent */
  g_assert_cmpfloat (adj (f, "0:2"), <=, adj (f, "1:2"));
  g_assert_cmpfloat (adj (f, "1:4"), <=, adj (f, "0:3"));
  for (gint64 p = 0; p <= 1; p++)
    for (gint s = 2; s <= 4; s++)
      {
        char a[16], b[16];
        g_snprintf (a, sizeof a, "%" G_GINT64_FORMAT ":%d", p, s - 1);
        g_snprintf (b, sizeof b, "%" G_GINT64_FORMAT ":%d", p, s);
        g_assert_cmpint (pos (f, a), <, pos (f, b));
        g_assert_cmpfloat (adj (f, a), <=, adj (f, b));
      }
  ViperCounts c;
  viper_run_counts (f->run, &c);
  g_assert_cmpuint (c.read, ==, 8);
  g_assert_cmpuint (c.transferred, ==, 8);
  g_assert_cmpuint (c.pending, ==, 0);
}

static void
test_inglb_in_order (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 1.0);
  for (guint i = 0; i < G_N_ELEMENTS (inglb_lines); i++)
    feed (&f, inglb_lines[i]);
  check_inglb_run (&f);
  /* P's request receipt was pulled up to C's start: 60 -> 100, offset 40 kept (decay 1) */
  g_assert_cmpfloat (adj (&f, "1:2"), ==, 100.0);
  g_assert_cmpfloat (adj (&f, "1:3"), ==, 110.0);
  g_assert_cmpfloat (viper_run_offset (f.run, 1), ==, 40.0);
  g_assert_cmpfloat (viper_run_clock (f.run), ==, 131.0);
  fix_clear (&f);
}

/* Every arrival order of the 8 trams that keeps each module's own order
 * gives a consistent, complete run. */
static void
permute (guint *idx, guint n, guint k, guint *count)
{
  if (k == n)
    {
      /* keep per-module order: skip permutations that reorder a module */
      static const gint line_proc[8] = { 0, 1, 0, 1, 1, 1, 0, 0 };
      gint last[2] = { -1, -1 };
      for (guint i = 0; i < n; i++)
        {
          gint proc = line_proc[idx[i]];
          if ((gint) idx[i] < last[proc])
            return;
          last[proc] = (gint) idx[i];
        }
      Fix f;
      fix_init (&f, &test_paradigm, 0.5);
      for (guint i = 0; i < n; i++)
        feed (&f, inglb_lines[idx[i]]);
      check_inglb_run (&f);
      fix_clear (&f);
      (*count)++;
      return;
    }
  for (guint i = k; i < n; i++)
    {
      guint t = idx[k]; idx[k] = idx[i]; idx[i] = t;
      permute (idx, n, k + 1, count);
      t = idx[k]; idx[k] = idx[i]; idx[i] = t;
    }
}

static void
test_inglb_all_fifo_orders (void)
{
  guint idx[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
  guint count = 0;
  permute (idx, 8, 0, &count);
  g_assert_cmpuint (count, ==, 70);   /* C(8,4) interleavings of two lists of 4 */
}

/* idx = a random permutation of 0..7 */
static void
shuffle8 (GRand *r, guint idx[8])
{
  for (guint i = 0; i < 8; i++)
    idx[i] = i;
  for (guint i = 7; i > 0; i--)
    {
      guint j = g_rand_int_range (r, 0, (gint32) i + 1);
      guint t = idx[i]; idx[i] = idx[j]; idx[j] = t;
    }
}

/* Even with per-module order scrambled (sequence numbers restore it). */
static void
test_inglb_scrambled (void)
{
  GRand *r = g_rand_new_with_seed (7);
  for (guint round = 0; round < 500; round++)
    {
      guint idx[8];
      shuffle8 (r, idx);
      Fix f;
      fix_init (&f, &test_paradigm, 0.5);
      for (guint i = 0; i < 8; i++)
        feed (&f, inglb_lines[idx[i]]);
      check_inglb_run (&f);
      fix_clear (&f);
    }
  g_rand_free (r);
}

/* viper_run_set_any_order: ready trams leave last made ready first, not by
 * adjusted time, and every arrival order still gives a causal, complete run. */
static void
insert_only (Fix *f, const char *line)
{
  ViperLineKind kind;
  ViperParseError err;
  ViperTram *t = viper_tram_parse (f->pool, f->fields, line, strlen (line), &kind, &err);
  g_assert_nonnull (t);
  t->line = ++f->inserted;
  viper_run_insert (f->run, t);
}

static void
test_any_order (void)
{
  for (guint any = 0; any < 2; any++)
    {
      Fix f;
      fix_init (&f, &test_paradigm, 0.5);
      viper_run_set_any_order (f.run, any);
      insert_only (&f, "1 10 1 1 0 1 2 1");    /* 1:1 at 1 */
      insert_only (&f, "1 10 5 0 0 1 2 1");    /* 0:1 at 5, made ready last */
      drain (&f);
      g_assert_cmpuint (f.out->len, ==, 2);
      g_assert_cmpstr (f.out->pdata[0], ==, any ? "0:1" : "1:1");
      fix_clear (&f);
    }
  GRand *r = g_rand_new_with_seed (11);
  for (guint round = 0; round < 200; round++)
    {
      guint idx[8];
      shuffle8 (r, idx);
      Fix f;
      fix_init (&f, &test_paradigm, 0.5);
      viper_run_set_any_order (f.run, TRUE);
      for (guint i = 0; i < 8; i++)
        insert_only (&f, inglb_lines[idx[i]]);
      drain (&f);
      check_inglb_run (&f);
      fix_clear (&f);
    }
  g_rand_free (r);
}

/* inrglb over group 10 = {1,2,3}: member 2 replies; member 3 receives the
 * request only after the caller has ended and started its next call. */
static void
test_inrglb_late_member (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.0);
  feed (&f, "2 18 10 0 0 3 2 1 10 0");     /* 0:1 C inrglb start on group 10 */
  feed (&f, "4 18 11 1 1 3 2 1 0 0");      /* 1:1 member 1 receives (hidden: no reply) */
  feed (&f, "4 18 12 2 1 3 2 1 0 0");      /* 2:1 member 2 receives */
  feed (&f, "5 19 13 2 1 3 2 2 0 0");      /* 2:2 member 2 replies */
  feed (&f, "4 19 14 0 0 3 2 2 2 0");      /* 0:2 C reply received from 2 */
  feed (&f, "5 20 15 0 1 3 2 3 10 0");     /* 0:3 C ack */
  feed (&f, "3 18 16 0 0 3 2 4 2 0");      /* 0:4 C end */
  feed (&f, "2 14 17 0 0 3 2 5 1 0");      /* 0:5 C next call: inglb on 1 */
  g_assert_cmpuint (f.out->len, ==, 8);
  feed (&f, "4 18 30 3 1 3 2 1 0 0");      /* 3:1 member 3 finally receives call 1 */
  g_assert_cmpuint (f.out->len, ==, 9);
  g_assert_cmpint (pos (&f, "3:1"), >, pos (&f, "0:1"));
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  fix_clear (&f);
}

/* The reply is matched to the request it answers, even when replies of two
 * calls from different members arrive in the opposite order. */
static void
test_inrglb_reply_matching (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.0);
  /* call 1 replied by member 1, call 2 by member 2; member 2's trams arrive first */
  feed (&f, "4 18 21 2 1 3 2 1 0 0");      /* 2:1 member 2 receives call 1 (drops it) */
  feed (&f, "4 18 31 2 1 3 2 2 0 0");      /* 2:2 member 2 receives call 2 */
  feed (&f, "5 19 32 2 1 3 2 3 0 0");      /* 2:3 member 2 replies to call 2 */
  g_assert_cmpuint (f.out->len, ==, 0);    /* no start yet */
  feed (&f, "2 18 20 0 0 3 2 1 10 0");     /* 0:1 call 1 */
  feed (&f, "4 18 22 1 1 3 2 1 0 0");      /* 1:1 member 1 receives call 1 */
  feed (&f, "5 19 23 1 1 3 2 2 0 0");      /* 1:2 member 1 replies to call 1 */
  feed (&f, "4 18 22 3 1 3 2 1 0 0");      /* 3:1 member 3 receives call 1 */
  feed (&f, "4 18 32 3 1 3 2 2 0 0");      /* 3:2 member 3 receives call 2 */
  feed (&f, "4 19 24 0 0 3 2 2 1 0");      /* 0:2 C reply received from 1 */
  feed (&f, "5 20 25 0 1 3 2 3 10 0");     /* 0:3 ack */
  feed (&f, "3 18 26 0 0 3 2 4 1 0");      /* 0:4 end */
  feed (&f, "2 18 30 0 0 3 2 5 10 0");     /* 0:5 call 2 */
  feed (&f, "4 19 34 0 0 3 2 6 2 0");      /* 0:6 reply received from 2 */
  feed (&f, "5 20 35 0 1 3 2 7 10 0");
  feed (&f, "3 18 36 0 0 3 2 8 2 0");
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (c.transferred, ==, 15);
  /* call 2's request to member 2 was received after call 2 started */
  g_assert_cmpint (pos (&f, "2:2"), >, pos (&f, "0:5"));
  g_assert_cmpint (pos (&f, "2:3"), <, pos (&f, "0:6"));
  g_assert_cmpint (pos (&f, "1:2"), <, pos (&f, "0:2"));
  g_assert_cmpfloat (adj (&f, "2:2"), >=, adj (&f, "0:5"));
  fix_clear (&f);
}

/* Issue 10 item 21: a group of 2,000 members is matched whole (the engine
 * once cut groups at 1,024 members: the rest never matched). */
static void
test_big_group (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.0);
  feed (&f, "2 18 10 0 0 3 2 1 20 0");     /* 0:1 inrglb start on group 20 */
  for (guint m = 1; m <= 2000; m++)
    {
      char *line = g_strdup_printf ("4 18 11 %u 1 3 2 1 0 0", m);   /* every member receives */
      feed (&f, line);
      g_free (line);
    }
  feed (&f, "5 19 13 1500 1 3 2 2 0 0");   /* 1500:2 member 1500 replies */
  feed (&f, "4 19 14 0 0 3 2 2 1500 0");   /* 0:2 reply received from 1500 */
  feed (&f, "5 20 15 0 1 3 2 3 20 0");     /* 0:3 ack */
  feed (&f, "3 18 16 0 0 3 2 4 1500 0");   /* 0:4 end */
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (c.transferred, ==, 2005);
  g_assert_cmpint (pos (&f, "2000:1"), >, pos (&f, "0:1"));
  fix_clear (&f);
}

static void
test_duplicate_and_bad_seq (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  feed (&f, "1 10 0 0 0 1 2 1");
  ViperLineKind kind;
  ViperParseError err;
  const char *dup = "1 13 5 0 0 2 2 1 0";
  ViperTram *t = viper_tram_parse (f.pool, f.fields, dup, strlen (dup), &kind, &err);
  t->line = 2;
  g_assert_false (viper_run_insert (f.run, t));
  g_assert_cmpuint (f.bad->len, ==, 1);
  g_assert_cmpstr (f.bad->pdata[0], ==, "test.trc:2:16: duplicate sequence number 1 for proc 0");
  const char *zero = "1 13 5 0 0 2 2 0 0";
  t = viper_tram_parse (f.pool, f.fields, zero, strlen (zero), &kind, &err);
  t->line = 3;
  g_assert_false (viper_run_insert (f.run, t));
  g_assert_cmpstr (f.bad->pdata[1], ==, "test.trc:3:16: sequence number 0 is not positive");
  const char *noseq = "1 10 5 4 0 0";
  t = viper_tram_parse (f.pool, f.fields, noseq, strlen (noseq), &kind, &err);
  t->line = 4;
  g_assert_false (viper_run_insert (f.run, t));
  g_assert_cmpstr (f.bad->pdata[2], ==, "test.trc:4:13: S_RUNNING needs at least 1 data field, has 0");
  const char *toolong = "1 99 5 0 0 3 2 2 1 7";
  t = viper_tram_parse (f.pool, f.fields, toolong, strlen (toolong), &kind, &err);
  t->line = 5;
  g_assert_false (viper_run_insert (f.run, t));
  g_assert_cmpstr (f.bad->pdata[3], ==, "test.trc:5:20: EXACT has 2 data fields, not 3");
  const char *badstate = "1 99 5 0 0 2 2 2 6";
  t = viper_tram_parse (f.pool, f.fields, badstate, strlen (badstate), &kind, &err);
  t->line = 6;
  g_assert_false (viper_run_insert (f.run, t));
  g_assert_cmpstr (f.bad->pdata[4], ==, "test.trc:6:18: state 6 is not 0..5");
  feed (&f, "1 99 5 0 0 2 2 3 5");        /* seq 2 was used by the rejected lines */
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.read, ==, 7);
  g_assert_cmpuint (c.rejected, ==, 5);
  g_assert_cmpuint (c.transferred, ==, 2);
  g_assert_cmpuint (c.pending, ==, 0);
  fix_clear (&f);
}

/* A paradigm whose types have an exact NDATA in integers says so in its
 * description (exact_ndata), and the core rejects every other count and
 * non-integer data, before the paradigm's validate hook, with the reason and
 * the column of the first extra field or of the data. */
static const ViperTramType exact_types[] = {
  { 1, 10, "ONE", VIPER_ROLE_FREE, 0, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 1 },
  { 1, 20, "PAIR", VIPER_ROLE_FREE, 0, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 2 },
};

static guint exact_validated;

static gboolean
exact_validate (const ViperTram *t, guint *field, char *reason, gsize n)
{
  (void) field, (void) reason, (void) n;
  /* only exact integer data get here */
  g_assert_cmpuint (t->ndata, ==, exact_types[t->type].min_ndata);
  g_assert_cmpint (t->dtype, ==, VIPER_DTYPE_INT);
  exact_validated++;
  return TRUE;
}

static const ViperParadigm exact_paradigm = {
  .name = "test-exact",
  .explicit_seq = TRUE,
  .types = exact_types,
  .n_types = G_N_ELEMENTS (exact_types),
  .exact_ndata = TRUE,
  .validate = exact_validate,
};

static void
test_exact_ndata (void)
{
  Fix f;
  fix_init (&f, &exact_paradigm, 0.5);
  exact_validated = 0;
  static const struct {
    const char *line, *msg;
  } bad[] = {
    { "1 20 5 1 0 3 2 1 7 9", "test.trc:1:20: PAIR needs exactly 2 data fields, has 3" },
    { "1 20 5 2 0 2 \"%d\" 1 7", "test.trc:2:19: PAIR needs integer data (DTYPE 2)" },
    { "1 20 5 3 0 1 2 1", "test.trc:3:17: PAIR needs exactly 2 data fields, has 1" },
    { "1 10 5 4 0 2 2 1 1", "test.trc:4:18: ONE needs exactly 1 data field, has 2" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ViperLineKind kind;
      ViperParseError err;
      ViperTram *t = viper_tram_parse (f.pool, f.fields, bad[i].line, strlen (bad[i].line), &kind, &err);
      g_assert_nonnull (t);
      t->line = ++f.inserted;
      g_assert_false (viper_run_insert (f.run, t));
      g_assert_cmpuint (f.bad->len, ==, i + 1);
      g_assert_cmpstr (f.bad->pdata[i], ==, bad[i].msg);
    }
  g_assert_cmpuint (exact_validated, ==, 0);
  feed (&f, "1 10 5 0 0 1 2 1");
  feed (&f, "1 20 6 0 0 2 2 2 4");
  g_assert_cmpuint (exact_validated, ==, 2);
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.rejected, ==, G_N_ELEMENTS (bad));
  g_assert_cmpuint (c.transferred, ==, 2);
  fix_clear (&f);
}

/* A missing sequence number stalls exactly its dependants. */
static void
test_gap_stalls_dependants (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  for (guint i = 0; i < G_N_ELEMENTS (inglb_lines); i++)
    if (i != 4)                  /* drop 1:3, P's expose */
      feed (&f, inglb_lines[i]);
  /* transferred: 0:1 1:1 0:2 1:2 ; stuck: 1:4 (gap), 0:3 waits for 1:4, 0:4 behind it */
  g_assert_cmpuint (f.out->len, ==, 4);
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.pending, ==, 3);
  g_assert_cmpuint (c.read, ==, c.transferred + c.pending + c.rejected);
  GArray *stuck = viper_run_stuck (f.run);
  g_assert_cmpuint (stuck->len, ==, 2);
  ViperStuck *s0 = &g_array_index (stuck, ViperStuck, 0);
  ViperStuck *s1 = &g_array_index (stuck, ViperStuck, 1);
  g_assert_cmpint (s0->proc, ==, 0);
  g_assert_cmpuint (s0->trams, ==, 2);
  g_assert_cmpstr (s0->waiting_for, ==, "partner tram INRP SEND from proc 1 (inglb of proc 0)");
  g_assert_cmpint (s1->proc, ==, 1);
  g_assert_cmpuint (s1->trams, ==, 1);
  g_assert_cmpstr (s1->waiting_for, ==, "seq 3 of proc 1");
  viper_stuck_array_free (stuck);
  /* the missing tram arrives: everything flows */
  feed (&f, inglb_lines[4]);
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  check_inglb_run (&f);
  fix_clear (&f);
}

/* Issue 10 item 8 (spec section 1): a rejected line whose PROC and
 * sequence number could be read uses that number: its module goes on, and
 * the tram that needed it is pending with a reason naming the line. */
static void
test_rejected_line_passes (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  feed (&f, "2 14 10 0 0 3 2 1 1 0");      /* 0:1 C inglb on 1 */
  feed (&f, "4 14 11 1 1 3 2 1 0 0");      /* 1:1 P receives the request */
  feed (&f, "5 15 12 1 1 1 2 2");          /* 1:2 P's reply: too few fields, rejected (line 3) */
  feed (&f, "1 99 13 1 0 2 2 4 9");        /* 1:4 a bad state, rejected (line 4) */
  feed (&f, "1 10 14 1 0 1 2 3");          /* 1:3 P goes on */
  feed (&f, "1 10 15 1 0 1 2 5");          /* 1:5 past the second rejected line */
  feed (&f, "4 15 16 0 0 3 2 2 1 0");      /* 0:2 C's reply receipt needs 1:2 */
  g_assert_cmpuint (f.bad->len, ==, 2);
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.rejected, ==, 2);
  g_assert_cmpuint (c.pending, ==, 1);     /* only C's receipt: 1:3 and 1:5 were not stranded */
  g_assert_cmpint (pos (&f, "1:5"), >=, 0);
  GArray *stuck = viper_run_stuck (f.run);
  g_assert_cmpuint (stuck->len, ==, 1);
  g_assert_cmpint (g_array_index (stuck, ViperStuck, 0).proc, ==, 0);
  g_assert_cmpstr (g_array_index (stuck, ViperStuck, 0).waiting_for, ==,
                   "partner tram INRP SEND from proc 1 (inglb of proc 0); "
                   "proc 1's lines test.trc:3 (seq 2), test.trc:4 (seq 4) were rejected");
  viper_stuck_array_free (stuck);
  /* a later line with a used number is a duplicate */
  feed (&f, "1 10 17 1 0 1 2 2");
  g_assert_cmpuint (f.bad->len, ==, 3);
  fix_clear (&f);
}

/* Issue 10 item 20: pending trams are bounded; past the bound a tram that
 * would only wait is refused with a clear reason, and the one that fills
 * the gap is still taken. */
static void
test_max_pending (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  viper_run_set_max_pending (f.run, 3);
  feed (&f, "1 10 2 0 0 1 2 2");           /* 0:1 is lost for now */
  feed (&f, "1 10 3 0 0 1 2 3");
  feed (&f, "1 10 4 0 0 1 2 4");
  g_assert_cmpuint (f.bad->len, ==, 0);
  feed (&f, "1 10 5 0 0 1 2 5");           /* a fourth would wait: refused */
  g_assert_cmpuint (f.bad->len, ==, 1);
  g_assert_cmpstr (f.bad->pdata[0], ==, "test.trc:4:1: 3 trams are pending, the bound (--max-pending): line not "
                   "accepted; proc 0 holds 3 and waits for seq 1 of proc 0");
  feed (&f, "1 10 1 0 0 1 2 1");           /* the lost one lets them all go */
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.transferred, ==, 4);
  g_assert_cmpuint (c.rejected, ==, 1);
  g_assert_cmpuint (c.pending, ==, 0);
  /* the module waits for the refused tram: its reason names the line
   * (spec section 1: a reason that names the rejected line) */
  feed (&f, "1 10 7 0 0 1 2 7");
  GArray *st = viper_run_stuck (f.run);
  g_assert_cmpuint (st->len, ==, 1);
  g_assert_cmpstr (g_array_index (st, ViperStuck, 0).waiting_for, ==,
                   "seq 5 of proc 0; proc 0's line test.trc:4 (seq 5) was rejected");
  viper_stuck_array_free (st);
  fix_clear (&f);
}

/* Issue 10 item 20: distinct PROCs are bounded; a new one past the bound is
 * refused with a clear reason, known ones go on. */
static void
test_max_procs (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  viper_run_set_max_procs (f.run, 2);
  feed (&f, "1 10 1 0 0 1 2 1");
  feed (&f, "1 10 1 1 0 1 2 1");
  feed (&f, "1 10 1 7 0 1 2 1");           /* a third PROC */
  feed (&f, "1 10 2 1 0 1 2 2");
  g_assert_cmpuint (f.bad->len, ==, 1);
  g_assert_cmpstr (f.bad->pdata[0], ==, "test.trc:3:1: a new PROC 7 past the bound of 2 modules (--max-procs): "
                   "line not accepted");
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.transferred, ==, 3);
  g_assert_cmpuint (c.rejected, ==, 1);
  fix_clear (&f);
}

static void
test_unmatched_partner (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  feed (&f, "2 14 100 0 0 3 2 1 1 0");   /* C inglb on 1, P never receives */
  feed (&f, "4 15 130 0 0 3 2 2 1 0");   /* C claims a reply */
  feed (&f, "4 14 50 2 1 3 2 1 5 0");    /* proc 2 receives a request from 5, who never calls */
  GArray *stuck = viper_run_stuck (f.run);
  g_assert_cmpuint (stuck->len, ==, 2);
  g_assert_cmpstr (g_array_index (stuck, ViperStuck, 0).waiting_for, ==,
                   "partner tram INRP SEND from proc 1 (inglb of proc 0)");
  g_assert_cmpstr (g_array_index (stuck, ViperStuck, 1).waiting_for, ==,
                   "the primitive of INRQ RECEIVED seq 1 of proc 2 (no matching start from proc 5 yet)");
  viper_stuck_array_free (stuck);
  fix_clear (&f);
}

/* Minimal delay: each tram leaves at the first insert after which all its
 * predecessors are in, never earlier, never later. */
static void
test_minimal_delay (void)
{
  /* arrival order chosen so several trams wait */
  const guint order[] = { 6, 2, 7, 0, 5, 3, 1, 4 };
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  /* predecessors by line index: seq predecessor in own module + cross dependency */
  const gint seqpred[] = { -1, -1, 0, 1, 3, 4, 2, 6 };
  const gint cross[] = { -1, -1, -1, 2, -1, -1, 5, -1 };
  guint arrived_at[8];
  for (guint k = 0; k < 8; k++)
    arrived_at[order[k]] = k + 1;
  for (guint k = 0; k < 8; k++)
    feed (&f, inglb_lines[order[k]]);
  const char *keys[] = { "0:1", "1:1", "0:2", "1:2", "1:3", "1:4", "0:3", "0:4" };
  guint expected[8];
  for (guint i = 0; i < 8; i++)   /* lines are listed in a causal order */
    {
      expected[i] = arrived_at[i];
      if (seqpred[i] >= 0)
        expected[i] = MAX (expected[i], expected[seqpred[i]]);
      if (cross[i] >= 0)
        expected[i] = MAX (expected[i], expected[cross[i]]);
    }
  for (guint i = 0; i < 8; i++)
    g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (f.when, keys[i])), ==, expected[i]);
  fix_clear (&f);
}

/* Clock-offset decay on a skewed pair (thesis 5.2, Figure 30). */
static double
offset_after (double decay, guint n_after)
{
  Fix f;
  fix_init (&f, &test_paradigm, decay);
  feed (&f, "2 14 100 0 0 3 2 1 1 0");     /* C requests at 100 */
  feed (&f, "4 14 90 1 1 3 2 1 0 0");      /* P receives "at 90": pulled to 100, offset 10 */
  for (guint i = 0; i < n_after; i++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 13 %u 1 0 2 2 %u 0", 200 + 100 * i, 2 + i);
      feed (&f, line);
    }
  double off = viper_run_offset (f.run, 1);
  fix_clear (&f);
  return off;
}

static void
test_decay (void)
{
  g_assert_cmpfloat (offset_after (1.0, 0), ==, 10.0);
  g_assert_cmpfloat (offset_after (1.0, 3), ==, 10.0);   /* misaligned clocks: offset kept */
  g_assert_cmpfloat (offset_after (0.0, 0), ==, 0.0);    /* incident: forgotten at once */
  g_assert_cmpfloat (offset_after (0.5, 0), ==, 5.0);
  g_assert_cmpfloat (offset_after (0.5, 1), ==, 2.5);
  g_assert_cmpfloat (offset_after (0.5, 2), ==, 1.25);
  g_assert_cmpfloat (offset_after (0.0, 2), ==, 0.0);

  /* decay 0: the next tram of P at 91 is at 91 (no offset) - but never before 100 */
  Fix f;
  fix_init (&f, &test_paradigm, 0.0);
  feed (&f, "2 14 100 0 0 3 2 1 1 0");
  feed (&f, "4 14 90 1 1 3 2 1 0 0");
  feed (&f, "1 13 91 1 0 2 2 2 0");
  feed (&f, "1 13 120 1 0 2 2 3 0");
  g_assert_cmpfloat (adj (&f, "1:1"), ==, 100.0);
  g_assert_cmpfloat (adj (&f, "1:2"), ==, 100.0);       /* max(91 + 0, 100) */
  g_assert_cmpfloat (adj (&f, "1:3"), ==, 120.0);
  fix_clear (&f);
  fix_init (&f, &test_paradigm, 1.0);
  feed (&f, "2 14 100 0 0 3 2 1 1 0");
  feed (&f, "4 14 90 1 1 3 2 1 0 0");
  feed (&f, "1 13 91 1 0 2 2 2 0");
  feed (&f, "1 13 120 1 0 2 2 3 0");
  g_assert_cmpfloat (adj (&f, "1:2"), ==, 101.0);       /* 91 + 10: distances kept */
  g_assert_cmpfloat (adj (&f, "1:3"), ==, 130.0);
  fix_clear (&f);
}

static void
test_far_ahead_sequence (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  /* seq 200000 arrives first, then 1..199999 */
  feed (&f, "1 13 200000 0 0 2 2 200000 0");
  for (guint s = 1; s < 200000; s++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 13 %u 0 0 2 2 %u 0", s, s);
      feed (&f, line);
    }
  g_assert_cmpuint (f.out->len, ==, 200000);
  g_assert_cmpstr (f.out->pdata[199999], ==, "0:200000");
  fix_clear (&f);
}

/* Many trams far ahead of the cut: each costs O(log n) once when the cut
 * nears it (a scan of all far trams per step made this quadratic). */
static void
test_many_far_ahead (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  const guint n = 100000;
  for (guint s = 2 * n; s > n; s--)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 13 %u 0 0 2 2 %u 0", s, s);
      feed (&f, line);
    }
  g_assert_cmpuint (f.out->len, ==, 0);
  for (guint s = 1; s <= n; s++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 13 %u 0 0 2 2 %u 0", s, s);
      feed (&f, line);
    }
  g_assert_cmpuint (f.out->len, ==, 2 * n);
  for (guint i = 0; i < 2 * n; i += 997)
    {
      char key[32];
      g_snprintf (key, sizeof key, "0:%u", i + 1);
      g_assert_cmpstr (f.out->pdata[i], ==, key);
    }
  fix_clear (&f);
}

static void
test_reset (void)
{
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  for (guint i = 0; i < 5; i++)
    feed (&f, inglb_lines[i]);
  viper_run_reset (f.run);
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.read, ==, 0);
  g_assert_true (isinf (viper_run_clock (f.run)));
  g_ptr_array_set_size (f.out, 0);
  g_array_set_size (f.out_adj, 0);
  for (guint i = 0; i < G_N_ELEMENTS (inglb_lines); i++)
    feed (&f, inglb_lines[i]);
  check_inglb_run (&f);
  fix_clear (&f);
}

static gint
cmp_key (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The claim window (issue 11): a list claims at most N trams ahead of its
 * first; the run is the same as with no window, and a stop point that lifts
 * the window (viper_run_bound_claims) explains the stuck lists the same.
 * The partner's request waits for a START 38 trams into the caller's list,
 * which arrives last first and so is queued all at once. */
static char *
claim_window_run (const char *window, guint *held, char **stuck_text)
{
  if (window)
    g_setenv ("VIPER_CLAIM_WINDOW", window, TRUE);
  Fix f;
  fix_init (&f, &test_paradigm, 0.5);
  g_unsetenv ("VIPER_CLAIM_WINDOW");
  char line[64];
  feed (&f, "4 14 110 1 1 3 2 1 0 0");          /* 1:1 P request received: waits for 0:38 */
  insert_only (&f, "3 14 331 0 0 3 2 40 1 0");    /* 0:40 C end */
  insert_only (&f, "4 15 330 0 0 3 2 39 1 0");    /* 0:39 C reply received */
  insert_only (&f, "2 14 300 0 0 3 2 38 1 0");    /* 0:38 C start */
  for (guint s = 37; s >= 1; s--)
    {
      g_snprintf (line, sizeof line, "1 10 %u 0 0 1 2 %u", 200 + s, s);
      insert_only (&f, line);
    }
  *held = viper_run_claims_held (f.run);
  viper_run_bound_claims (f.run, FALSE);         /* a stop point */
  g_assert_cmpuint (viper_run_claims_held (f.run), ==, 0);
  GArray *stuck = viper_run_stuck (f.run);
  GString *st = g_string_new (NULL);
  for (guint i = 0; i < stuck->len; i++)
    g_string_append_printf (st, "%" G_GINT64_FORMAT ": %s (%" G_GUINT64_FORMAT ")\n",
                            g_array_index (stuck, ViperStuck, i).proc,
                            g_array_index (stuck, ViperStuck, i).waiting_for,
                            g_array_index (stuck, ViperStuck, i).trams);
  viper_stuck_array_free (stuck);
  *stuck_text = g_string_free (st, FALSE);
  viper_run_bound_claims (f.run, TRUE);
  drain (&f);
  feed (&f, "5 15 320 1 1 3 2 2 0 0");          /* 1:2 P reply sent */
  ViperCounts c;
  viper_run_counts (f.run, &c);
  g_assert_cmpuint (c.transferred, ==, 42);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (viper_run_claims_held (f.run), ==, 0);
  GPtrArray *keys = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < f.out->len; i++)
    g_ptr_array_add (keys, g_strdup_printf ("%s@%.17g", (char *) f.out->pdata[i], g_array_index (f.out_adj, double, i)));
  g_ptr_array_sort (keys, cmp_key);
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < keys->len; i++)
    g_string_append_printf (out, "%s\n", (char *) keys->pdata[i]);
  g_ptr_array_unref (keys);
  fix_clear (&f);
  return g_string_free (out, FALSE);
}

static void
test_claim_window (void)
{
  guint held_none, held_2, held_1;
  char *stuck_none, *stuck_2, *stuck_1;
  char *none = claim_window_run ("0", &held_none, &stuck_none);
  char *w2 = claim_window_run ("2", &held_2, &stuck_2);
  char *w1 = claim_window_run ("1", &held_1, &stuck_1);
  g_assert_cmpuint (held_none, ==, 0);
  g_assert_cmpuint (held_2, ==, 1);                /* the caller's list waits at its window */
  g_assert_cmpuint (held_1, ==, 1);
  g_assert_nonnull (strstr (stuck_none, "1: "));
  g_assert_cmpstr (stuck_2, ==, stuck_none);
  g_assert_cmpstr (stuck_1, ==, stuck_none);
  g_assert_cmpstr (w2, ==, none);
  g_assert_cmpstr (w1, ==, none);
  g_free (none), g_free (w2), g_free (w1);
  g_free (stuck_none), g_free (stuck_2), g_free (stuck_1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/inglb/in-order", test_inglb_in_order);
  g_test_add_func ("/run/inglb/all-fifo-orders", test_inglb_all_fifo_orders);
  g_test_add_func ("/run/inglb/scrambled", test_inglb_scrambled);
  g_test_add_func ("/run/any-order", test_any_order);
  g_test_add_func ("/run/inrglb/late-member", test_inrglb_late_member);
  g_test_add_func ("/run/inrglb/reply-matching", test_inrglb_reply_matching);
  g_test_add_func ("/run/bad/duplicate-and-seq", test_duplicate_and_bad_seq);
  g_test_add_func ("/run/bad/exact-ndata", test_exact_ndata);
  g_test_add_func ("/run/inrglb/big-group", test_big_group);
  g_test_add_func ("/run/stuck/gap", test_gap_stalls_dependants);
  g_test_add_func ("/run/stuck/unmatched-partner", test_unmatched_partner);
  g_test_add_func ("/run/bad/rejected-line-passes", test_rejected_line_passes);
  g_test_add_func ("/run/bound/max-pending", test_max_pending);
  g_test_add_func ("/run/bound/max-procs", test_max_procs);
  g_test_add_func ("/run/minimal-delay", test_minimal_delay);
  g_test_add_func ("/run/decay", test_decay);
  g_test_add_func ("/run/seq/far-ahead", test_far_ahead_sequence);
  g_test_add_func ("/run/seq/many-far-ahead", test_many_far_ahead);
  g_test_add_func ("/run/reset", test_reset);
  g_test_add_func ("/run/claim-window", test_claim_window);
  return g_test_run ();
}
