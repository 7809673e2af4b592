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

static ViperClockMode session_clock_mode = VIPER_CLOCK_DECAY;

ViperSession *
viper_session_new (const char *paradigm, const char *setup_path, const char *const *traces,
                   const char *const *listen, double decay, double history_interval,
                   ViperDiagSink sink, gpointer sink_data, GError **error)
{
  viper_paradigms_register_all ();
  const char *pname = paradigm ? paradigm : "monalisa";
  const ViperParadigm *p = viper_paradigm_lookup (pname);
  if (!p)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "unknown paradigm '%s'", pname);
      return NULL;
    }
  if (!p->model_new)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "paradigm '%s' has no state model to show", pname);
      return NULL;
    }
  ViperSetup *setup = NULL;
  if (setup_path && *setup_path)
    {
      if (!p->setup_load)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "paradigm '%s' takes no setup file", pname);
          return NULL;
        }
      if (!(setup = p->setup_load (setup_path, error)))
        return NULL;
    }
  ViperSession *s = g_new0 (ViperSession, 1);
  s->paradigm = p;
  s->setup = setup;
  s->traces = g_strdupv ((char **) traces);
  if (!s->traces)
    s->traces = g_new0 (char *, 1);
  s->setup_path = g_strdup (setup_path);
  s->decay = decay;
  s->exporters = g_ptr_array_new ();
  s->pool = viper_tram_pool_new ();
  s->channels = viper_channels_new ();
  viper_diag_init (&s->diag, sink, sink_data);
  s->model = p->model_new (p, setup);
  s->model->diag = &s->diag;
  viper_model_set_history (s->model, history_interval);
  s->run = viper_run_new (p, s->model, s->pool, s->channels, &s->diag, decay);
  s->sched = viper_scheduler_new (s->run, s->model, s->channels, &s->diag);
  GString *title = g_string_new (NULL);
  for (const char *const *t = traces; t && *t; t++)
    {
      ViperTramSource *src = viper_file_source_new (*t, s->pool, &s->diag, s->channels, error);
      if (!src)
        goto fail;
      viper_scheduler_add_source (s->sched, src);
      GStatBuf st;
      if (g_stat (*t, &st) == 0)
        s->file_bytes += (guint64) st.st_size;
      char *base = g_path_get_basename (*t);
      g_string_append_printf (title, "%s%s", title->len ? ", " : "", base);
      g_free (base);
    }
  for (const char *const *l = listen; l && *l; l++)
    {
      ViperTramSource *src = viper_listen_source_new (*l, s->pool, &s->diag, s->channels, error);
      if (!src)
        goto fail;
      viper_scheduler_add_source (s->sched, src);
      g_string_append_printf (title, "%s%s", title->len ? ", " : "", viper_listen_source_address (src));
    }
  s->title = g_string_free (title, FALSE);
  if (session_clock_mode != VIPER_CLOCK_DECAY && traces && *traces && !(listen && *listen))
    {
      s->clock_sync = viper_clock_sync_analyse (session_clock_mode, p, setup, traces, error);
      if (!s->clock_sync)
        goto fail_titled;
      viper_clock_sync_install (s->clock_sync, s->run);
    }
  viper_scheduler_attach (s->sched, NULL);
  return s;
fail_titled:
  viper_session_free (s);
  return NULL;
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
