/* heap.h - binary min-heaps of value entries: the run's ready trams by
 * adjusted time (core/run.c) and the exporters' time merge
 * (paradigms/export.c).  The sifts are macros over the caller's entry type,
 * so each heap compares its entries inline with no indirect call.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Binary min-heaps of value entries (the keys beside the pointer, so that a
 * comparison touches no other memory), for the run's ready trams and the
 * exporters' merge: the caller owns the array and its length; LESS takes
 * two const pointers to entries.  Both move the hole, not swapped pairs. */

/* Put entry X into h, whose slot I is free at the end of the heap. */
#define VIPER_HEAP_SIFT_UP(h, i, x, LESS)                                       \
  do                                                                           \
    {                                                                          \
      guint i_ = (i);                                                          \
      while (i_ > 0)                                                           \
        {                                                                      \
          guint p_ = (i_ - 1) / 2;                                             \
          if (!LESS (&(x), &(h)[p_]))                                          \
            break;                                                             \
          (h)[i_] = (h)[p_];                                                   \
          i_ = p_;                                                             \
        }                                                                      \
      (h)[i_] = (x);                                                           \
    }                                                                          \
  while (0)

/* Put entry X (the last one, taken off) into h[0..n), whose root is free. */
#define VIPER_HEAP_SIFT_DOWN(h, n, x, LESS)                                     \
  do                                                                           \
    {                                                                          \
      guint i_ = 0, n_ = (n);                                                  \
      for (;;)                                                                 \
        {                                                                      \
          guint l_ = 2 * i_ + 1, m_;                                           \
          if (l_ >= n_)                                                        \
            break;                                                             \
          m_ = l_ + 1 < n_ && LESS (&(h)[l_ + 1], &(h)[l_]) ? l_ + 1 : l_;     \
          if (!LESS (&(h)[m_], &(x)))                                          \
            break;                                                             \
          (h)[i_] = (h)[m_];                                                   \
          i_ = m_;                                                             \
        }                                                                      \
      (h)[i_] = (x);                                                           \
    }                                                                          \
  while (0)

G_END_DECLS
