/* macrame-sim-lib.c - a Macrame testbed simulator (spec macrame.md section 5).
 *
 * The simulator plays the spy tools of a mesh of C104 switches with 16
 * traffic nodes each.  It keeps the true state of every device and writes
 * the trams that report it, so that a replay can be checked against the
 * truth it writes alongside.
 *
 *  - Setup phase: each device is found alive, marked used (in the NDL
 *    sub-topology), both, or neither; a few alive and used devices never
 *    report a dynamic state, so every row of Table 13 occurs.
 *  - Dynamic phase: a hot spot moves over the mesh on a Lissajous path.  A
 *    device's load falls off with its distance to the hot spot, so traffic
 *    congests around it and drains behind it; the hottest devices overflow,
 *    an overflow only stays or turns into an error (the rule), and errors
 *    are repaired after a while.  Rates follow the load.  Devices report in
 *    random order, about once per second of testbed time each.
 *  - Clocks: each device's clock has its own offset and drift and every
 *    reading some jitter (kept monotonic per device, as a real clock is).
 *  - Delivery: every line gets a delivery key (its true time plus a random
 *    network delay, made monotonic per device) and the trace is sorted by
 *    it: devices interleave arbitrarily but each one's order is kept.
 *  - --malformed: bad lines (garbage, a known type with the wrong NDATA, a
 *    state number out of range, an exact duplicate of a real line) and
 *    well-formed rule breakers (a rate over MAXRATE, a tram for the other
 *    kind of device, a receiver congested or an overflow left for idle),
 *    plus trams of a type Macrame does not know and of devices the view
 *    setup does not name.  Each is counted, so the truth's counts say
 *    exactly what a replay must report.
 *
 * The truth applies the model's own semantics for rule breakers (clamped
 * rates, states taken as stated, wrong-kind trams ignored), so a correct
 * replay ends in exactly the truth's state.
 */
#include <math.h>
#include <string.h>
#include "macrame-sim-lib.h"
#include "macrame.h"
#include "core/jsonout.h"

void
macrame_sim_options_init (MacrameSimOptions *o)
{
  memset (o, 0, sizeof *o);
  o->mesh = 3;
  o->seed = 1;
  o->trams = 20000;
  o->maxrate = 100;
  o->offset = 50.0;
  o->drift = 1e-4;
  o->jitter = 0.05;
  o->shuffle = TRUE;
}

typedef struct {
  gint64 id;
  gboolean is_switch, stray;
  guint r, c;               /* mesh vertex (a node's is its switch's) */
  gboolean alive, used, active;
  guint8 state, tx, rx;
  gint32 txr, rxr;
  gint64 seq;
  double offset, drift, last_local, last_key;
} Dev;

typedef struct {
  double key;
  guint64 order;            /* tie break: emission order */
  gsize off;
  guint32 len;
} Line;

typedef struct {
  const MacrameSimOptions *o;
  GRand *rand;
  GArray *devs;             /* of Dev */
  guint n_mesh_devs;
  GString *text;            /* all lines, back to back */
  GArray *lines;            /* of Line */
  MacrameSimCounts counts;
  double delay;             /* mean network delay (ms) */
} Sim;

static double
uniform (Sim *s, double a, double b)
{
  return g_rand_double_range (s->rand, a, b);
}

static gboolean
chance (Sim *s, double p)
{
  return g_rand_double (s->rand) < p;
}

static double
local_time (Sim *s, Dev *d, double t)
{
  double local = t * (1 + d->drift) + d->offset + uniform (s, -s->o->jitter, s->o->jitter);
  if (local <= d->last_local)
    local = d->last_local + 1e-4;
  d->last_local = local;
  return local;
}

/* Queue one line for delivery around true time t. */
static void
push_line (Sim *s, Dev *d, double t, const char *line)
{
  double key = t;
  if (s->o->shuffle)
    key += -log (1 - g_rand_double (s->rand)) * s->delay;
  if (d)
    {
      key = MAX (key, d->last_key);
      d->last_key = key;
    }
  Line l = { key, s->lines->len, s->text->len, (guint32) strlen (line) };
  g_string_append (s->text, line);
  g_array_append_val (s->lines, l);
  s->counts.read++;
}

static void
emit (Sim *s, Dev *d, double t, gint64 ev, guint n, const gint64 *data)
{
  char time[40];
  g_ascii_formatd (time, sizeof time, "%.4f", local_time (s, d, t));
  GString *l = g_string_sized_new (64);
  g_string_printf (l, "2 %" G_GINT64_FORMAT " %s %" G_GINT64_FORMAT " 0 %u 2 %" G_GINT64_FORMAT, ev, time, d->id,
                   n + 1, ++d->seq);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (l, " %" G_GINT64_FORMAT, data[i]);
  push_line (s, d, t, l->str);
  g_string_free (l, TRUE);
}

/* ---- the truth: the model's semantics ------------------------------------- */

static gint32
clamp_rate (Sim *s, gint64 r)
{
  return (gint32) CLAMP (r, 0, s->o->maxrate);
}

static void
node_tram (Sim *s, Dev *d, double t, gint64 tx, gint64 txr, gint64 rx, gint64 rxr)
{
  gint64 data[4] = { tx, txr, rx, rxr };
  emit (s, d, t, MACRAME_EV_NODE_CHANGED, 4, data);
  if (d->is_switch)
    return;
  d->tx = (guint8) tx, d->rx = (guint8) rx;
  d->txr = clamp_rate (s, txr), d->rxr = clamp_rate (s, rxr);
}

static void
switch_tram (Sim *s, Dev *d, double t, gint64 st)
{
  emit (s, d, t, MACRAME_EV_SWITCH_CHANGED, 1, &st);
  if (!d->is_switch || d->stray)
    {
      if (d->stray)
        d->state = (guint8) st;
      return;
    }
  d->state = (guint8) st;
}

/* ---- the testbed's behaviour ----------------------------------------------- */

/* Load 0..1 of vertex (r, c) at time t (ms): a Gaussian around the hot spot. */
static double
load_at (Sim *s, guint r, guint c, double t)
{
  double half = (s->o->mesh - 1) / 2.0;
  double hx = half * (1 + sin (t / 9000.0 * 2 * G_PI)), hy = half * (1 + cos (t / 13000.0 * 2 * G_PI));
  double dx = c - hx, dy = r - hy;
  double sigma = MAX (0.8, s->o->mesh / 4.0);
  return exp (-(dx * dx + dy * dy) / (2 * sigma * sigma));
}

static guint8
state_for_load (Sim *s, double load)
{
  if (load > 0.88)
    return chance (s, 0.35) ? MACRAME_OVERFLOW : MACRAME_CONGESTED;
  if (load > 0.6)
    return MACRAME_CONGESTED;
  if (load > 0.12)
    return MACRAME_COMMUNICATING;
  return MACRAME_IDLE;
}

/* The next legal dynamic state of a transmitter or switch now in `cur`. */
static guint8
next_state (Sim *s, guint8 cur, double load)
{
  if (cur == MACRAME_ERROR)
    return chance (s, 0.3) ? MIN (state_for_load (s, load), (guint8) MACRAME_CONGESTED) : MACRAME_ERROR;
  if (chance (s, 0.002))
    return MACRAME_ERROR;
  guint8 want = state_for_load (s, load);
  if (cur == MACRAME_OVERFLOW && want != MACRAME_OVERFLOW)
    return chance (s, 0.4) ? MACRAME_ERROR : MACRAME_OVERFLOW;
  return want;
}

static void
dynamic_tram (Sim *s, Dev *d, double t)
{
  double load = CLAMP (load_at (s, d->r, d->c, t) * uniform (s, 0.85, 1.1) + uniform (s, 0, 0.08), 0, 1);
  if (d->is_switch)
    {
      switch_tram (s, d, t, next_state (s, d->state, load));
      return;
    }
  guint8 tx = next_state (s, d->tx, load);
  guint8 rx;
  if (d->rx == MACRAME_ERROR)
    rx = chance (s, 0.3) ? MACRAME_IDLE : MACRAME_ERROR;
  else
    rx = chance (s, 0.001) ? MACRAME_ERROR : load * uniform (s, 0.5, 1.2) > 0.12 ? MACRAME_COMMUNICATING
                                                                              : MACRAME_IDLE;
  gint64 max = s->o->maxrate;
  gint64 txr = tx == MACRAME_ERROR || tx == MACRAME_IDLE ? 0 : (gint64) llround (load * max * uniform (s, 0.8, 1.0));
  gint64 rxr = rx == MACRAME_COMMUNICATING ? (gint64) llround (load * max * uniform (s, 0.4, 1.0)) : 0;
  node_tram (s, d, t, tx, CLAMP (txr, 0, max), rx, CLAMP (rxr, 0, max));
}

static Dev *
random_active (Sim *s, gboolean want_switch, gboolean want_node)
{
  for (guint tries = 0; tries < 10000; tries++)
    {
      Dev *d = &g_array_index (s->devs, Dev, g_rand_int_range (s->rand, 0, (gint32) s->n_mesh_devs));
      if (d->active && ((d->is_switch && want_switch) || (!d->is_switch && want_node)))
        return d;
    }
  return NULL;
}

/* Injection number i of --malformed, at true time t. */
static void
inject (Sim *s, guint i, double t)
{
  char line[256];
  Dev *d;
  char time[40];
  g_ascii_formatd (time, sizeof time, "%.4f", t);
  switch (i % 10)
    {
    case 0:
      push_line (s, NULL, t, "this is not a tram");
      s->counts.rejected++;
      return;
    case 1: /* a known type, too few data fields: the core's minimum */
      d = &g_array_index (s->devs, Dev, i % s->n_mesh_devs);
      g_snprintf (line, sizeof line, "2 32 %s %" G_GINT64_FORMAT " 0 4 2 1 1 50 1", time, d->id);
      push_line (s, NULL, t, line);
      s->counts.rejected++;
      return;
    case 2: /* too many data fields: the exact NDATA */
      d = &g_array_index (s->devs, Dev, i % s->n_mesh_devs);
      g_snprintf (line, sizeof line, "2 33 %s %" G_GINT64_FORMAT " 0 3 2 1 0 0", time, d->id);
      push_line (s, NULL, t, line);
      s->counts.rejected++;
      return;
    case 3: /* state number out of range */
      d = &g_array_index (s->devs, Dev, i % s->n_mesh_devs);
      g_snprintf (line, sizeof line, "2 33 %s %" G_GINT64_FORMAT " 0 2 2 1 6", time, d->id);
      push_line (s, NULL, t, line);
      s->counts.rejected++;
      return;
    case 4: /* an exact copy of a line already written: whichever arrives second is rejected */
      if (s->lines->len)
        {
          const Line *src = &g_array_index (s->lines, Line, g_rand_int_range (s->rand, 0, (gint32) s->lines->len));
          char *copy = g_strndup (s->text->str + src->off, src->len);
          if (g_str_has_prefix (copy, "2 "))
            {
              push_line (s, NULL, t, copy);
              s->counts.rejected++;
            }
          g_free (copy);
        }
      return;
    case 5: /* a rate over MAXRATE: clamped */
      if ((d = random_active (s, FALSE, TRUE)))
        {
          node_tram (s, d, t, d->tx == MACRAME_UNDEFINED ? MACRAME_COMMUNICATING : d->tx, s->o->maxrate + 7,
                     d->rx == MACRAME_UNDEFINED ? MACRAME_IDLE : d->rx, d->rxr);
          s->counts.inconsistent++;
        }
      return;
    case 6: /* a tram for the other kind of device: ignored for the state */
      if ((d = random_active (s, TRUE, TRUE)))
        {
          if (d->is_switch)
            node_tram (s, d, t, MACRAME_IDLE, 0, MACRAME_IDLE, 0);
          else
            switch_tram (s, d, t, MACRAME_IDLE);
          s->counts.inconsistent++;
        }
      return;
    case 7: /* a type Macrame does not know: ignored, passed through */
      if ((d = random_active (s, TRUE, TRUE)))
        {
          emit (s, d, t, 40, 0, NULL);
          s->counts.ignored++;
        }
      return;
    case 8: /* an overflow left for idle, or a receiver congested */
      if ((d = random_active (s, FALSE, TRUE)))
        {
          if (d->tx == MACRAME_OVERFLOW)
            node_tram (s, d, t, MACRAME_IDLE, 0, d->rx == MACRAME_UNDEFINED ? MACRAME_IDLE : d->rx, d->rxr);
          else
            node_tram (s, d, t, d->tx == MACRAME_UNDEFINED ? MACRAME_IDLE : d->tx, d->txr, MACRAME_CONGESTED, 10);
          s->counts.inconsistent++;
        }
      return;
    case 9: /* a device the view setup does not name */
      {
        Dev stray = { .id = 100000 + i, .stray = TRUE, .state = MACRAME_UNDEFINED, .tx = MACRAME_UNDEFINED,
                      .rx = MACRAME_UNDEFINED, .offset = uniform (s, 0, s->o->offset) };
        g_array_append_val (s->devs, stray);
        d = &g_array_index (s->devs, Dev, s->devs->len - 1);
        emit (s, d, t, MACRAME_EV_MODULE_FOUND, 0, NULL);
        d->alive = TRUE;
        switch_tram (s, d, t + 1, MACRAME_COMMUNICATING);
      }
      return;
    }
}

static gint
cmp_line (gconstpointer a, gconstpointer b)
{
  const Line *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static gint
cmp_dev (gconstpointer a, gconstpointer b)
{
  const Dev *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The names of the spec (the simulator links no paradigm code). */
static const char *
state_name (guint8 s)
{
  static const char *const names[] = { "idle/ok", "communicating", "congested", "overflow", "error", "undefined" };
  return s < G_N_ELEMENTS (names) ? names[s] : "undefined";
}

static void
write_part (ViperJson *j, const char *key, guint8 state, gint32 rate)
{
  viper_json_key (j, key);
  viper_json_begin_object (j);
  viper_json_key (j, "state");
  viper_json_string (j, state_name (state));
  viper_json_key (j, "rate");
  viper_json_int (j, rate);
  viper_json_end_object (j);
}

static char *
truth_json (Sim *s)
{
  GArray *sorted = g_array_sized_new (FALSE, FALSE, sizeof (Dev), s->devs->len);
  g_array_append_vals (sorted, s->devs->data, s->devs->len);
  g_array_sort (sorted, cmp_dev);
  GString *out = g_string_new (NULL);
  ViperJson j;
  viper_json_init (&j, out, TRUE);
  viper_json_begin_object (&j);
  viper_json_key (&j, "paradigm");
  viper_json_string (&j, "macrame");
  viper_json_key (&j, "counts");
  viper_json_begin_object (&j);
  MacrameSimCounts *c = &s->counts;
  viper_json_key (&j, "read"); viper_json_int (&j, (gint64) c->read);
  viper_json_key (&j, "transferred"); viper_json_int (&j, (gint64) c->transferred);
  viper_json_key (&j, "pending"); viper_json_int (&j, 0);
  viper_json_key (&j, "rejected"); viper_json_int (&j, (gint64) c->rejected);
  viper_json_key (&j, "ignored"); viper_json_int (&j, (gint64) c->ignored);
  viper_json_key (&j, "inconsistent"); viper_json_int (&j, (gint64) c->inconsistent);
  viper_json_end_object (&j);
  viper_json_key (&j, "modules");
  viper_json_begin_array (&j);
  for (guint i = 0; i < sorted->len; i++)
    {
      const Dev *d = &g_array_index (sorted, Dev, i);
      viper_json_begin_object (&j);
      viper_json_key (&j, "id"); viper_json_int (&j, d->id);
      viper_json_key (&j, "kind");
      viper_json_string (&j, d->stray ? "unknown" : d->is_switch ? "switch" : "node");
      viper_json_key (&j, "alive"); viper_json_bool (&j, d->alive);
      viper_json_key (&j, "used"); viper_json_bool (&j, d->used);
      if (d->is_switch || d->stray)
        {
          viper_json_key (&j, "state");
          viper_json_string (&j, state_name (d->state));
        }
      if (!d->is_switch)
        {
          write_part (&j, "tx", d->tx, d->txr);
          write_part (&j, "rx", d->rx, d->rxr);
        }
      viper_json_end_object (&j);
    }
  viper_json_end_array (&j);
  viper_json_end_object (&j);
  g_string_append_c (out, '\n');
  g_array_unref (sorted);
  return g_string_free (out, FALSE);
}

void
macrame_sim_run (const MacrameSimOptions *o, MacrameSimResult *res)
{
  Sim s = { .o = o };
  s.rand = g_rand_new_with_seed ((guint32) (o->seed * 2654435761u + 7));
  s.devs = g_array_new (FALSE, TRUE, sizeof (Dev));
  s.text = g_string_sized_new (o->trams * 48 + 1024);
  s.lines = g_array_sized_new (FALSE, FALSE, sizeof (Line), (guint) MIN (o->trams + o->malformed + 64, 1u << 28));
  guint R = MAX (o->mesh, 1u);
  for (guint sw = 0; sw < R * R; sw++)
    {
      Dev d = { .id = sw, .is_switch = TRUE, .r = sw / R, .c = sw % R };
      g_array_append_val (s.devs, d);
    }
  for (guint sw = 0; sw < R * R; sw++)
    for (guint k = 0; k < 16; k++)
      {
        Dev d = { .id = macrame_sim_node_id (R, sw, k), .r = sw / R, .c = sw % R };
        g_array_append_val (s.devs, d);
      }
  s.n_mesh_devs = s.devs->len;
  guint n_active = 0;
  for (guint i = 0; i < s.n_mesh_devs; i++)
    {
      Dev *d = &g_array_index (s.devs, Dev, i);
      d->state = d->tx = d->rx = MACRAME_UNDEFINED;
      d->offset = uniform (&s, -o->offset, o->offset);
      d->drift = uniform (&s, -o->drift, o->drift);
      d->last_local = -INFINITY;
      d->last_key = -INFINITY;
    }
  /* one update per active device per second of testbed time */
  s.delay = 40.0;

  /* setup phase: the spy tools find the devices, then the NDL marks the used ones */
  for (guint i = 0; i < s.n_mesh_devs; i++)
    {
      Dev *d = &g_array_index (s.devs, Dev, i);
      double u = g_rand_double (s.rand);
      double t = uniform (&s, 0, 10);
      gboolean found = u >= 0.07, used = (u >= 0.04 && u < 0.07) || u >= 0.12;
      if (found)
        {
          emit (&s, d, t, MACRAME_EV_MODULE_FOUND, 0, NULL);
          d->alive = TRUE;
        }
      if (used)
        {
          emit (&s, d, t + uniform (&s, 10, 20), MACRAME_EV_MODULE_USED, 0, NULL);
          d->used = TRUE;
        }
      /* a few ready devices never report a dynamic state (grey) */
      d->active = found && used && !chance (&s, 0.03);
      n_active += d->active;
    }
  guint64 setup = s.counts.read;
  guint64 dynamic = o->trams > setup ? o->trams - setup : 0;
  double dt = n_active ? 1000.0 / n_active : 1.0;
  double t = 30;
  guint64 every = o->malformed ? MAX (dynamic / (o->malformed + 1), 1u) : 0;
  guint injected = 0;
  for (guint64 k = 0; k < dynamic && n_active; k++)
    {
      t += dt;
      if (every && injected < o->malformed && (k + 1) % every == 0)
        inject (&s, injected++, t);
      Dev *d = random_active (&s, TRUE, TRUE);
      if (d)
        dynamic_tram (&s, d, t);
    }
  while (injected < o->malformed)
    inject (&s, injected++, t += dt);
  s.counts.transferred = s.counts.read - s.counts.rejected;

  g_array_sort (s.lines, cmp_line);
  res->trace = g_string_sized_new (s.text->len + s.lines->len + 256);
  g_string_append_printf (res->trace, "# viper-macrame-sim: %ux%u mesh, seed %" G_GUINT64_FORMAT ", %u malformed\n", R,
                          R, o->seed, o->malformed);
  for (guint i = 0; i < s.lines->len; i++)
    {
      const Line *l = &g_array_index (s.lines, Line, i);
      g_string_append_len (res->trace, s.text->str + l->off, l->len);
      g_string_append_c (res->trace, '\n');
    }
  res->counts = s.counts;
  res->truth = truth_json (&s);
  g_rand_free (s.rand);
  g_array_unref (s.devs);
  g_array_unref (s.lines);
  g_string_free (s.text, TRUE);
}

void
macrame_sim_result_clear (MacrameSimResult *res)
{
  if (res->trace)
    g_string_free (res->trace, TRUE);
  g_free (res->truth);
  memset (res, 0, sizeof *res);
}

/* ---- view setup files ------------------------------------------------------- */

#define CELL 300.0

static void
ring_node (GString *v, guint R, gint64 sw, guint k, double cx, double cy)
{
  /* four nodes on each side of a 210 x 210 square around the switch */
  double off = -75.0 + 50.0 * (k % 4);
  double x, y;
  switch (k / 4)
    {
    case 0: x = cx + off, y = cy - 105; break;
    case 1: x = cx + 105, y = cy + off; break;
    case 2: x = cx - off, y = cy + 105; break;
    default: x = cx - 105, y = cy - off; break;
    }
  g_string_append_printf (v, "module %" G_GINT64_FORMAT " node %g %g 22 34 n%" G_GINT64_FORMAT ".%u\n",
                          macrame_sim_node_id (R, sw, k), x - 11, y - 17, sw, k);
}

char *
macrame_sim_view (guint R, MacrameSimView view, gint64 maxrate)
{
  GString *v = g_string_new (NULL);
  if (view == MACRAME_SIM_VIEW_TOPOLOGY)
    {
      g_string_append_printf (v, "# %ux%u Macrame mesh: topology view (switch (r,c) = %u r + c, node k of switch s = %u + 16 s + k)\n"
                              "paradigm macrame\nmaxrate %" G_GINT64_FORMAT "\nsize %g %g\n",
                              R, R, R, R * R, maxrate, CELL * R, CELL * R);
      g_string_append (v, "# mesh links between neighbouring vertices\n");
      for (guint r = 0; r < R; r++)
        for (guint c = 0; c < R; c++)
          {
            double cx = CELL * c + CELL / 2, cy = CELL * r + CELL / 2;
            if (c + 1 < R)
              g_string_append_printf (v, "line %g %g %g %g\n", cx + 40, cy, cx + CELL - 40, cy);
            if (r + 1 < R)
              g_string_append_printf (v, "line %g %g %g %g\n", cx, cy + 25, cx, cy + CELL - 25);
          }
      for (guint r = 0; r < R; r++)
        for (guint c = 0; c < R; c++)
          {
            gint64 sw = macrame_sim_switch_id (R, r, c);
            double cx = CELL * c + CELL / 2, cy = CELL * r + CELL / 2;
            g_string_append_printf (v, "# vertex (%u,%u)\nmodule %" G_GINT64_FORMAT " switch %g %g 80 50 (%u,%u)\n", r,
                                    c, sw, cx - 40, cy - 25, r, c);
            for (guint k = 0; k < 16; k++)
              ring_node (v, R, sw, k, cx, cy);
          }
      /* the space-time view: the first node of every switch */
      g_string_append (v, "spacetime");
      for (guint sw = 0; sw < R * R; sw++)
        g_string_append_printf (v, " %" G_GINT64_FORMAT, macrame_sim_node_id (R, sw, 0));
      g_string_append_c (v, '\n');
    }
  else
    {
      /* crate c holds the boards of mesh column c, slot r the board of row r:
       * the hardware view is the topology transposed, as cabled */
      double crate_h = 300, slot_w = 280;
      g_string_append_printf (v, "# %ux%u Macrame mesh: hardware view, %u crates of %u slots, one board per slot\n"
                              "paradigm macrame\nmaxrate %" G_GINT64_FORMAT "\nsize %g %g\n",
                              R, R, R, R, maxrate, slot_w * R + 40, crate_h * R + 20);
      for (guint c = 0; c < R; c++)
        {
          double cy = 10 + crate_h * c;
          g_string_append_printf (v, "# crate %u\nrect 10 %g %g %g fill lightgrey\ntext 20 %g Crate %u\n", c, cy,
                                  slot_w * R + 20, crate_h - 10, cy + 18, c);
          for (guint r = 0; r < R; r++)
            {
              double sx = 20 + slot_w * r, sy = cy + 26;
              gint64 sw = macrame_sim_switch_id (R, r, c);
              g_string_append_printf (v, "rect %g %g %g %g fill white\ntext %g %g Slot %u\n", sx, sy, slot_w - 10,
                                      crate_h - 46, sx + 6, sy + 14, r);
              g_string_append_printf (v, "rect %g %g %g %g fill beige\n", sx + 8, sy + 22, slot_w - 26, crate_h - 76);
              g_string_append_printf (v, "module %" G_GINT64_FORMAT " switch %g %g 140 40 C104 (%u,%u)\n", sw,
                                      sx + (slot_w - 10) / 2 - 70, sy + 30, r, c);
              for (guint k = 0; k < 16; k++)
                g_string_append_printf (v, "module %" G_GINT64_FORMAT " node %g %g 24 34 n%" G_GINT64_FORMAT ".%u\n",
                                        macrame_sim_node_id (R, sw, k), sx + 16 + 31 * (k % 8),
                                        sy + 90 + 50 * (k / 8), sw, k);
            }
        }
      g_string_append (v, "spacetime");
      for (guint sw = 0; sw < R * R; sw++)
        g_string_append_printf (v, " %" G_GINT64_FORMAT, macrame_sim_node_id (R, sw, 0));
      g_string_append_c (v, '\n');
    }
  return g_string_free (v, FALSE);
}
