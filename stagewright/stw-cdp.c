/* stw-cdp.c: raw DevTools access to a surface, for plugins
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The seam plugin families need below the typed API: a CDP command on a
 * surface's DevTools session, its events, and a function run in its
 * isolated world. These answer JSON by nature (they are the protocol's
 * own objects), so they are listed apart from the typed API in the docs
 * (docs/plugins.md, “Raw DevTools access”).
 */
#include "config.h"

#include "stw-cdp.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-surface-private.h"

/**
 * StwCdpSubscription:
 *
 * The events of one surface's DevTools session, as
 * [signal@Stagewright.CdpSubscription::event] emissions, from
 * [method@Stagewright.Surface.subscribe_cdp] until
 * [method@Stagewright.CdpSubscription.cancel] or the last reference goes.
 *
 * Since: 1.0
 */
struct _StwCdpSubscription
{
  GObject       parent_instance;
  StwSurface   *surface;
  StwTransport *transport;
  char         *session_id;
  char         *method;
  gulong        handler;
};

G_DEFINE_FINAL_TYPE (StwCdpSubscription, stw_cdp_subscription, G_TYPE_OBJECT)

enum {
  SIGNAL_EVENT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
stw_cdp_subscription_dispose (GObject *object)
{
  stw_cdp_subscription_cancel (STW_CDP_SUBSCRIPTION (object));
  G_OBJECT_CLASS (stw_cdp_subscription_parent_class)->dispose (object);
}

static void
stw_cdp_subscription_finalize (GObject *object)
{
  StwCdpSubscription *self = STW_CDP_SUBSCRIPTION (object);

  g_clear_object (&self->surface);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->method, g_free);
  G_OBJECT_CLASS (stw_cdp_subscription_parent_class)->finalize (object);
}

static void
stw_cdp_subscription_class_init (StwCdpSubscriptionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = stw_cdp_subscription_dispose;
  object_class->finalize = stw_cdp_subscription_finalize;

  /**
   * StwCdpSubscription::event:
   * @self: the subscription
   * @method: the event's method, e.g. `Network.requestWillBeSent`
   * @params: the event's parameters
   *
   * A DevTools event of the surface's session arrived.
   *
   * Since: 1.0
   */
  signals[SIGNAL_EVENT] =
    g_signal_new ("event",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2,
                  G_TYPE_STRING,
                  JSON_TYPE_OBJECT);
}

static void
stw_cdp_subscription_init (StwCdpSubscription *self)
{
}

static void
on_transport_event (StwTransport       *transport,
                    const char         *method,
                    JsonObject         *params,
                    const char         *session_id,
                    StwCdpSubscription *self)
{
  if (g_strcmp0 (session_id, self->session_id) != 0)
    return;
  g_signal_emit (self, signals[SIGNAL_EVENT], 0, method, params);
}

/**
 * stw_surface_subscribe_cdp:
 * @self: a [class@Stagewright.Surface]
 * @method: (nullable): one event's method, e.g. `Page.loadEventFired`, or
 *   %NULL for every event
 *
 * Subscribes to the DevTools events of @self's session (a same-process
 * frame shares its window's). Enabling the domain that sends them
 * (`Network.enable`, …) is the caller's, with
 * [method@Stagewright.Surface.send_cdp_async]. The events arrive on the
 * main context the session runs on.
 *
 * Returns: (transfer full): the subscription; drop it or cancel it to stop
 *
 * Since: 1.0
 */
StwCdpSubscription *
stw_surface_subscribe_cdp (StwSurface *self,
                           const char *method)
{
  StwCdpSubscription *subscription;
  g_autofree char *signal = NULL;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);

  subscription = g_object_new (STW_TYPE_CDP_SUBSCRIPTION, NULL);
  subscription->surface = g_object_ref (self);
  subscription->session_id = g_strdup (stw_surface_get_cdp_session_id (self));
  subscription->method = g_strdup (method);
  subscription->transport = _stw_surface_get_transport (self);
  if (subscription->transport != NULL)
    {
      g_object_add_weak_pointer (G_OBJECT (subscription->transport), (gpointer *) &subscription->transport);
      signal = method ? g_strconcat ("event::", method, NULL) : g_strdup ("event");
      subscription->handler = g_signal_connect (subscription->transport, signal,
                                                G_CALLBACK (on_transport_event), subscription);
    }
  return subscription;
}

/**
 * stw_cdp_subscription_get_surface:
 * @self: a [class@Stagewright.CdpSubscription]
 *
 * Gets the surface whose events this subscription carries.
 *
 * Returns: (transfer none): the surface
 *
 * Since: 1.0
 */
StwSurface *
stw_cdp_subscription_get_surface (StwCdpSubscription *self)
{
  g_return_val_if_fail (STW_IS_CDP_SUBSCRIPTION (self), NULL);
  return self->surface;
}

/**
 * stw_cdp_subscription_get_method:
 * @self: a [class@Stagewright.CdpSubscription]
 *
 * Gets the one event method subscribed to.
 *
 * Returns: (transfer none) (nullable): the method, %NULL for every event
 *
 * Since: 1.0
 */
const char *
stw_cdp_subscription_get_method (StwCdpSubscription *self)
{
  g_return_val_if_fail (STW_IS_CDP_SUBSCRIPTION (self), NULL);
  return self->method;
}

/**
 * stw_cdp_subscription_cancel:
 * @self: a [class@Stagewright.CdpSubscription]
 *
 * Stops the events; no emission follows. Cancelling twice is harmless.
 *
 * Since: 1.0
 */
void
stw_cdp_subscription_cancel (StwCdpSubscription *self)
{
  g_return_if_fail (STW_IS_CDP_SUBSCRIPTION (self));

  if (self->transport != NULL)
    {
      g_clear_signal_handler (&self->handler, self->transport);
      g_object_remove_weak_pointer (G_OBJECT (self->transport), (gpointer *) &self->transport);
      self->transport = NULL;
    }
}

/* --- commands ------------------------------------------------------------ */

static void
on_cdp_replied (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonObject *reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);

  if (reply == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) json_object_unref);
}

/**
 * stw_surface_send_cdp_async:
 * @self: a [class@Stagewright.Surface]
 * @method: a DevTools method, e.g. `Network.enable`
 * @params: (nullable): its parameters
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the reply
 * @user_data: data for @callback
 *
 * Sends one DevTools command on @self's session (a same-process frame
 * shares its window's), with the transport's default timeout. Nothing
 * checks what the command does: it is the plugin's. It works on a surface
 * paused in a [vfunc@Stagewright.Plugin.surface_attached] hook.
 *
 * Since: 1.0
 */
void
stw_surface_send_cdp_async (StwSurface          *self,
                            const char          *method,
                            JsonObject          *params,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  StwTransport *transport;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (method != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_surface_send_cdp_async);
  transport = _stw_surface_get_transport (self);
  if (transport == NULL || stw_surface_is_closed (self))
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_SURFACE_CLOSED,
                                                     "The surface %s is closed", stw_surface_get_id (self)));
      return;
    }
  stw_transport_call_async (transport, method, params, stw_surface_get_cdp_session_id (self), 0,
                            cancellable, on_cdp_replied, g_steal_pointer (&task));
}

/**
 * stw_surface_send_cdp_finish:
 * @self: a [class@Stagewright.Surface]
 * @result: the #GAsyncResult
 * @error: where to put a DevTools error, a closed surface or a timeout
 *
 * Finishes [method@Stagewright.Surface.send_cdp_async].
 *
 * Returns: (transfer full) (nullable): the command's result object
 *
 * Since: 1.0
 */
JsonObject *
stw_surface_send_cdp_finish (StwSurface    *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_send_cdp_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- the isolated world -------------------------------------------------- */

static void
on_isolated_done (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonNode *value = _stw_surface_evaluate_isolated_finish (STW_SURFACE (object), result, &error);

  if (value == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, value, (GDestroyNotify) json_node_unref);
}

/**
 * stw_surface_call_isolated_async:
 * @self: a [class@Stagewright.Surface]
 * @function_declaration: a JavaScript function, e.g. `(a, b) => a + b`
 * @arguments: (nullable): its arguments, as JSON values
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Calls a function in @self's isolated world — the one the core tools
 * read and act from, which shares the DOM but none of the page's
 * globals — and awaits the promise it may return. The result comes back
 * by value (JSON). It is not an eval tool: the caller is a plugin, and
 * `--allow-eval` governs only what agents send.
 *
 * Since: 1.0
 */
void
stw_surface_call_isolated_async (StwSurface          *self,
                                 const char          *function_declaration,
                                 JsonArray           *arguments,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonNode) args = NULL;
  g_autofree char *args_json = NULL;
  g_autofree char *expression = NULL;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (function_declaration != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_surface_call_isolated_async);
  args = json_node_new (JSON_NODE_ARRAY);
  if (arguments != NULL)
    json_node_set_array (args, arguments);
  else
    json_node_take_array (args, json_array_new ());
  args_json = json_to_string (args, FALSE);
  expression = g_strdup_printf ("(%s).apply(null, %s)", function_declaration, args_json);
  _stw_surface_evaluate_isolated_async (self, expression, cancellable, on_isolated_done,
                                        g_steal_pointer (&task));
}

/**
 * stw_surface_call_isolated_finish:
 * @self: a [class@Stagewright.Surface]
 * @result: the #GAsyncResult
 * @error: where to put `EVAL_RUNTIME_ERROR` (the function threw) or the
 *   surface's failure
 *
 * Finishes [method@Stagewright.Surface.call_isolated_async].
 *
 * Returns: (transfer full) (nullable): the function's value
 *
 * Since: 1.0
 */
JsonNode *
stw_surface_call_isolated_finish (StwSurface    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_call_isolated_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- elements a plugin's code finds, and refs ---------------------------- */

static void
on_element_resolved (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(StwSurface) acted_on = NULL;
  GError *error = NULL;
  JsonObject *answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);

  if (answer == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_set_task_data (task, g_steal_pointer (&acted_on), g_object_unref);
  g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
}

/**
 * stw_surface_resolve_element_async:
 * @self: a [class@Stagewright.Surface]
 * @target: the element: a ref (in whichever surface of the session it
 *   names) or a selector (in @self)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the element's handle
 * @user_data: data for @callback
 *
 * Finds the element @target names the way the element operations do
 * (`docs/page-ops.md`: a ref whose element went moves to the one live
 * element with its fingerprint, or fails) and answers its handle in the
 * isolated world of the surface it is in, where a function given to
 * [method@Stagewright.Surface.call_isolated_async] gets the element back
 * with `globalThis.__stagewright.element (key)`.
 *
 * Since: 1.0
 */
void
stw_surface_resolve_element_async (StwSurface          *self,
                                   const StwTarget     *target,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_surface_resolve_element_async);
  _stw_surface_element_op_async (self, target, "handle", NULL, cancellable, on_element_resolved, task);
}

/**
 * stw_surface_resolve_element_finish:
 * @self: a [class@Stagewright.Surface]
 * @result: the #GAsyncResult
 * @element_surface: (out) (optional) (transfer full): the surface the
 *   element is in (a ref may name one of @self's frames)
 * @error: where to put `REF_NOT_FOUND`, `SELECTOR_NO_MATCH`,
 *   `BAD_ARGUMENT` (an invalid selector) or the surface's failure
 *
 * Finishes [method@Stagewright.Surface.resolve_element_async].
 *
 * Returns: (transfer full) (nullable): the handle, `{key, world, target:
 *   {ref, role, name}}`: the element is `globalThis.__stagewright.element
 *   (key)` in @element_surface's isolated world while
 *   `globalThis.__stagewright.world` is `world` (the page-side module's
 *   own object, so JSON)
 *
 * Since: 1.0
 */
JsonObject *
stw_surface_resolve_element_finish (StwSurface    *self,
                                    GAsyncResult  *result,
                                    StwSurface   **element_surface,
                                    GError       **error)
{
  JsonObject *handle;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_resolve_element_async, NULL);

  handle = g_task_propagate_pointer (G_TASK (result), error);
  if (element_surface != NULL)
    {
      gpointer surface = g_task_get_task_data (G_TASK (result));

      *element_surface = handle != NULL && surface != NULL ? g_object_ref (surface) : NULL;
    }
  return handle;
}

/**
 * stw_surface_bind_element_ref:
 * @self: the [class@Stagewright.Surface] whose isolated world found the
 *   element
 * @handle: what `globalThis.__stagewright.handleOf (element)` answered
 *   there, from a function given to
 *   [method@Stagewright.Surface.call_isolated_async]: `{key, world, fp,
 *   role, name}`
 * @error: where to put `BAD_ARGUMENT` (not a handle) or `REF_NOT_FOUND`
 *   (the element's document has gone since)
 *
 * Gives the element a plugin's page-side code found a ref, as a selector
 * target gets one (`docs/page-ops.md`): its ref if it has one, else a new
 * one. Any tool or method that takes a ref then acts on it.
 *
 * Returns: (transfer full) (nullable): the element's ref
 *
 * Since: 1.0
 */
StwElementRef *
stw_surface_bind_element_ref (StwSurface  *self,
                              JsonObject  *handle,
                              GError     **error)
{
  gint64 world, current;
  guint ref;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (handle != NULL, NULL);

  world = json_object_get_int_member_with_default (handle, "world", 0);
  if (world <= 0 || json_object_get_int_member_with_default (handle, "key", 0) <= 0)
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            "Not an element handle: it needs the key and world "
                                                            "that globalThis.__stagewright.handleOf () answers"));
      return NULL;
    }
  /* A key means something only in the world that gave it. */
  current = _stw_surface_get_world_id (self);
  if (stw_surface_is_closed (self) || (current != 0 && current != world))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_REF_NOT_FOUND, "The element's document in %s is gone",
                                                    stw_surface_get_id (self)));
      return NULL;
    }
  ref = _stw_surface_bind_ref (self, world, handle);
  return stw_element_ref_new (ref, stw_json_get_string (handle, "role") ?: "",
                              stw_json_get_string (handle, "name") ?: "", stw_surface_get_id (self));
}
