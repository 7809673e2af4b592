/* picl-render.h - how the views draw the picl paradigm (views.h). */
#pragma once

#include "paradigms/views.h"

G_BEGIN_DECLS

/* busy green, communicating yellow, idle red: ParaGraph's utilisation colours */
extern const ViperRenderer viper_picl_renderer;

G_END_DECLS
