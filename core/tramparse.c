/* tramparse.c - the hand-written PICL 2.0 line scanner.
 *
 * A fast path (below) reads the common canonical shape of a line; anything
 * else goes to the careful scanner described here, from the line's start.
 *
 * One left-to-right pass over the line, no copies and no allocation (but for
 * a TIME spelled with more than 127 characters, copied for strtod).  Blanks
 * (space, tab) are skipped between fields; each field is parsed in place by a
 * small routine that also checks that the field ends at a blank or at the end
 * of the line, so "12x" is "not an integer" rather than two fields.
 *
 * Digits: a run of digits is read with no overflow checks at all, because
 * up to 18 digits cannot overflow 64 bits; only longer runs are re-read with
 * checks (which is also what lets INT64_MIN, whose magnitude is INT64_MAX + 1,
 * parse).  Fields are mostly one to five digits, so a plain byte loop beats
 * eight-bytes-at-a-time tricks here (measured: 60 against 81 ns a line).
 *
 * TIME: |TIME| > 1e300 is bad input (VIPER_TIME_LIMIT), so that every
 * difference, offset and adjusted time computed from times stays finite.
 * The fast path below never produces such a value (at most 2^53 * 1e22).
 * The grammar is checked by hand while the integer and fraction digits
 * are read as two runs.  When together they have at most 19 digits they form
 * an exact 64-bit mantissa; if that is exact in a double (<= 2^53) and the
 * decimal exponent is within +-22, one IEEE multiplication or division of
 * two exact operands gives the correctly rounded value (Clinger's fast path),
 * which covers every time stamp a tracer prints with %f or %g.  Anything else
 * goes to g_ascii_strtod (locale-independent, correctly rounded).
 *
 * NUL bytes: every byte of a well-formed integer line is consumed by a blank
 * skip or a digit/sign/point/exponent check, so a NUL always lands on an error
 * path; the error path looks for a NUL first and reports it instead.  Only the
 * parts taken without looking at each byte (comments, quoted DTYPE and the
 * words of an uninterpreted format) are searched with memchr explicitly.
 *
 * The exact reason texts are part of the user interface; docs/formats.md
 * lists them and tests/parse asserts them.
 */
#include "core/tramparse.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

typedef enum {
  NUM_OK,
  NUM_SYNTAX,
  NUM_OVERFLOW,
  NUM_RANGE,                /* TIME: finite, but beyond VIPER_TIME_LIMIT */
} NumStatus;

static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

static inline gboolean
is_digit (char c)
{
  return (unsigned) (c - '0') < 10u;
}

static inline const char *
skip_blanks (const char *p, const char *end)
{
  while (p < end && is_blank (*p))
    p++;
  return p;
}

static inline const char *
skip_word (const char *p, const char *end)
{
  while (p < end && !is_blank (*p))
    p++;
  return p;
}

static const guint64 pow10_int[9] = {
  1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
};

/* Consume a run of digits; *v is its value when the run has at most 19
 * digits (it wraps silently beyond: callers check the count). */
static inline gsize
digit_run (const char *p, const char *end, guint64 *v)
{
  const char *start = p;
  guint64 acc = 0;
  for (; p < end && is_digit (*p); p++)
    acc = acc * 10 + (guint64) (*p - '0');
  *v = acc;
  return (gsize) (p - start);
}

/* Caller guarantees *pp < end (the field is present). */
static inline NumStatus
scan_int (const char **pp, const char *end, gint64 *out)
{
  const char *p = *pp;
  gboolean neg = FALSE;

  if (*p == '-')
    {
      neg = TRUE;
      p++;
    }
  else if (*p == '+')
    p++;

  guint64 v;
  gsize n = digit_run (p, end, &v);
  const char *digits = p;
  p += n;
  if (G_UNLIKELY (n == 0 || (p < end && !is_blank (*p))))
    return NUM_SYNTAX;

  if (G_UNLIKELY (n > 18))
    {
      /* up to 18 digits cannot overflow; past that, redo the run with checks */
      const guint64 limit = neg ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;
      v = 0;
      for (const char *q = digits; q < p; q++)
        if (__builtin_mul_overflow (v, 10, &v) || __builtin_add_overflow (v, (guint64) (*q - '0'), &v) || v > limit)
          return NUM_OVERFLOW;
    }

  /* v == 2^63 only when neg: -(v - 1) - 1 reaches INT64_MIN without overflow */
  *out = neg ? (v ? -(gint64) (v - 1) - 1 : 0) : (gint64) v;
  *pp = p;
  return NUM_OK;
}

static inline guint64
pow10_u64 (gsize n)
{
  guint64 r = 1;
  while (n >= 8)
    {
      r *= 100000000u;
      n -= 8;
    }
  return r * pow10_int[n];
}

static const double pow10_exact[23] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The grammar is: [+-] digit+ [ '.' digit+ ] [ (e|E) [+-] digit+ ].
 * "1." and ".5" are rejected: the spec asks for digits, then an optional
 * fraction, and no printf conversion produces either form. */
static NumStatus
scan_time (const char **pp, const char *end, double *out)
{
  const char *start = *pp, *p = start;
  gboolean neg = FALSE;

  if (*p == '-')
    {
      neg = TRUE;
      p++;
    }
  else if (*p == '+')
    p++;

  /* Up to 19 digits (integer and fraction together) give an exact 64-bit
   * mantissa; longer spellings are rare enough to leave to strtod. */
  guint64 ip, fp = 0;
  gsize ni = digit_run (p, end, &ip), nf = 0;
  if (ni == 0)
    return NUM_SYNTAX;
  p += ni;
  if (p < end && *p == '.')
    {
      p++;
      nf = digit_run (p, end, &fp);
      if (nf == 0)
        return NUM_SYNTAX;
      p += nf;
    }
  gboolean slow = ni + nf > 19;
  guint64 m = slow ? 0 : (nf ? ip * pow10_u64 (nf) + fp : ip);
  int e10 = -(int) nf;

  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      gboolean eneg = FALSE;
      if (p < end && (*p == '-' || *p == '+'))
        eneg = *p++ == '-';
      const char *q = p;
      int x = 0;
      for (; p < end && is_digit (*p); p++)
        if (x < 100000)     /* beyond any double's range: strtod decides */
          x = x * 10 + (*p - '0');
      if (p == q)
        return NUM_SYNTAX;
      e10 += eneg ? -x : x;
    }

  if (p < end && !is_blank (*p))
    return NUM_SYNTAX;

  double v;
  if (!slow && m == 0)
    v = 0.0;
  else if (!slow && e10 == 0)
    v = (double) m;           /* one correctly rounded conversion */
  else if (!slow && m <= (G_GUINT64_CONSTANT (1) << 53) && e10 >= -22 && e10 <= 22)
    v = e10 < 0 ? (double) m / pow10_exact[-e10] : (double) m * pow10_exact[e10];
  else
    {
      gsize n = (gsize) (p - start);
      char small[128];
      char *buf = n < sizeof small ? small : g_malloc (n + 1);
      memcpy (buf, start, n);
      buf[n] = '\0';
      v = g_ascii_strtod (buf, NULL);
      if (buf != small)
        g_free (buf);
      if (isinf (v))
        return NUM_OVERFLOW;
      if (fabs (v) > VIPER_TIME_LIMIT)
        return NUM_RANGE;
      *out = v;               /* strtod has applied the sign */
      *pp = p;
      return NUM_OK;
    }

  *out = neg ? -v : v;
  *pp = p;
  return NUM_OK;
}

G_GNUC_PRINTF (5, 6) static ViperLineKind
bad (const char *line, gsize len, ViperParseError *err, const char *at, const char *fmt, ...)
{
  if (!err)
    return VIPER_LINE_BAD;
  /* a NUL means the line is not text at all: that is the news, not the field it broke */
  const char *nul = memchr (line, '\0', len);
  if (nul)
    {
      err->column = (guint) (nul - line) + 1;
      g_strlcpy (err->reason, "line contains a NUL byte", sizeof err->reason);
      return VIPER_LINE_BAD;
    }
  err->column = (guint) (at - line) + 1;
  va_list ap;
  va_start (ap, fmt);
  g_vsnprintf (err->reason, sizeof err->reason, fmt, ap);
  va_end (ap);
  return VIPER_LINE_BAD;
}

static ViperLineKind
int_error (const char *line, gsize len, ViperParseError *err, const char *at, NumStatus st, const char *name)
{
  return st == NUM_OVERFLOW ? bad (line, len, err, at, "%s overflows 64 bits", name)
                            : bad (line, len, err, at, "%s is not an integer", name);
}

static ViperLineKind
count_error (const char *line, gsize len, ViperParseError *err, const char *at, gint64 ndata, guint64 count)
{
  return bad (line, len, err, at, "NDATA is %" G_GINT64_FORMAT " but %" G_GUINT64_FORMAT " data field%s follow%s",
              ndata, count, count == 1 ? "" : "s", count == 1 ? "s" : "");
}

#define INT_FIELD(name, dst)                                                   \
  G_STMT_START                                                                 \
  {                                                                            \
    p = skip_blanks (p, end);                                                  \
    if (G_UNLIKELY (p == end))                                                 \
      return bad (line, len, err, end, "missing field " name);                \
    const char *at_ = p;                                                       \
    NumStatus st_ = scan_int (&p, end, (dst));                                 \
    if (G_UNLIKELY (st_ != NUM_OK))                                            \
      return int_error (line, len, err, at_, st_, name);                       \
  }                                                                            \
  G_STMT_END

/* ---- the fast path ----------------------------------------------------------
 *
 * Nearly every line a tracer writes has one shape: fields separated by one
 * space, integers without '+' or leading zeros, a TIME of plain digits with
 * an optional fraction and no exponent, DTYPE 2.  That shape is also exactly
 * the canonical one (is_canonical below), whose text is not stored.  The fast
 * path reads only that shape, with one test per byte and no separate
 * canonical check; at the first byte that does not fit it gives up, and the
 * careful scanner reads the line from its start, so every accepted line gets
 * the same fields and every bad line the same column and reason as without
 * it (tests/parse/test-scan.c and the scan fuzzer compare the two on every
 * line).  The read-ahead thread has it write the tram image straight into its
 * batch (viper_tram_scan_image), with no ViperTramFields in between.
 * Issue 11, callgrind on the first 200,000 lines of the interleaved PICL
 * trace: 811 instructions a line for the scan alone before, about 370 now
 * for scan and image together (1,180 before).  Fields have one to four
 * digits, so integers are read a byte at a time, the first two without a
 * loop; only a TIME's fraction of eight digits or more is read eight bytes
 * at once. */

/* The fast path reads up to a stop byte: the line must be followed by a
 * byte that ends a field and cannot start or continue one (not a digit, '-',
 * '.' or space: the splitter's '\n', or the '\r' of a CRLF), so that no loop
 * needs to look for the end of the line.  Every field stops at a space or at
 * the stop byte, so nothing beyond it is read.
 *
 * A canonical integer: ['-'] digits, no leading zero, not "-0", at most 18
 * digits.  *pp is left on the byte after it. */
static inline __attribute__ ((always_inline)) gboolean
fast_digits (const char **pp, guint64 *out)
{
  const char *p = *pp;
  /* most fields have one or two digits: those without a loop (a digit is
   * never the stop byte, so the byte after one may be read) */
  guint64 v = (guint) (guchar) p[0] - '0';
  if (G_UNLIKELY (v > 9))
    return FALSE;
  guint d = (guint) (guchar) p[1] - '0';
  if (d > 9)
    p += 1;
  else
    {
      if (G_UNLIKELY (v == 0))
        return FALSE;               /* "05" */
      v = v * 10 + d;
      const char *digits = p;
      p += 2;
      while ((d = (guint) (guchar) *p - '0') <= 9)
        {
          v = v * 10 + d;
          p++;
        }
      if (G_UNLIKELY (p - digits > 18))
        return FALSE;               /* 19 digits or more: checked for overflow by the careful scanner */
    }
  *out = v;
  *pp = p;
  return TRUE;
}

static inline __attribute__ ((always_inline)) gboolean
fast_int (const char **pp, gint64 *out)
{
  guint64 v;
  if (**pp != '-')
    {
      if (!fast_digits (pp, &v))
        return FALSE;
      *out = (gint64) v;
      return TRUE;
    }
  const char *p = *pp + 1;
  if (!fast_digits (&p, &v) || v == 0)
    return FALSE;                   /* "-0" too */
  *out = -(gint64) v;
  *pp = p;
  return TRUE;
}

/* Eight ASCII bytes that are all digits, the first the most significant:
 * their value in *x, TRUE.  Else FALSE.  (Little-endian hosts; elsewhere
 * always FALSE, and the byte loop does the work.) */
static inline gboolean
swar_8_digits (guint64 *x)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  guint64 v = *x;
  /* every byte 0x30..0x39: high nibble 3, and adding 6 does not carry out of the low one */
  if ((((v & G_GUINT64_CONSTANT (0xF0F0F0F0F0F0F0F0))
        | (((v + G_GUINT64_CONSTANT (0x0606060606060606)) & G_GUINT64_CONSTANT (0xF0F0F0F0F0F0F0F0)) >> 4))
       != G_GUINT64_CONSTANT (0x3333333333333333)))
    return FALSE;
  v -= G_GUINT64_CONSTANT (0x3030303030303030);
  v = (v * 10 + (v >> 8)) & G_GUINT64_CONSTANT (0x00FF00FF00FF00FF);
  v = (v * 100 + (v >> 16)) & G_GUINT64_CONSTANT (0x0000FFFF0000FFFF);
  v = (v * 10000 + (v >> 32)) & G_GUINT64_CONSTANT (0x00000000FFFFFFFF);
  *x = v;
  return TRUE;
#else
  (void) x;
  return FALSE;
#endif
}

/* A TIME of ['-'] digits ['.' digits] that Clinger's fast path converts, as
 * scan_time would (the same operations in the same order, so the same
 * double). */
static inline __attribute__ ((always_inline)) gboolean
fast_time (const char **pp, const char *end, double *out)
{
  const char *p = *pp;
  gboolean neg = *p == '-';
  p += neg;
  const char *digits = p;
  guint64 ip = 0, fp = 0;
  guint d;
  while ((d = (guint) (guchar) *p - '0') <= 9)
    {
      ip = ip * 10 + d;
      p++;
    }
  gsize ni = (gsize) (p - digits), nf = 0;
  if (*p == '.')
    {
      const char *frac = ++p;
      /* eight digits at a time while eight bytes of the line are left (a
       * TIME is never last): the usual %f or %.9f fraction in one step */
      if (end - p >= 8)
        {
          guint64 x;
          memcpy (&x, p, 8);
          if (swar_8_digits (&x))
            {
              fp = x;
              p += 8;
            }
        }
      while ((d = (guint) (guchar) *p - '0') <= 9)
        {
          fp = fp * 10 + d;
          p++;
        }
      nf = (gsize) (p - frac);
      if (G_UNLIKELY (nf == 0))
        return FALSE;
    }
  if (G_UNLIKELY (ni == 0 || ni + nf > 19))
    return FALSE;
  guint64 m = nf ? ip * pow10_u64 (nf) + fp : ip;
  double v;
  if (m == 0)
    v = 0.0;
  else if (nf == 0)
    v = (double) m;
  else if (G_LIKELY (m <= (G_GUINT64_CONSTANT (1) << 53)))
    v = (double) m / pow10_exact[nf];
  else
    return FALSE;
  *out = neg ? -v : v;
  *pp = p;
  return TRUE;
}

static inline gboolean
fits_32 (gint64 v)
{
  return v >= G_MININT32 && v <= G_MAXINT32;
}

static inline gboolean
stops_fields (char c)
{
  return !(is_digit (c) || c == '-' || c == '.' || c == ' ');
}

typedef struct {
  double time;
  gint64 rec, ev, proc, process, ndata;
  guint32 data_off;
} FastHead;

/* The whole line [line, line + n) in the canonical shape, line[n] a stop
 * byte: h and data[0 .. ndata) filled.  Else FALSE, with h and data in any
 * state (the careful scanner starts again).  data has room for n / 2 + 1
 * values (a field takes two bytes with its space). */
static inline __attribute__ ((always_inline)) gboolean
scan_fast (const char *line, gsize n, FastHead *h, gint64 *data)
{
  const char *p = line, *end = line + n;
#define FIELD(fn, dst) G_STMT_START { if (!fn (&p, (dst)) || *p++ != ' ') return FALSE; } G_STMT_END
  FIELD (fast_int, &h->rec);
  FIELD (fast_int, &h->ev);
  if (!fast_time (&p, end, &h->time) || *p++ != ' ')
    return FALSE;
  FIELD (fast_int, &h->proc);
  FIELD (fast_int, &h->process);
#undef FIELD
  if (!fast_int (&p, &h->ndata) || h->ndata < 0 || !fits_32 (h->rec) || !fits_32 (h->ev)
      || !fits_32 (h->process))
    return FALSE;
  h->data_off = 0;
  if (h->ndata)
    {
      /* " 2", then exactly ndata integers, each behind one space; a space
       * is never the stop byte, so p stays within the line */
      if (G_UNLIKELY (p[0] != ' ' || p[1] != '2'))
        return FALSE;
      h->data_off = (guint32) (p + 1 - line);
      p += 2;
      for (gint64 i = 0; i < h->ndata; i++)
        if (*p++ != ' ' || !fast_int (&p, &data[i]))
          return FALSE;
    }
  return p == end;
}

static inline void
fields_from_head (ViperTramFields *f, const FastHead *h, gsize n)
{
  f->rec = h->rec;
  f->ev = h->ev;
  f->time = h->time;
  f->proc = h->proc;
  f->process = h->process;
  f->len = (guint32) n;
  f->ndata = (guint32) h->ndata;
  f->dtype = VIPER_DTYPE_INT;
  f->data_off = h->data_off;
  f->canon = 1;
}

ViperLineKind
viper_tram_scan (const char *line, gsize len, ViperTramFields *f, ViperParseError *err)
{
  gsize n = len && line[len - 1] == '\r' ? len - 1 : len;
  /* nothing may be read past the line here: a short line is scanned in a
   * copy with a stop byte */
  char copy[256];
  if (G_LIKELY (n < sizeof copy))
    {
      memcpy (copy, line, n);
      copy[n] = '\n';
      FastHead h;
      if (G_LIKELY (scan_fast (copy, n, &h, f->data)))
        {
          fields_from_head (f, &h, n);
          return VIPER_LINE_TRAM;
        }
    }
  return viper_tram_scan_careful (line, len, f, err);
}

gsize
viper_tram_scan_image (const char *line, gsize len, ViperTram *t)
{
  gsize n = len && line[len - 1] == '\r' ? len - 1 : len;
  FastHead h;
  if (G_UNLIKELY (n > VIPER_MAX_LINE || !stops_fields (line[n]))
      || !scan_fast (line, n, &h, (gint64 *) (t + 1)))
    return 0;
  /* every field stored once: a compound literal here became a zeroing
   * `rep stos` of the whole header and then the stores, 15 % of the
   * reading thread on the Farm */
  t->time = h.time;
  t->adjusted = 0;
  t->proc = h.proc;
  t->seq = 0;
  t->next = NULL;
  t->prim = NULL;
  t->waiter_next = NULL;
  t->rec = (gint32) h.rec;
  t->ev = (gint32) h.ev;
  t->process = (gint32) h.process;
  t->raw_len = (guint32) n;
  t->line = 0;
  t->channel = 0;
  t->pool_slab = 0;
  t->ndata = (guint16) h.ndata;
  t->data_off = (guint16) h.data_off;
  t->type = VIPER_TYPE_UNKNOWN;
  t->slot = 0;
  t->dtype = VIPER_DTYPE_INT;
  t->state = VIPER_TRAM_NEW;
  t->waits = 0;
  t->flags = VIPER_TRAM_F_CANON;
  return sizeof (ViperTram) + (gsize) h.ndata * sizeof (gint64);
}

ViperLineKind
viper_tram_scan_careful (const char *line, gsize len, ViperTramFields *f, ViperParseError *err)
{
  if (len && line[len - 1] == '\r')
    len--;
  if (G_UNLIKELY (len > VIPER_MAX_LINE))
    {
      if (err)
        {
          err->column = VIPER_MAX_LINE + 1;
          g_snprintf (err->reason, sizeof err->reason, "line is longer than %d bytes", VIPER_MAX_LINE);
        }
      return VIPER_LINE_BAD;
    }

  const char *p = line, *end = line + len;
  p = skip_blanks (p, end);
  if (p == end)
    return VIPER_LINE_COMMENT;
  if (*p == '#')
    {
      const char *nul = memchr (p, '\0', (gsize) (end - p));
      if (nul)
        return bad (line, len, err, nul, "line contains a NUL byte");
      return VIPER_LINE_COMMENT;
    }

  gint64 rec, ev, proc, process, ndata;
  double time;
  INT_FIELD ("REC", &rec);
  INT_FIELD ("EV", &ev);

  p = skip_blanks (p, end);
  if (G_UNLIKELY (p == end))
    return bad (line, len, err, end, "missing field TIME");
  {
    const char *at = p;
    NumStatus st = scan_time (&p, end, &time);
    if (G_UNLIKELY (st != NUM_OK))
      return st == NUM_OVERFLOW ? bad (line, len, err, at, "TIME overflows a double")
             : st == NUM_RANGE  ? bad (line, len, err, at, "TIME is beyond 1e300 in magnitude")
                                : bad (line, len, err, at, "TIME is not a decimal number");
  }

  INT_FIELD ("PROC", &proc);
  INT_FIELD ("PROCESS", &process);
  const char *ndata_at = skip_blanks (p, end);
  INT_FIELD ("NDATA", &ndata);
  if (G_UNLIKELY (ndata < 0))
    return bad (line, len, err, ndata_at, "NDATA is negative");

  f->rec = rec;
  f->ev = ev;
  f->time = time;
  f->proc = proc;
  f->process = process;
  f->len = (guint32) len;
  f->canon = 0;             /* the fast path would have taken a canonical line, nearly always: look */

  p = skip_blanks (p, end);
  if (ndata == 0)
    {
      if (G_UNLIKELY (p != end))
        return bad (line, len, err, p, "NDATA is 0 but more fields follow");
      f->ndata = 0;
      f->dtype = VIPER_DTYPE_INT;   /* no data: nothing left uninterpreted */
      f->data_off = 0;
      return VIPER_LINE_TRAM;
    }

  if (G_UNLIKELY (p == end))
    return bad (line, len, err, end, "missing field DTYPE");
  const char *dtype_at = p;
  gint32 dtype;
  if (*p == '"')
    {
      /* checked before the quote search so that a NUL wins over "unterminated" */
      const char *nul = memchr (p, '\0', (gsize) (end - p));
      if (nul)
        return bad (line, len, err, nul, "line contains a NUL byte");
      const char *close = memchr (p + 1, '"', (gsize) (end - p - 1));
      if (!close)
        return bad (line, len, err, dtype_at, "unterminated quoted DTYPE");
      p = close + 1;
      if (p < end && !is_blank (*p))
        return bad (line, len, err, dtype_at, "quoted DTYPE is not followed by a blank");
      dtype = VIPER_DTYPE_OTHER;
    }
  else
    {
      gint64 dt;
      NumStatus st = scan_int (&p, end, &dt);
      if (G_UNLIKELY (st == NUM_SYNTAX))
        return bad (line, len, err, dtype_at, "DTYPE is not an integer or a quoted format");
      if (G_UNLIKELY (st == NUM_OVERFLOW))
        return bad (line, len, err, dtype_at, "DTYPE overflows 64 bits");
      dtype = dt == VIPER_DTYPE_INT ? VIPER_DTYPE_INT : VIPER_DTYPE_OTHER;
    }

  guint64 count = 0;
  if (dtype == VIPER_DTYPE_INT)
    {
      gint64 *data = f->data;
      for (; count < (guint64) ndata; count++)
        {
          p = skip_blanks (p, end);
          if (p == end)
            break;
          const char *at = p;
          gint64 v;
          NumStatus st = scan_int (&p, end, &v);
          if (G_UNLIKELY (st != NUM_OK))
            return st == NUM_OVERFLOW
                     ? bad (line, len, err, at, "data field %" G_GUINT64_FORMAT " overflows 64 bits", count + 1)
                     : bad (line, len, err, at, "data field %" G_GUINT64_FORMAT " is not an integer", count + 1);
          /* a line within VIPER_MAX_LINE cannot hold more; the test keeps the bound local */
          if (G_LIKELY (count < VIPER_MAX_DATA))
            data[count] = v;
        }
      p = skip_blanks (p, end);
      if (G_UNLIKELY (p != end))
        {
          /* surplus fields are only counted, whatever they look like */
          const char *extra = p;
          guint64 total = count;
          while (p != end)
            {
              total++;
              p = skip_blanks (skip_word (p, end), end);
            }
          return count_error (line, len, err, extra, ndata, total);
        }
    }
  else
    {
      if (dtype_at[0] != '"')
        {
          const char *nul = memchr (p, '\0', (gsize) (end - p));
          if (nul)
            return bad (line, len, err, nul, "line contains a NUL byte");
        }
      const char *surplus = NULL;
      p = skip_blanks (p, end);
      while (p != end)
        {
          if (count == (guint64) ndata)
            surplus = p;
          count++;
          p = skip_blanks (skip_word (p, end), end);
        }
      if (G_UNLIKELY (surplus))
        return count_error (line, len, err, surplus, ndata, count);
    }

  if (G_UNLIKELY (count < (guint64) ndata))
    return count_error (line, len, err, end, ndata, count);

  f->ndata = (guint32) ndata;
  f->dtype = dtype;
  f->data_off = (guint32) (dtype_at - line);
  return VIPER_LINE_TRAM;
}

/* A whole word [w, we) that is an integer (the scanner's syntax). */
static gboolean
word_int (const char *w, const char *we, gint64 *v)
{
  const char *p = w;
  return w && scan_int (&p, we, v) == NUM_OK && p == we;
}

gboolean
viper_tram_salvage_cut (const char *line, gsize len, gboolean cut, gint64 *proc, gint64 *d1)
{
  *proc = 0;
  *d1 = 0;
  if (!cut && len && line[len - 1] == '\r')
    len--;
  /* only what comes before a NUL byte, and only the first VIPER_MAX_LINE
   * bytes of an over-long line, are read; a word that reaches such a cut may
   * have lost its end, so it is not read either */
  const char *nul = memchr (line, '\0', MIN (len, (gsize) VIPER_MAX_LINE + 1));
  if (nul || len > VIPER_MAX_LINE)
    {
      len = nul ? (gsize) (nul - line) : VIPER_MAX_LINE;
      cut = TRUE;
    }
  /* the first eight words: REC EV TIME PROC PROCESS NDATA DTYPE D1 */
  const char *w[8] = { NULL }, *we[8] = { NULL };
  const char *p = line, *end = line + len;
  for (guint k = 0; k < 8; k++)
    {
      p = skip_blanks (p, end);
      if (p == end)
        break;
      w[k] = p;
      p = we[k] = skip_word (p, end);
      if (cut && p == end)
        {
          w[k] = we[k] = NULL;   /* perhaps the start of a longer word */
          break;
        }
    }
  if (!word_int (w[3], we[3], proc))
    return FALSE;
  /* D1 only behind an integer NDATA of 1 or more and DTYPE 2: after a quoted
   * DTYPE the words no longer say where the data fields start */
  gint64 ndata, dtype, v;
  if (word_int (w[5], we[5], &ndata) && ndata >= 1 && word_int (w[6], we[6], &dtype) && dtype == VIPER_DTYPE_INT
      && word_int (w[7], we[7], &v))
    *d1 = v;
  return TRUE;
}

gboolean
viper_tram_salvage (const char *line, gsize len, gint64 *proc, gint64 *d1)
{
  return viper_tram_salvage_cut (line, len, FALSE, proc, d1);
}

ViperNumberStatus
viper_parse_number (const char *text, double *out)
{
  char *end = NULL;
  /* decimal only, as TIME (spec section 1): strtod would read hex too, and
   * skip leading blanks first (' 0x10' was 16) */
  if (g_ascii_isspace (text[0]))
    return VIPER_NUMBER_SYNTAX;
  const char *digits = text + (text[0] == '-' || text[0] == '+');
  if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
    return VIPER_NUMBER_SYNTAX;
  double v = g_ascii_strtod (text, &end);
  if (!text[0] || *end || isnan (v))
    return VIPER_NUMBER_SYNTAX;
  if (isinf (v))
    return VIPER_NUMBER_RANGE;   /* "inf", or an overflow; an underflow is a tiny v (or 0) */
  *out = v;
  return VIPER_NUMBER_OK;
}

ViperTramFields *
viper_tram_fields_new (void)
{
  ViperTramFields *f = g_new0 (ViperTramFields, 1);
  f->data = g_new (gint64, VIPER_MAX_DATA);
  return f;
}

void
viper_tram_fields_free (ViperTramFields *f)
{
  if (!f)
    return;
  g_free (f->data);
  g_free (f);
}

/* Defined in tram.c: a tram whose header is zeroed but whose body is not,
 * because from_fields overwrites all of it anyway. */
ViperTram *viper_tram_pool_alloc_uninit (ViperTramPool *pool, guint32 ndata_ints, guint32 raw_len);
ViperTram *viper_tram_pool_alloc_canon_uninit (ViperTramPool *pool, guint32 ndata_ints);

/* Characters in the canonical spelling of v ("-" and digits). */
static inline guint
int_width (gint64 v)
{
  guint64 u = v < 0 ? 0 - (guint64) v : (guint64) v;
  guint w = v < 0;
  if (u < 10)
    return w + 1;
  if (u < 100)
    return w + 2;
  if (u < 1000)
    return w + 3;
  if (u < 10000)
    return w + 4;
  for (w += 4, u /= 10000; u; u /= 10)
    w++;
  return w;
}

/* Is the line exactly what print_from_fields() would write (single spaces, no
 * '+', no leading zeros, DTYPE 2)?  Then its text need not be stored.  The
 * scanner has validated every token, so it is enough that each integer's
 * text is as long as its canonical spelling and a single space stands where
 * the canonical line has one: any '+', leading zero, "-0", extra blank or tab
 * moves a separator.  TIME is exempt: it is printed as the shortest text that
 * reads back the same double, which is the same number. */
static gboolean
is_canonical (const char *line, const ViperTramFields *f)
{
  if (f->dtype != VIPER_DTYPE_INT)
    return FALSE;
  const gsize len = f->len;
  gsize pos = int_width (f->rec);
#define SEP() G_STMT_START { if (pos >= len || line[pos] != ' ') return FALSE; pos++; } G_STMT_END
  SEP ();
  pos += int_width (f->ev);
  SEP ();
  const char *t = line + pos;
  const char *stop = memchr (t, ' ', len - pos);
  if (!stop)
    return FALSE;
  for (; t < stop; t++)
    if (*t == '\t')
      return FALSE;
  pos = (gsize) (stop - line);
  SEP ();
  pos += int_width (f->proc);
  SEP ();
  pos += int_width (f->process);
  SEP ();
  pos += int_width (f->ndata);
  if (f->ndata == 0)
    return pos == len;
  SEP ();
  if (pos >= len || line[pos] != '2')
    return FALSE;
  pos++;
  for (guint32 i = 0; i < f->ndata; i++)
    {
      SEP ();
      pos += int_width (f->data[i]);
    }
#undef SEP
  return pos == len;
}

gsize
viper_tram_image_prepare (const ViperTramFields *f, const char *line, guint32 *nints, guint32 *text_len,
                          guint8 *flags)
{
  if (G_LIKELY (f->canon))
    {
      /* the fast path read it: DTYPE 2, narrow, canonical */
      *nints = f->ndata;
      *text_len = 0;
      *flags = VIPER_TRAM_F_CANON;
      return sizeof (ViperTram) + (gsize) f->ndata * sizeof (gint64);
    }
  *nints = f->dtype == VIPER_DTYPE_INT ? f->ndata : 0;
  gboolean wide = f->rec < G_MININT32 || f->rec > G_MAXINT32 || f->ev < G_MININT32 || f->ev > G_MAXINT32
                  || f->process < G_MININT32 || f->process > G_MAXINT32;
  gboolean canon = !wide && is_canonical (line, f);
  *text_len = canon ? 0 : f->len;
  *flags = (guint8) ((canon ? VIPER_TRAM_F_CANON : 0) | (wide ? VIPER_TRAM_F_WIDE : 0));
  return sizeof (ViperTram) + (gsize) *nints * sizeof (gint64) + (canon ? 0 : (gsize) f->len + 1);
}

void
viper_tram_image_write (ViperTram *t, const ViperTramFields *f, const char *line, guint32 nints, guint8 flags)
{
  t->time = f->time;
  t->rec = (gint32) CLAMP (f->rec, G_MININT32, G_MAXINT32);
  t->ev = (gint32) CLAMP (f->ev, G_MININT32, G_MAXINT32);
  t->proc = f->proc;
  t->process = (gint32) CLAMP (f->process, G_MININT32, G_MAXINT32);
  t->ndata = (guint16) f->ndata;
  t->dtype = (gint8) f->dtype;
  t->raw_len = f->len;
  t->data_off = (guint16) f->data_off;
  t->type = VIPER_TYPE_UNKNOWN;
  t->flags = flags;
  gint64 *data = (gint64 *) (t + 1);
  if (nints)
    memcpy (data, f->data, nints * sizeof (gint64));
  if (!(flags & VIPER_TRAM_F_CANON))
    {
      char *raw = (char *) (data + nints);
      memcpy (raw, line, f->len);
      raw[f->len] = '\0';
    }
}

ViperTram *
viper_tram_from_fields (ViperTramPool *pool, const ViperTramFields *f, const char *line)
{
  guint32 nints, text;
  guint8 flags;
  viper_tram_image_prepare (f, line, &nints, &text, &flags);
  ViperTram *t = (flags & VIPER_TRAM_F_CANON) ? viper_tram_pool_alloc_canon_uninit (pool, nints)
                                               : viper_tram_pool_alloc_uninit (pool, nints, text);
  viper_tram_image_write (t, f, line, nints, flags);
  return t;
}

ViperTram *
viper_tram_parse (ViperTramPool *pool, ViperTramFields *scratch, const char *line, gsize len, ViperLineKind *kind,
                  ViperParseError *err)
{
  ViperLineKind k = viper_tram_scan (line, len, scratch, err);
  if (kind)
    *kind = k;
  return k == VIPER_LINE_TRAM ? viper_tram_from_fields (pool, scratch, line) : NULL;
}
