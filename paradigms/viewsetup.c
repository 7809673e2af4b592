/* viewsetup.c - the view setup file reader (docs/view-setup.md).
 *
 * The format is line oriented so that errors can name FILE:LINE and a
 * person can write one with a text editor: everything from '#' to the end
 * of the line is a comment, blank lines are skipped, and every other line is
 * a keyword followed by blank-separated words.  Labels and text take the
 * rest of their line, so they need no quoting.
 *
 * The reader walks each line with a cursor: word() takes the next word,
 * rest() takes whatever is left (trimmed), and each remembers where it
 * looked last - the word it took, or the end of the line when nothing was
 * left - which is the column most errors are about.  Every failure becomes
 * one error of the form "FILE:LINE:COLUMN: expected ..." (or a duplicate
 * definition naming the line of the first one) and stops the read: a
 * half-read view would draw something other than what the file says.
 * Columns are counted as the trace reader counts them (docs/formats.md):
 * 1-based bytes, a tab is one; the word at fault, or just after the line's
 * last byte before its comment when a word is missing.  Modules are kept in
 * file order with an id index for the views' per-module lookups.
 */
#include <math.h>
#include <string.h>
#include "viewsetup.h"

G_DEFINE_QUARK (viper-view-setup-error-quark, viper_view_setup_error)

typedef struct {
  const char *line;         /* the line's first byte: column 1 */
  const char *p, *end;      /* the unread part of the line (comment removed) */
  const char *last;         /* where word(), rest() or at_end() looked last: the word, or end */
} Cursor;

static guint
col_of (const Cursor *c, const char *at)
{
  return (guint) (at - c->line) + 1;
}

static gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

/* The next word as a new string, or NULL at the end of the line. */
static char *
word (Cursor *c)
{
  while (c->p < c->end && is_blank (*c->p))
    c->p++;
  c->last = c->p;
  if (c->p >= c->end)
    return NULL;
  const char *s = c->p;
  while (c->p < c->end && !is_blank (*c->p))
    c->p++;
  return g_strndup (s, (gsize) (c->p - s));
}

/* word(), and its column (or the end's) in *col. */
static char *
word_col (Cursor *c, guint *col)
{
  char *w = word (c);
  *col = col_of (c, c->last);
  return w;
}

/* The rest of the line, trimmed, or NULL when nothing is left. */
static char *
rest (Cursor *c)
{
  while (c->p < c->end && is_blank (*c->p))
    c->p++;
  c->last = c->p;
  const char *e = c->end;
  while (e > c->p && is_blank (e[-1]))
    e--;
  if (e == c->p)
    return NULL;
  char *s = g_strndup (c->p, (gsize) (e - c->p));
  c->p = c->end;
  return s;
}

static gboolean
at_end (Cursor *c)
{
  while (c->p < c->end && is_blank (*c->p))
    c->p++;
  c->last = c->p;
  return c->p >= c->end;
}

static gboolean
parse_number (const char *w, double *out)
{
  if (!w || !*w)
    return FALSE;
  char *end = NULL;
  double v = g_ascii_strtod (w, &end);
  if (*end || !isfinite (v))
    return FALSE;
  /* no hex, inf or nan spellings: only what a person writes */
  for (const char *q = w; *q; q++)
    if (!(g_ascii_isdigit (*q) || *q == '.' || *q == '-' || *q == '+' || *q == 'e' || *q == 'E'))
      return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
parse_id (const char *w, gint64 *out)
{
  if (!w)
    return FALSE;
  guint64 v;
  if (!g_ascii_string_to_unsigned (w, 10, 0, G_MAXINT64, &v, NULL))
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

static gboolean
is_identifier (const char *w)
{
  if (!w || !(g_ascii_isalpha (*w) || *w == '_'))
    return FALSE;
  for (const char *q = w; *q; q++)
    if (!(g_ascii_isalnum (*q) || *q == '_' || *q == '-'))
      return FALSE;
  return TRUE;
}

static const struct {
  const char *name;
  double r, g, b;
} named_colours[] = {
  { "black", 0, 0, 0 }, { "white", 1, 1, 1 }, { "grey", 0.5, 0.5, 0.5 }, { "gray", 0.5, 0.5, 0.5 },
  { "lightgrey", 0.83, 0.83, 0.83 }, { "darkgrey", 0.3, 0.3, 0.3 }, { "red", 1, 0, 0 },
  { "green", 0, 0.8, 0 }, { "blue", 0, 0, 1 }, { "yellow", 1, 1, 0 }, { "orange", 1, 0.55, 0 },
  { "brown", 0.55, 0.35, 0.17 }, { "beige", 0.96, 0.96, 0.86 }, { "cyan", 0, 1, 1 },
  { "magenta", 1, 0, 1 },
};

gboolean
viper_view_rgb_parse (const char *w, ViperViewRgb *out)
{
  if (!w)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (named_colours); i++)
    if (g_ascii_strcasecmp (w, named_colours[i].name) == 0)
      {
        *out = (ViperViewRgb) { named_colours[i].r, named_colours[i].g, named_colours[i].b };
        return TRUE;
      }
  if (strlen (w) == 8 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X'))
    {
      guint64 v;
      if (!g_ascii_string_to_unsigned (w + 2, 16, 0, 0xffffff, &v, NULL))
        return FALSE;
      *out = (ViperViewRgb) { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0, (v & 0xff) / 255.0 };
      return TRUE;
    }
  return FALSE;
}

static void
module_clear (gpointer p)
{
  ViperViewModule *m = p;
  g_free (m->repr);
  g_free (m->label);
}

static void
element_clear (gpointer p)
{
  ViperViewElement *e = p;
  g_free (e->text);
}

static ViperViewSetup *
setup_new (const char *name)
{
  ViperViewSetup *vs = g_new0 (ViperViewSetup, 1);
  vs->name = g_strdup (name);
  vs->maxrate = VIPER_VIEW_SETUP_DEFAULT_MAXRATE;
  vs->width = vs->height = VIPER_VIEW_SETUP_DEFAULT_SIZE;
  vs->modules = g_array_new (FALSE, TRUE, sizeof (ViperViewModule));
  g_array_set_clear_func (vs->modules, module_clear);
  vs->elements = g_array_new (FALSE, TRUE, sizeof (ViperViewElement));
  g_array_set_clear_func (vs->elements, element_clear);
  vs->spacetime = g_array_new (FALSE, FALSE, sizeof (gint64));
  vs->index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return vs;
}

void
viper_view_setup_free (ViperViewSetup *vs)
{
  if (!vs)
    return;
  g_free (vs->name);
  g_free (vs->paradigm);
  g_array_unref (vs->modules);
  g_array_unref (vs->elements);
  g_array_unref (vs->spacetime);
  g_hash_table_destroy (vs->index);
  viper_view_cluster_free (vs->cluster);
  g_free (vs);
}

/* Read n numbers, at[i] (when asked) where each stands; FALSE when one is
 * missing or not a number (c->last: that word, or the end of the line). */
static gboolean
numbers (Cursor *c, double *out, const char **at, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      char *w = word (c);
      if (at)
        at[i] = c->last;
      gboolean ok = parse_number (w, &out[i]);
      g_free (w);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* Parse one non-comment line.  Returns NULL or the error text (without the
 * FILE:LINE:COLUMN prefix) and *col, the column it is about. */
static char *
parse_line (ViperViewSetup *vs, Cursor *c, guint lineno, GHashTable *st_seen, guint *col)
{
  char *kw = word (c);
  const char *kw_at = c->last;
  const char *at = NULL;    /* the column of the error, when not c->last */
  char *err = NULL;
  if (g_str_equal (kw, "paradigm"))
    {
      char *name = word (c);
      const char *name_at = c->last;
      if (vs->paradigm_line)
        err = g_strdup_printf ("expected one paradigm line (the first is line %u)", vs->paradigm_line), at = kw_at;
      else if (!is_identifier (name))
        err = g_strdup ("expected a paradigm name");
      else if (!at_end (c))
        err = g_strdup ("expected end of line after the paradigm name");
      else
        {
          vs->paradigm = name;
          vs->paradigm_line = lineno;
          vs->paradigm_col = col_of (c, name_at);
          name = NULL;
        }
      g_free (name);
    }
  else if (g_str_equal (kw, "maxrate"))
    {
      char *w = word (c);
      guint64 v = 0;
      if (vs->has_maxrate)
        err = g_strdup ("expected one maxrate line"), at = kw_at;
      else if (!w || !g_ascii_string_to_unsigned (w, 10, 1, G_MAXINT32, &v, NULL))
        err = g_strdup ("expected a positive integer MAXRATE");
      else if (!at_end (c))
        err = g_strdup ("expected end of line after MAXRATE");
      else
        {
          vs->maxrate = (gint64) v;
          vs->has_maxrate = TRUE;
        }
      g_free (w);
    }
  else if (g_str_equal (kw, "size"))
    {
      double wh[2];
      const char *wh_at[2];
      if (!numbers (c, wh, wh_at, 2))
        err = g_strdup ("expected a positive width and height");
      else if (wh[0] <= 0 || wh[1] <= 0)
        err = g_strdup ("expected a positive width and height"), at = wh_at[wh[0] <= 0 ? 0 : 1];
      else if (!at_end (c))
        err = g_strdup ("expected end of line after the size");
      else
        vs->width = wh[0], vs->height = wh[1];
    }
  else if (g_str_equal (kw, "module"))
    {
      ViperViewModule m = { .line = lineno };
      char *w = word (c);
      gboolean ok = parse_id (w, &m.id);
      g_free (w);
      double xywh[4];
      const char *xywh_at[4];
      gpointer prev;
      if (!ok)
        err = g_strdup ("expected a module id (an integer >= 0)");
      else if ((prev = g_hash_table_lookup (vs->index, &m.id)))
        err = g_strdup_printf ("expected each module once: module %" G_GINT64_FORMAT " is already at line %u",
                               m.id, g_array_index (vs->modules, ViperViewModule,
                                                    GPOINTER_TO_UINT (prev) - 1).line);
      else if (!is_identifier (m.repr = word_col (c, &m.repr_col)))
        err = g_strdup ("expected a representation (node, switch, circle, ...)");
      else if (!numbers (c, xywh, xywh_at, 4))
        err = g_strdup ("expected X Y W H (numbers) after the representation");
      else if (xywh[2] <= 0 || xywh[3] <= 0)
        err = g_strdup ("expected a positive width and height"), at = xywh_at[xywh[2] <= 0 ? 2 : 3];
      else
        {
          m.x = xywh[0], m.y = xywh[1], m.w = xywh[2], m.h = xywh[3];
          m.label = rest (c);
          g_array_append_val (vs->modules, m);
          g_hash_table_insert (vs->index, g_memdup2 (&m.id, sizeof m.id), GUINT_TO_POINTER (vs->modules->len));
          m.repr = NULL;
        }
      g_free (m.repr);
    }
  else if (g_str_equal (kw, "line"))
    {
      double v[4];
      if (!numbers (c, v, NULL, 4))
        err = g_strdup ("expected X1 Y1 X2 Y2 (numbers)");
      else if (!at_end (c))
        err = g_strdup ("expected end of line after X1 Y1 X2 Y2");
      else
        {
          ViperViewElement e = { VIPER_VIEW_ELEMENT_LINE, v[0], v[1], v[2], v[3], FALSE, { 0, 0, 0 }, NULL, lineno };
          g_array_append_val (vs->elements, e);
        }
    }
  else if (g_str_equal (kw, "rect"))
    {
      double v[4];
      const char *v_at[4];
      ViperViewElement e = { .kind = VIPER_VIEW_ELEMENT_RECT, .line = lineno };
      if (!numbers (c, v, v_at, 4))
        err = g_strdup ("expected X Y W H (numbers)");
      else if (v[2] <= 0 || v[3] <= 0)
        err = g_strdup ("expected a positive width and height"), at = v_at[v[2] <= 0 ? 2 : 3];
      else if (!at_end (c))
        {
          char *f = word (c);
          char *colour = NULL;
          if (!g_str_equal (f, "fill"))
            err = g_strdup_printf ("expected 'fill COLOUR' or end of line, got '%s'", f);
          else if (!viper_view_rgb_parse (colour = word (c), &e.fill))
            err = colour ? g_strdup_printf ("expected a colour (a name or 0xRRGGBB), got '%s'", colour)
                         : g_strdup ("expected a colour (a name or 0xRRGGBB) after fill");
          else if (!at_end (c))
            err = g_strdup ("expected end of line after the colour");
          e.filled = TRUE;
          g_free (f);
          g_free (colour);
        }
      if (!err)
        {
          e.x1 = v[0], e.y1 = v[1], e.x2 = v[0] + v[2], e.y2 = v[1] + v[3];
          g_array_append_val (vs->elements, e);
        }
    }
  else if (g_str_equal (kw, "text"))
    {
      double v[2];
      char *t = NULL;
      if (!numbers (c, v, NULL, 2))
        err = g_strdup ("expected X Y (numbers) and a text");
      else if (!(t = rest (c)))
        err = g_strdup ("expected a text after X Y");
      else
        {
          ViperViewElement e = { VIPER_VIEW_ELEMENT_TEXT, v[0], v[1], v[0], v[1], FALSE, { 0, 0, 0 }, t, lineno };
          g_array_append_val (vs->elements, e);
        }
    }
  else if (g_str_equal (kw, "spacetime"))
    {
      if (at_end (c))
        err = g_strdup ("expected module ids after spacetime");
      char *w;
      while (!err && (w = word (c)))
        {
          gint64 id;
          gpointer prev;
          if (!parse_id (w, &id))
            err = g_strdup_printf ("expected a module id (an integer >= 0), got '%s'", w);
          else if ((prev = g_hash_table_lookup (st_seen, &id)))
            err = g_strdup_printf ("expected each space-time module once: %" G_GINT64_FORMAT " is already at line %u",
                                   id, GPOINTER_TO_UINT (prev));
          else
            {
              g_array_append_val (vs->spacetime, id);
              g_hash_table_insert (st_seen, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (lineno));
            }
          g_free (w);
        }
    }
  else if (viper_view_cluster_keyword (kw))
    {
      guint ccol = 0;
      err = viper_view_cluster_parse_line (vs, kw, c->line, c->p, c->end, lineno, &ccol);
      if (err)
        at = c->line + ccol - 1;
    }
  else
    err = g_strdup_printf ("expected a keyword (paradigm, maxrate, size, module, line, rect, text, spacetime, "
                           "topology, link, route, range), got '%s'", kw);
  g_free (kw);
  if (err)
    *col = col_of (c, at ? at : c->last);
  return err;
}

ViperViewSetup *
viper_view_setup_parse (const char *text, gsize len, const char *name, GError **error)
{
  ViperViewSetup *vs = setup_new (name);
  GHashTable *st_seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  const char *p = text, *end = text + len;
  guint lineno = 0;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      gsize n = (gsize) ((nl ? nl : end) - p);
      /* a \r\n end is no part of the line: a missing word is reported just after its last byte */
      if (nl && n > 0 && p[n - 1] == '\r')
        n--;
      const char *le = p + n;
      lineno++;
      const char *hash = memchr (p, '#', n);
      Cursor c = { p, p, hash ? hash : le, p };
      p = nl ? nl + 1 : end;
      char *err = NULL;
      guint col = 1;
      const char *nul = memchr (c.p, '\0', (gsize) (c.end - c.p));
      if (nul)
        err = g_strdup ("expected text (the line holds a NUL byte)"), col = col_of (&c, nul);
      else if (at_end (&c))
        continue;
      else
        err = parse_line (vs, &c, lineno, st_seen, &col);
      if (err)
        {
          g_set_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_SYNTAX, "%s:%u:%u: %s", name, lineno,
                       col, err);
          g_free (err);
          g_hash_table_destroy (st_seen);
          viper_view_setup_free (vs);
          return NULL;
        }
    }
  g_hash_table_destroy (st_seen);
  return vs;
}

ViperViewSetup *
viper_view_setup_load (const char *path, GError **error)
{
  char *text = NULL;
  gsize len = 0;
  GError *e = NULL;
  if (!g_file_get_contents (path, &text, &len, &e))
    {
      g_set_error (error, VIPER_VIEW_SETUP_ERROR, VIPER_VIEW_SETUP_ERROR_READ, "%s", e->message);
      g_error_free (e);
      return NULL;
    }
  ViperViewSetup *vs = viper_view_setup_parse (text, len, path, error);
  g_free (text);
  return vs;
}

const ViperViewModule *
viper_view_setup_module (const ViperViewSetup *vs, gint64 id)
{
  if (!vs)
    return NULL;
  guint i = GPOINTER_TO_UINT (g_hash_table_lookup (vs->index, &id));
  return i ? &g_array_index (vs->modules, ViperViewModule, i - 1) : NULL;
}

guint
viper_view_setup_n_modules (const ViperViewSetup *vs)
{
  return vs ? vs->modules->len : 0;
}

const ViperViewModule *
viper_view_setup_module_at (const ViperViewSetup *vs, guint i)
{
  g_return_val_if_fail (vs && i < vs->modules->len, NULL);
  return &g_array_index (vs->modules, ViperViewModule, i);
}

ViperViewSetup *
viper_view_setup_new_circle (const gint64 *ids, guint n, const char *repr)
{
  ViperViewSetup *vs = setup_new ("(default circle)");
  double size = VIPER_VIEW_SETUP_DEFAULT_SIZE;
  /* discs a fraction of the ring's spacing, so neighbours never touch */
  double ring = size * 0.38;
  double d = n > 1 ? MIN (size * 0.12, 2 * G_PI * ring / n * 0.6) : size * 0.12;
  for (guint i = 0; i < n; i++)
    {
      double a = -G_PI / 2 + 2 * G_PI * i / MAX (n, 1);
      double cx = size / 2 + (n > 1 ? ring * cos (a) : 0), cy = size / 2 + (n > 1 ? ring * sin (a) : 0);
      ViperViewModule m = { .id = ids[i], .repr = g_strdup (repr), .x = cx - d / 2, .y = cy - d / 2,
                            .w = d, .h = d, .label = NULL, .line = 0 };
      if (viper_view_setup_module (vs, ids[i]))
        {
          module_clear (&m);
          continue;
        }
      g_array_append_val (vs->modules, m);
      g_hash_table_insert (vs->index, g_memdup2 (&m.id, sizeof m.id), GUINT_TO_POINTER (vs->modules->len));
    }
  return vs;
}
