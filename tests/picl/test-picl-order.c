/* test-picl-order.c - states are functions of the trams and their adjusted
 * times only (spec section 3, issue 10 item 10).
 *
 * Random programs with overlapping waits and collectives of every kind are
 * replayed in many line orders that keep each processor's order: true-time
 * order, random interleavings, and processor-grouped orders (one
 * processor's whole file after the other, in a random order of files).
 * Every replay must give the same --state-out, the same history (each
 * processor's state changes, the message arrows: what the space-time view
 * draws) and the same Pajé and Chrome exports.  The exports are compared
 * as sets of records without message ids: the id of a message and the
 * order of records at one time follow the run order, which is free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "picl-harness.h"
#include "paradigms/export.h"

#define LINE(t, i) (&g_array_index ((t)->lines, ViperPiclGenLine, (i)))

typedef struct {
  ViperExporter *paje, *chrome;
} Exports;

static void
export_transfer (Harness *h, const ViperTram *t, const Transfer *rec, gpointer data)
{
  (void) h;
  (void) rec;
  Exports *x = data;
  viper_exporter_tram (x->paje, t);
  viper_exporter_tram (x->chrome, t);
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* Records of an export without message ids, sorted; there is one
 * "running" program event. */
static char *
normalise (const char *text, const char *id_key)
{
  gchar **lines = g_strsplit (text, "\n", -1);
  GPtrArray *keep = g_ptr_array_new_with_free_func (g_free);
  guint running = 0;
  GRegex *re = g_regex_new (id_key, 0, 0, NULL);
  for (guint i = 0; lines[i]; i++)
    {
      running += strstr (lines[i], "running") != NULL;
      g_ptr_array_add (keep, g_regex_replace_literal (re, lines[i], -1, 0, "ID", 0, NULL));
    }
  g_assert_cmpuint (running, ==, 1);
  g_regex_unref (re);
  g_strfreev (lines);
  g_ptr_array_sort (keep, cmp_str);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < keep->len; i++)
    g_string_append_printf (s, "%s\n", (char *) keep->pdata[i]);
  g_ptr_array_unref (keep);
  return g_string_free (s, FALSE);
}

/* Everything a user sees of one replay, as text. */
static char *
replay_signature (const ViperPiclGenTrace *t, double decay)
{
  Harness h;
  harness_init (&h, decay);
  GString *paje = g_string_new (NULL), *chrome = g_string_new (NULL);
  Exports x = {
    viper_exporter_open_string (&viper_picl_paradigm, h.model, "paje", paje, NULL),
    viper_exporter_open_string (&viper_picl_paradigm, h.model, "chrome", chrome, NULL),
  };
  g_assert_nonnull (x.paje);
  g_assert_nonnull (x.chrome);
  h.on_transfer = export_transfer;
  h.on_transfer_data = &x;
  for (guint i = 0; i < t->lines->len; i++)
    g_assert_true (harness_feed (&h, LINE (t, i)->text));
  harness_end (&h);
  g_assert_true (viper_exporter_close (x.paje, NULL));
  g_assert_true (viper_exporter_close (x.chrome, NULL));

  GString *s = g_string_new (NULL);
  ViperCounts c;
  viper_run_counts (h.run, &c);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (h.model->inconsistent, ==, 0);
  g_string_append_printf (s, "clock %.17g program %s transferred %" G_GUINT64_FORMAT "\n", h.model->clock,
                          viper_model_program_state (h.model), c.transferred);
  ViperJson j;
  viper_json_init (&j, s, FALSE);
  viper_json_begin_object (&j);
  h.model->klass->write_top (h.model, &j);
  viper_json_key (&j, "modules");
  viper_json_begin_array (&j);
  h.model->klass->write_modules (h.model, h.run, &j);
  viper_json_end_array (&j);
  viper_json_end_object (&j);
  g_string_append_c (s, '\n');
  /* each processor's state changes in the order the view reads them */
  for (gint64 p = 0; p < (gint64) t->procs; p++)
    {
      g_string_append_printf (s, "P%" G_GINT64_FORMAT ":", p);
      for (guint i = 0; i < h.model->history->len; i++)
        {
          const ViperHistoryEntry *e = &g_array_index (h.model->history, ViperHistoryEntry, i);
          if (e->module == p && e->other < 0)
            g_string_append_printf (s, " %.17g=%d", e->t0, e->state);
        }
      g_string_append_c (s, '\n');
    }
  GPtrArray *arrows = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < h.model->history->len; i++)
    {
      const ViperHistoryEntry *e = &g_array_index (h.model->history, ViperHistoryEntry, i);
      if (e->other >= 0)
        g_ptr_array_add (arrows, g_strdup_printf ("%d>%d %.17g %.17g", e->module, e->other, e->t0, e->t1));
    }
  g_ptr_array_sort (arrows, cmp_str);
  for (guint i = 0; i < arrows->len; i++)
    g_string_append_printf (s, "%s\n", (char *) arrows->pdata[i]);
  g_ptr_array_unref (arrows);
  char *np = normalise (paje->str, " k[0-9]+"), *nc = normalise (chrome->str, "\"id\":[0-9]+");
  g_string_append (s, np);
  g_string_append (s, nc);
  g_free (np);
  g_free (nc);
  g_string_free (paje, TRUE);
  g_string_free (chrome, TRUE);
  harness_clear (&h);
  return g_string_free (s, FALSE);
}

/* One processor's lines after the other (PROC -1 among them), files in a random order. */
static void
deliver_grouped (ViperPiclGenTrace *t, GRand *r)
{
  guint streams = t->procs + 1;
  guint *perm = g_new (guint, streams);
  for (guint s = 0; s < streams; s++)
    perm[s] = s;
  for (guint s = streams - 1; s > 0; s--)
    {
      guint j = (guint) g_rand_int_range (r, 0, (gint32) s + 1);
      guint tmp = perm[s];
      perm[s] = perm[j];
      perm[j] = tmp;
    }
  viper_picl_gen_redeliver (t, VIPER_PICL_DELIVERY_INORDER, 0);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (ViperPiclGenLine), t->lines->len);
  for (guint k = 0; k < streams; k++)
    for (guint i = 0; i < t->lines->len; i++)
      if ((guint) (LINE (t, i)->proc + 1) == perm[k])
        g_array_append_val (out, *LINE (t, i));
  g_array_unref (t->lines);
  t->lines = out;
  g_free (perm);
}

static void
test_line_orders (void)
{
  const char *env = g_getenv ("VIPER_PICL_SEEDS");
  guint seeds = env ? (guint) MAX (1, atoi (env) / 50) : 60;
  GRand *r = g_rand_new_with_seed (1010);
  guint compared = 0;
  for (guint s = 1; s <= seeds; s++)
    {
      ViperPiclGenOptions o;
      harness_small_options (&o, 500000 + s);
      o.collectives = (guint) g_rand_int_range (r, 1, 6);
      o.p_waitall = g_rand_double_range (r, 0.2, 1.0);
      o.p_nonblocking = g_rand_double_range (r, 0.3, 0.9);
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      double decay = s % 2 ? 0.5 : 1.0;
      viper_picl_gen_redeliver (t, VIPER_PICL_DELIVERY_INORDER, 0);
      char *want = replay_signature (t, decay);
      for (guint k = 0; k < 6; k++)
        {
          if (k < 3)
            viper_picl_gen_redeliver (t, VIPER_PICL_DELIVERY_SHUFFLED, s * 100 + k);
          else
            deliver_grouped (t, r);
          char *got = replay_signature (t, decay);
          if (strcmp (got, want) != 0)
            {
              char *a = g_build_filename (g_get_tmp_dir (), "picl-order-want.txt", NULL);
              char *b = g_build_filename (g_get_tmp_dir (), "picl-order-got.txt", NULL);
              g_file_set_contents (a, want, -1, NULL);
              g_file_set_contents (b, got, -1, NULL);
              g_printerr ("seed %u delivery %u differs from true-time order: diff %s %s\n", s, k, a, b);
              g_free (a);
              g_free (b);
              g_assert_cmpstr (got, ==, want);
            }
          g_free (got);
          compared++;
        }
      g_free (want);
      viper_picl_gen_free (t);
    }
  g_rand_free (r);
  g_assert_cmpuint (compared, ==, seeds * 6);
}

/* The generator's global barriers are over subset 1, defined as every
 * processor in order: the same barriers over SUBSET -1 (all), with that
 * definition left out, and every other subset definition moved to the end
 * of the file (defined late). */
static guint
barriers_over_all (ViperPiclGenTrace *t)
{
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (ViperPiclGenLine), t->lines->len);
  GArray *defs = g_array_new (FALSE, FALSE, sizeof (ViperPiclGenLine));
  guint changed = 0;
  for (guint i = 0; i < t->lines->len; i++)
    {
      ViperPiclGenLine l = *LINE (t, i);
      if (g_str_has_prefix (l.text, "-202 -812 "))
        {
          gchar **f = g_strsplit_set (l.text, " ", -1);
          gboolean one = g_strv_length (f) > 7 && g_str_equal (f[7], "1");
          g_strfreev (f);
          if (!one)
            g_array_append_val (defs, l);
          continue;
        }
      if (g_str_has_prefix (l.text, "-3 -402 ") && g_str_has_suffix (l.text, " 1 2 1"))
        {
          char *text = g_strndup (l.text, strlen (l.text) - 1);
          char *all = g_strconcat (text, "-1", NULL);
          l.text = g_string_chunk_insert (t->text, all);
          g_free (all);
          g_free (text);
          changed++;
        }
      g_array_append_val (out, l);
    }
  g_array_append_vals (out, defs->data, defs->len);
  g_array_unref (defs);
  g_array_unref (t->lines);
  t->lines = out;
  return changed;
}

/* Collectives over every processor (SUBSET -1) and over subsets defined
 * after their collectives: a processor whose lines all come last (grouped
 * orders) is a member all the same, so every order gives the same run. */
static void
test_all_and_late_subsets (void)
{
  GRand *r = g_rand_new_with_seed (2026);
  guint compared = 0;
  for (guint s = 1; s <= 12; s++)
    {
      ViperPiclGenOptions o;
      harness_small_options (&o, 700000 + s);
      o.barriers = (guint) g_rand_int_range (r, 1, 4);
      o.collectives = (guint) g_rand_int_range (r, 0, 4);
      o.p_delay = 0.5;
      o.offset = 2e-3;    /* skewed clocks: a processor's first line is late in time order */
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      viper_picl_gen_redeliver (t, VIPER_PICL_DELIVERY_INORDER, 0);
      g_assert_cmpuint (barriers_over_all (t), >, 0);
      char *want = replay_signature (t, 0.5);
      for (guint k = 0; k < 5; k++)
        {
          if (k < 2)
            viper_picl_gen_redeliver (t, VIPER_PICL_DELIVERY_SHUFFLED, s * 100 + k);
          else
            deliver_grouped (t, r);
          if (k < 2)
            barriers_over_all (t);
          char *got = replay_signature (t, 0.5);
          if (strcmp (got, want) != 0)
            g_printerr ("seed %u delivery %u differs from true-time order\n", s, k);
          g_assert_cmpstr (got, ==, want);
          g_free (got);
          compared++;
        }
      g_free (want);
      viper_picl_gen_free (t);
    }
  g_rand_free (r);
  g_assert_cmpuint (compared, ==, 12 * 5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/picl/order/line-orders", test_line_orders);
  g_test_add_func ("/picl/order/all-and-late-subsets", test_all_and_late_subsets);
  return g_test_run ();
}
