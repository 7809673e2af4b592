/* trail.h - the run order of a file session, kept so that seeking does not
 * rebuild the run (issue 13: seek and step back by checkpoints).
 *
 * A replay from files is deterministic: the same trams leave the run in the
 * same order every time.  So while the engine transfers them the first time,
 * the trail keeps each transferred tram (compactly encoded: varints, its two
 * times as raw doubles) with the run's read and rejected counts at that
 * moment.  Going back to a point then needs no sequence lists, matching or
 * clock-offset decay at all: restore a model checkpoint and re-apply the
 * logged trams after it.  The clock-offset of each module is re-derived from
 * the logged times with the same formula the run uses (t' - t raises it,
 * then it decays), so offsets are bit-identical.
 *
 * Checkpoints are taken every `every` trams: position, clock, counts, the
 * modules' offsets and a model checkpoint (core/model.h; NULL for a paradigm
 * without the hook, which then replays the trail from its start).  At most
 * VIPER_TRAIL_MAX_CKPTS are kept: when full, every other one is dropped and
 * the spacing doubles, so a seek replays at most `every` trams past one.
 *
 * Memory is bounded by max_bytes (trail and checkpoints together): when an
 * append would pass it, the whole trail is dropped and stays off for the
 * session (seeks then replay from the start, as before), and the caller is
 * told once.
 */
#pragma once

#include "tram.h"
#include "run.h"

G_BEGIN_DECLS

#define VIPER_TRAIL_MAX_CKPTS 64
#define VIPER_TRAIL_FIRST_EVERY 4096
#define VIPER_TRAIL_DEFAULT_MAX_BYTES ((gsize) 512 << 20)

typedef struct _ViperTrail ViperTrail;
typedef struct _ViperModelCkpt ViperModelCkpt;

/* Where playback is, and the run's figures there. */
typedef struct {
  guint64 index;            /* trams applied from the trail's start */
  guint chunk;
  guint32 off;              /* byte position of entry `index` */
  double clock;             /* largest adjusted time so far (-inf at the start) */
  guint64 read, rejected;   /* the run's counts when entry index-1 was transferred */
  guint64 ignored;
  GHashTable *offsets;      /* gint64 proc -> double offset (module offsets) */
} ViperTrailPos;

typedef struct {
  ViperTrailPos pos;        /* offsets: owned copy */
  guint64 steps;            /* state changes up to here */
  ViperModelCkpt *model;    /* NULL: none (the paradigm has no hook) */
} ViperTrailCkpt;

ViperTrail *viper_trail_new (gsize max_bytes, double decay);
/* The run's paradigm: a position's clock leaves its timeless trams out, as
 * the run's does (viper_paradigm_timeless). */
void viper_trail_set_paradigm (ViperTrail *tr, const ViperParadigm *p);
void viper_trail_free (ViperTrail *tr);
/* The spacing of the first checkpoints (default VIPER_TRAIL_FIRST_EVERY);
 * it doubles whenever VIPER_TRAIL_MAX_CKPTS are kept.  Tests use small ones. */
void viper_trail_set_first_every (ViperTrail *tr, guint64 every);
/* Drop everything (a reset); a trail that hit its bound records again. */
void viper_trail_clear (ViperTrail *tr);

/* The tram the run just transferred, with the run's read and rejected counts
 * at that moment.  FALSE when the bound is hit: the trail is dropped and off
 * (viper_trail_failed) until the next clear. */
gboolean viper_trail_append (ViperTrail *tr, const ViperTram *t, guint64 read, guint64 rejected);
/* TRUE when a checkpoint is due at the current length; the caller then adds
 * one (its model checkpoint, owned by the trail from then on). */
gboolean viper_trail_ckpt_due (const ViperTrail *tr);
void viper_trail_add_ckpt (ViperTrail *tr, guint64 steps, ViperModelCkpt *model);
/* Whether entry `index` changed the state (the model's verdict) when it was
 * last applied, by the engine or by playback: Back after a stop by clock
 * goes by the clocks of state changes (viper_scheduler_back_target).
 * viper_trail_changed: 1, 0, or -1 while it has never been applied (logged
 * while the engine worked ahead of playback, past a breakpoint). */
void viper_trail_set_changed (ViperTrail *tr, guint64 index, gboolean changed);
int viper_trail_changed (const ViperTrail *tr, guint64 index);
/* Read and rejected counts once the files are at their end (for a replay
 * that reaches the trail's end). */
void viper_trail_set_final (ViperTrail *tr, guint64 read, guint64 rejected);

guint64 viper_trail_length (const ViperTrail *tr);
gboolean viper_trail_failed (const ViperTrail *tr);
gsize viper_trail_bytes (const ViperTrail *tr);   /* entries + checkpoints */
gsize viper_trail_max_bytes (const ViperTrail *tr);
guint64 viper_trail_every (const ViperTrail *tr);  /* checkpoint spacing now */
guint viper_trail_n_ckpts (const ViperTrail *tr);
const ViperTrailCkpt *viper_trail_ckpt (const ViperTrail *tr, guint i);   /* in position order */

/* Playback positions. */
void viper_trail_pos_init (ViperTrailPos *p);         /* the start */
void viper_trail_pos_clear (ViperTrailPos *p);        /* frees the offsets */
void viper_trail_pos_copy (ViperTrailPos *dst, const ViperTrailPos *src);
/* p (cleared or fresh) := the position after the last entry. */
void viper_trail_pos_end (const ViperTrail *tr, ViperTrailPos *p);
/* Decode the entry at p (p->index < length) into a tram owned by the trail
 * (valid until the next decode); *read and *rejected: the run's counts when
 * it was transferred.  Does not move p. */
const ViperTram *viper_trail_peek (ViperTrail *tr, const ViperTrailPos *p, guint64 *read, guint64 *rejected);
/* Move p past the entry viper_trail_peek returned (clock, counts, offsets). */
void viper_trail_advance (ViperTrail *tr, ViperTrailPos *p);
/* Move p past it without applying it: clock, offsets and the ignored count
 * stay (a tram past a breakpoint, skipped by playback). */
void viper_trail_skip (ViperTrail *tr, ViperTrailPos *p);
double viper_trail_decay (const ViperTrail *tr);
/* The counts after the last entry, once the run ended (FALSE before). */
gboolean viper_trail_final (const ViperTrail *tr, guint64 *read, guint64 *rejected);

G_END_DECLS
