/* readahead.h - reading and parsing a regular file on a second thread.
 *
 * Internal to the file source (source-file.c).  A worker thread reads the
 * file, splits it into lines and scans them into trams, in batches; the engine's thread takes the results in file order, one item at a
 * time.  Nothing the engine sees is shared: trams are copied into the
 * source's pool by the caller, and diagnostics are the caller's to report
 * (in file order, when the item is taken).  At most VIPER_READ_AHEAD_BATCHES batches wait, so memory
 * stays bounded however far behind the engine falls.
 */
#pragma once

#include "tram.h"

G_BEGIN_DECLS

typedef struct _ViperReadAhead ViperReadAhead;

typedef enum {
  VIPER_AHEAD_TRAM,         /* tram, lineno */
  VIPER_AHEAD_BAD,          /* a rejected line: lineno, column, text = reason */
  VIPER_AHEAD_WARNING,      /* text = a read error (what was read before it stays good) */
  VIPER_AHEAD_END,          /* end of the file: no more items */
} ViperAheadKind;

typedef struct {
  ViperAheadKind kind;
  const ViperTram *tram;    /* the worker's: copy it, valid until the next call */
  guint64 lineno;
  guint column;
  const char *text;         /* valid until the next call */
  gboolean salvaged;        /* VIPER_AHEAD_BAD: the line's PROC (and D1 when not 0) could be read */
  gint64 proc, d1;
} ViperAheadItem;

/* Start a worker on fd (read from its current offset; the caller must not
 * touch fd until viper_read_ahead_free). */
ViperReadAhead *viper_read_ahead_new (int fd);
/* The next item in file order; blocks until the worker has it. */
void viper_read_ahead_next (ViperReadAhead *ra, ViperAheadItem *item);
/* The next item's tram image, taken, if the next item is a tram in the
 * batch being taken (the common case, without viper_read_ahead_next's
 * item to fill); else NULL and nothing is taken.  Never blocks; valid until
 * the next call of viper_read_ahead_next().  For viper_tram_copy_image: its
 * pool_slab holds its size. */
const ViperTram *viper_read_ahead_next_tram (ViperReadAhead *ra);
/* The tram image k items after the next one viper_read_ahead_next() returns
 * (k = 0: that one), if it is a tram already in the batch being taken; else
 * NULL.  Never blocks; valid until the next call of viper_read_ahead_next().
 * For prefetching only: the engine looks at where such a tram will go. */
const ViperTram *viper_read_ahead_peek (const ViperReadAhead *ra, guint k);
/* Bytes of the file behind the items handed out so far (by whole batches). */
guint64 viper_read_ahead_bytes (const ViperReadAhead *ra);
/* Stop the worker, wait for it, free everything. */
void viper_read_ahead_free (ViperReadAhead *ra);

G_END_DECLS
