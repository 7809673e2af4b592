/* scheduler-modules.c - every module of the run, learnt before the end of
 * the input (group -1 of a collective: spec picl.md section 3).
 *
 * An END over SUBSET -1 waits for the BEGIN of every processor of the run,
 * and which processors those are is certain only at the end of the input: a
 * processor whose first line comes last is one of them all the same.
 * Waiting for the end kept every later tram of a trace in memory (the
 * bound --max-pending then refused lines of a sorted trace), and a live
 * session showed nothing after its first global barrier.  So, when the run
 * first claims a collective over -1 (viper_run_wants_modules):
 *   - every source a regular file: the scheduler reads the processors of the
 *     files ahead, each file parsed again by a file source of its own and
 *     every tram checked by the run's own rules (viper_run_accepts), nothing
 *     replayed; the run and the model are told them and the collective goes
 *     on as soon as its begins are in.  They are the processors the end of
 *     the input would give (the same parser, the same rules), so the run,
 *     its states and its exports are the same; only the memory and the
 *     delay are not.  Past --max-procs processors nothing is learnt (which
 *     ones the bound keeps depends on the order they come in).
 *   - a live source (--listen): at a pause of the input (nothing to read,
 *     nothing ready: engine_one), the processors heard from so far; one
 *     whose first line comes later is no member of the collectives before.
 *   - otherwise (standard input, a FIFO): at the end of the input, as it
 *     cannot be read twice.
 * What the files held is remembered for a reset or a seek from the start.
 */
#include "scheduler.h"
#include "scheduler-priv.h"

/* Every source is a regular file, read by path (a kept trace for global
 * time plays back such a file too), and the file at that path is still the
 * one it opened, unchanged (not replaced, not grown): them, else NULL. */
static GPtrArray *
file_sources (ViperScheduler *s)
{
  GPtrArray *paths = g_ptr_array_new ();
  for (guint i = 0; i < s->sources->len; i++)
    {
      const ViperTramSource *src = g_array_index (s->sources, SourceSlot, i).src;
      if (!g_str_equal (src->klass->kind, "file") || !viper_tram_source_same_file (src, src->name))
        {
          g_ptr_array_unref (paths);
          return NULL;
        }
      g_ptr_array_add (paths, (gpointer) src);
    }
  return paths;
}

static gint
cmp_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* The processors whose trams the run would take from these sources' files
 * (read again by name), sorted; NULL when a file cannot be read, is not the
 * same any more, or they are more than max. */
static GArray *
read_modules (ViperRun *run, GPtrArray *origs, guint64 max)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperChannels *channels = viper_channels_new ();
  GHashTable *seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < origs->len; i++)
    {
      const ViperTramSource *orig = g_ptr_array_index (origs, i);
      ViperTramSource *src = viper_file_source_new (orig->name, pool, NULL, channels, NULL);
      if (!src || src->file_dev != orig->file_dev || src->file_ino != orig->file_ino
          || src->file_size != orig->file_size || src->file_mtime_ns != orig->file_mtime_ns)
        {
          /* replaced or changed between the look and the open */
          if (src)
            viper_tram_source_free (src);
          ok = FALSE;
          break;
        }
      for (ViperTram *t; ok && (t = viper_get_tram (src));)
        {
          /* every PROC counts against the bound, as every list does in
           * the run (the program manager's -1 too); only >= 0 are modules */
          if (viper_run_accepts (run, t) && !g_hash_table_contains (seen, &t->proc))
            {
              g_hash_table_add (seen, g_memdup2 (&t->proc, sizeof t->proc));
              ok = g_hash_table_size (seen) <= max;
            }
          viper_tram_pool_release (pool, t);
        }
      viper_tram_source_free (src);
    }
  GArray *procs = NULL;
  if (ok)
    {
      procs = g_array_sized_new (FALSE, FALSE, sizeof (gint64), g_hash_table_size (seen));
      GHashTableIter it;
      gpointer k;
      g_hash_table_iter_init (&it, seen);
      while (g_hash_table_iter_next (&it, &k, NULL))
        if (*(gint64 *) k >= 0)
          g_array_append_val (procs, *(gint64 *) k);
      g_array_sort (procs, cmp_i64);
    }
  g_hash_table_destroy (seen);
  viper_channels_free (channels);
  viper_tram_pool_free (pool);
  return procs;
}

static void
tell (ViperScheduler *s, const GArray *procs)
{
  viper_run_modules_known (s->run, procs);
  if (s->model)
    viper_model_set_modules (s->model, procs);
}

void
viper_sched_learn_modules (ViperScheduler *s)
{
  s->modules_tried = TRUE;
  GPtrArray *still = s->known_modules ? file_sources (s) : NULL;
  if (s->known_modules && !still)
    g_clear_pointer (&s->known_modules, g_array_unref);   /* a file changed since: read again */
  if (still)
    g_ptr_array_unref (still);
  if (!s->known_modules)
    {
      GPtrArray *files = file_sources (s);
      if (files)
        {
          s->known_modules = read_modules (s->run, files, viper_run_max_procs (s->run));
          g_ptr_array_unref (files);
        }
    }
  if (s->known_modules)
    tell (s, s->known_modules);
}

gboolean
viper_sched_modules_at_pause (ViperScheduler *s)
{
  if (!viper_run_wants_modules (s->run))
    return FALSE;
  gboolean live = FALSE;
  for (guint i = 0; i < s->sources->len && !live; i++)
    live = g_str_equal (g_array_index (s->sources, SourceSlot, i).src->klass->kind, "listen");
  if (!live)
    return FALSE;
  GArray *procs = viper_run_procs (s->run);
  tell (s, procs);
  g_array_unref (procs);
  return TRUE;
}
