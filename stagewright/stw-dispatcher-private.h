/* stw-dispatcher-private.h: what the plugin code sees of the dispatcher
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-dispatcher.h"

G_BEGIN_DECLS

/* The provider list, the context of blocking calls, and whether a plugin
 * load or unload is under way (stw-plugin-manager.c). */
GPtrArray    *_stw_dispatcher_get_providers    (StwDispatcher *self);
GMainContext *_stw_dispatcher_get_context      (StwDispatcher *self);
gboolean      _stw_dispatcher_get_plugins_busy (StwDispatcher *self);
void          _stw_dispatcher_set_plugins_busy (StwDispatcher *self,
                                                gboolean       busy);

G_END_DECLS
