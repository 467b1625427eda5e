/* stw-mcp-connection-private.h: one MCP client of a StwMcpServer
 *
 * A connection is what the server knows of one client: whether it is
 * initialized, the protocol version it negotiated, the log level it asked
 * for and the calls it has in flight. It reads JSON-RPC messages from its
 * framing (refusing what is not a JSON-RPC object), hands each to the
 * function it was made with (the server's method table), and writes
 * answers back through the framing. It knows nothing of the server above
 * it. The
 * stdio transport has one connection; the Streamable HTTP transport will
 * have one per MCP session.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "stw-invocation.h"
#include "stw-mcp-framing-private.h"

G_BEGIN_DECLS

/* JSON-RPC and MCP error codes. */
enum {
  STW_RPC_PARSE_ERROR = -32700,
  STW_RPC_INVALID_REQUEST = -32600,
  STW_RPC_METHOD_NOT_FOUND = -32601,
  STW_RPC_INVALID_PARAMS = -32602,
  STW_RPC_INTERNAL_ERROR = -32603,
  STW_RPC_RESOURCE_NOT_FOUND = -32002,
  /* 2026-07-28 */
  STW_RPC_HEADER_MISMATCH = -32020,
  STW_RPC_UNSUPPORTED_PROTOCOL_VERSION = -32022,
};

#define STW_TYPE_MCP_CONNECTION (stw_mcp_connection_get_type ())
G_DECLARE_FINAL_TYPE (StwMcpConnection, stw_mcp_connection, STW, MCP_CONNECTION, GObject)

/* Called with each JSON-RPC message object the client sent; @message is
 * borrowed for the call. */
typedef void (*StwMcpMessageFunc) (StwMcpConnection *connection,
                                   JsonObject       *message,
                                   gpointer          user_data);

/* @user_data must outlive the connection (the server outlives its
 * connections). */
StwMcpConnection *_stw_mcp_connection_new          (StwMcpFraming       *framing,
                                                    StwMcpMessageFunc    message_func,
                                                    gpointer             user_data);
StwMcpFraming    *_stw_mcp_connection_get_framing  (StwMcpConnection    *self);

/* Serves until the input ends (calls in flight then get a grace period and
 * queued answers are written), the client is dropped, or @cancellable
 * fires (at once: calls in flight are cancelled, none answered). */
void              _stw_mcp_connection_serve_async  (StwMcpConnection    *self,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
gboolean          _stw_mcp_connection_serve_finish (StwMcpConnection    *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);
gboolean          _stw_mcp_connection_is_serving   (StwMcpConnection    *self);

/* Session state. */
gboolean          _stw_mcp_connection_is_initialized     (StwMcpConnection *self);
void              _stw_mcp_connection_set_initialized    (StwMcpConnection *self,
                                                          const char       *protocol_version);
const char       *_stw_mcp_connection_get_protocol_version (StwMcpConnection *self);
/* notifications/initialized received after initialize. */
gboolean          _stw_mcp_connection_is_ready           (StwMcpConnection *self);
void              _stw_mcp_connection_set_ready          (StwMcpConnection *self);
/* Index into the MCP log levels, most verbose (debug) first. */
void              _stw_mcp_connection_set_log_threshold  (StwMcpConnection *self,
                                                          guint             threshold);
gboolean          _stw_mcp_connection_wants_log          (StwMcpConnection *self,
                                                          guint             level);

/* Who the apps this client launches belong to ("stdio" unless set; the
 * HTTP transport sets its MCP session id). */
const char       *_stw_mcp_connection_get_owner          (StwMcpConnection *self);
void              _stw_mcp_connection_set_owner          (StwMcpConnection *self,
                                                          const char       *owner);

/* Whether requests of the stateless era (2026-07-28: server/discover,
 * the version in each request's _meta) are served; off unless set. */
gboolean          _stw_mcp_connection_get_accepts_modern (StwMcpConnection *self);
void              _stw_mcp_connection_set_accepts_modern (StwMcpConnection *self,
                                                          gboolean          accepts);

/* Sending; @result, @data and @params are taken. */
void              _stw_mcp_connection_send_result        (StwMcpConnection *self,
                                                          JsonNode         *id,
                                                          JsonObject       *result);
void              _stw_mcp_connection_send_error         (StwMcpConnection *self,
                                                          JsonNode         *id,
                                                          int               code,
                                                          const char       *message,
                                                          JsonObject       *data);
void              _stw_mcp_connection_send_notification  (StwMcpConnection *self,
                                                          const char       *method,
                                                          JsonObject       *params);
/* On the stream of the request whose id has the JSON text @request_key
 * (HTTP); stdio has one stream. */
void              _stw_mcp_connection_send_related_notification (StwMcpConnection *self,
                                                                 const char       *request_key,
                                                                 const char       *method,
                                                                 JsonObject       *params);

/* Calls in flight, by the JSON text of their request id. */
gboolean          _stw_mcp_connection_has_call           (StwMcpConnection *self,
                                                          const char       *key);
guint             _stw_mcp_connection_get_n_calls        (StwMcpConnection *self);
/* Returns: (transfer none): the cancellable of the new call. */
GCancellable     *_stw_mcp_connection_add_call           (StwMcpConnection *self,
                                                          const char       *key,
                                                          JsonNode         *id,
                                                          JsonNode         *progress_token,
                                                          StwInvocation    *invocation);
/* Returns: (transfer none) (nullable): the request id, NULL once the call
 * was removed (serving stopped meanwhile). */
JsonNode         *_stw_mcp_connection_get_call_id        (StwMcpConnection *self,
                                                          const char       *key);
void              _stw_mcp_connection_remove_call        (StwMcpConnection *self,
                                                          const char       *key);
void              _stw_mcp_connection_cancel_call        (StwMcpConnection *self,
                                                          const char       *key);

/* subscriptions/listen (2026-07-28): requests that stay open and carry the
 * notifications their filter names, until the client cancels them
 * (notifications/cancelled, or closing the HTTP stream) or serving ends.
 * They are not calls: they hold no drain grace when the input ends. */
typedef enum
{
  STW_MCP_LISTEN_NONE = 0,
  STW_MCP_LISTEN_TOOLS_LIST_CHANGED = 1 << 0,
} StwMcpListenFlags;

void              _stw_mcp_connection_add_listen         (StwMcpConnection   *self,
                                                          const char         *key,
                                                          JsonNode           *id,
                                                          StwMcpListenFlags   flags,
                                                          const char * const *uris);
guint             _stw_mcp_connection_get_n_listens      (StwMcpConnection   *self);
/* Sends @method to every listen that asked for @flag, or, with a @uri, to
 * every listen subscribed to @uri (then the params carry it); each with
 * its subscription id in _meta. */
void              _stw_mcp_connection_notify_listens     (StwMcpConnection   *self,
                                                          const char         *method,
                                                          StwMcpListenFlags   flag,
                                                          const char         *uri);

G_END_DECLS
