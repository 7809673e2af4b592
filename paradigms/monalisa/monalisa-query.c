/* monalisa-query.c - the Mona Lisa model's read-only accessors (monalisa.h)
 * and its --state-out fields, split from monalisa-model.c. */
#include "monalisa-model-priv.h"

/* ---- accessors ------------------------------------------------------------------------ */

const char *
viper_monalisa_module_state_name (ViperMonalisaModuleState s)
{
  switch (s)
    {
    case VIPER_ML_EXECUTING: return "executing";
    case VIPER_ML_INTERACTING: return "interacting";
    case VIPER_ML_BLOCKED: return "blocked";
    case VIPER_ML_INACTIVE:
    default: return "inactive";
    }
}

const char *
viper_monalisa_program_state_name (ViperMonalisaProgramState s)
{
  switch (s)
    {
    case VIPER_ML_PROGRAM_RUNNING: return "running";
    case VIPER_ML_PROGRAM_DEADLOCK: return "deadlock";
    case VIPER_ML_PROGRAM_ABNORMAL: return "abnormal";
    case VIPER_ML_PROGRAM_TERMINATED: return "terminated";
    case VIPER_ML_PROGRAM_INACTIVE:
    default: return "inactive";
    }
}

guint
viper_monalisa_model_n_modules (const ViperModel *m)
{
  return CML (m)->modules->len;
}

gboolean
viper_monalisa_module_exists (const ViperModel *m, gint64 module)
{
  return module_get (CML (m), module) != NULL;
}

const char *
viper_monalisa_module_name (const ViperModel *m, gint64 module)
{
  const Module *mod = module_get (CML (m), module);
  return mod ? mod->name : NULL;
}

ViperMonalisaModuleState
viper_monalisa_module_state (const ViperModel *m, gint64 module)
{
  const Module *mod = module_get (CML (m), module);
  return mod ? mod->state : VIPER_ML_INACTIVE;
}

gboolean
viper_monalisa_module_started (const ViperModel *m, gint64 module)
{
  const Module *mod = module_get (CML (m), module);
  return mod && mod->started;
}

gboolean
viper_monalisa_module_finished (const ViperModel *m, gint64 module)
{
  const Module *mod = module_get (CML (m), module);
  return mod && mod->finished;
}

gboolean
viper_monalisa_module_primitive (const ViperModel *m, gint64 module, ViperMonalisaPrimitive *out)
{
  const Module *mod = module_get (CML (m), module);
  ViperMonalisaPrimitive none = { VIPER_ML_PRIM_NONE, -1, -1 };
  *out = mod ? mod->prim : none;
  return out->prim != VIPER_ML_PRIM_NONE;
}

gboolean
viper_monalisa_module_any_exposed (const ViperModel *m, gint64 module)
{
  const Module *mod = module_get (CML (m), module);
  if (!mod)
    return FALSE;
  for (guint i = 0; i < mod->vars->len; i++)
    if (g_array_index (mod->vars, Var, i).exposed)
      return TRUE;
  return FALSE;
}

guint
viper_monalisa_module_n_variables (const ViperModel *m, gint64 module)
{
  const Module *mod = module_get (CML (m), module);
  return mod ? mod->vars->len : 0;
}

const char *
viper_monalisa_variable_name (const ViperModel *m, gint64 module, gint64 var)
{
  const Var *v = var_get (module_get (CML (m), module), var);
  return v ? v->name : NULL;
}

gboolean
viper_monalisa_variable_exposed (const ViperModel *m, gint64 module, gint64 var)
{
  return var_exposed (module_get (CML (m), module), var);
}

guint
viper_monalisa_variable_slice (const ViperModel *m, gint64 module, gint64 var, gint64 *offset, gint64 *size)
{
  const Var *v = var_get (module_get (CML (m), module), var);
  if (!v)
    return 0;
  for (guint k = 0; k < v->n_dims; k++)
    {
      if (offset)
        offset[k] = v->offset[k];
      if (size)
        size[k] = v->size[k];
    }
  return v->n_dims;
}

guint
viper_monalisa_module_n_arrows (const ViperModel *m, gint64 module)
{
  const Module *mod = module_get (CML (m), module);
  return mod ? mod->arrows.len : 0;
}

const ViperMonalisaArrow *
viper_monalisa_module_arrow (const ViperModel *m, gint64 module, guint i)
{
  const Module *mod = module_get (CML (m), module);
  if (!mod || i >= mod->arrows.len)
    return NULL;
  return &mod->arrows.v[i].a;
}

ViperMonalisaProgramState
viper_monalisa_program_state (const ViperModel *m)
{
  return CML (m)->reported != VIPER_ML_PROGRAM_INACTIVE ? CML (m)->reported : CML (m)->derived;
}

ViperMonalisaProgramState
viper_monalisa_program_state_derived (const ViperModel *m)
{
  return CML (m)->derived;
}

ViperMonalisaProgramState
viper_monalisa_reported (const ViperModel *m)
{
  return CML (m)->reported;
}

const gint64 *
viper_monalisa_deadlock_cycle (const ViperModel *m, guint *n)
{
  *n = CML (m)->cycle->len;
  return (const gint64 *) (void *) CML (m)->cycle->data;
}

void
viper_monalisa_record_changes (const ViperModel *m)
{
  /* a switch of the model's bookkeeping, not of its state: the exporter
   * that reads them holds the model const */
  ((MlModel *) (gpointer) CML (m))->want_changes = TRUE;
}

const ViperMonalisaChange *
viper_monalisa_changes (const ViperModel *m, guint *n)
{
  *n = CML (m)->changes->len;
  return (const ViperMonalisaChange *) (void *) CML (m)->changes->data;
}

/* ---- --state-out and groups (the model class's read-only hooks) ---------------------- */

void
ml_write_top (const ViperModel *base, ViperJson *j)
{
  const MlModel *m = CML (base);
  viper_json_key (j, "reported");
  viper_json_string (j, m->reported == VIPER_ML_PROGRAM_INACTIVE ? NULL
                        : viper_monalisa_program_state_name (m->reported));
  viper_json_key (j, "deadlock_cycle");
  viper_json_begin_array (j);
  for (guint i = 0; i < m->cycle->len; i++)
    viper_json_int (j, g_array_index (m->cycle, gint64, i));
  viper_json_end_array (j);
}

void
ml_write_modules (const ViperModel *base, const ViperRun *run, ViperJson *j)
{
  const MlModel *m = CML (base);
  for (guint i = 0; i < m->modules->len; i++)
    {
      const Module *mod = m->modules->pdata[i];
      if (!mod)
        continue;
      viper_json_begin_object (j);
      viper_json_key (j, "id"); viper_json_int (j, mod->id);
      viper_json_key (j, "name"); viper_json_string (j, mod->name);
      viper_json_key (j, "state"); viper_json_string (j, viper_monalisa_module_state_name (mod->state));
      viper_json_key (j, "started"); viper_json_bool (j, mod->started);
      viper_json_key (j, "finished"); viper_json_bool (j, mod->finished);
      viper_json_key (j, "primitive");
      if (mod->prim.prim == VIPER_ML_PRIM_NONE)
        viper_json_null (j);
      else
        {
          viper_json_begin_object (j);
          viper_json_key (j, "name"); viper_json_string (j, viper_monalisa_prim_name (mod->prim.prim));
          viper_json_key (j, "partner");
          if (mod->prim.partner < 0)
            viper_json_null (j);
          else
            viper_json_int (j, mod->prim.partner);
          viper_json_key (j, "var"); viper_json_int (j, mod->prim.var);
          viper_json_end_object (j);
        }
      viper_json_key (j, "variables");
      viper_json_begin_array (j);
      for (guint v = 0; v < mod->vars->len; v++)
        {
          const Var *var = &g_array_index (mod->vars, Var, v);
          viper_json_begin_object (j);
          viper_json_key (j, "id"); viper_json_int (j, v);
          viper_json_key (j, "name"); viper_json_string (j, var->name);
          viper_json_key (j, "state"); viper_json_string (j, var->exposed ? "exposed" : "hidden");
          viper_json_end_object (j);
        }
      viper_json_end_array (j);
      viper_json_key (j, "offset"); viper_json_double (j, run ? viper_run_offset (run, mod->id) : 0.0);
      viper_clock_sync_write_module (run, mod->id, j);
      viper_json_end_object (j);
    }
}

guint
ml_group_members (const ViperModel *base, gint64 group, gint64 *out, guint max)
{
  const MlModel *m = CML (base);
  return m->setup ? viper_monalisa_setup_group_members (m->setup, group, out, max) : 0;
}
