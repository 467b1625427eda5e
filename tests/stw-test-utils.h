/* stw-test-utils.h: an in-process MCP client for StwMcpServer over pipe pairs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stagewright.h"

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

/* JSON helpers */
JsonNode       *stw_test_parse                    (const char    *json);
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

G_END_DECLS
