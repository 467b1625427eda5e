/* test-main-process.c: the app's main process, however the app started
 *
 * /proc readers first (a listener of our own; a port nobody holds), then
 * against real Chromium through the Electron stand-in: a launched demo app
 * runs agent code in its main process and its renderer, blocking and
 * async, and maps its BrowserWindows to targets; then an app started by
 * this test with its inspector moved by NODE_OPTIONS is attached by port
 * and its main process opened with SIGUSR1 and proven.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "stw-proc-private.h"
#include "stw-session-private.h"
#include "stw-surface-private.h"
#include "stw-test-utils.h"

#define READ_HANDLERS "return [...electron.ipcMain._invokeHandlers.keys()].sort().join(' ');"
#define DEMO_HANDLERS "app:info app:website clipboard:copy notes:export notes:load notes:open notes:save webview:url window:new"

static gboolean
array_has_port (GArray *ports,
                guint   port)
{
  for (guint i = 0; i < ports->len; i++)
    if (g_array_index (ports, guint, i) == port)
      return TRUE;
  return FALSE;
}

static guint
listen_on (GSocketListener *listener,
           const char      *address)
{
  g_autoptr(GInetAddress) inet = g_inet_address_new_from_string (address);
  g_autoptr(GSocketAddress) wanted = g_inet_socket_address_new (inet, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_socket_listener_add_address (listener, wanted, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                                NULL, &effective, &error));
  g_assert_no_error (error);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
}

static void
test_proc_ports (void)
{
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GArray) ports = NULL;
  g_autoptr(GArray) chain = NULL;
  g_autoptr(GError) error = NULL;
  guint loopback = listen_on (listener, "127.0.0.1");
  guint loopback6 = listen_on (listener, "::1");
  guint any = listen_on (listener, "0.0.0.0");

  ports = _stw_proc_listening_ports (getpid ());
  g_assert_true (array_has_port (ports, loopback));
  g_assert_true (array_has_port (ports, loopback6));
  /* Not loopback: never a place to look for an inspector. */
  g_assert_false (array_has_port (ports, any));
  for (guint i = 1; i < ports->len; i++)
    g_assert_cmpuint (g_array_index (ports, guint, i - 1), <, g_array_index (ports, guint, i));

  /* Our own socket: this server is never the endpoint's process. */
  chain = _stw_proc_endpoint_chain (loopback, &error);
  g_assert_null (chain);
  g_assert_error (error, STW_ERROR, STW_ERROR_TRANSPORT_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "this server"));
  g_clear_error (&error);

  g_socket_listener_close (listener);
  chain = _stw_proc_endpoint_chain (loopback, &error);
  g_assert_null (chain);
  g_assert_error (error, STW_ERROR, STW_ERROR_TRANSPORT_UNSUPPORTED);

  g_clear_pointer (&ports, g_array_unref);
  ports = _stw_proc_listening_ports (0);
  g_assert_cmpuint (ports->len, ==, 0);
}

/* --- a launched app ----------------------------------------------------- */

static struct
{
  StwSessionManager *manager;
  StwSession        *session;
  char              *skip;
} app;

static gboolean
have_standin (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);

  if (app.skip == NULL &&
      (!g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) ||
       !g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE)))
    app.skip = g_strdup ("the Electron stand-in or Chromium is missing");
  if (app.skip != NULL)
    {
      g_test_skip (app.skip);
      return FALSE;
    }
  return TRUE;
}

static void
test_launch (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *main = g_test_build_filename (G_TEST_DIST, "fixtures", "demo-app", NULL);
  g_autoptr(StwLaunchOptions) options = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };

  if (!have_standin ())
    return;
  options = stw_launch_options_new ();
  stw_launch_options_set_executable_path (options, electron);
  stw_launch_options_set_main (options, main);
  app.manager = stw_session_manager_new ();
  stw_session_manager_launch_async (app.manager, options, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  app.session = stw_session_manager_launch_finish (app.manager, result, &error);
  g_assert_no_error (error);
  g_assert_true (stw_session_has_main_process (app.session));
}

static void
test_run_main (void)
{
  g_autoptr(JsonNode) handlers = NULL;
  g_autoptr(JsonNode) twice = NULL;
  g_autoptr(JsonNode) arg = NULL;
  g_autoptr(JsonNode) undefined = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  gboolean serialized = TRUE;
  StwTestResult wait = { 0 };

  if (app.session == NULL && !have_standin ())
    return;

  /* Async. */
  stw_session_run_main_async (app.session, READ_HANDLERS, NULL, 0, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 20000);
  handlers = stw_session_run_main_finish (app.session, result, &serialized, &error);
  g_assert_no_error (error);
  g_assert_false (serialized);
  g_assert_cmpstr (json_node_get_string (handlers), ==, DEMO_HANDLERS);

  /* Blocking, with an arg. */
  arg = json_from_string ("{\"n\": 21}", NULL);
  twice = stw_session_run_main_sync (app.session, "return arg.n * 2 + (process.type === 'browser' ? 0 : 1);", arg,
                                     0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_node_get_int (twice), ==, 42);

  undefined = stw_session_run_main_sync (app.session, "return undefined;", NULL, 0, &serialized, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (serialized);
  g_assert_cmpstr (json_node_get_string (undefined), ==, "undefined");

  /* A main process whose JSON writes 100,000 brackets, or forges: the
   * value is read by the inspector, never parsed from what it wrote. */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(JsonNode) patched = NULL;
      g_autoptr(JsonNode) answer = NULL;
      const char *patch = i == 0 ? "globalThis.savedStringify = JSON.stringify;"
                                   " JSON.stringify = () => '['.repeat(100000) + ']'.repeat(100000); return 1;"
                                 : "JSON.stringify = () => '{\"forged\":true}'; return 1;";

      patched = stw_session_run_main_sync (app.session, patch, NULL, 0, NULL, NULL, &error);
      g_assert_no_error (error);
      answer = stw_session_run_main_sync (app.session, "return 6 * 7;", NULL, 0, &serialized, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (serialized);
      g_assert_cmpint (json_node_get_int (answer), ==, 42);
    }
  /* The app (the stand-in's own CDP client too) needs its JSON back. */
  g_clear_pointer (&undefined, json_node_unref);
  undefined = stw_session_run_main_sync (app.session, "JSON.stringify = globalThis.savedStringify;", NULL, 0, NULL,
                                         NULL, &error);
  g_assert_no_error (error);

  g_assert_null (stw_session_run_main_sync (app.session, "return (;", NULL, 0, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_EVAL_SYNTAX_ERROR);
  g_clear_error (&error);
  g_assert_null (stw_session_run_main_sync (app.session, "throw new RangeError('far\\naway');", NULL, 0, NULL, NULL,
                                            &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_EVAL_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==, "RangeError: far");
  g_clear_error (&error);
  g_assert_null (stw_session_run_main_sync (app.session, "while (true) {}", NULL, 500, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_EVAL_TIMEOUT);
  g_clear_error (&error);
  g_assert_null (stw_session_run_main_sync (app.session, "", NULL, 0, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
}

static void
test_run_renderer (void)
{
  g_autoptr(JsonNode) title = NULL;
  g_autoptr(JsonNode) api = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };

  if (app.session == NULL && !have_standin ())
    return;

  stw_session_run_renderer_async (app.session, "return document.title;", NULL, 0, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 20000);
  title = stw_session_run_renderer_finish (app.session, result, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (title), ==, "Stagewright Notes");

  /* The page's own world: the preload's global is visible. */
  api = stw_session_run_renderer_sync (app.session, "return typeof window.notesApi;", NULL, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (api), ==, "object");

  g_assert_null (stw_session_run_renderer_sync (app.session, "}); (async () => {", NULL, 0, NULL, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_EVAL_SYNTAX_ERROR);
}

/* A same-process frame runs agent code in its isolated world, where the
 * target has no budget of its own: ours still ends a promise that never
 * settles. */
static void
test_run_in_frame (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GList) surfaces = NULL;
  g_autoptr(JsonNode) sum = NULL;
  StwSurface *window;
  StwSurface *frame = NULL;

  if (app.session == NULL && !have_standin ())
    return;

  window = stw_session_get_active_window (app.session);
  for (guint attempt = 0; attempt < 100 && frame == NULL; attempt++)
    {
      g_assert_true (stw_session_refresh_surfaces_sync (app.session, NULL, &error));
      g_assert_no_error (error);
      g_clear_pointer (&surfaces, g_list_free);
      surfaces = stw_session_list_surfaces (app.session);
      for (const GList *l = surfaces; l != NULL && frame == NULL; l = l->next)
        if (_stw_surface_get_subframe_id (l->data) != NULL)
          frame = l->data;
      if (frame == NULL)
        g_usleep (100000);
    }
  g_assert_nonnull (frame);
  g_assert_true (stw_session_switch_surface (app.session, stw_surface_get_id (frame), &error));
  g_assert_no_error (error);

  g_assert_null (stw_session_run_renderer_sync (app.session, "await new Promise(() => {});", NULL, 300, NULL, NULL,
                                                &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_EVAL_TIMEOUT);
  g_clear_error (&error);
  sum = stw_session_run_renderer_sync (app.session, "return 1 + 1;", NULL, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_node_get_int (sum), ==, 2);

  g_assert_true (stw_session_switch_surface (app.session, stw_surface_get_id (window), &error));
  g_assert_no_error (error);
}

static void
test_window_states (void)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) made = NULL;
  g_autoptr(GList) windows = NULL;
  StwTestResult wait = { 0 };
  gint64 hidden_id;
  gboolean found = FALSE;

  if (app.session == NULL && !have_standin ())
    return;

  made = stw_session_run_main_sync (app.session,
                                    "const w = new electron.BrowserWindow({ show: false, width: 300, height: 200 });"
                                    " await w.loadURL('data:text/html,<title>Hidden</title>'); return w.id;",
                                    NULL, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  hidden_id = json_node_get_int (made);

  for (guint attempt = 0; attempt < 100 && !found; attempt++)
    {
      g_assert_true (stw_session_refresh_surfaces_sync (app.session, NULL, &error));
      if (attempt % 2 == 0)
        g_assert_true (stw_session_refresh_window_states_sync (app.session, NULL, &error));
      else
        {
          stw_session_refresh_window_states_async (app.session, NULL, stw_test_result_cb, &wait);
          result = stw_test_wait_result (&wait, 10000);
          g_assert_true (stw_session_refresh_window_states_finish (app.session, result, &error));
          g_clear_object (&result);
        }
      g_assert_no_error (error);
      g_clear_pointer (&windows, g_list_free);
      windows = stw_session_list_windows (app.session);
      for (const GList *l = windows; l != NULL; l = l->next)
        {
          g_autoptr(StwWindowState) state = stw_session_dup_window_state (app.session, l->data);
          const StwBox *bounds;

          g_assert_nonnull (state);
          if (stw_window_state_get_electron_id (state) != hidden_id)
            {
              g_assert_true (stw_window_state_is_visible (state));
              continue;
            }
          found = TRUE;
          g_assert_false (stw_window_state_is_visible (state));
          g_assert_false (stw_window_state_is_minimized (state));
          bounds = stw_window_state_get_bounds (state);
          g_assert_nonnull (bounds);
          g_assert_cmpfloat (bounds->width, ==, 300);
          g_assert_cmpfloat (bounds->height, ==, 200);
        }
      if (!found)
        g_usleep (100000);
    }
  g_assert_true (found);
}

static void
test_stop (void)
{
  g_autoptr(GError) error = NULL;

  if (app.session == NULL)
    {
      have_standin ();
      return;
    }
  g_assert_true (stw_session_stop_sync (app.session, 10000, NULL, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&app.session);
}

/* --- an app started elsewhere ------------------------------------------- */

static char *
read_devtools_url (GSubprocess *process)
{
  GInputStream *stderr_stream = g_subprocess_get_stderr_pipe (process);
  g_autoptr(GDataInputStream) lines = g_data_input_stream_new (stderr_stream);
  char *line;

  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (lines), FALSE);
  while ((line = g_data_input_stream_read_line (lines, NULL, NULL, NULL)) != NULL)
    {
      const char *url = strstr (line, "DevTools listening on ");

      if (url != NULL)
        {
          char *found = g_strdup (url + strlen ("DevTools listening on "));
          g_free (line);
          return found;
        }
      g_free (line);
    }
  return NULL;
}

static void
test_attach_finds_main (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *main = g_test_build_filename (G_TEST_DIST, "fixtures", "demo-app", NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(StwSessionManager) manager = NULL;
  g_autoptr(StwSession) session = NULL;
  g_autoptr(JsonNode) handlers = NULL;
  g_autoptr(JsonNode) pid = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *url = NULL;
  g_autofree char *options = NULL;
  g_autofree char *tmpdir = NULL;
  GPid app_pid;

  if (!have_standin ())
    return;

  tmpdir = g_dir_make_tmp ("stw-main-XXXXXX", &error);
  g_assert_no_error (error);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  /* Not 9229: where a real app's NODE_OPTIONS would put it. */
  g_subprocess_launcher_setenv (launcher, "NODE_OPTIONS", "--inspect-port=0", TRUE);
  g_subprocess_launcher_setenv (launcher, "TMPDIR", tmpdir, TRUE);
  process = g_subprocess_launcher_spawn (launcher, &error, electron, "--remote-debugging-port=0", main, NULL);
  g_assert_no_error (error);
  app_pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
  url = read_devtools_url (process);
  g_assert_nonnull (url);
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, &error);
  g_assert_no_error (error);

  manager = stw_session_manager_new ();
  options = g_strdup_printf ("{\"port\": %d}", g_uri_get_port (uri));
  session = stw_session_manager_attach_sync (manager, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_session_get_capabilities (session) & STW_CAPABILITY_MAIN_EVAL);

  handlers = stw_session_run_main_sync (session, READ_HANDLERS, NULL, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (handlers), ==, DEMO_HANDLERS);
  pid = stw_session_run_main_sync (session, "return process.pid;", NULL, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_node_get_int (pid), ==, app_pid);

  g_assert_true (stw_session_detach (session, &error));
  g_assert_no_error (error);
  g_subprocess_send_signal (process, SIGTERM);
  g_subprocess_wait (process, NULL, NULL);
  g_rmdir (tmpdir);
}

int
main (int    argc,
      char **argv)
{
  int status;

  stw_test_init (&argc, &argv);

  g_test_add_func ("/main-process/proc-ports", test_proc_ports);
  g_test_add_func ("/main-process/1-launch", test_launch);
  g_test_add_func ("/main-process/2-run-main", test_run_main);
  g_test_add_func ("/main-process/3-run-renderer", test_run_renderer);
  g_test_add_func ("/main-process/3b-run-in-frame", test_run_in_frame);
  g_test_add_func ("/main-process/4-window-states", test_window_states);
  g_test_add_func ("/main-process/5-stop", test_stop);
  g_test_add_func ("/main-process/attach-finds-main", test_attach_finds_main);

  status = g_test_run ();

  if (app.session != NULL && stw_session_is_running (app.session))
    stw_session_force_kill (app.session);
  g_clear_object (&app.session);
  g_clear_object (&app.manager);
  g_free (app.skip);
  return status;
}
