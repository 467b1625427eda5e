/* test-wait.c: the waits and expectations of StwSurface from C, against the
 * pages app (tests/fixtures/pages-app, waits.html) on the Electron stand-in
 * and Chromium
 *
 * Blocking and asynchronous calls met late (the page changes 300 ms after a
 * click), timeouts with their details, a cancelled wait that ends at once
 * and stops its promise in the page, a wait that goes on across a
 * navigation, and arguments refused before the page sees them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stagewright.h"
#include "stw-surface-private.h"
#include "stw-test-utils.h"

static struct
{
  StwSessionManager *manager;
  StwSession        *session;
  StwSurface        *window;
  char              *skip;
} app;

static void
spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < until)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
}

static gboolean
have_app (void)
{
  if (app.skip != NULL)
    {
      g_test_skip (app.skip);
      return FALSE;
    }
  g_assert_nonnull (app.window);
  return TRUE;
}

static void
click (const char *selector)
{
  g_autoptr(StwTarget) target = stw_target_new_for_selector (selector);
  g_autoptr(StwActionResult) answer = NULL;
  g_autoptr(GError) error = NULL;

  answer = stw_surface_click_sync (app.window, target, NULL, NULL, &error);
  g_assert_no_error (error);
}

static void
reset (void)
{
  g_autoptr(StwTarget) status = stw_target_new_for_selector ("#status");
  g_autoptr(GError) error = NULL;

  click ("#reset");
  g_assert_true (stw_surface_expect_text_sync (app.window, status, "equals", "Idle", NULL, 5000, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
}

/* How many waits the page has in progress. */
static gint64
running_in_page (void)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };

  _stw_surface_call_page_async (app.window, "waitsRunning", NULL, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  answer = _stw_surface_call_page_finish (app.window, result, NULL, &error);
  g_assert_no_error (error);
  return json_object_get_int_member (json_node_get_object (answer), "running");
}

static void
test_launch (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *main = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  g_autoptr(StwLaunchOptions) options = stw_launch_options_new ();
  const char * const args[] = { "--page=waits", NULL };
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwTarget) reset_button = stw_target_new_for_selector ("#reset");
  StwTestResult wait = { 0 };

  if (!g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) ||
      !g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE))
    {
      app.skip = g_strdup ("the Electron stand-in or Chromium is missing");
      g_test_skip (app.skip);
      return;
    }

  stw_launch_options_set_executable_path (options, electron);
  stw_launch_options_set_main (options, main);
  stw_launch_options_set_args (options, args);
  app.manager = stw_session_manager_new ();
  stw_session_manager_launch_async (app.manager, options, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  app.session = stw_session_manager_launch_finish (app.manager, result, &error);
  g_assert_no_error (error);
  app.window = g_object_ref (stw_session_get_active_surface (app.session));
  g_assert_true (stw_surface_wait_for_selector_sync (app.window, reset_button, "attached", 15000, NULL, NULL, &error));
  g_assert_no_error (error);
}

static void
test_selector_sync (void)
{
  g_autoptr(StwTarget) box = stw_target_new_for_selector ("#box");
  g_autoptr(StwTarget) removable = stw_target_new_for_selector ("#removable");
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *details;

  if (!have_app ())
    return;
  reset ();

  /* Not yet: a one-check wait times out with what it saw. */
  g_assert_false (stw_surface_wait_for_selector_sync (app.window, box, NULL, 0, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_WAIT_TIMEOUT);
  details = stw_error_get_details (error);
  g_assert_cmpstr (json_object_get_string_member (details, "state"), ==, "visible");
  g_assert_true (json_object_get_boolean_member (details, "attached"));
  g_assert_false (json_object_get_boolean_member (details, "visible"));
  g_clear_error (&error);

  click ("#show-later");
  g_assert_true (stw_surface_wait_for_selector_sync (app.window, box, "visible", 10000, &element, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (stw_element_ref_get_ref (element), >=, 1);
  g_assert_cmpstr (stw_element_ref_get_surface_id (element), ==, stw_surface_get_id (app.window));

  click ("#remove-later");
  g_clear_pointer (&element, stw_element_ref_free);
  g_assert_true (stw_surface_wait_for_selector_sync (app.window, removable, "detached", 10000, &element, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (element);

  /* Refused before the page. */
  g_assert_false (stw_surface_wait_for_selector_sync (app.window, box, "gone", 100, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
}

static void
test_state_async (void)
{
  g_autoptr(StwTarget) agree = stw_target_new_for_selector ("#agree");
  g_autoptr(StwElementState) wanted = stw_element_state_new (STW_STATE_CHECKED | STW_STATE_ENABLED,
                                                             STW_STATE_CHECKED | STW_STATE_ENABLED, 0);
  g_autoptr(StwElementState) bogus = stw_element_state_new (0, 0, 0);
  g_autoptr(StwElementState) state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };

  if (!have_app ())
    return;
  reset ();

  stw_surface_wait_for_state_async (app.window, agree, wanted, 10000, NULL, stw_test_result_cb, &wait);
  spin (50);
  g_assert_null (wait.result);
  click ("#check-later");
  result = stw_test_wait_result (&wait, 15000);
  state = stw_surface_wait_for_state_finish (app.window, result, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (state->values & STW_STATE_CHECKED);
  g_assert_true (state->values & STW_STATE_VISIBLE);

  /* A timeout carries the last state seen. */
  wanted->values &= ~STW_STATE_CHECKED;
  g_clear_pointer (&state, stw_element_state_free);
  state = stw_surface_expect_state_sync (app.window, agree, wanted, 200, NULL, NULL, &error);
  g_assert_null (state);
  g_assert_error (error, STW_ERROR, STW_ERROR_EXPECTATION_FAILED);
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (stw_error_get_details (error), "last_state"),
                                                 "checked"));
  g_clear_error (&error);

  /* No flag that matters, or a flag other than checked wanted mixed. */
  state = stw_surface_wait_for_state_sync (app.window, agree, bogus, 100, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  bogus->known = bogus->mixed = STW_STATE_PRESSED;
  state = stw_surface_wait_for_state_sync (app.window, agree, bogus, 100, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
}

static void
test_expect_text_and_value (void)
{
  g_autoptr(StwTarget) status = stw_target_new_for_selector ("#status");
  g_autoptr(StwTarget) field = stw_target_new_for_selector ("#field");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *actual = NULL;
  JsonObject *details;
  StwTestResult wait = { 0 };

  if (!have_app ())
    return;
  reset ();

  click ("#text-later");
  stw_surface_expect_text_async (app.window, status, "matches", "^d", "i", 10000, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 15000);
  g_assert_true (stw_surface_expect_text_finish (app.window, result, &actual, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (actual, ==, "Done");

  g_clear_pointer (&actual, g_free);
  g_assert_false (stw_surface_expect_text_sync (app.window, status, "not_contains", "on", NULL, 150, &actual, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_EXPECTATION_FAILED);
  details = stw_error_get_details (error);
  g_assert_cmpstr (json_object_get_string_member (details, "actual"), ==, "Done");
  g_assert_cmpstr (json_object_get_string_member (details, "expected"), ==, "on");
  g_assert_cmpstr (json_object_get_string_member (details, "predicate"), ==, "not_contains");
  g_clear_error (&error);

  /* ReDoS shapes never reach the page. */
  g_assert_false (stw_surface_expect_text_sync (app.window, status, "matches", "(a+)+$", NULL, 100, NULL, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (stw_surface_expect_text_sync (app.window, status, "matches", "a", "g", 100, NULL, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  click ("#value-later");
  g_clear_pointer (&actual, g_free);
  g_assert_true (stw_surface_expect_value_sync (app.window, field, "equals", "filled", NULL, 10000, &actual, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (actual, ==, "filled");

  g_clear_pointer (&actual, g_free);
  g_assert_true (stw_surface_assert_pattern_sync (app.window, status, "role", "equals", "status", NULL, &actual, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (actual, ==, "status");
}

static void
test_count_url_visible (void)
{
  g_autoptr(StwTarget) box = stw_target_new_for_selector ("#box");
  g_autoptr(JsonObject) query = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  gint64 actual = 0;

  if (!have_app ())
    return;
  reset ();

  json_object_set_string_member (query, "selector", ".item");
  json_object_set_int_member (query, "min", 5);
  click ("#items-later");
  g_assert_true (stw_surface_expect_count_sync (app.window, query, 10000, &actual, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (actual, ==, 5);

  json_object_set_int_member (query, "max", 1);
  g_assert_false (stw_surface_expect_count_sync (app.window, query, 0, &actual, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);  /* min above max */
  g_clear_error (&error);

  click ("#show-later");
  g_assert_true (stw_surface_expect_visible_sync (app.window, box, 10000, NULL, NULL, &error));
  g_assert_no_error (error);

  g_assert_true (stw_surface_expect_url_sync (app.window, "matches", "waits\\.html", NULL, 0, &url, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (url, "http://127.0.0.1:"));
}

static void
test_event (void)
{
  g_autoptr(StwTarget) status = stw_target_new_for_selector ("#status");
  g_autoptr(JsonObject) event = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_app ())
    return;
  reset ();

  click ("#event-later");
  event = stw_surface_wait_for_event_sync (app.window, "settled", status, NULL, NULL, 10000, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (event, "type"), ==, "settled");

  g_clear_pointer (&event, json_object_unref);
  event = stw_surface_wait_for_event_sync (app.window, "navigation", NULL, "(", NULL, 100, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  event = stw_surface_wait_for_event_sync (app.window, "load", NULL, NULL, NULL, 200, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_WAIT_TIMEOUT);
}

/* Cancelled, a wait ends at once with G_IO_ERROR_CANCELLED, and its promise
 * in the page is stopped too. */
static void
test_cancelled (void)
{
  g_autoptr(StwTarget) never = stw_target_new_for_selector ("#never-there");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  gint64 cancelled_at;
  StwTestResult wait = { 0 };

  if (!have_app ())
    return;

  g_assert_cmpint (running_in_page (), ==, 0);
  stw_surface_wait_for_selector_async (app.window, never, "attached", 60000, cancellable, stw_test_result_cb, &wait);
  spin (300);
  g_assert_null (wait.result);
  g_assert_cmpint (running_in_page (), ==, 1);

  cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  result = stw_test_wait_result (&wait, 5000);
  g_assert_false (stw_surface_wait_for_selector_finish (app.window, result, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - cancelled_at, <, stw_test_timeout_ms (2000) * 1000);

  /* The stop reaches the page right after (its answer nobody awaits). */
  for (guint i = 0; i < 100 && running_in_page () != 0; i++)
    spin (20);
  g_assert_cmpint (running_in_page (), ==, 0);

  /* Cancelled before it starts, too. */
  g_clear_error (&error);
  g_assert_false (stw_surface_wait_for_selector_sync (app.window, never, NULL, 60000, NULL, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* The wait starts in one document and is met in the next. */
static void
test_across_navigation (void)
{
  g_autoptr(StwTarget) status = stw_target_new_for_selector ("#status");
  g_autoptr(GError) error = NULL;
  g_autofree char *actual = NULL;

  if (!have_app ())
    return;
  reset ();

  click ("#navigate-later");
  g_assert_true (stw_surface_expect_text_sync (app.window, status, "equals", "Second document", NULL, 15000,
                                               &actual, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (actual, ==, "Second document");
}

static void
test_stop (void)
{
  if (app.session != NULL)
    {
      g_autoptr(GError) error = NULL;
      stw_session_stop_sync (app.session, 10000, NULL, NULL, &error);
      g_assert_no_error (error);
    }
  g_clear_object (&app.window);
  g_clear_object (&app.session);
  g_clear_object (&app.manager);
  g_clear_pointer (&app.skip, g_free);
}

int
main (int   argc,
      char *argv[])
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/wait/launch", test_launch);
  g_test_add_func ("/wait/selector-sync", test_selector_sync);
  g_test_add_func ("/wait/state-async", test_state_async);
  g_test_add_func ("/wait/expect-text-and-value", test_expect_text_and_value);
  g_test_add_func ("/wait/count-url-visible", test_count_url_visible);
  g_test_add_func ("/wait/event", test_event);
  g_test_add_func ("/wait/cancelled", test_cancelled);
  g_test_add_func ("/wait/across-navigation", test_across_navigation);
  g_test_add_func ("/wait/stop", test_stop);
  return g_test_run ();
}
