/* picl-harness.c - the test driver shared by the picl tests.
 *
 * One channel, implicit sequence numbers (picl carries none), a real picl
 * model behind the run.  Every transfer is recorded with the module's offset
 * just before and just after it, so the tests can check the decay rule
 * without trusting the engine's own bookkeeping. */
#include <math.h>
#include <string.h>
#include "picl-harness.h"

static void
sink (ViperDiagKind kind, const char *msg, gpointer data)
{
  Harness *h = data;
  if (kind == VIPER_DIAG_BAD_INPUT)
    {
      h->bad++;
      g_free (h->last_bad);
      h->last_bad = g_strdup (msg);
      if (g_test_verbose ())
        g_printerr ("bad: %s\n", msg);
    }
  else if (kind == VIPER_DIAG_WARNING)
    {
      h->warnings++;
      g_free (h->last_warning);
      h->last_warning = g_strdup (msg);
      if (g_test_verbose ())
        g_printerr ("warning: %s\n", msg);
    }
}

void
harness_init (Harness *h, double decay)
{
  memset (h, 0, sizeof *h);
  viper_paradigms_register_all ();
  h->pool = viper_tram_pool_new ();
  h->fields = viper_tram_fields_new ();
  h->channels = viper_channels_new ();
  h->channel = viper_channels_add (h->channels, "gen.trc");
  viper_diag_init (&h->diag, sink, h);
  h->model = viper_picl_paradigm.model_new (&viper_picl_paradigm, NULL);
  h->model->diag = &h->diag;
  h->run = viper_run_new (&viper_picl_paradigm, h->model, h->pool, h->channels, &h->diag, decay);
  h->out = g_array_new (FALSE, FALSE, sizeof (Transfer));
  h->offsets = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
}

void
harness_clear (Harness *h)
{
  viper_run_free (h->run);
  g_assert_cmpuint (viper_tram_pool_live (h->pool), ==, 0);
  viper_model_free (h->model);
  viper_tram_pool_free (h->pool);
  viper_tram_fields_free (h->fields);
  viper_channels_free (h->channels);
  viper_diag_clear (&h->diag);
  g_array_unref (h->out);
  g_hash_table_destroy (h->offsets);
  g_free (h->last_bad);
  g_free (h->last_warning);
}

void
harness_drain (Harness *h)
{
  const ViperTram *t;
  while ((t = viper_run_transfer_next (h->run)))
    {
      gint64 proc = t->proc;
      double *prev = g_hash_table_lookup (h->offsets, &proc);
      Transfer rec = {
        .proc = proc, .seq = t->seq, .time = t->time, .adjusted = t->adjusted,
        .offset_before = prev ? *prev : 0.0,
        .offset_after = viper_run_offset (h->run, proc),
        .at_insert = h->inserts, .type = t->type,
      };
      if (!prev)
        {
          prev = g_new (double, 1);
          g_hash_table_insert (h->offsets, g_memdup2 (&proc, sizeof proc), prev);
        }
      *prev = rec.offset_after;
      g_assert_cmpint (t->state, ==, VIPER_TRAM_TRANSFERRED);
      viper_model_apply (h->model, t);
      g_array_append_val (h->out, rec);
      if (h->on_transfer)
        h->on_transfer (h, t, &rec, h->on_transfer_data);
    }
}

void
harness_end (Harness *h)
{
  if (viper_run_input_end (h->run))
    {
      GArray *procs = viper_run_procs (h->run);
      viper_model_set_modules (h->model, procs);
      g_array_unref (procs);
    }
  harness_drain (h);
}

gboolean
harness_feed (Harness *h, const char *line)
{
  ViperLineKind kind;
  ViperParseError err;
  ViperTram *t = viper_tram_parse (h->pool, h->fields, line, strlen (line), &kind, &err);
  if (!t)
    g_error ("harness: cannot parse '%s': %s", line, kind == VIPER_LINE_BAD ? err.reason : "comment");
  t->channel = h->channel;
  t->line = (guint32) ++h->inserts;
  gboolean ok = viper_run_insert (h->run, t);
  harness_drain (h);
  return ok;
}

void
harness_small_options (ViperPiclGenOptions *o, guint64 seed)
{
  viper_picl_gen_options_init (o);
  GRand *r = g_rand_new_with_seed ((guint32) (seed * 2654435761u + 17));
  o->seed = seed;
  o->procs = (guint) g_rand_int_range (r, 2, 9);
  o->messages = (guint) g_rand_int_range (r, 10, 61);
  o->tags = (guint) g_rand_int_range (r, 1, 5);
  o->p_nonblocking = g_rand_double_range (r, 0, 0.6);
  o->p_anysource = g_rand_double_range (r, 0, 0.5);
  o->p_hoist = g_rand_double_range (r, 0, 0.9);
  o->p_delay = g_rand_double_range (r, 0, 0.7);
  o->barriers = (guint) g_rand_int_range (r, 0, 3);
  o->p_note = g_rand_double_range (r, 0, 0.2);
  /* clocks from perfect to badly skewed */
  double skew = g_rand_double_range (r, 0, 1);
  o->offset = skew < 0.2 ? 0 : skew * 2e-3;
  o->drift = skew < 0.2 ? 0 : skew * 1e-3;
  o->jitter = g_rand_double_range (r, 0, 5e-6);
  /* drawn last, so the traces above stay what they were */
  o->collectives = seed % 3 ? (guint) g_rand_int_range (r, 0, 5) : 0;
  o->p_waitall = seed % 2 ? g_rand_double_range (r, 0, 0.8) : 0;
  o->delivery = VIPER_PICL_DELIVERY_SHUFFLED;
  g_rand_free (r);
}

static gint64
seq_key (gint64 proc, gint64 seq)
{
  return (gint64) (((guint64) (proc + 1) << 32) | (guint64) seq);
}

GHashTable *
harness_seq_index (const GArray *lines)
{
  GHashTable *index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  GHashTable *count = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < lines->len; i++)
    {
      const ViperPiclGenLine *l = &g_array_index (lines, ViperPiclGenLine, i);
      gint64 proc = l->proc;
      gint64 seq = GPOINTER_TO_SIZE (g_hash_table_lookup (count, &proc)) + 1;
      g_hash_table_insert (count, g_memdup2 (&proc, sizeof proc), GSIZE_TO_POINTER ((gsize) seq));
      gint64 k = seq_key (proc, seq);
      g_hash_table_insert (index, g_memdup2 (&k, sizeof k), GUINT_TO_POINTER (i + 1));
    }
  g_hash_table_destroy (count);
  return index;
}

guint
harness_lookup (GHashTable *index, gint64 proc, gint64 seq)
{
  gint64 k = seq_key (proc, seq);
  gpointer v = g_hash_table_lookup (index, &k);
  return v ? GPOINTER_TO_UINT (v) - 1 : G_MAXUINT;
}
