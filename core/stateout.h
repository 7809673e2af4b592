/* stateout.h - the --state-out JSON document (spec picl.md section 5). */
#pragma once

#include "run.h"
#include "model.h"

G_BEGIN_DECLS

/* The state at this point: paradigm, clock, program_state, counts, the
 * paradigm's top-level fields, modules, stuck.  model may be NULL (modules
 * are then the run's PROCs with their offsets). */
char *viper_state_to_json (const ViperRun *run, const ViperModel *model, gboolean pretty);

G_END_DECLS
