/* tram.h - one trace event ("tram": trace message), and the pool trams live in.
 *
 * A tram is one PICL 2.0 line (../shared/spec/picl.md section 1):
 *     REC EV TIME PROC PROCESS NDATA [DTYPE D1 .. Dn]
 * Trams are the unit every layer passes around, so they are allocated from a
 * ViperTramPool (slabs per size class, with free lists), never with one malloc
 * each.  A tram is one contiguous block: this header, then NDATA int64 data
 * fields (when DTYPE is 2), then the raw line text (NUL-terminated), which is
 * kept so that --run-out can print the line as it was read.
 *
 * The engine's bookkeeping fields (state, links, dependency counters) live in
 * the header too: a tram in flight costs one block and no side tables.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define VIPER_MAX_LINE 65536          /* longest accepted line, not counting its end */
#define VIPER_DTYPE_INT 2             /* the only data format Viper interprets */
#define VIPER_DTYPE_OTHER (-1)        /* any other format: data kept as raw text only */
#define VIPER_TYPE_UNKNOWN 0xffffu    /* (REC, EV) not in the paradigm's table */

/* Life cycle of a tram in the run construction (thesis 5.1.2). */
typedef enum {
  VIPER_TRAM_NEW = 0,       /* parsed, not yet in a sequence list */
  VIPER_TRAM_INITIAL,       /* in its sequence list, a predecessor is missing */
  VIPER_TRAM_QUEUED,        /* every predecessor has arrived (above the cut) */
  VIPER_TRAM_INTEGRATED,    /* assigned to a primitive list (or to none: one-tram list) */
  VIPER_TRAM_READY,         /* predecessors transferred, waiting in the merge heap */
  VIPER_TRAM_TRANSFERRED,   /* merged into the run */
} ViperTramState;

typedef struct _ViperTram ViperTram;

struct _ViperTram {
  double time;              /* TIME as read: the generating clock, never trusted for order */
  double adjusted;          /* adjusted time stamp, set when the tram is transferred */
  gint64 proc;              /* processor / module / device; -1 = program manager */
  gint64 seq;               /* sequence number in its module (explicit D1 or implicit) */

  /* engine bookkeeping (core/run.c); zero when fresh */
  ViperTram *next;          /* successor in a queue or list owned by the engine */
  gpointer prim;            /* the primitive list it belongs to, if any */
  union {
    ViperTram *waiter_next; /* in flight: next tram waiting for the same primitive entry as this one */
    guint32 lamport;        /* once transferred: 1 + the largest Lamport number of its sequence
                             * predecessor and of every tram it depended on (core/run.c): the same
                             * for the same trams in any line order, and larger than every cause's
                             * (the exports break ties of adjusted time with it) */
  };

  /* REC, EV and PROCESS are 64-bit in the syntax but small in every paradigm;
   * a value outside 32 bits sets VIPER_TRAM_F_WIDE (the text keeps it, and
   * no paradigm knows the type). */
  gint32 rec;               /* record type */
  gint32 ev;                /* event type */
  gint32 process;           /* process within the processor */
  guint32 raw_len;          /* length of the line as read, without line end */
  guint32 line;             /* line number in its channel, for diagnostics */
  guint32 channel;          /* id of the channel (file, connection) it came from */
  guint32 pool_slab;        /* pool bookkeeping: the slab holding it */
  guint16 ndata;            /* number of data fields (a 64 KiB line holds at most 32,769) */
  guint16 data_off;         /* byte offset in the line where DTYPE starts (0 when ndata == 0) */
  guint16 type;             /* index in the paradigm's tram table, VIPER_TYPE_UNKNOWN */
  guint16 slot;             /* entry index in its primitive list (engine) */
  gint8 dtype;              /* VIPER_DTYPE_INT, or VIPER_DTYPE_OTHER (data only in the text) */
  guint8 state;             /* ViperTramState */
  guint8 waits;             /* dependencies not yet transferred (engine) */
  guint8 flags;             /* VIPER_TRAM_F_* */
  /* followed by: gint64 data[ndata] (if dtype == 2), then the line's text
   * (raw_len bytes + NUL) unless VIPER_TRAM_F_CANON */
};

enum {
  VIPER_TRAM_F_CLAIMED = 1 << 0,  /* filled a slot of a primitive list */
  VIPER_TRAM_F_IGNORED = 1 << 1,  /* (REC, EV) unknown to the paradigm */
  VIPER_TRAM_F_FREE = 1 << 2,     /* belongs to no primitive (one-tram list) */
  VIPER_TRAM_F_CANON = 1 << 3,    /* the line was in canonical form: its text is not stored,
                                     printing regenerates it from the fields */
  VIPER_TRAM_F_WIDE = 1 << 4,     /* REC, EV or PROCESS does not fit 32 bits (see the text) */
  VIPER_TRAM_F_UNINTERPRETED = 1 << 5, /* a known (REC, EV) whose data are not DTYPE 2: handled as
                                          unknown (ignored), never half-read (spec section 1) */
};

/* Ask for the cache lines of t's header and first data fields (its first 128
 * bytes, three lines when it straddles them): on shuffled input the trams
 * the engine looks at next lie anywhere in memory, and the header alone is
 * 96 bytes. */
static inline void
viper_tram_prefetch (const ViperTram *t)
{
  __builtin_prefetch (t, 1);
  __builtin_prefetch ((const char *) t + 64, 1);
  __builtin_prefetch ((const char *) t + 127, 1);
}

/* Data fields as integers; NULL when dtype is not VIPER_DTYPE_INT. */
static inline gint64 *
viper_tram_data (const ViperTram *t)
{
  return t->dtype == VIPER_DTYPE_INT ? (gint64 *) (t + 1) : NULL;
}

/* Data field i (0-based) or def when absent or not an integer. */
static inline gint64
viper_tram_datum (const ViperTram *t, guint i, gint64 def)
{
  return (t->dtype == VIPER_DTYPE_INT && i < t->ndata) ? ((const gint64 *) (t + 1))[i] : def;
}

/* The raw line as read (no line end), NUL-terminated; NULL for a canonical
 * line, whose text is exactly what viper_tram_print() regenerates. */
static inline const char *
viper_tram_raw (const ViperTram *t)
{
  if (t->flags & VIPER_TRAM_F_CANON)
    return NULL;
  return (const char *) (t + 1) + (t->dtype == VIPER_DTYPE_INT ? t->ndata * sizeof (gint64) : 0);
}

/* ---- pool ---------------------------------------------------------------- */

typedef struct _ViperTramPool ViperTramPool;

ViperTramPool *viper_tram_pool_new (void);
void viper_tram_pool_free (ViperTramPool *pool);
/* A zeroed tram with room for ndata int64 fields (0 if dtype is not 2) and
 * raw_len + 1 bytes of text. */
ViperTram *viper_tram_pool_alloc (ViperTramPool *pool, guint32 ndata_ints, guint32 raw_len);
/* A block for a tram of a line in canonical form (no text) with ndata_ints
 * data fields, of which only pool_slab is set: the caller writes every other
 * field of the header and the data. */
ViperTram *viper_tram_pool_alloc_raw (ViperTramPool *pool, guint32 ndata_ints);
void viper_tram_pool_release (ViperTramPool *pool, ViperTram *t);
/* Memory for trams kept otherwise (a sequence list's page of packed trams,
 * core/seqlist.c): size bytes, zeroed, 64-byte aligned, counted in what
 * the pool holds (pool may be NULL: not counted).  A few freed pages are
 * kept (and counted) for the next allocation of their size. */
gpointer viper_tram_pool_page_alloc (ViperTramPool *pool, gsize size);
void viper_tram_pool_page_free (ViperTramPool *pool, gpointer page, gsize size);
/* Bytes currently held by live trams (header + data + text, rounded to size class). */
gsize viper_tram_pool_bytes_in_use (const ViperTramPool *pool);
/* Bytes the pool holds from the system: its slabs (full, partly used or
 * spare) and its big trams with their headers; and the most it ever held.
 * A slab whose blocks are all free goes back to the system, but for one
 * spare per size class, so this falls back once a burst of trams drains. */
#define VIPER_TRAM_POOL_SLAB_BYTES (64 * 1024)   /* one slab: the pool's unit of memory */
gsize viper_tram_pool_bytes_reserved (const ViperTramPool *pool);
gsize viper_tram_pool_bytes_reserved_peak (const ViperTramPool *pool);
gsize viper_tram_pool_live (const ViperTramPool *pool);

/* Copy a tram into pool (e.g. to keep it after its source releases it). */
ViperTram *viper_tram_copy (ViperTramPool *pool, const ViperTram *t);
/* Copy a fresh tram image (built outside any pool: engine fields zero, state
 * NEW, flags only CANON or WIDE, and pool_slab holding the image's size in
 * bytes, a multiple of 8 that covers header, data and text) into pool. */
ViperTram *viper_tram_copy_image (ViperTramPool *pool, const ViperTram *image);

/* ---- printing ------------------------------------------------------------ */

/* Append the tram's line to out, without line end.  TIME is printed with the
 * fewest digits that read back the same double: the adjusted time with
 * use_adjusted, else the time as read.  Everything else is the text as read,
 * with runs of blanks normalised to one space and leading/trailing blanks
 * removed (a canonical line's text is regenerated from its fields, which
 * gives the same), but for one blank after a last field that ends in CR, so
 * that the printed line reads back to the same tram. */
void viper_tram_print (const ViperTram *t, gboolean use_adjusted, GString *out);
/* The same with TIME written as time_text (any text, "" for none): a
 * caller that writes the time itself spares its formatting. */
void viper_tram_print_time_as (const ViperTram *t, const char *time_text, GString *out);
/* Format a double with the fewest significant digits (<= 17) that read back
 * exactly; buf must hold 32 bytes.  Returns buf. */
char *viper_format_double (double v, char *buf);
/* n / 10^decimals written in fixed notation (digits after the point kept,
 * even zeros), with a '-' when negative; buf holds at least 32 bytes. */
char *viper_write_fixed (guint64 n, guint decimals, gboolean negative, char *buf);

G_END_DECLS
