/* export-open.c - the exporters' formats and specs, opening, feeding and
 * closing an exporter, and exporting a whole run (paradigms/export.h); the
 * merge and the writing of records are export.c's. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "export-private.h"
#include "core/outfile.h"
#include "core/scheduler.h"
#include "paradigms.h"

static const char *const format_names[] = { "paragraph", "paje", "chrome", NULL };
static const char *const format_titles[] = { "ParaGraph", "Pajé", "Chrome trace" };

/* ---- formats, specs ------------------------------------------------------------ */

const char *const *
viper_export_format_names (void)
{
  return format_names;
}

static int
format_index (const char *format)
{
  for (int i = 0; format_names[i]; i++)
    if (g_strcmp0 (format, format_names[i]) == 0)
      return i;
  return -1;
}

gboolean
viper_export_format_known (const char *format)
{
  return format_index (format) >= 0;
}

static gboolean
table_has (const ViperExportTable *t, Fmt f)
{
  if (!t)
    return FALSE;
  return f == FMT_PARAGRAPH ? t->paragraph != NULL : (t->timeline != NULL && t->timeline_info != NULL);
}

gboolean
viper_export_supported (const ViperParadigm *p, const char *format, GError **error)
{
  int f = format_index (format);
  if (f < 0)
    {
      char *list = g_strjoinv (", ", (char **) format_names);
      g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNKNOWN, "unknown export format '%s' (one of %s)",
                   format, list);
      g_free (list);
      return FALSE;
    }
  const ViperExportTable *t = p->export;
  if (table_has (t, (Fmt) f))
    return TRUE;
  GString *use = g_string_new (NULL);
  for (int i = 0; i < N_FMT; i++)
    if (table_has (t, (Fmt) i))
      g_string_append_printf (use, "%s%s", use->len ? " or " : "", format_names[i]);
  const char *why = f == FMT_PARAGRAPH ? (t && t->no_paragraph_reason ? t->no_paragraph_reason
                                                                       : "ParaGraph knows message passing only")
                                       : "it describes no timeline of states";
  if (use->len)
    g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNSUPPORTED, "%s runs have no %s form: %s; use %s",
                 p->name, format_titles[f], why, use->str);
  else
    g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNSUPPORTED, "%s runs have no exports", p->name);
  g_string_free (use, TRUE);
  return FALSE;
}

gboolean
viper_export_parse_spec (const char *spec, char **format, char **file, GError **error)
{
  const char *colon = strchr (spec, ':');
  if (!colon || colon == spec || !colon[1])
    {
      g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_SPEC,
                   "--export=%s: expected FORMAT:FILE (FORMAT one of paragraph, paje, chrome; FILE '-' = stdout)", spec);
      return FALSE;
    }
  char *f = g_strndup (spec, (gsize) (colon - spec));
  if (!viper_export_format_known (f))
    {
      g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNKNOWN,
                   "--export=%s: unknown format '%s' (one of paragraph, paje, chrome)", spec, f);
      g_free (f);
      return FALSE;
    }
  *format = f;
  *file = g_strdup (colon + 1);
  return TRUE;
}

/* ---- exporters ------------------------------------------------------------------- */

static ViperExporter *
exporter_new (const ViperParadigm *p, const ViperModel *model, const char *format, GError **error)
{
  if (!viper_export_supported (p, format, error))
    return NULL;
  if (!model)
    {
      g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNSUPPORTED,
                   "%s exports read the paradigm's model, and this replay has none", p->name);
      return NULL;
    }
  ViperExporter *e = g_new0 (ViperExporter, 1);
  e->fmt = (Fmt) format_index (format);
  e->paradigm = p;
  e->table = p->export;
  e->model = model;
  e->buf = g_string_new (NULL);
  e->sources = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  e->holds = g_tree_new_full (viper_exp_hold_cmp, NULL, NULL, NULL);
  e->hold_ids = g_hash_table_new (g_int64_hash, g_int64_equal);
  e->defined = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  e->def_waits = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);
  e->def_texts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  e->def_done = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  e->msg_numbers = g_hash_table_new (g_direct_hash, g_direct_equal);
  e->limit = VIPER_EXPORT_DEFAULT_LIMIT;
  e->window = VIPER_EXPORT_DEFAULT_WINDOW;
  e->tracks = g_hash_table_new (g_int64_hash, g_int64_equal);
  e->batch_tracks = g_ptr_array_new ();
  e->batch_notes = g_array_new (FALSE, FALSE, sizeof (gint64));
  e->chans = g_hash_table_new_full (viper_exp_chan_hash, viper_exp_chan_equal, g_free, viper_exp_queue_free);
  e->max_time = -INFINITY;
  e->cur_source = -1;
  e->chrome_ts_pending = NAN;
  e->chrome_min_ts = INFINITY;
  /* ParaGraph is in seconds whatever the paradigm's unit (Chrome's µs per
   * unit says what the unit is) */
  e->units_per_second = e->table->timeline_info && e->table->timeline_info->us_per_unit > 0
                          ? 1e6 / e->table->timeline_info->us_per_unit : 1.0;
  if (e->table->priv_size)
    e->priv = g_malloc0 (e->table->priv_size);
  if (e->table->attach)
    e->table->attach (e, model);
  return e;
}

static void
exporter_begin (ViperExporter *e)
{
  if (e->begun)
    return;
  e->begun = TRUE;
  if (e->fmt == FMT_PAJE)
    viper_exp_paje_begin (e);
  else if (e->fmt == FMT_CHROME)
    viper_exp_chrome_begin (e);
  if (e->table->begin)
    e->table->begin (e, e->model);
}

ViperExporter *
viper_exporter_open (const ViperParadigm *p, const ViperModel *model, const char *format, const char *file,
                     GError **error)
{
  ViperExporter *e = exporter_new (p, model, format, error);
  if (!e)
    return NULL;
  GError *ferr = NULL;
  e->file = viper_outfile_open (file, g_get_prgname (), &ferr);
  if (!e->file)
    {
      g_set_error_literal (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, ferr->message);
      g_error_free (ferr);
      viper_exporter_close (e, NULL);
      return NULL;
    }
  /* the header waits for the first tram: nothing is written (and a FIFO
   * is not opened) before the replay has something to say */
  return e;
}

ViperExporter *
viper_exporter_open_string (const ViperParadigm *p, const ViperModel *model, const char *format, GString *out,
                            GError **error)
{
  ViperExporter *e = exporter_new (p, model, format, error);
  if (!e)
    return NULL;
  e->string = out;
  exporter_begin (e);
  return e;
}

void
viper_exporter_tram (ViperExporter *e, const ViperTram *t)
{
  if (e->finished)
    return;
  exporter_begin (e);
  /* an ignored tram has no state effect (spec section 1): nothing on the
   * timeline (the model did not apply it, so what a translator would read
   * there is the previous tram's); ParaGraph passes it through */
  if (e->fmt != FMT_PARAGRAPH && (t->flags & VIPER_TRAM_F_IGNORED))
    return;
  /* the timeline lasts as long as the run: to the last tram's time, not to
   * the last record written (a job killed while its ranks waited in a
   * receive ends with their idle states, which lasted to their last tram) */
  if (e->fmt != FMT_PARAGRAPH && isfinite (t->adjusted) && t->adjusted > e->max_time
      && !viper_paradigm_timeless (e->paradigm, t))
    e->max_time = t->adjusted;
  e->cur_source = t->proc;
  e->cur_lamport = t->lamport;
  e->cur_idx = 0;
  ViperExportTramFunc f = e->fmt == FMT_PARAGRAPH ? e->table->paragraph : e->table->timeline;
  f (e, t, e->model);
  /* the program manager / global records come one at a time, out of any stream */
  viper_export_source_done (e, -1);
  viper_exp_flush (e);
}

void
viper_exporter_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  (void) changed;
  viper_exporter_tram (data, t);
}

void
viper_exporter_set_buffer_limit (ViperExporter *e, guint64 limit)
{
  e->limit = MAX (limit, 1);
  e->window = MIN (e->window, e->limit);
}

void
viper_exporter_set_window (ViperExporter *e, guint64 window)
{
  e->window = MIN (window, e->limit);
}

void
viper_export_leave_out (ViperExporter *e)
{
  e->stats.left_out++;
}

void
viper_exporter_stats (const ViperExporter *e, ViperExportStats *out)
{
  *out = e->stats;
}

const char *
viper_exporter_format (const ViperExporter *e)
{
  return format_names[e->fmt];
}

gpointer
viper_exporter_priv (ViperExporter *e)
{
  return e->priv;
}

gboolean
viper_exporter_finish (ViperExporter *e, GError **error)
{
  if (e->finished)
    {
      if (e->io_error && error)
        *error = e->io_err ? g_error_copy (e->io_err)
                           : g_error_new (VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, "%s export: write error",
                                          format_names[e->fmt]);
      return !e->io_error;
    }
  e->finished = TRUE;
  gboolean opened = e->file || e->string;
  if (opened)
    {
      exporter_begin (e);
      /* nothing more will be produced: promised records are dropped */
      GList *ids = g_hash_table_get_keys (e->hold_ids);
      for (GList *l = ids; l; l = l->next)
        viper_export_release (e, *(guint64 *) l->data);
      g_list_free (ids);
      if (e->table->end)
        e->table->end (e, e->model);
      if (e->fmt != FMT_PARAGRAPH)
        viper_exp_timeline_end (e);
      viper_exp_flush_upto (e, INFINITY, TRUE);
      if ((e->defs && e->defs->len) || g_hash_table_size (e->def_texts))
        {
          /* definitions that no record used */
          char num[32];
          viper_exp_write_defs_left (e, viper_exp_out_time (e, e->any_written ? e->last_written : 0.0, num));
        }
      e->stats.shift = e->shift / e->units_per_second;
      e->stats.max_clamp /= e->units_per_second;
    }
  if (e->file)
    {
      GError *ferr = NULL;
      if (!viper_outfile_close (g_steal_pointer (&e->file), &ferr))
        {
          e->io_error = TRUE;
          e->io_err = g_error_new_literal (VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, ferr->message);
          g_error_free (ferr);
        }
    }
  if (e->io_error && !e->io_err)
    e->io_err = g_error_new (VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, "%s export: write error", format_names[e->fmt]);
  if (e->io_error && error)
    *error = g_error_copy (e->io_err);
  return !e->io_error;
}

gboolean
viper_exporter_close (ViperExporter *e, GError **error)
{
  if (!e)
    return TRUE;
  gboolean ok = viper_exporter_finish (e, error);
  while (e->heap_len)
    g_free (viper_exp_heap_pop (e));
  g_free (e->heap);
  g_hash_table_unref (e->sources);
  g_tree_unref (e->holds);
  g_hash_table_unref (e->hold_ids);
  g_hash_table_unref (e->defined);
  g_hash_table_unref (e->def_waits);
  g_hash_table_unref (e->def_texts);
  g_hash_table_unref (e->def_done);
  g_hash_table_unref (e->msg_numbers);
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, e->tracks);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      Track *tr = v;
      g_free (tr->name);
      g_free (tr->alias);
      g_free (tr);
    }
  g_hash_table_unref (e->tracks);
  g_ptr_array_unref (e->batch_tracks);
  g_array_unref (e->batch_notes);
  g_hash_table_unref (e->chans);
  if (e->priv && e->table->priv_clear)
    e->table->priv_clear (e->priv);
  g_free (e->priv);
  g_free (e->last_event);
  g_free (e->start_value);
  g_clear_error (&e->io_err);
  if (e->defs)
    g_ptr_array_unref (e->defs);
  if (e->chrome_spool)
    fclose (e->chrome_spool);
  g_string_free (e->buf, TRUE);
  g_free (e);
  return ok;
}

/* ---- a whole run ------------------------------------------------------------------ */

gboolean
viper_export_files (const char *paradigm, const char *setup_path, const char *const *traces, double decay,
                    const char *format, const char *file, guint64 *trams_out, GError **error)
{
  return viper_export_files_stats (paradigm, setup_path, traces, decay, format, file, trams_out, NULL, error);
}

gboolean
viper_export_files_stats (const char *paradigm, const char *setup_path, const char *const *traces, double decay,
                          const char *format, const char *file, guint64 *trams_out, ViperExportStats *stats_out,
                          GError **error)
{
  if (stats_out)
    memset (stats_out, 0, sizeof *stats_out);
  viper_paradigms_register_all ();
  const ViperParadigm *p = viper_paradigm_lookup (paradigm);
  if (!p)
    {
      g_set_error (error, VIPER_EXPORT_ERROR, 0, "unknown paradigm '%s'", paradigm);
      return FALSE;
    }
  if (!viper_export_supported (p, format, error))
    return FALSE;
  ViperSetup *setup = NULL;
  if (setup_path && *setup_path && p->setup_load && !(setup = p->setup_load (setup_path, error)))
    return FALSE;
  gboolean ok = FALSE;
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperChannels *channels = viper_channels_new ();
  ViperDiag diag;
  viper_diag_init (&diag, NULL, NULL);
  ViperModel *model = p->model_new ? p->model_new (p, setup) : NULL;
  if (model)
    {
      viper_model_set_history (model, -1.0);
      viper_damage_set_enabled (model->damage, FALSE);
    }
  ViperRun *run = viper_run_new (p, model, pool, channels, &diag, decay);
  ViperScheduler *sched = viper_scheduler_new (run, model, channels, &diag);
  ViperExporter *ex = NULL;
  for (const char *const *t = traces; t && *t; t++)
    {
      ViperTramSource *src = viper_file_source_new (*t, pool, &diag, channels, error);
      if (!src)
        goto out;
      viper_scheduler_add_source (sched, src);
    }
  if (!(ex = viper_exporter_open (p, model, format, file, error)))
    goto out;
  viper_scheduler_add_hook (sched, viper_exporter_hook, ex);
  viper_scheduler_run (sched);
  ok = viper_exporter_finish (ex, error);
  if (stats_out)
    viper_exporter_stats (ex, stats_out);
  viper_exporter_close (g_steal_pointer (&ex), NULL);
  if (trams_out)
    {
      ViperCounts c;
      viper_run_counts (run, &c);
      *trams_out = c.transferred;
    }
out:
  if (ex)
    viper_exporter_close (ex, NULL);
  viper_scheduler_free (sched);
  viper_run_free (run);
  if (model)
    viper_model_free (model);
  if (setup && p->setup_free)
    p->setup_free (setup);
  viper_channels_free (channels);
  viper_diag_clear (&diag);
  viper_tram_pool_free (pool);
  return ok;
}
