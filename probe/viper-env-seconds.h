/* viper-env-seconds.h - the one rule for a number of seconds read from the
 * environment, shared by libviperprobe (VIPER_PROBE_CONNECT_TIMEOUT,
 * VIPER_PROBE_WRITE_TIMEOUT) and libviper-mpi (VIPER_MPI_LIVE_TIMEOUT).
 *
 * Header-only and internal (not installed): the two libraries share no
 * object code, link no GLib, and must each stay a single self-contained
 * library; a static inline function is the smallest thing both can take.
 * viper-trace's seconds_ok (a shell function) applies the same rule to
 * --live-timeout.
 *
 * The rule: decimal digits with at most one decimal point and at least one
 * digit, the whole string, 0 to 3600.  Anything else ("abc", "-1", "1e3",
 * "0x10", " 5", "5 ", "inf", "nan", "+1", "1,5", ".") is refused: strtod
 * alone would take exponents, hex, signs, blanks, inf and nan. */
#ifndef VIPER_ENV_SECONDS_H
#define VIPER_ENV_SECONDS_H

#include <stdlib.h>

#define VIPER_ENV_SECONDS_MAX 3600.0

/* 0 and *out set when s is a valid number of seconds; -1, *out untouched,
 * otherwise. */
static inline int
viper_parse_seconds (const char *s, double *out)
{
  const char *c;
  int digits = 0, points = 0;

  if (!s)
    return -1;
  for (c = s; *c; c++) {
    if (*c >= '0' && *c <= '9')
      digits++;
    else if (*c == '.')
      points++;
    else
      return -1;
  }
  if (digits == 0 || points > 1)
    return -1;
  /* by hand, not strtod: a host program's locale (a decimal comma) would
   * read "0.2" as 0, which is "no bound" */
  double v = 0, scale = 1;
  int frac = 0;
  for (c = s; *c; c++) {
    if (*c == '.')
      frac = 1;
    else if (frac)
      v += (*c - '0') * (scale /= 10);
    else if ((v = v * 10 + (*c - '0')) > VIPER_ENV_SECONDS_MAX)
      return -1;
  }
  if (!(v >= 0 && v <= VIPER_ENV_SECONDS_MAX))
    return -1;
  *out = v;
  return 0;
}

#endif
