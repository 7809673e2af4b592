/* monalisa-snapshot.c - checkpoints of the Mona Lisa model (core/model.h),
 * split from monalisa-model.c. */
#include "monalisa-model-priv.h"

/* ---- checkpoints (core/model.h) ---------------------------------------------
 * A snapshot is a deep copy of the modules (their variables, the messages
 * underway and the open inrglb calls, whose pointers are remapped to the
 * copies) and of the program-state bookkeeping; restore copies it back, so
 * the snapshot stays intact for the next restore. */

typedef struct {
  GPtrArray *modules;
  guint n_exist, n_started, n_finished, n_blocked;
  ViperMonalisaProgramState derived, reported;
  GArray *cycle, *reported_list;
  gboolean dirty;
} MlSnap;

static Call *
call_map (GHashTable *map, Call *c)
{
  return c ? g_hash_table_lookup (map, c) : NULL;
}

static GPtrArray *
modules_copy (GPtrArray *src, gsize *bytes)
{
  GPtrArray *dst = g_ptr_array_new_full (src->len, ml_module_free);
  GHashTable *map = g_hash_table_new (g_direct_hash, g_direct_equal);
  gsize b = src->len * sizeof (gpointer);
  for (guint i = 0; i < src->len; i++)
    {
      const Module *o = src->pdata[i];
      if (!o)
        {
          g_ptr_array_add (dst, NULL);
          continue;
        }
      Module *n = g_new (Module, 1);
      *n = *o;
      n->name = g_strdup (o->name);
      n->vars = g_array_sized_new (FALSE, FALSE, sizeof (Var), o->vars->len);
      g_array_set_clear_func (n->vars, ml_var_clear);
      for (guint k = 0; k < o->vars->len; k++)
        {
          Var v = g_array_index (o->vars, Var, k);
          v.name = g_strdup (v.name);
          g_array_append_val (n->vars, v);
        }
      n->calls = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; k < o->calls->len; k++)
        {
          Call *c = g_memdup2 (o->calls->pdata[k], sizeof (Call));
          g_hash_table_insert (map, o->calls->pdata[k], c);
          g_ptr_array_add (n->calls, c);
        }
      n->arrows.len = n->arrows.cap = o->arrows.len;
      n->arrows.v = g_memdup2 (o->arrows.v, o->arrows.len * sizeof (Arrow));
      b += sizeof (Module) + o->vars->len * (sizeof (Var) + 16) + o->calls->len * sizeof (Call)
           + o->arrows.len * sizeof (Arrow) + (o->name ? strlen (o->name) + 1 : 0);
      g_ptr_array_add (dst, n);
    }
  /* the current call and the requests' calls: pointers to the copies */
  for (guint i = 0; i < dst->len; i++)
    {
      Module *n = dst->pdata[i];
      if (!n)
        continue;
      n->call = call_map (map, n->call);
      for (guint k = 0; k < n->arrows.len; k++)
        {
          Arrow *a = &n->arrows.v[k];
          a->call = call_map (map, a->call);
        }
    }
  g_hash_table_destroy (map);
  if (bytes)
    *bytes = b;
  return dst;
}

gpointer
ml_snapshot (const ViperModel *base, gsize *bytes)
{
  const MlModel *m = CML (base);
  MlSnap *s = g_new0 (MlSnap, 1);
  s->modules = modules_copy (m->modules, bytes);
  s->n_exist = m->n_exist;
  s->n_started = m->n_started;
  s->n_finished = m->n_finished;
  s->n_blocked = m->n_blocked;
  s->derived = m->derived;
  s->reported = m->reported;
  s->cycle = g_array_copy (m->cycle);
  s->reported_list = g_array_copy (m->reported_list);
  s->dirty = m->dirty;
  *bytes += sizeof *s + (m->cycle->len + m->reported_list->len) * sizeof (gint64);
  return s;
}

void
ml_restore (ViperModel *base, gconstpointer snap)
{
  MlModel *m = ML (base);
  const MlSnap *s = snap;
  g_ptr_array_unref (m->modules);
  m->modules = modules_copy (s->modules, NULL);
  m->n_exist = s->n_exist;
  m->n_started = s->n_started;
  m->n_finished = s->n_finished;
  m->n_blocked = s->n_blocked;
  m->derived = s->derived;
  m->reported = s->reported;
  g_array_set_size (m->cycle, 0);
  g_array_append_vals (m->cycle, s->cycle->data, s->cycle->len);
  g_array_set_size (m->reported_list, 0);
  g_array_append_vals (m->reported_list, s->reported_list->data, s->reported_list->len);
  m->dirty = s->dirty;
}

void
ml_snapshot_free (gpointer snap)
{
  MlSnap *s = snap;
  g_ptr_array_unref (s->modules);
  g_array_unref (s->cycle);
  g_array_unref (s->reported_list);
  g_free (s);
}
