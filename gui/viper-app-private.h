/* viper-app-private.h - the GUI application's state (gui/viper-app.c: the
 * pipeline, the redraw tick and the window), shared with its actions
 * (gui/viper-app-actions.c) and the debug dumps the tests read
 * (gui/viper-app-dump.c). */
#pragma once

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gtk/gtk.h>
#include "core/stateout.h"
#include "core/tramref.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "viper-export-trace.h"
#include "viper-playback.h"
#include "viper-session.h"
#include "viper-setup-dialog.h"
#include "viper-switchnet-panel.h"
#include "viper-lights-panel.h"
#include "viper-status.h"
#include "viper-view-widget.h"
#include "viper-infobar.h"
#include "viper-open-dialog.h"
#include "viper-settings.h"
#include "viper-desktop.h"
#include "viper-inspect.h"
#include "viper-keys.h"
#include "viper-ticker.h"
#include "viper-title.h"

typedef struct {
  /* options */
  char *paradigm;
  char *setup;
  char *view;               /* --view: a view setup file beside the paradigm's setup */
  char **listen;
  char **traces;
  double decay;
  double breakpoint;        /* the user's breakpoint, NAN = none */
  ViperTramRef bp_tram;     /* ... or the tram it stops after (has_bp_tram) */
  gboolean has_bp_tram;
  int interval_ms;
  double history;
  gboolean demo;

  GtkApplication *gapp;
  ViperSession *s;
  GtkWidget *window, *header, *go_button, *progress;
  GtkWidget *views[VIPER_VIEW_N_KINDS], *frames[VIPER_VIEW_N_KINDS];
  ViperStatus *status;
  ViperViewSetupCtl *vsc;   /* the view setup the views draw (Setup...) */
  ViperSwitchnetPanel *swp; /* switch-network controls (switchnet sessions) */
  ViperLightsPanel *lights; /* Freeze and Range for the lights paradigm */
  ViperTicker *ticker;       /* the redraw tick (viper-ticker.c) */
  guint replay_min_us;      /* the replay's least time between frames (after_paint) */
  GArray *areas;
  ViperPlayback *pb;        /* speed, timeline, seek (viper-playback.c) */

  gint64 rate_t;
  guint64 rate_applied;
  double rate;
  gboolean have_applied;
  gint64 ap_proc;
  double ap_time, ap_adjusted;

  char *debug_dir;
  guint dumps;
  const char *dump_why;
  gboolean dump_pending;
  guint64 live_dumped_at;
  char *last_layout;
  gboolean progress_dump_pending;  /* the progress bar appeared: say so after the next frame */
  gint64 go_t;              /* when processing last started (benchmark numbers in the dump) */
  gint64 paint_t;           /* when the frame being painted started */
  guint64 go_frames[VIPER_VIEW_N_KINDS];  /* each view's paints by then: frames/s counts the run's own */
  gint64 go_draw_us[VIPER_VIEW_N_KINDS];   /* and their drawing CPU time by then */
  int go_shows;             /* what the Go button shows: 0 not set yet, 1 Go, 2 Stop */
  ViperTitle *title;        /* the header bar's title and subtitle (viper-title.c) */
  char last_sub[160];       /* the subtitle shown, and when it was set */
  gint64 sub_t;

  ViperInfobar *infobar;
  ViperInspect *inspect;             /* tooltips and clicks on modules */
  GtkWidget *dock, *main_paned;      /* the docked diagnostics, below the views */
  GtkWidget *top, *bottom, *vp;      /* the views' containers (reflow when views are hidden) */
  GMenu *recent_menu;
  GMenu *paradigm_menu;              /* the session's paradigm's own keys (viper-keys.c) */
  GtkWidget *menu_button;
  ViperSettings *settings;
  char *open_folder, *setup_folder;  /* where the dialogs were last */
  char *export_folder;
  ViperLiveState live_dumped;        /* the live state the last dump described */
  guint64 pending_reasons_at;        /* applied count the status's pending reasons are from, +1 */
  gboolean closing;                  /* the window is going: no more updates */
  gboolean no_layout_dump;           /* VIPER_DEBUG_LAYOUT=0: state dumps only (benchmarks) */
  guint64 live_progress_at;          /* applied count of the last live-progress dump */
  gint64 live_progress_t;
  GtkWidget *bp_range, *bp_error;    /* the Breakpoint dialog's run line and message, while it is open */
  GtkWidget *bp_tram_radio;          /* its choice of a tram rather than a clock */
} App;

/* The debug dumps (VIPER_DEBUG_DIR, see viper-app.c): DIR/layout.json,
 * DIR/progress.json and DIR/state.json, written after the frame that shows
 * what they describe. */
void viper_app_write_layout (App *a);
void viper_app_write_progress (App *a);
void viper_app_write_state (App *a);

/* gui/viper-app.c: the pipeline and the window */
void viper_app_diag_sink (ViperDiagKind kind, const char *message, gpointer data);
void viper_app_request_dump (App *a, const char *why);
/* gui/viper-app.c, for the start-up (gui/viper-app-main.c) */
void viper_app_set_session (App *a, ViperSession *s);
void viper_app_build_window (App *a);
void viper_app_restore_layout (App *a);
void viper_app_update_controls (App *a);
gboolean viper_app_open_session (App *a, const char *paradigm, const char *setup, char **traces, char **listen);
void viper_app_flush (App *a);
void viper_app_restart_timer (App *a);
void viper_app_save_settings (App *a);
void viper_app_forget_run (App *a);

/* gui/viper-app-actions.c: the application's actions */
void viper_app_add_actions (App *a, GActionMap *map);
gboolean viper_app_parse_number (const char *text, double *out);
void viper_app_open_files (char **traces, const char *setup, gpointer data);
void viper_app_show_diagnostics_pane (App *a, gboolean show);
void viper_app_infobar_diagnostics (gpointer data);
void viper_app_reflow (App *a);
