/* stw-tools-windows.c: windows_list, switch_window, surfaces_list, switch_surface
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-core-tools.h"
#include "stw-error-registry.h"


static void
on_window_states_refreshed (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  StwSession *session = STW_SESSION (object);
  g_autoptr(JsonObject) payload = json_object_new ();
  StwSurface *active;
  JsonArray *windows;

  /* A main process that does not answer leaves the states unknown: the
   * windows are listed as they are without it. */
  stw_session_refresh_window_states_finish (session, result, NULL);
  windows = stw_tools_windows_json (session);
  active = stw_session_get_active_window (session);
  json_object_set_string_member (payload, "session_id", stw_session_get_id (session));
  json_object_set_int_member (payload, "count", json_array_get_length (windows));
  json_object_set_array_member (payload, "windows", windows);
  if (active != NULL)
    json_object_set_string_member (payload, "active_window_id", stw_surface_get_window_id (active));
  else
    json_object_set_null_member (payload, "active_window_id");
  stw_invocation_return_value (invocation, payload);
}

static void
on_windows_refreshed (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  StwInvocation *invocation = user_data;
  StwSession *session = STW_SESSION (object);

  stw_session_refresh_surfaces_finish (session, result, NULL);
  stw_session_refresh_window_states_async (session, stw_invocation_get_cancellable (invocation),
                                           on_window_states_refreshed, invocation);
}

static void
windows_list_invoke (StwTool       *tool,
                     StwInvocation *invocation)
{
  StwSession *session = stw_invocation_get_session (invocation);

  /* Titles change as pages load: read them fresh. */
  stw_session_refresh_surfaces_async (session, stw_invocation_get_cancellable (invocation),
                                      on_windows_refreshed, g_object_ref (invocation));
}

static void
switch_window (StwInvocation *invocation,
               gboolean       refreshed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) payload = json_object_new ();
  JsonObject *args = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  g_autoptr(GList) windows = NULL;
  StwSurface *active;
  guint index = 0;

  if (!stw_session_switch_window (session,
                                  json_object_get_string_member_with_default (args, "targetId", NULL),
                                  json_object_get_string_member_with_default (args, "windowTitle", NULL),
                                  (int) json_object_get_int_member_with_default (args, "index", -1),
                                  &error))
    {
      /* Titles and new windows arrive as events: one the page made a moment
       * ago may not be known yet. Read the targets once and look again. */
      if (!refreshed && g_error_matches (error, STW_ERROR, STW_ERROR_REF_NOT_FOUND))
        {
          stw_tools_refresh_then (invocation, switch_window);
          return;
        }
      stw_invocation_return_error (invocation, error);
      return;
    }

  active = stw_session_get_active_window (session);
  windows = stw_session_list_windows (session);
  index = (guint) g_list_index (windows, active);
  json_object_set_string_member (payload, "session_id", stw_session_get_id (session));
  json_object_set_object_member (payload, "active", stw_tools_window_json (session, active, index));
  json_object_set_string_member (payload, "active_window_id", stw_surface_get_window_id (active));
  stw_invocation_return_value (invocation, payload);
}

static void
switch_window_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  switch_window (invocation, FALSE);
}

static JsonObject *
surface_json (StwSession *session,
              StwSurface *surface)
{
  JsonObject *object = json_object_new ();
  StwSurface *active = stw_session_get_active_surface (session);
  JsonObject *capabilities;
  StwCapabilityFlags caps;

  json_object_set_string_member (object, "id", stw_surface_get_id (surface));
  json_object_set_string_member (object, "kind", stw_surface_kind_to_string (stw_surface_get_kind (surface)));
  if (stw_surface_get_parent_id (surface) != NULL)
    json_object_set_string_member (object, "parentId", stw_surface_get_parent_id (surface));
  json_object_set_string_member (object, "windowId", stw_surface_get_window_id (surface));
  if (stw_surface_get_title (surface) != NULL && *stw_surface_get_title (surface) != '\0')
    json_object_set_string_member (object, "title", stw_surface_get_title (surface));
  if (stw_surface_get_url (surface) != NULL)
    json_object_set_string_member (object, "url", stw_surface_get_url (surface));
  json_object_set_boolean_member (object, "active", surface == active);
  caps = stw_surface_get_capabilities (surface);
  capabilities = json_object_new ();
  json_object_set_boolean_member (capabilities, "snapshot", (caps & STW_CAPABILITY_SNAPSHOT) != 0);
  json_object_set_boolean_member (capabilities, "interaction", (caps & STW_CAPABILITY_INTERACTION) != 0);
  json_object_set_boolean_member (capabilities, "rendererEval", (caps & STW_CAPABILITY_RENDERER_EVAL) != 0);
  json_object_set_object_member (object, "capabilities", capabilities);
  if (stw_surface_get_origin_relation (surface) != NULL)
    json_object_set_string_member (object, "originRelation", stw_surface_get_origin_relation (surface));
  return object;
}

static void
on_refreshed (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  StwSession *session = STW_SESSION (object);
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(GList) surfaces = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *array;
  StwSurface *active;

  /* The library decides what a session without renderer connection
   * answers (TRANSPORT_UNSUPPORTED); other failures leave the surfaces
   * as they were known. */
  if (!stw_session_refresh_surfaces_finish (session, result, &error) &&
      g_error_matches (error, STW_ERROR, STW_ERROR_TRANSPORT_UNSUPPORTED))
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  array = json_array_new ();
  surfaces = stw_session_list_surfaces (session);
  for (const GList *l = surfaces; l != NULL; l = l->next)
    json_array_add_object_element (array, surface_json (session, l->data));

  active = stw_session_get_active_surface (session);
  json_object_set_string_member (payload, "session_id", stw_session_get_id (session));
  json_object_set_int_member (payload, "count", json_array_get_length (array));
  json_object_set_array_member (payload, "surfaces", array);
  if (active != NULL)
    json_object_set_string_member (payload, "active_surface_id", stw_surface_get_id (active));
  else
    json_object_set_null_member (payload, "active_surface_id");
  stw_invocation_return_value (invocation, payload);
}

static void
surfaces_list_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  StwSession *session = stw_invocation_get_session (invocation);

  stw_session_refresh_surfaces_async (session, stw_invocation_get_cancellable (invocation),
                                      on_refreshed, g_object_ref (invocation));
}

static void
switch_surface_invoke (StwTool       *tool,
                       StwInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) payload = json_object_new ();
  JsonObject *args = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  StwSurface *active;

  if (!stw_session_switch_surface (session, json_object_get_string_member (args, "surfaceId"), &error))
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  active = stw_session_get_active_surface (session);
  json_object_set_string_member (payload, "session_id", stw_session_get_id (session));
  json_object_set_object_member (payload, "active", surface_json (session, active));
  json_object_set_string_member (payload, "active_surface_id", stw_surface_get_id (active));
  stw_invocation_return_value (invocation, payload);
}

static const StwToolSpec windows_specs[] = {
  {
    .name = "electron_windows_list",
    .description = "The app's windows in opening order and the active one (the default target of page tools). "
                   "Returns: {session_id, windows[{id, index, title, url?, target_id, visible, focused, electronId?, minimized?, "
                   "bounds?}], active_window_id, count}; electronId, minimized and bounds (and a real visible and "
                   "focused) when the main process is reachable.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID "}}",
    .operation_type = STW_OPERATION_WINDOW_INFO,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING",
    .profiles = STW_IN_TESTING_AND_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = windows_list_invoke,
  },
  {
    .name = "electron_switch_window",
    .description = "Make a window the target of page tools (not OS focus): targetId (a window id or DevTools "
                   "target id) > windowTitle (exact) > index (0-based) > the first window. "
                   "Returns: {session_id, active, active_window_id}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID ","
      "\"targetId\":{\"type\":\"string\",\"minLength\":1},"
      "\"windowTitle\":{\"type\":\"string\"},"
      "\"index\":{\"type\":\"integer\",\"minimum\":0}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING REF_NOT_FOUND TRANSPORT_UNSUPPORTED",
    .profiles = STW_IN_TESTING_AND_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = switch_window_invoke,
  },
  {
    .name = "electron_surfaces_list",
    .description = "Everything that renders, parents first: windows, iframes (same or cross process) and webviews. "
                   "Ids are opaque, live as long as the session and are never reused. "
                   "Returns: {session_id, surfaces[{id, kind, parentId?, windowId, title?, url?, active, "
                   "capabilities, originRelation?}], active_surface_id, count}.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID "}}",
    .operation_type = STW_OPERATION_WINDOW_INFO,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING TRANSPORT_UNSUPPORTED",
    .profiles = STW_IN_TESTING_AND_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = surfaces_list_invoke,
  },
  {
    .name = "electron_switch_surface",
    .description = "Make a surface the target of page tools; its window becomes the active window. "
                   "Returns: {session_id, active, active_surface_id}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"surfaceId\"],\"properties\":{"
      STW_SCHEMA_SESSION_ID ",\"surfaceId\":{\"type\":\"string\",\"minLength\":1}}}",
    .operation_type = STW_OPERATION_COMMAND,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING SURFACE_NOT_FOUND SURFACE_CLOSED SURFACE_UNSUPPORTED TRANSPORT_UNSUPPORTED",
    .profiles = STW_IN_TESTING_AND_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = switch_surface_invoke,
  },
};

void
stw_core_tools_add_windows (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, windows_specs, G_N_ELEMENTS (windows_specs));
}
