/* monalisa.h - the Mona Lisa paradigm (spec monalisa.md): tram table and
 * primitive profiles (monalisa.c), the Module Setup file (monalisa-setup.c)
 * and the program-state model (monalisa-model.c), with the accessors the
 * views and tests read the state through.
 */
#pragma once

#include "core/paradigm.h"
#include "core/model.h"
#include "core/run.h"

G_BEGIN_DECLS

extern const ViperParadigm viper_monalisa_paradigm;

/* ---- trams ---------------------------------------------------------------- */

/* Sub types (REC) and event types (EV), spec section 2. */
enum {
  VIPER_ML_REC_INSTANT = 1, VIPER_ML_REC_START = 2, VIPER_ML_REC_END = 3,
  VIPER_ML_REC_RECEIVED = 4, VIPER_ML_REC_SEND = 5, VIPER_ML_REC_ABORT = 6,
};
enum {
  VIPER_ML_EV_RUNNING = 10, VIPER_ML_EV_DORMANT = 11, VIPER_ML_EV_HIDE = 12, VIPER_ML_EV_EXPOSE = 13,
  VIPER_ML_EV_INRQ = 14, VIPER_ML_EV_INRP = 15, VIPER_ML_EV_RDRQ = 16, VIPER_ML_EV_RDRP = 17,
  VIPER_ML_EV_INRRQ = 18, VIPER_ML_EV_INRRP = 19, VIPER_ML_EV_ACK = 20, VIPER_ML_EV_WRRQ = 21,
  VIPER_ML_EV_WRRP = 22, VIPER_ML_EV_DLOCK = 23, VIPER_ML_EV_ABORT = 24, VIPER_ML_EV_EXIT = 25,
};

/* The index of each tram type in viper_monalisa_paradigm.types (= ViperTram.type). */
typedef enum {
  VIPER_ML_T_RUNNING = 0,     /* (1,10) */
  VIPER_ML_T_DORMANT,         /* (1,11) */
  VIPER_ML_T_HIDE_INSTANT,    /* (1,12) */
  VIPER_ML_T_EXPOSE_INSTANT,  /* (1,13) */
  VIPER_ML_T_EXPOSE_START,    /* (2,13) blocked exposeglb */
  VIPER_ML_T_EXPOSE_END,      /* (3,13) */
  VIPER_ML_T_HIDE_START,      /* (2,12) */
  VIPER_ML_T_HIDE_END,        /* (3,12) */
  VIPER_ML_T_IN_START,        /* (2,14) */
  VIPER_ML_T_IN_RQ_RECV,      /* (4,14) at the partner */
  VIPER_ML_T_IN_RP_SEND,      /* (5,15) at the partner */
  VIPER_ML_T_IN_RP_RECV,      /* (4,15) */
  VIPER_ML_T_IN_END,          /* (3,14) */
  VIPER_ML_T_RD_START,        /* (2,16) */
  VIPER_ML_T_RD_RQ_RECV,      /* (4,16) */
  VIPER_ML_T_RD_RP_SEND,      /* (5,17) */
  VIPER_ML_T_RD_RP_RECV,      /* (4,17) */
  VIPER_ML_T_RD_END,          /* (3,16) */
  VIPER_ML_T_WR_START,        /* (2,21) */
  VIPER_ML_T_WR_RQ_RECV,      /* (4,21) */
  VIPER_ML_T_WR_RP_SEND,      /* (5,22) */
  VIPER_ML_T_WR_RP_RECV,      /* (4,22) */
  VIPER_ML_T_WR_END,          /* (3,21) */
  VIPER_ML_T_INR_START,       /* (2,18) */
  VIPER_ML_T_INR_RQ_RECV,     /* (4,18) at each instance */
  VIPER_ML_T_INR_RP_SEND,     /* (5,19) at the replying instance */
  VIPER_ML_T_INR_RP_RECV,     /* (4,19) */
  VIPER_ML_T_INR_ACK,         /* (5,20) */
  VIPER_ML_T_INR_END,         /* (3,18) */
  VIPER_ML_T_PM_DLOCK,        /* (6,23) */
  VIPER_ML_T_PM_ABORT,        /* (6,24) */
  VIPER_ML_T_PM_EXIT,         /* (6,25) */
  VIPER_ML_N_TYPES
} ViperMonalisaTramType;

/* Primitives; also the `flags` of history entries. */
typedef enum {
  VIPER_ML_PRIM_NONE = 0,
  VIPER_ML_PRIM_INGLB,
  VIPER_ML_PRIM_RDGLB,
  VIPER_ML_PRIM_WRGLB,
  VIPER_ML_PRIM_INRGLB,
  VIPER_ML_PRIM_EXPOSEGLB,
  VIPER_ML_PRIM_HIDEGLB,
} ViperMonalisaPrim;

const char *viper_monalisa_prim_name (ViperMonalisaPrim p);      /* "inglb", ...; NULL for NONE */

#define VIPER_ML_MAX_DIMS 8

/* A tram's data, decoded by its type (spec section 2). */
typedef struct {
  ViperMonalisaTramType type;
  gint64 seq;
  gint64 partner;             /* -1 when the tram names none (expose, hide, start-up) */
  gint64 var;                 /* -1 when none */
  guint n_dims;               /* slice dimensions, 0 = no slice */
  gint64 offset[VIPER_ML_MAX_DIMS];   /* only the first n_dims are set */
  gint64 size[VIPER_ML_MAX_DIMS];
  gboolean bad_slice;         /* trailing fields that do not form a slice (odd count, too many) */
  guint n_list;               /* program manager: the modules listed (data from D2 on) */
  const gint64 *list;
} ViperMonalisaTram;

/* FALSE when t is not a Mona Lisa tram of a known type with integer data. */
gboolean viper_monalisa_tram_decode (const ViperTram *t, ViperMonalisaTram *out);

/* ---- the Module Setup file (spec section 6) --------------------------------- */

#define VIPER_ML_SETUP_ERROR (viper_monalisa_setup_error_quark ())
GQuark viper_monalisa_setup_error_quark (void);
typedef enum {
  VIPER_ML_SETUP_ERROR_PARSE,  /* message: "FILE:LINE:COLUMN: expected ..." */
  VIPER_ML_SETUP_ERROR_READ,
} ViperMonalisaSetupError;

typedef struct _ViperMonalisaSetup ViperMonalisaSetup;

ViperMonalisaSetup *viper_monalisa_setup_load (const char *path, GError **error);
/* Parse text (len -1: NUL-terminated); filename names it in messages. */
ViperMonalisaSetup *viper_monalisa_setup_parse (const char *text, gssize len, const char *filename,
                                                GError **error);
void viper_monalisa_setup_free (ViperMonalisaSetup *s);

guint viper_monalisa_setup_n_modules (const ViperMonalisaSetup *s);
const char *viper_monalisa_setup_module_name (const ViperMonalisaSetup *s, guint module);
const char *viper_monalisa_setup_module_file (const ViperMonalisaSetup *s, guint module);
guint viper_monalisa_setup_n_attributes (const ViperMonalisaSetup *s, guint module);
const char *viper_monalisa_setup_attribute_name (const ViperMonalisaSetup *s, guint module, guint attr);
const char *viper_monalisa_setup_attribute_type (const ViperMonalisaSetup *s, guint module, guint attr);
gint64 viper_monalisa_setup_all_modules_id (const ViperMonalisaSetup *s);
guint viper_monalisa_setup_n_groups (const ViperMonalisaSetup *s);   /* not counting all_modules */
const char *viper_monalisa_setup_group_name (const ViperMonalisaSetup *s, guint group);
gint64 viper_monalisa_setup_group_id (const ViperMonalisaSetup *s, guint group);
void viper_monalisa_setup_group_range (const ViperMonalisaSetup *s, guint group, guint *first, guint *size);
/* Members of a group id (all_modules: every module); 0 for a module id or an
 * unknown id.  Writes at most max ids, returns how many were written. */
guint viper_monalisa_setup_group_members (const ViperMonalisaSetup *s, gint64 group, gint64 *out, guint max);

/* ---- the state model (spec section 4) ---------------------------------------- */

/* Module states; also the `state` code of history state entries. */
typedef enum {
  VIPER_ML_INACTIVE = 0,
  VIPER_ML_EXECUTING,
  VIPER_ML_INTERACTING,
  VIPER_ML_BLOCKED,
} ViperMonalisaModuleState;

typedef enum {
  VIPER_ML_PROGRAM_INACTIVE = 0,
  VIPER_ML_PROGRAM_RUNNING,
  VIPER_ML_PROGRAM_DEADLOCK,
  VIPER_ML_PROGRAM_ABNORMAL,
  VIPER_ML_PROGRAM_TERMINATED,
} ViperMonalisaProgramState;

/* Arrow kinds (spec section 5).  A history arrow entry has
 * state = VIPER_ML_HISTORY_ARROW + kind, module = from, other = to,
 * flags = the ViperMonalisaPrim; t1 is NAN while the message is underway. */
typedef enum {
  VIPER_ML_ARROW_REQUEST = 0,  /* red C -> P: a request without data */
  VIPER_ML_ARROW_DATA,         /* black: a reply with data, or wrglb's request */
  VIPER_ML_ARROW_REPLY,        /* wrglb's reply: no data, the value was written */
} ViperMonalisaArrowKind;
#define VIPER_ML_HISTORY_ARROW 16

typedef struct {
  gint64 from, to;
  ViperMonalisaArrowKind kind;
  ViperMonalisaPrim prim;
  gint64 var;                 /* the variable concerned (its owner is the partner side) */
  double t0;                  /* adjusted time of the sending tram */
} ViperMonalisaArrow;

typedef struct {
  ViperMonalisaPrim prim;     /* NONE: no primitive */
  gint64 partner;             /* module, or group for an inrglb until (4,19); -1 for expose / hide */
  gint64 var;
} ViperMonalisaPrimitive;

const char *viper_monalisa_module_state_name (ViperMonalisaModuleState s);
const char *viper_monalisa_program_state_name (ViperMonalisaProgramState s);

ViperModel *viper_monalisa_model_new (const ViperParadigm *p, ViperSetup *setup);

/* Modules are ids 0 .. n_modules-1; without a setup file an id exists once a
 * tram of it has been applied (module_exists tells). */
guint viper_monalisa_model_n_modules (const ViperModel *m);
gboolean viper_monalisa_module_exists (const ViperModel *m, gint64 module);
const char *viper_monalisa_module_name (const ViperModel *m, gint64 module);   /* NULL if none */
ViperMonalisaModuleState viper_monalisa_module_state (const ViperModel *m, gint64 module);
gboolean viper_monalisa_module_started (const ViperModel *m, gint64 module);
gboolean viper_monalisa_module_finished (const ViperModel *m, gint64 module);
/* FALSE (and out->prim = NONE) when the module executes no primitive. */
gboolean viper_monalisa_module_primitive (const ViperModel *m, gint64 module, ViperMonalisaPrimitive *out);
/* At least one exposed variable (the second circle of the animation view). */
gboolean viper_monalisa_module_any_exposed (const ViperModel *m, gint64 module);

guint viper_monalisa_module_n_variables (const ViperModel *m, gint64 module);
const char *viper_monalisa_variable_name (const ViperModel *m, gint64 module, gint64 var);
/* TRUE exposed, FALSE hidden (also for unknown variables). */
gboolean viper_monalisa_variable_exposed (const ViperModel *m, gint64 module, gint64 var);
/* The slice of the variable's last expose / hide; returns its dimensions
 * (0 = the whole variable) and fills up to VIPER_ML_MAX_DIMS offsets / sizes. */
guint viper_monalisa_variable_slice (const ViperModel *m, gint64 module, gint64 var, gint64 *offset, gint64 *size);

/* Arrows underway that module sent (requests, data), oldest first. */
guint viper_monalisa_module_n_arrows (const ViperModel *m, gint64 module);
const ViperMonalisaArrow *viper_monalisa_module_arrow (const ViperModel *m, gint64 module, guint i);

ViperMonalisaProgramState viper_monalisa_program_state (const ViperModel *m);   /* reported verdict wins */
ViperMonalisaProgramState viper_monalisa_program_state_derived (const ViperModel *m);  /* from the states only */
/* The program manager's sticky verdict: DEADLOCK, ABNORMAL, TERMINATED, or INACTIVE for none. */
ViperMonalisaProgramState viper_monalisa_reported (const ViperModel *m);
/* The module state changes the last apply made, each dated by the spec
 * (monalisa.md section 4), not by the tram applied: an inrglb caller blocks
 * at the latest of its instances' request receipts, which may be applied
 * before or after the reply, so a change may be dated before the tram that
 * revealed it, or undo (retract) a block that turned out never to hold.
 * lamport / idx: the deciding tram's Lamport number and the change's index
 * among that tram's (a function of the trams, not of the line order).
 * Valid until the next apply. */
typedef struct {
  gint64 module;
  double time;
  guint32 lamport, idx;
  gboolean retract;           /* undo the change (module, time, lamport, idx - 1, state) */
  ViperMonalisaModuleState state;
  ViperMonalisaPrim prim;     /* the module's primitive then */
  gint64 waits_on;            /* the partner it waits on (an inrglb: the group), -1: none */
  gboolean started, finished;
} ViperMonalisaChange;
const ViperMonalisaChange *viper_monalisa_changes (const ViperModel *m, guint *n);
/* Keep the changes from now on (none are kept otherwise: a replay without a
 * Pajé or Chrome export does not pay for them); call before the first tram. */
void viper_monalisa_record_changes (const ViperModel *m);

/* The deadlocked set D (sorted ids); valid until the next apply. */
const gint64 *viper_monalisa_deadlock_cycle (const ViperModel *m, guint *n);

G_END_DECLS
