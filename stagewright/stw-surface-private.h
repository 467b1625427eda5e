/* stw-surface-private.h: how a session makes and updates its surfaces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-surface.h"
#include "stw-sync-private.h"
#include "stw-target.h"
#include "stw-transport.h"

G_BEGIN_DECLS

StwSurface *_stw_surface_new              (StwSession     *session,
                                           StwTransport   *transport,
                                           const char     *id,
                                           StwSurfaceKind  kind,
                                           StwSurface     *parent,
                                           const char     *window_id,
                                           const char     *target_id,
                                           const char     *cdp_session_id,
                                           const char     *subframe_id,
                                           const char     *title,
                                           const char     *url);
void        _stw_surface_set_title        (StwSurface *self,
                                           const char *title);
void        _stw_surface_set_url          (StwSurface *self,
                                           const char *url);
void        _stw_surface_set_closed       (StwSurface *self);
/* The frame id of a same-process frame (it shares its page's CDP
 * session); NULL for a surface that is a DevTools target of its own. */
const char *_stw_surface_get_subframe_id  (StwSurface *self);
StwSurface *_stw_surface_get_parent       (StwSurface *self);

/* The isolated world's execution context id, 0 when none is cached. */
gint64      _stw_surface_get_world_id     (StwSurface *self);
/* The DevTools connection the surface is reached through (NULL for a
 * session without one). */
StwTransport *_stw_surface_get_transport  (StwSurface *self);
/* The main context that was thread-default when the surface was made:
 * what its blocking calls iterate. */
GMainContext *_stw_surface_get_context    (StwSurface *self);

/* A blocking call of @self: its asynchronous operation goes in as @start,
 * a closure over @data (the call's arguments); the surface's context is
 * then iterated until it completes (stw-sync-private.h). Returns the
 * result, valid until _stw_sync_call_clear (@call), or NULL (after a
 * critical) when the call cannot be made from this thread. */
typedef void (*StwSurfaceStartFunc) (StwSurface          *self,
                                     gconstpointer        data,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
GAsyncResult *_stw_surface_block_on       (StwSurface          *self,
                                           StwSyncCall         *call,
                                           StwSurfaceStartFunc  start,
                                           gconstpointer        data,
                                           GCancellable        *cancellable);

/* Runs an op of the page-side module (docs/page-ops.md) with @args in the
 * surface's isolated world: one round trip. A failure the op reports
 * becomes a registry error with its code and details; @world_id (may be
 * NULL) tells which world answered, for element keys. */
void        _stw_surface_call_page_async    (StwSurface          *self,
                                             const char          *op,
                                             JsonObject          *args,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
JsonNode   *_stw_surface_call_page_finish   (StwSurface    *self,
                                             GAsyncResult  *result,
                                             gint64        *world_id,
                                             GError       **error);

/* Runs a page op that takes an element (an `S.elementOp` of the module) on
 * the element @target names (stw-element.c): a ref runs in its own
 * surface, which may be a frame of this one, and moves or fails as
 * docs/page-ops.md says. The answer's `target` becomes `{ref, role, name}`;
 * @acted_on (may be NULL) gets the surface the op ran in. */
void        _stw_surface_element_op_async  (StwSurface          *self,
                                            const StwTarget     *target,
                                            const char          *op,
                                            JsonObject          *args,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
JsonObject *_stw_surface_element_op_finish (StwSurface    *self,
                                            GAsyncResult  *result,
                                            StwSurface   **acted_on,
                                            GError       **error);
/* The ref of an element a page op described as `{key, fp, role, name}`
 * (from world @world_id), made when it has none; 0 without a session. */
guint       _stw_surface_bind_ref          (StwSurface *self,
                                            gint64      world_id,
                                            JsonObject *info);

/* Evaluates an expression in the surface's isolated world (frames) — the
 * path of stw_session_evaluate_renderer_async() for a frame surface. */
void        _stw_surface_evaluate_isolated_async (StwSurface          *self,
                                                  const char          *expression,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
JsonNode   *_stw_surface_evaluate_isolated_finish (StwSurface    *self,
                                                   GAsyncResult  *result,
                                                   GError       **error);

/* Shared with the session: a Runtime.evaluate / callFunctionOn reply as a
 * value, or EVAL_RUNTIME_ERROR. */
JsonNode   *_stw_remote_value (JsonObject  *reply,
                               GError     **error);

/* Drops the baseline of since:"last" (stw-surface-snapshot.c). */
void         _stw_surface_forget_last_snapshot (StwSurface *self);

G_END_DECLS
