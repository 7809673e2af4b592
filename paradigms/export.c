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

static const char *const format_names[] = { "paragraph", "paje", "chrome", NULL };
static const char *const format_titles[] = { "ParaGraph", "Pajé", "Chrome trace" };

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

static Rec *
heap_pop (ViperExporter *e)
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
static char *
out_time (ViperExporter *e, double t, char *num)
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
static void
write_defs_left (ViperExporter *e, const char *num)
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
  out_time (e, t, num);
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
  write_rec (e, heap_pop (e));
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
  flush_upto (e, INFINITY, TRUE);
}

/* Write what the watermark allows, keeping the newest `window` records: a
 * processor that shows up late (its first lines read after others' were
 * merged) still finds its place in the window. */
static void
flush (ViperExporter *e)
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
  s->done = FALSE;
  if (r->time > s->last)
    s->last = r->time;
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
  e->sources = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  e->holds = g_tree_new_full (hold_cmp, NULL, NULL, NULL);
  e->hold_ids = g_hash_table_new (g_int64_hash, g_int64_equal);
  e->defined = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  e->def_waits = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);
  e->def_texts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  e->def_done = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  e->msg_numbers = g_hash_table_new (g_direct_hash, g_direct_equal);
  e->limit = VIPER_EXPORT_DEFAULT_LIMIT;
  e->window = VIPER_EXPORT_DEFAULT_WINDOW;
  e->tracks = g_hash_table_new (g_int64_hash, g_int64_equal);
  e->batch_tracks = g_ptr_array_new ();
  e->batch_notes = g_array_new (FALSE, FALSE, sizeof (gint64));
  e->chans = g_hash_table_new_full (viper_exp_chan_hash, viper_exp_chan_equal, g_free, viper_exp_queue_free);
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
    viper_exp_paje_begin (e);
  else if (e->fmt == FMT_CHROME)
    viper_exp_chrome_begin (e);
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
  /* an ignored tram has no state effect (spec section 1): nothing on the
   * timeline (the model did not apply it, so what a translator would read
   * there is the previous tram's); ParaGraph passes it through */
  if (e->fmt != FMT_PARAGRAPH && (t->flags & VIPER_TRAM_F_IGNORED))
    return;
  /* the timeline lasts as long as the run: to the last tram's time, not to
   * the last record written (a job killed while its ranks waited in a
   * receive ends with their idle states, which lasted to their last tram) */
  if (e->fmt != FMT_PARAGRAPH && isfinite (t->adjusted) && t->adjusted > e->max_time
      && !viper_paradigm_timeless (e->paradigm, t))
    e->max_time = t->adjusted;
  e->cur_source = t->proc;
  e->cur_lamport = t->lamport;
  e->cur_idx = 0;
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
viper_export_leave_out (ViperExporter *e)
{
  e->stats.left_out++;
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
        viper_exp_timeline_end (e);
      flush_upto (e, INFINITY, TRUE);
      if ((e->defs && e->defs->len) || g_hash_table_size (e->def_texts))
        {
          /* definitions that no record used */
          char num[32];
          write_defs_left (e, out_time (e, e->any_written ? e->last_written : 0.0, num));
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
  while (e->heap_len)
    g_free (heap_pop (e));
  g_free (e->heap);
  g_hash_table_unref (e->sources);
  g_tree_unref (e->holds);
  g_hash_table_unref (e->hold_ids);
  g_hash_table_unref (e->defined);
  g_hash_table_unref (e->def_waits);
  g_hash_table_unref (e->def_texts);
  g_hash_table_unref (e->def_done);
  g_hash_table_unref (e->msg_numbers);
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
  g_ptr_array_unref (e->batch_tracks);
  g_array_unref (e->batch_notes);
  g_hash_table_unref (e->chans);
  if (e->priv && e->table->priv_clear)
    e->table->priv_clear (e->priv);
  g_free (e->priv);
  g_free (e->last_event);
  g_free (e->start_value);
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
