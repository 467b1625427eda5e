/* stw-http-private.h: the one HTTP policy for loopback endpoints
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>
#include "stw-soup-private.h"

G_BEGIN_DECLS

/* The largest DevTools HTTP answer we read (`/json/version`, `/json/list`).
 * One byte more and the answer is refused, without reading further. */
#define STW_HTTP_BODY_MAX 65536

gboolean     _stw_http_host_is_loopback (const char   *host);
GUri        *_stw_http_loopback_uri     (const char   *url,
                                         const char   *scheme,
                                         const char   *secure_scheme,
                                         GError      **error);
SoupSession *_stw_http_session_new      (void);
SoupMessage *_stw_http_message_new      (GUri         *uri);

void         _stw_http_get_json_async   (const char          *url,
                                         guint                timeout_ms,
                                         gsize                max_body,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
JsonNode    *_stw_http_get_json_finish  (GAsyncResult        *result,
                                         GError             **error);

G_END_DECLS
