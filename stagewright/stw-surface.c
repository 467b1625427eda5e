/* stw-surface.c: something that renders in a session, and its page operations
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "stw-deadline-private.h"
#include "stw-enum-types.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-screenshot-private.h"
#include "stw-surface-private.h"
#include "stw-sync-private.h"

#define SCRIPT_RESOURCE_PREFIX "/org/stagewright/core/js/"
#define WORLD_NAME "stagewright"
/* A screenshot takes no timeout: the whole call is bounded at this (a page
 * half a million pixels tall, scaled, takes seconds), the viewport's at
 * the shorter one. A hung page answers CDP_TIMEOUT then. */
#define SCREENSHOT_TIMEOUT_MS 10000
#define FULL_PAGE_TIMEOUT_MS 30000
/* The largest side Chromium renders in one capture (its texture limit);
 * beyond it Page.captureScreenshot fails without saying why. */
#define MAX_CAPTURE_SIDE 16384.0

GResource *stw_get_resource (void);

/* The page-side module (docs/page-ops.md): these files of js/, joined in
 * this order, run once in every isolated world a surface makes. */
static const char * const STW_PAGE_MODULE[] = {
  "guard.js",
  "core.js",
  "ready.js",
  "a11y.js",
  "actions.js",
  "read.js",
  "wait.js",
};

/* The one function every page call runs: an op of the module, by name. */
/* A call the page runs past its deadline (it was hung meanwhile) was
 * answered CDP_TIMEOUT already: it must not act now. */
#define PAGE_CALL_FUNCTION "function (op, args, notAfter) {" \
  " if (notAfter && Date.now () > notAfter)" \
  "   return { __error: { code: 'CDP_TIMEOUT', message: 'The page ran the call after its deadline' } };" \
  " return globalThis.__stagewright.call (op, args); }"

static const char *
page_module_source (void)
{
  static gsize once;
  static char *source;

  if (g_once_init_enter (&once))
    {
      GString *joined = g_string_new ("(() => {\nif (globalThis.__stagewright) return;\n");

      for (guint i = 0; i < G_N_ELEMENTS (STW_PAGE_MODULE); i++)
        {
          g_autofree char *path = g_strconcat (SCRIPT_RESOURCE_PREFIX, STW_PAGE_MODULE[i], NULL);
          g_autoptr(GBytes) part = g_resource_lookup_data (stw_get_resource (), path,
                                                           G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

          /* A missing part is a packaging bug, not a runtime condition. */
          g_assert (part != NULL);
          g_string_append_printf (joined, "// --- %s\n", STW_PAGE_MODULE[i]);
          g_string_append_len (joined, g_bytes_get_data (part, NULL), g_bytes_get_size (part));
          g_string_append_c (joined, '\n');
        }
      g_string_append (joined, "})();\n");
      source = g_string_free (joined, FALSE);
      g_once_init_leave (&once, 1);
    }
  return source;
}

/* --- StwSurface ---------------------------------------------------------- */

/**
 * StwSurface:
 *
 * Something that renders in a session: a window's page, an iframe, a
 * `<webview>`. Its id is opaque, lives as long as the session and is never
 * reused; a closed surface stays known (as closed) so a stale id fails
 * with `SURFACE_CLOSED` rather than `SURFACE_NOT_FOUND`.
 *
 * Page operations are methods of the surface; the
 * [class@Stagewright.Session] offers conveniences that act on its active
 * surface. The page-side code they run (from the library's resources)
 * runs in an isolated world of the surface's frame, which the app's own
 * scripts cannot see or break; its execution context is created on first
 * use and reused until the frame navigates.
 *
 * A surface knows its session weakly: keeping a surface does not keep the
 * session (or the app) alive.
 *
 * Since: 1.0
 */
struct _StwSurface
{
  GObject         parent_instance;

  GWeakRef        session;
  StwTransport   *transport;
  StwSurface     *parent;
  char           *id;
  StwSurfaceKind  kind;
  char           *window_id;
  char           *title;
  char           *url;
  char           *target_id;
  char           *cdp_session_id;
  char           *subframe_id;
  gboolean        closed;

  /* The isolated world: its context id (0: none), the calls waiting while
   * it is being made, and the transport events that invalidate it. */
  gint64          world_id;
  gboolean        world_pending;
  GPtrArray      *world_waiters;
  gulong          world_handlers[3];

  GMainContext   *context;     /* thread-default when made */

  StwSurfaceShared  *shared;     /* what the session handed down */
  StwInputPointer   *pointer;    /* a window's mouse */
  StwSnapshotMemory *snapshots;  /* stw-surface-snapshot.c */
};

G_DEFINE_FINAL_TYPE (StwSurface, stw_surface, G_TYPE_OBJECT)

/* --- what the session hands down ------------------------------------------ */

static void
shared_clear (StwSurfaceShared *shared)
{
  _stw_surface_shared_remove_files_dir (shared);
  _stw_ref_table_free (shared->refs);
  _stw_dialogs_free (shared->dialogs);
  g_hash_table_unref (shared->surfaces);
  g_ptr_array_unref (shared->order);
  g_clear_object (&shared->browser);
  g_hook_list_clear (&shared->window_hooks);
}

StwSurfaceShared *
_stw_surface_shared_new (void)
{
  StwSurfaceShared *shared = g_rc_box_new0 (StwSurfaceShared);

  shared->refs = _stw_ref_table_new ();
  shared->dialogs = _stw_dialogs_new ();
  shared->surfaces = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  shared->order = g_ptr_array_new ();
  g_hook_list_init (&shared->window_hooks, sizeof (GHook));
  shared->running = TRUE;
  shared->alive = TRUE;
  return shared;
}

StwSurfaceShared *
_stw_surface_shared_ref (StwSurfaceShared *shared)
{
  return g_rc_box_acquire (shared);
}

void
_stw_surface_shared_unref (StwSurfaceShared *shared)
{
  g_rc_box_release_full (shared, (GDestroyNotify) shared_clear);
}

StwSurface *
_stw_surface_shared_lookup (StwSurfaceShared *shared,
                            const char       *id)
{
  return id != NULL ? g_hash_table_lookup (shared->surfaces, id) : NULL;
}

static void
append_tree (StwSurfaceShared  *shared,
             StwSurface        *parent,
             GList            **list)
{
  for (guint i = 0; i < shared->order->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (shared->order, i);

      if (!stw_surface_is_closed (surface) && surface->parent == parent)
        {
          *list = g_list_prepend (*list, surface);
          append_tree (shared, surface, list);
        }
    }
}

GList *
_stw_surface_shared_list (StwSurfaceShared *shared)
{
  GList *list = NULL;

  for (guint i = 0; i < shared->order->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (shared->order, i);
      StwSurface *parent = surface->parent;

      /* Roots: windows, and anything whose parent we never saw. */
      if (stw_surface_is_closed (surface) || (parent != NULL && !stw_surface_is_closed (parent)))
        continue;
      list = g_list_prepend (list, surface);
      append_tree (shared, surface, &list);
    }
  return g_list_reverse (list);
}

static void
on_owner_refreshed (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSurfaceShared *shared = g_task_get_task_data (task);
  GError *error = NULL;

  if (shared->refresh_finish (object, result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
_stw_surface_shared_refresh_async (StwSurfaceShared    *shared,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, _stw_surface_shared_refresh_async);
  g_task_set_task_data (task, _stw_surface_shared_ref (shared), (GDestroyNotify) _stw_surface_shared_unref);
  if (!shared->alive || shared->refresh == NULL)
    {
      g_task_return_error (task, stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL));
      g_object_unref (task);
      return;
    }
  shared->refresh (shared->owner, cancellable, on_owner_refreshed, task);
}

gboolean
_stw_surface_shared_refresh_finish (GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_surface_shared_refresh_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * _stw_surface_shared_get_files_dir:
 * @shared: what a session handed down
 * @error: `INTERNAL_ERROR` when it cannot be made
 *
 * The session's private directory (mode 0700, in the temporary
 * directory) for the copies of files handed to its pages by path; made
 * on first use, removed when the session ends.
 *
 * Returns: (transfer none) (nullable): its path
 */
const char *
_stw_surface_shared_get_files_dir (StwSurfaceShared  *shared,
                                   GError           **error)
{
  GError *local = NULL;

  if (shared->files_dir == NULL)
    {
      shared->files_dir = g_dir_make_tmp ("stw-files-XXXXXX", &local);
      if (shared->files_dir == NULL)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("Cannot make a private directory: %s"),
                                                        local->message));
          g_error_free (local);
        }
    }
  return shared->files_dir;
}

/* The private directory goes: <dir>/<XXXXXX>/<file>, nothing deeper. */
void
_stw_surface_shared_remove_files_dir (StwSurfaceShared *shared)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (shared->files_dir == NULL)
    return;
  dir = g_dir_open (shared->files_dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *sub = g_build_filename (shared->files_dir, name, NULL);
      g_autoptr(GDir) inner = g_dir_open (sub, 0, NULL);
      const char *file;

      while (inner != NULL && (file = g_dir_read_name (inner)) != NULL)
        {
          g_autofree char *path = g_build_filename (sub, file, NULL);
          g_unlink (path);
        }
      g_rmdir (sub);
    }
  g_rmdir (shared->files_dir);
  g_clear_pointer (&shared->files_dir, g_free);
}

gulong
_stw_surface_shared_add_window_hook (StwSurfaceShared     *shared,
                                     StwSurfaceWindowFunc  func,
                                     gpointer              user_data)
{
  GHook *hook = g_hook_alloc (&shared->window_hooks);

  hook->func = func;
  hook->data = user_data;
  g_hook_append (&shared->window_hooks, hook);
  return hook->hook_id;
}

void
_stw_surface_shared_remove_window_hook (StwSurfaceShared *shared,
                                        gulong            id)
{
  g_hook_destroy (&shared->window_hooks, id);
}

static void
call_window_hook (GHook    *hook,
                  gpointer  window)
{
  ((StwSurfaceWindowFunc) hook->func) (window, hook->data);
}

void
_stw_surface_shared_window_added (StwSurfaceShared *shared,
                                  StwSurface       *window)
{
  g_hook_list_marshal (&shared->window_hooks, FALSE, call_window_hook, window);
}

enum
{
  PROP_0,
  PROP_ID,
  PROP_KIND,
  PROP_WINDOW_ID,
  PROP_TITLE,
  PROP_URL,
  PROP_CLOSED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
disconnect_world_handlers (StwSurface *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->world_handlers); i++)
    if (self->world_handlers[i] != 0)
      {
        g_signal_handler_disconnect (self->transport, self->world_handlers[i]);
        self->world_handlers[i] = 0;
      }
}

static void
stw_surface_dispose (GObject *object)
{
  StwSurface *self = STW_SURFACE (object);

  if (self->transport != NULL)
    disconnect_world_handlers (self);
  g_clear_object (&self->transport);
  g_clear_object (&self->parent);
  G_OBJECT_CLASS (stw_surface_parent_class)->dispose (object);
}

static void
stw_surface_finalize (GObject *object)
{
  StwSurface *self = STW_SURFACE (object);

  g_weak_ref_clear (&self->session);
  g_free (self->id);
  g_free (self->window_id);
  g_free (self->title);
  g_free (self->url);
  g_free (self->target_id);
  g_free (self->cdp_session_id);
  g_free (self->subframe_id);
  g_ptr_array_unref (self->world_waiters);
  g_main_context_unref (self->context);
  g_clear_pointer (&self->shared, _stw_surface_shared_unref);
  _stw_input_pointer_unref (self->pointer);
  _stw_snapshot_memory_free (self->snapshots);
  G_OBJECT_CLASS (stw_surface_parent_class)->finalize (object);
}

static void
stw_surface_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  StwSurface *self = STW_SURFACE (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_WINDOW_ID:
      g_value_set_string (value, self->window_id);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_URL:
      g_value_set_string (value, self->url);
      break;
    case PROP_CLOSED:
      g_value_set_boolean (value, self->closed);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_surface_class_init (StwSurfaceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = stw_surface_dispose;
  object_class->finalize = stw_surface_finalize;
  object_class->get_property = stw_surface_get_property;

  /**
   * StwSurface:id:
   *
   * The surface's id, unique in its session.
   *
   * Since: 1.0
   */
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL,
                                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSurface:kind:
   *
   * What the surface is: a window's page, a frame, a webview, a worker….
   *
   * Since: 1.0
   */
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, STW_TYPE_SURFACE_KIND, STW_SURFACE_KIND_WINDOW,
                                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSurface:window-id:
   *
   * The id of the window the surface belongs to.
   *
   * Since: 1.0
   */
  properties[PROP_WINDOW_ID] = g_param_spec_string ("window-id", NULL, NULL, NULL,
                                                    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                    G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSurface:title:
   *
   * The document's title, as last known; notified when it changes.
   *
   * Since: 1.0
   */
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSurface:url:
   *
   * The document's URL, as last known; notified when it changes.
   *
   * Since: 1.0
   */
  properties[PROP_URL] = g_param_spec_string ("url", NULL, NULL, NULL,
                                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * StwSurface:closed:
   *
   * Whether the surface went (its window closed, its frame detached, its
   * app ended); notified once, when it closes.
   *
   * Since: 1.0
   */
  properties[PROP_CLOSED] = g_param_spec_boolean ("closed", NULL, NULL, FALSE,
                                                  G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                  G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
stw_surface_init (StwSurface *self)
{
  g_weak_ref_init (&self->session, NULL);
  self->world_waiters = g_ptr_array_new ();
  self->context = g_main_context_ref_thread_default ();
  self->pointer = _stw_input_pointer_new ();
  self->snapshots = _stw_snapshot_memory_new ();
}

StwSurface *
_stw_surface_new (StwSession       *session,
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
                  const char     *url)
{
  StwSurface *self = g_object_new (STW_TYPE_SURFACE, NULL);

  g_weak_ref_set (&self->session, session);
  self->shared = _stw_surface_shared_ref (shared);
  self->transport = transport ? g_object_ref (transport) : NULL;
  self->parent = parent ? g_object_ref (parent) : NULL;
  self->id = g_strdup (id);
  self->kind = kind;
  self->window_id = g_strdup (window_id);
  self->target_id = g_strdup (target_id);
  self->cdp_session_id = g_strdup (cdp_session_id);
  self->subframe_id = g_strdup (subframe_id);
  self->title = g_strdup (title);
  self->url = g_strdup (url);
  return self;
}

void
_stw_surface_set_title (StwSurface *self,
                        const char *title)
{
  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

void
_stw_surface_set_url (StwSurface *self,
                      const char *url)
{
  if (g_strcmp0 (self->url, url) == 0)
    return;
  g_free (self->url);
  self->url = g_strdup (url);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_URL]);
}

void
_stw_surface_set_closed (StwSurface *self)
{
  if (!self->closed)
    {
      self->closed = TRUE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CLOSED]);
    }
  self->world_id = 0;
  if (self->transport != NULL)
    disconnect_world_handlers (self);
  /* No diff is taken of a closed surface: its last snapshot (all of its
   * entries, stw-surface-snapshot.c) goes now, not with the session. */
  _stw_surface_forget_last_snapshot (self);
}

StwSurfaceShared *
_stw_surface_get_shared (StwSurface *self)
{
  return self->shared;
}

StwInputPointer *
_stw_surface_get_pointer (StwSurface *self)
{
  return self->pointer;
}

StwSnapshotMemory *
_stw_surface_get_snapshot_memory (StwSurface *self)
{
  return self->snapshots;
}

const char *
_stw_surface_get_subframe_id (StwSurface *self)
{
  return self->subframe_id;
}

StwSurface *
_stw_surface_get_parent (StwSurface *self)
{
  return self->parent;
}

gint64
_stw_surface_get_world_id (StwSurface *self)
{
  return self->world_id;
}

StwTransport *
_stw_surface_get_transport (StwSurface *self)
{
  return self->transport;
}

GMainContext *
_stw_surface_get_context (StwSurface *self)
{
  return self->context;
}

/**
 * stw_surface_get_id:
 * @self: a #StwSurface
 *
 * Gets the id that names the surface in tool calls.
 *
 * Returns: (transfer none): the surface's id
 *
 * Since: 1.0
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
 * Gets what kind of surface @self is.
 *
 * Returns: what the surface is
 *
 * Since: 1.0
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
 * Gets the id of the surface @self is embedded in, if it is a frame or a
 * webview.
 *
 * Returns: (transfer none) (nullable): the id of the surface it is embedded in
 *
 * Since: 1.0
 */
const char *
stw_surface_get_parent_id (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->parent ? self->parent->id : NULL;
}

/**
 * stw_surface_get_window_id:
 * @self: a #StwSurface
 *
 * Gets the id of the top-level window @self belongs to.
 *
 * Returns: (transfer none) (nullable): the id of the window it belongs to
 *
 * Since: 1.0
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
 * Gets the title the surface last reported.
 *
 * Returns: (transfer none) (nullable): the title
 *
 * Since: 1.0
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
 * Gets the URL the surface last reported.
 *
 * Returns: (transfer none) (nullable): the URL
 *
 * Since: 1.0
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
 * Gets the DevTools target id of the surface.
 *
 * Returns: (transfer none) (nullable): the DevTools target id (for a
 *   same-process frame, its page's)
 *
 * Since: 1.0
 */
const char *
stw_surface_get_target_id (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->target_id;
}

/**
 * stw_surface_get_frame_id:
 * @self: a #StwSurface
 *
 * The DevTools frame id of the surface's document: a same-process frame's
 * own, or the main frame of a page, out-of-process frame or webview (whose
 * id is its target id).
 *
 * Returns: (transfer none) (nullable): the frame id
 *
 * Since: 1.0
 */
const char *
stw_surface_get_frame_id (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->subframe_id ? self->subframe_id : self->target_id;
}

/**
 * stw_surface_get_cdp_session_id:
 * @self: a #StwSurface
 *
 * Gets the flat CDP session the surface is reached through.
 *
 * Returns: (transfer none) (nullable): the flat CDP session the surface is
 *   reached through (a same-process frame shares its page's)
 *
 * Since: 1.0
 */
const char *
stw_surface_get_cdp_session_id (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return self->cdp_session_id;
}

/**
 * stw_surface_is_closed:
 * @self: a #StwSurface
 *
 * Checks whether the surface is gone; page operations on it then fail
 * with `SURFACE_CLOSED`.
 *
 * Returns: whether the surface closed or detached
 *
 * Since: 1.0
 */
gboolean
stw_surface_is_closed (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), TRUE);
  return self->closed;
}

/**
 * stw_surface_dup_session:
 * @self: a #StwSurface
 *
 * Gets a new reference to the session the surface belongs to.
 *
 * Returns: (transfer full) (nullable): the session the surface belongs
 *   to, or %NULL once the session is gone
 *
 * Since: 1.0
 */
StwSession *
stw_surface_dup_session (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  return g_weak_ref_get (&self->session);
}

/**
 * stw_surface_get_capabilities:
 * @self: a #StwSurface
 *
 * What page operations the surface supports now:
 * %STW_CAPABILITY_SNAPSHOT, %STW_CAPABILITY_INTERACTION and
 * %STW_CAPABILITY_RENDERER_EVAL while it is live, none once it closed.
 * A worker has none: only its DevTools session serves.
 *
 * Returns: the capabilities
 *
 * Since: 1.0
 */
StwCapabilityFlags
stw_surface_get_capabilities (StwSurface *self)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), STW_CAPABILITY_NONE);

  if (self->closed || self->transport == NULL || self->kind >= STW_SURFACE_KIND_SERVICE_WORKER)
    return STW_CAPABILITY_NONE;
  return STW_CAPABILITY_SNAPSHOT | STW_CAPABILITY_INTERACTION | STW_CAPABILITY_RENDERER_EVAL;
}

/**
 * stw_surface_get_origin_relation:
 * @self: a #StwSurface
 *
 * How the surface's origin relates to the surface it is embedded in:
 * `same-origin` (including `about:blank` and `about:srcdoc` frames, which
 * inherit their parent's origin), `cross-origin`, or `opaque` (`data:`
 * URLs and anything that does not parse).
 *
 * Returns: (transfer none) (nullable): the relation, or %NULL for a
 *   surface without a parent (or whose URLs are unknown)
 *
 * Since: 1.0
 */
const char *
stw_surface_get_origin_relation (StwSurface *self)
{
  g_autoptr(GUri) child_uri = NULL;
  g_autoptr(GUri) parent_uri = NULL;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);

  if (self->parent == NULL || self->url == NULL || self->parent->url == NULL)
    return NULL;
  if (g_str_has_prefix (self->url, "about:blank") || g_str_equal (self->url, "about:srcdoc"))
    return "same-origin";

  child_uri = g_uri_parse (self->url, G_URI_FLAGS_NONE, NULL);
  parent_uri = g_uri_parse (self->parent->url, G_URI_FLAGS_NONE, NULL);
  if (child_uri == NULL || parent_uri == NULL ||
      g_strcmp0 (g_uri_get_scheme (child_uri), "data") == 0 ||
      g_strcmp0 (g_uri_get_scheme (child_uri), "about") == 0)
    return "opaque";
  return g_strcmp0 (g_uri_get_scheme (child_uri), g_uri_get_scheme (parent_uri)) == 0 &&
         g_strcmp0 (g_uri_get_host (child_uri), g_uri_get_host (parent_uri)) == 0 &&
         g_uri_get_port (child_uri) == g_uri_get_port (parent_uri)
         ? "same-origin" : "cross-origin";
}

/**
 * stw_surface_kind_to_string:
 * @kind: a #StwSurfaceKind
 *
 * Gets the name of a surface kind, as the tools report it.
 *
 * Returns: (transfer none): `window`, `frame`, `webview`, `other`,
 *   `service_worker`, `shared_worker` or `worker`
 *
 * Since: 1.0
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
    case STW_SURFACE_KIND_SERVICE_WORKER:
      return "service_worker";
    case STW_SURFACE_KIND_SHARED_WORKER:
      return "shared_worker";
    case STW_SURFACE_KIND_WORKER:
      return "worker";
    case STW_SURFACE_KIND_OTHER:
    default:
      return "other";
    }
}

/* --- the isolated world -------------------------------------------------- */

/* Why a surface cannot run page operations now, or NULL. */
static GError *
check_usable (StwSurface *self)
{
  if (!self->shared->running)
    return stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL);
  if (self->transport == NULL)
    return stw_error_new_code_literal (STW_ERROR_TRANSPORT_UNSUPPORTED, _("This session has no renderer connection"));
  if (self->closed)
    {
      GError *closed = stw_error_new_code (STW_ERROR_SURFACE_CLOSED, _("Surface %s has closed"), self->id);
      stw_error_add_next_action (closed, "electron_surfaces_list()");
      return closed;
    }
  return NULL;
}

GError *
_stw_surface_check_usable (StwSurface *self)
{
  return check_usable (self);
}

static void
drop_world (StwSurface *self)
{
  if (self->world_id != 0)
    g_debug ("Surface %s: isolated world %" G_GINT64_FORMAT " gone", self->id, self->world_id);
  self->world_id = 0;
}

static void
on_context_destroyed (StwTransport *transport,
                      const char   *method,
                      JsonObject   *params,
                      const char   *session_id,
                      StwSurface   *self)
{
  if (g_strcmp0 (session_id, self->cdp_session_id) == 0 &&
      json_object_get_int_member_with_default (params, "executionContextId", -1) == self->world_id)
    drop_world (self);
}

static void
on_contexts_cleared (StwTransport *transport,
                     const char   *method,
                     JsonObject   *params,
                     const char   *session_id,
                     StwSurface   *self)
{
  if (g_strcmp0 (session_id, self->cdp_session_id) == 0)
    drop_world (self);
}

static void
on_frame_navigated (StwTransport *transport,
                    const char   *method,
                    JsonObject   *params,
                    const char   *session_id,
                    StwSurface   *self)
{
  JsonObject *frame = json_object_get_object_member (params, "frame");

  if (g_strcmp0 (session_id, self->cdp_session_id) == 0 &&
      g_strcmp0 (stw_json_get_string (frame, "id"), stw_surface_get_frame_id (self)) == 0)
    drop_world (self);
}

typedef struct
{
  char       *method;      /* Runtime.evaluate or Runtime.callFunctionOn */
  JsonObject *params;      /* without executionContextId */
  gint64      world_id;    /* the context the call went to */
  gboolean    retried;
} WorldCall;

static void
world_call_free (WorldCall *call)
{
  g_free (call->method);
  json_object_unref (call->params);
  g_free (call);
}

static void ensure_world (GTask *task);

static gboolean
is_stale_context (const GError *error)
{
  /* Chromium's words when a context id no longer exists (the frame
   * navigated, or the world went with its document), and when it goes
   * while a call runs in it (the document navigated mid-call). */
  return error->domain == STW_CDP_ERROR && error->message != NULL &&
         (strstr (error->message, "Cannot find context") != NULL ||
          strstr (error->message, "Cannot find execution context") != NULL ||
          strstr (error->message, "Inspected target navigated or closed") != NULL ||
          strstr (error->message, "Execution context was destroyed") != NULL);
}

JsonNode *
_stw_remote_value (JsonObject  *reply,
                   GError     **error)
{
  JsonObject *remote;

  if (json_object_has_member (reply, "exceptionDetails"))
    {
      JsonObject *details = json_object_get_object_member (reply, "exceptionDetails");
      JsonObject *exception = details ? json_object_get_object_member (details, "exception") : NULL;
      const char *text = stw_json_get_string (exception, "description");

      if (text == NULL)
        text = stw_json_get_string (details, "text");
      g_propagate_error (error, stw_error_new_code (STW_ERROR_EVAL_RUNTIME_ERROR, "%s", text ? text : "The evaluated code threw"));
      return NULL;
    }

  remote = json_object_has_member (reply, "result") ? json_object_get_object_member (reply, "result") : NULL;
  if (remote != NULL && json_object_has_member (remote, "value"))
    return json_node_copy (json_object_get_member (remote, "value"));
  return json_node_new (JSON_NODE_NULL);
}

static void
on_world_called (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSurface *self = g_task_get_source_object (task);
  WorldCall *call = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *value;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      if (is_stale_context (error) && !call->retried && !self->closed)
        {
          /* Gone between our last look and this call: make a new one, once. */
          call->retried = TRUE;
          if (self->world_id == call->world_id)
            drop_world (self);
          ensure_world (g_steal_pointer (&task));
          return;
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  value = _stw_remote_value (reply, &error);
  if (value == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, value, (GDestroyNotify) json_node_unref);
}

static void
call_in_world (GTask *task)
{
  StwSurface *self = g_task_get_source_object (task);
  WorldCall *call = g_task_get_task_data (task);
  g_autoptr(JsonObject) params = json_object_new ();
  GError *unusable = check_usable (self);

  if (unusable != NULL)
    {
      g_task_return_error (task, unusable);
      g_object_unref (task);
      return;
    }

  stw_json_object_copy_members (params, call->params, NULL);
  call->world_id = self->world_id;
  /* The same thing under two names. */
  json_object_set_int_member (params, g_str_equal (call->method, "Runtime.evaluate") ? "contextId" : "executionContextId",
                              self->world_id);
  stw_transport_call_async (self->transport, call->method, params, self->cdp_session_id, 0,
                            g_task_get_cancellable (task), on_world_called, task);
}

/* Hands every call waiting for the world to it, or fails them. */
static void
flush_world_waiters (StwSurface   *self,
                     const GError *error)
{
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&self->world_waiters);

  self->world_pending = FALSE;
  self->world_waiters = g_ptr_array_new ();
  for (guint i = 0; i < waiters->len; i++)
    {
      GTask *task = g_ptr_array_index (waiters, i);

      if (error != NULL)
        {
          g_task_return_error (task, g_error_copy (error));
          g_object_unref (task);
        }
      else
        call_in_world (task);
    }
}

static void
on_module_installed (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(StwSurface) self = user_data;
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply != NULL)
    value = _stw_remote_value (reply, &error);
  if (error != NULL)
    {
      /* The world went (navigation) or the module threw: either way this
       * world is of no use, and the next call makes a new one. */
      g_debug ("Surface %s: page module not installed: %s", self->id, error->message);
      self->world_id = 0;
      /* A world that went meanwhile: the calls find that out themselves
       * and make a new one. */
      if (is_stale_context (error))
        g_clear_error (&error);
      else
        {
          g_clear_error (&error);
          error = stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("The page-side module could not be installed"));
        }
    }
  flush_world_waiters (self, error);
}

/* Context ids are counted per renderer process: after the surface went to
 * another site (another process), its new world may have the id an
 * earlier document's world had, and the keys of both count from 1. What
 * was known under that id belongs to the earlier document. */
static void
forget_earlier_world (StwSurface *self)
{
  _stw_ref_table_forget_world (self->shared->refs, self->id, self->world_id);
  /* The snapshot's frame owners, by world and key. */
  _stw_snapshot_memory_forget_frames (self->snapshots);
}

static void
on_world_created (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(StwSurface) self = user_data;
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expression = NULL;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply != NULL && json_object_get_int_member_with_default (reply, "executionContextId", 0) <= 0)
    error = stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("The browser made no isolated world"));
  if (error != NULL)
    {
      flush_world_waiters (self, error);
      return;
    }

  self->world_id = json_object_get_int_member (reply, "executionContextId");
  g_debug ("Surface %s: isolated world %" G_GINT64_FORMAT, self->id, self->world_id);
  forget_earlier_world (self);

  /* The page-side module goes in before any call runs there, and learns
   * which world it is so a key of another world is never taken for one
   * of its own. */
  expression = g_strdup_printf ("%s\nglobalThis.__stagewright.world = %" G_GINT64_FORMAT ";\n",
                                page_module_source (), self->world_id);
  params = json_object_new ();
  json_object_set_string_member (params, "expression", expression);
  json_object_set_int_member (params, "contextId", self->world_id);
  stw_transport_call_async (self->transport, "Runtime.evaluate", params, self->cdp_session_id, 0,
                            NULL, on_module_installed, g_object_ref (self));
}

/* Runs the task's call in the isolated world, making the world first when
 * none is cached; calls that arrive while it is being made wait for it. */
static void
ensure_world (GTask *task)
{
  StwSurface *self = g_task_get_source_object (task);
  g_autoptr(JsonObject) params = NULL;
  GError *unusable = check_usable (self);

  if (unusable != NULL)
    {
      g_task_return_error (task, unusable);
      g_object_unref (task);
      return;
    }
  if (self->world_id != 0 && !self->world_pending)
    {
      call_in_world (task);
      return;
    }

  /* Also while the page-side module is going into a new world. */
  g_ptr_array_add (self->world_waiters, task);
  if (self->world_pending)
    return;
  self->world_pending = TRUE;

  if (self->world_handlers[0] == 0)
    {
      /* Navigations announce themselves through the Page domain. */
      stw_transport_send_notification (self->transport, "Page.enable", NULL, self->cdp_session_id);
      /* The input guard goes into every later document of this session
       * (its frames too) before the page's scripts, so its listeners are
       * the window's first (js/guard.js). A same-process frame shares its
       * window's session, which has it already. */
      if (self->subframe_id == NULL)
        {
          g_autoptr(JsonObject) early = json_object_new ();
          g_autoptr(GBytes) guard = g_resource_lookup_data (stw_get_resource (), SCRIPT_RESOURCE_PREFIX "guard.js",
                                                            G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

          g_assert (guard != NULL);
          json_object_set_string_member (early, "source", g_bytes_get_data (guard, NULL));
          json_object_set_string_member (early, "worldName", WORLD_NAME);
          stw_transport_send_notification (self->transport, "Page.addScriptToEvaluateOnNewDocument", early,
                                           self->cdp_session_id);
        }
      self->world_handlers[0] = g_signal_connect (self->transport, "event::Runtime.executionContextDestroyed",
                                                  G_CALLBACK (on_context_destroyed), self);
      self->world_handlers[1] = g_signal_connect (self->transport, "event::Runtime.executionContextsCleared",
                                                  G_CALLBACK (on_contexts_cleared), self);
      self->world_handlers[2] = g_signal_connect (self->transport, "event::Page.frameNavigated",
                                                  G_CALLBACK (on_frame_navigated), self);
    }

  params = json_object_new ();
  json_object_set_string_member (params, "frameId", stw_surface_get_frame_id (self));
  json_object_set_string_member (params, "worldName", WORLD_NAME);
  /* Not tied to any one caller: a cancelled call must not fail the others
   * waiting for the same world. */
  stw_transport_call_async (self->transport, "Page.createIsolatedWorld", params, self->cdp_session_id, 0,
                            NULL, on_world_created, g_object_ref (self));
}

static void
start_world_call (StwSurface          *self,
                  const char          *method,
                  JsonObject          *params,
                  gpointer             source_tag,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  WorldCall *call = g_new0 (WorldCall, 1);

  g_task_set_source_tag (task, source_tag);
  call->method = g_strdup (method);
  call->params = json_object_ref (params);
  json_object_set_boolean_member (call->params, "returnByValue", TRUE);
  json_object_set_boolean_member (call->params, "awaitPromise", TRUE);
  g_task_set_task_data (task, call, (GDestroyNotify) world_call_free);
  ensure_world (task);
}

void
_stw_surface_evaluate_isolated_async (StwSurface          *self,
                                      const char          *expression,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(JsonObject) params = json_object_new ();

  json_object_set_string_member (params, "expression", expression);
  start_world_call (self, "Runtime.evaluate", params, _stw_surface_evaluate_isolated_async,
                    cancellable, callback, user_data);
}

JsonNode *
_stw_surface_evaluate_isolated_finish (StwSurface    *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_surface_evaluate_isolated_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* A page op's answer: its value, or the registry error it failed with. */
static JsonNode *
page_answer (JsonNode  *value,
             GError   **error)
{
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  JsonObject *failure = object && json_object_has_member (object, "__error")
                        ? json_object_get_object_member (object, "__error") : NULL;
  const char *code;
  GError *page_error;

  if (failure == NULL)
    return json_node_ref (value);

  code = stw_json_get_string (failure, "code");
  if (code == NULL || !stw_error_code_from_string (code, NULL))
    code = "INTERNAL_ERROR";
  page_error = stw_error_new (code, "%s", stw_json_get_string (failure, "message") ?: "");
  if (json_object_has_member (failure, "details") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (failure, "details")))
    stw_error_set_details (page_error, json_object_get_object_member (failure, "details"));
  g_propagate_error (error, page_error);
  return NULL;
}

void
_stw_surface_call_page_async (StwSurface          *self,
                              const char          *op,
                              JsonObject          *args,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(JsonObject) params = json_object_new ();
  JsonArray *call_args = json_array_new ();
  JsonObject *arg;

  json_object_set_string_member (params, "functionDeclaration", PAGE_CALL_FUNCTION);
  arg = json_object_new ();
  json_object_set_string_member (arg, "value", op);
  json_array_add_object_element (call_args, arg);
  arg = json_object_new ();
  if (args != NULL)
    json_object_set_object_member (arg, "value", json_object_ref (args));
  else
    json_object_set_object_member (arg, "value", json_object_new ());
  json_array_add_object_element (call_args, arg);
  if (_stw_deadline_get_real_ms (cancellable) > 0)
    {
      arg = json_object_new ();
      json_object_set_int_member (arg, "value", _stw_deadline_get_real_ms (cancellable));
      json_array_add_object_element (call_args, arg);
    }
  json_object_set_array_member (params, "arguments", call_args);
  start_world_call (self, "Runtime.callFunctionOn", params, _stw_surface_call_page_async,
                    cancellable, callback, user_data);
}

JsonNode *
_stw_surface_call_page_finish (StwSurface    *self,
                               GAsyncResult  *result,
                               gint64        *world_id,
                               GError       **error)
{
  g_autoptr(JsonNode) value = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_surface_call_page_async, NULL);

  if (world_id != NULL)
    *world_id = ((WorldCall *) g_task_get_task_data (G_TASK (result)))->world_id;
  value = g_task_propagate_pointer (G_TASK (result), error);
  if (value == NULL)
    return NULL;
  return page_answer (value, error);
}

/* --- screenshots --------------------------------------------------------- */

typedef struct
{
  StwScreenshotOptions *options;
  StwSurface           *on;        /* captured: a window or webview */
  JsonObject           *params;    /* Page.captureScreenshot's */
  gboolean              has_box;   /* box: an element's, in on's viewport */
  double                box[4];
  gboolean              has_clip;  /* clip: in on's document, CSS px */
  double                clip[4];
  double                scale;
  double                scale_factor; /* device px per CSS px; 0: not measured */
  gboolean              rescaled;
  gboolean              scrolled;  /* the element was scrolled into view */
} Capture;

static void
capture_free (Capture *data)
{
  stw_screenshot_options_free (data->options);
  g_clear_object (&data->on);
  json_object_unref (data->params);
  g_free (data);
}

static void capture (GTask *task);

/* Sets the clip with the scale that makes it fit the size asked for. */
static void
set_clip (Capture *data)
{
  JsonObject *clip = json_object_new ();
  double width = MAX (data->clip[2], 1.0);
  double height = MAX (data->clip[3], 1.0);

  if (data->scale <= 0)
    {
      data->scale = MIN (1.0, MIN (MAX_CAPTURE_SIDE / width, MAX_CAPTURE_SIDE / height));
      if (data->options->max_width > 0)
        data->scale = MIN (data->scale, data->options->max_width / width);
      if (data->options->max_height > 0)
        data->scale = MIN (data->scale, data->options->max_height / height);
    }
  json_object_set_double_member (clip, "x", data->clip[0]);
  json_object_set_double_member (clip, "y", data->clip[1]);
  json_object_set_double_member (clip, "width", width);
  json_object_set_double_member (clip, "height", height);
  json_object_set_double_member (clip, "scale", data->scale);
  json_object_set_object_member (data->params, "clip", clip);
}

static void
fail_capture (GTask  *task,
              GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
on_captured (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  Capture *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  GError *error = NULL;
  g_autoptr(GBytes) image = NULL;
  const char *encoded;
  guchar *bytes;
  gsize length = 0;
  guint width = 0, height = 0;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      fail_capture (task, error);
      return;
    }
  encoded = stw_json_get_string (reply, "data");
  if (encoded == NULL)
    {
      fail_capture (task, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("The browser returned no image")));
      return;
    }
  bytes = g_base64_decode (encoded, &length);
  image = g_bytes_new_take (bytes, length);
  if (!stw_image_get_size (image, &width, &height))
    {
      fail_capture (task, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("The browser returned something that is not an image")));
      return;
    }

  /* The scale is in CSS pixels; a screen with more device pixels per CSS
   * pixel gives a larger image. Measured once, corrected once. */
  if (data->has_clip && !data->rescaled &&
      ((data->options->max_width > 0 && width > data->options->max_width) ||
       (data->options->max_height > 0 && height > data->options->max_height)))
    {
      double factor = 1.0;

      if (data->options->max_width > 0 && width > data->options->max_width)
        factor = MIN (factor, (double) data->options->max_width / width);
      if (data->options->max_height > 0 && height > data->options->max_height)
        factor = MIN (factor, (double) data->options->max_height / height);
      data->rescaled = TRUE;
      data->scale *= factor * 0.999;
      set_clip (data);
      capture (task);
      return;
    }
  g_task_return_pointer (task, _stw_screenshot_new (image, width, height, data->options->format, data->scale_factor),
                         g_object_unref);
  g_object_unref (task);
}

static void
capture (GTask *task)
{
  Capture *data = g_task_get_task_data (task);
  GError *unusable = check_usable (data->on);

  if (unusable != NULL)
    {
      fail_capture (task, unusable);
      return;
    }
  stw_transport_call_async (data->on->transport, "Page.captureScreenshot", data->params, data->on->cdp_session_id,
                            FULL_PAGE_TIMEOUT_MS, g_task_get_cancellable (task), on_captured, task);
}

static void on_element_box (GObject *object, GAsyncResult *result, gpointer user_data);

/* The visual viewport in device pixels over the same in CSS pixels. */
static double
layout_scale_factor (JsonObject *metrics,
                     JsonObject *css_viewport)
{
  JsonObject *device = json_object_has_member (metrics, "visualViewport")
                       ? json_object_get_object_member (metrics, "visualViewport") : NULL;
  double css_width = css_viewport ? json_object_get_double_member_with_default (css_viewport, "clientWidth", 0) : 0;

  if (device == NULL || css_width <= 0)
    return 0;
  return json_object_get_double_member_with_default (device, "clientWidth", 0) / css_width;
}

static void
on_layout_metrics (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  Capture *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  GError *error = NULL;
  JsonObject *viewport, *size;
  double page_x, page_y;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      fail_capture (task, error);
      return;
    }
  viewport = json_object_has_member (reply, "cssVisualViewport")
             ? json_object_get_object_member (reply, "cssVisualViewport") : NULL;
  size = json_object_has_member (reply, "cssContentSize") ? json_object_get_object_member (reply, "cssContentSize") : NULL;
  page_x = viewport ? json_object_get_double_member_with_default (viewport, "pageX", 0) : 0;
  page_y = viewport ? json_object_get_double_member_with_default (viewport, "pageY", 0) : 0;
  data->scale_factor = layout_scale_factor (reply, viewport);

  if (data->has_box && !data->scrolled && viewport != NULL &&
      (data->box[0] < 0 || data->box[1] < 0 ||
       data->box[0] + data->box[2] > json_object_get_double_member_with_default (viewport, "clientWidth", 0) ||
       data->box[1] + data->box[3] > json_object_get_double_member_with_default (viewport, "clientHeight", 0)))
    {
      /* Not all in view: scrolled into it, and measured again. */
      g_autoptr(JsonObject) args = json_object_new ();

      data->scrolled = TRUE;
      json_object_set_boolean_member (args, "scroll", TRUE);
      _stw_surface_element_op_async (g_task_get_source_object (task), data->options->target, "screenshotBox", args,
                                     g_task_get_cancellable (task), on_element_box, task);
      return;
    }
  if (data->has_box)
    {
      /* A clip is in the document's coordinates, a box in the viewport's. */
      data->clip[0] = data->box[0] + page_x;
      data->clip[1] = data->box[1] + page_y;
      data->clip[2] = data->box[2];
      data->clip[3] = data->box[3];
    }
  else if (data->has_clip)
    {
      /* The caller's clip, cut to the page: what lies beyond has no
       * pixels, and a clip of a billion pixels is no capture at all. */
      double width = size ? json_object_get_double_member_with_default (size, "width", 0) : 0;
      double height = size ? json_object_get_double_member_with_default (size, "height", 0) : 0;

      if (size != NULL)
        {
          data->clip[2] = MIN (data->clip[2], width - data->clip[0]);
          data->clip[3] = MIN (data->clip[3], height - data->clip[1]);
        }
      if (data->clip[2] <= 0 || data->clip[3] <= 0)
        {
          fail_capture (task, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("The clip lies outside the page (%g × %g)"), width, height));
          return;
        }
    }
  else if (data->options->full_page && size != NULL)
    {
      data->clip[0] = 0;
      data->clip[1] = 0;
      data->clip[2] = json_object_get_double_member_with_default (size, "width", 1);
      data->clip[3] = json_object_get_double_member_with_default (size, "height", 1);
      json_object_set_boolean_member (data->params, "captureBeyondViewport", TRUE);
    }
  else if (viewport != NULL)
    {
      data->clip[0] = page_x;
      data->clip[1] = page_y;
      data->clip[2] = json_object_get_double_member_with_default (viewport, "clientWidth", 1);
      data->clip[3] = json_object_get_double_member_with_default (viewport, "clientHeight", 1);
    }
  else
    {
      capture (task);
      return;
    }
  data->has_clip = TRUE;
  set_clip (data);
  capture (task);
}

static void
measure_and_capture (GTask *task)
{
  Capture *data = g_task_get_task_data (task);
  GError *unusable = check_usable (data->on);

  if (unusable != NULL)
    {
      fail_capture (task, unusable);
      return;
    }
  stw_transport_call_async (data->on->transport, "Page.getLayoutMetrics", NULL, data->on->cdp_session_id, 0,
                            g_task_get_cancellable (task), on_layout_metrics, task);
}

static void
on_element_offset (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  Capture *data = g_task_get_task_data (task);
  GError *error = NULL;
  double x = 0, y = 0;
  StwSurface *root = _stw_surface_frame_offset_finish (STW_SURFACE (object), result, &x, &y, &error);

  if (root == NULL)
    {
      fail_capture (task, error);
      return;
    }
  /* The frame's pixels are its window's (or webview's). */
  g_clear_object (&data->on);
  data->on = root;
  data->box[0] += x;
  data->box[1] += y;
  measure_and_capture (task);
}

static void
on_element_box (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  Capture *data = g_task_get_task_data (task);
  g_autoptr(StwSurface) acted_on = NULL;
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;
  JsonObject *box;

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);
  if (answer == NULL)
    {
      fail_capture (task, error);
      return;
    }
  box = json_object_has_member (answer, "bbox") ? json_object_get_object_member (answer, "bbox") : NULL;
  if (box == NULL)
    {
      fail_capture (task, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("The page measured no box")));
      return;
    }
  data->has_box = TRUE;
  data->box[0] = json_object_get_double_member_with_default (box, "x", 0);
  data->box[1] = json_object_get_double_member_with_default (box, "y", 0);
  data->box[2] = json_object_get_double_member_with_default (box, "w", 1);
  data->box[3] = json_object_get_double_member_with_default (box, "h", 1);
  _stw_surface_frame_offset_async (acted_on, g_task_get_cancellable (task), on_element_offset, task);
}

/**
 * stw_surface_capture_screenshot_async:
 * @self: a #StwSurface: a window or webview (or, for an element crop, any
 *   surface)
 * @options: (nullable): what to capture and how; %NULL for the viewport as PNG
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the screenshot
 * @user_data: data for @callback
 *
 * Captures the surface's pixels through `Page.captureScreenshot`: the
 * viewport, the full page, a clip, or one element (measured by the
 * page-side module in the isolated world, after scrolling it into view).
 * An element of a frame — same-process or out-of-process — is captured
 * through the window or webview holding it, its box moved by the frames'
 * offsets. With a maximum size, the browser renders the capture scaled
 * down to fit.
 *
 * Fails with `NOT_RUNNING` once the session ended, `SURFACE_CLOSED` when
 * the surface closed, `SURFACE_UNSUPPORTED` for a whole frame (capture
 * its window with a clip, or one of its elements, instead),
 * `REF_NOT_FOUND`, `SELECTOR_NO_MATCH`, `BAD_ARGUMENT` (an invalid
 * selector), `CDP_DISCONNECTED` or `CDP_TIMEOUT`: a page that does not
 * render (a hung page) fails after 10 s, or 30 s for a full page.
 *
 * Since: 1.0
 */
void
stw_surface_capture_screenshot_async (StwSurface                 *self,
                                      const StwScreenshotOptions *options,
                                      GCancellable               *cancellable,
                                      GAsyncReadyCallback         callback,
                                      gpointer                    user_data)
{
  g_autoptr(GCancellable) deadline = NULL;
  GTask *task;
  Capture *data;
  GError *unusable;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  deadline = _stw_deadline_new (cancellable, options && options->full_page ? FULL_PAGE_TIMEOUT_MS
                                                                           : SCREENSHOT_TIMEOUT_MS);
  task = g_task_new (self, deadline, callback, user_data);
  g_task_set_source_tag (task, stw_surface_capture_screenshot_async);

  data = g_new0 (Capture, 1);
  data->options = options ? stw_screenshot_options_copy (options) : stw_screenshot_options_new ();
  data->on = g_object_ref (self);
  data->params = json_object_new ();
  g_task_set_task_data (task, data, (GDestroyNotify) capture_free);
  options = data->options;

  unusable = check_usable (self);
  if (unusable == NULL && self->kind == STW_SURFACE_KIND_FRAME && options->target == NULL)
    unusable = stw_error_new_code (STW_ERROR_SURFACE_UNSUPPORTED,
                                   _("A frame is captured through its window: capture the window with a clip, or an element"));
  if (unusable != NULL)
    {
      fail_capture (task, unusable);
      return;
    }

  json_object_set_string_member (data->params, "format", options->format == STW_IMAGE_FORMAT_JPEG ? "jpeg" : "png");
  if (options->format == STW_IMAGE_FORMAT_JPEG && options->quality >= 0)
    json_object_set_int_member (data->params, "quality", options->quality);

  if (options->target != NULL)
    _stw_surface_element_op_async (self, options->target, "screenshotBox", NULL, deadline, on_element_box, task);
  else if (options->has_clip)
    {
      memcpy (data->clip, options->clip, sizeof data->clip);
      data->has_clip = TRUE;
      measure_and_capture (task);
    }
  else if (options->full_page || options->max_width > 0 || options->max_height > 0)
    measure_and_capture (task);
  else
    capture (task);
}

/**
 * stw_surface_capture_screenshot_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.capture_screenshot_async].
 *
 * Returns: (transfer full): the screenshot: the encoded image, its size
 *   in pixels and its format
 *
 * Since: 1.0
 */
StwScreenshot *
stw_surface_capture_screenshot_finish (StwSurface    *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_capture_screenshot_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_surface_capture_screenshot_sync:
 * @self: a #StwSurface
 * @options: (nullable): what to capture and how; %NULL for the viewport as PNG
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.capture_screenshot_async], for
 * scripts and test harnesses. It iterates the main context that was
 * thread-default when the surface was made (its session's) until the
 * image arrives (see "Blocking calls" in the architecture guide).
 *
 * Returns: (transfer full): the screenshot
 *
 * Since: 1.0
 */
StwScreenshot *
stw_surface_capture_screenshot_sync (StwSurface                 *self,
                                     const StwScreenshotOptions *options,
                                     GCancellable               *cancellable,
                                     GError                    **error)
{
  StwSyncCall call;
  StwScreenshot *image;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);

  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  stw_surface_capture_screenshot_async (self, options, cancellable, _stw_sync_call_callback, &call);
  image = stw_surface_capture_screenshot_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return image;
}
