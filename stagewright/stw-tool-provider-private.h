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

/* A provider whose tools a test has checked (the core tools, by
 * tests/test-core-schemas.c): the dispatcher does not parse their schemas
 * to check them when the provider is added, so they stay deferred until a
 * call or a listing needs them. Every other provider's tools are checked
 * in full when added. */
void     _stw_tool_provider_set_checked_by_tests (StwToolProvider *self);
gboolean _stw_tool_provider_get_checked_by_tests (StwToolProvider *self);

G_END_DECLS
