/* viper-playback.h - watching a trace at a chosen speed and going anywhere in
 * it: the replay speed control, the timeline strip, seek, step back and the
 * "Go to clock" dialog.  The app creates one, packs its widgets and hands it
 * every new session; everything else lives here. */
#pragma once

#include <gtk/gtk.h>
#include "viper-session.h"

G_BEGIN_DECLS

typedef struct _ViperPlayback ViperPlayback;

ViperPlayback *viper_playback_new (void);
void viper_playback_free (ViperPlayback *pb);
/* A group holding --speed, for the app's option context (parsed before the
 * window exists); the app makes it its main group so --help lists it. */
GOptionGroup *viper_playback_option_group (ViperPlayback *pb);
/* Register the actions (app.faster, app.slower, app.full-speed, app.back,
 * app.goto, app.seek) with their accelerators; window is the dialogs' parent;
 * debug_dir (may be NULL) receives playback.json for the tests. */
void viper_playback_install (ViperPlayback *pb, GtkApplication *gapp, GtkWindow *window, const char *debug_dir);
/* The speed control, for the header bar. */
GtkWidget *viper_playback_speed_widget (ViperPlayback *pb);
/* The timeline strip, to pack under the views. */
GtkWidget *viper_playback_timeline (ViperPlayback *pb);
/* A new session (NULL: none); not owned. */
void viper_playback_set_session (ViperPlayback *pb, ViperSession *s);
/* Act on Back presses not acted on yet (they are gathered into one seek
 * when the main loop is idle): before anything else moves the replay. */
void viper_playback_flush_back (ViperPlayback *pb);
/* The run's known range (first and last clock, trams so far) and the clock
 * now, in the readouts' format: "The run goes from 0 to 9.5 (120 trams);
 * the clock is at 3.25." (Go to clock and Breakpoint dialogs). */
void viper_playback_run_text (ViperPlayback *pb, char *text, gsize len);
/* A label showing that text, kept current while it exists. */
GtkWidget *viper_playback_run_label_new (ViperPlayback *pb);
/* Called from the redraw tick: the timeline follows the clock. */
void viper_playback_tick (ViperPlayback *pb);
/* Seek back to right after the tram stop's tram, which the state shown has
 * passed (from the start, by the logged run order); FALSE without a trail,
 * when nothing is done. */
gboolean viper_playback_back_to_tram (ViperPlayback *pb);
/* "back" or "went to clock" while the state shown is where the last seek
 * (Back, Go to clock, the timeline) stopped, NULL otherwise: the status
 * line says so instead of the breakpoint or step limit the seek armed. */
const char *viper_playback_seek_said (ViperPlayback *pb);
G_END_DECLS
