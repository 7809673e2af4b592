/* picl-map.h - a small open-addressing table (a, b, c) -> (v0, v1) for the
 * picl model: fixed-size slots, linear probing, backward-shift deletion, so
 * the common path never allocates and a removed key leaves no tombstone.
 * Each slot keeps its key's hash: probes compare it before the key, and
 * deletion and growth move slots without hashing again. */
#pragma once

#include <glib.h>

typedef struct {
  gint64 a, b, c;
  gint64 v0, v1;
  guint32 hash;
  gboolean used;
} MapSlot;

typedef struct {
  MapSlot *s;
  guint cap;                /* power of two */
  guint n;
} Map;

static inline guint
map_hash (gint64 a, gint64 b, gint64 c)
{
  guint64 h = (guint64) a * 0x9E3779B97F4A7C15ull;
  h ^= ((guint64) b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  h = (h ^ (h >> 29)) + (guint64) c * 0x165667B19E3779F9ull;
  h ^= h >> 32;
  return (guint) h;
}

/* The slots' hash: keys are small integers, and three dependent multiplies
 * spread them over the high half, which the table uses. */
static inline guint
map_slot_hash (gint64 a, gint64 b, gint64 c)
{
  guint64 h = (((guint64) a * 0x9E3779B97F4A7C15ull + (guint64) b) * 0xC2B2AE3D27D4EB4Full + (guint64) c)
              * 0x165667B19E3779F9ull;
  return (guint) (h >> 32);
}

void map_clear (Map *m);
/* Doubles the table (64 slots the first time). */
void map_grow (Map *m);
/* Removes a slot (from map_lookup / map_insert); invalidates slot pointers. */
void map_remove (Map *m, MapSlot *slot);

/* Lookup and insert are inline: the picl apply does several per message,
 * and a call's prologue and epilogue cost as much as the probe. */
static inline MapSlot *
map_lookup (const Map *m, gint64 a, gint64 b, gint64 c)
{
  if (!m->n)
    return NULL;
  guint mask = m->cap - 1;
  guint h = map_slot_hash (a, b, c);
  for (guint i = h & mask;; i = (i + 1) & mask)
    {
      MapSlot *s = &m->s[i];
      if (!s->used)
        return NULL;
      if (s->hash == h && s->a == a && s->b == b && s->c == c)
        return s;
    }
}

/* The slot of (a, b, c), created zeroed when absent.  Invalidates slot
 * pointers obtained before it. */
static inline MapSlot *
map_insert (Map *m, gint64 a, gint64 b, gint64 c, gboolean *created)
{
  if (G_UNLIKELY ((m->n + 1) * 2 > m->cap))
    map_grow (m);
  guint mask = m->cap - 1;
  guint h = map_slot_hash (a, b, c);
  for (guint i = h & mask;; i = (i + 1) & mask)
    {
      MapSlot *s = &m->s[i];
      if (!s->used)
        {
          *s = (MapSlot) { .a = a, .b = b, .c = c, .hash = h, .used = TRUE };
          m->n++;
          if (created)
            *created = TRUE;
          return s;
        }
      if (s->hash == h && s->a == a && s->b == b && s->c == c)
        {
          if (created)
            *created = FALSE;
          return s;
        }
    }
}
