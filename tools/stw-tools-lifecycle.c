/* stw-tools-lifecycle.c: launch, attach, inject, detach, stop, force_kill,
 * info and discover_running
 *
 * Thin adapters: the work is StwSessionManager's and StwSession's, which
 * C and Python callers use directly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>
#include <string.h>

#include "stw-cdp-websocket.h"
#include "stw-core-tools.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-session-private.h"

#define SESSION_ID_PROPERTY "\"sessionId\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Which session; omit when only one is live.\"}"

StwSession *
stw_tools_resolve_session (StwInvocation  *invocation,
                           GError        **error)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  const char *session_id = json_object_get_string_member_with_default (stw_invocation_get_arguments (invocation),
                                                                       "sessionId", NULL);
  StwSession *session;

  session = stw_session_manager_resolve (stw_dispatcher_get_session_manager (dispatcher), session_id, error);
  if (session != NULL)
    stw_invocation_set_session_id (invocation, stw_session_get_id (session));
  return session;
}

JsonObject *
stw_tools_window_json (StwSession *session,
                       StwSurface *window,
                       guint       index)
{
  JsonObject *object = json_object_new ();
  StwSurface *active = stw_session_get_active_window (session);

  json_object_set_string_member (object, "id", stw_surface_get_window_id (window));
  json_object_set_int_member (object, "index", index);
  json_object_set_string_member (object, "title", stw_surface_get_title (window) ? stw_surface_get_title (window) : "");
  if (stw_surface_get_url (window) != NULL)
    json_object_set_string_member (object, "url", stw_surface_get_url (window));
  json_object_set_string_member (object, "target_id", stw_surface_get_target_id (window));
  json_object_set_boolean_member (object, "visible", TRUE);
  json_object_set_boolean_member (object, "focused", active == window);
  return object;
}

JsonArray *
stw_tools_windows_json (StwSession *session)
{
  g_autoptr(GList) windows = stw_session_list_windows (session);
  JsonArray *array = json_array_new ();
  guint index = 0;

  for (const GList *l = windows; l != NULL; l = l->next)
    json_array_add_object_element (array, stw_tools_window_json (session, l->data, index++));
  return array;
}

static void
return_session (StwInvocation    *invocation,
                StwSession       *session,
                StwLaunchOptions *launched)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  stw_invocation_set_session_id (invocation, stw_session_get_id (session));
  json_object_set_string_member (payload, "session_id", stw_session_get_id (session));
  json_object_set_string_member (payload, "transport", stw_session_get_transport_name (session));
  json_object_set_array_member (payload, "windows", stw_tools_windows_json (session));
  if (launched != NULL)
    {
      json_object_set_boolean_member (payload, "renderer_ready", stw_session_is_renderer_ready (session));
      json_object_set_string_member (payload, "runtime_source", stw_launch_options_get_runtime_source (launched));
      json_object_set_string_member (payload, "launch_mode", stw_launch_options_get_launch_mode (launched));
      if (stw_session_get_pid (session) > 0)
        json_object_set_int_member (payload, "pid", stw_session_get_pid (session));
    }
  json_object_set_object_member (payload, "capabilities", _stw_session_capabilities (session));
  stw_invocation_return_value (invocation, payload);
}

/* --- electron_launch ----------------------------------------------------- */

static void
on_launched (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(StwSession) session = NULL;
  g_autoptr(GError) error = NULL;
  StwLaunchOptions *options = g_object_get_data (G_OBJECT (invocation), "stw-launch-options");

  session = stw_session_manager_launch_finish (STW_SESSION_MANAGER (object), result, &error);
  if (session == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  /* The call gave up meanwhile (backstop, cancel): nothing may stay. */
  if (stw_invocation_is_completed (invocation))
    {
      stw_session_force_kill (session);
      return;
    }
  return_session (invocation, session, options);
}

/* A thin adapter: every launch rule is the library's (StwLaunchOptions,
 * stw_session_manager_launch_async), so C and Python callers get the same. */
static void
launch_invoke (StwTool       *tool,
               StwInvocation *invocation)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwLaunchOptions) options = NULL;

  options = stw_launch_options_new_from_json_object (stw_invocation_get_arguments (invocation), &error);
  if (options == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  g_object_set_data_full (G_OBJECT (invocation), "stw-launch-options", g_object_ref (options), g_object_unref);
  stw_invocation_report_progress (invocation, 0, 0, "launching");
  stw_session_manager_launch_async (stw_dispatcher_get_session_manager (dispatcher), options,
                                    stw_invocation_get_cancellable (invocation), on_launched,
                                    g_object_ref (invocation));
}

/* --- electron_attach / electron_inject ------------------------------------ */

static void
answer_attached (StwInvocation *invocation,
                 StwSession    *session,
                 GError        *error)
{
  if (session == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  /* The call gave up meanwhile: let go of what was attached. */
  if (stw_invocation_is_completed (invocation))
    {
      stw_session_detach (session, NULL);
      return;
    }
  return_session (invocation, session, NULL);
}

static void
on_attached (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSession) session = stw_session_manager_attach_finish (STW_SESSION_MANAGER (object),
                                                                    result, &error);

  answer_attached (invocation, session, error);
}

static void
on_injected (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSession) session = stw_session_manager_inject_finish (STW_SESSION_MANAGER (object),
                                                                    result, &error);

  answer_attached (invocation, session, error);
}

static void
attach_invoke (StwTool       *tool,
               StwInvocation *invocation)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);

  stw_session_manager_attach_async (stw_dispatcher_get_session_manager (dispatcher),
                                    stw_invocation_get_arguments (invocation),
                                    stw_invocation_get_cancellable (invocation), on_attached,
                                    g_object_ref (invocation));
}

static void
inject_invoke (StwTool       *tool,
               StwInvocation *invocation)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  JsonObject *args = stw_invocation_get_arguments (invocation);

  stw_session_manager_inject_async (stw_dispatcher_get_session_manager (dispatcher),
                                    (GPid) json_object_get_int_member (args, "pid"),
                                    (guint) json_object_get_int_member_with_default (args, "timeoutMs", 10000),
                                    stw_invocation_get_cancellable (invocation), on_injected,
                                    g_object_ref (invocation));
}

/* --- electron_detach / electron_stop / electron_force_kill ---------------- */

static void
detach_invoke (StwTool       *tool,
               StwInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) payload = json_object_new ();
  StwSession *session = stw_tools_resolve_session (invocation, &error);

  if (session == NULL || !stw_session_detach (session, &error))
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  json_object_set_string_member (payload, "session_id", stw_invocation_get_session_id (invocation));
  json_object_set_boolean_member (payload, "detached", TRUE);
  stw_invocation_return_value (invocation, payload);
}

static void
on_stopped (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(GError) error = NULL;
  gboolean escalated = FALSE;

  if (!stw_session_stop_finish (STW_SESSION (object), result, &escalated, &error))
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  json_object_set_string_member (payload, "session_id", stw_invocation_get_session_id (invocation));
  json_object_set_boolean_member (payload, "stopped", TRUE);
  json_object_set_boolean_member (payload, "escalated", escalated);
  stw_invocation_return_value (invocation, payload);
}

static void
stop_invoke (StwTool       *tool,
             StwInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  StwSession *session = stw_tools_resolve_session (invocation, &error);
  JsonObject *args = stw_invocation_get_arguments (invocation);

  if (session == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  /* Stopping is not cancellable: a half-stopped app is worse than either. */
  stw_session_stop_async (session, (guint) json_object_get_int_member_with_default (args, "timeoutMs", 10000),
                          NULL, on_stopped, g_object_ref (invocation));
}

static void
force_kill_invoke (StwTool       *tool,
                   StwInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) payload = json_object_new ();
  StwSession *session = stw_tools_resolve_session (invocation, &error);

  if (session == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  stw_session_force_kill (session);
  json_object_set_string_member (payload, "session_id", stw_invocation_get_session_id (invocation));
  json_object_set_boolean_member (payload, "killed", TRUE);
  stw_invocation_return_value (invocation, payload);
}

/* --- electron_info ------------------------------------------------------- */

static void
on_info (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  StwSession *session = STW_SESSION (object);
  g_autoptr(JsonObject) info = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *signature;

  info = stw_session_get_info_finish (session, result, &error);
  if (info == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  json_object_set_string_member (info, "session_id", stw_session_get_id (session));
  json_object_set_string_member (info, "transport", stw_session_get_transport_name (session));
  signature = json_object_new ();
  /* Code signatures are a macOS notion; Linux packages are signed by their repository. */
  json_object_set_string_member (signature, "status", "unsupported");
  json_object_set_object_member (info, "signature", signature);
  json_object_set_object_member (info, "capabilities", _stw_session_capabilities (session));
  stw_invocation_return_value (invocation, info);
}

static void
info_invoke (StwTool       *tool,
             StwInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  StwSession *session = stw_tools_resolve_session (invocation, &error);

  if (session == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  stw_session_get_info_async (session, stw_invocation_get_cancellable (invocation), on_info,
                              g_object_ref (invocation));
}

/* --- electron_discover_running -------------------------------------------- */

typedef struct
{
  StwInvocation *invocation;
  SoupSession   *http;
  JsonArray     *targets;
  JsonArray     *ports;
  char          *host;
  guint          outstanding;
  gint64         started_us;
} Discover;

static void
discover_free (Discover *discover)
{
  g_object_unref (discover->invocation);
  g_object_unref (discover->http);
  json_array_unref (discover->targets);
  json_array_unref (discover->ports);
  g_free (discover->host);
  g_free (discover);
}

typedef struct
{
  Discover *discover;
  guint     port;
} Probe;

static void
discover_done (Discover *discover)
{
  g_autoptr(JsonObject) payload = json_object_new ();
  JsonObject *scanned = json_object_new ();

  json_object_set_string_member (scanned, "host", discover->host);
  json_object_set_array_member (scanned, "ports", json_array_ref (discover->ports));
  json_object_set_int_member (scanned, "elapsed_ms", (g_get_monotonic_time () - discover->started_us) / 1000);
  json_object_set_int_member (payload, "count", json_array_get_length (discover->targets));
  json_object_set_array_member (payload, "targets", json_array_ref (discover->targets));
  json_object_set_object_member (payload, "scanned", scanned);
  stw_invocation_return_value (discover->invocation, payload);
  discover_free (discover);
}

static void
on_probe (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Probe *probe = user_data;
  Discover *discover = probe->discover;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);
  gsize size = 0;
  const char *data = body ? g_bytes_get_data (body, &size) : NULL;
  g_autoptr(JsonNode) node = NULL;

  /* A failed probe is just "nothing there"; bodies are capped. */
  if (data != NULL && size <= 4096 && (node = stw_json_parse (data, (gssize) size, NULL)) != NULL &&
      JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *version = json_node_get_object (node);
      const char *url = json_object_get_string_member_with_default (version, "webSocketDebuggerUrl", NULL);

      if (url != NULL && stw_url_is_loopback (url))
        {
          JsonObject *target = json_object_new ();
          const char *browser = json_object_get_string_member_with_default (version, "Browser", NULL);

          json_object_set_string_member (target, "targetId", url);
          json_object_set_int_member (target, "port", probe->port);
          if (browser != NULL)
            json_object_set_string_member (target, "appName", browser);
          else
            json_object_set_null_member (target, "appName");
          json_object_set_null_member (target, "pid");
          json_array_add_object_element (discover->targets, target);
        }
    }

  g_free (probe);
  if (--discover->outstanding == 0)
    discover_done (discover);
}

static void
discover_invoke (StwTool       *tool,
                 StwInvocation *invocation)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);
  Discover *discover = g_new0 (Discover, 1);
  guint timeout_ms = (guint) json_object_get_int_member_with_default (args, "timeoutMs", 300);
  const char *host = json_object_get_string_member_with_default (args, "host", "127.0.0.1");

  discover->invocation = g_object_ref (invocation);
  discover->targets = json_array_new ();
  discover->host = g_strdup (host);
  discover->started_us = g_get_monotonic_time ();
  discover->http = soup_session_new_with_options ("timeout", MAX (1u, (timeout_ms + 999) / 1000),
                                                  "max-conns-per-host", 64, NULL);
  if (json_object_has_member (args, "ports"))
    discover->ports = json_array_ref (json_object_get_array_member (args, "ports"));
  else
    {
      discover->ports = json_array_new ();
      for (int port = 9222; port <= 9225; port++)
        json_array_add_int_element (discover->ports, port);
    }

  discover->outstanding = json_array_get_length (discover->ports);
  if (discover->outstanding == 0)
    {
      discover_done (discover);
      return;
    }
  for (guint i = 0; i < json_array_get_length (discover->ports); i++)
    {
      Probe *probe = g_new0 (Probe, 1);
      g_autofree char *url = NULL;
      g_autoptr(SoupMessage) message = NULL;

      probe->discover = discover;
      probe->port = (guint) json_array_get_int_element (discover->ports, i);
      url = g_strdup_printf ("http://%s:%u/json/version",
                             g_str_equal (host, "::1") ? "[::1]" : "127.0.0.1", probe->port);
      message = soup_message_new ("GET", url);
      soup_session_send_and_read_async (discover->http, message, G_PRIORITY_DEFAULT,
                                        stw_invocation_get_cancellable (invocation), on_probe, probe);
    }
}

static const StwToolSpec lifecycle_specs[] = {
  {
    .name = "electron_launch",
    .title = "Launch an app",
    .description = "Start an Electron app (main: its directory or entry script; the runtime is executablePath, "
                   "else electron from the app root, next to main, or PATH) under the Node inspector and DevTools, "
                   "or a packaged app / plain Chromium (executablePath alone; pipe:true uses --remote-debugging-pipe). "
                   "The server owns what it launches: stop ends every process. Waits for the first window "
                   "(timeoutMs) and up to readyTimeoutMs for meaningful content. "
                   "Returns: {session_id, transport, windows[], renderer_ready, runtime_source, launch_mode, capabilities}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"main\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Absolute path of the app directory or main script.\"},"
      "\"executablePath\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Absolute path of the Electron or Chromium binary.\"},"
      "\"runtime\":{\"enum\":[\"project\"],\"description\":\"Use the app root's own electron.\"},"
      "\"args\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":100},"
      "\"env\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
      "\"cwd\":{\"type\":\"string\",\"minLength\":1},"
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":300000},"
      "\"credentialStore\":{\"enum\":[\"testing\",\"system\"]},"
      "\"readyTimeoutMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":60000,\"default\":5000},"
      "\"allowMultiple\":{\"type\":\"boolean\",\"default\":false},"
      "\"instrumentNative\":{\"type\":\"boolean\",\"default\":false},"
      "\"pipe\":{\"type\":\"boolean\",\"default\":false}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "ALREADY_RUNNING ABSOLUTE_PATH_REQUIRED FILE_NOT_FOUND FUSES_BLOCK_LAUNCH SINGLE_INSTANCE_LOCK "
              "LAUNCH_FAILED LAUNCH_TIMEOUT TRANSPORT_UNSUPPORTED NOT_IMPLEMENTED",
    .invoke = launch_invoke,
  },
  {
    .name = "electron_attach",
    .title = "Attach over CDP",
    .description = "Attach to a running app's DevTools endpoint on this machine: port (and host) or a loopback "
                   "ws:// cdpUrl. pid lets electron_stop SIGKILL an app that ignores the close. "
                   "Returns: {session_id, transport, windows[], capabilities}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
      "\"host\":{\"enum\":[\"127.0.0.1\",\"localhost\",\"::1\"]},"
      "\"cdpUrl\":{\"type\":\"string\",\"minLength\":1},"
      "\"pid\":{\"type\":\"integer\",\"minimum\":1},"
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":60000},"
      "\"allowMultiple\":{\"type\":\"boolean\",\"default\":false}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "ALREADY_RUNNING TRANSPORT_UNSUPPORTED CDP_DISCONNECTED CDP_TIMEOUT",
    .invoke = attach_invoke,
  },
  {
    .name = "electron_inject",
    .title = "Inject into a process",
    .description = "Open the Node inspector of a running Node/Electron main process started without debug flags "
                   "(SIGUSR1), verify it is that process, and drive its main process. "
                   "Returns: {session_id, transport, windows[], capabilities}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"pid\"],\"properties\":{"
      "\"pid\":{\"type\":\"integer\",\"minimum\":1},"
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":60000,\"default\":10000}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "INJECT_FAILED ALREADY_RUNNING TRANSPORT_UNSUPPORTED",
    .invoke = inject_invoke,
  },
  {
    .name = "electron_detach",
    .title = "Detach",
    .description = "Let go of an attached or injected app, leaving it running. Launched apps are owned: stop them. "
                   "Returns: {session_id, detached}.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_ID_PROPERTY "}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "NOT_RUNNING TRANSPORT_UNSUPPORTED",
    .invoke = detach_invoke,
  },
  {
    .name = "electron_stop",
    .title = "Stop the app",
    .description = "Close the app gracefully (quit, close the browser), then after timeoutMs SIGTERM and SIGKILL "
                   "its whole process group (escalated) and remove its temporary directories. "
                   "Returns: {session_id, stopped, escalated}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_ID_PROPERTY ","
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":120000,\"default\":10000}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .destructive = TRUE,
    .errors = "NOT_RUNNING",
    .invoke = stop_invoke,
  },
  {
    .name = "electron_force_kill",
    .title = "Kill the app",
    .description = "SIGKILL the app (its whole process group when launched) now and end the session. "
                   "Returns: {session_id, killed}.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_ID_PROPERTY "}}",
    .operation_type = STW_OPERATION_COMMAND,
    .destructive = TRUE,
    .errors = "NOT_RUNNING",
    .invoke = force_kill_invoke,
  },
  {
    .name = "electron_info",
    .title = "App information",
    .description = "Ask the app: versions {electron, node, chrome, v8} and app {name, version, path, exe_path, "
                   "user_data_path, packaged} from its main process (app is null for plain Chromium and plain Node). "
                   "Returns: {session_id, transport, versions, app, signature, capabilities}.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_ID_PROPERTY "}}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING CDP_DISCONNECTED CDP_TIMEOUT TRANSPORT_UNSUPPORTED",
    .invoke = info_invoke,
  },
  {
    .name = "electron_discover_running",
    .title = "Find DevTools endpoints",
    .description = "Probe loopback ports for DevTools endpoints (GET /json/version, body capped at 4 KiB). "
                   "Returns: {targets[{targetId, port, appName, pid}], count, scanned{host, ports, elapsed_ms}}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"ports\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,\"items\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535}},"
      "\"host\":{\"enum\":[\"127.0.0.1\",\"localhost\",\"::1\"],\"default\":\"127.0.0.1\"},"
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5000,\"default\":300}}}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "",
    .invoke = discover_invoke,
  },
};

void
stw_core_tools_add_lifecycle (StwDispatcher *dispatcher)
{
  stw_core_tools_add_specs (dispatcher, lifecycle_specs, G_N_ELEMENTS (lifecycle_specs));
}
