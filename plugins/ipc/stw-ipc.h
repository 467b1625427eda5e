/* stw-ipc.h: the ipc plugin's API — capture, invoke and stub an Electron
 * app's IPC
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

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
JsonObject   *stw_ipc_plugin_capture_start_finish (StwIpcPlugin  *self,
                                                   GAsyncResult  *result,
                                                   GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject   *stw_ipc_plugin_capture_start_sync  (StwIpcPlugin        *self,
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
JsonObject   *stw_ipc_plugin_captured_finish     (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject   *stw_ipc_plugin_captured_sync       (StwIpcPlugin  *self,
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
JsonObject   *stw_ipc_plugin_capture_stop_finish (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject   *stw_ipc_plugin_capture_stop_sync   (StwIpcPlugin  *self,
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
JsonObject   *stw_ipc_plugin_invoke_finish       (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject   *stw_ipc_plugin_invoke_sync         (StwIpcPlugin  *self,
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
JsonObject   *stw_ipc_plugin_stub_finish         (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject   *stw_ipc_plugin_stub_sync           (StwIpcPlugin  *self,
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
JsonObject   *stw_ipc_plugin_unstub_finish       (StwIpcPlugin  *self,
                                                  GAsyncResult  *result,
                                                  GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject   *stw_ipc_plugin_unstub_sync         (StwIpcPlugin  *self,
                                                  StwSession    *session,
                                                  const char    *channel,
                                                  GCancellable  *cancellable,
                                                  GError       **error);

G_END_DECLS
