/* stw-session-info-private.h: the session builds these from what the main
 * process and the browser answered
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-session-info.h"

G_BEGIN_DECLS

StwWindowState *_stw_window_state_new_from_json (JsonObject *state);
StwAppInfo     *_stw_app_info_new_from_json     (JsonObject *info);

G_END_DECLS
