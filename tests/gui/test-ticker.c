/* test-ticker.c - the GUI's redraw tick keeps a fixed pace (issue 13).
 *
 * A GLib timeout is due its interval after each dispatch, so a dispatch
 * delayed by a replay slice delays all later ones: 40 ms updates came every
 * 45-50 ms.  The ticker's due times stay on a grid: a call late by less than
 * an interval leaves the next one where it was, one a whole interval late
 * starts the grid again from now.  Asserted on the arithmetic, and on the
 * source itself with calls made late by busy work in the callback (no
 * sleeps: the checks compare the due times the ticker reports with when the
 * calls happened, whatever the machine's load).
 */
#include "gui/viper-ticker.h"

static void
test_next_due (void)
{
  /* on time and a little late: the grid */
  g_assert_cmpint (viper_ticker_next_due (1000, 40, 1000), ==, 1040);
  g_assert_cmpint (viper_ticker_next_due (1000, 40, 1039), ==, 1040);
  /* a GLib timeout would be due at 1039 + 40 here */
  g_assert_cmpint (viper_ticker_next_due (1000, 40, 1039), !=, 1039 + 40);
  /* a whole interval late: from now, not back to back */
  g_assert_cmpint (viper_ticker_next_due (1000, 40, 1040), ==, 1080);
  g_assert_cmpint (viper_ticker_next_due (1000, 40, 1500), ==, 1540);
}

typedef struct {
  ViperTicker *t;
  guint calls, on_grid, checked;
  gint64 prev_due;
} Run;

static gboolean
tick (gpointer data)
{
  Run *r = data;
  gint64 now = g_get_monotonic_time (), due = viper_ticker_due (r->t);
  /* the call came at or after the due time it was for */
  g_assert_cmpint (now, >=, r->prev_due);
  if (now - r->prev_due < 20000)
    {
      /* less than an interval late: the next call is due one interval
       * after the last due time, not after now */
      r->checked++;
      if (due == r->prev_due + 20000)
        r->on_grid++;
    }
  else
    g_assert_cmpint (due, >, now);
  r->prev_due = due;
  r->calls++;
  /* make the next call late: 6 ms of work, as a replay slice would */
  gint64 until = g_get_monotonic_time () + 6000;
  while (g_get_monotonic_time () < until)
    ;
  return G_SOURCE_CONTINUE;
}

static void
test_source (void)
{
  Run r = { 0 };
  r.t = viper_ticker_new (20, tick, &r);
  r.prev_due = viper_ticker_due (r.t);
  gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (r.calls < 10 && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  viper_ticker_free (r.t);
  g_assert_cmpuint (r.calls, ==, 10);
  g_assert_cmpuint (r.on_grid, ==, r.checked);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ticker/next-due", test_next_due);
  g_test_add_func ("/ticker/source", test_source);
  return g_test_run ();
}
