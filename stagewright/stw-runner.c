/* stw-runner.c: running agent code, in the main process or in a surface
 *
 * The body becomes an async function; the whole expression is compiled
 * before anything runs, so a syntax error is reported as such and nothing
 * half-runs. A renderer run goes to one surface (any: a window, a frame,
 * a webview), in its page's main world — a same-process frame, which a
 * flat CDP session reaches only through a context of its own, through
 * its isolated world. The session runs main-process code here, and each
 * surface its own (stw-surface-run.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-runner-private.h"
#include "stw-surface-private.h"

#define RUN_MAX_CODE_CHARS 100000
#define RUN_MESSAGE_CHARS 200

JsonObject *
_stw_run_evaluate_params (const char *expression,
                          gboolean    command_line_api)
{
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "expression", expression);
  json_object_set_boolean_member (params, "returnByValue", TRUE);
  json_object_set_boolean_member (params, "awaitPromise", TRUE);
  if (command_line_api)
    json_object_set_boolean_member (params, "includeCommandLineAPI", TRUE);
  return params;
}

/* What the caller asked, and where it goes. The body becomes an async
 * function; the whole expression is compiled before anything runs, so a
 * syntax error is reported as such and nothing half-runs. */
typedef struct
{
  StwTransport *transport;
  char         *cdp_session_id;   /* renderer: the surface's flat session */
  StwSurface   *isolated;         /* a same-process frame: its isolated world */
  char         *expression;
  char         *bracketed;        /* the body in a second wrapper, compiled first */
  StwSurface   *checker;          /* renderer: whose isolated world parses the body */
  gboolean      command_line_api;
  guint         timeout_ms;
  gint64        started_us;       /* when the evaluation was sent */
  /* A same-process frame's isolated world has no target-side budget:
   * ours cancels the call at the deadline. */
  GCancellable *budget;
  GCancellable *caller;           /* the task's, forwarded to budget */
  gulong        caller_handler;
  GSource      *deadline;
  gboolean      timed_out;
  char         *object_id;        /* the value, while it is read by value */
  char         *description;      /* its string form, the inspector's */
} Run;

static void
run_free (Run *run)
{
  if (run->deadline != NULL)
    {
      g_source_destroy (run->deadline);
      g_source_unref (run->deadline);
    }
  if (run->caller != NULL)
    g_cancellable_disconnect (run->caller, run->caller_handler);
  g_clear_object (&run->caller);
  g_clear_object (&run->budget);
  g_clear_object (&run->transport);
  g_clear_object (&run->isolated);
  g_clear_object (&run->checker);
  g_free (run->cdp_session_id);
  g_free (run->expression);
  g_free (run->bracketed);
  g_free (run->object_id);
  g_free (run->description);
  g_free (run);
}

/* The first line of an exception, at most RUN_MESSAGE_CHARS characters. */
static JsonObject *
object_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static char *
exception_first_line (JsonObject *reply)
{
  JsonObject *details = object_member (reply, "exceptionDetails");
  JsonObject *exception = object_member (details, "exception");
  const char *text = stw_json_get_string (exception, "description");
  g_autofree char *line = NULL;
  const char *end;

  if (text == NULL)
    text = stw_json_get_string (exception, "value");
  if (text == NULL)
    text = stw_json_get_string (details, "text");
  if (text == NULL)
    text = "The evaluated code threw";
  end = strchr (text, '\n');
  line = end ? g_strndup (text, end - text) : g_strdup (text);
  if (g_utf8_strlen (line, -1) > RUN_MESSAGE_CHARS)
    {
      char *cut = g_utf8_offset_to_pointer (line, RUN_MESSAGE_CHARS);
      *cut = '\0';
    }
  return g_steal_pointer (&line);
}

/* @value (taken), or @text as a string marked `serialized` when @value
 * is NULL. */
static void
run_return (GTask      *task,
            JsonNode   *value,
            const char *text)
{
  g_autoptr(JsonObject) result = json_object_new ();

  if (value == NULL)
    {
      value = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (value, text ? text : "undefined");
      json_object_set_boolean_member (result, "serialized", TRUE);
    }
  json_object_set_member (result, "value", value);
  g_task_return_pointer (task, g_steal_pointer (&result), (GDestroyNotify) json_object_unref);
}

/* What the isolated-world wrapper returned: {json: text} or {text}. The
 * text is the agent's code's doing: parsed with the bounds of any peer's
 * JSON, and a string when it does not parse within them. */
static void
run_return_wrapped (GTask    *task,
                    JsonNode *wrapped)
{
  JsonObject *object = wrapped && JSON_NODE_HOLDS_OBJECT (wrapped) ? json_node_get_object (wrapped) : NULL;
  const char *json = stw_json_get_string (object, "json");
  const char *text = stw_json_get_string (object, "text");

  run_return (task, json ? stw_json_parse (json, -1, NULL) : NULL, json ? json : text);
}

static void run_return_error (GTask  *task,
                              GError *error);

static void
run_release (Run *run)
{
  g_autoptr(JsonObject) params = NULL;

  if (run->object_id == NULL)
    return;
  params = json_object_new ();
  json_object_set_string_member (params, "objectId", run->object_id);
  stw_transport_send_notification (run->transport, "Runtime.releaseObject", params, run->cdp_session_id);
  g_clear_pointer (&run->object_id, g_free);
}

static void
on_run_read (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Run *run = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *remote;
  JsonNode *value;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  run_release (run);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      run_return_error (task, g_steal_pointer (&error));
      return;
    }
  remote = reply != NULL && !json_object_has_member (reply, "exceptionDetails")
           ? stw_json_get_object (reply, "result") : NULL;
  value = remote ? json_object_get_member (remote, "value") : NULL;
  /* A cycle, a value too deep or too big: its string form. */
  if (value == NULL)
    g_debug ("The eval value is not JSON: %s", error ? error->message : "an exception");
  run_return (task, value ? json_node_copy (value) : NULL, run->description);
}

/* An object read by value: by the inspector's own serializer (V8's),
 * which no toJSON, JSON or prototype of the target's can steer. A cycle
 * or a value past the inspector's depth fails the call at once; so does
 * one deeper or bigger than a peer's JSON may be, which the transport
 * will not read (it fails the call by the id at the reply's start), and
 * RUN_READ_MAX_MS bounds the wait for a reply that never comes. Either
 * way: its string form. */
#define RUN_READ_FUNCTION "function () { return this; }"
#define RUN_READ_MAX_MS 10000

/* The value, from the RemoteObject of the target's own evaluation: a
 * primitive is there already; an object is read by value in a second
 * call. Whatever the target did to its JSON, nothing it wrote is parsed
 * here but through the transport's bounded reader. */
static void
run_return_remote (GTask      *task,
                   JsonObject *remote)
{
  Run *run = g_task_get_task_data (task);
  const char *type = stw_json_get_string (remote, "type");
  const char *subtype = stw_json_get_string (remote, "subtype");
  const char *unserializable = stw_json_get_string (remote, "unserializableValue");
  const char *description = stw_json_get_string (remote, "description");
  const char *object_id = stw_json_get_string (remote, "objectId");
  JsonNode *value = remote ? json_object_get_member (remote, "value") : NULL;
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonNode) node = NULL;
  gint64 elapsed_ms;

  if (g_strcmp0 (type, "undefined") == 0 || type == NULL)
    {
      run_return (task, NULL, "undefined");
      return;
    }
  if (g_strcmp0 (type, "bigint") == 0)
    {
      /* Its decimal digits, as String() writes them: no `n`. */
      g_autofree char *digits = g_strdup (unserializable ? unserializable : description ? description : "");

      if (g_str_has_suffix (digits, "n"))
        digits[strlen (digits) - 1] = '\0';
      run_return (task, NULL, digits);
      return;
    }
  if (g_strcmp0 (type, "number") == 0 && value == NULL)
    {
      /* NaN and the infinities are null in JSON; -0 is 0. */
      node = json_node_new (JSON_NODE_NULL);
      if (g_strcmp0 (unserializable, "-0") == 0)
        json_node_init_int (node, 0);
      run_return (task, g_steal_pointer (&node), NULL);
      return;
    }
  if (g_strcmp0 (type, "object") != 0 || g_strcmp0 (subtype, "null") == 0 || object_id == NULL)
    {
      /* A string, number, boolean or null is the value; a function or a
       * symbol has its string form. */
      if (value != NULL && g_strcmp0 (type, "function") != 0 && g_strcmp0 (type, "symbol") != 0)
        run_return (task, json_node_copy (value), NULL);
      else
        run_return (task, NULL, description ? description : type);
      if (object_id != NULL)
        {
          run->object_id = g_strdup (object_id);
          run_release (run);
        }
      return;
    }

  run->object_id = g_strdup (object_id);
  run->description = g_strdup (description ? description : "Object");
  if (g_strcmp0 (subtype, "date") == 0 || g_strcmp0 (subtype, "regexp") == 0 || g_strcmp0 (subtype, "node") == 0)
    {
      /* What String() writes, where JSON would say {} or a page's toJSON. */
      run_release (run);
      run_return (task, NULL, run->description);
      return;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "objectId", object_id);
  json_object_set_string_member (params, "functionDeclaration", RUN_READ_FUNCTION);
  json_object_set_boolean_member (params, "returnByValue", TRUE);
  json_object_set_boolean_member (params, "silent", TRUE);
  elapsed_ms = run->started_us > 0 ? (g_get_monotonic_time () - run->started_us) / 1000 : 0;
  stw_transport_call_async (run->transport, "Runtime.callFunctionOn", params, run->cdp_session_id,
                            CLAMP ((gint64) run->timeout_ms + 500 - elapsed_ms, 1000, RUN_READ_MAX_MS),
                            g_task_get_cancellable (task),
                            on_run_read, g_object_ref (task));
}

static void
run_return_error (GTask  *task,
                  GError *error)
{
  Run *run = g_task_get_task_data (task);
  const char *code = stw_error_domain_is_registered (error->domain) ? stw_error_get_code_name (error) : NULL;

  if (run->timed_out && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    code = "CDP_TIMEOUT";

  /* Our budget ran out before the target's own timeout answered, or the
   * target terminated the code at its budget. */
  if (g_strcmp0 (code, "CDP_TIMEOUT") == 0 ||
      (error->message != NULL && strstr (error->message, "Execution was terminated") != NULL) ||
      /* Chromium answers a terminated evaluation with a bare "Internal error". */
      (error->domain == STW_CDP_ERROR && run->started_us > 0 &&
       g_get_monotonic_time () - run->started_us >= (gint64) run->timeout_ms * 1000))
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_EVAL_TIMEOUT, _("The code ran longer than %u ms"),
                                                     run->timeout_ms));
      g_error_free (error);
      return;
    }
  g_task_return_error (task, error);
}

static void
on_run_isolated (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  g_autoptr(JsonNode) wrapped = _stw_surface_evaluate_isolated_finish (STW_SURFACE (object), result, &error);

  if (wrapped == NULL)
    {
      if (g_strcmp0 (stw_error_get_code_name (error), "EVAL_RUNTIME_ERROR") == 0)
        {
          const char *end = strchr (error->message, '\n');
          if (end != NULL)
            {
              GError *short_error = stw_error_new_code (STW_ERROR_EVAL_RUNTIME_ERROR, "%.*s", (int) (end - error->message),
                                                        error->message);
              g_error_free (error);
              error = short_error;
            }
        }
      run_return_error (task, error);
      return;
    }
  run_return_wrapped (task, wrapped);
}

static void
on_run_evaluated (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) reply = NULL;
  GError *error = NULL;
  JsonObject *remote;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      run_return_error (task, error);
      return;
    }
  if (json_object_has_member (reply, "exceptionDetails"))
    {
      g_autofree char *line = exception_first_line (reply);

      run_return_error (task, stw_error_new_code (STW_ERROR_EVAL_RUNTIME_ERROR, "%s", line));
      return;
    }
  remote = object_member (reply, "result");
  run_return_remote (task, remote);
}

static void run_compile (GTask      *task,
                         const char *source);
static void run_evaluate (GTask *task);

static void
on_run_compiled (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  Run *run = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  GError *error = NULL;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (json_object_has_member (reply, "exceptionDetails"))
    {
      g_autofree char *line = exception_first_line (reply);

      g_task_return_error (task, stw_error_new_code (STW_ERROR_EVAL_SYNTAX_ERROR, "%s", line));
      g_object_unref (task);
      return;
    }
  if (run->bracketed != NULL)
    {
      /* The body is a function body in both wrappers: now the real one. */
      g_clear_pointer (&run->bracketed, g_free);
      run_compile (task, run->expression);
      return;
    }

  run_evaluate (task);
}

static gboolean
on_run_deadline (gpointer user_data)
{
  Run *run = user_data;

  run->timed_out = TRUE;
  g_clear_pointer (&run->deadline, g_source_unref);
  g_cancellable_cancel (run->budget);
  return G_SOURCE_REMOVE;
}

static void
on_caller_cancelled (GCancellable *caller,
                     gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

/* The Run (task data) outlives both: run_free removes the deadline and
 * the forwarding before it frees the budget. */
static void
run_arm_budget (GTask *task)
{
  Run *run = g_task_get_task_data (task);
  GCancellable *caller = g_task_get_cancellable (task);

  run->budget = g_cancellable_new ();
  if (caller != NULL)
    {
      run->caller = g_object_ref (caller);
      run->caller_handler = g_cancellable_connect (caller, G_CALLBACK (on_caller_cancelled), run->budget, NULL);
    }
  run->deadline = g_timeout_source_new (run->timeout_ms);
  g_source_set_callback (run->deadline, on_run_deadline, run, NULL);
  g_source_attach (run->deadline, g_task_get_context (task));
}

static void
run_evaluate (GTask *task)
{
  Run *run = g_task_get_task_data (task);
  g_autoptr(JsonObject) params = NULL;

  if (run->isolated != NULL)
    {
      run_arm_budget (task);
      _stw_surface_evaluate_isolated_async (run->isolated, run->expression, run->budget, on_run_isolated, task);
      return;
    }
  params = _stw_run_evaluate_params (run->expression, run->command_line_api);
  /* By reference: the value is read in run_return_remote(). */
  json_object_set_boolean_member (params, "returnByValue", FALSE);
  /* The target stops synchronous code at the budget; our own, a little
   * longer, covers a promise that never settles. */
  json_object_set_int_member (params, "timeout", run->timeout_ms);
  run->started_us = g_get_monotonic_time ();
  stw_transport_call_async (run->transport, "Runtime.evaluate", params, run->cdp_session_id,
                            run->timeout_ms + 500, g_task_get_cancellable (task), on_run_evaluated, task);
}

/* The expression that runs: @arguments applied to the body as an async
 * function. Its value is read by the inspector (run_return_remote()),
 * never by the target's own JSON, which the target may have replaced.
 * In the isolated world (@wrapped), which is ours, the wrapper returns
 * the value as JSON text, or as a string when JSON cannot say it
 * (undefined, bigint, functions, cycles). */
static char *
run_expression (const char *code,
                const char *parameters,
                const char *arguments,
                gboolean    wrapped)
{
  if (!wrapped)
    return g_strdup_printf ("(async (%s) => {\n%s\n})(%s)", parameters, code, arguments);
  return g_strdup_printf ("(async () => {"
                          " const __stw_value = await (async (%s) => {\n%s\n})(%s);"
                          " let __stw_json;"
                          " try { __stw_json = JSON.stringify(__stw_value); } catch (e) {}"
                          " if (__stw_json !== undefined) return { json: __stw_json };"
                          " let __stw_text;"
                          " try { __stw_text = String(__stw_value); } catch (e) { __stw_text = typeof __stw_value; }"
                          " return { text: __stw_text };"
                          "})()",
                          parameters, code, arguments);
}

gboolean
_stw_run_check_code (const char  *code,
                GError     **error)
{
  if (code == NULL || *code == '\0')
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT, _("The code is empty")));
      return FALSE;
    }
  if (g_utf8_strlen (code, -1) > RUN_MAX_CODE_CHARS)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("The code is longer than %d characters"),
                                                    RUN_MAX_CODE_CHARS));
      return FALSE;
    }
  return TRUE;
}

static void
run_compile (GTask      *task,
             const char *source)
{
  Run *run = g_task_get_task_data (task);
  g_autoptr(JsonObject) params = json_object_new ();

  json_object_set_string_member (params, "expression", source);
  json_object_set_string_member (params, "sourceURL", "stagewright-eval.js");
  json_object_set_boolean_member (params, "persistScript", FALSE);
  stw_transport_call_async (run->transport, "Runtime.compileScript", params, run->cdp_session_id, 0,
                            g_task_get_cancellable (task), on_run_compiled, task);
}

static void
on_run_checked (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  g_autoptr(JsonNode) verdict = NULL;
  GError *error = NULL;

  verdict = _stw_surface_evaluate_isolated_finish (STW_SURFACE (object), result, &error);
  if (verdict == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (JSON_NODE_HOLDS_VALUE (verdict) && json_node_get_value_type (verdict) == G_TYPE_STRING)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_EVAL_SYNTAX_ERROR, "%s", json_node_get_string (verdict)));
      g_object_unref (task);
      return;
    }
  run_evaluate (task);
}

/* A page's Runtime.compileScript needs the Runtime domain enabled, which
 * is not ours to turn on: the body is parsed by the AsyncFunction
 * constructor of our isolated world instead (pristine, whatever the app
 * did to its globals, and allowed by CDP whatever the page's CSP). It
 * parses a function body alone, so a body cannot close its wrapper. */
static void
run_check_in_page (GTask      *task,
                   const char *parameters,
                   const char *code)
{
  Run *run = g_task_get_task_data (task);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *literal = NULL;
  g_autofree char *check = NULL;

  json_node_set_string (node, code);
  literal = json_to_string (node, FALSE);
  check = g_strdup_printf ("(() => { const AsyncFunction = (async function () {}).constructor;"
                           " try { new AsyncFunction('%s', %s); return null; }"
                           " catch (e) { return e instanceof SyntaxError ? String(e) : null; } })()",
                           parameters, literal);
  _stw_surface_evaluate_isolated_async (run->checker, check, g_task_get_cancellable (task), on_run_checked, task);
}

/* A body that closes its wrapper early (`}); (async () => {`) compiles in
 * one wrapper but never in two whose closers differ: the token after the
 * body's last brace would have to be both `)` and `]`. So the body is
 * compiled in brackets first; only then the expression that runs. */
static void
run_start (GTask      *task,
           Run        *run,
           const char *parameters,
           const char *code)
{
  g_task_set_task_data (task, run, (GDestroyNotify) run_free);
  if (run->checker != NULL)
    {
      run_check_in_page (task, parameters, code);
      return;
    }
  run->bracketed = g_strdup_printf ("[async function (%s) {\n%s\n}]", parameters, code);
  run_compile (task, run->bracketed);
}

/* The value of a run_main/run_renderer task, and whether it is a
 * string form rather than JSON. */
JsonNode *
_stw_run_finish (GAsyncResult  *result,
            gboolean      *serialized,
            GError       **error)
{
  g_autoptr(JsonObject) object = g_task_propagate_pointer (G_TASK (result), error);

  if (object == NULL)
    return NULL;
  if (serialized != NULL)
    *serialized = json_object_get_boolean_member_with_default (object, "serialized", FALSE);
  return json_node_copy (json_object_get_member (object, "value"));
}

static char *
run_arguments_json (JsonNode *arg)
{
  return arg != NULL ? json_to_string (arg, FALSE) : g_strdup ("null");
}

void
_stw_run_main_start (GTask        *task,
                     StwTransport *inspector,
                     const char   *code,
                     JsonNode     *arg,
                     guint         timeout_ms)
{
  Run *run = g_new0 (Run, 1);
  g_autofree char *arguments = run_arguments_json (arg);
  g_autofree char *head = NULL;

  run->transport = g_object_ref (inspector);
  run->command_line_api = TRUE;
  run->timeout_ms = timeout_ms ? timeout_ms : STW_RUN_DEFAULT_TIMEOUT_MS;
  /* The inspector's command-line require (Electron >= 28 too), called
   * before the body's first await, while that API is in scope; a plain
   * Node process (injected) has no electron module: null. */
  head = g_strdup_printf ("(() => { try { return require('electron'); } catch (e) { return null; } })(), %s",
                          arguments);
  run->expression = run_expression (code, "electron, arg", head, FALSE);
  run_start (task, run, "electron, arg", code);
}

void
_stw_run_renderer_start (GTask      *task,
                         StwSurface *surface,
                         const char *code,
                         JsonNode   *arg,
                         guint       timeout_ms)
{
  Run *run = g_new0 (Run, 1);
  g_autofree char *arguments = run_arguments_json (arg);

  run->transport = g_object_ref (_stw_surface_get_transport (surface));
  run->cdp_session_id = g_strdup (stw_surface_get_cdp_session_id (surface));
  run->checker = g_object_ref (surface);
  if (_stw_surface_get_subframe_id (surface) != NULL)
    run->isolated = g_object_ref (surface);
  run->timeout_ms = timeout_ms ? timeout_ms : STW_RUN_DEFAULT_TIMEOUT_MS;
  run->expression = run_expression (code, "arg", arguments, run->isolated != NULL);
  run_start (task, run, "arg", code);
}
