/* test-monalisa-model.c - every Mona Lisa primitive shape end to end: tram
 * lines through the run construction (core/run.c) into the monalisa model,
 * checking module, variable and program states at chosen points.
 *
 * Lines: REC EV TIME PROC PROCESS NDATA 2 SEQ [PARTNER] VAR. */
#include <math.h>
#include <string.h>
#include "ml-harness.h"

#define EXECUTING VIPER_ML_EXECUTING
#define INTERACTING VIPER_ML_INTERACTING
#define BLOCKED VIPER_ML_BLOCKED
#define INACTIVE VIPER_ML_INACTIVE

static void
assert_counts (MlHarness *h, guint64 pending, guint64 inconsistent)
{
  ViperCounts c;
  viper_run_counts (h->run, &c);
  g_assert_cmpuint (c.read, ==, c.transferred + c.pending + c.rejected);
  g_assert_cmpuint (c.pending, ==, pending);
  g_assert_cmpuint (c.rejected, ==, 0);
  g_assert_cmpuint (h->model->inconsistent, ==, inconsistent);
}

/* The thesis's Figure 35 tram with the PICL process field. */
static void
test_thesis_example (void)
{
  viper_paradigms_register_all ();
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTramFields *fields = viper_tram_fields_new ();
  const char *line = "1 13 12100 2 0 6 2 5 3 1 1 5 5";
  ViperLineKind kind;
  ViperParseError err;
  ViperTram *t = viper_tram_parse (pool, fields, line, strlen (line), &kind, &err);
  g_assert_nonnull (t);
  t->type = viper_paradigm_type_index (&viper_monalisa_paradigm, t->rec, t->ev);
  g_assert_cmpuint (t->type, ==, VIPER_ML_T_EXPOSE_INSTANT);
  ViperMonalisaTram d;
  g_assert_true (viper_monalisa_tram_decode (t, &d));
  g_assert_cmpint (d.type, ==, VIPER_ML_T_EXPOSE_INSTANT);
  g_assert_cmpint (d.seq, ==, 5);
  g_assert_cmpint (d.var, ==, 3);
  g_assert_cmpint (d.partner, ==, -1);
  g_assert_cmpuint (d.n_dims, ==, 2);
  g_assert_false (d.bad_slice);
  g_assert_cmpint (d.offset[0], ==, 1);
  g_assert_cmpint (d.offset[1], ==, 1);
  g_assert_cmpint (d.size[0], ==, 5);
  g_assert_cmpint (d.size[1], ==, 5);
  g_assert_cmpint (t->proc, ==, 2);
  g_assert_cmpfloat (t->time, ==, 12100);

  /* applied to a model without a setup file */
  ViperModel *m = viper_monalisa_model_new (&viper_monalisa_paradigm, NULL);
  t->adjusted = t->time;
  viper_model_apply (m, t);
  g_assert_true (viper_monalisa_module_exists (m, 2));
  g_assert_cmpstr (viper_monalisa_module_name (m, 2), ==, "M2");
  g_assert_cmpuint (viper_monalisa_module_n_variables (m, 2), ==, 4);
  g_assert_cmpstr (viper_monalisa_variable_name (m, 2, 3), ==, "V3");
  g_assert_true (viper_monalisa_variable_exposed (m, 2, 3));
  g_assert_false (viper_monalisa_variable_exposed (m, 2, 2));
  g_assert_true (viper_monalisa_module_any_exposed (m, 2));
  gint64 off[VIPER_ML_MAX_DIMS], size[VIPER_ML_MAX_DIMS];
  g_assert_cmpuint (viper_monalisa_variable_slice (m, 2, 3, off, size), ==, 2);
  g_assert_cmpint (off[0], ==, 1);
  g_assert_cmpint (off[1], ==, 1);
  g_assert_cmpint (size[0], ==, 5);
  g_assert_cmpint (size[1], ==, 5);
  g_assert_true (viper_damage_contains (m->damage, VIPER_AREA_VARIABLE, 2, 3));
  g_assert_cmpfloat (m->clock, ==, 12100);
  viper_model_free (m);
  viper_tram_pool_release (pool, t);

  /* and through the run: seq 5 leaves once 1..4 are in */
  MlHarness h;
  ml_harness_init (&h, NULL);
  ml_feed (&h, line);
  g_assert_cmpuint (h.transferred, ==, 0);
  ml_feed (&h, "1 10 12000 2 0 1 2 1");
  ml_feed (&h, "1 12 12010 2 0 2 2 2 3");
  ml_feed (&h, "1 13 12020 2 0 2 2 3 0");
  g_assert_cmpuint (h.transferred, ==, 3);
  g_assert_false (ml_exposed (&h, 2, 3));
  ml_feed (&h, "1 12 12030 2 0 2 2 4 0");
  g_assert_cmpuint (h.transferred, ==, 5);
  g_assert_true (ml_exposed (&h, 2, 3));
  g_assert_false (ml_exposed (&h, 2, 0));
  g_assert_cmpint (ml_state (&h, 2), ==, EXECUTING);
  g_assert_cmpstr (ml_program (&h), ==, "running");
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
  viper_tram_fields_free (fields);
  viper_tram_pool_free (pool);
}

/* The paradigm description follows spec sections 2 and 3. */
static void
test_tables (void)
{
  const ViperParadigm *p = &viper_monalisa_paradigm;
  g_assert_cmpstr (p->name, ==, "monalisa");
  g_assert_true (p->explicit_seq);
  g_assert_cmpuint (p->n_types, ==, 32);
  guint seen_class[256] = { 0 };
  for (guint i = 0; i < p->n_types; i++)
    {
      const ViperTramType *t = &p->types[i];
      g_assert_cmpuint (viper_paradigm_type_index (p, t->rec, t->ev), ==, i);
      if (t->role == VIPER_ROLE_SLOT)
        {
          g_assert_cmpuint (t->match_class, !=, 0);
          g_assert_cmpuint (seen_class[t->match_class]++, ==, 0);
          gboolean partner_side = (t->rec == 4 && (t->ev == 14 || t->ev == 16 || t->ev == 21 || t->ev == 18))
                                  || (t->rec == 5 && (t->ev == 15 || t->ev == 17 || t->ev == 22 || t->ev == 19));
          g_assert_cmpint (t->key1_field, ==, partner_side ? 1 : VIPER_NO_FIELD);
        }
      guint nd = t->rec == 6 || t->ev == 10 || t->ev == 11 ? 1 : (t->ev == 12 || t->ev == 13) ? 2 : 3;
      g_assert_cmpuint (t->min_ndata, ==, nd);
    }
  g_assert_cmpuint (p->types[VIPER_ML_T_PM_EXIT].role, ==, VIPER_ROLE_FREE);
  g_assert_cmpuint (p->types[VIPER_ML_T_EXPOSE_START].role, ==, VIPER_ROLE_START);
  const ViperProfile *inr = &p->profiles[p->types[VIPER_ML_T_INR_START].profile];
  g_assert_cmpstr (inr->name, ==, "inrglb");
  g_assert_cmpuint (inr->n_slots, ==, 6);
  g_assert_cmpint (inr->slots[1].from, ==, VIPER_FROM_EACH_MEMBER);
  g_assert_cmpint (inr->slots[1].after, ==, 0);
  g_assert_cmpint (inr->slots[2].from, ==, VIPER_FROM_REPLY);
  g_assert_cmpint (inr->slots[2].ref, ==, 1);
  g_assert_cmpint (inr->slots[3].after, ==, 2);
  const ViperProfile *in = &p->profiles[p->types[VIPER_ML_T_IN_START].profile];
  g_assert_cmpstr (in->name, ==, "inglb");
  g_assert_cmpint (in->partner_field, ==, 1);
  g_assert_cmpint (in->slots[1].after, ==, 0);
  g_assert_cmpint (in->slots[3].after, ==, 2);
  g_assert_true (in->slots[1].key1_caller);
  g_assert_false (in->slots[3].key1_caller);
}

/* SLAVE[1] (1) inglb MASTER.JOB (0, var 0). */
static const char *inglb_lines[] = {
  "1 10 0 0 0 1 2 1",           /* 0 M:1 master starts */
  "1 10 0 1 0 1 2 1",           /* 1 S:1 slave starts */
  "2 14 10 1 0 3 2 2 0 0",      /* 2 S:2 inglb start */
  "4 14 11 0 1 3 2 2 1 0",      /* 3 M:2 request received, JOB hidden: slave blocked */
  "1 13 20 0 0 2 2 3 0",        /* 4 M:3 master exposes JOB */
  "5 15 21 0 1 3 2 4 1 0",      /* 5 M:4 reply sent: JOB hidden, slave released */
  "4 15 22 1 1 3 2 3 0 0",      /* 6 S:3 reply received */
  "3 14 23 1 0 3 2 4 0 0",      /* 7 S:4 end */
};

static void
test_inglb_blocked_while_hidden (void)
{
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  g_assert_cmpstr (ml_program (&h), ==, "inactive");
  ml_feed_all (&h, inglb_lines, 2);
  g_assert_cmpstr (ml_program (&h), ==, "running");
  g_assert_cmpint (ml_state (&h, 1), ==, EXECUTING);
  ml_feed (&h, inglb_lines[2]);
  g_assert_cmpint (ml_state (&h, 1), ==, INTERACTING);
  g_assert_cmpint (ml_prim (&h, 1), ==, VIPER_ML_PRIM_INGLB);
  g_assert_cmpint (ml_partner (&h, 1), ==, 0);
  g_assert_cmpuint (viper_monalisa_module_n_arrows (h.model, 1), ==, 1);
  const ViperMonalisaArrow *a = viper_monalisa_module_arrow (h.model, 1, 0);
  g_assert_cmpint (a->to, ==, 0);
  g_assert_cmpint (a->kind, ==, VIPER_ML_ARROW_REQUEST);
  g_assert_true (viper_damage_contains (h.model->damage, VIPER_AREA_LINK, 1, 0));
  ml_feed (&h, inglb_lines[3]);
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);
  g_assert_cmpuint (viper_monalisa_module_n_arrows (h.model, 1), ==, 0);
  g_assert_cmpstr (ml_program (&h), ==, "running");
  ml_feed (&h, inglb_lines[4]);
  g_assert_true (ml_exposed (&h, 0, 0));
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);
  ml_feed (&h, inglb_lines[5]);
  g_assert_false (ml_exposed (&h, 0, 0));
  g_assert_cmpint (ml_state (&h, 1), ==, INTERACTING);
  g_assert_cmpuint (viper_monalisa_module_n_arrows (h.model, 0), ==, 1);
  g_assert_cmpint (viper_monalisa_module_arrow (h.model, 0, 0)->kind, ==, VIPER_ML_ARROW_DATA);
  ml_feed (&h, inglb_lines[6]);
  g_assert_cmpuint (viper_monalisa_module_n_arrows (h.model, 0), ==, 0);
  g_assert_cmpint (ml_state (&h, 1), ==, INTERACTING);
  ml_feed (&h, inglb_lines[7]);
  g_assert_cmpint (ml_state (&h, 1), ==, EXECUTING);
  g_assert_cmpint (ml_prim (&h, 1), ==, VIPER_ML_PRIM_NONE);
  g_assert_cmpuint (ml_history_count (&h, 1, BLOCKED), ==, 1);
  /* both arrows are in the history with their arrival */
  guint arrows = 0;
  for (guint i = 0; i < h.model->history->len; i++)
    {
      const ViperHistoryEntry *e = &g_array_index (h.model->history, ViperHistoryEntry, i);
      if (e->state >= VIPER_ML_HISTORY_ARROW)
        {
          arrows++;
          g_assert_false (isnan (e->t1));
          g_assert_cmpfloat (e->t1, >=, e->t0);
        }
    }
  g_assert_cmpuint (arrows, ==, 2);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* The variable is exposed when the request arrives: never blocked. */
static void
test_inglb_exposed_not_blocked (void)
{
  static const char *lines[] = {
    "1 10 0 0 0 1 2 1", "1 10 0 1 0 1 2 1",
    "1 13 5 0 0 2 2 2 0",         /* M exposes JOB first */
    "2 14 10 1 0 3 2 2 0 0",
    "4 14 11 0 1 3 2 3 1 0",      /* request received: JOB exposed */
    "5 15 12 0 1 3 2 4 1 0",
    "4 15 13 1 1 3 2 3 0 0",
    "3 14 14 1 0 3 2 4 0 0",
  };
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  ml_feed_all (&h, lines, 5);
  g_assert_cmpint (ml_state (&h, 1), ==, INTERACTING);
  ml_feed_all (&h, lines + 5, 3);
  g_assert_cmpint (ml_state (&h, 1), ==, EXECUTING);
  g_assert_cmpuint (ml_history_count (&h, 1, BLOCKED), ==, 0);
  g_assert_false (ml_exposed (&h, 0, 0));
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* Any arrival order (per module order scrambled too) gives the same story. */
static void
test_inglb_arrival_orders (void)
{
  GRand *r = g_rand_new_with_seed (11);
  for (guint round = 0; round < 300; round++)
    {
      guint idx[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
      for (guint i = 7; i > 0; i--)
        {
          guint j = (guint) g_rand_int_range (r, 0, (gint32) i + 1);
          guint t = idx[i]; idx[i] = idx[j]; idx[j] = t;
        }
      MlHarness h;
      ml_harness_init (&h, ml_farm_setup);
      for (guint i = 0; i < 8; i++)
        ml_feed (&h, inglb_lines[idx[i]]);
      g_assert_cmpuint (h.transferred, ==, 8);
      g_assert_cmpint (ml_state (&h, 1), ==, EXECUTING);
      g_assert_cmpuint (ml_history_count (&h, 1, BLOCKED), ==, 1);
      g_assert_false (ml_exposed (&h, 0, 0));
      assert_counts (&h, 0, 0);
      ml_harness_clear (&h);
    }
  g_rand_free (r);
}

/* rdglb leaves the variable exposed; wrglb hides it and its request carries the data. */
static void
test_rdglb_wrglb (void)
{
  static const char *lines[] = {
    "1 10 0 0 0 1 2 1", "1 10 0 1 0 1 2 1",
    "2 16 10 1 0 3 2 2 0 0",      /* S rdglb M.JOB */
    "4 16 11 0 1 3 2 2 1 0",      /* hidden: S blocked */
    "1 13 12 0 0 2 2 3 0",
    "5 17 13 0 1 3 2 4 1 0",      /* reply: JOB stays exposed, S released */
    "4 17 14 1 1 3 2 3 0 0",
    "3 16 15 1 0 3 2 4 0 0",
    "2 21 20 1 0 3 2 5 0 0",      /* S wrglb M.JOB */
    "4 21 21 0 1 3 2 5 1 0",      /* exposed: not blocked */
    "5 22 22 0 1 3 2 6 1 0",      /* written, then hidden */
    "4 22 23 1 1 3 2 6 0 0",
    "3 21 24 1 0 3 2 7 0 0",
  };
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  ml_feed_all (&h, lines, 4);
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);
  g_assert_cmpint (ml_prim (&h, 1), ==, VIPER_ML_PRIM_RDGLB);
  ml_feed_all (&h, lines + 4, 2);
  g_assert_cmpint (ml_state (&h, 1), ==, INTERACTING);
  g_assert_true (ml_exposed (&h, 0, 0));
  ml_feed_all (&h, lines + 6, 2);
  g_assert_cmpint (ml_state (&h, 1), ==, EXECUTING);
  ml_feed (&h, lines[8]);
  g_assert_cmpint (ml_prim (&h, 1), ==, VIPER_ML_PRIM_WRGLB);
  g_assert_cmpint (viper_monalisa_module_arrow (h.model, 1, 0)->kind, ==, VIPER_ML_ARROW_DATA);
  ml_feed (&h, lines[9]);
  g_assert_cmpint (ml_state (&h, 1), ==, INTERACTING);
  ml_feed (&h, lines[10]);
  g_assert_false (ml_exposed (&h, 0, 0));
  g_assert_cmpint (viper_monalisa_module_arrow (h.model, 0, 0)->kind, ==, VIPER_ML_ARROW_REPLY);
  ml_feed_all (&h, lines + 11, 2);
  g_assert_cmpint (ml_state (&h, 1), ==, EXECUTING);
  g_assert_cmpuint (ml_history_count (&h, 1, BLOCKED), ==, 1);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* The master exposes JOB, exposes it again and is blocked until a slave took it. */
static void
test_expose_blocked_until_taken (void)
{
  static const char *lines[] = {
    "1 10 0 0 0 1 2 1",
    "1 13 1 0 0 2 2 2 0",         /* JOB exposed */
    "2 13 2 0 0 2 2 3 0",         /* second exposeglb: blocked */
    "1 10 0 1 0 1 2 1",
    "2 14 3 1 0 3 2 2 0 0",       /* slave takes the job */
    "4 14 4 0 1 3 2 4 1 0",
    "5 15 5 0 1 3 2 5 1 0",       /* JOB hidden */
    "3 13 6 0 0 2 2 6 0",         /* exposed again, master executes */
    "4 15 7 1 1 3 2 3 0 0",
    "3 14 8 1 0 3 2 4 0 0",
  };
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  ml_feed_all (&h, lines, 3);
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  g_assert_cmpint (ml_prim (&h, 0), ==, VIPER_ML_PRIM_EXPOSEGLB);
  g_assert_cmpint (ml_partner (&h, 0), ==, -1);
  g_assert_true (ml_exposed (&h, 0, 0));
  /* the slaves have not started: not every unfinished module is blocked */
  g_assert_cmpstr (ml_program (&h), ==, "running");
  ml_feed_all (&h, lines + 3, 3);
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  g_assert_cmpint (ml_state (&h, 1), ==, INTERACTING);
  ml_feed (&h, lines[6]);
  g_assert_false (ml_exposed (&h, 0, 0));
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  ml_feed (&h, lines[7]);
  g_assert_true (ml_exposed (&h, 0, 0));
  g_assert_cmpint (ml_state (&h, 0), ==, EXECUTING);
  g_assert_cmpint (ml_prim (&h, 0), ==, VIPER_ML_PRIM_NONE);
  ml_feed_all (&h, lines + 8, 2);
  g_assert_cmpint (ml_state (&h, 1), ==, EXECUTING);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* The master inrglb SLAVE.RESULT: blocked once every instance has the request
 * with RESULT hidden, released by the first reply. */
static void
test_inrglb_blocked (void)
{
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  for (gint m = 0; m <= 4; m++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 10 0 %d 0 1 2 1", m);
      ml_feed (&h, line);
    }
  ml_feed (&h, "2 18 10 0 0 3 2 2 6 0");
  g_assert_cmpint (ml_state (&h, 0), ==, INTERACTING);
  g_assert_cmpint (ml_prim (&h, 0), ==, VIPER_ML_PRIM_INRGLB);
  g_assert_cmpint (ml_partner (&h, 0), ==, 6);
  g_assert_cmpuint (viper_monalisa_module_n_arrows (h.model, 0), ==, 4);
  ml_feed (&h, "4 18 11 1 1 3 2 2 0 0");
  ml_feed (&h, "4 18 11 3 1 3 2 2 0 0");
  ml_feed (&h, "4 18 11 4 1 3 2 2 0 0");
  g_assert_cmpint (ml_state (&h, 0), ==, INTERACTING);
  ml_feed (&h, "4 18 12 2 1 3 2 2 0 0");
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  g_assert_cmpuint (viper_monalisa_module_n_arrows (h.model, 0), ==, 0);
  g_assert_cmpstr (ml_program (&h), ==, "running");
  ml_feed (&h, "1 13 13 2 0 2 2 3 0");          /* SLAVE[2] exposes RESULT */
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  ml_feed (&h, "5 19 14 2 1 3 2 4 0 0");        /* and replies */
  g_assert_cmpint (ml_state (&h, 0), ==, INTERACTING);
  g_assert_false (ml_exposed (&h, 2, 0));
  g_assert_cmpint (ml_partner (&h, 0), ==, 6);
  ml_feed (&h, "4 19 15 0 1 3 2 3 2 0");
  g_assert_cmpint (ml_partner (&h, 0), ==, 2);
  ml_feed (&h, "5 20 16 0 1 3 2 4 6 0");
  ml_feed (&h, "3 18 17 0 0 3 2 5 2 0");
  g_assert_cmpint (ml_state (&h, 0), ==, EXECUTING);
  g_assert_cmpuint (ml_history_count (&h, 0, BLOCKED), ==, 1);

  /* second call: SLAVE[1] has RESULT exposed when the request arrives, so
   * the master is never blocked even when everyone has it */
  ml_feed (&h, "1 13 20 1 0 2 2 3 0");
  ml_feed (&h, "2 18 21 0 0 3 2 6 6 0");
  for (gint s = 1; s <= 4; s++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "4 18 22 %d 1 3 2 %d 0 0", s, s == 1 ? 4 : s == 2 ? 5 : 3);
      ml_feed (&h, line);
    }
  g_assert_cmpint (ml_state (&h, 0), ==, INTERACTING);
  ml_feed (&h, "5 19 23 1 1 3 2 5 0 0");
  ml_feed (&h, "4 19 24 0 1 3 2 7 1 0");
  ml_feed (&h, "5 20 25 0 1 3 2 8 6 0");
  ml_feed (&h, "3 18 26 0 0 3 2 9 1 0");
  g_assert_cmpint (ml_state (&h, 0), ==, EXECUTING);
  g_assert_cmpuint (ml_history_count (&h, 0, BLOCKED), ==, 1);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* A slow instance's (4,18) of call 1 arrives after the caller started call 2:
 * it counts for call 1, not call 2. */
static void
test_inrglb_late_instance (void)
{
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  for (gint m = 0; m <= 4; m++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 10 0 %d 0 1 2 1", m);
      ml_feed (&h, line);
    }
  /* call 1: SLAVE[1] exposes and replies at once; SLAVE[4] is slow */
  ml_feed (&h, "1 13 1 1 0 2 2 2 0");
  ml_feed (&h, "2 18 10 0 0 3 2 2 6 0");
  ml_feed (&h, "4 18 11 1 1 3 2 3 0 0");
  ml_feed (&h, "5 19 12 1 1 3 2 4 0 0");
  ml_feed (&h, "4 18 11 2 1 3 2 2 0 0");
  ml_feed (&h, "4 18 11 3 1 3 2 2 0 0");
  ml_feed (&h, "4 19 13 0 1 3 2 3 1 0");
  ml_feed (&h, "5 20 14 0 1 3 2 4 6 0");
  ml_feed (&h, "3 18 15 0 0 3 2 5 1 0");
  /* call 2: 1, 2, 3 receive with RESULT hidden; then 4's receipt of call 1 */
  ml_feed (&h, "2 18 20 0 0 3 2 6 6 0");
  ml_feed (&h, "4 18 21 1 1 3 2 5 0 0");
  ml_feed (&h, "4 18 21 2 1 3 2 3 0 0");
  ml_feed (&h, "4 18 21 3 1 3 2 3 0 0");
  ml_feed (&h, "4 18 22 4 1 3 2 2 0 0");       /* call 1's request */
  g_assert_cmpint (ml_state (&h, 0), ==, INTERACTING);
  g_assert_cmpuint (viper_monalisa_module_n_arrows (h.model, 0), ==, 1);
  ml_feed (&h, "4 18 23 4 1 3 2 3 0 0");       /* call 2's request */
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

static const char *peer_setup =
  "MODULES:\n3\nGROUPS:\n0\nDEFINITION TABLE:\n"
  "dl.PEER1 PEER[1] 0\ndl.PEER2 PEER[2] 1\ndl.LOG LOG 2\n- # all_modules # 3\n"
  "#ATTRIBUTES for module PEER[1]#\nX 0 INTEGER\n#ATTRIBUTES for module PEER[2]#\nX 0 INTEGER\n"
  "#ATTRIBUTES for module LOG#\nSTATUS 0 INTEGER\n";

/* Two modules each read the other's hidden variable: deadlock, found from the
 * states alone, before the program manager says so. */
static void
test_deadlock (void)
{
  MlHarness h;
  ml_harness_init (&h, peer_setup);
  ml_feed (&h, "1 10 0 0 0 1 2 1");
  ml_feed (&h, "1 10 0 1 0 1 2 1");
  ml_feed (&h, "1 10 0 2 0 1 2 1");
  ml_feed (&h, "2 14 10 0 0 3 2 2 1 0");
  ml_feed (&h, "2 14 10 1 0 3 2 2 0 0");
  ml_feed (&h, "4 14 11 1 1 3 2 3 0 0");
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  g_assert_cmpstr (ml_program (&h), ==, "running");
  char *c = ml_cycle (&h);
  g_assert_cmpstr (c, ==, "");
  g_free (c);
  ml_feed (&h, "4 14 11 0 1 3 2 3 1 0");
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);
  g_assert_cmpstr (ml_program (&h), ==, "deadlock");
  g_assert_true (viper_damage_contains (h.model->damage, VIPER_AREA_PROGRAM, 0, 0));
  c = ml_cycle (&h);
  g_assert_cmpstr (c, ==, "0,1");
  g_free (c);
  g_assert_cmpint (viper_monalisa_reported (h.model), ==, VIPER_ML_PROGRAM_INACTIVE);
  /* LOG keeps working and finishes: still a deadlock */
  ml_feed (&h, "1 13 12 2 0 2 2 2 0");
  ml_feed (&h, "1 11 13 2 0 1 2 3");
  g_assert_cmpstr (ml_program (&h), ==, "deadlock");
  ml_feed (&h, "6 23 50 -1 0 3 2 1 0 1");
  g_assert_cmpint (viper_monalisa_reported (h.model), ==, VIPER_ML_PROGRAM_DEADLOCK);
  g_assert_cmpstr (ml_program (&h), ==, "deadlock");
  c = ml_cycle (&h);
  g_assert_cmpstr (c, ==, "0,1");
  g_free (c);
  /* module states unchanged by the verdict */
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);

  char *json = viper_state_to_json (h.run, h.model, FALSE);
  g_assert_nonnull (strstr (json, "\"program_state\":\"deadlock\""));
  g_assert_nonnull (strstr (json, "\"reported\":\"deadlock\",\"deadlock_cycle\":[0,1]"));
  g_assert_nonnull (strstr (json, "{\"id\":0,\"name\":\"PEER[1]\",\"state\":\"blocked\",\"started\":true,"
                                  "\"finished\":false,\"primitive\":{\"name\":\"inglb\",\"partner\":1,\"var\":0},"
                                  "\"variables\":[{\"id\":0,\"name\":\"X\",\"state\":\"hidden\"}],\"offset\":"));
  g_assert_nonnull (strstr (json, "{\"id\":2,\"name\":\"LOG\",\"state\":\"inactive\",\"started\":true,"
                                  "\"finished\":true,\"primitive\":null,"
                                  "\"variables\":[{\"id\":0,\"name\":\"STATUS\",\"state\":\"exposed\"}],\"offset\":"));
  g_free (json);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* inrglb waits for any instance: one instance outside D keeps its caller out. */
static void
test_deadlock_inrglb (void)
{
  const char *setup =
    "MODULES:\n3\nGROUPS:\n1\nRANGE FOR GROUPS:\n1 2\nDEFINITION TABLE:\n"
    "g.A A 0\ng.W1 W[1] 1\ng.W2 W[2] 2\n- # all_modules # 3\n- W 4\n"
    "#ATTRIBUTES for module A#\nX 0 INTEGER\n#ATTRIBUTES for module W#\nY 0 INTEGER\n";
  MlHarness h;
  ml_harness_init (&h, setup);
  for (gint m = 0; m <= 2; m++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 10 0 %d 0 1 2 1", m);
      ml_feed (&h, line);
    }
  ml_feed (&h, "2 18 10 0 0 3 2 2 4 0");       /* A inrglb W.Y */
  ml_feed (&h, "4 18 11 1 1 3 2 2 0 0");
  ml_feed (&h, "4 18 11 2 1 3 2 2 0 0");
  g_assert_cmpint (ml_state (&h, 0), ==, BLOCKED);
  ml_feed (&h, "2 14 12 1 0 3 2 3 0 0");       /* W[1] inglb A.X: blocked */
  ml_feed (&h, "4 14 13 0 1 3 2 3 1 0");
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);
  g_assert_cmpstr (ml_program (&h), ==, "running");   /* W[2] could still serve A */
  ml_feed (&h, "2 14 14 2 0 3 2 3 0 0");       /* W[2] too */
  ml_feed (&h, "4 14 15 0 1 3 2 4 2 0");
  g_assert_cmpstr (ml_program (&h), ==, "deadlock");
  char *c = ml_cycle (&h);
  g_assert_cmpstr (c, ==, "0,1,2");
  g_free (c);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* A slave reads from a finished module's hidden variable: abnormal.  The
 * finished module's supervisor still receives (no inconsistency). */
static void
test_abnormal (void)
{
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  ml_feed (&h, "1 10 0 0 0 1 2 1");
  ml_feed (&h, "1 11 1 0 0 1 2 2");             /* master finishes, JOB hidden */
  g_assert_true (viper_monalisa_module_finished (h.model, 0));
  g_assert_cmpint (ml_state (&h, 0), ==, INACTIVE);
  ml_feed (&h, "1 10 0 1 0 1 2 1");
  ml_feed (&h, "2 16 5 1 0 3 2 2 0 0");
  g_assert_cmpstr (ml_program (&h), ==, "running");
  ml_feed (&h, "4 16 6 0 1 3 2 3 1 0");
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);
  g_assert_cmpstr (ml_program (&h), ==, "abnormal");
  g_assert_cmpint (viper_monalisa_reported (h.model), ==, VIPER_ML_PROGRAM_INACTIVE);
  ml_feed (&h, "6 24 9 -1 0 2 2 1 1");
  g_assert_cmpint (viper_monalisa_reported (h.model), ==, VIPER_ML_PROGRAM_ABNORMAL);
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);     /* unchanged by (6,24) */
  g_assert_false (viper_monalisa_module_finished (h.model, 1));
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* Every unfinished module blocked in an expose: abnormal. */
static void
test_abnormal_all_expose (void)
{
  const char *setup = "MODULES:\n2\nGROUPS:\n0\nDEFINITION TABLE:\na.A A 0\na.B B 1\n- # all_modules # 2\n"
                      "#ATTRIBUTES for module A#\nX 0 INTEGER\n";
  MlHarness h;
  ml_harness_init (&h, setup);
  ml_feed (&h, "1 10 0 0 0 1 2 1");
  ml_feed (&h, "1 13 1 0 0 2 2 2 0");
  ml_feed (&h, "2 13 2 0 0 2 2 3 0");
  g_assert_cmpstr (ml_program (&h), ==, "running");    /* B has not even started */
  ml_feed (&h, "1 10 0 1 0 1 2 1");
  g_assert_cmpstr (ml_program (&h), ==, "running");
  ml_feed (&h, "1 11 3 1 0 1 2 2");
  g_assert_cmpstr (ml_program (&h), ==, "abnormal");
  g_assert_cmpint (viper_monalisa_program_state_derived (h.model), ==, VIPER_ML_PROGRAM_ABNORMAL);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* The Farm's end: the master finished, the slaves wait for a job; (6,25)
 * finishes them and the program is terminated. */
static void
test_farm_terminated (void)
{
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  ml_feed (&h, "1 10 0 0 0 1 2 1");
  ml_feed (&h, "1 11 1 0 0 1 2 2");
  for (gint s = 1; s <= 4; s++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 10 0 %d 0 1 2 1", s);
      ml_feed (&h, line);
      g_snprintf (line, sizeof line, "2 14 2 %d 0 3 2 2 0 0", s);
      ml_feed (&h, line);
      g_snprintf (line, sizeof line, "4 14 3 0 1 3 2 %d %d 0", 2 + s, s);
      ml_feed (&h, line);
      g_assert_cmpint (ml_state (&h, s), ==, BLOCKED);
    }
  g_assert_cmpstr (ml_program (&h), ==, "abnormal");
  ml_feed (&h, "6 25 10 -1 0 5 2 1 1 2 3 4");
  g_assert_cmpstr (ml_program (&h), ==, "terminated");
  g_assert_cmpint (viper_monalisa_program_state_derived (h.model), ==, VIPER_ML_PROGRAM_TERMINATED);
  g_assert_cmpint (viper_monalisa_reported (h.model), ==, VIPER_ML_PROGRAM_TERMINATED);
  for (gint s = 1; s <= 4; s++)
    {
      g_assert_cmpint (ml_state (&h, s), ==, INACTIVE);
      g_assert_true (viper_monalisa_module_finished (h.model, s));
      g_assert_true (viper_monalisa_module_started (h.model, s));
      g_assert_cmpint (ml_prim (&h, s), ==, VIPER_ML_PRIM_NONE);
    }
  assert_counts (&h, 0, 0);
  /* a listed module's later tram changes its variable, not its state: inconsistent */
  ml_feed (&h, "1 13 11 3 0 2 2 3 0");
  g_assert_true (ml_exposed (&h, 3, 0));
  g_assert_cmpint (ml_state (&h, 3), ==, INACTIVE);
  g_assert_cmpstr (ml_program (&h), ==, "terminated");
  assert_counts (&h, 0, 1);
  char *json = viper_state_to_json (h.run, h.model, FALSE);
  g_assert_nonnull (strstr (json, "\"program_state\":\"terminated\""));
  g_assert_nonnull (strstr (json, "\"reported\":\"terminated\",\"deadlock_cycle\":[]"));
  g_assert_nonnull (strstr (json, "\"inconsistent\":1"));
  g_free (json);
  ml_harness_clear (&h);
}

/* Contradictions are counted, applied as far as they make sense, never fatal. */
static void
test_inconsistencies (void)
{
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  ml_feed (&h, "1 10 0 0 0 1 2 1");
  ml_feed (&h, "1 10 0 1 0 1 2 1");
  ml_feed (&h, "2 14 1 1 0 3 2 2 0 0");
  ml_feed (&h, "4 14 2 0 1 3 2 2 1 0");
  g_assert_cmpint (ml_state (&h, 1), ==, BLOCKED);
  ml_feed (&h, "5 15 3 0 1 3 2 3 1 0");          /* reply from the hidden JOB */
  assert_counts (&h, 0, 1);
  g_assert_cmpint (ml_state (&h, 1), ==, INTERACTING);
  g_assert_false (ml_exposed (&h, 0, 0));
  ml_feed (&h, "4 15 4 1 1 3 2 3 0 0");
  ml_feed (&h, "3 14 5 1 0 3 2 4 0 0");
  ml_feed (&h, "1 11 6 1 0 1 2 5");
  g_assert_cmpuint (h.model->inconsistent, ==, 1);
  ml_feed (&h, "1 13 7 1 0 2 2 6 0");            /* a finished module's application tram */
  assert_counts (&h, 0, 2);
  g_assert_true (ml_exposed (&h, 1, 0));         /* applied to the variable */
  g_assert_cmpint (ml_state (&h, 1), ==, INACTIVE);
  ml_feed (&h, "1 10 8 0 0 1 2 4");              /* master starts twice */
  assert_counts (&h, 0, 3);
  ml_feed (&h, "1 13 9 0 0 2 2 5 7");            /* a variable the setup file does not have */
  assert_counts (&h, 0, 4);
  g_assert_true (ml_exposed (&h, 0, 7));
  ml_feed (&h, "1 10 0 9 0 1 2 1");              /* a module the setup file does not have */
  assert_counts (&h, 0, 5);
  g_assert_cmpstr (viper_monalisa_module_name (h.model, 9), ==, "M9");
  ml_feed (&h, "3 14 10 0 0 3 2 6 1 0");         /* END of a primitive it is not in */
  assert_counts (&h, 0, 6);
  ml_feed (&h, "1 13 11 0 0 3 2 7 0 1");         /* a slice that is not one */
  assert_counts (&h, 0, 7);
  g_assert_true (ml_exposed (&h, 0, 0));
  g_assert_cmpuint (h.warnings, ==, 7);          /* each one reported */
  g_assert_cmpuint (h.bad, ==, 0);
  ml_harness_clear (&h);
}

/* Without a setup file everything but group primitives replays. */
static void
test_no_setup (void)
{
  MlHarness h;
  ml_harness_init (&h, NULL);
  ml_feed_all (&h, inglb_lines, G_N_ELEMENTS (inglb_lines));
  g_assert_cmpuint (viper_monalisa_model_n_modules (h.model), ==, 2);
  g_assert_cmpstr (viper_monalisa_module_name (h.model, 0), ==, "M0");
  g_assert_cmpstr (viper_monalisa_variable_name (h.model, 0, 0), ==, "V0");
  g_assert_cmpuint (ml_history_count (&h, 1, BLOCKED), ==, 1);
  g_assert_cmpint (ml_state (&h, 1), ==, EXECUTING);
  ml_feed (&h, "1 11 30 0 0 1 2 5");
  ml_feed (&h, "1 11 30 1 0 1 2 5");
  g_assert_cmpstr (ml_program (&h), ==, "terminated");
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

/* Reset brings back the initial state from the setup file. */
static void
test_reset (void)
{
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  ml_feed_all (&h, inglb_lines, 5);
  g_assert_true (ml_exposed (&h, 0, 0));
  viper_model_reset (h.model);
  g_assert_cmpuint (viper_monalisa_model_n_modules (h.model), ==, 5);
  g_assert_false (ml_exposed (&h, 0, 0));
  g_assert_cmpint (ml_state (&h, 1), ==, INACTIVE);
  g_assert_false (viper_monalisa_module_started (h.model, 1));
  g_assert_cmpstr (ml_program (&h), ==, "inactive");
  g_assert_cmpuint (viper_monalisa_module_n_arrows (h.model, 1), ==, 0);
  ml_harness_clear (&h);
}

/* A program manager's verdict read before the modules' trams (a file split
 * per module, its file first) goes after the trams read with it: while more
 * input comes it waits, saying why; at the pause (the end of the files, or
 * live input pausing) it goes, and nothing is inconsistent. */
static void
test_pm_after_input (void)
{
  MlHarness h;
  ml_harness_init (&h, ml_farm_setup);
  ml_feed_line (&h, "6 25 10 -1 0 5 2 1 1 2 3 4");
  g_assert_cmpint (viper_monalisa_reported (h.model), !=, VIPER_ML_PROGRAM_TERMINATED);
  GArray *stuck = viper_run_stuck (h.run);
  g_assert_cmpuint (stuck->len, ==, 1);
  g_assert_nonnull (strstr (g_array_index (stuck, ViperStuck, 0).waiting_for, "waits for the end of the input"));
  viper_stuck_array_free (stuck);
  ml_feed_line (&h, "1 10 0 0 0 1 2 1");
  ml_feed_line (&h, "1 11 1 0 0 1 2 2");
  for (gint s = 1; s <= 4; s++)
    {
      char line[64];
      g_snprintf (line, sizeof line, "1 10 0 %d 0 1 2 1", s);
      ml_feed_line (&h, line);
      g_snprintf (line, sizeof line, "2 14 2 %d 0 3 2 2 0 0", s);
      ml_feed_line (&h, line);
      g_snprintf (line, sizeof line, "4 14 3 0 1 3 2 %d %d 0", 2 + s, s);
      ml_feed_line (&h, line);
      g_assert_cmpint (ml_state (&h, s), ==, BLOCKED);
    }
  g_assert_cmpint (viper_monalisa_reported (h.model), !=, VIPER_ML_PROGRAM_TERMINATED);
  ml_pause (&h);
  g_assert_cmpint (viper_monalisa_reported (h.model), ==, VIPER_ML_PROGRAM_TERMINATED);
  for (gint s = 1; s <= 4; s++)
    g_assert_cmpint (ml_state (&h, s), ==, INACTIVE);
  assert_counts (&h, 0, 0);
  ml_harness_clear (&h);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/monalisa/model/thesis-example", test_thesis_example);
  g_test_add_func ("/monalisa/model/tables", test_tables);
  g_test_add_func ("/monalisa/model/inglb-blocked", test_inglb_blocked_while_hidden);
  g_test_add_func ("/monalisa/model/inglb-exposed", test_inglb_exposed_not_blocked);
  g_test_add_func ("/monalisa/model/inglb-orders", test_inglb_arrival_orders);
  g_test_add_func ("/monalisa/model/rdglb-wrglb", test_rdglb_wrglb);
  g_test_add_func ("/monalisa/model/expose-blocked", test_expose_blocked_until_taken);
  g_test_add_func ("/monalisa/model/inrglb-blocked", test_inrglb_blocked);
  g_test_add_func ("/monalisa/model/inrglb-late-instance", test_inrglb_late_instance);
  g_test_add_func ("/monalisa/model/deadlock", test_deadlock);
  g_test_add_func ("/monalisa/model/deadlock-inrglb", test_deadlock_inrglb);
  g_test_add_func ("/monalisa/model/abnormal", test_abnormal);
  g_test_add_func ("/monalisa/model/abnormal-all-expose", test_abnormal_all_expose);
  g_test_add_func ("/monalisa/model/farm-terminated", test_farm_terminated);
  g_test_add_func ("/monalisa/model/inconsistencies", test_inconsistencies);
  g_test_add_func ("/monalisa/model/no-setup", test_no_setup);
  g_test_add_func ("/monalisa/model/reset", test_reset);
  g_test_add_func ("/monalisa/model/pm-after-input", test_pm_after_input);
  return g_test_run ();
}
