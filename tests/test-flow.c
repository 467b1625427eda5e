/* test-flow.c: the see-and-act flow of a C test harness, through the public
 * API only — launch the sign-up page of the pages app, snapshot, fill,
 * choose, check, click, read the result by ref, screenshot, stop.
 *
 * Every step is a blocking call except the click, which goes async, so both
 * halves of the API are exercised on a real app (Chromium through the
 * Electron stand-in).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stagewright.h"
#include "stw-test-utils.h"

#define WELCOME "Welcome, Ada Lovelace! Your Pro plan is active."

typedef struct
{
  GAsyncResult *result;
  gboolean      done;
} Wait;

static void
on_result (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
  wait->done = TRUE;
}

static void
test_sign_up (void)
{
  g_autoptr(StwSessionManager) manager = stw_session_manager_new ();
  g_autoptr(StwLaunchOptions) options = stw_launch_options_new ();
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  const char *args[] = { "--page=signup", NULL };
  g_autoptr(StwSnapshotOptions) snapshot_options = stw_snapshot_options_new ();
  g_autoptr(StwSession) session = NULL;
  g_autoptr(StwSnapshot) snapshot = NULL;
  g_autoptr(StwActionResult) answer = NULL;
  g_autoptr(JsonObject) filters = json_object_new ();
  g_autoptr(StwElementList) found = NULL;
  g_autoptr(StwScreenshot) image = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwTarget) name = NULL, email = NULL, plan = NULL, terms = NULL, submit = NULL, status = NULL;
  g_autofree char *value = NULL;
  g_autofree char *text = NULL;
  const char *const pro[] = { "Pro", NULL };
  const char *snapshot_text;
  gboolean escalated = TRUE;
  StwSurface *surface;
  Wait wait = { 0 };

  if (!g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("Debian's chromium is not installed");
      return;
    }

  stw_launch_options_set_executable_path (options, electron);
  stw_launch_options_set_main (options, app);
  stw_launch_options_set_args (options, args);
  {
    g_autoptr(GAsyncResult) launched = NULL;
    Wait launch_wait = { 0 };

    stw_session_manager_launch_async (manager, options, NULL, on_result, &launch_wait);
    g_assert_true (stw_test_wait_until (&launch_wait.done, stw_test_timeout_ms (60000)));
    launched = launch_wait.result;
    session = stw_session_manager_launch_finish (manager, launched, &error);
    g_assert_no_error (error);
  }
  surface = stw_session_get_active_surface (session);
  g_assert_nonnull (surface);

  /* See. */
  stw_snapshot_options_set_format (snapshot_options, STW_SNAPSHOT_FORMAT_TEXT);
  snapshot = stw_surface_snapshot_sync (surface, snapshot_options, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (stw_snapshot_is_diff (snapshot));
  snapshot_text = stw_snapshot_get_text (snapshot);
  name = stw_target_new_for_ref (stw_test_snapshot_ref (snapshot_text, "textbox", "Full name"));
  email = stw_target_new_for_ref (stw_test_snapshot_ref (snapshot_text, "textbox", "Email"));
  plan = stw_target_new_for_ref (stw_test_snapshot_ref (snapshot_text, "combobox", "Plan"));
  terms = stw_target_new_for_ref (stw_test_snapshot_ref (snapshot_text, "checkbox", "I accept the terms"));
  submit = stw_target_new_for_ref (stw_test_snapshot_ref (snapshot_text, "button", "Sign up"));

  /* Act. */
  answer = stw_surface_fill_sync (surface, name, "Ada Lovelace", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_element_ref_get_ref (stw_action_result_get_target (answer)), ==, stw_target_get_ref (name));
  g_clear_pointer (&answer, stw_action_result_free);
  answer = stw_surface_fill_sync (surface, email, "ada@example.org", NULL, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&answer, stw_action_result_free);
  answer = stw_surface_select_options_sync (surface, plan, pro, NULL, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&answer, stw_action_result_free);
  answer = stw_surface_set_checked_sync (surface, terms, TRUE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stw_element_ref_get_name (stw_action_result_get_target (answer)), ==, "I accept the terms");
  g_clear_pointer (&answer, stw_action_result_free);
  value = stw_surface_get_value_sync (surface, email, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "ada@example.org");

  stw_surface_click_async (surface, submit, NULL, NULL, on_result, &wait);
  g_assert_true (stw_test_wait_until (&wait.done, stw_test_timeout_ms (15000)));
  answer = stw_surface_click_finish (surface, wait.result, &error);
  g_clear_object (&wait.result);
  g_assert_no_error (error);
  g_clear_pointer (&answer, stw_action_result_free);

  /* The form went: its refs are refused, never given to something else. */
  answer = stw_surface_fill_sync (surface, name, "x", NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_REF_NOT_FOUND);
  g_assert_null (answer);
  g_clear_error (&error);

  /* Read the result through the status region's ref. */
  json_object_set_string_member (filters, "role", "status");
  found = stw_surface_find_sync (surface, filters, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_element_list_get_count (found), ==, 1);
  g_assert_cmpuint (stw_element_list_get_n_elements (found), ==, 1);
  status = stw_target_new_for_ref (stw_element_ref_get_ref (
      stw_element_info_get_element (stw_element_list_get_element (found, 0))));
  text = stw_surface_get_text_sync (surface, status, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, WELCOME);

  image = stw_surface_capture_screenshot_sync (surface, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (stw_screenshot_get_bytes (image)), >, 8);
  g_assert_cmpint (memcmp (g_bytes_get_data (stw_screenshot_get_bytes (image), NULL), "\x89PNG\r\n\x1a\n", 8), ==, 0);

  g_assert_true (stw_session_stop_sync (session, 5000, &escalated, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (stw_session_is_running (session));
}

int
main (int   argc,
      char *argv[])
{
  stw_test_init (&argc, &argv);
  g_test_add_func ("/flow/sign-up", test_sign_up);
  return g_test_run ();
}
