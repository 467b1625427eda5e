/* stw-tools-eval.c: eval_main, eval_renderer
 *
 * Both are hidden unless the server's eval policy names their target;
 * the dispatcher audits and guards the `code` argument before they run
 * (DESIGN.md §6). The library compiles, runs and bounds the code; these
 * adapters only shape the answer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-core-tools.h"
#include "stw-error-registry.h"

/* The contract's cap on a result, in characters of its JSON text. */
#define RESULT_MAX_CHARS 10000

typedef JsonNode *(*RunFinishFunc) (StwSession    *self,
                                    GAsyncResult  *result,
                                    gboolean      *serialized,
                                    GError       **error);

static void
return_result (StwInvocation *invocation,
               StwSession    *session,
               GAsyncResult  *result,
               RunFinishFunc  finish)
{
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean serialized = FALSE;
  glong chars;

  value = finish (session, result, &serialized, &error);
  if (value == NULL)
    {
      stw_invocation_return_error (invocation, g_steal_pointer (&error));
      return;
    }
  json_object_set_string_member (payload, "session_id", stw_session_get_id (session));
  text = json_to_string (value, FALSE);
  chars = g_utf8_strlen (text, -1);
  if (chars > RESULT_MAX_CHARS)
    {
      /* Sliced on a character boundary: the result is then the start of
       * the value's JSON text, as a string. */
      *g_utf8_offset_to_pointer (text, RESULT_MAX_CHARS) = '\0';
      json_object_set_string_member (payload, "result", text);
      json_object_set_boolean_member (payload, "truncated", TRUE);
      json_object_set_int_member (payload, "result_chars", chars);
    }
  else
    json_object_set_member (payload, "result", g_steal_pointer (&value));
  if (serialized)
    json_object_set_boolean_member (payload, "result_serialized", TRUE);
  stw_invocation_return_value (invocation, payload);
}

static guint
timeout_argument (JsonObject *args)
{
  return (guint) json_object_get_int_member_with_default (args, "timeoutMs", 0);
}

static void
on_main_run (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;

  return_result (invocation, STW_SESSION (object), result, stw_session_run_main_finish);
}

static void
eval_main_invoke (StwTool       *tool,
                  StwInvocation *invocation)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);

  stw_session_run_main_async (stw_invocation_get_session (invocation),
                              json_object_get_string_member (args, "code"),
                              json_object_get_member (args, "arg"), timeout_argument (args),
                              stw_invocation_get_cancellable (invocation), on_main_run, g_object_ref (invocation));
}

static void
on_renderer_run (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;

  return_result (invocation, STW_SESSION (object), result, stw_session_run_renderer_finish);
}

static void
eval_renderer_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);

  stw_session_run_renderer_async (stw_invocation_get_session (invocation),
                                  json_object_get_string_member (args, "code"),
                                  json_object_get_member (args, "arg"), timeout_argument (args),
                                  stw_invocation_get_cancellable (invocation), on_renderer_run,
                                  g_object_ref (invocation));
}

#define EVAL_SCHEMA \
  "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"code\"],\"properties\":{" \
  STW_SCHEMA_SESSION_ID "," \
  "\"code\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100000}," \
  "\"arg\":{}," \
  "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":300000}}}"

#define EVAL_RETURNS \
  "Returns {session_id, result, truncated?, result_chars?, result_serialized?}: the value as JSON read by " \
  "the inspector (own enumerable properties, no toJSON), cut at 10,000 characters (truncated); what JSON " \
  "cannot hold (undefined, bigint, functions, dates, DOM nodes, cycles, depth > 250) as strings " \
  "(result_serialized). timeoutMs: 30000."

static const StwToolSpec eval_specs[] = {
  {
    .name = "electron_eval_main",
    .description = "Run JavaScript in the app's Electron main process (its Node inspector). code is the body of "
                   "an async function of (electron, arg): electron is the Electron module (no require needed), "
                   "arg the JSON arg; await and return work. " EVAL_RETURNS,
    .input_schema = EVAL_SCHEMA,
    .operation_type = STW_OPERATION_EVAL,
    .eval_target = STW_EVAL_TARGET_MAIN,
    .code_argument = "code",
    .destructive = TRUE,
    .errors = "NOT_RUNNING BAD_ARGUMENT TRANSPORT_UNSUPPORTED EVAL_SYNTAX_ERROR EVAL_RUNTIME_ERROR EVAL_TIMEOUT "
              "EVAL_BLOCKED_KEYWORD EVAL_BLOCKED_CONSTRUCT",
    .profiles = STW_TOOL_PROFILE_FLAGS_ALL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = eval_main_invoke,
  },
  {
    .name = "electron_eval_renderer",
    .description = "Run JavaScript in the active surface, in the page's own world (the app's globals are "
                   "visible). code is the body of an async function of (arg); await and return work. "
                   EVAL_RETURNS,
    .input_schema = EVAL_SCHEMA,
    .operation_type = STW_OPERATION_EVAL,
    .eval_target = STW_EVAL_TARGET_RENDERER,
    .code_argument = "code",
    .destructive = TRUE,
    .errors = "NOT_RUNNING BAD_ARGUMENT TRANSPORT_UNSUPPORTED SURFACE_NOT_FOUND EVAL_SYNTAX_ERROR "
              "EVAL_RUNTIME_ERROR EVAL_TIMEOUT EVAL_BLOCKED_KEYWORD EVAL_BLOCKED_CONSTRUCT",
    .profiles = STW_TOOL_PROFILE_FLAGS_ALL,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = eval_renderer_invoke,
  },
};

void
stw_core_tools_add_eval (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, eval_specs, G_N_ELEMENTS (eval_specs));
}
