/* picl-export.h - the picl paradigm's exports (ParaGraph, Pajé, Chrome). */
#pragma once

#include "paradigms/export.h"

G_BEGIN_DECLS

extern const ViperExportTable viper_picl_exports;

G_END_DECLS
