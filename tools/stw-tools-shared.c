/* stw-tools-shared.c: adapter code the core tool families share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-core-tools.h"

/* --- shared adapter code ------------------------------------------------- */

/* Window bounds are whole screen pixels: as integers, as Electron gave them. */
static void
set_pixels (JsonObject *object,
            const char *member,
            double      value)
{
  if (value == (double) (gint64) value)
    json_object_set_int_member (object, member, (gint64) value);
  else
    json_object_set_double_member (object, member, value);
}

/* The session's capabilities as electron_info and electron_launch show
 * them: {mainEval, rendererEval, interaction, surfaces, owned, notes?}. */
JsonObject *
stw_tools_session_capabilities_json (StwSession *session)
{
  JsonObject *object = json_object_new ();
  StwCapabilityFlags caps = stw_session_get_capabilities (session);
  const char *note = stw_session_get_capability_note (session, STW_CAPABILITY_MAIN_EVAL);

  json_object_set_boolean_member (object, "mainEval", (caps & STW_CAPABILITY_MAIN_EVAL) != 0);
  json_object_set_boolean_member (object, "rendererEval", (caps & STW_CAPABILITY_RENDERER_EVAL) != 0);
  json_object_set_boolean_member (object, "interaction", (caps & STW_CAPABILITY_INTERACTION) != 0);
  json_object_set_boolean_member (object, "surfaces", (caps & STW_CAPABILITY_SURFACES) != 0);
  json_object_set_boolean_member (object, "owned", (caps & STW_CAPABILITY_OWNED) != 0);
  if (note != NULL)
    {
      JsonObject *notes = json_object_new ();

      json_object_set_string_member (notes, "mainEval", note);
      json_object_set_object_member (object, "notes", notes);
    }
  return object;
}

JsonObject *
stw_tools_window_json (StwSession *session,
                       StwSurface *window,
                       guint       index)
{
  JsonObject *object = json_object_new ();
  StwSurface *active = stw_session_get_active_window (session);
  g_autoptr(StwWindowState) state = NULL;

  json_object_set_string_member (object, "id", stw_surface_get_window_id (window));
  json_object_set_int_member (object, "index", index);
  json_object_set_string_member (object, "title", stw_surface_get_title (window) ? stw_surface_get_title (window) : "");
  if (stw_surface_get_url (window) != NULL)
    json_object_set_string_member (object, "url", stw_surface_get_url (window));
  json_object_set_string_member (object, "target_id", stw_surface_get_target_id (window));
  /* The main process knows; without it, a window is taken as shown and
   * the active one as focused. */
  state = stw_session_dup_window_state (session, window);
  if (state != NULL)
    {
      const StwBox *bounds = stw_window_state_get_bounds (state);

      json_object_set_int_member (object, "electronId", stw_window_state_get_electron_id (state));
      json_object_set_boolean_member (object, "visible", stw_window_state_is_visible (state));
      json_object_set_boolean_member (object, "focused", stw_window_state_is_focused (state));
      json_object_set_boolean_member (object, "minimized", stw_window_state_is_minimized (state));
      if (bounds != NULL)
        {
          JsonObject *box = json_object_new ();

          set_pixels (box, "x", bounds->x);
          set_pixels (box, "y", bounds->y);
          set_pixels (box, "width", bounds->width);
          set_pixels (box, "height", bounds->height);
          json_object_set_object_member (object, "bounds", box);
        }
      return object;
    }
  json_object_set_boolean_member (object, "visible", TRUE);
  json_object_set_boolean_member (object, "focused", active == window);
  return object;
}

JsonObject *
stw_tools_wire_object (GType         boxed_type,
                       gconstpointer boxed)
{
  g_autoptr(JsonNode) node = json_boxed_serialize (boxed_type, boxed);

  /* Every type passed here registers an object serialization. */
  g_assert (node != NULL && JSON_NODE_HOLDS_OBJECT (node));
  return json_node_dup_object (node);
}

JsonArray *
stw_tools_windows_json (StwSession *session)
{
  g_autoptr(GList) windows = stw_session_list_windows (session);
  JsonArray *array = json_array_new ();
  guint index = 0;

  for (const GList *l = windows; l != NULL; l = l->next)
    json_array_add_object_element (array, stw_tools_window_json (session, l->data, index++));
  return array;
}

typedef struct
{
  StwInvocation     *invocation;
  StwToolsAgainFunc  again;
} Again;

static void
on_refreshed_again (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Again *again = user_data;
  g_autoptr(StwInvocation) invocation = again->invocation;
  StwToolsAgainFunc func = again->again;
  g_autoptr(GError) error = NULL;

  g_free (again);
  if (!stw_session_refresh_surfaces_finish (STW_SESSION (object), result, &error))
    {
      /* The real cause (a dropped connection), not "no such window". */
      stw_invocation_return_error (invocation, error);
      return;
    }
  func (invocation, TRUE);
}

void
stw_tools_refresh_then (StwInvocation     *invocation,
                        StwToolsAgainFunc  again)
{
  Again *data = g_new0 (Again, 1);

  data->invocation = g_object_ref (invocation);
  data->again = again;
  stw_session_refresh_surfaces_async (stw_invocation_get_session (invocation),
                                      stw_invocation_get_cancellable (invocation),
                                      on_refreshed_again, data);
}
