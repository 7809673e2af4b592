/* test-linesplit.c - cutting byte streams into lines: chunk boundaries,
 * CRLF, over-long lines, and the file / socket end-of-stream semantics. */
#include "core/tramparse.h"

#include <string.h>

typedef struct {
  GString *log;
  const char *chunk;        /* the bytes being fed, to see where lines point */
  gsize chunk_len;
  guint in_place;           /* lines delivered straight from the chunk */
  gsize longest;
  GString *heads;           /* what on_error was given of each line: "H<line>:<len>:<first bytes>" */
} Collector;

static void
on_line (const char *line, gsize len, guint64 lineno, gpointer user_data)
{
  Collector *c = user_data;
  if (c->chunk && line >= c->chunk && line + len <= c->chunk + c->chunk_len)
    c->in_place++;
  c->longest = MAX (c->longest, len);
  if (len > 200)
    g_string_append_printf (c->log, "L%" G_GUINT64_FORMAT ":<%" G_GSIZE_FORMAT " bytes, last %d>\n", lineno, len,
                            line[len - 1]);
  else
    {
      g_string_append_printf (c->log, "L%" G_GUINT64_FORMAT ":", lineno);
      for (gsize i = 0; i < len; i++)
        if (line[i] == '\r')
          g_string_append (c->log, "\\r");
        else
          g_string_append_c (c->log, line[i]);
      g_string_append_c (c->log, '\n');
    }
}

static void
on_error (guint64 lineno, guint column, const char *reason, const char *head, gsize head_len,
          gpointer user_data)
{
  Collector *c = user_data;
  g_string_append_printf (c->log, "E%" G_GUINT64_FORMAT ":%u: %s\n", lineno, column, reason);
  if (c->heads)
    g_string_append_printf (c->heads, "H%" G_GUINT64_FORMAT ":%" G_GSIZE_FORMAT ":%.*s\n", lineno, head_len,
                            (int) MIN (head_len, (gsize) 24), head);
}

/* Feed input in chunks of the given size (0 = all at once); return the log. */
static char *
split (const char *input, gsize len, gsize chunk, gboolean partial_is_line, guint64 *lines)
{
  Collector c = { g_string_new (NULL), NULL, 0, 0, 0, NULL };
  ViperLineSplitter *s = viper_line_splitter_new (on_line, on_error, &c);
  if (chunk == 0)
    chunk = len ? len : 1;
  for (gsize off = 0; off < len; off += chunk)
    viper_line_splitter_feed (s, input + off, MIN (chunk, len - off));
  viper_line_splitter_finish (s, partial_is_line);
  if (lines)
    *lines = viper_line_splitter_lines (s);
  viper_line_splitter_free (s);
  return g_string_free (c.log, FALSE);
}

static void
assert_split (const char *input, gboolean partial_is_line, const char *expected, guint64 expected_lines)
{
  gsize len = strlen (input);
  /* every chunking must give the same result */
  for (gsize chunk = 0; chunk <= len + 1; chunk++)
    {
      guint64 lines;
      char *got = split (input, len, chunk, partial_is_line, &lines);
      if (g_strcmp0 (got, expected) != 0)
        g_error ("chunk %" G_GSIZE_FORMAT ": got\n%s\nwant\n%s", chunk, got, expected);
      g_assert_cmpuint (lines, ==, expected_lines);
      g_free (got);
    }
}

static void
test_basic (void)
{
  assert_split ("a\nbb\n\nccc\n", TRUE, "L1:a\nL2:bb\nL3:\nL4:ccc\n", 4);
  assert_split ("a\nbb\n\nccc\n", FALSE, "L1:a\nL2:bb\nL3:\nL4:ccc\n", 4);
  assert_split ("", TRUE, "", 0);
  assert_split ("\n", TRUE, "L1:\n", 1);
  assert_split ("# c\n\n-3 -21 1 3 0 0\n", TRUE, "L1:# c\nL2:\nL3:-3 -21 1 3 0 0\n", 3);
}

static void
test_crlf (void)
{
  assert_split ("a\r\nb\r\n\r\n", TRUE, "L1:a\\r\nL2:b\\r\nL3:\\r\n", 3);
  assert_split ("a\rb\n", TRUE, "L1:a\\rb\n", 1);
}

static void
test_unterminated_last_line (void)
{
  /* files: a last line without '\n' is a line */
  assert_split ("a\nlast", TRUE, "L1:a\nL2:last\n", 2);
  assert_split ("a\nlast\r", TRUE, "L1:a\nL2:last\\r\n", 2);
  /* sockets: it was cut off */
  assert_split ("a\nlast", FALSE, "L1:a\nE2:5: connection closed in the middle of a line\n", 2);
  assert_split ("par", FALSE, "E1:4: connection closed in the middle of a line\n", 1);
}

static GString *
repeat (char c, gsize n)
{
  GString *s = g_string_sized_new (n + 16);
  for (gsize i = 0; i < n; i++)
    g_string_append_c (s, c);
  return s;
}

static void
check_long (GString *in, gboolean partial_is_line, const char *expected, guint64 expected_lines)
{
  static const gsize chunks[] = { 0, 1, 7, 4096, 65535, 65536, 65537, 65538, 100000 };
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      guint64 lines;
      char *got = split (in->str, in->len, chunks[i], partial_is_line, &lines);
      if (g_strcmp0 (got, expected) != 0)
        g_error ("chunk %" G_GSIZE_FORMAT ": got\n%s\nwant\n%s", chunks[i], got, expected);
      g_assert_cmpuint (lines, ==, expected_lines);
      g_free (got);
    }
}

static void
test_long_lines (void)
{
  GString *in = repeat ('x', 65536);
  g_string_append (in, "\nok\n");
  check_long (in, TRUE, "L1:<65536 bytes, last 120>\nL2:ok\n", 2);
  g_string_free (in, TRUE);

  /* the '\r' of CRLF does not count against the limit */
  in = repeat ('x', 65536);
  g_string_append (in, "\r\nok\n");
  check_long (in, TRUE, "L1:<65537 bytes, last 13>\nL2:ok\n", 2);
  g_string_free (in, TRUE);

  in = repeat ('x', 65537);
  g_string_append (in, "\nok\n");
  check_long (in, TRUE, "E1:65537: line is longer than 65536 bytes\nL2:ok\n", 2);
  g_string_free (in, TRUE);

  in = repeat ('x', 65537);
  g_string_append (in, "\r\nok\n");
  check_long (in, TRUE, "E1:65537: line is longer than 65536 bytes\nL2:ok\n", 2);
  g_string_free (in, TRUE);

  /* 65536 bytes, a '\r' that is not a line end, more bytes */
  in = repeat ('x', 65536);
  g_string_append (in, "\ry\nok\n");
  check_long (in, TRUE, "E1:65537: line is longer than 65536 bytes\nL2:ok\n", 2);
  g_string_free (in, TRUE);

  /* a huge line is reported once, and the lines around it survive */
  in = g_string_new ("a\n");
  GString *big = repeat ('y', 1000000);
  g_string_append_len (in, big->str, big->len);
  g_string_append (in, "\nb\n");
  g_string_append_len (in, big->str, big->len);
  check_long (in, FALSE,
              "L1:a\nE2:65537: line is longer than 65536 bytes\nL3:b\nE4:65537: line is longer than 65536 bytes\n", 4);
  check_long (in, TRUE,
              "L1:a\nE2:65537: line is longer than 65536 bytes\nL3:b\nE4:65537: line is longer than 65536 bytes\n", 4);
  g_string_free (big, TRUE);
  g_string_free (in, TRUE);

  /* a maximal last line without '\n' is still a line in a file */
  in = repeat ('z', 65536);
  check_long (in, TRUE, "L1:<65536 bytes, last 122>\n", 1);
  check_long (in, FALSE, "E1:65537: connection closed in the middle of a line\n", 1);
  g_string_free (in, TRUE);
}

static void
test_zero_copy (void)
{
  const char *input = "-3 -21 1 3 0 0\n-4 -21 2 3 0 0\n# c\npartial";
  Collector c = { g_string_new (NULL), input, strlen (input), 0, 0, NULL };
  ViperLineSplitter *s = viper_line_splitter_new (on_line, on_error, &c);
  viper_line_splitter_feed (s, input, strlen (input));
  g_assert_cmpuint (c.in_place, ==, 3);
  g_assert_cmpuint (viper_line_splitter_lines (s), ==, 3);
  viper_line_splitter_finish (s, TRUE);
  g_assert_cmpuint (c.in_place, ==, 3);   /* the partial line had to be copied */
  g_assert_cmpstr (c.log->str, ==, "L1:-3 -21 1 3 0 0\nL2:-4 -21 2 3 0 0\nL3:# c\nL4:partial\n");
  g_assert_cmpuint (viper_line_splitter_lines (s), ==, 4);

  viper_line_splitter_reset (s);
  g_string_truncate (c.log, 0);
  viper_line_splitter_feed (s, "x\ny", 3);
  viper_line_splitter_reset (s);
  viper_line_splitter_feed (s, "z\n", 2);
  g_assert_cmpstr (c.log->str, ==, "L1:x\nL1:z\n");
  viper_line_splitter_free (s);
  g_string_free (c.log, TRUE);
}

/* One byte at a time, random chunks and one big chunk must agree on a
 * stream that mixes everything the splitter distinguishes. */
static void
test_chunkings_agree (void)
{
  GString *in = g_string_new (NULL);
  GRand *r = g_rand_new_with_seed (42);
  for (guint i = 0; i < 300; i++)
    {
      switch (g_rand_int_range (r, 0, 8))
        {
        case 0:
          g_string_append (in, "\n");
          break;
        case 1:
          g_string_append (in, "# comment\r\n");
          break;
        case 2:
          {
            gsize n = (gsize) g_rand_int_range (r, 65530, 65540);
            for (gsize j = 0; j < n; j++)
              g_string_append_c (in, 'q');
            g_string_append (in, g_rand_boolean (r) ? "\r\n" : "\n");
            break;
          }
        default:
          g_string_append_printf (in, "-3 -21 %d.5 %d 0 1 2 %d\n", i, i % 7, g_rand_int (r));
        }
    }
  g_string_append (in, "tail");

  for (int pil = 0; pil < 2; pil++)
    {
      char *whole = split (in->str, in->len, 0, pil, NULL);
      char *bytes = split (in->str, in->len, 1, pil, NULL);
      g_assert_cmpstr (bytes, ==, whole);

      Collector c = { g_string_new (NULL), NULL, 0, 0, 0, NULL };
      ViperLineSplitter *s = viper_line_splitter_new (on_line, on_error, &c);
      for (gsize off = 0; off < in->len;)
        {
          gsize n = MIN ((gsize) g_rand_int_range (r, 1, 70000), in->len - off);
          viper_line_splitter_feed (s, in->str + off, n);
          off += n;
        }
      viper_line_splitter_finish (s, pil);
      g_assert_cmpstr (c.log->str, ==, whole);
      g_assert_cmpuint (c.longest, <=, VIPER_MAX_LINE + 1);
      viper_line_splitter_free (s);
      g_string_free (c.log, TRUE);
      g_free (whole);
      g_free (bytes);
    }
  g_rand_free (r);
  g_string_free (in, TRUE);
}

/* An over-long line is not delivered, but its start is handed to on_error,
 * whatever pieces it came in, so that its PROC and sequence number can still
 * be read (spec section 1: a rejected line does not strand its module). */
static void
test_long_line_head (void)
{
  GString *in = g_string_new ("1 13 1 0 0 2 2 2 0\n1 13 1 7 0 3 2 5 0 ");
  for (gsize i = 0; i < 70000; i++)
    g_string_append_c (in, i % 2 ? ' ' : '1');
  g_string_append (in, "\n1 13 1 0 0 2 2 3 0\nunfinished 1 2 9");
  const gsize chunks[] = { 0, 1, 7, 1000, 65536, 65537, 65538 };
  for (guint pil = 0; pil < 2; pil++)
    for (guint k = 0; k < G_N_ELEMENTS (chunks); k++)
      {
        Collector c = { g_string_new (NULL), NULL, 0, 0, 0, g_string_new (NULL) };
        ViperLineSplitter *s = viper_line_splitter_new (on_line, on_error, &c);
        gsize chunk = chunks[k] ? chunks[k] : in->len;
        for (gsize off = 0; off < in->len; off += chunk)
          viper_line_splitter_feed (s, in->str + off, MIN (chunk, in->len - off));
        viper_line_splitter_finish (s, pil);
        g_assert_cmpstr (c.heads->str, ==,
                         pil ? "H2:65537:1 13 1 7 0 3 2 5 0 1 1 1\n"
                             : "H2:65537:1 13 1 7 0 3 2 5 0 1 1 1\nH4:16:unfinished 1 2 9\n");
        viper_line_splitter_free (s);
        g_string_free (c.log, TRUE);
        g_string_free (c.heads, TRUE);
      }
  g_string_free (in, TRUE);
}

/* A UTF-8 byte order mark at the very start of a stream is skipped, however
 * it is cut into chunks; anywhere else, or when it is only the start of one,
 * its bytes are text. */
static void
test_bom (void)
{
  static const struct {
    const char *in, *want;
  } cases[] = {
    { "\xEF\xBB\xBF-3 -21 1 3 0 0\nb\n", "L1:-3 -21 1 3 0 0\nL2:b\n" },
    { "\xEF\xBB\xBF\n", "L1:\n" },
    { "\xEF\xBB\xBF", "" },
    { "a\n\xEF\xBB\xBF" "b\n", "L1:a\nL2:\xEF\xBB\xBF" "b\n" },
    { "\xEF\xBB\xEF\xBB\xBF\n", "L1:\xEF\xBB\xEF\xBB\xBF\n" },
    { "\xEF\xBBx\n", "L1:\xEF\xBBx\n" },
    { "\xEF", "L1:\xEF\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (gsize chunk = 0; chunk < 4; chunk++)
      {
        char *got = split (cases[i].in, strlen (cases[i].in), chunk, TRUE, NULL);
        if (g_strcmp0 (got, cases[i].want) != 0)
          g_error ("case %u, chunks of %" G_GSIZE_FORMAT ": got '%s'", i, chunk, got);
        g_free (got);
      }
  /* a reset stream may start with a mark again */
  Collector c = { g_string_new (NULL), NULL, 0, 0, 0, NULL };
  ViperLineSplitter *s = viper_line_splitter_new (on_line, on_error, &c);
  viper_line_splitter_feed (s, "\xEF\xBB\xBFx\n", 5);
  viper_line_splitter_reset (s);
  viper_line_splitter_feed (s, "\xEF\xBB\xBFy\n", 5);
  g_assert_cmpstr (c.log->str, ==, "L1:x\nL1:y\n");
  viper_line_splitter_free (s);
  g_string_free (c.log, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/linesplit/basic", test_basic);
  g_test_add_func ("/linesplit/crlf", test_crlf);
  g_test_add_func ("/linesplit/unterminated-last-line", test_unterminated_last_line);
  g_test_add_func ("/linesplit/long-lines", test_long_lines);
  g_test_add_func ("/linesplit/zero-copy", test_zero_copy);
  g_test_add_func ("/linesplit/long-line-head", test_long_line_head);
  g_test_add_func ("/linesplit/bom", test_bom);
  g_test_add_func ("/linesplit/chunkings-agree", test_chunkings_agree);
  return g_test_run ();
}
