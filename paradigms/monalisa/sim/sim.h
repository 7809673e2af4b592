/* sim.h - viper-monalisa-sim: the shared types of the Mona Lisa simulator.
 *
 * sim.c        the discrete-event kernel: events, messages, clocks, the
 *              supervisors, the primitives, the tram record, the truth model
 *              and the program manager
 * programs.c   the programs (farm, deadlock, abnormal, trackfit) as
 *              step functions of their modules' application processes
 * output.c     delivery orders, the trace through libviperprobe (file and
 *              live), the Module Setup file and the truth JSON
 * main.c       options
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The primitives with a partner. */
typedef enum { PRIM_IN, PRIM_RD, PRIM_WR, PRIM_INR, N_REMOTE_PRIMS, PRIM_EXPOSE = N_REMOTE_PRIMS, PRIM_HIDE, PRIM_NONE } SimPrim;

typedef enum { ST_INACTIVE, ST_EXECUTING, ST_INTERACTING, ST_BLOCKED } SimState;

typedef enum { DELIVER_INORDER, DELIVER_SHUFFLED, DELIVER_INTERLEAVED } SimDelivery;

typedef struct {
  int k;                  /* dimensions, 0 = no slice */
  gint64 off[2], size[2];
} SimSlice;

typedef struct {
  const char *name;
  const char *type;       /* e.g. INTEGER(400) */
} SimAttr;

/* A module class: one per module definition (SLAVE[4] is one class). */
typedef struct {
  const char *name;
  int nattrs;
  SimAttr attrs[4];
} SimClass;

typedef struct {
  int caller, prim, var;
  guint call;             /* inrglb call id */
  SimSlice slice;
} SimPending;

typedef struct {
  gboolean exposed;       /* the simulator's own state */
  gboolean truth_exposed; /* the state the trams imply (spec section 4) */
  GQueue pending;         /* SimPending*, requests waiting for an exposure */
} SimVar;

typedef struct _Sim Sim;
typedef struct _SimModule SimModule;
typedef void (*SimStep) (Sim *S, SimModule *m);

struct _SimModule {
  int id;
  char *name;             /* SLAVE[2] */
  char *file;             /* farm.SLAVE2 */
  int cls;                /* index in S->classes */
  int group;              /* index in S->groups, -1 */
  int rep;                /* replicator id (1..n) within its group, 0 */
  SimVar *vars;
  SimStep step;
  /* registers of the program's step function */
  int pc, i, j, k, n;
  /* the application process */
  gboolean finished;
  int cur_prim;           /* remote primitive in progress, PRIM_NONE */
  int cur_target, cur_var, cur_partner;
  guint cur_call;
  SimSlice cur_slice;
  int expose_wait_var;    /* blocked exposeglb, -1 */
  SimSlice expose_slice;
  /* truth (spec section 4, derived from the module's trams) */
  gboolean t_started, t_finished;
  int t_state, t_prim, t_partner, t_var;
};

typedef struct {
  char *name;
  int id;                 /* tram id: nmods + 1 + index */
  int first, size;
} SimGroup;

typedef struct {
  int caller, group, var;
  int nhidden;            /* instances that received it with var hidden */
  gboolean answered;      /* the simulator: a reply was sent */
  gboolean t_replied;     /* truth: the (5,19) tram was applied */
  int replier;
} SimCall;

/* One emitted tram. */
typedef struct {
  double t_true, t_local;
  gint32 proc;
  guint32 data_off;       /* into S->data; data exclude the sequence number */
  guint16 nd;
  guint8 rec, ev, process;
  guint64 seq;
} SimTram;

typedef struct {
  double offset, drift, last_true, last_local;
  guint64 seq;
} SimClock;

typedef struct {
  const char *program;
  int slaves, tasks;
  gint64 count;
  guint64 seed;
  double offset_ms, drift_ppm, jitter_ms, latency_ms;
  SimDelivery delivery;
  int chunk;
  gboolean true_time;
  const char *out, *setup_out, *truth_out, *connect;
  double speed;
  gboolean probe_buffer;
  gboolean header;
  const char *cmdline;
  gboolean stats;
} SimOptions;

typedef struct {
  double t;
  guint64 order;
  int type;
  int mod;
  int kind, prim, src, var;  /* messages */
  guint call;
  SimSlice slice;
} SimEvent;

struct _Sim {
  SimOptions opt;
  GRand *rnd;             /* the program's behaviour and the network */
  GRand *rclock;          /* clocks */
  GRand *rdeliver;        /* delivery order */
  SimClass classes[4];
  int nclasses;
  SimModule *mods;
  int nmods;
  SimGroup groups[2];
  int ngroups;
  SimClock *clocks;       /* [proc + 1] */
  double *chan_last;      /* [src * nmods + dst]: last arrival, FIFO channels */
  GArray *heap;           /* SimEvent */
  guint64 order;
  double now;
  GArray *trams;          /* SimTram */
  GArray *data;           /* gint64 */
  GArray *calls;          /* SimCall */
  /* program-wide registers */
  int tasks_issued, half_done;
  /* program manager */
  int reported;           /* 0, 23, 24, 25 */
  GArray *cycle;          /* int: the deadlock set at the end */
};

/* sim.c */
void sim_init (Sim *S, const SimOptions *opt);
void sim_clear (Sim *S);
int sim_add_class (Sim *S, const char *name, int nattrs, const SimAttr *attrs);
int sim_add_module (Sim *S, const char *prog, const char *name, int cls, SimStep step);
int sim_add_group (Sim *S, const char *name, int first, int size);
void sim_setup_done (Sim *S);
void sim_run (Sim *S);
gboolean sim_more (Sim *S);       /* more tasks wanted (--tasks / --count) */
double sim_uniform (Sim *S, double lo, double hi);
double sim_normal (Sim *S, double mean, double sd);
void sim_start (Sim *S, SimModule *m);
void sim_finish (Sim *S, SimModule *m);
void sim_work (Sim *S, SimModule *m, double ms);
void sim_expose (Sim *S, SimModule *m, int var, const SimSlice *slice);
void sim_hide (Sim *S, SimModule *m, int var);
void sim_hide_long (Sim *S, SimModule *m, int var, double ms);
void sim_call (Sim *S, SimModule *m, SimPrim prim, int target, int var, const SimSlice *slice);
const char *sim_state_name (int state);
const char *sim_prim_name (int prim);
const char *sim_program_state (Sim *S, GArray *cycle_out);

/* programs.c */
gboolean sim_build_program (Sim *S, GError **error);

/* output.c */
gboolean sim_write_trace (Sim *S, GError **error);
gboolean sim_write_live (Sim *S, GError **error);
gboolean sim_write_setup (Sim *S, const char *path, GError **error);
gboolean sim_write_truth (Sim *S, const char *path, GError **error);

G_END_DECLS
