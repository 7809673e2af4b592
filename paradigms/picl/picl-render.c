/* picl-render.c - the picl paradigm in the views.
 *
 * Processors are the run's PROCs (PICL has no setup file naming them), shown
 * as P0, P1, ...  Their states take ParaGraph's utilisation colours: green
 * busy (useful work), yellow communicating (overhead), red idle (waiting for
 * a message nobody has sent yet).  Messages are history arrows from the send
 * begin on the sender's row to the receive end on the receiver's; in the
 * animation view, a message underway (sent, its receive end not applied yet)
 * is an arrow from its sender to its receiver.
 */
#include "picl-render.h"
#include "picl.h"

static gint
picl_state (const ViperModel *m, gint64 id)
{
  return (gint) viper_picl_model_state (m, id);
}

static const char *
picl_state_name (gint s)
{
  return viper_picl_state_name ((ViperPiclState) s);
}

static ViperColor
picl_color (gint s)
{
  switch (s)
    {
    case VIPER_PICL_COMMUNICATING: return (ViperColor) { 245 / 255.0, 200 / 255.0, 0 };
    case VIPER_PICL_IDLE: return (ViperColor) { 215 / 255.0, 38 / 255.0, 61 / 255.0 };
    case VIPER_PICL_BUSY:
    default: return (ViperColor) { 60 / 255.0, 180 / 255.0, 75 / 255.0 };
    }
}

static gboolean
picl_history_arrow (const ViperModel *m, const ViperHistoryEntry *e, ViperColor *color)
{
  (void) m;
  /* underway ones too: the view draws them dashed to the clock (t1 NaN) */
  if (e->state != VIPER_PICL_ARROW_MESSAGE)
    return FALSE;
  *color = (ViperColor) { 0, 0, 0 };
  return TRUE;
}

static int
cmp_pair (gconstpointer a, gconstpointer b)
{
  const ViperPiclMessage *x = a, *y = b;
  if (x->src != y->src)
    return x->src < y->src ? -1 : 1;
  return (x->dest > y->dest) - (x->dest < y->dest);
}

/* One arrow per (sender, receiver) with messages underway: a channel with a
 * thousand unreceived messages is still one line on the screen. */
static void
picl_arrows (const ViperModel *m, const ViperRun *run, GArray *out)
{
  (void) run;
  GArray *msgs = g_array_new (FALSE, FALSE, sizeof (ViperPiclMessage));
  viper_picl_model_underway (m, msgs);
  g_array_sort (msgs, cmp_pair);
  for (guint i = 0; i < msgs->len; i++)
    {
      const ViperPiclMessage *x = &g_array_index (msgs, ViperPiclMessage, i);
      if (i > 0 && cmp_pair (x, &g_array_index (msgs, ViperPiclMessage, i - 1)) == 0)
        continue;
      ViperViewArrow a = { x->src, x->dest, { 0.1, 0.1, 0.1 }, FALSE };
      g_array_append_val (out, a);
    }
  g_array_unref (msgs);
}

static char *
picl_activity (const ViperModel *m, gint64 id)
{
  return g_strdup_printf ("%s%" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT " received",
                          viper_picl_model_tracing (m, id) ? "" : "not tracing, ",
                          viper_picl_model_sent (m, id), viper_picl_model_received (m, id));
}

/* A call still open: its states so far (the history holds only its first
 * until it ends), so that a stop point shows what the exports write there. */
static void
picl_open_states (const ViperModel *m, gint64 id, GArray *out)
{
  if (!viper_picl_model_in_call (m, id))
    return;
  GArray *c = g_array_new (FALSE, FALSE, sizeof (ViperPiclChange));
  viper_picl_model_open_changes (m, id, c);
  for (guint i = 0; i < c->len; i++)
    {
      const ViperPiclChange *x = &g_array_index (c, ViperPiclChange, i);
      ViperViewChange v = { x->time, (gint) x->state };
      g_array_append_val (out, v);
    }
  g_array_unref (c);
}

const ViperRenderer viper_picl_renderer = {
  .modules = viper_view_modules_from_run,    /* PICL's host program logs as a negative node */
  .module_label = viper_view_label_p,
  .module_state = picl_state,
  .state_name = picl_state_name,
  .state_color = picl_color,
  .n_states = 3,
  .time_unit = "s",
  .arrows = picl_arrows,
  .history_arrow = picl_history_arrow,
  .module_activity = picl_activity,
  .module_ended = viper_picl_model_ended,
  .open_states = picl_open_states,
};
