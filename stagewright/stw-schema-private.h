/* stw-schema-private.h: the dispatcher's validation of tool arguments
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-schema.h"

G_BEGIN_DECLS

gboolean _stw_schema_validate_arguments (StwSchema  *self,
                                         JsonNode   *instance,
                                         JsonArray **issues);

G_END_DECLS
