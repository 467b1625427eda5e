/* stw-plugin-hooks.c: runs plugins' new-surface, new-worker and launch hooks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The session code asks its manager (stw-hooks-private.h); the dispatcher
 * that owns the manager hangs itself on it here, weakly, and its loaded
 * plugins' class hooks run one after the other, each with a
 * StwPluginCompletion that names the session, the surface and the
 * plugin's launch options. Every hook is bounded: a plugin that never
 * completes delays a new window by 10 s, not for ever.
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-error-registry.h"
#include "stw-hooks-private.h"
#include "stw-dispatcher-private.h"
#include "stw-plugin-private.h"
#include "stw-tool-private.h"

#define HOOK_TIMEOUT_MS 10000

static GQuark
dispatcher_quark (void)
{
  return g_quark_from_static_string ("stw-hooks-dispatcher");
}

static void
weak_ref_free (GWeakRef *ref)
{
  g_weak_ref_clear (ref);
  g_free (ref);
}

void
_stw_plugin_hooks_install (StwDispatcher *dispatcher)
{
  StwSessionManager *manager = stw_dispatcher_get_session_manager (dispatcher);
  GWeakRef *ref;

  if (g_object_get_qdata (G_OBJECT (manager), dispatcher_quark ()) != NULL)
    return;
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, dispatcher);
  g_object_set_qdata_full (G_OBJECT (manager), dispatcher_quark (), ref, (GDestroyNotify) weak_ref_free);
}

static gboolean
plugin_has_hook (StwPlugin    *plugin,
                 StwHookPoint  point)
{
  StwPluginClass *klass = STW_PLUGIN_GET_CLASS (plugin);

  if (!stw_plugin_is_loaded (plugin))
    return FALSE;
  switch (point)
    {
    case STW_HOOK_SURFACE_ATTACHED:
      return klass->surface_attached != NULL;
    case STW_HOOK_BEFORE_MAIN:
      return klass->before_main != NULL;
    case STW_HOOK_WORKER_ATTACHED:
      return klass->worker_attached != NULL;
    case STW_HOOK_APP_READY:
    default:
      return klass->app_ready != NULL;
    }
}

/* The plugins with a hook at @point, in load order. */
static GList *
hooked_plugins (StwSessionManager  *manager,
                StwHookPoint        point,
                StwDispatcher     **dispatcher_out)
{
  GWeakRef *ref = manager ? g_object_get_qdata (G_OBJECT (manager), dispatcher_quark ()) : NULL;
  g_autoptr(StwDispatcher) dispatcher = ref ? g_weak_ref_get (ref) : NULL;
  GList *plugins;
  GList *hooked = NULL;

  if (dispatcher == NULL)
    return NULL;
  plugins = stw_dispatcher_list_plugins (dispatcher);
  for (GList *l = plugins; l != NULL; l = l->next)
    if (plugin_has_hook (l->data, point))
      hooked = g_list_prepend (hooked, g_object_ref (l->data));
  g_list_free_full (plugins, g_object_unref);
  if (dispatcher_out != NULL)
    *dispatcher_out = g_steal_pointer (&dispatcher);
  return g_list_reverse (hooked);
}

gboolean
_stw_hooks_wanted (StwSessionManager *manager,
                   StwHookPoint       point)
{
  GList *hooked = hooked_plugins (manager, point, NULL);
  gboolean wanted = hooked != NULL;

  g_list_free_full (hooked, g_object_unref);
  return wanted;
}

typedef struct
{
  StwHookPoint          point;
  StwDispatcher        *dispatcher;
  GList                *plugins;    /* StwPlugin*, owned */
  GList                *next;
  StwSession           *session;
  StwSurface           *surface;
  StwLaunchOptions     *launch;
  JsonObject           *plugin_options;
  StwPluginCompletion  *current;
  GSource              *timeout;
  GError               *error;
  StwHooksDoneFunc      done;
  gpointer              user_data;
} HookRun;

static void
hook_run_free (HookRun *run)
{
  if (run->timeout != NULL)
    {
      g_source_destroy (run->timeout);
      g_source_unref (run->timeout);
    }
  g_clear_object (&run->current);
  g_list_free_full (run->plugins, g_object_unref);
  g_clear_object (&run->dispatcher);
  g_clear_object (&run->session);
  g_clear_object (&run->surface);
  g_clear_object (&run->launch);
  g_clear_pointer (&run->plugin_options, json_object_unref);
  g_clear_error (&run->error);
  g_free (run);
}

static void run_next (HookRun *run);

static void
finish_current (HookRun *run)
{
  if (run->timeout != NULL)
    {
      g_source_destroy (run->timeout);
      g_clear_pointer (&run->timeout, g_source_unref);
    }
  if (run->current != NULL)
    _stw_plugin_completion_disarm (run->current);
  g_clear_object (&run->current);
}

static void
on_hook_done (StwPlugin *plugin,
              GError    *error,
              gpointer   user_data)
{
  HookRun *run = user_data;

  finish_current (run);
  if (error != NULL)
    {
      if (run->point == STW_HOOK_SURFACE_ATTACHED || run->point == STW_HOOK_WORKER_ATTACHED)
        g_message ("Plugin “%s”: its %s hook failed: %s", stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin)),
                   run->point == STW_HOOK_WORKER_ATTACHED ? "new-worker" : "new-surface", error->message);
      else if (run->error == NULL)
        run->error = g_error_copy (error);
    }
  run_next (run);
}

static gboolean
on_hook_timeout (gpointer user_data)
{
  HookRun *run = user_data;
  StwPlugin *plugin = stw_plugin_completion_get_plugin (run->current);
  g_autofree char *message = g_strdup_printf (_("Plugin “%s”: its hook did not complete within %u ms"),
                                              stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin)),
                                              HOOK_TIMEOUT_MS);

  g_message ("%s", message);
  g_clear_pointer (&run->timeout, g_source_unref);
  if (run->point != STW_HOOK_SURFACE_ATTACHED && run->point != STW_HOOK_WORKER_ATTACHED && run->error == NULL)
    run->error = stw_error_new_code_literal (STW_ERROR_LAUNCH_FAILED, message);
  finish_current (run);
  run_next (run);
  return G_SOURCE_REMOVE;
}

static void
run_next (HookRun *run)
{
  StwPlugin *plugin;
  StwPluginClass *klass;
  JsonObject *options = NULL;
  const char *name;

  /* A failed launch hook ends the run: the launch fails. */
  if (run->next == NULL || run->error != NULL)
    {
      run->done (run->error, run->user_data);
      hook_run_free (run);
      return;
    }
  plugin = run->next->data;
  run->next = run->next->next;
  klass = STW_PLUGIN_GET_CLASS (plugin);
  name = stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin));
  if (run->plugin_options != NULL && json_object_has_member (run->plugin_options, name) &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (run->plugin_options, name)))
    options = json_object_get_object_member (run->plugin_options, name);

  run->current = _stw_plugin_completion_new (plugin, run->dispatcher, stw_plugin_get_config (plugin),
                                             on_hook_done, run);
  _stw_plugin_completion_set_subject (run->current, run->session, run->surface, run->launch, options);
  run->timeout = g_timeout_source_new (HOOK_TIMEOUT_MS);
  g_source_set_callback (run->timeout, on_hook_timeout, run, NULL);
  g_source_attach (run->timeout, g_main_context_get_thread_default ());

  {
    /* The hook may complete at once, which runs the next one and may
     * free @run: hold the completion, not the run. */
    g_autoptr(StwPluginCompletion) completion = g_object_ref (run->current);

    switch (run->point)
      {
      case STW_HOOK_SURFACE_ATTACHED:
        klass->surface_attached (plugin, completion);
        break;
      case STW_HOOK_BEFORE_MAIN:
        klass->before_main (plugin, completion);
        break;
      case STW_HOOK_WORKER_ATTACHED:
        klass->worker_attached (plugin, completion);
        break;
      case STW_HOOK_APP_READY:
      default:
        klass->app_ready (plugin, completion);
        break;
      }
  }
}

void
_stw_hooks_run (StwSessionManager *manager,
                StwHookPoint       point,
                StwSession        *session,
                StwSurface        *surface,
                StwLaunchOptions  *options,
                StwHooksDoneFunc   done,
                gpointer           user_data)
{
  HookRun *run = g_new0 (HookRun, 1);

  run->point = point;
  run->plugins = hooked_plugins (manager, point, &run->dispatcher);
  run->next = run->plugins;
  run->session = session ? g_object_ref (session) : NULL;
  run->surface = surface ? g_object_ref (surface) : NULL;
  run->launch = options ? g_object_ref (options) : NULL;
  if (options != NULL && stw_launch_options_get_plugin_options (options) != NULL)
    run->plugin_options = json_object_ref (stw_launch_options_get_plugin_options (options));
  run->done = done;
  run->user_data = user_data;
  run_next (run);
}

/* --- electron_launch's schema --------------------------------------------- */

static GQuark
base_schema_quark (void)
{
  return g_quark_from_static_string ("stw-hooks-base-schema");
}

/* electron_launch's schema, widened by a `plugins` object with one member
 * per loaded plugin that declares launch options; the core's own when
 * none does. */
void
_stw_plugin_hooks_update_launch_tool (StwDispatcher *dispatcher)
{
  StwTool *launch = stw_dispatcher_lookup_tool (dispatcher, "electron_launch");
  StwSchema *base;
  g_autoptr(JsonObject) members = json_object_new ();
  GList *plugins;
  g_autofree char *base_text = NULL;
  g_autoptr(JsonNode) widened = NULL;
  g_autoptr(StwSchema) schema = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *properties;
  JsonObject *plugins_schema;

  if (launch == NULL)
    return;
  base = g_object_get_qdata (G_OBJECT (launch), base_schema_quark ());
  if (base == NULL)
    {
      g_object_get (launch, "input-schema", &base, NULL);
      if (base == NULL)
        return;
      g_object_set_qdata_full (G_OBJECT (launch), base_schema_quark (), base, (GDestroyNotify) stw_schema_unref);
    }

  plugins = stw_dispatcher_list_plugins (dispatcher);
  for (GList *l = plugins; l != NULL; l = l->next)
    if (stw_plugin_is_loaded (l->data) && stw_plugin_get_launch_schema (l->data) != NULL)
      json_object_set_member (members, stw_tool_provider_get_name (l->data),
                              json_node_copy (stw_schema_get_node (stw_plugin_get_launch_schema (l->data))));
  g_list_free_full (plugins, g_object_unref);

  if (json_object_get_size (members) == 0)
    {
      _stw_tool_set_input_schema (launch, base);
      return;
    }
  /* A deep copy: json_node_copy() shares the objects inside. */
  base_text = json_to_string (stw_schema_get_node (base), FALSE);
  widened = json_from_string (base_text, NULL);
  properties = json_object_get_object_member (json_node_get_object (widened), "properties");
  plugins_schema = json_object_new ();
  json_object_set_string_member (plugins_schema, "type", "object");
  json_object_set_string_member (plugins_schema, "description",
                                 "Launch options of the loaded plugins, one member per plugin.");
  json_object_set_boolean_member (plugins_schema, "additionalProperties", FALSE);
  json_object_set_object_member (plugins_schema, "properties", g_steal_pointer (&members));
  json_object_set_object_member (properties, "plugins", plugins_schema);
  schema = stw_schema_new (widened, &error);
  if (schema == NULL)
    {
      g_message ("electron_launch: the plugins' launch options do not compile: %s", error->message);
      return;
    }
  _stw_tool_set_input_schema (launch, schema);
}
