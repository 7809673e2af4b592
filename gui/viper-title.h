/* viper-title.h - the header bar's title and subtitle, the subtitle in the
 * room there is (see viper-title.c). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct _ViperTitle ViperTitle;

/* The title widget (for gtk_header_bar_set_custom_title); *out is freed
 * with the widget. */
GtkWidget *viper_title_new (ViperTitle **out);
void viper_title_set (ViperTitle *t, const char *title);
/* full: the whole subtitle ("picl · went to clock · clock 0.0203885");
 * compact: what must show when it does not fit ("went to clock · 0.0203885"). */
void viper_title_set_subtitle (ViperTitle *t, const char *full, const char *compact);
/* For the state dump: the subtitle on the screen, whether it is cut, the width it has. */
void viper_title_to_json (ViperTitle *t, GString *out);

G_END_DECLS
