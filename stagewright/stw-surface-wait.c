/* stw-surface-wait.c: waits and expectations of StwSurface
 *
 * A wait is one promise in the page (stagewright/js/wait.js) that checks
 * its condition on every change of the document and on a short interval,
 * so a condition that comes true is seen within one poll, without a
 * round trip per check. The DevTools call awaiting that promise has a
 * timeout of its own, so a long wait is cut into slices of at most
 * SLICE_MS: a slice that ends unmet answers its last observation and the
 * next one starts, in the same document or, after a navigation, in the
 * new one. Cancelling stops the page's promise too.
 *
 * Windows, navigations and loads are not in any one document: those
 * waits listen to the DevTools events instead.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-deadline-private.h"
#include "stw-element-ref-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-regex-private.h"
#include "stw-surface-private.h"
#include "stw-sync-private.h"
#include "stw-transport.h"
#include "stw-wait.h"

/* The longest one page call awaits: well under the transport's 15 s. */
#define SLICE_MS 10000
/* Between tries after a failure that a navigation explains. */
#define RETRY_DELAY_MS 50
#define MAX_TRANSIENT_FAILURES 100
#define MAX_EXPECTED_CHARS 10000
#define MAX_EVENT_NAME_CHARS 64

/* --- arguments ------------------------------------------------------------ */

static GError *
bad_argument (const char *field,
              const char *message)
{
  GError *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "%s", message);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "field", field);
  stw_error_set_details (error, details);
  return error;
}

static guint
clamp_timeout (guint timeout_ms)
{
  return MIN (timeout_ms, STW_WAIT_MAX_TIMEOUT_MS);
}

/* A predicate over text and what it expects, as the page takes them. */
static GError *
check_predicate (const char *predicate,
                 const char *expected,
                 const char *flags,
                 gboolean    negations)
{
  static const char * const predicates[] = { "equals", "contains", "matches", "not_equals", "not_contains", NULL };
  g_autoptr(GError) error = NULL;

  if (predicate == NULL || !g_strv_contains (predicates, predicate) ||
      (!negations && g_str_has_prefix (predicate, "not_")))
    return bad_argument ("predicate", _("Give one of equals, contains or a regular expression"));
  if (expected == NULL || !g_utf8_validate (expected, -1, NULL) ||
      g_utf8_strlen (expected, -1) > MAX_EXPECTED_CHARS)
    return bad_argument (predicate, _("The expected text must be valid UTF-8 of at most 10000 characters"));
  if (g_str_equal (predicate, "matches"))
    {
      if (!_stw_regex_check (expected, flags, predicate, &error))
        return g_steal_pointer (&error);
    }
  else if (flags != NULL && !_stw_regex_check ("", flags, "flags", &error))
    return g_steal_pointer (&error);
  return NULL;
}

/* A wanted state: at least one of the twelve flags, only `checked` wanted
 * mixed (as stw_element_state_new_from_json() reads the tools' form). */
static GError *
check_state (const StwElementState *state)
{
  if (state == NULL || state->known == 0)
    return bad_argument ("state", _("state must name at least one of the twelve state flags"));
  if (state->mixed & ~STW_STATE_CHECKED)
    return bad_argument ("state", _("Each state flag must be true or false"));
  return NULL;
}

/* --- one wait in the page ------------------------------------------------- */

typedef struct
{
  StwTarget  *target;      /* NULL: the op takes no element */
  char       *op;
  JsonObject *args;        /* the op's, but for id and budget */
  gboolean    expect;      /* unmet: EXPECTATION_FAILED, else WAIT_TIMEOUT */
  JsonObject *details;     /* what an unmet wait reports, before `actual` */
  const char *actual;      /* which member of an observation is `actual` */
  char       *message;
  guint       timeout_ms;
  gint64      deadline;    /* monotonic, µs */
  guint       id;
  guint       transient;
  JsonObject *last;        /* the last observation */
  StwSurface *ran_in;      /* where the page's promise runs */
  GSource    *delay;
} PageWait;

static void
page_wait_free (PageWait *wait)
{
  g_clear_pointer (&wait->target, stw_target_free);
  g_free (wait->op);
  g_clear_pointer (&wait->args, json_object_unref);
  g_clear_pointer (&wait->details, json_object_unref);
  g_free (wait->message);
  g_clear_pointer (&wait->last, json_object_unref);
  g_clear_object (&wait->ran_in);
  if (wait->delay != NULL)
    {
      g_source_destroy (wait->delay);
      g_source_unref (wait->delay);
    }
  g_free (wait);
}

static void run_slice (GTask *task);

/* Tells the page to settle a promise the caller no longer awaits; its
 * answer matters to nobody. */
static void
stop_in_page (StwSurface *surface,
              guint       id)
{
  g_autoptr(JsonObject) args = json_object_new ();

  if (surface == NULL || stw_surface_is_closed (surface))
    return;
  json_object_set_int_member (args, "id", id);
  _stw_surface_call_page_async (surface, "waitStop", args, NULL, NULL, NULL);
}

static GError *
unmet_error (PageWait *wait)
{
  GError *error = stw_error_new (wait->expect ? "EXPECTATION_FAILED" : "WAIT_TIMEOUT", "%s", wait->message);
  g_autoptr(JsonObject) details = json_object_new ();
  JsonNode *actual = wait->last && wait->actual ? json_object_get_member (wait->last, wait->actual) : NULL;

  stw_json_object_copy_members (details, wait->details, NULL);
  if (wait->actual != NULL)
    json_object_set_member (details, g_str_equal (wait->actual, "state") ? "last_state" : "actual",
                            actual ? json_node_copy (actual) : json_node_new (JSON_NODE_NULL));
  if (wait->expect && actual != NULL && g_str_equal (wait->actual, "state"))
    json_object_set_member (details, "actual", json_node_copy (actual));
  if (wait->last != NULL && json_object_has_member (wait->last, "target") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (wait->last, "target")))
    json_object_set_member (details, "target", json_node_copy (json_object_get_member (wait->last, "target")));
  /* What a selector wait saw last. */
  for (const char * const *seen = (const char * const[]) { "attached", "visible", NULL }; *seen; seen++)
    if (wait->last != NULL && json_object_has_member (wait->last, *seen))
      json_object_set_member (details, *seen, json_node_copy (json_object_get_member (wait->last, *seen)));
  json_object_set_int_member (details, "timeout_ms", wait->timeout_ms);
  stw_error_set_details (error, details);
  if (!wait->expect)
    stw_error_set_hint (error, _("Not met in time. Raise timeoutMs, or check the condition with a snapshot."));
  return error;
}

static gboolean
on_retry (gpointer user_data)
{
  GTask *task = user_data;
  PageWait *wait = g_task_get_task_data (task);

  g_clear_pointer (&wait->delay, g_source_unref);
  if (g_task_return_error_if_cancelled (task))
    g_object_unref (task);
  else
    run_slice (task);
  return G_SOURCE_REMOVE;
}

static void
on_slice (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  GTask *task = user_data;
  PageWait *wait = g_task_get_task_data (task);
  StwSurface *surface = STW_SURFACE (object);
  g_autoptr(StwSurface) acted_on = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  gboolean time_left;

  if (wait->target != NULL)
    answer = _stw_surface_element_op_finish (surface, result, &acted_on, &error);
  else
    {
      g_autoptr(JsonNode) value = _stw_surface_call_page_finish (surface, result, NULL, &error);

      if (value != NULL && JSON_NODE_HOLDS_OBJECT (value))
        answer = json_object_ref (json_node_get_object (value));
      else if (value != NULL)
        error = stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("The page answered no observation"));
      acted_on = g_object_ref (surface);
    }
  if (acted_on != NULL)
    g_set_object (&wait->ran_in, acted_on);

  time_left = g_get_monotonic_time () < wait->deadline;
  if (error != NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        stop_in_page (wait->ran_in, wait->id);
      /* The document went while the page awaited (a navigation, twice in
       * one slice): go on in the next one. */
      else if (error->domain == STW_CDP_ERROR && time_left && wait->transient++ < MAX_TRANSIENT_FAILURES)
        {
          wait->delay = g_timeout_source_new (RETRY_DELAY_MS);
          g_source_set_callback (wait->delay, on_retry, task, NULL);
          g_source_attach (wait->delay, g_task_get_context (task));
          return;
        }
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }

  if (json_object_get_boolean_member_with_default (answer, "done", FALSE))
    {
      g_task_return_pointer (task, g_steal_pointer (&answer), (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  g_clear_pointer (&wait->last, json_object_unref);
  wait->last = g_steal_pointer (&answer);
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  if (time_left)
    {
      run_slice (task);
      return;
    }
  g_task_return_error (task, unmet_error (wait));
  g_object_unref (task);
}

static void
run_slice (GTask *task)
{
  PageWait *wait = g_task_get_task_data (task);
  StwSurface *self = g_task_get_source_object (task);
  gint64 left_ms = MAX (0, (wait->deadline - g_get_monotonic_time ()) / 1000);
  gint64 slice = MIN (left_ms, SLICE_MS);
  g_autoptr(JsonObject) args = json_object_new ();

  stw_json_object_copy_members (args, wait->args, NULL);
  json_object_set_int_member (args, "id", wait->id);
  json_object_set_int_member (args, "timeoutMs", slice);
  /* A slice retried in a new document (the surface does that once) keeps
   * its end: both clocks are this machine's. */
  json_object_set_int_member (args, "until", g_get_real_time () / 1000 + slice);
  if (wait->target != NULL)
    _stw_surface_element_op_async (self, wait->target, wait->op, args, g_task_get_cancellable (task), on_slice, task);
  else
    _stw_surface_call_page_async (self, wait->op, args, g_task_get_cancellable (task), on_slice, task);
}

static void
fail_now (StwSurface          *self,
          gpointer             source_tag,
          GError              *error,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* Starts a wait; takes @args and @details. */
static void
start_page_wait (StwSurface          *self,
                 const StwTarget     *target,
                 const char          *op,
                 JsonObject          *args,
                 gboolean             expect,
                 JsonObject          *details,
                 const char          *actual,
                 char                *message,
                 guint                timeout_ms,
                 gpointer             source_tag,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  static guint next_id;
  g_autoptr(GCancellable) deadline = _stw_deadline_new (cancellable, clamp_timeout (timeout_ms));
  GTask *task = g_task_new (self, deadline, callback, user_data);
  PageWait *wait = g_new0 (PageWait, 1);

  g_task_set_source_tag (task, source_tag);
  wait->target = target ? stw_target_copy (target) : NULL;
  wait->op = g_strdup (op);
  wait->args = args;
  wait->expect = expect;
  wait->details = details ? details : json_object_new ();
  wait->actual = actual;
  wait->message = message;
  wait->timeout_ms = clamp_timeout (timeout_ms);
  wait->deadline = g_get_monotonic_time () + (gint64) wait->timeout_ms * 1000;
  wait->id = ++next_id;
  g_task_set_task_data (task, wait, (GDestroyNotify) page_wait_free);
  run_slice (task);
}

/* The observation a met wait answered, or NULL with @error set. */
static JsonObject *
finish_page_wait (StwSurface     *self,
                  GAsyncResult   *result,
                  gpointer        source_tag,
                  StwElementRef **element,
                  GError        **error)
{
  PageWait *wait;
  JsonObject *answer;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  wait = g_task_get_task_data (G_TASK (result));
  answer = g_task_propagate_pointer (G_TASK (result), error);
  if (element != NULL)
    *element = _stw_element_ref_new_from_json (stw_json_get_object (answer, "target"),
                                               wait && wait->ran_in ? stw_surface_get_id (wait->ran_in) : NULL);
  return answer;
}

static char *
dup_actual (JsonObject *answer)
{
  JsonNode *node = answer ? json_object_get_member (answer, "actual") : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? g_strdup (json_node_get_string (node)) : NULL;
}

static StwElementState *
dup_state (JsonObject *answer)
{
  JsonObject *state = stw_json_get_object (answer, "state");

  return state != NULL ? _stw_element_state_new_from_page (state) : NULL;
}

/* --- wait_for_selector, expect_visible ------------------------------------ */

/**
 * stw_surface_wait_for_selector_async:
 * @self: a #StwSurface
 * @target: the element: a ref (in any surface of the session) or a
 *   selector (in @self)
 * @state: (nullable): `attached`, `visible` (the default), `hidden` (absent
 *   or not visible) or `detached`
 * @timeout_ms: how long to wait, at most %STW_WAIT_MAX_TIMEOUT_MS
 * @cancellable: (nullable): a #GCancellable; cancelling stops the wait in
 *   the page too
 * @callback: called when the element is in @state, or time is up
 * @user_data: data for @callback
 *
 * Waits, in the page, until the element is in @state. A navigation meanwhile
 * does not end the wait: it goes on in the new document.
 *
 * Fails with `WAIT_TIMEOUT` (details: `state`, `attached`, `visible`),
 * `REF_NOT_FOUND`, `BAD_ARGUMENT`, `NOT_RUNNING`, `SURFACE_CLOSED` or
 * `CDP_DISCONNECTED`.
 *
 * Since: 1.0
 */
void
stw_surface_wait_for_selector_async (StwSurface          *self,
                                     const StwTarget     *target,
                                     const char          *state,
                                     guint                timeout_ms,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  static const char * const states[] = { "attached", "visible", "hidden", "detached", NULL };
  JsonObject *args, *details;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);

  if (state == NULL)
    state = "visible";
  if (!g_strv_contains (states, state))
    {
      fail_now (self, stw_surface_wait_for_selector_async,
                bad_argument ("state", _("state must be attached, visible, hidden or detached")), callback, user_data);
      return;
    }
  args = json_object_new ();
  json_object_set_string_member (args, "state", state);
  details = json_object_new ();
  json_object_set_string_member (details, "state", state);
  start_page_wait (self, target, "waitSelector", args, FALSE, details, NULL,
                   g_strdup_printf (_("The element was not %s within %u ms"), state, clamp_timeout (timeout_ms)),
                   timeout_ms, stw_surface_wait_for_selector_async, cancellable, callback, user_data);
}

/**
 * stw_surface_wait_for_selector_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element,
 *   `{ref, role, name}`; %NULL when it is absent (hidden or detached)
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.wait_for_selector_async].
 *
 * Returns: %TRUE when the element reached the state
 *
 * Since: 1.0
 */
gboolean
stw_surface_wait_for_selector_finish (StwSurface     *self,
                                      GAsyncResult   *result,
                                      StwElementRef **element,
                                      GError        **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_wait_for_selector_async, element, error);

  return answer != NULL;
}

/**
 * stw_surface_wait_for_selector_sync:
 * @self: a #StwSurface
 * @target: the element
 * @state: (nullable): the state to wait for
 * @timeout_ms: how long to wait
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.wait_for_selector_async].
 *
 * Returns: %TRUE when the element reached the state
 *
 * Since: 1.0
 */
gboolean
stw_surface_wait_for_selector_sync (StwSurface       *self,
                                    const StwTarget  *target,
                                    const char       *state,
                                    guint             timeout_ms,
                                    StwElementRef   **element,
                                    GCancellable     *cancellable,
                                    GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  gboolean met;

  g_return_val_if_fail (STW_IS_SURFACE (self), FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return FALSE;
  stw_surface_wait_for_selector_async (self, target, state, timeout_ms,
                                       cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  met = stw_surface_wait_for_selector_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return met;
}

/**
 * stw_surface_expect_visible_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @timeout_ms: how long to retry, at most %STW_WAIT_MAX_TIMEOUT_MS; 0
 *   checks once
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the outcome
 * @user_data: data for @callback
 *
 * Expects the element to be (or become, within @timeout_ms) visible.
 *
 * Fails with `EXPECTATION_FAILED` (details: `expected`, `actual`:
 * `visible`, `hidden` or `absent`), `REF_NOT_FOUND`, `BAD_ARGUMENT`,
 * `NOT_RUNNING`, `SURFACE_CLOSED` or `CDP_DISCONNECTED`.
 *
 * Since: 1.0
 */
void
stw_surface_expect_visible_async (StwSurface          *self,
                                  const StwTarget     *target,
                                  guint                timeout_ms,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  JsonObject *args, *details;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);

  args = json_object_new ();
  json_object_set_string_member (args, "state", "visible");
  details = json_object_new ();
  json_object_set_string_member (details, "expected", "visible");
  start_page_wait (self, target, "waitSelector", args, TRUE, details, "seen",
                   g_strdup (_("The element is not visible")),
                   timeout_ms, stw_surface_expect_visible_async, cancellable, callback, user_data);
}

/**
 * stw_surface_expect_visible_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element,
 *   `{ref, role, name}`
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.expect_visible_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_visible_finish (StwSurface     *self,
                                   GAsyncResult   *result,
                                   StwElementRef **element,
                                   GError        **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_expect_visible_async, element, error);

  return answer != NULL;
}

/**
 * stw_surface_expect_visible_sync:
 * @self: a #StwSurface
 * @target: the element
 * @timeout_ms: how long to retry
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.expect_visible_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_visible_sync (StwSurface       *self,
                                 const StwTarget  *target,
                                 guint             timeout_ms,
                                 StwElementRef   **element,
                                 GCancellable     *cancellable,
                                 GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  gboolean met;

  g_return_val_if_fail (STW_IS_SURFACE (self), FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return FALSE;
  stw_surface_expect_visible_async (self, target, timeout_ms, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  met = stw_surface_expect_visible_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return met;
}

/* --- wait_for_state, expect_state ------------------------------------------ */

static void
start_state_wait (StwSurface            *self,
                  const StwTarget       *target,
                  const StwElementState *state,
                  gboolean               expect,
                  guint                  timeout_ms,
                  gpointer               source_tag,
                  GCancellable          *cancellable,
                  GAsyncReadyCallback    callback,
                  gpointer               user_data)
{
  GError *error = check_state (state);
  JsonObject *args, *details;

  if (error != NULL)
    {
      fail_now (self, source_tag, error, callback, user_data);
      return;
    }
  args = json_object_new ();
  json_object_set_object_member (args, "state", _stw_element_state_to_wanted_json (state));
  details = json_object_new ();
  json_object_set_object_member (details, "expected", _stw_element_state_to_wanted_json (state));
  start_page_wait (self, target, "waitState", args, expect, details, "state",
                   expect ? g_strdup (_("The element is not in the state expected"))
                          : g_strdup_printf (_("The element did not reach the state within %u ms"), clamp_timeout (timeout_ms)),
                   timeout_ms, source_tag, cancellable, callback, user_data);
}

/**
 * stw_surface_wait_for_state_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @state: the wanted state: its known flags are the mask of the flags
 *   that matter, its values their wanted values (only
 *   %STW_STATE_CHECKED may be wanted mixed)
 * @timeout_ms: how long to wait, at most %STW_WAIT_MAX_TIMEOUT_MS
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when every flag has its value, or time is up
 * @user_data: data for @callback
 *
 * Waits, in the page, until the element's state has every flag of @state
 * at once.
 *
 * Fails with `WAIT_TIMEOUT` (details: `expected`, `last_state`),
 * `REF_NOT_FOUND`, `BAD_ARGUMENT`, `NOT_RUNNING`, `SURFACE_CLOSED` or
 * `CDP_DISCONNECTED`.
 *
 * Since: 1.0
 */
void
stw_surface_wait_for_state_async (StwSurface            *self,
                                  const StwTarget       *target,
                                  const StwElementState *state,
                                  guint                  timeout_ms,
                                  GCancellable          *cancellable,
                                  GAsyncReadyCallback    callback,
                                  gpointer               user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  start_state_wait (self, target, state, FALSE, timeout_ms, stw_surface_wait_for_state_async,
                    cancellable, callback, user_data);
}

/**
 * stw_surface_wait_for_state_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element,
 *   `{ref, role, name}`
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.wait_for_state_async].
 *
 * Returns: (transfer full) (nullable): the element's twelve flags when
 *   they matched
 *
 * Since: 1.0
 */
StwElementState *
stw_surface_wait_for_state_finish (StwSurface     *self,
                                   GAsyncResult   *result,
                                   StwElementRef **element,
                                   GError        **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_wait_for_state_async, element, error);

  return dup_state (answer);
}

/**
 * stw_surface_wait_for_state_sync:
 * @self: a #StwSurface
 * @target: the element
 * @state: the flags wanted
 * @timeout_ms: how long to wait
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.wait_for_state_async].
 *
 * Returns: (transfer full) (nullable): the element's flags
 *
 * Since: 1.0
 */
StwElementState *
stw_surface_wait_for_state_sync (StwSurface             *self,
                                 const StwTarget        *target,
                                 const StwElementState  *state,
                                 guint                   timeout_ms,
                                 StwElementRef         **element,
                                 GCancellable           *cancellable,
                                 GError                **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  StwElementState *flags;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (target != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_wait_for_state_async (self, target, state, timeout_ms, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  flags = stw_surface_wait_for_state_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return flags;
}

/**
 * stw_surface_expect_state_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @state: the expected state: its known flags are the mask of the flags
 *   that matter, its values their expected values (only
 *   %STW_STATE_CHECKED may be expected mixed)
 * @timeout_ms: how long to retry, at most %STW_WAIT_MAX_TIMEOUT_MS; 0
 *   checks once
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the outcome
 * @user_data: data for @callback
 *
 * Expects the element's state to have every flag of @state.
 *
 * Fails with `EXPECTATION_FAILED` (details: `expected`, `actual`,
 * `last_state`), and as [method@Stagewright.Surface.wait_for_state_async].
 *
 * Since: 1.0
 */
void
stw_surface_expect_state_async (StwSurface            *self,
                                const StwTarget       *target,
                                const StwElementState *state,
                                guint                  timeout_ms,
                                GCancellable          *cancellable,
                                GAsyncReadyCallback    callback,
                                gpointer               user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  start_state_wait (self, target, state, TRUE, timeout_ms, stw_surface_expect_state_async,
                    cancellable, callback, user_data);
}

/**
 * stw_surface_expect_state_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.expect_state_async].
 *
 * Returns: (transfer full) (nullable): the element's twelve flags when
 *   the expectation holds
 *
 * Since: 1.0
 */
StwElementState *
stw_surface_expect_state_finish (StwSurface     *self,
                                 GAsyncResult   *result,
                                 StwElementRef **element,
                                 GError        **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_expect_state_async, element, error);

  return dup_state (answer);
}

/**
 * stw_surface_expect_state_sync:
 * @self: a #StwSurface
 * @target: the element
 * @state: the flags expected
 * @timeout_ms: how long to retry
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.expect_state_async].
 *
 * Returns: (transfer full) (nullable): the element's flags
 *
 * Since: 1.0
 */
StwElementState *
stw_surface_expect_state_sync (StwSurface             *self,
                               const StwTarget        *target,
                               const StwElementState  *state,
                               guint                   timeout_ms,
                               StwElementRef         **element,
                               GCancellable           *cancellable,
                               GError                **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  StwElementState *flags;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (target != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_expect_state_async (self, target, state, timeout_ms, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  flags = stw_surface_expect_state_finish (self, result, element, error);
  _stw_sync_call_clear (&call);
  return flags;
}

/* --- expect_text, expect_value, assert_pattern ------------------------------ */

static void
start_text_wait (StwSurface          *self,
                 const StwTarget     *target,
                 const char          *source,
                 const char          *attribute,
                 const char          *predicate,
                 const char          *expected,
                 const char          *flags,
                 gboolean             once,
                 guint                timeout_ms,
                 gpointer             source_tag,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  GError *error = check_predicate (predicate, expected, flags, !once);
  JsonObject *args, *details;

  if (error == NULL && attribute != NULL &&
      (*attribute == '\0' || strlen (attribute) > 256 || !g_utf8_validate (attribute, -1, NULL)))
    error = bad_argument ("attribute", _("attribute must be 1 to 256 characters"));
  if (error != NULL)
    {
      fail_now (self, source_tag, error, callback, user_data);
      return;
    }
  args = json_object_new ();
  json_object_set_string_member (args, "source", attribute ? "attribute" : source);
  if (attribute != NULL)
    json_object_set_string_member (args, "name", attribute);
  json_object_set_string_member (args, "predicate", predicate);
  json_object_set_string_member (args, "expected", expected);
  if (flags != NULL)
    json_object_set_string_member (args, "flags", flags);
  /* A one-off assertion needs its element; an expectation waits for it. */
  json_object_set_boolean_member (args, "require", once);
  details = json_object_new ();
  json_object_set_string_member (details, "predicate", predicate);
  json_object_set_string_member (details, "expected", expected);
  start_page_wait (self, target, "waitText", args, TRUE, details, "actual",
                   g_strdup_printf (_("The %s does not match (%s)"),
                                    attribute ? "attribute" : g_str_equal (source, "value") ? "value" : "text", predicate),
                   once ? 0 : timeout_ms, source_tag, cancellable, callback, user_data);
}

/**
 * stw_surface_expect_text_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @predicate: `equals`, `contains`, `matches` (a JavaScript regular
 *   expression), `not_equals` or `not_contains`
 * @expected: the text, or the pattern
 * @flags: (nullable): the pattern's flags, of `imsu`
 * @timeout_ms: how long to retry, at most %STW_WAIT_MAX_TIMEOUT_MS; 0
 *   checks once
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the outcome
 * @user_data: data for @callback
 *
 * Expects the element's text (as [method@Stagewright.Surface.get_text_async]
 * reads it) to satisfy @predicate, checking on every change of the page
 * until it does or time is up. A pattern with a shape that can backtrack
 * exponentially is refused before it reaches the page.
 *
 * Fails with `EXPECTATION_FAILED` (details: `predicate`, `expected`,
 * `actual`), `BAD_ARGUMENT`, `REF_NOT_FOUND`, `NOT_RUNNING`,
 * `SURFACE_CLOSED` or `CDP_DISCONNECTED`.
 *
 * Since: 1.0
 */
void
stw_surface_expect_text_async (StwSurface          *self,
                               const StwTarget     *target,
                               const char          *predicate,
                               const char          *expected,
                               const char          *flags,
                               guint                timeout_ms,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  start_text_wait (self, target, "text", NULL, predicate, expected, flags, FALSE, timeout_ms,
                   stw_surface_expect_text_async, cancellable, callback, user_data);
}

/**
 * stw_surface_expect_text_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @actual: (out) (optional) (transfer full) (nullable): the text that
 *   matched
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.expect_text_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_text_finish (StwSurface     *self,
                                GAsyncResult   *result,
                                char          **actual,
                                StwElementRef **element,
                                GError        **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_expect_text_async, element, error);

  if (actual != NULL)
    *actual = dup_actual (answer);
  return answer != NULL;
}

/**
 * stw_surface_expect_text_sync:
 * @self: a #StwSurface
 * @target: the element
 * @predicate: how to compare
 * @expected: the text, or the pattern
 * @flags: (nullable): the pattern's flags
 * @timeout_ms: how long to retry
 * @actual: (out) (optional) (transfer full) (nullable): the text
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.expect_text_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_text_sync (StwSurface       *self,
                              const StwTarget  *target,
                              const char       *predicate,
                              const char       *expected,
                              const char       *flags,
                              guint             timeout_ms,
                              char            **actual,
                              StwElementRef   **element,
                              GCancellable     *cancellable,
                              GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  gboolean met;

  g_return_val_if_fail (STW_IS_SURFACE (self), FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return FALSE;
  stw_surface_expect_text_async (self, target, predicate, expected, flags,
                                 timeout_ms, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  met = stw_surface_expect_text_finish (self, result, actual, element, error);
  _stw_sync_call_clear (&call);
  return met;
}

/**
 * stw_surface_expect_value_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @predicate: as in [method@Stagewright.Surface.expect_text_async]
 * @expected: the value, or the pattern
 * @flags: (nullable): the pattern's flags, of `imsu`
 * @timeout_ms: how long to retry, at most %STW_WAIT_MAX_TIMEOUT_MS; 0
 *   checks once
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the outcome
 * @user_data: data for @callback
 *
 * Expects the control's value (as
 * [method@Stagewright.Surface.get_value_async] reads it) to satisfy
 * @predicate; a control without a value satisfies only the negative
 * predicates.
 *
 * Fails as [method@Stagewright.Surface.expect_text_async].
 *
 * Since: 1.0
 */
void
stw_surface_expect_value_async (StwSurface          *self,
                                const StwTarget     *target,
                                const char          *predicate,
                                const char          *expected,
                                const char          *flags,
                                guint                timeout_ms,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  start_text_wait (self, target, "value", NULL, predicate, expected, flags, FALSE, timeout_ms,
                   stw_surface_expect_value_async, cancellable, callback, user_data);
}

/**
 * stw_surface_expect_value_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @actual: (out) (optional) (transfer full) (nullable): the value that
 *   matched, %NULL for none
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.expect_value_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_value_finish (StwSurface     *self,
                                 GAsyncResult   *result,
                                 char          **actual,
                                 StwElementRef **element,
                                 GError        **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_expect_value_async, element, error);

  if (actual != NULL)
    *actual = dup_actual (answer);
  return answer != NULL;
}

/**
 * stw_surface_expect_value_sync:
 * @self: a #StwSurface
 * @target: the element
 * @predicate: how to compare
 * @expected: the value, or the pattern
 * @flags: (nullable): the pattern's flags
 * @timeout_ms: how long to retry
 * @actual: (out) (optional) (transfer full) (nullable): the value
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.expect_value_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_value_sync (StwSurface       *self,
                               const StwTarget  *target,
                               const char       *predicate,
                               const char       *expected,
                               const char       *flags,
                               guint             timeout_ms,
                               char            **actual,
                               StwElementRef   **element,
                               GCancellable     *cancellable,
                               GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  gboolean met;

  g_return_val_if_fail (STW_IS_SURFACE (self), FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return FALSE;
  stw_surface_expect_value_async (self, target, predicate, expected, flags,
                                  timeout_ms, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  met = stw_surface_expect_value_finish (self, result, actual, element, error);
  _stw_sync_call_clear (&call);
  return met;
}

/**
 * stw_surface_assert_pattern_async:
 * @self: a #StwSurface
 * @target: the element: a ref or a selector
 * @attribute: (nullable): the attribute to test; %NULL for the element's
 *   trimmed text
 * @predicate: `equals`, `contains` or `matches`
 * @expected: the text, or the pattern
 * @flags: (nullable): the pattern's flags, of `imsu`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the outcome
 * @user_data: data for @callback
 *
 * Tests the element once, without waiting; an absent attribute reads as
 * %NULL and matches nothing.
 *
 * Fails with `EXPECTATION_FAILED` (details: `predicate`, `expected`,
 * `actual`), `SELECTOR_NO_MATCH`, `REF_NOT_FOUND`, `BAD_ARGUMENT`,
 * `NOT_RUNNING`, `SURFACE_CLOSED` or `CDP_DISCONNECTED`.
 *
 * Since: 1.0
 */
void
stw_surface_assert_pattern_async (StwSurface          *self,
                                  const StwTarget     *target,
                                  const char          *attribute,
                                  const char          *predicate,
                                  const char          *expected,
                                  const char          *flags,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  start_text_wait (self, target, "text", attribute, predicate, expected, flags, TRUE, 0,
                   stw_surface_assert_pattern_async, cancellable, callback, user_data);
}

/**
 * stw_surface_assert_pattern_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @actual: (out) (optional) (transfer full) (nullable): what was tested
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.assert_pattern_async].
 *
 * Returns: %TRUE when the assertion holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_assert_pattern_finish (StwSurface     *self,
                                   GAsyncResult   *result,
                                   char          **actual,
                                   StwElementRef **element,
                                   GError        **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_assert_pattern_async, element, error);

  if (actual != NULL)
    *actual = dup_actual (answer);
  return answer != NULL;
}

/**
 * stw_surface_assert_pattern_sync:
 * @self: a #StwSurface
 * @target: the element
 * @attribute: (nullable): the attribute, or %NULL for the text
 * @predicate: how to compare
 * @expected: the text, or the pattern
 * @flags: (nullable): the pattern's flags
 * @actual: (out) (optional) (transfer full) (nullable): what was tested
 * @element: (out) (optional) (transfer full) (nullable): the element
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.assert_pattern_async].
 *
 * Returns: %TRUE when the assertion holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_assert_pattern_sync (StwSurface       *self,
                                 const StwTarget  *target,
                                 const char       *attribute,
                                 const char       *predicate,
                                 const char       *expected,
                                 const char       *flags,
                                 char            **actual,
                                 StwElementRef   **element,
                                 GCancellable     *cancellable,
                                 GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  gboolean met;

  g_return_val_if_fail (STW_IS_SURFACE (self), FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return FALSE;
  stw_surface_assert_pattern_async (self, target, attribute, predicate, expected,
                                    flags, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  met = stw_surface_assert_pattern_finish (self, result, actual, element, error);
  _stw_sync_call_clear (&call);
  return met;
}

/* --- expect_url ------------------------------------------------------------ */

/**
 * stw_surface_expect_url_async:
 * @self: a #StwSurface
 * @predicate: `contains` or `matches` (a JavaScript regular expression)
 * @expected: the text, or the pattern
 * @flags: (nullable): the pattern's flags, of `imsu`
 * @timeout_ms: how long to retry, at most %STW_WAIT_MAX_TIMEOUT_MS; 0
 *   checks once
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the outcome
 * @user_data: data for @callback
 *
 * Expects the surface's `location.href` to satisfy @predicate, through
 * navigations and history changes.
 *
 * Fails with `EXPECTATION_FAILED` (details: `predicate`, `expected`,
 * `actual`), `BAD_ARGUMENT`, `NOT_RUNNING`, `SURFACE_CLOSED` or
 * `CDP_DISCONNECTED`.
 *
 * Since: 1.0
 */
void
stw_surface_expect_url_async (StwSurface          *self,
                              const char          *predicate,
                              const char          *expected,
                              const char          *flags,
                              guint                timeout_ms,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GError *error;
  JsonObject *args, *details;

  g_return_if_fail (STW_IS_SURFACE (self));

  error = check_predicate (predicate, expected, flags, FALSE);
  if (error == NULL && g_strcmp0 (predicate, "equals") == 0)
    error = bad_argument ("predicate", _("Give contains or matches"));
  if (error != NULL)
    {
      fail_now (self, stw_surface_expect_url_async, error, callback, user_data);
      return;
    }
  args = json_object_new ();
  json_object_set_string_member (args, "predicate", predicate);
  json_object_set_string_member (args, "expected", expected);
  if (flags != NULL)
    json_object_set_string_member (args, "flags", flags);
  details = json_object_new ();
  json_object_set_string_member (details, "predicate", predicate);
  json_object_set_string_member (details, "expected", expected);
  start_page_wait (self, NULL, "waitUrl", args, TRUE, details, "actual",
                   g_strdup_printf (_("The URL does not match (%s)"), predicate),
                   timeout_ms, stw_surface_expect_url_async, cancellable, callback, user_data);
}

/**
 * stw_surface_expect_url_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @actual: (out) (optional) (transfer full) (nullable): the URL
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.expect_url_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_url_finish (StwSurface    *self,
                               GAsyncResult  *result,
                               char         **actual,
                               GError       **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_expect_url_async, NULL, error);

  if (actual != NULL)
    *actual = dup_actual (answer);
  return answer != NULL;
}

/**
 * stw_surface_expect_url_sync:
 * @self: a #StwSurface
 * @predicate: `contains` or `matches`
 * @expected: the text, or the pattern
 * @flags: (nullable): the pattern's flags
 * @timeout_ms: how long to retry
 * @actual: (out) (optional) (transfer full) (nullable): the URL
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.expect_url_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_url_sync (StwSurface    *self,
                             const char    *predicate,
                             const char    *expected,
                             const char    *flags,
                             guint          timeout_ms,
                             char         **actual,
                             GCancellable  *cancellable,
                             GError       **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  gboolean met;

  g_return_val_if_fail (STW_IS_SURFACE (self), FALSE);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return FALSE;
  stw_surface_expect_url_async (self, predicate, expected, flags, timeout_ms,
                                cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  met = stw_surface_expect_url_finish (self, result, actual, error);
  _stw_sync_call_clear (&call);
  return met;
}

/* --- expect_count ------------------------------------------------------------ */

static gboolean
count_member (JsonObject  *query,
              const char  *name,
              gint64      *value,
              GError     **error)
{
  JsonNode *node = json_object_get_member (query, name);

  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < 0 || json_node_get_int (node) > G_MAXINT32)
    {
      if (*error == NULL)
        *error = bad_argument (name, _("Counts are integers from 0"));
      return FALSE;
    }
  *value = json_node_get_int (node);
  return TRUE;
}

static GError *
check_count_query (JsonObject *query)
{
  static const char * const members[] = {
    "selector", "role", "name_contains", "name_exact", "visible", "enabled", "interactive",
    "equals", "min", "max", NULL
  };
  static const char * const strings[] = { "selector", "role", "name_contains", "name_exact", NULL };
  static const char * const booleans[] = { "visible", "enabled", "interactive", NULL };
  g_autoptr(GList) names = query ? json_object_get_members (query) : NULL;
  GError *error = NULL;
  gint64 equals = 0, min = 0, max = 0;
  gboolean has_equals, has_min, has_max, role_mode = FALSE;

  if (query == NULL)
    return bad_argument ("selector", _("Give selector or role"));
  for (const GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (query, l->data);

      if (!g_strv_contains (members, l->data))
        return bad_argument (l->data, _("Not an argument of a count"));
      if (g_strv_contains (strings, l->data) &&
          (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING ||
           *json_node_get_string (node) == '\0' || strlen (json_node_get_string (node)) > 1000))
        return bad_argument (l->data, _("Must be a string of 1 to 1000 bytes"));
      if (g_strv_contains (booleans, l->data) &&
          (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN))
        return bad_argument (l->data, _("Must be true or false"));
      if (!g_str_equal (l->data, "selector") && !g_str_equal (l->data, "visible") &&
          g_strv_contains (strings, l->data))
        role_mode = TRUE;
      if (g_str_equal (l->data, "enabled") || g_str_equal (l->data, "interactive"))
        role_mode = TRUE;
    }
  if (json_object_has_member (query, "selector") == role_mode)
    return bad_argument ("selector", _("Give either selector or role mode (role, name_contains, name_exact, enabled, interactive)"));
  has_equals = count_member (query, "equals", &equals, &error);
  has_min = count_member (query, "min", &min, &error);
  has_max = count_member (query, "max", &max, &error);
  if (error != NULL)
    return error;
  if (!has_equals && !has_min && !has_max)
    return bad_argument ("equals", _("Give at least one of equals, min and max"));
  if (has_min && has_max && min > max)
    return bad_argument ("min", _("min is above max"));
  return NULL;
}

/**
 * stw_surface_expect_count_async:
 * @self: a #StwSurface
 * @query: what to count and how many: either `selector` (and `visible`)
 *   or role mode (`role`, `name_contains`, `name_exact`, `visible`,
 *   `enabled`, `interactive`), with at least one of `equals`, `min` and
 *   `max`
 * @timeout_ms: how long to retry, at most %STW_WAIT_MAX_TIMEOUT_MS; 0
 *   checks once
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the outcome
 * @user_data: data for @callback
 *
 * Expects the number of matching elements (in the document and its shadow
 * roots) to be in range. Selector mode counts on every change of the
 * page; role mode walks the page every 150 ms.
 *
 * Fails with `EXPECTATION_FAILED` (details: `expected`, `actual`),
 * `BAD_ARGUMENT`, `NOT_RUNNING`, `SURFACE_CLOSED` or `CDP_DISCONNECTED`.
 *
 * Since: 1.0
 */
void
stw_surface_expect_count_async (StwSurface          *self,
                                JsonObject          *query,
                                guint                timeout_ms,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GError *error;
  JsonObject *args, *details, *expected;

  g_return_if_fail (STW_IS_SURFACE (self));

  if ((error = check_count_query (query)) != NULL)
    {
      fail_now (self, stw_surface_expect_count_async, error, callback, user_data);
      return;
    }
  args = json_object_new ();
  stw_json_object_copy_members (args, query, NULL);
  expected = json_object_new ();
  for (const char * const *bound = (const char * const[]) { "equals", "min", "max", NULL }; *bound; bound++)
    if (json_object_has_member (query, *bound))
      json_object_set_int_member (expected, *bound, json_object_get_int_member (query, *bound));
  details = json_object_new ();
  json_object_set_object_member (details, "expected", expected);
  start_page_wait (self, NULL, "waitCount", args, TRUE, details, "actual",
                   g_strdup (_("The number of elements is out of range")),
                   timeout_ms, stw_surface_expect_count_async, cancellable, callback, user_data);
}

/**
 * stw_surface_expect_count_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @actual: (out) (optional): the number counted
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.expect_count_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_count_finish (StwSurface    *self,
                                 GAsyncResult  *result,
                                 gint64        *actual,
                                 GError       **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_expect_count_async, NULL, error);

  if (actual != NULL)
    *actual = answer ? json_object_get_int_member_with_default (answer, "actual", 0) : 0;
  return answer != NULL;
}

/**
 * stw_surface_expect_count_sync:
 * @self: a #StwSurface
 * @query: what to count and how many
 * @timeout_ms: how long to retry
 * @actual: (out) (optional): the number counted
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.expect_count_async].
 *
 * Returns: %TRUE when the expectation holds
 *
 * Since: 1.0
 */
gboolean
stw_surface_expect_count_sync (StwSurface    *self,
                               JsonObject    *query,
                               guint          timeout_ms,
                               gint64        *actual,
                               GCancellable  *cancellable,
                               GError       **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  gboolean met;

  g_return_val_if_fail (STW_IS_SURFACE (self), FALSE);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return FALSE;
  stw_surface_expect_count_async (self, query, timeout_ms, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  met = stw_surface_expect_count_finish (self, result, actual, error);
  _stw_sync_call_clear (&call);
  return met;
}

/* --- wait_for_event ---------------------------------------------------------- */

/* A wait for an event of the browser rather than of one document: a new
 * window, a navigation, a load. */
typedef struct
{
  StwTransport *transport;
  StwSurfaceShared *shared;   /* what the session handed down */
  char         *cdp_session_id;
  char         *frame_id;
  char         *kind;
  GRegex       *url;          /* NULL: any */
  gulong        handlers[2];
  gulong        window_handler;
  GSource      *timeout;
  GSource      *cancelled;
  guint         timeout_ms;
} EventWait;

static void
drop_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

/* Disconnects the wait from everything that could settle it again. */
static void
event_wait_detach (EventWait *wait)
{
  for (guint i = 0; i < G_N_ELEMENTS (wait->handlers); i++)
    if (wait->handlers[i] != 0)
      {
        g_signal_handler_disconnect (wait->transport, wait->handlers[i]);
        wait->handlers[i] = 0;
      }
  if (wait->window_handler != 0)
    {
      _stw_surface_shared_remove_window_hook (wait->shared, wait->window_handler);
      wait->window_handler = 0;
    }
  drop_source (&wait->timeout);
  drop_source (&wait->cancelled);
}

static void
event_wait_free (EventWait *wait)
{
  event_wait_detach (wait);
  g_clear_object (&wait->transport);
  g_clear_pointer (&wait->shared, _stw_surface_shared_unref);
  g_free (wait->cdp_session_id);
  g_free (wait->frame_id);
  g_free (wait->kind);
  g_clear_pointer (&wait->url, g_regex_unref);
  g_free (wait);
}

/* Settles the wait once: it holds the only reference the handlers use. */
static void
event_wait_settle (GTask      *task,
                   JsonObject *event,
                   GError     *error)
{
  event_wait_detach (g_task_get_task_data (task));
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, event, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
event_seen (GTask      *task,
            const char *type,
            const char *url,
            const char *window_id)
{
  EventWait *wait = g_task_get_task_data (task);
  JsonObject *event;

  if (wait->url != NULL && (url == NULL || !g_regex_match (wait->url, url, 0, NULL)))
    return;
  event = json_object_new ();
  json_object_set_string_member (event, "type", type);
  if (url != NULL)
    json_object_set_string_member (event, "url", url);
  if (window_id != NULL)
    json_object_set_string_member (event, "window_id", window_id);
  event_wait_settle (task, event, NULL);
}

static void
on_page_event (StwTransport *transport,
               const char   *method,
               JsonObject   *params,
               const char   *session_id,
               GTask        *task)
{
  EventWait *wait = g_task_get_task_data (task);
  JsonObject *frame;

  if (g_strcmp0 (session_id, wait->cdp_session_id) != 0)
    return;
  if (g_str_equal (method, "Page.frameNavigated"))
    {
      frame = json_object_has_member (params, "frame") ? json_object_get_object_member (params, "frame") : NULL;
      if (frame != NULL && g_strcmp0 (stw_json_get_string (frame, "id"), wait->frame_id) == 0)
        event_seen (task, "navigation", stw_json_get_string (frame, "url"), NULL);
    }
  else if (g_str_equal (method, "Page.navigatedWithinDocument"))
    {
      if (g_strcmp0 (stw_json_get_string (params, "frameId"), wait->frame_id) == 0)
        event_seen (task, "navigation", stw_json_get_string (params, "url"), NULL);
    }
  else
    event_seen (task, wait->kind, NULL, NULL);
}

static void
on_window_added (StwSurface *window,
                 gpointer    user_data)
{
  GTask *task = user_data;

  event_seen (task, "window", stw_surface_get_url (window), stw_surface_get_id (window));
}

static gboolean
on_event_timeout (gpointer user_data)
{
  GTask *task = user_data;
  EventWait *wait = g_task_get_task_data (task);
  GError *error = stw_error_new_code (STW_ERROR_WAIT_TIMEOUT, _("No %s event within %u ms"), wait->kind, wait->timeout_ms);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "event", wait->kind);
  json_object_set_int_member (details, "timeout_ms", wait->timeout_ms);
  stw_error_set_details (error, details);
  event_wait_settle (task, NULL, error);
  return G_SOURCE_REMOVE;
}

static gboolean
on_event_cancelled (GCancellable *cancellable,
                    gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  g_cancellable_set_error_if_cancelled (cancellable, &error);
  event_wait_settle (task, NULL, error);
  return G_SOURCE_REMOVE;
}

static void
start_browser_event_wait (StwSurface          *self,
                          const char          *kind,
                          GRegex              *url,
                          guint                timeout_ms,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  EventWait *wait = g_new0 (EventWait, 1);
  GMainContext *context;

  g_task_set_source_tag (task, stw_surface_wait_for_event_async);
  g_task_set_task_data (task, wait, (GDestroyNotify) event_wait_free);
  wait->kind = g_strdup (kind);
  wait->url = url;
  wait->timeout_ms = clamp_timeout (timeout_ms);
  wait->shared = _stw_surface_shared_ref (_stw_surface_get_shared (self));
  wait->transport = _stw_surface_get_transport (self) ? g_object_ref (_stw_surface_get_transport (self)) : NULL;
  wait->cdp_session_id = g_strdup (stw_surface_get_cdp_session_id (self));
  wait->frame_id = g_strdup (stw_surface_get_frame_id (self));
  if (!wait->shared->alive || wait->transport == NULL || stw_surface_is_closed (self))
    {
      g_task_return_error (task, stw_error_new_literal (stw_surface_is_closed (self) ? "SURFACE_CLOSED" : "NOT_RUNNING", NULL));
      g_object_unref (task);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }

  if (g_str_equal (kind, "window"))
    wait->window_handler = _stw_surface_shared_add_window_hook (wait->shared, on_window_added, task);
  else
    {
      /* Navigations and loads announce themselves through the Page domain. */
      stw_transport_send_notification (wait->transport, "Page.enable", NULL, wait->cdp_session_id);
      if (g_str_equal (kind, "navigation"))
        {
          wait->handlers[0] = g_signal_connect (wait->transport, "event::Page.frameNavigated",
                                                G_CALLBACK (on_page_event), task);
          wait->handlers[1] = g_signal_connect (wait->transport, "event::Page.navigatedWithinDocument",
                                                G_CALLBACK (on_page_event), task);
        }
      else
        wait->handlers[0] = g_signal_connect (wait->transport,
                                              g_str_equal (kind, "load") ? "event::Page.loadEventFired"
                                                                         : "event::Page.domContentEventFired",
                                              G_CALLBACK (on_page_event), task);
    }

  context = g_task_get_context (task);
  wait->timeout = g_timeout_source_new (wait->timeout_ms);
  g_source_set_callback (wait->timeout, on_event_timeout, task, NULL);
  g_source_attach (wait->timeout, context);
  if (cancellable != NULL)
    {
      /* A source, not a handler: settling disconnects handlers, which
       * must not happen inside the cancellable's own emission. */
      wait->cancelled = g_cancellable_source_new (cancellable);
      g_source_set_callback (wait->cancelled, G_SOURCE_FUNC (on_event_cancelled), task, NULL);
      g_source_attach (wait->cancelled, context);
    }
}

/* The `window`, `navigation` and `load` events are the browser's. */
static const char * const BROWSER_EVENTS[] = { "window", "popup", "navigation", "load", "domcontentloaded", NULL };

/**
 * stw_surface_wait_for_event_async:
 * @self: a #StwSurface
 * @event_name: a DOM event (`click`, `input`, `transitionend`, …) at the
 *   target; or `window` (also `popup`: a new window opens in the
 *   session), `navigation` (the surface's document changes or its URL
 *   does), `load` or `domcontentloaded` (of the surface's page)
 * @target: (nullable): where a DOM event is awaited: an element (a ref or
 *   a selector) or, when %NULL, the document
 * @url_pattern: (nullable): for `window` and `navigation`, a regular
 *   expression the new URL must match
 * @flags: (nullable): the pattern's flags, of `imsu`
 * @timeout_ms: how long to wait, at most %STW_WAIT_MAX_TIMEOUT_MS
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the event
 * @user_data: data for @callback
 *
 * Waits for the next such event.
 *
 * Fails with `WAIT_TIMEOUT`, `SELECTOR_NO_MATCH` (the target is absent),
 * `REF_NOT_FOUND`, `BAD_ARGUMENT`, `NOT_RUNNING`, `SURFACE_CLOSED` or
 * `CDP_DISCONNECTED`.
 *
 * Since: 1.0
 */
void
stw_surface_wait_for_event_async (StwSurface          *self,
                                  const char          *event_name,
                                  const StwTarget     *target,
                                  const char          *url_pattern,
                                  const char          *flags,
                                  guint                timeout_ms,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GError) error = NULL;
  gboolean browser;
  JsonObject *args, *details;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (event_name != NULL);

  if (*event_name == '\0' || strlen (event_name) > MAX_EVENT_NAME_CHARS ||
      strspn (event_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:.") != strlen (event_name))
    error = bad_argument ("eventName", _("eventName must be 1 to 64 letters, digits or _-:."));
  browser = error == NULL && g_strv_contains (BROWSER_EVENTS, event_name);
  if (error == NULL && url_pattern != NULL && !browser)
    error = bad_argument ("urlPattern", _("urlPattern is for window and navigation events"));
  if (error == NULL && target != NULL && browser)
    error = bad_argument ("ref", _("A window, navigation or load event has no element"));
  if (error == NULL && url_pattern != NULL)
    _stw_regex_check (url_pattern, flags, "urlPattern", &error);
  if (error != NULL)
    {
      fail_now (self, stw_surface_wait_for_event_async, g_steal_pointer (&error), callback, user_data);
      return;
    }

  if (browser)
    {
      GRegex *url = NULL;

      if (url_pattern != NULL)
        {
          GRegexCompileFlags compile = G_REGEX_OPTIMIZE;

          if (flags != NULL && strchr (flags, 'i'))
            compile |= G_REGEX_CASELESS;
          if (flags != NULL && strchr (flags, 'm'))
            compile |= G_REGEX_MULTILINE;
          if (flags != NULL && strchr (flags, 's'))
            compile |= G_REGEX_DOTALL;
          url = g_regex_new (url_pattern, compile, 0, &error);
          if (url == NULL)
            {
              fail_now (self, stw_surface_wait_for_event_async,
                        bad_argument ("urlPattern", _("urlPattern is not a valid regular expression")),
                        callback, user_data);
              return;
            }
        }
      start_browser_event_wait (self, g_str_equal (event_name, "popup") ? "window" : event_name, url,
                                timeout_ms, cancellable, callback, user_data);
      return;
    }

  args = json_object_new ();
  json_object_set_string_member (args, "eventName", event_name);
  details = json_object_new ();
  json_object_set_string_member (details, "event", event_name);
  start_page_wait (self, target, "waitEvent", args, FALSE, details, NULL,
                   g_strdup_printf (_("No %s event within %u ms"), event_name, clamp_timeout (timeout_ms)),
                   timeout_ms, stw_surface_wait_for_event_async, cancellable, callback, user_data);
}

/**
 * stw_surface_wait_for_event_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.wait_for_event_async].
 *
 * Returns: (transfer full) (nullable): the event: `{type, url?,
 *   window_id?}` for the browser's events, `{type, at, target}` for a DOM
 *   event (`target` the element it happened at, `{key, role, name}`)
 *   (JSON because each event kind has its own payload)
 *
 * Since: 1.0
 */
JsonObject *
stw_surface_wait_for_event_finish (StwSurface    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_autoptr(JsonObject) answer = finish_page_wait (self, result, stw_surface_wait_for_event_async, NULL, error);
  JsonNode *event;

  if (answer == NULL)
    return NULL;
  event = json_object_get_member (answer, "event");
  if (event != NULL && JSON_NODE_HOLDS_OBJECT (event))
    return json_object_ref (json_node_get_object (event));
  /* The browser's events answer the event itself. */
  return g_steal_pointer (&answer);
}

/**
 * stw_surface_wait_for_event_sync:
 * @self: a #StwSurface
 * @event_name: the event
 * @target: (nullable): where a DOM event is awaited
 * @url_pattern: (nullable): what the new URL must match
 * @flags: (nullable): the pattern's flags
 * @timeout_ms: how long to wait
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.wait_for_event_async].
 *
 * Returns: (transfer full) (nullable): the event
 *   (JSON because each event kind has its own payload)
 *
 * Since: 1.0
 */
JsonObject *
stw_surface_wait_for_event_sync (StwSurface       *self,
                                 const char       *event_name,
                                 const StwTarget  *target,
                                 const char       *url_pattern,
                                 const char       *flags,
                                 guint             timeout_ms,
                                 GCancellable     *cancellable,
                                 GError          **error)
{
  StwSyncCall call;
  GAsyncResult *result;
  JsonObject *event;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (event_name != NULL, NULL);

  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_wait_for_event_async (self, event_name, target, url_pattern, flags,
                                    timeout_ms, cancellable, _stw_sync_call_callback, &call);
  result = _stw_sync_call_wait (&call);
  event = stw_surface_wait_for_event_finish (self, result, error);
  _stw_sync_call_clear (&call);
  return event;
}
