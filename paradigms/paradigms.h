/* paradigms.h - the list of built-in paradigms. */
#pragma once

#include "core/paradigm.h"

G_BEGIN_DECLS

/* Register every built-in paradigm with the core registry (idempotent). */
void viper_paradigms_register_all (void);

G_END_DECLS
