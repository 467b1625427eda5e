/* stw-mcp-server-private.h: what transports see of the server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "stw-mcp-connection-private.h"
#include "stw-mcp-framing-private.h"
#include "stw-mcp-server.h"

G_BEGIN_DECLS

/* stw_mcp_server_run_async() over any framing. */
void     _stw_mcp_server_serve_async    (StwMcpServer        *self,
                                         StwMcpFraming       *framing,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);

/* More clients: one connection each (the HTTP transport's MCP sessions).
 * Apps a connection's calls launch belong to @owner. */
StwMcpConnection *_stw_mcp_server_add_connection    (StwMcpServer        *self,
                                                     StwMcpFraming       *framing,
                                                     const char          *owner,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
void              _stw_mcp_server_remove_connection (StwMcpServer        *self,
                                                     StwMcpConnection    *conn);
/* Returns: (transfer full): the ids (strings) of @owner's live apps. */
GPtrArray        *_stw_mcp_server_list_owned_sessions (StwMcpServer      *self,
                                                       const char        *owner);
void              _stw_mcp_server_set_share_apps    (StwMcpServer        *self,
                                                     gboolean             share);
void              _stw_mcp_server_set_stdio_accepts_modern (StwMcpServer  *self,
                                                            gboolean       accepts);
/* subscriptions/listen open on every connection (for tests). */
guint             _stw_mcp_server_get_n_listens     (StwMcpServer        *self);
/* The protocol versions served, newest first. */
gboolean          _stw_mcp_server_supports_version  (const char          *version);

G_END_DECLS
