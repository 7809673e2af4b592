/* lights-fx.c - the lights tests' shared fixture (lights-fx.h). */
#include "lights-fx.h"

void
write_shot (cairo_surface_t *s, const char *name)
{
  char *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  cairo_surface_write_to_png (s, path);
  g_free (path);
}

ViperViewSetup *
parse (const char *text, GError **error)
{
  return viper_view_setup_parse (text, strlen (text), "c.view", error);
}

static void
sink (ViperDiagKind kind, const char *msg, gpointer data)
{
  Fx *fx = data;
  if (kind == VIPER_DIAG_BAD_INPUT)
    g_ptr_array_add (fx->bad, g_strdup (msg));
  else if (kind == VIPER_DIAG_NOTE)
    g_ptr_array_add (fx->notes, g_strdup (msg));
}

void
fx_init (Fx *fx, const char *setup_text)
{
  memset (fx, 0, sizeof *fx);
  viper_paradigms_register_all ();
  g_assert_true (viper_paradigm_lookup ("lights") == &viper_lights_paradigm);
  fx->pool = viper_tram_pool_new ();
  fx->fields = viper_tram_fields_new ();
  fx->channels = viper_channels_new ();
  fx->channel = viper_channels_add (fx->channels, "t.trc");
  fx->bad = g_ptr_array_new_with_free_func (g_free);
  fx->notes = g_ptr_array_new_with_free_func (g_free);
  viper_diag_init (&fx->diag, sink, fx);
  GError *error = NULL;
  fx->vs = parse (setup_text, &error);
  g_assert_no_error (error);
  fx->model = viper_lights_paradigm.model_new (&viper_lights_paradigm, (ViperSetup *) fx->vs);
  fx->model->diag = &fx->diag;
  viper_model_set_history (fx->model, 0);
  fx->run = viper_run_new (&viper_lights_paradigm, fx->model, fx->pool, fx->channels, &fx->diag, 0.5);
}

void
fx_clear (Fx *fx)
{
  viper_run_free (fx->run);
  g_assert_cmpuint (viper_tram_pool_live (fx->pool), ==, 0);
  viper_model_free (fx->model);
  viper_view_setup_free (fx->vs);
  viper_tram_pool_free (fx->pool);
  viper_tram_fields_free (fx->fields);
  viper_channels_free (fx->channels);
  viper_diag_clear (&fx->diag);
  g_ptr_array_unref (fx->bad);
  g_ptr_array_unref (fx->notes);
}

gboolean
feed (Fx *fx, const char *line)
{
  ViperLineKind kind;
  ViperParseError err;
  fx->lineno++;
  ViperTram *t = viper_tram_parse (fx->pool, fx->fields, line, strlen (line), &kind, &err);
  if (!t)
    {
      viper_diag_bad (&fx->diag, "t.trc", fx->lineno, err.column, "%s", err.reason);
      viper_run_count_rejected (fx->run, 1);
      return FALSE;
    }
  t->line = (guint32) fx->lineno;
  t->channel = fx->channel;
  gboolean ok = viper_run_insert (fx->run, t);
  const ViperTram *out;
  while ((out = viper_run_transfer_next (fx->run)))
    viper_model_apply (fx->model, out);
  return ok;
}

LightsLink
link_of (Fx *fx, gint64 a, gint64 b)
{
  gint i = lights_model_link_index (fx->model, a, b);
  g_assert_cmpint (i, >=, 0);
  LightsLink l;
  lights_model_link (fx->model, (guint) i, &l);
  return l;
}
