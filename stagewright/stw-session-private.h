/* stw-session-private.h: session internals shared inside the library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-dialogs-private.h"
#include "stw-process-private.h"
#include "stw-refs-private.h"
#include "stw-session.h"
#include "stw-surface-private.h"
#include "stw-transport.h"

G_BEGIN_DECLS

StwSession   *_stw_session_new_launched (StwSessionManager *manager,
                                         const char        *id,
                                         StwProcess        *process,
                                         StwTransport      *browser,
                                         StwTransport      *inspector);
StwSession   *_stw_session_new_attached (StwSessionManager *manager,
                                         const char        *id,
                                         const char        *transport_name,
                                         StwTransport      *browser,
                                         StwTransport      *inspector,
                                         GPid               pid);
void          _stw_session_start_async  (StwSession          *self,
                                         guint                first_window_timeout_ms,
                                         guint                ready_timeout_ms,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
gboolean      _stw_session_start_finish (StwSession    *self,
                                         GAsyncResult  *result,
                                         GError       **error);
StwTransport *_stw_session_get_browser  (StwSession *self);
/* The manager the session belongs to (a new reference), or NULL. */
StwSessionManager *_stw_session_dup_manager (StwSession *self);
StwTransport *_stw_session_get_inspector (StwSession *self);
GPid          _stw_session_get_endpoint_holder (StwSession *self);
void          _stw_session_set_endpoint_holder (StwSession *self,
                                                GPid        holder);
void          _stw_session_set_main_note (StwSession *self,
                                          const char *note);

/* The surface table, for stw-session-targets.c. */
GPtrArray    *_stw_session_get_surfaces    (StwSession *self);
StwSurface   *_stw_session_find_surface_by (StwSession *self,
                                            const char *target_id,
                                            const char *cdp_session_id,
                                            const char *subframe_id);
StwSurface   *_stw_session_add_surface     (StwSession     *self,
                                            StwSurfaceKind  kind,
                                            StwSurface     *parent,
                                            const char     *target_id,
                                            const char     *cdp_session_id,
                                            const char     *subframe_id,
                                            const char     *title,
                                            const char     *url);
StwSurface   *_stw_session_add_worker      (StwSession     *self,
                                            StwSurfaceKind  kind,
                                            StwSurface     *owner,
                                            const char     *target_id,
                                            const char     *cdp_session_id,
                                            const char     *url);
StwSurface   *_stw_session_find_worker     (StwSession *self,
                                            const char *target_id,
                                            const char *cdp_session_id);
void          _stw_session_forget_worker   (StwSession *self,
                                            StwSurface *worker);
void          _stw_session_close_surface   (StwSession *self,
                                            StwSurface *surface);
/* The main context that was thread-default when the session was made:
 * what its blocking calls iterate. */
GMainContext *_stw_session_get_context     (StwSession *self);
/* The session's refs (docs/page-ops.md). */
StwRefTable  *_stw_session_get_refs        (StwSession *self);
/* What the session hands each surface it makes (stw-surface-private.h). */
StwSurfaceShared *_stw_session_get_shared  (StwSession *self);

/* stw-session-targets.c: auto-attach, and the frame trees. Whether a
 * loaded plugin wants to see new surfaces before their first script (only
 * then are new targets paused). */
gboolean _stw_targets_hooks_wanted   (StwSession          *session);
void     _stw_targets_connect        (StwSession          *session,
                                      StwTransport        *browser);
void     _stw_targets_refresh_async  (StwSession          *session,
                                      StwTransport        *browser,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
gboolean _stw_targets_refresh_finish (StwSession          *session,
                                      GAsyncResult        *result,
                                      GError             **error);

/* stw-session-dialogs.c: the live surface that is the DevTools target
 * behind @cdp_session (window, webview or out-of-process frame), or NULL;
 * the dialogs unit the session holds; answering the dialogs of @browser's
 * targets, each turned on as it becomes a surface. */
StwSurface *_stw_session_target_surface (StwSession   *session,
                                         const char   *cdp_session);
StwDialogs *_stw_session_get_dialogs    (StwSession   *session);
void        _stw_session_dialogs_connect (StwSession   *session,
                                          StwTransport *browser);
void        _stw_session_dialogs_enable  (StwSession   *session,
                                          StwTransport *browser,
                                          const char   *cdp_session);

/* stw-session-console.c: the ring the session holds; the console of
 * every renderer target of @browser (Runtime, Log, each turned on as it
 * becomes a surface), of the main process through @inspector, and
 * @process's output lines (each may be NULL); the main process's console
 * for a session that reaches it later. Handlers use @session as data. */
typedef struct _StwSessionConsole StwSessionConsole;

StwSessionConsole *_stw_session_console_new    (void);
void               _stw_session_console_free   (StwSessionConsole *console);
StwSessionConsole *_stw_session_get_console    (StwSession        *session);
void               _stw_session_console_enable (StwTransport      *browser,
                                                const char        *cdp_session);
void        _stw_console_connect           (StwSession   *session,
                                            StwTransport *browser,
                                            StwTransport *inspector,
                                            StwProcess   *process);
void        _stw_console_connect_inspector (StwSession   *session,
                                            StwTransport *inspector);
/* A `match` pattern: `/pattern/flags` or a bare pattern, flags imsu, at
 * most 1000 characters, no nested quantifier. BAD_ARGUMENT otherwise. */
GRegex     *_stw_console_compile_match     (const char  *match,
                                            GError     **error);

/* The instance id that prefixes session ids (several servers, one balancer). */
gboolean      _stw_session_manager_instance_id_is_valid (const char *instance_id);
void          _stw_session_manager_set_instance_id      (StwSessionManager *self,
                                                         const char        *instance_id);

/* What an app spans (see stw-session-manager.c, "What an app reaches"). */
void          _stw_session_manager_get_footprint (StwSessionManager *self,
                                                  StwSession        *session,
                                                  GArray            *pids,
                                                  GArray            *ports);
GPtrArray    *_stw_session_manager_list_reaching (StwSessionManager *self,
                                                  GPid               pid,
                                                  guint              port);

G_END_DECLS
