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
#include <string.h>

#include "stw-cdp-websocket.h"
#include "stw-core-tools.h"
#include "stw-error-registry.h"


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
  json_object_set_object_member (payload, "capabilities", stw_tools_session_capabilities_json (session));
  stw_invocation_return_value (invocation, payload);
}

/* --- electron_launch ----------------------------------------------------- */

/* The launch's own state, handed to its callback. */
typedef struct
{
  StwInvocation    *invocation;
  StwLaunchOptions *options;
} Launch;

static void
on_launched (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Launch *launch = user_data;
  g_autoptr(StwInvocation) invocation = launch->invocation;
  g_autoptr(StwLaunchOptions) options = launch->options;
  g_autoptr(StwSession) session = NULL;
  g_autoptr(GError) error = NULL;

  g_free (launch);

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
  Launch *launch;

  options = stw_launch_options_new_from_json_object (stw_invocation_get_arguments (invocation), &error);
  if (options == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  launch = g_new0 (Launch, 1);
  launch->invocation = g_object_ref (invocation);
  launch->options = g_object_ref (options);
  stw_invocation_report_progress (invocation, 0, 0, "launching");
  stw_session_manager_launch_async (stw_dispatcher_get_session_manager (dispatcher), options,
                                    stw_invocation_get_cancellable (invocation), on_launched, launch);
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
  StwSession *session = stw_invocation_get_session (invocation);

  if (!stw_session_detach (session, &error))
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
  StwSession *session = stw_invocation_get_session (invocation);
  JsonObject *args = stw_invocation_get_arguments (invocation);

  /* Stopping is not cancellable: a half-stopped app is worse than either. */
  stw_session_stop_async (session, (guint) json_object_get_int_member_with_default (args, "timeoutMs", 10000),
                          NULL, on_stopped, g_object_ref (invocation));
}

static void
force_kill_invoke (StwTool       *tool,
                   StwInvocation *invocation)
{
  g_autoptr(JsonObject) payload = json_object_new ();
  StwSession *session = stw_invocation_get_session (invocation);

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
  g_autoptr(StwAppInfo) app_info = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) info = NULL;
  JsonObject *signature;
  JsonObject *capabilities;

  app_info = stw_session_get_info_finish (session, result, &error);
  if (app_info == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  info = stw_tools_wire_object (STW_TYPE_APP_INFO, app_info);
  json_object_set_string_member (info, "session_id", stw_session_get_id (session));
  json_object_set_string_member (info, "transport", stw_session_get_transport_name (session));
  signature = json_object_new ();
  /* Code signatures are a macOS notion; Linux packages are signed by their repository. */
  json_object_set_string_member (signature, "status", "unsupported");
  json_object_set_object_member (info, "signature", signature);
  capabilities = stw_tools_session_capabilities_json (session);
  /* What the app could not tell goes with the other notes on what this
   * session can and cannot do. */
  if (json_object_has_member (info, "notes") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (info, "notes")))
    {
      JsonObject *missing = json_object_get_object_member (info, "notes");
      g_autoptr(GList) fields = json_object_get_members (missing);
      JsonObject *notes = NULL;

      if (json_object_has_member (capabilities, "notes") &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (capabilities, "notes")))
        notes = json_object_get_object_member (capabilities, "notes");
      else
        {
          notes = json_object_new ();
          json_object_set_object_member (capabilities, "notes", notes);
        }
      for (const GList *l = fields; l != NULL; l = l->next)
        json_object_set_member (notes, l->data, json_object_dup_member (missing, l->data));
      json_object_remove_member (info, "notes");
    }
  json_object_set_object_member (info, "capabilities", capabilities);
  stw_invocation_return_value (invocation, info);
}

static void
info_invoke (StwTool       *tool,
             StwInvocation *invocation)
{
  StwSession *session = stw_invocation_get_session (invocation);

  stw_session_get_info_async (session, stw_invocation_get_cancellable (invocation), on_info,
                              g_object_ref (invocation));
}

/* --- electron_discover_running -------------------------------------------- */

typedef struct
{
  StwInvocation *invocation;
  char          *host;
  GArray        *ports;
  gint64         started_us;
} Discover;

static void
discover_free (Discover *discover)
{
  g_object_unref (discover->invocation);
  g_free (discover->host);
  g_array_unref (discover->ports);
  g_free (discover);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Discover, discover_free)

static void
on_discovered (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(Discover) discover = user_data;
  g_autoptr(GError) error = NULL;
  GList *targets = NULL;
  g_autoptr(JsonObject) payload = NULL;
  JsonObject *scanned;
  JsonArray *ports;
  JsonArray *offered;

  targets = stw_session_manager_discover_finish (STW_SESSION_MANAGER (object), result, &error);
  if (error != NULL)
    {
      stw_invocation_return_error (discover->invocation, error);
      return;
    }
  payload = json_object_new ();
  scanned = json_object_new ();
  ports = json_array_new ();
  for (guint i = 0; i < discover->ports->len; i++)
    json_array_add_int_element (ports, g_array_index (discover->ports, guint, i));
  json_object_set_string_member (scanned, "host", discover->host);
  json_object_set_array_member (scanned, "ports", ports);
  json_object_set_int_member (scanned, "elapsed_ms", (g_get_monotonic_time () - discover->started_us) / 1000);
  /* Another client's app is not offered (stw_invocation_may_reach()). */
  offered = json_array_new ();
  for (const GList *l = targets; l != NULL; l = l->next)
    {
      const StwDiscoveredApp *app = l->data;
      GPid pid = stw_discovered_app_get_pid (app);
      JsonObject *target;

      if (!stw_invocation_may_reach (discover->invocation, pid, stw_discovered_app_get_port (app)))
        continue;
      target = json_object_new ();
      json_object_set_string_member (target, "targetId", stw_discovered_app_get_websocket_url (app));
      json_object_set_int_member (target, "port", stw_discovered_app_get_port (app));
      if (stw_discovered_app_get_app_name (app) != NULL)
        json_object_set_string_member (target, "appName", stw_discovered_app_get_app_name (app));
      else
        json_object_set_null_member (target, "appName");
      if (pid > 0)
        json_object_set_int_member (target, "pid", pid);
      else
        json_object_set_null_member (target, "pid");
      json_array_add_object_element (offered, target);
    }
  g_list_free_full (targets, (GDestroyNotify) stw_discovered_app_free);
  json_object_set_array_member (payload, "targets", offered);
  json_object_set_int_member (payload, "count", json_array_get_length (offered));
  json_object_set_object_member (payload, "scanned", scanned);
  stw_invocation_return_value (discover->invocation, payload);
}

static void
discover_invoke (StwTool       *tool,
                 StwInvocation *invocation)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  JsonObject *args = stw_invocation_get_arguments (invocation);
  Discover *discover = g_new0 (Discover, 1);
  JsonArray *ports = json_object_has_member (args, "ports") ? json_object_get_array_member (args, "ports") : NULL;

  discover->invocation = g_object_ref (invocation);
  discover->host = g_strdup (json_object_get_string_member_with_default (args, "host", "127.0.0.1"));
  discover->started_us = g_get_monotonic_time ();
  discover->ports = g_array_new (FALSE, FALSE, sizeof (guint));
  /* The schema bounds every port (1..65535) before this narrowing. */
  for (guint i = 0; ports != NULL && i < json_array_get_length (ports); i++)
    {
      guint port = (guint) json_array_get_int_element (ports, i);
      g_array_append_val (discover->ports, port);
    }
  if (ports == NULL)
    for (guint port = 9222; port <= 9225; port++)
      g_array_append_val (discover->ports, port);

  stw_session_manager_discover_async (stw_dispatcher_get_session_manager (dispatcher), discover->host,
                                      (const guint *) discover->ports->data, discover->ports->len,
                                      (guint) json_object_get_int_member_with_default (args, "timeoutMs", 0),
                                      stw_invocation_get_cancellable (invocation), on_discovered, discover);
}

static const StwToolSpec lifecycle_specs[] = {
  {
    .name = "electron_launch",
    .description = "Start main (app dir or entry; Electron from executablePath, the app root or PATH), or a "
                   "packaged app or Chromium from executablePath alone. Returns {session_id, windows[]}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"main\":{\"type\":\"string\",\"minLength\":1},"
      "\"executablePath\":{\"type\":\"string\",\"minLength\":1},"
      "\"runtime\":{\"enum\":[\"project\"]},"
      "\"args\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":100},"
      "\"env\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
      "\"cwd\":{\"type\":\"string\",\"minLength\":1},"
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":300000},"
      "\"credentialStore\":{\"enum\":[\"testing\",\"system\"]},"
      "\"readyTimeoutMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":60000,\"default\":5000},"
      "\"allowMultiple\":{\"type\":\"boolean\"},"
      "\"pipe\":{\"type\":\"boolean\"}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "ALREADY_RUNNING ABSOLUTE_PATH_REQUIRED FILE_NOT_FOUND FUSES_BLOCK_LAUNCH SINGLE_INSTANCE_LOCK "
              "LAUNCH_FAILED LAUNCH_TIMEOUT TRANSPORT_UNSUPPORTED NOT_IMPLEMENTED",
    .profiles = STW_IN_ESSENTIAL,
    .invoke = launch_invoke,
  },
  {
    .name = "electron_attach",
    .description = "Attach to a running app's DevTools endpoint on this machine (port and host, or a loopback "
                   "ws:// cdpUrl). Its main process is found and its Node inspector opened if it handles SIGUSR1 "
                   "(capabilities.mainEval; notes.mainEval says why not). pid, which must own the endpoint (its "
                   "socket or an ancestor), lets electron_stop SIGKILL it. Returns {session_id, transport, "
                   "windows[], capabilities}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
      "\"host\":{\"enum\":[\"127.0.0.1\",\"localhost\",\"::1\"]},"
      "\"cdpUrl\":{\"type\":\"string\",\"minLength\":1},"
      "\"pid\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4194304},"
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":60000},"
      "\"allowMultiple\":{\"type\":\"boolean\",\"default\":false}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "ALREADY_RUNNING TRANSPORT_UNSUPPORTED CDP_DISCONNECTED CDP_TIMEOUT",
    .profiles = STW_IN_TESTING_AND_DEBUG,
    .invoke = attach_invoke,
  },
  {
    .name = "electron_inject",
    .description = "Open the Node inspector of a running Node or Electron main process started without debug flags "
                   "(SIGUSR1; an inspector already open is used as is), find it on the loopback ports the process "
                   "listens on (any --inspect-port), check it is that process, and drive it. Returns {session_id, "
                   "transport, windows[], capabilities}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"pid\"],\"properties\":{"
      "\"pid\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4194304,\"description\":\"A process that "
      "handles SIGUSR1 (Node, Electron); any other is refused.\"},"
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":60000,\"default\":10000}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "INJECT_FAILED ALREADY_RUNNING TRANSPORT_UNSUPPORTED",
    .profiles = STW_IN_DEBUG,
    .invoke = inject_invoke,
  },
  {
    .name = "electron_detach",
    .description = "Let go of an attached or injected app, leaving it running. Launched apps are owned: stop them. "
                   "Returns: {session_id, detached}.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID "}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "NOT_RUNNING TRANSPORT_UNSUPPORTED",
    .profiles = STW_IN_TESTING_AND_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = detach_invoke,
  },
  {
    .name = "electron_stop",
    .description = "Quit; after timeoutMs, SIGTERM then SIGKILL the process group. Returns {stopped, escalated}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID ","
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":120000,\"default\":10000}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .destructive = TRUE,
    .errors = "NOT_RUNNING",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = stop_invoke,
  },
  {
    .name = "electron_force_kill",
    .description = "SIGKILL the app (its whole process group when launched) now and end the session. "
                   "Returns: {session_id, killed}.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID "}}",
    .operation_type = STW_OPERATION_COMMAND,
    .destructive = TRUE,
    .errors = "NOT_RUNNING",
    .profiles = STW_IN_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = force_kill_invoke,
  },
  {
    .name = "electron_info",
    .description = "Returns {versions{electron,node,chrome,v8}, app{name,version,path,packaged\u2026}, signature, "
                   "capabilities}. Unreadable fields are null; capabilities.notes says why.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID "}}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING CDP_DISCONNECTED CDP_TIMEOUT TRANSPORT_UNSUPPORTED",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = info_invoke,
  },
  {
    .name = "electron_discover_running",
    .description = "Probe loopback ports for DevTools endpoints (GET /json/version, body capped at 4 KiB; "
                   "pid is the listening process when visible). "
                   "Returns: {targets[{targetId, port, appName, pid}], count, scanned{host, ports, elapsed_ms}}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"ports\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,\"items\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535}},"
      "\"host\":{\"enum\":[\"127.0.0.1\",\"localhost\",\"::1\"],\"default\":\"127.0.0.1\"},"
      "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5000,\"default\":300}}}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "",
    .profiles = STW_IN_DEBUG,
    .invoke = discover_invoke,
  },
};

void
stw_core_tools_add_lifecycle (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, lifecycle_specs, G_N_ELEMENTS (lifecycle_specs));
}
