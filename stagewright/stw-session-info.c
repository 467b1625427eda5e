/* stw-session-info.c: what a session knows of its app — its windows'
 * states and the app's own information
 *
 * The main process answers both as JSON; these types carry the same facts
 * typed. An app info keeps the answer it was made from, as the
 * electron_info tool shows it, because every field may be missing for its
 * own reason and the tool repeats the app's word exactly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-session-info.h"
#include "stw-session-info-private.h"
#include "stw-json-private.h"

struct _StwWindowState
{
  gint64    electron_id;
  gboolean  visible;
  gboolean  focused;
  gboolean  minimized;
  gboolean  maximized;
  gboolean  fullscreen;
  StwBox   *bounds;
};

struct _StwAppInfo
{
  gatomicrefcount  ref_count;
  JsonObject      *json;   /* sealed: {versions, app, protocol_version?, notes?} */
};

G_DEFINE_BOXED_TYPE (StwWindowState, stw_window_state, stw_window_state_copy, stw_window_state_free)
static JsonNode *app_info_serialize (gconstpointer boxed);
/* Its JSON (json_boxed_serialize()) is the wire form of its tool. */
G_DEFINE_BOXED_TYPE_WITH_CODE (StwAppInfo, stw_app_info, stw_app_info_ref, stw_app_info_unref,
                               json_boxed_register_serialize_func (g_define_type_id, JSON_NODE_OBJECT, app_info_serialize))

struct _StwDiscoveredApp
{
  char  *websocket_url;
  guint  port;
  char  *app_name;
  GPid   pid;
};

G_DEFINE_BOXED_TYPE (StwDiscoveredApp, stw_discovered_app, stw_discovered_app_copy, stw_discovered_app_free)

/* --- window state -------------------------------------------------------- */

static double
number_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return 0;
  return json_node_get_double (node);
}

/* @state: `{electronId, visible, focused, minimized, maximized?,
 * fullscreen?, bounds?}` as the session's window-state expression answers
 * it; a missing flag takes the value the tools assume without a main
 * process (shown, not focused). */
StwWindowState *
_stw_window_state_new_from_json (JsonObject *state)
{
  StwWindowState *self;
  JsonObject *bounds;

  g_return_val_if_fail (state != NULL, NULL);

  self = g_new0 (StwWindowState, 1);
  self->electron_id = json_object_get_int_member_with_default (state, "electronId", 0);
  self->visible = json_object_get_boolean_member_with_default (state, "visible", TRUE);
  self->focused = json_object_get_boolean_member_with_default (state, "focused", FALSE);
  self->minimized = json_object_get_boolean_member_with_default (state, "minimized", FALSE);
  self->maximized = json_object_get_boolean_member_with_default (state, "maximized", FALSE);
  self->fullscreen = json_object_get_boolean_member_with_default (state, "fullscreen", FALSE);
  bounds = stw_json_get_object (state, "bounds");
  if (bounds != NULL)
    self->bounds = stw_box_new (number_member (bounds, "x"), number_member (bounds, "y"),
                                number_member (bounds, "width"), number_member (bounds, "height"));
  return self;
}

/**
 * stw_window_state_copy:
 * @self: a #StwWindowState
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 1.0
 */
StwWindowState *
stw_window_state_copy (const StwWindowState *self)
{
  StwWindowState *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_memdup2 (self, sizeof *self);
  copy->bounds = self->bounds ? stw_box_copy (self->bounds) : NULL;
  return copy;
}

/**
 * stw_window_state_free:
 * @self: (nullable): a #StwWindowState
 *
 * Frees @self.
 *
 * Since: 1.0
 */
void
stw_window_state_free (StwWindowState *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->bounds, stw_box_free);
  g_free (self);
}

/**
 * stw_window_state_get_electron_id:
 * @self: a #StwWindowState
 *
 * Gets the id Electron gives the window (`BrowserWindow.id`).
 *
 * Returns: the id, or 0 when unknown
 *
 * Since: 1.0
 */
gint64
stw_window_state_get_electron_id (const StwWindowState *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->electron_id;
}

/**
 * stw_window_state_is_visible:
 * @self: a #StwWindowState
 *
 * Whether the window is shown.
 *
 * Returns: %TRUE when it is shown
 *
 * Since: 1.0
 */
gboolean
stw_window_state_is_visible (const StwWindowState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->visible;
}

/**
 * stw_window_state_is_focused:
 * @self: a #StwWindowState
 *
 * Whether the window has the focus.
 *
 * Returns: %TRUE when it has the focus
 *
 * Since: 1.0
 */
gboolean
stw_window_state_is_focused (const StwWindowState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->focused;
}

/**
 * stw_window_state_is_minimized:
 * @self: a #StwWindowState
 *
 * Whether the window is minimized.
 *
 * Returns: %TRUE when it is minimized
 *
 * Since: 1.0
 */
gboolean
stw_window_state_is_minimized (const StwWindowState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->minimized;
}

/**
 * stw_window_state_is_maximized:
 * @self: a #StwWindowState
 *
 * Whether the window is maximized.
 *
 * Returns: %TRUE when it is maximized
 *
 * Since: 1.0
 */
gboolean
stw_window_state_is_maximized (const StwWindowState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->maximized;
}

/**
 * stw_window_state_is_fullscreen:
 * @self: a #StwWindowState
 *
 * Whether the window is full screen.
 *
 * Returns: %TRUE when it is full screen
 *
 * Since: 1.0
 */
gboolean
stw_window_state_is_fullscreen (const StwWindowState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->fullscreen;
}

/**
 * stw_window_state_get_bounds:
 * @self: a #StwWindowState
 *
 * Gets the window's bounds on the screen (`BrowserWindow.getBounds()`),
 * in screen pixels.
 *
 * Returns: (transfer none) (nullable): the bounds, or %NULL when the main
 *   process could not tell
 *
 * Since: 1.0
 */
const StwBox *
stw_window_state_get_bounds (const StwWindowState *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->bounds;
}

/* --- app info ------------------------------------------------------------ */

StwAppInfo *
_stw_app_info_new_from_json (JsonObject *info)
{
  StwAppInfo *self;

  g_return_val_if_fail (info != NULL, NULL);

  self = g_new0 (StwAppInfo, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->json = json_object_ref (info);
  json_object_seal (self->json);
  return self;
}

/**
 * stw_app_info_ref:
 * @self: a #StwAppInfo
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwAppInfo *
stw_app_info_ref (StwAppInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_app_info_unref:
 * @self: (transfer full): a #StwAppInfo
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_app_info_unref (StwAppInfo *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_object_unref (self->json);
  g_free (self);
}

/**
 * stw_app_info_get_version:
 * @self: a #StwAppInfo
 * @component: `electron`, `node`, `chrome`, `chrome_product` (the
 *   browser's product string, such as `Chrome/120.0.6099.56`) or `v8`
 *
 * Gets a component's version.
 *
 * Returns: (transfer none) (nullable): the version, or %NULL when the app
 *   could not tell (a plain Chromium has no Electron or Node)
 *
 * Since: 1.0
 */
const char *
stw_app_info_get_version (const StwAppInfo *self,
                          const char       *component)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (component != NULL, NULL);

  return stw_json_get_string (stw_json_get_object (self->json, "versions"), component);
}

/**
 * stw_app_info_get_protocol_version:
 * @self: a #StwAppInfo
 *
 * Gets the DevTools protocol version the browser speaks.
 *
 * Returns: (transfer none) (nullable): the version, or %NULL when the
 *   session has no renderer connection (a plain Node process)
 *
 * Since: 1.0
 */
const char *
stw_app_info_get_protocol_version (const StwAppInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->json, "protocol_version");
}

/**
 * stw_app_info_has_app:
 * @self: a #StwAppInfo
 *
 * Whether the session reached an Electron app's `app` module: without it
 * (plain Chromium, plain Node) the `app_*` fields are all %NULL.
 *
 * Returns: %TRUE when the app's fields were read
 *
 * Since: 1.0
 */
gboolean
stw_app_info_has_app (const StwAppInfo *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return stw_json_get_object (self->json, "app") != NULL;
}

static const char *
app_string (const StwAppInfo *self,
            const char       *member)
{
  return stw_json_get_string (stw_json_get_object (self->json, "app"), member);
}

/**
 * stw_app_info_get_app_name:
 * @self: a #StwAppInfo
 *
 * Gets the app's name (`app.getName()`).
 *
 * Returns: (transfer none) (nullable): the name, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_app_info_get_app_name (const StwAppInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return app_string (self, "name");
}

/**
 * stw_app_info_get_app_version:
 * @self: a #StwAppInfo
 *
 * Gets the app's version (`app.getVersion()`).
 *
 * Returns: (transfer none) (nullable): the version, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_app_info_get_app_version (const StwAppInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return app_string (self, "version");
}

/**
 * stw_app_info_get_app_path:
 * @self: a #StwAppInfo
 *
 * Gets the app's directory (`app.getAppPath()`).
 *
 * Returns: (transfer none) (nullable) (type filename): the path, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_app_info_get_app_path (const StwAppInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return app_string (self, "path");
}

/**
 * stw_app_info_get_exe_path:
 * @self: a #StwAppInfo
 *
 * Gets the main process's executable (`process.execPath`).
 *
 * Returns: (transfer none) (nullable) (type filename): the path, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_app_info_get_exe_path (const StwAppInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return app_string (self, "exe_path");
}

/**
 * stw_app_info_get_user_data_path:
 * @self: a #StwAppInfo
 *
 * Gets the app's user data directory (`app.getPath('userData')`).
 *
 * Returns: (transfer none) (nullable) (type filename): the path, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_app_info_get_user_data_path (const StwAppInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return app_string (self, "user_data_path");
}

/**
 * stw_app_info_is_packaged:
 * @self: a #StwAppInfo
 *
 * Whether the app runs packaged (`app.isPackaged`).
 *
 * Returns: %TRUE when it is packaged
 *
 * Since: 1.0
 */
gboolean
stw_app_info_is_packaged (const StwAppInfo *self)
{
  JsonObject *app;

  g_return_val_if_fail (self != NULL, FALSE);

  app = stw_json_get_object (self->json, "app");
  return app != NULL && json_object_get_boolean_member_with_default (app, "packaged", FALSE);
}

/**
 * stw_app_info_get_note:
 * @self: a #StwAppInfo
 * @field: a field's name as the tool shows it: `app.path`,
 *   `versions.node`, …
 *
 * Says why the app could not give @field.
 *
 * Returns: (transfer none) (nullable): why @field is missing, or %NULL
 *   when it is not or nobody knows why
 *
 * Since: 1.0
 */
const char *
stw_app_info_get_note (const StwAppInfo *self,
                       const char       *field)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (field != NULL, NULL);

  return stw_json_get_string (stw_json_get_object (self->json, "notes"), field);
}

/* The information as the `electron_info` tool answers it: `{app, versions,
 * protocol_version?, notes?}`, each field exactly as the app gave it.
 * Registered as the type's JSON serialization, which the tool calls through
 * json_boxed_serialize(). */
static JsonObject *
app_info_to_json (const StwAppInfo *self)
{
  JsonObject *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = json_object_new ();
  stw_json_object_copy_members (copy, self->json, NULL);
  return copy;
}

static JsonNode *
app_info_serialize (gconstpointer boxed)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, app_info_to_json (boxed));
  return node;
}

/* --- discovered apps ------------------------------------------------------- */

/**
 * stw_discovered_app_new:
 * @websocket_url: the browser's DevTools WebSocket URL
 * @port: the port it was found on
 * @app_name: (nullable): the browser's name (`/json/version`'s `Browser`)
 * @pid: the process listening on @port, or 0 when unknown
 *
 * Creates a discovered endpoint; for tests and for callers that found one
 * their own way.
 *
 * Returns: (transfer full): a new #StwDiscoveredApp
 *
 * Since: 1.0
 */
StwDiscoveredApp *
stw_discovered_app_new (const char *websocket_url,
                        guint       port,
                        const char *app_name,
                        GPid        pid)
{
  StwDiscoveredApp *self;

  g_return_val_if_fail (websocket_url != NULL, NULL);

  self = g_new0 (StwDiscoveredApp, 1);
  self->websocket_url = g_strdup (websocket_url);
  self->port = port;
  self->app_name = g_strdup (app_name);
  self->pid = pid;
  return self;
}

/**
 * stw_discovered_app_copy:
 * @self: a #StwDiscoveredApp
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 1.0
 */
StwDiscoveredApp *
stw_discovered_app_copy (const StwDiscoveredApp *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_discovered_app_new (self->websocket_url, self->port, self->app_name, self->pid);
}

/**
 * stw_discovered_app_free:
 * @self: (nullable): a #StwDiscoveredApp
 *
 * Frees @self.
 *
 * Since: 1.0
 */
void
stw_discovered_app_free (StwDiscoveredApp *self)
{
  if (self == NULL)
    return;
  g_free (self->websocket_url);
  g_free (self->app_name);
  g_free (self);
}

/**
 * stw_discovered_app_get_websocket_url:
 * @self: a #StwDiscoveredApp
 *
 * Gets the browser's DevTools WebSocket URL (`ws://127.0.0.1:PORT/…`),
 * which the `electron_attach` tool takes as its target.
 *
 * Returns: (transfer none): the URL
 *
 * Since: 1.0
 */
const char *
stw_discovered_app_get_websocket_url (const StwDiscoveredApp *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->websocket_url;
}

/**
 * stw_discovered_app_get_port:
 * @self: a #StwDiscoveredApp
 *
 * Gets the port the endpoint was found on.
 *
 * Returns: the TCP port
 *
 * Since: 1.0
 */
guint
stw_discovered_app_get_port (const StwDiscoveredApp *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->port;
}

/**
 * stw_discovered_app_get_app_name:
 * @self: a #StwDiscoveredApp
 *
 * Gets the browser's name, as `/json/version` gives it (`Chrome/120.0…`).
 *
 * Returns: (transfer none) (nullable): the name, or %NULL when not given
 *
 * Since: 1.0
 */
const char *
stw_discovered_app_get_app_name (const StwDiscoveredApp *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->app_name;
}

/**
 * stw_discovered_app_get_pid:
 * @self: a #StwDiscoveredApp
 *
 * Gets the process listening on the port.
 *
 * Returns: the process id, or 0 when unknown
 *
 * Since: 1.0
 */
GPid
stw_discovered_app_get_pid (const StwDiscoveredApp *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->pid;
}
