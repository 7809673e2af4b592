/* test-scan.c - the PICL line scanner: every rule of picl.md section 1, and
 * the exact reason text and column of every kind of bad input. */
#include "core/tramparse.h"

#include <math.h>
#include <string.h>

static ViperTramFields *fields;

/* The line goes into a heap block of exactly len bytes, with no NUL after
 * it, so that under AddressSanitizer any read past the line is caught. */
static ViperLineKind
scan_len (const char *line, gsize len, ViperParseError *err)
{
  memset (err, 0, sizeof *err);
  char *exact = g_malloc (len ? len : 1);
  memcpy (exact, line, len);
  ViperLineKind k = viper_tram_scan (exact, len, fields, err);
  g_free (exact);
  return k;
}

static ViperLineKind
scan (const char *line, ViperParseError *err)
{
  return scan_len (line, strlen (line), err);
}

static void
assert_tram (const char *line)
{
  ViperParseError err;
  ViperLineKind k = scan (line, &err);
  if (k != VIPER_LINE_TRAM)
    g_error ("'%s' should be a tram, got kind %d: %u: %s", line, k, err.column, err.reason);
}

static void
assert_bad_len (const char *line, gsize len, guint column, const char *reason)
{
  ViperParseError err;
  ViperLineKind k = scan_len (line, len, &err);
  if (k != VIPER_LINE_BAD)
    g_error ("'%.*s' should be bad (%s), got kind %d", (int) MIN (len, 80), line, reason, k);
  g_assert_cmpstr (err.reason, ==, reason);
  g_assert_cmpuint (err.column, ==, column);
}

static void
assert_bad (const char *line, guint column, const char *reason)
{
  assert_bad_len (line, strlen (line), column, reason);
}

/* ---- well-formed lines --------------------------------------------------- */

static void
test_picl_line (void)
{
  assert_tram ("-3 -21 0.00123456 3 0 4 2 128 7 5 0");
  g_assert_cmpint (fields->rec, ==, -3);
  g_assert_cmpint (fields->ev, ==, -21);
  g_assert_cmpfloat (fields->time, ==, 0.00123456);
  g_assert_cmpint (fields->proc, ==, 3);
  g_assert_cmpint (fields->process, ==, 0);
  g_assert_cmpuint (fields->ndata, ==, 4);
  g_assert_cmpint (fields->dtype, ==, VIPER_DTYPE_INT);
  g_assert_cmpuint (fields->data_off, ==, 24);
  g_assert_cmpuint (fields->len, ==, 35);
  g_assert_cmpint (fields->data[0], ==, 128);
  g_assert_cmpint (fields->data[1], ==, 7);
  g_assert_cmpint (fields->data[2], ==, 5);
  g_assert_cmpint (fields->data[3], ==, 0);
}

static void
test_monalisa_line (void)
{
  assert_tram ("2 14 12100 2 0 3 2 17 0 0");
  g_assert_cmpint (fields->rec, ==, 2);
  g_assert_cmpint (fields->ev, ==, 14);
  g_assert_cmpfloat (fields->time, ==, 12100.0);
  g_assert_cmpint (fields->proc, ==, 2);
  g_assert_cmpuint (fields->ndata, ==, 3);
  g_assert_cmpint (fields->data[0], ==, 17);
  g_assert_cmpint (fields->data[2], ==, 0);
}

static void
test_ndata_zero (void)
{
  assert_tram ("-4 -21 2.5 -1 0 0");
  g_assert_cmpint (fields->proc, ==, -1);
  g_assert_cmpuint (fields->ndata, ==, 0);
  g_assert_cmpint (fields->dtype, ==, VIPER_DTYPE_INT);
  g_assert_cmpuint (fields->data_off, ==, 0);
  assert_tram ("-4 -21 2.5 -1 0 0   \t");
  g_assert_cmpuint (fields->len, ==, 21);
}

static void
test_time_formats (void)
{
  static const struct {
    const char *text;
    double value;
  } cases[] = {
    { "12100", 12100.0 }, { "0.00001", 0.00001 }, { "-2.75", -2.75 }, { "1.5e-3", 1.5e-3 },
    { "+7", 7.0 }, { "1E3", 1000.0 }, { "1e+3", 1000.0 }, { "2.5E-2", 0.025 }, { "0", 0.0 },
    { "0.1", 0.1 }, { "123456789012345678", 123456789012345678.0 },
    { "9007199254740993", 9007199254740993.0 },
    { "0.30000000000000004", 0.30000000000000004 },
    { "0.1000000000000000000000000001", 0.1 },
    { "1e300", 1e300 }, { "-1e300", -1e300 },
    { "4.9406564584124654e-324", 4.9406564584124654e-324 },
    { "1e-400", 0.0 },
    { "000000000000000000000000012.5", 12.5 },
    { "1e0000000000000000000000002", 100.0 },
    { "123.456e-2", 1.23456 },
    { "1234567890123456789012345", 1234567890123456789012345.0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *line = g_strdup_printf ("-3 -21 %s 3 0 0", cases[i].text);
      assert_tram (line);
      if (fields->time != cases[i].value)
        g_error ("TIME %s: got %.17g, want %.17g", cases[i].text, fields->time, cases[i].value);
      g_free (line);
    }
  assert_tram ("-3 -21 -0 3 0 0");
  g_assert_true (fields->time == 0.0 && signbit (fields->time));
  assert_tram ("-3 -21 -0.0e5 3 0 0");
  g_assert_true (fields->time == 0.0 && signbit (fields->time));
}

static void
test_int64_limits (void)
{
  assert_tram ("-9223372036854775808 9223372036854775807 1 -9223372036854775808 9223372036854775807 2 2 "
               "-9223372036854775808 9223372036854775807");
  g_assert_cmpint (fields->rec, ==, G_MININT64);
  g_assert_cmpint (fields->ev, ==, G_MAXINT64);
  g_assert_cmpint (fields->proc, ==, G_MININT64);
  g_assert_cmpint (fields->process, ==, G_MAXINT64);
  g_assert_cmpint (fields->data[0], ==, G_MININT64);
  g_assert_cmpint (fields->data[1], ==, G_MAXINT64);

  assert_tram ("+5 -0 1 0000000000000000000000000000042 -00000000000000000000000000000001 1 02 +3");
  g_assert_cmpint (fields->rec, ==, 5);
  g_assert_cmpint (fields->ev, ==, 0);
  g_assert_cmpint (fields->proc, ==, 42);
  g_assert_cmpint (fields->process, ==, -1);
  g_assert_cmpint (fields->dtype, ==, VIPER_DTYPE_INT);
  g_assert_cmpint (fields->data[0], ==, 3);

  assert_tram ("999999999999999999 -999999999999999999 1 1000000000000000000 -1000000000000000000 0");
  g_assert_cmpint (fields->rec, ==, G_GINT64_CONSTANT (999999999999999999));
  g_assert_cmpint (fields->ev, ==, -G_GINT64_CONSTANT (999999999999999999));
  g_assert_cmpint (fields->proc, ==, G_GINT64_CONSTANT (1000000000000000000));
  g_assert_cmpint (fields->process, ==, -G_GINT64_CONSTANT (1000000000000000000));

  assert_bad ("9223372036854775808 0 1 0 0 0", 1, "REC overflows 64 bits");
  assert_bad ("0 -9223372036854775809 1 0 0 0", 3, "EV overflows 64 bits");
  assert_bad ("0 0 1 18446744073709551616 0 0", 7, "PROC overflows 64 bits");
  assert_bad ("0 0 1 0 99999999999999999999999999 0", 9, "PROCESS overflows 64 bits");
  assert_bad ("0 0 1 0 0 9223372036854775808", 11, "NDATA overflows 64 bits");
  assert_bad ("0 0 1 0 0 1 2 9223372036854775808", 15, "data field 1 overflows 64 bits");
  assert_bad ("0 0 1 0 0 2 2 1 -9223372036854775809", 17, "data field 2 overflows 64 bits");
  assert_bad ("0 0 1 0 0 1 9223372036854775808 1", 13, "DTYPE overflows 64 bits");
  /* a malformed long number is malformed first */
  assert_bad ("12345678901234567890123x 0 1 0 0 0", 1, "REC is not an integer");
}

static void
test_blanks_and_crlf (void)
{
  assert_tram ("  \t-3\t\t-21  1.5 \t 3 0 1\t2 9 \t ");
  g_assert_cmpint (fields->ev, ==, -21);
  g_assert_cmpfloat (fields->time, ==, 1.5);
  g_assert_cmpint (fields->data[0], ==, 9);
  g_assert_cmpuint (fields->data_off, ==, 24);

  assert_tram ("-3 -21 1.5 3 0 1 2 9\r");
  g_assert_cmpuint (fields->len, ==, 20);
  g_assert_cmpint (fields->data[0], ==, 9);
  /* only the one '\r' of the line end is ignored */
  assert_bad ("-3 -21 1.5 3 0 1 2 9\r\r", 20, "data field 1 is not an integer");
  assert_bad ("-3 -21\r 1.5 3 0 0", 4, "EV is not an integer");
}

static void
test_comments (void)
{
  static const char *const comments[] = { "", " ", "\t \t", "\r", "  \r", "#", "# -3 -21 x", "   #x", "\t#\r" };
  for (guint i = 0; i < G_N_ELEMENTS (comments); i++)
    {
      ViperParseError err;
      g_assert_cmpint (scan (comments[i], &err), ==, VIPER_LINE_COMMENT);
    }
  /* '#' after the first field is not a comment */
  assert_bad ("-3 # x", 4, "EV is not an integer");
}

static void
test_quoted_dtype (void)
{
  const char *line = "-3 -911 1.5 0 0 3 \"%d %s %s\" 5 hello world";
  assert_tram (line);
  g_assert_cmpint (fields->rec, ==, -3);
  g_assert_cmpint (fields->ev, ==, -911);
  g_assert_cmpfloat (fields->time, ==, 1.5);
  g_assert_cmpuint (fields->ndata, ==, 3);
  g_assert_cmpint (fields->dtype, ==, VIPER_DTYPE_OTHER);
  g_assert_cmpuint (fields->data_off, ==, 18);
  g_assert_cmpint (line[fields->data_off], ==, '"');

  assert_tram ("-3 -911 1.5 0 0 1 \"\" word");
  g_assert_cmpint (fields->dtype, ==, VIPER_DTYPE_OTHER);
  assert_tram ("-3 -911 1.5 0 0 2 \"%s\"\tx\"y \"z");
  g_assert_cmpuint (fields->ndata, ==, 2);

  assert_bad ("-3 -911 1.5 0 0 3 \"%d %s %s 5 hello world", 19, "unterminated quoted DTYPE");
  assert_bad ("-3 -911 1.5 0 0 1 \"%d\"5", 19, "quoted DTYPE is not followed by a blank");
  assert_bad ("-3 -911 1.5 0 0 3 \"%d %s %s\" 5 hello", 37, "NDATA is 3 but 2 data fields follow");
  assert_bad ("-3 -911 1.5 0 0 3 \"%d %s %s\" 5 hello big world", 42, "NDATA is 3 but 4 data fields follow");
}

static void
test_other_dtype (void)
{
  assert_tram ("1 2 3 4 5 2 7 abc 1.5");
  g_assert_cmpint (fields->dtype, ==, VIPER_DTYPE_OTHER);
  g_assert_cmpuint (fields->ndata, ==, 2);
  g_assert_cmpuint (fields->data_off, ==, 12);
  assert_tram ("1 2 3 4 5 1 -2 x");
  g_assert_cmpint (fields->dtype, ==, VIPER_DTYPE_OTHER);
  assert_tram ("1 2 3 4 5 1 02 7");
  g_assert_cmpint (fields->dtype, ==, VIPER_DTYPE_INT);
  assert_bad ("1 2 3 4 5 2 7 a b c", 19, "NDATA is 2 but 3 data fields follow");
  assert_bad ("1 2 3 4 5 2 7 a", 16, "NDATA is 2 but 1 data field follows");
  assert_bad ("1 2 3 4 5 1 x 7", 13, "DTYPE is not an integer or a quoted format");
  assert_bad ("1 2 3 4 5 1 2.0 7", 13, "DTYPE is not an integer or a quoted format");
}

/* ---- bad input ----------------------------------------------------------- */

static void
test_missing_fields (void)
{
  assert_bad ("-3", 3, "missing field EV");
  assert_bad ("-3 -21", 7, "missing field TIME");
  assert_bad ("-3 -21 1.5", 11, "missing field PROC");
  assert_bad ("-3 -21 1.5 3", 13, "missing field PROCESS");
  assert_bad ("-3 -21 1.5 3 0", 15, "missing field NDATA");
  assert_bad ("-3 -21 1.5 3 0 4", 17, "missing field DTYPE");
  assert_bad ("-3 -21 1.5 3 0 4 \t", 19, "missing field DTYPE");
  assert_bad ("-3 -21 1.5 3 0 4\r", 17, "missing field DTYPE");
  assert_bad ("  -3  ", 7, "missing field EV");
}

static void
test_not_numbers (void)
{
  assert_bad ("x -21 1 3 0 0", 1, "REC is not an integer");
  assert_bad ("-3 2x 1 3 0 0", 4, "EV is not an integer");
  assert_bad ("-3 - 1 3 0 0", 4, "EV is not an integer");
  assert_bad ("-3 +-2 1 3 0 0", 4, "EV is not an integer");
  assert_bad ("-3 0x10 1 3 0 0", 4, "EV is not an integer");
  assert_bad ("-3 -21 1 p 0 0", 10, "PROC is not an integer");
  assert_bad ("-3 -21 1 3 0.0 0", 12, "PROCESS is not an integer");
  assert_bad ("-3 -21 1 3 0 x", 14, "NDATA is not an integer");
  assert_bad ("-3 -21 1 3 0 2.", 14, "NDATA is not an integer");
  assert_bad ("-3 -21 1 3 0 2 2 1 x", 20, "data field 2 is not an integer");
  assert_bad ("-3 -21 1 3 0 2 2 1e3 2", 18, "data field 1 is not an integer");

  static const char *const bad_times[] = {
    "0x10", "inf", "-inf", "nan", "NaN", "infinity", "1.", ".5", "-.5", "1e", "1e+", "1e-", "--1", "+-1",
    "1.5.2", "1,5", "1.5e3.2", "e5", "-", "+", "1ee5", "1.e5", "12a", "0x1p3", "1e5x",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad_times); i++)
    {
      char *line = g_strdup_printf ("-3 -21 %s 3 0 0", bad_times[i]);
      assert_bad (line, 8, "TIME is not a decimal number");
      g_free (line);
    }
  assert_bad ("-3 -21 1e400 3 0 0", 8, "TIME overflows a double");
  assert_bad ("-3 -21 -1.8e308 3 0 0", 8, "TIME overflows a double");
  assert_bad ("-3 -21 1e99999999999 3 0 0", 8, "TIME overflows a double");
  /* finite but so large that differences of times would not be (spec section 1) */
  assert_bad ("-3 -21 1e308 3 0 0", 8, "TIME is beyond 1e300 in magnitude");
  assert_bad ("-3 -21 -1.00000000000001e300 3 0 0", 8, "TIME is beyond 1e300 in magnitude");
  {
    /* 1e301 spelled out: the slow path (more than 19 digits) checks the bound too */
    char *zeros = g_strnfill (301, '0');
    char *line = g_strdup_printf ("-3 -21 1%s 3 0 0", zeros);
    assert_bad (line, 8, "TIME is beyond 1e300 in magnitude");
    g_free (line);
    g_free (zeros);
  }
}

static void
test_ndata (void)
{
  assert_bad ("-3 -21 1 3 0 -1 2 5", 14, "NDATA is negative");
  assert_bad ("-3 -21 1 3 0 -9223372036854775808", 14, "NDATA is negative");
  assert_bad ("-3 -21 1 3 0 4 2 1 2 3", 23, "NDATA is 4 but 3 data fields follow");
  assert_bad ("-3 -21 1 3 0 2 2 1  ", 21, "NDATA is 2 but 1 data field follows");
  assert_bad ("-3 -21 1 3 0 1 2", 17, "NDATA is 1 but 0 data fields follow");
  assert_bad ("-3 -21 1 3 0 2 2 1 2 3", 22, "NDATA is 2 but 3 data fields follow");
  assert_bad ("-3 -21 1 3 0 1 2 1 x y", 20, "NDATA is 1 but 3 data fields follow");
  assert_bad ("-3 -21 1 3 0 9999999999 2 1", 28, "NDATA is 9999999999 but 1 data field follows");
  assert_bad ("-3 -21 1 3 0 0 2 5", 16, "NDATA is 0 but more fields follow");
  assert_bad ("-3 -21 1 3 0 0 #", 16, "NDATA is 0 but more fields follow");
}

static void
test_nul (void)
{
  static const char l1[] = "-3 -21 1\0 3 0 0";
  assert_bad_len (l1, sizeof l1 - 1, 9, "line contains a NUL byte");
  static const char l2[] = "\0-3 -21 1 3 0 0";
  assert_bad_len (l2, sizeof l2 - 1, 1, "line contains a NUL byte");
  static const char l3[] = "# comment \0 here";
  assert_bad_len (l3, sizeof l3 - 1, 11, "line contains a NUL byte");
  static const char l4[] = "-3 -911 1 0 0 2 \"%s\0\" a b";
  assert_bad_len (l4, sizeof l4 - 1, 20, "line contains a NUL byte");
  static const char l5[] = "-3 -911 1 0 0 2 \"%s";  /* unterminated, but the NUL is the news */
  char buf[64];
  memcpy (buf, l5, sizeof l5 - 1);
  buf[sizeof l5 - 1] = '\0';
  assert_bad_len (buf, sizeof l5, 20, "line contains a NUL byte");
  static const char l6[] = "1 2 3 4 5 2 7 ab c\0d";
  assert_bad_len (l6, sizeof l6 - 1, 19, "line contains a NUL byte");
  /* a NUL after an error elsewhere is still what gets reported */
  static const char l7[] = "x 2 3 4 5 0 \0";
  assert_bad_len (l7, sizeof l7 - 1, 13, "line contains a NUL byte");
  static const char l8[] = "1 2 3 4 5 1 2 7\0";
  assert_bad_len (l8, sizeof l8 - 1, 16, "line contains a NUL byte");
}

static void
test_line_length (void)
{
  /* " 0 0 0 0 0 32759 2" (18 bytes) + 32759 x " 0" = 65536 bytes: also the
   * most data fields a line can hold */
  GString *s = g_string_new (" 0 0 0 0 0 32759 2");
  for (guint i = 0; i < 32759; i++)
    g_string_append (s, " 0");
  g_assert_cmpuint (s->len, ==, 65536);
  s->str[s->len - 1] = '7';
  assert_tram (s->str);
  g_assert_cmpuint (fields->ndata, ==, 32759);
  g_assert_cmpint (fields->data[32758], ==, 7);
  g_assert_cmpuint (fields->len, ==, 65536);

  g_string_append_c (s, '\r');
  assert_tram (s->str);
  g_assert_cmpuint (fields->len, ==, 65536);

  g_string_truncate (s, 65536);
  g_string_prepend_c (s, ' ');
  g_assert_cmpuint (s->len, ==, 65537);
  assert_bad (s->str, 65537, "line is longer than 65536 bytes");
  g_string_append_c (s, '\r');
  assert_bad (s->str, 65537, "line is longer than 65536 bytes");
  g_string_free (s, TRUE);
}

static void
test_from_fields (void)
{
  ViperTramPool *pool = viper_tram_pool_new ();
  ViperLineKind kind;
  ViperParseError err;
  const char *line = " -3 -21 0.5 3 0 2 2 -7 8\r";
  ViperTram *t = viper_tram_parse (pool, fields, line, strlen (line), &kind, &err);
  g_assert_nonnull (t);
  g_assert_cmpint (kind, ==, VIPER_LINE_TRAM);
  g_assert_cmpint (t->rec, ==, -3);
  g_assert_cmpint (t->ev, ==, -21);
  g_assert_cmpfloat (t->time, ==, 0.5);
  g_assert_cmpint (t->proc, ==, 3);
  g_assert_cmpuint (t->ndata, ==, 2);
  g_assert_cmpint (viper_tram_datum (t, 0, 0), ==, -7);
  g_assert_cmpint (viper_tram_datum (t, 1, 0), ==, 8);
  g_assert_cmpint (viper_tram_datum (t, 2, 99), ==, 99);
  g_assert_cmpstr (viper_tram_raw (t), ==, " -3 -21 0.5 3 0 2 2 -7 8");
  g_assert_cmpuint (t->raw_len, ==, 24);
  g_assert_cmpuint (t->data_off, ==, 18);
  g_assert_cmpint (t->state, ==, VIPER_TRAM_NEW);
  g_assert_null (t->next);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 1);

  const char *q = "-3 -911 1.5 0 0 3 \"%d %s %s\" 5 hello world";
  ViperTram *u = viper_tram_parse (pool, fields, q, strlen (q), &kind, &err);
  g_assert_nonnull (u);
  g_assert_null (viper_tram_data (u));
  g_assert_cmpint (viper_tram_datum (u, 0, -1), ==, -1);
  g_assert_cmpstr (viper_tram_raw (u), ==, q);
  g_assert_cmpstr (viper_tram_raw (u) + u->data_off, ==, "\"%d %s %s\" 5 hello world");

  g_assert_null (viper_tram_parse (pool, fields, "# c", 3, &kind, &err));
  g_assert_cmpint (kind, ==, VIPER_LINE_COMMENT);
  g_assert_null (viper_tram_parse (pool, fields, "1 2", 3, &kind, &err));
  g_assert_cmpint (kind, ==, VIPER_LINE_BAD);
  g_assert_cmpstr (err.reason, ==, "missing field TIME");
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 2);

  viper_tram_pool_release (pool, t);
  viper_tram_pool_release (pool, u);
  g_assert_cmpuint (viper_tram_pool_live (pool), ==, 0);
  viper_tram_pool_free (pool);
}

/* What a bad line still tells (spec section 1): PROC, and D1 behind an
 * integer NDATA >= 1 and DTYPE 2. */
static void
test_salvage (void)
{
  static const struct {
    const char *line;
    gboolean ok;
    gint64 proc, d1;
  } cases[] = {
    { "2 31 zz 5 0 1 2 2", TRUE, 5, 2 },                 /* bad TIME */
    { "2 31 4.0 5 0 1 2 4 9", TRUE, 5, 4 },              /* NDATA says 1, two follow */
    { "2 14 -2.478 2 0 3 2 2 0 zz", TRUE, 2, 2 },        /* a bad later data field */
    { "\t2  31 zz\t-7 0 1 2 12\r", TRUE, -7, 12 },       /* blanks and a CR */
    { "-3 -21 abc 0 0 4 2 8 7 1 0", TRUE, 0, 8 },        /* picl: D1 is no sequence number there */
    { "2 31 zz 5 0 1 \"%d\" 2", TRUE, 5, 0 },            /* quoted DTYPE: no D1 */
    { "2 31 zz 5 0 1 3 2", TRUE, 5, 0 },                 /* DTYPE not 2 */
    { "2 31 zz 5 0 0", TRUE, 5, 0 },                     /* no data */
    { "2 31 zz 5 0 x 2 2", TRUE, 5, 0 },                 /* NDATA unreadable */
    { "2 31 zz 5 0 1 2 x", TRUE, 5, 0 },                 /* D1 unreadable */
    { "2 31 zz 5x 0 1 2 2", FALSE, 0, 0 },               /* PROC unreadable */
    { "2 31 zz", FALSE, 0, 0 },                          /* no PROC */
    { "2 31 zz 99999999999999999999 0 1 2 2", FALSE, 0, 0 },   /* PROC overflows */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gint64 proc = -99, d1 = -99;
      gboolean ok = viper_tram_salvage (cases[i].line, strlen (cases[i].line), &proc, &d1);
      if (ok != cases[i].ok || proc != cases[i].proc || d1 != cases[i].d1)
        g_error ("'%s': %d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT ", expected %d %" G_GINT64_FORMAT " %"
                 G_GINT64_FORMAT, cases[i].line, ok, proc, d1, cases[i].ok, cases[i].proc, cases[i].d1);
    }
  /* a NUL byte: only the whole words before it are read (one that runs
   * into it may have been longer) */
  gint64 proc, d1;
  g_assert_false (viper_tram_salvage ("2 31 zz 5\0 0 1 2 2", 17, &proc, &d1));
  g_assert_true (viper_tram_salvage ("1 13 1 0 0 2 2 2 0\0", 19, &proc, &d1));
  g_assert_cmpint (proc, ==, 0);
  g_assert_cmpint (d1, ==, 2);
  g_assert_true (viper_tram_salvage ("1 13 1 4 0 2 2 27\0 0", 21, &proc, &d1));
  g_assert_cmpint (proc, ==, 4);
  g_assert_cmpint (d1, ==, 0);
  g_assert_true (viper_tram_salvage ("1 13 1 4 0 2 2 \0 27 0", 22, &proc, &d1));
  g_assert_cmpint (d1, ==, 0);
  g_assert_true (viper_tram_salvage ("-3 -21 0.1 3 0\0 4 2 8 7 1 0", 28, &proc, &d1));
  g_assert_cmpint (proc, ==, 3);
  /* an over-long line: what its first VIPER_MAX_LINE bytes say */
  GString *lng = g_string_new ("1 13 1 6 0 2 2 9 ");
  while (lng->len < VIPER_MAX_LINE + 100)
    g_string_append (lng, "0 ");
  g_assert_true (viper_tram_salvage (lng->str, lng->len, &proc, &d1));
  g_assert_cmpint (proc, ==, 6);
  g_assert_cmpint (d1, ==, 9);
  /* ... and the start of a line that goes on: the last word may be cut */
  g_assert_true (viper_tram_salvage_cut (lng->str, 17, TRUE, &proc, &d1));
  g_assert_cmpint (d1, ==, 9);
  g_assert_true (viper_tram_salvage_cut (lng->str, 16, TRUE, &proc, &d1));
  g_assert_cmpint (d1, ==, 0);
  g_assert_true (viper_tram_salvage_cut (lng->str, 16, FALSE, &proc, &d1));
  g_assert_cmpint (d1, ==, 9);
  g_assert_false (viper_tram_salvage_cut (lng->str, 7, TRUE, &proc, &d1));
  /* PROC beyond the first VIPER_MAX_LINE bytes is not read */
  g_string_assign (lng, "1 13 ");
  while (lng->len < VIPER_MAX_LINE + 10)
    g_string_append_c (lng, '1');
  g_string_append (lng, " 0 0 2 2 9 0");
  g_assert_false (viper_tram_salvage (lng->str, lng->len, &proc, &d1));
  g_string_free (lng, TRUE);
}

/* The fast path for canonical lines (issue 11) against the careful scanner:
 * the same kind, fields, column and reason for a set of lines and for every
 * one-byte change, deletion and insertion in them; canonical lines take the
 * fast path (canon set), and the tram image is the same either way. */
static ViperTramFields *careful;

static void
compare_paths (const char *line, gsize len)
{
  ViperParseError e1, e2;
  memset (&e1, 0, sizeof e1);
  memset (&e2, 0, sizeof e2);
  char *exact = g_malloc (len ? len : 1);   /* no byte after it: ASan sees an overread */
  memcpy (exact, line, len);
  ViperLineKind k1 = viper_tram_scan (exact, len, fields, &e1);
  ViperLineKind k2 = viper_tram_scan_careful (exact, len, careful, &e2);
  GString *shown = g_string_new (NULL);
  for (gsize i = 0; i < len; i++)
    g_string_append_printf (shown, g_ascii_isprint (line[i]) ? "%c" : "\\x%02x", (guchar) line[i]);
  if (k1 != k2)
    g_error ("'%s': kind %d with the fast path, %d without", shown->str, k1, k2);
  if (k1 == VIPER_LINE_BAD && (e1.column != e2.column || strcmp (e1.reason, e2.reason) != 0))
    g_error ("'%s': %u: %s with the fast path, %u: %s without", shown->str, e1.column, e1.reason, e2.column,
             e2.reason);
  if (k1 == VIPER_LINE_TRAM)
    {
      g_assert_cmpint (careful->canon, ==, 0);
      if (fields->rec != careful->rec || fields->ev != careful->ev || fields->proc != careful->proc
          || fields->process != careful->process || fields->ndata != careful->ndata
          || fields->dtype != careful->dtype || fields->data_off != careful->data_off
          || fields->len != careful->len || memcmp (&fields->time, &careful->time, sizeof (double)) != 0)
        g_error ("'%s': different fields with the fast path", shown->str);
      if (fields->dtype == VIPER_DTYPE_INT)
        for (guint32 i = 0; i < fields->ndata; i++)
          g_assert_cmpint (fields->data[i], ==, careful->data[i]);
      guint32 n1, n2, t1, t2;
      guint8 f1, f2;
      gsize s1 = viper_tram_image_prepare (fields, exact, &n1, &t1, &f1);
      gsize s2 = viper_tram_image_prepare (careful, exact, &n2, &t2, &f2);
      if (s1 != s2 || n1 != n2 || t1 != t2 || f1 != f2)
        g_error ("'%s': a different tram image with the fast path", shown->str);
    }
  g_free (exact);

  /* viper_tram_scan_image, on the line as the splitter hands it out ('\n'
   * behind it), into a block of exactly the room it asks for: when it takes
   * the line, its image is the careful scanner's, byte for byte */
  char *nl = g_malloc (len + 1);
  memcpy (nl, line, len);
  nl[len] = '\n';
  gsize room = sizeof (ViperTram) + (len / 2 + 1) * sizeof (gint64);
  ViperTram *img = g_malloc (room);
  gsize size = viper_tram_scan_image (nl, len, img);
  if (size)
    {
      if (k2 != VIPER_LINE_TRAM)
        g_error ("'%s': scanned into an image, but the careful scanner says %d", shown->str, k2);
      guint32 nints, text;
      guint8 flags;
      gsize want = viper_tram_image_prepare (careful, nl, &nints, &text, &flags);
      g_assert_cmpuint (size, ==, want);
      ViperTram *ref = g_malloc0 (want + 1);
      viper_tram_image_write (ref, careful, nl, nints, flags);
      if (memcmp (img, ref, size) != 0)
        g_error ("'%s': viper_tram_scan_image writes a different image", shown->str);
      g_free (ref);
    }
  g_free (img);
  g_free (nl);
  g_string_free (shown, TRUE);
}

static void
test_fast_path (void)
{
  static const char *const lines[] = {
    "-3 -57 -0.000890315 57 0 3 2 0 -1 0",
    "-3 -901 0.000814816 16 0 0",
    "2 30 -17.6471 19 0 1 2 1",
    "-4 -52 12 3 0 4 2 1048576 -9 123456789012345678 -123456789012345678",
    "2 30 0.5 0 0 1 2 1\r",
    "1 2 9007199254740993 3 4 0",
    "1 2 0.9007199254740993 3 4 0",
    "1 2 1234567890.123456789 3 4 0",
    "2147483647 -2147483648 1 0 2147483647 0",
    "2147483648 1 1 0 0 0",
    "1 2 3 -9223372036854775808 0 1 2 -9223372036854775808",
    "1 2 3e5 4 5 0",
    "-3 -911 1.5 0 0 3 \"%d %s\" 5 a b",
    "1 2 3 4 5 2 7 8 9",
    "1 2 3 4 5 0 ",
    "0 0 0 0 0 0",
    "-0 0 0 0 0 0",
  };
  careful = viper_tram_fields_new ();
  GString *m = g_string_new (NULL);
  static const char subst[] = { ' ', '\t', '-', '+', '0', '1', '9', '.', 'e', 'x', '\0', '\r', '"', '#' };
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      const char *l = lines[i];
      gsize len = strlen (l);
      compare_paths (l, len);
      for (gsize pos = 0; pos <= len; pos++)
        {
          for (guint c = 0; c < G_N_ELEMENTS (subst); c++)
            {
              g_string_assign (m, l);
              g_string_insert_len (m, (gssize) pos, &subst[c], 1);
              compare_paths (m->str, m->len);
              if (pos < len)
                {
                  g_string_assign (m, l);
                  m->str[pos] = subst[c];
                  compare_paths (m->str, m->len);
                }
            }
          if (pos < len)
            {
              g_string_assign (m, l);
              g_string_erase (m, (gssize) pos, 1);
              compare_paths (m->str, m->len);
              compare_paths (l, pos);     /* every prefix */
            }
        }
    }
  /* canonical lines are taken by the fast path */
  ViperParseError err;
  for (guint i = 0; i < 4; i++)
    {
      g_assert_cmpint (viper_tram_scan (lines[i], strlen (lines[i]), fields, &err), ==, VIPER_LINE_TRAM);
      g_assert_cmpint (fields->canon, ==, 1);
      gsize len = strlen (lines[i]);
      ViperTram *img = g_malloc (sizeof (ViperTram) + (len / 2 + 1) * sizeof (gint64));
      g_assert_cmpuint (viper_tram_scan_image (lines[i], len, img), >, 0);   /* its NUL stops fields too */
      g_free (img);
    }
  /* a byte behind the line that could continue a field: not taken */
  static const char follow[] = "1 2 3 4 5 1 2 6";
  for (const char *c = "7- .\t"; *c; c++)
    {
      char buf[32];
      memcpy (buf, follow, sizeof follow - 1);
      buf[sizeof follow - 1] = *c;
      ViperTram *img = g_malloc (sizeof (ViperTram) + 16 * sizeof (gint64));
      gsize got = viper_tram_scan_image (buf, sizeof follow - 1, img);
      g_assert_cmpuint (got, ==, *c == '\t' ? sizeof (ViperTram) + sizeof (gint64) : 0);
      g_free (img);
    }
  g_string_free (m, TRUE);
  viper_tram_fields_free (careful);
}

/* Options' and dialogs' numbers (viper-replay, the GUI): one parser. */
static void
test_parse_number (void)
{
  static const struct {
    const char *text;
    ViperNumberStatus want;
    double v;
  } cases[] = {
    { "12.5", VIPER_NUMBER_OK, 12.5 }, { "-3", VIPER_NUMBER_OK, -3 }, { "1e-400", VIPER_NUMBER_OK, 0 },
    { "1795549589.25", VIPER_NUMBER_OK, 1795549589.25 }, { "", VIPER_NUMBER_SYNTAX, 0 },
    { "abc", VIPER_NUMBER_SYNTAX, 0 }, { "1x", VIPER_NUMBER_SYNTAX, 0 }, { "nan", VIPER_NUMBER_SYNTAX, 0 },
    { "12:30", VIPER_NUMBER_SYNTAX, 0 }, { "1e400", VIPER_NUMBER_RANGE, 0 }, { "-1e400", VIPER_NUMBER_RANGE, 0 },
    { "inf", VIPER_NUMBER_RANGE, 0 }, { "0x10", VIPER_NUMBER_SYNTAX, 0 }, { "-0X1p3", VIPER_NUMBER_SYNTAX, 0 },
    { "+0x0", VIPER_NUMBER_SYNTAX, 0 }, { "0.5e1", VIPER_NUMBER_OK, 5 },
    /* strtod skips leading blanks: ' 0x10' was read as 16 */
    { " 0x10", VIPER_NUMBER_SYNTAX, 0 }, { " 16", VIPER_NUMBER_SYNTAX, 0 }, { "\t1", VIPER_NUMBER_SYNTAX, 0 },
    { "16 ", VIPER_NUMBER_SYNTAX, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double v = -99;
      ViperNumberStatus st = viper_parse_number (cases[i].text, &v);
      g_assert_cmpint (st, ==, cases[i].want);
      if (st == VIPER_NUMBER_OK)
        g_assert_cmpfloat (fabs (v - cases[i].v), <, 1e-300 + fabs (cases[i].v) * 1e-15);
      else
        g_assert_cmpfloat (v, ==, -99);   /* untouched */
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  fields = viper_tram_fields_new ();
  g_test_add_func ("/scan/picl-line", test_picl_line);
  g_test_add_func ("/scan/monalisa-line", test_monalisa_line);
  g_test_add_func ("/scan/ndata-zero", test_ndata_zero);
  g_test_add_func ("/scan/time-formats", test_time_formats);
  g_test_add_func ("/scan/int64-limits", test_int64_limits);
  g_test_add_func ("/scan/blanks-and-crlf", test_blanks_and_crlf);
  g_test_add_func ("/scan/comments", test_comments);
  g_test_add_func ("/scan/quoted-dtype", test_quoted_dtype);
  g_test_add_func ("/scan/other-dtype", test_other_dtype);
  g_test_add_func ("/scan/bad/missing-fields", test_missing_fields);
  g_test_add_func ("/scan/bad/not-numbers", test_not_numbers);
  g_test_add_func ("/scan/bad/ndata", test_ndata);
  g_test_add_func ("/scan/bad/nul", test_nul);
  g_test_add_func ("/scan/line-length", test_line_length);
  g_test_add_func ("/scan/from-fields", test_from_fields);
  g_test_add_func ("/scan/salvage", test_salvage);
  g_test_add_func ("/scan/fast-path", test_fast_path);
  g_test_add_func ("/scan/parse-number", test_parse_number);
  int rc = g_test_run ();
  viper_tram_fields_free (fields);
  return rc;
}
