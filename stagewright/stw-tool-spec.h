/* stw-tool-spec.h: the core tools as data, and their builder
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to the library (not installed): the families of tools/ fill
 * these tables, stagewright/stw-tool-spec.c builds them. A plugin makes
 * its tools as StwTool subclasses or instances instead, whose schemas the
 * dispatcher checks when they are added.
 */
#pragma once

#include "stw-invocation.h"
#include "stw-tool.h"
#include "stw-tool-provider.h"

G_BEGIN_DECLS

typedef void (*StwToolSpecFunc) (StwTool       *tool,
                                 StwInvocation *invocation);

/* A core tool, as data. `errors` lists the codes the tool returns,
 * space-separated (tests/test-error-codes.py reads these lists).
 * `profiles` is mandatory (one of the STW_IN_* of tools/stw-core-tools.h);
 * `session` says whether the dispatcher resolves a session for the tool
 * (stw_invocation_get_session()). `code_argument` names the argument
 * an eval tool runs as code (the dispatcher guards exactly that one);
 * NULL for every other tool. */
typedef struct
{
  const char           *name;
  const char           *title;
  const char           *description;
  const char           *input_schema;
  StwOperationType      operation_type;
  StwEvalTarget         eval_target;
  const char           *code_argument;
  gboolean              destructive;
  gboolean              idempotent;
  const char           *errors;
  StwToolProfileFlags   profiles;
  StwSessionRequirement session;
  StwToolSpecFunc       invoke;
} StwToolSpec;

StwTool *stw_tool_new_from_spec (const StwToolSpec *spec);
/* Adds the tools of @specs to @provider, and marks it as holding tools
 * a test has checked (the dispatcher leaves their schemas deferred). */
void     stw_core_tools_add_specs (StwToolProvider   *provider,
                                   const StwToolSpec *specs,
                                   gsize              n_specs);

G_END_DECLS
