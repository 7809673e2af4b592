/* test-replay.c - see test-replay.h */
#include <string.h>
#include "tests/common/test-replay.h"

void
test_replay_open (TestReplay *r, const char *paradigm, const char *trace, const char *setup,
                  double history, ViperDiagSink sink, gpointer sink_data)
{
  memset (r, 0, sizeof *r);
  viper_paradigms_register_all ();
  r->paradigm = viper_paradigm_lookup (paradigm);
  g_assert_nonnull (r->paradigm);
  GError *error = NULL;
  if (setup)
    {
      r->setup = r->paradigm->setup_load (setup, &error);
      g_assert_no_error (error);
    }
  r->pool = viper_tram_pool_new ();
  r->channels = viper_channels_new ();
  viper_diag_init (&r->diag, sink, sink_data);
  r->model = r->paradigm->model_new (r->paradigm, r->setup);
  viper_model_set_history (r->model, history);
  r->run = viper_run_new (r->paradigm, r->model, r->pool, r->channels, &r->diag, 0.5);
  r->sched = viper_scheduler_new (r->run, r->model, r->channels, &r->diag);
  ViperTramSource *src = viper_file_source_new (trace, r->pool, &r->diag, r->channels, &error);
  g_assert_no_error (error);
  viper_scheduler_add_source (r->sched, src);
}

void
test_replay_close (TestReplay *r)
{
  viper_scheduler_free (r->sched);
  viper_run_free (r->run);
  viper_model_free (r->model);
  if (r->setup)
    r->paradigm->setup_free (r->setup);
  viper_channels_free (r->channels);
  viper_diag_clear (&r->diag);
  viper_tram_pool_free (r->pool);
}
