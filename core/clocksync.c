/* clocksync.c - estimate each module's clock against a reference (POM).
 *
 * Pass 1 replays the files once through a run of their own (no model
 * applied, nothing reported) and records, per module, the TIME of every
 * transferred tram in sequence order, every cross-dependency between two
 * modules as a cause -> effect pair of (module, index), and every -6 -951
 * clock-synchronisation sample.  Samples whose trams are still pending when
 * the input ends (they wait behind a missing file or a partner that never
 * came) were read all the same: they are taken after the transferred ones,
 * by module and sequence number, so a partial trace still corrects every
 * module whose samples it holds.
 *
 * Pairs between two modules P < Q give points in the plane of their local
 * clocks, x on P's clock and y on Q's.  A P -> Q message sent at x and
 * received at y says Q's clock read y after P's read x, so the line
 * y = alpha + beta * x (Q's clock as a function of P's) passes below the
 * point; a Q -> P message passes above its point.  Any line between the two
 * point clouds keeps every message after its send; only the lower convex
 * hull of the first cloud and the upper hull of the second matter (Duda et
 * al., Jezequel).  For a slope beta the vertical gap between them is
 *   F(beta) = min_P->Q (y - beta x) - max_Q->P (y - beta x)
 * which is concave in beta: the slopes with F >= 0 (every message kept
 * causal) form an interval, found by a golden-section search for the
 * largest gap and bisection on each side.  We take the middle slope of that
 * interval (the bisector of the two extreme lines) and alpha in the middle of
 * the gap: the estimate that assumes equal minimal delays both ways.  When
 * the data bound the interval on one side only, the feasible slope closest
 * to 1; when no slope keeps every message causal (time-stamp noise), the
 * largest gap.  A sync sample (ping at T1 on P, pong stamped TR on REF, back
 * at T2 on P) is a message each way; a pair that has samples uses only them.
 *
 * The pairs make a graph of modules.  Each fitted line has an uncertainty:
 * half its gap plus its slope's freedom over the pair's time span.  The tree
 * of least summed uncertainty from the reference (the REF of the samples,
 * else the lowest module number with pairs; Dijkstra) chains the pairwise
 * lines into one map per module:
 *   t_global = a + b * t_local.
 * Modules linked only by one-way messages get drift 0 and the offset that
 * just keeps their messages causal; modules linked to nothing keep their
 * clock.
 *
 * clc then runs the controlled logical clock (core/clc.c) on the mapped
 * times.  The replay (pass 2) rewrites each tram's TIME at insert: with the
 * map, or in clc mode with the clock computed for its (module, sequence
 * number) when the tram is the one pass 1 saw there.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clocksync.h"
#include "clockkeep.h"
#include "clockfit.h"
#include "scheduler.h"
#include "stateout.h"

#define SYNC_REC (-6)
#define SYNC_EV (-951)
#define DIRECT_PROCS 4096               /* procs -1 .. 4094 found without hashing */
#define DIRECT_PAIRS 256                /* pairs of the first 256 modules found without hashing */

/* Growable arrays appended to once per tram in pass 1: inline pushes, no
 * call per element. */
#define VEC(type) struct { type *v; guint len, cap; }
#define VEC_PUSH(vec, x)                                                      \
  do {                                                                        \
    if (G_UNLIKELY ((vec).len == (vec).cap))                                  \
      vec_grow ((void **) &(vec).v, &(vec).cap, sizeof *(vec).v);             \
    (vec).v[(vec).len++] = (x);                                               \
  } while (0)

static void
vec_grow (void **v, guint *cap, gsize size)
{
  *cap = *cap ? *cap * 2 : 64;
  *v = g_realloc_n (*v, *cap, size);
}

typedef VEC (double) DVec;

typedef struct {
  gint64 proc;
  gint64 first_seq;
  gboolean contiguous;                  /* seqs first_seq, first_seq + 1, ... */
  DVec raw;                             /* TIME as read, sequence order */
  double *lc;                           /* clc, pass 2: TIME as read and the logical clock, interleaved */
  double a, b;
  int tree_parent;                      /* -1 root/none */
  guint pass1_index;                    /* its index before the modules were sorted */
  ViperClockProc info;
} ProcData;

typedef ViperClockPt Pt;
typedef ViperClockPts PtVec;

/* A message seen in pass 1: logged in one array while the run is built (a
 * push per message into its pair's points would touch a scattered line),
 * sorted into the pairs afterwards. */
typedef struct {
  guint32 from, to;
  double ts, tr;
} Msg;

typedef ViperClockPairFit PairData;

struct _ViperClockSync {
  ViperClockMode mode;
  GArray *procs;                        /* ProcData, sorted by proc after analysis */
  GHashTable *index;                    /* proc -> index + 1 */
  GHashTable *pairs;                    /* (lo << 32 | hi) -> PairData* */
  VEC (ViperClockRef) order;            /* transfer order (clc only) */
  VEC (ViperClockPair) cause_pairs;     /* in effect order */
  VEC (Msg) msgs;                       /* pass 1's messages, sorted into pairs after it */
  guint64 samples;
  guint64 samples_unused;               /* impossible samples, left out of the estimate */
  guint64 samples_pending;              /* samples of trams pass 1 could not transfer (used or not) */
  char *first_unused;                   /* "FILE:LINE: why" of the first of them */
  guint64 n_pairs;
  gint64 reference;
  gboolean have_ref;
  guint64 violations_raw, violations_repaired;
  guint *direct;                        /* proc + 1 -> index + 1 (pass 1) */
  gpointer *direct_pairs;               /* lo * DIRECT_PAIRS + hi -> PairData* (pass 1) */
  /* time-map cache */
  gint64 last_proc;
  ProcData *last_pd;
  guint *map_direct;                    /* proc + 1 -> index + 1 (pass 2) */
  /* the trams of pass 1, kept for pass 2 (core/clockkeep.c) */
  ViperClockKeep *keep;
  char **paths;
};

/* ---- names ----------------------------------------------------------------- */

gboolean
viper_clock_mode_parse (const char *name, ViperClockMode *out)
{
  static const char *const names[] = { "decay", "drift", "clc" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (name && g_str_equal (name, names[i]))
      {
        *out = (ViperClockMode) i;
        return TRUE;
      }
  return FALSE;
}

const char *
viper_clock_mode_name (ViperClockMode mode)
{
  switch (mode)
    {
    case VIPER_CLOCK_DRIFT: return "drift";
    case VIPER_CLOCK_CLC: return "clc";
    default: return "decay";
    }
}

/* ---- pass 1 ---------------------------------------------------------------- */

static guint
proc_index (ViperClockSync *cs, gint64 proc)
{
  gboolean small = cs->direct && proc >= -1 && proc < DIRECT_PROCS - 1;
  if (small && cs->direct[proc + 1])
    return cs->direct[proc + 1] - 1;
  gpointer v = g_hash_table_lookup (cs->index, &proc);
  if (v)
    return GPOINTER_TO_UINT (v) - 1;
  ProcData pd = { 0 };
  pd.proc = proc;
  pd.contiguous = TRUE;
  pd.a = 0;
  pd.b = 1;
  pd.tree_parent = -1;
  g_array_append_val (cs->procs, pd);
  guint i = cs->procs->len - 1;
  gint64 *key = g_new (gint64, 1);
  *key = proc;
  g_hash_table_insert (cs->index, key, GUINT_TO_POINTER (i + 1));
  if (small)
    cs->direct[proc + 1] = i + 1;
  return i;
}

static PairData *
pair_get (ViperClockSync *cs, guint p, guint q, gboolean *swapped)
{
  ProcData *pp = &g_array_index (cs->procs, ProcData, p), *pq = &g_array_index (cs->procs, ProcData, q);
  *swapped = pp->proc > pq->proc;
  guint lo = *swapped ? q : p, hi = *swapped ? p : q;
  gboolean small = cs->direct_pairs && lo < DIRECT_PAIRS && hi < DIRECT_PAIRS;
  if (small && cs->direct_pairs[lo * DIRECT_PAIRS + hi])
    return cs->direct_pairs[lo * DIRECT_PAIRS + hi];
  guint64 key = ((guint64) lo << 32) | hi;
  PairData *pd = g_hash_table_lookup (cs->pairs, &key);
  if (!pd)
    {
      pd = g_new0 (PairData, 1);
      pd->lo = lo;
      pd->hi = hi;
      guint64 *k = g_new (guint64, 1);
      *k = key;
      g_hash_table_insert (cs->pairs, k, pd);
    }
  if (small)
    cs->direct_pairs[lo * DIRECT_PAIRS + hi] = pd;
  return pd;
}

enum { MSG_ADD, MSG_SYNC, MSG_COUNT };

/* A message from module index `from` at its time ts to `to` at its time tr:
 * a point of its pair (MSG_ADD, MSG_SYNC for a sync sample), or only counted
 * in the cap of the pair's array it goes to (MSG_COUNT, the array not yet
 * allocated). */
static void
add_message (ViperClockSync *cs, guint from, double ts, guint to, double tr, int what)
{
  if (from == to)
    return;
  gboolean swapped;
  PairData *pd = pair_get (cs, from, to, &swapped);
  gboolean sync = what == MSG_SYNC;
  PtVec *a = swapped ? (sync ? &pd->sync_down : &pd->down) : (sync ? &pd->sync_up : &pd->up);
  if (what == MSG_COUNT)
    {
      a->cap++;
      return;
    }
  /* x is always lo's clock, y hi's */
  Pt pt = swapped ? (Pt) { tr, ts } : (Pt) { ts, tr };
  VEC_PUSH (*a, pt);
}

typedef struct {
  ViperClockSync *cs;
  ViperRun *run;
  ViperChannels *channels;
} Pass1;

/* Why a sample cannot be a ping and its pong (NULL when it can): P's own
 * clock read T1 before T2, and the pong came from another processor.  Such a
 * sample as two messages would bend its pair's line as far as the search
 * allows (5 % drift) and, as the first, pick the reference. */
static const char *
sample_unusable (const ViperTram *t, const gint64 *d)
{
  if (d[0] < 0)
    return "REF is not a processor";
  if (d[0] == t->proc)
    return "REF is the sample's own processor";
  if (d[1] > d[3])
    return "T2 is before T1 (the pong came back before the ping left, on one clock)";
  return NULL;
}

static gboolean
is_sample (const ViperTram *t)
{
  return t->rec == SYNC_REC && t->ev == SYNC_EV && t->dtype == VIPER_DTYPE_INT && t->ndata >= 4;
}

/* A -6 -951 sample of module index pi: two messages of its pair, or, when it
 * cannot be a ping and its pong, counted and left out. */
static void
take_sample (ViperClockSync *cs, ViperChannels *channels, const ViperTram *t, guint pi)
{
  const gint64 *d = viper_tram_data (t);
  const char *why = sample_unusable (t, d);
  if (why)
    {
      if (!cs->samples_unused++)
        cs->first_unused = g_strdup_printf ("%s:%u: %s", viper_channels_name (channels, t->channel), t->line, why);
      return;
    }
  guint ri = proc_index (cs, d[0]);
  add_message (cs, pi, (double) d[1] / 1e9, ri, (double) d[2] / 1e9, MSG_SYNC);
  add_message (cs, ri, (double) d[2] / 1e9, pi, (double) d[3] / 1e9, MSG_SYNC);
  cs->samples++;
  if (!cs->have_ref)
    {
      cs->reference = d[0];
      cs->have_ref = TRUE;
    }
}

static void
pass1_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  (void) changed;
  Pass1 *p1 = data;
  ViperClockSync *cs = p1->cs;
  guint pi = proc_index (cs, t->proc);
  ProcData *pd = &g_array_index (cs->procs, ProcData, pi);
  guint idx = pd->raw.len;
  if (idx == 0)
    pd->first_seq = t->seq;
  else if (t->seq != pd->first_seq + idx)
    pd->contiguous = FALSE;
  VEC_PUSH (pd->raw, t->time);
  ViperClockRef ref = { pi, idx };
  if (cs->mode == VIPER_CLOCK_CLC)
    VEC_PUSH (cs->order, ref);

  if (is_sample (t))
    take_sample (cs, p1->channels, t, pi);

  gint64 cproc, cseq;
  double ctime;
  if (viper_run_last_cause (p1->run, &cproc, &cseq, &ctime))
    {
      guint ci = proc_index (cs, cproc);
      ProcData *cpd = &g_array_index (cs->procs, ProcData, ci);
      gint64 cidx = cseq - cpd->first_seq;
      if (cidx >= 0 && cidx < (gint64) cpd->raw.len && cpd->raw.v[cidx] == ctime)
        {
          /* its message (when between two modules) is read from the pair
           * and the times after pass 1 */
          ViperClockPair pr = { { ci, (guint32) cidx }, ref };
          VEC_PUSH (cs->cause_pairs, pr);
        }
      else if (ci != pi)
        {
          Msg m = { ci, pi, ctime, t->time };
          VEC_PUSH (cs->msgs, m);
        }
    }
}

/* The samples among the trams still pending at the end of pass 1 (they wait
 * for a module whose file is missing, or for a partner that never came):
 * read, so they count, taken after the transferred ones in (module,
 * sequence number) order. */
static void
collect_pending_sample (const ViperTram *t, gpointer data)
{
  /* a copy of its header and data: a tram that waits packed in its list is
   * shown in a block the next one reuses (core/seqlist.h) */
  if (is_sample (t))
    g_ptr_array_add (data, g_memdup2 (t, sizeof *t + (gsize) t->ndata * sizeof (gint64)));
}

static gint
cmp_tram_seq (gconstpointer a, gconstpointer b)
{
  const ViperTram *x = *(const ViperTram *const *) a, *y = *(const ViperTram *const *) b;
  if (x->proc != y->proc)
    return x->proc < y->proc ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
pending_samples (ViperClockSync *cs, ViperRun *run, ViperChannels *channels)
{
  GPtrArray *held = g_ptr_array_new_with_free_func (g_free);
  viper_run_foreach_pending (run, collect_pending_sample, held);
  g_ptr_array_sort (held, cmp_tram_seq);
  for (guint i = 0; i < held->len; i++)
    {
      const ViperTram *t = held->pdata[i];
      take_sample (cs, channels, t, proc_index (cs, t->proc));
    }
  cs->samples_pending = held->len;
  g_ptr_array_free (held, TRUE);
}

/* After pass 1: each message between two modules into its pair's points,
 * each pair's arrays allocated once at their size (counted first). */
static void
messages_to_pairs (ViperClockSync *cs)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      if (pass == 1)
        {
          GHashTableIter it;
          gpointer k, v;
          g_hash_table_iter_init (&it, cs->pairs);
          while (g_hash_table_iter_next (&it, &k, &v))
            {
              PairData *pd = v;
              pd->up.v = g_new (Pt, pd->up.cap + 1);
              pd->down.v = g_new (Pt, pd->down.cap + 1);
            }
        }
      for (guint i = 0; i < cs->cause_pairs.len; i++)
        {
          const ViperClockPair *pr = &cs->cause_pairs.v[i];
          if (pr->cause.proc == pr->effect.proc)
            continue;
          if (pass == 0)
            {
              add_message (cs, pr->cause.proc, 0, pr->effect.proc, 0, MSG_COUNT);
              continue;
            }
          const ProcData *c = &g_array_index (cs->procs, ProcData, pr->cause.proc);
          const ProcData *e = &g_array_index (cs->procs, ProcData, pr->effect.proc);
          add_message (cs, pr->cause.proc, c->raw.v[pr->cause.index], pr->effect.proc, e->raw.v[pr->effect.index],
                       MSG_ADD);
        }
      for (guint i = 0; i < cs->msgs.len; i++)
        add_message (cs, cs->msgs.v[i].from, cs->msgs.v[i].ts, cs->msgs.v[i].to, cs->msgs.v[i].tr,
                     pass == 0 ? MSG_COUNT : MSG_ADD);
    }
}

/* Nothing is reported in pass 1 (the replay reports), but what the file
 * sources said is kept with their trams. */
static void
keep_sink (ViperDiagKind kind, const char *message, gpointer data)
{
  viper_clock_keep_diag (data, kind, message);
}

static gboolean
read_pass1 (ViperClockSync *cs, const ViperParadigm *paradigm, ViperSetup *setup, const char *const *paths,
            GError **error)
{
  gboolean ok = TRUE;
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperChannels *channels = viper_channels_new ();
  ViperDiag diag;
  viper_diag_init (&diag, keep_sink, cs->keep);
  ViperModel *model = paradigm->model_new ? paradigm->model_new (paradigm, setup) : NULL;
  ViperRun *run = viper_run_new (paradigm, model, pool, channels, &diag, 0.5);
  /* what is kept does not depend on which causal order the trams leave in
   * (per module, sequence order; each effect after its cause) */
  viper_run_set_any_order (run, TRUE);
  ViperScheduler *sched = viper_scheduler_new (run, NULL, channels, &diag);
  Pass1 p1 = { cs, run, channels };
  for (const char *const *p = paths; p && *p; p++)
    {
      if (g_str_equal (*p, "-"))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       "--clock=%s reads the whole trace before the replay (and again if its trams "
                       "do not fit in memory): standard input cannot be used, give files",
                       viper_clock_mode_name (cs->mode));
          ok = FALSE;
          goto out;
        }
      ViperTramSource *src = viper_file_source_new (*p, pool, &diag, channels, error);
      if (!src)
        {
          ok = FALSE;
          goto out;
        }
      viper_scheduler_add_source (sched, viper_clock_keep_wrap (cs->keep, src));
    }
  viper_scheduler_add_hook (sched, pass1_hook, &p1);
  GMainContext *ctx = g_main_context_new ();
  viper_scheduler_attach (sched, ctx);
  viper_scheduler_go (sched);
  viper_scheduler_run (sched);
  pending_samples (cs, run, channels);
  viper_scheduler_free (sched);
  sched = NULL;
  g_main_context_unref (ctx);
out:
  if (sched)
    viper_scheduler_free (sched);
  viper_run_free (run);
  if (model)
    viper_model_free (model);
  viper_channels_free (channels);
  viper_diag_clear (&diag);
  viper_tram_pool_free (pool);
  return ok;
}

/* ---- the tree -------------------------------------------------------------- */

static gint
cmp_proc (gconstpointer a, gconstpointer b)
{
  gint64 x = ((const ProcData *) a)->proc, y = ((const ProcData *) b)->proc;
  return x < y ? -1 : x > y;
}

static gint
cmp_adj (gconstpointer a, gconstpointer b, gpointer data)
{
  guint self = GPOINTER_TO_UINT (data);
  const PairData *x = *(PairData *const *) a, *y = *(PairData *const *) b;
  guint u = x->lo == self ? x->hi : x->lo, v = y->lo == self ? y->hi : y->lo;
  return u < v ? -1 : u > v;
}

typedef struct {
  double d;
  guint i;
} HeapEnt;

static inline gboolean
heap_less (HeapEnt a, HeapEnt b)
{
  return a.d < b.d || (a.d == b.d && a.i < b.i);
}

static void
heap_push (HeapEnt **v, guint *len, guint *cap, HeapEnt e)
{
  if (*len == *cap)
    vec_grow ((void **) v, cap, sizeof **v);
  guint k = (*len)++;
  while (k && heap_less (e, (*v)[(k - 1) / 2]))
    {
      (*v)[k] = (*v)[(k - 1) / 2];
      k = (k - 1) / 2;
    }
  (*v)[k] = e;
}

static HeapEnt
heap_pop (HeapEnt *v, guint *len)
{
  HeapEnt top = v[0], last = v[--*len];
  guint k = 0, n = *len;
  for (;;)
    {
      guint c = 2 * k + 1;
      if (c >= n)
        break;
      if (c + 1 < n && heap_less (v[c + 1], v[c]))
        c++;
      if (!heap_less (v[c], last))
        break;
      v[k] = v[c];
      k = c;
    }
  if (n)
    v[k] = last;
  return top;
}

static void
estimate (ViperClockSync *cs)
{
  guint n = cs->procs->len;
  if (!n)
    return;
  /* sort the modules and renumber everything that holds an index */
  guint *old_to_new = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    g_array_index (cs->procs, ProcData, i).pass1_index = i;
  g_array_sort (cs->procs, cmp_proc);
  for (guint i = 0; i < n; i++)
    {
      const ProcData *pd = &g_array_index (cs->procs, ProcData, i);
      old_to_new[pd->pass1_index] = i;
      g_hash_table_insert (cs->index, g_memdup2 (&pd->proc, sizeof pd->proc), GUINT_TO_POINTER (i + 1));
    }
  for (guint i = 0; i < cs->order.len; i++)
    {
      ViperClockRef *r = &cs->order.v[i];
      r->proc = old_to_new[r->proc];
    }
  for (guint i = 0; i < cs->cause_pairs.len; i++)
    {
      ViperClockPair *p = &cs->cause_pairs.v[i];
      p->cause.proc = old_to_new[p->cause.proc];
      p->effect.proc = old_to_new[p->effect.proc];
    }

  /* adjacency: pair list per module */
  GPtrArray **adj = g_new0 (GPtrArray *, n);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, cs->pairs);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      PairData *pd = v;
      pd->lo = old_to_new[pd->lo];
      pd->hi = old_to_new[pd->hi];
      for (guint s = 0; s < 2; s++)
        {
          guint m = s ? pd->hi : pd->lo;
          if (!adj[m])
            adj[m] = g_ptr_array_new ();
          g_ptr_array_add (adj[m], pd);
        }
    }
  g_free (old_to_new);
  /* each module's pairs by the other module: the tree does not depend on the
   * order the pairs were first seen in (ties in its cost) */
  for (guint i = 0; i < n; i++)
    if (adj[i])
      g_ptr_array_sort_with_data (adj[i], cmp_adj, GUINT_TO_POINTER (i));

  /* the reference: the samples' REF, else the lowest module that has pairs */
  guint root = 0;
  if (cs->have_ref)
    root = GPOINTER_TO_UINT (g_hash_table_lookup (cs->index, &cs->reference)) - 1;
  else
    for (guint i = 0; i < n; i++)
      if (adj[i])
        {
          root = i;
          break;
        }
  cs->reference = g_array_index (cs->procs, ProcData, root).proc;

  /* Fit every pair, then the tree of least summed uncertainty from the
   * reference (Dijkstra): errors add up along a path, so each module is
   * reached through the most certain chain of lines. */
  g_hash_table_iter_init (&it, cs->pairs);
  while (g_hash_table_iter_next (&it, &k, &v))
    viper_clock_fit_pair (v);
  gboolean *in = g_new0 (gboolean, n);
  double *best = g_new (double, n);
  PairData **via = g_new0 (PairData *, n);
  for (guint i = 0; i < n; i++)
    best[i] = INFINITY;
  best[root] = 0;
  /* the unfinished module of least (best, index) next: a binary heap with
   * stale entries skipped, O(E log E) rather than a scan per step */
  VEC (HeapEnt) heap = { 0 };
  HeapEnt start = { 0, root };
  heap_push (&heap.v, &heap.len, &heap.cap, start);
  guint restart = 0;
  for (guint step = 0; step < n; step++)
    {
      int u = -1;
      while (heap.len)
        {
          HeapEnt top = heap_pop (heap.v, &heap.len);
          if (!in[top.i] && top.d == best[top.i])
            {
              u = (int) top.i;
              break;
            }
        }
      if (u < 0)
        {
          /* a part of the graph the reference does not reach: its lowest
           * module with pairs keeps its clock, the others follow it */
          for (; restart < n; restart++)
            if (!in[restart] && adj[restart])
              {
                u = (int) restart;
                best[restart] = 0;
                break;
              }
          if (u < 0)
            break;
        }
      in[u] = TRUE;
      ProcData *pu = &g_array_index (cs->procs, ProcData, u);
      if (via[u])
        {
          PairData *pd = via[u];
          gboolean u_is_hi = pd->hi == (guint) u;
          const ProcData *pp = &g_array_index (cs->procs, ProcData, u_is_hi ? pd->lo : pd->hi);
          if (u_is_hi)
            {
              /* t_u = alpha + beta (t_p - x0)  =>  t_p = x0 + (t_u - alpha) / beta */
              pu->b = pp->b / pd->beta;
              pu->a = pp->a + pp->b * (pd->x0 - pd->alpha / pd->beta);
            }
          else
            {
              /* t_p = alpha + beta (t_u - x0) */
              pu->b = pp->b * pd->beta;
              pu->a = pp->a + pp->b * (pd->alpha - pd->beta * pd->x0);
            }
          pu->info.estimated = TRUE;
          pu->info.from_sync = pd->sync_up.len && pd->sync_down.len;
          pu->tree_parent = (int) (u_is_hi ? pd->lo : pd->hi);
        }
      else if ((guint) u == root)
        pu->info.estimated = TRUE;
      for (guint e = 0; adj[u] && e < adj[u]->len; e++)
        {
          PairData *pd = adj[u]->pdata[e];
          guint w = pd->lo == (guint) u ? pd->hi : pd->lo;
          double d = best[u] + pd->cost;
          if (pd->fitted && !in[w] && d < best[w])
            {
              best[w] = d;
              via[w] = pd;
              HeapEnt e = { d, w };
              heap_push (&heap.v, &heap.len, &heap.cap, e);
            }
        }
    }
  g_free (heap.v);
  for (guint i = 0; i < n; i++)
    if (adj[i])
      g_ptr_array_unref (adj[i]);
  g_free (adj);
  g_free (in);
  g_free (best);
  g_free (via);

  for (guint i = 0; i < n; i++)
    {
      ProcData *pd = &g_array_index (cs->procs, ProcData, i);
      pd->info.proc = pd->proc;
      pd->info.offset = pd->a;
      pd->info.drift_ppm = (pd->b - 1) * 1e6;
    }
}

/* Count the pairs out of order in the raw stamps and under the map. */
static void
count_violations (ViperClockSync *cs)
{
  for (guint i = 0; i < cs->cause_pairs.len; i++)
    {
      const ViperClockPair *p = &cs->cause_pairs.v[i];
      ProcData *c = &g_array_index (cs->procs, ProcData, p->cause.proc);
      ProcData *e = &g_array_index (cs->procs, ProcData, p->effect.proc);
      double tc = c->raw.v[p->cause.index];
      double te = e->raw.v[p->effect.index];
      if (te < tc)
        {
          e->info.violations_raw++;
          cs->violations_raw++;
        }
      if (e->a + e->b * te < c->a + c->b * tc)
        {
          e->info.violations_repaired++;
          cs->violations_repaired++;
        }
    }
}

static void
run_clc (ViperClockSync *cs)
{
  guint n = cs->procs->len;
  double **lc = g_new (double *, n), **scratch = g_new (double *, n);
  double *a = g_new (double, n + 1), *b = g_new (double, n + 1);
  guint *counts = g_new (guint, n);
  /* pass 2 looks up the time as read and the clock for each tram: one array,
   * one cache line, and the times as read no longer needed apart (their
   * array is the clc's scratch) */
  for (guint i = 0; i < n; i++)
    {
      ProcData *pd = &g_array_index (cs->procs, ProcData, i);
      counts[i] = pd->raw.len;
      a[i] = pd->a;
      b[i] = pd->b;
      pd->lc = lc[i] = g_new (double, 2 * (gsize) pd->raw.len + 1);
      for (guint k = 0; k < pd->raw.len; k++)
        {
          pd->lc[2 * (gsize) k] = pd->raw.v[k];
          pd->lc[2 * (gsize) k + 1] = pd->a + pd->b * pd->raw.v[k];
          pd->raw.v[k] = INFINITY;
        }
      scratch[i] = pd->raw.v;                  /* lc holds it; raw.len stays the count */
      pd->raw.v = NULL;
      pd->raw.cap = 0;
    }
  viper_clc_apply_mapped (lc, a, b, scratch, counts, n, cs->order.v, cs->order.len,
                          cs->cause_pairs.v, cs->cause_pairs.len);
  for (guint i = 0; i < n; i++)
    g_free (scratch[i]);
  g_free (scratch);
  g_free (lc);
  g_free (a);
  g_free (b);
  g_free (counts);
}

static void
pair_free (gpointer p)
{
  PairData *pd = p;
  g_free (pd->up.v);
  g_free (pd->down.v);
  g_free (pd->sync_up.v);
  g_free (pd->sync_down.v);
  g_free (pd);
}

ViperClockSync *
viper_clock_sync_analyse (ViperClockMode mode, const ViperParadigm *paradigm, ViperSetup *setup,
                          const char *const *paths, GError **error)
{
  return viper_clock_sync_analyse_keep (mode, paradigm, setup, paths, VIPER_CLOCK_KEEP_DEFAULT, error);
}

ViperClockSync *
viper_clock_sync_analyse_keep (ViperClockMode mode, const ViperParadigm *paradigm, ViperSetup *setup,
                               const char *const *paths, gsize keep_limit, GError **error)
{
  ViperClockSync *cs = g_new0 (ViperClockSync, 1);
  cs->mode = mode;
  cs->keep = viper_clock_keep_new (keep_limit);
  cs->paths = g_strdupv ((char **) paths);
  cs->procs = g_array_new (FALSE, FALSE, sizeof (ProcData));
  cs->index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  cs->pairs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, pair_free);
  cs->direct = g_new0 (guint, DIRECT_PROCS);
  cs->direct_pairs = g_new0 (gpointer, DIRECT_PAIRS * DIRECT_PAIRS);
  gboolean ok = read_pass1 (cs, paradigm, setup, paths, error);
  if (ok)
    messages_to_pairs (cs);
  g_clear_pointer (&cs->msgs.v, g_free);
  cs->msgs.len = cs->msgs.cap = 0;
  /* indices are renumbered from here on */
  g_clear_pointer (&cs->direct, g_free);
  g_clear_pointer (&cs->direct_pairs, g_free);
  if (!ok)
    {
      viper_clock_sync_free (cs);
      return NULL;
    }
  estimate (cs);
  count_violations (cs);
  /* the points are no longer needed */
  g_hash_table_remove_all (cs->pairs);
  if (mode == VIPER_CLOCK_CLC)
    run_clc (cs);
  else
    for (guint i = 0; i < cs->procs->len; i++)
      {
        /* drift maps by module alone: the stamps are not needed by the
         * replay (raw.len stays the count) */
        ProcData *pd = &g_array_index (cs->procs, ProcData, i);
        g_clear_pointer (&pd->raw.v, g_free);
        pd->raw.cap = 0;
      }
  cs->n_pairs = cs->cause_pairs.len;
  g_clear_pointer (&cs->order.v, g_free);
  g_clear_pointer (&cs->cause_pairs.v, g_free);
  cs->order.len = cs->order.cap = cs->cause_pairs.len = cs->cause_pairs.cap = 0;
  cs->last_proc = G_MININT64;
  cs->map_direct = g_new0 (guint, DIRECT_PROCS);
  for (guint i = 0; i < cs->procs->len; i++)
    {
      gint64 proc = g_array_index (cs->procs, ProcData, i).proc;
      if (proc >= -1 && proc < DIRECT_PROCS - 1)
        cs->map_direct[proc + 1] = i + 1;
    }
  return cs;
}

void
viper_clock_sync_free (ViperClockSync *cs)
{
  if (!cs)
    return;
  for (guint i = 0; i < cs->procs->len; i++)
    {
      ProcData *pd = &g_array_index (cs->procs, ProcData, i);
      g_free (pd->raw.v);
      g_free (pd->lc);
    }
  g_array_unref (cs->procs);
  g_free (cs->direct);
  g_free (cs->direct_pairs);
  g_hash_table_destroy (cs->index);
  g_hash_table_destroy (cs->pairs);
  g_free (cs->order.v);
  g_free (cs->cause_pairs.v);
  g_free (cs->msgs.v);
  g_free (cs->map_direct);
  viper_clock_keep_free (cs->keep);
  g_strfreev (cs->paths);
  g_free (cs->first_unused);
  g_free (cs);
}

ViperTramSource *
viper_clock_sync_source_new (ViperClockSync *cs, guint i, ViperTramPool *pool, ViperDiag *diag,
                             ViperChannels *channels, GError **error)
{
  g_return_val_if_fail (cs->paths && i < g_strv_length (cs->paths), NULL);
  ViperTramSource *src = viper_clock_keep_source_new (cs->keep, i, pool, diag, channels);
  return src ? src : viper_file_source_new (cs->paths[i], pool, diag, channels, error);
}

gboolean
viper_clock_sync_kept (const ViperClockSync *cs)
{
  return !viper_clock_keep_hit_bound (cs->keep) && viper_clock_keep_limit (cs->keep) > 0;
}

gboolean
viper_clock_sync_keep_hit_bound (const ViperClockSync *cs)
{
  return viper_clock_keep_hit_bound (cs->keep);
}

gsize
viper_clock_sync_kept_bytes (const ViperClockSync *cs)
{
  return viper_clock_keep_bytes (cs->keep);
}

gsize
viper_clock_sync_keep_limit (const ViperClockSync *cs)
{
  return viper_clock_keep_limit (cs->keep);
}

/* ---- pass 2 ---------------------------------------------------------------- */

static double
time_map (gpointer data, gint64 proc, gint64 seq, double time)
{
  ViperClockSync *cs = data;
  ProcData *pd = cs->last_pd;
  if (!pd || cs->last_proc != proc)
    {
      guint i;
      if (proc >= -1 && proc < DIRECT_PROCS - 1)
        i = cs->map_direct[proc + 1];
      else
        i = GPOINTER_TO_UINT (g_hash_table_lookup (cs->index, &proc));
      if (!i)
        return time;
      pd = cs->last_pd = &g_array_index (cs->procs, ProcData, i - 1);
      cs->last_proc = proc;
    }
  if (pd->lc && pd->contiguous)
    {
      gint64 i = seq - pd->first_seq;
      if (i >= 0 && i < (gint64) pd->raw.len && pd->lc[2 * i] == time)
        {
          /* a module's trams come in sequence order: fetch its next line early */
          __builtin_prefetch (pd->lc + 2 * i + 16);
          return pd->lc[2 * i + 1];
        }
    }
  return pd->a + pd->b * time;
}

void
viper_clock_sync_install (ViperClockSync *cs, ViperRun *run)
{
  if (cs)
    {
      cs->last_pd = NULL;
      cs->last_proc = G_MININT64;
    }
  viper_run_set_time_map (run, cs ? time_map : NULL, cs);
}

const ViperClockSync *
viper_run_clock_sync (const ViperRun *run)
{
  gpointer data = NULL;
  return viper_run_get_time_map (run, &data) == time_map ? data : NULL;
}

ViperClockMode viper_clock_sync_mode (const ViperClockSync *cs) { return cs->mode; }
gint64 viper_clock_sync_reference (const ViperClockSync *cs) { return cs->reference; }
guint viper_clock_sync_n_procs (const ViperClockSync *cs) { return cs->procs->len; }
guint64 viper_clock_sync_samples (const ViperClockSync *cs) { return cs->samples; }
guint64 viper_clock_sync_samples_unused (const ViperClockSync *cs) { return cs->samples_unused; }
guint64 viper_clock_sync_samples_pending (const ViperClockSync *cs) { return cs->samples_pending; }
const char *viper_clock_sync_first_unused (const ViperClockSync *cs) { return cs->first_unused; }
guint64 viper_clock_sync_violations_raw (const ViperClockSync *cs) { return cs->violations_raw; }
guint64 viper_clock_sync_violations_repaired (const ViperClockSync *cs) { return cs->violations_repaired; }

guint64
viper_clock_sync_pairs (const ViperClockSync *cs)
{
  return cs->n_pairs;
}

const ViperClockProc *
viper_clock_sync_proc (const ViperClockSync *cs, guint i)
{
  return i < cs->procs->len ? &g_array_index (cs->procs, ProcData, i).info : NULL;
}

gsize
viper_clock_sync_bytes (const ViperClockSync *cs)
{
  gsize b = sizeof *cs;
  for (guint i = 0; i < cs->procs->len; i++)
    {
      const ProcData *pd = &g_array_index (cs->procs, ProcData, i);
      b += sizeof *pd + (pd->lc ? pd->raw.len * 2 * sizeof (double) : 0);
    }
  return b;
}

void
viper_clock_sync_write_json (const ViperClockSync *cs, ViperJson *j)
{
  viper_json_key (j, "clock_mode");
  viper_json_string (j, viper_clock_mode_name (cs->mode));
  viper_json_key (j, "violations_repaired");
  viper_json_int (j, (gint64) cs->violations_repaired);
  viper_json_key (j, "clock_sync");
  viper_json_begin_object (j);
  viper_json_key (j, "reference"); viper_json_int (j, cs->reference);
  viper_json_key (j, "samples"); viper_json_int (j, (gint64) cs->samples);
  viper_json_key (j, "samples_unused"); viper_json_int (j, (gint64) cs->samples_unused);
  viper_json_key (j, "pairs"); viper_json_int (j, (gint64) viper_clock_sync_pairs (cs));
  viper_json_key (j, "violations_raw"); viper_json_int (j, (gint64) cs->violations_raw);
  viper_json_key (j, "violations_repaired"); viper_json_int (j, (gint64) cs->violations_repaired);
  viper_json_key (j, "modules");
  viper_json_begin_array (j);
  for (guint i = 0; i < cs->procs->len; i++)
    {
      const ViperClockProc *p = &g_array_index (cs->procs, ProcData, i).info;
      viper_json_begin_object (j);
      viper_json_key (j, "id"); viper_json_int (j, p->proc);
      viper_json_key (j, "clock_offset"); viper_json_double (j, p->offset);
      viper_json_key (j, "clock_drift_ppm"); viper_json_double (j, p->drift_ppm);
      viper_json_key (j, "estimated"); viper_json_bool (j, p->estimated);
      viper_json_key (j, "from_sync"); viper_json_bool (j, p->from_sync);
      viper_json_key (j, "violations_raw"); viper_json_int (j, (gint64) p->violations_raw);
      viper_json_key (j, "violations_repaired"); viper_json_int (j, (gint64) p->violations_repaired);
      viper_json_end_object (j);
    }
  viper_json_end_array (j);
  viper_json_end_object (j);
}

void
viper_clock_sync_write_module (const ViperRun *run, gint64 proc, ViperJson *j)
{
  const ViperClockSync *cs = run ? viper_run_clock_sync (run) : NULL;
  gpointer v = cs ? g_hash_table_lookup (cs->index, &proc) : NULL;
  if (!v)
    return;
  const ViperClockProc *p = &g_array_index (cs->procs, ProcData, GPOINTER_TO_UINT (v) - 1).info;
  viper_json_key (j, "clock_offset"); viper_json_double (j, p->offset);
  viper_json_key (j, "clock_drift_ppm"); viper_json_double (j, p->drift_ppm);
  viper_json_key (j, "violations_repaired"); viper_json_int (j, (gint64) p->violations_repaired);
}
