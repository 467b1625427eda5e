/* a11y-tools.c: the a11y plugin's MCP tool, a thin adapter over its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "a11y-private.h"

#define A11Y_TYPE_AUDIT_TOOL (a11y_audit_tool_get_type ())
G_DECLARE_FINAL_TYPE (A11yAuditTool, a11y_audit_tool, A11Y, AUDIT_TOOL, StwTool)

struct _A11yAuditTool
{
  StwTool        parent_instance;
  StwA11yPlugin *plugin;   /* weak: the plugin owns its tools */
};

G_DEFINE_FINAL_TYPE (A11yAuditTool, a11y_audit_tool, STW_TYPE_TOOL)

static GStrv
string_list (JsonObject *arguments,
             const char *member)
{
  JsonArray *array = json_object_has_member (arguments, member)
                     ? json_object_get_array_member (arguments, member) : NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    g_strv_builder_add (builder, json_array_get_string_element (array, i));
  return g_strv_builder_end (builder);
}

static void
on_audited (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwA11yAudit) audit = stw_a11y_plugin_audit_finish (STW_A11Y_PLUGIN (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;

  if (audit == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = stw_a11y_audit_to_json (audit);
  stw_invocation_return_value (invocation, answer);
}

static void
a11y_audit_tool_invoke (StwTool       *tool,
                        StwInvocation *invocation)
{
  A11yAuditTool *self = A11Y_AUDIT_TOOL (tool);
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwTarget) scope = stw_target_new_from_json (arguments, "ref", "selector", &error);
  g_auto(GStrv) tags = string_list (arguments, "tags");
  g_auto(GStrv) rules = string_list (arguments, "rules");

  if (error != NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  if (session == NULL)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", "No app is running");
      return;
    }
  stw_a11y_plugin_audit_async (self->plugin, session, scope, (const char * const *) tags,
                               (const char * const *) rules, stw_invocation_get_cancellable (invocation),
                               on_audited, g_object_ref (invocation));
}

static void
a11y_audit_tool_class_init (A11yAuditToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = a11y_audit_tool_invoke;
}

static void
a11y_audit_tool_init (A11yAuditTool *self)
{
}

#define NAMES "{\"type\":\"array\",\"maxItems\":100,\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100}}"

void
_stw_a11y_plugin_add_tools (StwA11yPlugin *plugin)
{
  static const char * const codes[] = {
    "UNSUPPORTED", "INVALID_SELECTOR", "SCOPE_NOT_FOUND", "ENGINE_FAILED", "BAD_ARGUMENT", "NOT_RUNNING", NULL,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"sessionId\":{\"type\":\"string\"},\"ref\":{\"type\":\"integer\"},\"selector\":{\"type\":\"string\"},"
    "\"tags\":" NAMES ",\"rules\":" NAMES "}}", &error);
  A11yAuditTool *tool;

  g_assert_no_error (error);
  tool = g_object_new (A11Y_TYPE_AUDIT_TOOL,
                       "name", "audit",
                       "title", "Accessibility audit",
                       "description",
                       "Run axe-core on the active window and its frames (or the subtree of ref|selector), "
                       "optionally only rules with tags (wcag2a, wcag2aa, …) or the named rules. Returns: "
                       "{violations[{id, impact, help, helpUrl, tags, nodeCount, nodes[{ref, target, html, "
                       "failureSummary}]}], incomplete, passes, capabilities}; each ref works with any "
                       "element tool.",
                       "input-schema", schema,
                       "operation-type", STW_OPERATION_QUERY,
                       "error-codes", codes,
                       "idempotent-hint", TRUE,
                       "session-requirement", STW_SESSION_REQUIREMENT_REQUIRED,
                       NULL);
  tool->plugin = plugin;
  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (plugin), STW_TOOL (tool), NULL);
  g_object_unref (tool);
}
