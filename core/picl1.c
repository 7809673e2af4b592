/* picl1.c - does a file look like PICL 1?
 *
 * PICL 1 traces (the layout before PICL 2.0) start every record with a small
 * positive record type and have no NDATA/DTYPE: "4 12 345 0 1 100 7" rather
 * than "-3 -21 0.012345 0 0 4 2 100 7 1 0".  Read as PICL 2.0 such lines give
 * a reason each ("NDATA is 100 but 0 data fields follow", "missing field
 * PROCESS") that says nothing about the real problem, or, when the numbers
 * happen to fit, they are accepted as odd trams of unknown types.
 *
 * The test looks at the first VIPER_PICL1_SAMPLE tram lines (not comments or
 * blank lines) and says yes when every one of them
 *   - starts with an integer record type between 1 and 99, and
 *   - has only numbers in its fields,
 * and none of them is a valid PICL 2.0 line that carries data the PICL 2.0
 * way (NDATA >= 1 followed by DTYPE 2 and exactly NDATA integers: PICL 1
 * lines hardly ever fit that by chance), and either at least half of them
 * (at least two lines) are not PICL 2.0 at all, or there are three or more.
 * Native PICL 2.0 starts its records with negative types (-3, -4, -202), and
 * the Viper paradigms, whose record types are small and positive, always
 * carry their sequence number as integer data (NDATA >= 1, DTYPE 2), so
 * neither matches.  A Viper trace with many bad lines is not taken for PICL 1
 * as long as one line of the sample is good: its bad lines are reported one
 * by one and its good ones kept (spec section 1: nothing else is lost).
 */
#include "core/picl1.h"
#include "core/tramparse.h"

#include <string.h>

static gboolean
is_number (const char *w, gsize n)
{
  gsize i = 0;
  if (i < n && (w[i] == '-' || w[i] == '+'))
    i++;
  gboolean digits = FALSE, point = FALSE;
  for (; i < n; i++)
    {
      if (g_ascii_isdigit (w[i]))
        digits = TRUE;
      else if (w[i] == '.' && !point)
        point = TRUE;
      else if ((w[i] == 'e' || w[i] == 'E') && digits && i + 1 < n)
        {
          i++;
          if (w[i] == '-' || w[i] == '+')
            i++;
          if (i >= n)
            return FALSE;
          for (; i < n; i++)
            if (!g_ascii_isdigit (w[i]))
              return FALSE;
          return TRUE;
        }
      else
        return FALSE;
    }
  return digits;
}

/* Small positive record type first, numbers only. */
static gboolean
picl1_shaped (const char *line, gsize len)
{
  const char *p = line, *end = line + len;
  guint field = 0;
  while (TRUE)
    {
      while (p < end && (*p == ' ' || *p == '\t'))
        p++;
      if (p == end)
        break;
      const char *w = p;
      while (p < end && *p != ' ' && *p != '\t')
        p++;
      gsize n = (gsize) (p - w);
      if (!is_number (w, n))
        return FALSE;
      if (field == 0)
        {
          if (n > 2)
            return FALSE;
          for (gsize i = 0; i < n; i++)
            if (!g_ascii_isdigit (w[i]))
              return FALSE;
          int v = n == 1 ? w[0] - '0' : (w[0] - '0') * 10 + (w[1] - '0');
          if (v < 1)
            return FALSE;
        }
      field++;
    }
  return field >= 2;
}

gboolean
viper_picl1_sniff (const char *buf, gsize len)
{
  ViperTramFields *f = viper_tram_fields_new ();
  guint lines = 0, not_picl2 = 0, with_data = 0;
  gboolean shaped = TRUE;
  const char *p = buf, *end = buf + len;
  if (len >= 3 && memcmp (buf, "\xEF\xBB\xBF", 3) == 0)
    p += 3;                           /* a UTF-8 byte order mark, skipped as the reader does */
  while (p < end && lines < VIPER_PICL1_SAMPLE && shaped)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      if (!nl)
        break;                        /* a cut-off last line says nothing */
      gsize n = (gsize) (nl - p);
      if (n && p[n - 1] == '\r')
        n--;
      ViperLineKind kind = viper_tram_scan (p, n, f, NULL);
      if (kind != VIPER_LINE_COMMENT)
        {
          lines++;
          shaped = picl1_shaped (p, n);
          if (kind == VIPER_LINE_BAD)
            not_picl2++;
          else if (f->ndata >= 1 && f->dtype == VIPER_DTYPE_INT)
            with_data++;
        }
      p = nl + 1;
    }
  viper_tram_fields_free (f);
  /* a line or two of unknown trams is not yet a layout */
  return shaped && with_data == 0 && ((lines >= 2 && 2 * not_picl2 >= lines) || lines >= 3);
}
