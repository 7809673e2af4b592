/* monalisa-model-priv.h - the Mona Lisa model's insides, shared by
 * monalisa-model.c (the model), monalisa-snapshot.c (checkpoints) and
 * monalisa-query.c (the read-only accessors). */
#pragma once

#include <math.h>
#include <string.h>
#include "monalisa.h"
#include "core/clocksync.h"

typedef struct {
  char *name;
  gboolean exposed;
  guint n_dims;
  gint64 offset[VIPER_ML_MAX_DIMS];
  gint64 size[VIPER_ML_MAX_DIMS];
} Var;

/* One inrglb call, alive until it is replied, received by every instance and
 * no longer the caller's primitive. */
typedef struct {
  gint64 caller, group;
  guint n_members;
  guint received, received_hidden;
  gboolean replied;
  gboolean current;         /* the caller's primitive right now */
  /* the block's dating (spec section 4): from the latest receipt to the reply */
  double recv_max;          /* latest adjusted time of a receipt so far */
  guint32 recv_lamport;     /* that receipt's Lamport number (ties: the larger) */
  double reply_time;        /* the reply's, once replied */
  guint32 reply_lamport;
  gboolean blocked;         /* the caller was set blocked for it (current state) */
  guint64 block_hist;       /* absolute history index of that change (G_MAXUINT64: none) */
} Call;

typedef struct {
  ViperMonalisaArrow a;
  guint64 hist;             /* absolute index of its history entry */
  Call *call;               /* inrglb request: the call it belongs to */
} Arrow;

/* The messages a module sent that are underway, kept inline in the module:
 * the apply appends one per request and removes one per receipt, and
 * GArray's calls through the PLT were a third of the receipts' cost. */
typedef struct { Arrow *v; guint len, cap; } ArrowVec;

typedef struct {
  gint64 id;
  char *name;
  gboolean from_setup;
  ViperMonalisaModuleState state;
  gboolean started, finished, killed;
  ViperMonalisaPrimitive prim;
  Call *call;               /* current inrglb call (owned by calls) */
  GArray *vars;             /* of Var, index = variable id */
  ArrowVec arrows;          /* messages this module sent that are underway, oldest first */
  GPtrArray *calls;         /* of Call*, unsettled inrglb calls of this caller, oldest first */
} Module;

typedef struct {
  ViperModel base;
  const ViperMonalisaSetup *setup;
  GPtrArray *modules;       /* of Module*, index = id, NULL = not known */
  guint n_exist, n_started, n_finished, n_blocked;
  ViperMonalisaProgramState derived;
  ViperMonalisaProgramState reported;   /* INACTIVE = none */
  GArray *cycle;            /* of gint64, sorted */
  GArray *reported_list;    /* the last verdict's modules */
  /* evaluate()'s scratch, kept from one call to the next: it runs after
   * most trams of a program with a blocked module, and four allocations a
   * tram were a tenth of a Farm replay's engine thread */
  GArray *next_cycle;       /* of gint64: the cycle being derived */
  gboolean *in;             /* per module: still a candidate for the cycle */
  guint in_cap;
  gboolean dirty;           /* the program state must be re-derived */
  gboolean changed;         /* this apply changed something visible */
  const ViperTram *tram;    /* being applied */
  GArray *changes;          /* of ViperMonalisaChange: this apply's (viper_monalisa_changes) */
  gboolean want_changes;    /* an exporter reads them (viper_monalisa_record_changes): else none kept */
  guint32 change_idx;       /* index of the next change decided by the tram applied */
} MlModel;

#define ML(m) ((MlModel *) (m))
#define CML(m) ((const MlModel *) (m))

/* ---- lookups (NULL when there is none) ------------------------------------- */

static inline Module *
module_get (const MlModel *m, gint64 id)
{
  if (id < 0 || id >= (gint64) m->modules->len)
    return NULL;
  return m->modules->pdata[id];
}

static inline Var *
var_get (const Module *mod, gint64 var)
{
  if (!mod || var < 0 || var >= (gint64) mod->vars->len)
    return NULL;
  return &g_array_index (mod->vars, Var, var);
}

static inline gboolean
var_exposed (const Module *mod, gint64 var)
{
  const Var *v = var_get (mod, var);
  return v && v->exposed;
}

/* monalisa-model.c: free functions of the modules array and of a module's variables */
void ml_var_clear (gpointer p);
void ml_module_free (gpointer p);

/* monalisa-arrows.c: a message from -> to leaves with the tram applied; the
 * oldest of a kind arrives (FALSE when none was sent; call: an inrglb
 * request's call) */
void ml_arrow_send (MlModel *m, Module *from, gint64 to, ViperMonalisaArrowKind kind, ViperMonalisaPrim prim,
                    gint64 var, Call *call);
gboolean ml_arrow_receive (MlModel *m, gint64 from, gint64 to, ViperMonalisaArrowKind kind, ViperMonalisaPrim prim,
                           Call **call);

/* monalisa-query.c: the class's --state-out fields and groups (core/model.h) */
void ml_write_top (const ViperModel *base, ViperJson *j);
void ml_write_modules (const ViperModel *base, const ViperRun *run, ViperJson *j);
guint ml_group_members (const ViperModel *base, gint64 group, gint64 *out, guint max);

/* monalisa-snapshot.c: checkpoints (core/model.h) */
gpointer ml_snapshot (const ViperModel *base, gsize *bytes);
void ml_restore (ViperModel *base, gconstpointer snap);
void ml_snapshot_free (gpointer snap);
