/* viper-session.c - building and tearing down one replay pipeline.
 *
 * The GUI opens a new session for every Open or Listen: a pipeline is cheap
 * to build, and starting from nothing is the surest way to keep nothing of
 * the previous trace (ids, offsets, history).  Reset within a session is the
 * scheduler's own (run and model cleared, files rewound).
 */
#include <glib/gstdio.h>
#include "viper-session.h"
#include "paradigms/paradigms.h"
#include "paradigms/export.h"
#include "paradigms/views.h"
#include "core/detect.h"

/* A connection while none is open, in a session that already holds trams,
 * whose first tram comes from a processor the session already holds trams
 * of: a new run of the program.  Its sequence numbers start again at 1, so
 * replaying it on top of the last run would reject every tram as a
 * duplicate; the documented rule is to start the session over, before that
 * tram is read.  A first tram of a processor not seen yet is a module of
 * the same run that connected late (the others had finished and closed):
 * starting over then would throw their trams away. */
static gboolean
session_holds_trams (ViperSession *s)
{
  ViperCounts c;
  viper_run_counts (s->run, &c);
  return c.read > 0 || s->model->applied > 0;
}

static void
on_first_proc (ViperTramSource *src, gint64 proc, gpointer data)
{
  (void) src;
  ViperSession *s = data;
  if (!session_holds_trams (s) || viper_run_proc_count (s->run, proc) == 0)
    return;
  s->new_runs++;
  viper_diag_event (&s->diag, VIPER_DIAG_WARNING,
                    "a new run connected while none was connected: the session starts over (run %u)", s->new_runs + 1);
  viper_session_start_over (s);
  if (s->on_new_run)
    s->on_new_run (s->on_new_run_data);
}

static void
on_accept (ViperTramSource *src, guint open_before, gpointer data)
{
  ViperSession *s = data;
  if (open_before > 0 || !session_holds_trams (s))
    return;
  /* the first tram that arrives (on this connection or another) decides */
  viper_listen_source_watch_next_proc (src, on_first_proc, s);
}

static ViperClockMode session_clock_mode = VIPER_CLOCK_DECAY;

ViperSession *
viper_session_new (const char *paradigm, const char *setup_path, const char *const *traces,
                   const char *const *listen, double decay, double history_interval,
                   ViperDiagSink sink, gpointer sink_data, GError **error)
{
  viper_paradigms_register_all ();
  const char *pname = paradigm;
  ViperDetect det = { 0 };
  if (!pname || g_str_equal (pname, "auto"))
    {
      viper_paradigm_detect (traces, setup_path, &det);
      pname = det.paradigm ? det.paradigm->name : "picl";
      if (!det.paradigm)
        {
          char *r = g_strdup_printf ("%s; picl by default", det.reason);
          g_free (det.reason);
          det.reason = r;
        }
    }
  const ViperParadigm *p = viper_paradigm_lookup (pname);
  if (!p)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "unknown paradigm '%s'", pname);
      viper_detect_clear (&det);
      return NULL;
    }
  if (!p->model_new)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "paradigm '%s' has no state model to show", pname);
      viper_detect_clear (&det);
      return NULL;
    }
  ViperSetup *setup = NULL;
  if (setup_path && *setup_path)
    {
      if (!p->setup_load)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "paradigm '%s' takes no setup file", pname);
          viper_detect_clear (&det);
          return NULL;
        }
      if (!(setup = p->setup_load (setup_path, error)))
        {
          viper_detect_clear (&det);
          return NULL;
        }
    }
  ViperSession *s = g_new0 (ViperSession, 1);
  s->paradigm = p;
  s->setup = setup;
  s->detect_reason = det.reason;
  s->detect_binary = det.binary;
  s->detect_binary_lines = det.binary_lines;
  s->detect_no_tram = det.no_tram;
  GPtrArray *repeats = g_ptr_array_new_with_free_func (g_free);
  s->traces = viper_traces_unique (traces, repeats);
  if (!s->traces)
    s->traces = g_new0 (char *, 1);
  traces = (const char *const *) s->traces;
  s->setup_path = g_strdup (setup_path);
  s->decay = decay;
  s->exporters = g_ptr_array_new ();
  s->pool = viper_tram_pool_new ();
  s->channels = viper_channels_new ();
  viper_diag_init (&s->diag, sink, sink_data);
  for (guint i = 0; i < repeats->len; i++)
    viper_diag_event (&s->diag, VIPER_DIAG_WARNING, "%s", (const char *) g_ptr_array_index (repeats, i));
  g_ptr_array_unref (repeats);
  s->model = p->model_new (p, setup);
  s->model->diag = &s->diag;
  viper_model_set_history (s->model, history_interval);
  s->run = viper_run_new (p, s->model, s->pool, s->channels, &s->diag, decay);
  s->sched = viper_scheduler_new (s->run, s->model, s->channels, &s->diag);
  /* drift and clc read the files first; the replay plays back the trams they kept */
  if (session_clock_mode != VIPER_CLOCK_DECAY && traces && *traces && !(listen && *listen))
    {
      s->clock_sync = viper_clock_sync_analyse (session_clock_mode, p, setup, traces, error);
      if (!s->clock_sync)
        {
          viper_session_free (s);
          return NULL;
        }
      viper_clock_sync_install (s->clock_sync, s->run);
    }
  GString *title = g_string_new (NULL);
  for (const char *const *t = traces; t && *t; t++)
    {
      ViperTramSource *src = s->clock_sync ? viper_clock_sync_source_new (s->clock_sync, (guint) (t - traces), s->pool,
                                                                          &s->diag, s->channels, error)
                                           : viper_file_source_new (*t, s->pool, &s->diag, s->channels, error);
      if (!src)
        goto fail;
      viper_scheduler_add_source (s->sched, src);
      GStatBuf st;
      if (g_str_equal (*t, "-"))
        s->file_bytes += src->file_size;   /* a file behind standard input: its size, else 0 */
      else if (g_stat (*t, &st) == 0)
        s->file_bytes += (guint64) st.st_size;
      char *base = g_str_equal (*t, "-") ? g_strdup ("standard input") : g_path_get_basename (*t);
      g_string_append_printf (title, "%s%s", title->len ? ", " : "", base);
      g_free (base);
    }
  for (const char *const *l = listen; l && *l; l++)
    {
      ViperTramSource *src = viper_listen_source_new (*l, s->pool, &s->diag, s->channels, error);
      if (!src)
        goto fail;
      viper_listen_source_set_accept_func (src, on_accept, s);
      viper_scheduler_add_source (s->sched, src);
      g_string_append_printf (title, "%s%s", title->len ? ", " : "", viper_listen_source_address (src));
    }
  s->title = g_string_free (title, FALSE);
  viper_scheduler_attach (s->sched, NULL);
  return s;
fail:
  g_string_free (title, TRUE);
  viper_session_free (s);
  return NULL;
}

void viper_session_set_clock_mode (ViperClockMode mode) { session_clock_mode = mode; }
ViperClockMode viper_session_clock_mode (void) { return session_clock_mode; }

void
viper_session_free (ViperSession *s)
{
  if (!s)
    return;
  /* live exports end with the session: finish their files first */
  for (guint i = 0; s->exporters && i < s->exporters->len; i++)
    {
      GError *error = NULL;
      if (!viper_exporter_close (s->exporters->pdata[i], &error))
        {
          g_printerr ("viper: export: %s\n", error->message);
          g_error_free (error);
        }
    }
  if (s->exporters)
    g_ptr_array_free (s->exporters, TRUE);
  viper_scheduler_free (s->sched);
  viper_run_free (s->run);
  viper_clock_sync_free (s->clock_sync);
  viper_model_free (s->model);
  if (s->setup && s->paradigm->setup_free)
    s->paradigm->setup_free (s->setup);
  viper_channels_free (s->channels);
  viper_diag_clear (&s->diag);
  viper_tram_pool_free (s->pool);
  g_free (s->title);
  g_strfreev (s->traces);
  g_free (s->setup_path);
  g_free (s->detect_reason);
  g_free (s->detect_binary_lines);
  g_free (s);
}

guint64
viper_session_bytes_read (const ViperSession *s)
{
  guint64 n = 0;
  for (guint i = 0; i < viper_scheduler_n_sources (s->sched); i++)
    {
      ViperTramSource *src = viper_scheduler_source (s->sched, i);
      if (!g_str_equal (src->klass->kind, "listen"))
        n += src->bytes_read;
    }
  return n;
}

void
viper_session_connections (const ViperSession *s, guint *open, guint *total)
{
  *open = *total = 0;
  for (guint i = 0; i < viper_scheduler_n_sources (s->sched); i++)
    {
      ViperTramSource *src = viper_scheduler_source (s->sched, i);
      if (g_str_equal (src->klass->kind, "listen"))
        {
          *open += viper_listen_source_open_connections (src);
          *total += viper_listen_source_total_connections (src);
        }
    }
}

gboolean
viper_session_has_listener (const ViperSession *s)
{
  for (guint i = 0; i < viper_scheduler_n_sources (s->sched); i++)
    if (g_str_equal (viper_scheduler_source (s->sched, i)->klass->kind, "listen"))
      return TRUE;
  return FALSE;
}

guint
viper_session_lost_connections (const ViperSession *s)
{
  guint n = 0;
  for (guint i = 0; i < viper_scheduler_n_sources (s->sched); i++)
    {
      ViperTramSource *src = viper_scheduler_source (s->sched, i);
      if (g_str_equal (src->klass->kind, "listen"))
        n += viper_listen_source_lost_connections (src);
    }
  return n;
}

static gboolean
final_state (const char *name)
{
  return g_strcmp0 (name, "inactive") == 0 || g_strcmp0 (name, "terminated") == 0;
}

GPtrArray *
viper_session_unfinished_modules (const ViperSession *s, guint max, guint *total)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  const ViperRenderer *r = viper_view_renderer (s->model);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  r->modules (s->model, s->run, ids);
  *total = 0;
  for (guint i = 0; i < ids->len; i++)
    {
      gint64 id = g_array_index (ids, gint64, i);
      if (final_state (r->state_name (r->module_state (s->model, id)))
          || (r->module_ended && r->module_ended (s->model, id)))
        continue;
      (*total)++;
      if (out->len < max)
        g_ptr_array_add (out, r->module_label (s->model, id));
    }
  g_array_unref (ids);
  return out;
}

ViperLiveState
viper_session_live_state (const ViperSession *s, guint *open_out)
{
  guint open, total;
  if (!viper_session_has_listener (s))
    return VIPER_LIVE_NONE;
  viper_session_connections (s, &open, &total);
  if (open_out)
    *open_out = open;
  if (open > 0)
    return VIPER_LIVE_CONNECTED;
  ViperCounts c;
  viper_run_counts (s->run, &c);
  if (c.read == 0 && s->model->applied == 0)
    return VIPER_LIVE_LISTENING;
  gboolean settled = viper_scheduler_last_stop (s->sched) == VIPER_STOP_WAITING
                     || viper_scheduler_state (s->sched) == VIPER_SCHED_IDLE;
  if (!settled)   /* still replaying what arrived: pending trams are not stuck yet */
    return viper_session_lost_connections (s) > 0 ? VIPER_LIVE_LOST : VIPER_LIVE_ENDED;
  const char *ps = viper_model_program_state (s->model);
  /* a watched system (s->paradigm->monitor) "runs" for ever: its collectors closing is the end */
  gboolean unfinished = g_strcmp0 (ps, "running") == 0 && !s->paradigm->monitor;
  if (viper_session_lost_connections (s) > 0 || c.pending > 0 || unfinished)
    return VIPER_LIVE_LOST;
  return VIPER_LIVE_ENDED;
}

ViperLiveState
viper_session_note_live_end (ViperSession *s, guint *open)
{
  ViperLiveState ls = viper_session_live_state (s, open);
  viper_model_set_collection_end (s->model, ls == VIPER_LIVE_ENDED  ? VIPER_COLLECTION_ENDED
                                            : ls == VIPER_LIVE_LOST ? VIPER_COLLECTION_LOST
                                                                    : VIPER_COLLECTION_ON);
  return ls;
}

guint
viper_session_disconnect (ViperSession *s)
{
  guint n = 0;
  for (guint i = 0; i < viper_scheduler_n_sources (s->sched); i++)
    {
      ViperTramSource *src = viper_scheduler_source (s->sched, i);
      if (g_str_equal (src->klass->kind, "listen"))
        n += viper_listen_source_disconnect_all (src);
    }
  return n;
}

void
viper_session_start_over (ViperSession *s)
{
  ViperSchedState was = viper_scheduler_state (s->sched);
  for (guint i = 0; i < viper_scheduler_n_sources (s->sched); i++)
    {
      ViperTramSource *src = viper_scheduler_source (s->sched, i);
      if (g_str_equal (src->klass->kind, "listen"))
        viper_listen_source_discard (src);
    }
  /* listeners cannot rewind (the error says so): there is nothing to rewind */
  viper_scheduler_reset (s->sched, NULL);
  if (was != VIPER_SCHED_IDLE)
    viper_scheduler_go (s->sched);
}
