/* picl-export.c - what a picl run looks like to ParaGraph, Pajé and Chrome.
 *
 * ParaGraph reads PICL itself, so the ParaGraph form of a picl run is the run
 * passed through: every line, known or not, with its TIME replaced by the
 * adjusted time.  The exporter's merge (paradigms/export.c) sorts the lines by
 * adjusted time with one source per processor: a processor's adjusted times
 * never decrease in the run, so a line is written once every processor still
 * tracing has passed its time.  A processor that stops tracing (-4 -901) stops
 * holding the merge; the global subset definitions (PROC -1) never hold it:
 * they are timeless and go out just before the next record written, so they
 * precede every barrier that uses them even on a processor whose clock is
 * negative.
 * Because adjusted times respect every message (a receive end is never
 * earlier than its send begin) and ties keep the run order, the file is
 * causally consistent even when the input clocks lied.
 * Clock-synchronisation samples (-6 -951) are left out (counted): their T1,
 * TR and T2 are readings of the original clocks, which the adjusted times
 * replaced, so they would contradict the file's own times (TIME is T2), and
 * `--clock=drift` on the export would correct it a second time.
 *
 * The timeline (Pajé, Chrome) reads the picl model after each tram: one track
 * per processor in the state the model derived (busy, communicating, idle),
 * a message per matched send begin -> receive end on channel (SRC, DEST,
 * TAG), and the program state as program events.  A send begin can turn an
 * idle receiver communicating, so the destination's state is read too.
 */
#include <math.h>
#include <string.h>
#include "picl.h"
#include "picl-export.h"

typedef struct {
  GString *line;
  GArray *arrivals;         /* Arrival: receives waiting for their states (timeline) */
} PiclExport;

static void
picl_export_clear (gpointer priv)
{
  PiclExport *x = priv;
  if (x->line)
    g_string_free (x->line, TRUE);
  if (x->arrivals)
    g_array_unref (x->arrivals);
}

/* The subset a record names (a collective's begin; an allreduce's end), or
 * -1: all processors, or none.  Its definition must come first (spec section 5). */
static gint64
used_subset (const ViperTram *t)
{
  if ((t->flags & VIPER_TRAM_F_IGNORED) || t->dtype != VIPER_DTYPE_INT || t->proc < 0
      || viper_picl_collective_shape (t->ev) == VIPER_PICL_SHAPE_NONE)
    return -1;
  if (t->rec == VIPER_PICL_REC_BEGIN)
    return viper_picl_collective_subset (t);
  if (t->rec == VIPER_PICL_REC_END && t->ev == VIPER_PICL_EV_ALLREDUCE)
    return viper_tram_datum (t, 0, -1);
  return -1;
}

static void
picl_paragraph (ViperExporter *e, const ViperTram *t, const ViperModel *m)
{
  (void) m;
  if (t->rec == VIPER_PICL_REC_SYNC && t->ev == VIPER_PICL_EV_SYNC)
    {
      viper_export_leave_out (e);
      return;
    }
  PiclExport *x = viper_exporter_priv (e);
  if (!x->line)
    x->line = g_string_new (NULL);
  g_string_truncate (x->line, 0);
  /* the time is written by the exporter: the line is "REC EV  rest" */
  viper_tram_print_time_as (t, "", x->line);
  char *s = x->line->str;
  char *sp1 = strchr (s, ' ');
  char *sp2 = sp1 ? strchr (sp1 + 1, ' ') : NULL;
  char *sp3 = sp2 ? strchr (sp2 + 1, ' ') : NULL;
  if (!sp2)
    return;
  *sp2 = '\0';
  if (t->rec == VIPER_PICL_REC_SUBSET)
    {
      /* a definition has no time of its own: it must only come before every
       * use, whatever the clock of the processor that uses it */
      if (t->ev == VIPER_PICL_EV_SUBSET && t->dtype == VIPER_DTYPE_INT && t->ndata >= 1)
        viper_export_push_definition_of (e, viper_tram_data (t)[0], s, sp3 ? sp3 + 1 : "");
      else
        viper_export_push_definition (e, s, sp3 ? sp3 + 1 : "");
      return;
    }
  gint64 subset = used_subset (t);
  if (subset != -1)
    viper_export_push_using (e, t->proc, t->adjusted, subset, s, sp3 ? sp3 + 1 : "");
  else
    viper_export_push (e, t->proc, t->adjusted, s, sp3 ? sp3 + 1 : "");
  if (t->rec == VIPER_PICL_REC_END && t->ev == VIPER_PICL_EV_TRACING)
    viper_export_source_done (e, t->proc);
}

/* A message arrival on a processor whose calls are still open: written
 * once the states of those calls are decided, in time order with them. */
typedef struct {
  gint64 from, to, tag;
  double time;
} Arrival;

static void
emit_decided (ViperExporter *e, PiclExport *x, const ViperPiclChange *c, guint n)
{
  for (guint i = 0; i < n;)
    {
      gint64 proc = c[i].proc;
      guint j = i;
      while (j < n && c[j].proc == proc)
        j++;
      /* merge this processor's changes c[i..j) with its arrivals (both in time order) */
      guint k = 0;
      for (guint a = 0; a < x->arrivals->len; a++)
        {
          Arrival *r = &g_array_index (x->arrivals, Arrival, a);
          if (r->to != proc)
            {
              g_array_index (x->arrivals, Arrival, k++) = *r;
              continue;
            }
          while (i < j && c[i].time <= r->time)
            {
              viper_timeline_state (e, proc, c[i].time, c[i].state);
              i++;
            }
          viper_timeline_recv (e, r->from, r->to, r->tag, r->time);
        }
      g_array_set_size (x->arrivals, k);
      for (; i < j; i++)
        viper_timeline_state (e, proc, c[i].time, c[i].state);
    }
}

/* States come from the model's decided changes, not from its state after
 * each tram: a state is a function of adjusted times (spec section 3), and
 * some are known only when a later tram of the processor is applied.  The
 * program events: "running" at the earliest adjusted time (a start event,
 * written once the merge passes that time), "terminated" at the end at the
 * last tracing stop if nothing was left half done, so a processor-grouped
 * file does not flap between the two. */
static void
picl_timeline (ViperExporter *e, const ViperTram *t, const ViperModel *m)
{
  PiclExport *x = viper_exporter_priv (e);
  if (!x->arrivals)
    x->arrivals = g_array_new (FALSE, FALSE, sizeof (Arrival));
  double time = t->adjusted;
  guint n;
  const ViperPiclChange *c = viper_picl_model_changes (m, &n);
  gboolean known = !(t->flags & VIPER_TRAM_F_IGNORED) && t->dtype == VIPER_DTYPE_INT;
  gboolean begin = t->rec == VIPER_PICL_REC_BEGIN, end = t->rec == VIPER_PICL_REC_END;
  if (known && begin && (t->ev == VIPER_PICL_EV_SEND || t->ev == VIPER_PICL_EV_ISEND) && t->ndata >= 3)
    {
      if (!viper_picl_model_in_call (m, t->proc) || n)
        viper_timeline_state (e, t->proc, time, VIPER_PICL_BUSY);
      viper_timeline_send (e, t->proc, viper_tram_datum (t, VIPER_PICL_SEND_DEST, -1),
                           viper_tram_datum (t, VIPER_PICL_SEND_TAG, 0), time, "message");
    }
  else if (known && end && (t->ev == VIPER_PICL_EV_RECV || t->ev == VIPER_PICL_EV_RECV_WAIT) && t->ndata >= 4)
    {
      Arrival r = { viper_tram_datum (t, VIPER_PICL_RECV_SRC, -1), t->proc, viper_tram_datum (t, VIPER_PICL_RECV_TAG, 0),
                    time };
      g_array_append_val (x->arrivals, r);
    }
  /* "running" at the earliest adjusted time, not the first tram's (that
   * one depends on the line order); written as soon as the merge passes it */
  viper_timeline_start_event (e, viper_picl_model_first_time (m), "running");
  emit_decided (e, x, c, n);
  /* a processor's first record: busy, unless a call of it is open */
  if (t->proc >= 0 && !viper_picl_model_in_call (m, t->proc))
    viper_timeline_state (e, t->proc, time, VIPER_PICL_BUSY);
}

static void
picl_timeline_end (ViperExporter *e, const ViperModel *m)
{
  PiclExport *x = viper_exporter_priv (e);
  /* calls still open at the stop: their states so far, as the space-time
   * view draws them (with the arrivals among them in time order) */
  if (m && x->arrivals)
    {
      GArray *open = g_array_new (FALSE, FALSE, sizeof (ViperPiclChange));
      viper_picl_model_open_changes (m, G_MININT64, open);
      emit_decided (e, x, (const ViperPiclChange *) (gconstpointer) open->data, open->len);
      g_array_unref (open);
    }
  /* arrivals of calls never closed: written as they are */
  if (x->arrivals)
    {
      for (guint a = 0; a < x->arrivals->len; a++)
        {
          const Arrival *r = &g_array_index (x->arrivals, Arrival, a);
          viper_timeline_recv (e, r->from, r->to, r->tag, r->time);
        }
      g_array_set_size (x->arrivals, 0);
    }
  if (!m || !isfinite (viper_picl_model_first_time (m)))
    return;
  if (g_strcmp0 (viper_model_program_state (m), "terminated") == 0)
    viper_timeline_event (e, viper_picl_model_last_stop (m), "terminated");
}

static const char *const picl_states[] = { "busy", "communicating", "idle" };
static const char *const picl_colors[] = { "0.2 0.7 0.2", "1.0 0.8 0.1", "0.8 0.1 0.1" };

static const ViperTimelineInfo picl_timeline_info = {
  .program = "picl run",
  .module_kind = "processor",
  .states = picl_states,
  .colors = picl_colors,
  .n_states = G_N_ELEMENTS (picl_states),
  .us_per_unit = 1e6,
};

const ViperExportTable viper_picl_exports = {
  .paragraph = picl_paragraph,
  .timeline = picl_timeline,
  .timeline_info = &picl_timeline_info,
  .end = picl_timeline_end,
  .priv_size = sizeof (PiclExport),
  .priv_clear = picl_export_clear,
};
