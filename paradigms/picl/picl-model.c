/* picl-model.c - the program-state model of the PICL paradigm.
 *
 * apply() sees the transferred trams in run order and keeps, per processor,
 * its state (busy / communicating / idle), whether it traces, and what it
 * sent and received; across processors it pairs every receive end with its
 * send begin to draw the message arrows of the space-time view.
 *
 * Pairing mirrors the engine's rule: the k-th send on channel (SRC, DEST,
 * TAG) is received by the k-th receive end on DEST naming (SRC, TAG).  Each
 * channel keeps a FIFO of send begins applied and not yet received; a receive
 * end pops the head of its channel.  In a consistent run the head is always
 * there (the receive end depends on its send begin), so an empty channel is
 * an inconsistency.
 *
 * Idle is decided from adjusted times, never from the order in which trams
 * were applied (spec section 3; see "states" below): a receive is idle from
 * its begin until the adjusted time of the send begin it took, which is
 * known at its end.  The state at the clock while a call is open is only
 * provisional; for it, "is there a matching message" is answered in O(1)
 * for any-source (-1) receives because every send begin also counts under
 * the wildcard keys (-1, DEST, TAG), (SRC, DEST, -1) and (-1, DEST, -1).
 * Collectives live in picl-collective.c, the accessors in picl-query.c.
 *
 * Nothing in the common path allocates: channels, counters, processors and
 * non-blocking receive requests live in open-addressing tables of fixed-size
 * slots (linear probing, backward-shift deletion) and the FIFO nodes come from
 * one array with a free list; both grow geometrically and are reused.
 */
#include <stdlib.h>
#include "picl-model-priv.h"
#include "core/clocksync.h"

/* ---- the model ------------------------------------------------------------- */

static const ViperModelClass picl_class;

static PiclModel *
picl (const ViperModel *m)
{
  return (PiclModel *) m;
}

gpointer
picl_vec_grow (gpointer v, guint *cap, gsize elem)
{
  if (*cap > G_MAXUINT / 2)
    g_error ("picl model: more than %u calls, spans or changes at once", *cap);
  *cap = *cap ? *cap * 2 : 4;
  return g_realloc_n (v, *cap, elem);
}

/* Processor ids are small in practice: below this, a direct table caches
 * where each one is in procs (the map stays the truth, and a snapshot's). */
#define PICL_PROC_SLOTS 65536u

static void
proc_slot_set (PiclModel *m, gint64 id, guint index)
{
  if (id < 0 || (guint64) id >= PICL_PROC_SLOTS)
    return;
  if ((guint) id >= m->proc_slot_len)
    {
      guint len = MAX (64u, m->proc_slot_len);
      while (len <= (guint) id)
        len *= 2;
      m->proc_slot = g_renew (guint32, m->proc_slot, len);
      memset (m->proc_slot + m->proc_slot_len, 0, (len - m->proc_slot_len) * sizeof (guint32));
      m->proc_slot_len = len;
    }
  m->proc_slot[id] = index + 1;
}

void
picl_proc_cache_clear (PiclModel *m)
{
  m->last_proc = 0;
  m->last_index = G_MAXUINT;
  if (m->proc_slot_len)
    memset (m->proc_slot, 0, m->proc_slot_len * sizeof (guint32));
}

Proc *
picl_proc_find_slow (PiclModel *m, gint64 id)
{
  if (m->last_index < m->procs->len && m->last_proc == id)
    return &g_array_index (m->procs, Proc, m->last_index);
  if (id >= 0 && (guint64) id < m->proc_slot_len && m->proc_slot[id])
    {
      m->last_proc = id;
      m->last_index = m->proc_slot[id] - 1;
      return &g_array_index (m->procs, Proc, m->last_index);
    }
  MapSlot *s = map_lookup (&m->proc_index, id, 0, 0);
  if (!s)
    return NULL;
  m->last_proc = id;
  m->last_index = (guint) s->v0;
  proc_slot_set (m, id, m->last_index);
  return &g_array_index (m->procs, Proc, s->v0);
}

static Proc *
proc_get (PiclModel *m, gint64 id)
{
  Proc *p = picl_proc_find (m, id);
  if (p)
    return p;
  Proc fresh = { .id = id, .state = VIPER_PICL_BUSY, .post_src = -1, .post_tag = -1 };
  g_array_append_val (m->procs, fresh);
  MapSlot *s = map_insert (&m->proc_index, id, 0, 0, NULL);
  s->v0 = m->procs->len - 1;
  m->last_proc = id;
  m->last_index = m->procs->len - 1;
  proc_slot_set (m, id, m->last_index);
  return &g_array_index (m->procs, Proc, m->procs->len - 1);
}

/* The counter keys of a message (src, dest, tag), without repeats: the
 * wildcard ones.  The exact key (src, dest, tag) has no counter when src and
 * tag are both concrete: its channel (m->channels) holds its sends. */
static guint
count_keys (gint64 src, gint64 dest, gint64 tag, gint64 keys[4][3])
{
  gint64 cand[4][3] = { { src, dest, tag }, { -1, dest, tag }, { src, dest, -1 }, { -1, dest, -1 } };
  guint n = 0;
  for (guint i = src != -1 && tag != -1 ? 1 : 0; i < 4; i++)
    {
      gboolean seen = FALSE;
      for (guint j = 0; j < n; j++)
        if (keys[j][0] == cand[i][0] && keys[j][1] == cand[i][1] && keys[j][2] == cand[i][2])
          seen = TRUE;
      if (!seen)
        memcpy (keys[n++], cand[i], sizeof cand[i]);
    }
  return n;
}

/* Counters that drop to zero are removed, so fresh tags do not grow the
 * table for good (issue 10 item 20): it holds the channels with messages
 * underway, not every channel ever used. */
static inline void
count_one (PiclModel *m, gint64 a, gint64 b, gint64 c, gint64 delta)
{
  MapSlot *s = map_insert (&m->counts, a, b, c, NULL);
  s->v0 += delta;
  if (s->v0 == 0)
    map_remove (&m->counts, s);
}

static void
count_add (PiclModel *m, gint64 src, gint64 dest, gint64 tag, gint64 delta)
{
  if (G_LIKELY (src != -1 && tag != -1))
    {
      /* the three wildcard keys, distinct */
      count_one (m, -1, dest, tag, delta);
      count_one (m, src, dest, -1, delta);
      count_one (m, -1, dest, -1, delta);
      return;
    }
  gint64 keys[4][3];
  guint n = count_keys (src, dest, tag, keys);
  for (guint i = 0; i < n; i++)
    count_one (m, keys[i][0], keys[i][1], keys[i][2], delta);
}

static gboolean
message_available (const PiclModel *m, gint64 src, gint64 dest, gint64 tag)
{
  if (src != -1 && tag != -1)
    return map_lookup (&m->channels, src, dest, tag) != NULL;   /* a drained channel leaves the table */
  const MapSlot *s = map_lookup (&m->counts, src, dest, tag);
  return s && s->v0 > 0;
}

static void
channel_push (PiclModel *m, gint64 src, gint64 dest, gint64 tag, double adjusted, gint64 bytes)
{
  gint32 idx;
  if (m->free_pending >= 0)
    {
      idx = m->free_pending;
      m->free_pending = g_array_index (m->pending, Pending, idx).next;
    }
  else
    {
      g_array_set_size (m->pending, m->pending->len + 1);
      idx = (gint32) m->pending->len - 1;
    }
  Pending *node = &g_array_index (m->pending, Pending, idx);
  node->adjusted = adjusted;
  node->bytes = bytes;
  node->next = -1;
  /* the arrow is written at the send, in the sender's order, and completed
   * at the receive (views pick arrows in this order: it must not depend on
   * the order of the receives in the run) */
  node->arrow = (guint64) m->base.history_dropped + m->base.history->len;
  /* t1 NaN: underway until the receive sets it (picl.h) */
  ViperHistoryEntry e = { .t0 = adjusted, .t1 = NAN, .module = (gint32) src, .other = (gint32) dest,
                          .state = VIPER_PICL_ARROW_MESSAGE };
  viper_model_history_add (&m->base, &e);
  gboolean created;
  MapSlot *c = map_insert (&m->channels, src, dest, tag, &created);
  if (created)
    c->v0 = c->v1 = idx;
  else
    {
      g_array_index (m->pending, Pending, c->v1).next = idx;
      c->v1 = idx;
    }
  count_add (m, src, dest, tag, 1);
  m->unreceived++;
}

/* The adjusted time of the oldest unreceived send on the channel, NAN when there is none. */
static double
channel_head_time (const PiclModel *m, gint64 src, gint64 dest, gint64 tag)
{
  const MapSlot *c = map_lookup (&m->channels, src, dest, tag);
  return c ? g_array_index (m->pending, Pending, c->v0).adjusted : NAN;
}

/* Pop the oldest unreceived send on the channel; FALSE when there is none.
 * A drained channel leaves the table. */
static gboolean
channel_pop (PiclModel *m, gint64 src, gint64 dest, gint64 tag, double *adjusted, guint64 *arrow, gint64 *bytes)
{
  MapSlot *c = map_lookup (&m->channels, src, dest, tag);
  if (!c)
    return FALSE;
  gint32 idx = (gint32) c->v0;
  Pending *node = &g_array_index (m->pending, Pending, idx);
  *adjusted = node->adjusted;
  *arrow = node->arrow;
  *bytes = node->bytes;
  if (node->next < 0)
    map_remove (&m->channels, c);
  else
    c->v0 = node->next;
  node->next = m->free_pending;
  m->free_pending = idx;
  count_add (m, src, dest, tag, -1);
  m->unreceived--;
  return TRUE;
}

const char *
picl_ev_name (gint64 ev)
{
  switch (ev)
    {
    case VIPER_PICL_EV_SEND: return "send";
    case VIPER_PICL_EV_ISEND: return "non-blocking send";
    case VIPER_PICL_EV_SEND_WAIT: return "send wait";
    case VIPER_PICL_EV_RECV: return "receive";
    case VIPER_PICL_EV_IRECV: return "non-blocking receive";
    case VIPER_PICL_EV_RECV_WAIT: return "receive wait";
    default:
      {
        const char *c = viper_picl_collective_name (ev);
        return c ? c : "call";
      }
    }
}

static gboolean
is_wait (gint64 ev)
{
  return ev == VIPER_PICL_EV_SEND_WAIT || ev == VIPER_PICL_EV_RECV_WAIT;
}

/* ---- states: decided from adjusted times ----------------------------------------
 *
 * A processor's calls form groups: a group starts when a call begins while
 * none is open and ends when the last open call ends (waits may overlap, as
 * MPI_Waitall is written).  Every call has a begin b, an end e and the time
 * w at which it stopped waiting: for a receive the adjusted time of the
 * send begin it took, for a collective the latest begin it depends on, b for
 * anything else.  Within a group the processor is idle at t when some call
 * has b <= t < w, else communicating.  All of b, w and e are adjusted times,
 * so the states do not depend on the order in which the trams were read
 * (spec section 3).  They are known when the group ends: the group's first
 * history entry is written at its begin with the state known then (so a live
 * view shows something) and corrected in place when the group ends; the
 * later changes are appended then, in time order. */

static void
history_state (PiclModel *m, gint64 proc, double t, ViperPiclState s)
{
  ViperHistoryEntry e = { .t0 = t, .t1 = t, .module = (gint32) proc, .other = -1, .state = (gint32) s };
  viper_model_history_add (&m->base, &e);
}

static void
decide (PiclModel *m, gint64 proc, double t, ViperPiclState s)
{
  ViperPiclChange c = { proc, t, s };
  PICL_VEC_PUSH (&m->decided, c);
}

gint
picl_cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static ViperPiclState
span_state (const SpanVec *spans, double t)
{
  gboolean inside = FALSE;
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *s = &spans->v[i];
      if (s->b <= t && t < s->w)
        return VIPER_PICL_IDLE;
      if (s->b <= t && t < s->e)
        inside = TRUE;
    }
  return inside ? VIPER_PICL_COMMUNICATING : VIPER_PICL_BUSY;
}

static void
group_close (PiclModel *m, Proc *p)
{
  SpanVec *spans = &p->spans;
  /* a group is a call or a few: its cuts fit on the stack */
  double cuts_stack[32];
  guint n_cuts = spans->len * 2;
  double *cuts = n_cuts <= G_N_ELEMENTS (cuts_stack) ? cuts_stack : g_new (double, n_cuts);
  double end = p->group_begin;
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *s = &spans->v[i];
      cuts[2 * i] = s->b;
      cuts[2 * i + 1] = s->w;
      end = MAX (end, s->e);
    }
  /* a group has two cuts per call, nearly always 2 to 8: insertion sort
   * (qsort's call and merge cost more than the sort); many waits: qsort */
  if (n_cuts > G_N_ELEMENTS (cuts_stack))
    qsort (cuts, n_cuts, sizeof (double), picl_cmp_double);
  else
    for (guint i = 1; i < n_cuts; i++)
    {
      double x = cuts[i];
      guint j = i;
      for (; j > 0 && cuts[j - 1] > x; j--)
        cuts[j] = cuts[j - 1];
      cuts[j] = x;
    }
  ViperPiclState last = VIPER_PICL_BUSY;
  gboolean first = TRUE;
  for (guint i = 0; i < n_cuts; i++)
    {
      double t = cuts[i];
      if (t >= end || (i > 0 && t == cuts[i - 1]))
        continue;
      ViperPiclState s = span_state (spans, t);
      if (first)
        {
          /* the entry written at the group's begin takes its decided state */
          const ViperHistoryEntry *e = viper_model_history_at (&m->base, p->group_pos);
          if (e && e->module == (gint32) p->id && e->other < 0)
            viper_model_history_set_state (&m->base, p->group_pos, (gint32) s);
          decide (m, p->id, t, s);
          first = FALSE;
        }
      else if (s != last)
        {
          history_state (m, p->id, t, s);
          decide (m, p->id, t, s);
        }
      last = s;
    }
  if (first)
    {
      /* every call of the group took no time */
      const ViperHistoryEntry *e = viper_model_history_at (&m->base, p->group_pos);
      if (e && e->module == (gint32) p->id && e->other < 0)
        viper_model_history_set_state (&m->base, p->group_pos, VIPER_PICL_COMMUNICATING);
      decide (m, p->id, p->group_begin, VIPER_PICL_COMMUNICATING);
    }
  history_state (m, p->id, end, VIPER_PICL_BUSY);
  decide (m, p->id, end, VIPER_PICL_BUSY);
  if (cuts != cuts_stack)
    g_free (cuts);
  spans->len = 0;
  m->n_open_groups--;
}

/* The state at the clock while a group is open: idle when an open receive
 * has no message underway for it, or an open collective misses a begin.
 * Sets the ready time of the calls that stopped waiting; TRUE in *changed
 * when one did. */
static ViperPiclState provisional (PiclModel *m, Proc *p, gboolean *changed);

/* The state of an open group at t as far as the run so far shows: its
 * closed calls as decided, its open calls waiting from their begin to
 * their ready time (to the clock and on while NAN) and communicating after.
 * The same rule as span_state, so that the view of a stop point and the
 * exports written there agree (spec section 3: idle while the message
 * waited for has not been sent, communicating once it has). */
ViperPiclState
picl_open_state_at (const Proc *p, double t)
{
  ViperPiclState s = span_state (&p->spans, t);
  if (s == VIPER_PICL_IDLE)
    return s;
  for (guint i = 0; i < p->calls.len; i++)
    {
      const Call *c = &p->calls.v[i];
      if (c->begin > t)
        continue;
      if (isnan (c->ready) || t < c->ready)
        return VIPER_PICL_IDLE;
      s = VIPER_PICL_COMMUNICATING;
    }
  return s;
}

void
picl_set_provisional (PiclModel *m, Proc *p)
{
  gboolean changed = FALSE;
  ViperPiclState s = p->calls.len ? provisional (m, p, &changed) : VIPER_PICL_BUSY;
  if (p->calls.len)
    {
      /* the group's first entry holds the state at its begin; the changes
       * after it stay out of the history until the group closes and they
       * are decided (viper_picl_model_open_changes shows them meanwhile) */
      const ViperHistoryEntry *e = viper_model_history_at (&m->base, p->group_pos);
      ViperPiclState first;
      if (e && e->module == (gint32) p->id && e->other < 0
          && e->state != (gint32) (first = picl_open_state_at (p, p->group_begin)))
        {
          viper_model_history_set_state (&m->base, p->group_pos, (gint32) first);
          changed = TRUE;
        }
    }
  if (s == p->state && !changed)
    return;
  p->state = s;
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, p->id, 0);
}

/* A communication call begins.  Calls do not nest in PICL, except waits:
 * MPI_Waitall is written as several waits that begin together. */
gboolean
picl_begin_call (PiclModel *m, Proc *p, const ViperTram *t, const Call *c)
{
  for (guint i = 0; i < p->calls.len; i++)
    {
      gint64 open = p->calls.v[i].ev;
      if (!(is_wait (open) && is_wait (c->ev)))
        {
          viper_model_inconsistent (&m->base, t, "%s begins inside a %s", picl_ev_name (c->ev), picl_ev_name (open));
          break;
        }
    }
  if (!p->calls.len)
    {
      p->group_begin = t->adjusted;
      p->group_pos = (guint64) m->base.history_dropped + m->base.history->len;
      m->n_open_groups++;
      history_state (m, p->id, t->adjusted, VIPER_PICL_COMMUNICATING);
      p->state = VIPER_PICL_BUSY;       /* so that picl_set_provisional marks the change */
    }
  Call call = *c;
  call.begin = t->adjusted;
  call.ready = call.kind == CALL_PLAIN ? call.begin : NAN;
  PICL_VEC_PUSH (&p->calls, call);
  picl_set_provisional (m, p);
  return TRUE;
}

/* The open call an end closes: the first open one of its kind; for a
 * receive end among several, the first whose source and tag fit. */
gint
picl_find_call (const Proc *p, gint64 ev, gint64 src, gint64 tag)
{
  gint first = -1;
  for (guint i = 0; i < p->calls.len; i++)
    {
      const Call *c = &p->calls.v[i];
      if (c->ev != ev)
        continue;
      if (first < 0)
        first = (gint) i;
      if (src == G_MININT64 || ((c->want_src == -1 || c->want_src == src) && (c->want_tag == -1 || c->want_tag == tag)))
        return (gint) i;
    }
  return first;
}

/* A call ends: w is when it stopped waiting (NAN: it never waited). */
gboolean
picl_end_call (PiclModel *m, Proc *p, const ViperTram *t, gint idx, double w)
{
  if (idx < 0)
    {
      viper_model_inconsistent (&m->base, t, "end of %s without its begin", picl_ev_name (t->ev));
      if (p->calls.len)
        return FALSE;
      /* a lone end: a zero-length call */
      p->group_begin = t->adjusted;
      p->group_pos = (guint64) m->base.history_dropped + m->base.history->len;
      m->n_open_groups++;
      history_state (m, p->id, t->adjusted, VIPER_PICL_COMMUNICATING);
      Span s = { t->adjusted, t->adjusted, t->adjusted };
      PICL_VEC_PUSH (&p->spans, s);
    }
  else
    {
      const Call *c = &p->calls.v[idx];
      double b = c->begin, e = t->adjusted;
      double wait = isnan (w) ? b : CLAMP (w, b, e);
      Span s = { b, wait, e };
      PICL_VEC_PUSH (&p->spans, s);
      if ((guint) idx + 1 < p->calls.len)  /* not the last: the later ones move up */
        memmove (&p->calls.v[idx], &p->calls.v[idx + 1], (p->calls.len - (guint) idx - 1) * sizeof (Call));
      p->calls.len--;
    }
  if (!p->calls.len)
    {
      group_close (m, p);
      /* picl_set_provisional's answer with no call open, without the call */
      if (p->state != VIPER_PICL_BUSY)
        {
          p->state = VIPER_PICL_BUSY;
          viper_damage_add (m->base.damage, VIPER_AREA_MODULE, p->id, 0);
        }
    }
  else
    picl_set_provisional (m, p);
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, p->id, 0);
  return TRUE;
}

/* ---- point to point ------------------------------------------------------------------ */

/* A receive stops waiting when a message it may take is sent: for one
 * channel at the oldest send underway on it (the one it takes, FIFO); for
 * a wildcard at the send that made one available, as far as this apply
 * shows (its end gives the exact time).  A collective stops waiting at the
 * latest begin it depends on. */
static ViperPiclState
provisional (PiclModel *m, Proc *p, gboolean *changed)
{
  gboolean idle = FALSE;
  for (guint i = 0; i < p->calls.len; i++)
    {
      Call *c = &p->calls.v[i];
      if (!isnan (c->ready))
        continue;
      double ready = NAN;
      if (c->kind == CALL_RECV)
        {
          if (c->want_src != -1 && c->want_tag != -1)
            ready = channel_head_time (m, c->want_src, p->id, c->want_tag);
          else if (message_available (m, c->want_src, p->id, c->want_tag))
            ready = m->now;
        }
      else if (c->kind == CALL_COLL)
        {
          Inst *inst = picl_inst_get (m, c->ev, c->subset, c->k, FALSE);
          guint missing = 1;
          double w = inst ? picl_collective_wait (m, inst, c, p->id, &missing, FALSE) : NAN;
          if (missing == 0)
            ready = w;
        }
      if (isnan (ready))
        {
          idle = TRUE;
          continue;
        }
      c->ready = MAX (ready, c->begin);
      *changed = TRUE;
    }
  return idle ? VIPER_PICL_IDLE : VIPER_PICL_COMMUNICATING;
}

static gboolean
begin_receive (PiclModel *m, Proc *p, const ViperTram *t, gint64 src, gint64 tag)
{
  Call c = { .ev = t->ev, .kind = CALL_RECV, .want_src = src, .want_tag = tag };
  return picl_begin_call (m, p, t, &c);
}

static gboolean
apply_send (PiclModel *m, Proc *p, const ViperTram *t)
{
  gint64 tag = viper_tram_datum (t, VIPER_PICL_SEND_TAG, 0);
  gint64 dest = viper_tram_datum (t, VIPER_PICL_SEND_DEST, -1);
  gint64 src = p->id;
  Call c = { .ev = t->ev, .kind = CALL_PLAIN, .want_src = -1, .want_tag = -1 };
  picl_begin_call (m, p, t, &c);
  p->sent++;
  channel_push (m, src, dest, tag, t->adjusted, viper_tram_datum (t, VIPER_PICL_SEND_BYTES, -1));
  viper_damage_add (m->base.damage, VIPER_AREA_LINK, src, dest);
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, src, 0);
  Proc *q = picl_proc_find (m, dest);
  if (q && q->state == VIPER_PICL_IDLE)
    picl_set_provisional (m, q);
  return TRUE;
}

static gboolean
apply_receive_end (PiclModel *m, Proc *p, const ViperTram *t)
{
  if (t->dtype != VIPER_DTYPE_INT)
    {
      viper_model_inconsistent (&m->base, t, "receive end without integer data");
      return picl_end_call (m, p, t, picl_find_call (p, t->ev, G_MININT64, 0), NAN);
    }
  gint64 tag = viper_tram_datum (t, VIPER_PICL_RECV_TAG, 0);
  gint64 src = viper_tram_datum (t, VIPER_PICL_RECV_SRC, -1);
  double sent_at = NAN;
  guint64 arrow = 0;
  gint64 sent_bytes = -1;
  if (channel_pop (m, src, p->id, tag, &sent_at, &arrow, &sent_bytes))
    {
      viper_model_history_arrow_arrived (&m->base, arrow, t->adjusted);
      m->messages++;
      p->received++;
      /* the contract pairs it with this send (spec section 3): a receive of
       * more bytes than were sent says the pairing, or a trace, is wrong */
      gint64 bytes = viper_tram_datum (t, VIPER_PICL_RECV_BYTES, 0);
      if (sent_bytes >= 0 && bytes > sent_bytes)
        viper_model_inconsistent (&m->base, t, "message from %" G_GINT64_FORMAT " tag %" G_GINT64_FORMAT
                                  " received as %" G_GINT64_FORMAT " bytes, its send had %" G_GINT64_FORMAT,
                                  src, tag, bytes, sent_bytes);
    }
  else
    viper_model_inconsistent (&m->base, t, "message from %" G_GINT64_FORMAT " tag %" G_GINT64_FORMAT
                              " received before it was sent", src, tag);
  viper_damage_add (m->base.damage, VIPER_AREA_LINK, src, p->id);
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, p->id, 0);
  picl_end_call (m, p, t, picl_find_call (p, t->ev, src, tag), sent_at);
  return TRUE;
}

static gboolean
apply_tracing (PiclModel *m, Proc *p, const ViperTram *t, gboolean on)
{
  if (p->tracing == on)
    {
      viper_model_inconsistent (&m->base, t, on ? "tracing starts twice" : "tracing stops while off");
      return FALSE;
    }
  p->tracing = on;
  if (on)
    {
      if (!p->started)
        m->n_started++;
      p->started = TRUE;
      m->n_tracing++;
    }
  else
    {
      m->n_tracing--;
      if (t->adjusted > m->last_stop)
        m->last_stop = t->adjusted;
    }
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, p->id, 0);
  viper_damage_add (m->base.damage, VIPER_AREA_PROGRAM, 0, 0);
  return TRUE;
}

static gboolean picl_apply_proc (PiclModel *m, Proc *p, const ViperTram *t, gboolean begin);

/* A processor is busy outside communication (spec section 3) from its first
 * tram on: unless that tram opened a call, a busy entry at its time starts
 * its row in the history, as the exporters start its state there, so the
 * space-time view shows the work done before its first call (and a
 * processor that never communicates) instead of nothing. */
static void
show_from_first (PiclModel *m, Proc *p, gint64 id, double t)
{
  if (p && p->shown)
    return;
  gboolean first;
  map_insert (&m->seen, id, 0, 0, &first);
  if (p)
    p->shown = TRUE;
  if (!first)
    return;
  if (!p || !p->calls.len)
    history_state (m, id, t, VIPER_PICL_BUSY);
}

static gboolean
picl_apply (ViperModel *base, const ViperTram *t)
{
  PiclModel *m = picl (base);
  m->decided.len = 0;
  m->now = t->adjusted;
  /* a processor's time: a global record (a subset definition dated 0
   * before epoch times) is timeless and would move "running" to 1970 */
  if (t->adjusted < m->first_time && !viper_paradigm_timeless (base->paradigm, t))
    m->first_time = t->adjusted;
  if (!m->any_applied)
    {
      m->any_applied = TRUE;
      viper_damage_add (base->damage, VIPER_AREA_PROGRAM, 0, 0);
    }
  if (t->rec == VIPER_PICL_REC_SUBSET && t->ev == VIPER_PICL_EV_SUBSET)
    return picl_apply_subset (m, t);
  if (t->proc < 0)
    return FALSE;
  gboolean begin = t->rec == VIPER_PICL_REC_BEGIN;
  gboolean changed = FALSE;
  /* clock samples, trace messages and other records: no state of their
   * own, but a processor's first tram all the same (the exports start its
   * state at any of its trams) */
  if ((begin || t->rec == VIPER_PICL_REC_END) && t->ev != VIPER_PICL_EV_SYNC && t->ev != VIPER_PICL_EV_MESSAGE)
    {
      /* the one lookup of this tram's processor */
      Proc *p = proc_get (m, t->proc);
      changed = picl_apply_proc (m, p, t, begin);
      show_from_first (m, p, t->proc, t->adjusted);
    }
  else
    show_from_first (m, picl_proc_find (m, t->proc), t->proc, t->adjusted);
  return changed;
}

static gboolean
picl_apply_proc (PiclModel *m, Proc *p, const ViperTram *t, gboolean begin)
{
  if (viper_picl_collective_shape (t->ev) != VIPER_PICL_SHAPE_NONE)
    return begin ? picl_collective_begin (m, p, t) : picl_collective_end (m, p, t);
  switch (t->ev)
    {
    case VIPER_PICL_EV_TRACING:
      return apply_tracing (m, p, t, begin);
    case VIPER_PICL_EV_SEND:
    case VIPER_PICL_EV_ISEND:
      return begin ? apply_send (m, p, t) : picl_end_call (m, p, t, picl_find_call (p, t->ev, G_MININT64, 0), NAN);
    case VIPER_PICL_EV_SEND_WAIT:
      {
        Call c = { .ev = t->ev, .kind = CALL_PLAIN, .want_src = -1, .want_tag = -1 };
        return begin ? picl_begin_call (m, p, t, &c) : picl_end_call (m, p, t, picl_find_call (p, t->ev, G_MININT64, 0), NAN);
      }
    case VIPER_PICL_EV_RECV:
      if (begin)
        return begin_receive (m, p, t, viper_tram_datum (t, VIPER_PICL_POST_SRC, -1),
                              viper_tram_datum (t, VIPER_PICL_POST_TAG, -1));
      return apply_receive_end (m, p, t);
    case VIPER_PICL_EV_IRECV:
      if (begin)
        {
          p->post_src = viper_tram_datum (t, VIPER_PICL_POST_SRC, -1);
          p->post_tag = viper_tram_datum (t, VIPER_PICL_POST_TAG, -1);
          Call c = { .ev = t->ev, .kind = CALL_PLAIN, .want_src = -1, .want_tag = -1 };
          return picl_begin_call (m, p, t, &c);
        }
      else
        {
          MapSlot *r = map_insert (&m->requests, p->id, viper_tram_datum (t, 0, 0), 0, NULL);
          r->v0 = p->post_src;
          r->v1 = p->post_tag;
          return picl_end_call (m, p, t, picl_find_call (p, t->ev, G_MININT64, 0), NAN);
        }
    case VIPER_PICL_EV_RECV_WAIT:
      if (begin)
        {
          /* A wait for a request whose post was not traced takes any message. */
          gint64 src = -1, tag = -1;
          MapSlot *r = map_lookup (&m->requests, p->id, viper_tram_datum (t, 0, 0), 0);
          if (r)
            {
              src = r->v0;
              tag = r->v1;
              map_remove (&m->requests, r);
            }
          return begin_receive (m, p, t, src, tag);
        }
      return apply_receive_end (m, p, t);
    default:
      return FALSE;
    }
}

static void
procs_free (PiclModel *m)
{
  for (guint i = 0; i < m->procs->len; i++)
    {
      Proc *p = &g_array_index (m->procs, Proc, i);
      g_free (p->calls.v);
      g_free (p->spans.v);
    }
  g_array_set_size (m->procs, 0);
}

static void
picl_reset (ViperModel *base)
{
  PiclModel *m = picl (base);
  m->any_applied = FALSE;
  m->n_tracing = m->n_started = m->n_subsets = m->n_open_groups = 0;
  m->messages = m->unreceived = 0;
  m->last_stop = -INFINITY;
  m->first_time = INFINITY;
  procs_free (m);
  map_clear (&m->proc_index);
  map_clear (&m->channels);
  map_clear (&m->counts);
  map_clear (&m->requests);
  map_clear (&m->coll_counts);
  map_clear (&m->seen);
  g_array_set_size (m->pending, 0);
  g_hash_table_remove_all (m->subset_pos);
  g_hash_table_remove_all (m->subsets);
  g_hash_table_remove_all (m->insts);
  g_clear_pointer (&m->all_pos, g_hash_table_unref);
  m->all_pos_made = FALSE;
  m->decided.len = 0;
  m->free_pending = -1;
  picl_proc_cache_clear (m);
}

static void
picl_destroy (ViperModel *base)
{
  PiclModel *m = picl (base);
  picl_reset (base);
  g_array_unref (m->procs);
  g_array_unref (m->pending);
  g_free (m->decided.v);
  g_free (m->proc_slot);
  g_hash_table_destroy (m->subset_pos);
  g_hash_table_destroy (m->subsets);
  g_hash_table_destroy (m->insts);
  viper_model_finish (base);
  g_free (m);
}

/* Terminated: every processor that started tracing has stopped and nothing
 * is left half done (no message underway, no call or collective open).  A
 * processor-grouped file no longer flaps: the first processor to stop has
 * sent messages nobody has received yet, or waits for others. */
static const char *
picl_program_state (const ViperModel *base)
{
  const PiclModel *m = picl (base);
  if (!m->any_applied)
    return "inactive";
  if (m->n_started > 0 && m->n_tracing == 0 && m->unreceived == 0 && m->n_open_groups == 0
      && g_hash_table_size (m->insts) == 0)
    return "terminated";
  return "running";
}

/* Every processor still tracing idle in a call that waits for what never
 * came (a receive whose message was not sent, a collective missing begins):
 * said at the end of the input, since "running" alone does not tell a hung
 * program cut short from one that was still working.  A processor whose
 * tracing stopped (-4 -901) inside such a call counts as blocked too, and is
 * named as stopped there: a program killed while it hung (the library's
 * signal handler ends the trace with -4 -901 wherever the rank was) gets
 * the same diagnosis as one whose files were simply cut short.  One that
 * stopped out of any waiting call is left out (it ended, or stopped while
 * working). */
static char *
picl_all_blocked (const ViperModel *base)
{
  const PiclModel *m = picl (base);
  GString *s = NULL;
  guint n = 0;
  gboolean stopped = FALSE;
  for (guint i = 0; i < m->procs->len; i++)
    {
      const Proc *p = &g_array_index (m->procs, Proc, i);
      const Call *w = NULL;
      for (guint k = 0; k < p->calls.len && !w; k++)
        if (p->calls.v[k].kind != CALL_PLAIN && isnan (p->calls.v[k].ready))
          w = &p->calls.v[k];
      if (!p->tracing && !w)
        continue;
      if (p->tracing && (p->state != VIPER_PICL_IDLE || !w))
        {
          if (s)
            g_string_free (s, TRUE);
          return NULL;        /* one still works, or is not waiting */
        }
      if (!s)
        s = g_string_new (NULL);
      stopped |= !p->tracing;
      if (++n > 8)
        continue;
      char t[32];
      g_string_append_printf (s, "%sP%" G_GINT64_FORMAT " %s %s", n > 1 ? "; " : "", p->id,
                              p->tracing ? "in" : "stopped tracing inside", picl_ev_name (w->ev));
      if (w->kind == CALL_RECV)
        {
          if (w->want_src >= 0)
            g_string_append_printf (s, " from P%" G_GINT64_FORMAT, w->want_src);
          else
            g_string_append (s, " from any source");
          if (w->want_tag >= 0)
            g_string_append_printf (s, " tag %" G_GINT64_FORMAT, w->want_tag);
        }
      else
        {
          g_string_append_printf (s, " #%" G_GINT64_FORMAT, w->k + 1);
          if (w->subset == -1)
            g_string_append (s, " over every processor");
          else
            g_string_append_printf (s, " over subset %" G_GINT64_FORMAT, w->subset);
        }
      g_string_append_printf (s, " %s %s", p->tracing ? "since" : "begun at", viper_format_double (w->begin, t));
    }
  if (!s)
    return NULL;
  if (n > 8)
    g_string_append_printf (s, "; and %u more", n - 8);
  g_string_prepend (s, stopped ? "the input ended with every processor blocked, or stopped tracing while blocked: "
                               : "the input ended with every processor still tracing blocked: ");
  return g_string_free (s, FALSE);
}

static void
picl_write_top (const ViperModel *base, ViperJson *j)
{
  viper_json_key (j, "messages");
  viper_json_int (j, (gint64) picl (base)->messages);
}

static gint
cmp_proc (gconstpointer a, gconstpointer b)
{
  gint64 x = ((const Proc *) a)->id, y = ((const Proc *) b)->id;
  return x < y ? -1 : x > y;
}

static void
picl_write_modules (const ViperModel *base, const ViperRun *run, ViperJson *j)
{
  const PiclModel *m = picl (base);
  GArray *sorted = g_array_sized_new (FALSE, FALSE, sizeof (Proc), m->procs->len);
  g_array_append_vals (sorted, m->procs->data, m->procs->len);
  g_array_sort (sorted, cmp_proc);
  for (guint i = 0; i < sorted->len; i++)
    {
      const Proc *p = &g_array_index (sorted, Proc, i);
      char name[32];
      g_snprintf (name, sizeof name, "P%" G_GINT64_FORMAT, p->id);
      viper_json_begin_object (j);
      viper_json_key (j, "id");
      viper_json_int (j, p->id);
      viper_json_key (j, "name");
      viper_json_string (j, name);
      viper_json_key (j, "state");
      viper_json_string (j, viper_picl_state_name (p->state));
      viper_json_key (j, "tracing");
      viper_json_bool (j, p->tracing);
      viper_json_key (j, "sent");
      viper_json_int (j, (gint64) p->sent);
      viper_json_key (j, "received");
      viper_json_int (j, (gint64) p->received);
      viper_json_key (j, "offset");
      viper_json_double (j, run ? viper_run_offset (run, p->id) : 0.0);
      viper_clock_sync_write_module (run, p->id, j);
      viper_json_end_object (j);
    }
  g_array_unref (sorted);
}

static const ViperModelClass picl_class = {
  .apply = picl_apply,
  .reset = picl_reset,
  .destroy = picl_destroy,
  .program_state = picl_program_state,
  .all_blocked = picl_all_blocked,
  .write_top = picl_write_top,
  .write_modules = picl_write_modules,
  .group_members = NULL,
  .snapshot = picl_snapshot,
  .restore = picl_restore,
  .snapshot_free = picl_snapshot_free,
  .modules_known = picl_modules_known,
};

ViperModel *
viper_picl_model_new (const ViperParadigm *p, ViperSetup *setup)
{
  PiclModel *m = g_new0 (PiclModel, 1);
  viper_model_init (&m->base, &picl_class, p, setup);
  m->procs = g_array_new (FALSE, FALSE, sizeof (Proc));
  m->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  m->subsets = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);
  m->subset_pos = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_hash_table_unref);
  m->insts = g_hash_table_new_full (picl_inst_hash, picl_inst_equal, NULL, picl_inst_free);
  m->free_pending = -1;
  m->last_index = G_MAXUINT;
  m->last_stop = -INFINITY;
  m->first_time = INFINITY;
  return &m->base;
}

gboolean
picl_model_is (const ViperModel *m)
{
  return m->klass == &picl_class;
}
