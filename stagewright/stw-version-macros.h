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

/**
 * STW_VERSION_1_0:
 *
 * The encoded version of Stagewright 1.0, for %STW_VERSION_MIN_REQUIRED and
 * %STW_VERSION_MAX_ALLOWED.
 *
 * Since: 1.0
 */
#define STW_VERSION_1_0 (STW_ENCODE_VERSION (1, 0, 0))

/* The current stable series is what a consumer gets by default. */
#define STW_VERSION_CUR_STABLE STW_VERSION_1_0

/* GLib's scheme (gversionmacros.h): a consumer defines
 * STW_VERSION_MIN_REQUIRED to the oldest version it supports, and is warned
 * about symbols deprecated in that version or before (not about those
 * deprecated later, which it may still need for the older versions); it
 * defines STW_VERSION_MAX_ALLOWED to the newest version it may use, and is
 * warned about symbols added after it. Both default to the current stable
 * series. */
#ifndef STW_VERSION_MIN_REQUIRED
# define STW_VERSION_MIN_REQUIRED (STW_VERSION_CUR_STABLE)
#endif

#ifndef STW_VERSION_MAX_ALLOWED
# define STW_VERSION_MAX_ALLOWED (STW_VERSION_CUR_STABLE)
#endif

#if STW_VERSION_MIN_REQUIRED > STW_VERSION_CUR_STABLE
# error "STW_VERSION_MIN_REQUIRED must be <= STW_VERSION_CUR_STABLE"
#endif
#if STW_VERSION_MAX_ALLOWED < STW_VERSION_MIN_REQUIRED
# error "STW_VERSION_MAX_ALLOWED must be >= STW_VERSION_MIN_REQUIRED"
#endif

/* STW_DISABLE_DEPRECATION_WARNINGS silences every deprecation warning, as
 * GLIB_DISABLE_DEPRECATION_WARNINGS does for GLib. */
#ifdef STW_DISABLE_DEPRECATION_WARNINGS
# define _STW_DEPRECATED _STW_EXTERN
# define _STW_DEPRECATED_FOR(f) _STW_EXTERN
# define _STW_UNAVAILABLE(maj,min) _STW_EXTERN
#else
# define _STW_DEPRECATED G_DEPRECATED _STW_EXTERN
# define _STW_DEPRECATED_FOR(f) G_DEPRECATED_FOR (f) _STW_EXTERN
# define _STW_UNAVAILABLE(maj,min) G_UNAVAILABLE (maj, min) _STW_EXTERN
#endif

#define STW_AVAILABLE_IN_ALL _STW_EXTERN

/* Symbols of 1.0: unavailable below a maximum of 1.0, deprecated (the ones
 * marked so) from a minimum of 1.0. */
#if STW_VERSION_MAX_ALLOWED < STW_VERSION_1_0
# define STW_AVAILABLE_IN_1_0 _STW_UNAVAILABLE (1, 0)
#else
# define STW_AVAILABLE_IN_1_0 _STW_EXTERN
#endif

/**
 * STW_DEPRECATED_IN_1_0_FOR:
 * @f: the replacement of the symbol
 *
 * Marks a symbol as deprecated since 1.0 in favour of @f: using it warns
 * and names @f, when %STW_VERSION_MIN_REQUIRED is 1.0 or later.
 */
#if STW_VERSION_MIN_REQUIRED >= STW_VERSION_1_0
# define STW_DEPRECATED_IN_1_0 _STW_DEPRECATED
# define STW_DEPRECATED_IN_1_0_FOR(f) _STW_DEPRECATED_FOR (f)
#else
# define STW_DEPRECATED_IN_1_0 _STW_EXTERN
# define STW_DEPRECATED_IN_1_0_FOR(f) _STW_EXTERN
#endif
