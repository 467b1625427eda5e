/* stw-storage-private.h: what the storage plugin's API and its tools share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-storage.h"

G_BEGIN_DECLS

/* storage-tools.c: adds the MCP tools, thin adapters over the API. */
void _stw_storage_plugin_add_tools (StwStoragePlugin *self);

/* stw-storage.c: the storageState launch option (the app-ready hook). */
void _stw_storage_plugin_app_ready (StwPlugin           *plugin,
                                    StwPluginCompletion *completion);

G_END_DECLS
