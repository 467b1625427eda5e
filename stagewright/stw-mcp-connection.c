/* stw-mcp-connection.c: one MCP client of a StwMcpServer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "stw-json-private.h"
#include "stw-mcp-connection-private.h"

#define PROGRESS_QUIET_MS 250
#define PROGRESS_MAX_NOTIFICATIONS 12
/* After the input ends, calls in flight get this long to answer. */
#define DRAIN_GRACE_MS 3000

struct _StwMcpConnection
{
  GObject         parent_instance;

  StwMcpMessageFunc message_func; /* the server's method table */
  gpointer        message_data;  /* the server, which outlives its connections */
  StwMcpFraming  *framing;
  GTask          *serve_task;
  GSource        *cancel_source;
  GSource        *drain_source;
  gboolean        input_ended;

  gboolean        initialized;   /* initialize answered */
  gboolean        ready;         /* notifications/initialized received */
  char           *protocol_version;
  char           *owner;         /* who the apps it launches belong to */
  gboolean        accepts_modern; /* serves 2026-07-28 requests */
  guint           log_threshold; /* index into the MCP log levels */
  gboolean        log_level_set;

  GHashTable     *calls;         /* id key -> Call */
  GHashTable     *listens;       /* id key -> Listen */
};

G_DEFINE_FINAL_TYPE (StwMcpConnection, stw_mcp_connection, G_TYPE_OBJECT)

typedef struct
{
  StwMcpConnection *connection;    /* weak; calls die before it */
  char             *key;
  JsonNode         *id;
  JsonNode         *progress_token;
  StwInvocation    *invocation;
  GCancellable     *cancellable;
  gulong            progress_id;
  guint             progress_sent;
  double            last_progress;
  gint64            started_us;
} Call;

typedef struct
{
  char              *key;
  JsonNode          *id;
  StwMcpListenFlags  flags;
  GStrv              uris;
} Listen;

static void finish_serving (StwMcpConnection *self,
                            GError           *error);

static void
listen_free (gpointer data)
{
  Listen *listen = data;

  g_clear_pointer (&listen->id, json_node_unref);
  g_clear_pointer (&listen->uris, g_strfreev);
  g_clear_pointer (&listen->key, g_free);
  g_free (listen);
}

static void
call_free (gpointer data)
{
  Call *call = data;

  if (call->progress_id != 0)
    g_signal_handler_disconnect (call->invocation, call->progress_id);
  g_clear_object (&call->invocation);
  g_clear_object (&call->cancellable);
  g_clear_pointer (&call->id, json_node_unref);
  g_clear_pointer (&call->progress_token, json_node_unref);
  g_clear_pointer (&call->key, g_free);
  g_free (call);
}

/* --- sending ------------------------------------------------------------- */

static void
send_object (StwMcpConnection *self,
             JsonObject       *message,
             const char       *request_key,
             gboolean          is_response)
{
  gsize length = 0;
  char *text;

  if (self->serve_task == NULL)
    return;

  /* One frame per message; the writer escapes every newline inside. */
  json_object_set_string_member (message, "jsonrpc", "2.0");
  text = stw_json_object_to_string (message, &length);
  {
    g_autoptr(GBytes) frame = g_bytes_new_take (text, length);
    /* A framing with a stream per request (HTTP) routes by the request's
     * id; stdio has one stream and ignores it. */
    _stw_mcp_framing_send_related (self->framing, frame, request_key, is_response);
  }
}

void
_stw_mcp_connection_send_result (StwMcpConnection *self,
                                 JsonNode         *id,
                                 JsonObject       *result)
{
  g_autoptr(JsonObject) message = json_object_new ();
  g_autofree char *key = stw_json_to_string (id, NULL);

  json_object_set_member (message, "id", json_node_copy (id));
  json_object_set_object_member (message, "result", result);
  send_object (self, message, key, TRUE);
}

void
_stw_mcp_connection_send_error (StwMcpConnection *self,
                                JsonNode         *id,
                                int               code,
                                const char       *text,
                                JsonObject       *data)
{
  g_autoptr(JsonObject) message = json_object_new ();
  JsonObject *error = json_object_new ();
  g_autofree char *key = id != NULL ? stw_json_to_string (id, NULL) : NULL;

  if (id != NULL)
    json_object_set_member (message, "id", json_node_copy (id));
  else
    json_object_set_null_member (message, "id");

  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", text);
  if (data != NULL)
    json_object_set_object_member (error, "data", data);
  json_object_set_object_member (message, "error", error);
  send_object (self, message, key, TRUE);
}

/* @request_key: the request the notification belongs to, or NULL. */
static void
send_related_notification (StwMcpConnection *self,
                           const char       *request_key,
                           const char       *method,
                           JsonObject       *params)
{
  g_autoptr(JsonObject) message = json_object_new ();

  json_object_set_string_member (message, "method", method);
  if (params != NULL)
    json_object_set_object_member (message, "params", params);
  send_object (self, message, request_key, FALSE);
}

void
_stw_mcp_connection_send_notification (StwMcpConnection *self,
                                       const char       *method,
                                       JsonObject       *params)
{
  send_related_notification (self, NULL, method, params);
}

void
_stw_mcp_connection_send_related_notification (StwMcpConnection *self,
                                               const char       *request_key,
                                               const char       *method,
                                               JsonObject       *params)
{
  send_related_notification (self, request_key, method, params);
}

/* --- state --------------------------------------------------------------- */

gboolean
_stw_mcp_connection_is_initialized (StwMcpConnection *self)
{
  return self->initialized;
}

void
_stw_mcp_connection_set_initialized (StwMcpConnection *self,
                                     const char       *protocol_version)
{
  g_free (self->protocol_version);
  self->protocol_version = g_strdup (protocol_version);
  self->initialized = TRUE;
}

const char *
_stw_mcp_connection_get_protocol_version (StwMcpConnection *self)
{
  return self->protocol_version;
}

gboolean
_stw_mcp_connection_is_ready (StwMcpConnection *self)
{
  return self->ready && self->serve_task != NULL;
}

void
_stw_mcp_connection_set_ready (StwMcpConnection *self)
{
  self->ready = self->initialized;
}

void
_stw_mcp_connection_set_log_threshold (StwMcpConnection *self,
                                       guint             threshold)
{
  self->log_threshold = threshold;
  self->log_level_set = TRUE;
}

gboolean
_stw_mcp_connection_wants_log (StwMcpConnection *self,
                               guint             level)
{
  return self->log_level_set && self->serve_task != NULL && level >= self->log_threshold;
}

const char *
_stw_mcp_connection_get_owner (StwMcpConnection *self)
{
  return self->owner != NULL ? self->owner : "stdio";
}

void
_stw_mcp_connection_set_owner (StwMcpConnection *self,
                               const char       *owner)
{
  g_free (self->owner);
  self->owner = g_strdup (owner);
}

gboolean
_stw_mcp_connection_get_accepts_modern (StwMcpConnection *self)
{
  return self->accepts_modern;
}

void
_stw_mcp_connection_set_accepts_modern (StwMcpConnection *self,
                                        gboolean          accepts)
{
  self->accepts_modern = accepts;
}

/* --- calls in flight ----------------------------------------------------- */

gboolean
_stw_mcp_connection_has_call (StwMcpConnection *self,
                              const char       *key)
{
  /* A listen's id is in use for as long as it is open. */
  return g_hash_table_contains (self->calls, key) || g_hash_table_contains (self->listens, key);
}

guint
_stw_mcp_connection_get_n_calls (StwMcpConnection *self)
{
  return g_hash_table_size (self->calls);
}

static void
on_progress (StwInvocation *invocation,
             double         progress,
             double         total,
             const char    *message,
             gpointer       user_data)
{
  Call *call = user_data;
  gint64 elapsed_ms = (g_get_monotonic_time () - call->started_us) / 1000;
  JsonObject *params;

  /* Advisory and bounded: quiet at first, strictly increasing, capped. */
  if (elapsed_ms < PROGRESS_QUIET_MS ||
      call->progress_sent >= PROGRESS_MAX_NOTIFICATIONS ||
      (call->progress_sent > 0 && progress <= call->last_progress) ||
      !isfinite (progress))
    return;

  call->progress_sent++;
  call->last_progress = progress;

  params = json_object_new ();
  json_object_set_member (params, "progressToken", json_node_copy (call->progress_token));
  json_object_set_double_member (params, "progress", progress);
  if (total > 0 && isfinite (total))
    json_object_set_double_member (params, "total", total);
  if (message != NULL)
    json_object_set_string_member (params, "message", message);
  /* On the stream of the request it reports on (HTTP). */
  send_related_notification (call->connection, call->key, "notifications/progress", params);
}

GCancellable *
_stw_mcp_connection_add_call (StwMcpConnection *self,
                              const char       *key,
                              JsonNode         *id,
                              JsonNode         *progress_token,
                              StwInvocation    *invocation)
{
  Call *call = g_new0 (Call, 1);

  g_return_val_if_fail (!g_hash_table_contains (self->calls, key), NULL);

  call->connection = self;
  call->key = g_strdup (key);
  call->id = json_node_copy (id);
  call->cancellable = g_cancellable_new ();
  call->started_us = g_get_monotonic_time ();
  call->invocation = g_object_ref (invocation);
  if (progress_token != NULL)
    {
      call->progress_token = json_node_copy (progress_token);
      call->progress_id = g_signal_connect (invocation, "progress",
                                            G_CALLBACK (on_progress), call);
    }
  g_hash_table_insert (self->calls, call->key, call);
  return call->cancellable;
}

JsonNode *
_stw_mcp_connection_get_call_id (StwMcpConnection *self,
                                 const char       *key)
{
  Call *call = g_hash_table_lookup (self->calls, key);

  return call ? call->id : NULL;
}

static gboolean
maybe_finish_drained (StwMcpConnection *self)
{
  if (self->serve_task != NULL && self->input_ended &&
      g_hash_table_size (self->calls) == 0 && _stw_mcp_framing_is_idle (self->framing))
    {
      finish_serving (self, NULL);
      return TRUE;
    }
  return FALSE;
}

void
_stw_mcp_connection_remove_call (StwMcpConnection *self,
                                 const char       *key)
{
  g_hash_table_remove (self->calls, key);
  maybe_finish_drained (self);
}

void
_stw_mcp_connection_cancel_call (StwMcpConnection *self,
                                 const char       *key)
{
  Call *call = g_hash_table_lookup (self->calls, key);

  if (call != NULL)
    g_cancellable_cancel (call->cancellable);
  /* A cancelled listen ends without a response, like any cancelled
   * request. */
  else
    g_hash_table_remove (self->listens, key);
}

/* --- subscriptions/listen ------------------------------------------------ */

void
_stw_mcp_connection_add_listen (StwMcpConnection   *self,
                                const char         *key,
                                JsonNode           *id,
                                StwMcpListenFlags   flags,
                                const char * const *uris)
{
  Listen *listen;

  g_return_if_fail (!_stw_mcp_connection_has_call (self, key));

  listen = g_new0 (Listen, 1);
  listen->key = g_strdup (key);
  listen->id = json_node_copy (id);
  listen->flags = flags;
  listen->uris = g_strdupv ((char **) uris);
  g_hash_table_insert (self->listens, listen->key, listen);
}

guint
_stw_mcp_connection_get_n_listens (StwMcpConnection *self)
{
  return self->serve_task != NULL ? g_hash_table_size (self->listens) : 0;
}

void
_stw_mcp_connection_notify_listens (StwMcpConnection  *self,
                                    const char        *method,
                                    StwMcpListenFlags  flag,
                                    const char        *uri)
{
  GHashTableIter iter;
  gpointer value;

  if (self->serve_task == NULL)
    return;
  g_hash_table_iter_init (&iter, self->listens);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Listen *listen = value;
      JsonObject *params;
      JsonObject *meta;

      if (uri != NULL ? listen->uris == NULL || !g_strv_contains ((const char * const *) listen->uris, uri)
                      : (listen->flags & flag) == 0)
        continue;
      params = json_object_new ();
      meta = json_object_new ();
      json_object_set_member (meta, "io.modelcontextprotocol/subscriptionId", json_node_copy (listen->id));
      json_object_set_object_member (params, "_meta", meta);
      if (uri != NULL)
        json_object_set_string_member (params, "uri", uri);
      send_related_notification (self, listen->key, method, params);
    }
}

/* --- input --------------------------------------------------------------- */

static gboolean
is_blank (const char *data,
          gsize       length)
{
  for (gsize i = 0; i < length; i++)
    if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r' && data[i] != '\n')
      return FALSE;
  return TRUE;
}

static void
on_message (const char *data,
            gsize       length,
            gpointer    user_data)
{
  StwMcpConnection *self = user_data;
  g_autoptr(StwMcpConnection) hold = g_object_ref (self);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  /* Blank lines are not messages. */
  if (is_blank (data, length))
    return;

  node = stw_json_parse_bounded (data, (gssize) length, stw_json_value_budget (length), &error);
  if (node == NULL)
    {
      g_autofree char *text = NULL;

      /* Nothing of a message RFC 8259 refuses is acted on. */
      if (g_error_matches (error, STW_JSON_ERROR, STW_JSON_ERROR_TOO_LARGE))
        {
          text = g_strdup_printf ("Message too large: more than %" G_GSIZE_FORMAT
                                  " JSON values for %" G_GSIZE_FORMAT " bytes (arrays count 2, objects 6;"
                                  " one value per %d bytes, at least %" G_GSIZE_FORMAT ")",
                                  stw_json_value_budget (length), (gsize) length,
                                  STW_JSON_BYTES_PER_VALUE, STW_JSON_MIN_VALUES);
          _stw_mcp_connection_send_error (self, NULL, STW_RPC_INVALID_REQUEST, text, NULL);
        }
      else
        {
          text = g_strdup_printf ("Parse error: %s", error->message);
          _stw_mcp_connection_send_error (self, NULL, STW_RPC_PARSE_ERROR, text, NULL);
        }
      return;
    }

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      _stw_mcp_connection_send_error (self, NULL, STW_RPC_INVALID_REQUEST,
                                      "Batches are not supported", NULL);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      _stw_mcp_connection_send_error (self, NULL, STW_RPC_INVALID_REQUEST,
                                      "A message must be a JSON object", NULL);
      return;
    }

  self->message_func (self, json_node_get_object (node), self->message_data);
}

static void
on_too_large (gpointer user_data)
{
  StwMcpConnection *self = user_data;
  g_autofree char *text = g_strdup_printf ("Message too large: more than %d bytes",
                                           STW_MCP_MAX_MESSAGE_BYTES);

  _stw_mcp_connection_send_error (self, NULL, STW_RPC_INVALID_REQUEST, text, NULL);
}

static gboolean
on_drain_timeout (gpointer user_data)
{
  StwMcpConnection *self = user_data;

  g_clear_pointer (&self->drain_source, g_source_unref);
  g_debug ("Input closed; abandoning %u call(s) still in flight",
           g_hash_table_size (self->calls));
  finish_serving (self, NULL);
  return G_SOURCE_REMOVE;
}

static void
on_input_ended (GError   *error,
                gpointer  user_data)
{
  StwMcpConnection *self = user_data;

  self->input_ended = TRUE;
  if (error != NULL)
    {
      finish_serving (self, g_error_copy (error));
      return;
    }
  if (maybe_finish_drained (self))
    return;
  if (g_hash_table_size (self->calls) > 0 && self->drain_source == NULL)
    {
      self->drain_source = g_timeout_source_new (DRAIN_GRACE_MS);
      g_source_set_callback (self->drain_source, on_drain_timeout, self, NULL);
      g_source_attach (self->drain_source, g_main_context_get_thread_default ());
    }
}

static void
on_output_idle (gpointer user_data)
{
  maybe_finish_drained (user_data);
}

static void
on_failed (GError   *error,
           gpointer  user_data)
{
  StwMcpConnection *self = user_data;

  /* A client that is gone ends serving normally; one dropped for not
   * reading is worth telling. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
    finish_serving (self, g_error_copy (error));
  else
    finish_serving (self, NULL);
}

static const StwMcpFramingSink framing_sink = {
  on_message,
  on_too_large,
  on_input_ended,
  on_output_idle,
  on_failed,
};

/* --- serving ------------------------------------------------------------- */

static void
finish_serving (StwMcpConnection *self,
                GError           *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->serve_task);
  GHashTableIter iter;
  gpointer value;

  if (task == NULL)
    {
      g_clear_error (&error);
      return;
    }

  _stw_mcp_framing_stop (self->framing);
  if (self->drain_source != NULL)
    {
      g_source_destroy (self->drain_source);
      g_clear_pointer (&self->drain_source, g_source_unref);
    }
  if (self->cancel_source != NULL)
    {
      g_source_destroy (self->cancel_source);
      g_clear_pointer (&self->cancel_source, g_source_unref);
    }

  /* Every call still running is cancelled; none will be answered. */
  g_hash_table_iter_init (&iter, self->calls);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_cancellable_cancel (((Call *) value)->cancellable);
  g_hash_table_remove_all (self->calls);
  g_hash_table_remove_all (self->listens);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static gboolean
on_serve_cancelled (GCancellable *cancellable,
                    gpointer      user_data)
{
  /* Cancelled serving stops now: calls in flight get no drain grace. */
  finish_serving (user_data, NULL);
  return G_SOURCE_REMOVE;
}

void
_stw_mcp_connection_serve_async (StwMcpConnection    *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (STW_IS_MCP_CONNECTION (self));
  g_return_if_fail (self->serve_task == NULL);
  g_return_if_fail (!_stw_mcp_framing_is_stopped (self->framing));

  self->serve_task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (self->serve_task, _stw_mcp_connection_serve_async);

  /* A source, not a handler: the cancellable may fire in any thread, and
   * serving ends in this one. */
  if (cancellable != NULL)
    {
      self->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (self->cancel_source, G_SOURCE_FUNC (on_serve_cancelled), self, NULL);
      g_source_attach (self->cancel_source, g_main_context_get_thread_default ());
    }

  _stw_mcp_framing_start (self->framing);
}

gboolean
_stw_mcp_connection_serve_finish (StwMcpConnection  *self,
                                  GAsyncResult      *result,
                                  GError           **error)
{
  g_return_val_if_fail (STW_IS_MCP_CONNECTION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
_stw_mcp_connection_is_serving (StwMcpConnection *self)
{
  return self->serve_task != NULL;
}

StwMcpFraming *
_stw_mcp_connection_get_framing (StwMcpConnection *self)
{
  return self->framing;
}

/* --- object -------------------------------------------------------------- */

static void
stw_mcp_connection_dispose (GObject *object)
{
  StwMcpConnection *self = STW_MCP_CONNECTION (object);

  if (self->calls != NULL)
    g_hash_table_remove_all (self->calls);
  if (self->listens != NULL)
    g_hash_table_remove_all (self->listens);
  if (self->framing != NULL)
    _stw_mcp_framing_stop (self->framing);

  G_OBJECT_CLASS (stw_mcp_connection_parent_class)->dispose (object);
}

static void
stw_mcp_connection_finalize (GObject *object)
{
  StwMcpConnection *self = STW_MCP_CONNECTION (object);

  g_clear_object (&self->framing);
  g_clear_pointer (&self->calls, g_hash_table_unref);
  g_clear_pointer (&self->listens, g_hash_table_unref);
  g_clear_pointer (&self->protocol_version, g_free);
  g_clear_pointer (&self->owner, g_free);

  G_OBJECT_CLASS (stw_mcp_connection_parent_class)->finalize (object);
}

static void
stw_mcp_connection_class_init (StwMcpConnectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = stw_mcp_connection_dispose;
  object_class->finalize = stw_mcp_connection_finalize;
}

static void
stw_mcp_connection_init (StwMcpConnection *self)
{
  self->calls = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, call_free);
  self->listens = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, listen_free);
  self->log_threshold = 1;  /* info, once the client asks */
}

StwMcpConnection *
_stw_mcp_connection_new (StwMcpFraming     *framing,
                         StwMcpMessageFunc  message_func,
                         gpointer           user_data)
{
  StwMcpConnection *self;

  g_return_val_if_fail (STW_IS_MCP_FRAMING (framing), NULL);
  g_return_val_if_fail (message_func != NULL, NULL);

  self = g_object_new (STW_TYPE_MCP_CONNECTION, NULL);
  self->message_func = message_func;
  self->message_data = user_data;
  self->framing = g_object_ref (framing);
  _stw_mcp_framing_set_sink (framing, &framing_sink, self);
  return self;
}
