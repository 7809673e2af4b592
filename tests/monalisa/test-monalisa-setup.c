/* test-monalisa-setup.c - the Module Setup file reader: the spec's example,
 * the optional column headers, the thesis's own layout, and the exact
 * message of every kind of error. */
#include <string.h>
#include <glib/gstdio.h>
#include "paradigms/monalisa/monalisa.h"

/* The spec's example (monalisa.md section 6), one line per entry. */
static const char *example[] = {
  "MODULES:", "5", "GROUPS:", "1", "RANGE FOR GROUPS:", "1 4", "DEFINITION TABLE:",
  "farm.MASTER  MASTER    0", "farm.SLAVE1  SLAVE[1]  1", "farm.SLAVE2  SLAVE[2]  2",
  "farm.SLAVE3  SLAVE[3]  3", "farm.SLAVE4  SLAVE[4]  4", "- # all_modules # 5", "- SLAVE 6",
  "#ATTRIBUTES for module MASTER#", "JOB 0 INTEGER(400)",
  "#ATTRIBUTES for module SLAVE#", "RESULT 0 INTEGER(400)",
};
#define N_EXAMPLE G_N_ELEMENTS (example)

/* The example with line `at` (1-based) replaced by repl (NULL: removed),
 * or the first `at` lines only when truncate. */
static char *
variant (guint at, const char *repl, gboolean truncate)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < N_EXAMPLE; i++)
    {
      if (truncate && i >= at)
        break;
      const char *line = example[i];
      if (i + 1 == at && !truncate)
        {
          if (!repl)
            continue;
          line = repl;
        }
      g_string_append_printf (s, "%s\n", line);
    }
  return g_string_free (s, FALSE);
}

static void
check_farm (ViperMonalisaSetup *s)
{
  g_assert_nonnull (s);
  g_assert_cmpuint (viper_monalisa_setup_n_modules (s), ==, 5);
  g_assert_cmpstr (viper_monalisa_setup_module_name (s, 0), ==, "MASTER");
  g_assert_cmpstr (viper_monalisa_setup_module_file (s, 0), ==, "farm.MASTER");
  g_assert_cmpstr (viper_monalisa_setup_module_name (s, 3), ==, "SLAVE[3]");
  g_assert_cmpstr (viper_monalisa_setup_module_file (s, 4), ==, "farm.SLAVE4");
  g_assert_cmpint (viper_monalisa_setup_all_modules_id (s), ==, 5);
  g_assert_cmpuint (viper_monalisa_setup_n_groups (s), ==, 1);
  g_assert_cmpstr (viper_monalisa_setup_group_name (s, 0), ==, "SLAVE");
  g_assert_cmpint (viper_monalisa_setup_group_id (s, 0), ==, 6);
  guint first, size;
  viper_monalisa_setup_group_range (s, 0, &first, &size);
  g_assert_cmpuint (first, ==, 1);
  g_assert_cmpuint (size, ==, 4);
  g_assert_cmpuint (viper_monalisa_setup_n_attributes (s, 0), ==, 1);
  g_assert_cmpstr (viper_monalisa_setup_attribute_name (s, 0, 0), ==, "JOB");
  g_assert_cmpstr (viper_monalisa_setup_attribute_type (s, 0, 0), ==, "INTEGER(400)");
  for (guint m = 1; m <= 4; m++)
    {
      g_assert_cmpuint (viper_monalisa_setup_n_attributes (s, m), ==, 1);
      g_assert_cmpstr (viper_monalisa_setup_attribute_name (s, m, 0), ==, "RESULT");
    }
  gint64 members[8];
  g_assert_cmpuint (viper_monalisa_setup_group_members (s, 6, members, 8), ==, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpint (members[i], ==, 1 + i);
  g_assert_cmpuint (viper_monalisa_setup_group_members (s, 5, members, 8), ==, 5);
  g_assert_cmpint (members[0], ==, 0);
  g_assert_cmpint (members[4], ==, 4);
  g_assert_cmpuint (viper_monalisa_setup_group_members (s, 6, members, 2), ==, 2);
  g_assert_cmpuint (viper_monalisa_setup_group_members (s, 2, members, 8), ==, 0);   /* a module */
  g_assert_cmpuint (viper_monalisa_setup_group_members (s, 99, members, 8), ==, 0);
}

static void
test_example (void)
{
  char *text = variant (0, NULL, FALSE);
  GError *error = NULL;
  ViperMonalisaSetup *s = viper_monalisa_setup_parse (text, -1, "farm.setup", &error);
  g_assert_no_error (error);
  check_farm (s);
  viper_monalisa_setup_free (s);
  g_free (text);
}

/* The bundled file on disk, through the paradigm's reader. */
static void
test_load_file (void)
{
  const char *root = g_getenv ("VIPER_SOURCE_ROOT");
  if (!root)
    {
      g_test_skip ("VIPER_SOURCE_ROOT is not set");
      return;
    }
  char *path = g_build_filename (root, "setup", "farm.setup", NULL);
  GError *error = NULL;
  ViperMonalisaSetup *s = viper_monalisa_setup_load (path, &error);
  g_assert_no_error (error);
  check_farm (s);
  viper_monalisa_setup_free (s);
  ViperSetup *vs = viper_monalisa_paradigm.setup_load (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (vs);
  viper_monalisa_paradigm.setup_free (vs);
  g_free (path);

  s = viper_monalisa_setup_load ("/nonexistent/dir/none.setup", &error);
  g_assert_null (s);
  g_assert_error (error, VIPER_ML_SETUP_ERROR, VIPER_ML_SETUP_ERROR_READ);
  g_assert_nonnull (strstr (error->message, "/nonexistent/dir/none.setup"));
  g_clear_error (&error);
}

/* Column headers, blank lines, CRLF, tabs and the thesis's layout. */
static void
test_headers_and_layouts (void)
{
  const char *text =
    "MODULES:\r\n5\r\n\r\nGROUPS:\n1\n\nRANGE FOR GROUPS:\n1\t4\nDEFINITION TABLE:\n"
    "file name       module / group name     id\n"
    "farm.MASTER  module MASTER    0\n"
    "farm.SLAVE1  module SLAVE[1]  1\n"
    "farm.SLAVE2  SLAVE[2]  2\n"
    "farm.SLAVE3  module SLAVE[3]  3\n"
    "farm.SLAVE4  SLAVE[4]  4\n"
    "-  #  all_modules  #  5\n"
    "- replication group SLAVE 6\n\n"
    "#ATTRIBUTES for module MASTER#\n"
    "attribute name   id   type\n"
    "JOB 0 INTEGER(400)\n\n"
    "#ATTRIBUTES for module SLAVE#\n"
    "attribute name   id   type\n"
    "RESULT 0 INTEGER(400)\n";
  GError *error = NULL;
  ViperMonalisaSetup *s = viper_monalisa_setup_parse (text, -1, "t.setup", &error);
  g_assert_no_error (error);
  check_farm (s);
  viper_monalisa_setup_free (s);

  /* no groups: RANGE FOR GROUPS may be left out; a group's and an instance's
   * own attributes add up; a type may hold blanks or be absent */
  const char *text2 =
    "MODULES:\n3\nGROUPS:\n1\nRANGE FOR GROUPS:\n1 2\nDEFINITION TABLE:\n"
    "a A 0\nb W[1] 1\nc W[2] 2\n- # all_modules # 3\n- W 4\n"
    "#ATTRIBUTES for module W#\nIN 0 ARRAY OF INTEGER\n"
    "#ATTRIBUTES for module W[2]#\nEXTRA 1\n";
  s = viper_monalisa_setup_parse (text2, -1, "t2.setup", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (viper_monalisa_setup_n_attributes (s, 0), ==, 0);
  g_assert_cmpuint (viper_monalisa_setup_n_attributes (s, 1), ==, 1);
  g_assert_cmpuint (viper_monalisa_setup_n_attributes (s, 2), ==, 2);
  g_assert_cmpstr (viper_monalisa_setup_attribute_type (s, 1, 0), ==, "ARRAY OF INTEGER");
  g_assert_cmpstr (viper_monalisa_setup_attribute_name (s, 2, 1), ==, "EXTRA");
  g_assert_cmpstr (viper_monalisa_setup_attribute_type (s, 2, 1), ==, "");
  viper_monalisa_setup_free (s);

  s = viper_monalisa_setup_parse ("MODULES:\n1\nGROUPS:\n0\nDEFINITION TABLE:\nx X 0\n- # all_modules # 1\n", -1,
                                  "t3.setup", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (viper_monalisa_setup_n_modules (s), ==, 1);
  viper_monalisa_setup_free (s);
}

typedef struct {
  guint at;                 /* line to replace (1-based) */
  const char *repl;         /* NULL: remove it */
  gboolean truncate;        /* keep only the first `at` lines */
  const char *message;
} ErrorCase;

static const ErrorCase errors[] = {
  { 1, "MODULE:", FALSE, "e.setup:1:1: expected \"MODULES:\"" },
  { 2, "five", FALSE, "e.setup:2:1: expected the number of modules (an integer from 1 to 1000000)" },
  { 2, "0", FALSE, "e.setup:2:1: expected the number of modules (an integer from 1 to 1000000)" },
  { 1, NULL, TRUE, "e.setup:1:9: expected the number of modules (an integer from 1 to 1000000), found the end of the file" },
  { 3, "GROUP:", FALSE, "e.setup:3:1: expected \"GROUPS:\"" },
  { 4, "-1", FALSE, "e.setup:4:1: expected the number of groups (an integer from 0 to 100000)" },
  { 5, NULL, FALSE, "e.setup:5:1: expected \"RANGE FOR GROUPS:\"" },
  { 4, NULL, TRUE, "e.setup:4:2: expected \"RANGE FOR GROUPS:\", found the end of the file" },
  { 6, "1", FALSE, "e.setup:6:2: expected a group range \"FIRST SIZE\" (group 1 of 1)" },
  { 6, "3 4", FALSE, "e.setup:6:3: expected a group range inside the modules 0..4 (FIRST >= 0, SIZE >= 1)" },
  { 6, "1 0", FALSE, "e.setup:6:3: expected a group range inside the modules 0..4 (FIRST >= 0, SIZE >= 1)" },
  { 7, "DEFINITIONS:", FALSE, "e.setup:7:1: expected \"DEFINITION TABLE:\"" },
  { 8, "farm.MASTER MASTER", FALSE, "e.setup:8:19: expected a module definition \"FILE NAME ID\" (module 1 of 5)" },
  { 10, "farm.SLAVE2 SLAVE[2] two", FALSE, "e.setup:10:22: expected a module definition \"FILE NAME ID\" (module 3 of 5)" },
  { 9, "farm.SLAVE1 SLAVE[1] 5", FALSE, "e.setup:9:22: expected a module id from 0 to 4" },
  { 9, "farm.SLAVE1 SLAVE[1] 0", FALSE, "e.setup:9:22: expected a module id not defined before (0 is defined on line 8)" },
  { 9, "farm.SLAVE1 MASTER 1", FALSE, "e.setup:9:13: expected a module name not defined before (MASTER is defined on line 8)" },
  { 10, NULL, TRUE, "e.setup:10:25: expected a module definition \"FILE NAME ID\" (module 4 of 5), found the end of the file" },
  { 13, "- # all modules # 5", FALSE, "e.setup:13:9: expected \"- # all_modules # ID\"" },
  { 13, "- # all_modules # 3", FALSE, "e.setup:13:19: expected an all_modules id that is not a module id (0..4)" },
  { 14, "- SLAVE", FALSE, "e.setup:14:8: expected a group definition \"- NAME ID\" (group 1 of 1)" },
  { 14, "- SLAVE 5", FALSE, "e.setup:14:9: expected a group id that no module or group has (5 is taken)" },
  { 14, "- SLAVE 2", FALSE, "e.setup:14:9: expected a group id that no module or group has (2 is taken)" },
  { 14, "- MASTER 6", FALSE, "e.setup:14:3: expected a group name that no module or group has (MASTER is taken)" },
  { 15, "JOB 0 INTEGER(400)", FALSE, "e.setup:15:1: expected \"#ATTRIBUTES for module NAME#\"" },
  { 15, "#ATTRIBUTES for module BOSS#", FALSE, "e.setup:15:24: expected a module or group name of the DEFINITION TABLE (not BOSS)" },
  { 16, "JOB zero INTEGER(400)", FALSE, "e.setup:16:5: expected an attribute \"NAME ID TYPE\" or \"#ATTRIBUTES for module NAME#\"" },
  { 16, "JOB 1 INTEGER(400)", FALSE, "e.setup:16:5: expected attribute id 0 of module MASTER (ids run 0, 1, ... per module)" },
  /* where the reader was: the first word that is not what its place wants (the longest reading of
   * the forms a line may take), a surplus word, or just after the line when one is missing */
  { 2, "5 6", FALSE, "e.setup:2:3: expected the number of modules (an integer from 1 to 1000000)" },
  { 5, "RANGE FOR GROUP:", FALSE, "e.setup:5:11: expected \"RANGE FOR GROUPS:\"" },
  { 6, "1 4 9", FALSE, "e.setup:6:5: expected a group range \"FIRST SIZE\" (group 1 of 1)" },
  { 6, "-1 4", FALSE, "e.setup:6:1: expected a group range inside the modules 0..4 (FIRST >= 0, SIZE >= 1)" },
  { 8, "farm.MASTER module MASTER", FALSE, "e.setup:8:26: expected a module definition \"FILE NAME ID\" (module 1 of 5)" },
  { 8, "farm.MASTER  MASTER    0  extra", FALSE,
    "e.setup:8:27: expected a module definition \"FILE NAME ID\" (module 1 of 5)" },
  { 8, "farm.MASTER MASTER\r", FALSE, "e.setup:8:19: expected a module definition \"FILE NAME ID\" (module 1 of 5)" },
  { 13, "+ # all_modules # 5", FALSE, "e.setup:13:1: expected \"- # all_modules # ID\"" },
  { 13, "- # all_modules #", FALSE, "e.setup:13:18: expected \"- # all_modules # ID\"" },
  { 13, "- #all_modules# 5 6", FALSE, "e.setup:13:19: expected \"- # all_modules # ID\"" },
  { 14, "- replication group SLAVE x", FALSE, "e.setup:14:27: expected a group definition \"- NAME ID\" (group 1 of 1)" },
  { 14, "-\tSLAVE\t6\tx", FALSE, "e.setup:14:11: expected a group definition \"- NAME ID\" (group 1 of 1)" },
  { 16, "#JOB 0 INTEGER", FALSE, "e.setup:16:1: expected an attribute \"NAME ID TYPE\" or \"#ATTRIBUTES for module NAME#\"" },
};

static void
test_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (errors); i++)
    {
      const ErrorCase *c = &errors[i];
      char *text = variant (c->at, c->repl, c->truncate);
      GError *error = NULL;
      ViperMonalisaSetup *s = viper_monalisa_setup_parse (text, -1, "e.setup", &error);
      if (s)
        g_error ("case %u parsed: %s", i, text);
      g_assert_error (error, VIPER_ML_SETUP_ERROR, VIPER_ML_SETUP_ERROR_PARSE);
      g_assert_cmpstr (error->message, ==, c->message);
      g_error_free (error);
      g_free (text);
    }
  /* an empty file; a second group attribute id that does not continue the list */
  GError *error = NULL;
  g_assert_null (viper_monalisa_setup_parse ("", -1, "empty.setup", &error));
  g_assert_cmpstr (error->message, ==, "empty.setup:1:1: expected \"MODULES:\", found the end of the file");
  g_clear_error (&error);
  g_assert_null (viper_monalisa_setup_parse ("MODULES:\n1\nGROUPS:\n0\nDEFINITION TABLE:\nx X 0\n"
                                             "- # all_modules # 1\n#ATTRIBUTES for module X#\nA 0 I\nB 0 I\n",
                                             -1, "dup.setup", &error));
  g_assert_cmpstr (error->message, ==, "dup.setup:10:3: expected attribute id 1 of module X (ids run 0, 1, ... per module)");
  g_clear_error (&error);
  g_assert_null (viper_monalisa_setup_parse ("MODULES:\n1\0x", 12, "nul.setup", &error));
  g_assert_cmpstr (error->message, ==, "nul.setup:2:2: expected a text file (it contains a NUL byte)");
  g_clear_error (&error);
}

/* Issue 10 item 21: 60,000 modules in a group with 2,000 attribute lines.
 * Name lookups once scanned every module (quadratic: 15 s for 60 k) and a
 * group's attribute lines were copied to every member (here 120 M copies,
 * gigabytes); now both are O(1) per line, so this parses in a moment. */
static void
test_big_setup (void)
{
  const guint n = 60000, attrs = 2000;
  GString *t = g_string_new (NULL);
  g_string_append_printf (t, "MODULES:\n%u\nGROUPS:\n2\nRANGE FOR GROUPS:\n1 %u\n0 2\nDEFINITION TABLE:\n", n, n - 1);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (t, "f.M%u M%u %u\n", i, i, i);
  g_string_append_printf (t, "- # all_modules # %u\n- WORKERS %u\n- PAIR %u\n", n, n + 1, n + 2);
  g_string_append (t, "#ATTRIBUTES for module PAIR#\nFIRST 0 INTEGER\n#ATTRIBUTES for module M0#\nOWN 1 REAL\n");
  g_string_append (t, "#ATTRIBUTES for module WORKERS#\n");
  for (guint a = 0; a < attrs; a++)
    g_string_append_printf (t, "A%u %u INTEGER\n", a, a);
  GError *err = NULL;
  /* module 1 has FIRST (id 0) from PAIR, so WORKERS' ids start at 0 only
   * for modules 2..: a mismatch is reported, not guessed */
  ViperMonalisaSetup *bad = viper_monalisa_setup_parse (t->str, (gssize) t->len, "big.setup", &err);
  g_assert_null (bad);
  g_assert_nonnull (strstr (err->message, "attribute id 1 of module M1"));
  g_clear_error (&err);
  /* without the PAIR section every member's ids run 0 .. attrs-1 */
  char *ok_text = g_strdup (t->str);
  char *pair = strstr (ok_text, "#ATTRIBUTES for module PAIR#\nFIRST 0 INTEGER\n");
  memset (pair, '\n', strlen ("#ATTRIBUTES for module PAIR#\nFIRST 0 INTEGER\n"));
  strstr (ok_text, "OWN 1 REAL")[4] = '0';          /* M0's own ids now start at 0 */
  ViperMonalisaSetup *s = viper_monalisa_setup_parse (ok_text, -1, "big.setup", &err);
  g_assert_no_error (err);
  g_assert_nonnull (s);
  g_assert_cmpuint (viper_monalisa_setup_n_modules (s), ==, n);
  g_assert_cmpuint (viper_monalisa_setup_n_attributes (s, 0), ==, 1);
  g_assert_cmpstr (viper_monalisa_setup_attribute_name (s, 0, 0), ==, "OWN");
  for (guint m = 1; m < n; m += 7919)
    {
      g_assert_cmpuint (viper_monalisa_setup_n_attributes (s, m), ==, attrs);
      g_assert_cmpstr (viper_monalisa_setup_attribute_name (s, m, attrs - 1), ==, "A1999");
      g_assert_cmpstr (viper_monalisa_setup_attribute_type (s, m, 5), ==, "INTEGER");
    }
  gint64 *mem = g_new (gint64, n);
  g_assert_cmpuint (viper_monalisa_setup_group_members (s, n + 1, mem, n), ==, n - 1);
  g_assert_cmpint (mem[n - 2], ==, n - 1);
  g_assert_cmpuint (viper_monalisa_setup_group_members (s, n + 2, mem, n), ==, 2);
  g_free (mem);
  viper_monalisa_setup_free (s);
  g_free (ok_text);
  g_string_free (t, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/monalisa/setup/example", test_example);
  g_test_add_func ("/monalisa/setup/load-file", test_load_file);
  g_test_add_func ("/monalisa/setup/headers-and-layouts", test_headers_and_layouts);
  g_test_add_func ("/monalisa/setup/errors", test_errors);
  g_test_add_func ("/monalisa/setup/big", test_big_setup);
  return g_test_run ();
}
