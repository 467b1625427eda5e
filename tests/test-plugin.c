/* test-plugin.c: the plugin engine — loading, unloading, every refusal
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "stagewright.h"
#include "stw-test-utils.h"

/* What the plugins did, in order: "setup:alpha teardown:alpha …". */
static GString *events;

/* A tool that fails with its plugin's NO_THING, declared bare. */
#define TEST_TYPE_FAIL_TOOL (test_fail_tool_get_type ())
G_DECLARE_FINAL_TYPE (TestFailTool, test_fail_tool, TEST, FAIL_TOOL, StwTool)

struct _TestFailTool
{
  StwTool parent_instance;
};

G_DEFINE_FINAL_TYPE (TestFailTool, test_fail_tool, STW_TYPE_TOOL)

static void
test_fail_tool_invoke (StwTool       *tool,
                       StwInvocation *invocation)
{
  const char *code = stw_tool_get_error_codes (tool)[0];

  stw_invocation_return_error_literal (invocation, code, "There is no thing");
}

static void
test_fail_tool_class_init (TestFailToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = test_fail_tool_invoke;
}

static void
test_fail_tool_init (TestFailTool *self)
{
}

/* Refs for the trace's replay: "demo_refs" answers two fresh refs (as a
 * snapshot does: numbers only grow), "demo_use" takes a ref and fails
 * with REF_NOT_FOUND unless the latest "demo_refs" gave it. */
#define TEST_TYPE_REF_TOOL (test_ref_tool_get_type ())
G_DECLARE_FINAL_TYPE (TestRefTool, test_ref_tool, TEST, REF_TOOL, StwTool)

struct _TestRefTool
{
  StwTool parent_instance;
};

G_DEFINE_FINAL_TYPE (TestRefTool, test_ref_tool, STW_TYPE_TOOL)

static gint64 ref_issued;

static void
test_ref_tool_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  JsonObject *arguments = stw_invocation_get_arguments (invocation);

  if (g_str_equal (stw_tool_get_name (tool), "demo_refs"))
    {
      g_autoptr(JsonObject) payload = json_object_new ();
      JsonArray *elements = json_array_new ();

      for (guint i = 0; i < 2; i++)
        {
          JsonObject *element = json_object_new ();

          json_object_set_int_member (element, "ref", ++ref_issued);
          json_array_add_object_element (elements, element);
        }
      json_object_set_array_member (payload, "elements", elements);
      stw_invocation_return_value (invocation, payload);
    }
  else if (json_object_get_int_member_with_default (arguments, "ref", 0) > ref_issued - 2 &&
           json_object_get_int_member_with_default (arguments, "ref", 0) <= ref_issued)
    stw_invocation_return_value (invocation, NULL);
  else
    stw_invocation_return_error_literal (invocation, "REF_NOT_FOUND", "No such ref");
}

static void
test_ref_tool_class_init (TestRefToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = test_ref_tool_invoke;
}

static void
test_ref_tool_init (TestRefTool *self)
{
}

typedef enum
{
  SETUP_OK,
  SETUP_OK_LATER,
  SETUP_FAIL,
  SETUP_FAIL_LATER,
  SETUP_DROP,
} SetupMode;

#define TEST_TYPE_PLUGIN (test_plugin_get_type ())
G_DECLARE_FINAL_TYPE (TestPlugin, test_plugin, TEST, PLUGIN, StwPlugin)

struct _TestPlugin
{
  StwPlugin  parent_instance;
  SetupMode  mode;
  guint      n_calls_seen;
  guint      n_loaded;
  guint      n_unloaded;
};

G_DEFINE_FINAL_TYPE (TestPlugin, test_plugin, STW_TYPE_PLUGIN)

static void
log_event (const char *what,
           StwPlugin  *plugin)
{
  if (events->len > 0)
    g_string_append_c (events, ' ');
  g_string_append_printf (events, "%s:%s", what,
                          stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin)));
}

static void
on_call_started (StwDispatcher *dispatcher,
                 StwInvocation *invocation,
                 gpointer       user_data)
{
  TEST_PLUGIN (user_data)->n_calls_seen++;
}

static gboolean
finish_later (gpointer user_data)
{
  StwPluginCompletion *completion = user_data;
  TestPlugin *self = TEST_PLUGIN (stw_plugin_completion_get_plugin (completion));

  if (self->mode == SETUP_FAIL_LATER)
    {
      g_autoptr(GError) error = stw_error_new ("NOT_IMPLEMENTED", "%s", "not today");

      stw_plugin_completion_return_error (completion, error);
    }
  else
    stw_plugin_completion_return_success (completion);
  return G_SOURCE_REMOVE;
}

static void
test_plugin_setup (StwPlugin           *plugin,
                   StwPluginCompletion *completion)
{
  TestPlugin *self = TEST_PLUGIN (plugin);

  log_event ("setup", plugin);
  /* Left connected on purpose: the engine disconnects it. */
  g_signal_connect (stw_plugin_completion_get_dispatcher (completion), "call-started",
                    G_CALLBACK (on_call_started), self);

  switch (self->mode)
    {
    case SETUP_OK:
      stw_plugin_completion_return_success (completion);
      break;
    case SETUP_FAIL:
      stw_plugin_completion_return_error_literal (completion, "the flux capacitor is missing");
      break;
    case SETUP_DROP:
      break;
    case SETUP_OK_LATER:
    case SETUP_FAIL_LATER:
    default:
      g_idle_add_full (G_PRIORITY_DEFAULT, finish_later, g_object_ref (completion), g_object_unref);
      break;
    }
}

static void
test_plugin_teardown (StwPlugin           *plugin,
                      StwPluginCompletion *completion)
{
  log_event ("teardown", plugin);
  stw_plugin_completion_return_success (completion);
}

static void
test_plugin_class_init (TestPluginClass *klass)
{
  STW_PLUGIN_CLASS (klass)->setup = test_plugin_setup;
  STW_PLUGIN_CLASS (klass)->teardown = test_plugin_teardown;
}

static void
on_loaded (StwPlugin *plugin)
{
  TEST_PLUGIN (plugin)->n_loaded++;
}

static void
on_unloaded (StwPlugin *plugin)
{
  TEST_PLUGIN (plugin)->n_unloaded++;
}

static void
test_plugin_init (TestPlugin *self)
{
  g_signal_connect (self, "loaded", G_CALLBACK (on_loaded), NULL);
  g_signal_connect (self, "unloaded", G_CALLBACK (on_unloaded), NULL);
}

/* A plugin with the tools `ping` and `fail` and the code NO_THING. */
static StwPlugin *
test_plugin_new (const char *name,
                 SetupMode   mode,
                 const char *core_versions,
                 const char *config_schema)
{
  g_autoptr(StwSchema) schema = NULL;
  g_autoptr(StwSchema) input = stw_schema_new_from_string ("{\"type\":\"object\"}", NULL);
  g_autoptr(StwTool) ping = stw_test_tool_new_echo ("ping");
  g_autoptr(StwTool) fail = NULL;
  g_autoptr(GError) error = NULL;
  const char *codes[] = { "NO_THING", NULL };
  TestPlugin *self;

  if (config_schema != NULL)
    {
      schema = stw_schema_new_from_string (config_schema, &error);
      g_assert_no_error (error);
    }
  self = g_object_new (TEST_TYPE_PLUGIN, "name", name, "version", "1.2.3",
                       "core-versions", core_versions ? core_versions : "*",
                       "config-schema", schema, NULL);
  self->mode = mode;

  fail = g_object_new (TEST_TYPE_FAIL_TOOL, "name", "fail", "description", "Fails.",
                       "input-schema", input, "error-codes", codes, NULL);
  g_assert_true (stw_tool_provider_add_error_code (STW_TOOL_PROVIDER (self), "NO_THING", 404, TRUE,
                                                   "Make a thing first.", &error));
  g_assert_no_error (error);
  g_assert_true (stw_tool_provider_add_tool (STW_TOOL_PROVIDER (self), ping, &error));
  g_assert_true (stw_tool_provider_add_tool (STW_TOOL_PROVIDER (self), fail, &error));
  g_assert_no_error (error);
  return STW_PLUGIN (self);
}

/* Nothing of @name stays: no provider, tool, code or handler; and no
 * electron_plugins once no plugin is loaded. */
static void
assert_gone (StwDispatcher *dispatcher,
             StwPlugin     *plugin)
{
  const char *name = stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin));
  g_autofree char *prefix = g_strconcat (name, "_", NULL);
  g_autofree char *code = g_strconcat (name, ".NO_THING", NULL);
  g_autoptr(GList) tools = stw_dispatcher_list_tools (dispatcher);

  g_assert_null (stw_dispatcher_lookup_provider (dispatcher, name));
  g_assert_null (stw_dispatcher_lookup_plugin (dispatcher, name));
  for (const GList *l = tools; l != NULL; l = l->next)
    g_assert_false (g_str_has_prefix (stw_tool_get_name (l->data), prefix));
  g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), code));
  g_assert_cmpuint (g_signal_handler_find (dispatcher, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, plugin),
                    ==, 0);
  g_assert_false (stw_plugin_is_loaded (plugin));
  g_assert_null (stw_plugin_get_dispatcher (plugin));
  g_assert_false (stw_tool_provider_is_in_use (STW_TOOL_PROVIDER (plugin)));
}

static void
assert_no_plugins (StwDispatcher *dispatcher)
{
  g_autolist(StwPlugin) plugins = stw_dispatcher_list_plugins (dispatcher);

  g_assert_null (plugins);
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "electron_plugins"));
}

static gboolean
add_plugins (StwDispatcher  *dispatcher,
             StwPlugin     **plugins,
             const char     *configs_json,
             GError        **error)
{
  g_autoptr(GList) list = NULL;
  g_autoptr(JsonObject) configs = configs_json ? stw_test_json_object_from (configs_json) : NULL;

  for (guint i = 0; plugins[i] != NULL; i++)
    list = g_list_append (list, plugins[i]);
  return stw_dispatcher_add_plugins_sync (dispatcher, list, configs, NULL, error);
}

static void
reset_events (void)
{
  g_string_truncate (events, 0);
}

static JsonObject *
call (StwDispatcher *dispatcher,
      const char    *tool,
      const char    *arguments)
{
  g_autoptr(JsonObject) args = stw_test_json_object_from (arguments);
  g_autoptr(GError) error = NULL;
  JsonObject *envelope = stw_dispatcher_call_sync (dispatcher, tool, args, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (envelope);
  return envelope;
}

static const char *
envelope_code (JsonObject *envelope)
{
  g_assert_false (json_object_get_boolean_member (envelope, "ok"));
  return json_object_get_string_member (envelope, "code");
}

/* Core versions {{{1 */

static void
test_core_versions (void)
{
  static const struct { const char *range; const char *version; gboolean ok; } cases[] = {
    { "*", "0.1.0", TRUE },
    { "0.1.0", "0.1.0", TRUE },
    { "0.1", "0.1.7", TRUE },
    { "0.1", "0.2.0", FALSE },
    { "0.1.1", "0.1.0", FALSE },
    { ">=0.1", "0.1.0", TRUE },
    { ">=0.1", "3.0.0", TRUE },
    { ">= 1.2.3", "1.2.3", TRUE },
    { ">=1.2.3", "1.2.2", FALSE },
    { ">=1.2", "0.9.9", FALSE },
    { "^1.0", "1.0.0", FALSE },
    { "1", "1.0.0", FALSE },
    { "", "1.0.0", FALSE },
    { "1.x", "1.0.0", FALSE },
    { ">=1.2.3.4", "1.2.3", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(StwPlugin) plugin = g_object_new (TEST_TYPE_PLUGIN, "name", "alpha", "version", "1",
                                                  "core-versions", cases[i].range, NULL);
      g_autoptr(GError) error = NULL;
      gboolean ok = stw_plugin_accepts_core_version (plugin, cases[i].version, &error);

      g_test_message ("%s vs %s", cases[i].range, cases[i].version);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (!ok)
        {
          g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN_VERSION_MISMATCH);
          g_assert_nonnull (strstr (error->message, "alpha"));
        }
    }

  /* This Stagewright's own version. */
  {
    g_autoptr(StwPlugin) plugin = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);

    g_assert_true (stw_plugin_accepts_core_version (plugin, NULL, NULL));
    g_assert_cmpstr (stw_plugin_get_core_version (), ==, STW_VERSION_S);
  }
}

/* Loading and unloading {{{1 */

static void
test_load_unload (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, ">=0.1", NULL);
  g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_OK_LATER, "*",
                                               "{\"type\":\"object\",\"properties\":{"
                                               "\"level\":{\"type\":\"integer\",\"default\":3,"
                                               "\"x-stagewright-safe\":true},"
                                               "\"token\":{\"type\":\"string\"}},"
                                               "\"additionalProperties\":false}");
  StwPlugin *plugins[] = { alpha, beta, NULL };
  g_autoptr(GError) error = NULL;
  g_autolist(StwPlugin) listed = NULL;
  guint http = 0;
  gboolean retryable = FALSE;
  const char *hint = NULL;

  reset_events ();
  assert_no_plugins (dispatcher);
  g_assert_true (add_plugins (dispatcher, plugins, "{\"beta\":{\"token\":\"s3cret\"}}", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (events->str, ==, "setup:alpha setup:beta");
  g_assert_cmpuint (TEST_PLUGIN (alpha)->n_loaded, ==, 1);
  g_assert_cmpuint (TEST_PLUGIN (beta)->n_loaded, ==, 1);
  g_assert_true (stw_plugin_is_loaded (alpha));
  g_assert_true (stw_plugin_get_dispatcher (beta) == dispatcher);

  /* Short names registered as <plugin>_<tool>, codes as <plugin>.CODE. */
  g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, "alpha_ping"));
  g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, "alpha_fail"));
  g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, "beta_ping"));
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "ping"));
  g_assert_cmpstr (stw_tool_get_error_codes (stw_dispatcher_lookup_tool (dispatcher, "beta_fail"))[0],
                   ==, "beta.NO_THING");
  g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (), "alpha.NO_THING",
                                            &http, &retryable, &hint));
  g_assert_cmpuint (http, ==, 404);
  g_assert_true (retryable);
  g_assert_cmpstr (hint, ==, "Make a thing first.");

  /* Defaults filled in, the configuration as given otherwise. */
  g_assert_cmpint (json_object_get_int_member (stw_plugin_get_config (beta), "level"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (stw_plugin_get_config (beta), "token"), ==, "s3cret");

  listed = stw_dispatcher_list_plugins (dispatcher);
  g_assert_cmpuint (g_list_length (listed), ==, 2);
  g_assert_true (listed->data == alpha);

  /* A call: the plugin's code comes back namespaced; the handler the
   * plugin connected sees it. */
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "alpha_fail", "{}");

    g_assert_false (json_object_get_boolean_member (envelope, "ok"));
    g_assert_cmpstr (envelope_code (envelope), ==, "alpha.NO_THING");
    g_assert_cmpuint (TEST_PLUGIN (alpha)->n_calls_seen, ==, 1);
  }

  /* electron_plugins, while plugins are loaded. */
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "electron_plugins", "{}");
    JsonArray *array = json_object_get_array_member (envelope, "plugins");
    JsonObject *a, *b;

    g_assert_true (json_object_get_boolean_member (envelope, "ok"));
    g_assert_cmpuint (json_array_get_length (array), ==, 2);
    a = json_array_get_object_element (array, 0);
    b = json_array_get_object_element (array, 1);
    g_assert_cmpstr (json_object_get_string_member (a, "name"), ==, "alpha");
    g_assert_cmpstr (json_object_get_string_member (a, "version"), ==, "1.2.3");
    g_assert_cmpstr (json_object_get_string_member (a, "state"), ==, "loaded");
    g_assert_cmpstr (json_object_get_string_member (a, "language"), ==, "c");
    stw_test_assert_json_equal (json_object_get_member (a, "errorCodes"), "[\"alpha.NO_THING\"]");
    stw_test_assert_json_equal (json_object_get_member (a, "tools"),
                                "[{\"name\":\"alpha_ping\",\"state\":\"enabled\"},"
                                "{\"name\":\"alpha_fail\",\"state\":\"enabled\"}]");
    g_assert_false (json_object_has_member (a, "effectiveConfig"));
    /* Only what the schema marks safe: the level, not the token. */
    stw_test_assert_json_equal (json_object_get_member (b, "effectiveConfig"), "{\"level\":3}");
  }

  /* Unloading: reverse order, nothing left. */
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (events->str, ==, "setup:alpha setup:beta teardown:beta teardown:alpha");
  g_assert_cmpuint (TEST_PLUGIN (alpha)->n_unloaded, ==, 1);
  g_assert_cmpuint (TEST_PLUGIN (beta)->n_unloaded, ==, 1);
  assert_gone (dispatcher, alpha);
  assert_gone (dispatcher, beta);
  assert_no_plugins (dispatcher);
  g_assert_null (stw_plugin_get_config (beta));

  /* And the same objects load again. */
  reset_events ();
  g_assert_true (add_plugins (dispatcher, plugins, NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, "alpha_ping"));
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "alpha_alpha_ping"));
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  assert_no_plugins (dispatcher);
}

/* A dispatcher that goes away with its plugins loaded gives their codes
 * back, and the plugins no longer point at it. */
static void
test_dispatcher_gone (void)
{
  g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
  StwPlugin *plugins[] = { alpha, NULL };
  StwDispatcher *dispatcher = stw_dispatcher_new ();

  g_assert_true (add_plugins (dispatcher, plugins, NULL, NULL));
  g_assert_true (stw_error_registry_contains (stw_error_registry_get_default (), "alpha.NO_THING"));
  g_object_unref (dispatcher);
  g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "alpha.NO_THING"));
  g_assert_null (stw_plugin_get_dispatcher (alpha));
  g_assert_false (stw_plugin_is_loaded (alpha));
}

/* MCP clients hear about the tools a load adds and an unload takes. */
static void
test_list_changed (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  StwDispatcher *dispatcher = stw_test_client_get_dispatcher (client);
  g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
  StwPlugin *plugins[] = { alpha, NULL };

  stw_test_client_initialize (client);
  g_assert_true (add_plugins (dispatcher, plugins, NULL, NULL));
  {
    g_autoptr(JsonObject) notification =
      stw_test_client_wait_notification (client, "notifications/tools/list_changed");
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/list", "{}");
    g_autofree char *text = stw_test_object_to_json (result);

    g_assert_nonnull (strstr (text, "\"alpha_ping\""));
    g_assert_nonnull (strstr (text, "\"electron_plugins\""));
  }
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
  {
    g_autoptr(JsonObject) notification =
      stw_test_client_wait_notification (client, "notifications/tools/list_changed");
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/list", "{}");
    g_autofree char *text = stw_test_object_to_json (result);

    g_assert_null (strstr (text, "\"alpha_ping\""));
    g_assert_null (strstr (text, "\"electron_plugins\""));
  }
}

/* An eval tool is listed disabled, with its reason, unless the eval
 * policy covers its target; a tool outside the profile, disabled too. */
static void
test_listing_disabled (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
  g_autoptr(StwSchema) schema = stw_schema_new_from_string ("{\"type\":\"object\",\"properties\":"
                                                            "{\"code\":{\"type\":\"string\"}}}", NULL);
  g_autoptr(StwTool) run = g_object_new (TEST_TYPE_FAIL_TOOL, "name", "run", "description", "Runs code.",
                                         "input-schema", schema, "operation-type", STW_OPERATION_EVAL,
                                         "eval-target", STW_EVAL_TARGET_MAIN, "code-argument", "code",
                                         "error-codes", (const char *[]) { "NO_THING", NULL }, NULL);
  g_autoptr(StwTool) debug = g_object_new (TEST_TYPE_FAIL_TOOL, "name", "debug", "description", "Debugs.",
                                           "input-schema", schema, "profiles", STW_TOOL_PROFILE_FLAGS_DEBUG | STW_TOOL_PROFILE_FLAGS_FULL,
                                           "error-codes", (const char *[]) { "NO_THING", NULL }, NULL);
  StwPlugin *plugins[] = { alpha, NULL };

  g_assert_true (stw_tool_provider_add_tool (STW_TOOL_PROVIDER (alpha), run, NULL));
  g_assert_true (stw_tool_provider_add_tool (STW_TOOL_PROVIDER (alpha), debug, NULL));
  g_assert_true (add_plugins (dispatcher, plugins, NULL, NULL));
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "electron_plugins", "{}");
    JsonObject *entry = json_array_get_object_element (json_object_get_array_member (envelope, "plugins"), 0);

    stw_test_assert_json_equal (json_object_get_member (entry, "tools"),
                                "[{\"name\":\"alpha_ping\",\"state\":\"enabled\"},"
                                "{\"name\":\"alpha_fail\",\"state\":\"enabled\"},"
                                "{\"name\":\"alpha_run\",\"state\":\"disabled\",\"disabledReason\":"
                                "{\"kind\":\"eval_policy_disabled\",\"target\":\"main\"}},"
                                "{\"name\":\"alpha_debug\",\"state\":\"enabled\"}]");
    stw_test_assert_json_equal (json_object_get_member (entry, "requirements"), "{\"evalTargets\":[\"main\"]}");
  }

  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_MAIN);
  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_ESSENTIAL);
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "electron_plugins", "{}");
    JsonObject *entry = json_array_get_object_element (json_object_get_array_member (envelope, "plugins"), 0);
    JsonArray *tools = json_object_get_array_member (entry, "tools");

    stw_test_assert_json_equal (json_array_get_element (tools, 2),
                                "{\"name\":\"alpha_run\",\"state\":\"enabled\"}");
    stw_test_assert_json_equal (json_array_get_element (tools, 3),
                                "{\"name\":\"alpha_debug\",\"state\":\"disabled\",\"disabledReason\":"
                                "{\"kind\":\"tool_profile\",\"profile\":\"essential\"}}");
  }
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
  assert_gone (dispatcher, alpha);
}

/* Refusals: objects {{{1 */

static void
assert_refused (StwPlugin  **plugins,
                const char  *configs,
                StwError     code,
                const char  *needle,
                const char  *expected_events)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GError) error = NULL;

  reset_events ();
  g_assert_false (add_plugins (dispatcher, plugins, configs, &error));
  g_assert_error (error, STW_ERROR, (int) code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, needle));
  g_assert_cmpstr (events->str, ==, expected_events);
  for (guint i = 0; plugins[i] != NULL; i++)
    {
      assert_gone (dispatcher, plugins[i]);
      g_assert_cmpuint (TEST_PLUGIN (plugins[i])->n_loaded, ==, 0);
    }
  assert_no_plugins (dispatcher);
}

static void
test_refuse_name (void)
{
  const char *bad[] = { "Alpha", "electron", "al_pha", "9lives", "" };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
      g_autoptr(StwPlugin) other = g_object_new (TEST_TYPE_PLUGIN, "name", bad[i], "version", "1", NULL);
      StwPlugin *plugins[] = { alpha, other, NULL };

      assert_refused (plugins, NULL, STW_ERROR_PLUGIN_MANIFEST_INVALID, "^[a-z][a-z0-9]*$", "");
    }

  /* No version. */
  {
    g_autoptr(StwPlugin) alpha = g_object_new (TEST_TYPE_PLUGIN, "name", "alpha", NULL);
    StwPlugin *plugins[] = { alpha, NULL };

    assert_refused (plugins, NULL, STW_ERROR_PLUGIN_MANIFEST_INVALID, "no version", "");
  }
}

static void
test_refuse_version (void)
{
  g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
  g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_OK, ">=99.0", NULL);
  StwPlugin *plugins[] = { alpha, beta, NULL };

  assert_refused (plugins, NULL, STW_ERROR_PLUGIN_VERSION_MISMATCH, "needs Stagewright >=99.0", "");
}

static void
test_refuse_config (void)
{
  const char *schema = "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"},"
                       "\"mode\":{\"enum\":[\"a\",\"b\"]}},\"required\":[\"mode\"],"
                       "\"additionalProperties\":false}";

  /* One issue per field. */
  {
    g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_OK, NULL, schema);
    g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonObject) configs = stw_test_json_object_from ("{\"beta\":{\"count\":\"x\",\"extra\":1}}");
    g_autoptr(GList) list = g_list_append (g_list_append (NULL, alpha), beta);
    JsonObject *details;
    JsonArray *issues;
    g_autoptr(GString) fields = g_string_new (NULL);

    reset_events ();
    g_assert_false (stw_dispatcher_add_plugins_sync (dispatcher, list, configs, NULL, &error));
    g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN_CONFIG_INVALID);
    g_assert_nonnull (strstr (error->message, "Plugin “beta”"));
    details = stw_error_get_details (error);
    g_assert_cmpstr (json_object_get_string_member (details, "plugin"), ==, "beta");
    issues = json_object_get_array_member (details, "issues");
    for (guint i = 0; i < json_array_get_length (issues); i++)
      g_string_append_printf (fields, "%s;", json_object_get_string_member (json_array_get_object_element (issues, i), "field"));
    g_assert_cmpstr (fields->str, ==, "count;mode;extra;");
    g_assert_cmpstr (events->str, ==, "");
    assert_gone (dispatcher, alpha);
    assert_gone (dispatcher, beta);
    assert_no_plugins (dispatcher);
  }

  /* Not an object. */
  {
    g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_OK, NULL, schema);
    StwPlugin *plugins[] = { beta, NULL };

    assert_refused (plugins, "{\"beta\":[1]}", STW_ERROR_PLUGIN_CONFIG_INVALID, "JSON object", "");
  }

  /* A plugin without a schema takes no configuration. */
  {
    g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    StwPlugin *plugins[] = { alpha, NULL };

    assert_refused (plugins, "{\"alpha\":{\"x\":1}}", STW_ERROR_PLUGIN_CONFIG_INVALID,
                    "takes no configuration", "");
  }
}

static void
test_refuse_clash (void)
{
  /* The same name twice in one load. */
  {
    g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    g_autoptr(StwPlugin) again = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    StwPlugin *plugins[] = { alpha, again, NULL };

    assert_refused (plugins, NULL, STW_ERROR_PLUGIN_MANIFEST_INVALID, "asked for twice", "");
  }

  /* A name already loaded: the loaded one stays, whole. */
  {
    g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
    g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    g_autoptr(StwPlugin) again = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    StwPlugin *first[] = { alpha, NULL };
    StwPlugin *second[] = { again, NULL };
    g_autoptr(GError) error = NULL;

    g_assert_true (add_plugins (dispatcher, first, NULL, NULL));
    g_assert_false (add_plugins (dispatcher, second, NULL, &error));
    g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN_MANIFEST_INVALID);
    g_assert_true (stw_dispatcher_lookup_plugin (dispatcher, "alpha") == alpha);
    g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, "alpha_ping"));
    g_assert_true (stw_error_registry_contains (stw_error_registry_get_default (), "alpha.NO_THING"));
    g_assert_cmpuint (TEST_PLUGIN (again)->n_loaded, ==, 0);
    g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
    assert_gone (dispatcher, alpha);
  }

  /* A tool name taken: set up, then refused, torn down in reverse. */
  {
    g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
    g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_OK_LATER, NULL, NULL);
    g_autoptr(StwTool) squatter = stw_test_tool_new_echo ("beta_ping");
    StwPlugin *plugins[] = { alpha, beta, NULL };
    g_autoptr(GError) error = NULL;

    g_assert_true (stw_dispatcher_add_tool (dispatcher, squatter, NULL));
    reset_events ();
    g_assert_false (add_plugins (dispatcher, plugins, NULL, &error));
    g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN_MANIFEST_INVALID);
    g_assert_nonnull (strstr (error->message, "beta_ping"));
    g_assert_cmpstr (events->str, ==, "setup:alpha setup:beta teardown:beta teardown:alpha");
    assert_gone (dispatcher, alpha);
    g_assert_null (stw_dispatcher_lookup_provider (dispatcher, "beta"));
    g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "beta.NO_THING"));
    g_assert_cmpuint (g_signal_handler_find (dispatcher, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, beta), ==, 0);
    g_assert_true (stw_dispatcher_lookup_tool (dispatcher, "beta_ping") == squatter);
    assert_no_plugins (dispatcher);
  }
}

static void
test_refuse_setup (void)
{
  /* Failing at once: the ones before are torn down in reverse order. */
  {
    g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_OK_LATER, NULL, NULL);
    g_autoptr(StwPlugin) gamma = test_plugin_new ("gamma", SETUP_FAIL, NULL, NULL);
    g_autoptr(StwPlugin) delta = test_plugin_new ("delta", SETUP_OK, NULL, NULL);
    StwPlugin *plugins[] = { alpha, beta, gamma, delta, NULL };

    assert_refused (plugins, NULL, STW_ERROR_PLUGIN_LOAD_FAILED,
                    "Plugin “gamma”: its setup failed: the flux capacitor is missing",
                    "setup:alpha setup:beta setup:gamma teardown:beta teardown:alpha");
  }

  /* Failing later, with a code of its own: the code stays. */
  {
    g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK_LATER, NULL, NULL);
    g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_FAIL_LATER, NULL, NULL);
    StwPlugin *plugins[] = { alpha, beta, NULL };

    assert_refused (plugins, NULL, STW_ERROR_NOT_IMPLEMENTED, "Plugin “beta”: its setup failed: not today",
                    "setup:alpha setup:beta teardown:alpha");
  }

  /* Never completing, letting go of the completion: a failure, not a hang. */
  {
    g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
    g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_DROP, NULL, NULL);
    StwPlugin *plugins[] = { alpha, beta, NULL };

    assert_refused (plugins, NULL, STW_ERROR_PLUGIN_LOAD_FAILED,
                    "Plugin “beta”: its setup failed: it let go of its completion without returning",
                    "setup:alpha setup:beta teardown:alpha");
  }
}

/* A load under way refuses another one on the same dispatcher. */
static void
test_refuse_busy (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK_LATER, NULL, NULL);
  g_autoptr(StwPlugin) beta = test_plugin_new ("beta", SETUP_OK, NULL, NULL);
  g_autoptr(GList) first = g_list_append (NULL, alpha);
  StwPlugin *second[] = { beta, NULL };
  StwTestResult wait = { NULL };
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  stw_dispatcher_add_plugins_async (dispatcher, first, NULL, NULL, stw_test_result_cb, &wait);
  g_assert_false (add_plugins (dispatcher, second, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PENDING);
  g_clear_error (&error);
  result = stw_test_wait_result (&wait, 5000);
  g_assert_true (stw_dispatcher_add_plugins_finish (dispatcher, result, &error));
  g_assert_no_error (error);
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
  assert_gone (dispatcher, beta);
}

/* Plugin files and the C loader {{{1 */

static char *
write_plugin_file (const char *dir,
                   const char *file,
                   const char *contents)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static void
assert_load_refused (const char * const *specs,
                     const char         *configs_json,
                     StwError            code,
                     const char         *needle)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(JsonObject) configs = configs_json ? stw_test_json_object_from (configs_json) : NULL;
  g_autoptr(GError) error = NULL;
  GList *loaded;
  g_autoptr(GList) tools = NULL;

  loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, configs, NULL, &error);
  g_assert_null (loaded);
  g_assert_error (error, STW_ERROR, (int) code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, needle));
  g_assert_null (strchr (error->message, '\n'));
  assert_no_plugins (dispatcher);
  g_assert_null (stw_dispatcher_lookup_provider (dispatcher, "sample"));
  tools = stw_dispatcher_list_tools (dispatcher);
  g_assert_null (tools);
  g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "sample.NO_WINDOW"));
}

static void
test_files_refused (void)
{
  g_autofree char *dir = g_dir_make_tmp ("stw-plugin-XXXXXX", NULL);
  g_autofree char *sample_dir = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", NULL);
  g_autofree char *path_env = g_strconcat (dir, ":", sample_dir, NULL);
  g_autofree char *no_module = NULL;
  g_autofree char *bad_group = NULL;
  g_autofree char *mismatch = NULL;
  g_autofree char *py = NULL;
  g_autofree char *gjs = NULL;
  g_autofree char *no_so = NULL;
  g_autofree char *wrong_name = NULL;
  g_autofree char *no_core = NULL;

  g_setenv ("STAGEWRIGHT_PLUGIN_PATH", path_env, TRUE);

  no_module = write_plugin_file (dir, "nomodule.plugin", "[Plugin]\nVersion=1\nX-Stagewright-Core=*\n");
  bad_group = write_plugin_file (dir, "garbage.plugin", "this is no key file\n");
  mismatch = write_plugin_file (dir, "future.plugin",
                                "[Plugin]\nModule=future\nVersion=1\nX-Stagewright-Core=>=99.0\n");
  py = write_plugin_file (dir, "snake.plugin",
                          "[Plugin]\nModule=snake\nLoader=python3\nVersion=1\nX-Stagewright-Core=*\n");
  gjs = write_plugin_file (dir, "script.plugin",
                           "[Plugin]\nModule=script\nLoader=gjs\nVersion=1\nX-Stagewright-Core=*\n");
  no_so = write_plugin_file (dir, "ghost.plugin",
                             "[Plugin]\nModule=ghost\nVersion=1\nX-Stagewright-Core=*\n");
  wrong_name = write_plugin_file (dir, "renamed.plugin",
                                  "[Plugin]\nModule=sample\nVersion=1.0.0\nX-Stagewright-Core=*\n");
  no_core = write_plugin_file (dir, "nocore.plugin", "[Plugin]\nModule=nocore\nVersion=1\n");

  /* A missing plugin, after a good one: nothing loads. */
  {
    const char *specs[] = { "sample", "nosuch", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_LOAD_FAILED, "Plugin “nosuch”: no nosuch.plugin in");
  }
  {
    const char *specs[] = { "sample", "relative/sample.plugin", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_LOAD_FAILED, "absolute path");
  }
  {
    const char *specs[] = { "sample", "Bad-Name", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_LOAD_FAILED, "^[a-z][a-z0-9]*$");
  }
  /* Bad manifests. */
  {
    const char *specs[] = { "sample", no_module, NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_MANIFEST_INVALID, "Module must match");
  }
  {
    const char *specs[] = { "sample", bad_group, NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_MANIFEST_INVALID, "cannot read");
  }
  {
    const char *specs[] = { "nocore", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_MANIFEST_INVALID, "lacks [Plugin] X-Stagewright-Core");
  }
  {
    const char *specs[] = { "renamed", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_MANIFEST_INVALID, "names the module “sample”");
  }
  /* The version, before any code of the plugin runs. */
  {
    const char *specs[] = { "sample", "future", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_VERSION_MISMATCH,
                         "Plugin “future”: it needs Stagewright >=99.0");
  }
  /* Loaders that are not installed: said, not faked. (This program links
   * the library statically: a loader, which links the shared one, is not
   * for it; tests/e2e/plugins.test.mjs and the gi tests load them.) */
  g_setenv ("STAGEWRIGHT_LOADER_DIR", dir, TRUE);
  {
    const char *specs[] = { "sample", "snake", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_LOAD_FAILED,
                         "Plugin “snake”: the python3 loader is not installed");
  }
  {
    const char *specs[] = { "sample", "script", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_LOAD_FAILED,
                         "Plugin “script”: the gjs loader is not installed");
  }
  g_unsetenv ("STAGEWRIGHT_LOADER_DIR");
  /* A module that cannot be loaded. */
  {
    const char *specs[] = { "sample", "ghost", NULL };

    assert_load_refused (specs, NULL, STW_ERROR_PLUGIN_LOAD_FAILED, "Plugin “ghost”: cannot load its module");
  }
  /* The sample's configuration failing its schema. */
  {
    const char *specs[] = { "sample", NULL };

    assert_load_refused (specs, "{\"sample\":{\"prefix\":7}}", STW_ERROR_PLUGIN_CONFIG_INVALID,
                         "invalid configuration prefix");
  }

  g_unsetenv ("STAGEWRIGHT_PLUGIN_PATH");
  g_remove (no_module);
  g_remove (bad_group);
  g_remove (mismatch);
  g_remove (py);
  g_remove (gjs);
  g_remove (no_so);
  g_remove (wrong_name);
  g_remove (no_core);
  g_rmdir (dir);
}

/* The C sample, by name and by path. */
static void
test_sample (void)
{
  g_autofree char *sample_dir = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", NULL);
  g_autofree char *sample_path = g_build_filename (sample_dir, "sample.plugin", NULL);
  const char *by_name[] = { "sample", NULL };
  const char *by_path[] = { sample_path, NULL };
  const char * const *specs[] = { by_name, by_path };

  g_setenv ("STAGEWRIGHT_PLUGIN_PATH", sample_dir, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
      g_autoptr(JsonObject) configs = stw_test_json_object_from ("{\"sample\":{\"prefix\":\"» \",\"apiKey\":\"k\"}}");
      g_autoptr(GError) error = NULL;
      g_autolist(StwPlugin) loaded = NULL;
      StwPlugin *sample;
      guint http = 0;
      gboolean retryable = FALSE;

      loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs[i], configs, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (g_list_length (loaded), ==, 1);
      sample = loaded->data;
      g_assert_cmpstr (stw_tool_provider_get_name (STW_TOOL_PROVIDER (sample)), ==, "sample");
      g_assert_cmpstr (stw_plugin_get_version (sample), ==, "1.0.0");
      g_assert_cmpstr (stw_plugin_get_core_versions (sample), ==, ">=0.1");
      g_assert_cmpstr (stw_plugin_get_description (sample), ==,
                       "Reads the title of the driven app's active window.");
      g_assert_true (stw_plugin_is_loaded (sample));
      g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, "sample_title"));
      g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (), "sample.TITLE_MISMATCH",
                                                &http, &retryable, NULL));
      g_assert_cmpuint (http, ==, 409);
      g_assert_true (retryable);

      /* No app: the core's refusal, before the tool runs. */
      {
        g_autoptr(JsonObject) envelope = call (dispatcher, "sample_title", "{}");

        g_assert_cmpstr (envelope_code (envelope), ==, "NOT_RUNNING");
      }
      {
        g_autoptr(JsonObject) envelope = call (dispatcher, "electron_plugins", "{}");
        JsonObject *entry = json_array_get_object_element (json_object_get_array_member (envelope, "plugins"), 0);

        g_assert_cmpstr (json_object_get_string_member (entry, "language"), ==, "c");
        stw_test_assert_json_equal (json_object_get_member (entry, "errorCodes"),
                                    "[\"sample.NO_WINDOW\",\"sample.TITLE_MISMATCH\"]");
        stw_test_assert_json_equal (json_object_get_member (entry, "effectiveConfig"), "{\"prefix\":\"» \"}");
      }

      g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
      g_assert_no_error (error);
      assert_no_plugins (dispatcher);
      g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "sample_title"));
      g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "sample.NO_WINDOW"));
    }
  g_unsetenv ("STAGEWRIGHT_PLUGIN_PATH");
}

/* Replay maps refs by the order they were given {{{1 */

static void
test_trace_replay_refs (void)
{
  g_autofree char *trace_file = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "trace.plugin", NULL);
  g_autofree char *dir = g_dir_make_tmp ("stw-refs-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "refs.jsonl", NULL);
  g_autofree char *start_args = g_strdup_printf ("{\"path\":\"%s\"}", path);
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwSchema) input = stw_schema_new_from_string ("{\"type\":\"object\"}", NULL);
  const char *codes[] = { "REF_NOT_FOUND", NULL };
  g_autoptr(StwTool) refs = g_object_new (TEST_TYPE_REF_TOOL, "name", "demo_refs", "description", "Gives refs.",
                                          "input-schema", input, NULL);
  g_autoptr(StwTool) use = g_object_new (TEST_TYPE_REF_TOOL, "name", "demo_use", "description", "Takes a ref.",
                                         "input-schema", input, "error-codes", codes, NULL);
  g_autoptr(GError) error = NULL;
  const char *specs[] = { trace_file, NULL };
  g_autolist(StwPlugin) loaded = NULL;

  ref_issued = 0;
  stw_dispatcher_set_app_root (dispatcher, dir);
  g_assert_true (stw_dispatcher_add_tool (dispatcher, refs, NULL));
  g_assert_true (stw_dispatcher_add_tool (dispatcher, use, NULL));
  loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, NULL, NULL, &error);
  g_assert_no_error (error);

  /* Recorded: refs 1 and 2, then 2 used. */
  {
    g_autoptr(JsonObject) started = call (dispatcher, "trace_start", start_args);

    g_assert_true (json_object_get_boolean_member (started, "ok"));
  }
  {
    g_autoptr(JsonObject) given = call (dispatcher, "demo_refs", "{}");
    g_autoptr(JsonObject) used = call (dispatcher, "demo_use", "{\"ref\":2}");

    g_assert_true (json_object_get_boolean_member (given, "ok"));
    g_assert_true (json_object_get_boolean_member (used, "ok"));
  }
  {
    g_autoptr(JsonObject) stopped = call (dispatcher, "trace_stop", "{}");

    g_assert_cmpint (json_object_get_int_member (stopped, "records"), ==, 2);
  }

  /* Replayed: refs 3 and 4 now; the recorded 2 is the replayed 4. */
  {
    g_autofree char *replay_args = g_strdup_printf ("{\"path\":\"%s\"}", path);
    g_autoptr(JsonObject) replay = call (dispatcher, "trace_replay", replay_args);

    g_assert_true (json_object_get_boolean_member (replay, "ok"));
    g_assert_cmpint (json_object_get_int_member (replay, "matched"), ==, 2);
    g_assert_cmpint (json_object_get_int_member (replay, "mismatched"), ==, 0);
    g_assert_cmpint (ref_issued, ==, 4);
  }
  /* The recording is untouched: it still names ref 2. */
  {
    g_autofree char *text = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "\"args\":{\"ref\":2}"));
  }

  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_remove (path);
  g_rmdir (dir);
}

/* The trace plugin's first slice {{{1 */

static GPtrArray *
read_lines (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_null (strstr (text, "hunter2"));
  g_assert_null (strstr (text, "tok-xyz"));
  g_assert_true (g_str_has_suffix (text, "\n"));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    g_ptr_array_add (records, stw_test_json_object_from (lines[i]));
  return records;
}

/* The trace's dispatcher: demo_echo, the trace plugin loaded, recording
 * to @path. */
static StwDispatcher *
tracing_dispatcher (const char  *dir,
                    const char  *path,
                    GList      **loaded)
{
  g_autofree char *trace_file = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "trace.plugin", NULL);
  g_autofree char *start_args = g_strdup_printf ("{\"path\":\"%s\"}", path);
  g_autoptr(StwTool) echo = stw_test_tool_new_echo ("demo_echo");
  StwDispatcher *dispatcher = stw_dispatcher_new ();
  g_autoptr(GError) error = NULL;
  const char *specs[] = { trace_file, NULL };

  stw_dispatcher_set_app_root (dispatcher, dir);
  g_assert_true (stw_dispatcher_add_tool (dispatcher, echo, NULL));
  *loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, NULL, NULL, &error);
  g_assert_no_error (error);
  {
    g_autoptr(JsonObject) started = call (dispatcher, "trace_start", start_args);

    g_assert_true (json_object_get_boolean_member (started, "ok"));
  }
  return dispatcher;
}

/* As the recording writes it: json-glib, with U+001F escaped. */
static gsize
json_length (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = json_to_string (node, FALSE);
  gsize length = strlen (text);

  for (const char *p = text; *p != '\0'; p++)
    if (*p == 0x1f)
      length += 5;
  return length;
}

/* Tokens are bytes / 4 of the arguments and the answer as JSON, counted
 * without writing them out: escapes, numbers, nesting as json-glib
 * writes them. And a string holding U+001F (which json-glib 1.6 writes
 * raw and cannot read back) leaves a readable recording. */
static void
test_trace_tokens (void)
{
  g_autofree char *dir = g_dir_make_tmp ("stw-tok-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tokens.jsonl", NULL);
  g_autolist(StwPlugin) loaded = NULL;
  g_autoptr(StwDispatcher) dispatcher = tracing_dispatcher (dir, path, &loaded);
  static const char * const payloads[] = {
    "{\"message\":\"hi\"}",
    "{\"message\":\"tab\\there \\\"quoted\\\" back\\\\slash \\u0001\\u001f\\u007f \\n\\r\\b\\f é ✓\","
    "\"count\":1234567890,\"data\":{\"neg\":-9223372036854775807,\"zero\":0,\"pi\":3.25,"
    "\"third\":0.1,\"whole\":3.0,\"big\":1e300,\"tiny\":-2.5e-300,\"on\":true,\"off\":false,"
    "\"none\":null,\"list\":[],\"empty\":{},\"nested\":[[1,[2,{\"k\":\"v\"}]],\"\"]}}",
    NULL
  };
  g_autoptr(GPtrArray) expected = g_ptr_array_new ();
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GError) error = NULL;
  guint calls = 0;

  for (guint i = 0; payloads[i] != NULL; i++)
    {
      g_autoptr(JsonObject) arguments = stw_test_json_object_from (payloads[i]);
      g_autoptr(JsonObject) envelope = call (dispatcher, "demo_echo", payloads[i]);

      g_assert_true (json_object_get_boolean_member (envelope, "ok"));
      g_ptr_array_add (expected, GSIZE_TO_POINTER ((json_length (arguments) + json_length (envelope) + 3) / 4));
    }
  {
    g_autoptr(JsonObject) stopped = call (dispatcher, "trace_stop", "{}");

    g_assert_true (json_object_get_boolean_member (stopped, "ok"));
  }
  records = read_lines (path);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = g_ptr_array_index (records, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (record, "type", NULL), "call") != 0)
        continue;
      g_assert_cmpuint (calls, <, expected->len);
      g_assert_cmpint (json_object_get_int_member (record, "tokens"), ==,
                       (gint64) GPOINTER_TO_SIZE (g_ptr_array_index (expected, calls)));
      calls++;
    }
  g_assert_cmpuint (calls, ==, expected->len);

  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_remove (path);
  g_rmdir (dir);
}

/* The recording streams: over 10,000 traced calls the process does not
 * grow (under valgrind, fewer calls and memcheck's leak check instead),
 * and every call is on disk before the stop. */
static void
test_trace_flat_memory (void)
{
  g_autofree char *dir = g_dir_make_tmp ("stw-mem-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "many.jsonl", NULL);
  g_autofree char *partial = g_strconcat (path, ".partial", NULL);
  g_autolist(StwPlugin) loaded = NULL;
  g_autoptr(StwDispatcher) dispatcher = tracing_dispatcher (dir, path, &loaded);
  g_autoptr(GString) arguments = g_string_new ("{\"message\":\"");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint total = stw_test_running_on_valgrind () ? 1000 : 10000;
  guint warm = total / 10;
  gint64 rss_warm = 0;
  gint64 rss_end;
  gsize lines = 0;

  /* About 1 kB a call each way: a record kept per call would show. */
  for (guint i = 0; i < 100; i++)
    g_string_append (arguments, "0123456789");
  g_string_append (arguments, "\"}");
  for (guint i = 0; i < total; i++)
    {
      g_autoptr(JsonObject) envelope = call (dispatcher, "demo_echo", arguments->str);

      g_assert_true (json_object_get_boolean_member (envelope, "ok"));
      if (i + 1 == warm)
        rss_warm = stw_test_rss_kib ();
    }
  rss_end = stw_test_rss_kib ();
  g_test_message ("%u traced calls: RSS %" G_GINT64_FORMAT " KiB after %u, %" G_GINT64_FORMAT " KiB after %u",
                  total, rss_warm, warm, rss_end, total);
  if (!stw_test_running_on_valgrind ())
    g_assert_cmpint (rss_end - rss_warm, <, 1024);

  g_assert_true (g_file_get_contents (partial, &text, NULL, NULL));
  for (const char *p = text; (p = strchr (p, '\n')) != NULL; p++)
    lines++;
  g_assert_cmpuint (lines, ==, 1 + total);   /* the header, then the calls */

  {
    g_autoptr(JsonObject) stopped = call (dispatcher, "trace_stop", "{}");

    g_assert_cmpint (json_object_get_int_member (stopped, "records"), ==, total);
  }
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_remove (path);
  g_rmdir (dir);
}

static void
test_trace (void)
{
  g_autofree char *trace_file = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "trace.plugin", NULL);
  g_autofree char *dir = g_dir_make_tmp ("stw-trace-XXXXXX", NULL);
  g_autofree char *root = g_build_filename (dir, "root", NULL);
  g_autofree char *path = g_build_filename (root, "run.jsonl", NULL);
  g_autofree char *partial = g_strconcat (path, ".partial", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside.jsonl", NULL);
  g_autofree char *start_args = g_strdup_printf ("{\"path\":\"%s\"}", path);
  g_autofree char *outside_args = g_strdup_printf ("{\"path\":\"%s\"}", outside);
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwTool) echo = stw_test_tool_new_echo ("demo_echo");
  g_autoptr(StwPlugin) alpha = test_plugin_new ("alpha", SETUP_OK, NULL, NULL);
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GError) error = NULL;
  const char *specs[] = { trace_file, NULL };
  StwPlugin *plugins[] = { alpha, NULL };
  g_autolist(StwPlugin) loaded = NULL;
  JsonObject *record;

  g_assert_cmpint (g_mkdir (root, 0700), ==, 0);
  stw_dispatcher_set_app_root (dispatcher, root);
  g_assert_true (stw_dispatcher_add_tool (dispatcher, echo, NULL));
  g_assert_true (add_plugins (dispatcher, plugins, NULL, NULL));
  loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, NULL, NULL, &error);
  g_assert_no_error (error);

  /* Confined to the app root; nothing recording yet. */
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "trace_start", outside_args);

    g_assert_cmpstr (envelope_code (envelope), ==, "BAD_ARGUMENT");
    g_assert_false (g_file_test (outside, G_FILE_TEST_EXISTS));
  }
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "trace_stop", "{}");

    g_assert_cmpstr (envelope_code (envelope), ==, "trace.NOT_RECORDING");
  }

  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "trace_start", start_args);

    g_assert_true (json_object_get_boolean_member (envelope, "ok"));
    g_assert_true (g_file_test (partial, G_FILE_TEST_IS_REGULAR));
  }
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "trace_start", start_args);

    g_assert_cmpstr (envelope_code (envelope), ==, "trace.ALREADY_RECORDING");
  }
  g_clear_pointer (&records, g_ptr_array_unref);
  {
    g_autoptr(JsonObject) a = call (dispatcher, "demo_echo",
                                    "{\"message\":\"hi\",\"data\":{\"password\":\"hunter2\","
                                    "\"nested\":{\"apiToken\":\"tok-xyz\"},\"keep\":1}}");
    g_autoptr(JsonObject) b = call (dispatcher, "alpha_fail", "{}");
  }
  /* Streamed: the calls are in the .partial file before the stop. */
  records = read_lines (partial);
  g_assert_cmpuint (records->len, ==, 3);
  g_clear_pointer (&records, g_ptr_array_unref);
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "trace_status", "{}");

    g_assert_true (json_object_get_boolean_member (envelope, "recording"));
    g_assert_cmpint (json_object_get_int_member (envelope, "records"), ==, 2);
  }
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "trace_stop", "{}");

    g_assert_cmpint (json_object_get_int_member (envelope, "records"), ==, 2);
  }
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));

  records = read_lines (path);
  g_assert_cmpuint (records->len, ==, 4);
  record = g_ptr_array_index (records, 0);
  g_assert_cmpstr (json_object_get_string_member (record, "type"), ==, "header");
  g_assert_cmpstr (json_object_get_string_member (record, "format"), ==, "stagewright-trace");
  record = g_ptr_array_index (records, 1);
  g_assert_cmpstr (json_object_get_string_member (record, "tool"), ==, "demo_echo");
  g_assert_cmpint (json_object_get_int_member (record, "seq"), ==, 1);
  g_assert_true (json_object_get_boolean_member (record, "ok"));
  stw_test_assert_json_equal (json_object_get_member (record, "args"),
                              "{\"message\":\"hi\",\"data\":{\"password\":\"[REDACTED]\","
                              "\"nested\":{\"apiToken\":\"[REDACTED]\"},\"keep\":1}}");
  g_assert_cmpuint (strlen (json_object_get_string_member (record, "argsSha256")), ==, 64);
  record = g_ptr_array_index (records, 2);
  g_assert_cmpstr (json_object_get_string_member (record, "tool"), ==, "alpha_fail");
  g_assert_false (json_object_get_boolean_member (record, "ok"));
  g_assert_cmpstr (json_object_get_string_member (record, "code"), ==, "alpha.NO_THING");
  record = g_ptr_array_index (records, 3);
  g_assert_cmpstr (json_object_get_string_member (record, "type"), ==, "footer");
  g_assert_cmpint (json_object_get_int_member (record, "records"), ==, 2);

  /* Unloading ends a running recording, and takes the handler with it. */
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "trace_start", start_args);

    g_assert_true (json_object_get_boolean_member (envelope, "ok"));
  }
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));
  g_clear_pointer (&records, g_ptr_array_unref);
  records = read_lines (path);
  g_assert_cmpuint (records->len, ==, 2);
  g_assert_cmpuint (g_signal_handler_find (dispatcher, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, loaded->data), ==, 0);
  g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "trace.NOT_RECORDING"));

  g_remove (path);
  g_rmdir (root);
  g_rmdir (dir);
}


static void
seam_count_event (guint      *n,
                  const char *method,
                  JsonObject *params)
{
  (*n)++;
}

static gboolean
wait_counter (const guint *counter,
              guint        at_least,
              guint        timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (*counter < at_least && g_get_monotonic_time () < end)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  return *counter >= at_least;
}

/* --- the seams (issue 17, item 6) ----------------------------------------- */

#define SEAM_TYPE_PLUGIN (seam_plugin_get_type ())
G_DECLARE_FINAL_TYPE (SeamPlugin, seam_plugin, SEAM, PLUGIN, StwPlugin)

struct _SeamPlugin
{
  StwPlugin  parent_instance;
  guint      n_surfaces;
  guint      n_before;
  guint      n_ready;
  char      *ready_mark;      /* the launch option the app-ready hook saw */
  gboolean   ready_had_session;
};

G_DEFINE_FINAL_TYPE (SeamPlugin, seam_plugin, STW_TYPE_PLUGIN)

static gboolean
complete_later (gpointer user_data)
{
  g_autoptr(StwPluginCompletion) completion = user_data;

  stw_plugin_completion_return_success (completion);
  return G_SOURCE_REMOVE;
}

static void
on_seam_script_added (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(StwPluginCompletion) completion = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);

  g_assert_no_error (error);
  g_assert_true (json_object_has_member (reply, "identifier"));
  /* Complete later still: the page must wait for the hook, not a race. */
  g_timeout_add (200, complete_later, g_steal_pointer (&completion));
}

static void
seam_plugin_surface_attached (StwPlugin           *plugin,
                              StwPluginCompletion *completion)
{
  SeamPlugin *self = SEAM_PLUGIN (plugin);
  StwSurface *surface = stw_plugin_completion_get_surface (completion);
  g_autoptr(JsonObject) params = json_object_new ();

  g_assert_nonnull (surface);
  g_assert_nonnull (stw_plugin_completion_get_session (completion));
  self->n_surfaces++;
  json_object_set_string_member (params, "source", "window.__hookMark = performance.now();");
  stw_surface_send_cdp_async (surface, "Page.addScriptToEvaluateOnNewDocument", params, NULL,
                              on_seam_script_added, g_object_ref (completion));
}

static void
seam_plugin_before_main (StwPlugin           *plugin,
                         StwPluginCompletion *completion)
{
  JsonObject *options = stw_plugin_completion_get_launch_options (completion);

  SEAM_PLUGIN (plugin)->n_before++;
  g_assert_null (stw_plugin_completion_get_session (completion));
  /* Before the process starts: the hook may still change the launch. */
  if (options != NULL && json_object_has_member (options, "mark"))
    stw_launch_options_setenv (stw_plugin_completion_get_launch (completion), "STW_SEAM_MARK",
                               json_object_get_string_member (options, "mark"));
  stw_plugin_completion_return_success (completion);
}

static void
seam_plugin_app_ready (StwPlugin           *plugin,
                       StwPluginCompletion *completion)
{
  SeamPlugin *self = SEAM_PLUGIN (plugin);
  JsonObject *options = stw_plugin_completion_get_launch_options (completion);

  self->n_ready++;
  self->ready_had_session = stw_plugin_completion_get_session (completion) != NULL;
  g_free (self->ready_mark);
  self->ready_mark = options ? g_strdup (json_object_get_string_member_with_default (options, "mark", NULL)) : NULL;
  stw_plugin_completion_return_success (completion);
}

static void
seam_plugin_finalize (GObject *object)
{
  g_free (SEAM_PLUGIN (object)->ready_mark);
  G_OBJECT_CLASS (seam_plugin_parent_class)->finalize (object);
}

static void
seam_plugin_class_init (SeamPluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = seam_plugin_finalize;
  STW_PLUGIN_CLASS (klass)->surface_attached = seam_plugin_surface_attached;
  STW_PLUGIN_CLASS (klass)->before_main = seam_plugin_before_main;
  STW_PLUGIN_CLASS (klass)->app_ready = seam_plugin_app_ready;
}

static void
seam_plugin_init (SeamPlugin *self)
{
  g_autoptr(StwSchema) schema = stw_schema_new_from_string ("{\"type\":\"object\",\"additionalProperties\":false,"
                                                            "\"properties\":{\"mark\":{\"type\":\"string\"}}}",
                                                            NULL);

  stw_plugin_set_launch_schema (STW_PLUGIN (self), schema);
}

static JsonNode *
evaluate (StwSession *session,
          gboolean    main_process,
          const char *expression)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };
  JsonNode *value;

  if (main_process)
    stw_session_evaluate_main_async (session, expression, NULL, stw_test_result_cb, &wait);
  else
    stw_session_evaluate_renderer_async (session, expression, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 20000);
  value = main_process ? stw_session_evaluate_main_finish (session, result, &error)
                       : stw_session_evaluate_renderer_finish (session, result, &error);
  g_assert_no_error (error);
  return value;
}

static void
on_seam_launch_done (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  JsonObject **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = stw_dispatcher_invoke_finish (STW_DISPATCHER (object), result, &error);
  g_assert_no_error (error);
}

static gboolean
electron_available (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);

  return g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) &&
         g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE);
}

/* A plugin's new-surface hook runs while the window waits before its first
 * script; its launch option joins electron_launch's schema and reaches its
 * launch hooks; CDP access and the isolated world answer. */
static void
test_seams_hooks (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(SeamPlugin) seam = g_object_new (SEAM_TYPE_PLUGIN, "name", "seams", "version", "1",
                                             "core-versions", "*", NULL);
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  g_autoptr(GList) plugins = g_list_append (NULL, seam);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) launch_args = json_object_new ();
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(JsonNode) first = NULL;
  g_autoptr(JsonNode) env = NULL;
  StwSession *session;
  StwSurface *window;
  JsonNode *launch_schema;
  g_autofree char *schema_text = NULL;

  if (!electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }
  stw_dispatcher_add_core_tools (dispatcher);
  g_assert_false (json_object_has_member (json_object_get_object_member (
    json_node_get_object (stw_schema_get_node (stw_tool_get_input_schema (stw_dispatcher_lookup_tool (dispatcher, "electron_launch")))),
    "properties"), "plugins"));

  stw_dispatcher_add_plugins_sync (dispatcher, plugins, NULL, NULL, &error);
  g_assert_no_error (error);

  /* The launch option is in electron_launch's schema, under plugins.seams. */
  launch_schema = stw_schema_get_node (stw_tool_get_input_schema (stw_dispatcher_lookup_tool (dispatcher, "electron_launch")));
  schema_text = stw_test_to_json (launch_schema);
  g_assert_nonnull (strstr (schema_text, "\"plugins\":{\"type\":\"object\""));
  g_assert_nonnull (strstr (schema_text, "\"seams\":{\"type\":\"object\",\"additionalProperties\":false,"
                                         "\"properties\":{\"mark\":{\"type\":\"string\"}}}"));
  {
    /* … and validated there: a wrong type is refused before any launch. */
    g_autoptr(JsonObject) refused = call (dispatcher, "electron_launch", "{\"plugins\":{\"seams\":{\"mark\":7}}}");

    g_assert_cmpstr (envelope_code (refused), ==, "BAD_ARGUMENT");
    g_assert_cmpuint (seam->n_before, ==, 0);
  }

  json_object_set_string_member (launch_args, "executablePath", electron);
  json_object_set_string_member (launch_args, "main", app);
  {
    JsonArray *args = json_array_new ();
    JsonObject *plugin_options = json_object_new ();
    JsonObject *mine = json_object_new ();

    json_array_add_string_element (args, "--page=first-script");
    json_object_set_array_member (launch_args, "args", args);
    json_object_set_string_member (mine, "mark", "seam-mark-42");
    json_object_set_object_member (plugin_options, "seams", mine);
    json_object_set_object_member (launch_args, "plugins", plugin_options);
  }
  invocation = stw_dispatcher_create_invocation (dispatcher, "electron_launch", launch_args, &error);
  g_assert_no_error (error);
  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, on_seam_launch_done, &envelope);
  while (envelope == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (json_object_get_boolean_member (envelope, "ok"));

  g_assert_cmpuint (seam->n_before, ==, 1);
  g_assert_cmpuint (seam->n_ready, ==, 1);
  g_assert_true (seam->ready_had_session);
  g_assert_cmpstr (seam->ready_mark, ==, "seam-mark-42");
  g_assert_cmpuint (seam->n_surfaces, >=, 1);

  session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (dispatcher),
                                        json_object_get_string_member (envelope, "session_id"));
  g_assert_nonnull (session);
  /* The before-launch hook's change reached the app. */
  env = evaluate (session, TRUE, "process.env.STW_SEAM_MARK");
  g_assert_cmpstr (json_node_get_string (env), ==, "seam-mark-42");

  /* The hook's script ran before the page's first script. Under valgrind
   * the server is so slow that the app opens its window before the
   * launch's auto-attach is set: that window runs already when it
   * attaches, and gets the hook without this guarantee. */
  first = evaluate (session, FALSE, "window.__firstScript");
  g_assert_true (JSON_NODE_HOLDS_OBJECT (first));
  if (stw_test_running_on_valgrind ())
    g_test_message ("under valgrind: the hook ran (%u surfaces); its order against the page's first "
                    "script is not checked", seam->n_surfaces);
  else
  {
    JsonObject *record = json_node_get_object (first);
    JsonNode *mark = json_object_get_member (record, "hookMark");

    g_assert_false (JSON_NODE_HOLDS_NULL (mark));
    g_assert_cmpfloat (json_node_get_double (mark), <=, json_object_get_double_member (record, "at"));
  }

  /* CDP events and the isolated world, through the public seam. */
  window = stw_session_get_active_surface (session);
  {
    g_autoptr(StwCdpSubscription) subscription = stw_surface_subscribe_cdp (window, "Runtime.consoleAPICalled");
    g_autoptr(JsonArray) args = json_array_new ();
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(JsonNode) value = NULL;
    g_autoptr(JsonObject) reply = NULL;
    StwTestResult wait = { 0 };
    guint n_events = 0;

    g_signal_connect_swapped (subscription, "event", G_CALLBACK (seam_count_event), &n_events);
    stw_surface_send_cdp_async (window, "Runtime.enable", NULL, NULL, stw_test_result_cb, &wait);
    result = stw_test_wait_result (&wait, 10000);
    reply = stw_surface_send_cdp_finish (window, result, &error);
    g_assert_no_error (error);
    g_clear_object (&result);
    g_clear_pointer (&reply, json_object_unref);

    json_array_add_int_element (args, 20);
    json_array_add_int_element (args, 22);
    memset (&wait, 0, sizeof wait);
    stw_surface_call_isolated_async (window, "async (a, b) => { console.log('seam', a + b); "
                                     "return { sum: a + b, page: typeof window.__firstScript }; }",
                                     args, NULL, stw_test_result_cb, &wait);
    result = stw_test_wait_result (&wait, 10000);
    value = stw_surface_call_isolated_finish (window, result, &error);
    g_assert_no_error (error);
    /* The isolated world sees the DOM, not the page's globals. */
    stw_test_assert_json_equal (value, "{\"sum\":42,\"page\":\"undefined\"}");
    g_assert_true (wait_counter (&n_events, 1, 5000));

    memset (&wait, 0, sizeof wait);
    g_clear_object (&result);
    stw_surface_send_cdp_async (window, "No.suchMethod", NULL, NULL, stw_test_result_cb, &wait);
    result = stw_test_wait_result (&wait, 10000);
    reply = stw_surface_send_cdp_finish (window, result, &error);
    g_assert_null (reply);
    g_assert_nonnull (error);
    g_clear_error (&error);

    stw_cdp_subscription_cancel (subscription);
  }

  stw_session_force_kill (session);
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  /* Unloaded: electron_launch is the core's again. */
  g_assert_false (json_object_has_member (json_object_get_object_member (
    json_node_get_object (stw_schema_get_node (stw_tool_get_input_schema (stw_dispatcher_lookup_tool (dispatcher, "electron_launch")))),
    "properties"), "plugins"));
}

/* A plugin writes its artifacts through the confined open: inside the app
 * root they land, outside (or through a symlink out) they do not. */
static void
test_seams_confined (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autofree char *root = g_dir_make_tmp ("stw-seam-XXXXXX", NULL);
  g_autofree char *outside = g_dir_make_tmp ("stw-seam-out-XXXXXX", NULL);
  g_autofree char *inside_path = g_build_filename (root, "artifact.txt", NULL);
  g_autofree char *outside_path = g_build_filename (outside, "artifact.txt", NULL);
  g_autofree char *link = g_build_filename (root, "out", NULL);
  g_autofree char *via_link = g_build_filename (root, "out", "artifact.txt", NULL);
  g_autofree char *outside_name = g_path_get_basename (outside);
  g_autofree char *dotdot = g_build_filename (root, "..", outside_name, "artifact.txt", NULL);
  g_autoptr(GError) error = NULL;
  int fd;

  stw_dispatcher_set_app_root (dispatcher, root);
  fd = stw_dispatcher_open_file (dispatcher, inside_path, O_WRONLY | O_CREAT | O_TRUNC, 0600, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "ok", 2), ==, 2);
  close (fd);
  g_assert_true (g_file_test (inside_path, G_FILE_TEST_IS_REGULAR));

  g_assert_cmpint (symlink (outside, link), ==, 0);
  {
    const char *escapes[] = { outside_path, via_link, dotdot };

    for (guint i = 0; i < G_N_ELEMENTS (escapes); i++)
      {
        fd = stw_dispatcher_open_file (dispatcher, escapes[i], O_WRONLY | O_CREAT | O_TRUNC, 0600, &error);
        g_assert_cmpint (fd, ==, -1);
        g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
        g_clear_error (&error);
      }
  }
  g_assert_false (g_file_test (outside_path, G_FILE_TEST_EXISTS));

  g_remove (link);
  g_remove (inside_path);
  g_rmdir (root);
  g_rmdir (outside);
}

int
main (int    argc,
      char **argv)
{
  int status;

  stw_test_init (&argc, &argv);
  events = g_string_new (NULL);

  g_test_add_func ("/plugin/core-versions", test_core_versions);
  g_test_add_func ("/plugin/load-unload", test_load_unload);
  g_test_add_func ("/plugin/dispatcher-gone", test_dispatcher_gone);
  g_test_add_func ("/plugin/list-changed", test_list_changed);
  g_test_add_func ("/plugin/listing-disabled", test_listing_disabled);
  g_test_add_func ("/plugin/refuse/name", test_refuse_name);
  g_test_add_func ("/plugin/refuse/version", test_refuse_version);
  g_test_add_func ("/plugin/refuse/config", test_refuse_config);
  g_test_add_func ("/plugin/refuse/clash", test_refuse_clash);
  g_test_add_func ("/plugin/refuse/setup", test_refuse_setup);
  g_test_add_func ("/plugin/refuse/busy", test_refuse_busy);
  g_test_add_func ("/plugin/files/refused", test_files_refused);
  g_test_add_func ("/plugin/files/sample", test_sample);
  g_test_add_func ("/plugin/trace/record", test_trace);
  g_test_add_func ("/plugin/trace/replay-refs", test_trace_replay_refs);
  g_test_add_func ("/plugin/trace/tokens", test_trace_tokens);
  g_test_add_func ("/plugin/trace/flat-memory", test_trace_flat_memory);
  g_test_add_func ("/plugin/seams/hooks", test_seams_hooks);
  g_test_add_func ("/plugin/seams/confined", test_seams_confined);

  status = g_test_run ();
  g_string_free (events, TRUE);
  return status;
}
