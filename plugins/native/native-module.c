/* native-module.c: the native plugin's module, for --plugin native
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plugin itself (its types, API and tools) lives in the plugins
 * library, so its types exist once whether the dispatcher loads this
 * module, a program links the library or Python imports StagewrightNative.
 */
#include "config.h"

#include "stw-native.h"

/* The one entry point of a C plugin module (STW_PLUGIN_MODULE_ENTRY). */
StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  return STW_PLUGIN (stw_native_plugin_new ());
}
