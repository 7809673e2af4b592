/* macrame-model.c - the Macrame state model (spec macrame.md sections 1 and 3).
 *
 * One record per device: setup state (alive, used), the switch's dynamic
 * state, the node's transmitter and receiver (dynamic state and rate).  The
 * kind of a device (switch, node, unknown) is not in the trams: it comes
 * from the current view setup file, which the user may replace at any time
 * (macrame_model_set_view_setup) - so the kind is re-derived for every
 * device on a switch of setup, and the states are never touched by it.
 *
 * The rules of section 1 are checked on apply.  A tram that breaks one is
 * reported once (all its reasons in one message), counted as inconsistent,
 * and applied as far as it makes sense: a forbidden transition or a receiver
 * said to be congested is taken as stated, a rate outside 0..MAXRATE is
 * clamped, and a Node_changed from a switch (or a Switch_changed from a
 * node) changes no state because the fields have no meaning for that device.
 *
 * Lookups must be cheap (the headless replay applies millions of trams a
 * second): the testbeds number their devices from 0, so ids below a bound
 * index a dense array; any other id (a malformed trace's) goes through a
 * hash table.  Only node transmitters' state changes go to the history: they
 * are what the space-time view shows.
 */
#include <string.h>
#include "core/clocksync.h"
#include "macrame.h"
#include "core/run.h"

#define DENSE_LIMIT (1 << 20)

typedef struct {
  MacrameDevice d;
  gboolean heard;           /* sent a tram */
} Dev;

struct _MacrameModel {
  ViperModel base;
  const ViperViewSetup *vs; /* the current view setup, may be NULL */
  gint64 maxrate;
  GArray *devs;             /* of Dev */
  guint32 *dense;           /* id -> index in devs + 1, for 0 <= id < dense_cap */
  guint dense_cap;
  GHashTable *sparse;       /* other ids: gint64 -> index + 1 */
  gboolean any;
};

static const ViperModelClass macrame_class;

static MacrameModel *
mm (const ViperModel *m)
{
  g_return_val_if_fail (m != NULL && m->klass == &macrame_class, NULL);
  return (MacrameModel *) m;
}

static MacrameKind
kind_of (const ViperViewSetup *vs, gint64 id)
{
  const ViperViewModule *mod = viper_view_setup_module (vs, id);
  if (!mod)
    return MACRAME_KIND_UNKNOWN;
  if (g_str_equal (mod->repr, "switch"))
    return MACRAME_KIND_SWITCH;
  if (g_str_equal (mod->repr, "node"))
    return MACRAME_KIND_NODE;
  return MACRAME_KIND_UNKNOWN;
}

static void
initial_state (MacrameDevice *d, gint64 id)
{
  guint8 kind = d->kind;
  memset (d, 0, sizeof *d);
  d->id = id;
  d->kind = kind;
  d->state = d->tx_state = d->rx_state = MACRAME_UNDEFINED;
}

static Dev *
dev_find (const MacrameModel *m, gint64 id)
{
  guint i;
  if (id >= 0 && id < (gint64) m->dense_cap)
    i = m->dense[id];
  else
    i = GPOINTER_TO_UINT (g_hash_table_lookup (m->sparse, &id));
  return i ? &g_array_index (m->devs, Dev, i - 1) : NULL;
}

static Dev *
dev_get (MacrameModel *m, gint64 id)
{
  Dev *dv = dev_find (m, id);
  if (dv)
    return dv;
  Dev fresh = { .d.kind = (guint8) kind_of (m->vs, id) };
  initial_state (&fresh.d, id);
  g_array_append_val (m->devs, fresh);
  guint32 idx = m->devs->len;
  if (id >= 0 && id < DENSE_LIMIT)
    {
      if (id >= (gint64) m->dense_cap)
        {
          guint cap = MAX (m->dense_cap, 1024u);
          while ((gint64) cap <= id)
            cap *= 2;
          m->dense = g_renew (guint32, m->dense, cap);
          memset (m->dense + m->dense_cap, 0, (cap - m->dense_cap) * sizeof (guint32));
          m->dense_cap = cap;
        }
      m->dense[id] = idx;
    }
  else
    g_hash_table_insert (m->sparse, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (idx));
  return &g_array_index (m->devs, Dev, idx - 1);
}

static void
adopt_setup (MacrameModel *m, const ViperViewSetup *vs)
{
  m->vs = vs;
  m->maxrate = vs ? vs->maxrate : VIPER_VIEW_SETUP_DEFAULT_MAXRATE;
  for (guint i = 0; i < m->devs->len; i++)
    {
      Dev *dv = &g_array_index (m->devs, Dev, i);
      dv->d.kind = (guint8) kind_of (vs, dv->d.id);
    }
  for (guint i = 0; vs && i < vs->modules->len; i++)
    dev_get (m, g_array_index (vs->modules, ViperViewModule, i).id);
}

/* ---- the rules ----------------------------------------------------------- */

/* The reasons a tram breaks the rules, collected without allocating (this
 * runs for every state tram). */
typedef struct {
  char s[400];
  gsize n;
} Why;

static void why_add (Why *w, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
why_add (Why *w, const char *fmt, ...)
{
  if (w->n + 3 >= sizeof w->s)
    return;
  if (w->n)
    {
      memcpy (w->s + w->n, "; ", 3);
      w->n += 2;
    }
  va_list ap;
  va_start (ap, fmt);
  int k = g_vsnprintf (w->s + w->n, sizeof w->s - w->n, fmt, ap);
  va_end (ap);
  w->n = MIN (w->n + (gsize) MAX (k, 0), sizeof w->s - 1);
}

static gint32
clamp_rate (MacrameModel *m, gint64 rate, const char *part, Why *why)
{
  if (rate >= 0 && rate <= m->maxrate)
    return (gint32) rate;
  why_add (why, "%s rate %" G_GINT64_FORMAT " outside 0..%" G_GINT64_FORMAT " (clamped)", part, rate, m->maxrate);
  return (gint32) (rate < 0 ? 0 : m->maxrate);
}

/* A transmitter or switch in overflow may only stay there or go to error. */
static void
check_overflow (guint8 from, gint64 to, const char *part, Why *why)
{
  if (from == MACRAME_OVERFLOW && to != MACRAME_OVERFLOW && to != MACRAME_ERROR)
    why_add (why, "%s overflow -> %s (overflow may only stay or go to error)", part,
             macrame_state_name ((MacrameState) to));
}

static gboolean
node_changed (MacrameModel *m, Dev *dv, const ViperTram *t, const gint64 *d, Why *why)
{
  MacrameDevice *x = &dv->d;
  if (x->kind == MACRAME_KIND_SWITCH)
    {
      why_add (why, "Node_changed from switch %" G_GINT64_FORMAT " (state ignored)", x->id);
      return FALSE;
    }
  check_overflow (x->tx_state, d[1], "transmitter", why);
  if (d[3] == MACRAME_CONGESTED || d[3] == MACRAME_OVERFLOW)
    why_add (why, "receiver %s (a receiver is never congested or overflow)", macrame_state_name ((MacrameState) d[3]));
  gint32 txr = clamp_rate (m, d[2], "transmitter", why);
  gint32 rxr = clamp_rate (m, d[4], "receiver", why);
  gboolean tx_moved = x->tx_state != (guint8) d[1];
  gboolean changed = tx_moved || x->tx_rate != txr || x->rx_state != (guint8) d[3] || x->rx_rate != rxr;
  x->tx_state = (guint8) d[1];
  x->rx_state = (guint8) d[3];
  x->tx_rate = txr;
  x->rx_rate = rxr;
  if (tx_moved)
    {
      ViperHistoryEntry e = { t->adjusted, t->adjusted, (gint32) x->id, -1, x->tx_state, 0 };
      viper_model_history_add (&m->base, &e);
    }
  return changed;
}

static gboolean
switch_changed (MacrameModel *m, Dev *dv, const gint64 *d, Why *why)
{
  (void) m;
  MacrameDevice *x = &dv->d;
  if (x->kind == MACRAME_KIND_NODE)
    {
      why_add (why, "Switch_changed from node %" G_GINT64_FORMAT " (state ignored)", x->id);
      return FALSE;
    }
  check_overflow (x->state, d[1], "switch", why);
  gboolean changed = x->state != (guint8) d[1];
  x->state = (guint8) d[1];
  return changed;
}

static gboolean
macrame_apply (ViperModel *base, const ViperTram *t)
{
  MacrameModel *m = (MacrameModel *) base;
  const gint64 *d = viper_tram_data (t);
  Dev *dv = dev_get (m, t->proc);
  gboolean changed = !dv->heard;
  dv->heard = TRUE;
  m->any = TRUE;
  /* the core (exact_ndata) and the validate hook let through only exact, integer, in-range trams */
  Why why;
  why.n = 0;
  switch (t->ev)
    {
    case MACRAME_EV_MODULE_FOUND:
      changed |= !dv->d.alive;
      dv->d.alive = TRUE;
      break;
    case MACRAME_EV_MODULE_USED:
      changed |= !dv->d.used;
      dv->d.used = TRUE;
      break;
    case MACRAME_EV_NODE_CHANGED:
      changed |= node_changed (m, dv, t, d, &why);
      break;
    case MACRAME_EV_SWITCH_CHANGED:
      changed |= switch_changed (m, dv, d, &why);
      break;
    default:
      break;
    }
  if (why.n)
    viper_model_inconsistent (base, t, "%s", why.s);
  if (changed)
    viper_damage_add (base->damage, VIPER_AREA_MODULE, t->proc, 0);
  return changed;
}

static void
macrame_reset (ViperModel *base)
{
  MacrameModel *m = (MacrameModel *) base;
  g_array_set_size (m->devs, 0);
  if (m->dense)
    memset (m->dense, 0, m->dense_cap * sizeof (guint32));
  g_hash_table_remove_all (m->sparse);
  m->any = FALSE;
  adopt_setup (m, m->vs);
}

static void
macrame_destroy (ViperModel *base)
{
  MacrameModel *m = (MacrameModel *) base;
  g_array_unref (m->devs);
  g_free (m->dense);
  g_hash_table_destroy (m->sparse);
  viper_model_finish (base);
  g_free (m);
}

/* ---- checkpoints (core/model.h): the device table, copied whole; the kinds
 * are derived again from the view setup in use when restoring, since the
 * user may have replaced it since ---- */

typedef struct {
  GArray *devs;
  guint32 *dense;
  guint dense_cap;
  GHashTable *sparse;
  gboolean any;
} MacrameSnap;

static gpointer
macrame_snapshot (const ViperModel *base, gsize *bytes)
{
  const MacrameModel *m = (const MacrameModel *) base;
  MacrameSnap *s = g_new0 (MacrameSnap, 1);
  s->devs = g_array_copy (m->devs);
  s->dense = m->dense ? g_memdup2 (m->dense, m->dense_cap * sizeof (guint32)) : NULL;
  s->dense_cap = m->dense_cap;
  s->sparse = viper_int64_table_copy (m->sparse);
  s->any = m->any;
  *bytes = sizeof *s + m->devs->len * sizeof (Dev) + m->dense_cap * sizeof (guint32)
           + g_hash_table_size (m->sparse) * 48;
  return s;
}

static void
macrame_restore (ViperModel *base, gconstpointer snap)
{
  MacrameModel *m = (MacrameModel *) base;
  const MacrameSnap *s = snap;
  g_array_set_size (m->devs, 0);
  g_array_append_vals (m->devs, s->devs->data, s->devs->len);
  g_free (m->dense);
  m->dense = s->dense ? g_memdup2 (s->dense, s->dense_cap * sizeof (guint32)) : NULL;
  m->dense_cap = s->dense_cap;
  g_hash_table_destroy (m->sparse);
  m->sparse = viper_int64_table_copy (s->sparse);
  m->any = s->any;
  adopt_setup (m, m->vs);
}

static void
macrame_snapshot_free (gpointer snap)
{
  MacrameSnap *s = snap;
  g_array_unref (s->devs);
  g_free (s->dense);
  g_hash_table_destroy (s->sparse);
  g_free (s);
}

static const char *
macrame_program_state (const ViperModel *base)
{
  return ((const MacrameModel *) base)->any ? "running" : "inactive";
}

static gint
cmp_id (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

static void
write_part (ViperJson *j, const char *key, guint8 state, gint32 rate)
{
  viper_json_key (j, key);
  viper_json_begin_object (j);
  viper_json_key (j, "state");
  viper_json_string (j, macrame_state_name ((MacrameState) state));
  viper_json_key (j, "rate");
  viper_json_int (j, rate);
  viper_json_end_object (j);
}

static void
macrame_write_modules (const ViperModel *base, const ViperRun *run, ViperJson *j)
{
  GArray *ids = macrame_model_ids (base);
  for (guint i = 0; i < ids->len; i++)
    {
      MacrameDevice d;
      macrame_model_device (base, g_array_index (ids, gint64, i), &d);
      viper_json_begin_object (j);
      viper_json_key (j, "id");
      viper_json_int (j, d.id);
      /* every module has id, name and offset (spec section 5) */
      char name[48];
      g_snprintf (name, sizeof name, "%s %" G_GINT64_FORMAT, macrame_kind_name ((MacrameKind) d.kind), d.id);
      viper_json_key (j, "name");
      viper_json_string (j, name);
      viper_json_key (j, "offset");
      viper_json_double (j, run ? viper_run_offset (run, d.id) : 0.0);
      viper_json_key (j, "kind");
      viper_json_string (j, macrame_kind_name ((MacrameKind) d.kind));
      viper_json_key (j, "alive");
      viper_json_bool (j, d.alive);
      viper_json_key (j, "used");
      viper_json_bool (j, d.used);
      if (d.kind != MACRAME_KIND_NODE)
        {
          viper_json_key (j, "state");
          viper_json_string (j, macrame_state_name ((MacrameState) d.state));
        }
      if (d.kind != MACRAME_KIND_SWITCH)
        {
          write_part (j, "tx", d.tx_state, d.tx_rate);
          write_part (j, "rx", d.rx_state, d.rx_rate);
        }
      viper_clock_sync_write_module (run, d.id, j);
      viper_json_end_object (j);
    }
  g_array_unref (ids);
}

static const ViperModelClass macrame_class = {
  .apply = macrame_apply,
  .reset = macrame_reset,
  .destroy = macrame_destroy,
  .program_state = macrame_program_state,
  .write_top = NULL,
  .write_modules = macrame_write_modules,
  .group_members = NULL,
  .snapshot = macrame_snapshot,
  .restore = macrame_restore,
  .snapshot_free = macrame_snapshot_free,
};

ViperModel *
macrame_model_new (const ViperParadigm *p, ViperSetup *setup)
{
  MacrameModel *m = g_new0 (MacrameModel, 1);
  viper_model_init (&m->base, &macrame_class, p, setup);
  m->devs = g_array_new (FALSE, FALSE, sizeof (Dev));
  m->sparse = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  adopt_setup (m, (const ViperViewSetup *) setup);
  return &m->base;
}

/* ---- accessors ----------------------------------------------------------- */

void
macrame_model_device (const ViperModel *base, gint64 id, MacrameDevice *out)
{
  const MacrameModel *m = mm (base);
  const Dev *dv = dev_find (m, id);
  if (dv)
    {
      *out = dv->d;
      return;
    }
  out->kind = (guint8) kind_of (m->vs, id);
  initial_state (out, id);
}

gint64
macrame_model_maxrate (const ViperModel *base)
{
  return mm (base)->maxrate;
}

GArray *
macrame_model_ids (const ViperModel *base)
{
  const MacrameModel *m = mm (base);
  GArray *ids = g_array_sized_new (FALSE, FALSE, sizeof (gint64), m->devs->len);
  for (guint i = 0; i < m->devs->len; i++)
    {
      const Dev *dv = &g_array_index (m->devs, Dev, i);
      if (dv->heard || viper_view_setup_module (m->vs, dv->d.id))
        g_array_append_val (ids, dv->d.id);
    }
  g_array_sort (ids, cmp_id);
  return ids;
}

void
macrame_model_set_view_setup (ViperModel *base, const ViperViewSetup *vs)
{
  MacrameModel *m = mm (base);
  adopt_setup (m, vs);
  base->setup = (ViperSetup *) vs;
  viper_damage_add (base->damage, VIPER_AREA_ALL, 0, 0);
}

const ViperViewSetup *
macrame_model_view_setup (const ViperModel *base)
{
  return mm (base)->vs;
}
