/* stw-a11y-private.h: what the a11y plugin's tools share with its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-a11y.h"

G_BEGIN_DECLS

/* stw-a11y.c: a string list as JSON (the page-side request, the answer). */
JsonArray *_stw_a11y_strv_to_json (const char * const *strv);

/* a11y-tools.c: the plugin's MCP tool and its codes, a thin adapter over
 * the API. */
void _stw_a11y_plugin_add_tools (StwA11yPlugin *self);

G_END_DECLS
