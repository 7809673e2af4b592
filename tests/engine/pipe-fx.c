/* pipe-fx.c - see pipe-fx.h. */
#include <math.h>
#include <unistd.h>
#include "pipe-fx.h"

void
engine_pipe_open (EnginePipe *x, const char *path, double history, ViperDiagSink sink, gpointer sink_data)
{
  viper_paradigms_register_all ();
  const ViperParadigm *p = viper_paradigm_lookup ("picl");
  x->pool = viper_tram_pool_new ();
  x->ch = viper_channels_new ();
  viper_diag_init (&x->diag, sink, sink_data);
  x->m = p->model_new (p, NULL);
  if (!isnan (history))
    viper_model_set_history (x->m, history);
  x->run = viper_run_new (p, x->m, x->pool, x->ch, &x->diag, 0.5);
  x->s = viper_scheduler_new (x->run, x->m, x->ch, &x->diag);
  GError *error = NULL;
  ViperTramSource *src = viper_file_source_new (path, x->pool, &x->diag, x->ch, &error);
  g_assert_no_error (error);
  viper_scheduler_add_source (x->s, src);
}

void
engine_pipe_close (EnginePipe *x)
{
  viper_scheduler_free (x->s);
  viper_run_free (x->run);
  viper_model_free (x->m);
  viper_channels_free (x->ch);
  viper_diag_clear (&x->diag);
  viper_tram_pool_free (x->pool);
}

char *
engine_fx_write_trace (const char *text, gssize len)
{
  char *path = NULL;
  int fd = g_file_open_tmp ("viper-engine-XXXXXX.trc", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, len, NULL));
  return path;
}
