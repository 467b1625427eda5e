/* stw-dialogs.h: answering the app's dialogs, and stubbing Electron's
 * native dialogs, shell and clipboard
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-session.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

/**
 * STW_DIALOG_EVENTS_MAX:
 *
 * How many dialog events (page dialogs and stubbed calls) a session keeps;
 * older ones are dropped and counted as `overflowed`.
 *
 * Since: 1.0
 */
#define STW_DIALOG_EVENTS_MAX 200

STW_AVAILABLE_IN_1_0
gboolean    stw_session_set_dialog_policy          (StwSession    *self,
                                                    JsonObject    *policy,
                                                    GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_session_dup_dialog_policy          (StwSession    *self);

STW_AVAILABLE_IN_1_0
void        stw_session_stub_electron_async        (StwSession          *self,
                                                    JsonObject          *stubs,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_session_stub_electron_finish       (StwSession    *self,
                                                    GAsyncResult  *result,
                                                    GError       **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_session_stub_electron_sync         (StwSession    *self,
                                                    JsonObject    *stubs,
                                                    GCancellable  *cancellable,
                                                    GError       **error);

STW_AVAILABLE_IN_1_0
void        stw_session_read_dialog_events_async   (StwSession          *self,
                                                    JsonObject          *filter,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_session_read_dialog_events_finish  (StwSession    *self,
                                                    GAsyncResult  *result,
                                                    GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_session_read_dialog_events_sync    (StwSession    *self,
                                                    JsonObject    *filter,
                                                    GCancellable  *cancellable,
                                                    GError       **error);

G_END_DECLS
