/* stw-transport-private.h: what subclasses of StwTransport call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-transport.h"

G_BEGIN_DECLS

/* One complete message arrived (a WebSocket text frame, a NUL-delimited
 * pipe record). The base class parses it hardened and dispatches it. */
void _stw_transport_receive (StwTransport *self,
                             const char   *data,
                             gsize         length);

/* The channel is gone: every pending call fails with CDP_DISCONNECTED at
 * once, and ::closed is emitted once. @error may be NULL for a clean
 * close. */
void _stw_transport_closed (StwTransport *self,
                            const GError *error);

G_END_DECLS
