/* jsonout.c - a streaming JSON writer: the caller says begin/key/value/end,
 * the writer places commas, indentation and escapes.  Doubles are written
 * with the fewest digits that read back the same value. */
#include <math.h>
#include "jsonout.h"
#include "tram.h"

void
viper_json_init (ViperJson *j, GString *out, gboolean pretty)
{
  memset (j, 0, sizeof *j);
  j->out = out;
  j->pretty = pretty;
}

static void
newline (ViperJson *j)
{
  if (!j->pretty)
    return;
  g_string_append_c (j->out, '\n');
  for (guint i = 0; i < j->depth; i++)
    g_string_append (j->out, "  ");
}

/* Before a value (or a key): a comma if needed.  After a key, nothing. */

static void
before_value (ViperJson *j)
{
  if (j->after_key)
    {
      j->after_key = FALSE;
      return;
    }
  if (j->depth > 0)
    {
      if (j->need_comma[j->depth])
        g_string_append_c (j->out, ',');
      newline (j);
    }
  j->need_comma[j->depth] = TRUE;
}

static void
open_ (ViperJson *j, char c)
{
  before_value (j);
  g_string_append_c (j->out, c);
  if (j->depth + 1 < G_N_ELEMENTS (j->need_comma))
    j->depth++;
  j->need_comma[j->depth] = FALSE;
}

static void
close_ (ViperJson *j, char c)
{
  gboolean had = j->need_comma[j->depth];
  if (j->depth > 0)
    j->depth--;
  if (had)
    newline (j);
  g_string_append_c (j->out, c);
}

void viper_json_begin_object (ViperJson *j) { open_ (j, '{'); }
void viper_json_end_object (ViperJson *j) { close_ (j, '}'); }
void viper_json_begin_array (ViperJson *j) { open_ (j, '['); }
void viper_json_end_array (ViperJson *j) { close_ (j, ']'); }

void
viper_json_append_string (GString *out, const char *s)
{
  if (!s)
    {
      g_string_append (out, "null");
      return;
    }
  /* JSON text is UTF-8 (RFC 8259 section 8.1): a name read from a Latin-1
   * setup file would make the whole document unreadable to strict readers;
   * its invalid bytes become U+FFFD instead. */
  char *valid = g_utf8_validate (s, -1, NULL) ? NULL : g_utf8_make_valid (s, -1);
  if (valid)
    s = valid;
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    {
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
  g_free (valid);
}

void
viper_json_key (ViperJson *j, const char *key)
{
  before_value (j);
  viper_json_append_string (j->out, key);
  g_string_append (j->out, j->pretty ? ": " : ":");
  j->after_key = TRUE;
}

void
viper_json_string (ViperJson *j, const char *s)
{
  before_value (j);
  viper_json_append_string (j->out, s);
}

void
viper_json_int (ViperJson *j, gint64 v)
{
  before_value (j);
  g_string_append_printf (j->out, "%" G_GINT64_FORMAT, v);
}

void
viper_json_double (ViperJson *j, double v)
{
  before_value (j);
  if (!isfinite (v))
    {
      g_string_append (j->out, "null");
      return;
    }
  char buf[32];
  viper_format_double (v, buf);
  g_string_append (j->out, buf);
}

void
viper_json_bool (ViperJson *j, gboolean v)
{
  before_value (j);
  g_string_append (j->out, v ? "true" : "false");
}

void
viper_json_null (ViperJson *j)
{
  before_value (j);
  g_string_append (j->out, "null");
}

void
viper_json_raw (ViperJson *j, const char *text)
{
  before_value (j);
  g_string_append (j->out, text);
}
