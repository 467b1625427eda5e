/* stw-network.h: the network plugin's API — capture, HAR export and stubs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * STW_NETWORK_MAX_BODY_BYTES:
 *
 * The most bytes of one body a capture keeps (`maxBodyBytes` is clamped
 * to it): 1 MiB.
 */
#define STW_NETWORK_MAX_BODY_BYTES (1024 * 1024)

/**
 * STW_NETWORK_DEFAULT_BODY_BYTES:
 *
 * The bytes of one body a capture keeps when the caller names none: 64 KiB.
 */
#define STW_NETWORK_DEFAULT_BODY_BYTES (64 * 1024)

/**
 * StwNetworkBodies:
 * @STW_NETWORK_BODIES_NONE: no bodies are kept
 * @STW_NETWORK_BODIES_TEXT: bodies of textual types (text, JSON, XML,
 *   JavaScript, forms) are kept
 * @STW_NETWORK_BODIES_ALL: every body is kept
 *
 * Which request and response bodies a capture keeps.
 */
typedef enum
{
  STW_NETWORK_BODIES_NONE,
  STW_NETWORK_BODIES_TEXT,
  STW_NETWORK_BODIES_ALL,
} StwNetworkBodies;

STW_AVAILABLE_IN_1_0
GType stw_network_bodies_get_type (void);
#define STW_TYPE_NETWORK_BODIES (stw_network_bodies_get_type ())

/**
 * StwNetworkError:
 * @STW_NETWORK_ERROR_UNSUPPORTED: `network.UNSUPPORTED`: the session has
 *   no renderers, or a partition without a main process to ask
 * @STW_NETWORK_ERROR_ALREADY_CAPTURING: `network.ALREADY_CAPTURING`
 * @STW_NETWORK_ERROR_NOT_CAPTURING: `network.NOT_CAPTURING`
 * @STW_NETWORK_ERROR_INVALID_PATTERN: `network.INVALID_PATTERN`: a URL
 *   pattern that does not compile
 *
 * The network plugin's error codes, in the %STW_NETWORK_ERROR domain;
 * stw_error_get_code_name() answers `network.<CODE>` for them.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_NETWORK_ERROR_UNSUPPORTED,
  STW_NETWORK_ERROR_ALREADY_CAPTURING,
  STW_NETWORK_ERROR_NOT_CAPTURING,
  STW_NETWORK_ERROR_INVALID_PATTERN,
} StwNetworkError;

STW_AVAILABLE_IN_1_0
GType stw_network_error_get_type (void);
#define STW_TYPE_NETWORK_ERROR (stw_network_error_get_type ())

#define STW_NETWORK_ERROR (stw_network_error_quark ())
STW_AVAILABLE_IN_1_0
GQuark stw_network_error_quark (void);

/* --- a captured request --------------------------------------------------- */

#define STW_TYPE_NETWORK_ENTRY (stw_network_entry_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwNetworkEntry, stw_network_entry, STW, NETWORK_ENTRY, GObject)

STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_id               (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_url              (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_method           (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_resource_type    (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
int         stw_network_entry_get_status           (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_mime_type        (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_error_text       (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_surface_id       (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
gboolean    stw_network_entry_get_service_worker   (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_stub_id          (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_redirect_url     (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
gboolean    stw_network_entry_is_finished          (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
gint64      stw_network_entry_get_started_at       (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
double      stw_network_entry_get_duration_ms      (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_network_entry_get_request_headers  (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_network_entry_get_response_headers (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_entry_get_response_body_path (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
GBytes     *stw_network_entry_get_response_body    (StwNetworkEntry *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_network_entry_to_json              (StwNetworkEntry *self);

/* --- a page of captured requests ---------------------------------------- */

#define STW_TYPE_NETWORK_PAGE (stw_network_page_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwNetworkPage, stw_network_page, STW, NETWORK_PAGE, GObject)

STW_AVAILABLE_IN_1_0
GPtrArray  *stw_network_page_get_entries     (StwNetworkPage *self);
STW_AVAILABLE_IN_1_0
const char *stw_network_page_get_next_cursor (StwNetworkPage *self);
STW_AVAILABLE_IN_1_0
guint       stw_network_page_get_total       (StwNetworkPage *self);
STW_AVAILABLE_IN_1_0
guint       stw_network_page_get_dropped     (StwNetworkPage *self);
STW_AVAILABLE_IN_1_0
gboolean    stw_network_page_get_capturing   (StwNetworkPage *self);

/* --- a stub ---------------------------------------------------------------- */

#define STW_TYPE_NETWORK_STUB (stw_network_stub_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwNetworkStub, stw_network_stub, STW, NETWORK_STUB, GObject)

STW_AVAILABLE_IN_1_0
StwNetworkStub *stw_network_stub_new            (const char     *url);
STW_AVAILABLE_IN_1_0
const char     *stw_network_stub_get_id         (StwNetworkStub *self);
STW_AVAILABLE_IN_1_0
const char     *stw_network_stub_get_url        (StwNetworkStub *self);
STW_AVAILABLE_IN_1_0
void            stw_network_stub_set_method     (StwNetworkStub *self,
                                                 const char     *method);
STW_AVAILABLE_IN_1_0
const char     *stw_network_stub_get_method     (StwNetworkStub *self);
STW_AVAILABLE_IN_1_0
void            stw_network_stub_set_status     (StwNetworkStub *self,
                                                 guint           status);
STW_AVAILABLE_IN_1_0
guint           stw_network_stub_get_status     (StwNetworkStub *self);
STW_AVAILABLE_IN_1_0
void            stw_network_stub_set_header     (StwNetworkStub *self,
                                                 const char     *name,
                                                 const char     *value);
STW_AVAILABLE_IN_1_0
void            stw_network_stub_set_body       (StwNetworkStub *self,
                                                 GBytes         *body);
STW_AVAILABLE_IN_1_0
GBytes         *stw_network_stub_get_body       (StwNetworkStub *self);
STW_AVAILABLE_IN_1_0
void            stw_network_stub_set_body_path  (StwNetworkStub *self,
                                                 const char     *path);
STW_AVAILABLE_IN_1_0
void            stw_network_stub_set_delay_ms   (StwNetworkStub *self,
                                                 guint           delay_ms);
STW_AVAILABLE_IN_1_0
void            stw_network_stub_set_fail       (StwNetworkStub *self,
                                                 const char     *reason);
STW_AVAILABLE_IN_1_0
const char     *stw_network_stub_get_fail       (StwNetworkStub *self);
STW_AVAILABLE_IN_1_0
void            stw_network_stub_set_times      (StwNetworkStub *self,
                                                 guint           times);
STW_AVAILABLE_IN_1_0
guint           stw_network_stub_get_times      (StwNetworkStub *self);
STW_AVAILABLE_IN_1_0
guint           stw_network_stub_get_matched    (StwNetworkStub *self);
STW_AVAILABLE_IN_1_0
JsonObject     *stw_network_stub_to_json        (StwNetworkStub *self);

/* --- the plugin ------------------------------------------------------------ */

#define STW_TYPE_NETWORK_PLUGIN (stw_network_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwNetworkPlugin, stw_network_plugin, STW, NETWORK_PLUGIN, StwPlugin)

STW_AVAILABLE_IN_1_0
StwNetworkPlugin *stw_network_plugin_new (void);

STW_AVAILABLE_IN_1_0
void            stw_network_plugin_capture_start_async  (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         const char * const  *urls,
                                                         StwNetworkBodies     bodies,
                                                         guint                max_body_bytes,
                                                         const char          *partition,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean        stw_network_plugin_capture_start_finish (StwNetworkPlugin    *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
gboolean        stw_network_plugin_capture_start_sync   (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         const char * const  *urls,
                                                         StwNetworkBodies     bodies,
                                                         guint                max_body_bytes,
                                                         const char          *partition,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

STW_AVAILABLE_IN_1_0
void            stw_network_plugin_captured_async       (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         guint                limit,
                                                         const char          *cursor,
                                                         const char          *url,
                                                         int                  status,
                                                         const char          *type,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwNetworkPage *stw_network_plugin_captured_finish      (StwNetworkPlugin    *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
StwNetworkPage *stw_network_plugin_captured_sync         (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         guint                limit,
                                                         const char          *cursor,
                                                         const char          *url,
                                                         int                  status,
                                                         const char          *type,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

STW_AVAILABLE_IN_1_0
void            stw_network_plugin_capture_stop_async   (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwNetworkPage *stw_network_plugin_capture_stop_finish  (StwNetworkPlugin    *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
StwNetworkPage *stw_network_plugin_capture_stop_sync    (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

STW_AVAILABLE_IN_1_0
void            stw_network_plugin_export_har_async     (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         const char          *path,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean        stw_network_plugin_export_har_finish    (StwNetworkPlugin    *self,
                                                         GAsyncResult        *result,
                                                         guint               *n_entries,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
gboolean        stw_network_plugin_export_har_sync      (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         const char          *path,
                                                         guint               *n_entries,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

STW_AVAILABLE_IN_1_0
void            stw_network_plugin_stub_async           (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         StwNetworkStub      *stub,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwNetworkStub *stw_network_plugin_stub_finish          (StwNetworkPlugin    *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
StwNetworkStub *stw_network_plugin_stub_sync            (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         StwNetworkStub      *stub,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

STW_AVAILABLE_IN_1_0
void            stw_network_plugin_unstub_async         (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         const char          *id,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
STW_AVAILABLE_IN_1_0
guint           stw_network_plugin_unstub_finish        (StwNetworkPlugin    *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
guint           stw_network_plugin_unstub_sync          (StwNetworkPlugin    *self,
                                                         StwSession          *session,
                                                         const char          *id,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

STW_AVAILABLE_IN_1_0
GPtrArray      *stw_network_plugin_list_stubs           (StwNetworkPlugin    *self,
                                                         StwSession          *session);

G_END_DECLS
