/* test-pixels.h - reading a rendered view's pixels, for the tests that
 * probe what a view drew (tests/gui). */
#pragma once

#include <cairo.h>
#include <glib.h>
#include <math.h>

/* The RGB (0xRRGGBB) of the pixel containing (x, y) of an image surface
 * in CAIRO_FORMAT_RGB24 or ARGB32; outside the surface fails the test. */
static inline guint32
test_pixel (cairo_surface_t *s, double x, double y)
{
  int ix = (int) floor (x), iy = (int) floor (y);
  g_assert_cmpint (ix, >=, 0);
  g_assert_cmpint (iy, >=, 0);
  g_assert_cmpint (ix, <, cairo_image_surface_get_width (s));
  g_assert_cmpint (iy, <, cairo_image_surface_get_height (s));
  const unsigned char *row = cairo_image_surface_get_data (s) + iy * cairo_image_surface_get_stride (s);
  return ((const guint32 *) row)[ix] & 0xffffff;
}
