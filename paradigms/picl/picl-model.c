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
 * Idle: a receive (or receive wait) that begins while no message it could
 * take has been sent in the run makes the processor idle; the first matching
 * send begin applied later turns it communicating.  To answer "is there a
 * matching message" in O(1) for any-source (-1) receives, every send begin
 * also counts under the wildcard keys (-1, DEST, TAG), (SRC, DEST, -1) and
 * (-1, DEST, -1).
 *
 * Nothing in the common path allocates: channels, counters, processors and
 * non-blocking receive requests live in open-addressing tables of fixed-size
 * slots (linear probing, backward-shift deletion) and the FIFO nodes come from
 * one array with a free list; both grow geometrically and are reused.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "picl.h"
#include "core/clocksync.h"
#include "core/run.h"

/* ---- a small (a, b, c) -> (v0, v1) hash table ------------------------------ */

typedef struct {
  gint64 a, b, c;
  gint64 v0, v1;
  gboolean used;
} MapSlot;

typedef struct {
  MapSlot *s;
  guint cap;                /* power of two */
  guint n;
} Map;

static guint
map_hash (gint64 a, gint64 b, gint64 c)
{
  guint64 h = (guint64) a * 0x9E3779B97F4A7C15ull;
  h ^= ((guint64) b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  h = (h ^ (h >> 29)) + (guint64) c * 0x165667B19E3779F9ull;
  h ^= h >> 32;
  return (guint) h;
}

static void
map_clear (Map *m)
{
  g_free (m->s);
  memset (m, 0, sizeof *m);
}

static MapSlot *
map_lookup (const Map *m, gint64 a, gint64 b, gint64 c)
{
  if (!m->n)
    return NULL;
  guint mask = m->cap - 1;
  for (guint i = map_hash (a, b, c) & mask;; i = (i + 1) & mask)
    {
      MapSlot *s = &m->s[i];
      if (!s->used)
        return NULL;
      if (s->a == a && s->b == b && s->c == c)
        return s;
    }
}

static void map_grow (Map *m);

/* The slot of (a, b, c), created zeroed when absent.  Invalidates slot
 * pointers obtained before it. */
static MapSlot *
map_insert (Map *m, gint64 a, gint64 b, gint64 c, gboolean *created)
{
  if ((m->n + 1) * 2 > m->cap)
    map_grow (m);
  guint mask = m->cap - 1;
  for (guint i = map_hash (a, b, c) & mask;; i = (i + 1) & mask)
    {
      MapSlot *s = &m->s[i];
      if (!s->used)
        {
          memset (s, 0, sizeof *s);
          s->a = a, s->b = b, s->c = c;
          s->used = TRUE;
          m->n++;
          if (created)
            *created = TRUE;
          return s;
        }
      if (s->a == a && s->b == b && s->c == c)
        {
          if (created)
            *created = FALSE;
          return s;
        }
    }
}

static void
map_grow (Map *m)
{
  MapSlot *old = m->s;
  guint old_cap = m->cap;
  m->cap = old_cap ? old_cap * 2 : 64;
  m->s = g_new0 (MapSlot, m->cap);
  m->n = 0;
  for (guint i = 0; i < old_cap; i++)
    if (old[i].used)
      {
        MapSlot *s = map_insert (m, old[i].a, old[i].b, old[i].c, NULL);
        s->v0 = old[i].v0;
        s->v1 = old[i].v1;
      }
  g_free (old);
}

static void
map_remove (Map *m, MapSlot *slot)
{
  guint mask = m->cap - 1;
  guint i = (guint) (slot - m->s);
  for (guint j = i;;)
    {
      j = (j + 1) & mask;
      if (!m->s[j].used)
        break;
      guint k = map_hash (m->s[j].a, m->s[j].b, m->s[j].c) & mask;
      /* s[j] may move into the hole at i only if its home k is not in (i, j] */
      gboolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays)
        continue;
      m->s[i] = m->s[j];
      i = j;
    }
  m->s[i].used = FALSE;
  m->n--;
}

/* ---- the model ------------------------------------------------------------- */

typedef struct {
  gint64 id;
  ViperPiclState state;
  gint64 open_ev;           /* EV of the open begin (a communication call), 0 = none */
  gint64 want_src, want_tag;/* while in a receive: which messages it takes (-1 = any) */
  gint64 post_src, post_tag;/* the last non-blocking receive posted, until its REQ is known */
  gboolean receiving;       /* inside a receive or a receive wait */
  gboolean tracing, started;
  guint64 sent, received;
} Proc;

/* A send begin not yet received. */
typedef struct {
  double adjusted;
  gint32 next;
} Pending;

typedef struct {
  ViperModel base;
  gboolean any_applied;
  guint n_tracing, n_started, n_subsets;
  guint64 messages, unreceived;

  GArray *procs;            /* of Proc */
  Map proc_index;           /* (proc, 0, 0) -> v0 = index in procs */
  gint64 last_proc;         /* lookup cache */
  guint last_index;

  Map channels;             /* (src, dest, tag) -> v0 = FIFO head, v1 = tail (Pending index; -1 = empty) */
  Map counts;               /* (src or -1, dest, tag or -1) -> v0 = sends pending */
  Map requests;             /* (proc, REQ, 0) -> v0 = src, v1 = tag of the posted receive */
  GArray *pending;          /* of Pending */
  gint32 free_pending;      /* free list through next, -1 = empty */
} PiclModel;

static const ViperModelClass picl_class;

static PiclModel *
picl (const ViperModel *m)
{
  return (PiclModel *) m;
}

static Proc *
proc_find (PiclModel *m, gint64 id)
{
  if (m->last_index < m->procs->len && m->last_proc == id)
    return &g_array_index (m->procs, Proc, m->last_index);
  MapSlot *s = map_lookup (&m->proc_index, id, 0, 0);
  if (!s)
    return NULL;
  m->last_proc = id;
  m->last_index = (guint) s->v0;
  return &g_array_index (m->procs, Proc, s->v0);
}

static Proc *
proc_get (PiclModel *m, gint64 id)
{
  Proc *p = proc_find (m, id);
  if (p)
    return p;
  Proc fresh = { .id = id, .state = VIPER_PICL_BUSY, .want_src = -1, .want_tag = -1, .post_src = -1,
                 .post_tag = -1 };
  g_array_append_val (m->procs, fresh);
  MapSlot *s = map_insert (&m->proc_index, id, 0, 0, NULL);
  s->v0 = m->procs->len - 1;
  m->last_proc = id;
  m->last_index = m->procs->len - 1;
  return &g_array_index (m->procs, Proc, m->procs->len - 1);
}

/* The up to four counter keys of a message (src, dest, tag), without repeats. */
static guint
count_keys (gint64 src, gint64 dest, gint64 tag, gint64 keys[4][3])
{
  gint64 cand[4][3] = { { src, dest, tag }, { -1, dest, tag }, { src, dest, -1 }, { -1, dest, -1 } };
  guint n = 0;
  for (guint i = 0; i < 4; i++)
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

static void
count_add (PiclModel *m, gint64 src, gint64 dest, gint64 tag, gint64 delta)
{
  gint64 keys[4][3];
  guint n = count_keys (src, dest, tag, keys);
  for (guint i = 0; i < n; i++)
    map_insert (&m->counts, keys[i][0], keys[i][1], keys[i][2], NULL)->v0 += delta;
}

static gboolean
message_available (const PiclModel *m, gint64 src, gint64 dest, gint64 tag)
{
  const MapSlot *s = map_lookup (&m->counts, src, dest, tag);
  return s && s->v0 > 0;
}

static void
channel_push (PiclModel *m, gint64 src, gint64 dest, gint64 tag, double adjusted)
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
  node->next = -1;
  gboolean created;
  MapSlot *c = map_insert (&m->channels, src, dest, tag, &created);
  if (created || c->v0 < 0)
    c->v0 = c->v1 = idx;
  else
    {
      g_array_index (m->pending, Pending, c->v1).next = idx;
      c->v1 = idx;
    }
  count_add (m, src, dest, tag, 1);
  m->unreceived++;
}

/* Pop the oldest unreceived send on the channel; FALSE when there is none. */
static gboolean
channel_pop (PiclModel *m, gint64 src, gint64 dest, gint64 tag, double *adjusted)
{
  MapSlot *c = map_lookup (&m->channels, src, dest, tag);
  if (!c || c->v0 < 0)
    return FALSE;
  gint32 idx = (gint32) c->v0;
  Pending *node = &g_array_index (m->pending, Pending, idx);
  *adjusted = node->adjusted;
  c->v0 = node->next;
  if (c->v0 < 0)
    c->v1 = -1;
  node->next = m->free_pending;
  m->free_pending = idx;
  count_add (m, src, dest, tag, -1);
  m->unreceived--;
  return TRUE;
}

static gboolean
set_state (PiclModel *m, Proc *p, ViperPiclState s, double when)
{
  if (p->state == s)
    return FALSE;
  p->state = s;
  ViperHistoryEntry e = { .t0 = when, .t1 = when, .module = (gint32) p->id, .other = -1, .state = (gint32) s };
  viper_model_history_add (&m->base, &e);
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, p->id, 0);
  return TRUE;
}

static const char *
ev_name (gint64 ev)
{
  switch (ev)
    {
    case VIPER_PICL_EV_SEND: return "send";
    case VIPER_PICL_EV_ISEND: return "non-blocking send";
    case VIPER_PICL_EV_SEND_WAIT: return "send wait";
    case VIPER_PICL_EV_RECV: return "receive";
    case VIPER_PICL_EV_IRECV: return "non-blocking receive";
    case VIPER_PICL_EV_RECV_WAIT: return "receive wait";
    case VIPER_PICL_EV_BARRIER: return "barrier";
    default: return "call";
    }
}

/* A communication call begins: calls do not nest in PICL. */
static gboolean
begin_call (PiclModel *m, Proc *p, const ViperTram *t, ViperPiclState s)
{
  if (p->open_ev)
    viper_model_inconsistent (&m->base, t, "%s begins inside a %s", ev_name (t->ev), ev_name (p->open_ev));
  p->open_ev = t->ev;
  p->receiving = FALSE;
  return set_state (m, p, s, t->adjusted);
}

static gboolean
end_call (PiclModel *m, Proc *p, const ViperTram *t)
{
  if (p->open_ev != t->ev)
    viper_model_inconsistent (&m->base, t, "end of %s without its begin", ev_name (t->ev));
  p->open_ev = 0;
  p->receiving = FALSE;
  return set_state (m, p, VIPER_PICL_BUSY, t->adjusted);
}

static gboolean
begin_receive (PiclModel *m, Proc *p, const ViperTram *t, gint64 src, gint64 tag)
{
  ViperPiclState s = message_available (m, src, p->id, tag) ? VIPER_PICL_COMMUNICATING : VIPER_PICL_IDLE;
  gboolean changed = begin_call (m, p, t, s);
  p->receiving = TRUE;
  p->want_src = src;
  p->want_tag = tag;
  return changed;
}

static gboolean
apply_send (PiclModel *m, Proc *p, const ViperTram *t)
{
  gint64 tag = viper_tram_datum (t, VIPER_PICL_SEND_TAG, 0);
  gint64 dest = viper_tram_datum (t, VIPER_PICL_SEND_DEST, -1);
  gint64 src = p->id;
  begin_call (m, p, t, VIPER_PICL_COMMUNICATING);
  p->sent++;
  channel_push (m, src, dest, tag, t->adjusted);
  viper_damage_add (m->base.damage, VIPER_AREA_LINK, src, dest);
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, src, 0);
  Proc *q = proc_find (m, dest);
  if (q && q->receiving && q->state == VIPER_PICL_IDLE && (q->want_src == -1 || q->want_src == src)
      && (q->want_tag == -1 || q->want_tag == tag))
    set_state (m, q, VIPER_PICL_COMMUNICATING, t->adjusted);
  return TRUE;
}

static gboolean
apply_receive_end (PiclModel *m, Proc *p, const ViperTram *t)
{
  if (t->dtype != VIPER_DTYPE_INT)
    {
      viper_model_inconsistent (&m->base, t, "receive end without integer data");
      return end_call (m, p, t);
    }
  gint64 tag = viper_tram_datum (t, VIPER_PICL_RECV_TAG, 0);
  gint64 src = viper_tram_datum (t, VIPER_PICL_RECV_SRC, -1);
  double sent_at;
  if (channel_pop (m, src, p->id, tag, &sent_at))
    {
      ViperHistoryEntry e = { .t0 = sent_at, .t1 = t->adjusted, .module = (gint32) src, .other = (gint32) p->id,
                              .state = VIPER_PICL_ARROW_MESSAGE };
      viper_model_history_add (&m->base, &e);
      m->messages++;
      p->received++;
    }
  else
    viper_model_inconsistent (&m->base, t, "message from %" G_GINT64_FORMAT " tag %" G_GINT64_FORMAT
                              " received before it was sent", src, tag);
  viper_damage_add (m->base.damage, VIPER_AREA_LINK, src, p->id);
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, p->id, 0);
  end_call (m, p, t);
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
    m->n_tracing--;
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, p->id, 0);
  viper_damage_add (m->base.damage, VIPER_AREA_PROGRAM, 0, 0);
  return TRUE;
}

static gboolean
picl_apply (ViperModel *base, const ViperTram *t)
{
  PiclModel *m = picl (base);
  if (!m->any_applied)
    {
      m->any_applied = TRUE;
      viper_damage_add (base->damage, VIPER_AREA_PROGRAM, 0, 0);
    }
  if (t->rec == VIPER_PICL_REC_SUBSET && t->ev == VIPER_PICL_EV_SUBSET)
    {
      m->n_subsets++;
      return FALSE;
    }
  if (t->proc < 0)
    return FALSE;
  Proc *p = proc_get (m, t->proc);
  gboolean begin = t->rec == VIPER_PICL_REC_BEGIN;
  if (!begin && t->rec != VIPER_PICL_REC_END)
    return FALSE;
  switch (t->ev)
    {
    case VIPER_PICL_EV_TRACING:
      return apply_tracing (m, p, t, begin);
    case VIPER_PICL_EV_SEND:
    case VIPER_PICL_EV_ISEND:
      return begin ? apply_send (m, p, t) : end_call (m, p, t);
    case VIPER_PICL_EV_SEND_WAIT:
    case VIPER_PICL_EV_BARRIER:
      return begin ? begin_call (m, p, t, VIPER_PICL_COMMUNICATING) : end_call (m, p, t);
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
          return begin_call (m, p, t, VIPER_PICL_COMMUNICATING);
        }
      else
        {
          MapSlot *r = map_insert (&m->requests, p->id, viper_tram_datum (t, 0, 0), 0, NULL);
          r->v0 = p->post_src;
          r->v1 = p->post_tag;
          return end_call (m, p, t);
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
      return FALSE;         /* trace messages: no visible state */
    }
}

static void
picl_reset (ViperModel *base)
{
  PiclModel *m = picl (base);
  m->any_applied = FALSE;
  m->n_tracing = m->n_started = m->n_subsets = 0;
  m->messages = m->unreceived = 0;
  g_array_set_size (m->procs, 0);
  map_clear (&m->proc_index);
  map_clear (&m->channels);
  map_clear (&m->counts);
  map_clear (&m->requests);
  g_array_set_size (m->pending, 0);
  m->free_pending = -1;
  m->last_proc = 0;
  m->last_index = G_MAXUINT;
}

static void
picl_destroy (ViperModel *base)
{
  PiclModel *m = picl (base);
  picl_reset (base);
  g_array_unref (m->procs);
  g_array_unref (m->pending);
  viper_model_finish (base);
  g_free (m);
}

static const char *
picl_program_state (const ViperModel *base)
{
  const PiclModel *m = picl (base);
  if (!m->any_applied)
    return "inactive";
  if (m->n_started > 0 && m->n_tracing == 0)
    return "terminated";
  return "running";
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
  .write_top = picl_write_top,
  .write_modules = picl_write_modules,
  .group_members = NULL,
};

ViperModel *
viper_picl_model_new (const ViperParadigm *p, ViperSetup *setup)
{
  PiclModel *m = g_new0 (PiclModel, 1);
  viper_model_init (&m->base, &picl_class, p, setup);
  m->procs = g_array_new (FALSE, FALSE, sizeof (Proc));
  m->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  m->free_pending = -1;
  m->last_index = G_MAXUINT;
  return &m->base;
}

/* ---- accessors ------------------------------------------------------------- */

static const PiclModel *
checked (const ViperModel *m)
{
  g_return_val_if_fail (m != NULL && m->klass == &picl_class, NULL);
  return picl (m);
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
