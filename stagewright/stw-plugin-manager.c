/* stw-plugin-manager.c: loads plugins into a dispatcher, all or nothing
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "stw-error-registry.h"
#include "stw-invocation.h"
#include "stw-dispatcher-private.h"
#include "stw-plugin-private.h"
#include "stw-sync-private.h"
#include "stw-tool-private.h"
#include "stw-tool-provider-private.h"

/* A load is one transaction: every plugin is checked (name, version,
 * core versions, configuration) before any is set up; then each is set up
 * and its provider added, in order. The first failure tears down and
 * removes, in reverse order, every plugin this call set up, so nothing it
 * registered stays behind. The plugins are announced (::loaded) only once
 * all of them are in. Unloading goes in reverse load order. */

#define PLUGINS_TOOL_NAME "electron_plugins"

/* --- electron_plugins ---------------------------------------------------- */

#define STW_TYPE_PLUGINS_TOOL (stw_plugins_tool_get_type ())
G_DECLARE_FINAL_TYPE (StwPluginsTool, stw_plugins_tool, STW, PLUGINS_TOOL, StwTool)

struct _StwPluginsTool
{
  StwTool parent_instance;
};

G_DEFINE_FINAL_TYPE (StwPluginsTool, stw_plugins_tool, STW_TYPE_TOOL)

static const char *
eval_target_name (StwEvalTarget target)
{
  switch ((int) target)
    {
    case STW_EVAL_TARGET_RENDERER:
      return "renderer";
    case STW_EVAL_TARGET_MAIN:
      return "main";
    default:
      return "renderer,main";
    }
}

static JsonObject *
describe_plugin (StwDispatcher *dispatcher,
                 StwPlugin     *plugin)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (plugin);
  const char *name = stw_tool_provider_get_name (provider);
  JsonObject *out = json_object_new ();
  JsonArray *tools = json_array_new ();
  JsonArray *codes = json_array_new ();
  g_autoptr(JsonArray) eval_targets = json_array_new ();
  g_autoptr(GList) list = stw_tool_provider_list_tools (provider);
  g_autoptr(GList) code_names = json_object_get_members (stw_tool_provider_get_error_codes (provider));
  g_autoptr(JsonObject) effective = stw_plugin_dup_effective_config (plugin);
  StwEvalTarget seen = STW_EVAL_TARGET_NONE;

  json_object_set_string_member (out, "name", name);
  json_object_set_string_member (out, "version", stw_plugin_get_version (plugin));
  json_object_set_string_member (out, "language", stw_plugin_get_language (plugin));
  json_object_set_string_member (out, "state", stw_plugin_is_loaded (plugin) ? "loaded" : "loading");
  if (stw_plugin_get_description (plugin) != NULL)
    json_object_set_string_member (out, "description", stw_plugin_get_description (plugin));

  for (const GList *l = list; l != NULL; l = l->next)
    {
      StwTool *tool = l->data;
      JsonObject *entry = json_object_new ();
      StwEvalTarget target = stw_tool_get_eval_target (tool);

      json_object_set_string_member (entry, "name", stw_tool_get_name (tool));
      if (stw_dispatcher_is_tool_visible (dispatcher, tool))
        json_object_set_string_member (entry, "state", "enabled");
      else
        {
          JsonObject *reason = json_object_new ();

          json_object_set_string_member (entry, "state", "disabled");
          if ((stw_dispatcher_get_allow_eval (dispatcher) & target) != target)
            {
              json_object_set_string_member (reason, "kind", "eval_policy_disabled");
              json_object_set_string_member (reason, "target", eval_target_name (target));
            }
          else
            {
              json_object_set_string_member (reason, "kind", "tool_profile");
              json_object_set_string_member (reason, "profile",
                                             stw_tool_profile_to_string (stw_dispatcher_get_tool_profile (dispatcher)));
            }
          json_object_set_object_member (entry, "disabledReason", reason);
        }
      json_array_add_object_element (tools, entry);
      seen |= target;
    }
  json_object_set_array_member (out, "tools", tools);

  code_names = g_list_sort (code_names, (GCompareFunc) strcmp);
  for (const GList *l = code_names; l != NULL; l = l->next)
    {
      g_autofree char *full = g_strconcat (name, ".", (const char *) l->data, NULL);

      json_array_add_string_element (codes, full);
    }
  json_object_set_array_member (out, "errorCodes", codes);

  if (seen != STW_EVAL_TARGET_NONE)
    {
      JsonObject *requirements = json_object_new ();
      JsonArray *targets = json_array_new ();

      if (seen & STW_EVAL_TARGET_RENDERER)
        json_array_add_string_element (targets, "renderer");
      if (seen & STW_EVAL_TARGET_MAIN)
        json_array_add_string_element (targets, "main");
      json_object_set_array_member (requirements, "evalTargets", targets);
      json_object_set_object_member (out, "requirements", requirements);
    }
  if (effective != NULL)
    json_object_set_object_member (out, "effectiveConfig", g_steal_pointer (&effective));
  return out;
}

static void
stw_plugins_tool_invoke (StwTool       *tool,
                         StwInvocation *invocation)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autolist(StwPlugin) plugins = stw_dispatcher_list_plugins (dispatcher);
  JsonArray *array = json_array_new ();

  for (const GList *l = plugins; l != NULL; l = l->next)
    json_array_add_object_element (array, describe_plugin (dispatcher, l->data));
  json_object_set_array_member (payload, "plugins", array);
  stw_invocation_return_value (invocation, payload);
}

static void
stw_plugins_tool_class_init (StwPluginsToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = stw_plugins_tool_invoke;
}

static void
stw_plugins_tool_init (StwPluginsTool *self)
{
}

static StwTool *
plugins_tool_new (void)
{
  g_autoptr(StwSchema) input = stw_schema_new_from_string ("{\"type\":\"object\",\"properties\":{},"
                                                           "\"additionalProperties\":false}", NULL);

  return g_object_new (STW_TYPE_PLUGINS_TOOL,
                       "name", PLUGINS_TOOL_NAME,
                       "title", "List plugins",
                       "description",
                       "List the loaded plugins: name, version, language, state, their tools "
                       "(enabled, or disabled with the reason), their namespaced error codes, "
                       "what they need, and the configuration fields they mark safe to show.",
                       "input-schema", input,
                       "operation-type", STW_OPERATION_QUERY,
                       "idempotent-hint", TRUE,
                       "profiles", STW_TOOL_PROFILE_FLAGS_ALL,
                       NULL);
}

/* electron_plugins exists exactly while a plugin is loaded. */
static void
sync_plugins_tool (StwDispatcher *dispatcher)
{
  g_autolist(StwPlugin) plugins = stw_dispatcher_list_plugins (dispatcher);
  StwTool *present = stw_dispatcher_lookup_tool (dispatcher, PLUGINS_TOOL_NAME);

  _stw_plugin_hooks_update_launch_tool (dispatcher);
  if (plugins != NULL && present == NULL)
    {
      g_autoptr(StwTool) tool = plugins_tool_new ();
      g_autoptr(GError) error = NULL;

      if (!stw_dispatcher_add_tool (dispatcher, tool, &error))
        g_critical ("Cannot add %s: %s", PLUGINS_TOOL_NAME, error->message);
    }
  else if (plugins == NULL && present != NULL && STW_IS_PLUGINS_TOOL (present))
    stw_dispatcher_remove_tool (dispatcher, PLUGINS_TOOL_NAME);
}

/* --- listing ------------------------------------------------------------- */

/**
 * stw_dispatcher_list_plugins:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Lists the plugins loaded into @self (and those of a load under way that
 * are already set up), in load order.
 *
 * Returns: (transfer full) (element-type StwPlugin): the plugins
 *
 * Since: 1.0
 */
GList *
stw_dispatcher_list_plugins (StwDispatcher *self)
{
  GPtrArray *providers;
  GList *list = NULL;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  providers = _stw_dispatcher_get_providers (self);
  for (guint i = providers->len; i > 0; i--)
    if (STW_IS_PLUGIN (g_ptr_array_index (providers, i - 1)))
      list = g_list_prepend (list, g_object_ref (g_ptr_array_index (providers, i - 1)));
  return list;
}

/**
 * stw_dispatcher_lookup_plugin:
 * @self: a [class@Stagewright.Dispatcher]
 * @name: a plugin's name
 *
 * Finds a plugin loaded into @self.
 *
 * Returns: (transfer none) (nullable): the plugin
 *
 * Since: 1.0
 */
StwPlugin *
stw_dispatcher_lookup_plugin (StwDispatcher *self,
                              const char    *name)
{
  StwToolProvider *provider;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  provider = stw_dispatcher_lookup_provider (self, name);
  return STW_IS_PLUGIN (provider) ? STW_PLUGIN (provider) : NULL;
}

/* --- the transaction ----------------------------------------------------- */

typedef struct
{
  StwDispatcher *dispatcher;
  GPtrArray     *plugins;   /* StwPlugin, in load order */
  GPtrArray     *configs;   /* JsonObject, parallel */
  guint          next;      /* the plugin being set up */
  guint          n_done;    /* set up and added */
  gboolean       tear_next; /* the failed one was set up, tear it down too */
  GError        *error;
  gpointer       result;    /* what _finish answers, if anything */
  GDestroyNotify result_free;
} Load;

static void
load_free (gpointer data)
{
  Load *load = data;

  g_clear_object (&load->dispatcher);
  g_clear_pointer (&load->plugins, g_ptr_array_unref);
  g_clear_pointer (&load->configs, g_ptr_array_unref);
  g_clear_error (&load->error);
  if (load->result_free != NULL)
    g_clear_pointer (&load->result, load->result_free);
  g_free (load);
}

static void
set_busy (StwDispatcher *dispatcher,
          gboolean       busy)
{
  _stw_dispatcher_set_plugins_busy (dispatcher, busy);
}

static gboolean
check_not_busy (StwDispatcher  *dispatcher,
                GError        **error)
{
  if (!_stw_dispatcher_get_plugins_busy (dispatcher))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PENDING,
                       _("Another plugin load or unload is under way on this dispatcher"));
  return FALSE;
}

/* What setup gets: the given configuration with the schema's defaults,
 * checked against the schema. */
static JsonObject *
check_config (StwPlugin   *plugin,
              JsonObject  *configs,
              GError     **error)
{
  const char *name = stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin));
  StwSchema *schema = stw_plugin_get_config_schema (plugin);
  JsonNode *given = configs ? json_object_get_member (configs, name) : NULL;
  g_autoptr(JsonNode) full = NULL;
  g_autoptr(JsonArray) issues = NULL;

  if (given != NULL && !JSON_NODE_HOLDS_OBJECT (given))
    {
      *error = _stw_plugin_error_new ("PLUGIN_CONFIG_INVALID", name, _("its configuration must be a JSON object"));
      return NULL;
    }
  if (schema == NULL)
    {
      if (given != NULL && json_object_get_size (json_node_get_object (given)) > 0)
        {
          *error = _stw_plugin_error_new ("PLUGIN_CONFIG_INVALID", name, _("it takes no configuration"));
          return NULL;
        }
      return json_object_new ();
    }

  full = stw_schema_apply_defaults (schema, given);
  if (full == NULL || !JSON_NODE_HOLDS_OBJECT (full))
    {
      g_clear_pointer (&full, json_node_unref);
      full = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (full, json_object_new ());
    }
  if (!stw_schema_validate (schema, full, &issues))
    {
      JsonObject *first = json_array_get_object_element (issues, 0);
      g_autofree char *reason = NULL;
      g_autoptr(JsonObject) details = json_object_new ();
      const char *field = json_object_get_string_member_with_default (first, "field", "");
      guint n = json_array_get_length (issues);

      if (n > 1)
        reason = g_strdup_printf (_("invalid configuration %s: %s (and %u more)"),
                                  *field ? field : "(config)",
                                  json_object_get_string_member_with_default (first, "message", ""),
                                  n - 1);
      else
        reason = g_strdup_printf (_("invalid configuration %s: %s"), *field ? field : "(config)",
                                  json_object_get_string_member_with_default (first, "message", ""));
      *error = _stw_plugin_error_new ("PLUGIN_CONFIG_INVALID", name, reason);
      json_object_set_string_member (details, "plugin", name);
      json_object_set_array_member (details, "issues", json_array_ref (issues));
      stw_error_set_details (*error, details);
      return NULL;
    }
  return json_object_ref (json_node_get_object (full));
}

/* Everything that can be checked before running any plugin code. */
static gboolean
check_plugins (Load        *load,
               JsonObject  *configs,
               GError     **error)
{
  for (guint i = 0; i < load->plugins->len; i++)
    {
      StwPlugin *plugin = g_ptr_array_index (load->plugins, i);
      const char *name = stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin));
      JsonObject *config;

      if (!_stw_plugin_name_is_valid (name))
        {
          *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", name,
                                          _("a plugin's name matches ^[a-z][a-z0-9]*$ and is not “electron”"));
          return FALSE;
        }
      if (stw_plugin_get_version (plugin) == NULL || *stw_plugin_get_version (plugin) == '\0')
        {
          *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", name, _("it has no version"));
          return FALSE;
        }
      if (stw_plugin_get_dispatcher (plugin) != NULL || stw_tool_provider_is_in_use (STW_TOOL_PROVIDER (plugin)))
        {
          *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", name, _("it is already loaded"));
          return FALSE;
        }
      if (stw_dispatcher_lookup_provider (load->dispatcher, name) != NULL)
        {
          *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", name, _("a plugin or provider of that name is already loaded"));
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (g_str_equal (name, stw_tool_provider_get_name (g_ptr_array_index (load->plugins, j))))
          {
            *error = _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", name, _("it is asked for twice"));
            return FALSE;
          }
      if (!stw_plugin_accepts_core_version (plugin, NULL, error))
        return FALSE;
      config = check_config (plugin, configs, error);
      if (config == NULL)
        return FALSE;
      g_ptr_array_add (load->configs, config);
    }
  return TRUE;
}

/* A plugin's handlers on the dispatcher go with it: those connected with
 * the plugin as their data (g_signal_connect_object() included). */
static void
forget_plugin (StwDispatcher *dispatcher,
               StwPlugin     *plugin)
{
  g_signal_handlers_disconnect_matched (dispatcher, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, plugin);
  _stw_plugin_set_state (plugin, NULL, NULL, FALSE);
}

static void rollback_next (GTask *task);

static void
on_rollback_teardown (StwPlugin *plugin,
                      GError    *error,
                      gpointer   user_data)
{
  GTask *task = user_data;
  Load *load = g_task_get_task_data (task);

  if (error != NULL)
    g_debug ("Plugin “%s” failed its teardown: %s",
             stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin)), error->message);
  forget_plugin (load->dispatcher, plugin);
  rollback_next (task);
}

/* Tears down, in reverse order, every plugin this call set up. */
static void
rollback_next (GTask *task)
{
  Load *load = g_task_get_task_data (task);
  StwPlugin *plugin;
  g_autoptr(StwPluginCompletion) completion = NULL;

  if (load->tear_next)
    {
      load->tear_next = FALSE;
      plugin = g_ptr_array_index (load->plugins, load->next);
    }
  else if (load->n_done > 0)
    {
      plugin = g_ptr_array_index (load->plugins, --load->n_done);
      stw_dispatcher_remove_provider (load->dispatcher, STW_TOOL_PROVIDER (plugin));
    }
  else
    {
      set_busy (load->dispatcher, FALSE);
      g_task_return_error (task, g_steal_pointer (&load->error));
      g_object_unref (task);
      return;
    }

  completion = _stw_plugin_completion_new (plugin, load->dispatcher, stw_plugin_get_config (plugin),
                                           on_rollback_teardown, task);
  _stw_plugin_call_teardown (plugin, completion);
}

static void
fail (GTask  *task,
      GError *error)
{
  Load *load = g_task_get_task_data (task);

  load->error = error;
  rollback_next (task);
}

static void setup_next (GTask *task);

static void
on_setup_done (StwPlugin *plugin,
               GError    *error,
               gpointer   user_data)
{
  GTask *task = user_data;
  Load *load = g_task_get_task_data (task);
  const char *name = stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin));
  JsonObject *codes = stw_tool_provider_get_error_codes (STW_TOOL_PROVIDER (plugin));
  g_autoptr(GList) tools = NULL;
  g_autoptr(GError) local = NULL;

  if (error != NULL)
    {
      g_autofree char *reason = g_strdup_printf (_("its setup failed: %s"), error->message);
      GError *wrapped = g_error_copy (error);

      /* Same code, the plugin named. */
      g_free (wrapped->message);
      wrapped->message = g_strdup_printf (_("Plugin “%s”: %s"), name, reason);
      g_signal_handlers_disconnect_matched (load->dispatcher, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, plugin);
      _stw_plugin_set_state (plugin, NULL, NULL, FALSE);
      fail (task, wrapped);
      return;
    }

  tools = stw_tool_provider_list_tools (STW_TOOL_PROVIDER (plugin));
  for (const GList *l = tools; l != NULL; l = l->next)
    _stw_tool_qualify (l->data, name, codes);

  if (!stw_dispatcher_add_provider (load->dispatcher, STW_TOOL_PROVIDER (plugin), &local))
    {
      load->tear_next = TRUE;
      fail (task, _stw_plugin_error_new ("PLUGIN_MANIFEST_INVALID", name, local->message));
      return;
    }

  load->n_done++;
  load->next++;
  setup_next (task);
}

static void
setup_next (GTask *task)
{
  Load *load = g_task_get_task_data (task);
  StwPlugin *plugin;
  g_autoptr(StwPluginCompletion) completion = NULL;
  GError *error = NULL;

  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &error))
    {
      fail (task, error);
      return;
    }

  if (load->next == load->plugins->len)
    {
      for (guint i = 0; i < load->plugins->len; i++)
        {
          plugin = g_ptr_array_index (load->plugins, i);
          _stw_plugin_set_state (plugin, load->dispatcher, stw_plugin_get_config (plugin), TRUE);
        }
      sync_plugins_tool (load->dispatcher);
      set_busy (load->dispatcher, FALSE);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }

  plugin = g_ptr_array_index (load->plugins, load->next);
  _stw_plugin_set_state (plugin, load->dispatcher, g_ptr_array_index (load->configs, load->next), FALSE);
  completion = _stw_plugin_completion_new (plugin, load->dispatcher,
                                           g_ptr_array_index (load->configs, load->next),
                                           on_setup_done, task);
  _stw_plugin_call_setup (plugin, completion);
}

static void
start_load (StwDispatcher       *self,
            GPtrArray           *plugins,
            JsonObject          *configs,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data,
            gpointer             source_tag,
            GDestroyNotify       result_free,
            gpointer             result)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Load *load = g_new0 (Load, 1);
  GError *error = NULL;

  g_task_set_source_tag (task, source_tag);
  load->dispatcher = g_object_ref (self);
  load->plugins = g_ptr_array_ref (plugins);
  load->configs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  load->result = result;
  load->result_free = result_free;
  g_task_set_task_data (task, load, load_free);

  if (!check_not_busy (self, &error) || !check_plugins (load, configs, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* Only a dispatcher with plugins runs hooks; it learns that here. */
  _stw_plugin_hooks_install (self);
  set_busy (self, TRUE);
  setup_next (task);
}

/**
 * stw_dispatcher_add_plugins_async:
 * @self: a [class@Stagewright.Dispatcher]
 * @plugins: (element-type StwPlugin): the plugins, in load order
 * @configs: (nullable): each plugin's configuration, by plugin name
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Loads plugins made by the caller, all or nothing. Each is checked
 * (name, version, [property@Stagewright.Plugin:core-versions], a name not
 * yet loaded, its configuration against its schema) before any is set up;
 * then each is set up and its tools and codes registered, in order. On the
 * first failure every plugin this call set up is torn down and removed in
 * reverse order, with the handlers it connected on @self with itself as
 * data, and the call fails with a registry error (`PLUGIN_*`, or the
 * plugin's own code for a failed setup) whose message names the plugin.
 * Configurations for plugins not in @plugins are ignored.
 *
 * Since: 1.0
 */
void
stw_dispatcher_add_plugins_async (StwDispatcher       *self,
                                  GList               *plugins,
                                  JsonObject          *configs,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GPtrArray) array = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (STW_IS_DISPATCHER (self));

  for (const GList *l = plugins; l != NULL; l = l->next)
    {
      g_return_if_fail (STW_IS_PLUGIN (l->data));
      g_ptr_array_add (array, g_object_ref (l->data));
    }
  start_load (self, array, configs, cancellable, callback, user_data,
              stw_dispatcher_add_plugins_async, NULL, NULL);
}

/**
 * stw_dispatcher_add_plugins_finish:
 * @self: a [class@Stagewright.Dispatcher]
 * @result: the result
 * @error: where to put the failure
 *
 * Finishes [method@Stagewright.Dispatcher.add_plugins_async].
 *
 * Returns: %TRUE if every plugin was loaded
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_add_plugins_finish (StwDispatcher  *self,
                                   GAsyncResult   *result,
                                   GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * stw_dispatcher_load_plugins_async:
 * @self: a [class@Stagewright.Dispatcher]
 * @plugins: (array zero-terminated=1): the plugins, by name (searched in
 *   `STAGEWRIGHT_PLUGIN_PATH`, then the installed plugin directory) or by
 *   the absolute path of their `.plugin` file
 * @configs: (nullable): each plugin's configuration, by plugin name
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Finds each plugin's `NAME.plugin` file, loads its module and then loads
 * the plugins as [method@Stagewright.Dispatcher.add_plugins_async] does,
 * all or nothing. A plugin that cannot be found, a bad plugin file, a
 * module that cannot be loaded or a loader that is not installed fail the
 * whole call before any plugin is set up.
 *
 * Since: 1.0
 */
void
stw_dispatcher_load_plugins_async (StwDispatcher       *self,
                                   const char * const  *plugins,
                                   JsonObject          *configs,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GPtrArray) array = g_ptr_array_new_with_free_func (g_object_unref);
  GError *error = NULL;

  g_return_if_fail (STW_IS_DISPATCHER (self));

  for (guint i = 0; plugins != NULL && plugins[i] != NULL; i++)
    {
      StwPlugin *plugin = _stw_plugin_loader_load (plugins[i], _stw_dispatcher_get_context (self),
                                                   &error);

      if (plugin == NULL)
        {
          g_task_report_error (self, callback, user_data, stw_dispatcher_load_plugins_async, error);
          return;
        }
      g_ptr_array_add (array, plugin);
    }
  start_load (self, array, configs, cancellable, callback, user_data,
              stw_dispatcher_load_plugins_async,
              (GDestroyNotify) g_ptr_array_unref, g_ptr_array_ref (array));
}

/**
 * stw_dispatcher_load_plugins_finish:
 * @self: a [class@Stagewright.Dispatcher]
 * @result: the result
 * @error: where to put the failure
 *
 * Finishes [method@Stagewright.Dispatcher.load_plugins_async].
 *
 * Returns: (transfer full) (element-type StwPlugin): the plugins loaded,
 *   in order; %NULL with @error set on failure (or when none was asked for)
 *
 * Since: 1.0
 */
GList *
stw_dispatcher_load_plugins_finish (StwDispatcher  *self,
                                    GAsyncResult   *result,
                                    GError        **error)
{
  GPtrArray *array;
  GList *list = NULL;

  g_return_val_if_fail (G_IS_TASK (result), NULL);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  array = ((Load *) g_task_get_task_data (G_TASK (result)))->result;
  for (guint i = array ? array->len : 0; i > 0; i--)
    list = g_list_prepend (list, g_object_ref (g_ptr_array_index (array, i - 1)));
  return list;
}

/* Blocking calls iterate the dispatcher's context, as its other _sync
 * calls do (stw-sync-private.h). */
static gboolean
sync_begin (StwDispatcher  *self,
            StwSyncCall    *call,
            GError        **error)
{
  if (_stw_sync_call_init (call, _stw_dispatcher_get_context (self)))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                       _("The dispatcher's main context belongs to another thread"));
  return FALSE;
}

/**
 * stw_dispatcher_load_plugins_sync:
 * @self: a [class@Stagewright.Dispatcher]
 * @plugins: (array zero-terminated=1): the plugins, by name or path
 * @configs: (nullable): each plugin's configuration, by plugin name
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of [method@Stagewright.Dispatcher.load_plugins_async];
 * it iterates the dispatcher's main context meanwhile.
 *
 * Returns: (transfer full) (element-type StwPlugin): the plugins loaded
 *
 * Since: 1.0
 */
GList *
stw_dispatcher_load_plugins_sync (StwDispatcher       *self,
                                  const char * const  *plugins,
                                  JsonObject          *configs,
                                  GCancellable        *cancellable,
                                  GError             **error)
{
  StwSyncCall call;
  GList *loaded;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), NULL);

  if (!sync_begin (self, &call, error))
    return NULL;
  stw_dispatcher_load_plugins_async (self, plugins, configs, cancellable, _stw_sync_call_callback, &call);
  loaded = stw_dispatcher_load_plugins_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return loaded;
}

/**
 * stw_dispatcher_add_plugins_sync:
 * @self: a [class@Stagewright.Dispatcher]
 * @plugins: (element-type StwPlugin): the plugins, in load order
 * @configs: (nullable): each plugin's configuration, by plugin name
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of [method@Stagewright.Dispatcher.add_plugins_async];
 * it iterates the dispatcher's main context meanwhile.
 *
 * Returns: %TRUE if every plugin was loaded
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_add_plugins_sync (StwDispatcher  *self,
                                 GList          *plugins,
                                 JsonObject     *configs,
                                 GCancellable   *cancellable,
                                 GError        **error)
{
  StwSyncCall call;
  gboolean ok;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), FALSE);

  if (!sync_begin (self, &call, error))
    return FALSE;
  stw_dispatcher_add_plugins_async (self, plugins, configs, cancellable, _stw_sync_call_callback, &call);
  ok = stw_dispatcher_add_plugins_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ok;
}

/* --- unloading ----------------------------------------------------------- */

typedef struct
{
  StwDispatcher *dispatcher;
  GList         *plugins;   /* StwPlugin, reverse load order, owned */
} Unload;

static void
unload_free (gpointer data)
{
  Unload *unload = data;

  g_clear_object (&unload->dispatcher);
  g_list_free_full (unload->plugins, g_object_unref);
  g_free (unload);
}

static void unload_next (GTask *task);

static void
on_unload_teardown (StwPlugin *plugin,
                    GError    *error,
                    gpointer   user_data)
{
  GTask *task = user_data;
  Unload *unload = g_task_get_task_data (task);

  if (error != NULL)
    g_message ("Plugin “%s” failed its teardown: %s",
               stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin)), error->message);
  forget_plugin (unload->dispatcher, plugin);
  unload_next (task);
}

static void
unload_next (GTask *task)
{
  Unload *unload = g_task_get_task_data (task);
  g_autoptr(StwPlugin) plugin = NULL;
  g_autoptr(StwPluginCompletion) completion = NULL;
  GList *first = unload->plugins;

  if (first == NULL)
    {
      sync_plugins_tool (unload->dispatcher);
      set_busy (unload->dispatcher, FALSE);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }

  plugin = first->data;
  unload->plugins = g_list_delete_link (unload->plugins, first);
  stw_dispatcher_remove_provider (unload->dispatcher, STW_TOOL_PROVIDER (plugin));
  completion = _stw_plugin_completion_new (plugin, unload->dispatcher, stw_plugin_get_config (plugin),
                                           on_unload_teardown, task);
  _stw_plugin_call_teardown (plugin, completion);
}

/**
 * stw_dispatcher_unload_plugins_async:
 * @self: a [class@Stagewright.Dispatcher]
 * @cancellable: (nullable): a #GCancellable (an unload once started runs
 *   to its end)
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Unloads every plugin of @self in reverse load order: removes its tools
 * and codes, tears it down, disconnects the handlers it connected on @self
 * with itself as data and emits [signal@Stagewright.Plugin::unloaded].
 * A failed teardown is logged; the plugin is unloaded all the same.
 *
 * Since: 1.0
 */
void
stw_dispatcher_unload_plugins_async (StwDispatcher       *self,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task;
  Unload *unload;
  GError *error = NULL;

  g_return_if_fail (STW_IS_DISPATCHER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_dispatcher_unload_plugins_async);
  if (!check_not_busy (self, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  unload = g_new0 (Unload, 1);
  unload->dispatcher = g_object_ref (self);
  unload->plugins = g_list_reverse (stw_dispatcher_list_plugins (self));
  g_task_set_task_data (task, unload, unload_free);
  set_busy (self, TRUE);
  unload_next (task);
}

/**
 * stw_dispatcher_unload_plugins_finish:
 * @self: a [class@Stagewright.Dispatcher]
 * @result: the result
 * @error: where to put the failure
 *
 * Finishes [method@Stagewright.Dispatcher.unload_plugins_async].
 *
 * Returns: %TRUE once every plugin is unloaded; %FALSE when another load
 *   or unload was under way
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_unload_plugins_finish (StwDispatcher  *self,
                                      GAsyncResult   *result,
                                      GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * stw_dispatcher_unload_plugins_sync:
 * @self: a [class@Stagewright.Dispatcher]
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of [method@Stagewright.Dispatcher.unload_plugins_async].
 *
 * Returns: %TRUE once every plugin is unloaded
 *
 * Since: 1.0
 */
gboolean
stw_dispatcher_unload_plugins_sync (StwDispatcher  *self,
                                    GCancellable   *cancellable,
                                    GError        **error)
{
  StwSyncCall call;
  gboolean ok;

  g_return_val_if_fail (STW_IS_DISPATCHER (self), FALSE);

  if (!sync_begin (self, &call, error))
    return FALSE;
  stw_dispatcher_unload_plugins_async (self, cancellable, _stw_sync_call_callback, &call);
  ok = stw_dispatcher_unload_plugins_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ok;
}
