/* stw-private.c: the private function table of the stagewright program
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-private.h"

const StwPrivateVTable *
stw__private__ (void)
{
  static const StwPrivateVTable table = {
    .confine_path = _stw_confine_path,
    .session_manager_instance_id_is_valid = _stw_session_manager_instance_id_is_valid,
    .session_manager_set_instance_id = _stw_session_manager_set_instance_id,
    .mcp_server_set_share_apps = _stw_mcp_server_set_share_apps,
    .mcp_http_new = _stw_mcp_http_new,
    .mcp_http_set_max_sessions = _stw_mcp_http_set_max_sessions,
    .mcp_http_set_idle_timeout_ms = _stw_mcp_http_set_idle_timeout_ms,
    .mcp_http_set_rate_limit = _stw_mcp_http_set_rate_limit,
    .mcp_http_set_token_file = _stw_mcp_http_set_token_file,
    .mcp_http_set_tls_files = _stw_mcp_http_set_tls_files,
    .mcp_http_listen = _stw_mcp_http_listen,
    .mcp_http_get_url = _stw_mcp_http_get_url,
    .mcp_http_shutdown = _stw_mcp_http_shutdown,
    .json_to_string = stw_json_to_string,
  };

  return &table;
}
