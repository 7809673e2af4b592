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
 * Records wait in one binary heap keyed by (time, Lamport number, index in
 * its tram, text); the watermark W is the smallest "last time" over the live
 * sources and the smallest open *hold* (a record promised for later, e.g. a
 * message's start that becomes a Pajé link only once the message is
 * received).  Nothing that will still be produced can be older than W, so
 * every heap record with time < W is written (one still to come may have
 * time W and sort first).  Ties do not keep the order of production (the run
 * order, which depends on the line order): the same trams in any line order
 * give the same file.  A ParaGraph record has its tram's Lamport number
 * (core/run.c: larger than every cause's), so a receive whose adjusted time
 * equals its send's stays after the send (ParaGraph needs causal order); a
 * timeline record has its track's own (export-timeline.c).  Pajé link keys
 * and Chrome flow ids are numbered as they are written, subset definitions
 * go just before their first use.  Under the window and limit fallbacks
 * below, where a record lands can depend on the line order.
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
 * The timeline (Pajé and Chrome; export-timeline.c) is one description for both formats:
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
#include "export-private.h"
#include "core/outfile.h"
#include "core/scheduler.h"
#include "core/heap.h"
#include "paradigms.h"

G_DEFINE_QUARK (viper-export-error-quark, viper_export_error)


/* ---- output ----------------------------------------------------------------- */

void
viper_exp_sink (ViperExporter *e, const char *s, gsize len)
{
  if (e->string)
    g_string_append_len (e->string, s, (gssize) len);
  else if (e->file && !e->io_error && !viper_outfile_write (e->file, s, len))
    e->io_error = TRUE;
}

void G_GNUC_PRINTF (2, 3)
viper_exp_sinkf (ViperExporter *e, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_string_truncate (e->buf, 0);
  g_string_append_vprintf (e->buf, fmt, ap);
  va_end (ap);
  viper_exp_sink (e, e->buf->str, e->buf->len);
}

/* ---- the merge ---------------------------------------------------------------- */

static void push_limit (ViperExporter *e);

static gboolean
rec_less (gconstpointer x, gconstpointer y)
{
  const Rec *a = x, *b = y;
  if (a->time != b->time)
    return a->time < b->time;
  if (a->lamport != b->lamport)
    return a->lamport < b->lamport;
  if (a->idx != b->idx)
    return a->idx < b->idx;
  int c = strcmp (a->text, b->text);
  if (!c)
    c = strcmp (a->text + a->head_len + 1, b->text + b->head_len + 1);
  if (c)
    return c < 0;
  if (a->ts != b->ts)
    return a->ts < b->ts;
  return a->serial < b->serial;   /* the same bytes: either order writes the same */
}

static inline gboolean
ent_less (const HeapEnt *a, const HeapEnt *b)
{
  if (a->time != b->time)
    return a->time < b->time;
  if (a->key != b->key)
    return a->key < b->key;
  return rec_less (a->rec, b->rec);
}

static void
heap_push (ViperExporter *e, Rec *r)
{
  if (e->heap_len == e->heap_cap)
    {
      e->heap_cap = e->heap_cap ? 2 * e->heap_cap : 1024;
      e->heap = g_renew (HeapEnt, e->heap, e->heap_cap);
    }
  HeapEnt x = { r->time, (guint64) r->lamport << 32 | r->idx, r };
  HeapEnt *h = e->heap;
  guint i = e->heap_len++;
  VIPER_HEAP_SIFT_UP (h, i, x, ent_less);
}

Rec *
viper_exp_heap_pop (ViperExporter *e)
{
  if (!e->heap_len)
    return NULL;
  HeapEnt *h = e->heap;
  Rec *top = h[0].rec;
  guint n = --e->heap_len;
  if (!n)
    return top;
  HeapEnt last = h[n];
  VIPER_HEAP_SIFT_DOWN (h, n, last, ent_less);
  return top;
}


char *
viper_exp_format_noisy (double v, double scale, char *buf)
{
  double m = MAX (fabs (v), fabs (scale));
  if (v == 0.0 || !isfinite (v) || !isfinite (m) || m < 1e-14)
    return viper_format_double (v == 0.0 ? 0.0 : v, buf);
  int decimals = 14 - (int) floor (log10 (m));
  /* 15 digits would drop whole units from 1e15 on: an epoch time in
   * microseconds (1.7e15, Chrome's "ts") is written to the microsecond,
   * which is all its double resolves (a quarter of one), not to tens */
  if (decimals <= 0 && m < 1e16)
    decimals = 0;
  else if (decimals <= 0)
    return g_ascii_formatd (buf, 32, "%.15g", v);
  /* %.Nf rounds v's exact value to N decimals; so does this, without
   * printf (Chrome writes two of these a record): |v| * 10^N is x + err
   * exactly (fma gives a product's rounding error), and n, the integer
   * nearest x, is the rounded value unless that sum lies within a hair of
   * a half (left to printf).  x < 10^15 < 2^53: integers are exact. */
  static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
  gboolean fast = FALSE;
  if (decimals < (int) G_N_ELEMENTS (p10))
    {
      double p = p10[MAX (decimals, 0)], x = fabs (v) * p;
      double err = fma (fabs (v), p, -x), n = nearbyint (x);
      if (x < 9007199254740992.0 && fabs ((x - n) + err) < 0.5 - 1e-6)
        {
          viper_write_fixed ((guint64) n, (guint) MAX (decimals, 0), v < 0 && n > 0, buf);
          fast = TRUE;
        }
    }
  if (!fast)
    {
      char fmt[16];
      g_snprintf (fmt, sizeof fmt, "%%.%df", MIN (decimals, 28));
      g_ascii_formatd (buf, 32, fmt, v);
    }
  char *end = buf + strlen (buf);
  while (decimals > 0 && end > buf && end[-1] == '0')
    *--end = '\0';
  if (decimals > 0 && end > buf && end[-1] == '.')
    *--end = '\0';
  if (strcmp (buf, "-0") == 0 || buf[0] == '\0')
    strcpy (buf, "0");
  return buf;
}

/* A time as written: shifted, and in seconds for ParaGraph. */
char *
viper_exp_out_time (ViperExporter *e, double t, char *num)
{
  double v = t + e->shift, scale = MAX (fabs (t), fabs (e->shift));
  gboolean scaled = e->fmt == FMT_PARAGRAPH && e->units_per_second != 1.0;
  if (scaled)
    {
      v /= e->units_per_second;
      scale /= e->units_per_second;
    }
  if (e->shift == 0.0 && !scaled)
    return viper_format_double (v, num);    /* the adjusted time exactly */
  return viper_exp_format_noisy (v, scale, num);
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
  viper_exp_sink (e, e->buf->str, e->buf->len);
  e->stats.records++;
}

static gint
def_cmp (gconstpointer a, gconstpointer b)
{
  const char *x = *(const char *const *) a, *y = *(const char *const *) b;
  int c = strcmp (x, y);
  return c ? c : strcmp (x + strlen (x) + 1, y + strlen (y) + 1);
}

static void
write_def_list (ViperExporter *e, GPtrArray *defs, const char *num)
{
  g_ptr_array_sort (defs, def_cmp);
  for (guint i = 0; i < defs->len; i++)
    {
      const char *d = defs->pdata[i];
      const char *tail = d + strlen (d) + 1;
      write_line (e, d, strlen (d), num, tail);
    }
}

/* The definitions of key waiting for their first use go out just before
 * it, with its time (in the order of their text: the same in any line order). */
static void
write_defs_of (ViperExporter *e, gint64 key, const char *num)
{
  gpointer k, d;
  if (!g_hash_table_steal_extended (e->def_texts, &key, &k, &d))
    return;
  write_def_list (e, d, num);
  g_hash_table_insert (e->def_done, k, d);
}

/* At the end: definitions no record used (and those without a key), in
 * the order of their keys and texts. */
void
viper_exp_write_defs_left (ViperExporter *e, const char *num)
{
  GPtrArray *all = g_ptr_array_new ();
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, e->def_texts);
  while (g_hash_table_iter_next (&it, NULL, &v))
    for (guint i = 0; i < ((GPtrArray *) v)->len; i++)
      g_ptr_array_add (all, ((GPtrArray *) v)->pdata[i]);
  for (guint i = 0; e->defs && i < e->defs->len; i++)
    g_ptr_array_add (all, e->defs->pdata[i]);
  write_def_list (e, all, num);
  g_ptr_array_unref (all);
  g_hash_table_remove_all (e->def_texts);
  if (e->defs)
    g_ptr_array_set_size (e->defs, 0);
}

/* The number a message's link or flow is written with: given in the order
 * written, so the same in any line order. */
static guint64
msg_number (ViperExporter *e, guint64 msg)
{
  gpointer v;
  if (g_hash_table_steal_extended (e->msg_numbers, GSIZE_TO_POINTER (msg), NULL, &v))
    return GPOINTER_TO_SIZE (v);    /* its second record */
  guint64 n = ++e->msg_written;
  g_hash_table_insert (e->msg_numbers, GSIZE_TO_POINTER (msg), GSIZE_TO_POINTER (n));
  return n;
}

static void
write_rec (ViperExporter *e, Rec *r)
{
  if (r->kind != REC_TEXT)
    {
      /* a write-time state change: applied with the others of its time */
      viper_exp_batch_rec (e, r);
      g_free (r);
      return;
    }
  viper_exp_batch_before (e, r->time, r->lamport);
  viper_exp_write_now (e, r);
}

void
viper_exp_write_now (ViperExporter *e, Rec *r)
{
  if (e->fmt == FMT_CHROME)
    {
      /* Chrome wants no order: the merge gives a canonical one, the
       * spool keeps it until the shift is known */
      if (r->hold)
        viper_export_release (e, r->hold);
      if (r->msg)
        {
          char *json = g_strdup (r->text);
          char *mark = strchr (json, '\x02');
          char *full = mark ? g_strdup_printf ("%.*s%" G_GUINT64_FORMAT "%s", (int) (mark - json), json,
                                               msg_number (e, r->msg), mark + 1) : NULL;
          if (full)
            {
              Rec *c = g_malloc (sizeof (Rec) + strlen (full) + 2);
              *c = *r;
              c->head_len = strlen (full);
              memcpy (c->text, full, c->head_len + 1);
              c->text[c->head_len + 1] = '\0';
              viper_exp_chrome_spool (e, c);
              g_free (c);
            }
          else
            viper_exp_chrome_spool (e, r);
          g_free (full);
          g_free (json);
        }
      else
        viper_exp_chrome_spool (e, r);
      g_free (r);
      return;
    }
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
  viper_exp_out_time (e, t, num);
  if (!e->any_written && e->fmt == FMT_PAJE)
    {
      viper_exp_paje_program_container (e, num);
      viper_exp_paje_create_known_containers (e, num);
    }
  e->any_written = TRUE;
  e->last_written = t;
  if (r->uses_def)
    {
      if (!g_hash_table_contains (e->defined, &r->def_key))
        e->stats.undefined_use++;
      write_defs_of (e, r->def_key, num);
    }
  if (r->hold)
    viper_export_release (e, r->hold);  /* written (at the limit, or the end): it holds nothing more */
  if (r->msg)
    {
      char *tail = g_strdup_printf ("%s%" G_GUINT64_FORMAT, r->text + r->head_len + 1, msg_number (e, r->msg));
      write_line (e, r->text, r->head_len, num, tail);
      g_free (tail);
    }
  else
    write_line (e, r->text, r->head_len, num, r->text + r->head_len + 1);
  g_free (r);
}

/* Write the merge's oldest record; a start event (viper_timeline_start_event)
 * still waiting goes first once that record is later than it: it is written
 * at its own time as soon as the merge passes it, not at the end. */
static void
write_next (ViperExporter *e)
{
  /* at its time it goes first (its Lamport number is 0) */
  if (e->start_value && e->fmt != FMT_PARAGRAPH && e->heap[0].time >= e->start_time)
    viper_exp_timeline_start_now (e);
  write_rec (e, viper_exp_heap_pop (e));
}

/* The smallest last time over the live sources is kept: looking at every
 * source for every record was a twentieth of a 64-processor export.  A
 * source joining lowers it at once; one that moves on from it, or ends,
 * makes it unknown until the next watermark asks. */
static void
source_moved (ViperExporter *e, const Source *s, gboolean was_done, double was_last)
{
  if (!e->src_low_known)
    return;
  if (s->done)
    {
      if (!was_done && was_last <= e->src_low)
        e->src_low_known = FALSE;
    }
  else if (was_done)
    e->src_low = MIN (e->src_low, s->last);
  else if (s->last != was_last && was_last <= e->src_low)
    e->src_low_known = FALSE;
}

static double
watermark (ViperExporter *e)
{
  if (!e->src_low_known)
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
      e->src_low = w;
      e->src_low_known = TRUE;
    }
  double w = e->src_low;
  GTreeNode *first = g_tree_node_first (e->holds);
  if (first)
    {
      const Hold *h = g_tree_node_key (first);
      if (h->time < w)
        w = h->time;
    }
  return w;
}

void
viper_exp_flush_upto (ViperExporter *e, double w, gboolean all)
{
  while (e->heap_len > 0 && (all || e->heap[0].time <= w))
    write_next (e);
  e->stats.buffered = e->heap_len;
}

void
viper_exp_push_limit (ViperExporter *e)
{
  push_limit (e);
}

void
viper_exp_flush_all (ViperExporter *e)
{
  viper_exp_flush_upto (e, INFINITY, TRUE);
}

/* Write what the watermark allows, keeping the newest `window` records: a
 * processor that shows up late (its first lines read after others' were
 * merged) still finds its place in the window. */
void
viper_exp_flush (ViperExporter *e)
{
  if (e->heap_len <= e->window)
    return;
  /* strictly older than W: a record still to come may have time W and come
   * first among its equals */
  double w = watermark (e);
  while (e->heap_len > e->window && e->heap[0].time < w)
    write_next (e);
  e->stats.buffered = e->heap_len;
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
      e->src_low = -INFINITY;     /* known or not, nothing is lower */
    }
  return s;
}

static Rec *exp_insert_keyed (ViperExporter *e, gint64 source, double time, guint32 lamport, guint32 idx,
                              const char *head, const char *tail);

/* A record of the tram being exported: ties go by its Lamport number, then
 * by the order of the tram's own records. */
static Rec *
exp_insert (ViperExporter *e, gint64 source, double time, const char *head, const char *tail)
{
  return exp_insert_keyed (e, source, time, e->cur_lamport, e->cur_idx++, head, tail);
}

/* Into the merge, without writing anything (see viper_export_push). */
void
viper_exp_insert (ViperExporter *e, gint64 source, double time, const char *head, const char *tail)
{
  exp_insert (e, source, time, head, tail);
}

Rec *
viper_exp_push_keyed (ViperExporter *e, gint64 source, double time, guint32 lamport, guint32 idx, guint64 msg,
                      gboolean insert_only, const char *head, const char *tail)
{
  Rec *r = exp_insert_keyed (e, source, time, lamport, idx, head, tail);
  r->msg = msg;
  if (!insert_only)
    push_limit (e);
  return r;
}

Rec *
viper_exp_rec_new (double time, guint32 lamport, guint32 idx, const char *head, const char *tail)
{
  gsize hl = strlen (head), tl = tail ? strlen (tail) : 0;
  Rec *r = g_malloc (sizeof (Rec) + hl + tl + 2);
  r->time = time;
  r->lamport = lamport;
  r->idx = idx;
  r->serial = 0;
  r->hold = 0;
  r->def_key = 0;
  r->msg = 0;
  r->ts = 0.0;
  r->chrome_clamped = FALSE;
  r->uses_def = FALSE;
  r->kind = REC_TEXT;
  r->state = 0;
  r->track = 0;
  r->aux = 0;
  r->head_len = hl;
  memcpy (r->text, head, hl + 1);
  if (tl)
    memcpy (r->text + hl + 1, tail, tl);
  r->text[hl + 1 + tl] = '\0';
  return r;
}

void
viper_exp_heap_insert (ViperExporter *e, gint64 source, Rec *r)
{
  Source *s = source_get (e, source);
  gboolean was_done = s->done;
  double was_last = s->last;
  s->done = FALSE;
  if (r->time > s->last)
    s->last = r->time;
  source_moved (e, s, was_done, was_last);
  if (r->time > e->max_time)
    e->max_time = r->time;
  r->serial = e->serial++;
  heap_push (e, r);
}

static Rec *
exp_insert_keyed (ViperExporter *e, gint64 source, double time, guint32 lamport, guint32 idx, const char *head,
                  const char *tail)
{
  Rec *r = viper_exp_rec_new (time, lamport, idx, head, tail);
  viper_exp_heap_insert (e, source, r);
  return r;
}

static void
push_limit (ViperExporter *e)
{
  while (e->heap_len > e->limit)
    write_next (e);
  if (e->heap_len > e->stats.peak_buffered)
    e->stats.peak_buffered = e->heap_len;
  e->stats.buffered = e->heap_len;
}

void
viper_export_push (ViperExporter *e, gint64 source, double time, const char *head, const char *tail)
{
  exp_insert (e, source, time, head, tail);
  push_limit (e);
}

void
viper_export_push_using (ViperExporter *e, gint64 source, double time, gint64 key, const char *head, const char *tail)
{
  Rec *r = exp_insert (e, source, time, head, tail);
  r->uses_def = TRUE;
  r->def_key = key;
  if (!g_hash_table_contains (e->defined, &key))
    {
      /* just below its time: the merge writes nothing from this time on
       * until the definition comes (records at this very time included) */
      r->hold = viper_export_hold (e, nextafter (time, -INFINITY));
      GArray *w = g_hash_table_lookup (e->def_waits, &key);
      if (!w)
        {
          gint64 *k = g_new (gint64, 1);
          *k = key;
          w = g_array_new (FALSE, FALSE, sizeof (guint64));
          g_hash_table_insert (e->def_waits, k, w);
        }
      g_array_append_val (w, r->hold);
    }
  push_limit (e);
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

static char *
def_text (const char *head, const char *tail)
{
  gsize hl = strlen (head), tl = tail ? strlen (tail) : 0;
  char *d = g_malloc (hl + tl + 2);
  memcpy (d, head, hl + 1);
  if (tl)
    memcpy (d + hl + 1, tail, tl);
  d[hl + 1 + tl] = '\0';
  return d;
}

static gboolean
def_in (GPtrArray *a, const char *d)
{
  for (guint i = 0; a && i < a->len; i++)
    if (def_cmp (&a->pdata[i], &d) == 0)
      return TRUE;
  return FALSE;
}

void
viper_export_push_definition (ViperExporter *e, const char *head, const char *tail)
{
  if (!e->defs)
    e->defs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (e->defs, def_text (head, tail));
}

void
viper_export_push_definition_of (ViperExporter *e, gint64 key, const char *head, const char *tail)
{
  /* written just before its first use; a copy of one (each member's file
   * has one) only once, however many arrive before or after that use */
  char *d = def_text (head, tail);
  GPtrArray *done = g_hash_table_lookup (e->def_done, &key);
  GPtrArray *wait = g_hash_table_lookup (e->def_texts, &key);
  if (def_in (done, d) || def_in (wait, d))
    g_free (d);
  else if (done)
    {
      /* another text for a subset already used: at the end */
      if (!e->defs)
        e->defs = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (e->defs, d);
    }
  else
    {
      if (!wait)
        {
          gint64 *k = g_new (gint64, 1);
          *k = key;
          wait = g_ptr_array_new_with_free_func (g_free);
          g_hash_table_insert (e->def_texts, k, wait);
        }
      g_ptr_array_add (wait, d);
    }
  if (g_hash_table_contains (e->defined, &key))
    return;
  gint64 *k = g_new (gint64, 1);
  *k = key;
  g_hash_table_add (e->defined, k);
  GArray *w = g_hash_table_lookup (e->def_waits, &key);
  if (w)
    {
      /* holds of uses already written (at the limit) are gone: no-ops */
      for (guint i = 0; i < w->len; i++)
        viper_export_release (e, g_array_index (w, guint64, i));
      g_hash_table_remove (e->def_waits, &key);
    }
}

void
viper_export_expect_source (ViperExporter *e, gint64 source)
{
  Source *s = source_get (e, source);
  gboolean was_done = s->done;
  s->done = FALSE;
  source_moved (e, s, was_done, s->last);
}

void
viper_export_source_done (ViperExporter *e, gint64 source)
{
  Source *s = g_hash_table_lookup (e->sources, &source);
  if (s)
    {
      gboolean was_done = s->done;
      s->done = TRUE;
      source_moved (e, s, was_done, s->last);
    }
}

double
viper_export_source_time (const ViperExporter *e, gint64 source)
{
  const Source *s = g_hash_table_lookup (e->sources, &source);
  return s ? s->last : -INFINITY;
}

gint
viper_exp_hold_cmp (gconstpointer a, gconstpointer b, gpointer data)
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
