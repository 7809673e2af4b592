/* seqlist.c - sequence lists: the cut between arrived-in-order and early trams.
 *
 * The window is a ring of pointers indexed by seq modulo its capacity; it
 * covers [next_seq, next_seq + cap).  A tram further ahead than the largest
 * window goes to an ordered tree and is pulled into place when the cut nears it.
 * When the tram at next_seq arrives, it and every consecutive successor that
 * is already waiting move to the FIFO queue in one sweep.
 */
#include <math.h>
#include "seqlist.h"

#define WIN_MAX (1u << 16)

void
viper_seqlist_init (ViperSeqList *l, gint64 proc)
{
  memset (l, 0, sizeof *l);
  l->proc = proc;
  l->next_seq = 1;
  l->last_adjusted = -INFINITY;
}

static gboolean
release_far (gpointer key, gpointer value, gpointer user)
{
  (void) key;
  gpointer *cb = user;
  ((void (*) (ViperTram *, gpointer)) cb[0]) (value, cb[1]);
  return FALSE;
}

static gint
cmp_seq (gconstpointer a, gconstpointer b, gpointer data)
{
  (void) data;
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

static guint
far_size (const ViperSeqList *l)
{
  return l->far ? (guint) g_tree_nnodes (l->far) : 0;
}

void
viper_seqlist_clear (ViperSeqList *l, void (*release) (ViperTram *t, gpointer), gpointer data)
{
  for (ViperTram *t = l->head; t;)
    {
      ViperTram *n = t->next;
      release (t, data);
      t = n;
    }
  if (l->win)
    for (guint i = 0; i < l->win_cap; i++)
      if (l->win[i])
        release (l->win[i], data);
  if (l->far)
    {
      gpointer cb[2] = { (gpointer) release, data };
      g_tree_foreach (l->far, release_far, cb);
      g_tree_destroy (l->far);
    }
  g_free (l->win);
  gint64 proc = l->proc;
  viper_seqlist_init (l, proc);
}

guint
viper_seqlist_initial (const ViperSeqList *l)
{
  return l->win_count + far_size (l);
}

static void
window_grow (ViperSeqList *l, guint64 need)
{
  guint cap = l->win_cap ? l->win_cap : 16;
  while (cap <= need && cap < WIN_MAX)
    cap <<= 1;
  if (cap == l->win_cap)
    return;
  ViperTram **w = g_new0 (ViperTram *, cap);
  for (guint i = 0; i < l->win_cap; i++)
    if (l->win[i])
      w[(guint64) l->win[i]->seq & (cap - 1)] = l->win[i];
  g_free (l->win);
  l->win = w;
  l->win_cap = cap;
}

static void
append (ViperSeqList *l, ViperTram *t, ViperTram **first)
{
  t->next = NULL;
  t->state = VIPER_TRAM_QUEUED;
  if (l->tail)
    l->tail->next = t;
  else
    l->head = t;
  l->tail = t;
  if (!l->claim)
    l->claim = t;
  if (!*first)
    *first = t;
}

/* Take the INITIAL tram for seq from the window or the far tree, if any. */
static ViperTram *
take_waiting (ViperSeqList *l, gint64 seq)
{
  if (l->win_cap)
    {
      ViperTram **slot = &l->win[(guint64) seq & (l->win_cap - 1)];
      if (*slot && (*slot)->seq == seq)
        {
          ViperTram *t = *slot;
          *slot = NULL;
          l->win_count--;
          return t;
        }
    }
  if (far_size (l))
    {
      ViperTram *t = g_tree_lookup (l->far, &seq);
      if (t)
        {
          g_tree_remove (l->far, &seq);
          return t;
        }
    }
  return NULL;
}

/* After the cut moved, bring far-ahead trams that now fit into the window.
 * The far set is ordered by sequence number, so only the trams that move
 * are looked at: each far tram costs O(log n) once, whatever the input. */
static void
refill_from_far (ViperSeqList *l)
{
  if (!far_size (l) || !l->win_cap)
    return;
  GTreeNode *n;
  while ((n = g_tree_node_first (l->far)))
    {
      ViperTram *t = g_tree_node_value (n);
      if ((guint64) (t->seq - l->next_seq) >= l->win_cap)
        break;
      l->win[(guint64) t->seq & (l->win_cap - 1)] = t;
      l->win_count++;
      g_tree_remove (l->far, &t->seq);
    }
}

ViperSeqResult
viper_seqlist_insert (ViperSeqList *l, ViperTram *t, ViperTram **first_queued)
{
  *first_queued = NULL;
  gint64 seq = t->seq;
  if (seq < l->next_seq)
    return VIPER_SEQ_DUPLICATE;
  if (seq > l->next_seq)
    {
      guint64 dist = (guint64) (seq - l->next_seq);
      if (dist >= l->win_cap)
        window_grow (l, dist);
      if (dist < l->win_cap)
        {
          ViperTram **slot = &l->win[(guint64) seq & (l->win_cap - 1)];
          if (*slot)
            return VIPER_SEQ_DUPLICATE;
          if (far_size (l) && g_tree_lookup (l->far, &seq))
            return VIPER_SEQ_DUPLICATE;
          *slot = t;
          l->win_count++;
        }
      else
        {
          if (!l->far)
            l->far = g_tree_new_full (cmp_seq, NULL, NULL, NULL);
          if (g_tree_lookup (l->far, &seq))
            return VIPER_SEQ_DUPLICATE;
          g_tree_insert (l->far, &t->seq, t);
        }
      t->state = VIPER_TRAM_INITIAL;
      return VIPER_SEQ_INITIAL;
    }
  /* seq == next_seq: it and its waiting successors pass the cut. */
  if (far_size (l) && g_tree_lookup (l->far, &seq))
    return VIPER_SEQ_DUPLICATE;
  append (l, t, first_queued);
  l->next_seq++;
  gboolean had_far = far_size (l) > 0;
  while (l->win_count || far_size (l))
    {
      ViperTram *n = take_waiting (l, l->next_seq);
      if (!n)
        break;
      append (l, n, first_queued);
      l->next_seq++;
    }
  if (had_far)
    refill_from_far (l);
  return VIPER_SEQ_QUEUED;
}
