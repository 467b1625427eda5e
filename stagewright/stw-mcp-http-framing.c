/* stw-mcp-http-framing.c: one MCP session's HTTP streams
 *
 * The connection above sends frames; this framing finds the HTTP exchange
 * each belongs to. A POST carrying a request is an exchange until its
 * answer is written: frames sent while the POST is being delivered answer
 * it (errors, ping, tools/list); a tools/call answers later, by its id.
 * Progress for a request goes on its exchange, which turns from a pending
 * JSON answer into an SSE stream when the client accepts one (progress,
 * logs and then the result on one stream). Notifications that belong to
 * no request (logs, list_changed) go to the session's standalone stream,
 * the one a GET opens.
 *
 * Every SSE stream has an id ("0" is the standalone one, requests count
 * from 1); its events have ids "STREAM:SEQ" and the last ones are kept
 * (STREAM_MAX_EVENTS, STREAM_MAX_BYTES), so that a GET with
 * Last-Event-ID replays what followed and the stream goes on. Each stream
 * starts with a priming event (an id, empty data).
 *
 * A client that goes away does not cancel its request (MCP: only
 * notifications/cancelled does): a request's stream keeps its events and
 * its result for a GET that resumes it; a request answered as JSON has
 * nothing to resume, and its answer is dropped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-mcp-http-private.h"

/* What one stream keeps for resumption. */
#define STREAM_MAX_EVENTS 256
#define STREAM_MAX_BYTES (1024 * 1024)
/* Request streams kept once complete, for a client that lost the end. */
#define MAX_DONE_STREAMS 16

typedef struct
{
  guint64  seq;
  GBytes  *text;                  /* the whole event, as written */
} Event;

typedef struct
{
  StwMcpHttpFraming *framing;     /* weak */
  char              *id;
  guint64            next_seq;    /* the next event's; 0 is the priming one */
  GQueue             events;      /* Event, oldest first */
  gsize              bytes;
  guint64            lost_seq;    /* events up to this one are gone */
  SoupServerMessage *msg;         /* the reader, if one is attached */
  gulong             finished_id;
  gulong             disconnected_id;
  GSource           *watch;       /* on the reader's socket, for its end */
  gboolean           live;        /* its handler returned: unpause after writing */
  gboolean           complete;    /* nothing more comes */
} Stream;

typedef struct
{
  StwMcpHttpFraming *framing;     /* weak: the framing outlives its table */
  SoupServerMessage *msg;         /* NULL once handed to its stream */
  Stream            *stream;      /* owned by the framing's table */
  char              *key;         /* JSON text of the request id, or NULL */
  gboolean           accepts_sse;
  gboolean           is_request;
  gboolean           streaming;   /* SSE headers set */
  gboolean           answered;
  gboolean           paused;
  gboolean           gone;        /* finished or disconnected */
  gulong             finished_id;
  gulong             disconnected_id;
  GSource           *watch;       /* on its socket while it waits, for the client's end */
} Exchange;

struct _StwMcpHttpFraming
{
  StwMcpFraming  parent_instance;

  GHashTable    *pending;         /* key -> Exchange, awaiting their answer */
  GQueue         order;           /* the pending exchanges, oldest first */
  Exchange      *current;         /* being delivered */

  GHashTable    *streams;         /* id -> Stream */
  Stream        *standalone;      /* "0", the GET stream */
  GQueue         done;            /* complete request streams, oldest first */
  guint64        next_stream;
};

G_DEFINE_FINAL_TYPE (StwMcpHttpFraming, stw_mcp_http_framing, STW_TYPE_MCP_FRAMING)

static void
exchange_free (Exchange *exchange)
{
  if (exchange->watch != NULL)
    {
      g_source_destroy (exchange->watch);
      g_clear_pointer (&exchange->watch, g_source_unref);
    }
  if (exchange->msg != NULL)
    {
      g_clear_signal_handler (&exchange->finished_id, exchange->msg);
      g_clear_signal_handler (&exchange->disconnected_id, exchange->msg);
      g_clear_object (&exchange->msg);
    }
  g_free (exchange->key);
  g_free (exchange);
}

/* Unpauses @msg if libsoup still does its I/O. Once its connection is
 * gone, unpausing it is a libsoup critical (3.2: io_data is NULL), and
 * that can happen while "disconnected" handlers run: the first handler of
 * every message marks it (_stw_mcp_http_message_connected). */
static void
message_unpause (SoupServerMessage *msg)
{
  if (_stw_mcp_http_message_connected (msg))
    soup_server_message_unpause (msg);
}

static void
exchange_resume (Exchange *exchange)
{
  if (!exchange->gone && exchange->paused && exchange->msg != NULL)
    message_unpause (exchange->msg);
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

/* --- streams ------------------------------------------------------------- */

static void
event_free (Event *event)
{
  g_bytes_unref (event->text);
  g_free (event);
}

static void
stream_detach (Stream *stream)
{
  if (stream->watch != NULL)
    {
      g_source_destroy (stream->watch);
      g_clear_pointer (&stream->watch, g_source_unref);
    }
  if (stream->msg == NULL)
    return;
  g_clear_signal_handler (&stream->finished_id, stream->msg);
  g_clear_signal_handler (&stream->disconnected_id, stream->msg);
  g_clear_object (&stream->msg);
  stream->live = FALSE;
}

static void
stream_free (Stream *stream)
{
  stream_detach (stream);
  g_queue_clear_full (&stream->events, (GDestroyNotify) event_free);
  g_free (stream->id);
  g_free (stream);
}

static Stream *
stream_new (StwMcpHttpFraming *self,
            const char        *id)
{
  Stream *stream = g_new0 (Stream, 1);

  stream->framing = self;
  stream->id = g_strdup (id);
  stream->next_seq = 1;
  g_queue_init (&stream->events);
  g_hash_table_insert (self->streams, stream->id, stream);
  return stream;
}

static void
stream_push (Stream     *stream,
             const char *text,
             gsize       length)
{
  if (stream->msg == NULL)
    return;
  soup_message_body_append (soup_server_message_get_response_body (stream->msg),
                            SOUP_MEMORY_COPY, text, length);
}

static void
stream_flush (Stream *stream)
{
  if (stream->msg != NULL && stream->live)
    message_unpause (stream->msg);
}

static void
write_priming (Stream *stream)
{
  /* An id and no data: a client that loses the stream now has an id to
   * resume from (MCP 2025-11-25). */
  g_autofree char *text = g_strdup_printf ("id: %s:%" G_GUINT64_FORMAT "\ndata: \n\n",
                                           stream->id, stream->next_seq - 1);

  stream_push (stream, text, strlen (text));
}

static void
on_stream_gone (SoupServerMessage *msg,
                gpointer           user_data)
{
  Stream *stream = user_data;

  /* Detached first: the debug message may be forwarded to MCP clients,
   * this stream's included, and this reader's I/O is over. */
  stream_detach (stream);
  g_debug ("MCP HTTP: the reader of stream %s went away", stream->id);
}

/* Lets the reader go: its response ends (if it is still there). */
static void
stream_let_go (Stream *stream)
{
  SoupServerMessage *old = g_object_ref (stream->msg);
  gboolean live = stream->live;

  stream_detach (stream);
  if (!stream->complete)
    soup_message_body_complete (soup_server_message_get_response_body (old));
  if (live)
    message_unpause (old);
  g_object_unref (old);
}

/* A GET stream may write nothing for long: its reader may leave unseen. */
static void
on_stream_client (gpointer user_data,
                  gboolean left)
{
  Stream *stream = user_data;

  g_clear_pointer (&stream->watch, g_source_unref);
  if (!left)
    return;
  stream_let_go (stream);
  g_debug ("MCP HTTP: the reader of stream %s closed its connection", stream->id);
}

/* @msg becomes the stream's reader; one attached before is let go. */
static void
stream_attach (Stream            *stream,
               SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  /* A reader that resumes lost the one before, whether the server
   * noticed yet or not: end that one. */
  if (stream->msg != NULL)
    stream_let_go (stream);
  stream->watch = _stw_mcp_http_watch_client (msg, on_stream_client, stream);

  stream->msg = g_object_ref (msg);
  stream->live = FALSE;
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  /* Proxies (nginx) pass events on at once. */
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  stream->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_stream_gone), stream);
  stream->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_stream_gone), stream);
}

static void
stream_write (Stream *stream,
              GBytes *message)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (message, &length);
  GString *text = g_string_sized_new (length + 64);
  Event *event = g_new0 (Event, 1);

  /* One event per message; the connection's writer escapes every newline,
   * so a frame is one data line. */
  g_string_append_printf (text, "id: %s:%" G_GUINT64_FORMAT "\nevent: message\ndata: ",
                          stream->id, stream->next_seq);
  g_string_append_len (text, data, length);
  g_string_append (text, "\n\n");

  event->seq = stream->next_seq++;
  event->text = g_string_free_to_bytes (text);
  stream->bytes += g_bytes_get_size (event->text);
  g_queue_push_tail (&stream->events, event);
  while (g_queue_get_length (&stream->events) > 1 &&
         (g_queue_get_length (&stream->events) > STREAM_MAX_EVENTS || stream->bytes > STREAM_MAX_BYTES))
    {
      Event *old = g_queue_pop_head (&stream->events);

      stream->bytes -= g_bytes_get_size (old->text);
      stream->lost_seq = old->seq;
      event_free (old);
    }

  stream_push (stream, g_bytes_get_data (event->text, NULL), g_bytes_get_size (event->text));
  stream_flush (stream);
}

static void
stream_complete (Stream *stream)
{
  StwMcpHttpFraming *self = stream->framing;

  if (stream->complete)
    return;
  stream->complete = TRUE;
  if (stream->msg != NULL)
    {
      soup_message_body_complete (soup_server_message_get_response_body (stream->msg));
      stream_flush (stream);
    }
  if (stream == self->standalone)
    return;
  /* Kept for a client that resumes it, a few at a time. */
  g_queue_push_tail (&self->done, stream);
  while (g_queue_get_length (&self->done) > MAX_DONE_STREAMS)
    {
      Stream *old = g_queue_pop_head (&self->done);

      g_hash_table_steal (self->streams, old->id);
      stream_free (old);
    }
}

/* --- exchanges ----------------------------------------------------------- */

static void
start_stream (Exchange *exchange)
{
  StwMcpHttpFraming *self = exchange->framing;
  g_autofree char *id = g_strdup_printf ("%" G_GUINT64_FORMAT, ++self->next_stream);

  exchange->streaming = TRUE;
  exchange->stream = stream_new (self, id);
  stream_attach (exchange->stream, exchange->msg);
  /* From now on the stream watches the message. */
  g_clear_signal_handler (&exchange->finished_id, exchange->msg);
  g_clear_signal_handler (&exchange->disconnected_id, exchange->msg);
  g_clear_object (&exchange->msg);
  /* Sent outside the POST's delivery: its handler has returned. */
  exchange->stream->live = exchange != self->current;
  write_priming (exchange->stream);
}

static void
answer (Exchange *exchange,
        GBytes   *message)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (message, &length);

  exchange->answered = TRUE;
  if (exchange->streaming)
    {
      stream_write (exchange->stream, message);
      stream_complete (exchange->stream);
      return;
    }
  if (exchange->gone)
    return;
  /* An error for what was not a request (unparsable, no valid id)
   * means the message was not accepted: 400. */
  soup_server_message_set_status (exchange->msg,
                                  exchange->is_request ? SOUP_STATUS_OK : SOUP_STATUS_BAD_REQUEST,
                                  NULL);
  soup_server_message_set_response (exchange->msg, "application/json",
                                    SOUP_MEMORY_COPY, data, length);
  exchange_resume (exchange);
}

static void
notify (Exchange *exchange,
        GBytes   *message)
{
  /* A POST that carries no request is answered 202 and nothing else. */
  if (exchange->answered || !exchange->is_request)
    return;
  if (!exchange->streaming)
    {
      /* A client that takes JSON only gets the answer alone. */
      if (exchange->gone || !exchange->accepts_sse)
        return;
      start_stream (exchange);
    }
  stream_write (exchange->stream, message);
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
    {
      /* Not tied to a request: the standalone stream, kept for a GET that
       * opens or resumes it. */
      if (!self->standalone->complete)
        stream_write (self->standalone, message);
      return;
    }

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

/* A request waiting for its JSON answer holds its connection. A client
 * that closed it will read no answer; the message ends now (204) rather
 * than when the call does, which may be never. The call goes on (MCP:
 * only notifications/cancelled cancels), and its answer is dropped. */
static void
on_exchange_client (gpointer user_data,
                    gboolean left)
{
  Exchange *exchange = user_data;

  g_clear_pointer (&exchange->watch, g_source_unref);
  if (!left || exchange->gone || exchange->answered || exchange->msg == NULL)
    return;
  soup_server_message_set_status (exchange->msg, SOUP_STATUS_NO_CONTENT, NULL);
  exchange_resume (exchange);
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
      if (exchange->streaming)
        exchange->stream->live = TRUE;
      exchange_free (exchange);
      return STW_MCP_HTTP_DELIVERED_ANSWERED;
    }
  /* Only a request is answered later, and only while serving. */
  if (request_key == NULL || _stw_mcp_framing_is_stopped (STW_MCP_FRAMING (self)) ||
      g_hash_table_contains (self->pending, request_key))
    {
      gboolean streaming = exchange->streaming;

      if (streaming)
        {
          exchange->stream->live = TRUE;
          stream_complete (exchange->stream);
        }
      exchange_free (exchange);
      return streaming ? STW_MCP_HTTP_DELIVERED_ANSWERED : STW_MCP_HTTP_DELIVERED_NOTHING;
    }

  g_hash_table_insert (self->pending, exchange->key, exchange);
  g_queue_push_tail (&self->order, exchange);
  if (!exchange->streaming)
    {
      exchange->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_exchange_gone), exchange);
      exchange->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_exchange_gone), exchange);
      exchange->paused = TRUE;
      soup_server_message_pause (msg);
      exchange->watch = _stw_mcp_http_watch_client (msg, on_exchange_client, exchange);
    }
  else
    exchange->stream->live = TRUE;  /* libsoup pauses itself once the chunks run out */
  return STW_MCP_HTTP_DELIVERED_PENDING;
}

static void
close_exchange (StwMcpHttpFraming *self,
                Exchange          *exchange,
                guint              status)
{
  exchange->answered = TRUE;
  if (exchange->streaming)
    stream_complete (exchange->stream);
  else if (!exchange->gone)
    {
      if (status == SOUP_STATUS_NO_CONTENT)
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

StwMcpHttpOpened
_stw_mcp_http_framing_open_stream (StwMcpHttpFraming *self,
                                   SoupServerMessage *msg,
                                   const char        *last_event_id)
{
  Stream *stream = NULL;
  guint64 after = 0;
  gboolean replay = FALSE;

  g_return_val_if_fail (STW_IS_MCP_HTTP_FRAMING (self), STW_MCP_HTTP_OPENED_CONFLICT);

  if (last_event_id != NULL)
    {
      const char *colon = strrchr (last_event_id, ':');
      g_autofree char *id = colon != NULL ? g_strndup (last_event_id, colon - last_event_id) : NULL;
      char *end = NULL;

      if (id != NULL && g_ascii_isdigit (colon[1]))
        {
          after = g_ascii_strtoull (colon + 1, &end, 10);
          if (*end == '\0')
            stream = g_hash_table_lookup (self->streams, id);
        }
      /* Resumable while nothing after it was let go, and it was sent. */
      if (stream != NULL && after >= stream->lost_seq && after < stream->next_seq)
        replay = TRUE;
      else
        g_debug ("MCP HTTP: Last-Event-ID %.64s is unknown or expired; a fresh stream",
                 last_event_id);
    }

  if (stream == NULL)
    {
      /* A fresh GET: one reader of the standalone stream at a time. */
      stream = self->standalone;
      if (stream->msg != NULL)
        return STW_MCP_HTTP_OPENED_CONFLICT;
    }
  stream_attach (stream, msg);
  if (replay)
    {
      for (GList *l = stream->events.head; l != NULL; l = l->next)
        {
          Event *event = l->data;

          if (event->seq > after)
            stream_push (stream, g_bytes_get_data (event->text, NULL), g_bytes_get_size (event->text));
        }
    }
  else
    write_priming (stream);
  if (stream->complete)
    soup_message_body_complete (soup_server_message_get_response_body (msg));
  stream->live = TRUE;
  return replay ? STW_MCP_HTTP_OPENED_RESUMED : STW_MCP_HTTP_OPENED_FRESH;
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
  stream_complete (self->standalone);
}

static void
stw_mcp_http_framing_finalize (GObject *object)
{
  StwMcpHttpFraming *self = STW_MCP_HTTP_FRAMING (object);

  while (!g_queue_is_empty (&self->order))
    forget (self, g_queue_peek_head (&self->order));
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_queue_clear (&self->done);
  g_clear_pointer (&self->streams, g_hash_table_unref);

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
  self->streams = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) stream_free);
  g_queue_init (&self->done);
  self->standalone = stream_new (self, "0");
}

StwMcpFraming *
_stw_mcp_http_framing_new (void)
{
  return g_object_new (STW_TYPE_MCP_HTTP_FRAMING, NULL);
}
