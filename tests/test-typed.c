/* test-typed.c: driving a page through the typed results of the 1.0 API
 *
 * Against the pages app's states page (tests/fixtures/pages-app,
 * states.html) on the Electron stand-in and Chromium, through the public
 * library only: launch, snapshot for the refs, find and list answering
 * StwElementLists, a click by ref answering a
 * StwActionResult whose target is a StwElementRef, fill, get_state (which
 * flags apply, their values, an indeterminate checkbox's mixed `checked`),
 * text, box, screenshots answering a StwScreenshot, expect_state with a mask, state as properties with notify::,
 * the app info, capabilities and window state, console messages and
 * dialog events, a stale ref failing with the STW_ERROR_REF_NOT_FOUND enum
 * value, stop.
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
  guint              go, all, first, name, remove;
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

static void
test_launch_and_snapshot (void)
{
  g_autoptr(StwSnapshotOptions) snapshot_options = stw_snapshot_options_new ();
  g_autoptr(StwSnapshot) snapshot = NULL;
  g_autoptr(StwSnapshot) since = NULL;
  g_autoptr(GError) error = NULL;
  const char *text;

  app.manager = stw_session_manager_new ();
  app.session = stw_test_launch_page (app.manager, "states", &app.skip);
  if (app.session == NULL)
    return;
  app.window = g_object_ref (stw_session_get_active_surface (app.session));

  /* A StwSnapshot; its text names the refs (its entries, open-ended, stay
   * JSON). */
  stw_snapshot_options_set_format (snapshot_options, STW_SNAPSHOT_FORMAT_TEXT);
  snapshot = stw_surface_snapshot_sync (app.window, snapshot_options, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (stw_snapshot_is_diff (snapshot));
  g_assert_cmpstr (stw_snapshot_get_surface_id (snapshot), ==, stw_surface_get_id (app.window));
  g_assert_cmpuint (stw_snapshot_get_entry_count (snapshot), >=, 5);
  g_assert_null (stw_snapshot_get_entries (snapshot));
  g_assert_false (stw_snapshot_is_truncated (snapshot));
  text = stw_snapshot_get_text (snapshot);
  app.go = stw_test_snapshot_ref (text, "button", "Go");
  app.remove = stw_test_snapshot_ref (text, "button", "Remove Go");
  app.all = stw_test_snapshot_ref (text, "checkbox", "Select all");
  app.first = stw_test_snapshot_ref (text, "checkbox", "First");
  app.name = stw_test_snapshot_ref (text, "textbox", "Name");

  /* Nothing changed since: a diff, as JSON. */
  stw_snapshot_options_set_format (snapshot_options, STW_SNAPSHOT_FORMAT_JSON);
  stw_snapshot_options_set_since_last (snapshot_options, TRUE);
  since = stw_surface_snapshot_sync (app.window, snapshot_options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_snapshot_is_diff (since));
  g_assert_null (stw_snapshot_get_text (since));
  g_assert_nonnull (stw_snapshot_get_diff (since));
  g_assert_cmpuint (stw_snapshot_get_entry_count (since), ==, 0);
}

static void
test_find_and_list (void)
{
  g_autoptr(JsonObject) filters = json_object_new ();
  g_autoptr(StwElementList) found = NULL;
  g_autoptr(StwElementList) listed = NULL;
  g_autoptr(GError) error = NULL;
  const StwElementInfo *info;

  if (!have_app ())
    return;

  json_object_set_string_member (filters, "role", "checkbox");
  found = stw_surface_find_sync (app.window, filters, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_element_list_get_count (found), ==, 2);
  g_assert_cmpuint (stw_element_list_get_n_elements (found), ==, 2);
  g_assert_cmpstr (stw_element_list_get_surface_id (found), ==, stw_surface_get_id (app.window));
  info = stw_element_list_get_element (found, 0);
  g_assert_cmpuint (stw_element_ref_get_ref (stw_element_info_get_element (info)), ==, app.all);
  g_assert_cmpstr (stw_element_ref_get_name (stw_element_info_get_element (info)), ==, "Select all");
  g_assert_null (stw_element_info_get_tag (info));
  g_assert_cmpfloat (stw_element_info_get_box (info)->width, >, 0);

  /* Three buttons, one asked for: the count says three. */
  listed = stw_surface_list_elements_sync (app.window, "button", 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_element_list_get_count (listed), ==, 3);
  g_assert_cmpuint (stw_element_list_get_n_elements (listed), ==, 1);
  info = stw_element_list_get_element (listed, 0);
  g_assert_cmpstr (stw_element_info_get_tag (info), ==, "button");
  g_assert_cmpuint (stw_element_ref_get_ref (stw_element_info_get_element (info)), ==, app.go);
  g_assert_cmpfloat_with_epsilon (stw_element_info_get_box (info)->width, 120, 1);
}

static void
test_fill_click_text (void)
{
  g_autoptr(StwTarget) name = NULL, go = NULL, status = stw_target_new_for_selector ("#status");
  g_autoptr(StwActionResult) filled = NULL, clicked = NULL;
  g_autoptr(StwElementRef) read = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const StwElementRef *target;

  if (!have_app ())
    return;
  name = stw_target_new_for_ref (app.name);
  go = stw_target_new_for_ref (app.go);

  filled = stw_surface_fill_sync (app.window, name, "Ada", NULL, NULL, &error);
  g_assert_no_error (error);
  target = stw_action_result_get_target (filled);
  g_assert_cmpuint (stw_element_ref_get_ref (target), ==, app.name);
  g_assert_cmpstr (stw_element_ref_get_role (target), ==, "textbox");
  g_assert_cmpstr (stw_element_ref_get_name (target), ==, "Name");
  g_assert_null (stw_action_result_get_dialog (filled));

  /* A click by ref answers the element clicked, in its surface. */
  clicked = stw_surface_click_sync (app.window, go, NULL, NULL, &error);
  g_assert_no_error (error);
  target = stw_action_result_get_target (clicked);
  g_assert_cmpuint (stw_element_ref_get_ref (target), ==, app.go);
  g_assert_cmpstr (stw_element_ref_get_role (target), ==, "button");
  g_assert_cmpstr (stw_element_ref_get_name (target), ==, "Go");
  g_assert_cmpstr (stw_element_ref_get_surface_id (target), ==, stw_surface_get_id (app.window));
  g_assert_null (stw_action_result_get_source (clicked));

  text = stw_surface_get_text_sync (app.window, status, &read, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "Went Ada");
  g_assert_cmpstr (stw_element_ref_get_role (read), ==, "status");
  g_assert_cmpuint (stw_element_ref_get_ref (read), >=, 1);
}

static void
test_state (void)
{
  g_autoptr(StwTarget) all = NULL, first = NULL, name = NULL;
  g_autoptr(StwElementState) state = NULL;
  g_autoptr(StwElementState) wanted = NULL;
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_app ())
    return;
  all = stw_target_new_for_ref (app.all);
  first = stw_target_new_for_ref (app.first);
  name = stw_target_new_for_ref (app.name);

  /* An indeterminate checkbox: checked applies and is mixed. */
  state = stw_surface_get_state_sync (app.window, all, &element, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_element_ref_get_ref (element), ==, app.all);
  g_assert_true (state->known & STW_STATE_CHECKED);
  g_assert_cmphex (state->mixed, ==, STW_STATE_CHECKED);
  g_assert_false (state->values & STW_STATE_CHECKED);
  g_assert_true (state->values & STW_STATE_VISIBLE);
  g_assert_true (state->values & STW_STATE_ENABLED);
  g_clear_pointer (&state, stw_element_state_free);

  state = stw_surface_get_state_sync (app.window, first, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmphex (state->mixed, ==, 0);
  g_assert_cmphex (state->values & (STW_STATE_CHECKED | STW_STATE_DISABLED), ==, STW_STATE_CHECKED);
  g_clear_pointer (&state, stw_element_state_free);

  /* Checked, selected, expanded, pressed do not apply to a text box;
   * required does and is set. */
  state = stw_surface_get_state_sync (app.window, name, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmphex (state->known & (STW_STATE_CHECKED | STW_STATE_SELECTED | STW_STATE_EXPANDED | STW_STATE_PRESSED),
                   ==, 0);
  g_assert_true (state->known & state->values & STW_STATE_REQUIRED);
  g_assert_false (state->values & STW_STATE_READONLY);
  g_clear_pointer (&state, stw_element_state_free);

  /* Expectations take the flags that matter and their values. */
  wanted = stw_element_state_new (STW_STATE_CHECKED | STW_STATE_ENABLED, STW_STATE_ENABLED, STW_STATE_CHECKED);
  state = stw_surface_expect_state_sync (app.window, all, wanted, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_element_state_matches (state, wanted));
  g_clear_pointer (&state, stw_element_state_free);
  g_clear_pointer (&wanted, stw_element_state_free);

  wanted = stw_element_state_new (STW_STATE_CHECKED, 0, 0);
  state = stw_surface_expect_state_sync (app.window, first, wanted, 0, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_EXPECTATION_FAILED);
  g_assert_null (state);
}

static void
test_box (void)
{
  g_autoptr(StwTarget) go = NULL;
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(StwBox) box = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_app ())
    return;
  go = stw_target_new_for_ref (app.go);

  /* #go is placed at 40,200 and sized 120×30 by the page's style. */
  box = stw_surface_get_bbox_sync (app.window, go, &element, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (box->x, 40, 0.5);
  g_assert_cmpfloat_with_epsilon (box->y, 200, 0.5);
  g_assert_cmpfloat_with_epsilon (box->width, 120, 0.5);
  g_assert_cmpfloat_with_epsilon (box->height, 30, 0.5);
  g_assert_cmpuint (stw_element_ref_get_ref (element), ==, app.go);
}

/* The PNG's own IHDR, read by hand: what the typed answer must agree with. */
static void
png_header_size (GBytes *png,
                 guint  *width,
                 guint  *height)
{
  gsize length = 0;
  const guchar *data = g_bytes_get_data (png, &length);

  g_assert_cmpuint (length, >, 24);
  g_assert_cmpmem (data, 8, "\x89PNG\r\n\x1a\n", 8);
  g_assert_cmpmem (data + 12, 4, "IHDR", 4);
  *width = (guint) data[16] << 24 | (guint) data[17] << 16 | (guint) data[18] << 8 | data[19];
  *height = (guint) data[20] << 24 | (guint) data[21] << 16 | (guint) data[22] << 8 | data[23];
}

static void
on_path_notify (GObject    *object,
                GParamSpec *pspec,
                gpointer    user_data)
{
  (*(guint *) user_data)++;
}

/* A screenshot answers a StwScreenshot: bytes, size, format, scale factor,
 * and the path once saved. */
static void
test_screenshot (void)
{
  g_autoptr(StwScreenshotOptions) options = stw_screenshot_options_new ();
  g_autoptr(StwScreenshot) viewport = NULL;
  g_autoptr(StwScreenshot) clipped = NULL;
  g_autoptr(StwScreenshot) jpeg = NULL;
  g_autoptr(StwScreenshot) wrapped = NULL;
  g_autoptr(StwScreenshot) refused = NULL;
  g_autoptr(GBytes) garbage = g_bytes_new_static ("not an image at all, not at all", 31);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *file = NULL;
  g_autofree char *written = NULL;
  g_autoptr(GBytes) bytes = NULL;
  StwTestResult wait = { 0 };
  gsize length = 0;
  guint width = 0, height = 0, notified = 0;
  double scale;

  if (!have_app ())
    return;

  /* Blocking, the viewport: the size is the PNG's own; unmeasured, no scale. */
  viewport = stw_surface_capture_screenshot_sync (app.window, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (STW_IS_SCREENSHOT (viewport));
  png_header_size (stw_screenshot_get_bytes (viewport), &width, &height);
  g_assert_cmpuint (width, >, 0);
  g_assert_cmpuint (stw_screenshot_get_width (viewport), ==, width);
  g_assert_cmpuint (stw_screenshot_get_height (viewport), ==, height);
  g_assert_cmpint (stw_screenshot_get_format (viewport), ==, STW_IMAGE_FORMAT_PNG);
  g_assert_cmpstr (stw_screenshot_get_mime_type (viewport), ==, "image/png");
  g_assert_cmpfloat (stw_screenshot_get_scale_factor (viewport), ==, 0);
  g_assert_null (stw_screenshot_get_path (viewport));

  /* Async, #go's box (40,200 120×30): measured, so the scale is known and
   * the image is the clip times it. */
  stw_screenshot_options_set_clip (options, 40, 200, 120, 30);
  stw_surface_capture_screenshot_async (app.window, options, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  clipped = stw_surface_capture_screenshot_finish (app.window, result, &error);
  g_assert_no_error (error);
  png_header_size (stw_screenshot_get_bytes (clipped), &width, &height);
  scale = stw_screenshot_get_scale_factor (clipped);
  g_assert_cmpfloat (scale, >, 0);
  g_assert_cmpuint (stw_screenshot_get_width (clipped), ==, width);
  g_assert_cmpuint (stw_screenshot_get_height (clipped), ==, height);
  g_assert_cmpfloat (ABS (width - 120 * scale), <=, 1.0);
  g_assert_cmpfloat (ABS (height - 30 * scale), <=, 1.0);

  /* The session's convenience answers the same type, as JPEG. */
  {
    g_autoptr(JsonObject) json = json_object_new ();

    json_object_set_string_member (json, "format", "jpeg");
    jpeg = stw_session_capture_screenshot_sync (app.session, NULL, json, NULL, &error);
  }
  g_assert_no_error (error);
  g_assert_cmpint (stw_screenshot_get_format (jpeg), ==, STW_IMAGE_FORMAT_JPEG);
  g_assert_cmpstr (stw_screenshot_get_mime_type (jpeg), ==, "image/jpeg");
  g_assert_cmpmem (g_bytes_get_data (stw_screenshot_get_bytes (jpeg), NULL), 2, "\xff\xd8", 2);
  g_assert_cmpuint (stw_screenshot_get_width (jpeg), ==, stw_screenshot_get_width (viewport));
  g_assert_cmpuint (stw_screenshot_get_height (jpeg), ==, stw_screenshot_get_height (viewport));

  /* Saved: the file holds the bytes, the path is recorded and notified. */
  dir = g_dir_make_tmp ("stw-shot-XXXXXX", &error);
  g_assert_no_error (error);
  file = g_build_filename (dir, "go.png", NULL);
  g_signal_connect (clipped, "notify::path", G_CALLBACK (on_path_notify), &notified);
  g_assert_true (stw_screenshot_save (clipped, file, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (stw_screenshot_get_path (clipped), ==, file);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_true (g_file_get_contents (file, &written, &length, &error));
  bytes = g_bytes_new_take (g_steal_pointer (&written), length);
  g_assert_true (g_bytes_equal (bytes, stw_screenshot_get_bytes (clipped)));
  g_assert_cmpint (g_unlink (file), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  /* A file that cannot be written is a GFileError; the path stays. */
  g_assert_false (stw_screenshot_save (clipped, "/nonexistent-stw-dir/x.png", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  g_assert_cmpstr (stw_screenshot_get_path (clipped), ==, file);

  /* Any image wraps as one; anything else does not. */
  wrapped = stw_screenshot_new_from_bytes (stw_screenshot_get_bytes (jpeg), &error);
  g_assert_no_error (error);
  g_assert_cmpint (stw_screenshot_get_format (wrapped), ==, STW_IMAGE_FORMAT_JPEG);
  g_assert_cmpuint (stw_screenshot_get_width (wrapped), ==, stw_screenshot_get_width (jpeg));
  g_assert_cmpfloat (stw_screenshot_get_scale_factor (wrapped), ==, 0);
  refused = stw_screenshot_new_from_bytes (garbage, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_assert_null (refused);
}

static void
test_stale_ref (void)
{
  g_autoptr(StwTarget) go = NULL, remove = NULL;
  g_autoptr(StwActionResult) removed = NULL, refused = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_app ())
    return;
  go = stw_target_new_for_ref (app.go);
  remove = stw_target_new_for_ref (app.remove);

  removed = stw_surface_click_sync (app.window, remove, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stw_element_ref_get_name (stw_action_result_get_target (removed)), ==, "Remove Go");

  /* The button went: its ref fails by the enum value, not by a name. */
  refused = stw_surface_click_sync (app.window, go, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_REF_NOT_FOUND);
  g_assert_null (refused);
}

/* What the app says of itself and of its window: typed, blocking and
 * async. */
static void
test_app_info_and_window_state (void)
{
  g_autoptr(StwAppInfo) info = NULL;
  g_autoptr(StwAppInfo) again = NULL;
  g_autoptr(StwWindowState) window_state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };
  const StwBox *bounds;

  if (!have_app ())
    return;

  info = stw_session_get_info_sync (app.session, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_app_info_has_app (info));
  g_assert_nonnull (stw_app_info_get_version (info, "electron"));
  g_assert_nonnull (stw_app_info_get_version (info, "node"));
  g_assert_nonnull (stw_app_info_get_version (info, "chrome"));
  g_assert_nonnull (stw_app_info_get_protocol_version (info));
  g_assert_nonnull (stw_app_info_get_app_name (info));
  g_assert_cmpstr (stw_app_info_get_app_version (info), ==, "1.0.0");
  g_assert_nonnull (stw_app_info_get_exe_path (info));
  g_assert_false (stw_app_info_is_packaged (info));
  g_assert_null (stw_app_info_get_note (info, "app.path"));

  stw_session_get_info_async (app.session, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  again = stw_session_get_info_finish (app.session, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stw_app_info_get_app_name (again), ==, stw_app_info_get_app_name (info));

  g_assert_cmpint (stw_session_get_capabilities (app.session) & STW_CAPABILITY_MAIN_EVAL, !=, 0);
  g_assert_null (stw_session_get_capability_note (app.session, STW_CAPABILITY_MAIN_EVAL));
  g_assert_cmpint (stw_surface_get_capabilities (app.window) & STW_CAPABILITY_SNAPSHOT, !=, 0);

  g_assert_true (stw_session_refresh_window_states_sync (app.session, NULL, &error));
  g_assert_no_error (error);
  window_state = stw_session_dup_window_state (app.session, app.window);
  g_assert_nonnull (window_state);
  g_assert_cmpint (stw_window_state_get_electron_id (window_state), >, 0);
  g_assert_true (stw_window_state_is_visible (window_state));
  g_assert_false (stw_window_state_is_minimized (window_state));
  g_assert_false (stw_window_state_is_fullscreen (window_state));
  bounds = stw_window_state_get_bounds (window_state);
  g_assert_nonnull (bounds);
  g_assert_cmpfloat (bounds->width, >, 0);
  g_assert_cmpfloat (bounds->height, >, 0);
}

/* What the page logged and the dialog it opened, read back typed. */
static void
test_console_and_dialogs (void)
{
  g_autoptr(JsonObject) logged = json_object_new ();
  g_autoptr(JsonObject) alerts = json_object_new ();
  g_autoptr(StwConsoleLog) log = NULL;
  g_autoptr(StwDialogLog) dialogs = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  const StwConsoleMessage *message;
  const StwDialogEvent *event;
  gint64 deadline;

  if (!have_app ())
    return;

  value = stw_session_run_renderer_sync (app.session,
                                         "console.warn('typed %d', 42);"
                                         " setTimeout(() => alert('typed alert'), 0); return 1;",
                                         NULL, 0, NULL, NULL, &error);
  g_assert_no_error (error);

  json_object_set_string_member (logged, "source", "renderer");
  json_object_set_string_member (logged, "match", "^typed 42$");
  json_object_set_string_member (alerts, "type", "alert");
  deadline = g_get_monotonic_time () + stw_test_timeout_ms (10000) * G_TIME_SPAN_MILLISECOND;
  for (;;)
    {
      g_clear_pointer (&log, stw_console_log_unref);
      g_clear_pointer (&dialogs, stw_dialog_log_unref);
      log = stw_session_read_console (app.session, logged, &error);
      g_assert_no_error (error);
      dialogs = stw_session_read_dialog_events_sync (app.session, alerts, NULL, &error);
      g_assert_no_error (error);
      if (stw_console_log_get_n_messages (log) > 0 && stw_dialog_log_get_n_events (dialogs) > 0)
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      stw_test_iterate_for (20);
    }

  g_assert_cmpuint (stw_console_log_get_n_messages (log), ==, 1);
  g_assert_cmpuint (stw_console_log_get_overflowed (log), ==, 0);
  message = stw_console_log_get_message (log, 0);
  g_assert_cmpstr (stw_console_message_get_text (message), ==, "typed 42");
  g_assert_cmpstr (stw_console_message_get_level (message), ==, "warning");
  g_assert_cmpstr (stw_console_message_get_source (message), ==, "renderer");
  g_assert_cmpstr (stw_console_message_get_surface_id (message), ==, stw_surface_get_id (app.window));
  g_assert_cmpstr (stw_console_message_get_window_id (message), ==, stw_surface_get_window_id (app.window));
  g_assert_cmpint (stw_console_message_get_timestamp (message), >, 0);
  g_assert_false (stw_console_message_is_truncated (message));
  g_assert_false (stw_console_message_is_exception (message));

  g_assert_cmpuint (stw_dialog_log_get_n_events (dialogs), ==, 1);
  event = stw_dialog_log_get_event (dialogs, 0);
  g_assert_cmpstr (stw_dialog_event_get_kind (event), ==, "alert");
  g_assert_cmpstr (stw_dialog_event_get_message (event), ==, "typed alert");
  g_assert_cmpstr (stw_dialog_event_get_action (event), ==, "dismiss");
  g_assert_cmpstr (stw_dialog_event_get_surface_id (event), ==, stw_surface_get_id (app.window));
  g_assert_false (stw_dialog_event_is_stubbed_call (event));
  g_assert_cmpstr (stw_dialog_policy_get_action (stw_dialog_log_get_policy (dialogs)), ==, "dismiss");
  g_assert_true (stw_dialog_log_is_native (dialogs));
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  guint *count = user_data;

  (*count)++;
}

/* State as properties: what the getters say, and notify:: when it
 * changes. */
static void
test_properties (void)
{
  g_autoptr(StwTarget) retitle = stw_target_new_for_selector ("#retitle");
  g_autoptr(StwActionResult) clicked = NULL;
  g_autoptr(StwSurface) active = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  g_autofree char *id = NULL;
  StwSurfaceKind kind;
  gboolean running = FALSE, owned = FALSE, closed = TRUE;
  guint titles = 0;
  int pid = 0;

  if (!have_app ())
    return;

  g_object_get (app.session, "running", &running, "owned", &owned, "pid", &pid, "active-surface", &active,
                "id", &id, NULL);
  g_assert_true (running);
  g_assert_true (owned);
  g_assert_cmpint (pid, ==, stw_session_get_pid (app.session));
  g_assert_cmpint (pid, >, 0);
  g_assert_true (active == app.window);
  g_assert_cmpstr (id, ==, stw_session_get_id (app.session));

  g_object_get (app.window, "title", &title, "kind", &kind, "closed", &closed, NULL);
  g_assert_cmpstr (title, ==, "States fixture");
  g_assert_cmpint (kind, ==, STW_SURFACE_KIND_WINDOW);
  g_assert_false (closed);

  /* The page retitles itself: notify::title, once the session hears it. */
  g_signal_connect (app.window, "notify::title", G_CALLBACK (count_notify), &titles);
  clicked = stw_surface_click_sync (app.window, retitle, NULL, NULL, &error);
  g_assert_no_error (error);
  {
    gint64 deadline = g_get_monotonic_time () + stw_test_timeout_ms (10000) * G_TIME_SPAN_MILLISECOND;

    while (titles == 0 && g_get_monotonic_time () < deadline)
      {
        stw_session_refresh_surfaces_sync (app.session, NULL, NULL);
        stw_test_iterate_for (50);
      }
  }
  g_signal_handlers_disconnect_by_func (app.window, count_notify, &titles);
  g_assert_cmpuint (titles, >=, 1);
  g_assert_cmpstr (stw_surface_get_title (app.window), ==, "Retitled");
}

static void
test_stop (void)
{
  if (app.session != NULL)
    {
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autoptr(GError) error = NULL;
      guint running = 0, closed = 0;

      g_signal_connect (app.session, "notify::running", G_CALLBACK (count_notify), &running);
      g_signal_connect (app.window, "notify::closed", G_CALLBACK (count_notify), &closed);
      g_assert_true (stw_session_stop_sync (app.session, 10000, NULL, cancellable, &error));
      g_assert_no_error (error);
      g_assert_false (stw_session_is_running (app.session));
      g_assert_cmpuint (running, ==, 1);
      g_assert_cmpuint (closed, ==, 1);
      g_assert_true (stw_surface_is_closed (app.window));
      g_signal_handlers_disconnect_by_func (app.session, count_notify, &running);
      g_signal_handlers_disconnect_by_func (app.window, count_notify, &closed);
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

  g_test_add_func ("/typed/launch-and-snapshot", test_launch_and_snapshot);
  g_test_add_func ("/typed/find-and-list", test_find_and_list);
  g_test_add_func ("/typed/fill-click-text", test_fill_click_text);
  g_test_add_func ("/typed/state", test_state);
  g_test_add_func ("/typed/box", test_box);
  g_test_add_func ("/typed/screenshot", test_screenshot);
  g_test_add_func ("/typed/properties", test_properties);
  g_test_add_func ("/typed/app-info-and-window-state", test_app_info_and_window_state);
  g_test_add_func ("/typed/console-and-dialogs", test_console_and_dialogs);
  g_test_add_func ("/typed/stale-ref", test_stale_ref);
  g_test_add_func ("/typed/stop", test_stop);
  return g_test_run ();
}
