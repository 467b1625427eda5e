/* ipc-module.c: the ipc plugin's module, for --plugin ipc
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plugin itself (its type, API and tools) lives in the plugins
 * library, so its type exists once whether the dispatcher loads this
 * module, a program links the library or Python imports StagewrightIpc.
 */
#include "config.h"

#include "stw-ipc.h"

/* The one entry point of a C plugin module (STW_PLUGIN_MODULE_ENTRY). */
StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  return STW_PLUGIN (stw_ipc_plugin_new ());
}
