/* fuzz-view-setup.c - the view-setup parser (docs/view-setup.md): any text
 * either parses, with every module findable by its id, or fails with an
 * error message naming its line and column; never a crash, a hang or a leak. */
#include "paradigms/viewsetup.h"
#include "fuzz.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  ViperViewSetup *vs = viper_view_setup_parse ((const char *) data, size, "fuzz.view", &error);
  if (!vs)
    {
      if (!error || !error->message[0])
        g_error ("view setup rejected without a message");
      fuzz_check_where (error->message, "fuzz.view", data, size);
      g_error_free (error);
      return 0;
    }
  guint n = viper_view_setup_n_modules (vs);
  for (guint i = 0; i < n; i++)
    {
      const ViperViewModule *m = viper_view_setup_module_at (vs, i);
      if (!m || viper_view_setup_module (vs, m->id) == NULL)
        g_error ("module %u not found by its id", i);
    }
  viper_view_setup_free (vs);
  return 0;
}
