/* stw-schema.h: validation of tool arguments against a JSON Schema subset
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_SCHEMA (stw_schema_get_type ())

/**
 * StwSchema:
 *
 * A compiled JSON Schema (the subset tools use: `type`, `properties`,
 * `required`, `additionalProperties`, `enum`, `const`, `minimum`/`maximum`,
 * `exclusiveMinimum`/`exclusiveMaximum`, `minLength`/`maxLength`, `pattern`,
 * `items`, `minItems`/`maxItems`, `anyOf`/`oneOf`, `default`, plus the
 * annotations `description`, `title`, `examples`, `$schema`, `$comment`,
 * `format`, `deprecated`, `readOnly`, `writeOnly`, which are checked for
 * shape and otherwise ignored). Boolean schemas (`true`, `false`) are
 * accepted wherever a schema is; anything else, `$ref` included, is refused
 * by stw_schema_new().
 *
 * Semantics follow JSON Schema 2020-12: numeric `exclusiveMinimum` and
 * `exclusiveMaximum`, string lengths in Unicode code points, `pattern` an
 * unanchored search, `integer` accepting integral doubles such as `5.0`.
 *
 * Immutable and reference counted; a schema may be shared between threads.
 */
typedef struct _StwSchema StwSchema;

STW_AVAILABLE_IN_1_0
GType stw_schema_get_type (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwSchema *stw_schema_new (JsonNode *schema,
                           GError **error);
STW_AVAILABLE_IN_1_0
StwSchema *stw_schema_new_from_string (const char *json,
                                       GError **error);
STW_AVAILABLE_IN_1_0
StwSchema *stw_schema_ref (StwSchema *self);
STW_AVAILABLE_IN_1_0
void stw_schema_unref (StwSchema *self);
STW_AVAILABLE_IN_1_0
JsonNode *stw_schema_get_node (StwSchema *self);
STW_AVAILABLE_IN_1_0
gboolean stw_schema_validate (StwSchema *self,
                              JsonNode *instance,
                              JsonArray **issues);
STW_AVAILABLE_IN_1_0
JsonNode *stw_schema_apply_defaults (StwSchema *self,
                                     JsonNode *instance);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwSchema, stw_schema_unref)

G_END_DECLS
