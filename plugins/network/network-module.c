/* network-module.c: the network plugin's module entry point
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "stw-network.h"

/* The one entry point of a C plugin module (STW_PLUGIN_MODULE_ENTRY). */
StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  return STW_PLUGIN (stw_network_plugin_new ());
}
