/* paradigms.c - the one place that lists the built-in paradigms.
 * Adding a paradigm = adding its folder and one line here. */
#include "paradigms.h"
#include "picl/picl.h"
#include "monalisa/monalisa.h"
#include "macrame/macrame.h"
#include "switchnet/switchnet.h"
#include "lights/lights.h"

void
viper_paradigms_register_all (void)
{
  static gsize done = 0;
  if (!g_once_init_enter (&done))
    return;
  viper_paradigm_register (&viper_picl_paradigm);
  viper_paradigm_register (&viper_monalisa_paradigm);
  viper_paradigm_register (&viper_macrame_paradigm);
  viper_paradigm_register (&viper_switchnet_paradigm);
  viper_paradigm_register (&viper_lights_paradigm);
  g_once_init_leave (&done, 1);
}
