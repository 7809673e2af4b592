/* macrame.c - the description of the Macrame paradigm (spec macrame.md section 2).
 *
 * Every Macrame tram is an instant event of one device with D1 = the
 * device's sequence number, and no tram waits for another device's: all four
 * types are FREE, so the run construction orders each device's trams by
 * sequence and nothing else (the testbed's devices do not talk to the spy
 * tools about each other).
 *
 * Bad input is decided before a tram counts as transferred.  The core checks
 * the exact NDATA (min_ndata is the exact count, and exact_ndata is set) and
 * integer data (DTYPE 2); the validate hook rejects the rest of what the spec
 * calls bad input for a known type: a state number outside 0..5.  Rule
 * breaking that is not bad input (transitions, rates, a node tram from a
 * switch) is the model's business: reported, counted, applied.
 */
#include "macrame.h"
#include "macrame-render.h"
#include "macrame-export.h"

#define NF VIPER_NO_FIELD

/* min_ndata = the exact NDATA (SEQ, plus the states and rates): exact_ndata */
static const ViperTramType macrame_types[] = {
  { MACRAME_REC, MACRAME_EV_MODULE_FOUND, "Module_found", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { MACRAME_REC, MACRAME_EV_MODULE_USED, "Module_used", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { MACRAME_REC, MACRAME_EV_NODE_CHANGED, "Node_changed", VIPER_ROLE_FREE, 0, 0, NF, NF, 5 },
  { MACRAME_REC, MACRAME_EV_SWITCH_CHANGED, "Switch_changed", VIPER_ROLE_FREE, 0, 0, NF, NF, 2 },
};

static gboolean
macrame_validate (const ViperTram *t, guint *field, char *reason, gsize size)
{
  const ViperTramType *tt = &macrame_types[t->type];
  const gint64 *d = viper_tram_data (t);
  /* the state fields: Node_changed D2 (tx) and D4 (rx), Switch_changed D2 */
  static const guint node_fields[] = { 1, 3 };
  static const guint switch_fields[] = { 1 };
  const guint *fields = NULL;
  guint n = 0;
  if (t->ev == MACRAME_EV_NODE_CHANGED)
    fields = node_fields, n = G_N_ELEMENTS (node_fields);
  else if (t->ev == MACRAME_EV_SWITCH_CHANGED)
    fields = switch_fields, n = G_N_ELEMENTS (switch_fields);
  for (guint i = 0; i < n; i++)
    if (d[fields[i]] < 0 || d[fields[i]] >= MACRAME_N_STATES)
      {
        *field = fields[i];
        g_snprintf (reason, size, "%s: state %" G_GINT64_FORMAT " is not 0..%d", tt->name, d[fields[i]],
                    MACRAME_N_STATES - 1);
        return FALSE;
      }
  return TRUE;
}

const ViperParadigm viper_macrame_paradigm = {
  .name = "macrame",
  .description = "Macrame switching-network testbeds: switches and nodes, setup and dynamic states, rates",
  .explicit_seq = TRUE,
  .types = macrame_types,
  .n_types = G_N_ELEMENTS (macrame_types),
  .profiles = NULL,
  .n_profiles = 0,
  .exact_ndata = TRUE,
  .validate = macrame_validate,
  .group_members = NULL,
  .model_new = macrame_model_new,
  .setup_load = macrame_setup_load,
  .setup_free = macrame_setup_free,
  .render = &macrame_renderer,
  .export = &macrame_exports,
};

const char *
macrame_state_name (MacrameState s)
{
  static const char *const names[] = { "idle/ok", "communicating", "congested", "overflow", "error", "undefined" };
  return (guint) s < G_N_ELEMENTS (names) ? names[s] : "undefined";
}

const char *
macrame_kind_name (MacrameKind k)
{
  switch (k)
    {
    case MACRAME_KIND_SWITCH: return "switch";
    case MACRAME_KIND_NODE: return "node";
    case MACRAME_KIND_UNKNOWN:
    default: return "unknown";
    }
}

MacrameSetupClass
macrame_device_setup_class (const MacrameDevice *d)
{
  if (!d->alive)
    return d->used ? MACRAME_SETUP_USED_NOT_ALIVE : MACRAME_SETUP_NONE;
  if (!d->used)
    return MACRAME_SETUP_ALIVE_NOT_USED;
  gboolean defined;
  switch (d->kind)
    {
    case MACRAME_KIND_SWITCH: defined = d->state != MACRAME_UNDEFINED; break;
    case MACRAME_KIND_NODE: defined = d->tx_state != MACRAME_UNDEFINED || d->rx_state != MACRAME_UNDEFINED; break;
    default:
      defined = d->state != MACRAME_UNDEFINED || d->tx_state != MACRAME_UNDEFINED
                || d->rx_state != MACRAME_UNDEFINED;
      break;
    }
  return defined ? MACRAME_SETUP_READY : MACRAME_SETUP_READY_UNDEFINED;
}

ViperSetup *
macrame_setup_load (const char *path, GError **error)
{
  ViperViewSetup *vs = viper_view_setup_load (path, error);
  if (!vs)
    return NULL;
  if (vs->paradigm && !g_str_equal (vs->paradigm, "macrame"))
    {
      g_set_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_SYNTAX,
                   "%s:%u:%u: expected paradigm macrame, got %s", path, vs->paradigm_line, vs->paradigm_col,
                   vs->paradigm);
      viper_view_setup_free (vs);
      return NULL;
    }
  for (guint i = 0; i < vs->modules->len; i++)
    {
      const ViperViewModule *m = &g_array_index (vs->modules, ViperViewModule, i);
      if (!g_str_equal (m->repr, "node") && !g_str_equal (m->repr, "switch"))
        {
          g_set_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_SYNTAX,
                       "%s:%u:%u: expected representation node or switch, got %s", path, m->line, m->repr_col,
                       m->repr);
          viper_view_setup_free (vs);
          return NULL;
        }
    }
  return (ViperSetup *) vs;
}

void
macrame_setup_free (ViperSetup *setup)
{
  viper_view_setup_free ((ViperViewSetup *) setup);
}
