/* stw-native-types.c: the native plugin's typed results — menu items,
 * trays, notifications
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each is a read-only view of one entry of the main-process answer: the
 * tools answer that JSON as it came, C, Python and GJS read the getters
 * (and properties) here.
 */
#include "config.h"

#include "stw-native-types-private.h"

static const char *
string_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

/* A list of @type made from each object of @array (NULL: an empty list). */
GListModel *
_stw_native_list_new (GType      type,
                      JsonArray *array)
{
  GListStore *store = g_list_store_new (type);

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonObject *entry = json_array_get_object_element (array, i);
      g_autoptr(GObject) item = NULL;

      if (entry == NULL)
        continue;
      item = g_object_new (type, NULL);
      _stw_native_view_set (item, entry);
      g_list_store_append (store, item);
    }
  return G_LIST_MODEL (store);
}

/* --- StwNativeMenuItem ---------------------------------------------------- */

/**
 * StwNativeMenuItem:
 *
 * One item of the application menu or of a tray's context menu, as it was
 * when it was read, with its submenu.
 *
 * Since: 1.0
 */
struct _StwNativeMenuItem
{
  GObject      parent_instance;
  JsonObject  *json;
  GStrv        path;
  GListModel  *submenu;
};

enum
{
  ITEM_PROP_0,
  ITEM_PROP_LABEL,
  ITEM_PROP_ROLE,
  ITEM_PROP_ITEM_TYPE,
  ITEM_PROP_ENABLED,
  ITEM_PROP_VISIBLE,
  ITEM_PROP_CHECKED,
  ITEM_PROP_ACCELERATOR,
  ITEM_PROP_ID,
  ITEM_PROP_PATH,
  ITEM_PROP_SUBMENU,
  ITEM_N_PROPS
};

static GParamSpec *item_props[ITEM_N_PROPS];

G_DEFINE_FINAL_TYPE (StwNativeMenuItem, stw_native_menu_item, G_TYPE_OBJECT)

static void
stw_native_menu_item_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  StwNativeMenuItem *self = STW_NATIVE_MENU_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_LABEL:
      g_value_set_string (value, stw_native_menu_item_get_label (self));
      break;
    case ITEM_PROP_ROLE:
      g_value_set_string (value, stw_native_menu_item_get_role (self));
      break;
    case ITEM_PROP_ITEM_TYPE:
      g_value_set_string (value, stw_native_menu_item_get_item_type (self));
      break;
    case ITEM_PROP_ENABLED:
      g_value_set_boolean (value, stw_native_menu_item_get_enabled (self));
      break;
    case ITEM_PROP_VISIBLE:
      g_value_set_boolean (value, stw_native_menu_item_get_visible (self));
      break;
    case ITEM_PROP_CHECKED:
      g_value_set_boolean (value, stw_native_menu_item_get_checked (self));
      break;
    case ITEM_PROP_ACCELERATOR:
      g_value_set_string (value, stw_native_menu_item_get_accelerator (self));
      break;
    case ITEM_PROP_ID:
      g_value_set_string (value, stw_native_menu_item_get_id (self));
      break;
    case ITEM_PROP_PATH:
      g_value_set_boxed (value, self->path);
      break;
    case ITEM_PROP_SUBMENU:
      g_value_set_object (value, self->submenu);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_native_menu_item_finalize (GObject *object)
{
  StwNativeMenuItem *self = STW_NATIVE_MENU_ITEM (object);

  g_clear_pointer (&self->json, json_object_unref);
  g_clear_pointer (&self->path, g_strfreev);
  g_clear_object (&self->submenu);
  G_OBJECT_CLASS (stw_native_menu_item_parent_class)->finalize (object);
}

#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
stw_native_menu_item_class_init (StwNativeMenuItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = stw_native_menu_item_get_property;
  object_class->finalize = stw_native_menu_item_finalize;

  /**
   * StwNativeMenuItem:label: (getter get_label)
   *
   * The item's label, empty for a separator or a role item without one.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_LABEL] = g_param_spec_string ("label", NULL, NULL, NULL, RO);
  /**
   * StwNativeMenuItem:role: (getter get_role)
   *
   * The item's Electron role (`quit`, `copy`, …), if any.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_ROLE] = g_param_spec_string ("role", NULL, NULL, NULL, RO);
  /**
   * StwNativeMenuItem:item-type: (getter get_item_type)
   *
   * Electron's type: `normal`, `separator`, `submenu`, `checkbox` or `radio`.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_ITEM_TYPE] = g_param_spec_string ("item-type", NULL, NULL, NULL, RO);
  /**
   * StwNativeMenuItem:enabled: (getter get_enabled)
   *
   * Whether the item is enabled.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_ENABLED] = g_param_spec_boolean ("enabled", NULL, NULL, FALSE, RO);
  /**
   * StwNativeMenuItem:visible: (getter get_visible)
   *
   * Whether the item is visible.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_VISIBLE] = g_param_spec_boolean ("visible", NULL, NULL, FALSE, RO);
  /**
   * StwNativeMenuItem:checked: (getter get_checked)
   *
   * Whether a checkbox or radio item is checked.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_CHECKED] = g_param_spec_boolean ("checked", NULL, NULL, FALSE, RO);
  /**
   * StwNativeMenuItem:accelerator: (getter get_accelerator)
   *
   * The item's accelerator, if any.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_ACCELERATOR] = g_param_spec_string ("accelerator", NULL, NULL, NULL, RO);
  /**
   * StwNativeMenuItem:id: (getter get_id)
   *
   * The item's id, if the app gave one.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, RO);
  /**
   * StwNativeMenuItem:path: (getter get_path)
   *
   * The labels (or roles) from the top of its menu down to the item.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_PATH] = g_param_spec_boxed ("path", NULL, NULL, G_TYPE_STRV, RO);
  /**
   * StwNativeMenuItem:submenu: (getter get_submenu)
   *
   * The items of its submenu, or %NULL.
   *
   * Since: 1.0
   */
  item_props[ITEM_PROP_SUBMENU] = g_param_spec_object ("submenu", NULL, NULL, G_TYPE_LIST_MODEL, RO);
  g_object_class_install_properties (object_class, ITEM_N_PROPS, item_props);
}

static void
stw_native_menu_item_init (StwNativeMenuItem *self)
{
}

/**
 * stw_native_menu_item_get_label:
 * @self: a #StwNativeMenuItem
 *
 * Returns: the item's label
 *
 * Since: 1.0
 */
const char *
stw_native_menu_item_get_label (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), NULL);
  return self->json ? json_object_get_string_member_with_default (self->json, "label", "") : "";
}

/**
 * stw_native_menu_item_get_role:
 * @self: a #StwNativeMenuItem
 *
 * Returns: (nullable): the item's role
 *
 * Since: 1.0
 */
const char *
stw_native_menu_item_get_role (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), NULL);
  return self->json ? string_member (self->json, "role") : NULL;
}

/**
 * stw_native_menu_item_get_item_type:
 * @self: a #StwNativeMenuItem
 *
 * Returns: the item's Electron type (`normal`, `checkbox`, …)
 *
 * Since: 1.0
 */
const char *
stw_native_menu_item_get_item_type (StwNativeMenuItem *self)
{
  const char *type;

  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), NULL);
  type = self->json ? string_member (self->json, "type") : NULL;
  return type ? type : "normal";
}

/**
 * stw_native_menu_item_get_enabled:
 * @self: a #StwNativeMenuItem
 *
 * Returns: whether the item is enabled
 *
 * Since: 1.0
 */
gboolean
stw_native_menu_item_get_enabled (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), FALSE);
  return self->json && json_object_get_boolean_member_with_default (self->json, "enabled", FALSE);
}

/**
 * stw_native_menu_item_get_visible:
 * @self: a #StwNativeMenuItem
 *
 * Returns: whether the item is visible
 *
 * Since: 1.0
 */
gboolean
stw_native_menu_item_get_visible (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), FALSE);
  return self->json && json_object_get_boolean_member_with_default (self->json, "visible", FALSE);
}

/**
 * stw_native_menu_item_get_checked:
 * @self: a #StwNativeMenuItem
 *
 * Returns: whether a checkbox or radio item is checked
 *
 * Since: 1.0
 */
gboolean
stw_native_menu_item_get_checked (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), FALSE);
  return self->json && json_object_get_boolean_member_with_default (self->json, "checked", FALSE);
}

/**
 * stw_native_menu_item_get_accelerator:
 * @self: a #StwNativeMenuItem
 *
 * Returns: (nullable): the item's accelerator
 *
 * Since: 1.0
 */
const char *
stw_native_menu_item_get_accelerator (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), NULL);
  return self->json ? string_member (self->json, "accelerator") : NULL;
}

/**
 * stw_native_menu_item_get_id:
 * @self: a #StwNativeMenuItem
 *
 * Returns: (nullable): the item's id
 *
 * Since: 1.0
 */
const char *
stw_native_menu_item_get_id (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), NULL);
  return self->json ? string_member (self->json, "id") : NULL;
}

/**
 * stw_native_menu_item_get_path:
 * @self: a #StwNativeMenuItem
 *
 * Returns: (array zero-terminated=1) (transfer none): the labels (or
 *   roles) from the top of its menu down to the item
 *
 * Since: 1.0
 */
const char * const *
stw_native_menu_item_get_path (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), NULL);
  return (const char * const *) self->path;
}

/**
 * stw_native_menu_item_get_submenu:
 * @self: a #StwNativeMenuItem
 *
 * Returns: (nullable) (transfer none): the items of its submenu, each a
 *   #StwNativeMenuItem
 *
 * Since: 1.0
 */
GListModel *
stw_native_menu_item_get_submenu (StwNativeMenuItem *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_MENU_ITEM (self), NULL);
  return self->submenu;
}

/* --- StwNativeTray -------------------------------------------------------- */

/**
 * StwNativeTray:
 *
 * One of the app's trays, as the plugin's hook recorded it (Electron has
 * no getter for a tray's tooltip or context menu).
 *
 * Since: 1.0
 */
struct _StwNativeTray
{
  GObject     parent_instance;
  JsonObject *json;
  GListModel *menu;
};

enum
{
  TRAY_PROP_0,
  TRAY_PROP_INDEX,
  TRAY_PROP_TOOL_TIP,
  TRAY_PROP_TITLE,
  TRAY_PROP_HAS_CONTEXT_MENU,
  TRAY_PROP_MENU,
  TRAY_N_PROPS
};

static GParamSpec *tray_props[TRAY_N_PROPS];

G_DEFINE_FINAL_TYPE (StwNativeTray, stw_native_tray, G_TYPE_OBJECT)

static void
stw_native_tray_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  StwNativeTray *self = STW_NATIVE_TRAY (object);

  switch (prop_id)
    {
    case TRAY_PROP_INDEX:
      g_value_set_uint (value, stw_native_tray_get_index (self));
      break;
    case TRAY_PROP_TOOL_TIP:
      g_value_set_string (value, stw_native_tray_get_tool_tip (self));
      break;
    case TRAY_PROP_TITLE:
      g_value_set_string (value, stw_native_tray_get_title (self));
      break;
    case TRAY_PROP_HAS_CONTEXT_MENU:
      g_value_set_boolean (value, stw_native_tray_get_has_context_menu (self));
      break;
    case TRAY_PROP_MENU:
      g_value_set_object (value, self->menu);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_native_tray_finalize (GObject *object)
{
  StwNativeTray *self = STW_NATIVE_TRAY (object);

  g_clear_pointer (&self->json, json_object_unref);
  g_clear_object (&self->menu);
  G_OBJECT_CLASS (stw_native_tray_parent_class)->finalize (object);
}

static void
stw_native_tray_class_init (StwNativeTrayClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = stw_native_tray_get_property;
  object_class->finalize = stw_native_tray_finalize;

  /**
   * StwNativeTray:index: (getter get_index)
   *
   * The tray's index among the app's live trays.
   *
   * Since: 1.0
   */
  tray_props[TRAY_PROP_INDEX] = g_param_spec_uint ("index", NULL, NULL, 0, G_MAXUINT, 0, RO);
  /**
   * StwNativeTray:tool-tip: (getter get_tool_tip)
   *
   * The tooltip the app last set, if any.
   *
   * Since: 1.0
   */
  tray_props[TRAY_PROP_TOOL_TIP] = g_param_spec_string ("tool-tip", NULL, NULL, NULL, RO);
  /**
   * StwNativeTray:title: (getter get_title)
   *
   * The tray's title, if any.
   *
   * Since: 1.0
   */
  tray_props[TRAY_PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, RO);
  /**
   * StwNativeTray:has-context-menu: (getter get_has_context_menu)
   *
   * Whether the app set a context menu.
   *
   * Since: 1.0
   */
  tray_props[TRAY_PROP_HAS_CONTEXT_MENU] = g_param_spec_boolean ("has-context-menu", NULL, NULL, FALSE, RO);
  /**
   * StwNativeTray:menu: (getter get_menu)
   *
   * The items of its context menu, or %NULL.
   *
   * Since: 1.0
   */
  tray_props[TRAY_PROP_MENU] = g_param_spec_object ("menu", NULL, NULL, G_TYPE_LIST_MODEL, RO);
  g_object_class_install_properties (object_class, TRAY_N_PROPS, tray_props);
}

static void
stw_native_tray_init (StwNativeTray *self)
{
}

/**
 * stw_native_tray_get_index:
 * @self: a #StwNativeTray
 *
 * Returns: the tray's index, as [method@StagewrightNative.NativePlugin.tray_invoke_async] takes it
 *
 * Since: 1.0
 */
guint
stw_native_tray_get_index (StwNativeTray *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_TRAY (self), 0);
  return self->json ? (guint) json_object_get_int_member_with_default (self->json, "index", 0) : 0;
}

/**
 * stw_native_tray_get_tool_tip:
 * @self: a #StwNativeTray
 *
 * Returns: (nullable): the tooltip the app last set
 *
 * Since: 1.0
 */
const char *
stw_native_tray_get_tool_tip (StwNativeTray *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_TRAY (self), NULL);
  return self->json ? string_member (self->json, "toolTip") : NULL;
}

/**
 * stw_native_tray_get_title:
 * @self: a #StwNativeTray
 *
 * Returns: (nullable): the tray's title
 *
 * Since: 1.0
 */
const char *
stw_native_tray_get_title (StwNativeTray *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_TRAY (self), NULL);
  return self->json ? string_member (self->json, "title") : NULL;
}

/**
 * stw_native_tray_get_has_context_menu:
 * @self: a #StwNativeTray
 *
 * Returns: whether the app set a context menu
 *
 * Since: 1.0
 */
gboolean
stw_native_tray_get_has_context_menu (StwNativeTray *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_TRAY (self), FALSE);
  return self->json && json_object_get_boolean_member_with_default (self->json, "hasContextMenu", FALSE);
}

/**
 * stw_native_tray_get_menu:
 * @self: a #StwNativeTray
 *
 * Returns: (nullable) (transfer none): its context menu's items, each a
 *   #StwNativeMenuItem
 *
 * Since: 1.0
 */
GListModel *
stw_native_tray_get_menu (StwNativeTray *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_TRAY (self), NULL);
  return self->menu;
}

/* --- StwNativeNotification ------------------------------------------------ */

/**
 * StwNativeNotification:
 *
 * A notification the app made while notifications were captured.
 *
 * Since: 1.0
 */
struct _StwNativeNotification
{
  GObject     parent_instance;
  JsonObject *json;
};

enum
{
  NOTE_PROP_0,
  NOTE_PROP_INDEX,
  NOTE_PROP_TITLE,
  NOTE_PROP_BODY,
  NOTE_PROP_TIME,
  NOTE_PROP_SHOWN,
  NOTE_PROP_CLICKED,
  NOTE_PROP_CLOSED,
  NOTE_N_PROPS
};

static GParamSpec *note_props[NOTE_N_PROPS];

G_DEFINE_FINAL_TYPE (StwNativeNotification, stw_native_notification, G_TYPE_OBJECT)

static void
stw_native_notification_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  StwNativeNotification *self = STW_NATIVE_NOTIFICATION (object);

  switch (prop_id)
    {
    case NOTE_PROP_INDEX:
      g_value_set_uint (value, stw_native_notification_get_index (self));
      break;
    case NOTE_PROP_TITLE:
      g_value_set_string (value, stw_native_notification_get_title (self));
      break;
    case NOTE_PROP_BODY:
      g_value_set_string (value, stw_native_notification_get_body (self));
      break;
    case NOTE_PROP_TIME:
      g_value_set_double (value, stw_native_notification_get_time (self));
      break;
    case NOTE_PROP_SHOWN:
      g_value_set_boolean (value, stw_native_notification_get_shown (self));
      break;
    case NOTE_PROP_CLICKED:
      g_value_set_boolean (value, stw_native_notification_get_clicked (self));
      break;
    case NOTE_PROP_CLOSED:
      g_value_set_boolean (value, stw_native_notification_get_closed (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_native_notification_finalize (GObject *object)
{
  StwNativeNotification *self = STW_NATIVE_NOTIFICATION (object);

  g_clear_pointer (&self->json, json_object_unref);
  G_OBJECT_CLASS (stw_native_notification_parent_class)->finalize (object);
}

static void
stw_native_notification_class_init (StwNativeNotificationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = stw_native_notification_get_property;
  object_class->finalize = stw_native_notification_finalize;

  /**
   * StwNativeNotification:index: (getter get_index)
   *
   * Its index in the capture, as
   * [method@StagewrightNative.NativePlugin.notification_invoke_async] takes it.
   *
   * Since: 1.0
   */
  note_props[NOTE_PROP_INDEX] = g_param_spec_uint ("index", NULL, NULL, 0, G_MAXUINT, 0, RO);
  /**
   * StwNativeNotification:title: (getter get_title)
   *
   * Its title.
   *
   * Since: 1.0
   */
  note_props[NOTE_PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, RO);
  /**
   * StwNativeNotification:body: (getter get_body)
   *
   * Its body.
   *
   * Since: 1.0
   */
  note_props[NOTE_PROP_BODY] = g_param_spec_string ("body", NULL, NULL, NULL, RO);
  /**
   * StwNativeNotification:time: (getter get_time)
   *
   * When it was made, in milliseconds since the epoch.
   *
   * Since: 1.0
   */
  note_props[NOTE_PROP_TIME] = g_param_spec_double ("time", NULL, NULL, 0, G_MAXDOUBLE, 0, RO);
  /**
   * StwNativeNotification:shown: (getter get_shown)
   *
   * Whether the app showed it.
   *
   * Since: 1.0
   */
  note_props[NOTE_PROP_SHOWN] = g_param_spec_boolean ("shown", NULL, NULL, FALSE, RO);
  /**
   * StwNativeNotification:clicked: (getter get_clicked)
   *
   * Whether it was clicked.
   *
   * Since: 1.0
   */
  note_props[NOTE_PROP_CLICKED] = g_param_spec_boolean ("clicked", NULL, NULL, FALSE, RO);
  /**
   * StwNativeNotification:closed: (getter get_closed)
   *
   * Whether it was closed.
   *
   * Since: 1.0
   */
  note_props[NOTE_PROP_CLOSED] = g_param_spec_boolean ("closed", NULL, NULL, FALSE, RO);
  g_object_class_install_properties (object_class, NOTE_N_PROPS, note_props);
}

static void
stw_native_notification_init (StwNativeNotification *self)
{
}

/**
 * stw_native_notification_get_index:
 * @self: a #StwNativeNotification
 *
 * Returns: its index in the capture
 *
 * Since: 1.0
 */
guint
stw_native_notification_get_index (StwNativeNotification *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_NOTIFICATION (self), 0);
  return self->json ? (guint) json_object_get_int_member_with_default (self->json, "index", 0) : 0;
}

/**
 * stw_native_notification_get_title:
 * @self: a #StwNativeNotification
 *
 * Returns: (nullable): its title
 *
 * Since: 1.0
 */
const char *
stw_native_notification_get_title (StwNativeNotification *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_NOTIFICATION (self), NULL);
  return self->json ? string_member (self->json, "title") : NULL;
}

/**
 * stw_native_notification_get_body:
 * @self: a #StwNativeNotification
 *
 * Returns: (nullable): its body
 *
 * Since: 1.0
 */
const char *
stw_native_notification_get_body (StwNativeNotification *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_NOTIFICATION (self), NULL);
  return self->json ? string_member (self->json, "body") : NULL;
}

/**
 * stw_native_notification_get_time:
 * @self: a #StwNativeNotification
 *
 * Returns: when it was made, in milliseconds since the epoch
 *
 * Since: 1.0
 */
double
stw_native_notification_get_time (StwNativeNotification *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_NOTIFICATION (self), 0);
  return self->json ? json_object_get_double_member_with_default (self->json, "time", 0) : 0;
}

/**
 * stw_native_notification_get_shown:
 * @self: a #StwNativeNotification
 *
 * Returns: whether the app showed it
 *
 * Since: 1.0
 */
gboolean
stw_native_notification_get_shown (StwNativeNotification *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_NOTIFICATION (self), FALSE);
  return self->json && json_object_get_boolean_member_with_default (self->json, "shown", FALSE);
}

/**
 * stw_native_notification_get_clicked:
 * @self: a #StwNativeNotification
 *
 * Returns: whether it was clicked
 *
 * Since: 1.0
 */
gboolean
stw_native_notification_get_clicked (StwNativeNotification *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_NOTIFICATION (self), FALSE);
  return self->json && json_object_get_boolean_member_with_default (self->json, "clicked", FALSE);
}

/**
 * stw_native_notification_get_closed:
 * @self: a #StwNativeNotification
 *
 * Returns: whether it was closed
 *
 * Since: 1.0
 */
gboolean
stw_native_notification_get_closed (StwNativeNotification *self)
{
  g_return_val_if_fail (STW_IS_NATIVE_NOTIFICATION (self), FALSE);
  return self->json && json_object_get_boolean_member_with_default (self->json, "closed", FALSE);
}

/* --- from the answer ------------------------------------------------------ */

void
_stw_native_view_set (gpointer    view,
                      JsonObject *json)
{
  if (STW_IS_NATIVE_MENU_ITEM (view))
    {
      StwNativeMenuItem *self = view;
      JsonNode *path = json_object_get_member (json, "path");
      JsonNode *submenu = json_object_get_member (json, "submenu");
      GStrvBuilder *builder = g_strv_builder_new ();

      self->json = json_object_ref (json);
      for (guint i = 0; path != NULL && JSON_NODE_HOLDS_ARRAY (path) && i < json_array_get_length (json_node_get_array (path)); i++)
        {
          const char *segment = json_array_get_string_element (json_node_get_array (path), i);

          g_strv_builder_add (builder, segment ? segment : "");
        }
      self->path = g_strv_builder_end (builder);
      g_strv_builder_unref (builder);
      if (submenu != NULL && JSON_NODE_HOLDS_ARRAY (submenu))
        self->submenu = _stw_native_list_new (STW_TYPE_NATIVE_MENU_ITEM, json_node_get_array (submenu));
    }
  else if (STW_IS_NATIVE_TRAY (view))
    {
      StwNativeTray *self = view;
      JsonNode *menu = json_object_get_member (json, "menu");

      self->json = json_object_ref (json);
      if (menu != NULL && JSON_NODE_HOLDS_ARRAY (menu))
        self->menu = _stw_native_list_new (STW_TYPE_NATIVE_MENU_ITEM, json_node_get_array (menu));
    }
  else if (STW_IS_NATIVE_NOTIFICATION (view))
    STW_NATIVE_NOTIFICATION (view)->json = json_object_ref (json);
  else
    g_assert_not_reached ();
}
