/* stw-mcp-http-framing.c: one MCP session's HTTP streams
 *
 * The connection above sends frames; this framing finds the HTTP exchange
 * each belongs to. A POST carrying a request is an exchange until its
 * answer is written: frames sent while the POST is being delivered answer
 * it (errors, ping, tools/list); a tools/call answers later, by its id.
 * Progress for a request goes on its exchange, which turns from a pending
 * JSON answer into an SSE stream when the client accepts one (progress,
 * logs and then the result on one stream). Notifications that belong to
 * no request (logs, list_changed) go to the newest exchange that streams;
 * with no GET stream (not offered yet), none open means they are dropped.
 *
 * A client that goes away does not cancel its request (MCP: only
 * notifications/cancelled does): the answer then finds no exchange and is
 * dropped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-mcp-http-private.h"

typedef struct
{
  StwMcpHttpFraming *framing;     /* weak: the framing outlives its table */
  SoupServerMessage *msg;
  char              *key;         /* JSON text of the request id, or NULL */
  gboolean           accepts_sse;
  gboolean           is_request;
  gboolean           streaming;   /* SSE headers set */
  gboolean           answered;
  gboolean           paused;
  gboolean           gone;        /* finished or disconnected */
  gulong             finished_id;
  gulong             disconnected_id;
} Exchange;

struct _StwMcpHttpFraming
{
  StwMcpFraming  parent_instance;

  GHashTable    *pending;         /* key -> Exchange, awaiting their answer */
  GQueue         order;           /* the pending exchanges, oldest first */
  Exchange      *current;         /* being delivered */
};

G_DEFINE_FINAL_TYPE (StwMcpHttpFraming, stw_mcp_http_framing, STW_TYPE_MCP_FRAMING)

static void
exchange_free (Exchange *exchange)
{
  if (exchange->msg != NULL)
    {
      g_clear_signal_handler (&exchange->finished_id, exchange->msg);
      g_clear_signal_handler (&exchange->disconnected_id, exchange->msg);
      g_clear_object (&exchange->msg);
    }
  g_free (exchange->key);
  g_free (exchange);
}

static void
exchange_resume (Exchange *exchange)
{
  /* Unpausing a message whose I/O ended is a libsoup assertion. */
  if (!exchange->gone && exchange->paused)
    soup_server_message_unpause (exchange->msg);
}

static void
forget (StwMcpHttpFraming *self,
        Exchange          *exchange)
{
  if (exchange == self->current)
    return;
  g_queue_remove (&self->order, exchange);
  if (exchange->key != NULL && g_hash_table_lookup (self->pending, exchange->key) == exchange)
    g_hash_table_steal (self->pending, exchange->key);
  exchange_free (exchange);
}

static void
start_stream (Exchange *exchange)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (exchange->msg);

  exchange->streaming = TRUE;
  soup_server_message_set_status (exchange->msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  /* Proxies (nginx) pass events on at once. */
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
}

static void
write_event (Exchange *exchange,
             GBytes   *message)
{
  SoupMessageBody *body = soup_server_message_get_response_body (exchange->msg);
  gsize length = 0;
  const char *data = g_bytes_get_data (message, &length);

  /* One event per message; the connection's writer escapes every newline,
   * so a frame is one data line. */
  soup_message_body_append (body, SOUP_MEMORY_STATIC, "event: message\ndata: ", 21);
  soup_message_body_append (body, SOUP_MEMORY_COPY, data, length);
  soup_message_body_append (body, SOUP_MEMORY_STATIC, "\n\n", 2);
}

static void
answer (Exchange *exchange,
        GBytes   *message)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (message, &length);

  exchange->answered = TRUE;
  if (exchange->gone)
    return;
  if (exchange->streaming)
    {
      write_event (exchange, message);
      soup_message_body_complete (soup_server_message_get_response_body (exchange->msg));
    }
  else
    {
      /* An error for what was not a request (unparsable, no valid id)
       * means the message was not accepted: 400. */
      soup_server_message_set_status (exchange->msg,
                                      exchange->is_request ? SOUP_STATUS_OK : SOUP_STATUS_BAD_REQUEST,
                                      NULL);
      soup_server_message_set_response (exchange->msg, "application/json",
                                        SOUP_MEMORY_COPY, data, length);
    }
  exchange_resume (exchange);
}

static void
notify (Exchange *exchange,
        GBytes   *message)
{
  /* A POST that carries no request is answered 202 and nothing else. */
  if (exchange->gone || exchange->answered || !exchange->is_request)
    return;
  if (!exchange->streaming)
    {
      /* A client that takes JSON only gets the answer alone. */
      if (!exchange->accepts_sse)
        return;
      start_stream (exchange);
    }
  write_event (exchange, message);
  exchange_resume (exchange);
}

static Exchange *
newest_stream (StwMcpHttpFraming *self)
{
  for (GList *l = self->order.tail; l != NULL; l = l->prev)
    {
      Exchange *exchange = l->data;

      if (exchange->accepts_sse && !exchange->gone && !exchange->answered)
        return exchange;
    }
  return NULL;
}

static void
stw_mcp_http_framing_send_related (StwMcpFraming *framing,
                                   GBytes        *message,
                                   const char    *request_key,
                                   gboolean       is_response)
{
  StwMcpHttpFraming *self = STW_MCP_HTTP_FRAMING (framing);
  Exchange *exchange = NULL;

  /* While a POST is delivered, what is sent answers it. */
  if (self->current != NULL)
    exchange = self->current;
  else if (request_key != NULL)
    exchange = g_hash_table_lookup (self->pending, request_key);
  else if (!is_response)
    exchange = newest_stream (self);

  if (exchange == NULL)
    {
      g_debug ("MCP HTTP: no open stream for a %s; dropped",
               is_response ? "response" : "notification");
      return;
    }

  if (!is_response)
    {
      notify (exchange, message);
      return;
    }
  if (exchange->answered)
    return;
  answer (exchange, message);
  forget (self, exchange);
}

static void
stw_mcp_http_framing_send (StwMcpFraming *framing,
                           GBytes        *message)
{
  stw_mcp_http_framing_send_related (framing, message, NULL, FALSE);
}

static void
on_exchange_gone (SoupServerMessage *msg,
                  gpointer           user_data)
{
  Exchange *exchange = user_data;

  exchange->gone = TRUE;
  forget (exchange->framing, exchange);
}

StwMcpHttpDelivered
_stw_mcp_http_framing_deliver (StwMcpHttpFraming *self,
                               SoupServerMessage *msg,
                               const char        *request_key,
                               gboolean           accepts_sse,
                               const char        *data,
                               gsize              length)
{
  Exchange *exchange;

  g_return_val_if_fail (STW_IS_MCP_HTTP_FRAMING (self), STW_MCP_HTTP_DELIVERED_NOTHING);
  g_return_val_if_fail (self->current == NULL, STW_MCP_HTTP_DELIVERED_NOTHING);

  exchange = g_new0 (Exchange, 1);
  exchange->framing = self;
  exchange->msg = g_object_ref (msg);
  exchange->key = g_strdup (request_key);
  exchange->is_request = request_key != NULL;
  exchange->accepts_sse = accepts_sse;

  self->current = exchange;
  _stw_mcp_framing_emit_message (STW_MCP_FRAMING (self), data, length);
  self->current = NULL;

  if (exchange->answered)
    {
      exchange_free (exchange);
      return STW_MCP_HTTP_DELIVERED_ANSWERED;
    }
  /* Only a request is answered later, and only while serving. */
  if (request_key == NULL || _stw_mcp_framing_is_stopped (STW_MCP_FRAMING (self)) ||
      g_hash_table_contains (self->pending, request_key))
    {
      gboolean streaming = exchange->streaming;

      exchange_free (exchange);
      return streaming ? STW_MCP_HTTP_DELIVERED_ANSWERED : STW_MCP_HTTP_DELIVERED_NOTHING;
    }

  exchange->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_exchange_gone), exchange);
  exchange->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_exchange_gone), exchange);
  g_hash_table_insert (self->pending, exchange->key, exchange);
  g_queue_push_tail (&self->order, exchange);
  if (!exchange->streaming)
    {
      exchange->paused = TRUE;
      soup_server_message_pause (msg);
    }
  else
    exchange->paused = TRUE;  /* libsoup pauses itself once the chunks run out */
  return STW_MCP_HTTP_DELIVERED_PENDING;
}

static void
close_exchange (StwMcpHttpFraming *self,
                Exchange          *exchange,
                guint              status)
{
  exchange->answered = TRUE;
  if (!exchange->gone)
    {
      if (exchange->streaming)
        soup_message_body_complete (soup_server_message_get_response_body (exchange->msg));
      else if (status == SOUP_STATUS_NO_CONTENT)
        soup_server_message_set_status (exchange->msg, status, NULL);
      else
        {
          g_autofree char *text =
            g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32000,"
                             "\"message\":\"The MCP session ended\"}}", exchange->key);

          soup_server_message_set_status (exchange->msg, status, NULL);
          soup_server_message_set_response (exchange->msg, "application/json",
                                            SOUP_MEMORY_COPY, text, strlen (text));
        }
      exchange_resume (exchange);
    }
  forget (self, exchange);
}

void
_stw_mcp_http_framing_abandon (StwMcpHttpFraming *self,
                               const char        *request_key)
{
  Exchange *exchange;

  g_return_if_fail (STW_IS_MCP_HTTP_FRAMING (self));

  exchange = g_hash_table_lookup (self->pending, request_key);
  if (exchange != NULL)
    close_exchange (self, exchange, SOUP_STATUS_NO_CONTENT);
}

guint
_stw_mcp_http_framing_get_n_pending (StwMcpHttpFraming *self)
{
  g_return_val_if_fail (STW_IS_MCP_HTTP_FRAMING (self), 0);

  return g_hash_table_size (self->pending);
}

static void
stw_mcp_http_framing_start (StwMcpFraming *framing)
{
}

static gboolean
stw_mcp_http_framing_is_idle (StwMcpFraming *framing)
{
  /* libsoup writes what is set on a message; nothing is queued here. */
  return TRUE;
}

static void
stw_mcp_http_framing_stop (StwMcpFraming *framing)
{
  StwMcpHttpFraming *self = STW_MCP_HTTP_FRAMING (framing);

  /* The session ended: requests still waiting get 404 (MCP: a request
   * for an ended session), streams end. */
  while (!g_queue_is_empty (&self->order))
    close_exchange (self, g_queue_peek_head (&self->order), SOUP_STATUS_NOT_FOUND);
}

static void
stw_mcp_http_framing_finalize (GObject *object)
{
  StwMcpHttpFraming *self = STW_MCP_HTTP_FRAMING (object);

  while (!g_queue_is_empty (&self->order))
    forget (self, g_queue_peek_head (&self->order));
  g_clear_pointer (&self->pending, g_hash_table_unref);

  G_OBJECT_CLASS (stw_mcp_http_framing_parent_class)->finalize (object);
}

static void
stw_mcp_http_framing_class_init (StwMcpHttpFramingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StwMcpFramingClass *framing_class = STW_MCP_FRAMING_CLASS (klass);

  object_class->finalize = stw_mcp_http_framing_finalize;
  framing_class->start = stw_mcp_http_framing_start;
  framing_class->send = stw_mcp_http_framing_send;
  framing_class->send_related = stw_mcp_http_framing_send_related;
  framing_class->is_idle = stw_mcp_http_framing_is_idle;
  framing_class->stop = stw_mcp_http_framing_stop;
}

static void
stw_mcp_http_framing_init (StwMcpHttpFraming *self)
{
  self->pending = g_hash_table_new (g_str_hash, g_str_equal);
  g_queue_init (&self->order);
}

StwMcpFraming *
_stw_mcp_http_framing_new (void)
{
  return g_object_new (STW_TYPE_MCP_HTTP_FRAMING, NULL);
}
