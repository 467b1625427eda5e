/* test-visual-plugin.c: the visual plugin (issue 20, items 5, 6 and 10):
 * its comparison on synthetic images, its PNG decoder on hostile input,
 * and the plugin loaded into a dispatcher of a C harness linked to the
 * shared library, called blocking and asynchronously
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The image code (plugins/visual/visual-image.c) is compiled into this
 * program; the plugin itself is loaded from plugins/built/ and reached
 * through the public API only: stw_dispatcher_call_json_sync (blocking)
 * and stw_dispatcher_invoke_async.
 */
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "stw-test-utils.h"
#include "stw-visual.h"
#include "visual-image.h"

/* --- the comparison ------------------------------------------------------ */

static void
fill (VisualImage *image,
      guint8       r,
      guint8       g,
      guint8       b)
{
  for (gsize i = 0; i < (gsize) image->width * image->height; i++)
    {
      image->pixels[i * 4] = r;
      image->pixels[i * 4 + 1] = g;
      image->pixels[i * 4 + 2] = b;
      image->pixels[i * 4 + 3] = 255;
    }
}

static void
set_pixel (VisualImage *image,
           guint        x,
           guint        y,
           guint8       r,
           guint8       g,
           guint8       b)
{
  guint8 *p = image->pixels + ((gsize) y * image->width + x) * 4;

  p[0] = r;
  p[1] = g;
  p[2] = b;
  p[3] = 255;
}

static void
test_compare_identical (void)
{
  g_autoptr(VisualImage) a = _stw_visual_image_new (32, 24);
  g_autoptr(VisualImage) b = _stw_visual_image_new (32, 24);
  g_autoptr(VisualImage) diff = _stw_visual_image_new (32, 24);
  VisualCounts counts;

  fill (a, 20, 120, 220);
  fill (b, 20, 120, 220);
  set_pixel (a, 5, 5, 0, 0, 0);
  set_pixel (b, 5, 5, 0, 0, 0);
  counts = _stw_visual_image_compare (a, b, 0.1, FALSE, diff);
  g_assert_cmpuint (counts.mismatched, ==, 0);
  g_assert_cmpuint (counts.anti_aliased, ==, 0);
  g_assert_cmpuint (counts.total, ==, 32 * 24);
  /* Nothing red or yellow: the faded grey of the image. */
  for (gsize i = 0; i < 32 * 24; i++)
    g_assert_true (diff->pixels[i * 4] == diff->pixels[i * 4 + 1] && diff->pixels[i * 4 + 1] == diff->pixels[i * 4 + 2]);
}

static void
test_compare_one_pixel (void)
{
  g_autoptr(VisualImage) a = _stw_visual_image_new (32, 24);
  g_autoptr(VisualImage) b = _stw_visual_image_new (32, 24);
  g_autoptr(VisualImage) diff = _stw_visual_image_new (32, 24);
  VisualCounts counts;
  const guint8 *p;

  fill (a, 255, 255, 255);
  fill (b, 255, 255, 255);
  set_pixel (b, 7, 9, 0, 0, 0);
  counts = _stw_visual_image_compare (a, b, 0.1, FALSE, diff);
  g_assert_cmpuint (counts.mismatched, ==, 1);
  g_assert_cmpuint (counts.anti_aliased, ==, 0);
  p = diff->pixels + ((gsize) 9 * 32 + 7) * 4;
  g_assert_cmpuint (p[0], ==, 255);
  g_assert_cmpuint (p[1], ==, 0);
  g_assert_cmpuint (p[2], ==, 0);

  /* Within the threshold, a slight shift of colour is no change. */
  set_pixel (b, 7, 9, 250, 250, 250);
  counts = _stw_visual_image_compare (a, b, 0.1, FALSE, NULL);
  g_assert_cmpuint (counts.mismatched, ==, 0);
  counts = _stw_visual_image_compare (a, b, 0, FALSE, NULL);
  g_assert_cmpuint (counts.mismatched, ==, 1);
}

/* A black | white vertical edge whose middle column is grey, a different
 * grey in each image: the same edge drawn a subpixel apart. */
static void
edge (VisualImage *image,
      guint8       grey)
{
  for (guint y = 0; y < image->height; y++)
    for (guint x = 0; x < image->width; x++)
      {
        guint8 v = x < 10 ? 0 : x == 10 ? grey : 255;

        set_pixel (image, x, y, v, v, v);
      }
}

static void
test_compare_anti_aliased_edge (void)
{
  g_autoptr(VisualImage) a = _stw_visual_image_new (20, 16);
  g_autoptr(VisualImage) b = _stw_visual_image_new (20, 16);
  g_autoptr(VisualImage) diff = _stw_visual_image_new (20, 16);
  VisualCounts counts;
  const guint8 *p;

  edge (a, 128);
  edge (b, 80);
  counts = _stw_visual_image_compare (a, b, 0.1, FALSE, diff);
  g_assert_cmpuint (counts.mismatched, ==, 0);
  g_assert_cmpuint (counts.anti_aliased, ==, 16);
  p = diff->pixels + ((gsize) 3 * 20 + 10) * 4;
  g_assert_cmpuint (p[0], ==, 255);
  g_assert_cmpuint (p[1], ==, 255);
  g_assert_cmpuint (p[2], ==, 0);

  /* Counted when asked to, */
  counts = _stw_visual_image_compare (a, b, 0.1, TRUE, NULL);
  g_assert_cmpuint (counts.mismatched, ==, 16);

  /* and a grey pixel in a flat area is a change, not anti-aliasing. */
  fill (a, 255, 255, 255);
  fill (b, 255, 255, 255);
  set_pixel (b, 15, 8, 128, 128, 128);
  counts = _stw_visual_image_compare (a, b, 0.1, FALSE, NULL);
  g_assert_cmpuint (counts.mismatched, ==, 1);
  g_assert_cmpuint (counts.anti_aliased, ==, 0);
}

/* --- the decoder --------------------------------------------------------- */

static void
test_png_round_trip (void)
{
  g_autoptr(VisualImage) image = _stw_visual_image_new (13, 7);
  g_autoptr(VisualImage) back = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GError) error = NULL;

  for (gsize i = 0; i < 13 * 7 * 4; i++)
    image->pixels[i] = (guint8) (i * 37);
  png = _stw_visual_image_encode_png (image, &error);
  g_assert_no_error (error);
  back = _stw_visual_image_decode_png (g_bytes_get_data (png, NULL), g_bytes_get_size (png), 1000, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->width, ==, 13);
  g_assert_cmpuint (back->height, ==, 7);
  g_assert_cmpmem (back->pixels, 13 * 7 * 4, image->pixels, 13 * 7 * 4);

  /* One pixel over the budget: refused before decoding. */
  g_clear_pointer (&back, _stw_visual_image_free);
  back = _stw_visual_image_decode_png (g_bytes_get_data (png, NULL), g_bytes_get_size (png), 13 * 7 - 1, &error);
  g_assert_null (back);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
}

/* A header that claims 60000 × 60000 pixels is refused without a pixel
 * allocated; truncated, corrupt or foreign data is refused by libpng
 * through its error handler, leaking nothing (valgrind and ASan runs of
 * this test see it). The budget is the most the config allows. */
static void
test_png_hostile (void)
{
  g_autoptr(VisualImage) image = _stw_visual_image_new (40, 30);
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *copy = NULL;
  const guint8 *data;
  gsize size;
  VisualImage *decoded;

  fill (image, 1, 2, 3);
  png = _stw_visual_image_encode_png (image, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (png, &size);
  copy = g_memdup2 (data, size);

  /* Huge: width and height in the IHDR are at 16 and 20. */
  copy[16] = 0; copy[17] = 0; copy[18] = 0xea; copy[19] = 0x60;
  copy[20] = 0; copy[21] = 0; copy[22] = 0xea; copy[23] = 0x60;
  decoded = _stw_visual_image_decode_png (copy, size, 67108864, &error);
  g_assert_null (decoded);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_clear_error (&error);

  /* A header within bounds whose CRC no longer matches. */
  memcpy (copy, data, size);
  copy[19] = 41;
  decoded = _stw_visual_image_decode_png (copy, size, 1 << 20, &error);
  g_assert_null (decoded);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* Truncated in the pixel data. */
  decoded = _stw_visual_image_decode_png (data, size - 20, 1 << 20, &error);
  g_assert_null (decoded);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* Not a PNG at all, and nothing. */
  decoded = _stw_visual_image_decode_png ((const guint8 *) "GIF89a........................", 30, 1 << 20, &error);
  g_assert_null (decoded);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  decoded = _stw_visual_image_decode_png ((const guint8 *) "", 0, 1 << 20, &error);
  g_assert_null (decoded);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

/* --- the plugin, through the dispatcher ---------------------------------- */

static char *
plugin_file (void)
{
  return g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "visual.plugin", NULL);
}

static gboolean
electron_available (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);

  return g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) &&
         g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE);
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
  result = stw_test_wait_result (&wait, 120000);
  envelope = stw_dispatcher_invoke_finish (dispatcher, result, &error);
  g_assert_no_error (error);
  return envelope;
}

static JsonObject *
ok (JsonObject *envelope)
{
  if (!json_object_get_boolean_member (envelope, "ok"))
    g_error ("unexpected failure: %s: %s", json_object_get_string_member_with_default (envelope, "code", "?"),
             json_object_get_string_member_with_default (envelope, "error", "?"));
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
      const char    *config_json)
{
  g_autofree char *file = plugin_file ();
  const char * const specs[] = { file, NULL };
  g_autoptr(JsonNode) config = stw_test_parse (config_json);
  g_autoptr(JsonObject) configs = json_object_new ();
  g_autoptr(GError) error = NULL;
  GList *loaded;

  json_object_set_object_member (configs, "visual", json_object_ref (json_node_get_object (config)));
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
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "visual_expect"));
  g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "visual.MISMATCH"));
}

static void
write_text (const char *path,
            const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

/* Without a session: the codes are registered, hostile names are refused
 * blocking and async, and update_baseline works beneath the app root's
 * default directory and refuses a directory outside it. */
static void
test_no_session (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autolist(StwPlugin) loaded = NULL;
  g_autofree char *root = g_dir_make_tmp ("stw-visual-XXXXXX", NULL);
  g_autofree char *outside = g_dir_make_tmp ("stw-visual-out-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (root, ".stagewright", "baselines", NULL);
  g_autofree char *actual = g_build_filename (dir, "page.actual.png", NULL);
  g_autofree char *actual_json = g_build_filename (dir, "page.actual.json", NULL);
  g_autofree char *baseline = g_build_filename (dir, "page.png", NULL);
  g_autofree char *outside_actual = g_build_filename (outside, "page.actual.png", NULL);
  g_autoptr(VisualImage) image = _stw_visual_image_new (4, 3);
  g_autoptr(GBytes) png = NULL;
  g_autoptr(JsonObject) unnamed = NULL;
  g_autoptr(JsonObject) dotted = NULL;
  g_autoptr(JsonObject) missing = NULL;
  g_autoptr(JsonObject) unconfirmed = NULL;
  g_autoptr(JsonObject) updated = NULL;
  g_autoptr(GError) error = NULL;

  stw_dispatcher_add_core_tools (dispatcher);
  stw_dispatcher_set_app_root (dispatcher, root);
  loaded = load (dispatcher, "{}");
  g_assert_true (stw_error_registry_contains (stw_error_registry_get_default (), "visual.ENV_MISMATCH"));

  unnamed = stw_test_call_json (dispatcher, "visual_update_baseline", "{\"name\":\"../../etc/passwd\",\"confirm\":true}");
  assert_code (unnamed, "visual.PATH_INVALID");
  dotted = call_async (dispatcher, "visual_update_baseline", "{\"name\":\"..\",\"confirm\":true}");
  assert_code (dotted, "visual.PATH_INVALID");
  missing = call_async (dispatcher, "visual_update_baseline", "{\"name\":\"page\",\"confirm\":true}");
  assert_code (missing, "visual.BASELINE_NOT_FOUND");
  unconfirmed = stw_test_call_json (dispatcher, "visual_update_baseline", "{\"name\":\"page\"}");
  assert_code (unconfirmed, "BAD_ARGUMENT");

  /* A capture as the plugin leaves it, adopted as the baseline. */
  fill (image, 9, 9, 9);
  png = _stw_visual_image_encode_png (image, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (actual, g_bytes_get_data (png, NULL), (gssize) g_bytes_get_size (png), NULL));
  write_text (actual_json, "{\"version\":1,\"name\":\"page\",\"width\":4,\"height\":3,\"target\":{},"
                           "\"environment\":{\"chromiumVersion\":\"Chrome/1.2\",\"deviceScaleFactor\":2,"
                           "\"viewport\":{\"width\":2,\"height\":2},\"fontsFingerprint\":\"sha256:0\"}}");
  updated = ok (stw_test_call_json (dispatcher, "visual_update_baseline", "{\"name\":\"page\",\"confirm\":true}"));
  g_assert_cmpstr (json_object_get_string_member (updated, "baselinePath"), ==, baseline);
  g_assert_cmpint (json_object_get_int_member (updated, "width"), ==, 4);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (updated, "environment"),
                                                    "deviceScaleFactor"), ==, 2);
  g_assert_true (g_file_test (baseline, G_FILE_TEST_IS_REGULAR));
  unload (dispatcher);

  /* A baseline directory outside the app root: refused, nothing read. */
  {
    g_autofree char *config = g_strdup_printf ("{\"baselineDir\":\"%s\"}", outside);
    g_autolist(StwPlugin) again = load (dispatcher, config);
    g_autoptr(JsonObject) refused = NULL;

    g_assert_true (g_file_set_contents (outside_actual, g_bytes_get_data (png, NULL), (gssize) g_bytes_get_size (png), NULL));
    refused = call_async (dispatcher, "visual_update_baseline", "{\"name\":\"page\",\"confirm\":true}");
    assert_code (refused, "visual.PATH_INVALID");
    unload (dispatcher);
  }

  g_remove (outside_actual);
  g_rmdir (outside);
  {
    g_autofree char *baseline_json = g_build_filename (dir, "page.json", NULL);
    g_autofree char *parent = g_path_get_dirname (dir);

    g_remove (baseline_json);
    g_remove (baseline);
    g_remove (actual);
    g_remove (actual_json);
    g_rmdir (dir);
    g_rmdir (parent);
    g_rmdir (root);
  }
}

/* The plugin the dispatcher loaded is a StwVisualPlugin: its API called
 * directly, blocking and async, with typed results. */
static void
test_api (StwVisualPlugin *plugin,
          StwSession      *session,
          const char      *dir)
{
  g_autoptr(StwTarget) label = stw_target_new_for_selector ("#label");
  g_autoptr(StwVisualCapture) captured = NULL;
  g_autoptr(StwVisualComparison) compared = NULL;
  g_autoptr(StwVisualComparison) again = NULL;
  g_autoptr(StwVisualCapture) updated = NULL;
  g_autoptr(StwVisualCapture) hostile = NULL;
  g_autoptr(StwVisualCapture) unloaded_result = NULL;
  g_autoptr(StwVisualPlugin) unloaded = stw_visual_plugin_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *baseline = g_build_filename (dir, "label.png", NULL);
  StwTestResult wait = { 0 };

  g_assert_nonnull (session);
  captured = stw_visual_plugin_capture_sync (plugin, session, "label", label, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_visual_capture_get_baseline_created (captured));
  g_assert_cmpstr (stw_visual_capture_get_baseline_path (captured), ==, baseline);
  g_assert_cmpuint (stw_visual_capture_get_width (captured), ==, 200);
  g_assert_cmpuint (stw_visual_capture_get_height (captured), ==, 40);
  g_assert_cmpfloat (stw_visual_capture_get_device_scale_factor (captured), ==, 1);
  g_assert_cmpuint (stw_visual_capture_get_attempts (captured), >=, 2);
  g_assert_true (g_str_has_prefix (stw_visual_capture_get_chromium_version (captured), "Chrom") ||
                 g_str_has_prefix (stw_visual_capture_get_chromium_version (captured), "HeadlessChrom"));
  g_assert_true (g_str_has_prefix (stw_visual_capture_get_fonts_fingerprint (captured), "sha256:"));
  g_assert_cmpuint (stw_visual_capture_get_viewport_width (captured), >, 0);

  stw_visual_plugin_expect_async (plugin, session, "label", -1, -1, -1, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 120000);
  compared = stw_visual_plugin_expect_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_assert_true (stw_visual_comparison_get_passed (compared));
  g_assert_cmpuint (stw_visual_comparison_get_mismatched_pixels (compared), ==, 0);
  g_assert_cmpuint (stw_visual_comparison_get_total_pixels (compared), ==, 200 * 40);
  g_assert_true (g_file_test (stw_visual_comparison_get_diff_path (compared), G_FILE_TEST_IS_REGULAR));

  again = stw_visual_plugin_expect_sync (plugin, session, "label", 0.5, 10, 0.01, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_visual_comparison_get_allowed_pixels (again), ==, 80);

  updated = stw_visual_plugin_update_baseline_sync (plugin, "label", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stw_visual_capture_get_path (updated), ==, baseline);

  hostile = stw_visual_plugin_capture_sync (plugin, session, "../label", label, FALSE, NULL, &error);
  g_assert_null (hostile);
  g_assert_error (error, STW_VISUAL_ERROR, STW_VISUAL_ERROR_PATH_INVALID);
  g_clear_error (&error);

  /* Outside a dispatcher there is no confined open to write through. */
  unloaded_result = stw_visual_plugin_update_baseline_sync (unloaded, "label", NULL, &error);
  g_assert_null (unloaded_result);
  g_assert_error (error, STW_VISUAL_ERROR, STW_VISUAL_ERROR_UNSUPPORTED);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "visual.UNSUPPORTED");
  g_assert_nonnull (strstr (error->message, "not loaded"));
}

/* On the fixture page: a baseline, an identical page passes, a changed
 * label mismatches, blocking and async. */
static void
test_page (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autolist(StwPlugin) loaded = NULL;
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  g_autofree char *pages = g_test_build_filename (G_TEST_DIST, "fixtures", "visual-pages", NULL);
  g_autofree char *dir = g_dir_make_tmp ("stw-visual-XXXXXX", NULL);
  g_autofree char *config = g_strdup_printf ("{\"baselineDir\":\"%s\"}", dir);
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
  loaded = load (dispatcher, config);
  launch_args = g_strdup_printf ("{\"executablePath\":\"%s\",\"main\":\"%s\",\"args\":[\"--page=visual\","
                                 "\"--pages-dir=%s\"]}", electron, app, pages);
  launch = ok (stw_test_call_json (dispatcher, "electron_launch", launch_args));
  sid = json_object_get_string_member (launch, "session_id");

  {
    g_autofree char *wait = g_strdup_printf ("{\"sessionId\":\"%s\",\"selector\":\"#label\",\"equals\":\"Save\"}", sid);
    g_autofree char *home = g_strdup_printf ("{\"sessionId\":\"%s\",\"name\":\"home\"}", sid);
    g_autofree char *rename = g_strdup_printf ("{\"sessionId\":\"%s\",\"selector\":\"#rename\"}", sid);
    g_autofree char *renamed = g_strdup_printf ("{\"sessionId\":\"%s\",\"selector\":\"#label\",\"equals\":\"Send\"}", sid);
    g_autofree char *hostile = g_strdup_printf ("{\"sessionId\":\"%s\",\"name\":\"a/b\"}", sid);
    g_autofree char *stop = g_strdup_printf ("{\"sessionId\":\"%s\"}", sid);
    g_autoptr(JsonObject) waited = ok (stw_test_call_json (dispatcher, "electron_expect_text", wait));
    g_autoptr(JsonObject) captured = ok (stw_test_call_json (dispatcher, "visual_capture", home));
    g_autoptr(JsonObject) same = ok (call_async (dispatcher, "visual_expect", home));
    g_autoptr(JsonObject) clicked = ok (stw_test_call_json (dispatcher, "electron_click", rename));
    g_autoptr(JsonObject) waited_again = ok (stw_test_call_json (dispatcher, "electron_expect_text", renamed));
    g_autoptr(JsonObject) changed = stw_test_call_json (dispatcher, "visual_expect", home);
    g_autoptr(JsonObject) changed_async = call_async (dispatcher, "visual_expect", home);
    g_autoptr(JsonObject) refused = call_async (dispatcher, "visual_capture", hostile);
    g_autoptr(JsonObject) stopped = NULL;
    JsonObject *details;

    g_assert_cmpstr (json_object_get_string_member (captured, "baseline"), ==, "created");
    g_assert_true (json_object_get_boolean_member (same, "passed"));
    g_assert_cmpint (json_object_get_int_member (same, "mismatchedPixels"), ==, 0);
    assert_code (changed, "visual.MISMATCH");
    details = json_object_get_object_member (changed, "details");
    g_assert_cmpint (json_object_get_int_member (details, "mismatchedPixels"), >, 0);
    g_assert_true (g_file_test (json_object_get_string_member (details, "diffPath"), G_FILE_TEST_IS_REGULAR));
    assert_code (changed_async, "visual.MISMATCH");
    assert_code (refused, "visual.PATH_INVALID");

    test_api (STW_VISUAL_PLUGIN (loaded->data),
              stw_session_manager_lookup (stw_dispatcher_get_session_manager (dispatcher), sid), dir);
    stopped = ok (stw_test_call_json (dispatcher, "electron_stop", stop));
  }
  unload (dispatcher);

  {
    g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
    const char *entry;

    while ((entry = g_dir_read_name (listing)) != NULL)
      {
        g_autofree char *file = g_build_filename (dir, entry, NULL);

        g_remove (file);
      }
    g_rmdir (dir);
  }
}

int
main (int    argc,
      char **argv)
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/visual-plugin/compare/identical", test_compare_identical);
  g_test_add_func ("/visual-plugin/compare/one-pixel", test_compare_one_pixel);
  g_test_add_func ("/visual-plugin/compare/anti-aliased-edge", test_compare_anti_aliased_edge);
  g_test_add_func ("/visual-plugin/png/round-trip", test_png_round_trip);
  g_test_add_func ("/visual-plugin/png/hostile", test_png_hostile);
  g_test_add_func ("/visual-plugin/no-session", test_no_session);
  g_test_add_func ("/visual-plugin/page", test_page);

  return g_test_run ();
}
