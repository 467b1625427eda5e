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

/* stw-ipc.c: the wire form of a finished call's answer, as the agent gave
 * it (transfer none; valid while @result is). */
JsonObject *_stw_ipc_plugin_get_answer (GAsyncResult *result);

/* stw-ipc-types.c: a capture from the agent's answer. */
StwIpcCapture *_stw_ipc_capture_new (JsonObject *answer);

/* ipc-tools.c: adds the MCP tools, thin adapters over the API. */
void _stw_ipc_plugin_add_tools (StwIpcPlugin *self);

G_END_DECLS
