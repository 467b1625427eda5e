/* test-network-plugin.c: the network plugin (issue 20, items 1–4) from C:
 * its typed API asynchronously and blocking, and its tools blocking
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The harness links libstagewright-plugins: one test adds a plugin made
 * with stw_network_plugin_new() to a dispatcher, the other loads the module
 * from plugins/built/ and finds the library's type in it. On the network
 * fixture app, whose page a SoupServer on loopback serves: a capture sees a
 * fetch and an image with their cookie redacted, its HAR is written, a stub
 * changes what the page shows for `times` requests, a `fail` stub runs the
 * page's error path; through the _async API, the _sync API and the tools
 * (stw_dispatcher_call_json_sync). On its service-worker page: the
 * worker's own request captured (marked, with no surface) and stubbed,
 * left out of a partition's capture; workers are kept apart from the
 * surfaces and forgotten when they go.
 */
#include <string.h>

#include <glib/gstdio.h>

#include "stw-test-utils.h"
#include <stw-network.h>

typedef struct
{
  SoupServer *server;
  char       *url;
  char       *page_dir;
  guint       data_hits;
  guint       sw_hits;
} Page;

static void
serve (SoupServer        *server,
       SoupServerMessage *message,
       const char        *path,
       GHashTable        *query,
       gpointer           user_data)
{
  Page *page = user_data;
  g_autofree char *file = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  const char *type = "application/octet-stream";

  soup_message_headers_append (soup_server_message_get_response_headers (message), "Set-Cookie",
                               "sid=server-s3cret; Path=/");
  if (g_str_equal (path, "/api/old"))
    {
      soup_server_message_set_redirect (message, 302, "/api/moved.json");
      return;
    }
  if (g_str_equal (path, "/api/data.json"))
    page->data_hits++;
  if (g_str_equal (path, "/api/from-sw.json"))
    page->sw_hits++;
  file = g_build_filename (page->page_dir, g_str_equal (path, "/") ? "index.html" : path, NULL);
  if (strstr (path, "..") != NULL || !g_file_get_contents (file, &contents, &length, NULL))
    {
      soup_server_message_set_status (message, 404, NULL);
      return;
    }
  if (g_str_has_suffix (file, ".html"))
    type = "text/html; charset=utf-8";
  else if (g_str_has_suffix (file, ".js"))
    type = "text/javascript";
  else if (g_str_has_suffix (file, ".json"))
    type = "application/json";
  else if (g_str_has_suffix (file, ".png"))
    type = "image/png";
  soup_server_message_set_status (message, 200, NULL);
  soup_server_message_set_response (message, type, SOUP_MEMORY_COPY, contents, length);
}

static void
page_start (Page *page)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  page->page_dir = g_test_build_filename (G_TEST_DIST, "fixtures", "network-app", "page", NULL);
  page->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (page->server, NULL, serve, page, NULL);
  g_assert_true (soup_server_listen_local (page->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (page->server);
  page->url = g_uri_to_string (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
}

static void
page_stop (Page *page)
{
  soup_server_disconnect (page->server);
  g_clear_object (&page->server);
  g_free (page->url);
  g_free (page->page_dir);
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

static JsonObject *
call (StwDispatcher *dispatcher,
      const char    *tool,
      const char    *format,
      ...) G_GNUC_PRINTF (3, 4);

static JsonObject *
call (StwDispatcher *dispatcher,
      const char    *tool,
      const char    *format,
      ...)
{
  g_autofree char *arguments = NULL;
  va_list args;

  va_start (args, format);
  arguments = g_strdup_vprintf (format, args);
  va_end (args);
  return stw_test_call_json (dispatcher, tool, arguments);
}

/* Polls the page's @selector until its text is @expected (10 s). */
static void
assert_text (StwDispatcher *dispatcher,
             const char    *sid,
             const char    *selector,
             const char    *expected)
{
  g_autofree char *text = NULL;
  gint64 deadline = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;

  do
    {
      g_autoptr(JsonObject) got = call (dispatcher, "electron_get_text", "{\"sessionId\":\"%s\",\"selector\":\"%s\"}",
                                        sid, selector);

      g_free (text);
      text = g_strdup (json_object_get_string_member_with_default (got, "text", ""));
      if (g_str_has_prefix (text, expected))
        return;
      stw_test_iterate_for (100);
    }
  while (g_get_monotonic_time () < deadline);
  g_assert_cmpstr (text, ==, expected);
}

static void
click (StwDispatcher *dispatcher,
       const char    *sid,
       const char    *selector)
{
  g_autoptr(JsonObject) clicked = call (dispatcher, "electron_click", "{\"sessionId\":\"%s\",\"selector\":\"%s\"}",
                                        sid, selector);

  ok (clicked);
}

#define WAIT(call_, finish_) \
  G_STMT_START { \
    StwTestResult wait_ = { 0 }; \
    g_autoptr(GAsyncResult) result = NULL; \
    call_; \
    result = stw_test_wait_result (&wait_, 60000); \
    finish_; \
  } G_STMT_END

/* The scratch directory: the body files (one level of subdirectories) and
 * the HAR files. */
static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

typedef struct
{
  StwDispatcher    *dispatcher;
  StwNetworkPlugin *plugin;
  StwSession       *session;
  char             *sid;
  char             *dir;
  Page              page;
} Fixture;

/* On page/index.html, or on page/@page_path when not NULL. */
static gboolean
fixture_set_up_on (Fixture    *fixture,
                   gboolean    from_module,
                   const char *page_path)
{
  g_autofree char *url = NULL;
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "network-app", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) launch = NULL;
  g_autoptr(JsonObject) configs = json_object_new ();
  g_autoptr(JsonObject) config = json_object_new ();
  GList plugins = { NULL, NULL, NULL };

  if (!stw_test_electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return FALSE;
    }
  fixture->dir = g_dir_make_tmp ("stw-net-XXXXXX", &error);
  g_assert_no_error (error);
  page_start (&fixture->page);
  fixture->dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (fixture->dispatcher);
  json_object_set_string_member (config, "bodyDir", fixture->dir);
  json_object_set_object_member (configs, "network", json_object_ref (config));
  if (from_module)
    {
      g_autofree char *file = g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "network.plugin", NULL);
      const char * const specs[] = { file, NULL };
      GList *loaded = stw_dispatcher_load_plugins_sync (fixture->dispatcher, specs, configs, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (g_list_length (loaded), ==, 1);
      /* The module's plugin is the library's type. */
      g_assert_true (STW_IS_NETWORK_PLUGIN (loaded->data));
      fixture->plugin = g_object_ref (loaded->data);
      g_list_free_full (loaded, g_object_unref);
    }
  else
    {
      fixture->plugin = stw_network_plugin_new ();
      plugins.data = fixture->plugin;
      stw_dispatcher_add_plugins_sync (fixture->dispatcher, &plugins, configs, NULL, &error);
      g_assert_no_error (error);
    }

  url = g_strconcat (fixture->page.url, page_path, NULL);
  launch = ok (call (fixture->dispatcher, "electron_launch",
                     "{\"executablePath\":\"%s\",\"main\":\"%s\",\"args\":[\"--url=%s\"]}",
                     electron, app, url));
  fixture->sid = g_strdup (json_object_get_string_member (launch, "session_id"));
  fixture->session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (fixture->dispatcher),
                                                 fixture->sid);
  g_assert_nonnull (fixture->session);
  if (page_path == NULL)
    assert_text (fixture->dispatcher, fixture->sid, "#secret", "secret: ok");
  else
    assert_text (fixture->dispatcher, fixture->sid, "#sw", "idle");
  return TRUE;
}

static gboolean
fixture_set_up (Fixture  *fixture,
                gboolean  from_module)
{
  return fixture_set_up_on (fixture, from_module, NULL);
}

static void
fixture_tear_down (Fixture *fixture)
{
  g_autoptr(JsonObject) stopped = NULL;
  g_autoptr(GError) error = NULL;

  if (fixture->dispatcher == NULL)
    return;
  stopped = call (fixture->dispatcher, "electron_stop", "{\"sessionId\":\"%s\"}", fixture->sid);
  g_assert_true (stw_dispatcher_unload_plugins_sync (fixture->dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&fixture->plugin);
  g_clear_object (&fixture->dispatcher);
  page_stop (&fixture->page);
  g_free (fixture->sid);
  remove_tree (fixture->dir);
  g_free (fixture->dir);
}

static StwNetworkEntry *
find_entry (GPtrArray  *entries,
            const char *suffix)
{
  for (guint i = 0; i < entries->len; i++)
    {
      if (g_str_has_suffix (stw_network_entry_get_url (entries->pdata[i]), suffix))
        return entries->pdata[i];
    }
  return NULL;
}

/* The typed API, asynchronously: capture, page, HAR, stubs. */
static void
test_api_async (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(StwNetworkPage) page = NULL;
  g_autoptr(StwNetworkStub) stub = NULL;
  g_autoptr(StwNetworkStub) failing = NULL;
  g_autoptr(StwNetworkStub) registered = NULL;
  g_autoptr(GPtrArray) stubs = NULL;
  g_autoptr(GBytes) body = g_bytes_new_static ("{\"message\":\"typed stub\"}", 24);
  g_autofree char *har_path = NULL;
  g_autofree char *har = NULL;
  const char * const pattern[] = { "/(unclosed/", NULL };
  StwNetworkEntry *fetched;
  StwNetworkEntry *image;
  gboolean started = FALSE;
  guint n_entries = 0;
  guint hits;

  if (!fixture_set_up (&fixture, FALSE))
    return;

  WAIT (stw_network_plugin_capture_start_async (fixture.plugin, fixture.session, pattern, STW_NETWORK_BODIES_TEXT, 0,
                                                NULL, NULL, stw_test_result_cb, &wait_),
        started = stw_network_plugin_capture_start_finish (fixture.plugin, result, &error));
  g_assert_false (started);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "network.INVALID_PATTERN");
  g_clear_error (&error);

  WAIT (stw_network_plugin_capture_start_async (fixture.plugin, fixture.session, NULL, STW_NETWORK_BODIES_TEXT, 0,
                                                NULL, NULL, stw_test_result_cb, &wait_),
        started = stw_network_plugin_capture_start_finish (fixture.plugin, result, &error));
  g_assert_no_error (error);
  g_assert_true (started);
  WAIT (stw_network_plugin_capture_start_async (fixture.plugin, fixture.session, NULL, STW_NETWORK_BODIES_NONE, 0,
                                                NULL, NULL, stw_test_result_cb, &wait_),
        started = stw_network_plugin_capture_start_finish (fixture.plugin, result, &error));
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "network.ALREADY_CAPTURING");
  g_clear_error (&error);

  /* A fetch in the window and an image in a new one. */
  click (fixture.dispatcher, fixture.sid, "#reload");
  assert_text (fixture.dispatcher, fixture.sid, "#data", "hello from the server (200, load 2)");
  click (fixture.dispatcher, fixture.sid, "#open");
  for (guint tries = 0; tries < 100; tries++)
    {
      g_clear_object (&page);
      WAIT (stw_network_plugin_captured_async (fixture.plugin, fixture.session, 500, NULL, NULL, -1, NULL, NULL,
                                               stw_test_result_cb, &wait_),
            page = stw_network_plugin_captured_finish (fixture.plugin, result, &error));
      g_assert_no_error (error);
      image = find_entry (stw_network_page_get_entries (page), "pixel.png?second");
      fetched = find_entry (stw_network_page_get_entries (page), "/api/data.json");
      /* The raw headers (with Set-Cookie) may come after the body. */
      if (image != NULL && stw_network_entry_is_finished (image) && fetched != NULL &&
          stw_network_entry_get_response_body (fetched) != NULL &&
          (json_object_has_member (stw_network_entry_get_response_headers (fetched), "Set-Cookie") ||
           json_object_has_member (stw_network_entry_get_response_headers (fetched), "set-cookie")))
        break;
      stw_test_iterate_for (100);
    }
  g_assert_nonnull (fetched);
  g_assert_nonnull (image);
  g_assert_cmpint (stw_network_entry_get_status (fetched), ==, 200);
  g_assert_cmpstr (stw_network_entry_get_resource_type (fetched), ==, "Fetch");
  g_assert_cmpstr (stw_network_entry_get_resource_type (image), ==, "Image");
  g_assert_cmpstr (stw_network_entry_get_mime_type (image), ==, "image/png");
  g_assert_true (g_str_has_prefix (stw_network_entry_get_response_body_path (fetched), fixture.dir));
  {
    JsonObject *headers = stw_network_entry_get_response_headers (fetched);
    const char *cookie = json_object_get_string_member_with_default (headers, "Set-Cookie",
                           json_object_get_string_member_with_default (headers, "set-cookie", NULL));

    g_assert_cmpstr (cookie, ==, "[REDACTED]");
  }

  har_path = g_build_filename (fixture.dir, "typed.har", NULL);
  WAIT (stw_network_plugin_export_har_async (fixture.plugin, fixture.session, har_path, NULL, stw_test_result_cb,
                                             &wait_),
        g_assert_true (stw_network_plugin_export_har_finish (fixture.plugin, result, &n_entries, &error)));
  g_assert_no_error (error);
  g_assert_cmpuint (n_entries, >=, 3);
  g_assert_true (g_file_get_contents (har_path, &har, NULL, NULL));
  g_assert_nonnull (strstr (har, "\"version\":\"1.2\""));
  g_assert_nonnull (strstr (har, "pixel.png?second"));
  g_assert_null (strstr (har, "s3cret"));

  /* A stub for one request, then the server again. */
  stub = stw_network_stub_new ("**/api/data.json");
  stw_network_stub_set_body (stub, body);
  stw_network_stub_set_header (stub, "Content-Type", "application/json");
  stw_network_stub_set_times (stub, 1);
  WAIT (stw_network_plugin_stub_async (fixture.plugin, fixture.session, stub, NULL, stw_test_result_cb, &wait_),
        registered = stw_network_plugin_stub_finish (fixture.plugin, result, &error));
  g_assert_no_error (error);
  g_assert_true (registered == stub);
  g_assert_nonnull (stw_network_stub_get_id (stub));
  hits = fixture.page.data_hits;
  click (fixture.dispatcher, fixture.sid, "#reload");
  assert_text (fixture.dispatcher, fixture.sid, "#data", "typed stub (200, load 3)");
  g_assert_cmpuint (fixture.page.data_hits, ==, hits);
  click (fixture.dispatcher, fixture.sid, "#reload");
  assert_text (fixture.dispatcher, fixture.sid, "#data", "hello from the server (200, load 4)");
  g_assert_cmpuint (stw_network_stub_get_matched (stub), ==, 1);

  /* fail: the page's error path. */
  failing = stw_network_stub_new ("**/api/data.json");
  stw_network_stub_set_fail (failing, "connectionrefused");
  g_clear_object (&registered);
  WAIT (stw_network_plugin_stub_async (fixture.plugin, fixture.session, failing, NULL, stw_test_result_cb, &wait_),
        registered = stw_network_plugin_stub_finish (fixture.plugin, result, &error));
  g_assert_no_error (error);
  click (fixture.dispatcher, fixture.sid, "#reload");
  assert_text (fixture.dispatcher, fixture.sid, "#data", "failed (load 5)");
  assert_text (fixture.dispatcher, fixture.sid, "#error", "error: ");

  stubs = stw_network_plugin_list_stubs (fixture.plugin, fixture.session);
  g_assert_cmpuint (stubs->len, ==, 2);
  WAIT (stw_network_plugin_unstub_async (fixture.plugin, fixture.session, NULL, NULL, stw_test_result_cb, &wait_),
        g_assert_cmpuint (stw_network_plugin_unstub_finish (fixture.plugin, result, &error), ==, 2));
  g_assert_no_error (error);
  click (fixture.dispatcher, fixture.sid, "#reload");
  assert_text (fixture.dispatcher, fixture.sid, "#data", "hello from the server (200, load 6)");

  g_clear_object (&page);
  WAIT (stw_network_plugin_capture_stop_async (fixture.plugin, fixture.session, NULL, stw_test_result_cb, &wait_),
        page = stw_network_plugin_capture_stop_finish (fixture.plugin, result, &error));
  g_assert_no_error (error);
  g_assert_false (stw_network_page_get_capturing (page));
  g_assert_cmpuint (stw_network_page_get_total (page), >=, 5);

  fixture_tear_down (&fixture);
}

/* The module's plugin, through the blocking API. */
static void
test_api_blocking (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(StwNetworkPage) page = NULL;
  g_autoptr(StwNetworkPage) stopped = NULL;
  g_autoptr(StwNetworkStub) stub = stw_network_stub_new ("**/api/{data,nothing}.json");
  g_autoptr(StwNetworkStub) registered = NULL;
  g_autoptr(GBytes) body = g_bytes_new_static ("{\"message\":\"blocking stub\"}", 27);
  g_autofree char *har_path = NULL;
  const char * const urls[] = { "**/api/**", NULL };
  StwNetworkEntry *stubbed = NULL;
  guint n_entries = 0;

  if (!fixture_set_up (&fixture, TRUE))
    return;
  har_path = g_build_filename (fixture.dir, "blocking.har", NULL);

  g_assert_true (stw_network_plugin_capture_start_sync (fixture.plugin, fixture.session, urls, STW_NETWORK_BODIES_NONE,
                                                         0, NULL, NULL, &error));
  g_assert_no_error (error);
  stw_network_stub_set_body (stub, body);
  stw_network_stub_set_times (stub, 1);
  registered = stw_network_plugin_stub_sync (fixture.plugin, fixture.session, stub, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (registered);
  click (fixture.dispatcher, fixture.sid, "#reload");
  assert_text (fixture.dispatcher, fixture.sid, "#data", "blocking stub (200, load 2)");
  for (guint tries = 0; tries < 100 && stubbed == NULL; tries++)
    {
      g_clear_object (&page);
      page = stw_network_plugin_captured_sync (fixture.plugin, fixture.session, 0, NULL, "**/data.json", 200, "Fetch",
                                               NULL, &error);
      g_assert_no_error (error);
      if (stw_network_page_get_entries (page)->len > 0 &&
          stw_network_entry_is_finished (stw_network_page_get_entries (page)->pdata[0]))
        stubbed = stw_network_page_get_entries (page)->pdata[0];
      else
        stw_test_iterate_for (100);
    }
  g_assert_nonnull (stubbed);
  g_assert_cmpstr (stw_network_entry_get_stub_id (stubbed), ==, stw_network_stub_get_id (stub));
  /* Only the URLs asked for. */
  g_clear_object (&page);
  page = stw_network_plugin_captured_sync (fixture.plugin, fixture.session, 500, NULL, NULL, -1, NULL, NULL, &error);
  for (guint i = 0; i < stw_network_page_get_entries (page)->len; i++)
    g_assert_nonnull (strstr (stw_network_entry_get_url (stw_network_page_get_entries (page)->pdata[i]), "/api/"));

  g_assert_true (stw_network_plugin_export_har_sync (fixture.plugin, fixture.session, har_path, &n_entries, NULL,
                                                      &error));
  g_assert_no_error (error);
  /* The click's other requests (/api/old and its redirect, /api/secret.json)
   * may still be arriving: the HAR holds what the capture held when it was
   * written, no less than the listing before it and no more than one after. */
  g_assert_cmpuint (n_entries, >=, stw_network_page_get_entries (page)->len);
  g_clear_object (&page);
  page = stw_network_plugin_captured_sync (fixture.plugin, fixture.session, 500, NULL, NULL, -1, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_entries, <=, stw_network_page_get_entries (page)->len);
  for (guint i = 0; i < stw_network_page_get_entries (page)->len; i++)
    g_assert_nonnull (strstr (stw_network_entry_get_url (stw_network_page_get_entries (page)->pdata[i]), "/api/"));
  g_assert_cmpuint (stw_network_plugin_unstub_sync (fixture.plugin, fixture.session, stw_network_stub_get_id (stub),
                                                    NULL, &error), ==, 1);
  g_assert_no_error (error);
  stopped = stw_network_plugin_capture_stop_sync (fixture.plugin, fixture.session, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (stw_network_page_get_capturing (stopped));
  g_assert_null (stw_network_plugin_capture_stop_sync (fixture.plugin, fixture.session, NULL, &error));
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "network.NOT_CAPTURING");

  fixture_tear_down (&fixture);
}

/* The tools, blocking (stw_dispatcher_call_json_sync). */
static void
test_tools_blocking (void)
{
  Fixture fixture = { 0 };
  g_autofree char *har_path = NULL;

  if (!fixture_set_up (&fixture, TRUE))
    return;
  har_path = g_build_filename (fixture.dir, "tools.har", NULL);

  {
    g_autoptr(JsonObject) none = call (fixture.dispatcher, "network_captured", "{\"sessionId\":\"%s\"}", fixture.sid);
    g_autoptr(JsonObject) started = ok (call (fixture.dispatcher, "network_capture_start",
                                              "{\"sessionId\":\"%s\",\"bodies\":\"all\"}", fixture.sid));
    g_autoptr(JsonObject) stub = NULL;
    g_autoptr(JsonObject) captured = NULL;
    g_autoptr(JsonObject) exported = NULL;
    g_autoptr(JsonObject) stubs = NULL;
    g_autoptr(JsonObject) stopped = NULL;
    JsonArray *entries;
    gboolean seen_image = FALSE, seen_fetch = FALSE;

    assert_code (none, "network.NOT_CAPTURING");
    g_assert_false (json_object_get_boolean_member (json_object_get_object_member (started, "capabilities"),
                                                    "mainProcess"));
    stub = ok (call (fixture.dispatcher, "network_stub",
                     "{\"sessionId\":\"%s\",\"url\":\"**/api/data.json\",\"times\":2,"
                     "\"body\":\"{\\\"message\\\":\\\"tool stub\\\"}\"}", fixture.sid));
    click (fixture.dispatcher, fixture.sid, "#reload");
    assert_text (fixture.dispatcher, fixture.sid, "#data", "tool stub (200, load 2)");
    click (fixture.dispatcher, fixture.sid, "#reload");
    assert_text (fixture.dispatcher, fixture.sid, "#data", "tool stub (200, load 3)");
    click (fixture.dispatcher, fixture.sid, "#reload");
    assert_text (fixture.dispatcher, fixture.sid, "#data", "hello from the server (200, load 4)");
    stubs = ok (call (fixture.dispatcher, "network_stubs", "{\"sessionId\":\"%s\"}", fixture.sid));
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                       json_object_get_array_member (stubs, "stubs"), 0), "matched"), ==, 2);

    click (fixture.dispatcher, fixture.sid, "#open");
    for (guint tries = 0; tries < 100 && !(seen_image && seen_fetch); tries++)
      {
        g_clear_pointer (&captured, json_object_unref);
        captured = ok (call (fixture.dispatcher, "network_captured", "{\"sessionId\":\"%s\",\"limit\":500}",
                             fixture.sid));
        entries = json_object_get_array_member (captured, "entries");
        for (guint i = 0; i < json_array_get_length (entries); i++)
          {
            JsonObject *entry = json_array_get_object_element (entries, i);
            const char *type = json_object_get_string_member (entry, "type");

            if (json_object_has_member (entry, "pending"))
              continue;
            seen_image |= g_str_equal (type, "Image");
            seen_fetch |= g_str_equal (type, "Fetch") && json_object_get_int_member (entry, "status") == 200;
          }
        stw_test_iterate_for (100);
      }
    g_assert_true (seen_image);
    g_assert_true (seen_fetch);
    exported = ok (call (fixture.dispatcher, "network_export_har", "{\"sessionId\":\"%s\",\"path\":\"%s\"}",
                         fixture.sid, har_path));
    g_assert_cmpint (json_object_get_int_member (exported, "entries"), >=, 2);
    g_assert_true (g_file_test (har_path, G_FILE_TEST_IS_REGULAR));
    stopped = ok (call (fixture.dispatcher, "network_capture_stop", "{\"sessionId\":\"%s\"}", fixture.sid));
    g_assert_false (json_object_get_boolean_member (stopped, "capturing"));
  }

  fixture_tear_down (&fixture);
}

/* The live worker of @kind, or NULL. */
static StwSurface *
find_worker (StwSession     *session,
             StwSurfaceKind  kind)
{
  g_autoptr(GList) workers = stw_session_list_workers (session);

  for (GList *l = workers; l != NULL; l = l->next)
    {
      if (stw_surface_get_kind (l->data) == kind)
        return l->data;
    }
  return NULL;
}

/* The worker's own request is no surface's: none of the session's
 * surfaces is a worker, and the worker has no page capability. */
static void
assert_workers_apart (StwSession *session)
{
  g_autoptr(GList) surfaces = stw_session_list_surfaces (session);
  g_autoptr(GList) windows = stw_session_list_windows (session);
  StwSurface *worker = find_worker (session, STW_SURFACE_KIND_SERVICE_WORKER);

  g_assert_nonnull (worker);
  g_assert_cmpstr (stw_surface_kind_to_string (stw_surface_get_kind (worker)), ==, "service_worker");
  g_assert_cmpuint (stw_surface_get_capabilities (worker), ==, STW_CAPABILITY_NONE);
  g_assert_cmpuint (g_list_length (windows), ==, 1);
  for (GList *l = surfaces; l != NULL; l = l->next)
    {
      g_assert_cmpint (stw_surface_get_kind (l->data), <=, STW_SURFACE_KIND_OTHER);
      g_assert_true (l->data != worker);
    }
  /* No tool can select it. */
  {
    g_autoptr(GError) error = NULL;

    g_assert_false (stw_session_switch_surface (session, stw_surface_get_id (worker), &error));
    g_assert_nonnull (error);
  }
}

/* The finished entry of the worker's fetch of /api/from-sw.json, polled
 * through the async API; NULL when none came within 10 s. */
static StwNetworkEntry *
worker_entry_async (Fixture         *fixture,
                    StwNetworkPage **page)
{
  g_autoptr(GError) error = NULL;

  for (guint tries = 0; tries < 100; tries++)
    {
      GPtrArray *entries;

      g_clear_object (page);
      WAIT (stw_network_plugin_captured_async (fixture->plugin, fixture->session, 500, NULL, "**/api/from-sw.json", -1,
                                               NULL, NULL, stw_test_result_cb, &wait_),
            *page = stw_network_plugin_captured_finish (fixture->plugin, result, &error));
      g_assert_no_error (error);
      entries = stw_network_page_get_entries (*page);
      if (entries->len > 0 && stw_network_entry_is_finished (entries->pdata[entries->len - 1]))
        return entries->pdata[entries->len - 1];
      stw_test_iterate_for (100);
    }
  return NULL;
}

/* The first entry of @url (a glob), once finished, polled through the
 * blocking API; NULL when none came within 10 s. */
static StwNetworkEntry *
first_entry_sync (Fixture         *fixture,
                  const char      *url,
                  StwNetworkPage **page)
{
  g_autoptr(GError) error = NULL;

  for (guint tries = 0; tries < 100; tries++)
    {
      GPtrArray *entries;

      g_clear_object (page);
      *page = stw_network_plugin_captured_sync (fixture->plugin, fixture->session, 500, NULL, url, -1, NULL, NULL,
                                                &error);
      g_assert_no_error (error);
      entries = stw_network_page_get_entries (*page);
      if (entries->len > 0 && stw_network_entry_is_finished (entries->pdata[0]))
        return entries->pdata[0];
      stw_test_iterate_for (100);
    }
  return NULL;
}

/* A service worker's own request, through the async API: captured and
 * marked, in the HAR, stubbed; the worker is kept apart from the
 * surfaces. */
static void
test_service_worker_async (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(StwNetworkPage) page = NULL;
  g_autoptr(StwNetworkStub) stub = NULL;
  g_autoptr(StwNetworkStub) registered = NULL;
  g_autoptr(GBytes) body = g_bytes_new_static ("{\"message\":\"worker stub\"}", 25);
  g_autofree char *har_path = NULL;
  g_autofree char *har = NULL;
  StwNetworkEntry *entry;
  gboolean started = FALSE;
  guint n_entries = 0;
  guint hits;

  if (!fixture_set_up_on (&fixture, FALSE, "sw.html"))
    return;

  WAIT (stw_network_plugin_capture_start_async (fixture.plugin, fixture.session, NULL, STW_NETWORK_BODIES_TEXT, 0,
                                                NULL, NULL, stw_test_result_cb, &wait_),
        started = stw_network_plugin_capture_start_finish (fixture.plugin, result, &error));
  g_assert_no_error (error);
  g_assert_true (started);
  click (fixture.dispatcher, fixture.sid, "#register");
  assert_text (fixture.dispatcher, fixture.sid, "#sw", "ready");
  assert_workers_apart (fixture.session);
  click (fixture.dispatcher, fixture.sid, "#ask");
  assert_text (fixture.dispatcher, fixture.sid, "#sw", "hello from the server to the worker (200) (ask 1)");
  entry = worker_entry_async (&fixture, &page);
  g_assert_nonnull (entry);
  g_assert_true (stw_network_entry_get_service_worker (entry));
  g_assert_null (stw_network_entry_get_surface_id (entry));
  g_assert_cmpint (stw_network_entry_get_status (entry), ==, 200);
  g_assert_cmpstr (stw_network_entry_get_resource_type (entry), ==, "Fetch");

  har_path = g_build_filename (fixture.dir, "worker.har", NULL);
  WAIT (stw_network_plugin_export_har_async (fixture.plugin, fixture.session, har_path, NULL, stw_test_result_cb,
                                             &wait_),
        g_assert_true (stw_network_plugin_export_har_finish (fixture.plugin, result, &n_entries, &error)));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (har_path, &har, NULL, NULL));
  g_assert_nonnull (strstr (har, "/api/from-sw.json"));
  g_assert_nonnull (strstr (har, "\"_serviceWorker\":true"));

  stub = stw_network_stub_new ("**/api/from-sw.json");
  stw_network_stub_set_body (stub, body);
  stw_network_stub_set_header (stub, "Content-Type", "application/json");
  WAIT (stw_network_plugin_stub_async (fixture.plugin, fixture.session, stub, NULL, stw_test_result_cb, &wait_),
        registered = stw_network_plugin_stub_finish (fixture.plugin, result, &error));
  g_assert_no_error (error);
  hits = fixture.page.sw_hits;
  click (fixture.dispatcher, fixture.sid, "#ask");
  assert_text (fixture.dispatcher, fixture.sid, "#sw", "worker stub (200) (ask 2)");
  g_assert_cmpuint (fixture.page.sw_hits, ==, hits);
  g_assert_cmpuint (stw_network_stub_get_matched (stub), ==, 1);

  g_clear_object (&page);
  WAIT (stw_network_plugin_capture_stop_async (fixture.plugin, fixture.session, NULL, stw_test_result_cb, &wait_),
        page = stw_network_plugin_capture_stop_finish (fixture.plugin, result, &error));
  g_assert_no_error (error);
  fixture_tear_down (&fixture);
}

/* The blocking API: a partition's capture leaves the worker out, one
 * without partition has it; a stub applies to it. */
static void
test_service_worker_blocking (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(StwNetworkPage) page = NULL;
  g_autoptr(StwNetworkPage) stopped = NULL;
  g_autoptr(StwNetworkStub) stub = stw_network_stub_new ("**/api/from-sw.json");
  g_autoptr(StwNetworkStub) registered = NULL;
  g_autoptr(GBytes) body = g_bytes_new_static ("{\"message\":\"blocking worker stub\"}", 34);
  StwNetworkEntry *entry = NULL;

  if (!fixture_set_up_on (&fixture, TRUE, "sw.html"))
    return;
  click (fixture.dispatcher, fixture.sid, "#register");
  assert_text (fixture.dispatcher, fixture.sid, "#sw", "ready");

  g_assert_true (stw_network_plugin_capture_start_sync (fixture.plugin, fixture.session, NULL, STW_NETWORK_BODIES_NONE,
                                                         0, "", NULL, &error));
  g_assert_no_error (error);
  click (fixture.dispatcher, fixture.sid, "#ask");
  assert_text (fixture.dispatcher, fixture.sid, "#sw", "hello from the server to the worker (200) (ask 1)");
  click (fixture.dispatcher, fixture.sid, "#fetch");
  assert_text (fixture.dispatcher, fixture.sid, "#page", "page: 200 (fetch 1)");
  for (guint tries = 0; tries < 100; tries++)
    {
      g_clear_object (&page);
      page = stw_network_plugin_captured_sync (fixture.plugin, fixture.session, 500, NULL, "**/api/data.json", -1, NULL,
                                               NULL, &error);
      g_assert_no_error (error);
      if (stw_network_page_get_entries (page)->len > 0)
        break;
      stw_test_iterate_for (100);
    }
  g_assert_cmpuint (stw_network_page_get_entries (page)->len, ==, 1);
  g_clear_object (&page);
  page = stw_network_plugin_captured_sync (fixture.plugin, fixture.session, 500, NULL, "**/api/from-sw.json", -1, NULL,
                                           NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_network_page_get_entries (page)->len, ==, 0);
  /* A dedicated worker's requests, from the one it makes as it starts,
   * are its page's: in the page's partition and under its surface. */
  click (fixture.dispatcher, fixture.sid, "#worker-ask");
  assert_text (fixture.dispatcher, fixture.sid, "#worker", "hello from the server to the dedicated worker (200) (answer 1)");
  entry = first_entry_sync (&fixture, "**/api/from-worker.json", &page);
  g_assert_nonnull (entry);
  g_assert_false (stw_network_entry_get_service_worker (entry));
  {
    g_autoptr(GList) surfaces = stw_session_list_surfaces (fixture.session);

    g_assert_cmpstr (stw_network_entry_get_surface_id (entry), ==, stw_surface_get_id (surfaces->data));
  }
  stopped = stw_network_plugin_capture_stop_sync (fixture.plugin, fixture.session, NULL, &error);
  g_assert_no_error (error);

  g_assert_true (stw_network_plugin_capture_start_sync (fixture.plugin, fixture.session, NULL, STW_NETWORK_BODIES_NONE,
                                                         0, NULL, NULL, &error));
  g_assert_no_error (error);
  stw_network_stub_set_body (stub, body);
  registered = stw_network_plugin_stub_sync (fixture.plugin, fixture.session, stub, NULL, &error);
  g_assert_no_error (error);
  click (fixture.dispatcher, fixture.sid, "#ask");
  assert_text (fixture.dispatcher, fixture.sid, "#sw", "blocking worker stub (200) (ask 2)");
  entry = first_entry_sync (&fixture, "**/api/from-sw.json", &page);
  g_assert_nonnull (entry);
  g_assert_true (stw_network_entry_get_service_worker (entry));
  g_assert_cmpstr (stw_network_entry_get_stub_id (entry), ==, stw_network_stub_get_id (stub));
  g_clear_object (&stopped);
  stopped = stw_network_plugin_capture_stop_sync (fixture.plugin, fixture.session, NULL, &error);
  g_assert_no_error (error);
  fixture_tear_down (&fixture);
}

/* A dedicated worker is kept while it runs and forgotten (closed) when
 * it ends; it never is a surface. */
static void
test_workers_forgotten (void)
{
  Fixture fixture = { 0 };
  g_autoptr(StwSurface) worker = NULL;
  guint n_surfaces;

  if (!fixture_set_up_on (&fixture, TRUE, "sw.html"))
    return;
  {
    g_autoptr(GList) surfaces = stw_session_list_surfaces (fixture.session);

    n_surfaces = g_list_length (surfaces);
  }
  click (fixture.dispatcher, fixture.sid, "#start-worker");
  assert_text (fixture.dispatcher, fixture.sid, "#dedicated", "started");
  for (guint tries = 0; tries < 100 && worker == NULL; tries++)
    {
      StwSurface *found = find_worker (fixture.session, STW_SURFACE_KIND_WORKER);

      if (found != NULL)
        worker = g_object_ref (found);
      else
        stw_test_iterate_for (100);
    }
  g_assert_nonnull (worker);
  g_assert_false (stw_surface_is_closed (worker));
  {
    g_autoptr(GList) surfaces = stw_session_list_surfaces (fixture.session);

    g_assert_cmpuint (g_list_length (surfaces), ==, n_surfaces);
    /* Its parent is the window that started it. */
    g_assert_cmpstr (stw_surface_get_parent_id (worker), ==, stw_surface_get_id (surfaces->data));
  }
  click (fixture.dispatcher, fixture.sid, "#stop-worker");
  assert_text (fixture.dispatcher, fixture.sid, "#dedicated", "stopped");
  for (guint tries = 0; tries < 100 && find_worker (fixture.session, STW_SURFACE_KIND_WORKER) != NULL; tries++)
    stw_test_iterate_for (100);
  g_assert_null (find_worker (fixture.session, STW_SURFACE_KIND_WORKER));
  g_assert_true (stw_surface_is_closed (worker));
  fixture_tear_down (&fixture);
}

/* A plugin with the new-worker hook only: it completes 300 ms after the
 * worker attached, and notes when (sw-lib.js, which sw.js imports first,
 * notes when the worker's script started). */
#define HOLD_TYPE_PLUGIN (hold_plugin_get_type ())
G_DECLARE_FINAL_TYPE (HoldPlugin, hold_plugin, HOLD, PLUGIN, StwPlugin)

struct _HoldPlugin
{
  StwPlugin  parent_instance;
  guint      n_workers;
  gint64     completed_ms; /* wall clock, when the service worker's hook completed */
  GPtrArray *kinds;        /* the kinds the hook saw */
};

G_DEFINE_FINAL_TYPE (HoldPlugin, hold_plugin, STW_TYPE_PLUGIN)

static gboolean
hold_complete (gpointer user_data)
{
  g_autoptr(StwPluginCompletion) completion = user_data;
  HoldPlugin *self = HOLD_PLUGIN (stw_plugin_completion_get_plugin (completion));

  self->completed_ms = g_get_real_time () / 1000;
  stw_plugin_completion_return_success (completion);
  return G_SOURCE_REMOVE;
}

static void
hold_plugin_worker_attached (StwPlugin           *plugin,
                             StwPluginCompletion *completion)
{
  HoldPlugin *self = HOLD_PLUGIN (plugin);
  StwSurface *worker = stw_plugin_completion_get_surface (completion);

  g_assert_nonnull (stw_plugin_completion_get_session (completion));
  self->n_workers++;
  g_ptr_array_add (self->kinds, g_strdup (stw_surface_kind_to_string (stw_surface_get_kind (worker))));
  if (stw_surface_get_kind (worker) != STW_SURFACE_KIND_SERVICE_WORKER)
    {
      stw_plugin_completion_return_success (completion);
      return;
    }
  g_timeout_add (300, hold_complete, g_object_ref (completion));
}

static void
hold_plugin_finalize (GObject *object)
{
  HoldPlugin *self = HOLD_PLUGIN (object);

  g_ptr_array_unref (self->kinds);
  G_OBJECT_CLASS (hold_plugin_parent_class)->finalize (object);
}

static void
hold_plugin_class_init (HoldPluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hold_plugin_finalize;
  STW_PLUGIN_CLASS (klass)->worker_attached = hold_plugin_worker_attached;
}

static void
hold_plugin_init (HoldPlugin *self)
{
  self->kinds = g_ptr_array_new_with_free_func (g_free);
}

/* The engine's new-worker hook: a new service worker waits before its
 * first script until the hook completed, and the hook is handed the
 * worker (not a surface). A held worker answers no Runtime.evaluate: the
 * hook waits, it does not ask. */
static void
test_worker_hook_holds (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autoptr(HoldPlugin) hold = NULL;
  g_autoptr(GList) plugins = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) launch = NULL;
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "network-app", NULL);
  g_autofree char *url = NULL;
  g_autofree char *sid = NULL;
  Page page = { 0 };

  if (!stw_test_electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }
  page_start (&page);
  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (dispatcher);
  hold = g_object_new (HOLD_TYPE_PLUGIN, "name", "hold", "version", "1", "core-versions", "*", NULL);
  plugins = g_list_append (NULL, hold);
  stw_dispatcher_add_plugins_sync (dispatcher, plugins, NULL, NULL, &error);
  g_assert_no_error (error);

  url = g_strconcat (page.url, "sw.html", NULL);
  launch = ok (call (dispatcher, "electron_launch", "{\"executablePath\":\"%s\",\"main\":\"%s\",\"args\":[\"--url=%s\"]}",
                     electron, app, url));
  sid = g_strdup (json_object_get_string_member (launch, "session_id"));
  assert_text (dispatcher, sid, "#sw", "idle");
  g_assert_cmpuint (hold->n_workers, ==, 0);
  click (dispatcher, sid, "#register");
  assert_text (dispatcher, sid, "#sw", "ready");
  g_assert_cmpuint (hold->n_workers, >=, 1);
  g_assert_cmpstr (hold->kinds->pdata[0], ==, "service_worker");
  /* Held: its script started only once the hook completed, 300 ms after
   * it attached (a worker that runs at once starts long before). */
  {
    StwSession *session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (dispatcher), sid);
    g_autoptr(GList) workers = stw_session_list_workers (session);
    g_autoptr(JsonObject) params = json_object_new ();
    g_autoptr(JsonObject) reply = NULL;
    StwSurface *worker;

    g_assert_cmpuint (g_list_length (workers), ==, 1);
    worker = workers->data;
    json_object_set_string_member (params, "expression", "self.loadedAt");
    json_object_set_boolean_member (params, "returnByValue", TRUE);
    WAIT (stw_surface_send_cdp_async (worker, "Runtime.evaluate", params, NULL, stw_test_result_cb, &wait_),
          reply = stw_surface_send_cdp_finish (worker, result, &error));
    g_assert_no_error (error);
    g_assert_cmpint (hold->completed_ms, >, 0);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (reply, "result"), "value") + 5, >=,
                     hold->completed_ms);
  }
  /* And it runs once the hook completed. */
  click (dispatcher, sid, "#ask");
  assert_text (dispatcher, sid, "#sw", "hello from the server to the worker (200) (ask 1)");

  {
    g_autoptr(JsonObject) stopped = call (dispatcher, "electron_stop", "{\"sessionId\":\"%s\"}", sid);
  }
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  page_stop (&page);
}

int
main (int    argc,
      char **argv)
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/network-plugin/api-async", test_api_async);
  g_test_add_func ("/network-plugin/api-blocking", test_api_blocking);
  g_test_add_func ("/network-plugin/tools-blocking", test_tools_blocking);
  g_test_add_func ("/network-plugin/service-worker-async", test_service_worker_async);
  g_test_add_func ("/network-plugin/service-worker-blocking", test_service_worker_blocking);
  g_test_add_func ("/network-plugin/workers-forgotten", test_workers_forgotten);
  g_test_add_func ("/network-plugin/worker-hook-holds", test_worker_hook_holds);

  return g_test_run ();
}
