/* picl-map.c - the picl model's (a, b, c) -> (v0, v1) table (picl-map.h). */
#include <string.h>
#include "picl-map.h"

guint
map_hash (gint64 a, gint64 b, gint64 c)
{
  guint64 h = (guint64) a * 0x9E3779B97F4A7C15ull;
  h ^= ((guint64) b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  h = (h ^ (h >> 29)) + (guint64) c * 0x165667B19E3779F9ull;
  h ^= h >> 32;
  return (guint) h;
}

void
map_clear (Map *m)
{
  g_free (m->s);
  memset (m, 0, sizeof *m);
}

MapSlot *
map_lookup (const Map *m, gint64 a, gint64 b, gint64 c)
{
  if (!m->n)
    return NULL;
  guint mask = m->cap - 1;
  for (guint i = map_hash (a, b, c) & mask;; i = (i + 1) & mask)
    {
      MapSlot *s = &m->s[i];
      if (!s->used)
        return NULL;
      if (s->a == a && s->b == b && s->c == c)
        return s;
    }
}

static void map_grow (Map *m);

MapSlot *
map_insert (Map *m, gint64 a, gint64 b, gint64 c, gboolean *created)
{
  if ((m->n + 1) * 2 > m->cap)
    map_grow (m);
  guint mask = m->cap - 1;
  for (guint i = map_hash (a, b, c) & mask;; i = (i + 1) & mask)
    {
      MapSlot *s = &m->s[i];
      if (!s->used)
        {
          memset (s, 0, sizeof *s);
          s->a = a, s->b = b, s->c = c;
          s->used = TRUE;
          m->n++;
          if (created)
            *created = TRUE;
          return s;
        }
      if (s->a == a && s->b == b && s->c == c)
        {
          if (created)
            *created = FALSE;
          return s;
        }
    }
}

static void
map_grow (Map *m)
{
  MapSlot *old = m->s;
  guint old_cap = m->cap;
  m->cap = old_cap ? old_cap * 2 : 64;
  m->s = g_new0 (MapSlot, m->cap);
  m->n = 0;
  for (guint i = 0; i < old_cap; i++)
    if (old[i].used)
      {
        MapSlot *s = map_insert (m, old[i].a, old[i].b, old[i].c, NULL);
        s->v0 = old[i].v0;
        s->v1 = old[i].v1;
      }
  g_free (old);
}

void
map_remove (Map *m, MapSlot *slot)
{
  guint mask = m->cap - 1;
  guint i = (guint) (slot - m->s);
  for (guint j = i;;)
    {
      j = (j + 1) & mask;
      if (!m->s[j].used)
        break;
      guint k = map_hash (m->s[j].a, m->s[j].b, m->s[j].c) & mask;
      /* s[j] may move into the hole at i only if its home k is not in (i, j] */
      gboolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays)
        continue;
      m->s[i] = m->s[j];
      i = j;
    }
  m->s[i].used = FALSE;
  m->n--;
}
