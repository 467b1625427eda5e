/* stw-core-tools.h: what the core tool families share (private to tools/)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-dispatcher.h"
#include "stw-tool-spec.h"

G_BEGIN_DECLS

/* Profile membership as the contract lists it: a tool of the essential
 * profile is in every profile, full has every core tool. */
#define STW_IN_ESSENTIAL        STW_TOOL_PROFILE_FLAGS_ALL
#define STW_IN_TESTING          (STW_TOOL_PROFILE_FLAGS_TESTING | STW_TOOL_PROFILE_FLAGS_FULL)
#define STW_IN_DEBUG            (STW_TOOL_PROFILE_FLAGS_DEBUG | STW_TOOL_PROFILE_FLAGS_FULL)
#define STW_IN_TESTING_AND_DEBUG (STW_TOOL_PROFILE_FLAGS_TESTING | STW_TOOL_PROFILE_FLAGS_DEBUG | \
                                  STW_TOOL_PROFILE_FLAGS_FULL)

/* Schema members most tools share. Bounds the library checks (a positive
 * ref, a non-empty selector or session id) are not repeated here: every
 * character of a schema is read by every agent in tools/list. */
#define STW_SCHEMA_SESSION_ID "\"sessionId\":{\"type\":\"string\"}"
#define STW_SCHEMA_TARGET     "\"ref\":{\"type\":\"integer\"},\"selector\":{\"type\":\"string\"}"

/* One per family; stw-core-provider.c calls them. */
void     stw_core_tools_add_status (StwToolProvider *provider);
void     stw_core_tools_add_lifecycle (StwToolProvider *provider);
void     stw_core_tools_add_windows (StwToolProvider *provider);
void     stw_core_tools_add_observe (StwToolProvider *provider);
void     stw_core_tools_add_interact (StwToolProvider *provider);
void     stw_core_tools_add_read (StwToolProvider *provider);
void     stw_core_tools_add_snapshot (StwToolProvider *provider);
void     stw_core_tools_add_wait (StwToolProvider *provider);
void     stw_core_tools_add_eval (StwToolProvider *provider);
void     stw_core_tools_add_dialogs (StwToolProvider *provider);

/* Shared adapter code (stw-tool-spec.c), not a family's: the window
 * entries of launch/attach and windows_list answers, and the session's
 * capabilities in launch/attach and info answers. */
JsonArray  *stw_tools_windows_json (StwSession *session);
/* A typed result as its tool answers it: the JSON serialization its type
 * registers (the console and dialog logs, the dialog policy, the app
 * info, the snapshot). */
JsonObject *stw_tools_wire_object (GType         boxed_type,
                                   gconstpointer boxed);
JsonObject *stw_tools_session_capabilities_json (StwSession *session);
JsonObject *stw_tools_window_json (StwSession *session,
                                   StwSurface *window,
                                   guint       index);
/* Reads the session's targets, then runs @again (a refresh that fails
 * answers its own error): a window lookup that missed a title or window
 * the page made a moment ago, which arrive as events. */
typedef void (*StwToolsAgainFunc) (StwInvocation *invocation,
                                   gboolean       refreshed);
void        stw_tools_refresh_then (StwInvocation     *invocation,
                                    StwToolsAgainFunc  again);

G_END_DECLS
