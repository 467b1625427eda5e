/* stw-sync-private.h: the one way a blocking call waits
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "stw-sync.h"

G_BEGIN_DECLS

/* Objects that own long-lived I/O (transports, sessions, the manager, the
 * dispatcher) remember the main context that was thread-default when they
 * were made, as SoupSession does. Their blocking calls start the
 * asynchronous operation and iterate that context until it completes: the
 * sockets made earlier are attached there, so a private context could never
 * serve them. See docs/architecture.md, "Blocking calls".
 *
 * Inside the library a call names the owner's context itself; the rest is
 * the public helper (stw-sync.h), which plugins' `_sync` functions use. */
gboolean _stw_sync_call_init (StwSyncCall  *call,
                              GMainContext *context);

#define _stw_sync_call_callback stw_sync_call_callback
#define _stw_sync_call_wait stw_sync_call_wait
#define _stw_sync_call_clear stw_sync_call_clear

G_END_DECLS
