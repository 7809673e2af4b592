/* test-macrame-model.c - the Macrame paradigm in-process: bad input decided
 * before transfer, every transition rule of spec section 1, the --state-out
 * fields of section 3, the history, and a view setup switch mid-replay.
 *
 * Each test builds a tiny testbed from a view setup text (switches 0 and 1,
 * nodes 2 and 3, MAXRATE 100), feeds tram lines one at a time to a real run
 * and model, and inspects the state through the model's accessors and the
 * state document.
 */
#include <string.h>
#include "core/run.h"
#include "core/stateout.h"
#include "core/tramparse.h"
#include "paradigms/paradigms.h"
#include "paradigms/macrame/macrame.h"
#include "paradigms/macrame/macrame-sim-lib.h"

#define SMALL_SETUP \
  "paradigm macrame\nmaxrate 100\n" \
  "module 0 switch 0 0 80 40 S0\nmodule 1 switch 100 0 80 40 S1\n" \
  "module 2 node 0 100 20 30\nmodule 3 node 40 100 20 30\n"

typedef struct {
  ViperTramPool *pool;
  ViperTramFields *fields;
  ViperChannels *channels;
  guint32 channel;
  ViperDiag diag;
  ViperViewSetup *vs;
  ViperModel *model;
  ViperRun *run;
  guint64 lineno;
  GPtrArray *bad;           /* messages of rejected lines */
  GPtrArray *warnings;      /* inconsistency reports */
} Fx;

static void
sink (ViperDiagKind kind, const char *msg, gpointer data)
{
  Fx *fx = data;
  if (kind == VIPER_DIAG_BAD_INPUT)
    g_ptr_array_add (fx->bad, g_strdup (msg));
  else if (kind == VIPER_DIAG_WARNING)
    g_ptr_array_add (fx->warnings, g_strdup (msg));
}

static void
fx_init (Fx *fx, const char *setup_text)
{
  memset (fx, 0, sizeof *fx);
  viper_paradigms_register_all ();
  g_assert_true (viper_paradigm_lookup ("macrame") == &viper_macrame_paradigm);
  fx->pool = viper_tram_pool_new ();
  fx->fields = viper_tram_fields_new ();
  fx->channels = viper_channels_new ();
  fx->channel = viper_channels_add (fx->channels, "t.trc");
  fx->bad = g_ptr_array_new_with_free_func (g_free);
  fx->warnings = g_ptr_array_new_with_free_func (g_free);
  viper_diag_init (&fx->diag, sink, fx);
  GError *error = NULL;
  fx->vs = viper_view_setup_parse (setup_text, strlen (setup_text), "small.view", &error);
  g_assert_no_error (error);
  fx->model = viper_macrame_paradigm.model_new (&viper_macrame_paradigm, (ViperSetup *) fx->vs);
  fx->model->diag = &fx->diag;
  viper_model_set_history (fx->model, 0);
  fx->run = viper_run_new (&viper_macrame_paradigm, fx->model, fx->pool, fx->channels, &fx->diag, 0.5);
}

static void
fx_clear (Fx *fx)
{
  viper_run_free (fx->run);
  g_assert_cmpuint (viper_tram_pool_live (fx->pool), ==, 0);
  viper_model_free (fx->model);
  viper_view_setup_free (fx->vs);
  viper_tram_pool_free (fx->pool);
  viper_tram_fields_free (fx->fields);
  viper_channels_free (fx->channels);
  viper_diag_clear (&fx->diag);
  g_ptr_array_unref (fx->bad);
  g_ptr_array_unref (fx->warnings);
}

/* Feed one line; returns whether the run accepted it. */
static gboolean
feed (Fx *fx, const char *line)
{
  ViperLineKind kind;
  ViperParseError err;
  fx->lineno++;
  ViperTram *t = viper_tram_parse (fx->pool, fx->fields, line, strlen (line), &kind, &err);
  if (!t)
    {
      g_assert_cmpint (kind, ==, VIPER_LINE_BAD);
      viper_diag_bad (&fx->diag, "t.trc", fx->lineno, err.column, "%s", err.reason);
      viper_run_count_rejected (fx->run, 1);
      return FALSE;
    }
  t->line = (guint32) fx->lineno;
  t->channel = fx->channel;
  gboolean ok = viper_run_insert (fx->run, t);
  const ViperTram *out;
  while ((out = viper_run_transfer_next (fx->run)))
    viper_model_apply (fx->model, out);
  return ok;
}

static MacrameDevice
dev (Fx *fx, gint64 id)
{
  MacrameDevice d;
  macrame_model_device (fx->model, id, &d);
  return d;
}

static guint64
inconsistent (Fx *fx)
{
  return fx->model->inconsistent;
}

static void
test_setup_states (void)
{
  Fx fx;
  fx_init (&fx, SMALL_SETUP);
  MacrameDevice d = dev (&fx, 2);
  g_assert_false (d.alive);
  g_assert_false (d.used);
  g_assert_cmpint (d.kind, ==, MACRAME_KIND_NODE);
  g_assert_cmpint (d.tx_state, ==, MACRAME_UNDEFINED);
  g_assert_cmpint (dev (&fx, 0).kind, ==, MACRAME_KIND_SWITCH);
  g_assert_cmpint (dev (&fx, 0).state, ==, MACRAME_UNDEFINED);
  g_assert_cmpint (macrame_device_setup_class (&d), ==, MACRAME_SETUP_NONE);
  g_assert_true (feed (&fx, "2 31 1.0 2 0 1 2 1"));
  d = dev (&fx, 2);
  g_assert_false (d.alive);
  g_assert_true (d.used);
  g_assert_cmpint (macrame_device_setup_class (&d), ==, MACRAME_SETUP_USED_NOT_ALIVE);
  g_assert_true (feed (&fx, "2 30 2.0 2 0 1 2 2"));
  d = dev (&fx, 2);
  g_assert_true (d.alive && d.used);
  g_assert_cmpint (macrame_device_setup_class (&d), ==, MACRAME_SETUP_READY_UNDEFINED);
  g_assert_true (feed (&fx, "2 30 2.0 3 0 1 2 1"));
  d = dev (&fx, 3);
  g_assert_cmpint (macrame_device_setup_class (&d), ==, MACRAME_SETUP_ALIVE_NOT_USED);
  g_assert_true (feed (&fx, "2 32 3.0 2 0 5 2 3 1 40 0 10"));
  d = dev (&fx, 2);
  g_assert_cmpint (macrame_device_setup_class (&d), ==, MACRAME_SETUP_READY);
  g_assert_cmpint (d.tx_state, ==, MACRAME_COMMUNICATING);
  g_assert_cmpint (d.tx_rate, ==, 40);
  g_assert_cmpint (d.rx_state, ==, MACRAME_IDLE);
  g_assert_cmpint (d.rx_rate, ==, 10);
  g_assert_cmpuint (inconsistent (&fx), ==, 0);
  g_assert_true (viper_damage_contains (fx.model->damage, VIPER_AREA_MODULE, 2, 0));
  g_assert_true (viper_damage_contains (fx.model->damage, VIPER_AREA_MODULE, 3, 0));
  g_assert_false (viper_damage_contains (fx.model->damage, VIPER_AREA_MODULE, 0, 0));
  fx_clear (&fx);
}

/* Rules of section 1, one line each: the line, whether it is inconsistent,
 * and the state it leaves (tx, txrate, rx, rxrate for node 2; state for switch 0). */
static void
test_transitions (void)
{
  Fx fx;
  fx_init (&fx, SMALL_SETUP);
  struct {
    const char *line;
    gboolean bad_rule;
    gint tx, txr, rx, rxr, sw;
    const char *why;
  } steps[] = {
    { "2 32 1 2 0 5 2 1 3 90 1 5", FALSE, 3, 90, 1, 5, 5, NULL },                 /* undefined -> overflow: free */
    { "2 32 2 2 0 5 2 2 3 95 1 5", FALSE, 3, 95, 1, 5, 5, NULL },                 /* overflow stays */
    { "2 32 3 2 0 5 2 3 0 0 1 5", TRUE, 0, 0, 1, 5, 5, "transmitter overflow -> idle/ok" },
    { "2 32 4 2 0 5 2 4 3 99 0 0", FALSE, 3, 99, 0, 0, 5, NULL },
    { "2 32 5 2 0 5 2 5 4 0 0 0", FALSE, 4, 0, 0, 0, 5, NULL },                   /* overflow -> error */
    { "2 32 6 2 0 5 2 6 0 0 0 0", FALSE, 0, 0, 0, 0, 5, NULL },                   /* error left: repaired */
    { "2 32 7 2 0 5 2 7 1 10 2 20", TRUE, 1, 10, 2, 20, 5, "receiver congested" },
    { "2 32 8 2 0 5 2 8 1 10 3 20", TRUE, 1, 10, 3, 20, 5, "receiver overflow" },
    { "2 32 9 2 0 5 2 9 1 10 4 0", FALSE, 1, 10, 4, 0, 5, NULL },                 /* receiver error: allowed */
    { "2 32 10 2 0 5 2 10 1 101 1 -3", TRUE, 1, 100, 1, 0, 5, "rate 101 outside 0..100 (clamped)" },
    { "2 32 11 2 0 5 2 11 5 0 5 0", FALSE, 5, 0, 5, 0, 5, NULL },                 /* back to undefined */
    { "2 33 12 2 0 2 2 12 4", TRUE, 5, 0, 5, 0, 5, "Switch_changed from node 2 (state ignored)" },
    { "2 33 1 0 0 2 2 1 3", FALSE, 5, 0, 5, 0, 3, NULL },
    { "2 33 2 0 0 2 2 2 3", FALSE, 5, 0, 5, 0, 3, NULL },
    { "2 33 3 0 0 2 2 3 1", TRUE, 5, 0, 5, 0, 1, "switch overflow -> communicating" },
    { "2 33 4 0 0 2 2 4 3", FALSE, 5, 0, 5, 0, 3, NULL },
    { "2 33 5 0 0 2 2 5 4", FALSE, 5, 0, 5, 0, 4, NULL },
    { "2 33 6 0 0 2 2 6 0", FALSE, 5, 0, 5, 0, 0, NULL },
    { "2 32 7 0 0 5 2 7 2 50 1 50", TRUE, 5, 0, 5, 0, 0, "Node_changed from switch 0 (state ignored)" },
  };
  guint64 expect_inconsistent = 0;
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      guint warnings = fx.warnings->len;
      g_assert_true (feed (&fx, steps[i].line));
      expect_inconsistent += steps[i].bad_rule;
      g_assert_cmpuint (inconsistent (&fx), ==, expect_inconsistent);
      if (steps[i].why)
        {
          g_assert_cmpuint (fx.warnings->len, ==, warnings + 1);
          const char *msg = g_ptr_array_index (fx.warnings, warnings);
          if (!strstr (msg, steps[i].why))
            g_error ("step %u: warning '%s' lacks '%s'", i, msg, steps[i].why);
        }
      else
        g_assert_cmpuint (fx.warnings->len, ==, warnings);
      MacrameDevice n = dev (&fx, 2), s = dev (&fx, 0);
      if (n.tx_state != steps[i].tx || n.tx_rate != steps[i].txr || n.rx_state != steps[i].rx
          || n.rx_rate != steps[i].rxr || s.state != steps[i].sw)
        g_error ("step %u (%s): node %d/%d %d/%d switch %d", i, steps[i].line, n.tx_state, n.tx_rate, n.rx_state,
                 n.rx_rate, s.state);
    }
  /* a switch's Node_changed leaves its node fields alone too */
  g_assert_cmpint (dev (&fx, 0).tx_state, ==, MACRAME_UNDEFINED);
  /* one tram breaking two rules counts once, both reasons reported */
  guint w = fx.warnings->len;
  g_assert_true (feed (&fx, "2 32 13 2 0 5 2 13 1 200 2 0"));
  g_assert_cmpuint (inconsistent (&fx), ==, expect_inconsistent + 1);
  g_assert_nonnull (strstr (g_ptr_array_index (fx.warnings, w), "receiver congested"));
  g_assert_nonnull (strstr (g_ptr_array_index (fx.warnings, w), "rate 200"));
  ViperCounts c;
  viper_run_counts (fx.run, &c);
  g_assert_cmpuint (c.rejected, ==, 0);
  g_assert_cmpuint (c.transferred, ==, G_N_ELEMENTS (steps) + 1);
  fx_clear (&fx);
}

static void
test_bad_input (void)
{
  Fx fx;
  fx_init (&fx, SMALL_SETUP);
  struct {
    const char *line, *msg;
  } bad[] = {
    { "2 32 1 2 0 4 2 1 1 50 1", "t.trc:1:24: Node_changed needs exactly 5 data fields, has 4" },
    { "2 32 1 2 0 6 2 1 1 50 1 5 9", "t.trc:2:27: Node_changed needs exactly 5 data fields, has 6" },
    { "2 33 1 0 0 3 2 1 1 0", "t.trc:3:20: Switch_changed needs exactly 2 data fields, has 3" },
    { "2 30 1 0 0 2 2 1 7", "t.trc:4:18: Module_found needs exactly 1 data field, has 2" },
    { "2 33 1 0 0 2 2 1 6", "t.trc:5:18: Switch_changed: state 6 is not 0..5" },
    { "2 33 1 0 0 2 2 1 -1", "t.trc:6:18: Switch_changed: state -1 is not 0..5" },
    { "2 32 1 2 0 5 2 1 9 50 1 5", "t.trc:7:18: Node_changed: state 9 is not 0..5" },
    { "2 32 1 2 0 5 2 1 1 50 8 5", "t.trc:8:23: Node_changed: state 8 is not 0..5" },
    { "2 31 1 2 0 1 \"%d\" 1", "t.trc:9:19: Module_used needs integer data (DTYPE 2)" },
    { "2 30 1 2 0 0", "t.trc:10:13: Module_found needs exactly 1 data field, has 0" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (feed (&fx, bad[i].line));
      g_assert_cmpuint (fx.bad->len, ==, i + 1);
      g_assert_cmpstr (g_ptr_array_index (fx.bad, i), ==, bad[i].msg);
    }
  /* each used its sequence number (spec section 1: seq 1 of devices 0 and
   * 2 counts as used), so their modules go on from seq 2 */
  g_assert_true (feed (&fx, "2 30 1 2 0 1 2 2"));
  g_assert_true (feed (&fx, "2 33 1 0 0 2 2 2 4"));
  /* a type Macrame does not know is ignored, passed through, not bad */
  g_assert_true (feed (&fx, "2 40 1 2 0 1 2 3"));
  g_assert_true (feed (&fx, "2 31 1 2 0 1 2 4"));
  ViperCounts c;
  viper_run_counts (fx.run, &c);
  g_assert_cmpuint (c.read, ==, G_N_ELEMENTS (bad) + 4);
  g_assert_cmpuint (c.rejected, ==, G_N_ELEMENTS (bad));
  g_assert_cmpuint (c.transferred, ==, 4);
  g_assert_cmpuint (c.ignored, ==, 1);
  g_assert_cmpuint (c.pending, ==, 0);
  g_assert_true (dev (&fx, 2).alive && dev (&fx, 2).used);
  g_assert_cmpint (dev (&fx, 0).state, ==, MACRAME_ERROR);
  g_assert_cmpuint (inconsistent (&fx), ==, 0);
  fx_clear (&fx);
}

static void
test_state_out (void)
{
  Fx fx;
  fx_init (&fx, SMALL_SETUP);
  g_assert_true (feed (&fx, "2 30 1 0 0 1 2 1"));
  g_assert_true (feed (&fx, "2 33 2 0 0 2 2 2 2"));
  g_assert_true (feed (&fx, "2 32 1 3 0 5 2 1 1 40 0 10"));
  g_assert_true (feed (&fx, "2 31 1 77 0 1 2 1"));
  char *json = viper_state_to_json (fx.run, fx.model, FALSE);
  const char *want =
    "\"modules\":["
    "{\"id\":0,\"name\":\"switch 0\",\"offset\":0,\"kind\":\"switch\",\"alive\":true,\"used\":false,"
    "\"state\":\"congested\"},"
    "{\"id\":1,\"name\":\"switch 1\",\"offset\":0,\"kind\":\"switch\",\"alive\":false,\"used\":false,"
    "\"state\":\"undefined\"},"
    "{\"id\":2,\"name\":\"node 2\",\"offset\":0,\"kind\":\"node\",\"alive\":false,\"used\":false,"
    "\"tx\":{\"state\":\"undefined\",\"rate\":0},"
    "\"rx\":{\"state\":\"undefined\",\"rate\":0}},"
    "{\"id\":3,\"name\":\"node 3\",\"offset\":0,\"kind\":\"node\",\"alive\":false,\"used\":false,"
    "\"tx\":{\"state\":\"communicating\",\"rate\":40},"
    "\"rx\":{\"state\":\"idle/ok\",\"rate\":10}},"
    "{\"id\":77,\"name\":\"unknown 77\",\"offset\":0,\"kind\":\"unknown\",\"alive\":false,\"used\":true,"
    "\"state\":\"undefined\","
    "\"tx\":{\"state\":\"undefined\",\"rate\":0},\"rx\":{\"state\":\"undefined\",\"rate\":0}}"
    "]";
  if (!strstr (json, want))
    g_error ("state document:\n%s\nlacks\n%s", json, want);
  g_assert_nonnull (strstr (json, "\"paradigm\":\"macrame\""));
  g_assert_nonnull (strstr (json, "\"program_state\":\"running\""));
  g_free (json);
  fx_clear (&fx);
}

static void
test_history (void)
{
  Fx fx;
  fx_init (&fx, SMALL_SETUP);
  g_assert_true (feed (&fx, "2 32 10 2 0 5 2 1 1 40 0 10"));
  g_assert_true (feed (&fx, "2 32 20 2 0 5 2 2 1 50 0 10"));     /* same tx state: no entry */
  g_assert_true (feed (&fx, "2 32 30 2 0 5 2 3 2 70 0 10"));
  g_assert_true (feed (&fx, "2 33 40 0 0 2 2 1 1"));             /* switches are not in it */
  g_assert_cmpuint (fx.model->history->len, ==, 2);
  ViperHistoryEntry *e = &g_array_index (fx.model->history, ViperHistoryEntry, 1);
  g_assert_cmpint (e->module, ==, 2);
  g_assert_cmpint (e->state, ==, MACRAME_CONGESTED);
  g_assert_cmpfloat (e->t0, ==, 30);
  fx_clear (&fx);
}

/* Replay the 3x3 trace once with the hardware view throughout, and once with
 * the topology view switched to the hardware view halfway: same clock, same
 * devices, at the switch and at the end. */
static void
test_view_switch (void)
{
  MacrameSimOptions o;
  macrame_sim_options_init (&o);
  o.seed = 11;
  o.malformed = 20;
  MacrameSimResult res = { 0 };
  macrame_sim_run (&o, &res);
  char *topo = macrame_sim_view (3, MACRAME_SIM_VIEW_TOPOLOGY, 100);
  char *hard = macrame_sim_view (3, MACRAME_SIM_VIEW_HARDWARE, 100);
  Fx a, b;
  fx_init (&a, hard);
  fx_init (&b, topo);
  GError *error = NULL;
  ViperViewSetup *hard_vs = viper_view_setup_parse (hard, strlen (hard), "hardware.view", &error);
  g_assert_no_error (error);
  char **lines = g_strsplit (res.trace->str, "\n", -1);
  guint n = g_strv_length (lines), half = n / 2;
  for (guint i = 0; i < n; i++)
    {
      if (!lines[i][0] || lines[i][0] == '#')
        continue;
      if (i == half)
        {
          double clock = b.model->clock;
          GArray *before = macrame_model_ids (b.model);
          GArray *devs = g_array_new (FALSE, FALSE, sizeof (MacrameDevice));
          for (guint k = 0; k < before->len; k++)
            {
              MacrameDevice d = dev (&b, g_array_index (before, gint64, k));
              g_array_append_val (devs, d);
            }
          macrame_model_set_view_setup (b.model, hard_vs);
          g_assert_cmpfloat (b.model->clock, ==, clock);
          g_assert_true (viper_damage_contains (b.model->damage, VIPER_AREA_ALL, 0, 0));
          for (guint k = 0; k < devs->len; k++)
            {
              MacrameDevice was = g_array_index (devs, MacrameDevice, k), now = dev (&b, was.id);
              g_assert_cmpmem (&was, sizeof was, &now, sizeof now);
            }
          g_array_unref (devs);
          g_array_unref (before);
        }
      feed (&a, lines[i]);
      feed (&b, lines[i]);
    }
  g_assert_cmpfloat (a.model->clock, ==, b.model->clock);
  g_assert_cmpuint (a.model->inconsistent, ==, b.model->inconsistent);
  GArray *ia = macrame_model_ids (a.model), *ib = macrame_model_ids (b.model);
  g_assert_cmpuint (ia->len, ==, ib->len);
  for (guint k = 0; k < ia->len; k++)
    {
      MacrameDevice x = dev (&a, g_array_index (ia, gint64, k)), y = dev (&b, g_array_index (ib, gint64, k));
      g_assert_cmpmem (&x, sizeof x, &y, sizeof y);
    }
  g_array_unref (ia);
  g_array_unref (ib);
  g_assert_cmpuint (a.model->inconsistent, ==, res.counts.inconsistent);
  g_strfreev (lines);
  fx_clear (&a);
  fx_clear (&b);
  viper_view_setup_free (hard_vs);
  g_free (topo);
  g_free (hard);
  macrame_sim_result_clear (&res);
}

static void
test_reset (void)
{
  Fx fx;
  fx_init (&fx, SMALL_SETUP);
  g_assert_true (feed (&fx, "2 30 1 2 0 1 2 1"));
  g_assert_true (feed (&fx, "2 31 1 99 0 1 2 1"));
  viper_model_reset (fx.model);
  g_assert_false (dev (&fx, 2).alive);
  GArray *ids = macrame_model_ids (fx.model);
  g_assert_cmpuint (ids->len, ==, 4);           /* 99 was heard before the reset only */
  g_array_unref (ids);
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "inactive");
  fx_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/macrame/model/setup-states", test_setup_states);
  g_test_add_func ("/macrame/model/transitions", test_transitions);
  g_test_add_func ("/macrame/model/bad-input", test_bad_input);
  g_test_add_func ("/macrame/model/state-out", test_state_out);
  g_test_add_func ("/macrame/model/history", test_history);
  g_test_add_func ("/macrame/model/view-switch", test_view_switch);
  g_test_add_func ("/macrame/model/reset", test_reset);
  return g_test_run ();
}
