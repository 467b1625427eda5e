/* stw-native.h: the native plugin's API — the app's menus, trays and
 * notifications
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * StwNativeError:
 * @STW_NATIVE_ERROR_UNSUPPORTED: the session has no main process to reach, or the item has no
 *   click
 * @STW_NATIVE_ERROR_ALREADY_CAPTURING: notifications are being captured already
 * @STW_NATIVE_ERROR_NOT_CAPTURING: notifications are not being captured
 * @STW_NATIVE_ERROR_NOT_INSTRUMENTED: a start-up tray was asked about without `instrumentNative`
 * @STW_NATIVE_ERROR_ITEM_DISABLED: the menu item (or a menu above it) is disabled or invisible;
 *   its handler did not run
 * @STW_NATIVE_ERROR_NOT_FOUND: no such menu, item, tray or captured notification
 *
 * The codes of the native plugin, in its error domain %STW_NATIVE_ERROR, in
 * the order the plugin registers them. Each value is a wire code:
 * %STW_NATIVE_ERROR_UNSUPPORTED is `native.UNSUPPORTED`, and
 * stw_error_get_code_name() answers it, also for an error a language binding
 * handed back.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_NATIVE_ERROR_UNSUPPORTED,
  STW_NATIVE_ERROR_ALREADY_CAPTURING,
  STW_NATIVE_ERROR_NOT_CAPTURING,
  STW_NATIVE_ERROR_NOT_INSTRUMENTED,
  STW_NATIVE_ERROR_ITEM_DISABLED,
  STW_NATIVE_ERROR_NOT_FOUND,
} StwNativeError;

/**
 * STW_NATIVE_ERROR:
 *
 * The error domain of the native plugin: its codes are
 * [enum@StagewrightNative.NativeError].
 *
 * Since: 1.0
 */
#define STW_NATIVE_ERROR (stw_native_error_quark ())
STW_AVAILABLE_IN_1_0
GQuark stw_native_error_quark (void);

#define STW_TYPE_NATIVE_ERROR (stw_native_error_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_native_error_get_type (void);

/**
 * StwNativeTrayAction:
 * @STW_NATIVE_TRAY_ACTION_CLICK: emit the tray's `click`
 * @STW_NATIVE_TRAY_ACTION_MENU: use its context menu
 *
 * What [method@StagewrightNative.NativePlugin.tray_invoke_async] does.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_NATIVE_TRAY_ACTION_CLICK,
  STW_NATIVE_TRAY_ACTION_MENU,
} StwNativeTrayAction;

/**
 * StwNativeNotificationAction:
 * @STW_NATIVE_NOTIFICATION_ACTION_CLICK: click it (its `click` listeners run)
 * @STW_NATIVE_NOTIFICATION_ACTION_CLOSE: close it
 *
 * What [method@StagewrightNative.NativePlugin.notification_invoke_async] does.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_NATIVE_NOTIFICATION_ACTION_CLICK,
  STW_NATIVE_NOTIFICATION_ACTION_CLOSE,
} StwNativeNotificationAction;

/**
 * STW_NATIVE_APPLICATION_MENU:
 *
 * The menu argument naming the application menu rather than a tray's
 * (-1: bindings pass the number).
 *
 * Since: 1.0
 */
#define STW_NATIVE_APPLICATION_MENU (-1)

#define STW_TYPE_NATIVE_MENU_ITEM (stw_native_menu_item_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwNativeMenuItem, stw_native_menu_item, STW, NATIVE_MENU_ITEM, GObject)

#define STW_TYPE_NATIVE_TRAY (stw_native_tray_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwNativeTray, stw_native_tray, STW, NATIVE_TRAY, GObject)

#define STW_TYPE_NATIVE_NOTIFICATION (stw_native_notification_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwNativeNotification, stw_native_notification, STW, NATIVE_NOTIFICATION, GObject)

#define STW_TYPE_NATIVE_PLUGIN (stw_native_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwNativePlugin, stw_native_plugin, STW, NATIVE_PLUGIN, StwPlugin)

STW_AVAILABLE_IN_1_0
const char         *stw_native_menu_item_get_label       (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
const char         *stw_native_menu_item_get_role        (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
const char         *stw_native_menu_item_get_item_type   (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_native_menu_item_get_enabled     (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_native_menu_item_get_visible     (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_native_menu_item_get_checked     (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
const char         *stw_native_menu_item_get_accelerator (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
const char         *stw_native_menu_item_get_id          (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
const char * const *stw_native_menu_item_get_path        (StwNativeMenuItem *self);
STW_AVAILABLE_IN_1_0
GListModel         *stw_native_menu_item_get_submenu     (StwNativeMenuItem *self);

STW_AVAILABLE_IN_1_0
guint               stw_native_tray_get_index            (StwNativeTray *self);
STW_AVAILABLE_IN_1_0
const char         *stw_native_tray_get_tool_tip         (StwNativeTray *self);
STW_AVAILABLE_IN_1_0
const char         *stw_native_tray_get_title            (StwNativeTray *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_native_tray_get_has_context_menu (StwNativeTray *self);
STW_AVAILABLE_IN_1_0
GListModel         *stw_native_tray_get_menu             (StwNativeTray *self);

STW_AVAILABLE_IN_1_0
guint               stw_native_notification_get_index    (StwNativeNotification *self);
STW_AVAILABLE_IN_1_0
const char         *stw_native_notification_get_title    (StwNativeNotification *self);
STW_AVAILABLE_IN_1_0
const char         *stw_native_notification_get_body     (StwNativeNotification *self);
STW_AVAILABLE_IN_1_0
double              stw_native_notification_get_time     (StwNativeNotification *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_native_notification_get_shown    (StwNativeNotification *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_native_notification_get_clicked  (StwNativeNotification *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_native_notification_get_closed   (StwNativeNotification *self);

STW_AVAILABLE_IN_1_0
StwNativePlugin    *stw_native_plugin_new                (void);

STW_AVAILABLE_IN_1_0
void        stw_native_plugin_menu_async                 (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          int                  menu,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
GListModel *stw_native_plugin_menu_finish                (StwNativePlugin  *self,
                                                          GAsyncResult     *result,
                                                          GError          **error);
STW_AVAILABLE_IN_1_0
GListModel *stw_native_plugin_menu_sync                  (StwNativePlugin  *self,
                                                          StwSession       *session,
                                                          int               menu,
                                                          GCancellable     *cancellable,
                                                          GError          **error);

STW_AVAILABLE_IN_1_0
void               stw_native_plugin_menu_item_async (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          int                  menu,
                                                          const char * const  *path,
                                                          const char          *id,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwNativeMenuItem *stw_native_plugin_menu_item_finish(StwNativePlugin  *self,
                                                          GAsyncResult     *result,
                                                          GError          **error);
STW_AVAILABLE_IN_1_0
StwNativeMenuItem *stw_native_plugin_menu_item_sync  (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          int                  menu,
                                                          const char * const  *path,
                                                          const char          *id,
                                                          GCancellable        *cancellable,
                                                          GError             **error);

STW_AVAILABLE_IN_1_0
void               stw_native_plugin_menu_invoke_async(StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          int                  menu,
                                                          const char * const  *path,
                                                          const char          *id,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwNativeMenuItem *stw_native_plugin_menu_invoke_finish(StwNativePlugin  *self,
                                                          GAsyncResult     *result,
                                                          GError          **error);
STW_AVAILABLE_IN_1_0
StwNativeMenuItem *stw_native_plugin_menu_invoke_sync(StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          int                  menu,
                                                          const char * const  *path,
                                                          const char          *id,
                                                          GCancellable        *cancellable,
                                                          GError             **error);

STW_AVAILABLE_IN_1_0
void        stw_native_plugin_trays_async                (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
GListModel *stw_native_plugin_trays_finish               (StwNativePlugin  *self,
                                                          GAsyncResult     *result,
                                                          GError          **error);
STW_AVAILABLE_IN_1_0
GListModel *stw_native_plugin_trays_sync                 (StwNativePlugin  *self,
                                                          StwSession       *session,
                                                          GCancellable     *cancellable,
                                                          GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_native_plugin_tray_invoke_async          (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          guint                index,
                                                          StwNativeTrayAction  action,
                                                          const char * const  *path,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_native_plugin_tray_invoke_finish         (StwNativePlugin  *self,
                                                          GAsyncResult     *result,
                                                          GError          **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_native_plugin_tray_invoke_sync           (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          guint                index,
                                                          StwNativeTrayAction  action,
                                                          const char * const  *path,
                                                          GCancellable        *cancellable,
                                                          GError             **error);

STW_AVAILABLE_IN_1_0
void        stw_native_plugin_notifications_start_async  (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_native_plugin_notifications_start_finish (StwNativePlugin  *self,
                                                          GAsyncResult     *result,
                                                          GError          **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_native_plugin_notifications_start_sync   (StwNativePlugin  *self,
                                                          StwSession       *session,
                                                          GCancellable     *cancellable,
                                                          GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_native_plugin_notifications_async        (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          int                  limit,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
GListModel *stw_native_plugin_notifications_finish       (StwNativePlugin  *self,
                                                          GAsyncResult     *result,
                                                          GError          **error);
STW_AVAILABLE_IN_1_0
GListModel *stw_native_plugin_notifications_sync         (StwNativePlugin  *self,
                                                          StwSession       *session,
                                                          int               limit,
                                                          GCancellable     *cancellable,
                                                          GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_native_plugin_notifications_stop_async   (StwNativePlugin     *self,
                                                          StwSession          *session,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_native_plugin_notifications_stop_finish  (StwNativePlugin  *self,
                                                          GAsyncResult     *result,
                                                          GError          **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_native_plugin_notifications_stop_sync    (StwNativePlugin  *self,
                                                          StwSession       *session,
                                                          GCancellable     *cancellable,
                                                          GError          **error);

STW_AVAILABLE_IN_1_0
void                   stw_native_plugin_notification_invoke_async  (StwNativePlugin             *self,
                                                                     StwSession                  *session,
                                                                     guint                        index,
                                                                     StwNativeNotificationAction  action,
                                                                     GCancellable                *cancellable,
                                                                     GAsyncReadyCallback          callback,
                                                                     gpointer                     user_data);
STW_AVAILABLE_IN_1_0
StwNativeNotification *stw_native_plugin_notification_invoke_finish (StwNativePlugin  *self,
                                                                     GAsyncResult     *result,
                                                                     GError          **error);
STW_AVAILABLE_IN_1_0
StwNativeNotification *stw_native_plugin_notification_invoke_sync   (StwNativePlugin             *self,
                                                                     StwSession                  *session,
                                                                     guint                        index,
                                                                     StwNativeNotificationAction  action,
                                                                     GCancellable                *cancellable,
                                                                     GError                     **error);

G_END_DECLS
