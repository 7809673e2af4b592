/* source.c - the generic side of ViperTramSource (thesis 4.1, TramSource).
 *
 * A source is a small vtable object: every kind (file/stdin in
 * source-file.c, socket listener in source-listen.c) embeds ViperTramSource as
 * the first member of its own struct and supplies a ViperTramSourceClass.
 * pending() and get() are inline in source.h because the engine calls them
 * once per tram; the rarer operations live here and fill in the defaults a
 * kind may leave out, so that callers never test for NULL hooks.
 *
 * Ownership: viper_tram_source_free() calls the kind's destroy() (which
 * releases its own resources, including trams still queued, back to the pool)
 * and then frees the common part.  The pool, diag and channels are not owned
 * and must outlive the source.
 */
#include "core/source.h"

#include <sys/stat.h>
#include "core/tramparse.h"

gboolean
viper_tram_source_reset (ViperTramSource *s, GError **error)
{
  g_return_val_if_fail (s != NULL, FALSE);
  if (s->klass->reset == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: a %s source cannot be rewound", s->name, s->klass->kind);
      return FALSE;
    }
  return s->klass->reset (s, error);
}

gboolean
viper_tram_source_at_end (ViperTramSource *s)
{
  g_return_val_if_fail (s != NULL, TRUE);
  /* A kind without an end (a listener) is never at its end by itself. */
  return s->klass->at_end ? s->klass->at_end (s) : FALSE;
}

void
viper_tram_source_attach (ViperTramSource *s, GMainContext *ctx)
{
  g_return_if_fail (s != NULL);
  if (s->klass->attach)
    s->klass->attach (s, ctx);
}

void
viper_tram_source_set_ready_func (ViperTramSource *s, ViperSourceReadyFunc f, gpointer data)
{
  g_return_if_fail (s != NULL);
  s->ready = f;
  s->ready_data = data;
}

void
viper_tram_source_set_ahead_func (ViperTramSource *s, ViperSourceAheadFunc f, gpointer data)
{
  g_return_if_fail (s != NULL);
  s->ahead = f;
  s->ahead_data = data;
}

void
viper_tram_source_set_reject_func (ViperTramSource *s, ViperSourceRejectFunc f, gpointer data)
{
  g_return_if_fail (s != NULL);
  s->reject = f;
  s->reject_data = data;
}

void
viper_tram_source_salvage (ViperTramSource *s, const char *line, gsize len, guint32 channel, guint64 lineno)
{
  viper_tram_source_salvage_cut (s, line, len, FALSE, channel, lineno);
}

void
viper_tram_source_salvage_cut (ViperTramSource *s, const char *line, gsize len, gboolean cut, guint32 channel,
                               guint64 lineno)
{
  gint64 proc, d1;
  if (s->reject && line && viper_tram_salvage_cut (line, len, cut, &proc, &d1))
    s->reject (proc, d1, channel, lineno, s->reject_data);
}

void
viper_tram_source_free (ViperTramSource *s)
{
  if (s == NULL)
    return;
  if (s->klass->destroy)
    s->klass->destroy (s);
  g_free (s->name);
  g_free (s);
}

static void
file_identity (const struct stat *st, guint64 *dev, guint64 *ino, guint64 *size, gint64 *mtime_ns)
{
  *dev = (guint64) st->st_dev;
  *ino = (guint64) st->st_ino;
  *size = (guint64) st->st_size;
  *mtime_ns = (gint64) st->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_mtim.tv_nsec;
}

void
viper_tram_source_set_file (ViperTramSource *s, const struct stat *st)
{
  if (S_ISREG (st->st_mode))
    file_identity (st, &s->file_dev, &s->file_ino, &s->file_size, &s->file_mtime_ns);
}

gboolean
viper_tram_source_same_file (const ViperTramSource *s, const char *path)
{
  struct stat st;
  if (!s->file_ino || stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return FALSE;
  guint64 dev, ino, size;
  gint64 mtime;
  file_identity (&st, &dev, &ino, &size, &mtime);
  return dev == s->file_dev && ino == s->file_ino && size == s->file_size && mtime == s->file_mtime_ns;
}

char **
viper_traces_unique (const char *const *traces, GPtrArray *notes)
{
  if (!traces)
    return NULL;
  GPtrArray *out = g_ptr_array_new ();
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint64) * 2);
  GPtrArray *names = g_ptr_array_new ();
  for (const char *const *t = traces; *t; t++)
    {
      struct stat st;
      if (!g_str_equal (*t, "-") && stat (*t, &st) == 0 && S_ISREG (st.st_mode))
        {
          guint64 id[2] = { (guint64) st.st_dev, (guint64) st.st_ino };
          const char *first = NULL;
          for (guint i = 0; i < ids->len && !first; i++)
            {
              const guint64 *o = &g_array_index (ids, guint64, 2 * i);
              if (o[0] == id[0] && o[1] == id[1])
                first = g_ptr_array_index (names, i);
            }
          if (first)
            {
              if (notes)
                g_ptr_array_add (notes, g_strdup_printf ("%s is the same file as %s: read once", *t, first));
              continue;
            }
          g_array_append_vals (ids, id, 1);     /* one element: both numbers */
          g_ptr_array_add (names, (gpointer) *t);
        }
      g_ptr_array_add (out, g_strdup (*t));
    }
  g_ptr_array_add (out, NULL);
  g_array_unref (ids);
  g_ptr_array_unref (names);
  return (char **) g_ptr_array_free (out, FALSE);
}

void
viper_tram_source_copy_file (ViperTramSource *s, const ViperTramSource *inner)
{
  s->file_dev = inner->file_dev;
  s->file_ino = inner->file_ino;
  s->file_size = inner->file_size;
  s->file_mtime_ns = inner->file_mtime_ns;
}
