/* test-roundtrip.c - property test: random well-formed lines from a seeded
 * generator parse to the values they were generated from, and survive
 * print -> parse unchanged (with and without the adjusted time). */
#include "core/tramparse.h"

#include <math.h>
#include <string.h>

typedef struct {
  gint64 rec, ev, proc, process;
  double time;
  guint32 ndata;
  gint32 dtype;
  gint64 data[12];
} Expect;

static void
blanks (GRand *r, GString *s, gboolean required)
{
  int n = g_rand_int_range (r, required ? 1 : 0, 4);
  for (int i = 0; i < n; i++)
    g_string_append_c (s, g_rand_int_range (r, 0, 4) ? ' ' : '\t');
}

static gint64
random_int (GRand *r)
{
  switch (g_rand_int_range (r, 0, 6))
    {
    case 0:
      return G_MININT64 + g_rand_int_range (r, 0, 3);
    case 1:
      return G_MAXINT64 - g_rand_int_range (r, 0, 3);
    case 2:
      return (gint64) (((guint64) g_rand_int (r) << 32) | g_rand_int (r));
    default:
      return g_rand_int_range (r, -1000, 100000);
    }
}

static void
append_int (GRand *r, GString *s, gint64 v)
{
  /* explicit '+' and leading zeros are valid spellings of the same value */
  if (v >= 0 && g_rand_int_range (r, 0, 10) == 0)
    g_string_append_c (s, '+');
  else if (v < 0)
    g_string_append_c (s, '-');
  if (g_rand_int_range (r, 0, 10) == 0)
    g_string_append (s, "000");
  guint64 mag = v < 0 ? (guint64) 0 - (guint64) v : (guint64) v;
  g_string_append_printf (s, "%" G_GUINT64_FORMAT, mag);
}

static double
append_time (GRand *r, GString *s)
{
  gsize start = s->len;
  switch (g_rand_int_range (r, 0, 5))
    {
    case 0:
      g_string_append_printf (s, "%d", g_rand_int_range (r, -100000, 1000000));
      break;
    case 1:
      g_string_append_printf (s, "%.*f", g_rand_int_range (r, 1, 12), g_rand_double_range (r, -1e6, 1e6));
      break;
    case 2:
      g_string_append_printf (s, "%d.%de%d", g_rand_int_range (r, -9, 10), g_rand_int_range (r, 0, 1000000),
                              g_rand_int_range (r, -40, 40));
      break;
    case 3:
      {
        double v;
        do
          {
            guint64 bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
            memcpy (&v, &bits, sizeof v);
          }
        while (!isfinite (v) || fabs (v) > 1e300);
        char buf[40];
        g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
        break;
      }
    default:
      g_string_append_printf (s, "%d.%06d", g_rand_int_range (r, 0, 100), g_rand_int_range (r, 0, 1000000));
    }
  return g_ascii_strtod (s->str + start, NULL);
}

static void
make_line (GRand *r, GString *s, Expect *e)
{
  g_string_truncate (s, 0);
  blanks (r, s, FALSE);
  e->rec = random_int (r);
  append_int (r, s, e->rec);
  blanks (r, s, TRUE);
  e->ev = random_int (r);
  append_int (r, s, e->ev);
  blanks (r, s, TRUE);
  e->time = append_time (r, s);
  blanks (r, s, TRUE);
  e->proc = random_int (r);
  append_int (r, s, e->proc);
  blanks (r, s, TRUE);
  e->process = random_int (r);
  append_int (r, s, e->process);
  blanks (r, s, TRUE);
  e->ndata = (guint32) g_rand_int_range (r, 0, 12);
  g_string_append_printf (s, "%u", e->ndata);
  e->dtype = VIPER_DTYPE_INT;
  if (e->ndata)
    {
      blanks (r, s, TRUE);
      int kind = g_rand_int_range (r, 0, 5);
      if (kind == 0)
        {
          e->dtype = VIPER_DTYPE_OTHER;
          g_string_append (s, "\"%d");
          for (guint32 i = 1; i < e->ndata; i++)
            {
              blanks (r, s, TRUE);
              g_string_append (s, "%s");
            }
          g_string_append_c (s, '"');
        }
      else if (kind == 1)
        {
          e->dtype = VIPER_DTYPE_OTHER;
          g_string_append_printf (s, "%d", g_rand_int_range (r, -5, 2));
        }
      else
        g_string_append_c (s, '2');
      for (guint32 i = 0; i < e->ndata; i++)
        {
          blanks (r, s, TRUE);
          if (e->dtype == VIPER_DTYPE_INT)
            {
              e->data[i] = random_int (r);
              append_int (r, s, e->data[i]);
            }
          else
            {
              int n = g_rand_int_range (r, 1, 8);
              for (int j = 0; j < n; j++)
                g_string_append_c (s, (char) g_rand_int_range (r, '!', '~' + 1));
            }
        }
    }
  blanks (r, s, FALSE);
  if (g_rand_boolean (r))
    g_string_append_c (s, '\r');
}

static void
assert_same (const Expect *e, const ViperTram *t, double time, const char *line)
{
  /* REC, EV and PROCESS beyond 32 bits are kept in the text only (WIDE) */
  gboolean wide = e->rec != (gint32) e->rec || e->ev != (gint32) e->ev || e->process != (gint32) e->process;
  if (wide != !!(t->flags & VIPER_TRAM_F_WIDE)
      || t->rec != CLAMP (e->rec, G_MININT32, G_MAXINT32) || t->ev != CLAMP (e->ev, G_MININT32, G_MAXINT32)
      || t->proc != e->proc || t->process != CLAMP (e->process, G_MININT32, G_MAXINT32) || t->ndata != e->ndata
      || t->dtype != e->dtype || memcmp (&t->time, &time, sizeof time) != 0)
    g_error ("mismatch on '%s': time %.17g vs %.17g", line, t->time, time);
  for (guint32 i = 0; e->dtype == VIPER_DTYPE_INT && i < e->ndata; i++)
    if (viper_tram_datum (t, i, 0) != e->data[i])
      g_error ("data %u mismatch on '%s'", i, line);
}

static ViperTram *
parse (ViperTramPool *pool, ViperTramFields *f, const char *line, gsize len)
{
  ViperParseError err;
  ViperLineKind kind;
  ViperTram *t = viper_tram_parse (pool, f, line, len, &kind, &err);
  if (!t)
    g_error ("'%s' rejected: %u: %s", line, err.column, err.reason);
  return t;
}

static void
test_roundtrip (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTramFields *f = viper_tram_fields_new ();
  GString *line = g_string_new (NULL), *out = g_string_new (NULL);
  Expect e;

  for (guint32 seed = 1; seed <= 3000; seed++)
    {
      GRand *r = g_rand_new_with_seed (seed);
      make_line (r, line, &e);
      ViperTram *t = parse (pool, f, line->str, line->len);
      assert_same (&e, t, e.time, line->str);

      g_string_truncate (out, 0);
      viper_tram_print (t, FALSE, out);
      g_assert_null (strstr (out->str, "\r"));
      g_assert_true (out->len > 0 && out->str[0] != ' ' && out->str[out->len - 1] != ' ');
      ViperTram *u = parse (pool, f, out->str, out->len);
      assert_same (&e, u, e.time, out->str);
      /* printing is idempotent */
      GString *again = g_string_new (NULL);
      viper_tram_print (u, FALSE, again);
      g_assert_cmpstr (again->str, ==, out->str);
      g_string_free (again, TRUE);

      t->adjusted = e.time + g_rand_double_range (r, 0, 1000) * (g_rand_boolean (r) ? 1e-9 : 1.0);
      g_string_truncate (out, 0);
      viper_tram_print (t, TRUE, out);
      ViperTram *v = parse (pool, f, out->str, out->len);
      assert_same (&e, v, t->adjusted, out->str);

      viper_tram_pool_release (pool, t);
      viper_tram_pool_release (pool, u);
      viper_tram_pool_release (pool, v);
      g_rand_free (r);
    }
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, 0);
  g_string_free (line, TRUE);
  g_string_free (out, TRUE);
  viper_tram_fields_free (f);
  viper_tram_pool_free (pool);
}

/* ---- whatever is accepted prints back to the same tram --------------------- */

/* A word of random bytes that a blank-separated field may hold: mostly
 * harmless, with CRs (the only line-end byte a line can hold: the scanner
 * ignores one before the \n), quotes and signs where they hurt. */
static void
nasty_word (GRand *r, GString *s)
{
  static const char alphabet[] = "ab\r\r\"#-+.e0125";
  int n = g_rand_int_range (r, 1, 5);
  for (int i = 0; i < n; i++)
    g_string_append_c (s, alphabet[g_rand_int_range (r, 0, (gint32) sizeof alphabet - 1)]);
}

static void
nasty_line (GRand *r, GString *s)
{
  g_string_truncate (s, 0);
  blanks (r, s, FALSE);
  g_string_append_printf (s, "%d", g_rand_int_range (r, -5, 5));
  blanks (r, s, TRUE);
  g_string_append_printf (s, "%d", g_rand_int_range (r, -5, 5));
  blanks (r, s, TRUE);
  append_time (r, s);
  blanks (r, s, TRUE);
  g_string_append_printf (s, "%d 0", g_rand_int_range (r, -1, 4));
  int nwords = g_rand_int_range (r, 0, 5);
  blanks (r, s, TRUE);
  g_string_append_printf (s, "%d", nwords);
  if (nwords)
    {
      blanks (r, s, TRUE);
      switch (g_rand_int_range (r, 0, 3))
        {
        case 0:
          g_string_append (s, "2");
          break;
        case 1:
          g_string_append (s, "7");
          break;
        default:
          g_string_append (s, "\"%d\r%s\"");
          break;
        }
      for (int i = 0; i < nwords; i++)
        {
          blanks (r, s, TRUE);
          if (g_rand_boolean (r))
            g_string_append_printf (s, "%d", g_rand_int_range (r, -9, 99));
          else
            nasty_word (r, s);
        }
    }
  /* blanks and CRs at the end: "x\r \n" keeps the CR as data, "x\r\r\n" too */
  int tail = g_rand_int_range (r, 0, 4);
  for (int i = 0; i < tail; i++)
    g_string_append_c (s, "\r \t"[g_rand_int_range (r, 0, 3)]);
}

static void
test_accepted_prints_back (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTramFields *f = viper_tram_fields_new ();
  GString *line = g_string_new (NULL), *out = g_string_new (NULL), *again = g_string_new (NULL);
  GRand *r = g_rand_new_with_seed (10004);
  guint accepted = 0, with_cr = 0;
#ifdef __SANITIZE_ADDRESS__
  const guint n_lines = 40000;    /* ~10x slower under the sanitizers: a fifth still reaches every case */
#else
  const guint n_lines = 200000;
#endif
  for (guint i = 0; i < n_lines; i++)
    {
      nasty_line (r, line);
      ViperLineKind kind;
      ViperParseError err;
      ViperTram *t = viper_tram_parse (pool, f, line->str, line->len, &kind, &err);
      if (!t)
        continue;
      accepted++;
      for (int adjusted = 0; adjusted < 2; adjusted++)
        {
          t->adjusted = t->time + 1.5;
          g_string_truncate (out, 0);
          viper_tram_print (t, adjusted, out);
          /* what a reader of the printed line gets: the line without its "\n" */
          ViperTram *u = viper_tram_parse (pool, f, out->str, out->len, &kind, &err);
          if (!u)
            g_error ("accepted '%s' printed as '%s', which is rejected: %u: %s", g_strescape (line->str, NULL),
                     g_strescape (out->str, NULL), err.column, err.reason);
          double want = adjusted ? t->adjusted : t->time;
          if (u->rec != t->rec || u->ev != t->ev || u->proc != t->proc || u->process != t->process
              || u->ndata != t->ndata || u->dtype != t->dtype || memcmp (&u->time, &want, sizeof want) != 0)
            g_error ("'%s' printed as '%s' reads back differently", g_strescape (line->str, NULL),
                     g_strescape (out->str, NULL));
          for (guint32 k = 0; k < t->ndata; k++)
            g_assert_cmpint (viper_tram_datum (u, k, 0), ==, viper_tram_datum (t, k, 0));
          /* the words (uninterpreted formats) too: printing again gives the same text */
          g_string_truncate (again, 0);
          u->adjusted = t->adjusted;
          viper_tram_print (u, adjusted, again);
          g_assert_cmpstr (again->str, ==, out->str);
          with_cr += strchr (out->str, '\r') != NULL;
          viper_tram_pool_release (pool, u);
        }
      viper_tram_pool_release (pool, t);
    }
  /* the generator reaches the cases that matter */
  g_assert_cmpuint (accepted, >, n_lines / 20);
  g_assert_cmpuint (with_cr, >, n_lines / 200);
  g_rand_free (r);
  g_string_free (line, TRUE);
  g_string_free (out, TRUE);
  g_string_free (again, TRUE);
  viper_tram_fields_free (f);
  viper_tram_pool_free (pool);
}

/* The fast path of the TIME conversion must agree with strtod bit for bit. */
static void
test_time_agrees_with_strtod (void)
{
  ViperTramFields *f = viper_tram_fields_new ();
  GRand *r = g_rand_new_with_seed (99);
  GString *line = g_string_new (NULL);
  for (guint i = 0; i < 200000; i++)
    {
      g_string_assign (line, "0 0 ");
      double want = append_time (r, line);
      g_string_append (line, " 0 0 0");
      ViperParseError err;
      if (viper_tram_scan (line->str, line->len, f, &err) != VIPER_LINE_TRAM)
        g_error ("'%s' rejected: %s", line->str, err.reason);
      if (memcmp (&f->time, &want, sizeof want) != 0)
        g_error ("'%s': %.17g, strtod says %.17g", line->str, f->time, want);
    }
  g_string_free (line, TRUE);
  g_rand_free (r);
  viper_tram_fields_free (f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/roundtrip/print-parse", test_roundtrip);
  g_test_add_func ("/roundtrip/time-agrees-with-strtod", test_time_agrees_with_strtod);
  g_test_add_func ("/roundtrip/accepted-prints-back", test_accepted_prints_back);
  return g_test_run ();
}
