/* switchnet-lines.c - the keyword-line reader of the switchnet files
 * (switchnet-lines.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "switchnet.h"
#include "switchnet-lines.h"
#include <stdio.h>



/* Split one line into fields; stops at '#'.  Returns the count (at most
 * MAX_FIELDS; *more set when there were more). */
guint
swn_split_fields (const char *line, gsize len, Field *f, gboolean *more)
{
  guint n = 0;
  gsize i = 0;
  *more = FALSE;
  while (i < len)
    {
      while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
      if (i >= len || line[i] == '#')
        break;
      gsize st = i;
      while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
        i++;
      if (n == MAX_FIELDS)
        {
          *more = TRUE;
          break;
        }
      f[n].s = line + st;
      f[n].len = (guint) (i - st);
      f[n].col = (guint) st + 1;
      n++;
    }
  return n;
}

gboolean
swn_field_is (const Field *f, const char *word)
{
  return strlen (word) == f->len && memcmp (f->s, word, f->len) == 0;
}

char *
swn_field_dup (const Field *f)
{
  return g_strndup (f->s, f->len);
}

gboolean
swn_field_int (const Field *f, gint64 lo, gint64 hi, gint64 *out)
{
  char buf[32];
  if (f->len == 0 || f->len >= sizeof buf)
    return FALSE;
  memcpy (buf, f->s, f->len);
  buf[f->len] = 0;
  char *end;
  errno = 0;
  long long v = strtoll (buf, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return FALSE;
  *out = v;
  return TRUE;
}

gboolean
swn_field_double (const Field *f, double lo, double hi, double *out)
{
  char buf[64];
  if (f->len == 0 || f->len >= sizeof buf)
    return FALSE;
  memcpy (buf, f->s, f->len);
  buf[f->len] = 0;
  char *end;
  double v = g_ascii_strtod (buf, &end);
  if (*end || !(v >= lo && v <= hi))
    return FALSE;
  *out = v;
  return TRUE;
}


gboolean
swn_fail (Ctx *c, guint col, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (c->error, SWN_ERROR, 0, "%s:%u:%u: %s", c->name, c->line, col, msg);
  g_free (msg);
  return FALSE;
}

/* Walk the lines of text: calls fn for each line that has fields. */

gboolean
swn_each_line (const char *text, gsize len, const char *name, GError **error, LineFn fn, gpointer data)
{
  Ctx c = { name, 0, error };
  gsize i = 0;
  Field f[MAX_FIELDS];
  while (i < len)
    {
      gsize st = i;
      while (i < len && text[i] != '\n')
        i++;
      c.line++;
      if (memchr (text + st, 0, i - st))
        return swn_fail (&c, (guint) ((const char *) memchr (text + st, 0, i - st) - (text + st)) + 1,
                     "line contains a NUL byte");
      gboolean more;
      guint n = swn_split_fields (text + st, i - st, f, &more);
      if (more)
        return swn_fail (&c, f[MAX_FIELDS - 1].col, "more than %d fields", MAX_FIELDS);
      if (n && !fn (&c, f, n, data))
        return FALSE;
      i++;
    }
  return TRUE;
}


gboolean
swn_want (Ctx *c, Field *f, guint n, guint need, const char *what)
{
  if (n - 1 < need)
    return swn_fail (c, f[n - 1].col + f[n - 1].len, "%.*s needs %s", (int) f[0].len, f[0].s, what);
  if (n - 1 > need)
    return swn_fail (c, f[need + 1].col, "%.*s takes %s, not more", (int) f[0].len, f[0].s, what);
  return TRUE;
}

gboolean
swn_read_file (const char *path, char **text, gsize *len, GError **error)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", path, g_strerror (e));
      return FALSE;
    }
  GString *s = g_string_new (NULL);
  char buf[65536];
  size_t n;
  while ((n = fread (buf, 1, sizeof buf, f)) > 0)
    g_string_append_len (s, buf, (gssize) n);
  int e = ferror (f) ? errno : 0;
  fclose (f);
  if (e)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", path, g_strerror (e));
      g_string_free (s, TRUE);
      return FALSE;
    }
  *len = s->len;
  *text = g_string_free (s, FALSE);
  return TRUE;
}
