/* stw-surface-private.h: how a session makes and updates its surfaces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-surface.h"
#include "stw-transport.h"

G_BEGIN_DECLS

/* The page-side scripts (stagewright/js/), by resource name. */
#define STW_SCRIPT_READY       "ready.js"
#define STW_SCRIPT_ELEMENT_BOX "element-box.js"

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

/* Calls the function a page-side script (js/<script>) evaluates to, with
 * @args (JSON values, may be NULL), in the surface's isolated world;
 * answers the value it returns, by JSON. */
void        _stw_surface_call_script_async  (StwSurface          *self,
                                             const char          *script,
                                             JsonArray           *args,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
JsonNode   *_stw_surface_call_script_finish (StwSurface    *self,
                                             GAsyncResult  *result,
                                             GError       **error);

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

G_END_DECLS
