/* picl-map.c - the picl model's (a, b, c) -> (v0, v1) table (picl-map.h). */
#include <string.h>
#include "picl-map.h"

void
map_clear (Map *m)
{
  g_free (m->s);
  memset (m, 0, sizeof *m);
}

void
map_grow (Map *m)
{
  MapSlot *old = m->s;
  guint old_cap = m->cap;
  m->cap = old_cap ? old_cap * 2 : 64;
  m->s = g_new0 (MapSlot, m->cap);
  guint mask = m->cap - 1;
  for (guint i = 0; i < old_cap; i++)
    if (old[i].used)
      {
        guint j = old[i].hash & mask;
        while (m->s[j].used)
          j = (j + 1) & mask;
        m->s[j] = old[i];
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
      guint k = m->s[j].hash & mask;
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
