/* stw-tool-private.h: building the core's tools without the property machinery
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "stw-tool.h"

G_BEGIN_DECLS

/* What a core tool is, all at once. The core makes 56 tools before it can
 * answer `initialize`; setting their twelve construct properties through
 * g_object_new() was a quarter of the instructions of a cold start. */
typedef struct
{
  const char            *name;
  const char            *title;
  const char            *description;
  StwSchema             *input_schema;   /* (nullable): an empty object schema */
  StwOperationType       operation_type;
  StwEvalTarget          eval_target;
  const char            *code_argument;  /* (nullable) */
  char                 **error_codes;    /* (nullable) (transfer full) */
  gboolean               destructive_hint;
  gboolean               idempotent_hint;
  StwToolProfileFlags    profiles;
  StwSessionRequirement  session_requirement;
} StwToolInit;

StwTool *_stw_tool_new_with_init (GType        tool_type,
                                  StwToolInit *init);

/* The answer of a tool whose class implements no invoke (NOT_IMPLEMENTED).
 * Invocations sit above tools, so stw-invocation.c hands it down when its
 * class is made, which is before any invocation can reach a tool. */
typedef void (*StwToolUnimplementedFunc) (StwTool *tool,
                                          GObject *invocation);
void     _stw_tool_set_unimplemented_func (StwToolUnimplementedFunc func);

/* For the plugin code (stw-plugin-hooks.c, stw-plugin-manager.c). */
void     _stw_tool_set_input_schema (StwTool   *tool,
                                     StwSchema *schema);
/* Registers a plugin's tool as <prefix>_<name> (unless it already is) and
 * namespaces the bare codes of @codes it declares. */
void     _stw_tool_qualify          (StwTool    *tool,
                                     const char *prefix,
                                     JsonObject *codes);

G_END_DECLS
