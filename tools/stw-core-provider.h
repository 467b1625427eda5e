/* stw-core-provider.h: the core electron_* tools, as one provider
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include "stw-dispatcher.h"
#include "stw-tool-provider.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_CORE_TOOL_PROVIDER (stw_core_tool_provider_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwCoreToolProvider, stw_core_tool_provider, STW, CORE_TOOL_PROVIDER, StwToolProvider)

STW_AVAILABLE_IN_1_0
StwToolProvider *stw_core_tool_provider_new (void);

/* Declared here, with the tools, so that the dispatcher knows nothing of them. */
STW_AVAILABLE_IN_1_0
void stw_dispatcher_add_core_tools (StwDispatcher *self);

G_END_DECLS
