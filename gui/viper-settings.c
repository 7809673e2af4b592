/* viper-settings.c - the app's settings as a GKeyFile (see viper-settings.h). */
#include <glib/gstdio.h>
#include "viper-settings.h"

struct _ViperSettings {
  GKeyFile *kf;
  char *path;               /* NULL: nothing is kept */
};

ViperSettings *
viper_settings_load (void)
{
  ViperSettings *st = g_new0 (ViperSettings, 1);
  st->kf = g_key_file_new ();
  const char *env = g_getenv ("VIPER_SETTINGS");
  if (env && *env)
    st->path = g_strdup (env);
  else if (!g_getenv ("VIPER_DEBUG_DIR"))
    st->path = g_build_filename (g_get_user_config_dir (), "viper", "settings.ini", NULL);
  if (st->path)
    (void) g_key_file_load_from_file (st->kf, st->path, G_KEY_FILE_KEEP_COMMENTS, NULL);
  return st;
}

void
viper_settings_save (ViperSettings *st)
{
  if (!st->path)
    return;
  char *dir = g_path_get_dirname (st->path);
  g_mkdir_with_parents (dir, 0700);
  g_free (dir);
  GError *e = NULL;
  if (!g_key_file_save_to_file (st->kf, st->path, &e))
    {
      g_printerr ("viper: settings: %s\n", e->message);
      g_error_free (e);
    }
}

void
viper_settings_free (ViperSettings *st)
{
  if (!st)
    return;
  g_key_file_unref (st->kf);
  g_free (st->path);
  g_free (st);
}

int
viper_settings_get_int (ViperSettings *st, const char *group, const char *key, int def)
{
  GError *e = NULL;
  int v = g_key_file_get_integer (st->kf, group, key, &e);
  if (e)
    {
      g_error_free (e);
      return def;
    }
  return v;
}

gboolean
viper_settings_get_bool (ViperSettings *st, const char *group, const char *key, gboolean def)
{
  GError *e = NULL;
  gboolean v = g_key_file_get_boolean (st->kf, group, key, &e);
  if (e)
    {
      g_error_free (e);
      return def;
    }
  return v;
}

double
viper_settings_get_double (ViperSettings *st, const char *group, const char *key, double def)
{
  GError *e = NULL;
  double v = g_key_file_get_double (st->kf, group, key, &e);
  if (e)
    {
      g_error_free (e);
      return def;
    }
  return v;
}

char *
viper_settings_get_string (ViperSettings *st, const char *group, const char *key)
{
  return g_key_file_get_string (st->kf, group, key, NULL);
}

void viper_settings_set_int (ViperSettings *st, const char *g, const char *k, int v) { g_key_file_set_integer (st->kf, g, k, v); }
void viper_settings_set_bool (ViperSettings *st, const char *g, const char *k, gboolean v) { g_key_file_set_boolean (st->kf, g, k, v); }
void viper_settings_set_double (ViperSettings *st, const char *g, const char *k, double v) { g_key_file_set_double (st->kf, g, k, v); }

void
viper_settings_set_string (ViperSettings *st, const char *group, const char *key, const char *v)
{
  if (v)
    g_key_file_set_string (st->kf, group, key, v);
  else
    g_key_file_remove_key (st->kf, group, key, NULL);
}
