/* stw-ipc-private.h: what the ipc plugin's API and its tools share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-ipc.h"

G_BEGIN_DECLS

/* stw-ipc.c: the eval policy every call checks first (ipc.EVAL_REQUIRED). */
gboolean _stw_ipc_plugin_check_eval (StwIpcPlugin  *self,
                                     GError       **error);

/* ipc-tools.c: adds the MCP tools, thin adapters over the API. */
void _stw_ipc_plugin_add_tools (StwIpcPlugin *self);

G_END_DECLS
