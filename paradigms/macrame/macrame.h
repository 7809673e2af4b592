/* macrame.h - the Macrame switching-network testbed paradigm (spec macrame.md).
 *
 * Devices are C104 switches and traffic-source nodes; which id is which
 * comes from the view setup file (paradigms/viewsetup.h), which is this
 * paradigm's setup file.  Four instant tram types, none depending on
 * another module: each device's trams leave in its own sequence order.
 */
#pragma once

#include "core/paradigm.h"
#include "core/model.h"
#include "paradigms/viewsetup.h"

G_BEGIN_DECLS

extern const ViperParadigm viper_macrame_paradigm;

#define MACRAME_REC 2
enum {
  MACRAME_EV_MODULE_FOUND = 30,
  MACRAME_EV_MODULE_USED = 31,
  MACRAME_EV_NODE_CHANGED = 32,
  MACRAME_EV_SWITCH_CHANGED = 33,
};

/* Dynamic states, numbered as in the trams. */
typedef enum {
  MACRAME_IDLE = 0,         /* "idle/ok" */
  MACRAME_COMMUNICATING,
  MACRAME_CONGESTED,
  MACRAME_OVERFLOW,
  MACRAME_ERROR,
  MACRAME_UNDEFINED,
  MACRAME_N_STATES
} MacrameState;

typedef enum {
  MACRAME_KIND_UNKNOWN = 0, /* named by no setup file: sent trams only */
  MACRAME_KIND_SWITCH,
  MACRAME_KIND_NODE,
} MacrameKind;

/* One device's state.  Switches use `state`; nodes use tx and rx.  A device
 * of unknown kind takes whichever trams it sends. */
typedef struct {
  gint64 id;
  guint8 kind;              /* MacrameKind */
  gboolean alive, used;     /* setup state A, B */
  guint8 state;             /* switch dynamic state */
  guint8 tx_state, rx_state;
  gint32 tx_rate, rx_rate;
} MacrameDevice;

typedef struct _MacrameModel MacrameModel;

const char *macrame_state_name (MacrameState s);          /* "idle/ok", ... */
const char *macrame_kind_name (MacrameKind k);            /* "switch", "node", "unknown" */

ViperModel *macrame_model_new (const ViperParadigm *p, ViperSetup *setup);
/* The device's state; a device neither named by the setup nor heard from
 * has the initial state (not alive, not used, undefined, rate 0).  out->kind
 * comes from the current view setup. */
void macrame_model_device (const ViperModel *m, gint64 id, MacrameDevice *out);
gint64 macrame_model_maxrate (const ViperModel *m);
/* Every device of the setup and every device heard from, by id. */
GArray *macrame_model_ids (const ViperModel *m);          /* of gint64 */
/* Switch to another view setup (Setup... in a view): kinds, MAXRATE and the
 * module list follow it; every device state and the clock are kept.  The
 * model does not own vs; the caller keeps it alive while the model uses it. */
void macrame_model_set_view_setup (ViperModel *m, const ViperViewSetup *vs);
const ViperViewSetup *macrame_model_view_setup (const ViperModel *m);

/* Setup state colour index: 0 black (not A, not B), 1 red (not A, B),
 * 2 yellow (A, not B), 3 grey (A, B, undefined), 4 blue (A, B, defined). */
typedef enum {
  MACRAME_SETUP_NONE = 0,
  MACRAME_SETUP_USED_NOT_ALIVE,
  MACRAME_SETUP_ALIVE_NOT_USED,
  MACRAME_SETUP_READY_UNDEFINED,
  MACRAME_SETUP_READY,
} MacrameSetupClass;

/* Which Table 13 row applies.  A node's dynamic state is defined when its
 * transmitter's or its receiver's is; a switch's when its own is. */
MacrameSetupClass macrame_device_setup_class (const MacrameDevice *d);

/* The paradigm's setup file reader: a view setup file for paradigm macrame
 * (or naming none), whose representations are node and switch. */
ViperSetup *macrame_setup_load (const char *path, GError **error);
void macrame_setup_free (ViperSetup *setup);

G_END_DECLS
