/* stw-regex-private.h: which regular expressions an agent may hand the page
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The longest pattern accepted, in characters. */
#define STW_REGEX_MAX_CHARS 1000

/* Checks a JavaScript regular expression before it goes to a page:
 * @flags (may be NULL) only of `imsu`, each once; @source at most
 * STW_REGEX_MAX_CHARS characters of UTF-8, well nested, and free of the
 * shapes that backtrack exponentially — a repeated group that repeats
 * inside ((a+)+, (a*)*, (.*a){9}) or whose alternatives can begin alike
 * ((a|a)*, (a|ab)+) or can match nothing ((a?)+), and with at most six
 * variable repetitions, four of them unbounded (a+a+a+a+a+b is n^5,
 * a?a?…a?aa…a is 2^n). Fails with BAD_ARGUMENT
 * naming @field and a `reason`. */
gboolean _stw_regex_check (const char  *source,
                           const char  *flags,
                           const char  *field,
                           GError     **error);

G_END_DECLS
