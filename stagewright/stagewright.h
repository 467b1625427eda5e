/* stagewright.h: the one header to include
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define __STAGEWRIGHT_INSIDE__

#include "stw-version.h"
#include "stw-version-macros.h"
#include "stw-enums.h"
#include "stw-enum-types.h"
#include "stw-error-registry.h"
#include "stw-envelope.h"
#include "stw-schema.h"
#include "stw-tool.h"
#include "stw-tool-provider.h"
#include "stw-invocation.h"
#include "stw-dispatcher.h"
#include "stw-plugin.h"
#include "stw-core-provider.h"
#include "stw-mcp-server.h"
#include "stw-target.h"
#include "stw-element-ref.h"
#include "stw-action-result.h"
#include "stw-snapshot.h"
#include "stw-screenshot.h"
#include "stw-surface.h"
#include "stw-cdp.h"
#include "stw-actions.h"
#include "stw-launch-options.h"
#include "stw-session-info.h"
#include "stw-session.h"
#include "stw-transport.h"
#include "stw-cdp-websocket.h"
#include "stw-cdp-pipe.h"
#include "stw-read.h"
#include "stw-wait.h"
#include "stw-dialogs.h"
#include "stw-console.h"
#include "stw-runtime.h"
#include "stw-sync.h"

#undef __STAGEWRIGHT_INSIDE__
