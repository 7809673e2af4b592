/* viper-keys.h - every key of the app in its menu: the paradigm's own items
 * (cluster lights, switch networks) and, for the tests, what the open menu
 * shows against the keys the app defines. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Fill SECTION with the items of PARADIGM's own keys (empty for the others). */
void viper_keys_fill_paradigm_menu (GMenu *section, const char *paradigm);

/* With a debug directory: each time the menu of BUTTON (or one of its
 * submenus) has been drawn, write DIR/menu.json: every item (label, detailed
 * action, the key shown beside it, visible, sensitive, root box), every key
 * of GAPP with its action, and the keys the shortcuts window lists. */
void viper_keys_watch_menu (GtkWidget *button, GtkApplication *gapp, const char *debug_dir);

G_END_DECLS
