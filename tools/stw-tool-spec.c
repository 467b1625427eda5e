/* stw-tool-spec.c: core tools described as data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-core-tools.h"

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
  g_autoptr(GError) error = NULL;
  StwSpecTool *tool;

  g_return_val_if_fail (spec != NULL && spec->invoke != NULL, NULL);

  schema = stw_schema_new_from_string (spec->input_schema, &error);
  if (schema == NULL)
    g_error ("Core tool %s has an invalid input schema: %s", spec->name, error->message);

  codes = g_strsplit (spec->errors ? spec->errors : "", " ", -1);
  if (codes[0] != NULL && codes[0][0] == '\0')
    g_clear_pointer (&codes, g_strfreev);

  tool = g_object_new (STW_TYPE_SPEC_TOOL,
                       "name", spec->name,
                       "title", spec->title,
                       "description", spec->description,
                       "input-schema", schema,
                       "operation-type", spec->operation_type,
                       "eval-target", spec->eval_target,
                       "error-codes", codes,
                       "destructive-hint", spec->destructive,
                       "idempotent-hint", spec->idempotent,
                       NULL);
  tool->spec = spec;
  return STW_TOOL (tool);
}

void
stw_core_tools_add_specs (StwDispatcher     *dispatcher,
                          const StwToolSpec *specs,
                          gsize              n_specs)
{
  for (gsize i = 0; i < n_specs; i++)
    {
      g_autoptr(StwTool) tool = stw_tool_new_from_spec (&specs[i]);
      g_autoptr(GError) error = NULL;

      if (stw_dispatcher_add_tool (dispatcher, tool, &error))
        continue;
      /* Adding twice is the caller's mistake; failing validation is ours. */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        g_critical ("Core tool %s: %s", specs[i].name, error->message);
      else
        g_error ("Core tool %s: %s", specs[i].name, error->message);
    }
}
