/* monalisa-setup.c - the Module Setup file reader (spec monalisa.md section 6,
 * thesis 3.2.2.4 and appendix B).
 *
 * Design: the file is small and strictly ordered (the thesis gives an LL(1)
 * grammar), so it is read whole and parsed by one recursive-descent pass
 * over its non-blank lines:
 *
 *   MODULES: / N / GROUPS: / G / [RANGE FOR GROUPS: / G lines "FIRST SIZE"]
 *   DEFINITION TABLE: / N lines "FILE NAME ID" / "- # all_modules # ID"
 *   / G lines "- NAME ID" / { "#ATTRIBUTES for module NAME#" / lines "NAME ID TYPE" }
 *
 * Column-header lines ("file name ...", "module / group name ...",
 * "attribute name ...") may appear in the tables and are skipped.  The
 * thesis's own layout is accepted too: "FILE module NAME ID" and
 * "- replication group NAME ID".  An attribute section names a module or a
 * group; a group's attributes go to each of its instances.  Attribute ids of
 * a module run 0, 1, 2 ... in the order the file gives them.
 *
 * Every error is one GError "FILE:LINE:COLUMN: expected ...", naming the
 * first line that does not fit (at the end of the file: its last line, ",
 * found the end of the file") and in it where the reader was: the first word
 * that is not what its place wants (read from the left, the longest reading
 * of the forms a line may take), the word a check rejects (an id, a name),
 * or just after the line's last byte when a word is missing.  Columns are
 * counted as the trace reader counts them (docs/formats.md): 1-based bytes,
 * a tab is one.  Nothing is guessed: a setup file drives the matching of
 * group primitives, and a wrong member list would stall replays silently.
 */
#include <string.h>
#include "monalisa.h"

#define MAX_MODULES 1000000
#define MAX_GROUPS 100000

typedef struct {
  char *name;
  char *type;
} Attr;

/* The attribute lines under one "#ATTRIBUTES for module NAME#" header.  A
 * group's section is stored once and shared by its members (a module keeps
 * pointers to its sections, not copies of their lines), so a big group with
 * many attributes costs one line each, not one per member. */
typedef struct {
  GPtrArray *attrs;         /* of Attr* */
} Section;

typedef struct {
  char *file;
  char *name;
  GPtrArray *sections;      /* of Section* (owned by the setup), in file order */
  guint n_attrs;            /* attributes in its closed sections (ids run 0, 1, ...) */
  guint line;               /* where it was defined */
} Module;

typedef struct {
  char *name;
  gint64 id;
  guint first, size;
} Group;

struct _ViperMonalisaSetup {
  guint n_modules;
  Module *modules;
  guint n_groups;
  Group *groups;
  gint64 all_id;
  GHashTable *names;        /* name -> module index + 1, or -(group index + 1): no quadratic lookups */
  GHashTable *group_ids;    /* group id (gint64*) -> group index + 1 */
  GPtrArray *sections;      /* every Section, for freeing */
};

static void
section_free (gpointer p)
{
  Section *sec = p;
  g_ptr_array_unref (sec->attrs);
  g_free (sec);
}

G_DEFINE_QUARK (viper-monalisa-setup-error-quark, viper_monalisa_setup_error)

static void
attr_free (gpointer p)
{
  Attr *a = p;
  g_free (a->name);
  g_free (a->type);
  g_free (a);
}

void
viper_monalisa_setup_free (ViperMonalisaSetup *s)
{
  if (!s)
    return;
  for (guint i = 0; i < s->n_modules; i++)
    {
      g_free (s->modules[i].file);
      g_free (s->modules[i].name);
      if (s->modules[i].sections)
        g_ptr_array_unref (s->modules[i].sections);
    }
  g_free (s->modules);
  if (s->names)
    g_hash_table_destroy (s->names);
  if (s->group_ids)
    g_hash_table_destroy (s->group_ids);
  if (s->sections)
    g_ptr_array_unref (s->sections);
  for (guint i = 0; i < s->n_groups; i++)
    g_free (s->groups[i].name);
  g_free (s->groups);
  g_free (s);
}

/* ---- the line reader ------------------------------------------------------- */

typedef struct {
  const char *filename;
  char **lines;             /* the file split at '\n' */
  guint n_lines;            /* lines that hold anything (a final empty piece is not a line) */
  guint next;               /* index of the next line to look at */
  guint lineno;             /* 1-based number of the line last taken */
  char **tok;               /* its words */
  guint n_tok;
  GArray *cols;             /* guint: the column of each of its words */
  guint end_col;            /* just after its last byte (not counting a \r\n end) */
  GError **error;
} Reader;

static void
vfail (Reader *r, guint line, guint col, const char *fmt, va_list ap)
{
  char *what = g_strdup_vprintf (fmt, ap);
  g_set_error (r->error, VIPER_ML_SETUP_ERROR, VIPER_ML_SETUP_ERROR_PARSE, "%s:%u:%u: expected %s",
               r->filename, line, col, what);
  g_free (what);
}

/* An error about the line last taken, at column col; FALSE. */
static gboolean
fail (Reader *r, guint col, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (Reader *r, guint col, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vfail (r, r->lineno, col, fmt, ap);
  va_end (ap);
  return FALSE;
}

/* At the end of the file: its last line, just after its last byte. */
static gboolean
fail_eof_v (Reader *r, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail_eof_v (Reader *r, const char *fmt, ...)
{
  guint col = 1;
  if (r->n_lines > 0)
    {
      gsize len = strlen (r->lines[r->n_lines - 1]);
      if (len && r->lines[r->n_lines - 1][len - 1] == '\r')
        len--;
      col = (guint) len + 1;
    }
  va_list ap;
  va_start (ap, fmt);
  vfail (r, MAX (r->n_lines, 1u), col, fmt, ap);
  va_end (ap);
  return FALSE;
}

static gboolean
fail_eof (Reader *r, const char *what)
{
  return fail_eof_v (r, "%s, found the end of the file", what);
}

/* The column of word i of the line last taken, or just after its end when
 * it has fewer words. */
static guint
col_at (const Reader *r, guint i)
{
  return i < r->n_tok ? g_array_index (r->cols, guint, i) : r->end_col;
}

/* Lower-case words of a line joined by one space, for header comparisons. */
static char *
normalised (char **tok, guint n)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (s, ' ');
      g_string_append (s, tok[i]);
    }
  char *low = g_ascii_strdown (s->str, -1);
  g_string_free (s, TRUE);
  return low;
}

static gboolean
is_column_header (char **tok, guint n)
{
  char *low = normalised (tok, n);
  static const char *heads[] = { "file name", "module / group name", "module | group name",
                                 "module/group name", "module /group name", "module/ group name",
                                 "attribute name" };
  gboolean yes = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (heads) && !yes; i++)
    yes = g_str_has_prefix (low, heads[i]) && (low[strlen (heads[i])] == '\0' || low[strlen (heads[i])] == ' ');
  g_free (low);
  return yes;
}

/* Take the next non-blank line (skipping column headers when asked).
 * FALSE at the end of the file. */
static gboolean
take (Reader *r, gboolean skip_headers)
{
  while (r->next < r->n_lines)
    {
      guint i = r->next++;
      g_strfreev (r->tok);
      r->tok = NULL;
      r->n_tok = 0;
      char *line = r->lines[i];
      gsize len = strlen (line);
      if (len && line[len - 1] == '\r')
        line[--len] = '\0';
      r->end_col = (guint) len + 1;
      g_array_set_size (r->cols, 0);
      GPtrArray *words = g_ptr_array_new ();
      for (const char *p = line; *p;)
        {
          while (*p == ' ' || *p == '\t')
            p++;
          if (!*p)
            break;
          const char *w = p;
          while (*p && *p != ' ' && *p != '\t')
            p++;
          g_ptr_array_add (words, g_strndup (w, (gsize) (p - w)));
          guint col = (guint) (w - line) + 1;
          g_array_append_val (r->cols, col);
        }
      g_ptr_array_add (words, NULL);
      r->n_tok = words->len - 1;
      r->tok = (char **) g_ptr_array_free (words, FALSE);
      r->lineno = i + 1;
      if (r->n_tok == 0)
        continue;
      if (skip_headers && is_column_header (r->tok, r->n_tok))
        continue;
      return TRUE;
    }
  return FALSE;
}

static gboolean
line_is (Reader *r, const char *header)
{
  char *low = normalised (r->tok, r->n_tok);
  char *want = g_ascii_strdown (header, -1);
  gboolean yes = g_str_equal (low, want);
  g_free (low);
  g_free (want);
  return yes;
}

/* The column of the first word of the line that is not the header's word
 * in its place (case aside), of a surplus word, or the end. */
static guint
header_col (Reader *r, const char *header)
{
  char **hw = g_strsplit (header, " ", -1);
  guint i = 0;
  while (hw[i] && i < r->n_tok && g_ascii_strcasecmp (hw[i], r->tok[i]) == 0)
    i++;
  g_strfreev (hw);
  return col_at (r, i);
}

static gboolean
expect_header (Reader *r, const char *header)
{
  char *what = g_strdup_printf ("\"%s\"", header);
  gboolean ok = take (r, FALSE) ? (line_is (r, header) || fail (r, header_col (r, header), "%s", what))
                                : fail_eof (r, what);
  g_free (what);
  return ok;
}

/* Where a line stops fitting the forms it may take, read from the left:
 * the first word that no form wants in its place (the longest reading
 * wins), a surplus word, or the end of the line when a word is missing.  A
 * form is a NULL-terminated list of word kinds: "*" any word, "0" an
 * integer, "=WORD" that word, "~WORD" that word in any case. */
static guint
stop_col (Reader *r, const char *const *const *forms, guint n_forms)
{
  guint best = 0;
  for (guint f = 0; f < n_forms; f++)
    {
      const char *const *form = forms[f];
      guint i = 0;
      for (; form[i] && i < r->n_tok; i++)
        {
          const char *k = form[i], *w = r->tok[i];
          gint64 v;
          gboolean fits = k[0] == '*' || (k[0] == '0' && g_ascii_string_to_signed (w, 10, G_MININT64, G_MAXINT64, &v, NULL))
                          || (k[0] == '=' && g_str_equal (w, k + 1))
                          || (k[0] == '~' && g_ascii_strcasecmp (w, k + 1) == 0);
          if (!fits)
            break;
        }
      best = MAX (best, i);
    }
  return col_at (r, best);
}

static gboolean
parse_int (const char *s, gint64 min, gint64 max, gint64 *out)
{
  return g_ascii_string_to_signed (s, 10, min, max, out, NULL);
}

/* A line holding one integer in [min, max]. */
static gboolean
expect_count (Reader *r, const char *what, gint64 min, gint64 max, gint64 *out)
{
  char *desc = g_strdup_printf ("%s (an integer from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT ")", what, min, max);
  gboolean ok;
  if (!take (r, FALSE))
    ok = fail_eof (r, desc);
  else if (!parse_int (r->tok[0], min, max, out))
    ok = fail (r, col_at (r, 0), "%s", desc);
  else if (r->n_tok != 1)
    ok = fail (r, col_at (r, 1), "%s", desc);
  else
    ok = TRUE;
  g_free (desc);
  return ok;
}

static gint
module_by_name (const ViperMonalisaSetup *s, const char *name)
{
  gintptr v = (gintptr) g_hash_table_lookup (s->names, name);
  return v > 0 ? (gint) (v - 1) : -1;
}

static gint
group_by_name (const ViperMonalisaSetup *s, const char *name)
{
  gintptr v = (gintptr) g_hash_table_lookup (s->names, name);
  return v < 0 ? (gint) (-v - 1) : -1;
}

static gint
group_by_id (const ViperMonalisaSetup *s, gint64 id)
{
  gintptr v = s->group_ids ? (gintptr) g_hash_table_lookup (s->group_ids, &id) : 0;
  return v > 0 ? (gint) (v - 1) : -1;
}

static gboolean
id_taken (const ViperMonalisaSetup *s, gint64 id)
{
  if (id >= 0 && id < (gint64) s->n_modules)
    return TRUE;
  if (id == s->all_id)
    return TRUE;
  return group_by_id (s, id) >= 0;
}

/* "#ATTRIBUTES for module NAME#": the name, or NULL when the line is not one. */
static char *
attributes_header (Reader *r)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < r->n_tok; i++)
    {
      if (i)
        g_string_append_c (s, ' ');
      g_string_append (s, r->tok[i]);
    }
  char *name = NULL;
  const char *head = "#attributes for module";
  char *low = g_ascii_strdown (s->str, -1);
  if (g_str_has_prefix (low, head) && s->len > strlen (head) + 1 && s->str[s->len - 1] == '#'
      && s->str[strlen (head)] == ' ')
    {
      name = g_strndup (s->str + strlen (head), s->len - strlen (head) - 1);
      g_strstrip (name);
      if (!*name)
        {
          g_free (name);
          name = NULL;
        }
    }
  g_free (low);
  g_string_free (s, TRUE);
  return name;
}

/* A section's lines are all read: its members' attribute counts move on
 * (once per section, not once per line and member). */
static void
close_section (ViperMonalisaSetup *s, const Section *sec, guint first, guint count)
{
  if (sec)
    for (guint k = first; k < first + count; k++)
      s->modules[k].n_attrs += sec->attrs->len;
}

/* Where "- # all_modules # ID" stops fitting: "-", then words that spell
 * "#all_modules#" however the blanks fall, then the id, then the end. */
static guint
all_modules_col (Reader *r)
{
  if (!g_str_equal (r->tok[0], "-"))
    return col_at (r, 0);
  const char *want = "#all_modules#";
  gsize have = 0, n = strlen (want);
  guint i = 1;
  for (; i < r->n_tok && have < n; i++)
    {
      gsize l = strlen (r->tok[i]);
      if (l > n - have || strncmp (r->tok[i], want + have, l) != 0)
        return col_at (r, i);
      have += l;
    }
  gint64 id;
  if (have < n || i >= r->n_tok || !parse_int (r->tok[i], G_MININT64, G_MAXINT64, &id))
    return col_at (r, i);
  return col_at (r, i + 1);
}

static gboolean
parse (Reader *r, ViperMonalisaSetup *s)
{
  gint64 n, g;
  if (!expect_header (r, "MODULES:") || !expect_count (r, "the number of modules", 1, MAX_MODULES, &n))
    return FALSE;
  s->n_modules = (guint) n;
  s->modules = g_new0 (Module, s->n_modules);
  s->names = g_hash_table_new (g_str_hash, g_str_equal);       /* keys: the modules' and groups' own names */
  s->group_ids = g_hash_table_new (g_int64_hash, g_int64_equal);
  s->sections = g_ptr_array_new_with_free_func (section_free);
  if (!expect_header (r, "GROUPS:") || !expect_count (r, "the number of groups", 0, MAX_GROUPS, &g))
    return FALSE;
  s->n_groups = (guint) g;
  s->groups = g_new0 (Group, s->n_groups);
  s->all_id = G_MININT64;

  /* RANGE FOR GROUPS: required when there are groups */
  guint save = r->next;
  gboolean got = take (r, FALSE);
  if (!got || !line_is (r, "RANGE FOR GROUPS:"))
    {
      if (s->n_groups > 0)
        return got ? fail (r, header_col (r, "RANGE FOR GROUPS:"), "\"RANGE FOR GROUPS:\"")
                   : fail_eof (r, "\"RANGE FOR GROUPS:\"");
      r->next = save;           /* give the line back */
    }
  for (guint i = 0; i < s->n_groups; i++)
    {
      char *what = g_strdup_printf ("a group range \"FIRST SIZE\" (group %u of %u)", i + 1, s->n_groups);
      gint64 first, size;
      gboolean ok;
      if (!take (r, FALSE))
        ok = fail_eof (r, what);
      else if (!parse_int (r->tok[0], G_MININT64, G_MAXINT64, &first))
        ok = fail (r, col_at (r, 0), "%s", what);
      else if (r->n_tok < 2 || !parse_int (r->tok[1], G_MININT64, G_MAXINT64, &size))
        ok = fail (r, col_at (r, 1), "%s", what);
      else if (r->n_tok > 2)
        ok = fail (r, col_at (r, 2), "%s", what);
      else if (first < 0 || size < 1 || first >= (gint64) s->n_modules || size > (gint64) s->n_modules - first)
        ok = fail (r, col_at (r, first < 0 || first >= (gint64) s->n_modules ? 0 : 1),
                   "a group range inside the modules 0..%u (FIRST >= 0, SIZE >= 1)", s->n_modules - 1);
      else
        {
          s->groups[i].first = (guint) first;
          s->groups[i].size = (guint) size;
          ok = TRUE;
        }
      g_free (what);
      if (!ok)
        return FALSE;
    }

  if (!expect_header (r, "DEFINITION TABLE:"))
    return FALSE;
  for (guint i = 0; i < s->n_modules; i++)
    {
      char *what = g_strdup_printf ("a module definition \"FILE NAME ID\" (module %u of %u)", i + 1, s->n_modules);
      static const char *const plain[] = { "*", "*", "0", NULL }, *const thesis[] = { "*", "=module", "*", "0", NULL };
      static const char *const *const forms[] = { plain, thesis };
      gint64 id;
      gboolean ok = TRUE;
      const char *name = NULL;
      guint name_i = 1;         /* where the name is; the id follows it */
      if (!take (r, TRUE))
        ok = fail_eof (r, what);
      else if (r->n_tok == 3 && parse_int (r->tok[2], G_MININT64, G_MAXINT64, &id))
        name = r->tok[1];
      else if (r->n_tok == 4 && g_str_equal (r->tok[1], "module") && parse_int (r->tok[3], G_MININT64, G_MAXINT64, &id))
        name = r->tok[name_i = 2];
      else
        ok = fail (r, stop_col (r, forms, G_N_ELEMENTS (forms)), "%s", what);
      g_free (what);
      if (!ok)
        return FALSE;
      if (id < 0 || id >= (gint64) s->n_modules)
        return fail (r, col_at (r, name_i + 1), "a module id from 0 to %u", s->n_modules - 1);
      Module *m = &s->modules[id];
      if (m->name)
        return fail (r, col_at (r, name_i + 1),
                     "a module id not defined before (%" G_GINT64_FORMAT " is defined on line %u)", id, m->line);
      if (module_by_name (s, name) >= 0)
        return fail (r, col_at (r, name_i), "a module name not defined before (%s is defined on line %u)",
                     name, s->modules[module_by_name (s, name)].line);
      m->file = g_strdup (r->tok[0]);
      m->name = g_strdup (name);
      m->line = r->lineno;
      m->sections = g_ptr_array_new ();
      g_hash_table_insert (s->names, m->name, GSIZE_TO_POINTER ((gsize) id + 1));
    }

  /* - # all_modules # ID */
  {
    const char *what = "\"- # all_modules # ID\"";
    if (!take (r, TRUE))
      return fail_eof (r, what);
    gint64 id;
    gboolean ok = r->n_tok >= 3 && g_str_equal (r->tok[0], "-")
                  && parse_int (r->tok[r->n_tok - 1], G_MININT64, G_MAXINT64, &id);
    if (ok)
      {
        GString *mid = g_string_new (NULL);
        for (guint k = 1; k + 1 < r->n_tok; k++)
          g_string_append (mid, r->tok[k]);
        ok = g_str_equal (mid->str, "#all_modules#");
        g_string_free (mid, TRUE);
      }
    if (!ok)
      return fail (r, all_modules_col (r), "%s", what);
    if (id >= 0 && id < (gint64) s->n_modules)
      return fail (r, col_at (r, r->n_tok - 1), "an all_modules id that is not a module id (0..%u)",
                   s->n_modules - 1);
    s->all_id = id;
  }
  for (guint i = 0; i < s->n_groups; i++)
    {
      char *what = g_strdup_printf ("a group definition \"- NAME ID\" (group %u of %u)", i + 1, s->n_groups);
      static const char *const plain[] = { "=-", "*", "0", NULL },
                               *const thesis[] = { "=-", "~replication", "=group", "*", "0", NULL };
      static const char *const *const forms[] = { plain, thesis };
      gint64 id;
      const char *name = NULL;
      guint name_i = 1;
      gboolean ok = TRUE;
      if (!take (r, TRUE))
        ok = fail_eof (r, what);
      else if (r->n_tok == 3 && g_str_equal (r->tok[0], "-") && parse_int (r->tok[2], G_MININT64, G_MAXINT64, &id))
        name = r->tok[1];
      else if (r->n_tok == 5 && g_str_equal (r->tok[0], "-") && g_ascii_strcasecmp (r->tok[1], "replication") == 0
               && g_str_equal (r->tok[2], "group") && parse_int (r->tok[4], G_MININT64, G_MAXINT64, &id))
        name = r->tok[name_i = 3];
      else
        ok = fail (r, stop_col (r, forms, G_N_ELEMENTS (forms)), "%s", what);
      g_free (what);
      if (!ok)
        return FALSE;
      if (id_taken (s, id))
        return fail (r, col_at (r, name_i + 1), "a group id that no module or group has (%" G_GINT64_FORMAT " is taken)",
                     id);
      if (module_by_name (s, name) >= 0 || group_by_name (s, name) >= 0)
        return fail (r, col_at (r, name_i), "a group name that no module or group has (%s is taken)", name);
      s->groups[i].name = g_strdup (name);
      s->groups[i].id = id;
      g_hash_table_insert (s->names, s->groups[i].name, (gpointer) (-(gintptr) i - 1));
      g_hash_table_insert (s->group_ids, &s->groups[i].id, GSIZE_TO_POINTER ((gsize) i + 1));
    }

  /* attribute sections: each header opens a Section shared by the modules it
   * names; a module's attribute ids run on across its sections */
  guint first = 0, count = 0;     /* modules the current section adds to */
  Section *sec = NULL;
  guint sec_first = 0, sec_count = 0;
  guint base = 0;                 /* ids the section's first member had before it */
  gint odd = -1;                  /* a member whose count differs from base, if any */
  gboolean in_section = FALSE;
  gboolean ok = TRUE;
  while (take (r, in_section))
    {
      char *name = attributes_header (r);
      if (name)
        {
          gint mi = module_by_name (s, name);
          gint gi = group_by_name (s, name);
          if (mi >= 0)
            first = (guint) mi, count = 1;
          else if (gi >= 0)
            first = s->groups[gi].first, count = s->groups[gi].size;
          else
            {
              /* the name is the fourth word: "#ATTRIBUTES for module NAME#" */
              fail (r, col_at (r, 3), "a module or group name of the DEFINITION TABLE (not %s)", name);
              g_free (name);
              ok = FALSE;
              break;
            }
          g_free (name);
          close_section (s, sec, sec_first, sec_count);
          sec_first = first;
          sec_count = count;
          sec = g_new0 (Section, 1);
          sec->attrs = g_ptr_array_new_with_free_func (attr_free);
          g_ptr_array_add (s->sections, sec);
          base = s->modules[first].n_attrs;
          odd = -1;
          for (guint k = first; k < first + count; k++)
            {
              if (odd < 0 && s->modules[k].n_attrs != base)
                odd = (gint) k;
              g_ptr_array_add (s->modules[k].sections, sec);
            }
          in_section = TRUE;
          continue;
        }
      if (!in_section)
        {
          ok = fail (r, col_at (r, 0), "\"#ATTRIBUTES for module NAME#\"");
          break;
        }
      gint64 id;
      if (r->n_tok < 2 || r->tok[0][0] == '#' || !parse_int (r->tok[1], G_MININT64, G_MAXINT64, &id))
        {
          ok = fail (r, col_at (r, r->tok[0][0] == '#' ? 0 : 1),
                     "an attribute \"NAME ID TYPE\" or \"#ATTRIBUTES for module NAME#\"");
          break;
        }
      guint expect = base + sec->attrs->len;
      if (id != (gint64) expect || odd >= 0)
        {
          guint k = id != (gint64) expect ? first : (guint) odd;
          ok = fail (r, col_at (r, 1), "attribute id %u of module %s (ids run 0, 1, ... per module)",
                     s->modules[k].n_attrs + sec->attrs->len, s->modules[k].name);
          break;
        }
      GString *type = g_string_new (NULL);
      for (guint k = 2; k < r->n_tok; k++)
        {
          if (k > 2)
            g_string_append_c (type, ' ');
          g_string_append (type, r->tok[k]);
        }
      Attr *a = g_new0 (Attr, 1);
      a->name = g_strdup (r->tok[0]);
      a->type = g_string_free (type, FALSE);
      g_ptr_array_add (sec->attrs, a);
    }
  close_section (s, sec, sec_first, sec_count);
  if (!ok)
    return FALSE;
  return TRUE;
}

ViperMonalisaSetup *
viper_monalisa_setup_parse (const char *text, gssize len, const char *filename, GError **error)
{
  g_return_val_if_fail (text != NULL, NULL);
  const char *nul = len >= 0 ? memchr (text, '\0', (gsize) len) : NULL;
  if (nul)
    {
      guint line = 1;
      const char *start = text;
      for (const char *q = text; q < nul; q++)
        if (*q == '\n')
          line++, start = q + 1;
      g_set_error (error, VIPER_ML_SETUP_ERROR, VIPER_ML_SETUP_ERROR_PARSE,
                   "%s:%u:%u: expected a text file (it contains a NUL byte)", filename, line,
                   (guint) (nul - start) + 1);
      return NULL;
    }
  char *copy = len < 0 ? g_strdup (text) : g_strndup (text, (gsize) len);
  Reader r = { .filename = filename, .error = error, .cols = g_array_new (FALSE, FALSE, sizeof (guint)) };
  r.lines = g_strsplit (copy, "\n", -1);
  g_free (copy);
  r.n_lines = g_strv_length (r.lines);
  if (r.n_lines > 0 && r.lines[r.n_lines - 1][0] == '\0')
    r.n_lines--;                /* the piece after the final '\n' */
  ViperMonalisaSetup *s = g_new0 (ViperMonalisaSetup, 1);
  gboolean ok = parse (&r, s);
  g_strfreev (r.tok);
  g_array_unref (r.cols);
  g_strfreev (r.lines);
  if (!ok)
    {
      viper_monalisa_setup_free (s);
      return NULL;
    }
  return s;
}

ViperMonalisaSetup *
viper_monalisa_setup_load (const char *path, GError **error)
{
  char *text = NULL;
  gsize len = 0;
  GError *err = NULL;
  if (!g_file_get_contents (path, &text, &len, &err))
    {
      g_set_error (error, VIPER_ML_SETUP_ERROR, VIPER_ML_SETUP_ERROR_READ, "%s", err->message);
      g_error_free (err);
      return NULL;
    }
  ViperMonalisaSetup *s = viper_monalisa_setup_parse (text, (gssize) len, path, error);
  g_free (text);
  return s;
}

/* ---- accessors ---------------------------------------------------------------- */

guint
viper_monalisa_setup_n_modules (const ViperMonalisaSetup *s)
{
  return s ? s->n_modules : 0;
}

const char *
viper_monalisa_setup_module_name (const ViperMonalisaSetup *s, guint module)
{
  return s && module < s->n_modules ? s->modules[module].name : NULL;
}

const char *
viper_monalisa_setup_module_file (const ViperMonalisaSetup *s, guint module)
{
  return s && module < s->n_modules ? s->modules[module].file : NULL;
}

guint
viper_monalisa_setup_n_attributes (const ViperMonalisaSetup *s, guint module)
{
  return s && module < s->n_modules ? s->modules[module].n_attrs : 0;
}

static const Attr *
attr_at (const ViperMonalisaSetup *s, guint module, guint attr)
{
  if (!s || module >= s->n_modules || attr >= s->modules[module].n_attrs)
    return NULL;
  const GPtrArray *secs = s->modules[module].sections;
  for (guint i = 0; i < secs->len; i++)
    {
      const Section *sec = secs->pdata[i];
      if (attr < sec->attrs->len)
        return g_ptr_array_index (sec->attrs, attr);
      attr -= sec->attrs->len;
    }
  return NULL;
}

const char *
viper_monalisa_setup_attribute_name (const ViperMonalisaSetup *s, guint module, guint attr)
{
  const Attr *a = attr_at (s, module, attr);
  return a ? a->name : NULL;
}

const char *
viper_monalisa_setup_attribute_type (const ViperMonalisaSetup *s, guint module, guint attr)
{
  const Attr *a = attr_at (s, module, attr);
  return a ? a->type : NULL;
}

gint64
viper_monalisa_setup_all_modules_id (const ViperMonalisaSetup *s)
{
  return s ? s->all_id : -1;
}

guint
viper_monalisa_setup_n_groups (const ViperMonalisaSetup *s)
{
  return s ? s->n_groups : 0;
}

const char *
viper_monalisa_setup_group_name (const ViperMonalisaSetup *s, guint group)
{
  return s && group < s->n_groups ? s->groups[group].name : NULL;
}

gint64
viper_monalisa_setup_group_id (const ViperMonalisaSetup *s, guint group)
{
  return s && group < s->n_groups ? s->groups[group].id : -1;
}

void
viper_monalisa_setup_group_range (const ViperMonalisaSetup *s, guint group, guint *first, guint *size)
{
  gboolean ok = s && group < s->n_groups;
  if (first)
    *first = ok ? s->groups[group].first : 0;
  if (size)
    *size = ok ? s->groups[group].size : 0;
}

guint
viper_monalisa_setup_group_members (const ViperMonalisaSetup *s, gint64 group, gint64 *out, guint max)
{
  if (!s)
    return 0;
  guint first = 0, size = 0;
  gint gi;
  if (group == s->all_id)
    size = s->n_modules;
  else if ((gi = group_by_id (s, group)) >= 0)
    {
      first = s->groups[gi].first;
      size = s->groups[gi].size;
    }
  guint n = MIN (size, max);
  for (guint i = 0; i < n; i++)
    out[i] = first + i;
  return n;
}
