/* stw-runtime.h: what the library finds at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib.h>

#include "stw-version-macros.h"

G_BEGIN_DECLS

STW_AVAILABLE_IN_1_0
char *stw_dup_libsoup_version (GError **error);

G_END_DECLS
