/* stw-tools-snapshot.c: electron_snapshot, electron_find, electron_elements_list
 *
 * Thin adapters over stw_surface_snapshot_async(), stw_surface_find_async()
 * and stw_surface_list_elements_async(), on the session's active surface.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-core-tools.h"
#include "stagewright.h"
#include "stw-error-registry.h"


static StwSurface *
active_surface (StwInvocation *invocation)
{
  StwSurface *surface = stw_session_get_active_surface (stw_invocation_get_session (invocation));

  if (surface == NULL)
    stw_invocation_return_error_literal (invocation, "NOT_RUNNING", _("The session has no window yet"));
  return surface;
}

static void
on_snapshot (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSnapshot) snapshot = stw_surface_snapshot_finish (STW_SURFACE (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;

  if (snapshot == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = stw_tools_wire_object (STW_TYPE_SNAPSHOT, snapshot);
  stw_invocation_return_value (invocation, answer);
}

static void
snapshot_invoke (StwTool       *tool,
                 StwInvocation *invocation)
{
  g_autoptr(StwSnapshotOptions) options = NULL;
  g_autoptr(GError) error = NULL;
  StwSurface *surface;

  options = stw_snapshot_options_new_from_json (stw_invocation_get_arguments (invocation), &error);
  if (options == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  if ((surface = active_surface (invocation)) == NULL)
    return;
  stw_surface_snapshot_async (surface, options, stw_invocation_get_cancellable (invocation),
                              on_snapshot, g_object_ref (invocation));
}

/* A search's answer: {surface_id, count, truncated, matches}. */
static JsonObject *
list_json (const StwElementList *list)
{
  JsonObject *answer = json_object_new ();
  JsonArray *matches = json_array_new ();
  guint n = stw_element_list_get_n_elements (list);

  for (guint i = 0; i < n; i++)
    json_array_add_object_element (matches, stw_element_info_to_json (stw_element_list_get_element (list, i)));
  json_object_set_string_member (answer, "surface_id", stw_element_list_get_surface_id (list));
  json_object_set_int_member (answer, "count", stw_element_list_get_count (list));
  json_object_set_int_member (answer, "truncated", (gint64) stw_element_list_get_count (list) - n);
  json_object_set_array_member (answer, "matches", matches);
  return answer;
}

static void
on_found (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwElementList) found = stw_surface_find_finish (STW_SURFACE (object), result, &error);

  if (found == NULL)
    stw_invocation_return_error (invocation, error);
  else
    {
      g_autoptr(JsonObject) answer = list_json (found);

      json_object_set_boolean_member (answer, "renderer_reloaded", stw_element_list_get_renderer_reloaded (found));
      stw_invocation_return_value (invocation, answer);
    }
}

static void
find_invoke (StwTool       *tool,
             StwInvocation *invocation)
{
  g_autoptr(JsonObject) filters = json_object_new ();
  JsonObject *args = stw_invocation_get_arguments (invocation);
  g_autoptr(GList) members = json_object_get_members (args);
  StwSurface *surface;

  if ((surface = active_surface (invocation)) == NULL)
    return;
  /* The filters are the arguments, without the session. */
  for (const GList *l = members; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "sessionId"))
      json_object_set_member (filters, l->data, json_node_copy (json_object_get_member (args, l->data)));
  stw_surface_find_async (surface, filters, stw_invocation_get_cancellable (invocation),
                          on_found, g_object_ref (invocation));
}

static void
on_listed (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwElementList) listed = stw_surface_list_elements_finish (STW_SURFACE (object), result, &error);

  if (listed == NULL)
    stw_invocation_return_error (invocation, error);
  else
    {
      g_autoptr(JsonObject) answer = list_json (listed);

      stw_invocation_return_value (invocation, answer);
    }
}

static void
elements_list_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);
  StwSurface *surface;

  if ((surface = active_surface (invocation)) == NULL)
    return;
  stw_surface_list_elements_async (surface, json_object_get_string_member (args, "selector"),
                                   (guint) json_object_get_int_member_with_default (args, "limit", 50),
                                   stw_invocation_get_cancellable (invocation),
                                   on_listed, g_object_ref (invocation));
}

static const StwToolSpec snapshot_specs[] = {
  {
    .name = "electron_snapshot",
    .description = "Roles, names, states, frames inline; [ref] on controls, headings, status, options. "
                   "Text, or format:\"json\"; since:\"last\" diffs. Returns {snapshot_text|snapshot|diff}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID ","
      "\"format\":{\"enum\":[\"json\",\"text\"]},"
      "\"interactiveOnly\":{\"type\":\"boolean\"},"
      "\"maxEntries\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000},"
      "\"root\":{\"type\":[\"integer\",\"string\"]},"
      "\"since\":{\"enum\":[\"last\"]},"
      "\"diffFormat\":{\"enum\":[\"compact\",\"full\"]},"
      "\"budgetTokens\":{\"type\":\"integer\",\"minimum\":50}}}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING BAD_ARGUMENT REF_NOT_FOUND SELECTOR_NO_MATCH SURFACE_CLOSED",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = snapshot_invoke,
  },
  {
    .name = "electron_find",
    .description = "Entries matching all filters (name_* ignore case). Returns {matches[{ref,role,name,bbox}]}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID ","
      "\"role\":{\"type\":\"string\"},"
      "\"name_contains\":{\"type\":\"string\"},"
      "\"name_exact\":{\"type\":\"string\"},"
      "\"visible\":{\"type\":\"boolean\"},"
      "\"enabled\":{\"type\":\"boolean\"},"
      "\"interactive\":{\"type\":\"boolean\"},"
      "\"limit\":{\"type\":\"integer\",\"minimum\":1}}}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING BAD_ARGUMENT SURFACE_CLOSED",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = find_invoke,
  },
  {
    .name = "electron_elements_list",
    .description = "Elements matching a CSS selector (shadow roots too), each with a ref. "
                   "Returns {matches[{ref, tag, role, name, bbox}], count, truncated}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"selector\"],\"properties\":{"
      STW_SCHEMA_SESSION_ID ","
      "\"selector\":{\"type\":\"string\",\"minLength\":1},"
      "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200}}}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "NOT_RUNNING BAD_ARGUMENT SURFACE_CLOSED",
    .profiles = STW_IN_TESTING_AND_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = elements_list_invoke,
  },
};

void
stw_core_tools_add_snapshot (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, snapshot_specs, G_N_ELEMENTS (snapshot_specs));
}
