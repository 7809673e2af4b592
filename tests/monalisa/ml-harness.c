/* ml-harness.c - the driver the monalisa tests share: a real run (explicit
 * sequence numbers, one channel) with the monalisa model behind it, fed one
 * line at a time, transferring after each insert. */
#include <string.h>
#include "ml-harness.h"

const char *ml_farm_setup =
  "MODULES:\n5\nGROUPS:\n1\nRANGE FOR GROUPS:\n1 4\nDEFINITION TABLE:\n"
  "farm.MASTER  MASTER    0\nfarm.SLAVE1  SLAVE[1]  1\nfarm.SLAVE2  SLAVE[2]  2\n"
  "farm.SLAVE3  SLAVE[3]  3\nfarm.SLAVE4  SLAVE[4]  4\n- # all_modules # 5\n- SLAVE 6\n"
  "#ATTRIBUTES for module MASTER#\nJOB 0 INTEGER(400)\n"
  "#ATTRIBUTES for module SLAVE#\nRESULT 0 INTEGER(400)\n";

static void
sink (ViperDiagKind kind, const char *msg, gpointer data)
{
  MlHarness *h = data;
  if (kind == VIPER_DIAG_BAD_INPUT)
    h->bad++;
  else if (kind == VIPER_DIAG_WARNING)
    h->warnings++;
  if (g_test_verbose ())
    g_printerr ("diag: %s\n", msg);
}

void
ml_harness_init (MlHarness *h, const char *setup_text)
{
  memset (h, 0, sizeof *h);
  viper_paradigms_register_all ();
  g_assert_true (viper_paradigm_lookup ("monalisa") == &viper_monalisa_paradigm);
  h->pool = viper_tram_pool_new ();
  h->fields = viper_tram_fields_new ();
  h->channels = viper_channels_new ();
  h->channel = viper_channels_add (h->channels, "test.trc");
  viper_diag_init (&h->diag, sink, h);
  if (setup_text)
    {
      GError *error = NULL;
      h->setup = viper_monalisa_setup_parse (setup_text, -1, "test.setup", &error);
      g_assert_no_error (error);
    }
  h->model = viper_monalisa_paradigm.model_new (&viper_monalisa_paradigm, (ViperSetup *) h->setup);
  h->model->diag = &h->diag;
  h->run = viper_run_new (&viper_monalisa_paradigm, h->model, h->pool, h->channels, &h->diag, 0.5);
}

void
ml_harness_clear (MlHarness *h)
{
  viper_run_free (h->run);
  g_assert_cmpuint (viper_tram_pool_live (h->pool), ==, 0);
  viper_model_free (h->model);
  viper_monalisa_setup_free (h->setup);
  viper_tram_pool_free (h->pool);
  viper_tram_fields_free (h->fields);
  viper_channels_free (h->channels);
  viper_diag_clear (&h->diag);
}

static void
transfer_all (MlHarness *h)
{
  const ViperTram *x;
  while ((x = viper_run_transfer_next (h->run)))
    {
      viper_model_apply (h->model, x);
      h->transferred++;
    }
}

/* The input pauses (or ends): what waits for that goes (a program manager's
 * verdict), as the scheduler does when nothing is ready and nothing to read. */
void
ml_pause (MlHarness *h)
{
  while (viper_run_release_after_input (h->run))
    transfer_all (h);
}

/* One line in, everything ready out; no pause. */
void
ml_feed_line (MlHarness *h, const char *line)
{
  ViperLineKind kind;
  ViperParseError err;
  ViperTram *t = viper_tram_parse (h->pool, h->fields, line, strlen (line), &kind, &err);
  if (kind == VIPER_LINE_COMMENT)
    return;
  if (!t)
    g_error ("test line does not parse: %s: %s", line, err.reason);
  t->line = (guint32) ++h->lines;
  t->channel = h->channel;
  viper_run_insert (h->run, t);
  transfer_all (h);
}

/* One line delivered, then the input pauses (a live delivery). */
void
ml_feed (MlHarness *h, const char *line)
{
  ml_feed_line (h, line);
  ml_pause (h);
}

void
ml_feed_all (MlHarness *h, const char *const *lines, guint n)
{
  for (guint i = 0; i < n; i++)
    ml_feed (h, lines[i]);
}

void
ml_feed_file (MlHarness *h, const char *path)
{
  char *text = NULL;
  GError *error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  char **lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      char *s = g_strstrip (*l);
      if (*s)
        ml_feed_line (h, s);
    }
  ml_pause (h);       /* the end of the file */
  g_strfreev (lines);
  g_free (text);
}

ViperMonalisaModuleState
ml_state (MlHarness *h, gint64 module)
{
  g_assert_true (viper_monalisa_module_exists (h->model, module));
  return viper_monalisa_module_state (h->model, module);
}

ViperMonalisaPrim
ml_prim (MlHarness *h, gint64 module)
{
  ViperMonalisaPrimitive p;
  viper_monalisa_module_primitive (h->model, module, &p);
  return p.prim;
}

gint64
ml_partner (MlHarness *h, gint64 module)
{
  ViperMonalisaPrimitive p;
  viper_monalisa_module_primitive (h->model, module, &p);
  return p.partner;
}

gboolean
ml_exposed (MlHarness *h, gint64 module, gint64 var)
{
  return viper_monalisa_variable_exposed (h->model, module, var);
}

const char *
ml_program (MlHarness *h)
{
  return viper_model_program_state (h->model);
}

char *
ml_cycle (MlHarness *h)
{
  guint n;
  const gint64 *c = viper_monalisa_deadlock_cycle (h->model, &n);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "," : "", c[i]);
  return g_string_free (s, FALSE);
}

guint
ml_history_count (MlHarness *h, gint64 module, ViperMonalisaModuleState s)
{
  guint n = 0;
  for (guint i = 0; i < h->model->history->len; i++)
    {
      const ViperHistoryEntry *e = &g_array_index (h->model->history, ViperHistoryEntry, i);
      if (e->other == -1 && e->module == module && e->state == (gint32) s)
        n++;
    }
  return n;
}
