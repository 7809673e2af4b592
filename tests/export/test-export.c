/* test-export.c - exports that other tools open (issue 7).
 *
 * Each test replays a trace through the same scheduler viper-replay uses,
 * with exporters hooked to it, and then checks the export the way the other
 * tool would read it: ParaGraph files are replayed again as picl runs (same
 * messages, same per-processor order, times non-decreasing, every receive
 * after its send in the file and in time, and no clock correction needed);
 * Pajé files go through pj_dump; Chrome files through json-glib, counting
 * tracks and flows.  The expected numbers come from the generator's truth or
 * from the trace's own primitives, never from the exporter.
 */
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <glib/gstdio.h>
#ifdef HAVE_JSON_GLIB
#include <json-glib/json-glib.h>
#endif
#include "core/scheduler.h"
#include "paradigms/paradigms.h"
#include "paradigms/export.h"
#include "paradigms/export-private.h"
#include "paradigms/picl/picl.h"
#include "paradigms/picl/picl-gen-lib.h"
#include "paradigms/monalisa/monalisa.h"
#include "tests/common/test-replay.h"

static char *tmpdir;

/* ---- replay through the scheduler ------------------------------------------------ */

typedef struct {
  TestReplay rp;
  guint64 bad, warnings;
  guint64 corrected;        /* transferred trams whose adjusted time differs from their time */
  guint64 transferred;
} Replay;

static void
diag_sink (ViperDiagKind kind, const char *msg, gpointer data)
{
  Replay *r = data;
  if (kind == VIPER_DIAG_BAD_INPUT)
    r->bad++;
  else if (kind == VIPER_DIAG_WARNING)
    r->warnings++;
  if (g_test_verbose () && (kind == VIPER_DIAG_BAD_INPUT || kind == VIPER_DIAG_WARNING))
    g_printerr ("diag: %s\n", msg);
}

static void
count_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  (void) changed;
  Replay *r = data;
  r->transferred++;
  if (t->adjusted != t->time)
    r->corrected++;
}

static void
replay_open (Replay *r, const char *paradigm, const char *setup_path, const char *trace)
{
  memset (r, 0, sizeof *r);
  test_replay_open (&r->rp, paradigm, trace, setup_path, -1.0, diag_sink, r);
  r->rp.model->diag = &r->rp.diag;
  viper_scheduler_add_hook (r->rp.sched, count_hook, r);
}

static void
replay_run (Replay *r)
{
  viper_scheduler_go (r->rp.sched);
  ViperStopReason why = viper_scheduler_run (r->rp.sched);
  g_assert_cmpint (why, ==, VIPER_STOP_END);
}

static void
replay_close (Replay *r)
{
  test_replay_close (&r->rp);
}

static guint64
replay_pending (Replay *r)
{
  ViperCounts c;
  viper_run_counts (r->rp.run, &c);
  return c.pending;
}

static char *
write_tmp (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  GError *error = NULL;
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

/* Replay `trace` and export it in every format asked (NULL-terminated pairs
 * format, path); returns the stats of the first exporter. */
static void
export_trace (const char *paradigm, const char *setup, const char *trace, const char *const *formats,
              const char *const *paths, guint64 limit, guint64 window, ViperExportStats *stats)
{
  Replay r;
  replay_open (&r, paradigm, setup, trace);
  ViperExporter *ex[4] = { NULL };
  guint n = 0;
  for (; formats[n]; n++)
    {
      GError *error = NULL;
      ex[n] = viper_exporter_open (r.rp.paradigm, r.rp.model, formats[n], paths[n], &error);
      g_assert_no_error (error);
      if (limit)
        viper_exporter_set_buffer_limit (ex[n], limit);
      if (window != G_MAXUINT64)
        viper_exporter_set_window (ex[n], window);
      viper_scheduler_add_hook (r.rp.sched, viper_exporter_hook, ex[n]);
    }
  replay_run (&r);
  g_assert_cmpuint (replay_pending (&r), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      GError *error = NULL;
      g_assert_true (viper_exporter_finish (ex[i], &error));
      if (i == 0 && stats)
        viper_exporter_stats (ex[i], stats);
      g_assert_true (viper_exporter_close (ex[i], &error));
      g_assert_no_error (error);
    }
  replay_close (&r);
}

/* ---- reading PICL files ------------------------------------------------------------ */

typedef struct {
  gint64 rec, ev, proc;
  double time;
  char *rest;               /* the fields after TIME, normalised */
  gint64 d[8];
  guint nd;
} Line;

static GArray *
read_lines (const char *text)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (Line));
  char **lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      char *s = g_strstrip (*l);
      if (!*s || *s == '#')
        continue;
      char **f = g_strsplit_set (s, " \t", -1);
      GPtrArray *w = g_ptr_array_new ();
      for (char **x = f; *x; x++)
        if (**x)
          g_ptr_array_add (w, *x);
      g_assert_cmpuint (w->len, >=, 6);
      Line ln = { 0 };
      ln.rec = g_ascii_strtoll (w->pdata[0], NULL, 10);
      ln.ev = g_ascii_strtoll (w->pdata[1], NULL, 10);
      ln.time = g_ascii_strtod (w->pdata[2], NULL);
      ln.proc = g_ascii_strtoll (w->pdata[3], NULL, 10);
      GString *rest = g_string_new (NULL);
      for (guint i = 3; i < w->len; i++)
        g_string_append_printf (rest, "%s%s", i > 3 ? " " : "", (char *) w->pdata[i]);
      ln.rest = g_string_free (rest, FALSE);
      for (guint i = 7; i < w->len && ln.nd < 8; i++)
        ln.d[ln.nd++] = g_ascii_strtoll (w->pdata[i], NULL, 10);
      g_array_append_val (out, ln);
      g_ptr_array_unref (w);
      g_strfreev (f);
    }
  g_strfreev (lines);
  return out;
}

static void
free_lines (GArray *a)
{
  for (guint i = 0; i < a->len; i++)
    g_free (g_array_index (a, Line, i).rest);
  g_array_unref (a);
}

static gint
str_ptr_cmp (const char *const *a, const char *const *b)
{
  return strcmp (*a, *b);
}

/* Per processor, the lines without their times, in file order. */
static GHashTable *
per_proc (GArray *lines)
{
  GHashTable *h = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < lines->len; i++)
    {
      Line *l = &g_array_index (lines, Line, i);
      GPtrArray *a = g_hash_table_lookup (h, &l->proc);
      if (!a)
        {
          a = g_ptr_array_new ();
          g_hash_table_insert (h, g_memdup2 (&l->proc, sizeof l->proc), a);
        }
      g_ptr_array_add (a, l->rest);
    }
  return h;
}

static gboolean
is_send (const Line *l)
{
  return l->rec == -3 && (l->ev == -21 || l->ev == -27) && l->nd >= 4;
}

static gboolean
is_recv_end (const Line *l)
{
  return l->rec == -4 && (l->ev == -52 || l->ev == -61) && l->nd >= 4;
}

/* Times never decrease; every receive end follows its send in the file and in
 * time (FIFO per channel).  Returns the number of receive ends; *sends the
 * number of send begins. */
static guint
check_paragraph_order (GArray *lines, guint *sends)
{
  GHashTable *chans = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_queue_free);
  guint recvs = 0;
  *sends = 0;
  for (guint i = 0; i < lines->len; i++)
    {
      Line *l = &g_array_index (lines, Line, i);
      if (i > 0)
        g_assert_cmpfloat (l->time, >=, g_array_index (lines, Line, i - 1).time);
      if (is_send (l))
        {
          char *key = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, l->proc, l->d[2],
                                       l->d[1]);
          GQueue *q = g_hash_table_lookup (chans, key);
          if (!q)
            g_hash_table_insert (chans, g_strdup (key), q = g_queue_new ());
          g_queue_push_tail (q, l);
          g_free (key);
          (*sends)++;
        }
      else if (is_recv_end (l))
        {
          char *key = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, l->d[2], l->proc,
                                       l->d[1]);
          GQueue *q = g_hash_table_lookup (chans, key);
          g_assert_nonnull (q);
          Line *s = g_queue_pop_head (q);
          g_assert_nonnull (s);                          /* the send came first in the file */
          g_assert_cmpfloat (l->time, >=, s->time);      /* clock condition */
          g_free (key);
          recvs++;
        }
    }
  g_hash_table_unref (chans);
  return recvs;
}

static char *
read_file (const char *path)
{
  char *text = NULL;
  GError *error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* ---- picl -> ParaGraph round trip ------------------------------------------------------ */

static void
picl_options (ViperPiclGenOptions *o, guint64 seed)
{
  viper_picl_gen_options_init (o);
  o->seed = seed;
  o->procs = 2 + (guint) (seed % 7);
  o->messages = 20 + (guint) (seed * 7 % 50);
  o->tags = 1 + (guint) (seed % 3);
  o->p_note = 0.1;
  o->barriers = (guint) (seed % 3);
  /* clocks that lie: up to 2 ms offsets against 20 us latencies */
  o->offset = 2e-3;
  o->drift = 5e-4;
  o->delivery = VIPER_PICL_DELIVERY_SHUFFLED;
}

static void
roundtrip (guint64 seed, guint64 limit, guint64 window)
{
  ViperPiclGenOptions o;
  picl_options (&o, seed);
  GError *error = NULL;
  ViperPiclGenTrace *gen = viper_picl_gen (&o, &error);
  g_assert_no_error (error);
  GString *text = g_string_new (NULL);
  viper_picl_gen_write (gen, text);
  char *name = g_strdup_printf ("gen-%" G_GUINT64_FORMAT ".trc", seed);
  char *trace = write_tmp (name, text->str);
  char *pg = g_strconcat (trace, ".pg", NULL);

  const char *formats[] = { "paragraph", NULL };
  const char *paths[] = { pg, NULL };
  ViperExportStats st;
  export_trace ("picl", NULL, trace, formats, paths, limit, window, &st);
  if (limit)
    g_assert_cmpuint (st.peak_buffered, <=, limit);
  if (!limit && window == G_MAXUINT64)
    g_assert_cmpuint (st.clamped, ==, 0);   /* every time written is the adjusted time */

  char *out = read_file (pg);
  GArray *in_lines = read_lines (text->str), *ex_lines = read_lines (out);
  g_assert_cmpuint (ex_lines->len, ==, in_lines->len);
  g_assert_cmpuint (st.records, ==, in_lines->len);
  g_assert_cmpuint (st.buffered, ==, 0);

  /* same lines per processor, in the same order; the global definitions
   * (PROC -1) come before their first use, so their order is their uses' */
  GHashTable *a = per_proc (in_lines), *b = per_proc (ex_lines);
  g_assert_cmpuint (g_hash_table_size (a), ==, g_hash_table_size (b));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, a);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      GPtrArray *x = v, *y = g_hash_table_lookup (b, k);
      g_assert_nonnull (y);
      g_assert_cmpuint (x->len, ==, y->len);
      if (*(gint64 *) k == -1)
        {
          g_ptr_array_sort (x, (GCompareFunc) str_ptr_cmp);
          g_ptr_array_sort (y, (GCompareFunc) str_ptr_cmp);
        }
      for (guint i = 0; i < x->len; i++)
        g_assert_cmpstr (x->pdata[i], ==, y->pdata[i]);
    }

  /* time order, causal order, clock condition; every message received */
  guint sends = 0;
  guint recvs = check_paragraph_order (ex_lines, &sends);
  g_assert_cmpuint (recvs, ==, gen->messages->len);
  g_assert_cmpuint (sends, ==, gen->messages->len);

  /* the export replays as a consistent picl run that needs no correction */
  Replay r;
  replay_open (&r, "picl", NULL, pg);
  replay_run (&r);
  g_assert_cmpuint (replay_pending (&r), ==, 0);
  g_assert_cmpuint (r.transferred, ==, in_lines->len);
  g_assert_cmpuint (r.bad, ==, 0);
  g_assert_cmpuint (r.rp.model->inconsistent, ==, 0);
  g_assert_cmpuint (viper_picl_model_messages (r.rp.model), ==, gen->messages->len);
  g_assert_cmpuint (viper_picl_model_unreceived (r.rp.model), ==, 0);
  g_assert_cmpuint (r.corrected, ==, 0);
  replay_close (&r);

  g_hash_table_unref (a);
  g_hash_table_unref (b);
  free_lines (in_lines);
  free_lines (ex_lines);
  g_free (out);
  g_unlink (pg);
  g_unlink (trace);
  g_free (pg);
  g_free (trace);
  g_free (name);
  g_string_free (text, TRUE);
  viper_picl_gen_free (gen);
}

static void
test_picl_paragraph_roundtrip (void)
{
  for (guint64 seed = 1; seed <= 12; seed++)
    roundtrip (seed, 0, G_MAXUINT64);
}

/* A merge capped at a few records still writes a time-ordered, causally
 * consistent file (late records get the last written time). */
static void
test_picl_paragraph_small_buffer (void)
{
  for (guint64 seed = 20; seed <= 25; seed++)
    roundtrip (seed, 1 + seed % 4, G_MAXUINT64);
}

/* Without a reorder window the watermark alone decides: still ordered and
 * causal, and the merge holds fewer records than the trace has. */
static void
test_picl_paragraph_watermark (void)
{
  for (guint64 seed = 30; seed <= 35; seed++)
    roundtrip (seed, 0, 0);
}

/* A subset definition read after more records than the reorder window
 * (70,000 lines of a late processor between the barrier begins that use it
 * and the definition) still comes before its first use; with a merge limit
 * below that distance, the uses are written first and counted. */
static void
subset_late (guint64 limit, guint64 window, guint64 want_undefined)
{
  GString *text = g_string_new ("-3 -901 0 0 0 0\n-3 -901 0 1 0 0\n-3 -402 1 0 0 1 2 1\n-3 -402 1 1 0 1 2 1\n");
  for (guint i = 0; i < 70000; i++)
    g_string_append_printf (text, "-3 -999 %u.%04u 2 0 0\n", 2 + i / 10000, i % 10000);
  g_string_append (text, "-202 -812 10 -1 -1 3 2 1 0 1\n-4 -402 11 0 0 0\n-4 -402 11 1 0 0\n"
                         "-4 -901 12 0 0 0\n-4 -901 12 1 0 0\n");
  char *trace = write_tmp ("latedef.trc", text->str);
  char *pg = g_strconcat (trace, ".pg", NULL);
  const char *formats[] = { "paragraph", NULL };
  const char *paths[] = { pg, NULL };
  ViperExportStats st;
  export_trace ("picl", NULL, trace, formats, paths, limit, window, &st);
  g_assert_cmpuint (st.undefined_use, ==, want_undefined);
  if (limit)
    g_assert_cmpuint (st.peak_buffered, <=, limit);
  char *out = read_file (pg);
  const char *def = strstr (out, "-202 -812"), *use = strstr (out, "-3 -402");
  g_assert_nonnull (def);
  g_assert_nonnull (use);
  if (want_undefined)
    g_assert_true (use < def);
  else
    g_assert_true (def < use);
  GArray *lines = read_lines (out);
  g_assert_cmpuint (lines->len, ==, 70009);
  guint sends = 0;
  check_paragraph_order (lines, &sends);
  free_lines (lines);
  g_free (out);
  g_unlink (pg);
  g_unlink (trace);
  g_free (pg);
  g_free (trace);
  g_string_free (text, TRUE);
}

static void
test_picl_paragraph_subset_late (void)
{
  subset_late (0, G_MAXUINT64, 0);  /* the default window (65,536) and limit (1,048,576) */
  subset_late (0, 0, 0);            /* no reorder window: the watermark alone */
  subset_late (1000, G_MAXUINT64, 2); /* the limit: both barrier begins before the definition, counted */
}

/* ---- Pajé ------------------------------------------------------------------------------ */

/* Run pj_dump on path; returns its standard output, or NULL when not installed. */
static char *
pj_dump (const char *path)
{
  char *prog = g_find_program_in_path ("pj_dump");
  if (!prog)
    return NULL;
  const char *argv_q[] = { prog, "-q", path, NULL };
  int status = 0;
  char *err = NULL;
  GError *error = NULL;
  g_spawn_sync (NULL, (char **) argv_q, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("pj_dump -q %s failed: %s", path, err);
  g_free (err);
  const char *argv[] = { prog, path, NULL };
  char *out = NULL;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_free (prog);
  return out;
}

static guint
count_prefix (const char *text, const char *prefix)
{
  guint n = 0;
  gsize len = strlen (prefix);
  for (const char *p = text; p && *p;)
    {
      if (strncmp (p, prefix, len) == 0)
        n++;
      p = strchr (p, '\n');
      if (p)
        p++;
    }
  return n;
}

/* Pajé needs its records in time order too: check the file itself. */
static void
check_paje_sorted (const char *text)
{
  char **lines = g_strsplit (text, "\n", -1);
  double last = -INFINITY;
  for (char **l = lines; *l; l++)
    {
      if (!**l || **l == '%')
        continue;
      char **f = g_strsplit (*l, " ", 3);
      int id = atoi (f[0]);
      if (id >= 5 && f[1])
        {
          double t = g_ascii_strtod (f[1], NULL);
          g_assert_cmpfloat (t, >=, last);
          last = t;
        }
      g_strfreev (f);
    }
  g_strfreev (lines);
}

static void
test_picl_paje (void)
{
  for (guint64 seed = 1; seed <= 6; seed++)
    {
      ViperPiclGenOptions o;
      picl_options (&o, seed);
      ViperPiclGenTrace *gen = viper_picl_gen (&o, NULL);
      GString *text = g_string_new (NULL);
      viper_picl_gen_write (gen, text);
      char *trace = write_tmp ("paje.trc", text->str);
      char *paje = g_build_filename (tmpdir, "picl.paje", NULL);
      const char *formats[] = { "paje", NULL };
      const char *paths[] = { paje, NULL };
      export_trace ("picl", NULL, trace, formats, paths, seed == 6 ? 2 : 0, seed == 5 ? 0 : G_MAXUINT64, NULL);
      char *file = read_file (paje);
      check_paje_sorted (file);
      char *dump = pj_dump (paje);
      if (dump)
        {
          g_assert_cmpuint (count_prefix (dump, "Link,"), ==, gen->messages->len);
          g_assert_cmpuint (count_prefix (dump, "Container, picl run, processor,"), ==, o.procs);
          g_assert_cmpuint (count_prefix (dump, "State, processor "), >, 0);
        }
      g_free (dump);
      g_free (file);
      g_unlink (paje);
      g_unlink (trace);
      g_free (paje);
      g_free (trace);
      g_string_free (text, TRUE);
      viper_picl_gen_free (gen);
    }
  char *prog = g_find_program_in_path ("pj_dump");
  if (!prog)
    g_test_skip ("pj_dump (Debian package pajeng) is not installed: files checked for order only");
  g_free (prog);
}

/* ---- Chrome ------------------------------------------------------------------------------ */

#ifdef HAVE_JSON_GLIB
typedef struct {
  guint threads, slices, flow_s, flow_f, instants;
  GHashTable *slice_tids;   /* tids that have a slice */
  GHashTable *flows;        /* id -> count of s and f seen */
} ChromeCounts;

static void
chrome_count (const char *path, ChromeCounts *c)
{
  memset (c, 0, sizeof *c);
  c->slice_tids = g_hash_table_new (g_direct_hash, g_direct_equal);
  c->flows = g_hash_table_new (g_direct_hash, g_direct_equal);
  JsonParser *p = json_parser_new ();
  GError *error = NULL;
  json_parser_load_from_file (p, path, &error);
  g_assert_no_error (error);
  JsonObject *root = json_node_get_object (json_parser_get_root (p));
  JsonArray *ev = json_object_get_array_member (root, "traceEvents");
  g_assert_nonnull (ev);
  for (guint i = 0; i < json_array_get_length (ev); i++)
    {
      JsonObject *o = json_array_get_object_element (ev, i);
      const char *ph = json_object_get_string_member (o, "ph");
      if (g_str_equal (ph, "M") && g_str_equal (json_object_get_string_member (o, "name"), "thread_name"))
        c->threads++;
      else if (g_str_equal (ph, "X"))
        {
          c->slices++;
          g_assert_cmpfloat (json_object_get_double_member (o, "dur"), >=, 0);
          g_hash_table_add (c->slice_tids, GINT_TO_POINTER ((int) json_object_get_int_member (o, "tid") + 1));
        }
      else if (g_str_equal (ph, "s") || g_str_equal (ph, "f"))
        {
          gpointer id = GINT_TO_POINTER ((int) json_object_get_int_member (o, "id"));
          int seen = GPOINTER_TO_INT (g_hash_table_lookup (c->flows, id));
          g_hash_table_insert (c->flows, id, GINT_TO_POINTER (seen + (g_str_equal (ph, "s") ? 1 : 16)));
          if (g_str_equal (ph, "s"))
            c->flow_s++;
          else
            c->flow_f++;
        }
      else if (g_str_equal (ph, "i"))
        c->instants++;
    }
  /* every flow id has exactly one start and one finish */
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, c->flows);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_assert_cmpint (GPOINTER_TO_INT (v), ==, 17);
  g_object_unref (p);
}

static void
chrome_counts_clear (ChromeCounts *c)
{
  g_hash_table_unref (c->slice_tids);
  g_hash_table_unref (c->flows);
}
#endif

static void
test_picl_chrome (void)
{
#ifdef HAVE_JSON_GLIB
  for (guint64 seed = 1; seed <= 4; seed++)
    {
      ViperPiclGenOptions o;
      picl_options (&o, seed);
      ViperPiclGenTrace *gen = viper_picl_gen (&o, NULL);
      GString *text = g_string_new (NULL);
      viper_picl_gen_write (gen, text);
      char *trace = write_tmp ("chrome.trc", text->str);
      char *json = g_build_filename (tmpdir, "picl.json", NULL);
      const char *formats[] = { "chrome", NULL };
      const char *paths[] = { json, NULL };
      export_trace ("picl", NULL, trace, formats, paths, 0, G_MAXUINT64, NULL);
      ChromeCounts c;
      chrome_count (json, &c);
      g_assert_cmpuint (c.threads, ==, o.procs);
      g_assert_cmpuint (g_hash_table_size (c.slice_tids), ==, o.procs);
      g_assert_cmpuint (c.flow_s, ==, gen->messages->len);
      g_assert_cmpuint (c.flow_f, ==, gen->messages->len);
      g_assert_cmpuint (c.instants, >=, 2);     /* running, terminated */
      chrome_counts_clear (&c);
      g_unlink (json);
      g_unlink (trace);
      g_free (json);
      g_free (trace);
      g_string_free (text, TRUE);
      viper_picl_gen_free (gen);
    }
#else
  g_test_skip ("json-glib not found at build time");
#endif
}

/* ---- Mona Lisa ------------------------------------------------------------------------------ */

static const char *const ml_programs[] = { "farm", "deadlock", "abnormal", "trackfit", NULL };

typedef struct {
  guint modules;
  guint64 sends;            /* PICL messages the translation implies (docs/exports.md) */
  guint64 received;         /* of which received: all but the inrglb acks */
  guint64 links;            /* requests and replies received: Pajé links, Chrome flows */
} MlCounts;

/* The protocol's counts, from the trace's own trams and the setup's groups. */
static void
ml_expected (const char *name, MlCounts *c)
{
  memset (c, 0, sizeof *c);
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  char *setup_path = g_strdup_printf ("%s/setup/%s.setup", root, name);
  char *trace_path = g_strdup_printf ("%s/traces/%s.trc", root, name);
  GError *error = NULL;
  ViperMonalisaSetup *setup = viper_monalisa_setup_load (setup_path, &error);
  g_assert_no_error (error);
  c->modules = viper_monalisa_setup_n_modules (setup);
  char *text = read_file (trace_path);
  GArray *lines = read_lines (text);
  for (guint i = 0; i < lines->len; i++)
    {
      Line *l = &g_array_index (lines, Line, i);
      gint64 group_size = 1;
      if ((l->rec == 2 && l->ev == 18) || (l->rec == 5 && l->ev == 20))
        {
          gint64 buf[256];
          guint n = viper_monalisa_setup_group_members (setup, l->d[1], buf, G_N_ELEMENTS (buf));
          group_size = n ? n : 1;
        }
      gboolean request = l->rec == 2 && (l->ev == 14 || l->ev == 16 || l->ev == 21);
      gboolean reply = l->rec == 5 && (l->ev == 15 || l->ev == 17 || l->ev == 22 || l->ev == 19);
      gboolean notice = l->rec == 3 && l->ev == 13;
      gboolean got = l->rec == 4 && l->ev >= 14 && l->ev <= 22 && l->ev != 20;
      if (request || reply || notice)
        c->sends++;
      if (l->rec == 2 && l->ev == 18)
        c->sends += (guint64) group_size;               /* a request to every instance */
      if (l->rec == 5 && l->ev == 20)
        c->sends += (guint64) group_size - 1;           /* acks to the instances that did not reply */
      if (got || notice)
        c->received++;
      if (got)
        c->links++;
    }
  free_lines (lines);
  g_free (text);
  viper_monalisa_setup_free (setup);
  g_free (setup_path);
  g_free (trace_path);
}

static void
ml_export (const char *name, const char *format, const char *out, guint64 window, ViperExportStats *st)
{
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  char *setup_path = g_strdup_printf ("%s/setup/%s.setup", root, name);
  char *trace_path = g_strdup_printf ("%s/traces/%s.trc", root, name);
  const char *formats[] = { format, NULL };
  const char *paths[] = { out, NULL };
  export_trace ("monalisa", setup_path, trace_path, formats, paths, 0, window, st);
  g_free (setup_path);
  g_free (trace_path);
}

/* Thesis 5.4.3: every module two PICL processors, every request and reply a
 * send / receive pair; the result replays as a consistent picl run. */
static void
test_monalisa_paragraph (void)
{
  for (const char *const *prog = ml_programs; *prog; prog++)
    {
      MlCounts want;
      ml_expected (*prog, &want);
      char *pg = g_strdup_printf ("%s/%s.pg", tmpdir, *prog);
      /* the modules are known from the setup: the watermark alone places every
       * record exactly, holding fewer records than the file has */
      ViperExportStats st;
      ml_export (*prog, "paragraph", pg, 0, &st);
      g_assert_cmpuint (st.clamped, ==, 0);
      char *out = read_file (pg);
      GArray *lines = read_lines (out);
      guint sends = 0;
      guint recvs = check_paragraph_order (lines, &sends);
      g_assert_cmpuint (sends, ==, want.sends);
      g_assert_cmpuint (recvs, ==, want.received);
      g_assert_cmpuint (st.peak_buffered, <, lines->len);

      Replay r;
      replay_open (&r, "picl", NULL, pg);
      replay_run (&r);
      g_assert_cmpuint (replay_pending (&r), ==, 0);
      g_assert_cmpuint (r.bad, ==, 0);
      g_assert_cmpuint (r.rp.model->inconsistent, ==, 0);
      g_assert_cmpuint (r.corrected, ==, 0);
      GArray *procs = viper_run_procs (r.rp.run);
      g_assert_cmpuint (procs->len, ==, 2 * want.modules);
      for (guint i = 0; i < procs->len; i++)
        g_assert_cmpint (g_array_index (procs, gint64, i), ==, (gint64) i);
      g_array_unref (procs);
      g_assert_cmpuint (viper_picl_model_messages (r.rp.model), ==, want.received);
      g_assert_cmpuint (viper_picl_model_unreceived (r.rp.model), ==, want.sends - want.received);
      replay_close (&r);

      free_lines (lines);
      g_free (out);
      g_unlink (pg);
      g_free (pg);
    }
}

static void
test_monalisa_paje (void)
{
  char *prog = g_find_program_in_path ("pj_dump");
  for (const char *const *p = ml_programs; *p; p++)
    {
      MlCounts want;
      ml_expected (*p, &want);
      char *paje = g_strdup_printf ("%s/%s.paje", tmpdir, *p);
      ml_export (*p, "paje", paje, G_MAXUINT64, NULL);
      char *file = read_file (paje);
      check_paje_sorted (file);
      char *dump = pj_dump (paje);
      if (dump)
        {
          g_assert_cmpuint (count_prefix (dump, "Link,"), ==, want.links);
          g_assert_cmpuint (count_prefix (dump, "Container, Mona Lisa run, module,"), ==, want.modules);
          g_assert_cmpuint (count_prefix (dump, "Event, Mona Lisa run, Program event,"), >=, 2);
        }
      g_free (dump);
      g_free (file);
      g_unlink (paje);
      g_free (paje);
    }
  if (!prog)
    g_test_skip ("pj_dump (Debian package pajeng) is not installed: files checked for order only");
  g_free (prog);
}

static void
test_monalisa_chrome (void)
{
#ifdef HAVE_JSON_GLIB
  for (const char *const *p = ml_programs; *p; p++)
    {
      MlCounts want;
      ml_expected (*p, &want);
      char *json = g_strdup_printf ("%s/%s.json", tmpdir, *p);
      ml_export (*p, "chrome", json, G_MAXUINT64, NULL);
      ChromeCounts c;
      chrome_count (json, &c);
      g_assert_cmpuint (c.threads, ==, want.modules);
      g_assert_cmpuint (g_hash_table_size (c.slice_tids), ==, want.modules);
      g_assert_cmpuint (c.flow_s, ==, want.links);
      g_assert_cmpuint (c.flow_f, ==, want.links);
      chrome_counts_clear (&c);
      g_unlink (json);
      g_free (json);
    }
#else
  g_test_skip ("json-glib not found at build time");
#endif
}

/* ---- formats a paradigm does not have ------------------------------------------------------ */

static void
timeline_nothing (ViperExporter *e, const ViperTram *t, const ViperModel *m)
{
  (void) e, (void) t, (void) m;
}

static void
test_unsupported (void)
{
  static const char *const states[] = { "on" };
  static const ViperTimelineInfo info = { "x run", "device", states, NULL, 1, 1e3, FALSE };
  static const ViperExportTable table = {
    .timeline = timeline_nothing, .timeline_info = &info,
    .no_paragraph_reason = "ParaGraph knows message passing only",
  };
  ViperParadigm fake = { .name = "macrame", .export = &table };
  GError *error = NULL;
  g_assert_false (viper_export_supported (&fake, "paragraph", &error));
  g_assert_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNSUPPORTED);
  g_assert_cmpstr (error->message, ==,
                   "macrame runs have no ParaGraph form: ParaGraph knows message passing only; use paje or chrome");
  g_clear_error (&error);
  g_assert_true (viper_export_supported (&fake, "paje", &error));
  g_assert_true (viper_export_supported (&fake, "chrome", &error));
  g_assert_false (viper_export_supported (&fake, "vampir", &error));
  g_assert_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNKNOWN);
  g_clear_error (&error);
  ViperParadigm none = { .name = "bare" };
  g_assert_false (viper_export_supported (&none, "chrome", &error));
  g_assert_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  char *f = NULL, *file = NULL;
  g_assert_true (viper_export_parse_spec ("paje:a:b.paje", &f, &file, &error));
  g_assert_cmpstr (f, ==, "paje");
  g_assert_cmpstr (file, ==, "a:b.paje");
  g_free (f);
  g_free (file);
  g_assert_false (viper_export_parse_spec ("paje", &f, &file, &error));
  g_assert_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_SPEC);
  g_clear_error (&error);
  g_assert_false (viper_export_parse_spec ("otf2:x", &f, &file, &error));
  g_assert_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNKNOWN);
  g_clear_error (&error);
}

/* ---- the command line -------------------------------------------------------------------- */

static int
run_cli (const char *const *args, char **err_out)
{
  const char *root = g_getenv ("VIPER_BUILD_ROOT");
  g_assert_nonnull (root);
  char *exe = g_build_filename (root, "cli", "viper-replay", NULL);
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, exe);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  int status = 0;
  GError *error = NULL;
  char *err = NULL;
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status,
                &error);
  g_assert_no_error (error);
  g_ptr_array_unref (argv);
  g_free (exe);
  if (err_out)
    *err_out = err;
  else
    g_free (err);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
test_cli (void)
{
  ViperPiclGenOptions o;
  picl_options (&o, 3);
  ViperPiclGenTrace *gen = viper_picl_gen (&o, NULL);
  GString *text = g_string_new (NULL);
  viper_picl_gen_write (gen, text);
  char *trace = write_tmp ("cli.trc", text->str);
  char *pg = g_build_filename (tmpdir, "cli.pg", NULL);
  char *json = g_build_filename (tmpdir, "cli.json", NULL);
  char *a1 = g_strconcat ("--export=paragraph:", pg, NULL);
  char *a2 = g_strconcat ("--export=chrome:", json, NULL);
  const char *ok_args[] = { a1, a2, trace, NULL };
  g_assert_cmpint (run_cli (ok_args, NULL), ==, 0);
  g_assert_true (g_file_test (json, G_FILE_TEST_EXISTS));
  char *out = read_file (pg);
  GArray *lines = read_lines (out);
  guint sends = 0;
  g_assert_cmpuint (check_paragraph_order (lines, &sends), ==, gen->messages->len);
  free_lines (lines);
  g_free (out);
  const char *again[] = { "--strict", pg, NULL };
  g_assert_cmpint (run_cli (again, NULL), ==, 0);

  char *err = NULL;
  const char *bad_format[] = { "--export=otf2:x.otf", trace, NULL };
  g_assert_cmpint (run_cli (bad_format, &err), ==, 2);
  g_assert_nonnull (strstr (err, "unknown format 'otf2'"));
  g_free (err);
  const char *bad_spec[] = { "--export=paragraph", trace, NULL };
  g_assert_cmpint (run_cli (bad_spec, &err), ==, 2);
  g_free (err);
  char *missing = g_build_filename (tmpdir, "no", "such", "dir.pg", NULL);
  char *a3 = g_strconcat ("--export=paragraph:", missing, NULL);
  const char *bad_file[] = { a3, trace, NULL };
  g_assert_cmpint (run_cli (bad_file, &err), ==, 1);
  g_free (err);

  g_free (a3);
  g_free (missing);
  g_free (a1);
  g_free (a2);
  g_unlink (pg);
  g_unlink (json);
  g_unlink (trace);
  g_free (pg);
  g_free (json);
  g_free (trace);
  g_string_free (text, TRUE);
  viper_picl_gen_free (gen);
}

/* ---- Macrame ------------------------------------------------------------------------------ */

/* A simulated 2x2 mesh testbed: Pajé and Chrome carry every state tram as an
 * instant on its device's track; ParaGraph is refused with the reason. */
static void
test_macrame (void)
{
  const char *root = g_getenv ("VIPER_BUILD_ROOT");
  char *sim = g_build_filename (root, "paradigms", "macrame", "viper-macrame-sim", NULL);
  char *trace = g_build_filename (tmpdir, "mac.trc", NULL);
  const char *argv[] = { sim, "-m", "2", "-n", "300", "-s", "4", "--ordered", "-o", trace, NULL };
  int status = 0;
  GError *error = NULL;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  /* the devices and the state trams, from the trace itself */
  char *text = read_file (trace);
  GArray *lines = read_lines (text);
  GHashTable *devices = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  guint state_trams = 0;
  for (guint i = 0; i < lines->len; i++)
    {
      Line *l = &g_array_index (lines, Line, i);
      if (l->rec == 2 && l->ev >= 30 && l->ev <= 33 && l->proc >= 0)
        {
          state_trams++;
          g_hash_table_add (devices, g_memdup2 (&l->proc, sizeof l->proc));
        }
    }

  char *paje = g_build_filename (tmpdir, "mac.paje", NULL);
  char *json = g_build_filename (tmpdir, "mac.json", NULL);
  const char *formats[] = { "paje", "chrome", NULL };
  const char *paths[] = { paje, json, NULL };
  export_trace ("macrame", NULL, trace, formats, paths, 0, G_MAXUINT64, NULL);
  char *file = read_file (paje);
  check_paje_sorted (file);
  char *dump = pj_dump (paje);
  if (dump)
    {
      g_assert_cmpuint (count_prefix (dump, "Container, Macrame run, device,"), ==, g_hash_table_size (devices));
      g_assert_cmpuint (count_prefix (dump, "Event, device "), ==, state_trams);
    }
#ifdef HAVE_JSON_GLIB
  ChromeCounts c;
  chrome_count (json, &c);
  g_assert_cmpuint (c.threads, ==, g_hash_table_size (devices));
  g_assert_cmpuint (c.flow_s, ==, 0);
  g_assert_cmpuint (c.instants, >=, state_trams);
  chrome_counts_clear (&c);
#endif

  char *err = NULL;
  char *a1 = g_strconcat ("--export=paragraph:", paje, NULL);
  const char *cli[] = { "-p", "macrame", a1, trace, NULL };
  g_assert_cmpint (run_cli (cli, &err), ==, 2);
  g_assert_nonnull (strstr (err, "macrame runs have no ParaGraph form: ParaGraph knows message passing only; "
                                 "use paje or chrome"));
  g_free (err);
  g_free (a1);

  g_free (dump);
  g_free (file);
  g_hash_table_unref (devices);
  free_lines (lines);
  g_free (text);
  g_unlink (paje);
  g_unlink (json);
  g_unlink (trace);
  g_free (paje);
  g_free (json);
  g_free (trace);
  g_free (sim);
}

/* The GUI's whole-run export (viper_export_files, run in a worker thread)
 * writes exactly what viper-replay --export writes for the same files. */
static gpointer
export_files_thread (gpointer data)
{
  const char *const *args = data;
  const char *traces[] = { args[2], NULL };
  guint64 trams = 0;
  GError *error = NULL;
  gboolean ok = viper_export_files ("monalisa", args[1], traces, 0.5, args[3], args[4], &trams, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  return GSIZE_TO_POINTER ((gsize) trams);
}

static void
test_export_files (void)
{
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  char *setup = g_build_filename (root, "setup", "farm.setup", NULL);
  char *trace = g_build_filename (root, "traces", "farm.trc", NULL);
  const char *formats[] = { "paragraph", "paje", "chrome" };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      char *mine = g_build_filename (tmpdir, "files.out", NULL);
      char *cli_out = g_build_filename (tmpdir, "cli.out", NULL);
      const char *args[] = { "monalisa", setup, trace, formats[i], mine };
      GThread *th = g_thread_new ("export", export_files_thread, (gpointer) args);
      guint64 trams = GPOINTER_TO_SIZE (g_thread_join (th));
      g_assert_cmpuint (trams, >, 300);
      char *spec = g_strdup_printf ("--export=%s:%s", formats[i], cli_out);
      char *setup_arg = g_strconcat ("--setup=", setup, NULL);
      const char *cli[] = { "-p", "monalisa", setup_arg, spec, trace, NULL };
      char *err = NULL;
      g_assert_cmpint (run_cli (cli, &err), ==, 0);
      g_free (err);
      char *a = read_file (mine), *b = read_file (cli_out);
      g_assert_cmpstr (a, ==, b);
      g_free (a);
      g_free (b);
      g_free (spec);
      g_free (setup_arg);
      g_unlink (mine);
      g_unlink (cli_out);
      g_free (mine);
      g_free (cli_out);
    }
  /* errors come back, nothing is left half-done */
  const char *none[] = { "/nonexistent/x.trc", NULL };
  GError *error = NULL;
  g_assert_false (viper_export_files ("monalisa", setup, none, 0.5, "paje", "/dev/null", NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  const char *farm[] = { trace, NULL };
  g_assert_false (viper_export_files ("nosuch", NULL, farm, 0.5, "paje", "/dev/null", NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_free (setup);
  g_free (trace);
}

/* Shifted and converted times keep 15 significant digits of their operands:
 * the operation's noise goes (docs/exports.md), real digits stay, and the
 * order of two times never changes. */
static void
test_format_noisy (void)
{
  char buf[32];
  static const struct {
    double v, scale;
    const char *want;
  } cases[] = {
    { 0.03 - 0.02997, 0.03, "0.00003" },
    { 0.00110521 * 1e6, 0.00110521 * 1e6, "1105.21" },
    { 1157.058 - 1105.21, 1157.058, "51.848" },
    { 0.0179574928125, 0.0179574928125, "0.0179574928125" },
    { -2.5e-3, 2.5e-3, "-0.0025" },
    { 1e-20, 1.0, "0" },
    { 0.0, 5.0, "0" },
    { 123456789012345678.0, 1.0, "1.23456789012346e+17" },
    /* epoch times in microseconds (Chrome): to the microsecond, not to tens */
    { 1700000000.000001 * 1e6, 1700000000.000001 * 1e6, "1700000000000001" },
    { 1700000000.000003 * 1e6 - 1700000000.000001 * 1e6, 1700000000.000003 * 1e6, "2" },
    { 100000000000000.0, 100000000000000.0, "100000000000000" },
    { 9999999999999990.0, 1.0, "9999999999999990" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpstr (viper_exp_format_noisy (cases[i].v, cases[i].scale, buf), ==, cases[i].want);
  /* the printf-free path writes what %.Nf wrote: decimals, ulp neighbours,
   * halves, at every scale */
  GRand *q = g_rand_new_with_seed (1128);
  for (guint i = 0; i < 300000; i++)
    {
      double scale = pow (10, g_rand_int_range (q, -8, 17)) * g_rand_double_range (q, 1, 10);
      double v;
      if (i % 3 == 0)
        v = g_rand_double_range (q, -scale, scale);
      else
        {
          int d = 14 - (int) floor (log10 (scale));
          double unit = pow (10, -MIN (MAX (d, 0), 15));
          v = (floor (g_rand_double_range (q, -scale, scale) / unit) + (i % 3 == 1 ? 0.5 : 0.0)) * unit;
          if (i % 6 == 2)
            v = nextafter (v, g_rand_boolean (q) ? INFINITY : -INFINITY);
        }
      char got[32], want[32];
      viper_exp_format_noisy (v, scale, got);
      /* the reference: the same rule through printf */
      double m = MAX (fabs (v), fabs (scale));
      int decimals = 14 - (int) floor (log10 (m));
      if (v == 0.0 || m < 1e-14)
        continue;
      if (decimals <= 0 && m >= 1e16)
        g_ascii_formatd (want, 32, "%.15g", v);
      else
        {
          char fmt[16];
          g_snprintf (fmt, sizeof fmt, "%%.%df", MIN (MAX (decimals, 0), 28));
          g_ascii_formatd (want, 32, fmt, v);
          char *end = want + strlen (want);
          while (decimals > 0 && end > want && end[-1] == '0')
            *--end = '\0';
          if (decimals > 0 && end > want && end[-1] == '.')
            *--end = '\0';
          if (strcmp (want, "-0") == 0 || want[0] == '\0')
            strcpy (want, "0");
        }
      if (strcmp (got, want) != 0)
        g_error ("%.17g at scale %.17g: wrote %s, printf %s", v, scale, got, want);
    }
  g_rand_free (q);
  /* never reorders: times at one scale, shifted, stay in order once printed */
  GRand *r = g_rand_new_with_seed (77);
  for (guint i = 0; i < 100000; i++)
    {
      double scale = pow (10, g_rand_double_range (r, -9, 9));
      double a = g_rand_double_range (r, 0, scale), b = g_rand_double_range (r, 0, scale), shift = -scale / 3;
      if (a > b)
        {
          double t = a;
          a = b;
          b = t;
        }
      char sa[32], sb[32];
      viper_exp_format_noisy (a + shift, MAX (a, -shift), sa);
      viper_exp_format_noisy (b + shift, MAX (b, -shift), sb);
      if (g_ascii_strtod (sa, NULL) > g_ascii_strtod (sb, NULL))
        g_error ("%.17g < %.17g printed as %s > %s", a + shift, b + shift, sa, sb);
      /* and what is printed is the value to about 15 digits of the scale */
      if (fabs (g_ascii_strtod (sa, NULL) - (a + shift)) > 1e-14 * scale)
        g_error ("%.17g printed as %s", a + shift, sa);
    }
  g_rand_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  GError *error = NULL;
  tmpdir = g_dir_make_tmp ("viper-export-XXXXXX", &error);
  g_assert_no_error (error);
  g_test_add_func ("/export/picl/paragraph-roundtrip", test_picl_paragraph_roundtrip);
  g_test_add_func ("/export/picl/paragraph-small-buffer", test_picl_paragraph_small_buffer);
  g_test_add_func ("/export/picl/paragraph-watermark", test_picl_paragraph_watermark);
  g_test_add_func ("/export/picl/paragraph-subset-late", test_picl_paragraph_subset_late);
  g_test_add_func ("/export/picl/paje", test_picl_paje);
  g_test_add_func ("/export/picl/chrome", test_picl_chrome);
  g_test_add_func ("/export/monalisa/paragraph", test_monalisa_paragraph);
  g_test_add_func ("/export/monalisa/paje", test_monalisa_paje);
  g_test_add_func ("/export/monalisa/chrome", test_monalisa_chrome);
  g_test_add_func ("/export/macrame", test_macrame);
  g_test_add_func ("/export/unsupported", test_unsupported);
  g_test_add_func ("/export/cli", test_cli);
  g_test_add_func ("/export/files", test_export_files);
  g_test_add_func ("/export/format-noisy", test_format_noisy);
  int rc = g_test_run ();
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return rc;
}
