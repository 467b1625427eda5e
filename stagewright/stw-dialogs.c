/* stw-dialogs.c: the session-wide dialog handler, and Electron API stubs
 *
 * One mechanism answers every JavaScript dialog of a session: the Page
 * domain is enabled on each page, frame and webview target as it attaches,
 * and `Page.javascriptDialogOpening` is answered at once by the session's
 * policy (dismiss until one is set), so a dialog never blocks the app. A
 * dialog holds back the reply of the input or evaluation that opened it
 * until it is answered (cdp-field-notes 27); nothing here waits for a
 * reply, so that cannot deadlock. Actions report the dialog they opened
 * from the entry recorded here (_stw_dialogs_take_last()).
 *
 * Native dialogs, `shell` and `clipboard` are stubbed in the main process
 * (js/main-stubs.js, through the inspector); their calls are recorded
 * there and drained into the same ring when events are read.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-action-result-private.h"
#include "stw-dialogs.h"
#include "stw-dialogs-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-session-private.h"
#include "stw-surface-private.h"
#include "stw-sync-private.h"

#define DIALOGS_KEY "stw-dialogs"
#define STUBS_RESOURCE "/org/stagewright/core/js/main-stubs.js"
#define READ_LIMIT_DEFAULT 50
#define PROMPT_TEXT_MAX 10000

GResource *stw_get_resource (void);

enum { ALERT, CONFIRM, PROMPT, BEFOREUNLOAD, N_KINDS };
static const char * const kind_names[N_KINDS] = { "alert", "confirm", "prompt", "beforeunload" };

/* The methods js/main-stubs.js knows. */
static const char * const stub_names[] = {
  "dialog.showOpenDialog", "dialog.showOpenDialogSync", "dialog.showSaveDialog",
  "dialog.showSaveDialogSync", "dialog.showMessageBox", "dialog.showMessageBoxSync",
  "dialog.showErrorBox", "shell.openExternal", "shell.openPath",
  "clipboard.readText", "clipboard.writeText", "clipboard.clear", NULL
};

typedef enum { UNSET = -1, DISMISS = 0, ACCEPT = 1 } Action;

/* Both keep the JSON the tool shows, beside the typed values. */
struct _StwDialogPolicy
{
  gatomicrefcount  ref_count;
  JsonObject      *json;    /* {action, perType, promptText?, oneShot, stubs} */
  GStrv            stubs;
};

struct _StwDialogLog
{
  gatomicrefcount  ref_count;
  JsonObject      *json;      /* {policy, entries, count, overflowed, native} */
  GPtrArray       *events;    /* of StwDialogEvent */
  StwDialogPolicy *policy;
};

static JsonNode *dialog_policy_serialize (gconstpointer boxed);
/* Their JSON (json_boxed_serialize()) is the wire form of their tool. */
G_DEFINE_BOXED_TYPE_WITH_CODE (StwDialogPolicy, stw_dialog_policy, stw_dialog_policy_ref, stw_dialog_policy_unref,
                               json_boxed_register_serialize_func (g_define_type_id, JSON_NODE_OBJECT, dialog_policy_serialize))
static JsonNode *dialog_log_serialize (gconstpointer boxed);
G_DEFINE_BOXED_TYPE_WITH_CODE (StwDialogLog, stw_dialog_log, stw_dialog_log_ref, stw_dialog_log_unref,
                               json_boxed_register_serialize_func (g_define_type_id, JSON_NODE_OBJECT, dialog_log_serialize))

static StwDialogPolicy *dialog_policy_new (JsonObject *json);
static StwDialogLog    *dialog_log_new    (JsonObject *json);
static JsonObject      *policy_json       (StwSession *self);

typedef struct
{
  Action      action;
  Action      per_kind[N_KINDS];
  char       *prompt_text;
  gboolean    one_shot;

  GQueue      events;        /* JsonObject*, oldest first */
  guint64     overflowed;
  JsonObject *last;          /* the dialog answered last */
  GPtrArray  *stubs;         /* names stubbed in the main process */
  gboolean    stubs_used;    /* the main process may hold calls to drain */
} Dialogs;

static void
reset_policy (Dialogs *dialogs)
{
  dialogs->action = DISMISS;
  for (guint i = 0; i < N_KINDS; i++)
    dialogs->per_kind[i] = UNSET;
  g_clear_pointer (&dialogs->prompt_text, g_free);
  dialogs->one_shot = FALSE;
}

static void
dialogs_free (Dialogs *dialogs)
{
  g_queue_clear_full (&dialogs->events, (GDestroyNotify) json_object_unref);
  g_clear_pointer (&dialogs->last, json_object_unref);
  g_clear_pointer (&dialogs->stubs, g_ptr_array_unref);
  g_free (dialogs->prompt_text);
  g_free (dialogs);
}

static Dialogs *
dialogs_get (StwSession *session)
{
  Dialogs *dialogs = g_object_get_data (G_OBJECT (session), DIALOGS_KEY);

  if (dialogs == NULL)
    {
      dialogs = g_new0 (Dialogs, 1);
      g_queue_init (&dialogs->events);
      dialogs->stubs = g_ptr_array_new_with_free_func (g_free);
      reset_policy (dialogs);
      g_object_set_data_full (G_OBJECT (session), DIALOGS_KEY, dialogs, (GDestroyNotify) dialogs_free);
    }
  return dialogs;
}

static int
kind_of (const char *name)
{
  for (guint i = 0; i < N_KINDS; i++)
    if (g_strcmp0 (name, kind_names[i]) == 0)
      return (int) i;
  return -1;
}

static void
push_event (Dialogs    *dialogs,
            JsonObject *entry)
{
  g_queue_push_tail (&dialogs->events, entry);
  while (dialogs->events.length > STW_DIALOG_EVENTS_MAX)
    {
      json_object_unref (g_queue_pop_head (&dialogs->events));
      dialogs->overflowed++;
    }
}

/* --- answering page dialogs ------------------------------------------------- */

StwSurface *
_stw_dialogs_target_surface (StwSession *session,
                             const char *cdp_session)
{
  GPtrArray *surfaces = _stw_session_get_surfaces (session);

  for (guint i = 0; cdp_session != NULL && i < surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (surfaces, i);

      if (!stw_surface_is_closed (surface) && _stw_surface_get_subframe_id (surface) == NULL &&
          g_strcmp0 (stw_surface_get_cdp_session_id (surface), cdp_session) == 0)
        return surface;
    }
  return NULL;
}

static void
on_dialog_opening (StwTransport *transport,
                   const char   *method,
                   JsonObject   *params,
                   const char   *cdp_session,
                   StwSession   *session)
{
  Dialogs *dialogs = dialogs_get (session);
  StwSurface *surface = _stw_dialogs_target_surface (session, cdp_session);
  const char *type = stw_json_get_string (params, "type") ?: "alert";
  const char *default_prompt = stw_json_get_string (params, "defaultPrompt");
  int kind = kind_of (type);
  Action action = kind >= 0 && dialogs->per_kind[kind] != UNSET ? dialogs->per_kind[kind] : dialogs->action;
  const char *frame_id = stw_json_get_string (params, "frameId");
  g_autoptr(JsonObject) answer = json_object_new ();
  StwSurface *opener;
  JsonObject *entry;

  if (surface == NULL)
    return;   /* not one of this session's targets */

  /* Chromium reports a frame's dialog on its page's session: the frame
   * that opened it is an out-of-process frame (its target id is the frame
   * id) or a same-process one of the page, when it is a surface. */
  opener = frame_id ? _stw_session_find_surface_by (session, frame_id, NULL, NULL) : NULL;
  if (opener == NULL && frame_id != NULL)
    opener = _stw_session_find_surface_by (session, stw_surface_get_target_id (surface), NULL, frame_id);
  if (opener == NULL)
    opener = surface;

  json_object_set_boolean_member (answer, "accept", action == ACCEPT);
  entry = json_object_new ();
  json_object_set_string_member (entry, "type", type);
  json_object_set_string_member (entry, "message", stw_json_get_string (params, "message") ?: "");
  json_object_set_string_member (entry, "action", action == ACCEPT ? "accept" : "dismiss");
  if (kind == PROMPT)
    {
      json_object_set_string_member (entry, "defaultValue", default_prompt ?: "");
      if (action == ACCEPT)
        {
          const char *text = dialogs->prompt_text ?: (default_prompt ?: "");

          json_object_set_string_member (answer, "promptText", text);
          json_object_set_string_member (entry, "promptText", text);
        }
    }
  json_object_set_int_member (entry, "timestamp", g_get_real_time () / 1000);
  if (stw_surface_get_window_id (opener) != NULL)
    json_object_set_string_member (entry, "windowId", stw_surface_get_window_id (opener));
  json_object_set_string_member (entry, "surfaceId", stw_surface_get_id (opener));
  if (stw_json_get_string (params, "url") != NULL)
    json_object_set_string_member (entry, "url", stw_json_get_string (params, "url"));

  /* Not a call: its reply comes only once the dialog is gone, and nobody
   * needs it. */
  stw_transport_send_notification (transport, "Page.handleJavaScriptDialog", answer, cdp_session);
  g_debug ("Session %s: %s dialog %s", stw_session_get_id (session), type, action == ACCEPT ? "accepted" : "dismissed");

  if (dialogs->one_shot)
    reset_policy (dialogs);
  g_clear_pointer (&dialogs->last, json_object_unref);
  dialogs->last = json_object_ref (entry);
  push_event (dialogs, entry);
}

static void
on_attached (StwTransport *transport,
             const char   *method,
             JsonObject   *params,
             const char   *parent_session,
             StwSession   *session)
{
  const char *cdp_session = stw_json_get_string (params, "sessionId");

  /* The targets that became surfaces (stw-targets.c ran first). */
  if (_stw_dialogs_target_surface (session, cdp_session) != NULL)
    stw_transport_send_notification (transport, "Page.enable", NULL, cdp_session);
}

void
_stw_dialogs_connect (StwSession   *session,
                      StwTransport *browser)
{
  dialogs_get (session);
  g_signal_connect (browser, "event::Target.attachedToTarget", G_CALLBACK (on_attached), session);
  g_signal_connect (browser, "event::Page.javascriptDialogOpening", G_CALLBACK (on_dialog_opening), session);
}

JsonObject *
_stw_dialogs_take_last (StwSession *session)
{
  Dialogs *dialogs = g_object_get_data (G_OBJECT (session), DIALOGS_KEY);
  JsonObject *brief;

  if (dialogs == NULL || dialogs->last == NULL)
    return NULL;
  brief = json_object_new ();
  json_object_set_string_member (brief, "type", stw_json_get_string (dialogs->last, "type"));
  json_object_set_string_member (brief, "message", stw_json_get_string (dialogs->last, "message"));
  json_object_set_string_member (brief, "action", stw_json_get_string (dialogs->last, "action"));
  g_clear_pointer (&dialogs->last, json_object_unref);
  return brief;
}

/* --- the policy --------------------------------------------------------------- */

static gboolean
parse_action (JsonNode    *node,
              const char  *member,
              Action      *action,
              GError     **error)
{
  const char *name = node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
                     ? json_node_get_string (node) : NULL;

  if (g_strcmp0 (name, "accept") == 0)
    *action = ACCEPT;
  else if (g_strcmp0 (name, "dismiss") == 0)
    *action = DISMISS;
  else
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("%s must be \"accept\" or \"dismiss\""), member));
      return FALSE;
    }
  return TRUE;
}

/**
 * stw_session_set_dialog_policy:
 * @self: a #StwSession
 * @policy: `{action?, perType?, promptText?, oneShot?}`
 * @error: where to put a BAD_ARGUMENT
 *
 * Sets how the session answers JavaScript dialogs (`alert`, `confirm`,
 * `prompt`, `beforeunload`) in every window, frame and webview. `action`
 * (`accept` or `dismiss`) applies to every type that `perType` (type →
 * action) does not name; `promptText` is what an accepted prompt answers
 * (its default value otherwise), and is refused unless prompts are
 * accepted; with `oneShot` the policy answers one dialog, then the default
 * comes back. The default, before any policy and after a one-shot, is to
 * dismiss every dialog, so that none blocks the app. The policy replaces
 * the previous one whole.
 *
 * Returns: %TRUE, or %FALSE with @error set (the policy is unchanged)
 *
 * Since: 1.0
 */
gboolean
stw_session_set_dialog_policy (StwSession  *self,
                               JsonObject  *policy,
                               GError     **error)
{
  Dialogs *dialogs;
  Action action = DISMISS;
  Action per_kind[N_KINDS] = { UNSET, UNSET, UNSET, UNSET };
  const char *prompt_text = NULL;
  gboolean one_shot = FALSE;
  JsonNode *node;

  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  g_return_val_if_fail (policy != NULL, FALSE);

  if ((node = json_object_get_member (policy, "action")) != NULL && !parse_action (node, "action", &action, error))
    return FALSE;
  if ((node = json_object_get_member (policy, "perType")) != NULL)
    {
      JsonObject *per_type = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      g_autoptr(GList) members = per_type ? json_object_get_members (per_type) : NULL;

      if (per_type == NULL)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("perType must be an object")));
          return FALSE;
        }
      for (GList *l = members; l != NULL; l = l->next)
        {
          int kind = kind_of (l->data);
          g_autofree char *what = g_strdup_printf ("perType.%s", (const char *) l->data);

          if (kind < 0)
            {
              g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                            _("perType names alert, confirm, prompt or beforeunload, not %s"),
                                                            (const char *) l->data));
              return FALSE;
            }
          if (!parse_action (json_object_get_member (per_type, l->data), what, &per_kind[kind], error))
            return FALSE;
        }
    }
  if ((node = json_object_get_member (policy, "promptText")) != NULL)
    {
      Action prompt = per_kind[PROMPT] != UNSET ? per_kind[PROMPT] : action;

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING ||
          g_utf8_strlen (json_node_get_string (node), -1) > PROMPT_TEXT_MAX)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("promptText must be a string of at most %d characters"),
                                                        PROMPT_TEXT_MAX));
          return FALSE;
        }
      if (prompt != ACCEPT)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT,
                                                        _("promptText needs prompts accepted (action or perType.prompt \"accept\")")));
          return FALSE;
        }
      prompt_text = json_node_get_string (node);
    }
  if ((node = json_object_get_member (policy, "oneShot")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("oneShot must be a boolean")));
          return FALSE;
        }
      one_shot = json_node_get_boolean (node);
    }

  dialogs = dialogs_get (self);
  reset_policy (dialogs);
  dialogs->action = action;
  memcpy (dialogs->per_kind, per_kind, sizeof per_kind);
  dialogs->prompt_text = g_strdup (prompt_text);
  dialogs->one_shot = one_shot;
  return TRUE;
}

/**
 * stw_session_dup_dialog_policy:
 * @self: a #StwSession
 *
 * The policy in force, as [method@Stagewright.Session.set_dialog_policy]
 * takes it, with every type's effective action in `perType` and the
 * Electron methods stubbed in the main process as `stubs`.
 *
 * Returns: (transfer full): the policy
 *
 * Since: 1.0
 */
StwDialogPolicy *
stw_session_dup_dialog_policy (StwSession *self)
{
  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  return dialog_policy_new (policy_json (self));
}

/* `{action, perType, promptText?, oneShot, stubs}`: what
 * stw_session_set_dialog_policy() takes, and the tool shows. */
static JsonObject *
policy_json (StwSession *self)
{
  Dialogs *dialogs;
  JsonObject *policy;
  JsonObject *per_type;
  JsonArray *stubs;

  dialogs = dialogs_get (self);
  policy = json_object_new ();
  per_type = json_object_new ();
  json_object_set_string_member (policy, "action", dialogs->action == ACCEPT ? "accept" : "dismiss");
  for (guint i = 0; i < N_KINDS; i++)
    {
      Action action = dialogs->per_kind[i] != UNSET ? dialogs->per_kind[i] : dialogs->action;
      json_object_set_string_member (per_type, kind_names[i], action == ACCEPT ? "accept" : "dismiss");
    }
  json_object_set_object_member (policy, "perType", per_type);
  if (dialogs->prompt_text != NULL)
    json_object_set_string_member (policy, "promptText", dialogs->prompt_text);
  json_object_set_boolean_member (policy, "oneShot", dialogs->one_shot);
  stubs = json_array_new ();
  for (guint i = 0; i < dialogs->stubs->len; i++)
    json_array_add_string_element (stubs, g_ptr_array_index (dialogs->stubs, i));
  json_object_set_array_member (policy, "stubs", stubs);
  return policy;
}

/* --- main-process stubs --------------------------------------------------- */

static char *
stubs_expression (const char *op,
                  JsonNode   *arg)
{
  g_autoptr(GBytes) source = g_resource_lookup_data (stw_get_resource (), STUBS_RESOURCE,
                                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autofree char *json = arg ? stw_json_to_string (arg, NULL) : g_strdup ("null");

  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (source != NULL);
  return g_strdup_printf ("%.*s(require('electron'), \"%s\", %s)",
                          (int) g_bytes_get_size (source), (const char *) g_bytes_get_data (source, NULL), op, json);
}

static GError *
no_main_process_error (void)
{
  GError *error = stw_error_new_code (STW_ERROR_TRANSPORT_UNSUPPORTED,
                                      _("Native dialogs, shell and clipboard are stubbed in the main process, "
                                        "and this session has none to talk to"));

  stw_error_set_hint (error, _("Launch the app with main (its Node inspector) or inject into it; page dialogs "
                               "are handled either way."));
  return error;
}

static void
set_stub_names (Dialogs  *dialogs,
                JsonNode *names)
{
  JsonArray *array = names && JSON_NODE_HOLDS_ARRAY (names) ? json_node_get_array (names) : NULL;

  g_ptr_array_set_size (dialogs->stubs, 0);
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      const char *name = json_array_get_string_element (array, i);

      if (name != NULL && g_strv_contains (stub_names, name))
        g_ptr_array_add (dialogs->stubs, g_strdup (name));
    }
}

static void
on_stubbed (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) names = stw_session_evaluate_main_finish (STW_SESSION (object), result, &error);

  if (names == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  set_stub_names (dialogs_get (STW_SESSION (object)), names);
  g_task_return_boolean (task, TRUE);
}

/**
 * stw_session_stub_electron_async:
 * @self: a #StwSession
 * @stubs: method name → canned answer, or `null` to restore the method
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the stubs are in place
 * @user_data: data for @callback
 *
 * Replaces Electron main-process methods with stubs that answer at once
 * and record each call with its arguments (read them with
 * [method@Stagewright.Session.read_dialog_events_async]), as WebdriverIO's
 * Electron service mocks do: a test never opens a real file chooser,
 * browser or file manager, nor touches the real clipboard. The names are
 * `dialog.showOpenDialog`, `dialog.showSaveDialog`,
 * `dialog.showMessageBox` (and their `…Sync` forms),
 * `dialog.showErrorBox`, `shell.openExternal`, `shell.openPath`,
 * `clipboard.readText`, `clipboard.writeText` and `clipboard.clear`.
 *
 * A canned answer is what the method returns (promise methods resolve to
 * it); `true` is the answer of a user who cancels or takes the first
 * button, and an array of paths (open), a path (save) or a button index
 * (message box) is short for the whole answer. Stubbed
 * `clipboard.readText` given `true` reads what the stubbed `writeText`
 * wrote. Names left out keep their current state; `null` restores the
 * app's method.
 *
 * The stubs run in the main process, through its inspector: a session
 * without one fails with `TRANSPORT_UNSUPPORTED`.
 *
 * Since: 1.0
 */
void
stw_session_stub_electron_async (StwSession          *self,
                                 JsonObject          *stubs,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GList) members = NULL;
  g_autoptr(JsonNode) arg = NULL;
  g_autofree char *expression = NULL;

  g_return_if_fail (STW_IS_SESSION (self));
  g_return_if_fail (stubs != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_stub_electron_async);

  members = json_object_get_members (stubs);
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (stub_names, l->data))
      {
        g_autofree char *known = g_strjoinv (", ", (char **) stub_names);

        g_task_return_error (task, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Cannot stub %s; the names are %s"),
                                                       (const char *) l->data, known));
        return;
      }
  if (!stw_session_has_main_process (self))
    {
      g_task_return_error (task, no_main_process_error ());
      return;
    }

  dialogs_get (self)->stubs_used = TRUE;
  arg = json_node_init_object (json_node_alloc (), stubs);
  expression = stubs_expression ("stub", arg);
  stw_session_evaluate_main_async (self, expression, cancellable, on_stubbed, g_steal_pointer (&task));
}

/**
 * stw_session_stub_electron_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.stub_electron_async].
 *
 * Returns: %TRUE when the stubs are in place
 *
 * Since: 1.0
 */
gboolean
stw_session_stub_electron_finish (StwSession    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_stub_electron_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * stw_session_stub_electron_sync:
 * @self: a #StwSession
 * @stubs: method name → canned answer, or `null` to restore the method
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of [method@Stagewright.Session.stub_electron_async].
 *
 * Returns: %TRUE when the stubs are in place
 *
 * Since: 1.0
 */
gboolean
stw_session_stub_electron_sync (StwSession    *self,
                                JsonObject    *stubs,
                                GCancellable  *cancellable,
                                GError       **error)
{
  StwSyncCall call;
  gboolean ret;

  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);

  if (!_stw_sync_call_init (&call, _stw_session_get_context (self)))
    return FALSE;
  stw_session_stub_electron_async (self, stubs, cancellable, _stw_sync_call_callback, &call);
  ret = stw_session_stub_electron_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- reading events ---------------------------------------------------------- */

typedef struct
{
  GPtrArray *types;     /* nullable: every type */
  double     since;
  guint      limit;
  gboolean   clear;
} Filter;

static void
filter_free (Filter *filter)
{
  g_clear_pointer (&filter->types, g_ptr_array_unref);
  g_free (filter);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Filter, filter_free)

static Filter *
filter_new (JsonObject  *object,
            GError     **error)
{
  g_autoptr(Filter) filter = g_new0 (Filter, 1);
  JsonNode *node;

  filter->limit = READ_LIMIT_DEFAULT;
  if (object == NULL)
    return g_steal_pointer (&filter);

  if ((node = json_object_get_member (object, "type")) != NULL)
    {
      filter->types = g_ptr_array_new_with_free_func (g_free);
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        g_ptr_array_add (filter->types, g_strdup (json_node_get_string (node)));
      else if (JSON_NODE_HOLDS_ARRAY (node))
        for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
          {
            JsonNode *item = json_array_get_element (json_node_get_array (node), i);

            if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING)
              {
                filter->types->len = 0;
                break;
              }
            g_ptr_array_add (filter->types, g_strdup (json_node_get_string (item)));
          }
      if (filter->types->len == 0)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("type must be a string or a non-empty array of strings")));
          return NULL;
        }
    }
  if ((node = json_object_get_member (object, "since")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) ||
          (json_node_get_value_type (node) != G_TYPE_INT64 && json_node_get_value_type (node) != G_TYPE_DOUBLE) ||
          json_node_get_double (node) < 0)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("since must be epoch milliseconds")));
          return NULL;
        }
      filter->since = json_node_get_double (node);
    }
  if ((node = json_object_get_member (object, "limit")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
          json_node_get_int (node) < 1 || json_node_get_int (node) > STW_DIALOG_EVENTS_MAX)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("limit must be an integer from 1 to %d"),
                                                        STW_DIALOG_EVENTS_MAX));
          return NULL;
        }
      filter->limit = (guint) json_node_get_int (node);
    }
  if ((node = json_object_get_member (object, "clear")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("clear must be a boolean")));
          return NULL;
        }
      filter->clear = json_node_get_boolean (node);
    }
  return g_steal_pointer (&filter);
}

/* A type matches itself, and a module (`dialog`, `shell`, `clipboard`)
 * matches each of its methods. */
static gboolean
type_matches (Filter     *filter,
              const char *type)
{
  if (filter->types == NULL)
    return TRUE;
  for (guint i = 0; i < filter->types->len; i++)
    {
      const char *want = g_ptr_array_index (filter->types, i);
      gsize n = strlen (want);

      if (g_strcmp0 (want, type) == 0 || (type && strncmp (want, type, n) == 0 && type[n] == '.'))
        return TRUE;
    }
  return FALSE;
}

static gint
by_timestamp (gconstpointer a,
              gconstpointer b)
{
  gint64 ta = json_object_get_int_member (*(JsonObject **) a, "timestamp");
  gint64 tb = json_object_get_int_member (*(JsonObject **) b, "timestamp");

  return ta < tb ? -1 : ta > tb;
}

static JsonObject *
collect (StwSession *session,
         Filter     *filter)
{
  Dialogs *dialogs = dialogs_get (session);
  g_autoptr(GPtrArray) picked = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  JsonObject *answer = json_object_new ();
  JsonArray *entries = json_array_new ();
  guint skip;

  for (GList *l = dialogs->events.head; l != NULL; l = l->next)
    {
      JsonObject *entry = l->data;

      if ((double) json_object_get_int_member (entry, "timestamp") >= filter->since &&
          type_matches (filter, stw_json_get_string (entry, "type")))
        g_ptr_array_add (picked, json_object_ref (entry));
    }
  /* Stable: drained native calls interleave with page dialogs by time. */
  g_ptr_array_sort (picked, by_timestamp);
  skip = picked->len > filter->limit ? picked->len - filter->limit : 0;
  for (guint i = skip; i < picked->len; i++)
    json_array_add_object_element (entries, json_object_ref (g_ptr_array_index (picked, i)));

  json_object_set_object_member (answer, "policy", policy_json (session));
  json_object_set_array_member (answer, "entries", entries);
  json_object_set_int_member (answer, "count", json_array_get_length (entries));
  json_object_set_int_member (answer, "overflowed", (gint64) dialogs->overflowed);
  json_object_set_boolean_member (answer, "native", stw_session_has_main_process (session));

  if (filter->clear)
    {
      g_queue_clear_full (&dialogs->events, (GDestroyNotify) json_object_unref);
      g_queue_init (&dialogs->events);
      dialogs->overflowed = 0;
    }
  return answer;
}

static void
on_drained (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSession *session = STW_SESSION (object);
  Dialogs *dialogs = dialogs_get (session);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) drained = stw_session_evaluate_main_finish (session, result, &error);
  JsonObject *object_drained = drained && JSON_NODE_HOLDS_OBJECT (drained) ? json_node_get_object (drained) : NULL;

  /* The page dialogs are worth reading even when the main process no
   * longer answers (it closed its inspector, or exited). */
  if (error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (error != NULL)
    g_debug ("Session %s: the main process's recorded calls are out of reach: %s",
             stw_session_get_id (session), error->message);
  if (object_drained != NULL)
    {
      JsonArray *calls = json_object_has_member (object_drained, "calls")
                         ? json_object_get_array_member (object_drained, "calls") : NULL;

      dialogs->overflowed += (guint64) MAX (json_object_get_int_member_with_default (object_drained, "dropped", 0), 0);
      for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
        {
          JsonObject *call = json_array_get_object_element (calls, i);

          if (call != NULL && json_object_has_member (call, "timestamp"))
            {
              JsonObject *entry = json_object_new ();

              stw_json_object_copy_members (entry, call, NULL);
              json_object_set_int_member (entry, "timestamp", (gint64) json_object_get_double_member (call, "timestamp"));
              json_object_set_string_member (entry, "source", "main");
              push_event (dialogs, entry);
            }
        }
      set_stub_names (dialogs, json_object_get_member (object_drained, "stubs"));
    }
  g_task_return_pointer (task, dialog_log_new (collect (session, g_task_get_task_data (task))),
                         (GDestroyNotify) stw_dialog_log_unref);
}

/**
 * stw_session_read_dialog_events_async:
 * @self: a #StwSession
 * @filter: (nullable): `{type?, since?, limit?, clear?}`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the events
 * @user_data: data for @callback
 *
 * The dialogs the session answered and the stubbed calls the main process
 * recorded, oldest first: the newest %STW_DIALOG_EVENTS_MAX are kept, and
 * older ones counted as `overflowed`. A page dialog is `{type, message,
 * action, defaultValue?, promptText?, timestamp, windowId, surfaceId,
 * url?}`; a stubbed call `{type, args, returned?, electronWindowId?,
 * timestamp, source: "main"}` where `type` is the method's name
 * (`dialog.showOpenDialog`, `shell.openExternal`, …).
 *
 * @filter selects by `type` (a string or an array of them; a module such
 * as `shell` matches each of its methods), `since` (epoch ms, inclusive)
 * and `limit` (1 to 200, 50 by default: the newest); `clear` empties the
 * buffer after reading.
 *
 * Since: 1.0
 */
void
stw_session_read_dialog_events_async (StwSession          *self,
                                      JsonObject          *filter,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expression = NULL;
  Filter *parsed;

  g_return_if_fail (STW_IS_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_read_dialog_events_async);
  parsed = filter_new (filter, &error);
  if (parsed == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_set_task_data (task, parsed, (GDestroyNotify) filter_free);

  /* Calls recorded in the main process join the ring first. */
  if (!dialogs_get (self)->stubs_used || !stw_session_has_main_process (self))
    {
      g_task_return_pointer (task, dialog_log_new (collect (self, parsed)), (GDestroyNotify) stw_dialog_log_unref);
      return;
    }
  expression = stubs_expression ("drain", NULL);
  stw_session_evaluate_main_async (self, expression, cancellable, on_drained, g_steal_pointer (&task));
}

/**
 * stw_session_read_dialog_events_finish:
 * @self: a #StwSession
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.Session.read_dialog_events_async].
 *
 * Returns: (transfer full): the events, the policy in force, and whether
 *   native stubs are available (the session has a main process)
 *
 * Since: 1.0
 */
StwDialogLog *
stw_session_read_dialog_events_finish (StwSession    *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_read_dialog_events_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_session_read_dialog_events_sync:
 * @self: a #StwSession
 * @filter: (nullable): `{type?, since?, limit?, clear?}`
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of
 * [method@Stagewright.Session.read_dialog_events_async].
 *
 * Returns: (transfer full): the events, the policy in force, and whether
 *   native stubs are available
 *
 * Since: 1.0
 */
StwDialogLog *
stw_session_read_dialog_events_sync (StwSession    *self,
                                     JsonObject    *filter,
                                     GCancellable  *cancellable,
                                     GError       **error)
{
  StwSyncCall call;
  StwDialogLog *ret;

  g_return_val_if_fail (STW_IS_SESSION (self), NULL);

  if (!_stw_sync_call_init (&call, _stw_session_get_context (self)))
    return NULL;
  stw_session_read_dialog_events_async (self, filter, cancellable, _stw_sync_call_callback, &call);
  ret = stw_session_read_dialog_events_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return ret;
}

/* --- typed answers ---------------------------------------------------------- */

/* Takes @json. */
static StwDialogPolicy *
dialog_policy_new (JsonObject *json)
{
  StwDialogPolicy *self = g_new0 (StwDialogPolicy, 1);
  JsonArray *stubs = json_object_get_array_member (json, "stubs");
  guint n = json_array_get_length (stubs);

  g_atomic_ref_count_init (&self->ref_count);
  self->json = json;
  self->stubs = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    self->stubs[i] = g_strdup (json_array_get_string_element (stubs, i));
  return self;
}

/**
 * stw_dialog_policy_ref:
 * @self: a #StwDialogPolicy
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwDialogPolicy *
stw_dialog_policy_ref (StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_dialog_policy_unref:
 * @self: (transfer full): a #StwDialogPolicy
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_dialog_policy_unref (StwDialogPolicy *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_object_unref (self->json);
  g_strfreev (self->stubs);
  g_free (self);
}

/**
 * stw_dialog_policy_get_action:
 * @self: a #StwDialogPolicy
 *
 * Gets what the policy does with a dialog whose type has no action of its
 * own.
 *
 * Returns: (transfer none): `accept` or `dismiss`
 *
 * Since: 1.0
 */
const char *
stw_dialog_policy_get_action (const StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->json, "action");
}

/**
 * stw_dialog_policy_get_action_for:
 * @self: a #StwDialogPolicy
 * @type: `alert`, `confirm`, `prompt` or `beforeunload`
 *
 * Gets what the policy does with a dialog of @type.
 *
 * Returns: (transfer none) (nullable): `accept` or `dismiss`, or %NULL
 *   for an unknown @type
 *
 * Since: 1.0
 */
const char *
stw_dialog_policy_get_action_for (const StwDialogPolicy *self,
                                  const char            *type)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (type != NULL, NULL);

  return stw_json_get_string (stw_json_get_object (self->json, "perType"), type);
}

/**
 * stw_dialog_policy_get_prompt_text:
 * @self: a #StwDialogPolicy
 *
 * Gets the text an accepted `prompt` answers.
 *
 * Returns: (transfer none) (nullable): the text, or %NULL for the
 *   prompt's own default
 *
 * Since: 1.0
 */
const char *
stw_dialog_policy_get_prompt_text (const StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return stw_json_get_string (self->json, "promptText");
}

/**
 * stw_dialog_policy_is_one_shot:
 * @self: a #StwDialogPolicy
 *
 * Whether the policy answers one dialog only, and dismisses after.
 *
 * Returns: %TRUE for a one-shot policy
 *
 * Since: 1.0
 */
gboolean
stw_dialog_policy_is_one_shot (const StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return json_object_get_boolean_member_with_default (self->json, "oneShot", FALSE);
}

/**
 * stw_dialog_policy_get_stubs:
 * @self: a #StwDialogPolicy
 *
 * Gets the Electron methods stubbed in the main process
 * (`dialog.showOpenDialog`, `shell.openExternal`, …).
 *
 * Returns: (transfer none) (array zero-terminated=1): the methods' names
 *
 * Since: 1.0
 */
const char * const *
stw_dialog_policy_get_stubs (const StwDialogPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (const char * const *) self->stubs;
}

/* The policy as [method@Stagewright.Session.set_dialog_policy] takes it and
 * `electron_dialog_handler` shows it: `{action, perType, promptText?,
 * oneShot, stubs}`. Registered as the type's JSON serialization, which the
 * tool calls through json_boxed_serialize(). */
static JsonObject *
dialog_policy_to_json (const StwDialogPolicy *self)
{
  JsonObject *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = json_object_new ();
  stw_json_object_copy_members (copy, self->json, NULL);
  return copy;
}

static JsonNode *
dialog_policy_serialize (gconstpointer boxed)
{
  return json_node_init_object (json_node_alloc (), dialog_policy_to_json (boxed));
}

/* Takes @json, as collect() made it. */
static StwDialogLog *
dialog_log_new (JsonObject *json)
{
  StwDialogLog *self = g_new0 (StwDialogLog, 1);
  JsonArray *entries = json_object_get_array_member (json, "entries");

  g_atomic_ref_count_init (&self->ref_count);
  self->json = json;
  self->events = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_dialog_event_free);
  for (guint i = 0; i < json_array_get_length (entries); i++)
    g_ptr_array_add (self->events, _stw_dialog_event_new_from_entry (json_array_get_object_element (entries, i)));
  self->policy = dialog_policy_new (json_object_ref (json_object_get_object_member (json, "policy")));
  return self;
}

/**
 * stw_dialog_log_ref:
 * @self: a #StwDialogLog
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwDialogLog *
stw_dialog_log_ref (StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_dialog_log_unref:
 * @self: (transfer full): a #StwDialogLog
 *
 * Drops a reference on @self.
 *
 * Since: 1.0
 */
void
stw_dialog_log_unref (StwDialogLog *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_object_unref (self->json);
  g_ptr_array_unref (self->events);
  stw_dialog_policy_unref (self->policy);
  g_free (self);
}

/**
 * stw_dialog_log_get_n_events:
 * @self: a #StwDialogLog
 *
 * Gets how many events were picked.
 *
 * Returns: the number of events
 *
 * Since: 1.0
 */
guint
stw_dialog_log_get_n_events (const StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->events->len;
}

/**
 * stw_dialog_log_get_event:
 * @self: a #StwDialogLog
 * @index: a position, below [method@Stagewright.DialogLog.get_n_events]
 *
 * Gets an event, oldest first.
 *
 * Returns: (transfer none): the event
 *
 * Since: 1.0
 */
const StwDialogEvent *
stw_dialog_log_get_event (const StwDialogLog *self,
                          guint               index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->events->len, NULL);

  return g_ptr_array_index (self->events, index);
}

/**
 * stw_dialog_log_get_overflowed:
 * @self: a #StwDialogLog
 *
 * Gets how many older events the session dropped, as it keeps the newest
 * %STW_DIALOG_EVENTS_MAX.
 *
 * Returns: the number of dropped events
 *
 * Since: 1.0
 */
guint64
stw_dialog_log_get_overflowed (const StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return (guint64) json_object_get_int_member_with_default (self->json, "overflowed", 0);
}

/**
 * stw_dialog_log_get_policy:
 * @self: a #StwDialogLog
 *
 * Gets the policy that was in force when the events were read.
 *
 * Returns: (transfer none): the policy
 *
 * Since: 1.0
 */
StwDialogPolicy *
stw_dialog_log_get_policy (const StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->policy;
}

/**
 * stw_dialog_log_is_native:
 * @self: a #StwDialogLog
 *
 * Whether native stubs are available: the session reaches the main
 * process.
 *
 * Returns: %TRUE when Electron's methods can be stubbed
 *
 * Since: 1.0
 */
gboolean
stw_dialog_log_is_native (const StwDialogLog *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return json_object_get_boolean_member_with_default (self->json, "native", FALSE);
}

/* The log as `electron_dialog_handler` answers it: `{policy, entries, count,
 * overflowed, native}`. Registered as the type's JSON serialization, which
 * the tool calls through json_boxed_serialize(). */
static JsonObject *
dialog_log_to_json (const StwDialogLog *self)
{
  JsonObject *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = json_object_new ();
  stw_json_object_copy_members (copy, self->json, NULL);
  return copy;
}

static JsonNode *
dialog_log_serialize (gconstpointer boxed)
{
  return json_node_init_object (json_node_alloc (), dialog_log_to_json (boxed));
}
