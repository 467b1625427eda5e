/* stw-cdp-websocket.c: CDP over a WebSocket (browser, page or Node inspector)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-soup-private.h"
#include <string.h>

#include "stw-cdp-websocket.h"
#include "stw-error-registry.h"
#include "stw-http-private.h"
#include "stw-transport-private.h"

/**
 * StwCdpWebsocket:
 *
 * A #StwTransport over a DevTools WebSocket: the `ws://…/devtools/browser/…`
 * URL Chromium and Electron print as `DevTools listening on`, a page's
 * `/devtools/page/…` URL, or a Node inspector's `Debugger listening on`
 * URL.
 *
 * Only loopback endpoints are accepted (127.0.0.0/8, ::1, `localhost`):
 * a DevTools endpoint runs arbitrary code, and attaching to a remote one
 * is not something this library does. `localhost` is connected to as
 * 127.0.0.1, and no `Origin` header is sent, because the DevTools server
 * refuses both a non-IP `Host` and any `Origin` (field notes §6.15).
 * The endpoint is contacted directly: no proxy from the environment, and
 * a handshake answered with a redirect fails rather than being followed.
 *
 * Messages up to 512 MiB are accepted. libsoup
 * would otherwise close the whole connection (code 1009) on the first
 * frame larger than 128 KiB — any large screenshot or DOM dump.
 */

/* Twice the largest message Chromium's DevTools server sends
 * (kSendBufferSizeForDevTools, 256 MiB), so no legitimate message reaches
 * it, while a broken or hostile peer still cannot make us buffer without
 * bound. The pipe uses the same cap. */
#define MAX_MESSAGE_SIZE (G_GUINT64_CONSTANT (512) * 1024 * 1024)

#define DEFAULT_CONNECT_TIMEOUT_MS 15000

struct _StwCdpWebsocket
{
  StwTransport             parent_instance;

  SoupWebsocketConnection *connection;
  char                    *url;
  GError                  *error;        /* the first error libsoup reported */
};

G_DEFINE_FINAL_TYPE (StwCdpWebsocket, stw_cdp_websocket, STW_TYPE_TRANSPORT)

enum {
  PROP_0,
  PROP_URL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
on_message (SoupWebsocketConnection *connection,
            gint                     type,
            GBytes                  *message,
            gpointer                 user_data)
{
  StwCdpWebsocket *self = user_data;
  gsize length = 0;
  const char *data = g_bytes_get_data (message, &length);

  /* Text frames are what CDP sends; binary ones are parsed the same way
   * (the hardened parser rejects what is not UTF-8 JSON). */
  _stw_transport_receive (STW_TRANSPORT (self), data, length);
}

static void
on_error (SoupWebsocketConnection *connection,
          GError                  *error,
          gpointer                 user_data)
{
  StwCdpWebsocket *self = user_data;

  g_debug ("DevTools WebSocket %s: %s", self->url, error->message);
  if (self->error == NULL)
    self->error = g_error_copy (error);
}

static void
on_closed (SoupWebsocketConnection *connection,
           gpointer                 user_data)
{
  StwCdpWebsocket *self = user_data;
  gushort code = soup_websocket_connection_get_close_code (connection);
  g_autoptr(GError) error = NULL;

  /* 0: no close frame (Chromium after Browser.close); 1005: a close frame
   * without a code (the Node inspector). Both are normal (§6.19). */
  if (self->error != NULL)
    error = g_error_copy (self->error);
  else if (code != 0 && code != SOUP_WEBSOCKET_CLOSE_NORMAL &&
           code != SOUP_WEBSOCKET_CLOSE_NO_STATUS)
    {
      const char *data = soup_websocket_connection_get_close_data (connection);

      error = g_error_new (G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                           "The DevTools WebSocket closed with code %u%s%s",
                           code, data && *data ? ": " : "", data ? data : "");
    }

  _stw_transport_closed (STW_TRANSPORT (self), error);
}

static void
stw_cdp_websocket_send_message (StwTransport *transport,
                                const char   *data,
                                gsize         length)
{
  StwCdpWebsocket *self = STW_CDP_WEBSOCKET (transport);
  g_autoptr(GBytes) bytes = NULL;

  /* Once libsoup is closing, sending is a programmer error to it; the
   * ::closed that follows fails this call. */
  if (self->connection == NULL ||
      soup_websocket_connection_get_state (self->connection) != SOUP_WEBSOCKET_STATE_OPEN)
    return;

  /* libsoup copies the payload into its frame before returning. */
  bytes = g_bytes_new_static (data, length);
  soup_websocket_connection_send_message (self->connection, SOUP_WEBSOCKET_DATA_TEXT, bytes);
}

static void
disconnect_connection (StwCdpWebsocket *self)
{
  if (self->connection == NULL)
    return;

  g_signal_handlers_disconnect_by_data (self->connection, self);
  if (soup_websocket_connection_get_state (self->connection) == SOUP_WEBSOCKET_STATE_OPEN)
    soup_websocket_connection_close (self->connection, SOUP_WEBSOCKET_CLOSE_NORMAL, NULL);
  /* A closing connection keeps itself alive until its stream is closed. */
  g_clear_object (&self->connection);
}

static void
stw_cdp_websocket_shutdown (StwTransport *transport)
{
  disconnect_connection (STW_CDP_WEBSOCKET (transport));
}

static void
stw_cdp_websocket_dispose (GObject *object)
{
  StwCdpWebsocket *self = STW_CDP_WEBSOCKET (object);

  /* Before the connection goes, so pending calls fail the usual way. */
  stw_transport_close (STW_TRANSPORT (self));
  disconnect_connection (self);

  G_OBJECT_CLASS (stw_cdp_websocket_parent_class)->dispose (object);
}

static void
stw_cdp_websocket_finalize (GObject *object)
{
  StwCdpWebsocket *self = STW_CDP_WEBSOCKET (object);

  g_clear_pointer (&self->url, g_free);
  g_clear_error (&self->error);

  G_OBJECT_CLASS (stw_cdp_websocket_parent_class)->finalize (object);
}

static void
stw_cdp_websocket_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  StwCdpWebsocket *self = STW_CDP_WEBSOCKET (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_string (value, self->url);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_cdp_websocket_class_init (StwCdpWebsocketClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StwTransportClass *transport_class = STW_TRANSPORT_CLASS (klass);

  object_class->dispose = stw_cdp_websocket_dispose;
  object_class->finalize = stw_cdp_websocket_finalize;
  object_class->get_property = stw_cdp_websocket_get_property;

  transport_class->send_message = stw_cdp_websocket_send_message;
  transport_class->shutdown = stw_cdp_websocket_shutdown;

  /**
   * StwCdpWebsocket:url:
   *
   * The URL the transport was asked to connect to, as given.
   */
  properties[PROP_URL] =
    g_param_spec_string ("url", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
stw_cdp_websocket_init (StwCdpWebsocket *self)
{
}

/* --- loopback check ------------------------------------------------------ */

/**
 * stw_url_is_loopback:
 * @url: a URL
 *
 * Whether @url names this machine: its host is `localhost` or an IP
 * literal in 127.0.0.0/8 or `::1`. Host names other than `localhost` are
 * never resolved, so they are not loopback. The scheme is not checked.
 *
 * Returns: %TRUE if @url parses and its host is loopback
 *
 * Since: 1.0
 */
gboolean
stw_url_is_loopback (const char *url)
{
  g_autoptr(GUri) uri = NULL;

  g_return_val_if_fail (url != NULL, FALSE);

  uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  return uri != NULL && _stw_http_host_is_loopback (g_uri_get_host (uri));
}

/* --- connecting ---------------------------------------------------------- */

typedef struct
{
  char         *url;
  guint         timeout_ms;
  SoupSession  *session;
  GCancellable *cancellable;         /* ours: the timeout or the caller cancels it */
  GCancellable *caller_cancellable;
  gulong        caller_cancelled_id;
  GSource      *timeout_source;
  gboolean      timed_out;
} ConnectData;

static void
connect_data_free (ConnectData *data)
{
  if (data->caller_cancelled_id != 0)
    g_cancellable_disconnect (data->caller_cancellable, data->caller_cancelled_id);
  if (data->timeout_source != NULL)
    {
      g_source_destroy (data->timeout_source);
      g_source_unref (data->timeout_source);
    }
  g_clear_object (&data->caller_cancellable);
  g_clear_object (&data->cancellable);
  g_clear_object (&data->session);
  g_free (data->url);
  g_free (data);
}

static gboolean
connect_timeout_cb (gpointer user_data)
{
  ConnectData *data = user_data;

  data->timed_out = TRUE;
  g_cancellable_cancel (data->cancellable);
  g_clear_pointer (&data->timeout_source, g_source_unref);

  return G_SOURCE_REMOVE;
}

static void
caller_cancelled_cb (GCancellable *cancellable,
                     gpointer      user_data)
{
  GCancellable *ours = user_data;

  g_cancellable_cancel (ours);
}

static void
websocket_connect_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ConnectData *data = g_task_get_task_data (task);
  g_autoptr(SoupWebsocketConnection) connection = NULL;
  g_autoptr(GError) error = NULL;
  StwCdpWebsocket *self;

  connection = soup_session_websocket_connect_finish ((SoupSession *) source, result, &error);
  if (connection == NULL)
    {
      if (data->timed_out)
        g_task_return_error (task,
                             stw_error_new_code (STW_ERROR_CDP_TIMEOUT,
                                                 "Connecting to %s got no answer within %u ms",
                                                 data->url, data->timeout_ms));
      else if (!g_task_return_error_if_cancelled (task))
        g_task_return_error (task,
                             stw_error_new_code (STW_ERROR_CDP_DISCONNECTED,
                                                 "Could not connect to %s: %s",
                                                 data->url, error->message));
      return;
    }

  /* Right away, before the first frame is read (§6.16); and no keepalive:
   * Chrome does not ping, and a late pong must not close a busy browser. */
  soup_websocket_connection_set_max_incoming_payload_size (connection,
                                                           MAX_MESSAGE_SIZE);
  soup_websocket_connection_set_keepalive_interval (connection, 0);

  self = g_object_new (STW_TYPE_CDP_WEBSOCKET, NULL);
  self->url = g_strdup (data->url);
  self->connection = g_steal_pointer (&connection);
  g_signal_connect (self->connection, "message", G_CALLBACK (on_message), self);
  g_signal_connect (self->connection, "error", G_CALLBACK (on_error), self);
  g_signal_connect (self->connection, "closed", G_CALLBACK (on_closed), self);

  g_task_return_pointer (task, self, g_object_unref);
}

/**
 * stw_cdp_websocket_connect_async:
 * @url: a `ws://` or `wss://` URL on this machine
 * @timeout_ms: how long the connection may take; 0 means 15 000
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when connected or failed
 * @user_data: (closure): data for @callback
 *
 * Connects to a DevTools WebSocket. Fails with `BAD_ARGUMENT` for a URL
 * that is not `ws://`/`wss://` or not loopback (see stw_url_is_loopback()),
 * `CDP_TIMEOUT` when the endpoint does not complete the handshake in time,
 * and `CDP_DISCONNECTED` when it refuses or is unreachable.
 *
 * Since: 1.0
 */
void
stw_cdp_websocket_connect_async (const char          *url,
                                 guint                timeout_ms,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(SoupMessage) message = NULL;
  g_autoptr(GError) error = NULL;
  ConnectData *data;

  g_return_if_fail (url != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_cdp_websocket_connect_async);

  uri = _stw_http_loopback_uri (url, "ws", "wss", &error);
  if (uri == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!_stw_soup_load (&error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  data = g_new0 (ConnectData, 1);
  data->url = g_strdup (url);
  data->timeout_ms = timeout_ms != 0 ? timeout_ms : DEFAULT_CONNECT_TIMEOUT_MS;
  data->cancellable = g_cancellable_new ();
  g_task_set_task_data (task, data, (GDestroyNotify) connect_data_free);

  if (cancellable != NULL)
    {
      data->caller_cancellable = g_object_ref (cancellable);
      data->caller_cancelled_id = g_cancellable_connect (cancellable,
                                                         G_CALLBACK (caller_cancelled_cb),
                                                         g_object_ref (data->cancellable),
                                                         g_object_unref);
    }

  data->timeout_source = g_timeout_source_new (data->timeout_ms);
  g_source_set_callback (data->timeout_source, connect_timeout_cb, data, NULL);
  g_source_attach (data->timeout_source, g_task_get_context (task));

  /* The loopback policy (stw-http.c): no proxy, no redirect. */
  data->session = _stw_http_session_new ();
  message = _stw_http_message_new (uri);
  soup_session_websocket_connect_async (data->session, message,
                                        NULL /* no Origin: §6.15 */, NULL,
                                        G_PRIORITY_DEFAULT, data->cancellable,
                                        websocket_connect_cb, g_steal_pointer (&task));
}

/**
 * stw_cdp_websocket_connect_finish:
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes an operation started with
 * [func@Stagewright.CdpWebsocket.connect_async].
 *
 * Returns: (transfer full) (type StwCdpWebsocket): the connected transport,
 *   or %NULL with @error set
 *
 * Since: 1.0
 */
StwTransport *
stw_cdp_websocket_connect_finish (GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_cdp_websocket_connect_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_cdp_websocket_get_url:
 * @self: a #StwCdpWebsocket
 *
 * Gets the DevTools WebSocket URL the connection was made to.
 *
 * Returns: (transfer none): the URL given to
 *   stw_cdp_websocket_connect_async()
 *
 * Since: 1.0
 */
const char *
stw_cdp_websocket_get_url (StwCdpWebsocket *self)
{
  g_return_val_if_fail (STW_IS_CDP_WEBSOCKET (self), NULL);

  return self->url;
}
