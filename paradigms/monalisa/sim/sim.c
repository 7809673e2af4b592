/* sim.c - the discrete-event kernel of viper-monalisa-sim.
 *
 * Why a discrete-event simulation: Viper's run construction has to be tested
 * against traces whose true order is known.  A real Mona Lisa machine is not
 * available, and a threaded imitation would give a different trace each run.
 * Here one global event heap (time, insertion order) drives everything, so
 * a seed reproduces a trace byte for byte, and the simulator knows the true
 * time of every tram as well as the true final state.
 *
 * The model follows spec/monalisa.md.  Each module is an application process
 * (a step function in programs.c, resumed by events) and a supervisor (the
 * request handlers here) sharing one processor and one clock.  Messages
 * travel with a random latency, but a channel (src, dst) is FIFO: an arrival
 * is never earlier than the previous arrival on the same channel, and ties
 * are broken by insertion order.  Requests to a hidden variable wait in a
 * per-variable queue at the owner's supervisor; an exposure serves that
 * queue.  An exposer whose variable is still exposed blocks until a reply of
 * inglb / wrglb / inrglb hides it.  An inrglb goes to every instance; each
 * instance records (4,18), and only the first one able to serve it replies
 * (the call's "answered" flag stands for the ack/cancel protocol of the
 * thesis's Figure 43, which guarantees one reply); the others drop it.  The
 * ack and the cancels are untraced but still occupy their FIFO channels.
 *
 * Every tram is recorded with its true time and its local time stamp.  A
 * module's clock is  true * (1 + drift) + offset + jitter, never going back;
 * a module's true times never go back either (the supervisor and the
 * application process share the processor's trace stream).  A message is
 * sent at the true time of the tram that records its sending, so causality
 * holds in true time by construction.
 *
 * The truth model applies the rules of spec section 4 to each tram as it is
 * recorded, in true order: what a correct replay must end with.  The program
 * manager runs when nothing can happen any more (the heap is empty): it
 * derives the verdict from the truth model and emits (6,23), (6,24) or (6,25).
 */
#include "sim.h"

#include <math.h>
#include <string.h>

enum { EV_RESUME, EV_ARRIVE, EV_PRIM_END, EV_EXPOSE_DONE, EV_HIDE_END };
enum { MSG_NONE, MSG_REQ, MSG_REPLY };

#define SVC_MS 0.05        /* supervisor: receive to send */
#define APP_MS 0.02        /* application process wake-up */
#define PM_DELAY_MS 5.0    /* program manager: detection delay */

static const int ev_req[N_REMOTE_PRIMS] = { 14, 16, 21, 18 };
static const int ev_rep[N_REMOTE_PRIMS] = { 15, 17, 22, 19 };

const char *
sim_prim_name (int prim)
{
  static const char *names[] = { "inglb", "rdglb", "wrglb", "inrglb", "exposeglb", "hideglb" };
  return prim >= 0 && prim < PRIM_NONE ? names[prim] : NULL;
}

const char *
sim_state_name (int state)
{
  static const char *names[] = { "inactive", "executing", "interacting", "blocked" };
  return names[state];
}

/* ---- set-up ------------------------------------------------------------- */

void
sim_init (Sim *S, const SimOptions *opt)
{
  guint32 seeds[2];

  memset (S, 0, sizeof *S);
  S->opt = *opt;
  seeds[0] = (guint32) opt->seed;
  seeds[1] = (guint32) (opt->seed >> 32);
  S->rnd = g_rand_new_with_seed_array (seeds, 2);
  seeds[1] ^= 0x9e3779b9u;
  S->rclock = g_rand_new_with_seed_array (seeds, 2);
  seeds[1] ^= 0x7f4a7c15u;
  S->rdeliver = g_rand_new_with_seed_array (seeds, 2);
  S->mods = NULL;
  S->heap = g_array_new (FALSE, FALSE, sizeof (SimEvent));
  S->trams = g_array_new (FALSE, FALSE, sizeof (SimTram));
  S->data = g_array_new (FALSE, FALSE, sizeof (gint64));
  S->calls = g_array_new (FALSE, TRUE, sizeof (SimCall));
  S->cycle = g_array_new (FALSE, FALSE, sizeof (int));
}

void
sim_clear (Sim *S)
{
  for (int i = 0; i < S->nmods; i++) {
    SimModule *m = &S->mods[i];
    for (int v = 0; v < S->classes[m->cls].nattrs; v++)
      g_queue_clear_full (&m->vars[v].pending, g_free);
    g_free (m->vars);
    g_free (m->name);
    g_free (m->file);
  }
  for (int g = 0; g < S->ngroups; g++)
    g_free (S->groups[g].name);
  g_free (S->mods);
  g_free (S->clocks);
  g_free (S->chan_last);
  g_array_unref (S->heap);
  g_array_unref (S->trams);
  g_array_unref (S->data);
  g_array_unref (S->calls);
  g_array_unref (S->cycle);
  g_rand_free (S->rnd);
  g_rand_free (S->rclock);
  g_rand_free (S->rdeliver);
}

int
sim_add_class (Sim *S, const char *name, int nattrs, const SimAttr *attrs)
{
  SimClass *c = &S->classes[S->nclasses];
  g_assert (S->nclasses < (int) G_N_ELEMENTS (S->classes) && nattrs <= (int) G_N_ELEMENTS (c->attrs));
  c->name = name;
  c->nattrs = nattrs;
  memcpy (c->attrs, attrs, sizeof (SimAttr) * (size_t) nattrs);
  return S->nclasses++;
}

int
sim_add_module (Sim *S, const char *prog, const char *name, int cls, SimStep step)
{
  SimModule *m;
  char *fname;

  S->mods = g_renew (SimModule, S->mods, S->nmods + 1);
  m = &S->mods[S->nmods];
  memset (m, 0, sizeof *m);
  m->id = S->nmods;
  m->name = g_strdup (name);
  /* farm.SLAVE2 for SLAVE[2]: the executable's file name has no brackets */
  fname = g_strdup (name);
  g_strdelimit (fname, "[]", ' ');
  g_strstrip (fname);
  {
    char **parts = g_strsplit (fname, " ", -1);
    char *joined = g_strjoinv ("", parts);
    m->file = g_strdup_printf ("%s.%s", prog, joined);
    g_free (joined);
    g_strfreev (parts);
  }
  g_free (fname);
  m->cls = cls;
  m->group = -1;
  m->step = step;
  m->cur_prim = PRIM_NONE;
  m->expose_wait_var = -1;
  m->t_state = ST_INACTIVE;
  m->t_prim = PRIM_NONE;
  m->t_partner = -1;
  m->t_var = -1;
  m->vars = g_new0 (SimVar, S->classes[cls].nattrs);
  for (int v = 0; v < S->classes[cls].nattrs; v++)
    g_queue_init (&m->vars[v].pending);
  return S->nmods++;
}

int
sim_add_group (Sim *S, const char *name, int first, int size)
{
  SimGroup *g = &S->groups[S->ngroups];
  g_assert (S->ngroups < (int) G_N_ELEMENTS (S->groups));
  g->name = g_strdup (name);
  g->first = first;
  g->size = size;
  for (int i = 0; i < size; i++) {
    S->mods[first + i].group = S->ngroups;
    S->mods[first + i].rep = i + 1;
  }
  return S->ngroups++;
}

void
sim_setup_done (Sim *S)
{
  double off = S->opt.offset_ms, drift = S->opt.drift_ppm * 1e-6;

  for (int g = 0; g < S->ngroups; g++)
    S->groups[g].id = S->nmods + 1 + g;
  S->clocks = g_new0 (SimClock, S->nmods + 1);
  for (int p = 0; p <= S->nmods; p++) {
    S->clocks[p].offset = off > 0 ? g_rand_double_range (S->rclock, -off, off) : 0.0;
    S->clocks[p].drift = drift > 0 ? g_rand_double_range (S->rclock, -drift, drift) : 0.0;
    S->clocks[p].last_true = -G_MAXDOUBLE;
    S->clocks[p].last_local = -G_MAXDOUBLE;
  }
  S->chan_last = g_new0 (double, (gsize) S->nmods * (gsize) S->nmods);
}

static SimGroup *
group_by_id (Sim *S, int id)
{
  int g = id - S->nmods - 1;
  g_assert (g >= 0 && g < S->ngroups);
  return &S->groups[g];
}

/* ---- randomness --------------------------------------------------------- */

double
sim_uniform (Sim *S, double lo, double hi)
{
  return g_rand_double_range (S->rnd, lo, hi);
}

double
sim_normal (Sim *S, double mean, double sd)
{
  double u1 = 1.0 - g_rand_double (S->rnd), u2 = g_rand_double (S->rnd);
  return mean + sd * sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

/* Half fixed, half exponential: mean latency_ms, never below half of it. */
static double
latency (Sim *S)
{
  double l = S->opt.latency_ms;
  return l * 0.5 - l * 0.5 * log (1.0 - g_rand_double (S->rnd));
}

gboolean
sim_more (Sim *S)
{
  if (S->opt.count > 0)
    return (gint64) S->trams->len < S->opt.count;
  return S->tasks_issued < S->opt.tasks;
}

/* ---- the event heap ----------------------------------------------------- */

static gboolean
ev_before (const SimEvent *a, const SimEvent *b)
{
  return a->t < b->t || (a->t == b->t && a->order < b->order);
}

static void
push (Sim *S, SimEvent *e)
{
  SimEvent *h;
  guint i;

  e->order = S->order++;
  g_array_append_val (S->heap, *e);
  h = (SimEvent *) S->heap->data;
  for (i = S->heap->len - 1; i > 0;) {
    guint parent = (i - 1) / 2;
    if (!ev_before (&h[i], &h[parent]))
      break;
    SimEvent tmp = h[i];
    h[i] = h[parent];
    h[parent] = tmp;
    i = parent;
  }
}

static gboolean
pop (Sim *S, SimEvent *out)
{
  SimEvent *h = (SimEvent *) S->heap->data;
  guint n = S->heap->len, i = 0;

  if (n == 0)
    return FALSE;
  *out = h[0];
  h[0] = h[n - 1];
  g_array_set_size (S->heap, --n);
  for (;;) {
    guint l = 2 * i + 1, r = l + 1, best = i;
    if (l < n && ev_before (&h[l], &h[best]))
      best = l;
    if (r < n && ev_before (&h[r], &h[best]))
      best = r;
    if (best == i)
      break;
    SimEvent tmp = h[i];
    h[i] = h[best];
    h[best] = tmp;
    i = best;
  }
  return TRUE;
}

static void
schedule (Sim *S, double t, int type, int mod, int var)
{
  SimEvent e = { .t = t, .type = type, .mod = mod, .var = var };
  push (S, &e);
}

static void
send_msg (Sim *S, double t, int src, int dst, int kind, int prim, int var, guint call,
          const SimSlice *slice)
{
  double *last = &S->chan_last[(gsize) src * (gsize) S->nmods + (gsize) dst];
  double arrive = t + latency (S);
  SimEvent e;

  if (arrive < *last)
    arrive = *last;  /* FIFO: never before the previous message on this channel */
  *last = arrive;
  if (kind == MSG_NONE)
    return;
  memset (&e, 0, sizeof e);
  e.t = arrive;
  e.type = EV_ARRIVE;
  e.mod = dst;
  e.kind = kind;
  e.prim = prim;
  e.src = src;
  e.var = var;
  e.call = call;
  e.slice = *slice;
  push (S, &e);
}

/* ---- trams -------------------------------------------------------------- */

static double
module_now (Sim *S, SimModule *m)
{
  return MAX (S->now, S->clocks[m->id + 1].last_true);
}

static double
record (Sim *S, int proc, int process, int rec, int ev, double t, int nd, const gint64 *d)
{
  SimClock *c = &S->clocks[proc + 1];
  SimTram tr;
  double local;

  if (t < c->last_true)
    t = c->last_true;
  c->last_true = t;
  local = t * (1.0 + c->drift) + c->offset + S->opt.jitter_ms * g_rand_double (S->rclock);
  if (local < c->last_local)
    local = c->last_local;
  c->last_local = local;
  memset (&tr, 0, sizeof tr);
  tr.t_true = t;
  tr.t_local = local;
  tr.proc = proc;
  tr.data_off = S->data->len;
  tr.nd = (guint16) nd;
  tr.rec = (guint8) rec;
  tr.ev = (guint8) ev;
  tr.process = (guint8) process;
  tr.seq = ++c->seq;
  if (nd)
    g_array_append_vals (S->data, d, (guint) nd);
  g_array_append_val (S->trams, tr);
  return t;
}

static int
fill (gint64 *d, int partner, int var, const SimSlice *s)
{
  int n = 0;
  if (partner >= -1)
    d[n++] = partner;
  d[n++] = var;
  for (int i = 0; i < s->k; i++)
    d[n++] = s->off[i];
  for (int i = 0; i < s->k; i++)
    d[n++] = s->size[i];
  return n;
}

#define NO_PARTNER (-2)

/* ---- the truth model (spec section 4) ----------------------------------- */

static void
release (SimModule *c, int prim)
{
  if (!c->t_finished && c->t_state == ST_BLOCKED && c->t_prim == prim)
    c->t_state = ST_INTERACTING;
}

static void
truth (Sim *S, int proc, int rec, int ev, const gint64 *d, guint call)
{
  SimModule *m = &S->mods[proc];
  gboolean own = !m->t_finished;
  int code = rec * 100 + ev;

  switch (code) {
  case 110:
    m->t_started = TRUE;
    m->t_state = ST_EXECUTING;
    break;
  case 111:
    m->t_finished = TRUE;
    m->t_state = ST_INACTIVE;
    m->t_prim = PRIM_NONE;
    break;
  case 113: case 313: case 112: case 312:
    m->vars[d[0]].truth_exposed = ev == 13;
    if (own) {
      m->t_state = ST_EXECUTING;
      m->t_prim = PRIM_NONE;
    }
    break;
  case 213: case 212:
    if (own) {
      m->t_state = ev == 13 ? ST_BLOCKED : ST_INTERACTING;
      m->t_prim = ev == 13 ? PRIM_EXPOSE : PRIM_HIDE;
      m->t_partner = -1;
      m->t_var = (int) d[0];
    }
    break;
  case 214: case 216: case 221: case 218:
    if (own) {
      m->t_state = ST_INTERACTING;
      m->t_prim = ev == 14 ? PRIM_IN : ev == 16 ? PRIM_RD : ev == 21 ? PRIM_WR : PRIM_INR;
      m->t_partner = (int) d[0];
      m->t_var = (int) d[1];
    }
    break;
  case 414: case 416: case 421:
    if (!m->vars[d[1]].truth_exposed) {
      SimModule *c = &S->mods[d[0]];
      int prim = ev == 14 ? PRIM_IN : ev == 16 ? PRIM_RD : PRIM_WR;
      if (!c->t_finished && c->t_state == ST_INTERACTING && c->t_prim == prim)
        c->t_state = ST_BLOCKED;
    }
    break;
  case 418: {
    SimCall *k = &g_array_index (S->calls, SimCall, call);
    if (!k->t_replied && !m->vars[d[1]].truth_exposed
        && ++k->nhidden == group_by_id (S, k->group)->size) {
      SimModule *c = &S->mods[d[0]];
      if (!c->t_finished && c->t_state == ST_INTERACTING && c->t_prim == PRIM_INR)
        c->t_state = ST_BLOCKED;
    }
    break;
  }
  case 515: case 522:
    m->vars[d[1]].truth_exposed = FALSE;
    release (&S->mods[d[0]], ev == 15 ? PRIM_IN : PRIM_WR);
    break;
  case 517:
    release (&S->mods[d[0]], PRIM_RD);
    break;
  case 519:
    m->vars[d[1]].truth_exposed = FALSE;
    g_array_index (S->calls, SimCall, call).t_replied = TRUE;
    release (&S->mods[d[0]], PRIM_INR);
    break;
  case 419:
    if (own)
      m->t_partner = (int) d[0];
    break;
  case 314: case 316: case 321: case 318:
    if (own) {
      m->t_state = ST_EXECUTING;
      m->t_prim = PRIM_NONE;
    }
    break;
  default:
    break;
  }
}

static double
emit (Sim *S, SimModule *m, int process, int rec, int ev, double t, int partner, int var,
      const SimSlice *slice, guint call)
{
  gint64 d[8];
  int nd = fill (d, partner, var, slice);
  t = record (S, m->id, process, rec, ev, t, nd, d);
  truth (S, m->id, rec, ev, d, call);
  return t;
}

static const SimSlice no_slice;

/* ---- the application process's actions ---------------------------------- */

void
sim_start (Sim *S, SimModule *m)
{
  double t = record (S, m->id, 0, 1, 10, module_now (S, m), 0, NULL);
  truth (S, m->id, 1, 10, NULL, 0);
  schedule (S, t + APP_MS, EV_RESUME, m->id, 0);
}

void
sim_finish (Sim *S, SimModule *m)
{
  record (S, m->id, 0, 1, 11, module_now (S, m), 0, NULL);
  truth (S, m->id, 1, 11, NULL, 0);
  m->finished = TRUE;
}

void
sim_work (Sim *S, SimModule *m, double ms)
{
  schedule (S, module_now (S, m) + MAX (ms, 0.0), EV_RESUME, m->id, 0);
}

static double serve (Sim *S, SimModule *p, const SimPending *r, double t);

static void
serve_pending (Sim *S, SimModule *p, int var, double t)
{
  SimVar *v = &p->vars[var];

  while (v->exposed && !g_queue_is_empty (&v->pending)) {
    SimPending *r = g_queue_pop_head (&v->pending);
    if (r->prim != PRIM_INR || !g_array_index (S->calls, SimCall, r->call).answered)
      t = serve (S, p, r, t + SVC_MS);
    g_free (r);
  }
}

void
sim_expose (Sim *S, SimModule *m, int var, const SimSlice *slice)
{
  const SimSlice *s = slice ? slice : &no_slice;
  double t;

  if (!m->vars[var].exposed) {
    t = emit (S, m, 0, 1, 13, module_now (S, m), NO_PARTNER, var, s, 0);
    m->vars[var].exposed = TRUE;
    serve_pending (S, m, var, t);
    schedule (S, t + APP_MS, EV_RESUME, m->id, 0);
  } else {
    emit (S, m, 0, 2, 13, module_now (S, m), NO_PARTNER, var, s, 0);
    m->expose_wait_var = var;
    m->expose_slice = *s;
  }
}

void
sim_hide (Sim *S, SimModule *m, int var)
{
  double t = emit (S, m, 0, 1, 12, module_now (S, m), NO_PARTNER, var, &no_slice, 0);
  m->vars[var].exposed = FALSE;
  schedule (S, t + APP_MS, EV_RESUME, m->id, 0);
}

void
sim_hide_long (Sim *S, SimModule *m, int var, double ms)
{
  double t = emit (S, m, 0, 2, 12, module_now (S, m), NO_PARTNER, var, &no_slice, 0);
  schedule (S, t + ms, EV_HIDE_END, m->id, var);
}

void
sim_call (Sim *S, SimModule *m, SimPrim prim, int target, int var, const SimSlice *slice)
{
  double t;

  m->cur_prim = prim;
  m->cur_target = target;
  m->cur_partner = target;
  m->cur_var = var;
  m->cur_slice = slice ? *slice : no_slice;
  t = emit (S, m, 0, 2, ev_req[prim], module_now (S, m), target, var, &m->cur_slice, 0);
  if (prim == PRIM_INR) {
    SimGroup *g = group_by_id (S, target);
    SimCall c = { .caller = m->id, .group = target, .var = var, .replier = -1 };
    m->cur_call = S->calls->len;
    g_array_append_val (S->calls, c);
    for (int i = 0; i < g->size; i++)
      send_msg (S, t, m->id, g->first + i, MSG_REQ, prim, var, m->cur_call, &m->cur_slice);
  } else {
    send_msg (S, t, m->id, target, MSG_REQ, prim, var, 0, &m->cur_slice);
  }
}

/* ---- the supervisor ----------------------------------------------------- */

static double
serve (Sim *S, SimModule *p, const SimPending *r, double t)
{
  t = emit (S, p, 1, 5, ev_rep[r->prim], t, r->caller, r->var, &r->slice, r->call);
  if (r->prim != PRIM_RD) {
    p->vars[r->var].exposed = FALSE;
    if (p->expose_wait_var == r->var) {
      p->expose_wait_var = -1;
      schedule (S, t + APP_MS, EV_EXPOSE_DONE, p->id, r->var);
    }
  }
  if (r->prim == PRIM_INR) {
    SimCall *c = &g_array_index (S->calls, SimCall, r->call);
    c->answered = TRUE;
    c->replier = p->id;
  }
  send_msg (S, t, p->id, r->caller, MSG_REPLY, r->prim, r->var, r->call, &r->slice);
  return t;
}

static void
on_request (Sim *S, const SimEvent *e)
{
  SimModule *p = &S->mods[e->mod];
  SimPending r = { .caller = e->src, .prim = e->prim, .var = e->var, .call = e->call, .slice = e->slice };
  double t = emit (S, p, 1, 4, ev_req[e->prim], S->now, e->src, e->var, &e->slice, e->call);

  if (e->prim == PRIM_INR && g_array_index (S->calls, SimCall, e->call).answered)
    return;  /* another instance replied: the cancel drops it */
  if (p->vars[e->var].exposed)
    serve (S, p, &r, t + SVC_MS);
  else
    g_queue_push_tail (&p->vars[e->var].pending, g_memdup2 (&r, sizeof r));
}

static void
on_reply (Sim *S, const SimEvent *e)
{
  SimModule *c = &S->mods[e->mod];
  double t = emit (S, c, 1, 4, ev_rep[e->prim], S->now, e->src, e->var, &e->slice, e->call);

  if (e->prim == PRIM_INR) {
    SimGroup *g = group_by_id (S, c->cur_target);
    c->cur_partner = e->src;
    t = emit (S, c, 1, 5, 20, t + SVC_MS, c->cur_target, e->var, &e->slice, e->call);
    for (int i = 0; i < g->size; i++)  /* the ack to the replier, cancels to the others */
      send_msg (S, t, c->id, g->first + i, MSG_NONE, 0, 0, 0, &no_slice);
  }
  schedule (S, t + APP_MS, EV_PRIM_END, c->id, 0);
}

/* ---- the program manager ------------------------------------------------ */

static gboolean
remote_blocked (const SimModule *m)
{
  return !m->t_finished && m->t_state == ST_BLOCKED && m->t_prim < N_REMOTE_PRIMS;
}

/* The largest set D of blocked modules whose partners are all in D. */
static void
deadlock_set (Sim *S, gboolean *in)
{
  gboolean changed = TRUE;

  for (int i = 0; i < S->nmods; i++)
    in[i] = remote_blocked (&S->mods[i]);
  while (changed) {
    changed = FALSE;
    for (int i = 0; i < S->nmods; i++) {
      SimModule *m = &S->mods[i];
      gboolean keep;
      if (!in[i])
        continue;
      if (m->t_prim == PRIM_INR && m->t_partner >= S->nmods) {
        SimGroup *g = group_by_id (S, m->t_partner);
        keep = TRUE;
        for (int k = 0; k < g->size; k++)
          keep = keep && in[g->first + k];
      } else {
        keep = in[m->t_partner];
      }
      if (!keep) {
        in[i] = FALSE;
        changed = TRUE;
      }
    }
  }
}

static gboolean
blocked_on_finished (Sim *S, const SimModule *m)
{
  if (!remote_blocked (m))
    return FALSE;
  if (m->t_prim == PRIM_INR && m->t_partner >= S->nmods) {
    SimGroup *g = group_by_id (S, m->t_partner);
    for (int k = 0; k < g->size; k++)
      if (!S->mods[g->first + k].t_finished)
        return FALSE;
    return TRUE;
  }
  return S->mods[m->t_partner].t_finished;
}

const char *
sim_program_state (Sim *S, GArray *cycle_out)
{
  gboolean *in = g_new (gboolean, S->nmods);
  gboolean any_started = FALSE, all_finished = TRUE, any_dead = FALSE, on_finished = FALSE;
  gboolean all_expose = TRUE, any_unfinished = FALSE;
  const char *state;

  deadlock_set (S, in);
  g_array_set_size (cycle_out, 0);
  for (int i = 0; i < S->nmods; i++) {
    SimModule *m = &S->mods[i];
    any_started = any_started || m->t_started;
    all_finished = all_finished && m->t_finished;
    if (in[i]) {
      any_dead = TRUE;
      g_array_append_val (cycle_out, i);
    }
    on_finished = on_finished || blocked_on_finished (S, m);
    if (!m->t_finished) {
      any_unfinished = TRUE;
      all_expose = all_expose && m->t_state == ST_BLOCKED && m->t_prim == PRIM_EXPOSE;
    }
  }
  g_free (in);
  if (!any_started)
    state = "inactive";
  else if (all_finished)
    state = "terminated";
  else if (any_dead)
    state = "deadlock";
  else if (on_finished || (any_unfinished && all_expose))
    state = "abnormal";
  else
    state = "running";
  return state;
}

/* Nothing can happen any more: the program manager gives its verdict. */
static void
program_manager (Sim *S)
{
  GArray *list = g_array_new (FALSE, FALSE, sizeof (gint64));
  const char *state = sim_program_state (S, S->cycle);
  gboolean direct = TRUE;
  int ev;

  if (strcmp (state, "deadlock") == 0) {
    ev = 23;
    for (guint i = 0; i < S->cycle->len; i++) {
      gint64 id = g_array_index (S->cycle, int, i);
      g_array_append_val (list, id);
    }
  } else {
    /* Normal end when everybody left waits for input from finished modules
     * (the Farm's slaves waiting for the next job); anything else that is
     * stuck is an abnormal end.  Either way the rest are terminated. */
    for (int i = 0; i < S->nmods; i++) {
      SimModule *m = &S->mods[i];
      gint64 id = i;
      if (m->t_finished)
        continue;
      g_array_append_val (list, id);
      direct = direct && blocked_on_finished (S, m) && m->t_prim != PRIM_WR;
    }
    ev = direct ? 25 : 24;
  }
  record (S, -1, 0, 6, ev, S->now + PM_DELAY_MS, (int) list->len, (gint64 *) list->data);
  S->reported = ev;
  if (ev == 25) {
    for (guint i = 0; i < list->len; i++) {
      SimModule *m = &S->mods[g_array_index (list, gint64, i)];
      m->t_finished = TRUE;
      m->t_state = ST_INACTIVE;
      m->t_prim = PRIM_NONE;
    }
  }
  g_array_unref (list);
}

/* ---- the loop ----------------------------------------------------------- */

static void
resume (Sim *S, SimModule *m)
{
  if (!m->finished)
    m->step (S, m);
}

void
sim_run (Sim *S)
{
  SimEvent e;

  /* The program manager downloads and starts the modules one by one. */
  for (int i = 0; i < S->nmods; i++)
    schedule (S, 0.1 * i + sim_uniform (S, 0.0, 0.05), EV_RESUME, i, 0);

  while (pop (S, &e)) {
    SimModule *m = &S->mods[e.mod];
    double t;
    S->now = e.t;
    switch (e.type) {
    case EV_RESUME:
      resume (S, m);
      break;
    case EV_ARRIVE:
      if (e.kind == MSG_REQ)
        on_request (S, &e);
      else
        on_reply (S, &e);
      break;
    case EV_PRIM_END:
      t = emit (S, m, 0, 3, ev_req[m->cur_prim], module_now (S, m), m->cur_partner, m->cur_var,
                &m->cur_slice, m->cur_call);
      m->cur_prim = PRIM_NONE;
      schedule (S, t, EV_RESUME, m->id, 0);
      break;
    case EV_EXPOSE_DONE:
      t = emit (S, m, 0, 3, 13, module_now (S, m), NO_PARTNER, e.var, &m->expose_slice, 0);
      m->vars[e.var].exposed = TRUE;
      serve_pending (S, m, e.var, t);
      schedule (S, t + APP_MS, EV_RESUME, m->id, 0);
      break;
    case EV_HIDE_END:
      t = emit (S, m, 0, 3, 12, module_now (S, m), NO_PARTNER, e.var, &no_slice, 0);
      m->vars[e.var].exposed = FALSE;
      schedule (S, t + APP_MS, EV_RESUME, m->id, 0);
      break;
    default:
      g_assert_not_reached ();
    }
  }
  program_manager (S);

  /* The truth model must agree with the simulator on every variable. */
  for (int i = 0; i < S->nmods; i++)
    for (int v = 0; v < S->classes[S->mods[i].cls].nattrs; v++)
      if (S->mods[i].vars[v].exposed != S->mods[i].vars[v].truth_exposed)
        g_warning ("truth model disagrees on variable %d.%d", i, v);
}
