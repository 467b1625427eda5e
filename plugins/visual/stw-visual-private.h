/* stw-visual-private.h: what the visual plugin's API and its tools share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-visual.h"

G_BEGIN_DECLS

/* visual-tools.c: adds the MCP tools, thin adapters over the API, and
 * registers the plugin's codes. */
void _stw_visual_plugin_add_tools (StwVisualPlugin *self);

G_END_DECLS
