/* fuzz-regex.c: fuzz target for the regular-expression safety check
 *
 * The input is flags and a pattern separated by a NUL byte (without one,
 * the input is a pattern without flags). Oracles besides "no crash, no
 * leak": the check answers the same twice; what it accepts is at most
 * STW_REGEX_MAX_CHARS characters of UTF-8 with flags of `imsu`, and runs
 * (in PCRE2, when PCRE2 reads it) against an
 * adversarial subject without reaching the backtracking limit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "stw-regex-private.h"

/* Pumps the pattern's own characters, then ends with one that fails most
 * patterns: the subject catastrophic backtracking needs. */
static char *
adversarial_subject (const char *pattern)
{
  GString *letters = g_string_new (NULL);
  GString *subject = g_string_new (NULL);

  for (const char *p = pattern; *p != '\0'; p++)
    if (g_ascii_isalnum (*p) || *p == ' ' || *p == '-')
      g_string_append_c (letters, *p);
  if (letters->len == 0)
    g_string_append_c (letters, 'a');
  while (subject->len < 28)
    g_string_append_len (subject, letters->str, MIN (letters->len, 28 - subject->len));
  g_string_append_c (subject, '\001');
  g_string_free (letters, TRUE);
  return g_string_free (subject, FALSE);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *nul = memchr (data, '\0', size);
  g_autofree char *flags = NULL;
  g_autofree char *pattern = NULL;
  g_autoptr(GError) first = NULL;
  g_autoptr(GError) second = NULL;
  gboolean accepted;

  fuzz_init ();

  if (nul != NULL)
    {
      flags = g_strndup ((const char *) data, (gsize) (nul - (const char *) data));
      pattern = g_strndup (nul + 1, size - (gsize) (nul - (const char *) data) - 1);
    }
  else
    pattern = g_strndup ((const char *) data, size);
  if (pattern == NULL)  /* no data at all */
    pattern = g_strdup ("");

  accepted = _stw_regex_check (pattern, flags, "regex", &first);
  g_assert_true (accepted == (first == NULL));
  g_assert_true (accepted == _stw_regex_check (pattern, flags, "regex", &second));
  if (!accepted)
    return 0;

  g_assert_true (g_utf8_validate (pattern, -1, NULL));
  g_assert_cmpint (g_utf8_strlen (pattern, -1), <=, STW_REGEX_MAX_CHARS);
  for (const char *f = flags; f != NULL && *f != '\0'; f++)
    g_assert_nonnull (strchr ("imsu", *f));

  /* What PCRE2 reads must not blow its backtracking limit.
   * (What it cannot read, \u0041 say, the page's engine still can.) */
  {
    GRegexCompileFlags compile = 0;
    g_autoptr(GRegex) regex = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree char *subject = NULL;

    if (flags != NULL && strchr (flags, 'i'))
      compile |= G_REGEX_CASELESS;
    if (flags != NULL && strchr (flags, 'm'))
      compile |= G_REGEX_MULTILINE;
    if (flags != NULL && strchr (flags, 's'))
      compile |= G_REGEX_DOTALL;
    regex = g_regex_new (pattern, compile, 0, NULL);
    if (regex == NULL)
      return 0;
    subject = adversarial_subject (pattern);
    g_regex_match_full (regex, subject, -1, 0, 0, NULL, &error);
    if (error != NULL && strstr (error->message, "limit") != NULL)
      g_error ("Accepted a pattern that backtracks without bound: %s (flags %s): %s",
               pattern, flags ? flags : "", error->message);
  }
  return 0;
}
