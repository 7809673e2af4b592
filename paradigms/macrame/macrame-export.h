/* macrame-export.h - the Macrame paradigm's exports (Pajé, Chrome). */
#pragma once

#include "paradigms/export.h"

G_BEGIN_DECLS

extern const ViperExportTable macrame_exports;

G_END_DECLS
