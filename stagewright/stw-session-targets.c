/* stw-session-targets.c: a session's DevTools targets and frame trees
 *
 * Auto-attach bookkeeping (flat sessions: every page, out-of-process
 * iframe and webview attaches on the browser connection; workers are
 * kept apart, for the plugins' new-worker hook, never as surfaces) and the frame
 * trees that make same-process iframes surfaces too. Part of the session:
 * it makes surfaces, so it sits above them; it decides when they appear,
 * change and close, and turns each new target's dialogs and console on.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-hooks-private.h"
#include "stw-json-private.h"
#include "stw-session-private.h"
#include "stw-surface-private.h"

static gboolean
hook_wanted (StwSession   *session,
             StwHookPoint  point)
{
  g_autoptr(StwSessionManager) manager = _stw_session_dup_manager (session);

  return manager != NULL && _stw_hooks_wanted (manager, point);
}

/* Whether a loaded plugin wants to see new surfaces or workers before
 * their first script: only then are new targets paused (no round trip
 * otherwise). */
gboolean
_stw_targets_hooks_wanted (StwSession *session)
{
  return hook_wanted (session, STW_HOOK_SURFACE_ATTACHED) || hook_wanted (session, STW_HOOK_WORKER_ATTACHED);
}

static void
auto_attach (StwSession   *session,
             StwTransport *transport,
             const char   *cdp_session)
{
  g_autoptr(JsonObject) params = json_object_new ();

  json_object_set_boolean_member (params, "autoAttach", TRUE);
  json_object_set_boolean_member (params, "waitForDebuggerOnStart", _stw_targets_hooks_wanted (session));
  json_object_set_boolean_member (params, "flatten", TRUE);
  stw_transport_send_notification (transport, "Target.setAutoAttach", params, cdp_session);
}

typedef struct
{
  StwTransport *transport;
  char         *cdp_session;
  gboolean      paused;
} Resume;

/* Every plugin's new-surface hook ran: let the target start, if it waits. */
static void
on_surface_hooks_done (GError   *error,
                       gpointer  user_data)
{
  Resume *resume = user_data;

  if (resume->paused && !stw_transport_is_closed (resume->transport))
    stw_transport_send_notification (resume->transport, "Runtime.runIfWaitingForDebugger", NULL,
                                     resume->cdp_session);
  g_object_unref (resume->transport);
  g_free (resume->cdp_session);
  g_free (resume);
}

/* Runs the plugins' hooks at @point for @surface (a surface or a worker),
 * then lets the target start if it waits; at once when no loaded plugin
 * has such a hook. */
static void
hooks_then_resume (StwSession   *self,
                   StwTransport *transport,
                   StwHookPoint  point,
                   StwSurface   *surface,
                   const char   *cdp_session,
                   gboolean      paused)
{
  if (surface != NULL && hook_wanted (self, point))
    {
      g_autoptr(StwSessionManager) manager = _stw_session_dup_manager (self);
      Resume *resume = g_new0 (Resume, 1);

      resume->transport = g_object_ref (transport);
      resume->cdp_session = g_strdup (cdp_session);
      resume->paused = paused;
      _stw_hooks_run (manager, point, self, surface, NULL, on_surface_hooks_done, resume);
      return;
    }
  if (paused)
    stw_transport_send_notification (transport, "Runtime.runIfWaitingForDebugger", NULL, cdp_session);
}

/* A service, shared or dedicated worker: kept for the plugins, never a
 * surface. The plugins' new-worker hooks run before it starts (when it
 * waits); without any, it starts at once. */
static void
worker_attached (StwSession     *self,
                 StwTransport   *transport,
                 StwSurfaceKind  kind,
                 StwSurface     *owner,
                 JsonObject     *info,
                 JsonObject     *params,
                 const char     *target_id,
                 const char     *cdp_session)
{
  gboolean paused = json_object_get_boolean_member_with_default (params, "waitingForDebugger", FALSE);
  StwSurface *worker = _stw_session_find_worker (self, target_id, NULL);

  if (worker == NULL)
    worker = _stw_session_add_worker (self, kind, owner, target_id, cdp_session, stw_json_get_string (info, "url"));
  hooks_then_resume (self, transport, STW_HOOK_WORKER_ATTACHED, worker, cdp_session, paused);
}

static void
on_attached (StwTransport *transport,
             const char   *method,
             JsonObject   *params,
             const char   *parent_session_id,
             StwSession   *self)
{
  JsonObject *info = json_object_get_object_member (params, "targetInfo");
  const char *cdp_session = stw_json_get_string (params, "sessionId");
  const char *type = stw_json_get_string (info, "type");
  const char *target_id = stw_json_get_string (info, "targetId");
  StwSurface *parent = NULL;
  StwSurface *surface;
  StwSurfaceKind kind;
  gboolean added = FALSE;
  gboolean paused;

  if (cdp_session == NULL || type == NULL || target_id == NULL)
    return;

  if (g_str_equal (type, "page"))
    kind = STW_SURFACE_KIND_WINDOW;
  else if (g_str_equal (type, "iframe"))
    kind = STW_SURFACE_KIND_FRAME;
  else if (g_str_equal (type, "webview"))
    kind = STW_SURFACE_KIND_WEBVIEW;
  else if (g_str_equal (type, "service_worker") || g_str_equal (type, "shared_worker") || g_str_equal (type, "worker"))
    {
      kind = g_str_equal (type, "service_worker") ? STW_SURFACE_KIND_SERVICE_WORKER
             : g_str_equal (type, "shared_worker") ? STW_SURFACE_KIND_SHARED_WORKER : STW_SURFACE_KIND_WORKER;
      /* A dedicated worker attaches on the session of the page that
       * started it: that page (or out-of-process frame) is its owner. */
      if (kind == STW_SURFACE_KIND_WORKER && parent_session_id != NULL)
        parent = _stw_session_find_surface_by (self, NULL, parent_session_id, NULL);
      worker_attached (self, transport, kind, parent, info, params, target_id, cdp_session);
      return;
    }
  else
    {
      /* Browser UI and the like are not surfaces. */
      if (json_object_get_boolean_member_with_default (params, "waitingForDebugger", FALSE))
        stw_transport_send_notification (transport, "Runtime.runIfWaitingForDebugger", NULL, cdp_session);
      return;
    }

  if (parent_session_id != NULL)
    parent = _stw_session_find_surface_by (self, NULL, parent_session_id, NULL);
  surface = _stw_session_find_surface_by (self, target_id, NULL, NULL);
  if (surface == NULL)
    {
      surface = _stw_session_add_surface (self, kind, parent, target_id, cdp_session, NULL,
                                          stw_json_get_string (info, "title"), stw_json_get_string (info, "url"));
      added = surface != NULL;
    }
  paused = json_object_get_boolean_member_with_default (params, "waitingForDebugger", FALSE);

  /* A target that is a surface of this session: its dialogs are answered
   * and its console kept from now on. */
  if (_stw_session_target_surface (self, cdp_session) != NULL)
    {
      _stw_session_dialogs_enable (self, transport, cdp_session);
      _stw_session_console_enable (transport, cdp_session);
    }

  /* Follow the page's own out-of-process frames and guests. */
  auto_attach (self, transport, cdp_session);
  if (!paused && !added)
    return;
  /* Paused before its first script: the plugins' hooks first (a plugin
   * unloaded meanwhile leaves none, and the run resumes at once). A
   * surface that was already running when it attached (a window the app
   * opened before the launch's auto-attach was set, or any surface of an
   * attach) gets the hooks too, without that guarantee. */
  hooks_then_resume (self, transport, STW_HOOK_SURFACE_ATTACHED, surface, cdp_session, paused);
}

static void
on_detached (StwTransport *transport,
             const char   *method,
             JsonObject   *params,
             const char   *session_id,
             StwSession   *self)
{
  StwSurface *surface = _stw_session_find_surface_by (self, NULL, stw_json_get_string (params, "sessionId"), NULL);
  StwSurface *worker = _stw_session_find_worker (self, NULL, stw_json_get_string (params, "sessionId"));

  if (surface != NULL)
    _stw_session_close_surface (self, surface);
  if (worker != NULL)
    _stw_session_forget_worker (self, worker);
}

static void
on_target_destroyed (StwTransport *transport,
                     const char   *method,
                     JsonObject   *params,
                     const char   *session_id,
                     StwSession   *self)
{
  StwSurface *surface = _stw_session_find_surface_by (self, stw_json_get_string (params, "targetId"), NULL, NULL);
  StwSurface *worker = _stw_session_find_worker (self, stw_json_get_string (params, "targetId"), NULL);

  if (surface != NULL)
    _stw_session_close_surface (self, surface);
  if (worker != NULL)
    _stw_session_forget_worker (self, worker);
}

static void
on_target_info_changed (StwTransport *transport,
                        const char   *method,
                        JsonObject   *params,
                        const char   *session_id,
                        StwSession   *self)
{
  JsonObject *info = json_object_get_object_member (params, "targetInfo");
  StwSurface *surface = _stw_session_find_surface_by (self, stw_json_get_string (info, "targetId"), NULL, NULL);

  if (surface == NULL)
    return;
  _stw_surface_set_title (surface, stw_json_get_string (info, "title"));
  _stw_surface_set_url (surface, stw_json_get_string (info, "url"));
}

void
_stw_targets_connect (StwSession   *session,
                      StwTransport *browser)
{
  g_signal_connect (browser, "event::Target.attachedToTarget", G_CALLBACK (on_attached), session);
  g_signal_connect (browser, "event::Target.detachedFromTarget", G_CALLBACK (on_detached), session);
  g_signal_connect (browser, "event::Target.targetDestroyed", G_CALLBACK (on_target_destroyed), session);
  g_signal_connect (browser, "event::Target.targetInfoChanged", G_CALLBACK (on_target_info_changed), session);
}

/* --- frame trees --------------------------------------------------------- */

static void
collect_frames (StwSession *self,
                StwSurface *page,
                JsonObject *frame_tree,
                GPtrArray  *seen)
{
  JsonArray *children = json_object_has_member (frame_tree, "childFrames")
                        ? json_object_get_array_member (frame_tree, "childFrames") : NULL;

  for (guint i = 0; children != NULL && i < json_array_get_length (children); i++)
    {
      JsonObject *child = json_array_get_object_element (children, i);
      JsonObject *frame = json_object_get_object_member (child, "frame");
      const char *frame_id = stw_json_get_string (frame, "id");
      StwSurface *surface;

      if (frame_id == NULL)
        continue;
      surface = _stw_session_find_surface_by (self, stw_surface_get_target_id (page), NULL, frame_id);
      if (surface == NULL)
        surface = _stw_session_add_surface (self, STW_SURFACE_KIND_FRAME, page, stw_surface_get_target_id (page),
                                            stw_surface_get_cdp_session_id (page), frame_id,
                                            stw_json_get_string (frame, "name"), stw_json_get_string (frame, "url"));
      else
        _stw_surface_set_url (surface, stw_json_get_string (frame, "url"));
      g_ptr_array_add (seen, surface);
      collect_frames (self, surface, child, seen);
    }
}

typedef struct
{
  guint      outstanding;
  GPtrArray *seen;
  GPtrArray *pages;
} Refresh;

static void
refresh_free (Refresh *refresh)
{
  g_ptr_array_unref (refresh->seen);
  g_ptr_array_unref (refresh->pages);
  g_free (refresh);
}

static void refresh_done (GTask *task);

typedef struct
{
  GTask      *task;
  StwSurface *page;
} FrameTreeCall;

static void
on_frame_tree (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  FrameTreeCall *call = user_data;
  g_autoptr(GTask) task = call->task;
  g_autoptr(StwSurface) page = call->page;
  StwSession *self = g_task_get_source_object (task);
  Refresh *refresh = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;

  g_free (call);
  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  if (reply != NULL && json_object_has_member (reply, "frameTree") && !stw_surface_is_closed (page))
    collect_frames (self, page, json_object_get_object_member (reply, "frameTree"), refresh->seen);

  refresh_done (task);
}

static void
refresh_done (GTask *task)
{
  StwSession *self = g_task_get_source_object (task);
  Refresh *refresh = g_task_get_task_data (task);
  GPtrArray *surfaces = _stw_session_get_surfaces (self);

  if (--refresh->outstanding > 0)
    return;

  /* Same-process frames that are gone from every tree are closed. */
  for (guint i = 0; i < surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (surfaces, i);
      if (!stw_surface_is_closed (surface) && _stw_surface_get_subframe_id (surface) != NULL &&
          !g_ptr_array_find (refresh->seen, surface, NULL))
        _stw_session_close_surface (self, surface);
    }
  g_task_return_boolean (task, TRUE);
}

static void
on_targets (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSession *self = g_task_get_source_object (task);
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  JsonArray *infos = reply && json_object_has_member (reply, "targetInfos")
                     ? json_object_get_array_member (reply, "targetInfos") : NULL;

  for (guint i = 0; infos != NULL && i < json_array_get_length (infos); i++)
    {
      JsonObject *info = json_array_get_object_element (infos, i);
      StwSurface *surface = info ? _stw_session_find_surface_by (self, stw_json_get_string (info, "targetId"), NULL, NULL) : NULL;

      if (surface == NULL || _stw_surface_get_subframe_id (surface) != NULL)
        continue;
      _stw_surface_set_title (surface, stw_json_get_string (info, "title"));
      _stw_surface_set_url (surface, stw_json_get_string (info, "url"));
    }
  refresh_done (task);
}

void
_stw_targets_refresh_async (StwSession          *session,
                            StwTransport        *browser,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task = g_task_new (session, cancellable, callback, user_data);
  Refresh *refresh = g_new0 (Refresh, 1);
  GPtrArray *surfaces = _stw_session_get_surfaces (session);

  g_task_set_source_tag (task, _stw_targets_refresh_async);
  refresh->seen = g_ptr_array_new ();
  refresh->pages = g_ptr_array_new_with_free_func (g_object_unref);
  g_task_set_task_data (task, refresh, (GDestroyNotify) refresh_free);

  for (guint i = 0; i < surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (surfaces, i);

      /* Every surface that is a target of its own has a frame tree. */
      if (!stw_surface_is_closed (surface) && _stw_surface_get_subframe_id (surface) == NULL)
        g_ptr_array_add (refresh->pages, g_object_ref (surface));
    }

  /* Titles and URLs as the browser knows them now, then the frame trees. */
  refresh->outstanding = refresh->pages->len + 1;
  stw_transport_call_async (browser, "Target.getTargets", NULL, NULL, 5000, cancellable,
                            on_targets, g_object_ref (task));
  for (guint i = 0; i < refresh->pages->len; i++)
    {
      FrameTreeCall *call = g_new0 (FrameTreeCall, 1);

      call->task = g_object_ref (task);
      call->page = g_object_ref (g_ptr_array_index (refresh->pages, i));
      stw_transport_call_async (browser, "Page.getFrameTree", NULL, stw_surface_get_cdp_session_id (call->page),
                                5000, cancellable, on_frame_tree, call);
    }
  g_object_unref (task);
}

gboolean
_stw_targets_refresh_finish (StwSession    *session,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, session), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_targets_refresh_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
