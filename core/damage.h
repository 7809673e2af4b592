/* damage.h - abstract damaged areas (thesis 4.1.1).
 *
 * Applying a tram never draws: the model only marks what changed as abstract
 * areas ("module 3", "variable 3.0", "the program state", "the arrows between
 * 2 and 5").  Views map areas to pixels.  A set collapses repeated marks, so N
 * trams touching module 3 between two redraw ticks cost one redraw of it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  VIPER_AREA_MODULE = 1,    /* a = module id */
  VIPER_AREA_VARIABLE,      /* a = module id, b = variable id */
  VIPER_AREA_PROGRAM,       /* the program state */
  VIPER_AREA_LINK,          /* a = from, b = to: arrows / messages between two modules */
  VIPER_AREA_CLOCK,         /* the execution clock moved */
  VIPER_AREA_ALL,           /* everything (reset, setup reloaded) */
} ViperAreaKind;

typedef struct {
  ViperAreaKind kind;
  gint64 a, b;
} ViperArea;

typedef struct _ViperDamage ViperDamage;

ViperDamage *viper_damage_new (void);
void viper_damage_free (ViperDamage *d);
void viper_damage_add (ViperDamage *d, ViperAreaKind kind, gint64 a, gint64 b);
/* A disabled set ignores marks (headless replay with no view). */
void viper_damage_set_enabled (ViperDamage *d, gboolean enabled);
gboolean viper_damage_empty (const ViperDamage *d);
guint viper_damage_size (const ViperDamage *d);
gboolean viper_damage_contains (const ViperDamage *d, ViperAreaKind kind, gint64 a, gint64 b);
/* Move every area (each once, in first-marked order) into out (GArray of ViperArea). */
void viper_damage_take (ViperDamage *d, GArray *out);
void viper_damage_clear (ViperDamage *d);
/* Total marks ever added (before collapsing) - for tests and statistics. */
guint64 viper_damage_marks (const ViperDamage *d);
/* How many times the set was emptied (take, clear): a model that marks the
 * same area at every tram can remember the generation it marked it in and
 * skip the hash probe until the set has been taken. */
guint64 viper_damage_generation (const ViperDamage *d);

G_END_DECLS
