/* join.c - the rendezvous of collectives (join.h explains the rules).
 *
 * Counters per (kind, group, module) number each module's BEGINs, ENDs and
 * transferred BEGINs, so the k-th of each meets instance k.  An instance
 * keeps one record per member: whether its BEGIN was transferred and at
 * which adjusted time, and the ENDs waiting for it.  An END claimed while
 * some BEGIN it needs is not transferred gets one Waiter with the count of
 * the missing BEGINs and one dependency in the run (t->waits), so a group of
 * any size costs a single wait on the tram; each BEGIN's transfer lowers the
 * count and raises the END's adjusted-time bound.  An END that needs
 * every member's BEGIN waits on the instance instead (fix_set), and a prefix
 * END on the run of members whose BEGINs all left (prefix_advance): both
 * cost O(P) per instance of P members.  An instance is dropped once every
 * member's END was claimed and every BEGIN transferred.
 */
#include <math.h>
#include <string.h>
#include "join.h"
#include "seqlist.h"

typedef struct {
  gint64 kind, group, proc;
  gint64 begins, ends, transferred;
  gint64 skip;              /* group -1, a member heard from after it was final: its first
                             * `skip` collectives of this kind were done without it */
} Count;

typedef struct {
  gint64 kind, group, k;
} InstKey;

/* Groups of a member's BEGINs of one kind that have no END yet, oldest first. */
typedef struct {
  gint64 kind, proc, zero;
  GArray *groups;
  guint head;
} Open;

typedef struct _Waiter Waiter;
struct _Waiter {
  ViperTram *t;
  InstKey inst;
  guint missing;
  gboolean on_all;          /* one of the missing is the instance's every begin (Inst.all_waiters) */
  gboolean on_prefix;       /* one of the missing is the begins of the members before it (Inst.pre_waiters) */
  guint upto;               /* then: how many members come before it */
  Waiter *pre_next;         /* the next END waiting for the same prefix */
};

typedef struct {
  gint64 proc;
  gboolean transferred;
  gboolean in_set;          /* one of the instance's members (fix_set) */
  double adjusted;
  guint32 lamport;          /* its BEGIN's Lamport number, once transferred */
  GPtrArray *waiters;       /* Waiter*, or NULL */
} Member;

/* A defined group.  An END over it also waits for the definition to be
 * transferred (without taking its time), so that the model has applied
 * the definition before it applies the END. */
typedef struct {
  GArray *members;          /* gint64, in order */
  gboolean transferred;
  GPtrArray *waiters;       /* Waiter*, or NULL */
  GHashTable *pos;          /* gint64* member -> its first position + 1, made at the first prefix END */
} GroupRec;

/* An END that waits for every member's BEGIN (all-to-all, the root of an
 * all-to-one) waits once, on the instance: the members are marked when the
 * first END is claimed, the transferred begins among them counted and their
 * latest time kept, and the waiters woken together when the count is full.
 * A barrier of P members costs O(P), not O(P^2) (P waits of P members
 * each: 4,096 ranks took 24 s for 64 barriers). */
typedef struct {
  InstKey key;
  GHashTable *members;      /* gint64* proc -> Member* */
  gint64 root;
  guint n_members;          /* fixed by the first END claimed (0 before) */
  guint ends, transferred;
  gboolean set_fixed;       /* members marked in_set */
  guint set_n, set_done;    /* members, and those whose BEGIN was transferred */
  double set_latest;        /* the latest of those BEGINs' adjusted times */
  guint32 set_lamport;      /* and the largest of their Lamport numbers */
  GPtrArray *all_waiters;   /* Waiter*: ENDs waiting for every member's BEGIN, or NULL */
  /* prefix: the END of the member at position k waits for the BEGINs of
   * the members at 0..k-1.  Set up at the first END over a prefix: */
  gint64 *pre_mem;          /* the members in order (NULL: not set up) */
  guint pre_n;
  guint pre_len;            /* pre_mem[0..pre_len-1] all have their BEGIN transferred */
  guint pre_made;           /* pre_mem[0..pre_made-1] have a Member record */
  double *pre_adj;          /* [k < pre_len]: the latest adjusted time of the BEGINs of pre_mem[0..k] */
  guint32 *pre_lam;         /* [k < pre_len]: the largest Lamport number of those BEGINs */
  Waiter **pre_waiters;     /* [k]: the ENDs waiting for pre_mem[0..k-1], chained by pre_next */
} Inst;

struct _ViperJoin {
  const ViperJoinClass *cls;
  GHashTable *counts;       /* Count* (key: first three fields) */
  GHashTable *insts;        /* InstKey* -> Inst* */
  GHashTable *groups;       /* gint64* -> GroupRec* */
  GHashTable *stalls;       /* gint64* group -> GPtrArray* of ViperSeqList* */
  GHashTable *waiting;      /* ViperTram* -> Waiter* */
  GHashTable *open;         /* Open* (key: first three fields) */
  GArray *modules;          /* known modules >= 0, sorted */
  gboolean modules_final;   /* the input ended: modules holds every one (group -1 is complete) */
  gboolean wants_modules;   /* a collective over group -1 was claimed before modules_final */
  GHashTable *numbered;     /* gint64* kind -> gint64* instances of (kind, -1) numbered so far */
  guint n_late;             /* modules added after group -1 was final (their Counts have skip) */
  GHashTable *lamports;     /* ViperTram* END -> the largest Lamport number of the BEGINs it waited
                             * for, as a pointer: taken at its transfer (viper_join_take_lamport) */
  GHashTable *module_pos;   /* gint64* module -> its position + 1 in modules, made for module_pos_n modules */
  guint module_pos_n;
};

/* END t depends on a BEGIN whose Lamport number is lamport (0: none). */
static void
bound_lamport (ViperJoin *j, const ViperTram *t, guint32 lamport)
{
  if (!lamport)
    return;
  guint32 had = GPOINTER_TO_UINT (g_hash_table_lookup (j->lamports, t));
  if (lamport > had)
    g_hash_table_insert (j->lamports, (gpointer) t, GUINT_TO_POINTER (lamport));
}

guint32
viper_join_take_lamport (ViperJoin *j, const ViperTram *t)
{
  if (!g_hash_table_size (j->lamports))
    return 0;
  gpointer v;
  if (!g_hash_table_steal_extended (j->lamports, t, NULL, &v))
    return 0;
  return GPOINTER_TO_UINT (v);
}

static guint
key3_hash (gint64 a, gint64 b, gint64 c)
{
  guint64 h = (guint64) a * 0x9E3779B97F4A7C15ull;
  h ^= ((guint64) b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  h = (h ^ (h >> 29)) + (guint64) c * 0x165667B19E3779F9ull;
  return (guint) (h ^ (h >> 32));
}

static guint
triple_hash (gconstpointer p)
{
  const gint64 *k = p;
  return key3_hash (k[0], k[1], k[2]);
}

static gboolean
triple_equal (gconstpointer a, gconstpointer b)
{
  const gint64 *x = a, *y = b;
  return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

static void
member_free (gpointer p)
{
  Member *m = p;
  if (m->waiters)
    g_ptr_array_unref (m->waiters);
  g_free (m);
}

static void
inst_free (gpointer p)
{
  Inst *i = p;
  g_hash_table_destroy (i->members);
  if (i->all_waiters)
    g_ptr_array_unref (i->all_waiters);
  g_free (i->pre_mem);
  g_free (i->pre_adj);
  g_free (i->pre_lam);
  g_free (i->pre_waiters);
  g_free (i);
}

static void
open_free (gpointer p)
{
  Open *o = p;
  g_array_unref (o->groups);
  g_free (o);
}

static void
group_free (gpointer p)
{
  GroupRec *g = p;
  if (g->pos)
    g_hash_table_destroy (g->pos);
  g_array_unref (g->members);
  if (g->waiters)
    g_ptr_array_unref (g->waiters);
  g_free (g);
}

static void
ptr_array_free (gpointer p)
{
  g_ptr_array_unref (p);
}

ViperJoin *
viper_join_new (const ViperJoinClass *cls)
{
  ViperJoin *j = g_new0 (ViperJoin, 1);
  j->cls = cls;
  j->counts = g_hash_table_new_full (triple_hash, triple_equal, NULL, g_free);
  j->insts = g_hash_table_new_full (triple_hash, triple_equal, NULL, inst_free);
  j->groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, group_free);
  j->stalls = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, ptr_array_free);
  j->waiting = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  j->open = g_hash_table_new_full (triple_hash, triple_equal, NULL, open_free);
  j->modules = g_array_new (FALSE, FALSE, sizeof (gint64));
  j->numbered = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  j->lamports = g_hash_table_new (g_direct_hash, g_direct_equal);
  return j;
}

void
viper_join_reset (ViperJoin *j)
{
  g_hash_table_remove_all (j->counts);
  g_hash_table_remove_all (j->insts);
  g_hash_table_remove_all (j->groups);
  g_hash_table_remove_all (j->stalls);
  g_hash_table_remove_all (j->waiting);
  g_hash_table_remove_all (j->open);
  g_array_set_size (j->modules, 0);
  j->modules_final = FALSE;
  j->wants_modules = FALSE;
  g_hash_table_remove_all (j->numbered);
  g_hash_table_remove_all (j->lamports);
  g_clear_pointer (&j->module_pos, g_hash_table_destroy);
  j->n_late = 0;
}

void
viper_join_free (ViperJoin *j)
{
  if (!j)
    return;
  g_hash_table_destroy (j->insts);      /* members hold waiters: before `waiting` */
  g_hash_table_destroy (j->counts);
  g_hash_table_destroy (j->groups);
  g_hash_table_destroy (j->stalls);
  g_hash_table_destroy (j->waiting);
  g_hash_table_destroy (j->lamports);
  g_hash_table_destroy (j->open);
  g_array_unref (j->modules);
  g_hash_table_destroy (j->numbered);
  if (j->module_pos)
    g_hash_table_destroy (j->module_pos);
  g_free (j);
}

static Count *count_get (ViperJoin *j, gint64 kind, gint64 group, gint64 proc);

/* Instance k (from 0) of (kind, -1) was numbered: by a BEGIN or an END. */
static void
numbered (ViperJoin *j, gint64 kind, gint64 k)
{
  gint64 *n = g_hash_table_lookup (j->numbered, &kind);
  if (!n)
    {
      n = g_new0 (gint64, 1);
      g_hash_table_insert (j->numbered, g_memdup2 (&kind, sizeof kind), n);
    }
  if (*n < k + 1)
    *n = k + 1;
}

void
viper_join_add_module (ViperJoin *j, gint64 proc)
{
  if (proc < 0)
    return;
  guint lo = 0, hi = j->modules->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (j->modules, gint64, mid) < proc)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < j->modules->len && g_array_index (j->modules, gint64, lo) == proc)
    return;
  g_array_insert_val (j->modules, lo, proc);
  if (j->modules_final)
    {
      /* Live input made group -1 final at a pause (viper_run_modules_known)
       * and this module is heard from only now: the collectives over -1
       * numbered so far were done without it.  Its own first ones are those
       * (it took part in them, its lines came late): they join nothing, and
       * its next one is the next instance, whose members include it. */
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, j->numbered);
      while (g_hash_table_iter_next (&it, &k, &v))
        count_get (j, *(gint64 *) k, -1, proc)->skip = *(gint64 *) v;
      j->n_late++;
    }
}

static Count *
count_get (ViperJoin *j, gint64 kind, gint64 group, gint64 proc)
{
  gint64 key[3] = { kind, group, proc };
  Count *c = g_hash_table_lookup (j->counts, key);
  if (!c)
    {
      c = g_new0 (Count, 1);
      c->kind = kind, c->group = group, c->proc = proc;
      g_hash_table_add (j->counts, c);
    }
  return c;
}

static Open *
open_get (ViperJoin *j, gint64 kind, gint64 proc, gboolean create)
{
  gint64 key[3] = { kind, proc, 0 };
  Open *o = g_hash_table_lookup (j->open, key);
  if (!o && create)
    {
      o = g_new0 (Open, 1);
      o->kind = kind, o->proc = proc;
      o->groups = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_hash_table_add (j->open, o);
    }
  return o;
}

/* The group of an END: named, or its member's oldest open BEGIN's;
 * VIPER_JOIN_GROUP_OF_BEGIN when it has none (a lone END joins nothing). */
static gint64
end_group (ViperJoin *j, gint64 kind, gint64 group, gint64 proc)
{
  Open *o = open_get (j, kind, proc, FALSE);
  if (!o || o->head >= o->groups->len)
    return VIPER_JOIN_GROUP_OF_BEGIN;
  return group != VIPER_JOIN_GROUP_OF_BEGIN ? group : g_array_index (o->groups, gint64, o->head);
}

static void
open_pop (ViperJoin *j, gint64 kind, gint64 proc)
{
  Open *o = open_get (j, kind, proc, FALSE);
  if (!o || o->head >= o->groups->len)
    return;
  if (++o->head == o->groups->len)
    {
      g_array_set_size (o->groups, 0);
      o->head = 0;
    }
}

static Inst *
inst_get (ViperJoin *j, gint64 kind, gint64 group, gint64 k, gboolean create)
{
  InstKey key = { kind, group, k };
  Inst *i = g_hash_table_lookup (j->insts, &key);
  if (!i && create)
    {
      i = g_new0 (Inst, 1);
      i->key = key;
      i->root = -1;
      i->members = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, member_free);
      g_hash_table_insert (j->insts, &i->key, i);
    }
  return i;
}

static Member *
member_get (Inst *i, gint64 proc)
{
  Member *m = g_hash_table_lookup (i->members, &proc);
  if (!m)
    {
      m = g_new0 (Member, 1);
      m->proc = proc;
      g_hash_table_insert (i->members, &m->proc, m);
    }
  return m;
}

static void
inst_maybe_drop (ViperJoin *j, Inst *i)
{
  if (i->n_members && i->ends >= i->n_members && i->transferred >= i->n_members
      && i->transferred >= g_hash_table_size (i->members))
    g_hash_table_remove (j->insts, &i->key);
}

/* The members of group, in order; NULL when it is not defined.  Group -1
 * is every module of the run, known only once the input ended (NULL
 * before): a module whose first line comes last is a member all the same,
 * whatever the line order (spec section 3). */
static const GArray *
group_members (ViperJoin *j, gint64 group)
{
  if (group == -1)
    return j->modules_final ? j->modules : NULL;
  const GroupRec *g = g_hash_table_lookup (j->groups, &group);
  return g ? g->members : NULL;
}

static void
define_group (ViperJoin *j, const ViperTram *t, GPtrArray *resume)
{
  gint64 group;
  const gint64 *members;
  guint n;
  if (!j->cls->group_def || !j->cls->group_def (t, &group, &members, &n))
    return;
  if (!g_hash_table_contains (j->groups, &group))
    {
      /* the first definition counts; repeats (one per member's file) change nothing */
      GroupRec *g = g_new0 (GroupRec, 1);
      g->members = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n);
      g_array_append_vals (g->members, members, n);
      g_hash_table_insert (j->groups, g_memdup2 (&group, sizeof group), g);
    }
  GPtrArray *stalled = g_hash_table_lookup (j->stalls, &group);
  if (stalled)
    {
      for (guint i = 0; i < stalled->len; i++)
        {
          ViperSeqList *l = stalled->pdata[i];
          l->stalled = FALSE;
          g_ptr_array_add (resume, l);
        }
      g_hash_table_remove (j->stalls, &group);
    }
}

static void
wait_for (ViperJoin *j, Inst *i, ViperTram *t, gint64 proc, Waiter **w)
{
  Member *m = member_get (i, proc);
  if (m->transferred)
    {
      if (t->adjusted < m->adjusted)
        t->adjusted = m->adjusted;
      bound_lamport (j, t, m->lamport);
      return;
    }
  if (!*w)
    {
      *w = g_new0 (Waiter, 1);
      (*w)->t = t;
      (*w)->inst = i->key;
      g_hash_table_insert (j->waiting, t, *w);
    }
  if (!m->waiters)
    m->waiters = g_ptr_array_new ();
  g_ptr_array_add (m->waiters, *w);
  (*w)->missing++;
}

/* Mark the instance's members (once, at its first END that waits for them
 * all) and count those whose BEGIN was transferred already. */
static void
fix_set (Inst *i, const gint64 *mem, guint n)
{
  if (i->set_fixed)
    return;
  i->set_fixed = TRUE;
  i->set_latest = -INFINITY;
  for (guint k = 0; k < n; k++)
    {
      Member *m = member_get (i, mem[k]);
      if (m->in_set)
        continue;               /* listed twice */
      m->in_set = TRUE;
      i->set_n++;
      if (m->transferred)
        {
          i->set_done++;
          if (m->adjusted > i->set_latest)
            i->set_latest = m->adjusted;
          i->set_lamport = MAX (i->set_lamport, m->lamport);
        }
    }
}

/* The members before a prefix END: pre_len grows over the members whose
 * BEGINs were all transferred, in member order, and as it reaches position
 * k the ENDs waiting at k take the latest time and the largest Lamport
 * number of the BEGINs at 0..k-1, exactly their own, and are released.
 * Every member is passed once per instance: a scan of P members costs
 * O(P), not O(P^2) (each END waiting for each member before it on its own:
 * 4,096 processors x 32 scans took 4 s).  While it waits, an END's own
 * adjusted time is not raised by each BEGIN that leaves, only at its
 * release (so is an END waiting for every member): nothing is written
 * from a waiting END's time; the stop at a clock reads a waiting head's
 * (viper_run_pending_earliest), and the BEGINs that left are at or before
 * that clock, so they cannot move it past. */
static void
prefix_advance (ViperJoin *j, Inst *i, ViperJoinReadyFunc ready, gpointer data)
{
  while (i->pre_len < i->pre_n)
    {
      const Member *m = g_hash_table_lookup (i->members, &i->pre_mem[i->pre_len]);
      if (!m || !m->transferred)
        return;
      guint k = i->pre_len++;
      double latest = k ? i->pre_adj[k - 1] : -INFINITY;
      guint32 lamport = k ? i->pre_lam[k - 1] : 0;
      if (m->adjusted > latest)
        latest = m->adjusted;
      i->pre_adj[k] = latest;
      i->pre_lam[k] = MAX (lamport, m->lamport);
      Waiter *w = i->pre_len < i->pre_n ? i->pre_waiters[i->pre_len] : NULL;
      if (w)
        i->pre_waiters[i->pre_len] = NULL;
      while (w)
        {
          Waiter *next = w->pre_next;
          ViperTram *e = w->t;
          w->on_prefix = FALSE;
          w->pre_next = NULL;
          if (e->adjusted < latest)
            e->adjusted = latest;
          bound_lamport (j, e, i->pre_lam[k]);
          if (!--w->missing)
            {
              g_hash_table_remove (j->waiting, e);
              e->waits--;
              if (!e->waits)
                ready (e, data);
            }
          w = next;
        }
    }
}

/* END t of the member at position upto (> 0) of mem waits for the BEGINs
 * of mem[0..upto-1]. */
static void
prefix_wait (ViperJoin *j, Inst *i, ViperTram *t, const gint64 *mem, guint n, guint upto, Waiter **w)
{
  if (!i->pre_mem)
    {
      /* the members of an instance are the same for each of its ENDs: a
       * group's first definition counts, and a module of -1 heard from late
       * is no member of the instances numbered before it (claim_end) */
      i->pre_mem = g_memdup2 (mem, sizeof (gint64) * n);
      i->pre_n = n;
      i->pre_adj = g_new (double, n);
      i->pre_lam = g_new (guint32, n);
      i->pre_waiters = g_new0 (Waiter *, n);
      prefix_advance (j, i, NULL, NULL);   /* nobody waits yet */
    }
  g_return_if_fail (upto < i->pre_n);
  /* the records of the members waited for, as a wait on each made them:
   * when the instance is dropped depends on them (inst_maybe_drop) */
  for (; i->pre_made < upto; i->pre_made++)
    member_get (i, i->pre_mem[i->pre_made]);
  if (i->pre_len >= upto)
    {
      if (t->adjusted < i->pre_adj[upto - 1])
        t->adjusted = i->pre_adj[upto - 1];
      bound_lamport (j, t, i->pre_lam[upto - 1]);
      return;
    }
  if (!*w)
    {
      *w = g_new0 (Waiter, 1);
      (*w)->t = t;
      (*w)->inst = i->key;
      g_hash_table_insert (j->waiting, t, *w);
    }
  (*w)->on_prefix = TRUE;
  (*w)->upto = upto;
  (*w)->missing++;
  (*w)->pre_next = i->pre_waiters[upto];
  i->pre_waiters[upto] = *w;
}

static GHashTable *
positions (const GArray *members)
{
  GHashTable *pos = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint k = 0; k < members->len; k++)
    if (!g_hash_table_contains (pos, &g_array_index (members, gint64, k)))
      g_hash_table_insert (pos, &g_array_index (members, gint64, k), GUINT_TO_POINTER (k + 1));
  return pos;
}

/* The first position of proc among the members of group (members->len:
 * none), found in O(1): looking along the members for each END made a
 * prefix of P members cost O(P^2) again. */
static guint
member_position (ViperJoin *j, gint64 group, const GArray *members, gint64 proc)
{
  GHashTable *pos;
  if (group != -1)
    {
      GroupRec *g = g_hash_table_lookup (j->groups, &group);   /* members is g->members (group_members) */
      if (!g->pos)
        g->pos = positions (g->members);
      pos = g->pos;
    }
  else if (members == j->modules)
    {
      /* the modules change only by an insertion: made again when there are more */
      if (!j->module_pos || j->module_pos_n != members->len)
        {
          if (j->module_pos)
            g_hash_table_destroy (j->module_pos);
          j->module_pos = positions (members);
          j->module_pos_n = members->len;
        }
      pos = j->module_pos;
    }
  else
    {
      /* -1 without the modules heard from late: sorted all the same */
      guint lo = 0, hi = members->len;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (g_array_index (members, gint64, mid) < proc)
            lo = mid + 1;
          else
            hi = mid;
        }
      return lo < members->len && g_array_index (members, gint64, lo) == proc ? lo : members->len;
    }
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (pos, &proc));
  return at ? at - 1 : members->len;
}

static void
claim_end (ViperJoin *j, ViperTram *t, gint64 kind, gint64 group, ViperJoinShape shape, const GArray *members)
{
  Count *c = count_get (j, kind, group, t->proc);
  if (group == -1)
    {
      if (c->ends < c->skip)
        {
          c->ends++;            /* done without it (viper_join_add_module) */
          return;
        }
      numbered (j, kind, c->ends);
    }
  Inst *i = inst_get (j, kind, group, c->ends++, TRUE);
  GArray *own = NULL;
  if (group == -1 && j->n_late)
    {
      /* a module heard from after this instance was numbered is not one of
       * its members (viper_join_add_module): nobody waits for its begin */
      own = g_array_sized_new (FALSE, FALSE, sizeof (gint64), members->len);
      for (guint m = 0; m < members->len; m++)
        {
          gint64 key[3] = { kind, -1, g_array_index (members, gint64, m) };
          const Count *mc = g_hash_table_lookup (j->counts, key);
          if (!mc || mc->skip <= i->key.k)
            g_array_append_val (own, key[2]);
        }
      members = own;
    }
  if (!i->n_members)
    i->n_members = MAX (members->len, 1u);
  i->ends++;
  const gint64 *mem = (const gint64 *) (gpointer) members->data;
  guint upto = members->len;
  Waiter *w = NULL;
  switch (shape)
    {
    case VIPER_JOIN_ONE_TO_ALL:
      if (i->root >= 0 && i->root != t->proc)
        wait_for (j, i, t, i->root, &w);
      upto = 0;
      break;
    case VIPER_JOIN_ALL_TO_ONE:
      if (t->proc != i->root)
        upto = 0;
      break;
    case VIPER_JOIN_PREFIX:
      {
        guint me = member_position (j, group, members, t->proc);
        if (me < members->len && me > 0)
          prefix_wait (j, i, t, mem, members->len, me, &w);
        upto = 0;
        break;
      }
    case VIPER_JOIN_ALL_TO_ALL:
    default:
      break;
    }
  gboolean all = upto == members->len && upto > 0;
  if (all)
    {
      /* every member: one wait on the instance (its own begin counts too:
       * it leaves before this end anyway, in this end's own list) */
      fix_set (i, mem, members->len);
      if (i->set_done < i->set_n)
        {
          if (!w)
            {
              w = g_new0 (Waiter, 1);
              w->t = t;
              w->inst = i->key;
              g_hash_table_insert (j->waiting, t, w);
            }
          w->on_all = TRUE;
          w->missing++;
          if (!i->all_waiters)
            i->all_waiters = g_ptr_array_new ();
          g_ptr_array_add (i->all_waiters, w);
        }
      else
        {
          if (t->adjusted < i->set_latest)
            t->adjusted = i->set_latest;
          bound_lamport (j, t, i->set_lamport);
        }
    }
  GroupRec *g = group == -1 ? NULL : g_hash_table_lookup (j->groups, &group);
  if (g && !g->transferred)
    {
      if (!w)
        {
          w = g_new0 (Waiter, 1);
          w->t = t;
          w->inst = i->key;
          g_hash_table_insert (j->waiting, t, w);
        }
      if (!g->waiters)
        g->waiters = g_ptr_array_new ();
      g_ptr_array_add (g->waiters, w);
      w->missing++;
    }
  if (w)
    t->waits++;
  inst_maybe_drop (j, i);
  if (own)
    g_array_unref (own);
}

gboolean
viper_join_claim (ViperJoin *j, ViperTram *t, ViperSeqList *l, GPtrArray *resume)
{
  gint64 kind = 0, group = -1, root = -1;
  ViperJoinShape shape = VIPER_JOIN_ALL_TO_ALL;
  switch (j->cls->classify (t, &kind, &group, &root, &shape))
    {
    case VIPER_JOIN_GROUP:
      define_group (j, t, resume);
      return TRUE;
    case VIPER_JOIN_BEGIN:
      {
        if (group == -1 && !j->modules_final)
          j->wants_modules = TRUE;
        Count *c = count_get (j, kind, group, t->proc);
        g_array_append_val (open_get (j, kind, t->proc, TRUE)->groups, group);
        if (group == -1)
          {
            if (c->begins < c->skip)
              {
                c->begins++;    /* done without it (viper_join_add_module) */
                return TRUE;
              }
            numbered (j, kind, c->begins);
          }
        Inst *i = inst_get (j, kind, group, c->begins++, TRUE);
        member_get (i, t->proc);
        if (root >= 0)
          i->root = root;
        return TRUE;
      }
    case VIPER_JOIN_END:
      {
        group = end_group (j, kind, group, t->proc);
        if (group == VIPER_JOIN_GROUP_OF_BEGIN)
          return TRUE;
        const GArray *members = group_members (j, group);
        if (!members)
          {
            if (group == -1)
              j->wants_modules = TRUE;
            GPtrArray *stalled = g_hash_table_lookup (j->stalls, &group);
            if (!stalled)
              {
                stalled = g_ptr_array_new ();
                g_hash_table_insert (j->stalls, g_memdup2 (&group, sizeof group), stalled);
              }
            g_ptr_array_add (stalled, l);
            l->stalled = TRUE;
            return FALSE;
          }
        open_pop (j, kind, t->proc);
        claim_end (j, t, kind, group, shape, members);
        return TRUE;
      }
    case VIPER_JOIN_NONE:
    default:
      return TRUE;
    }
}

gboolean
viper_join_wants_modules (const ViperJoin *j)
{
  return j->wants_modules && !j->modules_final;
}

gboolean
viper_join_end_waits_for_modules (const ViperJoin *j)
{
  gint64 all = -1;
  return !j->modules_final && g_hash_table_contains (j->stalls, &all);
}

void
viper_join_modules_final (ViperJoin *j, GPtrArray *resume)
{
  if (j->modules_final)
    return;
  j->modules_final = TRUE;
  gint64 all = -1;
  GPtrArray *stalled = g_hash_table_lookup (j->stalls, &all);
  if (!stalled)
    return;
  for (guint i = 0; i < stalled->len; i++)
    {
      ViperSeqList *l = stalled->pdata[i];
      l->stalled = FALSE;
      g_ptr_array_add (resume, l);
    }
  g_hash_table_remove (j->stalls, &all);
}

/* A dependency of each waiter was transferred at adjusted (-inf: no time bound). */
static void
wake (ViperJoin *j, GPtrArray *waiters, double adjusted, guint32 lamport, ViperJoinReadyFunc ready, gpointer data)
{
  if (!waiters)
    return;
  for (guint k = 0; k < waiters->len; k++)
    {
      Waiter *w = waiters->pdata[k];
      ViperTram *e = w->t;
      if (e->adjusted < adjusted)
        e->adjusted = adjusted;
      bound_lamport (j, e, lamport);
      if (--w->missing)
        continue;
      g_hash_table_remove (j->waiting, e);
      e->waits--;
      if (!e->waits)
        ready (e, data);
    }
  g_ptr_array_unref (waiters);
}

void
viper_join_transferred (ViperJoin *j, const ViperTram *t, ViperJoinReadyFunc ready, gpointer data)
{
  gint64 kind = 0, group = -1, root = -1;
  ViperJoinShape shape = VIPER_JOIN_ALL_TO_ALL;
  ViperJoinRole role = j->cls->classify (t, &kind, &group, &root, &shape);
  if (role == VIPER_JOIN_GROUP)
    {
      const gint64 *members;
      guint n;
      GroupRec *g = j->cls->group_def && j->cls->group_def (t, &group, &members, &n)
                    ? g_hash_table_lookup (j->groups, &group) : NULL;
      if (g && !g->transferred)
        {
          g->transferred = TRUE;
          wake (j, g->waiters, -INFINITY, 0, ready, data);
          g->waiters = NULL;
        }
      return;
    }
  if (role != VIPER_JOIN_BEGIN)
    return;
  Count *c = count_get (j, kind, group, t->proc);
  if (group == -1 && c->transferred < c->skip)
    {
      c->transferred++;         /* done without it */
      return;
    }
  Inst *i = inst_get (j, kind, group, c->transferred++, FALSE);
  if (!i)
    return;
  Member *m = member_get (i, t->proc);
  m->transferred = TRUE;
  m->adjusted = t->adjusted;
  m->lamport = t->lamport;
  i->transferred++;
  GPtrArray *waiters = m->waiters;
  m->waiters = NULL;
  wake (j, waiters, t->adjusted, t->lamport, ready, data);
  if (i->pre_mem)
    prefix_advance (j, i, ready, data);
  if (m->in_set)
    {
      i->set_done++;
      if (t->adjusted > i->set_latest)
        i->set_latest = t->adjusted;
      i->set_lamport = MAX (i->set_lamport, t->lamport);
      if (i->set_done == i->set_n && i->all_waiters)
        {
          GPtrArray *all = i->all_waiters;
          i->all_waiters = NULL;
          wake (j, all, i->set_latest, i->set_lamport, ready, data);
        }
    }
  inst_maybe_drop (j, i);
}

char *
viper_join_explain (const ViperJoin *j, const ViperTram *t)
{
  const Waiter *w = g_hash_table_lookup (j->waiting, t);
  if (w)
    {
      const Inst *i = g_hash_table_lookup (j->insts, &w->inst);
      gint64 first = -1, own = -1;
      guint missing = w->missing;
      if (i)
        {
          guint n_all = 0;
          GHashTableIter it;
          gpointer v;
          g_hash_table_iter_init (&it, i->members);
          while (g_hash_table_iter_next (&it, NULL, &v))
            {
              const Member *m = v;
              gboolean waited = m->waiters && g_ptr_array_find (m->waiters, w, NULL);
              if (w->on_all && m->in_set && !m->transferred)
                {
                  if (m->proc == t->proc)
                    {
                      own = m->proc;
                      continue;
                    }
                  waited = TRUE;
                  n_all++;
                }
              if (waited && (first < 0 || m->proc < first))
                first = m->proc;
            }
          if (w->on_prefix)
            {
              /* the members before it whose begin is missing, as many
               * times as they are listed */
              guint n_pre = 0;
              for (guint k = 0; k < w->upto && k < i->pre_n; k++)
                {
                  const Member *m = g_hash_table_lookup (i->members, &i->pre_mem[k]);
                  if (m && m->transferred)
                    continue;
                  n_pre++;
                  if (first < 0 || i->pre_mem[k] < first)
                    first = i->pre_mem[k];
                }
              missing = missing - 1 + n_pre;   /* the prefix counts as its missing begins */
            }
          if (w->on_all)
            missing = missing - 1 + n_all;   /* the instance counts as its missing begins */
          if (first < 0)
            first = own;        /* only its own begin, still ahead of it */
        }
      if (first < 0)
        return g_strdup_printf ("the definition of group %" G_GINT64_FORMAT " to leave (collective %" G_GINT64_FORMAT
                                " #%" G_GINT64_FORMAT ")", w->inst.group, w->inst.kind, w->inst.k + 1);
      return g_strdup_printf ("the begin of collective %" G_GINT64_FORMAT " #%" G_GINT64_FORMAT " over group %"
                              G_GINT64_FORMAT " on proc %" G_GINT64_FORMAT " (%u begin%s missing)",
                              w->inst.kind, w->inst.k + 1, w->inst.group, first, MAX (missing, 1u),
                              MAX (missing, 1u) == 1 ? "" : "s");
    }
  gint64 kind = 0, group = -1, root = -1;
  ViperJoinShape shape = VIPER_JOIN_ALL_TO_ALL;
  if (!(t->flags & VIPER_TRAM_F_CLAIMED) && j->cls->classify (t, &kind, &group, &root, &shape) == VIPER_JOIN_END
      && g_hash_table_contains (j->stalls, (group = end_group ((ViperJoin *) j, kind, group, t->proc), &group)))
    {
      if (group == -1)
        return g_strdup_printf ("the end of the input: collective %" G_GINT64_FORMAT " on proc %" G_GINT64_FORMAT
                                " is over all processors (group -1), and a processor may still appear",
                                kind, t->proc);
      return g_strdup_printf ("the definition of group %" G_GINT64_FORMAT " (used by collective %" G_GINT64_FORMAT
                            " on proc %" G_GINT64_FORMAT ")", group, kind, t->proc);
    }
  return NULL;
}
