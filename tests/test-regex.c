/* test-regex.c: which regular expressions may reach a page
 *
 * A table of patterns and flags with the verdict of _stw_regex_check():
 * the exponential shapes refused, their harmless cousins accepted, the
 * flags, bounds and syntax errors. Then each accepted pattern that PCRE2
 * can read as JavaScript is run against a subject that pumps its own
 * characters, and must not reach PCRE2's backtracking limit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-error-registry.h"
#include "stw-regex-private.h"

typedef struct
{
  const char *pattern;
  const char *flags;
  const char *reason;   /* NULL: accepted */
} Case;

static const Case cases[] = {
  /* Plain patterns. */
  { "Done", NULL, NULL },
  { "^Done$", "i", NULL },
  { "", NULL, NULL },
  { "a+b*c?d{2}e{1,3}f{4,}", NULL, NULL },
  { "^(?:https?://)?[^/]+/path$", NULL, NULL },
  { "(?<year>\\d{4})-(?<month>\\d{2})", "u", NULL },
  { "(?=a)(?!b)(?<=c)(?<!d)e", NULL, NULL },
  { "[(a+)+]", NULL, NULL },                 /* a class, not a group */
  { "\\(a+\\)+", NULL, NULL },               /* escaped parentheses */
  { "(?:foo|bar)+baz", NULL, NULL },         /* alternatives begin apart */
  { "(ab)+", NULL, NULL },
  { "(a+)?", NULL, NULL },                   /* the group is optional, not repeated */
  { "(a+){1}", NULL, NULL },
  { "(?:a|b|c){1,5}", NULL, NULL },
  { "x{", NULL, NULL },                      /* a literal brace */
  { "a{1000}", NULL, NULL },
  { "é+ü*", "u", NULL },
  { "\\d+\\.\\d+", NULL, NULL },
  { "[\\]a]+", NULL, NULL },
  { "[]a", NULL, NULL },                     /* JavaScript's empty class */
  { "ab|cd", "imsu", NULL },

  /* Exponential shapes. */
  { "(a+)+", NULL, "nested_quantifier" },
  { "(a+)+$", NULL, "nested_quantifier" },
  { "(a*)*", NULL, "nested_quantifier" },
  { "(a*)+b", NULL, "nested_quantifier" },
  { "(a+)*", NULL, "nested_quantifier" },
  { "(a|a)*", NULL, "nested_quantifier" },
  { "(a|ab)+", NULL, "nested_quantifier" },
  { "(A|a)+", "i", "nested_quantifier" },    /* alike without case */
  { "(.*a){12}", NULL, "nested_quantifier" },
  { "(.*a){2,}", NULL, "nested_quantifier" },
  { "((ab)*)+", NULL, "nested_quantifier" },
  { "((a|a)b)*", NULL, "nested_quantifier" },
  { "(\\w+\\s?)*$", NULL, "nested_quantifier" },
  { "(?:x+y?)+z", NULL, "nested_quantifier" },
  { "(?<n>a+)+", NULL, "nested_quantifier" },
  { "(a{2,3})+", NULL, "nested_quantifier" },
  { "(\\d|x)+", NULL, "nested_quantifier" }, /* conservative: a class may overlap */
  { "(a|)+", NULL, "nested_quantifier" },
  { "(a?b?)+", NULL, "nested_quantifier" },
  { "(?:(a)+)+", NULL, "nested_quantifier" },

  /* Flags. */
  { "a", "g", "flags" },
  { "a", "y", "flags" },
  { "a", "ii", "flags" },
  { "a", "x", "flags" },
  { "a", "imsuimsu!", "flags" },
  { "a", "d", "flags" },

  /* Bounds and syntax. */
  { "a+b*c+d*", NULL, NULL },
  { "a+b*c+d*e+", NULL, "too_many_quantifiers" },
  { "[^/]+[^/]+[^/]+[^/]+[^/]+/path", NULL, "too_many_quantifiers" },
  { "a{2,17}b{2,17}c{2,17}d{2,17}e{2,17}", NULL, "too_many_quantifiers" },
  { "a{2,16}b{2,16}c{2,16}d{2,16}e{2,16}f?", NULL, NULL },
  { "s?s?s?s?s?s?", NULL, NULL },
  { "s?s?s?s?s?s?s?", NULL, "too_many_quantifiers" },
  { "^\\s*(\\w+)=(\\d+)\\s*$", NULL, NULL },
  { "^\\s*(\\w+)\\s*=\\s*(\\d+)$", NULL, "too_many_quantifiers" },
  { "(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)", NULL, NULL },
  { "(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)", NULL, "too_many_quantifiers" },
  { "(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)", NULL, NULL },
  { "a{1001}", NULL, "count" },
  { "a{1,99999}", NULL, "count" },
  { "a{3,2}", NULL, "syntax" },
  { "(", NULL, "syntax" },
  { "a)", NULL, "syntax" },
  { "[abc", NULL, "syntax" },
  { "*a", NULL, "syntax" },
  { "a|*", NULL, "syntax" },
  { "(?", NULL, "syntax" },
  { "(?<name", NULL, "syntax" },
  { "\\", NULL, "syntax" },
  { "^*", NULL, "syntax" },
  { "((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))", NULL, "depth" },
};

static void
test_table (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      gboolean accepted = _stw_regex_check (cases[i].pattern, cases[i].flags, "regex", &error);

      g_test_message ("%s (flags %s): %s", cases[i].pattern, cases[i].flags ? cases[i].flags : "",
                      error ? error->message : "accepted");
      if (cases[i].reason == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (accepted);
          continue;
        }
      g_assert_false (accepted);
      g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
      g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (error), "reason"), ==, cases[i].reason);
      g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (error), "field"), ==, "regex");
    }
}

static void
test_bounds (void)
{
  g_autofree char *longest = g_strnfill (STW_REGEX_MAX_CHARS, 'a');
  g_autofree char *too_long = g_strnfill (STW_REGEX_MAX_CHARS + 1, 'a');
  GString *wide = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (_stw_regex_check (longest, NULL, "regex", NULL));
  g_assert_false (_stw_regex_check (too_long, NULL, "regex", &error));
  g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (error), "reason"), ==, "length");
  g_clear_error (&error);

  /* Characters, not bytes. */
  for (guint i = 0; i < STW_REGEX_MAX_CHARS; i++)
    g_string_append (wide, "é");
  g_assert_true (_stw_regex_check (wide->str, "u", "regex", NULL));
  g_string_free (wide, TRUE);

  g_assert_false (_stw_regex_check ("\xff\xfe", NULL, "urlPattern", &error));
  g_assert_cmpstr (json_object_get_string_member (stw_error_get_details (error), "field"), ==, "urlPattern");
}

/* What the table accepts runs in bounded time: PCRE2 reading it as
 * JavaScript never reaches its backtracking limit on a pumped subject,
 * while the refused shapes do. */
static gboolean
blows_up (const char *pattern,
          const char *flags)
{
  g_autoptr(GRegex) regex = g_regex_new (pattern, 0 |
                                         (flags && strchr (flags, 'i') ? G_REGEX_CASELESS : 0), 0, NULL);
  g_autoptr(GError) error = NULL;
  GString *subject;

  if (regex == NULL)
    return FALSE;
  subject = g_string_new (NULL);
  for (guint i = 0; i < 30; i++)
    g_string_append (subject, strchr (pattern, 'x') ? "xy" : "ab");
  g_string_append (subject, "!");
  g_regex_match_full (regex, subject->str, -1, 0, 0, NULL, &error);
  g_string_free (subject, TRUE);
  return error != NULL;
}

static void
test_bounded_time (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (cases[i].reason == NULL)
      g_assert_false (blows_up (cases[i].pattern, cases[i].flags));
  /* The oracle can tell: the classic shapes do blow up. */
  g_assert_true (blows_up ("^(a|ab)+$", NULL) || blows_up ("^(ab|a)+$", NULL) || blows_up ("^(\\w+\\s?)*$", NULL) ||
                 blows_up ("^((ab)*)+$", NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/regex/table", test_table);
  g_test_add_func ("/regex/bounds", test_bounds);
  g_test_add_func ("/regex/bounded-time", test_bounded_time);
  return g_test_run ();
}
