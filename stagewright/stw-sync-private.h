/* stw-sync-private.h: the one way a blocking call waits
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Objects that own long-lived I/O (transports, sessions, the manager, the
 * dispatcher) remember the main context that was thread-default when they
 * were made, as SoupSession does. Their blocking calls start the
 * asynchronous operation and iterate that context until it completes: the
 * sockets made earlier are attached there, so a private context could never
 * serve them. See docs/architecture.md, "Blocking calls". */
typedef struct
{
  GMainContext *context;
  GAsyncResult *result;
  gboolean      acquired;
} StwSyncCall;

gboolean      _stw_sync_call_init     (StwSyncCall  *call,
                                       GMainContext *context);
void          _stw_sync_call_callback (GObject      *source,
                                       GAsyncResult *result,
                                       gpointer      user_data);
GAsyncResult *_stw_sync_call_wait     (StwSyncCall  *call);
void          _stw_sync_call_clear    (StwSyncCall  *call);

G_END_DECLS
