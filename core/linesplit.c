/* linesplit.c - cutting a byte stream into lines, in bounded memory.
 *
 * A line that lies entirely inside the chunk being fed is handed to on_line
 * straight from the caller's bytes (memchr finds the '\n'): in a large
 * buffered read that is every line but the one straddling the chunk end, so
 * the common path copies nothing.  Only that straddling line is copied into
 * the splitter's buffer, and the buffer never grows beyond VIPER_MAX_LINE + 2
 * bytes (a maximal line plus the '\r' of a CRLF end, which is kept for the
 * scanner to ignore and so is not counted against the limit, plus a '\n'
 * written behind the line: every line handed out is followed by a '\n',
 * which lets the scanner read its fields without checking for the end).
 *
 * As soon as a line can no longer fit, it is reported once and the splitter
 * switches to discarding bytes until the next '\n': a peer that sends a
 * gigabyte without a newline costs one message and no memory.  Line numbers
 * count every line, delivered or reported, from 1.  A UTF-8 byte order mark
 * at the very start of the stream (of a file or a connection) is skipped.
 */
#include "core/tramparse.h"

#include <string.h>

struct _ViperLineSplitter {
  ViperLineFunc on_line;
  ViperLineErrorFunc on_error;
  gpointer user_data;
  char *buf;                /* the pending partial line */
  gsize buf_len, buf_cap;
  guint64 lineno;           /* number of the line being assembled */
  gboolean discarding;      /* inside a reported over-long line */
  guint bom;                /* bytes of a UTF-8 byte order mark matched at the stream's start; BOM_DONE after */
};

/* A UTF-8 byte order mark at the very start of a stream (an editor's) is
 * skipped: it is no part of line 1. */
static const char bom_bytes[3] = { '\xEF', '\xBB', '\xBF' };
#define BOM_DONE 3u

ViperLineSplitter *
viper_line_splitter_new (ViperLineFunc on_line, ViperLineErrorFunc on_error, gpointer user_data)
{
  ViperLineSplitter *s = g_new0 (ViperLineSplitter, 1);
  s->on_line = on_line;
  s->on_error = on_error;
  s->user_data = user_data;
  s->lineno = 1;
  return s;
}

void
viper_line_splitter_free (ViperLineSplitter *s)
{
  if (!s)
    return;
  g_free (s->buf);
  g_free (s);
}

/* Whether a line (or the start of one) of len bytes ending in last can still
 * be accepted: the '\r' of a CRLF may be the 65,537th byte. */
static inline gboolean
fits (gsize len, char last)
{
  return len <= VIPER_MAX_LINE || (len == VIPER_MAX_LINE + 1 && last == '\r');
}

/* head: the line's first bytes, as far as they are at hand (its PROC and
 * sequence number may still be read from them: spec section 1). */
static void
too_long (ViperLineSplitter *s, const char *head, gsize head_len)
{
  if (s->on_error)
    s->on_error (s->lineno, VIPER_MAX_LINE + 1, "line is longer than 65536 bytes", head,
                 MIN (head_len, (gsize) VIPER_MAX_LINE + 1), s->user_data);
}

static void
append (ViperLineSplitter *s, const char *p, gsize n)
{
  gsize need = s->buf_len + n;
  if (need + 1 > s->buf_cap)
    {
      /* one byte more than the line: the '\n' written behind it for on_line */
      gsize cap = s->buf_cap ? s->buf_cap : 256;
      while (cap < need + 1)
        cap *= 2;
      s->buf_cap = MIN (cap, (gsize) VIPER_MAX_LINE + 2);
      s->buf = g_realloc (s->buf, s->buf_cap);
    }
  memcpy (s->buf + s->buf_len, p, n);
  s->buf_len = need;
}

static void feed_lines (ViperLineSplitter *s, const char *data, gsize len);

void
viper_line_splitter_feed (ViperLineSplitter *s, const char *data, gsize len)
{
  if (G_UNLIKELY (s->bom < BOM_DONE))
    {
      while (len && s->bom < BOM_DONE && data[0] == bom_bytes[s->bom])
        {
          s->bom++;
          data++;
          len--;
        }
      if (s->bom < BOM_DONE)
        {
          if (!len)
            return;             /* the mark may go on in the next chunk */
          /* no mark: the bytes that looked like its start belong to line 1 */
          guint k = s->bom;
          s->bom = BOM_DONE;
          feed_lines (s, bom_bytes, k);
        }
    }
  feed_lines (s, data, len);
}

static void
feed_lines (ViperLineSplitter *s, const char *data, gsize len)
{
  const char *p = data, *end = data + len;

  while (p < end)
    {
      if (G_UNLIKELY (s->discarding))
        {
          const char *nl = memchr (p, '\n', (gsize) (end - p));
          if (!nl)
            return;
          p = nl + 1;
          s->discarding = FALSE;
          s->lineno++;
          continue;
        }

      const char *nl = memchr (p, '\n', (gsize) (end - p));
      gsize n = (gsize) ((nl ? nl : end) - p);

      if (s->buf_len)
        {
          /* completing (or extending) the line left over from the last chunk */
          char last = n ? p[n - 1] : s->buf[s->buf_len - 1];
          if (!fits (s->buf_len + n, last))
            {
              /* the head is the buffered start, filled up from this chunk */
              append (s, p, MIN (n, (gsize) VIPER_MAX_LINE + 1 - s->buf_len));
              too_long (s, s->buf, s->buf_len);
              s->buf_len = 0;
              s->discarding = TRUE;
              continue;       /* the discarding branch finds the same '\n' */
            }
          append (s, p, n);
          if (!nl)
            return;
          s->buf[s->buf_len] = '\n';
          s->on_line (s->buf, s->buf_len, s->lineno, s->user_data);
          s->buf_len = 0;
          s->lineno++;
          p = nl + 1;
          continue;
        }

      if (!nl)
        {
          if (!fits (n, p[n - 1]))
            {
              too_long (s, p, n);
              s->discarding = TRUE;
              return;
            }
          append (s, p, n);
          return;
        }

      if (G_LIKELY (fits (n, n ? p[n - 1] : '\0')))
        s->on_line (p, n, s->lineno, s->user_data);
      else
        too_long (s, p, n);
      s->lineno++;
      p = nl + 1;
    }
}

void
viper_line_splitter_finish (ViperLineSplitter *s, gboolean partial_is_line)
{
  viper_line_splitter_finish_cut (s, partial_is_line, "connection closed in the middle of a line");
}

void
viper_line_splitter_finish_cut (ViperLineSplitter *s, gboolean partial_is_line, const char *cut_reason)
{
  if (G_UNLIKELY (s->bom && s->bom < BOM_DONE))
    {
      /* the stream ended inside what looked like a mark: it was text */
      guint k = s->bom;
      s->bom = BOM_DONE;
      feed_lines (s, bom_bytes, k);
    }
  if (s->discarding)
    {
      /* already reported as too long: one message per line */
      s->discarding = FALSE;
      s->lineno++;
      return;
    }
  if (!s->buf_len)
    return;
  if (partial_is_line)
    {
      s->buf[s->buf_len] = '\n';
      s->on_line (s->buf, s->buf_len, s->lineno, s->user_data);
    }
  else if (s->on_error)
    s->on_error (s->lineno, (guint) s->buf_len + 1, cut_reason, s->buf, s->buf_len, s->user_data);
  s->buf_len = 0;
  s->lineno++;
}

void
viper_line_splitter_reset (ViperLineSplitter *s)
{
  s->buf_len = 0;
  s->discarding = FALSE;
  s->lineno = 1;
  s->bom = 0;
}

guint64
viper_line_splitter_lines (const ViperLineSplitter *s)
{
  return s->lineno - 1;
}
