/* test-lights.c - the lights paradigm in-process: the cluster lines of view
 * setup files and their errors, routing (mesh, torus, ring, shortest path,
 * listed routes, physical), the model (link rates as sums of the latest
 * pair rates, totals, lost nodes, silent nodes, the end of a collection, a
 * view setup swapped mid-run) and bad input decided before transfer.  The
 * views drawn to pixels are in test-lights-render.c.
 */
#include <glib/gstdio.h>
#include "lights-fx.h"

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
  /* where each id stands, for the paradigm's errors */
  g_assert_cmpuint (vs->paradigm_col, ==, 10);
  g_assert_cmpuint (c->topology_line, ==, 2);
  g_assert_cmpuint (c->topology_col, ==, 1);
  g_assert_cmpuint (g_array_index (c->links, ViperViewLink, 2).from_col, ==, 8);
  g_assert_cmpuint (g_array_index (c->links, ViperViewLink, 2).to_col, ==, 10);
  g_assert_cmpuint (g_array_index (c->links, ViperViewLink, 3).from_col, ==, 10);
  g_assert_cmpuint (c->route_cols->len, ==, 3);
  g_assert_cmpuint (g_array_index (c->route_cols, guint, 0), ==, 7);
  g_assert_cmpuint (g_array_index (c->route_cols, guint, 2), ==, 11);
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
    { "topology cube\n", "c.view:1:10: expected a topology (mesh ROWS COLS, torus ROWS COLS, ring, physical, none), got 'cube'" },
    { "topology mesh 2\n", "c.view:1:16: expected mesh ROWS COLS (integers 1..65536)" },
    { "topology ring\ntopology ring\n", "c.view:2:1: expected one topology line (the first is line 1)" },
    { "link 1\n", "c.view:1:7: expected two or more node ids after link" },
    { "link 1 1\n", "c.view:1:8: expected a link between two nodes, got 1 to itself" },
    { "link 1 x\n", "c.view:1:8: expected a node id (an integer >= 0), got 'x'" },
    { "route 1\n", "c.view:1:8: expected SRC [HOP...] DST (node ids) after route" },
    { "route 1 2\nroute 1 3 2\n", "c.view:2:1: expected one route from 1 to 2 (the first is line 1)" },
    { "range 5\n", "c.view:1:8: expected MIN MAX (bytes per second, >= 0, optional k, M or G) after range" },
    { "range 5 5\n", "c.view:1:9: expected MAX greater than MIN" },
    { "range 1 5 over red\n", "c.view:1:11: expected 'below COLOUR', 'above COLOUR' or end of line, got 'over'" },
    { "range 1 5 below\n", "c.view:1:16: expected a colour (a name or 0xRRGGBB) after below" },
    /* the word at fault, or just after the line's last byte when one is missing */
    { "topology mesh 2 x\n", "c.view:1:17: expected mesh ROWS COLS (integers 1..65536)" },
    { "topology torus 2 3 4\n", "c.view:1:20: expected torus ROWS COLS (integers 1..65536)" },
    { "topology ring x # y\n", "c.view:1:15: expected end of line after ring" },
    { "topology\n", "c.view:1:9: expected a topology (mesh ROWS COLS, torus ROWS COLS, ring, physical, none)" },
    { "link 1 2 3 3\n", "c.view:1:12: expected a link between two nodes, got 3 to itself" },
    { "   link\t1\t2\t2\n", "c.view:1:13: expected a link between two nodes, got 2 to itself" },
    { "route 4 x 2\n", "c.view:1:9: expected a node id (an integer >= 0), got 'x'" },
    { "route 4 5 4\n", "c.view:1:11: expected a route between two nodes, got 4 to itself" },
    { "range 1k zz\n", "c.view:1:10: expected MIN MAX (bytes per second, >= 0, optional k, M or G) after range" },
    { "range 5M 1k\n", "c.view:1:10: expected MAX greater than MIN" },
    { "range 1 5 below red above mauve\n", "c.view:1:27: expected a colour (a name or 0xRRGGBB) after above" },
    { "range 1 2\n  range 1 2\n", "c.view:2:3: expected one range line (the first is line 1)" },
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
    /* at the topology keyword, or at the node id of the link or route */
    { "topology mesh 2 2\nmodule 0 bar 0 0 1 1\n", "c.view:1:1: expected 2 x 2 = 4 modules for the mesh, the file has 1" },
    { "module 0 bar 0 0 1 1\n  topology torus 1 2\n", "c.view:2:3: expected 1 x 2 = 2 modules for the torus, the file has 1" },
    { "module 0 bar 0 0 1 1\nlink 0 7\n", "c.view:2:8: expected a module for node 7 of the link" },
    { "module 0 bar 0 0 1 1\nlink 17 0\n", "c.view:2:6: expected a module for node 17 of the link" },
    { "module 0 bar 0 0 1 1\nmodule 1 bar 0 0 1 1\nlink 0 1\t9 # x\n", "c.view:3:10: expected a module for node 9 of the link" },
    { "module 0 bar 0 0 1 1\nmodule 1 bar 0 0 1 1\nmodule 2 bar 0 0 1 1\nlink 0 1\nroute 0 1 2\n",
      "c.view:5:9: expected a link from 1 to 2 for the route" },
    { "module 0 bar 0 0 1 1\nmodule 1 bar 0 0 1 1\nlink 0 1\nroute 0  33 1\n",
      "c.view:4:10: expected a module for node 33 of the route" },
    { "topology ring\nmodule 0 bar 0 0 1 1\n", "c.view:1:1: expected two or more modules for the ring, the file has 1" },
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

/* A file loaded as the paradigm's setup: its own words (paradigm,
 * representations) and the topology are checked, at their columns. */
static void
test_setup_load_errors (void)
{
  static const struct {
    const char *text, *error;
  } cases[] = {
    { "size 10 10\nparadigm\tmacrame\n", ":2:10: expected paradigm lights, got macrame" },
    { "module 0 bar 0 0 1 1\nmodule 1   circle 0 0 1 1\n", ":2:12: expected representation bar or node, got circle" },
    { "module 0 bar 0 0 1 1\nlink 0 5\n", ":2:8: expected a module for node 5 of the link" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      char *path = NULL;
      gint fd = g_file_open_tmp ("lights-XXXXXX.view", &path, &error);
      g_assert_no_error (error);
      g_close (fd, NULL);
      g_assert_true (g_file_set_contents (path, cases[i].text, -1, NULL));
      g_assert_null (lights_setup_load (path, &error));
      char *want = g_strconcat (path, cases[i].error, NULL);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, want);
      g_clear_error (&error);
      g_free (want);
      g_unlink (path);
      g_free (path);
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
  /* the history says when: from 1.5, when the sample after its last (1.0)
   * did not come, not from 2.5, when it turned stale */
  gboolean seen = FALSE;
  for (guint i = 0; i < fx.model->history->len; i++)
    {
      const ViperHistoryEntry *e = &g_array_index (fx.model->history, ViperHistoryEntry, i);
      if (e->module == 3 && e->other == -1 && e->t0 == 1.5 && e->state == LIGHTS_STATE_NO_SAMPLE)
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lights/viewsetup/cluster-lines", test_cluster_lines);
  g_test_add_func ("/lights/viewsetup/cluster-errors", test_cluster_errors);
  g_test_add_func ("/lights/viewsetup/topology-errors", test_topology_errors);
  g_test_add_func ("/lights/viewsetup/setup-load-errors", test_setup_load_errors);
  g_test_add_func ("/lights/routes", test_routes);
  g_test_add_func ("/lights/model/traffic", test_model_traffic);
  g_test_add_func ("/lights/model/bad-input", test_model_bad_input);
  g_test_add_func ("/lights/model/reload", test_model_reload);
  g_test_add_func ("/lights/model/collection-end", test_collection_end);
  g_test_add_func ("/lights/model/silent-node", test_silent_node);
  return g_test_run ();
}
