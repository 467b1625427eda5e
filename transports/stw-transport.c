/* stw-transport.c: a Chrome DevTools Protocol connection
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-deadline-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-transport.h"
#include "stw-transport-private.h"

/**
 * StwTransport:
 *
 * One connection to a DevTools endpoint: a browser, a page or a Node
 * inspector. Subclasses move bytes (a WebSocket, the
 * `--remote-debugging-pipe` file descriptors); this base class owns
 * everything else, in the shape of jsonrpc-glib's client:
 *
 * - every call gets the next integer id and a #GTask kept in an
 *   id → pending-call table until its reply arrives, its timeout fires
 *   (`CDP_TIMEOUT`) or its cancellable is cancelled;
 * - messages are read and written hardened (lone surrogates, NaN, nesting;
 *   see the CDP field notes §6.21–24); a message that does not parse is
 *   logged at debug level and dropped, so garbage never kills a connection;
 * - events are emitted as #StwTransport::event, detailed by method name, so
 *   `event::Page.loadEventFired` reaches only the handlers that want it;
 * - one failure path: when the channel goes away every pending call fails
 *   at once with `CDP_DISCONNECTED` and #StwTransport::closed is emitted
 *   once. An error reply without an id (Chrome's answer to a message it
 *   could not parse) cannot be matched to its call, so it fails every
 *   pending call the same way — but the connection stays open and later
 *   calls work.
 *
 * Calls never block: the reply to an input event may be withheld until a
 * dialog is handled, so everything is asynchronous with a per-call timeout.
 *
 * Each callback runs in the thread-default main context of the caller
 * that started the call. A transport is not thread-safe: use it from the
 * thread that created it. A pending call holds a reference on the
 * transport, as a #GTask holds its source object; dropping the last
 * reference of a transport with no pending calls closes it.
 */

#define DEFAULT_TIMEOUT_MS 15000

/* `G_MESSAGES_DEBUG=Stagewright-CDP` traces every command, with the time
 * its reply took: where an operation's milliseconds go. */
#define TRACE_DOMAIN "Stagewright-CDP"
#define tracing() (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, TRACE_DOMAIN))

typedef struct
{
  GHashTable *pending;           /* gint64 id → PendingCall */
  gint64      last_id;
  guint       default_timeout_ms;
  guint       closed : 1;
} StwTransportPrivate;

typedef struct
{
  gint64        id;
  StwTransport *transport;       /* unowned: the task holds a reference */
  GTask        *task;
  char         *method;
  gint64        sent_us;
  guint         timeout_ms;
  guint         call_timeout_ms;  /* a call's deadline cut timeout_ms: its timeout */
  gboolean      cut;
  GSource      *timeout_source;
  GSource      *cancel_source;
  char         *session_id;      /* observed calls only */
  JsonObject   *params;          /* observed calls only */
  gsize         sent_bytes;
} PendingCall;

/* --- observers ----------------------------------------------------------- */

typedef struct
{
  guint                 id;
  StwTransportObserver  func;
  gpointer              user_data;
  GDestroyNotify        destroy;
} Observer;

static GPtrArray *observers;      /* Observer*; main thread only */
static guint      last_observer_id;

static gboolean
observed (void)
{
  return observers != NULL && observers->len > 0;
}

static void
notify_observers (StwTransport *transport,
                  const char   *method,
                  const char   *session_id,
                  JsonObject   *params,
                  JsonObject   *result,
                  gboolean      failed,
                  gsize         sent_bytes,
                  gsize         received_bytes,
                  gint64        sent_us)
{
  StwTransportTraffic traffic = {
    .method = method,
    .session_id = session_id,
    .params = params,
    .result = result,
    .failed = failed,
    .is_event = sent_us == 0,
    .sent_bytes = sent_bytes,
    .received_bytes = received_bytes,
    .sent_us = sent_us,
    .received_us = g_get_monotonic_time (),
  };

  for (guint i = 0; observers != NULL && i < observers->len; i++)
    {
      Observer *observer = g_ptr_array_index (observers, i);

      observer->func (transport, &traffic, observer->user_data);
    }
}

/**
 * stw_transport_add_observer:
 * @observer: (scope notified) (closure user_data) (destroy destroy): called
 *   for every CDP reply and event of every transport
 * @user_data: data for @observer
 * @destroy: (nullable): frees @user_data when the observer is removed
 *
 * Observes the DevTools traffic of the whole process: each command's
 * round trip (method, session, sizes, timing; the parameters and result
 * for those who record bodies) once its reply arrives, and each event.
 * The trace plugin records a session's CDP traffic this way. Observers
 * run on the thread that runs the transports (the main thread); with
 * none, the traffic costs nothing extra.
 *
 * Returns: an id for [func@Stagewright.Transport.remove_observer]
 *
 * Since: 1.0
 */
guint
stw_transport_add_observer (StwTransportObserver observer,
                            gpointer             user_data,
                            GDestroyNotify       destroy)
{
  Observer *entry;

  g_return_val_if_fail (observer != NULL, 0);

  if (observers == NULL)
    observers = g_ptr_array_new ();
  entry = g_new0 (Observer, 1);
  entry->id = ++last_observer_id;
  entry->func = observer;
  entry->user_data = user_data;
  entry->destroy = destroy;
  g_ptr_array_add (observers, entry);
  return entry->id;
}

/**
 * stw_transport_remove_observer:
 * @id: what [func@Stagewright.Transport.add_observer] returned
 *
 * Removes an observer; its user data is destroyed.
 *
 * Since: 1.0
 */
void
stw_transport_remove_observer (guint id)
{
  for (guint i = 0; observers != NULL && i < observers->len; i++)
    {
      Observer *entry = g_ptr_array_index (observers, i);

      if (entry->id != id)
        continue;
      g_ptr_array_remove_index (observers, i);
      if (entry->destroy != NULL)
        entry->destroy (entry->user_data);
      g_free (entry);
      return;
    }
}

G_DEFINE_TYPE_WITH_PRIVATE (StwTransport, stw_transport, G_TYPE_OBJECT)

G_DEFINE_QUARK (stw-cdp-error-quark, stw_cdp_error)

enum {
  PROP_0,
  PROP_DEFAULT_TIMEOUT_MS,
  N_PROPS
};

enum {
  EVENT,
  CLOSED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
pending_call_free (PendingCall *call)
{
  if (call->timeout_source != NULL)
    {
      g_source_destroy (call->timeout_source);
      g_source_unref (call->timeout_source);
    }
  if (call->cancel_source != NULL)
    {
      g_source_destroy (call->cancel_source);
      g_source_unref (call->cancel_source);
    }
  g_clear_object (&call->task);
  g_free (call->method);
  g_free (call->session_id);
  g_clear_pointer (&call->params, json_object_unref);
  g_free (call);
}

/* Completes a call that is no longer in the table. The call is freed
 * before the task returns, because the task's callback may re-enter the
 * transport (start calls, close it, drop it). */
static void
pending_call_return (PendingCall *call,
                     JsonObject  *result,
                     GError      *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&call->task);

  pending_call_free (call);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, json_object_ref (result),
                           (GDestroyNotify) json_object_unref);
}

static PendingCall *
take_pending_call (StwTransport *self,
                   gint64        id)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);
  PendingCall *call = g_hash_table_lookup (priv->pending, &id);

  if (call != NULL)
    g_hash_table_steal (priv->pending, &id);
  return call;
}

static gint
compare_calls_by_id (gconstpointer a,
                     gconstpointer b)
{
  const PendingCall *call_a = *(PendingCall * const *) a;
  const PendingCall *call_b = *(PendingCall * const *) b;

  return (call_a->id > call_b->id) - (call_a->id < call_b->id);
}

/* The one failure path: every pending call fails with CDP_DISCONNECTED,
 * in the order the calls were made. The table is swapped out first so the
 * callbacks may start new calls. */
static void
fail_all_pending (StwTransport *self,
                  const char   *reason)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);
  g_autoptr(GHashTable) pending = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  GHashTableIter iter;
  gpointer value;

  if (g_hash_table_size (priv->pending) == 0)
    return;

  pending = g_steal_pointer (&priv->pending);
  priv->pending = g_hash_table_new (g_int64_hash, g_int64_equal);

  calls = g_ptr_array_sized_new (g_hash_table_size (pending));
  g_hash_table_iter_init (&iter, pending);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (calls, value);
  g_hash_table_steal_all (pending);
  g_ptr_array_sort (calls, compare_calls_by_id);

  for (guint i = 0; i < calls->len; i++)
    {
      PendingCall *call = g_ptr_array_index (calls, i);
      GError *error = stw_error_new_code (STW_ERROR_CDP_DISCONNECTED, "%s failed: %s",
                                          call->method, reason);

      pending_call_return (call, NULL, error);
    }
}

static GError *
call_timeout_error (PendingCall *call)
{
  GError *error;
  g_autoptr(JsonObject) details = NULL;

  if (!call->cut)
    return stw_error_new_code (STW_ERROR_CDP_TIMEOUT, "%s got no reply within %u ms", call->method, call->timeout_ms);

  error = stw_error_new_code (STW_ERROR_CDP_TIMEOUT, "%s got no reply within the call's timeout of %u ms: the page is busy or hung",
                              call->method, call->call_timeout_ms);
  details = json_object_new ();
  json_object_set_string_member (details, "method", call->method);
  json_object_set_int_member (details, "timeout_ms", call->call_timeout_ms);
  stw_error_set_details (error, details);
  return error;
}

static gboolean
pending_call_timeout_cb (gpointer user_data)
{
  PendingCall *call = user_data;
  GError *error;

  /* Taken by id: the call is still in the table, or its source would have
   * been destroyed. */
  call = take_pending_call (call->transport, call->id);
  g_return_val_if_fail (call == user_data, G_SOURCE_REMOVE);

  error = call_timeout_error (call);
  pending_call_return (call, NULL, error);

  return G_SOURCE_REMOVE;
}

static gboolean
pending_call_cancelled_cb (GCancellable *cancellable,
                           gpointer      user_data)
{
  PendingCall *call = user_data;
  GError *error = NULL;

  call = take_pending_call (call->transport, call->id);
  g_return_val_if_fail (call == user_data, G_SOURCE_REMOVE);

  /* A reply that still arrives carries an id nobody waits for: dropped. */
  g_cancellable_set_error_if_cancelled (cancellable, &error);
  pending_call_return (call, NULL, error);

  return G_SOURCE_REMOVE;
}

static void
stw_transport_real_shutdown (StwTransport *self)
{
}

static void
stw_transport_dispose (GObject *object)
{
  StwTransport *self = STW_TRANSPORT (object);

  stw_transport_close (self);

  G_OBJECT_CLASS (stw_transport_parent_class)->dispose (object);
}

static void
stw_transport_finalize (GObject *object)
{
  StwTransport *self = STW_TRANSPORT (object);
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);

  /* Closing failed them all, and a pending call keeps the transport alive. */
  g_warn_if_fail (g_hash_table_size (priv->pending) == 0);
  g_clear_pointer (&priv->pending, g_hash_table_unref);

  G_OBJECT_CLASS (stw_transport_parent_class)->finalize (object);
}

static void
stw_transport_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  StwTransport *self = STW_TRANSPORT (object);

  switch (prop_id)
    {
    case PROP_DEFAULT_TIMEOUT_MS:
      g_value_set_uint (value, stw_transport_get_default_timeout_ms (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_transport_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  StwTransport *self = STW_TRANSPORT (object);

  switch (prop_id)
    {
    case PROP_DEFAULT_TIMEOUT_MS:
      stw_transport_set_default_timeout_ms (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_transport_class_init (StwTransportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = stw_transport_dispose;
  object_class->finalize = stw_transport_finalize;
  object_class->get_property = stw_transport_get_property;
  object_class->set_property = stw_transport_set_property;

  klass->shutdown = stw_transport_real_shutdown;

  /**
   * StwTransport:default-timeout-ms:
   *
   * How long a call waits for its reply when it is made with a timeout of
   * 0, in milliseconds. Setting 0 restores the default, 15 000.
   */
  properties[PROP_DEFAULT_TIMEOUT_MS] =
    g_param_spec_uint ("default-timeout-ms", NULL, NULL,
                       0, G_MAXUINT, DEFAULT_TIMEOUT_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * StwTransport::event:
   * @self: the transport
   * @method: the event's method, e.g. `Target.attachedToTarget`
   * @params: the event's parameters (an empty object when it has none);
   *   immutable
   * @session_id: (nullable): the flat session the event belongs to, or
   *   %NULL for the connection's own target
   *
   * Emitted for every event the peer sends, with the method name as the
   * detail: connect to `event::Page.loadEventFired` to hear only that one.
   */
  signals[EVENT] =
    g_signal_new ("event",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  G_STRUCT_OFFSET (StwTransportClass, event),
                  NULL, NULL, NULL,
                  G_TYPE_NONE, 3,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
                  JSON_TYPE_OBJECT,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * StwTransport::closed:
   * @self: the transport
   * @error: (nullable): why the channel went away; %NULL for a clean or
   *   unexplained close (stw_transport_close(), `Browser.close`, end of
   *   file on the pipe)
   *
   * Emitted once, when the channel is gone, after every pending call has
   * failed with `CDP_DISCONNECTED`.
   */
  signals[CLOSED] =
    g_signal_new ("closed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  G_STRUCT_OFFSET (StwTransportClass, closed),
                  NULL, NULL, NULL,
                  G_TYPE_NONE, 1,
                  G_TYPE_ERROR);
}

static void
stw_transport_init (StwTransport *self)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);

  priv->pending = g_hash_table_new (g_int64_hash, g_int64_equal);
  priv->default_timeout_ms = DEFAULT_TIMEOUT_MS;
}

/* Builds {id, method, params?, sessionId?} and hands it to the subclass.
 * The text is NUL-terminated: data[length] == '\0'. */
static gint64
send_request (StwTransport *self,
              const char   *method,
              JsonObject   *params,
              const char   *session_id,
              PendingCall  *call)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);
  g_autoptr(JsonObject) message = json_object_new ();
  g_autofree char *text = NULL;
  gint64 id = ++priv->last_id;
  gsize length = 0;

  json_object_set_int_member (message, "id", id);
  json_object_set_string_member (message, "method", method);
  if (params != NULL)
    json_object_set_object_member (message, "params", json_object_ref (params));
  if (session_id != NULL)
    json_object_set_string_member (message, "sessionId", session_id);
  text = stw_json_object_to_string (message, &length);

  /* In the table before the bytes leave: a subclass that fails to write
   * may report the loss synchronously, and that must fail this call too. */
  if (call != NULL)
    {
      call->id = id;
      g_hash_table_insert (priv->pending, &call->id, call);
    }

  if (tracing ())
    g_log (TRACE_DOMAIN, G_LOG_LEVEL_DEBUG, "%p -> %" G_GINT64_FORMAT " %s%s%.8s (%" G_GSIZE_FORMAT " bytes)",
           self, id, method, session_id ? " @" : "", session_id ? session_id : "", length);
  if (call != NULL)
    {
      call->sent_us = g_get_monotonic_time ();
      if (observed ())
        {
          call->session_id = g_strdup (session_id);
          call->params = params ? json_object_ref (params) : NULL;
          call->sent_bytes = length;
        }
    }
  STW_TRANSPORT_GET_CLASS (self)->send_message (self, text, length);

  return id;
}

/**
 * stw_transport_call_async:
 * @self: a #StwTransport
 * @method: the CDP method, e.g. `Runtime.evaluate`
 * @params: (nullable): the method's parameters; not modified
 * @session_id: (nullable): the flat session to address (`sessionId`), or
 *   %NULL for the connection's own target
 * @timeout_ms: how long to wait for the reply; 0 uses
 *   #StwTransport:default-timeout-ms
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the reply
 * @user_data: (closure): data for @callback
 *
 * Sends a command and waits for its reply without blocking. The call fails
 * with `CDP_TIMEOUT` (retryable) when no reply comes in time, with
 * `CDP_DISCONNECTED` when the connection is or becomes closed, with
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled (a reply that still
 * arrives is then dropped), and in %STW_CDP_ERROR when the peer answers
 * with an error.
 *
 * A @cancellable that a page operation of this library made for its steps
 * carries the operation's deadline (its timeout, plus a second): no
 * reply is awaited past it, and a command started after it fails with
 * `CDP_TIMEOUT` without being sent.
 *
 * Since: 1.0
 */
void
stw_transport_call_async (StwTransport        *self,
                          const char          *method,
                          JsonObject          *params,
                          const char          *session_id,
                          guint                timeout_ms,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);
  g_autoptr(GTask) task = NULL;
  GMainContext *context;
  PendingCall *call;

  g_return_if_fail (STW_IS_TRANSPORT (self));
  g_return_if_fail (method != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_transport_call_async);

  if (priv->closed)
    {
      g_task_return_error (task,
                           stw_error_new_code (STW_ERROR_CDP_DISCONNECTED,
                                               "%s failed: the DevTools connection is closed",
                                               method));
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;

  if (timeout_ms == 0)
    timeout_ms = priv->default_timeout_ms;

  call = g_new0 (PendingCall, 1);
  call->transport = self;
  call->task = g_steal_pointer (&task);
  call->method = g_strdup (method);
  /* The operation this command is a step of may end sooner. */
  call->cut = _stw_deadline_clamp (cancellable, &timeout_ms, &call->call_timeout_ms);
  call->timeout_ms = timeout_ms;
  if (call->cut && timeout_ms == 0)
    {
      /* Past the deadline: not sent, so it cannot act late either. */
      pending_call_return (call, NULL, call_timeout_error (call));
      return;
    }

  /* Both sources live in the task's context, so the error is delivered
   * where the caller waits. */
  context = g_task_get_context (call->task);
  call->timeout_source = g_timeout_source_new (timeout_ms);
  g_source_set_priority (call->timeout_source, G_PRIORITY_DEFAULT);
  g_source_set_callback (call->timeout_source, pending_call_timeout_cb, call, NULL);
  g_source_attach (call->timeout_source, context);

  if (cancellable != NULL)
    {
      call->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (call->cancel_source,
                             G_SOURCE_FUNC (pending_call_cancelled_cb), call, NULL);
      g_source_attach (call->cancel_source, context);
    }

  send_request (self, method, params, session_id, call);
}

/**
 * stw_transport_call_finish:
 * @self: a #StwTransport
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes an operation started with
 * [method@Stagewright.Transport.call_async].
 *
 * Returns: (transfer full): the reply's `result` object (immutable), or
 *   %NULL with @error set
 *
 * Since: 1.0
 */
JsonObject *
stw_transport_call_finish (StwTransport  *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (STW_IS_TRANSPORT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_transport_send_notification:
 * @self: a #StwTransport
 * @method: the CDP method
 * @params: (nullable): the method's parameters; not modified
 * @session_id: (nullable): the flat session to address, or %NULL
 *
 * Sends a command without waiting for its reply, for the rare command
 * whose answer nobody needs (`Runtime.runIfWaitingForDebugger`). CDP has
 * no client notifications, so the message still carries an id; its reply,
 * success or error, is dropped. Nothing is sent once the transport is
 * closed.
 *
 * Since: 1.0
 */
void
stw_transport_send_notification (StwTransport *self,
                                 const char   *method,
                                 JsonObject   *params,
                                 const char   *session_id)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);

  g_return_if_fail (STW_IS_TRANSPORT (self));
  g_return_if_fail (method != NULL);

  if (priv->closed)
    {
      g_debug ("Not sending %s: the DevTools connection is closed", method);
      return;
    }

  send_request (self, method, params, session_id, NULL);
}

/**
 * stw_transport_close:
 * @self: a #StwTransport
 *
 * Closes the channel. Every pending call fails with `CDP_DISCONNECTED` and
 * #StwTransport::closed is emitted (with a %NULL error) before this
 * returns; the callbacks of the failed calls run from their main contexts.
 * Closing a closed transport does nothing.
 *
 * Since: 1.0
 */
void
stw_transport_close (StwTransport *self)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);
  g_autoptr(StwTransport) hold = NULL;

  g_return_if_fail (STW_IS_TRANSPORT (self));

  if (priv->closed)
    return;

  hold = g_object_ref (self);
  STW_TRANSPORT_GET_CLASS (self)->shutdown (self);
  /* A subclass whose channel closes later reports it then: a no-op. */
  _stw_transport_closed (self, NULL);
}

/**
 * stw_transport_is_closed:
 * @self: a #StwTransport
 *
 * Checks whether the channel to the app is gone.
 *
 * Returns: %TRUE once the channel is gone; calls then fail at once with
 *   `CDP_DISCONNECTED`
 *
 * Since: 1.0
 */
gboolean
stw_transport_is_closed (StwTransport *self)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);

  g_return_val_if_fail (STW_IS_TRANSPORT (self), TRUE);

  return priv->closed;
}

/**
 * stw_transport_get_default_timeout_ms:
 * @self: a #StwTransport
 *
 * Gets the timeout of calls made without one.
 *
 * Returns: the timeout of calls made with a timeout of 0, in milliseconds
 *
 * Since: 1.0
 */
guint
stw_transport_get_default_timeout_ms (StwTransport *self)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);

  g_return_val_if_fail (STW_IS_TRANSPORT (self), DEFAULT_TIMEOUT_MS);

  return priv->default_timeout_ms;
}

/**
 * stw_transport_set_default_timeout_ms:
 * @self: a #StwTransport
 * @timeout_ms: the timeout of calls made with a timeout of 0, in
 *   milliseconds; 0 restores the default (15 000)
 *
 * Applies to calls made from now on.
 *
 * Since: 1.0
 */
void
stw_transport_set_default_timeout_ms (StwTransport *self,
                                      guint         timeout_ms)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);

  g_return_if_fail (STW_IS_TRANSPORT (self));

  if (timeout_ms == 0)
    timeout_ms = DEFAULT_TIMEOUT_MS;
  if (priv->default_timeout_ms == timeout_ms)
    return;

  priv->default_timeout_ms = timeout_ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEFAULT_TIMEOUT_MS]);
}

/**
 * stw_transport_get_n_pending:
 * @self: a #StwTransport
 *
 * Gets the number of calls that are still waiting for their reply.
 *
 * Returns: how many calls wait for their reply
 *
 * Since: 1.0
 */
guint
stw_transport_get_n_pending (StwTransport *self)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);

  g_return_val_if_fail (STW_IS_TRANSPORT (self), 0);

  return g_hash_table_size (priv->pending);
}

/* --- for subclasses ------------------------------------------------------ */

static const char *
get_string_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static JsonObject *
get_object_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_node_get_object (node);
}

/* A CDP error object as a GError in STW_CDP_ERROR. Chrome puts the useful
 * detail of parameter errors in `data` ("Failed to deserialize
 * params.nodeId - BINDINGS: int32 value expected"), so a string `data`
 * follows the message in parentheses. */
static GError *
error_from_reply (JsonObject *error_object)
{
  JsonNode *code_node = json_object_get_member (error_object, "code");
  const char *message = get_string_member (error_object, "message");
  const char *data = get_string_member (error_object, "data");
  gint64 code = STW_CDP_ERROR_INTERNAL_ERROR;  /* when the peer gives none */

  if (code_node != NULL && JSON_NODE_HOLDS_VALUE (code_node) &&
      json_node_get_value_type (code_node) == G_TYPE_INT64)
    code = CLAMP (json_node_get_int (code_node), G_MININT, G_MAXINT);
  if (message == NULL)
    message = "The peer answered with an error and no message";

  if (data != NULL && *data != '\0')
    return g_error_new (STW_CDP_ERROR, (gint) code, "%s (%s)", message, data);
  return g_error_new_literal (STW_CDP_ERROR, (gint) code, message);
}

static void
dispatch_reply (StwTransport *self,
                JsonObject   *message,
                JsonNode     *id_node,
                gsize         length)
{
  JsonObject *error_object;
  JsonObject *result;
  PendingCall *call;
  gint64 id;

  if (!JSON_NODE_HOLDS_VALUE (id_node) ||
      json_node_get_value_type (id_node) != G_TYPE_INT64)
    {
      g_debug ("Ignoring a CDP reply whose id is not an integer");
      return;
    }

  id = json_node_get_int (id_node);
  call = take_pending_call (self, id);
  if (call == NULL)
    {
      /* Cancelled, timed out, or a notification's reply. */
      g_debug ("Ignoring the CDP reply to %" G_GINT64_FORMAT ": nobody waits for it", id);
      return;
    }

  if (tracing ())
    g_log (TRACE_DOMAIN, G_LOG_LEVEL_DEBUG, "%p <- %" G_GINT64_FORMAT " %s %.3f ms%s", self, id, call->method,
           (g_get_monotonic_time () - call->sent_us) / 1000.0,
           json_object_has_member (message, "error") ? " (error)" : "");

  if (observed () && call->sent_bytes > 0)
    notify_observers (self, call->method, call->session_id, call->params, get_object_member (message, "result"),
                      json_object_has_member (message, "error"), call->sent_bytes, length, call->sent_us);

  error_object = get_object_member (message, "error");
  if (error_object != NULL)
    {
      pending_call_return (call, NULL, error_from_reply (error_object));
      return;
    }

  result = get_object_member (message, "result");
  if (result != NULL)
    pending_call_return (call, result, NULL);
  else
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      json_object_seal (empty);
      pending_call_return (call, empty, NULL);
    }
}

static void
dispatch_event (StwTransport *self,
                JsonObject   *message,
                const char   *method,
                gsize         length)
{
  g_autoptr(JsonObject) empty = NULL;
  JsonObject *params = get_object_member (message, "params");
  const char *session_id = get_string_member (message, "sessionId");

  if (params == NULL)
    {
      params = empty = json_object_new ();
      json_object_seal (empty);
    }

  if (tracing ())
    g_log (TRACE_DOMAIN, G_LOG_LEVEL_DEBUG, "%p <~ %s%s%.8s", self, method, session_id ? " @" : "",
           session_id ? session_id : "");

  /* A method nobody ever connected to has no quark yet; looking it up
   * instead of creating it keeps a chatty peer from growing the quark
   * table without bound. Undetailed handlers still run. */
  if (observed ())
    notify_observers (self, method, session_id, params, NULL, FALSE, 0, length, 0);
  g_signal_emit (self, signals[EVENT], g_quark_try_string (method),
                 method, params, session_id);
}

/* The id of a reply that does not parse, read from its first member as
 * Chromium and Node write every reply: `{"id":123,`. Anything else: none. */
static gboolean
reply_id_of_unreadable (const char *data,
                        gsize       length,
                        gint64     *id)
{
  static const char prefix[] = "{\"id\":";
  gint64 value = 0;
  gsize i = sizeof prefix - 1;
  gsize digits = 0;

  if (data == NULL || length < sizeof prefix || memcmp (data, prefix, sizeof prefix - 1) != 0)
    return FALSE;
  for (; i < length && g_ascii_isdigit (data[i]) && digits < 15; i++, digits++)
    value = value * 10 + (data[i] - '0');
  if (digits == 0 || i >= length || data[i] != ',')
    return FALSE;
  *id = value;
  return TRUE;
}

/* Called by subclasses with one complete message (a WebSocket frame, a
 * pipe record). Never fails: what cannot be understood is dropped. */
void
_stw_transport_receive (StwTransport *self,
                        const char   *data,
                        gsize         length)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);
  g_autoptr(StwTransport) hold = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *message;
  JsonNode *id_node;
  const char *method;

  g_return_if_fail (STW_IS_TRANSPORT (self));
  g_return_if_fail (data != NULL || length == 0);

  if (priv->closed)
    return;

  if (length == 0)
    {
      /* Node's inspector sends an empty message in place of a reply it
       * cannot encode (a value nested past its encoder's depth): as with
       * Chrome's error without an id, which call it meant is unknowable,
       * so none can count on a reply. Fail them now rather than let one
       * wait out its timeout; the connection itself is fine. */
      if (g_hash_table_size (priv->pending) > 0)
        {
          hold = g_object_ref (self);
          fail_all_pending (self, "the DevTools peer sent an empty message in place of a reply it could not encode");
        }
      return;
    }

  root = stw_json_parse_bounded (data, (gssize) length, STW_JSON_MAX_VALUES_CDP, &error);
  if (root == NULL)
    {
      gint64 id;

      g_debug ("Ignoring a CDP message of %" G_GSIZE_FORMAT " bytes that does not parse: %s",
               length, error->message);
      /* A reply we will not read (a value nested past what any peer's
       * JSON may nest, or too big) still says at its start which call it
       * answers: that call fails now instead of waiting out its timeout. */
      if (reply_id_of_unreadable (data, length, &id))
        {
          PendingCall *call;

          hold = g_object_ref (self);
          call = take_pending_call (self, id);
          if (call != NULL)
            pending_call_return (call, NULL,
                                 stw_error_new_code (STW_ERROR_INTERNAL_ERROR,
                                                     "%s: the DevTools reply cannot be read: %s",
                                                     call->method, error->message));
        }
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_debug ("Ignoring a CDP message that is not an object");
      return;
    }
  message = json_node_get_object (root);

  /* Handlers and callbacks may drop the last outside reference. */
  hold = g_object_ref (self);

  id_node = json_object_get_member (message, "id");
  if (id_node != NULL)
    {
      dispatch_reply (self, message, id_node, length);
      return;
    }

  method = get_string_member (message, "method");
  if (method != NULL)
    {
      dispatch_event (self, message, method, length);
      return;
    }

  if (json_object_has_member (message, "error"))
    {
      /* Chrome answers a message it cannot parse with an error that has no
       * id (field notes §6.21). Which call it meant is unknowable, so none
       * of them can be trusted to get a reply: fail them all now rather
       * than let one hang until its timeout. The connection itself is
       * fine, so it stays open. */
      JsonObject *error_object = get_object_member (message, "error");
      g_autoptr(GError) peer_error = error_from_reply (error_object ? error_object
                                                                    : message);
      g_autofree char *reason =
        g_strdup_printf ("the DevTools peer rejected a message without saying which (%d: %s)",
                         peer_error->code, peer_error->message);

      fail_all_pending (self, reason);
      return;
    }

  g_debug ("Ignoring a CDP message with neither id nor method");
}

/* Called by subclasses when the channel is gone (also from
 * stw_transport_close()). Idempotent. */
void
_stw_transport_closed (StwTransport *self,
                       const GError *error)
{
  StwTransportPrivate *priv = stw_transport_get_instance_private (self);
  g_autoptr(StwTransport) hold = NULL;
  g_autofree char *reason = NULL;

  g_return_if_fail (STW_IS_TRANSPORT (self));

  if (priv->closed)
    return;

  hold = g_object_ref (self);
  priv->closed = TRUE;

  if (error != NULL)
    reason = g_strdup_printf ("the DevTools connection closed (%s)", error->message);
  else
    reason = g_strdup ("the DevTools connection closed");
  fail_all_pending (self, reason);

  g_signal_emit (self, signals[CLOSED], 0, error);
}
