/* stw-dialogs-private.h: the session-wide dialog handler and console
 * buffer, as the session wires them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-process-private.h"
#include "stw-session.h"
#include "stw-transport.h"

G_BEGIN_DECLS

/* Enables the Page domain on every page, frame and webview target of
 * @browser and answers each JavaScript dialog by the session's policy
 * (dismiss until one is set). Handlers use @session as their data. */
void        _stw_dialogs_connect        (StwSession   *session,
                                         StwTransport *browser);
/* `{type, message, action}` of the dialog the handler just answered
 * (transfer full), or NULL: what an action that opened it reports. Taken
 * once, so no later action reports a dialog that was not its own. */
JsonObject *_stw_dialogs_take_last       (StwSession   *session);

/* The live surface that is the DevTools target behind @cdp_session
 * (window, webview or out-of-process frame), or NULL. */
StwSurface *_stw_dialogs_target_surface (StwSession   *session,
                                         const char   *cdp_session);

/* Buffers the console of every renderer target of @browser (Runtime,
 * Log), of the main process through @inspector, and @process's output
 * lines; each may be NULL. Handlers use @session as their data. */
void        _stw_console_connect        (StwSession   *session,
                                         StwTransport *browser,
                                         StwTransport *inspector,
                                         StwProcess   *process);

/* The main process's console through @inspector, for a session that
 * reaches its main process after it was made (with Runtime enabled). */
void        _stw_console_connect_inspector (StwSession   *session,
                                            StwTransport *inspector);

/* The local check of a `match` pattern until the shared validator lands:
 * `/pattern/flags` or a bare pattern, flags imsu, at most 1000
 * characters, no nested quantifier. BAD_ARGUMENT otherwise. */
GRegex     *_stw_console_compile_match  (const char  *match,
                                         GError     **error);

G_END_DECLS
