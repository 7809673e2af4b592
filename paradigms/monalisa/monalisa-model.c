/* monalisa-model.c - the Mona Lisa program-state model (spec monalisa.md
 * section 4): module states and primitives, variable states, the messages
 * underway, and the program state with the program manager's verdict.
 *
 * Design.  Trams arrive in run order (a consistent run), so every rule of the
 * spec is a local update on the tram's own module, its partner, or both:
 *  - The application process's trams (START, END, INSTANT, the caller's
 *    reply receipt and ack) change the module's state and primitive.  The
 *    supervisor's trams (request received, reply sent) change the owner's
 *    variable and block or release the *caller*; a supervisor outlives its
 *    application process, so they are legal after (1,11).
 *  - Messages underway are kept per sending module, oldest first.  Channels
 *    are FIFO, so a receipt always takes the oldest matching message from
 *    that sender: no sequence numbers are needed to pair them, and an inrglb
 *    request that reaches a slow instance after its caller has moved on
 *    still finds the call it belongs to (the request arrow points to it).
 *  - An inrglb call counts the instances that received the request while
 *    their variable was hidden; when all have, the caller blocks, until the
 *    first reply.
 *  - Contradictions (a reply from a hidden variable, trams of a finished
 *    module, a receipt nothing was sent for) are counted through
 *    viper_model_inconsistent() and applied as far as they make sense; the
 *    model never refuses a tram.
 *  - The program state is re-derived only when something it depends on
 *    changed (a module started, finished, blocked or was released, or a
 *    verdict arrived).  Counters answer the common cases in O(1); the
 *    largest deadlocked set D is a greatest fixpoint (drop every member whose
 *    partner is not in D until nothing changes), computed only while some
 *    module is blocked.
 * Without a setup file modules appear as their trams do ("M<id>"), variables
 * as they are named ("V<id>"), and a group is its own id, so every primitive
 * but inrglb replays as with one.
 */
#include "monalisa-model-priv.h"

/* ---- modules and variables ------------------------------------------------- */

void
ml_var_clear (gpointer p)
{
  g_free (((Var *) p)->name);
}

void
ml_module_free (gpointer p)
{
  Module *mod = p;
  if (!mod)
    return;
  g_free (mod->name);
  g_array_unref (mod->vars);
  g_free (mod->arrows.v);
  g_ptr_array_unref (mod->calls);
  g_free (mod);
}

static void
add_var (Module *mod, const char *name)
{
  Var v = { 0 };
  v.name = name ? g_strdup (name) : g_strdup_printf ("V%u", mod->vars->len);
  g_array_append_val (mod->vars, v);
}

static Module *
module_new (MlModel *m, gint64 id)
{
  Module *mod = g_new0 (Module, 1);
  mod->id = id;
  mod->vars = g_array_new (FALSE, FALSE, sizeof (Var));
  g_array_set_clear_func (mod->vars, ml_var_clear);
  mod->calls = g_ptr_array_new_with_free_func (g_free);
  const char *name = m->setup ? viper_monalisa_setup_module_name (m->setup, (guint) MIN (id, G_MAXUINT)) : NULL;
  if (name && id < (gint64) viper_monalisa_setup_n_modules (m->setup))
    {
      mod->from_setup = TRUE;
      mod->name = g_strdup (name);
      guint n = viper_monalisa_setup_n_attributes (m->setup, (guint) id);
      for (guint i = 0; i < n; i++)
        add_var (mod, viper_monalisa_setup_attribute_name (m->setup, (guint) id, i));
    }
  else
    mod->name = g_strdup_printf ("M%" G_GINT64_FORMAT, id);
  if ((gint64) m->modules->len <= id)
    g_ptr_array_set_size (m->modules, (guint) id + 1);
  m->modules->pdata[id] = mod;
  m->n_exist++;
  m->dirty = TRUE;
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, id, 0);
  return mod;
}

/* The module of a tram's PROC (or a module a verdict lists): created on first sight. */
static G_NO_INLINE Module *
module_create (MlModel *m, gint64 id)
{
  if (id < 0 || id > G_MAXINT32)
    {
      viper_model_inconsistent (&m->base, m->tram, "module id %" G_GINT64_FORMAT " is not a module", id);
      return NULL;
    }
  if (m->setup)
    viper_model_inconsistent (&m->base, m->tram, "module %" G_GINT64_FORMAT " is not in the setup file (%u modules)",
                              id, viper_monalisa_setup_n_modules (m->setup));
  return module_new (m, id);
}

/* The fast path inline: a module is created once and looked up every tram. */
static inline Module *
module_ensure (MlModel *m, gint64 id)
{
  Module *mod = module_get (m, id);
  return G_LIKELY (mod) ? mod : module_create (m, id);
}

static G_NO_INLINE Var *
var_create (MlModel *m, Module *mod, gint64 var)
{
  if (var < 0 || var > 65535)
    {
      viper_model_inconsistent (&m->base, m->tram, "variable id %" G_GINT64_FORMAT " of module %s is not a variable",
                                var, mod->name);
      return NULL;
    }
  if (mod->from_setup)
    viper_model_inconsistent (&m->base, m->tram, "module %s has no variable %" G_GINT64_FORMAT " in the setup file",
                              mod->name, var);
  while ((gint64) mod->vars->len <= var)
    add_var (mod, NULL);
  return var_get (mod, var);
}

static inline Var *
var_ensure (MlModel *m, Module *mod, gint64 var)
{
  Var *v = var_get (mod, var);
  if (G_LIKELY (v) || !mod)
    return v;
  return var_create (m, mod, var);
}

static guint
members_of (const MlModel *m, gint64 group, gint64 *out, guint max)
{
  guint n = m->setup ? viper_monalisa_setup_group_members (m->setup, group, out, max) : 0;
  if (n == 0 && max > 0)
    {
      out[0] = group;           /* a module is its own group */
      n = 1;
    }
  return n;
}

/* ---- state changes ------------------------------------------------------------ */

static void
touch_module (MlModel *m, Module *mod)
{
  viper_damage_add (m->base.damage, VIPER_AREA_MODULE, mod->id, 0);
  m->changed = TRUE;
}

/* The group an inrglb waits on (the call's, since (4,19) renames the partner). */
static gint64
waits_on (const Module *mod)
{
  return mod->prim.prim == VIPER_ML_PRIM_INRGLB && mod->call ? mod->call->group : mod->prim.partner;
}

/* Index of the changes a tram makes about a call it did not decide: after
 * the tram's own (a receipt's block, its retraction). */
#define CHANGE_IDX_BLOCK (1u << 20)

/* Record a change of mod (its state, primitive, started, finished as they
 * are now) for viper_monalisa_changes, dated time, decided by lamport. */
static void
note_change_as (MlModel *m, const Module *mod, ViperMonalisaModuleState s, double time, guint32 lamport, guint32 idx,
                gboolean retract)
{
  if (!m->want_changes)
    return;                   /* nobody reads them: a replay without a timeline export */
  ViperMonalisaChange c = { mod->id, time, lamport, idx, retract, s, mod->prim.prim,
                            mod->prim.prim == VIPER_ML_PRIM_NONE ? -1 : waits_on (mod), mod->started, mod->finished };
  g_array_append_val (m->changes, c);
}

static void
note_change (MlModel *m, const Module *mod)
{
  note_change_as (m, mod, mod->state, m->tram->adjusted, m->tram->lamport, m->change_idx++, FALSE);
}

/* mod's state from time on (decided by the tram of Lamport number lamport):
 * the state changes now; the history and the changes are dated time. */
static void
set_state_at (MlModel *m, Module *mod, ViperMonalisaModuleState s, double time, guint32 lamport, guint32 idx)
{
  if (mod->state == s)
    return;
  if (mod->state == VIPER_ML_BLOCKED)
    m->n_blocked--;
  if (s == VIPER_ML_BLOCKED)
    m->n_blocked++;
  if (mod->state == VIPER_ML_BLOCKED || s == VIPER_ML_BLOCKED)
    m->dirty = TRUE;
  mod->state = s;
  touch_module (m, mod);
  ViperHistoryEntry e = { time, time, (gint32) mod->id, -1, (gint32) s, (gint32) mod->prim.prim };
  viper_model_history_add (&m->base, &e);
  note_change_as (m, mod, s, time, lamport, idx, FALSE);
}

static void
set_state (MlModel *m, Module *mod, ViperMonalisaModuleState s)
{
  if (mod->state != s)
    set_state_at (m, mod, s, m->tram->adjusted, m->tram->lamport, m->change_idx++);
}

static void
set_prim (MlModel *m, Module *mod, ViperMonalisaPrim prim, gint64 partner, gint64 var)
{
  if (mod->prim.prim == prim && mod->prim.partner == partner && mod->prim.var == var)
    return;
  if (mod->prim.prim == VIPER_ML_PRIM_INRGLB && prim != VIPER_ML_PRIM_INRGLB && mod->call)
    {
      mod->call->current = FALSE;
      mod->call = NULL;
    }
  mod->prim.prim = prim;
  mod->prim.partner = prim == VIPER_ML_PRIM_NONE ? -1 : partner;
  mod->prim.var = prim == VIPER_ML_PRIM_NONE ? -1 : var;
  /* no re-derivation here: a primitive only matters to the program state
   * while its module is blocked, and blocking goes through set_state */
  touch_module (m, mod);
}

static void
settle_call (Module *caller, Call *call)
{
  if (call->replied && call->received >= call->n_members && !call->current)
    g_ptr_array_remove (caller->calls, call);
}

static void
set_finished (MlModel *m, Module *mod, gboolean killed)
{
  if (killed)
    mod->killed = TRUE;
  if (mod->finished)
    return;
  Call *call = mod->call;
  set_prim (m, mod, VIPER_ML_PRIM_NONE, -1, -1);
  if (call)
    settle_call (mod, call);
  set_state (m, mod, VIPER_ML_INACTIVE);
  mod->finished = TRUE;
  m->n_finished++;
  m->dirty = TRUE;
  touch_module (m, mod);
  note_change (m, mod);
}

static void
set_started (MlModel *m, Module *mod)
{
  if (mod->started)
    return;
  mod->started = TRUE;
  m->n_started++;
  m->dirty = TRUE;
  touch_module (m, mod);
  note_change (m, mod);
}

static void
set_var (MlModel *m, Module *mod, gint64 var_id, gboolean exposed, const ViperMonalisaTram *d)
{
  Var *v = var_ensure (m, mod, var_id);
  if (!v)
    return;
  gboolean change = v->exposed != exposed;
  v->exposed = exposed;
  if (d && !d->bad_slice && (d->type == VIPER_ML_T_EXPOSE_INSTANT || d->type == VIPER_ML_T_EXPOSE_END
                             || d->type == VIPER_ML_T_HIDE_INSTANT || d->type == VIPER_ML_T_HIDE_END))
    {
      /* the decode sets only the first n_dims; the variable's others stay zero
       * (a slice has a few dimensions: loops, not calls to memcmp and memcpy) */
      guint n = d->n_dims;
      if (v->n_dims != n)
        change = TRUE;
      for (guint k = 0; k < n; k++)
        {
          if (v->offset[k] != d->offset[k] || v->size[k] != d->size[k])
            change = TRUE;
          v->offset[k] = d->offset[k];
          v->size[k] = d->size[k];
        }
      for (guint k = n; k < v->n_dims; k++)
        v->offset[k] = v->size[k] = 0;
      v->n_dims = n;
    }
  if (change)
    {
      viper_damage_add (m->base.damage, VIPER_AREA_VARIABLE, mod->id, var_id);
      touch_module (m, mod);    /* the second circle */
    }
}

/* ---- applying trams ------------------------------------------------------------ */

static ViperMonalisaPrim
prim_of (ViperMonalisaTramType t)
{
  switch (t)
    {
    case VIPER_ML_T_IN_START: case VIPER_ML_T_IN_RQ_RECV: case VIPER_ML_T_IN_RP_SEND:
    case VIPER_ML_T_IN_RP_RECV: case VIPER_ML_T_IN_END:
      return VIPER_ML_PRIM_INGLB;
    case VIPER_ML_T_RD_START: case VIPER_ML_T_RD_RQ_RECV: case VIPER_ML_T_RD_RP_SEND:
    case VIPER_ML_T_RD_RP_RECV: case VIPER_ML_T_RD_END:
      return VIPER_ML_PRIM_RDGLB;
    case VIPER_ML_T_WR_START: case VIPER_ML_T_WR_RQ_RECV: case VIPER_ML_T_WR_RP_SEND:
    case VIPER_ML_T_WR_RP_RECV: case VIPER_ML_T_WR_END:
      return VIPER_ML_PRIM_WRGLB;
    case VIPER_ML_T_INR_START: case VIPER_ML_T_INR_RQ_RECV: case VIPER_ML_T_INR_RP_SEND:
    case VIPER_ML_T_INR_RP_RECV: case VIPER_ML_T_INR_ACK: case VIPER_ML_T_INR_END:
      return VIPER_ML_PRIM_INRGLB;
    case VIPER_ML_T_EXPOSE_START: case VIPER_ML_T_EXPOSE_END:
      return VIPER_ML_PRIM_EXPOSEGLB;
    case VIPER_ML_T_HIDE_START: case VIPER_ML_T_HIDE_END:
      return VIPER_ML_PRIM_HIDEGLB;
    default:
      return VIPER_ML_PRIM_NONE;
    }
}

/* May the application process's tram change mod's state?  A finished
 * module's trams are counted inconsistent and leave its state alone. */
static gboolean
own (MlModel *m, Module *mod)
{
  if (!mod->finished)
    return TRUE;
  viper_model_inconsistent (&m->base, m->tram, "%s has %s", mod->name,
                            mod->killed ? "been ended by the program manager" : "finished");
  return FALSE;
}

/* A supervisor tram of mod: legal after (1,11), not after the program manager ended it. */
static void
supervisor (MlModel *m, Module *mod)
{
  if (mod->killed)
    viper_model_inconsistent (&m->base, m->tram, "%s has been ended by the program manager", mod->name);
}

static void
expect_prim (MlModel *m, Module *mod, ViperMonalisaPrim want)
{
  if (mod->prim.prim != want)
    viper_model_inconsistent (&m->base, m->tram, "%s is in %s, not in %s", mod->name,
                              mod->prim.prim ? viper_monalisa_prim_name (mod->prim.prim) : "no primitive",
                              viper_monalisa_prim_name (want));
}

static void
expect_no_prim (MlModel *m, Module *mod)
{
  if (mod->prim.prim != VIPER_ML_PRIM_NONE)
    viper_model_inconsistent (&m->base, m->tram, "%s is still in %s", mod->name,
                              viper_monalisa_prim_name (mod->prim.prim));
}

static void
end_primitive (MlModel *m, Module *mod, ViperMonalisaPrim want)
{
  if (!own (m, mod))
    return;
  expect_prim (m, mod, want);
  Call *call = mod->call;
  set_prim (m, mod, VIPER_ML_PRIM_NONE, -1, -1);
  if (call)
    settle_call (mod, call);
  set_state (m, mod, VIPER_ML_EXECUTING);
}

static gboolean
valid_partner (MlModel *m, gint64 partner)
{
  if (partner < 0 || partner > G_MAXINT32)
    {
      viper_model_inconsistent (&m->base, m->tram, "partner %" G_GINT64_FORMAT " is not a module", partner);
      return FALSE;
    }
  return TRUE;
}

/* Every instance of c's inrglb call received the request with its variable
 * hidden: c is blocked from the latest receipt (recv_max, whatever order the
 * run applied them in) until the first reply, spec section 4. */
static void
inr_block (MlModel *m, Module *c, Call *call)
{
  if (!call->replied)
    {
      if (!call->current || c->finished || c->state != VIPER_ML_INTERACTING)
        return;
      guint64 pos = m->base.history_dropped + (guint64) m->base.history->len;
      set_state_at (m, c, VIPER_ML_BLOCKED, call->recv_max, call->recv_lamport, CHANGE_IDX_BLOCK);
      call->blocked = TRUE;
      call->block_hist = m->base.history_dropped + (guint64) m->base.history->len > pos ? pos : G_MAXUINT64;
      return;
    }
  if (call->reply_time <= call->recv_max)
    return;                   /* replied before the last receipt: never blocked */
  /* The reply was applied first, though it came later: the block is in the
   * past.  The current state is not the block's; the changes (and the
   * history, while the call is still c's latest state) get it. */
  ViperMonalisaChange b = { c->id, call->recv_max, call->recv_lamport, CHANGE_IDX_BLOCK, FALSE, VIPER_ML_BLOCKED,
                            VIPER_ML_PRIM_INRGLB, call->group, TRUE, FALSE };
  ViperMonalisaChange r = b;
  r.time = call->reply_time;
  r.lamport = call->reply_lamport;
  r.state = VIPER_ML_INTERACTING;
  if (m->want_changes)
    {
      g_array_append_val (m->changes, b);
      g_array_append_val (m->changes, r);
    }
  if (call->current && !c->finished && c->state == VIPER_ML_INTERACTING)
    {
      ViperHistoryEntry e = { b.time, b.time, (gint32) c->id, -1, VIPER_ML_BLOCKED, VIPER_ML_PRIM_INRGLB };
      viper_model_history_add (&m->base, &e);
      e.t0 = e.t1 = r.time;
      e.state = VIPER_ML_INTERACTING;
      viper_model_history_add (&m->base, &e);
      touch_module (m, c);
    }
}

/* The block set at (since, since_lamport) never held: c is interacting again,
 * its history entry says so, and the change is retracted. */
static void
unblock_retract (MlModel *m, Module *c, double since, guint32 since_lamport, guint64 hist)
{
  m->n_blocked--;
  m->dirty = TRUE;
  c->state = VIPER_ML_INTERACTING;
  touch_module (m, c);
  if (hist != G_MAXUINT64)
    viper_model_history_set_state (&m->base, hist, VIPER_ML_INTERACTING);
  note_change_as (m, c, VIPER_ML_BLOCKED, since, since_lamport, CHANGE_IDX_BLOCK + 1, TRUE);
}

static void
apply_start (MlModel *m, Module *c, const ViperMonalisaTram *d)
{
  ViperMonalisaPrim prim = prim_of (d->type);
  if (!valid_partner (m, d->partner))
    return;
  Call *call = NULL;
  if (prim == VIPER_ML_PRIM_INRGLB)
    {
      gint64 members[1024];
      guint n = members_of (m, d->partner, members, G_N_ELEMENTS (members));
      call = g_new0 (Call, 1);
      call->caller = c->id;
      call->group = d->partner;
      call->n_members = n;
      call->block_hist = G_MAXUINT64;
      g_ptr_array_add (c->calls, call);
      for (guint i = 0; i < n; i++)
        ml_arrow_send (m, c, members[i], VIPER_ML_ARROW_REQUEST, prim, d->var, call);
    }
  else
    ml_arrow_send (m, c, d->partner, prim == VIPER_ML_PRIM_WRGLB ? VIPER_ML_ARROW_DATA : VIPER_ML_ARROW_REQUEST,
                prim, d->var, NULL);
  if (!own (m, c))
    return;
  expect_no_prim (m, c);
  set_prim (m, c, prim, d->partner, d->var);
  c->call = call;
  if (call)
    call->current = TRUE;
  set_state (m, c, VIPER_ML_INTERACTING);
}

/* P's supervisor received C's inglb / rdglb / wrglb request. */
static void
apply_request_received (MlModel *m, Module *p, const ViperMonalisaTram *d)
{
  ViperMonalisaPrim prim = prim_of (d->type);
  supervisor (m, p);
  if (!ml_arrow_receive (m, d->partner, p->id, prim == VIPER_ML_PRIM_WRGLB ? VIPER_ML_ARROW_DATA : VIPER_ML_ARROW_REQUEST,
                      prim, NULL))
    viper_model_inconsistent (&m->base, m->tram, "%s received a %s request module %" G_GINT64_FORMAT " did not send",
                              p->name, viper_monalisa_prim_name (prim), d->partner);
  var_ensure (m, p, d->var);
  if (var_exposed (p, d->var))
    return;
  Module *c = module_get (m, d->partner);
  if (c && !c->finished && c->state == VIPER_ML_INTERACTING && c->prim.prim == prim && c->prim.partner == p->id)
    set_state (m, c, VIPER_ML_BLOCKED);
}

/* P's supervisor replies to C. */
static void
apply_reply_sent (MlModel *m, Module *p, const ViperMonalisaTram *d)
{
  ViperMonalisaPrim prim = prim_of (d->type);
  supervisor (m, p);
  var_ensure (m, p, d->var);
  if (!var_exposed (p, d->var))
    viper_model_inconsistent (&m->base, m->tram, "%s replies from its hidden variable %" G_GINT64_FORMAT,
                              p->name, d->var);
  if (prim != VIPER_ML_PRIM_RDGLB)
    set_var (m, p, d->var, FALSE, NULL);
  ml_arrow_send (m, p, d->partner, prim == VIPER_ML_PRIM_WRGLB ? VIPER_ML_ARROW_REPLY : VIPER_ML_ARROW_DATA,
              prim, d->var, NULL);
  Module *c = module_get (m, d->partner);
  if (prim == VIPER_ML_PRIM_INRGLB && c)
    {
      Call *call = NULL;
      for (guint i = 0; i < c->calls->len && !call; i++)
        if (!((Call *) c->calls->pdata[i])->replied)
          call = c->calls->pdata[i];
      if (!call)
        {
          viper_model_inconsistent (&m->base, m->tram, "%s replies to an inrglb of %s that is not underway",
                                    p->name, c->name);
          return;
        }
      call->replied = TRUE;
      call->reply_time = m->tram->adjusted;
      call->reply_lamport = m->tram->lamport;
      gboolean current = call->current, blocked = call->blocked;
      double since = call->recv_max;
      guint32 since_lamport = call->recv_lamport;
      guint64 hist = call->block_hist;
      call->blocked = FALSE;
      settle_call (c, call);
      if (!current)
        return;
      if (blocked && m->tram->adjusted <= since && !c->finished && c->state == VIPER_ML_BLOCKED)
        {
          /* replied before the last instance received the request (a reply
           * applied after that receipt, dated before it): the block never
           * held, spec section 4.  Undone where it was recorded. */
          unblock_retract (m, c, since, since_lamport, hist);
          return;
        }
    }
  if (c && !c->finished && c->state == VIPER_ML_BLOCKED && c->prim.prim == prim)
    set_state (m, c, VIPER_ML_INTERACTING);
}

/* An instance received C's inrglb request. */
static void
apply_inr_received (MlModel *m, Module *inst, const ViperMonalisaTram *d)
{
  supervisor (m, inst);
  Call *call = NULL;
  var_ensure (m, inst, d->var);
  if (!ml_arrow_receive (m, d->partner, inst->id, VIPER_ML_ARROW_REQUEST, VIPER_ML_PRIM_INRGLB, &call) || !call)
    {
      viper_model_inconsistent (&m->base, m->tram, "%s received an inrglb request module %" G_GINT64_FORMAT
                                " did not send", inst->name, d->partner);
      return;
    }
  call->received++;
  double t = m->tram->adjusted;
  guint32 lamport = m->tram->lamport;
  if (call->received == 1 || t > call->recv_max || (t == call->recv_max && lamport > call->recv_lamport))
    {
      call->recv_max = t;
      call->recv_lamport = lamport;
    }
  if (!var_exposed (inst, d->var))
    call->received_hidden++;
  Module *c = module_get (m, call->caller);
  if (c && call->received == call->n_members && call->received_hidden == call->n_members)
    inr_block (m, c, call);
  if (c)
    settle_call (c, call);
}

static void
apply_reply_received (MlModel *m, Module *c, const ViperMonalisaTram *d)
{
  ViperMonalisaPrim prim = prim_of (d->type);
  if (!ml_arrow_receive (m, d->partner, c->id, prim == VIPER_ML_PRIM_WRGLB ? VIPER_ML_ARROW_REPLY : VIPER_ML_ARROW_DATA,
                      prim, NULL))
    viper_model_inconsistent (&m->base, m->tram, "%s received a %s reply module %" G_GINT64_FORMAT " did not send",
                              c->name, viper_monalisa_prim_name (prim), d->partner);
  if (!own (m, c))
    return;
  expect_prim (m, c, prim);
  if (prim == VIPER_ML_PRIM_INRGLB && c->prim.prim == prim)
    {
      Call *call = c->call;
      set_prim (m, c, prim, d->partner, c->prim.var);     /* the instance that replied */
      c->call = call;
    }
}

static void
apply_pm (MlModel *m, const ViperMonalisaTram *d)
{
  if (m->tram->proc != -1)
    viper_model_inconsistent (&m->base, m->tram, "a program manager tram from module %" G_GINT64_FORMAT
                              " (the program manager is PROC -1)", m->tram->proc);
  m->reported = d->type == VIPER_ML_T_PM_DLOCK ? VIPER_ML_PROGRAM_DEADLOCK
              : d->type == VIPER_ML_T_PM_ABORT ? VIPER_ML_PROGRAM_ABNORMAL : VIPER_ML_PROGRAM_TERMINATED;
  g_array_set_size (m->reported_list, 0);
  g_array_append_vals (m->reported_list, d->list, d->n_list);
  if (d->type == VIPER_ML_T_PM_EXIT)
    for (guint i = 0; i < d->n_list; i++)
      {
        Module *mod = module_ensure (m, d->list[i]);
        if (mod)
          set_finished (m, mod, TRUE);
      }
  viper_damage_add (m->base.damage, VIPER_AREA_PROGRAM, 0, 0);
  m->changed = TRUE;
  m->dirty = TRUE;
}

static void
apply_module (MlModel *m, Module *mod, const ViperMonalisaTram *d)
{
  if (d->bad_slice)
    viper_model_inconsistent (&m->base, m->tram, "the data after the variable do not form a slice");
  switch (d->type)
    {
    case VIPER_ML_T_RUNNING:
      if (mod->started && !mod->finished)
        viper_model_inconsistent (&m->base, m->tram, "%s starts twice", mod->name);
      if (own (m, mod))
        {
          expect_no_prim (m, mod);
          set_prim (m, mod, VIPER_ML_PRIM_NONE, -1, -1);
          set_state (m, mod, VIPER_ML_EXECUTING);
        }
      set_started (m, mod);
      break;
    case VIPER_ML_T_DORMANT:
      if (!own (m, mod))
        break;
      if (!mod->started)
        viper_model_inconsistent (&m->base, m->tram, "%s finishes before it started", mod->name);
      expect_no_prim (m, mod);
      set_finished (m, mod, FALSE);
      break;
    case VIPER_ML_T_EXPOSE_INSTANT:
    case VIPER_ML_T_HIDE_INSTANT:
      {
        gboolean expose = d->type == VIPER_ML_T_EXPOSE_INSTANT;
        var_ensure (m, mod, d->var);
        if (expose && var_exposed (mod, d->var))
          viper_model_inconsistent (&m->base, m->tram, "%s exposes its exposed variable %" G_GINT64_FORMAT,
                                    mod->name, d->var);
        set_var (m, mod, d->var, expose, d);
        if (own (m, mod))
          {
            expect_no_prim (m, mod);
            set_prim (m, mod, VIPER_ML_PRIM_NONE, -1, -1);
            set_state (m, mod, VIPER_ML_EXECUTING);
          }
        break;
      }
    case VIPER_ML_T_EXPOSE_START:
    case VIPER_ML_T_HIDE_START:
      {
        gboolean expose = d->type == VIPER_ML_T_EXPOSE_START;
        var_ensure (m, mod, d->var);
        if (expose && !var_exposed (mod, d->var))
          viper_model_inconsistent (&m->base, m->tram, "%s waits to expose its hidden variable %" G_GINT64_FORMAT,
                                    mod->name, d->var);
        if (own (m, mod))
          {
            expect_no_prim (m, mod);
            set_prim (m, mod, prim_of (d->type), -1, d->var);
            set_state (m, mod, expose ? VIPER_ML_BLOCKED : VIPER_ML_INTERACTING);
          }
        break;
      }
    case VIPER_ML_T_EXPOSE_END:
    case VIPER_ML_T_HIDE_END:
      {
        gboolean expose = d->type == VIPER_ML_T_EXPOSE_END;
        var_ensure (m, mod, d->var);
        if (expose && var_exposed (mod, d->var))
          viper_model_inconsistent (&m->base, m->tram, "%s exposes its exposed variable %" G_GINT64_FORMAT,
                                    mod->name, d->var);
        set_var (m, mod, d->var, expose, d);
        end_primitive (m, mod, prim_of (d->type));
        break;
      }
    case VIPER_ML_T_IN_START:
    case VIPER_ML_T_RD_START:
    case VIPER_ML_T_WR_START:
    case VIPER_ML_T_INR_START:
      apply_start (m, mod, d);
      break;
    case VIPER_ML_T_IN_RQ_RECV:
    case VIPER_ML_T_RD_RQ_RECV:
    case VIPER_ML_T_WR_RQ_RECV:
      apply_request_received (m, mod, d);
      break;
    case VIPER_ML_T_INR_RQ_RECV:
      apply_inr_received (m, mod, d);
      break;
    case VIPER_ML_T_IN_RP_SEND:
    case VIPER_ML_T_RD_RP_SEND:
    case VIPER_ML_T_WR_RP_SEND:
    case VIPER_ML_T_INR_RP_SEND:
      apply_reply_sent (m, mod, d);
      break;
    case VIPER_ML_T_IN_RP_RECV:
    case VIPER_ML_T_RD_RP_RECV:
    case VIPER_ML_T_WR_RP_RECV:
    case VIPER_ML_T_INR_RP_RECV:
      apply_reply_received (m, mod, d);
      break;
    case VIPER_ML_T_INR_ACK:
      if (own (m, mod))
        expect_prim (m, mod, VIPER_ML_PRIM_INRGLB);
      break;
    case VIPER_ML_T_IN_END:
    case VIPER_ML_T_RD_END:
    case VIPER_ML_T_WR_END:
    case VIPER_ML_T_INR_END:
      end_primitive (m, mod, prim_of (d->type));
      break;
    default:
      break;
    }
}

/* ---- the program state ---------------------------------------------------------- */

static gboolean
remote_blocked (const Module *mod)
{
  return mod && !mod->finished && mod->state == VIPER_ML_BLOCKED && mod->prim.prim >= VIPER_ML_PRIM_INGLB
         && mod->prim.prim <= VIPER_ML_PRIM_INRGLB;
}

static gboolean
blocked_on_finished (const MlModel *m, const Module *mod)
{
  if (!remote_blocked (mod))
    return FALSE;
  if (mod->prim.prim == VIPER_ML_PRIM_INRGLB)
    {
      gint64 members[1024];
      guint n = members_of (m, waits_on (mod), members, G_N_ELEMENTS (members));
      for (guint i = 0; i < n; i++)
        {
          const Module *p = module_get (m, members[i]);
          if (!p || !p->finished)
            return FALSE;
        }
      return TRUE;
    }
  const Module *p = module_get (m, mod->prim.partner);
  return p && p->finished;
}

static void
evaluate (MlModel *m)
{
  m->dirty = FALSE;
  ViperMonalisaProgramState s;
  GArray *cycle = m->next_cycle;
  g_array_set_size (cycle, 0);
  if (m->n_started == 0)
    s = VIPER_ML_PROGRAM_INACTIVE;
  else if (m->n_finished == m->n_exist)
    s = VIPER_ML_PROGRAM_TERMINATED;
  else if (m->n_blocked == 0)
    s = VIPER_ML_PROGRAM_RUNNING;
  else
    {
      guint n = m->modules->len;
      if (n > m->in_cap)
        {
          m->in_cap = MAX (n, 2 * m->in_cap);
          m->in = g_renew (gboolean, m->in, m->in_cap);
        }
      gboolean *in = m->in;
      for (guint i = 0; i < n; i++)
        in[i] = remote_blocked (m->modules->pdata[i]);
      gboolean again = TRUE;
      gint64 members[1024];
      while (again)
        {
          again = FALSE;
          for (guint i = 0; i < n; i++)
            {
              if (!in[i])
                continue;
              const Module *mod = m->modules->pdata[i];
              gboolean keep = TRUE;
              if (mod->prim.prim == VIPER_ML_PRIM_INRGLB)
                {
                  guint k = members_of (m, waits_on (mod), members, G_N_ELEMENTS (members));
                  for (guint j = 0; j < k && keep; j++)
                    keep = members[j] >= 0 && members[j] < (gint64) n && in[members[j]];
                }
              else
                keep = mod->prim.partner >= 0 && mod->prim.partner < (gint64) n && in[mod->prim.partner];
              if (!keep)
                {
                  in[i] = FALSE;
                  again = TRUE;
                }
            }
        }
      gboolean on_finished = FALSE, all_expose = TRUE;
      for (guint i = 0; i < n; i++)
        {
          const Module *mod = m->modules->pdata[i];
          if (in[i])
            {
              gint64 id = i;
              g_array_append_val (cycle, id);
            }
          if (!mod || mod->finished)
            continue;
          /* only a finished module can be waited on in vain */
          on_finished = on_finished || (m->n_finished > 0 && blocked_on_finished (m, mod));
          all_expose = all_expose && mod->state == VIPER_ML_BLOCKED && mod->prim.prim == VIPER_ML_PRIM_EXPOSEGLB;
        }
      if (cycle->len)
        s = VIPER_ML_PROGRAM_DEADLOCK;
      else if (on_finished || all_expose)
        s = VIPER_ML_PROGRAM_ABNORMAL;
      else
        s = VIPER_ML_PROGRAM_RUNNING;
    }
  if (cycle->len == 0 && m->reported == VIPER_ML_PROGRAM_DEADLOCK)
    {
      /* the verdict names D when the states alone no longer show it */
      for (guint i = 0; i < m->reported_list->len; i++)
        {
          gint64 id = g_array_index (m->reported_list, gint64, i);
          guint k = 0;
          while (k < cycle->len && g_array_index (cycle, gint64, k) < id)
            k++;
          if (k == cycle->len || g_array_index (cycle, gint64, k) != id)
            g_array_insert_val (cycle, k, id);
        }
    }
  gboolean same = s == m->derived && cycle->len == m->cycle->len
                  && (cycle->len == 0 || memcmp (cycle->data, m->cycle->data, cycle->len * sizeof (gint64)) == 0);
  if (!same)
    {
      m->derived = s;
      /* the animation rings the deadlocked set: members leaving and joining are redrawn */
      for (guint i = 0; i < m->cycle->len; i++)
        viper_damage_add (m->base.damage, VIPER_AREA_MODULE, g_array_index (m->cycle, gint64, i), 0);
      for (guint i = 0; i < cycle->len; i++)
        viper_damage_add (m->base.damage, VIPER_AREA_MODULE, g_array_index (cycle, gint64, i), 0);
      m->next_cycle = m->cycle;
      m->cycle = cycle;
      viper_damage_add (m->base.damage, VIPER_AREA_PROGRAM, 0, 0);
      m->changed = TRUE;
    }
}

/* ---- the model class --------------------------------------------------------------- */

static gboolean
ml_apply (ViperModel *base, const ViperTram *t)
{
  MlModel *m = ML (base);
  ViperMonalisaTram d;
  m->changed = FALSE;
  g_array_set_size (m->changes, 0);
  m->change_idx = 0;
  if (!viper_monalisa_tram_decode (t, &d))
    return FALSE;
  m->tram = t;
  if (d.type == VIPER_ML_T_PM_DLOCK || d.type == VIPER_ML_T_PM_ABORT || d.type == VIPER_ML_T_PM_EXIT)
    apply_pm (m, &d);
  else if (t->proc == -1)
    viper_model_inconsistent (base, t, "a module tram from PROC -1: only program manager trams come from PROC -1");
  else if (t->proc < 0)
    viper_model_inconsistent (base, t,
                              "a tram from PROC %" G_GINT64_FORMAT ": modules are PROC 0 and up, and the "
                              "program manager is PROC -1", t->proc);
  else
    {
      Module *mod = module_ensure (m, t->proc);
      if (mod)
        apply_module (m, mod, &d);
    }
  if (m->dirty)
    evaluate (m);
  m->tram = NULL;
  return m->changed;
}

static void
populate (MlModel *m)
{
  guint n = m->setup ? viper_monalisa_setup_n_modules (m->setup) : 0;
  for (guint i = 0; i < n; i++)
    module_new (m, i);
  m->derived = VIPER_ML_PROGRAM_INACTIVE;
  m->reported = VIPER_ML_PROGRAM_INACTIVE;
  m->dirty = FALSE;
}

static void
ml_reset (ViperModel *base)
{
  MlModel *m = ML (base);
  g_ptr_array_set_size (m->modules, 0);
  m->n_exist = m->n_started = m->n_finished = m->n_blocked = 0;
  g_array_set_size (m->cycle, 0);
  g_array_set_size (m->reported_list, 0);
  g_array_set_size (m->changes, 0);
  populate (m);
}

static void
ml_destroy (ViperModel *base)
{
  MlModel *m = ML (base);
  g_ptr_array_unref (m->modules);
  g_array_unref (m->cycle);
  g_array_unref (m->next_cycle);
  g_free (m->in);
  g_array_unref (m->reported_list);
  g_array_unref (m->changes);
  viper_model_finish (base);
  g_free (m);
}

static const char *
ml_program_state (const ViperModel *base)
{
  return viper_monalisa_program_state_name (viper_monalisa_program_state (base));
}

static const ViperModelClass ml_class = {
  .apply = ml_apply,
  .reset = ml_reset,
  .destroy = ml_destroy,
  .program_state = ml_program_state,
  .write_top = ml_write_top,
  .write_modules = ml_write_modules,
  .group_members = ml_group_members,
  .snapshot = ml_snapshot,
  .restore = ml_restore,
  .snapshot_free = ml_snapshot_free,
};

ViperModel *
viper_monalisa_model_new (const ViperParadigm *p, ViperSetup *setup)
{
  MlModel *m = g_new0 (MlModel, 1);
  viper_model_init (&m->base, &ml_class, p, setup);
  m->setup = (const ViperMonalisaSetup *) setup;
  m->modules = g_ptr_array_new_with_free_func (ml_module_free);
  m->cycle = g_array_new (FALSE, FALSE, sizeof (gint64));
  m->next_cycle = g_array_new (FALSE, FALSE, sizeof (gint64));
  m->reported_list = g_array_new (FALSE, FALSE, sizeof (gint64));
  m->changes = g_array_new (FALSE, FALSE, sizeof (ViperMonalisaChange));
  populate (m);
  viper_damage_clear (m->base.damage);
  return &m->base;
}
