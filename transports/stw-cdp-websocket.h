/* stw-cdp-websocket.h: CDP over a WebSocket (browser, page or Node inspector)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include "stw-transport.h"

G_BEGIN_DECLS

#define STW_TYPE_CDP_WEBSOCKET (stw_cdp_websocket_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwCdpWebsocket, stw_cdp_websocket, STW, CDP_WEBSOCKET, StwTransport)

STW_AVAILABLE_IN_1_0
void stw_cdp_websocket_connect_async (const char *url,
                                      guint timeout_ms,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data);
STW_AVAILABLE_IN_1_0
StwTransport *stw_cdp_websocket_connect_finish (GAsyncResult *result,
                                                GError **error);
STW_AVAILABLE_IN_1_0
const char *stw_cdp_websocket_get_url (StwCdpWebsocket *self);
STW_AVAILABLE_IN_1_0
gboolean stw_url_is_loopback (const char *url);

G_END_DECLS
