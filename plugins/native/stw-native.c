/* stw-native.c: the native plugin's API — application menu, trays,
 * notifications
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 19's native plugin. Every call runs the plugin's own JavaScript
 * (js/hooks.js and js/ops.js, a GResource) in the app's main process
 * through its Node inspector, the way the core's main-process evaluation
 * does; the caller's arguments reach it only as JSON data. That is not
 * agent eval, so the calls do not need --allow-eval=main (see
 * docs/reference/plugin-native.md, "Safety"). The tools (native-tools.c)
 * are thin adapters over the calls here.
 *
 * Electron has no getter for a tray's tooltip or context menu, so trays
 * are seen through a hook that records them as they are set. The hook is
 * installed over the inspector on the plugin's first call, which sees
 * only what the app sets from then on; the `instrumentNative` launch
 * option (plugins.native.instrumentNative) installs it before the app's
 * main script instead: the before-main hook writes it from the GResource
 * into the plugin's private directory (mode 0700) and adds it as a `-r`
 * preload, which Electron honours only with an app path. Without `main`
 * the option is refused with BAD_ARGUMENT, as the reference refuses it.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "stw-native-private.h"
#include "stw-native-types-private.h"

/**
 * StwNativePlugin:
 *
 * The native plugin: `--plugin native` loads it into the server; a C,
 * Python or JavaScript host makes one with
 * [ctor@StagewrightNative.NativePlugin.new] and adds it to its dispatcher.
 * It needs no eval policy: only its own code runs in the main process.
 *
 * Since: 1.0
 */
struct _StwNativePlugin
{
  StwPlugin  parent_instance;
  char      *hooks;         /* js/hooks.js */
  char      *ops;           /* js/ops.js */
  char      *private_dir;   /* made on the first instrumented launch */
  char      *preload;       /* <private_dir>/native-preload.js */
};

G_DEFINE_ENUM_TYPE (StwNativeError, stw_native_error,
                    G_DEFINE_ENUM_VALUE (STW_NATIVE_ERROR_UNSUPPORTED, "unsupported"),
                    G_DEFINE_ENUM_VALUE (STW_NATIVE_ERROR_ALREADY_CAPTURING, "already-capturing"),
                    G_DEFINE_ENUM_VALUE (STW_NATIVE_ERROR_NOT_CAPTURING, "not-capturing"),
                    G_DEFINE_ENUM_VALUE (STW_NATIVE_ERROR_NOT_INSTRUMENTED, "not-instrumented"),
                    G_DEFINE_ENUM_VALUE (STW_NATIVE_ERROR_ITEM_DISABLED, "item-disabled"),
                    G_DEFINE_ENUM_VALUE (STW_NATIVE_ERROR_NOT_FOUND, "not-found"))

/**
 * stw_native_error_quark:
 *
 * The error domain of the native plugin, `stw-native-error-quark`, registered
 * with stw_error_register_domain() so that stw_error_new() makes its codes
 * in it.
 *
 * Returns: %STW_NATIVE_ERROR
 *
 * Since: 1.0
 */
GQuark
stw_native_error_quark (void)
{
  return stw_error_register_domain ("native", STW_TYPE_NATIVE_ERROR);
}

G_DEFINE_FINAL_TYPE (StwNativePlugin, stw_native_plugin, STW_TYPE_PLUGIN)

static char *
load_script (const char *name)
{
  g_autofree char *path = g_strconcat ("/org/stagewright/plugins/native/", name, NULL);
  /* The library registers its resources when it is loaded
   * (glib-compile-resources' constructor); it is never unloaded. */
  g_autoptr(GBytes) bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

  g_assert (bytes != NULL);
  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

/* --- a call in the main process ------------------------------------------ */

static void
on_evaluated (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = stw_session_evaluate_main_finish (STW_SESSION (object), result, &error);
  JsonObject *reply;

  if (answer == NULL)
    {
      if (g_error_matches (error, STW_ERROR, STW_ERROR_TRANSPORT_UNSUPPORTED))
        g_task_return_error (task, stw_error_new ("native.UNSUPPORTED",
                                                  "The app's main process cannot be reached: %s",
                                                  error->message));
      else
        g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (answer))
    {
      g_task_return_error (task, stw_error_new_literal ("INTERNAL_ERROR", "The native hook answered no object"));
      return;
    }
  reply = json_node_get_object (answer);
  if (json_object_has_member (reply, "error"))
    {
      JsonObject *failure = json_object_get_object_member (reply, "error");
      g_autofree char *code = g_strconcat ("native.", json_object_get_string_member (failure, "code"), NULL);

      g_task_return_error (task, stw_error_new (code, "%s", json_object_get_string_member (failure, "message")));
      return;
    }
  /* The answer's wire form stays with the task for the tools. */
  g_task_set_task_data (task, json_object_ref (json_object_get_object_member (reply, "value")),
                        (GDestroyNotify) json_object_unref);
  g_task_return_boolean (task, TRUE);
}

/* Runs js/ops.js's @op with @args (consumed) in @session's main process,
 * the hook first (a no-op once installed). */
static void
native_call (StwNativePlugin     *self,
             StwSession          *session,
             const char          *op,
             JsonObject          *args,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data,
             gpointer             source_tag)
{
  g_autoptr(JsonObject) owned = args;
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), owned);
  g_autofree char *json = json_to_string (node, FALSE);
  g_autofree char *expression = NULL;

  g_task_set_source_tag (task, source_tag);
  expression = g_strdup_printf ("(() => {\n"
                                "const electron = require('electron');\n"
                                "const state = (%s\n)(electron, false);\n"
                                "return (%s\n)(electron, state, '%s', %s);\n"
                                "})()",
                                self->hooks, self->ops, op, json);
  stw_session_evaluate_main_async (session, expression, cancellable, on_evaluated, g_steal_pointer (&task));
}

/* The call's answer (transfer none), or NULL with @error set. */
static JsonObject *
native_finish (StwNativePlugin  *self,
               GAsyncResult     *result,
               gpointer          source_tag,
               GError          **error)
{
  g_return_val_if_fail (STW_IS_NATIVE_PLUGIN (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  return g_task_get_task_data (G_TASK (result));
}

JsonObject *
_stw_native_plugin_get_answer (GAsyncResult *result)
{
  return g_task_get_task_data (G_TASK (result));
}

static JsonObject *
menu_args (int                 menu,
           const char * const *path,
           const char         *id)
{
  JsonObject *args = json_object_new ();

  if (menu >= 0)
    json_object_set_int_member (args, "menu", menu);
  if (path != NULL)
    {
      JsonArray *segments = json_array_new ();

      for (guint i = 0; path[i] != NULL; i++)
        json_array_add_string_element (segments, path[i]);
      json_object_set_array_member (args, "path", segments);
    }
  if (id != NULL)
    json_object_set_string_member (args, "id", id);
  return args;
}

static gpointer
view_new (GType       type,
          JsonObject *json)
{
  gpointer view = g_object_new (type, NULL);

  _stw_native_view_set (view, json);
  return view;
}

static GListModel *
list_member (GType       type,
             JsonObject *answer,
             const char *member)
{
  JsonNode *node = json_object_get_member (answer, member);

  return _stw_native_list_new (type, node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL);
}

/**
 * stw_native_plugin_menu_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @menu: %STW_NATIVE_APPLICATION_MENU, or a tray's index for its context menu
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the menu
 * @user_data: data for @callback
 *
 * Reads a menu as a tree. A tray index that names no tray is
 * `native.NOT_FOUND`; trays made before the plugin's first call are seen
 * only with the launch option `instrumentNative` (`native.NOT_INSTRUMENTED`).
 *
 * Since: 1.0
 */
void
stw_native_plugin_menu_async (StwNativePlugin     *self,
                              StwSession          *session,
                              int                  menu,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  native_call (self, session, "menu", menu_args (menu, NULL, NULL), cancellable, callback, user_data,
               stw_native_plugin_menu_async);
}

/**
 * stw_native_plugin_menu_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the menu's top-level items, each a
 *   #StwNativeMenuItem (empty when there is no such menu)
 *
 * Since: 1.0
 */
GListModel *
stw_native_plugin_menu_finish (StwNativePlugin  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_menu_async, error);

  return answer ? list_member (STW_TYPE_NATIVE_MENU_ITEM, answer, "items") : NULL;
}

/**
 * stw_native_plugin_menu_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @menu: %STW_NATIVE_APPLICATION_MENU, or a tray's index
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.menu_async].
 *
 * Returns: (transfer full): as [method@StagewrightNative.NativePlugin.menu_finish]
 *
 * Since: 1.0
 */
GListModel *
stw_native_plugin_menu_sync (StwNativePlugin  *self,
                             StwSession       *session,
                             int               menu,
                             GCancellable     *cancellable,
                             GError          **error)
{
  StwSyncCall call;
  GListModel *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_native_plugin_menu_async (self, session, menu, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_menu_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_native_plugin_menu_item_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @menu: %STW_NATIVE_APPLICATION_MENU, or a tray's index
 * @path: (array zero-terminated=1) (nullable): the labels (or roles) from
 *   the top of the menu, e.g. `File`, `Export…`
 * @id: (nullable): the item's id, when @path is %NULL
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the item
 * @user_data: data for @callback
 *
 * Reads one item of a menu, by @path or by @id. No such item is `native.NOT_FOUND`.
 *
 * Since: 1.0
 */
void
stw_native_plugin_menu_item_async (StwNativePlugin     *self,
                                    StwSession          *session,
                                    int                  menu,
                                    const char * const  *path,
                                    const char          *id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail ((path != NULL && path[0] != NULL) != (id != NULL));

  native_call (self, session, "menu_item", menu_args (menu, path, id), cancellable, callback, user_data,
               stw_native_plugin_menu_item_async);
}

/**
 * stw_native_plugin_menu_item_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the item
 *
 * Since: 1.0
 */
StwNativeMenuItem *
stw_native_plugin_menu_item_finish (StwNativePlugin  *self,
                                     GAsyncResult     *result,
                                     GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_menu_item_async, error);

  return answer ? view_new (STW_TYPE_NATIVE_MENU_ITEM, json_object_get_object_member (answer, "item")) : NULL;
}

/**
 * stw_native_plugin_menu_item_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @menu: %STW_NATIVE_APPLICATION_MENU, or a tray's index
 * @path: (array zero-terminated=1) (nullable): the labels (or roles) from
 *   the top of the menu
 * @id: (nullable): the item's id, when @path is %NULL
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.menu_item_async].
 *
 * Returns: (transfer full): as [method@StagewrightNative.NativePlugin.menu_item_finish]
 *
 * Since: 1.0
 */
StwNativeMenuItem *
stw_native_plugin_menu_item_sync (StwNativePlugin     *self,
                                   StwSession          *session,
                                   int                  menu,
                                   const char * const  *path,
                                   const char          *id,
                                   GCancellable        *cancellable,
                                   GError             **error)
{
  StwSyncCall call;
  StwNativeMenuItem *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_native_plugin_menu_item_async (self, session, menu, path, id, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_menu_item_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_native_plugin_menu_invoke_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @menu: %STW_NATIVE_APPLICATION_MENU, or a tray's index
 * @path: (array zero-terminated=1) (nullable): the labels (or roles) from
 *   the top of the menu, e.g. `File`, `Export…`
 * @id: (nullable): the item's id, when @path is %NULL
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the item
 * @user_data: data for @callback
 *
 * Clicks one item of a menu as the user would, by @path or by @id: a
 * checkbox toggles, a radio item is checked, then the app's click handler
 * runs. A disabled or invisible item (or one under a disabled or
 * invisible submenu) is refused with `native.ITEM_DISABLED` and its
 * handler does not run. No such item is `native.NOT_FOUND`.
 *
 * Since: 1.0
 */
void
stw_native_plugin_menu_invoke_async (StwNativePlugin     *self,
                                      StwSession          *session,
                                      int                  menu,
                                      const char * const  *path,
                                      const char          *id,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail ((path != NULL && path[0] != NULL) != (id != NULL));

  native_call (self, session, "menu_invoke", menu_args (menu, path, id), cancellable, callback, user_data,
               stw_native_plugin_menu_invoke_async);
}

/**
 * stw_native_plugin_menu_invoke_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the item, as it is after the click
 *
 * Since: 1.0
 */
StwNativeMenuItem *
stw_native_plugin_menu_invoke_finish (StwNativePlugin  *self,
                                       GAsyncResult     *result,
                                       GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_menu_invoke_async, error);

  return answer ? view_new (STW_TYPE_NATIVE_MENU_ITEM, json_object_get_object_member (answer, "item")) : NULL;
}

/**
 * stw_native_plugin_menu_invoke_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @menu: %STW_NATIVE_APPLICATION_MENU, or a tray's index
 * @path: (array zero-terminated=1) (nullable): the labels (or roles) from
 *   the top of the menu
 * @id: (nullable): the item's id, when @path is %NULL
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.menu_invoke_async].
 *
 * Returns: (transfer full): as [method@StagewrightNative.NativePlugin.menu_invoke_finish]
 *
 * Since: 1.0
 */
StwNativeMenuItem *
stw_native_plugin_menu_invoke_sync (StwNativePlugin     *self,
                                     StwSession          *session,
                                     int                  menu,
                                     const char * const  *path,
                                     const char          *id,
                                     GCancellable        *cancellable,
                                     GError             **error)
{
  StwSyncCall call;
  StwNativeMenuItem *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_native_plugin_menu_invoke_async (self, session, menu, path, id, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_menu_invoke_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_native_plugin_trays_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the trays
 * @user_data: data for @callback
 *
 * Lists the app's trays with their tooltip, title and context menu. Trays
 * made before the plugin's first call are seen only with the launch option
 * `instrumentNative`: without it and with no tray seen, `native.NOT_INSTRUMENTED`.
 *
 * Since: 1.0
 */
void
stw_native_plugin_trays_async (StwNativePlugin     *self,
                               StwSession          *session,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer            user_data)
{
  JsonObject *args;

  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  args = json_object_new ();
  native_call (self, session, "trays", args, cancellable, callback, user_data, stw_native_plugin_trays_async);
}

/**
 * stw_native_plugin_trays_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the trays, each a #StwNativeTray
 *
 * Since: 1.0
 */
GListModel *
stw_native_plugin_trays_finish (StwNativePlugin *self,
                                GAsyncResult    *result,
                                GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_trays_async, error);

  return answer ? list_member (STW_TYPE_NATIVE_TRAY, answer, "trays") : NULL;
}

/**
 * stw_native_plugin_trays_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.trays_async].
 *
 * Returns: (transfer full): as [method@StagewrightNative.NativePlugin.trays_finish]
 *
 * Since: 1.0
 */
GListModel *
stw_native_plugin_trays_sync (StwNativePlugin *self,
                              StwSession      *session,
                              GCancellable    *cancellable,
                              GError          **error)
{
  StwSyncCall call;
  GListModel * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_native_plugin_trays_async (self, session, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_trays_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_native_plugin_tray_invoke_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @index: the tray's index
 * @action: what to do
 * @path: (array zero-terminated=1) (nullable): with
 *   %STW_NATIVE_TRAY_ACTION_MENU, the item of its context menu to click
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when it is done
 * @user_data: data for @callback
 *
 * Clicks a tray (%STW_NATIVE_TRAY_ACTION_CLICK: its `click` listeners run)
 * or uses its context menu (%STW_NATIVE_TRAY_ACTION_MENU: with @path, clicks
 * that item as [method@StagewrightNative.NativePlugin.menu_invoke_async]
 * does).
 *
 * Since: 1.0
 */
void
stw_native_plugin_tray_invoke_async (StwNativePlugin     *self,
                                     StwSession          *session,
                                     guint               index,
                                     StwNativeTrayAction action,
                                     const char * const  *path,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer            user_data)
{
  JsonObject *args;

  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (action == STW_NATIVE_TRAY_ACTION_CLICK || action == STW_NATIVE_TRAY_ACTION_MENU);

  args = json_object_new ();
  json_object_set_int_member (args, "index", index);
  json_object_set_string_member (args, "action", action == STW_NATIVE_TRAY_ACTION_CLICK ? "click" : "menu");
  if (path != NULL)
    {
      JsonArray *segments = json_array_new ();

      for (guint i = 0; path[i] != NULL; i++)
        json_array_add_string_element (segments, path[i]);
      json_object_set_array_member (args, "path", segments);
    }
  native_call (self, session, "tray_invoke", args, cancellable, callback, user_data, stw_native_plugin_tray_invoke_async);
}

/**
 * stw_native_plugin_tray_invoke_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when it was done
 *
 * Since: 1.0
 */
gboolean
stw_native_plugin_tray_invoke_finish (StwNativePlugin *self,
                                      GAsyncResult    *result,
                                      GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_tray_invoke_async, error);

  return answer != NULL;
}

/**
 * stw_native_plugin_tray_invoke_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @index: the tray's index
 * @action: what to do
 * @path: (array zero-terminated=1) (nullable): with
 *   %STW_NATIVE_TRAY_ACTION_MENU, the item of its context menu to click
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.tray_invoke_async].
 *
 * Returns: as [method@StagewrightNative.NativePlugin.tray_invoke_finish]
 *
 * Since: 1.0
 */
gboolean
stw_native_plugin_tray_invoke_sync (StwNativePlugin     *self,
                                    StwSession          *session,
                                    guint               index,
                                    StwNativeTrayAction action,
                                    const char * const  *path,
                                    GCancellable        *cancellable,
                                    GError              **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_native_plugin_tray_invoke_async (self, session, index, action, path, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_tray_invoke_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_native_plugin_notifications_start_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the capture has started
 * @user_data: data for @callback
 *
 * Starts capturing the notifications the app shows; with `instrumentNative`
 * the first capture also holds those shown since start-up. A capture
 * already running is `native.ALREADY_CAPTURING`.
 *
 * Since: 1.0
 */
void
stw_native_plugin_notifications_start_async (StwNativePlugin     *self,
                                             StwSession          *session,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer            user_data)
{
  JsonObject *args;

  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  args = json_object_new ();
  native_call (self, session, "notifications_start", args, cancellable, callback, user_data, stw_native_plugin_notifications_start_async);
}

/**
 * stw_native_plugin_notifications_start_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the capture has started
 *
 * Since: 1.0
 */
gboolean
stw_native_plugin_notifications_start_finish (StwNativePlugin *self,
                                              GAsyncResult    *result,
                                              GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_notifications_start_async, error);

  return answer != NULL;
}

/**
 * stw_native_plugin_notifications_start_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.notifications_start_async].
 *
 * Returns: as [method@StagewrightNative.NativePlugin.notifications_start_finish]
 *
 * Since: 1.0
 */
gboolean
stw_native_plugin_notifications_start_sync (StwNativePlugin *self,
                                            StwSession      *session,
                                            GCancellable    *cancellable,
                                            GError          **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_native_plugin_notifications_start_async (self, session, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_notifications_start_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_native_plugin_notifications_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @limit: how many of the last ones, or -1 for the default (50)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the notifications
 * @user_data: data for @callback
 *
 * Reads the captured notifications, oldest first. Without a capture,
 * `native.NOT_CAPTURING`.
 *
 * Since: 1.0
 */
void
stw_native_plugin_notifications_async (StwNativePlugin     *self,
                                       StwSession          *session,
                                       int                 limit,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer            user_data)
{
  JsonObject *args;

  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  args = json_object_new ();
  if (limit >= 0)
    json_object_set_int_member (args, "limit", limit);
  native_call (self, session, "notifications", args, cancellable, callback, user_data, stw_native_plugin_notifications_async);
}

/**
 * stw_native_plugin_notifications_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the notifications, each a #StwNativeNotification
 *
 * Since: 1.0
 */
GListModel *
stw_native_plugin_notifications_finish (StwNativePlugin *self,
                                        GAsyncResult    *result,
                                        GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_notifications_async, error);

  return answer ? list_member (STW_TYPE_NATIVE_NOTIFICATION, answer, "notifications") : NULL;
}

/**
 * stw_native_plugin_notifications_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @limit: how many of the last ones, or -1 for the default (50)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.notifications_async].
 *
 * Returns: (transfer full): as [method@StagewrightNative.NativePlugin.notifications_finish]
 *
 * Since: 1.0
 */
GListModel *
stw_native_plugin_notifications_sync (StwNativePlugin *self,
                                      StwSession      *session,
                                      int             limit,
                                      GCancellable    *cancellable,
                                      GError          **error)
{
  StwSyncCall call;
  GListModel * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_native_plugin_notifications_async (self, session, limit, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_notifications_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_native_plugin_notifications_stop_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the capture has stopped
 * @user_data: data for @callback
 *
 * Stops capturing notifications. Without a capture, `native.NOT_CAPTURING`.
 *
 * Since: 1.0
 */
void
stw_native_plugin_notifications_stop_async (StwNativePlugin     *self,
                                            StwSession          *session,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer            user_data)
{
  JsonObject *args;

  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  args = json_object_new ();
  native_call (self, session, "notifications_stop", args, cancellable, callback, user_data, stw_native_plugin_notifications_stop_async);
}

/**
 * stw_native_plugin_notifications_stop_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the capture has stopped
 *
 * Since: 1.0
 */
gboolean
stw_native_plugin_notifications_stop_finish (StwNativePlugin *self,
                                             GAsyncResult    *result,
                                             GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_notifications_stop_async, error);

  return answer != NULL;
}

/**
 * stw_native_plugin_notifications_stop_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.notifications_stop_async].
 *
 * Returns: as [method@StagewrightNative.NativePlugin.notifications_stop_finish]
 *
 * Since: 1.0
 */
gboolean
stw_native_plugin_notifications_stop_sync (StwNativePlugin *self,
                                           StwSession      *session,
                                           GCancellable    *cancellable,
                                           GError          **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_native_plugin_notifications_stop_async (self, session, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_notifications_stop_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_native_plugin_notification_invoke_async:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @index: its index in the capture
 * @action: what to do
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the notification
 * @user_data: data for @callback
 *
 * Clicks (its `click` listeners run) or closes a captured notification.
 * No such notification is `native.NOT_FOUND`.
 *
 * Since: 1.0
 */
void
stw_native_plugin_notification_invoke_async (StwNativePlugin             *self,
                                             StwSession                  *session,
                                             guint                       index,
                                             StwNativeNotificationAction action,
                                             GCancellable                *cancellable,
                                             GAsyncReadyCallback         callback,
                                             gpointer                    user_data)
{
  JsonObject *args;

  g_return_if_fail (STW_IS_NATIVE_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (action == STW_NATIVE_NOTIFICATION_ACTION_CLICK || action == STW_NATIVE_NOTIFICATION_ACTION_CLOSE);

  args = json_object_new ();
  json_object_set_int_member (args, "index", index);
  json_object_set_string_member (args, "action", action == STW_NATIVE_NOTIFICATION_ACTION_CLICK ? "click" : "close");
  native_call (self, session, "notification_invoke", args, cancellable, callback, user_data, stw_native_plugin_notification_invoke_async);
}

/**
 * stw_native_plugin_notification_invoke_finish:
 * @self: a #StwNativePlugin
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the notification, as it is after the action
 *
 * Since: 1.0
 */
StwNativeNotification *
stw_native_plugin_notification_invoke_finish (StwNativePlugin *self,
                                              GAsyncResult    *result,
                                              GError          **error)
{
  JsonObject *answer = native_finish (self, result, stw_native_plugin_notification_invoke_async, error);

  return answer ? view_new (STW_TYPE_NATIVE_NOTIFICATION, json_object_get_object_member (answer, "notification")) : NULL;
}

/**
 * stw_native_plugin_notification_invoke_sync:
 * @self: a #StwNativePlugin
 * @session: the app's session
 * @index: its index in the capture
 * @action: what to do
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNative.NativePlugin.notification_invoke_async].
 *
 * Returns: (transfer full): as [method@StagewrightNative.NativePlugin.notification_invoke_finish]
 *
 * Since: 1.0
 */
StwNativeNotification *
stw_native_plugin_notification_invoke_sync (StwNativePlugin             *self,
                                            StwSession                  *session,
                                            guint                       index,
                                            StwNativeNotificationAction action,
                                            GCancellable                *cancellable,
                                            GError                      **error)
{
  StwSyncCall call;
  StwNativeNotification * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_native_plugin_notification_invoke_async (self, session, index, action, cancellable, stw_sync_call_callback, &call);
  ret = stw_native_plugin_notification_invoke_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/* --- the plugin ---------------------------------------------------------- */

/* --- instrumentNative: the before-main hook -------------------------------- */

static gboolean
write_preload (StwNativePlugin  *self,
               GError       **error)
{
  g_autofree char *text = NULL;

  if (self->private_dir == NULL)
    {
      self->private_dir = g_dir_make_tmp ("stw-native-XXXXXX", error);
      if (self->private_dir == NULL)
        return FALSE;
      self->preload = g_build_filename (self->private_dir, "native-preload.js", NULL);
    }
  text = g_strdup_printf ("'use strict';\n"
                          "// Stagewright's native plugin (instrumentNative): trays and notifications\n"
                          "// made from the first line of the app's main script on are seen.\n"
                          "(%s\n)(require('electron'), true);\n",
                          self->hooks);
  return g_file_set_contents_full (self->preload, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

static void
stw_native_plugin_before_main (StwPlugin           *plugin,
                           StwPluginCompletion *completion)
{
  StwNativePlugin *self = STW_NATIVE_PLUGIN (plugin);
  JsonObject *options = stw_plugin_completion_get_launch_options (completion);
  StwLaunchOptions *launch = stw_plugin_completion_get_launch (completion);
  g_autoptr(GError) error = NULL;

  if (options == NULL || !json_object_get_boolean_member_with_default (options, "instrumentNative", FALSE))
    {
      stw_plugin_completion_return_success (completion);
      return;
    }
  /* A packaged app never sees -r: refused, as the reference refuses it. */
  if (stw_launch_options_get_main (launch) == NULL)
    {
      g_autoptr(GError) refused = stw_error_new_literal ("BAD_ARGUMENT",
                                                         "plugins.native.instrumentNative needs main (a development "
                                                         "launch): a packaged app never runs a -r preload");
      stw_plugin_completion_return_error (completion, refused);
      return;
    }
  if (!write_preload (self, &error))
    {
      g_autoptr(GError) failed = stw_error_new ("LAUNCH_FAILED", "Cannot write the native hook: %s", error->message);

      stw_plugin_completion_return_error (completion, failed);
      return;
    }
  stw_launch_options_add_preload (launch, self->preload);
  stw_plugin_completion_return_success (completion);
}

static void
remove_private_dir (StwNativePlugin *self)
{
  if (self->preload != NULL && g_unlink (self->preload) != 0 && errno != ENOENT)
    g_message ("native: cannot remove %s: %s", self->preload, g_strerror (errno));
  if (self->private_dir != NULL)
    g_rmdir (self->private_dir);
  g_clear_pointer (&self->preload, g_free);
  g_clear_pointer (&self->private_dir, g_free);
}

static void
stw_native_plugin_teardown (StwPlugin           *plugin,
                        StwPluginCompletion *completion)
{
  /* An app launched with the preload has read it long since. */
  remove_private_dir (STW_NATIVE_PLUGIN (plugin));
  stw_plugin_completion_return_success (completion);
}

static void
stw_native_plugin_finalize (GObject *object)
{
  StwNativePlugin *self = STW_NATIVE_PLUGIN (object);

  remove_private_dir (self);
  g_free (self->hooks);
  g_free (self->ops);
  G_OBJECT_CLASS (stw_native_plugin_parent_class)->finalize (object);
}

static void
stw_native_plugin_class_init (StwNativePluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_native_plugin_finalize;
  STW_PLUGIN_CLASS (klass)->teardown = stw_native_plugin_teardown;
  STW_PLUGIN_CLASS (klass)->before_main = stw_native_plugin_before_main;

  /* The domain exists before the plugin makes its first error, so that
   * stw_error_new() makes its codes in it. */
  stw_native_error_quark ();
}

static void
stw_native_plugin_init (StwNativePlugin *self)
{
  g_autoptr(StwSchema) launch = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"instrumentNative\":{\"type\":\"boolean\",\"default\":false}}}", NULL);
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{}}", NULL);

  self->hooks = load_script ("hooks.js");
  self->ops = load_script ("ops.js");
  g_object_set (self, "config-schema", config, NULL);
  stw_plugin_set_launch_schema (STW_PLUGIN (self), launch);
  _stw_native_plugin_add_tools (self);
}

/**
 * stw_native_plugin_new:
 *
 * Makes the native plugin with its tools and launch option, as
 * `--plugin native` loads it.
 *
 * Returns: (transfer full): a new #StwNativePlugin
 *
 * Since: 1.0
 */
StwNativePlugin *
stw_native_plugin_new (void)
{
  return g_object_new (STW_TYPE_NATIVE_PLUGIN,
                       "name", "native",
                       "version", "0.1.0",
                       "core-versions", ">=0.1",
                       "description", "Reads and drives the app's native UI: application menu, trays, notifications.",
                       NULL);
}
