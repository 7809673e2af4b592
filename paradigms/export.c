/* export.c - exporters: Tram::output() for ParaGraph, Pajé and Chrome.
 *
 * An exporter is a small pipeline: the paradigm's translator (its export
 * table) turns each transferred tram into records; the exporter writes them
 * in the format's order and syntax.
 *
 * Sorting with bounded memory.  ParaGraph and PajeNG need records in
 * non-decreasing time, but the run is not sorted by time: a tram leaves as
 * soon as its predecessors have, and only each module's adjusted times (and
 * each dependency) are ordered.  Every sorted record therefore names a
 * *source* (a processor) whose own records come with non-decreasing times.
 * Records wait in one binary heap keyed by (time, order of production); the
 * watermark W is the smallest "last time" over the live sources and the
 * smallest open *hold* (a record promised for later, e.g. a message's start
 * that becomes a Pajé link only once the message is received).  Nothing that
 * will still be produced can be older than W, so every heap record with time
 * <= W is written.  Ties keep the order of production, which is the run
 * order: a receive whose adjusted time equals its send's stays after the send
 * (ties by processor could invert them, and ParaGraph needs causal order).
 * Sources are learnt as they appear, so a processor whose first lines are
 * read late could be older than what the watermark let out: the newest
 * VIPER_EXPORT_DEFAULT_WINDOW records therefore stay in the heap even when
 * the watermark passed them (a reorder window).  Beyond the window the heap
 * holds the records newer than the slowest live source (or the oldest hold);
 * sources that end (tracing stopped, a finished process) stop holding it.
 * A hard limit (VIPER_EXPORT_DEFAULT_LIMIT records, settable)
 * caps the heap: past it the oldest record is written anyway, and any later
 * record older than what was written is written with the last written time
 * ("clamped", counted).  Raising a time to the last written one keeps the file
 * non-decreasing and never puts an effect before its cause (the cause was
 * produced earlier, so it was written earlier, with a time no larger).
 *
 * The timeline (Pajé and Chrome) is one description for both formats:
 * module states, messages and program events.  Messages are matched FIFO per
 * (from, to, tag) - the paradigms' channels are FIFO - and become a link
 * (Pajé) or a flow (Chrome) when received; a send holds the merge at its time
 * until then, so the link's start can still be written in order.  Messages
 * never received leave no link (PajeNG rejects incomplete links).  PajeNG
 * also reads a negative time as "unset", so a Pajé file whose run begins
 * before 0 is shifted to begin at 0 (the shift is the first record's time).
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "export.h"
#include "core/outfile.h"
#include "core/scheduler.h"
#include "core/heap.h"
#include "paradigms.h"

G_DEFINE_QUARK (viper-export-error-quark, viper_export_error)

typedef enum { FMT_PARAGRAPH = 0, FMT_PAJE, FMT_CHROME, N_FMT } Fmt;

static const char *const format_names[] = { "paragraph", "paje", "chrome", NULL };
static const char *const format_titles[] = { "ParaGraph", "Pajé", "Chrome trace" };

/* A sorted record: "HEAD TIME TAIL"; text holds head\0tail\0. */
typedef struct {
  double time;
  guint64 serial;
  gsize head_len;
  char text[];
} Rec;

typedef struct {
  gint64 id;
  double last;
  gboolean done;
} Source;

typedef struct {
  double time;
  guint64 id;
} Hold;

typedef struct {
  gint64 id;
  char *name;
  char *alias;              /* Pajé container alias */
  gboolean created;
  gboolean announced;       /* Pajé: its PajeCreateContainer is written or queued */
  gboolean has_state;
  guint state;
  double since;             /* start of the current state */
  double last;              /* latest time written about this track */
} Track;

typedef struct {
  gint64 from, to, tag;
} ChanKey;

typedef struct {
  guint64 id;
  double time;
  guint64 hold;
  char *name;
} Msg;

struct _ViperExporter {
  Fmt fmt;
  const ViperParadigm *paradigm;
  const ViperExportTable *table;
  const ViperModel *model;
  ViperOutFile *file;       /* or */
  GString *string;
  gboolean begun;           /* header written (at the first tram: a FIFO opens only then) */
  gboolean io_error;
  gboolean finished;
  GError *io_err;           /* the write error, "PATH: reason" */
  GString *buf;             /* one record being formatted */

  /* the merge */
  GPtrArray *heap;          /* of Rec*, min-heap on (time, serial) */
  guint64 serial;
  GHashTable *sources;      /* gint64* -> Source* */
  GTree *holds;             /* Hold* -> Hold* ordered by (time, id) */
  GHashTable *hold_ids;     /* guint64* id -> Hold* */
  guint64 next_hold;
  guint64 limit;
  guint64 window;           /* records kept even when the watermark passed them */
  double last_written;
  gboolean any_written;
  double shift;             /* added to written times (runs that begin before 0), trace units */
  double units_per_second;  /* ParaGraph wants seconds: written time = (t + shift) / this */
  GPtrArray *defs;          /* timeless definitions waiting for the next record (char*) */
  gint64 cur_source;        /* PROC of the tram being exported */

  /* the timeline */
  GHashTable *tracks;       /* gint64* -> Track* */
  GHashTable *chans;        /* ChanKey* -> GQueue* of Msg* */
  guint64 next_msg;
  char *last_event;
  double max_time;
  gboolean chrome_first;
  FILE *chrome_spool;       /* Chrome events until the end: the shift is known only then */
  double chrome_ts_pending; /* the "ts" of the event being formatted (µs), NAN: none */
  double chrome_min_ts;
  int chrome_spool_errno;

  ViperExportStats stats;
  gpointer priv;
};

/* ---- output ----------------------------------------------------------------- */

static void
sink (ViperExporter *e, const char *s, gsize len)
{
  if (e->string)
    g_string_append_len (e->string, s, (gssize) len);
  else if (e->file && !e->io_error && !viper_outfile_write (e->file, s, len))
    e->io_error = TRUE;
}

static void G_GNUC_PRINTF (2, 3)
sinkf (ViperExporter *e, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_string_truncate (e->buf, 0);
  g_string_append_vprintf (e->buf, fmt, ap);
  va_end (ap);
  sink (e, e->buf->str, e->buf->len);
}

/* ---- the merge ---------------------------------------------------------------- */

static gboolean
rec_less (gconstpointer x, gconstpointer y)
{
  const Rec *a = x, *b = y;
  return a->time < b->time || (a->time == b->time && a->serial < b->serial);
}

static void
heap_push (GPtrArray *h, Rec *r)
{
  viper_heap_push (h, r, rec_less);
}

static Rec *
heap_pop (GPtrArray *h)
{
  return viper_heap_pop (h, rec_less);
}

static void paje_program_container (ViperExporter *e, const char *time);
static void paje_create_known_containers (ViperExporter *e, const char *time);

/* A time as written: shifted, and in seconds for ParaGraph. */
static char *
out_time (ViperExporter *e, double t, char *num)
{
  double v = t + e->shift;
  gboolean scaled = e->fmt == FMT_PARAGRAPH && e->units_per_second != 1.0;
  if (scaled)
    v /= e->units_per_second;
  if (e->shift == 0.0 && !scaled)
    return viper_format_double (v, num);    /* the adjusted time exactly */
  /* Shifting and scaling add rounding noise in the last bits (0.03 - 0.00003
   * gives 2.9999999999999804e-05): 15 significant digits drop it, and
   * rounding to a fixed precision never reorders two times. */
  return g_ascii_formatd (num, 32, "%.15g", v);
}

static void
write_line (ViperExporter *e, const char *head, gsize head_len, const char *num, const char *tail)
{
  g_string_truncate (e->buf, 0);
  g_string_append_len (e->buf, head, (gssize) head_len);
  g_string_append_c (e->buf, ' ');
  g_string_append (e->buf, num);
  if (*tail)
    {
      g_string_append_c (e->buf, ' ');
      g_string_append (e->buf, tail);
    }
  g_string_append_c (e->buf, '\n');
  sink (e, e->buf->str, e->buf->len);
  e->stats.records++;
}

/* Definitions waiting (viper_export_push_definition) go out just before
 * the record that follows them, with its time. */
static void
write_defs (ViperExporter *e, const char *num)
{
  for (guint i = 0; e->defs && i < e->defs->len; i++)
    {
      const char *d = e->defs->pdata[i];
      const char *tail = d + strlen (d) + 1;
      write_line (e, d, strlen (d), num, tail);
    }
  if (e->defs)
    g_ptr_array_set_size (e->defs, 0);
}

static void
write_rec (ViperExporter *e, Rec *r)
{
  double t = r->time;
  if (e->any_written && t < e->last_written)
    {
      /* raised to keep the file in time order: counted, and by how much */
      double moved = e->last_written - t;
      if (moved > e->stats.max_clamp)
        e->stats.max_clamp = moved;
      t = e->last_written;
      e->stats.clamped++;
    }
  /* The first record written is the earliest (the merge is sorted): a run
   * that begins before 0 is shifted to begin at 0.  PajeNG takes negative
   * times for "unset", ParaGraph cannot draw them. */
  if (!e->any_written && e->fmt != FMT_CHROME && t < 0)
    e->shift = -t;
  char num[32];
  out_time (e, t, num);
  if (!e->any_written && e->fmt == FMT_PAJE)
    {
      paje_program_container (e, num);
      paje_create_known_containers (e, num);
    }
  e->any_written = TRUE;
  write_defs (e, num);
  e->last_written = t;
  write_line (e, r->text, r->head_len, num, r->text + r->head_len + 1);
  g_free (r);
}

static double
watermark (ViperExporter *e)
{
  double w = INFINITY;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, e->sources);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      const Source *s = v;
      if (!s->done && s->last < w)
        w = s->last;
    }
  GTreeNode *first = g_tree_node_first (e->holds);
  if (first)
    {
      const Hold *h = g_tree_node_key (first);
      if (h->time < w)
        w = h->time;
    }
  return w;
}

static void
flush_upto (ViperExporter *e, double w, gboolean all)
{
  while (e->heap->len > 0 && (all || ((Rec *) e->heap->pdata[0])->time <= w))
    write_rec (e, heap_pop (e->heap));
  e->stats.buffered = e->heap->len;
}

/* Write what the watermark allows, keeping the newest `window` records: a
 * processor that shows up late (its first lines read after others' were
 * merged) still finds its place in the window. */
static void
flush (ViperExporter *e)
{
  if (e->heap->len <= e->window)
    return;
  double w = watermark (e);
  while (e->heap->len > e->window && ((Rec *) e->heap->pdata[0])->time <= w)
    write_rec (e, heap_pop (e->heap));
  e->stats.buffered = e->heap->len;
}

static Source *
source_get (ViperExporter *e, gint64 id)
{
  Source *s = g_hash_table_lookup (e->sources, &id);
  if (!s)
    {
      s = g_new0 (Source, 1);
      s->id = id;
      s->last = -INFINITY;
      g_hash_table_insert (e->sources, &s->id, s);
    }
  return s;
}

void
viper_export_push (ViperExporter *e, gint64 source, double time, const char *head, const char *tail)
{
  Source *s = source_get (e, source);
  s->done = FALSE;
  if (time > s->last)
    s->last = time;
  if (time > e->max_time)
    e->max_time = time;
  gsize hl = strlen (head), tl = tail ? strlen (tail) : 0;
  Rec *r = g_malloc (sizeof (Rec) + hl + tl + 2);
  r->time = time;
  r->serial = e->serial++;
  r->head_len = hl;
  memcpy (r->text, head, hl + 1);
  if (tl)
    memcpy (r->text + hl + 1, tail, tl);
  r->text[hl + 1 + tl] = '\0';
  heap_push (e->heap, r);
  while (e->heap->len > e->limit)
    write_rec (e, heap_pop (e->heap));
  if (e->heap->len > e->stats.peak_buffered)
    e->stats.peak_buffered = e->heap->len;
  e->stats.buffered = e->heap->len;
}

void
viper_export_pushf (ViperExporter *e, gint64 source, double time, const char *head, const char *tail_fmt, ...)
{
  va_list ap;
  va_start (ap, tail_fmt);
  char *tail = g_strdup_vprintf (tail_fmt, ap);
  va_end (ap);
  viper_export_push (e, source, time, head, tail);
  g_free (tail);
}

void
viper_export_push_definition (ViperExporter *e, const char *head, const char *tail)
{
  if (!e->defs)
    e->defs = g_ptr_array_new_with_free_func (g_free);
  gsize hl = strlen (head), tl = tail ? strlen (tail) : 0;
  char *d = g_malloc (hl + tl + 2);
  memcpy (d, head, hl + 1);
  if (tl)
    memcpy (d + hl + 1, tail, tl);
  d[hl + 1 + tl] = '\0';
  g_ptr_array_add (e->defs, d);
}

void
viper_export_expect_source (ViperExporter *e, gint64 source)
{
  source_get (e, source)->done = FALSE;
}

void
viper_export_source_done (ViperExporter *e, gint64 source)
{
  Source *s = g_hash_table_lookup (e->sources, &source);
  if (s)
    s->done = TRUE;
}

double
viper_export_source_time (const ViperExporter *e, gint64 source)
{
  const Source *s = g_hash_table_lookup (e->sources, &source);
  return s ? s->last : -INFINITY;
}

static gint
hold_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  (void) data;
  const Hold *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

guint64
viper_export_hold (ViperExporter *e, double time)
{
  Hold *h = g_new (Hold, 1);
  h->time = time;
  h->id = ++e->next_hold;
  g_tree_insert (e->holds, h, h);
  g_hash_table_insert (e->hold_ids, &h->id, h);
  return h->id;
}

void
viper_export_release (ViperExporter *e, guint64 hold)
{
  Hold *h = g_hash_table_lookup (e->hold_ids, &hold);
  if (!h)
    return;
  g_hash_table_remove (e->hold_ids, &hold);
  g_tree_remove (e->holds, h);
  g_free (h);
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

static void
paje_begin (ViperExporter *e)
{
  const ViperTimelineInfo *info = e->table->timeline_info;
  sink (e, paje_header, sizeof paje_header - 1);
  char *kind = paje_quote (info->module_kind);
  sinkf (e, "0 CP 0 \"Program\"\n0 CM CP %s\n1 SM CM \"State\"\n2 EP CP \"Program event\"\n"
         "2 EM CM \"Event\"\n3 LM CP CM CM \"Message\"\n", kind);
  g_free (kind);
  for (guint i = 0; i < info->n_states; i++)
    {
      char *name = paje_quote (info->states[i]);
      sinkf (e, "4 s%u SM %s \"%s\"\n", i, name, info->colors ? info->colors[i] : "0.5 0.5 0.5");
      g_free (name);
    }
}

static void
paje_program_container (ViperExporter *e, const char *time)
{
  char *name = paje_quote (e->table->timeline_info->program);
  sinkf (e, "5 %s p CP 0 %s\n", time, name);
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
static void
paje_create_known_containers (ViperExporter *e, const char *time)
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
      sinkf (e, "5 %s %s CM p %s\n", time, tr->alias, name);
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
 * A spooled event is its "ts" (µs, NAN for metadata) and its JSON text with
 * the byte \x01 where the "ts" value goes. */
static void
chrome_event (ViperExporter *e, const char *json)
{
  double ts = e->chrome_ts_pending;
  e->chrome_ts_pending = NAN;
  if (!isnan (ts) && ts < e->chrome_min_ts)
    e->chrome_min_ts = ts;
  if (!e->chrome_spool && !e->chrome_spool_errno && !(e->chrome_spool = tmpfile ()))
    e->chrome_spool_errno = errno ? errno : EIO;
  if (e->chrome_spool_errno)
    return;
  guint32 len = (guint32) strlen (json);
  if (fwrite (&ts, sizeof ts, 1, e->chrome_spool) != 1 || fwrite (&len, sizeof len, 1, e->chrome_spool) != 1
      || fwrite (json, 1, len, e->chrome_spool) != len)
    e->chrome_spool_errno = errno ? errno : EIO;
}

/* The "ts" of the event being formatted: a placeholder, filled in at the end. */
static char *
chrome_ts (ViperExporter *e, double time, char *buf)
{
  e->chrome_ts_pending = time * e->table->timeline_info->us_per_unit;
  buf[0] = '\x01';
  buf[1] = '\0';
  return buf;
}

/* Write the spooled events with the shift applied. */
static void
chrome_flush_spool (ViperExporter *e)
{
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
          g_string_set_size (text, len);
          if (fread (text->str, 1, len, e->chrome_spool) != len)
            break;
          sink (e, e->chrome_first ? "\n" : ",\n", e->chrome_first ? 1 : 2);
          e->chrome_first = FALSE;
          const char *mark = isnan (ts) ? NULL : memchr (text->str, '\x01', len);
          if (mark)
            {
              char num[32];
              sink (e, text->str, (gsize) (mark - text->str));
              viper_format_double (ts + shift, num);
              sink (e, num, strlen (num));
              sink (e, mark + 1, len - (gsize) (mark + 1 - text->str));
            }
          else
            sink (e, text->str, len);
          e->stats.records++;
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

static void
chrome_begin (ViperExporter *e)
{
  static const char open[] = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  sink (e, open, sizeof open - 1);
  e->chrome_first = TRUE;
  char *name = g_strescape (e->table->timeline_info->program, NULL);
  char *ev = g_strdup_printf ("{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"%s\"}}", name);
  chrome_event (e, ev);
  g_free (ev);
  g_free (name);
}

static void
chrome_slice (ViperExporter *e, const Track *tr, double end)
{
  char ts[32], dur[32];
  chrome_ts (e, tr->since, ts);
  viper_format_double ((end - tr->since) * e->table->timeline_info->us_per_unit, dur);
  char *ev = g_strdup_printf ("{\"ph\":\"X\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%s,\"dur\":%s,"
                              "\"name\":\"%s\",\"cat\":\"state\"}",
                              tr->id, ts, dur, e->table->timeline_info->states[tr->state]);
  chrome_event (e, ev);
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

/* The track exists from time on; returns the time a record about it may carry. */
static double
track_touch (ViperExporter *e, Track *tr, double time)
{
  if (time < tr->last)
    time = tr->last;
  if (!tr->created)
    {
      tr->created = TRUE;
      char *name = tr->name ? g_strdup (tr->name)
                            : g_strdup_printf ("%s %" G_GINT64_FORMAT, e->table->timeline_info->module_kind, tr->id);
      if (e->fmt == FMT_PAJE && e->any_written)
        {
          /* appears after the file began: created at its first time */
          char *q = paje_quote (name);
          viper_export_pushf (e, e->cur_source, time, "5", "%s CM p %s", tr->alias, q);
          g_free (q);
          tr->announced = TRUE;
        }
      else
        {
          char *esc = g_strescape (name, NULL);
          char *ev = g_strdup_printf ("{\"ph\":\"M\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"name\":\"thread_name\","
                                      "\"args\":{\"name\":\"%s\"}}", tr->id, esc);
          chrome_event (e, ev);
          g_free (ev);
          ev = g_strdup_printf ("{\"ph\":\"M\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"name\":\"thread_sort_index\","
                                "\"args\":{\"sort_index\":%" G_GINT64_FORMAT "}}", tr->id, tr->id);
          chrome_event (e, ev);
          g_free (ev);
          g_free (esc);
        }
      g_free (name);
    }
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
  if (e->fmt == FMT_PAJE)
    viper_export_pushf (e, e->cur_source, time, "7", "SM %s s%u", tr->alias, state);
  else if (tr->has_state)
    chrome_slice (e, tr, time);
  tr->has_state = TRUE;
  tr->state = state;
  tr->since = time;
}

static guint
chan_hash (gconstpointer k)
{
  const ChanKey *c = k;
  guint64 h = (guint64) c->from * 0x9E3779B97F4A7C15ull ^ ((guint64) c->to + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full
              ^ (guint64) c->tag * 0x165667B19E3779F9ull;
  return (guint) (h ^ (h >> 32));
}

static gboolean
chan_equal (gconstpointer a, gconstpointer b)
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

static void
queue_free (gpointer q)
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
  if (e->fmt == FMT_PAJE)
    {
      char *name = paje_quote (m->name);
      viper_export_pushf (e, e->cur_source, m->time, "9", "LM p m%" G_GINT64_FORMAT " %s k%" G_GUINT64_FORMAT,
                          from, name, m->id);
      viper_export_pushf (e, e->cur_source, time, "10", "LM p %s %s k%" G_GUINT64_FORMAT, tr->alias, name, m->id);
      g_free (name);
      viper_export_release (e, m->hold);
    }
  else
    {
      char t0[32], t1[32];
      char *name = g_strescape (m->name, NULL);
      char *ev = g_strdup_printf ("{\"ph\":\"s\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%s,\"id\":%" G_GUINT64_FORMAT
                                  ",\"name\":\"%s\",\"cat\":\"message\"}", from, chrome_ts (e, m->time, t0), m->id, name);
      chrome_event (e, ev);
      g_free (ev);
      ev = g_strdup_printf ("{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%s,\"id\":%"
                            G_GUINT64_FORMAT ",\"name\":\"%s\",\"cat\":\"message\"}", to, chrome_ts (e, time, t1), m->id, name);
      chrome_event (e, ev);
      g_free (ev);
      g_free (name);
    }
  msg_free (m);
  return TRUE;
}

void
viper_timeline_event (ViperExporter *e, double time, const char *value)
{
  if (e->fmt == FMT_PARAGRAPH || !value || g_strcmp0 (value, e->last_event) == 0)
    return;
  g_free (e->last_event);
  e->last_event = g_strdup (value);
  if (time > e->max_time)
    e->max_time = time;
  if (e->fmt == FMT_PAJE)
    {
      char *q = paje_quote (value);
      viper_export_pushf (e, e->cur_source, time, "8", "EP p %s", q);
      g_free (q);
    }
  else
    {
      char ts[32];
      char *esc = g_strescape (value, NULL);
      char *ev = g_strdup_printf ("{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":%s,\"name\":\"%s\","
                                  "\"cat\":\"program\"}", chrome_ts (e, time, ts), esc);
      chrome_event (e, ev);
      g_free (ev);
      g_free (esc);
    }
}

void
viper_timeline_instant (ViperExporter *e, gint64 module, double time, const char *value)
{
  if (e->fmt == FMT_PARAGRAPH)
    return;
  Track *tr = track_get (e, module);
  time = track_touch (e, tr, time);
  if (e->fmt == FMT_PAJE)
    {
      char *q = paje_quote (value);
      viper_export_pushf (e, e->cur_source, time, "8", "EM %s %s", tr->alias, q);
      g_free (q);
    }
  else
    {
      char ts[32];
      char *esc = g_strescape (value, NULL);
      char *ev = g_strdup_printf ("{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%s,"
                                  "\"name\":\"%s\",\"cat\":\"event\"}", tr->id, chrome_ts (e, time, ts), esc);
      chrome_event (e, ev);
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
static void
timeline_end (ViperExporter *e)
{
  GPtrArray *list = g_ptr_array_new ();
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, e->tracks);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_ptr_array_add (list, v);
  g_ptr_array_sort (list, track_cmp);
  double end = isfinite (e->max_time) ? e->max_time : 0.0;
  for (guint i = 0; i < list->len; i++)
    {
      Track *tr = list->pdata[i];
      if (!tr->created)
        continue;
      if (e->fmt == FMT_PAJE)
        viper_export_pushf (e, e->cur_source, end, "6", "CM %s", tr->alias);
      else if (tr->has_state)
        chrome_slice (e, tr, end);
    }
  if (e->fmt == FMT_PAJE && (e->heap->len > 0 || e->any_written))
    viper_export_push (e, e->cur_source, end, "6", "CP p");
  if (e->fmt == FMT_CHROME)
    {
      chrome_flush_spool (e);
      sink (e, "\n]}\n", 4);
    }
  g_ptr_array_unref (list);
}

/* ---- formats, specs ------------------------------------------------------------ */

const char *const *
viper_export_format_names (void)
{
  return format_names;
}

static int
format_index (const char *format)
{
  for (int i = 0; format_names[i]; i++)
    if (g_strcmp0 (format, format_names[i]) == 0)
      return i;
  return -1;
}

gboolean
viper_export_format_known (const char *format)
{
  return format_index (format) >= 0;
}

static gboolean
table_has (const ViperExportTable *t, Fmt f)
{
  if (!t)
    return FALSE;
  return f == FMT_PARAGRAPH ? t->paragraph != NULL : (t->timeline != NULL && t->timeline_info != NULL);
}

gboolean
viper_export_supported (const ViperParadigm *p, const char *format, GError **error)
{
  int f = format_index (format);
  if (f < 0)
    {
      char *list = g_strjoinv (", ", (char **) format_names);
      g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNKNOWN, "unknown export format '%s' (one of %s)",
                   format, list);
      g_free (list);
      return FALSE;
    }
  const ViperExportTable *t = p->export;
  if (table_has (t, (Fmt) f))
    return TRUE;
  GString *use = g_string_new (NULL);
  for (int i = 0; i < N_FMT; i++)
    if (table_has (t, (Fmt) i))
      g_string_append_printf (use, "%s%s", use->len ? " or " : "", format_names[i]);
  const char *why = f == FMT_PARAGRAPH ? (t && t->no_paragraph_reason ? t->no_paragraph_reason
                                                                       : "ParaGraph knows message passing only")
                                       : "it describes no timeline of states";
  if (use->len)
    g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNSUPPORTED, "%s runs have no %s form: %s; use %s",
                 p->name, format_titles[f], why, use->str);
  else
    g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNSUPPORTED, "%s runs have no exports", p->name);
  g_string_free (use, TRUE);
  return FALSE;
}

gboolean
viper_export_parse_spec (const char *spec, char **format, char **file, GError **error)
{
  const char *colon = strchr (spec, ':');
  if (!colon || colon == spec || !colon[1])
    {
      g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_SPEC,
                   "--export=%s: expected FORMAT:FILE (FORMAT one of paragraph, paje, chrome; FILE '-' = stdout)", spec);
      return FALSE;
    }
  char *f = g_strndup (spec, (gsize) (colon - spec));
  if (!viper_export_format_known (f))
    {
      g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNKNOWN,
                   "--export=%s: unknown format '%s' (one of paragraph, paje, chrome)", spec, f);
      g_free (f);
      return FALSE;
    }
  *format = f;
  *file = g_strdup (colon + 1);
  return TRUE;
}

/* ---- exporters ------------------------------------------------------------------- */

static ViperExporter *
exporter_new (const ViperParadigm *p, const ViperModel *model, const char *format, GError **error)
{
  if (!viper_export_supported (p, format, error))
    return NULL;
  if (!model)
    {
      g_set_error (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_UNSUPPORTED,
                   "%s exports read the paradigm's model, and this replay has none", p->name);
      return NULL;
    }
  ViperExporter *e = g_new0 (ViperExporter, 1);
  e->fmt = (Fmt) format_index (format);
  e->paradigm = p;
  e->table = p->export;
  e->model = model;
  e->buf = g_string_new (NULL);
  e->heap = g_ptr_array_new ();
  e->sources = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  e->holds = g_tree_new_full (hold_cmp, NULL, NULL, NULL);
  e->hold_ids = g_hash_table_new (g_int64_hash, g_int64_equal);
  e->limit = VIPER_EXPORT_DEFAULT_LIMIT;
  e->window = VIPER_EXPORT_DEFAULT_WINDOW;
  e->tracks = g_hash_table_new (g_int64_hash, g_int64_equal);
  e->chans = g_hash_table_new_full (chan_hash, chan_equal, g_free, queue_free);
  e->max_time = -INFINITY;
  e->cur_source = -1;
  e->chrome_ts_pending = NAN;
  e->chrome_min_ts = INFINITY;
  /* ParaGraph is in seconds whatever the paradigm's unit (Chrome's µs per
   * unit says what the unit is) */
  e->units_per_second = e->table->timeline_info && e->table->timeline_info->us_per_unit > 0
                          ? 1e6 / e->table->timeline_info->us_per_unit : 1.0;
  if (e->table->priv_size)
    e->priv = g_malloc0 (e->table->priv_size);
  return e;
}

static void
exporter_begin (ViperExporter *e)
{
  if (e->begun)
    return;
  e->begun = TRUE;
  if (e->fmt == FMT_PAJE)
    paje_begin (e);
  else if (e->fmt == FMT_CHROME)
    chrome_begin (e);
  if (e->table->begin)
    e->table->begin (e, e->model);
}

ViperExporter *
viper_exporter_open (const ViperParadigm *p, const ViperModel *model, const char *format, const char *file,
                     GError **error)
{
  ViperExporter *e = exporter_new (p, model, format, error);
  if (!e)
    return NULL;
  GError *ferr = NULL;
  e->file = viper_outfile_open (file, g_get_prgname (), &ferr);
  if (!e->file)
    {
      g_set_error_literal (error, VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, ferr->message);
      g_error_free (ferr);
      viper_exporter_close (e, NULL);
      return NULL;
    }
  /* the header waits for the first tram: nothing is written (and a FIFO
   * is not opened) before the replay has something to say */
  return e;
}

ViperExporter *
viper_exporter_open_string (const ViperParadigm *p, const ViperModel *model, const char *format, GString *out,
                            GError **error)
{
  ViperExporter *e = exporter_new (p, model, format, error);
  if (!e)
    return NULL;
  e->string = out;
  exporter_begin (e);
  return e;
}

void
viper_exporter_tram (ViperExporter *e, const ViperTram *t)
{
  if (e->finished)
    return;
  exporter_begin (e);
  e->cur_source = t->proc;
  ViperExportTramFunc f = e->fmt == FMT_PARAGRAPH ? e->table->paragraph : e->table->timeline;
  f (e, t, e->model);
  /* the program manager / global records come one at a time, out of any stream */
  viper_export_source_done (e, -1);
  flush (e);
}

void
viper_exporter_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  (void) changed;
  viper_exporter_tram (data, t);
}

void
viper_exporter_set_buffer_limit (ViperExporter *e, guint64 limit)
{
  e->limit = MAX (limit, 1);
  e->window = MIN (e->window, e->limit);
}

void
viper_exporter_set_window (ViperExporter *e, guint64 window)
{
  e->window = MIN (window, e->limit);
}

void
viper_exporter_stats (const ViperExporter *e, ViperExportStats *out)
{
  *out = e->stats;
}

const char *
viper_exporter_format (const ViperExporter *e)
{
  return format_names[e->fmt];
}

gpointer
viper_exporter_priv (ViperExporter *e)
{
  return e->priv;
}

gboolean
viper_exporter_finish (ViperExporter *e, GError **error)
{
  if (e->finished)
    {
      if (e->io_error && error)
        *error = e->io_err ? g_error_copy (e->io_err)
                           : g_error_new (VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, "%s export: write error",
                                          format_names[e->fmt]);
      return !e->io_error;
    }
  e->finished = TRUE;
  gboolean opened = e->file || e->string;
  if (opened)
    {
      exporter_begin (e);
      /* nothing more will be produced: promised records are dropped */
      GList *ids = g_hash_table_get_keys (e->hold_ids);
      for (GList *l = ids; l; l = l->next)
        viper_export_release (e, *(guint64 *) l->data);
      g_list_free (ids);
      if (e->table->end)
        e->table->end (e, e->model);
      if (e->fmt != FMT_PARAGRAPH)
        timeline_end (e);
      flush_upto (e, INFINITY, TRUE);
      if (e->defs && e->defs->len)
        {
          /* definitions that no record followed */
          char num[32];
          write_defs (e, out_time (e, e->any_written ? e->last_written : 0.0, num));
        }
      e->stats.shift = e->shift / e->units_per_second;
      e->stats.max_clamp /= e->units_per_second;
    }
  if (e->file)
    {
      GError *ferr = NULL;
      if (!viper_outfile_close (g_steal_pointer (&e->file), &ferr))
        {
          e->io_error = TRUE;
          e->io_err = g_error_new_literal (VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, ferr->message);
          g_error_free (ferr);
        }
    }
  if (e->io_error && !e->io_err)
    e->io_err = g_error_new (VIPER_EXPORT_ERROR, VIPER_EXPORT_ERROR_IO, "%s export: write error", format_names[e->fmt]);
  if (e->io_error && error)
    *error = g_error_copy (e->io_err);
  return !e->io_error;
}

gboolean
viper_exporter_close (ViperExporter *e, GError **error)
{
  if (!e)
    return TRUE;
  gboolean ok = viper_exporter_finish (e, error);
  while (e->heap->len)
    g_free (heap_pop (e->heap));
  g_ptr_array_unref (e->heap);
  g_hash_table_unref (e->sources);
  g_tree_unref (e->holds);
  g_hash_table_unref (e->hold_ids);
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, e->tracks);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      Track *tr = v;
      g_free (tr->name);
      g_free (tr->alias);
      g_free (tr);
    }
  g_hash_table_unref (e->tracks);
  g_hash_table_unref (e->chans);
  if (e->priv && e->table->priv_clear)
    e->table->priv_clear (e->priv);
  g_free (e->priv);
  g_free (e->last_event);
  g_clear_error (&e->io_err);
  if (e->defs)
    g_ptr_array_unref (e->defs);
  if (e->chrome_spool)
    fclose (e->chrome_spool);
  g_string_free (e->buf, TRUE);
  g_free (e);
  return ok;
}

/* ---- a whole run ------------------------------------------------------------------ */

gboolean
viper_export_files (const char *paradigm, const char *setup_path, const char *const *traces, double decay,
                    const char *format, const char *file, guint64 *trams_out, GError **error)
{
  return viper_export_files_stats (paradigm, setup_path, traces, decay, format, file, trams_out, NULL, error);
}

gboolean
viper_export_files_stats (const char *paradigm, const char *setup_path, const char *const *traces, double decay,
                          const char *format, const char *file, guint64 *trams_out, ViperExportStats *stats_out,
                          GError **error)
{
  if (stats_out)
    memset (stats_out, 0, sizeof *stats_out);
  viper_paradigms_register_all ();
  const ViperParadigm *p = viper_paradigm_lookup (paradigm);
  if (!p)
    {
      g_set_error (error, VIPER_EXPORT_ERROR, 0, "unknown paradigm '%s'", paradigm);
      return FALSE;
    }
  if (!viper_export_supported (p, format, error))
    return FALSE;
  ViperSetup *setup = NULL;
  if (setup_path && *setup_path && p->setup_load && !(setup = p->setup_load (setup_path, error)))
    return FALSE;
  gboolean ok = FALSE;
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperChannels *channels = viper_channels_new ();
  ViperDiag diag;
  viper_diag_init (&diag, NULL, NULL);
  ViperModel *model = p->model_new ? p->model_new (p, setup) : NULL;
  if (model)
    {
      viper_model_set_history (model, -1.0);
      viper_damage_set_enabled (model->damage, FALSE);
    }
  ViperRun *run = viper_run_new (p, model, pool, channels, &diag, decay);
  ViperScheduler *sched = viper_scheduler_new (run, model, channels, &diag);
  ViperExporter *ex = NULL;
  for (const char *const *t = traces; t && *t; t++)
    {
      ViperTramSource *src = viper_file_source_new (*t, pool, &diag, channels, error);
      if (!src)
        goto out;
      viper_scheduler_add_source (sched, src);
    }
  if (!(ex = viper_exporter_open (p, model, format, file, error)))
    goto out;
  viper_scheduler_add_hook (sched, viper_exporter_hook, ex);
  viper_scheduler_run (sched);
  ok = viper_exporter_finish (ex, error);
  if (stats_out)
    viper_exporter_stats (ex, stats_out);
  viper_exporter_close (g_steal_pointer (&ex), NULL);
  if (trams_out)
    {
      ViperCounts c;
      viper_run_counts (run, &c);
      *trams_out = c.transferred;
    }
out:
  if (ex)
    viper_exporter_close (ex, NULL);
  viper_scheduler_free (sched);
  viper_run_free (run);
  if (model)
    viper_model_free (model);
  if (setup && p->setup_free)
    p->setup_free (setup);
  viper_channels_free (channels);
  viper_diag_clear (&diag);
  viper_tram_pool_free (pool);
  return ok;
}
