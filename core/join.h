/* join.h - collectives: rendezvous of the members of a group (thesis 5.1
 * extended; spec picl.md section 3).
 *
 * A collective is written as one BEGIN and one END tram on every member.
 * The slot tables of a profile cannot say "this end waits for the begins of
 * the others", so a paradigm with collectives describes them with a
 * ViperJoinClass and the run keeps the rendezvous here:
 *   - the k-th BEGIN of kind K over group G on a member and the k-th END of
 *     the same (K, G) on that member belong to instance k of (K, G);
 *   - an END waits for the BEGINs its shape names (all members, the root,
 *     the members before it) and takes the largest of their adjusted times
 *     as a lower bound, exactly like a receive end and its send begin;
 *   - groups are defined by GROUP trams (world ids, in member order); an
 *     END over a group not defined yet stalls its list until the definition
 *     arrives; group -1 means every module of the run, which is known
 *     at the end of the input, or before it when the scheduler can read
 *     the files' processors ahead (viper_join_modules_final): an END over
 *     -1 stalls its list until then, so that the members, and with them
 *     the adjusted times, do not depend on the line order (a processor
 *     whose first line comes last is a member all the same).
 */
#pragma once

#include "tram.h"

G_BEGIN_DECLS

typedef enum {
  VIPER_JOIN_NONE = 0,
  VIPER_JOIN_BEGIN,
  VIPER_JOIN_END,
  VIPER_JOIN_GROUP,         /* a group definition */
} ViperJoinRole;

typedef enum {
  VIPER_JOIN_ALL_TO_ALL = 1,  /* every END waits for every BEGIN */
  VIPER_JOIN_ONE_TO_ALL,      /* every END waits for the root's BEGIN */
  VIPER_JOIN_ALL_TO_ONE,      /* the root's END waits for every BEGIN */
  VIPER_JOIN_PREFIX,          /* member i's END waits for the BEGINs of members 0..i */
} ViperJoinShape;

/* An END that names no group: the group of the member's oldest BEGIN of
 * the same kind that has no END yet. */
#define VIPER_JOIN_GROUP_OF_BEGIN G_MININT64

typedef struct _ViperJoinClass {
  /* What t is; for BEGIN / END also its kind, group (or, for an END,
   * VIPER_JOIN_GROUP_OF_BEGIN) and shape, for BEGIN its root (-1 when the
   * shape has none). */
  ViperJoinRole (*classify) (const ViperTram *t, gint64 *kind, gint64 *group, gint64 *root, ViperJoinShape *shape);
  /* GROUP: its id and members (n, at data) in order; FALSE if malformed. */
  gboolean (*group_def) (const ViperTram *t, gint64 *group, const gint64 **members, guint *n);
  /* Optional: FALSE when classify returns VIPER_JOIN_NONE for every tram
   * of this REC and EV, so that the run need not ask for each (most trams
   * of a message-passing trace are point to point).  NULL: ask always. */
  gboolean (*may_join) (gint64 rec, gint64 ev);
} ViperJoinClass;

typedef struct _ViperJoin ViperJoin;
typedef struct _ViperSeqList ViperSeqList;

/* Called when an END's last dependency was transferred (t->waits dropped). */
typedef void (*ViperJoinReadyFunc) (ViperTram *t, gpointer data);

ViperJoin *viper_join_new (const ViperJoinClass *cls);
void viper_join_free (ViperJoin *j);
void viper_join_reset (ViperJoin *j);
/* A module the run knows (members of group -1). */
void viper_join_add_module (ViperJoin *j, gint64 proc);
/* Every module is known now (the input ended, or the run was told them
 * beforehand: viper_run_modules_known): ENDs over group -1 may be claimed;
 * their lists go to resume.  Later calls change nothing. */
void viper_join_modules_final (ViperJoin *j, GPtrArray *resume);
/* A collective over group -1 was claimed while the modules are not all
 * known: whoever can learn them should say so (viper_run_modules_known). */
gboolean viper_join_wants_modules (const ViperJoin *j);
/* An END over group -1 is stalled, waiting for every module to be known. */
gboolean viper_join_end_waits_for_modules (const ViperJoin *j);
/* t is claimed from list l.  FALSE: it must wait (l is stalled until the
 * group is defined).  Lists resumed by a definition go to resume. */
gboolean viper_join_claim (ViperJoin *j, ViperTram *t, ViperSeqList *l, GPtrArray *resume);
/* t was transferred; wakes the ENDs that waited for it. */
void viper_join_transferred (ViperJoin *j, const ViperTram *t, ViperJoinReadyFunc ready, gpointer data);
/* The largest Lamport number of the BEGINs END t depended on (0: none),
 * forgotten: call once, at t's transfer, before viper_join_transferred. */
guint32 viper_join_take_lamport (ViperJoin *j, const ViperTram *t);
/* Why END t waits, or NULL when it is not a waiting END. */
char *viper_join_explain (const ViperJoin *j, const ViperTram *t);

G_END_DECLS
