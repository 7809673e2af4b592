/* paradigm.h - the paradigm registry: what a paradigm tells the core.
 *
 * A paradigm (Mona Lisa, Macrame, native PICL, ...) is one static
 * ViperParadigm description registered by name - the thesis's factories
 * (chapter 7.2).  The core never names a paradigm: it learns everything from
 * the description.
 *
 *  - The tram table maps (REC, EV) to a tram type with a role:
 *      START  starts a primitive list whose profile is `profile`;
 *      SLOT   fills a slot of a primitive list started elsewhere (or earlier in
 *             its own list);
 *      FREE   belongs to no primitive: a one-tram list.
 *    `match_class` groups tram types that can fill the same slot (PICL's two
 *    receive ends); `key1_field`/`key2_field` say which data fields of the
 *    tram must equal the slot's keys (the caller's id, a tag).
 *  - A primitive profile lists its slots in the order the builder fills them
 *    and, per slot, which sequence list it comes from and which slot's tram it
 *    causally waits for (the cross-dependency).  Only those dependencies and
 *    the sequence lists order the run.
 *  - Model callbacks build the program-state model; renderers and exporters
 *    come in later layers through the opaque `render` and `export` tables.
 */
#pragma once

#include <glib.h>
#include "tram.h"

G_BEGIN_DECLS

typedef enum {
  VIPER_ROLE_FREE = 0,
  VIPER_ROLE_START,
  VIPER_ROLE_SLOT,
} ViperTramRole;

/* Where a slot's tram comes from. */
typedef enum {
  VIPER_FROM_CALLER = 0,    /* the caller's own sequence list (the list of the START) */
  VIPER_FROM_PARTNER,       /* the list of the module named by the START's partner field */
  VIPER_FROM_EACH_MEMBER,   /* one slot per member of the group named by the partner field */
  VIPER_FROM_REPLY,         /* the list of whichever member answers: the member whose
                               `ref` slot tram (its request) was claimed last from this caller */
} ViperSlotFrom;

#define VIPER_NO_FIELD (-1)
#define VIPER_NO_SLOT (-1)

typedef struct {
  gint64 rec, ev;
  const char *name;         /* e.g. "S_INRQ START" */
  ViperTramRole role;
  gint8 profile;            /* START: index into profiles */
  guint8 match_class;       /* SLOT: which class of slot it fills (nonzero; slots name the same class) */
  gint8 key1_field;         /* SLOT: data field that must equal the slot's key1 (the caller id) */
  gint8 key2_field;         /* SLOT: data field that must equal the slot's key2, or NO_FIELD */
  guint8 min_ndata;         /* fewer data fields: bad input (the paradigm's own rule); with
                               the paradigm's exact_ndata, any other count is */
} ViperTramType;

typedef struct {
  guint8 match_class;       /* class of tram that fills it */
  ViperSlotFrom from;
  gint8 ref;                /* VIPER_FROM_REPLY: the request slot */
  gint8 after;              /* cross-dependency: waits for the tram of this slot, or NO_SLOT */
  gint8 key2_start_field;   /* key2 = this data field of the START, or NO_FIELD (key2 = 0) */
  gboolean key1_caller;     /* key1 = the caller's id (partner-side slots); else 0 */
} ViperSlot;

typedef struct {
  const char *name;         /* "inglb" */
  gint8 partner_field;      /* data field of the START naming the partner (module or group) */
  guint8 n_slots;           /* slot 0 is the START itself */
  const ViperSlot *slots;
} ViperProfile;

typedef struct _ViperModel ViperModel;
typedef struct _ViperParadigm ViperParadigm;
typedef struct _ViperSetup ViperSetup;

struct _ViperParadigm {
  const char *name;                 /* "monalisa", "picl", "macrame" */
  const char *description;
  gboolean explicit_seq;            /* D1 is the sequence number (else implicit per channel) */
  const ViperTramType *types;
  guint n_types;
  const ViperProfile *profiles;
  guint n_profiles;
  /* Every known type's min_ndata is its exact NDATA, in integers: the run
   * rejects another count ("NAME needs exactly N data fields, has M") and
   * data that are not DTYPE 2 ("NAME needs integer data (DTYPE 2)") before
   * validate is called, so validate sees only exact integer data. */
  gboolean exact_ndata;

  /* The trams watch a system that runs on (a cluster's load and traffic),
   * not a program that ends: modules never finish, so a live session whose
   * connections all closed cleanly with nothing pending has ended; it has
   * not lost an unfinished program. */
  gboolean monitor;

  /* Optional: a paradigm rule that makes a well-formed line bad input (e.g. a
   * state number out of range); called for known types only.  Return FALSE with a reason and the 0-based
   * data field it concerns; the run rejects the tram as FILE:LINE:COLUMN: reason. */
  gboolean (*validate) (const ViperTram *t, guint *data_field, char *reason, gsize reason_size);

  /* Optional: a tram that has no dependency but must not leave before the
   * trams read with it (a Mona Lisa program manager's verdict that lists the
   * modules it ended: it saw them to their end).  Such a tram waits until the
   * input has nothing more to give now - the end of the files, or a pause of
   * live input - and nothing else is ready: then it leaves, so its place in
   * the run does not depend on the line order or the split into files, and a
   * live verdict never waits for ever. */
  gboolean (*after_input) (const ViperTram *t);

  /* Optional: a tram that carries no module's clock (PICL's global records,
   * PROC -1, such as the subset definitions a writer dates 0 while every
   * processor's clock reads epoch seconds).  It keeps its place in the run
   * and its adjusted time (--run-out), but the run's time range - its first
   * time, its clock, the pace of a paced replay - comes from the other
   * trams, so that a definition never stretches the run
   * (viper_paradigm_timeless). */
  gboolean (*timeless) (const ViperTram *t);

  /* Members of a group for VIPER_FROM_EACH_MEMBER; a module is its own group.
   * Returns the number of ids written (at most max). */
  guint (*group_members) (const ViperModel *model, gint64 group, gint64 *out, guint max);

  /* The program-state model. */
  ViperModel *(*model_new) (const ViperParadigm *p, ViperSetup *setup);

  /* Setup file: read, or NULL + error.  NULL reader = the paradigm takes none. */
  ViperSetup *(*setup_load) (const char *path, GError **error);
  void (*setup_free) (ViperSetup *setup);
  /* Optional: the paradigm cannot replay without a setup file, and this
   * says which to give ("a .swm network model, or an .init file naming
   * one"); viper-replay refuses to start without --setup (usage error). */
  const char *setup_required;

  gconstpointer render;             /* paradigms/ renderers table (opaque to core) */
  gconstpointer export;             /* paradigms/ exporters table (opaque to core) */

  /* Optional: collectives, which the slot tables cannot express (core/join.h). */
  const struct _ViperJoinClass *join;
};

void viper_paradigm_register (const ViperParadigm *p);
const ViperParadigm *viper_paradigm_lookup (const char *name);
/* NULL-terminated array of the registered paradigms, in registration order. */
const ViperParadigm *const *viper_paradigm_list (guint *n);

/* Whether t carries no module's clock (the paradigm's timeless rule): the
 * run's time range, clock and pace leave it out.  FALSE without a paradigm. */
static inline gboolean
viper_paradigm_timeless (const ViperParadigm *p, const ViperTram *t)
{
  return p && p->timeless && p->timeless (t);
}

/* Tram type index of (rec, ev), or VIPER_TYPE_UNKNOWN.  O(1). */
guint16 viper_paradigm_type_index (const ViperParadigm *p, gint64 rec, gint64 ev);

G_END_DECLS
