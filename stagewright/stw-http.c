/* stw-http.c: the one HTTP policy for loopback endpoints
 *
 * Every DevTools endpoint we talk to (the HTTP probes of attach, inject
 * and discovery, and the WebSocket handshake) is on this machine and runs
 * arbitrary code for whoever reaches it. So it is contacted directly:
 *
 * - the host is an IP literal in 127.0.0.0/8 or ::1, or `localhost`,
 *   which is connected to as 127.0.0.1 (no resolver answer to trust, and
 *   the DevTools server refuses a Host that is not an IP or localhost);
 * - no proxy, whatever `http_proxy`, `all_proxy` or the desktop say;
 * - no redirects: a 3xx is an error, not a hop to somewhere else;
 * - an answer body is bounded while it is read, in chunks: one byte past
 *   %STW_HTTP_BODY_MAX and the request is torn down, so a hostile port
 *   streaming gigabytes costs at most one chunk more than the cap.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "stw-error-registry.h"
#include "stw-http-private.h"
#include "stw-json-private.h"

#define READ_CHUNK 16384

/**
 * _stw_http_host_is_loopback:
 * @host: (nullable): a URL's host
 *
 * Returns: whether @host is `localhost` or an IP literal on loopback;
 *   names are never resolved, so any other name is not
 */
gboolean
_stw_http_host_is_loopback (const char *host)
{
  g_autoptr(GInetAddress) address = NULL;

  if (host == NULL || *host == '\0')
    return FALSE;
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return TRUE;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

/**
 * _stw_http_loopback_uri:
 * @url: the URL given
 * @scheme: the plain scheme allowed (`http`, `ws`)
 * @secure_scheme: (nullable): the TLS one (`https`, `wss`)
 * @error: `BAD_ARGUMENT` when @url is not a loopback URL of that scheme
 *
 * The URL to connect to, rebuilt from the parts that were checked, so what
 * was judged loopback is exactly what libsoup connects to.
 *
 * Returns: (transfer full) (nullable): the URI to connect to
 */
GUri *
_stw_http_loopback_uri (const char  *url,
                        const char  *scheme,
                        const char  *secure_scheme,
                        GError     **error)
{
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *host;

  uri = g_uri_parse (url, G_URI_FLAGS_NONE, &local_error);
  if (uri == NULL)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                    _("Not a valid endpoint URL: %s (%s)"),
                                                    url, local_error->message));
      return NULL;
    }
  if (g_ascii_strcasecmp (g_uri_get_scheme (uri), scheme) != 0 &&
      (secure_scheme == NULL || g_ascii_strcasecmp (g_uri_get_scheme (uri), secure_scheme) != 0))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                    _("An endpoint URL here starts with %s://%s%s: %s"),
                                                    scheme, secure_scheme ? _(" or ") : "",
                                                    secure_scheme ? secure_scheme : "", url));
      return NULL;
    }
  host = g_uri_get_host (uri);
  if (!_stw_http_host_is_loopback (host))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                    _("Only loopback endpoints (127.0.0.0/8, ::1, localhost) "
                                                      "can be contacted: %s"), url));
      return NULL;
    }
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    host = "127.0.0.1";

  return g_uri_build (G_URI_FLAGS_NONE, g_uri_get_scheme (uri), NULL, host, g_uri_get_port (uri),
                      *g_uri_get_path (uri) ? g_uri_get_path (uri) : "/",
                      g_uri_get_query (uri), NULL);
}

/**
 * _stw_http_session_new:
 *
 * A session for loopback endpoints: no proxy resolver (the environment's
 * proxies would carry our requests elsewhere), no content decoding.
 *
 * Returns: (transfer full): a new #SoupSession
 */
SoupSession *
_stw_http_session_new (void)
{
  SoupSession *session = soup_session_new ();

  soup_session_set_proxy_resolver (session, NULL);
  soup_session_remove_feature_by_type (session, SOUP_TYPE_CONTENT_DECODER);
  return session;
}

/**
 * _stw_http_message_new:
 * @uri: a URI from _stw_http_loopback_uri()
 *
 * Returns: (transfer full): a GET that is never redirected
 */
SoupMessage *
_stw_http_message_new (GUri *uri)
{
  SoupMessage *message = soup_message_new_from_uri ("GET", uri);

  soup_message_add_flags (message, SOUP_MESSAGE_NO_REDIRECT);
  return message;
}

/* --- GET a bounded JSON answer ------------------------------------------ */

typedef struct
{
  char         *url;
  guint         timeout_ms;
  gsize         max_body;
  SoupSession  *session;
  SoupMessage  *message;
  GInputStream *stream;
  GByteArray   *body;
  guint8        chunk[READ_CHUNK];
  GCancellable *cancellable;         /* ours: the timer or the caller cancels it */
  GCancellable *caller_cancellable;
  gulong        caller_cancelled_id;
  GSource      *timer;
  gboolean      timed_out;
} HttpGet;

static void
http_get_free (HttpGet *get)
{
  if (get->caller_cancelled_id != 0)
    g_cancellable_disconnect (get->caller_cancellable, get->caller_cancelled_id);
  if (get->timer != NULL)
    {
      g_source_destroy (get->timer);
      g_source_unref (get->timer);
    }
  /* Tear the request down before the stream goes: closing a body stream
   * that is not at its end would otherwise read (and discard) the rest. */
  g_cancellable_cancel (get->cancellable);
  if (get->session != NULL)
    soup_session_abort (get->session);
  g_clear_object (&get->stream);
  g_clear_object (&get->message);
  g_clear_object (&get->session);
  g_clear_object (&get->caller_cancellable);
  g_clear_object (&get->cancellable);
  g_clear_pointer (&get->body, g_byte_array_unref);
  g_free (get->url);
  g_free (get);
}

static gboolean
on_http_timeout (gpointer user_data)
{
  HttpGet *get = user_data;

  get->timed_out = TRUE;
  g_clear_pointer (&get->timer, g_source_unref);
  g_cancellable_cancel (get->cancellable);
  return G_SOURCE_REMOVE;
}

static void
on_caller_cancelled (GCancellable *cancellable,
                     gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static void
http_get_fail (GTask  *task,
               GError *io_error)
{
  HttpGet *get = g_task_get_task_data (task);

  if (g_task_return_error_if_cancelled (task))
    return;
  if (get->timed_out)
    g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_TIMEOUT, _("%s gave no answer within %u ms"),
                                                   get->url, get->timeout_ms));
  else
    g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_DISCONNECTED, _("Could not reach %s: %s"),
                                                   get->url, io_error->message));
}

static void http_read_next (GTask *task);

static void
on_http_chunk (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  HttpGet *get = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);
  if (n < 0)
    {
      http_get_fail (task, error);
      return;
    }
  if (n > 0)
    {
      g_byte_array_append (get->body, get->chunk, (guint) n);
      if (get->body->len > get->max_body)
        {
          g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_DISCONNECTED,
                                                         _("%s answered with more than %zu bytes"),
                                                         get->url, get->max_body));
          return;
        }
      http_read_next (g_steal_pointer (&task));
      return;
    }

  node = stw_json_parse ((const char *) get->body->data, (gssize) get->body->len, NULL);
  if (node == NULL)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_DISCONNECTED,
                                                     _("%s did not answer with DevTools JSON"), get->url));
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&node), (GDestroyNotify) json_node_unref);
}

static void
http_read_next (GTask *task)
{
  HttpGet *get = g_task_get_task_data (task);
  /* Never ask for more than one byte past the cap. */
  gsize want = MIN ((gsize) READ_CHUNK, get->max_body + 1 - get->body->len);

  g_input_stream_read_async (get->stream, get->chunk, want, G_PRIORITY_DEFAULT,
                             get->cancellable, on_http_chunk, task);
}

static void
on_http_sent (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  HttpGet *get = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;
  guint status;

  get->stream = soup_session_send_finish ((SoupSession *) object, result, &error);
  if (get->stream == NULL)
    {
      http_get_fail (task, error);
      g_object_unref (task);
      return;
    }

  status = soup_message_get_status (get->message);
  if (SOUP_STATUS_IS_REDIRECTION (status))
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_DISCONNECTED,
                                                     _("%s answered with a redirect (HTTP %u); loopback endpoints "
                                                       "are contacted directly and redirects are not followed"),
                                                     get->url, status));
      g_object_unref (task);
      return;
    }
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_DISCONNECTED, _("%s answered HTTP %u"),
                                                     get->url, status));
      g_object_unref (task);
      return;
    }
  headers = soup_message_get_response_headers (get->message);
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (headers) > (goffset) get->max_body)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_CDP_DISCONNECTED,
                                                     _("%s announced %" PRId64 " bytes, more than %zu"),
                                                     get->url, soup_message_headers_get_content_length (headers),
                                                     get->max_body));
      g_object_unref (task);
      return;
    }
  http_read_next (task);
}

/**
 * _stw_http_get_json_async:
 * @url: an `http://` URL on a loopback host
 * @timeout_ms: the budget of the whole request, 0 for 5 s
 * @max_body: the largest answer accepted, 0 for %STW_HTTP_BODY_MAX
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the parsed answer
 * @user_data: data for @callback
 *
 * GETs a DevTools JSON document under the loopback policy (see the top
 * of this file). Fails with `BAD_ARGUMENT` for a URL that is not a
 * loopback `http://` URL, `CDP_TIMEOUT` when the budget ran out, and
 * `CDP_DISCONNECTED` when nothing answered, the answer was a redirect or
 * an error, exceeded @max_body bytes or was not JSON.
 *
 * Each request has its own #SoupSession, so one that is torn down (too
 * large, too slow) takes no other request with it.
 */
void
_stw_http_get_json_async (const char          *url,
                          guint                timeout_ms,
                          gsize                max_body,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(GUri) uri = NULL;
  GError *error = NULL;
  HttpGet *get;

  g_task_set_source_tag (task, _stw_http_get_json_async);
  uri = _stw_http_loopback_uri (url, "http", NULL, &error);
  if (uri == NULL || !_stw_soup_load (&error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }

  get = g_new0 (HttpGet, 1);
  get->url = g_strdup (url);
  get->timeout_ms = timeout_ms ? timeout_ms : 5000;
  get->max_body = max_body ? MIN (max_body, (gsize) STW_HTTP_BODY_MAX) : STW_HTTP_BODY_MAX;
  get->body = g_byte_array_new ();
  get->cancellable = g_cancellable_new ();
  get->session = _stw_http_session_new ();
  get->message = _stw_http_message_new (uri);
  g_task_set_task_data (task, get, (GDestroyNotify) http_get_free);

  if (cancellable != NULL)
    {
      get->caller_cancellable = g_object_ref (cancellable);
      get->caller_cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                                        g_object_ref (get->cancellable), g_object_unref);
    }
  get->timer = g_timeout_source_new (get->timeout_ms);
  g_source_set_callback (get->timer, on_http_timeout, get, NULL);
  g_source_attach (get->timer, g_task_get_context (task));

  soup_session_send_async (get->session, get->message, G_PRIORITY_DEFAULT, get->cancellable,
                           on_http_sent, task);
}

/**
 * _stw_http_get_json_finish:
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Returns: (transfer full) (nullable): the parsed answer
 */
JsonNode *
_stw_http_get_json_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _stw_http_get_json_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
