/* stw-action-result-private.h: an action's typed answer from the engine's
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "stw-action-result.h"

G_BEGIN_DECLS

StwActionResult *_stw_action_result_new_from_json (JsonObject *answer,
                                                   const char *surface_id);
StwDialogEvent  *_stw_dialog_event_new_from_entry (JsonObject *entry);

G_END_DECLS
