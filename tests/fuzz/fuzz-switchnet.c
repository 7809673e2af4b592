/* fuzz-switchnet.c - the switchnet readers (docs/paradigm-switchnet.md):
 * the model file, the init file, parameter and job files, and route
 * following.  The input is sections separated by lines "%%": a model, then
 * a parameter file, a job file, an init file, and route bytes.  Any text
 * either parses or fails with a FILE:LINE:COLUMN message; series files
 * report every bad line and keep the rest; routes are followed or refused
 * with a reason; never a crash, a hang or a leak. */
#include <string.h>
#include "paradigms/switchnet/switchnet.h"
#include "fuzz.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  return 0;
}

/* The next section of data (up to a line "%%"). */
static gboolean
section (const char **p, const char *end, const char **s, gsize *len)
{
  if (*p > end)
    return FALSE;
  *s = *p;
  const char *q = *p;
  while (q < end)
    {
      const char *nl = memchr (q, '\n', (gsize) (end - q));
      const char *le = nl ? nl : end;
      if (le - q == 2 && q[0] == '%' && q[1] == '%')
        {
          *len = (gsize) (q - *s);
          *p = nl ? nl + 1 : end + 1;
          return TRUE;
        }
      q = nl ? nl + 1 : end;
    }
  *len = (gsize) (end - *s);
  *p = end + 1;
  return TRUE;
}

static void
check_problems (const SwnSeriesFile *f)
{
  if (f->n_bad < f->problems->len || f->problems->len > SWN_MAX_PROBLEMS)
    g_error ("problems miscounted");
  for (guint i = 0; i < f->problems->len; i++)
    if (!g_str_has_prefix (g_ptr_array_index (f->problems, i), "f.par:")
        && !g_str_has_prefix (g_ptr_array_index (f->problems, i), "f.job:"))
      g_error ("a problem without FILE:LINE:COLUMN: %s", (char *) g_ptr_array_index (f->problems, i));
}

static gboolean
count_line (const char *line, gsize len, gpointer data)
{
  (void) line;
  if (len == 0 || line[len - 1] != '\n')
    g_error ("a tram line without its end");
  (*(guint64 *) data)++;
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *p = (const char *) data, *end = p + size;
  const char *s;
  gsize len;
  if (!section (&p, end, &s, &len))
    return 0;
  GError *error = NULL;
  SwnNet *n = swn_net_parse (s, len, "f.swm", NULL, &error);
  if (!n)
    {
      if (!error || !g_str_has_prefix (error->message, "f.swm:"))
        g_error ("model rejected without FILE:LINE:COLUMN: %s", error ? error->message : "(none)");
      g_clear_error (&error);
      /* the rest as an init file on its own */
      SwnInit in;
      swn_init_defaults (&in);
      if (!swn_init_parse (&in, (const char *) data, size, "f.init", &error))
        {
          if (!g_str_has_prefix (error->message, "f.init:"))
            g_error ("init rejected without FILE:LINE:COLUMN: %s", error->message);
          g_clear_error (&error);
        }
      swn_init_clear (&in);
      return 0;
    }
  SwnSeriesFile *par = NULL, *job = NULL;
  if (section (&p, end, &s, &len))
    {
      par = swn_series_parse (n, s, len, "f.par", FALSE, NULL);
      check_problems (par);
    }
  if (section (&p, end, &s, &len))
    {
      job = swn_series_parse (n, s, len, "f.job", TRUE, NULL);
      check_problems (job);
    }
  guint64 lines = 0;
  gint64 w = swn_write_trams (n, par, job, count_line, &lines);
  if (w < 0 || (guint64) w != lines)
    g_error ("trams miscounted");
  if (section (&p, end, &s, &len))
    {
      SwnInit in;
      swn_init_defaults (&in);
      if (!swn_init_parse (&in, s, len, "f.init", &error))
        g_clear_error (&error);
      swn_init_clear (&in);
    }
  if (section (&p, end, &s, &len) && len >= 2 && n->n_nodes > 0)
    {
      gint64 src = (guint8) s[0] % n->n_nodes, dst = (guint8) s[1] % n->n_nodes;
      GArray *hops = g_array_new (FALSE, FALSE, sizeof (SwnHop));
      char reason[200];
      guint bad;
      if (!swn_route_follow (n, src, dst, (const guint8 *) s + 2, (guint) MIN (len - 2, 256), hops, reason,
                             sizeof reason, &bad) && !reason[0])
        g_error ("a route refused without a reason");
      if (hops->len > n->switches->len + 2)
        g_error ("a route longer than the loop bound");
      g_array_unref (hops);
    }
  swn_series_free (par);
  swn_series_free (job);
  swn_net_free (n);
  return 0;
}
