/* switchnet-lines.h - the keyword-line reader the model, init and route
 * files share: fields split at blanks, `#` comments, numbers checked, errors
 * as FILE:LINE:COLUMN: reason.  Internal to paradigms/switchnet. */
#pragma once

#include <glib.h>

typedef struct {
  const char *s;
  guint len;
  guint col;                /* 1-based */
} Field;

#define MAX_FIELDS 96

typedef struct {
  const char *name;
  guint line;
  GError **error;
} Ctx;

typedef gboolean (*LineFn) (Ctx *c, Field *f, guint n, gpointer data);

/* Split one line into fields; stops at '#'.  Returns the count (at most
 * MAX_FIELDS; *more set when there were more). */
guint swn_split_fields (const char *line, gsize len, Field *f, gboolean *more);
gboolean swn_field_is (const Field *f, const char *word);
char *swn_field_dup (const Field *f);
gboolean swn_field_int (const Field *f, gint64 lo, gint64 hi, gint64 *out);
gboolean swn_field_double (const Field *f, double lo, double hi, double *out);
/* Set the error "NAME:LINE:COL: message"; returns FALSE. */
gboolean swn_fail (Ctx *c, guint col, const char *fmt, ...) G_GNUC_PRINTF (3, 4);
/* Calls fn for each line that has fields; stops at the first FALSE. */
gboolean swn_each_line (const char *text, gsize len, const char *name, GError **error, LineFn fn, gpointer data);
/* "KEY needs WHAT" / "KEY takes WHAT, not more" unless the line has exactly need values. */
gboolean swn_want (Ctx *c, Field *f, guint n, guint need, const char *what);
/* The whole file at path, or FALSE with "PATH: reason" (the form every
 * tool's messages take, not GLib's "Failed to open file ..."). */
gboolean swn_read_file (const char *path, char **text, gsize *len, GError **error);
