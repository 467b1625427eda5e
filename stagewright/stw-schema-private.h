/* stw-schema-private.h: the dispatcher's validation of tool arguments, and
 * the core tools' schemas compiled on first use
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-schema.h"

G_BEGIN_DECLS

StwSchema *_stw_schema_new_deferred (const char *json);
gboolean   _stw_schema_check        (StwSchema  *self,
                                     GError    **error);
gboolean   _stw_schema_is_compiled  (StwSchema  *self);

gboolean _stw_schema_validate_arguments (StwSchema  *self,
                                         JsonNode   *instance,
                                         JsonArray **issues);

G_END_DECLS
