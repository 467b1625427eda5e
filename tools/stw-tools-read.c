/* stw-tools-read.c: get_text, get_value, get_attribute, get_bbox,
 * get_computed_style, get_state, exists, focused_element
 *
 * Adapters over the read methods of StwSurface (stw-read.h). A ref works
 * in any surface of the session; a selector is looked up in the active
 * surface.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-core-tools.h"
#include "stw-error-registry.h"
#include "stw-read.h"

/* The arguments every element read takes, as schema members. */
#define TARGET_PROPERTIES STW_SCHEMA_TARGET "," STW_SCHEMA_SESSION_ID
#define TARGET_SCHEMA \
  "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" TARGET_PROPERTIES "}}"
#define READ_ERRORS "REF_NOT_FOUND SELECTOR_NO_MATCH BAD_ARGUMENT NOT_RUNNING"
#define EXISTS_ERRORS "BAD_ARGUMENT NOT_RUNNING"
#define FOCUS_ERRORS "NOT_RUNNING SURFACE_CLOSED"

/* The surface a selector is looked up in. */
static StwSurface *
active_surface (StwSession *session)
{
  StwSurface *surface = stw_session_get_active_surface (session);

  return surface != NULL ? surface : stw_session_get_active_window (session);
}

/* The target of an element read, or NULL after answering the invocation
 * with why not. */
static StwTarget *
read_target (StwInvocation  *invocation,
             StwSurface    **surface)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwTarget) target = NULL;

  target = stw_target_new_from_json (stw_invocation_get_arguments (invocation), "ref", "selector", &error);
  if (target == NULL && error == NULL)
    error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give ref or selector"));
  if (target == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return NULL;
    }
  *surface = active_surface (stw_invocation_get_session (invocation));
  if (*surface == NULL)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", _("The session has no window"));
      return NULL;
    }
  return g_steal_pointer (&target);
}

/* Answers {target, …payload} or the error. */
static void
answer (StwInvocation       *invocation,
        JsonObject          *payload,
        const StwElementRef *element,
        GError              *error)
{
  if (error != NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  if (element != NULL)
    json_object_set_object_member (payload, "target", stw_element_ref_to_json (element));
  stw_invocation_return_value (invocation, payload);
}

static void
set_nullable_string (JsonObject *payload,
                     const char *name,
                     const char *value)
{
  if (value != NULL)
    json_object_set_string_member (payload, name, value);
  else
    json_object_set_null_member (payload, name);
}

/* --- text, value, attribute ---------------------------------------------- */

static void
on_text (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = stw_surface_get_text_finish (STW_SURFACE (object), result, &element, &error);

  if (text != NULL)
    json_object_set_string_member (payload, "text", text);
  answer (invocation, payload, element, error);
}

static void
get_text_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = NULL;
  g_autoptr(StwTarget) target = read_target (invocation, &surface);

  if (target != NULL)
    stw_surface_get_text_async (surface, target, stw_invocation_get_cancellable (invocation),
                                on_text, g_object_ref (invocation));
}

static void
on_value (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = stw_surface_get_value_finish (STW_SURFACE (object), result, &element, &error);

  set_nullable_string (payload, "value", value);
  answer (invocation, payload, element, error);
}

static void
get_value_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = NULL;
  g_autoptr(StwTarget) target = read_target (invocation, &surface);

  if (target != NULL)
    stw_surface_get_value_async (surface, target, stw_invocation_get_cancellable (invocation),
                                 on_value, g_object_ref (invocation));
}

static void
on_attribute (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = stw_surface_get_attribute_finish (STW_SURFACE (object), result, &element, &error);

  set_nullable_string (payload, "value", value);
  answer (invocation, payload, element, error);
}

static void
get_attribute_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = NULL;
  g_autoptr(StwTarget) target = read_target (invocation, &surface);
  const char *name = json_object_get_string_member_with_default (stw_invocation_get_arguments (invocation), "name", "");

  if (target != NULL)
    stw_surface_get_attribute_async (surface, target, name, stw_invocation_get_cancellable (invocation),
                                     on_attribute, g_object_ref (invocation));
}

/* --- bbox, style, state -------------------------------------------------- */

static void
on_bbox (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwBox) box = stw_surface_get_bbox_finish (STW_SURFACE (object), result, &element, &error);

  if (box != NULL)
    {
      JsonObject *bbox = json_object_new ();

      json_object_set_double_member (bbox, "x", box->x);
      json_object_set_double_member (bbox, "y", box->y);
      json_object_set_double_member (bbox, "w", box->width);
      json_object_set_double_member (bbox, "h", box->height);
      json_object_set_object_member (payload, "bbox", bbox);
    }
  answer (invocation, payload, element, error);
}

static void
get_bbox_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = NULL;
  g_autoptr(StwTarget) target = read_target (invocation, &surface);

  if (target != NULL)
    stw_surface_get_bbox_async (surface, target, stw_invocation_get_cancellable (invocation),
                                on_bbox, g_object_ref (invocation));
}

static void
on_style (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *style = stw_surface_get_computed_style_finish (STW_SURFACE (object), result, &element, &error);

  if (style != NULL)
    json_object_set_object_member (payload, "style", style);
  answer (invocation, payload, element, error);
}

static void
get_computed_style_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = NULL;
  g_autoptr(StwTarget) target = read_target (invocation, &surface);
  JsonObject *args = stw_invocation_get_arguments (invocation);
  JsonArray *list = json_object_has_member (args, "properties") ? json_object_get_array_member (args, "properties") : NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  if (target == NULL)
    return;
  /* The schema made them strings. */
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    g_ptr_array_add (names, (gpointer) json_array_get_string_element (list, i));
  g_ptr_array_add (names, NULL);
  stw_surface_get_computed_style_async (surface, target, (const char * const *) names->pdata,
                                        stw_invocation_get_cancellable (invocation),
                                        on_style, g_object_ref (invocation));
}

static void
on_state (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwElementState) state = stw_surface_get_state_finish (STW_SURFACE (object), result, &element, &error);

  if (state != NULL)
    json_object_set_object_member (payload, "state", stw_element_state_to_json (state));
  answer (invocation, payload, element, error);
}

static void
get_state_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = NULL;
  g_autoptr(StwTarget) target = read_target (invocation, &surface);

  if (target != NULL)
    stw_surface_get_state_async (surface, target, stw_invocation_get_cancellable (invocation),
                                 on_state, g_object_ref (invocation));
}

/* --- exists, focused ----------------------------------------------------- */

static void
on_exists (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  gboolean exists = stw_surface_exists_finish (STW_SURFACE (object), result, &element, &error);

  json_object_set_boolean_member (payload, "exists", exists);
  answer (invocation, payload, element, error);
}

static void
exists_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = NULL;
  g_autoptr(StwTarget) target = read_target (invocation, &surface);

  if (target != NULL)
    stw_surface_exists_async (surface, target, stw_invocation_get_cancellable (invocation),
                              on_exists, g_object_ref (invocation));
}

static void
on_focused (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StwElementRef) focused = stw_surface_get_focused_element_finish (STW_SURFACE (object), result, &error);

  if (focused != NULL)
    {
      JsonObject *element = stw_element_ref_to_json (focused);

      json_object_set_string_member (element, "surface_id", stw_element_ref_get_surface_id (focused));
      json_object_set_object_member (payload, "focused", element);
    }
  else
    json_object_set_null_member (payload, "focused");
  answer (invocation, payload, NULL, error);
}

static void
focused_element_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = active_surface (stw_invocation_get_session (invocation));

  if (surface == NULL)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", _("The session has no window"));
      return;
    }
  stw_surface_get_focused_element_async (surface, stw_invocation_get_cancellable (invocation),
                                         on_focused, g_object_ref (invocation));
}

/* No titles: the name says it, and tools/list stays small. */
#define READ_SPEC(tool, text, schema, profile, function, codes) \
  { \
    .name = tool, .description = text, .input_schema = schema, \
    .operation_type = STW_OPERATION_QUERY, .errors = codes, .profiles = profile, \
    .session = STW_SESSION_REQUIREMENT_REQUIRED, .invoke = function, \
  }

static const StwToolSpec read_specs[] = {
  READ_SPEC ("electron_get_text",
             "Trimmed text, else the label. Returns {text}.",
             TARGET_SCHEMA, STW_IN_ESSENTIAL, get_text_invoke, READ_ERRORS),
  READ_SPEC ("electron_get_value",
             "Value of an input, select, textarea or contenteditable, else null.",
             TARGET_SCHEMA, STW_IN_ESSENTIAL, get_value_invoke, READ_ERRORS),
  READ_SPEC ("electron_get_attribute",
             "An attribute's value, null when absent. Returns {value}.",
             "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"name\"],\"properties\":{"
             TARGET_PROPERTIES ",\"name\":{\"type\":\"string\"}}}",
             STW_IN_TESTING_AND_DEBUG, get_attribute_invoke, READ_ERRORS),
  READ_SPEC ("electron_get_bbox",
             "Border box in the window's viewport, CSS px. Returns {bbox{x,y,w,h}}.",
             TARGET_SCHEMA, STW_IN_TESTING_AND_DEBUG, get_bbox_invoke, READ_ERRORS),
  READ_SPEC ("electron_get_computed_style",
             "Computed values of the kebab-case properties asked. Returns {style}.",
             "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"properties\"],\"properties\":{"
             TARGET_PROPERTIES ",\"properties\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}",
             STW_IN_TESTING_AND_DEBUG, get_computed_style_invoke, READ_ERRORS),
  READ_SPEC ("electron_get_state",
             "Returns {state{visible,enabled,disabled,checked,selected,expanded,pressed,focused,readonly,required,invalid,busy}}.",
             TARGET_SCHEMA, STW_IN_ESSENTIAL, get_state_invoke, READ_ERRORS),
  READ_SPEC ("electron_exists",
             "Whether the element exists; a miss is no error. Returns {exists}.",
             TARGET_SCHEMA, STW_IN_ESSENTIAL, exists_invoke, EXISTS_ERRORS),
  READ_SPEC ("electron_focused_element",
             "The focused element, into shadow roots and frames; body is null. Returns {focused{ref,role,name,surface_id}|null}.",
             "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{\"sessionId\":{\"type\":\"string\"}}}",
             STW_IN_TESTING_AND_DEBUG, focused_element_invoke, FOCUS_ERRORS),
};

void
stw_core_tools_add_read (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, read_specs, G_N_ELEMENTS (read_specs));
}
