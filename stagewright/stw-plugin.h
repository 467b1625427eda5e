/* stw-plugin.h: a tool provider loaded at run time, with a lifecycle
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-dispatcher.h"
#include "stw-schema.h"
#include "stw-tool-provider.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

/**
 * STW_PLUGIN_MODULE_ENTRY:
 *
 * The name of the one function a C plugin module exports: a
 * [callback@Stagewright.PluginModuleFunc] that returns the plugin.
 *
 * Since: 1.0
 */
#define STW_PLUGIN_MODULE_ENTRY "stw_plugin_module_create"

#define STW_TYPE_PLUGIN_COMPLETION (stw_plugin_completion_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwPluginCompletion, stw_plugin_completion, STW, PLUGIN_COMPLETION, GObject)

#define STW_TYPE_PLUGIN (stw_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (StwPlugin, stw_plugin, STW, PLUGIN, StwToolProvider)

/**
 * StwPluginClass:
 * @parent_class: the parent class
 * @setup: starts the plugin in a dispatcher; completes @completion, now or
 *   later. The default completes it at once.
 * @teardown: stops the plugin; completes @completion, now or later. The
 *   default completes it at once.
 * @surface_attached: (nullable): the new-surface hook: a window, frame or
 *   webview of a session (launched or attached) appeared, paused before its
 *   first script (`Target.setAutoAttach` with `waitForDebuggerOnStart`).
 *   It is resumed (`Runtime.runIfWaitingForDebugger`) once every loaded
 *   plugin's hook has completed @completion, or after 10 seconds, so a
 *   plugin can enable `Network`/`Fetch` or add a script
 *   (`Page.addScriptToEvaluateOnNewDocument`) before the page's first
 *   request and first script. [method@Stagewright.PluginCompletion.get_surface]
 *   names it. An error is logged; the surface resumes anyway. A surface
 *   that already runs when it is attached (any surface of an attach, or a
 *   window opened before the launch's auto-attach was set) gets the hook
 *   too, without the before-first-script guarantee. When no loaded plugin
 *   has this hook, new targets are not paused at all.
 * @before_main: (nullable): a launch hook, before the app's process
 *   starts (so before its main script): the hook may change the launch
 *   ([method@Stagewright.PluginCompletion.get_launch]), e.g. load its own
 *   module first with [method@Stagewright.LaunchOptions.add_preload] (what
 *   it adds to the arguments and environment is checked as the agent's is,
 *   so `--require` and `NODE_OPTIONS` are refused). An error fails the
 *   launch with the plugin's code.
 * @app_ready: (nullable): a launch hook: the launched app's first window
 *   is ready; `electron_launch` answers once every plugin's hook has
 *   completed. An error fails the launch and stops the app.
 * @worker_attached: (nullable): the new-worker hook: a service worker,
 *   shared worker or dedicated worker of a session attached
 *   ([method@Stagewright.PluginCompletion.get_surface] names it, of kind
 *   %STW_SURFACE_KIND_SERVICE_WORKER, %STW_SURFACE_KIND_SHARED_WORKER or
 *   %STW_SURFACE_KIND_WORKER). A worker is never one of the session's
 *   surfaces (no window, snapshot or ref); it is handed to plugins only
 *   for [method@Stagewright.Surface.send_cdp_async] and
 *   [method@Stagewright.Surface.subscribe_cdp], and is closed and
 *   forgotten when it goes ([method@Stagewright.Session.list_workers]
 *   lists the live ones). A new worker waits before its first script until
 *   every plugin's hook completed (or 10 seconds), as a new surface does;
 *   when no loaded plugin has this hook, workers are not paused.
 *
 * The hooks run one plugin after the other, in load order; each completes
 * its @completion, now or later.
 * The class structure of [class@Stagewright.Plugin].
 *
 * Since: 1.0
 */
struct _StwPluginClass
{
  StwToolProviderClass parent_class;

  void (*setup)    (StwPlugin           *self,
                    StwPluginCompletion *completion);
  void (*teardown) (StwPlugin           *self,
                    StwPluginCompletion *completion);
  void (*surface_attached) (StwPlugin           *self,
                            StwPluginCompletion *completion);
  void (*before_main)      (StwPlugin           *self,
                            StwPluginCompletion *completion);
  void (*app_ready)        (StwPlugin           *self,
                            StwPluginCompletion *completion);
  void (*worker_attached)  (StwPlugin           *self,
                            StwPluginCompletion *completion);

  /*< private >*/
  gpointer _reserved[4];
};

/**
 * StwPluginModuleFunc:
 *
 * The signature of the entry point a C plugin module exports under the
 * name %STW_PLUGIN_MODULE_ENTRY.
 *
 * Returns: (transfer full): a new [class@Stagewright.Plugin]
 *
 * Since: 1.0
 */
typedef StwPlugin *(*StwPluginModuleFunc) (void);

STW_AVAILABLE_IN_1_0
const char *stw_plugin_get_version (StwPlugin *self);
STW_AVAILABLE_IN_1_0
const char *stw_plugin_get_core_versions (StwPlugin *self);
STW_AVAILABLE_IN_1_0
const char *stw_plugin_get_description (StwPlugin *self);
STW_AVAILABLE_IN_1_0
const char *stw_plugin_get_language (StwPlugin *self);
STW_AVAILABLE_IN_1_0
StwSchema *stw_plugin_get_config_schema (StwPlugin *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_plugin_get_config (StwPlugin *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_plugin_dup_effective_config (StwPlugin *self);
STW_AVAILABLE_IN_1_0
StwDispatcher *stw_plugin_get_dispatcher (StwPlugin *self);
STW_AVAILABLE_IN_1_0
gboolean stw_plugin_is_loaded (StwPlugin *self);
STW_AVAILABLE_IN_1_0
void stw_plugin_set_launch_schema (StwPlugin *self,
                                   StwSchema *schema);
STW_AVAILABLE_IN_1_0
StwSchema *stw_plugin_get_launch_schema (StwPlugin *self);
STW_AVAILABLE_IN_1_0
gboolean stw_plugin_accepts_core_version (StwPlugin *self,
                                          const char *version,
                                          GError **error);
STW_AVAILABLE_IN_1_0
const char *stw_plugin_get_core_version (void);

STW_AVAILABLE_IN_1_0
StwPlugin *stw_plugin_completion_get_plugin (StwPluginCompletion *self);
STW_AVAILABLE_IN_1_0
StwDispatcher *stw_plugin_completion_get_dispatcher (StwPluginCompletion *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_plugin_completion_get_config (StwPluginCompletion *self);
STW_AVAILABLE_IN_1_0
StwSession *stw_plugin_completion_get_session (StwPluginCompletion *self);
STW_AVAILABLE_IN_1_0
StwSurface *stw_plugin_completion_get_surface (StwPluginCompletion *self);
STW_AVAILABLE_IN_1_0
StwLaunchOptions *stw_plugin_completion_get_launch (StwPluginCompletion *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_plugin_completion_get_launch_options (StwPluginCompletion *self);
STW_AVAILABLE_IN_1_0
void stw_plugin_completion_return_success (StwPluginCompletion *self);
STW_AVAILABLE_IN_1_0
void stw_plugin_completion_return_error (StwPluginCompletion *self,
                                         const GError *error);
STW_AVAILABLE_IN_1_0
void stw_plugin_completion_return_error_literal (StwPluginCompletion *self,
                                                 const char *message);
STW_AVAILABLE_IN_1_0
gboolean stw_plugin_completion_is_completed (StwPluginCompletion *self);

STW_AVAILABLE_IN_1_0
void stw_dispatcher_load_plugins_async (StwDispatcher *self,
                                        const char * const *plugins,
                                        JsonObject *configs,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
STW_AVAILABLE_IN_1_0
GList *stw_dispatcher_load_plugins_finish (StwDispatcher *self,
                                           GAsyncResult *result,
                                           GError **error);
STW_AVAILABLE_IN_1_0
GList *stw_dispatcher_load_plugins_sync (StwDispatcher *self,
                                         const char * const *plugins,
                                         JsonObject *configs,
                                         GCancellable *cancellable,
                                         GError **error);
STW_AVAILABLE_IN_1_0
void stw_dispatcher_add_plugins_async (StwDispatcher *self,
                                       GList *plugins,
                                       JsonObject *configs,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_add_plugins_finish (StwDispatcher *self,
                                            GAsyncResult *result,
                                            GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_add_plugins_sync (StwDispatcher *self,
                                          GList *plugins,
                                          JsonObject *configs,
                                          GCancellable *cancellable,
                                          GError **error);
STW_AVAILABLE_IN_1_0
void stw_dispatcher_unload_plugins_async (StwDispatcher *self,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer user_data);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_unload_plugins_finish (StwDispatcher *self,
                                               GAsyncResult *result,
                                               GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_dispatcher_unload_plugins_sync (StwDispatcher *self,
                                             GCancellable *cancellable,
                                             GError **error);
STW_AVAILABLE_IN_1_0
GList *stw_dispatcher_list_plugins (StwDispatcher *self);
STW_AVAILABLE_IN_1_0
StwPlugin *stw_dispatcher_lookup_plugin (StwDispatcher *self,
                                         const char *name);

G_END_DECLS
