/* test-picl-gen.c - the trace generator keeps its promises.
 *
 * Checked from the text of the lines alone: well-formed PICL (every line
 * scans, calls nest, tracing brackets each processor), each processor's
 * order kept by the delivery, the truth's message pairs equal the k-th send
 * / k-th receive end pairing of each channel, causality in true time, and
 * determinism per seed.  The command line must print exactly what the
 * library generates. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include "picl-harness.h"

#define LINE(t, i) (&g_array_index ((t)->lines, ViperPiclGenLine, (i)))

typedef struct {
  gint64 rec, ev, proc;
  double time;
  gint64 d[8];
  guint nd;
} Parsed;

static void
parse (ViperTramFields *f, const char *text, Parsed *out)
{
  ViperParseError err;
  ViperLineKind k = viper_tram_scan (text, strlen (text), f, &err);
  if (k != VIPER_LINE_TRAM)
    g_error ("generated line does not scan: '%s': %s", text, err.reason);
  out->rec = f->rec;
  out->ev = f->ev;
  out->proc = f->proc;
  out->time = f->time;
  out->nd = f->dtype == 2 ? MIN (f->ndata, 8) : 0;
  for (guint i = 0; i < out->nd; i++)
    out->d[i] = f->data[i];
}

static void
check_trace (const ViperPiclGenTrace *t, const ViperPiclGenOptions *o, ViperTramFields *f)
{
  guint P = t->procs;
  guint32 *next_index = g_new0 (guint32, P + 1);
  gint64 *open = g_new0 (gint64, P);    /* EV of the open call; 1 = waits open */
  guint (*waits)[2] = g_malloc0 (sizeof (guint[2]) * P);
  double *last_true = g_new0 (double, P);
  guint total = t->global_lines;
  for (guint p = 0; p < P; p++)
    total += t->proc_lines[p];
  g_assert_cmpuint (total, ==, t->lines->len);

  for (guint i = 0; i < t->lines->len; i++)
    {
      const ViperPiclGenLine *l = LINE (t, i);
      Parsed x;
      parse (f, l->text, &x);
      g_assert_cmpint (x.proc, ==, l->proc);
      /* each processor's lines in order */
      g_assert_cmpuint (l->index, ==, next_index[l->proc + 1]++);
      if (o->true_time)
        {
          char buf[48];
          g_snprintf (buf, sizeof buf, " %.9f ", l->true_time);
          g_assert_nonnull (strstr (l->text, buf));
        }
      if (l->proc < 0)
        {
          g_assert_cmpint (x.rec, ==, -202);
          g_assert_cmpint (x.ev, ==, -812);
          continue;
        }
      guint p = (guint) l->proc;
      g_assert_cmpfloat (l->true_time, >=, last_true[p]);
      last_true[p] = l->true_time;
      /* tracing brackets the processor; calls nest as begin/end of one event */
      if (l->index == 0)
        g_assert_true (x.rec == -3 && x.ev == -901);
      else if (l->index == t->proc_lines[p] - 1)
        g_assert_true (x.rec == -4 && x.ev == -901);
      else if (x.rec == -3 && (x.ev == -31 || x.ev == -61))
        {
          /* waits may overlap (a waitall), nothing else */
          g_assert_true (open[p] == 0 || open[p] == 1);
          open[p] = 1;
          waits[p][x.ev == -61]++;
        }
      else if (x.rec == -3)
        {
          g_assert_cmpint (open[p], ==, 0);
          open[p] = x.ev;
        }
      else if (x.ev == -31 || x.ev == -61)
        {
          g_assert_cmpint (x.rec, ==, -4);
          g_assert_cmpint (open[p], ==, 1);
          g_assert_cmpuint (waits[p][x.ev == -61], >, 0);
          waits[p][x.ev == -61]--;
          if (!waits[p][0] && !waits[p][1])
            open[p] = 0;
        }
      else
        {
          g_assert_cmpint (x.rec, ==, -4);
          g_assert_cmpint (open[p], ==, x.ev);
          open[p] = 0;
        }
      if (l->role == VIPER_PICL_LINE_SEND)
        {
          const ViperPiclGenMessage *m = &g_array_index (t->messages, ViperPiclGenMessage, l->message);
          g_assert_true (x.ev == -21 || x.ev == -27);
          g_assert_cmpint (x.rec, ==, -3);
          g_assert_cmpint (m->send_line, ==, i);
          g_assert_cmpint (x.d[1], ==, m->tag);
          g_assert_cmpint (x.d[2], ==, m->dest);
          g_assert_cmpint (x.proc, ==, m->src);
        }
      else if (l->role == VIPER_PICL_LINE_RECV_END)
        {
          const ViperPiclGenMessage *m = &g_array_index (t->messages, ViperPiclGenMessage, l->message);
          g_assert_true (x.ev == -52 || x.ev == -61);
          g_assert_cmpint (x.rec, ==, -4);
          g_assert_cmpint (m->recv_line, ==, i);
          g_assert_cmpint (x.d[1], ==, m->tag);
          g_assert_cmpint (x.d[2], ==, m->src);
          g_assert_cmpint (x.proc, ==, m->dest);
          /* causality in true time */
          g_assert_cmpfloat (LINE (t, m->send_line)->true_time, <=, l->true_time);
        }
      else
        g_assert_false ((x.rec == -3 && (x.ev == -21 || x.ev == -27)) || (x.rec == -4 && (x.ev == -52 || x.ev == -61)));
    }
  for (guint p = 0; p < P; p++)
    g_assert_cmpuint (next_index[p + 1], ==, t->proc_lines[p]);

  /* the truth is the FIFO pairing: k-th send on (src, dest, tag) <-> k-th receive end */
  GHashTable *sends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  GHashTable *taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < t->lines->len; i++)
    if (LINE (t, i)->role == VIPER_PICL_LINE_SEND)
      {
        Parsed x;
        parse (f, LINE (t, i)->text, &x);
        char *key = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, x.proc, x.d[2], x.d[1]);
        GArray *a = g_hash_table_lookup (sends, key);
        if (!a)
          g_hash_table_insert (sends, g_strdup (key), a = g_array_new (FALSE, FALSE, sizeof (guint)));
        g_array_append_val (a, i);
        g_free (key);
      }
  guint matched = 0;
  for (guint i = 0; i < t->lines->len; i++)
    if (LINE (t, i)->role == VIPER_PICL_LINE_RECV_END)
      {
        Parsed x;
        parse (f, LINE (t, i)->text, &x);
        char *key = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, x.d[2], x.proc, x.d[1]);
        guint k = GPOINTER_TO_UINT (g_hash_table_lookup (taken, key));
        GArray *a = g_hash_table_lookup (sends, key);
        g_assert_nonnull (a);
        g_assert_cmpuint (k, <, a->len);
        const ViperPiclGenMessage *m = &g_array_index (t->messages, ViperPiclGenMessage, LINE (t, i)->message);
        g_assert_cmpuint (g_array_index (a, guint, k), ==, m->send_line);
        g_hash_table_insert (taken, key, GUINT_TO_POINTER (k + 1));
        matched++;
      }
  g_assert_cmpuint (matched, ==, t->messages->len);
  g_assert_cmpuint (t->messages->len, ==, o->messages);
  g_hash_table_destroy (sends);
  g_hash_table_destroy (taken);
  g_free (next_index);
  g_free (open);
  g_free (waits);
  g_free (last_true);
}

static void
test_many_seeds (void)
{
  ViperTramFields *f = viper_tram_fields_new ();
  guint kinds[8] = { 0 };
  for (guint s = 1; s <= 500; s++)
    {
      ViperPiclGenOptions o;
      harness_small_options (&o, s);
      o.true_time = s % 4 == 0;
      o.delivery = s % 2 ? VIPER_PICL_DELIVERY_SHUFFLED : VIPER_PICL_DELIVERY_INORDER;
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      check_trace (t, &o, f);
      /* true-time delivery is sorted by true time */
      if (o.delivery == VIPER_PICL_DELIVERY_INORDER)
        for (guint i = 1; i < t->lines->len; i++)
          g_assert_cmpfloat (LINE (t, i - 1)->true_time, <=, LINE (t, i)->true_time);
      /* redelivery keeps every promise */
      viper_picl_gen_redeliver (t, VIPER_PICL_DELIVERY_SHUFFLED, s * 7);
      check_trace (t, &o, f);
      for (guint i = 0; i < t->lines->len; i++)
        {
          const char *x = LINE (t, i)->text;
          kinds[0] += g_str_has_prefix (x, "-3 -27 ");
          kinds[1] += g_str_has_prefix (x, "-3 -61 ");
          kinds[2] += g_str_has_prefix (x, "-3 -402 ");
          kinds[3] += g_str_has_prefix (x, "-3 -911 ");
          kinds[4] += g_str_has_prefix (x, "-3 -52 ") && strstr (x, " -1 0") != NULL;
          kinds[5] += g_str_has_prefix (x, "-202 -812 ");
          kinds[6] += g_str_has_prefix (x, "-3 -31 ");
          kinds[7] += g_str_has_prefix (x, "-3 -21 ");
        }
      viper_picl_gen_free (t);
    }
  /* every kind of call shows up */
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    g_assert_cmpuint (kinds[k], >, 10);
  viper_tram_fields_free (f);
}

/* Crossing messages (A -> B and B -> A both sent before either is received)
 * and overtaking across tags (A sends x then y to B, B takes y first) must
 * occur: they are the cases the run construction is about. */
static void
test_crossing_occurs (void)
{
  guint crossings = 0, overtakes = 0;
  for (guint s = 1; s <= 200; s++)
    {
      ViperPiclGenOptions o;
      harness_small_options (&o, s);
      ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
      GArray *m = t->messages;
      for (guint a = 0; a < m->len; a++)
        for (guint b = 0; b < m->len; b++)
          {
            const ViperPiclGenMessage *x = &g_array_index (m, ViperPiclGenMessage, a);
            const ViperPiclGenMessage *y = &g_array_index (m, ViperPiclGenMessage, b);
            const ViperPiclGenLine *xs0 = LINE (t, x->send_line), *xr0 = LINE (t, x->recv_line);
            const ViperPiclGenLine *ys0 = LINE (t, y->send_line), *yr0 = LINE (t, y->recv_line);
            /* overtaking: same processors, x sent first, y received first (tags differ) */
            if (x->src == y->src && x->dest == y->dest && xs0->index < ys0->index && xr0->index > yr0->index)
              {
                g_assert_cmpint (x->tag, !=, y->tag);     /* a channel itself is FIFO */
                overtakes++;
              }
            if (x->src != y->dest || x->dest != y->src)
              continue;
            /* x sent before y is received on x's sender, and y sent before x is received */
            const ViperPiclGenLine *xs = LINE (t, x->send_line), *xr = LINE (t, x->recv_line);
            const ViperPiclGenLine *ys = LINE (t, y->send_line), *yr = LINE (t, y->recv_line);
            if (xs->index < yr->index && ys->index < xr->index)
              crossings++;
          }
      viper_picl_gen_free (t);
    }
  g_assert_cmpuint (crossings, >, 100);
  g_assert_cmpuint (overtakes, >, 50);
}

static void
test_deterministic (void)
{
  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  o.seed = 99;
  ViperPiclGenTrace *a = viper_picl_gen (&o, NULL), *b = viper_picl_gen (&o, NULL);
  o.seed = 100;
  ViperPiclGenTrace *c = viper_picl_gen (&o, NULL);
  GString *sa = g_string_new (NULL), *sb = g_string_new (NULL), *sc = g_string_new (NULL);
  viper_picl_gen_write (a, sa);
  viper_picl_gen_write (b, sb);
  viper_picl_gen_write (c, sc);
  g_assert_cmpstr (sa->str, ==, sb->str);
  g_assert_cmpstr (sa->str, !=, sc->str);
  g_string_free (sa, TRUE);
  g_string_free (sb, TRUE);
  g_string_free (sc, TRUE);
  viper_picl_gen_free (a);
  viper_picl_gen_free (b);
  viper_picl_gen_free (c);

  GError *error = NULL;
  o.procs = 1;
  g_assert_null (viper_picl_gen (&o, &error));
  g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
  g_clear_error (&error);
  /* no messages is a valid (if dull) program */
  o.procs = 3;
  o.messages = 0;
  ViperPiclGenTrace *d = viper_picl_gen (&o, NULL);
  g_assert_cmpuint (d->messages->len, ==, 0);
  viper_picl_gen_free (d);
}

/* ---- the command line -------------------------------------------------------- */

static char *
gen_path (void)
{
  const char *root = g_getenv ("VIPER_BUILD_ROOT");
  if (!root)
    return NULL;
  return g_build_filename (root, "paradigms", "picl", "viper-picl-gen", NULL);
}

static void
test_cli (void)
{
  char *exe = gen_path ();
  if (!exe || !g_file_test (exe, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_free (exe);
      g_test_skip ("viper-picl-gen not built (VIPER_BUILD_ROOT unset)");
      return;
    }
  char *dir = g_dir_make_tmp ("picl-gen-XXXXXX", NULL);
  char *truth = g_build_filename (dir, "truth.json", NULL);
  char *trace = g_build_filename (dir, "trace.trc", NULL);
  char *truth_arg = g_strconcat ("--truth-out=", truth, NULL);
  char *argv[] = { exe, "--procs=5", "--messages=30", "--seed=12345", "--delivery=inorder", "--barriers=2",
                   "--offset=0.01", truth_arg, NULL };
  char *out = NULL, *err = NULL;
  int status = 0;
  GError *error = NULL;
  g_assert_true (g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  o.procs = 5;
  o.messages = 30;
  o.seed = 12345;
  o.delivery = VIPER_PICL_DELIVERY_INORDER;
  o.barriers = 2;
  o.offset = 0.01;
  ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
  GString *want = g_string_new (NULL);
  viper_picl_gen_write (t, want);
  g_assert_cmpstr (out, ==, want->str);
  g_string_truncate (want, 0);
  viper_picl_gen_write_truth (t, want);
  char *got = NULL;
  g_assert_true (g_file_get_contents (truth, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, want->str);
  g_assert_nonnull (strstr (got, "\"proc_lines\": ["));
  g_free (got);
  g_free (out);
  g_free (err);

  /* -o writes the same bytes to a file */
  char *out_arg = g_strconcat ("--output=", trace, NULL);
  char *argv2[] = { exe, "-P", "5", "-M", "30", "-s", "12345", "--delivery", "inorder", "--barriers", "2",
                    "--offset", "0.01", out_arg, NULL };
  g_assert_true (g_spawn_sync (NULL, argv2, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (out, ==, "");
  g_assert_true (g_file_get_contents (trace, &got, NULL, NULL));
  g_string_truncate (want, 0);
  viper_picl_gen_write (t, want);
  g_assert_cmpstr (got, ==, want->str);
  g_free (got);
  g_free (out);
  g_free (err);

  /* usage errors exit 2, naming the option: chances outside 0..1, negative
   * or unbounded spans of time, counts out of range */
  const char *bad[][2] = {
    { "--procs=1", "--procs" }, { "--delivery=random", "--delivery" }, { "--bogus", "--bogus" },
    { "extra-arg", "extra-arg" }, { "--nonblocking=2", "--nonblocking=2" }, { "--anysource=-0.1", "--anysource" },
    { "--crossing=1.5", "--crossing" }, { "--reorder=nan", "--reorder" }, { "--waitall=2", "--waitall" },
    { "--notes=-1", "--notes" }, { "--offset=-1", "--offset" }, { "--offset=inf", "--offset" },
    { "--drift=0.5", "--drift" }, { "--jitter=-2e-6", "--jitter" }, { "--latency=nan", "--latency" },
    { "--compute=-1", "--compute" }, { "--messages=-1", "--messages" }, { "--tags=0", "--tags" },
    { "--barriers=-1", "--barriers" }, { "--collectives=100000000", "--collectives" }, { "--procs=abc", "--procs" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      char *argv3[] = { exe, (char *) bad[i][0], NULL };
      g_assert_true (g_spawn_sync (NULL, argv3, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
      if (!WIFEXITED (status) || WEXITSTATUS (status) != 2 || !strstr (err, "viper-picl-gen") || !strstr (err, bad[i][1]))
        g_error ("%s: status %d, stderr '%s' (want exit 2 naming %s)", bad[i][0], status, err, bad[i][1]);
      g_assert_cmpstr (out, ==, "");
      g_free (out);
      g_free (err);
    }
  /* the ends of the ranges are fine */
  char *argv4[] = { exe, "-M", "5", "--nonblocking=1", "--anysource=0", "--notes=1", "--drift=0", NULL };
  g_assert_true (g_spawn_sync (NULL, argv4, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_free (out);
  g_free (err);

  viper_picl_gen_free (t);
  g_string_free (want, TRUE);
  g_unlink (truth);
  g_unlink (trace);
  g_rmdir (dir);
  g_free (out_arg);
  g_free (truth_arg);
  g_free (truth);
  g_free (trace);
  g_free (dir);
  g_free (exe);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/picl/gen/many-seeds", test_many_seeds);
  g_test_add_func ("/picl/gen/crossing-occurs", test_crossing_occurs);
  g_test_add_func ("/picl/gen/deterministic", test_deterministic);
  g_test_add_func ("/picl/gen/cli", test_cli);
  return g_test_run ();
}
