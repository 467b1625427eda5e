/* test-ipc-plugin.c: the ipc plugin loaded into a dispatcher of a C
 * harness linked to the shared library (issue 19, items 1 and 2)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plugin from plugins/built/, through the public API only, blocking
 * (stw_dispatcher_call_json_sync) and asynchronous
 * (stw_dispatcher_invoke_async): without main-process eval its tools are
 * hidden and refused with ipc.EVAL_REQUIRED, also when the tool is invoked
 * directly; with it, on the demo app, a capture sees ipc_invoke, a stub
 * answers instead of the handler, and channels outside the allowlists are
 * refused without their handler running. The plugin's API
 * (StwIpcPlugin, linked from libstagewright-plugins) is the type the
 * loaded module made, called directly with the same checks, and it
 * outlives the plugin's unloading.
 */
#include <string.h>

#include "stw-test-utils.h"

#include <stw-ipc.h>

#define CONFIG "{\"channels\":[\"notes:*\",\"probe:*\"],\"invokeAllow\":[\"notes:load\",\"probe:*\"]," \
               "\"redact\":[\"password\"]}"

static char *
plugin_file (void)
{
  return g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "ipc.plugin", NULL);
}

static gboolean
electron_available (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);

  return g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) &&
         g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE);
}

static JsonObject *
call (StwDispatcher *dispatcher,
      const char    *tool,
      const char    *arguments)
{
  return stw_test_call_json (dispatcher, tool, arguments);
}

/* The same call through stw_dispatcher_invoke_async. */
static JsonObject *
call_async (StwDispatcher *dispatcher,
            const char    *tool,
            const char    *arguments)
{
  g_autoptr(JsonNode) args = stw_test_parse (arguments);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwInvocation) invocation = stw_dispatcher_create_invocation (dispatcher, tool,
                                                                         json_node_get_object (args),
                                                                         &error);
  g_autoptr(GAsyncResult) result = NULL;
  StwTestResult wait = { 0 };
  JsonObject *envelope;

  g_assert_no_error (error);
  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  envelope = stw_dispatcher_invoke_finish (dispatcher, result, &error);
  g_assert_no_error (error);
  return envelope;
}

static JsonObject *
ok (JsonObject *envelope)
{
  if (!json_object_get_boolean_member (envelope, "ok"))
    g_error ("unexpected failure: %s", json_object_get_string_member_with_default (envelope, "error", "?"));
  return envelope;
}

static void
assert_code (JsonObject *envelope,
             const char *code)
{
  g_assert_false (json_object_get_boolean_member (envelope, "ok"));
  g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, code);
}

static GList *
load (StwDispatcher *dispatcher,
      gboolean       async)
{
  g_autofree char *file = plugin_file ();
  const char * const specs[] = { file, NULL };
  g_autoptr(JsonNode) config = stw_test_parse (CONFIG);
  g_autoptr(JsonObject) configs = json_object_new ();
  g_autoptr(GError) error = NULL;
  GList *loaded;

  json_object_set_object_member (configs, "ipc", json_object_ref (json_node_get_object (config)));
  if (async)
    {
      g_autoptr(GAsyncResult) result = NULL;
      StwTestResult wait = { 0 };

      stw_dispatcher_load_plugins_async (dispatcher, specs, configs, NULL, stw_test_result_cb, &wait);
      result = stw_test_wait_result (&wait, 60000);
      loaded = stw_dispatcher_load_plugins_finish (dispatcher, result, &error);
    }
  else
    loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, configs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_length (loaded), ==, 1);
  return loaded;
}

static void
unload (StwDispatcher *dispatcher)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "ipc_invoke"));
  g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "ipc.EVAL_REQUIRED"));
}

/* Without main-process eval: hidden, listed disabled, refused with
 * ipc.EVAL_REQUIRED naming the flag, blocking and async, and by the tool
 * itself when a library caller invokes it directly. */
static void
test_eval_required (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autolist(StwPlugin) loaded = NULL;
  g_autoptr(GList) tools = NULL;
  g_autoptr(JsonObject) blocking = NULL;
  g_autoptr(JsonObject) async = NULL;
  g_autoptr(JsonObject) plugins = NULL;
  g_autoptr(JsonObject) direct = NULL;
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(JsonNode) args = stw_test_parse ("{\"channels\":[\"notes:*\"]}");
  g_autoptr(GError) error = NULL;
  StwTool *tool;
  JsonArray *listed;

  stw_dispatcher_add_core_tools (dispatcher);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_RENDERER);
  loaded = load (dispatcher, FALSE);
  /* The module's plugin is the library's type: one GType per process. */
  g_assert_true (G_OBJECT_TYPE (loaded->data) == STW_TYPE_IPC_PLUGIN);

  tool = stw_dispatcher_lookup_tool (dispatcher, "ipc_capture_start");
  g_assert_nonnull (tool);
  g_assert_false (stw_dispatcher_is_tool_visible (dispatcher, tool));
  tools = stw_dispatcher_list_tools (dispatcher);
  for (GList *l = tools; l != NULL; l = l->next)
    g_assert_false (g_str_has_prefix (stw_tool_get_name (l->data), "ipc_"));

  blocking = call (dispatcher, "ipc_capture_start", "{\"channels\":[\"notes:*\"]}");
  assert_code (blocking, "ipc.EVAL_REQUIRED");
  g_assert_nonnull (strstr (json_object_get_string_member (blocking, "error"), "--allow-eval=main"));
  async = call_async (dispatcher, "ipc_invoke", "{\"channel\":\"notes:load\"}");
  assert_code (async, "ipc.EVAL_REQUIRED");

  plugins = ok (call (dispatcher, "electron_plugins", "{}"));
  listed = json_object_get_array_member (json_array_get_object_element (json_object_get_array_member (plugins, "plugins"), 0),
                                         "tools");
  g_assert_cmpuint (json_array_get_length (listed), ==, 6);
  for (guint i = 0; i < json_array_get_length (listed); i++)
    {
      JsonObject *entry = json_array_get_object_element (listed, i);
      JsonObject *reason = json_object_get_object_member (entry, "disabledReason");

      g_assert_cmpstr (json_object_get_string_member (entry, "state"), ==, "disabled");
      g_assert_cmpstr (json_object_get_string_member (reason, "kind"), ==, "eval_policy_disabled");
      g_assert_cmpstr (json_object_get_string_member (reason, "target"), ==, "main");
    }

  /* Past the dispatcher: the tool refuses on its own. */
  invocation = stw_dispatcher_create_invocation (dispatcher, "ipc_capture_start", json_node_get_object (args), &error);
  g_assert_no_error (error);
  stw_tool_invoke (tool, invocation);
  g_assert_true (stw_invocation_is_completed (invocation));
  direct = json_object_ref (stw_invocation_get_envelope (invocation));
  assert_code (direct, "ipc.EVAL_REQUIRED");

  unload (dispatcher);
  g_clear_list (&loaded, g_object_unref);

  /* The type outlives the unloaded plugin: a new one from the library
   * loads and answers as the module's did. */
  {
    g_autoptr(GList) fresh = g_list_prepend (NULL, stw_ipc_plugin_new ());
    g_autoptr(JsonObject) again = NULL;
    gboolean added = stw_dispatcher_add_plugins_sync (dispatcher, fresh, NULL, NULL, &error);

    g_assert_no_error (error);
    g_assert_true (added);
    again = call (dispatcher, "ipc_capture_start", "{\"channels\":[\"notes:*\"]}");
    assert_code (again, "ipc.EVAL_REQUIRED");
    unload (dispatcher);
    g_list_free_full (g_steal_pointer (&fresh), g_object_unref);
  }
}

static char *
session_args (const char *session_id,
              const char *rest)
{
  return g_strdup_printf ("{\"sessionId\":\"%s\"%s%s}", session_id, rest ? "," : "", rest ? rest : "");
}

/* The plugin's API called directly, blocking and async, with the checks
 * the tools rely on: the eval policy, the allowlists, the redaction. */
static void
test_api (StwDispatcher *dispatcher,
          StwIpcPlugin  *plugin,
          const char    *sid)
{
  StwSession *session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (dispatcher), sid);
  g_autoptr(StwIpcPlugin) alone = stw_ipc_plugin_new ();
  const char * const wipe[] = { "danger:*", NULL };
  const char * const probes[] = { "probe:*", NULL };
  g_autoptr(JsonNode) args = stw_test_parse ("[{\"password\":\"p\",\"n\":2}]");
  g_autoptr(GError) error = NULL;
  g_autoptr(StwIpcCapture) refused = NULL;
  g_autoptr(StwIpcCapture) captured = NULL;
  g_autoptr(StwIpcCapture) stopped = NULL;
  g_autoptr(StwIpcEntry) entry = NULL;
  g_autoptr(JsonNode) echoed = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  StwTestResult wait = { 0 };
  gboolean removed = TRUE;
  JsonObject *value;

  g_assert_nonnull (session);

  /* Outside a dispatcher, or in one that does not allow main eval. */
  refused = stw_ipc_plugin_captured_sync (alone, session, 0, NULL, NULL, &error);
  g_assert_null (refused);
  g_assert_error (error, STW_IPC_ERROR, STW_IPC_ERROR_EVAL_REQUIRED);
  /* The plugin's domain names the wire code. */
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "ipc.EVAL_REQUIRED");
  g_clear_error (&error);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_RENDERER);
  g_assert_false (stw_ipc_plugin_capture_start_sync (plugin, session, probes, FALSE, FALSE, NULL, &error));
  g_assert_error (error, STW_IPC_ERROR, STW_IPC_ERROR_EVAL_REQUIRED);
  g_clear_error (&error);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_MAIN);

  /* The allowlist, async: refused before the app hears of it. */
  stw_ipc_plugin_capture_start_async (plugin, session, wipe, FALSE, FALSE, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  g_assert_false (stw_ipc_plugin_capture_start_finish (plugin, result, &error));
  g_assert_error (error, STW_IPC_ERROR, STW_IPC_ERROR_CHANNEL_NOT_ALLOWED);
  g_clear_error (&error);
  g_clear_object (&result);
  g_assert_false (stw_ipc_plugin_stub_sync (plugin, session, "danger:wipe", NULL, "no", FALSE, NULL, &error));
  g_assert_error (error, STW_IPC_ERROR, STW_IPC_ERROR_CHANNEL_NOT_ALLOWED);
  g_clear_error (&error);

  g_assert_true (stw_ipc_plugin_capture_start_sync (plugin, session, probes, FALSE, FALSE, NULL, &error));
  g_assert_no_error (error);

  /* A stub answers once, then the handler does: both captured. */
  g_assert_true (stw_ipc_plugin_stub_sync (plugin, session, "probe:echo", json_array_get_element (json_node_get_array (args), 0),
                                           NULL, TRUE, NULL, &error));
  g_assert_no_error (error);
  stw_ipc_plugin_invoke_async (plugin, session, "probe:echo", json_node_get_array (args), 0, NULL,
                               stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  echoed = stw_ipc_plugin_invoke_finish (plugin, result, &error);
  g_assert_no_error (error);
  value = json_node_get_object (echoed);
  g_assert_cmpstr (json_object_get_string_member (value, "password"), ==, "[REDACTED]");
  g_assert_cmpint (json_object_get_int_member (value, "n"), ==, 2);
  g_clear_pointer (&echoed, json_node_unref);
  g_clear_object (&result);
  echoed = stw_ipc_plugin_invoke_sync (plugin, session, "probe:echo", json_node_get_array (args), 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (echoed), "n"), ==, 2);
  g_assert_true (stw_ipc_plugin_unstub_sync (plugin, session, "probe:echo", &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (removed);   /* the stub was for one call only */

  captured = stw_ipc_plugin_captured_sync (plugin, session, 10, "probe:echo", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_ipc_capture_get_capturing (captured));
  g_assert_cmpuint (g_list_model_get_n_items (stw_ipc_capture_get_entries (captured)), ==, 2);
  entry = g_list_model_get_item (stw_ipc_capture_get_entries (captured), 0);
  g_assert_cmpstr (stw_ipc_entry_get_channel (entry), ==, "probe:echo");
  g_assert_cmpstr (stw_ipc_entry_get_kind (entry), ==, "invoke");
  g_assert_cmpstr (stw_ipc_entry_get_source (entry), ==, "ipc_invoke");
  g_assert_true (stw_ipc_entry_get_stubbed (entry));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_node_get_array (stw_ipc_entry_get_args (entry)), 0),
                                                  "password"), ==, "[REDACTED]");
  g_clear_object (&entry);
  entry = g_list_model_get_item (stw_ipc_capture_get_entries (captured), 1);
  g_assert_false (stw_ipc_entry_get_stubbed (entry));
  g_assert_cmpfloat (stw_ipc_entry_get_duration_ms (entry), >=, 0);

  stopped = stw_ipc_plugin_capture_stop_sync (plugin, session, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (stw_ipc_capture_get_capturing (stopped));
}

/* With main-process eval, on the demo app: blocking and async calls. */
static void
test_demo_app (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autolist(StwPlugin) loaded = NULL;
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "demo-app", NULL);
  g_autofree char *launch_args = NULL;
  g_autoptr(JsonObject) launch = NULL;
  const char *sid;

  if (!electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }

  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (dispatcher);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_MAIN);
  loaded = load (dispatcher, TRUE);
  g_assert_true (stw_dispatcher_is_tool_visible (dispatcher, stw_dispatcher_lookup_tool (dispatcher, "ipc_invoke")));

  launch_args = g_strdup_printf ("{\"executablePath\":\"%s\",\"main\":\"%s\"}", electron, app);
  launch = ok (call (dispatcher, "electron_launch", launch_args));
  sid = json_object_get_string_member (launch, "session_id");

  {
    g_autofree char *register_args = session_args (sid, "\"code\":\"let runs = 0; "
                                                   "electron.ipcMain.handle('danger:wipe', () => ++runs); "
                                                   "electron.ipcMain.handle('probe:runs', () => runs); "
                                                   "electron.ipcMain.handle('probe:echo', (_e, v) => v); "
                                                   "return true;\"");
    g_autofree char *start = session_args (sid, "\"channels\":[\"notes:*\",\"probe:*\"]");
    g_autofree char *again = session_args (sid, "\"channels\":[\"probe:*\"]");
    g_autofree char *echo = session_args (sid, "\"channel\":\"probe:echo\",\"args\":[{\"password\":\"p\",\"n\":1}]");
    g_autofree char *wipe = session_args (sid, "\"channel\":\"danger:wipe\"");
    g_autofree char *wipe_stub = session_args (sid, "\"channel\":\"danger:wipe\",\"returns\":1");
    g_autofree char *runs = session_args (sid, "\"channel\":\"probe:runs\"");
    g_autofree char *stub = session_args (sid, "\"channel\":\"notes:load\",\"returns\":[\"stubbed\"],\"once\":true");
    g_autofree char *load_notes = session_args (sid, "\"channel\":\"notes:load\"");
    g_autofree char *captured_args = session_args (sid, NULL);
    g_autoptr(JsonObject) registered = ok (call (dispatcher, "electron_eval_main", register_args));
    g_autoptr(JsonObject) started = ok (call_async (dispatcher, "ipc_capture_start", start));
    g_autoptr(JsonObject) twice = call (dispatcher, "ipc_capture_start", again);
    g_autoptr(JsonObject) echoed = ok (call (dispatcher, "ipc_invoke", echo));
    g_autoptr(JsonObject) refused = call_async (dispatcher, "ipc_invoke", wipe);
    g_autoptr(JsonObject) refused_stub = call (dispatcher, "ipc_stub", wipe_stub);
    g_autoptr(JsonObject) counted = ok (call (dispatcher, "ipc_invoke", runs));
    g_autoptr(JsonObject) stubbed = ok (call_async (dispatcher, "ipc_stub", stub));
    g_autoptr(JsonObject) first = ok (call_async (dispatcher, "ipc_invoke", load_notes));
    g_autoptr(JsonObject) second = ok (call (dispatcher, "ipc_invoke", load_notes));
    g_autoptr(JsonObject) captured = ok (call_async (dispatcher, "ipc_captured", captured_args));
    g_autoptr(JsonObject) stopped = ok (call (dispatcher, "ipc_capture_stop", captured_args));
    g_autoptr(JsonObject) not_capturing = call_async (dispatcher, "ipc_capture_stop", captured_args);
    g_autoptr(GPtrArray) mine = NULL;
    JsonObject *echo_result;
    JsonArray *entries;

    g_assert_true (json_object_get_boolean_member (started, "capturing"));
    assert_code (twice, "ipc.ALREADY_CAPTURING");

    echo_result = json_object_get_object_member (echoed, "result");
    g_assert_cmpstr (json_object_get_string_member (echo_result, "password"), ==, "[REDACTED]");
    g_assert_cmpint (json_object_get_int_member (echo_result, "n"), ==, 1);

    assert_code (refused, "ipc.CHANNEL_NOT_ALLOWED");
    assert_code (refused_stub, "ipc.CHANNEL_NOT_ALLOWED");
    g_assert_cmpint (json_object_get_int_member (counted, "result"), ==, 0);

    g_assert_true (json_object_get_boolean_member (stubbed, "stubbed"));
    g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (first, "result"), 0), ==,
                     "stubbed");
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (second, "result")), ==, 0);

    /* probe:echo, probe:runs, notes:load twice from ipc_invoke; the page's
     * own notes:load at start-up may come too, when it ran after the start. */
    entries = json_object_get_array_member (captured, "entries");
    mine = g_ptr_array_new ();
    for (guint i = 0; i < json_array_get_length (entries); i++)
      {
        JsonObject *entry = json_array_get_object_element (entries, i);

        g_assert_cmpstr (json_object_get_string_member (entry, "kind"), ==, "invoke");
        g_assert_true (json_object_has_member (entry, "durationMs"));
        if (g_strcmp0 (json_object_get_string_member (entry, "source"), "ipc_invoke") == 0)
          g_ptr_array_add (mine, entry);
        else
          {
            g_assert_cmpstr (json_object_get_string_member (entry, "source"), ==, "renderer");
            g_assert_cmpstr (json_object_get_string_member (entry, "channel"), ==, "notes:load");
          }
      }
    g_assert_cmpuint (mine->len, ==, 4);
    g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (mine, 0), "channel"), ==, "probe:echo");
    g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (mine, 1), "channel"), ==, "probe:runs");
    g_assert_true (json_object_get_boolean_member (g_ptr_array_index (mine, 2), "stubbed"));
    g_assert_false (json_object_has_member (g_ptr_array_index (mine, 3), "stubbed"));
    g_assert_false (json_object_get_boolean_member (stopped, "capturing"));
    assert_code (not_capturing, "ipc.NOT_CAPTURING");
  }

  test_api (dispatcher, loaded->data, sid);

  {
    g_autofree char *stop_args = session_args (sid, NULL);
    g_autoptr(JsonObject) stop = ok (call (dispatcher, "electron_stop", stop_args));
  }
  unload (dispatcher);
}

int
main (int    argc,
      char **argv)
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/ipc-plugin/eval-required", test_eval_required);
  g_test_add_func ("/ipc-plugin/demo-app", test_demo_app);

  return g_test_run ();
}
