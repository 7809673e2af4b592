/* run-reject.c - bad lines and the run: a rejected line does not strand
 * its module (spec section 1), and what a waiting tram may name (rejected
 * and uninterpreted lines); the run's bounds. */
#include <stdarg.h>
#include "run-priv.h"

/* Column (1-based) of data field i in the raw line, for diagnostics. */
guint
viper_run_data_column (const ViperTram *t, guint i)
{
  if (t->flags & VIPER_TRAM_F_CANON)
    {
      /* canonical: DTYPE is "2" at data_off, then the data printed with one
       * blank each, so positions follow from the values' lengths */
      if (i >= t->ndata)
        return t->raw_len + 1;
      const gint64 *d = viper_tram_data (t);
      guint pos = (guint) t->data_off + 2;
      for (guint k = 0; k < i; k++)
        {
          char num[24];
          pos += (guint) g_snprintf (num, sizeof num, "%" G_GINT64_FORMAT, d[k]) + 1;
        }
      return pos + 1;
    }
  const char *raw = viper_tram_raw (t);
  guint pos = t->data_off;
  if (!t->ndata || pos >= t->raw_len)
    return t->raw_len + 1;
  /* skip DTYPE, then i fields */
  for (guint f = 0; f <= i; f++)
    {
      while (pos < t->raw_len && raw[pos] != ' ' && raw[pos] != '\t')
        pos++;
      while (pos < t->raw_len && (raw[pos] == ' ' || raw[pos] == '\t'))
        pos++;
    }
  return pos + 1;
}


/* Remember FILE:LINE (the first few per proc) in a proc -> RejectedLines table. */
void
viper_run_note_line (GHashTable *table, gint64 proc, gint64 seq, const char *file, guint64 line)
{
  RejectedLines *rl = g_hash_table_lookup (table, &proc);
  if (!rl)
    {
      gint64 *key = g_new (gint64, 1);
      *key = proc;
      rl = g_new0 (RejectedLines, 1);
      rl->text = g_string_new (NULL);
      g_hash_table_insert (table, key, rl);
    }
  if (rl->n++ < REJECTED_NAMED)
    {
      g_string_append_printf (rl->text, "%s%s:%" G_GUINT64_FORMAT, rl->n > 1 ? ", " : "", file, line);
      if (seq)
        g_string_append_printf (rl->text, " (seq %" G_GINT64_FORMAT ")", seq);
    }
}

/* A rejected line does not strand its module (spec section 1): when its
 * sequence number can be read it counts as used, and the line is remembered
 * so that a tram that needed it can name it. */
static void
reject_passes_at (ViperRun *run, gint64 proc, gint64 d1, const char *file, guint64 line)
{
  gint64 seq = 0;
  if (run->paradigm->explicit_seq)
    {
      if (d1 < 1)
        return;
      seq = d1;
    }
  /* a bad line names any PROC: past the bound of modules it creates no list
   * and is only counted, as any line of a new PROC would be */
  if (G_UNLIKELY (g_hash_table_size (run->lists) >= run->max_procs) && !viper_run_list_get (run, proc, FALSE))
    return;
  viper_run_note_line (run->rejected_at, proc, seq, file, line);
  if (!seq)
    return;
  ViperSeqList *l = viper_run_list_get (run, proc, TRUE);
  ViperTram *first = NULL;
  if (viper_seqlist_mark_used (l, seq, &first) == VIPER_SEQ_QUEUED && first)
    {
      viper_run_advance_claims (run, l);
      viper_run_drain_resume (run);
    }
}

static void
reject_passes (ViperRun *run, const ViperTram *t, const char *file)
{
  gint64 d1 = t->dtype == VIPER_DTYPE_INT && t->ndata >= 1 ? viper_tram_data (t)[0] : 0;
  reject_passes_at (run, t->proc, d1, file, t->line);
}

void
viper_run_note_rejected (ViperRun *run, gint64 proc, gint64 d1, guint32 channel, guint64 line)
{
  const char *file = run->channels ? viper_channels_name (run->channels, channel) : "-";
  reject_passes_at (run, proc, d1, file, line);
}

gboolean
viper_run_reject_as (ViperRun *run, ViperTram *t, gboolean passes, guint column, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *reason = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  const char *file = run->channels ? viper_channels_name (run->channels, t->channel) : "-";
  if (run->diag)
    viper_diag_bad (run->diag, file, t->line, column, "%s", reason);
  g_free (reason);
  run->counts.rejected++;
  if (passes)
    reject_passes (run, t, file);
  viper_tram_pool_release (run->pool, t);
  return FALSE;
}


void
viper_run_set_max_pending (ViperRun *run, guint64 max)
{
  run->max_pending = max ? max : G_MAXUINT64;
}

guint64
viper_run_max_pending (const ViperRun *run)
{
  return run->max_pending;
}

void
viper_run_set_max_procs (ViperRun *run, guint64 max)
{
  run->max_procs = max ? max : G_MAXUINT64;
}

guint64
viper_run_max_procs (const ViperRun *run)
{
  return run->max_procs;
}

/* Why the oldest held-up list waits, for the bound's message. */
char *
viper_run_first_stuck_reason (const ViperRun *run)
{
  GArray *stuck = viper_run_stuck (run);
  guint best = 0;
  for (guint i = 1; i < stuck->len; i++)
    if (g_array_index (stuck, ViperStuck, i).trams > g_array_index (stuck, ViperStuck, best).trams)
      best = i;
  char *r = stuck->len ? g_strdup_printf ("proc %" G_GINT64_FORMAT " holds %" G_GUINT64_FORMAT " and waits for %s",
                                          g_array_index (stuck, ViperStuck, best).proc,
                                          g_array_index (stuck, ViperStuck, best).trams,
                                          g_array_index (stuck, ViperStuck, best).waiting_for)
                       : g_strdup ("nothing is stuck");
  viper_stuck_array_free (stuck);
  return r;
}

