/* stw-session-info.h: what a session knows of its app — its windows'
 * states and the app's own information
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "stw-element-ref.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_WINDOW_STATE (stw_window_state_get_type ())
#define STW_TYPE_APP_INFO     (stw_app_info_get_type ())

/**
 * StwWindowState:
 *
 * What the main process said of a window: Electron's id for it, whether it
 * is shown, focused, minimized, maximized or full screen, and its bounds.
 * See [method@Stagewright.Session.dup_window_state].
 *
 * Since: 1.0
 */
typedef struct _StwWindowState StwWindowState;

STW_AVAILABLE_IN_1_0
GType           stw_window_state_get_type        (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwWindowState *stw_window_state_copy            (const StwWindowState *self);
STW_AVAILABLE_IN_1_0
void            stw_window_state_free            (StwWindowState       *self);
STW_AVAILABLE_IN_1_0
gint64          stw_window_state_get_electron_id (const StwWindowState *self);
STW_AVAILABLE_IN_1_0
gboolean        stw_window_state_is_visible      (const StwWindowState *self);
STW_AVAILABLE_IN_1_0
gboolean        stw_window_state_is_focused      (const StwWindowState *self);
STW_AVAILABLE_IN_1_0
gboolean        stw_window_state_is_minimized    (const StwWindowState *self);
STW_AVAILABLE_IN_1_0
gboolean        stw_window_state_is_maximized    (const StwWindowState *self);
STW_AVAILABLE_IN_1_0
gboolean        stw_window_state_is_fullscreen   (const StwWindowState *self);
STW_AVAILABLE_IN_1_0
const StwBox   *stw_window_state_get_bounds      (const StwWindowState *self);

/**
 * StwAppInfo:
 *
 * What the app said of itself: the versions of Electron, Node, Chromium
 * and V8, the DevTools protocol version, and, when the session reaches an
 * Electron main process, the app's name, version and paths. A field the
 * app could not give is %NULL and [method@Stagewright.AppInfo.get_note]
 * says why. See [method@Stagewright.Session.get_info_async].
 *
 * Since: 1.0
 */
typedef struct _StwAppInfo StwAppInfo;

STW_AVAILABLE_IN_1_0
GType       stw_app_info_get_type               (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwAppInfo *stw_app_info_ref                    (StwAppInfo       *self);
STW_AVAILABLE_IN_1_0
void        stw_app_info_unref                  (StwAppInfo       *self);
STW_AVAILABLE_IN_1_0
const char *stw_app_info_get_version            (const StwAppInfo *self,
                                                 const char       *component);
STW_AVAILABLE_IN_1_0
const char *stw_app_info_get_protocol_version   (const StwAppInfo *self);
STW_AVAILABLE_IN_1_0
gboolean    stw_app_info_has_app                (const StwAppInfo *self);
STW_AVAILABLE_IN_1_0
const char *stw_app_info_get_app_name           (const StwAppInfo *self);
STW_AVAILABLE_IN_1_0
const char *stw_app_info_get_app_version        (const StwAppInfo *self);
STW_AVAILABLE_IN_1_0
const char *stw_app_info_get_app_path           (const StwAppInfo *self);
STW_AVAILABLE_IN_1_0
const char *stw_app_info_get_exe_path           (const StwAppInfo *self);
STW_AVAILABLE_IN_1_0
const char *stw_app_info_get_user_data_path     (const StwAppInfo *self);
STW_AVAILABLE_IN_1_0
gboolean    stw_app_info_is_packaged            (const StwAppInfo *self);
STW_AVAILABLE_IN_1_0
const char *stw_app_info_get_note               (const StwAppInfo *self,
                                                 const char       *field);

#define STW_TYPE_DISCOVERED_APP (stw_discovered_app_get_type ())

/**
 * StwDiscoveredApp:
 *
 * A DevTools endpoint found on a loopback port by
 * [method@Stagewright.SessionManager.discover_async]: its browser
 * WebSocket URL, the port, the browser's name and the process listening.
 *
 * Since: 1.0
 */
typedef struct _StwDiscoveredApp StwDiscoveredApp;

STW_AVAILABLE_IN_1_0
GType             stw_discovered_app_get_type          (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwDiscoveredApp *stw_discovered_app_new               (const char             *websocket_url,
                                                        guint                   port,
                                                        const char             *app_name,
                                                        GPid                    pid);
STW_AVAILABLE_IN_1_0
StwDiscoveredApp *stw_discovered_app_copy              (const StwDiscoveredApp *self);
STW_AVAILABLE_IN_1_0
void              stw_discovered_app_free              (StwDiscoveredApp       *self);
STW_AVAILABLE_IN_1_0
const char       *stw_discovered_app_get_websocket_url (const StwDiscoveredApp *self);
STW_AVAILABLE_IN_1_0
guint             stw_discovered_app_get_port          (const StwDiscoveredApp *self);
STW_AVAILABLE_IN_1_0
const char       *stw_discovered_app_get_app_name      (const StwDiscoveredApp *self);
STW_AVAILABLE_IN_1_0
GPid              stw_discovered_app_get_pid           (const StwDiscoveredApp *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwDiscoveredApp, stw_discovered_app_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwWindowState, stw_window_state_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwAppInfo, stw_app_info_unref)

G_END_DECLS
