/* stw-launch-options.h: what to launch, and how
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_LAUNCH_OPTIONS (stw_launch_options_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwLaunchOptions, stw_launch_options, STW, LAUNCH_OPTIONS, GObject)

STW_AVAILABLE_IN_1_0
StwLaunchOptions *stw_launch_options_new (void);
STW_AVAILABLE_IN_1_0
StwLaunchOptions *stw_launch_options_new_from_json (const char *json,
                                                    GError **error);
STW_AVAILABLE_IN_1_0
StwLaunchOptions *stw_launch_options_new_from_json_object (JsonObject *object,
                                                           GError **error);

STW_AVAILABLE_IN_1_0
const char *stw_launch_options_get_executable_path (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_executable_path (StwLaunchOptions *self,
                                             const char *executable_path);
STW_AVAILABLE_IN_1_0
const char *stw_launch_options_get_main (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_main (StwLaunchOptions *self,
                                  const char *main);
STW_AVAILABLE_IN_1_0
const char * const *stw_launch_options_get_args (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_args (StwLaunchOptions *self,
                                  const char * const *args);
STW_AVAILABLE_IN_1_0
char **stw_launch_options_dup_env (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_env (StwLaunchOptions *self,
                                 const char * const *env);
STW_AVAILABLE_IN_1_0
void stw_launch_options_setenv (StwLaunchOptions *self,
                                const char *key,
                                const char *value);
STW_AVAILABLE_IN_1_0
const char *stw_launch_options_get_cwd (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_cwd (StwLaunchOptions *self,
                                 const char *cwd);
STW_AVAILABLE_IN_1_0
guint stw_launch_options_get_timeout (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_timeout (StwLaunchOptions *self,
                                     guint timeout_ms);
STW_AVAILABLE_IN_1_0
guint stw_launch_options_get_ready_timeout (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_ready_timeout (StwLaunchOptions *self,
                                           guint ready_timeout_ms);
STW_AVAILABLE_IN_1_0
gboolean stw_launch_options_get_allow_multiple (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_allow_multiple (StwLaunchOptions *self,
                                            gboolean allow_multiple);
STW_AVAILABLE_IN_1_0
const char *stw_launch_options_get_runtime (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_runtime (StwLaunchOptions *self,
                                     const char *runtime);
STW_AVAILABLE_IN_1_0
const char *stw_launch_options_get_credential_store (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_credential_store (StwLaunchOptions *self,
                                              const char *credential_store);
STW_AVAILABLE_IN_1_0
JsonObject *stw_launch_options_get_plugin_options (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_plugin_options (StwLaunchOptions *self,
                                            JsonObject *plugin_options);
STW_AVAILABLE_IN_1_0
void stw_launch_options_add_preload (StwLaunchOptions *self,
                                     const char       *path);
STW_AVAILABLE_IN_1_0
const char * const *stw_launch_options_get_preloads (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
gboolean stw_launch_options_get_pipe (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
void stw_launch_options_set_pipe (StwLaunchOptions *self,
                                  gboolean pipe);

STW_AVAILABLE_IN_1_0
const char *stw_launch_options_get_runtime_source (StwLaunchOptions *self);
STW_AVAILABLE_IN_1_0
const char *stw_launch_options_get_launch_mode (StwLaunchOptions *self);

G_END_DECLS
