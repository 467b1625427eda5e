/* stw-surface-read.c: the read family of StwSurface
 *
 * Each read is one page op (stagewright/js/read.js) on the element a
 * StwTarget names, run by _stw_surface_element_op_async(): a ref runs in
 * its own surface, a selector in this one. A box is moved from its frame's
 * viewport into its window's by the frames' offsets, found here too.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "stw-element-ref-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-read.h"
#include "stw-input-private.h"
#include "stw-surface-private.h"
#include "stw-sync-private.h"

#define MAX_STYLE_PROPERTIES 50
#define MAX_PROPERTY_CHARS 100
#define MAX_ATTRIBUTE_CHARS 256

/* --- one read ------------------------------------------------------------ */

/* What every read answers: the page op's answer and the element it read
 * (from its `target`, in the surface the op ran in). */
typedef struct
{
  JsonObject    *answer;
  StwElementRef *element;
} Read;

static void
read_free (Read *read)
{
  g_clear_pointer (&read->answer, json_object_unref);
  g_clear_pointer (&read->element, stw_element_ref_free);
  g_free (read);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Read, read_free)

static Read *
read_new (JsonObject *answer,
          StwSurface *acted_on)
{
  Read *read = g_new0 (Read, 1);

  read->answer = answer;
  read->element = _stw_element_ref_new_from_json (stw_json_get_object (answer, "target"),
                                                  acted_on ? stw_surface_get_id (acted_on) : NULL);
  return read;
}

static void
on_read (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(StwSurface) acted_on = NULL;
  GError *error = NULL;
  JsonObject *answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);

  if (answer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, read_new (answer, acted_on), (GDestroyNotify) read_free);
}

static void
start_read (StwSurface          *self,
            const StwTarget     *target,
            const char          *op,
            JsonObject          *args,
            gpointer             source_tag,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  _stw_surface_element_op_async (self, target, op, args, cancellable, on_read, task);
}

/* The answer of a read, or NULL with @error set; @element gets the
 * element it read. */
static JsonObject *
finish_read (StwSurface     *self,
             GAsyncResult   *result,
             gpointer        source_tag,
             StwElementRef **element,
             GError        **error)
{
  g_autoptr(Read) read = NULL;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  read = g_task_propagate_pointer (G_TASK (result), error);
  if (element != NULL)
    *element = read ? g_steal_pointer (&read->element) : NULL;
  return read ? g_steal_pointer (&read->answer) : NULL;
}

static char *
dup_string_member (JsonObject *answer,
                   const char *name)
{
  JsonNode *node = json_object_get_member (answer, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? g_strdup (json_node_get_string (node)) : NULL;
}

static JsonObject *
dup_object_member (JsonObject *answer,
                   const char *name)
{
  JsonNode *node = json_object_get_member (answer, name);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_object_ref (json_node_get_object (node))
                                                       : json_object_new ();
}


/* --- text -------------------------------------------------------------- */

/**
 * stw_surface_get_text_async:
 * @self: a #StwSurface
 * @target: the element: a ref (in any surface of the session) or a
 *   selector (in @self)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the text
 * @user_data: data for @callback
 *
 * Reads an element's trimmed `textContent`; when it has none (an input,
 * say), its label: `aria-labelledby`, `aria-label`, its `<label>`, `alt`,
 * `title` or `placeholder`, the first there is.
 *
 * Fails with `REF_NOT_FOUND`, `SELECTOR_NO_MATCH`, `BAD_ARGUMENT` (an
 * invalid selector), `NOT_RUNNING`, `SURFACE_CLOSED`, `CDP_DISCONNECTED`
 * or `CDP_TIMEOUT`.
 *
 * Since: 1.0
 */
void
stw_surface_get_text_async (StwSurface          *self,
                            const StwTarget     *target,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  start_read (self, target, "text", NULL, stw_surface_get_text_async, cancellable, callback, user_data);
}

/**
 * stw_surface_get_text_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.get_text_async].
 *
 * Returns: (transfer full) (nullable): the text, %NULL on failure
 *
 * Since: 1.0
 */
char *
stw_surface_get_text_finish (StwSurface     *self,
                             GAsyncResult   *result,
                             StwElementRef **element,
                             GError        **error)
{
  g_autoptr(JsonObject) answer = finish_read (self, result, stw_surface_get_text_async, element, error);

  if (answer == NULL)
    return NULL;
  return dup_string_member (answer, "text") ?: g_strdup ("");
}

/**
 * stw_surface_get_text_sync:
 * @self: a #StwSurface
 * @target: the element
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.get_text_async] (see "Blocking
 * calls" in the architecture guide).
 *
 * Returns: (transfer full) (nullable): the text
 *
 * Since: 1.0
 */
char *
stw_surface_get_text_sync (StwSurface       *self,
                           const StwTarget  *target,
                           StwElementRef   **element,
                           GCancellable     *cancellable,
                           GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  char *text;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (target != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_get_text_async (self, target, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  text = stw_surface_get_text_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return text;
}

/* --- value ------------------------------------------------------------- */

/**
 * stw_surface_get_value_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the value
 * @user_data: data for @callback
 *
 * Reads the value of an input, textarea, select (its first selected
 * option's), option, button, output, progress or meter; the text of a
 * contenteditable element; else `aria-valuenow`; else none.
 *
 * Fails as [method@Stagewright.Surface.get_text_async].
 *
 * Since: 1.0
 */
void
stw_surface_get_value_async (StwSurface          *self,
                             const StwTarget     *target,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  start_read (self, target, "value", NULL, stw_surface_get_value_async, cancellable, callback, user_data);
}

/**
 * stw_surface_get_value_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.get_value_async].
 *
 * Returns: (transfer full) (nullable): the value; %NULL without @error
 *   set when the element has none
 *
 * Since: 1.0
 */
char *
stw_surface_get_value_finish (StwSurface     *self,
                              GAsyncResult   *result,
                              StwElementRef **element,
                              GError        **error)
{
  g_autoptr(JsonObject) answer = finish_read (self, result, stw_surface_get_value_async, element, error);

  return answer ? dup_string_member (answer, "value") : NULL;
}

/**
 * stw_surface_get_value_sync:
 * @self: a #StwSurface
 * @target: the element
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.get_value_async].
 *
 * Returns: (transfer full) (nullable): the value, or %NULL (without
 *   @error set) when there is none
 *
 * Since: 1.0
 */
char *
stw_surface_get_value_sync (StwSurface       *self,
                            const StwTarget  *target,
                            StwElementRef   **element,
                            GCancellable     *cancellable,
                            GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  char *value;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (target != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_get_value_async (self, target, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  value = stw_surface_get_value_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return value;
}

/* --- attribute --------------------------------------------------------- */

static GError *
bad_argument (const char *field,
              const char *message)
{
  GError *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "%s", message);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "field", field);
  stw_error_set_details (error, details);
  return error;
}

/**
 * stw_surface_get_attribute_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @name: the attribute's name (1 to 256 characters)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the value
 * @user_data: data for @callback
 *
 * Reads an attribute of an element. An absent attribute is no error.
 *
 * Fails as [method@Stagewright.Surface.get_text_async], and with
 * `BAD_ARGUMENT` for an empty or too long @name.
 *
 * Since: 1.0
 */
void
stw_surface_get_attribute_async (StwSurface          *self,
                                 const StwTarget     *target,
                                 const char          *name,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(JsonObject) args = NULL;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  g_return_if_fail (name != NULL);

  if (*name == '\0' || g_utf8_strlen (name, -1) > MAX_ATTRIBUTE_CHARS || !g_utf8_validate (name, -1, NULL))
    {
      GTask *task = g_task_new (self, cancellable, callback, user_data);

      g_task_set_source_tag (task, stw_surface_get_attribute_async);
      g_task_return_error (task, bad_argument ("name", _("name must be 1 to 256 characters")));
      g_object_unref (task);
      return;
    }
  args = json_object_new ();
  json_object_set_string_member (args, "name", name);
  start_read (self, target, "attribute", args, stw_surface_get_attribute_async, cancellable, callback, user_data);
}

/**
 * stw_surface_get_attribute_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.get_attribute_async].
 *
 * Returns: (transfer full) (nullable): the value; %NULL without @error
 *   set when the element has no such attribute
 *
 * Since: 1.0
 */
char *
stw_surface_get_attribute_finish (StwSurface     *self,
                                  GAsyncResult   *result,
                                  StwElementRef **element,
                                  GError        **error)
{
  g_autoptr(JsonObject) answer = finish_read (self, result, stw_surface_get_attribute_async, element, error);

  return answer ? dup_string_member (answer, "value") : NULL;
}

/**
 * stw_surface_get_attribute_sync:
 * @self: a #StwSurface
 * @target: the element
 * @name: the attribute's name
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.get_attribute_async].
 *
 * Returns: (transfer full) (nullable): the value, or %NULL (without
 *   @error set) when the attribute is absent
 *
 * Since: 1.0
 */
char *
stw_surface_get_attribute_sync (StwSurface       *self,
                                const StwTarget  *target,
                                const char       *name,
                                StwElementRef   **element,
                                GCancellable     *cancellable,
                                GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  char *value;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (target != NULL && name != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_get_attribute_async (self, target, name, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  value = stw_surface_get_attribute_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return value;
}

/* --- bbox -------------------------------------------------------------- */

static void
on_box_offset (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Read *read = g_task_get_task_data (task);
  JsonObject *answer = read->answer;
  Read *measured;
  g_autoptr(StwSurface) root = NULL;
  GError *error = NULL;
  JsonObject *box;
  double x = 0, y = 0;

  root = _stw_surface_frame_offset_finish (STW_SURFACE (object), result, &x, &y, &error);
  if (root == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  box = json_object_get_object_member (answer, "bbox");
  /* Hundredths of a CSS pixel, as the page gives them. */
  json_object_set_double_member (box, "x", round ((json_object_get_double_member (box, "x") + x) * 100) / 100);
  json_object_set_double_member (box, "y", round ((json_object_get_double_member (box, "y") + y) * 100) / 100);
  measured = g_new0 (Read, 1);
  measured->answer = g_steal_pointer (&read->answer);
  measured->element = g_steal_pointer (&read->element);
  g_task_return_pointer (task, measured, (GDestroyNotify) read_free);
}

static void
on_box_read (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(StwSurface) acted_on = NULL;
  GError *error = NULL;
  JsonObject *answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);
  GCancellable *cancellable;
  JsonNode *box;

  if (answer == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_set_task_data (task, read_new (answer, acted_on), (GDestroyNotify) read_free);
  box = json_object_get_member (answer, "bbox");
  if (box == NULL || !JSON_NODE_HOLDS_OBJECT (box))
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("The page measured no box")));
      return;
    }
  cancellable = g_task_get_cancellable (task);
  _stw_surface_frame_offset_async (acted_on, cancellable, on_box_offset, g_steal_pointer (&task));
}

/**
 * stw_surface_get_bbox_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the box
 * @user_data: data for @callback
 *
 * Measures an element's border box in CSS pixels of its window's viewport
 * (for an element in a frame, the frames' offsets are added), without
 * scrolling. An element that is not rendered measures 0×0.
 *
 * Fails as [method@Stagewright.Surface.get_text_async].
 *
 * Since: 1.0
 */
void
stw_surface_get_bbox_async (StwSurface          *self,
                            const StwTarget     *target,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_surface_get_bbox_async);
  _stw_surface_element_op_async (self, target, "bbox", NULL, cancellable, on_box_read, task);
}

/**
 * stw_surface_get_bbox_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.get_bbox_async].
 *
 * Returns: (transfer full) (nullable): the box
 *
 * Since: 1.0
 */
StwBox *
stw_surface_get_bbox_finish (StwSurface     *self,
                             GAsyncResult   *result,
                             StwElementRef **element,
                             GError        **error)
{
  g_autoptr(JsonObject) answer = finish_read (self, result, stw_surface_get_bbox_async, element, error);
  JsonObject *box = answer ? json_object_get_object_member (answer, "bbox") : NULL;

  if (box == NULL)
    return NULL;
  return stw_box_new (json_object_get_double_member_with_default (box, "x", 0),
                      json_object_get_double_member_with_default (box, "y", 0),
                      json_object_get_double_member_with_default (box, "w", 0),
                      json_object_get_double_member_with_default (box, "h", 0));
}

/**
 * stw_surface_get_bbox_sync:
 * @self: a #StwSurface
 * @target: the element
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.get_bbox_async].
 *
 * Returns: (transfer full) (nullable): the box
 *
 * Since: 1.0
 */
StwBox *
stw_surface_get_bbox_sync (StwSurface       *self,
                           const StwTarget  *target,
                           StwElementRef   **element,
                           GCancellable     *cancellable,
                           GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  StwBox *box;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (target != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_get_bbox_async (self, target, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  box = stw_surface_get_bbox_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return box;
}

/* --- computed style ------------------------------------------------------ */

/* Kebab-case CSS property names: `color`, `background-color`,
 * `-webkit-line-clamp`, and custom properties `--name`. */
static gboolean
is_property_name (const char *name)
{
  static GRegex *pattern;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      pattern = g_regex_new ("^(-?[a-z][a-z0-9]*(-[a-z0-9]+)*|--[A-Za-z0-9_-]+)$", G_REGEX_OPTIMIZE | G_REGEX_DOLLAR_ENDONLY, 0, NULL);
      g_once_init_leave (&once, 1);
    }
  return strlen (name) <= MAX_PROPERTY_CHARS && g_regex_match (pattern, name, 0, NULL);
}

/**
 * stw_surface_get_computed_style_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @properties: (array zero-terminated=1): 1 to 50 kebab-case property
 *   names (`background-color`, `--custom`)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the values
 * @user_data: data for @callback
 *
 * Reads the computed values of the properties asked for, and only those.
 *
 * Fails as [method@Stagewright.Surface.get_text_async], and with
 * `BAD_ARGUMENT` for no, too many or malformed property names.
 *
 * Since: 1.0
 */
void
stw_surface_get_computed_style_async (StwSurface          *self,
                                      const StwTarget     *target,
                                      const char * const  *properties,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(JsonObject) args = NULL;
  JsonArray *names;
  GError *bad = NULL;
  guint n;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);

  n = properties ? g_strv_length ((char **) properties) : 0;
  if (n == 0 || n > MAX_STYLE_PROPERTIES)
    bad = bad_argument ("properties", _("properties must list 1 to 50 names"));
  for (guint i = 0; bad == NULL && i < n; i++)
    if (!is_property_name (properties[i]))
      {
        g_autofree char *message = g_strdup_printf (_("properties[%u] is not a kebab-case CSS property name"), i);
        bad = bad_argument ("properties", message);
      }
  if (bad != NULL)
    {
      GTask *task = g_task_new (self, cancellable, callback, user_data);

      g_task_set_source_tag (task, stw_surface_get_computed_style_async);
      g_task_return_error (task, bad);
      g_object_unref (task);
      return;
    }

  args = json_object_new ();
  names = json_array_new ();
  for (guint i = 0; i < n; i++)
    json_array_add_string_element (names, properties[i]);
  json_object_set_array_member (args, "properties", names);
  start_read (self, target, "style", args, stw_surface_get_computed_style_async, cancellable, callback, user_data);
}

/**
 * stw_surface_get_computed_style_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.get_computed_style_async].
 *
 * Returns: (transfer full) (nullable): `{property: value}` for each
 *   property asked for
 *   (JSON because its members are the properties the caller named)
 *
 * Since: 1.0
 */
JsonObject *
stw_surface_get_computed_style_finish (StwSurface     *self,
                                       GAsyncResult   *result,
                                       StwElementRef **element,
                                       GError        **error)
{
  g_autoptr(JsonObject) answer = finish_read (self, result, stw_surface_get_computed_style_async, element, error);

  return answer ? dup_object_member (answer, "style") : NULL;
}

/**
 * stw_surface_get_computed_style_sync:
 * @self: a #StwSurface
 * @target: the element
 * @properties: (array zero-terminated=1): the property names
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.get_computed_style_async].
 *
 * Returns: (transfer full) (nullable): `{property: value}`
 *   (JSON because its members are the properties the caller named)
 *
 * Since: 1.0
 */
JsonObject *
stw_surface_get_computed_style_sync (StwSurface          *self,
                                     const StwTarget     *target,
                                     const char * const  *properties,
                                     StwElementRef      **element,
                                     GCancellable        *cancellable,
                                     GError             **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  JsonObject *style;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (target != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_get_computed_style_async (self, target, properties, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  style = stw_surface_get_computed_style_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return style;
}

/* --- state ------------------------------------------------------------- */

/**
 * stw_surface_get_state_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the state
 * @user_data: data for @callback
 *
 * Reads an element's states, as the snapshot shows them: the twelve
 * [flags@Stagewright.StateFlags], which of them apply to the element and
 * which are mixed (an indeterminate checkbox is `checked` mixed).
 *
 * Fails as [method@Stagewright.Surface.get_text_async].
 *
 * Since: 1.0
 */
void
stw_surface_get_state_async (StwSurface          *self,
                             const StwTarget     *target,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  start_read (self, target, "state", NULL, stw_surface_get_state_async, cancellable, callback, user_data);
}

/**
 * stw_surface_get_state_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.get_state_async].
 *
 * Returns: (transfer full) (nullable): the states
 *
 * Since: 1.0
 */
StwElementState *
stw_surface_get_state_finish (StwSurface     *self,
                              GAsyncResult   *result,
                              StwElementRef **element,
                              GError        **error)
{
  g_autoptr(JsonObject) answer = finish_read (self, result, stw_surface_get_state_async, element, error);

  return answer ? _stw_element_state_new_from_page (stw_json_get_object (answer, "state")) : NULL;
}

/**
 * stw_surface_get_state_sync:
 * @self: a #StwSurface
 * @target: the element
 * @element: (out) (optional) (transfer full) (nullable): the element read
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.get_state_async].
 *
 * Returns: (transfer full) (nullable): the states
 *
 * Since: 1.0
 */
StwElementState *
stw_surface_get_state_sync (StwSurface       *self,
                            const StwTarget  *target,
                            StwElementRef   **element,
                            GCancellable     *cancellable,
                            GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  StwElementState *state;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (target != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_get_state_async (self, target, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  state = stw_surface_get_state_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return state;
}

/* --- exists ------------------------------------------------------------ */

static void
on_exists (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(StwSurface) acted_on = NULL;
  GError *error = NULL;
  JsonObject *answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);

  /* A miss is an answer, not a failure: nothing matches, or the ref's
   * element is gone (or was never there). */
  if (answer == NULL &&
      (g_error_matches (error, STW_ERROR, STW_ERROR_SELECTOR_NO_MATCH) ||
       g_error_matches (error, STW_ERROR, STW_ERROR_REF_NOT_FOUND)))
    {
      g_clear_error (&error);
      answer = json_object_new ();
      json_object_set_boolean_member (answer, "exists", FALSE);
    }
  if (answer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, read_new (answer, acted_on), (GDestroyNotify) read_free);
}

/**
 * stw_surface_exists_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the answer
 * @user_data: data for @callback
 *
 * Tells whether the element is there: a selector that matches nothing and
 * a ref whose element is gone are a %FALSE answer, not an error.
 *
 * Fails with `BAD_ARGUMENT` (an invalid selector), `NOT_RUNNING`,
 * `SURFACE_CLOSED`, `CDP_DISCONNECTED` or `CDP_TIMEOUT`.
 *
 * Since: 1.0
 */
void
stw_surface_exists_async (StwSurface          *self,
                          const StwTarget     *target,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_surface_exists_async);
  _stw_surface_element_op_async (self, target, "exists", NULL, cancellable, on_exists, task);
}

/**
 * stw_surface_exists_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element
 *   found, `{ref, role, name}`; %NULL when there is none
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.exists_async].
 *
 * Returns: whether the element is there (%FALSE with @error set on
 *   failure)
 *
 * Since: 1.0
 */
gboolean
stw_surface_exists_finish (StwSurface     *self,
                           GAsyncResult   *result,
                           StwElementRef **element,
                           GError        **error)
{
  g_autoptr(JsonObject) answer = finish_read (self, result, stw_surface_exists_async, element, error);

  return answer != NULL && json_object_get_boolean_member_with_default (answer, "exists", FALSE);
}

/**
 * stw_surface_exists_sync:
 * @self: a #StwSurface
 * @target: the element
 * @element: (out) (optional) (transfer full) (nullable): the element found
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.exists_async].
 *
 * Returns: whether the element is there
 *
 * Since: 1.0
 */
gboolean
stw_surface_exists_sync (StwSurface       *self,
                         const StwTarget  *target,
                         StwElementRef   **element,
                         GCancellable     *cancellable,
                         GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  gboolean exists;

  g_return_val_if_fail (STW_IS_SURFACE (self), FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return FALSE;
  stw_surface_exists_async (self, target, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  exists = stw_surface_exists_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return exists;
}

/* --- the focused element --------------------------------------------------- */

typedef struct
{
  StwSurfaceShared *shared;  /* what the session handed down */
  GPtrArray  *candidates;  /* frames of the surface asked last, still to ask */
  JsonObject *fallback;    /* a frame's focused element, its page unfocused */
  char       *frame_url;   /* the URL of the frame element that has the focus */
  StwSurface *holder;      /* the surface whose frame has the focus */
  gboolean    refreshed;   /* the session's surfaces were listed anew */
  gboolean    exact;       /* the candidate is the focused frame's surface */
  char       *frame_id;    /* the focused frame's, from its owner element */
  char       *owner_object; /* the owner element, to release */
} FocusSearch;

static void
focus_search_free (FocusSearch *search)
{
  g_clear_pointer (&search->shared, _stw_surface_shared_unref);
  g_clear_pointer (&search->candidates, g_ptr_array_unref);
  g_clear_pointer (&search->fallback, json_object_unref);
  g_free (search->frame_url);
  g_clear_object (&search->holder);
  g_free (search->frame_id);
  g_free (search->owner_object);
  g_free (search);
}

static void ask_focus (GTask *task, StwSurface *surface);

/* The next frame to ask, or none: the focus is in a frame nobody can see
 * into (or it left meanwhile). */
static void
ask_next_candidate (GTask *task)
{
  FocusSearch *search = g_task_get_task_data (task);
  g_autoptr(StwSurface) next = NULL;

  search->exact = FALSE;
  if (search->candidates == NULL || search->candidates->len == 0)
    {
      g_task_return_pointer (task, g_steal_pointer (&search->fallback), (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  next = g_ptr_array_steal_index (search->candidates, 0);
  ask_focus (task, next);
}

/* The live frames of the surface holding the focus, to ask in turn. */
static void
collect_frames (FocusSearch *search)
{
  g_autoptr(GList) surfaces = _stw_surface_shared_list (search->shared);

  g_clear_pointer (&search->candidates, g_ptr_array_unref);
  search->candidates = g_ptr_array_new_with_free_func (g_object_unref);
  for (const GList *l = surfaces; l != NULL; l = l->next)
    if (!stw_surface_is_closed (l->data) &&
        g_strcmp0 (stw_surface_get_parent_id (l->data), stw_surface_get_id (search->holder)) == 0)
      g_ptr_array_add (search->candidates, g_object_ref (l->data));
}

/* The live surface showing the frame of id @frame_id, or NULL. */
static StwSurface *
find_frame_surface (FocusSearch *search,
                    const char  *frame_id)
{
  g_autoptr(GList) surfaces = _stw_surface_shared_list (search->shared);

  for (const GList *l = surfaces; l != NULL; l = l->next)
    if (!stw_surface_is_closed (l->data) && l->data != search->holder &&
        g_strcmp0 (stw_surface_get_frame_id (l->data), frame_id) == 0)
      return g_object_ref (l->data);
  return NULL;
}

/* Asks the focused frame's surface when it is known, or else every frame
 * of the holder in turn; @may_refresh lists the surfaces anew once when
 * the frame is not among them (a frame that appeared since). */
static void on_refreshed (GObject *object, GAsyncResult *result, gpointer user_data);

static void
ask_frames (GTask    *task,
            gboolean  may_refresh)
{
  FocusSearch *search = g_task_get_task_data (task);
  g_autoptr(StwSurface) frame = NULL;

  if (search->frame_id != NULL)
    frame = find_frame_surface (search, search->frame_id);
  if (frame == NULL)
    collect_frames (search);
  if (may_refresh && !search->refreshed &&
      (frame == NULL && (search->frame_id != NULL || search->candidates->len == 0)))
    {
      search->refreshed = TRUE;
      _stw_surface_shared_refresh_async (search->shared, g_task_get_cancellable (task), on_refreshed, task);
      return;
    }
  if (frame != NULL)
    {
      /* That frame has the focus, whatever its document says of it. */
      g_clear_pointer (&search->candidates, g_ptr_array_unref);
      search->candidates = g_ptr_array_new_with_free_func (g_object_unref);
      search->exact = TRUE;
      ask_focus (task, frame);
      return;
    }
  ask_next_candidate (task);
}

static void
on_refreshed (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;

  /* A failed refresh leaves the list as it was. */
  _stw_surface_shared_refresh_finish (result, NULL);
  ask_frames (task, FALSE);
}

static void
release_owner (FocusSearch *search)
{
  g_autoptr(JsonObject) params = NULL;

  if (search->owner_object == NULL)
    return;
  params = json_object_new ();
  json_object_set_string_member (params, "objectId", search->owner_object);
  stw_transport_send_notification (_stw_surface_get_transport (search->holder), "Runtime.releaseObject", params,
                                   stw_surface_get_cdp_session_id (search->holder));
  g_clear_pointer (&search->owner_object, g_free);
}

static void
on_owner_described (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  FocusSearch *search = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  const char *frame_id = stw_json_get_string (stw_json_get_object (reply, "node"), "frameId");

  release_owner (search);
  g_free (search->frame_id);
  search->frame_id = frame_id != NULL && *frame_id != '\0' ? g_strdup (frame_id) : NULL;
  ask_frames (task, TRUE);
}

static void
on_owner_object (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  FocusSearch *search = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  const char *object_id = stw_json_get_string (stw_json_get_object (reply, "result"), "objectId");
  g_autoptr(JsonObject) params = NULL;

  if (object_id == NULL)
    {
      /* The element went meanwhile: the frames' URLs must do. */
      ask_frames (task, TRUE);
      return;
    }
  search->owner_object = g_strdup (object_id);
  params = json_object_new ();
  json_object_set_string_member (params, "objectId", object_id);
  stw_transport_call_async (STW_TRANSPORT (object), "DOM.describeNode", params,
                            stw_surface_get_cdp_session_id (search->holder), 0,
                            g_task_get_cancellable (task), on_owner_described, task);
}

/* Learns which frame the focused frame element of the holder shows:
 * DOM.describeNode gives its frame id (an out-of-process frame's is its
 * target id), which names the surface without guessing from URLs. */
static void
describe_frame_owner (GTask  *task,
                      gint64  world_id,
                      gint64  key)
{
  FocusSearch *search = g_task_get_task_data (task);
  g_autoptr(JsonObject) params = json_object_new ();
  JsonArray *arguments = json_array_new ();
  JsonObject *argument = json_object_new ();

  json_object_set_string_member (params, "functionDeclaration",
                                 "function (k) { return globalThis.__stagewright.element (k); }");
  json_object_set_int_member (params, "executionContextId", world_id);
  json_object_set_int_member (argument, "value", key);
  json_array_add_object_element (arguments, argument);
  json_object_set_array_member (params, "arguments", arguments);
  stw_transport_call_async (_stw_surface_get_transport (search->holder), "Runtime.callFunctionOn", params,
                            stw_surface_get_cdp_session_id (search->holder), 0,
                            g_task_get_cancellable (task), on_owner_object, task);
}

/* {ref, role, name, surface_id} of the element the page described. */
static JsonObject *
focused_json (StwSurface *surface,
              gint64      world_id,
              JsonObject *target)
{
  JsonObject *focused = json_object_new ();

  json_object_set_int_member (focused, "ref", _stw_surface_bind_ref (surface, world_id, target));
  json_object_set_string_member (focused, "role", stw_json_get_string (target, "role") ?: "");
  json_object_set_string_member (focused, "name", stw_json_get_string (target, "name") ?: "");
  json_object_set_string_member (focused, "surface_id", stw_surface_get_id (surface));
  return focused;
}

static void
on_focus_answer (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  FocusSearch *search = g_task_get_task_data (task);
  StwSurface *surface = STW_SURFACE (object);
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *answer, *target;
  gint64 world_id = 0;

  value = _stw_surface_call_page_finish (surface, result, &world_id, &error);
  if (value == NULL)
    {
      /* A frame that went meanwhile is not where the focus is. */
      if (search->candidates != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          ask_next_candidate (task);
          return;
        }
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  answer = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (answer == NULL)
    {
      ask_next_candidate (task);
      return;
    }
  target = stw_json_get_object (answer, "target");

  /* Among the frames, the one whose document has the focus, or else the
   * one at the URL of the frame element focused in its parent (when the
   * window itself is not focused, no document has the focus); failing
   * both, the first frame with a focused element of its own. */
  if (search->candidates != NULL && !search->exact &&
      !json_object_get_boolean_member_with_default (answer, "hasFocus", FALSE) &&
      (search->frame_url == NULL || *search->frame_url == '\0' ||
       g_strcmp0 (search->frame_url, stw_surface_get_url (surface)) != 0))
    {
      if (target != NULL && search->fallback == NULL)
        search->fallback = focused_json (surface, world_id, target);
      ask_next_candidate (task);
      return;
    }

  if (target != NULL)
    {
      g_task_return_pointer (task, focused_json (surface, world_id, target), (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  if (json_object_get_boolean_member_with_default (answer, "frame", FALSE))
    {
      /* The focus is in one of this surface's frames. */
      g_free (search->frame_url);
      search->frame_url = g_strdup (stw_json_get_string (answer, "frameUrl"));
      g_clear_pointer (&search->fallback, json_object_unref);
      g_clear_pointer (&search->frame_id, g_free);
      g_set_object (&search->holder, surface);
      search->refreshed = FALSE;
      if (json_object_get_int_member_with_default (answer, "frameKey", 0) > 0 && world_id != 0)
        describe_frame_owner (task, world_id, json_object_get_int_member (answer, "frameKey"));
      else
        ask_frames (task, TRUE);
      return;
    }
  g_task_return_pointer (task, NULL, NULL);
  g_object_unref (task);
}

static void
ask_focus (GTask      *task,
           StwSurface *surface)
{
  _stw_surface_call_page_async (surface, "focused", NULL, g_task_get_cancellable (task), on_focus_answer, task);
}

/**
 * stw_surface_get_focused_element_async:
 * @self: a #StwSurface
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the element
 * @user_data: data for @callback
 *
 * Finds the element that has the focus in @self: through shadow roots,
 * and into its frames (same- and cross-origin). The document's body is no
 * element here.
 *
 * Fails with `NOT_RUNNING`, `SURFACE_CLOSED`, `CDP_DISCONNECTED` or
 * `CDP_TIMEOUT`.
 *
 * Since: 1.0
 */
void
stw_surface_get_focused_element_async (StwSurface          *self,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  GTask *task;
  FocusSearch *search;

  g_return_if_fail (STW_IS_SURFACE (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_surface_get_focused_element_async);
  search = g_new0 (FocusSearch, 1);
  search->shared = _stw_surface_shared_ref (_stw_surface_get_shared (self));
  g_task_set_task_data (task, search, (GDestroyNotify) focus_search_free);
  if (!search->shared->alive)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      g_object_unref (task);
      return;
    }
  ask_focus (task, self);
}

/**
 * stw_surface_get_focused_element_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.get_focused_element_async].
 *
 * Returns: (transfer full) (nullable): the focused element, or %NULL
 *   (without @error set) when nothing has the focus
 *
 * Since: 1.0
 */
StwElementRef *
stw_surface_get_focused_element_finish (StwSurface    *self,
                                        GAsyncResult  *result,
                                        GError       **error)
{
  g_autoptr(JsonObject) focused = NULL;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_get_focused_element_async, NULL);

  focused = g_task_propagate_pointer (G_TASK (result), error);
  if (focused == NULL)
    return NULL;
  return stw_element_ref_new ((guint) json_object_get_int_member_with_default (focused, "ref", 0),
                              stw_json_get_string (focused, "role"),
                              stw_json_get_string (focused, "name"),
                              stw_json_get_string (focused, "surface_id"));
}

/**
 * stw_surface_get_focused_element_sync:
 * @self: a #StwSurface
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.get_focused_element_async].
 *
 * Returns: (transfer full) (nullable): the focused element, or %NULL
 *   when nothing has the focus
 *
 * Since: 1.0
 */
StwElementRef *
stw_surface_get_focused_element_sync (StwSurface    *self,
                                      GCancellable  *cancellable,
                                      GError       **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  StwElementRef *focused;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_get_focused_element_async (self, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  focused = stw_surface_get_focused_element_finish (self, result, error);
  _stw_sync_call_clear (&call);
  return focused;
}
