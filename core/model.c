/* model.c - the program-state model base.
 *
 * The base applies a tram through the paradigm's class and keeps what is
 * common: the clock, counters, and the history window.  History entries are
 * appended in run order; because the run is not sorted by time, trimming
 * drops entries from the front while they are older than clock - interval,
 * which keeps memory bounded by the window without a sort.
 *
 * Beside the history the base keeps an index by module (model.h explains
 * the refs): appending costs one hash lookup (none for a run of entries of
 * the same module) and a ref; trimming drops the dropped entries' refs with
 * one binary search per module list.  Arrows a paradigm completes later (it
 * writes t1 in place) wait in the module's `open` list; the list is swept
 * when it has doubled since the last sweep, which keeps appends amortised
 * O(1) and turns each completed arrow's length into the module's arrow_span.
 */
#include <math.h>
#include "model.h"
#include "source.h"

struct _ViperHistoryIndex {
  GHashTable *mods;         /* gint64 module (the key lives in the value) -> ViperHistoryModule */
  ViperHistoryModule *last; /* the module of the previous append */
  gint64 last_id;
};

typedef struct {
  ViperHistoryModule pub;
  gint64 id;
} IndexModule;

typedef struct {
  gint64 id;
  GArray *states, *arrows;  /* ViperHistoryRef */
  double state_disorder, arrow_disorder, arrow_span;
} StashModule;

struct _ViperHistoryStash {
  GArray *history;
  guint dropped;
  guint64 applied;
  GArray *mods;             /* of StashModule */
};

static void
index_module_free (gpointer p)
{
  IndexModule *x = p;
  g_array_unref (x->pub.states);
  g_array_unref (x->pub.arrows);
  g_array_unref (x->pub.open);
  g_free (x);
}

static ViperHistoryIndex *
index_new (void)
{
  ViperHistoryIndex *x = g_new0 (ViperHistoryIndex, 1);
  x->mods = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, index_module_free);
  return x;
}

static void
index_clear (ViperHistoryIndex *x)
{
  g_hash_table_remove_all (x->mods);
  x->last = NULL;
}

static ViperHistoryModule *
index_module (ViperHistoryIndex *x, gint64 id)
{
  if (x->last && x->last_id == id)
    return x->last;
  IndexModule *im = g_hash_table_lookup (x->mods, &id);
  if (!im)
    {
      im = g_new0 (IndexModule, 1);
      im->id = id;
      im->pub.states = g_array_new (FALSE, FALSE, sizeof (ViperHistoryRef));
      im->pub.arrows = g_array_new (FALSE, FALSE, sizeof (ViperHistoryRef));
      im->pub.open = g_array_new (FALSE, FALSE, sizeof (guint64));
      g_hash_table_insert (x->mods, &im->id, im);
    }
  x->last = &im->pub;
  x->last_id = id;
  return x->last;
}

static void
refs_append (GArray *refs, double *disorder, guint64 pos, double t0, gint32 state)
{
  double prev = refs->len ? g_array_index (refs, ViperHistoryRef, refs->len - 1).t0_max : -INFINITY;
  if (t0 < prev)
    *disorder = MAX (*disorder, prev - t0);
  else if (isnan (t0))
    *disorder = INFINITY;   /* t0_max is not its t0: no bound */
  ViperHistoryRef r = { pos, t0 > prev ? t0 : prev, state, 0 };
  g_array_append_val (refs, r);
}

/* refs are in position order: the trimmed ones are a prefix */
static void
refs_drop_before (GArray *refs, guint64 pos)
{
  guint lo = 0, hi = refs->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (refs, ViperHistoryRef, mid).pos < pos)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo)
    g_array_remove_range (refs, 0, lo);
}

/* Keep the arrows still underway; the lengths of the arrived ones now bound arrow_span. */
static void
open_sweep (const ViperModel *m, ViperHistoryModule *h)
{
  guint k = 0;
  for (guint i = 0; i < h->open->len; i++)
    {
      guint64 pos = g_array_index (h->open, guint64, i);
      const ViperHistoryEntry *e = viper_model_history_at (m, pos);
      if (!e)
        continue;
      if (isnan (e->t1))
        g_array_index (h->open, guint64, k++) = pos;
      else if (e->t1 - e->t0 > h->arrow_span)
        h->arrow_span = e->t1 - e->t0;
    }
  g_array_set_size (h->open, k);
  h->open_kept = k;
}

static void
index_trim (ViperModel *m)
{
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, m->history_index->mods);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      ViperHistoryModule *h = v;
      refs_drop_before (h->states, m->history_dropped);
      refs_drop_before (h->arrows, m->history_dropped);
      open_sweep (m, h);
    }
}

void
viper_model_init (ViperModel *m, const ViperModelClass *klass, const ViperParadigm *p, ViperSetup *setup)
{
  m->klass = klass;
  m->paradigm = p;
  m->setup = setup;
  m->damage = viper_damage_new ();
  m->clock = -INFINITY;
  m->start = INFINITY;
  m->history = g_array_new (FALSE, FALSE, sizeof (ViperHistoryEntry));
  m->history_index = index_new ();
}

static void stash_free (struct _ViperHistoryStash *st);
static void reset_all (ViperModel *m);

void
viper_model_finish (ViperModel *m)
{
  g_clear_pointer (&m->modules, g_array_unref);
  stash_free (m->stash);
  m->stash = NULL;
  viper_damage_free (m->damage);
  m->damage = NULL;
  if (m->history)
    g_array_unref (m->history);
  m->history = NULL;
  if (m->history_index)
    {
      g_hash_table_destroy (m->history_index->mods);
      g_free (m->history_index);
    }
  m->history_index = NULL;
}

void
viper_model_free (ViperModel *m)
{
  if (!m)
    return;
  if (m->klass->destroy)
    m->klass->destroy (m);
  else
    {
      viper_model_finish (m);
      g_free (m);
    }
}

static void
trim_history (ViperModel *m)
{
  if (m->history_interval <= 0 || !m->history->len)
    return;
  double limit = m->clock - m->history_interval;
  guint n = 0;
  while (n < m->history->len)
    {
      const ViperHistoryEntry *e = &g_array_index (m->history, ViperHistoryEntry, n);
      double end = isnan (e->t1) ? INFINITY : MAX (e->t0, e->t1);
      if (end >= limit)
        break;
      n++;
    }
  /* remove in chunks so trimming stays amortised O(1) per entry */
  if (n > 0 && (n >= 1024 || n * 4 >= m->history->len))
    {
      g_array_remove_range (m->history, 0, n);
      m->history_dropped += n;
      index_trim (m);
    }
}

gboolean
viper_model_apply (ViperModel *m, const ViperTram *t)
{
  /* the run's range comes from the trams that carry a module's clock: a
   * definition dated 0 among epoch times would stretch it to 1970 */
  if (!viper_paradigm_timeless (m->paradigm, t))
    {
      if (t->adjusted > m->clock)
        {
          m->clock = t->adjusted;
          viper_damage_add (m->damage, VIPER_AREA_CLOCK, 0, 0);
        }
      if (t->adjusted < m->start)
        m->start = t->adjusted;
    }
  m->applied++;
  gboolean changed = (t->flags & VIPER_TRAM_F_IGNORED) ? FALSE : m->klass->apply (m, t);
  if (changed)
    m->changes++;
  trim_history (m);
  return changed;
}

void
viper_model_reset (ViperModel *m)
{
  stash_free (m->stash);
  m->stash = NULL;
  g_clear_pointer (&m->modules, g_array_unref);
  reset_all (m);
}

static void stash_take (ViperModel *m);

void
viper_model_rewind_start (ViperModel *m)
{
  if (m->history_interval >= 0 && m->applied && !m->off_run && (!m->stash || m->applied > m->stash->applied))
    stash_take (m);
  m->rewinding = TRUE;
  reset_all (m);
  m->rewinding = FALSE;
}

static void
reset_all (ViperModel *m)
{
  m->clock = -INFINITY;
  m->start = INFINITY;
  m->applied = m->changes = m->inconsistent = 0;
  m->off_run = FALSE;
  g_array_set_size (m->history, 0);
  m->history_dropped = 0;
  index_clear (m->history_index);
  /* the stash stays (viper_model_reset drops it): the same run starts again */
  viper_damage_clear (m->damage);
  if (m->klass->reset)
    m->klass->reset (m);
  viper_damage_add (m->damage, VIPER_AREA_ALL, 0, 0);
}

const char *
viper_model_program_state (const ViperModel *m)
{
  return m->klass->program_state ? m->klass->program_state (m) : "running";
}

char *
viper_model_all_blocked (const ViperModel *m)
{
  return m && m->klass->all_blocked ? m->klass->all_blocked (m) : NULL;
}

void
viper_model_set_collection_end (ViperModel *m, ViperCollectionEnd e)
{
  if (m->collection_end == e)
    return;
  m->collection_end = e;
  viper_damage_add (m->damage, VIPER_AREA_ALL, 0, 0);
}

void
viper_model_set_modules (ViperModel *m, const GArray *procs)
{
  g_clear_pointer (&m->modules, g_array_unref);
  if (procs)
    {
      m->modules = g_array_sized_new (FALSE, FALSE, sizeof (gint64), procs->len);
      for (guint i = 0; i < procs->len; i++)
        if (g_array_index (procs, gint64, i) >= 0)
          g_array_append_val (m->modules, g_array_index (procs, gint64, i));
    }
  if (m->klass->modules_known)
    m->klass->modules_known (m);
}

const GArray *
viper_model_modules (const ViperModel *m)
{
  return m->modules;
}

void
viper_model_inconsistent (ViperModel *m, const ViperTram *t, const char *fmt, ...)
{
  m->inconsistent++;
  if (!m->diag)
    return;
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* with several files or connections a line number alone does not say where */
  const char *where = m->channels ? viper_channels_name (m->channels, t->channel) : NULL;
  viper_diag_event (m->diag, VIPER_DIAG_WARNING, "inconsistent: proc %" G_GINT64_FORMAT " seq %" G_GINT64_FORMAT
                    " (%s%s%u): %s", t->proc, t->seq, where && *where ? where : "line ", where && *where ? ":" : "",
                    t->line, msg);
  g_free (msg);
}

void
viper_model_set_history (ViperModel *m, double interval)
{
  stash_free (m->stash);
  m->stash = NULL;
  m->history_interval = interval;
  if (interval < 0)
    {
      m->history_dropped += m->history->len;
      g_array_set_size (m->history, 0);
      index_clear (m->history_index);
    }
  trim_history (m);
}

void
viper_model_history_add (ViperModel *m, const ViperHistoryEntry *e)
{
  if (m->history_interval < 0)
    return;
  guint64 pos = (guint64) m->history_dropped + m->history->len;
  g_array_append_vals (m->history, e, 1);
  ViperHistoryModule *h = index_module (m->history_index, e->module);
  if (e->other < 0)
    {
      refs_append (h->states, &h->state_disorder, pos, e->t0, e->state);
      return;
    }
  refs_append (h->arrows, &h->arrow_disorder, pos, e->t0, e->state);
  if (!isnan (e->t1))
    h->arrow_span = MAX (h->arrow_span, e->t1 - e->t0);
  else
    {
      g_array_append_val (h->open, pos);
      if (h->open->len >= 2 * h->open_kept + 16)
        open_sweep (m, h);
    }
}

void
viper_model_history_arrow_arrived (ViperModel *m, guint64 pos, double t1)
{
  ViperHistoryEntry *e = (ViperHistoryEntry *) viper_model_history_at (m, pos);
  if (!e || e->other < 0)
    return;
  e->t1 = t1;
  ViperHistoryModule *h = index_module (m->history_index, e->module);
  if (!isnan (t1) && t1 - e->t0 > h->arrow_span)
    h->arrow_span = t1 - e->t0;
}

static guint refs_below (const GArray *refs, guint64 pos);

void
viper_model_history_set_state (ViperModel *m, guint64 pos, gint32 state)
{
  ViperHistoryEntry *e = (ViperHistoryEntry *) viper_model_history_at (m, pos);
  if (!e || e->other >= 0 || e->state == state)
    return;
  e->state = state;
  ViperHistoryModule *h = index_module (m->history_index, e->module);
  /* paradigms decide the states of recent changes: look from the end first */
  GArray *refs = h->states;
  guint k = refs->len;
  for (guint tries = 0; k > 0 && tries < 8 && g_array_index (refs, ViperHistoryRef, k - 1).pos > pos; tries++)
    k--;
  if (k > 0 && g_array_index (refs, ViperHistoryRef, k - 1).pos > pos)
    k = refs_below (refs, pos) + 1;
  if (k > 0 && k <= refs->len && g_array_index (refs, ViperHistoryRef, k - 1).pos == pos)
    g_array_index (refs, ViperHistoryRef, k - 1).state = state;
}

const ViperHistoryModule *
viper_model_history_module (const ViperModel *m, gint64 module)
{
  if (!m->history_index)
    return NULL;
  IndexModule *im = g_hash_table_lookup (m->history_index->mods, &module);
  return im ? &im->pub : NULL;
}

guint
viper_history_refs_seek (const GArray *refs, double t)
{
  guint lo = 0, hi = refs->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (refs, ViperHistoryRef, mid).t0_max < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ---- checkpoints ---------------------------------------------------------------- */

struct _ViperModelCkpt {
  const ViperModelClass *klass;
  gpointer snap;
  gsize bytes;
  double clock, start;
  guint64 applied, changes, inconsistent;
  guint64 history_total;    /* history_dropped + history->len */
  guint history_dropped;
  GArray *open;             /* guint64 positions of the arrows underway */
};

gboolean
viper_model_can_checkpoint (const ViperModel *m)
{
  return m->klass->snapshot && m->klass->restore && m->klass->snapshot_free;
}

ViperModelCkpt *
viper_model_checkpoint (const ViperModel *m)
{
  if (!viper_model_can_checkpoint (m))
    return NULL;
  ViperModelCkpt *c = g_new0 (ViperModelCkpt, 1);
  c->klass = m->klass;
  c->snap = m->klass->snapshot (m, &c->bytes);
  c->clock = m->clock;
  c->start = m->start;
  c->applied = m->applied;
  c->changes = m->changes;
  c->inconsistent = m->inconsistent;
  c->history_dropped = m->history_dropped;
  c->history_total = (guint64) m->history_dropped + m->history->len;
  c->open = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* every arrow underway is in its module's open list (which may also hold
   * arrived ones until the next sweep) */
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, m->history_index->mods);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      const ViperHistoryModule *h = v;
      for (guint i = 0; i < h->open->len; i++)
        {
          guint64 pos = g_array_index (h->open, guint64, i);
          const ViperHistoryEntry *e = viper_model_history_at (m, pos);
          if (e && isnan (e->t1))
            g_array_append_val (c->open, pos);
        }
    }
  c->bytes += sizeof *c + c->open->len * sizeof (guint64);
  return c;
}

void
viper_model_ckpt_free (ViperModelCkpt *c)
{
  if (!c)
    return;
  if (c->snap)
    c->klass->snapshot_free (c->snap);
  g_array_unref (c->open);
  g_free (c);
}

gsize
viper_model_ckpt_bytes (const ViperModelCkpt *c)
{
  return c ? c->bytes : 0;
}

GHashTable *
viper_int64_table_copy (GHashTable *table)
{
  GHashTable *dst = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_hash_table_insert (dst, g_memdup2 (k, sizeof (gint64)), v);
  return dst;
}

/* The furthest history the model has had: restoring copies a prefix of it,
 * so a checkpoint ahead of the model (a forward seek) restores as well as
 * one behind.  Taken again whenever the model has gone further.  Its entries
 * are a later version of every checkpoint's: they differ only by arrivals
 * written in place since, which the checkpoint lists (its open arrows). */
static void
stash_free (struct _ViperHistoryStash *st)
{
  if (!st)
    return;
  g_array_unref (st->history);
  for (guint i = 0; i < st->mods->len; i++)
    {
      StashModule *x = &g_array_index (st->mods, StashModule, i);
      g_array_unref (x->states);
      g_array_unref (x->arrows);
    }
  g_array_unref (st->mods);
  g_free (st);
}

static void
stash_take (ViperModel *m)
{
  stash_free (m->stash);
  struct _ViperHistoryStash *st = g_new0 (struct _ViperHistoryStash, 1);
  st->history = g_array_copy (m->history);
  st->dropped = m->history_dropped;
  st->applied = m->applied;
  st->mods = g_array_new (FALSE, FALSE, sizeof (StashModule));
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, m->history_index->mods);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      const IndexModule *im = v;
      StashModule x = { im->id, g_array_copy (im->pub.states), g_array_copy (im->pub.arrows),
                        im->pub.state_disorder, im->pub.arrow_disorder, im->pub.arrow_span };
      g_array_append_val (st->mods, x);
    }
  m->stash = st;
}

/* the length of the prefix of refs below pos */
static guint
refs_below (const GArray *refs, guint64 pos)
{
  guint lo = 0, hi = refs->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (refs, ViperHistoryRef, mid).pos < pos)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gboolean
viper_model_restore (ViperModel *m, const ViperModelCkpt *c)
{
  if (!c || c->klass != m->klass)
    return FALSE;
  gboolean hist = m->history_interval >= 0;
  if (hist)
    {
      if (!m->stash || (!m->off_run && (m->applied > m->stash->applied || m->stash->dropped != m->history_dropped)))
        stash_take (m);
      const struct _ViperHistoryStash *st = m->stash;
      if (st->applied < c->applied || st->dropped != c->history_dropped
          || (guint64) st->dropped + st->history->len < c->history_total)
        return FALSE;         /* trimming dropped entries the checkpoint still had */
    }
  guint64 applied_then = m->applied;
  m->clock = c->clock;
  m->start = c->start;
  m->applied = c->applied;
  m->changes = c->changes;
  m->inconsistent = c->inconsistent;
  if (hist)
    {
      const struct _ViperHistoryStash *st = m->stash;
      guint64 total = (guint64) m->history_dropped + m->history->len;
      GHashTableIter it;
      gpointer v;
      GHashTable *open_now = NULL;
      if (!m->off_run && applied_then >= c->applied && m->history_dropped == c->history_dropped
          && total >= c->history_total)
        {
          /* the model's own history is a later version: truncate it */
          g_array_set_size (m->history, (guint) (c->history_total - m->history_dropped));
          open_now = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
          g_hash_table_iter_init (&it, m->history_index->mods);
          while (g_hash_table_iter_next (&it, NULL, &v))
            {
              ViperHistoryModule *h = v;
              g_array_set_size (h->states, refs_below (h->states, c->history_total));
              g_array_set_size (h->arrows, refs_below (h->arrows, c->history_total));
              guint k = 0;
              for (guint i = 0; i < h->open->len; i++)
                {
                  guint64 pos = g_array_index (h->open, guint64, i);
                  if (pos < c->history_total)
                    {
                      g_array_index (h->open, guint64, k++) = pos;
                      g_hash_table_add (open_now, g_memdup2 (&pos, sizeof pos));
                    }
                }
              g_array_set_size (h->open, k);
            }
        }
      else
        {
          /* ahead: a prefix of the stash (the index's arrays keep their room) */
          guint n = (guint) (c->history_total - st->dropped);
          g_array_set_size (m->history, 0);
          g_array_append_vals (m->history, st->history->data, n);
          m->history_dropped = st->dropped;
          g_hash_table_iter_init (&it, m->history_index->mods);
          while (g_hash_table_iter_next (&it, NULL, &v))
            {
              ViperHistoryModule *h = v;
              g_array_set_size (h->states, 0);
              g_array_set_size (h->arrows, 0);
              g_array_set_size (h->open, 0);
            }
          for (guint i = 0; i < st->mods->len; i++)
            {
              const StashModule *x = &g_array_index (st->mods, StashModule, i);
              guint ns = refs_below (x->states, c->history_total), na = refs_below (x->arrows, c->history_total);
              if (!ns && !na)
                continue;
              ViperHistoryModule *h = index_module (m->history_index, x->id);
              g_array_append_vals (h->states, x->states->data, ns);
              g_array_append_vals (h->arrows, x->arrows->data, na);
              /* bounds for scans: the later ones are as true (only looser) */
              h->state_disorder = x->state_disorder;
              h->arrow_disorder = x->arrow_disorder;
              h->arrow_span = x->arrow_span;
            }
        }
      /* the arrows underway then (arrived since) */
      for (guint i = 0; i < c->open->len; i++)
        {
          guint64 pos = g_array_index (c->open, guint64, i);
          ViperHistoryEntry *e = (ViperHistoryEntry *) viper_model_history_at (m, pos);
          if (!e)
            continue;
          e->t1 = NAN;
          if (!open_now || !g_hash_table_contains (open_now, &pos))
            g_array_append_val (index_module (m->history_index, e->module)->open, pos);
        }
      if (open_now)
        g_hash_table_destroy (open_now);
      g_hash_table_iter_init (&it, m->history_index->mods);
      while (g_hash_table_iter_next (&it, NULL, &v))
        ((ViperHistoryModule *) v)->open_kept = ((ViperHistoryModule *) v)->open->len;
    }
  /* last: a paradigm may put back history entries it edits in place */
  m->klass->restore (m, c->snap);
  m->off_run = FALSE;
  viper_damage_clear (m->damage);
  viper_damage_add (m->damage, VIPER_AREA_ALL, 0, 0);
  return TRUE;
}
