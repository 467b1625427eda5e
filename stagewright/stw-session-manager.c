/* stw-session-manager.c: the registry of live sessions (ids, lookup, stop all)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

#include "stw-cdp-websocket.h"
#include "stw-confine-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-proc-private.h"
#include "stw-session-manager-private.h"
#include "stw-sync-private.h"

/**
 * StwSessionManager:
 *
 * The live sessions of a server (at most %STW_MAX_SESSIONS) and the ways to
 * start one: launch (the server owns the app), attach over CDP, inject
 * into a running Node/Electron main process. Calls that name no session
 * resolve to the only live one.
 */

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

void
_stw_session_manager_add_session (StwSessionManager *self,
                                  StwSession        *session)
{
  g_ptr_array_add (self->sessions, g_object_ref (session));
  g_signal_connect (session, "exited", G_CALLBACK (on_session_exited), self);
}

char *
_stw_session_manager_next_session_id (StwSessionManager *self,
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
gboolean
_stw_session_manager_check_capacity (StwSessionManager  *self,
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

StwSession *
_stw_session_manager_start_sync (StwSessionManager           *self,
                                 StwSessionManagerStartFunc   start,
                                 const char                  *options_json,
                                 GCancellable                *cancellable,
                                 GError                     **error)
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
