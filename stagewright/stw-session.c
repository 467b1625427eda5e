/* stw-session.c: one driven app, its windows and surfaces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <signal.h>
#include <string.h>

#include "stw-deadline-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-proc-private.h"
#include "stw-runner-private.h"
#include "stw-session-info-private.h"
#include "stw-session-private.h"
#include "stw-surface-private.h"
#include "stw-sync-private.h"

GResource *stw_get_resource (void);

#define READY_POLL_MS 10
#define QUIT_REQUEST_MS 1000

/* --- StwSession ---------------------------------------------------------- */

/**
 * StwSession:
 *
 * One driven app: launched and owned (stopping it ends every process it
 * started), attached over CDP, or injected into through the Node
 * inspector. A session follows the app's targets through
 * `Target.setAutoAttach {flatten: true}`: every page, out-of-process
 * iframe and webview becomes a [class@Stagewright.Surface]; same-process iframes join
 * when surfaces are refreshed.
 *
 * Since: 1.0
 */
struct _StwSession
{
  GObject            parent_instance;

  char              *id;
  char              *transport_name;
  GWeakRef           manager;
  StwProcess        *process;     /* owned launches only */
  StwTransport      *browser;
  StwTransport      *inspector;
  GPid               pid;
  guint64            pid_start_time;  /* with pid: the one process proven at attach */
  GPid               holder;          /* the endpoint's listener, when pid is its ancestor */
  guint64            holder_start_time;
  char              *main_note;       /* why there is no inspector, when known */
  GHashTable        *window_states;   /* target id → JsonObject, from the main process */
  gboolean           owned;
  gboolean           running;
  gboolean           renderer_ready;
  gboolean           stopping;

  GPtrArray         *surfaces;    /* every surface ever seen, in order */
  GPtrArray         *workers;     /* the live workers (never surfaces) */
  guint              next_surface;
  guint              next_worker;
  guint              next_window;
  char              *active_window_id;
  char              *active_surface_id;
  StwSurfaceShared  *shared;      /* refs and dialogs, handed to each surface */
  StwSessionConsole *console;

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

enum
{
  PROP_0,
  PROP_ID,
  PROP_PID,
  PROP_RUNNING,
  PROP_OWNED,
  PROP_TRANSPORT_NAME,
  PROP_ACTIVE_SURFACE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static guint signals[N_SIGNALS];

static void session_exited (StwSession *self);
static void mark_ended (StwSession *self);

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

  /* A disposed session is not running, whatever the app does next, and
   * it ends the usual way: `exited` is how its manager forgets it. */
  if (self->running)
    session_exited (self);
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
  g_free (self->main_note);
  _stw_surface_shared_remove_files_dir (self->shared);
  g_clear_pointer (&self->window_states, g_hash_table_unref);
  g_free (self->active_window_id);
  g_free (self->active_surface_id);
  /* Surfaces that outlive the session keep what was handed down, but
   * no longer find each other through it. */
  self->shared->running = FALSE;
  self->shared->alive = FALSE;
  self->shared->owner = NULL;
  g_clear_object (&self->shared->browser);
  g_hash_table_remove_all (self->shared->surfaces);
  g_ptr_array_set_size (self->shared->order, 0);
  g_ptr_array_unref (self->surfaces);
  g_ptr_array_unref (self->workers);
  _stw_surface_shared_unref (self->shared);
  _stw_session_console_free (self->console);
  g_weak_ref_clear (&self->manager);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (stw_session_parent_class)->finalize (object);
}

static void
stw_session_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  StwSession *self = STW_SESSION (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_PID:
      g_value_set_int (value, self->pid);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    case PROP_OWNED:
      g_value_set_boolean (value, self->owned);
      break;
    case PROP_TRANSPORT_NAME:
      g_value_set_string (value, self->transport_name);
      break;
    case PROP_ACTIVE_SURFACE:
      g_value_set_object (value, stw_session_get_active_surface (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_session_class_init (StwSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = stw_session_dispose;
  object_class->finalize = stw_session_finalize;
  object_class->get_property = stw_session_get_property;

  /**
   * StwSession:id:
   *
   * The session's id, as the tools name it (`s1`, …).
   *
   * Since: 1.0
   */
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL,
                                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSession:pid:
   *
   * The process id of the app's main process, 0 when unknown.
   *
   * Since: 1.0
   */
  properties[PROP_PID] = g_param_spec_int ("pid", NULL, NULL, 0, G_MAXINT, 0,
                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSession:running:
   *
   * Whether the app is still there; notified once, when it goes (it
   * exited, was stopped, or its connection dropped).
   *
   * Since: 1.0
   */
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, TRUE,
                                                   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                   G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSession:owned:
   *
   * Whether the server launched the app (and so owns its processes),
   * rather than attaching to it.
   *
   * Since: 1.0
   */
  properties[PROP_OWNED] = g_param_spec_boolean ("owned", NULL, NULL, FALSE,
                                                 G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                 G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSession:transport-name:
   *
   * How the session reaches the app (`cdp`, …).
   *
   * Since: 1.0
   */
  properties[PROP_TRANSPORT_NAME] = g_param_spec_string ("transport-name", NULL, NULL, NULL,
                                                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                         G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSession:active-surface:
   *
   * The surface page operations act on by default (see
   * [method@Stagewright.Session.get_active_surface]); notified when
   * another surface becomes active.
   *
   * Since: 1.0
   */
  properties[PROP_ACTIVE_SURFACE] = g_param_spec_object ("active-surface", NULL, NULL, STW_TYPE_SURFACE,
                                                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                         G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * StwSession::window-added:
   * @self: the session
   * @window: the window's page surface
   *
   * A window opened.
   *
   * Since: 1.0
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
   *
   * Since: 1.0
   */
  signals[WINDOW_REMOVED] = g_signal_new ("window-removed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, STW_TYPE_SURFACE);
  /**
   * StwSession::exited:
   * @self: the session
   *
   * The app went away (exited, crashed, or its connection dropped).
   *
   * Since: 1.0
   */
  signals[EXITED] = g_signal_new ("exited", G_TYPE_FROM_CLASS (klass),
                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 0);
}

/* What the session hands its surfaces to learn of new ones. */
static void
refresh_for_surfaces (gpointer             owner,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  stw_session_refresh_surfaces_async (owner, cancellable, callback, user_data);
}

static gboolean
refresh_for_surfaces_finish (gpointer       owner,
                             GAsyncResult  *result,
                             GError       **error)
{
  return stw_session_refresh_surfaces_finish (owner, result, error);
}

static void
stw_session_init (StwSession *self)
{
  self->surfaces = g_ptr_array_new_with_free_func (g_object_unref);
  self->workers = g_ptr_array_new_with_free_func (g_object_unref);
  self->shared = _stw_surface_shared_new ();
  self->shared->refresh = refresh_for_surfaces;
  self->shared->refresh_finish = refresh_for_surfaces_finish;
  self->shared->owner = self;
  self->console = _stw_session_console_new ();
  g_weak_ref_init (&self->manager, NULL);
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
      if (g_strcmp0 (stw_surface_get_id (surface), id) == 0)
        return surface;
    }
  return NULL;
}

/* A live surface: by target (and, for a same-process frame, its frame
 * id), or the target surface reached through a CDP session. */
StwSurface *
_stw_session_find_surface_by (StwSession *self,
                              const char *target_id,
                              const char *cdp_session_id,
                              const char *subframe_id)
{
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (stw_surface_is_closed (surface))
        continue;
      if (target_id != NULL && g_strcmp0 (stw_surface_get_target_id (surface), target_id) == 0 &&
          (subframe_id == NULL || g_strcmp0 (_stw_surface_get_subframe_id (surface), subframe_id) == 0))
        return surface;
      if (cdp_session_id != NULL && g_strcmp0 (stw_surface_get_cdp_session_id (surface), cdp_session_id) == 0 &&
          stw_surface_get_kind (surface) != STW_SURFACE_KIND_FRAME)
        return surface;
    }
  return NULL;
}

GPtrArray *
_stw_session_get_surfaces (StwSession *self)
{
  return self->surfaces;
}

GMainContext *
_stw_session_get_context (StwSession *self)
{
  return self->context;
}

static gboolean
is_live_window (StwSurface *surface)
{
  return !stw_surface_is_closed (surface) && stw_surface_get_kind (surface) == STW_SURFACE_KIND_WINDOW;
}

static StwSurface *
first_live_window (StwSession *self)
{
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (is_live_window (surface))
        return surface;
    }
  return NULL;
}

static void
set_active (StwSession *self,
            StwSurface *window,
            StwSurface *surface)
{
  const char *surface_id;
  gboolean changed;

  if (surface == NULL)
    surface = window;
  surface_id = surface ? stw_surface_get_id (surface) : NULL;
  changed = g_strcmp0 (self->active_surface_id, surface_id) != 0;
  g_free (self->active_window_id);
  self->active_window_id = window ? g_strdup (stw_surface_get_id (window)) : NULL;
  g_free (self->active_surface_id);
  self->active_surface_id = g_strdup (surface_id);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE_SURFACE]);
}

/* When the active window or surface closes, fall back deterministically to
 * the first live window. */
static void
repair_active (StwSession *self)
{
  StwSurface *window = self->active_window_id ? find_surface (self, self->active_window_id) : NULL;
  StwSurface *surface = self->active_surface_id ? find_surface (self, self->active_surface_id) : NULL;

  if (window == NULL || stw_surface_is_closed (window))
    {
      set_active (self, first_live_window (self), NULL);
      return;
    }
  if (surface == NULL || stw_surface_is_closed (surface))
    set_active (self, window, NULL);
}

void
_stw_session_close_surface (StwSession *self,
                            StwSurface *surface)
{
  if (stw_surface_is_closed (surface))
    return;
  _stw_surface_set_closed (surface);
  _stw_ref_table_retire_surface (self->shared->refs, stw_surface_get_id (surface));

  /* Frames and guests of a closed page close with it. */
  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *child = g_ptr_array_index (self->surfaces, i);
      if (!stw_surface_is_closed (child) && _stw_surface_get_parent (child) == surface)
        _stw_session_close_surface (self, child);
    }

  if (stw_surface_get_kind (surface) == STW_SURFACE_KIND_WINDOW)
    g_signal_emit (self, signals[WINDOW_REMOVED], 0, surface);
  repair_active (self);
}

StwRefTable *
_stw_session_get_refs (StwSession *self)
{
  return self->shared->refs;
}

StwSurfaceShared *
_stw_session_get_shared (StwSession *self)
{
  return self->shared;
}

StwDialogs *
_stw_session_get_dialogs (StwSession *self)
{
  return self->shared->dialogs;
}

StwSessionConsole *
_stw_session_get_console (StwSession *self)
{
  return self->console;
}

StwSessionManager *
_stw_session_dup_manager (StwSession *self)
{
  return g_weak_ref_get (&self->manager);
}

/* A worker: a surface object for the DevTools seams, never in the
 * session's surfaces (no window, snapshot or ref reaches it). @owner,
 * the page or frame that started a dedicated worker, is its parent. */
StwSurface *
_stw_session_add_worker (StwSession     *self,
                         StwSurfaceKind  kind,
                         StwSurface     *owner,
                         const char     *target_id,
                         const char     *cdp_session_id,
                         const char     *url)
{
  g_autofree char *id = g_strdup_printf ("%s-k%u", self->id, ++self->next_worker);
  StwSurface *worker = _stw_surface_new (self, self->shared, self->browser, id, kind, owner, NULL, target_id,
                                         cdp_session_id, NULL, NULL, url);

  g_ptr_array_add (self->workers, worker);
  return worker;
}

/* The live worker whose target or DevTools session this is, or NULL. */
StwSurface *
_stw_session_find_worker (StwSession *self,
                          const char *target_id,
                          const char *cdp_session_id)
{
  for (guint i = 0; i < self->workers->len; i++)
    {
      StwSurface *worker = g_ptr_array_index (self->workers, i);

      if ((target_id != NULL && g_strcmp0 (stw_surface_get_target_id (worker), target_id) == 0) ||
          (cdp_session_id != NULL && g_strcmp0 (stw_surface_get_cdp_session_id (worker), cdp_session_id) == 0))
        return worker;
    }
  return NULL;
}

/* A worker went: closed (a plugin that holds it sees it) and forgotten. */
void
_stw_session_forget_worker (StwSession *self,
                            StwSurface *worker)
{
  _stw_surface_set_closed (worker);
  g_ptr_array_remove (self->workers, worker);
}

StwSurface *
_stw_session_add_surface (StwSession     *self,
                          StwSurfaceKind  kind,
                          StwSurface     *parent,
                          const char     *target_id,
                          const char     *cdp_session_id,
                          const char     *subframe_id,
                          const char     *title,
                          const char     *url)
{
  g_autofree char *id = g_strdup_printf ("%s-s%u", self->id, ++self->next_surface);
  g_autofree char *window_id = NULL;
  StwSurface *surface;

  if (kind == STW_SURFACE_KIND_WINDOW)
    window_id = g_strdup_printf ("%s-w%u", self->id, ++self->next_window);
  else if (parent != NULL)
    window_id = g_strdup (stw_surface_get_window_id (parent));
  surface = _stw_surface_new (self, self->shared, self->browser, id, kind, parent, window_id, target_id,
                              cdp_session_id, subframe_id, title, url);
  g_ptr_array_add (self->surfaces, surface);
  g_ptr_array_add (self->shared->order, surface);
  g_hash_table_insert (self->shared->surfaces, g_strdup (id), surface);

  if (kind == STW_SURFACE_KIND_WINDOW)
    {
      g_debug ("Session %s: window %s attached", self->id, window_id);
      if (self->active_window_id == NULL)
        set_active (self, surface, NULL);
      g_signal_emit (self, signals[WINDOW_ADDED], 0, surface);
      _stw_surface_shared_window_added (self->shared, surface);
      if (self->first_window_task != NULL)
        {
          GTask *task = take_first_window_task (self);
          g_task_return_boolean (task, TRUE);
          g_object_unref (task);
        }
    }
  return surface;
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

/* Every surface closes and a pending first-window wait fails. */
static void
mark_ended (StwSession *self)
{
  gboolean was_running = self->running;

  self->running = FALSE;
  self->shared->running = FALSE;
  _stw_surface_shared_remove_files_dir (self->shared);
  for (guint i = 0; i < self->surfaces->len; i++)
    _stw_surface_set_closed (g_ptr_array_index (self->surfaces, i));
  for (guint i = 0; i < self->workers->len; i++)
    _stw_surface_set_closed (g_ptr_array_index (self->workers, i));
  g_ptr_array_set_size (self->workers, 0);
  /* Nothing can use a ref any more; a caller may hold the session for
   * long after (a binding, a pending answer). */
  _stw_ref_table_clear (self->shared->refs);
  if (self->first_window_task != NULL)
    {
      GTask *task = take_first_window_task (self);

      /* An app we attached to did not exit as far as we know: its
       * connection went away. */
      if (self->owned)
        g_task_return_new_error (task, STW_ERROR, STW_ERROR_LAUNCH_FAILED,
                                 "%s", _("The app exited before its first window appeared"));
      else
        g_task_return_new_error (task, STW_ERROR, STW_ERROR_CDP_DISCONNECTED,
                                 "%s", _("The connection closed before the first window appeared"));
      g_object_unref (task);
    }
  if (was_running)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

static void
session_exited (StwSession *self)
{
  if (!self->running)
    return;

  /* The first-window task may hold the last reference to the session:
   * keep it alive until the signal has run. */
  g_object_ref (self);
  mark_ended (self);

  /* The manager forgets the session from its own handler: the one removal
   * path, which holds no pointer to a manager that may be gone. */
  g_signal_emit (self, signals[EXITED], 0);
  g_object_unref (self);
}

static void
connect_transports (StwSession *self)
{
  if (self->browser != NULL)
    {
      _stw_targets_connect (self, self->browser);
      _stw_session_dialogs_connect (self, self->browser);
      g_signal_connect (self->browser, "closed", G_CALLBACK (on_transport_closed), self);
    }
  _stw_console_connect (self, self->browser, self->inspector, self->process);
  if (self->inspector != NULL)
    g_signal_connect (self->inspector, "closed", G_CALLBACK (on_transport_closed), self);
  if (self->process != NULL)
    {
      stw_process_mark (self->process, "console and dialog hooks");
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
  g_weak_ref_set (&self->manager, manager);
  self->transport_name = g_strdup ("cdp");
  self->process = g_object_ref (process);
  self->browser = browser ? g_object_ref (browser) : NULL;
  self->shared->browser = browser ? g_object_ref (browser) : NULL;
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
  g_weak_ref_set (&self->manager, manager);
  self->transport_name = g_strdup (transport_name);
  self->browser = browser ? g_object_ref (browser) : NULL;
  self->shared->browser = browser ? g_object_ref (browser) : NULL;
  self->inspector = inspector ? g_object_ref (inspector) : NULL;
  self->pid = pid;
  self->pid_start_time = _stw_proc_get_start_time (pid);
  connect_transports (self);
  return self;
}

/* The endpoint's listening process, when the pid given at attach is its
 * ancestor (a wrapper, a split main process): stop and force_kill end it
 * too, so killing the wrapper never leaves the app running. */
void
_stw_session_set_endpoint_holder (StwSession *self,
                                  GPid        holder)
{
  self->holder = holder;
  self->holder_start_time = _stw_proc_get_start_time (holder);
}

/* Why the main process could not be reached (attach): capabilities say it. */
void
_stw_session_set_main_note (StwSession *self,
                            const char *note)
{
  g_free (self->main_note);
  self->main_note = g_strdup (note);
}

/* SIGKILLs the attached app's proven processes, never one that took over
 * a pid since. Returns whether anything was signalled. */
static gboolean
kill_attached (StwSession *self)
{
  gboolean killed = FALSE;

  if (self->pid > 0 && _stw_proc_is_same (self->pid, self->pid_start_time))
    killed = kill (self->pid, SIGKILL) == 0;
  if (self->holder > 0 && _stw_proc_is_same (self->holder, self->holder_start_time))
    killed = (kill (self->holder, SIGKILL) == 0) || killed;
  return killed;
}

StwTransport *
_stw_session_get_browser (StwSession *self)
{
  return self->browser;
}

StwTransport *
_stw_session_get_inspector (StwSession *self)
{
  return self->inspector;
}

GPid
_stw_session_get_endpoint_holder (StwSession *self)
{
  return self->holder;
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
  StwSession *self = STW_SESSION (object);

  stw_session_refresh_surfaces_finish (self, result, NULL);
  if (self->process != NULL)
    stw_process_mark (self->process, "titles read: started");
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

  value = _stw_surface_call_page_finish (STW_SURFACE (object), result, NULL, NULL);
  if (value != NULL && JSON_NODE_HOLDS_VALUE (value) &&
      json_node_get_value_type (value) == G_TYPE_BOOLEAN && json_node_get_boolean (value))
    {
      self->renderer_ready = TRUE;
      g_debug ("Session %s: renderer ready", self->id);
      if (self->process != NULL)
        stw_process_mark (self->process, "readiness probe: ready");
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

/* Asks the page-side module (js/ready.js) of the active window. */
static void
check_ready (GTask *task)
{
  StwSession *self = g_task_get_source_object (task);
  StwSurface *window = stw_session_get_active_window (self);

  if (window == NULL)
    {
      if (!self->running)
        {
          g_task_return_new_error (task, STW_ERROR, STW_ERROR_LAUNCH_FAILED,
                                   "%s", _("The app exited while its window was loading"));
          g_object_unref (task);
        }
      else
        start_done (task);
      return;
    }
  {
    g_autoptr(JsonObject) args = json_object_new ();
    Start *start = g_task_get_task_data (task);
    gint64 left_ms = (start->ready_deadline_us - g_get_monotonic_time ()) / 1000;

    json_object_set_string_member (args, "targetUrl", stw_surface_get_url (window) ? stw_surface_get_url (window) : "");
    /* The page answers the moment it is ready (by event, not by our
     * polling), or when the time is up; a navigation fails the call and
     * the poll below asks the new document. */
    json_object_set_int_member (args, "waitMs", MAX (left_ms, 0));
    _stw_surface_call_page_async (window, "ready", args, g_task_get_cancellable (task), on_ready_evaluated, task);
  }
}

static gboolean
on_ready_timer (gpointer user_data)
{
  GTask *task = user_data;
  Start *start = g_task_get_task_data (task);

  g_clear_pointer (&start->timer, g_source_unref);
  check_ready (task);
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
  Start *start = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  start->ready_deadline_us = g_get_monotonic_time () + (gint64) start->ready_timeout_ms * 1000;
  {
    StwSession *self = g_task_get_source_object (task);

    if (self->process != NULL)
      stw_process_mark (self->process, "first window attached");
  }
  check_ready (g_steal_pointer (&task));
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
    GError *error = stw_error_new_code (STW_ERROR_LAUNCH_TIMEOUT, _("No window appeared in time"));

    if (self->process != NULL)
      {
        g_autoptr(JsonObject) details = json_object_new ();
        g_autofree char *tail = stw_process_dup_log_tail (self->process);

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
  StwSession *self = g_task_get_source_object (task);

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (self->process != NULL)
    stw_process_mark (self->process, "target auto-attach set");
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
  GTask *attach_task;

  g_task_set_source_tag (task, _stw_session_start_async);
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
  g_task_set_source_tag (window_task, _stw_session_start_async);
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
  /* Paused new targets only for plugins' new-surface hooks (stw-session-targets.c). */
  json_object_set_boolean_member (auto_attach, "waitForDebuggerOnStart", _stw_targets_hooks_wanted (self));
  json_object_set_boolean_member (auto_attach, "flatten", TRUE);
  /* Nobody waits for this one: failures show as no window. */
  attach_task = g_task_new (self, cancellable, NULL, NULL);
  g_task_set_source_tag (attach_task, _stw_session_start_async);
  stw_transport_call_async (self->browser, "Target.setAutoAttach", auto_attach, NULL, 0,
                            cancellable, on_auto_attach_set, attach_task);
}

gboolean
_stw_session_start_finish (StwSession    *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_session_start_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- evaluation ---------------------------------------------------------- */

static void
on_evaluated (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *value;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  value = reply ? _stw_remote_value (reply, &error) : NULL;
  if (value == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, value, (GDestroyNotify) json_node_unref);
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
 * (plain Chromium, or an attached app whose main process could not be
 * reached) fail with `TRANSPORT_UNSUPPORTED`.
 *
 * Since: 1.0
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
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      g_object_unref (task);
      return;
    }
  if (self->inspector == NULL || stw_transport_is_closed (self->inspector))
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                                             _("This session has no main process to talk to")));
      g_object_unref (task);
      return;
    }

  params = _stw_run_evaluate_params (expression, TRUE);
  stw_transport_call_async (self->inspector, "Runtime.evaluate", params, NULL, 0, cancellable,
                            on_evaluated, task);
}

/**
 * stw_session_evaluate_main_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.evaluate_main_async].
 *
 * Returns: (transfer full): the value, by JSON
 *   (JSON because evaluated code can answer any value)
 *
 * Since: 1.0
 */
JsonNode *
stw_session_evaluate_main_finish (StwSession    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_evaluate_main_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_isolated_evaluated (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  JsonNode *value = _stw_surface_evaluate_isolated_finish (STW_SURFACE (object), result, &error);

  if (value == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, value, (GDestroyNotify) json_node_unref);
}

/**
 * stw_session_evaluate_renderer_async:
 * @self: a #StwSession
 * @expression: JavaScript to run in the active surface
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the value
 * @user_data: data for @callback
 *
 * Evaluates agent-supplied @expression in the active surface. A window,
 * webview or out-of-process frame evaluates it in its main world, where
 * the app's globals are; a same-process frame, which a flat CDP session
 * reaches only through an execution context of its own, in the surface's
 * isolated world. (The library's own page-side code always runs in the
 * isolated world; see [class@Stagewright.Surface].)
 *
 * Since: 1.0
 */
void
stw_session_evaluate_renderer_async (StwSession          *self,
                                     const char          *expression,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, stw_session_evaluate_renderer_async);  StwSurface *surface = stw_session_get_active_surface (self);
  g_autoptr(JsonObject) params = NULL;

  if (!self->running)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      g_object_unref (task);
      return;
    }
  if (self->browser == NULL)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                                             _("This session has no renderer connection")));
      g_object_unref (task);
      return;
    }
  if (surface == NULL)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_SURFACE_NOT_FOUND, _("The app has no window")));
      g_object_unref (task);
      return;
    }

  /* A same-process frame has no main world of its own that a flat CDP
   * session reaches by default: it is evaluated in its isolated world. */
  if (_stw_surface_get_subframe_id (surface) != NULL)
    {
      _stw_surface_evaluate_isolated_async (surface, expression, cancellable, on_isolated_evaluated, task);
      return;
    }

  params = _stw_run_evaluate_params (expression, FALSE);
  stw_transport_call_async (self->browser, "Runtime.evaluate", params, stw_surface_get_cdp_session_id (surface), 0,
                            cancellable, on_evaluated, task);
}

/**
 * stw_session_evaluate_renderer_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.evaluate_renderer_async].
 *
 * Returns: (transfer full): the value, by JSON
 *   (JSON because evaluated code can answer any value)
 *
 * Since: 1.0
 */
JsonNode *
stw_session_evaluate_renderer_finish (StwSession    *self,
                                      GAsyncResult  *result,
                                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_evaluate_renderer_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- running agent code (stw-runner.c) ------------------------------------ */

/**
 * stw_session_run_main_async:
 * @self: a #StwSession
 * @code: the body of an async function of `(electron, arg)`: may `await`
 *   and `return`; `electron` is the Electron module (%NULL in a plain Node
 *   process)
 * @arg: (nullable): a JSON value given as `arg`
 * @timeout_ms: the budget, 0 for the default (30 s)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the value
 * @user_data: data for @callback
 *
 * Runs agent code in the app's main process, through its Node inspector.
 * The code is compiled first: a syntax error fails with
 * `EVAL_SYNTAX_ERROR` before anything runs. An exception fails with
 * `EVAL_RUNTIME_ERROR` (its first line), a budget overrun with
 * `EVAL_TIMEOUT`; a session without a main process with
 * `TRANSPORT_UNSUPPORTED` (see the `notes` of
 * [method@Stagewright.Session.get_capability_note]); code longer than
 * 100,000 characters with `BAD_ARGUMENT`.
 *
 * Since: 1.0
 */
void
stw_session_run_main_async (StwSession          *self,
                            const char          *code,
                            JsonNode            *arg,
                            guint                timeout_ms,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GCancellable) deadline = NULL;
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (STW_IS_SESSION (self));

  /* The budget bounds the compile and the checks before the run too. */
  deadline = _stw_deadline_new (cancellable, timeout_ms ? timeout_ms : STW_RUN_DEFAULT_TIMEOUT_MS);
  task = g_task_new (self, deadline, callback, user_data);
  g_task_set_source_tag (task, stw_session_run_main_async);
  if (!_stw_run_check_code (code, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!self->running)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      return;
    }
  if (!stw_session_has_main_process (self))
    {
      error = stw_error_new_code (STW_ERROR_TRANSPORT_UNSUPPORTED, _("This session has no main process to talk to%s%s"),
                                  self->main_note ? ": " : "", self->main_note ? self->main_note : "");
      g_task_return_error (task, error);
      return;
    }

  _stw_run_main_start (g_steal_pointer (&task), self->inspector, code, arg, timeout_ms);
}

/**
 * stw_session_run_main_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @serialized: (out) (optional): whether the value was not JSON and came
 *   back as its string form (undefined, a bigint, a function, a cycle)
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.run_main_async].
 *
 * Returns: (transfer full): the value
 *   (JSON because agent code can answer any value)
 *
 * Since: 1.0
 */
JsonNode *
stw_session_run_main_finish (StwSession    *self,
                             GAsyncResult  *result,
                             gboolean      *serialized,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_run_main_async, NULL);

  return _stw_run_finish (result, serialized, error);
}

/**
 * stw_session_run_main_sync:
 * @self: a #StwSession
 * @code: as for [method@Stagewright.Session.run_main_async]
 * @arg: (nullable): a JSON value given as `arg`
 * @timeout_ms: the budget, 0 for the default (30 s)
 * @serialized: (out) (optional): as for [method@Stagewright.Session.run_main_finish]
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Session.run_main_async].
 *
 * Returns: (transfer full) (nullable): the value
 *   (JSON because agent code can answer any value)
 *
 * Since: 1.0
 */
JsonNode *
stw_session_run_main_sync (StwSession    *self,
                           const char    *code,
                           JsonNode      *arg,
                           guint          timeout_ms,
                           gboolean      *serialized,
                           GCancellable  *cancellable,
                           GError       **error)
{
  StwSyncCall call;
  JsonNode *value;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);
  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  stw_session_run_main_async (self, code, arg, timeout_ms, cancellable, _stw_sync_call_callback, &call);
  value = stw_session_run_main_finish (self, _stw_sync_call_wait (&call), serialized, error);
  _stw_sync_call_clear (&call);
  return value;
}

static void
on_renderer_ran (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  gboolean serialized = FALSE;
  JsonObject *answer;

  value = stw_surface_run_finish (STW_SURFACE (object), result, &serialized, &error);
  if (value == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* What _stw_run_finish() reads. */
  answer = json_object_new ();
  json_object_set_member (answer, "value", g_steal_pointer (&value));
  json_object_set_boolean_member (answer, "serialized", serialized);
  g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
}

/**
 * stw_session_run_renderer_async:
 * @self: a #StwSession
 * @code: the body of an async function of `(arg)`: may `await` and `return`
 * @arg: (nullable): a JSON value given as `arg`
 * @timeout_ms: the budget, 0 for the default (30 s)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the value
 * @user_data: data for @callback
 *
 * Runs agent code in the active surface, in the page's main world, where
 * the app's globals are (a same-process frame, which a flat CDP session
 * reaches only through a context of its own, in its isolated world).
 * Errors as for [method@Stagewright.Session.run_main_async];
 * `SURFACE_NOT_FOUND` when the app has no window.
 *
 * Since: 1.0
 */
void
stw_session_run_renderer_async (StwSession          *self,
                                const char          *code,
                                JsonNode            *arg,
                                guint                timeout_ms,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  StwSurface *surface;
  GError *error = NULL;

  g_return_if_fail (STW_IS_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_run_renderer_async);
  if (!_stw_run_check_code (code, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!self->running)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      return;
    }
  if (self->browser == NULL)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                                             _("This session has no renderer connection")));
      return;
    }
  surface = stw_session_get_active_surface (self);
  if (surface == NULL)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_SURFACE_NOT_FOUND, _("The app has no window")));
      return;
    }

  /* The active surface runs it, as any surface would. */
  stw_surface_run_async (surface, code, arg, timeout_ms, cancellable, on_renderer_ran, g_steal_pointer (&task));
}

/**
 * stw_session_run_renderer_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @serialized: (out) (optional): whether the value was not JSON and came
 *   back as its string form
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.run_renderer_async].
 *
 * Returns: (transfer full): the value
 *   (JSON because agent code can answer any value)
 *
 * Since: 1.0
 */
JsonNode *
stw_session_run_renderer_finish (StwSession    *self,
                                 GAsyncResult  *result,
                                 gboolean      *serialized,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_run_renderer_async, NULL);

  return _stw_run_finish (result, serialized, error);
}

/**
 * stw_session_run_renderer_sync:
 * @self: a #StwSession
 * @code: as for [method@Stagewright.Session.run_renderer_async]
 * @arg: (nullable): a JSON value given as `arg`
 * @timeout_ms: the budget, 0 for the default (30 s)
 * @serialized: (out) (optional): as for [method@Stagewright.Session.run_renderer_finish]
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Session.run_renderer_async].
 *
 * Returns: (transfer full) (nullable): the value
 *   (JSON because agent code can answer any value)
 *
 * Since: 1.0
 */
JsonNode *
stw_session_run_renderer_sync (StwSession    *self,
                               const char    *code,
                               JsonNode      *arg,
                               guint          timeout_ms,
                               gboolean      *serialized,
                               GCancellable  *cancellable,
                               GError       **error)
{
  StwSyncCall call;
  JsonNode *value;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);
  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  stw_session_run_renderer_async (self, code, arg, timeout_ms, cancellable, _stw_sync_call_callback, &call);
  value = stw_session_run_renderer_finish (self, _stw_sync_call_wait (&call), serialized, error);
  _stw_sync_call_clear (&call);
  return value;
}

/* --- window states ------------------------------------------------------ */

/* What only the main process knows of a window (js/main-window-states.js,
 * a function of the windows' target ids). */
#define WINDOW_STATES_RESOURCE "/org/stagewright/core/js/main-window-states.js"

/* The source of one of the library's main-process scripts. */
static const char *
main_script (const char  *path,
             GBytes     **bytes)
{
  *bytes = g_resource_lookup_data (stw_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (*bytes != NULL);
  return g_bytes_get_data (*bytes, NULL);
}

static void
on_window_states (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSession *self = STW_SESSION (object);
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  JsonObject *states;
  g_autoptr(GList) members = NULL;

  value = stw_session_evaluate_main_finish (self, result, &error);
  if (value == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_clear_pointer (&self->window_states, g_hash_table_unref);
  self->window_states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  states = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  members = states ? json_object_get_members (states) : NULL;
  for (const GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *state = json_object_get_member (states, l->data);

      if (JSON_NODE_HOLDS_OBJECT (state))
        {
          g_hash_table_insert (self->window_states, g_strdup (l->data), json_object_ref (json_node_get_object (state)));
        }
    }
  g_task_return_boolean (task, TRUE);
}

/**
 * stw_session_refresh_window_states_async:
 * @self: a #StwSession
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the states are known
 * @user_data: data for @callback
 *
 * Asks the main process the state of each window (see
 * [method@Stagewright.Session.dup_window_state]). A session without a main
 * process succeeds with no states: windows are then reported as they
 * always were.
 *
 * Since: 1.0
 */
void
stw_session_refresh_window_states_async (StwSession          *self,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonArray) ids = json_array_new ();
  g_autoptr(JsonNode) ids_node = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(GList) windows = NULL;
  g_autofree char *ids_json = NULL;
  g_autofree char *expression = NULL;
  g_autoptr(GBytes) source_bytes = NULL;
  const char *source;

  g_return_if_fail (STW_IS_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_refresh_window_states_async);
  if (!self->running || !stw_session_has_main_process (self))
    {
      g_clear_pointer (&self->window_states, g_hash_table_unref);
      g_task_return_boolean (task, TRUE);
      return;
    }
  windows = stw_session_list_windows (self);
  for (const GList *l = windows; l != NULL; l = l->next)
    if (stw_surface_get_target_id (l->data) != NULL)
      json_array_add_string_element (ids, stw_surface_get_target_id (l->data));
  json_node_set_array (ids_node, ids);
  ids_json = json_to_string (ids_node, FALSE);
  source = main_script (WINDOW_STATES_RESOURCE, &source_bytes);
  /* The file ends in a newline, so nothing it holds can comment out the call. */
  expression = g_strdup_printf ("(%s)(%s)", source, ids_json);
  stw_session_evaluate_main_async (self, expression, cancellable, on_window_states, g_steal_pointer (&task));
}

/**
 * stw_session_refresh_window_states_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.refresh_window_states_async].
 *
 * Returns: %TRUE when the states were read (or there is no main process)
 *
 * Since: 1.0
 */
gboolean
stw_session_refresh_window_states_finish (StwSession    *self,
                                          GAsyncResult  *result,
                                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_refresh_window_states_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * stw_session_refresh_window_states_sync:
 * @self: a #StwSession
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Session.refresh_window_states_async].
 *
 * Returns: %TRUE when the states were read (or there is no main process)
 *
 * Since: 1.0
 */
gboolean
stw_session_refresh_window_states_sync (StwSession    *self,
                                        GCancellable  *cancellable,
                                        GError       **error)
{
  StwSyncCall call;
  gboolean ok;

  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  if (!_stw_sync_call_init (&call, self->context))
    return FALSE;
  stw_session_refresh_window_states_async (self, cancellable, _stw_sync_call_callback, &call);
  ok = stw_session_refresh_window_states_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ok;
}

/**
 * stw_session_dup_window_state:
 * @self: a #StwSession
 * @window: one of the session's windows
 *
 * What the main process said of @window at the last
 * [method@Stagewright.Session.refresh_window_states_async]: Electron's id
 * for it, whether it is shown, focused, minimized, maximized or full
 * screen, and its bounds.
 *
 * Returns: (transfer full) (nullable): the state, or %NULL when the main
 *   process is out of reach or does not know the window
 *
 * Since: 1.0
 */
StwWindowState *
stw_session_dup_window_state (StwSession *self,
                              StwSurface *window)
{
  JsonObject *state;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);
  g_return_val_if_fail (STW_IS_SURFACE (window), NULL);

  if (self->window_states == NULL || stw_surface_get_target_id (window) == NULL)
    return NULL;
  state = g_hash_table_lookup (self->window_states, stw_surface_get_target_id (window));
  return state ? _stw_window_state_new_from_json (state) : NULL;
}

/* --- surfaces ------------------------------------------------------------ */

static void
on_targets_refreshed (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (_stw_targets_refresh_finish (STW_SESSION (object), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

/**
 * stw_session_refresh_surfaces_async:
 * @self: a #StwSession
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the surfaces are current
 * @user_data: data for @callback
 *
 * Reads every window's frame tree, so same-process iframes are surfaces
 * too (out-of-process ones are followed as they attach), and the titles
 * and URLs of every target. Fails with `NOT_RUNNING` once the app is gone
 * and `TRANSPORT_UNSUPPORTED` when the session reaches the main process
 * only.
 *
 * Since: 1.0
 */
void
stw_session_refresh_surfaces_async (StwSession          *self,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_refresh_surfaces_async);
  if (!self->running)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      g_object_unref (task);
      return;
    }
  if (self->browser == NULL)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                                             _("This session reaches the main process only")));
      g_object_unref (task);
      return;
    }
  _stw_targets_refresh_async (self, self->browser, cancellable, on_targets_refreshed, task);
}

/**
 * stw_session_refresh_surfaces_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put a failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.refresh_surfaces_async].
 *
 * Returns: %TRUE when the surfaces are current
 *
 * Since: 1.0
 */
gboolean
stw_session_refresh_surfaces_finish (StwSession    *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_refresh_surfaces_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * stw_session_refresh_surfaces_sync:
 * @self: a #StwSession
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put a failure
 *
 * Blocking [method@Stagewright.Session.refresh_surfaces_async]; it
 * iterates the main context that was thread-default when the session was
 * made (see "Blocking calls" in the architecture guide).
 *
 * Returns: %TRUE when the surfaces are current
 *
 * Since: 1.0
 */
gboolean
stw_session_refresh_surfaces_sync (StwSession    *self,
                                   GCancellable  *cancellable,
                                   GError       **error)
{
  StwSyncCall call;
  gboolean ok;

  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);

  if (!_stw_sync_call_init (&call, self->context))
    return FALSE;
  stw_session_refresh_surfaces_async (self, cancellable, _stw_sync_call_callback, &call);
  ok = stw_session_refresh_surfaces_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ok;
}

/**
 * stw_session_list_windows:
 * @self: a #StwSession
 *
 * Lists the live top-level windows of the session.
 *
 * Returns: (transfer container) (element-type StwSurface): the live windows, in opening order
 *
 * Since: 1.0
 */
GList *
stw_session_list_windows (StwSession *self)
{
  GList *windows = NULL;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  for (guint i = 0; i < self->surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (self->surfaces, i);
      if (is_live_window (surface))
        windows = g_list_prepend (windows, surface);
    }
  return g_list_reverse (windows);
}

/**
 * stw_session_list_surfaces:
 * @self: a #StwSession
 *
 * Lists the live surfaces of the session: windows, frames and webviews.
 *
 * Returns: (transfer container) (element-type StwSurface): the live
 *   surfaces, parents before their children
 *
 * Since: 1.0
 */
GList *
stw_session_list_surfaces (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  return _stw_surface_shared_list (self->shared);
}

/**
 * stw_session_list_workers:
 * @self: a #StwSession
 *
 * Lists the session's live workers (service, shared and dedicated
 * workers) that DevTools attached. They are not surfaces of the session:
 * no tool, window list, snapshot or ref reaches them; plugins drive them
 * through [method@Stagewright.Surface.send_cdp_async] and
 * [method@Stagewright.Surface.subscribe_cdp], and learn of new ones in
 * [vfunc@Stagewright.Plugin.worker_attached]. A worker that goes is
 * closed and leaves the list.
 *
 * Returns: (transfer container) (element-type StwSurface): the live
 *   workers, in the order they attached
 *
 * Since: 1.0
 */
GList *
stw_session_list_workers (StwSession *self)
{
  GList *workers = NULL;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  for (guint i = self->workers->len; i > 0; i--)
    workers = g_list_prepend (workers, g_ptr_array_index (self->workers, i - 1));
  return workers;
}

/**
 * stw_session_get_active_window:
 * @self: a #StwSession
 *
 * Gets the window that later calls act on.
 *
 * Returns: (transfer none) (nullable): the window later calls act on
 *
 * Since: 1.0
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
 * Gets the surface that page operations without an explicit surface act
 * on.
 *
 * Returns: (transfer none) (nullable): the surface page operations act on
 *
 * Since: 1.0
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
 * window. Titles are those the session last heard of: a title the page set
 * a moment ago may need [method@Stagewright.Session.refresh_surfaces_async]
 * first (the tools do that once when nothing matches).
 *
 * Returns: (transfer none) (nullable): the window's page surface
 *
 * Since: 1.0
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
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      return NULL;
    }
  if (self->browser == NULL)
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                                            _("This session has no renderer connection")));
      return NULL;
    }

  windows = stw_session_list_windows (self);
  for (const GList *l = windows; l != NULL; l = l->next, i++)
    {
      StwSurface *window = l->data;

      if (window_id != NULL
          ? (g_strcmp0 (stw_surface_get_window_id (window), window_id) == 0 ||
             g_strcmp0 (stw_surface_get_target_id (window), window_id) == 0)
          : title != NULL ? g_strcmp0 (stw_surface_get_title (window), title) == 0
          : index >= 0 ? i == index
          : TRUE)
        return window;
    }

  {
    GError *missing = stw_error_new_code (STW_ERROR_REF_NOT_FOUND, _("No window matches"));
    stw_error_set_hint (missing, _("No live window has that id, title or index. List the windows and pick one."));
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
 * @error: as [method@Stagewright.Session.find_window]
 *
 * Makes a window the active one (Stagewright's target, not the OS focus);
 * its page becomes the active surface. With no criterion, the first
 * window.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
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
 * @surface_id: a surface id from [method@Stagewright.Session.list_surfaces]
 * @error: `SURFACE_NOT_FOUND` (never seen) or `SURFACE_CLOSED`
 *
 * Makes a surface the target of page operations; its window becomes the
 * active window.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
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
      GError *missing = stw_error_new_code (STW_ERROR_SURFACE_NOT_FOUND, _("No surface has the id %s"), surface_id);
      stw_error_add_next_action (missing, "electron_surfaces_list()");
      g_propagate_error (error, missing);
      return FALSE;
    }
  if (stw_surface_is_closed (surface))
    {
      GError *closed = stw_error_new_code (STW_ERROR_SURFACE_CLOSED, _("Surface %s has closed"), surface_id);
      stw_error_add_next_action (closed, "electron_surfaces_list()");
      g_propagate_error (error, closed);
      return FALSE;
    }

  window = stw_surface_get_kind (surface) == STW_SURFACE_KIND_WINDOW ? surface : NULL;
  for (guint i = 0; window == NULL && i < self->surfaces->len; i++)
    {
      StwSurface *candidate = g_ptr_array_index (self->surfaces, i);
      if (stw_surface_get_kind (candidate) == STW_SURFACE_KIND_WINDOW &&
          g_strcmp0 (stw_surface_get_window_id (candidate), stw_surface_get_window_id (surface)) == 0)
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
 * Gets the id that names the session in tool calls.
 *
 * Returns: (transfer none): the session id
 *
 * Since: 1.0
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
 * Gets the name of the transport the session talks to the app with.
 *
 * Returns: (transfer none): `cdp` or `injector`
 *
 * Since: 1.0
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
 * Checks whether the server launched the app, rather than attaching to
 * it.
 *
 * Returns: whether the server launched the app (and so owns its processes)
 *
 * Since: 1.0
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
 * Checks whether the app is still running.
 *
 * Returns: whether the app is still there
 *
 * Since: 1.0
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
 * Checks whether the session can reach the app's main process, so that
 * [method@Stagewright.Session.run_main_async] and
 * [method@Stagewright.Session.evaluate_main_async] may work.
 *
 * Returns: whether main-process operations are possible
 *
 * Since: 1.0
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
 * Checks whether the first window showed meaningful content before the
 * launch completed.
 *
 * Returns: whether the first window showed meaningful content at launch
 *
 * Since: 1.0
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
 * Gets the process id of the app's main process.
 *
 * Returns: the app's main process id, or 0 when unknown
 *
 * Since: 1.0
 */
GPid
stw_session_get_pid (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), 0);
  return self->pid;
}

/**
 * stw_session_get_capabilities:
 * @self: a #StwSession
 *
 * What the session can do now: %STW_CAPABILITY_MAIN_EVAL,
 * %STW_CAPABILITY_RENDERER_EVAL, %STW_CAPABILITY_INTERACTION,
 * %STW_CAPABILITY_SURFACES and %STW_CAPABILITY_OWNED.
 * [method@Stagewright.Session.get_capability_note] says why one is
 * missing, when that is known.
 *
 * Returns: the capabilities
 *
 * Since: 1.0
 */
StwCapabilityFlags
stw_session_get_capabilities (StwSession *self)
{
  StwCapabilityFlags caps = STW_CAPABILITY_NONE;

  g_return_val_if_fail (STW_IS_SESSION (self), STW_CAPABILITY_NONE);

  if (stw_session_has_main_process (self))
    caps |= STW_CAPABILITY_MAIN_EVAL;
  if (self->browser != NULL)
    caps |= STW_CAPABILITY_RENDERER_EVAL | STW_CAPABILITY_INTERACTION | STW_CAPABILITY_SURFACES;
  if (self->owned)
    caps |= STW_CAPABILITY_OWNED;
  return caps;
}

/**
 * stw_session_get_capability_note:
 * @self: a #StwSession
 * @capability: one capability
 *
 * Says why @capability is missing, when the session knows: today only
 * %STW_CAPABILITY_MAIN_EVAL has such notes (the app refused the
 * inspector, or its connection closed).
 *
 * Returns: (transfer none) (nullable): why @capability is missing, or
 *   %NULL when it is there or nobody knows why
 *
 * Since: 1.0
 */
const char *
stw_session_get_capability_note (StwSession         *self,
                                 StwCapabilityFlags  capability)
{
  const char *note = NULL;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  if (capability != STW_CAPABILITY_MAIN_EVAL || stw_session_has_main_process (self))
    return NULL;
  note = self->main_note;
  if (self->process != NULL && stw_process_get_inspector_note (self->process) != NULL)
    note = stw_process_get_inspector_note (self->process);
  else if (note == NULL && self->inspector != NULL)
    note = _("The main process's inspector connection closed");
  return note;
}

/* --- info ---------------------------------------------------------------- */

/* The versions and identity of the app (js/main-info.js): every field is
 * read on its own, so a missing method answers null and a note. */
#define INFO_RESOURCE "/org/stagewright/core/js/main-info.js"

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
  json_object_set_string_member (versions, "chrome_product", stw_json_get_string (reply, "product"));
  if (stw_json_get_string (reply, "jsVersion") != NULL)
    json_object_set_string_member (versions, "v8", stw_json_get_string (reply, "jsVersion"));
  if (!json_object_has_member (versions, "chrome") || json_object_get_null_member (versions, "chrome"))
    {
      const char *product = stw_json_get_string (reply, "product");
      const char *slash = product ? strchr (product, '/') : NULL;
      json_object_set_string_member (versions, "chrome", slash ? slash + 1 : product);
    }
  json_object_set_string_member (info, "protocol_version", stw_json_get_string (reply, "protocolVersion"));
  g_task_return_pointer (task, _stw_app_info_new_from_json (info), (GDestroyNotify) stw_app_info_unref);
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
  JsonObject *notes;

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
      notes = stw_json_get_object (object_value, "notes");
      if (notes != NULL && json_object_get_size (notes) > 0)
        json_object_set_object_member (info, "notes", json_object_ref (notes));
    }

  if (self->browser != NULL)
    {
      GCancellable *cancellable = g_task_get_cancellable (task);
      stw_transport_call_async (self->browser, "Browser.getVersion", NULL, NULL, 0,
                                cancellable, on_browser_version, g_steal_pointer (&task));
    }
  else
    g_task_return_pointer (task, _stw_app_info_new_from_json (info), (GDestroyNotify) stw_app_info_unref);
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
 * own versions only (`app` is null in both). Each field is read on its
 * own: one the app cannot give (a missing or throwing `app` method) is
 * null, and `notes` (present only then) says why, by field name
 * (`"app.path"`).
 *
 * Since: 1.0
 */
void
stw_session_get_info_async (StwSession          *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  JsonObject *info = json_object_new ();

  g_task_set_source_tag (task, stw_session_get_info_async);

  json_object_set_null_member (info, "app");
  g_task_set_task_data (task, info, (GDestroyNotify) json_object_unref);

  if (!self->running)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      g_object_unref (task);
      return;
    }
  if (stw_session_has_main_process (self))
    {
      g_autoptr(GBytes) source = NULL;

      stw_session_evaluate_main_async (self, main_script (INFO_RESOURCE, &source), cancellable, on_main_info, task);
    }
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
 * Finishes an operation started with
 * [method@Stagewright.Session.get_info_async].
 *
 * Returns: (transfer full): what the app said of itself
 *
 * Since: 1.0
 */
StwAppInfo *
stw_session_get_info_finish (StwSession    *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_get_info_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_session_get_info_sync:
 * @self: a #StwSession
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of [method@Stagewright.Session.get_info_async].
 *
 * Returns: (transfer full): what the app said of itself
 *
 * Since: 1.0
 */
StwAppInfo *
stw_session_get_info_sync (StwSession    *self,
                           GCancellable  *cancellable,
                           GError       **error)
{
  StwSyncCall call;
  StwAppInfo *info;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  stw_session_get_info_async (self, cancellable, _stw_sync_call_callback, &call);
  info = stw_session_get_info_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return info;
}

/* --- screenshots --------------------------------------------------------- */

static void
on_surface_captured (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  StwScreenshot *image = stw_surface_capture_screenshot_finish (STW_SURFACE (object), result, &error);

  if (image == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, image, g_object_unref);
}

/**
 * stw_session_capture_screenshot_async:
 * @self: a #StwSession
 * @window: (nullable): the window to capture; %NULL for the active one
 * @options: (nullable): `format` (`png`|`jpeg`), `quality` (jpeg),
 *   `fullPage`, `clip {x, y, width, height}` (CSS pixels), `selector`
 *   (crop to the element, on the window's own page); see
 *   [ctor@Stagewright.ScreenshotOptions.new_from_json]
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the screenshot
 * @user_data: data for @callback
 *
 * A convenience for [method@Stagewright.Surface.capture_screenshot_async]
 * on a window of this session. Fails with `NOT_RUNNING`,
 * `TRANSPORT_UNSUPPORTED` (no renderer connection), `REF_NOT_FOUND` (no
 * such live window) or `BAD_ARGUMENT` (@options), besides the surface's
 * own errors.
 *
 * Since: 1.0
 */
void
stw_session_capture_screenshot_async (StwSession          *self,
                                      StwSurface          *window,
                                      JsonObject          *options,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(StwScreenshotOptions) shot_options = NULL;
  g_autoptr(GError) error = NULL;
  GTask *task;

  g_return_if_fail (STW_IS_SESSION (self));
  g_return_if_fail (window == NULL || STW_IS_SURFACE (window));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_capture_screenshot_async);

  if (window == NULL)
    window = stw_session_get_active_window (self);
  if (!self->running)
    error = stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL);
  else if (self->browser == NULL)
    error = stw_error_new_code_literal (STW_ERROR_TRANSPORT_UNSUPPORTED, _("This session has no renderer connection"));
  else if (window == NULL || stw_surface_is_closed (window) || !g_ptr_array_find (self->surfaces, window, NULL))
    error = stw_error_new_code (STW_ERROR_REF_NOT_FOUND, _("No such window"));
  else
    shot_options = options ? stw_screenshot_options_new_from_json (options, &error) : stw_screenshot_options_new ();

  if (error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  stw_surface_capture_screenshot_async (window, shot_options, cancellable, on_surface_captured, task);
}

/**
 * stw_session_capture_screenshot_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.capture_screenshot_async].
 *
 * Returns: (transfer full): the screenshot
 *
 * Since: 1.0
 */
StwScreenshot *
stw_session_capture_screenshot_finish (StwSession    *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_capture_screenshot_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_session_capture_screenshot_sync:
 * @self: a #StwSession
 * @window: (nullable): the window to capture; %NULL for the active one
 * @options: (nullable): as for [method@Stagewright.Session.capture_screenshot_async]
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Session.capture_screenshot_async]; it
 * iterates the main context that was thread-default when the session was
 * made.
 *
 * Returns: (transfer full): the screenshot
 *
 * Since: 1.0
 */
StwScreenshot *
stw_session_capture_screenshot_sync (StwSession    *self,
                                     StwSurface    *window,
                                     JsonObject    *options,
                                     GCancellable  *cancellable,
                                     GError       **error)
{
  StwSyncCall call;
  StwScreenshot *image;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  stw_session_capture_screenshot_async (self, window, options, cancellable, _stw_sync_call_callback, &call);
  image = stw_session_capture_screenshot_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return image;
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
  if (kill_attached (self))
    stop->escalated = TRUE;
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
 *
 * Since: 1.0
 */
void
stw_session_stop_async (StwSession          *self,
                        guint                timeout_ms,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, stw_session_stop_async);  Stop *stop = g_new0 (Stop, 1);

  stop->timeout_ms = timeout_ms;
  g_task_set_task_data (task, stop, g_free);
  self->stopping = TRUE;

  if (self->inspector != NULL && !stw_transport_is_closed (self->inspector))
    {
      g_autoptr(JsonObject) params = _stw_run_evaluate_params ("require('electron').app.quit()", TRUE);
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
 * Finishes an operation started with
 * [method@Stagewright.Session.stop_async].
 *
 * Returns: %TRUE when stopped
 *
 * Since: 1.0
 */
gboolean
stw_session_stop_finish (StwSession    *self,
                         GAsyncResult  *result,
                         gboolean      *escalated,
                         GError       **error)
{
  Stop *stop;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_stop_async, FALSE);

  stop = g_task_get_task_data (G_TASK (result));

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
 * @cancellable: (nullable): a #GCancellable, as for
 *   [method@Stagewright.Session.stop_async]
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
stw_session_stop_sync (StwSession    *self,
                       guint          timeout_ms,
                       gboolean      *escalated,
                       GCancellable  *cancellable,
                       GError       **error)
{
  StwSyncCall call;
  gboolean ok;

  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);

  if (!_stw_sync_call_init (&call, self->context))
    return FALSE;
  stw_session_stop_async (self, timeout_ms, cancellable, _stw_sync_call_callback, &call);
  ok = stw_session_stop_finish (self, _stw_sync_call_wait (&call), escalated, error);
  _stw_sync_call_clear (&call);
  return ok;
}

/**
 * stw_session_force_kill:
 * @self: a #StwSession
 *
 * SIGKILLs the app now (the whole group when owned) and ends the session.
 *
 * Since: 1.0
 */
void
stw_session_force_kill (StwSession *self)
{
  g_return_if_fail (STW_IS_SESSION (self));

  /* Ended (or disposed with its manager): the pid may belong to someone
   * else by now. */
  if (!self->running)
    return;

  g_object_ref (self);
  if (self->process != NULL)
    stw_process_kill (self->process);
  else
    kill_attached (self);
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
 *
 * Since: 1.0
 */
gboolean
stw_session_detach (StwSession  *self,
                    GError     **error)
{
  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);

  if (self->owned)
    {
      GError *owned = stw_error_new_code (STW_ERROR_TRANSPORT_UNSUPPORTED,
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
