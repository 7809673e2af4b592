/* test-monalisa-replay.c - whole traces against the simulator's truth.
 *
 * Each trace goes through the same pipeline as viper-replay (parse, run
 * construction with a transfer after every insert, the monalisa model, the
 * --state-out writer) and the state document is compared with the
 * simulator's record of the true final state: program_state, reported,
 * deadlock_cycle and every module's state, primitive and variables.
 *  - /monalisa/replay/bundled: traces/{farm,deadlock,abnormal,trackfit}.trc
 *  - /monalisa/replay/simulated: viper-monalisa-sim over many seeds and every
 *    delivery order (VIPER_ML_SEEDS seeds, default 1000); skipped only when
 *    the simulator binary has not been built. */
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "ml-harness.h"

static JsonNode *
parse_json (const char *text, const char *what)
{
  JsonParser *p = json_parser_new ();
  GError *error = NULL;
  if (!json_parser_load_from_data (p, text, -1, &error))
    g_error ("%s: %s", what, error->message);
  JsonNode *n = json_node_copy (json_parser_get_root (p));
  g_object_unref (p);
  return n;
}

static JsonNode *
load_json (const char *path)
{
  char *text = NULL;
  GError *error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  JsonNode *n = parse_json (text, path);
  g_free (text);
  return n;
}

static char *
show (JsonNode *n)
{
  return n ? json_to_string (n, FALSE) : g_strdup ("(absent)");
}

/* NULL when equal, else what differs. */
static char *
field_diff (JsonObject *got, JsonObject *want, const char *key, const char *where)
{
  JsonNode *g = json_object_get_member (got, key);
  JsonNode *w = json_object_get_member (want, key);
  if (g && w && json_node_equal (g, w))
    return NULL;
  char *gs = show (g), *ws = show (w);
  char *msg = g_strdup_printf ("%s%s: replay %s, truth %s", where, key, gs, ws);
  g_free (gs);
  g_free (ws);
  return msg;
}

/* Compare a --state-out document with a truth document; NULL when they agree. */
static char *
compare (JsonNode *state, JsonNode *truth)
{
  JsonObject *s = json_node_get_object (state), *t = json_node_get_object (truth);
  static const char *top[] = { "program_state", "reported", "deadlock_cycle" };
  for (guint i = 0; i < G_N_ELEMENTS (top); i++)
    {
      char *d = field_diff (s, t, top[i], "");
      if (d)
        return d;
    }
  JsonArray *sm = json_object_get_array_member (s, "modules");
  JsonArray *tm = json_object_get_array_member (t, "modules");
  if (json_array_get_length (sm) != json_array_get_length (tm))
    return g_strdup_printf ("%u modules, truth has %u", json_array_get_length (sm), json_array_get_length (tm));
  static const char *fields[] = { "id", "name", "state", "started", "finished", "primitive", "variables" };
  for (guint i = 0; i < json_array_get_length (tm); i++)
    for (guint k = 0; k < G_N_ELEMENTS (fields); k++)
      {
        char *where = g_strdup_printf ("module %u ", i);
        char *d = field_diff (json_array_get_object_element (sm, i), json_array_get_object_element (tm, i),
                              fields[k], where);
        g_free (where);
        if (d)
          return d;
      }
  return NULL;
}

/* Replay trace with setup; return the state document and the counts. */
static JsonNode *
replay (const char *trace, const char *setup_path, ViperCounts *counts)
{
  char *setup_text = NULL;
  GError *error = NULL;
  g_file_get_contents (setup_path, &setup_text, NULL, &error);
  g_assert_no_error (error);
  MlHarness h;
  ml_harness_init (&h, setup_text);
  g_free (setup_text);
  ml_feed_file (&h, trace);
  viper_run_counts (h.run, counts);
  counts->inconsistent = h.model->inconsistent;
  char *json = viper_state_to_json (h.run, h.model, TRUE);
  JsonNode *n = parse_json (json, trace);
  g_free (json);
  ml_harness_clear (&h);
  return n;
}

static void
test_bundled (void)
{
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  if (!root)
    {
      g_test_skip ("VIPER_SOURCE_ROOT is not set");
      return;
    }
  static const char *names[] = { "farm", "deadlock", "abnormal", "trackfit" };
  guint done = 0;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      char *base = g_strdup_printf ("%s.trc", names[i]);
      char *trace = g_build_filename (root, "traces", base, NULL);
      g_free (base);
      base = g_strdup_printf ("%s.setup", names[i]);
      char *setup = g_build_filename (root, "setup", base, NULL);
      g_free (base);
      base = g_strdup_printf ("%s.truth.json", names[i]);
      char *truth_path = g_build_filename (root, "traces", base, NULL);
      g_free (base);
      if (g_file_test (trace, G_FILE_TEST_EXISTS))
        {
          ViperCounts c;
          JsonNode *state = replay (trace, setup, &c);
          JsonNode *truth = load_json (truth_path);
          g_assert_cmpuint (c.read, >, 0);
          g_assert_cmpuint (c.read, ==, c.transferred);
          g_assert_cmpuint (c.pending, ==, 0);
          g_assert_cmpuint (c.rejected, ==, 0);
          char *d = compare (state, truth);
          if (d)
            g_error ("%s: %s", names[i], d);
          json_node_unref (state);
          json_node_unref (truth);
          done++;
        }
      g_free (trace);
      g_free (setup);
      g_free (truth_path);
    }
  g_assert_cmpuint (done, ==, G_N_ELEMENTS (names));
}


/* The trace's lines in another delivery order: "pmfirst" (the program
 * manager's lines first, the rest as they were), "bymodule" (one block per
 * module, 0, 1, ..., then PROC -1: the per-module file split read one file
 * after the other), "pmbymodule" (the same with PROC -1's block first),
 * "bytime" (sorted by the raw TIME, stable). */
static gint
by_time (gconstpointer a, gconstpointer b)
{
  double x = g_ascii_strtod (strchr (*(char *const *) a, ' ') + 1 + strcspn (strchr (*(char *const *) a, ' ') + 1, " "), NULL);
  double y = g_ascii_strtod (strchr (*(char *const *) b, ' ') + 1 + strcspn (strchr (*(char *const *) b, ' ') + 1, " "), NULL);
  return x < y ? -1 : x > y;
}

static gint64
line_proc (const char *l)
{
  char **f = g_strsplit_set (l, " \t", 0);
  gint64 p = g_strv_length (f) > 3 ? g_ascii_strtoll (f[3], NULL, 10) : G_MININT64;
  g_strfreev (f);
  return p;
}

static char *
reorder (const char *path, const char *how, const char *dir)
{
  char *text = NULL;
  GError *error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  char **lines = g_strsplit (text, "\n", -1);
  GPtrArray *in = g_ptr_array_new ();
  for (char **l = lines; *l; l++)
    if (**l && **l != '#')
      g_ptr_array_add (in, *l);
  GPtrArray *out = g_ptr_array_new ();
  if (g_str_equal (how, "bytime"))
    {
      for (guint i = 0; i < in->len; i++)
        g_ptr_array_add (out, in->pdata[i]);
      g_ptr_array_sort (out, by_time);     /* stable */
    }
  else
    {
      gboolean pm_first = g_str_equal (how, "pmfirst") || g_str_equal (how, "pmbymodule");
      gboolean blocks = g_str_equal (how, "bymodule") || g_str_equal (how, "pmbymodule");
      gint64 maxp = -1;
      for (guint i = 0; i < in->len; i++)
        maxp = MAX (maxp, line_proc (in->pdata[i]));
      if (pm_first)
        for (guint i = 0; i < in->len; i++)
          if (line_proc (in->pdata[i]) == -1)
            g_ptr_array_add (out, in->pdata[i]);
      if (blocks)
        {
          for (gint64 p = 0; p <= maxp; p++)
            for (guint i = 0; i < in->len; i++)
              if (line_proc (in->pdata[i]) == p)
                g_ptr_array_add (out, in->pdata[i]);
        }
      else
        for (guint i = 0; i < in->len; i++)
          if (line_proc (in->pdata[i]) != -1)
            g_ptr_array_add (out, in->pdata[i]);
      if (!pm_first)
        for (guint i = 0; i < in->len; i++)
          if (line_proc (in->pdata[i]) == -1)
            g_ptr_array_add (out, in->pdata[i]);
    }
  g_assert_cmpuint (out->len, ==, in->len);
  GString *o = g_string_new (NULL);
  for (guint i = 0; i < out->len; i++)
    g_string_append_printf (o, "%s\n", (const char *) out->pdata[i]);
  char *name = g_strdup_printf ("%s/%s.trc", dir, how);
  g_file_set_contents (name, o->str, -1, &error);
  g_assert_no_error (error);
  g_string_free (o, TRUE);
  g_ptr_array_unref (in);
  g_ptr_array_unref (out);
  g_strfreev (lines);
  g_free (text);
  return name;
}

static const char *const pm_orders[] = { "pmfirst", "bymodule", "pmbymodule", "bytime" };

/* A program manager's verdict has no dependencies, but its place in the run
 * is after the trams read with it: whatever the order of the lines (its
 * line first, the per-module split of the Farm, the trace sorted by time),
 * the same states, the same counts, and nothing inconsistent. */
static void
test_pm_early (void)
{
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  if (!root)
    {
      g_test_skip ("VIPER_SOURCE_ROOT is not set");
      return;
    }
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("viper-mlpm-XXXXXX", &error);
  g_assert_no_error (error);
  static const char *names[] = { "farm", "deadlock", "abnormal", "trackfit" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      char *base = g_strdup_printf ("%s.trc", names[i]);
      char *trace = g_build_filename (root, "traces", base, NULL);
      g_free (base);
      base = g_strdup_printf ("%s.setup", names[i]);
      char *setup = g_build_filename (root, "setup", base, NULL);
      g_free (base);
      ViperCounts c0;
      JsonNode *s0 = replay (trace, setup, &c0);
      g_assert_cmpuint (c0.inconsistent, ==, 0);
      for (guint k = 0; k < G_N_ELEMENTS (pm_orders); k++)
        {
          char *t = reorder (trace, pm_orders[k], dir);
          ViperCounts c;
          JsonNode *s1 = replay (t, setup, &c);
          if (c.inconsistent || c.pending || c.transferred != c0.transferred)
            g_error ("%s %s: %" G_GUINT64_FORMAT " inconsistent, %" G_GUINT64_FORMAT " pending, %" G_GUINT64_FORMAT
                     " transferred (in file order %" G_GUINT64_FORMAT ")", names[i], pm_orders[k], c.inconsistent,
                     c.pending, c.transferred, c0.transferred);
          char *d = compare (s1, s0);
          if (d)
            g_error ("%s %s: %s", names[i], pm_orders[k], d);
          json_node_unref (s1);
          g_remove (t);
          g_free (t);
        }
      json_node_unref (s0);
      g_free (trace);
      g_free (setup);
    }
  g_rmdir (dir);
  g_free (dir);
}

static gboolean
run_sim (const char *sim, const char *program, guint seed, const char *delivery, const char *dir)
{
  char *a_program = g_strdup_printf ("--program=%s", program);
  char *a_seed = g_strdup_printf ("--seed=%u", seed);
  char *a_delivery = g_strdup_printf ("--delivery=%s", delivery);
  char *a_out = g_strdup_printf ("--out=%s/t.trc", dir);
  char *a_setup = g_strdup_printf ("--setup-out=%s/t.setup", dir);
  char *a_truth = g_strdup_printf ("--truth-out=%s/t.truth.json", dir);
  /* vary the shape and the clocks with the seed */
  char *a_slaves = g_strdup_printf ("--slaves=%u", 1 + seed % 6);
  char *a_latency = g_strdup_printf ("--latency-ms=%g", 0.2 + (seed % 7) * 0.8);
  char *a_offset = g_strdup_printf ("--offset-ms=%u", seed % 5);
  char *argv[] = { (char *) sim, a_program, a_seed, a_delivery, a_out, a_setup, a_truth,
                   a_slaves, a_latency, a_offset, NULL };
  int status = 0;
  char *err = NULL;
  GError *error = NULL;
  gboolean ok = g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!ok || !g_spawn_check_wait_status (status, NULL))
    g_error ("%s %s %s %s failed: %s", sim, a_program, a_seed, a_delivery, err ? err : "");
  g_free (err);
  g_free (a_program);
  g_free (a_seed);
  g_free (a_delivery);
  g_free (a_out);
  g_free (a_setup);
  g_free (a_truth);
  g_free (a_slaves);
  g_free (a_latency);
  g_free (a_offset);
  return ok;
}

static void
test_simulated (void)
{
  const char *build = g_getenv ("VIPER_BUILD_ROOT");
  char *sim = build ? g_build_filename (build, "paradigms", "monalisa", "sim", "viper-monalisa-sim", NULL) : NULL;
  if (!sim || !g_file_test (sim, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("viper-monalisa-sim has not been built");
      g_free (sim);
      return;
    }
  guint seeds = 1000;     /* x 3 delivery orders: 3000 simulated runs */
  const char *env = g_getenv ("VIPER_ML_SEEDS");
  if (env)
    seeds = (guint) g_ascii_strtoull (env, NULL, 10);
  static const char *programs[] = { "farm", "deadlock", "abnormal", "trackfit" };
  static const char *deliveries[] = { "inorder", "shuffled", "interleaved" };
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("viper-ml-XXXXXX", &error);
  g_assert_no_error (error);
  char *trace = g_build_filename (dir, "t.trc", NULL);
  char *setup = g_build_filename (dir, "t.setup", NULL);
  char *truth_path = g_build_filename (dir, "t.truth.json", NULL);
  guint verdicts[5] = { 0 };
  for (guint seed = 1; seed <= seeds; seed++)
    for (guint d = 0; d < G_N_ELEMENTS (deliveries); d++)
      {
        const char *program = programs[seed % G_N_ELEMENTS (programs)];
        run_sim (sim, program, seed, deliveries[d], dir);
        ViperCounts c;
        JsonNode *state = replay (trace, setup, &c);
        JsonNode *truth = load_json (truth_path);
        if (c.read == 0 || c.read != c.transferred || c.pending || c.rejected)
          g_error ("%s seed %u %s: read %" G_GUINT64_FORMAT " transferred %" G_GUINT64_FORMAT " pending %"
                   G_GUINT64_FORMAT " rejected %" G_GUINT64_FORMAT, program, seed, deliveries[d],
                   c.read, c.transferred, c.pending, c.rejected);
        /* in true order the program manager's verdict comes last: nothing contradicts */
        if (d == 0 && c.inconsistent)
          g_error ("%s seed %u inorder: %" G_GUINT64_FORMAT " inconsistent trams", program, seed, c.inconsistent);
        char *diff = compare (state, truth);
        if (diff)
          g_error ("%s seed %u %s: %s", program, seed, deliveries[d], diff);
        if (d == 0)
          {
            /* the true order with the program manager's verdict moved early:
             * its place in the run is still after the modules' trams */
            for (guint k = 0; k < G_N_ELEMENTS (pm_orders); k++)
              {
                char *t = reorder (trace, pm_orders[k], dir);
                ViperCounts c2;
                JsonNode *s2 = replay (t, setup, &c2);
                if (c2.inconsistent || c2.pending || c2.transferred != c.transferred)
                  g_error ("%s seed %u %s: %" G_GUINT64_FORMAT " inconsistent, %" G_GUINT64_FORMAT " pending",
                           program, seed, pm_orders[k], c2.inconsistent, c2.pending);
                char *d2 = compare (s2, truth);
                if (d2)
                  g_error ("%s seed %u %s: %s", program, seed, pm_orders[k], d2);
                json_node_unref (s2);
                g_remove (t);
                g_free (t);
              }
          }
        const char *ps = json_object_get_string_member (json_node_get_object (state), "program_state");
        verdicts[g_str_equal (ps, "terminated") ? 0 : g_str_equal (ps, "deadlock") ? 1
                 : g_str_equal (ps, "abnormal") ? 2 : 3]++;
        json_node_unref (state);
        json_node_unref (truth);
      }
  g_test_message ("%u replays: %u terminated, %u deadlock, %u abnormal, %u other", seeds * 3,
                  verdicts[0], verdicts[1], verdicts[2], verdicts[3]);
  /* the programs reach each ending */
  if (seeds >= 8)
    {
      g_assert_cmpuint (verdicts[0], >, 0);
      g_assert_cmpuint (verdicts[1], >, 0);
      g_assert_cmpuint (verdicts[2], >, 0);
    }
  g_remove (trace);
  g_remove (setup);
  g_remove (truth_path);
  g_rmdir (dir);
  g_free (trace);
  g_free (setup);
  g_free (truth_path);
  g_free (dir);
  g_free (sim);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/monalisa/replay/bundled", test_bundled);
  g_test_add_func ("/monalisa/replay/simulated", test_simulated);
  g_test_add_func ("/monalisa/replay/pm-early", test_pm_early);
  return g_test_run ();
}
