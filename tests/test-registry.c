/* test-registry.c: the error-code registry and rich errors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "stagewright.h"
#include "stw-json-private.h"
#include "stw-test-utils.h"

/* The registry is process-wide: every test registers plugin codes under a
 * plugin name of its own and leaves the registry as it found it. */

/* Helpers {{{1 */

typedef struct
{
  StwError    code;
  const char *name;
  guint       http;
  gboolean    retryable;
} ExpectedCode;

/* Transcribed from the reference's §2 table, in contract order. */
static const ExpectedCode expected_core[] = {
  { STW_ERROR_NOT_RUNNING, "NOT_RUNNING", 409, FALSE },
  { STW_ERROR_ALREADY_RUNNING, "ALREADY_RUNNING", 409, FALSE },
  { STW_ERROR_LAUNCH_TIMEOUT, "LAUNCH_TIMEOUT", 408, TRUE },
  { STW_ERROR_LAUNCH_FAILED, "LAUNCH_FAILED", 500, FALSE },
  { STW_ERROR_FUSES_BLOCK_LAUNCH, "FUSES_BLOCK_LAUNCH", 409, FALSE },
  { STW_ERROR_SINGLE_INSTANCE_LOCK, "SINGLE_INSTANCE_LOCK", 409, FALSE },
  { STW_ERROR_BAD_ARGUMENT, "BAD_ARGUMENT", 400, FALSE },
  { STW_ERROR_FILE_NOT_FOUND, "FILE_NOT_FOUND", 404, FALSE },
  { STW_ERROR_ABSOLUTE_PATH_REQUIRED, "ABSOLUTE_PATH_REQUIRED", 400, FALSE },
  { STW_ERROR_REF_NOT_FOUND, "REF_NOT_FOUND", 404, FALSE },
  { STW_ERROR_SURFACE_NOT_FOUND, "SURFACE_NOT_FOUND", 404, FALSE },
  { STW_ERROR_SURFACE_CLOSED, "SURFACE_CLOSED", 409, FALSE },
  { STW_ERROR_SURFACE_UNSUPPORTED, "SURFACE_UNSUPPORTED", 501, FALSE },
  { STW_ERROR_SELECTOR_NO_MATCH, "SELECTOR_NO_MATCH", 404, FALSE },
  { STW_ERROR_ELEMENT_NOT_VISIBLE, "ELEMENT_NOT_VISIBLE", 409, TRUE },
  { STW_ERROR_ELEMENT_DISABLED, "ELEMENT_DISABLED", 409, FALSE },
  { STW_ERROR_TYPE_NO_EFFECT, "TYPE_NO_EFFECT", 422, FALSE },
  { STW_ERROR_WAIT_TIMEOUT, "WAIT_TIMEOUT", 408, TRUE },
  { STW_ERROR_EXPECTATION_FAILED, "EXPECTATION_FAILED", 417, TRUE },
  { STW_ERROR_TRANSPORT_UNSUPPORTED, "TRANSPORT_UNSUPPORTED", 501, FALSE },
  { STW_ERROR_CDP_DISCONNECTED, "CDP_DISCONNECTED", 503, TRUE },
  { STW_ERROR_CDP_TIMEOUT, "CDP_TIMEOUT", 408, TRUE },
  { STW_ERROR_INJECT_FAILED, "INJECT_FAILED", 500, TRUE },
  { STW_ERROR_PLUGIN_LOAD_FAILED, "PLUGIN_LOAD_FAILED", 500, FALSE },
  { STW_ERROR_PLUGIN_VERSION_MISMATCH, "PLUGIN_VERSION_MISMATCH", 409, FALSE },
  { STW_ERROR_PLUGIN_MANIFEST_INVALID, "PLUGIN_MANIFEST_INVALID", 500, FALSE },
  { STW_ERROR_PLUGIN_CONFIG_INVALID, "PLUGIN_CONFIG_INVALID", 400, FALSE },
  { STW_ERROR_EVAL_SYNTAX_ERROR, "EVAL_SYNTAX_ERROR", 400, FALSE },
  { STW_ERROR_EVAL_RUNTIME_ERROR, "EVAL_RUNTIME_ERROR", 500, FALSE },
  { STW_ERROR_EVAL_TIMEOUT, "EVAL_TIMEOUT", 408, TRUE },
  { STW_ERROR_EVAL_BLOCKED_KEYWORD, "EVAL_BLOCKED_KEYWORD", 400, FALSE },
  { STW_ERROR_EVAL_BLOCKED_CONSTRUCT, "EVAL_BLOCKED_CONSTRUCT", 400, FALSE },
  { STW_ERROR_OPERATION_TIMEOUT, "OPERATION_TIMEOUT", 408, TRUE },
  { STW_ERROR_NOT_IMPLEMENTED, "NOT_IMPLEMENTED", 501, FALSE },
  { STW_ERROR_INTERNAL_ERROR, "INTERNAL_ERROR", 500, FALSE },
};

static StwErrorRegistry *
registry (void)
{
  return stw_error_registry_get_default ();
}

static void
assert_registered (const char *name,
                   guint       http,
                   gboolean    retryable,
                   const char *hint)
{
  guint got_http = 0;
  gboolean got_retryable = !retryable;
  const char *got_hint = NULL;

  g_assert_true (stw_error_registry_lookup (registry (), name, &got_http, &got_retryable, &got_hint));
  g_assert_cmpuint (got_http, ==, http);
  g_assert_cmpint (got_retryable, ==, retryable);
  g_assert_cmpstr (got_hint, ==, hint);
  g_assert_true (stw_error_registry_contains (registry (), name));
}

static void
assert_refused (const char *plugin,
                const char *codes_json)
{
  g_autoptr(JsonObject) codes = stw_test_json_object_from (codes_json);
  g_autoptr(GError) error = NULL;
  g_autoptr(GList) members = json_object_get_members (codes);

  g_assert_false (stw_error_registry_register_plugin_codes (registry (), plugin, codes, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN_MANIFEST_INVALID);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "PLUGIN_MANIFEST_INVALID");

  /* Nothing of a refused batch is registered, under any spelling. */
  for (const GList *l = members; l != NULL; l = l->next)
    {
      g_autofree char *name = g_strconcat (plugin ? plugin : "", ".", (const char *) l->data, NULL);
      g_assert_false (stw_error_registry_contains (registry (), name));
    }
}

static guint
count_plugin_codes (const char *prefix)
{
  g_auto(GStrv) codes = stw_error_registry_list_codes (registry ());
  guint n = 0;

  for (guint i = 0; codes[i] != NULL; i++)
    if (g_str_has_prefix (codes[i], prefix))
      n++;
  return n;
}

/* Core codes {{{1 */

static void
test_core_table (void)
{
  g_auto(GStrv) listed = stw_error_registry_list_codes (registry ());

  g_assert_cmpuint (G_N_ELEMENTS (expected_core), ==, 35);
  g_assert_cmpuint (g_strv_length (listed), >=, 35);

  for (guint i = 0; i < G_N_ELEMENTS (expected_core); i++)
    {
      const ExpectedCode *e = &expected_core[i];
      guint http = 0;
      gboolean retryable = !e->retryable;
      const char *hint = NULL;

      g_test_message ("core code %u: %s", i, e->name);

      /* Contract order: the enum value is the index, the listing follows it. */
      g_assert_cmpint ((int) e->code, ==, (int) i);
      g_assert_cmpstr (listed[i], ==, e->name);

      g_assert_true (stw_error_registry_lookup (registry (), e->name, &http, &retryable, &hint));
      g_assert_cmpuint (http, ==, e->http);
      g_assert_cmpint (retryable, ==, e->retryable);
      g_assert_nonnull (hint);
      g_assert_cmpuint (strlen (hint), >, 10);
      g_assert_true (g_utf8_validate (hint, -1, NULL));
      g_assert_null (strchr (hint, '\n'));
      g_assert_true (stw_error_registry_contains (registry (), e->name));

      /* Optional out arguments really are optional. */
      g_assert_true (stw_error_registry_lookup (registry (), e->name, NULL, NULL, NULL));
    }

  /* Nothing else is a core code until plugins add theirs (which sort
   * after, and always contain a dot). */
  for (guint i = 35; listed[i] != NULL; i++)
    g_assert_nonnull (strchr (listed[i], '.'));
}

static void
test_core_round_trip (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (expected_core); i++)
    {
      StwError code = STW_ERROR_PLUGIN;

      g_assert_cmpstr (stw_error_code_to_string (expected_core[i].code), ==, expected_core[i].name);
      g_assert_true (stw_error_code_from_string (expected_core[i].name, &code));
      g_assert_cmpint (code, ==, expected_core[i].code);
      g_assert_true (stw_error_code_from_string (expected_core[i].name, NULL));
    }

  /* Out-of-range values never index past the table. */
  g_assert_cmpstr (stw_error_code_to_string (STW_ERROR_PLUGIN), ==, "INTERNAL_ERROR");
  g_assert_cmpstr (stw_error_code_to_string ((StwError) 35), ==, "INTERNAL_ERROR");
  g_assert_cmpstr (stw_error_code_to_string ((StwError) -1), ==, "INTERNAL_ERROR");

  /* Wire names are exact: no case folding, no prefixes, no plugin codes. */
  g_assert_false (stw_error_code_from_string ("not_running", NULL));
  g_assert_false (stw_error_code_from_string ("NOT_RUNNING ", NULL));
  g_assert_false (stw_error_code_from_string ("STW_ERROR_NOT_RUNNING", NULL));
  g_assert_false (stw_error_code_from_string ("", NULL));
  g_assert_false (stw_error_code_from_string ("trace.NOT_RECORDING", NULL));
  g_assert_false (stw_error_registry_contains (registry (), "NOT_RUNNIN"));
  g_assert_false (stw_error_registry_contains (registry (), "PLUGIN"));
}

static void
test_core_quark (void)
{
  /* G_DEFINE_EXTENDED_ERROR names the domain after the type. */
  g_assert_cmpuint (STW_ERROR, !=, 0);
  g_assert_cmpstr (g_quark_to_string (STW_ERROR), ==, "StwError");
  g_assert_true (stw_error_registry_get_default () == stw_error_registry_get_default ());
  g_assert_true (STW_IS_ERROR_REGISTRY (stw_error_registry_get_default ()));
}

/* Rich errors {{{1 */

static void
test_error_new_core (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) literal = NULL;
  g_autoptr(GError) hinted = NULL;
  const char *registry_hint = NULL;

  error = stw_error_new ("WAIT_TIMEOUT", "waited %d ms for %s", 250, "#ok");
  g_assert_error (error, STW_ERROR, STW_ERROR_WAIT_TIMEOUT);
  g_assert_cmpstr (error->message, ==, "waited 250 ms for #ok");
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "WAIT_TIMEOUT");

  g_assert_true (stw_error_registry_lookup (registry (), "WAIT_TIMEOUT", NULL, NULL, &registry_hint));
  g_assert_cmpstr (stw_error_get_hint (error), ==, registry_hint);
  g_assert_null (stw_error_get_details (error));
  g_assert_null (stw_error_get_next_actions (error));
  g_assert_null (stw_error_get_similar_refs (error));

  /* No message: the hint is the message. */
  literal = stw_error_new_literal ("NOT_RUNNING", NULL);
  g_assert_error (literal, STW_ERROR, STW_ERROR_NOT_RUNNING);
  g_assert_cmpstr (literal->message, ==, stw_error_get_hint (literal));

  /* A per-occurrence hint overrides the registry's; NULL restores it. */
  hinted = stw_error_new_literal ("REF_NOT_FOUND", "ref 7 is stale");
  stw_error_set_hint (hinted, "Take a new snapshot");
  g_assert_cmpstr (stw_error_get_hint (hinted), ==, "Take a new snapshot");
  stw_error_set_hint (hinted, NULL);
  g_assert_true (stw_error_registry_lookup (registry (), "REF_NOT_FOUND", NULL, NULL, &registry_hint));
  g_assert_cmpstr (stw_error_get_hint (hinted), ==, registry_hint);

  /* Every core code can be raised by name. */
  for (guint i = 0; i < G_N_ELEMENTS (expected_core); i++)
    {
      g_autoptr(GError) e = stw_error_new_literal (expected_core[i].name, "x");
      g_assert_error (e, STW_ERROR, (int) expected_core[i].code);
      g_assert_cmpstr (stw_error_get_code_name (e), ==, expected_core[i].name);
    }
}

/* Core errors by their enum value, with hint and details. */
static void
test_error_new_by_code (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) literal = NULL;
  g_autoptr(GError) set = NULL;
  g_autoptr(JsonObject) details = json_object_new ();
  const char *registry_hint = NULL;

  error = stw_error_new_code (STW_ERROR_REF_NOT_FOUND, "ref %u is stale", 7);
  g_assert_error (error, STW_ERROR, STW_ERROR_REF_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "ref 7 is stale");
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "REF_NOT_FOUND");
  g_assert_true (stw_error_registry_lookup (registry (), "REF_NOT_FOUND", NULL, NULL, &registry_hint));
  g_assert_cmpstr (stw_error_get_hint (error), ==, registry_hint);

  literal = stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL);
  g_assert_error (literal, STW_ERROR, STW_ERROR_NOT_RUNNING);
  g_assert_cmpstr (literal->message, ==, stw_error_get_hint (literal));

  json_object_set_string_member (details, "field", "state");
  stw_set_error (&set, STW_ERROR_BAD_ARGUMENT, "Name a flag", details, "state %s", "{}");
  g_assert_error (set, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_assert_cmpstr (set->message, ==, "state {}");
  g_assert_cmpstr (stw_error_get_hint (set), ==, "Name a flag");
  g_assert_true (stw_error_get_details (set) == details);
  stw_set_error (NULL, STW_ERROR_BAD_ARGUMENT, NULL, NULL, "ignored");

  /* Every core code can be raised by its value. */
  for (guint i = 0; i < G_N_ELEMENTS (expected_core); i++)
    {
      g_autoptr(GError) e = stw_error_new_code_literal (expected_core[i].code, "x");
      g_assert_error (e, STW_ERROR, (int) expected_core[i].code);
      g_assert_cmpstr (stw_error_get_code_name (e), ==, expected_core[i].name);
    }
}

static void
test_error_new_plugin (void)
{
  g_autoptr(JsonObject) codes = stw_test_json_object_from (
    "{\"NOT_RECORDING\": {\"http\": 409, \"retryable\": false, \"hint\": \"Start a recording first.\"},"
    " \"WRITE_FAILED\": {\"http\": 500, \"retryable\": true, \"hint\": \"Check the disk.\"}}");
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) plain = NULL;
  g_autoptr(GError) copy = NULL;

  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "rtrace", codes, &error));
  g_assert_no_error (error);

  error = stw_error_new ("rtrace.NOT_RECORDING", "no recording in session %s", "s1");
  g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "rtrace.NOT_RECORDING");
  g_assert_cmpstr (error->message, ==, "no recording in session s1");
  g_assert_cmpstr (stw_error_get_hint (error), ==, "Start a recording first.");

  plain = stw_error_new_literal ("rtrace.WRITE_FAILED", NULL);
  g_assert_error (plain, STW_ERROR, STW_ERROR_PLUGIN);
  g_assert_cmpstr (plain->message, ==, "Check the disk.");

  /* The plugin code name lives in the error's private data: copies keep it. */
  copy = g_error_copy (error);
  g_clear_error (&error);
  g_assert_cmpstr (stw_error_get_code_name (copy), ==, "rtrace.NOT_RECORDING");

  stw_error_registry_unregister_plugin_codes (registry (), "rtrace", codes);
  g_assert_false (stw_error_registry_contains (registry (), "rtrace.NOT_RECORDING"));
}

static void
test_error_unknown_code (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) plugin = NULL;

  g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL,
                         "Error code NO_SUCH_CODE is not registered");
  error = stw_error_new ("NO_SUCH_CODE", "detail %d", 42);
  g_test_assert_expected_messages ();

  g_assert_error (error, STW_ERROR, STW_ERROR_INTERNAL_ERROR);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "INTERNAL_ERROR");
  g_assert_nonnull (strstr (error->message, "NO_SUCH_CODE"));
  g_assert_nonnull (strstr (error->message, "detail 42"));

  /* An unregistered plugin code is no better. */
  g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL,
                         "Error code ghost.GONE is not registered");
  plugin = stw_error_new_literal ("ghost.GONE", NULL);
  g_test_assert_expected_messages ();
  g_assert_error (plugin, STW_ERROR, STW_ERROR_INTERNAL_ERROR);
  g_assert_cmpstr (stw_error_get_code_name (plugin), ==, "INTERNAL_ERROR");
}

static void
test_error_foreign (void)
{
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "raw io failure");
  g_autoptr(GError) stw_plugin_without_name = NULL;
  const char *hint = NULL;

  /* Outside STW_ERROR nothing is agent-facing: INTERNAL_ERROR, no extras. */
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "INTERNAL_ERROR");
  g_assert_true (stw_error_registry_lookup (registry (), "INTERNAL_ERROR", NULL, NULL, &hint));
  g_assert_cmpstr (stw_error_get_hint (error), ==, hint);
  g_assert_null (stw_error_get_details (error));
  g_assert_null (stw_error_get_next_actions (error));
  g_assert_null (stw_error_get_similar_refs (error));

  /* STW_ERROR_PLUGIN raised by hand, without a name, is not a code. */
  stw_plugin_without_name = g_error_new_literal (STW_ERROR, STW_ERROR_PLUGIN, "hand-made");
  g_assert_cmpstr (stw_error_get_code_name (stw_plugin_without_name), ==, "INTERNAL_ERROR");

  /* The setters refuse foreign errors rather than corrupt them. */
  g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL, "*priv != NULL*");
  stw_error_set_hint (error, "nope");
  g_test_assert_expected_messages ();
}

static void
test_error_extras_copy (void)
{
  g_autoptr(GError) error = stw_error_new_literal ("REF_NOT_FOUND", "ref 12 is stale");
  g_autoptr(GError) copy = NULL;
  g_autoptr(JsonObject) details = stw_test_json_object_from ("{\"ref\": 12, \"reason\": \"stale\", \"nested\": {\"a\": [1, 2]}}");
  g_autoptr(JsonNode) refs_node = NULL;
  const char * const *actions;
  JsonObject *got_details;
  JsonArray *got_refs;

  refs_node = stw_json_parse ("[{\"ref\": 3, \"role\": \"button\", \"name\": \"Save\"},"
                              " {\"ref\": 4, \"role\": \"link\", \"name\": \"Help\"}]", -1, NULL);
  g_assert_nonnull (refs_node);

  stw_error_set_hint (error, "Take a snapshot, the page changed");
  stw_error_set_details (error, details);
  stw_error_add_next_action (error, "electron_snapshot()");
  stw_error_add_next_action (error, "electron_find({ role: \"button\" })");
  stw_error_set_similar_refs (error, json_node_get_array (refs_node));

  copy = g_error_copy (error);
  g_clear_error (&error);

  g_assert_error (copy, STW_ERROR, STW_ERROR_REF_NOT_FOUND);
  g_assert_cmpstr (copy->message, ==, "ref 12 is stale");
  g_assert_cmpstr (stw_error_get_hint (copy), ==, "Take a snapshot, the page changed");

  got_details = stw_error_get_details (copy);
  g_assert_nonnull (got_details);
  g_assert_cmpint (json_object_get_int_member (got_details, "ref"), ==, 12);
  g_assert_cmpstr (json_object_get_string_member (got_details, "reason"), ==, "stale");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_object_get_object_member (got_details, "nested"), "a")), ==, 2);

  actions = stw_error_get_next_actions (copy);
  g_assert_nonnull (actions);
  g_assert_cmpuint (g_strv_length ((char **) actions), ==, 2);
  g_assert_cmpstr (actions[0], ==, "electron_snapshot()");
  g_assert_cmpstr (actions[1], ==, "electron_find({ role: \"button\" })");

  got_refs = stw_error_get_similar_refs (copy);
  g_assert_nonnull (got_refs);
  g_assert_cmpuint (json_array_get_length (got_refs), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (got_refs, 1), "name"),
                   ==, "Help");

  /* Replacing and clearing works on the copy, too. */
  stw_error_set_details (copy, NULL);
  g_assert_null (stw_error_get_details (copy));
  stw_error_set_similar_refs (copy, NULL);
  g_assert_null (stw_error_get_similar_refs (copy));
}

static void
test_error_propagate (void)
{
  g_autoptr(GError) error = NULL;
  GError *inner = stw_error_new_literal ("BAD_ARGUMENT", "bad");
  g_autoptr(JsonObject) details = stw_test_json_object_from ("{\"issues\": []}");

  stw_error_set_details (inner, details);
  stw_error_add_next_action (inner, "fix it");
  g_propagate_prefixed_error (&error, inner, "while calling: ");

  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "while calling: bad");
  g_assert_nonnull (stw_error_get_details (error));
  g_assert_cmpstr (stw_error_get_next_actions (error)[0], ==, "fix it");
}

/* Plugin registration {{{1 */

static const char valid_batch[] =
  "{\"UNSUPPORTED\": {\"http\": 409, \"retryable\": false, \"hint\": \"Not on this transport.\"},"
  " \"ENGINE_FAILED\": {\"http\": 500, \"retryable\": true, \"hint\": \"The engine crashed; retry.\"},"
  " \"SCOPE_NOT_FOUND_2\": {\"http\": 404, \"retryable\": false, \"hint\": \"No such scope.\"}}";

static void
test_plugin_register_valid (void)
{
  g_autoptr(JsonObject) codes = stw_test_json_object_from (valid_batch);
  g_autoptr(GError) error = NULL;

  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "a11y_test", codes, &error));
  g_assert_no_error (error);

  assert_registered ("a11y_test.UNSUPPORTED", 409, FALSE, "Not on this transport.");
  assert_registered ("a11y_test.ENGINE_FAILED", 500, TRUE, "The engine crashed; retry.");
  assert_registered ("a11y_test.SCOPE_NOT_FOUND_2", 404, FALSE, "No such scope.");

  /* Namespaced: bare names are not codes, nor are other prefixes. */
  g_assert_false (stw_error_registry_contains (registry (), "UNSUPPORTED"));
  g_assert_false (stw_error_registry_contains (registry (), "a11y.UNSUPPORTED"));
  g_assert_false (stw_error_registry_contains (registry (), "a11y_test.unsupported"));
  g_assert_false (stw_error_registry_contains (registry (), "a11y_test."));

  /* The batch's JSON is not referenced: the registry copied the hints. */
  g_clear_pointer (&codes, json_object_unref);
  assert_registered ("a11y_test.UNSUPPORTED", 409, FALSE, "Not on this transport.");

  codes = stw_test_json_object_from (valid_batch);
  stw_error_registry_unregister_plugin_codes (registry (), "a11y_test", codes);
  g_assert_false (stw_error_registry_contains (registry (), "a11y_test.UNSUPPORTED"));
  g_assert_false (stw_error_registry_contains (registry (), "a11y_test.ENGINE_FAILED"));
  g_assert_false (stw_error_registry_contains (registry (), "a11y_test.SCOPE_NOT_FOUND_2"));
  g_assert_cmpuint (count_plugin_codes ("a11y_test."), ==, 0);
}

static void
test_plugin_same_bare_code (void)
{
  g_autoptr(JsonObject) one = stw_test_json_object_from ("{\"UNSUPPORTED\": {\"http\": 409, \"retryable\": false, \"hint\": \"one\"}}");
  g_autoptr(JsonObject) two = stw_test_json_object_from ("{\"UNSUPPORTED\": {\"http\": 501, \"retryable\": true, \"hint\": \"two\"}}");

  /* Two plugins may use the same bare code with different meanings. */
  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "plug_one", one, NULL));
  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "plug_two", two, NULL));
  assert_registered ("plug_one.UNSUPPORTED", 409, FALSE, "one");
  assert_registered ("plug_two.UNSUPPORTED", 501, TRUE, "two");

  stw_error_registry_unregister_plugin_codes (registry (), "plug_one", one);
  g_assert_false (stw_error_registry_contains (registry (), "plug_one.UNSUPPORTED"));
  assert_registered ("plug_two.UNSUPPORTED", 501, TRUE, "two");
  stw_error_registry_unregister_plugin_codes (registry (), "plug_two", two);
  g_assert_false (stw_error_registry_contains (registry (), "plug_two.UNSUPPORTED"));
}

static void
test_plugin_reserved_and_names (void)
{
  static const char ok_code[] = "{\"X\": {\"http\": 409, \"retryable\": false, \"hint\": \"h\"}}";
  static const char * const bad_plugins[] = {
    "electron", "", "Trace", "1trace", "_trace", "tr-ace", "tr.ace", "tr ace", "trAce", "träce",
  };
  static const char * const bad_codes[] = {
    "lower", "Mixed", "1X", "_X", "A-B", "A.B", "A B", "", "ÄX",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad_plugins); i++)
    {
      g_test_message ("plugin name “%s”", bad_plugins[i]);
      assert_refused (bad_plugins[i], ok_code);
    }
  assert_refused (NULL, ok_code);

  for (guint i = 0; i < G_N_ELEMENTS (bad_codes); i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"%s\": {\"http\": 409, \"retryable\": false, \"hint\": \"h\"}}",
                                               bad_codes[i]);
      g_test_message ("code name “%s”", bad_codes[i]);
      assert_refused ("names_test", json);
    }

  /* Digits and underscores after the first letter are fine, on both sides. */
  {
    g_autoptr(JsonObject) codes = stw_test_json_object_from ("{\"E2E_FAILED_3\": {\"http\": 500, \"retryable\": false, \"hint\": \"h\"}}");

    g_assert_true (stw_error_registry_register_plugin_codes (registry (), "p2_x", codes, NULL));
    g_assert_true (stw_error_registry_contains (registry (), "p2_x.E2E_FAILED_3"));
    stw_error_registry_unregister_plugin_codes (registry (), "p2_x", codes);
    g_assert_false (stw_error_registry_contains (registry (), "p2_x.E2E_FAILED_3"));
  }
}

static void
test_plugin_invalid_specs (void)
{
  static const char * const bad_specs[] = {
    /* http */
    "{\"retryable\": false, \"hint\": \"h\"}",
    "{\"http\": \"409\", \"retryable\": false, \"hint\": \"h\"}",
    "{\"http\": 409.5, \"retryable\": false, \"hint\": \"h\"}",
    "{\"http\": 99, \"retryable\": false, \"hint\": \"h\"}",
    "{\"http\": 600, \"retryable\": false, \"hint\": \"h\"}",
    "{\"http\": -409, \"retryable\": false, \"hint\": \"h\"}",
    "{\"http\": 4294967705, \"retryable\": false, \"hint\": \"h\"}",
    "{\"http\": null, \"retryable\": false, \"hint\": \"h\"}",
    /* retryable */
    "{\"http\": 409, \"hint\": \"h\"}",
    "{\"http\": 409, \"retryable\": \"false\", \"hint\": \"h\"}",
    "{\"http\": 409, \"retryable\": 0, \"hint\": \"h\"}",
    /* hint */
    "{\"http\": 409, \"retryable\": false}",
    "{\"http\": 409, \"retryable\": false, \"hint\": \"\"}",
    "{\"http\": 409, \"retryable\": false, \"hint\": 5}",
    "{\"http\": 409, \"retryable\": false, \"hint\": null}",
    "{\"http\": 409, \"retryable\": false, \"hint\": [\"h\"]}",
    /* not an object */
    "null", "409", "\"hint\"", "[409, false, \"h\"]",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad_specs); i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"BROKEN\": %s}", bad_specs[i]);
      g_test_message ("spec %s", bad_specs[i]);
      assert_refused ("specs_test", json);
    }

  /* The boundaries themselves are valid statuses. */
  {
    g_autoptr(JsonObject) codes = stw_test_json_object_from (
      "{\"LOW\": {\"http\": 100, \"retryable\": false, \"hint\": \"h\"},"
      " \"HIGH\": {\"http\": 599, \"retryable\": true, \"hint\": \"h\"}}");

    g_assert_true (stw_error_registry_register_plugin_codes (registry (), "specs_test", codes, NULL));
    assert_registered ("specs_test.LOW", 100, FALSE, "h");
    assert_registered ("specs_test.HIGH", 599, TRUE, "h");
    stw_error_registry_unregister_plugin_codes (registry (), "specs_test", codes);
    g_assert_cmpuint (count_plugin_codes ("specs_test."), ==, 0);
  }
}

static void
test_plugin_atomic (void)
{
  g_autoptr(JsonObject) first = stw_test_json_object_from ("{\"KEPT\": {\"http\": 409, \"retryable\": false, \"hint\": \"kept\"}}");
  g_autoptr(JsonObject) conflicting = NULL;
  g_autoptr(GError) error = NULL;

  /* One malformed entry anywhere in the batch: nothing is registered. */
  assert_refused ("atomic_test",
                  "{\"GOOD_A\": {\"http\": 409, \"retryable\": false, \"hint\": \"a\"},"
                  " \"GOOD_B\": {\"http\": 404, \"retryable\": false, \"hint\": \"b\"},"
                  " \"BAD_C\": {\"http\": 409, \"retryable\": false}}");
  assert_refused ("atomic_test",
                  "{\"bad\": {\"http\": 409, \"retryable\": false, \"hint\": \"a\"},"
                  " \"GOOD_B\": {\"http\": 404, \"retryable\": false, \"hint\": \"b\"}}");
  g_assert_cmpuint (count_plugin_codes ("atomic_test."), ==, 0);

  /* One entry conflicting with a registered code: nothing new is
   * registered, and the registered code is untouched. */
  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "atomic_test", first, NULL));
  conflicting = stw_test_json_object_from ("{\"FRESH\": {\"http\": 500, \"retryable\": true, \"hint\": \"fresh\"},"
                             " \"KEPT\": {\"http\": 410, \"retryable\": false, \"hint\": \"kept\"}}");
  g_assert_false (stw_error_registry_register_plugin_codes (registry (), "atomic_test", conflicting, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN_MANIFEST_INVALID);
  g_assert_nonnull (strstr (error->message, "atomic_test.KEPT"));
  g_assert_false (stw_error_registry_contains (registry (), "atomic_test.FRESH"));
  assert_registered ("atomic_test.KEPT", 409, FALSE, "kept");

  /* The refused batch took no reference: one unregister removes KEPT. */
  stw_error_registry_unregister_plugin_codes (registry (), "atomic_test", first);
  g_assert_false (stw_error_registry_contains (registry (), "atomic_test.KEPT"));
  g_assert_cmpuint (count_plugin_codes ("atomic_test."), ==, 0);
}

static void
test_plugin_refcount (void)
{
  g_autoptr(JsonObject) codes = stw_test_json_object_from (valid_batch);
  g_autoptr(JsonObject) copy = stw_test_json_object_from (valid_batch);
  g_autoptr(JsonObject) overlap = stw_test_json_object_from (
    "{\"UNSUPPORTED\": {\"http\": 409, \"retryable\": false, \"hint\": \"Not on this transport.\"},"
    " \"EXTRA\": {\"http\": 400, \"retryable\": false, \"hint\": \"Extra.\"}}");

  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "ref_test", codes, NULL));
  /* Identical re-registration (another JSON object, same content) succeeds. */
  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "ref_test", copy, NULL));
  g_assert_cmpuint (count_plugin_codes ("ref_test."), ==, 3);

  stw_error_registry_unregister_plugin_codes (registry (), "ref_test", codes);
  assert_registered ("ref_test.UNSUPPORTED", 409, FALSE, "Not on this transport.");
  assert_registered ("ref_test.ENGINE_FAILED", 500, TRUE, "The engine crashed; retry.");
  g_assert_cmpuint (count_plugin_codes ("ref_test."), ==, 3);

  stw_error_registry_unregister_plugin_codes (registry (), "ref_test", copy);
  g_assert_cmpuint (count_plugin_codes ("ref_test."), ==, 0);

  /* Overlapping batches count per code. */
  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "ref_test", codes, NULL));
  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "ref_test", overlap, NULL));
  g_assert_cmpuint (count_plugin_codes ("ref_test."), ==, 4);
  stw_error_registry_unregister_plugin_codes (registry (), "ref_test", overlap);
  g_assert_true (stw_error_registry_contains (registry (), "ref_test.UNSUPPORTED"));
  g_assert_false (stw_error_registry_contains (registry (), "ref_test.EXTRA"));
  g_assert_cmpuint (count_plugin_codes ("ref_test."), ==, 3);
  stw_error_registry_unregister_plugin_codes (registry (), "ref_test", codes);
  g_assert_cmpuint (count_plugin_codes ("ref_test."), ==, 0);

  /* Unregistering what is not registered is harmless, also for core-like names. */
  stw_error_registry_unregister_plugin_codes (registry (), "ref_test", codes);
  stw_error_registry_unregister_plugin_codes (registry (), "never_registered", codes);
  g_assert_cmpuint (count_plugin_codes ("ref_test."), ==, 0);
  g_assert_true (stw_error_registry_contains (registry (), "NOT_RUNNING"));
}

static void
test_plugin_conflict (void)
{
  static const char * const variants[] = {
    "{\"CODE\": {\"http\": 410, \"retryable\": false, \"hint\": \"h\"}}",
    "{\"CODE\": {\"http\": 409, \"retryable\": true, \"hint\": \"h\"}}",
    "{\"CODE\": {\"http\": 409, \"retryable\": false, \"hint\": \"h2\"}}",
  };
  g_autoptr(JsonObject) codes = stw_test_json_object_from ("{\"CODE\": {\"http\": 409, \"retryable\": false, \"hint\": \"h\"}}");

  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "conflict_test", codes, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr(JsonObject) variant = stw_test_json_object_from (variants[i]);
      g_autoptr(GError) error = NULL;

      g_assert_false (stw_error_registry_register_plugin_codes (registry (), "conflict_test", variant, &error));
      g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN_MANIFEST_INVALID);
      assert_registered ("conflict_test.CODE", 409, FALSE, "h");
    }

  /* The refusals took no reference. */
  stw_error_registry_unregister_plugin_codes (registry (), "conflict_test", codes);
  g_assert_false (stw_error_registry_contains (registry (), "conflict_test.CODE"));
}

static void
test_plugin_list_order (void)
{
  g_autoptr(JsonObject) zeta = stw_test_json_object_from ("{\"B\": {\"http\": 409, \"retryable\": false, \"hint\": \"h\"},"
                                            " \"A\": {\"http\": 409, \"retryable\": false, \"hint\": \"h\"}}");
  g_autoptr(JsonObject) alpha = stw_test_json_object_from ("{\"Z\": {\"http\": 409, \"retryable\": false, \"hint\": \"h\"}}");
  g_auto(GStrv) before = stw_error_registry_list_codes (registry ());
  g_auto(GStrv) listed = NULL;
  guint n_before = g_strv_length (before);
  guint n;

  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "zorder", zeta, NULL));
  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "aorder", alpha, NULL));

  listed = stw_error_registry_list_codes (registry ());
  n = g_strv_length (listed);
  g_assert_cmpuint (n, ==, n_before + 3);

  /* Core codes first, in contract order; then plugin codes, sorted. */
  for (guint i = 0; i < G_N_ELEMENTS (expected_core); i++)
    g_assert_cmpstr (listed[i], ==, expected_core[i].name);
  for (guint i = G_N_ELEMENTS (expected_core) + 1; i < n; i++)
    g_assert_cmpint (strcmp (listed[i - 1], listed[i]), <, 0);
  g_assert_true (g_strv_contains ((const char * const *) listed, "aorder.Z"));
  g_assert_true (g_strv_contains ((const char * const *) listed, "zorder.A"));
  g_assert_true (g_strv_contains ((const char * const *) listed, "zorder.B"));

  stw_error_registry_unregister_plugin_codes (registry (), "zorder", zeta);
  stw_error_registry_unregister_plugin_codes (registry (), "aorder", alpha);
  g_clear_pointer (&listed, g_strfreev);
  listed = stw_error_registry_list_codes (registry ());
  g_assert_cmpuint (g_strv_length (listed), ==, n_before);
}

static void
test_plugin_hint_outlives (void)
{
  g_autoptr(JsonObject) codes = stw_test_json_object_from ("{\"GONE\": {\"http\": 409, \"retryable\": false, \"hint\": \"A hint that must survive.\"}}");
  g_autoptr(GError) error = NULL;
  const char *hint = NULL;

  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "outlive_test", codes, NULL));
  error = stw_error_new_literal ("outlive_test.GONE", "gone");
  g_assert_true (stw_error_registry_lookup (registry (), "outlive_test.GONE", NULL, NULL, &hint));
  stw_error_registry_unregister_plugin_codes (registry (), "outlive_test", codes);

  /* A hint handed out before the plugin went away stays readable (another
   * thread may be building an envelope with it). */
  g_assert_cmpstr (hint, ==, "A hint that must survive.");

  /* The error itself outlives its code: it still names it, and its hint
   * is gone with the registration rather than dangling. */
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "outlive_test.GONE");
  g_assert_null (stw_error_get_hint (error));
}

typedef struct
{
  JsonObject *codes;
  gint        stop;
} RaceData;

static gpointer
lookup_thread (gpointer data)
{
  RaceData *race = data;
  guint seen = 0;

  while (!g_atomic_int_get (&race->stop))
    {
      const char *hint = NULL;

      if (stw_error_registry_lookup (registry (), "race_test.UNSUPPORTED", NULL, NULL, &hint))
        {
          if (strcmp (hint, "Not on this transport.") != 0)
            return GINT_TO_POINTER (FALSE);
          seen++;
        }
    }
  g_test_message ("lookup thread saw the code %u times", seen);
  return GINT_TO_POINTER (TRUE);
}

static void
test_plugin_lookup_race (void)
{
  RaceData race = { stw_test_json_object_from (valid_batch), 0 };
  GThread *reader = g_thread_new ("lookup", lookup_thread, &race);

  for (guint i = 0; i < 2000; i++)
    {
      g_assert_true (stw_error_registry_register_plugin_codes (registry (), "race_test", race.codes, NULL));
      stw_error_registry_unregister_plugin_codes (registry (), "race_test", race.codes);
    }
  g_atomic_int_set (&race.stop, 1);
  g_assert_true (GPOINTER_TO_INT (g_thread_join (reader)));
  g_assert_cmpuint (count_plugin_codes ("race_test."), ==, 0);
  json_object_unref (race.codes);
}

static gpointer
register_thread (gpointer data)
{
  JsonObject *codes = data;

  for (guint i = 0; i < 500; i++)
    {
      if (!stw_error_registry_register_plugin_codes (registry (), "thread_test", codes, NULL))
        return GINT_TO_POINTER (FALSE);
      if (!stw_error_registry_contains (registry (), "thread_test.UNSUPPORTED"))
        return GINT_TO_POINTER (FALSE);
      stw_error_registry_unregister_plugin_codes (registry (), "thread_test", codes);
    }
  return GINT_TO_POINTER (TRUE);
}

static void
test_plugin_threads (void)
{
  g_autoptr(JsonObject) codes = stw_test_json_object_from (valid_batch);
  GThread *threads[4];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("register", register_thread, codes);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_assert_true (GPOINTER_TO_INT (g_thread_join (threads[i])));

  /* Balanced registrations leave nothing behind. */
  g_assert_cmpuint (count_plugin_codes ("thread_test."), ==, 0);
}

/* }}} */

/* A plugin's own error domain: its codes survive what a language binding
 * keeps of an error (domain, code and message). */
typedef enum
{
  RDOM_ERROR_NOT_RECORDING,
  RDOM_ERROR_WRITE_FAILED,
  RDOM_ERROR_UNREGISTERED,
} RdomError;

static GType rdom_error_get_type (void);
G_DEFINE_ENUM_TYPE (RdomError, rdom_error,
  G_DEFINE_ENUM_VALUE (RDOM_ERROR_NOT_RECORDING, "not-recording"),
  G_DEFINE_ENUM_VALUE (RDOM_ERROR_WRITE_FAILED, "write-failed"),
  G_DEFINE_ENUM_VALUE (RDOM_ERROR_UNREGISTERED, "unregistered"))

static void
test_plugin_domain (void)
{
  g_autoptr(JsonObject) codes = stw_test_json_object_from (
    "{\"NOT_RECORDING\": {\"http\": 409, \"retryable\": false, \"hint\": \"Start a recording first.\"},"
    " \"WRITE_FAILED\": {\"http\": 500, \"retryable\": true, \"hint\": \"Check the disk.\"}}");
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) copy = NULL;
  g_autoptr(GError) bound = NULL;
  g_autoptr(GError) stray = NULL;
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(JsonObject) details = json_object_new ();
  GQuark domain;

  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "rdom", codes, &error));
  g_assert_no_error (error);

  domain = stw_error_register_domain ("rdom", rdom_error_get_type ());
  g_assert_cmpuint (domain, !=, 0);
  g_assert_cmpstr (g_quark_to_string (domain), ==, "stw-rdom-error-quark");
  g_assert_cmpuint (stw_error_register_domain ("rdom", rdom_error_get_type ()), ==, domain);
  g_assert_true (stw_error_domain_is_registered (domain));
  g_assert_true (stw_error_domain_is_registered (STW_ERROR));
  g_assert_false (stw_error_domain_is_registered (G_IO_ERROR));
  g_assert_false (stw_error_domain_is_registered (0));

  /* Made by wire name, the error is in the plugin's domain. */
  error = stw_error_new ("rdom.WRITE_FAILED", "disk full at %s", "/x");
  g_assert_error (error, domain, RDOM_ERROR_WRITE_FAILED);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "rdom.WRITE_FAILED");
  g_assert_cmpstr (stw_error_get_hint (error), ==, "Check the disk.");
  stw_error_set_hint (error, "Free some space.");
  json_object_set_string_member (details, "path", "/x");
  stw_error_set_details (error, details);
  stw_error_add_next_action (error, "rdom_retry");

  /* Hints, details and next actions travel with copies, as in STW_ERROR. */
  copy = g_error_copy (error);
  g_clear_error (&error);
  g_assert_error (copy, domain, RDOM_ERROR_WRITE_FAILED);
  g_assert_cmpstr (stw_error_get_hint (copy), ==, "Free some space.");
  g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (copy), "path"), ==, "/x");
  g_assert_cmpstr (stw_error_get_next_actions (copy)[0], ==, "rdom_retry");

  envelope = stw_envelope_new_error (copy, 1, NULL);
  g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, "rdom.WRITE_FAILED");
  g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, 500);
  g_assert_true (json_object_get_boolean_member (envelope, "retryable"));
  g_assert_cmpstr (json_object_get_string_member (envelope, "hint"), ==, "Free some space.");

  /* What Python or GJS hands back: domain, code and message only. */
  bound = g_error_new_literal (domain, RDOM_ERROR_NOT_RECORDING, "from a binding");
  g_assert_cmpstr (stw_error_get_code_name (bound), ==, "rdom.NOT_RECORDING");
  g_assert_cmpstr (stw_error_get_hint (bound), ==, "Start a recording first.");

  /* A value outside the enum has no wire code. */
  stray = g_error_new_literal (domain, 99, "stray");
  g_assert_cmpstr (stw_error_get_code_name (stray), ==, "INTERNAL_ERROR");

  /* A plugin without a domain keeps the old form. */
  g_clear_error (&error);
  g_assert_true (stw_error_registry_register_plugin_codes (registry (), "rnodom", codes, &error));
  error = stw_error_new_literal ("rnodom.WRITE_FAILED", NULL);
  g_assert_error (error, STW_ERROR, STW_ERROR_PLUGIN);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "rnodom.WRITE_FAILED");

  stw_error_registry_unregister_plugin_codes (registry (), "rnodom", codes);
  stw_error_registry_unregister_plugin_codes (registry (), "rdom", codes);
}

static void
test_plugin_domain_invalid (void)
{
  if (g_test_subprocess ())
    {
      /* Another type for a plugin that has a domain is a programmer error. */
      g_assert_cmpuint (stw_error_register_domain ("rdomtwo", rdom_error_get_type ()), !=, 0);
      g_assert_cmpuint (stw_error_register_domain ("rdomtwo", STW_TYPE_ERROR), ==, 0);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*already has an error domain*");

  g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL, "*electron*");
  g_assert_cmpuint (stw_error_register_domain ("electron", rdom_error_get_type ()), ==, 0);
  g_test_assert_expected_messages ();
  g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL, "*G_TYPE_IS_ENUM*");
  g_assert_cmpuint (stw_error_register_domain ("rbad", G_TYPE_STRING), ==, 0);
  g_test_assert_expected_messages ();
  g_test_expect_message ("Stagewright", G_LOG_LEVEL_CRITICAL, "*islower*");
  g_assert_cmpuint (stw_error_register_domain ("Rbad", rdom_error_get_type ()), ==, 0);
  g_test_assert_expected_messages ();
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/registry/core/table", test_core_table);
  g_test_add_func ("/registry/core/round-trip", test_core_round_trip);
  g_test_add_func ("/registry/core/quark", test_core_quark);
  g_test_add_func ("/registry/error/new-core", test_error_new_core);
  g_test_add_func ("/registry/error/new-by-code", test_error_new_by_code);
  g_test_add_func ("/registry/error/new-plugin", test_error_new_plugin);
  g_test_add_func ("/registry/error/unknown-code", test_error_unknown_code);
  g_test_add_func ("/registry/error/foreign", test_error_foreign);
  g_test_add_func ("/registry/error/extras-copy", test_error_extras_copy);
  g_test_add_func ("/registry/error/propagate", test_error_propagate);
  g_test_add_func ("/registry/plugin/register-valid", test_plugin_register_valid);
  g_test_add_func ("/registry/plugin/same-bare-code", test_plugin_same_bare_code);
  g_test_add_func ("/registry/plugin/names", test_plugin_reserved_and_names);
  g_test_add_func ("/registry/plugin/invalid-specs", test_plugin_invalid_specs);
  g_test_add_func ("/registry/plugin/atomic", test_plugin_atomic);
  g_test_add_func ("/registry/plugin/refcount", test_plugin_refcount);
  g_test_add_func ("/registry/plugin/conflict", test_plugin_conflict);
  g_test_add_func ("/registry/plugin/list-order", test_plugin_list_order);
  g_test_add_func ("/registry/plugin/threads", test_plugin_threads);
  g_test_add_func ("/registry/plugin/hint-outlives", test_plugin_hint_outlives);
  g_test_add_func ("/registry/plugin/lookup-race", test_plugin_lookup_race);
  g_test_add_func ("/registry/plugin/domain", test_plugin_domain);
  g_test_add_func ("/registry/plugin/domain-invalid", test_plugin_domain_invalid);

  return g_test_run ();
}

/* vim: set foldmethod=marker: */
