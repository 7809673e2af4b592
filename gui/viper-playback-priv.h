/* viper-playback-priv.h - the playback's insides, shared by
 * viper-playback.c (speed, the index pass, seeking, the dump, set-up) and
 * viper-playback-timeline.c (the timeline under the views). */
#pragma once

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "viper-playback.h"
#include "core/jsonout.h"
#include "core/tramparse.h"
#include "core/trail.h"
#include "paradigms/views.h"

/* the timeline's margin left and right, in pixels (the dump reports the track) */
#define TL_PAD 8.0

struct _ViperPlayback {
  GtkApplication *gapp;
  GtkWindow *window;
  char *debug_dir;
  ViperSession *s;

  /* speed: index into the ladder, or -1 = max; auto until the user picks */
  int speed_i;
  int last_finite_i;
  gboolean speed_user;
  char *speed_opt;
  GtkWidget *speed_box, *speed_label;

  /* the index pass */
  ViperSession *index;
  gboolean index_waits;     /* for standard input to be kept whole (core/stdin-keep.h) */
  guint index_idle;
  gboolean index_done;
  guint64 index_trams;      /* M */
  double run_t0, run_t1;    /* first and last adjusted time (of trams with a clock: viper_paradigm_timeless) */
  GArray *samples;          /* double: clock of every `stride`-th state change */
  guint64 stride, since;

  GtkWidget *timeline;
  double drag_t;            /* NAN: not dragging */
  gboolean seeking;
  guint back_pending;       /* Back presses not acted on yet (one seek serves them all) */
  guint back_idle;
  guint64 back_seeks;       /* seeks Back made (playback.json: fewer than the presses when held) */
  char *last_dump;
  gint64 ckpt_every;        /* --checkpoint-every (0: the trail's default) */
  GtkWidget *goto_label;    /* the Go to clock dialog's run and clock, while it is open */
  /* the stop the last seek made, so the status line names the seek rather
   * than the breakpoint or step limit it armed (viper_playback_seek_said) */
  const char *seek_said;
  ViperStopReason seek_reason;
  guint64 seek_steps;
  GPtrArray *run_labels;    /* labels showing viper_playback_run_text, kept current */
};

gboolean pb_can_seek (ViperPlayback *pb);
gboolean pb_is_live (ViperPlayback *pb);
void pb_seek_clock (ViperPlayback *pb, double t);
void pb_status_line (ViperPlayback *pb, char *line, gsize len);
void pb_timeline_range (ViperPlayback *pb, double *t0, double *t1);
/* The run's trams (M in "tram N of M"); 0 while not known (pb_total_known). */
gboolean pb_total_known (ViperPlayback *pb);
guint64 pb_total_trams (ViperPlayback *pb);
