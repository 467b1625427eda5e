/* native-tools.c: the native plugin's MCP tools, thin adapters over its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each tool reads its validated arguments, calls the matching
 * stw_native_plugin_*_async() and answers the call's answer as the
 * main-process code gave it (the typed results are views of it).
 */
#include "config.h"

#include "stw-native-private.h"

typedef enum
{
  NATIVE_MENU,
  NATIVE_MENU_ITEM,
  NATIVE_MENU_INVOKE,
  NATIVE_TRAYS,
  NATIVE_TRAY_INVOKE,
  NATIVE_NOTIFICATIONS_START,
  NATIVE_NOTIFICATIONS,
  NATIVE_NOTIFICATIONS_STOP,
  NATIVE_NOTIFICATION_INVOKE,
} NativeOp;

#define NATIVE_TYPE_TOOL (native_tool_get_type ())
G_DECLARE_FINAL_TYPE (NativeTool, native_tool, NATIVE, TOOL, StwTool)

struct _NativeTool
{
  StwTool          parent_instance;
  StwNativePlugin *plugin;   /* unowned: the plugin owns its tools */
  NativeOp         op;
};

G_DEFINE_FINAL_TYPE (NativeTool, native_tool, STW_TYPE_TOOL)

static void
on_answered (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  NativeTool *tool = NATIVE_TOOL (stw_invocation_get_tool (invocation));
  StwNativePlugin *plugin = STW_NATIVE_PLUGIN (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(GObject) typed = NULL;
  gboolean done;

  switch (tool->op)
    {
    case NATIVE_MENU:
      done = (typed = G_OBJECT (stw_native_plugin_menu_finish (plugin, result, &error))) != NULL;
      break;
    case NATIVE_MENU_ITEM:
      done = (typed = G_OBJECT (stw_native_plugin_menu_item_finish (plugin, result, &error))) != NULL;
      break;
    case NATIVE_MENU_INVOKE:
      done = (typed = G_OBJECT (stw_native_plugin_menu_invoke_finish (plugin, result, &error))) != NULL;
      break;
    case NATIVE_TRAYS:
      done = (typed = G_OBJECT (stw_native_plugin_trays_finish (plugin, result, &error))) != NULL;
      break;
    case NATIVE_TRAY_INVOKE:
      done = stw_native_plugin_tray_invoke_finish (plugin, result, &error);
      break;
    case NATIVE_NOTIFICATIONS_START:
      done = stw_native_plugin_notifications_start_finish (plugin, result, &error);
      break;
    case NATIVE_NOTIFICATIONS:
      done = (typed = G_OBJECT (stw_native_plugin_notifications_finish (plugin, result, &error))) != NULL;
      break;
    case NATIVE_NOTIFICATIONS_STOP:
      done = stw_native_plugin_notifications_stop_finish (plugin, result, &error);
      break;
    case NATIVE_NOTIFICATION_INVOKE:
      done = (typed = G_OBJECT (stw_native_plugin_notification_invoke_finish (plugin, result, &error))) != NULL;
      break;
    default:
      g_assert_not_reached ();
    }

  if (!done)
    stw_invocation_return_error (invocation, error);
  else
    stw_invocation_return_value (invocation, _stw_native_plugin_get_answer (result));
}

static int
menu_argument (JsonObject *arguments)
{
  JsonNode *menu = json_object_get_member (arguments, "menu");

  /* "application" or absent: the application menu; else a tray index. */
  if (menu == NULL || json_node_get_value_type (menu) == G_TYPE_STRING)
    return STW_NATIVE_APPLICATION_MENU;
  return (int) json_node_get_int (menu);
}

/* The path argument as a NULL-terminated array (free the array only). */
static const char **
path_argument (JsonObject *arguments)
{
  JsonArray *path;
  const char **segments;

  if (!json_object_has_member (arguments, "path"))
    return NULL;
  path = json_object_get_array_member (arguments, "path");
  segments = g_new0 (const char *, json_array_get_length (path) + 1);
  for (guint i = 0; i < json_array_get_length (path); i++)
    segments[i] = json_array_get_string_element (path, i);
  return segments;
}

static void
native_tool_invoke (StwTool       *tool,
                    StwInvocation *invocation)
{
  NativeTool *self = NATIVE_TOOL (tool);
  StwNativePlugin *plugin = self->plugin;
  StwSession *session = stw_invocation_get_session (invocation);
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  GCancellable *cancellable = stw_invocation_get_cancellable (invocation);
  g_autofree const char **path = path_argument (arguments);
  const char *id = json_object_get_string_member_with_default (arguments, "id", NULL);
  const char *action = json_object_get_string_member_with_default (arguments, "action", "");
  guint index = json_object_get_int_member_with_default (arguments, "index", 0);
  gpointer data = g_object_ref (invocation);

  switch (self->op)
    {
    case NATIVE_MENU:
      stw_native_plugin_menu_async (plugin, session, menu_argument (arguments), cancellable, on_answered, data);
      break;
    case NATIVE_MENU_ITEM:
      stw_native_plugin_menu_item_async (plugin, session, menu_argument (arguments), path, path ? NULL : id,
                                         cancellable, on_answered, data);
      break;
    case NATIVE_MENU_INVOKE:
      stw_native_plugin_menu_invoke_async (plugin, session, menu_argument (arguments), path, path ? NULL : id,
                                           cancellable, on_answered, data);
      break;
    case NATIVE_TRAYS:
      stw_native_plugin_trays_async (plugin, session, cancellable, on_answered, data);
      break;
    case NATIVE_TRAY_INVOKE:
      stw_native_plugin_tray_invoke_async (plugin, session, index,
                                           g_str_equal (action, "click") ? STW_NATIVE_TRAY_ACTION_CLICK
                                                                         : STW_NATIVE_TRAY_ACTION_MENU,
                                           path, cancellable, on_answered, data);
      break;
    case NATIVE_NOTIFICATIONS_START:
      stw_native_plugin_notifications_start_async (plugin, session, cancellable, on_answered, data);
      break;
    case NATIVE_NOTIFICATIONS:
      stw_native_plugin_notifications_async (plugin, session,
                                             json_object_get_int_member_with_default (arguments, "limit", -1),
                                             cancellable, on_answered, data);
      break;
    case NATIVE_NOTIFICATIONS_STOP:
      stw_native_plugin_notifications_stop_async (plugin, session, cancellable, on_answered, data);
      break;
    case NATIVE_NOTIFICATION_INVOKE:
      stw_native_plugin_notification_invoke_async (plugin, session, index,
                                                   g_str_equal (action, "click")
                                                     ? STW_NATIVE_NOTIFICATION_ACTION_CLICK
                                                     : STW_NATIVE_NOTIFICATION_ACTION_CLOSE,
                                                   cancellable, on_answered, data);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
native_tool_class_init (NativeToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = native_tool_invoke;
}

static void
native_tool_init (NativeTool *self)
{
}

static void
add_tool (StwNativePlugin    *plugin,
          NativeOp            op,
          const char         *name,
          const char         *title,
          gboolean            query,
          const char         *description,
          const char         *schema_json,
          const char * const *codes)
{
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (schema_json, NULL);
  NativeTool *tool;

  g_assert (schema != NULL);
  tool = g_object_new (NATIVE_TYPE_TOOL,
                       "name", name,
                       "title", title,
                       "description", description,
                       "input-schema", schema,
                       "operation-type", query ? STW_OPERATION_QUERY : STW_OPERATION_COMMAND,
                       "error-codes", codes,
                       "idempotent-hint", query,
                       "session-requirement", STW_SESSION_REQUIREMENT_REQUIRED,
                       NULL);
  tool->plugin = plugin;
  tool->op = op;
  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (plugin), STW_TOOL (tool), NULL);
  g_object_unref (tool);
}

#define SESSION_ID "\"sessionId\":{\"type\":\"string\"}"
#define NO_ARGS "{\"type\":\"object\",\"properties\":{" SESSION_ID "},\"additionalProperties\":false}"
#define ITEM_ARGS \
  "{\"type\":\"object\",\"properties\":{" SESSION_ID "," \
  "\"menu\":{\"anyOf\":[{\"const\":\"application\"},{\"type\":\"integer\",\"minimum\":0}]}," \
  "\"path\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":16}," \
  "\"id\":{\"type\":\"string\",\"minLength\":1}}," \
  "\"oneOf\":[{\"required\":[\"path\"]},{\"required\":[\"id\"]}],\"additionalProperties\":false}"

void
_stw_native_plugin_add_tools (StwNativePlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);
  static const char * const menu_codes[] = { "UNSUPPORTED", "NOT_INSTRUMENTED", "NOT_FOUND", NULL };
  static const char * const invoke_codes[] = { "UNSUPPORTED", "NOT_INSTRUMENTED", "NOT_FOUND", "ITEM_DISABLED", NULL };
  static const char * const trays_codes[] = { "UNSUPPORTED", "NOT_INSTRUMENTED", NULL };
  static const char * const start_codes[] = { "UNSUPPORTED", "ALREADY_CAPTURING", NULL };
  static const char * const capture_codes[] = { "UNSUPPORTED", "NOT_CAPTURING", NULL };
  static const char * const notify_codes[] = { "UNSUPPORTED", "NOT_CAPTURING", "NOT_FOUND", NULL };

  stw_tool_provider_add_error_code (provider, "UNSUPPORTED", 409, FALSE,
                                    "This session has no main process to reach (plain Chromium, or an attach "
                                    "without the inspector), or the item has no click.", NULL);
  stw_tool_provider_add_error_code (provider, "ALREADY_CAPTURING", 409, FALSE,
                                    "Notifications are being captured; read them, or stop first.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_CAPTURING", 409, FALSE,
                                    "Start capturing with native_notifications_start first.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_INSTRUMENTED", 409, FALSE,
                                    "Trays made before the plugin's first call are not seen; relaunch with "
                                    "plugins.native.instrumentNative: true (needs main).", NULL);
  stw_tool_provider_add_error_code (provider, "ITEM_DISABLED", 409, FALSE,
                                    "The item (or a menu above it) is disabled or invisible: a user cannot "
                                    "click it; its handler did not run.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_FOUND", 404, FALSE,
                                    "No such menu, item, tray or captured notification; list them first "
                                    "(native_menu, native_trays, native_notifications).", NULL);

  add_tool (self, NATIVE_MENU, "menu", "Native menu tree", TRUE,
            "The application menu (menu \"application\", the default) or a tray's context menu (menu: its "
            "index in native_trays) as a tree. Returns: {menu, present, items[{label, role, type, enabled, "
            "visible, checked, accelerator, id, path[], submenu?}]}.",
            "{\"type\":\"object\",\"properties\":{" SESSION_ID ","
            "\"menu\":{\"anyOf\":[{\"const\":\"application\"},{\"type\":\"integer\",\"minimum\":0}]}},"
            "\"additionalProperties\":false}",
            menu_codes);
  add_tool (self, NATIVE_MENU_ITEM, "menu_item", "One native menu item", TRUE,
            "One item of the application menu (or of tray menu's context menu), by path (labels from the "
            "top, e.g. [\"File\", \"Export…\"]) or by id. Returns: {item}.",
            ITEM_ARGS, menu_codes);
  add_tool (self, NATIVE_MENU_INVOKE, "menu_invoke", "Click a native menu item", FALSE,
            "Click a menu item as the user would, by path or id: a checkbox toggles, a radio item is "
            "checked, then the app's click handler runs. A disabled or invisible item (or one under a "
            "disabled or invisible submenu) is refused with native.ITEM_DISABLED and its handler does not "
            "run. Returns: {invoked, item}.",
            ITEM_ARGS, invoke_codes);
  add_tool (self, NATIVE_TRAYS, "trays", "Trays", TRUE,
            "The app's trays with their tooltip, title and context menu. Trays made before the plugin's "
            "first call are seen only with the launch option plugins.native.instrumentNative; otherwise "
            "native.NOT_INSTRUMENTED. Returns: {instrumented, trays[{index, toolTip, title, hasContextMenu, "
            "menu}]}.",
            NO_ARGS, trays_codes);
  add_tool (self, NATIVE_TRAY_INVOKE, "tray_invoke", "Act on a tray", FALSE,
            "Click a tray (action \"click\": its 'click' listeners run) or use its context menu (action "
            "\"menu\": with path, click that item as native_menu_invoke does; without, answer the menu). "
            "Returns: {index, action, listeners?, items?, invoked?, item?}.",
            "{\"type\":\"object\",\"properties\":{" SESSION_ID ","
            "\"index\":{\"type\":\"integer\",\"minimum\":0},"
            "\"action\":{\"enum\":[\"click\",\"menu\"]},"
            "\"path\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":16}},"
            "\"required\":[\"index\",\"action\"],\"additionalProperties\":false}",
            invoke_codes);
  add_tool (self, NATIVE_NOTIFICATIONS_START, "notifications_start", "Capture notifications", FALSE,
            "Capture the notifications the app shows from now on; with instrumentNative the first capture "
            "also holds those shown since start-up. Returns: {capturing, instrumented, captured}.",
            NO_ARGS, start_codes);
  add_tool (self, NATIVE_NOTIFICATIONS, "notifications", "Captured notifications", TRUE,
            "The captured notifications, the last limit (default 50). Returns: {count, truncated, "
            "notifications[{index, title, body, time, shown, clicked, closed}]}.",
            "{\"type\":\"object\",\"properties\":{" SESSION_ID ","
            "\"limit\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":200}},\"additionalProperties\":false}",
            capture_codes);
  add_tool (self, NATIVE_NOTIFICATIONS_STOP, "notifications_stop", "Stop capturing notifications", FALSE,
            "Stop the capture. Returns: {capturing, captured}.", NO_ARGS, capture_codes);
  add_tool (self, NATIVE_NOTIFICATION_INVOKE, "notification_invoke", "Act on a notification", FALSE,
            "Click (its 'click' listeners run) or close a captured notification, by its index in "
            "native_notifications. Returns: {action, notification}.",
            "{\"type\":\"object\",\"properties\":{" SESSION_ID ","
            "\"index\":{\"type\":\"integer\",\"minimum\":0},"
            "\"action\":{\"enum\":[\"click\",\"close\"]}},"
            "\"required\":[\"index\",\"action\"],\"additionalProperties\":false}",
            notify_codes);
}

