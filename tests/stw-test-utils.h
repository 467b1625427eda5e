/* stw-test-utils.h: what the GTest programs share: an in-process MCP client
 * for StwMcpServer over pipe pairs, JSON helpers, and fake CDP peers (a
 * scripted peer over a pipe pair or a WebSocket server, and a small fake
 * browser)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "stagewright.h"
#include "transports/stw-transport.h"

G_BEGIN_DECLS

/* How long a wait may take before the test fails instead of hanging; scaled
 * up when running under valgrind (see stw_test_timeout_ms()). */
#define STW_TEST_TIMEOUT_MS 5000

/* The test tools every StwTestClient's dispatcher carries, besides the core
 * tools:
 *
 * - test_echo: {message: string, count?: integer ≥ 0, data?: anything};
 *   answers {echo: <the arguments>}
 * - test_fail: {}; fails with SELECTOR_NO_MATCH
 * - test_slow: {ms?: integer 0…60000, default 200}; answers {slept_ms} after
 *   ms from a timeout, and stops when its invocation is cancelled
 * - test_progress: {steps?: 1…100 (20), interval_ms?: 1…1000 (30)}; reports
 *   progress 0 at once, then step i every interval (each fifth step twice,
 *   the second time not increasing), and answers {steps}
 * - test_never: {}; never completes, stops when cancelled
 * - test_eval: {code: string}; an eval tool for the main process (hidden
 *   unless the dispatcher allows main-process eval); answers {value: null}
 */
#define STW_TEST_N_TOOLS 6

typedef struct _StwTestClient StwTestClient;

void            stw_test_init                     (int           *argc,
                                                   char        ***argv);
guint           stw_test_timeout_ms               (guint          base_ms);
gboolean        stw_test_running_on_valgrind      (void);
gint64          stw_test_rss_kib                  (void);

/* Main loop: both iterate the global default context. wait_until returns
 * *@flag once it is set, or FALSE after @timeout_ms. */
gboolean        stw_test_wait_until               (const gboolean *flag,
                                                   guint           timeout_ms);
void            stw_test_iterate_for              (guint          ms);

/* One asynchronous result: stw_test_result_cb is the callback (with the
 * StwTestResult as user data); stw_test_wait_result iterates the global
 * default context until it ran, failing the test instead of hanging
 * (@timeout_ms, scaled by stw_test_timeout_ms()). The caller owns the
 * result. */
typedef struct
{
  GAsyncResult *result;
} StwTestResult;

void            stw_test_result_cb                (GObject       *object,
                                                   GAsyncResult  *result,
                                                   gpointer       user_data);
GAsyncResult   *stw_test_wait_result              (StwTestResult *wait,
                                                   guint          timeout_ms);

/* Whether the Electron stand-in (tests/fixtures/electron) and Chromium
 * are there to launch; stw_test_call_json() is the envelope of a blocking
 * call (stw_dispatcher_call_json_sync()), read back as an object. */
gboolean        stw_test_electron_available       (void);
JsonObject     *stw_test_call_json                (StwDispatcher *dispatcher,
                                                   const char    *tool,
                                                   const char    *arguments);

/* The pages app (tests/fixtures/pages-app) on the Electron stand-in:
 * stw_test_launch_page() launches it showing pages/@page.html, or skips
 * the test (setting *@skip) when the stand-in or Chromium is missing;
 * stw_test_snapshot_ref() is the ref of the one line of a text snapshot
 * that shows @role "@name" (the test fails unless exactly one does). */
StwSession     *stw_test_launch_page              (StwSessionManager *manager,
                                                   const char        *page,
                                                   char             **skip);
guint           stw_test_snapshot_ref             (const char        *snapshot_text,
                                                   const char        *role,
                                                   const char        *name);

/* JSON helpers. stw_test_parse() reads with plain json-glib (what any
 * other reader sees); stw_test_json_object_from() with the strict
 * stw_json_parse() and asserts an object (NULL for NULL). Both fail the
 * test on bad input. stw_test_json_nested() is @open @depth times, @inner,
 * then @close @depth times. */
JsonNode       *stw_test_parse                    (const char    *json);
JsonObject     *stw_test_json_object_from         (const char    *json);
char           *stw_test_json_nested              (guint          depth,
                                                   const char    *open,
                                                   const char    *inner,
                                                   const char    *close);
char           *stw_test_to_json                  (JsonNode      *node);
char           *stw_test_object_to_json           (JsonObject    *object);
void            stw_test_assert_json_equal        (JsonNode      *node,
                                                   const char    *expected);
void            stw_test_assert_members           (JsonObject    *object,
                                                   const char    *first_name,
                                                   ...) G_GNUC_NULL_TERMINATED;
void            stw_test_check_frame              (JsonObject    *frame);
JsonObject     *stw_test_assert_result            (JsonObject    *response,
                                                   const char    *id);
JsonObject     *stw_test_assert_error             (JsonObject    *response,
                                                   const char    *id,
                                                   gint64         code);

/* Test tools */
guint           stw_test_tool_get_n_calls         (StwTool       *tool);
guint           stw_test_tool_get_n_cancelled     (StwTool       *tool);
guint           stw_test_tool_get_n_completed     (StwTool       *tool);
StwTool        *stw_test_tool_new_echo            (const char    *name);

/* The client */
StwTestClient  *stw_test_client_new               (void);
void            stw_test_client_free              (StwTestClient *self);
StwDispatcher  *stw_test_client_get_dispatcher    (StwTestClient *self);
StwMcpServer   *stw_test_client_get_server        (StwTestClient *self);
StwTool        *stw_test_client_get_tool          (StwTestClient *self,
                                                   const char    *name);
GMainContext   *stw_test_client_get_context       (StwTestClient *self);

void            stw_test_client_send_raw          (StwTestClient *self,
                                                   const void    *data,
                                                   gsize          length);
void            stw_test_client_send_line         (StwTestClient *self,
                                                   const char    *line);
void            stw_test_client_send_printf       (StwTestClient *self,
                                                   const char    *format,
                                                   ...) G_GNUC_PRINTF (2, 3);
char           *stw_test_client_send_request      (StwTestClient *self,
                                                   const char    *method,
                                                   const char    *params);
JsonObject     *stw_test_client_call              (StwTestClient *self,
                                                   const char    *method,
                                                   const char    *params);
JsonObject     *stw_test_client_call_result       (StwTestClient *self,
                                                   const char    *method,
                                                   const char    *params);
JsonObject     *stw_test_client_call_tool         (StwTestClient *self,
                                                   const char    *name,
                                                   const char    *arguments);
void            stw_test_client_initialize        (StwTestClient *self);
void            stw_test_client_close             (StwTestClient *self);
void            stw_test_client_hang_up           (StwTestClient *self);

JsonObject     *stw_test_client_wait_response     (StwTestClient *self,
                                                   const char    *id);
JsonObject     *stw_test_client_wait_notification (StwTestClient *self,
                                                   const char    *method);
gboolean        stw_test_client_has_response      (StwTestClient *self,
                                                   const char    *id);
GPtrArray      *stw_test_client_take_notifications (StwTestClient *self,
                                                    const char    *method);
void            stw_test_client_iterate           (StwTestClient *self,
                                                   guint          ms);
void            stw_test_client_flush             (StwTestClient *self);
void            stw_test_client_clear             (StwTestClient *self);
guint           stw_test_client_get_n_frames      (StwTestClient *self);
guint           stw_test_client_get_n_queued      (StwTestClient *self);
gboolean        stw_test_client_is_finished       (StwTestClient *self);
gboolean        stw_test_client_wait_finished     (StwTestClient *self,
                                                   guint          timeout_ms,
                                                   GError       **error);
void            stw_test_client_cancel_run        (StwTestClient *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwTestClient, stw_test_client_free)

/* Fake CDP peers {{{1
 *
 * StwTestCdpPeer is the far end of one CDP connection: a WebSocket accepted
 * by a StwTestCdpServer, or a pipe pair (NUL-terminated records). It
 * records every request (its text and its method) and hands it to its
 * handler. The default handler, stw_test_cdp_peer_script(), does what the
 * method says:
 *
 * - Test.noReply: nothing; Test.delay {ms}: the echo after ms
 * - Test.error [{data}]: an error reply (-32601, or -32602 with data)
 * - Test.drop: gone without a goodbye (no close frame, or end of file)
 * - Test.close {code}: a WebSocket close frame (a pipe: end of file)
 * - Test.idless: an error with no id, as Chrome answers unparsable input
 * - Test.garbage: frames that are no reply (not JSON, invalid UTF-8,
 *   truncated, 100000 deep, not objects, ids of nobody, empty), then the echo
 * - Test.big {size}: a reply whose result.data is size letters a…z, é, ✓
 * - Test.surrogate: lone and paired UTF-16 surrogates in strings
 * - Test.events: four events (one per session, one nobody listens to)
 *   before the echo
 * - Test.split, Test.batch (pipes): one reply in three delayed writes with
 *   an event after it; two events and the reply in one write
 * - anything else: the echo, {id, result: {method, params?, sessionId?}}
 */
typedef struct _StwTestCdpPeer StwTestCdpPeer;
typedef struct _StwTestCdpServer StwTestCdpServer;

typedef void  (*StwTestCdpHandler)                (StwTestCdpPeer *peer,
                                                   JsonObject     *request,
                                                   gpointer        user_data);

void            stw_test_cdp_peer_script          (StwTestCdpPeer *peer,
                                                   JsonObject     *request,
                                                   gpointer        user_data);
void            stw_test_cdp_peer_set_handler     (StwTestCdpPeer *peer,
                                                   StwTestCdpHandler handler,
                                                   gpointer        user_data);
/* One message (a text or binary frame, or a pipe record). */
void            stw_test_cdp_peer_send_message    (StwTestCdpPeer *peer,
                                                   const char     *data,
                                                   gsize           length,
                                                   gboolean        binary);
void            stw_test_cdp_peer_send            (StwTestCdpPeer *peer,
                                                   const char     *text);
void            stw_test_cdp_peer_send_printf     (StwTestCdpPeer *peer,
                                                   const char     *format,
                                                   ...) G_GNUC_PRINTF (2, 3);
void            stw_test_cdp_peer_send_object     (StwTestCdpPeer *peer,
                                                   JsonObject     *object);
/* Raw bytes with no framing (pipes only: split records). */
void            stw_test_cdp_peer_write_raw       (StwTestCdpPeer *peer,
                                                   const char     *data,
                                                   gsize           length);
/* A message (or, @raw, bytes) after @ms; cancelled when the peer goes. */
void            stw_test_cdp_peer_send_later      (StwTestCdpPeer *peer,
                                                   guint           ms,
                                                   const char     *data,
                                                   gsize           length,
                                                   gboolean        raw);
void            stw_test_cdp_peer_drop            (StwTestCdpPeer *peer);
void            stw_test_cdp_peer_close           (StwTestCdpPeer *peer,
                                                   gushort         code);
/* Every request's method, and every request as received, in order. */
GPtrArray      *stw_test_cdp_peer_get_methods     (StwTestCdpPeer *peer);
GPtrArray      *stw_test_cdp_peer_get_requests    (StwTestCdpPeer *peer);
guint           stw_test_cdp_peer_count           (StwTestCdpPeer *peer,
                                                   const char     *method);
/* A pipe peer's reads and writes under way. */
guint           stw_test_cdp_peer_get_n_in_flight (StwTestCdpPeer *peer);
/* A WebSocket peer's connection. */
SoupWebsocketConnection *
                stw_test_cdp_peer_get_connection  (StwTestCdpPeer *peer);

/* A pipe pair: the peer, and in @transport (transfer full) the StwCdpPipe
 * on the other end. Free the peer after dropping the transport. */
StwTestCdpPeer *stw_test_cdp_peer_new_pipe        (StwTransport  **transport);
void            stw_test_cdp_peer_free            (StwTestCdpPeer *peer);

/* A SoupServer on 127.0.0.1 (any port) taking WebSockets at
 * /devtools/browser/…; each connection gets a peer running the script. */
StwTestCdpServer *stw_test_cdp_server_new         (void);
void            stw_test_cdp_server_free          (StwTestCdpServer *self);
/* The server stops: every connection dropped, the port closed. */
void            stw_test_cdp_server_kill          (StwTestCdpServer *self);
const char     *stw_test_cdp_server_get_url       (StwTestCdpServer *self);
guint16         stw_test_cdp_server_get_port      (StwTestCdpServer *self);
guint           stw_test_cdp_server_get_n_handshakes (StwTestCdpServer *self);
gboolean        stw_test_cdp_server_get_saw_origin (StwTestCdpServer *self);
/* The Host header of the last handshake. */
const char     *stw_test_cdp_server_get_host      (StwTestCdpServer *self);
StwTestCdpPeer *stw_test_cdp_server_get_peer      (StwTestCdpServer *self,
                                                   guint           index);
/* A new StwCdpWebsocket to the server (asserts it connects). */
StwTransport   *stw_test_cdp_server_connect       (StwTestCdpServer *self);

/* stw_cdp_websocket_connect_async() waited for on the default context
 * (asserting it never completes synchronously); @elapsed_ms may be NULL. */
StwTransport   *stw_test_cdp_connect              (const char     *url,
                                                   guint           timeout_ms,
                                                   GCancellable   *cancellable,
                                                   double         *elapsed_ms,
                                                   GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwTestCdpServer, stw_test_cdp_server_free)

/* A fake browser {{{1
 *
 * A small browser on a CDP pipe pair for StwSession/StwSurface faults: one
 * page target T1 (frame T1, session S1, "Fake", about:blank) attached on
 * Target.setAutoAttach, isolated worlds numbered from 1, ready.js answering
 * true and the page module's screenshotBox op a 1,2 3×4 box, Page.captureScreenshot as the
 * screenshot mode says; every other method answers {}. */
#define STW_TEST_TINY_PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

typedef enum
{
  STW_TEST_SHOT_REPLY,    /* a 1×1 PNG (STW_TEST_TINY_PNG) */
  STW_TEST_SHOT_GARBAGE,  /* data that is no image */
  STW_TEST_SHOT_DROP,     /* the connection goes */
  STW_TEST_SHOT_HOLD,     /* no reply; the id is kept (get_held_id) */
} StwTestShotMode;

typedef struct _StwTestCdpBrowser StwTestCdpBrowser;

StwTestCdpBrowser *stw_test_cdp_browser_new       (void);
void            stw_test_cdp_browser_free         (StwTestCdpBrowser *self);
StwTransport   *stw_test_cdp_browser_get_transport (StwTestCdpBrowser *self);
StwTestCdpPeer *stw_test_cdp_browser_get_peer     (StwTestCdpBrowser *self);
void            stw_test_cdp_browser_set_shot_mode (StwTestCdpBrowser *self,
                                                    StwTestShotMode    mode);
gint64          stw_test_cdp_browser_get_held_id  (StwTestCdpBrowser *self);
/* The next @n Runtime.callFunctionOn answer "Cannot find context". */
void            stw_test_cdp_browser_set_stale_replies (StwTestCdpBrowser *self,
                                                        guint              n);

G_END_DECLS
