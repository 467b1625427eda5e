/* stw-invocation.h: one call of a tool, completed later
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-session.h"
#include "stw-tool.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

/* The dispatcher sits above invocations (stw-dispatcher.h includes this
 * header): the type is only named here, for the getter's return type. */
typedef struct _StwDispatcher StwDispatcher;

#define STW_TYPE_INVOCATION (stw_invocation_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwInvocation, stw_invocation, STW, INVOCATION, GObject)

STW_AVAILABLE_IN_1_0
StwTool *stw_invocation_get_tool (StwInvocation *self);
STW_AVAILABLE_IN_1_0
StwDispatcher *stw_invocation_get_dispatcher (StwInvocation *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_invocation_get_arguments (StwInvocation *self);
STW_AVAILABLE_IN_1_0
GCancellable *stw_invocation_get_cancellable (StwInvocation *self);
STW_AVAILABLE_IN_1_0
StwSession *stw_invocation_get_session (StwInvocation *self);
STW_AVAILABLE_IN_1_0
const char *stw_invocation_get_session_id (StwInvocation *self);
STW_AVAILABLE_IN_1_0
const char *stw_invocation_get_client_id (StwInvocation *self);
STW_AVAILABLE_IN_1_0
gboolean stw_invocation_may_reach (StwInvocation *self,
                                   GPid           pid,
                                   guint          port);
STW_AVAILABLE_IN_1_0
void stw_invocation_set_session_id (StwInvocation *self,
                                    const char *session_id);
STW_AVAILABLE_IN_1_0
gint64 stw_invocation_get_elapsed_ms (StwInvocation *self);
STW_AVAILABLE_IN_1_0
void stw_invocation_report_progress (StwInvocation *self,
                                     double progress,
                                     double total,
                                     const char *message);
STW_AVAILABLE_IN_1_0
void stw_invocation_return_value (StwInvocation *self,
                                  JsonObject *payload);
STW_AVAILABLE_IN_1_0
void stw_invocation_add_image (StwInvocation *self,
                               GBytes *image,
                               const char *mime_type);
STW_AVAILABLE_IN_1_0
void stw_invocation_return_json (StwInvocation *self,
                                 const char *json);
STW_AVAILABLE_IN_1_0
void stw_invocation_return_error (StwInvocation *self,
                                  const GError *error);
STW_AVAILABLE_IN_1_0
void stw_invocation_return_error_literal (StwInvocation *self,
                                          const char *code_name,
                                          const char *message);
STW_AVAILABLE_IN_1_0
void stw_invocation_return_error_json (StwInvocation *self,
                                       const char *json);
STW_AVAILABLE_IN_1_0
gboolean stw_invocation_is_completed (StwInvocation *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_invocation_get_envelope (StwInvocation *self);

G_END_DECLS
