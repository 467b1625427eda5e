/* stw-tool-spec.c: core tools described as data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-core-tools.h"
/* The one exception to "tools include no private header": core schemas
 * are checked by tests/test-core-schemas.c, not at every start. */
#include "stw-schema-private.h"
#include "stw-tool-private.h"

/* One GType serves every core tool: each instance carries its spec, whose
 * function does the work. The tool families stay tables of data plus
 * one function per tool. */
#define STW_TYPE_SPEC_TOOL (stw_spec_tool_get_type ())
G_DECLARE_FINAL_TYPE (StwSpecTool, stw_spec_tool, STW, SPEC_TOOL, StwTool)

struct _StwSpecTool
{
  StwTool            parent_instance;
  const StwToolSpec *spec;
};

G_DEFINE_FINAL_TYPE (StwSpecTool, stw_spec_tool, STW_TYPE_TOOL)

static void
stw_spec_tool_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  STW_SPEC_TOOL (tool)->spec->invoke (tool, invocation);
}

static void
stw_spec_tool_class_init (StwSpecToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = stw_spec_tool_invoke;
}

static void
stw_spec_tool_init (StwSpecTool *self)
{
}

StwTool *
stw_tool_new_from_spec (const StwToolSpec *spec)
{
  g_autoptr(StwSchema) schema = NULL;
  g_auto(GStrv) codes = NULL;
  StwToolInit init;
  StwSpecTool *tool;

  g_return_val_if_fail (spec != NULL && spec->invoke != NULL, NULL);

  if (spec->profiles == 0)
    g_error ("Core tool %s names no tool profile", spec->name);

  /* Parsed and compiled on first use: a test has checked it. */
  schema = _stw_schema_new_deferred (spec->input_schema);

  codes = g_strsplit (spec->errors ? spec->errors : "", " ", -1);
  if (codes[0] != NULL && codes[0][0] == '\0')
    g_clear_pointer (&codes, g_strfreev);

  init = (StwToolInit) {
    .name = spec->name,
    .title = spec->title,
    .description = spec->description,
    .input_schema = schema,
    .operation_type = spec->operation_type,
    .eval_target = spec->eval_target,
    .code_argument = spec->code_argument,
    .error_codes = g_steal_pointer (&codes),
    .destructive_hint = spec->destructive,
    .idempotent_hint = spec->idempotent,
    .profiles = spec->profiles,
    .session_requirement = spec->session,
  };
  tool = (StwSpecTool *) _stw_tool_new_with_init (STW_TYPE_SPEC_TOOL, &init);
  tool->spec = spec;
  return STW_TOOL (tool);
}

void
stw_core_tools_add_specs (StwToolProvider   *provider,
                          const StwToolSpec *specs,
                          gsize              n_specs)
{
  for (gsize i = 0; i < n_specs; i++)
    {
      g_autoptr(StwTool) tool = stw_tool_new_from_spec (&specs[i]);
      g_autoptr(GError) error = NULL;

      /* Two families naming one tool is a bug of ours. */
      if (!stw_tool_provider_add_tool (provider, tool, &error))
        g_error ("Core tool %s: %s", specs[i].name, error->message);
    }
}

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
