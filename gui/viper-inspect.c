/* viper-inspect.c - tooltips and click-to-inspect on modules, their
 * variables and devices in the animation, variables and program views.
 *
 * What a module is doing was only readable in the space-time view's tooltip.
 * Here each view's pointer position is matched to the nearest module with
 * the view's own geometry (the one the screen is drawn with), and the module
 * is described from the model and the run: its state and since when (the
 * last state change in the model's history), what it is doing (the
 * renderer's activity line: the current primitive), its variables, and its
 * last trams.  The last trams are kept here, a few per module, from the
 * scheduler's transfer hook: the run keeps none once applied.
 *
 * The description a click opens follows the run: each time the views take
 * the model's damage (the app's flush, at the redraw tick, after a stop, a
 * seek or a reset) the open popover's text is made again when that damage
 * touches its module (or when a tram of the module arrived), so it never
 * shows the state of when it was opened; with nothing damaged it costs
 * nothing.  After a seek the last trams are those of the trail (core/trail.h)
 * up to the place the seek reached, read again from it when a description
 * needs them - not the trams replayed since the checkpoint the seek restored.
 *
 * The hover tooltip follows the run the same way: GTK asks for a tooltip's
 * text only when the pointer moves, so a pointer resting on a module kept
 * the text of when it arrived ("3 sent, 5 received" over a card saying 202
 * sent).  The view under the pointer and the module its tooltip describes
 * are remembered, and when the damage touches that module the tooltip is
 * queried again (gtk_widget_trigger_tooltip_query).  The module whose
 * description is open has no tooltip: it would say the same on top of it.
 */
#include <string.h>
#include <glib/gstdio.h>
#include "viper-inspect.h"
#include "core/trail.h"
#include "core/jsonout.h"
#include "viper-view-widget.h"
#include "paradigms/views.h"

#define LAST_TRAMS 4
#define HIT_RADIUS 40.0

typedef struct {
  gint64 rec, ev;
  double time, adjusted;
} Last;

typedef struct {
  Last last[LAST_TRAMS];
  guint n, next;
  guint64 count;
} Ring;

struct _ViperInspect {
  ViperSession **session;
  GHashTable *rings;        /* proc -> Ring */
  char *last_text;          /* what the popover shows (or showed last) */
  void (*notify) (gpointer data);
  gpointer notify_data;
  gboolean stale;           /* the rings are behind a seek: read them again from the trail */
  /* the open popover: what it describes, and whether a tram of it came */
  GtkWidget *pop, *label, *view;
  gint64 id;
  gboolean custom;
  double x, y;
  gboolean dirty;
  guint64 updates, computed;
  /* the view the pointer is in (a weak pointer) and what its tooltip says */
  GtkWidget *tip_view;
  gint64 tip_id;            /* the module described, G_MININT64 when none */
  gboolean tip_custom, tip_dirty;
  char *tip_text;           /* for inspect.json */
  guint64 tip_steps, tip_queries;
  char *debug_path;         /* inspect.json (tests), or NULL */
};

ViperInspect *
viper_inspect_new (ViperSession **session, void (*notify) (gpointer data), gpointer data)
{
  ViperInspect *in = g_new0 (ViperInspect, 1);
  in->session = session;
  in->rings = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  in->notify = notify;
  in->notify_data = data;
  return in;
}

void
viper_inspect_free (ViperInspect *in)
{
  if (!in)
    return;
  if (in->pop)
    {
      g_signal_handlers_disconnect_by_data (in->pop, in);
      gtk_widget_destroy (in->pop);
    }
  g_hash_table_unref (in->rings);
  if (in->tip_view)
    g_object_remove_weak_pointer (G_OBJECT (in->tip_view), (gpointer *) &in->tip_view);
  g_free (in->tip_text);
  g_free (in->last_text);
  g_free (in->debug_path);
  g_free (in);
}

void
viper_inspect_clear (ViperInspect *in)
{
  g_hash_table_remove_all (in->rings);
  in->stale = FALSE;
  in->dirty = TRUE;
}

void
viper_inspect_seeked (ViperInspect *in)
{
  /* the trams the seek replays from its checkpoint are not all there were */
  g_hash_table_remove_all (in->rings);
  in->stale = TRUE;
  in->dirty = TRUE;
}

void
viper_inspect_set_debug_dir (ViperInspect *in, const char *dir)
{
  g_free (in->debug_path);
  in->debug_path = dir ? g_build_filename (dir, "inspect.json", NULL) : NULL;
}

const char *viper_inspect_last_text (ViperInspect *in) { return in->last_text; }

static void
ring_add (ViperInspect *in, const ViperTram *t)
{
  Ring *r = g_hash_table_lookup (in->rings, &t->proc);
  if (!r)
    {
      gint64 *k = g_new (gint64, 1);
      *k = t->proc;
      r = g_new0 (Ring, 1);
      g_hash_table_insert (in->rings, k, r);
    }
  r->last[r->next] = (Last) { t->rec, t->ev, t->time, t->adjusted };
  r->next = (r->next + 1) % LAST_TRAMS;
  r->n = MIN (r->n + 1, LAST_TRAMS);
  r->count++;
}

void
viper_inspect_transfer (ViperInspect *in, const ViperTram *t)
{
  if (in->pop && (t->proc == in->id || in->id < 0 || in->custom))
    in->dirty = TRUE;
  if (in->tip_view && (t->proc == in->tip_id || in->tip_custom))
    in->tip_dirty = TRUE;
  if (!in->stale)
    ring_add (in, t);
}

/* The rings after a seek: every tram the trail logged before the place the
 * model is at (model->applied counts the trams delivered, as the trail does). */
static void
rebuild (ViperInspect *in, ViperSession *s)
{
  if (!in->stale)
    return;
  in->stale = FALSE;
  g_hash_table_remove_all (in->rings);
  ViperTrail *tr = viper_scheduler_get_trail (s->sched);
  if (!tr || viper_trail_failed (tr))
    return;
  guint64 n = MIN (s->model->applied, viper_trail_length (tr));
  ViperTrailPos pos;
  viper_trail_pos_init (&pos);
  for (guint64 i = 0; i < n; i++)
    {
      guint64 read, rejected;
      ring_add (in, viper_trail_peek (tr, &pos, &read, &rejected));
      viper_trail_advance (tr, &pos);
    }
  viper_trail_pos_clear (&pos);
}

static const char *
type_name (const ViperParadigm *p, gint64 rec, gint64 ev)
{
  guint16 i = viper_paradigm_type_index (p, rec, ev);
  return i == VIPER_TYPE_UNKNOWN ? NULL : p->types[i].name;
}

char *
viper_inspect_describe (ViperInspect *in, ViperSession *s, gint64 id)
{
  const ViperRenderer *r = viper_view_renderer (s->model);
  GString *g = g_string_new (NULL);
  char tb[32], ab[32];
  rebuild (in, s);
  if (id < 0)
    {
      ViperCounts c;
      viper_run_counts (s->run, &c);
      g_string_append_printf (g, "Program: %s\n", viper_model_program_state (s->model));
      g_string_append_printf (g, "trams read %" G_GUINT64_FORMAT ", transferred %" G_GUINT64_FORMAT ", pending %"
                              G_GUINT64_FORMAT ", rejected %" G_GUINT64_FORMAT ", inconsistent %" G_GUINT64_FORMAT,
                              c.read, c.transferred, c.pending, c.rejected, s->model->inconsistent);
    }
  else
    {
      char *label = r->module_label (s->model, id);
      g_string_append_printf (g, "%s (module %" G_GINT64_FORMAT ")\n", label, id);
      g_free (label);
      const char *state = r->state_name (r->module_state (s->model, id));
      g_string_append_printf (g, "state: %s", state);
      const ViperHistoryModule *hm = viper_model_history_module (s->model, id);
      if (hm && hm->states->len)
        {
          const ViperHistoryRef *ref = &g_array_index (hm->states, ViperHistoryRef, hm->states->len - 1);
          const ViperHistoryEntry *e = viper_model_history_at (s->model, ref->pos);
          if (e)
            g_string_append_printf (g, " since %s", viper_view_format_clock (e->t0, 0, tb, sizeof tb));
        }
      g_string_append_c (g, '\n');
      char *act = r->module_activity ? r->module_activity (s->model, id) : NULL;
      if (act && *act)
        g_string_append_printf (g, "doing: %s\n", act);
      g_free (act);
      guint nv = r->n_variables ? r->n_variables (s->model, id) : 0;
      for (guint v = 0; v < nv && v < 8; v++)
        {
          ViperViewVariable var = { 0 };
          r->variable (s->model, id, v, &var);
          g_string_append_printf (g, "variable %s%s%s: %s\n", var.name ? var.name : "?", var.type ? " " : "",
                                  var.type ? var.type : "", var.state ? var.state : "?");
        }
      if (nv > 8)
        g_string_append_printf (g, "(and %u more variables)\n", nv - 8);
      Ring *ring = g_hash_table_lookup (in->rings, &id);
      g_string_append_printf (g, "trams applied: %" G_GUINT64_FORMAT, ring ? ring->count : 0);
      for (guint k = 0; ring && k < ring->n; k++)
        {
          const Last *l = &ring->last[(ring->next + LAST_TRAMS - 1 - k) % LAST_TRAMS];
          const char *name = type_name (s->paradigm, l->rec, l->ev);
          g_string_append_printf (g, "\n  %s (%" G_GINT64_FORMAT " %" G_GINT64_FORMAT ") at %s, adjusted %s",
                                  name ? name : "tram", l->rec, l->ev, viper_view_format_clock (l->time, 0, tb, sizeof tb),
                                  viper_view_format_clock (l->adjusted, 0, ab, sizeof ab));
        }
    }
  return g_string_free (g, FALSE);
}

/* The module nearest to (x, y) within the hit radius (or inside its box). */
static gboolean
hit (GtkWidget *w, double x, double y, gint64 *id_out)
{
  ViperViewGeometry *geo = viper_view_widget_geometry (VIPER_VIEW_WIDGET (w));
  if (!geo)
    return FALSE;
  double best = HIT_RADIUS * HIT_RADIUS;
  gboolean found = FALSE;
  for (guint i = 0; i < viper_view_geometry_n_modules (geo); i++)
    {
      gint64 id = viper_view_geometry_module (geo, i);
      double bx, by, bw, bh, px, py;
      if (viper_view_geometry_module_box (geo, id, &bx, &by, &bw, &bh) && x >= bx && x < bx + bw && y >= by
          && y < by + bh)
        {
          *id_out = id;
          found = TRUE;
          break;
        }
      if (viper_view_geometry_module_point (geo, id, &px, &py))
        {
          double d = (px - x) * (px - x) + (py - y) * (py - y);
          if (d < best)
            {
              best = d;
              *id_out = id;
              found = TRUE;
            }
        }
    }
  viper_view_geometry_free (geo);
  return found;
}

/* A paradigm that draws this view itself says what is under the pointer
 * (its geometry is not the generic one); NULL when it does not. */
static char *
custom_describe (GtkWidget *w, ViperSession *s, double x, double y, gboolean *custom)
{
  const ViperRenderer *r = viper_view_renderer (s->model);
  ViperViewKind kind = viper_view_widget_kind (VIPER_VIEW_WIDGET (w));
  *custom = r->draw_view && r->describe_at;
  if (!*custom)
    return NULL;
  return r->describe_at (s->model, kind, gtk_widget_get_allocated_width (w), gtk_widget_get_allocated_height (w),
                         x, y);
}

static void write_debug (ViperInspect *in, ViperSession *s);

/* The pointer is in view W (or left it: NULL); its tooltip describes ID. */
static void
tip_follow (ViperInspect *in, GtkWidget *w, gint64 id, gboolean custom, const char *text)
{
  if (in->tip_view != w)
    {
      if (in->tip_view)
        g_object_remove_weak_pointer (G_OBJECT (in->tip_view), (gpointer *) &in->tip_view);
      in->tip_view = w;
      if (w)
        g_object_add_weak_pointer (G_OBJECT (w), (gpointer *) &in->tip_view);
    }
  in->tip_id = id;
  in->tip_custom = custom;
  in->tip_dirty = FALSE;
  if (!in->debug_path || g_strcmp0 (text, in->tip_text) == 0)
    return;
  g_free (in->tip_text);
  in->tip_text = g_strdup (text);
  ViperSession *s = *in->session;
  in->tip_steps = s ? viper_scheduler_steps_done (s->sched) : 0;
  in->tip_queries++;
  write_debug (in, s);
}

static gboolean
on_query_tooltip (GtkWidget *w, gint x, gint y, gboolean keyboard, GtkTooltip *tip, gpointer data)
{
  ViperInspect *in = data;
  ViperSession *s = *in->session;
  gint64 id = G_MININT64;
  gboolean custom = FALSE;
  char *text = !keyboard && s ? custom_describe (w, s, x, y, &custom) : NULL;
  if (!keyboard && s)
    tip_follow (in, w, G_MININT64, custom, NULL);   /* the pointer is here, over nothing yet */
  if (custom && !text)
    return FALSE;
  if (!text && (keyboard || !s || !hit (w, x, y, &id)))
    return FALSE;
  /* the module whose description is open: its text is already on the
   * screen, a tooltip would only cover it (or the view around it); nor
   * the view's own shorter one (its class handler, run after this one) */
  if (in->pop && (custom ? in->custom && g_strcmp0 (text, in->last_text) == 0 : !in->custom && id == in->id))
    {
      g_free (text);
      g_signal_stop_emission_by_name (w, "query-tooltip");
      return FALSE;
    }
  if (!text)
    text = viper_inspect_describe (in, s, id);
  if (!keyboard)
    tip_follow (in, w, id, custom, text);
  gtk_tooltip_set_text (tip, text);
  g_free (text);
  return TRUE;
}

static gboolean
on_leave (GtkWidget *w, GdkEventCrossing *ev, gpointer data)
{
  ViperInspect *in = data;
  (void) ev;
  if (in->tip_view == w)
    tip_follow (in, NULL, G_MININT64, FALSE, NULL);
  return FALSE;
}

/* inspect.json (tests): what the popover shows and the replay's place then. */
static void
write_debug (ViperInspect *in, ViperSession *s)
{
  if (!in->debug_path)
    return;
  GString *j = g_string_new ("{");
  g_string_append_printf (j, "\"tooltip_queries\": %" G_GUINT64_FORMAT ", \"tooltip_steps\": %" G_GUINT64_FORMAT
                          ", \"tooltip\": ", in->tip_queries, in->tip_steps);
  if (in->tip_text)
    viper_json_append_string (j, in->tip_text);
  else
    g_string_append (j, "null");
  g_string_append_printf (j, ", \"open\": %s, \"id\": %" G_GINT64_FORMAT ", \"updates\": %" G_GUINT64_FORMAT
                          ", \"computed\": %" G_GUINT64_FORMAT ", \"steps\": %" G_GUINT64_FORMAT
                          ", \"applied\": %" G_GUINT64_FORMAT ", \"text\": ",
                          in->pop ? "true" : "false", in->custom ? -2 : in->id, in->updates, in->computed,
                          s ? viper_scheduler_steps_done (s->sched) : 0, s ? s->model->applied : 0);
  viper_json_append_string (j, in->last_text ? in->last_text : "");
  g_string_append (j, "}\n");
  char *tmp = g_strconcat (in->debug_path, ".tmp", NULL);
  if (g_file_set_contents (tmp, j->str, (gssize) j->len, NULL))
    g_rename (tmp, in->debug_path);
  g_free (tmp);
  g_string_free (j, TRUE);
}

static void
on_pop_destroy (GtkWidget *pop, gpointer data)
{
  ViperInspect *in = data;
  if (in->pop != pop)
    return;
  in->pop = in->label = in->view = NULL;
  write_debug (in, *in->session);
}

static gboolean
on_button (GtkWidget *w, GdkEventButton *ev, gpointer data)
{
  ViperInspect *in = data;
  ViperSession *s = *in->session;
  gint64 id;
  if (ev->type != GDK_BUTTON_PRESS || ev->button != 1 || !s)
    return FALSE;
  gboolean custom = FALSE;
  char *text = custom_describe (w, s, ev->x, ev->y, &custom);
  if (custom && !text)
    return FALSE;
  if (!text && !hit (w, ev->x, ev->y, &id))
    return FALSE;
  if (!text)
    text = viper_inspect_describe (in, s, id);
  if (in->pop)
    gtk_widget_destroy (in->pop);
  GtkWidget *pop = gtk_popover_new (w);
  gtk_widget_set_name (pop, "inspect");
  GdkRectangle rect = { (int) ev->x, (int) ev->y, 1, 1 };
  gtk_popover_set_pointing_to (GTK_POPOVER (pop), &rect);
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  /* the replay's keys (Left, Right, Home, End) stay the app's while it is
   * open: a focused selectable label took them to move its caret (the text
   * can still be selected with the pointer and copied from its menu) */
  gtk_widget_set_can_focus (label, FALSE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_container_set_border_width (GTK_CONTAINER (pop), 8);
  gtk_container_add (GTK_CONTAINER (pop), label);
  g_signal_connect (pop, "closed", G_CALLBACK (gtk_widget_destroy), NULL);
  g_signal_connect (pop, "destroy", G_CALLBACK (on_pop_destroy), in);
  in->pop = pop;
  in->label = label;
  in->view = w;
  in->id = custom ? G_MININT64 : id;
  in->custom = custom;
  in->x = ev->x;
  in->y = ev->y;
  in->dirty = FALSE;
  gtk_widget_show_all (pop);
  gtk_popover_popup (GTK_POPOVER (pop));
  gtk_label_select_region (GTK_LABEL (label), 0, 0);   /* selectable, not selected */
  /* a tooltip of this module up (or on its way) when the click came goes:
   * asked again, it has none (on_query_tooltip) */
  gtk_widget_trigger_tooltip_query (w);
  g_free (in->last_text);
  in->last_text = text;
  write_debug (in, s);
  if (in->notify)
    in->notify (in->notify_data);
  return TRUE;
}

void
viper_inspect_close (ViperInspect *in)
{
  if (in->pop)
    gtk_widget_destroy (in->pop);
}

/* Whether AREAS touch what a description of ID (custom: the paradigm's own) says. */
static gboolean
touches (const GArray *areas, gint64 id, gboolean custom)
{
  gboolean touched = FALSE;
  for (guint i = 0; i < areas->len && !touched; i++)
    {
      const ViperArea *ar = &g_array_index (areas, ViperArea, i);
      switch (ar->kind)
        {
        case VIPER_AREA_ALL: touched = TRUE; break;
        case VIPER_AREA_PROGRAM: touched = id < 0 || custom; break;
        case VIPER_AREA_MODULE:
        case VIPER_AREA_VARIABLE: touched = ar->a == id || custom; break;
        case VIPER_AREA_LINK: touched = ar->a == id || ar->b == id || custom; break;
        case VIPER_AREA_CLOCK:
        default: touched = custom; break;
        }
    }
  return touched;
}

void
viper_inspect_refresh (ViperInspect *in, const GArray *areas)
{
  ViperSession *s = *in->session;
  if (!s)
    return;
  /* a tooltip up over a module whose state moved: ask for its text again
   * (GTK asks only when the pointer moves) */
  if (in->tip_view && (in->tip_dirty || touches (areas, in->tip_id, in->tip_custom)) && viper_tooltip_visible ())
    {
      in->tip_dirty = FALSE;
      gtk_widget_trigger_tooltip_query (in->tip_view);
    }
  if (!in->pop)
    return;
  if (!in->dirty && !touches (areas, in->id, in->custom))
    return;
  in->dirty = FALSE;
  in->computed++;
  gboolean custom = FALSE;
  char *text = in->custom ? custom_describe (in->view, s, in->x, in->y, &custom) : viper_inspect_describe (in, s, in->id);
  if (!text)
    return;                 /* nothing under the point any more: what it was stays */
  if (g_strcmp0 (text, gtk_label_get_text (GTK_LABEL (in->label))) == 0)
    {
      g_free (text);
      return;
    }
  gtk_label_set_text (GTK_LABEL (in->label), text);
  gtk_label_select_region (GTK_LABEL (in->label), 0, 0);
  in->updates++;
  g_free (in->last_text);
  in->last_text = text;
  write_debug (in, s);
}

void
viper_inspect_attach (ViperInspect *in, GtkWidget *view, gboolean click)
{
  gtk_widget_set_has_tooltip (view, TRUE);
  g_signal_connect (view, "query-tooltip", G_CALLBACK (on_query_tooltip), in);
  gtk_widget_add_events (view, GDK_LEAVE_NOTIFY_MASK);
  g_signal_connect (view, "leave-notify-event", G_CALLBACK (on_leave), in);
  if (click)
    {
      gtk_widget_add_events (view, GDK_BUTTON_PRESS_MASK);
      g_signal_connect (view, "button-press-event", G_CALLBACK (on_button), in);
    }
}
