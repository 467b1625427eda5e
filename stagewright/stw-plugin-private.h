/* stw-plugin-private.h: what the plugin engine shares inside the library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-plugin.h"

G_BEGIN_DECLS

typedef void (*StwPluginCompletionFunc) (StwPlugin *plugin,
                                         GError    *error,   /* (nullable) (transfer none) */
                                         gpointer   user_data);

StwPluginCompletion *_stw_plugin_completion_new (StwPlugin               *plugin,
                                                 StwDispatcher           *dispatcher,
                                                 JsonObject              *config,
                                                 StwPluginCompletionFunc  func,
                                                 gpointer                 user_data);

void _stw_plugin_completion_set_subject (StwPluginCompletion *self,
                                         StwSession          *session,
                                         StwSurface          *surface,
                                         StwLaunchOptions    *launch,
                                         JsonObject          *launch_options);
/* Forgets whom to tell: a completion that comes too late does nothing. */
void _stw_plugin_completion_disarm      (StwPluginCompletion *self);

/* stw-plugin-hooks.c: lets the dispatcher's session manager run the
 * plugins' hooks; rebuilds electron_launch's schema after a (un)load. */
void _stw_plugin_hooks_install            (StwDispatcher *dispatcher);
void _stw_plugin_hooks_update_launch_tool (StwDispatcher *dispatcher);

/* stw-tool.c */
void _stw_tool_set_input_schema (StwTool   *tool,
                                 StwSchema *schema);

/* ^[a-z][a-z0-9]*$, at most 32 characters; `electron` is the core's. */
gboolean _stw_plugin_name_is_valid   (const char *name);
/* A registry error “Plugin “NAME”: REASON” with details.plugin. */
GError  *_stw_plugin_error_new       (const char *code,
                                      const char *plugin,
                                      const char *reason);
gboolean _stw_plugin_version_accepts (const char  *range,
                                      const char  *version,
                                      GError     **error);
void     _stw_plugin_set_state       (StwPlugin     *self,
                                      StwDispatcher *dispatcher,
                                      JsonObject    *config,
                                      gboolean       loaded);
void     _stw_plugin_call_setup      (StwPlugin           *self,
                                      StwPluginCompletion *completion);
void     _stw_plugin_call_teardown   (StwPlugin           *self,
                                      StwPluginCompletion *completion);

/* stw-tool.c: registers a plugin's tool as <prefix>_<name> (unless it
 * already is) and namespaces the bare codes of @codes it declares. */
void     _stw_tool_qualify           (StwTool    *tool,
                                      const char *prefix,
                                      JsonObject *codes);

/* stw-dispatcher.c: the provider list, the context of blocking calls, and
 * whether a plugin load or unload is under way (stw-plugin-manager.c). */
GPtrArray    *_stw_dispatcher_get_providers     (StwDispatcher *self);
GMainContext *_stw_dispatcher_get_context       (StwDispatcher *self);
gboolean      _stw_dispatcher_get_plugins_busy  (StwDispatcher *self);
void          _stw_dispatcher_set_plugins_busy  (StwDispatcher *self,
                                                 gboolean       busy);

/* stw-plugin-loader.c: a NAME.plugin key file found by name or path, and
 * the plugin its module makes. */
StwPlugin *_stw_plugin_loader_load (const char    *spec,
                                    GMainContext  *context,
                                    GError       **error);

G_END_DECLS
