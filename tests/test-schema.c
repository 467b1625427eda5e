/* test-schema.c: StwSchema compilation, validation and defaults
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "stw-schema.h"
#include "stw-json-private.h"
#include "stw-test-utils.h"

/* Helpers {{{1 */

static StwSchema *
schema_from (const char *json)
{
  g_autoptr(GError) error = NULL;
  StwSchema *schema = stw_schema_new_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (schema);
  return schema;
}

static const char * const known_codes[] = {
  "invalid_type", "unrecognized_keys", "invalid_value", "too_small", "too_big",
  "invalid_format", "invalid_union", "too_many_issues",
};

/* Every issue has exactly this shape, whatever produced it. */
static void
check_issue_shape (JsonNode *element)
{
  JsonObject *issue;
  g_autoptr(GList) members = NULL;
  const char *code;
  gboolean known = FALSE;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (element));
  issue = json_node_get_object (element);

  g_assert_true (json_object_has_member (issue, "field"));
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (issue, "field")), ==, G_TYPE_STRING);
  g_assert_true (json_object_has_member (issue, "code"));
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (issue, "code")), ==, G_TYPE_STRING);
  g_assert_true (json_object_has_member (issue, "message"));
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (issue, "message")), ==, G_TYPE_STRING);
  g_assert_cmpstr (json_object_get_string_member (issue, "message"), !=, "");
  if (json_object_has_member (issue, "expected"))
    g_assert_cmpint (json_node_get_value_type (json_object_get_member (issue, "expected")), ==, G_TYPE_STRING);

  code = json_object_get_string_member (issue, "code");
  for (guint i = 0; i < G_N_ELEMENTS (known_codes); i++)
    known |= strcmp (code, known_codes[i]) == 0;
  g_assert_true (known);

  members = json_object_get_members (issue);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;

      if (strcmp (name, "branches") == 0 || strcmp (name, "matched") == 0)
        {
          g_assert_cmpstr (code, ==, "invalid_union");
          g_assert_cmpint (json_node_get_value_type (json_object_get_member (issue, name)), ==, G_TYPE_INT64);
        }
      else
        g_assert_true (strcmp (name, "field") == 0 || strcmp (name, "code") == 0
                       || strcmp (name, "expected") == 0 || strcmp (name, "message") == 0);
    }
}

/* "valid", or the issues as "field|code|expected; ...". Checks along the
 * way that the verdict does not depend on whether issues are asked for. */
static char *
summarize_node (StwSchema *schema,
                JsonNode  *instance)
{
  g_autoptr(JsonArray) issues = NULL;
  GString *summary;
  gboolean valid;
  guint n;

  valid = stw_schema_validate (schema, instance, &issues);
  g_assert_cmpint (valid, ==, stw_schema_validate (schema, instance, NULL));
  if (valid)
    {
      g_assert_null (issues);
      return g_strdup ("valid");
    }

  g_assert_nonnull (issues);
  n = json_array_get_length (issues);
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpuint (n, <=, 32);

  summary = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (issues, i);
      JsonObject *issue;

      check_issue_shape (element);
      issue = json_node_get_object (element);
      if (i > 0)
        g_string_append (summary, "; ");
      g_string_append_printf (summary, "%s|%s",
                              json_object_get_string_member (issue, "field"),
                              json_object_get_string_member (issue, "code"));
      if (json_object_has_member (issue, "expected"))
        g_string_append_printf (summary, "|%s", json_object_get_string_member (issue, "expected"));
    }
  return g_string_free (summary, FALSE);
}

static char *
summarize (StwSchema  *schema,
           const char *instance_json)
{
  g_autoptr(JsonNode) instance = stw_test_parse (instance_json);

  return summarize_node (schema, instance);
}

#define assert_summary(schema, instance_json, expected) \
  G_STMT_START { \
    g_autofree char *_summary = summarize ((schema), (instance_json)); \
    g_assert_cmpstr (_summary, ==, (expected)); \
  } G_STMT_END

#define assert_valid(schema, instance_json) assert_summary ((schema), (instance_json), "valid")

/* Validates and returns the first issue's message. */
static char *
first_message (StwSchema  *schema,
               const char *instance_json)
{
  g_autoptr(JsonNode) instance = stw_test_parse (instance_json);
  g_autoptr(JsonArray) issues = NULL;

  g_assert_false (stw_schema_validate (schema, instance, &issues));
  return g_strdup (json_object_get_string_member (json_array_get_object_element (issues, 0), "message"));
}

#define assert_message(schema, instance_json, expected) \
  G_STMT_START { \
    g_autofree char *_message = first_message ((schema), (instance_json)); \
    g_assert_cmpstr (_message, ==, (expected)); \
  } G_STMT_END

/* A schema like a real interaction tool's. */
static const char tool_schema_json[] =
  "{"
  "  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\","
  "  \"title\": \"electron_click\","
  "  \"description\": \"Click an element.\","
  "  \"type\": \"object\","
  "  \"properties\": {"
  "    \"sessionId\": { \"type\": \"string\", \"minLength\": 1, \"description\": \"Which session.\" },"
  "    \"ref\": { \"type\": \"integer\", \"minimum\": 1 },"
  "    \"selector\": { \"type\": \"string\", \"minLength\": 1, \"examples\": [\"#ok\"] },"
  "    \"force\": { \"type\": \"boolean\", \"default\": false },"
  "    \"timeoutMs\": { \"type\": \"integer\", \"minimum\": 0, \"maximum\": 30000, \"default\": 5000 },"
  "    \"button\": { \"enum\": [\"left\", \"right\", \"middle\"], \"default\": \"left\" },"
  "    \"modifiers\": { \"type\": \"array\", \"maxItems\": 4,"
  "                   \"items\": { \"type\": \"string\", \"enum\": [\"Alt\", \"Control\", \"Meta\", \"Shift\"] } },"
  "    \"clip\": { \"type\": \"object\", \"additionalProperties\": false,"
  "              \"required\": [\"x\", \"y\", \"width\", \"height\"],"
  "              \"properties\": {"
  "                \"x\": { \"type\": \"number\" }, \"y\": { \"type\": \"number\" },"
  "                \"width\": { \"type\": \"number\", \"exclusiveMinimum\": 0 },"
  "                \"height\": { \"type\": \"number\", \"exclusiveMinimum\": 0 } } },"
  "    \"args\": { \"type\": \"array\", \"items\": { \"anyOf\": ["
  "                { \"type\": \"string\" }, { \"type\": \"number\" },"
  "                { \"type\": \"boolean\" }, { \"type\": \"null\" } ] } },"
  "    \"key\": { \"type\": \"string\", \"pattern\": \"^[A-Za-z0-9+]+$\", \"maxLength\": 32 },"
  "    \"mode\": { \"oneOf\": [ { \"const\": \"full\" }, { \"const\": \"diff\" },"
  "                           { \"type\": \"integer\", \"minimum\": 1 } ] }"
  "  },"
  "  \"anyOf\": [ { \"required\": [\"ref\"] }, { \"required\": [\"selector\"] } ],"
  "  \"additionalProperties\": false"
  "}";

/* Construction {{{1 */

static void
test_construct_valid (void)
{
  g_autoptr(StwSchema) schema = schema_from (tool_schema_json);
  g_autoptr(JsonNode) expected = stw_test_parse (tool_schema_json);
  g_autofree char *expected_text = stw_test_to_json (expected);
  g_autofree char *actual_text = stw_test_to_json (stw_schema_get_node (schema));
  StwSchema *copy;

  /* get_node is the schema as given: tools/list shows what is validated. */
  g_assert_cmpstr (actual_text, ==, expected_text);
  g_assert_true (json_node_is_immutable (stw_schema_get_node (schema)));

  g_assert_true (G_TYPE_IS_BOXED (STW_TYPE_SCHEMA));
  copy = g_boxed_copy (STW_TYPE_SCHEMA, schema);
  g_assert_true (copy == schema);
  g_boxed_free (STW_TYPE_SCHEMA, copy);

  copy = stw_schema_ref (schema);
  g_assert_true (copy == schema);
  stw_schema_unref (copy);
  g_assert_cmpstr (actual_text, ==, expected_text);
}

static void
test_construct_node_ownership (void)
{
  g_autoptr(JsonNode) mutable = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) sealed = stw_test_parse ("{\"type\":\"string\"}");
  g_autoptr(StwSchema) from_mutable = NULL;
  g_autoptr(StwSchema) from_sealed = NULL;
  g_autofree char *text = NULL;
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", "integer");
  json_node_take_object (mutable, object);
  from_mutable = stw_schema_new (mutable, NULL);
  g_assert_nonnull (from_mutable);

  /* Changing the caller's node later changes neither the schema shown nor
   * the one enforced. */
  json_object_set_string_member (object, "type", "string");
  json_object_set_int_member (object, "minLength", 100);
  text = stw_test_to_json (stw_schema_get_node (from_mutable));
  g_assert_cmpstr (text, ==, "{\"type\":\"integer\"}");
  assert_valid (from_mutable, "5");
  assert_summary (from_mutable, "\"x\"", "|invalid_type|integer");

  json_node_seal (sealed);
  from_sealed = stw_schema_new (sealed, NULL);
  g_assert_true (stw_schema_get_node (from_sealed) == sealed);
}

typedef struct
{
  const char *schema;
  const char *pointer;   /* must appear in the message */
} BadSchema;

static void
test_construct_errors (void)
{
  static const BadSchema cases[] = {
    { "5", "#:" },
    { "\"object\"", "#:" },
    { "null", "#:" },
    { "[]", "#:" },
    { "{\"frobnicate\":1}", "#/frobnicate:" },
    { "{\"$ref\":\"#/$defs/x\"}", "#/$ref:" },
    { "{\"nullable\":true}", "#/nullable:" },
    { "{\"type\":7}", "#/type:" },
    { "{\"type\":\"strin\"}", "#/type:" },
    { "{\"type\":[]}", "#/type:" },
    { "{\"type\":[\"string\",\"string\"]}", "#/type/1:" },
    { "{\"type\":[\"string\",3]}", "#/type/1:" },
    { "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"strin\"}}}", "#/properties/a/type:" },
    { "{\"properties\":[]}", "#/properties:" },
    { "{\"properties\":{\"a\":5}}", "#/properties/a:" },
    { "{\"properties\":{\"a/b\":{\"properties\":{\"c~d\":{\"minimum\":\"x\"}}}}}",
      "#/properties/a~1b/properties/c~0d/minimum:" },
    { "{\"properties\":{\"clip\":{\"properties\":{\"width\":{\"minimum\":true}}}}}",
      "#/properties/clip/properties/width/minimum:" },
    { "{\"required\":\"a\"}", "#/required:" },
    { "{\"required\":[\"a\",3]}", "#/required/1:" },
    { "{\"required\":[\"a\",\"b\",\"a\"]}", "#/required/2:" },
    { "{\"additionalProperties\":3}", "#/additionalProperties:" },
    { "{\"additionalProperties\":{\"type\":1}}", "#/additionalProperties/type:" },
    { "{\"enum\":[]}", "#/enum:" },
    { "{\"enum\":\"a\"}", "#/enum:" },
    { "{\"minimum\":\"1\"}", "#/minimum:" },
    { "{\"maximum\":null}", "#/maximum:" },
    { "{\"exclusiveMinimum\":true}", "#/exclusiveMinimum:" },
    { "{\"exclusiveMaximum\":1e400}", "#/exclusiveMaximum:" },
    { "{\"minimum\":5,\"maximum\":3}", "#/minimum:" },
    { "{\"minimum\":3,\"exclusiveMaximum\":3}", "#/minimum:" },
    { "{\"exclusiveMinimum\":3,\"maximum\":3}", "#/exclusiveMinimum:" },
    { "{\"exclusiveMinimum\":3,\"exclusiveMaximum\":2.5}", "#/exclusiveMinimum:" },
    { "{\"minimum\":1.5,\"maximum\":1}", "#/minimum:" },
    { "{\"minLength\":-1}", "#/minLength:" },
    { "{\"maxLength\":1.5}", "#/maxLength:" },
    { "{\"minItems\":\"1\"}", "#/minItems:" },
    { "{\"maxItems\":-3.0}", "#/maxItems:" },
    { "{\"minLength\":3,\"maxLength\":2}", "#/minLength:" },
    { "{\"minItems\":3,\"maxItems\":2}", "#/minItems:" },
    { "{\"pattern\":\"(\"}", "#/pattern:" },
    { "{\"pattern\":\"[a-\"}", "#/pattern:" },
    { "{\"pattern\":5}", "#/pattern:" },
    { "{\"items\":[{}]}", "#/items:" },
    { "{\"items\":5}", "#/items:" },
    { "{\"items\":{\"items\":{\"minItems\":-1}}}", "#/items/items/minItems:" },
    { "{\"anyOf\":[]}", "#/anyOf:" },
    { "{\"anyOf\":{}}", "#/anyOf:" },
    { "{\"oneOf\":[{},{\"type\":\"x\"}]}", "#/oneOf/1/type:" },
    { "{\"anyOf\":[5]}", "#/anyOf/0:" },
    { "{\"description\":5}", "#/description:" },
    { "{\"title\":[]}", "#/title:" },
    { "{\"$comment\":1}", "#/$comment:" },
    { "{\"$schema\":{}}", "#/$schema:" },
    { "{\"format\":1}", "#/format:" },
    { "{\"examples\":{}}", "#/examples:" },
    { "{\"deprecated\":\"yes\"}", "#/deprecated:" },
    { "{\"readOnly\":1}", "#/readOnly:" },
    { "{\"writeOnly\":null}", "#/writeOnly:" },
    /* Defaults must satisfy their own schema. */
    { "{\"type\":\"integer\",\"minimum\":1,\"default\":0}", "#/default:" },
    { "{\"properties\":{\"t\":{\"type\":\"integer\",\"default\":\"5\"}}}", "#/properties/t/default:" },
    { "{\"properties\":{\"b\":{\"enum\":[\"l\",\"r\"],\"default\":\"m\"}}}", "#/properties/b/default:" },
    { "{\"properties\":{\"o\":{\"type\":\"object\",\"required\":[\"a\"],\"default\":{}}}}",
      "#/properties/o/default:" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(StwSchema) schema = stw_schema_new_from_string (cases[i].schema, &error);

      g_assert_null (schema);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      if (strstr (error->message, cases[i].pointer) == NULL)
        g_error ("%s: “%s” does not name %s", cases[i].schema, error->message, cases[i].pointer);
    }
}

static void
test_construct_messages (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = NULL;

  schema = stw_schema_new_from_string ("{\"properties\":{\"a\":{\"maximum\":3,\"minimum\":5}}}", &error);
  g_assert_null (schema);
  g_assert_cmpstr (error->message, ==,
                   "Invalid schema at #/properties/a/minimum: minimum (>= 5) leaves no room below maximum (<= 3)");
  g_clear_error (&error);

  schema = stw_schema_new_from_string ("{\"type\":\"object\",\"bogus\":true}", &error);
  g_assert_null (schema);
  g_assert_cmpstr (error->message, ==, "Invalid schema at #/bogus: unknown or unsupported keyword “bogus”");
  g_clear_error (&error);

  /* x- keywords are annotations: accepted with any value, constraining
   * nothing (a plugin marks its safe configuration fields so). */
  schema = stw_schema_new_from_string ("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\","
                                       "\"x-stagewright-safe\":true,\"x-note\":{\"any\":[1]}}}}", &error);
  g_assert_no_error (error);
  g_assert_nonnull (schema);
  {
    g_autoptr(JsonNode) good = stw_test_parse ("{\"a\":1}");
    g_autoptr(JsonNode) bad = stw_test_parse ("{\"a\":\"1\"}");
    g_autoptr(JsonArray) issues = NULL;

    g_assert_true (stw_schema_validate (schema, good, NULL));
    g_assert_false (stw_schema_validate (schema, bad, &issues));
    g_assert_cmpuint (json_array_get_length (issues), ==, 1);
  }
  g_clear_pointer (&schema, stw_schema_unref);

  schema = stw_schema_new_from_string ("{\"pattern\":\"a(b\"}", &error);
  g_assert_null (schema);
  g_assert_true (g_str_has_prefix (error->message, "Invalid schema at #/pattern: invalid regular expression: "));
  g_clear_error (&error);

  /* Only a caller building nodes by hand can get here: the parser insists
   * on UTF-8. PCRE2 would read past the end of such a pattern. */
  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
    JsonObject *object = json_object_new ();

    json_object_set_string_member (object, "pattern", "trail\xf0");
    json_node_take_object (node, object);
    schema = stw_schema_new (node, &error);
    g_assert_null (schema);
    g_assert_cmpstr (error->message, ==, "Invalid schema at #/pattern: the regular expression is not valid UTF-8");
  }
}

static void
test_construct_from_string_errors (void)
{
  static const char * const texts[] = { "", "   ", "{", "{\"type\":}", "[1,", "nope", "\xff" };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(StwSchema) schema = stw_schema_new_from_string (texts[i], &error);

      g_assert_null (schema);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    }
}

static void
test_construct_depth (void)
{
  GString *deep = g_string_new (NULL);
  GString *ok = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = NULL;
  g_autofree char *deep_text = NULL;
  g_autofree char *ok_text = NULL;

  for (guint i = 0; i < 100; i++)
    g_string_append (deep, "{\"items\":");
  g_string_append (deep, "{}");
  for (guint i = 0; i < 100; i++)
    g_string_append_c (deep, '}');
  deep_text = g_string_free (deep, FALSE);

  schema = stw_schema_new_from_string (deep_text, &error);
  g_assert_null (schema);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "nested deeper"));

  for (guint i = 0; i < 60; i++)
    g_string_append (ok, "{\"items\":");
  g_string_append (ok, "{\"type\":\"string\"}");
  for (guint i = 0; i < 60; i++)
    g_string_append_c (ok, '}');
  ok_text = g_string_free (ok, FALSE);
  schema = schema_from (ok_text);
  assert_valid (schema, "[[[]]]");
}

static void
test_construct_annotations (void)
{
  g_autoptr(StwSchema) schema =
    schema_from ("{\"$schema\":\"x\",\"$comment\":\"c\",\"title\":\"t\",\"description\":\"d\","
                 "\"examples\":[1,\"a\"],\"deprecated\":true,\"readOnly\":false,\"writeOnly\":false,"
                 "\"format\":\"uri\",\"type\":\"string\"}");

  /* format is an annotation only. */
  assert_valid (schema, "\"not a uri\"");
  assert_summary (schema, "1", "|invalid_type|string");
}

/* Types {{{1 */

typedef struct
{
  const char *type;
  const char *accepted;  /* "|instance|instance|" */
} TypeCase;

static void
test_type_single (void)
{
  static const char * const instances[] = {
    "{}", "{\"a\":1}", "[]", "[1]", "\"\"", "\"s\"", "0", "-3", "2.5", "5.0", "true", "false", "null",
  };
  static const char * const received[] = {
    "object", "object", "array", "array", "string", "string", "number", "number", "number",
    "number", "boolean", "boolean", "null",
  };
  static const TypeCase cases[] = {
    { "object", "|{}|{\"a\":1}|" },
    { "array", "|[]|[1]|" },
    { "string", "|\"\"|\"s\"|" },
    { "number", "|0|-3|2.5|5.0|" },
    { "integer", "|0|-3|5.0|" },
    { "boolean", "|true|false|" },
    { "null", "|null|" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *schema_json = g_strdup_printf ("{\"type\":\"%s\"}", cases[c].type);
      g_autoptr(StwSchema) schema = schema_from (schema_json);

      for (guint i = 0; i < G_N_ELEMENTS (instances); i++)
        {
          g_autofree char *needle = g_strdup_printf ("|%s|", instances[i]);
          gboolean accepted = strstr (cases[c].accepted, needle) != NULL;
          g_autofree char *summary = summarize (schema, instances[i]);

          if (accepted)
            g_assert_cmpstr (summary, ==, "valid");
          else
            {
              g_autofree char *expected = g_strdup_printf ("|invalid_type|%s", cases[c].type);
              g_autofree char *message = first_message (schema, instances[i]);
              g_autofree char *expected_message = g_strdup_printf ("Expected %s, received %s",
                                                                   cases[c].type, received[i]);

              g_assert_cmpstr (summary, ==, expected);
              g_assert_cmpstr (message, ==, expected_message);
            }
        }
    }
}

static void
test_type_list (void)
{
  g_autoptr(StwSchema) schema = schema_from ("{\"type\":[\"null\",\"string\"]}");
  g_autoptr(StwSchema) untyped = schema_from ("{}");

  assert_valid (schema, "\"a\"");
  assert_valid (schema, "null");
  /* Listed in a fixed order, whatever the schema's order. */
  assert_summary (schema, "1", "|invalid_type|string | null");
  assert_message (schema, "[1]", "Expected string | null, received array");

  assert_valid (untyped, "1");
  assert_valid (untyped, "null");
  assert_valid (untyped, "{\"a\":[1,{}]}");

  /* NULL is checked as JSON null. */
  g_assert_true (stw_schema_validate (schema, NULL, NULL));
  {
    g_autoptr(StwSchema) strings = schema_from ("{\"type\":\"string\"}");
    g_autoptr(JsonArray) issues = NULL;

    g_assert_false (stw_schema_validate (strings, NULL, &issues));
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (issues, 0), "message"),
                     ==, "Expected string, received null");
  }
}

static void
test_type_integer (void)
{
  g_autoptr(StwSchema) schema = schema_from ("{\"type\":\"integer\"}");
  g_autoptr(StwSchema) number = schema_from ("{\"type\":\"number\"}");
  g_autoptr(JsonNode) infinite = json_node_init_double (json_node_alloc (), 1e308 * 10);
  g_autoptr(JsonNode) not_a_number = json_node_init_double (json_node_alloc (), 0.0 / 0.0);
  g_autoptr(JsonNode) big = json_node_init_double (json_node_alloc (), 1e300);
  g_autofree char *inf_summary = NULL;
  g_autofree char *nan_summary = NULL;
  g_autofree char *big_summary = NULL;

  assert_valid (schema, "5");
  assert_valid (schema, "5.0");
  assert_valid (schema, "-0.0");
  assert_valid (schema, "1e2");
  assert_valid (schema, "9223372036854775807");
  assert_valid (schema, "-9223372036854775807");
  assert_valid (schema, "9007199254740993.0");
  assert_summary (schema, "5.5", "|invalid_type|integer");
  assert_summary (schema, "-0.5", "|invalid_type|integer");
  assert_summary (schema, "1e-300", "|invalid_type|integer");
  assert_message (schema, "5.5", "Expected integer, received number");
  assert_summary (schema, "\"5\"", "|invalid_type|integer");

  /* Integral beyond int64: still an integer, and nothing overflows. */
  big_summary = summarize_node (schema, big);
  g_assert_cmpstr (big_summary, ==, "valid");
  inf_summary = summarize_node (schema, infinite);
  g_assert_cmpstr (inf_summary, ==, "|invalid_type|integer");
  nan_summary = summarize_node (schema, not_a_number);
  g_assert_cmpstr (nan_summary, ==, "|invalid_type|integer");

  g_clear_pointer (&inf_summary, g_free);
  inf_summary = summarize_node (number, infinite);
  g_assert_cmpstr (inf_summary, ==, "valid");
  assert_valid (number, "1e400");   /* json-glib reads it as infinity */
}

/* Numbers {{{1 */

static void
test_number_bounds (void)
{
  g_autoptr(StwSchema) inclusive = schema_from ("{\"type\":\"integer\",\"minimum\":0,\"maximum\":30000}");
  g_autoptr(StwSchema) exclusive = schema_from ("{\"exclusiveMinimum\":0,\"exclusiveMaximum\":1.5}");
  g_autoptr(StwSchema) both = schema_from ("{\"minimum\":1,\"exclusiveMinimum\":0.5,"
                                           "\"maximum\":10,\"exclusiveMaximum\":9.75}");
  g_autoptr(StwSchema) fractional = schema_from ("{\"maximum\":0.1}");

  assert_valid (inclusive, "0");
  assert_valid (inclusive, "30000");
  assert_valid (inclusive, "30000.0");
  assert_summary (inclusive, "-1", "|too_small|>= 0");
  assert_summary (inclusive, "30001", "|too_big|<= 30000");
  assert_summary (inclusive, "-9223372036854775807", "|too_small|>= 0");
  assert_summary (inclusive, "1e300", "|too_big|<= 30000");
  assert_message (inclusive, "30001", "Number must be <= 30000");
  assert_message (inclusive, "-1", "Number must be >= 0");

  assert_valid (exclusive, "1");
  assert_valid (exclusive, "1.4999");
  assert_valid (exclusive, "1e-300");
  assert_summary (exclusive, "0", "|too_small|> 0");
  assert_summary (exclusive, "0.0", "|too_small|> 0");
  assert_summary (exclusive, "-0.0", "|too_small|> 0");
  assert_summary (exclusive, "1.5", "|too_big|< 1.5");
  assert_summary (exclusive, "2", "|too_big|< 1.5");

  /* Both kinds at once: each side reports once, the inclusive one first. */
  assert_valid (both, "1");
  assert_valid (both, "9.5");
  assert_summary (both, "0", "|too_small|>= 1");
  assert_summary (both, "9.75", "|too_big|< 9.75");
  assert_summary (both, "11", "|too_big|<= 10");

  /* Bounds print the shortest exact form. */
  assert_summary (fractional, "0.2", "|too_big|<= 0.1");
  assert_valid (fractional, "0.1");
  assert_valid (fractional, "0");
}

static void
test_number_precision (void)
{
  g_autoptr(StwSchema) big_min = schema_from ("{\"minimum\":9007199254740993}");
  g_autoptr(StwSchema) int64_max = schema_from ("{\"maximum\":9223372036854775807}");
  g_autoptr(StwSchema) int64_min = schema_from ("{\"minimum\":-9223372036854775807}");
  g_autoptr(StwSchema) double_max = schema_from ("{\"maximum\":9223372036854775808.0}");

  /* 2^53 + 1 is not a double; 2^53 as a double is below it, exactly. */
  assert_valid (big_min, "9007199254740993");
  assert_summary (big_min, "9007199254740992.0", "|too_small|>= 9007199254740993");
  assert_summary (big_min, "9007199254740992", "|too_small|>= 9007199254740993");
  assert_valid (big_min, "9007199254740994.0");

  /* 2^63 as a double is above every int64. */
  assert_valid (int64_max, "9223372036854775807");
  assert_summary (int64_max, "9223372036854775808.0", "|too_big|<= 9223372036854775807");
  assert_summary (int64_max, "1e19", "|too_big|<= 9223372036854775807");
  assert_valid (int64_max, "-1e300");
  assert_summary (int64_min, "-1e19", "|too_small|>= -9223372036854775807");
  assert_valid (double_max, "9223372036854775807");
  assert_valid (double_max, "9223372036854775808.0");
  /* A double bound prints as JSON would write it. */
  assert_summary (double_max, "1e19", "|too_big|<= 9.223372036854776e+18");
}

/* Strings {{{1 */

static void
test_string_length (void)
{
  g_autoptr(StwSchema) schema = schema_from ("{\"type\":\"string\",\"minLength\":2,\"maxLength\":5}");
  g_autoptr(StwSchema) one = schema_from ("{\"minLength\":1,\"maxLength\":1}");

  assert_valid (schema, "\"ab\"");
  assert_valid (schema, "\"abcde\"");
  /* Code points, not bytes: "héllo" is 6 bytes, "😀😀😀😀😀" 20. */
  assert_valid (schema, "\"h\\u00e9llo\"");
  assert_valid (schema, "\"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\"");
  assert_summary (schema, "\"\xf0\x9f\x98\x80\"", "|too_small|>= 2");
  assert_summary (schema, "\"\"", "|too_small|>= 2");
  assert_summary (schema, "\"abcdef\"", "|too_big|<= 5");
  assert_summary (schema, "\"h\\u00e9llo!\"", "|too_big|<= 5");
  assert_message (schema, "\"a\"", "String must contain at least 2 characters");
  assert_message (schema, "\"abcdef\"", "String must contain at most 5 characters");
  assert_message (one, "\"\"", "String must contain at least 1 character");
  assert_valid (one, "\"\\u00e9\"");

  /* Length keywords ignore non-strings. */
  assert_valid (one, "12345");
}

static void
test_string_pattern (void)
{
  g_autoptr(StwSchema) anchored = schema_from ("{\"pattern\":\"^[a-z]+$\"}");
  g_autoptr(StwSchema) unanchored = schema_from ("{\"pattern\":\"b+\"}");
  g_autoptr(StwSchema) any_char = schema_from ("{\"pattern\":\"^.$\"}");
  g_autoptr(StwSchema) combined = schema_from ("{\"minLength\":3,\"pattern\":\"^x\"}");

  assert_valid (anchored, "\"abc\"");
  assert_summary (anchored, "\"abc1\"", "|invalid_format|^[a-z]+$");
  assert_summary (anchored, "\"\"", "|invalid_format|^[a-z]+$");
  assert_message (anchored, "\"ABC\"", "String must match the pattern “^[a-z]+$”");
  /* `$` is end of input, as in ECMA-262, not "before a final newline". */
  assert_summary (anchored, "\"abc\\n\"", "|invalid_format|^[a-z]+$");

  /* A search, not a full match. */
  assert_valid (unanchored, "\"abba\"");
  assert_summary (unanchored, "\"acdc\"", "|invalid_format|b+");

  /* UTF-8 aware: one code point is one `.`. */
  assert_valid (any_char, "\"\\u00e9\"");
  assert_valid (any_char, "\"\xf0\x9f\x98\x80\"");
  assert_summary (any_char, "\"ab\"", "|invalid_format|^.$");

  /* Several string issues at once, in keyword order. */
  assert_summary (combined, "\"y\"", "|too_small|>= 3; |invalid_format|^x");
  assert_valid (combined, "\"xyz\"");
  assert_valid (combined, "7");
}

/* enum and const {{{1 */

static void
test_enum (void)
{
  g_autoptr(StwSchema) strings = schema_from ("{\"enum\":[\"left\",\"right\",\"middle\"]}");
  g_autoptr(StwSchema) mixed = schema_from ("{\"enum\":[1,\"1\",null,true,[1,{\"a\":2}],{\"x\":[],\"y\":1.5}]}");
  g_autoptr(StwSchema) typed = schema_from ("{\"type\":\"string\",\"enum\":[\"a\"]}");

  assert_valid (strings, "\"left\"");
  assert_valid (strings, "\"middle\"");
  assert_summary (strings, "\"Left\"", "|invalid_value|[\"left\",\"right\",\"middle\"]");
  assert_summary (strings, "1", "|invalid_value|[\"left\",\"right\",\"middle\"]");
  assert_message (strings, "\"up\"", "Invalid value: expected one of [\"left\",\"right\",\"middle\"]");

  /* Numbers compare by value; containers structurally, in any key order. */
  assert_valid (mixed, "1");
  assert_valid (mixed, "1.0");
  assert_valid (mixed, "\"1\"");
  assert_valid (mixed, "null");
  assert_valid (mixed, "true");
  assert_valid (mixed, "[1.0,{\"a\":2}]");
  assert_valid (mixed, "{\"y\":1.5,\"x\":[]}");
  assert_summary (mixed, "false", "|invalid_value|[1,\"1\",null,true,[1,{\"a\":2}],{\"x\":[],\"y\":1.5}]");
  assert_summary (mixed, "2", "|invalid_value|[1,\"1\",null,true,[1,{\"a\":2}],{\"x\":[],\"y\":1.5}]");
  assert_summary (mixed, "[1,{\"a\":2},3]", "|invalid_value|[1,\"1\",null,true,[1,{\"a\":2}],{\"x\":[],\"y\":1.5}]");
  assert_summary (mixed, "[1,{\"a\":2,\"b\":3}]", "|invalid_value|[1,\"1\",null,true,[1,{\"a\":2}],{\"x\":[],\"y\":1.5}]");
  assert_summary (mixed, "{\"x\":[],\"y\":1.5,\"z\":0}", "|invalid_value|[1,\"1\",null,true,[1,{\"a\":2}],{\"x\":[],\"y\":1.5}]");
  assert_summary (mixed, "{\"x\":[],\"z\":1.5}", "|invalid_value|[1,\"1\",null,true,[1,{\"a\":2}],{\"x\":[],\"y\":1.5}]");

  /* The type is checked first. */
  assert_summary (typed, "1", "|invalid_type|string");
  assert_summary (typed, "\"b\"", "|invalid_value|[\"a\"]");
}

static void
test_const (void)
{
  g_autoptr(StwSchema) string = schema_from ("{\"const\":\"full\"}");
  g_autoptr(StwSchema) number = schema_from ("{\"const\":2}");
  g_autoptr(StwSchema) null = schema_from ("{\"const\":null}");
  g_autoptr(StwSchema) object = schema_from ("{\"const\":{\"a\":[true]}}");

  assert_valid (string, "\"full\"");
  assert_summary (string, "\"diff\"", "|invalid_value|\"full\"");
  assert_message (string, "\"diff\"", "Invalid value: expected \"full\"");
  assert_valid (number, "2");
  assert_valid (number, "2.0");
  assert_summary (number, "2.5", "|invalid_value|2");
  assert_summary (number, "\"2\"", "|invalid_value|2");
  assert_valid (null, "null");
  assert_summary (null, "0", "|invalid_value|null");
  assert_valid (object, "{\"a\":[true]}");
  assert_summary (object, "{\"a\":[false]}", "|invalid_value|{\"a\":[true]}");
  assert_summary (object, "{\"a\":[true],\"b\":1}", "|invalid_value|{\"a\":[true]}");
}

/* Objects {{{1 */

static void
test_object_required (void)
{
  g_autoptr(StwSchema) schema =
    schema_from ("{\"type\":\"object\",\"required\":[\"c\",\"extra\",\"a\",\"b\"],"
                 "\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":[\"string\",\"null\"]},"
                 "\"c\":{},\"d\":{\"type\":\"string\"}}}");

  assert_valid (schema, "{\"a\":1,\"b\":null,\"c\":[],\"extra\":0}");
  assert_valid (schema, "{\"a\":1,\"b\":\"x\",\"c\":{},\"extra\":0,\"d\":\"y\",\"z\":1}");

  /* Declared properties in schema order, then names only in `required`. */
  assert_summary (schema, "{}",
                  "a|invalid_type|integer; b|invalid_type|string | null; c|invalid_type|value; "
                  "extra|invalid_type|value");
  assert_summary (schema, "{\"extra\":1,\"c\":1,\"a\":\"1\",\"d\":2}",
                  "a|invalid_type|integer; b|invalid_type|string | null; d|invalid_type|string");
  assert_message (schema, "{\"b\":null,\"c\":1,\"extra\":0}", "Required property “a” is missing");

  /* A null member is present, not missing. */
  assert_summary (schema, "{\"a\":null,\"b\":null,\"c\":null,\"extra\":null}", "a|invalid_type|integer");

  /* Object keywords ignore non-objects. */
  {
    g_autoptr(StwSchema) untyped = schema_from ("{\"required\":[\"a\"],\"additionalProperties\":false}");

    assert_valid (untyped, "[1]");
    assert_valid (untyped, "\"a\"");
    assert_summary (untyped, "{\"b\":1}", "a|invalid_type|value; b|unrecognized_keys");
  }
}

static void
test_object_additional (void)
{
  g_autoptr(StwSchema) closed =
    schema_from ("{\"properties\":{\"a\":{}},\"additionalProperties\":false}");
  g_autoptr(StwSchema) typed =
    schema_from ("{\"properties\":{\"a\":{}},\"additionalProperties\":{\"type\":\"integer\",\"minimum\":0}}");
  g_autoptr(StwSchema) open = schema_from ("{\"properties\":{\"a\":{}},\"additionalProperties\":true}");
  g_autoptr(StwSchema) nothing = schema_from ("{\"additionalProperties\":false}");

  assert_valid (closed, "{}");
  assert_valid (closed, "{\"a\":1}");
  /* One issue per key, at the key's own path, in instance order. */
  assert_summary (closed, "{\"zeta\":1,\"a\":1,\"alpha\":2,\"b.c\":3}",
                  "zeta|unrecognized_keys; alpha|unrecognized_keys; b.c|unrecognized_keys");
  assert_message (closed, "{\"zeta\":1}", "Unrecognized key “zeta”");

  assert_valid (typed, "{\"a\":\"x\",\"n\":1,\"m\":0}");
  assert_summary (typed, "{\"n\":-1,\"a\":-1,\"m\":\"x\"}", "n|too_small|>= 0; m|invalid_type|integer");

  assert_valid (open, "{\"whatever\":[1]}");
  assert_valid (nothing, "{}");
  assert_summary (nothing, "{\"a\":1}", "a|unrecognized_keys");
}

static void
test_object_nested_paths (void)
{
  g_autoptr(StwSchema) schema = schema_from (tool_schema_json);

  assert_valid (schema, "{\"ref\":3}");
  assert_valid (schema, "{\"selector\":\"#ok\",\"clip\":{\"x\":0,\"y\":0,\"width\":10,\"height\":0.5}}");

  assert_summary (schema, "{\"ref\":1,\"clip\":{\"x\":0,\"y\":\"0\",\"width\":0}}",
                  "clip.y|invalid_type|number; clip.width|too_small|> 0; clip.height|invalid_type|number");
  assert_summary (schema, "{\"ref\":1,\"clip\":{\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"depth\":1}}",
                  "clip.depth|unrecognized_keys");
  assert_summary (schema, "{\"ref\":1,\"args\":[\"a\",1,{},null,[]]}",
                  "args.2|invalid_union|string | number | boolean | null; "
                  "args.4|invalid_union|string | number | boolean | null");
  assert_summary (schema, "{\"ref\":1,\"modifiers\":[\"Alt\",\"Hyper\"]}",
                  "modifiers.1|invalid_value|[\"Alt\",\"Control\",\"Meta\",\"Shift\"]");
  assert_summary (schema, "{\"ref\":0,\"timeoutMs\":30001,\"force\":\"yes\"}",
                  "ref|too_small|>= 1; force|invalid_type|boolean; timeoutMs|too_big|<= 30000");
  assert_summary (schema, "{\"selector\":\"\",\"unknown\":1}",
                  "selector|too_small|>= 1; unknown|unrecognized_keys");
  assert_summary (schema, "{\"ref\":1,\"key\":\"Control+a b\"}", "key|invalid_format|^[A-Za-z0-9+]+$");
  assert_summary (schema, "[]", "|invalid_type|object");
}

/* Arrays {{{1 */

static void
test_array (void)
{
  g_autoptr(StwSchema) schema =
    schema_from ("{\"type\":\"array\",\"minItems\":1,\"maxItems\":3,\"items\":{\"type\":\"string\"}}");
  g_autoptr(StwSchema) nested =
    schema_from ("{\"properties\":{\"a\":{\"items\":{\"properties\":{\"b\":{\"items\":{\"type\":\"integer\"}}}}}}}");
  g_autoptr(StwSchema) one = schema_from ("{\"minItems\":1,\"maxItems\":1}");

  assert_valid (schema, "[\"a\"]");
  assert_valid (schema, "[\"a\",\"b\",\"c\"]");
  assert_summary (schema, "[]", "|too_small|>= 1");
  assert_summary (schema, "[\"a\",\"b\",\"c\",\"d\"]", "|too_big|<= 3");
  assert_summary (schema, "[\"a\",1,\"c\",false]", "|too_big|<= 3; 1|invalid_type|string; 3|invalid_type|string");
  assert_message (schema, "[]", "Array must contain at least 1 item");
  assert_message (schema, "[\"a\",\"b\",\"c\",\"d\"]", "Array must contain at most 3 items");
  assert_message (one, "[1,2]", "Array must contain at most 1 item");
  assert_valid (one, "\"not an array\"");

  assert_valid (nested, "{\"a\":[{\"b\":[1,2]},{},5]}");
  assert_summary (nested, "{\"a\":[{\"b\":[1,2]},{\"b\":[0,\"x\",2.5]}]}",
                  "a.1.b.1|invalid_type|integer; a.1.b.2|invalid_type|integer");
}

/* Unions {{{1 */

static void
test_union_any_of (void)
{
  g_autoptr(StwSchema) schema = schema_from ("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"minimum\":1}]}");
  g_autoptr(StwSchema) untyped = schema_from ("{\"anyOf\":[{\"required\":[\"ref\"]},{\"required\":[\"selector\"]}]}");
  g_autoptr(JsonNode) instance = stw_test_parse ("{}");
  g_autoptr(JsonArray) issues = NULL;
  JsonObject *issue;

  assert_valid (schema, "\"x\"");
  assert_valid (schema, "3");
  assert_summary (schema, "true", "|invalid_union|string | integer");
  assert_summary (schema, "2.5", "|invalid_union|string | integer");
  assert_message (schema, "null", "Value does not match any of the 2 allowed alternatives");
  /* Only one branch takes integers: its own issue is the useful one. */
  assert_summary (schema, "0", "|too_small|>= 1");

  assert_valid (untyped, "{\"ref\":1}");
  assert_valid (untyped, "{\"selector\":\"a\",\"ref\":2}");
  g_assert_false (stw_schema_validate (untyped, instance, &issues));
  g_assert_cmpuint (json_array_get_length (issues), ==, 1);
  issue = json_array_get_object_element (issues, 0);
  g_assert_cmpstr (json_object_get_string_member (issue, "field"), ==, "");
  g_assert_cmpstr (json_object_get_string_member (issue, "code"), ==, "invalid_union");
  g_assert_false (json_object_has_member (issue, "expected"));
  g_assert_cmpint (json_object_get_int_member (issue, "branches"), ==, 2);
  g_assert_false (json_object_has_member (issue, "matched"));
}

static void
test_union_one_of (void)
{
  g_autoptr(StwSchema) schema =
    schema_from ("{\"oneOf\":[{\"required\":[\"ref\"]},{\"required\":[\"selector\"]}]}");
  g_autoptr(StwSchema) typed = schema_from ("{\"oneOf\":[{\"const\":\"full\"},{\"const\":\"diff\"},"
                                            "{\"type\":\"integer\",\"minimum\":1}]}");
  g_autoptr(JsonNode) both = stw_test_parse ("{\"ref\":1,\"selector\":\"a\"}");
  g_autoptr(JsonNode) neither = stw_test_parse ("{}");
  g_autoptr(JsonArray) issues = NULL;
  JsonObject *issue;

  assert_valid (schema, "{\"ref\":1}");
  assert_valid (schema, "{\"selector\":\"a\"}");
  assert_summary (schema, "{}", "|invalid_union");
  assert_summary (schema, "{\"ref\":1,\"selector\":\"a\"}", "|invalid_union");
  assert_message (schema, "{\"ref\":1,\"selector\":\"a\"}", "Value matches 2 alternatives, but exactly one is allowed");

  g_assert_false (stw_schema_validate (schema, both, &issues));
  issue = json_array_get_object_element (issues, 0);
  g_assert_cmpint (json_object_get_int_member (issue, "branches"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (issue, "matched"), ==, 2);
  g_clear_pointer (&issues, json_array_unref);

  g_assert_false (stw_schema_validate (schema, neither, &issues));
  issue = json_array_get_object_element (issues, 0);
  g_assert_cmpint (json_object_get_int_member (issue, "matched"), ==, 0);

  assert_valid (typed, "\"diff\"");
  assert_valid (typed, "7");
  assert_summary (typed, "\"none\"", "|invalid_union");
  assert_summary (typed, "0", "|too_small|>= 1");
  assert_summary (typed, "[]", "|invalid_union");
}

static void
test_union_nested (void)
{
  g_autoptr(StwSchema) schema =
    schema_from ("{\"type\":\"object\",\"properties\":{\"v\":{\"anyOf\":[{\"type\":\"object\","
                 "\"properties\":{\"w\":{\"type\":\"integer\",\"maximum\":3}}},{\"type\":\"null\"}]}},"
                 "\"anyOf\":[{\"required\":[\"v\"]},{\"properties\":{\"v\":false}}],"
                 "\"oneOf\":[{\"type\":\"object\"},{\"type\":\"array\"}]}");

  assert_valid (schema, "{}");
  assert_valid (schema, "{\"v\":null}");
  assert_valid (schema, "{\"v\":{\"w\":2}}");
  /* The narrowed branch reports at nested paths. */
  assert_summary (schema, "{\"v\":{\"w\":4}}", "v.w|too_big|<= 3");
  assert_summary (schema, "{\"v\":1}", "v|invalid_union|object | null");
}

/* Boolean schemas {{{1 */

static void
test_boolean_schemas (void)
{
  g_autoptr(StwSchema) yes = schema_from ("true");
  g_autoptr(StwSchema) no = schema_from ("false");
  g_autoptr(StwSchema) forbidden = schema_from ("{\"properties\":{\"secret\":false,\"any\":true},\"items\":false}");

  assert_valid (yes, "{\"a\":[1]}");
  assert_valid (yes, "null");
  assert_summary (no, "{}", "|invalid_type|never");
  assert_summary (no, "null", "|invalid_type|never");
  assert_valid (forbidden, "{\"any\":[1]}");
  assert_valid (forbidden, "[]");
  assert_summary (forbidden, "{\"secret\":1,\"any\":2}", "secret|invalid_type|never");
  assert_summary (forbidden, "[1,2]", "0|invalid_type|never; 1|invalid_type|never");
  assert_message (forbidden, "{\"secret\":1}", "No value is allowed here");
}

/* Issues {{{1 */

static void
test_issues_shape (void)
{
  g_autoptr(StwSchema) schema = schema_from (tool_schema_json);
  g_autoptr(JsonNode) instance = stw_test_parse ("{\"ref\":1,\"clip\":{\"x\":0,\"y\":0,\"height\":1,\"width\":1,\"z\":0}}");
  g_autoptr(JsonNode) missing = stw_test_parse ("{\"ref\":1,\"clip\":{\"x\":0,\"y\":0,\"height\":1}}");
  g_autoptr(JsonArray) issues = NULL;
  g_autofree char *text = NULL;

  g_assert_false (stw_schema_validate (schema, instance, &issues));
  text = stw_json_to_string (json_array_get_element (issues, 0), NULL);
  g_assert_cmpuint (json_array_get_length (issues), ==, 1);
  g_assert_cmpstr (text, ==, "{\"field\":\"clip.z\",\"code\":\"unrecognized_keys\","
                             "\"message\":\"Unrecognized key “z”\"}");
  g_clear_pointer (&issues, json_array_unref);
  g_clear_pointer (&text, g_free);

  g_assert_false (stw_schema_validate (schema, missing, &issues));
  g_assert_cmpuint (json_array_get_length (issues), ==, 1);
  text = stw_json_to_string (json_array_get_element (issues, 0), NULL);
  g_assert_cmpstr (text, ==, "{\"field\":\"clip.width\",\"code\":\"invalid_type\",\"expected\":\"number\","
                             "\"message\":\"Required property “width” is missing\"}");
}

static void
test_issues_optional (void)
{
  g_autoptr(StwSchema) schema = schema_from (tool_schema_json);
  g_autoptr(JsonNode) good = stw_test_parse ("{\"ref\":1}");
  g_autoptr(JsonNode) bad = stw_test_parse ("{\"ref\":\"1\"}");
  JsonArray *issues = (JsonArray *) 0x1;

  g_assert_true (stw_schema_validate (schema, good, NULL));
  g_assert_false (stw_schema_validate (schema, bad, NULL));

  /* Cleared on success. */
  g_assert_true (stw_schema_validate (schema, good, &issues));
  g_assert_null (issues);
}

static void
test_issues_cap (void)
{
  g_autoptr(StwSchema) schema = schema_from ("{\"type\":\"object\",\"additionalProperties\":false}");
  g_autoptr(StwSchema) items = schema_from ("{\"items\":{\"type\":\"string\"}}");
  g_autoptr(JsonNode) instance = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) array = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(JsonArray) issues = NULL;
  JsonObject *object = json_object_new ();
  JsonObject *last;

  json_node_take_object (instance, object);
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *key = g_strdup_printf ("key%u", i);
      json_object_set_int_member (object, key, i);
    }

  g_assert_false (stw_schema_validate (schema, instance, &issues));
  g_assert_cmpuint (json_array_get_length (issues), ==, 32);
  for (guint i = 0; i < 31; i++)
    {
      g_autofree char *key = g_strdup_printf ("key%u", i);
      JsonObject *issue = json_array_get_object_element (issues, i);

      g_assert_cmpstr (json_object_get_string_member (issue, "field"), ==, key);
      g_assert_cmpstr (json_object_get_string_member (issue, "code"), ==, "unrecognized_keys");
    }
  last = json_array_get_object_element (issues, 31);
  g_assert_cmpstr (json_object_get_string_member (last, "field"), ==, "");
  g_assert_cmpstr (json_object_get_string_member (last, "code"), ==, "too_many_issues");
  g_assert_cmpstr (json_object_get_string_member (last, "message"), ==,
                   "Too many issues; only the first 31 are shown");
  g_assert_false (json_object_has_member (last, "expected"));
  g_clear_pointer (&issues, json_array_unref);

  /* Exactly 32 real issues fit without a marker. */
  json_node_take_array (array, json_array_new ());
  for (guint i = 0; i < 32; i++)
    json_array_add_int_element (json_node_get_array (array), i);
  g_assert_false (stw_schema_validate (items, array, &issues));
  g_assert_cmpuint (json_array_get_length (issues), ==, 32);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (issues, 31), "field"), ==, "31");
  g_clear_pointer (&issues, json_array_unref);

  json_array_add_int_element (json_node_get_array (array), 32);
  g_assert_false (stw_schema_validate (items, array, &issues));
  g_assert_cmpuint (json_array_get_length (issues), ==, 32);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (issues, 30), "field"), ==, "30");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (issues, 31), "code"),
                   ==, "too_many_issues");
}

/* Defaults {{{1 */

static char *
defaults_of (StwSchema  *schema,
             const char *instance_json)
{
  g_autoptr(JsonNode) instance = instance_json != NULL ? stw_test_parse (instance_json) : NULL;
  g_autofree char *before = instance != NULL ? stw_test_to_json (instance) : NULL;
  g_autoptr(JsonNode) result = stw_schema_apply_defaults (schema, instance);

  if (instance != NULL)
    {
      g_autofree char *after = stw_test_to_json (instance);

      /* The input is never modified. */
      g_assert_cmpstr (before, ==, after);
      g_assert_true (result != instance);
    }
  if (result == NULL)
    return g_strdup ("NULL");
  g_assert_false (json_node_is_immutable (result));
  return stw_test_to_json (result);
}

#define assert_defaults(schema, instance_json, expected) \
  G_STMT_START { \
    g_autofree char *_result = defaults_of ((schema), (instance_json)); \
    g_assert_cmpstr (_result, ==, (expected)); \
  } G_STMT_END

static void
test_defaults_basic (void)
{
  g_autoptr(StwSchema) schema = schema_from (tool_schema_json);

  /* No arguments at all: an object schema starts from {}. */
  assert_defaults (schema, NULL, "{\"force\":false,\"timeoutMs\":5000,\"button\":\"left\"}");
  assert_defaults (schema, "{}", "{\"force\":false,\"timeoutMs\":5000,\"button\":\"left\"}");
  /* Present members are kept, even when invalid; new ones go after them. */
  assert_defaults (schema, "{\"timeoutMs\":\"x\",\"ref\":3}",
                   "{\"timeoutMs\":\"x\",\"ref\":3,\"force\":false,\"button\":\"left\"}");
  assert_defaults (schema, "{\"force\":null}", "{\"force\":null,\"timeoutMs\":5000,\"button\":\"left\"}");
  /* Not an object: copied as it is. */
  assert_defaults (schema, "[1,{\"a\":2}]", "[1,{\"a\":2}]");
  assert_defaults (schema, "\"s\"", "\"s\"");
}

static void
test_defaults_nested (void)
{
  g_autoptr(StwSchema) schema =
    schema_from ("{\"type\":\"object\",\"properties\":{"
                 "\"present\":{\"type\":\"object\",\"properties\":{\"a\":{\"default\":1},\"b\":{}}},"
                 "\"absent\":{\"type\":\"object\",\"properties\":{\"a\":{\"default\":1}}},"
                 "\"filled\":{\"type\":\"object\",\"default\":{\"x\":[1]},"
                 "            \"properties\":{\"y\":{\"default\":{\"z\":null}}}},"
                 "\"list\":{\"type\":\"array\",\"items\":{\"properties\":{\"n\":{\"default\":0}}}},"
                 "\"choice\":{\"anyOf\":[{\"properties\":{\"q\":{\"default\":1}}}]}}}");
  g_autoptr(StwSchema) scalar = schema_from ("{\"type\":\"integer\"}");
  g_autoptr(StwSchema) scalar_default = schema_from ("{\"type\":\"integer\",\"default\":7}");
  g_autoptr(StwSchema) untyped = schema_from ("{\"properties\":{\"a\":{\"default\":true}}}");
  g_autoptr(StwSchema) empty = schema_from ("{}");

  /* Nested objects only when present; a filled-in default gets its own
   * nested defaults; array items too; union branches never. */
  assert_defaults (schema, "{\"present\":{\"b\":2},\"list\":[{},{\"n\":5},3],\"choice\":{}}",
                   "{\"present\":{\"b\":2,\"a\":1},\"list\":[{\"n\":0},{\"n\":5},3],\"choice\":{},"
                   "\"filled\":{\"x\":[1],\"y\":{\"z\":null}}}");
  assert_defaults (schema, NULL, "{\"filled\":{\"x\":[1],\"y\":{\"z\":null}}}");

  assert_defaults (scalar, NULL, "NULL");
  assert_defaults (scalar, "5", "5");
  assert_defaults (scalar_default, NULL, "7");
  assert_defaults (scalar_default, "null", "null");
  assert_defaults (untyped, NULL, "{\"a\":true}");
  assert_defaults (empty, NULL, "NULL");
}

static void
test_defaults_independent (void)
{
  g_autoptr(StwSchema) schema =
    schema_from ("{\"properties\":{\"o\":{\"default\":{\"list\":[1,2]}},\"k\":{}}}");
  g_autoptr(JsonNode) sealed = stw_test_parse ("{\"k\":{\"deep\":[{\"s\":\"v\"}]}}");
  g_autoptr(JsonNode) first = NULL;
  g_autoptr(JsonNode) second = NULL;
  g_autofree char *schema_before = stw_test_to_json (stw_schema_get_node (schema));
  g_autofree char *schema_after = NULL;
  g_autofree char *input_after = NULL;
  g_autofree char *second_text = NULL;
  JsonObject *k;

  json_node_seal (sealed);
  first = stw_schema_apply_defaults (schema, sealed);

  /* The result is a mutable deep copy sharing nothing with either the
   * input or the schema's defaults. */
  g_assert_false (json_node_is_immutable (first));
  k = json_node_get_object (json_object_get_member (json_node_get_object (first), "k"));
  g_assert_false (json_object_is_immutable (k));
  json_object_set_int_member (k, "added", 1);
  json_object_set_string_member (json_array_get_object_element (json_object_get_array_member (k, "deep"), 0),
                                 "s", "changed");
  json_array_add_int_element (json_object_get_array_member (json_object_get_object_member (json_node_get_object (first), "o"), "list"), 3);

  input_after = stw_test_to_json (sealed);
  g_assert_cmpstr (input_after, ==, "{\"k\":{\"deep\":[{\"s\":\"v\"}]}}");
  schema_after = stw_test_to_json (stw_schema_get_node (schema));
  g_assert_cmpstr (schema_after, ==, schema_before);

  second = stw_schema_apply_defaults (schema, sealed);
  second_text = stw_test_to_json (second);
  g_assert_cmpstr (second_text, ==, "{\"k\":{\"deep\":[{\"s\":\"v\"}]},\"o\":{\"list\":[1,2]}}");
}

static void
test_defaults_then_validate (void)
{
  g_autoptr(StwSchema) schema =
    schema_from ("{\"type\":\"object\",\"required\":[\"timeoutMs\"],\"additionalProperties\":false,"
                 "\"properties\":{\"timeoutMs\":{\"type\":\"integer\",\"default\":5000}}}");
  g_autoptr(JsonNode) completed = stw_schema_apply_defaults (schema, NULL);

  /* Validation does not apply defaults itself. */
  assert_summary (schema, "{}", "timeoutMs|invalid_type|integer");
  g_assert_true (stw_schema_validate (schema, completed, NULL));
}

/* Robustness {{{1 */

static const char * const random_keys[] = {
  "sessionId", "ref", "selector", "force", "timeoutMs", "button", "modifiers", "clip", "args",
  "key", "mode", "x", "y", "width", "height", "", "a.b", "é", "__proto__", "constructor",
};

static const char * const random_strings[] = {
  "", "a", "left", "right", "Alt", "Shift", "full", "diff", "#ok", "Control+a", "h\xc3\xa9llo",
  "\xf0\x9f\x98\x80", "with space", "line\nbreak", "9", "null", "true",
  /* Not UTF-8: json-glib never produces these, but a caller can. */
  "\xff\xfe", "trail\xf0", "\xc3",
};

static JsonNode *
random_value (GRand *rand,
              guint  depth)
{
  guint kind = (guint) g_rand_int_range (rand, 0, depth >= 4 ? 6 : 8);

  switch (kind)
    {
    case 0:
      return json_node_init_null (json_node_alloc ());
    case 1:
      return json_node_init_boolean (json_node_alloc (), g_rand_boolean (rand));
    case 2:
      {
        static const gint64 ints[] = {
          0, 1, -1, 2, 5, 4999, 5000, 30000, 30001, G_MAXINT64, G_MININT64, G_MAXINT32,
        };
        if (g_rand_boolean (rand))
          return json_node_init_int (json_node_alloc (), ints[g_rand_int_range (rand, 0, G_N_ELEMENTS (ints))]);
        return json_node_init_int (json_node_alloc (), g_rand_int_range (rand, -100, 100000));
      }
    case 3:
      {
        static const double doubles[] = {
          0.0, -0.0, 0.5, 1.0, 5.0, 5.5, 1e300, -1e300, 1e-300, 9007199254740993.0,
          9223372036854775808.0, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0,
        };
        if (g_rand_boolean (rand))
          return json_node_init_double (json_node_alloc (), doubles[g_rand_int_range (rand, 0, G_N_ELEMENTS (doubles))]);
        return json_node_init_double (json_node_alloc (), g_rand_double_range (rand, -1e6, 1e6));
      }
    case 4:
    case 5:
      {
        if (g_rand_int_range (rand, 0, 10) == 0)
          {
            /* Long, with multi-byte characters. */
            GString *s = g_string_new (NULL);
            guint n = (guint) g_rand_int_range (rand, 0, 200);

            g_autofree char *str = NULL;

            for (guint i = 0; i < n; i++)
              g_string_append (s, g_rand_boolean (rand) ? "\xc3\xa9" : "x");
            str = g_string_free (s, FALSE);
            return json_node_init_string (json_node_alloc (), str);
          }
        return json_node_init_string (json_node_alloc (),
                                      random_strings[g_rand_int_range (rand, 0, G_N_ELEMENTS (random_strings))]);
      }
    case 6:
      {
        JsonArray *array = json_array_new ();
        guint n = (guint) g_rand_int_range (rand, 0, 6);

        JsonNode *node = json_node_new (JSON_NODE_ARRAY);

        for (guint i = 0; i < n; i++)
          json_array_add_element (array, random_value (rand, depth + 1));
        json_node_take_array (node, array);
        return node;
      }
    case 7:
    default:
      {
        JsonObject *object = json_object_new ();
        guint n = (guint) g_rand_int_range (rand, 0, 6);

        JsonNode *node = json_node_new (JSON_NODE_OBJECT);

        for (guint i = 0; i < n; i++)
          json_object_set_member (object,
                                  random_keys[g_rand_int_range (rand, 0, G_N_ELEMENTS (random_keys))],
                                  random_value (rand, depth + 1));
        json_node_take_object (node, object);
        return node;
      }
    }
}

static const char valid_base_json[] =
  "{\"ref\":3,\"timeoutMs\":100,\"button\":\"right\",\"force\":true,"
  "\"clip\":{\"x\":0,\"y\":1.5,\"width\":10,\"height\":20},"
  "\"args\":[\"a\",1,true,null],\"key\":\"Control+a\",\"mode\":\"diff\",\"modifiers\":[\"Alt\"]}";

/* A valid instance with one to three random changes, so that the
 * interesting paths (nested, near-miss values) are reached often. */
static JsonNode *
mutated_instance (GRand *rand)
{
  JsonNode *instance = stw_test_parse (valid_base_json);
  guint n = (guint) g_rand_int_range (rand, 1, 4);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *target = json_node_get_object (instance);
      const char *key = random_keys[g_rand_int_range (rand, 0, G_N_ELEMENTS (random_keys))];

      if (g_rand_boolean (rand))
        {
          JsonNode *clip = json_object_get_member (target, "clip");

          if (clip == NULL || !JSON_NODE_HOLDS_OBJECT (clip))
            continue;
          target = json_node_get_object (clip);
        }
      if (g_rand_int_range (rand, 0, 3) == 0)
        {
          if (json_object_has_member (target, key))
            json_object_remove_member (target, key);
        }
      else
        json_object_set_member (target, key, random_value (rand, 1));
    }
  return instance;
}

static void
check_random_instance (StwSchema *schema,
                       JsonNode  *instance,
                       gboolean   defaults_keep_valid,
                       guint     *n_valid)
{
  g_autofree char *before = stw_test_to_json (instance);
  g_autofree char *after = NULL;
  g_autofree char *summary = summarize_node (schema, instance);
  g_autoptr(JsonNode) completed = stw_schema_apply_defaults (schema, instance);

  g_assert_nonnull (completed);   /* never NULL for a non-NULL instance */
  after = stw_test_to_json (instance);
  g_assert_cmpstr (before, ==, after);

  if (strcmp (summary, "valid") == 0)
    {
      (*n_valid)++;
      /* With the tool schema, filling in defaults never breaks a valid
       * instance (any schema could, through anyOf/oneOf). */
      if (defaults_keep_valid)
        g_assert_true (stw_schema_validate (schema, completed, NULL));
    }
}

static void
test_robustness_random_instances (void)
{
  g_autoptr(StwSchema) schema = schema_from (tool_schema_json);
  g_autoptr(GRand) rand = g_rand_new_with_seed (20250611);
  guint n_valid = 0;
  guint n = g_test_slow () ? 50000 : 4000;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonNode) instance = (i % 2 == 0) ? random_value (rand, 0) : mutated_instance (rand);

      check_random_instance (schema, instance, TRUE, &n_valid);
    }

  /* Both verdicts are well represented, so both paths were exercised. */
  g_test_message ("%u of %u random instances valid", n_valid, n);
  g_assert_cmpuint (n_valid, >, n / 50);
  g_assert_cmpuint (n_valid, <, n / 2);
}

static const char * const schema_keywords[] = {
  "type", "properties", "required", "additionalProperties", "enum", "const", "minimum",
  "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern",
  "items", "minItems", "maxItems", "anyOf", "oneOf", "default", "description", "title",
  "examples", "$schema", "$comment", "format", "deprecated", "readOnly", "writeOnly", "bogus",
};

static JsonNode *random_schema (GRand *rand,
                                guint  depth);

/* A plausible value for @keyword most of the time, anything otherwise. */
static JsonNode *
random_keyword_value (GRand      *rand,
                      const char *keyword,
                      guint       depth)
{
  if (g_rand_int_range (rand, 0, 5) == 0)
    return random_value (rand, 2);

  if (strcmp (keyword, "type") == 0)
    {
      static const char * const types[] = { "object", "array", "string", "number", "integer", "boolean", "null" };
      return json_node_init_string (json_node_alloc (), types[g_rand_int_range (rand, 0, G_N_ELEMENTS (types))]);
    }
  if (strcmp (keyword, "properties") == 0)
    {
      JsonNode *node = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      guint n = (guint) g_rand_int_range (rand, 0, 4);

      for (guint i = 0; i < n; i++)
        json_object_set_member (object,
                                random_keys[g_rand_int_range (rand, 0, G_N_ELEMENTS (random_keys))],
                                random_schema (rand, depth + 1));
      json_node_take_object (node, object);
      return node;
    }
  if (strcmp (keyword, "anyOf") == 0 || strcmp (keyword, "oneOf") == 0)
    {
      JsonNode *node = json_node_new (JSON_NODE_ARRAY);
      JsonArray *array = json_array_new ();
      guint n = (guint) g_rand_int_range (rand, 1, 4);

      for (guint i = 0; i < n; i++)
        json_array_add_element (array, random_schema (rand, depth + 1));
      json_node_take_array (node, array);
      return node;
    }
  if (strcmp (keyword, "items") == 0 || strcmp (keyword, "additionalProperties") == 0)
    return random_schema (rand, depth + 1);
  if (strcmp (keyword, "required") == 0)
    {
      JsonNode *node = json_node_new (JSON_NODE_ARRAY);
      JsonArray *array = json_array_new ();

      json_array_add_string_element (array, random_keys[g_rand_int_range (rand, 0, G_N_ELEMENTS (random_keys))]);
      json_node_take_array (node, array);
      return node;
    }
  if (strcmp (keyword, "pattern") == 0)
    {
      static const char * const patterns[] = { "^a", "b$", "[0-9]+", "(", "\\d{2,}", "^.{0,3}$", "[" };
      return json_node_init_string (json_node_alloc (), patterns[g_rand_int_range (rand, 0, G_N_ELEMENTS (patterns))]);
    }
  if (g_str_has_prefix (keyword, "min") || g_str_has_prefix (keyword, "max")
      || g_str_has_prefix (keyword, "exclusive"))
    return json_node_init_int (json_node_alloc (), g_rand_int_range (rand, -1, 6));
  if (strcmp (keyword, "description") == 0 || strcmp (keyword, "title") == 0)
    return json_node_init_string (json_node_alloc (), "text");
  return random_value (rand, 2);
}

static JsonNode *
random_schema (GRand *rand,
               guint  depth)
{
  JsonNode *node;
  JsonObject *object;
  guint n;

  if (depth > 3 || g_rand_int_range (rand, 0, 10) == 0)
    return json_node_init_boolean (json_node_alloc (), g_rand_int_range (rand, 0, 4) != 0);

  node = json_node_new (JSON_NODE_OBJECT);
  object = json_object_new ();
  n = (guint) g_rand_int_range (rand, 0, 5);
  for (guint i = 0; i < n; i++)
    {
      const char *keyword = schema_keywords[g_rand_int_range (rand, 0, G_N_ELEMENTS (schema_keywords))];

      json_object_set_member (object, keyword, random_keyword_value (rand, keyword, depth));
    }
  json_node_take_object (node, object);
  return node;
}

static void
test_robustness_random_schemas (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  guint n_compiled = 0;
  guint n_refused = 0;
  guint n_valid = 0;
  guint n = g_test_slow () ? 20000 : 2000;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonNode) json = random_schema (rand, 0);
      g_autoptr(GError) error = NULL;
      g_autoptr(StwSchema) schema = stw_schema_new (json, &error);

      if (schema == NULL)
        {
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
          g_assert_true (g_str_has_prefix (error->message, "Invalid schema at #"));
          n_refused++;
          continue;
        }

      g_assert_no_error (error);
      n_compiled++;
      for (guint j = 0; j < 10; j++)
        {
          g_autoptr(JsonNode) instance = random_value (rand, 0);

          check_random_instance (schema, instance, FALSE, &n_valid);
        }
    }

  g_test_message ("%u schemas compiled, %u refused", n_compiled, n_refused);
  g_assert_cmpuint (n_compiled, >, n / 10);
  g_assert_cmpuint (n_refused, >, n / 10);
  g_assert_cmpuint (n_valid, >, 0);
}

/* Nesting far deeper than any schema: validation and defaults follow the
 * schema, so none of this costs stack. */
static void
test_robustness_deep (void)
{
  g_autoptr(StwSchema) tool = schema_from (tool_schema_json);
  g_autoptr(StwSchema) two = schema_from ("{\"items\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}");
  g_autoptr(StwSchema) literal = schema_from ("{\"enum\":[[[[1]]]]}");
  g_autoptr(StwSchema) anything = schema_from ("{\"properties\":{\"a\":{\"default\":1}}}");
  g_autoptr(JsonNode) deep_array = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(JsonNode) deep_object = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) copy = NULL;
  g_autofree char *summary = NULL;
  const guint depth = 20000;
  JsonArray *array = json_array_new ();
  JsonObject *object = json_object_new ();
  JsonNode *cursor;
  guint levels;

  json_node_take_array (deep_array, array);
  for (guint i = 0; i < depth; i++)
    {
      JsonNode *child = json_node_new (JSON_NODE_ARRAY);
      JsonArray *inner = json_array_new ();

      json_node_take_array (child, inner);
      json_array_add_element (array, child);
      array = inner;
    }

  json_node_take_object (deep_object, object);
  for (guint i = 0; i < depth; i++)
    {
      JsonNode *child = json_node_new (JSON_NODE_OBJECT);
      JsonObject *inner = json_object_new ();

      json_node_take_object (child, inner);
      json_object_set_member (object, "clip", child);
      object = inner;
    }

  summary = summarize_node (tool, deep_array);
  g_assert_cmpstr (summary, ==, "|invalid_type|object");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (two, deep_array);
  g_assert_cmpstr (summary, ==, "0.0|invalid_type|string");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (literal, deep_array);
  g_assert_cmpstr (summary, ==, "|invalid_value|[[[[1]]]]");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (tool, deep_object);
  g_assert_cmpstr (summary, ==, "clip.x|invalid_type|number; clip.y|invalid_type|number; "
                                "clip.width|invalid_type|number; clip.height|invalid_type|number; "
                                "clip.clip|unrecognized_keys; |invalid_union");

  /* The deep copy is iterative too; count its levels without recursing. */
  copy = stw_schema_apply_defaults (anything, deep_object);
  levels = 0;
  for (cursor = copy; cursor != NULL; levels++)
    {
      JsonObject *level = json_node_get_object (cursor);

      g_assert_true (level != json_node_get_object (deep_object));
      if (levels == 0)
        g_assert_true (json_object_has_member (level, "a"));
      cursor = json_object_get_member (level, "clip");
    }
  g_assert_cmpuint (levels, ==, depth + 1);
}

static void
test_robustness_huge_string (void)
{
  g_autoptr(StwSchema) bounded = schema_from ("{\"maxLength\":1048576}");
  g_autoptr(StwSchema) tight = schema_from ("{\"maxLength\":1048575,\"pattern\":\"x\"}");
  g_autoptr(StwSchema) tail = schema_from ("{\"pattern\":\"\\u00e9$\"}");
  GString *s = g_string_sized_new (2 * 1048576 + 1);
  g_autoptr(JsonNode) instance = NULL;
  g_autofree char *str = NULL;
  g_autofree char *summary = NULL;

  /* 1 Mi code points in 2 MiB. */
  for (guint i = 0; i < 1048576; i++)
    g_string_append (s, "\xc3\xa9");
  str = g_string_free (s, FALSE);
  instance = json_node_init_string (json_node_alloc (), str);

  summary = summarize_node (bounded, instance);
  g_assert_cmpstr (summary, ==, "valid");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (tight, instance);
  g_assert_cmpstr (summary, ==, "|too_big|<= 1048575; |invalid_format|x");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (tail, instance);
  g_assert_cmpstr (summary, ==, "valid");
}

/* Nodes json-glib's parser never makes but an API caller can. */
static void
test_robustness_odd_nodes (void)
{
  g_autoptr(StwSchema) tool = schema_from (tool_schema_json);
  g_autoptr(StwSchema) strings = schema_from ("{\"type\":\"string\",\"minLength\":3,\"pattern\":\"^\"}");
  g_autoptr(StwSchema) any = schema_from ("{\"enum\":[{},[],\"a\"],\"properties\":{\"a\":{\"default\":1}}}");
  g_autoptr(JsonNode) empty_object = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) empty_array = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(JsonNode) empty_value = json_node_new (JSON_NODE_VALUE);
  g_autoptr(JsonNode) bad_utf8 = json_node_init_string (json_node_alloc (), "ab\xff\xf0");
  g_autoptr(JsonNode) copy = NULL;
  g_autofree char *summary = NULL;

  summary = summarize_node (tool, empty_object);
  g_assert_cmpstr (summary, ==, "|invalid_union");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (tool, empty_array);
  g_assert_cmpstr (summary, ==, "|invalid_type|object");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (tool, empty_value);
  g_assert_cmpstr (summary, ==, "|invalid_type|object");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (any, empty_object);
  g_assert_cmpstr (summary, ==, "valid");
  g_clear_pointer (&summary, g_free);
  summary = summarize_node (any, empty_array);
  g_assert_cmpstr (summary, ==, "valid");
  g_clear_pointer (&summary, g_free);

  /* Invalid UTF-8 is counted without reading past the end, and matches
   * no pattern. */
  summary = summarize_node (strings, bad_utf8);
  g_assert_cmpstr (summary, ==, "|invalid_format|^");

  copy = stw_schema_apply_defaults (any, empty_object);
  g_clear_pointer (&summary, g_free);
  summary = stw_test_to_json (copy);
  g_assert_cmpstr (summary, ==, "{\"a\":1}");
  g_clear_pointer (&copy, json_node_unref);
  copy = stw_schema_apply_defaults (any, empty_value);
  g_assert_nonnull (copy);
}

static gpointer
validate_thread (gpointer data)
{
  g_autoptr(StwSchema) schema = data;
  g_autoptr(GRand) rand = g_rand_new_with_seed (99);
  gboolean ok = TRUE;

  for (guint i = 0; i < 300; i++)
    {
      g_autoptr(JsonNode) instance = mutated_instance (rand);
      g_autoptr(JsonArray) issues = NULL;
      gboolean valid = stw_schema_validate (schema, instance, &issues);

      ok &= valid == (issues == NULL);
      ok &= valid == stw_schema_validate (schema, instance, NULL);
    }
  return GINT_TO_POINTER (ok);
}

static void
test_robustness_threads_share (void)
{
  g_autoptr(StwSchema) schema = schema_from (tool_schema_json);
  GThread *threads[4];

  /* A schema is immutable: concurrent validation and refcounting is fine. */
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("validate", validate_thread, stw_schema_ref (schema));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_assert_true (GPOINTER_TO_INT (g_thread_join (threads[i])));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/schema/construct/valid", test_construct_valid);
  g_test_add_func ("/schema/construct/node-ownership", test_construct_node_ownership);
  g_test_add_func ("/schema/construct/errors", test_construct_errors);
  g_test_add_func ("/schema/construct/messages", test_construct_messages);
  g_test_add_func ("/schema/construct/from-string-errors", test_construct_from_string_errors);
  g_test_add_func ("/schema/construct/depth", test_construct_depth);
  g_test_add_func ("/schema/construct/annotations", test_construct_annotations);
  g_test_add_func ("/schema/type/single", test_type_single);
  g_test_add_func ("/schema/type/list", test_type_list);
  g_test_add_func ("/schema/type/integer", test_type_integer);
  g_test_add_func ("/schema/number/bounds", test_number_bounds);
  g_test_add_func ("/schema/number/precision", test_number_precision);
  g_test_add_func ("/schema/string/length", test_string_length);
  g_test_add_func ("/schema/string/pattern", test_string_pattern);
  g_test_add_func ("/schema/enum", test_enum);
  g_test_add_func ("/schema/const", test_const);
  g_test_add_func ("/schema/object/required", test_object_required);
  g_test_add_func ("/schema/object/additional", test_object_additional);
  g_test_add_func ("/schema/object/nested-paths", test_object_nested_paths);
  g_test_add_func ("/schema/array", test_array);
  g_test_add_func ("/schema/union/any-of", test_union_any_of);
  g_test_add_func ("/schema/union/one-of", test_union_one_of);
  g_test_add_func ("/schema/union/nested", test_union_nested);
  g_test_add_func ("/schema/boolean-schemas", test_boolean_schemas);
  g_test_add_func ("/schema/issues/shape", test_issues_shape);
  g_test_add_func ("/schema/issues/optional", test_issues_optional);
  g_test_add_func ("/schema/issues/cap", test_issues_cap);
  g_test_add_func ("/schema/defaults/basic", test_defaults_basic);
  g_test_add_func ("/schema/defaults/nested", test_defaults_nested);
  g_test_add_func ("/schema/defaults/independent", test_defaults_independent);
  g_test_add_func ("/schema/defaults/then-validate", test_defaults_then_validate);
  g_test_add_func ("/schema/robustness/random-instances", test_robustness_random_instances);
  g_test_add_func ("/schema/robustness/random-schemas", test_robustness_random_schemas);
  g_test_add_func ("/schema/robustness/deep", test_robustness_deep);
  g_test_add_func ("/schema/robustness/huge-string", test_robustness_huge_string);
  g_test_add_func ("/schema/robustness/odd-nodes", test_robustness_odd_nodes);
  g_test_add_func ("/schema/robustness/threads", test_robustness_threads_share);

  return g_test_run ();
}
