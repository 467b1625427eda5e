/* stw-deadline-private.h: a call's deadline, carried by its cancellable
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A page operation that takes a timeout (a tool's timeoutMs) bounds every
 * DevTools command it sends, not only its own waiting: its steps get a
 * cancellable that carries the deadline, and StwTransport cuts the reply
 * timeout of each command started with it to what is left (a command
 * started after the deadline fails at once, unsent). On a hung page the
 * operation fails at its deadline with CDP_TIMEOUT, not after each
 * command's own 15 s.
 *
 * The deadline is the timeout plus STW_DEADLINE_GRACE_MS: a page-side wait
 * answers its last observation at the timeout itself, and that answer
 * must still be taken. Cancelling the caller's cancellable cancels the
 * deadline's too (from the main context that was thread-default when it
 * was made, as a GTask's callback). */
#define STW_DEADLINE_GRACE_MS 1000

#define STW_TYPE_DEADLINE (_stw_deadline_get_type ())
G_DECLARE_FINAL_TYPE (StwDeadline, _stw_deadline, STW, DEADLINE, GCancellable)

GCancellable *_stw_deadline_new          (GCancellable *parent,
                                          guint         timeout_ms);
gboolean      _stw_deadline_clamp        (GCancellable *cancellable,
                                          guint        *timeout_ms,
                                          guint        *call_timeout_ms);
gboolean      _stw_deadline_has_passed   (GCancellable *cancellable);
gint64        _stw_deadline_get_real_ms  (GCancellable *cancellable);

G_END_DECLS
