/* stw-dialogs-private.h: the dialogs unit — the policy, the answer to a
 * page's dialog, and the ring of dialog events
 *
 * Below the surface and the session: it knows neither. The session holds
 * one (StwSurfaceShared) and hands it each dialog with the surface that
 * opened it; an action asks it what a dialog its input opened was
 * answered.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-dialogs.h"
#include "stw-transport.h"

G_BEGIN_DECLS

typedef struct _StwDialogs StwDialogs;

StwDialogs *_stw_dialogs_new  (void);
void        _stw_dialogs_free (StwDialogs *dialogs);

/* Decides the answer to a `Page.javascriptDialogOpening` (@params) on
 * @cdp_session by the policy, records the event (the surface that opened
 * it by its ids) and answers `Page.handleJavaScriptDialog`'s params. */
JsonObject *_stw_dialogs_answer      (StwDialogs   *dialogs,
                                      JsonObject   *params,
                                      const char   *cdp_session,
                                      const char   *window_id,
                                      const char   *surface_id);
/* `{type, message, action}` of the dialog answered last on @cdp_session
 * (transfer full), taken once, so no later action reports a dialog that
 * was not its own. One nobody answered (@event: its opening) is dismissed
 * on @transport now. */
JsonObject *_stw_dialogs_take_opened (StwDialogs   *dialogs,
                                      StwTransport *transport,
                                      const char   *cdp_session,
                                      JsonObject   *event);

gboolean         _stw_dialogs_set_policy (StwDialogs  *dialogs,
                                          JsonObject  *policy,
                                          GError     **error);
StwDialogPolicy *_stw_dialogs_dup_policy (StwDialogs  *dialogs);

/* The main-process stubs (js/main-stubs.js): the expression that runs
 * @op there, the names it says are stubbed, whether calls may wait there
 * to be drained, and those calls. */
char     *_stw_dialogs_stubs_expression (const char  *op,
                                         JsonNode    *arg);
void      _stw_dialogs_set_stub_names   (StwDialogs  *dialogs,
                                         JsonNode    *names);
gboolean  _stw_dialogs_use_stubs        (StwDialogs  *dialogs,
                                         JsonObject  *stubs,
                                         GError     **error);
gboolean  _stw_dialogs_get_stubs_used   (StwDialogs  *dialogs);
void      _stw_dialogs_add_main_calls   (StwDialogs  *dialogs,
                                         JsonObject  *drained);

/* A read's filter: `{type?, since?, limit?, clear?}`; BAD_ARGUMENT. */
typedef struct _StwDialogFilter StwDialogFilter;

StwDialogFilter *_stw_dialog_filter_new  (JsonObject       *filter,
                                          GError          **error);
void             _stw_dialog_filter_free (StwDialogFilter  *filter);
StwDialogLog    *_stw_dialogs_read       (StwDialogs       *dialogs,
                                          StwDialogFilter  *filter,
                                          gboolean          native);

G_END_DECLS
