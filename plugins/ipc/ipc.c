/* ipc.c: the ipc plugin — captures, invokes and stubs an Electron app's IPC
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 19's ipc plugin (the reference's ADR-010). Each tool evaluates the
 * plugin's own main-process agent (ipc-agent.js, a GResource of this
 * module) over the session's Node inspector with one op and a JSON
 * argument; the agent keeps the capture's state in the main process, so it
 * is per app. No agent-supplied code ever runs.
 *
 * Safety, checked here before anything reaches the app:
 *   - every tool names the main process as its eval target, so it is
 *     hidden unless the server allows main-process eval, listed disabled
 *     by electron_plugins, and a call is refused with ipc.EVAL_REQUIRED
 *     naming --allow-eval=main (the dispatcher answers; a tool invoked
 *     some other way checks again);
 *   - captures and stubs only on channels the config's `channels` globs
 *     allow, ipc_invoke only on those of `invokeAllow`: anything else is
 *     ipc.CHANNEL_NOT_ALLOWED and the app never hears of it;
 *   - the config's `redact` keys are replaced in captured arguments and
 *     answers, and in ipc_invoke's answer, inside the main process.
 */
#include <string.h>

#include <stagewright/stagewright.h>

#define IPC_AGENT_RESOURCE "/org/stagewright/plugins/ipc/ipc-agent.js"

GResource *ipc_get_resource (void);

/* --- the plugin ---------------------------------------------------------- */

#define IPC_TYPE_PLUGIN (ipc_plugin_get_type ())
G_DECLARE_FINAL_TYPE (IpcPlugin, ipc_plugin, IPC, PLUGIN, StwPlugin)

struct _IpcPlugin
{
  StwPlugin parent_instance;
};

G_DEFINE_FINAL_TYPE (IpcPlugin, ipc_plugin, STW_TYPE_PLUGIN)

typedef enum
{
  IPC_CAPTURE_START,
  IPC_CAPTURED,
  IPC_CAPTURE_STOP,
  IPC_INVOKE,
  IPC_STUB,
  IPC_UNSTUB,
} IpcAction;

static const char * const action_ops[] = {
  [IPC_CAPTURE_START] = "start",
  [IPC_CAPTURED] = "captured",
  [IPC_CAPTURE_STOP] = "stop",
  [IPC_INVOKE] = "invoke",
  [IPC_STUB] = "stub",
  [IPC_UNSTUB] = "unstub",
};

/* The bare codes the agent may answer with; anything else is a bug of
 * the agent or an app that tampered with it, and becomes INVOKE_FAILED. */
static const char * const agent_codes[] = {
  "ALREADY_CAPTURING", "NOT_CAPTURING", "INVOKE_FAILED", NULL,
};

#define IPC_TYPE_TOOL (ipc_tool_get_type ())
G_DECLARE_FINAL_TYPE (IpcTool, ipc_tool, IPC, TOOL, StwTool)

struct _IpcTool
{
  StwTool    parent_instance;
  IpcPlugin *plugin;   /* weak: the plugin owns its tools */
  IpcAction  action;
};

G_DEFINE_FINAL_TYPE (IpcTool, ipc_tool, STW_TYPE_TOOL)

/* --- channels ------------------------------------------------------------ */

static JsonArray *
config_list (IpcPlugin  *plugin,
             const char *member)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (plugin));

  if (config == NULL || !json_object_has_member (config, member))
    return NULL;
  return json_object_get_array_member (config, member);
}

/* Whether @channel (a name, or a glob asking for several) is covered by
 * one of the config's globs: a requested glob is allowed only when one of
 * the config's covers it as text (`notes:*` by `notes:*` or `*`). */
static gboolean
channel_allowed (JsonArray  *globs,
                 const char *channel)
{
  for (guint i = 0; globs != NULL && i < json_array_get_length (globs); i++)
    {
      const char *glob = json_array_get_string_element (globs, i);

      if (glob != NULL && g_pattern_match_simple (glob, channel))
        return TRUE;
    }
  return FALSE;
}

static JsonArray *
list_copy (JsonArray *list)
{
  return list != NULL ? json_array_ref (list) : json_array_new ();
}

static GError *
channel_not_allowed (const char *channel,
                     const char *member)
{
  GError *error = stw_error_new ("ipc.CHANNEL_NOT_ALLOWED",
                                 "The channel “%s” is not in the ipc plugin's %s allowlist",
                                 channel, member);
  g_autoptr(JsonObject) details = json_object_new ();
  g_autofree char *hint = g_strdup_printf ("Add it (or a glob covering it) to --plugin-config "
                                           "'ipc={\"%s\":[…]}'", member);

  json_object_set_string_member (details, "channel", channel);
  json_object_set_string_member (details, "allowlist", member);
  stw_error_set_details (error, details);
  stw_error_set_hint (error, hint);
  return error;
}

/* Refuses @invocation unless the config's @member list covers @channel. */
static gboolean
check_channel (StwInvocation *invocation,
               IpcPlugin     *plugin,
               const char    *member,
               const char    *channel)
{
  g_autoptr(GError) error = NULL;

  if (channel_allowed (config_list (plugin, member), channel))
    return TRUE;
  error = channel_not_allowed (channel, member);
  stw_invocation_return_error (invocation, error);
  return FALSE;
}

/* --- calls --------------------------------------------------------------- */

static char *
agent_expression (IpcAction   action,
                  JsonObject *argument)
{
  g_autoptr(GBytes) source = g_resource_lookup_data (ipc_get_resource (), IPC_AGENT_RESOURCE,
                                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), argument);
  g_autofree char *json = json_to_string (node, FALSE);

  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (source != NULL);
  return g_strdup_printf ("%.*s(require('electron'), \"%s\", %s)",
                          (int) g_bytes_get_size (source), (const char *) g_bytes_get_data (source, NULL),
                          action_ops[action], json);
}

static void
on_agent_answered (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = stw_session_evaluate_main_finish (STW_SESSION (object), result, &error);
  JsonObject *answer;

  if (value == NULL)
    {
      if (g_strcmp0 (stw_error_get_code_name (error), "TRANSPORT_UNSUPPORTED") == 0)
        {
          g_autoptr(GError) unsupported = stw_error_new ("ipc.MAIN_EVAL_UNSUPPORTED",
                                                         "This session has no main process to talk to: %s",
                                                         error->message);

          stw_error_set_hint (unsupported, "Launch the app with main (its Node inspector), or attach to "
                                           "one started with --inspect");
          stw_invocation_return_error (invocation, unsupported);
        }
      else
        stw_invocation_return_error (invocation, error);
      return;
    }

  answer = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (answer == NULL)
    {
      stw_invocation_return_error_literal (invocation, "ipc.INVOKE_FAILED",
                                           "The main-process agent gave no answer");
      return;
    }

  if (json_object_has_member (answer, "error"))
    {
      JsonObject *failure = json_object_get_object_member (answer, "error");
      const char *code = failure ? json_object_get_string_member_with_default (failure, "code", NULL) : NULL;
      const char *message = failure ? json_object_get_string_member_with_default (failure, "message", NULL) : NULL;
      g_autofree char *full = NULL;

      if (code == NULL || !g_strv_contains (agent_codes, code))
        code = "INVOKE_FAILED";
      full = g_strconcat ("ipc.", code, NULL);
      stw_invocation_return_error_literal (invocation, full,
                                           message ? message : "The main-process agent failed");
      return;
    }

  stw_invocation_return_value (invocation, answer);
}

static void
copy_member (JsonObject *to,
             JsonObject *from,
             const char *member)
{
  if (json_object_has_member (from, member))
    json_object_set_member (to, member, json_node_copy (json_object_get_member (from, member)));
}

static void
ipc_tool_invoke (StwTool       *tool,
                 StwInvocation *invocation)
{
  IpcTool *self = IPC_TOOL (tool);
  IpcPlugin *plugin = self->plugin;
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  JsonArray *redact = config_list (plugin, "redact");
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (plugin));
  g_autoptr(JsonObject) argument = json_object_new ();
  g_autofree char *expression = NULL;

  /* The dispatcher refuses it first; a tool reached some other way still
   * never instruments the main process without the policy. */
  if (dispatcher == NULL ||
      (stw_dispatcher_get_allow_eval (dispatcher) & STW_EVAL_TARGET_MAIN) == 0)
    {
      g_autoptr(GError) error = stw_error_new ("ipc.EVAL_REQUIRED",
                                               "%s is disabled by the server's eval policy; it needs "
                                               "--allow-eval=main", stw_tool_get_name (tool));

      stw_error_set_hint (error, "Ask the operator to restart the server with --allow-eval=main");
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
        JsonArray *channels = json_object_get_array_member (arguments, "channels");

        for (guint i = 0; i < json_array_get_length (channels); i++)
          {
            if (!check_channel (invocation, plugin, "channels", json_array_get_string_element (channels, i)))
              return;
          }
        copy_member (argument, arguments, "channels");
        copy_member (argument, arguments, "includeOn");
        copy_member (argument, arguments, "includeSend");
        copy_member (argument, config, "maxEntries");
      }
      break;

    case IPC_CAPTURED:
      copy_member (argument, arguments, "limit");
      copy_member (argument, arguments, "channel");
      break;

    case IPC_CAPTURE_STOP:
      break;

    case IPC_INVOKE:
    case IPC_STUB:
    case IPC_UNSTUB:
      {
        if (!check_channel (invocation, plugin, self->action == IPC_INVOKE ? "invokeAllow" : "channels",
                            json_object_get_string_member (arguments, "channel")))
          return;
        copy_member (argument, arguments, "channel");
        copy_member (argument, arguments, "args");
        copy_member (argument, arguments, "returns");
        copy_member (argument, arguments, "throws");
        copy_member (argument, arguments, "once");
        copy_member (argument, arguments, "webContentsId");
      }
      break;

    default:
      g_assert_not_reached ();
    }

  /* The allowlist goes along so the agent captures nothing else even if
   * asked by an older capture; the redaction applies in the app. */
  json_object_set_array_member (argument, "allow", list_copy (config_list (plugin, "channels")));
  json_object_set_array_member (argument, "redact", list_copy (redact));

  expression = agent_expression (self->action, argument);
  stw_session_evaluate_main_async (session, expression, stw_invocation_get_cancellable (invocation),
                                   on_agent_answered, g_object_ref (invocation));
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
add_tool (IpcPlugin          *plugin,
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

static void
ipc_plugin_class_init (IpcPluginClass *klass)
{
}

static void
ipc_plugin_init (IpcPlugin *self)
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

/* The one entry point of a C plugin module (STW_PLUGIN_MODULE_ENTRY). */
StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"channels\":{\"type\":\"array\",\"maxItems\":256,\"default\":[],\"x-stagewright-safe\":true,"
    "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}},"
    "\"invokeAllow\":{\"type\":\"array\",\"maxItems\":256,\"default\":[],\"x-stagewright-safe\":true,"
    "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}},"
    "\"redact\":{\"type\":\"array\",\"maxItems\":256,\"x-stagewright-safe\":true,"
    "\"default\":[\"password\",\"token\",\"secret\",\"authorization\",\"cookie\",\"apiKey\"],"
    "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}},"
    "\"maxEntries\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000,\"default\":1000,"
    "\"x-stagewright-safe\":true}}}", NULL);

  return g_object_new (IPC_TYPE_PLUGIN,
                       "name", "ipc",
                       "version", "0.1.0",
                       "config-schema", config,
                       NULL);
}
