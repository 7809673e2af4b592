/* macrame-sim-lib.h - the Macrame testbed simulator as a library (viper-macrame-sim
 * and the tests share it).
 *
 * A mesh of R x R C104 switches with 16 nodes each (spec macrame.md section
 * 5): switch (r, c) = R r + c, node k of switch s = R*R + 16 s + k.  The
 * simulator writes the trams the spy tools would send, with the true final
 * state and counts alongside, and the view setup files of the testbed.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint mesh;               /* R: 3 or 8 (any 1..32 works) */
  guint64 seed;
  guint64 trams;            /* about this many good trams (setup phase included) */
  guint malformed;          /* bad lines and rule-breaking trams to inject */
  gint64 maxrate;
  double offset;            /* clock offsets up to this (ms) */
  double drift;             /* clock drift up to this (relative) */
  double jitter;            /* clock read jitter up to this (ms) */
  gboolean shuffle;         /* shuffled delivery keeping each device's order */
} MacrameSimOptions;

void macrame_sim_options_init (MacrameSimOptions *o);

typedef struct {
  guint64 read, transferred, rejected, ignored, inconsistent;
} MacrameSimCounts;

typedef struct {
  GString *trace;           /* the trace file's text */
  char *truth;              /* JSON: {"paradigm","counts","modules"} in the --state-out shape */
  MacrameSimCounts counts;
} MacrameSimResult;

/* Simulate; fills res (free with macrame_sim_result_clear). */
void macrame_sim_run (const MacrameSimOptions *o, MacrameSimResult *res);
void macrame_sim_result_clear (MacrameSimResult *res);

typedef enum {
  MACRAME_SIM_VIEW_TOPOLOGY,  /* switches at the mesh vertices, their 16 nodes around them */
  MACRAME_SIM_VIEW_HARDWARE,  /* R crates of R slots, one board (a switch and its nodes) per slot */
} MacrameSimView;

/* The view setup file of the testbed, newly allocated. */
char *macrame_sim_view (guint mesh, MacrameSimView view, gint64 maxrate);

static inline gint64 macrame_sim_switch_id (guint mesh, guint r, guint c) { return (gint64) (mesh * r + c); }
static inline gint64 macrame_sim_node_id (guint mesh, gint64 sw, guint k) { return (gint64) (mesh * mesh) + 16 * sw + k; }

G_END_DECLS
