/* stw-tool.h: one agent-facing tool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib-object.h>

#include "stw-enums.h"
#include "stw-schema.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

/* Invocations sit above tools (stw-invocation.h includes this header):
 * the type is only named here, for the vfunc's parameter. */
typedef struct _StwInvocation StwInvocation;

#define STW_TYPE_TOOL (stw_tool_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (StwTool, stw_tool, STW, TOOL, GObject)

/**
 * StwToolClass:
 * @parent_class: the parent class
 * @invoke: runs the tool for one call. The implementation completes
 *   @invocation exactly once, now or later, with
 *   [method@Stagewright.Invocation.return_value] or [method@Stagewright.Invocation.return_error]. It must
 *   not block: long work is asynchronous and honours the invocation's
 *   cancellable. Every tool implements it: a
 *   [class@Stagewright.Dispatcher] answers a call of a tool that does not
 *   with `NOT_IMPLEMENTED`.
 *
 * The class structure of [class@Stagewright.Tool].
 *
 * Since: 1.0
 */
struct _StwToolClass
{
  GObjectClass parent_class;

  void (*invoke) (StwTool       *self,
                  StwInvocation *invocation);

  /*< private >*/
  gpointer _reserved[8];
};

STW_AVAILABLE_IN_1_0
const char *stw_tool_get_name (StwTool *self);
STW_AVAILABLE_IN_1_0
const char *stw_tool_get_title (StwTool *self);
STW_AVAILABLE_IN_1_0
const char *stw_tool_get_description (StwTool *self);
STW_AVAILABLE_IN_1_0
char *stw_tool_dup_agent_description (StwTool *self);
STW_AVAILABLE_IN_1_0
StwSchema *stw_tool_get_input_schema (StwTool *self);
STW_AVAILABLE_IN_1_0
StwSchema *stw_tool_get_output_schema (StwTool *self);
STW_AVAILABLE_IN_1_0
StwOperationType stw_tool_get_operation_type (StwTool *self);
STW_AVAILABLE_IN_1_0
StwEvalTarget stw_tool_get_eval_target (StwTool *self);
STW_AVAILABLE_IN_1_0
const char *stw_tool_get_code_argument (StwTool *self);
STW_AVAILABLE_IN_1_0
const char * const *stw_tool_get_error_codes (StwTool *self);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_get_read_only_hint (StwTool *self);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_get_destructive_hint (StwTool *self);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_get_idempotent_hint (StwTool *self);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_get_open_world_hint (StwTool *self);
STW_AVAILABLE_IN_1_0
StwToolProfileFlags stw_tool_get_profiles (StwTool *self);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_is_in_profile (StwTool *self,
                                 StwToolProfile profile);
STW_AVAILABLE_IN_1_0
StwSessionRequirement stw_tool_get_session_requirement (StwTool *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_tool_to_manifest (StwTool *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_tool_to_manifest_for_profile (StwTool *self,
                                              StwToolProfile profile);
STW_AVAILABLE_IN_1_0
void stw_tool_invoke (StwTool *self,
                      StwInvocation *invocation);

G_END_DECLS
