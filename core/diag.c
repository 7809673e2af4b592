/* diag.c - formatting, counting and forwarding diagnostics.
 *
 * Each message is formatted once, here, so that every layer reports bad
 * input in the same "WHERE:LINE:COLUMN: reason" shape.  The first and last
 * bad-input messages are kept because --strict must name the line that
 * stopped the replay and the GUI shows the latest one; everything in between
 * lives only in the counters and in whatever the sink did with it.  A NULL
 * sink still counts: callers that only want the numbers need not pass one.
 */
#include "core/diag.h"

#include <stdarg.h>
#include <string.h>

void
viper_diag_init (ViperDiag *d, ViperDiagSink sink, gpointer sink_data)
{
  memset (d, 0, sizeof *d);
  d->sink = sink;
  d->sink_data = sink_data;
}

/* Forgets what was reported (counters, messages, stop request) but keeps the
 * sink and the strict setting: a reset replay reports to the same place. */
void
viper_diag_clear (ViperDiag *d)
{
  g_clear_pointer (&d->first_bad, g_free);
  g_clear_pointer (&d->last_bad, g_free);
  d->bad = 0;
  d->warnings = 0;
  d->stop_requested = FALSE;
}

static void
record_bad (ViperDiag *d, char *msg)
{
  d->bad++;
  if (!d->first_bad)
    d->first_bad = g_strdup (msg);
  g_free (d->last_bad);
  d->last_bad = msg;
  if (d->strict)
    d->stop_requested = TRUE;
  if (d->sink)
    d->sink (VIPER_DIAG_BAD_INPUT, msg, d->sink_data);
}

void
viper_diag_bad (ViperDiag *d, const char *where, guint64 line, guint column, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *reason = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  char *msg = g_strdup_printf ("%s:%" G_GUINT64_FORMAT ":%u: %s", where ? where : "-", line, column, reason);
  g_free (reason);
  record_bad (d, msg);
}

void
viper_diag_event (ViperDiag *d, ViperDiagKind kind, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (kind == VIPER_DIAG_BAD_INPUT)
    {
      /* no place known, but it is still a rejected line and must count */
      record_bad (d, msg);
      return;
    }
  if (kind == VIPER_DIAG_WARNING)
    d->warnings++;
  if (d->sink)
    d->sink (kind, msg, d->sink_data);
  g_free (msg);
}
