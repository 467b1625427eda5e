/* stw-dispatcher-private.h: what the plugin code sees of the dispatcher
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-dispatcher.h"

G_BEGIN_DECLS

/* The provider list and the context of blocking calls. */
GPtrArray    *_stw_dispatcher_get_providers (StwDispatcher *self);
GMainContext *_stw_dispatcher_get_context   (StwDispatcher *self);

G_END_DECLS
