/* test-mcp-http.c: MCP Streamable HTTP, in process
 *
 * A StwMcpServer (the test client's, so its stdio connection runs beside)
 * served over HTTP on 127.0.0.1 with a port the kernel picks; SoupSession
 * is the client for well-formed HTTP, a raw socket for what SoupSession
 * will not send (a foreign Host, a body that never comes, a slow client).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

/* These tests call libsoup themselves, linked (see stw-soup-private.h). */
#define STW_SOUP_LINKED

#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>

#include "stagewright.h"
#include "stw-json-private.h"
#include "stw-mcp-http-private.h"
#include "stw-mcp-server-private.h"
#include "stw-test-utils.h"

/* The _meta of a 2026-07-28 request. */
#define MODERN_META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"test\",\"version\":\"1\"}," \
                    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

typedef struct
{
  StwTestClient *client;
  StwMcpHttp    *http;
  SoupSession   *session;
  char          *url;
  guint          port;
  char          *session_id;
} Fixture;

typedef struct
{
  gboolean      done;
  guint         status;
  GBytes       *body;
  SoupMessage  *msg;
} Reply;

static void
reply_free (Reply *reply)
{
  g_clear_pointer (&reply->body, g_bytes_unref);
  g_clear_object (&reply->msg);
  g_free (reply);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the client's context (the server's) until *@flag or @ms pass. */
static gboolean
wait_for (Fixture        *f,
          const gboolean *flag,
          guint           ms)
{
  GMainContext *context = stw_test_client_get_context (f->client);
  gboolean expired = FALSE;
  GSource *source = g_timeout_source_new (stw_test_timeout_ms (ms));

  g_source_set_callback (source, set_flag, &expired, NULL);
  g_source_attach (source, context);
  while (!*flag && !expired)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (source);
  g_source_unref (source);
  return *flag;
}

static void
iterate_for (Fixture *f,
             guint    ms)
{
  gboolean never = FALSE;
  GMainContext *context = stw_test_client_get_context (f->client);
  GSource *source = g_timeout_source_new (ms);
  gboolean expired = FALSE;

  g_source_set_callback (source, set_flag, &expired, NULL);
  g_source_attach (source, context);
  while (!never && !expired)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (source);
  g_source_unref (source);
}

/* Until @tool has been called @n times (bounded). */
static void
wait_calls (Fixture *f,
            StwTool *tool,
            guint    n)
{
  for (guint i = 0; i < 500 && stw_test_tool_get_n_calls (tool) < n; i++)
    iterate_for (f, 10);
  g_assert_cmpuint (stw_test_tool_get_n_calls (tool), ==, n);
}

static void
fixture_listen (Fixture    *f,
                const char *address)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) uri = NULL;

  g_assert_true (_stw_mcp_http_listen (f->http, address, &error));
  g_assert_no_error (error);
  f->url = _stw_mcp_http_get_url (f->http);
  uri = g_uri_parse (f->url, G_URI_FLAGS_NONE, NULL);
  f->port = (guint) g_uri_get_port (uri);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->client = stw_test_client_new ();
  stw_test_client_initialize (f->client);
  f->http = _stw_mcp_http_new (stw_test_client_get_server (f->client), NULL);
  g_assert_nonnull (f->http);
  {
    /* Loopback only: no proxy from the environment. */
    g_autoptr(GProxyResolver) direct = g_simple_proxy_resolver_new (NULL, NULL);
    f->session = soup_session_new_with_options ("proxy-resolver", direct, NULL);
  }
  /* Most tests listen at once; those that configure first pass "later". */
  if (g_strcmp0 (data, "later") != 0)
    fixture_listen (f, "127.0.0.1:0");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  _stw_mcp_http_shutdown (f->http);
  g_clear_object (&f->session);
  g_clear_object (&f->http);
  iterate_for (f, 10);
  stw_test_client_free (f->client);
  g_free (f->url);
  g_free (f->session_id);
}

static void
on_sent (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Reply *reply = user_data;
  g_autoptr(GError) error = NULL;

  reply->body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  reply->status = soup_message_get_status (reply->msg);
  reply->done = TRUE;
}

/* One HTTP request; @headers are "Name", "value" pairs, NULL-ended. */
static Reply *
request_full (Fixture      *f,
              const char   *method,
              const char   *session_id,
              const char   *content_type,
              const char   *body,
              gsize         length,
              GCancellable *cancellable,
              const char   *first_header,
              ...)
{
  Reply *reply = g_new0 (Reply, 1);
  SoupMessageHeaders *headers;
  va_list args;

  reply->msg = soup_message_new (method, f->url);
  headers = soup_message_get_request_headers (reply->msg);
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  if (session_id != NULL)
    soup_message_headers_replace (headers, "MCP-Session-Id", session_id);
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, length);
      soup_message_set_request_body_from_bytes (reply->msg, content_type, bytes);
    }
  va_start (args, first_header);
  for (const char *name = first_header; name != NULL; name = va_arg (args, const char *))
    {
      const char *value = va_arg (args, const char *);

      if (value == NULL)
        soup_message_headers_remove (headers, name);
      else
        soup_message_headers_replace (headers, name, value);
    }
  va_end (args);

  soup_session_send_and_read_async (f->session, reply->msg, G_PRIORITY_DEFAULT, cancellable,
                                    on_sent, reply);
  if (cancellable == NULL)
    g_assert_true (wait_for (f, &reply->done, STW_TEST_TIMEOUT_MS));
  return reply;
}

static Reply *
post (Fixture    *f,
      const char *session_id,
      const char *body)
{
  return request_full (f, "POST", session_id, "application/json", body, strlen (body), NULL, NULL);
}

static const char *
reply_text (Reply *reply)
{
  gsize length = 0;
  const char *data = reply->body ? g_bytes_get_data (reply->body, &length) : NULL;

  /* Bodies here are JSON or SSE: text, and GBytes data is NUL-ended
   * past its length only by luck; copy. */
  g_object_set_data_full (G_OBJECT (reply->msg), "text", g_strndup (data ? data : "", length), g_free);
  return g_object_get_data (G_OBJECT (reply->msg), "text");
}

static const char *
reply_header (Reply      *reply,
              const char *name)
{
  return soup_message_headers_get_one (soup_message_get_response_headers (reply->msg), name);
}

static JsonObject *
reply_json (Reply *reply)
{
  const char *type = reply_header (reply, "Content-Type");

  g_assert_nonnull (type);
  g_assert_true (g_str_has_prefix (type, "application/json"));
  return stw_test_json_object_from (reply_text (reply));
}

/* An HTTP-level refusal: @status and a JSON-RPC error without an id. */
static void
assert_refused (Reply *reply,
                guint  status,
                gint64 code)
{
  g_autoptr(JsonObject) body = NULL;

  g_assert_cmpuint (reply->status, ==, status);
  body = reply_json (reply);
  stw_test_assert_error (body, "null", code);
}

static char *
initialize (Fixture *f)
{
  g_autoptr(Reply) reply = post (f, NULL,
                                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                 "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                                 "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}");
  g_autoptr(JsonObject) body = NULL;
  g_autoptr(Reply) initialized = NULL;
  const char *notification = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
  const char *id;

  g_assert_cmpuint (reply->status, ==, 200);
  body = reply_json (reply);
  stw_test_assert_result (body, "1");
  id = reply_header (reply, "MCP-Session-Id");
  g_assert_nonnull (id);
  /* 128 random bits as hex: visible ASCII. */
  g_assert_cmpuint (strlen (id), ==, 32);
  for (const char *p = id; *p; p++)
    g_assert_true (g_ascii_isxdigit (*p));

  initialized = request_full (f, "POST", id, "application/json", notification,
                              strlen (notification), NULL, "MCP-Protocol-Version", "2025-11-25", NULL);
  g_assert_cmpuint (initialized->status, ==, 202);
  g_assert_cmpuint (g_bytes_get_size (initialized->body), ==, 0);
  return g_strdup (id);
}

static JsonObject *
call (Fixture    *f,
      const char *session_id,
      const char *body)
{
  g_autoptr(Reply) reply = request_full (f, "POST", session_id, "application/json", body, strlen (body),
                                         NULL, "MCP-Protocol-Version", "2025-11-25", NULL);

  g_assert_cmpuint (reply->status, ==, 200);
  return reply_json (reply);
}

/* A new client is served from start to answer: a session, then a ping. */
static void
assert_serves_a_new_client (Fixture *f)
{
  g_autofree char *id = initialize (f);
  g_autoptr(JsonObject) ping = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");

  stw_test_assert_result (ping, "1");
}

/* Raw HTTP {{{1 */

typedef struct
{
  GSocketConnection *connection;
  GString           *received;
  gboolean           closed;
  GError            *error;       /* how the read ended, if not by end of stream */
  guint8             buffer[4096];
} Raw;

static void
raw_free (Raw *raw)
{
  g_clear_object (&raw->connection);
  g_string_free (raw->received, TRUE);
  g_clear_error (&raw->error);
  g_free (raw);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Raw, raw_free)

static void raw_read_next (Raw *raw);

static void
on_raw_read (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Raw *raw = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &raw->error);

  if (n <= 0)
    {
      raw->closed = TRUE;
      return;
    }
  g_string_append_len (raw->received, (const char *) raw->buffer, n);
  raw_read_next (raw);
}

static void
raw_read_next (Raw *raw)
{
  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM (raw->connection)),
                             raw->buffer, sizeof raw->buffer, G_PRIORITY_DEFAULT, NULL,
                             on_raw_read, raw);
}

/* A connection that reads nothing until raw_read_next(). */
static Raw *
raw_connect_quiet (Fixture *f)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  Raw *raw = g_new0 (Raw, 1);

  raw->received = g_string_new (NULL);
  raw->connection = g_socket_client_connect_to_host (client, "127.0.0.1", f->port, NULL, &error);
  g_assert_no_error (error);
  return raw;
}

static Raw *
raw_connect (Fixture *f)
{
  Raw *raw = raw_connect_quiet (f);

  raw_read_next (raw);
  return raw;
}

static void
raw_write (Raw        *raw,
           const char *data,
           gsize       length)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (raw->connection)),
                             data, length, NULL, NULL, &error);
  g_assert_no_error (error);
}

/* Sends @request and returns the status of the answer. */
static guint
raw_status (Fixture    *f,
            Raw        *raw,
            const char *request)
{
  guint status = 0;

  raw_write (raw, request, strlen (request));
  wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS);
  g_assert_true (raw->closed);
  g_assert_true (g_str_has_prefix (raw->received->str, "HTTP/1.1 "));
  status = (guint) g_ascii_strtoull (raw->received->str + 9, NULL, 10);
  return status;
}


/* SSE {{{1 */

typedef struct
{
  char *id;
  char *data;
} SseEvent;

static void
sse_event_free (SseEvent *event)
{
  g_free (event->id);
  g_free (event->data);
  g_free (event);
}

/* The complete events of @text, each checked: an id, one data line. */
static GPtrArray *
sse_parse (const char *text)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) sse_event_free);
  const char *end;

  while ((end = strstr (text, "\n\n")) != NULL)
    {
      g_autofree char *block = g_strndup (text, end - text);
      g_auto(GStrv) lines = g_strsplit (block, "\n", -1);
      SseEvent *event = g_new0 (SseEvent, 1);

      for (guint i = 0; lines[i] != NULL; i++)
        {
          if (g_str_has_prefix (lines[i], "id: "))
            event->id = g_strdup (lines[i] + 4);
          else if (g_str_has_prefix (lines[i], "data: "))
            {
              g_assert_null (event->data);
              event->data = g_strdup (lines[i] + 6);
            }
          else
            g_assert_cmpstr (lines[i], ==, "event: message");
        }
      g_assert_nonnull (event->id);
      g_assert_nonnull (event->data);
      g_ptr_array_add (events, event);
      text = end + 2;
    }
  return events;
}

static guint64
sse_seq (SseEvent   *event,
         const char *stream)
{
  const char *colon = strrchr (event->id, ':');

  g_assert_nonnull (colon);
  g_assert_cmpuint (colon - event->id, ==, strlen (stream));
  g_assert_true (strncmp (event->id, stream, strlen (stream)) == 0);
  return g_ascii_strtoull (colon + 1, NULL, 10);
}

/* A response read as it comes. */
typedef struct
{
  SoupMessage  *msg;
  GInputStream *stream;
  GCancellable *cancellable;
  GString      *received;
  gboolean      sent;
  gboolean      closed;
  gboolean      reading;      /* a read is pending */
  gboolean      orphaned;     /* freed while reading: the read frees it */
  guint8        buffer[4096];
} Reader;

static void
reader_free (Reader *reader)
{
  g_cancellable_cancel (reader->cancellable);
  if (reader->reading)
    {
      reader->orphaned = TRUE;
      return;
    }
  g_clear_object (&reader->stream);
  g_clear_object (&reader->msg);
  g_clear_object (&reader->cancellable);
  g_string_free (reader->received, TRUE);
  g_free (reader);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reader, reader_free)

static void reader_read_next (Reader *reader);

static void
on_reader_read (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Reader *reader = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);

  reader->reading = FALSE;
  if (reader->orphaned)
    {
      reader_free (reader);
      return;
    }
  if (n <= 0)
    {
      reader->closed = TRUE;
      return;
    }
  g_string_append_len (reader->received, (const char *) reader->buffer, n);
  reader_read_next (reader);
}

static void
reader_read_next (Reader *reader)
{
  reader->reading = TRUE;
  g_input_stream_read_async (reader->stream, reader->buffer, sizeof reader->buffer, G_PRIORITY_DEFAULT,
                             reader->cancellable, on_reader_read, reader);
}

static void
on_reader_sent (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Reader *reader = user_data;

  reader->stream = soup_session_send_finish (SOUP_SESSION (object), result, NULL);
  reader->sent = TRUE;
  if (reader->stream == NULL)
    reader->closed = TRUE;
  else
    reader_read_next (reader);
}

/* GET (@body NULL) or POST, with @last_event_id if not NULL. */
static Reader *
reader_open (Fixture    *f,
             const char *session_id,
             const char *body,
             const char *last_event_id)
{
  Reader *reader = g_new0 (Reader, 1);
  SoupMessageHeaders *headers;

  reader->received = g_string_new (NULL);
  reader->cancellable = g_cancellable_new ();
  reader->msg = soup_message_new (body != NULL ? "POST" : "GET", f->url);
  headers = soup_message_get_request_headers (reader->msg);
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Session-Id", session_id);
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2025-11-25");
  if (last_event_id != NULL)
    soup_message_headers_replace (headers, "Last-Event-ID", last_event_id);
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));
      soup_message_set_request_body_from_bytes (reader->msg, "application/json", bytes);
    }
  soup_session_send_async (f->session, reader->msg, G_PRIORITY_DEFAULT, reader->cancellable,
                           on_reader_sent, reader);
  g_assert_true (wait_for (f, &reader->sent, STW_TEST_TIMEOUT_MS));
  return reader;
}

static gboolean
reader_has (Reader     *reader,
            const char *text)
{
  return strstr (reader->received->str, text) != NULL;
}

/* Until @text has come (bounded); FALSE if the stream ended first. */
static gboolean
reader_wait (Fixture    *f,
             Reader     *reader,
             const char *text)
{
  for (guint i = 0; i < 1000 && !reader_has (reader, text) && !reader->closed; i++)
    iterate_for (f, 10);
  return reader_has (reader, text);
}

/* The client goes away: the connection closes. */
static void
reader_cut (Fixture *f,
            Reader  *reader)
{
  g_cancellable_cancel (reader->cancellable);
  /* The pending read ends first: a stream with one cannot close. */
  for (guint i = 0; i < 500 && reader->reading; i++)
    iterate_for (f, 10);
  g_assert_false (reader->reading);
  if (reader->stream != NULL)
    g_input_stream_close (reader->stream, NULL, NULL);
  iterate_for (f, 20);
}

/* The flow {{{1 */

static void
test_flow (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  g_autoptr(JsonObject) list = NULL;
  g_autoptr(JsonObject) status = NULL;
  g_autoptr(JsonObject) stdio_ping = NULL;
  g_autoptr(Reply) deleted = NULL;
  g_autoptr(Reply) after = NULL;
  JsonObject *result;
  JsonArray *tools;
  gboolean found = FALSE;

  g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 1);

  list = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
  result = stw_test_assert_result (list, "2");
  tools = json_object_get_array_member (result, "tools");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (tools, i), "name"),
                     "electron_status"))
      found = TRUE;
  g_assert_true (found);

  status = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\","
                        "\"params\":{\"name\":\"electron_status\",\"arguments\":{}}}");
  result = stw_test_assert_result (status, "\"s\"");
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (result, "structuredContent"),
                                                 "ok"));

  /* The stdio client of the same server is served meanwhile. */
  stdio_ping = stw_test_client_call_result (f->client, "ping", NULL);
  g_assert_nonnull (stdio_ping);

  deleted = request_full (f, "DELETE", id, NULL, NULL, 0, NULL, NULL);
  g_assert_cmpuint (deleted->status, ==, 200);
  g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 0);

  after = post (f, id, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
  assert_refused (after, 404, -32001);
}

static void
test_accepted (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  const char * const accepted[] = {
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"error\":{\"code\":-1,\"message\":\"no\"}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (accepted); i++)
    {
      g_autoptr(Reply) reply = post (f, id, accepted[i]);

      g_assert_cmpuint (reply->status, ==, 202);
      g_assert_cmpuint (g_bytes_get_size (reply->body), ==, 0);
    }
}

/* Progress, then the result, on one SSE stream. */
static void
test_sse_progress (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"test_progress\","
                     "\"arguments\":{\"steps\":20,\"interval_ms\":30},\"_meta\":{\"progressToken\":\"p\"}}}";
  g_autoptr(Reply) reply = request_full (f, "POST", id, "application/json", body, strlen (body), NULL,
                                         "MCP-Protocol-Version", "2025-11-25", NULL);
  g_autoptr(Reply) json_only = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *stream_id = NULL;
  guint n_progress = 0;
  gboolean result_last = FALSE;

  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_true (g_str_has_prefix (reply_header (reply, "Content-Type"), "text/event-stream"));

  events = sse_parse (reply_text (reply));
  g_assert_cmpuint (events->len, >=, 2);
  /* The priming event: an id, no data. */
  stream_id = g_strndup (((SseEvent *) events->pdata[0])->id,
                         strrchr (((SseEvent *) events->pdata[0])->id, ':') - ((SseEvent *) events->pdata[0])->id);
  g_assert_cmpstr (stream_id, !=, "0");
  g_assert_cmpuint (sse_seq (events->pdata[0], stream_id), ==, 0);
  g_assert_cmpstr (((SseEvent *) events->pdata[0])->data, ==, "");
  for (guint i = 1; i < events->len; i++)
    {
      SseEvent *event = events->pdata[i];
      g_autoptr(JsonObject) message = NULL;

      g_assert_cmpuint (sse_seq (event, stream_id), ==, i);
      message = stw_test_json_object_from (event->data);
      stw_test_check_frame (message);
      g_assert_false (result_last);
      if (json_object_has_member (message, "method"))
        {
          g_assert_cmpstr (json_object_get_string_member (message, "method"), ==, "notifications/progress");
          g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (message, "params"),
                                                          "progressToken"), ==, "p");
          n_progress++;
        }
      else
        {
          stw_test_assert_result (message, "5");
          result_last = TRUE;
        }
    }
  g_test_message ("%u progress events before the result", n_progress);
  g_assert_cmpuint (n_progress, >=, 1);
  g_assert_true (result_last);

  /* A client that takes JSON only gets the result alone. */
  json_only = request_full (f, "POST", id, "application/json", body, strlen (body), NULL,
                            "Accept", "application/json", NULL);
  g_assert_cmpuint (json_only->status, ==, 200);
  {
    g_autoptr(JsonObject) message = reply_json (json_only);
    stw_test_assert_result (message, "5");
  }
}

/* A log belongs to no request: it goes on the GET stream, not on the
 * stream of a call that runs meanwhile. */
static void
test_sse_log (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  StwMcpServer *server = stw_test_client_get_server (f->client);
  g_autoptr(JsonObject) level = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\","
                                             "\"params\":{\"level\":\"info\"}}");
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":1000}}}";
  g_autoptr(Reply) reply = NULL;
  g_autoptr(Reader) get = NULL;
  g_autoptr(GCancellable) no_wait = g_cancellable_new ();
  g_autoptr(GPtrArray) events = NULL;

  stw_test_assert_result (level, "1");
  /* No GET stream yet: kept for a resumption, not sent to a fresh GET. */
  stw_mcp_server_send_log (server, "warning", "test", "nobody listens");

  get = reader_open (f, id, NULL, NULL);
  g_assert_cmpuint (soup_message_get_status (get->msg), ==, 200);
  g_assert_true (reader_wait (f, get, "\n\n"));

  reply = request_full (f, "POST", id, "application/json", body, strlen (body), no_wait, NULL);
  wait_calls (f, stw_test_client_get_tool (f->client, "test_slow"), 1);
  g_assert_false (reply->done);
  stw_mcp_server_send_log (server, "warning", "test", "while the call runs");
  stw_mcp_server_send_log (server, "debug", "test", "below the level");
  g_assert_true (wait_for (f, &reply->done, STW_TEST_TIMEOUT_MS));
  g_assert_true (reader_wait (f, get, "while the call runs"));

  /* The call's answer is its result alone. */
  g_assert_cmpuint (reply->status, ==, 200);
  {
    g_autoptr(JsonObject) message = reply_json (reply);
    stw_test_assert_result (message, "2");
  }
  g_assert_null (strstr (reply_text (reply), "while the call runs"));
  g_assert_false (reader_has (get, "nobody listens"));
  g_assert_false (reader_has (get, "below the level"));

  events = sse_parse (get->received->str);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpstr (((SseEvent *) events->pdata[0])->data, ==, "");
  /* The priming event names the last event sent: "nobody listens". */
  g_assert_cmpuint (sse_seq (events->pdata[0], "0"), ==, 1);
  g_assert_cmpuint (sse_seq (events->pdata[1], "0"), ==, 2);
}

/* The GET stream {{{1 */

static void
test_get_stream (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  g_autoptr(Reader) get = reader_open (f, id, NULL, NULL);
  g_autoptr(Reply) second = NULL;
  g_autoptr(Reply) json_only = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(StwTool) tool = stw_test_tool_new_echo ("extra_http");
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (soup_message_get_status (get->msg), ==, 200);
  g_assert_true (g_str_has_prefix (soup_message_headers_get_one (soup_message_get_response_headers (get->msg),
                                                                 "Content-Type"), "text/event-stream"));
  /* The priming event comes first, alone. */
  g_assert_true (reader_wait (f, get, "\n\n"));
  g_assert_cmpstr (get->received->str, ==, "id: 0:0\ndata: \n\n");

  /* One reader at a time. */
  second = request_full (f, "GET", id, NULL, NULL, 0, NULL, "Accept", "text/event-stream", NULL);
  assert_refused (second, 409, -32000);
  json_only = request_full (f, "GET", id, NULL, NULL, 0, NULL, "Accept", "application/json", NULL);
  assert_refused (json_only, 406, -32600);

  /* A notification of no request comes on it. */
  stw_dispatcher_add_tool (stw_test_client_get_dispatcher (f->client), tool, &error);
  g_assert_no_error (error);
  g_assert_true (reader_wait (f, get, "notifications/tools/list_changed"));
  g_assert_true (reader_wait (f, get, "}\n\n"));
  events = sse_parse (get->received->str);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpuint (sse_seq (events->pdata[1], "0"), ==, 1);
  {
    g_autoptr(JsonObject) message = stw_test_json_object_from (((SseEvent *) events->pdata[1])->data);
    g_assert_cmpstr (json_object_get_string_member (message, "method"), ==, "notifications/tools/list_changed");
  }

  /* Ending the session ends the stream. */
  {
    g_autoptr(Reply) deleted = request_full (f, "DELETE", id, NULL, NULL, 0, NULL, NULL);
    g_assert_cmpuint (deleted->status, ==, 200);
  }
  for (guint i = 0; i < 500 && !get->closed; i++)
    iterate_for (f, 10);
  g_assert_true (get->closed);
}

/* A POST's stream cut after its first progress event, resumed by a GET
 * with Last-Event-ID: the rest, and the result exactly once. */
static void
test_resume_request (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"test_progress\","
                     "\"arguments\":{\"steps\":10,\"interval_ms\":100},\"_meta\":{\"progressToken\":\"p\"}}}";
  StwTool *progress = stw_test_client_get_tool (f->client, "test_progress");
  g_autoptr(Reader) post_reader = reader_open (f, id, body, NULL);
  g_autoptr(Reader) resumed = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;
  g_autofree char *stream_id = NULL;
  g_autofree char *last = NULL;
  guint64 last_seq;
  guint n_results = 0;

  g_assert_cmpuint (soup_message_get_status (post_reader->msg), ==, 200);
  g_assert_true (reader_wait (f, post_reader, "notifications/progress"));
  g_assert_true (reader_wait (f, post_reader, "}\n\n"));
  before = sse_parse (post_reader->received->str);
  g_assert_cmpuint (before->len, >=, 2);
  last = g_strdup (((SseEvent *) before->pdata[before->len - 1])->id);
  stream_id = g_strndup (last, strrchr (last, ':') - last);
  last_seq = sse_seq (before->pdata[before->len - 1], stream_id);
  g_assert_cmpuint (last_seq, ==, before->len - 1);
  reader_cut (f, post_reader);
  g_assert_cmpuint (stw_test_tool_get_n_completed (progress), ==, 0);

  resumed = reader_open (f, id, NULL, last);
  g_assert_cmpuint (soup_message_get_status (resumed->msg), ==, 200);
  /* The stream ends after the result. */
  for (guint i = 0; i < 1000 && !resumed->closed; i++)
    iterate_for (f, 10);
  g_assert_true (resumed->closed);
  g_assert_cmpuint (stw_test_tool_get_n_cancelled (progress), ==, 0);

  after = sse_parse (resumed->received->str);
  g_assert_cmpuint (after->len, >=, 1);
  for (guint i = 0; i < after->len; i++)
    {
      SseEvent *event = after->pdata[i];
      g_autoptr(JsonObject) message = NULL;

      /* Every event after the last one seen, in order, none twice. */
      g_assert_cmpuint (sse_seq (event, stream_id), ==, last_seq + 1 + i);
      message = stw_test_json_object_from (event->data);
      if (!json_object_has_member (message, "method"))
        {
          stw_test_assert_result (message, "7");
          g_assert_cmpuint (i, ==, after->len - 1);
          n_results++;
        }
    }
  g_assert_cmpuint (n_results, ==, 1);
  g_test_message ("%u events before the cut, %u after", before->len - 1, after->len);
  /* Its connection back to the pool. */
  reader_cut (f, resumed);

  /* Resumed again from the start of the stream, it replays everything. */
  {
    g_autofree char *from_start = g_strdup_printf ("%s:0", stream_id);
    g_autoptr(Reader) again = reader_open (f, id, NULL, from_start);
    g_autoptr(GPtrArray) all = NULL;

    for (guint i = 0; i < 1000 && !again->closed; i++)
      iterate_for (f, 10);
    all = sse_parse (again->received->str);
    g_assert_cmpuint (all->len, ==, last_seq + after->len);
  }
}

/* Past the buffer, an id has expired: a fresh stream, nothing replayed. */
static void
test_resume_expired (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  StwMcpServer *server = stw_test_client_get_server (f->client);
  g_autoptr(JsonObject) level = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\","
                                             "\"params\":{\"level\":\"info\"}}");
  g_autoptr(Reader) get = reader_open (f, id, NULL, NULL);

  stw_test_assert_result (level, "1");
  g_assert_true (reader_wait (f, get, "\n\n"));
  for (guint i = 1; i <= 300; i++)
    {
      g_autofree char *text = g_strdup_printf ("log number %u.", i);
      stw_mcp_server_send_log (server, "warning", "test", text);
    }
  g_assert_true (reader_wait (f, get, "log number 300."));
  reader_cut (f, get);

  /* 300 events, the last 256 kept: 0:44 follows none that is gone. */
  {
    g_autoptr(Reader) resumed = reader_open (f, id, NULL, "0:44");
    g_autoptr(GPtrArray) events = NULL;

    g_assert_true (reader_wait (f, resumed, "log number 300."));
    events = sse_parse (resumed->received->str);
    g_assert_cmpuint (events->len, ==, 256);
    g_assert_cmpuint (sse_seq (events->pdata[0], "0"), ==, 45);
    g_assert_true (strstr (((SseEvent *) events->pdata[0])->data, "log number 45.") != NULL);
    reader_cut (f, resumed);
  }
  /* 0:43 needs 44, which is gone. */
  {
    g_autoptr(Reader) expired = reader_open (f, id, NULL, "0:43");

    g_assert_cmpuint (soup_message_get_status (expired->msg), ==, 200);
    g_assert_true (reader_wait (f, expired, "\n\n"));
    iterate_for (f, 50);
    g_assert_cmpstr (expired->received->str, ==, "id: 0:300\ndata: \n\n");
    reader_cut (f, expired);
  }
  /* Unknown and malformed ids too (nothing reads the GET stream now). */
  for (guint i = 0; i < 3; i++)
    {
      const char *ids[] = { "99:1", "garbage", "0:99999" };
      g_autoptr(Reader) fresh = NULL;

      /* Let the server see the cut reader go. */
      iterate_for (f, 50);
      fresh = reader_open (f, id, NULL, ids[i]);
      g_assert_cmpuint (soup_message_get_status (fresh->msg), ==, 200);
      g_assert_true (reader_wait (f, fresh, "\n\n"));
      g_assert_cmpstr (fresh->received->str, ==, "id: 0:300\ndata: \n\n");
      reader_cut (f, fresh);
    }
}

/* Cancelling and disconnecting {{{1 */

static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  StwTool *never = stw_test_client_get_tool (f->client, "test_never");
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":\"n\",\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"test_never\",\"arguments\":{}}}";
  g_autoptr(GCancellable) no_wait = g_cancellable_new ();
  g_autoptr(Reply) pending = request_full (f, "POST", id, "application/json", body, strlen (body),
                                           no_wait, NULL);
  g_autoptr(Reply) cancel = NULL;

  wait_calls (f, never, 1);
  g_assert_false (pending->done);

  cancel = post (f, id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                        "\"params\":{\"requestId\":\"n\",\"reason\":\"test\"}}");
  g_assert_cmpuint (cancel->status, ==, 202);
  /* The stream of the cancelled request ends without an answer. */
  g_assert_true (wait_for (f, &pending->done, STW_TEST_TIMEOUT_MS));
  g_assert_cmpuint (pending->status, ==, 204);
  g_assert_cmpuint (stw_test_tool_get_n_cancelled (never), ==, 1);
}

static void
test_disconnect_does_not_cancel (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  StwTool *slow = stw_test_client_get_tool (f->client, "test_slow");
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":400}}}";
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(Reply) abandoned = request_full (f, "POST", id, "application/json", body, strlen (body),
                                             cancellable, NULL);
  g_autoptr(JsonObject) ping = NULL;
  gboolean completed = FALSE;

  wait_calls (f, slow, 1);
  /* The client goes away: MCP says that is not a cancellation. */
  g_cancellable_cancel (cancellable);
  g_assert_true (wait_for (f, &abandoned->done, STW_TEST_TIMEOUT_MS));

  for (guint i = 0; i < 100 && !completed; i++)
    {
      iterate_for (f, 20);
      completed = stw_test_tool_get_n_completed (slow) == 1;
    }
  g_assert_true (completed);
  g_assert_cmpuint (stw_test_tool_get_n_cancelled (slow), ==, 0);

  ping = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
  stw_test_assert_result (ping, "9");
}

/* Security {{{1 */

static void
test_origin (Fixture       *f,
             gconstpointer  data)
{
  const char *init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}";
  g_autofree char *own = g_strdup_printf ("http://localhost:%u", f->port);
  g_autofree char *own_ip = g_strdup_printf ("http://127.0.0.1:%u", f->port);
  g_autofree char *other_port = g_strdup_printf ("http://127.0.0.1:%u", f->port == 1 ? 2 : f->port - 1);
  const char *foreign[] = { "http://evil.example.com", "https://evil.example.com:443", "null",
                            "file://", "http://127.0.0.1.evil.example.com", other_port };

  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    {
      g_autoptr(Reply) reply = request_full (f, "POST", NULL, "application/json", init, strlen (init), NULL,
                                             "Origin", foreign[i], NULL);

      g_test_message ("Origin: %s", foreign[i]);
      assert_refused (reply, 403, -32000);
    }
  g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 0);

  {
    g_autoptr(Reply) a = request_full (f, "POST", NULL, "application/json", init, strlen (init), NULL,
                                       "Origin", own, NULL);
    g_autoptr(Reply) b = request_full (f, "POST", NULL, "application/json", init, strlen (init), NULL,
                                       "Origin", own_ip, NULL);
    g_assert_cmpuint (a->status, ==, 200);
    g_assert_cmpuint (b->status, ==, 200);
  }
}

static void
test_host (Fixture       *f,
           gconstpointer  data)
{
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}";
  const char *hosts[] = { "evil.example.com", "evil.example.com:PORT", "127.0.0.2:PORT", "localhost:1",
                          "", "localhost.evil.example.com:PORT" };
  const char *good[] = { "localhost:PORT", "127.0.0.1:PORT", "localhost", "LOCALHOST:PORT" };
  g_autofree char *port = g_strdup_printf ("%u", f->port);

  for (guint i = 0; i < G_N_ELEMENTS (hosts); i++)
    {
      g_autoptr(Raw) raw = raw_connect (f);
      g_autoptr(GString) host_string = g_string_new (hosts[i]);
      const char *host = (g_string_replace (host_string, "PORT", port, 0), host_string->str);
      g_autofree char *request =
        g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                         "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                         host, strlen (body), body);

      g_test_message ("Host: %s", host);
      g_assert_cmpuint (raw_status (f, raw, request), ==, 403);
    }
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(Raw) raw = raw_connect (f);
      g_autoptr(GString) host_string = g_string_new (good[i]);
      const char *host = (g_string_replace (host_string, "PORT", port, 0), host_string->str);
      g_autofree char *request =
        g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                         "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                         host, strlen (body), body);

      g_assert_cmpuint (raw_status (f, raw, request), ==, 200);
    }
}

/* Exactly one Host: a second (empty, or good after an empty one) is 400
 * whatever the method and path; an empty one alone is 403. */
static void
test_host_once (Fixture       *f,
                gconstpointer  data)
{
  const char *heads[] = {
    "POST /mcp HTTP/1.1\r\nHost: \r\nHost: 127.0.0.1:PORT\r\n",
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nHost: \r\n",
    "GET /mcp HTTP/1.1\r\nHost:\r\nHost: localhost:PORT\r\nAccept: text/event-stream\r\n",
    "DELETE /mcp HTTP/1.1\r\nHost:\r\nHost: localhost:PORT\r\n",
    "POST /other HTTP/1.1\r\nHost: \r\nHost: 127.0.0.1:PORT\r\n",
  };
  g_autofree char *port = g_strdup_printf ("%u", f->port);
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}";

  for (guint i = 0; i < G_N_ELEMENTS (heads); i++)
    {
      g_autoptr(Raw) raw = raw_connect (f);
      g_autoptr(GString) head_string = g_string_new (heads[i]);
      const char *head = (g_string_replace (head_string, "PORT", port, 0), head_string->str);
      g_autofree char *request =
        g_strdup_printf ("%sContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                         head, strlen (body), body);

      g_test_message ("%s", head);
      g_assert_cmpuint (raw_status (f, raw, request), ==, 400);
    }
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(Raw) raw = raw_connect (f);
      g_autofree char *request =
        g_strdup_printf ("%s /mcp HTTP/1.1\r\nHost:%s\r\nContent-Type: application/json\r\n"
                         "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                         i == 0 ? "POST" : "DELETE", i == 0 ? "" : " ", strlen (body), body);

      g_assert_cmpuint (raw_status (f, raw, request), ==, 403);
    }
}

/* Sessions are of the 2025 eras: a session's request that says
 * 2026-07-28 (header or _meta) is 400; its other versions are served. */
static void
test_era_mismatch (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  const char *modern_ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{" MODERN_META "}}";
  const char *methods[] = { "POST", "GET", "DELETE" };

  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      gboolean post = g_str_equal (methods[i], "POST");
      g_autoptr(Reply) reply = request_full (f, methods[i], id, post ? "application/json" : NULL,
                                             post ? ping : NULL, post ? strlen (ping) : 0, NULL,
                                             "MCP-Protocol-Version", "2026-07-28", NULL);

      g_test_message ("%s", methods[i]);
      assert_refused (reply, 400, -32600);
    }
  {
    g_autoptr(Reply) reply = request_full (f, "POST", id, "application/json", modern_ping, strlen (modern_ping),
                                           NULL, "MCP-Protocol-Version", "2025-11-25", NULL);
    g_autoptr(JsonObject) body = NULL;

    g_assert_cmpuint (reply->status, ==, 400);
    body = reply_json (reply);
    stw_test_assert_error (body, "1", -32600);
  }
  /* The session survived all that, and other versions are served in it. */
  for (guint i = 0; i < 3; i++)
    {
      const char *versions[] = { "2025-03-26", "2025-06-18", "2025-11-25" };
      g_autoptr(Reply) reply = request_full (f, "POST", id, "application/json", ping, strlen (ping), NULL,
                                             "MCP-Protocol-Version", versions[i], NULL);

      g_assert_cmpuint (reply->status, ==, 200);
    }
}

static void
test_token (Fixture       *f,
            gconstpointer  data)
{
  const char *init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}";
  const char *token = "s3cret-token-0123456789";
  g_autoptr(Reply) missing = NULL;
  g_autoptr(Reply) wrong = NULL;
  g_autoptr(Reply) prefix = NULL;
  g_autoptr(Reply) basic = NULL;
  g_autoptr(Reply) right = NULL;
  g_autofree char *missing_text = NULL;

  _stw_mcp_http_set_token (f->http, token);
  fixture_listen (f, "127.0.0.1:0");

  missing = post (f, NULL, init);
  wrong = request_full (f, "POST", NULL, "application/json", init, strlen (init), NULL,
                        "Authorization", "Bearer s3cret-token-0123456788", NULL);
  prefix = request_full (f, "POST", NULL, "application/json", init, strlen (init), NULL,
                         "Authorization", "Bearer s3cret", NULL);
  basic = request_full (f, "POST", NULL, "application/json", init, strlen (init), NULL,
                        "Authorization", "Basic czNjcmV0LXRva2VuLTAxMjM0NTY3ODk=", NULL);
  right = request_full (f, "POST", NULL, "application/json", init, strlen (init), NULL,
                        "Authorization", "Bearer s3cret-token-0123456789", NULL);

  missing_text = g_strdup (reply_text (missing));
  assert_refused (missing, 401, -32001);
  /* No detail: every refusal reads the same, and names nothing. */
  for (Reply **r = (Reply *[]) { wrong, prefix, basic, NULL }; *r != NULL; r++)
    {
      assert_refused (*r, 401, -32001);
      g_assert_cmpstr (reply_text (*r), ==, missing_text);
      g_assert_cmpstr (reply_header (*r, "WWW-Authenticate"), ==, "Bearer");
    }
  g_assert_null (strstr (missing_text, "oken"));
  g_assert_cmpuint (right->status, ==, 200);
}

static void
test_non_loopback_needs_token (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  const char *bin = g_getenv ("STAGEWRIGHT_BIN");
  const char *bad[] = { "127.0.0.1", "127.0.0.1:99999", "example.com:80", "[::1", "1.2.3.4.5:0", ":" };

  g_assert_false (_stw_mcp_http_listen (f->http, "0.0.0.0:0", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (_stw_mcp_http_listen (f->http, bad[i], &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }

  /* The program refuses to start: exit status 2 and a clear message. */
  if (bin != NULL)
    {
      const char *argv[] = { bin, "--http", "0.0.0.0:0", NULL };
      g_autofree char *err = NULL;
      int status = 0;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                   NULL, &err, &status, &error));
      g_assert_no_error (error);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 2);
      g_assert_nonnull (strstr (err, "--http-token-file"));
    }
}

static void
test_body_limit (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *id = NULL;
  g_autofree char *big = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autoptr(Raw) raw = NULL;
  g_autofree char *request = NULL;

  _stw_mcp_http_set_max_body (f->http, 4096);
  fixture_listen (f, "127.0.0.1:0");
  id = initialize (f);

  big = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"%0*d\"}}", 5000, 0);
  reply = post (f, id, big);
  assert_refused (reply, 413, -32600);

  /* Refused on its Content-Length, before a byte of the body comes. */
  raw = raw_connect (f);
  request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                             "MCP-Session-Id: %s\r\nContent-Length: 1000000000\r\n\r\n{", f->port, id);
  g_assert_cmpuint (raw_status (f, raw, request), ==, 413);

  {
    g_autoptr(JsonObject) ping = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    stw_test_assert_result (ping, "2");
  }
}

/* One client identity (here: the loopback address) holds at most a
 * quarter of --http-max-sessions: past that its least recently used idle
 * session ends, and one that is busy is never ended for room: 503. */
static void
test_session_cap (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;
  g_autoptr(Reply) evicted = NULL;
  g_autoptr(Reply) pending = NULL;
  g_autoptr(JsonObject) body = NULL;
  g_autoptr(GCancellable) no_wait = g_cancellable_new ();
  StwTool *never = stw_test_client_get_tool (f->client, "test_never");
  const char *hang = "{\"jsonrpc\":\"2.0\",\"id\":\"n\",\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"test_never\",\"arguments\":{}}}";
  JsonObject *error;

  _stw_mcp_http_set_max_sessions (f->http, 8);
  fixture_listen (f, "127.0.0.1:0");
  a = initialize (f);
  b = initialize (f);
  g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 2);

  /* At the cap: the least recently used idle session (a) makes room. */
  c = initialize (f);
  g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 2);
  evicted = post (f, a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
  assert_refused (evicted, 404, -32001);

  /* Both busy (a call in flight each): nothing is ended, 503. */
  pending = request_full (f, "POST", b, "application/json", hang, strlen (hang), no_wait,
                          "MCP-Protocol-Version", "2025-11-25", NULL);
  wait_calls (f, never, 1);
  {
    g_autoptr(Reply) other = request_full (f, "POST", c, "application/json", hang, strlen (hang), no_wait,
                                           "MCP-Protocol-Version", "2025-11-25", NULL);
    wait_calls (f, never, 2);
    /* libsoup's client has two connections per host, both waiting: raw. */
    g_autoptr(Raw) raw = raw_connect (f);
    const char *init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}";
    g_autofree char *request =
      g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", f->port, strlen (init), init);

    g_assert_cmpuint (raw_status (f, raw, request), ==, 503);
    g_assert_nonnull (strstr (raw->received->str, "\r\nRetry-After: 5\r\n"));
    g_assert_null (strstr (raw->received->str, "MCP-Session-Id"));
    body = stw_test_json_object_from (strstr (raw->received->str, "\r\n\r\n") + 4);
    error = stw_test_assert_error (body, "null", -32000);
    g_assert_nonnull (strstr (json_object_get_string_member (error, "message"), "at most 2"));
    g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 2);
    g_cancellable_cancel (no_wait);
    g_assert_true (wait_for (f, &other->done, STW_TEST_TIMEOUT_MS));
    g_assert_true (wait_for (f, &pending->done, STW_TEST_TIMEOUT_MS));
  }
}

static void
test_idle_timeout (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *id = NULL;
  g_autoptr(Reply) after = NULL;
  gboolean gone = FALSE;

  _stw_mcp_http_set_idle_timeout_ms (f->http, 200);
  fixture_listen (f, "127.0.0.1:0");
  id = initialize (f);
  for (guint i = 0; i < 200 && !gone; i++)
    {
      iterate_for (f, 20);
      gone = _stw_mcp_http_get_n_sessions (f->http) == 0;
    }
  g_assert_true (gone);
  after = post (f, id, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
  assert_refused (after, 404, -32001);
}

static void
test_rate_limit (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *id = NULL;
  guint limited = 0;

  _stw_mcp_http_set_rate_limit (f->http, 1, 5);
  fixture_listen (f, "127.0.0.1:0");
  id = initialize (f);  /* two requests */
  for (guint i = 0; i < 10; i++)
    {
      g_autoptr(Reply) reply = post (f, id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");

      if (reply->status == 429)
        {
          assert_refused (reply, 429, -32000);
          g_assert_nonnull (reply_header (reply, "Retry-After"));
          limited++;
        }
      else
        g_assert_cmpuint (reply->status, ==, 200);
    }
  /* Five in a burst, at most a few more refilled meanwhile. */
  g_assert_cmpuint (limited, >=, 3);
}

/* What is not a well-formed request for this endpoint. */
static void
test_refusals (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  const struct { const char *body; gint64 code; } bad_bodies[] = {
    { "", -32700 },
    { "garbage", -32700 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi", -32700 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,", -32700 },
    { "\xff\xfe{}", -32700 },
    { "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600 },
    { "42", -32600 },
    { "\"text\"", -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", -32600 },
    { "{\"id\":1,\"method\":\"ping\"}", -32600 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad_bodies); i++)
    {
      g_autoptr(Reply) reply = post (f, id, bad_bodies[i].body);
      g_autoptr(JsonObject) body = NULL;

      g_test_message ("body: %s", bad_bodies[i].body);
      if (reply->status == 200)
        {
          /* A request with a valid id is answered as a request. */
          body = reply_json (reply);
          stw_test_assert_error (body, "1", bad_bodies[i].code);
        }
      else
        assert_refused (reply, 400, bad_bodies[i].code);
    }

  {
    g_autoptr(Reply) text = request_full (f, "POST", id, "text/plain", ping, strlen (ping), NULL, NULL);
    g_autoptr(Reply) form = request_full (f, "POST", id, "application/x-www-form-urlencoded", ping,
                                          strlen (ping), NULL, NULL);
    g_autoptr(Reply) no_session = post (f, NULL, ping);
    g_autoptr(Reply) unknown = post (f, "00000000000000000000000000000000", ping);
    g_autoptr(Reply) bad_version = request_full (f, "POST", id, "application/json", ping, strlen (ping),
                                                 NULL, "MCP-Protocol-Version", "1999-01-01", NULL);
    g_autoptr(Reply) old_version = request_full (f, "POST", id, "application/json", ping, strlen (ping),
                                                 NULL, "MCP-Protocol-Version", "2025-03-26", NULL);
    g_autoptr(Reply) get = request_full (f, "GET", "nope", NULL, NULL, 0, NULL, "Accept", "text/event-stream", NULL);
    g_autoptr(Reply) put = request_full (f, "PUT", id, "application/json", ping, strlen (ping), NULL, NULL);
    g_autoptr(Reply) other_path = NULL;
    g_autoptr(Reply) delete_unknown = request_full (f, "DELETE", "nope", NULL, NULL, 0, NULL, NULL);
    g_autoptr(Reply) delete_none = request_full (f, "DELETE", NULL, NULL, NULL, 0, NULL, NULL);
    g_autoptr(Reply) reinit = post (f, id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");

    assert_refused (text, 415, -32600);
    assert_refused (form, 415, -32600);
    assert_refused (no_session, 400, -32600);
    assert_refused (unknown, 404, -32001);
    assert_refused (bad_version, 400, -32600);
    g_assert_cmpuint (old_version->status, ==, 200);
    assert_refused (get, 404, -32001);
    assert_refused (put, 405, -32000);
    g_assert_cmpstr (reply_header (put, "Allow"), ==, "GET, POST, DELETE");
    assert_refused (delete_unknown, 404, -32001);
    assert_refused (delete_none, 400, -32600);
    {
      g_autoptr(JsonObject) body = reply_json (reinit);
      stw_test_assert_error (body, "1", -32600);
    }

    g_free (f->url);
    f->url = g_strdup_printf ("http://127.0.0.1:%u/other", f->port);
    other_path = post (f, id, ping);
    assert_refused (other_path, 404, -32000);
  }
}

/* Hostile input {{{1 */

static const char * const seeds[] = {
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
  "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\",\"params\":{\"cursor\":\"c3R3OjA=\"}}",
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"test_echo\",\"arguments\":{\"message\":\"hi\"}}}",
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"electron_status\",\"arguments\":{}}}",
  "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":\"stagewright://docs/quickstart\"}}",
  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}",
  "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}",
  "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}",
};

static char *
mutate (GRand *rand)
{
  const char *seed = seeds[g_rand_int_range (rand, 0, G_N_ELEMENTS (seeds))];
  GString *out = g_string_new (seed);
  guint kind = g_rand_int_range (rand, 0, 7);

  switch (kind)
    {
    case 0: /* truncated */
      g_string_truncate (out, g_rand_int_range (rand, 0, out->len));
      break;
    case 1: /* bytes flipped */
      for (guint i = 0, n = g_rand_int_range (rand, 1, 6); i < n; i++)
        out->str[g_rand_int_range (rand, 0, out->len)] = (char) g_rand_int_range (rand, 1, 256);
      break;
    case 2: /* random bytes */
      g_string_truncate (out, 0);
      for (guint i = 0, n = g_rand_int_range (rand, 1, 200); i < n; i++)
        g_string_append_c (out, (char) g_rand_int_range (rand, 1, 256));
      break;
    case 3: /* deep nesting */
      {
        g_autofree char *nested = stw_test_json_nested (g_rand_int_range (rand, 100, 3000), "[", "0", "]");
        g_string_printf (out, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"x\":%s}}", nested);
      }
      break;
    case 4: /* a piece inserted */
      {
        const char *pieces[] = { "\\ud800", "1e999999", "-0", "null", "{", "]", "\"\\u0000\"", ",,", "99999999999999999999" };
        g_string_insert (out, g_rand_int_range (rand, 0, out->len),
                         pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      }
      break;
    case 5: /* wrong types for the envelope's members */
      g_string_printf (out, "{\"jsonrpc\":%s,\"id\":%s,\"method\":%s,\"params\":%s}",
                       (const char *[]) { "\"2.0\"", "2", "null", "[]" }[g_rand_int_range (rand, 0, 4)],
                       (const char *[]) { "1", "\"x\"", "1.5", "[]", "{}", "true" }[g_rand_int_range (rand, 0, 6)],
                       (const char *[]) { "\"ping\"", "1", "{}", "\"tools/call\"", "\"\"" }[g_rand_int_range (rand, 0, 5)],
                       (const char *[]) { "{}", "[]", "1", "\"p\"", "{\"name\":1}" }[g_rand_int_range (rand, 0, 5)]);
      break;
    default: /* as is */
      break;
    }
  return g_string_free (out, FALSE);
}

static void
test_hostile (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *id = NULL;
  const char *seed_text = g_getenv ("STW_FUZZ_SEED");
  guint32 seed = seed_text ? (guint32) g_ascii_strtoull (seed_text, NULL, 10) : 20261124;
  const char *count_text = g_getenv ("STW_FUZZ_ITERATIONS");
  guint count = count_text ? (guint) g_ascii_strtoull (count_text, NULL, 10) : 2000;
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(JsonObject) ping = NULL;
  gint64 deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (60000) * 1000;
  guint sent = 0;

  _stw_mcp_http_set_rate_limit (f->http, 0, 0);
  fixture_listen (f, "127.0.0.1:0");
  id = initialize (f);
  g_test_message ("seed %u, %u messages", seed, count);

  for (; sent < count && g_get_monotonic_time () < deadline; sent++)
    {
      g_autofree char *body = mutate (rand);
      /* A third go stateless, with the 2026-07-28 headers (whatever the
       * body says). */
      gboolean stateless = sent % 3 == 2;
      g_autofree char *modern_body = stateless ? g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":"
                                                                  "\"tools/call\",\"params\":{\"name\":%s,"
                                                                  MODERN_META "}}", sent, body) : NULL;
      const char *sent_body = stateless && sent % 2 ? modern_body : body;
      g_autofree char *name = NULL;

      /* Mcp-Name: the mutated text, raw when a header can carry it, else
       * in the base64 sentinel form (random bytes, invalid UTF-8 too). */
      for (const char *p = body; name == NULL && *p; p++)
        if (*p < 0x20 || *p > 0x7e)
          {
            g_autofree char *encoded = g_base64_encode ((const guchar *) body, strlen (body));
            name = g_strdup_printf ("=?base64?%s?=", encoded);
          }
      if (name == NULL)
        name = g_strdup (body);
      g_autoptr(Reply) reply = request_full (f, "POST", stateless ? NULL : id, "application/json",
                                             sent_body, strlen (sent_body), NULL,
                                             "MCP-Protocol-Version", stateless ? "2026-07-28" : NULL,
                                             "Mcp-Method", stateless ? "tools/call" : NULL,
                                             "Mcp-Name", stateless ? name : NULL, NULL);

      /* Every answer is an HTTP answer of ours; a JSON one is a frame. */
      g_assert_cmpuint (reply->status, !=, 0);
      g_assert_cmpuint (reply->status, <, 500);
      if (reply->status == 200 && g_str_has_prefix (reply_header (reply, "Content-Type"), "application/json"))
        {
          g_autoptr(JsonObject) frame = reply_json (reply);
          stw_test_check_frame (frame);
        }
    }
  g_test_message ("%u messages sent", sent);
  g_assert_cmpuint (sent, >=, MIN (count, 200));

  ping = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}");
  stw_test_assert_result (ping, "\"last\"");
}

/* A client that sends a byte every 100 ms holds its own socket only. */
typedef struct
{
  Raw        *raw;
  const char *request;
  gsize       sent;
  gsize       limit;
} Slow;

static gboolean
on_slow_tick (gpointer user_data)
{
  Slow *slow = user_data;

  if (slow->sent >= slow->limit)
    return G_SOURCE_REMOVE;
  raw_write (slow->raw, slow->request + slow->sent, 1);
  slow->sent++;
  return G_SOURCE_CONTINUE;
}

static void
test_slowloris (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(Raw) raw = raw_connect (f);
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Content-Type: application/json\r\nContent-Length: 40\r\n\r\n",
                                              f->port);
  Slow slow = { raw, request, 0, 30 };
  GSource *tick = g_timeout_source_new (100);

  g_source_set_callback (tick, on_slow_tick, &slow, NULL);
  g_source_attach (tick, stw_test_client_get_context (f->client));
  iterate_for (f, 250);
  g_assert_cmpuint (slow.sent, >=, 1);

  /* Another client is served while the slow one trickles. */
  assert_serves_a_new_client (f);
  g_assert_cmpuint (slow.sent, <, slow.limit);
  g_assert_false (raw->closed);

  g_source_destroy (tick);
  g_source_unref (tick);
  /* The read in flight must end before the Raw goes. */
  g_socket_shutdown (g_socket_connection_get_socket (raw->connection), TRUE, TRUE, NULL);
  g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));
}

/* A refused client may still be sending its body when the answer comes:
 * the server lingers (reads and drops it) before it closes, or the unread
 * bytes would make its close a reset that can destroy the answer before
 * the client reads it ("fetch failed"). */
static void
test_refusal_lingers (Fixture       *f,
                      gconstpointer  data)
{
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
  g_autofree char *headers =
    g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n", strlen (body));

  for (guint i = 0; i < 40; i++)
    {
      g_autoptr(Raw) raw = raw_connect_quiet (f);
      const char *separator;
      gsize length;

      GSocket *socket = g_socket_connection_get_socket (raw->connection);

      /* The headers, refused at once; the body once the answer is on its
       * way, before the server closes; the answer read last. */
      raw_write (raw, headers, strlen (headers));
      for (guint j = 0; j < 100000 && g_socket_get_available_bytes (socket) <= 0; j++)
        if (!g_main_context_iteration (stw_test_client_get_context (f->client), FALSE))
          g_usleep (100);
      g_assert_cmpint (g_socket_get_available_bytes (socket), >, 0);
      raw_write (raw, body, strlen (body));
      iterate_for (f, 20);
      raw_read_next (raw);
      g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));

      g_assert_no_error (raw->error);
      g_assert_true (g_str_has_prefix (raw->received->str, "HTTP/1.1 403 "));
      separator = strstr (raw->received->str, "\r\n\r\n");
      g_assert_nonnull (separator);
      length = (gsize) g_ascii_strtoull (strstr (raw->received->str, "Content-Length: ") + 16, NULL, 10);
      g_assert_cmpuint (strlen (separator + 4), ==, length);
      g_assert_nonnull (strstr (separator, "Host not allowed"));
    }
}

typedef struct
{
  gboolean done;
  gboolean failed;
  gsize    written;
} Sent;

static void
on_big_written (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Sent *sent = user_data;
  g_autoptr(GError) error = NULL;

  sent->failed = !g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, &sent->written, &error);
  sent->done = TRUE;
}

/* Lingering is bounded: a refused 10 MB body is not read in full, and a
 * client that sends nothing more and never closes is closed on. */
static void
test_refusal_linger_bounded (Fixture       *f,
                             gconstpointer  data)
{
  gsize size = 10 * 1024 * 1024;
  g_autofree char *big = g_malloc0 (size);
  g_autofree char *headers =
    g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n", size);

  {
    g_autoptr(Raw) raw = raw_connect (f);
    Sent sent = { 0 };

    memset (big, ' ', size);
    raw_write (raw, headers, strlen (headers));
    g_output_stream_write_all_async (g_io_stream_get_output_stream (G_IO_STREAM (raw->connection)),
                                     big, size, G_PRIORITY_DEFAULT, NULL, on_big_written, &sent);
    g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));
    g_assert_true (g_str_has_prefix (raw->received->str, "HTTP/1.1 403 "));
    /* The server stopped reading and closed: the rest cannot be sent. */
    g_assert_true (wait_for (f, &sent.done, STW_TEST_TIMEOUT_MS));
    g_assert_true (sent.failed);
    g_assert_cmpuint (sent.written, <, size);
  }

  {
    g_autoptr(Raw) raw = raw_connect (f);
    gint64 start = g_get_monotonic_time ();

    /* Headers that promise a body which never comes. */
    raw_write (raw, headers, strlen (headers));
    g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));
    g_assert_no_error (raw->error);
    g_assert_true (g_str_has_prefix (raw->received->str, "HTTP/1.1 403 "));
    /* The answer ended (the server's side is shut); the server still
     * reads, then lets go: a byte sent then is refused. */
    for (;;)
      {
        g_autoptr(GError) error = NULL;

        g_socket_send (g_socket_connection_get_socket (raw->connection), "x", 1, NULL, &error);
        if (error != NULL)
          break;
        g_assert_cmpint (g_get_monotonic_time () - start, <,
                         (gint64) stw_test_timeout_ms (STW_TEST_TIMEOUT_MS) * 1000);
        iterate_for (f, 100);
      }
  }
}

static guint
count_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* The process holds at most two more descriptors than @before (the
 * fixture's own may come and go), once the server has had up to 2 s to
 * let go of what it closed. */
static void
assert_fds_back_to (Fixture *f,
                    guint    before)
{
  guint after = G_MAXUINT;

  for (guint i = 0; i < 100 && after > before + 2; i++)
    {
      iterate_for (f, 20);
      after = count_fds ();
    }
  g_assert_cmpuint (after, <=, before + 2);
}

/* A client that closes its kept-alive connection between requests takes
 * the server's end with it (libsoup 3.2 kept those in CLOSE_WAIT forever,
 * one descriptor each, until the listener could accept no more). */
static void
test_closed_connections_end (Fixture       *f,
                             gconstpointer  data)
{
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}";
  g_autofree char *request =
    g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                     "Accept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                     "Mcp-Method: tools/list\r\nContent-Length: %zu\r\n\r\n%s",
                     f->port, strlen (body), body);
  guint before;

  /* The first connection may open what stays open (a GSocket's). */
  iterate_for (f, 50);
  before = count_fds ();
  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(Raw) raw = raw_connect (f);
      const char *end = NULL;

      raw_write (raw, request, strlen (request));
      for (guint j = 0; j < 1000 && !raw->closed; j++)
        {
          end = strstr (raw->received->str, "\r\n\r\n");
          if (end != NULL && strstr (raw->received->str, "\"tools\"") != NULL &&
              g_str_has_suffix (raw->received->str, "}"))
            break;
          iterate_for (f, 5);
        }
      g_assert_true (g_str_has_prefix (raw->received->str, "HTTP/1.1 200 "));
      /* Closed by the client, whether the server kept it alive or not. */
      g_socket_shutdown (g_socket_connection_get_socket (raw->connection), TRUE, TRUE, NULL);
      g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));
    }
  assert_fds_back_to (f, before);
}

/* A client that resets its connection right after its request: the server
 * asks its address for the rate limit, and for a refusal steals the
 * connection; neither may warn (libsoup 3.2's accessors did, and a warning
 * is fatal here) nor fail. */
static void
test_reset_clients (Fixture       *f,
                    gconstpointer  data)
{
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}";
  const char *hosts[] = { "127.0.0.1", "evil.example.com" };

  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(Raw) raw = raw_connect_quiet (f);
      GSocket *socket = g_socket_connection_get_socket (raw->connection);
      g_autofree char *request =
        g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: %s:%u\r\nContent-Type: application/json\r\n"
                         "Accept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                         "Mcp-Method: tools/list\r\nContent-Length: %zu\r\n\r\n%s",
                         hosts[i % 2], f->port, strlen (body), body);
      struct linger reset = { 1, 0 };

      raw_write (raw, request, strlen (request));
      setsockopt (g_socket_get_fd (socket), SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
      g_socket_close (socket, NULL);
      iterate_for (f, 20);
    }

  /* And the server goes on. */
  assert_serves_a_new_client (f);
}

/* What one client may hold at once, streams and requests awaiting their
 * answer, is bounded (256): past it a clear 429 and a JSON-RPC error, and
 * what does not hold (a notification) is still served; ending what it
 * holds frees the client. */
static void
test_held_cap (Fixture       *f,
               gconstpointer  data)
{
  StwTool *never = stw_test_client_get_tool (f->client, "test_never");
  g_autoptr(GPtrArray) raws = g_ptr_array_new_with_free_func ((GDestroyNotify) raw_free);
  g_autofree char *id = NULL;
  guint cap = 256;

  _stw_mcp_http_set_rate_limit (f->http, 0, 0);
  fixture_listen (f, "127.0.0.1:0");
  id = initialize (f);

  for (guint i = 0; i < cap; i++)
    {
      Raw *raw = raw_connect (f);
      g_autofree char *body =
        g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/call\","
                         "\"params\":{\"name\":\"test_never\",\"arguments\":{}}}", i + 100);
      g_autofree char *request =
        g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                         "Accept: application/json\r\nMCP-Session-Id: %s\r\nContent-Length: %zu\r\n\r\n%s",
                         f->port, id, strlen (body), body);

      raw_write (raw, request, strlen (request));
      g_ptr_array_add (raws, raw);
      /* The server accepts as its loop turns (its backlog is short). */
      for (guint j = 0; j < 1000 && stw_test_tool_get_n_calls (never) <= i; j++)
        iterate_for (f, 1);
    }
  for (guint i = 0; i < 500 && stw_test_tool_get_n_calls (never) < cap; i++)
    iterate_for (f, 10);
  g_assert_cmpuint (stw_test_tool_get_n_calls (never), ==, cap);

  {
    g_autoptr(Reply) over = post (f, id, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
    g_autoptr(Reply) get = request_full (f, "GET", id, NULL, NULL, 0, NULL, "Accept", "text/event-stream", NULL);
    g_autoptr(Reply) note = post (f, id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
                                         "\"params\":{\"progressToken\":1,\"progress\":1}}");
    g_autoptr(JsonObject) body = NULL;
    JsonObject *error;

    g_assert_cmpuint (over->status, ==, 429);
    g_assert_nonnull (reply_header (over, "Retry-After"));
    body = reply_json (over);
    error = stw_test_assert_error (body, "7", -32000);
    g_assert_nonnull (strstr (json_object_get_string_member (error, "message"), "at most 256"));
    assert_refused (get, 429, -32000);
    g_assert_cmpuint (note->status, ==, 202);
  }

  /* The session ends: what it held ends, and the client is served again. */
  {
    g_autoptr(Reply) end = request_full (f, "DELETE", id, NULL, NULL, 0, NULL, NULL);

    g_assert_cmpuint (end->status, ==, 200);
    for (guint i = 0; i < raws->len; i++)
      {
        Raw *raw = g_ptr_array_index (raws, i);

        g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));
      }
    assert_serves_a_new_client (f);
  }
}

/* A client that goes away from a request waiting for its JSON answer does
 * not cancel it, but its connection is let go at once, not when the call
 * ends (which may be never): no descriptor is held for nobody. */
static void
test_abandoned_answer_lets_go (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *id = initialize (f);
  StwTool *never = stw_test_client_get_tool (f->client, "test_never");
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"test_never\",\"arguments\":{}}}";
  g_autofree char *request =
    g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                     "Accept: application/json\r\nMCP-Session-Id: %s\r\nContent-Length: %zu\r\n\r\n%s",
                     f->port, id, strlen (body), body);
  g_autoptr(JsonObject) ping = NULL;
  guint before;

  {
    g_autoptr(Raw) raw = raw_connect (f);

    raw_write (raw, request, strlen (request));
    wait_calls (f, never, 1);
    /* The client is done sending: the server lets the exchange go. */
    g_socket_shutdown (g_socket_connection_get_socket (raw->connection), FALSE, TRUE, NULL);
    g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));
    g_assert_true (g_str_has_prefix (raw->received->str, "HTTP/1.1 204 "));
  }

  iterate_for (f, 50);
  before = count_fds ();
  for (guint i = 0; i < 10; i++)
    {
      g_autoptr(Raw) raw = raw_connect (f);
      g_autofree char *other_body =
        g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/call\","
                         "\"params\":{\"name\":\"test_never\",\"arguments\":{}}}", i);
      g_autofree char *other =
        g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                         "Accept: application/json\r\nMCP-Session-Id: %s\r\nContent-Length: %zu\r\n\r\n%s",
                         f->port, id, strlen (other_body), other_body);

      raw_write (raw, other, strlen (other));
      wait_calls (f, never, i + 2);
      g_socket_close (g_socket_connection_get_socket (raw->connection), NULL);
      g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));
    }
  assert_fds_back_to (f, before);

  /* Not cancelled, and the session goes on. */
  g_assert_cmpuint (stw_test_tool_get_n_cancelled (never), ==, 0);
  ping = call (f, id, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}");
  stw_test_assert_result (ping, "99");
}

/* The stateless era (2026-07-28) {{{1 */


static Reply *
modern (Fixture    *f,
        const char *method,
        const char *name,
        const char *body,
        const char *version)
{
  return request_full (f, "POST", NULL, "application/json", body, strlen (body), NULL,
                       "MCP-Protocol-Version", version ? version : "2026-07-28",
                       "Mcp-Method", method, "Mcp-Name", name, NULL);
}

static void
assert_modern_result (JsonObject *result,
                      gboolean    cacheable)
{
  JsonObject *meta = json_object_get_object_member (result, "_meta");

  g_assert_cmpstr (json_object_get_string_member (result, "resultType"), ==, "complete");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (meta, "io.modelcontextprotocol/serverInfo"),
                                                  "name"), ==, "stagewright");
  g_assert_true (json_object_has_member (result, "ttlMs") == cacheable);
  if (cacheable)
    g_assert_cmpstr (json_object_get_string_member (result, "cacheScope"), ==, "public");
}

static void
test_stateless (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(Reply) discover = modern (f, "server/discover", NULL,
                                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" MODERN_META "}}",
                                      NULL);
  g_autoptr(Reply) list = modern (f, "tools/list", NULL,
                                  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}",
                                  NULL);
  g_autoptr(Reply) status = modern (f, "tools/call", "electron_status",
                                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                                    "{\"name\":\"electron_status\",\"arguments\":{}," MODERN_META "}}", NULL);
  g_autoptr(Reply) encoded = modern (f, "tools/call", "=?base64?ZWxlY3Ryb25fc3RhdHVz?=",
                                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                                     "{\"name\":\"electron_status\",\"arguments\":{}," MODERN_META "}}", NULL);
  g_autoptr(Reply) missing = modern (f, "resources/read", "stagewright://nothing",
                                     "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":"
                                     "{\"uri\":\"stagewright://nothing\"," MODERN_META "}}", NULL);
  g_autoptr(JsonObject) body = NULL;
  JsonObject *result;
  JsonArray *versions;

  g_assert_cmpuint (discover->status, ==, 200);
  g_assert_null (reply_header (discover, "MCP-Session-Id"));
  body = reply_json (discover);
  result = stw_test_assert_result (body, "1");
  assert_modern_result (result, TRUE);
  versions = json_object_get_array_member (result, "supportedVersions");
  g_assert_cmpstr (json_array_get_string_element (versions, 0), ==, "2026-07-28");
  g_assert_true (json_object_has_member (json_object_get_object_member (result, "capabilities"), "tools"));
  g_clear_pointer (&body, json_object_unref);

  g_assert_cmpuint (list->status, ==, 200);
  body = reply_json (list);
  assert_modern_result (stw_test_assert_result (body, "2"), TRUE);
  g_clear_pointer (&body, json_object_unref);

  for (Reply **r = (Reply *[]) { status, encoded, NULL }; *r != NULL; r++)
    {
      g_assert_cmpuint ((*r)->status, ==, 200);
      body = reply_json (*r);
      result = stw_test_assert_result (body, "3");
      assert_modern_result (result, FALSE);
      g_assert_true (json_object_get_boolean_member (json_object_get_object_member (result, "structuredContent"), "ok"));
      g_clear_pointer (&body, json_object_unref);
    }

  /* Not found is invalid params in this era. */
  body = reply_json (missing);
  stw_test_assert_error (body, "4", -32602);
  g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 0);
}

/* 2026-07-28: a request says its version and its client's capabilities
 * in _meta, or is refused with -32602 and HTTP 400, its id kept; the
 * removed initialize is 404 and -32601, and opens no session. (The
 * conformance suite's server-stateless checks these too, but it stays in
 * the baseline for the fixture tools it also wants.) */
static void
test_stateless_meta (Fixture       *f,
                     gconstpointer  data)
{
  static const struct { const char *params; const char *lacks; } cases[] = {
    { "{}", "_meta" },
    { "{\"_meta\":[]}", "_meta" },
    { "{\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{}}}", "protocolVersion" },
    { "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}", "clientCapabilities" },
    { "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      "\"io.modelcontextprotocol/clientCapabilities\":true}}", "clientCapabilities" },
  };
  const char *initialize = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{"
                           "\"protocolVersion\":\"2026-07-28\",\"capabilities\":{},"
                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}," MODERN_META "}}";
  const char *no_client_info = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"server/discover\",\"params\":{\"_meta\":{"
                               "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                               "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"server/discover\",\"params\":%s}",
                                               100 + i, cases[i].params);
      g_autofree char *id = g_strdup_printf ("%u", 100 + i);
      g_autoptr(Reply) reply = modern (f, "server/discover", NULL, body, NULL);
      g_autoptr(JsonObject) answer = NULL;
      JsonObject *error;

      g_assert_cmpuint (reply->status, ==, 400);
      answer = reply_json (reply);
      error = stw_test_assert_error (answer, id, -32602);
      g_assert_nonnull (strstr (json_object_get_string_member (error, "message"), cases[i].lacks));
    }

  {
    g_autoptr(Reply) reply = modern (f, "initialize", NULL, initialize, NULL);
    g_autoptr(JsonObject) answer = NULL;

    g_assert_cmpuint (reply->status, ==, 404);
    answer = reply_json (reply);
    stw_test_assert_error (answer, "7", -32601);
    g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 0);
  }
  {
    /* clientInfo is a SHOULD: its absence is served. */
    g_autoptr(Reply) reply = modern (f, "server/discover", NULL, no_client_info, NULL);
    g_autoptr(JsonObject) answer = NULL;

    g_assert_cmpuint (reply->status, ==, 200);
    answer = reply_json (reply);
    g_assert_true (json_object_has_member (answer, "result"));
  }
}

static void
test_stateless_refusals (Fixture       *f,
                         gconstpointer  data)
{
  const char *list = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}";
  const char *call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"electron_status\",\"arguments\":{}," MODERN_META "}}";
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{" MODERN_META "}}";
  const char *old = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":"
                    "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"1900-01-01\"}}}";
  g_autoptr(Reply) version_mismatch = modern (f, "tools/list", NULL, list, "2025-11-25");
  g_autoptr(Reply) method_mismatch = modern (f, "tools/call", NULL, list, NULL);
  g_autoptr(Reply) no_method = request_full (f, "POST", NULL, "application/json", list, strlen (list), NULL,
                                             "MCP-Protocol-Version", "2026-07-28", NULL);
  g_autoptr(Reply) name_mismatch = modern (f, "tools/call", "electron_info", call, NULL);
  g_autoptr(Reply) no_name = modern (f, "tools/call", NULL, call, NULL);
  g_autoptr(Reply) bad_base64 = modern (f, "tools/call", "=?base64?!!!?=", call, NULL);
  g_autoptr(Reply) gone = modern (f, "ping", NULL, ping, NULL);
  g_autoptr(Reply) unsupported = modern (f, "tools/list", NULL, old, "1900-01-01");
  g_autoptr(JsonObject) body = NULL;
  JsonObject *error;

  for (Reply **r = (Reply *[]) { version_mismatch, method_mismatch, no_method, name_mismatch, no_name,
                                 bad_base64, NULL };
       *r != NULL; r++)
    {
      g_autoptr(JsonObject) refused = NULL;

      g_assert_cmpuint ((*r)->status, ==, 400);
      refused = reply_json (*r);
      stw_test_assert_error (refused, "1", -32020);
    }

  g_assert_cmpuint (gone->status, ==, 404);
  body = reply_json (gone);
  stw_test_assert_error (body, "1", -32601);
  g_clear_pointer (&body, json_object_unref);

  g_assert_cmpuint (unsupported->status, ==, 400);
  body = reply_json (unsupported);
  error = stw_test_assert_error (body, "1", -32022);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (error, "data"), "requested"),
                   ==, "1900-01-01");
}

/* In this era the stream is the request: closing it cancels the call. */
static void
test_stateless_close_cancels (Fixture       *f,
                              gconstpointer  data)
{
  StwTool *never = stw_test_client_get_tool (f->client, "test_never");
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"test_never\",\"arguments\":{}," MODERN_META "}}";
  g_autoptr(Raw) raw = raw_connect (f);
  g_autofree char *request =
    g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                     "Mcp-Method: tools/call\r\nMcp-Name: test_never\r\nContent-Length: %zu\r\n\r\n%s",
                     f->port, strlen (body), body);
  gboolean cancelled = FALSE;

  raw_write (raw, request, strlen (request));
  wait_calls (f, never, 1);

  g_socket_shutdown (g_socket_connection_get_socket (raw->connection), TRUE, TRUE, NULL);
  g_assert_true (wait_for (f, &raw->closed, STW_TEST_TIMEOUT_MS));
  for (guint i = 0; i < 200 && !cancelled; i++)
    {
      iterate_for (f, 20);
      cancelled = stw_test_tool_get_n_cancelled (never) == 1;
    }
  g_assert_true (cancelled);
}

/* subscriptions/listen: a POST whose stream stays open. */
static Reader *
listen_open (Fixture    *f,
             const char *body)
{
  Reader *reader = g_new0 (Reader, 1);
  SoupMessageHeaders *headers;
  g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));

  reader->received = g_string_new (NULL);
  reader->cancellable = g_cancellable_new ();
  reader->msg = soup_message_new ("POST", f->url);
  headers = soup_message_get_request_headers (reader->msg);
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
  soup_message_headers_replace (headers, "Mcp-Method", "subscriptions/listen");
  soup_message_set_request_body_from_bytes (reader->msg, "application/json", bytes);
  soup_session_send_async (f->session, reader->msg, G_PRIORITY_DEFAULT, reader->cancellable,
                           on_reader_sent, reader);
  g_assert_true (wait_for (f, &reader->sent, STW_TEST_TIMEOUT_MS));
  return reader;
}

/* The JSON-RPC messages a listen's stream carried (priming events left
 * out), each a notification tagged with @subscription_id. */
static GPtrArray *
listen_messages (Reader     *reader,
                 const char *subscription_id)
{
  g_autoptr(GPtrArray) events = sse_parse (reader->received->str);
  GPtrArray *messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  for (guint i = 0; i < events->len; i++)
    {
      SseEvent *event = g_ptr_array_index (events, i);
      JsonObject *message;
      JsonObject *meta;
      g_autofree char *tag = NULL;

      if (event->data[0] == '\0')
        continue;
      message = stw_test_json_object_from (event->data);
      g_assert_false (json_object_has_member (message, "id"));
      meta = json_object_get_object_member (json_object_get_object_member (message, "params"), "_meta");
      tag = stw_test_to_json (json_object_get_member (meta, "io.modelcontextprotocol/subscriptionId"));
      g_assert_cmpstr (tag, ==, subscription_id);
      g_ptr_array_add (messages, message);
    }
  return messages;
}

static const char *
message_method (GPtrArray *messages,
                guint      index)
{
  return json_object_get_string_member (g_ptr_array_index (messages, index), "method");
}

/* subscriptions/listen (2026-07-28): the POST's stream stays open, is
 * acknowledged first, carries what its filter asked for and nothing
 * else; closing it ends the subscription. A 2025 session has no such
 * method. */
static void
test_stateless_listen (Fixture       *f,
                       gconstpointer  data)
{
  StwDispatcher *dispatcher = stw_test_client_get_dispatcher (f->client);
  g_autoptr(Reader) tools = listen_open (f, "{\"jsonrpc\":\"2.0\",\"id\":\"sub\",\"method\":\"subscriptions/listen\","
                                         "\"params\":{\"notifications\":{\"toolsListChanged\":true,"
                                         "\"resourceSubscriptions\":[\"stagewright://manifest/profile\"]},"
                                         MODERN_META "}}");
  g_autoptr(Reader) prompts = listen_open (f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"subscriptions/listen\","
                                           "\"params\":{\"notifications\":{\"promptsListChanged\":true},"
                                           MODERN_META "}}");
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(StwTool) echo = stw_test_tool_new_echo ("extra_http_listen");
  g_autoptr(StwTool) echo_two = stw_test_tool_new_echo ("extra_http_listen_two");
  g_autoptr(GError) error = NULL;

  g_assert_true (reader_wait (f, tools, "notifications/subscriptions/acknowledged"));
  g_assert_true (reader_wait (f, prompts, "notifications/subscriptions/acknowledged"));
  g_assert_cmpuint (soup_message_get_status (tools->msg), ==, 200);
  g_assert_true (g_str_has_prefix (soup_message_headers_get_one (soup_message_get_response_headers (tools->msg),
                                                                 "Content-Type"), "text/event-stream"));

  stw_dispatcher_add_tool (dispatcher, echo, &error);
  g_assert_no_error (error);
  g_assert_true (reader_wait (f, tools, "notifications/resources/updated"));
  g_assert_true (reader_wait (f, tools, "notifications/tools/list_changed"));
  iterate_for (f, 50);

  messages = listen_messages (tools, "\"sub\"");
  g_assert_cmpuint (messages->len, ==, 3);
  g_assert_cmpstr (message_method (messages, 0), ==, "notifications/subscriptions/acknowledged");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (g_ptr_array_index (messages, 2),
                                                                                 "params"), "uri"),
                   ==, "stagewright://manifest/profile");
  g_clear_pointer (&messages, g_ptr_array_unref);
  /* Only its acknowledgement, with nothing honored. */
  messages = listen_messages (prompts, "2");
  g_assert_cmpuint (messages->len, ==, 1);
  stw_test_assert_json_equal (json_object_get_member (json_object_get_object_member (g_ptr_array_index (messages, 0),
                                                                                     "params"), "notifications"),
                              "{}");
  g_assert_false (tools->closed);
  g_assert_false (prompts->closed);

  /* Closing its stream ends the subscription; the other stays. */
  g_assert_cmpuint (_stw_mcp_server_get_n_listens (stw_test_client_get_server (f->client)), ==, 2);
  reader_cut (f, tools);
  for (guint i = 0; i < 200 && _stw_mcp_server_get_n_listens (stw_test_client_get_server (f->client)) > 1; i++)
    iterate_for (f, 10);
  g_assert_cmpuint (_stw_mcp_server_get_n_listens (stw_test_client_get_server (f->client)), ==, 1);
  stw_dispatcher_add_tool (dispatcher, echo_two, &error);
  g_assert_no_error (error);
  iterate_for (f, 100);
  g_assert_false (prompts->closed);
  g_clear_pointer (&messages, g_ptr_array_unref);
  messages = listen_messages (prompts, "2");
  g_assert_cmpuint (messages->len, ==, 1);

  /* Its _meta is checked like any other request's. */
  {
    g_autoptr(Reply) reply = modern (f, "subscriptions/listen", NULL,
                                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/listen\","
                                     "\"params\":{\"notifications\":{},\"_meta\":{"
                                     "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}", NULL);
    g_autoptr(JsonObject) body = NULL;

    g_assert_cmpuint (reply->status, ==, 400);
    body = reply_json (reply);
    stw_test_assert_error (body, "3", -32602);
  }
  /* It answers only on a stream: a client that takes JSON alone is told
   * so at once, not kept waiting. */
  {
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"subscriptions/listen\","
                       "\"params\":{\"notifications\":{\"toolsListChanged\":true}," MODERN_META "}}";
    g_autoptr(Reply) reply = request_full (f, "POST", NULL, "application/json", body, strlen (body), NULL,
                                           "Accept", "application/json", "MCP-Protocol-Version", "2026-07-28",
                                           "Mcp-Method", "subscriptions/listen", NULL);
    g_autoptr(JsonObject) refused = NULL;

    g_assert_cmpuint (reply->status, ==, 406);
    refused = reply_json (reply);
    stw_test_assert_error (refused, "5", -32600);
    g_assert_cmpuint (_stw_mcp_server_get_n_listens (stw_test_client_get_server (f->client)), ==, 1);
  }
  /* A 2025-11-25 session: no such method. */
  {
    g_autofree char *session = initialize (f);
    g_autoptr(JsonObject) body = call (f, session, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"subscriptions/listen\","
                                       "\"params\":{\"notifications\":{\"toolsListChanged\":true}}}");

    stw_test_assert_error (body, "4", -32601);
  }
}

/* Over stdio too: discovery and stateless calls need no initialize. */
static void
test_stdio_stateless (void)
{
  StwTestClient *client = stw_test_client_new ();
  g_autoptr(JsonObject) discover = NULL;
  g_autoptr(JsonObject) legacy_discover = NULL;
  g_autoptr(JsonObject) status = NULL;
  g_autoptr(JsonObject) not_initialized = NULL;
  g_autoptr(JsonObject) ping = NULL;
  JsonObject *result;

  /* On by default on stdio too (tests/test-mcp-server.c has the rest). */
  discover = stw_test_client_call (client, "server/discover", "{" MODERN_META "}");
  legacy_discover = stw_test_client_call (client, "server/discover", NULL);
  status = stw_test_client_call (client, "tools/call",
                                 "{\"name\":\"electron_status\",\"arguments\":{}," MODERN_META "}");
  not_initialized = stw_test_client_call (client, "tools/list", NULL);
  ping = stw_test_client_call (client, "ping", "{" MODERN_META "}");

  result = json_object_get_object_member (discover, "result");
  assert_modern_result (result, TRUE);
  /* Discovery without _meta says what it lacks, as over HTTP. */
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (legacy_discover, "error"), "code"),
                   ==, -32602);
  result = json_object_get_object_member (status, "result");
  assert_modern_result (result, FALSE);
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  /* Without _meta, the 2025 rules hold. */
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (not_initialized, "error"), "code"),
                   ==, -32600);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (ping, "error"), "code"),
                   ==, -32601);
  stw_test_client_free (client);
}

/* TLS {{{1 */

static gboolean
on_accept_certificate (SoupMessage          *msg,
                       GTlsCertificate      *certificate,
                       GTlsCertificateFlags  errors,
                       gpointer              user_data)
{
  /* The test's own self-signed certificate: only an unknown issuer. */
  return errors == G_TLS_CERTIFICATE_UNKNOWN_CA;
}

static void
test_tls (Fixture       *f,
          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("stw-tls-XXXXXX", &error);
  g_autofree char *cert = g_build_filename (dir, "cert.pem", NULL);
  g_autofree char *key = g_build_filename (dir, "key.pem", NULL);
  g_autofree char *openssl = g_find_program_in_path ("openssl");
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}";
  g_autoptr(Reply) reply = g_new0 (Reply, 1);
  int status = 0;

  g_assert_no_error (error);
  if (openssl == NULL || !g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_test_skip ("needs openssl and glib-networking");
      g_rmdir (dir);
      return;
    }
  {
    const char *argv[] = { openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                           "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                           "-keyout", key, "-out", cert, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL,
                                 G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                 NULL, NULL, NULL, NULL, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }

  g_assert_true (_stw_mcp_http_set_tls_files (f->http, cert, key, &error));
  g_assert_no_error (error);
  fixture_listen (f, "127.0.0.1:0");
  g_assert_true (g_str_has_prefix (f->url, "https://127.0.0.1:"));

  reply->msg = soup_message_new ("POST", f->url);
  g_signal_connect (reply->msg, "accept-certificate", G_CALLBACK (on_accept_certificate), NULL);
  soup_message_headers_replace (soup_message_get_request_headers (reply->msg), "Accept", "application/json");
  {
    g_autoptr(GBytes) bytes = g_bytes_new_static (body, strlen (body));
    soup_message_set_request_body_from_bytes (reply->msg, "application/json", bytes);
  }
  soup_session_send_and_read_async (f->session, reply->msg, G_PRIORITY_DEFAULT, NULL, on_sent, reply);
  g_assert_true (wait_for (f, &reply->done, STW_TEST_TIMEOUT_MS));
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_nonnull (reply_header (reply, "MCP-Session-Id"));
  g_assert_cmpuint (_stw_mcp_http_get_n_sessions (f->http), ==, 1);

  /* A refusal over TLS: the answer, its close_notify, then the linger. */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(Reply) refused = g_new0 (Reply, 1);
      g_autoptr(JsonObject) answer = NULL;

      refused->msg = soup_message_new ("POST", f->url);
      g_signal_connect (refused->msg, "accept-certificate", G_CALLBACK (on_accept_certificate), NULL);
      soup_message_headers_replace (soup_message_get_request_headers (refused->msg), "Origin",
                                    "https://evil.example.com");
      {
        g_autoptr(GBytes) bytes = g_bytes_new_static (body, strlen (body));
        soup_message_set_request_body_from_bytes (refused->msg, "application/json", bytes);
      }
      soup_session_send_and_read_async (f->session, refused->msg, G_PRIORITY_DEFAULT, NULL, on_sent, refused);
      g_assert_true (wait_for (f, &refused->done, STW_TEST_TIMEOUT_MS));
      assert_refused (refused, 403, -32000);
    }

  /* Bad files are refused before listening. */
  g_assert_false (_stw_mcp_http_set_tls_files (f->http, key, cert, &error));
  g_assert_nonnull (error);

  g_unlink (cert);
  g_unlink (key);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  stw_test_init (&argc, &argv);

#define ADD(path, func, data) \
  g_test_add ("/mcp-http/" path, Fixture, data, fixture_setup, func, fixture_teardown)

  ADD ("flow", test_flow, NULL);
  ADD ("accepted", test_accepted, NULL);
  ADD ("sse-progress", test_sse_progress, NULL);
  ADD ("sse-log", test_sse_log, NULL);
  ADD ("get-stream", test_get_stream, NULL);
  ADD ("resume-request", test_resume_request, NULL);
  ADD ("resume-expired", test_resume_expired, NULL);
  ADD ("cancel", test_cancel, NULL);
  ADD ("disconnect-does-not-cancel", test_disconnect_does_not_cancel, NULL);
  ADD ("origin", test_origin, NULL);
  ADD ("host", test_host, NULL);
  ADD ("host-once", test_host_once, NULL);
  ADD ("era-mismatch", test_era_mismatch, NULL);
  ADD ("token", test_token, "later");
  ADD ("non-loopback-needs-token", test_non_loopback_needs_token, "later");
  ADD ("body-limit", test_body_limit, "later");
  ADD ("session-cap", test_session_cap, "later");
  ADD ("idle-timeout", test_idle_timeout, "later");
  ADD ("rate-limit", test_rate_limit, "later");
  ADD ("refusals", test_refusals, NULL);
  ADD ("hostile", test_hostile, "later");
  ADD ("slowloris", test_slowloris, NULL);
  ADD ("refusal-lingers", test_refusal_lingers, NULL);
  ADD ("refusal-linger-bounded", test_refusal_linger_bounded, NULL);
  ADD ("closed-connections-end", test_closed_connections_end, NULL);
  ADD ("reset-clients", test_reset_clients, NULL);
  ADD ("held-cap", test_held_cap, "later");
  ADD ("abandoned-answer-lets-go", test_abandoned_answer_lets_go, NULL);
  ADD ("tls", test_tls, "later");
  ADD ("stateless", test_stateless, NULL);
  ADD ("stateless-refusals", test_stateless_refusals, NULL);
  ADD ("stateless-meta", test_stateless_meta, NULL);
  ADD ("stateless-close-cancels", test_stateless_close_cancels, NULL);
  ADD ("stateless-listen", test_stateless_listen, NULL);
  g_test_add_func ("/mcp-http/stdio-stateless", test_stdio_stateless);

  return g_test_run ();
}
