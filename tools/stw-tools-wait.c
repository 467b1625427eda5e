/* stw-tools-wait.c: wait, wait_for_selector, wait_for_state, wait_for_event,
 * expect_text, expect_value, expect_visible, expect_state, expect_count,
 * expect_url, assert_pattern
 *
 * Adapters over the waits of StwSurface (stw-wait.h): the polling runs in
 * the page. A ref works in any surface of the session; a selector and the
 * URL are looked up in the active surface. While a wait runs, a client
 * that asked for progress hears the time gone by.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "stw-core-tools.h"
#include "stw-error-registry.h"
#include "stw-wait.h"

#define DEFAULT_TIMEOUT_MS 5000
/* Progress at most every this many ms (the server sends at most twelve). */
#define PROGRESS_MIN_INTERVAL_MS 250

/* --- arguments ---------------------------------------------------------------- */

static StwSurface *
active_surface (StwInvocation *invocation)
{
  StwSession *session = stw_invocation_get_session (invocation);
  StwSurface *surface = stw_session_get_active_surface (session);

  if (surface == NULL)
    surface = stw_session_get_active_window (session);
  if (surface == NULL)
    stw_invocation_return_error_literal (invocation, "NOT_RUNNING", _("The session has no window"));
  return surface;
}

static const char *
string_arg (StwInvocation *invocation,
            const char    *name)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);

  return json_object_has_member (args, name) ? json_object_get_string_member (args, name) : NULL;
}

/* timeoutMs: at least 0, 5000 when not given; the library clamps it. */
static gboolean
timeout_arg (StwInvocation *invocation,
             const char    *name,
             guint         *timeout_ms)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);
  gint64 value = json_object_get_int_member_with_default (args, name, DEFAULT_TIMEOUT_MS);

  if (value < 0)
    {
      g_autoptr(GError) error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("%s must be 0 or more"), name);
      g_autoptr(JsonObject) details = json_object_new ();

      json_object_set_string_member (details, "field", name);
      stw_error_set_details (error, details);
      stw_invocation_return_error (invocation, error);
      return FALSE;
    }
  *timeout_ms = (guint) MIN (value, G_MAXUINT);
  return TRUE;
}

/* The target, or NULL (and @required: the invocation answered). */
static StwTarget *
target_arg (StwInvocation *invocation,
            gboolean       required,
            gboolean      *failed)
{
  g_autoptr(GError) error = NULL;
  StwTarget *target = stw_target_new_from_json (stw_invocation_get_arguments (invocation), "ref", "selector", &error);

  if (target == NULL && error == NULL && required)
    error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give ref or selector"));
  *failed = error != NULL;
  if (error != NULL)
    stw_invocation_return_error (invocation, error);
  return target;
}

/* Exactly one of @names; its index, -1 after answering the invocation. */
static int
one_of (StwInvocation      *invocation,
        const char * const *names,
        const char        **value)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);
  int found = -1;

  for (int i = 0; names[i] != NULL; i++)
    if (json_object_has_member (args, names[i]))
      {
        if (found >= 0)
          {
            found = -2;
            break;
          }
        found = i;
      }
  if (found < 0)
    {
      g_autofree char *list = g_strjoinv (", ", (char **) names);
      stw_invocation_return_error (invocation, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give exactly one of %s"), list));
      return -1;
    }
  *value = json_object_get_string_member (args, names[found]);
  return found;
}

/* --- progress ------------------------------------------------------------------ */

typedef struct
{
  GWeakRef invocation;
  guint    timeout_ms;
} Progress;

static void
progress_free (gpointer data)
{
  Progress *progress = data;

  g_weak_ref_clear (&progress->invocation);
  g_free (progress);
}

/* Reports the elapsed time while the invocation runs; the first tick
 * after its answer (or after it is gone: the reference is weak, so the
 * ticks keep nothing alive) ends the reports. */
static gboolean
on_progress_tick (gpointer user_data)
{
  Progress *progress = user_data;
  g_autoptr(StwInvocation) invocation = g_weak_ref_get (&progress->invocation);
  g_autofree char *message = NULL;
  gint64 elapsed;

  if (invocation == NULL || stw_invocation_is_completed (invocation))
    return G_SOURCE_REMOVE;
  elapsed = stw_invocation_get_elapsed_ms (invocation);
  message = g_strdup_printf (_("waited %" PRId64 " of %u ms"), elapsed, progress->timeout_ms);
  stw_invocation_report_progress (invocation, (double) elapsed, progress->timeout_ms, message);
  return G_SOURCE_CONTINUE;
}

static void
destroy_source (gpointer source)
{
  g_source_destroy (source);
  g_source_unref (source);
}

static void
start_progress (StwInvocation *invocation,
                guint          timeout_ms)
{
  Progress *progress = g_new0 (Progress, 1);
  g_autoptr(GSource) source = NULL;

  timeout_ms = MIN (timeout_ms, STW_WAIT_MAX_TIMEOUT_MS);
  g_weak_ref_init (&progress->invocation, invocation);
  progress->timeout_ms = timeout_ms;
  source = g_timeout_source_new (MAX (PROGRESS_MIN_INTERVAL_MS, timeout_ms / 12));
  g_source_set_callback (source, on_progress_tick, progress, progress_free);
  g_source_attach (source, g_main_context_get_thread_default ());
}

/* Answers {matched:true, …payload, target?} or the error. */
static void
answer (StwInvocation       *invocation,
        JsonObject          *payload,
        const StwElementRef *element,
        GError              *error)
{
  if (error != NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  if (element != NULL)
    json_object_set_object_member (payload, "target", stw_element_ref_to_json (element));
  stw_invocation_return_value (invocation, payload);
}

#define PRELUDE(needs_target) \
  StwSurface *surface = active_surface (invocation); \
  JsonObject *args = stw_invocation_get_arguments (invocation); \
  GCancellable *cancellable = stw_invocation_get_cancellable (invocation); \
  g_autoptr(StwTarget) target = NULL; \
  gboolean failed = FALSE; \
  guint timeout_ms = 0; \
  (void) args; (void) cancellable; (void) timeout_ms; \
  if (surface == NULL) \
    return; \
  target = target_arg (invocation, needs_target, &failed); \
  if (failed) \
    return

/* --- electron_wait ---------------------------------------------------------------- */

typedef struct
{
  StwInvocation *invocation;
  GSource       *timer;
  GSource       *cancelled;
  gint64         started;
} Sleep;

static void
sleep_done (Sleep  *sleep,
            GError *error)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  destroy_source (sleep->timer);
  if (sleep->cancelled != NULL)
    destroy_source (sleep->cancelled);
  json_object_set_int_member (payload, "waited_ms", (g_get_monotonic_time () - sleep->started) / 1000);
  answer (sleep->invocation, payload, NULL, error);
  g_object_unref (sleep->invocation);
  g_free (sleep);
}

static gboolean
on_slept (gpointer user_data)
{
  sleep_done (user_data, NULL);
  return G_SOURCE_REMOVE;
}

static gboolean
on_sleep_cancelled (GCancellable *cancellable,
                    gpointer      user_data)
{
  GError *error = NULL;

  g_cancellable_set_error_if_cancelled (cancellable, &error);
  sleep_done (user_data, error);
  return G_SOURCE_REMOVE;
}

static void
wait_invoke (StwTool *tool, StwInvocation *invocation)
{
  GCancellable *cancellable = stw_invocation_get_cancellable (invocation);
  GMainContext *context = g_main_context_get_thread_default ();
  Sleep *sleep;
  guint ms;

  if (!timeout_arg (invocation, "ms", &ms))
    return;
  ms = MIN (ms, STW_WAIT_MAX_TIMEOUT_MS);
  start_progress (invocation, ms);
  sleep = g_new0 (Sleep, 1);
  sleep->invocation = g_object_ref (invocation);
  sleep->started = g_get_monotonic_time ();
  sleep->timer = g_timeout_source_new (ms);
  g_source_set_callback (sleep->timer, on_slept, sleep, NULL);
  g_source_attach (sleep->timer, context);
  if (cancellable != NULL)
    {
      sleep->cancelled = g_cancellable_source_new (cancellable);
      g_source_set_callback (sleep->cancelled, G_SOURCE_FUNC (on_sleep_cancelled), sleep, NULL);
      g_source_attach (sleep->cancelled, context);
    }
}

/* --- waits ------------------------------------------------------------------------ */

static void
on_selector (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  const char *state = string_arg (invocation, "state");
  gboolean met;

  if (g_str_equal (stw_tool_get_name (stw_invocation_get_tool (invocation)), "electron_expect_visible"))
    met = stw_surface_expect_visible_finish (STW_SURFACE (object), result, &element, &error);
  else
    met = stw_surface_wait_for_selector_finish (STW_SURFACE (object), result, &element, &error);
  json_object_set_boolean_member (payload, "matched", met);
  if (!g_str_equal (stw_tool_get_name (stw_invocation_get_tool (invocation)), "electron_expect_visible"))
    json_object_set_string_member (payload, "state", state ? state : "visible");
  answer (invocation, payload, element, error);
}

static void
wait_for_selector_invoke (StwTool *tool, StwInvocation *invocation)
{
  PRELUDE (TRUE);
  if (!timeout_arg (invocation, "timeoutMs", &timeout_ms))
    return;
  start_progress (invocation, timeout_ms);
  stw_surface_wait_for_selector_async (surface, target, string_arg (invocation, "state"), timeout_ms,
                                       cancellable, on_selector, g_object_ref (invocation));
}

static void
expect_visible_invoke (StwTool *tool, StwInvocation *invocation)
{
  PRELUDE (TRUE);
  if (!timeout_arg (invocation, "timeoutMs", &timeout_ms))
    return;
  start_progress (invocation, timeout_ms);
  stw_surface_expect_visible_async (surface, target, timeout_ms, cancellable, on_selector, g_object_ref (invocation));
}

static void
on_state (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwElementState) state = NULL;

  if (g_str_equal (stw_tool_get_name (stw_invocation_get_tool (invocation)), "electron_expect_state"))
    state = stw_surface_expect_state_finish (STW_SURFACE (object), result, &element, &error);
  else
    state = stw_surface_wait_for_state_finish (STW_SURFACE (object), result, &element, &error);
  json_object_set_boolean_member (payload, "matched", state != NULL);
  if (state != NULL)
    json_object_set_object_member (payload, "state", stw_element_state_to_json (state));
  answer (invocation, payload, element, error);
}

static void
state_invoke (StwTool *tool, StwInvocation *invocation)
{
  g_autoptr(StwElementState) state = NULL;
  g_autoptr(GError) error = NULL;

  PRELUDE (TRUE);
  if (!timeout_arg (invocation, "timeoutMs", &timeout_ms))
    return;
  state = stw_element_state_new_from_json (json_object_get_object_member (args, "state"), &error);
  if (state == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  start_progress (invocation, timeout_ms);
  if (g_str_equal (stw_tool_get_name (tool), "electron_expect_state"))
    stw_surface_expect_state_async (surface, target, state, timeout_ms, cancellable, on_state, g_object_ref (invocation));
  else
    stw_surface_wait_for_state_async (surface, target, state, timeout_ms, cancellable, on_state, g_object_ref (invocation));
}

static void
on_event (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *event = stw_surface_wait_for_event_finish (STW_SURFACE (object), result, &error);

  json_object_set_boolean_member (payload, "fired", event != NULL);
  if (event != NULL)
    json_object_set_object_member (payload, "event", event);
  answer (invocation, payload, NULL, error);
}

static void
wait_for_event_invoke (StwTool *tool, StwInvocation *invocation)
{
  PRELUDE (FALSE);
  if (!timeout_arg (invocation, "timeoutMs", &timeout_ms))
    return;
  start_progress (invocation, timeout_ms);
  stw_surface_wait_for_event_async (surface, string_arg (invocation, "eventName"), target,
                                    string_arg (invocation, "urlPattern"), string_arg (invocation, "flags"),
                                    timeout_ms, cancellable, on_event, g_object_ref (invocation));
}

/* --- expectations -------------------------------------------------------------------- */

static void
on_text (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *actual = NULL;
  const char *name = stw_tool_get_name (stw_invocation_get_tool (invocation));
  gboolean met;

  if (g_str_equal (name, "electron_expect_value"))
    met = stw_surface_expect_value_finish (STW_SURFACE (object), result, &actual, &element, &error);
  else if (g_str_equal (name, "electron_assert_pattern"))
    met = stw_surface_assert_pattern_finish (STW_SURFACE (object), result, &actual, &element, &error);
  else
    met = stw_surface_expect_text_finish (STW_SURFACE (object), result, &actual, &element, &error);
  json_object_set_boolean_member (payload, "matched", met);
  if (actual != NULL)
    json_object_set_string_member (payload, "actual", actual);
  else
    json_object_set_null_member (payload, "actual");
  answer (invocation, payload, element, error);
}

/* The argument names of the predicates, and the library's names. */
static const char * const TEXT_ARGS[] = { "equals", "contains", "regex", "not_equals", "not_contains", NULL };
static const char * const ASSERT_ARGS[] = { "equals", "contains", "matches_regex", NULL };
static const char * const URL_ARGS[] = { "contains", "matches", NULL };

static const char *
predicate_of (const char *arg)
{
  return g_str_equal (arg, "regex") || g_str_equal (arg, "matches_regex") ? "matches" : arg;
}

static void
text_invoke (StwTool *tool, StwInvocation *invocation)
{
  const char *name = stw_tool_get_name (tool);
  gboolean assert = g_str_equal (name, "electron_assert_pattern");
  const char * const *names = assert ? ASSERT_ARGS : TEXT_ARGS;
  const char *expected = NULL;
  const char *flags;
  int which;

  PRELUDE (TRUE);
  if (!assert && !timeout_arg (invocation, "timeoutMs", &timeout_ms))
    return;
  if ((which = one_of (invocation, names, &expected)) < 0)
    return;
  flags = string_arg (invocation, "flags");
  if (assert)
    stw_surface_assert_pattern_async (surface, target, string_arg (invocation, "attribute"), predicate_of (names[which]),
                                      expected, flags, cancellable, on_text, g_object_ref (invocation));
  else if (g_str_equal (name, "electron_expect_value"))
    {
      start_progress (invocation, timeout_ms);
      stw_surface_expect_value_async (surface, target, predicate_of (names[which]), expected, flags, timeout_ms,
                                      cancellable, on_text, g_object_ref (invocation));
    }
  else
    {
      start_progress (invocation, timeout_ms);
      stw_surface_expect_text_async (surface, target, predicate_of (names[which]), expected, flags, timeout_ms,
                                     cancellable, on_text, g_object_ref (invocation));
    }
}

static void
on_url (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *actual = NULL;
  gboolean met = stw_surface_expect_url_finish (STW_SURFACE (object), result, &actual, &error);

  json_object_set_boolean_member (payload, "matched", met);
  if (actual != NULL)
    json_object_set_string_member (payload, "actual", actual);
  answer (invocation, payload, NULL, error);
}

static void
expect_url_invoke (StwTool *tool, StwInvocation *invocation)
{
  const char *expected = NULL;
  int which;

  PRELUDE (FALSE);
  if (!timeout_arg (invocation, "timeoutMs", &timeout_ms))
    return;
  if ((which = one_of (invocation, URL_ARGS, &expected)) < 0)
    return;
  start_progress (invocation, timeout_ms);
  stw_surface_expect_url_async (surface, URL_ARGS[which], expected, string_arg (invocation, "flags"), timeout_ms,
                                cancellable, on_url, g_object_ref (invocation));
}

static void
on_count (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(GError) error = NULL;
  gint64 actual = 0;
  gboolean met = stw_surface_expect_count_finish (STW_SURFACE (object), result, &actual, &error);

  json_object_set_boolean_member (payload, "matched", met);
  json_object_set_int_member (payload, "actual", actual);
  answer (invocation, payload, NULL, error);
}

static void
expect_count_invoke (StwTool *tool, StwInvocation *invocation)
{
  StwSurface *surface = active_surface (invocation);
  g_autoptr(JsonObject) query = json_object_new ();
  JsonObject *args = stw_invocation_get_arguments (invocation);
  g_autoptr(GList) names = json_object_get_members (args);
  guint timeout_ms;

  if (surface == NULL || !timeout_arg (invocation, "timeoutMs", &timeout_ms))
    return;
  for (const GList *l = names; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "sessionId") && !g_str_equal (l->data, "timeoutMs"))
      json_object_set_member (query, l->data, json_node_copy (json_object_get_member (args, l->data)));
  start_progress (invocation, timeout_ms);
  stw_surface_expect_count_async (surface, query, timeout_ms, stw_invocation_get_cancellable (invocation),
                                  on_count, g_object_ref (invocation));
}

/* --- the specs ------------------------------------------------------------------------- */

#define S_STR "{\"type\":\"string\"}"
#define S_INT "{\"type\":\"integer\"}"
#define S_BOOL "{\"type\":\"boolean\"}"
#define P_TIMEOUT ",\"timeoutMs\":" S_INT
#define P_STATE ",\"state\":{\"type\":\"object\"}"
#define P_TEXT ",\"equals\":" S_STR ",\"contains\":" S_STR ",\"regex\":" S_STR ",\"not_equals\":" S_STR \
               ",\"not_contains\":" S_STR ",\"flags\":" S_STR
#define OBJECT(props) "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" STW_SCHEMA_SESSION_ID props "}}"
#define OBJECT_REQ(req, props) "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[" req "]," \
                               "\"properties\":{" STW_SCHEMA_SESSION_ID props "}}"
#define TARGET_OBJECT(props) OBJECT ("," STW_SCHEMA_TARGET props)
#define E_WAIT "WAIT_TIMEOUT REF_NOT_FOUND SELECTOR_NO_MATCH BAD_ARGUMENT NOT_RUNNING"
#define E_EXPECT "EXPECTATION_FAILED REF_NOT_FOUND SELECTOR_NO_MATCH BAD_ARGUMENT NOT_RUNNING"

/* No titles: the name says it, and tools/list stays small. */
#define WAIT_SPEC(tool, text, schema, profile, function, codes) \
  { \
    .name = tool, .description = text, .input_schema = schema, \
    .operation_type = STW_OPERATION_QUERY, .errors = codes, .profiles = profile, \
    .session = STW_SESSION_REQUIREMENT_REQUIRED, .invoke = function, \
  }

static const StwToolSpec wait_specs[] = {
  WAIT_SPEC ("electron_wait",
             "Sleep ms (<=60000); prefer a conditional wait. Returns {waited_ms}.",
             OBJECT_REQ ("\"ms\"", ",\"ms\":" S_INT),
             STW_IN_TESTING_AND_DEBUG, wait_invoke, "BAD_ARGUMENT"),
  WAIT_SPEC ("electron_wait_for_selector",
             "Wait until attached, visible (default), hidden or detached.",
             TARGET_OBJECT (",\"state\":{\"enum\":[\"attached\",\"visible\",\"hidden\",\"detached\"]}" P_TIMEOUT),
             STW_IN_ESSENTIAL, wait_for_selector_invoke, E_WAIT),
  WAIT_SPEC ("electron_wait_for_state",
             "Wait until the state flags (as get_state) hold.",
             OBJECT_REQ ("\"state\"", "," STW_SCHEMA_TARGET P_STATE P_TIMEOUT),
             STW_IN_ESSENTIAL, state_invoke, E_WAIT),
  WAIT_SPEC ("electron_wait_for_event",
             "Next DOM event at the element or document, or window, navigation, load (urlPattern filters). Returns {event}.",
             OBJECT_REQ ("\"eventName\"", "," STW_SCHEMA_TARGET ",\"eventName\":" S_STR ",\"urlPattern\":" S_STR
                         ",\"flags\":" S_STR P_TIMEOUT),
             STW_IN_TESTING_AND_DEBUG, wait_for_event_invoke, E_WAIT),
  WAIT_SPEC ("electron_expect_text",
             "Retry until the text passes one predicate.",
             TARGET_OBJECT (P_TEXT P_TIMEOUT),
             STW_IN_ESSENTIAL, text_invoke, E_EXPECT),
  WAIT_SPEC ("electron_expect_value",
             "As expect_text, on the control's value.",
             TARGET_OBJECT (P_TEXT P_TIMEOUT),
             STW_IN_ESSENTIAL, text_invoke, E_EXPECT),
  WAIT_SPEC ("electron_expect_visible",
             "Retry until visible.",
             TARGET_OBJECT (P_TIMEOUT),
             STW_IN_ESSENTIAL, expect_visible_invoke, E_EXPECT),
  WAIT_SPEC ("electron_expect_state",
             "Retry until the flags in state hold.",
             OBJECT_REQ ("\"state\"", "," STW_SCHEMA_TARGET P_STATE P_TIMEOUT),
             STW_IN_ESSENTIAL, state_invoke, E_EXPECT),
  WAIT_SPEC ("electron_expect_count",
             "Retry until the count of selector, or role/name_* matches, is in range.",
             OBJECT (",\"selector\":" S_STR ",\"role\":" S_STR ",\"name_contains\":" S_STR ",\"name_exact\":" S_STR
                     ",\"visible\":" S_BOOL ",\"enabled\":" S_BOOL ",\"interactive\":" S_BOOL
                     ",\"equals\":" S_INT ",\"min\":" S_INT ",\"max\":" S_INT P_TIMEOUT),
             STW_IN_ESSENTIAL, expect_count_invoke, "EXPECTATION_FAILED BAD_ARGUMENT NOT_RUNNING"),
  WAIT_SPEC ("electron_expect_url",
             "Retry until the URL contains or matches.",
             OBJECT (",\"contains\":" S_STR ",\"matches\":" S_STR ",\"flags\":" S_STR P_TIMEOUT),
             STW_IN_ESSENTIAL, expect_url_invoke, "EXPECTATION_FAILED BAD_ARGUMENT NOT_RUNNING"),
  WAIT_SPEC ("electron_assert_pattern",
             "Test text or attribute once. Returns {actual}.",
             TARGET_OBJECT (",\"attribute\":" S_STR ",\"equals\":" S_STR ",\"contains\":" S_STR
                            ",\"matches_regex\":" S_STR ",\"flags\":" S_STR),
             STW_IN_TESTING, text_invoke, E_EXPECT),
};

void
stw_core_tools_add_wait (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, wait_specs, G_N_ELEMENTS (wait_specs));
}
