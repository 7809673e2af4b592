/* varint.h - the compact integer encoding of the run-order trail (trail.c)
 * and the trams kept for global time (clockkeep.c): unsigned values in
 * groups of 7 bits, low group first, the high bit set on every byte but the
 * last; signed values zigzag-mapped first (0, -1, 1, -2 ... -> 0, 1, 2, 3 ...)
 * so small magnitudes stay short.  At most 10 bytes a value.  Readers trust
 * their writer: the bytes come from the same process, never from input. */
#pragma once

#include <glib.h>

static inline guint8 *
viper_varint_put_u (guint8 *p, guint64 v)
{
  while (v >= 0x80)
    {
      *p++ = (guint8) (v | 0x80);
      v >>= 7;
    }
  *p++ = (guint8) v;
  return p;
}

static inline guint8 *
viper_varint_put_s (guint8 *p, gint64 v)
{
  return viper_varint_put_u (p, ((guint64) v << 1) ^ (guint64) (v >> 63));
}

static inline guint64
viper_varint_get_u (const guint8 **pp)
{
  const guint8 *p = *pp;
  guint64 v = 0;
  guint shift = 0;
  while (*p & 0x80)
    {
      v |= (guint64) (*p++ & 0x7f) << shift;
      shift += 7;
    }
  v |= (guint64) *p++ << shift;
  *pp = p;
  return v;
}

static inline gint64
viper_varint_get_s (const guint8 **pp)
{
  guint64 u = viper_varint_get_u (pp);
  return (gint64) (u >> 1) ^ -(gint64) (u & 1);
}
