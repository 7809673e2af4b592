/* viper-app-dump.c - what the GUI writes for its tests and benchmarks under
 * VIPER_DEBUG_DIR (the why is in viper-app.c's opening comment): where each
 * module shows on screen, the progress bar, and the state with what the
 * window shows besides the views. */
#include "viper-app-private.h"

/* Write DIR/NAME whole: g_file_set_contents renames into place, so a test
 * reading it never sees half a file.  A failure is said, not fatal. */
static void
dump_file (App *a, const char *name, const char *doc)
{
  char *path = g_build_filename (a->debug_dir, name, NULL);
  GError *e = NULL;
  if (!g_file_set_contents (path, doc, -1, &e))
    {
      g_printerr ("viper: %s\n", e->message);
      g_error_free (e);
    }
  g_free (path);
}

/* Where the widget's (0, 0) is in root pixels.  gdk_window_get_origin asks
 * the X server, so write_layout asks once per view, not once per module. */
static gboolean
root_origin (GtkWidget *w, int *ox, int *oy)
{
  GdkWindow *gw = gtk_widget_get_window (w);
  if (!gw || !gtk_widget_get_mapped (w))
    return FALSE;
  gdk_window_get_origin (gw, ox, oy);
  if (!gtk_widget_get_has_window (w))
    {
      GtkAllocation al;
      gtk_widget_get_allocation (w, &al);
      *ox += al.x;
      *oy += al.y;
    }
  return TRUE;
}

void
viper_app_write_layout (App *a)
{
  GString *j = g_string_new ("{\"views\": {");
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      ViperViewWidget *v = VIPER_VIEW_WIDGET (a->views[k]);
      g_string_append_printf (j, "%s\"%s\": [", k ? ", " : "", viper_view_kind_name (k));
      if (a->s && gtk_widget_get_mapped (a->views[k]))
        {
          GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
          if (k == VIPER_VIEW_PROGRAM)
            {
              gint64 minus = -1;
              g_array_append_val (ids, minus);
            }
          else
            viper_view_renderer (a->s->model)->modules (a->s->model, a->s->run, ids);
          /* one layout per view and dump: this runs after every frame, and
           * laying the view out again for each of 1088 modules made every
           * frame take seconds, so the replay's idle slices never ran */
          ViperViewGeometry *g = viper_view_widget_geometry (v);
          int ox = 0, oy = 0;
          gboolean placed = root_origin (a->views[k], &ox, &oy);
          gboolean first = TRUE;
          for (guint i = 0; placed && i < ids->len; i++)
            {
              gint64 id = g_array_index (ids, gint64, i);
              double x, y;
              if (viper_view_geometry_module_point (g, id, &x, &y))
                {
                  int rx = ox + (int) floor (x), ry = oy + (int) floor (y);
                  g_string_append_printf (j, "%s{\"id\": %" G_GINT64_FORMAT ", \"x\": %d, \"y\": %d",
                                          first ? "" : ", ", id, rx, ry);
                  /* a view setup's box, with the root offset of the widget's (0, 0) */
                  double bx, by, bw, bh;
                  if (viper_view_geometry_module_box (g, id, &bx, &by, &bw, &bh))
                    g_string_append_printf (j, ", \"box\": [%.3f, %.3f, %.3f, %.3f]", bx + ox, by + oy,
                                            bw, bh);
                  g_string_append (j, "}");
                  first = FALSE;
                }
            }
          viper_view_geometry_free (g);
          g_array_unref (ids);
        }
      g_string_append (j, "]");
    }
  /* each view's rectangle on the screen (its legend's row is its bottom) */
  g_string_append (j, "}, \"view_boxes\": {");
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      int ox = 0, oy = 0;
      gboolean placed = gtk_widget_get_mapped (a->views[k]) && root_origin (a->views[k], &ox, &oy);
      g_string_append_printf (j, "%s\"%s\": [%d, %d, %d, %d]", k ? ", " : "", viper_view_kind_name (k), ox, oy,
                              placed ? gtk_widget_get_allocated_width (a->views[k]) : 0,
                              placed ? gtk_widget_get_allocated_height (a->views[k]) : 0);
    }
  GdkWindow *gw = gtk_widget_get_window (a->window);
  int wx = 0, wy = 0;
  if (gw)
    gdk_window_get_origin (gw, &wx, &wy);
  g_string_append_printf (j, "}, \"window\": {\"x\": %d, \"y\": %d, \"width\": %d, \"height\": %d}}\n", wx, wy,
                          gtk_widget_get_allocated_width (a->window), gtk_widget_get_allocated_height (a->window));
  if (g_strcmp0 (j->str, a->last_layout) != 0)
    {
      dump_file (a, "layout.json", j->str);
      g_free (a->last_layout);
      a->last_layout = g_string_free (j, FALSE);
    }
  else
    g_string_free (j, TRUE);
}

/* progress.json: the fast-forward progress bar as the frame that first
 * showed it painted it (its root box and fraction), with the views' layout
 * of that frame, for tests: the views must not move when it comes or goes. */
void
viper_app_write_progress (App *a)
{
  a->progress_dump_pending = FALSE;
  int ox = 0, oy = 0;
  gboolean placed = root_origin (a->progress, &ox, &oy);
  GtkAllocation al;
  gtk_widget_get_allocation (a->progress, &al);
  char fr[32];
  char *doc = g_strdup_printf ("{\"visible\": %s, \"fraction\": %s, \"box\": [%d, %d, %d, %d], \"layout\": %s}\n",
                               placed && gtk_widget_get_visible (a->progress) ? "true" : "false",
                               viper_format_double (gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (a->progress)),
                                                    fr),
                               ox, oy, al.width, al.height, a->last_layout ? a->last_layout : "null");
  dump_file (a, "progress.json", doc);
  g_free (doc);
}

/* What the window shows besides the views, for the tests. */
static char *
ui_json (App *a)
{
  static const char *const live_names[] = { "none", "listening", "connected", "ended", "lost" };
  GString *j = g_string_new ("{\"title\": ");
  viper_json_append_string (j, gtk_header_bar_get_title (GTK_HEADER_BAR (a->header)));
  g_string_append (j, ", \"subtitle\": ");
  viper_json_append_string (j, gtk_header_bar_get_subtitle (GTK_HEADER_BAR (a->header)));
  g_string_append (j, ", \"subtitle_shown\": ");
  viper_title_to_json (a->title, j);
  g_string_append (j, ", \"infobar\": ");
  viper_infobar_to_json (a->infobar, j);
  int ix = 0, iy = 0;
  GtkWidget *ibw = viper_infobar_widget (a->infobar);
  GtkAllocation ial;
  gtk_widget_get_allocation (ibw, &ial);
  gboolean placed = gtk_widget_get_visible (ibw) && root_origin (ibw, &ix, &iy);
  g_string_append_printf (j, ", \"infobar_box\": [%d, %d, %d, %d]", ix, iy, placed ? ial.width : 0,
                          placed ? ial.height : 0);
  int mx = 0, my = 0;
  placed = root_origin (a->menu_button, &mx, &my);
  g_string_append_printf (j, ", \"menu_button\": [%d, %d, %d, %d]", mx, my,
                          placed ? gtk_widget_get_allocated_width (a->menu_button) : 0,
                          placed ? gtk_widget_get_allocated_height (a->menu_button) : 0);
  g_string_append_printf (j, ", \"diagnostics\": {\"docked\": %s, \"shown\": %s}",
                          viper_status_docked (a->status) ? "true" : "false",
                          viper_status_shown (a->status) ? "true" : "false");
  g_string_append (j, ", \"views\": {");
  for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
    {
      GtkAllocation al;
      gtk_widget_get_allocation (a->frames[k], &al);
      int fx = 0, fy = 0;
      root_origin (a->frames[k], &fx, &fy);
      g_string_append_printf (j, "%s\"%s\": {\"shown\": %s, \"width\": %d, \"height\": %d, \"x\": %d, \"y\": %d}",
                              k ? ", " : "", viper_view_kind_name (k),
                              gtk_widget_get_visible (a->frames[k]) ? "true" : "false", al.width, al.height, fx, fy);
    }
  g_string_append (j, "}, \"recent\": [");
  for (int i = 0; a->recent_menu && i < g_menu_model_get_n_items (G_MENU_MODEL (a->recent_menu)); i++)
    {
      GVariant *t = g_menu_model_get_item_attribute_value (G_MENU_MODEL (a->recent_menu), i, G_MENU_ATTRIBUTE_TARGET,
                                                           G_VARIANT_TYPE_STRING);
      if (!t)
        continue;
      g_string_append (j, j->str[j->len - 1] == '[' ? "" : ", ");
      viper_json_append_string (j, g_variant_get_string (t, NULL));
      g_variant_unref (t);
    }
  g_string_append (j, "], \"tram_mark\": ");
  const ViperTimeWindow *tw = viper_view_widget_time_window (VIPER_VIEW_WIDGET (a->views[VIPER_VIEW_SPACETIME]));
  if (tw->has_tram)
    {
      char tb[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append_printf (j, "{\"module\": %" G_GINT64_FORMAT ", \"time\": %s, \"label\": ", tw->tram_module,
                              viper_format_double (tw->tram_time, tb));
      viper_json_append_string (j, tw->tram_label);
      g_string_append (j, "}");
    }
  else
    g_string_append (j, "null");
  g_string_append (j, ", \"breakpoint_dialog\": ");
  if (a->bp_range)
    {
      g_string_append (j, "{\"run\": ");
      viper_json_append_string (j, gtk_label_get_text (GTK_LABEL (a->bp_range)));
      g_string_append (j, ", \"error\": ");
      viper_json_append_string (j, gtk_widget_get_visible (a->bp_error) ? gtk_label_get_text (GTK_LABEL (a->bp_error))
                                                                         : NULL);
      g_string_append_printf (j, ", \"tram\": %s}",
                              gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (a->bp_tram_radio)) ? "true" : "false");
    }
  else
    g_string_append (j, "null");
  g_string_append (j, ", \"lights_range\": ");
  viper_lights_panel_describe (a->lights, j);
  g_string_append (j, ", \"inspect\": ");
  viper_json_append_string (j, a->inspect ? viper_inspect_last_text (a->inspect) : NULL);
  g_string_append (j, ", \"paradigm\": ");
  viper_json_append_string (j, a->s ? a->s->paradigm->name : NULL);
  g_string_append (j, ", \"detect_reason\": ");
  viper_json_append_string (j, a->s ? a->s->detect_reason : NULL);
  guint open = 0, total = 0;
  ViperLiveState ls = VIPER_LIVE_NONE;
  if (a->s)
    {
      ls = viper_session_live_state (a->s, NULL);
      viper_session_connections (a->s, &open, &total);
    }
  g_string_append_printf (j, ", \"live\": \"%s\", \"connections\": {\"open\": %u, \"total\": %u, \"lost\": %u}"
                          ", \"new_runs\": %u}", live_names[ls], open, total,
                          a->s ? viper_session_lost_connections (a->s) : 0, a->s ? a->s->new_runs : 0);
  return g_string_free (j, FALSE);
}

void
viper_app_write_state (App *a)
{
  a->dump_pending = FALSE;
  a->dumps++;
  if (a->s)
    viper_session_note_live_end (a->s, NULL);
  char *state = a->s ? viper_state_to_json (a->s->run, a->s->model, FALSE) : g_strdup ("null");
  g_strchomp (state);
  char *sw = a->swp ? viper_switchnet_panel_describe (a->swp, a->views[VIPER_VIEW_ANIMATION]) : NULL;
  if (sw)
    {
      /* the switch-network settings beside the state */
      char *with = g_strdup_printf ("%.*s, \"switchnet\": %s}", (int) strlen (state) - 1, state, sw);
      g_free (state);
      g_free (sw);
      state = with;
    }
  char *ui = ui_json (a);
  guint64 painted[2] = { viper_view_widget_frames (VIPER_VIEW_WIDGET (a->views[VIPER_VIEW_ANIMATION])),
                        viper_view_widget_frames (VIPER_VIEW_WIDGET (a->views[VIPER_VIEW_SPACETIME])) };
  char *doc = g_strdup_printf ("{\"dumps\": %u, \"why\": \"%s\", \"progress_visible\": %s, \"steps\": %" G_GUINT64_FORMAT
                               ", \"changes\": %" G_GUINT64_FORMAT ", \"applied\": %" G_GUINT64_FORMAT
                               ", \"seconds\": %.6f, \"frames\": {\"animation\": %" G_GUINT64_FORMAT
                               ", \"spacetime\": %" G_GUINT64_FORMAT "}, \"run_frames\": {\"animation\": %"
                               G_GUINT64_FORMAT ", \"spacetime\": %" G_GUINT64_FORMAT "}, \"ui\": %s, \"state\": %s}\n",
                               a->dumps, a->dump_why, gtk_widget_get_visible (a->progress) ? "true" : "false",
                               a->s ? viper_scheduler_steps_done (a->s->sched) : 0,
                               a->s ? a->s->model->changes : 0, a->s ? a->s->model->applied : 0,
                               (double) (g_get_monotonic_time () - a->go_t) / 1e6, painted[0], painted[1],
                               painted[0] - a->go_frames[VIPER_VIEW_ANIMATION],
                               painted[1] - a->go_frames[VIPER_VIEW_SPACETIME], ui, state);
  {
    /* each view's paints since Go and the mean CPU ms a paint took (bench-gui*.py) */
    GString *dm = g_string_new (NULL);
    for (int k = 0; k < VIPER_VIEW_N_KINDS; k++)
      {
        ViperViewWidget *v = VIPER_VIEW_WIDGET (a->views[k]);
        guint64 nf = viper_view_widget_frames (v) - a->go_frames[k];
        gint64 us = viper_view_widget_draw_us (v) - a->go_draw_us[k];
        char ms[32];
        g_string_append_printf (dm, "%s\"%s\": {\"frames\": %" G_GUINT64_FORMAT ", \"ms\": %s}", k ? ", " : "",
                                viper_view_kind_name (k), nf, viper_format_double (nf ? us / 1e3 / nf : 0, ms));
      }
    char *with = g_strdup_printf ("%.*s, \"draw\": {%s}}\n", (int) strlen (doc) - 2, doc, dm->str);
    g_string_free (dm, TRUE);
    g_free (doc);
    doc = with;
  }
  dump_file (a, "state.json", doc);
  g_free (doc);
  g_free (state);
  g_free (ui);
}
