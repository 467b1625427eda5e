/* native.c: the native plugin — application menu, trays, notifications
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 19's native plugin. Every tool runs the plugin's own JavaScript
 * (js/hooks.js and js/ops.js, a GResource) in the app's main process
 * through its Node inspector, the way the core's main-process evaluation
 * does; the agent's arguments reach it only as JSON data. That is not
 * agent eval, so the tools do not need --allow-eval=main (see
 * docs/plugins-native.md, "Safety").
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
#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>
#include <stagewright/stagewright.h>

#define NATIVE_TYPE_PLUGIN (native_plugin_get_type ())
G_DECLARE_FINAL_TYPE (NativePlugin, native_plugin, NATIVE, PLUGIN, StwPlugin)

struct _NativePlugin
{
  StwPlugin  parent_instance;
  char      *hooks;         /* js/hooks.js */
  char      *ops;           /* js/ops.js */
  char      *private_dir;   /* made on the first instrumented launch */
  char      *preload;       /* <private_dir>/native-preload.js */
};

G_DEFINE_FINAL_TYPE (NativePlugin, native_plugin, STW_TYPE_PLUGIN)

#define NATIVE_TYPE_TOOL (native_tool_get_type ())
G_DECLARE_FINAL_TYPE (NativeTool, native_tool, NATIVE, TOOL, StwTool)

struct _NativeTool
{
  StwTool       parent_instance;
  NativePlugin *plugin;   /* unowned: the plugin owns its tools */
  const char   *op;       /* the operation of js/ops.js */
};

G_DEFINE_FINAL_TYPE (NativeTool, native_tool, STW_TYPE_TOOL)

static char *
load_script (const char *name)
{
  g_autofree char *path = g_strconcat ("/org/stagewright/plugins/native/", name, NULL);
  /* The module registers its resource when loaded (glib-compile-resources'
   * constructor) and unregisters it when unloaded. */
  g_autoptr(GBytes) bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

  g_assert (bytes != NULL);
  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

/* --- a call in the main process ------------------------------------------ */

/* The tool's arguments as data for ops.js (JSON is a JavaScript literal),
 * without the session they were routed by. */
static char *
arguments_json (JsonObject *arguments)
{
  g_autoptr(JsonObject) copy = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (arguments);
  g_autoptr(JsonNode) node = NULL;

  for (const GList *l = members; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "sessionId"))
      json_object_set_member (copy, l->data, json_node_copy (json_object_get_member (arguments, l->data)));
  node = json_node_init_object (json_node_alloc (), copy);
  return json_to_string (node, FALSE);
}

static void
on_evaluated (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = stw_session_evaluate_main_finish (STW_SESSION (object), result, &error);
  JsonObject *reply;

  if (answer == NULL)
    {
      if (g_error_matches (error, STW_ERROR, STW_ERROR_TRANSPORT_UNSUPPORTED))
        {
          g_autoptr(GError) unsupported = stw_error_new ("native.UNSUPPORTED",
                                                         "The app's main process cannot be reached: %s",
                                                         error->message);
          stw_invocation_return_error (invocation, unsupported);
          return;
        }
      stw_invocation_return_error (invocation, error);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (answer))
    {
      g_autoptr(GError) odd = stw_error_new_literal ("INTERNAL_ERROR", "The native hook answered no object");

      stw_invocation_return_error (invocation, odd);
      return;
    }
  reply = json_node_get_object (answer);
  if (json_object_has_member (reply, "error"))
    {
      JsonObject *failure = json_object_get_object_member (reply, "error");
      g_autofree char *code = g_strconcat ("native.", json_object_get_string_member (failure, "code"), NULL);
      g_autoptr(GError) refused = stw_error_new (code, "%s", json_object_get_string_member (failure, "message"));

      stw_invocation_return_error (invocation, refused);
      return;
    }
  stw_invocation_return_value (invocation, json_object_get_object_member (reply, "value"));
}

static void
native_tool_invoke (StwTool       *tool,
                    StwInvocation *invocation)
{
  NativeTool *self = NATIVE_TOOL (tool);
  StwSession *session = stw_invocation_get_session (invocation);
  g_autofree char *args = arguments_json (stw_invocation_get_arguments (invocation));
  g_autofree char *expression = NULL;

  /* The hook first (a no-op once installed), then the operation. */
  expression = g_strdup_printf ("(() => {\n"
                                "const electron = require('electron');\n"
                                "const state = (%s\n)(electron, false);\n"
                                "return (%s\n)(electron, state, '%s', %s);\n"
                                "})()",
                                self->plugin->hooks, self->plugin->ops, self->op, args);
  stw_session_evaluate_main_async (session, expression, stw_invocation_get_cancellable (invocation),
                                   on_evaluated, g_object_ref (invocation));
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
add_tool (NativePlugin       *plugin,
          const char         *op,
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

/* --- instrumentNative: the before-main hook -------------------------------- */

static gboolean
write_preload (NativePlugin  *self,
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
native_plugin_before_main (StwPlugin           *plugin,
                           StwPluginCompletion *completion)
{
  NativePlugin *self = NATIVE_PLUGIN (plugin);
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
remove_private_dir (NativePlugin *self)
{
  if (self->preload != NULL && g_unlink (self->preload) != 0 && errno != ENOENT)
    g_message ("native: cannot remove %s: %s", self->preload, g_strerror (errno));
  if (self->private_dir != NULL)
    g_rmdir (self->private_dir);
  g_clear_pointer (&self->preload, g_free);
  g_clear_pointer (&self->private_dir, g_free);
}

static void
native_plugin_teardown (StwPlugin           *plugin,
                        StwPluginCompletion *completion)
{
  /* An app launched with the preload has read it long since. */
  remove_private_dir (NATIVE_PLUGIN (plugin));
  stw_plugin_completion_return_success (completion);
}

static void
native_plugin_finalize (GObject *object)
{
  NativePlugin *self = NATIVE_PLUGIN (object);

  remove_private_dir (self);
  g_free (self->hooks);
  g_free (self->ops);
  G_OBJECT_CLASS (native_plugin_parent_class)->finalize (object);
}

static void
native_plugin_class_init (NativePluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = native_plugin_finalize;
  STW_PLUGIN_CLASS (klass)->teardown = native_plugin_teardown;
  STW_PLUGIN_CLASS (klass)->before_main = native_plugin_before_main;
}

#define SESSION_ID "\"sessionId\":{\"type\":\"string\"}"
#define NO_ARGS "{\"type\":\"object\",\"properties\":{" SESSION_ID "},\"additionalProperties\":false}"
#define ITEM_ARGS \
  "{\"type\":\"object\",\"properties\":{" SESSION_ID "," \
  "\"menu\":{\"anyOf\":[{\"const\":\"application\"},{\"type\":\"integer\",\"minimum\":0}]}," \
  "\"path\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":16}," \
  "\"id\":{\"type\":\"string\",\"minLength\":1}}," \
  "\"oneOf\":[{\"required\":[\"path\"]},{\"required\":[\"id\"]}],\"additionalProperties\":false}"

static void
native_plugin_init (NativePlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);
  g_autoptr(StwSchema) launch = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"instrumentNative\":{\"type\":\"boolean\",\"default\":false}}}", NULL);
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{}}", NULL);
  static const char * const menu_codes[] = { "UNSUPPORTED", "NOT_INSTRUMENTED", "NOT_FOUND", NULL };
  static const char * const invoke_codes[] = { "UNSUPPORTED", "NOT_INSTRUMENTED", "NOT_FOUND", "ITEM_DISABLED", NULL };
  static const char * const trays_codes[] = { "UNSUPPORTED", "NOT_INSTRUMENTED", NULL };
  static const char * const start_codes[] = { "UNSUPPORTED", "ALREADY_CAPTURING", NULL };
  static const char * const capture_codes[] = { "UNSUPPORTED", "NOT_CAPTURING", NULL };
  static const char * const notify_codes[] = { "UNSUPPORTED", "NOT_CAPTURING", "NOT_FOUND", NULL };

  self->hooks = load_script ("hooks.js");
  self->ops = load_script ("ops.js");
  g_object_set (self, "config-schema", config, NULL);
  stw_plugin_set_launch_schema (STW_PLUGIN (self), launch);

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

  add_tool (self, "menu", "menu", "Native menu tree", TRUE,
            "The application menu (menu \"application\", the default) or a tray's context menu (menu: its "
            "index in native_trays) as a tree. Returns: {menu, present, items[{label, role, type, enabled, "
            "visible, checked, accelerator, id, path[], submenu?}]}.",
            "{\"type\":\"object\",\"properties\":{" SESSION_ID ","
            "\"menu\":{\"anyOf\":[{\"const\":\"application\"},{\"type\":\"integer\",\"minimum\":0}]}},"
            "\"additionalProperties\":false}",
            menu_codes);
  add_tool (self, "menu_item", "menu_item", "One native menu item", TRUE,
            "One item of the application menu (or of tray menu's context menu), by path (labels from the "
            "top, e.g. [\"File\", \"Export…\"]) or by id. Returns: {item}.",
            ITEM_ARGS, menu_codes);
  add_tool (self, "menu_invoke", "menu_invoke", "Click a native menu item", FALSE,
            "Click a menu item as the user would, by path or id: a checkbox toggles, a radio item is "
            "checked, then the app's click handler runs. A disabled or invisible item (or one under a "
            "disabled or invisible submenu) is refused with native.ITEM_DISABLED and its handler does not "
            "run. Returns: {invoked, item}.",
            ITEM_ARGS, invoke_codes);
  add_tool (self, "trays", "trays", "Trays", TRUE,
            "The app's trays with their tooltip, title and context menu. Trays made before the plugin's "
            "first call are seen only with the launch option plugins.native.instrumentNative; otherwise "
            "native.NOT_INSTRUMENTED. Returns: {instrumented, trays[{index, toolTip, title, hasContextMenu, "
            "menu}]}.",
            NO_ARGS, trays_codes);
  add_tool (self, "tray_invoke", "tray_invoke", "Act on a tray", FALSE,
            "Click a tray (action \"click\": its 'click' listeners run) or use its context menu (action "
            "\"menu\": with path, click that item as native_menu_invoke does; without, answer the menu). "
            "Returns: {index, action, listeners?, items?, invoked?, item?}.",
            "{\"type\":\"object\",\"properties\":{" SESSION_ID ","
            "\"index\":{\"type\":\"integer\",\"minimum\":0},"
            "\"action\":{\"enum\":[\"click\",\"menu\"]},"
            "\"path\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":16}},"
            "\"required\":[\"index\",\"action\"],\"additionalProperties\":false}",
            invoke_codes);
  add_tool (self, "notifications_start", "notifications_start", "Capture notifications", FALSE,
            "Capture the notifications the app shows from now on; with instrumentNative the first capture "
            "also holds those shown since start-up. Returns: {capturing, instrumented, captured}.",
            NO_ARGS, start_codes);
  add_tool (self, "notifications", "notifications", "Captured notifications", TRUE,
            "The captured notifications, the last limit (default 50). Returns: {count, truncated, "
            "notifications[{index, title, body, time, shown, clicked, closed}]}.",
            "{\"type\":\"object\",\"properties\":{" SESSION_ID ","
            "\"limit\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":200}},\"additionalProperties\":false}",
            capture_codes);
  add_tool (self, "notifications_stop", "notifications_stop", "Stop capturing notifications", FALSE,
            "Stop the capture. Returns: {capturing, captured}.", NO_ARGS, capture_codes);
  add_tool (self, "notification_invoke", "notification_invoke", "Act on a notification", FALSE,
            "Click (its 'click' listeners run) or close a captured notification, by its index in "
            "native_notifications. Returns: {action, notification}.",
            "{\"type\":\"object\",\"properties\":{" SESSION_ID ","
            "\"index\":{\"type\":\"integer\",\"minimum\":0},"
            "\"action\":{\"enum\":[\"click\",\"close\"]}},"
            "\"required\":[\"index\",\"action\"],\"additionalProperties\":false}",
            notify_codes);
}

StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  return g_object_new (NATIVE_TYPE_PLUGIN, "name", "native", "version", "0.1.0", NULL);
}
