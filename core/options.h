/* options.h - what every binary that parses its options with GLib's
 * GOptionContext shares.
 *
 * GLib takes --FLAG=VALUE for an option that takes no value
 * (G_OPTION_ARG_NONE) and drops VALUE: `--stats=no` printed the statistics,
 * `--strict=no` stopped at the first bad line.  viper_options_refuse_flag_values()
 * is called before g_option_context_parse() (viper_options_parse() does both)
 * and refuses it instead.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The first argument of argv (before a lone "--") that gives a value to a
 * long option of groups that takes none: FALSE, with "--FLAG takes no value"
 * in error (G_OPTION_ERROR_BAD_VALUE), which the caller reports as its other
 * usage errors.  groups: NULL-terminated list of the entry arrays (each ended
 * by an entry with a NULL long_name) given to the context; the value of an
 * option that takes one (`--setup --stats=x`, `-s --stats=x`) is skipped as
 * GLib skips it, and an option not listed (another library's group) is taken
 * as taking no value. */
gboolean viper_options_refuse_flag_values (int argc, char *const *argv, const GOptionEntry *const *groups,
                                           GError **error);
/* That check, then g_option_context_parse(): what every binary calls. */
gboolean viper_options_parse (GOptionContext *ctx, const GOptionEntry *const *groups, int *argc, char ***argv,
                              GError **error);

G_END_DECLS
