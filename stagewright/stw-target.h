/* stw-target.h: which element a page operation acts on
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

#define STW_TYPE_TARGET (stw_target_get_type ())

/**
 * StwTarget:
 *
 * The element a page operation acts on: a ref from a snapshot (a positive
 * integer the session hands out, bound to one element), or a CSS selector
 * (the first element that matches, in the document or in its shadow
 * roots).
 *
 * Since: 1.0
 */
typedef struct _StwTarget StwTarget;

STW_AVAILABLE_IN_1_0
GType       stw_target_get_type          (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwTarget  *stw_target_new_for_ref       (guint ref);
STW_AVAILABLE_IN_1_0
StwTarget  *stw_target_new_for_selector  (const char *selector);
STW_AVAILABLE_IN_1_0
StwTarget  *stw_target_new_from_json     (JsonObject  *object,
                                          const char  *ref_member,
                                          const char  *selector_member,
                                          GError     **error);
STW_AVAILABLE_IN_1_0
StwTarget  *stw_target_copy              (const StwTarget *target);
STW_AVAILABLE_IN_1_0
void        stw_target_free              (StwTarget *target);
STW_AVAILABLE_IN_1_0
guint       stw_target_get_ref           (const StwTarget *target);
STW_AVAILABLE_IN_1_0
const char *stw_target_get_selector      (const StwTarget *target);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwTarget, stw_target_free)

G_END_DECLS
