/* switchnet-series.c - parameter and job files, and the trams they become.
 *
 * A parameter file is a line per port: a port label (SWITCH.PORT, or nID for
 * a node's processor port) and then one integer per time step; a port not
 * listed is zero throughout.  A job file has the same shape with job ids
 * (0 = no job) and lists processor ports only.  A bad line is reported as
 * FILE:LINE:COLUMN: reason, counted and skipped, like every Viper reader.
 *
 * The trams: at step 0 every listed port's total (so that the total mode
 * and the blank places of switches without data are known from the start),
 * then at each step a tram per port whose value or job differs from the
 * step before, a step tram of switch 0 at every step (so that the clock
 * stands on each step, whether anything changed or not), and at the last
 * step an end tram per switch.  Each switch numbers its trams from 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "switchnet.h"
#include "switchnet-lines.h"

static void
series_clear (gpointer p)
{
  SwnSeries *s = p;
  if (s->values)
    g_array_unref (s->values);
}

void
swn_series_free (SwnSeriesFile *f)
{
  if (!f)
    return;
  g_array_unref (f->series);
  if (f->problems)
    g_ptr_array_unref (f->problems);
  g_free (f);
}

static void G_GNUC_PRINTF (5, 6)
problem (SwnSeriesFile *f, const char *name, guint line, guint col, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  f->n_bad++;
  if (f->problems->len < SWN_MAX_PROBLEMS)
    g_ptr_array_add (f->problems, g_strdup_printf ("%s:%u:%u: %s", name, line, col, msg));
  g_free (msg);
}

SwnSeriesFile *
swn_series_parse (const SwnNet *n, const char *text, gsize len, const char *name, gboolean jobs, GError **error)
{
  (void) error;
  SwnSeriesFile *f = g_new0 (SwnSeriesFile, 1);
  f->series = g_array_new (FALSE, TRUE, sizeof (SwnSeries));
  g_array_set_clear_func (f->series, series_clear);
  f->problems = g_ptr_array_new_with_free_func (g_free);
  GHashTable *seen = g_hash_table_new (g_direct_hash, g_direct_equal);   /* sw * 64 + port -> line */
  gsize i = 0;
  guint line = 0;
  while (i < len)
    {
      gsize st = i;
      while (i < len && text[i] != '\n')
        i++;
      line++;
      const char *l = text + st;
      gsize ll = i - st;
      i++;
      if (ll && l[ll - 1] == '\r')
        ll--;
      const char *nul = memchr (l, 0, ll);
      if (nul)
        {
          problem (f, name, line, (guint) (nul - l) + 1, "line contains a NUL byte");
          continue;
        }
      gsize p = 0;
      while (p < ll && (l[p] == ' ' || l[p] == '\t'))
        p++;
      if (p == ll || l[p] == '#')
        continue;
      gsize ls = p;
      while (p < ll && l[p] != ' ' && l[p] != '\t')
        p++;
      char *label = g_strndup (l + ls, p - ls);
      guint sw, port;
      if (!swn_port_by_label (n, label, &sw, &port))
        {
          problem (f, name, line, (guint) ls + 1, "'%s' is no port of the model (SWITCH.PORT or nNODE)", label);
          g_free (label);
          continue;
        }
      if (jobs && port >= n->n_proc_ports)
        {
          problem (f, name, line, (guint) ls + 1, "'%s' is a network port: a job file lists processor ports", label);
          g_free (label);
          continue;
        }
      gpointer key = GUINT_TO_POINTER (sw * SWN_MAX_PORTS + port + 1);
      guint first = GPOINTER_TO_UINT (g_hash_table_lookup (seen, key));
      if (first)
        {
          problem (f, name, line, (guint) ls + 1, "port '%s' is listed twice (first on line %u)", label, first);
          g_free (label);
          continue;
        }
      g_free (label);
      GArray *vals = g_array_new (FALSE, FALSE, sizeof (gint64));
      gboolean bad = FALSE;
      while (p < ll)
        {
          while (p < ll && (l[p] == ' ' || l[p] == '\t'))
            p++;
          if (p == ll)
            break;
          gsize vs = p;
          while (p < ll && l[p] != ' ' && l[p] != '\t')
            p++;
          char buf[32];
          gsize vl = p - vs;
          char *end = buf;
          long long v = 0;
          errno = 0;
          if (vl < sizeof buf)
            {
              memcpy (buf, l + vs, vl);
              buf[vl] = 0;
              v = strtoll (buf, &end, 10);
            }
          /* values stay far from the 64-bit limits so that sums cannot overflow */
          if (vl >= sizeof buf || *end || end == buf || errno || v < -(G_GINT64_CONSTANT (1) << 40)
              || v > (G_GINT64_CONSTANT (1) << 40) || (jobs && v < 0))
            {
              problem (f, name, line, (guint) vs + 1, jobs ? "expected a job id 0..2^40, got '%.*s'"
                                                           : "expected an integer within +-2^40, got '%.*s'",
                       (int) MIN (vl, 40), l + vs);
              bad = TRUE;
              break;
            }
          gint64 x = v;
          g_array_append_val (vals, x);
        }
      if (bad)
        {
          g_array_unref (vals);
          continue;
        }
      if (vals->len == 0)
        {
          problem (f, name, line, (guint) ll + 1, "a port label needs at least one value");
          g_array_unref (vals);
          continue;
        }
      if (f->series->len && vals->len != f->n_steps)
        {
          problem (f, name, line, (guint) ll + 1, "%u values, the file's first row has %u", vals->len, f->n_steps);
          g_array_unref (vals);
          continue;
        }
      f->n_steps = vals->len;
      g_hash_table_insert (seen, key, GUINT_TO_POINTER (line));
      SwnSeries s = { sw, port, vals };
      g_array_append_val (f->series, s);
    }
  g_hash_table_destroy (seen);
  return f;
}

SwnSeriesFile *
swn_series_load (const SwnNet *n, const char *path, gboolean jobs, GError **error)
{
  char *text;
  gsize len;
  if (!swn_read_file (path, &text, &len, error))
    return NULL;
  SwnSeriesFile *f = swn_series_parse (n, text, len, path, jobs, error);
  g_free (text);
  return f;
}

/* ---- trams ------------------------------------------------------------------- */

typedef struct {
  SwnWriteFn write;
  gpointer data;
  guint64 *seq;             /* per switch */
  gint64 written;
  gboolean failed;
} Writer;

static void
emit (Writer *w, int ev, guint step, guint sw, int nd, gint64 port, gint64 value)
{
  if (w->failed)
    return;
  char line[128];
  int r;
  guint64 seq = ++w->seq[sw];
  if (nd == 1)
    r = g_snprintf (line, sizeof line, "%d %d %u %u 0 1 2 %" G_GUINT64_FORMAT "\n", SWN_REC, ev, step, sw, seq);
  else
    r = g_snprintf (line, sizeof line, "%d %d %u %u 0 3 2 %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                    "\n", SWN_REC, ev, step, sw, seq, port, value);
  if (!w->write (line, (gsize) r, w->data))
    w->failed = TRUE;
  else
    w->written++;
}

static gint
cmp_series (gconstpointer a, gconstpointer b)
{
  const SwnSeries *x = a, *y = b;
  if (x->sw != y->sw)
    return x->sw < y->sw ? -1 : 1;
  return x->port < y->port ? -1 : x->port > y->port;
}

gint64
swn_write_trams (const SwnNet *n, const SwnSeriesFile *params, const SwnSeriesFile *jobs, SwnWriteFn write,
                 gpointer data)
{
  Writer w = { write, data, g_new0 (guint64, n->switches->len), 0, FALSE };
  guint steps = MAX (params ? params->n_steps : 0, jobs ? jobs->n_steps : 0);
  if (steps == 0)
    steps = 1;
  /* ports in switch and port order, so the output does not depend on the files' line order */
  GArray *ps = g_array_new (FALSE, FALSE, sizeof (SwnSeries));
  GArray *js = g_array_new (FALSE, FALSE, sizeof (SwnSeries));
  if (params)
    g_array_append_vals (ps, params->series->data, params->series->len);
  if (jobs)
    g_array_append_vals (js, jobs->series->data, jobs->series->len);
  g_array_sort (ps, cmp_series);
  g_array_sort (js, cmp_series);
  for (guint k = 0; k < ps->len; k++)
    {
      const SwnSeries *s = &g_array_index (ps, SwnSeries, k);
      gint64 total = 0;
      for (guint t = 0; t < s->values->len; t++)
        total += g_array_index (s->values, gint64, t);
      emit (&w, SWN_EV_TOTAL, 0, s->sw, 3, s->port, total);
    }
  for (guint t = 0; t < steps; t++)
    {
      /* the step marker: the clock reaches every step, changes or not */
      if (n->switches->len)
        emit (&w, SWN_EV_STEP, t, 0, 1, 0, 0);
      for (guint k = 0; k < ps->len; k++)
        {
          const SwnSeries *s = &g_array_index (ps, SwnSeries, k);
          if (t >= s->values->len)
            continue;
          gint64 v = g_array_index (s->values, gint64, t);
          gint64 prev = t ? g_array_index (s->values, gint64, t - 1) : 0;
          if (v != prev)
            emit (&w, SWN_EV_VALUE, t, s->sw, 3, s->port, v);
        }
      for (guint k = 0; k < js->len; k++)
        {
          const SwnSeries *s = &g_array_index (js, SwnSeries, k);
          if (t >= s->values->len)
            continue;
          gint64 v = g_array_index (s->values, gint64, t);
          gint64 prev = t ? g_array_index (s->values, gint64, t - 1) : 0;
          if (v != prev)
            emit (&w, SWN_EV_JOB, t, s->sw, 3, s->port, v);
        }
    }
  for (guint sw = 0; sw < n->switches->len; sw++)
    emit (&w, SWN_EV_END, steps - 1, sw, 1, 0, 0);
  g_array_unref (ps);
  g_array_unref (js);
  g_free (w.seq);
  return w.failed ? -1 : w.written;
}
