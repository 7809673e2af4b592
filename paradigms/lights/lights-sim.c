/* lights-sim.c - viper-lights-sim: simulated clusters for the lights paradigm.
 *
 * Writes what a tree of viper-lights-agent collectors would send for a
 * cluster of N nodes (docs/paradigm-lights.md): every node joins, then every
 * interval sends its load sample and the bytes it sent to each peer, on its
 * own sequence numbers.  The traffic pattern and the loads are exact and
 * deterministic, so tests compare what Viper shows with what was sent:
 *   loads   node k in sample s: --load=N for all, or the "wave"
 *           500 + 400 sin(0.7 k + 0.3 s) per mille (rounded);
 *   traffic --pattern=all (every pair), ring (k -> k+1), neighbours (grid
 *           neighbours of the view's mesh), none, or a list S-D,S-D...
 *           (nodes 0..N-1, S != D; anything else is a usage error);
 *           each pair carries --bytes per interval.
 * --lose=K@S makes node K's agent fall silent after sample S and the root
 * (node 0) report K lost; --silence=K@S only makes it fall silent (a hung
 * node nobody reports: Viper shows it stale after 3 intervals).  --view writes the matching view setup file
 * instead (mesh, torus, ring, none or physical topology).  --connect sends
 * to a listening Viper in real time (time stamps are Unix times), paced at
 * the interval, for the GUI benchmark.  --spread sends node k of N at k / N
 * of each interval (time stamps too), as independent agents whose timers
 * are out of phase do, instead of every node at the interval's start.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netdb.h>
#include <sys/socket.h>
#include <glib.h>
#include <locale.h>
#include "core/options.h"

typedef struct {
  int nodes, rows, cols, samples, interval_ms;
  gint64 bytes;
  int load;                 /* -1: wave */
  char *pattern, *topology;
  int lose_node, lose_after;
  int silence_node, silence_after;
  gboolean vary;            /* bytes vary by +-50 % per pair and sample */
  gboolean spread;          /* node k at k / nodes of the interval */
  gboolean live;            /* --connect: paced in real time */
  FILE *out;
  int err;                  /* errno of the first failed write (0: none) */
  gint64 *seq;
  double t0;
} Sim;

/* Keeps the reason of the first failed write, while errno still holds it:
 * by the final fclose it may be long gone. */
static void
note_error (Sim *s)
{
  if (!s->err && ferror (s->out))
    s->err = errno ? errno : EIO;
}

static void
emit (Sim *s, double t, int node, int ev, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static void
emit (Sim *s, double t, int node, int ev, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *rest = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* count the fields: SEQ and the words of the rest */
  int n = 2;
  for (const char *p = rest; *p; p++)
    if (*p == ' ')
      n++;
  fprintf (s->out, "4 %d %.6f %d 0 %d 2 %" G_GINT64_FORMAT " %s\n", ev, t, node, n, ++s->seq[node], rest);
  g_free (rest);
  note_error (s);
}

static int
load_of (const Sim *s, int k, int sample)
{
  if (s->load >= 0)
    return s->load;
  return (int) lround (CLAMP (500 + 400 * sin (0.7 * k + 0.3 * sample), 0, 1000));
}

/* Appends the peers of node k to out (ints). */
static void
peers_of (const Sim *s, int k, GArray *out)
{
  if (g_str_equal (s->pattern, "all"))
    {
      for (int j = 0; j < s->nodes; j++)
        if (j != k)
          g_array_append_val (out, j);
    }
  else if (g_str_equal (s->pattern, "ring"))
    {
      int j = (k + 1) % s->nodes;
      if (j != k)
        g_array_append_val (out, j);
    }
  else if (g_str_equal (s->pattern, "neighbours"))
    {
      int r = k / s->cols, c = k % s->cols;
      int cand[4][2] = { { r, c + 1 }, { r, c - 1 }, { r + 1, c }, { r - 1, c } };
      for (int i = 0; i < 4; i++)
        if (cand[i][0] >= 0 && cand[i][0] < s->rows && cand[i][1] >= 0 && cand[i][1] < s->cols)
          {
            int j = cand[i][0] * s->cols + cand[i][1];
            if (j < s->nodes)
              g_array_append_val (out, j);
          }
    }
  else if (!g_str_equal (s->pattern, "none"))
    {
      char **pairs = g_strsplit (s->pattern, ",", -1);
      for (char **p = pairs; *p; p++)
        {
          int a, b;
          if (sscanf (*p, "%d-%d", &a, &b) == 2 && a == k && b != k && b >= 0 && b < s->nodes)
            g_array_append_val (out, b);
        }
      g_strfreev (pairs);
    }
}

/* The decimal number that is the whole of [p, end) (at most 9 digits); -1
 * otherwise. */
static int
node_number (const char *p, const char *end)
{
  if (p == end || end - p > 9)
    return -1;
  int v = 0;
  for (; p < end; p++)
    {
      if (!g_ascii_isdigit (*p))
        return -1;
      v = v * 10 + (*p - '0');
    }
  return v;
}

/* NULL when pattern is all, ring, neighbours, none or a list of S-D pairs of
 * nodes 0..nodes-1 (S != D); else why not (to free): a pattern that names
 * no traffic must not pass for one that does. */
static char *
pattern_error (const char *pattern, int nodes)
{
  if (g_str_equal (pattern, "all") || g_str_equal (pattern, "ring") || g_str_equal (pattern, "neighbours")
      || g_str_equal (pattern, "none"))
    return NULL;
  if (!g_ascii_isdigit (pattern[0]))
    return g_strdup_printf ("--pattern=%s: expected all, ring, neighbours, none or S-D,S-D,...", pattern);
  char **pairs = g_strsplit (pattern, ",", -1);
  char *why = NULL;
  for (char **p = pairs; *p && !why; p++)
    {
      const char *dash = strchr (*p, '-');
      int a = dash ? node_number (*p, dash) : -1, b = dash ? node_number (dash + 1, *p + strlen (*p)) : -1;
      if (a < 0 || b < 0)
        why = g_strdup_printf ("--pattern=%s: '%s' is not S-D (two node numbers)", pattern, *p);
      else if (a >= nodes || b >= nodes)
        why = g_strdup_printf ("--pattern=%s: '%s': node %d is not one of the %d nodes 0..%d", pattern, *p,
                               a >= nodes ? a : b, nodes, nodes - 1);
      else if (a == b)
        why = g_strdup_printf ("--pattern=%s: '%s': a node does not send to itself", pattern, *p);
    }
  g_strfreev (pairs);
  return why;
}

static gboolean
lost (const Sim *s, int k, int sample)
{
  return (s->lose_node >= 0 && k == s->lose_node && sample > s->lose_after)
         || (s->silence_node >= 0 && k == s->silence_node && sample > s->silence_after);
}

/* " A B" without printf: a thousand nodes all-to-all are two million pairs
 * a sample, and the simulator must outrun the viewer it loads. */
static void
append_pair (GString *g, gint64 a, gint64 b)
{
  char buf[48], *e = buf + sizeof buf, *p = e;
  for (int i = 0; i < 2; i++)
    {
      gint64 v = i ? a : b;
      guint64 u = v < 0 ? (guint64) 0 - (guint64) v : (guint64) v;
      do
        *--p = (char) ('0' + u % 10);
      while (u /= 10);
      if (v < 0)
        *--p = '-';
      *--p = ' ';
    }
  g_string_append_len (g, p, e - p);
}

/* start: the monotonic time the sample is due (live) */
static void
write_sample (Sim *s, int sample, double t, gint64 start)
{
  GArray *peers = g_array_new (FALSE, FALSE, sizeof (int));
  GString *tr = g_string_new (NULL);
  for (int k = 0; k < s->nodes; k++)
    {
      if (lost (s, k, sample))
        continue;
      double tk = t + 0.0001 * (k % 7);
      if (s->spread)
        {
          double phase = (double) k / s->nodes * s->interval_ms;   /* ms into the interval */
          tk = t + phase / 1000.0;
          if (s->live)
            {
              gint64 due = start + (gint64) (phase * 1000), now = g_get_monotonic_time ();
              if (due - now > 2000)
                {
                  /* what is due goes out before the wait */
                  fflush (s->out);
                  note_error (s);
                  g_usleep ((gulong) (due - now));
                }
              tk = g_get_real_time () / 1e6;
            }
        }
      emit (s, tk, k, 40, "%d %d", load_of (s, k, sample), s->interval_ms);
      g_array_set_size (peers, 0);
      peers_of (s, k, peers);
      if (!peers->len)
        continue;
      g_string_truncate (tr, 0);
      g_string_append_printf (tr, "%d", s->interval_ms);
      for (guint i = 0; i < peers->len; i++)
        {
          int j = g_array_index (peers, int, i);
          gint64 b = s->vary ? (gint64) llround (s->bytes * (1 + 0.5 * sin (0.37 * k + 0.23 * j + 0.5 * sample)))
                             : s->bytes;
          append_pair (tr, j, b);
        }
      emit (s, tk, k, 41, "%s", tr->str);
    }
  if (s->lose_node > 0 && sample == s->lose_after + 1)
    emit (s, t, 0, 43, "%d", s->lose_node);
  g_string_free (tr, TRUE);
  g_array_unref (peers);
}

static void
write_message (Sim *s, double t, int node, const char *text)
{
  GString *g = g_string_new (NULL);
  for (const char *p = text; *p; p = g_utf8_next_char (p))
    g_string_append_printf (g, "%s%u", g->len ? " " : "", g_utf8_get_char (p));
  emit (s, t, node, 44, "%s", g->str);
  g_string_free (g, TRUE);
}

static void
write_view (Sim *s)
{
  fprintf (s->out, "# a simulated cluster of %d nodes (viper-lights-sim --view)\nparadigm lights\n", s->nodes);
  int cols = s->cols, rows = (s->nodes + cols - 1) / cols;
  double cell = 100;
  gboolean ring = g_str_equal (s->topology, "ring");
  double W = ring ? 1000 : cols * cell, H = ring ? 1000 : rows * cell;
  fprintf (s->out, "size %g %g\n", W, H);
  if (g_str_equal (s->topology, "mesh") || g_str_equal (s->topology, "torus"))
    fprintf (s->out, "topology %s %d %d\n", s->topology, s->rows, s->cols);
  else
    fprintf (s->out, "topology %s\n", s->topology);
  for (int k = 0; k < s->nodes; k++)
    {
      double x, y, bw = ring ? MIN (60.0, 2400.0 / s->nodes) : cell * 0.5, bh = ring ? bw : cell * 0.5;
      if (ring)
        {
          double a = -G_PI / 2 + 2 * G_PI * k / s->nodes;
          x = 500 + 400 * cos (a) - bw / 2;
          y = 500 + 400 * sin (a) - bh / 2;
        }
      else
        {
          x = (k % cols) * cell + (cell - bw) / 2;
          y = (k / cols) * cell + (cell - bh) / 2;
        }
      fprintf (s->out, "module %d bar %g %g %g %g n%d\n", k, x, y, bw, bh, k);
    }
  if (g_str_equal (s->topology, "none") || g_str_equal (s->topology, "physical"))
    for (int k = 0; k + 1 < s->nodes; k++)
      fprintf (s->out, "link %d %d\n", k, k + 1);
}

static FILE *
connect_to (const char *addr)
{
  const char *spec = g_str_has_prefix (addr, "tcp:") ? addr + 4 : addr;
  char *host = g_strdup ("127.0.0.1"), *port;
  const char *colon = strrchr (spec, ':');
  if (colon)
    {
      g_free (host);
      host = g_strndup (spec, (gsize) (colon - spec));
      port = g_strdup (colon + 1);
    }
  else
    port = g_strdup (spec);
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
  int fd = -1;
  if (getaddrinfo (host, port, &hints, &res) == 0)
    {
      for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next)
        {
          fd = socket (a->ai_family, a->ai_socktype, a->ai_protocol);
          if (fd >= 0 && connect (fd, a->ai_addr, a->ai_addrlen) != 0)
            {
              close (fd);
              fd = -1;
            }
        }
      freeaddrinfo (res);
    }
  g_free (host);
  g_free (port);
  return fd >= 0 ? fdopen (fd, "w") : NULL;
}

int
main (int argc, char **argv)
{
  Sim s = { .nodes = 16, .samples = 10, .interval_ms = 500, .bytes = 10000, .load = -1, .lose_node = -1,
            .silence_node = -1 };
  char *pattern = NULL, *topology = NULL, *out = NULL, *lose = NULL, *silence = NULL, *connect_addr = NULL;
  gboolean view = FALSE, version = FALSE;
  int rows = 0, cols = 0;
  GOptionEntry entries[] = {
    { "nodes", 'n', 0, G_OPTION_ARG_INT, &s.nodes, "Nodes 0..N-1 (default 16)", "N" },
    { "rows", 0, 0, G_OPTION_ARG_INT, &rows, "Mesh rows (default: as square as N allows)", "R" },
    { "cols", 0, 0, G_OPTION_ARG_INT, &cols, "Mesh columns (default: ceil(N / rows))", "C" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &s.samples, "Intervals to simulate (default 10)", "K" },
    { "interval", 'i', 0, G_OPTION_ARG_INT, &s.interval_ms, "Sampling interval in ms (default 500)", "MS" },
    { "bytes", 'b', 0, G_OPTION_ARG_INT64, &s.bytes, "Bytes per pair per interval (default 10000)", "B" },
    { "load", 'l', 0, G_OPTION_ARG_INT, &s.load, "Every node's load in per mille (default: a wave)", "PERMILLE" },
    { "pattern", 'p', 0, G_OPTION_ARG_STRING, &pattern,
      "Traffic: all, ring, neighbours, none, or S-D,S-D,... (default neighbours)", "P" },
    { "vary", 0, 0, G_OPTION_ARG_NONE, &s.vary, "Bytes vary by up to 50 % per pair and sample", NULL },
    { "spread", 0, 0, G_OPTION_ARG_NONE, &s.spread,
      "Node k sends at k/N of each interval (agents out of phase), not all at its start", NULL },
    { "lose", 0, 0, G_OPTION_ARG_STRING, &lose, "Node K falls silent after sample S, reported lost by node 0", "K@S" },
    { "silence", 0, 0, G_OPTION_ARG_STRING, &silence, "Node K falls silent after sample S, reported by nobody", "K@S" },
    { "view", 0, 0, G_OPTION_ARG_NONE, &view, "Write the view setup file instead of a trace", NULL },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &topology,
      "With --view: mesh, torus, ring, none or physical (default mesh)", "T" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write to FILE (default: standard output)", "FILE" },
    { "connect", 'c', 0, G_OPTION_ARG_STRING, &connect_addr,
      "Send to a listening Viper (tcp:HOST:PORT) in real time, one sample per interval", "ADDR" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  /* a viewer that goes away is a write error to report (EPIPE), not a silent death */
  signal (SIGPIPE, SIG_IGN);
  /* GLib's messages in the user's language and charset (“quotes” under a UTF-8
   * locale, not ?quotes?); numbers stay C: traces are written with '.' */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  GOptionContext *ctx = g_option_context_new ("- simulated clusters for Viper's lights paradigm");

  g_option_context_set_summary (ctx, "Writes the trams of a cluster of nodes (loads, traffic between chosen pairs,\n"
                                     "joined and lost nodes), or the matching view setup file.");
  g_option_context_set_description (ctx, "Exit status: 0 success, 1 an output or connection error (a viewer that hangs up\n"
                                         "is one), 2 a usage error.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  if (!viper_options_parse (ctx, (const GOptionEntry *const[]) { entries, NULL }, &argc, &argv, &error))
    {
      fprintf (stderr, "viper-lights-sim: %s\n", error->message);
      g_error_free (error);
      g_option_context_free (ctx);
      return 2;
    }
  g_option_context_free (ctx);
  if (version)
    {
      printf ("viper-lights-sim %s\n", VIPER_VERSION);
      return 0;
    }
  /* the option that is wrong, by name, as the other tools say it */
  char *bad = s.nodes < 1 || s.nodes > 100000 ? g_strdup_printf ("--nodes=%d: expected an integer 1..100000", s.nodes)
              : s.samples < 0 ? g_strdup_printf ("--samples=%d: expected an integer >= 0", s.samples)
              : s.interval_ms < 1 ? g_strdup_printf ("--interval=%d: expected milliseconds >= 1", s.interval_ms)
              : s.bytes < 0 ? g_strdup_printf ("--bytes=%" G_GINT64_FORMAT ": expected an integer >= 0", s.bytes)
              : s.load > 1000 ? g_strdup_printf ("--load=%d: expected at most 1000", s.load)
                              : NULL;
  if (bad)
    {
      fprintf (stderr, "viper-lights-sim: %s\nTry 'viper-lights-sim --help' for more information.\n", bad);
      g_free (bad);
      g_free (pattern), g_free (topology), g_free (out), g_free (lose), g_free (silence), g_free (connect_addr);
      return 2;
    }
  s.rows = rows > 0 ? rows : (int) floor (sqrt ((double) s.nodes));
  while (s.rows > 1 && s.nodes % s.rows)
    s.rows--;
  s.cols = cols > 0 ? cols : (s.nodes + s.rows - 1) / s.rows;
  s.pattern = pattern ? pattern : g_strdup ("neighbours");
  s.topology = topology ? topology : g_strdup ("mesh");
  char *why = pattern_error (s.pattern, s.nodes);
  if (why)
    {
      fprintf (stderr, "viper-lights-sim: %s\n", why);
      g_free (why);
      g_free (s.pattern), g_free (s.topology), g_free (out), g_free (lose), g_free (silence), g_free (connect_addr);
      return 2;
    }
  if (lose && (sscanf (lose, "%d@%d", &s.lose_node, &s.lose_after) != 2 || s.lose_node < 1
               || s.lose_node >= s.nodes))
    {
      fprintf (stderr, "viper-lights-sim: --lose=K@S with 1 <= K < N\n");
      g_free (s.pattern), g_free (s.topology), g_free (out), g_free (lose), g_free (silence), g_free (connect_addr);
      return 2;
    }
  if (silence && (sscanf (silence, "%d@%d", &s.silence_node, &s.silence_after) != 2 || s.silence_node < 0
                  || s.silence_node >= s.nodes))
    {
      fprintf (stderr, "viper-lights-sim: --silence=K@S with 0 <= K < N\n");
      g_free (s.pattern), g_free (s.topology), g_free (out), g_free (lose), g_free (silence), g_free (connect_addr);
      return 2;
    }
  if (connect_addr)
    {
      s.out = connect_to (connect_addr);
      if (!s.out)
        {
          fprintf (stderr, "viper-lights-sim: %s: cannot connect: %s\n", connect_addr, g_strerror (errno));
          return 1;
        }
    }
  else
    s.out = out && !g_str_equal (out, "-") ? fopen (out, "w") : stdout;
  if (!s.out)
    {
      fprintf (stderr, "viper-lights-sim: %s: %s\n", out, g_strerror (errno));
      return 1;
    }
  s.seq = g_new0 (gint64, s.nodes);
  if (view)
    {
      if (g_str_equal (s.topology, "mesh") || g_str_equal (s.topology, "torus"))
        {
          if (s.rows * s.cols != s.nodes)
            {
              fprintf (stderr, "viper-lights-sim: a %s needs rows x cols = nodes\n", s.topology);
              return 2;
            }
        }
      else if (!g_str_equal (s.topology, "ring") && !g_str_equal (s.topology, "none")
               && !g_str_equal (s.topology, "physical"))
        {
          fprintf (stderr, "viper-lights-sim: unknown topology '%s'\n", s.topology);
          return 2;
        }
      write_view (&s);
      note_error (&s);
    }
  else
    {
      double t = connect_addr ? g_get_real_time () / 1e6 : 1000.0;
      gint64 start = g_get_monotonic_time ();
      for (int k = 0; k < s.nodes; k++)
        emit (&s, t, k, 42, "%d", k ? (k - 1) / 2 : -1);
      char *hello = g_strdup_printf ("cluster of %d nodes, pattern %s", s.nodes, s.pattern);
      write_message (&s, t, 0, hello);
      g_free (hello);
      s.live = connect_addr != NULL;
      for (int i = 1; i <= s.samples && !s.err; i++)
        {
          gint64 due = start + (gint64) i * s.interval_ms * 1000;
          if (connect_addr)
            {
              /* real time: one sample per interval, stamped with the wall clock */
              fflush (s.out);
              note_error (&s);
              if (s.err)
                break;
              gint64 now = g_get_monotonic_time ();
              if (due > now)
                g_usleep ((gulong) (due - now));
              t = g_get_real_time () / 1e6;
            }
          else
            t = 1000.0 + i * s.interval_ms / 1000.0;
          write_sample (&s, i, t, due);
        }
    }
  note_error (&s);
  errno = 0;
  if ((s.out != stdout ? fclose (s.out) : fflush (s.out)) != 0 && !s.err)
    s.err = errno ? errno : EIO;
  if (s.err)
    fprintf (stderr, "viper-lights-sim: %s: %s\n",
             connect_addr ? connect_addr : out && !g_str_equal (out, "-") ? out : "standard output",
             g_strerror (s.err));
  g_free (s.seq);
  g_free (s.pattern);
  g_free (s.topology);
  g_free (out);
  g_free (lose);
  g_free (silence);
  g_free (connect_addr);
  return s.err ? 1 : 0;
}
