/* model.c - the program-state model base.
 *
 * The base applies a tram through the paradigm's class and keeps what is
 * common: the clock, counters, and the history window.  History entries are
 * appended in run order; because the run is not sorted by time, trimming
 * drops entries from the front while they are older than clock - interval,
 * which keeps memory bounded by the window without a sort.
 */
#include <math.h>
#include "model.h"

void
viper_model_init (ViperModel *m, const ViperModelClass *klass, const ViperParadigm *p, ViperSetup *setup)
{
  m->klass = klass;
  m->paradigm = p;
  m->setup = setup;
  m->damage = viper_damage_new ();
  m->clock = -INFINITY;
  m->history = g_array_new (FALSE, FALSE, sizeof (ViperHistoryEntry));
}

void
viper_model_finish (ViperModel *m)
{
  viper_damage_free (m->damage);
  m->damage = NULL;
  if (m->history)
    g_array_unref (m->history);
  m->history = NULL;
}

void
viper_model_free (ViperModel *m)
{
  if (!m)
    return;
  if (m->klass->destroy)
    m->klass->destroy (m);
  else
    {
      viper_model_finish (m);
      g_free (m);
    }
}

static void
trim_history (ViperModel *m)
{
  if (m->history_interval <= 0 || !m->history->len)
    return;
  double limit = m->clock - m->history_interval;
  guint n = 0;
  while (n < m->history->len)
    {
      const ViperHistoryEntry *e = &g_array_index (m->history, ViperHistoryEntry, n);
      double end = isnan (e->t1) ? INFINITY : MAX (e->t0, e->t1);
      if (end >= limit)
        break;
      n++;
    }
  /* remove in chunks so trimming stays amortised O(1) per entry */
  if (n > 0 && (n >= 1024 || n * 4 >= m->history->len))
    {
      g_array_remove_range (m->history, 0, n);
      m->history_dropped += n;
    }
}

gboolean
viper_model_apply (ViperModel *m, const ViperTram *t)
{
  if (t->adjusted > m->clock)
    {
      m->clock = t->adjusted;
      viper_damage_add (m->damage, VIPER_AREA_CLOCK, 0, 0);
    }
  m->applied++;
  gboolean changed = (t->flags & VIPER_TRAM_F_IGNORED) ? FALSE : m->klass->apply (m, t);
  if (changed)
    m->changes++;
  trim_history (m);
  return changed;
}

void
viper_model_reset (ViperModel *m)
{
  m->clock = -INFINITY;
  m->applied = m->changes = m->inconsistent = 0;
  g_array_set_size (m->history, 0);
  m->history_dropped = 0;
  viper_damage_clear (m->damage);
  if (m->klass->reset)
    m->klass->reset (m);
  viper_damage_add (m->damage, VIPER_AREA_ALL, 0, 0);
}

const char *
viper_model_program_state (const ViperModel *m)
{
  return m->klass->program_state ? m->klass->program_state (m) : "running";
}

void
viper_model_inconsistent (ViperModel *m, const ViperTram *t, const char *fmt, ...)
{
  m->inconsistent++;
  if (!m->diag)
    return;
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  viper_diag_event (m->diag, VIPER_DIAG_WARNING, "inconsistent: proc %" G_GINT64_FORMAT " seq %" G_GINT64_FORMAT
                    " (line %u): %s", t->proc, t->seq, t->line, msg);
  g_free (msg);
}

void
viper_model_set_history (ViperModel *m, double interval)
{
  m->history_interval = interval;
  if (interval < 0)
    {
      m->history_dropped += m->history->len;
      g_array_set_size (m->history, 0);
    }
  trim_history (m);
}

void
viper_model_history_add (ViperModel *m, const ViperHistoryEntry *e)
{
  if (m->history_interval < 0)
    return;
  g_array_append_vals (m->history, e, 1);
}
