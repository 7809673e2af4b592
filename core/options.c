/* options.c - see options.h. */
#include <string.h>
#include "core/options.h"

static gboolean
takes_no_value (const GOptionEntry *e)
{
  return e->arg == G_OPTION_ARG_NONE || (e->arg == G_OPTION_ARG_CALLBACK && (e->flags & G_OPTION_FLAG_NO_ARG));
}

/* The entry of groups with that long name (len bytes of name), or NULL. */
static const GOptionEntry *
find_long (const GOptionEntry *const *groups, const char *name, gsize len)
{
  for (const GOptionEntry *const *g = groups; g && *g; g++)
    for (const GOptionEntry *e = *g; e->long_name; e++)
      if (strlen (e->long_name) == len && strncmp (e->long_name, name, len) == 0)
        return e;
  return NULL;
}

static const GOptionEntry *
find_short (const GOptionEntry *const *groups, char c)
{
  for (const GOptionEntry *const *g = groups; g && *g; g++)
    for (const GOptionEntry *e = *g; e->long_name; e++)
      if (e->short_name == c)
        return e;
  return NULL;
}

gboolean
viper_options_refuse_flag_values (int argc, char *const *argv, const GOptionEntry *const *groups, GError **error)
{
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "--") == 0)
        break;                    /* the rest are not options */
      if (a[0] != '-' || a[1] == '\0')
        continue;                 /* an operand, or "-" (standard input) */
      const GOptionEntry *e = NULL;
      gboolean has_value = FALSE;
      if (a[1] == '-')
        {
          const char *name = a + 2, *eq = strchr (name, '=');
          e = find_long (groups, name, eq ? (gsize) (eq - name) : strlen (name));
          has_value = eq != NULL;
          if (e && has_value && takes_no_value (e))
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s takes no value", e->long_name);
              return FALSE;
            }
        }
      else
        {
          /* a cluster of short options: one that takes a value takes the
           * next argument, as in GLib */
          for (const char *c = a + 1; *c && !e; c++)
            {
              const GOptionEntry *s = find_short (groups, *c);
              if (s && !takes_no_value (s))
                e = s;
            }
        }
      if (e && !has_value && !takes_no_value (e) && !(e->flags & G_OPTION_FLAG_OPTIONAL_ARG))
        i++;                      /* its value, whatever it looks like */
    }
  return TRUE;
}

gboolean
viper_options_parse (GOptionContext *ctx, const GOptionEntry *const *groups, int *argc, char ***argv, GError **error)
{
  return viper_options_refuse_flag_values (*argc, *argv, groups, error) && g_option_context_parse (ctx, argc, argv, error);
}
