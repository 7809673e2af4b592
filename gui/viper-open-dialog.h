/* viper-open-dialog.h - the Open and Listen dialogs: what to read, in which
 * paradigm (detected from the content by default), with which setup file. */
#pragma once

#include <gtk/gtk.h>
#include "core/detect.h"

G_BEGIN_DECLS

typedef struct {
  char *trace;              /* Open: the trace file */
  char *address;            /* Listen: the address */
  char *setup;              /* NULL = none */
  char *paradigm;           /* NULL = automatic (core/detect.h) */
  char *folder;             /* the folder the chooser ended in (remembered) */
} ViperOpenChoice;

void viper_open_choice_clear (ViperOpenChoice *c);

/* folder: where the chooser starts (NULL: the current directory). */
gboolean viper_open_dialog_run (GtkWindow *parent, const char *folder, const char *setup_folder, ViperOpenChoice *out);
gboolean viper_listen_dialog_run (GtkWindow *parent, const char *address, const char *setup, const char *paradigm,
                                  const char *setup_folder, ViperOpenChoice *out);

/* viper_propose_setup (): core/detect.h, shared with viper-replay's hint */
/* Is this a setup file (by name: .setup, .view) rather than a trace? */
gboolean viper_is_setup_file (const char *path);
/* Filters for traces (.trc, .trf, .txt) and setups (.setup, .view), then all files. */
void viper_add_trace_filters (GtkFileChooser *fc);
void viper_add_setup_filters (GtkFileChooser *fc);

G_END_DECLS
