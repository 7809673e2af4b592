/* test-core-misc.c - damage set, JSON writer, model base history, scheduler
 * (go / step / breakpoint / reset / rejected-line accounting) over an
 * in-memory tram source. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "core/damage.h"
#include "core/detect.h"
#include "core/jsonout.h"
#include "core/model.h"
#include "core/scheduler.h"
#include "core/tramparse.h"

/* ---- damage ---------------------------------------------------------------- */

static void
test_damage_coalesces (void)
{
  ViperDamage *d = viper_damage_new ();
  for (guint i = 0; i < 1000; i++)
    viper_damage_add (d, VIPER_AREA_MODULE, 3, 0);
  viper_damage_add (d, VIPER_AREA_VARIABLE, 3, 0);
  viper_damage_add (d, VIPER_AREA_MODULE, 4, 0);
  viper_damage_add (d, VIPER_AREA_MODULE, 3, 0);
  g_assert_cmpuint (viper_damage_size (d), ==, 3);
  g_assert_cmpuint (viper_damage_marks (d), ==, 1003);
  g_assert_true (viper_damage_contains (d, VIPER_AREA_VARIABLE, 3, 0));
  g_assert_false (viper_damage_contains (d, VIPER_AREA_VARIABLE, 3, 1));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (ViperArea));
  viper_damage_take (d, out);
  g_assert_cmpuint (out->len, ==, 3);
  g_assert_cmpint (g_array_index (out, ViperArea, 0).kind, ==, VIPER_AREA_MODULE);
  g_assert_cmpint (g_array_index (out, ViperArea, 0).a, ==, 3);
  g_assert_cmpint (g_array_index (out, ViperArea, 2).a, ==, 4);
  g_assert_true (viper_damage_empty (d));
  viper_damage_add (d, VIPER_AREA_MODULE, 3, 0);
  g_assert_cmpuint (viper_damage_size (d), ==, 1);
  g_array_unref (out);
  viper_damage_free (d);
}

/* ---- JSON ------------------------------------------------------------------ */

static void
test_json_writer (void)
{
  GString *s = g_string_new (NULL);
  ViperJson j;
  viper_json_init (&j, s, FALSE);
  viper_json_begin_object (&j);
  viper_json_key (&j, "name");
  viper_json_string (&j, "a\"b\\c\n\x01");
  viper_json_key (&j, "n");
  viper_json_int (&j, G_MININT64);
  viper_json_key (&j, "x");
  viper_json_double (&j, 0.1);
  viper_json_key (&j, "inf");
  viper_json_double (&j, INFINITY);
  viper_json_key (&j, "list");
  viper_json_begin_array (&j);
  viper_json_int (&j, 1);
  viper_json_bool (&j, TRUE);
  viper_json_null (&j);
  viper_json_begin_object (&j);
  viper_json_end_object (&j);
  viper_json_end_array (&j);
  viper_json_key (&j, "empty");
  viper_json_begin_array (&j);
  viper_json_end_array (&j);
  viper_json_end_object (&j);
  g_assert_cmpstr (s->str, ==,
                   "{\"name\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":-9223372036854775808,\"x\":0.1,\"inf\":null,"
                   "\"list\":[1,true,null,{}],\"empty\":[]}");
  g_string_free (s, TRUE);
}

/* ---- a tiny paradigm and model for the scheduler ------------------------- */

static const ViperTramType types[] = {
  { 1, 1, "SET", VIPER_ROLE_FREE, 0, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 2 },     /* SEQ VALUE */
  { 1, 2, "NOP", VIPER_ROLE_FREE, 0, 0, VIPER_NO_FIELD, VIPER_NO_FIELD, 1 },
};

static const ViperParadigm toy = {
  .name = "toy", .explicit_seq = TRUE, .types = types, .n_types = G_N_ELEMENTS (types),
};

typedef struct {
  ViperModel base;
  gint64 value[4];
} ToyModel;

static gboolean
toy_apply (ViperModel *m, const ViperTram *t)
{
  ToyModel *tm = (ToyModel *) m;
  if (t->ev != 1 || t->proc < 0 || t->proc > 3)
    return FALSE;
  tm->value[t->proc] = viper_tram_datum (t, 1, 0);
  viper_damage_add (m->damage, VIPER_AREA_MODULE, t->proc, 0);
  ViperHistoryEntry e = { t->adjusted, t->adjusted, (gint32) t->proc, -1, (gint32) tm->value[t->proc], 0 };
  viper_model_history_add (m, &e);
  return TRUE;
}

static void
toy_reset (ViperModel *m)
{
  memset (((ToyModel *) m)->value, 0, sizeof ((ToyModel *) m)->value);
}

static const ViperModelClass toy_class = { .apply = toy_apply, .reset = toy_reset };

/* ---- an in-memory source: lines given up front, "bad" lines rejected ---- */

typedef struct {
  ViperTramSource base;
  ViperTramFields *fields;
  const char *const *lines;
  guint n, next;
  gboolean rewound;
} MemSource;

static gboolean
mem_pending (ViperTramSource *s)
{
  MemSource *m = (MemSource *) s;
  return m->next < m->n;
}

static ViperTram *
mem_get (ViperTramSource *s)
{
  MemSource *m = (MemSource *) s;
  while (m->next < m->n)
    {
      const char *line = m->lines[m->next++];
      ViperLineKind kind;
      ViperParseError err;
      ViperTram *t = viper_tram_parse (s->pool, m->fields, line, strlen (line), &kind, &err);
      if (kind == VIPER_LINE_COMMENT)
        continue;
      s->lines_read++;
      if (!t)
        {
          s->lines_bad++;
          viper_diag_bad (s->diag, "mem", m->next, err.column, "%s", err.reason);
          continue;
        }
      t->line = m->next;
      return t;
    }
  return NULL;
}

static gboolean
mem_reset (ViperTramSource *s, GError **error)
{
  (void) error;
  MemSource *m = (MemSource *) s;
  m->next = 0;
  m->rewound = TRUE;
  s->lines_read = 0;
  s->lines_bad = 0;
  return TRUE;
}

static gboolean
mem_at_end (ViperTramSource *s)
{
  MemSource *m = (MemSource *) s;
  return m->next >= m->n;
}

static void
mem_destroy (ViperTramSource *s)
{
  viper_tram_fields_free (((MemSource *) s)->fields);   /* the struct itself is freed by the core */
}

static const ViperTramSourceClass mem_class = {
  .kind = "mem", .pending = mem_pending, .get = mem_get, .reset = mem_reset,
  .at_end = mem_at_end, .destroy = mem_destroy,
};

static const char *const toy_lines[] = {
  "1 1 10 0 0 2 2 1 5",
  "1 1 20 1 0 2 2 1 6",
  "# a comment",
  "1 2 25 0 0 1 2 2",
  "1 1 x 0 0 2 2 3 7",          /* bad TIME: rejected */
  "1 1 30 0 0 2 2 3 8",
  "1 1 40 1 0 2 2 2 9",
  "1 1 50 0 0 2 2 4 10",
};

typedef struct {
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag diag;
  ToyModel *model;
  ViperRun *run;
  ViperScheduler *sched;
  guint transferred;
} Sched;

static void
count_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  (void) t;
  (void) changed;
  ((Sched *) data)->transferred++;
}

static void
sched_init (Sched *s)
{
  memset (s, 0, sizeof *s);
  s->pool = viper_tram_pool_new ();
  s->channels = viper_channels_new ();
  viper_channels_add (s->channels, "mem");
  viper_diag_init (&s->diag, NULL, NULL);
  s->model = g_new0 (ToyModel, 1);
  viper_model_init (&s->model->base, &toy_class, &toy, NULL);
  s->run = viper_run_new (&toy, &s->model->base, s->pool, s->channels, &s->diag, 0.5);
  s->sched = viper_scheduler_new (s->run, &s->model->base, s->channels, &s->diag);
  MemSource *m = g_new0 (MemSource, 1);
  m->base.klass = &mem_class;
  m->base.pool = s->pool;
  m->base.diag = &s->diag;
  m->base.channels = s->channels;
  m->fields = viper_tram_fields_new ();
  m->lines = toy_lines;
  m->n = G_N_ELEMENTS (toy_lines);
  viper_scheduler_add_source (s->sched, &m->base);
  viper_scheduler_add_hook (s->sched, count_hook, s);
}

static void
sched_clear (Sched *s)
{
  viper_scheduler_free (s->sched);
  viper_run_free (s->run);
  viper_model_finish (&s->model->base);
  g_free (s->model);
  g_assert_cmpuint (viper_tram_pool_live (s->pool), ==, 0);
  viper_tram_pool_free (s->pool);
  viper_channels_free (s->channels);
  viper_diag_clear (&s->diag);
}

static void
test_scheduler_run_to_end (void)
{
  Sched s;
  sched_init (&s);
  g_assert_cmpint (viper_scheduler_run (s.sched), ==, VIPER_STOP_END);
  ViperCounts c;
  viper_run_counts (s.run, &c);
  g_assert_cmpuint (c.read, ==, 7);
  g_assert_cmpuint (c.rejected, ==, 1);
  g_assert_cmpuint (c.transferred, ==, 6);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_cmpuint (s.diag.bad, ==, 1);
  g_assert_cmpint (s.model->value[0], ==, 10);
  g_assert_cmpint (s.model->value[1], ==, 9);
  g_assert_cmpfloat (s.model->base.clock, ==, 50.0);
  g_assert_cmpuint (s.transferred, ==, 6);
  sched_clear (&s);
}

static void
test_scheduler_breakpoint_step_reset (void)
{
  Sched s;
  sched_init (&s);
  viper_scheduler_set_breakpoint (s.sched, 30.0);
  g_assert_cmpint (viper_scheduler_run (s.sched), ==, VIPER_STOP_BREAKPOINT);
  g_assert_cmpfloat (s.model->base.clock, ==, 30.0);     /* 40 would pass the breakpoint */
  g_assert_cmpint (s.model->value[0], ==, 8);
  g_assert_cmpint (s.model->value[1], ==, 6);

  /* step: exactly one state change (the NOP does not count) */
  viper_scheduler_set_breakpoint (s.sched, NAN);
  guint64 before = s.model->base.changes;
  viper_scheduler_step (s.sched);
  g_assert_cmpint (viper_scheduler_pump (s.sched, 1000), ==, VIPER_STOP_STEP);
  g_assert_cmpuint (s.model->base.changes, ==, before + 1);
  g_assert_cmpint (s.model->value[1], ==, 9);
  g_assert_cmpint (viper_scheduler_state (s.sched), ==, VIPER_SCHED_IDLE);

  /* reset: back to the initial state, and the replay is identical */
  GError *error = NULL;
  g_assert_true (viper_scheduler_reset (s.sched, &error));
  g_assert_no_error (error);
  g_assert_cmpint (s.model->value[0], ==, 0);
  ViperCounts c;
  viper_run_counts (s.run, &c);
  g_assert_cmpuint (c.read, ==, 0);
  GArray *h1 = g_array_new (FALSE, FALSE, sizeof (ViperHistoryEntry));
  g_assert_cmpint (viper_scheduler_run (s.sched), ==, VIPER_STOP_END);
  g_array_append_vals (h1, s.model->base.history->data, s.model->base.history->len);
  g_assert_true (viper_scheduler_reset (s.sched, NULL));
  g_assert_cmpint (viper_scheduler_run (s.sched), ==, VIPER_STOP_END);
  g_assert_cmpuint (h1->len, ==, s.model->base.history->len);
  g_assert_cmpint (memcmp (h1->data, s.model->base.history->data, h1->len * sizeof (ViperHistoryEntry)), ==, 0);
  viper_run_counts (s.run, &c);
  g_assert_cmpuint (c.read, ==, 7);
  g_assert_cmpuint (c.rejected, ==, 1);
  g_array_unref (h1);
  sched_clear (&s);
}

static void
test_scheduler_step_limit (void)
{
  Sched s;
  sched_init (&s);
  viper_scheduler_set_step_limit (s.sched, 2);
  g_assert_cmpint (viper_scheduler_run (s.sched), ==, VIPER_STOP_STEP);
  g_assert_cmpuint (s.model->base.changes, ==, 2);
  sched_clear (&s);
}

static void
test_history_window (void)
{
  ToyModel *m = g_new0 (ToyModel, 1);
  viper_model_init (&m->base, &toy_class, &toy, NULL);
  viper_model_set_history (&m->base, 100.0);
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTramFields *f = viper_tram_fields_new ();
  for (guint i = 1; i <= 10000; i++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 1 %u 0 0 2 2 %u %u", i, i, i);
      ViperLineKind kind;
      ViperParseError err;
      ViperTram *t = viper_tram_parse (pool, f, line, strlen (line), &kind, &err);
      t->adjusted = t->time;
      viper_model_apply (&m->base, t);
      viper_tram_pool_release (pool, t);
    }
  /* bounded by the window: at most the last 100 + one trimming chunk */
  g_assert_cmpuint (m->base.history->len, <=, 100 + 1024 + 1);
  g_assert_cmpuint (m->base.history->len + m->base.history_dropped, ==, 10000);
  const ViperHistoryEntry *last = &g_array_index (m->base.history, ViperHistoryEntry, m->base.history->len - 1);
  g_assert_cmpfloat (last->t0, ==, 10000.0);
  viper_tram_fields_free (f);
  viper_tram_pool_free (pool);
  viper_model_finish (&m->base);
  g_free (m);
}

/* The per-module index must name exactly the module's entries the history
 * still holds, in order; seeking must never skip an entry at or after the
 * time sought; and every arrow that reaches a window [a, b] must be either
 * in `open` or start at or after a - arrow_span - through appends, arrows
 * completed in place (as Mona Lisa does), out-of-order arrows (as picl
 * appends them at the receive), trimming and reset. */
static void
check_history_index (const ViperModel *m, guint n_mods)
{
  for (guint mod = 0; mod < n_mods; mod++)
    {
      const ViperHistoryModule *h = viper_model_history_module (m, mod);
      guint si = 0, ai = 0;
      for (guint i = 0; i < m->history->len; i++)
        {
          const ViperHistoryEntry *e = &g_array_index (m->history, ViperHistoryEntry, i);
          if (e->module != (gint32) mod)
            continue;
          g_assert_nonnull (h);
          guint64 pos = (guint64) m->history_dropped + i;
          g_assert_true (viper_model_history_at (m, pos) == e);
          GArray *refs = e->other < 0 ? h->states : h->arrows;
          guint *k = e->other < 0 ? &si : &ai;
          double disorder = e->other < 0 ? h->state_disorder : h->arrow_disorder;
          g_assert_cmpuint (*k, <, refs->len);
          const ViperHistoryRef *r = &g_array_index (refs, ViperHistoryRef, *k);
          g_assert_cmpuint (r->pos, ==, pos);
          g_assert_cmpfloat (r->t0_max, >=, e->t0);
          g_assert_cmpfloat (e->t0, >=, r->t0_max - disorder);
          (*k)++;
          if (e->other < 0)
            continue;
          /* an arrow outside open must fit in arrow_span */
          gboolean in_open = FALSE;
          for (guint o = 0; o < h->open->len; o++)
            in_open |= g_array_index (h->open, guint64, o) == pos;
          g_assert_true (in_open || e->t1 - e->t0 <= h->arrow_span);
        }
      if (!h)
        continue;
      g_assert_cmpuint (si, ==, h->states->len);
      g_assert_cmpuint (ai, ==, h->arrows->len);
      for (double t = -5; t < 1100; t += 7.25)
        for (int which = 0; which < 2; which++)
          {
            const GArray *refs = which ? h->arrows : h->states;
            guint k = viper_history_refs_seek (refs, t);
            g_assert_cmpuint (k, <=, refs->len);
            for (guint j = 0; j < k; j++)
              g_assert_cmpfloat (viper_model_history_at (m, g_array_index (refs, ViperHistoryRef, j).pos)->t0, <, t);
            if (k < refs->len)
              g_assert_cmpfloat (g_array_index (refs, ViperHistoryRef, k).t0_max, >=, t);
          }
    }
  g_assert_null (viper_model_history_module (m, n_mods + 7));
  if (m->history_dropped > 0)
    g_assert_null (viper_model_history_at (m, m->history_dropped - 1));
  g_assert_null (viper_model_history_at (m, (guint64) m->history_dropped + m->history->len));
}

static void
test_history_index (void)
{
  ToyModel *m = g_new0 (ToyModel, 1);
  viper_model_init (&m->base, &toy_class, &toy, NULL);
  ViperModel *b = &m->base;
  GRand *rand = g_rand_new_with_seed (5);
  const guint n_mods = 4;
  GArray *underway = g_array_new (FALSE, FALSE, sizeof (guint64));
  double t = 0;
  for (guint round = 0; round < 3; round++)
    {
      viper_model_set_history (b, round == 1 ? 120.0 : 0.0);
      for (guint i = 0; i < 6000; i++)
        {
          t += g_rand_double_range (rand, 0, 0.1);
          gint32 mod = g_rand_int_range (rand, 0, n_mods);
          guint kind = g_rand_int_range (rand, 0, 4);
          ViperHistoryEntry e = { t, t, mod, -1, g_rand_int_range (rand, 0, 3), 0 };
          if (kind == 1)
            {
              /* sent now, completed later in place */
              e.other = (mod + 1) % n_mods;
              e.t1 = NAN;
              e.state = 100;
              guint64 pos = (guint64) b->history_dropped + b->history->len;
              g_array_append_val (underway, pos);
            }
          else if (kind == 2)
            {
              /* appended at the receive: sent up to 3 time units ago */
              e.other = (mod + 2) % n_mods;
              e.t0 = MAX (t - g_rand_double_range (rand, 0, 3), 0);
              e.state = 101;
            }
          viper_model_history_add (b, &e);
          if (underway->len && g_rand_int_range (rand, 0, 3) == 0)
            {
              guint k = g_rand_int_range (rand, 0, underway->len);
              guint64 pos = g_array_index (underway, guint64, k);
              g_array_remove_index_fast (underway, k);
              if (pos >= b->history_dropped)
                g_array_index (b->history, ViperHistoryEntry, (guint) (pos - b->history_dropped)).t1 = t;
            }
          /* the clock moves as trams are applied; trimming follows it */
          b->clock = t;
          viper_model_set_history (b, b->history_interval);
          if (i % 1500 == 0)
            check_history_index (b, n_mods);
        }
      check_history_index (b, n_mods);
      if (round == 1)
        g_assert_cmpuint (b->history_dropped, >, 0);
    }
  /* a full trim: the index forgets the dropped entries */
  g_array_set_size (underway, 0);
  for (guint i = 0; i < b->history->len; i++)
    if (isnan (g_array_index (b->history, ViperHistoryEntry, i).t1))
      g_array_index (b->history, ViperHistoryEntry, i).t1 = t;
  b->clock = t + 1000;
  viper_model_set_history (b, 10.0);
  check_history_index (b, n_mods);
  g_assert_cmpuint (b->history->len, ==, 0);
  for (guint mod = 0; mod < n_mods; mod++)
    {
      const ViperHistoryModule *h = viper_model_history_module (b, mod);
      g_assert_nonnull (h);
      g_assert_cmpuint (h->states->len + h->arrows->len + h->open->len, ==, 0);
    }
  viper_model_reset (b);
  for (guint mod = 0; mod < n_mods; mod++)
    g_assert_null (viper_model_history_module (b, mod));
  g_array_unref (underway);
  g_rand_free (rand);
  viper_model_finish (b);
  g_free (m);
}

/* The setup file the GUI takes for a trace opened alone, and viper-replay's
 * hint names: beside it, else in a sibling setup/ folder, as a path that
 * works from where the trace was named (no "./", "../" from inside traces/). */
static void
test_propose_setup (void)
{
  char *root = g_dir_make_tmp ("viper-propose-XXXXXX", NULL);
  g_assert_nonnull (root);
  char *traces = g_build_filename (root, "traces", NULL), *setup = g_build_filename (root, "setup", NULL);
  g_assert_cmpint (g_mkdir (traces, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (setup, 0700), ==, 0);
  char *trc = g_build_filename (traces, "farm.trc", NULL), *stp = g_build_filename (setup, "farm.setup", NULL);
  char *beside = g_build_filename (traces, "farm.setup", NULL);
  g_assert_true (g_file_set_contents (trc, "", 0, NULL));
  g_assert_true (g_file_set_contents (stp, "", 0, NULL));
  char *cwd = g_get_current_dir ();
  struct { const char *dir, *trace, *want; } cases[] = {
    { root, "traces/farm.trc", "setup/farm.setup" },
    { root, "./traces/farm.trc", "setup/farm.setup" },
    { traces, "farm.trc", "../setup/farm.setup" },
    { setup, "../traces/farm.trc", "../setup/farm.setup" },
    { root, "traces/none.trc", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_cmpint (g_chdir (cases[i].dir), ==, 0);
      char *got = viper_propose_setup (cases[i].trace);
      g_assert_cmpstr (got, ==, cases[i].want);
      g_free (got);
    }
  char *got = viper_propose_setup (trc);
  g_assert_cmpstr (got, ==, stp);
  g_free (got);
  /* one beside the trace comes first */
  g_assert_true (g_file_set_contents (beside, "", 0, NULL));
  got = viper_propose_setup (trc);
  g_assert_cmpstr (got, ==, beside);
  g_free (got);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_unlink (beside);
  g_unlink (stp);
  g_unlink (trc);
  g_rmdir (setup);
  g_rmdir (traces);
  g_rmdir (root);
  g_free (cwd);
  g_free (beside);
  g_free (stp);
  g_free (trc);
  g_free (setup);
  g_free (traces);
  g_free (root);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/detect/propose-setup", test_propose_setup);
  g_test_add_func ("/damage/coalesces", test_damage_coalesces);
  g_test_add_func ("/json/writer", test_json_writer);
  g_test_add_func ("/scheduler/run-to-end", test_scheduler_run_to_end);
  g_test_add_func ("/scheduler/breakpoint-step-reset", test_scheduler_breakpoint_step_reset);
  g_test_add_func ("/scheduler/step-limit", test_scheduler_step_limit);
  g_test_add_func ("/model/history-window", test_history_window);
  g_test_add_func ("/model/history-index", test_history_index);
  return g_test_run ();
}
