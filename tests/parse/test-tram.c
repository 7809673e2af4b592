/* test-tram.c - the tram pool, copying, printing, number formatting, and the
 * diagnostics counter. */
#include "core/diag.h"
#include "core/tramparse.h"

#include <float.h>
#include <math.h>
#include <string.h>

static gsize
rounded (gsize ndata_ints, gsize raw_len)
{
  return (sizeof (ViperTram) + ndata_ints * 8 + raw_len + 1 + 7) / 8 * 8;   /* 8-byte classes */
}

/* A canonical line's tram stores no text, not even a NUL. */
static gsize
rounded_canon (gsize ndata_ints)
{
  return (sizeof (ViperTram) + ndata_ints * 8 + 7) / 8 * 8;
}

/* Everything zero but the pool's own bookkeeping. */
static void
assert_zeroed (const ViperTram *t, gsize body)
{
  ViperTram h = *t;
  h.pool_slab = 0;
  const guint8 *bytes = (const guint8 *) &h;
  for (gsize i = 0; i < sizeof h; i++)
    g_assert_cmpuint (bytes[i], ==, 0);
  bytes = (const guint8 *) (t + 1);
  for (gsize i = 0; i < body; i++)
    g_assert_cmpuint (bytes[i], ==, 0);
}

static void
test_pool_counters (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, 0);

  ViperTram *a = viper_tram_pool_alloc (pool, 0, 10);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 1);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, rounded (0, 10));
  ViperTram *b = viper_tram_pool_alloc (pool, 4, 35);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 2);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, rounded (0, 10) + rounded (4, 35));
  ViperTram *big = viper_tram_pool_alloc (pool, 100, 5000);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 3);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, rounded (0, 10) + rounded (4, 35) + rounded (100, 5000));

  /* zeroed, whatever the block held before */
  assert_zeroed (b, 4 * 8 + 36);
  memset (b + 1, 0xab, 4 * 8 + 36);
  b->rec = 77;
  viper_tram_pool_release (pool, b);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 2);
  ViperTram *c = viper_tram_pool_alloc (pool, 4, 35);
  g_assert_true (c == b);   /* the freed block of the same class is reused */
  g_assert_cmpint (c->rec, ==, 0);
  assert_zeroed (c, 4 * 8 + 36);

  /* a different length in the same 16-byte class reuses it too */
  viper_tram_pool_release (pool, c);
  ViperTram *d = viper_tram_pool_alloc (pool, 4, 36);
  g_assert_true (d == b);

  viper_tram_pool_release (pool, big);
  viper_tram_pool_release (pool, a);
  viper_tram_pool_release (pool, d);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, 0);

  /* trams still alive when the pool goes, big ones included, are freed with it */
  viper_tram_pool_alloc (pool, 0, 3000);
  viper_tram_pool_alloc (pool, 0, 4000);
  viper_tram_pool_alloc (pool, 0, 5);
  viper_tram_pool_free (pool);
}

static void
test_pool_many (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  GRand *r = g_rand_new_with_seed (7);
  enum { N = 20000 };
  ViperTram **t = g_new (ViperTram *, N);
  guint32 *len = g_new (guint32, N);
  gsize expect = 0;
  for (guint i = 0; i < N; i++)
    {
      len[i] = (guint32) g_rand_int_range (r, 0, i % 50 == 0 ? 3000 : 300);
      t[i] = viper_tram_pool_alloc (pool, 0, len[i]);
      g_assert_cmpuint ((guintptr) t[i] % G_ALIGNOF (ViperTram), ==, 0);   /* all a tram needs */
      char *raw = (char *) (t[i] + 1);
      memset (raw, 'a' + (int) (i % 26), len[i]);
      t[i]->line = i;
      expect += rounded (0, len[i]);
    }
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, expect);
  /* nothing overlaps: every block still holds what was written into it */
  for (guint i = 0; i < N; i++)
    {
      g_assert_cmpuint (t[i]->line, ==, i);
      const char *raw = (const char *) (t[i] + 1);
      for (guint32 j = 0; j < len[i]; j++)
        g_assert_cmpint (raw[j], ==, 'a' + (int) (i % 26));
    }
  for (guint i = 0; i < N; i += 2)
    viper_tram_pool_release (pool, t[i]);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, N / 2);
  for (guint i = 1; i < N; i += 2)
    viper_tram_pool_release (pool, t[i]);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, 0);
  g_free (t);
  g_free (len);
  g_rand_free (r);
  viper_tram_pool_free (pool);
}

static ViperTram *
parse (ViperTramPool *pool, const char *line)
{
  static ViperTramFields *f;
  if (!f)
    f = viper_tram_fields_new ();
  ViperParseError err;
  ViperLineKind kind;
  ViperTram *t = viper_tram_parse (pool, f, line, strlen (line), &kind, &err);
  if (!t)
    g_error ("'%s': %u: %s", line, err.column, err.reason);
  return t;
}

static void
test_copy (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperTram *t = parse (pool, "-3 -21 0.25 3 0 4 2 128 7 5 0");
  t->seq = 12;
  t->line = 40;
  t->channel = 2;
  t->type = 5;
  t->adjusted = 1.5;
  t->state = VIPER_TRAM_TRANSFERRED;
  t->next = t;
  t->flags |= VIPER_TRAM_F_IGNORED | VIPER_TRAM_F_CLAIMED;
  ViperTram *c = viper_tram_copy (pool, t);
  g_assert_true (c != t);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 2);
  g_assert_cmpint (c->rec, ==, -3);
  g_assert_cmpint (c->ev, ==, -21);
  g_assert_cmpfloat (c->time, ==, 0.25);
  g_assert_cmpfloat (c->adjusted, ==, 1.5);
  g_assert_cmpint (c->seq, ==, 12);
  g_assert_cmpuint (c->line, ==, 40);
  g_assert_cmpuint (c->channel, ==, 2);
  g_assert_cmpuint (c->type, ==, 5);
  g_assert_cmpuint (c->ndata, ==, 4);
  g_assert_cmpint (viper_tram_datum (c, 3, -1), ==, 0);
  g_assert_cmpint (viper_tram_datum (c, 0, -1), ==, 128);
  /* a canonical line keeps no text: printing regenerates it exactly */
  g_assert_null (viper_tram_raw (c));
  GString *text = g_string_new (NULL);
  viper_tram_print (c, FALSE, text);
  g_assert_cmpstr (text->str, ==, "-3 -21 0.25 3 0 4 2 128 7 5 0");
  g_assert_null (c->next);
  g_assert_cmpuint (c->state, ==, VIPER_TRAM_NEW);
  g_assert_cmpuint (c->flags, ==, VIPER_TRAM_F_IGNORED | VIPER_TRAM_F_CANON);
  viper_tram_pool_release (pool, t);
  g_string_truncate (text, 0);
  viper_tram_print (c, FALSE, text);
  g_assert_cmpstr (text->str, ==, "-3 -21 0.25 3 0 4 2 128 7 5 0");
  g_string_free (text, TRUE);

  GString *longline = g_string_new ("1 2 3 4 5 1 9 ");
  for (guint i = 0; i < 2000; i++)
    g_string_append_c (longline, 'w');
  ViperTram *b = parse (pool, longline->str);
  ViperTram *bc = viper_tram_copy (pool, b);
  g_assert_cmpstr (viper_tram_raw (bc), ==, longline->str);
  g_assert_cmpuint (viper_tram_pool_bytes_in_use (pool), ==, rounded_canon (4) + 2 * rounded (0, longline->len));
  viper_tram_pool_release (pool, b);
  viper_tram_pool_release (pool, bc);
  viper_tram_pool_release (pool, c);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
  g_string_free (longline, TRUE);
  viper_tram_pool_free (pool);
}

static void
test_format_double (void)
{
  static const struct {
    double v;
    const char *text;
  } cases[] = {
    { 0.0, "0" }, { 12100.0, "12100" }, { 0.1, "0.1" }, { -2.75, "-2.75" }, { 1e-5, "1e-05" },
    { 1.5e-3, "0.0015" }, { 0.1 + 0.2, "0.30000000000000004" }, { 1.0 / 3.0, "0.3333333333333333" },
    { 2.0 / 3.0, "0.6666666666666666" }, { 9007199254740993.0, "9007199254740992" },
    { DBL_MAX, "1.7976931348623157e+308" }, { 4.9406564584124654e-324, "4.94065645841247e-324" },
    { 123456789.123, "123456789.123" }, { 1e21, "1e+21" }, { -0.0, "-0" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char buf[32];
      g_assert_cmpstr (viper_format_double (cases[i].v, buf), ==, cases[i].text);
      g_assert_true (g_ascii_strtod (buf, NULL) == cases[i].v);
    }
}

/* What viper_format_double wrote before its integer fast path: the first of
 * %.15g, %.16g, %.17g that reads back. */
static const char *
format_reference (double v, char *buf)
{
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, 32, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  return buf;
}

/* The fast paths write exactly what printf did: decimals of every length and
 * magnitude (the common case), their neighbours one ulp away, the edges of
 * its range, arbitrary bit patterns, arbitrary doubles across the exact
 * path's range [1e-4, 1e15) (times after clock corrections, 16-17 digits),
 * powers of two and of ten and their neighbours (a lower neighbour nearer,
 * a rounding that gains a digit), and exact ties at the 15th digit. */
static void
test_format_double_same (void)
{
  GRand *r = g_rand_new_with_seed (2026);
  char got[32], want[32];
  static const double edges[] = { 1e-4, 9.9999999999999991e-05, 1e15, 999999999999999.0, 999999999999999.9,
                                  0.5, 2.5, 1e-9, 123456789012345.6, 0.000123456789, 1e14 + 0.5 };
  for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
    for (int sign = -1; sign <= 1; sign += 2)
      {
        double v = sign * edges[i];
        g_assert_cmpstr (viper_format_double (v, got), ==, format_reference (v, want));
      }
  for (guint i = 0; i < 800000; i++)
    {
      double v;
      switch (i % 8)
        {
        case 4:
          v = pow (10, g_rand_double_range (r, -4.2, 15.2));
          break;
        case 5:
          {
            v = ldexp (1.0, g_rand_int_range (r, -15, 51));
            for (int k = g_rand_int_range (r, -3, 4); k; k += k < 0 ? 1 : -1)
              v = nextafter (v, k < 0 ? 0 : INFINITY);
            break;
          }
        case 6:
          {
            /* 10^j, 10^j - 0.5 ulp of 15 digits and their neighbours */
            int j = g_rand_int_range (r, -4, 16);
            v = pow (10, j);
            if (g_rand_boolean (r))
              v -= 0.5 * pow (10, j - 15);
            for (int k = g_rand_int_range (r, -3, 4); k; k += k < 0 ? 1 : -1)
              v = nextafter (v, k < 0 ? 0 : INFINITY);
            break;
          }
        case 7:
          /* n + 0.5 with 15 digits before the point, or an integer of 16
           * digits ending in 5: a tie at %.15g, rounded to even */
          v = g_rand_boolean (r) ? floor (g_rand_double_range (r, 1e14, 1e15)) + 0.5
                                 : floor (g_rand_double_range (r, 1e14, 9e14)) * 10 + 5;
          break;
        case 0:
        case 1:
          {
            /* a decimal of up to 17 digits, up to 12 after the point */
            guint digits = (guint) g_rand_int_range (r, 1, 18);
            double n = floor (g_rand_double (r) * pow (10, digits));
            v = n / pow (10, g_rand_int_range (r, 0, 13));
            break;
          }
        case 2:
          {
            guint64 bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
            memcpy (&v, &bits, sizeof v);
            if (!isfinite (v))
              v = 1.0;
            break;
          }
        default:
          v = nextafter (floor (g_rand_double (r) * 1e6) / 1000, g_rand_boolean (r) ? INFINITY : -INFINITY);
          break;
        }
      if (g_rand_boolean (r))
        v = -v;
      viper_format_double (v, got);
      format_reference (v, want);
      if (strcmp (got, want) != 0)
        g_error ("%.17g: wrote %s, printf %s", v, got, want);
    }
  g_rand_free (r);
}

static char *
print (const ViperTram *t, gboolean adjusted)
{
  GString *s = g_string_new ("<");
  viper_tram_print (t, adjusted, s);
  return g_string_free (s, FALSE);
}

static void
check_print (ViperTramPool *pool, const char *line, double adjusted, const char *plain, const char *adj)
{
  ViperTram *t = parse (pool, line);
  t->adjusted = adjusted;
  char *p = print (t, FALSE), *a = print (t, TRUE);
  g_assert_cmpstr (p + 1, ==, plain);
  g_assert_cmpstr (a + 1, ==, adj);
  g_assert_cmpint (p[0], ==, '<');   /* appended, not overwritten */
  g_free (p);
  g_free (a);
  viper_tram_pool_release (pool, t);
}

static void
test_canonical (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  static const struct { const char *line; gboolean canon; } cases[] = {
    { "-3 -21 0.25 3 0 4 2 128 7 5 0", TRUE },
    { "1 10 12100 0 0 1 2 1", TRUE },
    { "-4 -21 7 3 0 0", TRUE },
    { "-4 -21 7 3 0 0 ", FALSE },            /* trailing blank */
    { " -4 -21 7 3 0 0", FALSE },            /* leading blank */
    { "-4  -21 7 3 0 0", FALSE },            /* two blanks */
    { "-4\t-21 7 3 0 0", FALSE },            /* a tab */
    { "-4 -21 7 03 0 0", FALSE },            /* leading zero */
    { "-4 -21 7 +3 0 0", FALSE },            /* a plus sign */
    { "-4 -21 7 -0 0 0", FALSE },            /* minus zero */
    { "1 2 3 4 5 1 02 9", FALSE },           /* DTYPE written 02 */
    { "1 2 3 4 5 1 7 word", FALSE },         /* another DTYPE: words */
    { "-4 -21 7 3 0 0\r", TRUE },            /* a CR is not part of the line */
    { "-4 -21 7\t3 0 0", FALSE },            /* a tab right after TIME */
    { "1 2 3 4 5 1 2 07", FALSE },           /* a datum with a leading zero */
    { "1 2 3 4 5 1 2 -0", FALSE },           /* a datum written -0 */
    { "1 2 3 4 5 2 2 10 -9223372036854775808", TRUE },
    { "1 2 1.5e-3 4 5 1 2 +7", FALSE },      /* a datum with a plus sign */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ViperTram *t = parse (pool, cases[i].line);
      g_assert_cmpint (!!(t->flags & VIPER_TRAM_F_CANON), ==, cases[i].canon);
      g_assert_cmpint (viper_tram_raw (t) == NULL, ==, cases[i].canon);
      viper_tram_pool_release (pool, t);
    }
  viper_tram_pool_free (pool);
}

static void
test_print (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  /* TIME is printed in its shortest exact form: 1.5e-3 -> 0.0015 */
  check_print (pool, "  -3\t-21   1.5e-3 3 0 4 2 128 7 5 0  \r", 2.5, "-3 -21 0.0015 3 0 4 2 128 7 5 0",
               "-3 -21 2.5 3 0 4 2 128 7 5 0");
  check_print (pool, "2 14 12100 2 0 3 2 17 0 0", 12100.1, "2 14 12100 2 0 3 2 17 0 0", "2 14 12100.1 2 0 3 2 17 0 0");
  check_print (pool, "-4 -21 7 3 0 0", 1.0 / 3.0, "-4 -21 7 3 0 0", "-4 -21 0.3333333333333333 3 0 0");
  check_print (pool, "-3 -911 1.5 0 0 3 \"%d  %s\t%s\"   5 hello\t\tworld", -0.5,
               "-3 -911 1.5 0 0 3 \"%d  %s\t%s\" 5 hello world", "-3 -911 -0.5 0 0 3 \"%d  %s\t%s\" 5 hello world");
  check_print (pool, "1 2 3 4 5 2 7 \"a  b", 3.0, "1 2 3 4 5 2 7 \"a b", "1 2 3 4 5 2 7 \"a b");
  /* canonical lines keep no text and print the same */
  check_print (pool, "-3 -21 0.25 3 0 4 2 -128 0 5 10", 1.0, "-3 -21 0.25 3 0 4 2 -128 0 5 10",
               "-3 -21 1 3 0 4 2 -128 0 5 10");
  /* REC beyond 32 bits: kept in the text */
  check_print (pool, "4294967296 1 2 3 4 0", 1.0, "4294967296 1 2 3 4 0", "4294967296 1 1 3 4 0");

  /* a tram made by code, not read: printed from its fields */
  ViperTram *t = viper_tram_pool_alloc (pool, 2, 0);
  t->rec = 2;
  t->ev = 14;
  t->time = 0.1;
  t->adjusted = 0.25;
  t->proc = -1;
  t->ndata = 2;
  t->dtype = VIPER_DTYPE_INT;
  viper_tram_data (t)[0] = 5;
  viper_tram_data (t)[1] = G_MININT64;
  char *s = print (t, FALSE);
  g_assert_cmpstr (s, ==, "<2 14 0.1 -1 0 2 2 5 -9223372036854775808");
  g_free (s);
  s = print (t, TRUE);
  g_assert_cmpstr (s, ==, "<2 14 0.25 -1 0 2 2 5 -9223372036854775808");
  g_free (s);
  viper_tram_pool_release (pool, t);
  viper_tram_pool_free (pool);
}

/* ---- diagnostics --------------------------------------------------------- */

static void
sink (ViperDiagKind kind, const char *message, gpointer user_data)
{
  g_string_append_printf (user_data, "%d|%s\n", kind, message);
}

static void
test_diag (void)
{
  GString *log = g_string_new (NULL);
  ViperDiag d;
  viper_diag_init (&d, sink, log);
  g_assert_cmpuint (d.bad, ==, 0);
  g_assert_null (d.first_bad);

  viper_diag_bad (&d, "trace.picl", 12, 7, "EV is not an integer");
  g_assert_cmpuint (d.bad, ==, 1);
  g_assert_cmpstr (d.first_bad, ==, "trace.picl:12:7: EV is not an integer");
  g_assert_cmpstr (d.last_bad, ==, "trace.picl:12:7: EV is not an integer");
  g_assert_false (d.stop_requested);

  viper_diag_bad (&d, "tcp:127.0.0.1:7405#3", 4, 15, "NDATA is %d but %d data fields follow", 4, 3);
  g_assert_cmpuint (d.bad, ==, 2);
  g_assert_cmpstr (d.first_bad, ==, "trace.picl:12:7: EV is not an integer");
  g_assert_cmpstr (d.last_bad, ==, "tcp:127.0.0.1:7405#3:4:15: NDATA is 4 but 3 data fields follow");

  viper_diag_event (&d, VIPER_DIAG_WARNING, "inconsistent: proc %d", 3);
  viper_diag_event (&d, VIPER_DIAG_CONNECTION, "connection %d opened", 1);
  g_assert_cmpuint (d.warnings, ==, 1);
  g_assert_cmpuint (d.bad, ==, 2);
  g_assert_cmpstr (log->str, ==,
                   "0|trace.picl:12:7: EV is not an integer\n"
                   "0|tcp:127.0.0.1:7405#3:4:15: NDATA is 4 but 3 data fields follow\n"
                   "1|inconsistent: proc 3\n"
                   "2|connection 1 opened\n");

  d.strict = TRUE;
  viper_diag_bad (&d, "f", 1, 1, "x");
  g_assert_true (d.stop_requested);
  g_assert_cmpuint (d.bad, ==, 3);

  viper_diag_clear (&d);
  g_assert_cmpuint (d.bad, ==, 0);
  g_assert_cmpuint (d.warnings, ==, 0);
  g_assert_null (d.first_bad);
  g_assert_null (d.last_bad);
  g_assert_false (d.stop_requested);
  g_assert_true (d.strict);

  /* no sink: still counted */
  ViperDiag quiet;
  viper_diag_init (&quiet, NULL, NULL);
  viper_diag_bad (&quiet, NULL, 18446744073709551615u, 65537, "line is longer than 65536 bytes");
  g_assert_cmpuint (quiet.bad, ==, 1);
  g_assert_cmpstr (quiet.first_bad, ==, "-:18446744073709551615:65537: line is longer than 65536 bytes");
  viper_diag_clear (&quiet);
  g_string_free (log, TRUE);
}

/* Item 23 of issue 10: a read of a released tram is caught by AddressSanitizer
 * (the pool poisons recycled blocks).  Only meaningful in the sanitizer build. */
static void
test_use_after_release (void)
{
#if defined(__SANITIZE_ADDRESS__)
  if (g_test_subprocess ())
    {
      ViperTramPool *p = viper_tram_pool_new ();
      ViperTram *a = viper_tram_pool_alloc (p, 2, 10);
      ViperTram *b = viper_tram_pool_alloc (p, 2, 10);   /* keeps the slab busy */
      viper_tram_pool_release (p, a);
      volatile double x = a->time;                        /* use after release */
      (void) x;
      viper_tram_pool_release (p, b);
      viper_tram_pool_free (p);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*use-after-poison*");
#else
  g_test_skip ("needs the AddressSanitizer build");
#endif
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tram/pool-counters", test_pool_counters);
  g_test_add_func ("/tram/pool-many", test_pool_many);
  g_test_add_func ("/tram/copy", test_copy);
  g_test_add_func ("/tram/pool-use-after-release", test_use_after_release);
  g_test_add_func ("/tram/format-double", test_format_double);
  g_test_add_func ("/tram/format-double-same", test_format_double_same);
  g_test_add_func ("/tram/canonical", test_canonical);
  g_test_add_func ("/tram/print", test_print);
  g_test_add_func ("/diag/bad-and-events", test_diag);
  return g_test_run ();
}
