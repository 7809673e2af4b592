/* tramref.c - a tram the user names to stop at (core/tramref.h). */
#include <string.h>
#include "core/tramref.h"
#include <glib/gstdio.h>

/* ---- naming a tram (--until-tram, the Breakpoint dialog) ----------------- */

/* A whole string of decimal digits with an optional '-' as a gint64. */
static gboolean
parse_int64 (const char *text, gsize len, gint64 *out)
{
  if (len == 0 || len > 24)
    return FALSE;
  char buf[32];
  memcpy (buf, text, len);
  buf[len] = '\0';
  for (gsize i = buf[0] == '-' ? 1 : 0; i < len; i++)
    if (!g_ascii_isdigit (buf[i]))
      return FALSE;
  return g_ascii_string_to_signed (buf, 10, G_MININT64, G_MAXINT64, out, NULL);
}

gboolean
viper_tram_ref_parse (const char *text, ViperTramRef *out, char **why)
{
  memset (out, 0, sizeof *out);
  const char *colon = strrchr (text, ':');
  if (!colon || colon == text || !colon[1])
    {
      *why = g_strdup_printf ("'%s' does not name a tram: give PROC:SEQ (such as 2:14) or FILE:LINE "
                              "(such as run.trc:120)", text);
      return FALSE;
    }
  gint64 right;
  gboolean right_ok = parse_int64 (colon + 1, strlen (colon + 1), &right);
  gint64 proc;
  if (parse_int64 (text, (gsize) (colon - text), &proc))
    {
      if (!right_ok || right < 1)
        {
          *why = g_strdup_printf ("'%s': the sequence number must be a whole number from 1", text);
          return FALSE;
        }
      out->proc = proc;
      out->seq = right;
      return TRUE;
    }
  if (!right_ok || right < 1 || right > (gint64) G_MAXUINT32)
    {
      *why = g_strdup_printf ("'%s': the line number must be a whole number from 1 to %u", text, G_MAXUINT32);
      return FALSE;
    }
  out->file = g_strndup (text, (gsize) (colon - text));
  out->line = (guint64) right;
  return TRUE;
}

void
viper_tram_ref_clear (ViperTramRef *r)
{
  g_free (r->file);
  memset (r, 0, sizeof *r);
}

void
viper_tram_ref_copy (ViperTramRef *dst, const ViperTramRef *src)
{
  char *f = g_strdup (src->file);
  g_free (dst->file);
  *dst = *src;
  dst->file = f;
}

char *
viper_tram_ref_format (const ViperTramRef *r)
{
  if (r->file)
    return g_strdup_printf ("%s:%" G_GUINT64_FORMAT, r->file, r->line);
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, r->proc, r->seq);
}

char *
viper_tram_ref_describe (const ViperTramRef *r)
{
  if (r->file)
    return g_strdup_printf ("the tram of line %" G_GUINT64_FORMAT " of %s", r->line, r->file);
  return g_strdup_printf ("seq %" G_GINT64_FORMAT " of proc %" G_GINT64_FORMAT, r->seq, r->proc);
}

gboolean
viper_tram_ref_matches (const ViperTramRef *r, const ViperTram *t, const char *channel)
{
  if (!r->file)
    return t->proc == r->proc && t->seq == r->seq;
  if (t->line != r->line || !channel)
    return FALSE;
  return viper_tram_ref_names_trace (r, channel);
}

gboolean
viper_tram_ref_names_trace (const ViperTramRef *r, const char *name)
{
  if (!r->file || !name)
    return FALSE;
  if (strcmp (name, r->file) == 0)
    return TRUE;
  /* the same path written another way (./3 for 3, a/../b, absolute) */
  char *a = g_canonicalize_filename (r->file, NULL), *b = g_canonicalize_filename (name, NULL);
  gboolean same = strcmp (a, b) == 0;
  g_free (a);
  g_free (b);
  if (same)
    return TRUE;
  /* or the same file by another path (a link) */
  GStatBuf sa, sb;
  if (g_stat (r->file, &sa) == 0 && g_stat (name, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
    return TRUE;
  /* a base name names the trace of that name */
  if (strchr (r->file, '/'))
    return FALSE;
  const char *base = strrchr (name, '/');
  return base && strcmp (base + 1, r->file) == 0;
}
