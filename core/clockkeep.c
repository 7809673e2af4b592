/* clockkeep.c - tapes of what each trace file delivered (see clockkeep.h).
 *
 * A tape is a list of chunks (4 KiB doubling up to 1 MiB, so a thousand small
 * files do not each hold a megabyte) of items:
 *   TRAM   flags, dtype, TIME (8 bytes), PROC, REC, EV, PROCESS, NDATA,
 *          raw length, DTYPE offset, line (delta), type; the data fields;
 *          the text unless the line was in canonical form
 *   DIAG   kind, length, message (as the diag formatted it)
 *   STATE  lines read, lines rejected, bytes read
 * Integers are LEB128 varints (signed ones zigzagged), so a PICL line of
 * 30-40 characters costs about 20-30 bytes against 100-150 for a tram in the
 * pool.
 *
 * Recording (pass 1): the wrapper takes each tram from the file source as
 * soon as the file source has one (pending() then get()), and writes, in
 * order, the diagnostics the file source reported meanwhile, a STATE item
 * when its counters are not what the items so far imply, and the TRAM.  A
 * TRAM item counts one line read when it is played back.
 *
 * Playing back (pass 2): pending() plays items up to the next TRAM, which it
 * decodes straight into a tram of the pool (the same allocation and content
 * viper_tram_copy gives a file source's tram), and stops there, as a file
 * source parses only up to the next tram; the end of the tape is the end of
 * the file.  The counters and diagnostics are thus the same as the file
 * source's at every call.
 */
#include <string.h>
#include "clockkeep.h"
#include "varint.h"

enum { ITEM_TRAM = 0, ITEM_DIAG = 1, ITEM_STATE = 2, ITEM_REJECT = 3 };

#define CHUNK_MIN ((gsize) 4096)
#define CHUNK_MAX ((gsize) 1 << 20)

typedef struct {
  char *data;
  gsize used, size;
} Chunk;

typedef struct {
  char *name;               /* the source's name: its channel's name again */
  ViperTramSource file;     /* only the identity of the file it read (viper_tram_source_copy_file) */
  GArray *chunks;           /* Chunk */
  gboolean complete;        /* the file was read to its end */
  guint64 trams;
  /* writing: the free room of the last chunk (its `used` is brought up to
   * date by tape_sync; one pointer per tram, not the chunk array's) */
  char *w, *wend;
  gint64 prev_line;
  guint64 m_read, m_bad, m_bytes;   /* the counters a player has at this point */
} Tape;

struct _ViperClockKeep {
  GPtrArray *tapes;         /* Tape* */
  gsize limit, bytes, peak;
  gboolean hit;
  struct _Recorder *cur;    /* the recorder inside a call of its file source */
};

/* ---- varints ---------------------------------------------------------------- */

/* The tapes are char buffers; the encoding is core/varint.h's. */
static inline char *
put_u (char *p, guint64 v)
{
  return (char *) viper_varint_put_u ((guint8 *) p, v);
}

static inline char *
put_s (char *p, gint64 v)
{
  return (char *) viper_varint_put_s ((guint8 *) p, v);
}

static inline guint64
get_u (const char **pp)
{
  const guint8 *q = (const guint8 *) *pp;
  guint64 v = viper_varint_get_u (&q);
  *pp = (const char *) q;
  return v;
}

static inline gint64
get_s (const char **pp)
{
  const guint8 *q = (const guint8 *) *pp;
  gint64 v = viper_varint_get_s (&q);
  *pp = (const char *) q;
  return v;
}

/* ---- tapes ------------------------------------------------------------------ */

static void
tape_drop_chunks (Tape *t)
{
  for (guint i = 0; i < t->chunks->len; i++)
    g_free (g_array_index (t->chunks, Chunk, i).data);
  g_array_set_size (t->chunks, 0);
  t->w = t->wend = NULL;
}

/* The last chunk's `used` from the write position. */
static void
tape_sync (Tape *t)
{
  if (t->w && t->chunks->len)
    {
      Chunk *c = &g_array_index (t->chunks, Chunk, t->chunks->len - 1);
      c->used = (gsize) (t->w - c->data);
    }
}

static void
tape_free (gpointer p)
{
  Tape *t = p;
  tape_drop_chunks (t);
  g_array_unref (t->chunks);
  g_free (t->name);
  g_free (t);
}

/* Everything kept is given up: the replay reads the files again. */
static void
keep_give_up (ViperClockKeep *k)
{
  k->hit = TRUE;
  for (guint i = 0; i < k->tapes->len; i++)
    tape_drop_chunks (k->tapes->pdata[i]);
  k->bytes = 0;
}

/* Room for need bytes at the end of the tape, or NULL once the bound is hit. */
static char *
tape_reserve (ViperClockKeep *k, Tape *t, gsize need)
{
  if (G_LIKELY (t->w && (gsize) (t->wend - t->w) >= need))
    return t->w;
  if (k->hit)
    return NULL;
  tape_sync (t);
  Chunk *c = t->chunks->len ? &g_array_index (t->chunks, Chunk, t->chunks->len - 1) : NULL;
  gsize size = c ? MIN (c->size * 2, CHUNK_MAX) : CHUNK_MIN;
  size = MAX (size, need);
  if (size > k->limit || k->bytes > k->limit - size)
    {
      keep_give_up (k);
      return NULL;
    }
  /* the full chunk gives back what it does not use */
  if (c && c->used < c->size)
    {
      c->data = g_realloc (c->data, MAX (c->used, 1));
      k->bytes -= c->size - MAX (c->used, 1);
      c->size = MAX (c->used, 1);
    }
  Chunk n = { g_malloc (size), 0, size };
  g_array_append_val (t->chunks, n);
  k->bytes += size;
  k->peak = MAX (k->peak, k->bytes);
  t->w = n.data;
  t->wend = n.data + size;
  return n.data;
}

static inline void
tape_commit (Tape *t, char *end)
{
  t->w = end;
}

static void
tape_put_state (ViperClockKeep *k, Tape *t, guint64 read, guint64 bad, guint64 bytes)
{
  if (read == t->m_read && bad == t->m_bad && bytes == t->m_bytes)
    return;
  char *p = tape_reserve (k, t, 1 + 3 * 10);
  if (!p)
    return;
  *p++ = ITEM_STATE;
  p = put_u (p, read);
  p = put_u (p, bad);
  p = put_u (p, bytes);
  tape_commit (t, p);
  t->m_read = read;
  t->m_bad = bad;
  t->m_bytes = bytes;
}

static void
tape_put_tram (ViperClockKeep *k, Tape *t, const ViperTram *tr)
{
  guint32 nints = tr->dtype == VIPER_DTYPE_INT ? tr->ndata : 0;
  gboolean text = !(tr->flags & VIPER_TRAM_F_CANON);
  char *p = tape_reserve (k, t, 3 + 8 + 11 * 10 + (gsize) nints * 10 + (text ? tr->raw_len : 0));
  if (!p)
    return;
  *p++ = ITEM_TRAM;
  *p++ = (char) tr->flags;
  *p++ = (char) tr->dtype;
  memcpy (p, &tr->time, sizeof tr->time);
  p += sizeof tr->time;
  p = put_s (p, tr->proc);
  p = put_s (p, tr->rec);
  p = put_s (p, tr->ev);
  p = put_s (p, tr->process);
  p = put_u (p, tr->ndata);
  p = put_u (p, tr->raw_len);
  p = put_u (p, tr->data_off);
  p = put_s (p, (gint64) tr->line - t->prev_line);
  p = put_u (p, (guint16) (tr->type + 1));
  const gint64 *d = (const gint64 *) (tr + 1);
  for (guint32 i = 0; i < nints; i++)
    p = put_s (p, d[i]);
  if (text)
    {
      memcpy (p, (const char *) (d + nints), tr->raw_len);
      p += tr->raw_len;
    }
  tape_commit (t, p);
  t->prev_line = tr->line;
  t->trams++;
  t->m_read++;
}

static void
tape_put_diag (ViperClockKeep *k, Tape *t, ViperDiagKind kind, const char *message)
{
  gsize len = strlen (message);
  char *p = tape_reserve (k, t, 2 + 10 + len);
  if (!p)
    return;
  *p++ = ITEM_DIAG;
  *p++ = (char) kind;
  p = put_u (p, len);
  memcpy (p, message, len);
  tape_commit (t, p + len);
}

/* A bad line whose PROC (and D1) could be read: the replay lets its module
 * go on past it as the first reading did (spec section 1). */
static void
tape_put_reject (ViperClockKeep *k, Tape *t, gint64 proc, gint64 d1, guint64 line)
{
  char *p = tape_reserve (k, t, 1 + 3 * 10);
  if (!p)
    return;
  *p++ = ITEM_REJECT;
  p = put_s (p, proc);
  p = put_s (p, d1);
  p = put_u (p, line);
  tape_commit (t, p);
}

/* ---- the keeper ------------------------------------------------------------- */

ViperClockKeep *
viper_clock_keep_new (gsize limit)
{
  ViperClockKeep *k = g_new0 (ViperClockKeep, 1);
  k->tapes = g_ptr_array_new_with_free_func (tape_free);
  k->limit = limit;
  k->hit = limit == 0;
  return k;
}

void
viper_clock_keep_free (ViperClockKeep *k)
{
  if (!k)
    return;
  g_ptr_array_unref (k->tapes);
  g_free (k);
}

gboolean viper_clock_keep_hit_bound (const ViperClockKeep *k) { return k->hit && k->limit > 0; }
gsize viper_clock_keep_limit (const ViperClockKeep *k) { return k->limit; }
gsize viper_clock_keep_bytes (const ViperClockKeep *k) { return k->bytes; }
gsize viper_clock_keep_peak_bytes (const ViperClockKeep *k) { return k->peak; }
guint viper_clock_keep_n_tapes (const ViperClockKeep *k) { return k->tapes->len; }

guint64
viper_clock_keep_trams (const ViperClockKeep *k)
{
  guint64 n = 0;
  for (guint i = 0; !k->hit && i < k->tapes->len; i++)
    n += ((const Tape *) k->tapes->pdata[i])->trams;
  return n;
}

/* ---- recording -------------------------------------------------------------- */

typedef struct _Recorder {
  ViperTramSource base;
  ViperClockKeep *k;
  Tape *tape;
  ViperTramSource *inner;
  ViperTram *stash;         /* taken from inner, recorded, not yet handed out */
} Recorder;

static void
rec_mirror (Recorder *r)
{
  r->base.lines_read = r->inner->lines_read;
  r->base.lines_bad = r->inner->lines_bad;
  r->base.bytes_read = r->inner->bytes_read;
}

static gboolean
rec_pending (ViperTramSource *src)
{
  Recorder *r = (Recorder *) src;
  if (r->stash)
    return TRUE;
  ViperTramSource *in = r->inner;
  r->k->cur = r;
  ViperTram *t = viper_tram_pending (in) ? viper_get_tram (in) : NULL;
  r->k->cur = NULL;
  if (t)
    {
      /* the tram's own line is counted by the TRAM item */
      tape_put_state (r->k, r->tape, in->lines_read - 1, in->lines_bad, in->bytes_read);
      tape_put_tram (r->k, r->tape, t);
      r->stash = t;
    }
  else
    tape_put_state (r->k, r->tape, in->lines_read, in->lines_bad, in->bytes_read);
  rec_mirror (r);
  return t != NULL;
}

static ViperTram *
rec_get (ViperTramSource *src)
{
  Recorder *r = (Recorder *) src;
  if (!r->stash)
    rec_pending (src);
  ViperTram *t = r->stash;
  r->stash = NULL;
  return t;
}

static gboolean
rec_at_end (ViperTramSource *src)
{
  Recorder *r = (Recorder *) src;
  return !r->stash && viper_tram_source_at_end (r->inner);
}

static void
rec_ready (ViperTramSource *inner, gpointer data)
{
  (void) inner;
  Recorder *r = data;
  if (r->base.ready)
    r->base.ready (&r->base, r->base.ready_data);
}

static void
rec_attach (ViperTramSource *src, GMainContext *ctx)
{
  Recorder *r = (Recorder *) src;
  r->k->cur = r;
  viper_tram_source_attach (r->inner, ctx);
  r->k->cur = NULL;
  rec_mirror (r);
}

static void
rec_destroy (ViperTramSource *src)
{
  Recorder *r = (Recorder *) src;
  tape_sync (r->tape);
  r->tape->complete = !r->stash && viper_tram_source_at_end (r->inner);
  if (r->stash)
    viper_tram_pool_release (r->inner->pool, r->stash);
  viper_tram_source_free (r->inner);
}

static const ViperTramSourceClass recorder_class = {
  .kind = "file",
  .pending = rec_pending,
  .get = rec_get,
  .reset = NULL,
  .at_end = rec_at_end,
  .attach = rec_attach,
  .destroy = rec_destroy,
};

static void
rec_reject (gint64 proc, gint64 d1, guint32 channel, guint64 line, gpointer data)
{
  Recorder *r = data;
  tape_put_reject (r->k, r->tape, proc, d1, line);
  if (r->base.reject)
    r->base.reject (proc, d1, channel, line, r->base.reject_data);
}

ViperTramSource *
viper_clock_keep_wrap (ViperClockKeep *k, ViperTramSource *inner)
{
  Tape *t = g_new0 (Tape, 1);
  t->name = g_strdup (inner->name);
  viper_tram_source_copy_file (&t->file, inner);
  t->chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
  g_ptr_array_add (k->tapes, t);
  Recorder *r = g_new0 (Recorder, 1);
  r->base.klass = &recorder_class;
  r->base.name = g_strdup (inner->name);
  viper_tram_source_copy_file (&r->base, inner);
  r->base.pool = inner->pool;
  r->base.diag = inner->diag;
  r->base.channels = inner->channels;
  r->k = k;
  r->tape = t;
  r->inner = inner;
  viper_tram_source_set_ready_func (inner, rec_ready, r);
  viper_tram_source_set_reject_func (inner, rec_reject, r);
  return &r->base;
}

void
viper_clock_keep_diag (ViperClockKeep *k, ViperDiagKind kind, const char *message)
{
  if (k && k->cur)
    tape_put_diag (k, k->cur->tape, kind, message);
}

/* ---- playing back ----------------------------------------------------------- */

typedef struct {
  ViperTramSource base;
  ViperClockKeep *k;
  Tape *tape;
  guint32 channel;
  guint ci;                 /* chunk being played */
  gsize off;                /* in it */
  gint64 line;
  ViperTram *queued;        /* decoded, not yet taken */
  gboolean finished;        /* the tape has been played to its end */
  GMainContext *ctx;
  GSource *kick;
} Player;

static gboolean
play_kick_cb (gpointer data)
{
  Player *pl = data;
  g_source_unref (pl->kick);
  pl->kick = NULL;
  if (pl->base.ready)
    pl->base.ready (&pl->base, pl->base.ready_data);
  return G_SOURCE_REMOVE;
}

/* As a file source: the ready func is called from the main loop. */
static void
play_kick (Player *pl)
{
  if (!pl->ctx || pl->kick)
    return;
  pl->kick = g_idle_source_new ();
  g_source_set_priority (pl->kick, G_PRIORITY_DEFAULT);
  g_source_set_callback (pl->kick, play_kick_cb, pl, NULL);
  g_source_set_name (pl->kick, "viper kept trace ready");
  g_source_attach (pl->kick, pl->ctx);
}

/* core/tram.c: blocks whose every field the caller sets (as tramparse.c uses them) */
ViperTram *viper_tram_pool_alloc_uninit (ViperTramPool *pool, guint32 ndata_ints, guint32 raw_len);
ViperTram *viper_tram_pool_alloc_canon_uninit (ViperTramPool *pool, guint32 ndata_ints);

static ViperTram *
play_tram (Player *pl, const char **pp)
{
  const char *p = *pp;
  guint8 flags = (guint8) *p++;
  gint8 dtype = (gint8) *p++;
  double time;
  memcpy (&time, p, sizeof time);
  p += sizeof time;
  gint64 proc = get_s (&p);
  gint32 rec = (gint32) get_s (&p), ev = (gint32) get_s (&p), process = (gint32) get_s (&p);
  guint16 ndata = (guint16) get_u (&p);
  guint32 raw_len = (guint32) get_u (&p);
  guint16 data_off = (guint16) get_u (&p);
  pl->line += get_s (&p);
  guint16 type = (guint16) (get_u (&p) - 1);
  guint32 nints = dtype == VIPER_DTYPE_INT ? ndata : 0;
  gboolean text = !(flags & VIPER_TRAM_F_CANON);
  /* straight into the pool, as viper_tram_copy would leave it: a fresh tram
   * with the same content and classification */
  ViperTram *t = text ? viper_tram_pool_alloc_uninit (pl->base.pool, nints, raw_len)
                      : viper_tram_pool_alloc_canon_uninit (pl->base.pool, nints);
  guint32 slab = t->pool_slab;
  *t = (ViperTram) {
    .time = time,
    .proc = proc,
    .rec = rec,
    .ev = ev,
    .process = process,
    .raw_len = raw_len,
    .line = (guint32) pl->line,
    .channel = pl->channel,
    .pool_slab = slab,
    .ndata = ndata,
    .data_off = data_off,
    .type = type,
    .dtype = dtype,
    .state = VIPER_TRAM_NEW,
    .flags = flags & (VIPER_TRAM_F_IGNORED | VIPER_TRAM_F_CANON | VIPER_TRAM_F_WIDE),
  };
  gint64 *d = (gint64 *) (t + 1);
  for (guint32 i = 0; i < nints; i++)
    d[i] = get_s (&p);
  if (text)
    {
      char *raw = (char *) (d + nints);
      memcpy (raw, p, raw_len);
      raw[raw_len] = '\0';
      p += raw_len;
    }
  *pp = p;
  return t;
}

/* Play items up to the next tram (queued) or the end of the tape. */
static void
play_fill (Player *pl)
{
  while (!pl->queued && !pl->finished)
    {
      const Chunk *c = pl->ci < pl->tape->chunks->len ? &g_array_index (pl->tape->chunks, Chunk, pl->ci) : NULL;
      if (!c)
        {
          pl->finished = TRUE;
          play_kick (pl);
          return;
        }
      if (pl->off >= c->used)
        {
          pl->ci++;
          pl->off = 0;
          continue;
        }
      const char *p = c->data + pl->off;
      switch (*p++)
        {
        case ITEM_TRAM:
          pl->queued = play_tram (pl, &p);
          pl->base.lines_read++;
          break;
        case ITEM_DIAG:
          {
            ViperDiagKind kind = (ViperDiagKind) *p++;
            gsize len = get_u (&p);
            if (pl->base.diag)
              viper_diag_event (pl->base.diag, kind, "%.*s", (int) len, p);
            p += len;
            break;
          }
        case ITEM_REJECT:
          {
            gint64 proc = get_s (&p), d1 = get_s (&p);
            guint64 line = get_u (&p);
            if (pl->base.reject)
              pl->base.reject (proc, d1, pl->channel, line, pl->base.reject_data);
            break;
          }
        case ITEM_STATE:
        default:
          pl->base.lines_read = get_u (&p);
          pl->base.lines_bad = get_u (&p);
          pl->base.bytes_read = get_u (&p);
          break;
        }
      pl->off = (gsize) (p - c->data);
    }
}

static gboolean
play_pending (ViperTramSource *src)
{
  Player *pl = (Player *) src;
  play_fill (pl);
  return pl->queued != NULL;
}

static ViperTram *
play_get (ViperTramSource *src)
{
  Player *pl = (Player *) src;
  play_fill (pl);
  ViperTram *t = pl->queued;
  pl->queued = NULL;
  return t;
}

static gboolean
play_at_end (ViperTramSource *src)
{
  Player *pl = (Player *) src;
  return pl->finished && !pl->queued;
}

static gboolean
play_reset (ViperTramSource *src, GError **error)
{
  (void) error;
  Player *pl = (Player *) src;
  if (pl->queued)
    viper_tram_pool_release (pl->base.pool, pl->queued);
  pl->queued = NULL;
  pl->ci = 0;
  pl->off = 0;
  pl->line = 0;
  pl->finished = FALSE;
  pl->base.lines_read = pl->base.lines_bad = pl->base.bytes_read = 0;
  play_kick (pl);
  return TRUE;
}

static void
play_attach (ViperTramSource *src, GMainContext *ctx)
{
  Player *pl = (Player *) src;
  if (pl->kick)
    {
      g_source_destroy (pl->kick);
      g_source_unref (pl->kick);
      pl->kick = NULL;
    }
  if (pl->ctx)
    g_main_context_unref (pl->ctx);
  pl->ctx = ctx ? g_main_context_ref (ctx) : g_main_context_ref_thread_default ();
  play_kick (pl);
}

static void
play_destroy (ViperTramSource *src)
{
  Player *pl = (Player *) src;
  if (pl->kick)
    {
      g_source_destroy (pl->kick);
      g_source_unref (pl->kick);
    }
  if (pl->ctx)
    g_main_context_unref (pl->ctx);
  if (pl->queued)
    viper_tram_pool_release (pl->base.pool, pl->queued);
}

static const ViperTramSourceClass player_class = {
  .kind = "file",
  .pending = play_pending,
  .get = play_get,
  .reset = play_reset,
  .at_end = play_at_end,
  .attach = play_attach,
  .destroy = play_destroy,
};

ViperTramSource *
viper_clock_keep_source_new (ViperClockKeep *k, guint i, ViperTramPool *pool, ViperDiag *diag,
                             ViperChannels *channels)
{
  if (k->hit || i >= k->tapes->len || !((Tape *) k->tapes->pdata[i])->complete)
    return NULL;
  tape_sync (k->tapes->pdata[i]);
  Player *pl = g_new0 (Player, 1);
  pl->base.klass = &player_class;
  pl->tape = k->tapes->pdata[i];
  pl->base.name = g_strdup (pl->tape->name);
  viper_tram_source_copy_file (&pl->base, &pl->tape->file);
  pl->base.pool = pool;
  pl->base.diag = diag;
  pl->base.channels = channels;
  pl->k = k;
  pl->channel = viper_channels_add (channels, pl->tape->name);
  return &pl->base;
}
