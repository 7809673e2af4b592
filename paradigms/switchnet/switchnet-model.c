/* switchnet-model.c - the state of a switch network at the current step.
 *
 * Per port: the counter's value from the step of its last change (slice),
 * what it summed to before that change (so the running total at any step is
 * accum + value * (step - since + 1) without a tram per step), its total
 * over the whole series (from the importer's total trams), and the job on a
 * processor port.  The clock is the step.  A tram naming a port the model
 * file does not have, or a switch it does not define, is inconsistent:
 * counted, reported, not applied.
 *
 * The space-time view shows each switch as a row whose state is the range
 * class of its largest slice value; that class goes to the history when it
 * changes.  The views draw the whole network, so every change damages the
 * whole animation (networks of this kind have a few hundred switches).
 */
#include <string.h>
#include "switchnet.h"
#include "switchnet-render.h"
#include "core/run.h"

typedef struct {
  gint64 value, since, accum, total, job;
  gboolean has;
} Port;

typedef struct {
  ViperModel base;
  const SwnNet *net;        /* the setup, not owned (or own_net) */
  SwnNet *own_net;          /* an empty network when there is no model file */
  Port *ports;              /* switches x SWN_MAX_PORTS */
  guint8 *has_data;         /* per switch */
  gint *klass;              /* per switch: range class shown in the space-time view */
  guint n_switches;
  guint n_ended;
  gboolean any, any_data;
} SwnModel;

static const ViperModelClass swn_class;

static SwnModel *
sm (const ViperModel *m)
{
  g_return_val_if_fail (m != NULL && m->klass == &swn_class, NULL);
  return (SwnModel *) m;
}

const SwnNet *
swn_model_net (const ViperModel *m)
{
  return sm (m)->net;
}

gint64
swn_model_step (const ViperModel *m)
{
  if (!sm (m)->any || !(m->clock >= 0))
    return 0;
  return m->clock > 1e15 ? (gint64) 1e15 : (gint64) m->clock;
}

/* Sums of a tram's value (any 64-bit integer) over up to 1e12 steps can
 * leave the 64-bit range: they saturate instead of overflowing. */
static gint64
sat_add (gint64 a, gint64 b)
{
  gint64 r;
  if (__builtin_add_overflow (a, b, &r))
    return b > 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

static gint64
sat_mul (gint64 a, gint64 b)
{
  gint64 r;
  if (__builtin_mul_overflow (a, b, &r))
    return (a < 0) != (b < 0) ? G_MININT64 : G_MAXINT64;
  return r;
}

static Port *
port_of (const SwnModel *m, guint sw, guint port)
{
  return &m->ports[(gsize) sw * SWN_MAX_PORTS + port];
}

void
swn_model_port (const ViperModel *base, guint sw, guint port, SwnPortState *out)
{
  const SwnModel *m = sm (base);
  memset (out, 0, sizeof *out);
  if (sw >= m->n_switches || port >= SWN_MAX_PORTS)
    return;
  const Port *p = port_of (m, sw, port);
  gint64 step = swn_model_step (base);
  out->has_value = p->has;
  out->value = p->value;
  out->running = sat_add (p->accum, step >= p->since ? sat_mul (p->value, step - p->since + 1) : 0);
  out->total = p->total;
  out->job = p->job;
}

gboolean
swn_model_switch_has_data (const ViperModel *base, guint sw)
{
  const SwnModel *m = sm (base);
  return sw < m->n_switches && m->has_data[sw];
}

gboolean
swn_model_any_data (const ViperModel *base)
{
  return sm (base)->any_data;
}

gint64
swn_port_shown (const SwnInit *init, const SwnPortState *s)
{
  switch (init->mode)
    {
    case SWN_MODE_TOTAL: return s->total;
    case SWN_MODE_RUNNING: return s->running;
    case SWN_MODE_SLICE:
    default: return s->value;
    }
}

gint
swn_value_class (const SwnInit *init, gint64 v)
{
  if (v < init->min)
    return SWN_CLASS_BELOW;
  if (v > init->max)
    return SWN_CLASS_ABOVE;
  if (init->max == init->min)
    return SWN_CLASS_MIN;
  double f = (double) (v - init->min) / (double) (init->max - init->min);
  return SWN_CLASS_MIN + (gint) (f * (SWN_CLASS_MAX - SWN_CLASS_MIN) + 0.5);
}

SwnRgb
swn_value_color (const SwnInit *init, gint64 v)
{
  if (v < init->min)
    return init->below;
  if (v > init->max)
    return init->above;
  /* blue at the minimum, red at the maximum, purples between */
  double f = init->max == init->min ? 0 : (double) (v - init->min) / (double) (init->max - init->min);
  return (SwnRgb) { f, 0.0, 1.0 - f };
}

SwnRgb
swn_job_color (gint64 job)
{
  if (job == 0)
    return (SwnRgb) { 0.25, 0.25, 0.25 };
  /* a stable "random" hue per job id: the golden-ratio walk around the wheel */
  guint64 h = (guint64) job * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  double hue = (double) (h >> 11) / (double) (G_GUINT64_CONSTANT (1) << 53);
  double s = 0.75, v = 0.95;
  double r, g, b;
  double i = hue * 6.0;
  int k = (int) i % 6;
  double fr = i - (int) i;
  double p = v * (1 - s), q = v * (1 - s * fr), t = v * (1 - s * (1 - fr));
  switch (k)
    {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
    }
  return (SwnRgb) { r, g, b };
}

static gint
switch_class (const SwnModel *m, guint sw)
{
  if (!m->has_data[sw])
    return SWN_CLASS_NONE;
  gint64 best = G_MININT64;
  gboolean any = FALSE;
  for (guint p = 0; p < swn_n_ports (m->net); p++)
    {
      const Port *pp = port_of (m, sw, p);
      if (pp->has && (!any || pp->value > best))
        best = pp->value, any = TRUE;
    }
  return any ? swn_value_class (&m->net->init, best) : SWN_CLASS_NONE;
}

static gboolean
swn_apply (ViperModel *base, const ViperTram *t)
{
  SwnModel *m = (SwnModel *) base;
  m->any = TRUE;
  if (t->proc < 0 || t->proc >= m->n_switches)
    {
      if (m->n_switches == 0)
        viper_model_inconsistent (base, t, "switch %" G_GINT64_FORMAT ": no model file (--setup=MODEL)", t->proc);
      else
        viper_model_inconsistent (base, t, "switch %" G_GINT64_FORMAT " is not in the model (0..%u)", t->proc,
                                  m->n_switches - 1);
      return FALSE;
    }
  guint sw = (guint) t->proc;
  const gint64 *d = viper_tram_data (t);
  gint64 step = t->time >= 0 && t->time < 1e15 ? (gint64) t->time : 0;
  if (t->ev == SWN_EV_STEP)
    {
      viper_damage_add (base->damage, VIPER_AREA_ALL, 0, 0);
      return TRUE;
    }
  if (t->ev == SWN_EV_END)
    {
      m->n_ended++;
      viper_damage_add (base->damage, VIPER_AREA_PROGRAM, 0, 0);
      viper_damage_add (base->damage, VIPER_AREA_ALL, 0, 0);
      return TRUE;
    }
  gint64 port = d[1], v = d[2];
  if (port < 0 || port >= swn_n_ports (m->net))
    {
      viper_model_inconsistent (base, t, "switch %s has no port %" G_GINT64_FORMAT " (0..%u)",
                                g_array_index (m->net->switches, SwnSwitch, sw).label, port,
                                swn_n_ports (m->net) - 1);
      return FALSE;
    }
  Port *p = port_of (m, sw, (guint) port);
  switch (t->ev)
    {
    case SWN_EV_VALUE:
      if (step > p->since)
        p->accum = sat_add (p->accum, sat_mul (p->value, step - p->since));
      p->since = step;
      p->value = v;
      p->has = TRUE;
      break;
    case SWN_EV_TOTAL:
      p->total = v;
      p->has = TRUE;
      break;
    case SWN_EV_JOB:
      if (port >= m->net->n_proc_ports)
        {
          viper_model_inconsistent (base, t, "a job on network port %" G_GINT64_FORMAT, port);
          return FALSE;
        }
      p->job = v;
      break;
    default:
      return FALSE;
    }
  if (t->ev != SWN_EV_JOB && !m->has_data[sw])
    {
      m->has_data[sw] = 1;
      m->any_data = TRUE;
    }
  gint k = switch_class (m, sw);
  if (k != m->klass[sw])
    {
      m->klass[sw] = k;
      ViperHistoryEntry e = { t->time, t->time, (gint32) sw, -1, k, 0 };
      viper_model_history_add (base, &e);
    }
  /* a selected port's own series for the space-time view */
  if (t->ev == SWN_EV_VALUE && m->net->selected)
    for (guint i = 0; i < m->net->selected->len; i++)
      if (g_array_index (m->net->selected, guint, i) == sw * SWN_MAX_PORTS + (guint) port)
        {
          ViperHistoryEntry e = { t->time, t->time, (gint32) (SWN_PORT_ID_BASE + sw * SWN_MAX_PORTS + port), -1,
                                  swn_value_class (&m->net->init, v), 0 };
          viper_model_history_add (base, &e);
        }
  viper_damage_add (base->damage, VIPER_AREA_MODULE, sw, 0);
  viper_damage_add (base->damage, VIPER_AREA_VARIABLE, sw, port);
  viper_damage_add (base->damage, VIPER_AREA_ALL, 0, 0);
  return TRUE;
}

gint
swn_model_switch_class (const ViperModel *base, guint sw)
{
  const SwnModel *m = sm (base);
  return sw < m->n_switches ? m->klass[sw] : SWN_CLASS_NONE;
}

static void
swn_reset (ViperModel *base)
{
  SwnModel *m = (SwnModel *) base;
  memset (m->ports, 0, sizeof (Port) * m->n_switches * SWN_MAX_PORTS);
  memset (m->has_data, 0, m->n_switches);
  for (guint i = 0; i < m->n_switches; i++)
    m->klass[i] = SWN_CLASS_NONE;
  m->n_ended = 0;
  m->any = m->any_data = FALSE;
  viper_damage_add (base->damage, VIPER_AREA_ALL, 0, 0);
}

static void
swn_destroy (ViperModel *base)
{
  SwnModel *m = (SwnModel *) base;
  g_free (m->ports);
  g_free (m->has_data);
  g_free (m->klass);
  swn_net_free (m->own_net);
  viper_model_finish (base);
  g_free (m);
}

/* ---- checkpoints (core/model.h): the per-switch arrays, fixed in size by
 * the network, copied whole ---- */

typedef struct {
  Port *ports;
  guint8 *has_data;
  gint *klass;
  guint n_ended;
  gboolean any, any_data;
} SwnSnap;

static gpointer
swn_snapshot (const ViperModel *base, gsize *bytes)
{
  const SwnModel *m = (const SwnModel *) base;
  gsize np = sizeof (Port) * m->n_switches * SWN_MAX_PORTS;
  SwnSnap *s = g_new0 (SwnSnap, 1);
  s->ports = g_memdup2 (m->ports, np);
  s->has_data = g_memdup2 (m->has_data, m->n_switches);
  s->klass = g_memdup2 (m->klass, m->n_switches * sizeof (gint));
  s->n_ended = m->n_ended;
  s->any = m->any;
  s->any_data = m->any_data;
  *bytes = sizeof *s + np + m->n_switches * (1 + sizeof (gint));
  return s;
}

static void
swn_restore (ViperModel *base, gconstpointer snap)
{
  SwnModel *m = (SwnModel *) base;
  const SwnSnap *s = snap;
  memcpy (m->ports, s->ports, sizeof (Port) * m->n_switches * SWN_MAX_PORTS);
  memcpy (m->has_data, s->has_data, m->n_switches);
  memcpy (m->klass, s->klass, m->n_switches * sizeof (gint));
  m->n_ended = s->n_ended;
  m->any = s->any;
  m->any_data = s->any_data;
}

static void
swn_snapshot_free (gpointer snap)
{
  SwnSnap *s = snap;
  g_free (s->ports);
  g_free (s->has_data);
  g_free (s->klass);
  g_free (s);
}

static const char *
swn_program_state (const ViperModel *base)
{
  const SwnModel *m = (const SwnModel *) base;
  if (!m->any)
    return "inactive";
  return m->n_ended >= m->n_switches ? "terminated" : "running";
}

static const char *const mode_names[] = { "slice", "running", "total" };
static const char *const view_names[] = { "network", "processor", "torus" };

static void
swn_write_top (const ViperModel *base, ViperJson *j)
{
  const SwnModel *m = (const SwnModel *) base;
  viper_json_key (j, "step");
  viper_json_int (j, swn_model_step (base));
  viper_json_key (j, "view");
  viper_json_string (j, view_names[m->net->init.view]);
  viper_json_key (j, "mode");
  viper_json_string (j, mode_names[m->net->init.mode]);
  viper_json_key (j, "min");
  viper_json_int (j, m->net->init.min);
  viper_json_key (j, "max");
  viper_json_int (j, m->net->init.max);
}

static void
swn_write_modules (const ViperModel *base, const ViperRun *run, ViperJson *j)
{
  const SwnModel *m = (const SwnModel *) base;
  for (guint sw = 0; sw < m->n_switches; sw++)
    {
      const SwnSwitch *s = &g_array_index (m->net->switches, SwnSwitch, sw);
      viper_json_begin_object (j);
      viper_json_key (j, "id");
      viper_json_int (j, sw);
      /* every module has id, name and offset (spec section 5) */
      viper_json_key (j, "name");
      viper_json_string (j, s->label);
      viper_json_key (j, "offset");
      viper_json_double (j, run ? viper_run_offset (run, sw) : 0.0);
      viper_json_key (j, "label");
      viper_json_string (j, s->label);
      viper_json_key (j, "row");
      viper_json_int (j, s->row);
      viper_json_key (j, "column");
      viper_json_int (j, s->col);
      viper_json_key (j, "plane");
      viper_json_int (j, s->plane);
      viper_json_key (j, "has_data");
      viper_json_bool (j, m->has_data[sw]);
      viper_json_key (j, "ports");
      viper_json_begin_array (j);
      for (guint p = 0; p < swn_n_ports (m->net); p++)
        {
          SwnPortState ps;
          swn_model_port (base, sw, p, &ps);
          if (!ps.has_value && !ps.job)
            continue;
          viper_json_begin_object (j);
          viper_json_key (j, "port");
          viper_json_int (j, p);
          viper_json_key (j, "value");
          viper_json_int (j, ps.value);
          viper_json_key (j, "running");
          viper_json_int (j, ps.running);
          viper_json_key (j, "total");
          viper_json_int (j, ps.total);
          viper_json_key (j, "shown");
          viper_json_int (j, swn_port_shown (&m->net->init, &ps));
          if (p < m->net->n_proc_ports)
            {
              viper_json_key (j, "job");
              viper_json_int (j, ps.job);
            }
          viper_json_end_object (j);
        }
      viper_json_end_array (j);
      viper_json_end_object (j);
    }
}

static const ViperModelClass swn_class = {
  .apply = swn_apply,
  .reset = swn_reset,
  .destroy = swn_destroy,
  .program_state = swn_program_state,
  .write_top = swn_write_top,
  .write_modules = swn_write_modules,
  .snapshot = swn_snapshot,
  .restore = swn_restore,
  .snapshot_free = swn_snapshot_free,
};

ViperModel *
swn_model_new (const ViperParadigm *p, ViperSetup *setup)
{
  SwnModel *m = g_new0 (SwnModel, 1);
  viper_model_init (&m->base, &swn_class, p, setup);
  m->net = (const SwnNet *) setup;
  if (!m->net)
    {
      /* no model file: an empty network keeps the replay going, and every
       * tram is reported as naming no switch */
      m->own_net = swn_net_new_empty ("(no model file)");
      m->net = m->own_net;
    }
  m->n_switches = m->net->switches ? m->net->switches->len : 0;
  m->ports = g_new0 (Port, (gsize) MAX (m->n_switches, 1) * SWN_MAX_PORTS);
  m->has_data = g_new0 (guint8, MAX (m->n_switches, 1));
  m->klass = g_new0 (gint, MAX (m->n_switches, 1));
  return &m->base;
}
