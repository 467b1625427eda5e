/* a11y-tools.c: the a11y plugin's MCP tool, a thin adapter over its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-a11y-private.h"

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

static JsonObject *
node_to_json (StwA11yNode *node)
{
  JsonObject *object = json_object_new ();
  const StwElementRef *element = stw_a11y_node_get_element (node);

  if (element != NULL)
    json_object_set_int_member (object, "ref", stw_element_ref_get_ref (element));
  else
    json_object_set_null_member (object, "ref");
  json_object_set_array_member (object, "target", _stw_a11y_strv_to_json (stw_a11y_node_get_target (node)));
  json_object_set_string_member (object, "html", stw_a11y_node_get_html (node));
  json_object_set_string_member (object, "failureSummary", stw_a11y_node_get_failure_summary (node));
  return object;
}

static JsonObject *
violation_to_json (StwA11yViolation *violation)
{
  JsonObject *object = json_object_new ();
  JsonArray *nodes = json_array_new ();
  GListModel *model = stw_a11y_violation_get_nodes (violation);

  json_object_set_string_member (object, "id", stw_a11y_violation_get_id (violation));
  json_object_set_string_member (object, "impact", stw_a11y_violation_get_impact (violation));
  json_object_set_string_member (object, "description", stw_a11y_violation_get_description (violation));
  json_object_set_string_member (object, "help", stw_a11y_violation_get_help (violation));
  json_object_set_string_member (object, "helpUrl", stw_a11y_violation_get_help_url (violation));
  json_object_set_array_member (object, "tags", _stw_a11y_strv_to_json (stw_a11y_violation_get_tags (violation)));
  json_object_set_int_member (object, "nodeCount", stw_a11y_violation_get_n_nodes (violation));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(StwA11yNode) node = g_list_model_get_item (model, i);

      json_array_add_object_element (nodes, node_to_json (node));
    }
  json_object_set_array_member (object, "nodes", nodes);
  return object;
}

/* The tool's answer (docs/reference/plugin-a11y.md), from the report. */
static JsonObject *
report_to_json (StwA11yReport *report)
{
  JsonObject *object = json_object_new ();
  JsonArray *violations = json_array_new ();
  JsonObject *capabilities = json_object_new ();
  GListModel *model = stw_a11y_report_get_violations (report);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(StwA11yViolation) violation = g_list_model_get_item (model, i);

      json_array_add_object_element (violations, violation_to_json (violation));
    }
  json_object_set_string_member (object, "surface_id", stw_a11y_report_get_surface_id (report));
  json_object_set_array_member (object, "violations", violations);
  json_object_set_int_member (object, "violationCount", stw_a11y_report_get_n_violations (report));
  json_object_set_int_member (object, "incomplete", stw_a11y_report_get_n_incomplete (report));
  json_object_set_int_member (object, "passes", stw_a11y_report_get_n_passes (report));
  json_object_set_int_member (object, "inapplicable", stw_a11y_report_get_n_inapplicable (report));
  json_object_set_boolean_member (object, "truncated", stw_a11y_report_get_truncated (report));

  json_object_set_string_member (capabilities, "engine", "axe-core");
  json_object_set_string_member (capabilities, "version", stw_a11y_report_get_engine_version (report));
  json_object_set_string_member (capabilities, "world", "isolated");
  json_object_set_int_member (capabilities, "frames", stw_a11y_report_get_n_frames (report));
  json_object_set_int_member (capabilities, "framesSkipped", stw_a11y_report_get_n_frames_skipped (report));
  json_object_set_boolean_member (capabilities, "closedShadowRoots", stw_a11y_report_get_closed_shadow_roots (report));
  json_object_set_array_member (capabilities, "notes", _stw_a11y_strv_to_json (stw_a11y_report_get_notes (report)));
  json_object_set_object_member (object, "capabilities", capabilities);
  return object;
}

static void
on_audited (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwA11yReport) report = stw_a11y_plugin_audit_finish (STW_A11Y_PLUGIN (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;

  if (report == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = report_to_json (report);
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
  StwToolProvider *provider = STW_TOOL_PROVIDER (plugin);
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
  stw_tool_provider_add_error_code (provider, "UNSUPPORTED", 501, FALSE,
                                    "No axe-core engine: run `npm install axe-core` in the server's working "
                                    "directory, or set the plugin's engine to an axe.min.js.", NULL);
  stw_tool_provider_add_error_code (provider, "INVALID_SELECTOR", 400, FALSE,
                                    "The scope's selector is not valid CSS.", NULL);
  stw_tool_provider_add_error_code (provider, "SCOPE_NOT_FOUND", 404, TRUE,
                                    "Nothing matches the scope; take a snapshot and use a ref from it.", NULL);
  stw_tool_provider_add_error_code (provider, "ENGINE_FAILED", 502, TRUE,
                                    "axe-core failed or did not finish in time; narrow the audit (ref, "
                                    "selector, rules) or retry.", NULL);
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
  stw_tool_provider_add_tool (provider, STW_TOOL (tool), NULL);
  g_object_unref (tool);
}
