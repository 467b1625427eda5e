/* test-clock-plugin.c: the clock plugin loaded into a dispatcher of a C
 * harness linked to the shared library (issue 19, item 8)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plugin from plugins/built/ on tests/fixtures/clock-app: its tools
 * blocking (stw_dispatcher_call_json_sync) and asynchronous
 * (stw_dispatcher_invoke_async), and its typed API (StwClockPlugin's
 * triads, answering StwClockStatus) blocking and async: clock.NOT_INSTALLED
 * before an install, the page's Date at the installed time, a one-minute
 * timer fired at once by run_for, hostile values refused by the API
 * itself, and the main process's Date with main eval allowed.
 */
#include <string.h>

#include <stw-clock.h>

#include "stw-test-utils.h"

static char *
plugin_file (void)
{
  return g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "clock.plugin", NULL);
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

static char *
session_args (const char *session_id,
              const char *rest)
{
  return g_strdup_printf ("{\"sessionId\":\"%s\"%s%s}", session_id, rest ? "," : "", rest ? rest : "");
}

/* The async form of one operation, waited for. */
#define WAIT_ASYNC(op, plugin, session, ...) \
  G_STMT_START { \
    g_autoptr(GAsyncResult) result_ = NULL; \
    StwTestResult wait_ = { 0 }; \
    stw_clock_plugin_##op##_async (plugin, session, __VA_ARGS__, NULL, stw_test_result_cb, &wait_); \
    result_ = stw_test_wait_result (&wait_, 60000); \
    status = stw_clock_plugin_##op##_finish (plugin, result_, &error); \
  } G_STMT_END

/* The page's text at @selector of the active window. */
static char *
text_of (StwDispatcher *dispatcher,
         const char    *sid,
         const char    *selector)
{
  g_autofree char *rest = g_strdup_printf ("\"selector\":\"%s\"", selector);
  g_autofree char *args = session_args (sid, rest);
  g_autoptr(JsonObject) got = ok (call (dispatcher, "electron_get_text", args));

  return g_strdup (json_object_get_string_member (got, "text"));
}

/* The clock app launched by a dispatcher that loaded the plugin. */
typedef struct
{
  StwDispatcher *dispatcher;
  GList         *loaded;
  StwPlugin     *plugin;
  StwSession    *session;
  char          *sid;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *file = plugin_file ();
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "clock-app", NULL);
  g_autofree char *launch_args = NULL;
  g_autoptr(JsonObject) launch = NULL;
  g_autoptr(GError) error = NULL;
  const char * const specs[] = { file, NULL };

  if (!stw_test_electron_available ())
    return;
  fixture->dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (fixture->dispatcher);
  stw_dispatcher_set_allow_eval (fixture->dispatcher, GPOINTER_TO_UINT (data));
  fixture->loaded = stw_dispatcher_load_plugins_sync (fixture->dispatcher, specs, NULL, NULL, &error);
  g_assert_no_error (error);
  fixture->plugin = stw_dispatcher_lookup_plugin (fixture->dispatcher, "clock");
  g_assert_nonnull (fixture->plugin);
  launch_args = g_strdup_printf ("{\"executablePath\":\"%s\",\"main\":\"%s\"}", electron, app);
  launch = ok (call (fixture->dispatcher, "electron_launch", launch_args));
  fixture->sid = g_strdup (json_object_get_string_member (launch, "session_id"));
  fixture->session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (fixture->dispatcher),
                                                 fixture->sid);
  g_assert_nonnull (fixture->session);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  if (fixture->dispatcher == NULL)
    return;
  {
    g_autofree char *stop_args = session_args (fixture->sid, NULL);
    g_autoptr(JsonObject) stop = ok (call (fixture->dispatcher, "electron_stop", stop_args));
  }
  g_assert_true (stw_dispatcher_unload_plugins_sync (fixture->dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_list_free_full (fixture->loaded, g_object_unref);
  g_clear_object (&fixture->dispatcher);
  g_free (fixture->sid);
}

#define FIXTURE_LOCALS \
  StwDispatcher *dispatcher = fixture->dispatcher; \
  StwPlugin *plugin = fixture->plugin; \
  StwSession *session = fixture->session; \
  const char *sid = fixture->sid; \
  g_autoptr(GError) error = NULL; \
  if (dispatcher == NULL) \
    { \
      g_test_skip ("the Electron stand-in or Chromium is missing"); \
      return; \
    }

static void
test_clock_app (Fixture       *fixture,
                gconstpointer  data)
{
  gint64 y2030 = G_GINT64_CONSTANT (1893456000000);
  FIXTURE_LOCALS;

  g_assert_true (STW_IS_CLOCK_PLUGIN (plugin));
  g_assert_true (stw_error_registry_contains (stw_error_registry_get_default (), "clock.NOT_INSTALLED"));
  g_assert_true (stw_error_registry_contains (stw_error_registry_get_default (), "clock.UNSUPPORTED"));

  {
    g_autofree char *plain = session_args (sid, NULL);
    g_autofree char *run = session_args (sid, "\"ms\":60000");
    g_autofree char *install = session_args (sid, "\"time\":\"2030-01-01T00:00:00Z\"");
    g_autofree char *arm = session_args (sid, "\"selector\":\"#arm\"");
    g_autoptr(JsonObject) before = ok (call (dispatcher, "clock_status", plain));
    g_autoptr(JsonObject) refused = call (dispatcher, "clock_run_for", run);
    g_autoptr(JsonObject) refused_async = call_async (dispatcher, "clock_pause", plain);
    g_autoptr(JsonObject) installed = NULL;
    g_autoptr(JsonObject) clicked = NULL;
    g_autoptr(JsonObject) ran = NULL;
    g_autofree char *fired = NULL;

    g_assert_false (json_object_get_boolean_member (before, "installed"));
    assert_code (refused, "clock.NOT_INSTALLED");
    assert_code (refused_async, "clock.NOT_INSTALLED");
    /* The typed API refuses alike, in the plugin's error domain. */
    {
      StwClockPlugin *clock = STW_CLOCK_PLUGIN (plugin);
      g_autoptr(StwClockStatus) status = stw_clock_plugin_advance_sync (clock, session, 1, NULL, &error);

      g_assert_null (status);
      g_assert_error (error, STW_CLOCK_ERROR, STW_CLOCK_ERROR_NOT_INSTALLED);
      g_clear_error (&error);
      WAIT_ASYNC (run_for, clock, session, 1);
      g_assert_null (status);
      g_assert_error (error, STW_CLOCK_ERROR, STW_CLOCK_ERROR_NOT_INSTALLED);
      g_clear_error (&error);
    }

    /* Blocking through the dispatcher: install, arm, run a minute. */
    installed = ok (call (dispatcher, "clock_install", install));
    g_assert_true (json_object_get_boolean_member (installed, "installed"));
    g_assert_cmpint (json_object_get_int_member (installed, "now"), >=, y2030);
    g_assert_cmpint (json_object_get_int_member (installed, "now"), <, y2030 + 60000);
    g_assert_cmpint (json_object_get_int_member (installed, "documents"), >=, 2);
    clicked = ok (call (dispatcher, "electron_click", arm));
    ran = ok (call_async (dispatcher, "clock_run_for", run));
    g_assert_cmpint (json_object_get_int_member (ran, "fired"), >=, 1);
    fired = text_of (dispatcher, sid, "#timer");
    g_assert_true (g_str_has_prefix (fired, "fired at 2030-01-01T00:01:"));
  }

  /* The typed API, blocking and async. */
  {
    StwClockPlugin *clock = STW_CLOCK_PLUGIN (plugin);
    g_autoptr(GDateTime) y2031 = g_date_time_new_utc (2031, 1, 1, 0, 0, 0);
    g_autoptr(GDateTime) y2020 = g_date_time_new_utc (2020, 1, 1, 0, 0, 0);
    g_autoptr(StwClockStatus) paused = stw_clock_plugin_pause_sync (clock, session, NULL, NULL, &error);
    g_autoptr(StwClockStatus) fixed = NULL;
    g_autoptr(StwClockStatus) moved = NULL;
    g_autoptr(StwClockStatus) advanced = NULL;
    g_autoptr(StwClockStatus) resumed = NULL;
    g_autoptr(StwClockStatus) reinstalled = NULL;
    g_autoptr(StwClockStatus) refused = NULL;
    g_autoptr(GError) negative_error = NULL;
    g_autoptr(GError) huge_error = NULL;
    g_autoptr(GError) past_error = NULL;
    gint64 now = 0;

    g_assert_no_error (error);
    g_assert_true (stw_clock_status_get_paused (paused));

    fixed = stw_clock_plugin_set_time_sync (clock, session, y2031, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (stw_clock_status_get_fixed (fixed));
    g_assert_cmpint (stw_clock_status_get_now (fixed), ==, G_GINT64_CONSTANT (1924992000000));

    {
      g_autoptr(StwClockStatus) status = NULL;

      WAIT_ASYNC (set_system_time, clock, session, y2031);
      g_assert_no_error (error);
      moved = g_steal_pointer (&status);
    }
    g_assert_false (stw_clock_status_get_fixed (moved));
    g_assert_cmpint (stw_clock_status_get_now (moved), ==, G_GINT64_CONSTANT (1924992000000));

    advanced = stw_clock_plugin_advance_sync (clock, session, 1000, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpint (stw_clock_status_get_now (advanced), ==, G_GINT64_CONSTANT (1924992001000));

    {
      g_autoptr(StwClockStatus) status = NULL;

      WAIT_ASYNC (run_for, clock, session, 500);
      g_assert_no_error (error);
      g_assert_cmpint (stw_clock_status_get_now (status), ==, G_GINT64_CONSTANT (1924992001500));
      g_assert_cmpuint (stw_clock_status_get_max_timers (status), ==, 10000);
    }
    {
      g_autoptr(StwClockStatus) status = stw_clock_plugin_status_sync (clock, session, NULL, &error);

      g_assert_no_error (error);
      g_assert_true (stw_clock_status_get_installed (status));
      g_assert_cmpuint (stw_clock_status_get_documents (status), >=, 2);
      g_object_get (status, "now", &now, NULL);
      g_assert_cmpint (now, ==, G_GINT64_CONSTANT (1924992001500));
    }

    /* Hostile values, refused by the API itself (no schema on this path). */
    refused = stw_clock_plugin_run_for_sync (clock, session, -1, NULL, &negative_error);
    g_assert_null (refused);
    g_assert_cmpstr (stw_error_get_code_name (negative_error), ==, "BAD_ARGUMENT");
    {
      g_autoptr(StwClockStatus) status = NULL;

      WAIT_ASYNC (advance, clock, session, G_MAXINT64);
      g_assert_null (status);
      huge_error = g_steal_pointer (&error);
      g_assert_cmpstr (stw_error_get_code_name (huge_error), ==, "BAD_ARGUMENT");
    }
    refused = stw_clock_plugin_pause_sync (clock, session, y2020, NULL, &past_error);
    g_assert_null (refused);
    g_assert_cmpstr (stw_error_get_code_name (past_error), ==, "BAD_ARGUMENT");

    {
      g_autoptr(GAsyncResult) result = NULL;
      StwTestResult wait = { 0 };

      stw_clock_plugin_resume_async (clock, session, NULL, stw_test_result_cb, &wait);
      result = stw_test_wait_result (&wait, 60000);
      resumed = stw_clock_plugin_resume_finish (clock, result, &error);
      g_assert_no_error (error);
    }
    g_assert_false (stw_clock_status_get_paused (resumed));
    reinstalled = stw_clock_plugin_install_sync (clock, session, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpint (ABS (stw_clock_status_get_now (reinstalled) - g_get_real_time () / 1000), <, 60000);
  }

}

/* With main-process eval allowed, the main process's Date follows the
 * clock too (the typed status says so); its timers only with mainTimers,
 * which this config leaves off. */
static void
test_main_process (Fixture       *fixture,
                   gconstpointer  data)
{
  FIXTURE_LOCALS;

  {
    g_autoptr(GDateTime) y2030 = g_date_time_new_utc (2030, 1, 1, 0, 0, 0);
    g_autoptr(StwClockStatus) status = NULL;
    g_autofree char *date_args = session_args (sid, "\"code\":\"return [new Date().toISOString(), "
                                                    "String(setTimeout(() => {}, 1)).length < 10]\"");
    g_autoptr(JsonObject) date = NULL;
    g_autofree char *run = session_args (sid, "\"ms\":1000");
    g_autoptr(JsonObject) ran = NULL;
    JsonArray *seen;

    WAIT_ASYNC (install, STW_CLOCK_PLUGIN (plugin), session, y2030);
    g_assert_no_error (error);
    g_assert_true (stw_clock_status_get_main_process (status));
    date = ok (call_async (dispatcher, "electron_eval_main", date_args));
    seen = json_object_get_array_member (date, "result");
    g_assert_true (g_str_has_prefix (json_array_get_string_element (seen, 0), "2030-01-01T00:0"));
    /* Node's own timers still: a Timeout, not a fake handle. */
    g_assert_true (json_array_get_boolean_element (seen, 1));
    ran = ok (call (dispatcher, "clock_run_for", run));
    g_assert_true (json_object_get_boolean_member (ran, "mainProcess"));
  }

}

int
main (int    argc,
      char **argv)
{
  stw_test_init (&argc, &argv);

  g_test_add ("/clock-plugin/clock-app", Fixture, GUINT_TO_POINTER (STW_EVAL_TARGET_NONE),
              fixture_set_up, test_clock_app, fixture_tear_down);
  g_test_add ("/clock-plugin/main-process", Fixture, GUINT_TO_POINTER (STW_EVAL_TARGET_ALL),
              fixture_set_up, test_main_process, fixture_tear_down);

  return g_test_run ();
}
