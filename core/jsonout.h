/* jsonout.h - a small streaming JSON writer for --state-out and exports.
 * Keeps commas and nesting right; numbers are written so they read back
 * exactly; strings are escaped per RFC 8259. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  GString *out;
  guint depth;
  gboolean need_comma[64];
  gboolean pretty;
  gboolean after_key;
} ViperJson;

void viper_json_init (ViperJson *j, GString *out, gboolean pretty);
void viper_json_begin_object (ViperJson *j);
void viper_json_end_object (ViperJson *j);
void viper_json_begin_array (ViperJson *j);
void viper_json_end_array (ViperJson *j);
void viper_json_key (ViperJson *j, const char *key);
void viper_json_string (ViperJson *j, const char *s);      /* NULL writes null */
/* S as a quoted JSON string appended to OUT (NULL appends null), for code
 * that writes its JSON by hand. */
void viper_json_append_string (GString *out, const char *s);
void viper_json_int (ViperJson *j, gint64 v);
void viper_json_double (ViperJson *j, double v);         /* non-finite writes null */
void viper_json_bool (ViperJson *j, gboolean v);
void viper_json_null (ViperJson *j);
/* Raw, already valid JSON text as a value. */
void viper_json_raw (ViperJson *j, const char *text);

G_END_DECLS
