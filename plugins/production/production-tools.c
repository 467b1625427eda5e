/* production-tools.c: the production plugin's MCP tool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * production_validate is a thin adapter: it reads {path}, calls
 * stw_production_plugin_validate_async() and writes the typed report as
 * the JSON its description documents.
 */
#include "config.h"

#include "stw-production.h"

void production_add_tools (StwProductionPlugin *plugin);

#define PRODUCTION_TYPE_TOOL (production_tool_get_type ())
G_DECLARE_FINAL_TYPE (ProductionTool, production_tool, PRODUCTION, TOOL, StwTool)

struct _ProductionTool
{
  StwTool              parent_instance;
  StwProductionPlugin *plugin;   /* weak: the plugin owns its tools */
};

G_DEFINE_FINAL_TYPE (ProductionTool, production_tool, STW_TYPE_TOOL)

static const char *
status_nick (StwProductionStatus status)
{
  GEnumClass *klass = g_type_class_ref (STW_TYPE_PRODUCTION_STATUS);
  const char *nick = g_enum_get_value (klass, (int) status)->value_nick;

  g_type_class_unref (klass);
  return nick;
}

static JsonObject *
report_to_json (StwProductionReport *report)
{
  JsonObject *answer = json_object_new ();
  JsonArray *list = json_array_new ();
  guint n = 0, counts[3] = { 0 };
  StwProductionCheck **checks = stw_production_report_get_checks (report, &n);
  JsonObject *summary = json_object_new ();

  for (guint i = 0; i < n; i++)
    {
      JsonObject *check = json_object_new ();
      StwProductionStatus status = stw_production_check_get_status (checks[i]);

      json_object_set_string_member (check, "id", stw_production_check_get_id (checks[i]));
      json_object_set_string_member (check, "status", status_nick (status));
      json_object_set_string_member (check, "evidence", stw_production_check_get_evidence (checks[i]));
      json_array_add_object_element (list, check);
      counts[status]++;
    }
  json_object_set_string_member (answer, "path", stw_production_report_get_path (report));
  json_object_set_string_member (answer, "artifact", stw_production_report_get_artifact (report));
  json_object_set_boolean_member (answer, "passed", stw_production_report_get_passed (report));
  json_object_set_int_member (summary, "pass", counts[STW_PRODUCTION_STATUS_PASS]);
  json_object_set_int_member (summary, "fail", counts[STW_PRODUCTION_STATUS_FAIL]);
  json_object_set_int_member (summary, "unknown", counts[STW_PRODUCTION_STATUS_UNKNOWN]);
  json_object_set_object_member (answer, "summary", summary);
  json_object_set_array_member (answer, "checks", list);
  return answer;
}

static void
on_validated (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwProductionReport) report = NULL;
  g_autoptr(JsonObject) answer = NULL;

  report = stw_production_plugin_validate_finish (STW_PRODUCTION_PLUGIN (object), result, &error);
  if (report == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = report_to_json (report);
  stw_invocation_return_value (invocation, answer);
}

static void
production_tool_invoke (StwTool       *tool,
                        StwInvocation *invocation)
{
  ProductionTool *self = PRODUCTION_TOOL (tool);
  JsonObject *arguments = stw_invocation_get_arguments (invocation);

  stw_production_plugin_validate_async (self->plugin, json_object_get_string_member (arguments, "path"),
                                        stw_invocation_get_cancellable (invocation), on_validated,
                                        g_object_ref (invocation));
}

static void
production_tool_class_init (ProductionToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = production_tool_invoke;
}

static void
production_tool_init (ProductionTool *self)
{
}

void
production_add_tools (StwProductionPlugin *plugin)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (plugin);
  static const char * const codes[] = { "APP_NOT_FOUND", "NOT_A_BUNDLE", "UNSUPPORTED_ARTIFACT", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = NULL;
  ProductionTool *tool;

  stw_tool_provider_add_error_code (provider, "APP_NOT_FOUND", 404, FALSE,
                                    "No file or directory at that path.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_A_BUNDLE", 400, FALSE,
                                    "Nothing in it looks like an Electron app (no chrome-sandbox or "
                                    "resources/app.asar).", NULL);
  stw_tool_provider_add_error_code (provider, "UNSUPPORTED_ARTIFACT", 400, FALSE,
                                    "Give an unpacked app directory, an AppImage or a .deb.", NULL);

  schema = stw_schema_new_from_string ("{\"type\":\"object\",\"additionalProperties\":false,"
                                       "\"required\":[\"path\"],\"properties\":{"
                                       "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096}}}",
                                       &error);
  g_assert_no_error (error);
  tool = g_object_new (PRODUCTION_TYPE_TOOL,
                       "name", "validate",
                       "title", "Validate a packaged app",
                       "description",
                       "Check a packaged Linux Electron app without running it: an unpacked directory, AppImage or "
                       ".deb (path under --app-root; read only). Checks: artifact.structure, fuses.wire and "
                       "fuses.<name> (secure values), asar.present, asar.integrity, sandbox, desktop, "
                       "appimage.signature, deb.control, deb.scripts. Returns: {path, artifact, passed (no check "
                       "failed), summary{pass, fail, unknown}, checks[{id, status: pass|fail|unknown, evidence}]}.",
                       "input-schema", schema,
                       "operation-type", STW_OPERATION_QUERY,
                       "error-codes", codes,
                       "idempotent-hint", TRUE,
                       "session-requirement", STW_SESSION_REQUIREMENT_NONE,
                       NULL);
  tool->plugin = plugin;
  stw_tool_provider_add_tool (provider, STW_TOOL (tool), NULL);
  g_object_unref (tool);
}
