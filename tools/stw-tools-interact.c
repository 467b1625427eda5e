/* stw-tools-interact.c: the interaction family — click, hover, drag, type,
 * keys, clear, select, check, files, scroll
 *
 * Thin adapters over the StwSurface interaction methods (stw-actions.h):
 * read the target and options, call the method on the active surface (a
 * ref finds its own surface), answer its fields.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stagewright.h"
#include "stw-core-tools.h"

typedef StwActionResult *(*FinishFunc) (StwSurface    *self,
                                        GAsyncResult  *result,
                                        GError       **error);

/* One interaction: how to finish it, and what its answer adds to the
 * typed result — members echoed from the arguments (`typed`, `key`…), the
 * name of the page's values (`selected`, `files`), and for check and
 * uncheck the state reached unless a dialog interrupted. */
typedef struct
{
  StwInvocation *invocation;
  FinishFunc     finish;
  JsonObject    *echo;
  const char    *values_name;
  gboolean       drop;
  int            checked;     /* -1: not a check */
} Call;

static void
call_free (Call *call)
{
  g_clear_object (&call->invocation);
  g_clear_pointer (&call->echo, json_object_unref);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Call, call_free)

/* The wire answer of an interaction: the elements, the echoed members,
 * what the page reported, the dialog. */
static JsonObject *
answer_of (Call                  *call,
           const StwActionResult *result)
{
  JsonObject *payload = json_object_new ();
  const char * const *values = stw_action_result_get_values (result);
  const StwDialogEvent *dialog = stw_action_result_get_dialog (result);

  if (stw_action_result_get_source (result) != NULL)
    json_object_set_object_member (payload, "source", stw_element_ref_to_json (stw_action_result_get_source (result)));
  if (stw_action_result_get_target (result) != NULL)
    json_object_set_object_member (payload, "target", stw_element_ref_to_json (stw_action_result_get_target (result)));
  if (call->echo != NULL)
    {
      g_autoptr(GList) members = json_object_get_members (call->echo);

      for (const GList *l = members; l != NULL; l = l->next)
        json_object_set_member (payload, l->data, json_node_copy (json_object_get_member (call->echo, l->data)));
    }
  if (call->values_name != NULL && values != NULL)
    {
      JsonArray *array = json_array_new ();

      for (guint i = 0; values[i] != NULL; i++)
        json_array_add_string_element (array, values[i]);
      json_object_set_array_member (payload, call->values_name, array);
    }
  if (call->drop)
    json_object_set_boolean_member (payload, "default_prevented", stw_action_result_get_default_prevented (result));
  if (dialog != NULL)
    json_object_set_object_member (payload, "dialog", stw_dialog_event_to_json (dialog));
  else if (call->checked >= 0)
    json_object_set_boolean_member (payload, "checked", call->checked);
  return payload;
}

static void
on_done (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(Call) call = user_data;
  g_autoptr(StwActionResult) done = NULL;
  g_autoptr(GError) error = NULL;

  done = call->finish (STW_SURFACE (object), result, &error);
  if (done == NULL)
    stw_invocation_return_error (call->invocation, error);
  else
    {
      g_autoptr(JsonObject) payload = answer_of (call, done);

      json_object_set_string_member (payload, "session_id", stw_invocation_get_session_id (call->invocation));
      stw_invocation_return_value (call->invocation, payload);
    }
}

static Call *
call_new (StwInvocation *invocation,
          FinishFunc     finish)
{
  Call *call = g_new0 (Call, 1);

  call->invocation = g_object_ref (invocation);
  call->finish = finish;
  call->checked = -1;
  return call;
}

/* A call whose answer echoes @echo (consumed). */
static Call *
call_new_echoing (StwInvocation *invocation,
                  FinishFunc     finish,
                  JsonObject    *echo)
{
  Call *call = call_new (invocation, finish);

  call->echo = echo;
  return call;
}

static void
on_form_filled (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = NULL;
  g_autoptr(GError) error = NULL;

  payload = stw_surface_fill_form_finish (STW_SURFACE (object), result, &error);
  if (payload == NULL)
    stw_invocation_return_error (invocation, error);
  else
    {
      json_object_set_string_member (payload, "session_id", stw_invocation_get_session_id (invocation));
      stw_invocation_return_value (invocation, payload);
    }
}

/* The surface, target and options every interaction takes; FALSE when the
 * invocation was answered with an error. */
static gboolean
prepare (StwInvocation     *invocation,
         gboolean           target_required,
         StwSurface       **surface,
         StwTarget        **target,
         StwActionOptions **options)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);
  g_autoptr(GError) error = NULL;

  *surface = stw_session_get_active_surface (stw_invocation_get_session (invocation));
  if (*surface == NULL)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", _("The app has no window"));
      return FALSE;
    }
  *target = stw_target_new_from_json (args, "ref", "selector", &error);
  if (error == NULL && *target == NULL && target_required)
    error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give ref or selector"));
  if (error == NULL)
    *options = stw_action_options_new_from_json (args, &error);
  if (error != NULL)
    {
      g_clear_pointer (target, stw_target_free);
      stw_invocation_return_error (invocation, error);
      return FALSE;
    }
  return TRUE;
}

/* A string array argument, or NULL. */
static GStrv
strv_arg (JsonObject *args,
          const char *name)
{
  JsonArray *array = json_object_has_member (args, name) ? json_object_get_array_member (args, name) : NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    g_strv_builder_add (builder, json_array_get_string_element (array, i));
  return g_strv_builder_end (builder);
}

#define PRELUDE(required) \
  JsonObject *args G_GNUC_UNUSED = stw_invocation_get_arguments (invocation); \
  GCancellable *cancellable = stw_invocation_get_cancellable (invocation); \
  g_autoptr(StwTarget) target = NULL; \
  g_autoptr(StwActionOptions) options = NULL; \
  StwSurface *surface; \
  if (!prepare (invocation, required, &surface, &target, &options)) \
    return

static void
click_invoke (StwTool       *tool,
              StwInvocation *invocation)
{
  PRELUDE (TRUE);
  stw_surface_click_async (surface, target, options, cancellable, on_done,
                           call_new (invocation, stw_surface_click_finish));
}

static void
fill_form_invoke (StwTool       *tool,
                  StwInvocation *invocation)
{
  PRELUDE (FALSE);
  stw_surface_fill_form_async (surface, json_object_get_array_member (args, "fields"), options, cancellable,
                               on_form_filled, g_object_ref (invocation));
}

static void
hover_invoke (StwTool       *tool,
              StwInvocation *invocation)
{
  PRELUDE (TRUE);
  stw_surface_hover_async (surface, target, options, cancellable, on_done,
                           call_new (invocation, stw_surface_hover_finish));
}

static void
drag_invoke (StwTool       *tool,
             StwInvocation *invocation)
{
  g_autoptr(StwTarget) destination = NULL;
  g_autoptr(GError) error = NULL;
  PRELUDE (TRUE);

  destination = stw_target_new_from_json (args, "targetRef", "targetSelector", &error);
  if (error == NULL && destination == NULL)
    error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give targetRef or targetSelector"));
  if (error != NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  stw_surface_drag_async (surface, target, destination, options, cancellable, on_done,
                          call_new (invocation, stw_surface_drag_finish));
}

static void
type_invoke (StwTool       *tool,
             StwInvocation *invocation)
{
  PRELUDE (TRUE);
  stw_surface_fill_async (surface, target, json_object_get_string_member (args, "text"), options, cancellable,
                          on_done, call_new (invocation, stw_surface_fill_finish));
}

static void
keyboard_type_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  const char *text;
  JsonObject *echo;
  PRELUDE (FALSE);

  text = json_object_get_string_member (args, "text");
  echo = json_object_new ();
  json_object_set_int_member (echo, "typed", g_utf8_strlen (text, -1));
  stw_surface_type_text_async (surface, target, text, options, cancellable,
                               on_done, call_new_echoing (invocation, stw_surface_type_text_finish, echo));
}

static void
type_into_editor_invoke (StwTool       *tool,
                         StwInvocation *invocation)
{
  const char *text;
  gboolean replace;
  JsonObject *echo;
  PRELUDE (TRUE);

  text = json_object_get_string_member (args, "text");
  replace = json_object_get_boolean_member_with_default (args, "replace", FALSE);
  echo = json_object_new ();
  json_object_set_int_member (echo, "typed", g_utf8_strlen (text, -1));
  json_object_set_boolean_member (echo, "replaced", replace);
  stw_surface_type_into_editor_async (surface, target, text, replace, options, cancellable, on_done,
                                      call_new_echoing (invocation, stw_surface_type_into_editor_finish, echo));
}

static void
key_invoke (StwTool       *tool,
            StwInvocation *invocation)
{
  const char *key;
  JsonObject *echo;
  PRELUDE (FALSE);

  key = json_object_get_string_member (args, "key");
  echo = json_object_new ();
  json_object_set_string_member (echo, "key", key);
  stw_surface_press_key_async (surface, target, key, options, cancellable,
                               on_done, call_new_echoing (invocation, stw_surface_press_key_finish, echo));
}

static void
press_sequence_invoke (StwTool       *tool,
                       StwInvocation *invocation)
{
  g_auto(GStrv) keys = NULL;
  JsonObject *echo;
  PRELUDE (FALSE);

  keys = strv_arg (args, "keys");
  echo = json_object_new ();
  json_object_set_array_member (echo, "keys", json_array_new ());
  for (guint i = 0; keys[i] != NULL; i++)
    json_array_add_string_element (json_object_get_array_member (echo, "keys"), keys[i]);
  stw_surface_press_sequence_async (surface, target, (const char * const *) keys, options, cancellable,
                                    on_done, call_new_echoing (invocation, stw_surface_press_sequence_finish, echo));
}

static void
clear_invoke (StwTool       *tool,
              StwInvocation *invocation)
{
  JsonObject *echo;
  PRELUDE (TRUE);

  echo = json_object_new ();
  json_object_set_boolean_member (echo, "cleared", TRUE);
  stw_surface_clear_async (surface, target, options, cancellable, on_done,
                           call_new_echoing (invocation, stw_surface_clear_finish, echo));
}

static void
select_invoke (StwTool       *tool,
               StwInvocation *invocation)
{
  g_auto(GStrv) values = NULL;
  Call *call;
  PRELUDE (TRUE);

  values = strv_arg (args, "values");
  call = call_new (invocation, stw_surface_select_options_finish);
  call->values_name = "selected";
  stw_surface_select_options_async (surface, target, (const char * const *) values, options, cancellable,
                                    on_done, call);
}

static void
check_invoke (StwTool       *tool,
              StwInvocation *invocation)
{
  Call *call;
  PRELUDE (TRUE);

  call = call_new (invocation, stw_surface_set_checked_finish);
  call->checked = TRUE;
  stw_surface_set_checked_async (surface, target, TRUE, options, cancellable, on_done, call);
}

static void
uncheck_invoke (StwTool       *tool,
                StwInvocation *invocation)
{
  Call *call;
  PRELUDE (TRUE);

  call = call_new (invocation, stw_surface_set_checked_finish);
  call->checked = FALSE;
  stw_surface_set_checked_async (surface, target, FALSE, options, cancellable, on_done, call);
}

static void
set_files_invoke (StwTool       *tool,
                  StwInvocation *invocation)
{
  g_auto(GStrv) paths = NULL;
  Call *call;
  PRELUDE (TRUE);

  paths = strv_arg (args, "paths");
  call = call_new (invocation, stw_surface_set_files_finish);
  call->values_name = "files";
  stw_surface_set_files_async (surface, target, (const char * const *) paths,
                               stw_dispatcher_get_app_root (stw_invocation_get_dispatcher (invocation)),
                               options, cancellable, on_done, call);
}

static void
drop_file_invoke (StwTool       *tool,
                  StwInvocation *invocation)
{
  g_auto(GStrv) paths = NULL;
  Call *call;
  PRELUDE (TRUE);

  paths = strv_arg (args, "paths");
  call = call_new (invocation, stw_surface_drop_files_finish);
  call->values_name = "files";
  call->drop = TRUE;
  stw_surface_drop_files_async (surface, target, (const char * const *) paths,
                                json_object_get_string_member_with_default (args, "mimeType", NULL),
                                stw_dispatcher_get_app_root (stw_invocation_get_dispatcher (invocation)),
                                options, cancellable, on_done, call);
}

static void
scroll_invoke (StwTool       *tool,
               StwInvocation *invocation)
{
  double dx, dy;
  JsonObject *echo = NULL;
  PRELUDE (FALSE);

  dx = json_object_get_double_member_with_default (args, "dx", 0);
  dy = json_object_get_double_member_with_default (args, "dy", 0);
  /* A scroll of the viewport answers the distance; of an element, it. */
  if (target == NULL)
    {
      echo = json_object_new ();
      json_object_set_double_member (echo, "dx", dx);
      json_object_set_double_member (echo, "dy", dy);
    }
  stw_surface_scroll_async (surface, target, dx, dy, options, cancellable, on_done,
                            call_new_echoing (invocation, stw_surface_scroll_finish, echo));
}

static void
scroll_into_view_invoke (StwTool       *tool,
                         StwInvocation *invocation)
{
  PRELUDE (TRUE);
  stw_surface_scroll_into_view_async (surface, target, options, cancellable, on_done,
                                      call_new (invocation, stw_surface_scroll_into_view_finish));
}

/* Schema fragments: every tool takes sessionId and a target; pointer
 * tools force and timeoutMs (clamped to 0…30000, so any integer is
 * taken). */
#define P_ACT     ",\"force\":{\"type\":\"boolean\"},\"timeoutMs\":{\"type\":\"integer\"}"
#define SCHEMA(props) "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID "," STW_SCHEMA_TARGET props "}}"
#define SCHEMA_REQ(req, props) "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[" req "],\"properties\":{" \
                               STW_SCHEMA_SESSION_ID "," STW_SCHEMA_TARGET props "}}"

#define E_TARGET "REF_NOT_FOUND SELECTOR_NO_MATCH"
#define E_POINTER E_TARGET " ELEMENT_NOT_VISIBLE ELEMENT_DISABLED"
#define E_FILES "ABSOLUTE_PATH_REQUIRED FILE_NOT_FOUND BAD_ARGUMENT " E_TARGET

static const StwToolSpec interact_specs[] = {
  {
    .name = "electron_click",
    .description = "Real click once visible, enabled, stable, uncovered (force: no checks). Returns {dialog?}.",
    .input_schema = SCHEMA (P_ACT ",\"button\":{\"enum\":[\"left\",\"right\",\"middle\"]},"
                            "\"clickCount\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_POINTER,
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = click_invoke,
  },
  {
    .name = "electron_hover",
    .description = "Real mouse move over the element (checks as click).",
    .input_schema = SCHEMA (P_ACT),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_POINTER,
    .profiles = STW_IN_TESTING,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = hover_invoke,
  },
  {
    .name = "electron_drag",
    .description = "Real mouse drag to targetRef/targetSelector. Returns {source, target}.",
    .input_schema = SCHEMA (P_ACT ",\"targetRef\":{\"type\":\"integer\",\"minimum\":1},"
                            "\"targetSelector\":{\"type\":\"string\",\"minLength\":1}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_POINTER,
    .profiles = STW_IN_TESTING,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = drag_invoke,
  },
  {
    .name = "electron_type",
    .description = "Fill an input, textarea or contenteditable with text.",
    .input_schema = SCHEMA_REQ ("\"text\"", P_ACT ",\"text\":{\"type\":\"string\",\"maxLength\":100000}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_POINTER " TYPE_NO_EFFECT",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = type_invoke,
  },
  {
    .name = "electron_keyboard_type",
    .description = "Type text with real keys into the element, else the focus. Returns {typed}.",
    .input_schema = SCHEMA_REQ ("\"text\"", ",\"text\":{\"type\":\"string\",\"maxLength\":10000}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_TARGET " ELEMENT_DISABLED TYPE_NO_EFFECT",
    .profiles = STW_IN_TESTING,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = keyboard_type_invoke,
  },
  {
    .name = "electron_type_into_editor",
    .description = "Click a code editor, type real keys (replace: select all first). Returns {typed, replaced}.",
    .input_schema = SCHEMA_REQ ("\"text\"", ",\"timeoutMs\":{\"type\":\"integer\"},"
                                "\"text\":{\"type\":\"string\",\"maxLength\":10000},\"replace\":{\"type\":\"boolean\"}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_POINTER,
    .profiles = STW_IN_TESTING,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = type_into_editor_invoke,
  },
  {
    .name = "electron_key",
    .description = "Press key/chord (Enter, Control+A) on element or focus.",
    .input_schema = SCHEMA_REQ ("\"key\"", ",\"key\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "BAD_ARGUMENT " E_TARGET " TYPE_NO_EFFECT",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = key_invoke,
  },
  {
    .name = "electron_press_sequence",
    .description = "Press keys/chords in order. Returns {keys}.",
    .input_schema = SCHEMA_REQ ("\"keys\"", ",\"keys\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":100,"
                                "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64}}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "BAD_ARGUMENT " E_TARGET " TYPE_NO_EFFECT",
    .profiles = STW_IN_TESTING,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = press_sequence_invoke,
  },
  {
    .name = "electron_clear_input",
    .description = "Empty an input.",
    .input_schema = SCHEMA (P_ACT),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_POINTER,
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = clear_invoke,
  },
  {
    .name = "electron_fill_form",
    .description = "Fill fields in order: strings type (a select takes an option label or value), booleans "
                   "check/uncheck. Returns {filled[]}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"fields\"],\"properties\":{"
      STW_SCHEMA_SESSION_ID ",\"fields\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":50,\"items\":"
      "{\"type\":\"object\",\"required\":[\"value\"],\"properties\":{" STW_SCHEMA_TARGET ","
      "\"value\":{\"type\":[\"string\",\"boolean\",\"array\"]}}}}" P_ACT "}}",
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_POINTER " TYPE_NO_EFFECT",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = fill_form_invoke,
  },
  {
    .name = "electron_select_option",
    .description = "Choose <select> options by value or label.",
    .input_schema = SCHEMA_REQ ("\"values\"", ",\"values\":{\"type\":\"array\",\"minItems\":1,"
                                "\"items\":{\"type\":\"string\"}}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = "BAD_ARGUMENT " E_TARGET " ELEMENT_DISABLED",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = select_invoke,
  },
  {
    .name = "electron_check",
    .description = "Check (clicks only if unchecked).",
    .input_schema = SCHEMA (P_ACT),
    .operation_type = STW_OPERATION_COMMAND,
    .idempotent = TRUE,
    .errors = E_POINTER,
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = check_invoke,
  },
  {
    .name = "electron_uncheck",
    .description = "Uncheck (clicks only if checked).",
    .input_schema = SCHEMA (P_ACT),
    .operation_type = STW_OPERATION_COMMAND,
    .idempotent = TRUE,
    .errors = E_POINTER,
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = uncheck_invoke,
  },
  {
    .name = "electron_set_files",
    .description = "Set a file input's files (absolute, regular, <=20, <=50 MiB each). Returns {files}.",
    .input_schema = SCHEMA_REQ ("\"paths\"", ",\"paths\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":20,"
                                "\"items\":{\"type\":\"string\"}}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_FILES " ELEMENT_DISABLED",
    .profiles = STW_IN_TESTING,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = set_files_invoke,
  },
  {
    .name = "electron_drop_file",
    .description = "Drop regular files (5 MiB each). Returns {files, default_prevented}.",
    .input_schema = SCHEMA_REQ ("\"paths\"", ",\"paths\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":10,"
                                "\"items\":{\"type\":\"string\"}},\"mimeType\":{\"type\":\"string\"}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_FILES " ELEMENT_NOT_VISIBLE",
    .profiles = STW_IN_TESTING,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = drop_file_invoke,
  },
  {
    .name = "electron_scroll",
    .description = "Wheel dx/dy px over the element (centred first), else the viewport.",
    .input_schema = SCHEMA (",\"dx\":{\"type\":\"number\"},\"dy\":{\"type\":\"number\"}"),
    .operation_type = STW_OPERATION_COMMAND,
    .errors = E_TARGET,
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = scroll_invoke,
  },
  {
    .name = "electron_scroll_into_view",
    .description = "Centre the element in the viewport.",
    .input_schema = SCHEMA (""),
    .operation_type = STW_OPERATION_COMMAND,
    .idempotent = TRUE,
    .errors = E_TARGET " ELEMENT_NOT_VISIBLE",
    .profiles = STW_IN_ESSENTIAL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = scroll_into_view_invoke,
  },
};

void
stw_core_tools_add_interact (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, interact_specs, G_N_ELEMENTS (interact_specs));
}
