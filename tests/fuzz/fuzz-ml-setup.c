/* fuzz-ml-setup.c - the Mona Lisa Module Setup parser: any text either
 * parses (and every accessor then answers within its bounds) or fails with
 * an error message naming its line and column; never a crash, a hang or a
 * leak. */
#include "paradigms/monalisa/monalisa.h"
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
  ViperMonalisaSetup *s = viper_monalisa_setup_parse ((const char *) data, (gssize) size, "fuzz.setup", &error);
  if (!s)
    {
      if (!error || !error->message[0])
        g_error ("setup rejected without a message");
      fuzz_check_where (error->message, "fuzz.setup", data, size);
      g_error_free (error);
      return 0;
    }
  guint n = viper_monalisa_setup_n_modules (s);
  for (guint m = 0; m < n && m < 64; m++)
    {
      (void) viper_monalisa_setup_module_name (s, m);
      (void) viper_monalisa_setup_module_file (s, m);
      guint na = viper_monalisa_setup_n_attributes (s, m);
      for (guint a = 0; a < na && a < 16; a++)
        {
          (void) viper_monalisa_setup_attribute_name (s, m, a);
          (void) viper_monalisa_setup_attribute_type (s, m, a);
        }
    }
  gint64 members[16];
  (void) viper_monalisa_setup_group_members (s, viper_monalisa_setup_all_modules_id (s), members, 16);
  guint ng = viper_monalisa_setup_n_groups (s);
  for (guint g = 0; g < ng && g < 64; g++)
    {
      guint first, gsize_;
      (void) viper_monalisa_setup_group_name (s, g);
      viper_monalisa_setup_group_range (s, g, &first, &gsize_);
      (void) viper_monalisa_setup_group_members (s, viper_monalisa_setup_group_id (s, g), members, 16);
    }
  viper_monalisa_setup_free (s);
  return 0;
}
