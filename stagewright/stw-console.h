/* stw-console.h: what the app logged, in every process
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "stw-session.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

/**
 * STW_CONSOLE_ENTRIES_MAX:
 *
 * How many console entries a session keeps; older ones are dropped and
 * counted as `overflowed`.
 *
 * Since: 1.0
 */
#define STW_CONSOLE_ENTRIES_MAX 1000

#define STW_TYPE_CONSOLE_MESSAGE (stw_console_message_get_type ())
#define STW_TYPE_CONSOLE_LOG     (stw_console_log_get_type ())

/**
 * StwConsoleMessage:
 *
 * One thing the app logged: a console call or an uncaught exception in a
 * renderer or the main process, or a line on the app's stdout or stderr.
 *
 * Since: 1.0
 */
typedef struct _StwConsoleMessage StwConsoleMessage;

STW_AVAILABLE_IN_1_0
GType              stw_console_message_get_type       (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwConsoleMessage *stw_console_message_ref            (StwConsoleMessage       *self);
STW_AVAILABLE_IN_1_0
void               stw_console_message_unref          (StwConsoleMessage       *self);
STW_AVAILABLE_IN_1_0
const char        *stw_console_message_get_source     (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
const char        *stw_console_message_get_level      (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
const char        *stw_console_message_get_text       (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
gint64             stw_console_message_get_timestamp  (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
const char        *stw_console_message_get_url        (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
int                stw_console_message_get_line       (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
int                stw_console_message_get_column     (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
const char        *stw_console_message_get_window_id  (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
const char        *stw_console_message_get_surface_id (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
gboolean           stw_console_message_is_truncated   (const StwConsoleMessage *self);
STW_AVAILABLE_IN_1_0
gboolean           stw_console_message_is_exception   (const StwConsoleMessage *self);

/**
 * StwConsoleLog:
 *
 * What [method@Stagewright.Session.read_console] picked, oldest first,
 * and how many older messages the session dropped.
 *
 * Since: 1.0
 */
typedef struct _StwConsoleLog StwConsoleLog;

STW_AVAILABLE_IN_1_0
GType              stw_console_log_get_type       (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwConsoleLog     *stw_console_log_ref            (StwConsoleLog       *self);
STW_AVAILABLE_IN_1_0
void               stw_console_log_unref          (StwConsoleLog       *self);
STW_AVAILABLE_IN_1_0
guint              stw_console_log_get_n_messages (const StwConsoleLog *self);
STW_AVAILABLE_IN_1_0
StwConsoleMessage *stw_console_log_get_message    (const StwConsoleLog *self,
                                                   guint                index);
STW_AVAILABLE_IN_1_0
guint64            stw_console_log_get_overflowed (const StwConsoleLog *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwConsoleMessage, stw_console_message_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwConsoleLog, stw_console_log_unref)

STW_AVAILABLE_IN_1_0
StwConsoleLog *stw_session_read_console (StwSession  *self,
                                         JsonObject  *filter,
                                         GError     **error);

G_END_DECLS
