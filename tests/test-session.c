/* test-session.c: StwSession and StwSurface, against real Chromium through
 * the Electron stand-in, and against a scripted fake browser for faults
 *
 * The real half launches the demo app (tests/fixtures/demo-app) on the
 * stand-in (tests/fixtures/electron, on Debian's headless Chromium) once and
 * runs its cases in order on that session: windows, surfaces, screenshots of
 * a window, an element and a clip, the isolated world, stop. The fake half
 * (StwTestCdpBrowser in stw-test-utils.c) speaks CDP over a pipe pair
 * (StwCdpPipe) and injects faults: garbage image data, a connection dropped
 * in the middle of a screenshot, a cancellation mid-way, a stale execution
 * context.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "stw-session-private.h"
#include "stw-surface-private.h"
#include "stw-test-utils.h"

#define DEMO_TITLE "Stagewright Notes"

/* --- waiting for an async result ------------------------------------------ */

static void
spin_until (gboolean (*predicate) (gpointer),
            gpointer   data,
            guint      timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (timeout_ms) * 1000;

  while (!predicate (data))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static GBytes *
capture_surface (StwSurface                 *surface,
                 const StwScreenshotOptions *options,
                 GCancellable               *cancellable,
                 GError                    **error)
{
  StwTestResult wait = { 0 };
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(StwScreenshot) shot = NULL;
  GBytes *image;
  guint width = 0, height = 0;

  stw_surface_capture_screenshot_async (surface, options, cancellable, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  shot = stw_surface_capture_screenshot_finish (surface, result, error);
  if (shot == NULL)
    return NULL;
  /* The typed answer agrees with the image's own header. */
  image = stw_screenshot_get_bytes (shot);
  g_assert_true (stw_image_get_size (image, &width, &height));
  g_assert_cmpuint (stw_screenshot_get_width (shot), ==, width);
  g_assert_cmpuint (stw_screenshot_get_height (shot), ==, height);
  g_assert_cmpint (stw_screenshot_get_format (shot), ==,
                   options ? stw_screenshot_options_get_format (options) : STW_IMAGE_FORMAT_PNG);
  g_assert_null (stw_screenshot_get_path (shot));
  return g_bytes_ref (image);
}

static JsonNode *
call_page (StwSurface  *surface,
           const char  *op,
           JsonObject  *args,
           GError     **error)
{
  StwTestResult wait = { 0 };
  g_autoptr(GAsyncResult) result = NULL;

  _stw_surface_call_page_async (surface, op, args, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  return _stw_surface_call_page_finish (surface, result, NULL, error);
}

static JsonNode *
evaluate_isolated (StwSurface  *surface,
                   const char  *expression,
                   GError     **error)
{
  StwTestResult wait = { 0 };
  g_autoptr(GAsyncResult) result = NULL;

  _stw_surface_evaluate_isolated_async (surface, expression, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  return _stw_surface_evaluate_isolated_finish (surface, result, error);
}

static JsonNode *
evaluate_main_world (StwSession  *session,
                     const char  *expression,
                     GError     **error)
{
  StwTestResult wait = { 0 };
  g_autoptr(GAsyncResult) result = NULL;

  stw_session_evaluate_renderer_async (session, expression, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  return stw_session_evaluate_renderer_finish (session, result, error);
}

static void
assert_png (GBytes *image,
            guint   width,
            guint   height)
{
  const guchar *data;
  gsize length = 0;
  guint w = 0, h = 0;

  g_assert_nonnull (image);
  data = g_bytes_get_data (image, &length);
  g_assert_cmpuint (length, >, 24);
  g_assert_cmpmem (data, 8, "\x89PNG\r\n\x1a\n", 8);
  g_assert_cmpmem (data + 12, 4, "IHDR", 4);
  g_assert_true (stw_image_get_size (image, &w, &h));
  /* The header, read by hand, agrees with the library. */
  g_assert_cmpuint (w, ==, (guint) data[16] << 24 | (guint) data[17] << 16 | (guint) data[18] << 8 | data[19]);
  g_assert_cmpuint (h, ==, (guint) data[20] << 24 | (guint) data[21] << 16 | (guint) data[22] << 8 | data[23]);
  if (width > 0)
    g_assert_cmpuint (w, ==, width);
  if (height > 0)
    g_assert_cmpuint (h, ==, height);
}

/* Gone, or a zombie nobody reaped yet. */
static gboolean
process_gone (gpointer data)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", GPOINTER_TO_INT (data));
  g_autofree char *stat = NULL;
  const char *paren;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return TRUE;
  paren = strrchr (stat, ')');
  return paren != NULL && (paren[2] == 'Z' || paren[2] == 'X');
}

/* --- the real app --------------------------------------------------------- */

static struct
{
  StwSessionManager *manager;
  StwSession        *session;
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
  g_assert_nonnull (app.session);
  return TRUE;
}

static StwLaunchOptions *
launch_options (const char *fixture)
{
  StwLaunchOptions *options = stw_launch_options_new ();
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *main = g_test_build_filename (G_TEST_DIST, "fixtures", fixture, NULL);

  stw_launch_options_set_executable_path (options, electron);
  stw_launch_options_set_main (options, main);
  return options;
}

static StwSession *
launch (StwSessionManager *manager,
        const char        *fixture)
{
  g_autoptr(StwLaunchOptions) options = launch_options (fixture);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };
  StwSession *session;

  stw_session_manager_launch_async (manager, options, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  session = stw_session_manager_launch_finish (manager, result, &error);
  g_assert_no_error (error);
  return session;
}

static void
test_launch (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autoptr(GList) windows = NULL;

  if (!g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) ||
      !g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE))
    {
      app.skip = g_strdup ("the Electron stand-in or Chromium is missing");
      g_test_skip (app.skip);
      return;
    }

  app.manager = stw_session_manager_new ();
  app.session = launch (app.manager, "demo-app");
  g_assert_true (stw_session_is_running (app.session));
  g_assert_true (stw_session_is_owned (app.session));
  g_assert_true (stw_session_is_renderer_ready (app.session));
  g_assert_cmpint (stw_session_get_pid (app.session), >, 0);

  windows = stw_session_list_windows (app.session);
  g_assert_cmpuint (g_list_length (windows), ==, 1);
  g_assert_cmpstr (stw_surface_get_title (windows->data), ==, DEMO_TITLE);
  g_assert_true (stw_session_get_active_window (app.session) == windows->data);
  g_assert_true (stw_session_get_active_surface (app.session) == windows->data);
}

static gboolean
has_http_frame (gpointer data)
{
  StwSession *session = data;
  StwTestResult wait = { 0 };
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GList) surfaces = NULL;

  stw_session_refresh_surfaces_async (session, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  g_assert_true (stw_session_refresh_surfaces_finish (session, result, &error));
  g_assert_no_error (error);
  surfaces = stw_session_list_surfaces (session);
  for (const GList *l = surfaces; l != NULL; l = l->next)
    if (g_str_has_prefix (stw_surface_get_url (l->data) ? stw_surface_get_url (l->data) : "", "http://127.0.0.1:"))
      return TRUE;
  return FALSE;
}

static void
test_surfaces (void)
{
  g_autoptr(GList) surfaces = NULL;
  g_autoptr(StwSession) owner = NULL;
  StwSurface *window;
  StwSurface *blank = NULL;
  StwSurface *remote = NULL;

  if (!have_app ())
    return;

  /* The page of another origin loads after the window. */
  spin_until (has_http_frame, app.session, 15000);
  surfaces = stw_session_list_surfaces (app.session);
  window = surfaces->data;
  g_assert_cmpint (stw_surface_get_kind (window), ==, STW_SURFACE_KIND_WINDOW);
  g_assert_cmpstr (stw_surface_kind_to_string (stw_surface_get_kind (window)), ==, "window");
  g_assert_true (G_TYPE_IS_ENUM (STW_TYPE_SURFACE_KIND));
  g_assert_null (stw_surface_get_parent_id (window));
  g_assert_null (stw_surface_get_origin_relation (window));
  /* A page's frame is its target. */
  g_assert_cmpstr (stw_surface_get_frame_id (window), ==, stw_surface_get_target_id (window));
  g_assert_nonnull (stw_surface_get_cdp_session_id (window));
  owner = stw_surface_dup_session (window);
  g_assert_true (owner == app.session);
  g_assert_cmpint (stw_surface_get_capabilities (window), ==,
                   STW_CAPABILITY_RENDERER_EVAL | STW_CAPABILITY_SNAPSHOT | STW_CAPABILITY_INTERACTION);

  for (const GList *l = surfaces->next; l != NULL; l = l->next)
    {
      StwSurface *surface = l->data;
      const char *url = stw_surface_get_url (surface);

      g_assert_cmpint (stw_surface_get_kind (surface), ==, STW_SURFACE_KIND_FRAME);
      g_assert_cmpstr (stw_surface_get_window_id (surface), ==, stw_surface_get_window_id (window));
      g_assert_cmpstr (stw_surface_get_parent_id (surface), ==, stw_surface_get_id (window));
      g_assert_nonnull (stw_surface_get_frame_id (surface));
      if (g_str_has_prefix (url ? url : "", "about:blank"))
        blank = surface;
      else if (g_str_has_prefix (url ? url : "", "http://127.0.0.1:"))
        remote = surface;
    }
  g_assert_nonnull (blank);
  g_assert_nonnull (remote);
  g_assert_cmpstr (stw_surface_get_origin_relation (blank), ==, "same-origin");
  g_assert_cmpstr (stw_surface_get_origin_relation (remote), ==, "cross-origin");
}

/* Renderer code runs in any surface, not only the active one: a frame of
 * another origin (its own target) and a same-process frame (through its
 * isolated world) each answer from their own document. */
static void
test_run_in_frame (void)
{
  g_autoptr(GList) surfaces = NULL;
  StwSurface *window = NULL;
  guint ran = 0;

  if (!have_app ())
    return;

  spin_until (has_http_frame, app.session, 15000);
  window = stw_session_get_active_surface (app.session);
  surfaces = stw_session_list_surfaces (app.session);
  for (const GList *l = surfaces; l != NULL; l = l->next)
    {
      StwSurface *frame = l->data;
      const char *url = stw_surface_get_url (frame) ? stw_surface_get_url (frame) : "";
      g_autoptr(JsonNode) answer = NULL;
      g_autoptr(JsonNode) arg = json_node_init_int (json_node_alloc (), 41);
      g_autoptr(GError) error = NULL;
      JsonObject *object;

      if (stw_surface_get_kind (frame) != STW_SURFACE_KIND_FRAME ||
          !(g_str_has_prefix (url, "http://127.0.0.1:") || g_str_has_prefix (url, "about:blank")))
        continue;
      g_assert_true (frame != window);
      answer = stw_surface_run_sync (frame, "return { top: window === window.top, url: document.URL, n: arg + 1 };",
                                     arg, 10000, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (answer);
      object = json_node_get_object (answer);
      g_assert_false (json_object_get_boolean_member (object, "top"));
      g_assert_true (g_str_has_prefix (json_object_get_string_member (object, "url"), g_str_has_prefix (url, "about:") ? "about:blank" : "http://127.0.0.1:"));
      g_assert_cmpint (json_object_get_int_member (object, "n"), ==, 42);
      ran++;
    }
  /* The remote frame and the blank one; the active surface is still the window. */
  g_assert_cmpuint (ran, >=, 2);
  g_assert_true (stw_session_get_active_surface (app.session) == window);
}

static void
test_screenshot_window (void)
{
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GBytes) jpeg = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) viewport = NULL;
  g_autoptr(StwScreenshotOptions) options = stw_screenshot_options_new ();
  StwSurface *window;
  JsonArray *size;
  guint width = 0, height = 0;

  if (!have_app ())
    return;

  window = stw_session_get_active_window (app.session);
  viewport = evaluate_main_world (app.session,
                                  "[Math.round(innerWidth * devicePixelRatio), Math.round(innerHeight * devicePixelRatio)]",
                                  &error);
  g_assert_no_error (error);
  size = json_node_get_array (viewport);

  image = capture_surface (window, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_png (image, (guint) json_array_get_int_element (size, 0), (guint) json_array_get_int_element (size, 1));

  stw_screenshot_options_set_format (options, STW_IMAGE_FORMAT_JPEG);
  stw_screenshot_options_set_quality (options, 40);
  jpeg = capture_surface (window, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (jpeg, NULL), 2, "\xff\xd8", 2);
  g_assert_true (stw_image_get_size (jpeg, &width, &height));
  g_assert_cmpuint (width, ==, (guint) json_array_get_int_element (size, 0));
  g_assert_cmpuint (height, ==, (guint) json_array_get_int_element (size, 1));
}

static void
test_screenshot_clip (void)
{
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GBytes) full = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwScreenshotOptions) options = stw_screenshot_options_new ();
  g_autoptr(JsonNode) scroll = NULL;
  StwSurface *window;
  guint width = 0, height = 0;

  if (!have_app ())
    return;

  window = stw_session_get_active_window (app.session);
  stw_screenshot_options_set_clip (options, 10, 20, 120, 45);
  image = capture_surface (window, options, NULL, &error);
  g_assert_no_error (error);
  assert_png (image, 120, 45);

  stw_screenshot_options_set_full_page (options, TRUE);
  g_assert_false (stw_screenshot_options_get_clip (options, NULL, NULL, NULL, NULL));
  full = capture_surface (window, options, NULL, &error);
  g_assert_no_error (error);
  scroll = evaluate_main_world (app.session, "document.documentElement.scrollHeight", &error);
  g_assert_no_error (error);
  g_assert_true (stw_image_get_size (full, &width, &height));
  g_assert_cmpint (ABS ((gint64) height - json_node_get_int (scroll)), <=, 1);
}

static void
test_screenshot_element (void)
{
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwScreenshotOptions) options = stw_screenshot_options_new ();
  g_autoptr(JsonNode) box = NULL;
  g_autoptr(GList) surfaces = NULL;
  StwSurface *window;
  JsonObject *rect;
  guint width = 0, height = 0;

  if (!have_app ())
    return;

  window = stw_session_get_active_window (app.session);
  stw_screenshot_options_set_selector (options, "#add");
  image = capture_surface (window, options, NULL, &error);
  g_assert_no_error (error);
  /* The element's own box, measured after the capture scrolled it into view. */
  box = evaluate_main_world (app.session,
                             "(() => { const r = document.querySelector('#add').getBoundingClientRect();"
                             " return {width: r.width, height: r.height}; })()", &error);
  g_assert_no_error (error);
  rect = json_node_get_object (box);
  g_assert_true (stw_image_get_size (image, &width, &height));
  assert_png (image, 0, 0);
  g_assert_cmpfloat (ABS (width - MAX (json_object_get_double_member (rect, "width"), 1.0)), <=, 1.0);
  g_assert_cmpfloat (ABS (height - MAX (json_object_get_double_member (rect, "height"), 1.0)), <=, 1.0);

  /* Nothing matches. */
  g_clear_pointer (&image, g_bytes_unref);
  stw_screenshot_options_set_selector (options, "#no-such-element");
  image = capture_surface (window, options, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_SELECTOR_NO_MATCH);
  g_assert_null (image);
  g_clear_error (&error);

  /* A frame is captured through its window. */
  surfaces = stw_session_list_surfaces (app.session);
  g_assert_nonnull (surfaces->next);
  image = capture_surface (surfaces->next->data, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_SURFACE_UNSUPPORTED);
  g_assert_null (image);
}

static gboolean
world_dropped (gpointer data)
{
  return _stw_surface_get_world_id (data) == 0;
}

static gboolean
ready_again (gpointer data)
{
  g_autoptr(JsonNode) value = call_page (data, "ready", NULL, NULL);

  return value != NULL && JSON_NODE_HOLDS_VALUE (value) && json_node_get_boolean (value);
}

static void
test_isolated_world (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) first = NULL;
  g_autoptr(JsonNode) second = NULL;
  g_autoptr(JsonNode) seen = NULL;
  g_autoptr(JsonNode) after = NULL;
  g_autoptr(JsonObject) reload = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  StwTestResult wait = { 0 };
  StwSurface *window;
  gint64 world;

  if (!have_app ())
    return;

  window = stw_session_get_active_window (app.session);
  first = call_page (window, "ready", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (json_node_get_boolean (first));
  world = _stw_surface_get_world_id (window);
  g_assert_cmpint (world, >, 0);

  /* Reused: the second call goes to the same context. */
  second = evaluate_isolated (window, "window.__stwProbe = 'isolated'; document.title", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (second), ==, DEMO_TITLE);
  g_assert_cmpint (_stw_surface_get_world_id (window), ==, world);

  /* The app's main world sees nothing of it. */
  seen = evaluate_main_world (app.session, "typeof window.__stwProbe", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (seen), ==, "undefined");

  /* A reload takes the world with the document; the next call makes a new one. */
  stw_transport_call_async (_stw_session_get_browser (app.session), "Page.reload", NULL,
                            stw_surface_get_cdp_session_id (window), 0, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  reload = stw_transport_call_finish (_stw_session_get_browser (app.session), result, &error);
  g_assert_no_error (error);
  spin_until (world_dropped, window, 10000);
  spin_until (ready_again, window, 10000);
  g_assert_cmpint (_stw_surface_get_world_id (window), >, 0);
  g_assert_cmpint (_stw_surface_get_world_id (window), !=, world);
  after = evaluate_isolated (window, "typeof window.__stwProbe", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (after), ==, "undefined");
}

static void
test_stop (void)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) image = NULL;
  g_autoptr(StwSurface) window = NULL;
  StwTestResult wait = { 0 };
  gboolean escalated = TRUE;
  GPid pid;

  if (!have_app ())
    return;

  window = g_object_ref (stw_session_get_active_window (app.session));
  pid = stw_session_get_pid (app.session);
  stw_session_stop_async (app.session, 5000, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 20000);
  g_assert_true (stw_session_stop_finish (app.session, result, &escalated, &error));
  g_assert_no_error (error);
  g_assert_false (escalated);
  g_assert_false (stw_session_is_running (app.session));
  g_assert_true (stw_surface_is_closed (window));
  g_assert_null (stw_session_manager_list_sessions (app.manager));
  spin_until (process_gone, GINT_TO_POINTER (pid), 10000);

  image = capture_surface (window, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_NOT_RUNNING);
  g_assert_null (image);

  g_clear_object (&result);
  g_clear_object (&app.session);
  /* The surface outlives its session, which it knew only weakly. */
  g_assert_null (stw_surface_dup_session (window));
}

/* Defect 2: a session kept after its manager went away. */
static void
test_manager_dropped (void)
{
  StwSessionManager *manager;
  g_autoptr(StwSession) session = NULL;
  GPid pid;

  if (app.skip != NULL)
    {
      g_test_skip (app.skip);
      return;
    }

  manager = stw_session_manager_new ();
  session = launch (manager, "demo-app");
  pid = stw_session_get_pid (session);
  g_assert_true (stw_session_is_running (session));

  /* Criticals are fatal in this program: a use after free of the manager
   * would abort here. */
  g_object_unref (manager);
  g_assert_false (stw_session_is_running (session));
  stw_session_force_kill (session);
  g_assert_false (stw_session_is_running (session));
  g_assert_null (stw_session_get_active_window (session));
  spin_until (process_gone, GINT_TO_POINTER (pid), 10000);
}

/* --- the fake browser ----------------------------------------------------- */

typedef struct
{
  StwTestCdpBrowser *browser;
  StwTestCdpPeer    *peer;
  StwSession        *session;
} Fake;

static guint
fake_count (Fake       *fake,
            const char *method)
{
  return stw_test_cdp_peer_count (fake->peer, method);
}

static void
fake_setup (Fake          *fake,
            gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };

  fake->browser = stw_test_cdp_browser_new ();
  fake->peer = stw_test_cdp_browser_get_peer (fake->browser);
  fake->session = _stw_session_new_attached (NULL, "fake-1", "cdp",
                                             stw_test_cdp_browser_get_transport (fake->browser), NULL, 0);
  _stw_session_start_async (fake->session, 2000, 0, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 5000);
  g_assert_true (_stw_session_start_finish (fake->session, result, &error));
  g_assert_no_error (error);
  g_assert_true (stw_session_is_renderer_ready (fake->session));
  g_assert_nonnull (stw_session_get_active_window (fake->session));
}

static void
fake_teardown (Fake          *fake,
               gconstpointer  data)
{
  if (stw_session_is_running (fake->session))
    stw_session_force_kill (fake->session);
  g_clear_object (&fake->session);
  g_clear_pointer (&fake->browser, stw_test_cdp_browser_free);
}

static void
test_fake_world_cached (Fake          *fake,
                        gconstpointer  data)
{
  StwSurface *window = stw_session_get_active_window (fake->session);
  g_autoptr(StwScreenshotOptions) options = stw_screenshot_options_new ();
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = NULL;
  gint64 world = _stw_surface_get_world_id (window);

  /* The readiness check made the world; the element crop reuses it. */
  g_assert_cmpint (world, >, 0);
  g_assert_cmpuint (fake_count (fake, "Page.createIsolatedWorld"), ==, 1);
  stw_screenshot_options_set_selector (options, "#x");
  image = capture_surface (window, options, NULL, &error);
  g_assert_no_error (error);
  assert_png (image, 1, 1);
  g_assert_cmpuint (fake_count (fake, "Page.createIsolatedWorld"), ==, 1);
  g_assert_cmpint (_stw_surface_get_world_id (window), ==, world);

  /* A stale context is made again, once, and the call retried. */
  stw_test_cdp_browser_set_stale_replies (fake->browser, 1);
  value = call_page (window, "ready", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (json_node_get_boolean (value));
  g_assert_cmpuint (fake_count (fake, "Page.createIsolatedWorld"), ==, 2);
  g_assert_cmpint (_stw_surface_get_world_id (window), !=, world);
  g_clear_pointer (&value, json_node_unref);

  /* Twice stale is an error, not a loop. */
  stw_test_cdp_browser_set_stale_replies (fake->browser, 2);
  value = call_page (window, "ready", NULL, &error);
  g_assert_error (error, STW_CDP_ERROR, STW_CDP_ERROR_SERVER_ERROR);
  g_assert_null (value);
  g_assert_cmpuint (fake_count (fake, "Page.createIsolatedWorld"), ==, 3);
  g_clear_error (&error);

  /* Navigation drops the world. */
  world = _stw_surface_get_world_id (window);
  g_assert_cmpint (world, >, 0);
  stw_test_cdp_peer_send (fake->peer, "{\"method\":\"Page.frameNavigated\",\"sessionId\":\"S1\",\"params\":{\"frame\":{\"id\":\"OTHER\"}}}");
  stw_test_cdp_peer_send (fake->peer, "{\"method\":\"Page.frameNavigated\",\"sessionId\":\"S2\",\"params\":{\"frame\":{\"id\":\"T1\"}}}");
  stw_test_cdp_peer_send (fake->peer, "{\"method\":\"Page.frameNavigated\",\"sessionId\":\"S1\",\"params\":{\"frame\":{\"id\":\"T1\"}}}");
  spin_until (world_dropped, window, 2000);
  value = call_page (window, "ready", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fake_count (fake, "Page.createIsolatedWorld"), ==, 4);
  g_assert_cmpint (_stw_surface_get_world_id (window), >, world);

  /* So does the context's own end. */
  world = _stw_surface_get_world_id (window);
  stw_test_cdp_peer_send_printf (fake->peer, "{\"method\":\"Runtime.executionContextDestroyed\",\"sessionId\":\"S1\","
                                 "\"params\":{\"executionContextId\":%" G_GINT64_FORMAT "}}", world);
  spin_until (world_dropped, window, 2000);
}

static void
test_fake_garbage (Fake          *fake,
                   gconstpointer  data)
{
  StwSurface *window = stw_session_get_active_window (fake->session);
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GError) error = NULL;

  stw_test_cdp_browser_set_shot_mode (fake->browser, STW_TEST_SHOT_GARBAGE);
  image = capture_surface (window, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_INTERNAL_ERROR);
  g_assert_null (image);
  g_clear_error (&error);
  g_assert_true (stw_session_is_running (fake->session));

  stw_test_cdp_browser_set_shot_mode (fake->browser, STW_TEST_SHOT_REPLY);
  image = capture_surface (window, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_png (image, 1, 1);
}

static void
test_fake_drop (Fake          *fake,
                gconstpointer  data)
{
  StwSurface *window = stw_session_get_active_window (fake->session);
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GError) error = NULL;

  stw_test_cdp_browser_set_shot_mode (fake->browser, STW_TEST_SHOT_DROP);
  image = capture_surface (window, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_CDP_DISCONNECTED);
  g_assert_null (image);
  g_clear_error (&error);
  g_assert_false (stw_session_is_running (fake->session));
  g_assert_true (stw_surface_is_closed (window));

  image = capture_surface (window, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_NOT_RUNNING);
}

static gboolean
is_held (gpointer data)
{
  return stw_test_cdp_browser_get_held_id (((Fake *) data)->browser) != 0;
}

static void
test_fake_cancel (Fake          *fake,
                  gconstpointer  data)
{
  StwSurface *window = stw_session_get_active_window (fake->session);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(StwScreenshot) cancelled = NULL;
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };

  stw_test_cdp_browser_set_shot_mode (fake->browser, STW_TEST_SHOT_HOLD);
  stw_surface_capture_screenshot_async (window, NULL, cancellable, stw_test_result_cb, &wait);
  spin_until (is_held, fake, 2000);
  g_cancellable_cancel (cancellable);
  result = stw_test_wait_result (&wait, 2000);
  cancelled = stw_surface_capture_screenshot_finish (window, result, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (cancelled);
  g_clear_error (&error);

  /* The late reply is dropped; the session carries on. */
  stw_test_cdp_peer_send_printf (fake->peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"data\":\"" STW_TEST_TINY_PNG "\"}}",
                                 stw_test_cdp_browser_get_held_id (fake->browser));
  stw_test_cdp_browser_set_shot_mode (fake->browser, STW_TEST_SHOT_REPLY);
  image = capture_surface (window, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_png (image, 1, 1);
  g_assert_true (stw_session_is_running (fake->session));
}

static void
test_fake_closed_surface (Fake          *fake,
                          gconstpointer  data)
{
  g_autoptr(StwSurface) window = g_object_ref (stw_session_get_active_window (fake->session));
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GError) error = NULL;

  stw_test_cdp_peer_send (fake->peer, "{\"method\":\"Target.detachedFromTarget\",\"params\":{\"sessionId\":\"S1\",\"targetId\":\"T1\"}}");
  while (!stw_surface_is_closed (window))
    g_main_context_iteration (NULL, TRUE);
  image = capture_surface (window, NULL, NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_SURFACE_CLOSED);
  g_assert_null (stw_session_get_active_window (fake->session));
}

static void
test_options_from_json (void)
{
  static const char *const bad[] = {
    "{\"format\":\"gif\"}",
    "{\"quality\":101}",
    "{\"quality\":\"high\"}",
    "{\"selector\":\"\"}",
    "{\"selector\":\"#a\",\"fullPage\":true}",
    "{\"selector\":\"#a\",\"clip\":{\"x\":0,\"y\":0,\"width\":1,\"height\":1}}",
    "{\"clip\":{\"x\":0,\"y\":0,\"width\":0,\"height\":1}}",
    "{\"clip\":{\"x\":0,\"y\":0,\"width\":1}}",
    "{\"fullPage\":1}",
  };
  g_autoptr(JsonNode) good = stw_test_parse ("{\"format\":\"jpeg\",\"quality\":30,"
                                             "\"clip\":{\"x\":1,\"y\":2.5,\"width\":3,\"height\":4},"
                                             "\"path\":\"/ignored\"}");
  g_autoptr(StwScreenshotOptions) options = NULL;
  g_autoptr(StwScreenshotOptions) copy = NULL;
  g_autoptr(GError) error = NULL;
  double x, y, width, height;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonNode) node = stw_test_parse (bad[i]);
      g_autoptr(StwScreenshotOptions) refused = stw_screenshot_options_new_from_json (json_node_get_object (node), &error);

      g_assert_null (refused);
      g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
      g_clear_error (&error);
    }

  options = stw_screenshot_options_new_from_json (json_node_get_object (good), &error);
  g_assert_no_error (error);
  copy = stw_screenshot_options_copy (options);
  g_assert_cmpint (stw_screenshot_options_get_format (copy), ==, STW_IMAGE_FORMAT_JPEG);
  g_assert_cmpint (stw_screenshot_options_get_quality (copy), ==, 30);
  g_assert_true (stw_screenshot_options_get_clip (copy, &x, &y, &width, &height));
  g_assert_cmpfloat (y, ==, 2.5);
  g_assert_cmpfloat (height, ==, 4);
  g_assert_null (stw_screenshot_options_get_selector (copy));
  stw_screenshot_options_set_selector (copy, "#b");
  g_assert_false (stw_screenshot_options_get_clip (copy, NULL, NULL, NULL, NULL));
  g_assert_true (G_TYPE_IS_BOXED (STW_TYPE_SCREENSHOT_OPTIONS));
}

static void
test_screenshot_path (void)
{
  g_autofree char *root = g_dir_make_tmp ("stw-root-XXXXXX", NULL);
  g_autofree char *outside = g_dir_make_tmp ("stw-outside-XXXXXX", NULL);
  g_autofree char *link = g_build_filename (root, "escape", NULL);
  g_autofree char *shots = g_build_filename (root, ".stagewright", "screenshots", NULL);
  g_autofree char *file = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *in_tmp = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *details;
  GStatBuf st;

  /* With a root and no screenshot dir: <root>/.stagewright/screenshots, 0700. */
  file = stw_screenshot_resolve_path (root, NULL, NULL, NULL, STW_IMAGE_FORMAT_JPEG, &error);
  g_assert_no_error (error);
  parent = g_path_get_dirname (file);
  g_assert_cmpstr (parent, ==, shots);
  g_assert_true (g_str_has_suffix (file, ".jpg"));
  g_assert_cmpint (g_stat (shots, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);

  /* A configured dir outside the root, directly or through a symlink. */
  g_assert_null (stw_screenshot_resolve_path (root, outside, NULL, NULL, STW_IMAGE_FORMAT_PNG, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  details = stw_error_get_details (error);
  g_assert_nonnull (details);
  g_assert_cmpstr (json_object_get_string_member (details, "argument"), ==, "screenshot_dir");
  g_clear_error (&error);
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_null (stw_screenshot_resolve_path (root, link, NULL, NULL, STW_IMAGE_FORMAT_PNG, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  g_clear_pointer (&file, g_free);
  file = g_build_filename (link, "x.png", NULL);
  g_assert_null (stw_screenshot_resolve_path (root, NULL, file, NULL, STW_IMAGE_FORMAT_PNG, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  /* The argument rules. */
  g_assert_null (stw_screenshot_resolve_path (NULL, NULL, "/tmp/a.png", "/tmp", STW_IMAGE_FORMAT_PNG, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (stw_screenshot_resolve_path (NULL, NULL, NULL, "relative", STW_IMAGE_FORMAT_PNG, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_ABSOLUTE_PATH_REQUIRED);
  g_clear_error (&error);
  g_assert_null (stw_screenshot_resolve_path (NULL, NULL, NULL, "/no/such/dir", STW_IMAGE_FORMAT_PNG, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_FILE_NOT_FOUND);
  g_clear_error (&error);
  /* The name says what the file holds: a careless path never turns the
   * app's page or script into an image. */
  g_assert_null (stw_screenshot_resolve_path (NULL, NULL, "/tmp/index.html", NULL, STW_IMAGE_FORMAT_PNG, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (error), "argument"), ==, "path");
  g_clear_error (&error);
  g_assert_null (stw_screenshot_resolve_path (NULL, NULL, "/tmp/shot.png", NULL, STW_IMAGE_FORMAT_JPEG, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  {
    g_autofree char *upper = stw_screenshot_resolve_path (NULL, NULL, "/tmp/SHOT.PNG", NULL, STW_IMAGE_FORMAT_PNG, &error);
    g_autofree char *jpeg = stw_screenshot_resolve_path (NULL, NULL, "/tmp/shot.jpeg", NULL, STW_IMAGE_FORMAT_JPEG, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (upper, ==, "/tmp/SHOT.PNG");
    g_assert_cmpstr (jpeg, ==, "/tmp/shot.jpeg");
  }

  /* No root: the configured dir, else the temporary directory. */
  in_tmp = stw_screenshot_resolve_path (NULL, NULL, NULL, NULL, STW_IMAGE_FORMAT_PNG, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (in_tmp, g_get_tmp_dir ()));

  g_assert_cmpint (g_unlink (link), ==, 0);
  g_assert_cmpint (g_rmdir (shots), ==, 0);
  g_clear_pointer (&parent, g_free);
  parent = g_path_get_dirname (shots);
  g_assert_cmpint (g_rmdir (parent), ==, 0);
  g_assert_cmpint (g_rmdir (root), ==, 0);
  g_assert_cmpint (g_rmdir (outside), ==, 0);
}

static void
test_image_size (void)
{
  static const guchar jpeg[] = {
    0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00,
    0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x01, 0x2C, 0x02, 0x58, 0x01, 0x01, 0x11, 0x00,
  };
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GBytes) jpg = g_bytes_new_static (jpeg, sizeof jpeg);
  g_autoptr(GBytes) garbage = g_bytes_new_static ("\x89PNG", 4);
  guchar *data;
  gsize length = 0;
  guint width = 0, height = 0;

  data = g_base64_decode (STW_TEST_TINY_PNG, &length);
  png = g_bytes_new_take (data, length);
  g_assert_true (stw_image_get_size (png, &width, &height));
  g_assert_cmpuint (width, ==, 1);
  g_assert_cmpuint (height, ==, 1);
  g_assert_true (stw_image_get_size (jpg, &width, &height));
  g_assert_cmpuint (width, ==, 600);
  g_assert_cmpuint (height, ==, 300);
  g_assert_false (stw_image_get_size (garbage, NULL, NULL));
}

int
main (int    argc,
      char **argv)
{
  int status;

  stw_test_init (&argc, &argv);

  g_test_add_func ("/surface/options-from-json", test_options_from_json);
  g_test_add_func ("/surface/image-size", test_image_size);
  g_test_add_func ("/surface/screenshot-path", test_screenshot_path);
  g_test_add ("/surface/fake/world-cached", Fake, NULL, fake_setup, test_fake_world_cached, fake_teardown);
  g_test_add ("/surface/fake/garbage", Fake, NULL, fake_setup, test_fake_garbage, fake_teardown);
  g_test_add ("/surface/fake/drop-mid-screenshot", Fake, NULL, fake_setup, test_fake_drop, fake_teardown);
  g_test_add ("/surface/fake/cancel-mid-screenshot", Fake, NULL, fake_setup, test_fake_cancel, fake_teardown);
  g_test_add ("/surface/fake/closed-surface", Fake, NULL, fake_setup, test_fake_closed_surface, fake_teardown);
  g_test_add_func ("/session/1-launch", test_launch);
  g_test_add_func ("/session/2-surfaces", test_surfaces);
  g_test_add_func ("/session/2-run-in-frame", test_run_in_frame);
  g_test_add_func ("/session/3-screenshot-window", test_screenshot_window);
  g_test_add_func ("/session/4-screenshot-clip", test_screenshot_clip);
  g_test_add_func ("/session/5-screenshot-element", test_screenshot_element);
  g_test_add_func ("/session/6-isolated-world", test_isolated_world);
  g_test_add_func ("/session/7-stop", test_stop);
  g_test_add_func ("/session/8-manager-dropped", test_manager_dropped);

  status = g_test_run ();

  if (app.session != NULL && stw_session_is_running (app.session))
    stw_session_force_kill (app.session);
  g_clear_object (&app.session);
  g_clear_object (&app.manager);
  g_free (app.skip);
  return status;
}
