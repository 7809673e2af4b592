/* monalisa-export.h - the Mona Lisa paradigm's exports (ParaGraph per thesis
 * 5.4.3, Pajé, Chrome). */
#pragma once

#include "paradigms/export.h"

G_BEGIN_DECLS

extern const ViperExportTable viper_monalisa_exports;

/* Channel tags of the ParaGraph translation: a request or a reply carries the
 * Mona Lisa event type of its tram as tag; the blocked exposeglb's release uses
 * VIPER_ML_TAG_NOTICE. */
#define VIPER_ML_TAG_NOTICE 13

G_END_DECLS
