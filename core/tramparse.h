/* tramparse.h - the hand-written PICL 2.0 line scanner (spec picl.md section 1).
 *
 * viper_tram_scan() classifies one line (without its '\n'; a trailing '\r' is
 * allowed and ignored) as a tram, a comment/blank line, or bad input with the
 * 1-based byte column and a reason.  It does not allocate: the fields go into
 * a caller-owned ViperTramFields whose data array holds VIPER_MAX_DATA values.
 * viper_tram_from_fields() then copies the line into a pooled tram.
 */
#pragma once

#include "tram.h"

G_BEGIN_DECLS

/* Largest |TIME| accepted (spec section 1): differences of two times, and
 * offsets built from them, then stay finite doubles. */
#define VIPER_TIME_LIMIT 1e300

/* A 65,536-byte line holds at most this many data fields. */
#define VIPER_MAX_DATA (VIPER_MAX_LINE / 2 + 1)

typedef enum {
  VIPER_LINE_TRAM,
  VIPER_LINE_COMMENT,       /* blank, or first non-blank character is '#' */
  VIPER_LINE_BAD,
} ViperLineKind;

typedef struct {
  guint column;             /* 1-based byte column of the offending field or character */
  char reason[160];         /* e.g. "NDATA is 4 but 3 data fields follow" */
} ViperParseError;

typedef struct {
  double time;
  gint64 rec, ev, proc, process;
  guint32 ndata;
  gint32 dtype;             /* VIPER_DTYPE_INT or VIPER_DTYPE_OTHER */
  guint32 data_off;         /* offset of DTYPE in the line */
  guint32 len;              /* line length without '\r' */
  guint8 canon;             /* 1: the scanner saw the line is canonical (viper_tram_image_prepare
                               need not look); 0: not known */
  gint64 *data;             /* VIPER_MAX_DATA entries, owned by the caller */
} ViperTramFields;

ViperTramFields *viper_tram_fields_new (void);
void viper_tram_fields_free (ViperTramFields *f);

ViperLineKind viper_tram_scan (const char *line, gsize len, ViperTramFields *f, ViperParseError *err);
/* For a line that the line splitter handed out (line[len] is its '\n'):
 * when it is in the common canonical shape, scanned straight into a tram
 * image at t (what viper_tram_image_write would write, header zeroed but
 * for the fields of the line; line and pool_slab are the caller's), which
 * has room for sizeof (ViperTram) + (len / 2 + 1) * sizeof (gint64) bytes.
 * Returns the image's size, or 0 for any other line: scan that one with
 * viper_tram_scan, which gives its fields, comment or error. */
gsize viper_tram_scan_image (const char *line, gsize len, ViperTram *t);
/* The same without its fast path for canonical lines: the same answer,
 * fields and error, only slower.  For tests that compare the two. */
ViperLineKind viper_tram_scan_careful (const char *line, gsize len, ViperTramFields *f, ViperParseError *err);
ViperTram *viper_tram_from_fields (ViperTramPool *pool, const ViperTramFields *f, const char *line);
/* What can still be read of a bad line (spec section 1: a rejected line does
 * not strand its module): its PROC (the fourth word, an integer), and D1 (the
 * eighth, when NDATA is an integer of 1 or more and DTYPE is 2), 0 when it
 * cannot be read.  FALSE when not even PROC can.  Of a line with a NUL byte
 * only the words before the NUL are read, of an over-long line only those in
 * its first VIPER_MAX_LINE bytes; a word that runs into the NUL or that limit
 * is not read. */
gboolean viper_tram_salvage (const char *line, gsize len, gint64 *proc, gint64 *d1);
/* The same for the first len bytes of a line that goes on beyond them (cut:
 * an over-long line's start, a line cut off at close): the word that reaches
 * len may be cut short, so it is not read.  With cut FALSE, the same as
 * viper_tram_salvage. */
gboolean viper_tram_salvage_cut (const char *line, gsize len, gboolean cut, gint64 *proc, gint64 *d1);

/* A whole string (an option's or a dialog's value) as a finite double,
 * locale-independent and decimal: SYNTAX when it is no number ("", "abc",
 * "nan", "1x", hexadecimal "0x10"),
 * RANGE when it is beyond a double ("1e400", "inf"); an underflow ("1e-400")
 * is as near 0 as a double gets. */
typedef enum { VIPER_NUMBER_OK, VIPER_NUMBER_SYNTAX, VIPER_NUMBER_RANGE } ViperNumberStatus;
ViperNumberStatus viper_parse_number (const char *text, double *out);
/* from_fields in two steps, for trams built outside a pool (readahead.c): the
 * size of the tram's block and what goes in it; then writing it into a block
 * whose header is zeroed.  The result is a tram to viper_tram_copy. */
gsize viper_tram_image_prepare (const ViperTramFields *f, const char *line, guint32 *nints, guint32 *text_len,
                                guint8 *flags);
void viper_tram_image_write (ViperTram *t, const ViperTramFields *f, const char *line, guint32 nints,
                             guint8 flags);

/* Scan and allocate in one go; returns NULL for comments and bad lines (kind says which). */
ViperTram *viper_tram_parse (ViperTramPool *pool, ViperTramFields *scratch, const char *line, gsize len,
                             ViperLineKind *kind, ViperParseError *err);

/* ---- splitting a byte stream into lines ---------------------------------- */

/* Splits bytes into lines across chunk boundaries.  Lines longer than
 * VIPER_MAX_LINE are reported (once, with their line number) and skipped up to
 * their '\n' without buffering them: memory stays bounded by VIPER_MAX_LINE. */
typedef struct _ViperLineSplitter ViperLineSplitter;

/* line: without '\n' (a '\r' may remain: the scanner ignores it); line[len]
 * is a '\n' that may be read (viper_tram_scan_image wants it). */
typedef void (*ViperLineFunc) (const char *line, gsize len, guint64 lineno, gpointer user_data);
/* A line that could not be delivered (too long, or cut off at close).  head
 * holds the first head_len bytes of it, as far as they were seen (at most
 * VIPER_MAX_LINE + 1; the line went on beyond them: viper_tram_salvage_cut
 * reads what it can of them), valid only during the call. */
typedef void (*ViperLineErrorFunc) (guint64 lineno, guint column, const char *reason, const char *head,
                                    gsize head_len, gpointer user_data);

ViperLineSplitter *viper_line_splitter_new (ViperLineFunc on_line, ViperLineErrorFunc on_error, gpointer user_data);
void viper_line_splitter_free (ViperLineSplitter *s);
void viper_line_splitter_feed (ViperLineSplitter *s, const char *data, gsize len);
/* End of stream.  A pending partial line is delivered as a line when
 * partial_is_line (files), else reported as cut off (socket connections). */
void viper_line_splitter_finish (ViperLineSplitter *s, gboolean partial_is_line);
/* The same, with the reason a partial line that is not a line is reported with. */
void viper_line_splitter_finish_cut (ViperLineSplitter *s, gboolean partial_is_line, const char *cut_reason);
void viper_line_splitter_reset (ViperLineSplitter *s);
guint64 viper_line_splitter_lines (const ViperLineSplitter *s);

G_END_DECLS
