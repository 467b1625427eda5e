/* fuzz-js-guard.c: fuzz target for the JavaScript lexer and the eval guard
 *
 * The input is the code of an eval call. Oracles, besides "no crash, no
 * leak, bounded time": the guard answers yes or one of its four codes;
 * the lexer's tokens are in order, inside the input, with sane positions
 * and matched brackets; and, for valid UTF-8, the same text quoted as a
 * string literal, or put in a comment, is never refused (words inside
 * strings and comments are not code), unless the string spells a blocked
 * name exactly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "stagewright.h"
#include "stw-js-guard-private.h"

static void
check_tokens (const char *code,
              gsize       size)
{
  g_autoptr(GPtrArray) tokens = NULL;
  g_autoptr(GError) error = NULL;
  guint end = 0;

  tokens = _stw_js_tokenize (code, (gssize) size, &error);
  if (tokens == NULL)
    {
      g_assert_nonnull (error);
      return;
    }
  for (guint i = 0; i < tokens->len; i++)
    {
      StwJsToken *token = g_ptr_array_index (tokens, i);

      g_assert_cmpuint (token->start, >=, end);
      g_assert_cmpuint (token->end, >, token->start);
      g_assert_cmpuint (token->end, <=, size);
      g_assert_cmpuint (token->line, >=, 1);
      g_assert_cmpuint (token->column, >=, 1);
      if (token->kind == STW_JS_TOKEN_PUNCTUATOR &&
          (strcmp (token->value, "(") == 0 || strcmp (token->value, "[") == 0 ||
           strcmp (token->value, "{") == 0))
        {
          StwJsToken *closer;

          g_assert_cmpuint (token->match, >, i);
          g_assert_cmpuint (token->match, <, tokens->len);
          closer = g_ptr_array_index (tokens, token->match);
          g_assert_cmpuint (closer->match, ==, i);
        }
      end = token->end;
    }
}

static gboolean
is_spelled_name (const char *text)
{
  static const char * const names[] = {
    "require", "eval", "Function", "child_process", "node:child_process", "__proto__",
    "mainModule", "constructor", "process", NULL
  };

  return g_strv_contains (names, text);
}

static void
assert_passes (const char *code)
{
  g_autoptr(GError) error = NULL;

  if (!_stw_js_guard_check (code, -1, NULL, &error))
    g_error ("refused %s: %s", code, error->message);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *code = (const char *) data;
  g_autoptr(GError) error = NULL;
  gboolean passed;

  fuzz_init ();

  passed = _stw_js_guard_check (code, (gssize) size, "hash", &error);
  if (!passed)
    {
      const char *name = stw_error_get_code_name (error);

      g_assert_true (g_strcmp0 (name, "EVAL_SYNTAX_ERROR") == 0 ||
                     g_strcmp0 (name, "EVAL_BLOCKED_KEYWORD") == 0 ||
                     g_strcmp0 (name, "EVAL_BLOCKED_CONSTRUCT") == 0 ||
                     g_strcmp0 (name, "BAD_ARGUMENT") == 0);
    }
  else
    g_assert_no_error (error);

  if (size == 0 || !g_utf8_validate_len (code, size, NULL))
    return 0;
  check_tokens (code, size);

  /* The same text as a string literal, and inside comments. */
  {
    g_autoptr(GString) quoted = g_string_new ("x = '");
    g_autoptr(GString) line = g_string_new ("x = 1 // ");
    g_autoptr(GString) block = g_string_new ("x = 1 /* ");
    g_autofree char *text = g_strndup (code, size);

    for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
      {
        gunichar c = g_utf8_get_char (p);
        gboolean terminator = c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029;

        if (c == '\\' || c == '\'')
          g_string_append_printf (quoted, "\\%c", (char) c);
        else if (terminator)
          g_string_append_printf (quoted, "\\u%04x", c);
        else
          g_string_append_unichar (quoted, c);
        if (!terminator)
          g_string_append_unichar (line, c);
        if (!(c == '/' && p > text && p[-1] == '*'))
          g_string_append_unichar (block, c);
      }
    g_string_append (quoted, "'");
    g_string_append (block, " */");

    if (!is_spelled_name (text))
      assert_passes (quoted->str);
    /* `<!--`, `-->` and `*` `/` spelled across the edit aside. */
    if (strstr (block->str + 9, "*/") == block->str + block->len - 2)
      assert_passes (block->str);
    assert_passes (line->str);
  }
  return 0;
}
