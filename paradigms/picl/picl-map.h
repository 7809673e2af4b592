/* picl-map.h - a small open-addressing table (a, b, c) -> (v0, v1) for the
 * picl model: fixed-size slots, linear probing, backward-shift deletion, so
 * the common path never allocates and a removed key leaves no tombstone. */
#pragma once

#include <glib.h>

typedef struct {
  gint64 a, b, c;
  gint64 v0, v1;
  gboolean used;
} MapSlot;

typedef struct {
  MapSlot *s;
  guint cap;                /* power of two */
  guint n;
} Map;

guint map_hash (gint64 a, gint64 b, gint64 c);
void map_clear (Map *m);
MapSlot *map_lookup (const Map *m, gint64 a, gint64 b, gint64 c);
/* The slot of (a, b, c), created zeroed when absent.  Invalidates slot
 * pointers obtained before it. */
MapSlot *map_insert (Map *m, gint64 a, gint64 b, gint64 c, gboolean *created);
/* Removes a slot (from map_lookup / map_insert); invalidates slot pointers. */
void map_remove (Map *m, MapSlot *slot);
