/* stw-console.h: what the app logged, in every process
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "stw-session.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

/**
 * STW_CONSOLE_ENTRIES_MAX:
 *
 * How many console entries a session keeps; older ones are dropped and
 * counted as `overflowed`.
 *
 * Since: 1.0
 */
#define STW_CONSOLE_ENTRIES_MAX 1000

STW_AVAILABLE_IN_1_0
JsonObject *stw_session_read_console (StwSession  *self,
                                      JsonObject  *filter,
                                      GError     **error);

G_END_DECLS
