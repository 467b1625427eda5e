/* stw-ipc-types.c: the ipc plugin's typed results — a capture and its
 * entries
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each is a read-only view of the main-process agent's answer: the tools
 * answer that JSON as it came; C, Python and GJS read the getters (and
 * properties) here. The values an entry carries (arguments, results) are
 * whatever the app passed, so they stay JsonNode.
 */
#include "config.h"

#include "stw-ipc-private.h"

#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static const char *
string_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

static JsonObject *
member_object (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* --- StwIpcEntry ----------------------------------------------------------- */

/**
 * StwIpcEntry:
 *
 * One captured IPC message: an invoke answered by a handler (or a stub), an
 * `ipcMain.on` message or a `webContents.send`.
 *
 * Since: 1.0
 */
struct _StwIpcEntry
{
  GObject     parent_instance;
  JsonObject *json;
};

enum
{
  IPC_ENTRY_PROP_0,
  IPC_ENTRY_PROP_SEQ,
  IPC_ENTRY_PROP_CHANNEL,
  IPC_ENTRY_PROP_KIND,
  IPC_ENTRY_PROP_DIRECTION,
  IPC_ENTRY_PROP_SCOPE,
  IPC_ENTRY_PROP_SOURCE,
  IPC_ENTRY_PROP_WEB_CONTENTS_ID,
  IPC_ENTRY_PROP_WINDOW_ID,
  IPC_ENTRY_PROP_ARGS,
  IPC_ENTRY_PROP_RESULT,
  IPC_ENTRY_PROP_ERROR,
  IPC_ENTRY_PROP_STUBBED,
  IPC_ENTRY_PROP_DURATION_MS,
  IPC_ENTRY_PROP_STARTED_AT,
  IPC_ENTRY_N_PROPS
};

static GParamSpec *stw_ipc_entry_props[IPC_ENTRY_N_PROPS];

G_DEFINE_FINAL_TYPE (StwIpcEntry, stw_ipc_entry, G_TYPE_OBJECT)

static void
stw_ipc_entry_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  StwIpcEntry *self = STW_IPC_ENTRY (object);

  switch (prop_id)
    {
    case IPC_ENTRY_PROP_SEQ:
      g_value_set_uint64 (value, stw_ipc_entry_get_seq (self));
      break;
    case IPC_ENTRY_PROP_CHANNEL:
      g_value_set_string (value, stw_ipc_entry_get_channel (self));
      break;
    case IPC_ENTRY_PROP_KIND:
      g_value_set_string (value, stw_ipc_entry_get_kind (self));
      break;
    case IPC_ENTRY_PROP_DIRECTION:
      g_value_set_string (value, stw_ipc_entry_get_direction (self));
      break;
    case IPC_ENTRY_PROP_SCOPE:
      g_value_set_string (value, stw_ipc_entry_get_scope (self));
      break;
    case IPC_ENTRY_PROP_SOURCE:
      g_value_set_string (value, stw_ipc_entry_get_source (self));
      break;
    case IPC_ENTRY_PROP_WEB_CONTENTS_ID:
      g_value_set_int64 (value, stw_ipc_entry_get_web_contents_id (self));
      break;
    case IPC_ENTRY_PROP_WINDOW_ID:
      g_value_set_int64 (value, stw_ipc_entry_get_window_id (self));
      break;
    case IPC_ENTRY_PROP_ARGS:
      g_value_set_boxed (value, stw_ipc_entry_get_args (self));
      break;
    case IPC_ENTRY_PROP_RESULT:
      g_value_set_boxed (value, stw_ipc_entry_get_result (self));
      break;
    case IPC_ENTRY_PROP_ERROR:
      g_value_set_string (value, stw_ipc_entry_get_error (self));
      break;
    case IPC_ENTRY_PROP_STUBBED:
      g_value_set_boolean (value, stw_ipc_entry_get_stubbed (self));
      break;
    case IPC_ENTRY_PROP_DURATION_MS:
      g_value_set_double (value, stw_ipc_entry_get_duration_ms (self));
      break;
    case IPC_ENTRY_PROP_STARTED_AT:
      g_value_set_string (value, stw_ipc_entry_get_started_at (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_ipc_entry_finalize (GObject *object)
{
  StwIpcEntry *self = STW_IPC_ENTRY (object);

  g_clear_pointer (&self->json, json_object_unref);
  G_OBJECT_CLASS (stw_ipc_entry_parent_class)->finalize (object);
}

static void
stw_ipc_entry_class_init (StwIpcEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = stw_ipc_entry_get_property;
  object_class->finalize = stw_ipc_entry_finalize;

  /**
   * StwIpcEntry:seq: (getter get_seq)
   *
   * Its number in the capture, from 1.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_SEQ] = g_param_spec_uint64 ("seq", NULL, NULL, 0, G_MAXUINT64, 0, RO);
  /**
   * StwIpcEntry:channel: (getter get_channel)
   *
   * The IPC channel.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_CHANNEL] = g_param_spec_string ("channel", NULL, NULL, NULL, RO);
  /**
   * StwIpcEntry:kind: (getter get_kind)
   *
   * `invoke`, `on` or `send`.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_KIND] = g_param_spec_string ("kind", NULL, NULL, NULL, RO);
  /**
   * StwIpcEntry:direction: (getter get_direction)
   *
   * `renderer-to-main` or `main-to-renderer`.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_DIRECTION] = g_param_spec_string ("direction", NULL, NULL, NULL, RO);
  /**
   * StwIpcEntry:scope: (getter get_scope)
   *
   * Where the handler was registered: `ipcMain` or `webContents.ipc`.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_SCOPE] = g_param_spec_string ("scope", NULL, NULL, NULL, RO);
  /**
   * StwIpcEntry:source: (getter get_source)
   *
   * Who made the call: `renderer`, `ipc_invoke` or `main`.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_SOURCE] = g_param_spec_string ("source", NULL, NULL, NULL, RO);
  /**
   * StwIpcEntry:web-contents-id: (getter get_web_contents_id)
   *
   * The webContents the call came from or went to, or 0.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_WEB_CONTENTS_ID] = g_param_spec_int64 ("web-contents-id", NULL, NULL, 0, G_MAXINT64, 0, RO);
  /**
   * StwIpcEntry:window-id: (getter get_window_id)
   *
   * The BrowserWindow of that webContents, or 0.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_WINDOW_ID] = g_param_spec_int64 ("window-id", NULL, NULL, 0, G_MAXINT64, 0, RO);
  /**
   * StwIpcEntry:args: (getter get_args)
   *
   * The arguments, as bounded, redacted copies.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_ARGS] = g_param_spec_boxed ("args", NULL, NULL, JSON_TYPE_NODE, RO);
  /**
   * StwIpcEntry:result: (getter get_result)
   *
   * What the handler answered (a bounded, redacted copy), or %NULL when it threw.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_RESULT] = g_param_spec_boxed ("result", NULL, NULL, JSON_TYPE_NODE, RO);
  /**
   * StwIpcEntry:error: (getter get_error)
   *
   * What the handler threw, or %NULL.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, RO);
  /**
   * StwIpcEntry:stubbed: (getter get_stubbed)
   *
   * Whether a stub answered instead of the handler.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_STUBBED] = g_param_spec_boolean ("stubbed", NULL, NULL, FALSE, RO);
  /**
   * StwIpcEntry:duration-ms: (getter get_duration_ms)
   *
   * How long the handler took, in milliseconds.
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_DURATION_MS] = g_param_spec_double ("duration-ms", NULL, NULL, 0, G_MAXDOUBLE, 0, RO);
  /**
   * StwIpcEntry:started-at: (getter get_started_at)
   *
   * When the call started (ISO 8601).
   *
   * Since: 1.0
   */
  stw_ipc_entry_props[IPC_ENTRY_PROP_STARTED_AT] = g_param_spec_string ("started-at", NULL, NULL, NULL, RO);
  g_object_class_install_properties (object_class, IPC_ENTRY_N_PROPS, stw_ipc_entry_props);
}

static void
stw_ipc_entry_init (StwIpcEntry *self)
{
}

/**
 * stw_ipc_entry_get_seq:
 * @self: a #StwIpcEntry
 *
 * Returns: its number in the capture, from 1
 *
 * Since: 1.0
 */
guint64
stw_ipc_entry_get_seq (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), 0);
  return (guint64) MAX (0, json_object_get_int_member_with_default (self->json, "seq", 0));
}

/**
 * stw_ipc_entry_get_channel:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable): the IPC channel
 *
 * Since: 1.0
 */
const char *
stw_ipc_entry_get_channel (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return string_member (self->json, "channel");
}

/**
 * stw_ipc_entry_get_kind:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable): `invoke`, `on` or `send`
 *
 * Since: 1.0
 */
const char *
stw_ipc_entry_get_kind (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return string_member (self->json, "kind");
}

/**
 * stw_ipc_entry_get_direction:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable): `renderer-to-main` or `main-to-renderer`
 *
 * Since: 1.0
 */
const char *
stw_ipc_entry_get_direction (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return string_member (self->json, "direction");
}

/**
 * stw_ipc_entry_get_scope:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable): where the handler was registered: `ipcMain` or `webContents.ipc`
 *
 * Since: 1.0
 */
const char *
stw_ipc_entry_get_scope (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return string_member (self->json, "scope");
}

/**
 * stw_ipc_entry_get_source:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable): who made the call: `renderer`, `ipc_invoke` or `main`
 *
 * Since: 1.0
 */
const char *
stw_ipc_entry_get_source (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return string_member (self->json, "source");
}

/**
 * stw_ipc_entry_get_web_contents_id:
 * @self: a #StwIpcEntry
 *
 * Returns: the webContents the call came from or went to, or 0
 *
 * Since: 1.0
 */
gint64
stw_ipc_entry_get_web_contents_id (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), 0);
  JsonObject *window = member_object (self->json, "window");

  return window != NULL ? json_object_get_int_member_with_default (window, "webContentsId", 0) : 0;
}

/**
 * stw_ipc_entry_get_window_id:
 * @self: a #StwIpcEntry
 *
 * Returns: the BrowserWindow of that webContents, or 0
 *
 * Since: 1.0
 */
gint64
stw_ipc_entry_get_window_id (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), 0);
  JsonObject *window = member_object (self->json, "window");

  return window != NULL ? json_object_get_int_member_with_default (window, "windowId", 0) : 0;
}

/**
 * stw_ipc_entry_get_args:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable) (transfer none): the arguments, as bounded, redacted copies
 *
 * Since: 1.0
 */
JsonNode *
stw_ipc_entry_get_args (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return json_object_get_member (self->json, "args");
}

/**
 * stw_ipc_entry_get_result:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable) (transfer none): what the handler answered (a bounded, redacted copy), or %NULL when it threw
 *
 * Since: 1.0
 */
JsonNode *
stw_ipc_entry_get_result (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return json_object_get_member (self->json, "result");
}

/**
 * stw_ipc_entry_get_error:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable): what the handler threw, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_ipc_entry_get_error (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return string_member (self->json, "error");
}

/**
 * stw_ipc_entry_get_stubbed:
 * @self: a #StwIpcEntry
 *
 * Returns: whether a stub answered instead of the handler
 *
 * Since: 1.0
 */
gboolean
stw_ipc_entry_get_stubbed (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), FALSE);
  return json_object_get_boolean_member_with_default (self->json, "stubbed", FALSE);
}

/**
 * stw_ipc_entry_get_duration_ms:
 * @self: a #StwIpcEntry
 *
 * Returns: how long the handler took, in milliseconds
 *
 * Since: 1.0
 */
double
stw_ipc_entry_get_duration_ms (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), 0);
  return json_object_get_double_member_with_default (self->json, "durationMs", 0);
}

/**
 * stw_ipc_entry_get_started_at:
 * @self: a #StwIpcEntry
 *
 * Returns: (nullable): when the call started (ISO 8601)
 *
 * Since: 1.0
 */
const char *
stw_ipc_entry_get_started_at (StwIpcEntry *self)
{
  g_return_val_if_fail (STW_IS_IPC_ENTRY (self), NULL);
  return string_member (self->json, "startedAt");
}

/* --- StwIpcCapture --------------------------------------------------------- */

/**
 * StwIpcCapture:
 *
 * A capture's state and entries, as [method@StagewrightIpc.IpcPlugin.captured_async]
 * and [method@StagewrightIpc.IpcPlugin.capture_stop_async] answer it.
 *
 * Since: 1.0
 */
struct _StwIpcCapture
{
  GObject     parent_instance;
  JsonObject *json;
  GListModel *entries;
};

enum
{
  IPC_CAPTURE_PROP_0,
  IPC_CAPTURE_PROP_CAPTURING,
  IPC_CAPTURE_PROP_TOTAL,
  IPC_CAPTURE_PROP_DROPPED,
  IPC_CAPTURE_PROP_ENTRIES,
  IPC_CAPTURE_N_PROPS
};

static GParamSpec *stw_ipc_capture_props[IPC_CAPTURE_N_PROPS];

G_DEFINE_FINAL_TYPE (StwIpcCapture, stw_ipc_capture, G_TYPE_OBJECT)

static void
stw_ipc_capture_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  StwIpcCapture *self = STW_IPC_CAPTURE (object);

  switch (prop_id)
    {
    case IPC_CAPTURE_PROP_CAPTURING:
      g_value_set_boolean (value, stw_ipc_capture_get_capturing (self));
      break;
    case IPC_CAPTURE_PROP_TOTAL:
      g_value_set_uint64 (value, stw_ipc_capture_get_total (self));
      break;
    case IPC_CAPTURE_PROP_DROPPED:
      g_value_set_uint64 (value, stw_ipc_capture_get_dropped (self));
      break;
    case IPC_CAPTURE_PROP_ENTRIES:
      g_value_set_object (value, stw_ipc_capture_get_entries (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_ipc_capture_finalize (GObject *object)
{
  StwIpcCapture *self = STW_IPC_CAPTURE (object);

  g_clear_pointer (&self->json, json_object_unref);
  g_clear_object (&self->entries);
  G_OBJECT_CLASS (stw_ipc_capture_parent_class)->finalize (object);
}

static void
stw_ipc_capture_class_init (StwIpcCaptureClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = stw_ipc_capture_get_property;
  object_class->finalize = stw_ipc_capture_finalize;

  /**
   * StwIpcCapture:capturing: (getter get_capturing)
   *
   * Whether the capture still runs.
   *
   * Since: 1.0
   */
  stw_ipc_capture_props[IPC_CAPTURE_PROP_CAPTURING] = g_param_spec_boolean ("capturing", NULL, NULL, FALSE, RO);
  /**
   * StwIpcCapture:total: (getter get_total)
   *
   * How many entries the capture holds (of the channel asked for).
   *
   * Since: 1.0
   */
  stw_ipc_capture_props[IPC_CAPTURE_PROP_TOTAL] = g_param_spec_uint64 ("total", NULL, NULL, 0, G_MAXUINT64, 0, RO);
  /**
   * StwIpcCapture:dropped: (getter get_dropped)
   *
   * How many older entries the bound (config maxEntries) dropped.
   *
   * Since: 1.0
   */
  stw_ipc_capture_props[IPC_CAPTURE_PROP_DROPPED] = g_param_spec_uint64 ("dropped", NULL, NULL, 0, G_MAXUINT64, 0, RO);
  /**
   * StwIpcCapture:entries: (getter get_entries)
   *
   * The entries, oldest first, each a #StwIpcEntry.
   *
   * Since: 1.0
   */
  stw_ipc_capture_props[IPC_CAPTURE_PROP_ENTRIES] = g_param_spec_object ("entries", NULL, NULL, G_TYPE_LIST_MODEL, RO);
  g_object_class_install_properties (object_class, IPC_CAPTURE_N_PROPS, stw_ipc_capture_props);
}

static void
stw_ipc_capture_init (StwIpcCapture *self)
{
}

/**
 * stw_ipc_capture_get_capturing:
 * @self: a #StwIpcCapture
 *
 * Returns: whether the capture still runs
 *
 * Since: 1.0
 */
gboolean
stw_ipc_capture_get_capturing (StwIpcCapture *self)
{
  g_return_val_if_fail (STW_IS_IPC_CAPTURE (self), FALSE);
  return json_object_get_boolean_member_with_default (self->json, "capturing", FALSE);
}

/**
 * stw_ipc_capture_get_total:
 * @self: a #StwIpcCapture
 *
 * Returns: how many entries the capture holds (of the channel asked for)
 *
 * Since: 1.0
 */
guint64
stw_ipc_capture_get_total (StwIpcCapture *self)
{
  g_return_val_if_fail (STW_IS_IPC_CAPTURE (self), 0);
  return (guint64) MAX (0, json_object_get_int_member_with_default (self->json, "total", 0));
}

/**
 * stw_ipc_capture_get_dropped:
 * @self: a #StwIpcCapture
 *
 * Returns: how many older entries the bound (config maxEntries) dropped
 *
 * Since: 1.0
 */
guint64
stw_ipc_capture_get_dropped (StwIpcCapture *self)
{
  g_return_val_if_fail (STW_IS_IPC_CAPTURE (self), 0);
  return (guint64) MAX (0, json_object_get_int_member_with_default (self->json, "dropped", 0));
}

/**
 * stw_ipc_capture_get_entries:
 * @self: a #StwIpcCapture
 *
 * Returns: (transfer none): the entries, oldest first, each a #StwIpcEntry
 *
 * Since: 1.0
 */
GListModel *
stw_ipc_capture_get_entries (StwIpcCapture *self)
{
  g_return_val_if_fail (STW_IS_IPC_CAPTURE (self), NULL);
  return self->entries;
}

/* --- from the answer ------------------------------------------------------ */

StwIpcCapture *
_stw_ipc_capture_new (JsonObject *answer)
{
  StwIpcCapture *self = g_object_new (STW_TYPE_IPC_CAPTURE, NULL);
  GListStore *entries = g_list_store_new (STW_TYPE_IPC_ENTRY);
  JsonNode *list = json_object_get_member (answer, "entries");
  JsonArray *array = list != NULL && JSON_NODE_HOLDS_ARRAY (list) ? json_node_get_array (list) : NULL;

  self->json = json_object_ref (answer);
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonObject *object = json_array_get_object_element (array, i);
      g_autoptr(StwIpcEntry) entry = NULL;

      if (object == NULL)
        continue;
      entry = g_object_new (STW_TYPE_IPC_ENTRY, NULL);
      entry->json = json_object_ref (object);
      g_list_store_append (entries, entry);
    }
  self->entries = G_LIST_MODEL (entries);
  return self;
}
