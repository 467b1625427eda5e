/* stw-session-manager-attach.c: discovering CDP endpoints and attaching to one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <signal.h>
#include <string.h>

#include "stw-cdp-websocket.h"
#include "stw-error-registry.h"
#include "stw-http-private.h"
#include "stw-proc-private.h"
#include "stw-session-manager-private.h"
#include "stw-sync-private.h"

#define DEFAULT_MAIN_FIND_MS 5000

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
  _stw_session_manager_add_session (self, session);
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

  inspector = _stw_main_find_finish (result, NULL, &error);
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
  _stw_main_find_async (chain, attach->port, MIN (attach->timeout_ms, DEFAULT_MAIN_FIND_MS), g_task_get_cancellable (task),
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

  if (!_stw_session_manager_check_capacity (self, json_object_get_boolean_member_with_default (options, "allowMultiple", FALSE),
                                            &error))
    goto fail;

  attach->id = _stw_session_manager_next_session_id (self, "cdp");
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
  return _stw_session_manager_start_sync (self, stw_session_manager_attach_async, options_json, cancellable, error);
}
