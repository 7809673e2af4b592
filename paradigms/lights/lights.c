/* lights.c - the description of the cluster lights paradigm (docs/paradigm-lights.md).
 *
 * Every tram is an instant of one node with D1 = the node's sequence number
 * and no cross-dependency (FREE): the collectors report each node on its
 * own, and the run construction merges the nodes' own clocks.  A lost
 * report comes from the agent that noticed, on that agent's own sequence.
 *
 * What the format forbids is bad input, decided here before a tram counts
 * (validate): non-integer data, a wrong field count, a load outside
 * 0..1000 per mille, an interval that is not positive, negative bytes, a
 * node sending to itself, a code point that is not a Unicode scalar value.
 */
#include "lights.h"
#include "lights-render.h"

#define NF VIPER_NO_FIELD

static const ViperTramType lights_types[] = {
  { LIGHTS_REC, LIGHTS_EV_LOAD, "Load", VIPER_ROLE_FREE, 0, 0, NF, NF, 3 },
  { LIGHTS_REC, LIGHTS_EV_TRAFFIC, "Traffic", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { LIGHTS_REC, LIGHTS_EV_JOINED, "Joined", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { LIGHTS_REC, LIGHTS_EV_LOST, "Lost", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
  { LIGHTS_REC, LIGHTS_EV_MESSAGE, "Message", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
};

static gboolean
bad (guint *field, guint f, char *reason, gsize size, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static gboolean
bad (guint *field, guint f, char *reason, gsize size, const char *fmt, ...)
{
  *field = f;
  va_list ap;
  va_start (ap, fmt);
  g_vsnprintf (reason, size, fmt, ap);
  va_end (ap);
  return FALSE;
}

static gboolean
lights_validate (const ViperTram *t, guint *field, char *reason, gsize size)
{
  const ViperTramType *tt = &lights_types[t->type];
  if (t->dtype != VIPER_DTYPE_INT)
    return bad (field, 0, reason, size, "%s needs integer data (DTYPE 2)", tt->name);
  const gint64 *d = viper_tram_data (t);
  switch (t->ev)
    {
    case LIGHTS_EV_LOAD:
      if (t->ndata != 3)
        return bad (field, 3, reason, size, "Load needs exactly 3 data fields, has %u", t->ndata);
      if (d[1] < 0 || d[1] > LIGHTS_MAX_LOAD)
        return bad (field, 1, reason, size, "Load: busy share %" G_GINT64_FORMAT " is not 0..1000 per mille", d[1]);
      if (d[2] <= 0)
        return bad (field, 2, reason, size, "Load: interval %" G_GINT64_FORMAT " ms is not positive", d[2]);
      break;
    case LIGHTS_EV_TRAFFIC:
      if (t->ndata % 2)
        return bad (field, t->ndata - 1, reason, size, "Traffic needs PEER BYTES pairs after the interval");
      if (d[1] <= 0)
        return bad (field, 1, reason, size, "Traffic: interval %" G_GINT64_FORMAT " ms is not positive", d[1]);
      for (guint i = 2; i + 1 < t->ndata; i += 2)
        {
          if (d[i] < 0)
            return bad (field, i, reason, size, "Traffic: peer %" G_GINT64_FORMAT " is not a node id", d[i]);
          if (d[i] == t->proc)
            return bad (field, i, reason, size, "Traffic: node %" G_GINT64_FORMAT " sending to itself", d[i]);
          if (d[i + 1] < 0)
            return bad (field, i + 1, reason, size, "Traffic: %" G_GINT64_FORMAT " bytes is negative", d[i + 1]);
        }
      break;
    case LIGHTS_EV_JOINED:
      if (t->ndata != 2)
        return bad (field, 2, reason, size, "Joined needs exactly 2 data fields, has %u", t->ndata);
      if (d[1] < -1)
        return bad (field, 1, reason, size, "Joined: parent %" G_GINT64_FORMAT " is not a node id or -1", d[1]);
      break;
    case LIGHTS_EV_LOST:
      for (guint i = 1; i < t->ndata; i++)
        if (d[i] < 0)
          return bad (field, i, reason, size, "Lost: %" G_GINT64_FORMAT " is not a node id", d[i]);
      break;
    case LIGHTS_EV_MESSAGE:
      for (guint i = 1; i < t->ndata; i++)
        if (d[i] <= 0 || d[i] > 0x10ffff || !g_unichar_validate ((gunichar) d[i]))
          return bad (field, i, reason, size, "Message: %" G_GINT64_FORMAT " is not a Unicode character", d[i]);
      break;
    default:
      break;
    }
  return TRUE;
}

const ViperParadigm viper_lights_paradigm = {
  .name = "lights",
  .monitor = TRUE,
  .description = "Cluster lights (Lilith Lights): node load and link traffic over a virtual topology",
  .explicit_seq = TRUE,
  .types = lights_types,
  .n_types = G_N_ELEMENTS (lights_types),
  .profiles = NULL,
  .n_profiles = 0,
  .validate = lights_validate,
  .group_members = NULL,
  .model_new = lights_model_new,
  .setup_load = lights_setup_load,
  .setup_free = lights_setup_free,
  .render = &lights_renderer,
  .export = NULL,
};

ViperSetup *
lights_setup_load (const char *path, GError **error)
{
  ViperViewSetup *vs = viper_view_setup_load (path, error);
  if (!vs)
    return NULL;
  if (vs->paradigm && !g_str_equal (vs->paradigm, "lights"))
    {
      g_set_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_SYNTAX,
                   "%s:%u:%u: expected paradigm lights, got %s", path, vs->paradigm_line, vs->paradigm_col,
                   vs->paradigm);
      viper_view_setup_free (vs);
      return NULL;
    }
  for (guint i = 0; i < vs->modules->len; i++)
    {
      const ViperViewModule *m = &g_array_index (vs->modules, ViperViewModule, i);
      if (!g_str_equal (m->repr, "bar") && !g_str_equal (m->repr, "node"))
        {
          g_set_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_SYNTAX,
                       "%s:%u:%u: expected representation bar or node, got %s", path, m->line, m->repr_col, m->repr);
          viper_view_setup_free (vs);
          return NULL;
        }
    }
  LightsTopo *t = lights_topo_new (vs, error);
  if (!t)
    {
      viper_view_setup_free (vs);
      return NULL;
    }
  lights_topo_free (t);
  return (ViperSetup *) vs;
}

void
lights_setup_free (ViperSetup *setup)
{
  viper_view_setup_free ((ViperViewSetup *) setup);
}
