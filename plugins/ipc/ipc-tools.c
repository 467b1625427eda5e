/* ipc-tools.c: the ipc plugin's MCP tools, thin adapters over its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each tool reads its validated arguments, calls the matching
 * stw_ipc_plugin_*_async() (which makes every safety check) and answers
 * what the call answers.
 */
#include "config.h"

#include "stw-ipc-private.h"

typedef enum
{
  IPC_CAPTURE_START,
  IPC_CAPTURED,
  IPC_CAPTURE_STOP,
  IPC_INVOKE,
  IPC_STUB,
  IPC_UNSTUB,
} IpcAction;

#define IPC_TYPE_TOOL (ipc_tool_get_type ())
G_DECLARE_FINAL_TYPE (IpcTool, ipc_tool, IPC, TOOL, StwTool)

struct _IpcTool
{
  StwTool       parent_instance;
  StwIpcPlugin *plugin;   /* weak: the plugin owns its tools */
  IpcAction     action;
};

G_DEFINE_FINAL_TYPE (IpcTool, ipc_tool, STW_TYPE_TOOL)

static void
on_answered (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  IpcTool *tool = IPC_TOOL (stw_invocation_get_tool (invocation));
  StwIpcPlugin *plugin = STW_IPC_PLUGIN (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;

  switch (tool->action)
    {
    case IPC_CAPTURE_START:
      answer = stw_ipc_plugin_capture_start_finish (plugin, result, &error);
      break;
    case IPC_CAPTURED:
      answer = stw_ipc_plugin_captured_finish (plugin, result, &error);
      break;
    case IPC_CAPTURE_STOP:
      answer = stw_ipc_plugin_capture_stop_finish (plugin, result, &error);
      break;
    case IPC_INVOKE:
      answer = stw_ipc_plugin_invoke_finish (plugin, result, &error);
      break;
    case IPC_STUB:
      answer = stw_ipc_plugin_stub_finish (plugin, result, &error);
      break;
    case IPC_UNSTUB:
      answer = stw_ipc_plugin_unstub_finish (plugin, result, &error);
      break;
    default:
      g_assert_not_reached ();
    }

  if (answer == NULL)
    stw_invocation_return_error (invocation, error);
  else
    stw_invocation_return_value (invocation, answer);
}

static gboolean
boolean_argument (JsonObject *arguments,
                  const char *member)
{
  return json_object_get_boolean_member_with_default (arguments, member, FALSE);
}

static void
ipc_tool_invoke (StwTool       *tool,
                 StwInvocation *invocation)
{
  IpcTool *self = IPC_TOOL (tool);
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  GCancellable *cancellable = stw_invocation_get_cancellable (invocation);
  const char *channel = json_object_get_string_member_with_default (arguments, "channel", NULL);
  g_autoptr(GError) error = NULL;

  /* Before the session: a refused tool says why whatever else is missing. */
  if (!_stw_ipc_plugin_check_eval (self->plugin, &error))
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  if (session == NULL)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", "No app is running");
      return;
    }

  switch (self->action)
    {
    case IPC_CAPTURE_START:
      {
        JsonArray *list = json_object_get_array_member (arguments, "channels");
        g_autofree const char **channels = g_new0 (const char *, json_array_get_length (list) + 1);

        for (guint i = 0; i < json_array_get_length (list); i++)
          channels[i] = json_array_get_string_element (list, i);
        stw_ipc_plugin_capture_start_async (self->plugin, session, channels,
                                            boolean_argument (arguments, "includeOn"),
                                            boolean_argument (arguments, "includeSend"),
                                            cancellable, on_answered, g_object_ref (invocation));
      }
      break;

    case IPC_CAPTURED:
      stw_ipc_plugin_captured_async (self->plugin, session,
                                     json_object_get_int_member_with_default (arguments, "limit", 0),
                                     channel, cancellable, on_answered, g_object_ref (invocation));
      break;

    case IPC_CAPTURE_STOP:
      stw_ipc_plugin_capture_stop_async (self->plugin, session, cancellable, on_answered,
                                         g_object_ref (invocation));
      break;

    case IPC_INVOKE:
      stw_ipc_plugin_invoke_async (self->plugin, session, channel,
                                   json_object_has_member (arguments, "args")
                                     ? json_object_get_array_member (arguments, "args") : NULL,
                                   json_object_get_int_member_with_default (arguments, "webContentsId", 0),
                                   cancellable, on_answered, g_object_ref (invocation));
      break;

    case IPC_STUB:
      stw_ipc_plugin_stub_async (self->plugin, session, channel,
                                 json_object_get_member (arguments, "returns"),
                                 json_object_has_member (arguments, "returns")
                                   ? NULL : json_object_get_string_member (arguments, "throws"),
                                 boolean_argument (arguments, "once"),
                                 cancellable, on_answered, g_object_ref (invocation));
      break;

    case IPC_UNSTUB:
      stw_ipc_plugin_unstub_async (self->plugin, session, channel, cancellable, on_answered,
                                   g_object_ref (invocation));
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
ipc_tool_class_init (IpcToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = ipc_tool_invoke;
}

static void
ipc_tool_init (IpcTool *self)
{
}

static void
add_tool (StwIpcPlugin       *plugin,
          IpcAction           action,
          const char         *name,
          const char         *title,
          const char         *description,
          const char         *schema_json,
          StwOperationType    type,
          const char * const *codes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (schema_json, &error);
  IpcTool *tool;

  g_assert_no_error (error);
  tool = g_object_new (IPC_TYPE_TOOL,
                       "name", name,
                       "title", title,
                       "description", description,
                       "input-schema", schema,
                       "operation-type", type,
                       "eval-target", STW_EVAL_TARGET_MAIN,
                       "error-codes", codes,
                       "idempotent-hint", type == STW_OPERATION_QUERY,
                       "destructive-hint", action == IPC_INVOKE || action == IPC_STUB,
                       "session-requirement", STW_SESSION_REQUIREMENT_REQUIRED,
                       NULL);
  tool->plugin = plugin;
  tool->action = action;
  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (plugin), STW_TOOL (tool), NULL);
  g_object_unref (tool);
}

#define SESSION_PROP "\"sessionId\":{\"type\":\"string\"}"
#define CHANNEL_PROP "\"channel\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}"

void
_stw_ipc_plugin_add_tools (StwIpcPlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);
  static const char * const start_codes[] = {
    "EVAL_REQUIRED", "MAIN_EVAL_UNSUPPORTED", "ALREADY_CAPTURING", "CHANNEL_NOT_ALLOWED", NULL,
  };
  static const char * const read_codes[] = {
    "EVAL_REQUIRED", "MAIN_EVAL_UNSUPPORTED", "NOT_CAPTURING", NULL,
  };
  static const char * const invoke_codes[] = {
    "EVAL_REQUIRED", "MAIN_EVAL_UNSUPPORTED", "CHANNEL_NOT_ALLOWED", "INVOKE_FAILED", NULL,
  };
  static const char * const stub_codes[] = {
    "EVAL_REQUIRED", "MAIN_EVAL_UNSUPPORTED", "CHANNEL_NOT_ALLOWED", NULL,
  };

  stw_tool_provider_add_error_code (provider, "EVAL_REQUIRED", 403, FALSE,
                                    "The ipc tools run in the main process: restart the server with "
                                    "--allow-eval=main (or all).", NULL);
  stw_tool_provider_add_error_code (provider, "MAIN_EVAL_UNSUPPORTED", 501, FALSE,
                                    "This session has no main-process inspector; launch the app with main.",
                                    NULL);
  stw_tool_provider_add_error_code (provider, "ALREADY_CAPTURING", 409, FALSE,
                                    "A capture is running; stop it with ipc_capture_stop first.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_CAPTURING", 409, FALSE,
                                    "Nothing is being captured; start with ipc_capture_start.", NULL);
  stw_tool_provider_add_error_code (provider, "CHANNEL_NOT_ALLOWED", 403, FALSE,
                                    "The channel is outside the plugin's allowlist (config channels, or "
                                    "invokeAllow for ipc_invoke).", NULL);
  stw_tool_provider_add_error_code (provider, "INVOKE_FAILED", 502, FALSE,
                                    "The handler threw, did not answer in 10 s, or no handler is registered.",
                                    NULL);

  add_tool (self, IPC_CAPTURE_START, "capture_start", "Capture IPC",
            "Start capturing the app's IPC on the given channels (names or globs, each covered by the "
            "plugin's channels allowlist): every ipcMain.handle / webContents.ipc.handle invoke, those "
            "registered already and those registered later, with channel, direction, arguments, result "
            "or error, duration and window; with includeOn also ipcMain.on messages, with includeSend "
            "webContents.send. Redacts the config's redact keys. Returns: {capturing, channels, "
            "handlers[{channel, scope}], capabilities{scopes, notes}}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"channels\"],\"properties\":{"
            SESSION_PROP ","
            "\"channels\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,"
            "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}},"
            "\"includeOn\":{\"type\":\"boolean\"},\"includeSend\":{\"type\":\"boolean\"}}}",
            STW_OPERATION_COMMAND, start_codes);
  add_tool (self, IPC_CAPTURED, "captured", "Captured IPC",
            "The capture's entries, oldest first (the last limit, default 100), optionally of one channel "
            "(or glob). Each: {seq, channel, kind: invoke|on|send, direction, scope, source: "
            "renderer|ipc_invoke|main, window{webContentsId, windowId}, args, result | error, stubbed?, "
            "durationMs, startedAt}. Values are bounded copies (depth, size, no getters run, cycles cut). "
            "Returns: {capturing, total, dropped, entries[]}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_PROP ","
            "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000},"
            "\"channel\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}}}",
            STW_OPERATION_QUERY, read_codes);
  add_tool (self, IPC_CAPTURE_STOP, "capture_stop", "Stop capturing IPC",
            "Stop the capture and put the app's handlers back as they were (stubs stay until "
            "ipc_unstub). Returns: {capturing: false, total, dropped, entries[] (the last 100)}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_PROP "}}",
            STW_OPERATION_COMMAND, read_codes);
  add_tool (self, IPC_INVOKE, "invoke", "Invoke an IPC handler",
            "Call the app's handler of channel (covered by the config's invokeAllow) with args, as a "
            "renderer's ipcRenderer.invoke would (the active window's webContents.ipc handler first, "
            "then ipcMain's), and answer its result; a throw or no answer in 10 s is ipc.INVOKE_FAILED. "
            "Redacts the config's redact keys. Returns: {channel, result, durationMs}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"channel\"],\"properties\":{"
            SESSION_PROP "," CHANNEL_PROP ","
            "\"args\":{\"type\":\"array\",\"maxItems\":64},"
            "\"webContentsId\":{\"type\":\"integer\",\"minimum\":1}}}",
            STW_OPERATION_COMMAND, invoke_codes);
  add_tool (self, IPC_STUB, "stub", "Stub an IPC handler",
            "Make the handler of channel (covered by the config's channels allowlist) answer returns, or "
            "throw an Error with the message throws, without running the app's handler; once: only for "
            "the next call. Replaces an earlier stub of the channel. Returns: {channel, stubbed, once, "
            "handlers}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"channel\"],"
            "\"oneOf\":[{\"required\":[\"returns\"]},{\"required\":[\"throws\"]}],\"properties\":{"
            SESSION_PROP "," CHANNEL_PROP ","
            "\"returns\":{},\"throws\":{\"type\":\"string\",\"maxLength\":2000},"
            "\"once\":{\"type\":\"boolean\"}}}",
            STW_OPERATION_COMMAND, stub_codes);
  add_tool (self, IPC_UNSTUB, "unstub", "Remove an IPC stub",
            "Remove the stub of channel: its handler runs again. Returns: {channel, removed}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"channel\"],\"properties\":{"
            SESSION_PROP "," CHANNEL_PROP "}}",
            STW_OPERATION_COMMAND, stub_codes);
}
