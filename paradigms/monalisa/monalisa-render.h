/* monalisa-render.h - how the views draw the Mona Lisa paradigm (views.h). */
#pragma once

#include "paradigms/views.h"

G_BEGIN_DECLS

/* traffic lights (spec monalisa.md section 5): green executing, yellow
 * interacting, red blocked, grey inactive */
extern const ViperRenderer viper_monalisa_renderer;

G_END_DECLS
