/* progress.h - viper-replay's progress line on standard error.
 *
 * On a terminal the line is redrawn in place a few times a second once a
 * replay has run for half a second, and erased when it ends (or before any
 * other message, which the caller announces with viper_progress_clear).
 * Forced on another stream (--progress=always) it is a plain line every
 * couple of seconds and a last one at the end, so logs show how far a long
 * replay got.
 */
#pragma once

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct _ViperProgress ViperProgress;

typedef struct {
  guint64 bytes;            /* read so far from the inputs */
  guint64 read, transferred, pending;
} ViperProgressFigures;

/* tty: redraw in place; total_bytes: the inputs' size (0: unknown, no
 * percentage).  VIPER_PROGRESS_INTERVAL (seconds) overrides the interval
 * between lines and the first delay (tests use 0). */
ViperProgress *viper_progress_new (FILE *out, gboolean tty, guint64 total_bytes);
/* Is a line due (the interval has passed)?  Ask before gathering figures. */
gboolean viper_progress_due (const ViperProgress *p);
/* Draw the line with these figures, and start the next interval. */
void viper_progress_update (ViperProgress *p, const ViperProgressFigures *f);
/* Erase the line on a terminal, so that another message starts clean. */
void viper_progress_clear (ViperProgress *p);
/* The end: erase the line on a terminal; otherwise write the last figures. */
void viper_progress_finish (ViperProgress *p, const ViperProgressFigures *f);
void viper_progress_free (ViperProgress *p);

G_END_DECLS
