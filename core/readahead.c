/* readahead.c - reading and parsing a regular file on a second thread.
 *
 * Reading, splitting and scanning are more than half of a replay's work; on
 * a machine with two cores they can run beside the engine.  The worker fills
 * batches of up to BATCH_LINES items or BATCH_BYTES of trams (a file of 64 KiB
 * lines must not put 4,096 of them in memory) and hands them over through a
 * queue of at most VIPER_READ_AHEAD_BATCHES; the engine's thread gives consumed
 * batches back for the worker to fill again.  A batch keeps its trams one
 * after the other in one buffer (no pool: the engine copies each tram into
 * its own pool as it takes it), so a batch is emptied by forgetting them.
 *
 * Synchronisation is one mutex and one condition variable, taken once per
 * batch on each side, never per tram.
 */
#include "core/readahead.h"
#include "core/tramparse.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define READ_BLOCK (1u << 20)
#define BATCH_LINES 4096u
#define BATCH_BYTES (1u << 20)   /* and at most about this much tram storage: long lines */
#define FEED (16u * 1024u)
#define VIPER_READ_AHEAD_BATCHES 4u

typedef struct {
  gsize tram;               /* offset of the tram in the batch's arena + 1; 0: a bad line or a warning */
  guint64 lineno;
  guint column;
  gboolean salvaged;        /* a bad line whose PROC (and maybe D1) could be read */
  char *text;
  gint64 proc, d1;
} Entry;

typedef struct _Batch Batch;
struct _Batch {
  Batch *next;
  Entry *e;
  guint n, cap;
  char *arena;              /* the trams, one after the other, 8-byte aligned */
  gsize used, size;
  guint64 bytes;            /* read() while filling this batch */
  gboolean last;            /* the file ends after it */
  /* the worker writes n and used per line of the batch it fills, while the
   * consumer reads the batch it takes: 128 bytes after the fields keep two
   * batches' fields off each other's cache lines (false sharing) */
  char pad_[128];
};

struct _ViperReadAhead {
  char pad0_[128];          /* off the lines of whatever malloc put before it */
  GThread *thread;
  pthread_mutex_t lock;     /* POSIX rather than GMutex: ThreadSanitizer sees it */
  pthread_cond_t cond;
  Batch *ready, *ready_tail;  /* filled, in file order */
  guint n_ready;
  Batch *done;              /* consumed, for the worker to recycle */
  gboolean stop;

  /* the worker's */
  int fd;
  ViperLineSplitter *split;
  ViperTramFields *scratch;
  char *buf;
  gsize pos, len;
  gboolean eof;
  Batch *filling;
  Batch *spare;             /* recycled, empty */

  /* the consumer's, 128 bytes away from the worker's (no line, and no
   * line pair the prefetcher fetches together, written by both threads) */
  char pad_[128];
  Batch *cur;
  guint cur_i;
  guint64 bytes;
};

static void
grow_entries (Batch *b)
{
  b->cap = b->cap ? b->cap * 2 : BATCH_LINES + 4;
  b->e = g_renew (Entry, b->e, b->cap);
}

static Entry *
push_entry (Batch *b)
{
  if (b->n == b->cap)
    grow_entries (b);
  Entry *e = &b->e[b->n++];
  memset (e, 0, sizeof *e);
  return e;
}

/* Room for a tram image of size bytes at the end of b's arena. */
static inline ViperTram *
arena_room (Batch *b, gsize size)
{
  if (G_UNLIKELY (b->size - b->used < size))
    {
      b->size = MAX (b->size * 2, b->used + size + (gsize) 256 * 1024);
      b->arena = g_realloc (b->arena, b->size);
    }
  return (ViperTram *) (b->arena + b->used);
}

/* The tram image just written at the end of b's arena, size bytes (a
 * multiple of 8), goes in as the next entry. */
static inline void
push_image (Batch *b, ViperTram *t, gsize size, guint64 lineno)
{
  t->line = lineno > G_MAXUINT32 ? G_MAXUINT32 : (guint32) lineno;
  t->pool_slab = (guint32) size;   /* what viper_tram_copy_image wants */
  if (G_UNLIKELY (b->n == b->cap))
    grow_entries (b);
  Entry *e = &b->e[b->n++];
  e->tram = b->used + 1;
  e->lineno = lineno;
  e->text = NULL;           /* the rest of a tram's entry is never read */
  b->used += size;
}

static void on_other_line (ViperReadAhead *ra, Batch *b, const char *line, gsize len, guint64 lineno);

static void
on_line (const char *line, gsize len, guint64 lineno, gpointer data)
{
  ViperReadAhead *ra = data;
  Batch *b = ra->filling;

  /* nearly every line: scanned straight into the arena (issue 11) */
  ViperTram *t = arena_room (b, sizeof (ViperTram) + (len / 2 + 1) * sizeof (gint64));
  gsize size = viper_tram_scan_image (line, len, t);
  if (G_LIKELY (size))
    push_image (b, t, size, lineno);
  else
    on_other_line (ra, b, line, len, lineno);
}

/* Comments, bad lines, and trams not in the canonical shape: the careful
 * way, out of on_line's frame. */
G_NO_INLINE static void
on_other_line (ViperReadAhead *ra, Batch *b, const char *line, gsize len, guint64 lineno)
{
  ViperTram *t;
  gsize size;
  ViperParseError err;
  err.column = 0;
  err.reason[0] = '\0';
  ViperLineKind kind = viper_tram_scan (line, len, ra->scratch, &err);
  if (kind == VIPER_LINE_COMMENT)
    return;
  if (kind != VIPER_LINE_TRAM)
    {
      Entry *e = push_entry (b);
      e->lineno = lineno;
      err.reason[sizeof err.reason - 1] = '\0';
      e->column = err.column;
      e->text = g_strdup (err.reason[0] ? err.reason : "bad line");
      e->salvaged = viper_tram_salvage (line, len, &e->proc, &e->d1);
      return;
    }
  guint32 nints, text;
  guint8 flags;
  size = (viper_tram_image_prepare (ra->scratch, line, &nints, &text, &flags) + 7) & ~(gsize) 7;
  t = arena_room (b, size);
  memset (t, 0, sizeof *t);
  viper_tram_image_write (t, ra->scratch, line, nints, flags);
  push_image (b, t, size, lineno);
}

static void
on_error (guint64 lineno, guint column, const char *reason, const char *head, gsize head_len, gpointer data)
{
  ViperReadAhead *ra = data;
  Entry *e = push_entry (ra->filling);
  e->lineno = lineno;
  e->column = column;
  e->text = g_strdup (reason);
  e->salvaged = head && viper_tram_salvage_cut (head, head_len, TRUE, &e->proc, &e->d1);
}

static void
clear_batch (Batch *b)
{
  for (guint i = 0; i < b->n; i++)
    if (G_UNLIKELY (b->e[i].text))   /* trams' entries have none: no call for them */
      g_free (b->e[i].text);
  b->n = 0;
  b->used = 0;
  b->bytes = 0;
  b->last = FALSE;
  b->next = NULL;
}

static void
free_batches (Batch *b)
{
  while (b)
    {
      Batch *next = b->next;
      clear_batch (b);
      g_free (b->e);
      g_free (b->arena);
      g_free (b);
      b = next;
    }
}

/* Fill ra->filling with up to BATCH_LINES items or BATCH_BYTES of trams (one
 * feed more at most), or to the end of the file. */
static void
fill (ViperReadAhead *ra)
{
  Batch *b = ra->filling;
  while (b->n < BATCH_LINES && b->used < BATCH_BYTES && !ra->eof)
    {
      if (ra->pos < ra->len)
        {
          /* FEED bytes at a time: a batch ends near BATCH_LINES items, not
           * at the end of a 1 MiB block (which may hold 500,000 short lines) */
          gsize n = MIN (ra->len - ra->pos, (gsize) FEED);
          viper_line_splitter_feed (ra->split, ra->buf + ra->pos, n);
          ra->pos += n;
          continue;
        }
      gssize n;
      do
        n = read (ra->fd, ra->buf, READ_BLOCK);
      while (n < 0 && errno == EINTR);
      ra->pos = 0;
      ra->len = n > 0 ? (gsize) n : 0;
      if (n > 0)
        {
          b->bytes += (guint64) n;
          continue;
        }
      if (n < 0)
        {
          Entry *e = push_entry (b);
          e->text = g_strdup_printf ("read error: %s", g_strerror (errno));
        }
      ra->eof = TRUE;
    }
  if (ra->eof)
    {
      /* in a file a last line without '\n' is a complete line (spec 1) */
      viper_line_splitter_finish (ra->split, TRUE);
      b->last = TRUE;
    }
}

static gpointer
worker (gpointer data)
{
  ViperReadAhead *ra = data;
  /* What this thread writes for every line is allocated here, in this
   * thread's own malloc arena: allocated by the engine's thread, the
   * splitter and the scratch fields could share a cache line with one of its
   * structures that it writes for every tram.  That happened: the
   * scheduler's tail next to them made a Macrame replay 1.5 times slower. */
  ra->split = viper_line_splitter_new (on_line, on_error, ra);
  ra->scratch = viper_tram_fields_new ();
  for (;;)
    {
      pthread_mutex_lock (&ra->lock);
      while (!ra->stop && ra->n_ready >= VIPER_READ_AHEAD_BATCHES)
        pthread_cond_wait (&ra->cond, &ra->lock);
      Batch *recycled = ra->done;
      ra->done = NULL;
      gboolean stop = ra->stop;
      pthread_mutex_unlock (&ra->lock);
      if (stop)
        {
          free_batches (recycled);
          break;
        }

      while (recycled)
        {
          Batch *next = recycled->next;
          clear_batch (recycled);
          recycled->next = ra->spare;
          ra->spare = recycled;
          recycled = next;
        }
      Batch *b = ra->spare;
      if (b)
        {
          ra->spare = b->next;
          b->next = NULL;
        }
      else
        b = g_new0 (Batch, 1);
      ra->filling = b;
      fill (ra);
      ra->filling = NULL;

      pthread_mutex_lock (&ra->lock);
      if (ra->ready_tail)
        ra->ready_tail->next = b;
      else
        ra->ready = b;
      ra->ready_tail = b;
      ra->n_ready++;
      pthread_cond_broadcast (&ra->cond);
      pthread_mutex_unlock (&ra->lock);
      if (b->last)
        break;
    }
  return NULL;
}

ViperReadAhead *
viper_read_ahead_new (int fd)
{
  ViperReadAhead *ra = g_new0 (ViperReadAhead, 1);
  pthread_mutex_init (&ra->lock, NULL);
  pthread_cond_init (&ra->cond, NULL);
  ra->fd = fd;
  ra->buf = g_malloc (READ_BLOCK);
  ra->thread = g_thread_new ("viper read-ahead", worker, ra);
  return ra;
}

void
viper_read_ahead_next (ViperReadAhead *ra, ViperAheadItem *item)
{
  memset (item, 0, sizeof *item);
  for (;;)
    {
      if (ra->cur && ra->cur_i < ra->cur->n)
        {
          Entry *e = &ra->cur->e[ra->cur_i++];
          item->lineno = e->lineno;
          if (e->tram)
            {
              /* a tram's entry has nothing else (on_line) */
              item->kind = VIPER_AHEAD_TRAM;
              item->tram = (const ViperTram *) (ra->cur->arena + e->tram - 1);
              return;
            }
          item->kind = e->lineno ? VIPER_AHEAD_BAD : VIPER_AHEAD_WARNING;
          item->column = e->column;
          item->text = e->text;
          item->salvaged = e->salvaged;
          item->proc = e->proc;
          item->d1 = e->d1;
          return;
        }
      if (ra->cur && ra->cur->last)
        {
          item->kind = VIPER_AHEAD_END;
          return;
        }
      pthread_mutex_lock (&ra->lock);
      if (ra->cur)
        {
          /* hand the consumed batch back: the item taken from it last is
           * no longer the caller's once this call is made */
          ra->cur->next = ra->done;
          ra->done = ra->cur;
          ra->cur = NULL;
        }
      while (!ra->ready)
        pthread_cond_wait (&ra->cond, &ra->lock);
      Batch *b = ra->ready;
      ra->ready = b->next;
      if (!ra->ready)
        ra->ready_tail = NULL;
      ra->n_ready--;
      b->next = NULL;
      pthread_cond_broadcast (&ra->cond);
      pthread_mutex_unlock (&ra->lock);
      ra->cur = b;
      ra->cur_i = 0;
      ra->bytes += b->bytes;
    }
}

const ViperTram *
viper_read_ahead_next_tram (ViperReadAhead *ra)
{
  Batch *b = ra->cur;
  if (G_UNLIKELY (!b || ra->cur_i >= b->n))
    return NULL;
  const Entry *e = &b->e[ra->cur_i];
  if (G_UNLIKELY (!e->tram))
    return NULL;
  ra->cur_i++;
  return (const ViperTram *) (b->arena + e->tram - 1);
}

const ViperTram *
viper_read_ahead_peek (const ViperReadAhead *ra, guint k)
{
  if (!ra->cur || ra->cur_i + k >= ra->cur->n)
    return NULL;
  const Entry *e = &ra->cur->e[ra->cur_i + k];
  return e->tram ? (const ViperTram *) (ra->cur->arena + e->tram - 1) : NULL;
}

guint64
viper_read_ahead_bytes (const ViperReadAhead *ra)
{
  return ra->bytes;
}

void
viper_read_ahead_free (ViperReadAhead *ra)
{
  if (!ra)
    return;
  pthread_mutex_lock (&ra->lock);
  ra->stop = TRUE;
  pthread_cond_broadcast (&ra->cond);
  pthread_mutex_unlock (&ra->lock);
  g_thread_join (ra->thread);
  /* the worker is gone: everything is this thread's now */
  if (ra->cur)
    free_batches (ra->cur);
  free_batches (ra->ready);
  free_batches (ra->done);
  free_batches (ra->spare);
  viper_line_splitter_free (ra->split);
  viper_tram_fields_free (ra->scratch);
  g_free (ra->buf);
  pthread_mutex_destroy (&ra->lock);
  pthread_cond_destroy (&ra->cond);
  g_free (ra);
}
