/* test-envelope.c: the response envelope and the hardened JSON under it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "stagewright.h"
#include "stw-json-private.h"
#include "stw-test-utils.h"

/* Helpers {{{1 */

static JsonNode *
parse_ok (const char *json,
          gssize      length)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = stw_json_parse (json, length, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

static void
assert_parse_fails (const char *json,
                    gssize      length)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = stw_json_parse (json, length, &error);

  g_assert_null (node);
  g_assert_nonnull (error);
  g_assert_true (error->domain == JSON_PARSER_ERROR);
}

static const char *
parse_string (const char *json,
              JsonNode  **keep)
{
  *keep = parse_ok (json, -1);
  g_assert_cmpint (json_node_get_value_type (*keep), ==, G_TYPE_STRING);
  return json_node_get_string (*keep);
}

/* The member names of @object, comma-separated, in order. */
static char *
member_names (JsonObject *object)
{
  g_autoptr(GList) members = json_object_get_members (object);
  GString *names = g_string_new (NULL);

  for (const GList *l = members; l != NULL; l = l->next)
    {
      if (names->len > 0)
        g_string_append_c (names, ',');
      g_string_append (names, l->data);
    }
  return g_string_free (names, FALSE);
}

/* The estimate recomputed from the serialized envelope itself: everything
 * but the trailing `_meta` member, in characters, divided by four and
 * rounded up. */
static gint64
expected_tokens (const char *text)
{
  const char *meta = g_strrstr (text, ",\"_meta\":{");
  g_autofree char *without_meta = NULL;
  glong n_chars;

  g_assert_nonnull (meta);
  without_meta = g_strdup_printf ("%.*s}", (int) (meta - text), text);
  n_chars = g_utf8_strlen (without_meta, -1);
  g_assert_cmpint (n_chars, >, 0);
  return (n_chars + 3) / 4;
}

static void
assert_meta_consistent (JsonObject *envelope)
{
  g_autofree char *text = stw_envelope_to_string (envelope);
  JsonObject *meta = json_object_get_object_member (envelope, "_meta");
  g_autoptr(GList) members = json_object_get_members (envelope);

  /* _meta is last, so the serialized text without it is a prefix. */
  g_assert_cmpstr (g_list_last (members)->data, ==, "_meta");
  g_assert_nonnull (meta);
  g_assert_cmpint (json_object_get_int_member (meta, "estimated_tokens"), ==, expected_tokens (text));
  g_assert_cmpint (json_object_get_int_member (meta, "elapsed_ms"), >=, 0);
}

/* Success envelopes {{{1 */

static void
test_success_spread (void)
{
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(JsonObject) envelope = NULL;
  g_autofree char *names = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  JsonObject *fake_meta = json_object_new ();
  JsonArray *list = json_array_new ();
  JsonObject *meta;
  gint64 tokens;

  json_object_set_string_member (payload, "name", "héllo");
  json_object_set_int_member (payload, "count", 42);
  json_object_set_boolean_member (payload, "ok", FALSE);
  json_object_set_boolean_member (payload, "flag", TRUE);
  json_array_add_int_element (list, 1);
  json_array_add_double_element (list, 2.5);
  json_array_add_null_element (list);
  json_object_set_array_member (payload, "list", list);
  json_object_set_int_member (fake_meta, "estimated_tokens", 999999);
  json_object_set_object_member (payload, "_meta", fake_meta);

  envelope = stw_envelope_new_success (payload, 12, "s-1");

  /* ok first, the payload's fields spread in order, its own ok and _meta
   * dropped, the envelope's _meta last. */
  names = member_names (envelope);
  g_assert_cmpstr (names, ==, "ok,name,count,flag,list,_meta");
  g_assert_true (json_object_get_boolean_member (envelope, "ok"));
  g_assert_true (stw_envelope_is_ok (envelope));
  g_assert_cmpstr (json_object_get_string_member (envelope, "name"), ==, "héllo");
  g_assert_cmpint (json_object_get_int_member (envelope, "count"), ==, 42);

  meta = json_object_get_object_member (envelope, "_meta");
  g_clear_pointer (&names, g_free);
  names = member_names (meta);
  g_assert_cmpstr (names, ==, "estimated_tokens,elapsed_ms,session_id");
  g_assert_cmpint (json_object_get_int_member (meta, "elapsed_ms"), ==, 12);
  g_assert_cmpstr (json_object_get_string_member (meta, "session_id"), ==, "s-1");

  /* The estimate is ceil(chars / 4) of exactly this text: 69 characters,
   * "é" counting as one. */
  {
    static const char without_meta[] =
      "{\"ok\":true,\"name\":\"héllo\",\"count\":42,\"flag\":true,\"list\":[1,2.5,null]}";

    tokens = (g_utf8_strlen (without_meta, -1) + 3) / 4;
    g_assert_cmpint (g_utf8_strlen (without_meta, -1), ==, 69);
    g_assert_cmpint (tokens, ==, 18);
    g_assert_cmpint (json_object_get_int_member (meta, "estimated_tokens"), ==, tokens);

    text = stw_envelope_to_string (envelope);
    expected = g_strdup_printf ("%.*s,\"_meta\":{\"estimated_tokens\":%" G_GINT64_FORMAT
                                ",\"elapsed_ms\":12,\"session_id\":\"s-1\"}}",
                                (int) strlen (without_meta) - 1, without_meta, tokens);
    g_assert_cmpstr (text, ==, expected);
  }

  /* The payload itself is left alone. */
  g_assert_false (json_object_get_boolean_member (payload, "ok"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (payload, "_meta"),
                                               "estimated_tokens"), ==, 999999);
}

static void
test_success_null_payload (void)
{
  g_autoptr(JsonObject) envelope = stw_envelope_new_success (NULL, 0, NULL);
  g_autoptr(JsonObject) empty = json_object_new ();
  g_autoptr(JsonObject) from_empty = stw_envelope_new_success (empty, 0, NULL);
  g_autofree char *text = stw_envelope_to_string (envelope);
  g_autofree char *text_empty = stw_envelope_to_string (from_empty);

  /* {"ok":true} is 11 characters: 3 tokens. */
  g_assert_cmpstr (text, ==, "{\"ok\":true,\"_meta\":{\"estimated_tokens\":3,\"elapsed_ms\":0}}");
  g_assert_cmpstr (text_empty, ==, text);
}

static void
test_meta_tokens_rounding (void)
{
  /* {"ok":true,"s":"…"} is 18 characters plus the string: cover every
   * remainder modulo four. */
  for (guint extra = 0; extra < 9; extra++)
    {
      g_autoptr(JsonObject) payload = json_object_new ();
      g_autoptr(JsonObject) envelope = NULL;
      g_autofree char *value = g_strnfill (extra, 'x');
      gint64 n_chars = 18 + (gint64) extra;

      json_object_set_string_member (payload, "s", value);
      envelope = stw_envelope_new_success (payload, 1, NULL);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (envelope, "_meta"),
                                                   "estimated_tokens"),
                       ==, (n_chars + 3) / 4);
      assert_meta_consistent (envelope);
    }

  /* Characters, not bytes: 40 three-byte characters. */
  {
    g_autoptr(JsonObject) payload = json_object_new ();
    g_autoptr(JsonObject) envelope = NULL;
    GString *value = g_string_new (NULL);

    for (guint i = 0; i < 40; i++)
      g_string_append (value, "€");
    json_object_set_string_member (payload, "s", value->str);
    g_string_free (value, TRUE);
    envelope = stw_envelope_new_success (payload, 1, NULL);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (envelope, "_meta"),
                                                 "estimated_tokens"), ==, (18 + 40 + 3) / 4);
  }

  g_assert_cmpint (stw_estimate_tokens (0), ==, 0);
  g_assert_cmpint (stw_estimate_tokens (1), ==, 1);
  g_assert_cmpint (stw_estimate_tokens (4), ==, 1);
  g_assert_cmpint (stw_estimate_tokens (5), ==, 2);
  g_assert_cmpint (stw_estimate_tokens (8), ==, 2);
  g_assert_cmpint (stw_estimate_tokens (50001), ==, 12501);
}

static void
test_meta_elapsed_session (void)
{
  g_autoptr(JsonObject) negative = stw_envelope_new_success (NULL, -250, NULL);
  g_autoptr(JsonObject) huge = stw_envelope_new_success (NULL, G_MAXINT32 + (gint64) 5, "abc");
  g_autoptr(GError) error = stw_error_new_literal ("NOT_RUNNING", NULL);
  g_autoptr(JsonObject) err_negative = stw_envelope_new_error (error, G_MININT64, NULL);
  g_autoptr(JsonObject) err_session = stw_envelope_new_error (error, 7, "sess-9");
  JsonObject *meta;

  meta = json_object_get_object_member (negative, "_meta");
  g_assert_cmpint (json_object_get_int_member (meta, "elapsed_ms"), ==, 0);
  g_assert_false (json_object_has_member (meta, "session_id"));

  meta = json_object_get_object_member (huge, "_meta");
  g_assert_cmpint (json_object_get_int_member (meta, "elapsed_ms"), ==, G_MAXINT32 + (gint64) 5);
  g_assert_cmpstr (json_object_get_string_member (meta, "session_id"), ==, "abc");

  meta = json_object_get_object_member (err_negative, "_meta");
  g_assert_cmpint (json_object_get_int_member (meta, "elapsed_ms"), ==, 0);
  g_assert_false (json_object_has_member (meta, "session_id"));

  meta = json_object_get_object_member (err_session, "_meta");
  g_assert_cmpint (json_object_get_int_member (meta, "elapsed_ms"), ==, 7);
  g_assert_cmpstr (json_object_get_string_member (meta, "session_id"), ==, "sess-9");
  assert_meta_consistent (err_session);
}

/* Error envelopes {{{1 */

static void
test_error_fields (void)
{
  g_autoptr(GError) error = stw_error_new ("REF_NOT_FOUND", "ref %d is stale", 7);
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(JsonObject) details = json_object_new ();
  g_autoptr(JsonArray) refs = json_array_new ();
  g_autofree char *names = NULL;
  JsonArray *got_refs;
  JsonArray *actions;
  JsonObject *got_details;

  for (guint i = 1; i <= 7; i++)
    {
      JsonObject *ref = json_object_new ();
      g_autofree char *name = g_strdup_printf ("Button %u", i);

      json_object_set_int_member (ref, "ref", i);
      json_object_set_string_member (ref, "role", "button");
      json_object_set_string_member (ref, "name", name);
      json_array_add_object_element (refs, ref);
    }
  json_object_set_int_member (details, "ref", 7);
  json_object_set_string_member (details, "reason", "stale");

  stw_error_set_hint (error, "Take a snapshot first");
  stw_error_set_details (error, details);
  stw_error_add_next_action (error, "electron_snapshot()");
  stw_error_add_next_action (error, "electron_find({ role: \"button\" })");
  stw_error_set_similar_refs (error, refs);

  envelope = stw_envelope_new_error (error, 33, "s-2");

  names = member_names (envelope);
  g_assert_cmpstr (names, ==, "ok,error,code,hint,retryable,http,next_actions,similar_refs,details,_meta");
  g_assert_false (stw_envelope_is_ok (envelope));
  g_assert_false (json_object_get_boolean_member (envelope, "ok"));
  g_assert_cmpstr (json_object_get_string_member (envelope, "error"), ==, "ref 7 is stale");
  g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, "REF_NOT_FOUND");
  g_assert_cmpstr (json_object_get_string_member (envelope, "hint"), ==, "Take a snapshot first");
  g_assert_false (json_object_get_boolean_member (envelope, "retryable"));
  g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, 404);

  actions = json_object_get_array_member (envelope, "next_actions");
  g_assert_cmpuint (json_array_get_length (actions), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (actions, 0), ==, "electron_snapshot()");
  g_assert_cmpstr (json_array_get_string_element (actions, 1), ==, "electron_find({ role: \"button\" })");

  /* At most five similar refs, the first five, in order. */
  got_refs = json_object_get_array_member (envelope, "similar_refs");
  g_assert_cmpuint (json_array_get_length (got_refs), ==, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (got_refs, i), "ref"),
                     ==, i + 1);
  g_assert_cmpuint (json_array_get_length (refs), ==, 7);

  got_details = json_object_get_object_member (envelope, "details");
  g_assert_cmpint (json_object_get_int_member (got_details, "ref"), ==, 7);
  g_assert_cmpstr (json_object_get_string_member (got_details, "reason"), ==, "stale");

  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (envelope, "_meta"),
                                                  "session_id"), ==, "s-2");
  assert_meta_consistent (envelope);
}

static void
test_error_minimal (void)
{
  g_autoptr(GError) error = stw_error_new_literal ("NOT_RUNNING", NULL);
  g_autoptr(GError) retry = stw_error_new_literal ("WAIT_TIMEOUT", "");
  g_autoptr(JsonObject) envelope = stw_envelope_new_error (error, 0, NULL);
  g_autoptr(JsonObject) retry_envelope = stw_envelope_new_error (retry, 5, NULL);
  g_autoptr(JsonArray) no_refs = json_array_new ();
  g_autoptr(JsonObject) empty_refs_envelope = NULL;
  g_autofree char *names = member_names (envelope);
  const char *hint = NULL;

  /* No optional fields when there is nothing to say. */
  g_assert_cmpstr (names, ==, "ok,error,code,hint,retryable,http,_meta");
  g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (), "NOT_RUNNING",
                                            NULL, NULL, &hint));
  g_assert_cmpstr (json_object_get_string_member (envelope, "error"), ==, hint);
  g_assert_cmpstr (json_object_get_string_member (envelope, "hint"), ==, hint);
  g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, 409);
  g_assert_false (json_object_get_boolean_member (envelope, "retryable"));
  assert_meta_consistent (envelope);

  /* An empty message falls back to the hint too; retryable is copied. */
  g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (), "WAIT_TIMEOUT",
                                            NULL, NULL, &hint));
  g_assert_cmpstr (json_object_get_string_member (retry_envelope, "error"), ==, hint);
  g_assert_true (json_object_get_boolean_member (retry_envelope, "retryable"));
  g_assert_cmpint (json_object_get_int_member (retry_envelope, "http"), ==, 408);

  /* An empty similar_refs array is not shown. */
  stw_error_set_similar_refs (error, no_refs);
  empty_refs_envelope = stw_envelope_new_error (error, 0, NULL);
  g_assert_false (json_object_has_member (empty_refs_envelope, "similar_refs"));
}

static void
test_error_every_core_code (void)
{
  g_auto(GStrv) codes = stw_error_registry_list_codes (stw_error_registry_get_default ());

  for (guint i = 0; i < 35; i++)
    {
      g_autoptr(GError) error = stw_error_new_literal (codes[i], "m");
      g_autoptr(JsonObject) envelope = stw_envelope_new_error (error, 1, NULL);
      guint http = 0;
      gboolean retryable = FALSE;

      g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (), codes[i],
                                                &http, &retryable, NULL));
      g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, codes[i]);
      g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, http);
      g_assert_cmpint (json_object_get_boolean_member (envelope, "retryable"), ==, retryable);
    }
}

static void
test_error_plugin (void)
{
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(JsonNode) codes = stw_json_parse (
    "{\"UNSTABLE\": {\"http\": 409, \"retryable\": true, \"hint\": \"The page kept changing.\"}}",
    -1, &parse_error);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) envelope = NULL;

  g_assert_no_error (parse_error);
  g_assert_true (stw_error_registry_register_plugin_codes (stw_error_registry_get_default (), "vis",
                                                           json_node_get_object (codes), NULL));
  error = stw_error_new_literal ("vis.UNSTABLE", "3 frames differed");
  envelope = stw_envelope_new_error (error, 1, NULL);

  g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, "vis.UNSTABLE");
  g_assert_cmpstr (json_object_get_string_member (envelope, "error"), ==, "3 frames differed");
  g_assert_cmpstr (json_object_get_string_member (envelope, "hint"), ==, "The page kept changing.");
  g_assert_true (json_object_get_boolean_member (envelope, "retryable"));
  g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, 409);

  stw_error_registry_unregister_plugin_codes (stw_error_registry_get_default (), "vis",
                                              json_node_get_object (codes));
}

static void
test_error_foreign (void)
{
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "socket exploded");
  g_autoptr(JsonObject) envelope = stw_envelope_new_error (error, 3, NULL);
  g_autofree char *names = member_names (envelope);
  const char *hint = NULL;

  g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (), "INTERNAL_ERROR",
                                            NULL, NULL, &hint));
  g_assert_cmpstr (names, ==, "ok,error,code,hint,retryable,http,_meta");
  g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, "INTERNAL_ERROR");
  g_assert_cmpstr (json_object_get_string_member (envelope, "hint"), ==, hint);
  g_assert_cmpint (json_object_get_int_member (envelope, "http"), ==, 500);
  g_assert_false (json_object_get_boolean_member (envelope, "retryable"));
  g_assert_cmpstr (json_object_get_string_member (envelope, "error"), ==, "socket exploded");
}

static void
assert_bounded (const char *message,
                const char *expected_head)
{
  g_autoptr(GError) error = stw_error_new_literal ("EVAL_RUNTIME_ERROR", message);
  g_autoptr(JsonObject) envelope = stw_envelope_new_error (error, 1, NULL);
  const char *shown = json_object_get_string_member (envelope, "error");
  g_autofree char *text = stw_envelope_to_string (envelope);

  g_assert_true (g_utf8_validate (shown, -1, NULL));
  g_assert_cmpint (g_utf8_strlen (shown, -1), <=, 1100);
  g_assert_true (g_str_has_prefix (shown, expected_head));
  g_assert_cmpuint (strlen (text), <, 8000);
  assert_meta_consistent (envelope);
}

static void
test_error_long_message (void)
{
  g_autofree char *ascii = g_strnfill (50000, 'x');
  g_autofree char *head = g_strnfill (1000, 'x');
  GString *wide = g_string_new (NULL);
  GString *wide_head = g_string_new (NULL);
  GString *invalid = g_string_new (NULL);
  g_autofree char *exact = g_strnfill (1000, 'y');

  for (guint i = 0; i < 3000; i++)
    g_string_append (wide, "é");
  for (guint i = 0; i < 1000; i++)
    g_string_append (wide_head, "é");
  for (guint i = 0; i < 5000; i++)
    g_string_append (invalid, "z\xff");

  assert_bounded (ascii, head);
  assert_bounded (wide->str, wide_head->str);
  /* Invalid UTF-8 is repaired and still bounded. */
  assert_bounded (invalid->str, "z\xef\xbf\xbdz");

  /* Exactly at the bound: unchanged. */
  {
    g_autoptr(GError) error = stw_error_new_literal ("EVAL_RUNTIME_ERROR", exact);
    g_autoptr(JsonObject) envelope = stw_envelope_new_error (error, 1, NULL);
    g_assert_cmpstr (json_object_get_string_member (envelope, "error"), ==, exact);
  }

  g_string_free (wide, TRUE);
  g_string_free (wide_head, TRUE);
  g_string_free (invalid, TRUE);
}

static void
test_error_details_serialisable (void)
{
  g_autoptr(GError) error = stw_error_new_literal ("EXPECTATION_FAILED", "mismatch");
  g_autoptr(JsonObject) details = json_object_new ();
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(JsonNode) reparsed = NULL;
  g_autofree char *text = NULL;
  JsonObject *got;

  json_object_set_double_member (details, "ratio", NAN);
  json_object_set_double_member (details, "big", 1e300);
  json_object_set_double_member (details, "inf", -INFINITY);
  json_object_set_string_member (details, "actual", "line one\nline two");
  stw_error_set_details (error, details);

  envelope = stw_envelope_new_error (error, 1, NULL);
  text = stw_envelope_to_string (envelope);
  reparsed = stw_test_parse (text);
  got = json_object_get_object_member (json_node_get_object (reparsed), "details");
  g_assert_true (json_object_get_null_member (got, "ratio"));
  g_assert_true (json_object_get_null_member (got, "inf"));
  g_assert_cmpfloat (json_object_get_double_member (got, "big"), ==, 1e300);
  g_assert_cmpstr (json_object_get_string_member (got, "actual"), ==, "line one\nline two");
  assert_meta_consistent (envelope);
}

/* Serialization {{{1 */

static void
test_to_string_one_line (void)
{
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(JsonNode) reparsed = NULL;
  g_autoptr(GError) error = stw_error_new_literal ("BAD_ARGUMENT", "first line\nsecond line\r\nthird");
  g_autoptr(JsonObject) error_envelope = NULL;
  g_autofree char *text = NULL;
  g_autofree char *error_text = NULL;
  static const char nasty[] = "a\nb\rc\td\"e\\f\b\f\x01\x1f\x7f g\xe2\x80\xa8h/i";
  JsonObject *object;

  json_object_set_string_member (payload, "text", nasty);
  json_object_set_string_member (payload, "key\nwith newline", "v");
  envelope = stw_envelope_new_success (payload, 1, NULL);
  text = stw_envelope_to_string (envelope);

  for (const guchar *p = (const guchar *) text; *p; p++)
    g_assert_cmpuint (*p, >=, 0x20);
  g_assert_true (g_utf8_validate (text, -1, NULL));

  reparsed = stw_test_parse (text);
  object = json_node_get_object (reparsed);
  g_assert_cmpstr (json_object_get_string_member (object, "text"), ==, nasty);
  g_assert_cmpstr (json_object_get_string_member (object, "key\nwith newline"), ==, "v");

  error_envelope = stw_envelope_new_error (error, 1, NULL);
  error_text = stw_envelope_to_string (error_envelope);
  g_assert_null (strchr (error_text, '\n'));
  g_assert_null (strchr (error_text, '\r'));
  g_assert_nonnull (strstr (error_text, "first line\\nsecond line\\r\\nthird"));
}

static void
test_write_invalid_utf8 (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) reparsed = NULL;
  g_autofree char *text = NULL;

  /* Strings built in C can hold anything; the text never does. */
  json_object_set_string_member (object, "s", "a\xff" "b\xc3");
  json_object_set_string_member (object, "k\xfe", "v");
  text = stw_json_object_to_string (object, NULL);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  reparsed = stw_test_parse (text);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (reparsed), "s"),
                   ==, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
}

static void
test_write_non_finite (void)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(JsonArray) array = json_array_new ();
  g_autoptr(JsonNode) reparsed = NULL;
  g_autofree char *text = NULL;
  JsonObject *object = json_object_new ();

  json_array_add_double_element (array, NAN);
  json_array_add_double_element (array, INFINITY);
  json_array_add_double_element (array, -INFINITY);
  json_object_set_double_member (object, "nan", -NAN);
  json_array_add_object_element (array, object);
  json_node_set_array (root, array);

  text = stw_json_to_string (root, NULL);
  g_assert_cmpstr (text, ==, "[null,null,null,{\"nan\":null}]");
  reparsed = stw_test_parse (text);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (reparsed));
}

static void
test_write_doubles (void)
{
  static const double values[] = {
    1e300, 1e21, -1e21, 1e22, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308,
    0.1, 0.3, 1.0 / 3.0, 123456789.125, -2.5e-10, 1e-7, 9007199254740993.0, 100.0, 0.5,
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
      g_autoptr(JsonNode) reparsed = NULL;
      g_autofree char *text = NULL;

      json_node_set_double (node, values[i]);
      text = stw_json_to_string (node, NULL);
      g_test_message ("%.17g -> %s", values[i], text);

      /* Valid JSON any reader accepts, and the same double comes back. */
      reparsed = stw_test_parse (text);
      g_assert_true (JSON_NODE_HOLDS_VALUE (reparsed));
      if (json_node_get_value_type (reparsed) == G_TYPE_INT64)
        g_assert_cmpfloat ((double) json_node_get_int (reparsed), ==, values[i]);
      else
        g_assert_cmpfloat (json_node_get_double (reparsed), ==, values[i]);
      g_assert_null (strstr (text, "inf"));
      g_assert_null (strstr (text, "nan"));
      g_assert_null (strchr (text, ','));
    }

  /* Shortest form that reads back. */
  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
    g_autofree char *text = NULL;
    g_autofree char *tenth = NULL;

    json_node_set_double (node, 0.1);
    tenth = stw_json_to_string (node, NULL);
    g_assert_cmpstr (tenth, ==, "0.1");
    json_node_set_double (node, 2.5);
    text = stw_json_to_string (node, NULL);
    g_assert_cmpstr (text, ==, "2.5");
  }
}

static void
test_int64_extremes (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) reparsed = NULL;
  g_autofree char *text = NULL;
  JsonObject *back;

  json_object_set_int_member (object, "max", G_MAXINT64);
  json_object_set_int_member (object, "min", G_MININT64);
  json_object_set_int_member (object, "zero", 0);
  text = stw_json_object_to_string (object, NULL);
  g_assert_cmpstr (text, ==, "{\"max\":9223372036854775807,\"min\":-9223372036854775808,\"zero\":0}");

  reparsed = parse_ok (text, -1);
  back = json_node_get_object (reparsed);
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (back, "max")), ==, G_TYPE_INT64);
  g_assert_cmpint (json_object_get_int_member (back, "max"), ==, G_MAXINT64);
  g_assert_cmpint (json_object_get_int_member (back, "min"), ==, G_MININT64);
}

static void
test_int64_overflow (void)
{
  static const struct {
    const char *json;
    double      value;
  } cases[] = {
    { "9223372036854775808", 9223372036854775808.0 },
    { "-9223372036854775809", -9223372036854775809.0 },
    { "18446744073709551615", 18446744073709551615.0 },
    { "18446744073709551616", 18446744073709551616.0 },
    { "99999999999999999999", 1e20 },
    { "-123456789012345678901234567890", -123456789012345678901234567890.0 },
  };

  /* Out-of-range integers read as doubles, as JSON.parse reads them,
   * never as a wrapped or saturated 64-bit value. */
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *wrapped = g_strdup_printf ("{\"n\":[%s,%s],\"s\":\"%s\"}",
                                                  cases[i].json, cases[i].json, cases[i].json);
      g_autoptr(JsonNode) node = parse_ok (wrapped, -1);
      JsonObject *object = json_node_get_object (node);
      JsonArray *array = json_object_get_array_member (object, "n");

      g_test_message ("%s", cases[i].json);
      for (guint j = 0; j < 2; j++)
        {
          JsonNode *element = json_array_get_element (array, j);

          g_assert_cmpint (json_node_get_value_type (element), ==, G_TYPE_DOUBLE);
          g_assert_cmpfloat (json_node_get_double (element), ==, cases[i].value);
        }
      /* Digits inside strings are text. */
      g_assert_cmpstr (json_object_get_string_member (object, "s"), ==, cases[i].json);
    }

  /* The edges stay integers; exponents of any length stay numbers. */
  {
    g_autoptr(JsonNode) node = parse_ok ("[9223372036854775807,-9223372036854775808,-0,0,"
                                         "1e99999999999999999999,1.5e-5]", -1);
    JsonArray *array = json_node_get_array (node);

    g_assert_cmpint (json_array_get_int_element (array, 0), ==, G_MAXINT64);
    g_assert_cmpint (json_array_get_int_element (array, 1), ==, G_MININT64);
    g_assert_cmpint (json_array_get_int_element (array, 3), ==, 0);
    g_assert_true (isinf (json_array_get_double_element (array, 4)));
    g_assert_cmpfloat (json_array_get_double_element (array, 5), ==, 1.5e-5);
  }
}

/* Parsing {{{1 */

static void
test_parse_surrogates (void)
{
  static const struct {
    const char *json;
    const char *expected;
  } cases[] = {
    { "\"a\\ud800b\"", "a\xef\xbf\xbd" "b" },                  /* lone high, next char kept */
    { "\"a\\uDBFFb\"", "a\xef\xbf\xbd" "b" },
    { "\"\\udc00\"", "\xef\xbf\xbd" },                         /* trailing lone low */
    { "\"x\\udc00\"", "x\xef\xbf\xbd" },
    { "\"\\ud800\"", "\xef\xbf\xbd" },                         /* high at the end */
    { "\"\\ud800\\ud800\"", "\xef\xbf\xbd\xef\xbf\xbd" },      /* two highs */
    { "\"\\udc00\\ud800\"", "\xef\xbf\xbd\xef\xbf\xbd" },      /* reversed pair */
    { "\"\\ud800\\u0041\"", "\xef\xbf\xbd" "A" },              /* high then a plain escape */
    { "\"\\ud800\\n\"", "\xef\xbf\xbd\n" },
    { "\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80" },              /* a proper pair */
    { "\"\\uD83D\\uDE00!\"", "\xf0\x9f\x98\x80!" },
    { "\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf" },              /* U+10FFFF */
    { "\"\\\\ud800\"", "\\ud800" },                            /* an escaped backslash, not an escape */
    { "\"\\\\\\ud800z\"", "\\\xef\xbf\xbd" "z" },
    { "\"a\\u0000b\"", "a\xef\xbf\xbd" "b" },                  /* NUL would end the C string */
    { "\"\\u00e9\"", "\xc3\xa9" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) keep = NULL;
      const char *got;

      g_test_message ("%s", cases[i].json);
      got = parse_string (cases[i].json, &keep);
      g_assert_true (g_utf8_validate (got, -1, NULL));
      g_assert_cmpstr (got, ==, cases[i].expected);
    }

  /* In member names and nested values too. */
  {
    g_autoptr(JsonNode) node = parse_ok ("{\"\\ud800k\": [\"\\udfffv\"]}", -1);
    JsonObject *object = json_node_get_object (node);
    JsonArray *array = json_object_get_array_member (object, "\xef\xbf\xbdk");

    g_assert_nonnull (array);
    g_assert_cmpstr (json_array_get_string_element (array, 0), ==, "\xef\xbf\xbdv");
  }

  /* The caller's buffer is never written to. */
  {
    char buffer[] = "\"a\\ud800b\"";
    g_autoptr(JsonNode) node = parse_ok (buffer, -1);

    g_assert_cmpstr (buffer, ==, "\"a\\ud800b\"");
  }

  /* Malformed \u escapes are refused (json-glib alone reads "\uZZZZ" as
   * "ZZZZ" and "\u" as nothing). */
  assert_parse_fails ("\"\\ud8\"", -1);
  assert_parse_fails ("\"\\uZZZZ\"", -1);
  assert_parse_fails ("[\"\\u\"]", -1);
  assert_parse_fails ("\"\\ud800\\ud8\"", -1);
  assert_parse_fails ("\"\\u12", -1);
}

static void
test_parse_depth (void)
{
  g_autofree char *at_limit = stw_test_json_nested (STW_JSON_MAX_DEPTH, "[", "1", "]");
  g_autofree char *over = stw_test_json_nested (STW_JSON_MAX_DEPTH + 1, "[", "1", "]");
  g_autofree char *objects_over = stw_test_json_nested (STW_JSON_MAX_DEPTH + 1, "{\"a\":", "1", "}");
  g_autofree char *huge = stw_test_json_nested (100000, "[", "", "]");
  g_autofree char *huge_objects = stw_test_json_nested (100000, "{\"k\":", "null", "}");
  g_autofree char *unclosed = g_strnfill (100000, '[');
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  node = parse_ok (at_limit, -1);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));

  assert_parse_fails (over, -1);
  assert_parse_fails (objects_over, -1);
  assert_parse_fails (unclosed, -1);

  /* Very deep input is refused quickly, without recursing. */
  g_assert_null (stw_json_parse (huge, -1, &error));
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "256"));
  assert_parse_fails (huge_objects, -1);

  /* Brackets inside strings do not count, escaped quotes included... */
  {
    g_autofree char *brackets = g_strnfill (1000, '[');
    g_autofree char *json = g_strdup_printf ("[\"%s\", \"\\\"%s\"]", brackets, brackets);
    g_autoptr(JsonNode) strings = parse_ok (json, -1);

    g_assert_cmpstr (json_array_get_string_element (json_node_get_array (strings), 0), ==, brackets);
  }

  /* ...in either direction: closing brackets in a string do not make room. */
  {
    g_autofree char *head = g_strnfill (STW_JSON_MAX_DEPTH, '[');
    g_autofree char *tail = g_strnfill (STW_JSON_MAX_DEPTH, ']');
    g_autofree char *json = g_strdup_printf ("%s\"]]]]\",[1]%s", head, tail);

    assert_parse_fails (json, -1);
  }
}

static void
test_parse_invalid (void)
{
  static const char * const invalid_utf8[] = {
    "\"\xff\"", "\"\xc3\x28\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\"",
    "{\"k\xfe\": 1}", "[1, \"ok\", \"\xf8\x88\x80\x80\x80\"]",
  };
  static const char * const garbage[] = {
    "", "   ", "{", "}", "[1,]", "{\"a\" 1}", "nul", "\"unterminated", "]]]]", "1 2",
    "{\"a\":}", "-", "+1", "NaN", "Infinity", "{a:1}", "[1,,2]", "\"\\",
    /* escapes json-glib alone would accept */
    "\"\\x41\"", "\"\\q\"", "\"\\'\"", "[\"ok\", \"\\U0041\"]",
  };

  for (guint i = 0; i < G_N_ELEMENTS (invalid_utf8); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = stw_json_parse (invalid_utf8[i], -1, &error);

      g_assert_null (node);
      g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
    }

  for (guint i = 0; i < G_N_ELEMENTS (garbage); i++)
    {
      g_test_message ("garbage %s", garbage[i]);
      assert_parse_fails (garbage[i], -1);
    }

  /* An explicit length bounds what is read. */
  {
    g_autoptr(JsonNode) node = parse_ok ("[1]garbage", 3);
    g_assert_cmpuint (json_array_get_length (json_node_get_array (node)), ==, 1);
  }
  {
    /* Bytes past the length are not looked at, valid or not. */
    g_autoptr(JsonNode) node = parse_ok ("[2]\xff\xfe", 3);
    g_assert_cmpint (json_array_get_int_element (json_node_get_array (node), 0), ==, 2);
  }
}

static void
test_parse_round_trip (void)
{
  static const char json[] =
    "{\"s\":\"h\\u00e9\\n\\\"q\\\"\",\"i\":-42,\"d\":0.1,\"b\":false,\"n\":null,"
    "\"a\":[1,[2,{\"x\":[]}],{}],\"e\":\"\"}";
  g_autoptr(JsonNode) first = parse_ok (json, -1);
  g_autofree char *text = stw_json_to_string (first, NULL);
  g_autoptr(JsonNode) second = parse_ok (text, -1);
  g_autofree char *again = stw_json_to_string (second, NULL);
  gsize length = 0;
  g_autofree char *with_length = stw_json_to_string (second, &length);

  g_assert_true (json_node_equal (first, second));
  g_assert_cmpstr (text, ==, again);
  g_assert_cmpstr (text, ==, "{\"s\":\"hé\\n\\\"q\\\"\",\"i\":-42,\"d\":0.1,\"b\":false,\"n\":null,"
                             "\"a\":[1,[2,{\"x\":[]}],{}],\"e\":\"\"}");
  g_assert_cmpuint (length, ==, strlen (with_length));

  /* NULL writes null; the UTF-8 length counts characters. */
  {
    g_autofree char *null_text = stw_json_to_string (NULL, NULL);
    g_assert_cmpstr (null_text, ==, "null");
  }
  g_assert_cmpuint (stw_json_utf8_length ("h\xc3\xa9\xf0\x9f\x98\x80", 7), ==, 3);
}

/* }}} */

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/envelope/success/spread", test_success_spread);
  g_test_add_func ("/envelope/success/null-payload", test_success_null_payload);
  g_test_add_func ("/envelope/meta/tokens", test_meta_tokens_rounding);
  g_test_add_func ("/envelope/meta/elapsed-session", test_meta_elapsed_session);
  g_test_add_func ("/envelope/error/fields", test_error_fields);
  g_test_add_func ("/envelope/error/minimal", test_error_minimal);
  g_test_add_func ("/envelope/error/every-core-code", test_error_every_core_code);
  g_test_add_func ("/envelope/error/plugin", test_error_plugin);
  g_test_add_func ("/envelope/error/foreign", test_error_foreign);
  g_test_add_func ("/envelope/error/long-message", test_error_long_message);
  g_test_add_func ("/envelope/error/details-serialisable", test_error_details_serialisable);
  g_test_add_func ("/envelope/to-string/one-line", test_to_string_one_line);
  g_test_add_func ("/json/write/invalid-utf8", test_write_invalid_utf8);
  g_test_add_func ("/json/write/non-finite", test_write_non_finite);
  g_test_add_func ("/json/write/doubles", test_write_doubles);
  g_test_add_func ("/json/int64/extremes", test_int64_extremes);
  g_test_add_func ("/json/int64/overflow", test_int64_overflow);
  g_test_add_func ("/json/parse/surrogates", test_parse_surrogates);
  g_test_add_func ("/json/parse/depth", test_parse_depth);
  g_test_add_func ("/json/parse/invalid", test_parse_invalid);
  g_test_add_func ("/json/parse/round-trip", test_parse_round_trip);

  return g_test_run ();
}

/* vim: set foldmethod=marker: */
