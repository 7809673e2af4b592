/* seqlist.h - one module's sequence list (thesis 5.1.1).
 *
 * Trams arrive in any order; the list hands them out QUEUED strictly in
 * sequence order, as soon as every predecessor has arrived (the cut).  Trams
 * above the cut wait INITIAL in a window indexed by sequence number (a ring
 * that grows to 64 Ki entries), or in an ordered tree when they are further ahead, so
 * an insert is O(1) and a far-off sequence number cannot make memory explode.
 */
#pragma once

#include "tram.h"

G_BEGIN_DECLS

typedef struct _ViperSeqList ViperSeqList;

struct _ViperSeqList {
  gint64 proc;
  gint64 next_seq;          /* the lowest sequence number not yet QUEUED */
  ViperTram **win;          /* INITIAL trams with seq in [next_seq, next_seq + win_cap) */
  guint win_cap;            /* power of two, 0 when unused */
  guint win_count;
  GTree *far;               /* seq -> tram, beyond the window, ordered */

  /* QUEUED trams not yet transferred, in sequence order (linked by ->next) */
  ViperTram *head;          /* next to transfer */
  ViperTram *claim;         /* next to claim into a primitive (NULL: all claimed) */
  ViperTram *tail;
  gboolean stalled;         /* claim cursor waits for a primitive that does not exist yet */

  double offset;            /* clock offset (thesis 5.2) */
  double last_adjusted;     /* t' of the last transferred tram (-inf before) */
  guint64 inserted;         /* trams accepted into this list */
  guint64 in_flight;        /* accepted, not yet transferred */
};

typedef enum {
  VIPER_SEQ_INITIAL,        /* stored above the cut */
  VIPER_SEQ_QUEUED,         /* it (and maybe successors) became QUEUED */
  VIPER_SEQ_DUPLICATE,      /* this sequence number was seen before */
} ViperSeqResult;

void viper_seqlist_init (ViperSeqList *l, gint64 proc);
void viper_seqlist_clear (ViperSeqList *l, void (*release) (ViperTram *t, gpointer), gpointer data);
/* Insert t (t->seq >= 1).  Newly QUEUED trams are appended to the queue; the
 * first of them is returned in *first_queued (NULL if none). */
ViperSeqResult viper_seqlist_insert (ViperSeqList *l, ViperTram *t, ViperTram **first_queued);
/* Number of INITIAL trams (above the cut). */
guint viper_seqlist_initial (const ViperSeqList *l);

G_END_DECLS
