/* viper-settings.h - what the app keeps between runs: a key file under
 * g_get_user_config_dir()/viper/settings.ini (no schema to compile or
 * install).  VIPER_SETTINGS=FILE names another file; under VIPER_DEBUG_DIR
 * (the tests) nothing is read or written unless VIPER_SETTINGS is given, so
 * one test's layout never leaks into the next. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ViperSettings ViperSettings;

ViperSettings *viper_settings_load (void);
/* Write the file (when there is one); errors are printed, never fatal. */
void viper_settings_save (ViperSettings *st);
void viper_settings_free (ViperSettings *st);

int viper_settings_get_int (ViperSettings *st, const char *group, const char *key, int def);
gboolean viper_settings_get_bool (ViperSettings *st, const char *group, const char *key, gboolean def);
double viper_settings_get_double (ViperSettings *st, const char *group, const char *key, double def);
char *viper_settings_get_string (ViperSettings *st, const char *group, const char *key);  /* NULL if unset */
void viper_settings_set_int (ViperSettings *st, const char *group, const char *key, int v);
void viper_settings_set_bool (ViperSettings *st, const char *group, const char *key, gboolean v);
void viper_settings_set_double (ViperSettings *st, const char *group, const char *key, double v);
void viper_settings_set_string (ViperSettings *st, const char *group, const char *key, const char *v);

G_END_DECLS
