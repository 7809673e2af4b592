/* test-lights.c - the lights paradigm in-process: the cluster lines of view
 * setup files and their errors, routing (mesh, torus, ring, shortest path,
 * listed routes, physical), the model (link rates as sums of the latest
 * pair rates, totals, lost nodes, a view setup swapped mid-run), bad input
 * decided before transfer, and the views drawn to pixels: bars, arrows, the
 * range of interest recolouring them, and freeze.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/run.h"
#include "core/tramparse.h"
#include "core/stateout.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/lights/lights.h"
#include "paradigms/lights/lights-render.h"

/* 2 x 3 mesh:  0 1 2
 *              3 4 5 */
#define MESH \
  "paradigm lights\nsize 300 200\ntopology mesh 2 3\n" \
  "module 0 bar 25 25 50 50 a\nmodule 1 bar 125 25 50 50 b\nmodule 2 bar 225 25 50 50 c\n" \
  "module 3 bar 25 125 50 50 d\nmodule 4 bar 125 125 50 50 e\nmodule 5 bar 225 125 50 50 f\n"

/* Pictures to look at, in the temporary directory (not the working one,
 * which may be a source tree). */
static void
write_shot (cairo_surface_t *s, const char *name)
{
  char *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  cairo_surface_write_to_png (s, path);
  g_free (path);
}

static ViperViewSetup *
parse (const char *text, GError **error)
{
  return viper_view_setup_parse (text, strlen (text), "c.view", error);
}

/* ---- view setup ------------------------------------------------------------- */

static void
test_cluster_lines (void)
{
  GError *error = NULL;
  ViperViewSetup *vs = parse ("paradigm lights\ntopology torus 4 8\nlink 1 2 3\nroute 1 2 3\n"
                              "range 10k 2.5M below white above 0xff00ff\n", &error);
  g_assert_no_error (error);
  const ViperViewCluster *c = vs->cluster;
  g_assert_nonnull (c);
  g_assert_cmpint (c->topology, ==, VIPER_VIEW_TOPO_TORUS);
  g_assert_cmpuint (c->rows, ==, 4);
  g_assert_cmpuint (c->cols, ==, 8);
  g_assert_cmpuint (c->links->len, ==, 4);   /* 1-2, 2-3, both ways */
  g_assert_cmpint (g_array_index (c->links, ViperViewLink, 2).from, ==, 2);
  g_assert_cmpint (g_array_index (c->links, ViperViewLink, 2).to, ==, 3);
  g_assert_cmpuint (c->routes->len, ==, 1);
  g_assert_cmpint (g_array_index (c->routes, ViperViewRoute, 0).src, ==, 1);
  g_assert_cmpint (g_array_index (c->routes, ViperViewRoute, 0).dst, ==, 3);
  g_assert_true (c->has_range);
  g_assert_cmpfloat (c->range_min, ==, 10e3);
  g_assert_cmpfloat (c->range_max, ==, 2.5e6);
  g_assert_cmpfloat (c->below.r, ==, 1);
  g_assert_cmpfloat (c->above.g, ==, 0);
  viper_view_setup_free (vs);
  /* an old file reads as before */
  vs = parse ("size 10 10\nmodule 1 circle 0 0 5 5\n", &error);
  g_assert_no_error (error);
  g_assert_null (vs->cluster);
  viper_view_setup_free (vs);
}

static void
test_cluster_errors (void)
{
  static const struct {
    const char *text, *error;
  } cases[] = {
    { "topology cube\n", "c.view:1: expected a topology (mesh ROWS COLS, torus ROWS COLS, ring, physical, none), got 'cube'" },
    { "topology mesh 2\n", "c.view:1: expected mesh ROWS COLS (integers 1..65536)" },
    { "topology ring\ntopology ring\n", "c.view:2: expected one topology line (the first is line 1)" },
    { "link 1\n", "c.view:1: expected two or more node ids after link" },
    { "link 1 1\n", "c.view:1: expected a link between two nodes, got 1 to itself" },
    { "link 1 x\n", "c.view:1: expected a node id (an integer >= 0), got 'x'" },
    { "route 1\n", "c.view:1: expected SRC [HOP...] DST (node ids) after route" },
    { "route 1 2\nroute 1 3 2\n", "c.view:2: expected one route from 1 to 2 (the first is line 1)" },
    { "range 5\n", "c.view:1: expected MIN MAX (bytes per second, >= 0, optional k, M or G) after range" },
    { "range 5 5\n", "c.view:1: expected MAX greater than MIN" },
    { "range 1 5 over red\n", "c.view:1: expected 'below COLOUR', 'above COLOUR' or end of line, got 'over'" },
    { "range 1 5 below\n", "c.view:1: expected a colour (a name or 0xRRGGBB) after below" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      ViperViewSetup *vs = parse (cases[i].text, &error);
      g_assert_null (vs);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, cases[i].error);
      g_error_free (error);
    }
}

/* The paradigm's checks of a whole file. */
static void
test_topology_errors (void)
{
  static const struct {
    const char *text, *error;
  } cases[] = {
    { "topology mesh 2 2\nmodule 0 bar 0 0 1 1\n", "c.view:1: expected 2 x 2 = 4 modules for the mesh, the file has 1" },
    { "module 0 bar 0 0 1 1\nlink 0 7\n", "c.view:2: expected a module for node 7 of the link" },
    { "module 0 bar 0 0 1 1\nmodule 1 bar 0 0 1 1\nmodule 2 bar 0 0 1 1\nlink 0 1\nroute 0 1 2\n",
      "c.view:5: expected a link from 1 to 2 for the route" },
    { "topology ring\nmodule 0 bar 0 0 1 1\n", "c.view:1: expected two or more modules for the ring, the file has 1" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      ViperViewSetup *vs = parse (cases[i].text, &error);
      g_assert_no_error (error);
      LightsTopo *t = lights_topo_new (vs, &error);
      g_assert_null (t);
      g_assert_cmpstr (error->message, ==, cases[i].error);
      g_clear_error (&error);
      viper_view_setup_free (vs);
    }
}

/* ---- routing ---------------------------------------------------------------- */

/* The route as "a>b>c" node ids, or "-" when unroutable. */
static char *
route_str (LightsTopo *t, gint64 s, gint64 d)
{
  GArray *r = g_array_new (FALSE, FALSE, sizeof (guint));
  if (!lights_topo_route (t, s, d, r))
    {
      g_array_unref (r);
      return g_strdup ("-");
    }
  GString *g = g_string_new (NULL);
  g_string_append_printf (g, "%" G_GINT64_FORMAT, s);
  gint64 at = s;
  for (guint i = 0; i < r->len; i++)
    {
      gint64 from, to;
      lights_topo_link (t, g_array_index (r, guint, i), &from, &to);
      g_assert_cmpint (from, ==, at);
      g_string_append_printf (g, ">%" G_GINT64_FORMAT, to);
      at = to;
    }
  g_assert_cmpint (at, ==, d);
  g_array_unref (r);
  return g_string_free (g, FALSE);
}

static void
check_route (LightsTopo *t, gint64 s, gint64 d, const char *want)
{
  char *got = route_str (t, s, d);
  g_assert_cmpstr (got, ==, want);
  g_free (got);
}

static void
test_routes (void)
{
  GError *error = NULL;
  ViperViewSetup *vs = parse (MESH, &error);
  g_assert_no_error (error);
  LightsTopo *t = lights_topo_new (vs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lights_topo_n_links (t), ==, 14);   /* 7 grid edges, both ways */
  check_route (t, 0, 5, "0>1>2>5");     /* along the row first, then the column */
  check_route (t, 5, 0, "5>4>3>0");
  check_route (t, 3, 2, "3>4>5>2");
  check_route (t, 1, 1, "-");
  check_route (t, 0, 99, "-");
  lights_topo_free (t);
  viper_view_setup_free (vs);

  /* torus 1 x 5: 0 -> 4 goes round the back; listed route wins */
  vs = parse ("topology torus 1 5\nmodule 0 bar 0 0 1 1\nmodule 1 bar 0 0 1 1\nmodule 2 bar 0 0 1 1\n"
              "module 3 bar 0 0 1 1\nmodule 4 bar 0 0 1 1\n", &error);
  g_assert_no_error (error);
  t = lights_topo_new (vs, &error);
  g_assert_no_error (error);
  check_route (t, 0, 4, "0>4");
  check_route (t, 0, 2, "0>1>2");
  check_route (t, 1, 4, "1>0>4");
  lights_topo_free (t);
  viper_view_setup_free (vs);

  /* ring of 6 with a listed route; a tie (3 hops either way) goes up */
  vs = parse ("topology ring\nmodule 0 bar 0 0 1 1\nmodule 1 bar 0 0 1 1\nmodule 2 bar 0 0 1 1\n"
              "module 3 bar 0 0 1 1\nmodule 4 bar 0 0 1 1\nmodule 5 bar 0 0 1 1\nroute 0 5 4 3\n", &error);
  g_assert_no_error (error);
  t = lights_topo_new (vs, &error);
  g_assert_no_error (error);
  check_route (t, 0, 3, "0>5>4>3");
  check_route (t, 1, 4, "1>2>3>4");
  check_route (t, 1, 5, "1>0>5");
  lights_topo_free (t);
  viper_view_setup_free (vs);

  /* no topology: shortest paths over the links; physical: direct links only */
  const char *chain = "module 0 bar 0 0 1 1\nmodule 1 bar 0 0 1 1\nmodule 2 bar 0 0 1 1\nmodule 3 bar 0 0 1 1\n"
                      "link 0 1 2 3\nlink 0 2\n";
  vs = parse (chain, &error);
  g_assert_no_error (error);
  t = lights_topo_new (vs, &error);
  g_assert_no_error (error);
  check_route (t, 0, 3, "0>2>3");
  check_route (t, 3, 1, "3>2>1");
  lights_topo_free (t);
  viper_view_setup_free (vs);
  char *phys = g_strconcat ("topology physical\n", chain, NULL);
  vs = parse (phys, &error);
  g_free (phys);
  g_assert_no_error (error);
  t = lights_topo_new (vs, &error);
  g_assert_no_error (error);
  check_route (t, 0, 2, "0>2");
  check_route (t, 0, 3, "-");
  lights_topo_free (t);
  viper_view_setup_free (vs);
}

/* ---- the model -------------------------------------------------------------- */

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
  GPtrArray *bad, *notes;
} Fx;

static void
sink (ViperDiagKind kind, const char *msg, gpointer data)
{
  Fx *fx = data;
  if (kind == VIPER_DIAG_BAD_INPUT)
    g_ptr_array_add (fx->bad, g_strdup (msg));
  else if (kind == VIPER_DIAG_NOTE)
    g_ptr_array_add (fx->notes, g_strdup (msg));
}

static void
fx_init (Fx *fx, const char *setup_text)
{
  memset (fx, 0, sizeof *fx);
  viper_paradigms_register_all ();
  g_assert_true (viper_paradigm_lookup ("lights") == &viper_lights_paradigm);
  fx->pool = viper_tram_pool_new ();
  fx->fields = viper_tram_fields_new ();
  fx->channels = viper_channels_new ();
  fx->channel = viper_channels_add (fx->channels, "t.trc");
  fx->bad = g_ptr_array_new_with_free_func (g_free);
  fx->notes = g_ptr_array_new_with_free_func (g_free);
  viper_diag_init (&fx->diag, sink, fx);
  GError *error = NULL;
  fx->vs = parse (setup_text, &error);
  g_assert_no_error (error);
  fx->model = viper_lights_paradigm.model_new (&viper_lights_paradigm, (ViperSetup *) fx->vs);
  fx->model->diag = &fx->diag;
  viper_model_set_history (fx->model, 0);
  fx->run = viper_run_new (&viper_lights_paradigm, fx->model, fx->pool, fx->channels, &fx->diag, 0.5);
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
  g_ptr_array_unref (fx->notes);
}

static gboolean
feed (Fx *fx, const char *line)
{
  ViperLineKind kind;
  ViperParseError err;
  fx->lineno++;
  ViperTram *t = viper_tram_parse (fx->pool, fx->fields, line, strlen (line), &kind, &err);
  if (!t)
    {
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

static LightsLink
link_of (Fx *fx, gint64 a, gint64 b)
{
  gint i = lights_model_link_index (fx->model, a, b);
  g_assert_cmpint (i, >=, 0);
  LightsLink l;
  lights_model_link (fx->model, (guint) i, &l);
  return l;
}

/* A live collection whose collectors all disconnected (a root agent killed)
 * leaves no node "up" and no program "running": the last readings are
 * shown as stale, and a collector connecting again makes them current. */
static void
test_collection_end (void)
{
  Fx fx;
  fx_init (&fx, MESH);
  g_assert_true (feed (&fx, "4 40 1.0 4 0 3 2 1 730 500"));
  g_assert_true (feed (&fx, "4 40 1.0 3 0 3 2 1 200 500"));
  g_assert_true (feed (&fx, "4 41 1.0 3 0 4 2 2 500 4 1000"));
  guint li = (guint) lights_model_link_index (fx.model, 3, 4);
  g_assert_cmpfloat (lights_model_shown_link_bw (fx.model, li), ==, 2000);
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "running");
  LightsNode n;
  guint8 st;
  guint up, lost, unknown, stale;
  viper_damage_clear (fx.model->damage);
  viper_model_set_collection_end (fx.model, VIPER_COLLECTION_ENDED);
  g_assert_false (viper_damage_empty (fx.model->damage));   /* redrawn */
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "terminated");
  lights_model_node (fx.model, 4, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_STALE);
  g_assert_cmpint (n.load, ==, 730);                         /* the last reading, for the record */
  g_assert_cmpint (lights_model_shown_load (fx.model, 4, &st), ==, -1);   /* no bar drawn as now */
  g_assert_cmpint (st, ==, LIGHTS_NODE_STALE);
  g_assert_cmpfloat (lights_model_shown_link_bw (fx.model, li), ==, 0);   /* no arrow drawn as now */
  g_assert_cmpfloat (link_of (&fx, 3, 4).bw, ==, 2000);                  /* the last rate, for the record */
  lights_model_counts (fx.model, &up, &lost, &unknown, &stale);
  g_assert_cmpuint (up, ==, 0);
  g_assert_cmpuint (stale, ==, 2);
  char *json = viper_state_to_json (fx.run, fx.model, FALSE);
  g_assert_nonnull (strstr (json, "\"state\":\"stale\""));
  g_assert_null (strstr (json, "\"state\":\"up\""));
  g_free (json);
  viper_model_set_collection_end (fx.model, VIPER_COLLECTION_LOST);
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "abnormal");
  /* a reset (a seek) keeps it: the collection is still over */
  viper_model_reset (fx.model);
  g_assert_true (feed (&fx, "4 40 1.5 4 0 3 2 2 730 500"));
  lights_model_node (fx.model, 4, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_STALE);
  /* a collector connected again */
  viper_model_set_collection_end (fx.model, VIPER_COLLECTION_ON);
  lights_model_node (fx.model, 4, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  g_assert_cmpint (lights_model_shown_load (fx.model, 4, &st), ==, 730);
  g_assert_cmpfloat (lights_model_shown_link_bw (fx.model, li), ==, link_of (&fx, 3, 4).bw);
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "running");
  fx_clear (&fx);
}

/* A node that stops sending while the others go on turns stale after
 * LIGHTS_STALE_INTERVALS of its own intervals of trace time: no bar, its
 * traffic off the links, counted stale, the program still running; a
 * checkpoint restored keeps it so; a tram of its own makes it up again. */
static void
test_silent_node (void)
{
  Fx fx;
  fx_init (&fx, MESH);
  LightsNode n;
  guint8 st;
  guint up, lost, unknown, stale;
  g_assert_true (feed (&fx, "4 40 1.0 3 0 3 2 1 200 500"));
  g_assert_true (feed (&fx, "4 41 1.0 3 0 4 2 2 500 4 1000"));   /* 2,000 B/s to node 4 */
  g_assert_true (feed (&fx, "4 40 1.0 4 0 3 2 1 730 500"));
  g_assert_true (feed (&fx, "4 40 1.5 4 0 3 2 2 730 500"));
  g_assert_true (feed (&fx, "4 40 2.0 4 0 3 2 3 730 500"));
  g_assert_true (feed (&fx, "4 40 2.5 4 0 3 2 4 730 500"));
  /* 1.5 s (3 x 500 ms) after its last sample: not yet */
  lights_model_node (fx.model, 3, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  g_assert_cmpfloat (link_of (&fx, 3, 4).bw, ==, 2000);
  ViperModelCkpt *before = viper_model_checkpoint (fx.model);
  g_assert_nonnull (before);
  viper_damage_clear (fx.model->damage);
  g_assert_true (feed (&fx, "4 40 2.6 4 0 3 2 5 730 500"));
  lights_model_node (fx.model, 3, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_STALE);
  g_assert_cmpint (n.load, ==, 200);                        /* the last reading, for the record */
  g_assert_cmpint (lights_model_shown_load (fx.model, 3, &st), ==, -1);
  g_assert_cmpint (st, ==, LIGHTS_NODE_STALE);
  g_assert_cmpfloat (link_of (&fx, 3, 4).bw, ==, 0);        /* its traffic is not current */
  g_assert_cmpuint (link_of (&fx, 3, 4).bytes, ==, 1000);   /* the bytes stay counted */
  lights_model_node (fx.model, 4, &n);
  g_assert_cmpfloat (n.bw_in, ==, 0);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  lights_model_counts (fx.model, &up, &lost, &unknown, &stale);
  g_assert_cmpuint (up, ==, 1);
  g_assert_cmpuint (stale, ==, 1);
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "running");
  g_assert_false (viper_damage_empty (fx.model->damage));
  const ViperRenderer *r = viper_view_renderer (fx.model);
  ViperViewVariable v;
  r->variable (fx.model, 3, 0, &v);
  g_assert_cmpstr (v.state, ==, "stale, silent 1.6 s");
  char *json = viper_state_to_json (fx.run, fx.model, FALSE);
  g_assert_nonnull (strstr (json, "\"stale\":1"));
  g_free (json);
  /* the history says when: the node's state entry at 2.5, no sample */
  gboolean seen = FALSE;
  for (guint i = 0; i < fx.model->history->len; i++)
    {
      const ViperHistoryEntry *e = &g_array_index (fx.model->history, ViperHistoryEntry, i);
      if (e->module == 3 && e->other == -1 && e->t0 == 2.5 && e->state == LIGHTS_STATE_NO_SAMPLE)
        seen = TRUE;
    }
  g_assert_true (seen);
  ViperModelCkpt *after = viper_model_checkpoint (fx.model);
  /* back before it turned stale, then forward again: the same */
  g_assert_true (viper_model_restore (fx.model, before));
  lights_model_node (fx.model, 3, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  g_assert_true (viper_model_restore (fx.model, after));
  lights_model_node (fx.model, 3, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_STALE);
  /* heard from again (traffic only): up, its traffic counts again, and
   * it turns stale again 3 intervals after that tram, not at once */
  g_assert_true (feed (&fx, "4 41 3.0 3 0 4 2 3 500 4 500"));
  lights_model_node (fx.model, 3, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  g_assert_cmpfloat (link_of (&fx, 3, 4).bw, ==, 1000);
  g_assert_true (feed (&fx, "4 40 4.5 4 0 3 2 6 730 500"));
  lights_model_node (fx.model, 3, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  g_assert_true (feed (&fx, "4 40 4.6 4 0 3 2 7 730 500"));
  lights_model_node (fx.model, 3, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_STALE);
  g_assert_cmpfloat (link_of (&fx, 3, 4).bw, ==, 0);
  g_assert_true (feed (&fx, "4 40 5.0 3 0 3 2 4 250 500"));
  lights_model_node (fx.model, 3, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  g_assert_cmpint (lights_model_shown_load (fx.model, 3, &st), ==, 250);
  g_assert_true (feed (&fx, "4 41 5.0 3 0 4 2 5 500 4 500"));
  g_assert_cmpfloat (link_of (&fx, 3, 4).bw, ==, 1000);
  lights_model_counts (fx.model, &up, &lost, &unknown, &stale);
  g_assert_cmpuint (up, ==, 2);
  g_assert_cmpuint (stale, ==, 0);
  viper_model_ckpt_free (before);
  viper_model_ckpt_free (after);
  fx_clear (&fx);
}

static void
test_model_traffic (void)
{
  Fx fx;
  fx_init (&fx, MESH);
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "inactive");
  /* node 0 sends 1000 B to 5 (0>1>2>5) and 500 B to 1 in 500 ms */
  g_assert_true (feed (&fx, "4 41 1.0 0 0 6 2 1 500 5 1000 1 500"));
  g_assert_cmpfloat (link_of (&fx, 0, 1).bw, ==, 3000);
  g_assert_cmpuint (link_of (&fx, 0, 1).bytes, ==, 1500);
  g_assert_cmpfloat (link_of (&fx, 1, 2).bw, ==, 2000);
  g_assert_cmpfloat (link_of (&fx, 2, 5).bw, ==, 2000);
  g_assert_cmpfloat (link_of (&fx, 0, 3).bw, ==, 0);
  /* node 3 sends 700 B to 2 (3>4>5>2) */
  g_assert_true (feed (&fx, "4 41 1.0 3 0 4 2 1 500 2 700"));
  g_assert_cmpfloat (link_of (&fx, 5, 2).bw, ==, 1400);
  /* node 0's next sample replaces its last: only 5 now, 250 B */
  g_assert_true (feed (&fx, "4 41 1.5 0 0 4 2 2 500 5 250"));
  g_assert_cmpfloat (link_of (&fx, 0, 1).bw, ==, 500);
  g_assert_cmpuint (link_of (&fx, 0, 1).bytes, ==, 1750);
  g_assert_cmpfloat (lights_model_pair_bw (fx.model, 0, 1), ==, 0);
  g_assert_cmpuint (lights_model_pair_bytes (fx.model, 0, 1), ==, 500);
  g_assert_cmpuint (lights_model_pair_bytes (fx.model, 0, 5), ==, 1250);
  LightsNode n;
  lights_model_node (fx.model, 5, &n);
  g_assert_cmpuint (n.bytes_in, ==, 1250);
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "running");
  /* load samples */
  g_assert_true (feed (&fx, "4 40 2.0 4 0 3 2 1 730 500"));
  lights_model_node (fx.model, 4, &n);
  g_assert_cmpint (n.load, ==, 730);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  g_assert_cmpuint (n.samples, ==, 1);
  /* a traffic peer outside the file: counted for the pair, unrouted */
  g_assert_true (feed (&fx, "4 41 2.0 4 0 4 2 2 1000 77 300"));
  g_assert_cmpuint (lights_model_unrouted (fx.model), ==, 300);
  g_assert_cmpuint (fx.bad->len, ==, 0);

  /* node 0 lost (reported by node 1): its pairs stop counting */
  g_assert_true (feed (&fx, "4 43 3.0 1 0 2 2 1 0"));
  lights_model_node (fx.model, 0, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_LOST);
  g_assert_cmpfloat (link_of (&fx, 0, 1).bw, ==, 0);
  g_assert_cmpfloat (link_of (&fx, 5, 2).bw, ==, 1400);
  g_assert_cmpstr (viper_model_program_state (fx.model), ==, "abnormal");
  g_assert_cmpuint (fx.notes->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fx.notes, 0), ==, "node 1: lost node 0");
  /* a late sample of the lost node does not bring it back; joined does */
  g_assert_true (feed (&fx, "4 40 3.1 0 0 3 2 3 100 500"));
  lights_model_node (fx.model, 0, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_LOST);
  g_assert_true (feed (&fx, "4 42 3.2 0 0 2 2 4 -1"));
  lights_model_node (fx.model, 0, &n);
  g_assert_cmpint (n.state, ==, LIGHTS_NODE_UP);
  /* a message, one code point per field */
  g_assert_true (feed (&fx, "4 44 3.3 2 0 4 2 1 104 105 233"));
  g_assert_cmpuint (lights_model_n_messages (fx.model), ==, 2);
  g_assert_cmpstr (lights_model_message (fx.model, 1), ==, "node 2: hi\xc3\xa9");
  fx_clear (&fx);
}

static void
test_model_bad_input (void)
{
  static const char *const lines[] = {
    "4 40 1.0 0 0 3 2 1 1001 500",          /* load > 1000 */
    "4 40 1.0 0 0 3 2 2 10 0",              /* interval 0 */
    "4 40 1.0 0 0 4 2 3 10 500 1",          /* too many fields */
    "4 41 1.0 0 0 3 2 4 500 1",             /* half a pair */
    "4 41 1.0 0 0 4 2 5 500 0 10",          /* to itself */
    "4 41 1.0 0 0 4 2 6 500 1 -10",         /* negative bytes */
    "4 42 1.0 0 0 2 2 7 -2",                /* parent -2 */
    "4 43 1.0 0 0 2 2 8 -1",                /* lost -1 */
    "4 44 1.0 0 0 2 2 9 55296",             /* a surrogate */
  };
  Fx fx;
  fx_init (&fx, MESH);
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    g_assert_false (feed (&fx, lines[i]));
  g_assert_cmpuint (fx.bad->len, ==, G_N_ELEMENTS (lines));
  g_assert_true (strstr (g_ptr_array_index (fx.bad, 0), "t.trc:1:"));
  g_assert_true (strstr (g_ptr_array_index (fx.bad, 0), "busy share 1001 is not 0..1000"));
  g_assert_true (strstr (g_ptr_array_index (fx.bad, 4), "sending to itself"));
  /* a good line after them is taken */
  g_assert_true (feed (&fx, "4 40 2.0 1 0 3 2 1 500 500"));
  LightsNode n;
  lights_model_node (fx.model, 1, &n);
  g_assert_cmpint (n.load, ==, 500);
  fx_clear (&fx);
}

/* Another view setup mid-run: the links are rebuilt from the pairs. */
static void
test_model_reload (void)
{
  Fx fx;
  fx_init (&fx, MESH);
  g_assert_true (feed (&fx, "4 41 1.0 0 0 4 2 1 1000 5 2000"));
  g_assert_cmpfloat (link_of (&fx, 1, 2).bw, ==, 2000);
  GError *error = NULL;
  const char *ring = "paradigm lights\ntopology ring\nmodule 0 bar 0 0 1 1\nmodule 1 bar 0 0 1 1\n"
                     "module 2 bar 0 0 1 1\nmodule 3 bar 0 0 1 1\nmodule 4 bar 0 0 1 1\nmodule 5 bar 0 0 1 1\n";
  ViperViewSetup *vs2 = parse (ring, &error);
  g_assert_no_error (error);
  lights_model_set_view_setup (fx.model, vs2);
  g_assert_cmpint (lights_model_link_index (fx.model, 0, 3), <, 0);
  g_assert_cmpfloat (link_of (&fx, 0, 5).bw, ==, 2000);
  g_assert_cmpuint (link_of (&fx, 0, 5).bytes, ==, 2000);
  g_assert_cmpfloat (link_of (&fx, 0, 1).bw, ==, 0);
  lights_model_set_view_setup (fx.model, fx.vs);
  g_assert_cmpfloat (link_of (&fx, 2, 5).bw, ==, 2000);
  viper_view_setup_free (vs2);
  fx_clear (&fx);
}

/* ---- pixels ------------------------------------------------------------------- */

static cairo_surface_t *
draw (Fx *fx, ViperViewKind kind, int w, int h, ViperViewGeometry **geom)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  viper_view_draw (kind, cr, fx->model, fx->run, NULL, NULL, w, h);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  *geom = viper_view_geometry_new (kind, fx->model, fx->run, NULL, NULL, w, h);
  return s;
}

static ViperColor
pixel (cairo_surface_t *s, double x, double y)
{
  const guint8 *d = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  guint32 p = *(const guint32 *) (d + (int) y * stride + (int) x * 4);
  return (ViperColor) { ((p >> 16) & 0xff) / 255.0, ((p >> 8) & 0xff) / 255.0, (p & 0xff) / 255.0 };
}

static void
assert_color (cairo_surface_t *s, double x, double y, ViperColor want, const char *what)
{
  ViperColor got = pixel (s, x, y);
  if (fabs (got.r - want.r) > 0.03 || fabs (got.g - want.g) > 0.03 || fabs (got.b - want.b) > 0.03)
    g_error ("%s at (%.0f, %.0f): got %.2f %.2f %.2f, want %.2f %.2f %.2f", what, x, y, got.r, got.g, got.b,
             want.r, want.g, want.b);
}

/* The middle of the arrow from a to b, on its side of the pair. */
static void
arrow_mid (ViperViewGeometry *g, gint64 a, gint64 b, double *x, double *y)
{
  double ax, ay, bx, by;
  g_assert_true (viper_view_geometry_module_point (g, a, &ax, &ay));
  g_assert_true (viper_view_geometry_module_point (g, b, &bx, &by));
  double dx = bx - ax, dy = by - ay, len = hypot (dx, dy), ux = dx / len, uy = dy / len;
  *x = (ax + bx) / 2 - uy * 4;
  *y = (ay + by) / 2 + ux * 4;
}

static void
test_render (void)
{
  Fx fx;
  fx_init (&fx, MESH "range 1k 100k below lightgrey above magenta\n");
  g_assert_true (feed (&fx, "4 40 1.0 0 0 3 2 1 250 500"));
  g_assert_true (feed (&fx, "4 40 1.0 1 0 3 2 1 900 500"));
  /* 0 -> 1: 25 kB in 500 ms = 50 kB/s, mid range; 1 -> 2: 500 kB/s above */
  g_assert_true (feed (&fx, "4 41 1.0 0 0 4 2 2 500 1 25000"));
  g_assert_true (feed (&fx, "4 41 1.0 1 0 4 2 2 500 2 250000"));
  ViperViewGeometry *g;
  cairo_surface_t *s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  write_shot (s, "lights-render.png");
  LightsRange r;
  lights_model_range (fx.model, &r);
  double x, y, w, h, bx, by, bw, bh;
  g_assert_true (viper_view_geometry_module_box (g, 0, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  /* bar 0 at 25 %: filled at 10 % of its height, empty at 50 % */
  assert_color (s, bx + bw / 2, by + bh * 0.9, lights_load_color (250), "bar 0 fill");
  assert_color (s, bx + bw / 2, by + bh * 0.5, (ViperColor) { 1, 1, 1 }, "bar 0 above its load");
  g_assert_true (viper_view_geometry_module_box (g, 1, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw / 2, by + bh * 0.2, lights_load_color (900), "bar 1 at 90 %");
  g_assert_true (viper_view_geometry_module_box (g, 2, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw / 2, by + bh * 0.5, lights_load_color (-1), "bar 2 no sample");
  arrow_mid (g, 0, 1, &x, &y);
  assert_color (s, x, y, lights_bw_color (&r, 50e3), "arrow 0->1 in range");
  arrow_mid (g, 1, 2, &x, &y);
  assert_color (s, x, y, (ViperColor) { 1, 0, 1 }, "arrow 1->2 above");
  arrow_mid (g, 1, 0, &x, &y);
  assert_color (s, x, y, (ViperColor) { 0.83, 0.83, 0.83 }, "arrow 1->0 idle, below");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);

  /* freeze, then more traffic and load: the picture stands still */
  lights_model_set_frozen (fx.model, TRUE);
  g_assert_true (feed (&fx, "4 41 1.5 0 0 4 2 3 500 1 0"));
  g_assert_true (feed (&fx, "4 40 1.5 0 0 3 2 4 950 500"));
  s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  arrow_mid (g, 0, 1, &x, &y);
  assert_color (s, x, y, lights_bw_color (&r, 50e3), "frozen arrow 0->1");
  g_assert_true (viper_view_geometry_module_box (g, 0, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw / 2, by + bh * 0.5, (ViperColor) { 1, 1, 1 }, "frozen bar 0");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  lights_model_set_frozen (fx.model, FALSE);
  s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  arrow_mid (g, 0, 1, &x, &y);
  assert_color (s, x, y, (ViperColor) { 0.83, 0.83, 0.83 }, "thawed arrow 0->1 idle");
  g_assert_true (viper_view_geometry_module_box (g, 0, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw / 2, by + bh * 0.5, lights_load_color (950), "thawed bar 0 at 95 %");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);

  /* the range of interest moved: 500 kB/s is now inside, 50 kB/s... */
  LightsRange r2 = { 100e3, 1e6, { 0, 0, 1 }, { 1, 0, 0 } };
  lights_model_set_range (fx.model, &r2);
  g_assert_true (feed (&fx, "4 41 2.0 0 0 4 2 5 500 1 25000"));
  s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  arrow_mid (g, 1, 2, &x, &y);
  assert_color (s, x, y, lights_bw_color (&r2, 500e3), "arrow 1->2 in the new range");
  arrow_mid (g, 0, 1, &x, &y);
  assert_color (s, x, y, (ViperColor) { 0, 0, 1 }, "arrow 0->1 below the new range");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);

  /* node 1 lost: dark bar */
  g_assert_true (feed (&fx, "4 43 3.0 0 0 2 2 6 1"));
  s = draw (&fx, VIPER_VIEW_ANIMATION, 900, 700, &g);
  g_assert_true (viper_view_geometry_module_box (g, 1, &x, &y, &w, &h));
  lights_bar_geometry (x, y, w, h, &bx, &by, &bw, &bh);
  assert_color (s, bx + bw * 0.5, by + bh * 0.2, (ViperColor) { 0.25, 0.25, 0.25 }, "lost bar");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  fx_clear (&fx);
}

/* ---- incremental aggregates against fresh ones ------------------------------- */

/* A rows x cols cluster (mesh or torus), boxes on a grid, plus extra lines. */
static char *
grid_setup (const char *topo, guint rows, guint cols, const char *extra)
{
  GString *g = g_string_new ("paradigm lights\n");
  g_string_append_printf (g, "size %u %u\ntopology %s %u %u\n", cols * 100, rows * 100, topo, rows, cols);
  for (guint k = 0; k < rows * cols; k++)
    g_string_append_printf (g, "module %u bar %u %u 50 50 n%u\n", k, (k % cols) * 100 + 25, (k / cols) * 100 + 25, k);
  g_string_append (g, extra);
  return g_string_free (g, FALSE);
}

/* Every link's rate and bytes summed afresh from the pairs over a topology
 * made from the model's view setup now, route by route (never the model's
 * source trees or its running sums); they must equal the model's. */
static void
check_links_fresh (Fx *fx, const char *when)
{
  const ViperViewSetup *vs = lights_model_view_setup (fx->model);
  GError *error = NULL;
  LightsTopo *t = lights_topo_new (vs, &error);
  g_assert_no_error (error);
  guint nl = lights_topo_n_links (t);
  g_assert_cmpuint (nl, ==, lights_model_n_links (fx->model));
  double *bw = g_new0 (double, nl);
  guint64 *bytes = g_new0 (guint64, nl), unrouted = 0;
  GArray *ids = lights_model_ids (fx->model), *r = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < ids->len; i++)
    for (guint j = 0; j < ids->len; j++)
      {
        gint64 s = g_array_index (ids, gint64, i), d = g_array_index (ids, gint64, j);
        guint64 b = lights_model_pair_bytes (fx->model, s, d);
        double w = lights_model_pair_bw (fx->model, s, d);
        if (s == d || (!b && w == 0))
          continue;
        g_array_set_size (r, 0);
        if (!lights_topo_route (t, s, d, r))
          {
            unrouted += b;
            continue;
          }
        for (guint k = 0; k < r->len; k++)
          {
            bw[g_array_index (r, guint, k)] += w;
            bytes[g_array_index (r, guint, k)] += b;
          }
      }
  for (guint li = 0; li < nl; li++)
    {
      LightsLink l;
      gint64 from, to;
      lights_model_link (fx->model, li, &l);
      lights_topo_link (t, li, &from, &to);
      if (l.from != from || l.to != to || fabs (l.bw - bw[li]) > 1e-6 * MAX (1.0, bw[li]) || l.bytes != bytes[li])
        g_error ("%s: link %u (%" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT "): model %.3f B/s %" G_GUINT64_FORMAT
                 " B, fresh %.3f B/s %" G_GUINT64_FORMAT " B", when, li, l.from, l.to, l.bw, l.bytes, bw[li],
                 bytes[li]);
    }
  g_assert_cmpuint (lights_model_unrouted (fx->model), ==, unrouted);
  g_array_unref (r);
  g_array_unref (ids);
  g_free (bw);
  g_free (bytes);
  lights_topo_free (t);
}

typedef struct {
  GPtrArray *lines;         /* everything fed, for a fresh model */
  guint seq[64];
  double time;
} Gen;

static void
gen_feed (Fx *fx, Gen *gen, char *line)
{
  g_assert_true (feed (fx, line));
  g_ptr_array_add (gen->lines, line);
}

/* One sample: every node's load, and its traffic to every other node (some
 * nodes to all, some to a few: both ways of moving pairs onto links). */
static void
gen_sample (Fx *fx, Gen *gen, GRand *rng, guint n)
{
  gen->time += 0.5;
  for (guint k = 0; k < n; k++)
    {
      gen_feed (fx, gen, g_strdup_printf ("4 40 %.3f %u 0 3 2 %u %d 500", gen->time, k, ++gen->seq[k],
                                          g_rand_int_range (rng, 0, 1001)));
      GString *g = g_string_new (NULL);
      guint pairs = 0;
      gboolean few = g_rand_int_range (rng, 0, 4) == 0;
      for (guint d = 0; d < n; d++)
        if (d != k && (!few || g_rand_int_range (rng, 0, 8) == 0))
          {
            /* zero bytes now and then: a pair that falls idle */
            g_string_append_printf (g, " %u %d", d, g_rand_int_range (rng, 0, 5) ? g_rand_int_range (rng, 1, 200000) : 0);
            pairs++;
          }
      gen_feed (fx, gen, g_strdup_printf ("4 41 %.3f %u 0 %u 2 %u 500%s", gen->time, k, 2 + 2 * pairs,
                                          ++gen->seq[k], g->str));
      g_string_free (g, TRUE);
    }
}

static ViperViewSetup *
setup_of (const char *text)
{
  GError *error = NULL;
  ViperViewSetup *vs = parse (text, &error);
  g_assert_no_error (error);
  return vs;
}

static guint
count_differing (cairo_surface_t *a, cairo_surface_t *b)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  int sa = cairo_image_surface_get_stride (a), sb = cairo_image_surface_get_stride (b);
  const guint8 *da = cairo_image_surface_get_data (a), *db = cairo_image_surface_get_data (b);
  guint n = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w * 4; x++)
      n += abs ((int) da[y * sa + x] - (int) db[y * sb + x]) > 2;
  return n;
}

/* The link sums are kept incrementally (source trees, running rates) and
 * the animation view may cache what it drew: after samples, a range
 * change, a view setup reloaded mid-run (mesh -> torus -> mesh with a
 * listed route that makes some sources' routes not prefix-closed), lost
 * nodes and a rejoin, every link equals a sum made afresh from the pairs,
 * and the model and its picture equal those of a fresh model fed the same
 * trams under the final setup. */
static void
test_aggregate_fresh (void)
{
  const guint rows = 5, cols = 6, n = rows * cols;
  /* 0 -> 7 column first: the XY routes from 0 through 1 -> 7 are no longer prefix-closed */
  char *mesh = grid_setup ("mesh", rows, cols, "range 10k 4M\nroute 0 6 7\n");
  char *torus = grid_setup ("torus", rows, cols, "");
  ViperViewSetup *vs0 = setup_of (mesh);
  LightsTopo *t0 = lights_topo_new (vs0, NULL);
  g_assert_null (lights_topo_tree (t0, 0));        /* its routes disagree: walked */
  const LightsTree *tree = lights_topo_tree (t0, 1);
  g_assert_nonnull (tree);
  g_assert_cmpuint (tree->n_order, ==, n - 1);
  lights_topo_free (t0);
  viper_view_setup_free (vs0);
  Fx fx;
  fx_init (&fx, mesh);
  Gen gen = { g_ptr_array_new_with_free_func (g_free), { 0 }, 0 };
  GRand *rng = g_rand_new_with_seed (16);
  for (int i = 0; i < 3; i++)
    gen_sample (&fx, &gen, rng, n);
  check_links_fresh (&fx, "mesh, 3 samples");
  ViperViewGeometry *g;
  cairo_surface_destroy (draw (&fx, VIPER_VIEW_ANIMATION, 700, 600, &g));   /* whatever it caches, now */
  viper_view_geometry_free (g);

  LightsRange r = { 50e3, 2e6, { 0, 0, 1 }, { 1, 0, 1 } };
  lights_model_set_range (fx.model, &r);
  check_links_fresh (&fx, "range changed");

  ViperViewSetup *vt = setup_of (torus);
  lights_model_set_view_setup (fx.model, vt);
  check_links_fresh (&fx, "reloaded as a torus");
  cairo_surface_destroy (draw (&fx, VIPER_VIEW_ANIMATION, 700, 600, &g));
  viper_view_geometry_free (g);
  for (int i = 0; i < 2; i++)
    gen_sample (&fx, &gen, rng, n);
  check_links_fresh (&fx, "torus, 2 more samples");

  gen_feed (&fx, &gen, g_strdup_printf ("4 43 %.3f 0 0 3 2 %u 7 12", gen.time + 0.1, ++gen.seq[0]));
  check_links_fresh (&fx, "nodes 7 and 12 lost");
  gen_sample (&fx, &gen, rng, n);   /* their late samples count bytes, no rate */
  check_links_fresh (&fx, "a sample after the loss");
  g_assert_cmpfloat (lights_model_pair_bw (fx.model, 7, 8), ==, 0);
  gen_feed (&fx, &gen, g_strdup_printf ("4 42 %.3f 7 0 2 2 %u 3", gen.time + 0.1, ++gen.seq[7]));
  gen_sample (&fx, &gen, rng, n);
  check_links_fresh (&fx, "node 7 rejoined");

  cairo_surface_destroy (draw (&fx, VIPER_VIEW_ANIMATION, 700, 600, &g));   /* the torus's arrows, cached */
  viper_view_geometry_free (g);
  ViperViewSetup *vm = setup_of (mesh);
  lights_model_set_view_setup (fx.model, vm);
  lights_model_set_range (fx.model, &r);
  check_links_fresh (&fx, "reloaded as the mesh");
  gen_sample (&fx, &gen, rng, n);
  check_links_fresh (&fx, "mesh again, a sample");

  /* a fresh model fed the same trams under the final setup */
  Fx fresh;
  fx_init (&fresh, mesh);
  lights_model_set_range (fresh.model, &r);
  for (guint i = 0; i < gen.lines->len; i++)
    g_assert_true (feed (&fresh, g_ptr_array_index (gen.lines, i)));
  g_assert_cmpuint (lights_model_n_links (fresh.model), ==, lights_model_n_links (fx.model));
  for (guint li = 0; li < lights_model_n_links (fx.model); li++)
    {
      LightsLink a, b;
      lights_model_link (fx.model, li, &a);
      lights_model_link (fresh.model, li, &b);
      g_assert_cmpuint (a.bytes, ==, b.bytes);
      g_assert_cmpfloat_with_epsilon (a.bw, b.bw, 1e-6 * MAX (1.0, b.bw));
    }
  g_assert_cmpuint (lights_model_unrouted (fx.model), ==, lights_model_unrouted (fresh.model));
  /* the kept model's picture as the view keeps it between frames, against
   * the fresh model's drawn from nothing */
  ViperViewGeometry *g2;
  cairo_surface_t *s1 = draw (&fx, VIPER_VIEW_ANIMATION, 700, 600, &g);
  lights_view_forget ();
  cairo_surface_t *s2 = draw (&fresh, VIPER_VIEW_ANIMATION, 700, 600, &g2);
  guint diff = count_differing (s1, s2);
  if (diff)
    {
      write_shot (s1, "lights-aggregate-kept.png");
      write_shot (s2, "lights-aggregate-fresh.png");
    }
  g_assert_cmpuint (diff, ==, 0);
  cairo_surface_destroy (s1);
  cairo_surface_destroy (s2);
  viper_view_geometry_free (g);
  viper_view_geometry_free (g2);

  fx_clear (&fresh);
  fx_clear (&fx);
  viper_view_setup_free (vt);
  viper_view_setup_free (vm);
  g_ptr_array_unref (gen.lines);
  g_rand_free (rng);
  g_free (mesh);
  g_free (torus);
}

/* The program view at the width the GUI's default window gives it (about
 * 250 px): a collector's message longer than the view was drawn centred and
 * cut off on both sides ("ent of node 1 up, interval 200 ms, load from").
 * Every line now stays inside the view: set smaller, or cut with an
 * ellipsis at the right, never ink in the outer columns. */
static void
test_program_view_fits (void)
{
  Fx fx;
  fx_init (&fx, MESH);
  /* "agent of node 1 up, interval 200 ms, load from /proc/stat" as code points */
  const char *msg = "agent of node 1 up, interval 200 ms, load from /proc/stat";
  GString *t = g_string_new (NULL);
  g_string_append_printf (t, "4 44 1.0 0 0 %u 2 1", (unsigned) strlen (msg) + 1);
  for (const char *c = msg; *c; c++)
    g_string_append_printf (t, " %d", *c);
  g_assert_true (feed (&fx, t->str));
  g_string_free (t, TRUE);
  const int w = 200, h = 400;
  ViperViewGeometry *g;
  cairo_surface_t *s = draw (&fx, VIPER_VIEW_PROGRAM, w, h, &g);
  write_shot (s, "lights-program.png");
  int inked = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        ViperColor c = pixel (s, x, y);
        if (c.r > 0.6 || c.g > 0.6 || c.b > 0.6)
          continue;                       /* not text ink */
        if (fabs (c.r - c.g) > 0.1 || fabs (c.g - c.b) > 0.1)
          continue;                       /* the square's colour, not grey ink */
        if (x < 2 || x >= w - 2)
          g_error ("program view: ink at (%d, %d), the text runs past the view's edge", x, y);
        inked++;
      }
  g_assert_cmpint (inked, >, 0);
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  fx_clear (&fx);
}

/* Every state of the renderer has a swatch (6 x 6 pixels of its colour:
 * antialiased text has every grey) in rows [y0, y1) of S. */
static void
assert_legend (cairo_surface_t *s, const ViperRenderer *r, int w, int y0, int y1, const char *what)
{
  for (guint k = 0; k < r->n_states; k++)
    {
      ViperColor want = r->state_color ((gint) k);
      gboolean found = FALSE;
      for (int y = y0; y + 6 <= y1 && !found; y++)
        for (int x = 0; x + 6 <= w && !found; x++)
          {
            found = TRUE;
            for (int dy = 0; dy < 6 && found; dy++)
              for (int dx = 0; dx < 6 && found; dx++)
                {
                  ViperColor c = pixel (s, x + dx, y + dy);
                  found = fabs (c.r - want.r) < 0.02 && fabs (c.g - want.g) < 0.02 && fabs (c.b - want.b) < 0.02;
                }
          }
      if (!found)
        g_error ("%s legend at %d px: no swatch of state %u (%s)", what, w, k, r->state_name ((gint) k));
    }
}

/* The legends at the widths the GUI gives the views: the lights paradigm
 * has twelve states, and their legend ran past the right edge ("90-100%",
 * "no sample" and "lost" not shown) - the space-time view's at the default
 * window's 760 px, the animation's in a narrower panel.  Every state's
 * swatch is in the legend strip. */
static void
test_legends_fit (void)
{
  Fx fx;
  fx_init (&fx, MESH);
  g_assert_true (feed (&fx, "4 40 1.0 0 0 3 2 1 950 500"));
  g_assert_true (feed (&fx, "4 40 1.5 1 0 3 2 1 50 500"));
  const ViperRenderer *r = viper_view_renderer (fx.model);
  g_assert_cmpuint (r->n_states, >=, 12);
  const int h = 300;
  ViperViewGeometry *g;
  cairo_surface_t *s = draw (&fx, VIPER_VIEW_SPACETIME, 760, h, &g);
  write_shot (s, "lights-spacetime-legend.png");
  assert_legend (s, r, 760, h - 15, h - 4, "space-time");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  s = draw (&fx, VIPER_VIEW_ANIMATION, 680, h, &g);
  write_shot (s, "lights-animation-legend.png");
  assert_legend (s, r, 680, h - 17, h - 6, "animation");
  cairo_surface_destroy (s);
  viper_view_geometry_free (g);
  fx_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lights/viewsetup/cluster-lines", test_cluster_lines);
  g_test_add_func ("/lights/viewsetup/cluster-errors", test_cluster_errors);
  g_test_add_func ("/lights/viewsetup/topology-errors", test_topology_errors);
  g_test_add_func ("/lights/routes", test_routes);
  g_test_add_func ("/lights/model/traffic", test_model_traffic);
  g_test_add_func ("/lights/model/bad-input", test_model_bad_input);
  g_test_add_func ("/lights/model/reload", test_model_reload);
  g_test_add_func ("/lights/render", test_render);
  g_test_add_func ("/lights/render/program-view-fits", test_program_view_fits);
  g_test_add_func ("/lights/render/legends-fit", test_legends_fit);
  g_test_add_func ("/lights/model/aggregate-fresh", test_aggregate_fresh);
  g_test_add_func ("/lights/model/collection-end", test_collection_end);
  g_test_add_func ("/lights/model/silent-node", test_silent_node);
  return g_test_run ();
}
