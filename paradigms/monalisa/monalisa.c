/* monalisa.c - what the Mona Lisa paradigm tells the core: the 32 tram types
 * of spec monalisa.md section 2 and the primitive profiles of section 3.
 *
 * Design: the core's primitive builder is generic, so everything Mona Lisa
 * specific about run construction is data in the two tables below.
 *  - A START opens a primitive list in the caller's sequence list.  Its
 *    caller-side slots (reply received, ack, END) come from the same list and
 *    need no key: a module runs one primitive at a time.
 *  - Partner-side slots (request received, reply sent) come from the
 *    partner's list and are keyed by the caller's id, which their D2
 *    (PARTNER) names; channels are FIFO, so the oldest open slot under that
 *    key is the right one (thesis 5.1.1).
 *  - inrglb expects one (4,18) from each instance of the group (the model
 *    knows the members from the setup file) and the reply from whichever
 *    instance answers (VIPER_FROM_REPLY).
 *  - Only the cross-dependencies of section 3 order the run: P's request
 *    receipt after C's START, C's reply receipt after P's reply.
 * Every SLOT type has its own match class, so no slot can be filled by a
 * tram of another type.  The enum ViperMonalisaTramType in monalisa.h gives
 * the index of each row, which the model switches on (O(1) per tram).
 */
#include <string.h>
#include "monalisa.h"
#include "monalisa-render.h"
#include "monalisa-export.h"

/* Match classes, one per SLOT tram type. */
enum {
  CL_EXPOSE_END = 1, CL_HIDE_END,
  CL_IN_RQ_RECV, CL_IN_RP_SEND, CL_IN_RP_RECV, CL_IN_END,
  CL_RD_RQ_RECV, CL_RD_RP_SEND, CL_RD_RP_RECV, CL_RD_END,
  CL_WR_RQ_RECV, CL_WR_RP_SEND, CL_WR_RP_RECV, CL_WR_END,
  CL_INR_RQ_RECV, CL_INR_RP_SEND, CL_INR_RP_RECV, CL_INR_ACK, CL_INR_END,
};

/* Profile indices. */
enum { PR_INGLB, PR_RDGLB, PR_WRGLB, PR_INRGLB, PR_EXPOSEGLB, PR_HIDEGLB };

#define NOF VIPER_NO_FIELD
/* data fields: D1 = SEQ (field 0), D2 = PARTNER (field 1), D3 = VAR (field 2) */
#define PARTNER_FIELD 1

#define FREE_T(rec, ev, name, nd) { rec, ev, name, VIPER_ROLE_FREE, 0, 0, NOF, NOF, nd }
#define START_T(rec, ev, name, prof, nd) { rec, ev, name, VIPER_ROLE_START, prof, 0, NOF, NOF, nd }
#define CALLER_T(rec, ev, name, cls, nd) { rec, ev, name, VIPER_ROLE_SLOT, 0, cls, NOF, NOF, nd }
#define PARTNER_T(rec, ev, name, cls) { rec, ev, name, VIPER_ROLE_SLOT, 0, cls, PARTNER_FIELD, NOF, 3 }

/* In the order of ViperMonalisaTramType. */
static const ViperTramType ml_types[VIPER_ML_N_TYPES] = {
  FREE_T (1, 10, "S_RUNNING INSTANT", 1),
  FREE_T (1, 11, "S_DORMANT INSTANT", 1),
  FREE_T (1, 12, "M_HIDE INSTANT", 2),
  FREE_T (1, 13, "M_EXPOSE INSTANT", 2),
  START_T (2, 13, "M_EXPOSE START", PR_EXPOSEGLB, 2),
  CALLER_T (3, 13, "M_EXPOSE END", CL_EXPOSE_END, 2),
  START_T (2, 12, "M_HIDE START", PR_HIDEGLB, 2),
  CALLER_T (3, 12, "M_HIDE END", CL_HIDE_END, 2),
  START_T (2, 14, "S_INRQ START", PR_INGLB, 3),
  PARTNER_T (4, 14, "S_INRQ RECEIVED", CL_IN_RQ_RECV),
  PARTNER_T (5, 15, "S_INRP SEND", CL_IN_RP_SEND),
  CALLER_T (4, 15, "S_INRP RECEIVED", CL_IN_RP_RECV, 3),
  CALLER_T (3, 14, "S_INRQ END", CL_IN_END, 3),
  START_T (2, 16, "S_RDRQ START", PR_RDGLB, 3),
  PARTNER_T (4, 16, "S_RDRQ RECEIVED", CL_RD_RQ_RECV),
  PARTNER_T (5, 17, "S_RDRP SEND", CL_RD_RP_SEND),
  CALLER_T (4, 17, "S_RDRP RECEIVED", CL_RD_RP_RECV, 3),
  CALLER_T (3, 16, "S_RDRQ END", CL_RD_END, 3),
  START_T (2, 21, "S_WRRQ START", PR_WRGLB, 3),
  PARTNER_T (4, 21, "S_WRRQ RECEIVED", CL_WR_RQ_RECV),
  PARTNER_T (5, 22, "S_WRRP SEND", CL_WR_RP_SEND),
  CALLER_T (4, 22, "S_WRRP RECEIVED", CL_WR_RP_RECV, 3),
  CALLER_T (3, 21, "S_WRRQ END", CL_WR_END, 3),
  START_T (2, 18, "S_INRRQ START", PR_INRGLB, 3),
  PARTNER_T (4, 18, "S_INRRQ RECEIVED", CL_INR_RQ_RECV),
  PARTNER_T (5, 19, "S_INRRP SEND", CL_INR_RP_SEND),
  CALLER_T (4, 19, "S_INRRP RECEIVED", CL_INR_RP_RECV, 3),
  CALLER_T (5, 20, "S_ACK SEND", CL_INR_ACK, 3),
  CALLER_T (3, 18, "S_INRRQ END", CL_INR_END, 3),
  FREE_T (6, 23, "S_DLOCK ABORT", 1),
  FREE_T (6, 24, "S_ABORT ABORT", 1),
  FREE_T (6, 25, "S_EXIT ABORT", 1),
};

#define SLOT_START { 0, VIPER_FROM_CALLER, VIPER_NO_SLOT, VIPER_NO_SLOT, NOF, FALSE }
#define SLOT_C(cls, after) { cls, VIPER_FROM_CALLER, VIPER_NO_SLOT, after, NOF, FALSE }
#define SLOT_P(cls, after) { cls, VIPER_FROM_PARTNER, VIPER_NO_SLOT, after, NOF, TRUE }

/* C(2,x) . P(4,x) . P(5,x') . C(4,x') . C(3,x): P(4,x) after C(2,x); C(4,x') after P(5,x'). */
#define REMOTE_SLOTS(rq, rp, rprecv, end) \
  { SLOT_START, SLOT_P (rq, 0), SLOT_P (rp, VIPER_NO_SLOT), SLOT_C (rprecv, 2), SLOT_C (end, VIPER_NO_SLOT) }

static const ViperSlot inglb_slots[] = REMOTE_SLOTS (CL_IN_RQ_RECV, CL_IN_RP_SEND, CL_IN_RP_RECV, CL_IN_END);
static const ViperSlot rdglb_slots[] = REMOTE_SLOTS (CL_RD_RQ_RECV, CL_RD_RP_SEND, CL_RD_RP_RECV, CL_RD_END);
static const ViperSlot wrglb_slots[] = REMOTE_SLOTS (CL_WR_RQ_RECV, CL_WR_RP_SEND, CL_WR_RP_RECV, CL_WR_END);

/* C(2,18) . I1..In(4,18) . Ij(5,19) . C(4,19) . C(5,20) . C(3,18) */
static const ViperSlot inrglb_slots[] = {
  SLOT_START,
  { CL_INR_RQ_RECV, VIPER_FROM_EACH_MEMBER, VIPER_NO_SLOT, 0, NOF, TRUE },
  { CL_INR_RP_SEND, VIPER_FROM_REPLY, 1, VIPER_NO_SLOT, NOF, TRUE },
  SLOT_C (CL_INR_RP_RECV, 2),
  SLOT_C (CL_INR_ACK, VIPER_NO_SLOT),
  SLOT_C (CL_INR_END, VIPER_NO_SLOT),
};

static const ViperSlot expose_slots[] = { SLOT_START, SLOT_C (CL_EXPOSE_END, VIPER_NO_SLOT) };
static const ViperSlot hide_slots[] = { SLOT_START, SLOT_C (CL_HIDE_END, VIPER_NO_SLOT) };

static const ViperProfile ml_profiles[] = {
  [PR_INGLB] = { "inglb", PARTNER_FIELD, G_N_ELEMENTS (inglb_slots), inglb_slots },
  [PR_RDGLB] = { "rdglb", PARTNER_FIELD, G_N_ELEMENTS (rdglb_slots), rdglb_slots },
  [PR_WRGLB] = { "wrglb", PARTNER_FIELD, G_N_ELEMENTS (wrglb_slots), wrglb_slots },
  [PR_INRGLB] = { "inrglb", PARTNER_FIELD, G_N_ELEMENTS (inrglb_slots), inrglb_slots },
  /* expose / hide name no partner: their D2 is the variable */
  [PR_EXPOSEGLB] = { "exposeglb", VIPER_NO_FIELD, G_N_ELEMENTS (expose_slots), expose_slots },
  [PR_HIDEGLB] = { "hideglb", VIPER_NO_FIELD, G_N_ELEMENTS (hide_slots), hide_slots },
};

static ViperSetup *
setup_load (const char *path, GError **error)
{
  return (ViperSetup *) viper_monalisa_setup_load (path, error);
}

static void
setup_free (ViperSetup *s)
{
  viper_monalisa_setup_free ((ViperMonalisaSetup *) s);
}

/* The engine asks the model (viper_run_new's model); this paradigm-level
 * entry answers the same through the model's setup. */
static guint
group_members (const ViperModel *m, gint64 group, gint64 *out, guint max)
{
  if (!m || !m->setup)
    return 0;
  return viper_monalisa_setup_group_members ((const ViperMonalisaSetup *) m->setup, group, out, max);
}

/* A program manager's verdict that lists modules (the modules it ended or
 * aborted, the deadlock cycle) has seen those modules to their end: it goes
 * after the trams read with it (docs/paradigm-monalisa.md, "The program
 * manager's place in the run"). */
static gboolean
after_input (const ViperTram *t)
{
  return t->proc == -1 && t->rec == 6 && (t->ev == 23 || t->ev == 24 || t->ev == 25) && t->ndata >= 2;
}

const ViperParadigm viper_monalisa_paradigm = {
  .name = "monalisa",
  .description = "Mona Lisa shared-variable modules (exposeglb, inglb, rdglb, wrglb, inrglb; times in ms)",
  .explicit_seq = TRUE,
  .types = ml_types,
  .n_types = G_N_ELEMENTS (ml_types),
  .profiles = ml_profiles,
  .n_profiles = G_N_ELEMENTS (ml_profiles),
  .group_members = group_members,
  .model_new = viper_monalisa_model_new,
  .setup_load = setup_load,
  .setup_free = setup_free,
  .render = &viper_monalisa_renderer,
  .export = &viper_monalisa_exports,
  .after_input = after_input,
};

const char *
viper_monalisa_prim_name (ViperMonalisaPrim p)
{
  switch (p)
    {
    case VIPER_ML_PRIM_INGLB: return "inglb";
    case VIPER_ML_PRIM_RDGLB: return "rdglb";
    case VIPER_ML_PRIM_WRGLB: return "wrglb";
    case VIPER_ML_PRIM_INRGLB: return "inrglb";
    case VIPER_ML_PRIM_EXPOSEGLB: return "exposeglb";
    case VIPER_ML_PRIM_HIDEGLB: return "hideglb";
    case VIPER_ML_PRIM_NONE:
    default: return NULL;
    }
}

gboolean
viper_monalisa_tram_decode (const ViperTram *t, ViperMonalisaTram *out)
{
  /* every field but the slice's unused dimensions (a third of the struct,
   * and a memset of it was the costliest part of a decode) */
  out->type = 0;
  out->seq = 0;
  out->partner = out->var = -1;
  out->n_dims = 0;
  out->bad_slice = FALSE;
  out->n_list = 0;
  out->list = NULL;
  const gint64 *d = viper_tram_data (t);
  if (!d || t->ndata < 1)
    return FALSE;
  guint type = VIPER_TYPE_UNKNOWN;
  if (t->type < VIPER_ML_N_TYPES && ml_types[t->type].rec == t->rec && ml_types[t->type].ev == t->ev)
    type = t->type;
  else
    for (guint i = 0; i < VIPER_ML_N_TYPES; i++)
      if (ml_types[i].rec == t->rec && ml_types[i].ev == t->ev)
        type = i;
  if (type == VIPER_TYPE_UNKNOWN || t->ndata < ml_types[type].min_ndata)
    return FALSE;
  out->type = (ViperMonalisaTramType) type;
  out->seq = d[0];
  guint rest;           /* first data field of the slice */
  switch (out->type)
    {
    case VIPER_ML_T_RUNNING:
    case VIPER_ML_T_DORMANT:
      return TRUE;
    case VIPER_ML_T_PM_DLOCK:
    case VIPER_ML_T_PM_ABORT:
    case VIPER_ML_T_PM_EXIT:
      out->n_list = t->ndata - 1;
      out->list = d + 1;
      return TRUE;
    case VIPER_ML_T_HIDE_INSTANT:
    case VIPER_ML_T_EXPOSE_INSTANT:
    case VIPER_ML_T_EXPOSE_START:
    case VIPER_ML_T_EXPOSE_END:
    case VIPER_ML_T_HIDE_START:
    case VIPER_ML_T_HIDE_END:
      out->var = d[1];
      rest = 2;
      break;
    default:
      out->partner = d[1];
      out->var = d[2];
      rest = 3;
      break;
    }
  guint extra = t->ndata - rest;
  if (extra == 0)
    return TRUE;
  if (extra % 2 != 0 || extra / 2 > VIPER_ML_MAX_DIMS)
    {
      out->bad_slice = TRUE;
      return TRUE;
    }
  out->n_dims = extra / 2;
  for (guint k = 0; k < out->n_dims; k++)
    {
      out->offset[k] = d[rest + k];
      out->size[k] = d[rest + out->n_dims + k];
    }
  return TRUE;
}
