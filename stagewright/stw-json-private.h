/* stw-json-private.h: JSON parsing and writing hardened for hostile peers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Deeper input is refused before json-glib's recursive parser sees it. */
#define STW_JSON_MAX_DEPTH 256

JsonNode *stw_json_parse (const char  *data,
                          gssize       length,
                          GError     **error);
void      stw_json_append (GString  *out,
                           JsonNode *node);
char     *stw_json_to_string (JsonNode *node,
                              gsize    *length);
char     *stw_json_object_to_string (JsonObject *object,
                                     gsize      *length);
gsize     stw_json_utf8_length (const char *str,
                                gsize       n_bytes);

G_END_DECLS
