/* bench-picl-write - the native PICL workload of bench-orders.py.
 *
 * Writes a random message-passing trace (viper-picl-gen's library) over 64
 * processors with about LINES lines in true-time order, and the same events
 * as a Pajé file (a state per call, a link per message) for PajeNG's
 * `pj_dump -q`.  Parameters follow issue 11: 4 tags, ~20 % non-blocking
 * sends and receives, ~15 % any-source receives, a few -911 trace messages,
 * clock offsets of a few ms and drifts of tens of ppm.
 * Usage: bench-picl-write LINES TRACE PAJE   (prints "TRAMS PAJE_EVENT_LINES")
 */
#include <stdio.h>
#include "paradigms/picl/picl-gen-lib.h"

static gint
by_true_time (gconstpointer a, gconstpointer b, gpointer data)
{
  const ViperPiclGenLine *L = data;
  double x = L[*(const guint *) a].true_time, y = L[*(const guint *) b].true_time;
  return x < y ? -1 : x > y;
}

static guint64
write_paje (const ViperPiclGenTrace *t, FILE *f)
{
  guint64 lines = 0;
  fputs ("%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeDefineLinkType 2\n% Alias string\n% Type string\n% StartContainerType string\n"
         "% EndContainerType string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeCreateContainer 3\n% Time date\n% Alias string\n% Type string\n% Container string\n"
         "% Name string\n%EndEventDef\n"
         "%EventDef PajeDestroyContainer 4\n% Time date\n% Name string\n% Type string\n%EndEventDef\n"
         "%EventDef PajeSetState 5\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
         "%EventDef PajeStartLink 6\n% Time date\n% Type string\n% Container string\n% StartContainer string\n"
         "% Value string\n% Key string\n%EndEventDef\n"
         "%EventDef PajeEndLink 7\n% Time date\n% Type string\n% Container string\n% EndContainer string\n"
         "% Value string\n% Key string\n%EndEventDef\n", f);
  fputs ("0 CP 0 Program\n0 CT CP Processor\n1 ST CT State\n2 LT CP CT CT Message\n3 0 root CP 0 root\n", f);
  for (guint p = 0; p < t->procs; p++)
    fprintf (f, "3 0 p%u CT root P%u\n", p, p);
  guint n = t->lines->len;
  const ViperPiclGenLine *L = (const ViperPiclGenLine *) t->lines->data;
  GArray *idx = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
  for (guint i = 0; i < n; i++)
    g_array_append_val (idx, i);
  g_array_sort_with_data (idx, by_true_time, (gpointer) L);
  double last = 0;
  for (guint k = 0; k < n; k++)
    {
      const ViperPiclGenLine *l = &L[g_array_index (idx, guint, k)];
      if (l->proc < 0)
        continue;
      last = l->true_time;
      const char *state = l->role == VIPER_PICL_LINE_SEND ? "send" : l->role == VIPER_PICL_LINE_RECV_END ? "busy" : "comm";
      fprintf (f, "5 %.9f ST p%" G_GINT64_FORMAT " %s\n", l->true_time, l->proc, state);
      lines++;
      if (l->role == VIPER_PICL_LINE_SEND)
        fprintf (f, "6 %.9f LT root p%" G_GINT64_FORMAT " m k%d\n", l->true_time, l->proc, l->message), lines++;
      else if (l->role == VIPER_PICL_LINE_RECV_END)
        fprintf (f, "7 %.9f LT root p%" G_GINT64_FORMAT " m k%d\n", l->true_time, l->proc, l->message), lines++;
    }
  for (guint p = 0; p < t->procs; p++)
    fprintf (f, "4 %.9f p%u CT\n", last + 1, p);
  g_array_unref (idx);
  return lines;
}

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: bench-picl-write LINES TRACE PAJE\n");
      return 2;
    }
  guint64 want = g_ascii_strtoull (argv[1], NULL, 10);
  ViperPiclGenOptions o;
  viper_picl_gen_options_init (&o);
  o.procs = 64;
  o.messages = (guint) (want / 4.85);   /* ~4.85 lines per message with these chances */
  o.seed = 11;
  o.tags = 4;
  o.p_nonblocking = 0.2;
  o.p_anysource = 0.15;
  o.p_note = 0.01;
  o.offset = 3e-3;
  o.drift = 3e-5;
  o.delivery = VIPER_PICL_DELIVERY_INORDER;
  ViperPiclGenTrace *t = viper_picl_gen (&o, NULL);
  if (!t)
    return 1;
  GString *s = g_string_new (NULL);
  viper_picl_gen_write (t, s);
  FILE *f = fopen (argv[2], "w");
  FILE *p = fopen (argv[3], "w");
  if (!f || !p || fwrite (s->str, 1, s->len, f) != s->len)
    return 1;
  guint64 plines = write_paje (t, p);
  if (fclose (f) || fclose (p))
    return 1;
  printf ("%u %" G_GUINT64_FORMAT "\n", t->lines->len, plines);
  g_string_free (s, TRUE);
  viper_picl_gen_free (t);
  return 0;
}
