/* stw-private.h: the library's private functions the stagewright program needs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The program links the shared library, so that a C plugin or an embedded
 * Python or GJS that imports Stagewright sees the same one copy of its
 * types. The library exports only its public API (-fvisibility=hidden):
 * the few private functions the program calls reach it through this table,
 * as GLib's glib__private__() does. Not API: the table changes with every
 * release, and only a program of the same build may use it (Debian's
 * stagewright depends on the exact libstagewright version).
 */
#pragma once

#include "stw-version-macros.h"

#include "stw-confine-private.h"
#include "stw-json-private.h"
#include "stw-mcp-http-private.h"
#include "stw-mcp-server-private.h"
#include "stw-session-private.h"

G_BEGIN_DECLS

typedef struct
{
  char          *(*confine_path)                   (const char    *root,
                                                    const char    *base_dir,
                                                    const char    *path,
                                                    const char    *argument,
                                                    GError       **error);
  gboolean       (*session_manager_instance_id_is_valid) (const char *instance_id);
  void           (*session_manager_set_instance_id) (StwSessionManager *self,
                                                     const char        *instance_id);
  void           (*mcp_server_set_share_apps)      (StwMcpServer  *self,
                                                    gboolean       share);
  StwMcpHttp    *(*mcp_http_new)                   (StwMcpServer  *server,
                                                    GError       **error);
  void           (*mcp_http_set_max_sessions)      (StwMcpHttp    *self,
                                                    guint          max_sessions);
  void           (*mcp_http_set_idle_timeout_ms)   (StwMcpHttp    *self,
                                                    guint          timeout_ms);
  void           (*mcp_http_set_rate_limit)        (StwMcpHttp    *self,
                                                    guint          rate,
                                                    guint          burst);
  gboolean       (*mcp_http_set_token_file)        (StwMcpHttp    *self,
                                                    const char    *path,
                                                    GError       **error);
  gboolean       (*mcp_http_set_tls_files)         (StwMcpHttp    *self,
                                                    const char    *cert,
                                                    const char    *key,
                                                    GError       **error);
  gboolean       (*mcp_http_listen)                (StwMcpHttp    *self,
                                                    const char    *address,
                                                    GError       **error);
  char          *(*mcp_http_get_url)               (StwMcpHttp    *self);
  void           (*mcp_http_shutdown)              (StwMcpHttp    *self);
  char          *(*json_to_string)                 (JsonNode      *node,
                                                    gsize         *length);
} StwPrivateVTable;

/* Not in the GIR (this file and stw-private.c are not scanned). */
STW_AVAILABLE_IN_ALL
const StwPrivateVTable *stw__private__ (void);

#define STW_PRIVATE_CALL(symbol) (stw__private__ ()->symbol)

G_END_DECLS
