/* macrame-export.c - Macrame runs for Pajé and Chrome.
 *
 * A Macrame trace describes devices (nodes and switches of a network) that
 * change state; there are no messages between traced processes, so there is
 * no ParaGraph form (the export table says why, and asking for it is a usage
 * error).  The timeline has a track per device in its dynamic state as the
 * model derived it: a switch's own state, a node's worse of transmitter and
 * receiver (a defined state wins over undefined).  Every state tram is also
 * an instant on its device's track that says what changed (found, used, the
 * node's tx / rx states, the switch's state), so no change is lost when a
 * node's summary state stays the same.
 */
#include "macrame.h"
#include "macrame-export.h"

static guint
summary (const MacrameDevice *d)
{
  if (d->kind == MACRAME_KIND_SWITCH)
    return d->state;
  if (d->tx_state == MACRAME_UNDEFINED)
    return d->rx_state;
  if (d->rx_state == MACRAME_UNDEFINED)
    return d->tx_state;
  return MAX (d->tx_state, d->rx_state);
}

static void
macrame_timeline (ViperExporter *e, const ViperTram *t, const ViperModel *m)
{
  if (t->proc < 0 || (t->flags & VIPER_TRAM_F_IGNORED))
    return;
  MacrameDevice d;
  macrame_model_device (m, t->proc, &d);
  char *what = NULL;
  switch (t->ev)
    {
    case MACRAME_EV_MODULE_FOUND:
      what = g_strdup ("found");
      break;
    case MACRAME_EV_MODULE_USED:
      what = g_strdup ("used");
      break;
    case MACRAME_EV_NODE_CHANGED:
      what = g_strdup_printf ("tx %s, rx %s", macrame_state_name (d.tx_state), macrame_state_name (d.rx_state));
      break;
    case MACRAME_EV_SWITCH_CHANGED:
      what = g_strdup_printf ("switch %s", macrame_state_name (d.state));
      break;
    default:
      break;
    }
  viper_timeline_state (e, t->proc, t->adjusted, summary (&d));
  if (what)
    viper_timeline_instant (e, t->proc, t->adjusted, what);
  g_free (what);
}

static const char *const macrame_states[] = { "idle/ok", "communicating", "congested", "overflow", "error",
                                              "undefined" };
static const char *const macrame_colors[] = { "0.2 0.7 0.2", "0.1 0.4 0.9", "1.0 0.8 0.1", "1.0 0.5 0.0",
                                              "0.8 0.1 0.1", "0.6 0.6 0.6" };

static const ViperTimelineInfo macrame_timeline_info = {
  .program = "Macrame run",
  .module_kind = "device",
  .states = macrame_states,
  .colors = macrame_colors,
  .n_states = G_N_ELEMENTS (macrame_states),
  .us_per_unit = 1e3,
};

const ViperExportTable macrame_exports = {
  .paragraph = NULL,
  .timeline = macrame_timeline,
  .timeline_info = &macrame_timeline_info,
  .no_paragraph_reason = "ParaGraph knows message passing only",
};
