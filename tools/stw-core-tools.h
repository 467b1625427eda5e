/* stw-core-tools.h: the core tool families, built into the library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-dispatcher.h"

G_BEGIN_DECLS

typedef void (*StwToolSpecFunc) (StwTool       *tool,
                                 StwInvocation *invocation);

/* A core tool, as data. `errors` lists the codes the tool returns,
 * space-separated (tests/test-error-codes.py reads these lists). */
typedef struct
{
  const char       *name;
  const char       *title;
  const char       *description;
  const char       *input_schema;
  StwOperationType  operation_type;
  StwEvalTarget     eval_target;
  gboolean          destructive;
  gboolean          idempotent;
  const char       *errors;
  StwToolSpecFunc   invoke;
} StwToolSpec;

StwTool *stw_tool_new_from_spec (const StwToolSpec *spec);
void     stw_core_tools_add_specs (StwDispatcher     *dispatcher,
                                   const StwToolSpec *specs,
                                   gsize              n_specs);

void     stw_core_tools_add_status (StwDispatcher *dispatcher);
void     stw_core_tools_add_lifecycle (StwDispatcher *dispatcher);
void     stw_core_tools_add_windows (StwDispatcher *dispatcher);
void     stw_core_tools_add_observe (StwDispatcher *dispatcher);

/* Shared by the families: the session a call names (or the only one),
 * recorded on the invocation for _meta.session_id. */
StwSession *stw_tools_resolve_session (StwInvocation  *invocation,
                                       GError        **error);
JsonArray  *stw_tools_windows_json (StwSession *session);
JsonObject *stw_tools_window_json (StwSession *session,
                                   StwSurface *window,
                                   guint       index);

G_END_DECLS
