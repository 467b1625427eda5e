/* stw-plugins-partition.c: which renderers an Electron session partition
 * has, asked of the main process
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by the storage and network plugins, which both address one
 * partition's renderers: only the main process knows a webContents'
 * session.
 */
#include "config.h"

#include <json-glib/json-glib.h>

#include "stw-plugins-partition.h"

/* An expression for stw_session_evaluate_main_async(): for each of
 * @targets (DevTools target ids, strings), whether
 * `webContents.fromDevToolsTargetId(id).session` is
 * `session.fromPartition(partition)` (`""` the default session). It
 * answers `{inside: {id: true | false | null}}`, null for a target no
 * webContents has (a frame of its own process), or `{unsupported: true}`
 * when the `electron` module has no session API. */
char *
_stw_plugins_partition_expression (const char *partition,
                                   GPtrArray  *targets)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *arguments = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "partition");
  json_builder_add_string_value (builder, partition);
  json_builder_set_member_name (builder, "targets");
  json_builder_begin_array (builder);
  for (guint i = 0; i < targets->len; i++)
    json_builder_add_string_value (builder, targets->pdata[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);
  arguments = json_to_string (node, FALSE);
  return g_strdup_printf ("((a) => { const { session, webContents } = require('electron');"
                          " if (!session || !session.fromPartition || !webContents || !webContents.fromDevToolsTargetId)"
                          " return { unsupported: true };"
                          " const s = a.partition === '' ? session.defaultSession : session.fromPartition(a.partition);"
                          " const inside = {};"
                          " for (const id of a.targets) { const w = webContents.fromDevToolsTargetId(id);"
                          " inside[id] = w ? w.session === s : null; }"
                          " return { inside }; })(%s)", arguments);
}

/* The `inside` object of the expression's answer, or %NULL when the main
 * process could not say (no answer, `{unsupported: true}`, a bad shape). */
JsonObject *
_stw_plugins_partition_verdicts (JsonNode *answer)
{
  JsonObject *object = answer && JSON_NODE_HOLDS_OBJECT (answer) ? json_node_get_object (answer) : NULL;
  JsonNode *inside = object ? json_object_get_member (object, "inside") : NULL;

  if (object != NULL && json_object_get_boolean_member_with_default (object, "unsupported", FALSE))
    return NULL;
  return inside && JSON_NODE_HOLDS_OBJECT (inside) ? json_node_get_object (inside) : NULL;
}

/* Whether the answer knows @target (a webContents' target): %FALSE for a
 * target it has no boolean for; else @inside says whether it is in. */
gboolean
_stw_plugins_partition_verdict (JsonObject *verdicts,
                                const char *target,
                                gboolean   *inside)
{
  JsonNode *verdict = verdicts && target ? json_object_get_member (verdicts, target) : NULL;

  if (verdict == NULL || !JSON_NODE_HOLDS_VALUE (verdict))
    return FALSE;
  *inside = json_node_get_boolean (verdict);
  return TRUE;
}
