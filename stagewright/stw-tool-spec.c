/* stw-tool-spec.c: the core tools, built from their tables of data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The families of tools/ describe the core tools as StwToolSpec tables;
 * this builds them with their fields set at once (no construct property
 * machinery) and their schemas deferred, which tests/test-core-schemas.c
 * checks instead of every start.
 */
#include "config.h"

#include "stw-schema-private.h"
#include "stw-tool-private.h"
#include "stw-tool-provider-private.h"
#include "stw-tool-spec.h"

/* One GType serves every core tool: each instance carries its spec, whose
 * function does the work. The tool families stay tables of data plus
 * one function per tool. */
#define STW_TYPE_SPEC_TOOL (stw_spec_tool_get_type ())
G_DECLARE_FINAL_TYPE (StwSpecTool, stw_spec_tool, STW, SPEC_TOOL, StwTool)

struct _StwSpecTool
{
  StwTool            parent_instance;
  const StwToolSpec *spec;
};

G_DEFINE_FINAL_TYPE (StwSpecTool, stw_spec_tool, STW_TYPE_TOOL)

static void
stw_spec_tool_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  STW_SPEC_TOOL (tool)->spec->invoke (tool, invocation);
}

static void
stw_spec_tool_class_init (StwSpecToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = stw_spec_tool_invoke;
}

static void
stw_spec_tool_init (StwSpecTool *self)
{
}

StwTool *
stw_tool_new_from_spec (const StwToolSpec *spec)
{
  g_autoptr(StwSchema) schema = NULL;
  g_auto(GStrv) codes = NULL;
  StwToolInit init;
  StwSpecTool *tool;

  g_return_val_if_fail (spec != NULL && spec->invoke != NULL, NULL);

  if (spec->profiles == 0)
    g_error ("Core tool %s names no tool profile", spec->name);

  /* Parsed and compiled on first use: a test has checked it. */
  schema = _stw_schema_new_deferred (spec->input_schema);

  codes = g_strsplit (spec->errors ? spec->errors : "", " ", -1);
  if (codes[0] != NULL && codes[0][0] == '\0')
    g_clear_pointer (&codes, g_strfreev);

  init = (StwToolInit) {
    .name = spec->name,
    .title = spec->title,
    .description = spec->description,
    .input_schema = schema,
    .operation_type = spec->operation_type,
    .eval_target = spec->eval_target,
    .code_argument = spec->code_argument,
    .error_codes = g_steal_pointer (&codes),
    .destructive_hint = spec->destructive,
    .idempotent_hint = spec->idempotent,
    .profiles = spec->profiles,
    .session_requirement = spec->session,
  };
  tool = (StwSpecTool *) _stw_tool_new_with_init (STW_TYPE_SPEC_TOOL, &init);
  tool->spec = spec;
  return STW_TOOL (tool);
}

void
stw_core_tools_add_specs (StwToolProvider   *provider,
                          const StwToolSpec *specs,
                          gsize              n_specs)
{
  /* tests/test-core-schemas.c checks every core schema as the dispatcher
   * would, so the server does not parse and compile them all at start;
   * each is compiled when first needed. */
  _stw_tool_provider_set_checked_by_tests (provider);
  for (gsize i = 0; i < n_specs; i++)
    {
      g_autoptr(StwTool) tool = stw_tool_new_from_spec (&specs[i]);
      g_autoptr(GError) error = NULL;

      /* Two families naming one tool is a bug of ours. */
      if (!stw_tool_provider_add_tool (provider, tool, &error))
        g_error ("Core tool %s: %s", specs[i].name, error->message);
    }
}
