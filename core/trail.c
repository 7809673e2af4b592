/* trail.c - the logged run order and its checkpoints (trail.h says why).
 *
 * Entries are appended to 1 MiB chunks, never split across two, so a
 * position is (chunk, byte).  One entry: the growth of the read and rejected
 * counts since the previous entry, PROC, SEQ, REC, EV and PROCESS as zigzag
 * varints, TIME and the adjusted time as raw doubles (exact), line, channel,
 * type, flags, DTYPE, NDATA, the DTYPE offset and the text length as
 * varints, then the data fields (zigzag varints) and, for a line that was
 * not in canonical form, its text.  A Farm tram takes about 35 bytes.
 */
#include <math.h>
#include <string.h>
#include "trail.h"
#include "varint.h"
#include "model.h"

#define CHUNK_BYTES ((gsize) 1 << 20)

/* an entry's mark: not applied yet (logged ahead), changed nothing, changed the state */
enum { MARK_UNKNOWN, MARK_SAME, MARK_CHANGED };

typedef struct {
  guint8 *data;
  gsize len, cap;
} Chunk;

struct _ViperTrail {
  gsize max_bytes;
  double decay;
  const ViperParadigm *paradigm; /* its timeless trams do not move a position's clock, as they
                                  * do not move the run's (viper_trail_set_paradigm) */
  GArray *chunks;           /* of Chunk */
  gsize chunk_bytes;        /* capacity of all chunks */
  ViperTrailPos end;        /* the position after the last entry (offsets maintained) */
  GArray *ckpts;            /* of ViperTrailCkpt, in position order */
  GByteArray *marks;        /* per entry: MARK_* (what it did when last applied) */
  gsize ckpt_bytes;
  guint64 every, first_every;
  gboolean failed;
  gboolean have_final;
  guint64 final_read, final_rejected;

  /* the entry viper_trail_peek decoded */
  ViperTram *scratch;
  gsize scratch_cap;
  guint next_chunk;
  guint32 next_off;
  guint64 peek_read, peek_rejected;
  const ViperTram *peeked;
};

static void
offsets_copy_into (GHashTable *dst, GHashTable *src)
{
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_remove_all (dst);
  g_hash_table_iter_init (&it, src);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      gint64 *key = g_new (gint64, 1);
      *key = *(gint64 *) k;
      double *val = g_new (double, 1);
      *val = *(double *) v;
      g_hash_table_insert (dst, key, val);
    }
}

void
viper_trail_pos_init (ViperTrailPos *p)
{
  memset (p, 0, sizeof *p);
  p->clock = -INFINITY;
  p->offsets = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
}

void
viper_trail_pos_clear (ViperTrailPos *p)
{
  if (p->offsets)
    g_hash_table_destroy (p->offsets);
  p->offsets = NULL;
}

void
viper_trail_pos_copy (ViperTrailPos *dst, const ViperTrailPos *src)
{
  GHashTable *o = dst->offsets;
  if (!o)
    o = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  *dst = *src;
  dst->offsets = o;
  offsets_copy_into (o, src->offsets);
}

static void
ckpt_clear (ViperTrailCkpt *c)
{
  viper_trail_pos_clear (&c->pos);
  viper_model_ckpt_free (c->model);
  c->model = NULL;
}

static gsize
ckpt_size (const ViperTrailCkpt *c)
{
  return sizeof *c + g_hash_table_size (c->pos.offsets) * 64 + viper_model_ckpt_bytes (c->model);
}

ViperTrail *
viper_trail_new (gsize max_bytes, double decay)
{
  ViperTrail *tr = g_new0 (ViperTrail, 1);
  tr->max_bytes = max_bytes ? max_bytes : VIPER_TRAIL_DEFAULT_MAX_BYTES;
  tr->decay = decay;
  tr->chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
  tr->ckpts = g_array_new (FALSE, FALSE, sizeof (ViperTrailCkpt));
  tr->marks = g_byte_array_new ();
  viper_trail_pos_init (&tr->end);
  tr->every = tr->first_every = VIPER_TRAIL_FIRST_EVERY;
  return tr;
}

void
viper_trail_set_paradigm (ViperTrail *tr, const ViperParadigm *p)
{
  tr->paradigm = p;
}

static void
drop_all (ViperTrail *tr)
{
  for (guint i = 0; i < tr->chunks->len; i++)
    g_free (g_array_index (tr->chunks, Chunk, i).data);
  g_array_set_size (tr->chunks, 0);
  tr->chunk_bytes = 0;
  for (guint i = 0; i < tr->ckpts->len; i++)
    ckpt_clear (&g_array_index (tr->ckpts, ViperTrailCkpt, i));
  g_array_set_size (tr->ckpts, 0);
  tr->ckpt_bytes = 0;
  g_byte_array_set_size (tr->marks, 0);
  GHashTable *o = tr->end.offsets;
  g_hash_table_remove_all (o);
  memset (&tr->end, 0, sizeof tr->end);
  tr->end.clock = -INFINITY;
  tr->end.offsets = o;
  tr->every = tr->first_every;
  tr->have_final = FALSE;
  tr->peeked = NULL;
}

void
viper_trail_set_first_every (ViperTrail *tr, guint64 every)
{
  tr->first_every = MAX (every, 1);
  if (!tr->end.index)
    tr->every = tr->first_every;
}

void
viper_trail_clear (ViperTrail *tr)
{
  drop_all (tr);
  tr->failed = FALSE;
}

void
viper_trail_free (ViperTrail *tr)
{
  if (!tr)
    return;
  drop_all (tr);
  viper_trail_pos_clear (&tr->end);
  g_array_unref (tr->chunks);
  g_array_unref (tr->ckpts);
  g_byte_array_unref (tr->marks);
  g_free (tr->scratch);
  g_free (tr);
}

/* ---- encoding ----------------------------------------------------------------- */

static inline guint8 *
put_d (guint8 *p, double v)
{
  memcpy (p, &v, sizeof v);
  return p + sizeof v;
}

static inline const guint8 *
get_d (const guint8 *p, double *v)
{
  memcpy (v, p, sizeof *v);
  return p + sizeof *v;
}

static void
offset_step (GHashTable *offsets, double decay, const ViperTram *t)
{
  /* the run's formula (core/run.c, viper_run_transfer_next) */
  double *o = g_hash_table_lookup (offsets, &t->proc);
  if (!o)
    {
      gint64 *key = g_new (gint64, 1);
      *key = t->proc;
      o = g_new0 (double, 1);
      g_hash_table_insert (offsets, key, o);
    }
  double gap = t->adjusted - t->time;
  if (gap > *o)
    *o = gap;
  *o *= decay;
}

gboolean
viper_trail_append (ViperTrail *tr, const ViperTram *t, guint64 read, guint64 rejected)
{
  if (tr->failed)
    return FALSE;
  gboolean is_int = t->dtype == VIPER_DTYPE_INT;
  const char *raw = viper_tram_raw (t);
  gsize need = 16 * 10 + 2 * 8 + (is_int ? (gsize) t->ndata * 10 : 0) + (raw ? t->raw_len : 0);
  Chunk *c = tr->chunks->len ? &g_array_index (tr->chunks, Chunk, tr->chunks->len - 1) : NULL;
  if (!c || c->cap - c->len < need)
    {
      gsize cap = MAX (CHUNK_BYTES, need);
      if (tr->chunk_bytes + cap + tr->ckpt_bytes + tr->marks->len > tr->max_bytes)
        {
          drop_all (tr);
          tr->failed = TRUE;
          return FALSE;
        }
      Chunk nc = { g_malloc (cap), 0, cap };
      g_array_append_val (tr->chunks, nc);
      tr->chunk_bytes += cap;
      c = &g_array_index (tr->chunks, Chunk, tr->chunks->len - 1);
    }
  guint8 *p = c->data + c->len;
  p = viper_varint_put_u (p, read - tr->end.read);
  p = viper_varint_put_u (p, rejected - tr->end.rejected);
  p = viper_varint_put_s (p, t->proc);
  p = viper_varint_put_s (p, t->seq);
  p = viper_varint_put_s (p, t->rec);
  p = viper_varint_put_s (p, t->ev);
  p = viper_varint_put_s (p, t->process);
  p = put_d (p, t->time);
  p = put_d (p, t->adjusted);
  p = viper_varint_put_u (p, t->line);
  p = viper_varint_put_u (p, t->channel);
  p = viper_varint_put_u (p, t->type);
  *p++ = t->flags;
  *p++ = (guint8) t->dtype;
  p = viper_varint_put_u (p, t->ndata);
  p = viper_varint_put_u (p, t->data_off);
  p = viper_varint_put_u (p, t->raw_len);
  if (is_int)
    {
      const gint64 *d = viper_tram_data (t);
      for (guint i = 0; i < t->ndata; i++)
        p = viper_varint_put_s (p, d[i]);
    }
  if (raw)
    {
      memcpy (p, raw, t->raw_len);
      p += t->raw_len;
    }
  c->len = (gsize) (p - c->data);
  tr->end.index++;
  tr->end.chunk = tr->chunks->len - 1;
  tr->end.off = (guint32) c->len;
  tr->end.read = read;
  tr->end.rejected = rejected;
  if (t->adjusted > tr->end.clock && !viper_paradigm_timeless (tr->paradigm, t))
    tr->end.clock = t->adjusted;
  if (t->flags & VIPER_TRAM_F_IGNORED)
    tr->end.ignored++;
  offset_step (tr->end.offsets, tr->decay, t);
  guint8 m = MARK_UNKNOWN;
  g_byte_array_append (tr->marks, &m, 1);
  tr->have_final = FALSE;
  return TRUE;
}

gboolean
viper_trail_ckpt_due (const ViperTrail *tr)
{
  return !tr->failed && tr->end.index && tr->end.index % tr->every == 0;
}

void
viper_trail_add_ckpt (ViperTrail *tr, guint64 steps, ViperModelCkpt *model)
{
  ViperTrailCkpt c = { .steps = steps, .model = model };
  viper_trail_pos_copy (&c.pos, &tr->end);
  if (tr->ckpts->len >= VIPER_TRAIL_MAX_CKPTS)
    {
      /* full: keep every other one (the 2nd, 4th, ... are at multiples of
       * the doubled spacing) */
      guint k = 0;
      for (guint i = 0; i < tr->ckpts->len; i++)
        {
          ViperTrailCkpt *x = &g_array_index (tr->ckpts, ViperTrailCkpt, i);
          if (i % 2 == 1)
            g_array_index (tr->ckpts, ViperTrailCkpt, k++) = *x;
          else
            {
              tr->ckpt_bytes -= ckpt_size (x);
              ckpt_clear (x);
            }
        }
      g_array_set_size (tr->ckpts, k);
      tr->every *= 2;
      if (c.pos.index % tr->every != 0)
        {
          ckpt_clear (&c);
          return;
        }
    }
  gsize size = ckpt_size (&c);
  if (tr->chunk_bytes + tr->ckpt_bytes + tr->marks->len + size > tr->max_bytes)
    {
      /* no room for the model: the trail still seeks, from an earlier
       * checkpoint or the start */
      viper_model_ckpt_free (c.model);
      c.model = NULL;
      size = ckpt_size (&c);
    }
  tr->ckpt_bytes += size;
  g_array_append_val (tr->ckpts, c);
}

void
viper_trail_set_final (ViperTrail *tr, guint64 read, guint64 rejected)
{
  tr->have_final = TRUE;
  tr->final_read = read;
  tr->final_rejected = rejected;
}

gboolean
viper_trail_final (const ViperTrail *tr, guint64 *read, guint64 *rejected)
{
  if (!tr->have_final)
    return FALSE;
  *read = tr->final_read;
  *rejected = tr->final_rejected;
  return TRUE;
}

guint64 viper_trail_length (const ViperTrail *tr) { return tr->end.index; }
gboolean viper_trail_failed (const ViperTrail *tr) { return tr->failed; }
gsize viper_trail_bytes (const ViperTrail *tr) { return tr->chunk_bytes + tr->ckpt_bytes + tr->marks->len; }
gsize viper_trail_max_bytes (const ViperTrail *tr) { return tr->max_bytes; }
guint64 viper_trail_every (const ViperTrail *tr) { return tr->every; }
guint viper_trail_n_ckpts (const ViperTrail *tr) { return tr->ckpts->len; }
double viper_trail_decay (const ViperTrail *tr) { return tr->decay; }

void
viper_trail_set_changed (ViperTrail *tr, guint64 index, gboolean changed)
{
  if (index < tr->marks->len)
    tr->marks->data[index] = changed ? MARK_CHANGED : MARK_SAME;
}

int
viper_trail_changed (const ViperTrail *tr, guint64 index)
{
  if (index >= tr->marks->len || tr->marks->data[index] == MARK_UNKNOWN)
    return -1;
  return tr->marks->data[index] == MARK_CHANGED;
}

const ViperTrailCkpt *
viper_trail_ckpt (const ViperTrail *tr, guint i)
{
  return i < tr->ckpts->len ? &g_array_index (tr->ckpts, ViperTrailCkpt, i) : NULL;
}

void
viper_trail_pos_end (const ViperTrail *tr, ViperTrailPos *p)
{
  viper_trail_pos_copy (p, &tr->end);
}

const ViperTram *
viper_trail_peek (ViperTrail *tr, const ViperTrailPos *p, guint64 *read, guint64 *rejected)
{
  g_return_val_if_fail (p->index < tr->end.index, NULL);
  guint ci = p->chunk;
  guint32 off = p->off;
  if (off >= g_array_index (tr->chunks, Chunk, ci).len)
    {
      ci++;
      off = 0;
    }
  const Chunk *c = &g_array_index (tr->chunks, Chunk, ci);
  const guint8 *q = c->data + off;
  guint64 dr, dj, line, channel, type, ndata, data_off, raw_len;
  gint64 proc, seq, rec, ev, process;
  double time, adjusted;
  dr = viper_varint_get_u (&q);
  dj = viper_varint_get_u (&q);
  proc = viper_varint_get_s (&q);
  seq = viper_varint_get_s (&q);
  rec = viper_varint_get_s (&q);
  ev = viper_varint_get_s (&q);
  process = viper_varint_get_s (&q);
  q = get_d (q, &time);
  q = get_d (q, &adjusted);
  line = viper_varint_get_u (&q);
  channel = viper_varint_get_u (&q);
  type = viper_varint_get_u (&q);
  guint8 flags = *q++;
  gint8 dtype = (gint8) *q++;
  ndata = viper_varint_get_u (&q);
  data_off = viper_varint_get_u (&q);
  raw_len = viper_varint_get_u (&q);
  gboolean is_int = dtype == VIPER_DTYPE_INT;
  gsize size = sizeof (ViperTram) + (is_int ? ndata * sizeof (gint64) : 0) + raw_len + 1;
  if (size > tr->scratch_cap)
    {
      g_free (tr->scratch);
      tr->scratch_cap = MAX (size, 256);
      tr->scratch = g_malloc (tr->scratch_cap);
    }
  ViperTram *t = tr->scratch;
  memset (t, 0, sizeof *t);
  t->proc = proc;
  t->seq = seq;
  t->rec = (gint32) rec;
  t->ev = (gint32) ev;
  t->process = (gint32) process;
  t->time = time;
  t->adjusted = adjusted;
  t->line = (guint32) line;
  t->channel = (guint32) channel;
  t->type = (guint16) type;
  t->flags = flags;
  t->dtype = dtype;
  t->ndata = (guint16) ndata;
  t->data_off = (guint16) data_off;
  t->raw_len = (guint32) raw_len;
  t->state = VIPER_TRAM_TRANSFERRED;
  if (is_int)
    {
      gint64 *d = (gint64 *) (t + 1);
      for (guint i = 0; i < ndata; i++)
        d[i] = viper_varint_get_s (&q);
    }
  if (!(flags & VIPER_TRAM_F_CANON))
    {
      char *text = (char *) (t + 1) + (is_int ? ndata * sizeof (gint64) : 0);
      memcpy (text, q, raw_len);
      text[raw_len] = '\0';
      q += raw_len;
    }
  tr->next_chunk = ci;
  tr->next_off = (guint32) (q - c->data);
  tr->peek_read = p->read + dr;
  tr->peek_rejected = p->rejected + dj;
  tr->peeked = t;
  if (read)
    *read = tr->peek_read;
  if (rejected)
    *rejected = tr->peek_rejected;
  return t;
}

void
viper_trail_skip (ViperTrail *tr, ViperTrailPos *p)
{
  g_return_if_fail (tr->peeked != NULL);
  p->index++;
  p->chunk = tr->next_chunk;
  p->off = tr->next_off;
  p->read = tr->peek_read;
  p->rejected = tr->peek_rejected;
  tr->peeked = NULL;
}

void
viper_trail_advance (ViperTrail *tr, ViperTrailPos *p)
{
  const ViperTram *t = tr->peeked;
  g_return_if_fail (t != NULL);
  p->index++;
  p->chunk = tr->next_chunk;
  p->off = tr->next_off;
  p->read = tr->peek_read;
  p->rejected = tr->peek_rejected;
  if (t->adjusted > p->clock && !viper_paradigm_timeless (tr->paradigm, t))
    p->clock = t->adjusted;
  if (t->flags & VIPER_TRAM_F_IGNORED)
    p->ignored++;
  offset_step (p->offsets, tr->decay, t);
  tr->peeked = NULL;
}
