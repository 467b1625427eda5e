/* test-mcp-server.c: StwMcpServer on the wire, in process, over pipe pairs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <string.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "stagewright.h"
#include "stw-json-private.h"
#include "stw-mcp-server-private.h"
#include "stw-test-utils.h"

/* Mirrors DRAIN_GRACE_MS in stw-mcp-connection.c. */
#define DRAIN_GRACE_MS 3000

/* The _meta of a 2026-07-28 request. */
#define MODERN_META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"test\",\"version\":\"1\"}," \
                    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* Helpers {{{1 */

static StwMcpServer *log_forward_server;

/* Like the stagewright program's writer: library messages also go to the
 * client that asked for logs. */
static GLogWriterOutput
test_log_writer (GLogLevelFlags   log_level,
                 const GLogField *fields,
                 gsize            n_fields,
                 gpointer         user_data)
{
  if (log_forward_server != NULL && (log_level & G_LOG_LEVEL_MESSAGE) != 0)
    {
      for (gsize i = 0; i < n_fields; i++)
        if (g_str_equal (fields[i].key, "MESSAGE") && fields[i].length < 0)
          stw_mcp_server_send_log (log_forward_server, "notice", "stagewright", fields[i].value);
    }
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

static JsonObject *
object_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_node_get_object (node);
}

static JsonArray *
array_member (JsonObject *object,
              const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_node_get_array (node);
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  g_assert_true (json_node_get_value_type (node) == G_TYPE_STRING);
  return json_node_get_string (node);
}

static gboolean
boolean_member (JsonObject *object,
                const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  g_assert_true (json_node_get_value_type (node) == G_TYPE_BOOLEAN);
  return json_node_get_boolean (node);
}

/* Sends @line and asserts the one answer is error @code with @id. */
static void
expect_error (StwTestClient *client,
              const char    *line,
              const char    *id,
              gint64         code)
{
  g_autoptr(JsonObject) response = NULL;
  guint before = stw_test_client_get_n_frames (client);

  stw_test_client_send_line (client, line);
  response = stw_test_client_wait_response (client, id);
  stw_test_assert_error (response, id, code);
  stw_test_client_flush (client);
  /* That error and the flush's answer, nothing else. */
  g_assert_cmpuint (stw_test_client_get_n_frames (client), ==, before + 2);
}

/* Nothing more is notified: 50 ms pass, and the flush's answer comes
 * with no notification before it. */
static void
assert_no_more_notifications (StwTestClient *client)
{
  g_autoptr(GPtrArray) more = NULL;

  stw_test_client_iterate (client, 50);
  stw_test_client_flush (client);
  more = stw_test_client_take_notifications (client, NULL);
  g_assert_cmpuint (more->len, ==, 0);
}

/* Calls @method and asserts it fails with @code. */
static void
expect_call_error (StwTestClient *client,
                   const char    *method,
                   const char    *params,
                   gint64         code)
{
  g_autofree char *id = stw_test_client_send_request (client, method, params);
  g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);

  stw_test_assert_error (response, id, code);
}

/* The tools/call result an envelope becomes; returns the envelope. */
static JsonObject *
check_call_result (JsonObject *result,
                   gboolean    is_error)
{
  JsonArray *content = array_member (result, "content");
  JsonObject *text_block;
  JsonObject *structured;
  g_autoptr(JsonNode) parsed = NULL;
  g_autofree char *structured_json = NULL;

  stw_test_assert_members (result, "content", "structuredContent", "isError", NULL);
  g_assert_cmpint (boolean_member (result, "isError"), ==, is_error);
  g_assert_cmpuint (json_array_get_length (content), ==, 1);
  text_block = json_array_get_object_element (content, 0);
  stw_test_assert_members (text_block, "type", "text", NULL);
  g_assert_cmpstr (string_member (text_block, "type"), ==, "text");

  /* The text is the same object as structuredContent. */
  structured = object_member (result, "structuredContent");
  parsed = stw_test_parse (string_member (text_block, "text"));
  structured_json = stw_test_to_json (json_object_get_member (result, "structuredContent"));
  stw_test_assert_json_equal (parsed, structured_json);

  g_assert_cmpint (boolean_member (structured, "ok"), ==, !is_error);
  g_assert_true (json_object_has_member (object_member (structured, "_meta"), "elapsed_ms"));
  return structured;
}

static void
assert_object_equal (JsonObject *object,
                     const char *expected)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  stw_test_assert_json_equal (node, expected);
}

/* Waits until @tool has seen @n cancellations. */
static void
wait_cancelled (StwTestClient *client,
                StwTool       *tool,
                guint          n)
{
  gint64 deadline = g_get_monotonic_time () + stw_test_timeout_ms (2000) * G_TIME_SPAN_MILLISECOND;

  while (stw_test_tool_get_n_cancelled (tool) < n && g_get_monotonic_time () < deadline)
    stw_test_client_iterate (client, 10);
  g_assert_cmpuint (stw_test_tool_get_n_cancelled (tool), ==, n);
}

static gint64
elapsed_ms_since (gint64 start_us)
{
  return (g_get_monotonic_time () - start_us) / 1000;
}

/* Lifecycle {{{1 */

static void
check_initialize_result (JsonObject *result,
                         const char *version)
{
  JsonObject *server_info;

  stw_test_assert_members (result, "protocolVersion", "capabilities", "serverInfo",
                           "instructions", NULL);
  g_assert_cmpstr (string_member (result, "protocolVersion"), ==, version);
  stw_test_assert_json_equal (json_object_get_member (result, "capabilities"),
                              "{\"tools\":{\"listChanged\":true},\"resources\":{},\"logging\":{}}");

  server_info = object_member (result, "serverInfo");
  g_assert_cmpstr (string_member (server_info, "name"), ==, "stagewright");
  g_assert_cmpstr (string_member (server_info, "version"), ==, PACKAGE_VERSION);
  g_assert_cmpuint (strlen (string_member (result, "instructions")), >, 0);
}

static void
test_initialize_versions (void)
{
  static const struct
  {
    const char *requested;
    const char *answered;
  } cases[] = {
    { "\"2025-11-25\"", "2025-11-25" },
    { "\"2025-06-18\"", "2025-06-18" },
    { "\"2025-03-26\"", "2025-03-26" },
    { "\"2024-11-05\"", "2025-11-25" },
    { "\"2099-01-01\"", "2025-11-25" },
    { "\"\"", "2025-11-25" },
    { "20251125", "2025-11-25" },
    { "null", "2025-11-25" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(StwTestClient) client = stw_test_client_new ();
      g_autofree char *params = g_strdup_printf ("{\"protocolVersion\":%s,\"capabilities\":{},"
                                                 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}",
                                                 cases[i].requested);
      g_autoptr(JsonObject) result = stw_test_client_call_result (client, "initialize", params);

      g_test_message ("protocolVersion %s", cases[i].requested);
      check_initialize_result (result, cases[i].answered);
    }

  /* No params at all: our latest. */
  {
    g_autoptr(StwTestClient) client = stw_test_client_new ();
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "initialize", NULL);

    check_initialize_result (result, "2025-11-25");
  }
}

static void
test_initialize_twice (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();

  stw_test_client_initialize (client);
  expect_error (client,
                "{\"jsonrpc\":\"2.0\",\"id\":\"again\",\"method\":\"initialize\","
                "\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
                "\"again\"", -32600);

  /* Still serving. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/list", NULL);
    g_assert_true (json_object_has_member (result, "tools"));
  }
}

static void
test_initialize_required (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const gated[] = {
    "tools/list", "tools/call", "resources/list", "resources/read",
    "resources/templates/list", "logging/setLevel",
  };

  for (guint i = 0; i < G_N_ELEMENTS (gated); i++)
    expect_call_error (client, gated[i], "{}", -32600);

  /* ping works before initialize. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "ping", NULL);
    g_assert_cmpuint (json_object_get_size (result), ==, 0);
  }

  /* Clients of both revisions probe first (id 0): discovery answers in
   * the 2026-07-28 shape, and a client that then initializes gets the
   * 2025-11-25 session on the same connection. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "server/discover", "{" MODERN_META "}");

    g_assert_cmpstr (json_array_get_string_element (array_member (result, "supportedVersions"), 0),
                     ==, "2026-07-28");
    g_assert_cmpstr (string_member (result, "resultType"), ==, "complete");
  }

  stw_test_client_initialize (client);
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/list", NULL);
    g_assert_cmpuint (json_array_get_length (array_member (result, "tools")), >, 0);
  }
}

static void
test_ping (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const params[] = { NULL, "{}", "null", "{\"_meta\":{\"progressToken\":1}}" };

  for (guint round = 0; round < 2; round++)
    {
      for (guint i = 0; i < G_N_ELEMENTS (params); i++)
        {
          g_autofree char *id = stw_test_client_send_request (client, "ping", params[i]);
          g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);

          stw_test_assert_json_equal (json_object_get_member (response, "result"), "{}");
          stw_test_assert_members (response, "jsonrpc", "id", "result", NULL);
        }
      /* Same once initialized. */
      if (round == 0)
        stw_test_client_initialize (client);
    }
}

/* JSON-RPC base layer {{{1 */

static void
test_ids (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const ids[] = {
    "0", "-1", "1", "\"1\"", "\"0\"", "\"\"", "\"abc\"", "9007199254740993",
    "-9223372036854775808", "9223372036854775807", "\"\\u00fcn\\u00efc\\u00f6de \\ud83d\\ude00\"",
    "\"line\\nbreak\"",
  };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autoptr(JsonObject) response = NULL;

      stw_test_client_send_printf (client, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", ids[i]);
      response = stw_test_client_wait_response (client, ids[i]);
      stw_test_assert_result (response, ids[i]);
    }

  /* 5 and "5" are different requests, even in flight together. */
  stw_test_client_initialize (client);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":100}}}");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"5\",\"method\":\"ping\"}");
  {
    g_autoptr(JsonObject) ping = stw_test_client_wait_response (client, "\"5\"");
    g_autoptr(JsonObject) call = stw_test_client_wait_response (client, "5");

    stw_test_assert_result (ping, "\"5\"");
    check_call_result (stw_test_assert_result (call, "5"), FALSE);
  }
}

static void
test_parse_error (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const lines[] = {
    "garbage",
    "{",
    "}",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"} x",
    "{jsonrpc:\"2.0\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",}",
    "\xff\xfe\xfd",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"p\xc3\x28ng\"}",
    "{\"a\":NaN}",
    "{\"a\":+1}",
    "{\"a\":true1}",
    "nul",
    "[[[[[[[[[[",
  };
  static const char nul_line[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\0\"method\":\"ping\"}\n";

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *escaped = g_strescape (lines[i], NULL);

      g_test_message ("%s", escaped);
      expect_error (client, lines[i], "null", -32700);
    }

  /* An embedded NUL. */
  {
    g_autoptr(JsonObject) response = NULL;

    stw_test_client_send_raw (client, nul_line, sizeof nul_line - 1);
    response = stw_test_client_wait_response (client, "null");
    stw_test_assert_error (response, "null", -32700);
  }

  /* The server keeps serving, initialize included. */
  stw_test_client_initialize (client);
  stw_test_client_flush (client);
  g_assert_cmpuint (stw_test_client_get_n_queued (client), ==, 0);
}

static void
test_batch (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();

  stw_test_client_initialize (client);
  expect_error (client, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]", "null", -32600);
  expect_error (client, "[]", "null", -32600);
  expect_error (client, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]", "null", -32600);
  /* Neither element was answered. */
  g_assert_false (stw_test_client_has_response (client, "1"));
  g_assert_false (stw_test_client_has_response (client, "2"));
}

static void
test_not_an_object (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const lines[] = { "42", "\"ping\"", "null", "true", "-0", "1e400" };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    expect_error (client, lines[i], "null", -32600);
}

static void
test_invalid_ids (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const ids[] = {
    "null", "1.5", "1.0", "true", "false", "{}", "[]", "[1]", "{\"id\":1}", "1e400", "-0.0",
    /* Integers beyond 64 bits are not integers (nor wrapped ones). */
    "9223372036854775808", "-9223372036854775809", "12345678901234567890",
    "123456789012345678901234567890",
  };

  stw_test_client_initialize (client);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", ids[i]);

      g_test_message ("id %s", ids[i]);
      expect_error (client, line, "null", -32600);
    }
}

static void
test_invalid_jsonrpc (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const versions[] = {
    NULL, "\"1.0\"", "\"2\"", "\"2.0 \"", "2.0", "2", "null", "true", "{}", "[\"2.0\"]",
  };

  for (guint i = 0; i < G_N_ELEMENTS (versions); i++)
    {
      g_autofree char *line = NULL;

      if (versions[i] == NULL)
        line = g_strdup ("{\"id\":3,\"method\":\"ping\"}");
      else
        line = g_strdup_printf ("{\"jsonrpc\":%s,\"id\":3,\"method\":\"ping\"}", versions[i]);
      g_test_message ("%s", line);
      expect_error (client, line, "3", -32600);
    }

  /* Not processed either: initialize without jsonrpc leaves the session
   * uninitialized. */
  expect_error (client, "{\"id\":4,\"method\":\"initialize\",\"params\":{}}", "4", -32600);
  expect_call_error (client, "tools/list", NULL, -32600);
}

static void
test_invalid_method (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();

  stw_test_client_initialize (client);
  expect_error (client, "{\"jsonrpc\":\"2.0\",\"id\":4}", "4", -32600);
  expect_error (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":5}", "4", -32600);
  expect_error (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":null}", "4", -32600);
  expect_error (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":[\"ping\"]}", "4", -32600);
  expect_error (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":{}}", "4", -32600);
  expect_error (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"\"}", "4", -32601);
  expect_error (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"no/such/method\"}", "4", -32601);
  expect_error (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"PING\"}", "4", -32601);

  /* The unknown method is named back, bounded. */
  {
    g_autoptr(JsonObject) response = stw_test_client_call (client, "x/unknown", NULL);
    JsonObject *error = json_object_get_object_member (response, "error");

    g_assert_cmpint (json_object_get_int_member (error, "code"), ==, -32601);
    g_assert_cmpstr (string_member (object_member (error, "data"), "method"), ==, "x/unknown");
  }
}

static void
test_invalid_params (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const params[] = { "[]", "[1,2]", "\"x\"", "5", "true", "1.5" };
  static const char * const methods[] = { "ping", "initialize", "tools/list", "tools/call" };

  for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
    for (guint i = 0; i < G_N_ELEMENTS (params); i++)
      expect_call_error (client, methods[m], params[i], -32602);

  /* null params are no params. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "ping", "null");
    g_assert_cmpuint (json_object_get_size (result), ==, 0);
  }
}

static void
test_notifications (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const lines[] = {
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/unknown\"}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/unknown\",\"params\":{\"a\":1}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":999}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"x\",\"reason\":\"r\"}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":{}}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":null}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\",\"params\":{}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\"}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"initialize\",\"params\":{}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"no_such_tool\"}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"logging/setLevel\",\"params\":{\"level\":\"bogus\"}}",
    /* Responses to requests we never sent are dropped too. */
    "{\"jsonrpc\":\"2.0\",\"id\":77,\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":78,\"error\":{\"code\":-32601,\"message\":\"no\"}}",
  };

  for (guint round = 0; round < 2; round++)
    {
      guint before = stw_test_client_get_n_frames (client);

      for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
        stw_test_client_send_line (client, lines[i]);
      stw_test_client_flush (client);
      g_assert_cmpuint (stw_test_client_get_n_frames (client), ==, before + 1);
      g_assert_cmpuint (stw_test_client_get_n_queued (client), ==, 0);

      /* Same again once initialized. */
      if (round == 0)
        stw_test_client_initialize (client);
    }

  /* The notifications did not initialize the session twice. */
  expect_call_error (client, "initialize", "{}", -32600);
}

/* Framing {{{1 */

static void
test_framing_crlf (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char input[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"
    "\r\n"
    "   \t \n"
    "\n"
    "  {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}  \r\n"
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n";

  stw_test_client_send_raw (client, input, sizeof input - 1);
  {
    g_autoptr(JsonObject) first = stw_test_client_wait_response (client, "1");
    g_autoptr(JsonObject) second = stw_test_client_wait_response (client, "2");

    stw_test_assert_result (first, "1");
    stw_test_assert_result (second, "2");
  }
  stw_test_client_flush (client);
  g_assert_cmpuint (stw_test_client_get_n_frames (client), ==, 3);
}

static void
test_framing_coalesced (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(GString) input = g_string_new (NULL);

  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n");
  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
  for (guint i = 2; i < 50; i++)
    g_string_append_printf (input, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\"}\n", i,
                            i % 2 ? "ping" : "tools/list");
  stw_test_client_send_raw (client, input->str, input->len);

  for (guint i = 1; i < 50; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);

      stw_test_assert_result (response, id);
    }
  g_assert_cmpuint (stw_test_client_get_n_frames (client), ==, 49);
}

static void
test_framing_split (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  GMainContext *context = stw_test_client_get_context (client);
  /* A multibyte id, cut inside its characters too. */
  static const char line[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80\",\"method\":\"ping\"}\n";

  for (gsize i = 0; i < sizeof line - 1; i++)
    {
      stw_test_client_send_raw (client, line + i, 1);
      /* Let the server read this byte on its own. */
      while (g_main_context_iteration (context, FALSE))
        ;
      if (i + 1 < sizeof line - 1)
        g_assert_cmpuint (stw_test_client_get_n_frames (client), ==, 0);
    }

  {
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, "\"\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80\"");
    stw_test_assert_result (response, "\"\\u00fc\\u20ac\\ud83d\\ude00\"");
  }

  /* Two messages, the cut in the middle of the second. */
  {
    static const char part1[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":";
    static const char part2[] = "\"2.0\",\"id\":2,\"method\":\"ping\"}\n";

    stw_test_client_send_raw (client, part1, sizeof part1 - 1);
    stw_test_client_send_raw (client, part2, sizeof part2 - 1);
  }
  {
    g_autoptr(JsonObject) first = stw_test_client_wait_response (client, "1");
    g_autoptr(JsonObject) second = stw_test_client_wait_response (client, "2");

    stw_test_assert_result (first, "1");
    stw_test_assert_result (second, "2");
  }
}

static void
test_framing_eof_without_newline (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(GError) error = NULL;
  static const char last[] = "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"ping\"}";

  stw_test_client_initialize (client);
  stw_test_client_send_raw (client, last, sizeof last - 1);
  stw_test_client_iterate (client, 50);
  g_assert_false (stw_test_client_has_response (client, "77"));
  stw_test_client_close (client);

  g_assert_true (stw_test_client_wait_finished (client, stw_test_timeout_ms (2000), &error));
  g_assert_no_error (error);
  g_assert_true (stw_test_client_has_response (client, "77"));
  {
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, "77");
    stw_test_assert_result (response, "77");
  }
}

static void
test_output_one_line (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char arguments[] =
    "{\"message\":\"a\\nb\\r\\nc\\u2028d\\u0001e\\\"f\\\\g\\tend\\ud800\","
    "\"data\":{\"n\":[1e300,-0,0.1,12345678901234567890,-9223372036854775808]}}";
  g_autoptr(JsonObject) result = NULL;
  JsonObject *envelope;
  JsonObject *echo;

  stw_test_client_initialize (client);
  result = stw_test_client_call_tool (client, "test_echo", arguments);
  envelope = check_call_result (result, FALSE);
  echo = object_member (envelope, "echo");
  /* The lone surrogate became U+FFFD; everything else survived. */
  g_assert_cmpstr (string_member (echo, "message"), ==,
                   "a\nb\r\nc\xe2\x80\xa8" "d\x01" "e\"f\\g\tend\xef\xbf\xbd");
  g_assert_cmpuint (json_array_get_length (array_member (object_member (echo, "data"), "n")), ==, 5);
}

static void
test_framing_too_large (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  gsize size = STW_MCP_MAX_MESSAGE_BYTES + 100 * 1024;
  g_autofree char *line = NULL;
  gint64 start;

  if (stw_test_running_on_valgrind ())
    {
      g_test_skip ("64 MiB through valgrind takes too long");
      return;
    }

  stw_test_client_initialize (client);
  /* A well-formed request, far too large: refused once, then skipped to
   * its newline. */
  line = g_malloc (size + 1);
  memset (line, ' ', size);
  {
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"";

    memcpy (line, head, sizeof head - 1);
  }
  memcpy (line + size - 3, "\"}}", 3);
  line[size] = '\n';

  start = g_get_monotonic_time ();
  stw_test_client_send_raw (client, line, size + 1);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  {
    g_autoptr(JsonObject) refused = stw_test_client_wait_response (client, "null");
    g_autoptr(JsonObject) ping = stw_test_client_wait_response (client, "2");

    stw_test_assert_error (refused, "null", -32600);
    stw_test_assert_result (ping, "2");
  }
  g_test_message ("%" G_GSIZE_FORMAT " bytes handled in %" G_GINT64_FORMAT " ms", size,
                  elapsed_ms_since (start));
  g_assert_false (stw_test_client_has_response (client, "1"));
  stw_test_client_flush (client);
  g_assert_cmpuint (stw_test_client_get_n_queued (client), ==, 0);
}

/* Tools {{{1 */

static void
test_tools_list (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GList) visible = NULL;
  JsonArray *tools;
  const char *previous = NULL;
  guint n;

  stw_test_client_initialize (client);
  result = stw_test_client_call_result (client, "tools/list", "{}");
  stw_test_assert_members (result, "tools", NULL);
  tools = array_member (result, "tools");
  n = json_array_get_length (tools);

  visible = stw_dispatcher_list_tools (stw_test_client_get_dispatcher (client));
  g_assert_cmpuint (n, ==, g_list_length (visible));
  g_assert_cmpuint (n, >=, STW_TEST_N_TOOLS - 1 + 2);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);
      const char *name = string_member (tool, "name");
      JsonObject *schema = object_member (tool, "inputSchema");
      /* A tool whose hints are all MCP's defaults carries no annotations. */
      g_autoptr(JsonObject) annotations = json_object_has_member (tool, "annotations")
                                           ? json_object_ref (object_member (tool, "annotations"))
                                           : json_object_new ();

      if (previous != NULL)
        g_assert_cmpint (strcmp (previous, name), <, 0);
      previous = name;

      g_assert_cmpuint (strlen (string_member (tool, "description")), >, 0);
      /* Said once in the instructions, not in every tool. */
      g_assert_null (strstr (string_member (tool, "description"), "BAD_ARGUMENT"));
      g_assert_cmpstr (string_member (schema, "type"), ==, "object");
      /* MCP's defaults are left unsaid: readOnlyHint only when true,
       * destructiveHint (meaningful only for a tool that writes) only when
       * false. */
      if (json_object_has_member (annotations, "readOnlyHint"))
        {
          g_assert_true (boolean_member (annotations, "readOnlyHint"));
          g_assert_false (json_object_has_member (annotations, "destructiveHint"));
        }
      else if (json_object_has_member (annotations, "destructiveHint"))
        g_assert_false (boolean_member (annotations, "destructiveHint"));
      g_assert_false (json_object_has_member (annotations, "title"));
      /* openWorldHint is MCP's default (true), so unsaid; idempotentHint
       * means nothing for a read-only tool, so unsaid there. */
      g_assert_false (json_object_has_member (annotations, "openWorldHint"));
      if (json_object_has_member (annotations, "readOnlyHint"))
        g_assert_false (json_object_has_member (annotations, "idempotentHint"));
      g_assert_cmpstr (name, !=, "test_eval");

      if (g_str_equal (name, "test_echo"))
        {
          g_assert_true (boolean_member (annotations, "readOnlyHint"));
          stw_test_assert_json_equal (json_object_get_member (schema, "required"), "[\"message\"]");
        }
      else if (g_str_equal (name, "test_slow"))
        {
          /* Destructive and not read-only: MCP's defaults, unsaid, so
           * no annotations at all. */
          g_assert_false (json_object_has_member (tool, "annotations"));
        }
      else if (g_str_equal (name, "test_fail"))
        g_assert_nonnull (strstr (string_member (tool, "description"), "SELECTOR_NO_MATCH"));
    }

  /* Eval tools appear with the policy that allows them. */
  stw_dispatcher_set_allow_eval (stw_test_client_get_dispatcher (client), STW_EVAL_TARGET_MAIN);
  {
    g_autoptr(JsonObject) again = stw_test_client_call_result (client, "tools/list", NULL);
    /* test_eval, and the core electron_eval_main. */
    g_assert_cmpuint (json_array_get_length (array_member (again, "tools")), ==, n + 2);
  }
}

static void
test_tools_pagination (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GList) visible = NULL;
  g_autofree char *cursor = NULL;
  guint pages = 0;

  stw_test_client_initialize (client);
  stw_mcp_server_set_page_size (stw_test_client_get_server (client), 1);
  visible = stw_dispatcher_list_tools (stw_test_client_get_dispatcher (client));

  do
    {
      g_autofree char *params = NULL;
      g_autoptr(JsonObject) result = NULL;
      JsonArray *tools;
      const char *name;

      if (cursor != NULL)
        {
          g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
          g_autofree char *cursor_json = NULL;

          json_node_set_string (node, cursor);
          cursor_json = stw_test_to_json (node);
          params = g_strdup_printf ("{\"cursor\":%s}", cursor_json);
        }
      result = stw_test_client_call_result (client, "tools/list", pages == 0 ? "{\"cursor\":null}" : params);
      tools = array_member (result, "tools");
      g_assert_cmpuint (json_array_get_length (tools), ==, 1);
      name = string_member (json_array_get_object_element (tools, 0), "name");
      g_assert_cmpstr (name, ==, stw_tool_get_name (g_list_nth_data (visible, pages)));
      g_assert_true (g_hash_table_add (seen, g_strdup (name)));
      pages++;

      g_clear_pointer (&cursor, g_free);
      if (json_object_has_member (result, "nextCursor"))
        {
          stw_test_assert_members (result, "tools", "nextCursor", NULL);
          cursor = g_strdup (string_member (result, "nextCursor"));
        }
      else
        stw_test_assert_members (result, "tools", NULL);
      g_assert_cmpuint (pages, <=, g_list_length (visible));
    }
  while (cursor != NULL);

  g_assert_cmpuint (pages, ==, g_list_length (visible));
  g_assert_cmpuint (g_hash_table_size (seen), ==, g_list_length (visible));

  /* Bad cursors: not ours, out of range, wrong type. */
  {
    g_autofree char *past_end = NULL;
    g_autofree char *negative = g_base64_encode ((const guchar *) "stw:-1", 6);
    g_autofree char *overflow = g_base64_encode ((const guchar *) "stw:99999999999", 15);
    g_autofree char *huge = g_strnfill (10000, 'A');
    g_autofree char *raw = g_strdup_printf ("stw:%u", g_list_length (visible) + 1);
    const char *bad[6];

    past_end = g_base64_encode ((const guchar *) raw, strlen (raw));
    bad[0] = "garbage!";
    bad[1] = "";
    bad[2] = past_end;
    bad[3] = negative;
    bad[4] = overflow;
    bad[5] = huge;
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autofree char *params = g_strdup_printf ("{\"cursor\":\"%s\"}", bad[i]);
        expect_call_error (client, "tools/list", params, -32602);
      }
    expect_call_error (client, "tools/list", "{\"cursor\":5}", -32602);
    expect_call_error (client, "tools/list", "{\"cursor\":{}}", -32602);
    expect_call_error (client, "tools/list", "{\"cursor\":[\"x\"]}", -32602);
  }
}

static void
test_call_success (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(JsonObject) result = NULL;
  JsonObject *envelope;

  stw_test_client_initialize (client);
  result = stw_test_client_call_tool (client, "test_echo",
                                      "{\"message\":\"h\\u00e9llo\",\"count\":3,"
                                      "\"data\":{\"nested\":[1,2.5,null,true,\"s\"]}}");
  envelope = check_call_result (result, FALSE);
  stw_test_assert_json_equal (json_object_get_member (envelope, "echo"),
                              "{\"message\":\"h\\u00e9llo\",\"count\":3,"
                              "\"data\":{\"nested\":[1,2.5,null,true,\"s\"]}}");
  g_assert_cmpuint (stw_test_tool_get_n_completed (stw_test_client_get_tool (client, "test_echo")), ==, 1);

  /* A core tool. */
  {
    g_autoptr(JsonObject) status = stw_test_client_call_tool (client, "electron_status", NULL);
    JsonObject *status_envelope = check_call_result (status, FALSE);

    g_assert_cmpstr (string_member (object_member (status_envelope, "server"), "version"), ==,
                     PACKAGE_VERSION);
  }

  /* _meta and unknown members of params are tolerated. */
  {
    g_autoptr(JsonObject) other = stw_test_client_call_result (client, "tools/call",
                                                               "{\"name\":\"test_echo\",\"arguments\":{\"message\":\"m\"},"
                                                               "\"_meta\":{\"x\":1},\"unknown\":[1]}");
    check_call_result (other, FALSE);
  }

  /* A result too big to send twice keeps only the text. */
  {
    g_autofree char *big = g_strnfill (60000, 'x');
    g_autofree char *arguments = g_strdup_printf ("{\"message\":\"%s\"}", big);
    g_autoptr(JsonObject) large = stw_test_client_call_tool (client, "test_echo", arguments);
    JsonArray *content = array_member (large, "content");
    g_autoptr(JsonNode) parsed = NULL;

    stw_test_assert_members (large, "content", "isError", NULL);
    g_assert_false (boolean_member (large, "isError"));
    parsed = stw_test_parse (string_member (json_array_get_object_element (content, 0), "text"));
    g_assert_cmpstr (string_member (object_member (json_node_get_object (parsed), "echo"), "message"), ==, big);
  }
}

static void
test_call_tool_error (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(JsonObject) result = NULL;
  JsonObject *envelope;

  stw_test_client_initialize (client);
  result = stw_test_client_call_tool (client, "test_fail", NULL);
  envelope = check_call_result (result, TRUE);
  g_assert_cmpstr (string_member (envelope, "code"), ==, "SELECTOR_NO_MATCH");
  g_assert_cmpstr (string_member (envelope, "error"), ==, "Nothing matched the test selector");
  boolean_member (envelope, "retryable");

  /* A hidden eval tool answers with a helpful envelope, not a protocol
   * error. */
  {
    g_autoptr(JsonObject) hidden = stw_test_client_call_tool (client, "test_eval", "{\"code\":\"1\"}");
    JsonObject *hidden_envelope = check_call_result (hidden, TRUE);

    g_assert_cmpstr (string_member (hidden_envelope, "code"), ==, "BAD_ARGUMENT");
  }
}

static void
test_call_unknown_tool (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autofree char *long_name = g_strnfill (1000, 'n');
  g_autofree char *params = g_strdup_printf ("{\"name\":\"%s\"}", long_name);

  stw_test_client_initialize (client);
  {
    g_autofree char *id = stw_test_client_send_request (client, "tools/call",
                                                        "{\"name\":\"no_such_tool\",\"arguments\":{}}");
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);
    JsonObject *error = stw_test_assert_error (response, id, -32602);

    g_assert_cmpstr (string_member (object_member (error, "data"), "name"), ==, "no_such_tool");
  }
  expect_call_error (client, "tools/call", params, -32602);
  expect_call_error (client, "tools/call", "{\"name\":\"\"}", -32602);
  expect_call_error (client, "tools/call", "{\"name\":\"TEST_ECHO\"}", -32602);
}

static void
test_call_bad_params (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const params[] = {
    "{\"name\":\"test_echo\",\"arguments\":[]}",
    "{\"name\":\"test_echo\",\"arguments\":\"{}\"}",
    "{\"name\":\"test_echo\",\"arguments\":5}",
    "{\"name\":\"test_echo\",\"arguments\":true}",
    "{\"arguments\":{}}",
    "{\"name\":5}",
    "{\"name\":null}",
    "{\"name\":[\"test_echo\"]}",
    "{}",
  };

  stw_test_client_initialize (client);
  for (guint i = 0; i < G_N_ELEMENTS (params); i++)
    expect_call_error (client, "tools/call", params[i], -32602);
  expect_call_error (client, "tools/call", NULL, -32602);
  g_assert_cmpuint (stw_test_tool_get_n_calls (stw_test_client_get_tool (client, "test_echo")), ==, 0);

  /* null arguments are no arguments: the schema then complains. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/call",
                                                                "{\"name\":\"test_echo\",\"arguments\":null}");
    JsonObject *envelope = check_call_result (result, TRUE);
    g_assert_cmpstr (string_member (envelope, "code"), ==, "BAD_ARGUMENT");
  }
}

static void
test_call_schema (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const arguments[] = {
    "{\"message\":5}",
    "{}",
    "{\"message\":\"x\",\"bogus\":1}",
    "{\"message\":\"x\",\"count\":-1}",
    "{\"message\":\"x\",\"count\":1.5}",
  };

  stw_test_client_initialize (client);
  for (guint i = 0; i < G_N_ELEMENTS (arguments); i++)
    {
      g_autoptr(JsonObject) result = stw_test_client_call_tool (client, "test_echo", arguments[i]);
      JsonObject *envelope = check_call_result (result, TRUE);
      JsonArray *issues;

      g_assert_cmpstr (string_member (envelope, "code"), ==, "BAD_ARGUMENT");
      issues = array_member (object_member (envelope, "details"), "issues");
      g_assert_cmpuint (json_array_get_length (issues), >, 0);
      for (guint j = 0; j < json_array_get_length (issues); j++)
        {
          JsonObject *issue = json_array_get_object_element (issues, j);
          string_member (issue, "code");
          string_member (issue, "message");
        }
    }
  g_assert_cmpuint (stw_test_tool_get_n_calls (stw_test_client_get_tool (client, "test_echo")), ==, 0);

  /* Defaults are filled in before the tool runs. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_tool (client, "test_slow", "{\"ms\":1}");
    JsonObject *envelope = check_call_result (result, FALSE);
    g_assert_cmpint (json_object_get_int_member (envelope, "slept_ms"), ==, 1);
  }
}

static void
test_call_concurrent (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();

  stw_test_client_initialize (client);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"slow\",\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":600}}}");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"fast\",\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_echo\",\"arguments\":{\"message\":\"m\"}}}");
  {
    g_autoptr(JsonObject) fast = stw_test_client_wait_response (client, "\"fast\"");
    g_autoptr(JsonObject) slow = NULL;

    /* Answers go out in completion order. */
    g_assert_false (stw_test_client_has_response (client, "\"slow\""));
    check_call_result (stw_test_assert_result (fast, "\"fast\""), FALSE);
    slow = stw_test_client_wait_response (client, "\"slow\"");
    check_call_result (stw_test_assert_result (slow, "\"slow\""), FALSE);
  }
}

static void
test_too_many_in_flight (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autofree char *first_id = NULL;
  g_autofree char *cancel = NULL;
  StwTool *never;
  guint n = 0;

  stw_test_client_initialize (client);
  never = stw_test_client_get_tool (client, "test_never");

  /* Find the cap: requests beyond it are refused, the server lives on. */
  for (;;)
    {
      g_autofree char *id = stw_test_client_send_request (client, "tools/call", "{\"name\":\"test_never\"}");

      stw_test_client_flush (client);
      if (stw_test_client_has_response (client, id))
        {
          g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);
          stw_test_assert_error (response, id, -32603);
          break;
        }
      if (first_id == NULL)
        first_id = g_strdup (id);
      n++;
      g_assert_cmpuint (n, <=, 10000);
    }
  g_test_message ("%u calls in flight at most", n);
  g_assert_cmpuint (n, >=, 16);
  g_assert_cmpuint (stw_test_tool_get_n_calls (never), ==, n);

  /* Cancelling one makes room for one. */
  cancel = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                            "\"params\":{\"requestId\":%s}}", first_id);
  stw_test_client_send_line (client, cancel);
  wait_cancelled (client, never, 1);
  {
    g_autoptr(JsonObject) result = stw_test_client_call_tool (client, "test_echo", "{\"message\":\"m\"}");
    check_call_result (result, FALSE);
  }
}

/* Cancellation and progress {{{1 */

static void
test_cancel (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  StwTool *slow;

  stw_test_client_initialize (client);
  slow = stw_test_client_get_tool (client, "test_slow");

  /* Long enough that only the cancellation can end it, however loaded
   * the machine. */
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"slow-1\",\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":60000}}}");
  stw_test_client_flush (client);
  g_assert_cmpuint (stw_test_tool_get_n_calls (slow), ==, 1);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                             "\"params\":{\"requestId\":\"slow-1\",\"reason\":\"changed my mind\"}}");

  /* The tool's cancellable fired, and no answer follows, not even an
   * error. */
  wait_cancelled (client, slow, 1);
  stw_test_client_iterate (client, 500);
  stw_test_client_flush (client);
  g_assert_false (stw_test_client_has_response (client, "\"slow-1\""));
  g_assert_cmpuint (stw_test_client_get_n_queued (client), ==, 0);
  g_assert_cmpuint (stw_test_tool_get_n_completed (slow), ==, 0);

  /* Still serving, and the id is free again. */
  {
    g_autoptr(JsonObject) response = NULL;

    stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"slow-1\",\"method\":\"ping\"}");
    response = stw_test_client_wait_response (client, "\"slow-1\"");
    stw_test_assert_result (response, "\"slow-1\"");
  }

  /* A cancellation names the id with its type: "5" does not cancel 5. */
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":150}}}");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                             "\"params\":{\"requestId\":\"5\"}}");
  {
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, "5");
    check_call_result (stw_test_assert_result (response, "5"), FALSE);
  }
  g_assert_cmpuint (stw_test_tool_get_n_cancelled (slow), ==, 1);

  /* Cancelling what already finished is ignored. */
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                             "\"params\":{\"requestId\":5}}");
  stw_test_client_flush (client);
  g_assert_cmpuint (stw_test_client_get_n_queued (client), ==, 0);

  /* A never-ending call is cancelled the same way. */
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_never\"}}");
  stw_test_client_flush (client);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                             "\"params\":{\"requestId\":6}}");
  wait_cancelled (client, stw_test_client_get_tool (client, "test_never"), 1);
  g_assert_false (stw_test_client_has_response (client, "6"));
}

static void
check_progress (const char *token)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(JsonNode) token_node = token ? stw_test_parse (token) : NULL;
  g_autoptr(GPtrArray) early = NULL;
  g_autoptr(GPtrArray) progress = NULL;
  g_autoptr(GPtrArray) late = NULL;
  g_autoptr(JsonObject) response = NULL;
  g_autofree char *meta = token ? g_strdup_printf (",\"_meta\":{\"progressToken\":%s}", token) : g_strdup ("");
  double last = -1;
  gint64 start;

  stw_test_client_initialize (client);
  start = g_get_monotonic_time ();
  stw_test_client_send_printf (client, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"tools/call\","
                               "\"params\":{\"name\":\"test_progress\",\"arguments\":{}%s}}", meta);

  /* Quiet at first. */
  stw_test_client_iterate (client, (guint) MAX (240 - elapsed_ms_since (start), 0));
  early = stw_test_client_take_notifications (client, "notifications/progress");
  g_assert_cmpuint (early->len, ==, 0);

  response = stw_test_client_wait_response (client, "\"p\"");
  check_call_result (stw_test_assert_result (response, "\"p\""), FALSE);
  progress = stw_test_client_take_notifications (client, "notifications/progress");
  g_test_message ("%u progress notifications", progress->len);

  if (token == NULL)
    g_assert_cmpuint (progress->len, ==, 0);
  else
    {
      g_assert_cmpuint (progress->len, >=, 1);
      g_assert_cmpuint (progress->len, <=, 12);
    }

  for (guint i = 0; i < progress->len; i++)
    {
      JsonObject *params = object_member (g_ptr_array_index (progress, i), "params");
      JsonNode *got_token = json_object_get_member (params, "progressToken");
      g_autofree char *got_text = stw_test_to_json (got_token);
      double value;

      g_assert_true (JSON_NODE_HOLDS_VALUE (got_token));
      g_assert_true (json_node_get_value_type (got_token) == json_node_get_value_type (token_node));
      stw_test_assert_json_equal (got_token, token);
      value = json_object_get_double_member (params, "progress");
      g_assert_cmpfloat (value, >, last);
      last = value;
      g_assert_cmpfloat (json_object_get_double_member (params, "total"), ==, 20.0);
      string_member (params, "message");
    }

  /* Nothing after the answer. */
  stw_test_client_iterate (client, 150);
  late = stw_test_client_take_notifications (client, NULL);
  g_assert_cmpuint (late->len, ==, 0);
}

static void
test_progress_string_token (void)
{
  check_progress ("\"tok-1\"");
}

static void
test_progress_integer_token (void)
{
  check_progress ("42");
}

static void
test_progress_no_token (void)
{
  check_progress (NULL);
}

static void
test_progress_bad_token (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const tokens[] = { "null", "1.5", "{}", "[1]", "true" };

  stw_test_client_initialize (client);
  for (guint i = 0; i < G_N_ELEMENTS (tokens); i++)
    {
      g_autofree char *params = g_strdup_printf ("{\"name\":\"test_progress\",\"arguments\":{\"steps\":12,"
                                                 "\"interval_ms\":30},\"_meta\":{\"progressToken\":%s}}",
                                                 tokens[i]);
      g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/call", params);
      g_autoptr(GPtrArray) progress = stw_test_client_take_notifications (client, NULL);

      check_call_result (result, FALSE);
      g_assert_cmpuint (progress->len, ==, 0);
    }

  /* _meta that is not an object is ignored. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/call",
                                                                "{\"name\":\"test_echo\",\"arguments\":{\"message\":\"m\"},"
                                                                "\"_meta\":[1]}");
    check_call_result (result, FALSE);
  }
}

/* Logging {{{1 */

static void
test_logging (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  StwMcpServer *server = stw_test_client_get_server (client);
  static const char * const bad[] = {
    "{\"level\":\"verbose\"}", "{\"level\":\"DEBUG\"}", "{\"level\":5}", "{\"level\":null}",
    "{}", "{\"level\":[\"debug\"]}",
  };

  stw_test_client_initialize (client);

  /* Nothing until the client asks. */
  stw_mcp_server_send_log (server, "emergency", "test", "unasked");
  stw_test_client_flush (client);
  g_assert_cmpuint (stw_test_client_get_n_queued (client), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    expect_call_error (client, "logging/setLevel", bad[i], -32602);
  expect_call_error (client, "logging/setLevel", NULL, -32602);

  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "logging/setLevel",
                                                                "{\"level\":\"warning\"}");
    g_assert_cmpuint (json_object_get_size (result), ==, 0);
  }

  stw_mcp_server_send_log (server, "info", "test", "too verbose");
  stw_mcp_server_send_log (server, "notice", "test", "too verbose");
  stw_mcp_server_send_log (server, "bogus", "test", "not a level");
  stw_mcp_server_send_log (server, "error", "test", "boom");
  stw_mcp_server_send_log (server, "warning", NULL, "no logger");
  stw_test_client_flush (client);
  {
    g_autoptr(GPtrArray) messages = stw_test_client_take_notifications (client, NULL);
    JsonObject *first;
    JsonObject *second;

    g_assert_cmpuint (messages->len, ==, 2);
    first = g_ptr_array_index (messages, 0);
    second = g_ptr_array_index (messages, 1);
    g_assert_cmpstr (string_member (first, "method"), ==, "notifications/message");
    stw_test_assert_json_equal (json_object_get_member (first, "params"),
                                "{\"level\":\"error\",\"logger\":\"test\",\"data\":\"boom\"}");
    stw_test_assert_json_equal (json_object_get_member (second, "params"),
                                "{\"level\":\"warning\",\"data\":\"no logger\"}");
  }

  /* At debug, a message from the library reaches the client: the eval
   * audit of the dispatcher. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "logging/setLevel",
                                                                "{\"level\":\"debug\"}");
    g_autoptr(JsonObject) call = NULL;
    g_autoptr(JsonObject) notification = NULL;
    JsonObject *params;

    g_assert_cmpuint (json_object_get_size (result), ==, 0);
    stw_dispatcher_set_allow_eval (stw_test_client_get_dispatcher (client), STW_EVAL_TARGET_MAIN);
    log_forward_server = server;
    call = stw_test_client_call_tool (client, "test_eval", "{\"code\":\"1 + 1\"}");
    log_forward_server = NULL;
    check_call_result (call, FALSE);

    notification = stw_test_client_wait_notification (client, "notifications/message");
    params = object_member (notification, "params");
    g_assert_cmpstr (string_member (params, "level"), ==, "notice");
    g_assert_cmpstr (string_member (params, "logger"), ==, "stagewright");
    g_assert_nonnull (strstr (string_member (params, "data"), "eval audit"));
    g_assert_null (strstr (string_member (params, "data"), "1 + 1"));
  }

  /* Before initialize, setLevel is refused. */
  {
    g_autoptr(StwTestClient) fresh = stw_test_client_new ();
    expect_call_error (fresh, "logging/setLevel", "{\"level\":\"debug\"}", -32600);
  }
}

/* tools/list_changed {{{1 */

static void
add_echo_tool (StwTestClient *client,
               const char    *name)
{
  g_autoptr(StwTool) tool = stw_test_tool_new_echo (name);
  g_autoptr(GError) error = NULL;

  stw_dispatcher_add_tool (stw_test_client_get_dispatcher (client), tool, &error);
  g_assert_no_error (error);
}

static void
test_list_changed (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  StwDispatcher *dispatcher = stw_test_client_get_dispatcher (client);

  /* Not before notifications/initialized. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "initialize", "{}");

    add_echo_tool (client, "extra_early");
    assert_no_more_notifications (client);
  }

  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  stw_test_client_flush (client);

  /* One tool, one notification. */
  add_echo_tool (client, "extra_one");
  {
    g_autoptr(JsonObject) notification = stw_test_client_wait_notification (client, "notifications/tools/list_changed");

    stw_test_assert_members (notification, "jsonrpc", "method", NULL);
    assert_no_more_notifications (client);
  }

  /* Three at once, one notification. */
  add_echo_tool (client, "extra_two");
  add_echo_tool (client, "extra_three");
  add_echo_tool (client, "extra_four");
  {
    g_autoptr(JsonObject) notification = stw_test_client_wait_notification (client, "notifications/tools/list_changed");

    assert_no_more_notifications (client);
  }

  /* Removal too. */
  g_assert_true (stw_dispatcher_remove_tool (dispatcher, "extra_two"));
  {
    g_autoptr(JsonObject) notification = stw_test_client_wait_notification (client, "notifications/tools/list_changed");
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/list", NULL);
    JsonArray *tools = array_member (result, "tools");
    guint found = 0;

    for (guint i = 0; i < json_array_get_length (tools); i++)
      {
        const char *name = string_member (json_array_get_object_element (tools, i), "name");

        g_assert_cmpstr (name, !=, "extra_two");
        if (g_str_has_prefix (name, "extra_"))
          found++;
      }
    g_assert_cmpuint (found, ==, 4);
  }

  /* The new tools can be called. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_tool (client, "extra_four", "{\"message\":\"m\"}");
    check_call_result (result, FALSE);
  }
}

/* Resources {{{1 */

static void
test_resources (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(JsonObject) list = NULL;
  static const char * const uris[] = {
    "stagewright://docs/quickstart", "stagewright://docs/concepts",
    "stagewright://docs/security", "stagewright://manifest/profile",
  };
  JsonArray *resources;

  stw_test_client_initialize (client);
  list = stw_test_client_call_result (client, "resources/list", NULL);
  stw_test_assert_members (list, "resources", NULL);
  resources = array_member (list, "resources");
  g_assert_cmpuint (json_array_get_length (resources), ==, G_N_ELEMENTS (uris));

  for (guint i = 0; i < G_N_ELEMENTS (uris); i++)
    {
      JsonObject *resource = json_array_get_object_element (resources, i);
      gboolean is_doc = g_str_has_prefix (uris[i], "stagewright://docs/");
      g_autofree char *params = g_strdup_printf ("{\"uri\":\"%s\"}", uris[i]);
      g_autoptr(JsonObject) read = NULL;
      JsonArray *contents;
      JsonObject *content;
      const char *text;

      g_assert_cmpstr (string_member (resource, "uri"), ==, uris[i]);
      g_assert_cmpuint (strlen (string_member (resource, "name")), >, 0);
      g_assert_cmpuint (strlen (string_member (resource, "description")), >, 0);
      g_assert_cmpstr (string_member (resource, "mimeType"), ==,
                       is_doc ? "text/markdown" : "application/json");

      read = stw_test_client_call_result (client, "resources/read", params);
      stw_test_assert_members (read, "contents", NULL);
      contents = array_member (read, "contents");
      g_assert_cmpuint (json_array_get_length (contents), ==, 1);
      content = json_array_get_object_element (contents, 0);
      stw_test_assert_members (content, "uri", "mimeType", "text", NULL);
      g_assert_cmpstr (string_member (content, "uri"), ==, uris[i]);
      g_assert_cmpstr (string_member (content, "mimeType"), ==, string_member (resource, "mimeType"));
      text = string_member (content, "text");
      g_assert_cmpuint (strlen (text), >, 0);

      if (is_doc)
        g_assert_nonnull (strchr (text, '#'));
      else
        {
          g_autoptr(JsonNode) manifest = stw_test_parse (text);
          g_autoptr(GList) visible = stw_dispatcher_list_tools (stw_test_client_get_dispatcher (client));
          JsonObject *object = json_node_get_object (manifest);
          JsonArray *names = array_member (object, "tools");
          guint j = 0;

          g_assert_cmpstr (string_member (object, "profile"), ==, "full");
          g_assert_cmpstr (string_member (object, "eval_policy"), ==, "none");
          g_assert_cmpuint (json_array_get_length (names), ==, g_list_length (visible));
          for (const GList *l = visible; l != NULL; l = l->next, j++)
            g_assert_cmpstr (json_array_get_string_element (names, j), ==, stw_tool_get_name (l->data));
        }
    }

  /* Unknown resource: -32002 naming it. */
  {
    g_autofree char *id = stw_test_client_send_request (client, "resources/read",
                                                        "{\"uri\":\"stagewright://docs/nope\"}");
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);
    JsonObject *error = stw_test_assert_error (response, id, -32002);

    g_assert_cmpstr (string_member (object_member (error, "data"), "uri"), ==, "stagewright://docs/nope");
  }
  expect_call_error (client, "resources/read", "{\"uri\":\"file:///etc/passwd\"}", -32002);
  expect_call_error (client, "resources/read", "{\"uri\":\"\"}", -32002);
  expect_call_error (client, "resources/read", "{\"uri\":5}", -32602);
  expect_call_error (client, "resources/read", "{}", -32602);
  expect_call_error (client, "resources/read", NULL, -32602);

  /* Nothing is paginated: every cursor is invalid. */
  expect_call_error (client, "resources/list", "{\"cursor\":\"x\"}", -32602);
  expect_call_error (client, "resources/templates/list", "{\"cursor\":\"x\"}", -32602);
  {
    g_autoptr(JsonObject) again = stw_test_client_call_result (client, "resources/list", "{\"cursor\":null}");
    g_assert_cmpuint (json_array_get_length (array_member (again, "resources")), ==, G_N_ELEMENTS (uris));
  }

  {
    g_autoptr(JsonObject) templates = stw_test_client_call_result (client, "resources/templates/list", NULL);
    assert_object_equal (templates, "{\"resourceTemplates\":[]}");
  }
}

/* In-flight ids {{{1 */

static void
test_duplicate_id (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();

  stw_test_client_initialize (client);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":600}}}");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_echo\",\"arguments\":{\"message\":\"m\"}}}");
  {
    g_autoptr(JsonObject) first = stw_test_client_wait_response (client, "9");
    g_autoptr(JsonObject) second = stw_test_client_wait_response (client, "9");
    g_autoptr(JsonObject) third = stw_test_client_wait_response (client, "9");

    stw_test_assert_error (first, "9", -32600);
    stw_test_assert_error (second, "9", -32600);
    check_call_result (stw_test_assert_result (third, "9"), FALSE);
  }
  g_assert_cmpuint (stw_test_tool_get_n_calls (stw_test_client_get_tool (client, "test_echo")), ==, 0);

  /* Free again once answered. */
  {
    g_autoptr(JsonObject) response = NULL;

    stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
    response = stw_test_client_wait_response (client, "9");
    stw_test_assert_result (response, "9");
  }
}

/* End of input {{{1 */

static void
test_eof_drain (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) response = NULL;

  stw_test_client_initialize (client);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"quick\",\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":200}}}");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"ping\",\"method\":\"ping\"}");
  stw_test_client_close (client);

  g_assert_true (stw_test_client_wait_finished (client, stw_test_timeout_ms (2000), &error));
  g_assert_no_error (error);
  /* Everything was written before the run completed. */
  g_assert_true (stw_test_client_has_response (client, "\"ping\""));
  response = stw_test_client_wait_response (client, "\"quick\"");
  check_call_result (stw_test_assert_result (response, "\"quick\""), FALSE);
  g_assert_cmpuint (stw_test_tool_get_n_completed (stw_test_client_get_tool (client, "test_slow")), ==, 1);
}

static void
test_eof_abandon (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(GError) error = NULL;
  StwTool *never;
  gint64 start;
  gint64 elapsed;

  stw_test_client_initialize (client);
  never = stw_test_client_get_tool (client, "test_never");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"never\",\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_never\"}}");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":100}}}");
  stw_test_client_flush (client);
  start = g_get_monotonic_time ();
  stw_test_client_close (client);

  g_assert_true (stw_test_client_wait_finished (client, stw_test_timeout_ms (4000), &error));
  g_assert_no_error (error);
  elapsed = elapsed_ms_since (start);
  g_test_message ("run finished %" G_GINT64_FORMAT " ms after the end of input", elapsed);
  g_assert_cmpint (elapsed, >=, DRAIN_GRACE_MS - 100);
  g_assert_cmpint (elapsed, <, stw_test_timeout_ms (4000));

  /* The quick call was answered during the grace, the other abandoned. */
  g_assert_true (stw_test_client_has_response (client, "\"s\""));
  wait_cancelled (client, never, 1);
  g_assert_false (stw_test_client_has_response (client, "\"never\""));
}

static void
test_output_closed (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(GError) error = NULL;
  StwTool *never;

  stw_test_client_initialize (client);
  never = stw_test_client_get_tool (client, "test_never");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_never\"}}");
  stw_test_client_flush (client);

  /* The client stops reading; the next answer cannot be written. */
  stw_test_client_hang_up (client);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  g_assert_true (stw_test_client_wait_finished (client, stw_test_timeout_ms (1000), &error));
  g_assert_no_error (error);
  wait_cancelled (client, never, 1);
}

static void
test_cancel_run (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(GError) error = NULL;
  StwTool *never;
  gint64 start;

  stw_test_client_initialize (client);
  never = stw_test_client_get_tool (client, "test_never");
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"test_never\"}}");
  stw_test_client_flush (client);

  start = g_get_monotonic_time ();
  stw_test_client_cancel_run (client);
  g_assert_false (stw_test_client_wait_finished (client, stw_test_timeout_ms (4000), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_test_message ("run finished %" G_GINT64_FORMAT " ms after cancellation", elapsed_ms_since (start));
  /* Serving stops at once: no drain grace for a cancelled run. */
  g_assert_cmpint (elapsed_ms_since (start), <, stw_test_timeout_ms (1000));
  wait_cancelled (client, never, 1);
  g_assert_false (stw_test_client_has_response (client, "1"));
}

/* Strict JSON {{{1 */

/* Lines json-glib 1.6 accepts and RFC 8259 refuses: each gets -32700 and
 * nothing of it is acted on (the ping inside is not answered). */
static void
test_strict_json (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  static const char * const lines[] = {
#define PING "\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\""
    "{" PING "} // comment",
    "/* comment */ {" PING "}",
    "{" PING ", /* comment */ \"params\":{}}",
    "# comment\n",
    "{'jsonrpc':'2.0','id':7,'method':'ping'}",
    "{\"jsonrpc\":\"2.0\",\"id\":0x7,\"method\":\"ping\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":07,\"method\":\"ping\"}",
    "{" PING ",\"params\":{\"a\":NaN}}",
    "{" PING ",\"params\":{\"a\":Infinity}}",
    "{" PING ",\"params\":{\"a\":-Infinity}}",
    "{" PING ",\"params\":{\"a\":-01}}",
    "{" PING ",\"params\":{\"a\":.5}}",
    "{" PING ",\"params\":{\"a\":1.}}",
    "{" PING ",\"params\":{\"a\":1e}}",
    "{" PING ",\"params\":{\"a\":1.5e+}}",
    "{" PING ",\"params\":{\"a\":+1}}",
    "{" PING ",\"params\":{\"a\":True}}",
    "{" PING ",\"params\":{\"a\":undefined}}",
    "{" PING ",\"params\":{\"a\":\"tab\there\"}}",
    "{" PING ",\"params\":{\"a\":\"\\x41\"}}",
    "{" PING ",\"params\":{\"a\":1,,\"b\":2}}",
    "{" PING ",\"params\":{a:1}}",
    "{" PING ",\"params\":[1 2]}",
    "{" PING ",}",
    "{" PING "}{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}",
    "{" PING "} {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}",
    "{" PING "}]",
    "{" PING "}x",
    "{" PING "} null",
    "\f{" PING "}",
    "\v{" PING "}",
    "\xc2\xa0{" PING "}",
    "\xef\xbb\xbf{" PING "}",
#undef PING
  };

  stw_test_client_initialize (client);
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *escaped = g_strescape (lines[i], NULL);

      g_test_message ("%s", escaped);
      /* One error, the flush's answer, and nothing for ids 7 or 8. */
      expect_error (client, lines[i], "null", -32700);
      g_assert_false (stw_test_client_has_response (client, "7"));
      g_assert_false (stw_test_client_has_response (client, "8"));
    }

  /* What RFC 8259 allows is served: JSON whitespace around the value,
   * every number form, every escape. */
  {
    g_autoptr(JsonObject) response = NULL;

    stw_test_client_send_line (client, " \t{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":"
                               "{\"a\":[-0,0.5,-1.5e-3,1E+2,2e2,123456789012345678901234567890],"
                               "\"b\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",\"c\":{},\"d\":[],"
                               "\"e\":[true,false,null]}}\t \r");
    response = stw_test_client_wait_response (client, "9");
    stw_test_assert_result (response, "9");
  }
  stw_test_client_flush (client);
  g_assert_cmpuint (stw_test_client_get_n_queued (client), ==, 0);
}

/* Issue 7 item 8: a message holding more values than the bound is refused
 * before a tree is built, and the server keeps serving. */
static void
test_too_many_values (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();
  g_autoptr(GString) line = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":[");
  g_autoptr(JsonObject) response = NULL;
  JsonObject *error;

  for (gsize i = 0; i < STW_JSON_MAX_VALUES; i++)
    g_string_append (line, "0,");
  g_string_append (line, "0]}}");
  stw_test_client_send_line (client, line->str);
  response = stw_test_client_wait_response (client, "null");
  error = stw_test_assert_error (response, "null", -32600);
  g_assert_nonnull (strstr (json_object_get_string_member (error, "message"), "too large"));
  g_assert_false (stw_test_client_has_response (client, "1"));

  /* Empty objects cost more than numbers: fewer of them are refused. */
  g_string_assign (line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"a\":[");
  for (gsize i = 0; i < STW_JSON_MAX_VALUES / 6; i++)
    g_string_append (line, "{},");
  g_string_append (line, "{}]}}");
  expect_error (client, line->str, "null", -32600);
  g_assert_false (stw_test_client_has_response (client, "2"));

  /* Below the absolute bound but denser than one value per 8 bytes: a
   * 600 KB line of 300,000 one-digit numbers would cost ~40 times its
   * length as a tree, so it is refused too. */
  g_string_assign (line, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"a\":[");
  for (gsize i = 0; i < 300000; i++)
    g_string_append (line, "0,");
  g_string_append (line, "0]}}");
  expect_error (client, line->str, "null", -32600);
  g_assert_false (stw_test_client_has_response (client, "3"));

  /* The same number of values, each with the text to pay for it, and a
   * small dense message (under the 16 Ki floor) are served. */
  g_string_assign (line, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"a\":[");
  for (gsize i = 0; i < 300000; i++)
    g_string_append (line, "\"value-000\",");
  g_string_append (line, "0]}}");
  stw_test_client_send_line (client, line->str);
  g_clear_pointer (&response, json_object_unref);
  response = stw_test_client_wait_response (client, "4");
  stw_test_assert_result (response, "4");
  g_string_assign (line, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"a\":[");
  for (gsize i = 0; i < 10000; i++)
    g_string_append (line, "0,");
  g_string_append (line, "0]}}");
  stw_test_client_send_line (client, line->str);
  g_clear_pointer (&response, json_object_unref);
  response = stw_test_client_wait_response (client, "5");
  stw_test_assert_result (response, "5");

  stw_test_client_initialize (client);
}

/* The stdio framing with a client that never reads {{{1 */

typedef struct
{
  gboolean  done;
  GError   *error;
} RunResult;

static void
on_serve_done (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  RunResult *run = user_data;

  stw_mcp_server_run_finish (STW_MCP_SERVER (object), result, &run->error);
  run->done = TRUE;
}

static gboolean
count_tick (gpointer user_data)
{
  (*(guint *) user_data)++;
  return G_SOURCE_CONTINUE;
}

static void
test_unread_output (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwMcpServer) server = stw_mcp_server_new (dispatcher);
  g_autoptr(GString) requests = g_string_new (NULL);
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(StwMcpFraming) framing = NULL;
  g_autofree char *big_id = g_strnfill (100 * 1024, 'x');
  g_autoptr(GError) error = NULL;
  RunResult run = { 0 };
  guint ticks = 0;
  guint tick_id;
  gint64 start = g_get_monotonic_time ();
  int fds[2];

  /* Every ping echoes a 100 KiB id: 40 of them are 4 MiB of answers. */
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (requests, "{\"jsonrpc\":\"2.0\",\"id\":\"%s%u\",\"method\":\"ping\"}\n",
                            big_id, i);
  input = g_memory_input_stream_new_from_data (g_memdup2 (requests->str, requests->len),
                                               (gssize) requests->len, g_free);

  /* A pipe whose reading end nobody reads. */
  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, &error));
  g_assert_no_error (error);
  g_assert_true (g_unix_set_fd_nonblocking (fds[1], TRUE, &error));
  output = g_unix_output_stream_new (fds[1], TRUE);

  framing = _stw_mcp_stdio_framing_new (input, output);
  _stw_mcp_stdio_framing_set_max_queued (STW_MCP_STDIO_FRAMING (framing), 1024 * 1024);
  _stw_mcp_server_serve_async (server, framing, NULL, on_serve_done, &run);

  /* The main loop is never blocked by the writes. */
  tick_id = g_timeout_add (5, count_tick, &ticks);
  while (!run.done && elapsed_ms_since (start) < stw_test_timeout_ms (5000))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick_id);

  g_assert_true (run.done);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_assert_nonnull (strstr (run.error->message, "stopped reading"));
  g_test_message ("dropped after %" G_GINT64_FORMAT " ms, %u ticks", elapsed_ms_since (start), ticks);
  g_clear_error (&run.error);
  close (fds[0]);
}

/* The bound is on what waits behind unread output: one answer bigger than
 * the bound still goes to a client that reads, and so does what follows. */
static void
test_big_answer_reading_client (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(StwMcpServer) server = stw_mcp_server_new (dispatcher);
  g_autoptr(GString) requests = g_string_new (NULL);
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = g_memory_output_stream_new_resizable ();
  g_autoptr(StwMcpFraming) framing = NULL;
  g_autofree char *big_id = g_strnfill (64 * 1024, 'y');
  g_auto(GStrv) lines = NULL;
  RunResult run = { 0 };
  gint64 start = g_get_monotonic_time ();

  g_string_append_printf (requests, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"ping\"}\n", big_id);
  for (guint i = 0; i < 3; i++)
    g_string_append_printf (requests, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\"}\n", i);
  input = g_memory_input_stream_new_from_data (g_memdup2 (requests->str, requests->len),
                                               (gssize) requests->len, g_free);

  framing = _stw_mcp_stdio_framing_new (input, output);
  _stw_mcp_stdio_framing_set_max_queued (STW_MCP_STDIO_FRAMING (framing), 1024);
  _stw_mcp_server_serve_async (server, framing, NULL, on_serve_done, &run);
  while (!run.done && elapsed_ms_since (start) < stw_test_timeout_ms (5000))
    g_main_context_iteration (NULL, TRUE);

  g_assert_true (run.done);
  g_assert_no_error (run.error);
  g_output_stream_close (output, NULL, NULL);
  {
    g_autofree char *text = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (output)),
                                       g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (output)));
    lines = g_strsplit (text, "\n", -1);
  }
  /* Four answers and the empty rest after the last newline. */
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  g_assert_nonnull (strstr (lines[0], big_id));
  g_assert_cmpstr (lines[3], ==, "{\"id\":2,\"result\":{},\"jsonrpc\":\"2.0\"}");
}

/* The stagewright program {{{1 */

static const char *
stagewright_bin (void)
{
  const char *bin = g_getenv ("STAGEWRIGHT_BIN");

  if (bin == NULL)
    g_test_skip ("STAGEWRIGHT_BIN is not set (run through make check)");
  return bin;
}

static gboolean
wait_check_timeout (GSubprocess *process,
                    guint        timeout_ms)
{
  gint64 start = g_get_monotonic_time ();

  while (g_subprocess_get_identifier (process) != NULL &&
         elapsed_ms_since (start) < timeout_ms)
    g_main_context_iteration (NULL, FALSE), g_usleep (2000);
  if (g_subprocess_get_identifier (process) != NULL)
    {
      g_subprocess_force_exit (process);
      g_subprocess_wait (process, NULL, NULL);
      return FALSE;
    }
  g_subprocess_wait (process, NULL, NULL);
  return TRUE;
}

static void
run_refused (const char * const *argv,
             const char         *name,
             const char         *reason)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;

  process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                               G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  g_test_message ("%s", err);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_assert_true (g_str_has_prefix (err, "stagewright: "));
  g_assert_nonnull (strstr (err, name));
  g_assert_nonnull (strstr (err, reason));
}

static void
test_program_plugin_refused (void)
{
  const char *bin = stagewright_bin ();

  if (bin == NULL)
    return;
  /* A plugin that cannot be loaded (tests/test-plugin.c has them all). */
  run_refused ((const char * const[]) { bin, "--plugin", "nosuchplugin", NULL }, "nosuchplugin",
               "no nosuchplugin.plugin in");
  run_refused ((const char * const[]) { bin, "--plugin=/usr/lib/x.so", NULL }, "/usr/lib/x.so",
               "a plugin is a name or the absolute path of a .plugin file");
  run_refused ((const char * const[]) { bin, "--plugin-config", "trace=[1]", NULL }, "--plugin-config trace",
               "must be a JSON object");
  run_refused ((const char * const[]) { bin, "tools", "--plugin", "nosuchplugin", NULL }, "nosuchplugin",
               "no nosuchplugin.plugin in");
}

/* With --app-root the server writes screenshots inside it only: a
 * --screenshot-dir outside, or a symlink leading out, is refused at start. */
static void
test_program_screenshot_dir_confined (void)
{
  const char *bin = stagewright_bin ();
  g_autofree char *scratch = g_dir_make_tmp ("stw-XXXXXX", NULL);
  g_autofree char *root = g_build_filename (scratch, "root", NULL);
  g_autofree char *outside = g_build_filename (scratch, "outside", NULL);
  g_autofree char *link = g_build_filename (root, "out", NULL);
  g_autofree char *inside = g_build_filename (root, "shots", NULL);
  g_autofree char *root_flag = g_strdup_printf ("--app-root=%s", root);
  g_autofree char *outside_flag = g_strdup_printf ("--screenshot-dir=%s", outside);
  g_autofree char *link_flag = g_strdup_printf ("--screenshot-dir=%s", link);
  g_autofree char *inside_flag = g_strdup_printf ("--screenshot-dir=%s", inside);

  g_assert_nonnull (bin);
  g_assert_cmpint (g_mkdir (root, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (outside, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (inside, 0700), ==, 0);
  g_assert_cmpint (symlink (outside, link), ==, 0);
  run_refused ((const char * const[]) { bin, root_flag, outside_flag, NULL }, outside, "lies outside --app-root");
  run_refused ((const char * const[]) { bin, root_flag, link_flag, NULL }, link, "lies outside --app-root");
  /* The control: a directory inside starts the server (stdin at EOF ends it). */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) nothing = g_bytes_new (NULL, 0);
    g_autoptr(GSubprocess) process = g_subprocess_newv ((const char * const[]) { bin, root_flag, inside_flag, NULL },
                                                        G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                                        G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
    g_assert_no_error (error);
    g_subprocess_communicate (process, nothing, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  }
  g_unlink (link);
  g_rmdir (inside);
  g_rmdir (root);
  g_rmdir (outside);
  g_rmdir (scratch);
}

static void
close_stdin (gpointer user_data)
{
  close (STDIN_FILENO);
}

static void
test_program_stdin_closed (void)
{
  const char *bin = stagewright_bin ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) err = NULL;
  g_autofree char *err_text = NULL;

  if (bin == NULL)
    return;
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, close_stdin, NULL, NULL);
  process = g_subprocess_launcher_spawn (launcher, &error, bin, NULL);
  g_assert_no_error (error);

  /* It used to read its own eventfd (descriptor 0) for ever. */
  g_assert_true (wait_check_timeout (process, stw_test_timeout_ms (5000)));
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 1);
  err = g_input_stream_read_bytes (g_subprocess_get_stderr_pipe (process), 4096, NULL, &error);
  g_assert_no_error (error);
  err_text = g_strndup (g_bytes_get_data (err, NULL), g_bytes_get_size (err));
  g_test_message ("%s", err_text);
  g_assert_nonnull (strstr (err_text, "stdin is closed"));
}

static gsize
vm_rss_kib (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/status", pid);
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents (path, &status, NULL, NULL) ||
      (line = strstr (status, "\nVmRSS:")) == NULL)
    return 0;
  return (gsize) g_ascii_strtoull (line + 8, NULL, 10);
}

/* A client that never reads stdout: the server does not block and does not
 * grow beyond its queue bound (64 MiB); it drops the client and exits. */
static void
test_program_stdout_unread (void)
{
  const char *bin = stagewright_bin ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileIOStream) io = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GBytes) err = NULL;
  g_autofree char *big_id = g_strnfill (4 * 1024 * 1024, 'x');
  g_autofree char *err_text = NULL;
  g_autofree char *pid = NULL;
  gsize max_rss = 0;
  gint64 start;
  GOutputStream *out;

  if (bin == NULL)
    return;

  /* 20 pings with 4 MiB ids: 80 MiB of answers. */
  file = g_file_new_tmp ("stw-unread-XXXXXX.jsonl", &io, &error);
  g_assert_no_error (error);
  out = g_io_stream_get_output_stream (G_IO_STREAM (io));
  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"%s%u\",\"method\":\"ping\"}\n",
                                               big_id, i);
      g_output_stream_write_all (out, line, strlen (line), NULL, NULL, &error);
      g_assert_no_error (error);
    }
  g_io_stream_close (G_IO_STREAM (io), NULL, &error);
  g_assert_no_error (error);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_stdin_file_path (launcher, g_file_peek_path (file));
  process = g_subprocess_launcher_spawn (launcher, &error, bin, NULL);
  g_assert_no_error (error);
  pid = g_strdup (g_subprocess_get_identifier (process));

  start = g_get_monotonic_time ();
  while (g_subprocess_get_identifier (process) != NULL &&
         elapsed_ms_since (start) < stw_test_timeout_ms (10000))
    {
      max_rss = MAX (max_rss, vm_rss_kib (pid));
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
    }
  g_assert_true (wait_check_timeout (process, 100));
  g_file_delete (file, NULL, NULL);

  g_test_message ("exited after %" G_GINT64_FORMAT " ms; highest RSS seen %" G_GSIZE_FORMAT " KiB",
                  elapsed_ms_since (start), max_rss);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 1);
  /* The 64 MiB queue, the line being read and the binary: well below the
   * 80 MiB of answers on top of that. */
  g_assert_cmpuint (max_rss, <, 160 * 1024);
  err = g_input_stream_read_bytes (g_subprocess_get_stderr_pipe (process), 4096, NULL, &error);
  g_assert_no_error (error);
  err_text = g_strndup (g_bytes_get_data (err, NULL), g_bytes_get_size (err));
  g_test_message ("%s", err_text);
  g_assert_nonnull (strstr (err_text, "stopped reading"));
}

/* main {{{1 */

/* Both eras over stdio {{{1 */

/* A 2026-07-28 client needs no initialize; each request's _meta is held
 * to that era's rules; methods the era removed are gone for it. */
static void
test_stdio_modern (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();

  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "server/discover", "{" MODERN_META "}");
    JsonObject *capabilities = object_member (result, "capabilities");
    JsonObject *meta = object_member (result, "_meta");

    g_assert_cmpstr (json_array_get_string_element (array_member (result, "supportedVersions"), 0),
                     ==, "2026-07-28");
    /* What subscriptions/listen delivers. */
    g_assert_true (boolean_member (object_member (capabilities, "tools"), "listChanged"));
    g_assert_true (boolean_member (object_member (capabilities, "resources"), "subscribe"));
    g_assert_false (json_object_has_member (capabilities, "logging"));
    g_assert_cmpstr (string_member (object_member (meta, "io.modelcontextprotocol/serverInfo"), "name"),
                     ==, "stagewright");
    g_assert_cmpint (json_object_get_int_member (result, "ttlMs"), >, 0);
    g_assert_cmpstr (string_member (result, "cacheScope"), ==, "public");
  }
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/list", "{" MODERN_META "}");

    g_assert_cmpuint (json_array_get_length (array_member (result, "tools")), >, 0);
    g_assert_cmpstr (string_member (result, "resultType"), ==, "complete");
    g_assert_true (json_object_has_member (result, "ttlMs"));
  }
  {
    g_autoptr(JsonObject) result =
      stw_test_client_call_result (client, "tools/call", "{\"name\":\"test_echo\",\"arguments\":{\"message\":\"hi\"}," MODERN_META "}");

    g_assert_cmpstr (string_member (result, "resultType"), ==, "complete");
    g_assert_false (boolean_member (result, "isError"));
    /* A call's result is not a list: no caching hints. */
    g_assert_false (json_object_has_member (result, "ttlMs"));
  }

  /* _meta that does not say who asks is invalid params. */
  expect_call_error (client, "server/discover", NULL, -32602);
  expect_call_error (client, "server/discover", "{}", -32602);
  expect_call_error (client, "server/discover", "{\"_meta\":{}}", -32602);
  expect_call_error (client, "tools/list",
                     "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}", -32602);
  expect_call_error (client, "tools/list",
                     "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                     "\"io.modelcontextprotocol/clientCapabilities\":[]}}", -32602);
  expect_call_error (client, "subscriptions/listen", "{\"notifications\":{}}", -32602);
  /* A version nobody speaks. */
  {
    g_autofree char *id = stw_test_client_send_request (client, "tools/list",
                                                        "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\","
                                                        "\"io.modelcontextprotocol/clientCapabilities\":{}}}");
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, id);
    JsonObject *error = stw_test_assert_error (response, id, -32022);

    g_assert_cmpstr (string_member (object_member (error, "data"), "requested"), ==, "1999-01-01");
  }
  /* Gone in this era. */
  expect_call_error (client, "ping", "{" MODERN_META "}", -32601);
  expect_call_error (client, "initialize", "{" MODERN_META "}", -32601);
  expect_call_error (client, "logging/setLevel", "{\"level\":\"debug\"," MODERN_META "}", -32601);
  /* Not found is invalid params in this era. */
  expect_call_error (client, "resources/read", "{\"uri\":\"stagewright://nothing\"," MODERN_META "}", -32602);

  /* A request without _meta is of 2025-11-25: it needs initialize, and
   * subscriptions/listen is not of that era. */
  expect_call_error (client, "tools/list", NULL, -32600);
  stw_test_client_initialize (client);
  expect_call_error (client, "subscriptions/listen",
                     "{\"notifications\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\"}}",
                     -32601);
  expect_call_error (client, "subscriptions/listen", "{\"notifications\":{}}", -32601);
  expect_call_error (client, "server/discover", NULL, -32601);
  /* Initialized or not, a request that names 2026-07-28 is of that era. */
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "server/discover", "{" MODERN_META "}");

    g_assert_cmpstr (string_member (result, "resultType"), ==, "complete");
  }
  {
    g_autoptr(JsonObject) result = stw_test_client_call_result (client, "tools/list", NULL);

    g_assert_false (json_object_has_member (result, "resultType"));
    g_assert_false (json_object_has_member (result, "ttlMs"));
  }
}

/* A server told to speak 2025-11-25 only over stdio answers discovery as
 * a server of that era would. */
static void
test_stdio_modern_off (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();

  _stw_mcp_server_set_stdio_accepts_modern (stw_test_client_get_server (client), FALSE);
  expect_call_error (client, "server/discover", "{" MODERN_META "}", -32601);
  expect_call_error (client, "subscriptions/listen", "{\"notifications\":{}," MODERN_META "}", -32601);
  expect_call_error (client, "tools/list", "{" MODERN_META "}", -32600);
}

static void
assert_subscription_id (JsonObject *notification,
                        const char *id)
{
  JsonObject *params = object_member (notification, "params");

  g_assert_cmpstr (string_member (object_member (params, "_meta"), "io.modelcontextprotocol/subscriptionId"),
                   ==, id);
}

/* subscriptions/listen: acknowledged with what is honored, then the
 * notifications it asked for, tagged; nothing it did not ask for; ended
 * by notifications/cancelled. */
static void
test_stdio_listen (void)
{
  g_autoptr(StwTestClient) client = stw_test_client_new ();

  stw_test_client_send_line (client,
                             "{\"jsonrpc\":\"2.0\",\"id\":\"tools\",\"method\":\"subscriptions/listen\",\"params\":{"
                             "\"notifications\":{\"toolsListChanged\":true,\"promptsListChanged\":true,"
                             "\"resourcesListChanged\":true,\"resourceSubscriptions\":"
                             "[\"stagewright://manifest/profile\",\"stagewright://nothing\",\"stagewright://manifest/profile\"]},"
                             MODERN_META "}}");
  {
    g_autoptr(JsonObject) ack = stw_test_client_wait_notification (client, "notifications/subscriptions/acknowledged");

    assert_subscription_id (ack, "tools");
    /* No prompts, a fixed resource list, unknown URIs left out. */
    stw_test_assert_json_equal (json_object_get_member (object_member (ack, "params"), "notifications"),
                                "{\"toolsListChanged\":true,"
                                "\"resourceSubscriptions\":[\"stagewright://manifest/profile\"]}");
  }
  stw_test_client_send_line (client,
                             "{\"jsonrpc\":\"2.0\",\"id\":7000,\"method\":\"subscriptions/listen\",\"params\":{"
                             "\"notifications\":{\"promptsListChanged\":true}," MODERN_META "}}");
  {
    g_autoptr(JsonObject) ack = stw_test_client_wait_notification (client, "notifications/subscriptions/acknowledged");
    JsonObject *meta = object_member (object_member (ack, "params"), "_meta");

    g_assert_cmpint (json_object_get_int_member (meta, "io.modelcontextprotocol/subscriptionId"), ==, 7000);
    stw_test_assert_json_equal (json_object_get_member (object_member (ack, "params"), "notifications"), "{}");
  }
  /* The id of an open listen is in use. */
  expect_call_error (client, "tools/list", NULL, -32600);
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":7000,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}");
  {
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, "7000");

    stw_test_assert_error (response, "7000", -32600);
  }

  /* The tool list changes: the first listen hears it, once, and that the
   * profile manifest changed with it; the second hears nothing, and the
   * client, never initialized, gets nothing unsolicited. */
  add_echo_tool (client, "extra_listen");
  add_echo_tool (client, "extra_listen_two");
  {
    g_autoptr(JsonObject) changed = stw_test_client_wait_notification (client, "notifications/tools/list_changed");
    g_autoptr(JsonObject) updated = stw_test_client_wait_notification (client, "notifications/resources/updated");

    assert_subscription_id (changed, "tools");
    assert_subscription_id (updated, "tools");
    g_assert_cmpstr (string_member (object_member (updated, "params"), "uri"), ==, "stagewright://manifest/profile");
    assert_no_more_notifications (client);
  }

  /* Cancelled: no answer, nothing more, and its id is free again. */
  g_assert_cmpuint (_stw_mcp_server_get_n_listens (stw_test_client_get_server (client)), ==, 2);
  stw_test_client_send_line (client,
                             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"tools\"}}");
  stw_test_client_flush (client);
  g_assert_cmpuint (_stw_mcp_server_get_n_listens (stw_test_client_get_server (client)), ==, 1);
  g_assert_true (stw_dispatcher_remove_tool (stw_test_client_get_dispatcher (client), "extra_listen"));
  {
    assert_no_more_notifications (client);
    g_assert_false (stw_test_client_has_response (client, "\"tools\""));
  }
  stw_test_client_send_line (client, "{\"jsonrpc\":\"2.0\",\"id\":\"tools\",\"method\":\"tools/list\",\"params\":{" MODERN_META "}}");
  {
    g_autoptr(JsonObject) response = stw_test_client_wait_response (client, "\"tools\"");

    stw_test_assert_result (response, "\"tools\"");
  }

  /* Hostile filters. */
  {
    static const char * const filters[] = {
      "null", "[]", "\"tools\"", "{\"toolsListChanged\":1}", "{\"toolsListChanged\":\"true\"}",
      "{\"resourceSubscriptions\":\"stagewright://manifest/profile\"}", "{\"resourceSubscriptions\":[1]}",
      "{\"resourceSubscriptions\":[null]}", "{\"promptsListChanged\":{}}",
    };

    for (guint i = 0; i < G_N_ELEMENTS (filters); i++)
      {
        g_autofree char *params = g_strdup_printf ("{\"notifications\":%s," MODERN_META "}", filters[i]);

        expect_call_error (client, "subscriptions/listen", params, -32602);
      }
    expect_call_error (client, "subscriptions/listen", "{" MODERN_META "}", -32602);
  }
  {
    GString *many = g_string_new ("{\"notifications\":{\"resourceSubscriptions\":[");
    g_autofree char *params = NULL;

    for (guint i = 0; i < 65; i++)
      g_string_append_printf (many, "%s\"stagewright://docs/quickstart\"", i ? "," : "");
    g_string_append (many, "]}," MODERN_META "}");
    params = g_string_free (many, FALSE);
    expect_call_error (client, "subscriptions/listen", params, -32602);
  }

  /* Bounded: the 33rd open listen is refused. */
  for (guint i = 1; i < 32; i++)
    {
      g_autoptr(JsonObject) ack = NULL;

      stw_test_client_send_printf (client,
                                   "{\"jsonrpc\":\"2.0\",\"id\":\"many-%u\",\"method\":\"subscriptions/listen\","
                                   "\"params\":{\"notifications\":{}," MODERN_META "}}", i);
      ack = stw_test_client_wait_notification (client, "notifications/subscriptions/acknowledged");
    }
  expect_call_error (client, "subscriptions/listen", "{\"notifications\":{}," MODERN_META "}", -32603);

  /* The input ends: open listens do not hold the server for a drain. */
  stw_test_client_close (client);
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (stw_test_client_wait_finished (client, stw_test_timeout_ms (DRAIN_GRACE_MS / 2), &error));
    g_assert_no_error (error);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_log_set_writer_func (test_log_writer, NULL, NULL);
  stw_test_init (&argc, &argv);

  g_test_add_func ("/mcp-server/lifecycle/initialize-versions", test_initialize_versions);
  g_test_add_func ("/mcp-server/lifecycle/initialize-twice", test_initialize_twice);
  g_test_add_func ("/mcp-server/lifecycle/initialize-required", test_initialize_required);
  g_test_add_func ("/mcp-server/lifecycle/ping", test_ping);
  g_test_add_func ("/mcp-server/jsonrpc/ids", test_ids);
  g_test_add_func ("/mcp-server/jsonrpc/parse-error", test_parse_error);
  g_test_add_func ("/mcp-server/jsonrpc/batch", test_batch);
  g_test_add_func ("/mcp-server/jsonrpc/not-an-object", test_not_an_object);
  g_test_add_func ("/mcp-server/jsonrpc/invalid-ids", test_invalid_ids);
  g_test_add_func ("/mcp-server/jsonrpc/invalid-jsonrpc", test_invalid_jsonrpc);
  g_test_add_func ("/mcp-server/jsonrpc/invalid-method", test_invalid_method);
  g_test_add_func ("/mcp-server/jsonrpc/invalid-params", test_invalid_params);
  g_test_add_func ("/mcp-server/jsonrpc/notifications", test_notifications);
  g_test_add_func ("/mcp-server/framing/crlf", test_framing_crlf);
  g_test_add_func ("/mcp-server/framing/coalesced", test_framing_coalesced);
  g_test_add_func ("/mcp-server/framing/split", test_framing_split);
  g_test_add_func ("/mcp-server/framing/eof-without-newline", test_framing_eof_without_newline);
  g_test_add_func ("/mcp-server/framing/output-one-line", test_output_one_line);
  g_test_add_func ("/mcp-server/framing/too-large", test_framing_too_large);
  g_test_add_func ("/mcp-server/tools/list", test_tools_list);
  g_test_add_func ("/mcp-server/tools/pagination", test_tools_pagination);
  g_test_add_func ("/mcp-server/tools/call/success", test_call_success);
  g_test_add_func ("/mcp-server/tools/call/tool-error", test_call_tool_error);
  g_test_add_func ("/mcp-server/tools/call/unknown-tool", test_call_unknown_tool);
  g_test_add_func ("/mcp-server/tools/call/bad-params", test_call_bad_params);
  g_test_add_func ("/mcp-server/tools/call/schema", test_call_schema);
  g_test_add_func ("/mcp-server/tools/call/concurrent", test_call_concurrent);
  g_test_add_func ("/mcp-server/tools/call/too-many-in-flight", test_too_many_in_flight);
  g_test_add_func ("/mcp-server/tools/call/duplicate-id", test_duplicate_id);
  g_test_add_func ("/mcp-server/tools/list-changed", test_list_changed);
  g_test_add_func ("/mcp-server/modern/stdio", test_stdio_modern);
  g_test_add_func ("/mcp-server/modern/stdio-off", test_stdio_modern_off);
  g_test_add_func ("/mcp-server/modern/listen", test_stdio_listen);
  g_test_add_func ("/mcp-server/cancel", test_cancel);
  g_test_add_func ("/mcp-server/progress/string-token", test_progress_string_token);
  g_test_add_func ("/mcp-server/progress/integer-token", test_progress_integer_token);
  g_test_add_func ("/mcp-server/progress/no-token", test_progress_no_token);
  g_test_add_func ("/mcp-server/progress/bad-token", test_progress_bad_token);
  g_test_add_func ("/mcp-server/logging", test_logging);
  g_test_add_func ("/mcp-server/resources", test_resources);
  g_test_add_func ("/mcp-server/eof/drain", test_eof_drain);
  g_test_add_func ("/mcp-server/eof/abandon", test_eof_abandon);
  g_test_add_func ("/mcp-server/eof/output-closed", test_output_closed);
  g_test_add_func ("/mcp-server/cancel-run", test_cancel_run);
  g_test_add_func ("/mcp-server/jsonrpc/strict-json", test_strict_json);
  g_test_add_func ("/mcp-server/jsonrpc/too-many-values", test_too_many_values);
  g_test_add_func ("/mcp-server/framing/unread-output", test_unread_output);
  g_test_add_func ("/mcp-server/framing/big-answer", test_big_answer_reading_client);
  g_test_add_func ("/mcp-server/program/plugin-refused", test_program_plugin_refused);
  g_test_add_func ("/mcp-server/program/screenshot-dir-confined", test_program_screenshot_dir_confined);
  g_test_add_func ("/mcp-server/program/stdin-closed", test_program_stdin_closed);
  g_test_add_func ("/mcp-server/program/stdout-unread", test_program_stdout_unread);

  return g_test_run ();
}
