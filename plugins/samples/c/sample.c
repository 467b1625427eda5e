/* sample.c: the sample C plugin — reads the active window's title
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Build it as a shared module that does not link libstagewright (the
 * server, or the program that loads it, provides the library), beside a
 * sample.plugin key file:
 *
 *   cc -shared -fPIC -o libsample.so sample.c $(pkg-config --cflags stagewright-1.0)
 *
 * Then `stagewright --plugin sample` (with the directory in
 * STAGEWRIGHT_PLUGIN_PATH) or `--plugin /abs/path/sample.plugin`.
 */
#include <stagewright/stagewright.h>

/* A tool: `title` here, `sample_title` to agents. */
#define SAMPLE_TYPE_TITLE_TOOL (sample_title_tool_get_type ())
G_DECLARE_FINAL_TYPE (SampleTitleTool, sample_title_tool, SAMPLE, TITLE_TOOL, StwTool)

struct _SampleTitleTool
{
  StwTool    parent_instance;
  StwPlugin *plugin;  /* unowned: the plugin owns its tools */
};

G_DEFINE_FINAL_TYPE (SampleTitleTool, sample_title_tool, STW_TYPE_TOOL)

static void
sample_title_tool_invoke (StwTool       *tool,
                          StwInvocation *invocation)
{
  StwSession *session = stw_invocation_get_session (invocation);
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  JsonObject *config = stw_plugin_get_config (SAMPLE_TITLE_TOOL (tool)->plugin);
  const char *expect = json_object_get_string_member_with_default (arguments, "expect", NULL);
  const char *prefix = json_object_get_string_member_with_default (config, "prefix", "");
  StwSurface *window = session ? stw_session_get_active_window (session) : NULL;
  const char *title;
  g_autoptr(JsonObject) payload = NULL;
  g_autofree char *label = NULL;

  if (window == NULL)
    {
      stw_invocation_return_error_literal (invocation, "sample.NO_WINDOW",
                                           "The app has no active window");
      return;
    }

  title = stw_surface_get_title (window) ? stw_surface_get_title (window) : "";
  if (expect != NULL && g_strcmp0 (expect, title) != 0)
    {
      g_autoptr(GError) error = stw_error_new ("sample.TITLE_MISMATCH",
                                               "The active window is titled “%s”, not “%s”",
                                               title, expect);
      g_autoptr(JsonObject) details = json_object_new ();

      json_object_set_string_member (details, "expected", expect);
      json_object_set_string_member (details, "actual", title);
      stw_error_set_details (error, details);
      stw_invocation_return_error (invocation, error);
      return;
    }

  label = g_strconcat (prefix, title, NULL);
  payload = json_object_new ();
  json_object_set_string_member (payload, "title", title);
  json_object_set_string_member (payload, "label", label);
  json_object_set_string_member (payload, "surfaceId", stw_surface_get_id (window));
  stw_invocation_return_value (invocation, payload);
}

static void
sample_title_tool_class_init (SampleTitleToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = sample_title_tool_invoke;
}

static void
sample_title_tool_init (SampleTitleTool *self)
{
}

/* The plugin. */
#define SAMPLE_TYPE_PLUGIN (sample_plugin_get_type ())
G_DECLARE_FINAL_TYPE (SamplePlugin, sample_plugin, SAMPLE, PLUGIN, StwPlugin)

struct _SamplePlugin
{
  StwPlugin parent_instance;
};

G_DEFINE_FINAL_TYPE (SamplePlugin, sample_plugin, STW_TYPE_PLUGIN)

static void
sample_plugin_setup (StwPlugin           *plugin,
                     StwPluginCompletion *completion)
{
  JsonObject *config = stw_plugin_completion_get_config (completion);

  /* A real plugin would open what it needs here, possibly asynchronously,
   * and complete later. */
  g_debug ("sample: set up with prefix “%s”",
           json_object_get_string_member_with_default (config, "prefix", ""));
  stw_plugin_completion_return_success (completion);
}

static void
sample_plugin_class_init (SamplePluginClass *klass)
{
  STW_PLUGIN_CLASS (klass)->setup = sample_plugin_setup;
}

static void
sample_plugin_init (SamplePlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);
  g_autoptr(StwSchema) input = NULL;
  g_autoptr(StwTool) tool = NULL;
  const char *codes[] = { "NO_WINDOW", "TITLE_MISMATCH", "NOT_RUNNING", NULL };

  stw_tool_provider_add_error_code (provider, "NO_WINDOW", 404, FALSE,
                                    "The app has no window yet; wait for one.", NULL);
  stw_tool_provider_add_error_code (provider, "TITLE_MISMATCH", 409, TRUE,
                                    "The title differs; wait for the app to update it and retry.",
                                    NULL);

  input = stw_schema_new_from_string ("{\"type\":\"object\",\"properties\":{"
                                      "\"sessionId\":{\"type\":\"string\"},"
                                      "\"expect\":{\"type\":\"string\"}},"
                                      "\"additionalProperties\":false}", NULL);
  tool = g_object_new (SAMPLE_TYPE_TITLE_TOOL,
                       "name", "title",
                       "title", "Active window title",
                       "description", "Read the title of the app's active window; with expect, "
                                      "fail with sample.TITLE_MISMATCH unless it is that.",
                       "input-schema", input,
                       "operation-type", STW_OPERATION_QUERY,
                       "error-codes", codes,
                       "idempotent-hint", TRUE,
                       "session-requirement", STW_SESSION_REQUIREMENT_REQUIRED,
                       NULL);
  SAMPLE_TITLE_TOOL (tool)->plugin = STW_PLUGIN (self);
  stw_tool_provider_add_tool (provider, tool, NULL);
}

/* The one entry point of a C plugin module (STW_PLUGIN_MODULE_ENTRY). */
StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"properties\":{"
    "\"prefix\":{\"type\":\"string\",\"default\":\"\",\"x-stagewright-safe\":true},"
    "\"apiKey\":{\"type\":\"string\"}},"
    "\"additionalProperties\":false}", NULL);

  return g_object_new (SAMPLE_TYPE_PLUGIN,
                       "name", "sample",
                       "version", "1.0.0",
                       "config-schema", config,
                       NULL);
}
