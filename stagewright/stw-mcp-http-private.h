/* stw-mcp-http-private.h: MCP Streamable HTTP (2025-11-25)
 *
 * StwMcpHttp listens on one endpoint (/mcp) with a SoupServer and serves
 * each MCP session as one StwMcpConnection of the StwMcpServer, over a
 * StwMcpHttpFraming: every tool behaves as it does over stdio. It owns the
 * HTTP rules: Host and Origin checks, the bearer token, body, session and
 * rate limits, session ids and their idle timeout.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-soup-private.h"

#include "stw-mcp-framing-private.h"
#include "stw-mcp-server.h"

G_BEGIN_DECLS

#define STW_MCP_HTTP_PATH "/mcp"
#define STW_MCP_HTTP_DEFAULT_MAX_SESSIONS 64
#define STW_MCP_HTTP_DEFAULT_IDLE_TIMEOUT_MS (30 * 60 * 1000)
#define STW_MCP_HTTP_DEFAULT_MAX_BODY (4 * 1024 * 1024)
#define STW_MCP_HTTP_DEFAULT_RATE 50    /* requests per second per client address */
#define STW_MCP_HTTP_DEFAULT_BURST 200

/* One MCP session's streams: each POST carrying a request is an exchange
 * answered as JSON, or as SSE once a notification for it comes first. */
#define STW_TYPE_MCP_HTTP_FRAMING (stw_mcp_http_framing_get_type ())
G_DECLARE_FINAL_TYPE (StwMcpHttpFraming, stw_mcp_http_framing, STW, MCP_HTTP_FRAMING, StwMcpFraming)

typedef enum {
  STW_MCP_HTTP_DELIVERED_NOTHING,  /* nothing answered: 202 for a notification */
  STW_MCP_HTTP_DELIVERED_ANSWERED, /* the response is set on the message */
  STW_MCP_HTTP_DELIVERED_PENDING,  /* paused until the answer comes */
} StwMcpHttpDelivered;

/* The socket of @msg's connection (transfer none), and whether libsoup
 * still does @msg's I/O: once its connection is gone, unpausing it is a
 * libsoup critical. Connections are accepted by StwMcpHttp itself, so
 * soup_server_message_get_socket() knows none of them. */
GSocket             *_stw_mcp_http_message_socket    (SoupServerMessage *msg);
gboolean             _stw_mcp_http_message_connected (SoupServerMessage *msg);

/* libsoup reads nothing while an answer waits or a stream writes, so it
 * notices a client that left only at its next write: the watch peeks at
 * the socket instead. @func is called once, @left TRUE when the client
 * closed its connection, FALSE when it sent bytes (a pipelined request,
 * TLS records), after which the watch cannot tell. Returns the attached
 * source (the caller's reference), or NULL when @msg has no socket. */
typedef void (*StwMcpHttpClientFunc) (gpointer user_data,
                                      gboolean left);
GSource             *_stw_mcp_http_watch_client      (SoupServerMessage   *msg,
                                                      StwMcpHttpClientFunc func,
                                                      gpointer             user_data);

StwMcpFraming       *_stw_mcp_http_framing_new      (void);
/* Hands one message (one POST body) to the connection. @request_key is
 * the JSON text of its id when it is a request, NULL otherwise. */
StwMcpHttpDelivered  _stw_mcp_http_framing_deliver  (StwMcpHttpFraming *self,
                                                     SoupServerMessage *msg,
                                                     const char        *request_key,
                                                     gboolean           accepts_sse,
                                                     const char        *data,
                                                     gsize              length);
/* The client cancelled a request: its stream ends without an answer. */
void                 _stw_mcp_http_framing_abandon  (StwMcpHttpFraming *self,
                                                     const char        *request_key);
guint                _stw_mcp_http_framing_get_n_pending (StwMcpHttpFraming *self);

typedef enum {
  STW_MCP_HTTP_OPENED_FRESH,     /* a new reader of the standalone stream */
  STW_MCP_HTTP_OPENED_RESUMED,   /* the events after Last-Event-ID, then on */
  STW_MCP_HTTP_OPENED_CONFLICT,  /* the standalone stream has a reader: 409 */
} StwMcpHttpOpened;

/* A GET: @msg becomes the reader of the stream @last_event_id names (its
 * kept events after that one are replayed; none if it expired), or,
 * with no id or an unknown or malformed one, of the standalone stream. */
StwMcpHttpOpened     _stw_mcp_http_framing_open_stream (StwMcpHttpFraming *self,
                                                        SoupServerMessage *msg,
                                                        const char        *last_event_id);

#define STW_TYPE_MCP_HTTP (stw_mcp_http_get_type ())
G_DECLARE_FINAL_TYPE (StwMcpHttp, stw_mcp_http, STW, MCP_HTTP, GObject)

StwMcpHttp *_stw_mcp_http_new              (StwMcpServer  *server,
                                            GError       **error);
/* Required before listening on an address that is not loopback. */
void        _stw_mcp_http_set_token        (StwMcpHttp    *self,
                                            const char    *token);
gboolean    _stw_mcp_http_set_token_file   (StwMcpHttp    *self,
                                            const char    *path,
                                            GError       **error);
gboolean    _stw_mcp_http_set_tls_files    (StwMcpHttp    *self,
                                            const char    *cert_file,
                                            const char    *key_file,
                                            GError       **error);
void        _stw_mcp_http_set_max_sessions (StwMcpHttp    *self,
                                            guint          max_sessions);
void        _stw_mcp_http_set_idle_timeout_ms (StwMcpHttp *self,
                                            guint          timeout_ms);
void        _stw_mcp_http_set_max_body     (StwMcpHttp    *self,
                                            gsize          max_bytes);
/* @rate requests per second per client address, bursts of @burst; 0
 * disables the limit. */
void        _stw_mcp_http_set_rate_limit   (StwMcpHttp    *self,
                                            guint          rate,
                                            guint          burst);
/* @address: "PORT", "ADDR:PORT" or "[ADDR6]:PORT"; ADDR is an IP address
 * or localhost, 127.0.0.1 when omitted; port 0 picks one. Fails with
 * G_IO_ERROR_PERMISSION_DENIED on an address that is not loopback when
 * no token is set, G_IO_ERROR_INVALID_ARGUMENT on a bad address. */
gboolean    _stw_mcp_http_listen           (StwMcpHttp    *self,
                                            const char    *address,
                                            GError       **error);
/* Returns: (transfer full): the endpoint's URL, once listening. */
char       *_stw_mcp_http_get_url          (StwMcpHttp    *self);
guint       _stw_mcp_http_get_n_sessions   (StwMcpHttp    *self);
/* Ends every session and stops listening. */
void        _stw_mcp_http_shutdown         (StwMcpHttp    *self);

G_END_DECLS
