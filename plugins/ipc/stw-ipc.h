/* stw-ipc.h: the ipc plugin's API — capture, invoke and stub an Electron
 * app's IPC
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * StwIpcError:
 * @STW_IPC_ERROR_EVAL_REQUIRED: main-process eval is not allowed (`--allow-eval=main` or `all`)
 * @STW_IPC_ERROR_MAIN_EVAL_UNSUPPORTED: the session has no main-process inspector
 * @STW_IPC_ERROR_ALREADY_CAPTURING: a capture is running already
 * @STW_IPC_ERROR_NOT_CAPTURING: nothing is being captured
 * @STW_IPC_ERROR_CHANNEL_NOT_ALLOWED: the channel is outside the plugin's allowlist (`channels`,
 *   or `invokeAllow` for an invoke); its handler did not run
 * @STW_IPC_ERROR_INVOKE_FAILED: the handler threw, did not answer in time, or none is registered
 *
 * The codes of the ipc plugin, in its error domain %STW_IPC_ERROR, in the
 * order the plugin registers them. Each value is a wire code:
 * %STW_IPC_ERROR_EVAL_REQUIRED is `ipc.EVAL_REQUIRED`, and
 * stw_error_get_code_name() answers it, also for an error a language binding
 * handed back.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_IPC_ERROR_EVAL_REQUIRED,
  STW_IPC_ERROR_MAIN_EVAL_UNSUPPORTED,
  STW_IPC_ERROR_ALREADY_CAPTURING,
  STW_IPC_ERROR_NOT_CAPTURING,
  STW_IPC_ERROR_CHANNEL_NOT_ALLOWED,
  STW_IPC_ERROR_INVOKE_FAILED,
} StwIpcError;

/**
 * STW_IPC_ERROR:
 *
 * The error domain of the ipc plugin: its codes are
 * [enum@StagewrightIpc.IpcError].
 *
 * Since: 1.0
 */
#define STW_IPC_ERROR (stw_ipc_error_quark ())
STW_AVAILABLE_IN_1_0
GQuark stw_ipc_error_quark (void);

#define STW_TYPE_IPC_ERROR (stw_ipc_error_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_ipc_error_get_type (void);

#define STW_TYPE_IPC_ENTRY (stw_ipc_entry_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwIpcEntry, stw_ipc_entry, STW, IPC_ENTRY, GObject)

#define STW_TYPE_IPC_CAPTURE (stw_ipc_capture_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwIpcCapture, stw_ipc_capture, STW, IPC_CAPTURE, GObject)

STW_AVAILABLE_IN_1_0
guint64      stw_ipc_entry_get_seq (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_ipc_entry_get_channel (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_ipc_entry_get_kind (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_ipc_entry_get_direction (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_ipc_entry_get_scope (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_ipc_entry_get_source (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
gint64       stw_ipc_entry_get_web_contents_id (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
gint64       stw_ipc_entry_get_window_id (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
JsonNode *  stw_ipc_entry_get_args (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
JsonNode *  stw_ipc_entry_get_result (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_ipc_entry_get_error (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
gboolean     stw_ipc_entry_get_stubbed (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
double       stw_ipc_entry_get_duration_ms (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
const char *stw_ipc_entry_get_started_at (StwIpcEntry *self);
STW_AVAILABLE_IN_1_0
gboolean     stw_ipc_capture_get_capturing (StwIpcCapture *self);
STW_AVAILABLE_IN_1_0
guint64      stw_ipc_capture_get_total (StwIpcCapture *self);
STW_AVAILABLE_IN_1_0
guint64      stw_ipc_capture_get_dropped (StwIpcCapture *self);
STW_AVAILABLE_IN_1_0
GListModel *stw_ipc_capture_get_entries (StwIpcCapture *self);

#define STW_TYPE_IPC_PLUGIN (stw_ipc_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwIpcPlugin, stw_ipc_plugin, STW, IPC_PLUGIN, StwPlugin)

STW_AVAILABLE_IN_1_0
StwIpcPlugin *stw_ipc_plugin_new                 (void);

STW_AVAILABLE_IN_1_0
void          stw_ipc_plugin_capture_start_async (StwIpcPlugin        *self,
                                                  StwSession          *session,
                                                  const char * const  *channels,
                                                  gboolean             include_on,
                                                  gboolean             include_send,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean      stw_ipc_plugin_capture_start_finish (StwIpcPlugin  *self,
                                                   GAsyncResult  *result,
                                                   GError       **error);
STW_AVAILABLE_IN_1_0
gboolean      stw_ipc_plugin_capture_start_sync  (StwIpcPlugin        *self,
                                                  StwSession          *session,
                                                  const char * const  *channels,
                                                  gboolean             include_on,
                                                  gboolean             include_send,
                                                  GCancellable        *cancellable,
                                                  GError             **error);

STW_AVAILABLE_IN_1_0
void          stw_ipc_plugin_captured_async      (StwIpcPlugin        *self,
                                                  StwSession          *session,
                                                  guint                limit,
                                                  const char          *channel,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwIpcCapture *stw_ipc_plugin_captured_finish     (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
StwIpcCapture *stw_ipc_plugin_captured_sync       (StwIpcPlugin  *self,
                                                  StwSession    *session,
                                                  guint          limit,
                                                  const char    *channel,
                                                  GCancellable  *cancellable,
                                                  GError       **error);

STW_AVAILABLE_IN_1_0
void          stw_ipc_plugin_capture_stop_async  (StwIpcPlugin        *self,
                                                  StwSession          *session,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwIpcCapture *stw_ipc_plugin_capture_stop_finish (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
StwIpcCapture *stw_ipc_plugin_capture_stop_sync   (StwIpcPlugin  *self,
                                                  StwSession    *session,
                                                  GCancellable  *cancellable,
                                                  GError       **error);

STW_AVAILABLE_IN_1_0
void          stw_ipc_plugin_invoke_async        (StwIpcPlugin        *self,
                                                  StwSession          *session,
                                                  const char          *channel,
                                                  JsonArray           *args,
                                                  gint64               web_contents_id,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
STW_AVAILABLE_IN_1_0
JsonNode     *stw_ipc_plugin_invoke_finish       (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
JsonNode     *stw_ipc_plugin_invoke_sync         (StwIpcPlugin  *self,
                                                  StwSession    *session,
                                                  const char    *channel,
                                                  JsonArray     *args,
                                                  gint64         web_contents_id,
                                                  GCancellable  *cancellable,
                                                  GError       **error);

STW_AVAILABLE_IN_1_0
void          stw_ipc_plugin_stub_async          (StwIpcPlugin        *self,
                                                  StwSession          *session,
                                                  const char          *channel,
                                                  JsonNode            *value,
                                                  const char          *throws,
                                                  gboolean             once,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean      stw_ipc_plugin_stub_finish         (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
gboolean      stw_ipc_plugin_stub_sync           (StwIpcPlugin  *self,
                                                  StwSession    *session,
                                                  const char    *channel,
                                                  JsonNode      *value,
                                                  const char    *throws,
                                                  gboolean       once,
                                                  GCancellable  *cancellable,
                                                  GError       **error);

STW_AVAILABLE_IN_1_0
void          stw_ipc_plugin_unstub_async        (StwIpcPlugin        *self,
                                                  StwSession          *session,
                                                  const char          *channel,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean      stw_ipc_plugin_unstub_finish       (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  gboolean      *removed,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
gboolean      stw_ipc_plugin_unstub_sync         (StwIpcPlugin  *self,
                                                  StwSession    *session,
                                                  const char    *channel,
                                                  gboolean      *removed,
                                                  GCancellable  *cancellable,
                                                  GError       **error);

G_END_DECLS
