/* stw-action-result.c: what an interaction answers
 *
 * The action engine (stw-surface-actions.c) gathers its answer as the
 * page gives it; this turns it into typed values once, when the action
 * completes. What the tools echo from their own arguments (the text
 * typed, the keys pressed) is not repeated here.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-action-result.h"
#include "stw-action-result-private.h"
#include "stw-element-ref-private.h"
#include "stw-json-private.h"

struct _StwDialogEvent
{
  char       *type;
  char       *message;
  char       *action;
  JsonObject *entry;   /* the dialog log's entry, or NULL for an action's */
};

struct _StwActionResult
{
  StwElementRef  *target;
  StwElementRef  *source;
  StwDialogEvent *dialog;
  GStrv           values;
  gboolean        default_prevented;
};

G_DEFINE_BOXED_TYPE (StwDialogEvent, stw_dialog_event, stw_dialog_event_copy, stw_dialog_event_free)
G_DEFINE_BOXED_TYPE (StwActionResult, stw_action_result, stw_action_result_copy, stw_action_result_free)

/* --- StwDialogEvent ---------------------------------------------------------- */

/**
 * stw_dialog_event_new:
 * @type: the dialog's type: `alert`, `confirm`, `prompt` or `beforeunload`
 * @message: (nullable): its message
 * @action: `accept` or `dismiss`
 *
 * Creates a dialog event.
 *
 * Returns: (transfer full): a new #StwDialogEvent
 *
 * Since: 1.0
 */
StwDialogEvent *
stw_dialog_event_new (const char *type,
                      const char *message,
                      const char *action)
{
  StwDialogEvent *self;

  g_return_val_if_fail (type != NULL, NULL);
  g_return_val_if_fail (action != NULL, NULL);

  self = g_new0 (StwDialogEvent, 1);
  self->type = g_strdup (type);
  self->message = g_strdup (message ? message : "");
  self->action = g_strdup (action);
  return self;
}

/**
 * stw_dialog_event_copy:
 * @self: a #StwDialogEvent
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 1.0
 */
StwDialogEvent *
stw_dialog_event_copy (const StwDialogEvent *self)
{
  StwDialogEvent *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_new0 (StwDialogEvent, 1);
  copy->type = g_strdup (self->type);
  copy->message = g_strdup (self->message);
  copy->action = g_strdup (self->action);
  copy->entry = self->entry ? json_object_ref (self->entry) : NULL;
  return copy;
}

/* @entry: one entry of the session's dialog log: a page dialog
 * `{type, message, action, …}` or a stubbed call `{type, args, …}`, which
 * has no message and no action. */
StwDialogEvent *
_stw_dialog_event_new_from_entry (JsonObject *entry)
{
  StwDialogEvent *self;

  g_return_val_if_fail (entry != NULL, NULL);

  self = g_new0 (StwDialogEvent, 1);
  self->type = g_strdup (stw_json_get_string (entry, "type"));
  self->message = g_strdup (stw_json_get_string (entry, "message") ?: "");
  self->action = g_strdup (stw_json_get_string (entry, "action"));
  self->entry = json_object_ref (entry);
  return self;
}

/**
 * stw_dialog_event_free:
 * @self: (nullable): a #StwDialogEvent
 *
 * Frees @self.
 *
 * Since: 1.0
 */
void
stw_dialog_event_free (StwDialogEvent *self)
{
  if (self == NULL)
    return;
  g_free (self->type);
  g_free (self->message);
  g_free (self->action);
  g_clear_pointer (&self->entry, json_object_unref);
  g_free (self);
}

/**
 * stw_dialog_event_get_kind:
 * @self: a #StwDialogEvent
 *
 * Gets the dialog's type.
 *
 * Returns: (transfer none): `alert`, `confirm`, `prompt` or `beforeunload`
 *   for a page dialog, or the stubbed method's name
 *   (`dialog.showOpenDialog`, `shell.openExternal`, …) for an event of
 *   [method@Stagewright.Session.read_dialog_events_async]
 *
 * Since: 1.0
 */
const char *
stw_dialog_event_get_kind (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->type;
}

/**
 * stw_dialog_event_get_message:
 * @self: a #StwDialogEvent
 *
 * Gets the dialog's message.
 *
 * Returns: (transfer none): the message, empty when it has none
 *
 * Since: 1.0
 */
const char *
stw_dialog_event_get_message (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->message;
}

/**
 * stw_dialog_event_get_action:
 * @self: a #StwDialogEvent
 *
 * Gets what the dialog policy did with the dialog.
 *
 * Returns: (transfer none) (nullable): `accept` or `dismiss`, or %NULL for
 *   a stubbed call
 *
 * Since: 1.0
 */
const char *
stw_dialog_event_get_action (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->action;
}

/**
 * stw_dialog_event_to_json:
 * @self: a #StwDialogEvent
 *
 * Gives the dialog as the interaction tools answer it:
 * `{type, message, action}`, or, for an event of
 * [method@Stagewright.Session.read_dialog_events_async], as
 * `electron_dialog_handler` lists it. JSON because this is the wire form,
 * for tools.
 *
 * Returns: (transfer full): a new object
 *
 * Since: 1.0
 */
JsonObject *
stw_dialog_event_to_json (const StwDialogEvent *self)
{
  JsonObject *object;

  g_return_val_if_fail (self != NULL, NULL);

  object = json_object_new ();
  if (self->entry != NULL)
    {
      stw_json_object_copy_members (object, self->entry, NULL);
      return object;
    }
  json_object_set_string_member (object, "type", self->type);
  json_object_set_string_member (object, "message", self->message);
  json_object_set_string_member (object, "action", self->action);
  return object;
}

/**
 * stw_dialog_event_get_timestamp:
 * @self: a #StwDialogEvent
 *
 * Gets when the dialog opened or the stubbed call was made.
 *
 * Returns: the time in milliseconds since the epoch, or 0 for the dialog
 *   of an action's answer
 *
 * Since: 1.0
 */
gint64
stw_dialog_event_get_timestamp (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->entry ? json_object_get_int_member_with_default (self->entry, "timestamp", 0) : 0;
}

/**
 * stw_dialog_event_get_surface_id:
 * @self: a #StwDialogEvent
 *
 * Gets the surface whose page opened the dialog.
 *
 * Returns: (transfer none) (nullable): the surface id, or %NULL for a
 *   stubbed call or the dialog of an action's answer
 *
 * Since: 1.0
 */
const char *
stw_dialog_event_get_surface_id (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "surfaceId");
}

/**
 * stw_dialog_event_get_window_id:
 * @self: a #StwDialogEvent
 *
 * Gets the window whose page opened the dialog.
 *
 * Returns: (transfer none) (nullable): the window id, or %NULL for a
 *   stubbed call or the dialog of an action's answer
 *
 * Since: 1.0
 */
const char *
stw_dialog_event_get_window_id (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "windowId");
}

/**
 * stw_dialog_event_get_default_value:
 * @self: a #StwDialogEvent
 *
 * Gets the default text a `prompt` offered.
 *
 * Returns: (transfer none) (nullable): the text, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_dialog_event_get_default_value (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "defaultValue");
}

/**
 * stw_dialog_event_get_prompt_text:
 * @self: a #StwDialogEvent
 *
 * Gets the text the policy answered an accepted `prompt` with.
 *
 * Returns: (transfer none) (nullable): the text, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_dialog_event_get_prompt_text (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->entry, "promptText");
}

/**
 * stw_dialog_event_is_stubbed_call:
 * @self: a #StwDialogEvent
 *
 * Whether the event is a call to a stubbed Electron method recorded in
 * the main process rather than a page dialog.
 *
 * Returns: %TRUE for a stubbed call
 *
 * Since: 1.0
 */
gboolean
stw_dialog_event_is_stubbed_call (const StwDialogEvent *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return g_strcmp0 (stw_json_get_string (self->entry, "source"), "main") == 0;
}

/* --- StwActionResult ---------------------------------------------------------- */

/**
 * stw_action_result_copy:
 * @self: a #StwActionResult
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 1.0
 */
StwActionResult *
stw_action_result_copy (const StwActionResult *self)
{
  StwActionResult *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_new0 (StwActionResult, 1);
  copy->target = self->target ? stw_element_ref_copy (self->target) : NULL;
  copy->source = self->source ? stw_element_ref_copy (self->source) : NULL;
  copy->dialog = self->dialog ? stw_dialog_event_copy (self->dialog) : NULL;
  copy->values = g_strdupv (self->values);
  copy->default_prevented = self->default_prevented;
  return copy;
}

/**
 * stw_action_result_free:
 * @self: (nullable): a #StwActionResult
 *
 * Frees @self.
 *
 * Since: 1.0
 */
void
stw_action_result_free (StwActionResult *self)
{
  if (self == NULL)
    return;
  stw_element_ref_free (self->target);
  stw_element_ref_free (self->source);
  stw_dialog_event_free (self->dialog);
  g_strfreev (self->values);
  g_free (self);
}

/**
 * stw_action_result_get_target:
 * @self: a #StwActionResult
 *
 * Gets the element acted on; for a drag, where it was dropped.
 *
 * Returns: (transfer none) (nullable): the element, or %NULL for a
 *   scroll of the viewport
 *
 * Since: 1.0
 */
const StwElementRef *
stw_action_result_get_target (const StwActionResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->target;
}

/**
 * stw_action_result_get_source:
 * @self: a #StwActionResult
 *
 * Gets the element a drag started from.
 *
 * Returns: (transfer none) (nullable): the element dragged, or %NULL for
 *   any other action
 *
 * Since: 1.0
 */
const StwElementRef *
stw_action_result_get_source (const StwActionResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->source;
}

/**
 * stw_action_result_get_dialog:
 * @self: a #StwActionResult
 *
 * Gets the JavaScript dialog the action opened. The action completed
 * when the dialog opened; it stays open for the dialog policy.
 *
 * Returns: (transfer none) (nullable): the dialog, or %NULL
 *
 * Since: 1.0
 */
const StwDialogEvent *
stw_action_result_get_dialog (const StwActionResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->dialog;
}

/**
 * stw_action_result_get_values:
 * @self: a #StwActionResult
 *
 * Gets what the page reported back: the values of the options a select
 * chose, or the names of the files an input or a drop received.
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the
 *   values, or %NULL for other actions
 *
 * Since: 1.0
 */
const char * const *
stw_action_result_get_values (const StwActionResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return (const char * const *) self->values;
}

/**
 * stw_action_result_get_default_prevented:
 * @self: a #StwActionResult
 *
 * Tells whether the page handled a drop (called `preventDefault()` on
 * it).
 *
 * Returns: %TRUE when the page handled the drop
 *
 * Since: 1.0
 */
gboolean
stw_action_result_get_default_prevented (const StwActionResult *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->default_prevented;
}

static GStrv
strv_of (JsonObject *object,
         const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;
  g_autoptr(GStrvBuilder) builder = NULL;
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  array = json_node_get_array (node);
  builder = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (element));
    }
  return g_strv_builder_end (builder);
}

/* The typed answer of an action from the answer it gathered: `target`,
 * `source`, `dialog` and the page's `selected`, `files` and
 * `default_prevented`; elements of @surface_id. */
StwActionResult *
_stw_action_result_new_from_json (JsonObject *answer,
                                  const char *surface_id)
{
  StwActionResult *self = g_new0 (StwActionResult, 1);
  JsonObject *dialog = stw_json_get_object (answer, "dialog");

  self->target = _stw_element_ref_new_from_json (stw_json_get_object (answer, "target"), surface_id);
  self->source = _stw_element_ref_new_from_json (stw_json_get_object (answer, "source"), surface_id);
  if (dialog != NULL)
    self->dialog = stw_dialog_event_new (stw_json_get_string (dialog, "type") ?: "alert",
                                         stw_json_get_string (dialog, "message"),
                                         stw_json_get_string (dialog, "action") ?: "dismiss");
  self->values = strv_of (answer, "selected");
  if (self->values == NULL)
    self->values = strv_of (answer, "files");
  self->default_prevented = json_object_get_boolean_member_with_default (answer, "default_prevented", FALSE);
  return self;
}
