/* stw-dispatcher.h: validates, routes and bounds every tool call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-enums.h"
#include "stw-invocation.h"
#include "stw-session.h"
#include "stw-tool.h"
#include "stw-tool-provider.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_DISPATCHER (stw_dispatcher_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwDispatcher, stw_dispatcher, STW, DISPATCHER, GObject)

/**
 * StwEvalGuardFunc:
 * @dispatcher: the dispatcher
 * @tool: the eval tool being called
 * @arguments: its validated arguments
 * @user_data: data given to [method@Stagewright.Dispatcher.set_eval_guard]
 * @error: where to put the refusal
 *
 * Inspects the payload of an eval call before it runs.
 *
 * Returns: %TRUE to let the call run, %FALSE with @error set to refuse it
 *
 * Since: 1.0
 */
typedef gboolean (*StwEvalGuardFunc) (StwDispatcher  *dispatcher,
                                      StwTool        *tool,
                                      JsonObject     *arguments,
                                      gpointer        user_data,
                                      GError        **error);

STW_AVAILABLE_IN_1_0
StwDispatcher *stw_dispatcher_new (void);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_add_tool (StwDispatcher *self,
                                  StwTool *tool,
                                  GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_remove_tool (StwDispatcher *self,
                                     const char *name);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_add_provider (StwDispatcher *self,
                                      StwToolProvider *provider,
                                      GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_remove_provider (StwDispatcher *self,
                                         StwToolProvider *provider);
STW_AVAILABLE_IN_1_0
StwToolProvider *stw_dispatcher_lookup_provider (StwDispatcher *self,
                                                 const char *name);
STW_AVAILABLE_IN_1_0
StwTool *stw_dispatcher_lookup_tool (StwDispatcher *self,
                                     const char *name);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_is_tool_visible (StwDispatcher *self,
                                         StwTool *tool);
STW_AVAILABLE_IN_1_0
GList *stw_dispatcher_list_tools (StwDispatcher *self);

STW_AVAILABLE_IN_1_0
StwInvocation *stw_dispatcher_create_invocation (StwDispatcher *self,
                                                 const char *name,
                                                 JsonObject *arguments,
                                                 GError **error);
STW_AVAILABLE_IN_1_0
void stw_dispatcher_invoke_async (StwDispatcher *self,
                                  StwInvocation *invocation,
                                  GCancellable *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_dispatcher_invoke_finish (StwDispatcher *self,
                                          GAsyncResult *result,
                                          GError **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_dispatcher_call_sync (StwDispatcher *self,
                                      const char *name,
                                      JsonObject *arguments,
                                      GCancellable *cancellable,
                                      GError **error);
STW_AVAILABLE_IN_1_0
char *stw_dispatcher_call_json_sync (StwDispatcher *self,
                                     const char *name,
                                     const char *arguments_json,
                                     GCancellable *cancellable,
                                     GError **error);

STW_AVAILABLE_IN_1_0
void stw_dispatcher_set_eval_guard (StwDispatcher *self,
                                    StwEvalGuardFunc guard,
                                    gpointer user_data,
                                    GDestroyNotify destroy);
STW_AVAILABLE_IN_1_0
StwToolProfile stw_dispatcher_get_tool_profile (StwDispatcher *self);
STW_AVAILABLE_IN_1_0
void stw_dispatcher_set_tool_profile (StwDispatcher *self,
                                      StwToolProfile profile);
STW_AVAILABLE_IN_1_0
StwEvalTarget stw_dispatcher_get_allow_eval (StwDispatcher *self);
STW_AVAILABLE_IN_1_0
void stw_dispatcher_set_allow_eval (StwDispatcher *self,
                                    StwEvalTarget targets);
STW_AVAILABLE_IN_1_0
guint stw_dispatcher_get_operation_timeout_ms (StwDispatcher *self);
STW_AVAILABLE_IN_1_0
void stw_dispatcher_set_operation_timeout_ms (StwDispatcher *self,
                                              guint timeout_ms);
STW_AVAILABLE_IN_1_0
const char *stw_dispatcher_get_app_root (StwDispatcher *self);
STW_AVAILABLE_IN_1_0
void stw_dispatcher_set_app_root (StwDispatcher *self,
                                  const char *app_root);
STW_AVAILABLE_IN_1_0
int stw_dispatcher_open_file (StwDispatcher *self,
                              const char *path,
                              int flags,
                              int mode,
                              GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_write_file (StwDispatcher *self,
                                    const char *path,
                                    GBytes *contents,
                                    int mode,
                                    GError **error);
STW_AVAILABLE_IN_1_0
const char *stw_dispatcher_get_screenshot_dir (StwDispatcher *self);
STW_AVAILABLE_IN_1_0
void stw_dispatcher_set_screenshot_dir (StwDispatcher *self,
                                        const char *screenshot_dir);
STW_AVAILABLE_IN_1_0
gint64 stw_dispatcher_get_started_at (StwDispatcher *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_dispatcher_get_last_error (StwDispatcher *self);
STW_AVAILABLE_IN_1_0
StwSessionManager *stw_dispatcher_get_session_manager (StwDispatcher *self);

STW_AVAILABLE_IN_1_0
const char *stw_tool_profile_to_string (StwToolProfile profile);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_profile_from_string (const char *name,
                                       StwToolProfile *profile);

G_END_DECLS
