/* test-json.c: the strict JSON reader (stw_json_parse) on its own
 *
 * Every class of text RFC 8259 refuses that json-glib 1.6 would accept,
 * the texts it allows (which must read exactly as json-glib reads them),
 * the size bounds and the repairs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-json-private.h"
#include "stw-test-utils.h"

static void
assert_refused (const char *text,
                gssize      length,
                GQuark      domain,
                int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = stw_json_parse (text, length, &error);
  g_autofree char *escaped = g_strescape (text, NULL);

  if (node != NULL || !g_error_matches (error, domain, code))
    g_error ("“%s”: expected error %s/%d, got %s", escaped, g_quark_to_string (domain), code,
             error ? error->message : "a tree");
}

static void
test_refused_syntax (void)
{
  static const char * const texts[] = {
    /* empty and blank */
    "", " ", "\t\r\n",
    /* comments */
    "// c\n1", "1 // c", "/* c */ 1", "[1 /* c */]", "# c\n1", "{\"a\":1 /**/}",
    /* quotes */
    "'a'", "{'a':1}", "{\"a':1}", "\"a",
    /* numbers */
    "0x1F", "0X1", "01", "-01", "00", "+1", "-", ".5", "1.", "1.e5", "1e", "1e+", "1E-",
    "--1", "1..2", "1e5.5", "0b1", "1_000", "\xef\xbc\x91" /* fullwidth 1 */,
    /* non-finite */
    "NaN", "-NaN", "Infinity", "-Infinity", "[NaN]", "{\"a\":Infinity}", "inf", "nan",
    /* literals */
    "True", "FALSE", "Null", "nul", "tru", "nulll", "truefalse", "undefined", "[true1]",
    /* trailing content */
    "{}{}", "{} {}", "[1] [2]", "1 2", "{}]", "[]]", "{}}", "\"a\"\"b\"", "null x", "1,",
    "{\"jsonrpc\":\"2.0\"}{\"jsonrpc\":\"2.0\"}", "{} \x0c", "{}\v",
    /* structure */
    "{", "}", "[", "]", "[1,]", "[,1]", "[1,,2]", "{\"a\":1,}", "{,}", "{\"a\"}", "{\"a\" 1}",
    "{\"a\"::1}", "{a:1}", "{1:1}", "{null:1}", "[1:2]", "{\"a\":1 \"b\":2}", "[1 2]",
    "{\"a\",1}", ":", ",", "[}", "{]", "[[]", "[]]",
    /* whitespace RFC 8259 does not allow */
    "\x0c" "1", "\v1", "[1,\x0c" "2]", "\xc2\xa0" "1", "\xef\xbb\xbf" "1",
    /* strings */
    "\"a\tb\"", "\"a\nb\"", "\"\x01\"", "\"\x1f\"", "\"\\x41\"", "\"\\q\"", "\"\\'\"",
    "\"\\U0041\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\", "\"\\\"", "\"abc\\\"",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    assert_refused (texts[i], -1, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
}

static void
test_refused_utf8 (void)
{
  static const char * const texts[] = {
    "\"\xff\"", "\"\xc3\x28\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\"",
    "{\"k\xfe\": 1}", "\"\xf8\x88\x80\x80\x80\"", "\"\xf4\x90\x80\x80\"",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    assert_refused (texts[i], -1, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);

  /* Outside strings too. */
  assert_refused ("\xff", -1, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  assert_refused ("[1,\xc3]", -1, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  /* A NUL byte is valid UTF-8 but not JSON, in a string or outside one. */
  assert_refused ("\"a\0b\"", 5, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  assert_refused ("[1]\0", 4, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
}

/* What RFC 8259 allows reads exactly as json-glib reads it. */
static void
test_accepted (void)
{
  static const char * const texts[] = {
    "0", "-0", "1", "-1", "0.5", "-0.5", "1e5", "1E5", "1e+5", "1e-5", "1.5E+10", "-0.0e-0",
    "123456789", "9223372036854775807", "-9223372036854775808",
    "true", "false", "null", "\"\"", "\"a\"", "[]", "{}", "[[]]", "{\"\":{}}",
    " \t\r\n[ 1 , 2 ]\r\n ", "{ \"a\" : [ true , false , null ] }",
    "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\u0041\\u00e9\\u20ac\"", "\"\\ud83d\\ude00\"",
    "\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", "\"\x7f\"",
    "{\"a\":1,\"a\":2}", "[1,[2,[3,{\"x\":[{}]}]]]",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = stw_json_parse (texts[i], -1, &error);
      g_autoptr(JsonNode) reference = json_from_string (texts[i], NULL);

      g_assert_no_error (error);
      g_assert_nonnull (node);
      g_assert_nonnull (reference);
      g_assert_true (json_node_equal (node, reference));
    }
}

static void
test_length (void)
{
  g_autoptr(JsonNode) node = stw_json_parse ("[1]garbage", 3, NULL);
  g_autoptr(JsonNode) bytes_after = stw_json_parse ("[2]\xff\xfe", 3, NULL);

  g_assert_nonnull (node);
  g_assert_nonnull (bytes_after);
  /* Without a length, the whole string counts. */
  assert_refused ("[1]garbage", -1, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  /* A length that cuts a value short. */
  assert_refused ("[1]", 2, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  assert_refused ("\"abc\"", 4, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  assert_refused ("123", 0, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
}

static void
test_error_position (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = stw_json_parse ("{\"a\":01}", -1, &error);

  g_assert_null (node);
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "byte 5"));
  g_assert_nonnull (strstr (error->message, "leading zero"));
}

static void
test_depth (void)
{
  g_autofree char *at_limit = stw_test_json_nested (STW_JSON_MAX_DEPTH, "[", "", "]");
  g_autofree char *over = stw_test_json_nested (STW_JSON_MAX_DEPTH + 1, "[", "", "]");
  g_autofree char *objects = stw_test_json_nested (STW_JSON_MAX_DEPTH + 1, "{\"a\":", "1", "}");
  g_autofree char *huge = stw_test_json_nested (1000000, "[", "", "]");
  g_autoptr(JsonNode) node = stw_json_parse (at_limit, -1, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (node);
  assert_refused (over, -1, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  assert_refused (objects, -1, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  g_assert_null (stw_json_parse (huge, -1, &error));
  g_assert_nonnull (strstr (error->message, "256"));
}

/* Values are counted with what json-glib allocates for them: a scalar or a
 * member name 1, an array 2, an object 6. */
static void
test_bounded (void)
{
  static const struct { const char *text; gsize cost; } cases[] = {
    { "1", 1 }, { "\"a\"", 1 }, { "null", 1 }, { "[]", 2 }, { "{}", 6 },
    { "[1,2,3]", 5 }, { "{\"a\":1}", 8 }, { "{\"a\":[],\"b\":{}}", 16 },
    { "[[[[1]]]]", 9 }, { "[{},{},{}]", 20 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) at = stw_json_parse_bounded (cases[i].text, -1, cases[i].cost, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) below = stw_json_parse_bounded (cases[i].text, -1, cases[i].cost - 1, &error);

      g_assert_nonnull (at);
      g_assert_null (below);
      g_assert_error (error, STW_JSON_ERROR, STW_JSON_ERROR_TOO_LARGE);
    }

  /* The default bound refuses a long array early: 2 MB, 1 Mi values. */
  {
    GString *text = g_string_new ("[");
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) node = NULL;

    for (gsize i = 0; i < STW_JSON_MAX_VALUES; i++)
      g_string_append (text, "1,");
    g_string_append (text, "1]");
    node = stw_json_parse (text->str, (gssize) text->len, &error);
    g_assert_null (node);
    g_assert_error (error, STW_JSON_ERROR, STW_JSON_ERROR_TOO_LARGE);
    g_string_free (text, TRUE);
  }
}

static const char *
first_string (JsonNode *node)
{
  return json_array_get_string_element (json_node_get_array (node), 0);
}

static void
test_repairs (void)
{
  g_autoptr(JsonNode) lone_high = stw_json_parse ("[\"a\\ud800b\"]", -1, NULL);
  g_autoptr(JsonNode) lone_low = stw_json_parse ("[\"\\udc00\"]", -1, NULL);
  g_autoptr(JsonNode) nul = stw_json_parse ("[\"a\\u0000b\"]", -1, NULL);
  g_autoptr(JsonNode) pair = stw_json_parse ("[\"\\ud83d\\ude00\"]", -1, NULL);
  g_autoptr(JsonNode) big = stw_json_parse ("[9223372036854775808,-9223372036854775809,"
                                            "123456789012345678901234567890]", -1, NULL);
  JsonArray *numbers;

  g_assert_cmpstr (first_string (lone_high), ==, "a\xef\xbf\xbd" "b");
  g_assert_cmpstr (first_string (lone_low), ==, "\xef\xbf\xbd");
  g_assert_cmpstr (first_string (nul), ==, "a\xef\xbf\xbd" "b");
  g_assert_cmpstr (first_string (pair), ==, "\xf0\x9f\x98\x80");

  numbers = json_node_get_array (big);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpint (json_node_get_value_type (json_array_get_element (numbers, i)), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_array_get_double_element (numbers, 0), ==, 9223372036854775808.0);
  g_assert_cmpfloat (json_array_get_double_element (numbers, 1), <, -9.2e18);
}

/* Found by the json fuzz target: -0.0 was written "-0", which reads back
 * as the integer 0, so writing was not a fixed point. */
static void
test_negative_zero (void)
{
  g_autoptr(JsonNode) node = stw_json_parse ("[-0.0,-0,0.0,-0e5]", -1, NULL);
  g_autofree char *text = stw_json_to_string (node, NULL);
  g_autoptr(JsonNode) again = stw_json_parse (text, -1, NULL);
  g_autofree char *text_again = stw_json_to_string (again, NULL);

  g_assert_cmpstr (text, ==, "[0,0,0,0]");
  g_assert_cmpstr (text_again, ==, text);
}

/* What the writer makes of strings (every escape, runs around them, UTF-8
 * kept as it is, invalid UTF-8 repaired), integers at their limits and
 * member order (insertion order, as written). */
static void
test_written (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonArray) ints = json_array_new ();
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) again = NULL;
  char controls[32];

  for (int i = 1; i < 32; i++)
    controls[i - 1] = (char) i;
  controls[31] = '\0';
  json_object_set_string_member (object, "z", "plain");
  json_object_set_string_member (object, "a", "say \"hi\" \\ back\n");
  json_object_set_string_member (object, "m", controls);
  json_object_set_string_member (object, "u", "caf\xc3\xa9 \xe2\x9c\x93");
  json_object_set_string_member (object, "bad", "x\xff" "y");
  json_object_set_string_member (object, "", "");
  json_array_add_int_element (ints, G_MININT64);
  json_array_add_int_element (ints, G_MAXINT64);
  json_array_add_int_element (ints, 0);
  json_array_add_int_element (ints, -7);
  json_object_set_array_member (object, "ints", json_array_ref (ints));

  text = stw_json_object_to_string (object, NULL);
  g_assert_cmpstr (text, ==,
                   "{\"z\":\"plain\",\"a\":\"say \\\"hi\\\" \\\\ back\\n\","
                   "\"m\":\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r"
                   "\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019"
                   "\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\","
                   "\"u\":\"caf\xc3\xa9 \xe2\x9c\x93\",\"bad\":\"x\xef\xbf\xbdy\",\"\":\"\","
                   "\"ints\":[-9223372036854775808,9223372036854775807,0,-7]}");
  again = stw_json_parse (text, -1, NULL);
  g_assert_nonnull (again);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (again), "m"), ==, controls);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/refused/syntax", test_refused_syntax);
  g_test_add_func ("/json/refused/utf8", test_refused_utf8);
  g_test_add_func ("/json/accepted", test_accepted);
  g_test_add_func ("/json/length", test_length);
  g_test_add_func ("/json/error-position", test_error_position);
  g_test_add_func ("/json/depth", test_depth);
  g_test_add_func ("/json/bounded", test_bounded);
  g_test_add_func ("/json/repairs", test_repairs);
  g_test_add_func ("/json/negative-zero", test_negative_zero);
  g_test_add_func ("/json/written", test_written);

  return g_test_run ();
}
