/* test-native.c: the native plugin from C, through the public library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This program links libstagewright-1.0.so and uses only the public API:
 * it loads plugins/built/native.plugin into a dispatcher with the core
 * tools, launches the demo app with the plugin's launch option
 * (plugins.native.instrumentNative), and calls the plugin's tools both
 * blocking (stw_dispatcher_call_json_sync) and asynchronously
 * (stw_dispatcher_invoke_async): the menu tree, a click that runs, a
 * disabled item refused, a checkbox that toggles, the start-up tray and
 * notification; then, without the option, native.NOT_INSTRUMENTED. The
 * plugin's API (StwNativePlugin, from libstagewright-plugins) is called
 * directly too, blocking and async, with typed results.
 */
#include <string.h>

#include "stw-test-utils.h"

#include <stw-native.h>

static char *
object_text (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  return json_to_string (node, FALSE);
}

/* The same call through stw_dispatcher_invoke_async. */
static JsonObject *
call_async (StwDispatcher *dispatcher,
            const char    *tool,
            const char    *arguments)
{
  g_autoptr(JsonNode) node = stw_test_parse (arguments);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwInvocation) invocation = stw_dispatcher_create_invocation (dispatcher, tool,
                                                                          json_node_get_object (node), &error);
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
    {
      g_autofree char *text = object_text (envelope);

      g_error ("call failed: %s", text);
    }
  return envelope;
}

static const char *
envelope_code (JsonObject *envelope)
{
  g_assert_false (json_object_get_boolean_member (envelope, "ok"));
  return json_object_get_string_member (envelope, "code");
}

static StwDispatcher *
native_dispatcher (void)
{
  g_autofree char *file = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "native.plugin", NULL);
  const char * const specs[] = { file, NULL };
  StwDispatcher *dispatcher = stw_dispatcher_new ();
  g_autolist(StwPlugin) loaded = NULL;
  g_autoptr(GError) error = NULL;

  stw_dispatcher_add_core_tools (dispatcher);
  loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_length (loaded), ==, 1);
  g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, "native_menu_invoke"));
  return dispatcher;
}

static char *
launch (StwDispatcher *dispatcher,
        gboolean       instrument)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "demo-app", NULL);
  g_autofree char *args = g_strdup_printf ("{\"executablePath\":\"%s\",\"main\":\"%s\"%s}", electron, app,
                                           instrument ? ",\"plugins\":{\"native\":{\"instrumentNative\":true}}" : "");
  g_autoptr(JsonObject) launched = ok (stw_test_call_json (dispatcher, "electron_launch", args));
  char *session_id = g_strdup (json_object_get_string_member (launched, "session_id"));
  g_autofree char *menu_args = g_strdup_printf ("{\"sessionId\":\"%s\"}", session_id);
  gint64 deadline = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;

  /* The demo app builds its menu, tray and notification once ready. */
  for (;;)
    {
      g_autoptr(JsonObject) menu = stw_test_call_json (dispatcher, "native_menu", menu_args);

      if (json_object_get_boolean_member (menu, "ok") && json_object_get_boolean_member (menu, "present"))
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      stw_test_iterate_for (100);
    }
  return session_id;
}

static void
stop (StwDispatcher *dispatcher,
      const char    *session_id)
{
  g_autofree char *args = g_strdup_printf ("{\"sessionId\":\"%s\"}", session_id);
  g_autoptr(JsonObject) stopped = stw_test_call_json (dispatcher, "electron_stop", args);

  ok (stopped);
}

static JsonObject *
item_in (JsonArray  *items,
         const char *label)
{
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonObject *item = json_array_get_object_element (items, i);

      if (g_strcmp0 (json_object_get_string_member (item, "label"), label) == 0)
        return item;
    }
  g_error ("no item %s", label);
  return NULL;
}

static void
test_instrumented (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *args = NULL;
  g_autofree char *export_args = NULL;
  g_autofree char *print_args = NULL;
  g_autofree char *wrap_args = NULL;
  g_autofree char *tray_args = NULL;
  g_autofree char *click_args = NULL;
  g_autoptr(JsonObject) menu = NULL;
  g_autoptr(JsonObject) invoked = NULL;
  g_autoptr(JsonObject) refused = NULL;
  g_autoptr(JsonObject) toggled = NULL;
  g_autoptr(JsonObject) toggled_back = NULL;
  g_autoptr(JsonObject) trays = NULL;
  g_autoptr(JsonObject) tray_item = NULL;
  g_autoptr(JsonObject) started = NULL;
  g_autoptr(JsonObject) captured = NULL;
  g_autoptr(JsonObject) clicked = NULL;
  JsonObject *file;
  JsonObject *item;
  JsonObject *tray;
  JsonObject *notification;

  if (!stw_test_electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }
  dispatcher = native_dispatcher ();
  session_id = launch (dispatcher, TRUE);
  args = g_strdup_printf ("{\"sessionId\":\"%s\"}", session_id);

  /* Blocking: the tree. */
  menu = ok (stw_test_call_json (dispatcher, "native_menu", args));
  g_assert_cmpstr (json_object_get_string_member (menu, "menu"), ==, "application");
  file = item_in (json_object_get_array_member (menu, "items"), "File");
  item = item_in (json_object_get_array_member (file, "submenu"), "Export…");
  {
    g_autoptr(JsonNode) path = json_node_copy (json_object_get_member (item, "path"));
    g_autofree char *text = json_to_string (path, FALSE);

    g_assert_cmpstr (text, ==, "[\"File\",\"Export…\"]");
  }
  g_assert_cmpstr (json_object_get_string_member (item, "id"), ==, "file-export");
  g_assert_cmpstr (json_object_get_string_member (item, "accelerator"), ==, "CmdOrCtrl+E");
  g_assert_false (json_object_get_boolean_member (item_in (json_object_get_array_member (file, "submenu"), "Print"),
                                                  "enabled"));

  /* Async: a click runs; a disabled item is refused. */
  export_args = g_strdup_printf ("{\"sessionId\":\"%s\",\"path\":[\"File\",\"Export…\"]}", session_id);
  invoked = ok (call_async (dispatcher, "native_menu_invoke", export_args));
  g_assert_true (json_object_get_boolean_member (invoked, "invoked"));
  print_args = g_strdup_printf ("{\"sessionId\":\"%s\",\"id\":\"file-print\"}", session_id);
  refused = call_async (dispatcher, "native_menu_invoke", print_args);
  g_assert_cmpstr (envelope_code (refused), ==, "native.ITEM_DISABLED");
  g_assert_cmpint (json_object_get_int_member (refused, "http"), ==, 409);

  /* A checkbox toggles, blocking then async. */
  wrap_args = g_strdup_printf ("{\"sessionId\":\"%s\",\"id\":\"view-wrap\"}", session_id);
  toggled = ok (stw_test_call_json (dispatcher, "native_menu_invoke", wrap_args));
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (toggled, "item"), "checked"));
  toggled_back = ok (call_async (dispatcher, "native_menu_invoke", wrap_args));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (toggled_back, "item"), "checked"));

  /* The start-up tray, its tooltip, its menu item. */
  trays = ok (call_async (dispatcher, "native_trays", args));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (trays, "trays")), ==, 1);
  tray = json_array_get_object_element (json_object_get_array_member (trays, "trays"), 0);
  g_assert_cmpstr (json_object_get_string_member (tray, "toolTip"), ==, "Stagewright Notes");
  g_assert_true (json_object_get_boolean_member (tray, "hasContextMenu"));
  tray_args = g_strdup_printf ("{\"sessionId\":\"%s\",\"index\":0,\"action\":\"menu\",\"path\":[\"New Note\"]}",
                               session_id);
  tray_item = ok (stw_test_call_json (dispatcher, "native_tray_invoke", tray_args));
  g_assert_true (json_object_get_boolean_member (tray_item, "invoked"));

  /* The start-up notification, captured; a click reaches the app. */
  started = ok (stw_test_call_json (dispatcher, "native_notifications_start", args));
  g_assert_true (json_object_get_boolean_member (started, "instrumented"));
  {
    g_autoptr(JsonObject) again = call_async (dispatcher, "native_notifications_start", args);

    g_assert_cmpstr (envelope_code (again), ==, "native.ALREADY_CAPTURING");
  }
  captured = ok (call_async (dispatcher, "native_notifications", args));
  g_assert_cmpint (json_object_get_int_member (captured, "count"), ==, 1);
  notification = json_array_get_object_element (json_object_get_array_member (captured, "notifications"), 0);
  g_assert_cmpstr (json_object_get_string_member (notification, "title"), ==, "Stagewright Notes");
  g_assert_cmpstr (json_object_get_string_member (notification, "body"), ==, "Ready to take notes");
  g_assert_true (json_object_get_boolean_member (notification, "shown"));
  click_args = g_strdup_printf ("{\"sessionId\":\"%s\",\"index\":0,\"action\":\"click\"}", session_id);
  clicked = ok (stw_test_call_json (dispatcher, "native_notification_invoke", click_args));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (clicked, "notification"), "clicked"));

  {
    /* What the handlers did, as the app's main console says. */
    g_autofree char *logs_args = g_strdup_printf ("{\"sessionId\":\"%s\",\"source\":\"main\",\"match\":\"^\\\\[\"}",
                                                  session_id);
    g_autoptr(JsonObject) logs = NULL;
    g_autoptr(GString) lines = g_string_new (NULL);
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    JsonArray *entries;

    for (;;)
      {
        g_clear_pointer (&logs, json_object_unref);
        g_string_truncate (lines, 0);
        logs = ok (stw_test_call_json (dispatcher, "electron_console_logs", logs_args));
        entries = json_object_get_array_member (logs, "entries");
        for (guint i = 0; i < json_array_get_length (entries); i++)
          g_string_append_printf (lines, "%s\n",
                                  json_object_get_string_member (json_array_get_object_element (entries, i), "text"));
        if (strstr (lines->str, "[notification] clicked") != NULL || g_get_monotonic_time () > deadline)
          break;
        stw_test_iterate_for (100);
      }
    g_assert_cmpstr (lines->str, ==,
                     "[menu] File › Export… clicked\n"
                     "[menu] View › Word Wrap clicked (checked: false)\n"
                     "[menu] View › Word Wrap clicked (checked: true)\n"
                     "[menu] Tray › New Note clicked\n"
                     "[notification] clicked\n");
  }
  stop (dispatcher, session_id);
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
}

static void
test_not_instrumented (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *args = NULL;
  g_autoptr(JsonObject) blocking = NULL;
  g_autoptr(JsonObject) async = NULL;

  if (!stw_test_electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }
  dispatcher = native_dispatcher ();
  session_id = launch (dispatcher, FALSE);
  args = g_strdup_printf ("{\"sessionId\":\"%s\"}", session_id);
  blocking = stw_test_call_json (dispatcher, "native_trays", args);
  g_assert_cmpstr (envelope_code (blocking), ==, "native.NOT_INSTRUMENTED");
  async = call_async (dispatcher, "native_trays", args);
  g_assert_cmpstr (envelope_code (async), ==, "native.NOT_INSTRUMENTED");
  stop (dispatcher, session_id);
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
}

static StwNativeMenuItem *
model_item (GListModel *items,
            const char *label)
{
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(StwNativeMenuItem) item = g_list_model_get_item (items, i);

      if (g_strcmp0 (stw_native_menu_item_get_label (item), label) == 0)
        return item;
    }
  g_error ("no item %s", label);
  return NULL;
}

static gpointer
wait_result (StwTestResult *wait)
{
  return stw_test_wait_result (wait, 60000);
}

/* The API itself: typed results, blocking and async, the same refusals. */
static void
test_api (void)
{
  g_autofree char *file = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "native.plugin", NULL);
  const char * const specs[] = { file, NULL };
  const char * const export_path[] = { "File", "Export…", NULL };
  const char * const tray_path[] = { "New Note", NULL };
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autolist(StwPlugin) loaded = NULL;
  g_autofree char *session_id = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GListModel) menu = NULL;
  g_autoptr(GListModel) trays = NULL;
  g_autoptr(GListModel) notifications = NULL;
  g_autoptr(StwNativeMenuItem) exported = NULL;
  g_autoptr(StwNativeMenuItem) wrap = NULL;
  g_autoptr(StwNativeTray) tray = NULL;
  g_autoptr(StwNativeNotification) notification = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  StwTestResult wait = { 0 };
  StwNativePlugin *plugin;
  StwSession *session;
  StwNativeMenuItem *file_menu;
  gboolean checked;

  if (!stw_test_electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }
  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (dispatcher);
  loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, NULL, NULL, &error);
  g_assert_no_error (error);
  /* The module's plugin is the library's type: one GType per process. */
  g_assert_true (G_OBJECT_TYPE (loaded->data) == STW_TYPE_NATIVE_PLUGIN);
  plugin = loaded->data;
  session_id = launch (dispatcher, TRUE);
  session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (dispatcher), session_id);

  /* Blocking: the tree, as objects with paths. */
  menu = stw_native_plugin_menu_sync (plugin, session, STW_NATIVE_APPLICATION_MENU, NULL, &error);
  g_assert_no_error (error);
  file_menu = model_item (menu, "File");
  g_assert_nonnull (stw_native_menu_item_get_submenu (file_menu));
  {
    StwNativeMenuItem *item = model_item (stw_native_menu_item_get_submenu (file_menu), "Export…");
    g_autofree char *joined = g_strjoinv ("/", (char **) stw_native_menu_item_get_path (item));
    g_autofree char *accelerator = NULL;

    g_assert_cmpstr (joined, ==, "File/Export…");
    g_assert_cmpstr (stw_native_menu_item_get_id (item), ==, "file-export");
    g_object_get (item, "accelerator", &accelerator, NULL);
    g_assert_cmpstr (accelerator, ==, "CmdOrCtrl+E");
    g_assert_false (stw_native_menu_item_get_enabled (model_item (stw_native_menu_item_get_submenu (file_menu),
                                                                  "Print")));
  }

  /* Async: a click runs; a disabled item is refused before its handler. */
  stw_native_plugin_menu_invoke_async (plugin, session, STW_NATIVE_APPLICATION_MENU, export_path, NULL, NULL,
                                       stw_test_result_cb, &wait);
  result = wait_result (&wait);
  exported = stw_native_plugin_menu_invoke_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stw_native_menu_item_get_label (exported), ==, "Export…");
  g_clear_object (&result);
  stw_native_plugin_menu_invoke_async (plugin, session, STW_NATIVE_APPLICATION_MENU, NULL, "file-print", NULL,
                                       stw_test_result_cb, &wait);
  result = wait_result (&wait);
  g_assert_null (stw_native_plugin_menu_invoke_finish (plugin, result, &error));
  g_assert_error (error, STW_NATIVE_ERROR, STW_NATIVE_ERROR_ITEM_DISABLED);
  /* The hook answered the wire code; the plugin's domain names it back. */
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "native.ITEM_DISABLED");
  g_clear_error (&error);
  g_clear_object (&result);

  /* A checkbox toggles. */
  wrap = stw_native_plugin_menu_item_sync (plugin, session, STW_NATIVE_APPLICATION_MENU, NULL, "view-wrap",
                                           NULL, &error);
  g_assert_no_error (error);
  checked = stw_native_menu_item_get_checked (wrap);
  g_clear_object (&wrap);
  wrap = stw_native_plugin_menu_invoke_sync (plugin, session, STW_NATIVE_APPLICATION_MENU, NULL, "view-wrap",
                                             NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (stw_native_menu_item_get_checked (wrap), ==, !checked);

  /* The start-up tray and its menu. */
  stw_native_plugin_trays_async (plugin, session, NULL, stw_test_result_cb, &wait);
  result = wait_result (&wait);
  trays = stw_native_plugin_trays_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_cmpuint (g_list_model_get_n_items (trays), ==, 1);
  tray = g_list_model_get_item (trays, 0);
  g_assert_cmpstr (stw_native_tray_get_tool_tip (tray), ==, "Stagewright Notes");
  g_assert_true (stw_native_tray_get_has_context_menu (tray));
  g_assert_nonnull (stw_native_tray_get_menu (tray));
  g_assert_true (stw_native_plugin_tray_invoke_sync (plugin, session, 0, STW_NATIVE_TRAY_ACTION_MENU, tray_path,
                                                     NULL, &error));
  g_assert_no_error (error);

  /* The start-up notification, captured; a second start is refused. */
  g_assert_true (stw_native_plugin_notifications_start_sync (plugin, session, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (stw_native_plugin_notifications_start_sync (plugin, session, NULL, &error));
  g_assert_error (error, STW_NATIVE_ERROR, STW_NATIVE_ERROR_ALREADY_CAPTURING);
  g_clear_error (&error);
  stw_native_plugin_notifications_async (plugin, session, -1, NULL, stw_test_result_cb, &wait);
  result = wait_result (&wait);
  notifications = stw_native_plugin_notifications_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_cmpuint (g_list_model_get_n_items (notifications), ==, 1);
  {
    g_autoptr(StwNativeNotification) first = g_list_model_get_item (notifications, 0);

    g_assert_cmpstr (stw_native_notification_get_title (first), ==, "Stagewright Notes");
    g_assert_cmpstr (stw_native_notification_get_body (first), ==, "Ready to take notes");
    g_assert_true (stw_native_notification_get_shown (first));
  }
  notification = stw_native_plugin_notification_invoke_sync (plugin, session, 0,
                                                              STW_NATIVE_NOTIFICATION_ACTION_CLICK, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_native_notification_get_clicked (notification));
  g_assert_true (stw_native_plugin_notifications_stop_sync (plugin, session, NULL, &error));
  g_assert_no_error (error);

  stop (dispatcher, session_id);
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
}

int
main (int   argc,
      char *argv[])
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/native/instrumented", test_instrumented);
  g_test_add_func ("/native/not-instrumented", test_not_instrumented);
  g_test_add_func ("/native/api", test_api);
  return g_test_run ();
}
