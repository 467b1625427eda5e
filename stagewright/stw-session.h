/* stw-session.h: driven apps, their windows and surfaces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-dialogs.h"
#include "stw-surface.h"
#include "stw-launch-options.h"
#include "stw-session-info.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_SESSION (stw_session_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwSession, stw_session, STW, SESSION, GObject)

STW_AVAILABLE_IN_1_0
const char *stw_session_get_id (StwSession *self);
STW_AVAILABLE_IN_1_0
const char *stw_session_get_transport_name (StwSession *self);
STW_AVAILABLE_IN_1_0
gboolean stw_session_is_owned (StwSession *self);
STW_AVAILABLE_IN_1_0
gboolean stw_session_is_running (StwSession *self);
STW_AVAILABLE_IN_1_0
gboolean stw_session_has_main_process (StwSession *self);
STW_AVAILABLE_IN_1_0
gboolean stw_session_is_renderer_ready (StwSession *self);
STW_AVAILABLE_IN_1_0
GPid stw_session_get_pid (StwSession *self);
STW_AVAILABLE_IN_1_0
GList *stw_session_list_windows (StwSession *self);
STW_AVAILABLE_IN_1_0
GList *stw_session_list_surfaces (StwSession *self);
STW_AVAILABLE_IN_1_0
GList *stw_session_list_workers (StwSession *self);
STW_AVAILABLE_IN_1_0
StwSurface *stw_session_get_active_window (StwSession *self);
STW_AVAILABLE_IN_1_0
StwSurface *stw_session_get_active_surface (StwSession *self);
STW_AVAILABLE_IN_1_0
StwSurface *stw_session_find_window (StwSession *self,
                                     const char *window_id,
                                     const char *title,
                                     int index,
                                     GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_session_switch_window (StwSession *self,
                                    const char *window_id,
                                    const char *title,
                                    int index,
                                    GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_session_switch_surface (StwSession *self,
                                     const char *surface_id,
                                     GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_refresh_surfaces_async (StwSession *self,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
STW_AVAILABLE_IN_1_0
gboolean stw_session_refresh_surfaces_finish (StwSession *self,
                                              GAsyncResult *result,
                                              GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_session_refresh_surfaces_sync (StwSession *self,
                                            GCancellable *cancellable,
                                            GError **error);
STW_AVAILABLE_IN_1_0
StwCapabilityFlags stw_session_get_capabilities (StwSession *self);
STW_AVAILABLE_IN_1_0
const char *stw_session_get_capability_note (StwSession *self,
                                             StwCapabilityFlags capability);
STW_AVAILABLE_IN_1_0
void stw_session_evaluate_main_async (StwSession *self,
                                      const char *expression,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data);
STW_AVAILABLE_IN_1_0
JsonNode *stw_session_evaluate_main_finish (StwSession *self,
                                            GAsyncResult *result,
                                            GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_evaluate_renderer_async (StwSession *self,
                                          const char *expression,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer user_data);
STW_AVAILABLE_IN_1_0
JsonNode *stw_session_evaluate_renderer_finish (StwSession *self,
                                                GAsyncResult *result,
                                                GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_run_main_async (StwSession *self,
                                 const char *code,
                                 JsonNode *arg,
                                 guint timeout_ms,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data);
STW_AVAILABLE_IN_1_0
JsonNode *stw_session_run_main_finish (StwSession *self,
                                       GAsyncResult *result,
                                       gboolean *serialized,
                                       GError **error);
STW_AVAILABLE_IN_1_0
JsonNode *stw_session_run_main_sync (StwSession *self,
                                     const char *code,
                                     JsonNode *arg,
                                     guint timeout_ms,
                                     gboolean *serialized,
                                     GCancellable *cancellable,
                                     GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_run_renderer_async (StwSession *self,
                                     const char *code,
                                     JsonNode *arg,
                                     guint timeout_ms,
                                     GCancellable *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer user_data);
STW_AVAILABLE_IN_1_0
JsonNode *stw_session_run_renderer_finish (StwSession *self,
                                           GAsyncResult *result,
                                           gboolean *serialized,
                                           GError **error);
STW_AVAILABLE_IN_1_0
JsonNode *stw_session_run_renderer_sync (StwSession *self,
                                         const char *code,
                                         JsonNode *arg,
                                         guint timeout_ms,
                                         gboolean *serialized,
                                         GCancellable *cancellable,
                                         GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_refresh_window_states_async (StwSession *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);
STW_AVAILABLE_IN_1_0
gboolean stw_session_refresh_window_states_finish (StwSession *self,
                                                   GAsyncResult *result,
                                                   GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_session_refresh_window_states_sync (StwSession *self,
                                                 GCancellable *cancellable,
                                                 GError **error);
STW_AVAILABLE_IN_1_0
StwWindowState *stw_session_dup_window_state (StwSession *self,
                                          StwSurface *window);
STW_AVAILABLE_IN_1_0
void stw_session_get_info_async (StwSession *self,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data);
STW_AVAILABLE_IN_1_0
StwAppInfo *stw_session_get_info_finish (StwSession *self,
                                         GAsyncResult *result,
                                         GError **error);
STW_AVAILABLE_IN_1_0
StwAppInfo *stw_session_get_info_sync (StwSession *self,
                                       GCancellable *cancellable,
                                       GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_capture_screenshot_async (StwSession *self,
                                           StwSurface *window,
                                           JsonObject *options,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
STW_AVAILABLE_IN_1_0
StwScreenshot *stw_session_capture_screenshot_finish (StwSession *self,
                                                      GAsyncResult *result,
                                                      GError **error);
STW_AVAILABLE_IN_1_0
StwScreenshot *stw_session_capture_screenshot_sync (StwSession *self,
                                                    StwSurface *window,
                                                    JsonObject *options,
                                                    GCancellable *cancellable,
                                                    GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_stop_async (StwSession *self,
                             guint timeout_ms,
                             GCancellable *cancellable,
                             GAsyncReadyCallback callback,
                             gpointer user_data);
STW_AVAILABLE_IN_1_0
gboolean stw_session_stop_finish (StwSession *self,
                                  GAsyncResult *result,
                                  gboolean *escalated,
                                  GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_session_stop_sync (StwSession *self,
                                guint timeout_ms,
                                gboolean *escalated,
                                GCancellable *cancellable,
                                GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_force_kill (StwSession *self);
STW_AVAILABLE_IN_1_0
gboolean stw_session_detach (StwSession *self,
                             GError **error);

#define STW_TYPE_SESSION_MANAGER (stw_session_manager_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwSessionManager, stw_session_manager, STW, SESSION_MANAGER, GObject)

/**
 * STW_MAX_SESSIONS:
 *
 * The most live sessions a [class@Stagewright.SessionManager] holds at
 * once; launching or attaching another fails with `ALREADY_RUNNING`.
 *
 * Since: 1.0
 */
#define STW_MAX_SESSIONS 16

STW_AVAILABLE_IN_1_0
StwSessionManager *stw_session_manager_new (void);
STW_AVAILABLE_IN_1_0
GList *stw_session_manager_list_sessions (StwSessionManager *self);
STW_AVAILABLE_IN_1_0
StwSession *stw_session_manager_lookup (StwSessionManager *self,
                                        const char *session_id);
STW_AVAILABLE_IN_1_0
StwSession *stw_session_manager_resolve (StwSessionManager *self,
                                         const char *session_id,
                                         GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_manager_set_app_root (StwSessionManager *self,
                                       const char *app_root);
STW_AVAILABLE_IN_1_0
char *stw_session_manager_find_runtime (StwSessionManager *self,
                                        const char *main,
                                        GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_manager_launch_async (StwSessionManager *self,
                                       StwLaunchOptions *options,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data);
STW_AVAILABLE_IN_1_0
StwSession *stw_session_manager_launch_finish (StwSessionManager *self,
                                               GAsyncResult *result,
                                               GError **error);
STW_AVAILABLE_IN_1_0
StwSession *stw_session_manager_launch_sync (StwSessionManager *self,
                                             StwLaunchOptions *options,
                                             GCancellable *cancellable,
                                             GError **error);
STW_AVAILABLE_IN_1_0
StwSession *stw_session_manager_launch_json_sync (StwSessionManager *self,
                                                  const char *options_json,
                                                  GCancellable *cancellable,
                                                  GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_manager_attach_async (StwSessionManager *self,
                                       JsonObject *options,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data);
STW_AVAILABLE_IN_1_0
StwSession *stw_session_manager_attach_finish (StwSessionManager *self,
                                               GAsyncResult *result,
                                               GError **error);
STW_AVAILABLE_IN_1_0
StwSession *stw_session_manager_attach_sync (StwSessionManager *self,
                                             const char *options_json,
                                             GCancellable *cancellable,
                                             GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_manager_inject_async (StwSessionManager *self,
                                       GPid pid,
                                       guint timeout_ms,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data);
STW_AVAILABLE_IN_1_0
StwSession *stw_session_manager_inject_finish (StwSessionManager *self,
                                               GAsyncResult *result,
                                               GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_manager_discover_async (StwSessionManager *self,
                                         const char *host,
                                         const guint *ports,
                                         gsize n_ports,
                                         guint timeout_ms,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
STW_AVAILABLE_IN_1_0
GList *stw_session_manager_discover_finish (StwSessionManager *self,
                                                GAsyncResult *result,
                                                GError **error);
STW_AVAILABLE_IN_1_0
GList *stw_session_manager_discover_sync (StwSessionManager *self,
                                              const char *host,
                                              const guint *ports,
                                              gsize n_ports,
                                              guint timeout_ms,
                                              GCancellable *cancellable,
                                              GError **error);
STW_AVAILABLE_IN_1_0
void stw_session_manager_remove (StwSessionManager *self,
                                 StwSession *session);
STW_AVAILABLE_IN_1_0
void stw_session_manager_stop_all_async (StwSessionManager *self,
                                         guint timeout_ms,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
STW_AVAILABLE_IN_1_0
gboolean stw_session_manager_stop_all_finish (StwSessionManager *self,
                                              GAsyncResult *result,
                                              GError **error);

/* Dialogs: stw-session-dialogs.c. */
STW_AVAILABLE_IN_1_0
gboolean    stw_session_set_dialog_policy          (StwSession    *self,
                                                    JsonObject    *policy,
                                                    GError       **error);
STW_AVAILABLE_IN_1_0
StwDialogPolicy *stw_session_dup_dialog_policy     (StwSession    *self);

STW_AVAILABLE_IN_1_0
void        stw_session_stub_electron_async        (StwSession          *self,
                                                    JsonObject          *stubs,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_session_stub_electron_finish       (StwSession    *self,
                                                    GAsyncResult  *result,
                                                    GError       **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_session_stub_electron_sync         (StwSession    *self,
                                                    JsonObject    *stubs,
                                                    GCancellable  *cancellable,
                                                    GError       **error);

STW_AVAILABLE_IN_1_0
void        stw_session_read_dialog_events_async   (StwSession          *self,
                                                    JsonObject          *filter,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwDialogLog *stw_session_read_dialog_events_finish (StwSession    *self,
                                                    GAsyncResult  *result,
                                                    GError       **error);
STW_AVAILABLE_IN_1_0
StwDialogLog *stw_session_read_dialog_events_sync  (StwSession    *self,
                                                    JsonObject    *filter,
                                                    GCancellable  *cancellable,
                                                    GError       **error);

G_END_DECLS
