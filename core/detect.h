/* detect.h - which paradigm a trace is written in, from its content.
 *
 * Used by `viper-replay --paradigm=auto` and by the GUI's Open and Listen
 * dialogs (and double-clicked files), so that opening a trace never silently
 * keeps the previous session's paradigm.  Generic over the registry: core
 * names no paradigm.
 */
#pragma once

#include "paradigm.h"

G_BEGIN_DECLS

typedef struct {
  const ViperParadigm *paradigm;  /* NULL: nothing recognisable (reason says why) */
  char *reason;                   /* one sentence, e.g. "412 of 500 sampled trams are monalisa tram types" */
  gboolean binary;                /* a file holds NUL bytes and its sample no tram: not a text trace */
  char *binary_lines;             /* a file holds NUL bytes among its trams: a trace with binary lines,
                                   * said in one sentence (also in reason); else NULL */
  gboolean no_tram;               /* not one line of the sample is a tram */
  gboolean setup_decided;         /* the setup file's kind decided (only one paradigm reads it) */
  guint64 lines, trams, bad;      /* what the sample held */
} ViperDetect;

/* Sample the first lines of each regular trace file (FIFOs, devices and
 * unreadable files are skipped: what is read once is the replay's; `-` too
 * unless standard input is kept, core/stdin-keep.h) and, when setup is given, which paradigms read it.  The paradigm
 * whose tram table knows the most sampled trams wins; ties go to the one that
 * reads the setup, then to registration order.  Never fails: out->paradigm is
 * NULL when nothing decides.  Free with viper_detect_clear(). */
void viper_paradigm_detect (const char *const *traces, const char *setup, ViperDetect *out);
void viper_detect_clear (ViperDetect *d);

/* A setup file with the trace's stem: beside it (STEM.setup, STEM.view), or
 * in a sibling setup/ folder (the bundled traces/ and setup/ layout).  NULL if
 * none; g_free() it.  The GUI takes it for a trace opened alone; viper-replay
 * names it in its hint when Mona Lisa ran without one. */
char *viper_propose_setup (const char *trace);

G_END_DECLS
