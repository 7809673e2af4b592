/* output.c - what viper-monalisa-sim writes: the trace, the Module Setup
 * file and the truth.
 *
 * The trace is written through libviperprobe, the same library a real
 * program would link, so the simulator doubles as its main user: one probe
 * module per PROC, whose clock callback returns the recorded time stamp of
 * the tram being written.  The probe numbers the trams itself; since each
 * module's trams are always handed to it in that module's order, its
 * numbers equal the simulator's (checked).
 *
 * Delivery orders model what a collector may do to a trace (spec: Viper
 * must only rely on each module's own order):
 *   inorder      sorted by true time (stable: ties keep generation order);
 *   shuffled     a uniformly random interleaving of the modules' streams:
 *                shuffle the multiset of PROC labels (one per tram), then
 *                let the i-th label take its module's next tram - O(n);
 *   interleaved  round robin over the modules, a random chunk of 1..--chunk
 *                trams from each, like a collector draining per-module
 *                buffers.
 * In the last two the program manager's trams come after every module's.
 * Live mode opens one connection per module plus one for the program
 * manager and writes each tram on its module's connection in true-time
 * order, paced to simulated time / --speed: each connection carries one
 * module's trams in its sequence order, as a real module's would.  The
 * program manager's verdicts go out once the modules' connections have
 * closed, as in the delivery orders above.
 */
#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "viper-probe.h"
#include "core/outfile.h"

typedef struct {
  Sim *S;
  double stamp;
} ClockCtx;

static double
stamp_clock (void *user_data)
{
  return ((ClockCtx *) user_data)->stamp;
}

static int
cmp_true_time (const void *a, const void *b, void *user_data)
{
  const SimTram *t = (const SimTram *) ((GArray *) user_data)->data;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  if (t[ia].t_true != t[ib].t_true)
    return t[ia].t_true < t[ib].t_true ? -1 : 1;
  return ia < ib ? -1 : ia > ib;
}

/* The order in which the trams are written (indices into S->trams). */
static guint *
delivery_order (Sim *S, SimDelivery mode)
{
  guint n = S->trams->len, nprocs = (guint) S->nmods + 1;
  const SimTram *t = (const SimTram *) S->trams->data;
  guint *order = g_new (guint, MAX (n, 1));
  guint *start, *cursor;

  if (mode == DELIVER_INORDER) {
    for (guint i = 0; i < n; i++)
      order[i] = i;
    qsort_r (order, n, sizeof (guint), cmp_true_time, S->trams);
    return order;
  }

  /* per-PROC lists (CSR), in generation order = each module's own order */
  start = g_new0 (guint, nprocs + 1);
  cursor = g_new0 (guint, nprocs);
  for (guint i = 0; i < n; i++)
    start[(guint) (t[i].proc + 1) + 1]++;
  for (guint p = 0; p < nprocs; p++)
    start[p + 1] += start[p];
  {
    guint *lists = g_new (guint, MAX (n, 1));
    for (guint i = 0; i < n; i++) {
      guint p = (guint) (t[i].proc + 1);
      lists[start[p] + cursor[p]++] = i;
    }
    memset (cursor, 0, sizeof (guint) * nprocs);

    if (mode == DELIVER_SHUFFLED) {
      guint *labels = g_new (guint, MAX (n, 1));
      for (guint i = 0; i < n; i++)
        labels[i] = (guint) (t[i].proc + 1);
      for (guint i = n; i > 1; i--) {
        guint j = (guint) g_rand_int_range (S->rdeliver, 0, (gint32) i);
        guint tmp = labels[i - 1];
        labels[i - 1] = labels[j];
        labels[j] = tmp;
      }
      for (guint i = 0; i < n; i++) {
        guint p = labels[i];
        order[i] = lists[start[p] + cursor[p]++];
      }
      g_free (labels);
    } else {
      guint done = 0, p = (guint) g_rand_int_range (S->rdeliver, 0, (gint32) nprocs);
      while (done < n) {
        guint left = start[p + 1] - start[p] - cursor[p];
        guint take = (guint) g_rand_int_range (S->rdeliver, 1, S->opt.chunk + 1);
        take = MIN (take, left);
        for (guint k = 0; k < take; k++)
          order[done++] = lists[start[p] + cursor[p]++];
        p = (p + 1) % nprocs;
      }
    }
    g_free (lists);
  }
  g_free (start);
  g_free (cursor);
  /* The program manager's verdicts come last: it speaks once the modules have
   * done what it judges, and a collector that forwarded its verdict ahead of
   * those trams would make a replay end the modules early (Viper gives
   * program-manager trams no dependencies, spec monalisa.md section 4). */
  {
    guint k = 0, m = 0;
    guint *pm = g_new (guint, MAX (n, 1));
    for (guint i = 0; i < n; i++)
      if (t[order[i]].proc < 0)
        pm[m++] = order[i];
      else
        order[k++] = order[i];
    memcpy (order + k, pm, m * sizeof (guint));
    g_free (pm);
  }
  return order;
}

static gboolean
write_one (Sim *S, ViperProbe *ch, ViperProbeModule *pm, ClockCtx *ctx, const SimTram *tr,
           GError **error)
{
  const gint64 *d = &g_array_index (S->data, gint64, tr->data_off);

  ctx->stamp = S->opt.true_time ? tr->t_true : tr->t_local;
  if (viper_probe_emit (pm, tr->rec, tr->ev, tr->process, tr->nd, (const int64_t *) d) < 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "writing the trace: %s", viper_probe_error (ch));
    return FALSE;
  }
  g_assert (viper_probe_module_seq (pm) == tr->seq);
  return TRUE;
}

gboolean
sim_write_trace (Sim *S, GError **error)
{
  const char *dest = S->opt.out ? S->opt.out : "-";
  ViperProbe *p = viper_probe_open (dest);
  ViperProbeModule **pm;
  ClockCtx ctx = { S, 0.0 };
  guint *order;
  gboolean ok = TRUE;

  if (!p) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s", viper_probe_error (NULL));
    return FALSE;
  }
  viper_probe_set_buffering (p, true);
  viper_probe_set_buffer_limit (p, 1 << 20);
  if (S->opt.header && S->opt.cmdline)
    viper_probe_comment (p, S->opt.cmdline);
  pm = g_new (ViperProbeModule *, S->nmods + 1);
  for (int i = 0; i <= S->nmods; i++) {
    pm[i] = viper_probe_module_new (p, i - 1);
    viper_probe_module_set_clock (pm[i], stamp_clock, &ctx);
  }
  order = delivery_order (S, S->opt.delivery);
  for (guint i = 0; ok && i < S->trams->len; i++) {
    const SimTram *tr = &g_array_index (S->trams, SimTram, order[i]);
    ok = write_one (S, p, pm[tr->proc + 1], &ctx, tr, error);
  }
  g_free (order);
  for (int i = 0; i <= S->nmods; i++)
    viper_probe_module_free (pm[i]);
  g_free (pm);
  if (viper_probe_close (p) < 0 && ok) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", dest, viper_probe_error (NULL));
    ok = FALSE;
  }
  return ok;
}

/* Sleep until the monotonic clock reads deadline (ns): pacing, not
 * synchronisation - nothing else is waited for. */
static void
sleep_until (gint64 deadline_ns)
{
  struct timespec ts = { .tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000 };
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

gboolean
sim_write_live (Sim *S, GError **error)
{
  int n = S->nmods + 1;
  ViperProbe **ch = g_new0 (ViperProbe *, n);
  ViperProbeModule **pm = g_new0 (ViperProbeModule *, n);
  ClockCtx ctx = { S, 0.0 };
  guint *order = NULL;
  gboolean ok = TRUE;
  struct timespec now;
  gint64 start_ns;
  double t0;

  /* modules first (PROC 0..N-1), the program manager's connection last */
  for (int k = 0; k < n && ok; k++) {
    int i = (k + 1) % n;
    ch[i] = viper_probe_open (S->opt.connect);
    if (!ch[i]) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s", viper_probe_error (NULL));
      ok = FALSE;
      break;
    }
    if (S->opt.probe_buffer)
      viper_probe_set_buffering (ch[i], true);
    pm[i] = viper_probe_module_new (ch[i], i - 1);
    viper_probe_module_set_clock (pm[i], stamp_clock, &ctx);
  }
  if (ok) {
    order = delivery_order (S, DELIVER_INORDER);
    t0 = S->trams->len ? g_array_index (S->trams, SimTram, order[0]).t_true : 0.0;
    clock_gettime (CLOCK_MONOTONIC, &now);
    start_ns = (gint64) now.tv_sec * 1000000000 + now.tv_nsec;
    /* the program manager speaks after the modules have closed their
     * connections: its verdict judges what they sent (see delivery_order) */
    for (int pass = 0; pass < 2 && ok; pass++) {
      for (guint i = 0; ok && i < S->trams->len; i++) {
        const SimTram *tr = &g_array_index (S->trams, SimTram, order[i]);
        if ((tr->proc < 0) != (pass == 1))
          continue;
        if (S->opt.speed > 0)
          sleep_until (start_ns + (gint64) llround ((tr->t_true - t0) * 1e6 / S->opt.speed));
        ok = write_one (S, ch[tr->proc + 1], pm[tr->proc + 1], &ctx, tr, error);
        if (!ok && error && *error) {
          char *msg = g_strdup_printf ("%s (connection of PROC %d)", (*error)->message, tr->proc);
          g_free ((*error)->message);
          (*error)->message = msg;
        }
      }
      for (int k = 1; pass == 0 && k < n; k++) {
        if (pm[k])
          viper_probe_module_free (pm[k]);
        pm[k] = NULL;
        if (ch[k] && viper_probe_close (ch[k]) < 0 && ok) {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", S->opt.connect,
                       viper_probe_error (NULL));
          ok = FALSE;
        }
        ch[k] = NULL;
      }
    }
  }
  g_free (order);
  for (int i = 0; i < n; i++) {
    if (pm[i])
      viper_probe_module_free (pm[i]);
    if (ch[i] && viper_probe_close (ch[i]) < 0 && ok) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", S->opt.connect,
                   viper_probe_error (NULL));
      ok = FALSE;
    }
  }
  g_free (ch);
  g_free (pm);
  return ok;
}

/* ---- the Module Setup file (spec section 6) ----------------------------- */

static gboolean
write_file (const char *path, GString *s, GError **error)
{
  /* core/outfile: "-" is standard output, devices and FIFOs are written in
   * place, regular files replaced whole (a rename over /dev/null, as root,
   * would turn it into a file) */
  return viper_outfile_set_contents (path, "viper-monalisa-sim", s->str, s->len, error);
}

gboolean
sim_write_setup (Sim *S, const char *path, GError **error)
{
  GString *s = g_string_new (NULL);
  int wfile = 0, wname = 0;
  gboolean ok;

  for (int i = 0; i < S->nmods; i++) {
    wfile = MAX (wfile, (int) strlen (S->mods[i].file));
    wname = MAX (wname, (int) strlen (S->mods[i].name));
  }
  g_string_append_printf (s, "MODULES:\n%d\nGROUPS:\n%d\n", S->nmods, S->ngroups);
  if (S->ngroups) {
    g_string_append (s, "RANGE FOR GROUPS:\n");
    for (int g = 0; g < S->ngroups; g++)
      g_string_append_printf (s, "%d %d\n", S->groups[g].first, S->groups[g].size);
  }
  g_string_append (s, "DEFINITION TABLE:\n");
  for (int i = 0; i < S->nmods; i++)
    g_string_append_printf (s, "%-*s  %-*s  %d\n", wfile, S->mods[i].file, wname, S->mods[i].name, i);
  g_string_append_printf (s, "- # all_modules # %d\n", S->nmods);
  for (int g = 0; g < S->ngroups; g++)
    g_string_append_printf (s, "- %s %d\n", S->groups[g].name, S->groups[g].id);
  for (int c = 0; c < S->nclasses; c++) {
    g_string_append_printf (s, "#ATTRIBUTES for module %s#\n", S->classes[c].name);
    for (int a = 0; a < S->classes[c].nattrs; a++)
      g_string_append_printf (s, "%s %d %s\n", S->classes[c].attrs[a].name, a, S->classes[c].attrs[a].type);
  }
  ok = write_file (path, s, error);
  g_string_free (s, TRUE);
  return ok;
}

/* ---- the truth (the --state-out shape, spec section 4) ------------------ */

static void
json_str (GString *s, const char *v)
{
  g_string_append_c (s, '"');
  for (const char *c = v; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (s, "\\%c", *c);
    else if ((unsigned char) *c < 0x20)
      g_string_append_printf (s, "\\u%04x", *c);
    else
      g_string_append_c (s, *c);
  }
  g_string_append_c (s, '"');
}

gboolean
sim_write_truth (Sim *S, const char *path, GError **error)
{
  GString *s = g_string_new (NULL);
  GArray *cycle = g_array_new (FALSE, FALSE, sizeof (int));
  const char *state = sim_program_state (S, cycle);
  const char *reported = S->reported == 23 ? "deadlock" : S->reported == 24 ? "abnormal"
                         : S->reported == 25 ? "terminated" : NULL;
  gboolean ok;

  g_string_append (s, "{\n  \"paradigm\": \"monalisa\",\n  \"program_state\": ");
  json_str (s, reported ? reported : state);
  g_string_append (s, ",\n  \"reported\": ");
  if (reported)
    json_str (s, reported);
  else
    g_string_append (s, "null");
  g_string_append (s, ",\n  \"deadlock_cycle\": [");
  for (guint i = 0; i < cycle->len; i++)
    g_string_append_printf (s, "%s%d", i ? ", " : "", g_array_index (cycle, int, i));
  g_string_append (s, "],\n  \"modules\": [");
  for (int i = 0; i < S->nmods; i++) {
    SimModule *m = &S->mods[i];
    SimClass *c = &S->classes[m->cls];
    g_string_append_printf (s, "%s\n    {\"id\": %d, \"name\": ", i ? "," : "", i);
    json_str (s, m->name);
    g_string_append (s, ", \"state\": ");
    json_str (s, sim_state_name (m->t_state));
    g_string_append_printf (s, ", \"started\": %s, \"finished\": %s, \"primitive\": ",
                            m->t_started ? "true" : "false", m->t_finished ? "true" : "false");
    if (m->t_prim == PRIM_NONE) {
      g_string_append (s, "null");
    } else {
      g_string_append (s, "{\"name\": ");
      json_str (s, sim_prim_name (m->t_prim));
      if (m->t_partner >= 0)
        g_string_append_printf (s, ", \"partner\": %d", m->t_partner);
      else
        g_string_append (s, ", \"partner\": null");
      g_string_append_printf (s, ", \"var\": %d}", m->t_var);
    }
    g_string_append (s, ",\n     \"variables\": [");
    for (int v = 0; v < c->nattrs; v++) {
      g_string_append_printf (s, "%s{\"id\": %d, \"name\": ", v ? ", " : "", v);
      json_str (s, c->attrs[v].name);
      g_string_append (s, ", \"state\": ");
      json_str (s, m->vars[v].truth_exposed ? "exposed" : "hidden");
      g_string_append_c (s, '}');
    }
    g_string_append (s, "]}");
  }
  g_string_append (s, "\n  ]\n}\n");
  ok = write_file (path, s, error);
  g_string_free (s, TRUE);
  g_array_unref (cycle);
  return ok;
}
