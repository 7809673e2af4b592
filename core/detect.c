/* detect.c - guessing a trace's paradigm from its first lines.
 *
 * Every paradigm declares its (REC, EV) tram table, so a trace says which
 * paradigm wrote it: sample the first SAMPLE_BYTES of each file, scan each
 * line with the real scanner, and count, per registered paradigm, the trams
 * its table knows.  The most votes wins.  A setup file decides ties (only the
 * paradigm that reads it can use it) and decides alone when the sample holds
 * no known tram.  Files with NUL bytes whose sample yields no tram are called
 * binary, not traces: the user should hear that rather than see 494 "line
 * contains a NUL byte" reports and an empty window.  A file whose sample
 * yields trams as well is a trace with binary data in it (a disk error, a
 * program that wrote a buffer raw): its lines are reported and skipped, and
 * the user hears that instead - calling it "not a trace" and then replaying
 * its thousand trams says two things at once.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include "detect.h"
#include "tramparse.h"
#include "stdin-keep.h"

#define SAMPLE_BYTES (256 * 1024)
#define SAMPLE_LINES 4000
/* standard input as a stream: what comes in this first moment is the
 * sample (a live program may say nothing for a while) */
#define STDIN_WAIT_MS 500

/* A trace as the reason names it. */
static char *
trace_name (const char *path)
{
  return g_str_equal (path, "-") ? g_strdup ("standard input") : g_path_get_basename (path);
}

void
viper_detect_clear (ViperDetect *d)
{
  g_free (d->reason);
  g_free (d->binary_lines);
  memset (d, 0, sizeof *d);
}

void
viper_paradigm_detect (const char *const *traces, const char *setup, ViperDetect *out)
{
  memset (out, 0, sizeof *out);
  guint n = 0;
  const ViperParadigm *const *list = viper_paradigm_list (&n);
  guint64 *votes = g_new0 (guint64, n + 1);
  gboolean *reads_setup = g_new0 (gboolean, n + 1);
  ViperTramFields *f = viper_tram_fields_new ();
  char *buf = g_malloc (SAMPLE_BYTES + 1);
  char first_bad[200] = "";
  const char *binary_file = NULL, *mixed_file = NULL;
  guint64 nuls = 0, mixed_nuls = 0;
  guint sampled = 0;
  for (const char *const *t = traces; t && *t; t++)
    {
      size_t len;
      gboolean whole;
      if (g_str_equal (*t, "-"))
        {
          /* read once: what the sample takes stays for the replay */
          if (!viper_stdin_keeping ())
            continue;
          len = viper_stdin_sample (buf, SAMPLE_BYTES, STDIN_WAIT_MS, &whole);
        }
      else
        {
          /* a FIFO, a device: read once, by the replay (a sample would take
           * its first lines, and a FIFO's open waits) */
          GStatBuf st;
          if (g_stat (*t, &st) != 0 || !S_ISREG (st.st_mode))
            continue;
          FILE *fp = fopen (*t, "rb");
          if (!fp)
            continue;
          len = fread (buf, 1, SAMPLE_BYTES, fp);
          whole = feof (fp);
          fclose (fp);
        }
      sampled++;
      buf[len] = '\0';
      guint64 z = 0;
      for (size_t i = 0; i < len; i++)
        z += buf[i] == '\0';
      guint64 trams_before = out->trams;
      /* a UTF-8 byte order mark at the start is skipped, as the reader does */
      size_t pos = len >= 3 && memcmp (buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
      guint64 lineno = 0;
      while (pos < len && out->lines < SAMPLE_LINES)
        {
          const char *nl = memchr (buf + pos, '\n', len - pos);
          if (!nl && !whole)
            break;            /* a line cut by the sample's end */
          size_t end = nl ? (size_t) (nl - buf) : len;
          lineno++;
          out->lines++;
          ViperParseError err;
          ViperLineKind k = memchr (buf + pos, '\0', end - pos) ? VIPER_LINE_BAD
                            : viper_tram_scan (buf + pos, end - pos, f, &err);
          if (k == VIPER_LINE_TRAM)
            {
              out->trams++;
              for (guint i = 0; i < n; i++)
                if (viper_paradigm_type_index (list[i], f->rec, f->ev) != VIPER_TYPE_UNKNOWN)
                  votes[i]++;
            }
          else if (k == VIPER_LINE_BAD)
            {
              if (!out->bad)
                {
                  char *base = trace_name (*t);
                  const char *nul = memchr (buf + pos, '\0', end - pos);
                  if (nul)
                    g_snprintf (first_bad, sizeof first_bad, "%s:%" G_GUINT64_FORMAT ":%u: line contains a NUL byte",
                                base, lineno, (guint) (nul - (buf + pos)) + 1);
                  else
                    g_snprintf (first_bad, sizeof first_bad, "%s:%" G_GUINT64_FORMAT ":%u: %s", base, lineno,
                                err.column, err.reason);
                  g_free (base);
                }
              out->bad++;
            }
          pos = end + 1;
        }
      if (z && out->trams == trams_before && !binary_file)
        {
          binary_file = *t;
          nuls = z;
        }
      else if (z && out->trams > trams_before && !mixed_file)
        {
          mixed_file = *t;
          mixed_nuls = z;
        }
    }
  guint n_reading = 0, reader = 0;
  if (setup && *setup)
    for (guint i = 0; i < n; i++)
      if (list[i]->setup_load)
        {
          ViperSetup *s = list[i]->setup_load (setup, NULL);
          if (s)
            {
              reads_setup[i] = TRUE;
              n_reading++;
              reader = i;
              if (list[i]->setup_free)
                list[i]->setup_free (s);
            }
        }
  int best = -1;
  for (guint i = 0; i < n; i++)
    if (votes[i] > 0
        && (best < 0 || votes[i] > votes[best] || (votes[i] == votes[best] && reads_setup[i] && !reads_setup[best])))
      best = (int) i;
  char *setup_base = setup && *setup ? g_path_get_basename (setup) : NULL;
  GString *r = g_string_new (NULL);
  if (binary_file)
    {
      char *base = trace_name (binary_file);
      out->binary = TRUE;
      g_string_printf (r, "%s is a binary file (%" G_GUINT64_FORMAT " NUL byte%s in its first %u KB), not a text trace",
                       base, nuls, nuls == 1 ? "" : "s", SAMPLE_BYTES / 1024);
      g_free (base);
    }
  if (mixed_file)
    {
      char *base = trace_name (mixed_file);
      out->binary_lines = g_strdup_printf ("%s holds binary data among its trams (%" G_GUINT64_FORMAT " NUL byte%s in "
                                           "its first %u KB): the lines that are not trams are reported and skipped",
                                           base, mixed_nuls, mixed_nuls == 1 ? "" : "s", SAMPLE_BYTES / 1024);
      if (r->len)
        g_string_append (r, "; ");
      g_string_append (r, out->binary_lines);
      g_free (base);
    }
  if (best >= 0)
    {
      out->paradigm = list[best];
      if (r->len)
        g_string_append (r, "; ");
      g_string_append_printf (r, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " sampled trams are %s tram types",
                              votes[best], out->trams, list[best]->name);
      if (reads_setup[best])
        g_string_append_printf (r, ", and %s is a %s setup", setup_base, list[best]->name);
      else if (n_reading)
        g_string_append_printf (r, " (but %s is a %s setup, not a %s one)", setup_base, list[reader]->name,
                                list[best]->name);
    }
  else
    {
      if (n_reading == 1)
        {
          out->paradigm = list[reader];
          out->setup_decided = TRUE;
        }
      if (r->len)
        g_string_append (r, "; ");
      if (sampled == 0)
        g_string_append (r, "no trace file to sample (standard input and FIFOs are not sampled: they are read once)");
      else if (out->trams == 0)
        {
          out->no_tram = TRUE;
          if (out->lines == 0)
            g_string_append (r, "no line to sample (the input is empty)");
          else
            g_string_append_printf (r, "no tram in the first %" G_GUINT64_FORMAT " line%s", out->lines,
                                    out->lines == 1 ? "" : "s");
          if (out->bad)
            g_string_append_printf (r, " (%" G_GUINT64_FORMAT " bad, first %s)", out->bad, first_bad);
        }
      else
        g_string_append_printf (r, "none of the %" G_GUINT64_FORMAT " sampled trams is a tram type of any paradigm",
                                out->trams);
      if (out->paradigm)
        g_string_append_printf (r, "; %s is a %s setup", setup_base, out->paradigm->name);
    }
  out->reason = g_string_free (r, FALSE);
  g_free (setup_base);
  g_free (buf);
  viper_tram_fields_free (f);
  g_free (votes);
  g_free (reads_setup);
}

char *
viper_propose_setup (const char *trace)
{
  if (!trace)
    return NULL;
  char *dir = g_path_get_dirname (trace);
  char *base = g_path_get_basename (trace);
  char *dot = strrchr (base, '.');
  if (dot && dot != base)
    *dot = '\0';
  /* "setup/farm.setup" for "traces/farm.trc" (not "./setup/..."), and
   * "../setup/farm.setup" for "farm.trc" read in traces/ */
  gboolean here = g_str_equal (dir, ".");
  char *parent = here ? g_strdup ("..") : g_path_get_dirname (dir);
  char *sibling = g_str_equal (parent, ".") ? g_strdup ("setup") : g_build_filename (parent, "setup", NULL);
  const char *exts[] = { ".setup", ".view" };
  char *found = NULL;
  for (int where = 0; where < 2 && !found; where++)
    for (guint e = 0; e < G_N_ELEMENTS (exts) && !found; e++)
      {
        char *name = g_strconcat (base, exts[e], NULL);
        char *p = where == 1 ? g_build_filename (sibling, name, NULL) : here ? g_strdup (name)
                                                                             : g_build_filename (dir, name, NULL);
        if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
          found = p;
        else
          g_free (p);
        g_free (name);
      }
  g_free (sibling);
  g_free (parent);
  g_free (dir);
  g_free (base);
  return found;
}
