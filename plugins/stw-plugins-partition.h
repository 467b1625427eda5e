/* stw-plugins-partition.h: which renderers an Electron session partition
 * has, asked of the main process (internal to the first-party plugins)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

G_GNUC_INTERNAL
char *_stw_plugins_partition_expression (const char *partition,
                                         GPtrArray  *targets);

G_GNUC_INTERNAL
JsonObject *_stw_plugins_partition_verdicts (JsonNode *answer);
G_GNUC_INTERNAL
gboolean _stw_plugins_partition_verdict (JsonObject *verdicts,
                                         const char *target,
                                         gboolean   *inside);

G_END_DECLS
