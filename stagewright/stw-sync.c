/* stw-sync.c: the one way a blocking call waits
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "stw-sync-private.h"

/*
 * _stw_sync_call_init:
 * @call: an uninitialised #StwSyncCall on the caller's stack
 * @context: the main context the object that owns the operation was made in
 *
 * Prepares a blocking call. Calling from a thread whose default context is
 * not @context, or while another thread owns @context, is a programmer
 * error: the operation's I/O could never be dispatched here.
 *
 * Returns: %FALSE (after a critical) when the call cannot be made
 */
gboolean
_stw_sync_call_init (StwSyncCall  *call,
                     GMainContext *context)
{
  g_autoptr(GMainContext) current = g_main_context_ref_thread_default ();

  call->context = NULL;
  call->result = NULL;
  call->acquired = FALSE;

  g_return_val_if_fail (context != NULL, FALSE);
  g_return_val_if_fail (current == context, FALSE);
  /* The thread-default test alone passes in any thread that pushed
   * nothing; owning the context proves the caller's thread can run it. */
  g_return_val_if_fail (g_main_context_acquire (context), FALSE);

  call->context = g_main_context_ref (context);
  call->acquired = TRUE;
  return TRUE;
}

/**
 * stw_sync_call_callback: (skip)
 * @source: (nullable): the operation's source object
 * @result: the operation's result
 * @user_data: the #StwSyncCall
 *
 * The #GAsyncReadyCallback to hand to the `_async` function, with the
 * #StwSyncCall as its user data.
 *
 * Since: 1.0
 */
void
stw_sync_call_callback (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  StwSyncCall *call = user_data;

  g_assert (call->result == NULL);
  call->result = g_object_ref (result);
  g_main_context_wakeup (call->context);
}

/**
 * stw_sync_call_wait: (skip)
 * @call: a prepared #StwSyncCall whose operation has been started
 *
 * Iterates the owner's context until the operation completes. Other sources
 * of that context (signals, timeouts, other calls) keep running meanwhile,
 * which is what lets scripts mix blocking and asynchronous calls.
 *
 * Returns: (transfer none): the result, valid until stw_sync_call_clear()
 *
 * Since: 1.0
 */
GAsyncResult *
stw_sync_call_wait (StwSyncCall *call)
{
  g_return_val_if_fail (call->context != NULL, NULL);

  while (call->result == NULL)
    g_main_context_iteration (call->context, TRUE);
  return call->result;
}

/**
 * stw_sync_call_clear: (skip)
 * @call: a #StwSyncCall
 *
 * Releases what @call holds: the result and the owner's context.
 *
 * Since: 1.0
 */
void
stw_sync_call_clear (StwSyncCall *call)
{
  g_clear_object (&call->result);
  if (call->acquired)
    g_main_context_release (call->context);
  call->acquired = FALSE;
  g_clear_pointer (&call->context, g_main_context_unref);
}
