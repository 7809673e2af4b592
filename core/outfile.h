/* outfile.h - writing an output file so that it never lies (spec picl.md
 * section 5, "Output files").
 *
 * Every file Viper writes for the user (--run-out, --state-out, --export,
 * --render, the GUI's exports) goes through a ViperOutFile:
 *   - "-" is standard output, written in place and never closed;
 *   - a path naming something other than a regular file (a terminal,
 *     /dev/stdout, /dev/null, a FIFO) is opened and written in place, never
 *     replaced; so is a regular file that is this process's own standard
 *     output or error (/dev/stdout redirected to a file);
 *   - a symbolic link is followed (its target is written, the link stays);
 *   - a regular file is replaced whole once the output is complete: the
 *     bytes go to a temporary file in the target's real directory, which is
 *     renamed over the target at viper_outfile_close().  The target keeps its
 *     permission bits.  A target the user may not write is refused with
 *     "Permission denied", as the shell's ">" would refuse it (as root, which
 *     may write anything, a read-only file is replaced and stays read-only).
 *     On any error the temporary file is removed and the target is untouched.
 * Every failed write, flush, close or rename is kept (the first one) and
 * reported by viper_outfile_close() as "PATH: reason".
 *
 * A FIFO is opened only when the first byte is written, so that a FIFO
 * without a reader never holds the replay up before there is output; when
 * no reader is there yet, the wait is announced on standard error
 * ("waiting for a reader on FIFO PATH") before blocking.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef struct _ViperOutFile ViperOutFile;

/* Prepare an output on path.  Checks what can be checked now (the target's
 * directory, permissions; creates the temporary file of a regular target),
 * so that a bad path fails before a long replay.  NULL with an error
 * "PATH: reason" when it cannot be written.  who: prefix of the FIFO wait
 * message ("viper-replay"), may be NULL. */
ViperOutFile *viper_outfile_open (const char *path, const char *who, GError **error);
/* Append bytes.  FALSE once any write has failed (the error is kept for
 * viper_outfile_close). */
gboolean viper_outfile_write (ViperOutFile *o, const void *data, gsize len);
gboolean viper_outfile_printf (ViperOutFile *o, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
/* TRUE while no error happened. */
gboolean viper_outfile_ok (const ViperOutFile *o);
/* The name used in messages: the path, or "standard output" for "-". */
const char *viper_outfile_name (const ViperOutFile *o);
/* Finish: flush, close, and (regular targets) rename into place.  FALSE
 * with "PATH: reason" when anything failed; the target is then left as it
 * was.  Frees o. */
gboolean viper_outfile_close (ViperOutFile *o, GError **error);
/* Give up: remove the temporary file, leave the target as it was.  Frees o. */
void viper_outfile_abort (ViperOutFile *o);

/* Open, write len bytes, close. */
gboolean viper_outfile_set_contents (const char *path, const char *who, const char *data, gsize len,
                                     GError **error);

/* Whether two outputs on paths a and b would write the same file:
 *   VIPER_OUT_SAME_FILE   the same existing file (device and inode, whatever
 *                         links or paths lead to it), or the same path once
 *                         its symbolic links and directory are resolved: one
 *                         output would replace or cut the other;
 *   VIPER_OUT_SAME_STREAM the same stream, written in order and never
 *                         replaced: standard output ("-", /dev/stdout, the
 *                         file it is redirected to), standard error, or one
 *                         terminal or other character device (but /dev/null):
 *                         outputs there follow one another, and mix when both
 *                         are written at once;
 *   VIPER_OUT_DIFFERENT   anything else (/dev/null included). */
typedef enum { VIPER_OUT_DIFFERENT, VIPER_OUT_SAME_FILE, VIPER_OUT_SAME_STREAM } ViperOutSame;
ViperOutSame viper_outfile_compare (const char *a, const char *b);

/* Flush standard output and check that everything written to it arrived.
 * FALSE with "standard output: reason" otherwise (e.g. a full device). */
gboolean viper_stdout_flush (GError **error);

G_END_DECLS
