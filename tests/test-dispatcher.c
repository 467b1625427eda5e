/* test-dispatcher.c: registration, visibility, validation, the eval guard,
 * the backstop and the core status tools
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "stagewright.h"
#include "stw-invocation-private.h"
#include "stw-json-private.h"
#include "stw-test-utils.h"

/* A tool whose behaviour the test picks {{{1 */

typedef enum
{
  TEST_MODE_ECHO,       /* answers {tool, arguments} at once */
  TEST_MODE_NEVER,      /* keeps the invocation and never answers */
  TEST_MODE_IDLE,       /* answers from an idle in the thread-default context */
  TEST_MODE_ERROR,      /* answers with error_code */
  TEST_MODE_FOREIGN,    /* answers with a G_IO_ERROR */
  TEST_MODE_BAD_JSON,   /* answers with JSON text that is not an object */
  TEST_MODE_SESSION,    /* resolves a session, then echoes */
  TEST_MODE_TWICE,      /* answers three times */
  TEST_MODE_RESOLVED,   /* answers {session_id} of the session it was handed */
} TestMode;

#define TEST_TYPE_TOOL (test_tool_get_type ())
G_DECLARE_FINAL_TYPE (TestTool, test_tool, TEST, TOOL, StwTool)

struct _TestTool
{
  StwTool        parent_instance;
  TestMode       mode;
  const char    *error_code;
  guint          n_invoked;
  StwInvocation *pending;         /* TEST_MODE_NEVER */
  JsonObject    *seen_arguments;
};

G_DEFINE_FINAL_TYPE (TestTool, test_tool, STW_TYPE_TOOL)

static JsonObject *
echo_payload (StwTool       *tool,
              StwInvocation *invocation)
{
  JsonObject *payload = json_object_new ();

  json_object_set_string_member (payload, "tool", stw_tool_get_name (tool));
  json_object_set_object_member (payload, "arguments",
                                 json_object_ref (stw_invocation_get_arguments (invocation)));
  return payload;
}

static gboolean
answer_later (gpointer user_data)
{
  StwInvocation *invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();

  stw_invocation_report_progress (invocation, 2, 2, "answering");
  json_object_set_string_member (payload, "answered", "later");
  stw_invocation_return_value (invocation, payload);
  return G_SOURCE_REMOVE;
}

static void
test_tool_invoke (StwTool       *tool,
                  StwInvocation *invocation)
{
  TestTool *self = TEST_TOOL (tool);

  self->n_invoked++;
  g_clear_pointer (&self->seen_arguments, json_object_unref);
  self->seen_arguments = json_object_ref (stw_invocation_get_arguments (invocation));

  switch (self->mode)
    {
    case TEST_MODE_ECHO:
      {
        g_autoptr(JsonObject) payload = echo_payload (tool, invocation);
        stw_invocation_return_value (invocation, payload);
      }
      break;

    case TEST_MODE_NEVER:
      g_set_object (&self->pending, invocation);
      break;

    case TEST_MODE_IDLE:
      {
        g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
        g_autoptr(GSource) source = g_idle_source_new ();

        stw_invocation_report_progress (invocation, 1, 2, "half way");
        g_source_set_callback (source, answer_later, g_object_ref (invocation), g_object_unref);
        g_source_attach (source, context);
      }
      break;

    case TEST_MODE_ERROR:
      stw_invocation_return_error_literal (invocation, self->error_code, "failed on purpose");
      break;

    case TEST_MODE_FOREIGN:
      {
        g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, "raw pipe error");
        stw_invocation_return_error (invocation, error);
      }
      break;

    case TEST_MODE_BAD_JSON:
      stw_invocation_return_json (invocation, "[1, 2]");
      break;

    case TEST_MODE_SESSION:
      {
        g_autoptr(JsonObject) payload = echo_payload (tool, invocation);

        stw_invocation_set_session_id (invocation, "sess-42");
        g_assert_cmpstr (stw_invocation_get_session_id (invocation), ==, "sess-42");
        stw_invocation_return_value (invocation, payload);
      }
      break;

    case TEST_MODE_TWICE:
      {
        g_autoptr(JsonObject) first = json_object_new ();
        g_autoptr(JsonObject) second = json_object_new ();

        json_object_set_int_member (first, "answer", 1);
        json_object_set_int_member (second, "answer", 2);
        stw_invocation_return_value (invocation, first);
        g_assert_true (stw_invocation_is_completed (invocation));
        stw_invocation_return_value (invocation, second);
        stw_invocation_return_error_literal (invocation, "NOT_RUNNING", NULL);
      }
      break;

    case TEST_MODE_RESOLVED:
      {
        g_autoptr(JsonObject) payload = json_object_new ();
        StwSession *session = stw_invocation_get_session (invocation);

        if (session != NULL)
          {
            json_object_set_string_member (payload, "session_id", stw_session_get_id (session));
            g_assert_cmpstr (stw_invocation_get_session_id (invocation), ==, stw_session_get_id (session));
          }
        else
          json_object_set_null_member (payload, "session_id");
        stw_invocation_return_value (invocation, payload);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
test_tool_finalize (GObject *object)
{
  TestTool *self = TEST_TOOL (object);

  g_clear_object (&self->pending);
  g_clear_pointer (&self->seen_arguments, json_object_unref);
  G_OBJECT_CLASS (test_tool_parent_class)->finalize (object);
}

static void
test_tool_class_init (TestToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_tool_finalize;
  STW_TOOL_CLASS (klass)->invoke = test_tool_invoke;
}

static void
test_tool_init (TestTool *self)
{
  self->error_code = "NOT_RUNNING";
}

static const char open_schema[] = "{\"type\":\"object\"}";

static const char eval_schema[] =
  "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\"},"
  "\"expression\":{\"type\":\"string\"}},\"additionalProperties\":false}";

static TestTool *
test_tool_new_full (const char         *name,
                    StwOperationType    operation_type,
                    StwEvalTarget       eval_target,
                    const char         *schema_json,
                    const char * const *error_codes,
                    TestMode            mode)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = NULL;
  TestTool *tool;

  if (schema_json != NULL)
    {
      schema = stw_schema_new_from_string (schema_json, &error);
      g_assert_no_error (error);
    }

  tool = g_object_new (TEST_TYPE_TOOL,
                       "name", name,
                       "title", "A test tool",
                       "description", "Does what the test says.",
                       "operation-type", operation_type,
                       "eval-target", eval_target,
                       "code-argument", operation_type == STW_OPERATION_EVAL ? "code" : NULL,
                       "input-schema", schema,
                       "error-codes", error_codes,
                       NULL);
  tool->mode = mode;
  return tool;
}

static TestTool *
test_tool_new (const char *name,
               TestMode    mode)
{
  return test_tool_new_full (name, STW_OPERATION_QUERY, STW_EVAL_TARGET_NONE, open_schema, NULL, mode);
}

/* Helpers {{{1 */

static GPtrArray *logged;   /* Stagewright messages, as text */

static void
capture_log (const char     *log_domain,
             GLogLevelFlags  log_level,
             const char     *message,
             gpointer        user_data)
{
  g_ptr_array_add (logged, g_strdup (message));
}

static guint
count_logged (const char *needle)
{
  guint n = 0;

  for (guint i = 0; i < logged->len; i++)
    if (strstr (g_ptr_array_index (logged, i), needle) != NULL)
      n++;
  return n;
}

static StwDispatcher *
dispatcher_with (TestTool *tool)
{
  StwDispatcher *dispatcher = stw_dispatcher_new ();
  g_autoptr(GError) error = NULL;

  if (tool != NULL)
    {
      g_assert_true (stw_dispatcher_add_tool (dispatcher, STW_TOOL (tool), &error));
      g_assert_no_error (error);
    }
  return dispatcher;
}

static void
add_tool (StwDispatcher *dispatcher,
          TestTool      *tool)
{
  g_autoptr(GError) error = NULL;

  stw_dispatcher_add_tool (dispatcher, STW_TOOL (tool), &error);
  g_assert_no_error (error);
}

/* Calls @name synchronously; the call itself must produce an envelope. */
static JsonObject *
call (StwDispatcher *dispatcher,
      const char    *name,
      const char    *arguments_json)
{
  g_autoptr(JsonObject) arguments = stw_test_json_object_from (arguments_json);
  g_autoptr(GError) error = NULL;
  JsonObject *envelope;

  envelope = stw_dispatcher_call_sync (dispatcher, name, arguments, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (envelope);
  g_assert_true (json_object_has_member (envelope, "_meta"));
  return envelope;
}

static void
assert_ok (JsonObject *envelope)
{
  if (!stw_envelope_is_ok (envelope))
    {
      g_autofree char *text = stw_envelope_to_string (envelope);
      g_error ("Expected a success envelope, got %s", text);
    }
}

static void
assert_code (JsonObject *envelope,
             const char *code)
{
  g_autofree char *text = stw_envelope_to_string (envelope);

  g_test_message ("envelope: %s", text);
  g_assert_false (stw_envelope_is_ok (envelope));
  g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, code);
}

static gboolean
strv_has_substring (JsonArray  *array,
                    const char *needle)
{
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    if (strstr (json_array_get_string_element (array, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

typedef struct
{
  JsonObject *envelope;
  GError     *error;
  gboolean    done;
} Outcome;

static void
outcome_clear (Outcome *outcome)
{
  g_clear_pointer (&outcome->envelope, json_object_unref);
  g_clear_error (&outcome->error);
}

static void
on_invoke_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Outcome *outcome = user_data;

  g_assert_false (outcome->done);
  outcome->envelope = stw_dispatcher_invoke_finish (STW_DISPATCHER (source), result, &outcome->error);
  outcome->done = TRUE;
}

static gboolean
on_watchdog (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the default main context until @flag is set; ten seconds is a hang. */
static void
iterate_until (const gboolean *flag)
{
  g_assert_true (stw_test_wait_until (flag, 10000));
}

/* Records the call signals. */
typedef struct
{
  guint          n_started;
  guint          n_finished;
  StwInvocation *started;
  StwInvocation *finished;
  JsonObject    *envelope;
} CallRecorder;

static void
on_call_started (StwDispatcher *dispatcher,
                 StwInvocation *invocation,
                 CallRecorder  *recorder)
{
  g_assert_cmpuint (recorder->n_finished, ==, recorder->n_started);
  recorder->n_started++;
  g_set_object (&recorder->started, invocation);
}

static void
on_call_finished (StwDispatcher *dispatcher,
                  StwInvocation *invocation,
                  JsonObject    *envelope,
                  CallRecorder  *recorder)
{
  recorder->n_finished++;
  g_assert_cmpuint (recorder->n_finished, ==, recorder->n_started);
  g_assert_true (stw_invocation_is_completed (invocation));
  g_assert_true (stw_invocation_get_envelope (invocation) == envelope);
  g_set_object (&recorder->finished, invocation);
  g_clear_pointer (&recorder->envelope, json_object_unref);
  recorder->envelope = json_object_ref (envelope);
}

static void
call_recorder_connect (CallRecorder  *recorder,
                       StwDispatcher *dispatcher)
{
  g_signal_connect (dispatcher, "call-started", G_CALLBACK (on_call_started), recorder);
  g_signal_connect (dispatcher, "call-finished", G_CALLBACK (on_call_finished), recorder);
}

static void
call_recorder_clear (CallRecorder *recorder)
{
  g_clear_object (&recorder->started);
  g_clear_object (&recorder->finished);
  g_clear_pointer (&recorder->envelope, json_object_unref);
}

/* Registration {{{1 */

static void
assert_add_refused (StwDispatcher *dispatcher,
                    TestTool      *tool,
                    int            code)
{
  g_autoptr(GError) error = NULL;
  const char *name = stw_tool_get_name (STW_TOOL (tool));
  StwTool *before = name ? stw_dispatcher_lookup_tool (dispatcher, name) : NULL;

  g_assert_false (stw_dispatcher_add_tool (dispatcher, STW_TOOL (tool), &error));
  g_assert_error (error, G_IO_ERROR, code);
  g_test_message ("refused: %s", error->message);
  if (name != NULL)
    g_assert_true (stw_dispatcher_lookup_tool (dispatcher, name) == before);
}

static void
count_signal (gpointer  instance,
              StwTool  *tool,
              guint    *counter)
{
  (*counter)++;
}

static void
test_register_validation (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  static const char * const bad_names[] = {
    "", "Bad", "1abc", "_abc", "has-dash", "has space", "dotted.name", "ünïcode", "camelCase",
  };
  static const char * const unregistered[] = { "NOT_RUNNING", "NO_SUCH_CODE", NULL };
  static const char * const lowercase[] = { "not_running", NULL };
  static const char * const plugin_code[] = { "regtest.BROKEN", "WAIT_TIMEOUT", NULL };
  g_autofree char *name64 = g_strnfill (64, 'a');
  g_autofree char *name65 = g_strnfill (65, 'a');
  g_autoptr(JsonObject) plugin_codes = stw_test_json_object_from (
    "{\"BROKEN\": {\"http\": 500, \"retryable\": false, \"hint\": \"Broken.\"}}");
  guint n_added = 0;

  g_signal_connect (dispatcher, "tool-added", G_CALLBACK (count_signal), &n_added);

  for (guint i = 0; i < G_N_ELEMENTS (bad_names); i++)
    {
      g_autoptr(TestTool) tool = test_tool_new (bad_names[i], TEST_MODE_ECHO);
      assert_add_refused (dispatcher, tool, G_IO_ERROR_INVALID_ARGUMENT);
    }
  {
    g_autoptr(TestTool) too_long = test_tool_new (name65, TEST_MODE_ECHO);
    g_autoptr(TestTool) longest = test_tool_new (name64, TEST_MODE_ECHO);
    g_autoptr(TestTool) unnamed = test_tool_new (NULL, TEST_MODE_ECHO);

    assert_add_refused (dispatcher, too_long, G_IO_ERROR_INVALID_ARGUMENT);
    assert_add_refused (dispatcher, unnamed, G_IO_ERROR_INVALID_ARGUMENT);
    add_tool (dispatcher, longest);
  }

  /* Duplicates, whether the same object or another with the same name. */
  {
    g_autoptr(TestTool) first = test_tool_new ("dup_tool", TEST_MODE_ECHO);
    g_autoptr(TestTool) second = test_tool_new ("dup_tool", TEST_MODE_ECHO);

    add_tool (dispatcher, first);
    assert_add_refused (dispatcher, first, G_IO_ERROR_EXISTS);
    assert_add_refused (dispatcher, second, G_IO_ERROR_EXISTS);
    g_assert_true (stw_dispatcher_lookup_tool (dispatcher, "dup_tool") == STW_TOOL (first));
  }

  /* The input schema must be an object schema. */
  {
    static const char * const schemas[] = {
      "{\"type\":\"string\"}", "true", "{\"properties\":{}}", "{\"type\":[\"object\",\"null\"]}",
    };

    for (guint i = 0; i < G_N_ELEMENTS (schemas); i++)
      {
        g_autoptr(TestTool) tool = test_tool_new_full ("schema_tool", STW_OPERATION_QUERY,
                                                       STW_EVAL_TARGET_NONE, schemas[i], NULL,
                                                       TEST_MODE_ECHO);
        assert_add_refused (dispatcher, tool, G_IO_ERROR_INVALID_ARGUMENT);
      }
  }

  /* Eval tools name a target. Another tool may name one too (it runs the
   * server's own code there): hidden and refused, naming the flag, until
   * the policy allows it, then visible. */
  {
    g_autoptr(TestTool) no_target = test_tool_new_full ("eval_tool", STW_OPERATION_EVAL,
                                                        STW_EVAL_TARGET_NONE, eval_schema, NULL,
                                                        TEST_MODE_ECHO);
    g_autoptr(TestTool) needs_main = test_tool_new_full ("query_tool", STW_OPERATION_QUERY,
                                                         STW_EVAL_TARGET_MAIN, open_schema, NULL,
                                                         TEST_MODE_ECHO);
    g_autoptr(StwDispatcher) policed = stw_dispatcher_new ();
    g_autoptr(JsonObject) refused = NULL;
    g_autoptr(JsonObject) answered = NULL;

    assert_add_refused (dispatcher, no_target, G_IO_ERROR_INVALID_ARGUMENT);
    g_assert_true (stw_dispatcher_add_tool (policed, STW_TOOL (needs_main), NULL));
    g_assert_false (stw_dispatcher_is_tool_visible (policed, STW_TOOL (needs_main)));
    refused = call (policed, "query_tool", "{}");
    g_assert_false (json_object_get_boolean_member (refused, "ok"));
    g_assert_cmpstr (json_object_get_string_member (refused, "code"), ==, "BAD_ARGUMENT");
    g_assert_nonnull (strstr (json_object_get_string_member (refused, "error"), "--allow-eval=main"));
    stw_dispatcher_set_allow_eval (policed, STW_EVAL_TARGET_RENDERER);
    g_assert_false (stw_dispatcher_is_tool_visible (policed, STW_TOOL (needs_main)));
    stw_dispatcher_set_allow_eval (policed, STW_EVAL_TARGET_MAIN);
    g_assert_true (stw_dispatcher_is_tool_visible (policed, STW_TOOL (needs_main)));
    answered = call (policed, "query_tool", "{}");
    g_assert_true (json_object_get_boolean_member (answered, "ok"));
  }

  /* Declared error codes must be registered, exactly as spelled. */
  {
    g_autoptr(TestTool) bad = test_tool_new_full ("codes_tool", STW_OPERATION_QUERY, STW_EVAL_TARGET_NONE,
                                                  open_schema, unregistered, TEST_MODE_ECHO);
    g_autoptr(TestTool) lower = test_tool_new_full ("codes_tool", STW_OPERATION_QUERY, STW_EVAL_TARGET_NONE,
                                                    open_schema, lowercase, TEST_MODE_ECHO);
    g_autoptr(TestTool) plugin = test_tool_new_full ("codes_tool", STW_OPERATION_QUERY, STW_EVAL_TARGET_NONE,
                                                     open_schema, plugin_code, TEST_MODE_ECHO);
    g_autoptr(GError) error = NULL;

    assert_add_refused (dispatcher, bad, G_IO_ERROR_INVALID_ARGUMENT);
    assert_add_refused (dispatcher, lower, G_IO_ERROR_INVALID_ARGUMENT);
    /* A plugin code counts once the plugin registered it. */
    assert_add_refused (dispatcher, plugin, G_IO_ERROR_INVALID_ARGUMENT);
    g_assert_true (stw_error_registry_register_plugin_codes (stw_error_registry_get_default (),
                                                             "regtest", plugin_codes, &error));
    add_tool (dispatcher, plugin);
    stw_error_registry_unregister_plugin_codes (stw_error_registry_get_default (), "regtest",
                                                plugin_codes);
  }

  /* Only the three valid tools made it, each announced once. */
  g_assert_cmpuint (n_added, ==, 3);
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "schema_tool"));
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "eval_tool"));
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, NULL));
}

typedef struct
{
  guint    n_added;
  guint    n_removed;
  StwTool *last;
} ToolSignals;

static void
on_tool_added (StwDispatcher *dispatcher,
               StwTool       *tool,
               ToolSignals   *signals)
{
  signals->n_added++;
  signals->last = tool;
  /* Emitted after the tool is in. */
  g_assert_true (stw_dispatcher_lookup_tool (dispatcher, stw_tool_get_name (tool)) == tool);
}

static void
on_tool_removed (StwDispatcher *dispatcher,
                 StwTool       *tool,
                 ToolSignals   *signals)
{
  signals->n_removed++;
  signals->last = tool;
  /* Emitted after the tool is out, while it is still alive. */
  g_assert_true (STW_IS_TOOL (tool));
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, stw_tool_get_name (tool)));
}

static void
test_register_signals (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(TestTool) tool = test_tool_new ("signal_tool", TEST_MODE_ECHO);
  ToolSignals signals = { 0 };
  GWeakRef weak;

  g_signal_connect (dispatcher, "tool-added", G_CALLBACK (on_tool_added), &signals);
  g_signal_connect (dispatcher, "tool-removed", G_CALLBACK (on_tool_removed), &signals);

  add_tool (dispatcher, tool);
  g_assert_cmpuint (signals.n_added, ==, 1);
  g_assert_true (signals.last == STW_TOOL (tool));

  g_assert_false (stw_dispatcher_remove_tool (dispatcher, "no_such_tool"));
  g_assert_cmpuint (signals.n_removed, ==, 0);

  g_assert_true (stw_dispatcher_remove_tool (dispatcher, "signal_tool"));
  g_assert_cmpuint (signals.n_removed, ==, 1);
  g_assert_true (signals.last == STW_TOOL (tool));
  g_assert_false (stw_dispatcher_remove_tool (dispatcher, "signal_tool"));
  g_assert_cmpuint (signals.n_removed, ==, 1);

  /* The dispatcher dropped its reference. */
  g_weak_ref_init (&weak, tool);
  g_clear_object (&tool);
  g_assert_null (g_weak_ref_get (&weak));
  g_weak_ref_clear (&weak);
}

/* Listing and profiles {{{1 */

/* The reference's profiles (§1.11), typed in independently. */
static const char * const essential_names[] = {
  "electron_launch", "electron_status", "electron_info", "electron_stop", "electron_snapshot",
  "electron_find", "electron_click", "electron_type", "electron_key", "electron_clear_input",
  "electron_select_option", "electron_check", "electron_uncheck", "electron_scroll",
  "electron_scroll_into_view", "electron_get_text", "electron_get_value", "electron_get_state",
  "electron_exists", "electron_wait_for_selector", "electron_wait_for_state",
  "electron_expect_text", "electron_expect_value", "electron_expect_visible",
  "electron_expect_state", "electron_expect_count", "electron_expect_url",
  /* Issue 8: the essential profile shows screenshots too, and fills a
   * form in one call (a stagewright addition to the reference). */
  "electron_screenshot", "electron_fill_form", NULL
};
static const char * const testing_only_names[] = {
  "electron_hover", "electron_drag", "electron_drop_file", "electron_keyboard_type",
  "electron_type_into_editor", "electron_press_sequence", "electron_set_files",
  "electron_assert_pattern", NULL
};
static const char * const debug_only_names[] = {
  "electron_doctor", "electron_inject", "electron_discover_running", "electron_force_kill",
  "electron_console_logs", "electron_dialog_handler", NULL
};
static const char * const testing_and_debug_names[] = {
  "electron_attach", "electron_windows_list", "electron_switch_window", "electron_surfaces_list",
  "electron_switch_surface", "electron_detach", "electron_get_attribute", "electron_get_bbox",
  "electron_get_computed_style", "electron_focused_element", "electron_elements_list",
  "electron_wait", "electron_wait_for_event", NULL
};

/* The flags a tool of the contract belongs to; ungoverned names, all. */
static StwToolProfileFlags
contract_profiles (const char *name)
{
  if (g_strv_contains (essential_names, name))
    return STW_TOOL_PROFILE_FLAGS_ALL;
  if (g_strv_contains (testing_only_names, name))
    return STW_TOOL_PROFILE_FLAGS_TESTING | STW_TOOL_PROFILE_FLAGS_FULL;
  if (g_strv_contains (debug_only_names, name))
    return STW_TOOL_PROFILE_FLAGS_DEBUG | STW_TOOL_PROFILE_FLAGS_FULL;
  if (g_strv_contains (testing_and_debug_names, name))
    return STW_TOOL_PROFILE_FLAGS_TESTING | STW_TOOL_PROFILE_FLAGS_DEBUG | STW_TOOL_PROFILE_FLAGS_FULL;
  return STW_TOOL_PROFILE_FLAGS_ALL;
}

/* A test tool named like a tool of the contract, in the contract's profiles. */
static TestTool *
test_tool_new_like (const char *name)
{
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (open_schema, NULL);
  TestTool *tool = g_object_new (TEST_TYPE_TOOL,
                                 "name", name,
                                 "description", "Stands in for a tool of the contract.",
                                 "operation-type", STW_OPERATION_QUERY,
                                 "input-schema", schema,
                                 "profiles", contract_profiles (name),
                                 NULL);
  tool->mode = TEST_MODE_ECHO;
  return tool;
}

static guint
count_in_profile (StwToolProfile       profile,
                  const char * const  *names,
                  gsize                n_names)
{
  guint n = 0;

  for (gsize i = 0; i < n_names; i++)
    {
      g_autoptr(TestTool) tool = test_tool_new_like (names[i]);
      n += stw_tool_is_in_profile (STW_TOOL (tool), profile) ? 1 : 0;
    }
  return n;
}

static guint
profile_size (StwToolProfile profile)
{
  return count_in_profile (profile, essential_names, G_N_ELEMENTS (essential_names) - 1) +
         count_in_profile (profile, testing_only_names, G_N_ELEMENTS (testing_only_names) - 1) +
         count_in_profile (profile, debug_only_names, G_N_ELEMENTS (debug_only_names) - 1) +
         count_in_profile (profile, testing_and_debug_names, G_N_ELEMENTS (testing_and_debug_names) - 1);
}

static void
test_profiles_contract (void)
{
  static const struct {
    StwToolProfile profile;
    const char    *name;
    guint          size;
    gboolean       testing_only;
    gboolean       debug_only;
  } profiles[] = {
    { STW_TOOL_PROFILE_ESSENTIAL, "essential", 29, FALSE, FALSE },
    { STW_TOOL_PROFILE_TESTING, "testing", 50, TRUE, FALSE },
    { STW_TOOL_PROFILE_DEBUG, "debug", 48, FALSE, TRUE },
    { STW_TOOL_PROFILE_FULL, "full", 56, TRUE, TRUE },
  };
  g_autoptr(TestTool) ungoverned = test_tool_new ("myplugin_tool", TEST_MODE_ECHO);
  g_autoptr(StwToolProvider) core = stw_core_tool_provider_new ();
  g_autoptr(GList) core_tools = stw_tool_provider_list_tools (core);

  g_assert_cmpuint (G_N_ELEMENTS (essential_names) + G_N_ELEMENTS (testing_only_names) +
                    G_N_ELEMENTS (debug_only_names) + G_N_ELEMENTS (testing_and_debug_names) - 4, ==, 56);

  /* A tool is in the profiles its flags name, and by default in all. */
  g_assert_cmpuint (stw_tool_get_profiles (STW_TOOL (ungoverned)), ==, STW_TOOL_PROFILE_FLAGS_ALL);

  for (guint i = 0; i < G_N_ELEMENTS (profiles); i++)
    {
      StwToolProfile parsed = STW_TOOL_PROFILE_ESSENTIAL;

      g_test_message ("profile %s", profiles[i].name);
      g_assert_cmpstr (stw_tool_profile_to_string (profiles[i].profile), ==, profiles[i].name);
      g_assert_true (stw_tool_profile_from_string (profiles[i].name, &parsed));
      g_assert_cmpint (parsed, ==, profiles[i].profile);

      g_assert_cmpuint (profile_size (profiles[i].profile), ==, profiles[i].size);
      g_assert_cmpuint (count_in_profile (profiles[i].profile, essential_names,
                                          G_N_ELEMENTS (essential_names) - 1), ==, 29);
      g_assert_cmpuint (count_in_profile (profiles[i].profile, testing_only_names,
                                          G_N_ELEMENTS (testing_only_names) - 1),
                        ==, profiles[i].testing_only ? G_N_ELEMENTS (testing_only_names) - 1 : 0);
      g_assert_cmpuint (count_in_profile (profiles[i].profile, debug_only_names,
                                          G_N_ELEMENTS (debug_only_names) - 1),
                        ==, profiles[i].debug_only ? G_N_ELEMENTS (debug_only_names) - 1 : 0);

      g_assert_true (stw_tool_is_in_profile (STW_TOOL (ungoverned), profiles[i].profile));
    }

  /* The core tools carry the contract's membership themselves. */
  g_assert_cmpuint (g_list_length (core_tools), >=, 15);
  for (const GList *l = core_tools; l != NULL; l = l->next)
    {
      const char *name = stw_tool_get_name (l->data);

      g_test_message ("core tool %s: profiles 0x%x", name, stw_tool_get_profiles (l->data));
      g_assert_cmpuint (stw_tool_get_profiles (l->data), ==, contract_profiles (name));
      g_assert_true (stw_tool_is_in_profile (l->data, STW_TOOL_PROFILE_FULL));
    }

  g_assert_false (stw_tool_profile_from_string ("FULL", NULL));
  g_assert_false (stw_tool_profile_from_string ("", NULL));
  g_assert_false (stw_tool_profile_from_string ("minimal", NULL));
  g_assert_true (stw_tool_profile_from_string ("debug", NULL));
}

static char *
listed_names (StwDispatcher *dispatcher)
{
  g_autoptr(GList) tools = stw_dispatcher_list_tools (dispatcher);
  GString *names = g_string_new (NULL);

  for (const GList *l = tools; l != NULL; l = l->next)
    {
      if (names->len > 0)
        g_string_append_c (names, ' ');
      g_string_append (names, stw_tool_get_name (l->data));
    }
  return g_string_free (names, FALSE);
}

static void
assert_listed (StwDispatcher *dispatcher,
               const char    *expected)
{
  g_autofree char *names = listed_names (dispatcher);

  g_assert_cmpstr (names, ==, expected);
}

static void
add_profile_fixture (StwDispatcher *dispatcher)
{
  /* Stand-ins for core tools, in the profiles of the contract; the others
   * keep the default, every profile. */
  static const char * const names[] = {
    "zz_plugin_tool", "electron_launch", "electron_status", "electron_doctor", "electron_hover",
    "electron_inject", "aa_app_tool",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(TestTool) tool = test_tool_new_like (names[i]);
      add_tool (dispatcher, tool);
    }
  {
    g_autoptr(TestTool) main_eval = test_tool_new_full ("electron_evaluate_main", STW_OPERATION_EVAL,
                                                        STW_EVAL_TARGET_MAIN, eval_schema, NULL,
                                                        TEST_MODE_ECHO);
    g_autoptr(TestTool) renderer_eval = test_tool_new_full ("electron_evaluate_renderer", STW_OPERATION_EVAL,
                                                            STW_EVAL_TARGET_RENDERER, eval_schema, NULL,
                                                            TEST_MODE_ECHO);
    g_autoptr(TestTool) both_eval = test_tool_new_full ("eval_both", STW_OPERATION_EVAL,
                                                        STW_EVAL_TARGET_ALL, eval_schema, NULL,
                                                        TEST_MODE_ECHO);
    add_tool (dispatcher, main_eval);
    add_tool (dispatcher, renderer_eval);
    add_tool (dispatcher, both_eval);
  }
}

static void
test_list_profiles (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();

  add_profile_fixture (dispatcher);

  /* Sorted by name; full shows every non-eval tool. */
  g_assert_cmpint (stw_dispatcher_get_tool_profile (dispatcher), ==, STW_TOOL_PROFILE_FULL);
  g_assert_cmpint (stw_dispatcher_get_allow_eval (dispatcher), ==, STW_EVAL_TARGET_NONE);
  assert_listed (dispatcher, "aa_app_tool electron_doctor electron_hover electron_inject "
                             "electron_launch electron_status zz_plugin_tool");

  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_ESSENTIAL);
  assert_listed (dispatcher, "aa_app_tool electron_launch electron_status zz_plugin_tool");
  g_assert_false (stw_dispatcher_is_tool_visible (dispatcher,
                                                  stw_dispatcher_lookup_tool (dispatcher, "electron_doctor")));

  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_TESTING);
  assert_listed (dispatcher, "aa_app_tool electron_hover electron_launch electron_status zz_plugin_tool");

  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_DEBUG);
  assert_listed (dispatcher, "aa_app_tool electron_doctor electron_inject electron_launch "
                             "electron_status zz_plugin_tool");
  g_assert_true (stw_dispatcher_is_tool_visible (dispatcher,
                                                 stw_dispatcher_lookup_tool (dispatcher, "electron_doctor")));

  /* Eval tools follow the eval policy, whatever the profile. */
  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_ESSENTIAL);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_MAIN);
  assert_listed (dispatcher, "aa_app_tool electron_evaluate_main electron_launch electron_status "
                             "zz_plugin_tool");
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_RENDERER);
  assert_listed (dispatcher, "aa_app_tool electron_evaluate_renderer electron_launch electron_status "
                             "zz_plugin_tool");
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_ALL);
  assert_listed (dispatcher, "aa_app_tool electron_evaluate_main electron_evaluate_renderer "
                             "electron_launch electron_status eval_both zz_plugin_tool");

  /* Hidden tools can still be looked up (to explain why they are hidden). */
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_NONE);
  g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, "electron_evaluate_main"));
}

/* Calling hidden tools {{{1 */

static void
test_call_hidden_profile (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(JsonObject) doctor = NULL;
  g_autoptr(JsonObject) hover = NULL;
  TestTool *hover_tool;
  JsonArray *actions;

  add_profile_fixture (dispatcher);
  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_ESSENTIAL);

  doctor = call (dispatcher, "electron_doctor", NULL);
  assert_code (doctor, "BAD_ARGUMENT");
  g_assert_nonnull (strstr (json_object_get_string_member (doctor, "error"), "electron_doctor"));
  g_assert_nonnull (strstr (json_object_get_string_member (doctor, "error"), "“debug”"));
  g_assert_nonnull (strstr (json_object_get_string_member (doctor, "error"), "“essential”"));
  actions = json_object_get_array_member (doctor, "next_actions");
  g_assert_nonnull (actions);
  g_assert_true (strv_has_substring (actions, "--tool-profile=debug"));

  hover_tool = TEST_TOOL (stw_dispatcher_lookup_tool (dispatcher, "electron_hover"));
  hover = call (dispatcher, "electron_hover", "{\"ref\": 3}");
  assert_code (hover, "BAD_ARGUMENT");
  g_assert_nonnull (strstr (json_object_get_string_member (hover, "error"), "“testing”"));
  g_assert_true (strv_has_substring (json_object_get_array_member (hover, "next_actions"),
                                     "--tool-profile=testing"));
  g_assert_cmpuint (hover_tool->n_invoked, ==, 0);
}

static void
test_call_hidden_eval (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  static const struct {
    const char   *tool;
    StwEvalTarget policy;
    const char   *flag;
  } cases[] = {
    { "electron_evaluate_main", STW_EVAL_TARGET_NONE, "--allow-eval=main" },
    { "electron_evaluate_main", STW_EVAL_TARGET_RENDERER, "--allow-eval=main" },
    { "electron_evaluate_renderer", STW_EVAL_TARGET_NONE, "--allow-eval=renderer" },
    { "electron_evaluate_renderer", STW_EVAL_TARGET_MAIN, "--allow-eval=renderer" },
    { "eval_both", STW_EVAL_TARGET_MAIN, "--allow-eval=all" },
  };

  add_profile_fixture (dispatcher);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) envelope = NULL;
      TestTool *tool = TEST_TOOL (stw_dispatcher_lookup_tool (dispatcher, cases[i].tool));

      stw_dispatcher_set_allow_eval (dispatcher, cases[i].policy);
      envelope = call (dispatcher, cases[i].tool, "{\"code\": \"1\"}");
      assert_code (envelope, "BAD_ARGUMENT");
      g_assert_nonnull (strstr (json_object_get_string_member (envelope, "error"), cases[i].flag));
      g_assert_true (strv_has_substring (json_object_get_array_member (envelope, "next_actions"),
                                         cases[i].flag));
      g_assert_cmpuint (tool->n_invoked, ==, 0);
    }
}

/* Validation and defaults {{{1 */

static gboolean
issues_have_field (JsonArray  *issues,
                   const char *field)
{
  for (guint i = 0; i < json_array_get_length (issues); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (issues, i), "field"),
                   field) == 0)
      return TRUE;
  return FALSE;
}

static void
test_call_schema_failure (void)
{
  g_autoptr(TestTool) tool = test_tool_new_full (
    "strict_tool", STW_OPERATION_COMMAND, STW_EVAL_TARGET_NONE,
    "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\",\"minimum\":1},"
    "\"label\":{\"type\":\"string\"}},\"required\":[\"count\"],\"additionalProperties\":false}",
    NULL, TEST_MODE_ECHO);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(JsonObject) two = call (dispatcher, "strict_tool", "{\"count\": 0, \"extra\": true}");
  g_autoptr(JsonObject) missing = call (dispatcher, "strict_tool", "{\"label\": 5}");
  g_autoptr(JsonObject) fine = call (dispatcher, "strict_tool", "{\"count\": 2}");
  JsonObject *details;
  JsonArray *issues;

  assert_code (two, "BAD_ARGUMENT");
  g_assert_cmpint (json_object_get_int_member (two, "http"), ==, 400);
  details = json_object_get_object_member (two, "details");
  g_assert_nonnull (details);
  issues = json_object_get_array_member (details, "issues");
  g_assert_nonnull (issues);
  g_assert_cmpuint (json_array_get_length (issues), ==, 2);
  g_assert_true (issues_have_field (issues, "count"));
  g_assert_true (issues_have_field (issues, "extra"));
  g_assert_nonnull (strstr (json_object_get_string_member (two, "error"), "and 1 more"));

  assert_code (missing, "BAD_ARGUMENT");
  issues = json_object_get_array_member (json_object_get_object_member (missing, "details"), "issues");
  g_assert_true (issues_have_field (issues, "count"));
  g_assert_true (issues_have_field (issues, "label"));

  /* Only the valid call reached the tool. */
  assert_ok (fine);
  g_assert_cmpuint (tool->n_invoked, ==, 1);
}

/* A tool that implements no invoke: the dispatcher answers for it (the
 * base class sits below invocations and cannot). */
#define BARE_TYPE_TOOL (bare_tool_get_type ())
G_DECLARE_FINAL_TYPE (BareTool, bare_tool, BARE, TOOL, StwTool)

struct _BareTool
{
  StwTool parent_instance;
};

G_DEFINE_FINAL_TYPE (BareTool, bare_tool, STW_TYPE_TOOL)

static void
bare_tool_class_init (BareToolClass *klass)
{
}

static void
bare_tool_init (BareTool *self)
{
}

static void
test_call_not_implemented (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwTool) tool = g_object_new (BARE_TYPE_TOOL,
                                          "name", "bare_tool",
                                          "title", "A bare tool",
                                          "description", "Implements nothing.",
                                          NULL);
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (stw_dispatcher_add_tool (dispatcher, tool, &error));
  g_assert_no_error (error);
  envelope = call (dispatcher, "bare_tool", "{}");
  assert_code (envelope, "NOT_IMPLEMENTED");
  g_assert_cmpstr (json_object_get_string_member (envelope, "error"), ==, "This tool has no implementation");

  /* Past the dispatcher too: a direct stw_tool_invoke() of a tool that
   * implements nothing answers, rather than leaving the call open. */
  {
    g_autoptr(JsonObject) arguments = json_object_new ();
    g_autoptr(StwInvocation) invocation = stw_dispatcher_create_invocation (dispatcher, "bare_tool", arguments, &error);

    g_assert_no_error (error);
    stw_tool_invoke (tool, invocation);
    g_assert_true (stw_invocation_is_completed (invocation));
    assert_code (stw_invocation_get_envelope (invocation), "NOT_IMPLEMENTED");
  }
}

static void
test_call_defaults (void)
{
  g_autoptr(TestTool) tool = test_tool_new_full (
    "defaults_tool", STW_OPERATION_QUERY, STW_EVAL_TARGET_NONE,
    "{\"type\":\"object\",\"properties\":{"
    "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":0,\"default\":5000},"
    "\"force\":{\"type\":\"boolean\",\"default\":false},"
    "\"label\":{\"type\":\"string\"}},\"additionalProperties\":false}",
    NULL, TEST_MODE_ECHO);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(JsonObject) arguments = stw_test_json_object_from ("{\"label\": \"x\"}");
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(JsonObject) explicit = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *echoed;

  envelope = stw_dispatcher_call_sync (dispatcher, "defaults_tool", arguments, NULL, &error);
  g_assert_no_error (error);
  assert_ok (envelope);

  /* The tool saw the defaults... */
  g_assert_cmpint (json_object_get_int_member (tool->seen_arguments, "timeoutMs"), ==, 5000);
  g_assert_false (json_object_get_boolean_member (tool->seen_arguments, "force"));
  g_assert_cmpstr (json_object_get_string_member (tool->seen_arguments, "label"), ==, "x");
  echoed = json_object_get_object_member (envelope, "arguments");
  g_assert_cmpint (json_object_get_int_member (echoed, "timeoutMs"), ==, 5000);

  /* ...and the caller's arguments were left as they were. */
  g_assert_false (json_object_has_member (arguments, "timeoutMs"));
  g_assert_cmpuint (json_object_get_size (arguments), ==, 1);

  /* Given values win over defaults. */
  explicit = call (dispatcher, "defaults_tool", "{\"timeoutMs\": 10, \"force\": true}");
  assert_ok (explicit);
  g_assert_cmpint (json_object_get_int_member (tool->seen_arguments, "timeoutMs"), ==, 10);
  g_assert_true (json_object_get_boolean_member (tool->seen_arguments, "force"));
  g_assert_false (json_object_has_member (tool->seen_arguments, "label"));
}

/* The eval guard {{{1 */

static char *
sha256 (const char *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

static void
test_eval_blocklist (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  static const struct {
    const char *field;
    const char *code;
    const char *keyword;
  } blocked[] = {
    { "code", "require('fs').readFileSync('/etc/passwd')", "require(" },
    { "code", "process.exit(1)", "process.exit" },
    { "code", "({}).__proto__.polluted = 1", "__proto__" },
    { "code", "new Function('return 1')()", "new Function" },
    { "code", "eval('1')", "eval(" },
    { "code", "globalThis.child_process", "child_process" },
  };
  TestTool *tool;

  add_profile_fixture (dispatcher);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_MAIN);
  tool = TEST_TOOL (stw_dispatcher_lookup_tool (dispatcher, "electron_evaluate_main"));

  for (guint i = 0; i < G_N_ELEMENTS (blocked); i++)
    {
      g_autoptr(JsonObject) arguments = json_object_new ();
      g_autoptr(JsonObject) envelope = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *hash = sha256 (blocked[i].code);
      g_autofree char *audit = g_strdup_printf ("eval audit: tool=electron_evaluate_main "
                                                "code_length=%zu code_sha256=%s",
                                                strlen (blocked[i].code), hash);
      JsonObject *details;

      g_ptr_array_set_size (logged, 0);
      json_object_set_string_member (arguments, blocked[i].field, blocked[i].code);
      envelope = stw_dispatcher_call_sync (dispatcher, "electron_evaluate_main", arguments, NULL, &error);
      g_assert_no_error (error);

      assert_code (envelope, "EVAL_BLOCKED_KEYWORD");
      g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, 400);
      g_assert_false (json_object_get_boolean_member (envelope, "retryable"));
      details = json_object_get_object_member (envelope, "details");
      g_assert_nonnull (details);
      g_assert_cmpstr (json_object_get_string_member (details, "keyword"), ==, blocked[i].keyword);
      g_assert_cmpstr (json_object_get_string_member (details, "code_hash"), ==, hash);
      g_assert_nonnull (strstr (json_object_get_string_member (envelope, "error"), blocked[i].keyword));

      /* Audited on stderr by hash and length, never by content. */
      g_assert_cmpuint (count_logged (audit), ==, 1);
      for (guint j = 0; j < logged->len; j++)
        g_assert_null (strstr (g_ptr_array_index (logged, j), blocked[i].code));
    }
  g_assert_cmpuint (tool->n_invoked, ==, 0);

  /* Clean code passes, and is audited too. */
  {
    g_autoptr(JsonObject) envelope = NULL;
    g_autofree char *hash = sha256 ("document.title");
    g_autofree char *audit = g_strdup_printf ("code_length=14 code_sha256=%s", hash);

    g_ptr_array_set_size (logged, 0);
    envelope = call (dispatcher, "electron_evaluate_main", "{\"code\": \"document.title\"}");
    assert_ok (envelope);
    g_assert_cmpuint (tool->n_invoked, ==, 1);
    g_assert_cmpuint (count_logged (audit), ==, 1);
  }

  /* The keyword check is for eval tools only. */
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "aa_app_tool", "{\"code\": \"process.exit(1)\"}");
    assert_ok (envelope);
  }
}

static TestTool *
eval_tool_with_argument (const char *name,
                         const char *code_argument,
                         const char *schema_json)
{
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (schema_json, NULL);

  g_assert_nonnull (schema);
  return g_object_new (TEST_TYPE_TOOL,
                       "name", name,
                       "description", "Runs a snippet.",
                       "operation-type", STW_OPERATION_EVAL,
                       "eval-target", STW_EVAL_TARGET_RENDERER,
                       "code-argument", code_argument,
                       "input-schema", schema,
                       NULL);
}

/* A tool declares which argument holds its code, and the dispatcher guards
 * exactly that one: a plugin cannot slip past by naming its field
 * differently, and cannot register an eval tool that names none. */
static void
test_eval_code_argument (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  static const char snippet_schema[] =
    "{\"type\":\"object\",\"properties\":{\"snippet\":{\"type\":\"string\"},"
    "\"code\":{\"type\":\"string\"}},\"required\":[\"snippet\"],\"additionalProperties\":false}";
  g_autoptr(TestTool) plugin = eval_tool_with_argument ("plugin_run", "snippet", snippet_schema);

  g_assert_cmpstr (stw_tool_get_code_argument (STW_TOOL (plugin)), ==, "snippet");

  /* Refused at registration: an eval tool without a code argument, one
   * whose schema lacks it or offers it as something else than a string,
   * and a non-eval tool that names one. */
  {
    g_autoptr(TestTool) unnamed = eval_tool_with_argument ("plugin_a", NULL, snippet_schema);
    g_autoptr(TestTool) missing = eval_tool_with_argument ("plugin_b", "source", snippet_schema);
    g_autoptr(TestTool) number = eval_tool_with_argument ("plugin_c", "snippet",
                                                          "{\"type\":\"object\",\"properties\":"
                                                          "{\"snippet\":{\"type\":\"integer\"}}}");
    g_autoptr(TestTool) no_props = eval_tool_with_argument ("plugin_d", "snippet", "{\"type\":\"object\"}");
    g_autoptr(TestTool) query = g_object_new (TEST_TYPE_TOOL,
                                              "name", "plugin_e",
                                              "operation-type", STW_OPERATION_QUERY,
                                              "code-argument", "snippet",
                                              NULL);

    assert_add_refused (dispatcher, unnamed, G_IO_ERROR_INVALID_ARGUMENT);
    assert_add_refused (dispatcher, missing, G_IO_ERROR_INVALID_ARGUMENT);
    assert_add_refused (dispatcher, number, G_IO_ERROR_INVALID_ARGUMENT);
    assert_add_refused (dispatcher, no_props, G_IO_ERROR_INVALID_ARGUMENT);
    assert_add_refused (dispatcher, query, G_IO_ERROR_INVALID_ARGUMENT);
  }

  add_tool (dispatcher, plugin);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_RENDERER);

  /* Blocked code under the tool's own argument name is refused, and
   * audited by hash. */
  {
    static const char code[] = "process.exit(1)";
    g_autofree char *hash = sha256 (code);
    g_autofree char *audit = g_strdup_printf ("eval audit: tool=plugin_run code_length=%zu code_sha256=%s",
                                              strlen (code), hash);
    g_autoptr(JsonObject) envelope = NULL;

    g_ptr_array_set_size (logged, 0);
    envelope = call (dispatcher, "plugin_run", "{\"snippet\": \"process.exit(1)\", \"code\": \"1\"}");
    assert_code (envelope, "EVAL_BLOCKED_KEYWORD");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (envelope, "details"),
                                                    "code_hash"), ==, hash);
    g_assert_cmpuint (count_logged (audit), ==, 1);
    g_assert_cmpuint (plugin->n_invoked, ==, 0);
  }

  /* The guard reads tokens: a computed key is folded, a string is text. */
  {
    g_autoptr(JsonObject) folded = call (dispatcher, "plugin_run",
                                         "{\"snippet\": \"process['ex' + 'it'](1)\"}");
    g_autoptr(JsonObject) text = NULL;

    assert_code (folded, "EVAL_BLOCKED_KEYWORD");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (folded, "details"),
                                                    "keyword"), ==, "process.exit");
    g_assert_cmpuint (plugin->n_invoked, ==, 0);
    text = call (dispatcher, "plugin_run", "{\"snippet\": \"return 'process.exit(1)' // eval(x)\"}");
    assert_ok (text);
    g_assert_cmpuint (plugin->n_invoked, ==, 1);
  }

  /* Other arguments are data, not code: the tool does not run them. */
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "plugin_run",
                                           "{\"snippet\": \"1 + 1\", \"code\": \"process.exit(1)\"}");
    assert_ok (envelope);
    g_assert_cmpuint (plugin->n_invoked, ==, 2);
  }

  /* Over the cap, refused before any scan or audit. */
  {
    g_autoptr(JsonObject) arguments = json_object_new ();
    g_autoptr(JsonObject) envelope = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree char *big = g_strnfill (100001, 'x');

    g_ptr_array_set_size (logged, 0);
    json_object_set_string_member (arguments, "snippet", big);
    envelope = stw_dispatcher_call_sync (dispatcher, "plugin_run", arguments, NULL, &error);
    g_assert_no_error (error);
    assert_code (envelope, "BAD_ARGUMENT");
    g_assert_cmpuint (count_logged ("eval audit"), ==, 0);
    g_assert_cmpuint (plugin->n_invoked, ==, 2);
  }

  /* Code that is not JavaScript is refused before it runs, audited. */
  {
    g_autoptr(JsonObject) envelope = NULL;

    g_ptr_array_set_size (logged, 0);
    envelope = call (dispatcher, "plugin_run", "{\"snippet\": \"return 'unterminated\"}");
    assert_code (envelope, "EVAL_SYNTAX_ERROR");
    g_assert_cmpuint (count_logged ("eval audit: tool=plugin_run"), ==, 1);
    g_assert_cmpuint (plugin->n_invoked, ==, 2);
  }
}

typedef struct
{
  guint n_calls;
  guint n_destroyed;
} GuardData;

static gboolean
refuse_loops (StwDispatcher  *dispatcher,
              StwTool        *tool,
              JsonObject     *arguments,
              gpointer        user_data,
              GError        **error)
{
  GuardData *data = user_data;
  const char *code = json_object_get_string_member_with_default (arguments, "code", "");

  data->n_calls++;
  if (strstr (code, "while (true)") != NULL)
    {
      g_autoptr(JsonObject) details = json_object_new ();
      GError *refusal = stw_error_new_literal ("EVAL_BLOCKED_CONSTRUCT", "Infinite loop");

      json_object_set_string_member (details, "construct", "while (true)");
      stw_error_set_details (refusal, details);
      g_propagate_error (error, refusal);
      return FALSE;
    }
  return TRUE;
}

static void
guard_destroyed (gpointer user_data)
{
  GuardData *data = user_data;

  data->n_destroyed++;
}

static void
test_eval_guard (void)
{
  StwDispatcher *dispatcher = stw_dispatcher_new ();
  GuardData first = { 0 };
  GuardData second = { 0 };
  g_autoptr(JsonObject) loop = NULL;
  g_autoptr(JsonObject) fine = NULL;
  g_autoptr(JsonObject) keyword = NULL;

  add_profile_fixture (dispatcher);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_RENDERER);
  stw_dispatcher_set_eval_guard (dispatcher, refuse_loops, &first, guard_destroyed);

  loop = call (dispatcher, "electron_evaluate_renderer", "{\"code\": \"while (true) {}\"}");
  assert_code (loop, "EVAL_BLOCKED_CONSTRUCT");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (loop, "details"),
                                                  "construct"), ==, "while (true)");
  fine = call (dispatcher, "electron_evaluate_renderer", "{\"code\": \"1 + 1\"}");
  assert_ok (fine);
  g_assert_cmpuint (first.n_calls, ==, 2);

  /* The built-in guard runs first: the installed one never sees blocked code. */
  keyword = call (dispatcher, "electron_evaluate_renderer", "{\"code\": \"eval('x')\"}");
  assert_code (keyword, "EVAL_BLOCKED_KEYWORD");
  g_assert_cmpuint (first.n_calls, ==, 2);

  /* Replacing the guard releases the old one; finalizing the new one. */
  stw_dispatcher_set_eval_guard (dispatcher, refuse_loops, &second, guard_destroyed);
  g_assert_cmpuint (first.n_destroyed, ==, 1);
  g_assert_cmpuint (second.n_destroyed, ==, 0);
  g_object_unref (dispatcher);
  g_assert_cmpuint (first.n_destroyed, ==, 1);
  g_assert_cmpuint (second.n_destroyed, ==, 1);
}

/* The backstop and cancellation {{{1 */

static void
test_backstop (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("hang_tool", TEST_MODE_NEVER);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) late = json_object_new ();
  CallRecorder recorder = { 0 };
  Outcome outcome = { 0 };
  JsonObject *details;
  JsonObject *meta;

  call_recorder_connect (&recorder, dispatcher);
  g_object_set (dispatcher, "operation-timeout-ms", 50, NULL);
  g_assert_cmpuint (stw_dispatcher_get_operation_timeout_ms (dispatcher), ==, 50);

  invocation = stw_dispatcher_create_invocation (dispatcher, "hang_tool", NULL, &error);
  g_assert_no_error (error);
  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, on_invoke_done, &outcome);
  g_assert_true (tool->pending == invocation);
  g_assert_false (g_cancellable_is_cancelled (stw_invocation_get_cancellable (invocation)));
  iterate_until (&outcome.done);

  g_assert_no_error (outcome.error);
  assert_code (outcome.envelope, "OPERATION_TIMEOUT");
  g_assert_cmpint (json_object_get_int_member (outcome.envelope, "http"), ==, 408);
  g_assert_true (json_object_get_boolean_member (outcome.envelope, "retryable"));
  g_assert_nonnull (strstr (json_object_get_string_member (outcome.envelope, "error"), "hang_tool"));
  details = json_object_get_object_member (outcome.envelope, "details");
  g_assert_nonnull (details);
  g_assert_cmpint (json_object_get_int_member (details, "timeout_ms"), ==, 50);
  meta = json_object_get_object_member (outcome.envelope, "_meta");
  g_assert_cmpint (json_object_get_int_member (meta, "elapsed_ms"), >=, 50);

  /* The tool is told to stop. */
  g_assert_true (stw_invocation_is_completed (invocation));
  g_assert_true (g_cancellable_is_cancelled (stw_invocation_get_cancellable (invocation)));
  g_assert_cmpuint (recorder.n_started, ==, 1);
  g_assert_cmpuint (recorder.n_finished, ==, 1);
  g_assert_true (recorder.envelope == outcome.envelope);

  /* A late answer is dropped: same envelope, no second completion. */
  json_object_set_string_member (late, "too", "late");
  stw_invocation_return_value (tool->pending, late);
  stw_invocation_return_error_literal (tool->pending, "NOT_RUNNING", NULL);
  stw_invocation_report_progress (tool->pending, 1, 1, "ignored");
  stw_test_iterate_for (20);
  g_assert_true (stw_invocation_get_envelope (invocation) == recorder.envelope);
  g_assert_cmpstr (json_object_get_string_member (stw_invocation_get_envelope (invocation), "code"),
                   ==, "OPERATION_TIMEOUT");
  g_assert_cmpuint (recorder.n_finished, ==, 1);

  /* The breadcrumb names the tool. */
  g_assert_cmpstr (json_object_get_string_member (stw_dispatcher_get_last_error (dispatcher), "code"),
                   ==, "OPERATION_TIMEOUT");

  g_clear_object (&tool->pending);
  outcome_clear (&outcome);
  call_recorder_clear (&recorder);
}

static void
test_backstop_sync (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("hang_tool", TEST_MODE_NEVER);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(JsonObject) quick = NULL;
  g_autoptr(TestTool) fast = test_tool_new ("fast_tool", TEST_MODE_ECHO);
  gint64 start = g_get_monotonic_time ();

  stw_dispatcher_set_operation_timeout_ms (dispatcher, 30);
  envelope = call (dispatcher, "hang_tool", NULL);
  assert_code (envelope, "OPERATION_TIMEOUT");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (envelope, "details"),
                                               "timeout_ms"), ==, 30);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 30 * 1000);
  g_assert_true (g_cancellable_is_cancelled (stw_invocation_get_cancellable (tool->pending)));
  g_clear_object (&tool->pending);

  /* A fast call is not affected by the backstop (nor is it left armed). */
  add_tool (dispatcher, fast);
  quick = call (dispatcher, "fast_tool", NULL);
  assert_ok (quick);
  stw_test_iterate_for (60);

  /* 0 disables the backstop. */
  stw_dispatcher_set_operation_timeout_ms (dispatcher, 0);
  g_assert_cmpuint (stw_dispatcher_get_operation_timeout_ms (dispatcher), ==, 0);
}

static gboolean
cancel_soon (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel_by_caller (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("hang_tool", TEST_MODE_NEVER);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) late = json_object_new ();
  CallRecorder recorder = { 0 };
  Outcome outcome = { 0 };

  call_recorder_connect (&recorder, dispatcher);
  stw_dispatcher_set_operation_timeout_ms (dispatcher, 5000);

  invocation = stw_dispatcher_create_invocation (dispatcher, "hang_tool", NULL, NULL);
  g_assert_nonnull (invocation);
  stw_dispatcher_invoke_async (dispatcher, invocation, cancellable, on_invoke_done, &outcome);
  g_timeout_add (10, cancel_soon, cancellable);
  iterate_until (&outcome.done);

  /* The caller gets G_IO_ERROR_CANCELLED and no envelope; call-finished is
   * not emitted, as nobody is waiting for an answer. */
  g_assert_error (outcome.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (outcome.envelope);
  g_assert_cmpuint (recorder.n_started, ==, 1);
  g_assert_cmpuint (recorder.n_finished, ==, 0);
  g_assert_null (stw_dispatcher_get_last_error (dispatcher));

  /* The tool learns through its cancellable; its late answer is dropped. */
  g_assert_true (stw_invocation_is_completed (invocation));
  g_assert_true (g_cancellable_is_cancelled (stw_invocation_get_cancellable (invocation)));
  stw_invocation_return_value (tool->pending, late);
  g_assert_null (stw_invocation_get_envelope (invocation));
  stw_test_iterate_for (20);
  g_assert_cmpuint (recorder.n_finished, ==, 0);

  g_clear_object (&tool->pending);
  outcome_clear (&outcome);
  call_recorder_clear (&recorder);
}

typedef struct
{
  GCancellable  *cancellable;
  StwInvocation *invocation;
  gboolean       tool_knew;
} CancelNow;

static gboolean
cancel_and_look (gpointer user_data)
{
  CancelNow *now = user_data;

  g_cancellable_cancel (now->cancellable);
  now->tool_knew = g_cancellable_is_cancelled (stw_invocation_get_cancellable (now->invocation));
  return G_SOURCE_REMOVE;
}

/* Cancelled in the call's own context, the tool learns inside the cancel,
 * before anything else runs: a request read right behind the cancel (a
 * new launch) must not find the cancelled one still holding its slot. */
static void
test_cancel_reaches_tool_at_once (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("hang_tool", TEST_MODE_NEVER);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  CancelNow now = { 0 };
  Outcome outcome = { 0 };

  invocation = stw_dispatcher_create_invocation (dispatcher, "hang_tool", NULL, NULL);
  stw_dispatcher_invoke_async (dispatcher, invocation, cancellable, on_invoke_done, &outcome);
  now.cancellable = cancellable;
  now.invocation = invocation;
  g_timeout_add (10, cancel_and_look, &now);
  iterate_until (&outcome.done);

  g_assert_true (now.tool_knew);
  g_assert_error (outcome.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (outcome.envelope);
  g_assert_true (stw_invocation_is_completed (invocation));
  g_clear_object (&tool->pending);
  outcome_clear (&outcome);
}

static void
test_cancel_before_start (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("echo_tool", TEST_MODE_ECHO);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) envelope = NULL;

  g_cancellable_cancel (cancellable);
  envelope = stw_dispatcher_call_sync (dispatcher, "echo_tool", NULL, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (envelope);
  g_assert_cmpuint (tool->n_invoked, ==, 0);
}

static void
test_cancel_after_answer (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("idle_tool", TEST_MODE_IDLE);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(StwInvocation) invocation = NULL;
  Outcome outcome = { 0 };

  invocation = stw_dispatcher_create_invocation (dispatcher, "idle_tool", NULL, NULL);
  stw_dispatcher_invoke_async (dispatcher, invocation, cancellable, on_invoke_done, &outcome);
  iterate_until (&outcome.done);
  g_assert_no_error (outcome.error);
  assert_ok (outcome.envelope);

  /* Too late to matter. */
  g_cancellable_cancel (cancellable);
  stw_test_iterate_for (10);
  g_assert_false (g_cancellable_is_cancelled (stw_invocation_get_cancellable (invocation)));
  outcome_clear (&outcome);
}

static void
test_remove_during_call (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("hang_tool", TEST_MODE_NEVER);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(StwInvocation) invocation = NULL;
  Outcome outcome = { 0 };

  stw_dispatcher_set_operation_timeout_ms (dispatcher, 20);
  invocation = stw_dispatcher_create_invocation (dispatcher, "hang_tool", NULL, NULL);
  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, on_invoke_done, &outcome);
  g_assert_true (stw_dispatcher_remove_tool (dispatcher, "hang_tool"));
  iterate_until (&outcome.done);

  assert_code (outcome.envelope, "OPERATION_TIMEOUT");
  g_assert_true (stw_invocation_get_tool (invocation) == STW_TOOL (tool));
  g_clear_object (&tool->pending);
  outcome_clear (&outcome);
}

/* Signals, breadcrumb, asynchronous tools {{{1 */

static void
test_call_signals (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("echo_tool", TEST_MODE_ECHO);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(JsonObject) arguments = stw_test_json_object_from ("{\"n\": 1}");
  CallRecorder recorder = { 0 };
  Outcome outcome = { 0 };

  call_recorder_connect (&recorder, dispatcher);
  invocation = stw_dispatcher_create_invocation (dispatcher, "echo_tool", arguments, NULL);
  g_assert_true (stw_invocation_get_dispatcher (invocation) == dispatcher);
  g_assert_true (stw_invocation_get_tool (invocation) == STW_TOOL (tool));
  g_assert_false (stw_invocation_is_completed (invocation));
  g_assert_null (stw_invocation_get_envelope (invocation));

  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, on_invoke_done, &outcome);
  g_assert_cmpuint (recorder.n_started, ==, 1);
  g_assert_true (recorder.started == invocation);
  /* Never completes inside invoke_async, even when the tool answers at once. */
  g_assert_false (outcome.done);
  iterate_until (&outcome.done);

  g_assert_no_error (outcome.error);
  assert_ok (outcome.envelope);
  g_assert_cmpuint (recorder.n_finished, ==, 1);
  g_assert_true (recorder.finished == invocation);
  g_assert_true (recorder.envelope == outcome.envelope);
  g_assert_true (stw_invocation_get_envelope (invocation) == outcome.envelope);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (outcome.envelope, "arguments"),
                                               "n"), ==, 1);

  outcome_clear (&outcome);
  call_recorder_clear (&recorder);
}

static void
test_last_error (void)
{
  g_autoptr(TestTool) failing = test_tool_new ("failing_tool", TEST_MODE_ERROR);
  g_autoptr(TestTool) fine = test_tool_new ("fine_tool", TEST_MODE_ECHO);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (failing);
  g_autoptr(JsonObject) failed = NULL;
  g_autoptr(JsonObject) passed = NULL;
  g_autoptr(GDateTime) at = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *names = NULL;
  JsonObject *breadcrumb;
  GString *members = g_string_new (NULL);

  add_tool (dispatcher, fine);
  failing->error_code = "SELECTOR_NO_MATCH";
  g_assert_null (stw_dispatcher_get_last_error (dispatcher));

  failed = call (dispatcher, "failing_tool", "{\"secret\": \"hunter2\"}");
  assert_code (failed, "SELECTOR_NO_MATCH");
  passed = call (dispatcher, "fine_tool", NULL);
  assert_ok (passed);

  /* {code, at, tool} of the last failure; successes do not clear it. */
  breadcrumb = stw_dispatcher_get_last_error (dispatcher);
  g_assert_nonnull (breadcrumb);
  {
    g_autoptr(GList) list = json_object_get_members (breadcrumb);
    for (const GList *l = list; l != NULL; l = l->next)
      g_string_append_printf (members, "%s%s", members->len ? "," : "", (const char *) l->data);
  }
  names = g_string_free (members, FALSE);
  g_assert_cmpstr (names, ==, "code,at,tool");
  g_assert_cmpstr (json_object_get_string_member (breadcrumb, "code"), ==, "SELECTOR_NO_MATCH");
  g_assert_cmpstr (json_object_get_string_member (breadcrumb, "tool"), ==, "failing_tool");
  at = g_date_time_new_from_iso8601 (json_object_get_string_member (breadcrumb, "at"), NULL);
  g_assert_nonnull (at);
  g_assert_cmpint (ABS (g_date_time_difference (now, at)), <, 60 * G_TIME_SPAN_SECOND);
}

static void
on_progress (StwInvocation *invocation,
             double         progress,
             double         total,
             const char    *message,
             GString       *seen)
{
  g_string_append_printf (seen, "%g/%g %s;", progress, total, message ? message : "-");
}

static void
test_async_idle_tool (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("idle_tool", TEST_MODE_IDLE);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(JsonObject) sync_envelope = NULL;
  GString *seen = g_string_new (NULL);
  Outcome outcome = { 0 };

  /* On the caller's main loop... */
  invocation = stw_dispatcher_create_invocation (dispatcher, "idle_tool", NULL, NULL);
  g_signal_connect (invocation, "progress", G_CALLBACK (on_progress), seen);
  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, on_invoke_done, &outcome);
  g_assert_false (stw_invocation_is_completed (invocation));
  iterate_until (&outcome.done);
  g_assert_no_error (outcome.error);
  assert_ok (outcome.envelope);
  g_assert_cmpstr (json_object_get_string_member (outcome.envelope, "answered"), ==, "later");
  g_assert_cmpstr (seen->str, ==, "1/2 half way;2/2 answering;");

  /* Progress after completion is not reported. */
  stw_invocation_report_progress (invocation, 3, 3, "after");
  g_assert_cmpstr (seen->str, ==, "1/2 half way;2/2 answering;");
  g_string_free (seen, TRUE);

  /* ...and in call_sync's private context. */
  sync_envelope = call (dispatcher, "idle_tool", NULL);
  assert_ok (sync_envelope);
  g_assert_cmpstr (json_object_get_string_member (sync_envelope, "answered"), ==, "later");
  g_assert_cmpuint (tool->n_invoked, ==, 2);
  outcome_clear (&outcome);
}

static void
test_tool_outcomes (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(TestTool) foreign = test_tool_new ("foreign_tool", TEST_MODE_FOREIGN);
  g_autoptr(TestTool) bad_json = test_tool_new ("bad_json_tool", TEST_MODE_BAD_JSON);
  g_autoptr(TestTool) session = test_tool_new ("session_tool", TEST_MODE_SESSION);
  g_autoptr(TestTool) twice = test_tool_new ("twice_tool", TEST_MODE_TWICE);
  g_autoptr(TestTool) retry = test_tool_new ("retry_tool", TEST_MODE_ERROR);
  g_autoptr(JsonObject) envelope = NULL;

  add_tool (dispatcher, foreign);
  add_tool (dispatcher, bad_json);
  add_tool (dispatcher, session);
  add_tool (dispatcher, twice);
  add_tool (dispatcher, retry);
  retry->error_code = "CDP_TIMEOUT";

  /* Errors outside STW_ERROR never reach the agent as they are. */
  envelope = call (dispatcher, "foreign_tool", NULL);
  assert_code (envelope, "INTERNAL_ERROR");
  g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, 500);
  g_clear_pointer (&envelope, json_object_unref);

  envelope = call (dispatcher, "bad_json_tool", NULL);
  assert_code (envelope, "INTERNAL_ERROR");
  g_clear_pointer (&envelope, json_object_unref);

  envelope = call (dispatcher, "retry_tool", NULL);
  assert_code (envelope, "CDP_TIMEOUT");
  g_assert_true (json_object_get_boolean_member (envelope, "retryable"));
  g_assert_cmpstr (json_object_get_string_member (envelope, "error"), ==, "failed on purpose");
  g_clear_pointer (&envelope, json_object_unref);

  envelope = call (dispatcher, "session_tool", NULL);
  assert_ok (envelope);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (envelope, "_meta"),
                                                  "session_id"), ==, "sess-42");
  g_clear_pointer (&envelope, json_object_unref);

  /* Only the first answer counts. */
  envelope = call (dispatcher, "twice_tool", NULL);
  assert_ok (envelope);
  g_assert_cmpint (json_object_get_int_member (envelope, "answer"), ==, 1);
  g_clear_pointer (&envelope, json_object_unref);
}

static void
test_plugin_error_from_tool (void)
{
  static const char * const codes[] = { "disptest.NOT_CAPTURING", NULL };
  g_autoptr(JsonObject) plugin_codes = stw_test_json_object_from (
    "{\"NOT_CAPTURING\": {\"http\": 409, \"retryable\": false, \"hint\": \"Start capturing first.\"}}");
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(TestTool) tool = test_tool_new_full ("disptest_stop", STW_OPERATION_COMMAND,
                                                 STW_EVAL_TARGET_NONE, open_schema, codes,
                                                 TEST_MODE_ERROR);
  g_autoptr(JsonObject) envelope = NULL;
  g_autofree char *description = NULL;

  g_assert_true (stw_error_registry_register_plugin_codes (stw_error_registry_get_default (),
                                                           "disptest", plugin_codes, NULL));
  add_tool (dispatcher, tool);
  tool->error_code = "disptest.NOT_CAPTURING";

  envelope = call (dispatcher, "disptest_stop", NULL);
  assert_code (envelope, "disptest.NOT_CAPTURING");
  g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, 409);
  g_assert_cmpstr (json_object_get_string_member (envelope, "hint"), ==, "Start capturing first.");

  description = stw_tool_dup_agent_description (STW_TOOL (tool));
  g_assert_cmpstr (description, ==, "Does what the test says. Errors: disptest.NOT_CAPTURING.");

  stw_error_registry_unregister_plugin_codes (stw_error_registry_get_default (), "disptest", plugin_codes);
}

/* Synchronous entry points {{{1 */

static void
test_call_sync_json (void)
{
  g_autoptr(TestTool) tool = test_tool_new ("echo_tool", TEST_MODE_ECHO);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  static const char * const not_objects[] = { "{", "[1]", "\"text\"", "42", "null", "{\"a\": \"\\x\"}" };
  static const char * const empty[] = { NULL, "" };

  {
    g_autoptr(GError) error = NULL;
    g_autofree char *text = stw_dispatcher_call_json_sync (dispatcher, "echo_tool",
                                                           "{\"a\": 1, \"s\": \"x\\ud800y\"}", NULL, &error);
    g_autoptr(JsonNode) node = NULL;
    JsonObject *arguments;

    g_assert_no_error (error);
    g_assert_nonnull (text);
    g_assert_null (strchr (text, '\n'));
    node = stw_json_parse (text, -1, &error);
    g_assert_no_error (error);
    g_assert_true (json_object_get_boolean_member (json_node_get_object (node), "ok"));
    arguments = json_object_get_object_member (json_node_get_object (node), "arguments");
    g_assert_cmpint (json_object_get_int_member (arguments, "a"), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (arguments, "s"), ==, "x\xef\xbf\xbdy");
  }

  for (guint i = 0; i < G_N_ELEMENTS (not_objects); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = stw_dispatcher_call_json_sync (dispatcher, "echo_tool", not_objects[i],
                                                             NULL, &error);
      g_assert_null (text);
      g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
    }
  g_assert_cmpuint (tool->n_invoked, ==, 1);

  for (guint i = 0; i < G_N_ELEMENTS (empty); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = stw_dispatcher_call_json_sync (dispatcher, "echo_tool", empty[i], NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (strstr (text, "\"arguments\":{}"));
    }

  /* Unknown tools are the caller's error, not an envelope. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GError) json_error = NULL;
    g_autoptr(JsonObject) envelope = stw_dispatcher_call_sync (dispatcher, "no_such_tool", NULL, NULL, &error);
    g_autofree char *text = stw_dispatcher_call_json_sync (dispatcher, "no_such_tool", "{}", NULL, &json_error);

    g_assert_null (envelope);
    g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
    g_assert_null (text);
    g_assert_error (json_error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(StwInvocation) invocation = stw_dispatcher_create_invocation (dispatcher, NULL, NULL, &error);

    g_assert_null (invocation);
    g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  }
}

static void
on_notify (GObject    *object,
           GParamSpec *pspec,
           GString    *seen)
{
  g_string_append_printf (seen, "%s;", pspec->name);
}

static void
test_properties (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  GString *seen = g_string_new (NULL);
  StwToolProfile profile;
  StwEvalTarget eval;
  guint timeout;
  g_autofree char *app_root = NULL;
  g_autofree char *screenshot_dir = NULL;
  gint64 now_ms = g_get_real_time () / 1000;

  g_assert_cmpint (stw_dispatcher_get_operation_timeout_ms (dispatcher), ==, 120000);
  g_assert_null (stw_dispatcher_get_app_root (dispatcher));
  g_assert_cmpint (ABS (stw_dispatcher_get_started_at (dispatcher) - now_ms), <, 60000);

  g_signal_connect (dispatcher, "notify", G_CALLBACK (on_notify), seen);
  g_object_set (dispatcher,
                "tool-profile", STW_TOOL_PROFILE_DEBUG,
                "allow-eval", STW_EVAL_TARGET_ALL,
                "operation-timeout-ms", 777,
                "app-root", "/srv/app",
                "screenshot-dir", "/tmp/shots",
                NULL);
  /* Each once (g_object_set() queues them, in no promised order). */
  {
    g_auto(GStrv) names = g_strsplit (seen->str, ";", -1);
    static const char * const expected[] = {
      "tool-profile", "allow-eval", "operation-timeout-ms", "app-root", "screenshot-dir",
    };

    g_assert_cmpuint (g_strv_length (names), ==, G_N_ELEMENTS (expected) + 1);
    for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
      g_assert_true (g_strv_contains ((const char * const *) names, expected[i]));
  }

  /* Setting the same values again notifies nothing. */
  g_string_truncate (seen, 0);
  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_DEBUG);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_ALL);
  stw_dispatcher_set_operation_timeout_ms (dispatcher, 777);
  stw_dispatcher_set_app_root (dispatcher, "/srv/app");
  stw_dispatcher_set_screenshot_dir (dispatcher, "/tmp/shots");
  g_assert_cmpstr (seen->str, ==, "");

  g_object_get (dispatcher,
                "tool-profile", &profile,
                "allow-eval", &eval,
                "operation-timeout-ms", &timeout,
                "app-root", &app_root,
                "screenshot-dir", &screenshot_dir,
                NULL);
  g_assert_cmpint (profile, ==, STW_TOOL_PROFILE_DEBUG);
  g_assert_cmpint (eval, ==, STW_EVAL_TARGET_ALL);
  g_assert_cmpuint (timeout, ==, 777);
  g_assert_cmpstr (app_root, ==, "/srv/app");
  g_assert_cmpstr (screenshot_dir, ==, "/tmp/shots");

  stw_dispatcher_set_app_root (dispatcher, NULL);
  g_assert_null (stw_dispatcher_get_app_root (dispatcher));
  g_assert_cmpstr (seen->str, ==, "app-root;");
  g_string_free (seen, TRUE);
}

static void
test_tool_manifest (void)
{
  static const char * const codes[] = { "NOT_RUNNING", "WAIT_TIMEOUT", NULL };
  g_autoptr(TestTool) query = test_tool_new_full ("m_query", STW_OPERATION_QUERY, STW_EVAL_TARGET_NONE,
                                                  open_schema, codes, TEST_MODE_ECHO);
  g_autoptr(TestTool) command = test_tool_new_full ("m_command", STW_OPERATION_COMMAND, STW_EVAL_TARGET_NONE,
                                                    NULL, NULL, TEST_MODE_ECHO);
  g_autoptr(JsonObject) manifest = stw_tool_to_manifest (STW_TOOL (query));
  g_autoptr(JsonObject) command_manifest = stw_tool_to_manifest (STW_TOOL (command));
  JsonObject *annotations = json_object_get_object_member (manifest, "annotations");
  JsonObject *schema;

  g_assert_cmpstr (json_object_get_string_member (manifest, "name"), ==, "m_query");
  g_assert_cmpstr (json_object_get_string_member (manifest, "description"), ==,
                   "Does what the test says. Errors: NOT_RUNNING, WAIT_TIMEOUT.");
  g_assert_true (json_object_get_boolean_member (annotations, "readOnlyHint"));
  /* MCP's defaults: openWorldHint true, and no idempotentHint or
   * destructiveHint for a read-only tool. */
  g_assert_false (json_object_has_member (annotations, "openWorldHint"));
  g_assert_true (stw_tool_get_open_world_hint (STW_TOOL (query)));
  g_assert_false (json_object_has_member (annotations, "destructiveHint"));
  g_assert_false (json_object_has_member (annotations, "idempotentHint"));

  /* MCP's defaults are left unsaid: a command is not read-only unless
   * it says so. */
  annotations = json_object_get_object_member (command_manifest, "annotations");
  g_assert_false (json_object_has_member (annotations, "readOnlyHint"));
  g_assert_false (json_object_get_boolean_member (annotations, "destructiveHint"));
  /* No schema given: an empty object schema that refuses extra keys; the
   * listing leaves the refusal unsaid (the instructions say it once). */
  schema = json_object_get_object_member (command_manifest, "inputSchema");
  g_assert_cmpstr (json_object_get_string_member (schema, "type"), ==, "object");
  g_assert_false (json_object_has_member (schema, "additionalProperties"));
  schema = json_node_get_object (stw_schema_get_node (stw_tool_get_input_schema (STW_TOOL (command))));
  g_assert_false (json_object_get_boolean_member (schema, "additionalProperties"));
  g_assert_cmpstr (json_object_get_string_member (command_manifest, "description"), ==,
                   "Does what the test says.");
}

/* The listing says what an agent needs to form a call (names, types,
 * enums, what is required) and leaves bounds and defaults to the
 * dispatcher, which still enforces them and names the one broken. */
static void
test_tool_manifest_lean_schema (void)
{
  g_autoptr(TestTool) tool = test_tool_new_full (
    "lean_tool", STW_OPERATION_COMMAND, STW_EVAL_TARGET_NONE,
    "{\"type\":\"object\",\"required\":[\"minimum\"],\"properties\":{"
    "\"minimum\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3,\"default\":2},"
    "\"mode\":{\"enum\":[\"a\",\"b\"]},"
    "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":9},"
    "\"fields\":{\"type\":\"array\",\"maxItems\":4,\"items\":{\"type\":\"object\","
    "\"properties\":{\"ref\":{\"type\":\"integer\",\"minimum\":1}},\"additionalProperties\":false}}},"
    "\"additionalProperties\":false}",
    NULL, TEST_MODE_ECHO);
  g_autoptr(JsonObject) manifest = stw_tool_to_manifest (STW_TOOL (tool));
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(JsonObject) over = call (dispatcher, "lean_tool", "{\"minimum\": 4}");
  g_autoptr(JsonObject) nested = call (dispatcher, "lean_tool", "{\"minimum\": 1, \"fields\": [{\"ref\": 0}]}");
  g_autoptr(JsonObject) fine = call (dispatcher, "lean_tool", "{\"minimum\": 3, \"fields\": [{\"ref\": 1}]}");
  JsonNode *listed = json_object_get_member (manifest, "inputSchema");

  stw_test_assert_json_equal (listed,
    "{\"type\":\"object\",\"required\":[\"minimum\"],\"properties\":{"
    "\"minimum\":{\"type\":\"integer\"},\"mode\":{\"enum\":[\"a\",\"b\"]},\"name\":{\"type\":\"string\"},"
    "\"fields\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"ref\":{\"type\":\"integer\"}}}}}}");
  /* The tool's own schema is untouched: the listing is a copy. */
  g_assert_true (json_object_has_member (json_object_get_object_member (json_object_get_object_member (
    json_node_get_object (stw_schema_get_node (stw_tool_get_input_schema (STW_TOOL (tool)))), "properties"), "minimum"), "maximum"));

  assert_code (over, "BAD_ARGUMENT");
  g_assert_nonnull (strstr (json_object_get_string_member (over, "error"), "minimum"));
  assert_code (nested, "BAD_ARGUMENT");
  assert_ok (fine);
  g_assert_cmpuint (tool->n_invoked, ==, 1);
}

/* The essential profile drives one app at a time: its listing leaves out
 * the arguments that matter only when several run, and the tool still
 * takes them. */
static void
test_tool_manifest_essential (void)
{
  g_autoptr(TestTool) tool = test_tool_new_full (
    "one_app_tool", STW_OPERATION_COMMAND, STW_EVAL_TARGET_NONE,
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"sessionId\":{\"type\":\"string\"},\"allowMultiple\":{\"type\":\"boolean\"},"
    "\"ref\":{\"type\":\"integer\"}}}",
    NULL, TEST_MODE_ECHO);
  g_autoptr(JsonObject) essential = stw_tool_to_manifest_for_profile (STW_TOOL (tool), STW_TOOL_PROFILE_ESSENTIAL);
  g_autoptr(JsonObject) full = stw_tool_to_manifest (STW_TOOL (tool));
  g_autoptr(JsonObject) testing = stw_tool_to_manifest_for_profile (STW_TOOL (tool), STW_TOOL_PROFILE_TESTING);
  g_autoptr(StwDispatcher) dispatcher = dispatcher_with (tool);
  g_autoptr(JsonObject) accepted = NULL;
  g_autoptr(JsonObject) refused = NULL;

  stw_test_assert_json_equal (json_object_get_member (essential, "inputSchema"),
                              "{\"type\":\"object\",\"properties\":{\"ref\":{\"type\":\"integer\"}}}");
  stw_test_assert_json_equal (json_object_get_member (full, "inputSchema"),
                              "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
                              "\"allowMultiple\":{\"type\":\"boolean\"},\"ref\":{\"type\":\"integer\"}}}");
  stw_test_assert_json_equal (json_object_get_member (testing, "inputSchema"),
                              "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
                              "\"allowMultiple\":{\"type\":\"boolean\"},\"ref\":{\"type\":\"integer\"}}}");

  /* Unlisted is not refused: the dispatcher validates with the whole
   * schema, whatever the profile. Other unlisted names still are. */
  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_ESSENTIAL);
  accepted = call (dispatcher, "one_app_tool", "{\"sessionId\": \"x\", \"allowMultiple\": true, \"ref\": 1}");
  assert_ok (accepted);
  refused = call (dispatcher, "one_app_tool", "{\"windowId\": \"x\"}");
  assert_code (refused, "BAD_ARGUMENT");
}

/* Providers {{{1 */

static TestTool *
provider_tool_new (const char         *name,
                   const char * const *error_codes,
                   TestMode            mode)
{
  return test_tool_new_full (name, STW_OPERATION_QUERY, STW_EVAL_TARGET_NONE, open_schema,
                             error_codes, mode);
}

/* A provider "<name>" with the code <name>.GONE and two tools: <name>_fail,
 * which returns it, and <name>_echo. */
static StwToolProvider *
test_provider_new (const char *name)
{
  g_autoptr(StwToolProvider) provider = stw_tool_provider_new (name);
  g_autofree char *gone = g_strconcat (name, ".GONE", NULL);
  const char * const codes[] = { gone, "NOT_RUNNING", NULL };
  g_autofree char *fail_name = g_strconcat (name, "_fail", NULL);
  g_autofree char *echo_name = g_strconcat (name, "_echo", NULL);
  g_autoptr(TestTool) fail = provider_tool_new (fail_name, codes, TEST_MODE_ERROR);
  g_autoptr(TestTool) echo = provider_tool_new (echo_name, NULL, TEST_MODE_ECHO);
  g_autoptr(GError) error = NULL;

  fail->error_code = g_intern_string (gone);
  g_assert_true (stw_tool_provider_add_error_code (provider, "GONE", 410, FALSE, "It went away.", &error));
  g_assert_no_error (error);
  g_assert_true (stw_tool_provider_add_tool (provider, STW_TOOL (fail), &error));
  g_assert_no_error (error);
  g_assert_true (stw_tool_provider_add_tool (provider, STW_TOOL (echo), &error));
  g_assert_no_error (error);
  return g_steal_pointer (&provider);
}

static gboolean
registered (const char *code)
{
  return stw_error_registry_contains (stw_error_registry_get_default (), code);
}

static void
test_provider_add_remove (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwToolProvider) provider = test_provider_new ("provtest");
  g_autoptr(JsonObject) failed = NULL;
  g_autoptr(JsonObject) echoed = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GList) tools = stw_tool_provider_list_tools (provider);
  ToolSignals signals = { 0 };
  guint http = 0;
  gboolean retryable = TRUE;
  const char *hint = NULL;

  g_signal_connect (dispatcher, "tool-added", G_CALLBACK (on_tool_added), &signals);
  g_signal_connect (dispatcher, "tool-removed", G_CALLBACK (on_tool_removed), &signals);

  g_assert_cmpstr (stw_tool_provider_get_name (provider), ==, "provtest");
  g_assert_cmpuint (g_list_length (tools), ==, 2);
  g_assert_cmpstr (stw_tool_get_name (tools->data), ==, "provtest_fail");
  g_assert_cmpuint (json_object_get_size (stw_tool_provider_get_error_codes (provider)), ==, 1);
  g_assert_false (registered ("provtest.GONE"));
  g_assert_false (stw_tool_provider_is_in_use (provider));

  /* In: both tools announced, the code registered as <provider>.CODE. */
  g_assert_true (stw_dispatcher_add_provider (dispatcher, provider, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (signals.n_added, ==, 2);
  g_assert_true (stw_dispatcher_lookup_tool (dispatcher, "provtest_fail") == tools->data);
  g_assert_true (stw_dispatcher_lookup_tool (dispatcher, "provtest_echo") == tools->next->data);
  g_assert_true (stw_dispatcher_lookup_provider (dispatcher, "provtest") == provider);
  g_assert_null (stw_dispatcher_lookup_provider (dispatcher, "electron"));
  g_assert_true (stw_tool_provider_is_in_use (provider));
  g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (), "provtest.GONE",
                                            &http, &retryable, &hint));
  g_assert_cmpuint (http, ==, 410);
  g_assert_false (retryable);
  g_assert_cmpstr (hint, ==, "It went away.");

  /* Its tools are called like any other, and its code reaches the agent. */
  failed = call (dispatcher, "provtest_fail", NULL);
  assert_code (failed, "provtest.GONE");
  g_assert_cmpint (json_object_get_int_member (failed, "http"), ==, 410);
  g_assert_cmpstr (json_object_get_string_member (failed, "hint"), ==, "It went away.");
  echoed = call (dispatcher, "provtest_echo", "{\"x\": 1}");
  assert_ok (echoed);

  /* Frozen while in use. */
  {
    g_autoptr(TestTool) late = provider_tool_new ("provtest_late", NULL, TEST_MODE_ECHO);

    g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL, "*is_in_use*");
    g_assert_false (stw_tool_provider_add_tool (provider, STW_TOOL (late), NULL));
    g_test_assert_expected_messages ();
    g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL, "*is_in_use*");
    g_assert_false (stw_tool_provider_add_error_code (provider, "LATE", 500, FALSE, "Late.", NULL));
    g_test_assert_expected_messages ();
    g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "provtest_late"));
  }

  /* Out: both tools removed and announced, the code unregistered. */
  g_assert_true (stw_dispatcher_remove_provider (dispatcher, provider));
  g_assert_cmpuint (signals.n_removed, ==, 2);
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "provtest_fail"));
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "provtest_echo"));
  g_assert_null (stw_dispatcher_lookup_provider (dispatcher, "provtest"));
  g_assert_false (registered ("provtest.GONE"));
  g_assert_false (stw_tool_provider_is_in_use (provider));
  g_assert_false (stw_dispatcher_remove_provider (dispatcher, provider));
  g_assert_cmpuint (signals.n_removed, ==, 2);

  /* Removing takes only the provider's own tools: one replaced by hand stays. */
  g_assert_true (stw_dispatcher_add_provider (dispatcher, provider, &error));
  g_assert_no_error (error);
  g_assert_true (stw_dispatcher_remove_tool (dispatcher, "provtest_echo"));
  {
    g_autoptr(TestTool) replacement = test_tool_new ("provtest_echo", TEST_MODE_ECHO);

    add_tool (dispatcher, replacement);
    signals.n_removed = 0;
    g_assert_true (stw_dispatcher_remove_provider (dispatcher, provider));
    g_assert_cmpuint (signals.n_removed, ==, 1);
    g_assert_true (stw_dispatcher_lookup_tool (dispatcher, "provtest_echo") == STW_TOOL (replacement));
    g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "provtest_fail"));
  }
  g_assert_false (registered ("provtest.GONE"));
}

static void
test_provider_shared (void)
{
  g_autoptr(StwToolProvider) provider = test_provider_new ("sharetest");
  g_autoptr(StwDispatcher) first = stw_dispatcher_new ();
  g_autoptr(StwDispatcher) second = stw_dispatcher_new ();
  g_autoptr(GError) error = NULL;

  /* Two dispatchers hold the code once each (the registry counts). */
  g_assert_true (stw_dispatcher_add_provider (first, provider, &error));
  g_assert_no_error (error);
  g_assert_true (stw_dispatcher_add_provider (second, provider, &error));
  g_assert_no_error (error);
  g_assert_true (registered ("sharetest.GONE"));

  g_assert_true (stw_dispatcher_remove_provider (first, provider));
  g_assert_true (registered ("sharetest.GONE"));
  g_assert_true (stw_tool_provider_is_in_use (provider));
  g_assert_nonnull (stw_dispatcher_lookup_tool (second, "sharetest_fail"));

  /* A dispatcher going away gives its providers' codes back. */
  g_clear_object (&second);
  g_assert_false (registered ("sharetest.GONE"));
  g_assert_false (stw_tool_provider_is_in_use (provider));
}

typedef struct
{
  const char *label;
  int         domain;   /* 0: G_IO_ERROR, 1: STW_ERROR */
  int         code;
} Refusal;

/* Adding @provider fails as @refusal says, and nothing of it stays. */
static void
assert_provider_refused (StwDispatcher   *dispatcher,
                         StwToolProvider *provider,
                         const Refusal   *refusal)
{
  g_autoptr(GList) tools = stw_tool_provider_list_tools (provider);
  g_autoptr(GList) before = stw_dispatcher_list_tools (dispatcher);
  g_autoptr(GList) after = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *codes = stw_tool_provider_get_error_codes (provider);
  g_autoptr(GList) bare = json_object_get_members (codes);
  const char *name = stw_tool_provider_get_name (provider);
  ToolSignals signals = { 0 };
  gulong id;

  g_test_message ("refusal: %s", refusal->label);
  id = g_signal_connect (dispatcher, "tool-added", G_CALLBACK (on_tool_added), &signals);
  g_assert_false (stw_dispatcher_add_provider (dispatcher, provider, &error));
  g_signal_handler_disconnect (dispatcher, id);
  g_assert_nonnull (error);
  g_test_message ("refused: %s", error->message);
  if (refusal->domain == 0)
    g_assert_error (error, G_IO_ERROR, refusal->code);
  else
    g_assert_error (error, STW_ERROR, refusal->code);

  g_assert_cmpuint (signals.n_added, ==, 0);
  after = stw_dispatcher_list_tools (dispatcher);
  g_assert_cmpuint (g_list_length (after), ==, g_list_length (before));
  for (const GList *l = tools; l != NULL; l = l->next)
    g_assert_true (stw_dispatcher_lookup_tool (dispatcher, stw_tool_get_name (l->data)) != l->data);
  for (const GList *l = bare; l != NULL && name != NULL; l = l->next)
    {
      g_autofree char *full = g_strconcat (name, ".", (const char *) l->data, NULL);
      g_assert_false (registered (full));
    }
  g_assert_true (name == NULL || stw_dispatcher_lookup_provider (dispatcher, name) != provider);
  g_assert_false (stw_tool_provider_is_in_use (provider));
}

static void
test_provider_refused (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(TestTool) taken = test_tool_new ("refusetest_echo", TEST_MODE_ECHO);
  g_autoptr(GError) error = NULL;

  add_tool (dispatcher, taken);

  /* A tool name already taken: nothing of the provider, its code included. */
  {
    static const Refusal refusal = { "a tool name is taken", 0, G_IO_ERROR_EXISTS };
    g_autoptr(StwToolProvider) provider = test_provider_new ("refusetest");

    assert_provider_refused (dispatcher, provider, &refusal);
    g_assert_true (stw_dispatcher_lookup_tool (dispatcher, "refusetest_echo") == STW_TOOL (taken));
    g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "refusetest_fail"));

    /* Refused, not frozen: once the clash is gone it goes in whole. */
    g_assert_true (stw_dispatcher_remove_tool (dispatcher, "refusetest_echo"));
    g_assert_true (stw_dispatcher_add_provider (dispatcher, provider, &error));
    g_assert_no_error (error);
    g_assert_true (registered ("refusetest.GONE"));

    /* A second provider of the same name. */
    {
      static const Refusal again = { "the provider name is taken", 0, G_IO_ERROR_EXISTS };
      g_autoptr(StwToolProvider) twin = stw_tool_provider_new ("refusetest");

      assert_provider_refused (dispatcher, twin, &again);
      g_assert_true (registered ("refusetest.GONE"));
    }
    g_assert_true (stw_dispatcher_remove_provider (dispatcher, provider));
  }

  /* An error code registered differently: nothing of the provider. */
  {
    static const Refusal refusal = { "a code conflicts", 1, STW_ERROR_PLUGIN_MANIFEST_INVALID };
    g_autoptr(StwToolProvider) provider = test_provider_new ("conflicttest");
    g_autoptr(JsonObject) other = stw_test_json_object_from (
      "{\"GONE\": {\"http\": 404, \"retryable\": true, \"hint\": \"Registered first.\"}}");
    guint http = 0;

    g_assert_true (stw_error_registry_register_plugin_codes (stw_error_registry_get_default (),
                                                             "conflicttest", other, &error));
    g_assert_no_error (error);
    {
      guint n_before = g_list_length (stw_dispatcher_list_tools (dispatcher));
      g_autoptr(GError) refused = NULL;
      g_autoptr(GList) now = NULL;

      g_assert_false (stw_dispatcher_add_provider (dispatcher, provider, &refused));
      g_assert_error (refused, STW_ERROR, refusal.code);
      now = stw_dispatcher_list_tools (dispatcher);
      g_assert_cmpuint (g_list_length (now), ==, n_before);
      g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "conflicttest_fail"));
      g_assert_false (stw_tool_provider_is_in_use (provider));
    }
    /* The registry still has the first registration, once. */
    g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (), "conflicttest.GONE",
                                              &http, NULL, NULL));
    g_assert_cmpuint (http, ==, 404);
    stw_error_registry_unregister_plugin_codes (stw_error_registry_get_default (), "conflicttest", other);
    g_assert_false (registered ("conflicttest.GONE"));
  }

  /* A tool declaring a code nobody registers: its provider's codes go back. */
  {
    static const Refusal refusal = { "a tool declares an unknown code", 0, G_IO_ERROR_INVALID_ARGUMENT };
    g_autoptr(StwToolProvider) provider = test_provider_new ("unknowntest");
    static const char * const codes[] = { "unknowntest.MISSING", NULL };
    g_autoptr(TestTool) tool = provider_tool_new ("unknowntest_bad", codes, TEST_MODE_ECHO);

    g_assert_true (stw_tool_provider_add_tool (provider, STW_TOOL (tool), &error));
    g_assert_no_error (error);
    assert_provider_refused (dispatcher, provider, &refusal);
  }

  /* Bad names and codes. */
  {
    static const Refusal bad_name = { "an invalid provider name", 0, G_IO_ERROR_INVALID_ARGUMENT };
    static const Refusal reserved = { "the reserved name with codes", 1, STW_ERROR_PLUGIN_MANIFEST_INVALID };
    static const Refusal bad_code = { "a malformed code", 1, STW_ERROR_PLUGIN_MANIFEST_INVALID };
    g_autoptr(StwToolProvider) upper = stw_tool_provider_new ("Bad-Name");
    g_autoptr(StwToolProvider) unnamed = stw_tool_provider_new (NULL);
    g_autoptr(StwToolProvider) electron = stw_tool_provider_new ("electron");
    g_autoptr(StwToolProvider) lower = stw_tool_provider_new ("lowertest");

    assert_provider_refused (dispatcher, upper, &bad_name);
    assert_provider_refused (dispatcher, unnamed, &bad_name);
    g_assert_true (stw_tool_provider_add_error_code (electron, "MINE", 500, FALSE, "Mine.", &error));
    g_assert_no_error (error);
    assert_provider_refused (dispatcher, electron, &reserved);
    g_assert_true (stw_tool_provider_add_error_code (lower, "not_upper", 500, FALSE, "Lower.", &error));
    g_assert_no_error (error);
    assert_provider_refused (dispatcher, lower, &bad_code);
  }

  /* Inside a provider, names and codes are unique. */
  {
    g_autoptr(StwToolProvider) provider = test_provider_new ("duptest");
    g_autoptr(TestTool) again = provider_tool_new ("duptest_echo", NULL, TEST_MODE_ECHO);
    g_autoptr(GError) exists = NULL;

    g_assert_false (stw_tool_provider_add_tool (provider, STW_TOOL (again), &exists));
    g_assert_error (exists, G_IO_ERROR, G_IO_ERROR_EXISTS);
    g_clear_error (&exists);
    g_assert_false (stw_tool_provider_add_error_code (provider, "GONE", 410, FALSE, "Again.", &exists));
    g_assert_error (exists, G_IO_ERROR, G_IO_ERROR_EXISTS);
  }

  g_assert_null (stw_dispatcher_lookup_provider (dispatcher, "refusetest"));
}

/* The core tools that act on a session; the others act on none. */
static const char * const session_tools[] = {
  "electron_windows_list", "electron_switch_window", "electron_surfaces_list",
  "electron_switch_surface", "electron_detach", "electron_stop", "electron_force_kill",
  "electron_info", "electron_screenshot",
  "electron_get_text", "electron_get_value", "electron_get_attribute", "electron_get_bbox",
  "electron_get_computed_style", "electron_get_state", "electron_exists", "electron_focused_element",
  "electron_snapshot", "electron_find", "electron_elements_list",
  "electron_click", "electron_hover", "electron_drag", "electron_type", "electron_keyboard_type",
  "electron_type_into_editor", "electron_key", "electron_press_sequence", "electron_clear_input",
  "electron_select_option", "electron_check", "electron_uncheck", "electron_set_files",
  "electron_drop_file", "electron_scroll", "electron_scroll_into_view", "electron_fill_form",
  "electron_wait", "electron_wait_for_selector", "electron_wait_for_state", "electron_wait_for_event",
  "electron_expect_text", "electron_expect_value", "electron_expect_visible", "electron_expect_state",
  "electron_expect_count", "electron_expect_url", "electron_assert_pattern",
  "electron_eval_main", "electron_eval_renderer",
  "electron_dialog_handler",
  "electron_console_logs",
  NULL
};

/* The core tools that need no session. */
static const char * const sessionless_tools[] = {
  "electron_launch", "electron_attach", "electron_inject", "electron_status", "electron_doctor",
  "electron_discover_running",
  NULL
};

#define N_CORE_TOOLS (G_N_ELEMENTS (session_tools) - 1 + G_N_ELEMENTS (sessionless_tools) - 1)
/* Hidden without an eval policy (electron_eval_main, electron_eval_renderer). */
#define N_EVAL_TOOLS 2

static void
test_provider_core (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwToolProvider) core = stw_core_tool_provider_new ();
  g_autoptr(GList) tools = stw_tool_provider_list_tools (core);
  g_autoptr(GList) listed = NULL;
  g_autoptr(GError) error = NULL;
  guint n_session = 0;

  g_assert_true (STW_IS_CORE_TOOL_PROVIDER (core));
  g_assert_cmpstr (stw_tool_provider_get_name (core), ==, "electron");
  g_assert_cmpuint (json_object_get_size (stw_tool_provider_get_error_codes (core)), ==, 0);
  g_assert_cmpuint (g_list_length (tools), ==, N_CORE_TOOLS);

  for (const GList *l = tools; l != NULL; l = l->next)
    {
      const char *name = stw_tool_get_name (l->data);
      StwSessionRequirement wanted = g_strv_contains (session_tools, name)
                                     ? STW_SESSION_REQUIREMENT_REQUIRED : STW_SESSION_REQUIREMENT_NONE;

      g_test_message ("core tool %s", name);
      g_assert_true (g_strv_contains (session_tools, name) || g_strv_contains (sessionless_tools, name));
      g_assert_true (g_str_has_prefix (name, "electron_"));
      g_assert_cmpint (stw_tool_get_session_requirement (l->data), ==, wanted);
      n_session += wanted == STW_SESSION_REQUIREMENT_REQUIRED;
    }
  g_assert_cmpuint (n_session, ==, g_strv_length ((char **) session_tools));

  g_assert_true (stw_dispatcher_add_provider (dispatcher, core, &error));
  g_assert_no_error (error);
  listed = stw_dispatcher_list_tools (dispatcher);
  g_assert_cmpuint (g_list_length (listed), ==, N_CORE_TOOLS - N_EVAL_TOOLS);

  /* add_core_tools is this provider; twice is a programming error. */
  g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL, "*core tools*electron*already*");
  stw_dispatcher_add_core_tools (dispatcher);
  g_test_assert_expected_messages ();

  g_assert_true (stw_dispatcher_remove_provider (dispatcher, core));
  g_clear_pointer (&listed, g_list_free);
  listed = stw_dispatcher_list_tools (dispatcher);
  g_assert_null (listed);

  stw_dispatcher_add_core_tools (dispatcher);
  g_assert_true (STW_IS_CORE_TOOL_PROVIDER (stw_dispatcher_lookup_provider (dispatcher, "electron")));
  listed = stw_dispatcher_list_tools (dispatcher);
  g_assert_cmpuint (g_list_length (listed), ==, N_CORE_TOOLS - N_EVAL_TOOLS);
}

/* Sessions {{{1 */

static const char session_schema[] =
  "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\",\"minLength\":1}},"
  "\"additionalProperties\":false}";

static TestTool *
session_tool_new (const char            *name,
                  StwSessionRequirement  requirement,
                  const char            *schema_json)
{
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (schema_json, NULL);
  TestTool *tool = g_object_new (TEST_TYPE_TOOL,
                                 "name", name,
                                 "description", "Answers with the session it was handed.",
                                 "operation-type", STW_OPERATION_QUERY,
                                 "input-schema", schema,
                                 "session-requirement", requirement,
                                 NULL);
  tool->mode = TEST_MODE_RESOLVED;
  return tool;
}

static void
test_session_tool_validation (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(TestTool) no_id = session_tool_new ("no_id", STW_SESSION_REQUIREMENT_REQUIRED, open_schema);
  g_autoptr(TestTool) optional_no_id = session_tool_new ("optional_no_id", STW_SESSION_REQUIREMENT_OPTIONAL,
                                                         "{\"type\":\"object\",\"properties\":"
                                                         "{\"sessionId\":{\"type\":\"integer\"}}}");
  g_autoptr(TestTool) good = session_tool_new ("good", STW_SESSION_REQUIREMENT_REQUIRED, session_schema);
  g_autoptr(TestTool) plain = test_tool_new ("plain", TEST_MODE_RESOLVED);

  /* A tool that acts on a session must let the agent name it, as a string. */
  g_assert_cmpint (stw_tool_get_session_requirement (STW_TOOL (plain)), ==, STW_SESSION_REQUIREMENT_NONE);
  assert_add_refused (dispatcher, no_id, G_IO_ERROR_INVALID_ARGUMENT);
  assert_add_refused (dispatcher, optional_no_id, G_IO_ERROR_INVALID_ARGUMENT);
  add_tool (dispatcher, good);
  add_tool (dispatcher, plain);

  /* A tool that needs none is handed none, even with a sessionId. */
  {
    g_autoptr(JsonObject) envelope = call (dispatcher, "plain", "{\"sessionId\": \"cdp-1\"}");

    assert_ok (envelope);
    g_assert_true (json_object_get_null_member (envelope, "session_id"));
  }
}

typedef struct
{
  StwSession *session;
  GError     *error;
  gboolean    done;
} Launched;

static void
on_launched (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Launched *launched = user_data;

  launched->session = stw_session_manager_launch_finish (STW_SESSION_MANAGER (source), result,
                                                         &launched->error);
  launched->done = TRUE;
}

#define CHROMIUM "/usr/lib/chromium/chromium"

/* A real session: plain headless Chromium over the pipe. */
static StwSession *
launch_chromium (StwDispatcher *dispatcher)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwLaunchOptions) options = stw_launch_options_new_from_json (
    "{\"executablePath\": \"" CHROMIUM "\", \"pipe\": true, \"allowMultiple\": true,"
    " \"timeoutMs\": 60000,"
    " \"args\": [\"--headless\", \"--disable-gpu\", \"--no-first-run\","
    "          \"--disable-background-networking\", \"--disable-component-update\","
    "          \"--disable-sync\", \"data:text/html,<title>Session</title><h1>Session</h1>\"]}", &error);
  Launched launched = { 0 };
  gboolean timed_out = FALSE;
  GSource *watchdog = g_timeout_source_new_seconds (90);

  g_assert_no_error (error);
  stw_session_manager_launch_async (stw_dispatcher_get_session_manager (dispatcher), options, NULL,
                                    on_launched, &launched);
  g_source_set_callback (watchdog, on_watchdog, &timed_out, NULL);
  g_source_attach (watchdog, NULL);
  while (!launched.done && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (watchdog);
  g_source_unref (watchdog);
  g_assert_false (timed_out);
  g_assert_no_error (launched.error);
  g_assert_nonnull (launched.session);
  return launched.session;
}

static void
on_stopped_all (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  stw_session_manager_stop_all_finish (STW_SESSION_MANAGER (source), result, NULL);
  *(gboolean *) user_data = TRUE;
}

static JsonObject *
call_with_session (StwDispatcher *dispatcher,
                   const char    *name,
                   const char    *session_id)
{
  g_autofree char *arguments = session_id ? g_strdup_printf ("{\"sessionId\": \"%s\"}", session_id) : NULL;

  return call (dispatcher, name, arguments);
}

static const char *
meta_session_id (JsonObject *envelope)
{
  return json_object_get_string_member_with_default (json_object_get_object_member (envelope, "_meta"),
                                                     "session_id", NULL);
}

static void
assert_resolved (JsonObject *envelope,
                 StwSession *session)
{
  assert_ok (envelope);
  g_assert_cmpstr (json_object_get_string_member (envelope, "session_id"), ==, stw_session_get_id (session));
  g_assert_cmpstr (meta_session_id (envelope), ==, stw_session_get_id (session));
}

static void
test_session_resolution (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(TestTool) required = session_tool_new ("needs_session", STW_SESSION_REQUIREMENT_REQUIRED,
                                                   session_schema);
  g_autoptr(TestTool) optional = session_tool_new ("takes_session", STW_SESSION_REQUIREMENT_OPTIONAL,
                                                   session_schema);
  g_autoptr(StwSession) first = NULL;
  g_autoptr(StwSession) second = NULL;
  gboolean stopped = FALSE;

  if (!g_file_test (CHROMIUM, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("No Chromium at " CHROMIUM);
      return;
    }

  add_tool (dispatcher, required);
  add_tool (dispatcher, optional);
  stw_dispatcher_add_core_tools (dispatcher);

  /* None live: NOT_RUNNING before the tool runs; optional runs without. */
  {
    g_autoptr(JsonObject) none = call_with_session (dispatcher, "needs_session", NULL);
    g_autoptr(JsonObject) unknown = call_with_session (dispatcher, "needs_session", "cdp-9-nope");
    g_autoptr(JsonObject) without = call_with_session (dispatcher, "takes_session", NULL);
    g_autoptr(JsonObject) core = call_with_session (dispatcher, "electron_info", NULL);

    assert_code (none, "NOT_RUNNING");
    g_assert_true (strv_has_substring (json_object_get_array_member (none, "next_actions"),
                                       "electron_launch"));
    assert_code (unknown, "NOT_RUNNING");
    g_assert_nonnull (strstr (json_object_get_string_member (unknown, "error"), "cdp-9-nope"));
    g_assert_cmpuint (required->n_invoked, ==, 0);
    assert_ok (without);
    g_assert_true (json_object_get_null_member (without, "session_id"));
    g_assert_null (meta_session_id (without));
    assert_code (core, "NOT_RUNNING");
    g_assert_null (meta_session_id (core));
  }

  /* One live: it, named or not. */
  first = launch_chromium (dispatcher);
  {
    g_autoptr(JsonObject) implicit = call_with_session (dispatcher, "needs_session", NULL);
    g_autoptr(JsonObject) named = call_with_session (dispatcher, "needs_session", stw_session_get_id (first));
    g_autoptr(JsonObject) optional_one = call_with_session (dispatcher, "takes_session", NULL);
    g_autoptr(JsonObject) unknown = call_with_session (dispatcher, "needs_session", "cdp-9-nope");
    g_autoptr(JsonObject) windows = call_with_session (dispatcher, "electron_windows_list", NULL);

    assert_resolved (implicit, first);
    assert_resolved (named, first);
    assert_resolved (optional_one, first);
    assert_code (unknown, "NOT_RUNNING");
    /* A core tool gets the same session from the invocation. */
    assert_resolved (windows, first);
    g_assert_cmpint (json_object_get_int_member (windows, "count"), ==, 1);
  }
  /* Issue 7 item 9: the {ref} refusal of electron_screenshot leaked its
   * error object on each call with a session (check-valgrind sees it). */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(JsonObject) refused = call (dispatcher, "electron_screenshot", "{\"ref\": 1}");

      assert_code (refused, "REF_NOT_FOUND");
    }

  /* Several live: BAD_ARGUMENT listing them, unless the call names one. */
  second = launch_chromium (dispatcher);
  g_assert_cmpstr (stw_session_get_id (first), !=, stw_session_get_id (second));
  {
    guint n_invoked = required->n_invoked;
    g_autoptr(JsonObject) ambiguous = call_with_session (dispatcher, "needs_session", NULL);
    g_autoptr(JsonObject) optional_ambiguous = call_with_session (dispatcher, "takes_session", NULL);
    g_autoptr(JsonObject) named = call_with_session (dispatcher, "needs_session", stw_session_get_id (second));
    g_autoptr(JsonObject) core = call_with_session (dispatcher, "electron_windows_list", NULL);
    JsonArray *available;

    assert_code (ambiguous, "BAD_ARGUMENT");
    available = json_object_get_array_member (json_object_get_object_member (ambiguous, "details"),
                                              "available_sessions");
    g_assert_cmpuint (json_array_get_length (available), ==, 2);
    g_assert_cmpstr (json_array_get_string_element (available, 0), ==, stw_session_get_id (first));
    g_assert_cmpstr (json_array_get_string_element (available, 1), ==, stw_session_get_id (second));
    assert_code (optional_ambiguous, "BAD_ARGUMENT");
    assert_code (core, "BAD_ARGUMENT");
    assert_resolved (named, second);
    g_assert_cmpuint (required->n_invoked, ==, n_invoked + 1);
  }

  stw_session_manager_stop_all_async (stw_dispatcher_get_session_manager (dispatcher), 5000, NULL,
                                      on_stopped_all, &stopped);
  iterate_until (&stopped);
  g_assert_false (stw_session_is_running (first));
  g_assert_false (stw_session_is_running (second));
}

/* Core tools {{{1 */

static void
test_core_status (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) refused = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(GDateTime) started = NULL;
  StwTool *status;
  JsonObject *server;
  JsonObject *last_error;

  stw_dispatcher_add_core_tools (dispatcher);
  status = stw_dispatcher_lookup_tool (dispatcher, "electron_status");
  g_assert_nonnull (status);
  g_assert_true (stw_tool_get_read_only_hint (status));
  g_assert_true (stw_tool_get_idempotent_hint (status));
  g_assert_false (stw_tool_get_destructive_hint (status));

  first = call (dispatcher, "electron_status", NULL);
  assert_ok (first);
  server = json_object_get_object_member (first, "server");
  g_assert_nonnull (server);
  g_assert_cmpstr (json_object_get_string_member (server, "version"), ==, PACKAGE_VERSION);
  g_assert_cmpstr (json_object_get_string_member (server, "tool_profile"), ==, "full");
  g_assert_cmpint (json_object_get_int_member (server, "uptime_ms"), >=, 0);
  started = g_date_time_new_from_iso8601 (json_object_get_string_member (server, "started_at"), NULL);
  g_assert_nonnull (started);
  g_assert_false (json_object_has_member (server, "last_error"));
  g_assert_cmpint (json_object_get_int_member (first, "active_sessions"), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (first, "sessions")), ==, 0);
  g_assert_false (json_object_has_member (json_object_get_object_member (first, "_meta"), "session_id"));

  /* Its schema refuses unknown arguments; the failure becomes the breadcrumb. */
  refused = call (dispatcher, "electron_status", "{\"verbose\": true}");
  assert_code (refused, "BAD_ARGUMENT");
  second = call (dispatcher, "electron_status", NULL);
  assert_ok (second);
  last_error = json_object_get_object_member (json_object_get_object_member (second, "server"), "last_error");
  g_assert_nonnull (last_error);
  g_assert_cmpstr (json_object_get_string_member (last_error, "code"), ==, "BAD_ARGUMENT");
  g_assert_cmpstr (json_object_get_string_member (last_error, "tool"), ==, "electron_status");
  /* Never arguments or messages. */
  g_assert_cmpuint (json_object_get_size (last_error), ==, 3);
}

static gboolean
is_reference_core_tool (const char *name)
{
  return g_strv_contains (essential_names, name) ||
         g_strv_contains (testing_only_names, name) ||
         g_strv_contains (debug_only_names, name) ||
         g_strv_contains (testing_and_debug_names, name);
}

static void
test_core_visibility (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GList) full = NULL;
  g_autoptr(GList) essential = NULL;
  StwTool *doctor;
  StwTool *status;

  stw_dispatcher_add_core_tools (dispatcher);
  doctor = stw_dispatcher_lookup_tool (dispatcher, "electron_doctor");
  status = stw_dispatcher_lookup_tool (dispatcher, "electron_status");
  g_assert_nonnull (doctor);
  g_assert_nonnull (status);

  /* Every non-eval core tool is one the contract's profiles know about. */
  full = stw_dispatcher_list_tools (dispatcher);
  g_assert_nonnull (g_list_find (full, doctor));
  for (const GList *l = full; l != NULL; l = l->next)
    {
      g_test_message ("core tool %s", stw_tool_get_name (l->data));
      g_assert_cmpint (stw_tool_get_operation_type (l->data), !=, STW_OPERATION_EVAL);
      g_assert_true (is_reference_core_tool (stw_tool_get_name (l->data)));
    }

  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_ESSENTIAL);
  essential = stw_dispatcher_list_tools (dispatcher);
  g_assert_null (g_list_find (essential, doctor));
  g_assert_nonnull (g_list_find (essential, status));
  g_assert_false (stw_dispatcher_is_tool_visible (dispatcher, doctor));

  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_DEBUG);
  g_assert_true (stw_dispatcher_is_tool_visible (dispatcher, doctor));
  g_assert_true (stw_dispatcher_is_tool_visible (dispatcher, status));
}

static const char * const doctor_ids[] = {
  "node", "electron", "chromium", "display", "eval_policy", "app_root", "screenshot_dir", "libsoup",
};

static const char *
check_status (JsonObject *envelope,
              const char *id)
{
  JsonArray *checks = json_object_get_array_member (envelope, "checks");

  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);
      if (g_strcmp0 (json_object_get_string_member (check, "id"), id) == 0)
        return json_object_get_string_member (check, "status");
    }
  return NULL;
}

static void
assert_doctor_shape (JsonObject *envelope)
{
  static const char * const statuses[] = { "pass", "warn", "fail", "skip", NULL };
  JsonArray *checks;
  gboolean any_fail = FALSE;

  assert_ok (envelope);
  checks = json_object_get_array_member (envelope, "checks");
  g_assert_nonnull (checks);
  g_assert_cmpuint (json_array_get_length (checks), ==, G_N_ELEMENTS (doctor_ids));

  for (guint i = 0; i < G_N_ELEMENTS (doctor_ids); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);
      const char *status = json_object_get_string_member (check, "status");

      g_assert_cmpstr (json_object_get_string_member (check, "id"), ==, doctor_ids[i]);
      g_assert_true (g_strv_contains (statuses, status));
      g_assert_cmpstr (json_object_get_string_member (check, "message"), !=, "");
      any_fail |= g_str_equal (status, "fail");
    }
  g_assert_cmpint (json_object_get_boolean_member (envelope, "doctor_ok"), ==, !any_fail);
  g_assert_nonnull (json_object_get_object_member (json_object_get_object_member (envelope, "runtime"),
                                                   "server"));
}

static void
test_core_doctor (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *app_root = g_dir_make_tmp ("stw-doctor-XXXXXX", &error);
  g_autofree char *missing = NULL;
  g_autoptr(JsonObject) plain = NULL;
  g_autoptr(JsonObject) configured = NULL;
  g_autoptr(JsonObject) hidden = NULL;

  g_assert_no_error (error);
  stw_dispatcher_add_core_tools (dispatcher);

  /* No directories configured: both are skipped; eval off passes. */
  plain = call (dispatcher, "electron_doctor", NULL);
  assert_doctor_shape (plain);
  g_assert_cmpstr (check_status (plain, "app_root"), ==, "skip");
  g_assert_cmpstr (check_status (plain, "screenshot_dir"), ==, "skip");
  g_assert_cmpstr (check_status (plain, "eval_policy"), ==, "pass");

  /* A usable app root passes, a missing screenshot dir fails, main eval warns. */
  missing = g_build_filename (app_root, "does-not-exist", NULL);
  stw_dispatcher_set_app_root (dispatcher, app_root);
  stw_dispatcher_set_screenshot_dir (dispatcher, missing);
  stw_dispatcher_set_allow_eval (dispatcher, STW_EVAL_TARGET_MAIN);
  configured = call (dispatcher, "electron_doctor", NULL);
  assert_doctor_shape (configured);
  g_assert_cmpstr (check_status (configured, "app_root"), ==, "pass");
  g_assert_cmpstr (check_status (configured, "screenshot_dir"), ==, "fail");
  g_assert_cmpstr (check_status (configured, "eval_policy"), ==, "warn");
  g_assert_false (json_object_get_boolean_member (configured, "doctor_ok"));

  /* The runtime a launch would use is found the launch's way: one that
   * links outside the root fails here as the launch would refuse it. */
  {
    g_autofree char *outside = g_dir_make_tmp ("stw-doctor-out-XXXXXX", NULL);
    g_autofree char *bin = g_build_filename (app_root, "node_modules", ".bin", NULL);
    g_autofree char *link = g_build_filename (bin, "electron", NULL);
    g_autofree char *target = g_build_filename (outside, "electron", NULL);
    g_autofree char *modules = g_build_filename (app_root, "node_modules", NULL);
    g_autoptr(JsonObject) escaped = NULL;

    g_assert_true (g_file_set_contents (target, "#!/bin/sh\nexit 0\n", -1, NULL));
    g_assert_no_errno (g_chmod (target, 0700));
    g_assert_no_errno (g_mkdir_with_parents (bin, 0700));
    g_assert_no_errno (symlink (target, link));
    escaped = call (dispatcher, "electron_doctor", NULL);
    assert_doctor_shape (escaped);
    g_assert_cmpstr (check_status (escaped, "electron"), ==, "fail");
    g_assert_no_errno (g_unlink (link));
    g_assert_no_errno (g_rmdir (bin));
    g_assert_no_errno (g_rmdir (modules));
    g_assert_no_errno (g_unlink (target));
    g_assert_no_errno (g_rmdir (outside));
  }

  /* Essential hides it; debug shows it. */
  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_ESSENTIAL);
  hidden = call (dispatcher, "electron_doctor", NULL);
  assert_code (hidden, "BAD_ARGUMENT");
  stw_dispatcher_set_tool_profile (dispatcher, STW_TOOL_PROFILE_DEBUG);
  {
    g_autoptr(JsonObject) shown = call (dispatcher, "electron_doctor", NULL);
    assert_doctor_shape (shown);
  }

  g_assert_no_errno (g_rmdir (app_root));
}

/* }}} */

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  logged = g_ptr_array_new_with_free_func (g_free);
  g_log_set_handler ("Stagewright", G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG,
                     capture_log, NULL);

  g_test_add_func ("/dispatcher/register/validation", test_register_validation);
  g_test_add_func ("/dispatcher/register/signals", test_register_signals);
  g_test_add_func ("/dispatcher/profiles/contract", test_profiles_contract);
  g_test_add_func ("/dispatcher/list/profiles", test_list_profiles);
  g_test_add_func ("/dispatcher/call/hidden-profile", test_call_hidden_profile);
  g_test_add_func ("/dispatcher/call/hidden-eval", test_call_hidden_eval);
  g_test_add_func ("/dispatcher/call/schema-failure", test_call_schema_failure);
  g_test_add_func ("/dispatcher/call/defaults", test_call_defaults);
  g_test_add_func ("/dispatcher/call/not-implemented", test_call_not_implemented);
  g_test_add_func ("/dispatcher/eval/blocklist", test_eval_blocklist);
  g_test_add_func ("/dispatcher/eval/guard", test_eval_guard);
  g_test_add_func ("/dispatcher/eval/code-argument", test_eval_code_argument);
  g_test_add_func ("/dispatcher/backstop/async", test_backstop);
  g_test_add_func ("/dispatcher/backstop/sync", test_backstop_sync);
  g_test_add_func ("/dispatcher/cancel/by-caller", test_cancel_by_caller);
  g_test_add_func ("/dispatcher/cancel/before-start", test_cancel_before_start);
  g_test_add_func ("/dispatcher/cancel/reaches-tool-at-once", test_cancel_reaches_tool_at_once);
  g_test_add_func ("/dispatcher/cancel/after-answer", test_cancel_after_answer);
  g_test_add_func ("/dispatcher/call/remove-during-call", test_remove_during_call);
  g_test_add_func ("/dispatcher/call/signals", test_call_signals);
  g_test_add_func ("/dispatcher/call/last-error", test_last_error);
  g_test_add_func ("/dispatcher/call/async-idle", test_async_idle_tool);
  g_test_add_func ("/dispatcher/call/tool-outcomes", test_tool_outcomes);
  g_test_add_func ("/dispatcher/call/plugin-error", test_plugin_error_from_tool);
  g_test_add_func ("/dispatcher/call/sync-json", test_call_sync_json);
  g_test_add_func ("/dispatcher/properties", test_properties);
  g_test_add_func ("/dispatcher/tool/manifest", test_tool_manifest);
  g_test_add_func ("/dispatcher/tool/manifest-lean-schema", test_tool_manifest_lean_schema);
  g_test_add_func ("/dispatcher/tool/manifest-essential", test_tool_manifest_essential);
  g_test_add_func ("/dispatcher/core/visibility", test_core_visibility);
  g_test_add_func ("/dispatcher/core/status", test_core_status);
  g_test_add_func ("/dispatcher/core/doctor", test_core_doctor);
  g_test_add_func ("/dispatcher/provider/add-remove", test_provider_add_remove);
  g_test_add_func ("/dispatcher/provider/shared", test_provider_shared);
  g_test_add_func ("/dispatcher/provider/refused", test_provider_refused);
  g_test_add_func ("/dispatcher/provider/core", test_provider_core);
  g_test_add_func ("/dispatcher/session/validation", test_session_tool_validation);
  g_test_add_func ("/dispatcher/session/resolution", test_session_resolution);

  {
    int ret = g_test_run ();
    g_ptr_array_unref (logged);
    return ret;
  }
}

/* vim: set foldmethod=marker: */
