/* progress.c - see progress.h. */
#include <stdlib.h>
#include "progress.h"

struct _ViperProgress {
  FILE *out;
  gboolean tty;
  guint64 total;
  gint64 start;             /* monotonic µs */
  gint64 next;              /* when the next line is due */
  gint64 interval;          /* µs between lines */
  gboolean shown;           /* a line is on the terminal now */
  guint64 last_transferred; /* for the rate */
  gint64 last_t;
  double rate;              /* trams transferred per second, recently */
};

ViperProgress *
viper_progress_new (FILE *out, gboolean tty, guint64 total_bytes)
{
  ViperProgress *p = g_new0 (ViperProgress, 1);
  p->out = out;
  p->tty = tty;
  p->total = total_bytes;
  p->start = p->last_t = g_get_monotonic_time ();
  p->interval = tty ? 250000 : 2000000;
  gint64 first = tty ? 500000 : p->interval;
  const char *env = g_getenv ("VIPER_PROGRESS_INTERVAL");
  if (env && *env)
    {
      char *end;
      double s = g_ascii_strtod (env, &end);
      if (*end == '\0' && s >= 0 && s < 3600)
        p->interval = first = (gint64) (s * G_USEC_PER_SEC);
    }
  p->next = p->start + first;
  return p;
}

/* 1234567 -> "1,234,567" */
static void
append_count (GString *s, guint64 v)
{
  char digits[24];
  int n = g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, v);
  for (int i = 0; i < n; i++)
    {
      if (i && (n - i) % 3 == 0)
        g_string_append_c (s, ',');
      g_string_append_c (s, digits[i]);
    }
}

static void
append_bytes (GString *s, guint64 b)
{
  if (b >= G_GUINT64_CONSTANT (1000000000))
    g_string_append_printf (s, "%.2f GB", (double) b / 1e9);
  else
    g_string_append_printf (s, "%.1f MB", (double) b / 1e6);
}

static void
draw (ViperProgress *p, const ViperProgressFigures *f, gint64 now, gboolean last)
{
  double dt = (double) (now - p->last_t) / G_USEC_PER_SEC;
  if (dt > 0 && f->transferred >= p->last_transferred)
    p->rate = (double) (f->transferred - p->last_transferred) / dt;
  if (last)
    {
      double all = (double) (now - p->start) / G_USEC_PER_SEC;
      p->rate = all > 0 ? (double) f->transferred / all : 0;
    }
  p->last_transferred = f->transferred;
  p->last_t = now;

  GString *s = g_string_new ("viper-replay: ");
  if (p->total)
    {
      guint64 b = MIN (f->bytes, p->total);
      g_string_append_printf (s, "%u%% of ", (guint) (100.0 * (double) b / (double) p->total));
      append_bytes (s, p->total);
      g_string_append (s, " read, ");
    }
  else if (f->bytes)
    {
      append_bytes (s, f->bytes);
      g_string_append (s, " read, ");
    }
  append_count (s, f->read);
  g_string_append (s, " trams, ");
  append_count (s, f->transferred);
  g_string_append (s, " transferred");
  if (p->rate > 0)
    g_string_append_printf (s, " (%.2f M/s)", p->rate / 1e6);
  g_string_append (s, ", ");
  append_count (s, f->pending);
  g_string_append (s, " pending");
  if (p->tty)
    fprintf (p->out, "\r%s\033[K", s->str);
  else
    fprintf (p->out, "%s\n", s->str);
  fflush (p->out);
  p->shown = p->tty;
  g_string_free (s, TRUE);
}

gboolean
viper_progress_due (const ViperProgress *p)
{
  return p && g_get_monotonic_time () >= p->next;
}

void
viper_progress_update (ViperProgress *p, const ViperProgressFigures *f)
{
  if (!p)
    return;
  gint64 now = g_get_monotonic_time ();
  p->next = now + p->interval;
  draw (p, f, now, FALSE);
}

void
viper_progress_clear (ViperProgress *p)
{
  if (!p || !p->shown)
    return;
  fputs ("\r\033[K", p->out);
  fflush (p->out);
  p->shown = FALSE;
}

void
viper_progress_finish (ViperProgress *p, const ViperProgressFigures *f)
{
  if (!p)
    return;
  if (p->tty)
    viper_progress_clear (p);
  else
    draw (p, f, g_get_monotonic_time (), TRUE);
}

void
viper_progress_free (ViperProgress *p)
{
  g_free (p);
}
