/* stw-session-manager-inject.c: injecting into a running main process, and finding one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <signal.h>

#include "stw-cdp-websocket.h"
#include "stw-error-registry.h"
#include "stw-http-private.h"
#include "stw-proc-private.h"
#include "stw-session-manager-private.h"

#define DEFAULT_INJECT_MS 10000
/* What a candidate inspector is asked: its process's pid (js/). */
#define NODE_PID_RESOURCE "/org/stagewright/core/js/node-pid.js"
#define ELECTRON_MAIN_PID_RESOURCE "/org/stagewright/core/js/electron-main-pid.js"

GResource *stw_get_resource (void);

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
  g_autoptr(GBytes) source = NULL;

  find->probe = stw_cdp_websocket_connect_finish (result, NULL);
  if (find->probe == NULL)
    {
      main_find_verify_next (task);
      return;
    }
  /* The listener itself may be any Node process; an ancestor of it
   * counts only as an Electron main process. */
  source = g_resource_lookup_data (stw_get_resource (),
                                   find->index == 0 ? NODE_PID_RESOURCE : ELECTRON_MAIN_PID_RESOURCE,
                                   G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (source != NULL);
  json_object_set_string_member (params, "expression", g_bytes_get_data (source, NULL));
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

void
_stw_main_find_async (GArray              *chain,
                      guint                exclude_port,
                      guint                timeout_ms,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  MainFind *find = g_new0 (MainFind, 1);

  g_task_set_source_tag (task, _stw_main_find_async);
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
StwTransport *
_stw_main_find_finish (GAsyncResult  *result,
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
  _stw_session_manager_add_session (self, session);
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

  inspector = _stw_main_find_finish (result, NULL, &error);
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

  if (!_stw_session_manager_check_capacity (self, TRUE, &error))
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

  inject->id = _stw_session_manager_next_session_id (self, "inj");
  g_array_append_val (chain, pid);
  _stw_main_find_async (chain, 0, timeout_ms ? timeout_ms : DEFAULT_INJECT_MS, cancellable, on_inject_found, task);
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
