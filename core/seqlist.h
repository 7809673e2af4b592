/* seqlist.h - one module's sequence list (thesis 5.1.1).
 *
 * Trams arrive in any order; the list hands them out QUEUED strictly in
 * sequence order, as soon as every predecessor has arrived (the cut).  Trams
 * above the cut wait INITIAL in a paged array indexed by sequence number:
 * pages of 64 slots are allocated when a tram lands in them and freed as
 * soon as they hold none, so insert, take and release are O(1) at any
 * distance and memory follows the trams actually waiting (seqlist.c).  With
 * a pool (viper_seqlist_set_pool), a tram in canonical form waits packed in
 * its 32-byte slot, its block given back, and is unpacked into a fresh
 * block of the pool when the cut passes it: a waiting tram is then not the
 * pointer the caller inserted.
 */
#pragma once

#include "tram.h"

G_BEGIN_DECLS

typedef struct _ViperSeqList ViperSeqList;
typedef struct _ViperSeqPages ViperSeqPages;
typedef struct _SeqPage SeqPage;

struct _ViperSeqList {
  gint64 proc;
  gint64 next_seq;          /* the lowest sequence number not yet QUEUED (or passed as used) */
  ViperSeqPages *pages;     /* trams waiting in pages (above the cut, or deferred at it); NULL while none ever waited */
  SeqPage **dir;            /* with pages: pages [cut's, + dir_cap) at pageno & (dir_cap - 1) (seqlist.c) */
  guint32 dir_cap;          /* power of two */
  ViperTramPool *pool;      /* waiting trams are packed, their blocks released here (NULL: kept as they are) */

  /* QUEUED trams not yet transferred, in sequence order (linked by ->next) */
  ViperTram *head;          /* next to transfer */
  ViperTram *claim;         /* next to claim into a primitive (NULL: all claimed) */
  ViperTram *tail;
  gboolean stalled;         /* claim cursor waits for a primitive that does not exist yet */
  gboolean held;            /* claim cursor waits for the head: the claim window is full (run.c) */
  gboolean in_held;         /* in the run's array of held lists */
  guint32 claimed_ahead;    /* claimed trams not yet transferred (head .. claim) */
  guint32 claim_limit;      /* claimed_ahead at which the cursor holds (0: the run's window) */
  guint32 defer_at;         /* unclaimed queued trams from which one at the cut waits packed (0: never; seqlist.c) */

  double offset;            /* clock offset (thesis 5.2) */
  double last_adjusted;     /* t' of the last transferred tram (-inf before) */
  guint32 last_lamport;     /* its Lamport number (0 before) */
  guint64 inserted;         /* trams accepted into this list */
  guint32 first_channel;    /* the channel of the first of them (implicit sequence numbers: run.c) */
  guint64 in_flight;        /* accepted, not yet transferred */
};

typedef enum {
  VIPER_SEQ_INITIAL,        /* stored above the cut */
  VIPER_SEQ_QUEUED,         /* it (and maybe successors) became QUEUED */
  VIPER_SEQ_DUPLICATE,      /* this sequence number was seen before */
} ViperSeqResult;

void viper_seqlist_init (ViperSeqList *l, gint64 proc);
/* Pack waiting trams that fit a slot and release them to pool; unpack them
 * from it.  Survives viper_seqlist_clear. */
void viper_seqlist_set_pool (ViperSeqList *l, ViperTramPool *pool);
void viper_seqlist_clear (ViperSeqList *l, void (*release) (ViperTram *t, gpointer), gpointer data);
/* Sequence numbers a page of waiting trams covers (seqlist.c). */
#define VIPER_SEQ_PAGE_SLOTS 64u
/* Trams moved to the queue at a time; more with viper_seqlist_drain(). */
#define VIPER_SEQ_BATCH 64u

/* Insert t (t->seq >= 1).  Unless DUPLICATE, the list owns t: with a pool
 * it may be packed and released at once.  Newly QUEUED trams (at most VIPER_SEQ_BATCH: the
 * rest of a sweep stays in place until drained) are appended to the queue;
 * the first of them is returned in *first_queued (NULL if none). */
ViperSeqResult viper_seqlist_insert (ViperSeqList *l, ViperTram *t, ViperTram **first_queued);
/* Sequence number seq was used by a line that was rejected: the cut passes
 * over it like over a tram.  Returns VIPER_SEQ_DUPLICATE when seq was already
 * seen; otherwise the trams this let pass are queued (*first_queued). */
ViperSeqResult viper_seqlist_mark_used (ViperSeqList *l, gint64 seq, ViperTram **first_queued);
/* Queue up to max more trams that the cut can pass; returns how many. */
guint viper_seqlist_drain (ViperSeqList *l, ViperTram **first_queued, guint max);
/* Give up on the gap below the first waiting tram: the cut jumps to it and
 * it (and its consecutive successors) become QUEUED.  Returns how many
 * sequence numbers were skipped (0 when nothing waits). */
guint64 viper_seqlist_skip_gap (ViperSeqList *l, ViperTram **first_queued);
/* Prefetch the slot sequence number seq would take (when its page exists). */
void viper_seqlist_prefetch (const ViperSeqList *l, gint64 seq);
/* Call fn on every tram the list holds: the QUEUED ones in sequence order,
 * then those waiting in the pages (above the cut, or deferred at it) in no
 * defined order.  Changes nothing.  A packed tram is unpacked for fn into a
 * block the next one reuses: fn must not keep t. */
void viper_seqlist_foreach (const ViperSeqList *l, void (*fn) (const ViperTram *t, gpointer data), gpointer data);
/* Number of INITIAL trams (above the cut). */
guint64 viper_seqlist_initial (const ViperSeqList *l);
/* Pages currently allocated for waiting trams (for tests and memory figures). */
guint viper_seqlist_pages (const ViperSeqList *l);
/* Bytes held for waiting trams: pages and their directory. */
gsize viper_seqlist_bytes (const ViperSeqList *l);

G_END_DECLS
