/* heap.h - a binary min-heap of pointers in a GPtrArray.
 *
 * Shared by the run merge (ready trams by adjusted time) and the exporters'
 * time merge.  The functions are static inline and take the ordering as a
 * function pointer: a caller passing a known static function gets it
 * inlined, so the hot path pays no indirect call.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef gboolean (*ViperHeapLess) (gconstpointer a, gconstpointer b);

static inline void
viper_heap_push (GPtrArray *h, gpointer item, ViperHeapLess less)
{
  g_ptr_array_add (h, item);
  guint i = h->len - 1;
  while (i > 0)
    {
      guint p = (i - 1) / 2;
      if (!less (h->pdata[i], h->pdata[p]))
        break;
      gpointer tmp = h->pdata[i];
      h->pdata[i] = h->pdata[p];
      h->pdata[p] = tmp;
      i = p;
    }
}

/* The smallest item, removed; NULL when empty. */
static inline gpointer
viper_heap_pop (GPtrArray *h, ViperHeapLess less)
{
  if (h->len == 0)
    return NULL;
  gpointer top = h->pdata[0];
  h->pdata[0] = h->pdata[h->len - 1];
  g_ptr_array_set_size (h, h->len - 1);
  guint i = 0, n = h->len;
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < n && less (h->pdata[l], h->pdata[m]))
        m = l;
      if (r < n && less (h->pdata[r], h->pdata[m]))
        m = r;
      if (m == i)
        break;
      gpointer tmp = h->pdata[i];
      h->pdata[i] = h->pdata[m];
      h->pdata[m] = tmp;
      i = m;
    }
  return top;
}

G_END_DECLS
