/* stw-surface-run.c: running agent code in a surface
 *
 * Any surface runs renderer code, not only the session's active one: a
 * frame or a webview runs it in its own document (stw-runner.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-deadline-private.h"
#include "stw-runner-private.h"
#include "stw-surface-private.h"

/**
 * stw_surface_run_async:
 * @self: a #StwSurface
 * @code: the body of an async function of `(arg)`: may `await` and
 *   `return`
 * @arg: (nullable): a JSON value given as `arg`
 * @timeout_ms: the budget, 0 for the default (30 s)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the value
 * @user_data: data for @callback
 *
 * Runs agent code in this surface, in its page's main world, where the
 * app's globals are (a same-process frame, which a flat CDP session
 * reaches only through a context of its own, in its isolated world). Any
 * surface runs it: a window, a frame or a webview, active or not. Errors
 * as for [method@Stagewright.Session.run_main_async]; `SURFACE_CLOSED`
 * when the surface has closed.
 *
 * Since: 1.0
 */
void
stw_surface_run_async (StwSurface          *self,
                       const char          *code,
                       JsonNode            *arg,
                       guint                timeout_ms,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GCancellable) deadline = NULL;
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (STW_IS_SURFACE (self));
  g_return_if_fail (code != NULL);

  /* The budget bounds the compile and the checks before the run too. */
  deadline = _stw_deadline_new (cancellable, timeout_ms ? timeout_ms : STW_RUN_DEFAULT_TIMEOUT_MS);
  task = g_task_new (self, deadline, callback, user_data);
  g_task_set_source_tag (task, stw_surface_run_async);
  if (!_stw_run_check_code (code, &error) || (error = _stw_surface_check_usable (self)) != NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  _stw_run_renderer_start (g_steal_pointer (&task), self, code, arg, timeout_ms);
}

/**
 * stw_surface_run_finish:
 * @self: a #StwSurface
 * @result: the result given to the callback
 * @serialized: (out) (optional): whether the value was not JSON and came
 *   back as its string form
 * @error: where to put the failure
 *
 * Finishes an operation started with [method@Stagewright.Surface.run_async].
 *
 * Returns: (transfer full): the value
 *   (JSON because agent code can answer any value)
 *
 * Since: 1.0
 */
JsonNode *
stw_surface_run_finish (StwSurface    *self,
                        GAsyncResult  *result,
                        gboolean      *serialized,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_surface_run_async, NULL);

  return _stw_run_finish (result, serialized, error);
}

/**
 * stw_surface_run_sync:
 * @self: a #StwSurface
 * @code: as for [method@Stagewright.Surface.run_async]
 * @arg: (nullable): a JSON value given as `arg`
 * @timeout_ms: the budget, 0 for the default (30 s)
 * @serialized: (out) (optional): as for [method@Stagewright.Surface.run_finish]
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.Surface.run_async].
 *
 * Returns: (transfer full) (nullable): the value
 *   (JSON because agent code can answer any value)
 *
 * Since: 1.0
 */
JsonNode *
stw_surface_run_sync (StwSurface    *self,
                      const char    *code,
                      JsonNode      *arg,
                      guint          timeout_ms,
                      gboolean      *serialized,
                      GCancellable  *cancellable,
                      GError       **error)
{
  StwSyncCall call;
  JsonNode *value;

  g_return_val_if_fail (STW_IS_SURFACE (self), NULL);
  if (!_stw_sync_call_init (&call, _stw_surface_get_context (self)))
    return NULL;
  stw_surface_run_async (self, code, arg, timeout_ms, cancellable, _stw_sync_call_callback, &call);
  value = stw_surface_run_finish (self, _stw_sync_call_wait (&call), serialized, error);
  _stw_sync_call_clear (&call);
  return value;
}
