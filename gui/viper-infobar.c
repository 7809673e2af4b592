/* viper-infobar.c - what went wrong, where the user looks (issue 14).
 *
 * The status window holds every condition, but it is a separate window that
 * is off by default: a binary file, a Farm with bad lines or a wrong setup
 * file used to open as a plausible, quiet picture.  The bar above the views
 * says, whenever something was rejected, is pending, inconsistent or
 * disconnected, how many and the first reason, with a button to the
 * diagnostics.  It is recomputed from the session's counts on every tick
 * (cheap), and the pending reasons (viper_run_stuck, what viper-replay
 * prints at the end) are looked up only once the replay has settled - at the
 * end of the files, or once every live sender has gone.
 */
#include <string.h>
#include "viper-infobar.h"
#include "core/jsonout.h"
#include "core/model.h"

#define MAX_LINES 4

struct _ViperInfobar {
  GtkWidget *bar, *label;
  void (*show_diagnostics) (gpointer data);
  gpointer data;
  char *first_inconsistent, *first_warning;
  guint64 warnings;
  char *text;               /* what the bar says now (NULL = hidden) */
  GtkMessageType type;
  gboolean dismissed;       /* closed by the user: stays closed until the text changes */
  gint64 stuck_at;          /* applied count the pending reasons were computed at */
  char *stuck_text;
};

static void
on_response (GtkInfoBar *bar, int response, gpointer data)
{
  ViperInfobar *ib = data;
  if (response == GTK_RESPONSE_CLOSE)
    {
      ib->dismissed = TRUE;
      gtk_widget_hide (GTK_WIDGET (bar));
    }
  else if (response == 1 && ib->show_diagnostics)
    ib->show_diagnostics (ib->data);
}

/* Strong colours: the theme's pale ones are easy to overlook, and the bar
 * is there to be seen. */
static void
install_css (void)
{
  static gboolean done;
  if (done)
    return;
  done = TRUE;
  GtkCssProvider *css = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (css,
                                   "#viper-infobar.error > revealer > box { background-color: #c01c28; color: #ffffff; }\n"
                                   "#viper-infobar.warning > revealer > box { background-color: #f6d32d; color: #241f31; }\n"
                                   "#viper-infobar.info > revealer > box { background-color: #99c1f1; color: #241f31; }\n",
                                   -1, NULL);
  gtk_style_context_add_provider_for_screen (gdk_screen_get_default (), GTK_STYLE_PROVIDER (css),
                                             GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (css);
}

ViperInfobar *
viper_infobar_new (void (*show_diagnostics) (gpointer data), gpointer data)
{
  ViperInfobar *ib = g_new0 (ViperInfobar, 1);
  ib->show_diagnostics = show_diagnostics;
  ib->data = data;
  ib->stuck_at = -1;
  install_css ();
  ib->bar = gtk_info_bar_new ();
  gtk_widget_set_name (ib->bar, "viper-infobar");
  gtk_info_bar_set_show_close_button (GTK_INFO_BAR (ib->bar), TRUE);
  GtkWidget *b = gtk_info_bar_add_button (GTK_INFO_BAR (ib->bar), "_Diagnostics", 1);
  gtk_widget_set_tooltip_text (b, "Show every condition and why trams are pending (F9)");
  gtk_widget_set_can_focus (b, FALSE);
  ib->label = gtk_label_new (NULL);
  gtk_label_set_line_wrap (GTK_LABEL (ib->label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (ib->label), 0);
  gtk_label_set_selectable (GTK_LABEL (ib->label), FALSE);
  gtk_label_set_max_width_chars (GTK_LABEL (ib->label), 140);
  gtk_container_add (GTK_CONTAINER (gtk_info_bar_get_content_area (GTK_INFO_BAR (ib->bar))), ib->label);
  gtk_widget_show (ib->label);
  gtk_widget_set_no_show_all (ib->bar, TRUE);
  g_signal_connect (ib->bar, "response", G_CALLBACK (on_response), ib);
  return ib;
}

void
viper_infobar_free (ViperInfobar *ib)
{
  if (!ib)
    return;
  g_free (ib->first_inconsistent);
  g_free (ib->first_warning);
  g_free (ib->text);
  g_free (ib->stuck_text);
  g_free (ib);
}

GtkWidget *viper_infobar_widget (ViperInfobar *ib) { return ib->bar; }

void
viper_infobar_note (ViperInfobar *ib, ViperDiagKind kind, const char *message)
{
  if (kind != VIPER_DIAG_WARNING)
    return;
  if (g_str_has_prefix (message, "inconsistent"))
    {
      if (!ib->first_inconsistent)
        ib->first_inconsistent = g_strdup (message);
      return;
    }
  if (!ib->first_warning)
    ib->first_warning = g_strdup (message);
  ib->warnings++;
}

void
viper_infobar_clear (ViperInfobar *ib)
{
  g_clear_pointer (&ib->first_inconsistent, g_free);
  g_clear_pointer (&ib->first_warning, g_free);
  g_clear_pointer (&ib->stuck_text, g_free);
  ib->warnings = 0;
  ib->stuck_at = -1;
}

static const char *
plural (guint64 n, const char *one, const char *many)
{
  return n == 1 ? one : many;
}

/* "proc 3: 12 trams wait for seq 1 of proc 3; ... (and N more lists)" */
static char *
stuck_reasons (ViperSession *s)
{
  GArray *stuck = viper_run_stuck (s->run);
  GString *g = g_string_new (NULL);
  guint shown = MIN (stuck->len, 2);
  for (guint i = 0; i < shown; i++)
    {
      const ViperStuck *st = &g_array_index (stuck, ViperStuck, i);
      g_string_append_printf (g, "%sproc %" G_GINT64_FORMAT ": %" G_GUINT64_FORMAT " %s for %s", i ? "; " : "",
                              st->proc, st->trams, plural (st->trams, "tram waits", "trams wait"), st->waiting_for);
    }
  if (stuck->len > shown)
    g_string_append_printf (g, " (and %u more)", stuck->len - shown);
  viper_stuck_array_free (stuck);
  return g_string_free (g, FALSE);
}

void
viper_infobar_update (ViperInfobar *ib, ViperSession *s)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  GtkMessageType type = GTK_MESSAGE_INFO;
#define RAISE(t) (type = (type == GTK_MESSAGE_ERROR || (t) == GTK_MESSAGE_ERROR) ? GTK_MESSAGE_ERROR \
                         : (type == GTK_MESSAGE_WARNING || (t) == GTK_MESSAGE_WARNING) ? GTK_MESSAGE_WARNING : (t))
  if (s)
    {
      ViperCounts c;
      viper_run_counts (s->run, &c);
      guint open = 0;
      ViperLiveState live = viper_session_live_state (s, &open);
      ViperStopReason stop = viper_scheduler_last_stop (s->sched);
      gboolean files_done = live == VIPER_LIVE_NONE && (stop == VIPER_STOP_END || stop == VIPER_STOP_STRICT);
      gboolean settled = files_done || live == VIPER_LIVE_LOST || live == VIPER_LIVE_ENDED
                         || (viper_scheduler_state (s->sched) == VIPER_SCHED_IDLE && stop == VIPER_STOP_USER);
      if (s->detect_binary)
        {
          /* the first clause says it all; the rest is in the diagnostics */
          char *first = g_strndup (s->detect_reason, strcspn (s->detect_reason, ";"));
          g_ptr_array_add (lines, g_markup_printf_escaped ("<b>Not a trace:</b> %s.", first));
          g_free (first);
          RAISE (GTK_MESSAGE_ERROR);
        }
      else if (files_done && c.read - c.rejected == 0)
        {
          char *why = c.rejected ? g_strdup_printf (" (%" G_GUINT64_FORMAT " %s rejected)", c.rejected,
                                                    plural (c.rejected, "line", "lines"))
                                 : g_strdup (s->detect_no_tram ? "" : " (empty, or only comments)");
          g_ptr_array_add (lines, g_markup_printf_escaped ("<b>No tram:</b> %s yielded no tram%s.", s->title, why));
          g_free (why);
          RAISE (GTK_MESSAGE_ERROR);
        }
      if (s->detect_binary_lines)
        {
          /* a trace with binary lines in it: they are skipped, the rest replays */
          g_ptr_array_add (lines, g_markup_printf_escaped ("<b>Binary data in the trace:</b> %s.",
                                                           s->detect_binary_lines));
          RAISE (GTK_MESSAGE_WARNING);
        }
      if (c.rejected > 0)
        {
          g_ptr_array_add (lines, g_markup_printf_escaped ("<b>%" G_GUINT64_FORMAT " %s rejected.</b> First: %s",
                                                           c.rejected, plural (c.rejected, "line", "lines"),
                                                           s->diag.first_bad ? s->diag.first_bad : "?"));
          RAISE (GTK_MESSAGE_WARNING);
        }
      guint64 inconsistent = s->model->inconsistent;
      if (inconsistent > 0)
        {
          g_ptr_array_add (lines, g_markup_printf_escaped ("<b>%" G_GUINT64_FORMAT " %s inconsistent.</b> First: %s",
                                                           inconsistent, plural (inconsistent, "tram", "trams"),
                                                           ib->first_inconsistent ? ib->first_inconsistent : "?"));
          RAISE (GTK_MESSAGE_WARNING);
        }
      if (live == VIPER_LIVE_LOST)
        {
          guint total = 0;
          /* a watched system's nodes never finish: name none */
          GPtrArray *mods = s->paradigm->monitor ? g_ptr_array_new () : viper_session_unfinished_modules (s, 4, &total);
          g_ptr_array_add (mods, NULL);
          char *names = g_strjoinv (", ", (char **) mods->pdata);
          g_ptr_array_unref (mods);
          GString *g = g_string_new ("<b>Connection lost:</b> ");
          if (total)
            g_string_append_printf (g, "%u %s never finished (%s%s)", total, plural (total, "module", "modules"),
                                    names, total > 4 ? ", \u2026" : "");
          else
            g_string_append (g, s->paradigm->monitor ? "the collectors stopped sending" : "the program stopped sending");
          if (viper_session_lost_connections (s))
            g_string_append_printf (g, "; %u %s cut off", viper_session_lost_connections (s),
                                    plural (viper_session_lost_connections (s), "connection", "connections"));
          g_string_append_printf (g, "; %" G_GUINT64_FORMAT " %s pending.", c.pending,
                                  plural (c.pending, "tram", "trams"));
          g_free (names);
          g_ptr_array_add (lines, g_string_free (g, FALSE));
          RAISE (GTK_MESSAGE_ERROR);
        }
      if (settled && c.pending > 0)
        {
          if ((gint64) s->model->applied != ib->stuck_at || !ib->stuck_text)
            {
              g_free (ib->stuck_text);
              ib->stuck_text = stuck_reasons (s);
              ib->stuck_at = (gint64) s->model->applied;
            }
          g_ptr_array_add (lines, g_markup_printf_escaped ("<b>%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                                                           " trams pending%s:</b> %s", c.pending, c.read,
                                                           files_done ? " at the end" : "", ib->stuck_text));
          RAISE (GTK_MESSAGE_WARNING);
        }
      if (ib->warnings > 0)
        {
          if (ib->warnings == 1)
            g_ptr_array_add (lines, g_markup_printf_escaped ("<b>Note:</b> %s", ib->first_warning));
          else
            g_ptr_array_add (lines, g_markup_printf_escaped ("<b>%" G_GUINT64_FORMAT " warnings.</b> First: %s",
                                                             ib->warnings, ib->first_warning));
          RAISE (GTK_MESSAGE_INFO);
        }
      if (s->detect_reason && g_str_has_suffix (s->detect_reason, "picl by default") && !s->detect_binary)
        {
          g_ptr_array_add (lines, g_markup_printf_escaped ("<b>Paradigm not recognised:</b> %s.", s->detect_reason));
          RAISE (GTK_MESSAGE_WARNING);
        }
    }
#undef RAISE
  char *text = NULL;
  if (lines->len)
    {
      guint n = lines->len;
      if (n > MAX_LINES)
        {
          g_ptr_array_set_size (lines, MAX_LINES);
          g_ptr_array_add (lines, g_strdup_printf ("\u2026 and %u more in Diagnostics.", n - MAX_LINES));
        }
      g_ptr_array_add (lines, NULL);
      text = g_strjoinv ("\n", (char **) lines->pdata);
    }
  g_ptr_array_unref (lines);
  if (g_strcmp0 (text, ib->text) != 0 || type != ib->type)
    {
      ib->dismissed = FALSE;
      g_free (ib->text);
      ib->text = text;
      ib->type = type;
      if (text)
        {
          gtk_label_set_markup (GTK_LABEL (ib->label), text);
          gtk_info_bar_set_message_type (GTK_INFO_BAR (ib->bar), type);
        }
    }
  else
    g_free (text);
  gtk_widget_set_visible (ib->bar, ib->text && !ib->dismissed);
}

void
viper_infobar_to_json (ViperInfobar *ib, GString *out)
{
  const char *type = ib->type == GTK_MESSAGE_ERROR ? "error" : ib->type == GTK_MESSAGE_WARNING ? "warning" : "info";
  char *plain = NULL;
  if (ib->text)
    pango_parse_markup (ib->text, -1, 0, NULL, &plain, NULL, NULL);
  g_string_append_printf (out, "{\"visible\": %s, \"type\": \"%s\", \"text\": ",
                          gtk_widget_get_visible (ib->bar) ? "true" : "false", type);
  viper_json_append_string (out, plain);
  g_string_append (out, "}");
  g_free (plain);
}
