/* fuzz-scan.c - the tram scanner and printer.
 *
 * The input is cut into lines by the line splitter exactly as a file is
 * (a last line without '\n' is a line); every line is scanned.  Properties
 * checked on every accepted line: a tram is built from it, printed (as read
 * and with an adjusted time), and the printed line scans back to the same
 * tram, whose printing is the same text (spec: whatever is accepted prints
 * back to the same tram). */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "core/tramparse.h"
#include "fuzz.h"

static ViperTramPool *pool;
static ViperTramFields *fields, *fields2;
static GString *out, *again;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  pool = viper_tram_pool_new ();
  fields = viper_tram_fields_new ();
  fields2 = viper_tram_fields_new ();
  out = g_string_new (NULL);
  again = g_string_new (NULL);
  return 0;
}

static void
check_line (const char *line, gsize len, guint64 lineno, gpointer data)
{
  (void) lineno;
  (void) data;
  ViperParseError err;
  ViperLineKind kind;
  /* the careful scanner alone gives the same answer as with its fast path */
  ViperParseError err2;
  memset (&err, 0, sizeof err);
  memset (&err2, 0, sizeof err2);
  ViperLineKind k2 = viper_tram_scan_careful (line, len, fields2, &err2);
  ViperTram *t = viper_tram_parse (pool, fields, line, len, &kind, &err);
  if (kind != k2 || (kind == VIPER_LINE_BAD && (err.column != err2.column || strcmp (err.reason, err2.reason))))
    g_error ("the fast path and the careful scanner disagree");
  if (kind == VIPER_LINE_TRAM
      && (fields->rec != fields2->rec || fields->ev != fields2->ev || fields->proc != fields2->proc
          || fields->process != fields2->process || fields->ndata != fields2->ndata || fields->dtype != fields2->dtype
          || fields->data_off != fields2->data_off || fields->len != fields2->len
          || memcmp (&fields->time, &fields2->time, sizeof (double)) != 0
          || (fields->dtype == VIPER_DTYPE_INT && fields->ndata
              && memcmp (fields->data, fields2->data, fields->ndata * sizeof (gint64)) != 0)))
    g_error ("the fast path and the careful scanner read different fields");
  if (kind == VIPER_LINE_TRAM)
    {
      guint32 nints, text;
      guint8 flags;
      viper_tram_image_prepare (fields2, line, &nints, &text, &flags);
      if (flags != (t->flags & (VIPER_TRAM_F_CANON | VIPER_TRAM_F_WIDE)))
        g_error ("the fast path and the careful scanner make different tram images");
    }
  /* straight into an image, as the read-ahead thread does (the splitter
   * leaves a '\n' behind every line) */
  ViperTram *img = g_malloc (sizeof (ViperTram) + (len / 2 + 1) * sizeof (gint64));
  gsize size = viper_tram_scan_image (line, len, img);
  if (size)
    {
      if (kind != VIPER_LINE_TRAM || size > sizeof (ViperTram) + t->ndata * sizeof (gint64)
          || memcmp (img, t, offsetof (ViperTram, next)) != 0 || img->rec != t->rec || img->ev != t->ev
          || img->process != t->process || img->raw_len != t->raw_len || img->ndata != t->ndata
          || img->data_off != t->data_off || img->flags != t->flags || img->type != t->type
          || img->dtype != t->dtype
          || memcmp (img + 1, t + 1, t->ndata * sizeof (gint64)) != 0)
        g_error ("viper_tram_scan_image and viper_tram_parse disagree");
    }
  g_free (img);
  if (!t)
    {
      if (kind == VIPER_LINE_BAD && (err.column == 0 || !err.reason[0]))
        g_error ("a bad line without a column or a reason");
      return;
    }
  if (!isfinite (t->time) || fabs (t->time) > VIPER_TIME_LIMIT)
    g_error ("accepted TIME %g", t->time);
  for (int adjusted = 0; adjusted < 2; adjusted++)
    {
      t->adjusted = t->time / 3 + 1.25;
      g_string_truncate (out, 0);
      viper_tram_print (t, adjusted, out);
      ViperTram *u = viper_tram_parse (pool, fields2, out->str, out->len, &kind, &err);
      if (!u)
        g_error ("accepted line printed as '%s' is rejected: %u: %s", out->str, err.column, err.reason);
      double want = adjusted ? t->adjusted : t->time;
      if (u->rec != t->rec || u->ev != t->ev || u->proc != t->proc || u->process != t->process
          || u->ndata != t->ndata || u->dtype != t->dtype || memcmp (&u->time, &want, sizeof want) != 0
          || (u->flags & VIPER_TRAM_F_WIDE) != (t->flags & VIPER_TRAM_F_WIDE))
        g_error ("'%s' reads back as a different tram", out->str);
      for (guint32 i = 0; i < t->ndata; i++)
        if (viper_tram_datum (u, i, 0) != viper_tram_datum (t, i, 0))
          g_error ("'%s': data field %u differs", out->str, i + 1);
      u->adjusted = t->adjusted;
      g_string_truncate (again, 0);
      viper_tram_print (u, adjusted, again);
      if (!g_str_equal (again->str, out->str))
        g_error ("printing is not stable: '%s' then '%s'", out->str, again->str);
      viper_tram_pool_release (pool, u);
    }
  ViperTram *c = viper_tram_copy (pool, t);
  viper_tram_pool_release (pool, c);
  viper_tram_pool_release (pool, t);
}

static void
bad_line (guint64 lineno, guint column, const char *reason, const char *head, gsize head_len, gpointer data)
{
  /* what a source does with the start of a line it could not take */
  gint64 proc, d1;
  (void) viper_tram_salvage_cut (head, head_len, TRUE, &proc, &d1);
  (void) lineno;
  (void) column;
  (void) reason;
  (void) data;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ViperLineSplitter *s = viper_line_splitter_new (check_line, bad_line, NULL);
  /* two feeds: a line that straddles chunks goes through the splitter's buffer */
  size_t half = size / 2;
  viper_line_splitter_feed (s, (const char *) data, half);
  viper_line_splitter_feed (s, (const char *) data + half, size - half);
  viper_line_splitter_finish (s, TRUE);
  viper_line_splitter_free (s);
  if (viper_tram_pool_live (pool) != 0)
    g_error ("%zu trams not released", viper_tram_pool_live (pool));
  return 0;
}
