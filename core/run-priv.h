/* run-priv.h - the run's own structures, shared by run.c (reconstruction),
 * run-query.c (what the run answers about itself) and run-stuck.c (why a
 * list is held up).  Not part of the engine's interface (run.h). */
#pragma once

#include "run.h"
#include "seqlist.h"
#include "buckets.h"
#include "join.h"

#define MEMBERS_ON_STACK 256
#define MAX_ENTRIES 65535u      /* PrimEntry indices are 16-bit (ViperTram.slot) */
#define DIRECT_LISTS 4096
#define PREFETCH_PENDING 4096    /* trams in flight from which viper_run_prefetch looks */
#define PRIM_FREE_SIZES 9       /* primitives of up to 8 entries are recycled */
/* at most this many kept per size; none under AddressSanitizer, so that a
 * primitive used after its release is still caught there */
#if defined(__SANITIZE_ADDRESS__)
#define PRIM_FREE_KEEP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PRIM_FREE_KEEP 0
#endif
#endif
#ifndef PRIM_FREE_KEEP
#define PRIM_FREE_KEEP 1024
#endif
/* Rejected lines of one proc (the first few named). */
typedef struct {
  GString *text;
  guint64 n;
} RejectedLines;

#define REJECTED_NAMED 4        /* rejected lines named per proc; more are counted */

/* ---- primitives ------------------------------------------------------------ */

/* What an entry needs before its tram leaves (the tram, who waits for it)
 * and after (its TIME and sequence number, for viper_run_last_cause) share
 * their memory: 40 bytes an entry, not 56. */
typedef struct {
  union {
    ViperTram *tram;        /* while filled and not transferred */
    gint64 seq;             /* its sequence number, once transferred */
  };
  union {
    ViperTram *waiters;     /* trams whose cross-dependency is this entry (linked by waiter_next), until transferred */
    double time;            /* its TIME as read, once transferred */
  };
  double adjusted;
  gint64 list;              /* the sequence list this entry is expected from */
  guint8 slot;              /* profile slot */
  guint8 filled;
  guint8 transferred;
  guint32 lamport;          /* its tram's Lamport number, once transferred (in the padding) */
} PrimEntry;
G_STATIC_ASSERT (sizeof (PrimEntry) == 40);

typedef struct _Prim Prim;
struct _Prim {
  Prim *prev, *next;        /* all live primitives, for cleanup */
  const ViperProfile *profile;
  gint64 caller;
  gint64 caller_seq;
  guint16 caller_type;
  guint refs;               /* unconsumed expectations + entries not yet transferred */
  guint n_entries;
  guint16 slot_entry[32];   /* first entry of each profile slot */
  PrimEntry entries[];
};

/* An open slot waiting for its tram. */
typedef struct _Expect Expect;
struct _Expect {
  Expect *next;
  Prim *prim;
  guint16 entry;
};

/* All that is known under one key: expectations (FIFO), the latest reply
 * expectation, and the list whose claim cursor waits here (core/buckets.h). */
typedef ViperBucketKey BucketKey;
typedef ViperBucket Bucket;

typedef struct
{
  double adjusted;
  gint64 proc, seq;
  ViperTram *t;
  ViperSeqList *l;          /* t's list: the transfer need not look it up */
} HeapEnt;

struct _ViperRun {
  const ViperParadigm *paradigm;
  const ViperModel *model;
  ViperTramPool *pool;
  ViperChannels *channels;
  ViperDiag *diag;
  double decay;

  GHashTable *lists;        /* proc -> ViperSeqList* */
  GArray *procs_sorted;     /* viper_run_procs' answer until a list is added or cleared; NULL: none */
  ViperSeqList *last_list;  /* lookup cache */
  ViperSeqList *direct[DIRECT_LISTS];  /* procs -1 .. DIRECT_LISTS-2 without hashing */
  ViperBuckets buckets;     /* BucketKey -> Bucket, entries in the table */
  Prim *prims;              /* live primitives */
  Expect *free_expects;
  Prim *free_prims[PRIM_FREE_SIZES];  /* released primitives by n_entries (linked by next) */
  guint n_free_prims[PRIM_FREE_SIZES];

  /* ready trams, min on (adjusted, proc, seq); the keys sit beside the
   * pointers so that sifting never reads a tram (on shuffled input each
   * would be a cache miss) */
  HeapEnt *heap;
  guint heap_len, heap_cap;
  guint8 *type_joins;       /* per type index: may the join want it (NULL: all may) */
  GPtrArray *resume;        /* lists whose claim cursor can move again */
  guint32 claim_window;     /* trams a list claims ahead of its head (0: no bound) */
  guint32 claim_window_default;  /* the window when bounded (VIPER_CLAIM_WINDOW) */
  GPtrArray *held, *held_spare;  /* lists that may hold at their window (ViperSeqList.held) */
  ViperTram *last_out;      /* returned by transfer_next, released on the next call */

  double clock;
  ViperCounts counts;
  ViperJoin *join;          /* collectives (paradigm->join), or NULL */
  gboolean input_ended;     /* viper_run_input_end: every module is known */

  gboolean any_order;        /* viper_run_set_any_order: heap used as a stack */
  /* post-mortem clock modes (core/clocksync.c): rewrites TIME at insert */
  ViperTimeMapFunc time_map;
  gpointer time_map_data;
  /* the cross-dependency on another list of the tram last transferred */
  gboolean cause_valid;
  gint64 cause_proc, cause_seq;
  double cause_time;
  GHashTable *rejected_at;  /* proc -> RejectedLines, for stuck reasons */
  GPtrArray *after_input;   /* trams waiting for the input to pause (paradigm after_input) */
  GHashTable *uninterpreted_at; /* proc -> RejectedLines: known trams with DTYPE not 2, left uninterpreted */
  guint64 max_pending;      /* bound on trams in flight (viper_run_set_max_pending) */
  guint64 max_procs;        /* bound on modules (sequence lists) */

  const ViperRunView *view; /* viper_run_set_view: figures from elsewhere (seek) */
  gpointer view_data;

  /* (REC, EV) -> type index, direct-mapped: a trace uses a handful of types */
  struct { gint64 rec, ev; guint16 type; gboolean valid; } type_cache[64];
};

/* Shared by run.c, run-claim.c and run-reject.c. */
ViperSeqList *viper_run_list_get (ViperRun *run, gint64 proc, gboolean create);
void viper_run_advance_claims (ViperRun *run, ViperSeqList *l);
void viper_run_drain_resume (ViperRun *run);
/* t is the head of l: if claimed and not waiting, fix its adjusted time and
 * let it into the heap (run.c). */
void viper_run_maybe_ready (ViperRun *run, ViperSeqList *l, ViperTram *t);
/* run-claim.c: a primitive's reference dropped (freed at the last); every
 * primitive kept for reuse freed; held lists claim on (one more window
 * each while nothing is ready, or all: to the end of what they hold); the
 * claim window VIPER_CLAIM_WINDOW sets (or the default). */
void viper_run_prim_unref (ViperRun *run, Prim *p);
void viper_run_prim_free_all (ViperRun *run);
void viper_run_claims_force (ViperRun *run, gboolean all);
guint32 viper_run_claim_window_env (void);
/* Column (1-based) of data field i in the raw line, for diagnostics. */
guint viper_run_data_column (const ViperTram *t, guint i);
/* Remember FILE:LINE (the first few per proc) in a proc -> RejectedLines table. */
void viper_run_note_line (GHashTable *table, gint64 proc, gint64 seq, const char *file, guint64 line);
/* Report t as bad input (FILE:LINE:COLUMN: reason), count it, release it;
 * passes: its sequence number counts as used.  Returns FALSE. */
gboolean viper_run_reject_as (ViperRun *run, ViperTram *t, gboolean passes, guint column, const char *fmt, ...)
  G_GNUC_PRINTF (5, 6);
/* Why the oldest held-up list waits, for the pending bound's message. */
char *viper_run_first_stuck_reason (const ViperRun *run);

/* t waits for the input to pause (viper_run_release_after_input). */
gboolean viper_run_waits_for_input (const ViperRun *run, const ViperTram *t);

static inline const ViperTramType *
tram_type (const ViperRun *run, const ViperTram *t)
{
  return t->type == VIPER_TYPE_UNKNOWN ? NULL : &run->paradigm->types[t->type];
}

/* Slots and SLOT tram types meet on their match class (nonzero). */
static inline guint32
type_class (const ViperRun *run, guint16 type_index)
{
  return run->paradigm->types[type_index].match_class;
}
