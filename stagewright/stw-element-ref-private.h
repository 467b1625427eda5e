/* stw-element-ref-private.h: element results from the page's answers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "stw-element-ref.h"

G_BEGIN_DECLS

StwElementRef   *_stw_element_ref_new_from_json    (JsonObject            *target,
                                                    const char            *surface_id);
StwElementState *_stw_element_state_new_from_page  (JsonObject            *object);
JsonObject      *_stw_element_state_to_wanted_json (const StwElementState *self);
StwElementList  *_stw_element_list_new_from_json   (JsonObject            *answer);

G_END_DECLS
