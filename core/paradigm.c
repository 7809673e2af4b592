/* paradigm.c - the paradigm registry.
 *
 * Paradigms register one static description each (paradigms/paradigms.c
 * lists them); lookups are by name.  The (REC, EV) -> tram type index is a
 * hash built on first use per paradigm, so a lookup is O(1) however large the
 * table.  Registration is expected at start-up; lookups after that are
 * read-only and safe from any thread.
 */
#include "paradigm.h"

typedef struct {
  const ViperParadigm *paradigm;
  GHashTable *types;        /* packed (rec, ev) -> index + 1 */
} Entry;

static GPtrArray *registry;     /* of Entry* */
static GMutex registry_lock;

static gboolean
pack_key (gint64 rec, gint64 ev, guint64 *key)
{
  if (rec < G_MININT32 || rec > G_MAXINT32 || ev < G_MININT32 || ev > G_MAXINT32)
    return FALSE;
  *key = ((guint64) (guint32) rec << 32) | (guint32) ev;
  return TRUE;
}

void
viper_paradigm_register (const ViperParadigm *p)
{
  g_return_if_fail (p != NULL && p->name != NULL);
  g_mutex_lock (&registry_lock);
  if (!registry)
    registry = g_ptr_array_new ();
  for (guint i = 0; i < registry->len; i++)
    {
      Entry *e = registry->pdata[i];
      if (g_str_equal (e->paradigm->name, p->name))
        {
          g_mutex_unlock (&registry_lock);
          return;
        }
    }
  Entry *e = g_new0 (Entry, 1);
  e->paradigm = p;
  e->types = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < p->n_types; i++)
    {
      guint64 k;
      if (!pack_key (p->types[i].rec, p->types[i].ev, &k))
        continue;
      gint64 *key = g_new (gint64, 1);
      *key = (gint64) k;
      g_hash_table_insert (e->types, key, GUINT_TO_POINTER (i + 1));
    }
  g_ptr_array_add (registry, e);
  g_mutex_unlock (&registry_lock);
}

static Entry *
find_entry (const ViperParadigm *p)
{
  if (!registry)
    return NULL;
  for (guint i = 0; i < registry->len; i++)
    {
      Entry *e = registry->pdata[i];
      if (e->paradigm == p)
        return e;
    }
  return NULL;
}

const ViperParadigm *
viper_paradigm_lookup (const char *name)
{
  if (!registry || !name)
    return NULL;
  for (guint i = 0; i < registry->len; i++)
    {
      Entry *e = registry->pdata[i];
      if (g_str_equal (e->paradigm->name, name))
        return e->paradigm;
    }
  return NULL;
}

const ViperParadigm *const *
viper_paradigm_list (guint *n)
{
  static const ViperParadigm *list[64];
  guint count = 0;
  if (registry)
    for (guint i = 0; i < registry->len && count < G_N_ELEMENTS (list) - 1; i++)
      list[count++] = ((Entry *) registry->pdata[i])->paradigm;
  list[count] = NULL;
  if (n)
    *n = count;
  return list;
}

guint16
viper_paradigm_type_index (const ViperParadigm *p, gint64 rec, gint64 ev)
{
  guint64 k;
  if (!pack_key (rec, ev, &k))
    return VIPER_TYPE_UNKNOWN;
  Entry *e = find_entry (p);
  if (!e)
    {
      /* Not registered (a test's private paradigm): linear scan. */
      for (guint i = 0; i < p->n_types; i++)
        if (p->types[i].rec == rec && p->types[i].ev == ev)
          return (guint16) i;
      return VIPER_TYPE_UNKNOWN;
    }
  gint64 key = (gint64) k;
  gpointer v = g_hash_table_lookup (e->types, &key);
  return v ? (guint16) (GPOINTER_TO_UINT (v) - 1) : VIPER_TYPE_UNKNOWN;
}
