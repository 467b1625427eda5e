/* stw-surface-private.h: how a session makes and updates its surfaces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-dialogs-private.h"
#include "stw-input-private.h"
#include "stw-refs-private.h"
#include "stw-surface.h"
#include "stw-sync-private.h"
#include "stw-target.h"
#include "stw-transport.h"

G_BEGIN_DECLS

/* What a session hands each surface it makes. The page core goes one way
 * (docs/architecture.md): a surface never calls its session; what it
 * needs of it is here, held by the session and by each of its surfaces
 * (a surface may outlive its session). */
/* How the session learns of surfaces it has not seen yet (new frames,
 * webviews, title and URL changes); handed down, so a page operation that
 * misses a frame can ask for it without calling up into the session. */
typedef void     (*StwSurfaceRefreshFunc)       (gpointer             owner,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
typedef gboolean (*StwSurfaceRefreshFinishFunc) (gpointer             owner,
                                                 GAsyncResult        *result,
                                                 GError             **error);
/* Called with each window the session attaches. */
typedef void     (*StwSurfaceWindowFunc)        (StwSurface          *window,
                                                 gpointer             user_data);

typedef struct
{
  StwRefTable *refs;       /* the session's element refs */
  StwDialogs  *dialogs;    /* answers the pages' dialogs, remembers them */
  GHashTable  *surfaces;   /* id → StwSurface, every one the session made
                            * (not held: the session holds them, and
                            * empties this as it goes) */
  GPtrArray   *order;      /* the same surfaces in the order they were
                            * made (not held; emptied with the hash) */
  StwTransport *browser;   /* the renderers' DevTools connection, or NULL */
  char        *files_dir;  /* files handed to pages by path (0700), made
                            * on first use, removed when the session ends */
  GHookList    window_hooks;
  StwSurfaceRefreshFunc       refresh;
  StwSurfaceRefreshFinishFunc refresh_finish;
  gpointer     owner;      /* what refresh is called with: the session,
                            * only while alive */
  gboolean     running;    /* the session is running */
  gboolean     alive;      /* the session exists (it may have ended) */
} StwSurfaceShared;

StwSurfaceShared *_stw_surface_shared_new    (void);
StwSurfaceShared *_stw_surface_shared_ref    (StwSurfaceShared *shared);
void              _stw_surface_shared_unref  (StwSurfaceShared *shared);
/* A surface of the session by id, closed ones too; NULL when unknown. */
StwSurface       *_stw_surface_shared_lookup (StwSurfaceShared *shared,
                                              const char       *id);
/* The live surfaces, parents before their children (what
 * stw_session_list_surfaces() answers). */
GList            *_stw_surface_shared_list   (StwSurfaceShared *shared);
/* Asks the session to learn of new surfaces; completes at once, with
 * NOT_RUNNING, once it is gone. */
void              _stw_surface_shared_refresh_async  (StwSurfaceShared    *shared,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
gboolean          _stw_surface_shared_refresh_finish (GAsyncResult        *result,
                                                      GError             **error);
const char       *_stw_surface_shared_get_files_dir    (StwSurfaceShared  *shared,
                                                        GError           **error);
void              _stw_surface_shared_remove_files_dir (StwSurfaceShared  *shared);
gulong            _stw_surface_shared_add_window_hook    (StwSurfaceShared     *shared,
                                                          StwSurfaceWindowFunc  func,
                                                          gpointer              user_data);
void              _stw_surface_shared_remove_window_hook (StwSurfaceShared     *shared,
                                                          gulong                id);
void              _stw_surface_shared_window_added       (StwSurfaceShared     *shared,
                                                          StwSurface           *window);

StwSurface *_stw_surface_new              (StwSession       *session,
                                           StwSurfaceShared *shared,
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

StwSurfaceShared *_stw_surface_get_shared  (StwSurface *self);
/* Why the surface cannot run page operations now (NOT_RUNNING,
 * TRANSPORT_UNSUPPORTED, SURFACE_CLOSED), or NULL. */
GError           *_stw_surface_check_usable (StwSurface *self);
/* Where this window's mouse is (a window's input only). */
StwInputPointer  *_stw_surface_get_pointer (StwSurface *self);

/* stw-surface-input.c: the window a surface's input goes to; whether its
 * mouse is at (@x, @y); sending @events to @window (@frame: the surface
 * acted on, when it is a frame of it) with the dialog the input opened,
 * if one did ({type, message, action}); a frame's offset in its window. */
StwSurface *_stw_surface_window_of         (StwSurface          *surface);
gboolean    _stw_surface_pointer_is_at     (StwSurface          *window,
                                            double               x,
                                            double               y);
void        _stw_surface_send_input_async  (StwSurface          *window,
                                            StwSurface          *frame,
                                            GPtrArray           *events,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean    _stw_surface_send_input_finish (StwSurface          *window,
                                            GAsyncResult        *result,
                                            JsonObject         **dialog,
                                            GError             **error);
void        _stw_surface_frame_offset_async  (StwSurface          *self,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
StwSurface *_stw_surface_frame_offset_finish (StwSurface    *self,
                                              GAsyncResult  *result,
                                              double        *x,
                                              double        *y,
                                              GError       **error);

/* stw-surface-snapshot.c: what a surface remembers of its snapshots (the
 * last one, the next diff's baseline; the frame owners' ids by world and
 * key), held by the surface. */
typedef struct _StwSnapshotMemory StwSnapshotMemory;

StwSnapshotMemory *_stw_snapshot_memory_new               (void);
void               _stw_snapshot_memory_free              (StwSnapshotMemory *memory);
void               _stw_snapshot_memory_forget_frames     (StwSnapshotMemory *memory);
StwSnapshotMemory *_stw_surface_get_snapshot_memory       (StwSurface        *self);

/* Drops the baseline of since:"last" (stw-surface-snapshot.c). */
void         _stw_surface_forget_last_snapshot (StwSurface *self);

G_END_DECLS
