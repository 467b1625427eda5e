/* stw-ipc.c: the ipc plugin's API — captures, invokes and stubs an
 * Electron app's IPC
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 19's ipc plugin (the reference's ADR-010). Each call evaluates the
 * plugin's own main-process agent (ipc-agent.js, a GResource of the
 * plugins library) over the session's Node inspector with one op and a
 * JSON argument; the agent keeps the capture's state in the main process,
 * so it is per app. No caller-supplied code ever runs.
 *
 * Safety, checked here, before anything reaches the app, for the tools
 * (ipc-tools.c) and for C, Python and JavaScript callers alike:
 *   - every call needs the main process as an eval target: unless the
 *     plugin is loaded into a dispatcher whose policy allows main-process
 *     eval it is refused with ipc.EVAL_REQUIRED naming --allow-eval=main
 *     (the dispatcher also hides the tools and lists them disabled);
 *   - captures and stubs only on channels the config's `channels` globs
 *     allow, invokes only on those of `invokeAllow`: anything else is
 *     ipc.CHANNEL_NOT_ALLOWED and the app never hears of it;
 *   - the config's `redact` keys are replaced in captured arguments and
 *     answers, and in an invoke's answer, inside the main process.
 */
#include "config.h"

#include "stw-ipc-private.h"

#define IPC_AGENT_RESOURCE "/org/stagewright/plugins/ipc/ipc-agent.js"

GResource *ipc_get_resource (void);

/**
 * StwIpcPlugin:
 *
 * The ipc plugin: `--plugin ipc` loads it into the server; a C, Python or
 * JavaScript host makes one with [ctor@StagewrightIpc.IpcPlugin.new] and
 * adds it to its dispatcher with [method@Stagewright.Dispatcher.add_plugins_async].
 *
 * Its calls run only when the plugin belongs to a dispatcher that allows
 * main-process eval ([method@Stagewright.Dispatcher.set_allow_eval]), and
 * only on the channels its configuration allows.
 *
 * Since: 1.0
 */
struct _StwIpcPlugin
{
  StwPlugin parent_instance;
};

G_DEFINE_ENUM_TYPE (StwIpcError, stw_ipc_error,
                    G_DEFINE_ENUM_VALUE (STW_IPC_ERROR_EVAL_REQUIRED, "eval-required"),
                    G_DEFINE_ENUM_VALUE (STW_IPC_ERROR_MAIN_EVAL_UNSUPPORTED, "main-eval-unsupported"),
                    G_DEFINE_ENUM_VALUE (STW_IPC_ERROR_ALREADY_CAPTURING, "already-capturing"),
                    G_DEFINE_ENUM_VALUE (STW_IPC_ERROR_NOT_CAPTURING, "not-capturing"),
                    G_DEFINE_ENUM_VALUE (STW_IPC_ERROR_CHANNEL_NOT_ALLOWED, "channel-not-allowed"),
                    G_DEFINE_ENUM_VALUE (STW_IPC_ERROR_INVOKE_FAILED, "invoke-failed"))

/**
 * stw_ipc_error_quark:
 *
 * The error domain of the ipc plugin, `stw-ipc-error-quark`, registered
 * with stw_error_register_domain() so that stw_error_new() makes its codes
 * in it.
 *
 * Returns: %STW_IPC_ERROR
 *
 * Since: 1.0
 */
GQuark
stw_ipc_error_quark (void)
{
  return stw_error_register_domain ("ipc", STW_TYPE_IPC_ERROR);
}

G_DEFINE_FINAL_TYPE (StwIpcPlugin, stw_ipc_plugin, STW_TYPE_PLUGIN)

/* The bare codes the agent may answer with; anything else is a bug of
 * the agent or an app that tampered with it, and becomes INVOKE_FAILED. */
static const char * const agent_codes[] = {
  "ALREADY_CAPTURING", "NOT_CAPTURING", "INVOKE_FAILED", NULL,
};

/* --- channels ------------------------------------------------------------ */

static JsonArray *
config_list (StwIpcPlugin *self,
             const char   *member)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));

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

/* --- calls --------------------------------------------------------------- */

static char *
agent_expression (const char *op,
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
                          op, json);
}

static void
on_agent_answered (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = stw_session_evaluate_main_finish (STW_SESSION (object), result, &error);
  JsonObject *answer;

  if (value == NULL)
    {
      if (g_strcmp0 (stw_error_get_code_name (error), "TRANSPORT_UNSUPPORTED") == 0)
        {
          GError *unsupported = stw_error_new ("ipc.MAIN_EVAL_UNSUPPORTED",
                                               "This session has no main process to talk to: %s",
                                               error->message);

          stw_error_set_hint (unsupported, "Launch the app with main (its Node inspector), or attach to "
                                           "one started with --inspect");
          g_task_return_error (task, unsupported);
        }
      else
        g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  answer = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (answer == NULL)
    {
      g_task_return_error (task, stw_error_new ("ipc.INVOKE_FAILED", "The main-process agent gave no answer"));
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
      g_task_return_error (task, stw_error_new (full, "%s", message ? message : "The main-process agent failed"));
      return;
    }

  /* The answer's wire form stays with the task for the tools. */
  g_task_set_task_data (task, json_object_ref (answer), (GDestroyNotify) json_object_unref);
  g_task_return_boolean (task, TRUE);
}

/* The dispatcher refuses the tools first; a caller of the API never
 * instruments the main process without the policy either. */
gboolean
_stw_ipc_plugin_check_eval (StwIpcPlugin  *self,
                            GError       **error)
{
  StwDispatcher *dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));

  if (dispatcher == NULL || (stw_dispatcher_get_allow_eval (dispatcher) & STW_EVAL_TARGET_MAIN) == 0)
    {
      GError *refusal = stw_error_new ("ipc.EVAL_REQUIRED",
                                       "The ipc plugin is disabled by the server's eval policy; it needs "
                                       "--allow-eval=main");

      stw_error_set_hint (refusal, dispatcher == NULL
                                     ? "Add the plugin to a dispatcher that allows main-process eval"
                                     : "Ask the operator to restart the server with --allow-eval=main");
      g_propagate_error (error, refusal);
      return FALSE;
    }
  return TRUE;
}

/* Runs the agent's @op with @argument (consumed) in @session's main
 * process, after the checks every call makes: the eval policy, then
 * each of @channels against the config's @allowlist. */
static void
agent_call (StwIpcPlugin        *self,
            StwSession          *session,
            const char          *op,
            JsonObject          *argument,
            const char          *allowlist,
            const char * const  *channels,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data,
            gpointer             source_tag)
{
  g_autoptr(JsonObject) owned = argument;
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  g_autofree char *expression = NULL;

  g_task_set_source_tag (task, source_tag);

  if (!_stw_ipc_plugin_check_eval (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  for (guint i = 0; channels != NULL && channels[i] != NULL; i++)
    {
      if (!channel_allowed (config_list (self, allowlist), channels[i]))
        {
          g_task_return_error (task, channel_not_allowed (channels[i], allowlist));
          return;
        }
    }

  /* The allowlist goes along so the agent captures nothing else even if
   * asked by an older capture; the redaction applies in the app. */
  json_object_set_array_member (owned, "allow", list_copy (config_list (self, "channels")));
  json_object_set_array_member (owned, "redact", list_copy (config_list (self, "redact")));

  expression = agent_expression (op, owned);
  stw_session_evaluate_main_async (session, expression, cancellable, on_agent_answered,
                                   g_steal_pointer (&task));
}

/* The agent's answer (transfer none), or NULL with @error set. */
static JsonObject *
agent_finish (StwIpcPlugin  *self,
              GAsyncResult  *result,
              gpointer       source_tag,
              GError       **error)
{
  g_return_val_if_fail (STW_IS_IPC_PLUGIN (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  return g_task_get_task_data (G_TASK (result));
}

JsonObject *
_stw_ipc_plugin_get_answer (GAsyncResult *result)
{
  return g_task_get_task_data (G_TASK (result));
}

static JsonArray *
strv_array (const char * const *strv)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  return array;
}

/**
 * stw_ipc_plugin_capture_start_async:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @channels: (array zero-terminated=1): the channels to capture, names or
 *   globs, each covered by the config's `channels` allowlist
 * @include_on: whether to capture `ipcMain.on` messages too
 * @include_send: whether to capture `webContents.send` too
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the capture has started
 * @user_data: data for @callback
 *
 * Starts capturing the app's IPC on @channels: every `ipcMain.handle` and
 * `webContents.ipc.handle` invoke, of handlers registered already and of
 * those registered later. Refused with `ipc.EVAL_REQUIRED`,
 * `ipc.CHANNEL_NOT_ALLOWED`, `ipc.ALREADY_CAPTURING` or
 * `ipc.MAIN_EVAL_UNSUPPORTED`.
 *
 * Since: 1.0
 */
void
stw_ipc_plugin_capture_start_async (StwIpcPlugin        *self,
                                    StwSession          *session,
                                    const char * const  *channels,
                                    gboolean             include_on,
                                    gboolean             include_send,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  JsonObject *config;
  JsonObject *argument;

  g_return_if_fail (STW_IS_IPC_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (channels != NULL && channels[0] != NULL);

  config = stw_plugin_get_config (STW_PLUGIN (self));
  argument = json_object_new ();
  json_object_set_array_member (argument, "channels", strv_array (channels));
  if (include_on)
    json_object_set_boolean_member (argument, "includeOn", TRUE);
  if (include_send)
    json_object_set_boolean_member (argument, "includeSend", TRUE);
  if (config != NULL && json_object_has_member (config, "maxEntries"))
    json_object_set_int_member (argument, "maxEntries", json_object_get_int_member (config, "maxEntries"));
  agent_call (self, session, "start", argument, "channels", channels, cancellable, callback, user_data,
              stw_ipc_plugin_capture_start_async);
}

/**
 * stw_ipc_plugin_capture_start_finish:
 * @self: a #StwIpcPlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the capture has started
 *
 * Since: 1.0
 */
gboolean
stw_ipc_plugin_capture_start_finish (StwIpcPlugin  *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return agent_finish (self, result, stw_ipc_plugin_capture_start_async, error) != NULL;
}

/**
 * stw_ipc_plugin_capture_start_sync:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @channels: (array zero-terminated=1): the channels to capture
 * @include_on: whether to capture `ipcMain.on` messages too
 * @include_send: whether to capture `webContents.send` too
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightIpc.IpcPlugin.capture_start_async].
 *
 * Returns: %TRUE when the capture has started
 *
 * Since: 1.0
 */
gboolean
stw_ipc_plugin_capture_start_sync (StwIpcPlugin        *self,
                                   StwSession          *session,
                                   const char * const  *channels,
                                   gboolean             include_on,
                                   gboolean             include_send,
                                   GCancellable        *cancellable,
                                   GError             **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_ipc_plugin_capture_start_async (self, session, channels, include_on, include_send, cancellable,
                                      stw_sync_call_callback, &call);
  ret = stw_ipc_plugin_capture_start_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_ipc_plugin_captured_async:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @limit: how many of the last entries, 0 for the default (100)
 * @channel: (nullable): only the entries of this channel (or glob)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the entries
 * @user_data: data for @callback
 *
 * Reads the running capture's entries, oldest first. Refused with
 * `ipc.NOT_CAPTURING` when nothing is being captured.
 *
 * Since: 1.0
 */
void
stw_ipc_plugin_captured_async (StwIpcPlugin        *self,
                               StwSession          *session,
                               guint                limit,
                               const char          *channel,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  JsonObject *argument;

  g_return_if_fail (STW_IS_IPC_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  argument = json_object_new ();
  if (limit > 0)
    json_object_set_int_member (argument, "limit", limit);
  if (channel != NULL)
    json_object_set_string_member (argument, "channel", channel);
  agent_call (self, session, "captured", argument, NULL, NULL, cancellable, callback, user_data,
              stw_ipc_plugin_captured_async);
}

/**
 * stw_ipc_plugin_captured_finish:
 * @self: a #StwIpcPlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the capture and its entries (the last @limit)
 *
 * Since: 1.0
 */
StwIpcCapture *
stw_ipc_plugin_captured_finish (StwIpcPlugin  *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  JsonObject *answer = agent_finish (self, result, stw_ipc_plugin_captured_async, error);

  return answer ? _stw_ipc_capture_new (answer) : NULL;
}

/**
 * stw_ipc_plugin_captured_sync:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @limit: how many of the last entries, 0 for the default (100)
 * @channel: (nullable): only the entries of this channel (or glob)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightIpc.IpcPlugin.captured_async].
 *
 * Returns: (transfer full): as [method@StagewrightIpc.IpcPlugin.captured_finish]
 *
 * Since: 1.0
 */
StwIpcCapture *
stw_ipc_plugin_captured_sync (StwIpcPlugin  *self,
                              StwSession    *session,
                              guint          limit,
                              const char    *channel,
                              GCancellable  *cancellable,
                              GError       **error)
{
  StwSyncCall call;
  StwIpcCapture *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_ipc_plugin_captured_async (self, session, limit, channel, cancellable, stw_sync_call_callback, &call);
  ret = stw_ipc_plugin_captured_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_ipc_plugin_capture_stop_async:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the capture has stopped
 * @user_data: data for @callback
 *
 * Stops the capture and puts the app's handlers back as they were (stubs
 * stay until [method@StagewrightIpc.IpcPlugin.unstub_async]). Refused with
 * `ipc.NOT_CAPTURING` when nothing is being captured.
 *
 * Since: 1.0
 */
void
stw_ipc_plugin_capture_stop_async (StwIpcPlugin        *self,
                                   StwSession          *session,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (STW_IS_IPC_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  agent_call (self, session, "stop", json_object_new (), NULL, NULL, cancellable, callback, user_data,
              stw_ipc_plugin_capture_stop_async);
}

/**
 * stw_ipc_plugin_capture_stop_finish:
 * @self: a #StwIpcPlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the capture as it stopped, with its last 100 entries
 *
 * Since: 1.0
 */
StwIpcCapture *
stw_ipc_plugin_capture_stop_finish (StwIpcPlugin  *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  JsonObject *answer = agent_finish (self, result, stw_ipc_plugin_capture_stop_async, error);

  return answer ? _stw_ipc_capture_new (answer) : NULL;
}

/**
 * stw_ipc_plugin_capture_stop_sync:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightIpc.IpcPlugin.capture_stop_async].
 *
 * Returns: (transfer full): as [method@StagewrightIpc.IpcPlugin.capture_stop_finish]
 *
 * Since: 1.0
 */
StwIpcCapture *
stw_ipc_plugin_capture_stop_sync (StwIpcPlugin  *self,
                                  StwSession    *session,
                                  GCancellable  *cancellable,
                                  GError       **error)
{
  StwSyncCall call;
  StwIpcCapture *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_ipc_plugin_capture_stop_async (self, session, cancellable, stw_sync_call_callback, &call);
  ret = stw_ipc_plugin_capture_stop_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_ipc_plugin_invoke_async:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @channel: the channel, covered by the config's `invokeAllow`
 * @args: (nullable): the handler's arguments
 * @web_contents_id: the webContents whose `ipc` handler to try first, or
 *   0 for the active window's
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the handler's answer
 * @user_data: data for @callback
 *
 * Calls the app's handler of @channel with @args, as a renderer's
 * `ipcRenderer.invoke` would. A throw, or no answer in 10 s, is
 * `ipc.INVOKE_FAILED`; a channel outside `invokeAllow` is
 * `ipc.CHANNEL_NOT_ALLOWED` and its handler does not run.
 *
 * Since: 1.0
 */
void
stw_ipc_plugin_invoke_async (StwIpcPlugin        *self,
                             StwSession          *session,
                             const char          *channel,
                             JsonArray           *args,
                             gint64               web_contents_id,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  const char *checked[] = { channel, NULL };
  JsonObject *argument;

  g_return_if_fail (STW_IS_IPC_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (channel != NULL);

  argument = json_object_new ();
  json_object_set_string_member (argument, "channel", channel);
  if (args != NULL)
    json_object_set_array_member (argument, "args", json_array_ref (args));
  if (web_contents_id > 0)
    json_object_set_int_member (argument, "webContentsId", web_contents_id);
  agent_call (self, session, "invoke", argument, "invokeAllow", checked, cancellable, callback, user_data,
              stw_ipc_plugin_invoke_async);
}

/**
 * stw_ipc_plugin_invoke_finish:
 * @self: a #StwIpcPlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): what the handler answered, redacted by the
 *   config's `redact` keys: any value the app passes, so JSON
 *
 * Since: 1.0
 */
JsonNode *
stw_ipc_plugin_invoke_finish (StwIpcPlugin  *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  JsonObject *answer = agent_finish (self, result, stw_ipc_plugin_invoke_async, error);
  JsonNode *value;

  if (answer == NULL)
    return NULL;
  value = json_object_get_member (answer, "result");
  return value != NULL ? json_node_copy (value) : json_node_init_null (json_node_alloc ());
}

/**
 * stw_ipc_plugin_invoke_sync:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @channel: the channel, covered by the config's `invokeAllow`
 * @args: (nullable): the handler's arguments
 * @web_contents_id: the webContents whose `ipc` handler to try first, or 0
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightIpc.IpcPlugin.invoke_async].
 *
 * Returns: (transfer full): as [method@StagewrightIpc.IpcPlugin.invoke_finish]
 *
 * Since: 1.0
 */
JsonNode *
stw_ipc_plugin_invoke_sync (StwIpcPlugin  *self,
                            StwSession    *session,
                            const char    *channel,
                            JsonArray     *args,
                            gint64         web_contents_id,
                            GCancellable  *cancellable,
                            GError       **error)
{
  StwSyncCall call;
  JsonNode *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_ipc_plugin_invoke_async (self, session, channel, args, web_contents_id, cancellable,
                               stw_sync_call_callback, &call);
  ret = stw_ipc_plugin_invoke_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_ipc_plugin_stub_async:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @channel: the channel, covered by the config's `channels` allowlist
 * @value: (nullable): what the handler answers instead, or %NULL when
 *   @throws is given
 * @throws: (nullable): the message of the Error it throws instead
 * @once: whether the stub answers only the next call
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the stub is in place
 * @user_data: data for @callback
 *
 * Makes the handler of @channel answer @value, or throw @throws, without
 * running the app's handler. Replaces an earlier stub of the channel.
 * Exactly one of @value and @throws is given.
 *
 * Since: 1.0
 */
void
stw_ipc_plugin_stub_async (StwIpcPlugin        *self,
                           StwSession          *session,
                           const char          *channel,
                           JsonNode            *value,
                           const char          *throws,
                           gboolean             once,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  const char *checked[] = { channel, NULL };
  JsonObject *argument;

  g_return_if_fail (STW_IS_IPC_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (channel != NULL);
  g_return_if_fail ((value == NULL) != (throws == NULL));

  argument = json_object_new ();
  json_object_set_string_member (argument, "channel", channel);
  if (value != NULL)
    json_object_set_member (argument, "returns", json_node_copy (value));
  else
    json_object_set_string_member (argument, "throws", throws);
  if (once)
    json_object_set_boolean_member (argument, "once", TRUE);
  agent_call (self, session, "stub", argument, "channels", checked, cancellable, callback, user_data,
              stw_ipc_plugin_stub_async);
}

/**
 * stw_ipc_plugin_stub_finish:
 * @self: a #StwIpcPlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the stub is in place
 *
 * Since: 1.0
 */
gboolean
stw_ipc_plugin_stub_finish (StwIpcPlugin  *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  return agent_finish (self, result, stw_ipc_plugin_stub_async, error) != NULL;
}

/**
 * stw_ipc_plugin_stub_sync:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @channel: the channel, covered by the config's `channels` allowlist
 * @value: (nullable): what the handler answers instead
 * @throws: (nullable): the message of the Error it throws instead
 * @once: whether the stub answers only the next call
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightIpc.IpcPlugin.stub_async].
 *
 * Returns: %TRUE when the stub is in place
 *
 * Since: 1.0
 */
gboolean
stw_ipc_plugin_stub_sync (StwIpcPlugin  *self,
                          StwSession    *session,
                          const char    *channel,
                          JsonNode      *value,
                          const char    *throws,
                          gboolean       once,
                          GCancellable  *cancellable,
                          GError       **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_ipc_plugin_stub_async (self, session, channel, value, throws, once, cancellable,
                             stw_sync_call_callback, &call);
  ret = stw_ipc_plugin_stub_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_ipc_plugin_unstub_async:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @channel: the channel, covered by the config's `channels` allowlist
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the stub is gone
 * @user_data: data for @callback
 *
 * Removes the stub of @channel: its handler runs again.
 *
 * Since: 1.0
 */
void
stw_ipc_plugin_unstub_async (StwIpcPlugin        *self,
                             StwSession          *session,
                             const char          *channel,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  const char *checked[] = { channel, NULL };
  JsonObject *argument;

  g_return_if_fail (STW_IS_IPC_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (channel != NULL);

  argument = json_object_new ();
  json_object_set_string_member (argument, "channel", channel);
  agent_call (self, session, "unstub", argument, "channels", checked, cancellable, callback, user_data,
              stw_ipc_plugin_unstub_async);
}

/**
 * stw_ipc_plugin_unstub_finish:
 * @self: a #StwIpcPlugin
 * @result: the result given to the callback
 * @removed: (out) (optional): whether there was a stub to remove
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the channel has no stub any more
 *
 * Since: 1.0
 */
gboolean
stw_ipc_plugin_unstub_finish (StwIpcPlugin  *self,
                              GAsyncResult  *result,
                              gboolean      *removed,
                              GError       **error)
{
  JsonObject *answer = agent_finish (self, result, stw_ipc_plugin_unstub_async, error);

  if (answer == NULL)
    return FALSE;
  if (removed != NULL)
    *removed = json_object_get_boolean_member_with_default (answer, "removed", FALSE);
  return TRUE;
}

/**
 * stw_ipc_plugin_unstub_sync:
 * @self: a #StwIpcPlugin
 * @session: the app's session
 * @channel: the channel
 * @removed: (out) (optional): whether there was a stub to remove
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightIpc.IpcPlugin.unstub_async].
 *
 * Returns: %TRUE when the channel has no stub any more
 *
 * Since: 1.0
 */
gboolean
stw_ipc_plugin_unstub_sync (StwIpcPlugin  *self,
                            StwSession    *session,
                            const char    *channel,
                            gboolean      *removed,
                            GCancellable  *cancellable,
                            GError       **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_ipc_plugin_unstub_async (self, session, channel, cancellable, stw_sync_call_callback, &call);
  ret = stw_ipc_plugin_unstub_finish (self, stw_sync_call_wait (&call), removed, error);
  stw_sync_call_clear (&call);
  return ret;
}

/* --- the plugin ---------------------------------------------------------- */

static void
stw_ipc_plugin_class_init (StwIpcPluginClass *klass)
{
  /* The domain exists before the plugin makes its first error, so that
   * stw_error_new() makes its codes in it. */
  stw_ipc_error_quark ();
}

static void
stw_ipc_plugin_init (StwIpcPlugin *self)
{
  _stw_ipc_plugin_add_tools (self);
}

/**
 * stw_ipc_plugin_new:
 *
 * Makes the ipc plugin with its tools and configuration schema, as
 * `--plugin ipc` loads it.
 *
 * Returns: (transfer full): a new #StwIpcPlugin
 *
 * Since: 1.0
 */
StwIpcPlugin *
stw_ipc_plugin_new (void)
{
  g_autoptr(GError) error = NULL;
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
    "\"x-stagewright-safe\":true}}}", &error);

  g_assert_no_error (error);
  return g_object_new (STW_TYPE_IPC_PLUGIN,
                       "name", "ipc",
                       "version", "0.1.0",
                       "core-versions", ">=0.1",
                       "description", "Captures, invokes and stubs the Electron app's IPC in its main process.",
                       "config-schema", config,
                       NULL);
}
