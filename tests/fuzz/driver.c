/* driver.c - main() for a fuzz harness without libFuzzer: runs every file
 * named on the command line (a directory: every file in it) through
 * LLVMFuzzerTestOneInput once.  A crash or an abort is the failure. */
#include <glib.h>
#include <stdio.h>
#include "fuzz.h"

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

static guint
run_path (const char *path)
{
  guint n = 0;
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      GDir *dir = g_dir_open (path, 0, NULL);
      const char *name;
      GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
      while (dir && (name = g_dir_read_name (dir)))
        g_ptr_array_add (names, g_build_filename (path, name, NULL));
      if (dir)
        g_dir_close (dir);
      g_ptr_array_sort (names, by_name);
      for (guint i = 0; i < names->len; i++)
        n += run_path (names->pdata[i]);
      g_ptr_array_unref (names);
      return n;
    }
  char *data = NULL;
  gsize len = 0;
  GError *error = NULL;
  if (!g_file_get_contents (path, &data, &len, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      g_error_free (error);
      return 0;
    }
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  g_free (data);
  return 1;
}

int
main (int argc, char **argv)
{
  LLVMFuzzerInitialize (&argc, &argv);
  guint n = 0;
  for (int i = 1; i < argc; i++)
    n += run_path (argv[i]);
  printf ("%u inputs ran without a crash\n", n);
  return n > 0 ? 0 : 1;
}
