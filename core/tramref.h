/* tramref.h - naming one tram: viper-replay --until-tram and the GUI's
 * Breakpoint dialog stop right after it is transferred (core/scheduler.h). */
#pragma once

#include "tram.h"

G_BEGIN_DECLS

/* A tram the user names to stop at (viper-replay --until-tram, the GUI's
 * Breakpoint dialog): PROC:SEQ, its module and sequence number (spec
 * section 2; the pending reasons say "seq SEQ of proc PROC"), or FILE:LINE,
 * the line it was read from, as bad-line reports and pending reasons name
 * lines.  Both parts integers: PROC:SEQ (so a file named by digits only is
 * given as ./3:LINE); otherwise FILE:LINE, split at the last colon.  FILE
 * is a trace as named to Viper, another path to it, or its base name. */
typedef struct {
  char *file;               /* FILE:LINE when not NULL */
  guint64 line;             /* 1 .. 2^32-1 */
  gint64 proc;              /* PROC:SEQ when file is NULL */
  gint64 seq;               /* >= 1 */
} ViperTramRef;
/* FALSE with *why (to free) saying what is wrong with the text, naming it. */
gboolean viper_tram_ref_parse (const char *text, ViperTramRef *out, char **why);
void viper_tram_ref_clear (ViperTramRef *r);
void viper_tram_ref_copy (ViperTramRef *dst, const ViperTramRef *src);
/* As the user writes it ("2:14", "farm.trc:120"); to free. */
char *viper_tram_ref_format (const ViperTramRef *r);
/* In words ("seq 14 of proc 2", "the tram of line 120 of farm.trc"); to free. */
char *viper_tram_ref_describe (const ViperTramRef *r);
/* t (read from channel name `channel`) is the tram r names. */
gboolean viper_tram_ref_matches (const ViperTramRef *r, const ViperTram *t, const char *channel);
/* r's FILE names the trace `name`: the same text, the same path written
 * another way (./3 and 3), the same file (a link), or its base name. */
gboolean viper_tram_ref_names_trace (const ViperTramRef *r, const char *name);

G_END_DECLS
