/* run-query.c - what the run answers about itself: its clock, offsets,
 * counts and modules, and the settings that change how it works. */
#include "run-priv.h"

void
viper_run_set_any_order (ViperRun *run, gboolean any_order)
{
  g_return_if_fail (run->heap_len == 0);
  run->any_order = any_order;
}

void
viper_run_set_time_map (ViperRun *run, ViperTimeMapFunc map, gpointer data)
{
  run->time_map = map;
  run->time_map_data = data;
}

ViperTimeMapFunc
viper_run_get_time_map (const ViperRun *run, gpointer *data)
{
  *data = run->time_map_data;
  return run->time_map;
}

gboolean
viper_run_last_cause (const ViperRun *run, gint64 *proc, gint64 *seq, double *time)
{
  if (!run->cause_valid)
    return FALSE;
  *proc = run->cause_proc;
  *seq = run->cause_seq;
  *time = run->cause_time;
  return TRUE;
}

void
viper_run_set_view (ViperRun *run, const ViperRunView *view, gpointer data)
{
  run->view = view;
  run->view_data = data;
}

double
viper_run_clock (const ViperRun *run)
{
  if (run->view)
    return run->view->clock (run->view_data);
  return run->clock;
}

double
viper_run_offset (const ViperRun *run, gint64 proc)
{
  if (run->view)
    return run->view->offset (run->view_data, proc);
  ViperSeqList *l = g_hash_table_lookup (run->lists, &proc);
  return l ? l->offset : 0.0;
}

double
viper_run_decay (const ViperRun *run)
{
  return run->decay;
}

const ViperParadigm *
viper_run_paradigm (const ViperRun *run)
{
  return run->paradigm;
}

void
viper_run_engine_counts (const ViperRun *run, ViperCounts *out)
{
  *out = run->counts;
  out->pending = run->counts.read - run->counts.transferred - run->counts.rejected;
}

void
viper_run_counts (const ViperRun *run, ViperCounts *out)
{
  if (run->view)
    {
      run->view->counts (run->view_data, out);
      return;
    }
  *out = run->counts;
  out->pending = run->counts.read - run->counts.transferred - run->counts.rejected;
}

static gint
cmp_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

GArray *
viper_run_procs (const ViperRun *run)
{
  /* every view's layout asks, several times a frame: walking and sorting
   * 1,024 lists each time showed in the GUI's profile, so the sorted list
   * is kept until a list is added or the run cleared */
  ViperRun *mut = (ViperRun *) run;
  if (!mut->procs_sorted)
    {
      GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (gint64), g_hash_table_size (run->lists));
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, run->lists);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_array_append_val (a, ((ViperSeqList *) v)->proc);
      g_array_sort (a, cmp_i64);
      mut->procs_sorted = a;
    }
  GArray *copy = g_array_sized_new (FALSE, FALSE, sizeof (gint64), mut->procs_sorted->len);
  g_array_append_vals (copy, mut->procs_sorted->data, mut->procs_sorted->len);
  return copy;
}

void
viper_run_foreach_pending (const ViperRun *run, void (*fn) (const ViperTram *t, gpointer data), gpointer data)
{
  GArray *procs = viper_run_procs (run);
  for (guint i = 0; i < procs->len; i++)
    {
      const ViperSeqList *l = g_hash_table_lookup (run->lists, &g_array_index (procs, gint64, i));
      if (l && l->in_flight)
        viper_seqlist_foreach (l, fn, data);
    }
  g_array_unref (procs);
}

guint64
viper_run_proc_count (const ViperRun *run, gint64 proc)
{
  ViperSeqList *l = g_hash_table_lookup (run->lists, &proc);
  return l ? l->inserted : 0;
}

gsize
viper_run_bytes_in_flight (const ViperRun *run)
{
  return viper_tram_pool_bytes_in_use (run->pool);
}
