/* stw-mcp-server.h: the Model Context Protocol server over a byte stream
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>

#include "stw-dispatcher.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_MCP_SERVER (stw_mcp_server_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwMcpServer, stw_mcp_server, STW, MCP_SERVER, GObject)

STW_AVAILABLE_IN_1_0
StwMcpServer *stw_mcp_server_new (StwDispatcher *dispatcher);
STW_AVAILABLE_IN_1_0
StwDispatcher *stw_mcp_server_get_dispatcher (StwMcpServer *self);
STW_AVAILABLE_IN_1_0
void stw_mcp_server_run_async (StwMcpServer *self,
                               GInputStream *input,
                               GOutputStream *output,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data);
STW_AVAILABLE_IN_1_0
gboolean stw_mcp_server_run_finish (StwMcpServer *self,
                                    GAsyncResult *result,
                                    GError **error);
STW_AVAILABLE_IN_1_0
void stw_mcp_server_send_log (StwMcpServer *self,
                              const char *level,
                              const char *logger,
                              const char *message);
STW_AVAILABLE_IN_1_0
void stw_mcp_server_set_page_size (StwMcpServer *self,
                                   guint page_size);

G_END_DECLS
