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
 *
 * The timeline (Pajé, Chrome) reads the picl model after each tram: one track
 * per processor in the state the model derived (busy, communicating, idle),
 * a message per matched send begin -> receive end on channel (SRC, DEST,
 * TAG), and the program state as program events.  A send begin can turn an
 * idle receiver communicating, so the destination's state is read too.
 */
#include <string.h>
#include "picl.h"
#include "picl-export.h"

typedef struct {
  GString *line;
} PiclExport;

static void
picl_export_clear (gpointer priv)
{
  PiclExport *x = priv;
  if (x->line)
    g_string_free (x->line, TRUE);
}

static void
picl_paragraph (ViperExporter *e, const ViperTram *t, const ViperModel *m)
{
  (void) m;
  PiclExport *x = viper_exporter_priv (e);
  if (!x->line)
    x->line = g_string_new (NULL);
  g_string_truncate (x->line, 0);
  viper_tram_print (t, TRUE, x->line);
  /* the printed line is "REC EV TIME rest" with single blanks */
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
      viper_export_push_definition (e, s, sp3 ? sp3 + 1 : "");
      return;
    }
  viper_export_push (e, t->proc, t->adjusted, s, sp3 ? sp3 + 1 : "");
  if (t->rec == VIPER_PICL_REC_END && t->ev == VIPER_PICL_EV_TRACING)
    viper_export_source_done (e, t->proc);
}

static void
picl_timeline (ViperExporter *e, const ViperTram *t, const ViperModel *m)
{
  double time = t->adjusted;
  if (t->proc >= 0)
    viper_timeline_state (e, t->proc, time, viper_picl_model_state (m, t->proc));
  if (!(t->flags & VIPER_TRAM_F_IGNORED) && t->dtype == VIPER_DTYPE_INT)
    {
      gboolean begin = t->rec == VIPER_PICL_REC_BEGIN, end = t->rec == VIPER_PICL_REC_END;
      if (begin && (t->ev == VIPER_PICL_EV_SEND || t->ev == VIPER_PICL_EV_ISEND) && t->ndata >= 4)
        {
          gint64 dest = viper_tram_datum (t, VIPER_PICL_SEND_DEST, -1);
          viper_timeline_send (e, t->proc, dest, viper_tram_datum (t, VIPER_PICL_SEND_TAG, 0), time, "message");
          ViperPiclState ds = viper_picl_model_state (m, dest);
          if (ds != VIPER_PICL_BUSY)
            viper_timeline_state (e, dest, time, ds);
        }
      else if (end && (t->ev == VIPER_PICL_EV_RECV || t->ev == VIPER_PICL_EV_RECV_WAIT) && t->ndata >= 4)
        viper_timeline_recv (e, viper_tram_datum (t, VIPER_PICL_RECV_SRC, -1), t->proc,
                             viper_tram_datum (t, VIPER_PICL_RECV_TAG, 0), time);
    }
  viper_timeline_event (e, time, viper_model_program_state (m));
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
  .priv_size = sizeof (PiclExport),
  .priv_clear = picl_export_clear,
};
