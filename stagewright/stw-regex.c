/* stw-regex.c: which regular expressions an agent may hand the page
 *
 * The page runs a pattern with JavaScript's backtracking engine, in the
 * app's renderer: a pattern that backtracks exponentially freezes the app.
 * So before any pattern leaves the server it is read here, once, as the
 * engine would read it, and refused when it has the shapes that blow up:
 * a repeated group that itself repeats something, or whose alternatives
 * can start with the same character. The test is conservative (it refuses
 * some harmless patterns, such as `(\d|x)+`), never the other way round.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-regex-private.h"

#define MAX_FLAGS_CHARS 8
#define MAX_DEPTH 32
#define MAX_COUNT 1000
/* Unbounded repetitions (*, +, {n,} and counts above 16) in one pattern:
 * k of them in a row over the same characters backtrack in n^k steps. */
#define MAX_UNBOUNDED 4
/* Repetitions of any variable count (?, *, {2,5}, …): k optional atoms
 * over the same characters try 2^k ways. */
#define MAX_VARIABLE 6
#define SMALL_COUNT 16

/* The first character an alternative can match: one character, or any
 * (a class, a dot, an escape class, a group, an optional atom, nothing). */
#define FIRST_UNSET ((gunichar) -1)
#define FIRST_ANY   ((gunichar) -2)

typedef struct
{
  gboolean  repeats;      /* something inside repeats */
  gboolean  ambiguous;    /* alternatives (here or inside) can begin alike */
  gboolean  own_ambiguous; /* this group's alternatives can begin alike */
  GArray   *firsts;       /* the first characters of the alternatives done */
  gunichar  first;        /* of the alternative being read */
  gboolean  was_first;    /* the group begins its parent's alternative */
  gboolean  lookaround;   /* (?=, (?!, (?<=, (?<!: matches no character */
  guint     required;     /* atoms of the alternative that match something */
  gboolean  nullable;     /* an alternative can match the empty string */
} Group;

typedef struct
{
  const char *field;
  GError    **error;
  gboolean    caseless;
} Reader;

static gboolean
refuse (Reader     *reader,
        const char *reason,
        const char *message)
{
  GError *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "%s", message);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "field", reader->field);
  json_object_set_string_member (details, "reason", reason);
  stw_error_set_details (error, details);
  g_propagate_error (reader->error, error);
  return FALSE;
}

static void
group_init (Group *group)
{
  memset (group, 0, sizeof *group);
  group->firsts = g_array_new (FALSE, FALSE, sizeof (gunichar));
  group->first = FIRST_UNSET;
}

/* Ends the alternative being read; its first character joins the list. */
static void
end_alternative (Group *group)
{
  gunichar first = group->first == FIRST_UNSET ? FIRST_ANY : group->first;

  if (group->required == 0)
    group->nullable = TRUE;
  group->required = 0;

  for (guint i = 0; i < group->firsts->len; i++)
    {
      gunichar other = g_array_index (group->firsts, gunichar, i);

      if (other == FIRST_ANY || first == FIRST_ANY || other == first)
        group->ambiguous = group->own_ambiguous = TRUE;
    }
  g_array_append_val (group->firsts, first);
  group->first = FIRST_UNSET;
}

/* Reads a `{n}`, `{n,}` or `{n,m}` at @p; FALSE when it is none (then the
 * brace is a literal character, as the engine reads it without `u`). */
static gboolean
read_braces (const char **p,
             guint64     *min,
             guint64     *max,
             gboolean    *unbounded)
{
  const char *q = *p + 1;
  char *end;

  if (!g_ascii_isdigit (*q))
    return FALSE;
  *min = g_ascii_strtoull (q, &end, 10);
  q = end;
  *max = *min;
  *unbounded = FALSE;
  if (*q == ',')
    {
      q++;
      if (g_ascii_isdigit (*q))
        {
          *max = g_ascii_strtoull (q, &end, 10);
          q = end;
        }
      else
        *unbounded = TRUE;
    }
  if (*q != '}')
    return FALSE;
  *p = q + 1;
  return TRUE;
}

/* Reads a character class from its `[` to past its `]`. */
static gboolean
skip_class (const char **p)
{
  const char *q = *p + 1;

  if (*q == '^')
    q++;
  while (*q != '\0' && *q != ']')
    {
      if (*q == '\\' && q[1] != '\0')
        q++;
      q++;
    }
  if (*q != ']')
    return FALSE;
  *p = q + 1;
  return TRUE;
}

gboolean
_stw_regex_check (const char  *source,
                  const char  *flags,
                  const char  *field,
                  GError     **error)
{
  Reader reader = { field ? field : "regex", error, FALSE };
  Group stack[MAX_DEPTH + 1];
  guint depth = 0;
  const char *p;
  gboolean ok = FALSE, lookaround;
  /* The atom a quantifier would apply to: none, one character or class,
   * or the group just closed (its flags). */
  enum { ATOM_NONE, ATOM_SIMPLE, ATOM_GROUP } atom = ATOM_NONE;
  gboolean atom_repeats = FALSE, atom_ambiguous = FALSE, atom_was_first = FALSE, atom_required = FALSE;
  gboolean atom_nullable = FALSE;
  guint unbounded_count = 0, variable_count = 0;

  g_return_val_if_fail (source != NULL, FALSE);

  if (flags != NULL)
    {
      if (strlen (flags) > MAX_FLAGS_CHARS)
        return refuse (&reader, "flags", _("flags: at most 8 characters"));
      for (const char *f = flags; *f != '\0'; f++)
        {
          if (strchr ("imsu", *f) == NULL)
            return refuse (&reader, "flags", _("flags: only i, m, s and u are allowed"));
          if (strchr (f + 1, *f) != NULL)
            return refuse (&reader, "flags", _("flags: each flag at most once"));
        }
      reader.caseless = strchr (flags, 'i') != NULL;
    }
  if (!g_utf8_validate (source, -1, NULL))
    return refuse (&reader, "encoding", _("The pattern is not valid UTF-8"));
  if (g_utf8_strlen (source, -1) > STW_REGEX_MAX_CHARS)
    return refuse (&reader, "length", _("The pattern is longer than 1000 characters"));

  group_init (&stack[0]);
  for (p = source; *p != '\0';)
    {
      Group *group = &stack[depth];
      gboolean at_start = group->first == FIRST_UNSET;
      gunichar first = FIRST_ANY;
      guint64 min = 1, max = 1;
      gboolean unbounded = FALSE, quantifier = TRUE;

      switch (*p)
        {
        case '(':
          if (depth == MAX_DEPTH)
            {
              refuse (&reader, "depth", _("The pattern nests groups too deeply"));
              goto out;
            }
          if (at_start)
            group->first = FIRST_ANY;
          p++;
          lookaround = FALSE;
          if (*p == '?')
            {
              p++;
              lookaround = *p == '=' || *p == '!' || (*p == '<' && (p[1] == '=' || p[1] == '!'));
              if (*p == ':' || *p == '=' || *p == '!')
                p++;
              else if (*p == '<' && (p[1] == '=' || p[1] == '!'))
                p += 2;
              else if (*p == '<')
                {
                  const char *close = strchr (p, '>');
                  if (close == NULL)
                    {
                      refuse (&reader, "syntax", _("The pattern is not a valid regular expression"));
                      goto out;
                    }
                  p = close + 1;
                }
              else
                {
                  refuse (&reader, "syntax", _("The pattern is not a valid regular expression"));
                  goto out;
                }
            }
          group_init (&stack[++depth]);
          stack[depth].was_first = at_start;
          stack[depth].lookaround = lookaround;
          atom = ATOM_NONE;
          continue;

        case ')':
          if (depth == 0)
            {
              refuse (&reader, "syntax", _("The pattern has an unmatched ‘)’"));
              goto out;
            }
          end_alternative (group);
          atom = ATOM_GROUP;
          atom_repeats = group->repeats;
          atom_ambiguous = group->ambiguous;
          atom_was_first = group->was_first;
          /* Alternatives that begin alike are a choice the engine may
           * try both ways of, as an optional atom is. */
          if (group->own_ambiguous && ++variable_count > MAX_VARIABLE)
            {
              g_array_unref (group->firsts);
              depth--;
              refuse (&reader, "too_many_quantifiers",
                      _("More than six variable or four unbounded repetitions in one pattern"));
              goto out;
            }
          /* A group that can match nothing, repeated, loops on nothing. */
          atom_nullable = group->nullable && !group->lookaround;
          atom_required = !group->nullable && !group->lookaround;
          g_array_unref (group->firsts);
          depth--;
          if (atom_required)
            stack[depth].required++;
          /* What is inside a group is inside its parent too. */
          stack[depth].repeats |= atom_repeats;
          stack[depth].ambiguous |= atom_ambiguous;
          p++;
          continue;

        case '|':
          end_alternative (group);
          atom = ATOM_NONE;
          p++;
          continue;

        case '*':
        case '+':
        case '?':
          min = *p == '+' ? 1 : 0;
          max = *p == '?' ? 1 : G_MAXUINT64;
          unbounded = *p != '?';
          p++;
          break;

        case '{':
          if (read_braces (&p, &min, &max, &unbounded))
            {
              if (min > MAX_COUNT || (!unbounded && max > MAX_COUNT))
                {
                  refuse (&reader, "count", _("A repetition count above 1000"));
                  goto out;
                }
              if (!unbounded && max < min)
                {
                  refuse (&reader, "syntax", _("A repetition count out of order"));
                  goto out;
                }
              break;
            }
          quantifier = FALSE;
          first = '{';
          p++;
          break;

        case '[':
          if (!skip_class (&p))
            {
              refuse (&reader, "syntax", _("The pattern has an unterminated character class"));
              goto out;
            }
          quantifier = FALSE;
          break;

        case '\\':
          if (p[1] == '\0')
            {
              refuse (&reader, "syntax", _("The pattern ends with a lone backslash"));
              goto out;
            }
          /* `\.` is a dot; `\d`, `\1`, `\u0041` stand for more. */
          first = g_ascii_ispunct (p[1]) ? (gunichar) p[1] : FIRST_ANY;
          p += 2;
          quantifier = FALSE;
          break;

        case '^':
        case '$':
          /* Assertions: they match no character. */
          p++;
          atom = ATOM_NONE;
          continue;

        case '.':
          p++;
          quantifier = FALSE;
          break;

        default:
          first = g_utf8_get_char (p);
          p = g_utf8_next_char (p);
          quantifier = FALSE;
          break;
        }

      if (!quantifier)
        {
          if (at_start)
            group->first = reader.caseless && first != FIRST_ANY ? g_unichar_tolower (first) : first;
          atom = ATOM_SIMPLE;
          atom_repeats = atom_ambiguous = atom_nullable = FALSE;
          atom_was_first = at_start;
          atom_required = TRUE;
          group->required++;
          continue;
        }

      /* A quantifier, after @atom. */
      if (atom == ATOM_NONE)
        {
          refuse (&reader, "syntax", _("A quantifier with nothing to repeat"));
          goto out;
        }
      if (*p == '?')
        p++;  /* lazy: backtracks the same */
      if (((unbounded || max > SMALL_COUNT) && ++unbounded_count > MAX_UNBOUNDED) ||
          ((unbounded || max > min) && ++variable_count > MAX_VARIABLE))
        {
          refuse (&reader, "too_many_quantifiers",
                  _("More than six variable or four unbounded repetitions in one pattern"));
          goto out;
        }
      if (unbounded || max > 1)
        {
          if (atom == ATOM_GROUP && (atom_repeats || atom_ambiguous || atom_nullable))
            {
              refuse (&reader, "nested_quantifier",
                      atom_repeats ? _("A repeated group that repeats inside it can take exponential time")
                      : atom_ambiguous ? _("A repeated group whose alternatives begin alike can take exponential time")
                                       : _("A repeated group that can match nothing can take exponential time"));
              goto out;
            }
          group->repeats = TRUE;
        }
      /* An optional first atom: the alternative may begin with the next. */
      if (min == 0 && atom_was_first)
        group->first = FIRST_ANY;
      if (min == 0 && atom_required)
        group->required--;
      atom = ATOM_NONE;
    }

  if (depth != 0)
    {
      refuse (&reader, "syntax", _("The pattern has an unclosed ‘(’"));
      goto out;
    }
  ok = TRUE;

out:
  for (guint i = 0; i <= depth; i++)
    g_array_unref (stack[i].firsts);
  return ok;
}
