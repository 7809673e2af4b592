/* run-stuck.c - why a module's list is held up, in words, for the
 * stuck report and the pending bound's message. */
#include <math.h>
#include "run-priv.h"
#include "join.h"

static const char *
type_name (const ViperRun *run, guint16 type, char *buf, gsize n)
{
  if (type != VIPER_TYPE_UNKNOWN && run->paradigm->types[type].name)
    return run->paradigm->types[type].name;
  g_snprintf (buf, n, "tram type %u", type);
  return buf;
}

/* The tram type that fills a slot (first one of its class), for messages. */
static const char *
slot_type_name (const ViperRun *run, const ViperSlot *s, char *buf, gsize n)
{
  for (guint i = 0; i < run->paradigm->n_types; i++)
    if (run->paradigm->types[i].role == VIPER_ROLE_SLOT && type_class (run, (guint16) i) == s->match_class)
      return run->paradigm->types[i].name;
  g_snprintf (buf, n, "slot class %u", s->match_class);
  return buf;
}

/* reason + ", proc P's line FILE:LINE was rejected" when P had a rejected
 * line: the tram waited for may be that one (spec section 1). */
static char *
with_rejected (const ViperRun *run, char *reason, gint64 proc)
{
  const RejectedLines *ul = g_hash_table_lookup (run->uninterpreted_at, &proc);
  if (ul)
    {
      char more[48] = "";
      if (ul->n > REJECTED_NAMED)
        g_snprintf (more, sizeof more, " and %" G_GUINT64_FORMAT " more", ul->n - REJECTED_NAMED);
      char *r = g_strdup_printf ("%s; proc %" G_GINT64_FORMAT "'s line%s %s%s %s data in a format not interpreted "
                                 "(DTYPE other than 2: left uninterpreted)", reason, proc, ul->n > 1 ? "s" : "",
                                 ul->text->str, more, ul->n > 1 ? "have" : "has");
      g_free (reason);
      reason = r;
    }
  const RejectedLines *rl = g_hash_table_lookup (run->rejected_at, &proc);
  if (!rl)
    return reason;
  char more[48] = "";
  if (rl->n > REJECTED_NAMED)
    g_snprintf (more, sizeof more, " and %" G_GUINT64_FORMAT " more", rl->n - REJECTED_NAMED);
  char *r = g_strdup_printf ("%s; proc %" G_GINT64_FORMAT "'s line%s %s%s %s rejected", reason, proc,
                             rl->n > 1 ? "s" : "", rl->text->str, more, rl->n > 1 ? "were" : "was");
  g_free (reason);
  return r;
}

static char *explain_head_raw (const ViperRun *run, const ViperSeqList *l, const ViperTram *h, gint64 *from);

static char *
explain_head (const ViperRun *run, const ViperSeqList *l, const ViperTram *h)
{
  gint64 from = G_MININT64;
  char *r = explain_head_raw (run, l, h, &from);
  return from != G_MININT64 ? with_rejected (run, r, from) : r;
}

/* Why h cannot leave; *from = the proc whose tram it waits for, if known. */
static char *
explain_head_raw (const ViperRun *run, const ViperSeqList *l, const ViperTram *h, gint64 *from)
{
  char b1[64], b2[64];
  char *joined = run->join ? viper_join_explain (run->join, h) : NULL;
  if (joined)
    return joined;
  if (!(h->flags & VIPER_TRAM_F_CLAIMED))
    {
      const ViperTramType *tt = tram_type (run, h);
      gint64 k1 = tt && tt->key1_field != VIPER_NO_FIELD ? viper_tram_datum (h, (guint) tt->key1_field, 0) : 0;
      *from = k1;
      return g_strdup_printf ("the primitive of %s seq %" G_GINT64_FORMAT " of proc %" G_GINT64_FORMAT
                              " (no matching start from proc %" G_GINT64_FORMAT " yet)",
                              type_name (run, h->type, b1, sizeof b1), h->seq, l->proc, k1);
    }
  if (h->waits && !h->prim && viper_run_waits_for_input (run, h))
    return g_strdup_printf ("%s seq %" G_GINT64_FORMAT " of proc %" G_GINT64_FORMAT " waits for the end of the input "
                            "(or a pause of live input): it goes after the trams read with it",
                            type_name (run, h->type, b1, sizeof b1), h->seq, l->proc);
  if (h->waits && h->prim)
    {
      const Prim *p = h->prim;
      const ViperSlot *s = &p->profile->slots[p->entries[h->slot].slot];
      const PrimEntry *dep = &p->entries[p->slot_entry[s->after]];
      const ViperSlot *ds = &p->profile->slots[dep->slot];
      *from = dep->list;
      if (dep->filled && !dep->transferred && dep->tram)
        return g_strdup_printf ("%s seq %" G_GINT64_FORMAT " of proc %" G_GINT64_FORMAT " (%s of proc %" G_GINT64_FORMAT ")",
                                type_name (run, dep->tram->type, b1, sizeof b1), dep->tram->seq, dep->tram->proc,
                                p->profile->name, p->caller);
      if (dep->slot == 0)
        return g_strdup_printf ("start of %s of proc %" G_GINT64_FORMAT, p->profile->name, p->caller);
      if (dep->list == G_MININT64)
        return g_strdup_printf ("partner tram %s from any member (%s of proc %" G_GINT64_FORMAT ")",
                                slot_type_name (run, ds, b2, sizeof b2), p->profile->name, p->caller);
      return g_strdup_printf ("partner tram %s from proc %" G_GINT64_FORMAT " (%s of proc %" G_GINT64_FORMAT ")",
                              slot_type_name (run, ds, b2, sizeof b2), dep->list, p->profile->name, p->caller);
    }
  return g_strdup_printf ("%s seq %" G_GINT64_FORMAT " of proc %" G_GINT64_FORMAT,
                          type_name (run, h->type, b1, sizeof b1), h->seq, l->proc);
}

GArray *
viper_run_stuck (const ViperRun *run)
{
  if (run->view)
    return run->view->stuck (run->view_data);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (ViperStuck));
  GArray *procs = viper_run_procs (run);
  for (guint i = 0; i < procs->len; i++)
    {
      gint64 proc = g_array_index (procs, gint64, i);
      const ViperSeqList *l = g_hash_table_lookup (run->lists, &proc);
      if (!l->in_flight)
        continue;
      ViperStuck s = { .proc = proc, .trams = l->in_flight };
      if (l->head && l->head->state != VIPER_TRAM_READY)
        s.waiting_for = explain_head (run, l, l->head);
      else if (l->head)
        s.waiting_for = g_strdup ("nothing but the stop point (ready to transfer)");
      else
        s.waiting_for = with_rejected (run, g_strdup_printf ("seq %" G_GINT64_FORMAT " of proc %" G_GINT64_FORMAT,
                                                             l->next_seq, proc), proc);
      g_array_append_val (out, s);
    }
  g_array_unref (procs);
  return out;
}

/* Own bound of l's next tram, as maybe_ready() (run.c) would fix its t':
 * offsets never go below 0.  -inf when the next tram has not arrived. */
static double
head_bound (const ViperSeqList *l)
{
  if (!l->head)
    return -INFINITY;
  double t = l->head->time + l->offset;
  if (l->head->adjusted > t)
    t = l->head->adjusted;
  if (l->last_adjusted > t)
    t = l->last_adjusted;
  return t;
}

double
viper_run_pending_earliest (const ViperRun *run)
{
  GArray *procs = viper_run_procs (run);
  guint n = procs->len;
  double *b = g_new (double, n);
  gint *dep = g_new (gint, n);
  GHashTable *index = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < n; i++)
    g_hash_table_insert (index, &g_array_index (procs, gint64, i), GUINT_TO_POINTER (i + 1));
  for (guint i = 0; i < n; i++)
    {
      const ViperSeqList *l = g_hash_table_lookup (run->lists, &g_array_index (procs, gint64, i));
      dep[i] = -1;
      b[i] = l->in_flight ? head_bound (l) : INFINITY;
      if (!l->in_flight || !l->head || l->head->state == VIPER_TRAM_READY)
        continue;
      /* The tram it waits for is in (or will come to) proc from's list at or
       * after that list's next tram: its t' is no lower than that one's. */
      gint64 from = G_MININT64;
      g_free (explain_head_raw (run, l, l->head, &from));
      guint k = from != G_MININT64 && from != l->proc ? GPOINTER_TO_UINT (g_hash_table_lookup (index, &from)) : 0;
      if (k)
        dep[i] = (gint) k - 1;
    }
  /* raise each bound to what it waits for; every pass keeps them lower
   * bounds, so a chain longer than the passes only leaves them weaker */
  for (guint pass = 0; pass < 64; pass++)
    {
      gboolean changed = FALSE;
      for (guint i = 0; i < n; i++)
        if (dep[i] >= 0 && b[dep[i]] != INFINITY && b[dep[i]] > b[i])
          {
            b[i] = b[dep[i]];
            changed = TRUE;
          }
      if (!changed)
        break;
    }
  double earliest = INFINITY;
  for (guint i = 0; i < n; i++)
    if (b[i] < earliest)
      earliest = b[i];
  g_hash_table_destroy (index);
  g_free (b);
  g_free (dep);
  g_array_unref (procs);
  return earliest;
}

void
viper_stuck_array_free (GArray *stuck)
{
  if (!stuck)
    return;
  for (guint i = 0; i < stuck->len; i++)
    g_free (g_array_index (stuck, ViperStuck, i).waiting_for);
  g_array_unref (stuck);
}
