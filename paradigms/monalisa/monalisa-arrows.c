/* monalisa-arrows.c - the Mona Lisa model's messages underway (requests and
 * data between modules, for the animation and the space-time view), split
 * from monalisa-model.c. */
#include "monalisa-model-priv.h"

/* ---- messages underway ----------------------------------------------------- */

void
ml_arrow_send (MlModel *m, Module *from, gint64 to, ViperMonalisaArrowKind kind, ViperMonalisaPrim prim,
            gint64 var, Call *call)
{
  Arrow a = { { from->id, to, kind, prim, var, m->tram->adjusted }, 0, call };
  a.hist = m->base.history_dropped + (guint64) m->base.history->len;
  ViperHistoryEntry e = { m->tram->adjusted, NAN, (gint32) from->id, (gint32) to,
                          VIPER_ML_HISTORY_ARROW + (gint32) kind, (gint32) prim };
  viper_model_history_add (&m->base, &e);
  ArrowVec *v = &from->arrows;
  if (G_UNLIKELY (v->len == v->cap))
    {
      v->cap = MAX (8, 2 * v->cap);
      v->v = g_renew (Arrow, v->v, v->cap);
    }
  v->v[v->len++] = a;
  viper_damage_add (m->base.damage, VIPER_AREA_LINK, from->id, to);
  m->changed = TRUE;
}

/* The oldest message from -> to of this kind arrives; FALSE when none was sent. */
gboolean
ml_arrow_receive (MlModel *m, gint64 from, gint64 to, ViperMonalisaArrowKind kind, ViperMonalisaPrim prim,
               Call **call)
{
  Module *src = module_get (m, from);
  if (call)
    *call = NULL;
  if (!src)
    return FALSE;
  ArrowVec *v = &src->arrows;
  for (guint i = 0; i < v->len; i++)
    {
      Arrow *a = &v->v[i];
      if (a->a.to != to || a->a.kind != kind || a->a.prim != prim)
        continue;
      if (call)
        *call = a->call;
      if (a->hist >= m->base.history_dropped)
        {
          guint64 idx = a->hist - m->base.history_dropped;
          if (idx < m->base.history->len)
            g_array_index (m->base.history, ViperHistoryEntry, idx).t1 = m->tram->adjusted;
        }
      v->len--;
      if (i < v->len)
        memmove (a, a + 1, (v->len - i) * sizeof (Arrow));
      viper_damage_add (m->base.damage, VIPER_AREA_LINK, from, to);
      m->changed = TRUE;
      return TRUE;
    }
  return FALSE;
}
