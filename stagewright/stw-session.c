/* stw-session.c: one driven app, its windows and surfaces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <signal.h>
#include <string.h>

#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-session-private.h"
#include "stw-sync-private.h"

#define READY_POLL_MS 10
#define QUIT_REQUEST_MS 1000

/* Readiness as the reference defines it: the document is parsed and shows
 * something meaningful — text, or a control, image or landmark. */
static const char ready_expression[] =
  "(() => {"
  " if (document.readyState === 'loading' || !document.body) return false;"
  " const text = (document.body.innerText || '').trim();"
  " if (text.length > 0) return true;"
  " return !!document.querySelector('button,input,select,textarea,a[href],[role],img,svg,canvas,"
  "table,h1,h2,h3,h4,h5,h6,[data-testid]');"
  "})()";

/* --- StwSurface ---------------------------------------------------------- */

/**
 * StwSurface:
 *
 * Something that renders in a session: a window's page, an iframe, a
 * `<webview>`. Its id is opaque, lives as long as the session and is never
 * reused; a closed surface stays known (as closed) so a stale id fails
 * with `SURFACE_CLOSED` rather than `SURFACE_NOT_FOUND`.
 */
struct _StwSurface
{
  GObject        parent_instance;
  char          *id;
  StwSurfaceKind kind;
  char          *parent_id;
  char          *window_id;
  char          *title;
  char          *url;
  char          *target_id;
  char          *cdp_session_id;
  char          *frame_id;
  gboolean       closed;
};

G_DEFINE_FINAL_TYPE (StwSurface, stw_surface, G_TYPE_OBJECT)

static void
stw_surface_finalize (GObject *object)
{
  StwSurface *self = STW_SURFACE (object);

  g_free (self->id);
  g_free (self->parent_id);
  g_free (self->window_id);
  g_free (self->title);
  g_free (self->url);
  g_free (self->target_id);
  g_free (self->cdp_session_id);
  g_free (self->frame_id);
  G_OBJECT_CLASS (stw_surface_parent_class)->finalize (object);
}

static void
stw_surface_class_init (StwSurfaceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_surface_finalize;
}

static void
stw_surface_init (StwSurface *self)
{
}

/**
 * stw_surface_get_id:
 * @self: a #StwSurface
 *
 * Returns: (transfer none): the surface's id
 */
const char *
stw_surface_get_id (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->id;
}

/**
 * stw_surface_get_kind:
 * @self: a #StwSurface
 *
 * Returns: what the surface is
 */
StwSurfaceKind
stw_surface_get_kind (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), STW_SURFACE_KIND_OTHER);
  return self->kind;
}

/**
 * stw_surface_get_parent_id:
 * @self: a #StwSurface
 *
 * Returns: (transfer none) (nullable): the id of the surface it is embedded in
 */
const char *
stw_surface_get_parent_id (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->parent_id;
}

/**
 * stw_surface_get_window_id:
 * @self: a #StwSurface
 *
 * Returns: (transfer none) (nullable): the id of the window it belongs to
 */
const char *
stw_surface_get_window_id (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->window_id;
}

/**
 * stw_surface_get_title:
 * @self: a #StwSurface
 *
 * Returns: (transfer none) (nullable): the title
 */
const char *
stw_surface_get_title (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->title;
}

/**
 * stw_surface_get_url:
 * @self: a #StwSurface
 *
 * Returns: (transfer none) (nullable): the URL
 */
const char *
stw_surface_get_url (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->url;
}

/**
 * stw_surface_get_target_id:
 * @self: a #StwSurface
 *
 * Returns: (transfer none) (nullable): the DevTools target id
 */
const char *
stw_surface_get_target_id (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->target_id;
}

/**
 * stw_surface_is_closed:
 * @self: a #StwSurface
 *
 * Returns: whether the surface closed or detached
 */
gboolean
stw_surface_is_closed (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), TRUE);
  return self->closed;
}

/**
 * stw_surface_kind_to_string:
 * @kind: a #StwSurfaceKind
 *
 * Returns: (transfer none): `window`, `frame`, `webview` or `other`
 */
const char *
stw_surface_kind_to_string (StwSurfaceKind kind)
{
  switch (kind)
    {
    case STW_SURFACE_KIND_WINDOW:
      return "window";
    case STW_SURFACE_KIND_FRAME:
      return "frame";
    case STW_SURFACE_KIND_WEBVIEW:
      return "webview";
    case STW_SURFACE_KIND_OTHER:
    default:
      return "other";
    }
}

const char *
_stw_surface_get_cdp_session_id (StwSurface *self)
{
  return self->cdp_session_id;
}

/* --- StwSession ---------------------------------------------------------- */

/**
 * StwSession:
 *
 * One driven app: launched and owned (stopping it ends every process it
 * started), attached over CDP, or injected into through the Node
 * inspector. A session follows the app's targets through
 * `Target.setAutoAttach {flatten: true}`: every page, out-of-process
 * iframe and webview becomes a #StwSurface; same-process iframes join
 * when surfaces are refreshed.
 */
struct _StwSession
{
  GObject            parent_instance;

  char              *id;
  char              *transport_name;
  StwSessionManager *manager;     /* weak */
  StwProcess        *process;     /* owned launches only */
  StwTransport      *browser;
  StwTransport      *inspector;
  GPid               pid;
  gboolean           owned;
  gboolean           running;
  gboolean           renderer_ready;
  gboolean           stopping;

  GPtrArray         *surfaces;    /* every surface ever seen, in order */
  guint              next_surface;
  guint              next_window;
  char              *active_window_id;
  char              *active_surface_id;

  GTask             *first_window_task;
  GSource           *first_window_timeout;
  GMainContext      *context;     /* thread-default when made */
};

G_DEFINE_FINAL_TYPE (StwSession, stw_session, G_TYPE_OBJECT)

enum {
  WINDOW_ADDED,
  WINDOW_REMOVED,
  EXITED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void session_exited (StwSession *self);

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}


/* The pending first-window wait, if any: its timeout goes with it. */
static void
destroy_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static GTask *
take_first_window_task (StwSession *self)
{
  destroy_source (&self->first_window_timeout);
  return g_steal_pointer (&self->first_window_task);
}

static void
stw_session_dispose (GObject *object)
{
  StwSession *self = STW_SESSION (object);

  destroy_source (&self->first_window_timeout);
  if (self->browser != NULL)
    g_signal_handlers_disconnect_by_data (self->browser, self);
  if (self->inspector != NULL)
    g_signal_handlers_disconnect_by_data (self->inspector, self);
  if (self->process != NULL)
    g_signal_handlers_disconnect_by_data (self->process, self);
  if (self->browser != NULL)
    stw_transport_close (self->browser);
  if (self->inspector != NULL)
    stw_transport_close (self->inspector);
  g_clear_object (&self->browser);
  g_clear_object (&self->inspector);
  /* An owned app never outlives its session. */
  if (self->process != NULL && stw_process_is_running (self->process))
    stw_process_kill (self->process);
  g_clear_object (&self->process);

  G_OBJECT_CLASS (stw_session_parent_class)->dispose (object);
}

static void
stw_session_finalize (GObject *object)
{
  StwSession *self = STW_SESSION (object);

  g_free (self->id);
  g_free (self->transport_name);
  g_free (self->active_window_id);
  g_free (self->active_surface_id);
  g_ptr_array_unref (self->surfaces);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (stw_session_parent_class)->finalize (object);
}

static void
stw_session_class_init (StwSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = stw_session_dispose;
  object_class->finalize = stw_session_finalize;

  /**
   * StwSession::window-added:
   * @self: the session
   * @window: the window's page surface
   *
   * A window opened.
   */
  signals[WINDOW_ADDED] = g_signal_new ("window-added", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, STW_TYPE_SURFACE);
  /**
   * StwSession::window-removed:
   * @self: the session
   * @window: the window's page surface, now closed
   *
   * A window closed.
   */
  signals[WINDOW_REMOVED] = g_signal_new ("window-removed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, STW_TYPE_SURFACE);
  /**
   * StwSession::exited:
   * @self: the session
   *
   * The app went away (exited, crashed, or its connection dropped).
   */
  signals[EXITED] = g_signal_new ("exited", G_TYPE_FROM_CLASS (klass),
                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 0);
}

static void
stw_session_init (StwSession *self)
{
  self->surfaces = g_ptr_array_new_with_free_func (g_object_unref);
  self->running = TRUE;
  self->context = g_main_context_ref_thread_default ();
}

static StwSurface *
find_surface (StwSession *self,
              const char *id)
{
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (g_strcmp0 (surface->id, id) == 0)
        return surface;
    }
  return NULL;
}

static StwSurface *
find_surface_by (StwSession *self,
                 const char *target_id,
                 const char *cdp_session_id,
                 const char *frame_id)
{
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (surface->closed)
        continue;
      if (target_id != NULL && g_strcmp0 (surface->target_id, target_id) == 0 &&
          (frame_id == NULL || g_strcmp0 (surface->frame_id, frame_id) == 0))
        return surface;
      if (cdp_session_id != NULL && g_strcmp0 (surface->cdp_session_id, cdp_session_id) == 0 &&
          surface->kind != STW_SURFACE_KIND_FRAME)
        return surface;
    }
  return NULL;
}

static StwSurface *
first_live_window (StwSession *self)
{
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (!surface->closed && surface->kind == STW_SURFACE_KIND_WINDOW)
        return surface;
    }
  return NULL;
}

static void
set_active (StwSession *self,
            StwSurface *window,
            StwSurface *surface)
{
  g_free (self->active_window_id);
  self->active_window_id = window ? g_strdup (window->id) : NULL;
  g_free (self->active_surface_id);
  self->active_surface_id = surface ? g_strdup (surface->id) : (window ? g_strdup (window->id) : NULL);
}

/* When the active window or surface closes, fall back deterministically to
 * the first live window. */
static void
repair_active (StwSession *self)
{
  StwSurface *window = self->active_window_id ? find_surface (self, self->active_window_id) : NULL;
  StwSurface *surface = self->active_surface_id ? find_surface (self, self->active_surface_id) : NULL;

  if (window == NULL || window->closed)
    {
      set_active (self, first_live_window (self), NULL);
      return;
    }
  if (surface == NULL || surface->closed)
    set_active (self, window, NULL);
}

static void
close_surface (StwSession *self,
               StwSurface *surface)
{
  if (surface->closed)
    return;
  surface->closed = TRUE;

  /* Frames and guests of a closed page close with it. */
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *child = g_ptr_array_index (self->surfaces, i);
      if (!child->closed && g_strcmp0 (child->parent_id, surface->id) == 0)
        close_surface (self, child);
    }

  if (surface->kind == STW_SURFACE_KIND_WINDOW)
    g_signal_emit (self, signals[WINDOW_REMOVED], 0, surface);
  repair_active (self);
}

static StwSurface *
add_surface (StwSession     *self,
             StwSurfaceKind  kind,
             StwSurface     *parent,
             const char     *target_id,
             const char     *cdp_session_id,
             const char     *frame_id,
             const char     *title,
             const char     *url)
{
  StwSurface *surface = g_object_new (STW_TYPE_SURFACE, NULL);

  surface->id = g_strdup_printf ("%s-s%u", self->id, ++self->next_surface);
  surface->kind = kind;
  surface->parent_id = parent ? g_strdup (parent->id) : NULL;
  surface->target_id = g_strdup (target_id);
  surface->cdp_session_id = g_strdup (cdp_session_id);
  surface->frame_id = g_strdup (frame_id);
  surface->title = g_strdup (title);
  surface->url = g_strdup (url);
  if (kind == STW_SURFACE_KIND_WINDOW)
    surface->window_id = g_strdup_printf ("%s-w%u", self->id, ++self->next_window);
  else if (parent != NULL)
    surface->window_id = g_strdup (parent->window_id);
  g_ptr_array_add (self->surfaces, surface);

  if (kind == STW_SURFACE_KIND_WINDOW)
    {
      g_debug ("Session %s: window %s attached", self->id, surface->window_id);
      if (self->active_window_id == NULL)
        set_active (self, surface, NULL);
      g_signal_emit (self, signals[WINDOW_ADDED], 0, surface);
      if (self->first_window_task != NULL)
        {
          GTask *task = take_first_window_task (self);
          g_task_return_boolean (task, TRUE);
          g_object_unref (task);
        }
    }
  return surface;
}

static const char *
json_string (JsonObject *object,
             const char *member)
{
  return object ? json_object_get_string_member_with_default (object, member, NULL) : NULL;
}

static void
on_attached (StwTransport *transport,
             const char   *method,
             JsonObject   *params,
             const char   *parent_session_id,
             StwSession   *self)
{
  JsonObject *info = json_object_get_object_member (params, "targetInfo");
  const char *cdp_session = json_string (params, "sessionId");
  const char *type = json_string (info, "type");
  const char *target_id = json_string (info, "targetId");
  StwSurface *parent = NULL;
  StwSurfaceKind kind;
  g_autoptr(JsonObject) auto_attach = NULL;

  if (cdp_session == NULL || type == NULL || target_id == NULL)
    return;

  if (g_str_equal (type, "page"))
    kind = STW_SURFACE_KIND_WINDOW;
  else if (g_str_equal (type, "iframe"))
    kind = STW_SURFACE_KIND_FRAME;
  else if (g_str_equal (type, "webview"))
    kind = STW_SURFACE_KIND_WEBVIEW;
  else
    {
      /* Browser UI, workers and the like are not surfaces. */
      if (json_object_get_boolean_member_with_default (params, "waitingForDebugger", FALSE))
        stw_transport_send_notification (transport, "Runtime.runIfWaitingForDebugger", NULL, cdp_session);
      return;
    }

  if (parent_session_id != NULL)
    parent = find_surface_by (self, NULL, parent_session_id, NULL);
  if (find_surface_by (self, target_id, NULL, NULL) == NULL)
    add_surface (self, kind, parent, target_id, cdp_session, NULL,
                 json_string (info, "title"), json_string (info, "url"));

  /* Follow the page's own out-of-process frames and guests. */
  auto_attach = json_object_new ();
  json_object_set_boolean_member (auto_attach, "autoAttach", TRUE);
  json_object_set_boolean_member (auto_attach, "waitForDebuggerOnStart", FALSE);
  json_object_set_boolean_member (auto_attach, "flatten", TRUE);
  stw_transport_send_notification (transport, "Target.setAutoAttach", auto_attach, cdp_session);
  if (json_object_get_boolean_member_with_default (params, "waitingForDebugger", FALSE))
    stw_transport_send_notification (transport, "Runtime.runIfWaitingForDebugger", NULL, cdp_session);
}

static void
on_detached (StwTransport *transport,
             const char   *method,
             JsonObject   *params,
             const char   *session_id,
             StwSession   *self)
{
  StwSurface *surface = find_surface_by (self, NULL, json_string (params, "sessionId"), NULL);

  if (surface != NULL)
    close_surface (self, surface);
}

static void
on_target_destroyed (StwTransport *transport,
                     const char   *method,
                     JsonObject   *params,
                     const char   *session_id,
                     StwSession   *self)
{
  StwSurface *surface = find_surface_by (self, json_string (params, "targetId"), NULL, NULL);

  if (surface != NULL)
    close_surface (self, surface);
}

static void
on_target_info_changed (StwTransport *transport,
                        const char   *method,
                        JsonObject   *params,
                        const char   *session_id,
                        StwSession   *self)
{
  JsonObject *info = json_object_get_object_member (params, "targetInfo");
  StwSurface *surface = find_surface_by (self, json_string (info, "targetId"), NULL, NULL);

  if (surface == NULL)
    return;
  g_free (surface->title);
  surface->title = g_strdup (json_string (info, "title"));
  g_free (surface->url);
  surface->url = g_strdup (json_string (info, "url"));
}

static void
on_transport_closed (StwTransport *transport,
                     const GError *error,
                     StwSession   *self)
{
  /* The browser connection is the session's life line; the inspector of
   * an app that also has a browser connection may close on its own. */
  if (transport == self->browser || self->browser == NULL)
    session_exited (self);
}

static void
on_process_exited (StwProcess *process,
                   int         status,
                   StwSession *self)
{
  session_exited (self);
}

static void
on_debugger_waiting (StwProcess *process,
                     StwSession *self)
{
  /* Node will not exit while an inspector client is connected. */
  if (self->inspector != NULL)
    stw_transport_close (self->inspector);
}

static void
session_exited (StwSession *self)
{
  if (!self->running)
    return;
  self->running = FALSE;

  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      surface->closed = TRUE;
    }
  if (self->first_window_task != NULL)
    {
      GTask *task = take_first_window_task (self);
      g_task_return_new_error (task, STW_ERROR, STW_ERROR_LAUNCH_FAILED,
                               "%s", _("The app exited before its first window appeared"));
      g_object_unref (task);
    }

  g_object_ref (self);
  g_signal_emit (self, signals[EXITED], 0);
  if (self->manager != NULL)
    stw_session_manager_remove (self->manager, self);
  g_object_unref (self);
}

static void
connect_transports (StwSession *self)
{
  if (self->browser != NULL)
    {
      g_signal_connect (self->browser, "event::Target.attachedToTarget", G_CALLBACK (on_attached), self);
      g_signal_connect (self->browser, "event::Target.detachedFromTarget", G_CALLBACK (on_detached), self);
      g_signal_connect (self->browser, "event::Target.targetDestroyed", G_CALLBACK (on_target_destroyed), self);
      g_signal_connect (self->browser, "event::Target.targetInfoChanged", G_CALLBACK (on_target_info_changed), self);
      g_signal_connect (self->browser, "closed", G_CALLBACK (on_transport_closed), self);
    }
  if (self->inspector != NULL)
    g_signal_connect (self->inspector, "closed", G_CALLBACK (on_transport_closed), self);
  if (self->process != NULL)
    {
      g_signal_connect (self->process, "exited", G_CALLBACK (on_process_exited), self);
      g_signal_connect (self->process, "debugger-waiting", G_CALLBACK (on_debugger_waiting), self);
    }
}

StwSession *
_stw_session_new_launched (StwSessionManager *manager,
                           const char        *id,
                           StwProcess        *process,
                           StwTransport      *browser,
                           StwTransport      *inspector)
{
  StwSession *self = g_object_new (STW_TYPE_SESSION, NULL);

  self->id = g_strdup (id);
  self->manager = manager;
  self->transport_name = g_strdup ("cdp");
  self->process = g_object_ref (process);
  self->browser = browser ? g_object_ref (browser) : NULL;
  self->inspector = inspector ? g_object_ref (inspector) : NULL;
  self->pid = stw_process_get_pid (process);
  self->owned = TRUE;
  connect_transports (self);
  return self;
}

StwSession *
_stw_session_new_attached (StwSessionManager *manager,
                           const char        *id,
                           const char        *transport_name,
                           StwTransport      *browser,
                           StwTransport      *inspector,
                           GPid               pid)
{
  StwSession *self = g_object_new (STW_TYPE_SESSION, NULL);

  self->id = g_strdup (id);
  self->manager = manager;
  self->transport_name = g_strdup (transport_name);
  self->browser = browser ? g_object_ref (browser) : NULL;
  self->inspector = inspector ? g_object_ref (inspector) : NULL;
  self->pid = pid;
  connect_transports (self);
  return self;
}

StwTransport *
_stw_session_get_browser (StwSession *self)
{
  return self->browser;
}

/* --- start: targets, first window, readiness ---------------------------- */

typedef struct
{
  guint    ready_timeout_ms;
  gint64   ready_deadline_us;
  GSource *timer;
} Start;

static void
start_free (Start *start)
{
  if (start->timer != NULL)
    {
      g_source_destroy (start->timer);
      g_source_unref (start->timer);
    }
  g_free (start);
}

static void poll_ready (GTask *task);

static void
on_start_refreshed (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  stw_session_refresh_surfaces_finish (STW_SESSION (object), result, NULL);
  g_task_return_boolean (task, TRUE);
}

/* Chromium announces navigations but not <title> changes
 * (Target.targetInfoChanged), so the titles a launch or attach answers with
 * are read now, with the same-process frames, once the page is ready. */
static void
start_done (GTask *task)
{
  StwSession *self = g_task_get_source_object (task);

  stw_session_refresh_surfaces_async (self, g_task_get_cancellable (task), on_start_refreshed, task);
}

static void
on_ready_evaluated (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSession *self = g_task_get_source_object (task);
  Start *start = g_task_get_task_data (task);
  g_autoptr(JsonNode) value = NULL;

  value = stw_session_evaluate_renderer_finish (self, result, NULL);
  if (value != NULL && JSON_NODE_HOLDS_VALUE (value) &&
      json_node_get_value_type (value) == G_TYPE_BOOLEAN && json_node_get_boolean (value))
    {
      self->renderer_ready = TRUE;
      g_debug ("Session %s: renderer ready", self->id);
      start_done (g_steal_pointer (&task));
      return;
    }

  if (!self->running)
    {
      g_task_return_new_error (task, STW_ERROR, STW_ERROR_LAUNCH_FAILED,
                               "%s", _("The app exited while its window was loading"));
      return;
    }
  if (g_get_monotonic_time () >= start->ready_deadline_us)
    {
      /* Not ready is reported, not an error: the agent sees renderer_ready. */
      start_done (g_steal_pointer (&task));
      return;
    }
  poll_ready (g_steal_pointer (&task));
}

static gboolean
on_ready_timer (gpointer user_data)
{
  GTask *task = user_data;
  StwSession *self = g_task_get_source_object (task);
  Start *start = g_task_get_task_data (task);

  g_clear_pointer (&start->timer, g_source_unref);
  stw_session_evaluate_renderer_async (self, ready_expression, g_task_get_cancellable (task),
                                       on_ready_evaluated, task);
  return G_SOURCE_REMOVE;
}

static void
poll_ready (GTask *task)
{
  Start *start = g_task_get_task_data (task);

  start->timer = g_timeout_source_new (READY_POLL_MS);
  g_source_set_callback (start->timer, on_ready_timer, task, NULL);
  g_source_attach (start->timer, g_task_get_context (task));
}

static void
on_first_window (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSession *self = g_task_get_source_object (task);
  Start *start = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  GCancellable *cancellable = g_task_get_cancellable (task);

  start->ready_deadline_us = g_get_monotonic_time () + (gint64) start->ready_timeout_ms * 1000;
  stw_session_evaluate_renderer_async (self, ready_expression, cancellable,
                                       on_ready_evaluated, g_steal_pointer (&task));
}

static gboolean
on_first_window_timeout (gpointer user_data)
{
  g_autoptr(StwSession) self = g_weak_ref_get (user_data);

  /* A weak reference: the timeout never keeps a session alive, and never
   * acts on one that is gone. */
  if (self == NULL || self->first_window_task == NULL)
    return G_SOURCE_REMOVE;

  {
    GTask *task = take_first_window_task (self);
    GError *error = stw_error_new ("LAUNCH_TIMEOUT", _("No window appeared in time"));

    if (self->process != NULL)
      {
        g_autoptr(JsonObject) details = json_object_new ();
        g_autofree char *tail = stw_process_dup_log_tail (self->process, 12);

        json_object_set_string_member (details, "log_tail", tail);
        stw_error_set_details (error, details);
        g_message ("Session %s: no window appeared in time; the app's log ends with:\n%s", self->id, tail);
      }
    g_task_return_error (task, error);
    g_object_unref (task);
  }
  return G_SOURCE_REMOVE;
}

static void
on_auto_attach_set (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/* Connects the session to its targets and waits for the first window and
 * (bounded) for its renderer to be ready. */
void
_stw_session_start_async (StwSession          *self,
                          guint                first_window_timeout_ms,
                          guint                ready_timeout_ms,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(JsonObject) discover = json_object_new ();
  g_autoptr(JsonObject) auto_attach = json_object_new ();
  Start *start = g_new0 (Start, 1);
  GTask *window_task;

  start->ready_timeout_ms = ready_timeout_ms;
  g_task_set_task_data (task, start, (GDestroyNotify) start_free);

  if (self->inspector != NULL)
    {
      /* Loads require() into the command-line API (Electron >= 28). */
      stw_transport_send_notification (self->inspector, "Runtime.enable", NULL, NULL);
      stw_transport_send_notification (self->inspector, "Runtime.runIfWaitingForDebugger", NULL, NULL);
    }

  if (self->browser == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  json_object_set_boolean_member (discover, "discover", TRUE);
  stw_transport_send_notification (self->browser, "Target.setDiscoverTargets", discover, NULL);

  /* The first window: already attached, or awaited. */
  window_task = g_task_new (self, cancellable, on_first_window, g_object_ref (task));
  if (first_live_window (self) != NULL)
    g_task_return_boolean (window_task, TRUE);
  else
    {
      /* The session owns the timeout (destroyed with the wait), so it
       * holds no reference that would keep a finished session alive. */
      GWeakRef *weak = g_new0 (GWeakRef, 1);

      g_weak_ref_init (weak, self);
      self->first_window_timeout = g_timeout_source_new (first_window_timeout_ms > 0 ? first_window_timeout_ms : 30000);
      g_source_set_callback (self->first_window_timeout, on_first_window_timeout, weak, weak_ref_free);
      g_source_attach (self->first_window_timeout, g_task_get_context (window_task));
      self->first_window_task = g_object_ref (window_task);
    }
  g_object_unref (window_task);

  json_object_set_boolean_member (auto_attach, "autoAttach", TRUE);
  json_object_set_boolean_member (auto_attach, "waitForDebuggerOnStart", FALSE);
  json_object_set_boolean_member (auto_attach, "flatten", TRUE);
  stw_transport_call_async (self->browser, "Target.setAutoAttach", auto_attach, NULL, 0,
                            cancellable, on_auto_attach_set,
                            g_task_new (self, cancellable, NULL, NULL));
}

gboolean
_stw_session_start_finish (StwSession    *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- evaluation ---------------------------------------------------------- */

static GError *
exception_error (JsonObject *reply)
{
  JsonObject *details = json_object_get_object_member (reply, "exceptionDetails");
  JsonObject *exception = details ? json_object_get_object_member (details, "exception") : NULL;
  const char *text = json_string (exception, "description");

  if (text == NULL)
    text = json_string (details, "text");
  return stw_error_new ("EVAL_RUNTIME_ERROR", "%s", text ? text : "The evaluated code threw");
}

static void
on_evaluated (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *remote;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (json_object_has_member (reply, "exceptionDetails"))
    {
      g_task_return_error (task, exception_error (reply));
      return;
    }

  remote = json_object_get_object_member (reply, "result");
  if (remote != NULL && json_object_has_member (remote, "value"))
    g_task_return_pointer (task, json_node_copy (json_object_get_member (remote, "value")),
                           (GDestroyNotify) json_node_unref);
  else
    g_task_return_pointer (task, json_node_new (JSON_NODE_NULL), (GDestroyNotify) json_node_unref);
}

static JsonObject *
evaluate_params (const char *expression,
                 gboolean    command_line_api)
{
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "expression", expression);
  json_object_set_boolean_member (params, "returnByValue", TRUE);
  json_object_set_boolean_member (params, "awaitPromise", TRUE);
  if (command_line_api)
    json_object_set_boolean_member (params, "includeCommandLineAPI", TRUE);
  return params;
}

/**
 * stw_session_evaluate_main_async:
 * @self: a #StwSession
 * @expression: JavaScript to run in the app's main process
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the value
 * @user_data: data for @callback
 *
 * Evaluates @expression in the Node main process, with `require` available
 * (the inspector's command-line API). Sessions without a main process
 * (plain Chromium, or attached over CDP) fail with `TRANSPORT_UNSUPPORTED`.
 */
void
stw_session_evaluate_main_async (StwSession          *self,
                                 const char          *expression,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(JsonObject) params = NULL;

  g_task_set_source_tag (task, stw_session_evaluate_main_async);
  if (!self->running)
    {
      g_task_return_error (task, stw_error_new_literal ("NOT_RUNNING", NULL));
      g_object_unref (task);
      return;
    }
  if (self->inspector == NULL || stw_transport_is_closed (self->inspector))
    {
      g_task_return_error (task, stw_error_new_literal ("TRANSPORT_UNSUPPORTED",
                                                        _("This session has no main process to talk to")));
      g_object_unref (task);
      return;
    }

  params = evaluate_params (expression, TRUE);
  stw_transport_call_async (self->inspector, "Runtime.evaluate", params, NULL, 0, cancellable,
                            on_evaluated, task);
}

/**
 * stw_session_evaluate_main_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Returns: (transfer full): the value, by JSON
 */
JsonNode *
stw_session_evaluate_main_finish (StwSession    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

typedef struct
{
  char *expression;
  char *cdp_session;
} FrameEval;

static void
frame_eval_free (FrameEval *eval)
{
  g_free (eval->expression);
  g_free (eval->cdp_session);
  g_free (eval);
}

static void
on_world_created (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  FrameEval *eval = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(GError) error = NULL;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  params = evaluate_params (eval->expression, FALSE);
  json_object_set_int_member (params, "contextId",
                              json_object_get_int_member_with_default (reply, "executionContextId", 0));
  stw_transport_call_async (STW_TRANSPORT (object), "Runtime.evaluate", params, eval->cdp_session, 0,
                            g_task_get_cancellable (task), on_evaluated, g_object_ref (task));
}

/**
 * stw_session_evaluate_renderer_async:
 * @self: a #StwSession
 * @expression: JavaScript to run in the active surface
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the value
 * @user_data: data for @callback
 *
 * Evaluates @expression in the active surface. Frames are reached through
 * an isolated world of their own, so the app's globals cannot interfere.
 */
void
stw_session_evaluate_renderer_async (StwSession          *self,
                                     const char          *expression,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  StwSurface *surface = stw_session_get_active_surface (self);
  g_autoptr(JsonObject) params = NULL;

  if (!self->running)
    {
      g_task_return_error (task, stw_error_new_literal ("NOT_RUNNING", NULL));
      g_object_unref (task);
      return;
    }
  if (self->browser == NULL)
    {
      g_task_return_error (task, stw_error_new_literal ("TRANSPORT_UNSUPPORTED",
                                                        _("This session has no renderer connection")));
      g_object_unref (task);
      return;
    }
  if (surface == NULL)
    {
      g_task_return_error (task, stw_error_new_literal ("SURFACE_NOT_FOUND", _("The app has no window")));
      g_object_unref (task);
      return;
    }

  if (surface->frame_id != NULL)
    {
      FrameEval *eval = g_new0 (FrameEval, 1);

      eval->expression = g_strdup (expression);
      eval->cdp_session = g_strdup (surface->cdp_session_id);
      g_task_set_task_data (task, eval, (GDestroyNotify) frame_eval_free);
      params = json_object_new ();
      json_object_set_string_member (params, "frameId", surface->frame_id);
      json_object_set_string_member (params, "worldName", "stagewright");
      stw_transport_call_async (self->browser, "Page.createIsolatedWorld", params,
                                surface->cdp_session_id, 0, cancellable, on_world_created, task);
      return;
    }

  params = evaluate_params (expression, FALSE);
  stw_transport_call_async (self->browser, "Runtime.evaluate", params, surface->cdp_session_id, 0,
                            cancellable, on_evaluated, task);
}

/**
 * stw_session_evaluate_renderer_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Returns: (transfer full): the value, by JSON
 */
JsonNode *
stw_session_evaluate_renderer_finish (StwSession    *self,
                                      GAsyncResult  *result,
                                      GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- surfaces ------------------------------------------------------------ */

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
      const char *frame_id = json_string (frame, "id");
      StwSurface *surface;

      if (frame_id == NULL)
        continue;
      surface = find_surface_by (self, page->target_id, NULL, frame_id);
      if (surface == NULL)
        surface = add_surface (self, STW_SURFACE_KIND_FRAME, page, page->target_id,
                               page->cdp_session_id, frame_id,
                               json_string (frame, "name"), json_string (frame, "url"));
      else
        {
          g_free (surface->url);
          surface->url = g_strdup (json_string (frame, "url"));
        }
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
  if (reply != NULL && json_object_has_member (reply, "frameTree") && !page->closed)
    collect_frames (self, page, json_object_get_object_member (reply, "frameTree"), refresh->seen);

  refresh_done (task);
}

static void
refresh_done (GTask *task)
{
  StwSession *self = g_task_get_source_object (task);
  Refresh *refresh = g_task_get_task_data (task);

  if (--refresh->outstanding > 0)
    return;

  /* Same-process frames that are gone from every tree are closed. */
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (!surface->closed && surface->frame_id != NULL &&
          !g_ptr_array_find (refresh->seen, surface, NULL))
        close_surface (self, surface);
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
      StwSurface *surface = info ? find_surface_by (self, json_string (info, "targetId"), NULL, NULL) : NULL;

      if (surface == NULL || surface->frame_id != NULL)
        continue;
      g_free (surface->title);
      surface->title = g_strdup (json_string (info, "title"));
      g_free (surface->url);
      surface->url = g_strdup (json_string (info, "url"));
    }
  refresh_done (task);
}

/**
 * stw_session_refresh_surfaces_async:
 * @self: a #StwSession
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the surfaces are current
 * @user_data: data for @callback
 *
 * Reads every window's frame tree, so same-process iframes are surfaces
 * too (out-of-process ones are followed as they attach).
 */
void
stw_session_refresh_surfaces_async (StwSession          *self,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Refresh *refresh = g_new0 (Refresh, 1);

  refresh->seen = g_ptr_array_new ();
  refresh->pages = g_ptr_array_new_with_free_func (g_object_unref);
  g_task_set_task_data (task, refresh, (GDestroyNotify) refresh_free);

  if (!self->running || self->browser == NULL)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }

  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (!surface->closed && surface->frame_id == NULL &&
          (surface->kind == STW_SURFACE_KIND_WINDOW || surface->kind == STW_SURFACE_KIND_WEBVIEW ||
           surface->kind == STW_SURFACE_KIND_FRAME))
        g_ptr_array_add (refresh->pages, g_object_ref (surface));
    }

  /* Titles and URLs as the browser knows them now, then the frame trees. */
  refresh->outstanding = refresh->pages->len + 1;
  stw_transport_call_async (self->browser, "Target.getTargets", NULL, NULL, 5000, cancellable,
                            on_targets, g_object_ref (task));
  for (guint i = 0; i < refresh->pages->len; i++)
    {
      FrameTreeCall *call = g_new0 (FrameTreeCall, 1);

      call->task = g_object_ref (task);
      call->page = g_object_ref (g_ptr_array_index (refresh->pages, i));
      stw_transport_call_async (self->browser, "Page.getFrameTree", NULL, call->page->cdp_session_id,
                                5000, cancellable, on_frame_tree, call);
    }
  g_object_unref (task);
}

/**
 * stw_session_refresh_surfaces_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put a failure
 *
 * Returns: %TRUE when the surfaces are current
 */
gboolean
stw_session_refresh_surfaces_finish (StwSession    *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * stw_session_list_windows:
 * @self: a #StwSession
 *
 * Returns: (transfer container) (element-type StwSurface): the live windows, in opening order
 */
GList *
stw_session_list_windows (StwSession *self)
{
  GList *windows = NULL;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (!surface->closed && surface->kind == STW_SURFACE_KIND_WINDOW)
        windows = g_list_prepend (windows, surface);
    }
  return g_list_reverse (windows);
}

static void
append_tree (StwSession *self,
             StwSurface *parent,
             GList     **list)
{
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (!surface->closed && g_strcmp0 (surface->parent_id, parent->id) == 0)
        {
          *list = g_list_prepend (*list, surface);
          append_tree (self, surface, list);
        }
    }
}

/**
 * stw_session_list_surfaces:
 * @self: a #StwSession
 *
 * Returns: (transfer container) (element-type StwSurface): the live
 *   surfaces, parents before their children
 */
GList *
stw_session_list_surfaces (StwSession *self)
{
  GList *list = NULL;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      StwSurface *parent = surface->parent_id ? find_surface (self, surface->parent_id) : NULL;

      /* Roots: windows, and anything whose parent we never saw. */
      if (surface->closed || (parent != NULL && !parent->closed))
        continue;
      list = g_list_prepend (list, surface);
      append_tree (self, surface, &list);
    }
  return g_list_reverse (list);
}

/**
 * stw_session_get_active_window:
 * @self: a #StwSession
 *
 * Returns: (transfer none) (nullable): the window later calls act on
 */
StwSurface *
stw_session_get_active_window (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), NULL);
  repair_active (self);
  return self->active_window_id ? find_surface (self, self->active_window_id) : NULL;
}

/**
 * stw_session_get_active_surface:
 * @self: a #StwSession
 *
 * Returns: (transfer none) (nullable): the surface page operations act on
 */
StwSurface *
stw_session_get_active_surface (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), NULL);
  repair_active (self);
  return self->active_surface_id ? find_surface (self, self->active_surface_id) : NULL;
}

/**
 * stw_session_find_window:
 * @self: a #StwSession
 * @window_id: (nullable): a window id or DevTools target id (wins over the others)
 * @title: (nullable): an exact window title
 * @index: a 0-based index among live windows, or -1
 * @error: `NOT_RUNNING`, `TRANSPORT_UNSUPPORTED` (no renderer connection)
 *   or `REF_NOT_FOUND` when nothing matches
 *
 * Finds a live window by the first criterion given; with none, the first
 * window.
 *
 * Returns: (transfer none) (nullable): the window's page surface
 */
StwSurface *
stw_session_find_window (StwSession  *self,
                         const char  *window_id,
                         const char  *title,
                         int          index,
                         GError     **error)
{
  g_autoptr(GList) windows = NULL;
  int i = 0;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  if (!self->running)
    {
      g_propagate_error (error, stw_error_new_literal ("NOT_RUNNING", NULL));
      return NULL;
    }
  if (self->browser == NULL)
    {
      g_propagate_error (error, stw_error_new_literal ("TRANSPORT_UNSUPPORTED",
                                                       _("This session has no renderer connection")));
      return NULL;
    }

  windows = stw_session_list_windows (self);
  for (const GList *l = windows; l != NULL; l = l->next, i++)
    {
      StwSurface *window = l->data;

      if (window_id != NULL
          ? (g_strcmp0 (window->window_id, window_id) == 0 || g_strcmp0 (window->target_id, window_id) == 0)
          : title != NULL ? g_strcmp0 (window->title, title) == 0
          : index >= 0 ? i == index
          : TRUE)
        return window;
    }

  {
    GError *missing = stw_error_new ("REF_NOT_FOUND", _("No window matches"));
    stw_error_add_next_action (missing, "electron_windows_list()");
    g_propagate_error (error, missing);
  }
  return NULL;
}

/**
 * stw_session_switch_window:
 * @self: a #StwSession
 * @window_id: (nullable): a window id (wins over the others)
 * @title: (nullable): an exact window title
 * @index: a 0-based index among live windows, or -1
 * @error: as stw_session_find_window()
 *
 * Makes a window the active one (Stagewright's target, not the OS focus);
 * its page becomes the active surface. With no criterion, the first
 * window.
 *
 * Returns: %TRUE on success
 */
gboolean
stw_session_switch_window (StwSession  *self,
                           const char  *window_id,
                           const char  *title,
                           int          index,
                           GError     **error)
{
  StwSurface *match;

  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);

  match = stw_session_find_window (self, window_id, title, index, error);
  if (match == NULL)
    return FALSE;
  set_active (self, match, NULL);
  return TRUE;
}

/**
 * stw_session_switch_surface:
 * @self: a #StwSession
 * @surface_id: a surface id from stw_session_list_surfaces()
 * @error: `SURFACE_NOT_FOUND` (never seen) or `SURFACE_CLOSED`
 *
 * Makes a surface the target of page operations; its window becomes the
 * active window.
 *
 * Returns: %TRUE on success
 */
gboolean
stw_session_switch_surface (StwSession  *self,
                            const char  *surface_id,
                            GError     **error)
{
  StwSurface *surface;
  StwSurface *window;

  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  g_return_val_if_fail (surface_id != NULL, FALSE);

  surface = find_surface (self, surface_id);
  if (surface == NULL)
    {
      GError *missing = stw_error_new ("SURFACE_NOT_FOUND", _("No surface has the id %s"), surface_id);
      stw_error_add_next_action (missing, "electron_surfaces_list()");
      g_propagate_error (error, missing);
      return FALSE;
    }
  if (surface->closed)
    {
      GError *closed = stw_error_new ("SURFACE_CLOSED", _("Surface %s has closed"), surface_id);
      stw_error_add_next_action (closed, "electron_surfaces_list()");
      g_propagate_error (error, closed);
      return FALSE;
    }

  window = surface->kind == STW_SURFACE_KIND_WINDOW ? surface : NULL;
  for (guint i = 0; window == NULL && i < self->surfaces->len; i++)
    {
      StwSurface *candidate = g_ptr_array_index (self->surfaces, i);
      if (candidate->kind == STW_SURFACE_KIND_WINDOW &&
          g_strcmp0 (candidate->window_id, surface->window_id) == 0)
        window = candidate;
    }
  set_active (self, window, surface);
  return TRUE;
}

/* --- identity ------------------------------------------------------------ */

/**
 * stw_session_get_id:
 * @self: a #StwSession
 *
 * Returns: (transfer none): the session id
 */
const char *
stw_session_get_id (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), NULL);
  return self->id;
}

/**
 * stw_session_get_transport_name:
 * @self: a #StwSession
 *
 * Returns: (transfer none): `cdp` or `injector`
 */
const char *
stw_session_get_transport_name (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), NULL);
  return self->transport_name;
}

/**
 * stw_session_is_owned:
 * @self: a #StwSession
 *
 * Returns: whether the server launched the app (and so owns its processes)
 */
gboolean
stw_session_is_owned (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  return self->owned;
}

/**
 * stw_session_is_running:
 * @self: a #StwSession
 *
 * Returns: whether the app is still there
 */
gboolean
stw_session_is_running (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  return self->running;
}

/**
 * stw_session_has_main_process:
 * @self: a #StwSession
 *
 * Returns: whether main-process operations are possible
 */
gboolean
stw_session_has_main_process (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  return self->inspector != NULL && !stw_transport_is_closed (self->inspector);
}

/**
 * stw_session_is_renderer_ready:
 * @self: a #StwSession
 *
 * Returns: whether the first window showed meaningful content at launch
 */
gboolean
stw_session_is_renderer_ready (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  return self->renderer_ready;
}

/**
 * stw_session_get_pid:
 * @self: a #StwSession
 *
 * Returns: the app's main process id, or 0 when unknown
 */
GPid
stw_session_get_pid (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), 0);
  return self->pid;
}

JsonObject *
_stw_session_capabilities (StwSession *self)
{
  JsonObject *caps = json_object_new ();
  gboolean renderer = self->browser != NULL;

  json_object_set_boolean_member (caps, "mainEval", stw_session_has_main_process (self));
  json_object_set_boolean_member (caps, "rendererEval", renderer);
  json_object_set_boolean_member (caps, "interaction", renderer);
  json_object_set_boolean_member (caps, "surfaces", renderer);
  json_object_set_boolean_member (caps, "owned", self->owned);
  if (self->process != NULL && stw_process_get_inspector_note (self->process) != NULL)
    {
      JsonObject *notes = json_object_new ();
      json_object_set_string_member (notes, "mainEval", stw_process_get_inspector_note (self->process));
      json_object_set_object_member (caps, "notes", notes);
    }
  return caps;
}

/* --- info ---------------------------------------------------------------- */

static const char info_expression[] =
  "(() => {"
  /* A plain Node process (injected) has no electron module: app is null. */
  " let app = null;"
  " try { app = require('electron').app; } catch (e) {}"
  " if (!app || typeof app.getName !== 'function') app = null;"
  " const v = process.versions;"
  " const path = (n) => { try { return app.getPath(n); } catch (e) { return null; } };"
  " return {"
  "  versions: { electron: v.electron || null, node: v.node || null, chrome: v.chrome || null, v8: v.v8 || null },"
  "  app: app && { name: app.getName(), version: app.getVersion(), path: app.getAppPath(),"
  "         exe_path: process.execPath, user_data_path: path('userData'), packaged: !!app.isPackaged }"
  " };"
  "})()";

static void
on_browser_version (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  JsonObject *info = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *versions;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  versions = json_object_has_member (info, "versions") ? json_object_get_object_member (info, "versions") : NULL;
  if (versions == NULL)
    {
      versions = json_object_new ();
      json_object_set_null_member (versions, "electron");
      json_object_set_null_member (versions, "node");
      json_object_set_object_member (info, "versions", versions);
    }
  /* The browser's own word wins for Chromium and V8. */
  json_object_set_string_member (versions, "chrome_product", json_string (reply, "product"));
  if (json_string (reply, "jsVersion") != NULL)
    json_object_set_string_member (versions, "v8", json_string (reply, "jsVersion"));
  if (!json_object_has_member (versions, "chrome") || json_object_get_null_member (versions, "chrome"))
    {
      const char *product = json_string (reply, "product");
      const char *slash = product ? strchr (product, '/') : NULL;
      json_object_set_string_member (versions, "chrome", slash ? slash + 1 : product);
    }
  json_object_set_string_member (info, "protocol_version", json_string (reply, "protocolVersion"));
  g_task_return_pointer (task, json_object_ref (info), (GDestroyNotify) json_object_unref);
}

static void
on_main_info (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSession *self = g_task_get_source_object (task);
  JsonObject *info = g_task_get_task_data (task);
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;

  value = stw_session_evaluate_main_finish (self, result, &error);
  if (value == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (JSON_NODE_HOLDS_OBJECT (value))
    {
      JsonObject *object_value = json_node_get_object (value);
      if (json_object_has_member (object_value, "versions"))
        json_object_set_member (info, "versions", json_node_copy (json_object_get_member (object_value, "versions")));
      if (json_object_has_member (object_value, "app"))
        json_object_set_member (info, "app", json_node_copy (json_object_get_member (object_value, "app")));
    }

  if (self->browser != NULL)
    {
      GCancellable *cancellable = g_task_get_cancellable (task);
      stw_transport_call_async (self->browser, "Browser.getVersion", NULL, NULL, 0,
                                cancellable, on_browser_version, g_steal_pointer (&task));
    }
  else
    g_task_return_pointer (task, json_object_ref (info), (GDestroyNotify) json_object_unref);
}

/**
 * stw_session_get_info_async:
 * @self: a #StwSession
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the information
 * @user_data: data for @callback
 *
 * Asks the app itself: versions (Electron, Node, Chromium, V8) and the
 * app's name, version and paths from its main process; for plain Chromium
 * the browser's versions only, and for a plain Node process (injected) its
 * own versions only (`app` is null in both).
 */
void
stw_session_get_info_async (StwSession          *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  JsonObject *info = json_object_new ();

  json_object_set_null_member (info, "app");
  g_task_set_task_data (task, info, (GDestroyNotify) json_object_unref);

  if (!self->running)
    {
      g_task_return_error (task, stw_error_new_literal ("NOT_RUNNING", NULL));
      g_object_unref (task);
      return;
    }
  if (stw_session_has_main_process (self))
    stw_session_evaluate_main_async (self, info_expression, cancellable, on_main_info, task);
  else
    stw_transport_call_async (self->browser, "Browser.getVersion", NULL, NULL, 0,
                              cancellable, on_browser_version, task);
}

/**
 * stw_session_get_info_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Returns: (transfer full): `{versions, app, protocol_version}`
 */
JsonObject *
stw_session_get_info_finish (StwSession    *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- screenshots --------------------------------------------------------- */

typedef struct
{
  char       *cdp_session;
  JsonObject *capture;     /* Page.captureScreenshot params */
} Shot;

static void
shot_free (Shot *shot)
{
  g_free (shot->cdp_session);
  g_clear_pointer (&shot->capture, json_object_unref);
  g_free (shot);
}

static void
on_captured (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  const char *data;
  guchar *bytes;
  gsize length = 0;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  data = json_string (reply, "data");
  if (data == NULL)
    {
      g_task_return_error (task, stw_error_new ("INTERNAL_ERROR", _("The browser returned no image")));
      return;
    }
  bytes = g_base64_decode (data, &length);
  g_task_return_pointer (task, g_bytes_new_take (bytes, length), (GDestroyNotify) g_bytes_unref);
}

static void
capture (GTask *task)
{
  StwSession *self = g_task_get_source_object (task);
  Shot *shot = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  stw_transport_call_async (self->browser, "Page.captureScreenshot", shot->capture, shot->cdp_session,
                            30000, cancellable, on_captured, task);
}

static void
set_clip (JsonObject *capture,
          double      x,
          double      y,
          double      width,
          double      height)
{
  JsonObject *clip = json_object_new ();

  json_object_set_double_member (clip, "x", x);
  json_object_set_double_member (clip, "y", y);
  json_object_set_double_member (clip, "width", MAX (width, 1.0));
  json_object_set_double_member (clip, "height", MAX (height, 1.0));
  json_object_set_int_member (clip, "scale", 1);
  json_object_set_object_member (capture, "clip", clip);
}

static void
on_layout_metrics (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  Shot *shot = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  JsonObject *size = reply && json_object_has_member (reply, "cssContentSize")
                     ? json_object_get_object_member (reply, "cssContentSize") : NULL;

  if (size != NULL)
    {
      set_clip (shot->capture, 0, 0, json_object_get_double_member_with_default (size, "width", 1),
                json_object_get_double_member_with_default (size, "height", 1));
      json_object_set_boolean_member (shot->capture, "captureBeyondViewport", TRUE);
    }
  capture (task);
}

static void
on_element_box (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  StwSession *self = g_task_get_source_object (task);
  Shot *shot = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) box = stw_session_evaluate_renderer_finish (self, result, &error);
  JsonObject *rect;

  if (box == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (box))
    {
      GError *missing = stw_error_new ("SELECTOR_NO_MATCH", _("No element matches the selector"));
      stw_error_add_next_action (missing, "electron_snapshot()");
      g_task_return_error (task, missing);
      g_object_unref (task);
      return;
    }
  rect = json_node_get_object (box);
  set_clip (shot->capture,
            json_object_get_double_member_with_default (rect, "x", 0),
            json_object_get_double_member_with_default (rect, "y", 0),
            json_object_get_double_member_with_default (rect, "width", 1),
            json_object_get_double_member_with_default (rect, "height", 1));
  capture (task);
}

/**
 * stw_session_capture_screenshot_async:
 * @self: a #StwSession
 * @window: (nullable): the window to capture; %NULL for the active one
 * @options: `format` (`png`|`jpeg`), `quality` (jpeg), `fullPage`,
 *   `clip {x, y, width, height}` (CSS pixels), `selector` (crop to the
 *   element, on the window's own page)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the encoded image
 * @user_data: data for @callback
 *
 * Captures a window's pixels through `Page.captureScreenshot`.
 */
void
stw_session_capture_screenshot_async (StwSession          *self,
                                      StwSurface          *window,
                                      JsonObject          *options,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Shot *shot = g_new0 (Shot, 1);
  const char *format = json_string (options, "format");
  const char *selector = json_string (options, "selector");

  g_task_set_task_data (task, shot, (GDestroyNotify) shot_free);

  if (window == NULL)
    window = stw_session_get_active_window (self);
  if (!self->running || self->browser == NULL || window == NULL || window->closed)
    {
      g_task_return_error (task, self->running && self->browser == NULL
                                 ? stw_error_new_literal ("TRANSPORT_UNSUPPORTED", _("This session has no renderer connection"))
                                 : self->running ? stw_error_new ("REF_NOT_FOUND", _("No such window"))
                                                 : stw_error_new_literal ("NOT_RUNNING", NULL));
      g_object_unref (task);
      return;
    }

  shot->cdp_session = g_strdup (window->cdp_session_id);
  shot->capture = json_object_new ();
  json_object_set_string_member (shot->capture, "format", g_strcmp0 (format, "jpeg") == 0 ? "jpeg" : "png");
  if (g_strcmp0 (format, "jpeg") == 0 && json_object_has_member (options, "quality"))
    json_object_set_int_member (shot->capture, "quality", json_object_get_int_member (options, "quality"));

  if (json_object_has_member (options, "clip"))
    {
      JsonObject *clip = json_object_get_object_member (options, "clip");
      set_clip (shot->capture,
                json_object_get_double_member_with_default (clip, "x", 0),
                json_object_get_double_member_with_default (clip, "y", 0),
                json_object_get_double_member_with_default (clip, "width", 1),
                json_object_get_double_member_with_default (clip, "height", 1));
    }
  else if (selector != NULL)
    {
      g_autofree char *quoted = NULL;
      g_autofree char *expression = NULL;
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
      StwSurface *previous = stw_session_get_active_surface (self);
      g_autofree char *previous_id = previous ? g_strdup (previous->id) : NULL;

      json_node_set_string (node, selector);
      quoted = stw_json_to_string (node, NULL);
      expression = g_strdup_printf ("(() => { const e = document.querySelector(%s); if (!e) return null;"
                                    " e.scrollIntoView({block: 'center', inline: 'center'});"
                                    " const r = e.getBoundingClientRect();"
                                    " return {x: r.x, y: r.y, width: r.width, height: r.height}; })()",
                                    quoted);
      /* The crop is measured on the window's own page. */
      set_active (self, window, NULL);
      stw_session_evaluate_renderer_async (self, expression, cancellable, on_element_box, task);
      if (previous_id != NULL)
        {
          StwSurface *restore = find_surface (self, previous_id);
          set_active (self, find_surface (self, self->active_window_id), restore);
        }
      return;
    }
  else if (json_object_get_boolean_member_with_default (options, "fullPage", FALSE))
    {
      stw_transport_call_async (self->browser, "Page.getLayoutMetrics", NULL, shot->cdp_session, 0,
                                cancellable, on_layout_metrics, task);
      return;
    }

  capture (task);
}

/**
 * stw_session_capture_screenshot_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Returns: (transfer full): the encoded image
 */
GBytes *
stw_session_capture_screenshot_finish (StwSession    *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- stop ---------------------------------------------------------------- */

typedef struct
{
  guint    timeout_ms;
  gboolean escalated;
} Stop;

static void
on_terminated (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Stop *stop = g_task_get_task_data (task);

  stw_process_terminate_finish (STW_PROCESS (object), result, &stop->escalated);
  g_task_return_boolean (task, TRUE);
}

static gboolean
on_unowned_wait (gpointer user_data)
{
  GTask *task = user_data;
  StwSession *self = g_task_get_source_object (task);
  Stop *stop = g_task_get_task_data (task);

  /* An attached app given with its pid: SIGKILL when it ignores the close. */
  if (self->pid > 0 && kill (self->pid, 0) == 0)
    {
      kill (self->pid, SIGKILL);
      stop->escalated = TRUE;
    }
  g_task_return_boolean (task, TRUE);
  return G_SOURCE_REMOVE;
}

/**
 * stw_session_stop_async:
 * @self: a #StwSession
 * @timeout_ms: the graceful budget
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the app is gone
 * @user_data: data for @callback
 *
 * Stops the app: closes the inspector (Node would wait for it), asks the
 * app to quit, closes the browser, waits up to @timeout_ms, then SIGTERMs
 * and SIGKILLs the process group (`escalated`) and removes the temporary
 * directories. Attached apps are closed through the browser; with a pid
 * they are SIGKILLed when they ignore it.
 */
void
stw_session_stop_async (StwSession          *self,
                        guint                timeout_ms,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Stop *stop = g_new0 (Stop, 1);

  stop->timeout_ms = timeout_ms;
  g_task_set_task_data (task, stop, g_free);
  self->stopping = TRUE;

  if (self->inspector != NULL && !stw_transport_is_closed (self->inspector))
    {
      g_autoptr(JsonObject) params = evaluate_params ("require('electron').app.quit()", TRUE);
      json_object_set_boolean_member (params, "awaitPromise", FALSE);
      stw_transport_send_notification (self->inspector, "Runtime.evaluate", params, NULL);
    }
  if (self->inspector != NULL)
    stw_transport_close (self->inspector);
  if (self->browser != NULL && !stw_transport_is_closed (self->browser))
    stw_transport_send_notification (self->browser, "Browser.close", NULL, NULL);

  if (self->process != NULL)
    {
      stw_process_terminate_async (self->process, timeout_ms, on_terminated, task);
      return;
    }

  if (self->browser != NULL)
    stw_transport_close (self->browser);
  {
    GSource *wait = g_timeout_source_new (self->pid > 0 ? MIN (timeout_ms, QUIT_REQUEST_MS) : 0);
    g_source_set_callback (wait, on_unowned_wait, task, g_object_unref);
    g_source_attach (wait, g_task_get_context (task));
    g_source_unref (wait);
  }
}

/**
 * stw_session_stop_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @escalated: (out) (optional): whether signals were needed
 * @error: where to put a failure
 *
 * Returns: %TRUE when stopped
 */
gboolean
stw_session_stop_finish (StwSession    *self,
                         GAsyncResult  *result,
                         gboolean      *escalated,
                         GError       **error)
{
  Stop *stop = g_task_get_task_data (G_TASK (result));

  if (escalated != NULL)
    *escalated = stop->escalated;
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  session_exited (self);
  return TRUE;
}

/**
 * stw_session_stop_sync:
 * @self: a #StwSession
 * @timeout_ms: the graceful budget
 * @escalated: (out) (optional): whether signals were needed
 * @error: where to put a failure
 *
 * Blocking [method@Stagewright.Session.stop_async], for scripts and test
 * harnesses. It iterates the main context that was thread-default when the
 * session was made until the app has stopped (see "Blocking calls" in the
 * architecture guide).
 *
 * Returns: %TRUE when stopped
 *
 * Since: 1.0
 */
gboolean
stw_session_stop_sync (StwSession  *self,
                       guint        timeout_ms,
                       gboolean    *escalated,
                       GError     **error)
{
  StwSyncCall call;
  gboolean ok;

  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);

  if (!_stw_sync_call_init (&call, self->context))
    return FALSE;
  stw_session_stop_async (self, timeout_ms, NULL, _stw_sync_call_callback, &call);
  ok = stw_session_stop_finish (self, _stw_sync_call_wait (&call), escalated, error);
  _stw_sync_call_clear (&call);
  return ok;
}

/**
 * stw_session_force_kill:
 * @self: a #StwSession
 *
 * SIGKILLs the app now (the whole group when owned) and ends the session.
 */
void
stw_session_force_kill (StwSession *self)
{
  g_return_if_fail (STW_IS_SESSION (self));

  g_object_ref (self);
  if (self->process != NULL)
    stw_process_kill (self->process);
  else if (self->pid > 0)
    kill (self->pid, SIGKILL);
  if (self->inspector != NULL)
    stw_transport_close (self->inspector);
  if (self->browser != NULL)
    stw_transport_close (self->browser);
  session_exited (self);
  g_object_unref (self);
}

/**
 * stw_session_detach:
 * @self: a #StwSession
 * @error: `TRANSPORT_UNSUPPORTED` for a launched (owned) app
 *
 * Lets go of an attached or injected app without touching it.
 *
 * Returns: %TRUE when detached
 */
gboolean
stw_session_detach (StwSession  *self,
                    GError     **error)
{
  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);

  if (self->owned)
    {
      GError *owned = stw_error_new ("TRANSPORT_UNSUPPORTED",
                                     _("A launched app is owned by the server; stop it instead"));
      stw_error_add_next_action (owned, "electron_stop()");
      g_propagate_error (error, owned);
      return FALSE;
    }

  g_object_ref (self);
  if (self->inspector != NULL)
    stw_transport_close (self->inspector);
  if (self->browser != NULL)
    stw_transport_close (self->browser);
  session_exited (self);
  g_object_unref (self);
  return TRUE;
}
