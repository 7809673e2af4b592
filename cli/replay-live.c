/* replay-live.c - viper-replay's live session (--listen): the main loop runs
 * until the senders are done, and trams that wait with no progress are said. */
#include "replay-app.h"

/* Live replay: run the main loop until the senders are done (idle-exit). */
typedef struct {
  App *app;
  ViperStopReason why;
  guint64 transferred;      /* at the last progress */
  gint64 progress_t;        /* when the run last transferred a tram (or started) */
  gboolean stuck_said;      /* this stall has been reported */
} LiveState;

/* Trams that wait while nothing moves for --stuck-after seconds are said
 * once per stall, with what they wait for: a lost tram otherwise shows only
 * at the end, after the memory it holds up has grown for the whole run. */
static void
check_stuck (LiveState *ls)
{
  App *app = ls->app;
  ViperCounts c;
  viper_run_counts (app->run, &c);
  gint64 now = g_get_monotonic_time ();
  if (c.transferred != ls->transferred || c.pending == 0)
    {
      ls->transferred = c.transferred;
      ls->progress_t = now;
      ls->stuck_said = FALSE;
      return;
    }
  if (ls->stuck_said || app->opt.stuck_after <= 0
      || now - ls->progress_t < (gint64) (app->opt.stuck_after * G_USEC_PER_SEC))
    return;
  ls->stuck_said = TRUE;
  GArray *stuck = viper_run_stuck (app->run);
  GString *m = g_string_new (NULL);
  g_string_append_printf (m, "%" G_GUINT64_FORMAT " tram%s pending for %.3g s with no progress", c.pending,
                          c.pending == 1 ? "" : "s", (double) (now - ls->progress_t) / G_USEC_PER_SEC);
  for (guint i = 0; i < stuck->len && i < 3; i++)
    {
      const ViperStuck *st = &g_array_index (stuck, ViperStuck, i);
      g_string_append_printf (m, "%s proc %" G_GINT64_FORMAT " waits for %s (%" G_GUINT64_FORMAT " tram%s)",
                              i ? ";" : ":", st->proc, st->waiting_for, st->trams, st->trams == 1 ? "" : "s");
    }
  if (stuck->len > 3)
    g_string_append_printf (m, "; and %u more", stuck->len - 3);
  viper_stuck_array_free (stuck);
  if (!app->opt.quiet)
    {
      viper_progress_clear (app->progress);
      fprintf (stderr, "viper-replay: warning: %s\n", m->str);
    }
  g_string_free (m, TRUE);
}

static gboolean
live_tick (gpointer data)
{
  LiveState *ls = data;
  App *app = ls->app;
  /* The scheduler is attached: its own dispatch may have reached a stop
   * (a step limit, a tram) that the next pump would go on past - a spent
   * step limit is no limit, a passed tram does not come again. */
  ViperStopReason stopped = viper_scheduler_last_stop (app->sched);
  if (viper_scheduler_state (app->sched) == VIPER_SCHED_IDLE && stopped != VIPER_STOP_NONE
      && stopped != VIPER_STOP_WAITING && stopped != VIPER_STOP_END)
    {
      ls->why = stopped;
      g_main_loop_quit (app->loop);
      return G_SOURCE_REMOVE;
    }
  ViperStopReason r = viper_scheduler_pump (app->sched, 65536);
  replay_progress_update (app);
  if (r == VIPER_STOP_NONE)
    return G_SOURCE_CONTINUE;
  if (r != VIPER_STOP_WAITING && r != VIPER_STOP_END)
    {
      ls->why = r;
      g_main_loop_quit (app->loop);
      return G_SOURCE_REMOVE;
    }
  check_stuck (ls);
  /* waiting: decide whether the live sources are done */
  gboolean files_done = TRUE, any_listen = FALSE, listeners_done = TRUE;
  gint64 last = 0;
  guint lost = 0;
  for (guint i = 0; i < viper_scheduler_n_sources (app->sched); i++)
    {
      ViperTramSource *src = viper_scheduler_source (app->sched, i);
      if (g_str_equal (src->klass->kind, "listen"))
        {
          any_listen = TRUE;
          if (viper_listen_source_open_connections (src) > 0 || viper_listen_source_total_connections (src) == 0)
            listeners_done = FALSE;
          last = MAX (last, viper_listen_source_last_activity (src));
          lost += viper_listen_source_lost_connections (src);
        }
      else if (!viper_tram_source_at_end (src))
        files_done = FALSE;
    }
  if (files_done && (!any_listen || listeners_done)
      && g_get_monotonic_time () - last >= (gint64) (app->opt.idle_exit * G_USEC_PER_SEC))
    {
      /* the program ended: every processor is known, so collectives over
       * all of them (SUBSET -1) may end now; replay what that made ready */
      if (viper_scheduler_input_end (app->sched))
        return G_SOURCE_CONTINUE;
      ls->why = VIPER_STOP_END;
      /* the collectors are gone: what a monitor shows is no longer current */
      if (any_listen)
        viper_model_set_collection_end (app->model, lost ? VIPER_COLLECTION_LOST : VIPER_COLLECTION_ENDED);
      g_main_loop_quit (app->loop);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

ViperStopReason
replay_run_live (App *app)
{
  LiveState ls = { app, VIPER_STOP_END, 0, g_get_monotonic_time (), FALSE };
  app->loop = g_main_loop_new (NULL, FALSE);
  viper_scheduler_attach (app->sched, NULL);
  /* processing below reading: the sources read at G_PRIORITY_HIGH */
  GSource *idle = g_timeout_source_new (1);
  g_source_set_priority (idle, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_callback (idle, live_tick, &ls, NULL);
  g_source_attach (idle, NULL);
  g_main_loop_run (app->loop);
  g_source_destroy (idle);
  g_source_unref (idle);
  g_main_loop_unref (app->loop);
  app->loop = NULL;
  if (app->interrupted)
    return VIPER_STOP_USER;
  return ls.why;
}
