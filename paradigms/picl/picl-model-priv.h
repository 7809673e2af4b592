/* picl-model-priv.h - the picl model's insides, shared by picl-model.c (the
 * model, point to point, states) and picl-collective.c (collectives). */
#pragma once

#include <math.h>
#include <string.h>
#include "picl.h"
#include "picl-map.h"
#include "core/run.h"

/* What an open call waits for before its processor stops being idle. */
typedef enum {
  CALL_PLAIN = 0,           /* never idle: sends, waits for sends, posts */
  CALL_RECV,                /* idle until its message is sent */
  CALL_COLL,                /* idle until the begins it depends on (its shape) */
} CallKind;

typedef struct {
  gint64 ev;
  double begin;             /* adjusted time of its begin */
  gint64 want_src, want_tag;/* CALL_RECV: which messages it takes (-1 = any) */
  gint64 subset, root, k;   /* CALL_COLL: the k-th collective ev over subset on this processor */
  double ready;             /* when it stopped waiting as far as the run so far shows (NAN: still
                             * waiting); provisional until its end gives the exact time */
  guint8 kind;
} Call;

/* A closed call of the open group: begin, when it stopped waiting, end. */
typedef struct {
  double b, w, e;
} Span;

/* Growable arrays kept inline in their owner: the apply appends and removes
 * on every call, and GArray's out-of-line calls through the PLT cost more
 * than the work (issue 11).  v is g_malloc'd; an empty one may be NULL. */
typedef struct { Call *v; guint len, cap; } CallVec;
typedef struct { Span *v; guint len, cap; } SpanVec;
typedef struct { ViperPiclChange *v; guint len, cap; } ChangeVec;

/* Room for one more element of elem bytes (v has cap of them): the new pointer. */
gpointer picl_vec_grow (gpointer v, guint *cap, gsize elem);
#define PICL_VEC_PUSH(vec, x) \
  do { \
    if (G_UNLIKELY ((vec)->len == (vec)->cap)) \
      (vec)->v = picl_vec_grow ((vec)->v, &(vec)->cap, sizeof *(vec)->v); \
    (vec)->v[(vec)->len++] = (x); \
  } while (0)
/* A copy holding exactly len elements (cap = len). */
#define PICL_VEC_COPY(dst, src) \
  do { \
    (dst)->len = (dst)->cap = (src)->len; \
    (dst)->v = (src)->len ? g_memdup2 ((src)->v, (gsize) (src)->len * sizeof *(src)->v) : NULL; \
  } while (0)

typedef struct {
  gint64 id;
  ViperPiclState state;     /* at the clock (provisional while a group is open) */
  CallVec calls;            /* open calls, in order of their begins */
  SpanVec spans;            /* closed calls of the open group */
  guint64 group_pos;        /* history position of the open group's first state entry */
  double group_begin;
  gint64 post_src, post_tag;/* the last non-blocking receive posted, until its REQ is known */
  gboolean tracing, started;
  gboolean shown;           /* in m->seen: its first tram was applied */
  guint64 sent, received;
} Proc;

/* A send begin not yet received. */
typedef struct {
  double adjusted;
  guint64 arrow;            /* history position of its arrow */
  gint64 bytes;             /* its BYTES (-1: the line gave none) */
  gint32 next;
} Pending;

/* One collective: the k-th of kind ev over subset, as seen so far. */
typedef struct {
  gint64 ev, subset, k;
} InstKey;

typedef struct {
  InstKey key;
  GArray *begins;           /* of InstBegin, in order of application */
  guint ends;
  /* all-to-all and the root of all-to-one depend on every member's begin:
   * the latest of them and how many there are, folded in as begins arrive
   * (begins is append-only), so a wait costs O(1) however many members */
  guint agg_done;           /* begins folded in */
  guint agg_seen;           /* of them, members of the subset */
  double agg_w;             /* their latest adjusted time (-inf: none) */
  /* prefix (scan): member q's end depends on the begins at positions 0..q
   * (picl_collective_wait).  The begins are placed by position as they
   * arrive, and pre_len follows the positions that all have theirs, with
   * the latest time up to each, so a wait whose prefix is complete costs
   * O(1) and an instance of P members O(P).  Made when the members are
   * known, not copied by a snapshot (made again). */
  gboolean pre_made;
  gboolean pre_irregular;   /* over -1: a begin from no module (the cache cannot say) */
  guint pre_done;           /* begins placed */
  guint pre_n;              /* positions (the members it was made for) */
  guint pre_len;            /* positions 0..pre_len-1 all have their begin */
  guint pre_gen;            /* over -1: the modules it was made for (PiclModel.modules_gen) */
  guint8 *pre_seen;         /* [q]: the begin at position q was applied */
  double *pre_w;            /* [q < pre_len]: the latest adjusted time of positions 0..q; [q >= pre_len]: q's */
} Inst;

typedef struct {
  gint64 proc;
  double adjusted;
} InstBegin;

typedef struct {
  ViperModel base;
  gboolean any_applied;
  guint n_tracing, n_started, n_subsets, n_open_groups;
  guint64 messages, unreceived;
  double last_stop;         /* latest adjusted time of a tracing stop */
  double first_time;        /* smallest adjusted time applied of a processor (global records
                             * are timeless: viper_paradigm_timeless) */

  GArray *procs;            /* of Proc */
  Map proc_index;           /* (proc, 0, 0) -> v0 = index in procs */
  gint64 last_proc;         /* lookup cache */
  guint last_index;
  guint32 *proc_slot;       /* lookup cache for ids below PICL_PROC_SLOTS: index in procs + 1, 0 = not known */
  guint proc_slot_len;

  Map channels;             /* (src, dest, tag) -> v0 = FIFO head, v1 = tail (Pending index) */
  Map counts;               /* (src or -1, dest, tag or -1) -> v0 = sends pending */
  Map requests;             /* (proc, REQ, 0) -> v0 = src, v1 = tag of the posted receive */
  Map coll_counts;          /* (proc, ev, subset) -> v0 = collective begins so far */
  Map seen;                 /* (proc, 0, 0): processors whose first tram was applied */
  GArray *pending;          /* of Pending */
  gint32 free_pending;      /* free list through next, -1 = empty */
  GHashTable *subsets;      /* gint64* subset -> GArray* of gint64 members */
  GHashTable *subset_pos;   /* gint64* subset -> GHashTable (gint64* member -> position + 1), for O(1) lookups */
  GHashTable *insts;        /* InstKey* -> Inst* (open collectives) */
  guint modules_gen;        /* counts the model's modules changing (picl_modules_known) */
  gboolean all_pos_made;    /* all_pos is for the modules of all_pos_gen */
  GHashTable *all_pos;      /* gint64* module -> position + 1 in the modules (for SUBSET -1); NULL
                             * when they are not in increasing order (never from the run) */
  guint all_pos_gen;        /* the modules_gen it was made for */
  ChangeVec decided;        /* states decided by the last apply */
  double now;               /* adjusted time of the tram being applied */
} PiclModel;


/* The processor's record, NULL when none: the direct table when it knows
 * the id (nearly always), else the map. */
Proc *picl_proc_find_slow (PiclModel *m, gint64 id);
static inline Proc *
picl_proc_find (PiclModel *m, gint64 id)
{
  if (G_LIKELY ((guint64) id < m->proc_slot_len && m->proc_slot[id]))
    return &g_array_index (m->procs, Proc, m->proc_slot[id] - 1);
  return picl_proc_find_slow (m, id);
}
void picl_proc_cache_clear (PiclModel *m);
const char *picl_ev_name (gint64 ev);
/* A communication call begins / the call at idx ends (w: when it stopped waiting, NAN: never waited). */
gboolean picl_begin_call (PiclModel *m, Proc *p, const ViperTram *t, const Call *c);
gboolean picl_end_call (PiclModel *m, Proc *p, const ViperTram *t, gint idx, double w);
/* The open call an end closes (src G_MININT64: the first of its kind), or -1. */
gint picl_find_call (const Proc *p, gint64 ev, gint64 src, gint64 tag);
void picl_set_provisional (PiclModel *m, Proc *p);
/* The state of an open group at t as far as the run so far shows. */
ViperPiclState picl_open_state_at (const Proc *p, double t);
gint picl_cmp_double (gconstpointer a, gconstpointer b);
/* m is a picl model. */
gboolean picl_model_is (const ViperModel *m);

/* picl-collective.c */
guint picl_inst_hash (gconstpointer k);
gboolean picl_inst_equal (gconstpointer a, gconstpointer b);
void picl_inst_free (gpointer p);
Inst *picl_inst_get (PiclModel *m, gint64 ev, gint64 subset, gint64 k, gboolean create);
gboolean picl_apply_subset (PiclModel *m, const ViperTram *t);
/* ViperModelClass.modules_known: collectives over -1 may be complete now. */
void picl_modules_known (ViperModel *base);
gboolean picl_collective_begin (PiclModel *m, Proc *p, const ViperTram *t);
gboolean picl_collective_end (PiclModel *m, Proc *p, const ViperTram *t);
/* Latest adjusted time among the begins the end of member `me` depends on;
 * *missing counts those not applied.  exact FALSE: the caller only asks
 * whether *missing is 0, and gets 1 (and no time) for any other count. */
double picl_collective_wait (PiclModel *m, Inst *inst, const Call *c, gint64 me, guint *missing, gboolean exact);

/* picl-snapshot.c: checkpoints (core/model.h) */
gpointer picl_snapshot (const ViperModel *base, gsize *bytes);
void picl_restore (ViperModel *base, gconstpointer snap);
void picl_snapshot_free (gpointer snap);
