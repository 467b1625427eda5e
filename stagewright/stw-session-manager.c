/* stw-session-manager.c: the live sessions and how they start
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "stw-cdp-websocket.h"
#include "stw-cdp-pipe.h"
#include "stw-confine-private.h"
#include "stw-error-registry.h"
#include "stw-http-private.h"
#include "stw-proc-private.h"
#include "stw-hooks-private.h"
#include "stw-json-private.h"
#include "stw-session-private.h"
#include "stw-sync-private.h"

#define DEFAULT_FIRST_WINDOW_MS 30000
#define DEFAULT_READY_MS 5000
#define DEFAULT_CONNECT_MS 10000
#define DEFAULT_INJECT_MS 10000
#define DEFAULT_MAIN_FIND_MS 5000

/**
 * StwSessionManager:
 *
 * The live sessions of a server (at most %STW_MAX_SESSIONS) and the ways to
 * start one: launch (the server owns the app), attach over CDP, inject
 * into a running Node/Electron main process. Calls that name no session
 * resolve to the only live one.
 */
struct _StwSessionManager
{
  GObject     parent_instance;
  GPtrArray  *sessions;
  char       *app_root;
  char       *instance_id; /* prefixes session ids: "ID.app-1-…" */
  guint       next_id;
  guint       launching;   /* launches in flight: they count against the rules */
  GMainContext *context;    /* thread-default when made */
};

G_DEFINE_FINAL_TYPE (StwSessionManager, stw_session_manager, G_TYPE_OBJECT)

static void
stw_session_manager_dispose (GObject *object)
{
  StwSessionManager *self = STW_SESSION_MANAGER (object);

  /* Disposing the manager ends every session: owned apps are killed with
   * their groups (the guards remove their directories). */
  while (self->sessions->len > 0)
    {
      g_autoptr(StwSession) session = g_object_ref (g_ptr_array_index (self->sessions, 0));
      g_ptr_array_remove_index (self->sessions, 0);
      g_signal_handlers_disconnect_by_data (session, self);
      g_object_run_dispose (G_OBJECT (session));
    }
  G_OBJECT_CLASS (stw_session_manager_parent_class)->dispose (object);
}

static void
stw_session_manager_finalize (GObject *object)
{
  StwSessionManager *self = STW_SESSION_MANAGER (object);

  g_ptr_array_unref (self->sessions);
  g_free (self->app_root);
  g_free (self->instance_id);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (stw_session_manager_parent_class)->finalize (object);
}

static void
stw_session_manager_class_init (StwSessionManagerClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = stw_session_manager_dispose;
  G_OBJECT_CLASS (klass)->finalize = stw_session_manager_finalize;
}

static void
stw_session_manager_init (StwSessionManager *self)
{
  self->sessions = g_ptr_array_new_with_free_func (g_object_unref);
  self->context = g_main_context_ref_thread_default ();
}

/**
 * stw_session_manager_new:
 *
 * Creates a session manager with no sessions.
 *
 * Returns: (transfer full): a new #StwSessionManager
 *
 * Since: 1.0
 */
StwSessionManager *
stw_session_manager_new (void)
{
  return g_object_new (STW_TYPE_SESSION_MANAGER, NULL);
}

/**
 * stw_session_manager_set_app_root:
 * @self: a #StwSessionManager
 * @app_root: (nullable): the directory launch paths must lie in
 *
 * Sets the directory that launch paths must lie in; %NULL lifts the
 * confinement.
 *
 * Since: 1.0
 */
void
stw_session_manager_set_app_root (StwSessionManager *self,
                                  const char        *app_root)
{
  g_return_if_fail (STW_IS_SESSION_MANAGER (self));
  g_free (self->app_root);
  self->app_root = app_root ? realpath (app_root, NULL) : NULL;
  if (app_root != NULL && self->app_root == NULL)
    self->app_root = g_strdup (app_root);
}

/* Short enough for a balancer's server name and a log line; no dot, which
 * ends the id in a session id. */
#define INSTANCE_ID_MAX 32

gboolean
_stw_session_manager_instance_id_is_valid (const char *instance_id)
{
  gsize len = instance_id != NULL ? strlen (instance_id) : 0;

  if (len == 0 || len > INSTANCE_ID_MAX)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (instance_id[i]) && instance_id[i] != '_' && instance_id[i] != '-')
      return FALSE;
  return TRUE;
}

/* Several servers behind one balancer: each session id names the server
 * that owns the app ("ID.app-1-…"), so that the balancer can route a call
 * to it and another server can say whose app it is. %NULL (the default)
 * keeps ids bare. */
void
_stw_session_manager_set_instance_id (StwSessionManager *self,
                                      const char        *instance_id)
{
  g_return_if_fail (STW_IS_SESSION_MANAGER (self));
  g_return_if_fail (instance_id == NULL || _stw_session_manager_instance_id_is_valid (instance_id));

  g_free (self->instance_id);
  self->instance_id = g_strdup (instance_id);
}

/* The instance a session id names, when it names one other than ours:
 * such an app is never ours, and the caller is told whose it is. A
 * server without an instance id (stdio alone) claims nothing. */
static char *
foreign_owner (StwSessionManager *self,
               const char        *session_id)
{
  const char *dot = strchr (session_id, '.');
  g_autofree char *owner = NULL;

  if (dot == NULL || self->instance_id == NULL)
    return NULL;
  owner = g_strndup (session_id, dot - session_id);
  if (!_stw_session_manager_instance_id_is_valid (owner) || g_strcmp0 (owner, self->instance_id) == 0)
    return NULL;
  return g_steal_pointer (&owner);
}

/**
 * stw_session_manager_list_sessions:
 * @self: a #StwSessionManager
 *
 * Lists the live sessions of the manager.
 *
 * Returns: (transfer container) (element-type StwSession): the live sessions
 *
 * Since: 1.0
 */
GList *
stw_session_manager_list_sessions (StwSessionManager *self)
{
  GList *list = NULL;

  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);

  for (guint i = self->sessions->len; i > 0; i--)
    list = g_list_prepend (list, g_ptr_array_index (self->sessions, i - 1));
  return list;
}

/**
 * stw_session_manager_lookup:
 * @self: a #StwSessionManager
 * @session_id: a session id
 *
 * Looks up a live session by its id.
 *
 * Returns: (transfer none) (nullable): the live session with that id
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_lookup (StwSessionManager *self,
                            const char        *session_id)
{
  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);

  for (guint i = 0; session_id != NULL && i < self->sessions->len; i++)
    {
      StwSession *session = g_ptr_array_index (self->sessions, i);
      if (g_strcmp0 (stw_session_get_id (session), session_id) == 0)
        return session;
    }
  return NULL;
}

/**
 * stw_session_manager_resolve:
 * @self: a #StwSessionManager
 * @session_id: (nullable): the session a call names
 * @error: `NOT_RUNNING` or `BAD_ARGUMENT`
 *
 * The contract's rule: a named session must be live (`NOT_RUNNING`; when
 * its id names another instance, `details.owner` is that instance);
 * without a name, the only live session, `NOT_RUNNING` when there is none
 * and `BAD_ARGUMENT` listing them when there are several.
 *
 * Returns: (transfer none) (nullable): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_resolve (StwSessionManager  *self,
                             const char         *session_id,
                             GError            **error)
{
  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);

  if (session_id != NULL)
    {
      StwSession *session = stw_session_manager_lookup (self, session_id);
      g_autofree char *owner = NULL;

      if (session == NULL && (owner = foreign_owner (self, session_id)) != NULL)
        {
          g_autoptr(JsonObject) details = json_object_new ();
          GError *elsewhere = stw_error_new_code (STW_ERROR_NOT_RUNNING,
                                                  _("The session %s belongs to the stagewright instance “%s”, "
                                                    "not to this one (“%s”): send the call to “%s”"),
                                                  session_id, owner, self->instance_id, owner);

          stw_error_set_hint (elsewhere, _("Each stagewright instance drives only its own apps; "
                                           "a sessionId begins with its owner's instance id."));
          json_object_set_string_member (details, "owner", owner);
          json_object_set_string_member (details, "instance", self->instance_id);
          stw_error_set_details (elsewhere, details);
          g_propagate_error (error, elsewhere);
        }
      else if (session == NULL)
        {
          GError *missing = stw_error_new_code (STW_ERROR_NOT_RUNNING, _("No live session has the id %s"), session_id);
          stw_error_add_next_action (missing, "electron_status()");
          g_propagate_error (error, missing);
        }
      return session;
    }

  if (self->sessions->len == 1)
    return g_ptr_array_index (self->sessions, 0);

  if (self->sessions->len == 0)
    {
      GError *none = stw_error_new_code_literal (STW_ERROR_NOT_RUNNING, NULL);
      stw_error_add_next_action (none, "electron_launch({ main: \"/abs/path/main.js\" })");
      g_propagate_error (error, none);
      return NULL;
    }

  {
    g_autoptr(JsonObject) details = json_object_new ();
    JsonArray *ids = json_array_new ();
    GError *ambiguous = stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                            _("%u sessions are live; pass sessionId"), self->sessions->len);
    for (guint i = 0; i < self->sessions->len; i++)
      json_array_add_string_element (ids, stw_session_get_id (g_ptr_array_index (self->sessions, i)));
    json_object_set_array_member (details, "available_sessions", ids);
    stw_error_set_details (ambiguous, details);
    g_propagate_error (error, ambiguous);
    return NULL;
  }
}

static void
on_session_exited (StwSession        *session,
                   StwSessionManager *self)
{
  stw_session_manager_remove (self, session);
}

/**
 * stw_session_manager_remove:
 * @self: a #StwSessionManager
 * @session: a session
 *
 * Forgets @session (it ended).
 *
 * Since: 1.0
 */
void
stw_session_manager_remove (StwSessionManager *self,
                            StwSession        *session)
{
  g_return_if_fail (STW_IS_SESSION_MANAGER (self));

  g_signal_handlers_disconnect_by_data (session, self);
  g_ptr_array_remove (self->sessions, session);
}

static void
add_session (StwSessionManager *self,
             StwSession        *session)
{
  g_ptr_array_add (self->sessions, g_object_ref (session));
  g_signal_connect (session, "exited", G_CALLBACK (on_session_exited), self);
}

static char *
next_session_id (StwSessionManager *self,
                 const char        *prefix)
{
  g_autofree char *uuid = g_uuid_string_random ();

  /* Short and unique: a counter for humans, a random tail against reuse
   * across restarts; the owning instance first when there are several. */
  if (self->instance_id != NULL)
    return g_strdup_printf ("%s.%s-%u-%.8s", self->instance_id, prefix, ++self->next_id, uuid);
  return g_strdup_printf ("%s-%u-%.8s", prefix, ++self->next_id, uuid);
}

/* The session cap and the single-app rule, counting launches in flight:
 * twenty concurrent launches must not make twenty sessions. */
static gboolean
check_capacity (StwSessionManager  *self,
                gboolean            allow_multiple,
                GError            **error)
{
  guint taken = self->sessions->len + self->launching;

  if (taken >= STW_MAX_SESSIONS)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_ALREADY_RUNNING,
                                                    _("The limit of %d live sessions is reached"),
                                                    STW_MAX_SESSIONS));
      return FALSE;
    }
  if (taken > 0 && !allow_multiple)
    {
      GError *running = self->sessions->len > 0
                        ? stw_error_new_code (STW_ERROR_ALREADY_RUNNING, _("An app is already running"))
                        : stw_error_new_code (STW_ERROR_ALREADY_RUNNING, _("An app is being launched"));
      stw_error_add_next_action (running, "electron_stop()");
      stw_error_add_next_action (running, "electron_launch({ allowMultiple: true, … })");
      g_propagate_error (error, running);
      return FALSE;
    }
  return TRUE;
}

/**
 * _stw_path_is_inside:
 * @path: a path
 * @root: an existing directory
 *
 * The --app-root rule (see _stw_confine_path(), which decides it): @path,
 * with symlinks resolved, is @root or lies below it.
 */
gboolean
_stw_path_is_inside (const char *path,
                     const char *root)
{
  g_autofree char *real = _stw_confine_path (root, NULL, path, "path", NULL);

  return real != NULL;
}

/* A launch path: absolute, existing, and inside --app-root when set. */
static char *
check_path (StwSessionManager  *self,
            const char         *field,
            const char         *path,
            gboolean            directory_ok,
            GError            **error)
{
  g_autofree char *real = NULL;

  if (!g_path_is_absolute (path))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_ABSOLUTE_PATH_REQUIRED,
                                                    _("%s must be an absolute path"), field));
      return NULL;
    }
  real = realpath (path, NULL);
  if (real == NULL || (!directory_ok && g_file_test (real, G_FILE_TEST_IS_DIR)))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("%s does not exist: %s"), field, path));
      return NULL;
    }
  return _stw_confine_path (self->app_root, NULL, real, field, error);
}

/* The runtime for @main when no executable is given: the app root's own
 * electron, then one next to @main, then (unless @project_only) PATH's.
 * With --app-root it must resolve inside the root like any other path. */
static char *
find_electron (StwSessionManager  *self,
               const char         *main,
               gboolean            project_only,
               GError            **error)
{
  g_autofree char *main_dir = main == NULL ? NULL
                              : g_file_test (main, G_FILE_TEST_IS_DIR) ? g_strdup (main) : g_path_get_dirname (main);
  const char *roots[] = { self->app_root, project_only ? NULL : main_dir };
  g_autofree char *found = NULL;

  for (guint i = 0; found == NULL && i < G_N_ELEMENTS (roots); i++)
    if (roots[i] != NULL)
      {
        g_autofree char *local = g_build_filename (roots[i], "node_modules", ".bin", "electron", NULL);
        if (g_file_test (local, G_FILE_TEST_IS_EXECUTABLE))
          found = g_steal_pointer (&local);
      }
  if (found == NULL && !project_only)
    found = g_find_program_in_path ("electron");
  if (found == NULL)
    {
      GError *missing = main != NULL
                        ? stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("No Electron runtime found for %s"), main)
                        : stw_error_new_code_literal (STW_ERROR_FILE_NOT_FOUND, _("No Electron runtime in the app root or on PATH"));
      stw_error_set_hint (missing, _("Pass executablePath, or install electron in the app (node_modules/.bin/electron)"));
      g_propagate_error (error, missing);
      return NULL;
    }
  return _stw_confine_path (self->app_root, NULL, found, "runtime", error);
}

/**
 * stw_session_manager_find_runtime:
 * @self: a #StwSessionManager
 * @main: (nullable): an Electron app directory or entry script
 * @error: where to put `FILE_NOT_FOUND`, or `BAD_ARGUMENT` when the runtime
 *   found lies outside the app root
 *
 * The Electron executable a launch with @main and no `executablePath`
 * would run: the app root's `node_modules/.bin/electron`, then one next to
 * @main, then `electron` on `PATH`, confined to the app root (see
 * [method@Stagewright.SessionManager.set_app_root]) like every other path.
 *
 * Returns: (transfer full) (nullable): the resolved path
 *
 * Since: 1.0
 */
char *
stw_session_manager_find_runtime (StwSessionManager  *self,
                                  const char         *main,
                                  GError            **error)
{
  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return find_electron (self, main, FALSE, error);
}

static guint
uint_member (JsonObject *options,
             const char *member,
             guint       fallback)
{
  JsonNode *node = json_object_get_member (options, member);
  gint64 value;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  value = json_node_get_int (node);
  return value > 0 && value <= G_MAXUINT ? (guint) value : fallback;
}

/* `pid` of an options object, checked as given: narrowing first would
 * make 4294967297 pid 1. 0 when absent. */
static gboolean
pid_member (JsonObject  *options,
            GPid        *pid,
            GError     **error)
{
  JsonNode *node = json_object_get_member (options, "pid");
  gint64 value;

  *pid = 0;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_INT64 && json_node_get_value_type (node) != G_TYPE_DOUBLE))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("pid must be an integer")));
      return FALSE;
    }
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    value = json_node_get_int (node);
  else
    {
      double d = json_node_get_double (node);
      /* Out of range or fractional: -1, which the range check refuses. */
      value = d >= 1 && d < STW_PID_LIMIT && d == (double) (gint64) d ? (gint64) d : -1;
    }
  if (!_stw_proc_check_pid_range (value, error))
    return FALSE;
  *pid = (GPid) value;
  return TRUE;
}

/* --- launch -------------------------------------------------------------- */

typedef struct
{
  StwSessionManager *manager;   /* while a slot is reserved */
  StwLaunchSpec  spec;
  guint          ready_timeout_ms;
  char          *id;
  StwProcess    *process;
  StwTransport  *browser;
  StwTransport  *inspector;
  StwSession    *session;
  guint          connecting;    /* endpoint connections under way */
  gboolean       launched;      /* the endpoints are known: the last connection starts the session */
  gboolean       inspector_connecting; /* started when its line appeared */
  gulong         debugger_waiting_id;
  gboolean       debugger_waiting;     /* Node waits for our inspector to go: the app is exiting */
  GError        *error;
  GCancellable  *cancellable;
  gulong         cancelled_id;
  gboolean       done;          /* answered: later callbacks only clean up */
  StwLaunchOptions *options;    /* for the plugins' launch hooks */
} Launch;

/* The launch no longer counts as in flight (it became a session, or
 * failed), and a cancel no longer concerns it. */
static void
launch_release_slot (Launch *launch)
{
  launch->done = TRUE;
  if (launch->cancelled_id != 0)
    {
      /* Not g_cancellable_disconnect(): this may run inside the handler. */
      g_signal_handler_disconnect (launch->cancellable, launch->cancelled_id);
      launch->cancelled_id = 0;
    }
  if (launch->manager == NULL)
    return;
  launch->manager->launching--;
  g_clear_weak_pointer (&launch->manager);
}

static void
launch_free (Launch *launch)
{
  launch_release_slot (launch);
  if (launch->debugger_waiting_id != 0)
    g_signal_handler_disconnect (launch->process, launch->debugger_waiting_id);
  stw_launch_spec_clear (&launch->spec);
  g_free (launch->id);
  g_clear_object (&launch->process);
  g_clear_object (&launch->browser);
  g_clear_object (&launch->inspector);
  g_clear_object (&launch->session);
  g_clear_object (&launch->cancellable);
  g_clear_error (&launch->error);
  g_clear_object (&launch->options);
  g_free (launch);
}

static void
fail_launch (GTask  *task,
             GError *error)
{
  Launch *launch = g_task_get_task_data (task);

  /* Nothing a failed launch started may stay: kill it, the guard cleans. */
  if (launch->session != NULL)
    stw_session_force_kill (launch->session);
  else if (launch->process != NULL)
    stw_process_kill (launch->process);
  launch_release_slot (launch);
  g_task_return_error (task, error);
}

static void launch_ready      (GTask    *task);
static void on_app_ready_done (GError   *error,
                               gpointer  user_data);

static void
on_session_started (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSessionManager *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (launch->done)
    return;   /* cancelled meanwhile: the app is killed already */
  if (!_stw_session_start_finish (STW_SESSION (object), result, &error))
    {
      fail_launch (task, stw_error_new (stw_error_get_code_name (error), "%s", error->message));
      return;
    }
  if (!stw_session_is_running (launch->session))
    {
      fail_launch (task, stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("The app exited during start-up")));
      return;
    }

  /* The plugins' app-ready hooks, then the answer. */
  if (_stw_hooks_wanted (self, STW_HOOK_APP_READY))
    {
      _stw_hooks_run (self, STW_HOOK_APP_READY, launch->session, NULL, launch->options,
                      on_app_ready_done, g_steal_pointer (&task));
      return;
    }
  launch_ready (task);
}

static void
launch_ready (GTask *task)
{
  StwSessionManager *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);

  launch_release_slot (launch);
  add_session (self, launch->session);
  g_task_return_pointer (task, g_object_ref (launch->session), g_object_unref);
}

static void
on_app_ready_done (GError   *error,
                   gpointer  user_data)
{
  g_autoptr(GTask) task = user_data;
  Launch *launch = g_task_get_task_data (task);

  if (launch->done)
    return;
  if (error != NULL)
    {
      fail_launch (task, g_error_copy (error));
      return;
    }
  launch_ready (task);
}

static void
start_session (GTask *task)
{
  StwSessionManager *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);

  if (launch->done)
    {
      g_object_unref (task);
      return;
    }
  if (launch->error != NULL)
    {
      fail_launch (task, g_steal_pointer (&launch->error));
      g_object_unref (task);
      return;
    }

  /* The session watches for it from now on. */
  if (launch->debugger_waiting_id != 0)
    g_signal_handler_disconnect (launch->process, launch->debugger_waiting_id);
  launch->debugger_waiting_id = 0;
  launch->session = _stw_session_new_launched (self, launch->id, launch->process,
                                               launch->browser, launch->inspector);
  _stw_session_start_async (launch->session, launch->spec.timeout_ms, launch->ready_timeout_ms,
                            g_task_get_cancellable (task), on_session_started, task);
}

static void
on_endpoint_connected (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;   /* each connection holds a reference */
  Launch *launch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  StwTransport *transport;

  transport = stw_cdp_websocket_connect_finish (result, &error);
  if (transport == NULL && launch->error == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    launch->error = g_error_copy (error);
  else if (transport == NULL && launch->error == NULL)
    launch->error = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("Cannot connect to the app's DevTools endpoint: %s"),
                                        error->message);
  else if (transport != NULL && launch->process == NULL)
    g_object_unref (transport);   /* the launch failed meanwhile */
  else if (transport != NULL)
    {
      const char *url = stw_cdp_websocket_get_url (STW_CDP_WEBSOCKET (transport));
      if (g_strcmp0 (url, stw_process_get_inspector_url (launch->process)) == 0 && launch->debugger_waiting)
        {
          stw_transport_close (transport);   /* the app is exiting: let Node go */
          g_object_unref (transport);
        }
      else if (g_strcmp0 (url, stw_process_get_inspector_url (launch->process)) == 0)
        {
          launch->inspector = transport;
          stw_process_mark (launch->process, "main process attached");
        }
      else
        {
          launch->browser = transport;
          stw_process_mark (launch->process, "browser connected");
        }
    }

  /* Before the endpoints are known, the launch itself still runs: its
   * callback starts the session when nothing is left to wait for. */
  if (--launch->connecting == 0 && launch->launched)
    start_session (g_object_ref (task));
}

static void
connect_endpoint (GTask      *task,
                  const char *url)
{
  Launch *launch = g_task_get_task_data (task);

  launch->connecting++;
  stw_cdp_websocket_connect_async (url, DEFAULT_CONNECT_MS, g_task_get_cancellable (task),
                                   on_endpoint_connected, g_object_ref (task));
}

/* A main script that fails ends with Node waiting for its inspector
 * clients to disconnect: ours goes, so the app exits and the launch fails
 * as it did before it connected early. */
static void
on_launch_debugger_waiting (StwProcess *process,
                            Launch     *launch)
{
  launch->debugger_waiting = TRUE;
  if (launch->inspector != NULL)
    stw_transport_close (launch->inspector);
}

/* The Node inspector prints its line before Chromium even starts: connect
 * now, while the browser comes up, rather than after its line. */
static void
on_inspector_announced (StwProcess *process,
                        const char *url,
                        gpointer    user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);

  /* Anything else is refused once the endpoints are known. */
  if (launch->done || launch->inspector_connecting || !stw_url_is_loopback (url))
    return;
  launch->inspector_connecting = TRUE;
  /* The same object the launch returns: the timeline goes on with it. */
  g_set_object (&launch->process, process);
  launch->debugger_waiting_id = g_signal_connect (process, "debugger-waiting",
                                                  G_CALLBACK (on_launch_debugger_waiting), launch);
  stw_process_mark (process, "main process: connecting");
  connect_endpoint (task, url);
}

static void
on_process_launched (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  GError *error = NULL;
  const char *browser_url;
  const char *inspector_url;

  if (launch->debugger_waiting_id != 0)
    g_signal_handler_disconnect (launch->process, launch->debugger_waiting_id);
  launch->debugger_waiting_id = 0;
  g_clear_object (&launch->process);
  launch->process = stw_process_launch_finish (result, &error);
  if (launch->process != NULL && launch->inspector_connecting)
    launch->debugger_waiting_id = g_signal_connect (launch->process, "debugger-waiting",
                                                    G_CALLBACK (on_launch_debugger_waiting), launch);
  if (launch->process == NULL || launch->done)
    {
      if (launch->process != NULL)
        stw_process_kill (launch->process);
      if (launch->done)
        {
          g_clear_error (&error);
          g_object_unref (task);
          return;
        }
      launch_release_slot (launch);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }

  browser_url = stw_process_get_browser_url (launch->process);
  inspector_url = stw_process_get_inspector_url (launch->process);
  stw_process_mark (launch->process, "endpoints known");

  /* Whatever the app announced, we only ever connect to this machine. */
  if ((browser_url != NULL && !stw_url_is_loopback (browser_url)) ||
      (inspector_url != NULL && !stw_url_is_loopback (inspector_url)))
    {
      g_autoptr(JsonObject) details = json_object_new ();
      GError *refused = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("The app announced a debugging endpoint that is "
                                                               "not on loopback"));
      json_object_set_string_member (details, "browser_url", browser_url ? browser_url : "");
      json_object_set_string_member (details, "inspector_url", inspector_url ? inspector_url : "");
      json_object_set_string_member (details, "rule", "loopback endpoints only");
      stw_error_set_details (refused, details);
      fail_launch (task, refused);
      g_object_unref (task);
      return;
    }
  if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      fail_launch (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                              _("The launch was cancelled")));
      g_object_unref (task);
      return;
    }

  if (launch->spec.pipe)
    launch->browser = stw_cdp_pipe_new (stw_process_get_pipe_input (launch->process),
                                        stw_process_get_pipe_output (launch->process));

  launch->launched = TRUE;
  if (browser_url != NULL)
    connect_endpoint (task, browser_url);
  if (inspector_url != NULL && !launch->inspector_connecting)
    connect_endpoint (task, inspector_url);
  if (launch->connecting == 0)
    start_session (task);
  else
    g_object_unref (task);   /* the last connection starts the session */
}

/* A cancel is answered here, at once, whatever phase the launch is in
 * (fuse check, waiting for the endpoints, connecting, waiting for the
 * first window, readiness): the slot is free when the answer is given,
 * and what started is killed (stw_process_kill() removes its directories
 * as soon as the group is gone). The phases still in flight watch the
 * cancellable too; their late callbacks see `done` and only clean up (a
 * process that is still starting is killed by the launcher itself).
 * Cancel from the thread that launched. */
static void
on_launch_cancelled (GCancellable *cancellable,
                     gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);

  if (launch->done)
    return;
  fail_launch (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The launch was cancelled")));
}

static void
check_fuses_in_thread (GTask        *task,
                       gpointer      source_object,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  GError *error = NULL;

  if (_stw_launcher_check_fuses (task_data, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_fuses_checked (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  GError *error = NULL;

  if (launch->done)
    {
      g_object_unref (task);   /* cancelled meanwhile, and answered */
      return;
    }
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      fail_launch (task, error);
      g_object_unref (task);
      return;
    }
  launch->spec.inspector_announced = on_inspector_announced;
  launch->spec.inspector_announced_data = task;
  stw_process_launch_async (&launch->spec, g_task_get_cancellable (task), on_process_launched, task);
}

/* The checks that need no process, in the reference's order. */
static gboolean
prepare_launch (StwSessionManager  *self,
                StwLaunchOptions   *options,
                Launch             *launch,
                GError            **error)
{
  const char *main_path = stw_launch_options_get_main (options);
  const char *exe_path = stw_launch_options_get_executable_path (options);
  const char *cwd = stw_launch_options_get_cwd (options);
  const char *runtime = stw_launch_options_get_runtime (options);
  const char *store = stw_launch_options_get_credential_store (options);
  const char * const *args = stw_launch_options_get_args (options);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *env_keys, *env_values;

  if (!check_capacity (self, stw_launch_options_get_allow_multiple (options), error))
    return FALSE;

  if (runtime != NULL && (!g_str_equal (runtime, "project") || main_path == NULL || self->app_root == NULL))
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            _("runtime \"project\" needs main and a server started with --app-root")));
      return FALSE;
    }
  if (store != NULL && (main_path != NULL || (!g_str_equal (store, "testing") && !g_str_equal (store, "system"))))
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            _("credentialStore (\"testing\" or \"system\") applies to packaged "
                                                              "launches (executablePath without main)")));
      return FALSE;
    }
  if (stw_launch_options_get_preloads (options) != NULL && main_path == NULL)
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            _("A preload needs main: Electron honours -r only with an app path")));
      return FALSE;
    }

  _stw_launch_options_get_env (options, &env_keys, &env_values);
  if (!_stw_confine_env (self->app_root, cwd, env_keys, env_values, error))
    return FALSE;

  if (main_path == NULL && exe_path == NULL)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give main (an Electron app) or executablePath")));
      return FALSE;
    }
  if (main_path != NULL && (launch->spec.main = check_path (self, "main", main_path, TRUE, error)) == NULL)
    return FALSE;
  if (exe_path != NULL && (launch->spec.executable = check_path (self, "executablePath", exe_path, FALSE, error)) == NULL)
    return FALSE;
  if (cwd != NULL && (launch->spec.cwd = check_path (self, "cwd", cwd, TRUE, error)) == NULL)
    return FALSE;
  if (!_stw_confine_args (self->app_root, launch->spec.cwd, args, error))
    return FALSE;
  if (launch->spec.executable == NULL &&
      (launch->spec.executable = find_electron (self, launch->spec.main, runtime != NULL, error)) == NULL)
    return FALSE;

  /* Like the reference's packaged launch: a test keychain unless the
   * caller chose a store or a --password-store. */
  if (main_path == NULL && g_strcmp0 (store, "system") != 0)
    {
      gboolean chosen = FALSE;
      for (guint i = 0; args != NULL && args[i] != NULL; i++)
        chosen |= g_str_has_prefix (args[i], "--password-store");
      if (!chosen)
        g_ptr_array_add (argv, g_strdup ("--password-store=basic"));
    }
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  launch->spec.args = (char **) g_ptr_array_free (g_steal_pointer (&argv), FALSE);
  launch->spec.preloads = g_strdupv ((char **) stw_launch_options_get_preloads (options));
  launch->spec.env = stw_launch_options_dup_env (options);

  /* Every launch asks for the Node inspector (plain Chromium ignores it);
   * only an app given by main cannot do without one. */
  launch->spec.inspect = TRUE;
  launch->spec.require_inspector = launch->spec.main != NULL;
  launch->spec.pipe = stw_launch_options_get_pipe (options) && launch->spec.main == NULL;
  launch->spec.timeout_ms = stw_launch_options_get_timeout (options);
  if (launch->spec.timeout_ms == 0)
    launch->spec.timeout_ms = DEFAULT_FIRST_WINDOW_MS;
  launch->ready_timeout_ms = stw_launch_options_get_ready_timeout (options);
  /* Every endpoint but the pipe is a WebSocket: refuse before the app runs. */
  if (!launch->spec.pipe && !_stw_soup_load (error))
    return FALSE;
  return TRUE;
}

static void launch_prepared (GTask *task);

static void
on_before_launch_done (GError   *error,
                       gpointer  user_data)
{
  GTask *task = user_data;

  if (error != NULL)
    {
      g_task_return_error (task, g_error_copy (error));
      g_object_unref (task);
      return;
    }
  launch_prepared (task);
}

/**
 * stw_session_manager_launch_async:
 * @self: a #StwSessionManager
 * @options: what to launch
 * @cancellable: (nullable): a #GCancellable; cancelling stops the app's
 *   whole process group and removes its temporary directories at once
 * @callback: called with the new session
 * @user_data: data for @callback
 *
 * Launches an app the way Playwright launches Electron: the runtime
 * ([property@Stagewright.LaunchOptions:executable-path], else an
 * `electron` in the app root, next to `main` or on `PATH`) runs under
 * `--inspect=0 --remote-debugging-port=0`. With an executable alone (a
 * packaged app or plain Chromium) a binary that opens no Node inspector
 * still launches, without main-process operations (its capabilities say
 * why); with `main` it fails with `FUSES_BLOCK_LAUNCH`.
 *
 * Refusals: `ALREADY_RUNNING` (the session cap, or another app live or
 * being launched without [property@Stagewright.LaunchOptions:allow-multiple]),
 * `ABSOLUTE_PATH_REQUIRED`, `FILE_NOT_FOUND`, and `BAD_ARGUMENT` with
 * `details` naming the argument and the rule: a path outside the app root
 * (see [method@Stagewright.SessionManager.set_app_root]), a switch that
 * runs another program or opens a debugger, an environment key that
 * changes how code is loaded.
 *
 * Since: 1.0
 */
void
stw_session_manager_launch_async (StwSessionManager   *self,
                                  StwLaunchOptions    *options,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *task;
  Launch *launch;

  g_return_if_fail (STW_IS_SESSION_MANAGER (self));
  g_return_if_fail (STW_IS_LAUNCH_OPTIONS (options));

  task = g_task_new (self, cancellable, callback, user_data);
  launch = g_new0 (Launch, 1);
  g_task_set_source_tag (task, stw_session_manager_launch_async);
  g_task_set_task_data (task, launch, (GDestroyNotify) launch_free);
  launch->options = g_object_ref (options);

  /* Plugins' before-launch hooks may still change the options. */
  if (_stw_hooks_wanted (self, STW_HOOK_BEFORE_MAIN))
    {
      _stw_hooks_run (self, STW_HOOK_BEFORE_MAIN, NULL, NULL, options, on_before_launch_done, task);
      return;
    }
  launch_prepared (task);
}

static void
launch_prepared (GTask *task)
{
  StwSessionManager *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);
  StwLaunchOptions *options = launch->options;
  GCancellable *cancellable = g_task_get_cancellable (task);
  GError *error = NULL;

  if (!prepare_launch (self, options, launch, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }

  self->launching++;
  g_set_weak_pointer (&launch->manager, self);
  launch->id = next_session_id (self, "app");
  if (cancellable != NULL)
    {
      launch->cancellable = g_object_ref (cancellable);
      /* Never fires here: prepare_launch ran, and the launcher checks first. */
      launch->cancelled_id = g_signal_connect (cancellable, "cancelled", G_CALLBACK (on_launch_cancelled), task);
    }

  /* The reference's fuse preflight for an app run by its runtime: it may
   * read a 200 MB binary once, so not on the main loop. */
  if (launch->spec.main != NULL)
    {
      g_autoptr(GTask) check = g_task_new (self, cancellable, on_fuses_checked, task);
      g_task_set_source_tag (check, check_fuses_in_thread);
      g_task_set_task_data (check, g_strdup (launch->spec.executable), g_free);
      g_task_run_in_thread (check, check_fuses_in_thread);
      return;
    }
  launch->spec.inspector_announced = on_inspector_announced;
  launch->spec.inspector_announced_data = task;
  stw_process_launch_async (&launch->spec, cancellable, on_process_launched, task);
}

/* launch_sync() keeps its JSON options. */
static void
launch_json_async (StwSessionManager   *self,
                   JsonObject          *object,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  GError *error = NULL;
  g_autoptr(StwLaunchOptions) options = stw_launch_options_new_from_json_object (object, &error);

  if (options == NULL)
    {
      g_task_report_error (self, callback, user_data, stw_session_manager_launch_async, error);
      return;
    }
  stw_session_manager_launch_async (self, options, cancellable, callback, user_data);
}

/**
 * stw_session_manager_launch_finish:
 * @self: a #StwSessionManager
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.SessionManager.launch_async].
 *
 * Returns: (transfer full): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_launch_finish (StwSessionManager  *self,
                                   GAsyncResult       *result,
                                   GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_manager_launch_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

typedef void (*StartFunc) (StwSessionManager *, JsonObject *, GCancellable *, GAsyncReadyCallback, gpointer);

static StwSession *
start_sync (StwSessionManager  *self,
            StartFunc           start,
            const char         *options_json,
            GCancellable       *cancellable,
            GError            **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonObject) empty = json_object_new ();
  StwSession *session;
  StwSyncCall call;

  if (options_json != NULL && *options_json != '\0')
    {
      node = stw_json_parse (options_json, -1, NULL);
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("The options are not a JSON object")));
          return NULL;
        }
    }

  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  start (self, node ? json_node_get_object (node) : empty, cancellable, _stw_sync_call_callback, &call);
  session = g_task_propagate_pointer (G_TASK (_stw_sync_call_wait (&call)), error);
  _stw_sync_call_clear (&call);
  return session;
}

/**
 * stw_session_manager_launch_sync:
 * @self: a #StwSessionManager
 * @options: what to launch and how
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.SessionManager.launch_async] for scripts and
 * harnesses. It iterates the main context that was thread-default when the
 * manager was made (the one the session's sockets will belong to) until the
 * launch ends.
 *
 * Returns: (transfer full): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_launch_sync (StwSessionManager  *self,
                                 StwLaunchOptions   *options,
                                 GCancellable       *cancellable,
                                 GError            **error)
{
  StwSession *session;
  StwSyncCall call;

  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  stw_session_manager_launch_async (self, options, cancellable, _stw_sync_call_callback, &call);
  session = stw_session_manager_launch_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return session;
}

/**
 * stw_session_manager_launch_json_sync:
 * @self: a #StwSessionManager
 * @options_json: (nullable): the launch options as the `electron_launch`
 *   tool takes them, as a JSON object text
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * [method@Stagewright.SessionManager.launch_sync] for a caller that holds
 * the options as the tool's JSON (a harness replaying tool calls, a
 * configuration file); see
 * [ctor@Stagewright.LaunchOptions.new_from_json_object]. Invalid options
 * fail with `BAD_ARGUMENT`.
 *
 * Returns: (transfer full): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_launch_json_sync (StwSessionManager  *self,
                                      const char         *options_json,
                                      GCancellable       *cancellable,
                                      GError            **error)
{
  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);
  return start_sync (self, launch_json_async, options_json, cancellable, error);
}

/* --- HTTP discovery ------------------------------------------------------ */

#define DEFAULT_DISCOVER_MS 300
#define MAX_DISCOVER_MS 5000
#define MAX_DISCOVER_PORTS 64
#define DISCOVER_BODY_MAX 4096   /* the reference's cap for /json/version */

static const guint default_discover_ports[] = { 9222, 9223, 9224, 9225 };

typedef struct
{
  char       *host;
  guint      *ports;
  guint       n_ports;
  StwDiscoveredApp **found;  /* one slot per port, so the order is the ports' */
  guint       outstanding;
} Discover;

static void
discover_free (Discover *discover)
{
  for (guint i = 0; i < discover->n_ports; i++)
    g_clear_pointer (&discover->found[i], stw_discovered_app_free);
  g_free (discover->found);
  g_free (discover->ports);
  g_free (discover->host);
  g_free (discover);
}

typedef struct
{
  GTask *task;
  guint  index;
} DiscoverProbe;

static void
free_discovered (gpointer found)
{
  g_list_free_full (found, (GDestroyNotify) stw_discovered_app_free);
}

static void
discover_complete (GTask *task)
{
  Discover *discover = g_task_get_task_data (task);
  GList *found = NULL;

  for (guint i = discover->n_ports; i > 0; i--)
    if (discover->found[i - 1] != NULL)
      found = g_list_prepend (found, g_steal_pointer (&discover->found[i - 1]));
  g_task_return_pointer (task, found, free_discovered);
}

static void
on_discover_probe (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  DiscoverProbe *probe = user_data;
  GTask *task = probe->task;
  Discover *discover = g_task_get_task_data (task);
  guint port = discover->ports[probe->index];
  g_autoptr(JsonNode) node = _stw_http_get_json_finish (result, NULL);
  JsonObject *version = node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  const char *url = version ? json_object_get_string_member_with_default (version, "webSocketDebuggerUrl", NULL)
                            : NULL;

  /* A failed probe is just "nothing there". */
  if (url != NULL && stw_url_is_loopback (url))
    {
      GPid pid = _stw_proc_find_listener (port);

      discover->found[probe->index] =
        stw_discovered_app_new (url, port, json_object_get_string_member_with_default (version, "Browser", NULL),
                                pid > 0 ? pid : 0);
    }

  g_free (probe);
  if (--discover->outstanding == 0)
    discover_complete (task);
  g_object_unref (task);
}

/**
 * stw_session_manager_discover_async:
 * @self: a #StwSessionManager
 * @host: (nullable): a loopback host (`127.0.0.1`, `localhost` or `::1`);
 *   %NULL for `127.0.0.1`
 * @ports: (array length=n_ports) (nullable): the TCP ports to probe; %NULL
 *   for 9222–9225
 * @n_ports: the number of @ports, at most 64
 * @timeout_ms: the budget of each probe, at most 5000; 0 for 300
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the endpoints found
 * @user_data: data for @callback
 *
 * Finds DevTools endpoints on this machine: every port is probed at once
 * with `GET /json/version` under the loopback HTTP policy (direct, no
 * proxy, no redirect, the answer bounded while it is read). A port that
 * does not answer with a loopback `webSocketDebuggerUrl` is just not
 * listed. Fails only for arguments out of range (`BAD_ARGUMENT`).
 *
 * Each endpoint found is a [struct@Stagewright.DiscoveredApp]: the browser
 * WebSocket URL (what [method@Stagewright.SessionManager.attach_async]
 * takes as `cdpUrl`), the port, the `Browser` string and the process
 * listening on the port (0 when it cannot be seen).
 *
 * Since: 1.0
 */
void
stw_session_manager_discover_async (StwSessionManager   *self,
                                    const char          *host,
                                    const guint         *ports,
                                    gsize                n_ports,
                                    guint                timeout_ms,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Discover *discover;

  g_return_if_fail (STW_IS_SESSION_MANAGER (self));
  g_return_if_fail (ports != NULL || n_ports == 0);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_manager_discover_async);

  if (host == NULL)
    host = "127.0.0.1";
  if (!_stw_http_host_is_loopback (host))
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("host must be a loopback address, not %s"), host));
      return;
    }
  if (ports == NULL)
    {
      ports = default_discover_ports;
      n_ports = G_N_ELEMENTS (default_discover_ports);
    }
  if (n_ports == 0 || n_ports > MAX_DISCOVER_PORTS)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give 1 to %d ports"), MAX_DISCOVER_PORTS));
      return;
    }
  for (gsize i = 0; i < n_ports; i++)
    if (ports[i] < 1 || ports[i] > 65535)
      {
        g_task_return_error (task, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Port %u is not a TCP port"), ports[i]));
        return;
      }
  if (timeout_ms > MAX_DISCOVER_MS)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("timeoutMs is at most %d"), MAX_DISCOVER_MS));
      return;
    }

  discover = g_new0 (Discover, 1);
  discover->host = g_strdup (host);
  discover->ports = g_memdup2 (ports, n_ports * sizeof (guint));
  discover->n_ports = (guint) n_ports;
  discover->found = g_new0 (StwDiscoveredApp *, n_ports);
  discover->outstanding = (guint) n_ports;
  g_task_set_task_data (task, discover, (GDestroyNotify) discover_free);

  for (guint i = 0; i < discover->n_ports; i++)
    {
      DiscoverProbe *probe = g_new0 (DiscoverProbe, 1);
      g_autofree char *url = strchr (host, ':') != NULL
                             ? g_strdup_printf ("http://[%s]:%u/json/version", host, discover->ports[i])
                             : g_strdup_printf ("http://%s:%u/json/version", host, discover->ports[i]);

      probe->task = g_object_ref (task);
      probe->index = i;
      _stw_http_get_json_async (url, timeout_ms ? timeout_ms : DEFAULT_DISCOVER_MS, DISCOVER_BODY_MAX, cancellable,
                                on_discover_probe, probe);
    }
}

/**
 * stw_session_manager_discover_finish:
 * @self: a #StwSessionManager
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.SessionManager.discover_async].
 *
 * Returns: (transfer full) (element-type StwDiscoveredApp): the endpoints
 *   found, in the order of the ports probed; %NULL (an empty list) when
 *   none answered, or with @error set
 *
 * Since: 1.0
 */
GList *
stw_session_manager_discover_finish (StwSessionManager  *self,
                                     GAsyncResult       *result,
                                     GError            **error)
{
  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_manager_discover_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_session_manager_discover_sync:
 * @self: a #StwSessionManager
 * @host: (nullable): a loopback host; %NULL for `127.0.0.1`
 * @ports: (array length=n_ports) (nullable): the TCP ports to probe; %NULL
 *   for 9222–9225
 * @n_ports: the number of @ports, at most 64
 * @timeout_ms: the budget of each probe, at most 5000; 0 for 300
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.SessionManager.discover_async]: iterates
 * the main context that was thread-default when the manager was made
 * until every probe ended.
 *
 * Returns: (transfer full) (element-type StwDiscoveredApp): the endpoints
 *   found; %NULL (an empty list) when none answered, or with @error set
 *
 * Since: 1.0
 */
GList *
stw_session_manager_discover_sync (StwSessionManager  *self,
                                   const char         *host,
                                   const guint        *ports,
                                   gsize               n_ports,
                                   guint               timeout_ms,
                                   GCancellable       *cancellable,
                                   GError            **error)
{
  StwSyncCall call;
  GList *found;

  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);

  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  stw_session_manager_discover_async (self, host, ports, n_ports, timeout_ms, cancellable,
                                      _stw_sync_call_callback, &call);
  found = stw_session_manager_discover_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return found;
}

/* --- attach -------------------------------------------------------------- */

typedef struct
{
  char         *id;
  GPid          pid;
  GPid          holder;      /* the endpoint's listener, when pid is its ancestor */
  guint         timeout_ms;
  guint         port;        /* the endpoint's */
  StwTransport *browser;
  char         *main_note;   /* why the main process is out of reach */
} Attach;

static void
attach_free (Attach *attach)
{
  g_clear_object (&attach->browser);
  g_free (attach->main_note);
  g_free (attach->id);
  g_free (attach);
}

static void main_find_async (GArray              *chain,
                             guint                exclude_port,
                             guint                timeout_ms,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data);
static StwTransport *main_find_finish (GAsyncResult  *result,
                                       GPid          *pid,
                                       GError       **error);

static void
on_attach_started (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSessionManager *self = g_task_get_source_object (task);
  StwSession *session = STW_SESSION (object);
  g_autoptr(GError) error = NULL;

  if (!_stw_session_start_finish (session, result, &error) && !stw_session_is_running (session))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  add_session (self, session);
  g_task_return_pointer (task, g_object_ref (session), g_object_unref);
}

static void
attach_start_session (GTask        *task,
                      StwTransport *inspector)
{
  StwSessionManager *self = g_task_get_source_object (task);
  Attach *attach = g_task_get_task_data (task);
  g_autoptr(StwSession) session = NULL;

  /* main_pid is not the session's pid: only a pid the caller gave makes
   * stop signal an attached app. */
  session = _stw_session_new_attached (self, attach->id, "cdp", attach->browser, inspector, attach->pid);
  if (attach->holder > 0 && attach->holder != attach->pid)
    _stw_session_set_endpoint_holder (session, attach->holder);
  if (inspector == NULL && attach->main_note != NULL)
    _stw_session_set_main_note (session, attach->main_note);
  /* An attached app may have no window at all: a short first-window wait. */
  _stw_session_start_async (session, MIN (attach->timeout_ms, 2000), 0, g_task_get_cancellable (task),
                            on_attach_started, task);
}

static void
on_attach_main_found (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  GTask *task = user_data;
  Attach *attach = g_task_get_task_data (task);
  g_autoptr(StwTransport) inspector = NULL;
  g_autoptr(GError) error = NULL;

  inspector = main_find_finish (result, NULL, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      stw_transport_close (attach->browser);
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  if (inspector == NULL)
    attach->main_note = g_strdup (error->message);
  attach_start_session (task, inspector);
}

/* The app's main process, whatever started the app: the process that
 * owns the endpoint's listening socket or its ancestor (stw-proc.c). Its
 * absence is no failure of the attach: the session says why in its
 * capabilities. */
static void
attach_find_main (GTask *task)
{
  Attach *attach = g_task_get_task_data (task);
  g_autoptr(GArray) chain = NULL;
  g_autoptr(GError) error = NULL;

  if (attach->port == 0)
    {
      attach->main_note = g_strdup (_("The endpoint names no port, so its process cannot be known"));
      attach_start_session (task, NULL);
      return;
    }
  chain = _stw_proc_endpoint_chain (attach->port, &error);
  if (chain == NULL)
    {
      attach->main_note = g_strdup_printf (_("The app's main process cannot be reached: %s"), error->message);
      attach_start_session (task, NULL);
      return;
    }
  main_find_async (chain, attach->port, MIN (attach->timeout_ms, DEFAULT_MAIN_FIND_MS), g_task_get_cancellable (task),
                   on_attach_main_found, task);
}

static void
on_attach_verified (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  Attach *attach = g_task_get_task_data (task);
  StwTransport *browser = STW_TRANSPORT (object);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;

  /* Any well-formed answer proves a DevTools peer, a CDP error included
   * (a page endpoint may not know the Browser domain); silence or garbage
   * does not: attaching would only move the timeout to the next call. */
  reply = stw_transport_call_finish (browser, result, &error);
  if (reply == NULL && error->domain != STW_CDP_ERROR)
    {
      stw_transport_close (browser);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_DISCONNECTED,
                                                       _("The endpoint does not answer DevTools calls: %s"),
                                                       error->message));
      g_object_unref (task);
      return;
    }
  attach->browser = g_object_ref (browser);
  attach_find_main (task);
}

static void
on_attach_connected (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GTask *task = user_data;
  Attach *attach = g_task_get_task_data (task);
  g_autoptr(StwTransport) browser = NULL;
  GError *error = NULL;

  browser = stw_cdp_websocket_connect_finish (result, &error);
  if (browser == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* One round trip before the session exists (see on_attach_verified). */
  stw_transport_call_async (browser, "Browser.getVersion", NULL, NULL, attach->timeout_ms,
                            g_task_get_cancellable (task), on_attach_verified, task);
}

/* The one way into the endpoint: a pid given with the attach must be
 * the endpoint's own (stw-proc.c) before stop or force_kill may signal it. */
static void
attach_connect (GTask      *task,
                const char *url)
{
  Attach *attach = g_task_get_task_data (task);
  g_autoptr(GUri) endpoint = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  GError *error = NULL;

  attach->port = endpoint != NULL && g_uri_get_port (endpoint) > 0 ? (guint) g_uri_get_port (endpoint) : 0;
  if (attach->pid > 0)
    {
      int port = attach->port > 0 ? (int) attach->port : -1;

      if (port <= 0)
        {
          error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("The endpoint %s names no port, so pid cannot be proven "
                                                        "to be its process"), url);
          goto fail;
        }
      /* A wrapper or parent may be named: killing it alone could leave
       * the endpoint running, so the listener it was proven by goes with
       * it. */
      if (!_stw_proc_check_endpoint_pid (attach->pid, (guint) port, &attach->holder, &error))
        {
          stw_error_add_next_action (error, "electron_discover_running()");
          goto fail;
        }
    }
  stw_cdp_websocket_connect_async (url, attach->timeout_ms, g_task_get_cancellable (task),
                                   on_attach_connected, task);
  return;

fail:
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
on_version_json (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  g_autoptr(JsonNode) node = NULL;
  GError *error = NULL;
  const char *url;

  node = _stw_http_get_json_finish (result, &error);
  if (node == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  url = JSON_NODE_HOLDS_OBJECT (node)
        ? json_object_get_string_member_with_default (json_node_get_object (node), "webSocketDebuggerUrl", NULL)
        : NULL;
  if (url == NULL || !stw_url_is_loopback (url))
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_DISCONNECTED,
                                                     _("The port answered without a loopback browser endpoint")));
      g_object_unref (task);
      return;
    }
  attach_connect (task, url);
}

/**
 * stw_session_manager_attach_async:
 * @self: a #StwSessionManager
 * @options: the fields of `electron_attach`: `port` and `host`
 *   (`127.0.0.1`, `localhost` or `::1`), or `cdpUrl` (a loopback `ws://`
 *   browser endpoint); `pid` (lets stop SIGKILL an app that ignores the
 *   close; see below); `timeoutMs`; `allowMultiple`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the new session
 * @user_data: data for @callback
 *
 * Attaches to a running app over CDP. The session does not own the app:
 * detach leaves it running.
 *
 * A `pid` is accepted only when it is proven to be the endpoint's own
 * process: it holds the socket listening on the endpoint's port, or it is
 * an ancestor of that process in the same session (a wrapper, or an
 * Electron main process whose browser listens), and it is neither pid 1
 * nor this process nor one of its ancestors. Otherwise the attach fails
 * with `BAD_ARGUMENT` (details: `argument`, `rule`, and `endpoint_pid`
 * when the listener is visible) rather than attach without it, so a later
 * stop never signals a process the caller merely named.
 *
 * Since: 1.0
 */
void
stw_session_manager_attach_async (StwSessionManager   *self,
                                  JsonObject          *options,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Attach *attach = g_new0 (Attach, 1);
  const char *cdp_url = json_object_get_string_member_with_default (options, "cdpUrl", NULL);
  const char *host = json_object_get_string_member_with_default (options, "host", "127.0.0.1");
  gint64 port = json_object_get_int_member_with_default (options, "port", 0);
  g_autoptr(GError) error = NULL;

  g_task_set_source_tag (task, stw_session_manager_attach_async);
  g_task_set_task_data (task, attach, (GDestroyNotify) attach_free);
  attach->timeout_ms = uint_member (options, "timeoutMs", DEFAULT_CONNECT_MS);
  if (!pid_member (options, &attach->pid, &error))
    goto fail;

  if (!check_capacity (self, json_object_get_boolean_member_with_default (options, "allowMultiple", FALSE),
                       &error))
    goto fail;

  attach->id = next_session_id (self, "cdp");
  if (cdp_url != NULL)
    {
      if (!stw_url_is_loopback (cdp_url))
        {
          error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("cdpUrl must be a ws:// or wss:// URL on a loopback host"));
          goto fail;
        }
      attach_connect (task, cdp_url);
      return;
    }
  if (port > 0 && port <= 65535)
    {
      g_autofree char *url = NULL;

      if (g_strcmp0 (host, "127.0.0.1") != 0 && g_strcmp0 (host, "localhost") != 0 &&
          g_strcmp0 (host, "::1") != 0)
        {
          error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("host must be 127.0.0.1, localhost or ::1"));
          goto fail;
        }
      url = g_strdup_printf ("http://%s:%d/json/version",
                             g_str_equal (host, "::1") ? "[::1]" : "127.0.0.1", (int) port);
      _stw_http_get_json_async (url, attach->timeout_ms, 0, cancellable, on_version_json, task);
      return;
    }

  error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give port or cdpUrl"));
  stw_error_add_next_action (error, "electron_discover_running()");
  stw_error_add_next_action (error, "electron_inject({ pid: … })");

fail:
  g_task_return_error (task, g_steal_pointer (&error));
  g_object_unref (task);
}

/**
 * stw_session_manager_attach_finish:
 * @self: a #StwSessionManager
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.SessionManager.attach_async].
 *
 * Returns: (transfer full): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_attach_finish (StwSessionManager  *self,
                                   GAsyncResult       *result,
                                   GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_manager_attach_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_session_manager_attach_sync:
 * @self: a #StwSessionManager
 * @options_json: (nullable): the attach options as a JSON object text
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.SessionManager.attach_async], following the
 * same blocking-call policy as [method@Stagewright.SessionManager.launch_sync].
 *
 * Returns: (transfer full) (nullable): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_attach_sync (StwSessionManager  *self,
                                 const char         *options_json,
                                 GCancellable       *cancellable,
                                 GError            **error)
{
  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);
  return start_sync (self, stw_session_manager_attach_async, options_json, cancellable, error);
}

/* --- the main process ---------------------------------------------------- */

/* Finds the Node inspector of an app's main process, opening it when it
 * is closed: for each candidate (the endpoint's chain, nearest first, or
 * the one pid given to inject), an inspector it already serves on one of
 * its loopback ports; else, when it catches SIGUSR1 (Node's handler, so
 * the signal cannot kill it), SIGUSR1 and the ports it starts listening
 * on after that. Never port 9229 by assumption: `--inspect-port` and
 * NODE_OPTIONS move it. Every inspector found is proven by asking it its
 * `process.pid` before it is used. */
typedef struct
{
  GArray       *chain;        /* GPid, nearest first */
  GArray       *start_times;  /* guint64, as each was when the chain was read */
  guint         index;
  guint         exclude_port; /* the CDP endpoint's own */
  guint         timeout_ms;
  GHashTable   *known_ports;  /* of the current candidate, probed already */
  GArray       *to_probe;     /* ports still to ask for /json/list */
  GPtrArray    *candidates;   /* ws URLs still to verify */
  StwTransport *probe;
  gboolean      signalled;
  gint64        deadline_us;
  GSource      *timer;
  GString      *reasons;
} MainFind;

static void
main_find_free (MainFind *find)
{
  if (find->timer != NULL)
    {
      g_source_destroy (find->timer);
      g_source_unref (find->timer);
    }
  g_clear_pointer (&find->chain, g_array_unref);
  g_clear_pointer (&find->start_times, g_array_unref);
  g_clear_pointer (&find->known_ports, g_hash_table_unref);
  g_clear_pointer (&find->to_probe, g_array_unref);
  g_clear_pointer (&find->candidates, g_ptr_array_unref);
  if (find->probe != NULL)
    stw_transport_close (find->probe);
  g_clear_object (&find->probe);
  g_string_free (find->reasons, TRUE);
  g_free (find);
}

static GPid
main_find_pid (MainFind *find)
{
  return g_array_index (find->chain, GPid, find->index);
}

static void main_find_candidate (GTask *task);
static void main_find_probe_next_port (GTask *task);
static void main_find_verify_next (GTask *task);

static void
main_find_reason (MainFind   *find,
                  const char *reason)
{
  if (find->reasons->len > 0)
    g_string_append (find->reasons, "; ");
  g_string_append (find->reasons, reason);
}

static void
main_find_next_candidate (GTask *task)
{
  MainFind *find = g_task_get_task_data (task);

  find->index++;
  main_find_candidate (task);
}

static void
on_main_pid_evaluated (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GTask *task = user_data;
  MainFind *find = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  JsonObject *remote;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, NULL);
  remote = reply ? json_object_get_object_member (reply, "result") : NULL;
  if (remote != NULL && json_object_get_int_member_with_default (remote, "value", -1) == main_find_pid (find))
    {
      g_task_return_pointer (task, g_steal_pointer (&find->probe), g_object_unref);
      g_object_unref (task);
      return;
    }
  /* Someone else's inspector, or a page: keep looking, never use it. */
  stw_transport_close (find->probe);
  g_clear_object (&find->probe);
  main_find_verify_next (task);
}

static void
on_main_probe_connected (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  GTask *task = user_data;
  MainFind *find = g_task_get_task_data (task);
  g_autoptr(JsonObject) params = json_object_new ();

  find->probe = stw_cdp_websocket_connect_finish (result, NULL);
  if (find->probe == NULL)
    {
      main_find_verify_next (task);
      return;
    }
  /* The listener itself may be any Node process; an ancestor of it
   * counts only as an Electron main process. */
  json_object_set_string_member (params, "expression",
                                 find->index == 0
                                 ? "typeof process === 'object' && process ? process.pid : -1"
                                 : "typeof process === 'object' && process && process.versions &&"
                                   " typeof process.versions.electron === 'string' && process.type === 'browser'"
                                   " ? process.pid : -1");
  json_object_set_boolean_member (params, "returnByValue", TRUE);
  stw_transport_call_async (find->probe, "Runtime.evaluate", params, NULL, 2000,
                            g_task_get_cancellable (task), on_main_pid_evaluated, task);
}

static void
main_find_verify_next (GTask *task)
{
  MainFind *find = g_task_get_task_data (task);
  g_autofree char *url = NULL;

  if (find->candidates == NULL || find->candidates->len == 0)
    {
      main_find_probe_next_port (task);
      return;
    }
  url = g_ptr_array_steal_index (find->candidates, 0);
  stw_cdp_websocket_connect_async (url, 2000, g_task_get_cancellable (task), on_main_probe_connected, task);
}

static void
on_main_inspector_list (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  GTask *task = user_data;
  MainFind *find = g_task_get_task_data (task);
  g_autoptr(JsonNode) node = _stw_http_get_json_finish (result, NULL);

  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  g_clear_pointer (&find->candidates, g_ptr_array_unref);
  find->candidates = g_ptr_array_new_with_free_func (g_free);
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *targets = json_node_get_array (node);

      /* A Node inspector lists one target; a browser lists its pages. */
      for (guint i = 0; i < json_array_get_length (targets) && i < 8; i++)
        {
          JsonNode *element = json_array_get_element (targets, i);
          JsonObject *target = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
          const char *url = target ? json_object_get_string_member_with_default (target, "webSocketDebuggerUrl", NULL)
                                   : NULL;
          const char *type = target ? json_object_get_string_member_with_default (target, "type", "") : "";

          if (url != NULL && stw_url_is_loopback (url) && g_str_equal (type, "node"))
            g_ptr_array_add (find->candidates, g_strdup (url));
        }
    }
  main_find_verify_next (task);
}

static gboolean
on_main_find_timer (gpointer user_data)
{
  GTask *task = user_data;
  MainFind *find = g_task_get_task_data (task);
  g_autoptr(GArray) ports = _stw_proc_listening_ports (main_find_pid (find));

  g_clear_pointer (&find->timer, g_source_unref);
  for (guint i = 0; i < ports->len; i++)
    {
      guint port = g_array_index (ports, guint, i);

      if (port != find->exclude_port && g_hash_table_add (find->known_ports, GUINT_TO_POINTER (port)))
        g_array_append_val (find->to_probe, port);
    }
  main_find_probe_next_port (task);
  return G_SOURCE_REMOVE;
}

static void
main_find_wait (GTask *task)
{
  MainFind *find = g_task_get_task_data (task);

  find->timer = g_timeout_source_new (100);
  g_source_set_callback (find->timer, on_main_find_timer, task, NULL);
  g_source_attach (find->timer, g_task_get_context (task));
}

/* SIGUSR1 to the current candidate, when that is safe: it catches the
 * signal, it is the process the chain was read from (not a reused pid). */
static gboolean
main_find_signal (MainFind *find,
                  GError  **error)
{
  GPid pid = main_find_pid (find);

  if (!_stw_proc_is_same (pid, g_array_index (find->start_times, guint64, find->index)))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_INJECT_FAILED, _("Process %d is gone"), (int) pid));
      return FALSE;
    }
  if (!_stw_proc_check_signal_caught (pid, SIGUSR1, error))
    return FALSE;
  if (kill (pid, SIGUSR1) != 0)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_INJECT_FAILED, _("Cannot signal process %d: %s"), (int) pid,
                                                    g_strerror (errno)));
      return FALSE;
    }
  return TRUE;
}

static void
main_find_probe_next_port (GTask *task)
{
  MainFind *find = g_task_get_task_data (task);
  GPid pid = main_find_pid (find);
  g_autofree char *url = NULL;
  guint port;

  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  if (find->to_probe->len > 0)
    {
      port = g_array_index (find->to_probe, guint, 0);
      g_array_remove_index (find->to_probe, 0);
      url = g_strdup_printf ("http://127.0.0.1:%u/json/list", port);
      _stw_http_get_json_async (url, 1000, 0, g_task_get_cancellable (task), on_main_inspector_list, task);
      return;
    }
  if (!find->signalled)
    {
      g_autoptr(GError) error = NULL;

      if (!_stw_proc_catches_signal (pid, SIGUSR1))
        {
          g_autofree char *reason = g_strdup_printf (_("process %d serves no inspector and does not handle SIGUSR1"),
                                                     (int) pid);
          main_find_reason (find, reason);
          main_find_next_candidate (task);
          return;
        }
      if (!main_find_signal (find, &error))
        {
          main_find_reason (find, error->message);
          main_find_next_candidate (task);
          return;
        }
      find->signalled = TRUE;
      find->deadline_us = g_get_monotonic_time () + (gint64) find->timeout_ms * 1000;
      main_find_wait (task);
      return;
    }
  if (g_get_monotonic_time () < find->deadline_us)
    {
      main_find_wait (task);
      return;
    }
  /* The one process that took SIGUSR1 opened nothing we could prove:
   * its ancestors are not tried (one signal per search). */
  {
    g_autofree char *reason = g_strdup_printf (_("process %d took SIGUSR1 but no inspector of it appeared on a "
                                                 "loopback port within %u ms (is its inspector disabled, or on "
                                                 "another host?)"), (int) pid, find->timeout_ms);
    main_find_reason (find, reason);
  }
  find->index = find->chain->len;
  main_find_candidate (task);
}

static void
main_find_candidate (GTask *task)
{
  MainFind *find = g_task_get_task_data (task);
  g_autoptr(GArray) ports = NULL;

  if (find->index >= find->chain->len)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_INJECT_FAILED, _("The app's main process cannot be reached: %s"),
                                                     find->reasons->len > 0 ? find->reasons->str
                                                                            : _("no candidate process")));
      g_object_unref (task);
      return;
    }
  g_clear_pointer (&find->known_ports, g_hash_table_unref);
  find->known_ports = g_hash_table_new (NULL, NULL);
  g_array_set_size (find->to_probe, 0);
  find->signalled = FALSE;
  /* An inspector open already (--inspect, or an earlier SIGUSR1). */
  ports = _stw_proc_listening_ports (main_find_pid (find));
  for (guint i = 0; i < ports->len; i++)
    {
      guint port = g_array_index (ports, guint, i);

      g_hash_table_add (find->known_ports, GUINT_TO_POINTER (port));
      if (port != find->exclude_port)
        g_array_append_val (find->to_probe, port);
    }
  main_find_probe_next_port (task);
}

static void
main_find_async (GArray              *chain,
                 guint                exclude_port,
                 guint                timeout_ms,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  MainFind *find = g_new0 (MainFind, 1);

  g_task_set_source_tag (task, main_find_async);
  find->chain = g_array_ref (chain);
  find->start_times = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < chain->len; i++)
    {
      guint64 start_time = _stw_proc_get_start_time (g_array_index (chain, GPid, i));
      g_array_append_val (find->start_times, start_time);
    }
  find->exclude_port = exclude_port;
  find->timeout_ms = timeout_ms;
  find->to_probe = g_array_new (FALSE, FALSE, sizeof (guint));
  find->reasons = g_string_new (NULL);
  g_task_set_task_data (task, find, (GDestroyNotify) main_find_free);
  main_find_candidate (task);
}

/* Returns: (transfer full): the proven inspector of the main process,
 * whose pid goes to @pid */
static StwTransport *
main_find_finish (GAsyncResult  *result,
                  GPid          *pid,
                  GError       **error)
{
  GTask *task = G_TASK (result);
  MainFind *find = g_task_get_task_data (task);
  StwTransport *inspector = g_task_propagate_pointer (task, error);

  if (inspector != NULL && pid != NULL)
    *pid = main_find_pid (find);
  return inspector;
}

/* --- inject -------------------------------------------------------------- */

typedef struct
{
  GPid     pid;
  char    *id;
} Inject;

static void
inject_free (Inject *inject)
{
  g_free (inject->id);
  g_free (inject);
}

static void
on_inject_started (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSessionManager *self = g_task_get_source_object (task);
  StwSession *session = STW_SESSION (object);

  _stw_session_start_finish (session, result, NULL);
  add_session (self, session);
  g_task_return_pointer (task, g_object_ref (session), g_object_unref);
}

static void
on_inject_found (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  StwSessionManager *self = g_task_get_source_object (task);
  Inject *inject = g_task_get_task_data (task);
  g_autoptr(StwTransport) inspector = NULL;
  g_autoptr(StwSession) session = NULL;
  GError *error = NULL;

  inspector = main_find_finish (result, NULL, &error);
  if (inspector == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  session = _stw_session_new_attached (self, inject->id, "injector", NULL, inspector, inject->pid);
  _stw_session_start_async (session, 0, 0, g_task_get_cancellable (task), on_inject_started, task);
}

/**
 * stw_session_manager_inject_async:
 * @self: a #StwSessionManager
 * @pid: a running Node or Electron main process of this user
 * @timeout_ms: how long to wait for its inspector, 0 for the default (10 s)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the new session
 * @user_data: data for @callback
 *
 * Turns on the Node inspector of a process started without debug flags
 * (SIGUSR1), finds it among the loopback ports @pid listens on (whatever
 * `--inspect-port` or `NODE_OPTIONS` made it; an inspector already open
 * is used without a signal) and verifies it belongs to @pid before using
 * it. The session reaches the main process only.
 *
 * @pid is signalled only when it catches SIGUSR1 (a handler shows in
 * its `SigCgt` mask, as Node and Electron install one): to any other
 * process the signal would be fatal, so it fails with `BAD_ARGUMENT`
 * instead. This server, its ancestors and pid 1 are never signalled.
 *
 * Since: 1.0
 */
void
stw_session_manager_inject_async (StwSessionManager   *self,
                                  GPid                 pid,
                                  guint                timeout_ms,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Inject *inject = g_new0 (Inject, 1);
  g_autoptr(GArray) chain = g_array_new (FALSE, FALSE, sizeof (GPid));
  GError *error = NULL;

  g_task_set_source_tag (task, stw_session_manager_inject_async);
  inject->pid = pid;
  g_task_set_task_data (task, inject, (GDestroyNotify) inject_free);

  if (!check_capacity (self, TRUE, &error))
    goto fail;
  if (!_stw_proc_check_pid_range (pid, &error))
    goto fail;
  if (kill (pid, 0) != 0)
    {
      error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("No process %d can be signalled"), (int) pid);
      goto fail;
    }
  /* SIGUSR1 kills a process without a handler; Node and Electron have one.
   * Never judged by the name: argv[0] is whatever the process chose. */
  if (!_stw_proc_check_signal_caught (pid, SIGUSR1, &error))
    goto fail;

  inject->id = next_session_id (self, "inj");
  g_array_append_val (chain, pid);
  main_find_async (chain, 0, timeout_ms ? timeout_ms : DEFAULT_INJECT_MS, cancellable, on_inject_found, task);
  return;

fail:
  g_task_return_error (task, error);
  g_object_unref (task);
}

/**
 * stw_session_manager_inject_finish:
 * @self: a #StwSessionManager
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.SessionManager.inject_async].
 *
 * Returns: (transfer full): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_inject_finish (StwSessionManager  *self,
                                   GAsyncResult       *result,
                                   GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_manager_inject_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- stop all ------------------------------------------------------------ */

static void
on_one_stopped (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  guint *remaining = g_task_get_task_data (task);

  stw_session_stop_finish (STW_SESSION (object), result, NULL, NULL);
  if (--*remaining == 0 && !g_task_return_error_if_cancelled (task))
    g_task_return_boolean (task, TRUE);
}

/**
 * stw_session_manager_stop_all_async:
 * @self: a #StwSessionManager
 * @timeout_ms: the graceful budget of each stop
 * @cancellable: (nullable): a #GCancellable, given to each
 *   [method@Stagewright.Session.stop_async]; once every stop ended, a
 *   cancelled call fails with %G_IO_ERROR_CANCELLED
 * @callback: called when every session ended
 * @user_data: data for @callback
 *
 * Stops owned apps and lets go of attached ones, all at once.
 *
 * Since: 1.0
 */
void
stw_session_manager_stop_all_async (StwSessionManager   *self,
                                    guint                timeout_ms,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  guint *remaining = g_new0 (guint, 1);

  g_task_set_source_tag (task, stw_session_manager_stop_all_async);
  for (guint i = 0; i < self->sessions->len; i++)
    g_ptr_array_add (sessions, g_object_ref (g_ptr_array_index (self->sessions, i)));
  g_task_set_task_data (task, remaining, g_free);
  *remaining = sessions->len + 1;
  for (guint i = 0; i < sessions->len; i++)
    {
      StwSession *session = g_ptr_array_index (sessions, i);
      if (stw_session_is_owned (session))
        stw_session_stop_async (session, timeout_ms, cancellable, on_one_stopped, g_object_ref (task));
      else
        {
          stw_session_detach (session, NULL);
          (*remaining)--;
        }
    }
  if (--*remaining == 0)
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

/**
 * stw_session_manager_stop_all_finish:
 * @self: a #StwSessionManager
 * @result: the result given to the callback
 * @error: where to put a failure
 *
 * Finishes an operation started with
 * [method@Stagewright.SessionManager.stop_all_async].
 *
 * Returns: %TRUE when every session ended
 *
 * Since: 1.0
 */
gboolean
stw_session_manager_stop_all_finish (StwSessionManager  *self,
                                     GAsyncResult       *result,
                                     GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_manager_stop_all_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- what an app reaches ---------------------------------------------------
 *
 * Whoever drives an app may read and act on all of it, so a client must
 * not reach another client's app sideways, by an endpoint or a pid rather
 * than by its session id. An app spans its processes (the one launched or
 * attached with, the endpoints' listeners, and everything they started:
 * renderers, helpers) and its endpoints (the DevTools and inspector ports,
 * and any port one of those processes listens on).
 */

/* Ancestors followed from a pid, at most: deeper trees are not apps. */
#define MAX_REACH_DEPTH 64

static guint
transport_port (StwTransport *transport)
{
  g_autoptr(GUri) uri = NULL;

  if (transport == NULL || !STW_IS_CDP_WEBSOCKET (transport))
    return 0;
  uri = g_uri_parse (stw_cdp_websocket_get_url (STW_CDP_WEBSOCKET (transport)), G_URI_FLAGS_NONE, NULL);
  return uri != NULL && g_uri_get_port (uri) > 0 ? (guint) g_uri_get_port (uri) : 0;
}

static void
add_pid (GArray *pids,
         GPid    pid)
{
  if (pid <= 1 || pid == getpid ())
    return;
  for (guint i = 0; i < pids->len; i++)
    if (g_array_index (pids, GPid, i) == pid)
      return;
  g_array_append_val (pids, pid);
}

/**
 * _stw_session_manager_get_footprint:
 * @self: a #StwSessionManager
 * @session: one of its sessions
 * @pids: (element-type GPid): where the app's root processes are added
 * @ports: (element-type guint): where its endpoints' ports are added
 *
 * The roots of the app's process trees (a process belongs to the app when
 * it is one of them or descends from one) and its endpoints.
 */
void
_stw_session_manager_get_footprint (StwSessionManager *self,
                                    StwSession        *session,
                                    GArray            *pids,
                                    GArray            *ports)
{
  StwTransport *transports[] = { _stw_session_get_browser (session), _stw_session_get_inspector (session) };

  add_pid (pids, stw_session_get_pid (session));
  add_pid (pids, _stw_session_get_endpoint_holder (session));
  for (guint i = 0; i < G_N_ELEMENTS (transports); i++)
    {
      guint port = transport_port (transports[i]);

      if (port == 0)
        continue;
      g_array_append_val (ports, port);
      add_pid (pids, _stw_proc_find_listener (port));
    }
}

static gboolean
descends_from_any (GPid    pid,
                   GArray *roots)
{
  for (guint hops = 0; pid > 1 && hops < MAX_REACH_DEPTH; hops++)
    {
      for (guint i = 0; i < roots->len; i++)
        if (g_array_index (roots, GPid, i) == pid)
          return TRUE;
      pid = _stw_proc_get_parent (pid);
    }
  return FALSE;
}

/**
 * _stw_session_manager_list_reaching:
 * @self: a #StwSessionManager
 * @pid: a process, or 0
 * @port: a loopback TCP port, or 0
 *
 * The live sessions whose app @pid or @port reaches: @pid is one of its
 * processes, or @port one of its endpoints or a port one of its
 * processes listens on.
 *
 * Returns: (transfer container) (element-type StwSession): those sessions
 */
GPtrArray *
_stw_session_manager_list_reaching (StwSessionManager *self,
                                    GPid               pid,
                                    guint              port)
{
  GPtrArray *reaching = g_ptr_array_new ();
  GPid listener = port > 0 ? _stw_proc_find_listener (port) : 0;

  for (guint i = 0; i < self->sessions->len; i++)
    {
      StwSession *session = g_ptr_array_index (self->sessions, i);
      g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
      g_autoptr(GArray) ports = g_array_new (FALSE, FALSE, sizeof (guint));
      gboolean reached = FALSE;

      _stw_session_manager_get_footprint (self, session, pids, ports);
      for (guint j = 0; j < ports->len && !reached; j++)
        reached = port > 0 && g_array_index (ports, guint, j) == port;
      if (!reached)
        reached = (pid > 0 && descends_from_any (pid, pids)) || (listener > 0 && descends_from_any (listener, pids));
      if (reached)
        g_ptr_array_add (reaching, session);
    }
  return reaching;
}
