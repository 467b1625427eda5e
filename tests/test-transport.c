/* test-transport.c: StwTransport, CDP over WebSocket and over a pipe
 *
 * Most tests talk to a fake CDP peer whose behaviour the request's method
 * scripts (Test.noReply, Test.drop, Test.garbage, …): a SoupServer
 * WebSocket handler on 127.0.0.1, or the far end of two pipes (both in
 * stw-test-utils.c). Two tests drive a real headless Chromium, over the
 * pipe and over its WebSocket, and report the eval round trip; they are
 * skipped when Chromium is not installed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

/* These tests call libsoup themselves, linked (see stw-soup-private.h). */
#define STW_SOUP_LINKED

#include <errno.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "stw-deadline-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-test-utils.h"
#include "transports/stw-cdp-pipe.h"
#include "transports/stw-cdp-websocket.h"
#include "transports/stw-transport.h"

#define CHROMIUM "/usr/lib/chromium/chromium"
#define BIG_SIZE (20 * 1024 * 1024)

/* --- helpers ------------------------------------------------------------- */

/* Deadlines for things that must happen; generous under valgrind. */
static guint
deadline_ms (guint ms)
{
  return stw_test_running_on_valgrind () ? ms * 20 : ms;
}

static gboolean
set_flag_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
error_is_retryable (const GError *error)
{
  gboolean retryable = FALSE;

  g_assert_true (stw_error_registry_lookup (stw_error_registry_get_default (),
                                            stw_error_get_code_name (error),
                                            NULL, &retryable, NULL));
  return retryable;
}

#define assert_stw_error(error, code_name)                                  \
  G_STMT_START {                                                            \
    g_assert_error ((error), STW_ERROR, stw_error_code_from_string_or_die (code_name)); \
  } G_STMT_END

static gint
stw_error_code_from_string_or_die (const char *code_name)
{
  StwError code;

  g_assert_true (stw_error_code_from_string (code_name, &code));
  return (gint) code;
}

/* --- calls --------------------------------------------------------------- */

typedef struct
{
  gboolean    done;
  JsonObject *result;
  GError     *error;
  gint64      started_us;
  gint64      done_us;
} Call;

static void
call_free (Call *call)
{
  g_clear_pointer (&call->result, json_object_unref);
  g_clear_error (&call->error);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Call, call_free)

static void
call_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Call *call = user_data;

  g_assert_false (call->done);
  call->result = stw_transport_call_finish (STW_TRANSPORT (source), result, &call->error);
  g_assert_true ((call->result == NULL) != (call->error == NULL));
  call->done = TRUE;
  call->done_us = g_get_monotonic_time ();
}

static Call *
call_start_with (StwTransport *transport,
                 const char   *method,
                 JsonObject   *params,
                 const char   *session_id,
                 guint         timeout_ms,
                 GCancellable *cancellable)
{
  Call *call = g_new0 (Call, 1);

  call->started_us = g_get_monotonic_time ();
  stw_transport_call_async (transport, method, params, session_id, timeout_ms,
                            cancellable, call_done_cb, call);
  return call;
}

static Call *
call_start (StwTransport *transport,
            const char   *method,
            const char   *params_json,
            guint         timeout_ms)
{
  g_autoptr(JsonObject) params = stw_test_json_object_from (params_json);

  return call_start_with (transport, method, params, NULL, timeout_ms, NULL);
}

static void
call_wait (Call *call)
{
  if (!stw_test_wait_until (&call->done, deadline_ms (10000)))
    g_error ("A call never completed");
}

static double
call_elapsed_ms (const Call *call)
{
  return (double) (call->done_us - call->started_us) / 1000.0;
}

/* Calls and waits; returns the result (transfer full) or NULL with @error. */
static JsonObject *
call_sync (StwTransport  *transport,
           const char    *method,
           const char    *params_json,
           GError       **error)
{
  g_autoptr(Call) call = call_start (transport, method, params_json, 0);

  call_wait (call);
  if (call->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&call->error));
      return NULL;
    }
  return g_steal_pointer (&call->result);
}

/* --- transport watch ----------------------------------------------------- */

typedef struct
{
  guint   n_closed;
  GError *error;
  guint   n_pending_at_close;
} ClosedWatch;

static void
on_transport_closed (StwTransport *transport,
                     const GError *error,
                     ClosedWatch  *watch)
{
  watch->n_closed++;
  g_clear_error (&watch->error);
  if (error != NULL)
    watch->error = g_error_copy (error);
  watch->n_pending_at_close = stw_transport_get_n_pending (transport);
}

static void
closed_watch_clear (ClosedWatch *watch)
{
  g_clear_error (&watch->error);
}

/* --- the WebSocket tests ------------------------------------------------- */

static void
test_url_loopback (void)
{
  const char *loopback[] = {
    "ws://127.0.0.1:9222/devtools/browser/abc",
    "ws://127.1.2.3/",
    "ws://localhost:9229/0f2c",
    "ws://LOCALHOST/",
    "ws://[::1]:9222/devtools/page/1",
    "wss://127.0.0.1/",
    "http://127.0.0.1:9222/json/version",
  };
  const char *remote[] = {
    "ws://example.com:9222/devtools/browser/abc",
    "ws://10.0.0.1:9222/",
    "ws://192.168.1.2/",
    "ws://0.0.0.0:9222/",
    "ws://[::]:9222/",
    "ws://[2001:db8::1]/",
    "ws://127.0.0.1.nip.io/",
    "ws://localhost.example.com/",
    "ws://127.0.0.1@example.com/",
    "ws://2130706433/",
    "ws://0x7f.1/",
    "not a url",
    "",
    "ws:///devtools",
  };

  for (guint i = 0; i < G_N_ELEMENTS (loopback); i++)
    if (!stw_url_is_loopback (loopback[i]))
      g_error ("%s should be loopback", loopback[i]);
  for (guint i = 0; i < G_N_ELEMENTS (remote); i++)
    if (stw_url_is_loopback (remote[i]))
      g_error ("%s should not be loopback", remote[i]);
}

static void
test_websocket_echo (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) params = stw_test_json_object_from ("{\"expression\":\"1+1\",\"n\":1.5,\"deep\":{\"a\":[1,2,{\"b\":null}]}}");
  g_autoptr(Call) call = NULL;
  g_autofree char *url = g_strdup_printf ("ws://localhost:%u/devtools/browser/x", stw_test_cdp_server_get_port (server));
  g_autofree char *expected_host = g_strdup_printf ("127.0.0.1:%u", stw_test_cdp_server_get_port (server));
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  g_autofree char *params_json = NULL;
  StwTestCdpPeer *peer;

  g_test_summary ("Calls get their own replies; ids increase; params and sessionId are "
                  "sent as given; localhost is connected to as 127.0.0.1 and no Origin is sent");

  transport = stw_test_cdp_connect (url, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stw_cdp_websocket_get_url (STW_CDP_WEBSOCKET (transport)), ==, url);
  g_assert_cmpuint (stw_test_cdp_server_get_n_handshakes (server), ==, 1);
  g_assert_false (stw_test_cdp_server_get_saw_origin (server));
  g_assert_cmpstr (stw_test_cdp_server_get_host (server), ==, expected_host);
  peer = stw_test_cdp_server_get_peer (server, 0);

  /* Without params, with params, with a session. */
  result = call_sync (transport, "Browser.getVersion", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "method"), ==, "Browser.getVersion");
  g_assert_false (json_object_has_member (result, "params"));
  g_assert_false (json_object_has_member (result, "sessionId"));
  g_clear_pointer (&result, json_object_unref);

  call = call_start_with (transport, "Runtime.evaluate", params, "SESSION-1", 0, NULL);
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 1);
  call_wait (call);
  g_assert_no_error (call->error);
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (call->result, "sessionId"), ==, "SESSION-1");
  params_json = stw_json_object_to_string (json_object_get_object_member (call->result, "params"), NULL);
  g_assert_cmpstr (params_json, ==, "{\"expression\":\"1+1\",\"n\":1.5,\"deep\":{\"a\":[1,2,{\"b\":null}]}}");
  /* The caller's params are untouched. */
  g_assert_cmpuint (json_object_get_size (params), ==, 3);

  /* Many at once: each reply reaches its own call, ids increase. */
  for (guint i = 0; i < 50; i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"i\":%u}", i);
      g_ptr_array_add (calls, call_start (transport, i % 2 ? "Test.delay" : "Test.echo",
                                          i % 2 ? "{\"ms\":5}" : json, 0));
    }
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 50);
  for (guint i = 0; i < calls->len; i++)
    {
      Call *c = g_ptr_array_index (calls, i);

      call_wait (c);
      g_assert_no_error (c->error);
      if (i % 2 == 0)
        g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (c->result, "params"), "i"),
                         ==, i);
    }

  {
    gint64 last_id = 0;

    g_assert_cmpuint (stw_test_cdp_peer_get_requests (peer)->len, ==, 52);
    for (guint i = 0; i < stw_test_cdp_peer_get_requests (peer)->len; i++)
      {
        g_autoptr(JsonObject) request = stw_test_json_object_from (g_ptr_array_index (stw_test_cdp_peer_get_requests (peer), i));
        gint64 id = json_object_get_int_member (request, "id");

        g_assert_cmpint (id, >, last_id);
        last_id = id;
      }
  }
}

static void
test_websocket_timeout (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(Call) lost = NULL;
  g_autoptr(Call) lost_default = NULL;
  g_autoptr(GPtrArray) others = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);

  g_test_summary ("A reply that never comes fails with CDP_TIMEOUT after the call's "
                  "timeout, while other calls on the same socket still succeed");

  lost = call_start (transport, "Test.noReply", NULL, 300);
  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (others, call_start (transport, "Test.delay", "{\"ms\":50}", 0));

  for (guint i = 0; i < others->len; i++)
    {
      Call *c = g_ptr_array_index (others, i);

      call_wait (c);
      g_assert_no_error (c->error);
      g_assert_false (lost->done);
    }

  call_wait (lost);
  assert_stw_error (lost->error, "CDP_TIMEOUT");
  g_assert_nonnull (strstr (lost->error->message, "Test.noReply"));
  g_assert_nonnull (strstr (lost->error->message, "300 ms"));
  g_assert_true (error_is_retryable (lost->error));
  g_assert_cmpfloat (call_elapsed_ms (lost), >=, 299.0);
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);

  /* The default timeout applies to calls made with 0. */
  g_assert_cmpuint (stw_transport_get_default_timeout_ms (transport), ==, 15000);
  stw_transport_set_default_timeout_ms (transport, 120);
  g_assert_cmpuint (stw_transport_get_default_timeout_ms (transport), ==, 120);
  lost_default = call_start (transport, "Test.noReply", NULL, 0);
  call_wait (lost_default);
  assert_stw_error (lost_default->error, "CDP_TIMEOUT");
  g_assert_nonnull (strstr (lost_default->error->message, "120 ms"));
  stw_transport_set_default_timeout_ms (transport, 0);
  g_assert_cmpuint (stw_transport_get_default_timeout_ms (transport), ==, 15000);

  /* The socket is still fine. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonObject) result = call_sync (transport, "Test.echo", NULL, &error);

    g_assert_no_error (error);
    g_assert_false (stw_transport_is_closed (transport));
  }
}

static void
check_dropped (const char *method,
               const char *params,
               gboolean    expect_error)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  g_autoptr(Call) trigger = NULL;
  g_autoptr(Call) late = NULL;
  ClosedWatch watch = { 0 };

  g_signal_connect (transport, "closed", G_CALLBACK (on_transport_closed), &watch);

  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (calls, call_start (transport, "Test.noReply", NULL, 10000));
  trigger = call_start (transport, method, params, 10000);

  call_wait (trigger);
  assert_stw_error (trigger->error, "CDP_DISCONNECTED");
  g_assert_true (error_is_retryable (trigger->error));
  g_assert_nonnull (strstr (trigger->error->message, method));
  /* At once, not after the calls' timeouts. */
  g_assert_cmpfloat (call_elapsed_ms (trigger), <, deadline_ms (2000));
  for (guint i = 0; i < calls->len; i++)
    {
      Call *c = g_ptr_array_index (calls, i);

      /* Failed together, before ::closed was emitted. */
      g_assert_true (c->done);
      assert_stw_error (c->error, "CDP_DISCONNECTED");
      g_assert_nonnull (strstr (c->error->message, "Test.noReply"));
    }

  g_assert_cmpuint (watch.n_closed, ==, 1);
  g_assert_cmpuint (watch.n_pending_at_close, ==, 0);
  if (expect_error)
    {
      g_assert_nonnull (watch.error);
      g_assert_nonnull (strstr (watch.error->message, "1011"));
    }
  else
    g_assert_null (watch.error);
  g_assert_true (stw_transport_is_closed (transport));

  /* Later calls fail fast, and still asynchronously. */
  late = call_start (transport, "Test.echo", NULL, 10000);
  g_assert_false (late->done);
  call_wait (late);
  assert_stw_error (late->error, "CDP_DISCONNECTED");
  g_assert_cmpfloat (call_elapsed_ms (late), <, deadline_ms (100));

  /* Closing again, and more time passing, emits nothing more. */
  stw_transport_close (transport);
  stw_test_iterate_for (50);
  g_assert_cmpuint (watch.n_closed, ==, 1);
  closed_watch_clear (&watch);
}

static void
test_websocket_drop (void)
{
  g_test_summary ("The server drops the connection mid-call (no close frame): every pending "
                  "call fails at once with CDP_DISCONNECTED, ::closed is emitted once, and "
                  "later calls fail fast");
  check_dropped ("Test.drop", NULL, FALSE);
}

static void
test_websocket_close_codes (void)
{
  g_test_summary ("A close frame ends the connection the same way; 1000 is a clean close, "
                  "other codes are reported in ::closed");
  check_dropped ("Test.close", "{\"code\":1000}", FALSE);
  check_dropped ("Test.close", "{\"code\":1011}", TRUE);
}

static void
test_websocket_garbage (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  ClosedWatch watch = { 0 };

  g_test_summary ("Frames that are not JSON, invalid UTF-8, truncated, too deeply nested, "
                  "not objects or replies to nobody are ignored; the next reply arrives");

  g_signal_connect (transport, "closed", G_CALLBACK (on_transport_closed), &watch);

  result = call_sync (transport, "Test.garbage", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "method"), ==, "Test.garbage");
  g_clear_pointer (&result, json_object_unref);

  result = call_sync (transport, "Test.echo", NULL, &error);
  g_assert_no_error (error);
  g_assert_false (stw_transport_is_closed (transport));
  g_assert_cmpuint (watch.n_closed, ==, 0);
}

/* An empty frame is what Node's inspector sends in place of a reply it
 * cannot encode (a value nested past its encoder's depth): the calls
 * waiting fail at once, and the connection stays open. */
static void
test_websocket_empty_reply (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  gint64 started = g_get_monotonic_time ();

  result = call_sync (transport, "Test.empty", NULL, &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_CDP_DISCONNECTED);
  g_assert_nonnull (strstr (error->message, "empty message"));
  g_assert_null (result);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 2 * G_USEC_PER_SEC);
  g_assert_false (stw_transport_is_closed (transport));
  g_clear_error (&error);

  result = call_sync (transport, "Test.echo", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
}

static void
test_websocket_idless_error (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  g_autoptr(Call) trigger = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  ClosedWatch watch = { 0 };

  g_test_summary ("An error without an id cannot be matched to its call: every pending call "
                  "fails at once with CDP_DISCONNECTED, and the connection stays usable");

  g_signal_connect (transport, "closed", G_CALLBACK (on_transport_closed), &watch);

  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (calls, call_start (transport, "Test.noReply", NULL, 10000));
  trigger = call_start (transport, "Test.idless", NULL, 10000);
  call_wait (trigger);
  assert_stw_error (trigger->error, "CDP_DISCONNECTED");
  g_assert_nonnull (strstr (trigger->error->message, "-32700"));
  g_assert_nonnull (strstr (trigger->error->message, "comma or map end expected"));
  g_assert_cmpfloat (call_elapsed_ms (trigger), <, deadline_ms (2000));
  for (guint i = 0; i < calls->len; i++)
    {
      Call *c = g_ptr_array_index (calls, i);

      g_assert_true (c->done);
      assert_stw_error (c->error, "CDP_DISCONNECTED");
    }

  g_assert_false (stw_transport_is_closed (transport));
  g_assert_cmpuint (watch.n_closed, ==, 0);
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);

  result = call_sync (transport, "Test.echo", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "method"), ==, "Test.echo");
}

static void
check_big_string (JsonObject *result,
                  gsize       size)
{
  const char *data = json_object_get_string_member (result, "data");
  gsize length = strlen (data);

  g_assert_cmpuint (length, ==, size + strlen ("\u00e9\u2713"));
  for (gsize i = 0; i < size; i += 4099)
    g_assert_cmpint (data[i], ==, 'a' + (int) (i % 26));
  g_assert_cmpint (data[size - 1], ==, 'a' + (int) ((size - 1) % 26));
  g_assert_cmpstr (data + size, ==, "\u00e9\u2713");
}

static void
test_websocket_big_frame (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *params = g_strdup_printf ("{\"size\":%d}", BIG_SIZE);

  g_test_summary ("A 20 MB frame arrives intact (libsoup's default limit, 128 KiB, would "
                  "close the connection with 1009), and the connection stays up");

  result = call_sync (transport, "Test.big", params, &error);
  g_assert_no_error (error);
  check_big_string (result, BIG_SIZE);
  g_clear_pointer (&result, json_object_unref);

  result = call_sync (transport, "Test.echo", NULL, &error);
  g_assert_no_error (error);
  g_assert_false (stw_transport_is_closed (transport));
}

static void
test_websocket_surrogates (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  g_test_summary ("A lone UTF-16 surrogate arrives as U+FFFD and the next character is kept; "
                  "one that ends a string does not lose the message; pairs decode");

  result = call_sync (transport, "Test.surrogate", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "middle"), ==, "a\xef\xbf\xbd" "b");
  g_assert_cmpstr (json_object_get_string_member (result, "end"), ==, "end\xef\xbf\xbd");
  g_assert_cmpstr (json_object_get_string_member (result, "pair"), ==, "x\xf0\x9f\x98\x80y");
}

typedef struct
{
  guint       n;
  char       *method;
  char       *session_id;
  JsonObject *params;
} EventLog;

static void
on_event (StwTransport *transport,
          const char   *method,
          JsonObject   *params,
          const char   *session_id,
          EventLog     *log)
{
  g_assert_nonnull (params);
  log->n++;
  g_free (log->method);
  log->method = g_strdup (method);
  g_free (log->session_id);
  log->session_id = g_strdup (session_id);
  g_clear_pointer (&log->params, json_object_unref);
  log->params = json_object_ref (params);
}

static void
event_log_clear (EventLog *log)
{
  g_clear_pointer (&log->method, g_free);
  g_clear_pointer (&log->session_id, g_free);
  g_clear_pointer (&log->params, json_object_unref);
}

static void
check_events (StwTransport *transport)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  EventLog attached = { 0 }, loaded = { 0 }, console = { 0 }, unrelated = { 0 }, all = { 0 };

  g_signal_connect (transport, "event::Target.attachedToTarget", G_CALLBACK (on_event), &attached);
  g_signal_connect (transport, "event::Page.loadEventFired", G_CALLBACK (on_event), &loaded);
  g_signal_connect (transport, "event::Runtime.consoleAPICalled", G_CALLBACK (on_event), &console);
  g_signal_connect (transport, "event::Page.frameNavigated", G_CALLBACK (on_event), &unrelated);
  g_signal_connect (transport, "event", G_CALLBACK (on_event), &all);

  result = call_sync (transport, "Test.events", NULL, &error);
  g_assert_no_error (error);

  /* Events sent before the reply were emitted before the call completed. */
  g_assert_cmpuint (attached.n, ==, 1);
  g_assert_cmpstr (attached.method, ==, "Target.attachedToTarget");
  g_assert_null (attached.session_id);
  g_assert_cmpstr (json_object_get_string_member (attached.params, "sessionId"), ==, "S1");

  g_assert_cmpuint (loaded.n, ==, 1);
  g_assert_cmpstr (loaded.session_id, ==, "S1");
  g_assert_cmpfloat (json_object_get_double_member (loaded.params, "timestamp"), ==, 1.5);

  g_assert_cmpuint (console.n, ==, 1);
  g_assert_cmpstr (console.session_id, ==, "S2");
  g_assert_cmpuint (json_object_get_size (console.params), ==, 0);

  g_assert_cmpuint (unrelated.n, ==, 0);
  g_assert_cmpuint (all.n, ==, 4);
  g_assert_cmpstr (all.method, ==, "Nobody.listensToThis");
  /* Unknown methods do not grow the quark table. */
  g_assert_cmpuint (g_quark_try_string ("Nobody.listensToThis"), ==, 0);

  g_signal_handlers_disconnect_by_func (transport, on_event, &attached);
  g_signal_handlers_disconnect_by_func (transport, on_event, &loaded);
  g_signal_handlers_disconnect_by_func (transport, on_event, &console);
  g_signal_handlers_disconnect_by_func (transport, on_event, &unrelated);
  g_signal_handlers_disconnect_by_func (transport, on_event, &all);
  event_log_clear (&attached);
  event_log_clear (&loaded);
  event_log_clear (&console);
  event_log_clear (&unrelated);
  event_log_clear (&all);
}

static void
test_websocket_events (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);

  g_test_summary ("Events reach event::Method.name handlers only for their method, with "
                  "params (an empty object when absent) and sessionId");
  check_events (transport);
}

static void
test_websocket_cdp_error (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  g_test_summary ("An error reply becomes an STW_CDP_ERROR with the peer's code and message "
                  "(and its data, when it has some)");

  result = call_sync (transport, "Test.error", NULL, &error);
  g_assert_null (result);
  g_assert_error (error, STW_CDP_ERROR, STW_CDP_ERROR_METHOD_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "'Test.error' wasn't found");
  g_clear_error (&error);

  result = call_sync (transport, "Test.error", "{\"data\":\"Failed to deserialize params.nodeId\"}", &error);
  g_assert_null (result);
  g_assert_error (error, STW_CDP_ERROR, STW_CDP_ERROR_INVALID_PARAMS);
  g_assert_cmpstr (error->message, ==, "Invalid parameters (Failed to deserialize params.nodeId)");
  g_clear_error (&error);

  result = call_sync (transport, "Test.echo", NULL, &error);
  g_assert_no_error (error);
}

static gboolean
cancel_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
test_websocket_cancel (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) params = stw_test_json_object_from ("{\"ms\":150}");
  g_autoptr(Call) call = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  StwTestCdpPeer *peer = stw_test_cdp_server_get_peer (server, 0);

  g_test_summary ("A cancelled call fails with G_IO_ERROR_CANCELLED and leaves the table; "
                  "its late reply is ignored");

  /* Cancelled before it starts: nothing is sent. */
  g_cancellable_cancel (cancelled);
  call = call_start_with (transport, "Test.echo", NULL, NULL, 0, cancelled);
  g_assert_false (call->done);
  call_wait (call);
  g_assert_error (call->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_pointer (&call, call_free);
  g_assert_cmpuint (stw_test_cdp_peer_get_methods (peer)->len, ==, 0);

  /* Cancelled in flight. */
  call = call_start_with (transport, "Test.delay", params, NULL, 0, cancellable);
  g_timeout_add (20, cancel_cb, cancellable);
  call_wait (call);
  g_assert_error (call->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpfloat (call_elapsed_ms (call), <, 150.0);
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);

  /* The reply comes anyway, to nobody. */
  stw_test_iterate_for (250);
  g_assert_cmpuint (stw_test_cdp_peer_get_methods (peer)->len, ==, 1);
  result = call_sync (transport, "Test.echo", NULL, &error);
  g_assert_no_error (error);
}

static void
test_websocket_deadline (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GCancellable) caller = g_cancellable_new ();
  g_autoptr(GCancellable) deadline = NULL;
  g_autoptr(GCancellable) inner = NULL;
  g_autoptr(JsonObject) slow = stw_test_json_object_from ("{\"ms\":50}");
  g_autoptr(Call) lost = NULL;
  g_autoptr(Call) quick = NULL;
  g_autoptr(Call) late = NULL;
  g_autoptr(Call) nested = NULL;
  g_autoptr(JsonObject) details = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  StwTestCdpPeer *peer = stw_test_cdp_server_get_peer (server, 0);
  gint64 made_us;

  g_test_summary ("A cancellable that carries a call's deadline cuts the reply timeout of every command "
                  "started with it: no reply is awaited past the deadline, and nothing is sent after it");

  /* A command that would outlive the deadline fails at it (the timeout and
   * its grace), not after its own 15 s; one that answers in time works. */
  made_us = g_get_monotonic_time ();
  deadline = _stw_deadline_new (caller, 100);
  inner = _stw_deadline_new (deadline, 60000);
  quick = call_start_with (transport, "Test.delay", slow, NULL, 0, deadline);
  lost = call_start_with (transport, "Test.noReply", NULL, NULL, 0, deadline);
  call_wait (quick);
  g_assert_no_error (quick->error);
  call_wait (lost);
  assert_stw_error (lost->error, "CDP_TIMEOUT");
  g_assert_true (error_is_retryable (lost->error));
  g_assert_nonnull (strstr (lost->error->message, "Test.noReply"));
  g_assert_nonnull (strstr (lost->error->message, "100 ms"));
  details = json_object_ref (stw_error_get_details (lost->error));
  g_assert_cmpint (json_object_get_int_member (details, "timeout_ms"), ==, 100);
  g_assert_cmpint (lost->done_us - made_us, >=, (100 + STW_DEADLINE_GRACE_MS) * 1000);
  g_assert_cmpfloat (call_elapsed_ms (lost), <, deadline_ms (100 + STW_DEADLINE_GRACE_MS + 1000));
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);
  g_assert_true (_stw_deadline_has_passed (deadline));

  /* Past the deadline: failed at once, never sent, even under a deadline
   * of its own that would allow it. */
  late = call_start_with (transport, "Test.echo", NULL, NULL, 0, deadline);
  nested = call_start_with (transport, "Test.echo", NULL, NULL, 0, inner);
  call_wait (late);
  call_wait (nested);
  assert_stw_error (late->error, "CDP_TIMEOUT");
  assert_stw_error (nested->error, "CDP_TIMEOUT");
  g_assert_cmpfloat (call_elapsed_ms (late), <, deadline_ms (100));
  stw_test_iterate_for (50);
  g_assert_cmpuint (stw_test_cdp_peer_get_methods (peer)->len, ==, 2);
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);

  /* The caller's cancellation reaches the deadline's commands. */
  g_clear_pointer (&late, call_free);
  g_clear_object (&deadline);
  deadline = _stw_deadline_new (caller, 60000);
  late = call_start_with (transport, "Test.noReply", NULL, NULL, 0, deadline);
  g_timeout_add (20, cancel_cb, caller);
  call_wait (late);
  g_assert_error (late->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpfloat (call_elapsed_ms (late), <, deadline_ms (1000));
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);
  g_clear_object (&deadline);

  /* A plain cancellable leaves the timeout alone, and the socket is fine. */
  result = call_sync (transport, "Test.echo", NULL, &error);
  g_assert_no_error (error);
}

static void
test_websocket_refused (void)
{
  const char *urls[] = {
    "ws://example.com:9222/devtools/browser/x",
    "ws://10.0.0.1:9222/devtools/browser/x",
    "ws://127.0.0.1.nip.io:9222/",
    "http://127.0.0.1:9222/json/version",
    "file:///etc/passwd",
    "ws://",
    "not a url",
  };
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) any = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwTransport) transport = NULL;
  g_autofree char *url = NULL;
  double elapsed = 0;

  g_test_summary ("Non-loopback and non-WebSocket URLs are refused with BAD_ARGUMENT; a "
                  "closed port fails quickly with CDP_DISCONNECTED");

  for (guint i = 0; i < G_N_ELEMENTS (urls); i++)
    {
      transport = stw_test_cdp_connect (urls[i], 0, NULL, NULL, &error);
      g_assert_null (transport);
      assert_stw_error (error, "BAD_ARGUMENT");
      g_clear_error (&error);
    }

  /* A port nobody listens on. */
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  any = g_inet_socket_address_new (loopback, 0);
  g_socket_bind (socket, any, FALSE, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  url = g_strdup_printf ("ws://127.0.0.1:%u/devtools/browser/gone",
                         g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  g_socket_close (socket, NULL);

  transport = stw_test_cdp_connect (url, 5000, NULL, &elapsed, &error);
  g_assert_null (transport);
  assert_stw_error (error, "CDP_DISCONNECTED");
  g_assert_true (error_is_retryable (error));
  g_assert_cmpfloat (elapsed, <, deadline_ms (1000));
}

static void
test_websocket_connect_timeout (void)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) any = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StwTransport) transport = NULL;
  g_autofree char *url = NULL;
  double elapsed = 0;

  g_test_summary ("An endpoint that accepts but never answers the handshake fails with "
                  "CDP_TIMEOUT after the connect timeout; cancelling gives G_IO_ERROR_CANCELLED");

  /* Listening but never accepting: the kernel completes the TCP handshake,
   * nobody answers the HTTP upgrade. */
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  any = g_inet_socket_address_new (loopback, 0);
  g_socket_bind (socket, any, FALSE, &error);
  g_assert_no_error (error);
  g_socket_listen (socket, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  url = g_strdup_printf ("ws://127.0.0.1:%u/devtools/browser/silent",
                         g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));

  transport = stw_test_cdp_connect (url, 200, NULL, &elapsed, &error);
  g_assert_null (transport);
  assert_stw_error (error, "CDP_TIMEOUT");
  g_assert_nonnull (strstr (error->message, "200 ms"));
  g_assert_cmpfloat (elapsed, >=, 199.0);
  g_assert_cmpfloat (elapsed, <, deadline_ms (2000));
  g_clear_error (&error);

  g_timeout_add (50, cancel_cb, cancellable);
  transport = stw_test_cdp_connect (url, 5000, cancellable, &elapsed, &error);
  g_assert_null (transport);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpfloat (elapsed, <, deadline_ms (2000));

  g_socket_close (socket, NULL);
}

static void
test_websocket_two_servers (void)
{
  g_autoptr(StwTestCdpServer) server_a = stw_test_cdp_server_new ();
  g_autoptr(StwTestCdpServer) server_b = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) a = stw_test_cdp_server_connect (server_a);
  g_autoptr(StwTransport) b = stw_test_cdp_server_connect (server_b);
  g_autoptr(Call) pending_a = NULL;
  g_autoptr(Call) pending_b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  ClosedWatch watch_a = { 0 }, watch_b = { 0 };

  g_test_summary ("Two transports to two servers: killing one fails only its calls; the "
                  "other keeps serving");

  g_signal_connect (a, "closed", G_CALLBACK (on_transport_closed), &watch_a);
  g_signal_connect (b, "closed", G_CALLBACK (on_transport_closed), &watch_b);

  pending_a = call_start (a, "Test.delay", "{\"ms\":200}", 10000);
  pending_b = call_start (b, "Test.delay", "{\"ms\":200}", 10000);
  stw_test_iterate_for (20);

  stw_test_cdp_server_kill (server_a);
  call_wait (pending_a);
  assert_stw_error (pending_a->error, "CDP_DISCONNECTED");
  g_assert_cmpuint (watch_a.n_closed, ==, 1);

  call_wait (pending_b);
  g_assert_no_error (pending_b->error);
  for (guint i = 0; i < 10; i++)
    {
      result = call_sync (b, "Test.echo", NULL, &error);
      g_assert_no_error (error);
      g_clear_pointer (&result, json_object_unref);
    }
  g_assert_cmpuint (watch_b.n_closed, ==, 0);
  g_assert_false (stw_transport_is_closed (b));

  /* The killed server's port is gone too. */
  g_assert_null (stw_test_cdp_connect (stw_test_cdp_server_get_url (server_a), 2000, NULL, NULL, &error));
  assert_stw_error (error, "CDP_DISCONNECTED");

  closed_watch_clear (&watch_a);
  closed_watch_clear (&watch_b);
}

static void
wait_ws_closed (SoupWebsocketConnection *connection)
{
  gint64 deadline = g_get_monotonic_time () + deadline_ms (2000) * G_TIME_SPAN_MILLISECOND;

  while (soup_websocket_connection_get_state (connection) != SOUP_WEBSOCKET_STATE_CLOSED &&
         g_get_monotonic_time () < deadline)
    stw_test_iterate_for (5);
  g_assert_cmpint (soup_websocket_connection_get_state (connection), ==, SOUP_WEBSOCKET_STATE_CLOSED);
}

static void
test_websocket_close (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  StwTransport *transport = stw_test_cdp_server_connect (server);
  StwTransport *second;
  g_autoptr(Call) pending = NULL;
  g_autoptr(Call) late = NULL;
  ClosedWatch watch = { 0 };
  SoupWebsocketConnection *connection;
  GWeakRef weak;

  g_test_summary ("stw_transport_close() fails pending calls, emits ::closed once with no "
                  "error and closes the socket; dropping the last reference closes too");

  g_signal_connect (transport, "closed", G_CALLBACK (on_transport_closed), &watch);
  pending = call_start (transport, "Test.noReply", NULL, 10000);
  stw_test_iterate_for (10);

  stw_transport_close (transport);
  g_assert_cmpuint (watch.n_closed, ==, 1);
  g_assert_null (watch.error);
  g_assert_true (stw_transport_is_closed (transport));
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);
  /* The callback runs from the main loop, not inside close(). */
  g_assert_false (pending->done);
  call_wait (pending);
  assert_stw_error (pending->error, "CDP_DISCONNECTED");

  late = call_start (transport, "Test.echo", NULL, 0);
  call_wait (late);
  assert_stw_error (late->error, "CDP_DISCONNECTED");

  connection = stw_test_cdp_peer_get_connection (stw_test_cdp_server_get_peer (server, 0));
  wait_ws_closed (connection);
  g_assert_cmpuint (soup_websocket_connection_get_close_code (connection), ==,
                    SOUP_WEBSOCKET_CLOSE_NORMAL);
  g_object_unref (transport);
  g_assert_cmpuint (watch.n_closed, ==, 1);

  /* An open transport with nothing pending: the last unref closes it. */
  second = stw_test_cdp_server_connect (server);
  g_weak_ref_init (&weak, second);
  g_object_unref (second);
  g_assert_null (g_weak_ref_get (&weak));
  g_weak_ref_clear (&weak);
  connection = stw_test_cdp_peer_get_connection (stw_test_cdp_server_get_peer (server, 1));
  wait_ws_closed (connection);
}

static void
test_websocket_dispose_pending (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  StwTransport *transport = stw_test_cdp_server_connect (server);
  g_autoptr(Call) pending = NULL;
  ClosedWatch watch = { 0 };
  GWeakRef weak;

  g_test_summary ("A pending call keeps its transport alive; g_object_run_dispose() fails it "
                  "exactly once, from the main loop");

  g_signal_connect (transport, "closed", G_CALLBACK (on_transport_closed), &watch);
  g_weak_ref_init (&weak, transport);
  pending = call_start (transport, "Test.noReply", NULL, 10000);
  g_object_unref (transport);

  /* Still alive: the pending task holds it. */
  transport = g_weak_ref_get (&weak);
  g_assert_nonnull (transport);
  g_weak_ref_clear (&weak);
  g_object_run_dispose (G_OBJECT (transport));
  g_assert_cmpuint (watch.n_closed, ==, 1);
  g_assert_false (pending->done);
  g_object_unref (transport);

  /* The callback (which drops the task's reference, the last one) runs
   * once; valgrind checks that nothing leaks. */
  call_wait (pending);
  assert_stw_error (pending->error, "CDP_DISCONNECTED");
  stw_test_iterate_for (10);
}

static void
test_websocket_contexts (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(Call) answered = NULL;
  g_autoptr(Call) timed_out = NULL;
  g_autoptr(Call) disconnected = NULL;
  StwTestCdpPeer *peer = stw_test_cdp_server_get_peer (server, 0);

  g_test_summary ("Each call completes in the thread-default main context it was made in, "
                  "whichever context reads the socket: replies, timeouts and disconnection");

  g_main_context_push_thread_default (context);
  answered = call_start (transport, "Test.echo", NULL, 0);
  timed_out = call_start (transport, "Test.noReply", NULL, 50);
  disconnected = call_start (transport, "Test.noReply", NULL, 10000);
  g_main_context_pop_thread_default (context);

  /* The socket is read from the default context: the replies arrive, but
   * the callbacks wait for their own context. */
  stw_test_iterate_for (100);
  g_assert_cmpuint (stw_test_cdp_peer_get_methods (peer)->len, ==, 3);
  g_assert_false (answered->done);
  g_assert_false (timed_out->done);
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 2);

  while (!answered->done || !timed_out->done)
    g_main_context_iteration (context, TRUE);
  g_assert_no_error (answered->error);
  assert_stw_error (timed_out->error, "CDP_TIMEOUT");
  g_assert_false (disconnected->done);

  stw_transport_close (transport);
  stw_test_iterate_for (20);
  g_assert_false (disconnected->done);
  while (!disconnected->done)
    g_main_context_iteration (context, TRUE);
  assert_stw_error (disconnected->error, "CDP_DISCONNECTED");
}

static void
test_websocket_notification (void)
{
  g_autoptr(StwTestCdpServer) server = stw_test_cdp_server_new ();
  g_autoptr(StwTransport) transport = stw_test_cdp_server_connect (server);
  g_autoptr(JsonObject) params = stw_test_json_object_from ("{\"x\":1}");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  StwTestCdpPeer *peer = stw_test_cdp_server_get_peer (server, 0);

  g_test_summary ("send_notification() sends without waiting; its reply and its error are "
                  "dropped");

  stw_transport_send_notification (transport, "Runtime.runIfWaitingForDebugger", params, "S1");
  stw_transport_send_notification (transport, "Test.error", NULL, NULL);
  g_assert_cmpuint (stw_transport_get_n_pending (transport), ==, 0);
  result = call_sync (transport, "Test.echo", NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (stw_test_cdp_peer_get_methods (peer)->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (stw_test_cdp_peer_get_methods (peer), 0), ==, "Runtime.runIfWaitingForDebugger");
  {
    g_autoptr(JsonObject) request = stw_test_json_object_from (g_ptr_array_index (stw_test_cdp_peer_get_requests (peer), 0));

    g_assert_true (json_object_has_member (request, "id"));
    g_assert_cmpstr (json_object_get_string_member (request, "sessionId"), ==, "S1");
  }

  stw_transport_close (transport);
  stw_transport_send_notification (transport, "Test.echo", NULL, NULL);
}

typedef struct
{
  StwTestCdpPeer *peer;
  StwTransport   *transport;
} PipePair;

static PipePair
pipe_pair_new (void)
{
  PipePair pair;

  pair.peer = stw_test_cdp_peer_new_pipe (&pair.transport);
  return pair;
}

static void
pipe_pair_clear (PipePair *pair)
{
  g_clear_object (&pair->transport);
  g_clear_pointer (&pair->peer, stw_test_cdp_peer_free);
}

static void
test_pipe_echo (void)
{
  PipePair pair = pipe_pair_new ();
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  g_test_summary ("Calls over a pipe pair: replies reach their calls, records go out in "
                  "order, events are dispatched");

  result = call_sync (pair.transport, "Browser.getVersion", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "method"), ==, "Browser.getVersion");

  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"i\":%u}", i);
      g_ptr_array_add (calls, call_start (pair.transport, "Test.echo", json, 0));
    }
  for (guint i = 0; i < calls->len; i++)
    {
      Call *c = g_ptr_array_index (calls, i);

      call_wait (c);
      g_assert_no_error (c->error);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (c->result, "params"), "i"),
                       ==, i);
    }
  /* In the order they were made. */
  for (guint i = 1; i < stw_test_cdp_peer_get_requests (pair.peer)->len; i++)
    {
      g_autoptr(JsonObject) a = stw_test_json_object_from (g_ptr_array_index (stw_test_cdp_peer_get_requests (pair.peer), i - 1));
      g_autoptr(JsonObject) b = stw_test_json_object_from (g_ptr_array_index (stw_test_cdp_peer_get_requests (pair.peer), i));

      g_assert_cmpint (json_object_get_int_member (a, "id") + 1, ==, json_object_get_int_member (b, "id"));
    }

  check_events (pair.transport);

  pipe_pair_clear (&pair);
}

static void
test_pipe_split_records (void)
{
  PipePair pair = pipe_pair_new ();
  g_autoptr(Call) split = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  EventLog first = { 0 }, second = { 0 }, after = { 0 };

  g_test_summary ("Records split across reads, several records in one read, and garbage "
                  "records are all handled");

  g_signal_connect (pair.transport, "event::Test.first", G_CALLBACK (on_event), &first);
  g_signal_connect (pair.transport, "event::Test.second", G_CALLBACK (on_event), &second);
  g_signal_connect (pair.transport, "event::Test.afterSplit", G_CALLBACK (on_event), &after);

  split = call_start (pair.transport, "Test.split", "{\"pad\":\"0123456789012345678901234567890123456789\"}", 0);
  /* The first third is there, the rest is not. */
  stw_test_iterate_for (15);
  g_assert_cmpuint (stw_test_cdp_peer_get_methods (pair.peer)->len, ==, 1);
  g_assert_false (split->done);
  call_wait (split);
  g_assert_no_error (split->error);
  g_assert_cmpstr (json_object_get_string_member (split->result, "method"), ==, "Test.split");
  /* The event came in the same read, after the reply. */
  g_assert_cmpuint (after.n, ==, 1);

  result = call_sync (pair.transport, "Test.batch", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (first.n, ==, 1);
  g_assert_cmpuint (second.n, ==, 1);
  g_clear_pointer (&result, json_object_unref);

  result = call_sync (pair.transport, "Test.garbage", NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&result, json_object_unref);
  g_assert_false (stw_transport_is_closed (pair.transport));

  g_signal_handlers_disconnect_by_func (pair.transport, on_event, &first);
  g_signal_handlers_disconnect_by_func (pair.transport, on_event, &second);
  g_signal_handlers_disconnect_by_func (pair.transport, on_event, &after);
  event_log_clear (&first);
  event_log_clear (&second);
  event_log_clear (&after);
  pipe_pair_clear (&pair);
}

/* A reply too deep to read fails its own call at once, by the id at its
 * start, rather than leave it to its timeout; the transport stays open. */
static void
test_pipe_deep_reply (void)
{
  PipePair pair = pipe_pair_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(Call) late = NULL;
  gint64 started;

  started = g_get_monotonic_time ();
  result = call_sync (pair.transport, "Test.deep", "{\"depth\": 300}", &error);
  g_assert_error (error, STW_ERROR, STW_ERROR_INTERNAL_ERROR);
  g_assert_nonnull (strstr (error->message, "Test.deep"));
  g_assert_null (result);
  /* The call's timeout is seconds away. */
  g_assert_cmpint (g_get_monotonic_time () - started, <, 2 * G_USEC_PER_SEC);
  g_assert_false (stw_transport_is_closed (pair.transport));
  g_clear_error (&error);

  /* Within the bound: read as usual. */
  result = call_sync (pair.transport, "Test.deep", "{\"depth\": 100}", &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_clear_pointer (&result, json_object_unref);

  /* An id that is not at the start is not guessed at: that call waits
   * for its own timeout. */
  late = call_start (pair.transport, "Test.deep", "{\"depth\": 300, \"id_last\": true}", 300);
  stw_test_iterate_for (100);
  g_assert_false (late->done);
  call_wait (late);
  g_assert_error (late->error, STW_ERROR, STW_ERROR_CDP_TIMEOUT);

  pipe_pair_clear (&pair);
}

static void
test_pipe_big (void)
{
  PipePair pair = pipe_pair_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  g_autofree char *blob = g_malloc (5 * 1024 * 1024 + 1);
  g_autofree char *big_params = g_strdup_printf ("{\"size\":%d}", BIG_SIZE);

  g_test_summary ("A 20 MB record arrives intact through many reads; 5 MB requests go out "
                  "through the write queue in order, without blocking the main loop");

  result = call_sync (pair.transport, "Test.big", big_params, &error);
  g_assert_no_error (error);
  check_big_string (result, BIG_SIZE);
  g_clear_pointer (&result, json_object_unref);

  memset (blob, 'z', 5 * 1024 * 1024);
  blob[5 * 1024 * 1024] = '\0';
  json_object_set_string_member (params, "blob", blob);
  for (guint i = 0; i < 4; i++)
    g_ptr_array_add (calls, call_start_with (pair.transport, "Test.echo",
                                             i % 2 == 0 ? params : NULL, NULL, 0, NULL));
  for (guint i = 0; i < calls->len; i++)
    {
      Call *c = g_ptr_array_index (calls, i);

      call_wait (c);
      g_assert_no_error (c->error);
      if (i % 2 == 0)
        {
          JsonObject *echoed = json_object_get_object_member (c->result, "params");

          g_assert_cmpuint (strlen (json_object_get_string_member (echoed, "blob")), ==, 5 * 1024 * 1024);
        }
    }
  for (guint i = 0; i < calls->len; i++)
    {
      g_autoptr(JsonObject) request = stw_test_json_object_from (g_ptr_array_index (stw_test_cdp_peer_get_requests (pair.peer), i + 1));

      g_assert_cmpint (json_object_has_member (request, "params"), ==, i % 2 == 0);
    }
  pipe_pair_clear (&pair);
}

static void
test_pipe_eof (void)
{
  PipePair pair = pipe_pair_new ();
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  g_autoptr(Call) trigger = NULL;
  g_autoptr(Call) late = NULL;
  ClosedWatch watch = { 0 };

  g_test_summary ("End of file on the pipe: pending calls fail at once with "
                  "CDP_DISCONNECTED, ::closed is emitted once with no error");

  g_signal_connect (pair.transport, "closed", G_CALLBACK (on_transport_closed), &watch);
  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (calls, call_start (pair.transport, "Test.noReply", NULL, 10000));
  trigger = call_start (pair.transport, "Test.drop", NULL, 10000);
  call_wait (trigger);
  assert_stw_error (trigger->error, "CDP_DISCONNECTED");
  g_assert_cmpfloat (call_elapsed_ms (trigger), <, deadline_ms (2000));
  for (guint i = 0; i < calls->len; i++)
    {
      Call *c = g_ptr_array_index (calls, i);

      g_assert_true (c->done);
      assert_stw_error (c->error, "CDP_DISCONNECTED");
    }
  g_assert_cmpuint (watch.n_closed, ==, 1);
  g_assert_null (watch.error);
  g_assert_true (stw_transport_is_closed (pair.transport));

  late = call_start (pair.transport, "Test.echo", NULL, 0);
  call_wait (late);
  assert_stw_error (late->error, "CDP_DISCONNECTED");
  stw_test_iterate_for (20);
  g_assert_cmpuint (watch.n_closed, ==, 1);

  closed_watch_clear (&watch);
  pipe_pair_clear (&pair);
}

static void
test_pipe_close (void)
{
  PipePair pair = pipe_pair_new ();
  g_autoptr(Call) pending = NULL;
  ClosedWatch watch = { 0 };
  gsize n_before;

  g_test_summary ("Closing the pipe transport fails pending calls and closes its end, so the "
                  "peer sees end of file");

  g_signal_connect (pair.transport, "closed", G_CALLBACK (on_transport_closed), &watch);
  pending = call_start (pair.transport, "Test.noReply", NULL, 10000);
  while (stw_test_cdp_peer_get_methods (pair.peer)->len == 0)
    g_main_context_iteration (NULL, TRUE);
  n_before = stw_test_cdp_peer_get_n_in_flight (pair.peer);
  g_assert_cmpuint (n_before, ==, 1);

  stw_transport_close (pair.transport);
  g_assert_cmpuint (watch.n_closed, ==, 1);
  call_wait (pending);
  assert_stw_error (pending->error, "CDP_DISCONNECTED");

  /* The peer's read ends: end of file. */
  {
    gint64 deadline = g_get_monotonic_time () + deadline_ms (2000) * G_TIME_SPAN_MILLISECOND;

    while (stw_test_cdp_peer_get_n_in_flight (pair.peer) > 0 && g_get_monotonic_time () < deadline)
      stw_test_iterate_for (5);
    g_assert_cmpuint (stw_test_cdp_peer_get_n_in_flight (pair.peer), ==, 0);
  }

  closed_watch_clear (&watch);
  pipe_pair_clear (&pair);
}

/* --- real Chromium ------------------------------------------------------- */

typedef struct
{
  GSubprocess      *process;
  char             *tmpdir;
  StwTransport     *transport;
  GDataInputStream *stderr_lines;
  char             *ws_url;
  pid_t             pgid;
  gboolean          stderr_done;
  gboolean          exited;
} Browser;

static void
child_setup (gpointer data)
{
  /* Own process group, and die with the test. */
  setpgid (0, 0);
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static gboolean
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);

  if (dir != NULL)
    {
      const char *name;

      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_tree (child);
          else
            g_unlink (child);
        }
      g_dir_close (dir);
    }
  return g_rmdir (path) == 0 || errno == ENOENT;
}

static void
read_stderr_line_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Browser *browser = user_data;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source),
                                                                result, NULL, NULL);
  const char *prefix = "DevTools listening on ";

  if (line == NULL)
    {
      browser->stderr_done = TRUE;
      return;
    }
  if (browser->ws_url == NULL && g_str_has_prefix (line, prefix))
    browser->ws_url = g_strdup (line + strlen (prefix));

  /* Keep draining for the browser's whole life (field notes §6.4). */
  g_data_input_stream_read_line_async (G_DATA_INPUT_STREAM (source), G_PRIORITY_DEFAULT,
                                       NULL, read_stderr_line_cb, browser);
}

static void
process_exited_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Browser *browser = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  browser->exited = TRUE;
}

static Browser *
browser_launch (gboolean use_pipe)
{
  Browser *browser = g_new0 (Browser, 1);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *profile = NULL;
  g_autofree char *config = NULL;
  g_autofree char *user_data_dir = NULL;
  int to_child[2] = { -1, -1 }, from_child[2] = { -1, -1 };

  browser->tmpdir = g_dir_make_tmp ("stw-test-transport-XXXXXX", &error);
  g_assert_no_error (error);
  profile = g_build_filename (browser->tmpdir, "profile", NULL);
  config = g_build_filename (browser->tmpdir, "config", NULL);
  user_data_dir = g_strconcat ("--user-data-dir=", profile, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        (use_pipe ? G_SUBPROCESS_FLAGS_STDERR_SILENCE
                                                  : G_SUBPROCESS_FLAGS_STDERR_PIPE));
  /* Everything Chromium writes stays in the one directory we remove:
   * ~/.pki, crashpad's database under XDG_CONFIG_HOME, its singleton
   * files under TMPDIR (field notes §6.8–9). */
  g_subprocess_launcher_setenv (launcher, "HOME", browser->tmpdir, TRUE);
  g_subprocess_launcher_setenv (launcher, "TMPDIR", browser->tmpdir, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", config, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CACHE_HOME", config, TRUE);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);

  if (use_pipe)
    {
      g_unix_open_pipe (to_child, FD_CLOEXEC, &error);
      g_assert_no_error (error);
      g_unix_open_pipe (from_child, FD_CLOEXEC, &error);
      g_assert_no_error (error);
      g_subprocess_launcher_take_fd (launcher, to_child[0], 3);
      g_subprocess_launcher_take_fd (launcher, from_child[1], 4);
    }

  browser->process = g_subprocess_launcher_spawn (launcher, &error,
                                                  CHROMIUM,
                                                  "--headless", "--no-sandbox", "--disable-gpu",
                                                  "--no-first-run", "--disable-background-networking",
                                                  "--disable-component-update", "--disable-sync",
                                                  "--log-level=3",
                                                  use_pipe ? "--remote-debugging-pipe"
                                                           : "--remote-debugging-port=0",
                                                  user_data_dir, "about:blank", NULL);
  g_assert_no_error (error);
  browser->pgid = (pid_t) g_ascii_strtoll (g_subprocess_get_identifier (browser->process), NULL, 10);
  /* The launcher holds the child's ends until it goes: without this, end
   * of file would never come. */
  g_clear_object (&launcher);

  g_subprocess_wait_async (browser->process, NULL, process_exited_cb, browser);

  if (use_pipe)
    {
      g_autoptr(GInputStream) input = g_unix_input_stream_new (from_child[0], TRUE);
      g_autoptr(GOutputStream) output = g_unix_output_stream_new (to_child[1], TRUE);

      browser->transport = stw_cdp_pipe_new (input, output);
      browser->stderr_done = TRUE;
    }
  else
    {
      double elapsed = 0;

      browser->stderr_lines = g_data_input_stream_new (g_subprocess_get_stderr_pipe (browser->process));
      g_data_input_stream_read_line_async (browser->stderr_lines, G_PRIORITY_DEFAULT, NULL,
                                           read_stderr_line_cb, browser);
      while (browser->ws_url == NULL && !browser->stderr_done)
        g_main_context_iteration (NULL, TRUE);
      g_assert_nonnull (browser->ws_url);
      g_assert_true (g_str_has_prefix (browser->ws_url, "ws://127.0.0.1:"));

      browser->transport = stw_test_cdp_connect (browser->ws_url, 10000, NULL, &elapsed, &error);
      g_assert_no_error (error);
      g_test_message ("websocket: connected in %.1f ms", elapsed);
    }

  return browser;
}

static void
browser_close (Browser *browser)
{
  g_autoptr(Call) close_call = NULL;
  ClosedWatch watch = { 0 };
  gboolean closed = FALSE;

  g_signal_connect (browser->transport, "closed", G_CALLBACK (on_transport_closed), &watch);
  g_signal_connect_swapped (browser->transport, "closed", G_CALLBACK (set_flag_cb), &closed);

  close_call = call_start (browser->transport, "Browser.close", NULL, 5000);
  call_wait (close_call);
  /* The reply may or may not make it out before the channel closes. */
  if (close_call->error != NULL)
    assert_stw_error (close_call->error, "CDP_DISCONNECTED");
  g_assert_true (stw_test_wait_until (&closed, deadline_ms (5000)));
  g_assert_cmpuint (watch.n_closed, ==, 1);
  closed_watch_clear (&watch);

  if (!stw_test_wait_until (&browser->exited, 10000))
    {
      g_test_message ("chromium did not exit after Browser.close; killing it");
      g_subprocess_force_exit (browser->process);
      stw_test_wait_until (&browser->exited, 5000);
    }
  g_assert_true (browser->exited);
  g_assert_true (stw_test_wait_until (&browser->stderr_done, 5000));

  /* Its helpers write to the profile for a moment after the browser exits
   * (field notes §6.9): wait for the group, then remove the directory. */
  if (browser->pgid > 0)
    {
      gint64 deadline = g_get_monotonic_time () + 3 * G_TIME_SPAN_SECOND;

      while (kill (-browser->pgid, 0) == 0 && g_get_monotonic_time () < deadline)
        stw_test_iterate_for (20);
      kill (-browser->pgid, SIGKILL);
    }
  for (guint i = 0; i < 50 && !remove_tree (browser->tmpdir); i++)
    stw_test_iterate_for (20);
  g_assert_false (g_file_test (browser->tmpdir, G_FILE_TEST_EXISTS));

  g_clear_object (&browser->transport);
  g_clear_object (&browser->stderr_lines);
  g_clear_object (&browser->process);
  g_free (browser->ws_url);
  g_free (browser->tmpdir);
  g_free (browser);
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* Attaches to the about:blank page with a flat session and times
 * Runtime.evaluate 1+1, one call after the other. */
static void
measure_eval (StwTransport *transport,
              const char   *label)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) attach_params = json_object_new ();
  g_autoptr(JsonObject) eval_params = json_object_new ();
  g_autoptr(JsonObject) attached = NULL;
  g_autofree char *target_id = NULL;
  const char *session_id;
  gint64 samples[200];

  for (guint attempt = 0; attempt < 50 && target_id == NULL; attempt++)
    {
      g_autoptr(JsonObject) targets = call_sync (transport, "Target.getTargets", NULL, &error);
      JsonArray *infos;

      g_assert_no_error (error);
      infos = json_object_get_array_member (targets, "targetInfos");
      for (guint i = 0; i < json_array_get_length (infos); i++)
        {
          JsonObject *info = json_array_get_object_element (infos, i);

          if (g_str_equal (json_object_get_string_member (info, "type"), "page") &&
              g_str_equal (json_object_get_string_member (info, "url"), "about:blank"))
            target_id = g_strdup (json_object_get_string_member (info, "targetId"));
        }
      if (target_id == NULL)
        stw_test_iterate_for (20);
    }
  g_assert_nonnull (target_id);

  json_object_set_string_member (attach_params, "targetId", target_id);
  json_object_set_boolean_member (attach_params, "flatten", TRUE);
  {
    g_autoptr(Call) call = call_start_with (transport, "Target.attachToTarget", attach_params,
                                            NULL, 0, NULL);
    call_wait (call);
    g_assert_no_error (call->error);
    attached = g_steal_pointer (&call->result);
  }
  session_id = json_object_get_string_member (attached, "sessionId");
  g_assert_nonnull (session_id);

  json_object_set_string_member (eval_params, "expression", "1+1");
  json_object_set_boolean_member (eval_params, "returnByValue", TRUE);
  for (guint i = 0; i < 50 + G_N_ELEMENTS (samples); i++)
    {
      g_autoptr(Call) call = call_start_with (transport, "Runtime.evaluate", eval_params,
                                              session_id, 0, NULL);

      call_wait (call);
      g_assert_no_error (call->error);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (call->result, "result"),
                                                   "value"), ==, 2);
      if (i >= 50)  /* the first ones warm up a browser that just started */
        samples[i - 50] = call->done_us - call->started_us;
    }

  qsort (samples, G_N_ELEMENTS (samples), sizeof samples[0], compare_gint64);
  g_test_message ("%s: Runtime.evaluate 1+1 x%u on about:blank (flat session): "
                  "median %.3f ms, min %.3f ms, p95 %.3f ms, max %.3f ms%s",
                  label, (guint) G_N_ELEMENTS (samples),
                  (double) samples[G_N_ELEMENTS (samples) / 2] / 1000.0,
                  (double) samples[0] / 1000.0,
                  (double) samples[G_N_ELEMENTS (samples) * 95 / 100] / 1000.0,
                  (double) samples[G_N_ELEMENTS (samples) - 1] / 1000.0,
                  stw_test_running_on_valgrind () ? " (under valgrind)" : "");
}

static void
check_chromium (gboolean use_pipe)
{
  Browser *browser;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) version = NULL;

  if (!g_file_test (CHROMIUM, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("Chromium is not installed (" CHROMIUM ")");
      return;
    }

  browser = browser_launch (use_pipe);
  version = call_sync (browser->transport, "Browser.getVersion", NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s: %s, protocol %s", use_pipe ? "pipe" : "websocket",
                  json_object_get_string_member (version, "product"),
                  json_object_get_string_member (version, "protocolVersion"));
  g_assert_true (strstr (json_object_get_string_member (version, "product"), "Chrome/") != NULL);
  g_assert_cmpstr (json_object_get_string_member (version, "protocolVersion"), ==, "1.3");

  measure_eval (browser->transport, use_pipe ? "pipe" : "websocket");

  browser_close (browser);
}

static void
test_chromium_pipe (void)
{
  g_test_summary ("Real headless Chromium over --remote-debugging-pipe: Browser.getVersion, "
                  "eval round trips, Browser.close");
  check_chromium (TRUE);
}

static void
test_chromium_websocket (void)
{
  g_test_summary ("Real headless Chromium over the WebSocket it prints on stderr: "
                  "Browser.getVersion, eval round trips, Browser.close");
  check_chromium (FALSE);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/transport/url/loopback", test_url_loopback);
  g_test_add_func ("/transport/websocket/echo", test_websocket_echo);
  g_test_add_func ("/transport/websocket/timeout", test_websocket_timeout);
  g_test_add_func ("/transport/websocket/drop", test_websocket_drop);
  g_test_add_func ("/transport/websocket/close-codes", test_websocket_close_codes);
  g_test_add_func ("/transport/websocket/garbage", test_websocket_garbage);
  g_test_add_func ("/transport/websocket/idless-error", test_websocket_idless_error);
  g_test_add_func ("/transport/websocket/empty-reply", test_websocket_empty_reply);
  g_test_add_func ("/transport/websocket/big-frame", test_websocket_big_frame);
  g_test_add_func ("/transport/websocket/surrogates", test_websocket_surrogates);
  g_test_add_func ("/transport/websocket/events", test_websocket_events);
  g_test_add_func ("/transport/websocket/cdp-error", test_websocket_cdp_error);
  g_test_add_func ("/transport/websocket/cancel", test_websocket_cancel);
  g_test_add_func ("/transport/websocket/deadline", test_websocket_deadline);
  g_test_add_func ("/transport/websocket/refused", test_websocket_refused);
  g_test_add_func ("/transport/websocket/connect-timeout", test_websocket_connect_timeout);
  g_test_add_func ("/transport/websocket/two-servers", test_websocket_two_servers);
  g_test_add_func ("/transport/websocket/close", test_websocket_close);
  g_test_add_func ("/transport/websocket/dispose-pending", test_websocket_dispose_pending);
  g_test_add_func ("/transport/websocket/contexts", test_websocket_contexts);
  g_test_add_func ("/transport/websocket/notification", test_websocket_notification);
  g_test_add_func ("/transport/pipe/echo", test_pipe_echo);
  g_test_add_func ("/transport/pipe/split-records", test_pipe_split_records);
  g_test_add_func ("/transport/pipe/big", test_pipe_big);
  g_test_add_func ("/transport/pipe/deep-reply", test_pipe_deep_reply);
  g_test_add_func ("/transport/pipe/eof", test_pipe_eof);
  g_test_add_func ("/transport/pipe/close", test_pipe_close);
  g_test_add_func ("/transport/chromium/pipe", test_chromium_pipe);
  g_test_add_func ("/transport/chromium/websocket", test_chromium_websocket);

  return g_test_run ();
}
