/* stateout.c - writes the state document every consumer of --state-out
 * reads.  The layout is fixed by the spec; the paradigm only contributes its
 * own top-level fields and the module objects. */
#include <math.h>
#include "stateout.h"
#include "clocksync.h"

char *
viper_state_to_json (const ViperRun *run, const ViperModel *model, gboolean pretty)
{
  GString *s = g_string_new (NULL);
  ViperJson j;
  viper_json_init (&j, s, pretty);
  ViperCounts c;
  viper_run_counts (run, &c);
  if (model)
    c.inconsistent = model->inconsistent;

  viper_json_begin_object (&j);
  viper_json_key (&j, "paradigm");
  viper_json_string (&j, viper_run_paradigm (run)->name);
  viper_json_key (&j, "clock");
  /* null before the first transfer: no clock yet (--stats says "none") */
  double clock = viper_run_clock (run);
  if (isfinite (clock))
    viper_json_double (&j, clock);
  else
    viper_json_null (&j);
  viper_json_key (&j, "program_state");
  viper_json_string (&j, model ? viper_model_program_state (model) : (c.transferred ? "running" : "inactive"));
  viper_json_key (&j, "counts");
  viper_json_begin_object (&j);
  viper_json_key (&j, "read"); viper_json_int (&j, (gint64) c.read);
  viper_json_key (&j, "transferred"); viper_json_int (&j, (gint64) c.transferred);
  viper_json_key (&j, "pending"); viper_json_int (&j, (gint64) c.pending);
  viper_json_key (&j, "rejected"); viper_json_int (&j, (gint64) c.rejected);
  viper_json_key (&j, "ignored"); viper_json_int (&j, (gint64) c.ignored);
  viper_json_key (&j, "inconsistent"); viper_json_int (&j, (gint64) c.inconsistent);
  viper_json_end_object (&j);
  if (model && model->klass->write_top)
    model->klass->write_top (model, &j);
  const ViperClockSync *cs = viper_run_clock_sync (run);
  if (cs)
    viper_clock_sync_write_json (cs, &j);
  viper_json_key (&j, "modules");
  viper_json_begin_array (&j);
  if (model && model->klass->write_modules)
    model->klass->write_modules (model, run, &j);
  else
    {
      GArray *procs = viper_run_procs (run);
      for (guint i = 0; i < procs->len; i++)
        {
          gint64 p = g_array_index (procs, gint64, i);
          viper_json_begin_object (&j);
          viper_json_key (&j, "id"); viper_json_int (&j, p);
          viper_json_key (&j, "offset"); viper_json_double (&j, viper_run_offset (run, p));
          viper_clock_sync_write_module (run, p, &j);
          viper_json_end_object (&j);
        }
      g_array_unref (procs);
    }
  viper_json_end_array (&j);
  viper_json_key (&j, "stuck");
  viper_json_begin_array (&j);
  GArray *stuck = viper_run_stuck (run);
  for (guint i = 0; i < stuck->len; i++)
    {
      const ViperStuck *st = &g_array_index (stuck, ViperStuck, i);
      viper_json_begin_object (&j);
      viper_json_key (&j, "proc"); viper_json_int (&j, st->proc);
      viper_json_key (&j, "waiting_for"); viper_json_string (&j, st->waiting_for);
      viper_json_key (&j, "trams"); viper_json_int (&j, (gint64) st->trams);
      viper_json_end_object (&j);
    }
  viper_stuck_array_free (stuck);
  viper_json_end_array (&j);
  viper_json_end_object (&j);
  if (pretty)
    g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}
