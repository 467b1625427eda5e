/* test-actions.c: the interaction methods of StwSurface from C, against the
 * pages app (tests/fixtures/pages-app, forms.html) on the Electron stand-in
 * and Chromium
 *
 * Blocking and asynchronous calls, by selector and by ref: click, fill,
 * clear, select, check, keys, files; what the page holds afterwards is read
 * back with the read methods. A click waiting on a covered button is
 * cancelled and must end with G_IO_ERROR_CANCELLED at once. The options'
 * JSON reader clamps and refuses as the contract says.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "stagewright.h"
#include "stw-test-utils.h"

static struct
{
  StwSessionManager *manager;
  StwSession        *session;
  StwSurface        *window;
  char              *skip;
} app;

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

static char *
value_of (const char *selector)
{
  g_autoptr(StwTarget) target = stw_target_new_for_selector (selector);
  g_autoptr(GError) error = NULL;
  char *value = stw_surface_get_value_sync (app.window, target, NULL, NULL, &error);

  g_assert_no_error (error);
  return value;
}

static char *
events (void)
{
  g_autoptr(StwTarget) target = stw_target_new_for_selector ("#events");
  g_autoptr(GError) error = NULL;
  char *text = stw_surface_get_text_sync (app.window, target, NULL, NULL, &error);

  g_assert_no_error (error);
  return text;
}

static guint
ref_of (const StwActionResult *answer)
{
  const StwElementRef *target = stw_action_result_get_target (answer);

  g_assert_nonnull (target);
  g_assert_cmpuint (stw_element_ref_get_ref (target), >=, 1);
  g_assert_cmpstr (stw_element_ref_get_surface_id (target), ==, stw_surface_get_id (app.window));
  return stw_element_ref_get_ref (target);
}

static void
test_launch (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *main = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  g_autoptr(StwLaunchOptions) options = stw_launch_options_new ();
  const char * const args[] = { "--page=forms", NULL };
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
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
}

static void
test_click_sync (void)
{
  g_autoptr(StwTarget) bold = stw_target_new_for_selector ("#bold");
  g_autoptr(StwTarget) by_ref = NULL;
  g_autoptr(StwActionResult) answer = NULL;
  g_autoptr(StwActionResult) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;
  g_autofree char *pressed = NULL;

  if (!have_app ())
    return;

  answer = stw_surface_click_sync (app.window, bold, NULL, NULL, &error);
  g_assert_no_error (error);
  by_ref = stw_target_new_for_ref (ref_of (answer));
  log = events ();
  g_assert_nonnull (strstr (log, "click #bold button=0 detail=1 trusted=1"));
  pressed = stw_surface_get_attribute_sync (app.window, bold, "aria-pressed", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pressed, ==, "true");

  /* The same element by its ref. */
  again = stw_surface_click_sync (app.window, by_ref, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ref_of (again), ==, stw_target_get_ref (by_ref));
  g_clear_pointer (&pressed, g_free);
  pressed = stw_surface_get_attribute_sync (app.window, bold, "aria-pressed", NULL, NULL, &error);
  g_assert_cmpstr (pressed, ==, "false");
}

static void
test_click_refused (void)
{
  g_autoptr(StwTarget) covered = stw_target_new_for_selector ("#covered");
  g_autoptr(StwTarget) disabled = stw_target_new_for_selector ("#delete");
  g_autoptr(StwActionOptions) options = stw_action_options_new ();
  g_autoptr(StwActionResult) answer = NULL;
  g_autoptr(GError) error = NULL;
  gint64 started;

  if (!have_app ())
    return;

  stw_action_options_set_timeout_ms (options, 300);
  started = g_get_monotonic_time ();
  answer = stw_surface_click_sync (app.window, covered, options, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_ELEMENT_NOT_VISIBLE);
  g_assert_nonnull (strstr (error->message, "div#overlay"));
  g_assert_cmpint (g_get_monotonic_time () - started, >=, 250 * 1000);
  g_clear_error (&error);

  answer = stw_surface_click_sync (app.window, disabled, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_ELEMENT_DISABLED);
  g_assert_null (answer);
}

/* A click waiting for a covered button, cancelled: it ends with
 * G_IO_ERROR_CANCELLED at once, not after its budget. */
static void
test_click_cancelled (void)
{
  g_autoptr(StwTarget) covered = stw_target_new_for_selector ("#covered");
  g_autoptr(StwActionOptions) options = stw_action_options_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(StwActionResult) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  StwTestResult wait = { 0 };
  gint64 cancelled_at;

  if (!have_app ())
    return;

  stw_action_options_set_timeout_ms (options, 20000);
  stw_surface_click_async (app.window, covered, options, cancellable, stw_test_result_cb, &wait);
  /* Let it wait in the page for a while. */
  {
    gint64 until = g_get_monotonic_time () + 300 * 1000;
    while (g_get_monotonic_time () < until)
      g_main_context_iteration (NULL, FALSE);
  }
  g_assert_null (wait.result);
  cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  result = stw_test_wait_result (&wait, 2000);
  g_assert_cmpint (g_get_monotonic_time () - cancelled_at, <, 500 * 1000);
  answer = stw_surface_click_finish (app.window, result, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (answer);

  /* The surface still answers. */
  value = value_of ("#member-since");
  g_assert_cmpstr (value, ==, "2019");
}

static void
test_fill_async (void)
{
  g_autoptr(StwTarget) name = stw_target_new_for_selector ("#fullname");
  g_autoptr(StwTarget) by_ref = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(StwActionResult) answer = NULL;
  g_autoptr(StwActionResult) cleared = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  StwTestResult wait = { 0 };

  if (!have_app ())
    return;

  stw_surface_fill_async (app.window, name, "Ada Lovelace", NULL, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  answer = stw_surface_fill_finish (app.window, result, &error);
  g_assert_no_error (error);
  value = value_of ("#fullname");
  g_assert_cmpstr (value, ==, "Ada Lovelace");

  by_ref = stw_target_new_for_ref (ref_of (answer));
  g_clear_object (&result);
  stw_surface_clear_async (app.window, by_ref, NULL, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  cleared = stw_surface_clear_finish (app.window, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ref_of (cleared), ==, stw_target_get_ref (by_ref));
  g_clear_pointer (&value, g_free);
  value = value_of ("#fullname");
  g_assert_cmpstr (value, ==, "");
}

static void
test_select_and_check (void)
{
  g_autoptr(StwTarget) plan = stw_target_new_for_selector ("#plan");
  g_autoptr(StwTarget) newsletter = stw_target_new_for_selector ("#newsletter");
  const char * const by_label[] = { "Team plan", NULL };
  const char * const by_value[] = { "pro", NULL };
  const char * const nothing[] = { "Gold plan", NULL };
  g_autoptr(StwActionResult) selected = NULL;
  g_autoptr(StwActionResult) checked = NULL;
  g_autoptr(StwActionResult) unchecked = NULL;
  g_autoptr(StwElementState) state = NULL;
  g_autoptr(StwActionResult) refused = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  const char * const *chosen;

  if (!have_app ())
    return;

  selected = stw_surface_select_options_sync (app.window, plan, by_label, NULL, NULL, &error);
  g_assert_no_error (error);
  chosen = stw_action_result_get_values (selected);
  g_assert_cmpuint (g_strv_length ((GStrv) chosen), ==, 1);
  g_assert_cmpstr (chosen[0], ==, "team");
  value = value_of ("#plan");
  g_assert_cmpstr (value, ==, "team");
  g_clear_pointer (&selected, stw_action_result_free);

  selected = stw_surface_select_options_sync (app.window, plan, by_value, NULL, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&value, g_free);
  value = value_of ("#plan");
  g_assert_cmpstr (value, ==, "pro");

  refused = stw_surface_select_options_sync (app.window, plan, nothing, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  checked = stw_surface_set_checked_sync (app.window, newsletter, TRUE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (stw_action_result_get_dialog (checked));
  g_clear_pointer (&checked, stw_action_result_free);
  checked = stw_surface_set_checked_sync (app.window, newsletter, TRUE, NULL, NULL, &error);
  g_assert_no_error (error);
  unchecked = stw_surface_set_checked_sync (app.window, newsletter, FALSE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stw_element_ref_get_role (stw_action_result_get_target (unchecked)), ==, "checkbox");
  state = stw_surface_get_state_sync (app.window, newsletter, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (state->known & STW_STATE_CHECKED);
  g_assert_false (state->values & STW_STATE_CHECKED);
}

static void
test_keys_and_files (void)
{
  g_autoptr(StwTarget) comments = stw_target_new_for_selector ("#comments");
  g_autoptr(StwTarget) attachment = stw_target_new_for_selector ("#attachment");
  g_autofree char *dir = g_dir_make_tmp ("stw-actions-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "note.txt", NULL);
  const char * const keys[] = { "Control+A", "Backspace", "x", NULL };
  const char * const bad_keys[] = { "a", "Hyper+Q", NULL };
  const char * const relative[] = { "note.txt", NULL };
  g_autoptr(StwActionResult) typed = NULL;
  g_autoptr(StwActionResult) pressed = NULL;
  g_autoptr(StwActionResult) refused = NULL;
  g_autoptr(StwActionResult) files = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  g_autofree char *log = NULL;

  if (!have_app ())
    return;

  typed = stw_surface_type_text_sync (app.window, comments, "Hello, world", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ref_of (typed), >=, 1);
  value = value_of ("#comments");
  g_assert_cmpstr (value, ==, "Hello, world");

  pressed = stw_surface_press_sequence_sync (app.window, NULL, keys, NULL, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&value, g_free);
  value = value_of ("#comments");
  g_assert_cmpstr (value, ==, "x");

  refused = stw_surface_press_sequence_sync (app.window, NULL, bad_keys, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  g_clear_pointer (&value, g_free);
  value = value_of ("#comments");
  g_assert_cmpstr (value, ==, "x");   /* nothing was pressed */

  g_assert_true (g_file_set_contents (file, "note\n", -1, NULL));
  {
    const char * const paths[] = { file, NULL };

    files = stw_surface_set_files_sync (app.window, attachment, paths, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    log = events ();
    g_assert_nonnull (strstr (log, "change #attachment files=\"note.txt\""));
    g_assert_cmpstrv (stw_action_result_get_values (files), ((const char * const[]) { "note.txt", NULL }));
    g_clear_pointer (&files, stw_action_result_free);

    /* Outside the app root. */
    files = stw_surface_set_files_sync (app.window, attachment, paths, g_test_get_dir (G_TEST_DIST), NULL, NULL,
                                        &error);
    g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
    g_clear_error (&error);
  }
  files = stw_surface_set_files_sync (app.window, attachment, relative, NULL, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_ABSOLUTE_PATH_REQUIRED);
  g_clear_error (&error);
  g_unlink (file);
  g_rmdir (dir);
}

/* A capital letter is a capital, alone or in a sequence; Shift makes one;
 * a shortcut's letter is the lower-case key (issue 16, defect 17). */
static void
test_capitals (void)
{
  g_autoptr(StwTarget) search = stw_target_new_for_selector ("#search");
  const char * const keys[] = { "Control+A", "Backspace", "H", "i", "Shift+j", NULL };
  g_autoptr(StwActionResult) pressed = NULL;
  g_autoptr(StwActionResult) sequence = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  g_autofree char *log = NULL;

  if (!have_app ())
    return;

  sequence = stw_surface_press_sequence_sync (app.window, search, keys, NULL, NULL, &error);
  g_assert_no_error (error);
  pressed = stw_surface_press_key_sync (app.window, search, "X", NULL, NULL, &error);
  g_assert_no_error (error);
  value = value_of ("#search");
  g_assert_cmpstr (value, ==, "HiJX");
  log = events ();
  g_assert_nonnull (strstr (log, "keydown #search key=X code=KeyX mods=shift trusted=1"));
  g_assert_nonnull (strstr (log, "keydown #search key=a code=KeyA mods=ctrl trusted=1"));
}

static void
test_options_from_json (void)
{
  static const struct
  {
    const char *json;
    guint       timeout_ms;
  } clamped[] = {
    { "{}", 5000 },
    { "{\"timeoutMs\":-1}", 0 },
    { "{\"timeoutMs\":0}", 0 },
    { "{\"timeoutMs\":999999}", 30000 },
    { "{\"timeoutMs\":1e300}", 30000 },
    { "{\"timeoutMs\":1234}", 1234 },
  };
  static const char * const refused[] = {
    "{\"clickCount\":0}", "{\"clickCount\":1000}", "{\"clickCount\":1.5}", "{\"button\":\"foo\"}",
    "{\"button\":1}", "{\"force\":\"yes\"}", "{\"timeoutMs\":\"soon\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (clamped); i++)
    {
      g_autoptr(JsonNode) node = stw_test_parse (clamped[i].json);
      g_autoptr(GError) error = NULL;
      g_autoptr(StwActionOptions) options = stw_action_options_new_from_json (json_node_get_object (node), &error);

      g_assert_no_error (error);
      g_assert_cmpuint (stw_action_options_get_timeout_ms (options), ==, clamped[i].timeout_ms);
    }
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(JsonNode) node = stw_test_parse (refused[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StwActionOptions) options = stw_action_options_new_from_json (json_node_get_object (node), &error);

      g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
      g_assert_null (options);
    }
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

  g_test_add_func ("/actions/options-from-json", test_options_from_json);
  g_test_add_func ("/actions/launch", test_launch);
  g_test_add_func ("/actions/click-sync", test_click_sync);
  g_test_add_func ("/actions/click-refused", test_click_refused);
  g_test_add_func ("/actions/click-cancelled", test_click_cancelled);
  g_test_add_func ("/actions/fill-async", test_fill_async);
  g_test_add_func ("/actions/select-and-check", test_select_and_check);
  g_test_add_func ("/actions/keys-and-files", test_keys_and_files);
  g_test_add_func ("/actions/capitals", test_capitals);
  g_test_add_func ("/actions/stop", test_stop);
  return g_test_run ();
}
