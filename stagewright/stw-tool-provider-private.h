/* stw-tool-provider-private.h: what the dispatcher does to a provider
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-tool-provider.h"

G_BEGIN_DECLS

/* A provider in a dispatcher is frozen: what was registered is exactly what
 * removing it unregisters. */
void _stw_tool_provider_hold    (StwToolProvider *self);
void _stw_tool_provider_release (StwToolProvider *self);

G_END_DECLS
