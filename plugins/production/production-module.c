/* production-module.c: the production plugin's module entry point
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-production.h"

/* The one entry point of a C plugin module (STW_PLUGIN_MODULE_ENTRY). */
StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  return STW_PLUGIN (stw_production_plugin_new ());
}
