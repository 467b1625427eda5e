/* stw-json-private.h: JSON parsing and writing hardened for hostile peers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Deeper input is refused before json-glib's recursive parser sees it. */
#define STW_JSON_MAX_DEPTH 256

/* The most a parsed message may hold, in values: a scalar or a member name
 * counts 1, an array 2, an object 6 (what json-glib allocates for each,
 * in units of about 80 bytes). 1 Mi values is at most ~85 MB of tree
 * whatever the text; an MCP message and, by default, everything parsed. */
#define STW_JSON_MAX_VALUES ((gsize) 1 << 20)
/* CDP answers (accessibility trees, DOM snapshots of large apps) are
 * bigger than any MCP request: ~340 MB at most. */
#define STW_JSON_MAX_VALUES_CDP ((gsize) 4 << 20)
/* An MCP message may hold at most one value per 8 bytes of its text (but
 * always 16 Ki): json-glib spends ~80 bytes on each, so a message costs
 * at most ~10 times its length, never the ~40 times a dense array of
 * one-digit numbers would. */
#define STW_JSON_BYTES_PER_VALUE 8
#define STW_JSON_MIN_VALUES ((gsize) 16 << 10)
gsize     stw_json_value_budget (gsize length);
const char *stw_json_get_string (JsonObject *object,
                                 const char *member);
/* @member of @object when it is an object, else NULL (@object may be). */
JsonObject *stw_json_get_object (JsonObject *object,
                                 const char *member);
/* Sets @src's members on @dest (json_node_copy(): an object or array
 * member is shared, not duplicated), but those @except names (NULL, or a
 * NULL-terminated list). @src may be NULL. */
void      stw_json_object_copy_members (JsonObject        *dest,
                                        JsonObject        *src,
                                        const char * const *except);

#define STW_JSON_ERROR (stw_json_error_quark ())

typedef enum
{
  STW_JSON_ERROR_TOO_LARGE,
} StwJsonError;

GQuark    stw_json_error_quark (void);

/* Strict RFC 8259 (one value, nothing after it but whitespace), then
 * json-glib builds the tree. Errors: JSON_PARSER_ERROR_INVALID_DATA for
 * bad UTF-8, JSON_PARSER_ERROR_PARSE for any other text RFC 8259 refuses
 * (nesting deeper than STW_JSON_MAX_DEPTH included), STW_JSON_ERROR_TOO_LARGE
 * beyond the value bound. */
JsonNode *stw_json_parse (const char  *data,
                          gssize       length,
                          GError     **error);
JsonNode *stw_json_parse_bounded (const char  *data,
                                  gssize       length,
                                  gsize        max_values,
                                  GError     **error);
void      stw_json_append (GString  *out,
                           JsonNode *node);
char     *stw_json_to_string (JsonNode *node,
                              gsize    *length);
char     *stw_json_object_to_string (JsonObject *object,
                                     gsize      *length);
gsize     stw_json_utf8_length (const char *str,
                                gsize       n_bytes);

/* Room for any gint64 in decimal, sign and NUL included. */
#define STW_JSON_INT_SIZE 21

gsize     stw_json_format_int (char   buf[STW_JSON_INT_SIZE],
                               gint64 value);
void      stw_json_append_int (GString *out,
                               gint64   value);

G_END_DECLS
