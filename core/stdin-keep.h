/* stdin-keep.h - standard input read once, for every reader of "-".
 *
 * Standard input can be read only once, but the GUI reads its trace more
 * than once: to detect the paradigm, to replay it, to index the whole run
 * for the timeline, to reset.  With keeping on, no reader of "-" takes
 * bytes from the others: a regular file redirected to standard input is
 * opened again for each reader (each at the offset standard input had), and
 * a stream (a pipe, a terminal, a socket) is read by whichever reader needs
 * more, into a spool (an unlinked temporary file) that every reader reads
 * at its own offset.  Without keeping (viper-replay) standard input is the
 * one reader's, as always.
 *
 * Only one source may wait on the stream itself (the *puller*: the replay);
 * a further reader of a stream is allowed once the stream has ended, and
 * then reads the spool only.  Past `max_bytes` the spool stops growing:
 * the puller goes on reading the stream, but standard input cannot be read
 * again (reset and further readers are refused, saying so).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Keep standard input for several readers, at most max_bytes of a stream
 * in the spool (0: keeping off, the default).  Call before the first reader. */
void viper_stdin_keep (guint64 max_bytes);
gboolean viper_stdin_keeping (void);
/* Keeping on and standard input a regular file: each reader opens it
 * again.  Returns a new descriptor at the offset standard input had when
 * first asked (*origin), or -1 with errno set. */
int viper_stdin_reopen (gint64 *origin);
/* Keeping on and standard input not a regular file. */
gboolean viper_stdin_is_stream (void);

/* Stream readers.  claim: become a reader - the puller when there is none
 * and the stream goes on where the spool ends, else a reader of the whole
 * spool.  FALSE with *error when standard input cannot be read (the stream
 * is still open and another reader pulls it; it passed the spool's bound). */
gboolean viper_stdin_claim (gpointer reader, GError **error);
void viper_stdin_release (gpointer reader);
/* Up to len bytes at *off into buf: from the spool, or (the puller, at the
 * spool's end) one read() of the stream, added to the spool.  >0 bytes
 * read (*off advanced), 0 at the end, -1 with errno (EAGAIN: the puller
 * must wait for the stream; anything else is a read error). */
gssize viper_stdin_read (gpointer reader, guint64 *off, char *buf, gsize len);
/* A read at off returns without waiting for the stream. */
gboolean viper_stdin_ready (guint64 off);
/* Everything standard input held is kept and the stream has ended: a new
 * reader of "-" reads it all (also TRUE for a regular file, FALSE with
 * keeping off).  *why (may be NULL) says why not, for the user. */
gboolean viper_stdin_complete (const char **why);
/* Rewinding a reader to offset 0 gives it everything again (nothing was
 * left out of the spool). */
gboolean viper_stdin_rewindable (void);

/* The first up to len bytes of standard input into buf, for the paradigm's
 * detection: a regular file is read without moving anything, a stream is
 * read into the spool (waiting at most about wait_ms for more to come) so
 * that the replay reads the same bytes after.  Returns the bytes copied and
 * *whole TRUE when they are all standard input holds. */
gsize viper_stdin_sample (char *buf, gsize len, guint wait_ms, gboolean *whole);

/* Tests: forget everything (close the spool, keeping off). */
void viper_stdin_keep_reset (void);

G_END_DECLS
