/* stw-test-utils.c: what the GTest programs share
 *
 * An in-process MCP client for StwMcpServer over pipe pairs, JSON helpers,
 * and fake CDP peers (see stw-test-utils.h).
 *
 * The shape of jsonrpc-glib's tests/test-server.c: two pipe pairs, the
 * server on one end of each and a client written here on the other, both on
 * one private main context. Every wait iterates that context with a
 * deadline and fails the test instead of hanging; every line the server
 * writes is parsed and checked as a JSON-RPC frame as it arrives.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

/* These tests call libsoup themselves, linked (see stw-soup-private.h). */
#define STW_SOUP_LINKED

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>

#include "stw-json-private.h"
#include "stw-test-utils.h"
#include "transports/stw-cdp-pipe.h"
#include "transports/stw-cdp-websocket.h"

#define READ_CHUNK 65536

/* Test helpers {{{1 */

static void
fail_with (const char *file,
           int         line,
           const char *func,
           const char *message)
{
  g_assertion_message (G_LOG_DOMAIN, file, line, func, message);
}

JsonObject *
stw_test_json_object_from (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  if (json == NULL)
    return NULL;
  node = stw_json_parse (json, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

char *
stw_test_json_nested (guint       depth,
                      const char *open,
                      const char *inner,
                      const char *close)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (text, open);
  g_string_append (text, inner);
  for (guint i = 0; i < depth; i++)
    g_string_append (text, close);
  return g_string_free (text, FALSE);
}

char *
stw_test_to_json (JsonNode *node)
{
  return stw_json_to_string (node, NULL);
}

char *
stw_test_object_to_json (JsonObject *object)
{
  return stw_json_object_to_string (object, NULL);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Serialization with object members sorted, and integers kept apart from
 * doubles, so that two values compare equal exactly when their texts do. */
static void
append_canonical (GString  *out,
                  JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);
        g_autoptr(GPtrArray) names = g_ptr_array_new ();

        for (const GList *l = members; l != NULL; l = l->next)
          g_ptr_array_add (names, l->data);
        g_ptr_array_sort (names, compare_strings);

        g_string_append_c (out, '{');
        for (guint i = 0; i < names->len; i++)
          {
            g_autoptr(JsonNode) key = json_node_new (JSON_NODE_VALUE);

            json_node_set_string (key, g_ptr_array_index (names, i));
            if (i > 0)
              g_string_append_c (out, ',');
            stw_json_append (out, key);
            g_string_append_c (out, ':');
            append_canonical (out, json_object_get_member (object, g_ptr_array_index (names, i)));
          }
        g_string_append_c (out, '}');
      }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        g_string_append_c (out, '[');
        for (guint i = 0; i < json_array_get_length (array); i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            append_canonical (out, json_array_get_element (array, i));
          }
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
        g_string_append (out, "double:");
      stw_json_append (out, node);
      break;

    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      break;
    }
}

static char *
canonical (JsonNode *node)
{
  GString *out = g_string_new (NULL);

  append_canonical (out, node);
  return g_string_free (out, FALSE);
}

void
stw_test_assert_json_equal (JsonNode   *node,
                            const char *expected)
{
  g_autoptr(JsonNode) want = stw_test_parse (expected);
  g_autofree char *got_text = NULL;
  g_autofree char *want_text = NULL;

  g_assert_nonnull (node);
  got_text = canonical (node);
  want_text = canonical (want);
  g_assert_cmpstr (got_text, ==, want_text);
}

void
stw_test_assert_members (JsonObject *object,
                         const char *first_name,
                         ...)
{
  g_autoptr(GPtrArray) want = g_ptr_array_new ();
  g_autoptr(GList) members = NULL;
  g_autoptr(GPtrArray) got = g_ptr_array_new ();
  g_autofree char *want_text = NULL;
  g_autofree char *got_text = NULL;
  va_list args;

  g_assert_nonnull (object);

  va_start (args, first_name);
  for (const char *name = first_name; name != NULL; name = va_arg (args, const char *))
    g_ptr_array_add (want, (gpointer) name);
  va_end (args);
  g_ptr_array_sort (want, compare_strings);
  g_ptr_array_add (want, NULL);

  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    g_ptr_array_add (got, l->data);
  g_ptr_array_sort (got, compare_strings);
  g_ptr_array_add (got, NULL);

  want_text = g_strjoinv (",", (char **) want->pdata);
  got_text = g_strjoinv (",", (char **) got->pdata);
  g_assert_cmpstr (got_text, ==, want_text);
}

static gboolean
holds_type (JsonNode *node,
            GType     type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

/* One frame as the server may write it: a response to a request, an error
 * (with a null id only when the id could not be read), or a notification.
 * The server sends no requests of its own. */
void
stw_test_check_frame (JsonObject *frame)
{
  JsonNode *jsonrpc = json_object_get_member (frame, "jsonrpc");
  JsonNode *id = json_object_get_member (frame, "id");
  JsonNode *method = json_object_get_member (frame, "method");
  JsonNode *result = json_object_get_member (frame, "result");
  JsonNode *error = json_object_get_member (frame, "error");

  g_assert_true (holds_type (jsonrpc, G_TYPE_STRING));
  g_assert_cmpstr (json_node_get_string (jsonrpc), ==, "2.0");

  if (method != NULL)
    {
      JsonNode *params = json_object_get_member (frame, "params");

      g_assert_true (holds_type (method, G_TYPE_STRING));
      g_assert_cmpuint (strlen (json_node_get_string (method)), >, 0);
      g_assert_null (id);
      g_assert_null (result);
      g_assert_null (error);
      if (params != NULL)
        {
          g_assert_true (JSON_NODE_HOLDS_OBJECT (params));
          stw_test_assert_members (frame, "jsonrpc", "method", "params", NULL);
        }
      else
        stw_test_assert_members (frame, "jsonrpc", "method", NULL);
      return;
    }

  g_assert_nonnull (id);
  g_assert_true (JSON_NODE_HOLDS_NULL (id) || holds_type (id, G_TYPE_STRING) ||
                 holds_type (id, G_TYPE_INT64));
  g_assert_true ((result != NULL) != (error != NULL));

  if (result != NULL)
    {
      g_assert_false (JSON_NODE_HOLDS_NULL (id));
      g_assert_true (JSON_NODE_HOLDS_OBJECT (result));
      stw_test_assert_members (frame, "jsonrpc", "id", "result", NULL);
    }
  else
    {
      JsonObject *error_object;
      JsonNode *code;
      JsonNode *message;

      g_assert_true (JSON_NODE_HOLDS_OBJECT (error));
      stw_test_assert_members (frame, "jsonrpc", "id", "error", NULL);
      error_object = json_node_get_object (error);
      code = json_object_get_member (error_object, "code");
      message = json_object_get_member (error_object, "message");
      g_assert_true (holds_type (code, G_TYPE_INT64));
      g_assert_true (holds_type (message, G_TYPE_STRING));
      g_assert_cmpuint (strlen (json_node_get_string (message)), >, 0);
      if (json_object_has_member (error_object, "data"))
        stw_test_assert_members (error_object, "code", "message", "data", NULL);
      else
        stw_test_assert_members (error_object, "code", "message", NULL);
    }
}

static gboolean
id_matches (JsonNode *got,
            JsonNode *want)
{
  g_autofree char *got_text = NULL;
  g_autofree char *want_text = NULL;

  if (got == NULL || JSON_NODE_TYPE (got) != JSON_NODE_TYPE (want))
    return FALSE;
  if (JSON_NODE_HOLDS_VALUE (got) &&
      json_node_get_value_type (got) != json_node_get_value_type (want))
    return FALSE;
  got_text = stw_json_to_string (got, NULL);
  want_text = stw_json_to_string (want, NULL);
  return g_str_equal (got_text, want_text);
}

static void
assert_id (JsonObject *response,
           const char *id)
{
  g_autoptr(JsonNode) want = stw_test_parse (id);
  JsonNode *got = json_object_get_member (response, "id");

  if (!id_matches (got, want))
    {
      g_autofree char *got_text = got ? stw_json_to_string (got, NULL) : g_strdup ("(none)");
      g_autofree char *message = g_strdup_printf ("response id %s, expected %s", got_text, id);
      fail_with (__FILE__, __LINE__, G_STRFUNC, message);
    }
}

JsonObject *
stw_test_assert_result (JsonObject *response,
                        const char *id)
{
  g_assert_nonnull (response);
  stw_test_check_frame (response);
  if (!json_object_has_member (response, "result"))
    {
      g_autofree char *text = stw_test_object_to_json (response);
      g_autofree char *message = g_strdup_printf ("expected a result, got %s", text);
      fail_with (__FILE__, __LINE__, G_STRFUNC, message);
      return NULL;
    }
  assert_id (response, id);
  return json_object_get_object_member (response, "result");
}

JsonObject *
stw_test_assert_error (JsonObject *response,
                       const char *id,
                       gint64      code)
{
  JsonObject *error;

  g_assert_nonnull (response);
  stw_test_check_frame (response);
  if (!json_object_has_member (response, "error"))
    {
      g_autofree char *text = stw_test_object_to_json (response);
      g_autofree char *message = g_strdup_printf ("expected error %" G_GINT64_FORMAT ", got %s",
                                                  code, text);
      fail_with (__FILE__, __LINE__, G_STRFUNC, message);
      return NULL;
    }
  assert_id (response, id);
  error = json_object_get_object_member (response, "error");
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, code);
  return error;
}

/* Test tools {{{1 */

typedef enum
{
  TEST_TOOL_ECHO,
  TEST_TOOL_FAIL,
  TEST_TOOL_SLOW,
  TEST_TOOL_PROGRESS,
  TEST_TOOL_NEVER,
  TEST_TOOL_EVAL,
} TestToolKind;

#define STW_TYPE_TEST_TOOL (stw_test_tool_get_type ())
G_DECLARE_FINAL_TYPE (StwTestTool, stw_test_tool, STW, TEST_TOOL, StwTool)

struct _StwTestTool
{
  StwTool       parent_instance;
  TestToolKind  kind;
  guint         n_calls;
  guint         n_cancelled;
  guint         n_completed;
};

G_DEFINE_FINAL_TYPE (StwTestTool, stw_test_tool, STW_TYPE_TOOL)

/* One asynchronous call of a test tool: alive until it completes or its
 * invocation is cancelled, whichever comes first. */
typedef struct
{
  StwTestTool   *tool;
  StwInvocation *invocation;
  GSource       *timer;
  GSource       *cancel_source;
  guint          step;
  guint          steps;
} TestCall;

static void
test_call_free (TestCall *call)
{
  if (call->timer != NULL)
    {
      g_source_destroy (call->timer);
      g_source_unref (call->timer);
    }
  if (call->cancel_source != NULL)
    {
      g_source_destroy (call->cancel_source);
      g_source_unref (call->cancel_source);
    }
  g_object_unref (call->invocation);
  g_object_unref (call->tool);
  g_free (call);
}

static gboolean
on_test_call_cancelled (GCancellable *cancellable,
                        gpointer      user_data)
{
  TestCall *call = user_data;

  call->tool->n_cancelled++;
  /* The dispatcher abandons the invocation before cancelling it; if not,
   * the call still ends here. */
  if (!stw_invocation_is_completed (call->invocation))
    stw_invocation_return_error_literal (call->invocation, "INTERNAL_ERROR",
                                         "The test call was cancelled");
  test_call_free (call);
  return G_SOURCE_REMOVE;
}

static gboolean
on_slow_timer (gpointer user_data)
{
  TestCall *call = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();

  json_object_set_int_member (payload, "slept_ms",
                              json_object_get_int_member_with_default (stw_invocation_get_arguments (call->invocation),
                                                                       "ms", 0));
  call->tool->n_completed++;
  stw_invocation_return_value (call->invocation, payload);
  test_call_free (call);
  return G_SOURCE_REMOVE;
}

static gboolean
on_progress_timer (gpointer user_data)
{
  TestCall *call = user_data;
  g_autofree char *message = NULL;

  call->step++;
  message = g_strdup_printf ("step %u of %u", call->step, call->steps);
  stw_invocation_report_progress (call->invocation, call->step, call->steps, message);
  if (call->step % 5 == 0)
    stw_invocation_report_progress (call->invocation, call->step, call->steps, "again");

  if (call->step < call->steps)
    return G_SOURCE_CONTINUE;

  {
    g_autoptr(JsonObject) payload = json_object_new ();

    json_object_set_int_member (payload, "steps", call->steps);
    call->tool->n_completed++;
    stw_invocation_return_value (call->invocation, payload);
  }
  test_call_free (call);
  return G_SOURCE_REMOVE;
}

static TestCall *
test_call_new (StwTestTool   *tool,
               StwInvocation *invocation)
{
  TestCall *call = g_new0 (TestCall, 1);

  call->tool = g_object_ref (tool);
  call->invocation = g_object_ref (invocation);
  call->cancel_source = g_cancellable_source_new (stw_invocation_get_cancellable (invocation));
  g_source_set_callback (call->cancel_source, G_SOURCE_FUNC (on_test_call_cancelled), call, NULL);
  g_source_attach (call->cancel_source, g_main_context_get_thread_default ());
  return call;
}

static void
test_call_start_timer (TestCall    *call,
                       guint        interval_ms,
                       GSourceFunc  func)
{
  call->timer = g_timeout_source_new (interval_ms);
  g_source_set_callback (call->timer, func, call, NULL);
  g_source_attach (call->timer, g_main_context_get_thread_default ());
}

static void
stw_test_tool_invoke (StwTool       *tool,
                      StwInvocation *invocation)
{
  StwTestTool *self = STW_TEST_TOOL (tool);
  JsonObject *arguments = stw_invocation_get_arguments (invocation);

  self->n_calls++;

  switch (self->kind)
    {
    case TEST_TOOL_ECHO:
      {
        g_autoptr(JsonObject) payload = json_object_new ();
        JsonNode *echo = json_node_new (JSON_NODE_OBJECT);

        json_node_set_object (echo, arguments);
        json_object_set_member (payload, "echo", echo);
        self->n_completed++;
        stw_invocation_return_value (invocation, payload);
      }
      break;

    case TEST_TOOL_FAIL:
      self->n_completed++;
      stw_invocation_return_error_literal (invocation, "SELECTOR_NO_MATCH",
                                           "Nothing matched the test selector");
      break;

    case TEST_TOOL_SLOW:
      {
        TestCall *call = test_call_new (self, invocation);
        gint64 ms = json_object_get_int_member_with_default (arguments, "ms", 200);

        test_call_start_timer (call, (guint) CLAMP (ms, 0, 60000), on_slow_timer);
      }
      break;

    case TEST_TOOL_PROGRESS:
      {
        TestCall *call = test_call_new (self, invocation);
        gint64 interval = json_object_get_int_member_with_default (arguments, "interval_ms", 30);

        call->steps = (guint) CLAMP (json_object_get_int_member_with_default (arguments, "steps", 20), 1, 100);
        stw_invocation_report_progress (invocation, 0, call->steps, "starting");
        test_call_start_timer (call, (guint) CLAMP (interval, 1, 1000), on_progress_timer);
      }
      break;

    case TEST_TOOL_NEVER:
      test_call_new (self, invocation);
      break;

    case TEST_TOOL_EVAL:
      {
        g_autoptr(JsonObject) payload = json_object_new ();

        json_object_set_null_member (payload, "value");
        self->n_completed++;
        stw_invocation_return_value (invocation, payload);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
stw_test_tool_class_init (StwTestToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = stw_test_tool_invoke;
}

static void
stw_test_tool_init (StwTestTool *self)
{
}

typedef struct
{
  TestToolKind      kind;
  const char       *name;
  const char       *description;
  const char       *schema;
  StwOperationType  operation_type;
  StwEvalTarget     eval_target;
  gboolean          destructive;
  gboolean          idempotent;
  const char       *error_code;
} TestToolSpec;

static const TestToolSpec test_tool_specs[STW_TEST_N_TOOLS] = {
  { TEST_TOOL_ECHO, "test_echo", "Echoes its arguments.",
    "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"},"
    "\"count\":{\"type\":\"integer\",\"minimum\":0},\"data\":true},"
    "\"required\":[\"message\"],\"additionalProperties\":false}",
    STW_OPERATION_QUERY, STW_EVAL_TARGET_NONE, FALSE, TRUE, NULL },
  { TEST_TOOL_FAIL, "test_fail", "Always fails with SELECTOR_NO_MATCH.",
    NULL, STW_OPERATION_COMMAND, STW_EVAL_TARGET_NONE, FALSE, FALSE, "SELECTOR_NO_MATCH" },
  { TEST_TOOL_SLOW, "test_slow", "Answers after ms milliseconds.",
    "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0,"
    "\"maximum\":60000,\"default\":200}},\"additionalProperties\":false}",
    STW_OPERATION_COMMAND, STW_EVAL_TARGET_NONE, TRUE, FALSE, NULL },
  { TEST_TOOL_PROGRESS, "test_progress", "Reports progress, then answers.",
    "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\",\"minimum\":1,"
    "\"maximum\":100,\"default\":20},\"interval_ms\":{\"type\":\"integer\",\"minimum\":1,"
    "\"maximum\":1000,\"default\":30}},\"additionalProperties\":false}",
    STW_OPERATION_COMMAND, STW_EVAL_TARGET_NONE, FALSE, FALSE, NULL },
  { TEST_TOOL_NEVER, "test_never", "Never answers.",
    NULL, STW_OPERATION_COMMAND, STW_EVAL_TARGET_NONE, FALSE, FALSE, NULL },
  { TEST_TOOL_EVAL, "test_eval", "Evaluates nothing, but is an eval tool.",
    "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\"}},"
    "\"required\":[\"code\"],\"additionalProperties\":false}",
    STW_OPERATION_EVAL, STW_EVAL_TARGET_MAIN, FALSE, FALSE, NULL },
};

static StwTool *
test_tool_new (const TestToolSpec *spec,
               const char         *name)
{
  g_autoptr(StwSchema) schema = NULL;
  const char *codes[] = { spec->error_code, NULL };
  StwTestTool *tool;

  if (spec->schema != NULL)
    {
      g_autoptr(GError) error = NULL;

      schema = stw_schema_new_from_string (spec->schema, &error);
      g_assert_no_error (error);
    }

  tool = g_object_new (STW_TYPE_TEST_TOOL,
                       "name", name,
                       "title", spec->name,
                       "description", spec->description,
                       "input-schema", schema,
                       "operation-type", spec->operation_type,
                       "eval-target", spec->eval_target,
                       "code-argument", spec->operation_type == STW_OPERATION_EVAL ? "code" : NULL,
                       "destructive-hint", spec->destructive,
                       "idempotent-hint", spec->idempotent,
                       "error-codes", spec->error_code ? codes : NULL,
                       NULL);
  tool->kind = spec->kind;
  return STW_TOOL (tool);
}

/**
 * stw_test_tool_new_echo:
 * @name: the tool's name
 *
 * Returns: (transfer full): a new tool that behaves like test_echo
 */
StwTool *
stw_test_tool_new_echo (const char *name)
{
  return test_tool_new (&test_tool_specs[0], name);
}

guint
stw_test_tool_get_n_calls (StwTool *tool)
{
  g_assert_true (STW_IS_TEST_TOOL (tool));
  return STW_TEST_TOOL (tool)->n_calls;
}

guint
stw_test_tool_get_n_cancelled (StwTool *tool)
{
  g_assert_true (STW_IS_TEST_TOOL (tool));
  return STW_TEST_TOOL (tool)->n_cancelled;
}

guint
stw_test_tool_get_n_completed (StwTool *tool)
{
  g_assert_true (STW_IS_TEST_TOOL (tool));
  return STW_TEST_TOOL (tool)->n_completed;
}

/* The client {{{1 */

struct _StwTestClient
{
  GMainContext  *context;
  StwDispatcher *dispatcher;
  StwMcpServer  *server;
  GCancellable  *run_cancellable;

  GOutputStream *to_server;
  GInputStream  *from_server;
  GCancellable  *read_cancellable;
  GByteArray    *inbuf;
  gsize          scanned;      /* bytes of inbuf known to hold no newline */
  GQueue         messages;     /* JsonObject: frames not yet consumed, in order */
  guint          n_frames;
  gboolean       reading;
  gboolean       writing;
  GError        *write_error;
  gboolean       closed;

  gboolean       finished;
  gboolean       run_result;
  GError        *run_error;

  gint64         next_id;
};

typedef gboolean (*Condition) (StwTestClient *self,
                               gconstpointer  data);

static gboolean
on_wait_timeout (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the client's context until @condition holds or @timeout_ms
 * passes; returns whether it holds. */
static gboolean
iterate_until (StwTestClient *self,
               Condition      condition,
               gconstpointer  data,
               guint          timeout_ms)
{
  gboolean timed_out = FALSE;
  GSource *timeout = g_timeout_source_new (timeout_ms);

  g_source_set_callback (timeout, on_wait_timeout, &timed_out, NULL);
  g_source_attach (timeout, self->context);
  while ((condition == NULL || !condition (self, data)) && !timed_out)
    g_main_context_iteration (self->context, TRUE);
  g_source_destroy (timeout);
  g_source_unref (timeout);

  return condition != NULL && condition (self, data);
}

static void
drain_context (GMainContext *context)
{
  /* Chains of idles (cancellation → abandon → the tool's cancel source)
   * need several rounds. */
  for (guint round = 0; round < 10; round++)
    while (g_main_context_iteration (context, FALSE))
      ;
}

static void
handle_frame (StwTestClient *self,
              const char    *line,
              gsize          length)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  g_assert_cmpuint (length, >, 0);
  g_assert_null (memchr (line, '\0', length));
  g_assert_null (memchr (line, '\r', length));
  g_assert_true (g_utf8_validate_len (line, length, NULL));

  if (!json_parser_load_from_data (parser, line, (gssize) length, &error))
    {
      g_autofree char *head = g_strndup (line, MIN (length, 200));
      g_autofree char *message = g_strdup_printf ("server wrote a line that is not JSON (%s): %s",
                                                  error->message, head);
      fail_with (__FILE__, __LINE__, G_STRFUNC, message);
      return;
    }

  root = json_parser_get_root (parser);
  g_assert_nonnull (root);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  stw_test_check_frame (json_node_get_object (root));

  self->n_frames++;
  g_queue_push_tail (&self->messages, json_object_ref (json_node_get_object (root)));
}

static void read_next (StwTestClient *self);

static void
on_client_read (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  StwTestClient *self = user_data;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  gsize consumed = 0;
  gsize size;
  const guint8 *data;

  self->reading = FALSE;
  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_assert_no_error (error);

  data = g_bytes_get_data (bytes, &size);
  if (size == 0)
    {
      /* Every frame ends with a newline. */
      g_assert_cmpuint (self->inbuf->len, ==, 0);
      return;
    }

  g_byte_array_append (self->inbuf, data, (guint) size);
  for (;;)
    {
      const guint8 *start = self->inbuf->data + consumed;
      const guint8 *newline = memchr (self->inbuf->data + self->scanned, '\n',
                                      self->inbuf->len - self->scanned);

      if (newline == NULL)
        break;
      handle_frame (self, (const char *) start, (gsize) (newline - start));
      consumed = (gsize) (newline - self->inbuf->data) + 1;
      self->scanned = consumed;
    }
  if (consumed > 0)
    g_byte_array_remove_range (self->inbuf, 0, (guint) consumed);
  self->scanned = self->inbuf->len;

  read_next (self);
}

static void
read_next (StwTestClient *self)
{
  self->reading = TRUE;
  g_input_stream_read_bytes_async (self->from_server, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   self->read_cancellable, on_client_read, self);
}

static void
on_run_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  StwTestClient *self = user_data;

  g_assert_false (self->finished);
  self->run_result = stw_mcp_server_run_finish (STW_MCP_SERVER (object), result, &self->run_error);
  self->finished = TRUE;
}

static void
open_pipe (GInputStream  **input,
           GOutputStream **output)
{
  g_autoptr(GError) error = NULL;
  int fds[2];

  g_unix_open_pipe (fds, FD_CLOEXEC, &error);
  g_assert_no_error (error);
  /* Both ends live on one thread: a write must never block. */
  g_unix_set_fd_nonblocking (fds[0], TRUE, &error);
  g_assert_no_error (error);
  g_unix_set_fd_nonblocking (fds[1], TRUE, &error);
  g_assert_no_error (error);

  *input = g_unix_input_stream_new (fds[0], TRUE);
  *output = g_unix_output_stream_new (fds[1], TRUE);
}

/**
 * stw_test_client_new:
 *
 * A dispatcher with the core tools and the test tools, a server for it
 * serving two pipe pairs, and the client ends of those pipes. The client's
 * main context is pushed as the thread default until
 * stw_test_client_free().
 *
 * Returns: (transfer full): the client
 */
StwTestClient *
stw_test_client_new (void)
{
  StwTestClient *self = g_new0 (StwTestClient, 1);
  g_autoptr(GInputStream) server_input = NULL;
  g_autoptr(GOutputStream) server_output = NULL;

  self->context = g_main_context_new ();
  g_main_context_push_thread_default (self->context);

  self->dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (self->dispatcher);
  for (guint i = 0; i < G_N_ELEMENTS (test_tool_specs); i++)
    {
      g_autoptr(StwTool) tool = test_tool_new (&test_tool_specs[i], test_tool_specs[i].name);
      g_autoptr(GError) error = NULL;

      stw_dispatcher_add_tool (self->dispatcher, tool, &error);
      g_assert_no_error (error);
    }

  self->server = stw_mcp_server_new (self->dispatcher);
  self->run_cancellable = g_cancellable_new ();
  self->read_cancellable = g_cancellable_new ();
  self->inbuf = g_byte_array_new ();
  self->next_id = 1;
  g_queue_init (&self->messages);

  open_pipe (&server_input, &self->to_server);
  open_pipe (&self->from_server, &server_output);

  stw_mcp_server_run_async (self->server, server_input, server_output, self->run_cancellable,
                            on_run_done, self);
  read_next (self);
  return self;
}

static gboolean
cond_finished (StwTestClient *self,
               gconstpointer  data)
{
  return self->finished;
}

static gboolean
cond_not_reading (StwTestClient *self,
                  gconstpointer  data)
{
  return !self->reading;
}

static gboolean
cond_not_writing (StwTestClient *self,
                  gconstpointer  data)
{
  return !self->writing;
}

void
stw_test_client_free (StwTestClient *self)
{
  if (self == NULL)
    return;

  if (!self->finished)
    {
      if (!self->closed)
        stw_test_client_close (self);
      stw_test_client_cancel_run (self);
      if (!iterate_until (self, cond_finished, NULL, stw_test_timeout_ms (STW_TEST_TIMEOUT_MS)))
        fail_with (__FILE__, __LINE__, G_STRFUNC, "the server did not stop");
    }
  drain_context (self->context);

  g_cancellable_cancel (self->read_cancellable);
  if (!iterate_until (self, cond_not_reading, NULL, stw_test_timeout_ms (STW_TEST_TIMEOUT_MS)))
    fail_with (__FILE__, __LINE__, G_STRFUNC, "the client read did not stop");

  g_clear_object (&self->server);
  drain_context (self->context);
  g_clear_object (&self->dispatcher);
  drain_context (self->context);

  g_clear_object (&self->to_server);
  g_clear_object (&self->from_server);
  g_clear_object (&self->run_cancellable);
  g_clear_object (&self->read_cancellable);
  g_clear_pointer (&self->inbuf, g_byte_array_unref);
  g_queue_clear_full (&self->messages, (GDestroyNotify) json_object_unref);
  g_clear_error (&self->run_error);
  g_clear_error (&self->write_error);

  g_main_context_pop_thread_default (self->context);
  g_main_context_unref (self->context);
  g_free (self);
}

StwDispatcher *
stw_test_client_get_dispatcher (StwTestClient *self)
{
  return self->dispatcher;
}

StwMcpServer *
stw_test_client_get_server (StwTestClient *self)
{
  return self->server;
}

StwTool *
stw_test_client_get_tool (StwTestClient *self,
                          const char    *name)
{
  StwTool *tool = stw_dispatcher_lookup_tool (self->dispatcher, name);

  g_assert_nonnull (tool);
  return tool;
}

GMainContext *
stw_test_client_get_context (StwTestClient *self)
{
  return self->context;
}

static void
on_client_written (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  StwTestClient *self = user_data;

  g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &self->write_error);
  self->writing = FALSE;
}

/* Writes @data to the server's input and returns once it is all in the
 * pipe (the server reads meanwhile: same context). */
void
stw_test_client_send_raw (StwTestClient *self,
                          const void    *data,
                          gsize          length)
{
  g_assert_false (self->closed);
  g_assert_false (self->writing);

  if (length == 0)
    return;
  self->writing = TRUE;
  g_output_stream_write_all_async (self->to_server, data, length, G_PRIORITY_DEFAULT, NULL,
                                   on_client_written, self);
  if (!iterate_until (self, cond_not_writing, NULL, stw_test_timeout_ms (STW_TEST_TIMEOUT_MS)))
    fail_with (__FILE__, __LINE__, G_STRFUNC, "timed out writing to the server");
  g_assert_no_error (self->write_error);
}

void
stw_test_client_send_line (StwTestClient *self,
                           const char    *line)
{
  g_autofree char *framed = g_strconcat (line, "\n", NULL);

  stw_test_client_send_raw (self, framed, strlen (framed));
}

void
stw_test_client_send_printf (StwTestClient *self,
                             const char    *format,
                             ...)
{
  g_autofree char *line = NULL;
  va_list args;

  va_start (args, format);
  line = g_strdup_vprintf (format, args);
  va_end (args);
  stw_test_client_send_line (self, line);
}

/**
 * stw_test_client_send_request:
 * @self: the client
 * @method: the method
 * @params: (nullable): the params as JSON text, sent as they are
 *
 * Returns: (transfer full): the integer id used, as JSON text
 */
char *
stw_test_client_send_request (StwTestClient *self,
                              const char    *method,
                              const char    *params)
{
  g_autoptr(JsonNode) method_node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *method_json = NULL;
  gint64 id = self->next_id++;

  json_node_set_string (method_node, method);
  method_json = stw_json_to_string (method_node, NULL);
  if (params != NULL)
    stw_test_client_send_printf (self, "{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT
                                 ",\"method\":%s,\"params\":%s}", id, method_json, params);
  else
    stw_test_client_send_printf (self, "{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT
                                 ",\"method\":%s}", id, method_json);
  return g_strdup_printf ("%" G_GINT64_FORMAT, id);
}

/**
 * stw_test_client_call:
 * @self: the client
 * @method: the method
 * @params: (nullable): the params as JSON text
 *
 * Returns: (transfer full): the response frame
 */
JsonObject *
stw_test_client_call (StwTestClient *self,
                      const char    *method,
                      const char    *params)
{
  g_autofree char *id = stw_test_client_send_request (self, method, params);

  return stw_test_client_wait_response (self, id);
}

/**
 * stw_test_client_call_result:
 * @self: the client
 * @method: the method
 * @params: (nullable): the params as JSON text
 *
 * Calls @method and asserts it succeeds.
 *
 * Returns: (transfer full): the result
 */
JsonObject *
stw_test_client_call_result (StwTestClient *self,
                             const char    *method,
                             const char    *params)
{
  g_autofree char *id = stw_test_client_send_request (self, method, params);
  g_autoptr(JsonObject) response = stw_test_client_wait_response (self, id);

  return json_object_ref (stw_test_assert_result (response, id));
}

/**
 * stw_test_client_call_tool:
 * @self: the client
 * @name: the tool
 * @arguments: (nullable): the arguments as JSON text
 *
 * Returns: (transfer full): the `tools/call` result
 */
JsonObject *
stw_test_client_call_tool (StwTestClient *self,
                           const char    *name,
                           const char    *arguments)
{
  g_autoptr(JsonNode) name_node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *name_json = NULL;
  g_autofree char *params = NULL;

  json_node_set_string (name_node, name);
  name_json = stw_json_to_string (name_node, NULL);
  params = g_strdup_printf ("{\"name\":%s,\"arguments\":%s}", name_json,
                            arguments ? arguments : "{}");
  return stw_test_client_call_result (self, "tools/call", params);
}

/* initialize, then notifications/initialized, and make sure the server has
 * read the latter. */
void
stw_test_client_initialize (StwTestClient *self)
{
  g_autoptr(JsonObject) result = NULL;

  result = stw_test_client_call_result (self, "initialize",
                                        "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                                        "\"clientInfo\":{\"name\":\"stw-test\",\"version\":\"1.0\"}}");
  g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, "2025-11-25");
  stw_test_client_send_line (self, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  stw_test_client_flush (self);
}

/* Closes the client's end of the server's input: end of input. */
void
stw_test_client_close (StwTestClient *self)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (self->closed);
  g_output_stream_close (self->to_server, NULL, &error);
  g_assert_no_error (error);
  self->closed = TRUE;
}

/* Stops reading and closes the client's end of the server's output: the
 * server's next write fails. */
void
stw_test_client_hang_up (StwTestClient *self)
{
  g_autoptr(GError) error = NULL;

  g_cancellable_cancel (self->read_cancellable);
  if (!iterate_until (self, cond_not_reading, NULL, stw_test_timeout_ms (STW_TEST_TIMEOUT_MS)))
    fail_with (__FILE__, __LINE__, G_STRFUNC, "the client read did not stop");
  g_input_stream_close (self->from_server, NULL, &error);
  g_assert_no_error (error);
}

static GList *
find_response (StwTestClient *self,
               JsonNode      *id)
{
  for (GList *l = self->messages.head; l != NULL; l = l->next)
    if (json_object_has_member (l->data, "id") &&
        id_matches (json_object_get_member (l->data, "id"), id))
      return l;
  return NULL;
}

static GList *
find_notification (StwTestClient *self,
                   const char    *method)
{
  for (GList *l = self->messages.head; l != NULL; l = l->next)
    if (json_object_has_member (l->data, "method") &&
        (method == NULL || g_strcmp0 (json_object_get_string_member (l->data, "method"), method) == 0))
      return l;
  return NULL;
}

static gboolean
cond_has_response (StwTestClient *self,
                   gconstpointer  data)
{
  return find_response (self, (JsonNode *) data) != NULL;
}

static gboolean
cond_has_notification (StwTestClient *self,
                       gconstpointer  data)
{
  return find_notification (self, data) != NULL;
}

/**
 * stw_test_client_wait_response:
 * @self: the client
 * @id: the request id as JSON text (`1`, `"a"`, `null`)
 *
 * Waits for the first response with exactly that id (type included) and
 * takes it from the queue.
 *
 * Returns: (transfer full): the response frame
 */
JsonObject *
stw_test_client_wait_response (StwTestClient *self,
                               const char    *id)
{
  g_autoptr(JsonNode) id_node = stw_test_parse (id);
  GList *link;
  JsonObject *response;

  if (!iterate_until (self, cond_has_response, id_node, stw_test_timeout_ms (STW_TEST_TIMEOUT_MS)))
    {
      g_autofree char *message = g_strdup_printf ("timed out waiting for the response to id %s", id);
      fail_with (__FILE__, __LINE__, G_STRFUNC, message);
      return NULL;
    }

  link = find_response (self, id_node);
  response = link->data;
  g_queue_delete_link (&self->messages, link);
  return response;
}

/**
 * stw_test_client_wait_notification:
 * @self: the client
 * @method: (nullable): the method, or %NULL for any notification
 *
 * Returns: (transfer full): the first notification with @method, taken
 *   from the queue
 */
JsonObject *
stw_test_client_wait_notification (StwTestClient *self,
                                   const char    *method)
{
  GList *link;
  JsonObject *notification;

  if (!iterate_until (self, cond_has_notification, method, stw_test_timeout_ms (STW_TEST_TIMEOUT_MS)))
    {
      g_autofree char *message = g_strdup_printf ("timed out waiting for %s", method ? method : "a notification");
      fail_with (__FILE__, __LINE__, G_STRFUNC, message);
      return NULL;
    }

  link = find_notification (self, method);
  notification = link->data;
  g_queue_delete_link (&self->messages, link);
  return notification;
}

gboolean
stw_test_client_has_response (StwTestClient *self,
                              const char    *id)
{
  g_autoptr(JsonNode) id_node = stw_test_parse (id);

  return find_response (self, id_node) != NULL;
}

/**
 * stw_test_client_take_notifications:
 * @self: the client
 * @method: (nullable): the method, or %NULL for all
 *
 * Returns: (transfer container) (element-type JsonObject): the queued
 *   notifications with @method, in order, taken from the queue
 */
GPtrArray *
stw_test_client_take_notifications (StwTestClient *self,
                                    const char    *method)
{
  GPtrArray *taken = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  GList *l = self->messages.head;

  while (l != NULL)
    {
      GList *next = l->next;

      if (json_object_has_member (l->data, "method") &&
          (method == NULL || g_strcmp0 (json_object_get_string_member (l->data, "method"), method) == 0))
        {
          g_ptr_array_add (taken, l->data);
          g_queue_delete_link (&self->messages, l);
        }
      l = next;
    }
  return taken;
}

/* Runs the client's context for @ms milliseconds. */
void
stw_test_client_iterate (StwTestClient *self,
                         guint          ms)
{
  iterate_until (self, NULL, NULL, ms);
}

/* A ping round trip: whatever the server wrote before answering it has
 * arrived when this returns. */
void
stw_test_client_flush (StwTestClient *self)
{
  g_autoptr(JsonObject) response = NULL;
  g_autofree char *id = g_strdup_printf ("\"flush-%" G_GINT64_FORMAT "\"", self->next_id++);
  JsonObject *result;

  stw_test_client_send_printf (self, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", id);
  response = stw_test_client_wait_response (self, id);
  result = stw_test_assert_result (response, id);
  g_assert_cmpuint (json_object_get_size (result), ==, 0);
}

/* Drops every frame received and not yet taken. */
void
stw_test_client_clear (StwTestClient *self)
{
  g_queue_clear_full (&self->messages, (GDestroyNotify) json_object_unref);
  g_queue_init (&self->messages);
}

guint
stw_test_client_get_n_frames (StwTestClient *self)
{
  return self->n_frames;
}

guint
stw_test_client_get_n_queued (StwTestClient *self)
{
  return g_queue_get_length (&self->messages);
}

gboolean
stw_test_client_is_finished (StwTestClient *self)
{
  return self->finished;
}

/**
 * stw_test_client_wait_finished:
 * @self: the client
 * @timeout_ms: how long to wait
 * @error: the run's error
 *
 * Waits for stw_mcp_server_run_async() to complete; fails the test if it
 * does not within @timeout_ms.
 *
 * Returns: what stw_mcp_server_run_finish() returned
 */
gboolean
stw_test_client_wait_finished (StwTestClient  *self,
                               guint           timeout_ms,
                               GError        **error)
{
  if (!iterate_until (self, cond_finished, NULL, timeout_ms))
    {
      fail_with (__FILE__, __LINE__, G_STRFUNC, "timed out waiting for the server to stop");
      return FALSE;
    }
  if (self->run_error != NULL)
    g_propagate_error (error, g_error_copy (self->run_error));
  return self->run_result;
}

void
stw_test_client_cancel_run (StwTestClient *self)
{
  g_cancellable_cancel (self->run_cancellable);
}

/* Fake CDP peers {{{1 */

struct _StwTestCdpPeer
{
  /* One message (a text or binary frame, or a pipe record). */
  void (*send)  (StwTestCdpPeer *peer,
                 const char     *data,
                 gsize           length,
                 gboolean        binary);
  /* Raw bytes with no framing (pipe only: split records). */
  void (*write_raw) (StwTestCdpPeer *peer,
                     const char     *data,
                     gsize           length);
  /* Gone without a goodbye: no close frame, or end of file. */
  void (*drop)  (StwTestCdpPeer *peer);
  /* A WebSocket close frame with @code. */
  void (*close) (StwTestCdpPeer *peer,
                 gushort         code);

  StwTestCdpHandler handler;
  gpointer          handler_data;
  GPtrArray        *methods;       /* every request's method, in arrival order */
  GPtrArray        *raw_requests;  /* every request as received */
  GList            *sources;       /* delayed replies, destroyed at teardown */
};

static void
peer_init (StwTestCdpPeer *peer)
{
  peer->handler = stw_test_cdp_peer_script;
  peer->methods = g_ptr_array_new_with_free_func (g_free);
  peer->raw_requests = g_ptr_array_new_with_free_func (g_free);
}

static void
peer_clear (StwTestCdpPeer *peer)
{
  for (GList *l = peer->sources; l != NULL; l = l->next)
    {
      g_source_destroy (l->data);
      g_source_unref (l->data);
    }
  g_clear_pointer (&peer->sources, g_list_free);
  g_clear_pointer (&peer->methods, g_ptr_array_unref);
  g_clear_pointer (&peer->raw_requests, g_ptr_array_unref);
}

void
stw_test_cdp_peer_set_handler (StwTestCdpPeer    *peer,
                               StwTestCdpHandler  handler,
                               gpointer           user_data)
{
  peer->handler = handler;
  peer->handler_data = user_data;
}

void
stw_test_cdp_peer_send_message (StwTestCdpPeer *peer,
                                const char     *data,
                                gsize           length,
                                gboolean        binary)
{
  peer->send (peer, data, length, binary);
}

void
stw_test_cdp_peer_send (StwTestCdpPeer *peer,
                        const char     *text)
{
  peer->send (peer, text, strlen (text), FALSE);
}

void
stw_test_cdp_peer_send_object (StwTestCdpPeer *peer,
                               JsonObject     *object)
{
  g_autofree char *text = stw_json_object_to_string (object, NULL);

  stw_test_cdp_peer_send (peer, text);
}

void
stw_test_cdp_peer_send_printf (StwTestCdpPeer *peer,
                               const char     *format,
                               ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  stw_test_cdp_peer_send (peer, text);
}

void
stw_test_cdp_peer_write_raw (StwTestCdpPeer *peer,
                             const char     *data,
                             gsize           length)
{
  g_assert_nonnull (peer->write_raw);
  peer->write_raw (peer, data, length);
}

void
stw_test_cdp_peer_drop (StwTestCdpPeer *peer)
{
  peer->drop (peer);
}

void
stw_test_cdp_peer_close (StwTestCdpPeer *peer,
                         gushort         code)
{
  peer->close (peer, code);
}

GPtrArray *
stw_test_cdp_peer_get_methods (StwTestCdpPeer *peer)
{
  return peer->methods;
}

GPtrArray *
stw_test_cdp_peer_get_requests (StwTestCdpPeer *peer)
{
  return peer->raw_requests;
}

guint
stw_test_cdp_peer_count (StwTestCdpPeer *peer,
                         const char     *method)
{
  guint n = 0;

  for (guint i = 0; i < peer->methods->len; i++)
    if (g_str_equal (g_ptr_array_index (peer->methods, i), method))
      n++;
  return n;
}

static JsonObject *
make_echo (gint64      id,
           const char *method,
           JsonObject *params,
           const char *session_id)
{
  JsonObject *reply = json_object_new ();
  JsonObject *result = json_object_new ();

  json_object_set_string_member (result, "method", method);
  if (params != NULL)
    json_object_set_object_member (result, "params", json_object_ref (params));
  if (session_id != NULL)
    json_object_set_string_member (result, "sessionId", session_id);
  json_object_set_int_member (reply, "id", id);
  json_object_set_object_member (reply, "result", result);
  return reply;
}

typedef struct
{
  StwTestCdpPeer *peer;
  char           *data;
  gsize           length;
  gboolean        raw;      /* written as is, not as one message */
} DelayedReply;

static void
delayed_reply_free (gpointer data)
{
  DelayedReply *delayed = data;

  g_free (delayed->data);
  g_free (delayed);
}

static gboolean
delayed_reply_cb (gpointer data)
{
  DelayedReply *delayed = data;

  if (delayed->raw)
    delayed->peer->write_raw (delayed->peer, delayed->data, delayed->length);
  else
    delayed->peer->send (delayed->peer, delayed->data, delayed->length, FALSE);
  return G_SOURCE_REMOVE;
}

void
stw_test_cdp_peer_send_later (StwTestCdpPeer *peer,
                              guint           ms,
                              const char     *data,
                              gsize           length,
                              gboolean        raw)
{
  DelayedReply *delayed = g_new0 (DelayedReply, 1);
  GSource *source = g_timeout_source_new (ms);

  delayed->peer = peer;
  delayed->data = g_memdup2 (data, length);
  delayed->length = length;
  delayed->raw = raw;
  g_source_set_callback (source, delayed_reply_cb, delayed, delayed_reply_free);
  g_source_attach (source, NULL);
  peer->sources = g_list_prepend (peer->sources, source);
}

static void
send_garbage (StwTestCdpPeer *peer,
              gint64          id)
{
  /* Replies to nobody: one that names a waiting call fails that call
   * (/transport/pipe/deep-reply). */
  static const char invalid_utf8[] = { '{', '"', 'i', 'd', '"', ':', '9', ',', '"', 'x', '"', ':', '"',
                                       (char) 0xff, (char) 0xfe, '"', '}' };
  g_autoptr(GString) nested = g_string_new (NULL);

  stw_test_cdp_peer_send (peer, "not json at all");
  peer->send (peer, invalid_utf8, sizeof invalid_utf8, TRUE);
  stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"a\":", id + 1000000);
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (nested, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (nested, ']');
  stw_test_cdp_peer_send (peer, nested->str);
  stw_test_cdp_peer_send (peer, "42");
  stw_test_cdp_peer_send (peer, "[{\"id\":1}]");
  stw_test_cdp_peer_send (peer, "{\"neither\":\"id nor method\"}");
  stw_test_cdp_peer_send (peer, "{\"id\":\"not a number\",\"result\":{}}");
  stw_test_cdp_peer_send (peer, "{\"id\":987654321,\"result\":{}}");
  stw_test_cdp_peer_send (peer, "{\"method\":42}");
  /* (An empty message fails the calls waiting: /transport/pipe/deep-reply.) */
  peer->send (peer, "\0\0\0", 3, TRUE);
}

/* Every request is recorded, then handed to the handler. */
static void
peer_handle (StwTestCdpPeer *peer,
             const char     *data,
             gsize           length)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *request;

  g_ptr_array_add (peer->raw_requests, g_strndup (data, length));
  node = stw_json_parse (data, (gssize) length, NULL);
  g_assert_nonnull (node);
  request = json_node_get_object (node);
  g_ptr_array_add (peer->methods, g_strdup (json_object_get_string_member (request, "method")));
  peer->handler (peer, request, peer->handler_data);
}

/* The script: what the peer does is what the method says. */
void
stw_test_cdp_peer_script (StwTestCdpPeer *peer,
                          JsonObject     *request,
                          gpointer        user_data)
{
  g_autoptr(JsonObject) reply = NULL;
  JsonObject *params = NULL;
  const char *method;
  const char *session_id = NULL;
  gint64 id;

  id = json_object_get_int_member (request, "id");
  method = json_object_get_string_member (request, "method");
  if (json_object_has_member (request, "params"))
    params = json_object_get_object_member (request, "params");
  if (json_object_has_member (request, "sessionId"))
    session_id = json_object_get_string_member (request, "sessionId");

  if (g_str_equal (method, "Test.noReply"))
    return;

  if (g_str_equal (method, "Test.delay"))
    {
      g_autofree char *text = NULL;

      reply = make_echo (id, method, params, session_id);
      text = stw_json_object_to_string (reply, NULL);
      stw_test_cdp_peer_send_later (peer, (guint) json_object_get_int_member (params, "ms"),
                                    text, strlen (text), FALSE);
      return;
    }

  if (g_str_equal (method, "Test.error"))
    {
      if (params != NULL && json_object_has_member (params, "data"))
        stw_test_cdp_peer_send_printf (peer,
                                       "{\"id\":%" G_GINT64_FORMAT ",\"error\":{\"code\":-32602,"
                                       "\"message\":\"Invalid parameters\",\"data\":\"%s\"}}",
                                       id, json_object_get_string_member (params, "data"));
      else
        stw_test_cdp_peer_send_printf (peer,
                                       "{\"id\":%" G_GINT64_FORMAT ",\"error\":{\"code\":-32601,"
                                       "\"message\":\"'Test.error' wasn't found\"}}",
                                       id);
      return;
    }

  if (g_str_equal (method, "Test.drop"))
    {
      peer->drop (peer);
      return;
    }

  if (g_str_equal (method, "Test.close"))
    {
      peer->close (peer, (gushort) json_object_get_int_member (params, "code"));
      return;
    }

  if (g_str_equal (method, "Test.idless"))
    {
      /* What Chrome answers to `nan.0` in a message (field notes §6.21). */
      stw_test_cdp_peer_send (peer,
                              "{\"error\":{\"code\":-32700,"
                              "\"message\":\"JSON: comma or map end expected at position 42\"}}");
      return;
    }

  if (g_str_equal (method, "Test.garbage"))
    send_garbage (peer, id);

  if (g_str_equal (method, "Test.big"))
    {
      gsize size = (gsize) json_object_get_int_member (params, "size");
      g_autoptr(GString) text = g_string_sized_new (size + 64);

      g_string_append_printf (text, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"data\":\"", id);
      for (gsize i = 0; i < size; i++)
        g_string_append_c (text, (char) ('a' + i % 26));
      g_string_append (text, "\u00e9\u2713\"}}");
      peer->send (peer, text->str, text->len, FALSE);
      return;
    }

  if (g_str_equal (method, "Test.deep"))
    {
      /* A reply nested @depth levels, as the inspector writes a deep
       * value read by value; @id_last puts the id after the result. */
      guint depth = (guint) json_object_get_int_member (params, "depth");
      gboolean id_last = json_object_get_boolean_member_with_default (params, "id_last", FALSE);
      g_autoptr(GString) text = g_string_new ("{");

      if (!id_last)
        g_string_append_printf (text, "\"id\":%" G_GINT64_FORMAT ",", id);
      g_string_append (text, "\"result\":{\"value\":");
      for (guint i = 0; i < depth; i++)
        g_string_append_c (text, '[');
      for (guint i = 0; i < depth; i++)
        g_string_append_c (text, ']');
      g_string_append (text, "}");
      if (id_last)
        g_string_append_printf (text, ",\"id\":%" G_GINT64_FORMAT, id);
      g_string_append (text, "}");
      peer->send (peer, text->str, text->len, FALSE);
      return;
    }

  if (g_str_equal (method, "Test.empty"))
    {
      /* What Node's inspector sends for a reply it cannot encode. */
      peer->send (peer, "", 0, FALSE);
      return;
    }

  if (g_str_equal (method, "Test.surrogate"))
    {
      stw_test_cdp_peer_send_printf (peer,
                                     "{\"id\":%" G_GINT64_FORMAT ",\"result\":{"
                                     "\"middle\":\"a\\ud800b\",\"end\":\"end\\udc00\","
                                     "\"pair\":\"x\\ud83d\\ude00y\"}}",
                                     id);
      return;
    }

  if (g_str_equal (method, "Test.events"))
    {
      stw_test_cdp_peer_send (peer,
                              "{\"method\":\"Target.attachedToTarget\","
                              "\"params\":{\"sessionId\":\"S1\",\"waitingForDebugger\":false}}");
      stw_test_cdp_peer_send (peer,
                              "{\"method\":\"Page.loadEventFired\",\"params\":{\"timestamp\":1.5},"
                              "\"sessionId\":\"S1\"}");
      stw_test_cdp_peer_send (peer, "{\"method\":\"Runtime.consoleAPICalled\",\"sessionId\":\"S2\"}");
      stw_test_cdp_peer_send (peer, "{\"method\":\"Nobody.listensToThis\",\"params\":{}}");
    }

  if (g_str_equal (method, "Test.split") && peer->write_raw != NULL)
    {
      /* One reply in three writes with pauses in between, the last write
       * also carrying a whole event after the reply's terminator. */
      g_autofree char *text = NULL;
      g_autoptr(GString) tail = NULL;
      gsize third;

      reply = make_echo (id, method, params, session_id);
      text = stw_json_object_to_string (reply, NULL);
      third = strlen (text) / 3;
      peer->write_raw (peer, text, third);
      stw_test_cdp_peer_send_later (peer, 30, text + third, third, TRUE);
      tail = g_string_new (text + 2 * third);
      g_string_append_c (tail, '\0');
      g_string_append (tail, "{\"method\":\"Test.afterSplit\",\"params\":{}}");
      g_string_append_c (tail, '\0');
      stw_test_cdp_peer_send_later (peer, 60, tail->str, tail->len, TRUE);
      return;
    }

  if (g_str_equal (method, "Test.batch") && peer->write_raw != NULL)
    {
      /* Two events and the reply in one write. */
      g_autofree char *text = NULL;
      g_autoptr(GString) batch = g_string_new (NULL);

      reply = make_echo (id, method, params, session_id);
      text = stw_json_object_to_string (reply, NULL);
      g_string_append (batch, "{\"method\":\"Test.first\",\"params\":{}}");
      g_string_append_c (batch, '\0');
      g_string_append (batch, "{\"method\":\"Test.second\",\"params\":{}}");
      g_string_append_c (batch, '\0');
      g_string_append (batch, text);
      g_string_append_c (batch, '\0');
      peer->write_raw (peer, batch->str, batch->len);
      return;
    }

  g_clear_pointer (&reply, json_object_unref);
  reply = make_echo (id, method, params, session_id);
  stw_test_cdp_peer_send_object (peer, reply);
}

/* Fake CDP server over a WebSocket {{{2 */

typedef struct
{
  StwTestCdpPeer           peer;
  StwTestCdpServer        *server;
  SoupWebsocketConnection *connection;
} WsPeer;

struct _StwTestCdpServer
{
  SoupServer *server;
  char       *url;
  guint16     port;
  GPtrArray  *peers;        /* WsPeer */
  guint       n_handshakes;
  gboolean    saw_origin;
  char       *host;         /* the Host header of the last handshake */
};

static void
ws_peer_send (StwTestCdpPeer *peer,
              const char     *data,
              gsize           length,
              gboolean        binary)
{
  WsPeer *self = (WsPeer *) peer;
  g_autoptr(GBytes) bytes = g_bytes_new (data, length);

  if (soup_websocket_connection_get_state (self->connection) != SOUP_WEBSOCKET_STATE_OPEN)
    return;
  soup_websocket_connection_send_message (self->connection,
                                          binary ? SOUP_WEBSOCKET_DATA_BINARY : SOUP_WEBSOCKET_DATA_TEXT,
                                          bytes);
}

/* Shut the TCP socket down under libsoup's feet: the client sees end of
 * file with no close frame, as when the browser crashes. */
static void
ws_peer_drop (StwTestCdpPeer *peer)
{
  WsPeer *self = (WsPeer *) peer;
  GIOStream *stream = soup_websocket_connection_get_io_stream (self->connection);
  g_autoptr(GIOStream) base = NULL;
  GSocketConnection *socket_connection = NULL;

  if (G_IS_SOCKET_CONNECTION (stream))
    socket_connection = G_SOCKET_CONNECTION (stream);
  else if (g_object_class_find_property (G_OBJECT_GET_CLASS (stream), "base-iostream") != NULL)
    {
      g_object_get (stream, "base-iostream", &base, NULL);
      if (G_IS_SOCKET_CONNECTION (base))
        socket_connection = G_SOCKET_CONNECTION (base);
    }
  g_assert_nonnull (socket_connection);
  g_socket_shutdown (g_socket_connection_get_socket (socket_connection), TRUE, TRUE, NULL);
}

static void
ws_peer_close (StwTestCdpPeer *peer,
               gushort         code)
{
  WsPeer *self = (WsPeer *) peer;

  soup_websocket_connection_close (self->connection, code, code == 1000 ? NULL : "scripted close");
}

static void
ws_peer_free (gpointer data)
{
  WsPeer *self = data;

  g_signal_handlers_disconnect_by_data (self->connection, self);
  if (soup_websocket_connection_get_state (self->connection) == SOUP_WEBSOCKET_STATE_OPEN)
    soup_websocket_connection_close (self->connection, SOUP_WEBSOCKET_CLOSE_GOING_AWAY, NULL);
  g_clear_object (&self->connection);
  peer_clear (&self->peer);
  g_free (self);
}

static void
ws_peer_message_cb (SoupWebsocketConnection *connection,
                    gint                     type,
                    GBytes                  *message,
                    gpointer                 user_data)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (message, &length);

  peer_handle (user_data, data, length);
}

static void
cdp_server_websocket_cb (SoupServer              *server,
                         SoupServerMessage       *message,
                         const char              *path,
                         SoupWebsocketConnection *connection,
                         gpointer                 user_data)
{
  StwTestCdpServer *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (message);
  WsPeer *peer = g_new0 (WsPeer, 1);

  self->n_handshakes++;
  if (soup_message_headers_get_one (headers, "Origin") != NULL)
    self->saw_origin = TRUE;
  g_free (self->host);
  self->host = g_strdup (soup_message_headers_get_one (headers, "Host"));

  peer_init (&peer->peer);
  peer->peer.send = ws_peer_send;
  peer->peer.drop = ws_peer_drop;
  peer->peer.close = ws_peer_close;
  peer->server = self;
  peer->connection = g_object_ref (connection);
  soup_websocket_connection_set_max_incoming_payload_size (connection, 0);
  g_signal_connect (connection, "message", G_CALLBACK (ws_peer_message_cb), peer);
  g_ptr_array_add (self->peers, peer);
}

StwTestCdpServer *
stw_test_cdp_server_new (void)
{
  StwTestCdpServer *self = g_new0 (StwTestCdpServer, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  self->peers = g_ptr_array_new_with_free_func (ws_peer_free);
  self->server = soup_server_new (NULL, NULL);
  soup_server_add_websocket_handler (self->server, "/devtools/browser",
                                     NULL, NULL, cdp_server_websocket_cb, self, NULL);
  soup_server_listen_local (self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (self->server);
  g_assert_nonnull (uris);
  self->port = (guint16) g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  self->url = g_strdup_printf ("ws://127.0.0.1:%u/devtools/browser/fake-%u", self->port, self->port);

  return self;
}

void
stw_test_cdp_server_kill (StwTestCdpServer *self)
{
  for (guint i = 0; i < self->peers->len; i++)
    {
      WsPeer *peer = g_ptr_array_index (self->peers, i);

      if (soup_websocket_connection_get_state (peer->connection) == SOUP_WEBSOCKET_STATE_OPEN)
        ws_peer_drop (&peer->peer);
    }
  soup_server_disconnect (self->server);
}

void
stw_test_cdp_server_free (StwTestCdpServer *self)
{
  g_ptr_array_unref (self->peers);
  soup_server_disconnect (self->server);
  g_clear_object (&self->server);
  /* Let the closing connections finish. */
  stw_test_iterate_for (20);
  g_free (self->host);
  g_free (self->url);
  g_free (self);
}

const char *
stw_test_cdp_server_get_url (StwTestCdpServer *self)
{
  return self->url;
}

guint16
stw_test_cdp_server_get_port (StwTestCdpServer *self)
{
  return self->port;
}

guint
stw_test_cdp_server_get_n_handshakes (StwTestCdpServer *self)
{
  return self->n_handshakes;
}

gboolean
stw_test_cdp_server_get_saw_origin (StwTestCdpServer *self)
{
  return self->saw_origin;
}

const char *
stw_test_cdp_server_get_host (StwTestCdpServer *self)
{
  return self->host;
}

StwTestCdpPeer *
stw_test_cdp_server_get_peer (StwTestCdpServer *self,
                              guint             index)
{
  g_assert_cmpuint (index, <, self->peers->len);
  return &((WsPeer *) g_ptr_array_index (self->peers, index))->peer;
}

SoupWebsocketConnection *
stw_test_cdp_peer_get_connection (StwTestCdpPeer *peer)
{
  g_assert_true (peer->send == ws_peer_send);
  return ((WsPeer *) peer)->connection;
}

typedef struct
{
  gboolean      done;
  StwTransport *transport;
  GError       *error;
  gint64        started_us;
  gint64        done_us;
} Connect;

static void
connect_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Connect *connect = user_data;

  g_assert_null (source);
  connect->transport = stw_cdp_websocket_connect_finish (result, &connect->error);
  connect->done = TRUE;
  connect->done_us = g_get_monotonic_time ();
}

StwTransport *
stw_test_cdp_connect (const char    *url,
                      guint          timeout_ms,
                      GCancellable  *cancellable,
                      double        *elapsed_ms,
                      GError       **error)
{
  Connect connect = { 0 };

  connect.started_us = g_get_monotonic_time ();
  stw_cdp_websocket_connect_async (url, timeout_ms, cancellable, connect_done_cb, &connect);
  /* Never synchronously, even for a refused URL. */
  g_assert_false (connect.done);
  if (!stw_test_wait_until (&connect.done, stw_test_running_on_valgrind () ? 20000 * 20 : 20000))
    g_error ("Connecting never completed");
  if (elapsed_ms != NULL)
    *elapsed_ms = (double) (connect.done_us - connect.started_us) / 1000.0;
  if (connect.error != NULL)
    g_propagate_error (error, connect.error);
  return connect.transport;
}

StwTransport *
stw_test_cdp_server_connect (StwTestCdpServer *self)
{
  g_autoptr(GError) error = NULL;
  StwTransport *transport = stw_test_cdp_connect (self->url, 0, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (STW_IS_CDP_WEBSOCKET (transport));
  g_assert_false (stw_transport_is_closed (transport));
  return transport;
}

/* Fake CDP peer over pipes {{{2 */

typedef struct
{
  StwTestCdpPeer  peer;
  GInputStream   *input;      /* what the transport writes */
  GOutputStream  *output;     /* what the transport reads */
  GCancellable   *cancellable;
  GByteArray     *record;
  GByteArray     *queued;     /* bytes waiting for the write in flight */
  gboolean        writing;
  gboolean        close_when_flushed;
  guint           n_in_flight;
  guint8          chunk[65536];
} PipePeer;

static void pipe_peer_flush (PipePeer *self);

static void
pipe_peer_write_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  PipePeer *self = user_data;
  g_autoptr(GError) error = NULL;

  self->n_in_flight--;
  self->writing = FALSE;
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    return;
  pipe_peer_flush (self);
}

static void
pipe_peer_flush (PipePeer *self)
{
  GBytes *bytes;

  if (self->writing || self->output == NULL)
    return;
  if (self->queued->len == 0)
    {
      if (self->close_when_flushed)
        g_output_stream_close (self->output, NULL, NULL);
      return;
    }

  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&self->queued));
  self->queued = g_byte_array_new ();
  self->writing = TRUE;
  self->n_in_flight++;
  /* The GBytes rides along as the write's data. */
  g_output_stream_write_all_async (self->output, g_bytes_get_data (bytes, NULL),
                                   g_bytes_get_size (bytes), G_PRIORITY_DEFAULT,
                                   self->cancellable, pipe_peer_write_cb, self);
  g_object_set_data_full (G_OBJECT (self->output), "in-flight", bytes,
                          (GDestroyNotify) g_bytes_unref);
}

static void
pipe_peer_write_raw (StwTestCdpPeer *peer,
                     const char     *data,
                     gsize           length)
{
  PipePeer *self = (PipePeer *) peer;

  g_byte_array_append (self->queued, (const guint8 *) data, (guint) length);
  pipe_peer_flush (self);
}

static void
pipe_peer_send (StwTestCdpPeer *peer,
                const char     *data,
                gsize           length,
                gboolean        binary)
{
  pipe_peer_write_raw (peer, data, length);
  pipe_peer_write_raw (peer, "", 1);
}

static void
pipe_peer_drop (StwTestCdpPeer *peer)
{
  PipePeer *self = (PipePeer *) peer;

  self->close_when_flushed = TRUE;
  pipe_peer_flush (self);
}

static void
pipe_peer_close (StwTestCdpPeer *peer,
                 gushort         code)
{
  pipe_peer_drop (peer);
}

static void pipe_peer_read_next (PipePeer *self);

static void
pipe_peer_read_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  PipePeer *self = user_data;
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  const guint8 *p = self->chunk;

  self->n_in_flight--;
  if (n <= 0)
    return;

  while (n > 0)
    {
      const guint8 *nul = memchr (p, '\0', (gsize) n);

      if (nul == NULL)
        {
          g_byte_array_append (self->record, p, (guint) n);
          break;
        }
      g_byte_array_append (self->record, p, (guint) (nul - p));
      peer_handle (&self->peer, (const char *) self->record->data, self->record->len);
      g_byte_array_set_size (self->record, 0);
      n -= nul - p + 1;
      p = nul + 1;
    }

  pipe_peer_read_next (self);
}

static void
pipe_peer_read_next (PipePeer *self)
{
  self->n_in_flight++;
  g_input_stream_read_async (self->input, self->chunk, sizeof self->chunk, G_PRIORITY_DEFAULT,
                             self->cancellable, pipe_peer_read_cb, self);
}

StwTestCdpPeer *
stw_test_cdp_peer_new_pipe (StwTransport **transport)
{
  int to_peer[2], from_peer[2];
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) client_in = NULL;
  g_autoptr(GOutputStream) client_out = NULL;
  PipePeer *peer = g_new0 (PipePeer, 1);

  g_assert_nonnull (transport);
  g_unix_open_pipe (to_peer, FD_CLOEXEC, &error);
  g_assert_no_error (error);
  g_unix_open_pipe (from_peer, FD_CLOEXEC, &error);
  g_assert_no_error (error);
  /* The peer shares the main loop with the client: its writes must not
   * block either. */
  g_unix_set_fd_nonblocking (to_peer[0], TRUE, NULL);
  g_unix_set_fd_nonblocking (from_peer[1], TRUE, NULL);

  peer_init (&peer->peer);
  peer->peer.send = pipe_peer_send;
  peer->peer.write_raw = pipe_peer_write_raw;
  peer->peer.drop = pipe_peer_drop;
  peer->peer.close = pipe_peer_close;
  peer->input = g_unix_input_stream_new (to_peer[0], TRUE);
  peer->output = g_unix_output_stream_new (from_peer[1], TRUE);
  peer->cancellable = g_cancellable_new ();
  peer->record = g_byte_array_new ();
  peer->queued = g_byte_array_new ();
  pipe_peer_read_next (peer);

  client_in = g_unix_input_stream_new (from_peer[0], TRUE);
  client_out = g_unix_output_stream_new (to_peer[1], TRUE);
  *transport = stw_cdp_pipe_new (client_in, client_out);
  g_assert_true (STW_IS_CDP_PIPE (*transport));
  return &peer->peer;
}

guint
stw_test_cdp_peer_get_n_in_flight (StwTestCdpPeer *peer)
{
  g_assert_true (peer->send == pipe_peer_send);
  return ((PipePeer *) peer)->n_in_flight;
}

void
stw_test_cdp_peer_free (StwTestCdpPeer *peer)
{
  PipePeer *self = (PipePeer *) peer;

  g_assert_true (peer->send == pipe_peer_send);
  g_cancellable_cancel (self->cancellable);
  while (self->n_in_flight > 0)
    g_main_context_iteration (NULL, TRUE);
  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->cancellable);
  g_byte_array_unref (self->record);
  g_byte_array_unref (self->queued);
  peer_clear (&self->peer);
  g_free (self);
}

/* A fake browser {{{1 */

struct _StwTestCdpBrowser
{
  StwTestCdpPeer  *peer;
  StwTransport    *transport;
  StwTestShotMode  shot_mode;
  gint64           held_id;         /* a held captureScreenshot */
  guint            stale_replies;   /* callFunctionOn answers "Cannot find context" */
  gint64           next_world;
};

static void
browser_handle (StwTestCdpPeer *peer,
                JsonObject     *request,
                gpointer        user_data)
{
  StwTestCdpBrowser *self = user_data;
  gint64 id = json_object_get_int_member_with_default (request, "id", 0);
  const char *method = json_object_get_string_member_with_default (request, "method", "");
  const char *session = json_object_get_string_member_with_default (request, "sessionId", NULL);

  if (g_str_equal (method, "Target.setAutoAttach") && session == NULL)
    {
      stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{}}", id);
      stw_test_cdp_peer_send (peer, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"S1\","
                                    "\"targetInfo\":{\"targetId\":\"T1\",\"type\":\"page\",\"title\":\"Fake\","
                                    "\"url\":\"about:blank\"},\"waitingForDebugger\":false}}");
    }
  else if (g_str_equal (method, "Page.createIsolatedWorld"))
    stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"executionContextId\":%"
                                         G_GINT64_FORMAT "}}", id, ++self->next_world);
  else if (g_str_equal (method, "Runtime.callFunctionOn") && self->stale_replies > 0)
    {
      self->stale_replies--;
      stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"error\":{\"code\":-32000,"
                                           "\"message\":\"Cannot find context with specified id\"}}", id);
    }
  else if (g_str_equal (method, "Runtime.callFunctionOn"))
    {
      /* Page ops answer true (ready, say); screenshotBox answers a box. */
      JsonObject *params = json_object_get_object_member (request, "params");
      const char *function = json_object_get_string_member_with_default (params, "functionDeclaration", "");
      JsonArray *arguments = json_object_has_member (params, "arguments")
                             ? json_object_get_array_member (params, "arguments") : NULL;
      JsonObject *first = arguments && json_array_get_length (arguments) > 0
                          ? json_array_get_object_element (arguments, 0) : NULL;
      if (strstr (function, "__stagewright.call") != NULL &&
          g_strcmp0 (json_object_get_string_member_with_default (first, "value", ""), "screenshotBox") == 0)
        stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"result\":{\"type\":\"object\","
                                             "\"value\":{\"bbox\":{\"x\":1,\"y\":2,\"w\":3,\"h\":4},"
                                             "\"target\":{\"key\":1,\"fp\":\"\",\"role\":\"\",\"name\":\"\"}}}}}", id);
      else
        stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"result\":"
                                             "{\"type\":\"boolean\",\"value\":true}}}", id);
    }
  else if (g_str_equal (method, "Target.getTargets"))
    stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"targetInfos\":[{\"targetId\":\"T1\","
                                         "\"type\":\"page\",\"title\":\"Fake\",\"url\":\"about:blank\"}]}}", id);
  else if (g_str_equal (method, "Page.getFrameTree"))
    stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"frameTree\":"
                                         "{\"frame\":{\"id\":\"T1\"}}}}", id);
  else if (g_str_equal (method, "Page.captureScreenshot"))
    {
      switch (self->shot_mode)
        {
        case STW_TEST_SHOT_REPLY:
          stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"data\":\""
                                               STW_TEST_TINY_PNG "\"}}", id);
          break;
        case STW_TEST_SHOT_GARBAGE:
          stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{\"data\":"
                                               "\"Z2FyYmFnZSBub3QgYW4gaW1hZ2U=\"}}", id);
          break;
        case STW_TEST_SHOT_DROP:
          stw_test_cdp_peer_drop (peer);
          break;
        case STW_TEST_SHOT_HOLD:
        default:
          self->held_id = id;
          break;
        }
    }
  else
    stw_test_cdp_peer_send_printf (peer, "{\"id\":%" G_GINT64_FORMAT ",\"result\":{}}", id);
}

StwTestCdpBrowser *
stw_test_cdp_browser_new (void)
{
  StwTestCdpBrowser *self = g_new0 (StwTestCdpBrowser, 1);

  self->peer = stw_test_cdp_peer_new_pipe (&self->transport);
  stw_test_cdp_peer_set_handler (self->peer, browser_handle, self);
  return self;
}

void
stw_test_cdp_browser_free (StwTestCdpBrowser *self)
{
  g_clear_object (&self->transport);
  stw_test_cdp_peer_free (self->peer);
  g_free (self);
}

StwTransport *
stw_test_cdp_browser_get_transport (StwTestCdpBrowser *self)
{
  return self->transport;
}

StwTestCdpPeer *
stw_test_cdp_browser_get_peer (StwTestCdpBrowser *self)
{
  return self->peer;
}

void
stw_test_cdp_browser_set_shot_mode (StwTestCdpBrowser *self,
                                    StwTestShotMode    mode)
{
  self->shot_mode = mode;
}

gint64
stw_test_cdp_browser_get_held_id (StwTestCdpBrowser *self)
{
  return self->held_id;
}

void
stw_test_cdp_browser_set_stale_replies (StwTestCdpBrowser *self,
                                        guint              n)
{
  self->stale_replies = n;
}
