/* switchnet.c - the description of the switchnet paradigm.
 *
 * Every tram is an instant event of one switch (PROC = the switch's index in
 * the model file) with D1 = the switch's sequence number: a port's counter
 * changes, a processor port's job changes, a port's total, the end of the
 * series.  No tram waits for another switch's, so the run orders each
 * switch's trams by sequence and nothing else.  The setup file is the model
 * file (which may name an init file and route files).
 */
#include "switchnet.h"
#include "switchnet-render.h"

#define NF VIPER_NO_FIELD

/* min_ndata = the exact NDATA: exact_ndata */
static const ViperTramType swn_types[] = {
  { SWN_REC, SWN_EV_VALUE, "port_value", VIPER_ROLE_FREE, 0, 0, NF, NF, 3 },
  { SWN_REC, SWN_EV_JOB, "port_job", VIPER_ROLE_FREE, 0, 0, NF, NF, 3 },
  { SWN_REC, SWN_EV_TOTAL, "port_total", VIPER_ROLE_FREE, 0, 0, NF, NF, 3 },
  { SWN_REC, SWN_EV_END, "series_end", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
  { SWN_REC, SWN_EV_STEP, "step", VIPER_ROLE_FREE, 0, 0, NF, NF, 1 },
};

static gboolean
swn_validate (const ViperTram *t, guint *field, char *reason, gsize size)
{
  /* the core checked the exact NDATA and the integer data (exact_ndata) */
  const ViperTramType *tt = &swn_types[t->type];
  if (!(t->time >= 0 && t->time <= 1e12))
    {
      *field = 0;
      g_snprintf (reason, size, "%s: TIME is a time step, 0..1e12", tt->name);
      return FALSE;
    }
  return TRUE;
}

/* The setup is a model file, or an init file that names its model file
 * (`model FILE`, relative to the init file; `model_dir` is tried too): its
 * settings then apply over the model's own init file, so that one model can
 * be shown in several ways without editing it. */
static SwnNet *
load_via_init (const char *path, GError **error)
{
  SwnInit in;
  swn_init_defaults (&in);
  if (!swn_init_load (&in, path, error))
    {
      swn_init_clear (&in);
      return NULL;
    }
  char *dir = g_path_get_dirname (path);
  char *model = NULL;
  if (g_path_is_absolute (in.model))
    model = g_strdup (in.model);
  else if (in.model_dir)
    {
      model = g_path_is_absolute (in.model_dir) ? g_build_filename (in.model_dir, in.model, NULL)
                                                : g_build_filename (dir, in.model_dir, in.model, NULL);
      if (!g_file_test (model, G_FILE_TEST_EXISTS))
        g_clear_pointer (&model, g_free);
    }
  if (!model)
    model = g_build_filename (dir, in.model, NULL);
  g_free (dir);
  swn_init_clear (&in);
  SwnNet *n = swn_net_load (model, error);
  g_free (model);
  if (n && !swn_init_load (&n->init, path, error))
    {
      swn_net_free (n);
      return NULL;
    }
  return n;
}

static gboolean
names_model (const char *path)
{
  SwnInit in;
  swn_init_defaults (&in);
  gboolean yes = g_str_has_suffix (path, ".init") && swn_init_load (&in, path, NULL) && in.model;
  swn_init_clear (&in);
  return yes;
}

ViperSetup *
swn_setup_load (const char *path, GError **error)
{
  SwnNet *n = names_model (path) ? load_via_init (path, error) : swn_net_load (path, error);
  if (!n)
    return NULL;
  if (!swn_net_follow_init_route (n, error) || !swn_net_resolve_select (n, error))
    {
      swn_net_free (n);
      return NULL;
    }
  return (ViperSetup *) n;
}

void
swn_setup_free (ViperSetup *setup)
{
  swn_net_free ((SwnNet *) setup);
}

const ViperParadigm viper_switchnet_paradigm = {
  .name = "switchnet",
  .description = "switch networks: per-port counters and jobs over a model of switches, cables and routes",
  .explicit_seq = TRUE,
  .types = swn_types,
  .n_types = G_N_ELEMENTS (swn_types),
  .profiles = NULL,
  .n_profiles = 0,
  .exact_ndata = TRUE,
  .validate = swn_validate,
  .group_members = NULL,
  .model_new = swn_model_new,
  .setup_load = swn_setup_load,
  .setup_free = swn_setup_free,
  .setup_required = "a .swm network model, or an .init file that names its model",
  .render = &swn_renderer,
  .export = NULL,
};
