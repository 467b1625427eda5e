/* stw-invocation.c: one call of a tool, completed later
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-envelope.h"
#include "stw-error-registry.h"
#include "stw-invocation-private.h"
#include "stw-json-private.h"
#include "stw-tool-private.h"

/**
 * StwInvocation:
 *
 * One call of a [class@Stagewright.Tool]: the validated arguments (with schema defaults
 * filled in), the resolved session, a cancellable, and a progress
 * reporter. The tool completes it exactly once with
 * [method@Stagewright.Invocation.return_value] or [method@Stagewright.Invocation.return_error], now or
 * later — the shape of jsonrpc-glib's handle-call and reply.
 *
 * Completing twice is harmless: when the dispatcher has already answered
 * (the operation backstop fired, or the client cancelled), the late answer
 * is dropped.
 *
 * Since: 1.0
 */

struct _StwInvocation
{
  GObject                parent_instance;

  StwDispatcher         *dispatcher;   /* weak: the dispatcher outlives its calls */
  StwTool               *tool;
  JsonObject            *arguments;
  GCancellable          *cancellable;
  StwSession            *session;      /* held for the call: a stop may end it meanwhile */
  char                  *session_id;
  char                  *client_id;    /* the MCP client that made the call, or NULL */
  JsonObject            *envelope;
  JsonArray             *images;       /* MCP image content items, or NULL */
  gint64                 started_us;
  StwInvocationDoneFunc  done;
  gpointer               done_data;
  StwInvocationReachFunc reach;        /* who may reach which app: the caller's server */
  gpointer               reach_data;
  GDestroyNotify         reach_destroy;
  guint                  completed : 1;
};

G_DEFINE_FINAL_TYPE (StwInvocation, stw_invocation, G_TYPE_OBJECT)

enum {
  PROGRESS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
stw_invocation_finalize (GObject *object)
{
  StwInvocation *self = STW_INVOCATION (object);

  g_clear_object (&self->tool);
  g_clear_pointer (&self->arguments, json_object_unref);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->session);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->client_id, g_free);
  g_clear_pointer (&self->envelope, json_object_unref);
  g_clear_pointer (&self->images, json_array_unref);
  if (self->reach_destroy != NULL)
    self->reach_destroy (self->reach_data);

  G_OBJECT_CLASS (stw_invocation_parent_class)->finalize (object);
}

static void
answer_unimplemented (StwTool *tool,
                      GObject *invocation)
{
  stw_invocation_return_error_literal (STW_INVOCATION (invocation), "NOT_IMPLEMENTED",
                                       "This tool has no implementation");
}

static void
stw_invocation_class_init (StwInvocationClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_invocation_finalize;
  _stw_tool_set_unimplemented_func (answer_unimplemented);

  /**
   * StwInvocation::progress:
   * @self: the invocation
   * @progress: progress so far
   * @total: the total, or 0 when unknown
   * @message: (nullable): what is happening
   *
   * The tool reported progress. Advisory: the envelope is the only
   * completion signal.
   *
   * Since: 1.0
   */
  signals[PROGRESS] = g_signal_new ("progress",
                                    G_TYPE_FROM_CLASS (klass),
                                    G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 3,
                                    G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_STRING);
}

static void
stw_invocation_init (StwInvocation *self)
{
  self->cancellable = g_cancellable_new ();
  self->started_us = g_get_monotonic_time ();
}

StwInvocation *
_stw_invocation_new (StwDispatcher *dispatcher,
                     StwTool       *tool,
                     JsonObject    *arguments)
{
  StwInvocation *self = g_object_new (STW_TYPE_INVOCATION, NULL);

  self->dispatcher = dispatcher;
  self->tool = g_object_ref (tool);
  self->arguments = arguments ? json_object_ref (arguments) : json_object_new ();
  return self;
}

void
_stw_invocation_set_arguments (StwInvocation *self,
                               JsonObject    *arguments)
{
  g_return_if_fail (arguments != NULL);

  json_object_ref (arguments);
  g_clear_pointer (&self->arguments, json_object_unref);
  self->arguments = arguments;
}

void
_stw_invocation_begin (StwInvocation         *self,
                       StwInvocationDoneFunc  done,
                       gpointer               user_data)
{
  self->started_us = g_get_monotonic_time ();
  self->done = done;
  self->done_data = user_data;
}

/* The dispatcher gave up on the call (client cancelled it): later answers
 * from the tool are dropped, and the tool learns through the cancellable. */
void
_stw_invocation_abandon (StwInvocation *self)
{
  self->completed = TRUE;
  self->done = NULL;
  g_cancellable_cancel (self->cancellable);
}

/* The session the dispatcher resolved for the tool; also what the
 * envelope's _meta.session_id names. */
void
_stw_invocation_set_session (StwInvocation *self,
                             StwSession    *session)
{
  g_return_if_fail (STW_IS_SESSION (session));

  g_set_object (&self->session, session);
  stw_invocation_set_session_id (self, stw_session_get_id (session));
}

static void
complete (StwInvocation *self,
          JsonObject    *envelope)
{
  StwInvocationDoneFunc done = self->done;

  if (self->completed)
    {
      g_debug ("Dropping late answer of %s", stw_tool_get_name (self->tool));
      json_object_unref (envelope);
      return;
    }

  self->completed = TRUE;
  self->envelope = envelope;
  self->done = NULL;

  if (done != NULL)
    done (self, self->done_data);
}

/**
 * stw_invocation_get_tool:
 * @self: a [class@Stagewright.Invocation]
 *
 * Gets the tool being called.
 *
 * Returns: (transfer none): the tool being called
 *
 * Since: 1.0
 */
StwTool *
stw_invocation_get_tool (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), NULL);
  return self->tool;
}

/**
 * stw_invocation_get_dispatcher:
 * @self: a [class@Stagewright.Invocation]
 *
 * Gets the dispatcher running the call; %NULL once the dispatcher is
 * gone.
 *
 * Returns: (transfer none) (nullable): the dispatcher running the call
 *
 * Since: 1.0
 */
StwDispatcher *
stw_invocation_get_dispatcher (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), NULL);
  return self->dispatcher;
}

/**
 * stw_invocation_get_arguments:
 * @self: a [class@Stagewright.Invocation]
 *
 * The arguments, validated against the tool's input schema and with its
 * defaults filled in.
 *
 * Returns: (transfer none): the arguments
 *
 * Since: 1.0
 */
JsonObject *
stw_invocation_get_arguments (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), NULL);
  return self->arguments;
}

/**
 * stw_invocation_get_cancellable:
 * @self: a [class@Stagewright.Invocation]
 *
 * Cancelled when the client cancels the call or the operation backstop
 * fires; asynchronous work of the tool should pass it on.
 *
 * Returns: (transfer none): the cancellable
 *
 * Since: 1.0
 */
GCancellable *
stw_invocation_get_cancellable (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), NULL);
  return self->cancellable;
}

/**
 * stw_invocation_get_session:
 * @self: a [class@Stagewright.Invocation]
 *
 * The session the call acts on, as the dispatcher resolved it before
 * invoking the tool, for tools whose
 * [property@Stagewright.Tool:session-requirement] asks for one: never
 * %NULL for a tool that requires a session, %NULL for a tool that needs
 * none, or that takes one optionally while none is live.
 *
 * Returns: (transfer none) (nullable): the session
 *
 * Since: 1.0
 */
StwSession *
stw_invocation_get_session (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), NULL);
  return self->session;
}

/**
 * stw_invocation_get_session_id:
 * @self: a [class@Stagewright.Invocation]
 *
 * Gets the id of the session the call resolved to, if it needs one and
 * one was found.
 *
 * Returns: (transfer none) (nullable): the session the call resolved to
 *
 * Since: 1.0
 */
const char *
stw_invocation_get_session_id (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), NULL);
  return self->session_id;
}

/**
 * stw_invocation_set_session_id:
 * @self: a [class@Stagewright.Invocation]
 * @session_id: (nullable): the session the call resolved to
 *
 * Records the session for the envelope's `_meta.session_id`.
 *
 * Since: 1.0
 */
void
stw_invocation_set_session_id (StwInvocation *self,
                               const char    *session_id)
{
  g_return_if_fail (STW_IS_INVOCATION (self));

  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
}

/**
 * stw_invocation_get_elapsed_ms:
 * @self: a [class@Stagewright.Invocation]
 *
 * Gets how long the call has been running.
 *
 * Returns: milliseconds since the call started
 *
 * Since: 1.0
 */
gint64
stw_invocation_get_elapsed_ms (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), 0);
  return (g_get_monotonic_time () - self->started_us) / 1000;
}

/**
 * stw_invocation_report_progress:
 * @self: a [class@Stagewright.Invocation]
 * @progress: progress so far
 * @total: the total, or 0 when unknown
 * @message: (nullable): what is happening
 *
 * Reports progress; emits [signal@Stagewright.Invocation::progress].
 *
 * Since: 1.0
 */
void
stw_invocation_report_progress (StwInvocation *self,
                                double         progress,
                                double         total,
                                const char    *message)
{
  g_return_if_fail (STW_IS_INVOCATION (self));

  if (self->completed)
    return;
  g_signal_emit (self, signals[PROGRESS], 0, progress, total, message);
}

/**
 * stw_invocation_return_value:
 * @self: a [class@Stagewright.Invocation]
 * @payload: (nullable): the result fields
 *
 * Completes the call successfully.
 *
 * Since: 1.0
 */
void
stw_invocation_return_value (StwInvocation *self,
                             JsonObject    *payload)
{
  g_return_if_fail (STW_IS_INVOCATION (self));

  complete (self, stw_envelope_new_success (payload, stw_invocation_get_elapsed_ms (self),
                                            self->session_id));
}

/**
 * stw_invocation_add_image:
 * @self: a [class@Stagewright.Invocation]
 * @image: an encoded image
 * @mime_type: its type: `image/png` or `image/jpeg`
 *
 * Adds an image to the answer, before the call completes: over MCP it
 * follows the envelope as an `image` content item of the tool result
 * (outside the envelope, so `_meta.estimated_tokens` does not count it).
 * Only a successful answer carries its images.
 *
 * Since: 1.0
 */
void
stw_invocation_add_image (StwInvocation *self,
                          GBytes        *image,
                          const char    *mime_type)
{
  g_autofree char *data = NULL;
  JsonObject *item;

  g_return_if_fail (STW_IS_INVOCATION (self));
  g_return_if_fail (image != NULL);
  g_return_if_fail (mime_type != NULL);
  g_return_if_fail (!self->completed);

  data = g_base64_encode (g_bytes_get_data (image, NULL), g_bytes_get_size (image));
  item = json_object_new ();
  json_object_set_string_member (item, "type", "image");
  json_object_set_string_member (item, "data", data);
  json_object_set_string_member (item, "mimeType", mime_type);
  if (self->images == NULL)
    self->images = json_array_new ();
  json_array_add_object_element (self->images, item);
}

JsonArray *
_stw_invocation_get_images (StwInvocation *self)
{
  return self->images;
}

/**
 * stw_invocation_return_json:
 * @self: a [class@Stagewright.Invocation]
 * @json: the result fields as the text of a JSON object
 *
 * Completes the call successfully with a payload given as JSON text (the
 * convenient form for Python and JavaScript tools). Text that is not a
 * JSON object completes the call with `INTERNAL_ERROR`.
 *
 * Since: 1.0
 */
void
stw_invocation_return_json (StwInvocation *self,
                            const char    *json)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (STW_IS_INVOCATION (self));
  g_return_if_fail (json != NULL);

  node = stw_json_parse (json, -1, &error);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      stw_invocation_return_error_literal (self, "INTERNAL_ERROR",
                                           "The tool returned a result that is not a JSON object");
      return;
    }

  stw_invocation_return_value (self, json_node_get_object (node));
}

/**
 * stw_invocation_return_error:
 * @self: a [class@Stagewright.Invocation]
 * @error: the failure; errors outside %STW_ERROR become `INTERNAL_ERROR`
 *
 * Completes the call with an error envelope. A %NULL @error is a bug in
 * the tool; the call is still answered, with `INTERNAL_ERROR`.
 *
 * Since: 1.0
 */
void
stw_invocation_return_error (StwInvocation *self,
                             const GError  *error)
{
  g_return_if_fail (STW_IS_INVOCATION (self));

  /* A tool bug, but the agent still gets an answer rather than a hang. */
  if (error == NULL)
    {
      g_critical ("%s completed its call with a NULL error", stw_tool_get_name (self->tool));
      stw_invocation_return_error_literal (self, "INTERNAL_ERROR", NULL);
      return;
    }

  complete (self, stw_envelope_new_error (error, stw_invocation_get_elapsed_ms (self),
                                          self->session_id));
}

/**
 * stw_invocation_return_error_literal:
 * @self: a [class@Stagewright.Invocation]
 * @code_name: a registered code, e.g. `"NOT_RUNNING"`
 * @message: (nullable): a human message; %NULL uses the code's hint
 *
 * Completes the call with an error envelope for @code_name.
 *
 * Since: 1.0
 */
void
stw_invocation_return_error_literal (StwInvocation *self,
                                     const char    *code_name,
                                     const char    *message)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (STW_IS_INVOCATION (self));
  g_return_if_fail (code_name != NULL);

  error = stw_error_new_literal (code_name, message);
  stw_invocation_return_error (self, error);
}

/**
 * stw_invocation_return_error_json:
 * @self: a [class@Stagewright.Invocation]
 * @json: `{"code": …, "error"?: …, "hint"?: …, "details"?: {…},
 *   "next_actions"?: […], "similar_refs"?: […]}` as JSON text
 *
 * Completes the call with an error envelope described as JSON: the form
 * Python and JavaScript tools use, since the #GError decorations
 * ([func@Stagewright.Error.set_details] and friends) act on a copy in bindings. An
 * unregistered code, or text that is not such an object, completes the
 * call with `INTERNAL_ERROR`.
 *
 * Since: 1.0
 */
void
stw_invocation_return_error_json (StwInvocation *self,
                                  const char    *json)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *spec;
  const char *code;

  g_return_if_fail (STW_IS_INVOCATION (self));
  g_return_if_fail (json != NULL);

  node = stw_json_parse (json, -1, NULL);
  spec = node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  code = spec ? json_object_get_string_member_with_default (spec, "code", NULL) : NULL;
  if (code == NULL || !stw_error_registry_contains (stw_error_registry_get_default (), code))
    {
      stw_invocation_return_error_literal (self, "INTERNAL_ERROR",
                                           "The tool returned an error that is not a registered code");
      return;
    }

  error = stw_error_new_literal (code, json_object_get_string_member_with_default (spec, "error", NULL));
  if (json_object_get_string_member_with_default (spec, "hint", NULL) != NULL)
    stw_error_set_hint (error, json_object_get_string_member (spec, "hint"));
  if (json_object_has_member (spec, "details") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (spec, "details")))
    stw_error_set_details (error, json_object_get_object_member (spec, "details"));
  if (json_object_has_member (spec, "similar_refs") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (spec, "similar_refs")))
    stw_error_set_similar_refs (error, json_object_get_array_member (spec, "similar_refs"));
  if (json_object_has_member (spec, "next_actions") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (spec, "next_actions")))
    {
      JsonArray *actions = json_object_get_array_member (spec, "next_actions");
      for (guint i = 0; i < json_array_get_length (actions); i++)
        {
          JsonNode *action = json_array_get_element (actions, i);
          if (JSON_NODE_HOLDS_VALUE (action) && json_node_get_value_type (action) == G_TYPE_STRING)
            stw_error_add_next_action (error, json_node_get_string (action));
        }
    }
  stw_invocation_return_error (self, error);
}

/**
 * stw_invocation_is_completed:
 * @self: a [class@Stagewright.Invocation]
 *
 * Checks whether the call has been answered or abandoned.
 *
 * Returns: whether the call has been answered (or abandoned)
 *
 * Since: 1.0
 */
gboolean
stw_invocation_is_completed (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), FALSE);
  return self->completed;
}

/**
 * stw_invocation_get_envelope:
 * @self: a [class@Stagewright.Invocation]
 *
 * Gets the answer envelope, once the call has completed.
 *
 * Returns: (transfer none) (nullable): the envelope once completed
 *
 * Since: 1.0
 */
JsonObject *
stw_invocation_get_envelope (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), NULL);
  return self->envelope;
}

/* Set by the MCP server on a client's call: which apps it may reach. */
void
_stw_invocation_set_reach_func (StwInvocation          *self,
                                StwInvocationReachFunc  func,
                                gpointer                user_data,
                                GDestroyNotify          destroy)
{
  g_return_if_fail (STW_IS_INVOCATION (self));

  if (self->reach_destroy != NULL)
    self->reach_destroy (self->reach_data);
  self->reach = func;
  self->reach_data = user_data;
  self->reach_destroy = destroy;
}

/* Set by the MCP server on a client's call: which client made it. */
void
_stw_invocation_set_client_id (StwInvocation *self,
                               const char    *client_id)
{
  g_return_if_fail (STW_IS_INVOCATION (self));

  g_free (self->client_id);
  self->client_id = g_strdup (client_id);
}

/**
 * stw_invocation_get_client_id:
 * @self: a [class@Stagewright.Invocation]
 *
 * Gets the MCP client that made the call: the same id for every call of
 * one client, a different one for each client (over HTTP, the client's
 * MCP session id; over stdio, `stdio`). Calls made through the library
 * rather than by an MCP client (a replay, a test) have none.
 *
 * The id over HTTP is the client's credential: compare it, never write
 * it down (a trace names clients by the order they first called).
 *
 * Returns: (transfer none) (nullable): the client's id, or %NULL
 *
 * Since: 1.0
 */
const char *
stw_invocation_get_client_id (StwInvocation *self)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), NULL);
  return self->client_id;
}

/**
 * stw_invocation_may_reach:
 * @self: a [class@Stagewright.Invocation]
 * @pid: a process the call would act on, or 0
 * @port: a loopback TCP port the call would connect to, or 0
 *
 * Whether the caller may reach the app that @pid or @port belongs to. Over
 * MCP, an app belongs to the client that launched, attached or injected
 * it, and no other client reaches it (unless the server shares apps): a
 * tool that takes a pid or a port asks before it acts, and one that lists
 * processes or endpoints leaves out what this answers %FALSE for.
 *
 * Returns: %FALSE when the app is another client's; %TRUE otherwise, and
 *   always for a call made through the library, not over MCP
 *
 * Since: 1.0
 */
gboolean
stw_invocation_may_reach (StwInvocation *self,
                          GPid           pid,
                          guint          port)
{
  g_return_val_if_fail (STW_IS_INVOCATION (self), FALSE);

  return self->reach == NULL || self->reach (pid, port, self->reach_data);
}
