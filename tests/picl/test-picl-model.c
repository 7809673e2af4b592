/* test-picl-model.c - the picl program-state model on its own.
 *
 * Trams are handed to the model directly, in a chosen run order with chosen
 * adjusted times, so each rule of spec section 3 (busy / communicating /
 * idle, tracing, program state, message pairing) is checked in isolation,
 * then the --state-out fields are checked through a real run. */
#include <math.h>
#include <string.h>
#include "picl-harness.h"

typedef struct {
  ViperTramPool *pool;
  ViperTramFields *fields;
  ViperModel *m;
} Fix;

static void
fix_init (Fix *f)
{
  viper_paradigms_register_all ();
  f->pool = viper_tram_pool_new ();
  f->fields = viper_tram_fields_new ();
  f->m = viper_picl_model_new (&viper_picl_paradigm, NULL);
}

static void
fix_clear (Fix *f)
{
  viper_model_free (f->m);
  viper_tram_pool_free (f->pool);
  viper_tram_fields_free (f->fields);
}

/* Apply one line as if the run transferred it with this adjusted time. */
static gboolean
put (Fix *f, const char *line, double adjusted)
{
  ViperLineKind kind;
  ViperParseError err;
  ViperTram *t = viper_tram_parse (f->pool, f->fields, line, strlen (line), &kind, &err);
  g_assert_nonnull (t);
  t->type = viper_paradigm_type_index (&viper_picl_paradigm, t->rec, t->ev);
  if (t->type == VIPER_TYPE_UNKNOWN)
    t->flags |= VIPER_TRAM_F_IGNORED;
  t->adjusted = adjusted;
  t->state = VIPER_TRAM_TRANSFERRED;
  gboolean changed = viper_model_apply (f->m, t);
  viper_tram_pool_release (f->pool, t);
  return changed;
}

static ViperPiclState
state (Fix *f, gint64 p)
{
  return viper_picl_model_state (f->m, p);
}

static void
test_program_state (void)
{
  Fix f;
  fix_init (&f);
  g_assert_cmpstr (viper_model_program_state (f.m), ==, "inactive");
  g_assert_true (put (&f, "-3 -901 0.5 0 0 0", 0.5));
  g_assert_cmpstr (viper_model_program_state (f.m), ==, "running");
  g_assert_true (viper_picl_model_tracing (f.m, 0));
  g_assert_true (viper_damage_contains (f.m->damage, VIPER_AREA_PROGRAM, 0, 0));
  g_assert_true (viper_damage_contains (f.m->damage, VIPER_AREA_MODULE, 0, 0));
  put (&f, "-3 -901 0.6 1 0 0", 0.6);
  put (&f, "-4 -901 0.7 0 0 0", 0.7);
  g_assert_cmpstr (viper_model_program_state (f.m), ==, "running");     /* P1 still traces */
  g_assert_false (viper_picl_model_tracing (f.m, 0));
  put (&f, "-4 -901 0.8 1 0 0", 0.8);
  g_assert_cmpstr (viper_model_program_state (f.m), ==, "terminated");
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  /* stopping twice breaks a rule */
  g_assert_false (put (&f, "-4 -901 0.9 1 0 0", 0.9));
  g_assert_cmpuint (f.m->inconsistent, ==, 1);
  /* reset forgets everything */
  viper_model_reset (f.m);
  g_assert_cmpstr (viper_model_program_state (f.m), ==, "inactive");
  g_assert_cmpuint (viper_picl_model_n_procs (f.m), ==, 0);
  fix_clear (&f);
}

/* A receive that begins before its message is sent waits idle. */
static void
test_idle_until_sent (void)
{
  Fix f;
  fix_init (&f);
  put (&f, "-3 -52 1 1 0 3 2 7 0 0", 1);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_IDLE);
  g_assert_true (viper_damage_contains (f.m->damage, VIPER_AREA_MODULE, 1, 0));
  put (&f, "-3 -21 2 2 0 4 2 8 7 1 0", 2);            /* from P2: not the sender it waits for */
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_IDLE);
  g_assert_cmpint (state (&f, 2), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-3 -21 3 0 0 4 2 8 6 1 0", 3);            /* from P0 but tag 6 */
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_IDLE);
  put (&f, "-4 -21 3.5 0 0 0", 3.5);
  g_assert_cmpint (state (&f, 0), ==, VIPER_PICL_BUSY);
  viper_damage_clear (f.m->damage);
  g_assert_true (put (&f, "-3 -21 4 0 0 4 2 8 7 1 0", 4));
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_COMMUNICATING);
  g_assert_true (viper_damage_contains (f.m->damage, VIPER_AREA_MODULE, 1, 0));
  g_assert_true (viper_damage_contains (f.m->damage, VIPER_AREA_LINK, 0, 1));
  g_assert_true (put (&f, "-4 -52 5 1 0 4 2 8 7 0 0", 5));
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_BUSY);
  g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 1);
  g_assert_cmpuint (viper_picl_model_unreceived (f.m), ==, 2);
  g_assert_cmpuint (viper_picl_model_sent (f.m, 0), ==, 2);
  g_assert_cmpuint (viper_picl_model_received (f.m, 1), ==, 1);

  /* history: P1 idle at 1, communicating at 4, busy at 5; the arrow 4 -> 5;
   * the two messages still underway (2 -> P1 tag 7, 3 -> P1 tag 6) have no
   * end yet (t1 NaN: the space-time view draws them dashed to the clock),
   * and the history keeps them open */
  gboolean arrow = FALSE, idle = FALSE, comm = FALSE;
  guint underway = 0;
  for (guint i = 0; i < f.m->history->len; i++)
    {
      const ViperHistoryEntry *e = &g_array_index (f.m->history, ViperHistoryEntry, i);
      if (e->state == VIPER_PICL_ARROW_MESSAGE && isnan (e->t1))
        underway++;
      else if (e->state == VIPER_PICL_ARROW_MESSAGE)
        {
          g_assert_cmpint (e->module, ==, 0);
          g_assert_cmpint (e->other, ==, 1);
          g_assert_cmpfloat (e->t0, ==, 4);
          g_assert_cmpfloat (e->t1, ==, 5);
          arrow = TRUE;
        }
      else if (e->module == 1 && e->state == VIPER_PICL_IDLE)
        idle = e->t0 == 1;
      else if (e->module == 1 && e->state == VIPER_PICL_COMMUNICATING)
        comm = e->t0 == 4;
    }
  g_assert_true (arrow && idle && comm);
  g_assert_cmpuint (underway, ==, 2);
  guint open = 0;
  for (gint64 p = 0; p <= 2; p++)
    {
      const ViperHistoryModule *h = viper_model_history_module (f.m, p);
      open += h ? h->open->len : 0;
    }
  g_assert_cmpuint (open, >=, 2);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  fix_clear (&f);
}

/* A receive whose message was already sent is communicating at once; any
 * source (-1) takes a message from anyone. */
static void
test_already_sent_and_any_source (void)
{
  Fix f;
  fix_init (&f);
  put (&f, "-3 -21 1 0 0 4 2 8 3 1 0", 1);
  put (&f, "-4 -21 1.1 0 0 0", 1.1);
  put (&f, "-3 -52 2 1 0 3 2 3 -1 0", 2);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -52 2.5 1 0 4 2 8 3 0 0", 2.5);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_BUSY);
  /* nothing left for P1: an any-source receive waits */
  put (&f, "-3 -52 3 1 0 3 2 3 -1 0", 3);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_IDLE);
  put (&f, "-3 -21 4 2 0 4 2 8 3 1 0", 4);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -52 4.5 1 0 4 2 8 3 2 0", 4.5);
  g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 2);
  g_assert_cmpuint (viper_picl_model_unreceived (f.m), ==, 0);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  fix_clear (&f);
}

/* Non-blocking receive: the post says what the wait waits for. */
static void
test_nonblocking_receive (void)
{
  Fix f;
  fix_init (&f);
  put (&f, "-3 -57 1 1 0 3 2 5 2 0", 1);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -57 1.1 1 0 1 2 9", 1.1);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_BUSY);
  put (&f, "-3 -27 1.5 0 0 4 2 8 5 1 0", 1.5);         /* P0 -> P1 tag 5: not from 2 */
  put (&f, "-4 -27 1.6 0 0 1 2 1", 1.6);
  put (&f, "-3 -61 2 1 0 1 2 9", 2);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_IDLE);
  put (&f, "-3 -21 3 2 0 4 2 8 5 1 0", 3);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -61 4 1 0 4 2 8 5 2 0", 4);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_BUSY);
  /* a send wait and a barrier are communication */
  put (&f, "-3 -31 2 0 0 1 2 1", 2);
  g_assert_cmpint (state (&f, 0), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -31 2.1 0 0 0", 2.1);
  /* a barrier over every processor (-1) waits while they are not all
   * known (the input has not ended), then for P0's and P2's begins */
  put (&f, "-3 -402 5 1 0 1 2 -1", 5);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_IDLE);
  gint64 all[] = { 0, 1, 2 };
  GArray *procs = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_append_vals (procs, all, 3);
  viper_model_set_modules (f.m, procs);
  g_array_unref (procs);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_IDLE);
  put (&f, "-3 -402 5.2 0 0 1 2 -1", 5.2);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_IDLE);
  put (&f, "-4 -21 5.3 2 0 0", 5.3);                    /* P2's send of 3 ends */
  put (&f, "-3 -402 5.4 2 0 1 2 -1", 5.4);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -402 5.5 0 0 0", 5.5);
  put (&f, "-4 -402 5.5 2 0 0", 5.5);
  put (&f, "-4 -402 6 1 0 0", 6);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_BUSY);
  /* a wait for a request never posted takes any message: P0's tag 5 is there */
  put (&f, "-3 -61 7 1 0 1 2 77", 7);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -61 8 1 0 4 2 8 5 0 0", 8);
  g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 2);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  /* trace messages and subset definitions change nothing visible */
  g_assert_false (put (&f, "-3 -911 9 1 0 2 \"%d %s\" 2 hi", 9));
  g_assert_false (put (&f, "-202 -812 0 -1 -1 3 2 1 0 1", 0));
  g_assert_cmpuint (viper_picl_model_n_subsets (f.m), ==, 1);
  g_assert_cmpuint (viper_picl_model_n_procs (f.m), ==, 3);
  fix_clear (&f);
}

static void
test_inconsistencies (void)
{
  Fix f;
  fix_init (&f);
  /* a receive end with no send applied before it */
  put (&f, "-3 -52 1 1 0 3 2 7 0 0", 1);
  put (&f, "-4 -52 2 1 0 4 2 8 7 0 0", 2);
  g_assert_cmpuint (f.m->inconsistent, ==, 1);
  g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 0);
  g_assert_cmpint (state (&f, 1), ==, VIPER_PICL_BUSY);
  /* an end without its begin, a begin inside another call */
  put (&f, "-4 -21 3 0 0 0", 3);
  g_assert_cmpuint (f.m->inconsistent, ==, 2);
  put (&f, "-3 -21 4 0 0 4 2 8 7 1 0", 4);
  put (&f, "-3 -31 5 0 0 1 2 1", 5);
  g_assert_cmpuint (f.m->inconsistent, ==, 3);
  /* receiving the same message twice: the second has nothing to pair with */
  put (&f, "-3 -52 6 1 0 3 2 7 0 0", 6);
  put (&f, "-4 -52 7 1 0 4 2 8 7 0 0", 7);
  put (&f, "-3 -52 8 1 0 3 2 7 0 0", 8);
  put (&f, "-4 -52 9 1 0 4 2 8 7 0 0", 9);
  g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 1);
  g_assert_cmpuint (f.m->inconsistent, ==, 4);
  fix_clear (&f);
}

/* Many channels and requests: the tables grow, entries are removed, FIFO
 * order per channel holds. */
static void
test_many_channels (void)
{
  Fix f;
  fix_init (&f);
  char line[128];
  double t = 0;
  for (int round = 0; round < 3; round++)
    for (int src = 0; src < 20; src++)
      for (int tag = 0; tag < 10; tag++)
        {
          g_snprintf (line, sizeof line, "-3 -21 %g %d 0 4 2 %d %d 20 0", t, src, round, tag);
          put (&f, line, t);
          g_snprintf (line, sizeof line, "-4 -21 %g %d 0 0", t, src);
          put (&f, line, t);
          t += 1;
        }
  g_assert_cmpuint (viper_picl_model_unreceived (f.m), ==, 600);
  /* P20 receives channel by channel; the k-th receive gets the k-th send (BYTES = round) */
  guint checked = 0;
  for (int src = 19; src >= 0; src--)
    for (int tag = 9; tag >= 0; tag--)
      for (int round = 0; round < 3; round++)
        {
          g_snprintf (line, sizeof line, "-3 -57 %g 20 0 3 2 %d %d 0", t, tag, src);
          put (&f, line, t);
          g_snprintf (line, sizeof line, "-4 -57 %g 20 0 1 2 %d", t, 1000 + src * 10 + tag);
          put (&f, line, t);
          g_snprintf (line, sizeof line, "-3 -61 %g 20 0 1 2 %d", t, 1000 + src * 10 + tag);
          put (&f, line, t);
          g_assert_cmpint (state (&f, 20), ==, VIPER_PICL_COMMUNICATING);
          g_snprintf (line, sizeof line, "-4 -61 %g 20 0 4 2 %d %d %d 0", t + 0.5, round, tag, src);
          put (&f, line, t + 0.5);
          /* the arrow written at the send arrives now, then P20 goes back to busy */
          guint last = f.m->history->len - 1;
          g_assert_cmpint (g_array_index (f.m->history, ViperHistoryEntry, last).state, ==, VIPER_PICL_BUSY);
          const ViperHistoryEntry *e = NULL;
          for (guint k = 0; k < f.m->history->len && !e; k++)
            {
              const ViperHistoryEntry *x = &g_array_index (f.m->history, ViperHistoryEntry, k);
              if (x->state == VIPER_PICL_ARROW_MESSAGE && x->t0 == round * 200 + src * 10 + tag)
                e = x;
            }
          g_assert_nonnull (e);
          g_assert_cmpint (e->module, ==, src);
          g_assert_cmpfloat (e->t1, ==, t + 0.5);
          checked++;
          t += 1;
        }
  g_assert_cmpuint (checked, ==, 600);
  g_assert_cmpuint (viper_picl_model_unreceived (f.m), ==, 0);
  g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 600);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  /* all drained: a new receive waits */
  put (&f, "-3 -52 9999 20 0 3 2 -1 -1 0", 9999);
  g_assert_cmpint (state (&f, 20), ==, VIPER_PICL_IDLE);
  fix_clear (&f);
}

/* Processor ids around and far past the model's direct lookup table (ids
 * below 65536) pair their messages and keep their states, also after a
 * checkpoint is restored over a model that had seen other processors. */
static void
test_large_ids (void)
{
  Fix f;
  fix_init (&f);
  const gint64 ids[] = { 0, 65535, 65536, G_GINT64_CONSTANT (1) << 40 };
  char line[160];
  double t = 1;
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_snprintf (line, sizeof line, "-3 -901 %g %" G_GINT64_FORMAT " 0 0", t, ids[i]);
      put (&f, line, t);
    }
  ViperModelCkpt *ck = viper_model_checkpoint (f.m);
  g_assert_nonnull (ck);
  for (int pass = 0; pass < 2; pass++)
    {
      /* each sends to the next; the next posts its receive first, so it idles */
      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        {
          gint64 to = ids[(i + 1) % G_N_ELEMENTS (ids)], from = ids[i];
          t += 1;
          g_snprintf (line, sizeof line, "-3 -52 %g %" G_GINT64_FORMAT " 0 3 2 7 %" G_GINT64_FORMAT " 0", t, to, from);
          put (&f, line, t);
          g_assert_cmpint (state (&f, to), ==, VIPER_PICL_IDLE);
          g_snprintf (line, sizeof line, "-3 -21 %g %" G_GINT64_FORMAT " 0 4 2 8 7 %" G_GINT64_FORMAT " 0", t, from, to);
          put (&f, line, t);
          g_assert_cmpint (state (&f, to), ==, VIPER_PICL_COMMUNICATING);
          g_snprintf (line, sizeof line, "-4 -21 %g %" G_GINT64_FORMAT " 0 0", t, from);
          put (&f, line, t);
          g_snprintf (line, sizeof line, "-4 -52 %g %" G_GINT64_FORMAT " 0 4 2 8 7 %" G_GINT64_FORMAT " 0", t + 0.5, to, from);
          put (&f, line, t + 0.5);
          g_assert_cmpint (state (&f, to), ==, VIPER_PICL_BUSY);
        }
      g_assert_cmpuint (viper_picl_model_messages (f.m), ==, G_N_ELEMENTS (ids));
      g_assert_cmpuint (viper_picl_model_unreceived (f.m), ==, 0);
      g_assert_cmpuint (f.m->inconsistent, ==, 0);
      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        g_assert_true (viper_picl_model_tracing (f.m, ids[i]));
      /* a processor the checkpoint has not seen, then back to the checkpoint */
      put (&f, "-3 -901 100 12 0 0", 100);
      g_assert_true (viper_picl_model_tracing (f.m, 12));
      g_assert_true (viper_model_restore (f.m, ck));
      g_assert_false (viper_picl_model_tracing (f.m, 12));
      g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 0);
      t = 1;
    }
  viper_model_ckpt_free (ck);
  fix_clear (&f);
}

/* The state changes of a processor in its history, "T:state T:state ...". */
static char *
states_of (const ViperModel *m, gint64 proc)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < m->history->len; i++)
    {
      const ViperHistoryEntry *e = &g_array_index (m->history, ViperHistoryEntry, i);
      if (e->other >= 0 || e->module != proc)
        continue;
      g_string_append_printf (s, "%s%g:%s", s->len ? " " : "", e->t0, viper_picl_state_name ((ViperPiclState) e->state));
    }
  return g_string_free (s, FALSE);
}

static void
assert_states (const ViperModel *m, gint64 proc, const char *want)
{
  char *got = states_of (m, proc);
  g_assert_cmpstr (got, ==, want);
  g_free (got);
}

/* coNCePTuaL writes MPI_Waitall as waits that begin together and end
 * together (issue 10 item 9): P0 waits from 30 for a receive and a send;
 * the message it receives is sent at 45.  Each end closes its own wait,
 * nothing is inconsistent, and P0 is idle 30-45, communicating 45-50. */
static void
test_overlapping_waits (void)
{
  Fix f;
  fix_init (&f);
  put (&f, "-3 -901 0 0 0 0", 0);
  put (&f, "-3 -901 0 1 0 0", 0);
  put (&f, "-3 -57 10 0 0 3 2 1 1 0", 10);
  put (&f, "-4 -57 11 0 0 1 2 0", 11);
  put (&f, "-3 -27 20 0 0 4 2 64 1 1 0", 20);
  put (&f, "-4 -27 21 0 0 1 2 1", 21);
  put (&f, "-3 -61 30 0 0 1 2 0", 30);
  put (&f, "-3 -31 30 0 0 1 2 1", 30);
  g_assert_cmpint (state (&f, 0), ==, VIPER_PICL_IDLE);
  put (&f, "-3 -52 40 1 0 3 2 1 0 0", 40);
  put (&f, "-4 -52 41 1 0 4 2 64 1 0 0", 41);
  put (&f, "-3 -21 45 1 0 4 2 64 1 0 0", 45);
  g_assert_cmpint (state (&f, 0), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -21 46 1 0 0", 46);
  put (&f, "-4 -61 50 0 0 4 2 64 1 1 0", 50);
  put (&f, "-4 -31 50 0 0 0", 50);
  g_assert_cmpint (state (&f, 0), ==, VIPER_PICL_BUSY);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 2);
  /* busy from its first tram (tracing on at 0), before its first call */
  assert_states (f.m, 0, "0:busy 10:communicating 11:busy 20:communicating 21:busy 30:idle 45:communicating 50:busy");
  /* the exports get the same decisions, in time order, when the last wait ends */
  guint n;
  const ViperPiclChange *c = viper_picl_model_changes (f.m, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (c[0].time, ==, 30);
  g_assert_cmpint (c[0].state, ==, VIPER_PICL_IDLE);
  g_assert_cmpfloat (c[1].time, ==, 45);
  g_assert_cmpfloat (c[2].time, ==, 50);
  /* waits still do not nest in anything else */
  put (&f, "-3 -61 60 0 0 1 2 7", 60);
  put (&f, "-3 -21 61 0 0 4 2 64 1 1 0", 61);
  g_assert_cmpuint (f.m->inconsistent, ==, 1);
  fix_clear (&f);
}

/* A state is decided from adjusted times, not from the order in which the
 * send and the receive were applied (issue 10 item 10): the same trams in
 * two valid run orders give the same history. */
static void
test_state_from_adjusted_times (void)
{
  static const char *const lines[][2] = {
    { "-3 -52 10 1 0 3 2 7 0 0", "10" },
    { "-3 -21 20 0 0 4 2 8 7 1 0", "20" },
    { "-4 -21 21 0 0 0", "21" },
    { "-4 -52 25 1 0 4 2 8 7 0 0", "25" },
  };
  static const guint orders[][4] = { { 0, 1, 2, 3 }, { 1, 2, 0, 3 }, { 1, 0, 2, 3 } };
  for (guint o = 0; o < G_N_ELEMENTS (orders); o++)
    {
      Fix f;
      fix_init (&f);
      for (guint k = 0; k < 4; k++)
        put (&f, lines[orders[o][k]][0], g_ascii_strtod (lines[orders[o][k]][1], NULL));
      assert_states (f.m, 1, "10:idle 20:communicating 25:busy");
      assert_states (f.m, 0, "20:communicating 21:busy");
      g_assert_cmpuint (f.m->inconsistent, ==, 0);
      fix_clear (&f);
    }
}

/* Collectives by shape (issue 10 item 14): idle inside until the begins
 * the end depends on; subsets defined more than once, identically, are
 * fine; a conflicting definition is not. */
static void
test_collective_states (void)
{
  Fix f;
  fix_init (&f);
  put (&f, "-202 -812 0 -1 -1 4 2 5 2 0 1", 0);
  put (&f, "-202 -812 0 -1 -1 4 2 5 2 0 1", 0);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  /* allreduce over all three: everyone idle until P2 begins at 5 */
  put (&f, "-3 -782 1 0 0 2 2 8 5", 1);
  put (&f, "-3 -782 2 1 0 2 2 8 5", 2);
  g_assert_cmpint (state (&f, 0), ==, VIPER_PICL_IDLE);
  put (&f, "-3 -782 5 2 0 2 2 8 5", 5);
  g_assert_cmpint (state (&f, 0), ==, VIPER_PICL_COMMUNICATING);
  put (&f, "-4 -782 6 0 0 1 2 5", 6);
  put (&f, "-4 -782 6 1 0 1 2 5", 6);
  put (&f, "-4 -782 6 2 0 1 2 5", 6);
  assert_states (f.m, 0, "1:idle 5:communicating 6:busy");
  assert_states (f.m, 2, "5:communicating 6:busy");
  /* broadcast from P1: P0 waits for P1's begin at 12, P2 began after it */
  put (&f, "-3 -785 10 0 0 3 2 8 1 5", 10);
  put (&f, "-3 -785 12 1 0 3 2 8 1 5", 12);
  put (&f, "-3 -785 13 2 0 3 2 8 1 5", 13);
  put (&f, "-4 -785 14 0 0 1 2 8", 14);
  put (&f, "-4 -785 14 1 0 1 2 8", 14);
  put (&f, "-4 -785 14 2 0 1 2 8", 14);
  assert_states (f.m, 0, "1:idle 5:communicating 6:busy 10:idle 12:communicating 14:busy");
  assert_states (f.m, 1, "2:idle 5:communicating 6:busy 12:communicating 14:busy");
  /* reduce to P2: only the root waits (for P0 at 22); non-roots end with -1 */
  put (&f, "-3 -790 20 2 0 3 2 8 2 5", 20);
  put (&f, "-3 -790 21 1 0 3 2 8 2 5", 21);
  put (&f, "-4 -790 21.5 1 0 1 2 -1", 21.5);
  put (&f, "-3 -790 22 0 0 3 2 8 2 5", 22);
  put (&f, "-4 -790 22.5 0 0 1 2 -1", 22.5);
  put (&f, "-4 -790 23 2 0 1 2 8", 23);
  assert_states (f.m, 2, "5:communicating 6:busy 13:communicating 14:busy 20:idle 22:communicating 23:busy");
  assert_states (f.m, 1, "2:idle 5:communicating 6:busy 12:communicating 14:busy 21:communicating 21.5:busy");
  /* scan in the subset's order 2, 0, 1: P0 waits for P2 only */
  put (&f, "-3 -792 30 0 0 2 2 8 5", 30);
  put (&f, "-3 -792 31 1 0 2 2 8 5", 31);
  put (&f, "-3 -792 33 2 0 2 2 8 5", 33);
  put (&f, "-4 -792 34 0 0 1 2 8", 34);
  put (&f, "-4 -792 34 1 0 1 2 8", 34);
  put (&f, "-4 -792 34 2 0 1 2 8", 34);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  g_assert_cmpstr (viper_model_program_state (f.m), ==, "running");
  /* a barrier without SUBSET is over all; an end before a begin it needs is inconsistent */
  put (&f, "-3 -402 40 0 0 0", 40);
  put (&f, "-4 -402 41 0 0 0", 41);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);  /* over -1 the model cannot know who is missing */
  put (&f, "-3 -785 50 0 0 3 2 8 1 5", 50);
  put (&f, "-4 -785 51 0 0 1 2 8", 51);
  g_assert_cmpuint (f.m->inconsistent, ==, 1);
  /* a conflicting redefinition is reported */
  put (&f, "-202 -812 0 -1 -1 3 2 5 0 1", 0);
  g_assert_cmpuint (f.m->inconsistent, ==, 2);
  /* clock samples change nothing */
  g_assert_false (put (&f, "-6 -951 60 0 0 4 2 1 100 200 300", 60));
  fix_clear (&f);
}

/* Fresh tags every message: the channel tables hold what is underway, not
 * every channel ever used (issue 10 item 20). */
static void
test_unique_tags_bounded (void)
{
  Fix f;
  fix_init (&f);
  char line[128];
  for (int i = 0; i < 100000; i++)
    {
      g_snprintf (line, sizeof line, "-3 -21 %d 0 0 4 2 8 %d 1 0", i, i);
      put (&f, line, i);
      g_snprintf (line, sizeof line, "-4 -21 %d 0 0 0", i);
      put (&f, line, i);
      g_snprintf (line, sizeof line, "-3 -52 %d 1 0 3 2 %d 0 0", i, i);
      put (&f, line, i);
      g_snprintf (line, sizeof line, "-4 -52 %d 1 0 4 2 8 %d 0 0", i, i);
      put (&f, line, i);
    }
  g_assert_cmpuint (viper_picl_model_messages (f.m), ==, 100000);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  /* 3 tags' worth: a few kilobytes, where one slot per channel ever seen took megabytes */
  g_assert_cmpuint (viper_picl_model_table_bytes (f.m), <, 64 * 1024);
  fix_clear (&f);
}

/* The program is not "terminated" whenever every processor seen so far has
 * stopped (issue 10 item 11): P0's lines all come first, and it has sent
 * a message nobody has received yet. */
static void
test_program_state_grouped (void)
{
  Harness h;
  harness_init (&h, 1.0);
  static const char *const lines[] = {
    "-3 -901 0 0 0 0", "-3 -21 1 0 0 4 2 8 7 1 0", "-4 -21 2 0 0 0", "-4 -901 3 0 0 0",
    "-3 -901 0 1 0 0", "-3 -52 1 1 0 3 2 7 0 0", "-4 -52 2 1 0 4 2 8 7 0 0", "-4 -901 4 1 0 0",
  };
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      harness_feed (&h, lines[i]);
      if (i + 1 < G_N_ELEMENTS (lines))
        g_assert_cmpstr (viper_model_program_state (h.model), ==, "running");
    }
  g_assert_cmpstr (viper_model_program_state (h.model), ==, "terminated");
  g_assert_cmpfloat (viper_picl_model_last_stop (h.model), ==, 4);
  harness_clear (&h);
}

/* The --state-out fields, through a real run. */
static void
test_state_json (void)
{
  Harness h;
  harness_init (&h, 1.0);
  static const char *const lines[] = {
    "-3 -901 0 1 0 0",
    "-3 -52 1 1 0 3 2 7 0 0",
    "-3 -901 0 0 0 0",
    "-3 -21 4 0 0 4 2 8 7 1 0",
    "-4 -21 4.5 0 0 0",
    "-4 -52 2 1 0 4 2 8 7 0 0",        /* stamped before the send: lifted to 4 */
    "-4 -901 5 0 0 0",
  };
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    harness_feed (&h, lines[i]);
  GString *s = g_string_new (NULL);
  ViperJson j;
  viper_json_init (&j, s, FALSE);
  viper_json_begin_object (&j);
  h.model->klass->write_top (h.model, &j);
  viper_json_key (&j, "modules");
  viper_json_begin_array (&j);
  h.model->klass->write_modules (h.model, h.run, &j);
  viper_json_end_array (&j);
  viper_json_end_object (&j);
  g_assert_cmpstr (s->str, ==,
                   "{\"messages\":1,\"modules\":["
                   "{\"id\":0,\"name\":\"P0\",\"state\":\"busy\",\"tracing\":false,\"sent\":1,\"received\":0,\"offset\":0},"
                   "{\"id\":1,\"name\":\"P1\",\"state\":\"busy\",\"tracing\":true,\"sent\":0,\"received\":1,\"offset\":2}"
                   "]}");
  g_assert_cmpstr (viper_model_program_state (h.model), ==, "running");
  g_string_free (s, TRUE);
  harness_clear (&h);
}

/* An empty subset (N = 1, no member) defined twice (fuzz-replay): the
 * repeat compared the members with memcmp on the empty array's NULL data,
 * undefined behaviour (UBSan stops the ASan build here before the fix).
 * Identical repeats, empty ones too, are accepted silently; a member
 * added is a conflict. */
static void
test_empty_subset_twice (void)
{
  Fix f;
  fix_init (&f);
  put (&f, "-202 -812 0 -1 -1 1 2 5", 0);
  put (&f, "-202 -812 0 -1 -1 1 2 5", 0);
  g_assert_cmpuint (f.m->inconsistent, ==, 0);
  put (&f, "-202 -812 0 -1 -1 2 2 5 0", 0);
  g_assert_cmpuint (f.m->inconsistent, ==, 1);
  fix_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/picl/model/program-state", test_program_state);
  g_test_add_func ("/picl/model/idle-until-sent", test_idle_until_sent);
  g_test_add_func ("/picl/model/already-sent-any-source", test_already_sent_and_any_source);
  g_test_add_func ("/picl/model/nonblocking-receive", test_nonblocking_receive);
  g_test_add_func ("/picl/model/inconsistencies", test_inconsistencies);
  g_test_add_func ("/picl/model/many-channels", test_many_channels);
  g_test_add_func ("/picl/model/large-ids", test_large_ids);
  g_test_add_func ("/picl/model/state-json", test_state_json);
  g_test_add_func ("/picl/model/overlapping-waits", test_overlapping_waits);
  g_test_add_func ("/picl/model/state-from-adjusted-times", test_state_from_adjusted_times);
  g_test_add_func ("/picl/model/collective-states", test_collective_states);
  g_test_add_func ("/picl/model/empty-subset-twice", test_empty_subset_twice);
  g_test_add_func ("/picl/model/unique-tags-bounded", test_unique_tags_bounded);
  g_test_add_func ("/picl/model/program-state-grouped", test_program_state_grouped);
  return g_test_run ();
}
