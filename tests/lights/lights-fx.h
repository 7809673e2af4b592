/* lights-fx.h - what the lights paradigm's in-process tests share: a view
 * setup parsed from text, a run and model fed tram lines one at a time
 * (each transferred tram applied at once), and pictures written for a look.
 */
#pragma once

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/run.h"
#include "core/tramparse.h"
#include "core/stateout.h"
#include "paradigms/paradigms.h"
#include "paradigms/views.h"
#include "paradigms/lights/lights.h"
#include "paradigms/lights/lights-render.h"

/* 2 x 3 mesh:  0 1 2
 *              3 4 5 */
#define MESH \
  "paradigm lights\nsize 300 200\ntopology mesh 2 3\n" \
  "module 0 bar 25 25 50 50 a\nmodule 1 bar 125 25 50 50 b\nmodule 2 bar 225 25 50 50 c\n" \
  "module 3 bar 25 125 50 50 d\nmodule 4 bar 125 125 50 50 e\nmodule 5 bar 225 125 50 50 f\n"

typedef struct {
  ViperTramPool *pool;
  ViperTramFields *fields;
  ViperChannels *channels;
  guint32 channel;
  ViperDiag diag;
  ViperViewSetup *vs;
  ViperModel *model;
  ViperRun *run;
  guint64 lineno;
  GPtrArray *bad, *notes;
} Fx;

/* Pictures to look at, in the temporary directory (not the working one,
 * which may be a source tree). */
void write_shot (cairo_surface_t *s, const char *name);
ViperViewSetup *parse (const char *text, GError **error);
void fx_init (Fx *fx, const char *setup_text);
void fx_clear (Fx *fx);
/* Parse, insert and apply whatever transfers; FALSE when the line or the
 * tram was rejected. */
gboolean feed (Fx *fx, const char *line);
LightsLink link_of (Fx *fx, gint64 a, gint64 b);
