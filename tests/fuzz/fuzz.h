/* fuzz.h - the libFuzzer entry points the harnesses define.
 *
 * Built with clang's libFuzzer (scripts/fuzz, -Dfuzz=true) they are fuzzers;
 * built with any compiler otherwise, driver.c gives them a main() that runs
 * the seed corpus through them once (meson test --suite fuzz), so the
 * harnesses and their corpora stay working in every build. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* A setup file's error must say where, as every Viper reader does:
 * "NAME:LINE:COLUMN: ...", LINE a line of the input (1 for an empty one),
 * COLUMN from 1 to one past that line's last byte. */
static inline void
fuzz_check_where (const char *msg, const char *name, const uint8_t *data, size_t size)
{
  size_t nl = strlen (name);
  if (strncmp (msg, name, nl) != 0 || msg[nl] != ':')
    g_error ("the error does not start with %s: '%s'", name, msg);
  char *end = NULL;
  guint64 line = g_ascii_strtoull (msg + nl + 1, &end, 10);
  if (end == msg + nl + 1 || *end != ':')
    g_error ("the error names no line: '%s'", msg);
  const char *c = end + 1;
  guint64 col = g_ascii_strtoull (c, &end, 10);
  if (end == c || strncmp (end, ": ", 2) != 0)
    g_error ("the error names no column: '%s'", msg);
  size_t pos = 0;
  guint64 k = 1;
  while (k < line && pos < size)
    {
      const uint8_t *q = memchr (data + pos, '\n', size - pos);
      if (!q)
        break;
      pos = (size_t) (q - data) + 1;
      k++;
    }
  if (k != line || line == 0 || (pos >= size && line > 1))
    g_error ("the error names line %" G_GUINT64_FORMAT ", which the input does not have: '%s'", line, msg);
  const uint8_t *q = size > pos ? memchr (data + pos, '\n', size - pos) : NULL;
  size_t len = (q ? (size_t) (q - data) : size) - pos;
  if (col < 1 || col > len + 1)
    g_error ("the error names column %" G_GUINT64_FORMAT " of a line of %zu bytes: '%s'", col, len, msg);
}
