/* stw-version-macros.h: symbol visibility and availability annotations
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib.h>

#include "stw-version.h"

#ifndef _STW_EXTERN
# define _STW_EXTERN __attribute__((visibility("default"))) extern
#endif

#define STW_VERSION_1_0 (STW_ENCODE_VERSION (1, 0, 0))

/* The current stable series is what a consumer gets by default. */
#define STW_VERSION_CUR_STABLE STW_VERSION_1_0

#ifndef STW_VERSION_MIN_REQUIRED
# define STW_VERSION_MIN_REQUIRED (STW_VERSION_CUR_STABLE)
#endif

#ifndef STW_VERSION_MAX_ALLOWED
# define STW_VERSION_MAX_ALLOWED (STW_VERSION_CUR_STABLE)
#endif

#if STW_VERSION_MAX_ALLOWED < STW_VERSION_MIN_REQUIRED
# error "STW_VERSION_MAX_ALLOWED must be >= STW_VERSION_MIN_REQUIRED"
#endif

#define STW_AVAILABLE_IN_ALL _STW_EXTERN
#define STW_AVAILABLE_IN_1_0 _STW_EXTERN
#define STW_DEPRECATED_IN_1_0 G_DEPRECATED _STW_EXTERN
/**
 * STW_DEPRECATED_IN_1_0_FOR:
 * @f: the replacement of the symbol
 *
 * Marks a symbol as deprecated since 1.0 in favour of @f: using it warns
 * and names @f.
 */
#define STW_DEPRECATED_IN_1_0_FOR(f) G_DEPRECATED_FOR (f) _STW_EXTERN
