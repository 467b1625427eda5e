/* stw-element-ref.c: what a page operation answers about an element
 *
 * The page answers an element as `{ref, role, name}` and its states as
 * twelve members, each true, false, null (does not apply) or "mixed";
 * these boxed types carry the same facts typed, and turn back into
 * exactly that JSON for the tools.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-element-ref.h"
#include "stw-element-ref-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"

struct _StwElementRef
{
  guint  ref;
  char  *role;
  char  *name;
  char  *surface_id;
};

G_DEFINE_BOXED_TYPE (StwElementRef, stw_element_ref, stw_element_ref_copy, stw_element_ref_free)
G_DEFINE_BOXED_TYPE (StwElementState, stw_element_state, stw_element_state_copy, stw_element_state_free)
G_DEFINE_BOXED_TYPE (StwBox, stw_box, stw_box_copy, stw_box_free)

struct _StwElementInfo
{
  StwElementRef *element;
  char          *tag;
  StwBox         box;
};

struct _StwElementList
{
  gatomicrefcount  ref_count;
  GPtrArray       *elements;   /* of StwElementInfo */
  guint            count;
  char            *surface_id;
  gboolean         renderer_reloaded;
};

G_DEFINE_BOXED_TYPE (StwElementInfo, stw_element_info, stw_element_info_copy, stw_element_info_free)
G_DEFINE_BOXED_TYPE (StwElementList, stw_element_list, stw_element_list_ref, stw_element_list_unref)

/* The flags in the order the page and the tools list them. */
static const struct
{
  const char    *name;
  StwStateFlags  flag;
} state_names[] = {
  { "visible", STW_STATE_VISIBLE },
  { "enabled", STW_STATE_ENABLED },
  { "disabled", STW_STATE_DISABLED },
  { "checked", STW_STATE_CHECKED },
  { "selected", STW_STATE_SELECTED },
  { "expanded", STW_STATE_EXPANDED },
  { "pressed", STW_STATE_PRESSED },
  { "focused", STW_STATE_FOCUSED },
  { "readonly", STW_STATE_READONLY },
  { "required", STW_STATE_REQUIRED },
  { "invalid", STW_STATE_INVALID },
  { "busy", STW_STATE_BUSY },
};

/* --- StwElementRef ---------------------------------------------------------- */

/**
 * stw_element_ref_new:
 * @ref: the element's ref
 * @role: (nullable): its role (%NULL for none)
 * @name: (nullable): its accessible name (%NULL for none)
 * @surface_id: (nullable): the id of the surface it lives in
 *
 * Creates an element reference. The library makes them; this is for
 * tests and for tools that answer elements of their own.
 *
 * Returns: (transfer full): a new #StwElementRef
 *
 * Since: 1.0
 */
StwElementRef *
stw_element_ref_new (guint       ref,
                     const char *role,
                     const char *name,
                     const char *surface_id)
{
  StwElementRef *self = g_new0 (StwElementRef, 1);

  self->ref = ref;
  self->role = g_strdup (role ? role : "");
  self->name = g_strdup (name ? name : "");
  self->surface_id = g_strdup (surface_id);
  return self;
}

/**
 * stw_element_ref_copy:
 * @self: a #StwElementRef
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 1.0
 */
StwElementRef *
stw_element_ref_copy (const StwElementRef *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return stw_element_ref_new (self->ref, self->role, self->name, self->surface_id);
}

/**
 * stw_element_ref_free:
 * @self: (nullable): a #StwElementRef
 *
 * Frees @self.
 *
 * Since: 1.0
 */
void
stw_element_ref_free (StwElementRef *self)
{
  if (self == NULL)
    return;
  g_free (self->role);
  g_free (self->name);
  g_free (self->surface_id);
  g_free (self);
}

/**
 * stw_element_ref_get_ref:
 * @self: a #StwElementRef
 *
 * Gets the element's ref: pass it to [ctor@Stagewright.Target.new_for_ref]
 * to act on the element again.
 *
 * Returns: the ref, a positive integer
 *
 * Since: 1.0
 */
guint
stw_element_ref_get_ref (const StwElementRef *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->ref;
}

/**
 * stw_element_ref_get_role:
 * @self: a #StwElementRef
 *
 * Gets the element's role as the snapshot shows it (`button`, `textbox`…).
 *
 * Returns: (transfer none): the role, empty when it has none
 *
 * Since: 1.0
 */
const char *
stw_element_ref_get_role (const StwElementRef *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->role;
}

/**
 * stw_element_ref_get_name:
 * @self: a #StwElementRef
 *
 * Gets the element's accessible name.
 *
 * Returns: (transfer none): the name, empty when it has none
 *
 * Since: 1.0
 */
const char *
stw_element_ref_get_name (const StwElementRef *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->name;
}

/**
 * stw_element_ref_get_surface_id:
 * @self: a #StwElementRef
 *
 * Gets the id of the surface the element lives in (a frame's element
 * lives in the frame's surface).
 *
 * Returns: (transfer none) (nullable): the surface id
 *
 * Since: 1.0
 */
const char *
stw_element_ref_get_surface_id (const StwElementRef *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->surface_id;
}

/**
 * stw_element_ref_to_json:
 * @self: a #StwElementRef
 *
 * Gives the element as the tools answer it: `{ref, role, name}`. JSON
 * because this is the wire form, for tools.
 *
 * Returns: (transfer full): a new object
 *
 * Since: 1.0
 */
JsonObject *
stw_element_ref_to_json (const StwElementRef *self)
{
  JsonObject *object;

  g_return_val_if_fail (self != NULL, NULL);

  object = json_object_new ();
  json_object_set_int_member (object, "ref", self->ref);
  json_object_set_string_member (object, "role", self->role);
  json_object_set_string_member (object, "name", self->name);
  return object;
}

/* The element a page op answered (`{ref, role, name}`), in @surface_id;
 * NULL when @target is not one. */
StwElementRef *
_stw_element_ref_new_from_json (JsonObject *target,
                                const char *surface_id)
{
  if (target == NULL || json_object_get_int_member_with_default (target, "ref", 0) <= 0)
    return NULL;
  return stw_element_ref_new ((guint) json_object_get_int_member (target, "ref"),
                              stw_json_get_string (target, "role"),
                              stw_json_get_string (target, "name"),
                              surface_id);
}

/* --- StwElementState -------------------------------------------------------- */

/**
 * stw_element_state_new:
 * @known: the flags that apply
 * @values: their values (bits outside @known are dropped)
 * @mixed: the known flags that are mixed (dropped from @values)
 *
 * Creates an element state.
 *
 * Returns: (transfer full): a new #StwElementState
 *
 * Since: 1.0
 */
StwElementState *
stw_element_state_new (StwStateFlags known,
                       StwStateFlags values,
                       StwStateFlags mixed)
{
  StwElementState *self = g_new0 (StwElementState, 1);

  self->known = known;
  self->mixed = mixed & known;
  self->values = values & known & ~self->mixed;
  return self;
}

/**
 * stw_element_state_copy:
 * @self: a #StwElementState
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 1.0
 */
StwElementState *
stw_element_state_copy (const StwElementState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * stw_element_state_free:
 * @self: (nullable): a #StwElementState
 *
 * Frees @self.
 *
 * Since: 1.0
 */
void
stw_element_state_free (StwElementState *self)
{
  g_free (self);
}

/**
 * stw_element_state_get_known:
 * @self: a #StwElementState
 *
 * Gets the flags that apply to the element.
 *
 * Returns: the known flags
 *
 * Since: 1.0
 */
StwStateFlags
stw_element_state_get_known (const StwElementState *self)
{
  g_return_val_if_fail (self != NULL, STW_STATE_NONE);

  return self->known;
}

/**
 * stw_element_state_get_values:
 * @self: a #StwElementState
 *
 * Gets the values of the known flags.
 *
 * Returns: the flags that are set
 *
 * Since: 1.0
 */
StwStateFlags
stw_element_state_get_values (const StwElementState *self)
{
  g_return_val_if_fail (self != NULL, STW_STATE_NONE);

  return self->values;
}

/**
 * stw_element_state_get_mixed:
 * @self: a #StwElementState
 *
 * Gets the known flags whose value is mixed.
 *
 * Returns: the mixed flags
 *
 * Since: 1.0
 */
StwStateFlags
stw_element_state_get_mixed (const StwElementState *self)
{
  g_return_val_if_fail (self != NULL, STW_STATE_NONE);

  return self->mixed;
}

/**
 * stw_element_state_matches:
 * @self: an element's state
 * @wanted: the wanted state: its known flags are the ones that matter
 *
 * Tells whether every flag @wanted knows has its wanted value in @self
 * (a flag wanted mixed must be mixed; one that does not apply to the
 * element matches no wanted value).
 *
 * Returns: whether @self is in the @wanted state
 *
 * Since: 1.0
 */
gboolean
stw_element_state_matches (const StwElementState *self,
                           const StwElementState *wanted)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (wanted != NULL, FALSE);

  return (self->known & wanted->known) == wanted->known &&
         (self->mixed & wanted->known) == wanted->mixed &&
         (self->values & wanted->known) == wanted->values;
}

static GError *
bad_state (const char *message)
{
  GError *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "%s", message);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "field", "state");
  stw_error_set_details (error, details);
  return error;
}

/**
 * stw_element_state_new_from_json:
 * @object: a wanted state as the tools take it: some of the twelve flags
 *   by name, each `true` or `false` (`checked` may also be `"mixed"`)
 * @error: return location for a `BAD_ARGUMENT` error
 *
 * Reads a wanted state, for tools: the named flags become the known ones.
 *
 * Returns: (transfer full) (nullable): the wanted state
 *
 * Since: 1.0
 */
StwElementState *
stw_element_state_new_from_json (JsonObject  *object,
                                 GError     **error)
{
  g_autoptr(GList) members = object ? json_object_get_members (object) : NULL;
  StwStateFlags known = 0, values = 0, mixed = 0;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (members == NULL)
    {
      g_propagate_error (error, bad_state (_("state must name at least one of the twelve state flags")));
      return NULL;
    }
  for (const GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (object, l->data);
      StwStateFlags flag = 0;

      for (guint i = 0; i < G_N_ELEMENTS (state_names) && flag == 0; i++)
        if (g_str_equal (state_names[i].name, l->data))
          flag = state_names[i].flag;
      if (flag == 0)
        {
          g_propagate_error (error, bad_state (_("state names a flag that does not exist")));
          return NULL;
        }
      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
        values |= json_node_get_boolean (value) ? flag : 0;
      else if (flag == STW_STATE_CHECKED && JSON_NODE_HOLDS_VALUE (value) &&
               json_node_get_value_type (value) == G_TYPE_STRING &&
               g_strcmp0 (json_node_get_string (value), "mixed") == 0)
        mixed |= flag;
      else
        {
          g_propagate_error (error, bad_state (_("Each state flag must be true or false")));
          return NULL;
        }
      known |= flag;
    }
  return stw_element_state_new (known, values, mixed);
}

/* The state the page answered: each member true, false, "mixed" or null
 * (does not apply). */
StwElementState *
_stw_element_state_new_from_page (JsonObject *object)
{
  StwStateFlags known = 0, values = 0, mixed = 0;

  for (guint i = 0; object != NULL && i < G_N_ELEMENTS (state_names); i++)
    {
      JsonNode *value = json_object_get_member (object, state_names[i].name);

      if (value == NULL || !JSON_NODE_HOLDS_VALUE (value))
        continue;
      known |= state_names[i].flag;
      if (json_node_get_value_type (value) == G_TYPE_BOOLEAN)
        values |= json_node_get_boolean (value) ? state_names[i].flag : 0;
      else if (g_strcmp0 (json_node_get_string (value), "mixed") == 0)
        mixed |= state_names[i].flag;
    }
  return stw_element_state_new (known, values, mixed);
}

/**
 * stw_element_state_to_json:
 * @self: a #StwElementState
 *
 * Gives the state as the tools answer it: all twelve flags by name, each
 * `true`, `false`, `"mixed"` or `null` when it does not apply. JSON because
 * this is the wire form, for tools.
 *
 * Returns: (transfer full): a new object
 *
 * Since: 1.0
 */
JsonObject *
stw_element_state_to_json (const StwElementState *self)
{
  JsonObject *object;

  g_return_val_if_fail (self != NULL, NULL);

  object = json_object_new ();
  for (guint i = 0; i < G_N_ELEMENTS (state_names); i++)
    {
      StwStateFlags flag = state_names[i].flag;

      if (!(self->known & flag))
        json_object_set_null_member (object, state_names[i].name);
      else if (self->mixed & flag)
        json_object_set_string_member (object, state_names[i].name, "mixed");
      else
        json_object_set_boolean_member (object, state_names[i].name, (self->values & flag) != 0);
    }
  return object;
}

/* The wanted state as the page's wait ops take it: the known flags only. */
JsonObject *
_stw_element_state_to_wanted_json (const StwElementState *self)
{
  JsonObject *object = json_object_new ();

  for (guint i = 0; i < G_N_ELEMENTS (state_names); i++)
    {
      StwStateFlags flag = state_names[i].flag;

      if (!(self->known & flag))
        continue;
      if (self->mixed & flag)
        json_object_set_string_member (object, state_names[i].name, "mixed");
      else
        json_object_set_boolean_member (object, state_names[i].name, (self->values & flag) != 0);
    }
  return object;
}

/* --- StwBox ------------------------------------------------------------------ */

/**
 * stw_box_new:
 * @x: the left edge
 * @y: the top edge
 * @width: the width
 * @height: the height
 *
 * Creates a box, in CSS pixels.
 *
 * Returns: (transfer full): a new #StwBox
 *
 * Since: 1.0
 */
StwBox *
stw_box_new (double x,
             double y,
             double width,
             double height)
{
  StwBox *self = g_new0 (StwBox, 1);

  self->x = x;
  self->y = y;
  self->width = width;
  self->height = height;
  return self;
}

/**
 * stw_box_copy:
 * @self: a #StwBox
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 1.0
 */
StwBox *
stw_box_copy (const StwBox *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * stw_box_free:
 * @self: (nullable): a #StwBox
 *
 * Frees @self.
 *
 * Since: 1.0
 */
void
stw_box_free (StwBox *self)
{
  g_free (self);
}

/* --- StwElementInfo ---------------------------------------------------------- */

/**
 * stw_element_info_copy:
 * @self: a #StwElementInfo
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 1.0
 */
StwElementInfo *
stw_element_info_copy (const StwElementInfo *self)
{
  StwElementInfo *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_new0 (StwElementInfo, 1);
  copy->element = stw_element_ref_copy (self->element);
  copy->tag = g_strdup (self->tag);
  copy->box = self->box;
  return copy;
}

/**
 * stw_element_info_free:
 * @self: (nullable): a #StwElementInfo
 *
 * Frees @self.
 *
 * Since: 1.0
 */
void
stw_element_info_free (StwElementInfo *self)
{
  if (self == NULL)
    return;
  stw_element_ref_free (self->element);
  g_free (self->tag);
  g_free (self);
}

/**
 * stw_element_info_get_element:
 * @self: a #StwElementInfo
 *
 * Gets the element: its ref (0 when it has none), role, name and surface.
 *
 * Returns: (transfer none): the element
 *
 * Since: 1.0
 */
const StwElementRef *
stw_element_info_get_element (const StwElementInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->element;
}

/**
 * stw_element_info_get_tag:
 * @self: a #StwElementInfo
 *
 * Gets the element's tag name, for listed elements.
 *
 * Returns: (transfer none) (nullable): the tag name, lower case
 *
 * Since: 1.0
 */
const char *
stw_element_info_get_tag (const StwElementInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->tag;
}

/**
 * stw_element_info_get_box:
 * @self: a #StwElementInfo
 *
 * Gets the element's border box, in whole CSS pixels of its window's
 * viewport.
 *
 * Returns: (transfer none): the box
 *
 * Since: 1.0
 */
const StwBox *
stw_element_info_get_box (const StwElementInfo *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return &self->box;
}

/**
 * stw_element_info_to_json:
 * @self: a #StwElementInfo
 *
 * Gives the element as `electron_find` and `electron_elements_list`
 * answer it: `{ref, tag?, role, name, bbox: {x, y, w, h}, surface_id}`.
 * JSON because this is the wire form, for tools.
 *
 * Returns: (transfer full): a new object
 *
 * Since: 1.0
 */
JsonObject *
stw_element_info_to_json (const StwElementInfo *self)
{
  JsonObject *object, *bbox;

  g_return_val_if_fail (self != NULL, NULL);

  object = json_object_new ();
  bbox = json_object_new ();
  if (self->element->ref != 0)
    json_object_set_int_member (object, "ref", self->element->ref);
  else
    json_object_set_null_member (object, "ref");
  if (self->tag != NULL)
    json_object_set_string_member (object, "tag", self->tag);
  json_object_set_string_member (object, "role", self->element->role);
  json_object_set_string_member (object, "name", self->element->name);
  json_object_set_int_member (bbox, "x", (gint64) self->box.x);
  json_object_set_int_member (bbox, "y", (gint64) self->box.y);
  json_object_set_int_member (bbox, "w", (gint64) self->box.width);
  json_object_set_int_member (bbox, "h", (gint64) self->box.height);
  json_object_set_object_member (object, "bbox", bbox);
  json_object_set_string_member (object, "surface_id", self->element->surface_id);
  return object;
}

/* --- StwElementList ---------------------------------------------------------- */

/**
 * stw_element_list_ref:
 * @self: a #StwElementList
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwElementList *
stw_element_list_ref (StwElementList *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_element_list_unref:
 * @self: (nullable): a #StwElementList
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_element_list_unref (StwElementList *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_ptr_array_unref (self->elements);
  g_free (self->surface_id);
  g_free (self);
}

/**
 * stw_element_list_get_n_elements:
 * @self: a #StwElementList
 *
 * Gets how many elements the list holds (at most the limit asked for).
 *
 * Returns: the number of elements
 *
 * Since: 1.0
 */
guint
stw_element_list_get_n_elements (const StwElementList *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->elements->len;
}

/**
 * stw_element_list_get_element:
 * @self: a #StwElementList
 * @index: an index below [method@Stagewright.ElementList.get_n_elements]
 *
 * Gets an element of the list.
 *
 * Returns: (transfer none): the element
 *
 * Since: 1.0
 */
const StwElementInfo *
stw_element_list_get_element (const StwElementList *self,
                              guint                 index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->elements->len, NULL);

  return g_ptr_array_index (self->elements, index);
}

/**
 * stw_element_list_get_count:
 * @self: a #StwElementList
 *
 * Gets how many elements matched in all, beyond the limit too.
 *
 * Returns: the true count
 *
 * Since: 1.0
 */
guint
stw_element_list_get_count (const StwElementList *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->count;
}

/**
 * stw_element_list_get_surface_id:
 * @self: a #StwElementList
 *
 * Gets the id of the surface searched (its frames' elements are in it).
 *
 * Returns: (transfer none): the surface id
 *
 * Since: 1.0
 */
const char *
stw_element_list_get_surface_id (const StwElementList *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->surface_id;
}

/**
 * stw_element_list_get_renderer_reloaded:
 * @self: a #StwElementList
 *
 * Tells whether the surface's renderer reloaded since the last snapshot,
 * so refs taken before may be stale.
 *
 * Returns: whether the renderer reloaded
 *
 * Since: 1.0
 */
gboolean
stw_element_list_get_renderer_reloaded (const StwElementList *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->renderer_reloaded;
}

/* The list a search answered: `{surface_id, count, matches[{ref, tag?,
 * role, name, bbox, surface_id}], renderer_reloaded?}`. */
StwElementList *
_stw_element_list_new_from_json (JsonObject *answer)
{
  StwElementList *self = g_new0 (StwElementList, 1);
  JsonNode *matches = json_object_get_member (answer, "matches");
  JsonArray *array = matches && JSON_NODE_HOLDS_ARRAY (matches) ? json_node_get_array (matches) : NULL;

  g_atomic_ref_count_init (&self->ref_count);
  self->elements = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_element_info_free);
  self->count = (guint) json_object_get_int_member_with_default (answer, "count", 0);
  self->surface_id = g_strdup (stw_json_get_string (answer, "surface_id"));
  self->renderer_reloaded = json_object_get_boolean_member_with_default (answer, "renderer_reloaded", FALSE);
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonObject *match = json_array_get_object_element (array, i);
      JsonObject *bbox = stw_json_get_object (match, "bbox");
      StwElementInfo *info = g_new0 (StwElementInfo, 1);

      info->element = stw_element_ref_new ((guint) json_object_get_int_member_with_default (match, "ref", 0),
                                           stw_json_get_string (match, "role"), stw_json_get_string (match, "name"),
                                           stw_json_get_string (match, "surface_id"));
      info->tag = g_strdup (stw_json_get_string (match, "tag"));
      if (bbox != NULL)
        {
          info->box.x = json_object_get_int_member_with_default (bbox, "x", 0);
          info->box.y = json_object_get_int_member_with_default (bbox, "y", 0);
          info->box.width = json_object_get_int_member_with_default (bbox, "w", 0);
          info->box.height = json_object_get_int_member_with_default (bbox, "h", 0);
        }
      g_ptr_array_add (self->elements, info);
    }
  return self;
}
