/* damage.c - the damaged-area set.
 *
 * Areas are kept once each, in the order they were first marked, in an array
 * plus a hash for the membership test; marking an area already present is a
 * hash probe.  take() hands the array over and empties the set, which is
 * what the redraw timer does once per tick.
 */
#include "damage.h"

struct _ViperDamage {
  GArray *areas;            /* of ViperArea */
  GHashTable *index;        /* ViperArea* (into a private copy) -> 1 */
  guint64 marks;
  guint64 generation;
  gboolean disabled;
};

static guint
area_hash (gconstpointer p)
{
  const ViperArea *a = p;
  guint64 h = (guint64) a->kind * 0x9E3779B97F4A7C15ull ^ (guint64) a->a * 0xC2B2AE3D27D4EB4Full
              ^ (guint64) a->b * 0x165667B19E3779F9ull;
  return (guint) (h ^ (h >> 32));
}

static gboolean
area_equal (gconstpointer x, gconstpointer y)
{
  const ViperArea *a = x, *b = y;
  return a->kind == b->kind && a->a == b->a && a->b == b->b;
}

ViperDamage *
viper_damage_new (void)
{
  ViperDamage *d = g_new0 (ViperDamage, 1);
  d->areas = g_array_new (FALSE, FALSE, sizeof (ViperArea));
  d->index = g_hash_table_new_full (area_hash, area_equal, g_free, NULL);
  return d;
}

void
viper_damage_free (ViperDamage *d)
{
  if (!d)
    return;
  g_array_unref (d->areas);
  g_hash_table_destroy (d->index);
  g_free (d);
}

void
viper_damage_add (ViperDamage *d, ViperAreaKind kind, gint64 a, gint64 b)
{
  if (d->disabled)
    return;
  ViperArea area = { kind, a, b };
  d->marks++;
  if (g_hash_table_contains (d->index, &area))
    return;
  g_hash_table_add (d->index, g_memdup2 (&area, sizeof area));
  g_array_append_val (d->areas, area);
}

void
viper_damage_set_enabled (ViperDamage *d, gboolean enabled)
{
  d->disabled = !enabled;
  if (!enabled)
    viper_damage_clear (d);
  else
    d->generation++;        /* marks skipped while disabled must be made again */
}

gboolean
viper_damage_empty (const ViperDamage *d)
{
  return d->areas->len == 0;
}

guint
viper_damage_size (const ViperDamage *d)
{
  return d->areas->len;
}

gboolean
viper_damage_contains (const ViperDamage *d, ViperAreaKind kind, gint64 a, gint64 b)
{
  ViperArea area = { kind, a, b };
  return g_hash_table_contains (d->index, &area);
}

void
viper_damage_take (ViperDamage *d, GArray *out)
{
  g_array_append_vals (out, d->areas->data, d->areas->len);
  viper_damage_clear (d);
}

void
viper_damage_clear (ViperDamage *d)
{
  g_array_set_size (d->areas, 0);
  g_hash_table_remove_all (d->index);
  d->generation++;
}

guint64
viper_damage_marks (const ViperDamage *d)
{
  return d->marks;
}

guint64
viper_damage_generation (const ViperDamage *d)
{
  return d->generation;
}
