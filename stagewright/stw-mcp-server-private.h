/* stw-mcp-server-private.h: what connections and transports see of the server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "stw-mcp-connection-private.h"
#include "stw-mcp-framing-private.h"
#include "stw-mcp-server.h"

G_BEGIN_DECLS

/* One JSON-RPC message object from @connection's client. */
void     _stw_mcp_server_handle_message (StwMcpServer        *self,
                                         StwMcpConnection    *connection,
                                         JsonObject          *message);

/* stw_mcp_server_run_async() over any framing. */
void     _stw_mcp_server_serve_async    (StwMcpServer        *self,
                                         StwMcpFraming       *framing,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);

G_END_DECLS
