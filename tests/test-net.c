/* test-net.c: network reach and process signalling (issue 7, items 3, 4)
 *
 * Every server here listens on 127.0.0.1 in this process, with canned
 * answers written on a raw socket so the test controls every byte: a
 * DevTools-like /json/version, a redirect, a body of 400 MiB streamed
 * on demand. The whole program runs with http_proxy, HTTP_PROXY,
 * all_proxy and ALL_PROXY pointing at a recorder port; no test may ever
 * make it see a connection (the control test shows that a default
 * SoupSession does).
 *
 * The process tests spawn their own victims (`sleep`, `exec -a node
 * sleep`) and their own headless Chromium, track them by pid and end
 * them by pid (or process group) only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

/* These tests call libsoup themselves, linked (see stw-soup-private.h). */
#define STW_SOUP_LINKED

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stagewright.h"
#include "stw-http-private.h"
#include "stw-proc-private.h"
#include "stw-test-utils.h"

#define CHROMIUM "/usr/lib/chromium/chromium"
#define HUGE_BODY (G_GUINT64_CONSTANT (400) * 1024 * 1024)
#define STREAM_CHUNK 65536

/* --- canned servers ------------------------------------------------------ */

typedef enum
{
  CANNED_RECORD,        /* count connections, answer nothing */
  CANNED_FIXED,         /* a fixed answer */
  CANNED_CHUNKED,       /* 200, chunked, HUGE_BODY bytes on demand */
  CANNED_LENGTH,        /* 200, Content-Length HUGE_BODY, streamed on demand */
} CannedMode;

typedef struct
{
  GSocketService *service;
  guint16         port;
  CannedMode      mode;
  char           *answer;
  guint           connections;
  guint64         body_written;
  guint           open;
} Canned;

typedef struct
{
  Canned            *server;
  GSocketConnection *connection;
  GString           *request;
  char               buffer[4096];
  gboolean           head_done;
  guint64            sent;
} CannedConn;

static char *chunk_framed;   /* "10000\r\n" + STREAM_CHUNK spaces + "\r\n" */
static gsize chunk_framed_len;
static char *chunk_raw;      /* STREAM_CHUNK spaces */

static void
canned_conn_free (CannedConn *conn)
{
  conn->server->open--;
  g_io_stream_close (G_IO_STREAM (conn->connection), NULL, NULL);
  g_object_unref (conn->connection);
  g_string_free (conn->request, TRUE);
  g_free (conn);
}

static void canned_write_body (CannedConn *conn);

static void
on_canned_written (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  CannedConn *conn = user_data;
  gsize written = 0;

  gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, &written, NULL);

  if (conn->head_done)
    conn->server->body_written += written;
  conn->head_done = TRUE;
  if (!ok || conn->server->mode == CANNED_FIXED)
    {
      canned_conn_free (conn);
      return;
    }
  canned_write_body (conn);
}

static void
canned_write_body (CannedConn *conn)
{
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn->connection));

  if (conn->sent >= HUGE_BODY)
    {
      if (conn->server->mode == CANNED_CHUNKED)
        g_output_stream_write_all (out, "0\r\n\r\n", 5, NULL, NULL, NULL);
      canned_conn_free (conn);
      return;
    }
  conn->sent += STREAM_CHUNK;
  if (conn->server->mode == CANNED_CHUNKED)
    g_output_stream_write_all_async (out, chunk_framed, chunk_framed_len, G_PRIORITY_DEFAULT, NULL,
                                     on_canned_written, conn);
  else
    g_output_stream_write_all_async (out, chunk_raw, STREAM_CHUNK, G_PRIORITY_DEFAULT, NULL,
                                     on_canned_written, conn);
}

static void
on_canned_read (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  CannedConn *conn = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);

  if (n <= 0)
    {
      canned_conn_free (conn);
      return;
    }
  g_string_append_len (conn->request, conn->buffer, n);
  if (strstr (conn->request->str, "\r\n\r\n") == NULL)
    {
      g_input_stream_read_async (G_INPUT_STREAM (object), conn->buffer, sizeof conn->buffer,
                                 G_PRIORITY_DEFAULT, NULL, on_canned_read, conn);
      return;
    }
  g_output_stream_write_all_async (g_io_stream_get_output_stream (G_IO_STREAM (conn->connection)),
                                   conn->server->answer, strlen (conn->server->answer),
                                   G_PRIORITY_DEFAULT, NULL, on_canned_written, conn);
}

static gboolean
on_canned_incoming (GSocketService    *service,
                    GSocketConnection *connection,
                    GObject           *source,
                    gpointer           user_data)
{
  Canned *server = user_data;
  CannedConn *conn;

  server->connections++;
  if (server->mode == CANNED_RECORD)
    return FALSE;
  conn = g_new0 (CannedConn, 1);
  conn->server = server;
  conn->connection = g_object_ref (connection);
  conn->request = g_string_new (NULL);
  server->open++;
  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM (connection)), conn->buffer,
                             sizeof conn->buffer, G_PRIORITY_DEFAULT, NULL, on_canned_read, conn);
  return TRUE;
}

static Canned *
canned_new (CannedMode mode)
{
  Canned *server = g_new0 (Canned, 1);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  server->mode = mode;
  server->service = g_socket_service_new ();
  g_socket_listener_add_address (G_SOCKET_LISTENER (server->service), address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  server->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  g_signal_connect (server->service, "incoming", G_CALLBACK (on_canned_incoming), server);
  g_socket_service_start (server->service);

  if (mode == CANNED_CHUNKED)
    server->answer = g_strdup ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n");
  else if (mode == CANNED_LENGTH)
    server->answer = g_strdup_printf ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                      "Content-Length: %" G_GUINT64_FORMAT "\r\n\r\n", HUGE_BODY);
  return server;
}

static void
canned_set_answer (Canned     *server,
                   const char *status,
                   const char *headers,
                   const char *body)
{
  g_free (server->answer);
  server->answer = g_strdup_printf ("HTTP/1.1 %s\r\n%sContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                                    status, headers, strlen (body), body);
}

/* A DevTools-like endpoint: /json/version names a browser socket on it. */
static Canned *
canned_devtools_new (void)
{
  Canned *server = canned_new (CANNED_FIXED);
  g_autofree char *body = g_strdup_printf ("{\"Browser\":\"Canned/1.0\",\"webSocketDebuggerUrl\":"
                                           "\"ws://127.0.0.1:%u/devtools/browser/canned\"}", server->port);

  canned_set_answer (server, "200 OK", "Content-Type: application/json\r\n", body);
  return server;
}

static Canned *
canned_redirect_new (const char *location)
{
  Canned *server = canned_new (CANNED_FIXED);
  g_autofree char *headers = g_strdup_printf ("Location: %s\r\n", location);

  canned_set_answer (server, "302 Found", headers, "");
  return server;
}

static void
canned_free (Canned *server)
{
  GMainContext *context = g_main_context_default ();

  g_socket_service_stop (server->service);
  g_socket_listener_close (G_SOCKET_LISTENER (server->service));
  /* Let connections in flight see their peer gone. */
  for (guint i = 0; server->open > 0 && i < 1000; i++)
    g_main_context_iteration (context, FALSE);
  while (g_main_context_iteration (context, FALSE))
    ;
  g_object_unref (server->service);
  g_free (server->answer);
  g_free (server);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Canned, canned_free)

/* The proxy every test runs under; see main(). */
static Canned *proxy_recorder;

/* --- helpers ------------------------------------------------------------- */

static void
on_result (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
  g_main_context_wakeup (NULL);
}

static GAsyncResult *
wait_result (GAsyncResult **slot,
             guint          budget_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (budget_ms) * 1000;

  while (*slot == NULL)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("no result within %u ms", stw_test_timeout_ms (budget_ms));
      g_main_context_iteration (NULL, TRUE);
    }
  return *slot;
}

static JsonNode *
http_get (const char  *url,
          guint        timeout_ms,
          gint64      *elapsed_us,
          GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  gint64 start = g_get_monotonic_time ();
  JsonNode *node;

  _stw_http_get_json_async (url, timeout_ms, 0, NULL, on_result, &result);
  node = _stw_http_get_json_finish (wait_result (&result, timeout_ms + 5000), error);
  if (elapsed_us != NULL)
    *elapsed_us = g_get_monotonic_time () - start;
  return node;
}

/* Calls a core tool as an MCP client would, on the default context. */
static JsonObject *
call_tool (StwDispatcher *dispatcher,
           const char    *name,
           const char    *arguments_json)
{
  g_autoptr(JsonNode) node = stw_test_parse (arguments_json);
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *envelope;

  invocation = stw_dispatcher_create_invocation (dispatcher, name, json_node_get_object (node), &error);
  g_assert_no_error (error);
  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, on_result, &result);
  envelope = stw_dispatcher_invoke_finish (dispatcher, wait_result (&result, 30000), &error);
  g_assert_no_error (error);
  g_assert_nonnull (envelope);
  return envelope;
}

static void
assert_code (JsonObject *envelope,
             const char *code)
{
  g_autofree char *text = stw_test_object_to_json (envelope);

  if (code == NULL)
    {
      if (!json_object_get_boolean_member (envelope, "ok"))
        g_error ("expected ok, got %s", text);
      return;
    }
  if (json_object_get_boolean_member (envelope, "ok") ||
      g_strcmp0 (json_object_get_string_member_with_default (envelope, "code", NULL), code) != 0)
    g_error ("expected %s, got %s", code, text);
}

static gboolean
pid_alive (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *stat = NULL;
  const char *tail;

  /* A zombie is dead: kill(pid, 0) would still succeed. */
  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;
  tail = strrchr (stat, ')');
  return tail != NULL && tail[1] == ' ' && tail[2] != 'Z' && tail[2] != 'X';
}

static GSubprocess *
spawn (GError **error,
       ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  va_list args;
  const char *arg;

  va_start (args, error);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  return g_subprocess_newv ((const char * const *) argv->pdata, G_SUBPROCESS_FLAGS_NONE, error);
}

static GPid
subprocess_pid (GSubprocess *process)
{
  const char *id = g_subprocess_get_identifier (process);

  g_assert_nonnull (id);
  return (GPid) g_ascii_strtoll (id, NULL, 10);
}

static void
end_subprocess (GSubprocess *process)
{
  if (g_subprocess_get_identifier (process) != NULL)
    g_subprocess_force_exit (process);
  g_subprocess_wait (process, NULL, NULL);
}

/* --- Chromium, spawned and owned by the test ----------------------------- */

typedef struct
{
  GSubprocess *process;     /* the direct child (chromium, or a shell around it) */
  GPid         pid;
  guint        port;
  char        *profile;
} Browser;

static void
browser_setup (gpointer user_data)
{
  /* Its own group, so the test ends all of it and nothing else. */
  setpgid (0, 0);
}

static Browser *
browser_spawn (gboolean in_shell)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                      G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GError) error = NULL;
  g_autofree char *user_data_dir = NULL;
  g_autofree char *port_file = NULL;
  g_autofree char *command = NULL;
  Browser *browser = g_new0 (Browser, 1);
  gint64 deadline;

  browser->profile = g_dir_make_tmp ("stw-test-net-XXXXXX", &error);
  g_assert_no_error (error);
  user_data_dir = g_strdup_printf ("--user-data-dir=%s", browser->profile);
  g_subprocess_launcher_set_child_setup (launcher, browser_setup, NULL, NULL);
  g_subprocess_launcher_setenv (launcher, "TMPDIR", browser->profile, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", browser->profile, TRUE);
  for (const char * const *key = (const char * const[]) { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", NULL };
       *key != NULL; key++)
    g_subprocess_launcher_unsetenv (launcher, *key);

  command = g_strdup_printf (CHROMIUM " --headless --no-sandbox --disable-gpu --no-first-run "
                             "--disable-background-networking --disable-component-update --log-level=3 "
                             "--remote-debugging-port=0 %s about:blank", user_data_dir);
  if (in_shell)
    {
      /* A wrapper that stays the parent, as an Electron main process or a
       * launcher script does. */
      g_autofree char *script = g_strdup_printf ("%s & wait", command);
      browser->process = g_subprocess_launcher_spawn (launcher, &error, "/bin/sh", "-c", script, NULL);
    }
  else
    {
      g_auto(GStrv) argv = g_strsplit (command, " ", -1);
      browser->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &error);
    }
  g_assert_no_error (error);
  browser->pid = subprocess_pid (browser->process);

  port_file = g_build_filename (browser->profile, "DevToolsActivePort", NULL);
  deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (20000) * 1000;
  while (browser->port == 0)
    {
      g_autofree char *text = NULL;

      if (g_file_get_contents (port_file, &text, NULL, NULL) && strchr (text, '\n') != NULL)
        browser->port = (guint) g_ascii_strtoull (text, NULL, 10);
      else if (g_get_monotonic_time () > deadline)
        g_error ("Chromium wrote no DevToolsActivePort");
      else
        g_usleep (20000);
    }
  return browser;
}

static void
browser_free (Browser *browser)
{
  /* The group first (the browser and its helpers), then the child. */
  kill (-browser->pid, SIGKILL);
  g_subprocess_wait (browser->process, NULL, NULL);
  for (guint i = 0; i < 100 && kill (-browser->pid, 0) == 0; i++)
    g_usleep (20000);
  /* Chromium's helpers may still write for a moment (field notes 9). */
  for (guint i = 0; i < 20 && g_file_test (browser->profile, G_FILE_TEST_EXISTS); i++)
    {
      const char *rm[] = { "rm", "-rf", browser->profile, NULL };

      g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
      if (g_file_test (browser->profile, G_FILE_TEST_EXISTS))
        g_usleep (50000);
    }
  g_object_unref (browser->process);
  g_free (browser->profile);
  g_free (browser);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Browser, browser_free)

static gboolean
wait_exit (GSubprocess *process,
           guint        budget_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (budget_ms) * 1000;

  while (g_subprocess_get_identifier (process) != NULL)
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
  return TRUE;
}

/* --- HTTP policy --------------------------------------------------------- */

static void
test_http_ok (void)
{
  g_autoptr(Canned) endpoint = canned_devtools_new ();
  g_autofree char *url = g_strdup_printf ("http://localhost:%u/json/version", endpoint->port);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_test_summary ("A loopback /json/version is read, localhost goes to 127.0.0.1, and never "
                  "through the proxy of the environment");

  node = http_get (url, 2000, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "Browser"), ==, "Canned/1.0");
  g_assert_cmpuint (endpoint->connections, ==, 1);
  g_assert_cmpuint (proxy_recorder->connections, ==, 0);
}

static void
test_http_not_loopback (void)
{
  const char *urls[] = {
    "http://192.0.2.1:9222/json/version",
    "http://example.com:9222/json/version",
    "http://127.0.0.1.example.com:9222/json/version",
    "ftp://127.0.0.1:9222/json/version",
  };

  g_test_summary ("Only loopback http:// URLs are contacted; names are never resolved");

  for (guint i = 0; i < G_N_ELEMENTS (urls); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = http_get (urls[i], 2000, NULL, &error);

      g_assert_null (node);
      g_assert_cmpstr (stw_error_get_code_name (error), ==, "BAD_ARGUMENT");
    }
  g_assert_cmpuint (proxy_recorder->connections, ==, 0);
}

static void
test_http_redirect (void)
{
  g_autoptr(Canned) target = canned_devtools_new ();
  g_autofree char *location = g_strdup_printf ("http://127.0.0.1:%u/json/version", target->port);
  g_autoptr(Canned) redirect = canned_redirect_new (location);
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/json/version", redirect->port);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_test_summary ("A 3xx is an error, and its Location is never contacted");

  node = http_get (url, 2000, NULL, &error);
  g_assert_null (node);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "CDP_DISCONNECTED");
  g_assert_nonnull (strstr (error->message, "redirect"));
  g_assert_cmpuint (redirect->connections, ==, 1);
  g_assert_cmpuint (target->connections, ==, 0);
  g_assert_cmpuint (proxy_recorder->connections, ==, 0);
}

static void
check_huge (CannedMode mode)
{
  g_autoptr(Canned) endpoint = canned_new (mode);
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/json/version", endpoint->port);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gint64 rss_before = stw_test_rss_kib ();
  gint64 elapsed_us = 0;
  gint64 rss_after;

  node = http_get (url, 5000, &elapsed_us, &error);
  rss_after = stw_test_rss_kib ();
  g_test_message ("%s: failed after %" G_GINT64_FORMAT " ms; the server wrote %" G_GUINT64_FORMAT
                  " KiB; RSS %" G_GINT64_FORMAT " → %" G_GINT64_FORMAT " KiB",
                  mode == CANNED_CHUNKED ? "chunked" : "content-length", elapsed_us / 1000,
                  endpoint->body_written / 1024, rss_before, rss_after);
  g_assert_null (node);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "CDP_DISCONNECTED");
  /* Fast, not after reading 400 MiB or running into the 5 s budget. */
  g_assert_cmpint (elapsed_us, <, (gint64) stw_test_timeout_ms (1500) * 1000);
  /* What the kernel's socket buffers absorb, not the whole body. */
  g_assert_cmpuint (endpoint->body_written, <, 32 * 1024 * 1024);
  if (!stw_test_running_on_valgrind ())
    g_assert_cmpint (rss_after - rss_before, <, 16 * 1024);

  /* The server sees the request torn down. */
  for (guint i = 0; i < 500 && endpoint->open > 0; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (2000);
    }
  g_assert_cmpuint (endpoint->open, ==, 0);
}

static void
test_http_huge_chunked (void)
{
  g_test_summary ("A 400 MiB chunked answer fails one chunk past 64 KiB, without buffering it");
  check_huge (CANNED_CHUNKED);
}

static void
test_http_huge_length (void)
{
  g_test_summary ("A Content-Length of 400 MiB fails at the headers");
  check_huge (CANNED_LENGTH);
}

static void
test_http_timeout (void)
{
  g_autoptr(Canned) silent = canned_new (CANNED_RECORD);
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gint64 elapsed_us = 0;

  g_test_summary ("The budget covers the whole request, in milliseconds");

  /* RECORD closes at once; a listener that accepts and never answers: */
  g_socket_service_stop (silent->service);
  url = g_strdup_printf ("http://127.0.0.1:%u/json/version", silent->port);
  node = http_get (url, 300, &elapsed_us, &error);
  g_assert_null (node);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "CDP_TIMEOUT");
  g_assert_cmpint (elapsed_us, >=, 290 * 1000);
  g_assert_cmpint (elapsed_us, <, (gint64) stw_test_timeout_ms (1500) * 1000);
}

static void
test_proxy_control (void)
{
  g_autoptr(Canned) endpoint = canned_devtools_new ();
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/json/version", endpoint->port);
  g_autoptr(SoupSession) plain = soup_session_new ();
  g_autoptr(SoupMessage) message = soup_message_new ("GET", url);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GBytes) body = NULL;
  guint before = proxy_recorder->connections;

  g_test_summary ("Control: a default SoupSession does go through the proxy of the environment, "
                  "so the recorder would see a policy that honoured it");

  soup_session_set_timeout (plain, 2);
  soup_session_send_and_read_async (plain, message, G_PRIORITY_DEFAULT, NULL, on_result, &result);
  body = soup_session_send_and_read_finish (plain, wait_result (&result, 5000), NULL);
  g_assert_cmpuint (proxy_recorder->connections, >, before);
  g_assert_cmpuint (endpoint->connections, ==, 0);
  /* Keep the other tests' "no connection" assertions meaningful. */
  proxy_recorder->connections = 0;
}

static void
test_websocket_redirect (void)
{
  g_autoptr(Canned) target = canned_new (CANNED_RECORD);
  g_autofree char *location = g_strdup_printf ("ws://127.0.0.1:%u/devtools/browser/elsewhere", target->port);
  g_autoptr(Canned) redirect = canned_redirect_new (location);
  g_autofree char *url = g_strdup_printf ("ws://127.0.0.1:%u/devtools/browser/x", redirect->port);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwTransport) transport = NULL;

  g_test_summary ("The WebSocket handshake does not follow a redirect and takes no proxy");

  stw_cdp_websocket_connect_async (url, 2000, NULL, on_result, &result);
  transport = stw_cdp_websocket_connect_finish (wait_result (&result, 5000), &error);
  g_assert_null (transport);
  g_assert_nonnull (error);
  g_assert_cmpuint (redirect->connections, ==, 1);
  g_assert_cmpuint (target->connections, ==, 0);
  g_assert_cmpuint (proxy_recorder->connections, ==, 0);
}

static void
test_attach_redirect (void)
{
  g_autoptr(Canned) target = canned_devtools_new ();
  g_autofree char *location = g_strdup_printf ("http://127.0.0.1:%u/json/version", target->port);
  g_autoptr(Canned) redirect = canned_redirect_new (location);
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autofree char *args = g_strdup_printf ("{\"port\":%u,\"timeoutMs\":2000}", redirect->port);
  g_autoptr(JsonObject) envelope = NULL;

  g_test_summary ("electron_attach by port does not follow the port's redirect");

  stw_dispatcher_add_core_tools (dispatcher);
  envelope = call_tool (dispatcher, "electron_attach", args);
  assert_code (envelope, "CDP_DISCONNECTED");
  g_assert_cmpuint (target->connections, ==, 0);
  g_assert_cmpuint (proxy_recorder->connections, ==, 0);
}

/* --- discovery ----------------------------------------------------------- */

static void
test_discover (void)
{
  g_autoptr(Canned) endpoint = canned_devtools_new ();
  g_autoptr(Canned) redirect = canned_redirect_new ("http://127.0.0.1:1/json/version");
  g_autoptr(Canned) huge = canned_new (CANNED_CHUNKED);
  g_autoptr(Canned) closed = canned_new (CANNED_RECORD);
  g_autoptr(StwSessionManager) manager = stw_session_manager_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  GList *found = NULL;
  g_autofree char *expected_url = NULL;
  const StwDiscoveredApp *target;
  guint ports[4];

  g_test_summary ("stw_session_manager_discover_async: the DevTools port is found with its pid; "
                  "a redirect, a huge answer and a closed port are nothing there");

  ports[0] = redirect->port;
  ports[1] = endpoint->port;
  ports[2] = huge->port;
  ports[3] = closed->port;
  stw_session_manager_discover_async (manager, NULL, ports, G_N_ELEMENTS (ports), 1000, NULL, on_result, &result);
  found = stw_session_manager_discover_finish (manager, wait_result (&result, 5000), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_length (found), ==, 1);
  target = found->data;
  expected_url = g_strdup_printf ("ws://127.0.0.1:%u/devtools/browser/canned", endpoint->port);
  g_assert_cmpstr (stw_discovered_app_get_websocket_url (target), ==, expected_url);
  g_assert_cmpuint (stw_discovered_app_get_port (target), ==, endpoint->port);
  g_assert_cmpstr (stw_discovered_app_get_app_name (target), ==, "Canned/1.0");
  /* This process holds the listening socket. */
  g_assert_cmpint (stw_discovered_app_get_pid (target), ==, getpid ());
  g_list_free_full (found, (GDestroyNotify) stw_discovered_app_free);
  g_assert_cmpuint (proxy_recorder->connections, ==, 0);

  /* The blocking form iterates the manager's context, which serves the
   * canned server too. */
  {
    GList *again = stw_session_manager_discover_sync (manager, "localhost", &ports[1], 1, 1000, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (g_list_length (again), ==, 1);
    g_list_free_full (again, (GDestroyNotify) stw_discovered_app_free);
  }

  /* Arguments out of range. */
  {
    g_autoptr(GAsyncResult) bad = NULL;
    g_autoptr(GError) bad_error = NULL;
    GList *none = NULL;
    guint zero = 0;

    stw_session_manager_discover_async (manager, "192.0.2.1", NULL, 0, 0, NULL, on_result, &bad);
    none = stw_session_manager_discover_finish (manager, wait_result (&bad, 1000), &bad_error);
    g_assert_null (none);
    g_assert_cmpstr (stw_error_get_code_name (bad_error), ==, "BAD_ARGUMENT");
    g_clear_object (&bad);
    g_clear_error (&bad_error);
    stw_session_manager_discover_async (manager, NULL, &zero, 1, 0, NULL, on_result, &bad);
    none = stw_session_manager_discover_finish (manager, wait_result (&bad, 1000), &bad_error);
    g_assert_null (none);
    g_assert_cmpstr (stw_error_get_code_name (bad_error), ==, "BAD_ARGUMENT");
  }
}

static void
test_discover_tool (void)
{
  g_autoptr(Canned) endpoint = canned_devtools_new ();
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autofree char *args = g_strdup_printf ("{\"ports\":[%u],\"timeoutMs\":1000}", endpoint->port);
  g_autoptr(JsonObject) envelope = NULL;
  JsonObject *scanned;

  g_test_summary ("electron_discover_running is the library's discovery with the reference's fields");

  stw_dispatcher_add_core_tools (dispatcher);
  envelope = call_tool (dispatcher, "electron_discover_running", args);
  assert_code (envelope, NULL);
  g_assert_cmpint (json_object_get_int_member (envelope, "count"), ==, 1);
  scanned = json_object_get_object_member (envelope, "scanned");
  g_assert_cmpstr (json_object_get_string_member (scanned, "host"), ==, "127.0.0.1");
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (scanned, "ports"), 0), ==,
                   endpoint->port);
  g_assert_true (json_object_has_member (scanned, "elapsed_ms"));
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                     json_object_get_array_member (envelope, "targets"), 0), "pid"), ==, getpid ());
}

/* --- integer arguments --------------------------------------------------- */

static void
test_integer_ranges (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  struct {
    const char *tool;
    const char *args;
  } cases[] = {
    { "electron_attach", "{\"port\":9222,\"pid\":4294967297}" },
    { "electron_attach", "{\"port\":9222,\"pid\":4194304}" },
    { "electron_inject", "{\"pid\":4294967297}" },
    { "electron_inject", "{\"pid\":0}" },
    { "electron_switch_window", "{\"index\":4294967296}" },
    { "electron_switch_window", "{\"index\":4294967296.0}" },
    { "electron_switch_window", "{\"index\":-1}" },
  };

  g_test_summary ("Integers are range-checked before any narrowing: pid 4294967297 is not pid 1, "
                  "index 4294967296 is not index 0");

  stw_dispatcher_add_core_tools (dispatcher);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) envelope = call_tool (dispatcher, cases[i].tool, cases[i].args);
      assert_code (envelope, "BAD_ARGUMENT");
    }

  /* The library checks too, for callers that bypass the schema. */
  {
    g_autoptr(StwSessionManager) manager = stw_session_manager_new ();
    g_autoptr(JsonNode) options = stw_test_parse ("{\"port\":9,\"pid\":4294967297}");
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(StwSession) session = NULL;

    stw_session_manager_attach_async (manager, json_node_get_object (options), NULL, on_result, &result);
    session = stw_session_manager_attach_finish (manager, wait_result (&result, 2000), &error);
    g_assert_null (session);
    g_assert_cmpstr (stw_error_get_code_name (error), ==, "BAD_ARGUMENT");
    g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (error), "argument"), ==, "pid");
  }
  g_assert_false (_stw_proc_check_pid_range (G_GINT64_CONSTANT (4294967297), NULL));
  g_assert_false (_stw_proc_check_pid_range (0, NULL));
  g_assert_true (_stw_proc_check_pid_range (1, NULL));
}

/* --- which processes we may signal ---------------------------------------- */

static void
test_signal_caught (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) plain = spawn (&error, "sleep", "100", NULL);
  g_autoptr(GSubprocess) handler = NULL;
  g_autoptr(GSubprocess) node = NULL;
  g_autofree char *node_path = g_find_program_in_path ("node");
  gint64 deadline;

  g_test_summary ("SigCgt decides: a shell with a USR1 trap and Node catch it, sleep does not");

  g_assert_no_error (error);
  handler = spawn (&error, "/bin/sh", "-c", "trap 'exit 3' USR1; while :; do sleep 1; done", NULL);
  g_assert_no_error (error);
  node = node_path != NULL ? spawn (&error, "node", "-e", "setTimeout(() => {}, 100000)", NULL)
                                         : NULL;
  g_assert_no_error (error);

  deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (5000) * 1000;
  while (!_stw_proc_catches_signal (subprocess_pid (handler), SIGUSR1) ||
         (node != NULL && !_stw_proc_catches_signal (subprocess_pid (node), SIGUSR1)))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (10000);
    }
  g_assert_false (_stw_proc_catches_signal (subprocess_pid (plain), SIGUSR1));
  g_assert_false (_stw_proc_check_signal_caught (subprocess_pid (plain), SIGUSR1, &error));
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "BAD_ARGUMENT");
  g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (error), "argument"), ==, "pid");
  g_clear_error (&error);
  g_assert_false (_stw_proc_check_signal_caught (getpid (), SIGUSR1, NULL));

  end_subprocess (plain);
  end_subprocess (handler);
  if (node != NULL)
    end_subprocess (node);
}

static void
test_inject_exec_a_node (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) victim = NULL;
  g_autoptr(JsonObject) envelope = NULL;
  g_autofree char *args = NULL;
  g_autofree char *bash = g_find_program_in_path ("bash");
  gint64 deadline;
  GPid pid;

  g_test_summary ("electron_inject into `exec -a node sleep 100`: refused by its signal mask, "
                  "not its name; the victim lives");

  if (bash == NULL)
    {
      g_test_skip ("bash is not installed");
      return;
    }
  victim = spawn (&error, "bash", "-c", "exec -a node sleep 100", NULL);
  g_assert_no_error (error);
  pid = subprocess_pid (victim);
  deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (5000) * 1000;
  for (;;)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%d/cmdline", (int) pid);
      g_autofree char *cmdline = NULL;

      if (g_file_get_contents (path, &cmdline, NULL, NULL) && g_str_equal (cmdline, "node"))
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (5000);
    }

  stw_dispatcher_add_core_tools (dispatcher);
  args = g_strdup_printf ("{\"pid\":%d,\"timeoutMs\":500}", (int) pid);
  envelope = call_tool (dispatcher, "electron_inject", args);
  assert_code (envelope, "BAD_ARGUMENT");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (envelope, "details"),
                                                  "argument"), ==, "pid");
  g_usleep (100000);
  g_assert_true (pid_alive (pid));
  end_subprocess (victim);
}

static void
test_attach_foreign_pid (void)
{
  g_autoptr(Browser) browser = NULL;
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) victim = NULL;
  GPid victim_pid;

  g_test_summary ("electron_attach {port, pid} with a pid that is not the endpoint's is refused; "
                  "after attach and force_kill the victim still lives; the browser's own pid is "
                  "proven and force_kill ends it");

  if (!g_file_test (CHROMIUM, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("Chromium is not installed (" CHROMIUM ")");
      return;
    }
  victim = spawn (&error, "sleep", "100", NULL);
  g_assert_no_error (error);
  victim_pid = subprocess_pid (victim);
  browser = browser_spawn (FALSE);
  stw_dispatcher_add_core_tools (dispatcher);

  /* A bystander, this very process, pid 1: all refused with the rule. */
  {
    GPid refused[] = { victim_pid, getpid (), getppid (), 1 };

    for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
      {
        g_autofree char *args = g_strdup_printf ("{\"port\":%u,\"pid\":%d}", browser->port, (int) refused[i]);
        g_autoptr(JsonObject) envelope = call_tool (dispatcher, "electron_attach", args);
        JsonObject *details;

        assert_code (envelope, "BAD_ARGUMENT");
        details = json_object_get_object_member (envelope, "details");
        g_assert_cmpstr (json_object_get_string_member (details, "argument"), ==, "pid");
        g_assert_nonnull (json_object_get_string_member (details, "rule"));
      }
  }

  /* Attached without a pid, stop and force_kill only let go. */
  {
    g_autofree char *args = g_strdup_printf ("{\"port\":%u}", browser->port);
    g_autoptr(JsonObject) attached = call_tool (dispatcher, "electron_attach", args);
    g_autoptr(JsonObject) killed = NULL;

    assert_code (attached, NULL);
    killed = call_tool (dispatcher, "electron_force_kill", "{}");
    assert_code (killed, NULL);
  }
  g_usleep (200000);
  g_assert_true (pid_alive (victim_pid));
  g_assert_true (pid_alive (browser->pid));

  /* The browser's own pid is proven: force_kill SIGKILLs it. */
  {
    g_autofree char *args = g_strdup_printf ("{\"port\":%u,\"pid\":%d}", browser->port, (int) browser->pid);
    g_autoptr(JsonObject) attached = call_tool (dispatcher, "electron_attach", args);
    g_autoptr(JsonObject) killed = NULL;

    assert_code (attached, NULL);
    killed = call_tool (dispatcher, "electron_force_kill", "{}");
    assert_code (killed, NULL);
  }
  g_assert_true (wait_exit (browser->process, 5000));
  g_assert_true (pid_alive (victim_pid));
  end_subprocess (victim);
  g_assert_cmpuint (proxy_recorder->connections, ==, 0);
}

static void
test_attach_ancestor_stop (void)
{
  g_autoptr(Browser) browser = NULL;
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autofree char *args = NULL;
  g_autoptr(JsonObject) attached = NULL;
  g_autoptr(JsonObject) stopped = NULL;
  GPid listener;

  g_test_summary ("A wrapper that started the browser (its ancestor in the same session) is "
                  "proven by the listening socket's owner; electron_stop ends the app");

  if (!g_file_test (CHROMIUM, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("Chromium is not installed (" CHROMIUM ")");
      return;
    }
  browser = browser_spawn (TRUE);
  listener = _stw_proc_find_listener (browser->port);
  g_assert_cmpint (listener, >, 0);
  g_assert_cmpint (listener, !=, browser->pid);
  g_assert_true (_stw_proc_check_endpoint_pid (browser->pid, browser->port, NULL, NULL));
  g_assert_true (_stw_proc_check_endpoint_pid (listener, browser->port, NULL, NULL));

  stw_dispatcher_add_core_tools (dispatcher);
  args = g_strdup_printf ("{\"port\":%u,\"pid\":%d}", browser->port, (int) browser->pid);
  attached = call_tool (dispatcher, "electron_attach", args);
  assert_code (attached, NULL);
  stopped = call_tool (dispatcher, "electron_stop", "{\"timeoutMs\":3000}");
  assert_code (stopped, NULL);
  g_assert_true (wait_exit (browser->process, 8000));
  g_assert_false (pid_alive (listener));
}

/* The public libsoup probe electron_doctor uses: the version of the
 * libsoup this test links, loaded through the library's table. */
static void
test_libsoup_version (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *version = stw_dup_libsoup_version (&error);
  g_autofree char *linked = g_strdup_printf ("%u.%u.%u", soup_get_major_version (), soup_get_minor_version (),
                                             soup_get_micro_version ());

  g_assert_no_error (error);
  g_assert_cmpstr (version, ==, linked);
  g_assert_true (g_str_has_prefix (version, "3."));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *proxy = NULL;

  stw_test_init (&argc, &argv);

  chunk_raw = g_malloc (STREAM_CHUNK);
  memset (chunk_raw, ' ', STREAM_CHUNK);
  chunk_framed_len = 7 + STREAM_CHUNK + 2;
  chunk_framed = g_malloc (chunk_framed_len);
  memcpy (chunk_framed, "10000\r\n", 7);
  memset (chunk_framed + 7, ' ', STREAM_CHUNK);
  memcpy (chunk_framed + 7 + STREAM_CHUNK, "\r\n", 2);

  /* Before any SoupSession exists: the proxy resolver reads these once. */
  proxy_recorder = canned_new (CANNED_RECORD);
  proxy = g_strdup_printf ("http://127.0.0.1:%u", proxy_recorder->port);
  g_setenv ("http_proxy", proxy, TRUE);
  g_setenv ("HTTP_PROXY", proxy, TRUE);
  g_setenv ("all_proxy", proxy, TRUE);
  g_setenv ("ALL_PROXY", proxy, TRUE);
  g_unsetenv ("no_proxy");
  g_unsetenv ("NO_PROXY");

  g_test_add_func ("/net/libsoup-version", test_libsoup_version);
  g_test_add_func ("/net/http/proxy-control", test_proxy_control);
  g_test_add_func ("/net/http/ok", test_http_ok);
  g_test_add_func ("/net/http/not-loopback", test_http_not_loopback);
  g_test_add_func ("/net/http/redirect", test_http_redirect);
  g_test_add_func ("/net/http/huge-chunked", test_http_huge_chunked);
  g_test_add_func ("/net/http/huge-length", test_http_huge_length);
  g_test_add_func ("/net/http/timeout", test_http_timeout);
  g_test_add_func ("/net/websocket/redirect", test_websocket_redirect);
  g_test_add_func ("/net/attach/redirect", test_attach_redirect);
  g_test_add_func ("/net/discover/library", test_discover);
  g_test_add_func ("/net/discover/tool", test_discover_tool);
  g_test_add_func ("/net/args/integer-ranges", test_integer_ranges);
  g_test_add_func ("/net/proc/signal-caught", test_signal_caught);
  g_test_add_func ("/net/proc/inject-exec-a-node", test_inject_exec_a_node);
  g_test_add_func ("/net/proc/attach-foreign-pid", test_attach_foreign_pid);
  g_test_add_func ("/net/proc/attach-ancestor-stop", test_attach_ancestor_stop);

  {
    int status = g_test_run ();

    canned_free (proxy_recorder);
    g_free (chunk_raw);
    g_free (chunk_framed);
    return status;
  }
}
