/* stw-surface-actions.c: the interaction family — StwSurface methods that
 * act on a page with real input, as a person would
 *
 * Every pointer action asks the page (js/actions.js, one round trip) to
 * scroll the element into view and check that it is attached, visible,
 * enabled, stable and really hit at its centre, and to answer that point;
 * then real Input.* events go to the window's page session, all sent at
 * once. The page waits for actionability at most a second per call; the
 * library calls again while the caller's budget lasts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "stw-actions.h"
#include "stw-action-result-private.h"
#include "stw-confine-private.h"
#include "stw-deadline-private.h"
#include "stw-error-registry.h"
#include "stw-input-private.h"
#include "stw-json-private.h"
#include "stw-surface-private.h"
#include "stw-sync-private.h"

#define DEFAULT_TIMEOUT_MS 5000
#define PAGE_WAIT_SLICE_MS 1000

#define SET_FILES_MAX       20
#define SET_FILES_MAX_BYTES (50 * 1024 * 1024)
#define DROP_FILES_MAX      10
#define DROP_MAX_BYTES      (5 * 1024 * 1024)
#define DROP_MAX_TOTAL      (10 * 1024 * 1024)

#define FILES_OBJECT_GROUP  "stagewright-files"

/* --- StwActionOptions --------------------------------------------------- */

struct _StwActionOptions
{
  gboolean force;
  guint    timeout_ms;
  char    *button;
  guint    click_count;
};

G_DEFINE_BOXED_TYPE (StwActionOptions, stw_action_options, stw_action_options_copy, stw_action_options_free)

/**
 * stw_action_options_new:
 *
 * The defaults: checks on, a 5000 ms budget, one left click.
 *
 * Returns: (transfer full): new options
 *
 * Since: 1.0
 */
StwActionOptions *
stw_action_options_new (void)
{
  StwActionOptions *options = g_new0 (StwActionOptions, 1);

  options->timeout_ms = DEFAULT_TIMEOUT_MS;
  options->button = g_strdup ("left");
  options->click_count = 1;
  return options;
}

/**
 * stw_action_options_copy:
 * @options: a #StwActionOptions
 *
 * Copies action options.
 *
 * Returns: (transfer full): a copy of @options
 *
 * Since: 1.0
 */
StwActionOptions *
stw_action_options_copy (const StwActionOptions *options)
{
  StwActionOptions *copy;

  g_return_val_if_fail (options != NULL, NULL);

  copy = g_memdup2 (options, sizeof *options);
  copy->button = g_strdup (options->button);
  return copy;
}

/**
 * stw_action_options_free:
 * @options: (transfer full): a #StwActionOptions
 *
 * Frees @options.
 *
 * Since: 1.0
 */
void
stw_action_options_free (StwActionOptions *options)
{
  if (options == NULL)
    return;
  g_free (options->button);
  g_free (options);
}

/**
 * stw_action_options_set_force:
 * @options: a #StwActionOptions
 * @force: whether to skip the actionability checks
 *
 * With @force, the pointer goes to the element's centre at once, whether
 * or not it is visible, enabled, stable or covered.
 *
 * Since: 1.0
 */
void
stw_action_options_set_force (StwActionOptions *options,
                              gboolean          force)
{
  g_return_if_fail (options != NULL);
  options->force = !!force;
}

/**
 * stw_action_options_get_force:
 * @options: a #StwActionOptions
 *
 * Gets whether the actionability checks are skipped.
 *
 * Returns: whether the actionability checks are skipped
 *
 * Since: 1.0
 */
gboolean
stw_action_options_get_force (const StwActionOptions *options)
{
  g_return_val_if_fail (options != NULL, FALSE);
  return options->force;
}

/**
 * stw_action_options_set_timeout_ms:
 * @options: a #StwActionOptions
 * @timeout_ms: how long to wait for the element to become actionable;
 *   more than %STW_ACTION_TIMEOUT_MAX_MS is taken as that
 *
 * Sets the actionability budget (0: one look, no waiting).
 *
 * Since: 1.0
 */
void
stw_action_options_set_timeout_ms (StwActionOptions *options,
                                   guint             timeout_ms)
{
  g_return_if_fail (options != NULL);
  options->timeout_ms = MIN (timeout_ms, STW_ACTION_TIMEOUT_MAX_MS);
}

/**
 * stw_action_options_get_timeout_ms:
 * @options: a #StwActionOptions
 *
 * Gets how long an interaction waits for its element to become
 * actionable.
 *
 * Returns: the actionability budget in milliseconds
 *
 * Since: 1.0
 */
guint
stw_action_options_get_timeout_ms (const StwActionOptions *options)
{
  g_return_val_if_fail (options != NULL, DEFAULT_TIMEOUT_MS);
  return options->timeout_ms;
}

/**
 * stw_action_options_set_button:
 * @options: a #StwActionOptions
 * @button: `left`, `right` or `middle`
 *
 * Sets the mouse button a click presses.
 *
 * Since: 1.0
 */
void
stw_action_options_set_button (StwActionOptions *options,
                               const char       *button)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (g_strcmp0 (button, "left") == 0 || g_strcmp0 (button, "right") == 0 ||
                    g_strcmp0 (button, "middle") == 0);
  g_free (options->button);
  options->button = g_strdup (button);
}

/**
 * stw_action_options_get_button:
 * @options: a #StwActionOptions
 *
 * Gets the mouse button a click presses: `left`, `right` or `middle`.
 *
 * Returns: (transfer none): the mouse button
 *
 * Since: 1.0
 */
const char *
stw_action_options_get_button (const StwActionOptions *options)
{
  g_return_val_if_fail (options != NULL, "left");
  return options->button;
}

/**
 * stw_action_options_set_click_count:
 * @options: a #StwActionOptions
 * @click_count: 1 (a click), 2 (a double click) or 3
 *
 * Sets how many times a click presses the button.
 *
 * Since: 1.0
 */
void
stw_action_options_set_click_count (StwActionOptions *options,
                                    guint             click_count)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (click_count >= 1 && click_count <= 3);
  options->click_count = click_count;
}

/**
 * stw_action_options_get_click_count:
 * @options: a #StwActionOptions
 *
 * Gets how many times a click presses the button (1 to 3).
 *
 * Returns: the click count
 *
 * Since: 1.0
 */
guint
stw_action_options_get_click_count (const StwActionOptions *options)
{
  g_return_val_if_fail (options != NULL, 1);
  return options->click_count;
}

static GError *
bad_field (const char *field,
           const char *message)
{
  GError *bad = stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT, message);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "field", field);
  stw_error_set_details (bad, details);
  return bad;
}

/**
 * stw_action_options_new_from_json:
 * @object: `{force?, timeoutMs?, button?, clickCount?}` (the interaction
 *   tools' arguments; other members are ignored)
 * @error: `BAD_ARGUMENT` for a member of the wrong type, a button other
 *   than left, right or middle, or a click count outside 1…3
 *
 * Reads options from JSON. `timeoutMs` is clamped to 0…30000, as the
 * contract says: a negative budget is a single look, a huge one 30 s.
 *
 * Returns: (transfer full) (nullable): the options
 *
 * Since: 1.0
 */
StwActionOptions *
stw_action_options_new_from_json (JsonObject  *object,
                                  GError     **error)
{
  g_autoptr(StwActionOptions) options = stw_action_options_new ();
  JsonNode *node;

  g_return_val_if_fail (object != NULL, NULL);

  if ((node = json_object_get_member (object, "force")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          g_propagate_error (error, bad_field ("force", _("force must be a boolean")));
          return NULL;
        }
      options->force = json_node_get_boolean (node);
    }
  if ((node = json_object_get_member (object, "timeoutMs")) != NULL)
    {
      GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
      double value;

      if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
        {
          g_propagate_error (error, bad_field ("timeoutMs", _("timeoutMs must be a number")));
          return NULL;
        }
      value = json_node_get_double (node);
      options->timeout_ms = value <= 0 || value != value ? 0 : value >= STW_ACTION_TIMEOUT_MAX_MS
                            ? STW_ACTION_TIMEOUT_MAX_MS : (guint) value;
    }
  if ((node = json_object_get_member (object, "button")) != NULL)
    {
      const char *button = JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
                           ? json_node_get_string (node) : NULL;

      if (g_strcmp0 (button, "left") != 0 && g_strcmp0 (button, "right") != 0 && g_strcmp0 (button, "middle") != 0)
        {
          g_propagate_error (error, bad_field ("button", _("button must be left, right or middle")));
          return NULL;
        }
      stw_action_options_set_button (options, button);
    }
  if ((node = json_object_get_member (object, "clickCount")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
          json_node_get_int (node) < 1 || json_node_get_int (node) > 3)
        {
          g_propagate_error (error, bad_field ("clickCount", _("clickCount must be 1, 2 or 3")));
          return NULL;
        }
      options->click_count = (guint) json_node_get_int (node);
    }
  return g_steal_pointer (&options);
}

/* --- the engine -------------------------------------------------------- */

typedef enum
{
  ACTION_CLICK,
  ACTION_HOVER,
  ACTION_DRAG,
  ACTION_FILL,
  ACTION_CLEAR,
  ACTION_TYPE_TEXT,
  ACTION_TYPE_INTO_EDITOR,
  ACTION_PRESS_KEY,
  ACTION_PRESS_SEQUENCE,
  ACTION_SELECT_OPTIONS,
  ACTION_SET_CHECKED,
  ACTION_SET_FILES,
  ACTION_DROP_FILES,
  ACTION_SCROLL,
  ACTION_SCROLL_INTO_VIEW,
} ActionKind;

typedef struct
{
  ActionKind        kind;
  StwActionOptions *options;
  StwTarget        *target;        /* NULL: the focused element / the viewport */
  StwTarget        *destination;   /* drag */
  char             *text;
  GStrv             strv;          /* keys, values or checked file paths */
  gboolean          flag;          /* checked, replace */
  double            dx, dy;
  JsonArray        *files;         /* drop: [{name, type, data}] */
  gint64            deadline;      /* monotonic µs */

  JsonObject       *result;
  StwSurface       *acted_on;      /* where the element is */
  gboolean          second;        /* drag: measuring the destination */
  double            x, y;          /* the point, in the window's viewport */
  double            x2, y2;        /* drag: the destination's */
  StwTransport     *drag_transport; /* drag: where Input.dragIntercepted comes */
  gulong            drag_handler;
  JsonObject       *drag_data;     /* drag: what an HTML5 drag carries */
  gint64            guard;         /* the page's armed input guard, 0: none */
  char             *received_by;   /* what the guard kept the last click from */
} Action;

static void
action_free (Action *action)
{
  stw_action_options_free (action->options);
  g_clear_pointer (&action->target, stw_target_free);
  g_clear_pointer (&action->destination, stw_target_free);
  g_free (action->text);
  g_strfreev (action->strv);
  g_clear_pointer (&action->files, json_array_unref);
  g_clear_pointer (&action->result, json_object_unref);
  g_clear_object (&action->acted_on);
  if (action->drag_handler != 0)
    g_signal_handler_disconnect (action->drag_transport, action->drag_handler);
  g_clear_object (&action->drag_transport);
  g_clear_pointer (&action->drag_data, json_object_unref);
  g_free (action->received_by);
  g_free (action);
}

static gboolean
waits_for_element (ActionKind kind)
{
  return kind == ACTION_CLICK || kind == ACTION_HOVER || kind == ACTION_DRAG || kind == ACTION_FILL ||
         kind == ACTION_CLEAR || kind == ACTION_TYPE_INTO_EDITOR || kind == ACTION_SET_CHECKED;
}

static GTask *
action_task_new (StwSurface             *self,
                 ActionKind              kind,
                 const StwTarget        *target,
                 const StwActionOptions *options,
                 gpointer                source_tag,
                 GCancellable           *cancellable,
                 GAsyncReadyCallback     callback,
                 gpointer                user_data)
{
  GTask *task;
  Action *action = g_new0 (Action, 1);
  g_autoptr(GCancellable) deadline = NULL;

  action->kind = kind;
  action->options = options ? stw_action_options_copy (options) : stw_action_options_new ();
  /* Where the timeout bounds the wait for the element, it bounds every
   * DevTools command of the action too: a hung page fails at the deadline. */
  if (waits_for_element (kind))
    deadline = _stw_deadline_new (cancellable, action->options->timeout_ms);
  task = g_task_new (self, deadline ? deadline : cancellable, callback, user_data);
  g_task_set_source_tag (task, source_tag);
  action->target = target ? stw_target_copy (target) : NULL;
  action->result = json_object_new ();
  action->deadline = g_get_monotonic_time () + (gint64) action->options->timeout_ms * 1000;
  g_task_set_task_data (task, action, (GDestroyNotify) action_free);
  return task;
}

/* What is left of the budget for one page wait, in ms. */
static gint64
wait_slice (Action *action)
{
  gint64 left = (action->deadline - g_get_monotonic_time ()) / 1000;

  return CLAMP (left, 0, PAGE_WAIT_SLICE_MS);
}

static gboolean
time_left (Action *action)
{
  return g_get_monotonic_time () < action->deadline;
}

/* Failures an agent can act on get the way forward. */
static GError *
with_next_actions (GError *error)
{
  if (stw_error_get_next_actions (error) != NULL)
    return error;
  if (g_error_matches (error, STW_ERROR, STW_ERROR_ELEMENT_NOT_VISIBLE) ||
      g_error_matches (error, STW_ERROR, STW_ERROR_ELEMENT_DISABLED))
    stw_error_add_next_action (error, "electron_snapshot()");
  else if (g_error_matches (error, STW_ERROR, STW_ERROR_TYPE_NO_EFFECT))
    stw_error_add_next_action (error, "electron_type_into_editor({ ref, text })");
  return error;
}

static void
action_fail (GTask  *task,
             GError *error)
{
  g_task_return_error (task, with_next_actions (error));
  g_object_unref (task);
}

static void
action_done (GTask *task)
{
  Action *action = g_task_get_task_data (task);

  g_task_return_pointer (task,
                         _stw_action_result_new_from_json (action->result,
                                                           action->acted_on ? stw_surface_get_id (action->acted_on)
                                                                            : stw_surface_get_id (g_task_get_source_object (task))),
                         (GDestroyNotify) stw_action_result_free);
  g_object_unref (task);
}

static void
take_target (Action     *action,
             const char *member,
             JsonObject *answer)
{
  if (answer != NULL && json_object_has_member (answer, "target"))
    json_object_set_member (action->result, member, json_node_copy (json_object_get_member (answer, "target")));
}

static StwTarget *
target_of_result (Action     *action,
                  const char *member)
{
  JsonObject *target = json_object_get_object_member (action->result, member);

  return stw_target_new_for_ref ((guint) json_object_get_int_member (target, "ref"));
}

static void run_pointer (GTask *task);
static void send_pointer_input (GTask *task);

/* --- sending input --------------------------------------------------------- */

static void
on_checked_again (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, NULL, &error);
  if (answer == NULL)
    {
      action_fail (task, error);
      return;
    }
  if (json_object_get_boolean_member_with_default (answer, "checked", !action->flag) != action->flag)
    {
      action_fail (task, stw_error_new_code (STW_ERROR_ELEMENT_DISABLED, action->flag ? _("Clicking did not check it: the app kept it unchecked")
                                                                               : _("Clicking did not uncheck it: the app kept it checked")));
      return;
    }
  json_object_set_boolean_member (action->result, "checked", action->flag);
  action_done (task);
}

/* The input reached its target (or the guard could not tell otherwise). */
static void
input_landed (GTask *task)
{
  Action *action = g_task_get_task_data (task);

  if (action->kind == ACTION_SET_CHECKED && !json_object_has_member (action->result, "dialog"))
    {
      g_autoptr(StwTarget) again = target_of_result (action, "target");

      _stw_surface_element_op_async (g_task_get_source_object (task), again, "checked", NULL,
                                     g_task_get_cancellable (task), on_checked_again, task);
      return;
    }
  if (action->kind == ACTION_SET_CHECKED)
    json_object_set_boolean_member (action->result, "checked", action->flag);
  action_done (task);
}

/* Keys the focus did not let reach their target: what to do about it. */
static GError *
keys_refused (GError *error)
{
  stw_error_set_hint (error, _("The page moved the focus away from the target. Keys with a target go to it or nowhere; "
                               "check what the app does on focus, or press without a target to follow the focus."));
  stw_error_add_next_action (error, "electron_snapshot()");
  return error;
}

/* The page kept the keys from an element the focus went to. */
static GError *
keys_went_elsewhere (const char *target,
                     const char *received_by,
                     gint64      keys)
{
  GError *error = stw_error_new_code (STW_ERROR_TYPE_NO_EFFECT,
                                      _("The focus left %s for %s after %" G_GINT64_FORMAT " key(s); the keys after that were "
                                        "stopped before the page saw them"), target, received_by, keys);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "received_by", received_by);
  json_object_set_int_member (details, "keys", keys);
  stw_error_set_details (error, details);
  return keys_refused (error);
}

/* The click that did not reach its target. */
static GError *
click_went_elsewhere (const char *received_by)
{
  GError *error = stw_error_new_code (STW_ERROR_ELEMENT_NOT_VISIBLE,
                                      _("The page put %s under the pointer between the check and the click; that click "
                                        "was stopped before the page saw it"), received_by);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "received_by", received_by);
  stw_error_set_details (error, details);
  return error;
}

static void
on_verdict (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonNode) verdict = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *answer;
  const char *received_by;

  /* No answer: the click or key closed or navigated the surface; the
   * guard was in the document that went, and nothing it kept is known. */
  verdict = _stw_surface_call_page_finish (STW_SURFACE (object), result, NULL, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      action_fail (task, g_steal_pointer (&error));
      return;
    }
  answer = verdict && JSON_NODE_HOLDS_OBJECT (verdict) ? json_node_get_object (verdict) : NULL;
  received_by = answer ? stw_json_get_string (answer, "received_by") : NULL;
  action->guard = 0;
  if (received_by == NULL)
    {
      input_landed (task);
      return;
    }
  if (action->kind == ACTION_TYPE_TEXT || action->kind == ACTION_PRESS_KEY || action->kind == ACTION_PRESS_SEQUENCE)
    {
      JsonObject *target = json_object_get_object_member (action->result, "target");
      const char *name = stw_json_get_string (target, "name");

      action_fail (task, keys_went_elsewhere (name && *name ? name : _("the target"), received_by,
                                              json_object_get_int_member_with_default (answer, "keys", 0)));
      return;
    }
  /* A click: again while the budget lasts (the page may have swapped
   * the element away once), then the refusal says what took its place. */
  g_free (action->received_by);
  action->received_by = g_strdup (received_by);
  if (g_task_return_error_if_cancelled (task))
    g_object_unref (task);
  else if (time_left (action))
    run_pointer (task);
  else
    action_fail (task, click_went_elsewhere (received_by));
}

static void
on_input_sent (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) dialog = NULL;
  GError *error = NULL;

  if (!_stw_surface_send_input_finish (STW_SURFACE (object), result, &dialog, &error))
    {
      action_fail (task, error);
      return;
    }
  if (dialog != NULL)
    json_object_set_object_member (action->result, "dialog", g_steal_pointer (&dialog));

  /* The guard's verdict, unless a dialog opened: the page is held until
   * it closes, and only input the guard let through could open it. */
  if (action->guard != 0 && !json_object_has_member (action->result, "dialog"))
    {
      g_autoptr(JsonObject) args = json_object_new ();

      json_object_set_int_member (args, "token", action->guard);
      _stw_surface_call_page_async (action->acted_on, "guardVerdict", args, g_task_get_cancellable (task),
                                    on_verdict, task);
      return;
    }
  input_landed (task);
}

static void
send_events (GTask     *task,
             StwSurface *frame,
             GPtrArray *events)
{
  StwSurface *window = _stw_surface_window_of (frame);

  _stw_surface_send_input_async (window, frame, events, g_task_get_cancellable (task), on_input_sent, task);
}

static void
add_click (GPtrArray  *events,
           StwSurface *window,
           Action     *action,
           double      x,
           double      y)
{
  const char *button = action->options->button;

  /* A person whose pointer is already there does not move it (and the
   * move costs a renderer round of its own). */
  if (!_stw_surface_pointer_is_at (window, x, y))
    _stw_input_add_mouse (events, "mouseMoved", x, y, NULL, 0);
  for (guint i = 1; i <= action->options->click_count; i++)
    {
      _stw_input_add_mouse (events, "mousePressed", x, y, button, (int) i);
      _stw_input_add_mouse (events, "mouseReleased", x, y, button, (int) i);
    }
}

/* --- dragging ------------------------------------------------------------------ */

/* An HTML5 drag (a draggable element) would start the platform's own drag
 * loop, which synthetic input never ends: the browser is asked to hand the
 * drag to us instead (Input.setInterceptDrags), and we finish it with
 * Input.dispatchDragEvent, as Playwright does. A pointer drag (a slider, a
 * canvas) is plain mouse moves. */

static JsonObject *
drag_params (const char *type,
             double      x,
             double      y,
             JsonObject *data)
{
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "type", type);
  json_object_set_double_member (params, "x", x);
  json_object_set_double_member (params, "y", y);
  json_object_set_object_member (params, "data", json_object_ref (data));
  return params;
}

static JsonObject *
intercept_params (gboolean enabled)
{
  JsonObject *params = json_object_new ();

  json_object_set_boolean_member (params, "enabled", enabled);
  return params;
}

static void
on_drag_intercepted (StwTransport *transport,
                     const char   *method,
                     JsonObject   *params,
                     const char   *session_id,
                     Action       *action)
{
  StwSurface *window = _stw_surface_window_of (action->acted_on);

  if (g_strcmp0 (session_id, stw_surface_get_cdp_session_id (window)) != 0 ||
      !json_object_has_member (params, "data") || action->drag_data != NULL)
    return;
  action->drag_data = json_object_ref (json_object_get_object_member (params, "data"));
}

static void
finish_drag (GTask *task)
{
  Action *action = g_task_get_task_data (task);
  g_autoptr(GPtrArray) events = _stw_input_events_new ();

  if (action->drag_handler != 0)
    {
      g_signal_handler_disconnect (action->drag_transport, action->drag_handler);
      action->drag_handler = 0;
    }
  if (action->drag_data != NULL)
    {
      _stw_input_add_call (events, "Input.dispatchDragEvent",
                           drag_params ("dragEnter", action->x2, action->y2, action->drag_data));
      _stw_input_add_call (events, "Input.dispatchDragEvent",
                           drag_params ("dragOver", action->x2, action->y2, action->drag_data));
      _stw_input_add_call (events, "Input.dispatchDragEvent",
                           drag_params ("drop", action->x2, action->y2, action->drag_data));
    }
  else
    for (int step = 3; step <= 4; step++)
      _stw_input_add_mouse (events, "mouseMoved",
                            action->x + (action->x2 - action->x) * step / 4.0,
                            action->y + (action->y2 - action->y) * step / 4.0, "left", 0);
  _stw_input_add_mouse (events, "mouseReleased", action->x2, action->y2, "left", 1);
  _stw_input_add_call (events, "Input.setInterceptDrags", intercept_params (FALSE));
  send_events (task, action->acted_on, events);
}

static void
on_drag_flushed (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(JsonNode) ignored = _stw_surface_call_page_finish (STW_SURFACE (object), result, NULL, NULL);

  finish_drag (user_data);
}

static void
on_drag_started (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  GError *error = NULL;

  if (!_stw_surface_send_input_finish (STW_SURFACE (object), result, NULL, &error))
    {
      action_fail (task, error);
      return;
    }
  if (action->drag_data != NULL)
    {
      finish_drag (task);
      return;
    }
  /* The interception may trail the moves' acknowledgements: one round trip
   * through the page lets it arrive. */
  _stw_surface_call_page_async (action->acted_on, "viewport", NULL, g_task_get_cancellable (task),
                                on_drag_flushed, task);
}

static void
start_drag (GTask *task)
{
  Action *action = g_task_get_task_data (task);
  StwSurface *window = _stw_surface_window_of (action->acted_on);
  g_autoptr(GPtrArray) events = _stw_input_events_new ();

  action->drag_transport = g_object_ref (_stw_surface_get_transport (window));
  action->drag_handler = g_signal_connect (action->drag_transport, "event::Input.dragIntercepted",
                                           G_CALLBACK (on_drag_intercepted), action);
  _stw_input_add_call (events, "Input.setInterceptDrags", intercept_params (TRUE));
  _stw_input_add_mouse (events, "mouseMoved", action->x, action->y, NULL, 0);
  _stw_input_add_mouse (events, "mousePressed", action->x, action->y, "left", 1);
  /* A quarter and half of the way: past the drag threshold. */
  for (int step = 1; step <= 2; step++)
    _stw_input_add_mouse (events, "mouseMoved",
                          action->x + (action->x2 - action->x) * step / 4.0,
                          action->y + (action->y2 - action->y) * step / 4.0, "left", 0);
  _stw_surface_send_input_async (window, action->acted_on, events, g_task_get_cancellable (task), on_drag_started, task);
}

static void
send_pointer_input (GTask *task)
{
  Action *action = g_task_get_task_data (task);
  g_autoptr(GPtrArray) events = _stw_input_events_new ();
  StwSurface *window = _stw_surface_window_of (action->acted_on);

  if (action->kind == ACTION_HOVER)
    _stw_input_add_mouse (events, "mouseMoved", action->x, action->y, NULL, 0);
  else if (action->kind == ACTION_DRAG)
    {
      start_drag (task);
      return;
    }
  else if (action->kind == ACTION_TYPE_INTO_EDITOR)
    {
      StwActionOptions one = { .button = (char *) "left", .click_count = 1 };
      Action clicking = { .options = &one };
      g_autoptr(GError) error = NULL;

      add_click (events, window, &clicking, action->x, action->y);
      if (action->flag)
        _stw_input_add_chord (events, "ControlOrMeta+A", &error);
      if (action->flag && *action->text == '\0')
        _stw_input_add_chord (events, "Delete", &error);
      _stw_input_add_text (events, action->text);
      json_object_set_int_member (action->result, "typed", g_utf8_strlen (action->text, -1));
      json_object_set_boolean_member (action->result, "replaced", action->flag);
    }
  else
    add_click (events, window, action, action->x, action->y);
  send_events (task, action->acted_on, events);
}

/* --- pointer actions: prepare, locate, press --------------------------- */

static void
on_located (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(StwSurface) root = NULL;
  GError *error = NULL;
  double dx = 0, dy = 0;

  root = _stw_surface_frame_offset_finish (STW_SURFACE (object), result, &dx, &dy, &error);
  if (root == NULL)
    {
      action_fail (task, error);
      return;
    }
  if (action->second)
    {
      action->x2 += dx;
      action->y2 += dy;
      send_pointer_input (task);
      return;
    }
  action->x += dx;
  action->y += dy;
  if (action->kind == ACTION_DRAG)
    {
      action->second = TRUE;
      run_pointer (task);
      return;
    }
  send_pointer_input (task);
}

static void
on_pointer (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(StwSurface) acted_on = NULL;
  GError *error = NULL;

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);
  if (answer == NULL)
    {
      /* The page waited its slice; ask again while the budget lasts. */
      if (g_error_matches (error, STW_ERROR, STW_ERROR_ELEMENT_NOT_VISIBLE) && time_left (action) &&
          !action->options->force)
        {
          g_clear_error (&error);
          if (g_task_return_error_if_cancelled (task))
            g_object_unref (task);
          else
            run_pointer (task);
          return;
        }
      /* Covered to the end after the page stole a click: say by what. */
      if (action->received_by != NULL && g_error_matches (error, STW_ERROR, STW_ERROR_ELEMENT_NOT_VISIBLE))
        {
          JsonObject *known = stw_error_get_details (error);
          g_autoptr(JsonObject) details = json_object_new ();

          stw_json_object_copy_members (details, known, NULL);
          json_object_set_string_member (details, "received_by", action->received_by);
          stw_error_set_details (error, details);
        }
      action_fail (task, error);
      return;
    }

  take_target (action, action->kind == ACTION_DRAG ? (action->second ? "target" : "source") : "target", answer);
  action->guard = json_object_get_int_member_with_default (answer, "guard", 0);
  if (json_object_get_boolean_member_with_default (answer, "already", FALSE))
    {
      json_object_set_boolean_member (action->result, "checked", action->flag);
      action_done (task);
      return;
    }

  g_set_object (&action->acted_on, acted_on);
  if (action->second)
    {
      action->x2 = json_object_get_double_member_with_default (answer, "x", 0);
      action->y2 = json_object_get_double_member_with_default (answer, "y", 0);
    }
  else
    {
      action->x = json_object_get_double_member_with_default (answer, "x", 0);
      action->y = json_object_get_double_member_with_default (answer, "y", 0);
    }

  if (stw_surface_get_kind (acted_on) != STW_SURFACE_KIND_FRAME)
    {
      /* A window's viewport is its own: no round trip. */
      if (action->kind == ACTION_DRAG && !action->second)
        {
          action->second = TRUE;
          run_pointer (task);
        }
      else
        send_pointer_input (task);
      return;
    }
  _stw_surface_frame_offset_async (acted_on, g_task_get_cancellable (task), on_located, task);
}

static void
run_pointer (GTask *task)
{
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) args = json_object_new ();

  json_object_set_boolean_member (args, "force", action->options->force);
  json_object_set_int_member (args, "waitMs", wait_slice (action));
  /* Hovering a disabled button shows its tooltip; a drop zone is not a
   * control. Neither needs to be enabled. */
  if (action->kind == ACTION_HOVER || action->second)
    json_object_set_boolean_member (args, "enabled", FALSE);
  if (action->kind == ACTION_SET_CHECKED)
    json_object_set_boolean_member (args, "checked", action->flag);
  /* A click reaches its target or nobody (js/guard.js); force presses
   * wherever the point is, as a person would. */
  if ((action->kind == ACTION_CLICK || action->kind == ACTION_SET_CHECKED) && !action->options->force)
    {
      json_object_set_boolean_member (args, "guard", TRUE);
      json_object_set_string_member (args, "button", action->options->button);
      json_object_set_int_member (args, "clickCount", action->options->click_count);
    }
  _stw_surface_element_op_async (g_task_get_source_object (task),
                                 action->second ? action->destination : action->target,
                                 "pointer", args, g_task_get_cancellable (task), on_pointer, task);
}

/* --- element ops without the pointer ------------------------------------- */

static void run_fill (GTask *task);

static void
on_filled (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, NULL, &error);
  if (answer == NULL)
    {
      if (g_error_matches (error, STW_ERROR, STW_ERROR_ELEMENT_NOT_VISIBLE) && time_left (action) &&
          !action->options->force)
        {
          g_clear_error (&error);
          if (g_task_return_error_if_cancelled (task))
            g_object_unref (task);
          else
            run_fill (task);
          return;
        }
      action_fail (task, error);
      return;
    }
  take_target (action, "target", answer);
  if (action->kind == ACTION_CLEAR)
    json_object_set_boolean_member (action->result, "cleared", TRUE);
  action_done (task);
}

static void
run_fill (GTask *task)
{
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) args = json_object_new ();

  json_object_set_string_member (args, "text", action->kind == ACTION_CLEAR ? "" : action->text);
  json_object_set_boolean_member (args, "force", action->options->force);
  json_object_set_int_member (args, "waitMs", wait_slice (action));
  _stw_surface_element_op_async (g_task_get_source_object (task), action->target, "fill", args,
                                 g_task_get_cancellable (task), on_filled, task);
}

/* An element op whose answer is the result (target and its fields). */
static void
on_simple_op (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, NULL, &error);
  if (answer == NULL)
    {
      action_fail (task, error);
      return;
    }
  {
    static const char * const page_only[] = { "x", "y", "key", "changed", NULL };

    stw_json_object_copy_members (action->result, answer, page_only);
  }
  action_done (task);
}

/* --- keyboard -------------------------------------------------------------- */

static void
send_keys (GTask      *task,
           StwSurface *surface)
{
  Action *action = g_task_get_task_data (task);
  g_autoptr(GPtrArray) events = _stw_input_events_new ();
  GError *error = NULL;

  if (action->kind == ACTION_TYPE_TEXT)
    {
      _stw_input_add_text (events, action->text);
      json_object_set_int_member (action->result, "typed", g_utf8_strlen (action->text, -1));
    }
  else if (action->kind == ACTION_PRESS_KEY)
    {
      if (!_stw_input_add_chord (events, action->text, &error))
        {
          action_fail (task, error);
          return;
        }
      json_object_set_string_member (action->result, "key", action->text);
    }
  else
    {
      JsonArray *keys = json_array_new ();

      for (guint i = 0; action->strv[i] != NULL; i++)
        {
          if (!_stw_input_add_chord (events, action->strv[i], &error))
            {
              json_array_unref (keys);
              action_fail (task, error);
              return;
            }
          json_array_add_string_element (keys, action->strv[i]);
        }
      json_object_set_array_member (action->result, "keys", keys);
    }
  g_set_object (&action->acted_on, surface);
  send_events (task, surface, events);
}

static void
on_focused (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(StwSurface) acted_on = NULL;
  GError *error = NULL;

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);
  if (answer == NULL)
    {
      /* The focus did not land in the target: no key was pressed. */
      if (g_error_matches (error, STW_ERROR, STW_ERROR_TYPE_NO_EFFECT))
        error = keys_refused (error);
      action_fail (task, error);
      return;
    }
  take_target (action, "target", answer);
  action->guard = json_object_get_int_member_with_default (answer, "guard", 0);
  send_keys (task, acted_on);
}

static void
run_keys (GTask *task)
{
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) args = NULL;

  if (action->target == NULL)
    {
      send_keys (task, g_task_get_source_object (task));
      return;
    }
  /* The keys go to the target or nowhere (js/guard.js). */
  args = json_object_new ();
  json_object_set_boolean_member (args, "guard", TRUE);
  _stw_surface_element_op_async (g_task_get_source_object (task), action->target, "focus", args,
                                 g_task_get_cancellable (task), on_focused, task);
}

/* --- files ----------------------------------------------------------------- */

/* The paths a file tool was given: how many, and absolute. */
static gboolean
check_paths (const char * const *paths,
             guint               max_files,
             GError            **error)
{
  guint n = paths ? g_strv_length ((GStrv) paths) : 0;

  if (n == 0 || n > max_files)
    {
      g_propagate_error (error, bad_field ("paths", n == 0 ? _("Give at least one file")
                                                           : max_files == SET_FILES_MAX ? _("At most 20 files")
                                                                                        : _("At most 10 files")));
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (!g_path_is_absolute (paths[i]))
      {
        g_propagate_error (error, stw_error_new_code (STW_ERROR_ABSOLUTE_PATH_REQUIRED, _("Not an absolute path: %s"), paths[i]));
        return FALSE;
      }
  return TRUE;
}

/* set_files: each file opened beneath @app_root (see _stw_confine_open())
 * and copied, at most SET_FILES_MAX_BYTES of it whatever its size claims,
 * into the session's private directory. The browser reads files by path,
 * when the page asks, long after this: it is handed the copies, which
 * nobody can swap. */
static GStrv
copy_files (StwSurface         *self,
            const char * const *paths,
            const char         *app_root,
            GError            **error)
{
  g_autoptr(GStrvBuilder) copies = g_strv_builder_new ();
  StwSurfaceShared *shared = _stw_surface_get_shared (self);
  const char *dir;

  if (!check_paths (paths, SET_FILES_MAX, error))
    return NULL;
  if (!shared->alive)
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_SURFACE_CLOSED, _("The surface's session has ended")));
      return NULL;
    }
  if ((dir = _stw_surface_shared_get_files_dir (shared, error)) == NULL)
    return NULL;
  for (guint i = 0; paths[i] != NULL; i++)
    {
      goffset copied = 0;
      g_autofree char *copy = _stw_confine_copy_file (app_root, paths[i], dir, SET_FILES_MAX_BYTES, "paths", &copied, error);

      if (copy == NULL)
        return NULL;
      g_strv_builder_add (copies, copy);
    }
  return g_strv_builder_end (copies);
}

static void
on_files_set (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  GError *error = NULL;
  JsonArray *names;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  {
    /* The input's handle is of no further use. */
    JsonObject *release = json_object_new ();

    json_object_set_string_member (release, "objectGroup", FILES_OBJECT_GROUP);
    stw_transport_send_notification (STW_TRANSPORT (object), "Runtime.releaseObjectGroup", release,
                                     stw_surface_get_cdp_session_id (action->acted_on));
    json_object_unref (release);
  }
  if (reply == NULL)
    {
      action_fail (task, error);
      return;
    }
  names = json_array_new ();
  for (guint i = 0; action->strv[i] != NULL; i++)
    {
      g_autofree char *name = g_path_get_basename (action->strv[i]);
      json_array_add_string_element (names, name);
    }
  json_object_set_array_member (action->result, "files", names);
  action_done (task);
}

static void
on_file_input_object (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  JsonObject *remote;
  JsonArray *files;
  GError *error = NULL;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  if (reply == NULL)
    {
      action_fail (task, error);
      return;
    }
  remote = json_object_has_member (reply, "result") ? json_object_get_object_member (reply, "result") : NULL;
  if (remote == NULL || stw_json_get_string (remote, "objectId") == NULL)
    {
      action_fail (task, stw_error_new_code (STW_ERROR_REF_NOT_FOUND, _("The file input went away")));
      return;
    }
  files = json_array_new ();
  for (guint i = 0; action->strv[i] != NULL; i++)
    json_array_add_string_element (files, action->strv[i]);
  json_object_set_array_member (params, "files", files);
  json_object_set_string_member (params, "objectId", stw_json_get_string (remote, "objectId"));
  /* The browser reads the files and fires input and change. */
  stw_transport_call_async (STW_TRANSPORT (object), "DOM.setFileInputFiles", params,
                            stw_surface_get_cdp_session_id (action->acted_on), 0,
                            g_task_get_cancellable (task), on_files_set, task);
}

static void
on_file_input (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(StwSurface) acted_on = NULL;
  g_autofree char *expression = NULL;
  GError *error = NULL;

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);
  if (answer == NULL)
    {
      action_fail (task, error);
      return;
    }
  take_target (action, "target", answer);
  g_set_object (&action->acted_on, acted_on);

  /* The input itself, as a remote object of the world that answered. */
  expression = g_strdup_printf ("globalThis.__stagewright.element(%" G_GINT64_FORMAT ")",
                                json_object_get_int_member_with_default (answer, "key", 0));
  json_object_set_string_member (params, "expression", expression);
  json_object_set_int_member (params, "contextId", _stw_surface_get_world_id (acted_on));
  json_object_set_string_member (params, "objectGroup", FILES_OBJECT_GROUP);
  stw_transport_call_async (_stw_surface_get_transport (acted_on), "Runtime.evaluate", params,
                            stw_surface_get_cdp_session_id (acted_on), 0, g_task_get_cancellable (task),
                            on_file_input_object, task);
}

/* [{name, type, data (base64)}] for the page to rebuild as File objects:
 * each file opened beneath @app_root and read here, never more than the
 * limits whatever its size claims. */
static JsonArray *
read_files (const char * const *paths,
            const char         *app_root,
            const char         *mime_type,
            GError            **error)
{
  g_autoptr(JsonArray) files = json_array_new ();
  goffset total = 0;

  if (!check_paths (paths, DROP_FILES_MAX, error))
    return NULL;
  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autoptr(GBytes) contents = NULL;
      g_autofree char *name = g_path_get_basename (paths[i]);
      g_autofree char *guessed = NULL;
      g_autofree char *data = NULL;
      JsonObject *file;
      gsize length = 0;
      const guchar *bytes;

      contents = _stw_confine_read_file (app_root, paths[i], MIN (DROP_MAX_BYTES, DROP_MAX_TOTAL - total),
                                         "paths", error);
      if (contents == NULL)
        return NULL;
      bytes = g_bytes_get_data (contents, &length);
      total += (goffset) length;
      if (mime_type == NULL)
        {
          g_autofree char *type = g_content_type_guess (name, NULL, 0, NULL);
          guessed = g_content_type_get_mime_type (type);
        }
      file = json_object_new ();
      json_object_set_string_member (file, "name", name);
      json_object_set_string_member (file, "type", mime_type ? mime_type : guessed ? guessed : "");
      data = g_base64_encode (bytes, length);
      json_object_set_string_member (file, "data", data);
      json_array_add_object_element (files, file);
    }
  return g_steal_pointer (&files);
}

/* --- scrolling ------------------------------------------------------------- */

static void
on_wheel_located (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(GPtrArray) events = _stw_input_events_new ();
  g_autoptr(StwSurface) root = NULL;
  GError *error = NULL;
  double dx = 0, dy = 0;

  root = _stw_surface_frame_offset_finish (STW_SURFACE (object), result, &dx, &dy, &error);
  if (root == NULL)
    {
      action_fail (task, error);
      return;
    }
  _stw_input_add_wheel (events, action->x + dx, action->y + dy, action->dx, action->dy);
  if (action->target == NULL)
    {
      json_object_set_double_member (action->result, "dx", action->dx);
      json_object_set_double_member (action->result, "dy", action->dy);
    }
  send_events (task, STW_SURFACE (object), events);
}

static void
on_scroll_point (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  Action *action = g_task_get_task_data (task);
  g_autoptr(StwSurface) acted_on = NULL;
  g_autoptr(JsonNode) viewport = NULL;
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;

  if (action->target != NULL)
    {
      answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, &acted_on, &error);
      if (answer != NULL)
        {
          take_target (action, "target", answer);
          action->x = json_object_get_double_member_with_default (answer, "x", 0);
          action->y = json_object_get_double_member_with_default (answer, "y", 0);
        }
    }
  else
    {
      viewport = _stw_surface_call_page_finish (STW_SURFACE (object), result, NULL, &error);
      if (viewport != NULL && JSON_NODE_HOLDS_OBJECT (viewport))
        {
          JsonObject *size = json_node_get_object (viewport);

          acted_on = g_object_ref (STW_SURFACE (object));
          action->x = json_object_get_double_member_with_default (size, "width", 0) / 2;
          action->y = json_object_get_double_member_with_default (size, "height", 0) / 2;
        }
    }
  if (error != NULL)
    {
      action_fail (task, error);
      return;
    }
  if (action->kind == ACTION_SCROLL_INTO_VIEW || (action->dx == 0 && action->dy == 0 && action->target != NULL))
    {
      action_done (task);
      return;
    }
  _stw_surface_frame_offset_async (acted_on, g_task_get_cancellable (task), on_wheel_located, task);
}

/* --- starting, finishing, blocking ------------------------------------------- */

static void
action_start (GTask *task)
{
  StwSurface *self = g_task_get_source_object (task);
  Action *action = g_task_get_task_data (task);

  if (action->kind == ACTION_CLICK || action->kind == ACTION_HOVER || action->kind == ACTION_DRAG ||
      action->kind == ACTION_TYPE_INTO_EDITOR || action->kind == ACTION_SET_CHECKED)
    run_pointer (task);
  else if (action->kind == ACTION_FILL || action->kind == ACTION_CLEAR)
    run_fill (task);
  else if (action->kind == ACTION_TYPE_TEXT || action->kind == ACTION_PRESS_KEY ||
           action->kind == ACTION_PRESS_SEQUENCE)
    run_keys (task);
  else if (action->kind == ACTION_SELECT_OPTIONS)
    {
      g_autoptr(JsonObject) args = json_object_new ();
      JsonArray *values = json_array_new ();

      for (guint i = 0; action->strv[i] != NULL; i++)
        json_array_add_string_element (values, action->strv[i]);
      json_object_set_array_member (args, "values", values);
      _stw_surface_element_op_async (self, action->target, "select", args, g_task_get_cancellable (task),
                                     on_simple_op, task);
    }
  else if (action->kind == ACTION_SET_FILES)
    {
      g_autoptr(JsonObject) args = json_object_new ();

      json_object_set_int_member (args, "count", g_strv_length (action->strv));
      _stw_surface_element_op_async (self, action->target, "fileInput", args, g_task_get_cancellable (task),
                                     on_file_input, task);
    }
  else if (action->kind == ACTION_DROP_FILES)
    {
      g_autoptr(JsonObject) args = json_object_new ();

      json_object_set_array_member (args, "files", g_steal_pointer (&action->files));
      json_object_set_boolean_member (args, "force", action->options->force);
      _stw_surface_element_op_async (self, action->target, "drop", args, g_task_get_cancellable (task),
                                     on_simple_op, task);
    }
  else if (action->target != NULL)   /* scroll, scroll into view */
    _stw_surface_element_op_async (self, action->target, "scrollIntoView", NULL, g_task_get_cancellable (task),
                                   on_scroll_point, task);
  else
    _stw_surface_call_page_async (self, "viewport", NULL, g_task_get_cancellable (task), on_scroll_point, task);
}

static StwActionResult *
action_finish (StwSurface    *self,
               GAsyncResult  *result,
               gpointer       source_tag,
               GError       **error)
{
  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Fails the task at once with @error (consumed). */
static void
action_refuse (GTask  *task,
               GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* --- click ------------------------------------------------------------------ */

/**
 * stw_surface_click_async:
 * @self: a #StwSurface
 * @target: the element (a ref may name an element of a frame of @self)
 * @options: (nullable): force, timeout, button and click count
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the click is done
 * @user_data: data for @callback
 *
 * Clicks the element with the real mouse: scrolls it into view, waits
 * until it is visible, enabled, stable and not covered (unless forced),
 * then moves, presses and releases at its centre. A JavaScript dialog the
 * click opens completes it ([method@Stagewright.ActionResult.get_dialog]); the dialog stays open.
 *
 * The click reaches the element or nobody: pointer events the page aims
 * at another element meanwhile (it swapped or covered the element) are
 * stopped before the page sees them, and the click is made again while
 * the timeout lasts (docs/page-ops.md, "Input reaches its target").
 *
 * Fails with `REF_NOT_FOUND`, `SELECTOR_NO_MATCH`, `ELEMENT_NOT_VISIBLE`
 * (naming what covers it, and in `received_by` what the page put in its
 * place), `ELEMENT_DISABLED`, `NOT_RUNNING`,
 * `SURFACE_CLOSED`, `CDP_DISCONNECTED`, `CDP_TIMEOUT`, or
 * `G_IO_ERROR_CANCELLED`.
 *
 * Since: 1.0
 */
void
stw_surface_click_async (StwSurface             *self,
                         const StwTarget        *target,
                         const StwActionOptions *options,
                         GCancellable           *cancellable,
                         GAsyncReadyCallback     callback,
                         gpointer                user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  action_start (action_task_new (self, ACTION_CLICK, target, options, stw_surface_click_async,
                                 cancellable, callback, user_data));
}

/**
 * stw_surface_click_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.click_async].
 *
 * Returns: (transfer full): the element clicked, and the dialog the click
 *   opened
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_click_finish (StwSurface    *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  return action_finish (self, result, stw_surface_click_async, error);
}

/**
 * stw_surface_click_sync:
 * @self: a #StwSurface
 * @target: the element
 * @options: (nullable): force, timeout, button and click count
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.click_async] (see "Blocking calls"
 * in the architecture guide).
 *
 * Returns: (transfer full): the element clicked, and the dialog the click
 *   opened
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_click_sync (StwSurface             *self,
                        const StwTarget        *target,
                        const StwActionOptions *options,
                        GCancellable           *cancellable,
                        GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_click_async (self, target, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_click_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- hover ------------------------------------------------------------------ */

/**
 * stw_surface_hover_async:
 * @self: a #StwSurface
 * @target: the element
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Moves the real mouse over the element's centre, after the checks of
 * [method@Stagewright.Surface.click_async].
 *
 * Since: 1.0
 */
void
stw_surface_hover_async (StwSurface             *self,
                         const StwTarget        *target,
                         const StwActionOptions *options,
                         GCancellable           *cancellable,
                         GAsyncReadyCallback     callback,
                         gpointer                user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  action_start (action_task_new (self, ACTION_HOVER, target, options, stw_surface_hover_async,
                                 cancellable, callback, user_data));
}

/**
 * stw_surface_hover_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.hover_async].
 *
 * Returns: (transfer full): the element hovered
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_hover_finish (StwSurface    *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  return action_finish (self, result, stw_surface_hover_async, error);
}

/**
 * stw_surface_hover_sync:
 * @self: a #StwSurface
 * @target: the element
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.hover_async].
 *
 * Returns: (transfer full): the element hovered
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_hover_sync (StwSurface             *self,
                        const StwTarget        *target,
                        const StwActionOptions *options,
                        GCancellable           *cancellable,
                        GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_hover_async (self, target, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_hover_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- drag ------------------------------------------------------------------- */

/**
 * stw_surface_drag_async:
 * @self: a #StwSurface
 * @source: the element to press
 * @destination: the element to release over
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Drags with the real mouse: presses at the source's centre, moves in
 * steps to the destination's centre and releases there. Both ends pass
 * the checks of [method@Stagewright.Surface.click_async].
 *
 * Since: 1.0
 */
void
stw_surface_drag_async (StwSurface             *self,
                        const StwTarget        *source,
                        const StwTarget        *destination,
                        const StwActionOptions *options,
                        GCancellable           *cancellable,
                        GAsyncReadyCallback     callback,
                        gpointer                user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (source != NULL && destination != NULL);
  task = action_task_new (self, ACTION_DRAG, source, options, stw_surface_drag_async, cancellable, callback, user_data);
  ((Action *) g_task_get_task_data (task))->destination = stw_target_copy (destination);
  action_start (task);
}

/**
 * stw_surface_drag_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.drag_async].
 *
 * Returns: (transfer full): the element dropped on, and the source dragged
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_drag_finish (StwSurface    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  return action_finish (self, result, stw_surface_drag_async, error);
}

/**
 * stw_surface_drag_sync:
 * @self: a #StwSurface
 * @source: the element to press
 * @destination: the element to release over
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.drag_async].
 *
 * Returns: (transfer full): the element dropped on, and the source dragged
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_drag_sync (StwSurface             *self,
                       const StwTarget        *source,
                       const StwTarget        *destination,
                       const StwActionOptions *options,
                       GCancellable           *cancellable,
                       GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_drag_async (self, source, destination, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_drag_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- fill and clear ------------------------------------------------------------ */

/**
 * stw_surface_fill_async:
 * @self: a #StwSurface
 * @target: an input, a textarea or a contenteditable element
 * @text: what it should hold
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Replaces the element's content with @text in one step, as Playwright's
 * `fill` does: focus, select all, set the value through the native
 * setter (contenteditable: insert the text), then `input` and `change`.
 *
 * The element took the text when it holds it or its content changed, or
 * when the app put its content back and changed the page meanwhile (a
 * TodoMVC box that adds the item on `change` and empties itself). Fails
 * with `TYPE_NO_EFFECT` when the element swallowed the text (its content
 * is as before after a short settle and nothing else changed — an
 * editor's hidden textarea: use
 * [method@Stagewright.Surface.type_into_editor_async]),
 * `ELEMENT_DISABLED` (disabled or read-only), `BAD_ARGUMENT` (not
 * fillable), and as [method@Stagewright.Surface.click_async].
 *
 * Since: 1.0
 */
void
stw_surface_fill_async (StwSurface             *self,
                        const StwTarget        *target,
                        const char             *text,
                        const StwActionOptions *options,
                        GCancellable           *cancellable,
                        GAsyncReadyCallback     callback,
                        gpointer                user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL && text != NULL);
  task = action_task_new (self, ACTION_FILL, target, options, stw_surface_fill_async, cancellable, callback, user_data);
  ((Action *) g_task_get_task_data (task))->text = g_strdup (text);
  action_start (task);
}

/**
 * stw_surface_fill_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.fill_async].
 *
 * Returns: (transfer full): the element filled
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_fill_finish (StwSurface    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  return action_finish (self, result, stw_surface_fill_async, error);
}

/**
 * stw_surface_fill_sync:
 * @self: a #StwSurface
 * @target: the element
 * @text: what it should hold
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.fill_async].
 *
 * Returns: (transfer full): the element filled
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_fill_sync (StwSurface             *self,
                       const StwTarget        *target,
                       const char             *text,
                       const StwActionOptions *options,
                       GCancellable           *cancellable,
                       GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_fill_async (self, target, text, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_fill_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_surface_clear_async:
 * @self: a #StwSurface
 * @target: an input, a textarea or a contenteditable element
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Empties the element, as [method@Stagewright.Surface.fill_async] with "".
 *
 * Since: 1.0
 */
void
stw_surface_clear_async (StwSurface             *self,
                         const StwTarget        *target,
                         const StwActionOptions *options,
                         GCancellable           *cancellable,
                         GAsyncReadyCallback     callback,
                         gpointer                user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  action_start (action_task_new (self, ACTION_CLEAR, target, options, stw_surface_clear_async,
                                 cancellable, callback, user_data));
}

/**
 * stw_surface_clear_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.clear_async].
 *
 * Returns: (transfer full): the element cleared
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_clear_finish (StwSurface    *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  return action_finish (self, result, stw_surface_clear_async, error);
}

/**
 * stw_surface_clear_sync:
 * @self: a #StwSurface
 * @target: the element
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.clear_async].
 *
 * Returns: (transfer full): the element cleared
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_clear_sync (StwSurface             *self,
                        const StwTarget        *target,
                        const StwActionOptions *options,
                        GCancellable           *cancellable,
                        GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_clear_async (self, target, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_clear_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- keyboard ------------------------------------------------------------------ */

/**
 * stw_surface_type_text_async:
 * @self: a #StwSurface
 * @target: (nullable): the element to focus first; %NULL types into
 *   whatever has the focus
 * @text: what to type, key by key (a character no key of a US keyboard
 *   makes is inserted as text, as an input method would)
 * @options: (nullable): unused but for symmetry
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Types with real key events: keydown, keypress, input and keyup reach
 * the page for every character. With @target, every key goes to it or
 * nowhere: fails with `TYPE_NO_EFFECT` (`details.received_by`,
 * `details.keys`: how many reached it) when the page moved the focus
 * away; the keys after that are stopped before the page sees them. The
 * same holds for [method@Stagewright.Surface.press_key_async] and
 * [method@Stagewright.Surface.press_sequence_async].
 *
 * Since: 1.0
 */
void
stw_surface_type_text_async (StwSurface             *self,
                             const StwTarget        *target,
                             const char             *text,
                             const StwActionOptions *options,
                             GCancellable           *cancellable,
                             GAsyncReadyCallback     callback,
                             gpointer                user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (text != NULL);
  task = action_task_new (self, ACTION_TYPE_TEXT, target, options, stw_surface_type_text_async,
                          cancellable, callback, user_data);
  ((Action *) g_task_get_task_data (task))->text = g_strdup (text);
  action_start (task);
}

/**
 * stw_surface_type_text_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.type_text_async].
 *
 * Returns: (transfer full): the element that had the focus, if a target was
 *   given
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_type_text_finish (StwSurface    *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  return action_finish (self, result, stw_surface_type_text_async, error);
}

/**
 * stw_surface_type_text_sync:
 * @self: a #StwSurface
 * @target: (nullable): the element to focus first
 * @text: what to type
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.type_text_async].
 *
 * Returns: (transfer full): the element that had the focus, if a target was
 *   given
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_type_text_sync (StwSurface             *self,
                            const StwTarget        *target,
                            const char             *text,
                            const StwActionOptions *options,
                            GCancellable           *cancellable,
                            GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_type_text_async (self, target, text, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_type_text_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_surface_type_into_editor_async:
 * @self: a #StwSurface
 * @target: the editor's content area (CodeMirror's, Monaco's, a
 *   terminal's: what a person would click)
 * @text: what to type
 * @replace: select everything first (Control+A; Command+A on macOS), so
 *   @text replaces it; with an empty @text, clears the editor
 * @options: (nullable): timeout (the checks always run)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Clicks the editor with the real mouse, then types with real keys into
 * whatever the click focused: editors that read key events (rather than
 * a value) get the text into their model.
 *
 * Since: 1.0
 */
void
stw_surface_type_into_editor_async (StwSurface             *self,
                                    const StwTarget        *target,
                                    const char             *text,
                                    gboolean                replace,
                                    const StwActionOptions *options,
                                    GCancellable           *cancellable,
                                    GAsyncReadyCallback     callback,
                                    gpointer                user_data)
{
  GTask *task;
  Action *action;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL && text != NULL);
  task = action_task_new (self, ACTION_TYPE_INTO_EDITOR, target, options, stw_surface_type_into_editor_async,
                          cancellable, callback, user_data);
  action = g_task_get_task_data (task);
  action->text = g_strdup (text);
  action->flag = replace;
  action->options->force = FALSE;
  action_start (task);
}

/**
 * stw_surface_type_into_editor_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.type_into_editor_async].
 *
 * Returns: (transfer full): the editor typed into
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_type_into_editor_finish (StwSurface    *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return action_finish (self, result, stw_surface_type_into_editor_async, error);
}

/**
 * stw_surface_type_into_editor_sync:
 * @self: a #StwSurface
 * @target: the editor's content area
 * @text: what to type
 * @replace: replace the editor's content
 * @options: (nullable): timeout
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.type_into_editor_async].
 *
 * Returns: (transfer full): the editor typed into
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_type_into_editor_sync (StwSurface             *self,
                                   const StwTarget        *target,
                                   const char             *text,
                                   gboolean                replace,
                                   const StwActionOptions *options,
                                   GCancellable           *cancellable,
                                   GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_type_into_editor_async (self, target, text, replace, options, cancellable,
                                                       _stw_sync_call_callback, &call);
  ret = stw_surface_type_into_editor_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_surface_press_key_async:
 * @self: a #StwSurface
 * @target: (nullable): the element to focus first
 * @key: a key or chord: `Enter`, `a`, `Control+A`, `Shift+ArrowLeft`,
 *   `F5` (modifiers: Shift, Control, Alt, Meta)
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Presses a key or chord as a US keyboard would. Fails with
 * `BAD_ARGUMENT` for a chord it cannot press.
 *
 * Since: 1.0
 */
void
stw_surface_press_key_async (StwSurface             *self,
                             const StwTarget        *target,
                             const char             *key,
                             const StwActionOptions *options,
                             GCancellable           *cancellable,
                             GAsyncReadyCallback     callback,
                             gpointer                user_data)
{
  GTask *task;
  GError *error = NULL;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (key != NULL);
  task = action_task_new (self, ACTION_PRESS_KEY, target, options, stw_surface_press_key_async,
                          cancellable, callback, user_data);
  ((Action *) g_task_get_task_data (task))->text = g_strdup (key);
  if (!_stw_input_chord_is_valid (key, &error))
    action_refuse (task, error);
  else
    action_start (task);
}

/**
 * stw_surface_press_key_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.press_key_async].
 *
 * Returns: (transfer full): the element that had the focus, if a target was
 *   given
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_press_key_finish (StwSurface    *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  return action_finish (self, result, stw_surface_press_key_async, error);
}

/**
 * stw_surface_press_key_sync:
 * @self: a #StwSurface
 * @target: (nullable): the element to focus first
 * @key: a key or chord
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.press_key_async].
 *
 * Returns: (transfer full): the element that had the focus, if a target was
 *   given
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_press_key_sync (StwSurface             *self,
                            const StwTarget        *target,
                            const char             *key,
                            const StwActionOptions *options,
                            GCancellable           *cancellable,
                            GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_press_key_async (self, target, key, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_press_key_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_surface_press_sequence_async:
 * @self: a #StwSurface
 * @target: (nullable): the element to focus first
 * @keys: (array zero-terminated=1): keys or chords, pressed in order
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Presses several keys or chords in order; every one is checked before
 * any is pressed (`BAD_ARGUMENT` naming the first bad one).
 *
 * Since: 1.0
 */
void
stw_surface_press_sequence_async (StwSurface             *self,
                                  const StwTarget        *target,
                                  const char * const     *keys,
                                  const StwActionOptions *options,
                                  GCancellable           *cancellable,
                                  GAsyncReadyCallback     callback,
                                  gpointer                user_data)
{
  GTask *task;
  GError *error = NULL;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (keys != NULL);
  task = action_task_new (self, ACTION_PRESS_SEQUENCE, target, options, stw_surface_press_sequence_async,
                          cancellable, callback, user_data);
  ((Action *) g_task_get_task_data (task))->strv = g_strdupv ((GStrv) keys);
  if (keys[0] == NULL)
    error = bad_field ("keys", _("Give at least one key"));
  for (guint i = 0; error == NULL && keys[i] != NULL; i++)
    _stw_input_chord_is_valid (keys[i], &error);
  if (error != NULL)
    action_refuse (task, error);
  else
    action_start (task);
}

/**
 * stw_surface_press_sequence_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.press_sequence_async].
 *
 * Returns: (transfer full): the element that had the focus, if a target was
 *   given
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_press_sequence_finish (StwSurface    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  return action_finish (self, result, stw_surface_press_sequence_async, error);
}

/**
 * stw_surface_press_sequence_sync:
 * @self: a #StwSurface
 * @target: (nullable): the element to focus first
 * @keys: (array zero-terminated=1): keys or chords
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.press_sequence_async].
 *
 * Returns: (transfer full): the element that had the focus, if a target was
 *   given
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_press_sequence_sync (StwSurface             *self,
                                 const StwTarget        *target,
                                 const char * const     *keys,
                                 const StwActionOptions *options,
                                 GCancellable           *cancellable,
                                 GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_press_sequence_async (self, target, keys, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_press_sequence_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- options and check boxes ---------------------------------------------------- */

/**
 * stw_surface_select_options_async:
 * @self: a #StwSurface
 * @target: a `<select>` (or its label)
 * @values: (array zero-terminated=1): options to choose, each by its value
 *   or, when no option has that value, by its label
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Chooses exactly these options (one for a single select), then fires
 * `input` and `change`. Fails with `BAD_ARGUMENT` (no such option; the
 * details list the options), `ELEMENT_DISABLED`.
 *
 * Since: 1.0
 */
void
stw_surface_select_options_async (StwSurface             *self,
                                  const StwTarget        *target,
                                  const char * const     *values,
                                  const StwActionOptions *options,
                                  GCancellable           *cancellable,
                                  GAsyncReadyCallback     callback,
                                  gpointer                user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL && values != NULL);
  task = action_task_new (self, ACTION_SELECT_OPTIONS, target, options, stw_surface_select_options_async,
                          cancellable, callback, user_data);
  ((Action *) g_task_get_task_data (task))->strv = g_strdupv ((GStrv) values);
  if (values[0] == NULL)
    action_refuse (task, bad_field ("values", _("Give at least one value")));
  else
    action_start (task);
}

/**
 * stw_surface_select_options_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.select_options_async].
 *
 * Returns: (transfer full): the select, and in its values the values of the
 *   options chosen
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_select_options_finish (StwSurface    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  return action_finish (self, result, stw_surface_select_options_async, error);
}

/**
 * stw_surface_select_options_sync:
 * @self: a #StwSurface
 * @target: a `<select>`
 * @values: (array zero-terminated=1): values or labels
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.select_options_async].
 *
 * Returns: (transfer full): the select, and in its values the values of the
 *   options chosen
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_select_options_sync (StwSurface             *self,
                                 const StwTarget        *target,
                                 const char * const     *values,
                                 const StwActionOptions *options,
                                 GCancellable           *cancellable,
                                 GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_select_options_async (self, target, values, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_select_options_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_surface_set_checked_async:
 * @self: a #StwSurface
 * @target: a checkbox, radio button, switch (or their label)
 * @checked: the state wanted
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Checks or unchecks with a real click, only when the state differs
 * (idempotent), then verifies the new state (`ELEMENT_DISABLED` when the
 * app refused it). Unchecking a radio button is `BAD_ARGUMENT`.
 *
 * Since: 1.0
 */
void
stw_surface_set_checked_async (StwSurface             *self,
                               const StwTarget        *target,
                               gboolean                checked,
                               const StwActionOptions *options,
                               GCancellable           *cancellable,
                               GAsyncReadyCallback     callback,
                               gpointer                user_data)
{
  GTask *task;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  task = action_task_new (self, ACTION_SET_CHECKED, target, options, stw_surface_set_checked_async,
                          cancellable, callback, user_data);
  ((Action *) g_task_get_task_data (task))->flag = !!checked;
  action_start (task);
}

/**
 * stw_surface_set_checked_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.set_checked_async].
 *
 * Returns: (transfer full): the element checked or unchecked
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_set_checked_finish (StwSurface    *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  return action_finish (self, result, stw_surface_set_checked_async, error);
}

/**
 * stw_surface_set_checked_sync:
 * @self: a #StwSurface
 * @target: a checkbox, radio button or switch
 * @checked: the state wanted
 * @options: (nullable): force and timeout
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.set_checked_async].
 *
 * Returns: (transfer full): the element checked or unchecked
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_set_checked_sync (StwSurface             *self,
                              const StwTarget        *target,
                              gboolean                checked,
                              const StwActionOptions *options,
                              GCancellable           *cancellable,
                              GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_set_checked_async (self, target, checked, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_set_checked_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- files ------------------------------------------------------------------------ */

/**
 * stw_surface_set_files_async:
 * @self: a #StwSurface
 * @target: an `<input type=file>` (or its label)
 * @paths: (array zero-terminated=1): 1…20 absolute paths of existing files,
 *   at most 50 MiB each
 * @app_root: (nullable): the directory every file must lie in (the
 *   server's `--app-root`), symlinks resolved
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Hands the files to the input through the browser
 * (`DOM.setFileInputFiles`), which fires `input` and `change`. Each file
 * is opened beneath @app_root (see
 * [method@Stagewright.Dispatcher.open_file]) and copied, at most 50 MiB of
 * it whatever its size claims, into a private directory of the session's
 * (removed when the session ends): the browser, which reads the files
 * whenever the page asks, gets the copies.
 *
 * Fails with `ABSOLUTE_PATH_REQUIRED`, `FILE_NOT_FOUND`, `BAD_ARGUMENT`
 * (too many, too large, outside @app_root, not a regular file on a disk —
 * FIFOs, sockets, devices and the files of /proc, /sys and /dev are
 * refused —, not a file input, several files for a single input),
 * `ELEMENT_DISABLED`.
 *
 * Since: 1.0
 */
void
stw_surface_set_files_async (StwSurface             *self,
                             const StwTarget        *target,
                             const char * const     *paths,
                             const char             *app_root,
                             const StwActionOptions *options,
                             GCancellable           *cancellable,
                             GAsyncReadyCallback     callback,
                             gpointer                user_data)
{
  GTask *task;
  GError *error = NULL;
  GStrv checked;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL && paths != NULL);
  task = action_task_new (self, ACTION_SET_FILES, target, options, stw_surface_set_files_async,
                          cancellable, callback, user_data);
  checked = copy_files (self, paths, app_root, &error);
  if (checked == NULL)
    {
      action_refuse (task, error);
      return;
    }
  ((Action *) g_task_get_task_data (task))->strv = checked;
  action_start (task);
}

/**
 * stw_surface_set_files_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.set_files_async].
 *
 * Returns: (transfer full): the input, and in its values the names of the
 *   files set
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_set_files_finish (StwSurface    *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  return action_finish (self, result, stw_surface_set_files_async, error);
}

/**
 * stw_surface_set_files_sync:
 * @self: a #StwSurface
 * @target: an `<input type=file>`
 * @paths: (array zero-terminated=1): absolute paths
 * @app_root: (nullable): the directory every file must lie in
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.set_files_async].
 *
 * Returns: (transfer full): the input, and in its values the names of the
 *   files set
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_set_files_sync (StwSurface             *self,
                            const StwTarget        *target,
                            const char * const     *paths,
                            const char             *app_root,
                            const StwActionOptions *options,
                            GCancellable           *cancellable,
                            GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_set_files_async (self, target, paths, app_root, options, cancellable,
                                                _stw_sync_call_callback, &call);
  ret = stw_surface_set_files_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_surface_drop_files_async:
 * @self: a #StwSurface
 * @target: the drop zone
 * @paths: (array zero-terminated=1): 1…10 absolute paths of existing
 *   files, at most 5 MiB each and 10 MiB together
 * @mime_type: (nullable): the files' type; %NULL guesses from the names
 * @app_root: (nullable): the directory every file must lie in
 * @options: (nullable): force
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Reads the files here (opened beneath @app_root, never more than the
 * limits whatever their size claims), rebuilds them as `File` objects in
 * the page and dispatches `dragenter`, `dragover` and `drop` on the
 * element with a real `DataTransfer`. Errors as
 * [method@Stagewright.Surface.set_files_async].
 *
 * Since: 1.0
 */
void
stw_surface_drop_files_async (StwSurface             *self,
                              const StwTarget        *target,
                              const char * const     *paths,
                              const char             *mime_type,
                              const char             *app_root,
                              const StwActionOptions *options,
                              GCancellable           *cancellable,
                              GAsyncReadyCallback     callback,
                              gpointer                user_data)
{
  GTask *task;
  GError *error = NULL;
  JsonArray *files;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL && paths != NULL);
  task = action_task_new (self, ACTION_DROP_FILES, target, options, stw_surface_drop_files_async,
                          cancellable, callback, user_data);
  files = read_files (paths, app_root, mime_type, &error);
  if (files == NULL)
    {
      action_refuse (task, error);
      return;
    }
  ((Action *) g_task_get_task_data (task))->files = files;
  action_start (task);
}

/**
 * stw_surface_drop_files_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.drop_files_async].
 *
 * Returns: (transfer full): the drop zone, the names of the files dropped
 *   in its values, and whether the page handled the drop
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_drop_files_finish (StwSurface    *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  return action_finish (self, result, stw_surface_drop_files_async, error);
}

/**
 * stw_surface_drop_files_sync:
 * @self: a #StwSurface
 * @target: the drop zone
 * @paths: (array zero-terminated=1): absolute paths
 * @mime_type: (nullable): the files' type
 * @app_root: (nullable): the directory every file must lie in
 * @options: (nullable): force
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.drop_files_async].
 *
 * Returns: (transfer full): the drop zone, the names of the files dropped
 *   in its values, and whether the page handled the drop
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_drop_files_sync (StwSurface             *self,
                             const StwTarget        *target,
                             const char * const     *paths,
                             const char             *mime_type,
                             const char             *app_root,
                             const StwActionOptions *options,
                             GCancellable           *cancellable,
                             GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_drop_files_async (self, target, paths, mime_type, app_root, options, cancellable,
                                                 _stw_sync_call_callback, &call);
  ret = stw_surface_drop_files_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- scrolling ------------------------------------------------------------------------ */

/**
 * stw_surface_scroll_async:
 * @self: a #StwSurface
 * @target: (nullable): the element to bring into view (centred) and
 *   wheel over; %NULL wheels at the viewport's centre
 * @dx: horizontal wheel distance, CSS px
 * @dy: vertical wheel distance, CSS px
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Scrolls with the real mouse wheel (and, with a target, scrolls it into
 * view first).
 *
 * Since: 1.0
 */
void
stw_surface_scroll_async (StwSurface             *self,
                          const StwTarget        *target,
                          double                  dx,
                          double                  dy,
                          const StwActionOptions *options,
                          GCancellable           *cancellable,
                          GAsyncReadyCallback     callback,
                          gpointer                user_data)
{
  GTask *task;
  Action *action;

  g_return_if_fail (STW_IS_SURFACE (self));
  task = action_task_new (self, ACTION_SCROLL, target, options, stw_surface_scroll_async, cancellable, callback, user_data);
  action = g_task_get_task_data (task);
  action->dx = CLAMP (dx, -1e6, 1e6);
  action->dy = CLAMP (dy, -1e6, 1e6);
  action_start (task);
}

/**
 * stw_surface_scroll_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.scroll_async].
 *
 * Returns: (transfer full): the element scrolled to, or no element for a
 *   scroll of the viewport
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_scroll_finish (StwSurface    *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  return action_finish (self, result, stw_surface_scroll_async, error);
}

/**
 * stw_surface_scroll_sync:
 * @self: a #StwSurface
 * @target: (nullable): the element
 * @dx: horizontal distance
 * @dy: vertical distance
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.scroll_async].
 *
 * Returns: (transfer full): the element scrolled to, or no element for a
 *   scroll of the viewport
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_scroll_sync (StwSurface             *self,
                         const StwTarget        *target,
                         double                  dx,
                         double                  dy,
                         const StwActionOptions *options,
                         GCancellable           *cancellable,
                         GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_scroll_async (self, target, dx, dy, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_scroll_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_surface_scroll_into_view_async:
 * @self: a #StwSurface
 * @target: the element
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Scrolls the element to the middle of the viewport when it is not fully
 * in view already.
 *
 * Since: 1.0
 */
void
stw_surface_scroll_into_view_async (StwSurface             *self,
                                    const StwTarget        *target,
                                    const StwActionOptions *options,
                                    GCancellable           *cancellable,
                                    GAsyncReadyCallback     callback,
                                    gpointer                user_data)
{
  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (target != NULL);
  action_start (action_task_new (self, ACTION_SCROLL_INTO_VIEW, target, options, stw_surface_scroll_into_view_async,
                                 cancellable, callback, user_data));
}

/**
 * stw_surface_scroll_into_view_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.scroll_into_view_async].
 *
 * Returns: (transfer full): the element scrolled into view
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_scroll_into_view_finish (StwSurface    *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return action_finish (self, result, stw_surface_scroll_into_view_async, error);
}

/**
 * stw_surface_scroll_into_view_sync:
 * @self: a #StwSurface
 * @target: the element
 * @options: (nullable): options
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.scroll_into_view_async].
 *
 * Returns: (transfer full): the element scrolled into view
 *
 * Since: 1.0
 */
StwActionResult *
stw_surface_scroll_into_view_sync (StwSurface             *self,
                                   const StwTarget        *target,
                                   const StwActionOptions *options,
                                   GCancellable           *cancellable,
                                   GError                **error)
{
  StwSyncCall call;
  StwActionResult *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_scroll_into_view_async (self, target, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_scroll_into_view_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- fill a form ------------------------------------------------------------ */

/* At most this many fields in one call: one concept, not a script. */
#define MAX_FORM_FIELDS 50

typedef struct
{
  JsonArray        *fields;
  StwActionOptions *options;
  guint             next;
  StwTarget        *target;    /* the field being filled */
  GCancellable     *deadline;  /* the field's: the timeout is each field's */
  JsonArray        *filled;
} FillForm;

static void
fill_form_free (FillForm *form)
{
  json_array_unref (form->fields);
  stw_action_options_free (form->options);
  g_clear_pointer (&form->target, stw_target_free);
  g_clear_object (&form->deadline);
  json_array_unref (form->filled);
  g_free (form);
}

static void fill_next_field (GTask *task);

/* A field's failure, saying which field it was. */
static void
fail_field (GTask  *task,
            GError *error)
{
  FillForm *form = g_task_get_task_data (task);
  g_autoptr(JsonObject) merged = json_object_new ();

  stw_json_object_copy_members (merged, stw_error_get_details (error), NULL);
  json_object_set_int_member (merged, "field", form->next - 1);
  json_object_set_int_member (merged, "filled", json_array_get_length (form->filled));
  stw_error_set_details (error, merged);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
on_field_filled (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  FillForm *form = g_task_get_task_data (task);
  g_autoptr(StwActionResult) answer = NULL;
  GError *error = NULL;

  answer = action_finish (STW_SURFACE (object), result, g_task_get_source_tag (G_TASK (result)), &error);
  if (answer == NULL)
    {
      fail_field (task, error);
      return;
    }
  if (stw_action_result_get_target (answer) != NULL)
    json_array_add_object_element (form->filled, stw_element_ref_to_json (stw_action_result_get_target (answer)));
  fill_next_field (task);
}

/* A string goes into a <select> as an option (by label or value), into
 * anything else as text: the page says which the field is. */
static void
on_field_described (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  FillForm *form = g_task_get_task_data (task);
  StwSurface *self = g_task_get_source_object (task);
  JsonObject *field = json_array_get_object_element (form->fields, form->next - 1);
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;
  const char *value = stw_json_get_string (field, "value");

  answer = _stw_surface_element_op_finish (STW_SURFACE (object), result, NULL, &error);
  if (answer == NULL)
    {
      fail_field (task, error);
      return;
    }
  if (g_strcmp0 (stw_json_get_string (answer, "tag"), "select") == 0)
    {
      const char *values[] = { value, NULL };

      stw_surface_select_options_async (self, form->target, values, form->options, form->deadline,
                                        on_field_filled, task);
    }
  else
    stw_surface_fill_async (self, form->target, value, form->options, form->deadline, on_field_filled, task);
}

static void
fill_next_field (GTask *task)
{
  FillForm *form = g_task_get_task_data (task);
  StwSurface *self = g_task_get_source_object (task);
  GCancellable *cancellable;
  JsonObject *field;
  JsonNode *value;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  if (form->next == json_array_get_length (form->fields))
    {
      JsonObject *result = json_object_new ();

      json_object_set_array_member (result, "filled", json_array_ref (form->filled));
      json_object_set_int_member (result, "count", json_array_get_length (form->filled));
      g_task_return_pointer (task, result, (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }

  field = json_array_get_object_element (form->fields, form->next++);
  g_clear_object (&form->deadline);
  form->deadline = _stw_deadline_new (g_task_get_cancellable (task), stw_action_options_get_timeout_ms (form->options));
  cancellable = form->deadline;
  g_clear_pointer (&form->target, stw_target_free);
  form->target = stw_target_new_from_json (field, "ref", "selector", &error);
  if (form->target == NULL && error == NULL)
    error = bad_field ("fields", _("Every field needs a ref or a selector"));
  if (error != NULL)
    {
      fail_field (task, error);
      return;
    }

  value = json_object_get_member (field, "value");
  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
    stw_surface_set_checked_async (self, form->target, json_node_get_boolean (value), form->options, cancellable,
                                   on_field_filled, task);
  else if (JSON_NODE_HOLDS_ARRAY (value))
    {
      g_autoptr(GPtrArray) values = g_ptr_array_new ();
      JsonArray *array = json_node_get_array (value);

      for (guint i = 0; i < json_array_get_length (array); i++)
        g_ptr_array_add (values, (gpointer) json_array_get_string_element (array, i));
      g_ptr_array_add (values, NULL);
      stw_surface_select_options_async (self, form->target, (const char * const *) values->pdata, form->options,
                                        cancellable, on_field_filled, task);
    }
  else
    _stw_surface_element_op_async (self, form->target, "describe", NULL, cancellable, on_field_described, task);
}

/* Whether every field is {ref|selector, value} with a value of a kind
 * fill_form knows; NULL, or the BAD_ARGUMENT saying what is wrong. */
static GError *
check_form_fields (JsonArray *fields)
{
  guint n = json_array_get_length (fields);

  if (n == 0 || n > MAX_FORM_FIELDS)
    return bad_field ("fields", _("Give between 1 and 50 fields"));
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (fields, i);
      JsonObject *field = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonNode *value = field ? json_object_get_member (field, "value") : NULL;
      gboolean ok = FALSE;

      if (value != NULL && JSON_NODE_HOLDS_VALUE (value))
        ok = json_node_get_value_type (value) == G_TYPE_BOOLEAN || json_node_get_value_type (value) == G_TYPE_STRING;
      else if (value != NULL && JSON_NODE_HOLDS_ARRAY (value))
        {
          JsonArray *array = json_node_get_array (value);

          ok = json_array_get_length (array) > 0;
          for (guint j = 0; ok && j < json_array_get_length (array); j++)
            {
              JsonNode *item = json_array_get_element (array, j);
              ok = JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING;
            }
        }
      if (!ok)
        return bad_field ("fields",
                          _("Each field's value is a string (text, or an option), a boolean (checked) or a list of options"));
    }
  return NULL;
}

/**
 * stw_surface_fill_form_async:
 * @self: a #StwSurface
 * @fields: `[{ref | selector, value}]`, 1 to 50 fields, filled in order
 * @options: (nullable): force and timeout, for each field
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Fills several fields of a form in one call, each the way its own method
 * would: a boolean value checks or unchecks (as
 * [method@Stagewright.Surface.set_checked_async]); a list of strings, or a
 * string given to a `<select>`, chooses options by label or value (as
 * [method@Stagewright.Surface.select_options_async]); any other string is
 * filled in (as [method@Stagewright.Surface.fill_async]).
 *
 * The first field that fails ends the call with its error, whose details
 * say which field (`field`, from 0) and how many were filled before it;
 * those stay filled.
 *
 * Since: 1.0
 */
void
stw_surface_fill_form_async (StwSurface             *self,
                             JsonArray              *fields,
                             const StwActionOptions *options,
                             GCancellable           *cancellable,
                             GAsyncReadyCallback     callback,
                             gpointer                user_data)
{
  GTask *task;
  FillForm *form;
  GError *error;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (fields != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_surface_fill_form_async);
  form = g_new0 (FillForm, 1);
  form->fields = json_array_ref (fields);
  form->options = options ? stw_action_options_copy (options) : stw_action_options_new ();
  form->filled = json_array_new ();
  g_task_set_task_data (task, form, (GDestroyNotify) fill_form_free);

  error = check_form_fields (fields);
  if (error != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  fill_next_field (task);
}

/**
 * stw_surface_fill_form_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Surface.fill_form_async].
 *
 * Returns: (transfer full): `{filled: [{ref, role, name}], count}`
 *   (JSON because it mirrors the JSON form it takes)
 *
 * Since: 1.0
 */
JsonObject *
stw_surface_fill_form_finish (StwSurface    *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_fill_form_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_surface_fill_form_sync:
 * @self: a #StwSurface
 * @fields: `[{ref | selector, value}]`
 * @options: (nullable): force and timeout, for each field
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.fill_form_async].
 *
 * Returns: (transfer full): `{filled: [{ref, role, name}], count}`
 *   (JSON because it mirrors the JSON form it takes)
 *
 * Since: 1.0
 */
JsonObject *
stw_surface_fill_form_sync (StwSurface             *self,
                            JsonArray              *fields,
                            const StwActionOptions *options,
                            GCancellable           *cancellable,
                            GError                **error)
{
  StwSyncCall call;
  JsonObject *ret;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_fill_form_async (self, fields, options, cancellable, _stw_sync_call_callback, &call);
  ret = stw_surface_fill_form_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}
