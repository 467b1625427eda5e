/* test-storage-plugin.c: the storage plugin loaded into a dispatcher of a
 * C harness linked to the shared library (issue 19, items 5-7)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plugin from plugins/built/, through the public API only, blocking
 * (stw_dispatcher_call_json_sync) and asynchronous
 * (stw_dispatcher_invoke_async), on a loopback HTTP page: cookies with
 * sameSite and expires, Web Storage, a storage state saved and loaded
 * back, an IndexedDB record with a Date in Playwright's encoding, the
 * snapshot; a state with opfs refused with storage.UNSUPPORTED and a path
 * outside the app root with BAD_ARGUMENT, nothing applied. The same
 * through the plugin's own API (StwStoragePlugin, stw-storage.h), blocking
 * and async: the plugin the dispatcher loaded is the library's type.
 */
#include <string.h>

#include <glib/gstdio.h>

#include "stw-test-utils.h"

#include <stw-storage.h>

static gboolean
electron_available (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);

  return g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) &&
         g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE);
}

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

/* A call with the session's id put first, blocking or async. */
static JsonObject *
call (StwDispatcher *dispatcher,
      gboolean       async,
      const char    *sid,
      const char    *tool,
      const char    *rest)
{
  g_autofree char *args = g_strdup_printf ("{\"sessionId\":\"%s\"%s%s}", sid, rest ? "," : "", rest ? rest : "");

  return async ? call_async (dispatcher, tool, args) : stw_test_call_json (dispatcher, tool, args);
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

static void
load (StwDispatcher *dispatcher)
{
  g_autofree char *file = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "storage.plugin", NULL);
  const char * const specs[] = { file, NULL };
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };
  g_autolist(StwPlugin) loaded = NULL;

  stw_dispatcher_load_plugins_async (dispatcher, specs, NULL, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  loaded = stw_dispatcher_load_plugins_finish (dispatcher, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_length (loaded), ==, 1);
}

/* The page's report has been written once its load script ran. */
static void
wait_for_page (StwDispatcher *dispatcher,
               const char    *sid)
{
  for (guint i = 0; i < 200; i++)
    {
      g_autoptr(JsonObject) text = call (dispatcher, FALSE, sid, "electron_get_text", "\"selector\":\"#report\"");

      if (json_object_get_boolean_member (text, "ok") &&
          g_strcmp0 (json_object_get_string_member (text, "text"), "pending") != 0)
        return;
      g_usleep (50000);
    }
  g_error ("the storage page never reported");
}


/* The plugin's API itself, blocking and async, on the running app. */
static void
check_api (StwDispatcher *dispatcher,
           const char    *sid,
           const char    *opfs_file)
{
  StwPlugin *loaded = stw_dispatcher_lookup_plugin (dispatcher, "storage");
  StwStoragePlugin *plugin;
  StwSession *session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (dispatcher), sid);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) set = NULL;
  g_autoptr(JsonObject) got = NULL;
  g_autoptr(GPtrArray) cookies = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(StwStorageState) saved = NULL;
  g_autoptr(StwStorageState) refused = NULL;
  g_autoptr(JsonObject) restored = NULL;
  g_autoptr(JsonObject) after = NULL;
  g_autoptr(JsonObject) removed = NULL;
  g_autofree char *data = NULL;
  g_auto(GStrv) origins = NULL;
  StwTestResult wait = { 0 };
  const char * const other[] = { "http://example.com/", NULL };
  StwStorageCookie *cookie;

  g_assert_true (STW_IS_STORAGE_PLUGIN (loaded));
  plugin = STW_STORAGE_PLUGIN (loaded);
  g_assert_nonnull (session);

  set = stw_storage_plugin_web_storage_sync (plugin, session, NULL, NULL, STW_STORAGE_AREA_LOCAL, "set", "api", "yes",
                                             NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (set);
  stw_storage_plugin_web_storage_async (plugin, session, NULL, NULL, STW_STORAGE_AREA_LOCAL, "get", "api", NULL, NULL,
                                        stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  got = stw_storage_plugin_web_storage_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (got, "value"), ==, "yes");

  cookies = stw_storage_plugin_get_cookies_sync (plugin, session, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cookies->len, ==, 1);
  cookie = g_ptr_array_index (cookies, 0);
  g_assert_cmpstr (cookie->name, ==, "sid");
  g_assert_cmpstr (cookie->value, ==, "v1");
  g_assert_cmpstr (cookie->same_site, ==, "Strict");
  none = stw_storage_plugin_get_cookies_sync (plugin, session, NULL, other, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (none->len, ==, 0);
  /* A partition is found by main-process eval, which this dispatcher does not allow. */
  g_assert_null (stw_storage_plugin_get_cookies_sync (plugin, session, "persist:x", NULL, NULL, &error));
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "storage.EVAL_REQUIRED");
  g_clear_error (&error);

  saved = stw_storage_plugin_save_state_sync (plugin, session, NULL, TRUE, NULL, &error);
  g_assert_no_error (error);
  origins = stw_storage_state_dup_origin_names (saved);
  g_assert_cmpuint (g_strv_length (origins), ==, 1);
  g_assert_cmpuint (stw_storage_state_get_cookies (saved)->len, ==, 1);
  data = stw_storage_state_to_data (saved, NULL);
  g_assert_nonnull (strstr (data, "\"api\""));

  refused = stw_storage_plugin_read_state (plugin, opfs_file, &error);
  g_assert_null (refused);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "storage.UNSUPPORTED");
  g_clear_error (&error);

  removed = stw_storage_plugin_web_storage_sync (plugin, session, NULL, NULL, STW_STORAGE_AREA_LOCAL, "remove",
                                                 "api", NULL, NULL, &error);
  g_assert_nonnull (removed);
  g_clear_object (&result);
  stw_storage_plugin_load_state_async (plugin, session, NULL, saved, FALSE, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  restored = stw_storage_plugin_load_state_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (restored, "cookies"), ==, 1);
  after = stw_storage_plugin_web_storage_sync (plugin, session, NULL, NULL, STW_STORAGE_AREA_LOCAL, "get", "api", NULL,
                                               NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (after, "value"), ==, "yes");
}

static void
test_storage (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "storage-app", NULL);
  g_autofree char *launch_args = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *state_file = NULL;
  g_autofree char *opfs_file = NULL;
  g_autofree char *outside = NULL;
  g_autofree char *rest = NULL;
  g_autoptr(JsonObject) launch = NULL;
  gint64 expires = g_get_real_time () / G_USEC_PER_SEC + 3600;
  const char *sid;

  if (!electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }

  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (dispatcher);
  load (dispatcher);
  launch_args = g_strdup_printf ("{\"executablePath\":\"%s\",\"main\":\"%s\",\"args\":[\"--serve\"]}", electron, app);
  launch = ok (stw_test_call_json (dispatcher, "electron_launch", launch_args));
  sid = json_object_get_string_member (launch, "session_id");
  wait_for_page (dispatcher, sid);

  /* Cookies, blocking and async. */
  rest = g_strdup_printf ("\"domain\":\"127.0.0.1\",\"path\":\"/\",\"name\":\"sid\",\"value\":\"v1\","
                          "\"sameSite\":\"Strict\",\"expires\":%" G_GINT64_FORMAT, expires);
  {
    g_autoptr(JsonObject) set = ok (call (dispatcher, FALSE, sid, "storage_set_cookie", rest));
    g_autoptr(JsonObject) listed = ok (call (dispatcher, TRUE, sid, "storage_cookies", NULL));
    JsonObject *cookie = json_array_get_object_element (json_object_get_array_member (listed, "cookies"), 0);

    g_assert_cmpstr (json_object_get_string_member (set, "session"), ==, "default");
    g_assert_cmpint (json_object_get_int_member (listed, "count"), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (cookie, "sameSite"), ==, "Strict");
    g_assert_cmpstr (json_object_get_string_member (cookie, "value"), ==, "<redacted>");
    g_assert_cmpint ((gint64) (json_object_get_double_member (cookie, "expires") + 0.5), ==, expires);
  }

  /* Web Storage, blocking and async. */
  {
    g_autoptr(JsonObject) set = ok (call (dispatcher, TRUE, sid, "storage_local_set", "\"key\":\"k\",\"value\":\"v\""));
    g_autoptr(JsonObject) got = ok (call (dispatcher, FALSE, sid, "storage_local_get", "\"key\":\"k\""));
    g_autoptr(JsonObject) session_set = ok (call (dispatcher, FALSE, sid, "storage_session_set", "\"key\":\"s\",\"value\":\"1\""));
    g_autoptr(JsonObject) session_keys = ok (call (dispatcher, TRUE, sid, "storage_session_keys", NULL));

    g_assert_true (g_str_has_prefix (json_object_get_string_member (set, "origin"), "http://127.0.0.1:"));
    g_assert_cmpstr (json_object_get_string_member (got, "value"), ==, "v");
    g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (session_keys, "keys"), 0), ==, "s");
  }

  /* IndexedDB: a Date goes in encoded and comes back so. */
  {
    g_autoptr(JsonObject) loaded = NULL;
    g_autoptr(JsonObject) put = NULL;
    g_autoptr(JsonObject) got = NULL;
    g_autoptr(JsonObject) snapshot = NULL;
    JsonObject *encoded;

    dir = g_dir_make_tmp ("stw-st-XXXXXX", NULL);
    g_assert_nonnull (dir);
    state_file = g_build_filename (dir, "state.json", NULL);
    {
      g_autofree char *origin = NULL;
      g_autoptr(JsonObject) got_origin = ok (call (dispatcher, FALSE, sid, "storage_local_keys", NULL));
      g_autofree char *text = NULL;
      g_autofree char *args = NULL;

      origin = g_strdup (json_object_get_string_member (got_origin, "origin"));
      text = g_strdup_printf ("{\"cookies\":[],\"origins\":[{\"origin\":\"%s\",\"localStorage\":[{\"name\":\"k\",\"value\":\"v\"}],"
                              "\"indexedDB\":[{\"name\":\"app\",\"version\":1,\"stores\":[{\"name\":\"things\","
                              "\"autoIncrement\":false,\"records\":[],\"indexes\":[]}]}]}]}", origin);
      g_assert_true (g_file_set_contents (state_file, text, -1, NULL));
      args = g_strdup_printf ("\"path\":\"%s\",\"reload\":false", state_file);
      loaded = ok (call (dispatcher, TRUE, sid, "storage_state_load", args));
    }
    /* The state had no cookie: loading it replaced the session's. */
    g_assert_cmpint (json_object_get_int_member (loaded, "cookies"), ==, 0);
    {
      g_autoptr(JsonObject) none = ok (call (dispatcher, FALSE, sid, "storage_cookies", NULL));
      g_autoptr(JsonObject) again = ok (call (dispatcher, FALSE, sid, "storage_set_cookie", rest));

      g_assert_cmpint (json_object_get_int_member (none, "count"), ==, 0);
    }
    put = ok (call (dispatcher, FALSE, sid, "storage_idb_set",
                    "\"db\":\"app\",\"store\":\"things\",\"key\":\"k1\","
                    "\"valueEncoded\":{\"o\":[{\"k\":\"when\",\"v\":{\"d\":\"2024-01-02T03:04:05.000Z\"}}],\"id\":1}"));
    got = ok (call (dispatcher, TRUE, sid, "storage_idb_get", "\"db\":\"app\",\"store\":\"things\",\"key\":\"k1\""));
    encoded = json_object_get_object_member (got, "valueEncoded");
    g_assert_nonnull (encoded);
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                       json_array_get_object_element (json_object_get_array_member (encoded, "o"), 0), "v"), "d"),
                     ==, "2024-01-02T03:04:05.000Z");
    snapshot = ok (call (dispatcher, FALSE, sid, "storage_snapshot", NULL));
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
                       json_array_get_object_element (json_object_get_array_member (snapshot, "origins"), 0),
                       "localStorage"), "count"), ==, 1);
  }

  /* Saved, cleared, loaded back: the record and the value return. */
  {
    g_autofree char *save_args = g_strdup_printf ("\"path\":\"%s\",\"indexedDB\":true", state_file);
    g_autofree char *load_args = g_strdup_printf ("\"path\":\"%s\",\"reload\":false", state_file);
    g_autoptr(JsonObject) saved = ok (call (dispatcher, FALSE, sid, "storage_state_save", save_args));
    g_autoptr(JsonObject) cleared = ok (call (dispatcher, TRUE, sid, "storage_local_clear", NULL));
    g_autoptr(JsonObject) idb_cleared = ok (call (dispatcher, FALSE, sid, "storage_idb_clear", "\"db\":\"app\",\"store\":\"things\""));
    g_autoptr(JsonObject) loaded = ok (call (dispatcher, FALSE, sid, "storage_state_load", load_args));
    g_autoptr(JsonObject) got = ok (call (dispatcher, TRUE, sid, "storage_local_get", "\"key\":\"k\""));
    g_autoptr(JsonObject) count = ok (call (dispatcher, FALSE, sid, "storage_idb_count", "\"db\":\"app\",\"store\":\"things\""));
    g_autofree char *text = NULL;

    g_assert_cmpint (json_object_get_int_member (saved, "cookies"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (cleared, "cleared"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (idb_cleared, "cleared"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (loaded, "cookies"), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (got, "value"), ==, "v");
    g_assert_cmpint (json_object_get_int_member (count, "count"), ==, 1);
    g_assert_true (g_file_get_contents (state_file, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "\"valueEncoded\""));
    g_assert_nonnull (strstr (text, "\"v1\""));
  }

  /* Refused, nothing applied: opfs; a path outside the app root. */
  opfs_file = g_build_filename (dir, "opfs.json", NULL);
  g_assert_true (g_file_set_contents (opfs_file, "{\"cookies\":[],\"origins\":[{\"origin\":\"http://127.0.0.1:1\","
                                                 "\"localStorage\":[],\"opfs\":[{\"path\":\"a\",\"type\":\"file\"}]}]}",
                                      -1, NULL));
  {
    g_autofree char *args = g_strdup_printf ("\"path\":\"%s\"", opfs_file);
    g_autoptr(JsonObject) blocking = call (dispatcher, FALSE, sid, "storage_state_load", args);
    g_autoptr(JsonObject) async = call (dispatcher, TRUE, sid, "storage_state_load", args);

    assert_code (blocking, "storage.UNSUPPORTED");
    g_assert_nonnull (strstr (json_object_get_string_member (blocking, "error"), "opfs"));
    assert_code (async, "storage.UNSUPPORTED");
  }
  check_api (dispatcher, sid, opfs_file);
  outside = g_build_filename (dir, "..", "stw-outside.json", NULL);
  {
    g_autofree char *inner = g_build_filename (dir, "inner", NULL);
    g_autofree char *args = g_strdup_printf ("\"path\":\"%s\"", state_file);
    g_autofree char *save = g_strdup_printf ("\"path\":\"%s\"", outside);
    g_autoptr(JsonObject) refused = NULL;
    g_autoptr(JsonObject) refused_save = NULL;
    g_autoptr(JsonObject) still = NULL;

    g_assert_cmpint (g_mkdir (inner, 0700), ==, 0);
    stw_dispatcher_set_app_root (dispatcher, inner);
    refused = call (dispatcher, FALSE, sid, "storage_state_load", args);
    refused_save = call (dispatcher, TRUE, sid, "storage_state_save", save);
    assert_code (refused, "BAD_ARGUMENT");
    assert_code (refused_save, "BAD_ARGUMENT");
    g_assert_false (g_file_test (outside, G_FILE_TEST_EXISTS));
    still = ok (call (dispatcher, FALSE, sid, "storage_local_get", "\"key\":\"k\""));
    g_assert_cmpstr (json_object_get_string_member (still, "value"), ==, "v");
    stw_dispatcher_set_app_root (dispatcher, NULL);
    g_rmdir (inner);
  }

  {
    g_autoptr(JsonObject) cleared = ok (call (dispatcher, TRUE, sid, "storage_clear_cookies", NULL));
    g_autoptr(JsonObject) stop = ok (call (dispatcher, FALSE, sid, "electron_stop", NULL));

    g_assert_cmpint (json_object_get_int_member (cleared, "cleared"), ==, 1);
  }
  g_unlink (state_file);
  g_unlink (opfs_file);
  g_rmdir (dir);
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
    g_assert_no_error (error);
    g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "storage.UNSUPPORTED"));
  }
}

/* Two windows on the same origin, one in the persist:c partition (the
 * fixture's --partition): through the API, blocking and async, each
 * partition's cookies and localStorage are its own; a partition with no
 * window is storage.NOT_FOUND; without main eval, storage.EVAL_REQUIRED. */
static void
test_partition (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "storage-app", NULL);
  g_autofree char *launch_args = NULL;
  g_autoptr(JsonObject) launch = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GPtrArray) cookies = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_storage_cookie_free);
  g_autoptr(GPtrArray) in_partition = NULL;
  g_autoptr(GPtrArray) in_default = NULL;
  g_autoptr(JsonObject) set = NULL;
  g_autoptr(JsonObject) got_default = NULL;
  g_autoptr(JsonObject) got_partition = NULL;
  g_autoptr(StwStorageState) saved = NULL;
  g_autofree char *data = NULL;
  StwTestResult wait = { 0 };
  StwStoragePlugin *plugin;
  StwSession *session;
  const char *sid;
  gint64 cleared;

  if (!electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }

  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (dispatcher);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_MAIN | STW_EVAL_TARGET_RENDERER);
  load (dispatcher);
  launch_args = g_strdup_printf ("{\"executablePath\":\"%s\",\"main\":\"%s\",\"args\":[\"--serve\","
                                 "\"--partition=persist:c\"]}", electron, app);
  launch = ok (stw_test_call_json (dispatcher, "electron_launch", launch_args));
  sid = json_object_get_string_member (launch, "session_id");
  wait_for_page (dispatcher, sid);
  plugin = STW_STORAGE_PLUGIN (stw_dispatcher_lookup_plugin (dispatcher, "storage"));
  session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (dispatcher), sid);
  g_assert_nonnull (session);

  /* The partition's window comes up after the default one's. */
  for (guint i = 0; i < 200; i++)
    {
      g_autoptr(JsonObject) probe = stw_storage_plugin_web_storage_sync (plugin, session, "persist:c", NULL,
                                                                         STW_STORAGE_AREA_LOCAL, "keys", NULL, NULL,
                                                                         NULL, NULL);
      if (probe != NULL)
        break;
      g_usleep (50000);
    }

  /* Blocking: a cookie in the partition only. */
  g_ptr_array_add (cookies, stw_storage_cookie_new ("pc", "1", "127.0.0.1", "/"));
  g_assert_true (stw_storage_plugin_set_cookies_sync (plugin, session, "persist:c", cookies, NULL, &error));
  g_assert_no_error (error);
  in_partition = stw_storage_plugin_get_cookies_sync (plugin, session, "persist:c", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (in_partition->len, ==, 1);
  g_assert_cmpstr (((StwStorageCookie *) g_ptr_array_index (in_partition, 0))->name, ==, "pc");
  in_default = stw_storage_plugin_get_cookies_sync (plugin, session, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (in_default->len, ==, 0);

  /* Async: localStorage in the partition, not in the default session. */
  stw_storage_plugin_web_storage_async (plugin, session, "persist:c", NULL, STW_STORAGE_AREA_LOCAL, "set", "where",
                                        "c", NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  set = stw_storage_plugin_web_storage_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (set);
  got_default = stw_storage_plugin_web_storage_sync (plugin, session, NULL, NULL, STW_STORAGE_AREA_LOCAL, "get",
                                                     "where", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (json_object_get_boolean_member (got_default, "found"));
  got_partition = stw_storage_plugin_web_storage_sync (plugin, session, "persist:c", NULL, STW_STORAGE_AREA_LOCAL,
                                                       "get", "where", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (got_partition, "value"), ==, "c");

  /* The partition's state holds its cookie and its localStorage. */
  g_clear_object (&result);
  stw_storage_plugin_save_state_async (plugin, session, "persist:c", FALSE, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  saved = stw_storage_plugin_save_state_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_storage_state_get_cookies (saved)->len, ==, 1);
  data = stw_storage_state_to_data (saved, NULL);
  g_assert_nonnull (strstr (data, "\"where\""));

  /* A partition no window uses, async: refused, not the default session. */
  g_clear_object (&result);
  stw_storage_plugin_clear_cookies_async (plugin, session, "persist:none", NULL, NULL, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  cleared = stw_storage_plugin_clear_cookies_finish (plugin, result, &error);
  g_assert_cmpint (cleared, ==, -1);
  g_assert_error (error, STW_STORAGE_ERROR, STW_STORAGE_ERROR_NOT_FOUND);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "storage.NOT_FOUND");
  g_clear_error (&error);

  /* Without main eval: storage.EVAL_REQUIRED, blocking and async. */
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_RENDERER);
  g_assert_null (stw_storage_plugin_snapshot_sync (plugin, session, "persist:c", NULL, &error));
  g_assert_error (error, STW_STORAGE_ERROR, STW_STORAGE_ERROR_EVAL_REQUIRED);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "storage.EVAL_REQUIRED");
  g_clear_error (&error);
  g_clear_object (&result);
  stw_storage_plugin_get_cookies_async (plugin, session, "persist:c", NULL, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  g_assert_null (stw_storage_plugin_get_cookies_finish (plugin, result, &error));
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "storage.EVAL_REQUIRED");
  g_clear_error (&error);

  {
    g_autoptr(JsonObject) stop = ok (call (dispatcher, FALSE, sid, "electron_stop", NULL));
  }
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
}

int
main (int    argc,
      char **argv)
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/storage-plugin/session", test_storage);
  g_test_add_func ("/storage-plugin/partition", test_partition);

  return g_test_run ();
}
