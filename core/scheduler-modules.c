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
 *     nothing ready: engine_one) while an end over -1 is held up, the
 *     processors heard from so far; one whose first line comes later is no
 *     member of the collectives numbered before it (core/join.c).
 *   - otherwise (standard input, a FIFO): at the end of the input, as it
 *     cannot be read twice.
 * What the files held is remembered for a reset or a seek from the start.
 *
 * The files are read on a thread of their own, with a run of its own for
 * the rules (the engine's type cache is not shared), while the engine waits
 * (VIPER_STOP_WAITING, as for live input): the memory does not grow
 * meanwhile, and the GUI's main loop goes on.  A timeout source polls for
 * the end of the reading and wakes the scheduler; a reset or the end of the
 * scheduler stops the thread first.
 */
#include "scheduler.h"
#include "scheduler-priv.h"

#define POLL_MS 20

/* One file to read again: its name and the identity its source opened. */
typedef struct {
  char *name;
  ViperTramSource id;       /* only file_dev, file_ino, file_size, file_mtime_ns */
} ScanFile;

struct _ViperModulesScan {
  const ViperParadigm *paradigm;
  guint64 max;
  GArray *files;            /* ScanFile */
  GThread *thread;
  gint cancel;              /* atomic: stop reading */
  gint done;                /* atomic: result is set (or NULL: nothing learnt) */
  GArray *result;
  GSource *poll;            /* on the scheduler's context: wakes it when done */
};

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

/* The thread: the processors whose trams the run would take from the files
 * (read again by name), sorted; NULL when a file cannot be read, is not the
 * same any more, they are more than max, or it was told to stop. */
static gpointer
scan_thread (gpointer data)
{
  ViperModulesScan *scan = data;
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperChannels *channels = viper_channels_new ();
  ViperRun *rules = viper_run_new (scan->paradigm, NULL, pool, channels, NULL, 0.5);
  GHashTable *seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < scan->files->len; i++)
    {
      const ScanFile *f = &g_array_index (scan->files, ScanFile, i);
      ViperTramSource *src = viper_file_source_new (f->name, pool, NULL, channels, NULL);
      if (!src || src->file_dev != f->id.file_dev || src->file_ino != f->id.file_ino
          || src->file_size != f->id.file_size || src->file_mtime_ns != f->id.file_mtime_ns)
        {
          /* replaced or changed between the look and the open */
          if (src)
            viper_tram_source_free (src);
          ok = FALSE;
          break;
        }
      guint n = 0;
      for (ViperTram *t; ok && (t = viper_get_tram (src));)
        {
          /* every PROC counts against the bound, as every list does in
           * the run (the program manager's -1 too); only >= 0 are modules */
          if (viper_run_accepts (rules, t) && !g_hash_table_contains (seen, &t->proc))
            {
              g_hash_table_add (seen, g_memdup2 (&t->proc, sizeof t->proc));
              ok = g_hash_table_size (seen) <= scan->max;
            }
          viper_tram_pool_release (pool, t);
          if (++n % 4096 == 0 && g_atomic_int_get (&scan->cancel))
            ok = FALSE;
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
  viper_run_free (rules);
  viper_channels_free (channels);
  viper_tram_pool_free (pool);
  scan->result = procs;
  g_atomic_int_set (&scan->done, 1);
  return NULL;
}

/* On the scheduler's context: once the reading is done, the engine goes
 * on (an attached scheduler's idle is armed again; a run loop was woken by
 * this dispatch). */
static gboolean
scan_poll (gpointer data)
{
  ViperScheduler *s = data;
  if (!g_atomic_int_get (&s->scan->done))
    return G_SOURCE_CONTINUE;
  g_source_unref (s->scan->poll);
  s->scan->poll = NULL;
  viper_sched_kick (s);
  return G_SOURCE_REMOVE;
}

static void
scan_start (ViperScheduler *s, GPtrArray *files)
{
  ViperModulesScan *scan = g_new0 (ViperModulesScan, 1);
  scan->paradigm = viper_run_paradigm (s->run);
  scan->max = viper_run_max_procs (s->run);
  scan->files = g_array_new (FALSE, TRUE, sizeof (ScanFile));
  for (guint i = 0; i < files->len; i++)
    {
      const ViperTramSource *src = files->pdata[i];
      ScanFile f = { g_strdup (src->name), { 0 } };
      viper_tram_source_copy_file (&f.id, src);
      g_array_append_val (scan->files, f);
    }
  s->scan = scan;
  scan->poll = g_timeout_source_new (POLL_MS);
  g_source_set_callback (scan->poll, scan_poll, s, NULL);
  g_source_set_name (scan->poll, "viper modules read ahead");
  g_source_attach (scan->poll, s->ctx ? s->ctx : g_main_context_default ());
  scan->thread = g_thread_new ("viper modules", scan_thread, scan);
}

/* Stop the thread (if it still reads), forget the scan; its result, if it
 * has one, is handed back. */
static GArray *
scan_finish (ViperScheduler *s)
{
  ViperModulesScan *scan = s->scan;
  if (!scan)
    return NULL;
  g_atomic_int_set (&scan->cancel, 1);
  if (scan->thread)
    g_thread_join (scan->thread);
  if (scan->poll)
    {
      g_source_destroy (scan->poll);
      g_source_unref (scan->poll);
    }
  for (guint i = 0; i < scan->files->len; i++)
    g_free (g_array_index (scan->files, ScanFile, i).name);
  g_array_unref (scan->files);
  GArray *result = scan->result;
  g_free (scan);
  s->scan = NULL;
  return result;
}

void
viper_sched_modules_wait (ViperScheduler *s)
{
  if (s->scan && s->scan->thread)
    {
      g_thread_join (s->scan->thread);
      s->scan->thread = NULL;
    }
}

void
viper_sched_modules_stop (ViperScheduler *s)
{
  GArray *a = scan_finish (s);
  if (a)
    g_array_unref (a);
}

static void
tell (ViperScheduler *s, const GArray *procs)
{
  viper_run_modules_known (s->run, procs);
  if (s->model)
    viper_model_set_modules (s->model, procs);
}

gboolean
viper_sched_learn_modules (ViperScheduler *s)
{
  if (s->scan)
    {
      if (!g_atomic_int_get (&s->scan->done))
        return FALSE;                   /* still reading: the engine waits */
      s->known_modules = scan_finish (s);
      s->modules_tried = TRUE;
      if (s->known_modules)
        tell (s, s->known_modules);
      return TRUE;
    }
  GPtrArray *files = file_sources (s);
  if (s->known_modules && !files)
    g_clear_pointer (&s->known_modules, g_array_unref);   /* a file changed since */
  if (s->known_modules || !files)
    {
      s->modules_tried = TRUE;
      if (s->known_modules)
        tell (s, s->known_modules);
      if (files)
        g_ptr_array_unref (files);
      return TRUE;
    }
  scan_start (s, files);
  g_ptr_array_unref (files);
  return FALSE;
}

gboolean
viper_sched_modules_at_pause (ViperScheduler *s)
{
  /* only once an end is held up: a begin alone (its processor's peers
   * perhaps a few lines behind) waits for the next pause */
  if (!viper_run_end_waits_for_modules (s->run))
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
