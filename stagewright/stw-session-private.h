/* stw-session-private.h: session internals shared inside the library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-launcher-private.h"
#include "stw-refs-private.h"
#include "stw-session.h"
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

/* The surface table, for stw-targets.c. */
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
void          _stw_session_close_surface   (StwSession *self,
                                            StwSurface *surface);
/* Any surface ever seen, closed ones too; NULL when the id is unknown. */
StwSurface   *_stw_session_lookup_surface  (StwSession *self,
                                            const char *id);
/* The main context that was thread-default when the session was made:
 * what its blocking calls iterate. */
GMainContext *_stw_session_get_context     (StwSession *self);
/* Where copies of files handed to its pages go (removed when it ends). */
const char   *_stw_session_get_files_dir   (StwSession  *self,
                                            GError     **error);
/* The session's refs (docs/page-ops.md). */
StwRefTable  *_stw_session_get_refs        (StwSession *self);

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
