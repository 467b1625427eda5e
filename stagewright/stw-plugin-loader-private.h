/* stw-plugin-loader-private.h: what a language loader module exports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Python and JavaScript plugins run in interpreters embedded by loader
 * modules, `lib<LOADER>loader.so` in $(libdir)/stagewright-1.0/loaders
 * (stagewright/loaders/), which stw-plugin-loader.c opens only when a
 * plugin in that language is asked for: a server without such plugins
 * maps neither libpython nor libgjs. A loader uses the library's public
 * API only, and exports one function.
 */
#pragma once

#include "stw-plugin.h"

G_BEGIN_DECLS

#define STW_LOADER_MODULE_ENTRY "stw_loader_module_load"

/* Imports the plugin @module (a file or package beside its .plugin file,
 * in @dir) and returns the plugin it defines, a new reference. @context is
 * the dispatcher's main context, the one the plugin will run on. On
 * failure, @error's message is the reason, for a PLUGIN_LOAD_FAILED naming
 * the plugin; what the language adds (a traceback, a stack) goes to
 * stderr. */
typedef StwPlugin *(*StwLoaderModuleFunc) (const char    *module,
                                           const char    *dir,
                                           GMainContext  *context,
                                           GError       **error);

G_END_DECLS
