/* export-timeline.c - the timeline exports: Pajé and Chrome (see export.c
 * for the design: one description of module states, messages and program
 * events for both formats; messages matched FIFO per (from, to, tag)).
 * Pajé records go through the exporter's sorted merge; Chrome events are
 * spooled and written at the end, shifted so that none is negative. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "export-private.h"
#include "core/jsonout.h"

/* Chrome strings: a JSON string literal, quotes included (RFC 8259 escapes;
 * g_strescape's octal escapes such as \303 are not JSON). */
static char *
chrome_quote (const char *s)
{
  GString *q = g_string_new (NULL);
  viper_json_append_string (q, s);
  return g_string_free (q, FALSE);
}

/* ---- Pajé ---------------------------------------------------------------------- */

/* Pajé strings: quoted, without quotes inside. */
static char *
paje_quote (const char *s)
{
  GString *q = g_string_new ("\"");
  for (; *s; s++)
    g_string_append_c (q, *s == '"' ? '\'' : *s);
  g_string_append_c (q, '"');
  return g_string_free (q, FALSE);
}

static const char paje_header[] =
  "%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
  "%EventDef PajeDefineStateType 1\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
  "%EventDef PajeDefineEventType 2\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
  "%EventDef PajeDefineLinkType 3\n%       Alias string\n%       Type string\n%       StartContainerType string\n"
  "%       EndContainerType string\n%       Name string\n%EndEventDef\n"
  "%EventDef PajeDefineEntityValue 4\n%       Alias string\n%       Type string\n%       Name string\n"
  "%       Color color\n%EndEventDef\n"
  "%EventDef PajeCreateContainer 5\n%       Time date\n%       Alias string\n%       Type string\n"
  "%       Container string\n%       Name string\n%EndEventDef\n"
  "%EventDef PajeDestroyContainer 6\n%       Time date\n%       Type string\n%       Name string\n%EndEventDef\n"
  "%EventDef PajeSetState 7\n%       Time date\n%       Type string\n%       Container string\n"
  "%       Value string\n%EndEventDef\n"
  "%EventDef PajeNewEvent 8\n%       Time date\n%       Type string\n%       Container string\n"
  "%       Value string\n%EndEventDef\n"
  "%EventDef PajeStartLink 9\n%       Time date\n%       Type string\n%       Container string\n"
  "%       StartContainer string\n%       Value string\n%       Key string\n%EndEventDef\n"
  "%EventDef PajeEndLink 10\n%       Time date\n%       Type string\n%       Container string\n"
  "%       EndContainer string\n%       Value string\n%       Key string\n%EndEventDef\n";

void
viper_exp_paje_begin (ViperExporter *e)
{
  const ViperTimelineInfo *info = e->table->timeline_info;
  viper_exp_sink (e, paje_header, sizeof paje_header - 1);
  char *kind = paje_quote (info->module_kind);
  viper_exp_sinkf (e, "0 CP 0 \"Program\"\n0 CM CP %s\n1 SM CM \"State\"\n2 EP CP \"Program event\"\n"
         "2 EM CM \"Event\"\n3 LM CP CM CM \"Message\"\n", kind);
  g_free (kind);
  for (guint i = 0; i < info->n_states; i++)
    {
      char *name = paje_quote (info->states[i]);
      viper_exp_sinkf (e, "4 s%u SM %s \"%s\"\n", i, name, info->colors ? info->colors[i] : "0.5 0.5 0.5");
      g_free (name);
    }
}

void
viper_exp_paje_program_container (ViperExporter *e, const char *time)
{
  char *name = paje_quote (e->table->timeline_info->program);
  viper_exp_sinkf (e, "5 %s p CP 0 %s\n", time, name);
  g_free (name);
}

static gint
track_id_cmp (gconstpointer a, gconstpointer b)
{
  gint64 x = (*(Track *const *) a)->id, y = (*(Track *const *) b)->id;
  return x < y ? -1 : x > y;
}

/* At the first record written: every module seen so far (all of them, unless
 * one shows up after the merge window) gets its container now, in module
 * order, so that Pajé viewers list them in that order and not in the order of
 * their first trams. */
void
viper_exp_paje_create_known_containers (ViperExporter *e, const char *time)
{
  GPtrArray *list = g_ptr_array_new ();
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, e->tracks);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (((Track *) v)->created && !((Track *) v)->announced)
      g_ptr_array_add (list, v);
  g_ptr_array_sort (list, track_id_cmp);
  for (guint i = 0; i < list->len; i++)
    {
      Track *tr = list->pdata[i];
      char *name = tr->name ? paje_quote (tr->name) : NULL;
      if (!name)
        {
          char *plain = g_strdup_printf ("%s %" G_GINT64_FORMAT, e->table->timeline_info->module_kind, tr->id);
          name = paje_quote (plain);
          g_free (plain);
        }
      viper_exp_sinkf (e, "5 %s %s CM p %s\n", time, tr->alias, name);
      e->stats.records++;
      g_free (name);
      tr->announced = TRUE;
    }
  g_ptr_array_unref (list);
}

/* ---- Chrome ------------------------------------------------------------------- */

/* Chrome events are spooled to a temporary file until the end: only then is
 * the earliest timestamp known, and the trace is shifted so that none is
 * negative (Perfetto drops negative timestamps, and flows lose their start).
 * A spooled event is its "ts" (µs, NAN for metadata), its length (the top bit
 * set when the event already had a value clamped to a double's range) and its
 * JSON text with the byte \x01 where the "ts" value goes. */
#define CHROME_CLAMPED_BIT 0x80000000u

/* Adjusted times are finite, but in microseconds, or shifted, they may not
 * be (an adjusted time beyond ~1.8e302 s): such a value is written as the
 * largest double of its sign, and the event is counted (once) as clamped. */
static double
chrome_range (ViperExporter *e, double v)
{
  if (isfinite (v))
    return v;
  e->chrome_ts_clamped = TRUE;
  return v < 0 ? -G_MAXDOUBLE : G_MAXDOUBLE;
}

/* r takes the "ts" chrome_ts left pending (and whether it was clamped); the
 * earliest one sets the shift. */
static void
chrome_take_ts (ViperExporter *e, Rec *r)
{
  double ts = e->chrome_ts_pending;
  r->ts = ts;
  r->chrome_clamped = e->chrome_ts_clamped;
  e->chrome_ts_pending = NAN;
  e->chrome_ts_clamped = FALSE;
  if (!isnan (ts) && ts < e->chrome_min_ts)
    e->chrome_min_ts = ts;
}

/* A Chrome event into the merge, ordered by (time, lamport, idx, text) like
 * a Pajé record (time: when it happened on its track, not its "ts": a
 * slice is placed at its end); msg: a flow's message, its "id" the byte
 * \x02 until it is numbered. */
static void
chrome_event (ViperExporter *e, double time, guint32 lamport, guint32 idx, guint64 msg, gboolean insert_only,
              const char *json)
{
  Rec *r = viper_exp_push_keyed (e, e->cur_source, time, lamport, idx, 0, TRUE, json, "");
  chrome_take_ts (e, r);
  r->msg = msg;
  if (!insert_only)
    viper_exp_push_limit (e);
}

void
viper_exp_chrome_spool (ViperExporter *e, const Rec *r)
{
  const char *json = r->text;
  double ts = r->ts;
  gboolean clamped = r->chrome_clamped;
  if (!e->chrome_spool && !e->chrome_spool_errno && !(e->chrome_spool = tmpfile ()))
    e->chrome_spool_errno = errno ? errno : EIO;
  if (e->chrome_spool_errno)
    return;
  gsize n = strlen (json);
  if (n >= CHROME_CLAMPED_BIT)
    {
      e->chrome_spool_errno = EFBIG;
      return;
    }
  guint32 len = (guint32) n | (clamped ? CHROME_CLAMPED_BIT : 0);
  if (fwrite (&ts, sizeof ts, 1, e->chrome_spool) != 1 || fwrite (&len, sizeof len, 1, e->chrome_spool) != 1
      || fwrite (json, 1, n, e->chrome_spool) != n)
    e->chrome_spool_errno = errno ? errno : EIO;
}

/* The "ts" of the event being formatted: a placeholder, filled in at the end. */
static char *
chrome_ts (ViperExporter *e, double time, char *buf)
{
  e->chrome_ts_clamped = FALSE;
  e->chrome_ts_pending = chrome_range (e, time * e->table->timeline_info->us_per_unit);
  buf[0] = '\x01';
  buf[1] = '\0';
  return buf;
}

static gint track_cmp (gconstpointer a, gconstpointer b);

static void
chrome_write_meta (ViperExporter *e, const char *json)
{
  viper_exp_sink (e, e->chrome_first ? "\n" : ",\n", e->chrome_first ? 1 : 2);
  e->chrome_first = FALSE;
  viper_exp_sink (e, json, strlen (json));
  e->stats.records++;
}

/* The metadata: the process, then every track in module order (not in the
 * order they were first seen, which is the line order's). */
static void
chrome_metadata (ViperExporter *e)
{
  char *name = chrome_quote (e->table->timeline_info->program);
  char *ev = g_strdup_printf ("{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":%s}}", name);
  chrome_write_meta (e, ev);
  g_free (ev);
  g_free (name);
  GPtrArray *list = g_ptr_array_new ();
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, e->tracks);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (((Track *) v)->created)
      g_ptr_array_add (list, v);
  g_ptr_array_sort (list, track_cmp);
  for (guint i = 0; i < list->len; i++)
    {
      const Track *tr = list->pdata[i];
      char *plain = tr->name ? g_strdup (tr->name)
                             : g_strdup_printf ("%s %" G_GINT64_FORMAT, e->table->timeline_info->module_kind, tr->id);
      char *esc = chrome_quote (plain);
      ev = g_strdup_printf ("{\"ph\":\"M\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"name\":\"thread_name\","
                            "\"args\":{\"name\":%s}}", tr->id, esc);
      chrome_write_meta (e, ev);
      g_free (ev);
      ev = g_strdup_printf ("{\"ph\":\"M\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"name\":\"thread_sort_index\","
                            "\"args\":{\"sort_index\":%" G_GINT64_FORMAT "}}", tr->id, tr->id);
      chrome_write_meta (e, ev);
      g_free (ev);
      g_free (esc);
      g_free (plain);
    }
  g_ptr_array_unref (list);
}

/* Write the metadata, then the spooled events with the shift applied. */
static void
chrome_flush_spool (ViperExporter *e)
{
  chrome_metadata (e);
  double shift = isfinite (e->chrome_min_ts) && e->chrome_min_ts < 0 ? -e->chrome_min_ts : 0.0;
  double unit = e->table->timeline_info->us_per_unit;
  e->shift = shift / unit;
  if (e->chrome_spool && !e->chrome_spool_errno && fflush (e->chrome_spool) == 0)
    {
      rewind (e->chrome_spool);
      GString *text = g_string_new (NULL);
      double ts;
      guint32 len;
      while (fread (&ts, sizeof ts, 1, e->chrome_spool) == 1 && fread (&len, sizeof len, 1, e->chrome_spool) == 1)
        {
          e->chrome_ts_clamped = (len & CHROME_CLAMPED_BIT) != 0;
          len &= ~CHROME_CLAMPED_BIT;
          g_string_set_size (text, len);
          if (fread (text->str, 1, len, e->chrome_spool) != len)
            break;
          viper_exp_sink (e, e->chrome_first ? "\n" : ",\n", e->chrome_first ? 1 : 2);
          e->chrome_first = FALSE;
          const char *mark = isnan (ts) ? NULL : memchr (text->str, '\x01', len);
          if (mark)
            {
              char num[32];
              viper_exp_sink (e, text->str, (gsize) (mark - text->str));
              /* in microseconds, and maybe shifted: 15 significant digits drop the
               * conversion's noise (1105.2099999999991), as for every exporter */
              double v = chrome_range (e, ts + shift);
              if ((shift == 0.0 && unit == 1.0) || fabs (v) == G_MAXDOUBLE)
                viper_format_double (v, num);
              else
                viper_exp_format_noisy (v, MAX (fabs (ts), shift), num);
              viper_exp_sink (e, num, strlen (num));
              viper_exp_sink (e, mark + 1, len - (gsize) (mark + 1 - text->str));
            }
          else
            viper_exp_sink (e, text->str, len);
          e->stats.records++;
          if (e->chrome_ts_clamped)
            {
              e->stats.clamped++;
              e->stats.out_of_range++;
            }
          e->chrome_ts_clamped = FALSE;
        }
      if (ferror (e->chrome_spool))
        e->chrome_spool_errno = errno ? errno : EIO;
      g_string_free (text, TRUE);
    }
  if (e->chrome_spool_errno && !e->io_error)
    {
      e->io_error = TRUE;
      e->io_err = g_error_new (VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, "%s: temporary file for the Chrome events: %s",
                               e->file ? viper_outfile_name (e->file) : "chrome export",
                               g_strerror (e->chrome_spool_errno));
    }
  g_clear_pointer (&e->chrome_spool, fclose);
}

void
viper_exp_chrome_begin (ViperExporter *e)
{
  static const char open[] = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  viper_exp_sink (e, open, sizeof open - 1);
  e->chrome_first = TRUE;    /* the metadata are written at the end, with the events (chrome_metadata) */
}

/* The slice of tr's current state, ending at end; placed in the merge at
 * (time, lamport, idx). */
/* The "X" event of tr's state from tr->since to end (to free). */
static char *
chrome_slice_text (ViperExporter *e, const Track *tr, double end)
{
  char ts[32], dur[32];
  chrome_ts (e, tr->since, ts);
  /* a difference, converted: to the precision of its ends (51.84800000000017 -> 51.848) */
  double unit = e->table->timeline_info->us_per_unit;
  double d = chrome_range (e, (end - tr->since) * unit);
  if (fabs (d) == G_MAXDOUBLE)
    viper_format_double (d, dur);
  else
    viper_exp_format_noisy (d, MAX (fabs (end), fabs (tr->since)) * unit, dur);
  return g_strdup_printf ("{\"ph\":\"X\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%s,\"dur\":%s,"
                          "\"name\":\"%s\",\"cat\":\"state\"}",
                          tr->id, ts, dur, e->table->timeline_info->states[tr->state]);
}

static void
chrome_slice (ViperExporter *e, const Track *tr, double end, double time, guint32 lamport, guint32 idx)
{
  char *ev = chrome_slice_text (e, tr, end);
  chrome_event (e, time, lamport, idx, 0, FALSE, ev);
  g_free (ev);
}

/* ---- the timeline ------------------------------------------------------------- */

static Track *
track_get (ViperExporter *e, gint64 module)
{
  Track *tr = g_hash_table_lookup (e->tracks, &module);
  if (!tr)
    {
      tr = g_new0 (Track, 1);
      tr->id = module;
      tr->last = -INFINITY;
      tr->alias = g_strdup_printf ("m%" G_GINT64_FORMAT, module);
      g_hash_table_insert (e->tracks, &tr->id, tr);
    }
  return tr;
}

void
viper_timeline_name (ViperExporter *e, gint64 module, const char *name)
{
  if (e->fmt == FMT_PARAGRAPH)
    return;
  Track *tr = track_get (e, module);
  if (!tr->created)
    {
      g_free (tr->name);
      tr->name = g_strdup (name);
    }
}

/* Lamport numbers of timeline records.  A record about a track may be
 * produced while another processor's tram is exported (a state decided by
 * a message), so the tram's number would depend on the line order; the
 * track's own records, and the messages between tracks, do not: each
 * record takes 1 + the larger of its track's last number and its cause's
 * (a link's end: its start).  Equal times are then written in an order
 * that is the same for any line order and keeps a link's start before its
 * end.  The two largest numbers are the end's (below). */
#define TIMELINE_LAMPORT_MAX (G_MAXUINT32 - 2)

static guint32
lamport_next (guint32 *last, guint32 cause)
{
  guint32 l = MAX (*last, cause);
  if (l < TIMELINE_LAMPORT_MAX)
    l++;
  *last = l;
  return l;
}

/* The key of a record about tr: with write-time states the tram's Lamport
 * number and its index among the tram's records (a function of the tram,
 * whatever the line order); otherwise the track's own count. */
static guint32
rec_key (ViperExporter *e, Track *tr, guint32 cause, guint32 *idx)
{
  if (e->table->timeline_info->states_at)
    {
      *idx = e->cur_idx++;
      return e->cur_lamport;
    }
  *idx = 0;
  return lamport_next (&tr->lamport, cause);
}

/* The track exists from time on; returns the time a record about it may carry. */
static double
track_touch (ViperExporter *e, Track *tr, double time)
{
  /* write-time states: records about a track come out of time order (the
   * merge sorts them); raising them would depend on that order */
  if (time < tr->last && !e->table->timeline_info->states_at)
    time = tr->last;
  if (!tr->created)
    {
      tr->created = TRUE;
      if (e->fmt == FMT_PAJE && e->any_written)
        {
          /* appears after the file began: created at its first time */
          char *name = tr->name ? g_strdup (tr->name)
                                : g_strdup_printf ("%s %" G_GINT64_FORMAT, e->table->timeline_info->module_kind, tr->id);
          char *q = paje_quote (name);
          char *tail = g_strdup_printf ("%s CM p %s", tr->alias, q);
          viper_exp_push_keyed (e, e->cur_source, time, lamport_next (&tr->lamport, 0), 0, 0, FALSE, "5", tail);
          g_free (tail);
          g_free (q);
          g_free (name);
          tr->announced = TRUE;
        }
      /* Chrome: its metadata are written at the end, in module order */
    }
  if (time > tr->last)
    tr->last = time;
  if (time > e->max_time)
    e->max_time = time;
  return time;
}

void
viper_timeline_state (ViperExporter *e, gint64 module, double time, guint state)
{
  if (e->fmt == FMT_PARAGRAPH || state >= e->table->timeline_info->n_states)
    return;
  Track *tr = track_get (e, module);
  if (tr->has_state && tr->state == state)
    return;
  time = track_touch (e, tr, time);
  guint32 lamport = lamport_next (&tr->lamport, 0);
  if (e->fmt == FMT_PAJE)
    {
      char tail[96];
      g_snprintf (tail, sizeof tail, "SM %s s%u", tr->alias, state);
      viper_exp_push_keyed (e, e->cur_source, time, lamport, 0, 0, FALSE, "7", tail);
    }
  else if (tr->has_state)
    chrome_slice (e, tr, time, time, lamport, 0);
  tr->has_state = TRUE;
  tr->state = state;
  tr->since = time;
}

guint
viper_exp_chan_hash (gconstpointer k)
{
  const ChanKey *c = k;
  guint64 h = (guint64) c->from * 0x9E3779B97F4A7C15ull ^ ((guint64) c->to + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full
              ^ (guint64) c->tag * 0x165667B19E3779F9ull;
  return (guint) (h ^ (h >> 32));
}

gboolean
viper_exp_chan_equal (gconstpointer a, gconstpointer b)
{
  const ChanKey *x = a, *y = b;
  return x->from == y->from && x->to == y->to && x->tag == y->tag;
}

static void
msg_free (gpointer p)
{
  Msg *m = p;
  g_free (m->name);
  g_free (m);
}

void
viper_exp_queue_free (gpointer q)
{
  g_queue_free_full (q, msg_free);
}

void
viper_timeline_send (ViperExporter *e, gint64 from, gint64 to, gint64 tag, double time, const char *name)
{
  if (e->fmt == FMT_PARAGRAPH)
    return;
  Track *tr = track_get (e, from);
  time = track_touch (e, tr, time);
  ChanKey key = { from, to, tag };
  GQueue *q = g_hash_table_lookup (e->chans, &key);
  if (!q)
    {
      q = g_queue_new ();
      g_hash_table_insert (e->chans, g_memdup2 (&key, sizeof key), q);
    }
  Msg *m = g_new0 (Msg, 1);
  m->id = ++e->next_msg;
  m->time = time;
  m->lamport = rec_key (e, tr, 0, &m->idx);
  m->name = g_strdup (name ? name : "message");
  if (e->fmt == FMT_PAJE)
    m->hold = viper_export_hold (e, time);
  g_queue_push_tail (q, m);
}

gboolean
viper_timeline_recv (ViperExporter *e, gint64 from, gint64 to, gint64 tag, double time)
{
  if (e->fmt == FMT_PARAGRAPH)
    return TRUE;
  ChanKey key = { from, to, tag };
  GQueue *q = g_hash_table_lookup (e->chans, &key);
  Msg *m = q ? g_queue_pop_head (q) : NULL;
  if (!m)
    return FALSE;
  Track *tr = track_get (e, to);
  if (time < m->time)
    time = m->time;
  time = track_touch (e, tr, time);
  guint32 idx;
  guint32 lamport = rec_key (e, tr, m->lamport, &idx);
  /* the key ("k") or "id" is numbered when the link is first written: in
   * the written order, which is the same in any line order */
  if (e->fmt == FMT_PAJE)
    {
      char *name = paje_quote (m->name);
      char *tail = g_strdup_printf ("LM p m%" G_GINT64_FORMAT " %s k", from, name);
      viper_exp_push_keyed (e, e->cur_source, m->time, m->lamport, m->idx, m->id, FALSE, "9", tail);
      g_free (tail);
      tail = g_strdup_printf ("LM p %s %s k", tr->alias, name);
      viper_exp_push_keyed (e, e->cur_source, time, lamport, idx, m->id, FALSE, "10", tail);
      g_free (tail);
      g_free (name);
      viper_export_release (e, m->hold);
    }
  else
    {
      char t0[32], t1[32];
      char *name = chrome_quote (m->name);
      /* both at the receive's time in the merge (Chrome needs no order): the start needs no hold */
      char *ev = g_strdup_printf ("{\"ph\":\"s\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%s,\"id\":\x02"
                                  ",\"name\":%s,\"cat\":\"message\"}", from, chrome_ts (e, m->time, t0), name);
      chrome_event (e, time, m->lamport, m->idx, m->id, FALSE, ev);
      g_free (ev);
      ev = g_strdup_printf ("{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%s,\"id\":\x02"
                            ",\"name\":%s,\"cat\":\"message\"}", to, chrome_ts (e, time, t1), name);
      chrome_event (e, time, lamport, idx, m->id, FALSE, ev);
      g_free (ev);
      g_free (name);
    }
  msg_free (m);
  return TRUE;
}

static void chrome_now (ViperExporter *e, double time, const char *json);

/* A program event; insert_only: into the merge without writing anything
 * (from inside the merge's own writing); now: written at once (a
 * write-time batch's program state, at the time being written). */
static void
program_event_full (ViperExporter *e, double time, const char *value, gboolean insert_only, gboolean now)
{
  if (e->fmt == FMT_PARAGRAPH || !value || g_strcmp0 (value, e->last_event) == 0)
    return;
  g_free (e->last_event);
  e->last_event = g_strdup (value);
  if (time > e->max_time)
    e->max_time = time;
  /* the start event first among its equals (0), then the program's own sequence */
  guint32 lamport = insert_only ? 0 : lamport_next (&e->prog_lamport, 0);
  if (e->fmt == FMT_PAJE)
    {
      char *q = paje_quote (value);
      char *tail = g_strdup_printf ("EP p %s", q);
      if (now)
        viper_exp_write_now (e, viper_exp_rec_new (time, lamport, 0, "8", tail));
      else
        viper_exp_push_keyed (e, e->cur_source, time, lamport, 0, 0, insert_only, "8", tail);
      g_free (tail);
      g_free (q);
    }
  else
    {
      char ts[32];
      char *esc = chrome_quote (value);
      char *ev = g_strdup_printf ("{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":%s,\"name\":%s,"
                                  "\"cat\":\"program\"}", chrome_ts (e, time, ts), esc);
      if (now)
        chrome_now (e, time, ev);
      else
        chrome_event (e, time, lamport, 0, 0, insert_only, ev);
      g_free (ev);
      g_free (esc);
    }
}

static void
program_event (ViperExporter *e, double time, const char *value, gboolean insert_only)
{
  program_event_full (e, time, value, insert_only, FALSE);
}

void
viper_exp_timeline_start_now (ViperExporter *e)
{
  if (!e->start_value)
    return;
  char *value = g_steal_pointer (&e->start_value);
  e->start_done = TRUE;
  program_event (e, e->start_time, value, TRUE);
  g_free (value);
}

void
viper_timeline_event (ViperExporter *e, double time, const char *value)
{
  /* the start event is the earliest: it goes before any other */
  viper_exp_timeline_start_now (e);
  program_event (e, time, value, FALSE);
}

void
viper_timeline_start_event (ViperExporter *e, double time, const char *value)
{
  if (e->fmt == FMT_PARAGRAPH || e->start_done || !value || !isfinite (time))
    return;
  if (!e->start_value)
    {
      e->start_value = g_strdup (value);
      e->start_time = time;
    }
  else if (time < e->start_time)
    e->start_time = time;
}

void
viper_timeline_instant (ViperExporter *e, gint64 module, double time, const char *value)
{
  if (e->fmt == FMT_PARAGRAPH)
    return;
  Track *tr = track_get (e, module);
  time = track_touch (e, tr, time);
  guint32 idx;
  guint32 lamport = rec_key (e, tr, 0, &idx);
  if (e->fmt == FMT_PAJE)
    {
      char *q = paje_quote (value);
      char *tail = g_strdup_printf ("EM %s %s", tr->alias, q);
      viper_exp_push_keyed (e, e->cur_source, time, lamport, idx, 0, FALSE, "8", tail);
      g_free (tail);
      g_free (q);
    }
  else
    {
      char ts[32];
      char *esc = chrome_quote (value);
      char *ev = g_strdup_printf ("{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%s,"
                                  "\"name\":%s,\"cat\":\"event\"}", tr->id, chrome_ts (e, time, ts), esc);
      chrome_event (e, time, lamport, idx, 0, FALSE, ev);
      g_free (ev);
      g_free (esc);
    }
}

static gint
track_cmp (gconstpointer a, gconstpointer b)
{
  const Track *x = *(Track *const *) a, *y = *(Track *const *) b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Close the states and containers at the end of the run. */
void
viper_exp_timeline_end (ViperExporter *e)
{
  viper_exp_timeline_start_now (e);
  if (e->table->timeline_info->states_at)
    {
      /* the tracks' last states are known once every change is applied */
      viper_exp_flush_all (e);
      viper_exp_batch_end (e);
    }
  GPtrArray *list = g_ptr_array_new ();
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, e->tracks);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_ptr_array_add (list, v);
  g_ptr_array_sort (list, track_cmp);
  double end = isfinite (e->max_time) ? e->max_time : 0.0;
  /* after everything at their time, in module order, the program last */
  for (guint i = 0; i < list->len; i++)
    {
      Track *tr = list->pdata[i];
      if (!tr->created)
        continue;
      if (e->fmt == FMT_PAJE)
        {
          char *tail = g_strdup_printf ("CM %s", tr->alias);
          viper_exp_push_keyed (e, e->cur_source, end, G_MAXUINT32 - 1, i, 0, FALSE, "6", tail);
          g_free (tail);
        }
      else if (tr->has_state)
        chrome_slice (e, tr, end, end, G_MAXUINT32 - 1, i);
    }
  if (e->fmt == FMT_PAJE && (e->heap_len > 0 || e->any_written))
    viper_exp_push_keyed (e, e->cur_source, end, G_MAXUINT32, 0, 0, FALSE, "6", "CP p");
  if (e->fmt == FMT_CHROME)
    {
      viper_exp_flush_all (e);
      chrome_flush_spool (e);
      viper_exp_sink (e, "\n]}\n", 4);
    }
  g_ptr_array_unref (list);
}


/* ---- write-time states (ViperTimelineInfo.states_at) --------------------------
 *
 * A paradigm whose state changes are decided by several trams (Mona Lisa: an
 * inrglb caller blocks when the last of its instances received the request)
 * produces them in run order, which is not time order and depends on the
 * line order.  So they go into the merge as records of their own time and
 * causal key, and are applied only when the merge writes that time: all the
 * changes of one time together (a batch), in (time, lamport, idx, state)
 * order, the last of a track's counting.  A track's state line (Pajé) or
 * finished slice (Chrome) is written at the batch's end when its state
 * differs from the one written, then the paradigm hears what changed and
 * says the program state at that time.  Everything here is a function of
 * the set of changes, not of the order they were produced in. */

static Rec *
state_rec (ViperExporter *e, guint8 kind, gint64 module, double time, guint32 lamport, guint32 idx, guint state,
           guint64 aux)
{
  char text[64];
  /* the text only breaks ties of (time, lamport, idx): canonical */
  g_snprintf (text, sizeof text, "%u %" G_GINT64_FORMAT " %u", kind, module, state);
  Rec *r = viper_exp_rec_new (time, lamport, idx, text, "");
  r->kind = kind;
  r->track = module;
  r->state = state;
  r->aux = aux;
  viper_exp_heap_insert (e, e->cur_source, r);
  viper_exp_push_limit (e);
  return r;
}

void
viper_timeline_state_at (ViperExporter *e, gint64 module, double time, guint32 lamport, guint32 idx, guint state,
                         guint64 aux)
{
  if (e->fmt == FMT_PARAGRAPH || state >= e->table->timeline_info->n_states)
    return;
  time = track_touch (e, track_get (e, module), time);
  state_rec (e, REC_STATE, module, time, lamport, idx, state, aux);
}

void
viper_timeline_retract_at (ViperExporter *e, gint64 module, double time, guint32 lamport, guint32 idx, guint state)
{
  if (e->fmt == FMT_PARAGRAPH || state >= e->table->timeline_info->n_states)
    return;
  /* right after the change it undoes */
  state_rec (e, REC_RETRACT, module, time, lamport, idx, state, 0);
}

void
viper_timeline_note_at (ViperExporter *e, gint64 key, double time, guint32 lamport, guint64 aux)
{
  if (e->fmt == FMT_PARAGRAPH)
    return;
  if (time > e->max_time)
    e->max_time = time;
  state_rec (e, REC_NOTE, key, time, lamport, 0, 0, aux);
}

/* A Chrome event written (spooled) at once, "ts" from chrome_ts. */
static void
chrome_now (ViperExporter *e, double time, const char *json)
{
  Rec *r = viper_exp_rec_new (time, 0, 0, json, "");
  chrome_take_ts (e, r);
  viper_exp_write_now (e, r);
}

void
viper_exp_batch_rec (ViperExporter *e, const Rec *r)
{
  if (e->batch_open && r->time != e->batch_time)
    viper_exp_batch_end (e);
  if (!e->batch_open)
    {
      e->batch_open = TRUE;
      e->batch_time = r->time;
    }
  if (r->kind == REC_NOTE)
    {
      gint64 pair[2] = { r->track, (gint64) r->aux };
      g_array_append_vals (e->batch_notes, pair, 2);
      return;
    }
  Track *tr = track_get (e, r->track);
  if (!tr->in_batch)
    {
      tr->in_batch = TRUE;
      tr->pend_has = tr->has_state;
      tr->pend_state = tr->state;
      tr->pend_aux = tr->aux;
      g_ptr_array_add (e->batch_tracks, tr);
    }
  if (r->kind == REC_STATE)
    {
      tr->pend_prev_has = tr->pend_has;
      tr->pend_prev_state = tr->pend_state;
      tr->pend_prev_aux = tr->pend_aux;
      tr->pend_has = TRUE;
      tr->pend_state = r->state;
      tr->pend_aux = r->aux;
    }
  else if (tr->pend_has && tr->pend_state == r->state)
    {
      /* the change it undoes was the last of the track's */
      tr->pend_has = tr->pend_prev_has;
      tr->pend_state = tr->pend_prev_state;
      tr->pend_aux = tr->pend_prev_aux;
    }
}

void
viper_exp_batch_before (ViperExporter *e, double t, guint32 lamport)
{
  if (e->batch_open && (t != e->batch_time || lamport >= TIMELINE_LAMPORT_MAX))
    viper_exp_batch_end (e);
}

void
viper_exp_batch_end (ViperExporter *e)
{
  if (!e->batch_open)
    return;
  e->batch_open = FALSE;
  double t = e->batch_time;
  GPtrArray *list = e->batch_tracks;
  g_ptr_array_sort (list, track_cmp);
  for (guint i = 0; i < list->len; i++)
    {
      Track *tr = list->pdata[i];
      tr->in_batch = FALSE;
      gboolean changed = tr->pend_has && (!tr->has_state || tr->state != tr->pend_state);
      if (changed)
        {
          if (e->fmt == FMT_PAJE)
            {
              char tail[96];
              g_snprintf (tail, sizeof tail, "SM %s s%u", tr->alias, tr->pend_state);
              viper_exp_write_now (e, viper_exp_rec_new (t, 0, 0, "7", tail));
            }
          else if (tr->has_state)
            {
              char *ev = chrome_slice_text (e, tr, t);
              chrome_now (e, t, ev);
              g_free (ev);
            }
          tr->has_state = TRUE;
          tr->state = tr->pend_state;
          tr->since = t;
        }
      if ((changed || tr->aux != tr->pend_aux) && tr->pend_has)
        {
          tr->aux = tr->pend_aux;
          if (e->table->applied)
            e->table->applied (e, tr->id, tr->state, tr->aux, FALSE);
        }
    }
  g_ptr_array_set_size (list, 0);
  for (guint i = 0; i + 1 < e->batch_notes->len; i += 2)
    if (e->table->applied)
      e->table->applied (e, g_array_index (e->batch_notes, gint64, i), 0,
                         (guint64) g_array_index (e->batch_notes, gint64, i + 1), TRUE);
  g_array_set_size (e->batch_notes, 0);
  const char *word = e->table->program_at ? e->table->program_at (e, t) : NULL;
  if (word)
    program_event_full (e, t, word, FALSE, TRUE);
}
