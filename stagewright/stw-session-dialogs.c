/* stw-session-dialogs.c: the session's dialogs — which surface a dialog
 * came from, and the main-process stubs
 *
 * One mechanism answers every JavaScript dialog of a session: the Page
 * domain is enabled on each page, frame and webview target as it becomes
 * a surface, and `Page.javascriptDialogOpening` goes to the dialogs unit
 * (stw-dialogs.c) with the surface that opened it; the unit answers by
 * the policy and records it. Native dialogs, `shell` and `clipboard` are
 * stubbed in the main process (js/main-stubs.js, through the inspector);
 * their calls are drained into the unit's ring when events are read.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-dialogs-private.h"
#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-session-private.h"
#include "stw-surface-private.h"
#include "stw-sync-private.h"

/* --- answering page dialogs ------------------------------------------------- */

/* The surface of the target on @cdp_session: a page, an out-of-process
 * frame or a webview (a same-process frame shares its page's session). */
StwSurface *
_stw_session_target_surface (StwSession *session,
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
  StwSurface *surface = _stw_session_target_surface (session, cdp_session);
  const char *frame_id = stw_json_get_string (params, "frameId");
  g_autoptr(JsonObject) answer = NULL;
  StwSurface *opener;

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

  answer = _stw_dialogs_answer (_stw_session_get_dialogs (session), params, cdp_session,
                                stw_surface_get_window_id (opener), stw_surface_get_id (opener));
  /* Not a call: its reply comes only once the dialog is gone, and nobody
   * needs it. */
  stw_transport_send_notification (transport, "Page.handleJavaScriptDialog", answer, cdp_session);
  g_debug ("Session %s: %s dialog %s", stw_session_get_id (session), stw_json_get_string (params, "type"),
           json_object_get_boolean_member (answer, "accept") ? "accepted" : "dismissed");
}

/* Every target that became a surface answers its dialogs here. Called by
 * the session as it adds the surface, so no handler order matters. */
void
_stw_session_dialogs_enable (StwSession   *session,
                             StwTransport *browser,
                             const char   *cdp_session)
{
  stw_transport_send_notification (browser, "Page.enable", NULL, cdp_session);
}

void
_stw_session_dialogs_connect (StwSession   *session,
                              StwTransport *browser)
{
  g_signal_connect (browser, "event::Page.javascriptDialogOpening", G_CALLBACK (on_dialog_opening), session);
}

/* --- the policy --------------------------------------------------------------- */

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
  g_return_val_if_fail (STW_IS_SESSION (self), FALSE);
  g_return_val_if_fail (policy != NULL, FALSE);

  return _stw_dialogs_set_policy (_stw_session_get_dialogs (self), policy, error);
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

  return _stw_dialogs_dup_policy (_stw_session_get_dialogs (self));
}

/* --- main-process stubs --------------------------------------------------- */

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
  _stw_dialogs_set_stub_names (_stw_session_get_dialogs (STW_SESSION (object)), names);
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
  GError *error = NULL;
  g_autoptr(JsonNode) arg = NULL;
  g_autofree char *expression = NULL;

  g_return_if_fail (STW_IS_SESSION (self));
  g_return_if_fail (stubs != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_stub_electron_async);

  if (!_stw_dialogs_use_stubs (_stw_session_get_dialogs (self), stubs, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!stw_session_has_main_process (self))
    {
      g_task_return_error (task, no_main_process_error ());
      return;
    }

  arg = json_node_init_object (json_node_alloc (), stubs);
  expression = _stw_dialogs_stubs_expression ("stub", arg);
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

static void
on_drained (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSession *session = STW_SESSION (object);
  StwDialogs *dialogs = _stw_session_get_dialogs (session);
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
    _stw_dialogs_add_main_calls (dialogs, object_drained);
  g_task_return_pointer (task, _stw_dialogs_read (dialogs, g_task_get_task_data (task),
                                                  stw_session_has_main_process (session)),
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
  StwDialogFilter *parsed;

  g_return_if_fail (STW_IS_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_session_read_dialog_events_async);
  parsed = _stw_dialog_filter_new (filter, &error);
  if (parsed == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_set_task_data (task, parsed, (GDestroyNotify) _stw_dialog_filter_free);

  /* Calls recorded in the main process join the ring first. */
  if (!_stw_dialogs_get_stubs_used (_stw_session_get_dialogs (self)) || !stw_session_has_main_process (self))
    {
      g_task_return_pointer (task, _stw_dialogs_read (_stw_session_get_dialogs (self), parsed, stw_session_has_main_process (self)),
                             (GDestroyNotify) stw_dialog_log_unref);
      return;
    }
  expression = _stw_dialogs_stubs_expression ("drain", NULL);
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
