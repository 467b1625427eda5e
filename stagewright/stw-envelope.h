/* stw-envelope.h: the response envelope every tool call returns
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "stw-version-macros.h"

G_BEGIN_DECLS

STW_AVAILABLE_IN_1_0
JsonObject *stw_envelope_new_success (JsonObject *payload,
                                      gint64 elapsed_ms,
                                      const char *session_id);
STW_AVAILABLE_IN_1_0
JsonObject *stw_envelope_new_error (const GError *error,
                                    gint64 elapsed_ms,
                                    const char *session_id);
STW_AVAILABLE_IN_1_0
gboolean stw_envelope_is_ok (JsonObject *envelope);
STW_AVAILABLE_IN_1_0
char *stw_envelope_to_string (JsonObject *envelope);
STW_AVAILABLE_IN_1_0
gint64 stw_estimate_tokens (gsize n_chars);

G_END_DECLS
