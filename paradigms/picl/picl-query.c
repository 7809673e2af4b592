/* picl-query.c - the picl model's read-only accessors (picl.h): states and
 * counts by processor, the decided and open state changes, the messages
 * underway.  Out of the apply's path, apart from picl-model.c. */
#include <stdlib.h>
#include "picl-model-priv.h"

static const PiclModel *
checked (const ViperModel *m)
{
  g_return_val_if_fail (m != NULL && picl_model_is (m), NULL);
  return (const PiclModel *) m;
}

guint64
viper_picl_model_messages (const ViperModel *m)
{
  const PiclModel *pm = checked (m);
  return pm ? pm->messages : 0;
}

guint64
viper_picl_model_unreceived (const ViperModel *m)
{
  const PiclModel *pm = checked (m);
  return pm ? pm->unreceived : 0;
}

static const Proc *
find_const (const ViperModel *m, gint64 proc)
{
  const PiclModel *pm = checked (m);
  if (!pm)
    return NULL;
  const MapSlot *s = map_lookup (&pm->proc_index, proc, 0, 0);
  return s ? &g_array_index (pm->procs, Proc, s->v0) : NULL;
}

ViperPiclState
viper_picl_model_state (const ViperModel *m, gint64 proc)
{
  const Proc *p = find_const (m, proc);
  return p ? p->state : VIPER_PICL_BUSY;
}

gboolean
viper_picl_model_tracing (const ViperModel *m, gint64 proc)
{
  const Proc *p = find_const (m, proc);
  return p ? p->tracing : FALSE;
}

gboolean
viper_picl_model_ended (const ViperModel *m, gint64 proc)
{
  const Proc *p = find_const (m, proc);
  return p && p->started && !p->tracing && !p->calls.len;
}

guint64
viper_picl_model_sent (const ViperModel *m, gint64 proc)
{
  const Proc *p = find_const (m, proc);
  return p ? p->sent : 0;
}

guint64
viper_picl_model_received (const ViperModel *m, gint64 proc)
{
  const Proc *p = find_const (m, proc);
  return p ? p->received : 0;
}

guint
viper_picl_model_n_procs (const ViperModel *m)
{
  const PiclModel *pm = checked (m);
  return pm ? pm->procs->len : 0;
}

const ViperPiclChange *
viper_picl_model_changes (const ViperModel *m, guint *n)
{
  const PiclModel *pm = checked (m);
  *n = pm ? pm->decided.len : 0;
  return pm && pm->decided.len ? pm->decided.v : NULL;
}

gsize
viper_picl_model_table_bytes (const ViperModel *m)
{
  const PiclModel *pm = checked (m);
  if (!pm)
    return 0;
  return sizeof (MapSlot) * ((gsize) pm->channels.cap + pm->counts.cap + pm->requests.cap + pm->coll_counts.cap)
         + sizeof (Pending) * pm->pending->len;
}

gboolean
viper_picl_model_in_call (const ViperModel *m, gint64 proc)
{
  const Proc *p = find_const (m, proc);
  return p && p->calls.len > 0;
}

static void
open_changes (const Proc *p, GArray *out)
{
  if (!p->calls.len)
    return;
  /* the cuts: every begin, stopped waiting and end of the group's calls */
  GArray *cuts = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < p->spans.len; i++)
    {
      const Span *s = &p->spans.v[i];
      g_array_append_val (cuts, s->b);
      g_array_append_val (cuts, s->w);
      g_array_append_val (cuts, s->e);
    }
  for (guint i = 0; i < p->calls.len; i++)
    {
      const Call *c = &p->calls.v[i];
      g_array_append_val (cuts, c->begin);
      if (!isnan (c->ready))
        g_array_append_val (cuts, c->ready);
    }
  g_array_sort (cuts, picl_cmp_double);
  ViperPiclState last = VIPER_PICL_BUSY;
  for (guint i = 0; i < cuts->len; i++)
    {
      double t = g_array_index (cuts, double, i);
      if (t < p->group_begin || (i > 0 && t == g_array_index (cuts, double, i - 1)))
        continue;
      ViperPiclState s = picl_open_state_at (p, t);
      if (out->len && g_array_index (out, ViperPiclChange, out->len - 1).proc == p->id && s == last)
        continue;
      ViperPiclChange c = { p->id, t, s };
      g_array_append_val (out, c);
      last = s;
    }
  g_array_unref (cuts);
}

static gint
cmp_proc_ptr (gconstpointer a, gconstpointer b)
{
  gint64 x = (*(const Proc *const *) a)->id, y = (*(const Proc *const *) b)->id;
  return x < y ? -1 : x > y;
}

guint
viper_picl_model_open_changes (const ViperModel *m, gint64 proc, GArray *out)
{
  const PiclModel *pm = checked (m);
  guint before = out->len;
  if (!pm)
    return 0;
  if (proc != G_MININT64)
    {
      const Proc *p = find_const (m, proc);
      if (p)
        open_changes (p, out);
      return out->len - before;
    }
  GPtrArray *open = g_ptr_array_new ();
  for (guint i = 0; i < pm->procs->len; i++)
    if (g_array_index (pm->procs, Proc, i).calls.len)
      g_ptr_array_add (open, &g_array_index (pm->procs, Proc, i));
  g_ptr_array_sort (open, cmp_proc_ptr);
  for (guint i = 0; i < open->len; i++)
    open_changes (open->pdata[i], out);
  g_ptr_array_unref (open);
  return out->len - before;
}

double
viper_picl_model_first_time (const ViperModel *m)
{
  const PiclModel *pm = checked (m);
  return pm ? pm->first_time : INFINITY;
}

double
viper_picl_model_last_stop (const ViperModel *m)
{
  const PiclModel *pm = checked (m);
  return pm ? pm->last_stop : -INFINITY;
}

guint
viper_picl_model_n_subsets (const ViperModel *m)
{
  const PiclModel *pm = checked (m);
  return pm ? pm->n_subsets : 0;
}

static int
cmp_message (gconstpointer a, gconstpointer b)
{
  const ViperPiclMessage *x = a, *y = b;
  if (x->sent != y->sent)
    return x->sent < y->sent ? -1 : 1;
  if (x->src != y->src)
    return x->src < y->src ? -1 : 1;
  if (x->dest != y->dest)
    return x->dest < y->dest ? -1 : 1;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

/* The channel FIFOs hold exactly the send begins applied and not yet
 * received, so reading them out is the answer; sorting makes the order
 * independent of where the channels hash. */
guint
viper_picl_model_underway (const ViperModel *m, GArray *out)
{
  const PiclModel *pm = checked (m);
  if (!pm)
    return 0;
  guint first = out->len;
  for (guint i = 0; i < pm->channels.cap; i++)
    {
      const MapSlot *c = &pm->channels.s[i];
      if (!c->used)
        continue;
      for (gint64 idx = c->v0; idx >= 0; idx = g_array_index (pm->pending, Pending, idx).next)
        {
          ViperPiclMessage msg = { c->a, c->b, c->c, g_array_index (pm->pending, Pending, idx).adjusted };
          g_array_append_val (out, msg);
        }
    }
  guint n = out->len - first;
  if (n > 1)
    qsort (&g_array_index (out, ViperPiclMessage, first), n, sizeof (ViperPiclMessage), cmp_message);
  return n;
}
