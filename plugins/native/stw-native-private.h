/* stw-native-private.h: what the native plugin's API and its tools share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-native.h"

G_BEGIN_DECLS

/* stw-native.c: the wire form of a finished call's answer, as the agent
 * gave it (transfer none; valid while @result is). */
JsonObject *_stw_native_plugin_get_answer (GAsyncResult *result);

/* native-tools.c: registers the codes and adds the MCP tools. */
void _stw_native_plugin_add_tools (StwNativePlugin *self);

G_END_DECLS
