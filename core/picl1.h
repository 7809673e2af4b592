/* picl1.h - recognising a trace in the older PICL 1 layout (spec picl.md
 * section 1), so that such a file is named once for what it is instead of
 * being read line by line into misleading reasons. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Lines of the start of a file that are looked at. */
#define VIPER_PICL1_SAMPLE 32

/* Does a file that starts with these bytes look like PICL 1?  buf holds the
 * first bytes of the file (any length; a cut-off last line is ignored). */
gboolean viper_picl1_sniff (const char *buf, gsize len);

G_END_DECLS
