/* viper-ticker.h - the redraw timer, at a fixed pace. */
#pragma once
#include <glib.h>
G_BEGIN_DECLS
typedef struct _ViperTicker ViperTicker;
/* Calls fn every interval_ms on the default main context, at a fixed pace
 * (due times interval_ms apart, not interval_ms after each call). */
ViperTicker *viper_ticker_new (guint interval_ms, GSourceFunc fn, gpointer data);
void viper_ticker_free (ViperTicker *t);
/* When the next call is due (g_get_monotonic_time microseconds). */
gint64 viper_ticker_due (const ViperTicker *t);
/* The due time after `due` for a call made at `now`: due + interval, or
 * now + interval when that has passed already (a call a whole interval late). */
gint64 viper_ticker_next_due (gint64 due, gint64 interval_us, gint64 now);
G_END_DECLS
