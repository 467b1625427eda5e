/* test-core-schemas.c: the core tools' schemas, checked here instead of at
 * every start
 *
 * The core provider defers its tools' input schemas (parsed on first
 * listing, compiled on first call) and tells the dispatcher they were
 * checked by a test: this one. It checks every core schema as
 * stw_dispatcher_add_tool() checks a plugin's, shows that nothing is
 * compiled at start, and that a lazily compiled schema refuses bad
 * arguments exactly as an eagerly compiled one does.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stagewright.h"
#include "stw-core-provider.h"
#include "stw-schema-private.h"
#include "stw-tool-private.h"
#include "stw-test-utils.h"

/* Every core tool passes the checks a plugin's tool passes when added,
 * its schema compiled in full. */
static void
test_core_schemas_compile (void)
{
  g_autoptr(StwToolProvider) core = stw_core_tool_provider_new ();
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GList) tools = stw_tool_provider_list_tools (core);

  g_assert_cmpuint (g_list_length (tools), >=, 50);
  for (const GList *l = tools; l != NULL; l = l->next)
    {
      StwSchema *schema = stw_tool_get_input_schema (l->data);
      g_autoptr(StwSchema) eager = NULL;
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", stw_tool_get_name (l->data));
      g_assert_false (_stw_schema_is_compiled (schema));
      g_assert_true (_stw_schema_check (schema, &error));
      g_assert_no_error (error);
      g_assert_true (_stw_schema_is_compiled (schema));

      /* What a plugin's schema goes through. */
      eager = stw_schema_new (stw_schema_get_node (schema), &error);
      g_assert_no_error (error);
      g_assert_nonnull (eager);

      /* One by one, not as the provider: every check, schema included. */
      g_assert_true (stw_dispatcher_add_tool (dispatcher, l->data, &error));
      g_assert_no_error (error);
    }
}

/* The check can fail: a deferred schema is refused as
 * stw_schema_new_from_string() refuses it. */
static void
test_core_schemas_check_refuses (void)
{
  static const char bad_keyword[] = "{\"type\":\"object\",\"properties\":{\"a\":{\"minimum\":\"x\"}}}";
  static const char bad_json[] = "{\"type\":\"object\",";
  g_autoptr(StwSchema) keyword = _stw_schema_new_deferred (bad_keyword);
  g_autoptr(StwSchema) json = _stw_schema_new_deferred (bad_json);
  g_autoptr(GError) deferred_error = NULL;
  g_autoptr(GError) eager_error = NULL;
  g_autoptr(StwSchema) eager = NULL;

  g_assert_false (_stw_schema_check (keyword, &deferred_error));
  eager = stw_schema_new_from_string (bad_keyword, &eager_error);
  g_assert_null (eager);
  g_assert_error (deferred_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_error (eager_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (deferred_error->message, ==, eager_error->message);
  g_assert_false (_stw_schema_is_compiled (keyword));

  g_clear_error (&deferred_error);
  g_clear_error (&eager_error);
  g_assert_false (_stw_schema_check (json, &deferred_error));
  eager = stw_schema_new_from_string (bad_json, &eager_error);
  g_assert_null (eager);
  g_assert_error (deferred_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (deferred_error->message, ==, eager_error->message);
}

static gboolean
any_compiled (StwDispatcher *dispatcher)
{
  StwToolProvider *provider = stw_dispatcher_lookup_provider (dispatcher, "electron");
  g_autoptr(GList) tools = stw_tool_provider_list_tools (provider);

  for (const GList *l = tools; l != NULL; l = l->next)
    if (_stw_schema_is_compiled (stw_tool_get_input_schema (l->data)))
      return TRUE;
  return FALSE;
}

/* Start-up compiles no core schema, nor does a listing; a call compiles
 * the schema of the tool it calls, and only that one. */
static void
test_core_schemas_lazy (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GList) listed = NULL;
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(JsonObject) arguments = stw_test_json_object_from ("{\"bogus\": 1}");
  g_autoptr(GError) error = NULL;
  StwTool *called;
  guint compiled = 0;

  stw_dispatcher_add_core_tools (dispatcher);
  g_assert_false (any_compiled (dispatcher));

  listed = stw_dispatcher_list_tools (dispatcher);
  g_assert_cmpuint (g_list_length (listed), >=, 50);
  for (const GList *l = listed; l != NULL; l = l->next)
    {
      g_autoptr(JsonObject) manifest = stw_tool_to_manifest (l->data);

      g_assert_true (json_object_has_member (manifest, "inputSchema"));
    }
  g_assert_false (any_compiled (dispatcher));

  envelope = stw_dispatcher_call_sync (dispatcher, "electron_windows_list", arguments, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, "BAD_ARGUMENT");

  called = stw_dispatcher_lookup_tool (dispatcher, "electron_windows_list");
  g_assert_true (_stw_schema_is_compiled (stw_tool_get_input_schema (called)));
  for (const GList *l = listed; l != NULL; l = l->next)
    compiled += _stw_schema_is_compiled (stw_tool_get_input_schema (l->data));
  g_assert_cmpuint (compiled, ==, 1);
}

/* A copy of @tool whose schema is compiled now, as a plugin's is. */
static StwTool *
eager_copy (StwTool *tool)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = stw_schema_new (stw_schema_get_node (stw_tool_get_input_schema (tool)),
                                                &error);

  g_assert_no_error (error);
  return g_object_new (STW_TYPE_TOOL,
                       "name", stw_tool_get_name (tool),
                       "input-schema", schema,
                       "operation-type", stw_tool_get_operation_type (tool),
                       "eval-target", stw_tool_get_eval_target (tool),
                       "code-argument", stw_tool_get_code_argument (tool),
                       "error-codes", stw_tool_get_error_codes (tool),
                       "profiles", stw_tool_get_profiles (tool),
                       "session-requirement", stw_tool_get_session_requirement (tool),
                       NULL);
}

/* Arguments that break @tool's schema in several ways: every declared
 * argument given a value of each of a few wrong kinds, and an undeclared
 * one. */
static GPtrArray *
bad_arguments_for (StwTool *tool)
{
  static const char * const values[] = { "{}", "\"\"", "-1e12", "4294967296", "[1, [2]]", "null" };
  JsonNode *schema = stw_schema_get_node (stw_tool_get_input_schema (tool));
  JsonObject *properties = json_object_get_object_member (json_node_get_object (schema), "properties");
  g_autoptr(GList) names = properties ? json_object_get_members (properties) : NULL;
  GPtrArray *cases = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (cases, g_strdup ("{\"undeclared_argument\": true}"));
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      GString *text = g_string_new ("{");

      for (const GList *l = names; l != NULL; l = l->next)
        g_string_append_printf (text, "%s\"%s\": %s", l == names ? "" : ", ", (const char *) l->data, values[i]);
      g_string_append_c (text, '}');
      g_ptr_array_add (cases, g_string_free (text, FALSE));
    }
  return cases;
}

/* The envelope of a call, less its timing. */
static char *
call_without_meta (StwDispatcher *dispatcher,
                   const char    *name,
                   const char    *arguments)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = stw_dispatcher_call_json_sync (dispatcher, name, arguments, NULL, &error);
  g_autoptr(JsonNode) envelope = NULL;

  g_assert_no_error (error);
  envelope = stw_test_parse (text);
  json_object_remove_member (json_node_get_object (envelope), "_meta");
  return json_to_string (envelope, FALSE);
}

/* BAD_ARGUMENT, field-addressed issues included, is the same whether the
 * schema was compiled lazily (the core tool) or at once (its copy). */
static void
test_core_schemas_same_refusals (void)
{
  g_autoptr(StwDispatcher) lazy = stw_dispatcher_new ();
  g_autoptr(StwDispatcher) eager = stw_dispatcher_new ();
  g_autoptr(StwToolProvider) copies = stw_tool_provider_new ("copies");
  g_autoptr(GList) tools = NULL;
  g_autoptr(GError) error = NULL;
  guint refused = 0;

  stw_dispatcher_set_allow_eval (lazy, STW_EVAL_TARGET_ALL);
  stw_dispatcher_set_allow_eval (eager, STW_EVAL_TARGET_ALL);
  stw_dispatcher_add_core_tools (lazy);
  tools = stw_tool_provider_list_tools (stw_dispatcher_lookup_provider (lazy, "electron"));
  for (const GList *l = tools; l != NULL; l = l->next)
    {
      g_autoptr(StwTool) copy = eager_copy (l->data);

      g_assert_true (stw_tool_provider_add_tool (copies, copy, &error));
      g_assert_no_error (error);
    }
  g_assert_true (stw_dispatcher_add_provider (eager, copies, &error));
  g_assert_no_error (error);

  for (const GList *l = tools; l != NULL; l = l->next)
    {
      const char *name = stw_tool_get_name (l->data);
      g_autoptr(GPtrArray) cases = bad_arguments_for (l->data);

      for (guint i = 0; i < cases->len; i++)
        {
          g_autoptr(JsonNode) arguments = stw_test_parse (cases->pdata[i]);
          g_autoptr(JsonArray) issues = NULL;
          g_autofree char *from_lazy = NULL;
          g_autofree char *from_eager = NULL;
          gboolean valid;

          /* Arguments that pass would run the tool (a launch, say): only
           * say that both schemas take them. */
          valid = _stw_schema_validate_arguments (stw_tool_get_input_schema (stw_dispatcher_lookup_tool (eager, name)),
                                                  arguments, NULL);
          g_assert_cmpint (valid, ==, _stw_schema_validate_arguments (stw_tool_get_input_schema (l->data),
                                                                      arguments, NULL));
          if (valid)
            continue;

          from_lazy = call_without_meta (lazy, name, cases->pdata[i]);
          from_eager = call_without_meta (eager, name, cases->pdata[i]);
          g_assert_cmpstr (from_lazy, ==, from_eager);
          g_assert_nonnull (strstr (from_lazy, "\"code\":\"BAD_ARGUMENT\""));
          g_assert_nonnull (strstr (from_lazy, "\"issues\":[{\"field\":"));
          refused++;
        }
    }
  /* The cases do break schemas: most calls were refused. */
  g_assert_cmpuint (refused, >, g_list_length (tools) * 4);
}

/* The core's tools are made with their fields set directly: a tool made
 * that way has every property a tool made through g_object_new() with the
 * same values has. A field the initialiser forgets shows up here, as does
 * a property added to StwTool without a place in StwToolInit. */
static void
test_core_schemas_direct_init (void)
{
  static const char * const codes[] = { "EVAL_RUNTIME_ERROR", "WAIT_TIMEOUT", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema =
    stw_schema_new_from_string ("{\"type\":\"object\",\"properties\":"
                                "{\"sessionId\":{\"type\":\"string\"},\"code\":{\"type\":\"string\"}}}",
                                &error);
  StwToolInit init = {
    .name = "electron_direct",
    .title = "Direct",
    .description = "Made with its fields set at once",
    .input_schema = schema,
    .operation_type = STW_OPERATION_EVAL,
    .eval_target = STW_EVAL_TARGET_MAIN,
    .code_argument = "code",
    .error_codes = g_strdupv ((char **) codes),
    .destructive_hint = TRUE,
    .idempotent_hint = TRUE,
    .profiles = STW_TOOL_PROFILE_FLAGS_ESSENTIAL,
    .session_requirement = STW_SESSION_REQUIREMENT_REQUIRED,
  };
  g_autoptr(StwTool) direct = NULL;
  g_autoptr(StwTool) built = NULL;
  g_autofree GParamSpec **pspecs = NULL;
  guint n_pspecs;

  g_assert_no_error (error);
  direct = _stw_tool_new_with_init (STW_TYPE_TOOL, &init);
  g_assert_null (init.error_codes);
  built = g_object_new (STW_TYPE_TOOL,
                        "name", "electron_direct",
                        "title", "Direct",
                        "description", "Made with its fields set at once",
                        "input-schema", schema,
                        "operation-type", STW_OPERATION_EVAL,
                        "eval-target", STW_EVAL_TARGET_MAIN,
                        "code-argument", "code",
                        "error-codes", codes,
                        "destructive-hint", TRUE,
                        "idempotent-hint", TRUE,
                        "profiles", STW_TOOL_PROFILE_FLAGS_ESSENTIAL,
                        "session-requirement", STW_SESSION_REQUIREMENT_REQUIRED,
                        NULL);

  pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (built), &n_pspecs);
  for (guint i = 0; i < n_pspecs; i++)
    {
      g_auto(GValue) a = G_VALUE_INIT;
      g_auto(GValue) b = G_VALUE_INIT;
      g_auto(GValue) unset = G_VALUE_INIT;

      g_value_init (&a, pspecs[i]->value_type);
      g_value_init (&b, pspecs[i]->value_type);
      g_value_init (&unset, pspecs[i]->value_type);
      g_object_get_property (G_OBJECT (direct), pspecs[i]->name, &a);
      g_object_get_property (G_OBJECT (built), pspecs[i]->name, &b);
      g_param_value_set_default (pspecs[i], &unset);

      if (pspecs[i]->value_type == G_TYPE_STRV)
        {
          g_assert_true (g_strv_equal (g_value_get_boxed (&a), g_value_get_boxed (&b)));
          continue;
        }
      if (pspecs[i]->value_type == STW_TYPE_SCHEMA)
        {
          g_assert_true (g_value_get_boxed (&a) == g_value_get_boxed (&b) ||
                         g_str_equal (pspecs[i]->name, "output-schema"));
          continue;
        }
      g_test_message ("property %s", pspecs[i]->name);
      g_assert_cmpint (g_param_values_cmp (pspecs[i], &a, &b), ==, 0);
      /* Every property the test sets differs from its default, so an
       * initialiser that leaves a field alone cannot pass by accident. */
      g_assert_cmpint (g_param_values_cmp (pspecs[i], &a, &unset), !=, 0);
    }
}

int
main (int   argc,
      char *argv[])
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/core-schemas/lazy", test_core_schemas_lazy);
  g_test_add_func ("/core-schemas/compile", test_core_schemas_compile);
  g_test_add_func ("/core-schemas/direct-init", test_core_schemas_direct_init);
  g_test_add_func ("/core-schemas/check-refuses", test_core_schemas_check_refuses);
  g_test_add_func ("/core-schemas/same-refusals", test_core_schemas_same_refusals);

  return g_test_run ();
}
