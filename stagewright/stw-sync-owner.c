/* stw-sync-owner.c: which main context a blocking call iterates
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Apart from stw-sync.c, which the owners themselves include: the owners'
 * contexts are theirs to tell (docs/architecture.md, "Blocking calls").
 */

#include "config.h"

#include "stw-sync-private.h"

#include "stw-dispatcher-private.h"
#include "stw-plugin.h"
#include "stw-session-private.h"
#include "stw-surface-private.h"

/**
 * stw_sync_call_init: (skip)
 * @call: an uninitialised #StwSyncCall on the caller's stack
 * @owner: (type GObject.Object) (nullable): the object whose I/O the
 *   operation uses: a #StwSession, #StwSurface, #StwDispatcher or a
 *   #StwPlugin (its dispatcher's, once loaded); %NULL for an operation
 *   that owns no long-lived I/O (it then iterates the thread-default
 *   context)
 *
 * Prepares the blocking form of an asynchronous operation: start it with
 * stw_sync_call_callback() and @call as its callback and user data, then
 * take its result from stw_sync_call_wait() and release @call with
 * stw_sync_call_clear(). The wait iterates the main context @owner
 * remembers from when it was made, never a private one, so its sockets and
 * timeouts are served and other calls keep progressing meanwhile
 * (docs/architecture.md, "Blocking calls"). Calling from a thread whose
 * thread-default context is not that one is a programmer error.
 *
 * Returns: %FALSE (after a critical) when the call cannot be made; then
 *   @call needs no stw_sync_call_clear()
 *
 * Since: 1.0
 */
gboolean
stw_sync_call_init (StwSyncCall *call,
                    gpointer     owner)
{
  g_autoptr(GMainContext) current = g_main_context_ref_thread_default ();
  GMainContext *context = current;

  if (STW_IS_PLUGIN (owner))
    owner = stw_plugin_get_dispatcher (owner);

  if (owner == NULL)
    ;
  else if (STW_IS_SESSION (owner))
    context = _stw_session_get_context (owner);
  else if (STW_IS_SURFACE (owner))
    context = _stw_surface_get_context (owner);
  else if (STW_IS_DISPATCHER (owner))
    context = _stw_dispatcher_get_context (owner);
  else
    {
      call->context = NULL;
      call->result = NULL;
      call->acquired = FALSE;
      g_return_val_if_reached (FALSE);
    }
  return _stw_sync_call_init (call, context);
}
