/* viper-ticker.c - the redraw timer, at a fixed pace.
 *
 * A GLib timeout is due its interval after it was last dispatched, so
 * whatever delays a dispatch delays every later one: with the replay
 * running in idle slices between frames, the tick waited for the slice in
 * progress to end, and 40 ms updates came every 45 to 50 ms (about 20
 * frames/s instead of 25).  The ticker keeps due times on a fixed grid
 * instead: a late call does not move the next one, and the replay is told
 * when that is (viper_scheduler_set_deadline), so its slices end in time.
 * A call later than a whole interval starts the grid again from now rather
 * than calling back to back.
 */
#include "viper-ticker.h"

struct _ViperTicker {
  GSource source;
  gint64 interval_us;
  gint64 due;
};

gint64
viper_ticker_next_due (gint64 due, gint64 interval_us, gint64 now)
{
  due += interval_us;
  return due > now ? due : now + interval_us;
}

static gboolean
ticker_dispatch (GSource *source, GSourceFunc fn, gpointer data)
{
  ViperTicker *t = (ViperTicker *) source;
  t->due = viper_ticker_next_due (t->due, t->interval_us, g_get_monotonic_time ());
  g_source_set_ready_time (source, t->due);
  return fn ? fn (data) : G_SOURCE_REMOVE;
}

static GSourceFuncs ticker_funcs = { NULL, NULL, ticker_dispatch, NULL, NULL, NULL };

ViperTicker *
viper_ticker_new (guint interval_ms, GSourceFunc fn, gpointer data)
{
  ViperTicker *t = (ViperTicker *) g_source_new (&ticker_funcs, sizeof (ViperTicker));
  t->interval_us = (gint64) MAX (interval_ms, 1u) * 1000;
  t->due = g_get_monotonic_time () + t->interval_us;
  g_source_set_name ((GSource *) t, "viper redraw tick");
  g_source_set_callback ((GSource *) t, fn, data, NULL);
  g_source_set_ready_time ((GSource *) t, t->due);
  g_source_attach ((GSource *) t, NULL);
  return t;
}

void
viper_ticker_free (ViperTicker *t)
{
  if (!t)
    return;
  g_source_destroy ((GSource *) t);
  g_source_unref ((GSource *) t);
}

gint64
viper_ticker_due (const ViperTicker *t)
{
  return t->due;
}
