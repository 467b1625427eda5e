/* stw-js-guard.c: the eval guard, on the tokens of a JavaScript lexer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The lexer follows the lexical grammar of ECMAScript (ECMA-262 §12) for a
 * script, Annex B included (HTML-like comments): names with \u escapes and
 * Unicode letters, punctuators, numbers, strings and templates with every
 * escape, nested template substitutions, comments, regular expressions and
 * a leading hashbang. Whether a `/` starts a regular expression depends on
 * the syntax around it; the lexer tracks enough of it (brackets and what
 * opened them, statement starts, function kinds) to decide as V8 does for
 * every program V8 accepts (tests/e2e/js-guard-oxc.test.mjs compares it
 * with the oxc parser). Where that decision rests on a guess (a `/` or
 * `++` after a `}` whose kind was guessed, after `yield`, `await` or `of`;
 * an HTML-like comment, which a module would not have), the guard checks
 * every reading that lexes, within a budget, so that no reading hides code
 * from it. A reading that does not lex runs nothing; when none lexes, the
 * code is EVAL_SYNTAX_ERROR.
 *
 * The guard then reads the tokens, never the text: words inside strings,
 * comments, regular expressions and template text are not code and are
 * not matched. Names are matched decoded (`\u0065val` is eval); computed
 * member keys made of literals (strings, templates, `+`, parentheses) are
 * folded and checked like dotted ones. Refused:
 *
 * - EVAL_BLOCKED_KEYWORD: require, eval, Function, child_process,
 *   __proto__, mainModule, the loaders that reach a module or a binding
 *   without require (getBuiltinModule, createRequire, Module._load,
 *   _linkedBinding) and vm's evaluators (runInThisContext,
 *   runInNewContext, runInContext, compileFunction, Script) wherever they
 *   are a name, a member or a folded key (details name them as `require(`, `eval(`, `Function(` and
 *   `new Function` when called); members of process that end, kill or
 *   escape it (`process.exit`, kill, abort, reallyExit, binding,
 *   _linkedBinding, dlopen, mainModule, execve), dotted or computed; and
 *   strings, or runs of them joined by `+`, parentheses or template
 *   substitutions, that spell one of those names exactly, since they name
 *   it to Reflect, getOwnPropertyDescriptor, a computed key and the like.
 * - EVAL_BLOCKED_CONSTRUCT: `constructor` reached as a member except to
 *   read its `.name` (`constructor-chain` for .constructor.constructor,
 *   `constructor-access` otherwise, destructuring included), strings that
 *   spell `constructor` or `process`, `process` used other than through a
 *   member (an alias, an argument, a pattern: `process-value`) or with a
 *   key that is not constant (`process-computed-member`), globalThis,
 *   global, window or self with such a key (a member, or a key of a
 *   pattern destructuring one of them), dynamic `import()`, `with`,
 *   timers and executeJavaScript given code as a literal, and code read in
 *   too many ways (`ambiguous-syntax`).
 *
 * What a lexical guard cannot see: a key or name built at run time from
 * values (arrays joined, String.fromCharCode, data from the page), and
 * aliases of objects other than `process`. The eval policy
 * (`--allow-eval`) is the boundary; the guard narrows what an agent's
 * mistake or an injected payload can do through it.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "stw-error-registry.h"
#include "stw-js-guard-private.h"

/* --- lexer ---------------------------------------------------------------- */

/* Kinds of brace, noted on the `}` token that closes one (aux). */
enum
{
  BRACE_BLOCK = 1,
  BRACE_OBJECT,
  BRACE_FUNC_DECL,
  BRACE_FUNC_EXPR,
  BRACE_METHOD,
  BRACE_ARROW,
  BRACE_CLASS_DECL,
  BRACE_CLASS_EXPR,
};
/* On a `}`: its kind was a guess, so what may follow it is read both ways. */
#define BRACE_GUESS 0x80
#define BRACE_KIND(aux) ((aux) & ~BRACE_GUESS)

/* Notes on other tokens (aux). */
#define AUX_PAREN_CONTROL 0x01   /* ): of if/while/for/with/switch/catch */
#define AUX_PAREN_PARAMS  0x02   /* ): a function's parameters */
#define AUX_LABEL         0x04   /* :  of a label or case */
#define AUX_POSTFIX       0x08   /* ++ -- after an operand */

typedef struct
{
  char   open;          /* ( [ { or $ for a template substitution */
  guint8 brace;         /* for {: BRACE_* */
  guint8 paren;         /* for (: AUX_PAREN_* */
  guint  token;         /* index of the opening token */
  guint  ternary;       /* `?` waiting for their `:` */
  guint  async : 1;     /* for function bodies */
  guint  generator : 1;
  guint  for_head : 1;  /* for (: the head of a for statement */
  guint  guess : 1;     /* for {: whether brace is a guess */
} Frame;

/* A place where the lexical grammar leaves two readings open: the byte
 * offset of the `/` or HTML-like comment, and the reading taken. */
typedef struct
{
  guint    offset;
  gboolean choice;
} Fork;

typedef struct
{
  const char *src;
  gsize       len;
  gsize       pos;

  guint       line;
  gsize       line_start;
  gsize       col_pos;      /* column cache: code points from line_start to col_pos */
  guint       col;

  GPtrArray  *tokens;
  GArray     *frames;
  guint       template_depth;
  gboolean    newline_before;
  gboolean    line_blank;   /* only white space and comments since the line began */
  guint       top_ternary;  /* `?` waiting for their `:` outside any bracket */

  /* The function keyword last seen, until its body opens. */
  guint       pending_function;   /* 0, BRACE_FUNC_DECL or BRACE_FUNC_EXPR */
  guint       pending_function_depth;
  gboolean    pending_function_params;
  gboolean    pending_async;
  gboolean    pending_generator;
  guint       pending_class;      /* 0, BRACE_CLASS_DECL or BRACE_CLASS_EXPR */
  guint       pending_class_depth;

  const Fork *overrides;
  guint       n_overrides;
  GArray     *forks;              /* Fork met, in order */
} Lexer;

static void
token_free (gpointer data)
{
  StwJsToken *token = data;

  g_free (token->value);
  g_free (token);
}

static inline gunichar
char_at (Lexer *lx,
         gsize  at)
{
  if (at >= lx->len)
    return 0;
  if ((guchar) lx->src[at] < 0x80)
    return (guchar) lx->src[at];
  return g_utf8_get_char (lx->src + at);
}

static inline gsize
char_len (Lexer *lx,
          gsize  at)
{
  if (at >= lx->len)
    return 0;
  return g_utf8_skip[(guchar) lx->src[at]];
}

static inline gboolean
is_line_terminator (gunichar c)
{
  return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029;
}

static inline gboolean
is_white_space (gunichar c)
{
  return c == '\t' || c == 0x0b || c == 0x0c || c == ' ' || c == 0xa0 || c == 0xfeff ||
         (c > 0x7f && g_unichar_type (c) == G_UNICODE_SPACE_SEPARATOR);
}

static gboolean
is_id_start (gunichar c)
{
  GUnicodeType type;

  if (c < 0x80)
    return g_ascii_isalpha (c) || c == '$' || c == '_';
  type = g_unichar_type (c);
  return type == G_UNICODE_UPPERCASE_LETTER || type == G_UNICODE_LOWERCASE_LETTER ||
         type == G_UNICODE_TITLECASE_LETTER || type == G_UNICODE_MODIFIER_LETTER ||
         type == G_UNICODE_OTHER_LETTER || type == G_UNICODE_LETTER_NUMBER ||
         /* Other_ID_Start */
         c == 0x1885 || c == 0x1886 || c == 0x2118 || c == 0x212e || c == 0x309b || c == 0x309c;
}

static gboolean
is_id_part (gunichar c)
{
  GUnicodeType type;

  if (c < 0x80)
    return g_ascii_isalnum (c) || c == '$' || c == '_';
  if (is_id_start (c) || c == 0x200c || c == 0x200d)
    return TRUE;
  type = g_unichar_type (c);
  return type == G_UNICODE_NON_SPACING_MARK || type == G_UNICODE_SPACING_MARK ||
         type == G_UNICODE_DECIMAL_NUMBER || type == G_UNICODE_CONNECT_PUNCTUATION ||
         /* Other_ID_Continue */
         c == 0x00b7 || c == 0x0387 || (c >= 0x1369 && c <= 0x1371) || c == 0x19da;
}

/* Notes that a line terminator ends before @next (the first byte of the
 * new line). */
static void
new_line (Lexer *lx,
          gsize  next)
{
  lx->line++;
  lx->line_start = next;
  lx->col_pos = next;
  lx->col = 1;
  lx->newline_before = TRUE;
  lx->line_blank = TRUE;
}

/* Consumes the line terminator at pos (CR LF is one). */
static void
consume_line_terminator (Lexer *lx)
{
  gunichar c = char_at (lx, lx->pos);

  lx->pos += char_len (lx, lx->pos);
  if (c == '\r' && char_at (lx, lx->pos) == '\n')
    lx->pos++;
  new_line (lx, lx->pos);
}

static guint
column_at (Lexer *lx,
           gsize  at)
{
  while (lx->col_pos < at)
    {
      lx->col_pos += char_len (lx, lx->col_pos);
      lx->col++;
    }
  return lx->col;
}

static gboolean
fail_at (GError     **error,
         const char  *code,
         guint        line,
         guint        column,
         const char  *what)
{
  g_autoptr(JsonObject) details = json_object_new ();
  GError *failure;

  if (error == NULL || *error != NULL)
    return FALSE;
  failure = stw_error_new (code, _("%s at line %u, column %u"), what, line, column);
  json_object_set_int_member (details, "line", line);
  json_object_set_int_member (details, "column", column);
  stw_error_set_details (failure, details);
  g_propagate_error (error, failure);
  return FALSE;
}

/* Fails at @at, on the current line. */
static gboolean
fail (Lexer       *lx,
      GError     **error,
      const char  *code,
      gsize        at,
      const char  *what)
{
  return fail_at (error, code, lx->line, column_at (lx, MIN (MAX (at, lx->line_start), lx->len)), what);
}

static StwJsToken *
last_token (Lexer *lx)
{
  return lx->tokens->len > 0 ? g_ptr_array_index (lx->tokens, lx->tokens->len - 1) : NULL;
}

static StwJsToken *
token_before (Lexer *lx,
              guint  index,
              guint  back)
{
  return index >= back ? g_ptr_array_index (lx->tokens, index - back) : NULL;
}

static Frame *
top_frame (Lexer *lx)
{
  return lx->frames->len > 0 ? &g_array_index (lx->frames, Frame, lx->frames->len - 1) : NULL;
}

static inline gboolean
is_punct (const StwJsToken *token,
          const char       *text)
{
  return token != NULL && token->kind == STW_JS_TOKEN_PUNCTUATOR && strcmp (token->value, text) == 0;
}

static inline gboolean
is_name (const StwJsToken *token,
         const char       *name)
{
  return token != NULL && token->kind == STW_JS_TOKEN_IDENTIFIER && strcmp (token->value, name) == 0;
}

/* Whether the identifier at @index is a property name (after . or ?.). */
static gboolean
is_property (GPtrArray *tokens,
             guint      index)
{
  StwJsToken *before = index > 0 ? g_ptr_array_index (tokens, index - 1) : NULL;

  return is_punct (before, ".") || is_punct (before, "?.");
}

static gboolean
in_list (const char         *name,
         const char * const *list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (strcmp (name, list[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Reserved words after which an expression starts (a `/` begins a regular
 * expression). this, super, null, true and false end one instead. */
static const char * const expression_keywords[] = {
  "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
  "else", "enum", "export", "extends", "finally", "for", "function", "if", "import", "in",
  "instanceof", "new", "return", "switch", "throw", "try", "typeof", "var", "void", "while",
  "with", NULL
};

static gboolean
is_statement_list (const Frame *frame)
{
  if (frame == NULL)
    return TRUE;
  if (frame->open != '{')
    return FALSE;
  return frame->brace != BRACE_OBJECT && frame->brace != BRACE_CLASS_DECL &&
         frame->brace != BRACE_CLASS_EXPR;
}

static void
function_context (Lexer    *lx,
                  gboolean *async,
                  gboolean *generator)
{
  for (guint i = lx->frames->len; i > 0; i--)
    {
      Frame *frame = &g_array_index (lx->frames, Frame, i - 1);

      if (frame->open == '{' &&
          (frame->brace == BRACE_FUNC_DECL || frame->brace == BRACE_FUNC_EXPR ||
           frame->brace == BRACE_METHOD || frame->brace == BRACE_ARROW))
        {
          *async = frame->async;
          *generator = frame->generator;
          return;
        }
    }
  /* The body of an eval tool runs in an async function. */
  *async = TRUE;
  *generator = FALSE;
}

/* Whether a `/` after the last token is a division, that is whether an
 * operand just ended. *uncertain says that the decision is a guess. */
static gboolean
operand_ended (Lexer    *lx,
               gboolean *uncertain)
{
  StwJsToken *last = last_token (lx);
  Frame *frame = top_frame (lx);

  *uncertain = FALSE;
  if (last == NULL)
    return FALSE;

  switch (last->kind)
    {
    case STW_JS_TOKEN_NUMBER:
    case STW_JS_TOKEN_STRING:
    case STW_JS_TOKEN_TEMPLATE:
    case STW_JS_TOKEN_TEMPLATE_TAIL:
    case STW_JS_TOKEN_REGEX:
    case STW_JS_TOKEN_PRIVATE_NAME:
      return TRUE;
    case STW_JS_TOKEN_TEMPLATE_HEAD:
    case STW_JS_TOKEN_TEMPLATE_MIDDLE:
      return FALSE;
    case STW_JS_TOKEN_IDENTIFIER:
      {
        gboolean async, generator;

        if (is_property (lx->tokens, lx->tokens->len - 1))
          return TRUE;
        if (strcmp (last->value, "yield") == 0)
          {
            function_context (lx, &async, &generator);
            *uncertain = TRUE;
            return !generator;
          }
        if (strcmp (last->value, "await") == 0)
          {
            function_context (lx, &async, &generator);
            *uncertain = TRUE;
            return !async;
          }
        if (strcmp (last->value, "of") == 0)
          {
            *uncertain = TRUE;
            return !(frame != NULL && frame->open == '(' && frame->for_head);
          }
        return !in_list (last->value, expression_keywords);
      }
    case STW_JS_TOKEN_PUNCTUATOR:
      if (strcmp (last->value, ")") == 0)
        return (last->aux & AUX_PAREN_CONTROL) == 0;
      if (strcmp (last->value, "]") == 0)
        return TRUE;
      if (strcmp (last->value, "}") == 0)
        {
          guint kind = BRACE_KIND (last->aux);

          *uncertain = (last->aux & BRACE_GUESS) != 0;
          return kind == BRACE_OBJECT || kind == BRACE_FUNC_EXPR || kind == BRACE_CLASS_EXPR;
        }
      if (strcmp (last->value, "++") == 0 || strcmp (last->value, "--") == 0)
        return (last->aux & AUX_POSTFIX) != 0;
      return FALSE;
    default:
      return FALSE;
    }
}

/* Whether the token about to be lexed begins a statement. */
static gboolean
at_statement_start (Lexer *lx)
{
  StwJsToken *last = last_token (lx);
  Frame *frame = top_frame (lx);
  gboolean uncertain;

  if (!is_statement_list (frame))
    return FALSE;
  if (last == NULL)
    return TRUE;
  if (last->kind == STW_JS_TOKEN_PUNCTUATOR)
    {
      if (strcmp (last->value, ";") == 0 || strcmp (last->value, "{") == 0)
        return TRUE;
      if (strcmp (last->value, "}") == 0)
        return BRACE_KIND (last->aux) != BRACE_OBJECT && BRACE_KIND (last->aux) != BRACE_FUNC_EXPR &&
               BRACE_KIND (last->aux) != BRACE_CLASS_EXPR;
      if (strcmp (last->value, ":") == 0)
        return (last->aux & AUX_LABEL) != 0;
      if (strcmp (last->value, ")") == 0 && (last->aux & AUX_PAREN_CONTROL))
        return TRUE;
    }
  if (last->kind == STW_JS_TOKEN_IDENTIFIER && !is_property (lx->tokens, lx->tokens->len - 1))
    {
      static const char * const before_statement[] = { "else", "do", "try", "finally", NULL };
      static const char * const restricted[] = { "return", "break", "continue", "yield", "throw", NULL };

      if (in_list (last->value, before_statement))
        return TRUE;
      if (in_list (last->value, restricted))
        return lx->newline_before;
    }
  /* An operand then a line break: automatic semicolon insertion. */
  return lx->newline_before && operand_ended (lx, &uncertain);
}

static gboolean
forked (Lexer    *lx,
        guint     offset,
        gboolean  primary)
{
  Fork fork = { offset, primary };

  for (guint i = 0; i < lx->n_overrides; i++)
    if (lx->overrides[i].offset == offset)
      return lx->overrides[i].choice;
  g_array_append_val (lx->forks, fork);
  return primary;
}

static StwJsToken *
add_token (Lexer          *lx,
           StwJsTokenKind  kind,
           gsize           start,
           guint           line,
           guint           column,
           char           *value)
{
  StwJsToken *token = g_new0 (StwJsToken, 1);

  token->kind = kind;
  token->start = (guint) start;
  token->end = (guint) lx->pos;
  token->line = line;
  token->column = column;
  token->value = value;
  token->newline_before = lx->newline_before;
  token->stmt_start = at_statement_start (lx);
  g_ptr_array_add (lx->tokens, token);
  lx->newline_before = FALSE;
  lx->line_blank = FALSE;
  return token;
}

static gint
hex_value (gunichar c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Reads a \u escape after the backslash at pos: uXXXX or u{X…}. Returns
 * the code point (surrogates included), or -1. */
static gint32
read_unicode_escape (Lexer *lx)
{
  gint32 value = 0;

  if (char_at (lx, lx->pos + 1) != 'u')
    return -1;
  if (char_at (lx, lx->pos + 2) == '{')
    {
      gsize at = lx->pos + 3;
      guint digits = 0;

      while (hex_value (char_at (lx, at)) >= 0)
        {
          value = value * 16 + hex_value (char_at (lx, at));
          if (value > 0x10ffff)
            return -1;
          at++;
          digits++;
        }
      if (digits == 0 || char_at (lx, at) != '}')
        return -1;
      lx->pos = at + 1;
      return value;
    }
  for (guint i = 0; i < 4; i++)
    {
      gint digit = hex_value (char_at (lx, lx->pos + 2 + i));

      if (digit < 0)
        return -1;
      value = value * 16 + digit;
    }
  lx->pos += 6;
  return value;
}

static void
append_code_point (GString *out,
                   gunichar c)
{
  /* Lone surrogates have no UTF-8 form; no name contains one. */
  if (c >= 0xd800 && c <= 0xdfff)
    c = 0xfffd;
  g_string_append_unichar (out, c);
}

static gboolean
lex_identifier (Lexer   *lx,
                GError **error,
                gboolean private_name)
{
  gsize start = lx->pos;
  guint line = lx->line;
  guint column = column_at (lx, start);
  g_autoptr(GString) name = g_string_new (NULL);
  gboolean escaped = FALSE;
  StwJsToken *token;

  if (private_name)
    lx->pos++;
  for (;;)
    {
      gunichar c = char_at (lx, lx->pos);
      gboolean first = name->len == 0;

      if (c == '\\')
        {
          gsize at = lx->pos;
          gint32 value = read_unicode_escape (lx);

          if (value < 0 || value > 0x10ffff ||
              !(first ? is_id_start ((gunichar) value) : is_id_part ((gunichar) value)))
            return fail (lx, error, "EVAL_SYNTAX_ERROR", at, _("Invalid Unicode escape in a name"));
          append_code_point (name, (gunichar) value);
          escaped = TRUE;
          continue;
        }
      if (lx->pos < lx->len && (first ? is_id_start (c) : is_id_part (c)))
        {
          g_string_append_len (name, lx->src + lx->pos, char_len (lx, lx->pos));
          lx->pos += char_len (lx, lx->pos);
          continue;
        }
      break;
    }
  if (name->len == 0)
    return fail (lx, error, "EVAL_SYNTAX_ERROR", start, _("Invalid or unexpected token"));

  token = add_token (lx, private_name ? STW_JS_TOKEN_PRIVATE_NAME : STW_JS_TOKEN_IDENTIFIER,
                     start, line, column, g_string_free (g_steal_pointer (&name), FALSE));
  token->escaped = escaped;

  if (private_name || is_property (lx->tokens, lx->tokens->len - 1))
    return TRUE;

  /* What the next brace will open. */
  if (strcmp (token->value, "function") == 0)
    {
      StwJsToken *before = token_before (lx, lx->tokens->len - 1, 1);
      gboolean async = is_name (before, "async") && !token->newline_before;
      gboolean statement = async ? before->stmt_start : token->stmt_start;

      lx->pending_function = statement ? BRACE_FUNC_DECL : BRACE_FUNC_EXPR;
      lx->pending_function_depth = lx->frames->len;
      lx->pending_function_params = FALSE;
      lx->pending_async = async;
      lx->pending_generator = FALSE;
    }
  else if (strcmp (token->value, "class") == 0)
    {
      lx->pending_class = token->stmt_start ? BRACE_CLASS_DECL : BRACE_CLASS_EXPR;
      lx->pending_class_depth = lx->frames->len;
    }
  return TRUE;
}

static gboolean
lex_number (Lexer   *lx,
            GError **error)
{
  gsize start = lx->pos;
  guint line = lx->line;
  guint column = column_at (lx, start);
  gunichar c = char_at (lx, lx->pos);
  gunichar next = char_at (lx, lx->pos + 1);

  if (c == '0' && strchr ("xXoObB", (int) next) != NULL && next != 0)
    {
      lx->pos += 2;
      while (g_ascii_isxdigit (char_at (lx, lx->pos)) || char_at (lx, lx->pos) == '_')
        lx->pos++;
      if (lx->pos == start + 2)
        return fail (lx, error, "EVAL_SYNTAX_ERROR", start, _("Invalid number"));
      if (char_at (lx, lx->pos) == 'n')
        lx->pos++;
    }
  else
    {
      gboolean integer = TRUE;

      while (g_ascii_isdigit (char_at (lx, lx->pos)) || char_at (lx, lx->pos) == '_')
        lx->pos++;
      if (char_at (lx, lx->pos) == '.')
        {
          integer = FALSE;
          lx->pos++;
          while (g_ascii_isdigit (char_at (lx, lx->pos)) || char_at (lx, lx->pos) == '_')
            lx->pos++;
        }
      if (char_at (lx, lx->pos) == 'e' || char_at (lx, lx->pos) == 'E')
        {
          gsize at = lx->pos + 1;

          integer = FALSE;
          if (char_at (lx, at) == '+' || char_at (lx, at) == '-')
            at++;
          if (!g_ascii_isdigit (char_at (lx, at)))
            return fail (lx, error, "EVAL_SYNTAX_ERROR", start, _("Invalid number"));
          lx->pos = at;
          while (g_ascii_isdigit (char_at (lx, lx->pos)) || char_at (lx, lx->pos) == '_')
            lx->pos++;
        }
      if (integer && char_at (lx, lx->pos) == 'n')
        lx->pos++;
    }

  /* A number runs into no name and no digit: `3in x` is an error. */
  c = char_at (lx, lx->pos);
  if (lx->pos < lx->len && (is_id_start (c) || g_ascii_isdigit (c) || c == '\\'))
    return fail (lx, error, "EVAL_SYNTAX_ERROR", lx->pos, _("Invalid or unexpected token"));

  add_token (lx, STW_JS_TOKEN_NUMBER, start, line, column, NULL);
  return TRUE;
}

/* Reads the escape after the backslash at pos into @out (when not NULL).
 * Returns FALSE for an escape that is invalid (\x, \u malformed); line
 * continuations add nothing. */
static gboolean
read_escape (Lexer   *lx,
             GString *out)
{
  gunichar c;

  lx->pos++;                    /* the backslash */
  c = char_at (lx, lx->pos);
  if (is_line_terminator (c))
    {
      consume_line_terminator (lx);
      lx->newline_before = FALSE;
      return TRUE;
    }
  switch (c)
    {
    case 'x':
      {
        gint hi = hex_value (char_at (lx, lx->pos + 1));
        gint lo = hi >= 0 ? hex_value (char_at (lx, lx->pos + 2)) : -1;

        if (lo < 0)
          return FALSE;
        if (out)
          append_code_point (out, (gunichar) (hi * 16 + lo));
        lx->pos += 3;
        return TRUE;
      }
    case 'u':
      {
        gint32 value;
        gint32 low;
        gsize back = lx->pos;

        lx->pos--;
        value = read_unicode_escape (lx);
        if (value < 0)
          {
            lx->pos = back;
            return FALSE;
          }
        /* A surrogate pair spelled as two escapes. */
        if (value >= 0xd800 && value <= 0xdbff && char_at (lx, lx->pos) == '\\')
          {
            gsize here = lx->pos;

            low = read_unicode_escape (lx);
            if (low >= 0xdc00 && low <= 0xdfff)
              value = 0x10000 + ((value - 0xd800) << 10) + (low - 0xdc00);
            else
              lx->pos = here;
          }
        if (out)
          append_code_point (out, (gunichar) value);
        return TRUE;
      }
    case 'b': if (out) g_string_append_c (out, '\b'); lx->pos++; return TRUE;
    case 'f': if (out) g_string_append_c (out, '\f'); lx->pos++; return TRUE;
    case 'n': if (out) g_string_append_c (out, '\n'); lx->pos++; return TRUE;
    case 'r': if (out) g_string_append_c (out, '\r'); lx->pos++; return TRUE;
    case 't': if (out) g_string_append_c (out, '\t'); lx->pos++; return TRUE;
    case 'v': if (out) g_string_append_c (out, '\v'); lx->pos++; return TRUE;
    default:
      if (c >= '0' && c <= '7')
        {
          /* Legacy octal: up to three digits, at most \377. */
          guint value = c - '0';
          guint max = c <= '3' ? 3 : 2;
          guint n = 1;

          lx->pos++;
          while (n < max && char_at (lx, lx->pos) >= '0' && char_at (lx, lx->pos) <= '7')
            {
              value = value * 8 + (char_at (lx, lx->pos) - '0');
              lx->pos++;
              n++;
            }
          if (out)
            append_code_point (out, value);
          return TRUE;
        }
      if (lx->pos >= lx->len)
        return FALSE;
      if (out)
        g_string_append_len (out, lx->src + lx->pos, char_len (lx, lx->pos));
      lx->pos += char_len (lx, lx->pos);
      return TRUE;
    }
}

static gboolean
lex_string (Lexer   *lx,
            GError **error)
{
  gsize start = lx->pos;
  guint line = lx->line;
  guint column = column_at (lx, start);
  gunichar quote = char_at (lx, lx->pos);
  g_autoptr(GString) value = g_string_new (NULL);
  gboolean newline_before = lx->newline_before;

  lx->pos++;
  for (;;)
    {
      gunichar c = char_at (lx, lx->pos);

      if (lx->pos >= lx->len || c == '\n' || c == '\r')
        return fail_at (error, "EVAL_SYNTAX_ERROR", line, column, _("Unterminated string"));
      if (c == quote)
        {
          lx->pos++;
          break;
        }
      if (c == '\\')
        {
          if (!read_escape (lx, value))
            return fail_at (error, "EVAL_SYNTAX_ERROR", line, column, _("Invalid escape in a string"));
          continue;
        }
      g_string_append_len (value, lx->src + lx->pos, char_len (lx, lx->pos));
      lx->pos += char_len (lx, lx->pos);
    }
  lx->newline_before = newline_before;
  add_token (lx, STW_JS_TOKEN_STRING, start, line, column, g_string_free (g_steal_pointer (&value), FALSE));
  return TRUE;
}

/* Reads template characters from pos (after ` or }) to the closing ` or
 * the next ${. */
static gboolean
lex_template_part (Lexer   *lx,
                   GError **error,
                   gboolean head)
{
  gsize start = lx->pos - 1;
  guint line = lx->line;
  guint column = column_at (lx, start);
  g_autoptr(GString) value = g_string_new (NULL);
  gboolean valid = TRUE;
  gboolean newline_before = lx->newline_before;
  StwJsTokenKind kind;

  for (;;)
    {
      gunichar c = char_at (lx, lx->pos);

      if (lx->pos >= lx->len)
        return fail_at (error, "EVAL_SYNTAX_ERROR", line, column, _("Unterminated template literal"));
      if (c == '`')
        {
          lx->pos++;
          kind = head ? STW_JS_TOKEN_TEMPLATE : STW_JS_TOKEN_TEMPLATE_TAIL;
          break;
        }
      if (c == '$' && char_at (lx, lx->pos + 1) == '{')
        {
          Frame frame = { '$', 0, 0, lx->tokens->len, 0, 0, 0, 0 };

          lx->pos += 2;
          kind = head ? STW_JS_TOKEN_TEMPLATE_HEAD : STW_JS_TOKEN_TEMPLATE_MIDDLE;
          if (head && ++lx->template_depth > STW_JS_MAX_TEMPLATE_DEPTH)
            return fail_at (error, "BAD_ARGUMENT", line, column, _("Templates nested too deeply"));
          if (lx->frames->len >= STW_JS_MAX_NESTING)
            return fail_at (error, "BAD_ARGUMENT", line, column, _("Code nested too deeply"));
          g_array_append_val (lx->frames, frame);
          break;
        }
      if (c == '\\')
        {
          /* Tagged templates may hold invalid escapes: no cooked value. */
          if (!read_escape (lx, value))
            {
              valid = FALSE;
              lx->pos++;
            }
          continue;
        }
      if (is_line_terminator (c))
        {
          g_string_append_c (value, '\n');
          consume_line_terminator (lx);
          continue;
        }
      g_string_append_len (value, lx->src + lx->pos, char_len (lx, lx->pos));
      lx->pos += char_len (lx, lx->pos);
    }
  lx->newline_before = newline_before;
  add_token (lx, kind, start, line, column,
             valid ? g_string_free (g_steal_pointer (&value), FALSE) : NULL);
  return TRUE;
}

static gboolean
lex_regex (Lexer   *lx,
           GError **error)
{
  gsize start = lx->pos;
  guint line = lx->line;
  guint column = column_at (lx, start);
  gboolean in_class = FALSE;

  lx->pos++;
  for (;;)
    {
      gunichar c = char_at (lx, lx->pos);

      if (lx->pos >= lx->len || is_line_terminator (c))
        return fail (lx, error, "EVAL_SYNTAX_ERROR", start, _("Unterminated regular expression"));
      if (c == '\\')
        {
          lx->pos++;
          c = char_at (lx, lx->pos);
          if (lx->pos >= lx->len || is_line_terminator (c))
            return fail (lx, error, "EVAL_SYNTAX_ERROR", start, _("Unterminated regular expression"));
          lx->pos += char_len (lx, lx->pos);
          continue;
        }
      lx->pos += char_len (lx, lx->pos);
      if (c == '[')
        in_class = TRUE;
      else if (c == ']')
        in_class = FALSE;
      else if (c == '/' && !in_class)
        break;
    }
  while (lx->pos < lx->len && is_id_part (char_at (lx, lx->pos)))
    lx->pos += char_len (lx, lx->pos);
  if (char_at (lx, lx->pos) == '\\')
    return fail (lx, error, "EVAL_SYNTAX_ERROR", lx->pos, _("Invalid regular expression flags"));
  add_token (lx, STW_JS_TOKEN_REGEX, start, line, column, NULL);
  return TRUE;
}

static gboolean
open_frame (Lexer      *lx,
            GError    **error,
            StwJsToken *token)
{
  StwJsToken *last = token_before (lx, lx->tokens->len - 1, 1);
  Frame frame = { token->value[0], 0, 0, lx->tokens->len - 1, 0, 0, 0, 0 };

  if (lx->frames->len >= STW_JS_MAX_NESTING)
    return fail (lx, error, "BAD_ARGUMENT", token->start, _("Code nested too deeply"));

  if (frame.open == '(')
    {
      static const char * const control[] = { "if", "while", "for", "with", "switch", "catch", NULL };
      guint at = lx->tokens->len - 2;

      if (last != NULL && last->kind == STW_JS_TOKEN_IDENTIFIER && !is_property (lx->tokens, at))
        {
          StwJsToken *before = token_before (lx, at, 1);

          if (in_list (last->value, control))
            frame.paren = AUX_PAREN_CONTROL;
          frame.for_head = strcmp (last->value, "for") == 0 ||
                           (strcmp (last->value, "await") == 0 && is_name (before, "for"));
          if (frame.for_head)
            frame.paren = AUX_PAREN_CONTROL;
        }
      if (lx->pending_function && !lx->pending_function_params &&
          lx->pending_function_depth == lx->frames->len)
        {
          frame.paren |= AUX_PAREN_PARAMS;
          lx->pending_function_params = TRUE;
        }
    }
  else if (frame.open == '{')
    {
      if (lx->pending_function && lx->pending_function_params &&
          lx->pending_function_depth == lx->frames->len && is_punct (last, ")"))
        {
          frame.brace = lx->pending_function;
          frame.guess = TRUE;
          frame.async = lx->pending_async;
          frame.generator = lx->pending_generator;
          lx->pending_function = 0;
        }
      else if (lx->pending_class && lx->pending_class_depth == lx->frames->len)
        {
          frame.brace = lx->pending_class;
          frame.guess = TRUE;
          lx->pending_class = 0;
        }
      else if (is_punct (last, "=>"))
        {
          /* async (a) => { or async a => { */
          guint at = lx->tokens->len - 2;
          StwJsToken *params = token_before (lx, at, 1);

          frame.brace = BRACE_ARROW;
          if (params != NULL)
            {
              guint params_at = is_punct (params, ")") ? params->match : at - 1;

              frame.async = is_name (token_before (lx, params_at, 1), "async");
            }
        }
      else if (is_punct (last, ")") && !(last->aux & AUX_PAREN_CONTROL))
        {
          /* A method: [async] [*] name ( … ) { */
          guint open = last->match;
          StwJsToken *b1 = token_before (lx, open, 2);
          StwJsToken *b2 = token_before (lx, open, 3);

          frame.brace = BRACE_METHOD;
          frame.generator = is_punct (b1, "*");
          frame.async = is_name (b1, "async") || is_name (b2, "async");
        }
      else if (is_name (last, "static") && top_frame (lx) != NULL &&
               (top_frame (lx)->brace == BRACE_CLASS_DECL || top_frame (lx)->brace == BRACE_CLASS_EXPR))
        frame.brace = BRACE_BLOCK;
      else
        {
          /* Certain after an operator, `(`, `[`, `,`, `;`, `{`, a keyword or
           * at the start; a guess after `}`, `:`, `]` or an operand. */
          frame.brace = token->stmt_start ? BRACE_BLOCK : BRACE_OBJECT;
          frame.guess = last != NULL &&
                        ((last->kind == STW_JS_TOKEN_PUNCTUATOR &&
                          (is_punct (last, "}") || is_punct (last, ":") || is_punct (last, "]") ||
                           ((is_punct (last, "++") || is_punct (last, "--")) && (last->aux & AUX_POSTFIX)))) ||
                         (last->kind != STW_JS_TOKEN_PUNCTUATOR &&
                          !(last->kind == STW_JS_TOKEN_IDENTIFIER &&
                            !is_property (lx->tokens, lx->tokens->len - 2) &&
                            in_list (last->value, expression_keywords))));
        }
    }
  g_array_append_val (lx->frames, frame);
  return TRUE;
}

static gboolean
close_frame (Lexer      *lx,
             GError    **error,
             StwJsToken *token)
{
  Frame *frame = top_frame (lx);
  char open = token->value[0] == ')' ? '(' : token->value[0] == ']' ? '[' : '{';
  StwJsToken *opener;

  if (frame == NULL || frame->open != open)
    return fail (lx, error, "EVAL_SYNTAX_ERROR", token->start, _("Unbalanced brackets"));
  opener = g_ptr_array_index (lx->tokens, frame->token);
  opener->match = lx->tokens->len - 1;
  token->match = frame->token;
  if (open == '(')
    token->aux = frame->paren;
  else if (open == '{')
    token->aux = frame->brace | (frame->guess ? BRACE_GUESS : 0);
  g_array_set_size (lx->frames, lx->frames->len - 1);
  return TRUE;
}

static const char * const punctuators[] = {
  /* longest first */
  ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "?""?=",
  "=>", "==", "!=", "<=", ">=", "&&", "||", "?""?", "?.", "++", "--", "+=", "-=", "*=", "%=",
  "&=", "|=", "^=", "<<", ">>", "**",
  "{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "%", "&", "|", "^",
  "!", "~", "?", ":", "=", ".", NULL
};

static gboolean
lex_punctuator (Lexer   *lx,
                GError **error)
{
  gsize start = lx->pos;
  guint line = lx->line;
  guint column = column_at (lx, start);
  const char *text = NULL;
  StwJsToken *token;
  StwJsToken *last = last_token (lx);
  gboolean uncertain;
  gboolean operand = operand_ended (lx, &uncertain);

  for (guint i = 0; punctuators[i] != NULL; i++)
    {
      gsize n = strlen (punctuators[i]);

      if (lx->len - lx->pos >= n && memcmp (lx->src + lx->pos, punctuators[i], n) == 0)
        {
          /* `?.5` is a conditional then a number. */
          if (strcmp (punctuators[i], "?.") == 0 && g_ascii_isdigit (char_at (lx, lx->pos + 2)))
            continue;
          text = punctuators[i];
          break;
        }
    }
  if (text == NULL)
    return fail (lx, error, "EVAL_SYNTAX_ERROR", start, _("Invalid or unexpected token"));

  /* A `}` that closes a substitution continues its template. */
  if (text[0] == '}' && top_frame (lx) != NULL && top_frame (lx)->open == '$')
    {
      gboolean nested;

      g_array_set_size (lx->frames, lx->frames->len - 1);
      lx->pos++;
      if (!lex_template_part (lx, error, FALSE))
        return FALSE;
      /* lex_template_part() added the part that decides. */
      nested = last_token (lx) != NULL && last_token (lx)->kind == STW_JS_TOKEN_TEMPLATE_MIDDLE;
      if (!nested)
        lx->template_depth--;
      return TRUE;
    }

  lx->pos += strlen (text);
  token = add_token (lx, STW_JS_TOKEN_PUNCTUATOR, start, line, column, g_strdup (text));

  if (strcmp (text, "(") == 0 || strcmp (text, "[") == 0 || strcmp (text, "{") == 0)
    return open_frame (lx, error, token);
  if (strcmp (text, ")") == 0 || strcmp (text, "]") == 0 || strcmp (text, "}") == 0)
    return close_frame (lx, error, token);

  if (strcmp (text, "?") == 0)
    {
      Frame *frame = top_frame (lx);

      (*(frame != NULL ? &frame->ternary : &lx->top_ternary))++;
    }
  else if (strcmp (text, ":") == 0)
    {
      Frame *frame = top_frame (lx);
      guint *ternary = frame != NULL ? &frame->ternary : &lx->top_ternary;

      if (*ternary > 0)
        (*ternary)--;
      else if (is_statement_list (frame))
        token->aux = AUX_LABEL;
    }
  else if (strcmp (text, "++") == 0 || strcmp (text, "--") == 0)
    {
      /* Postfix after an operand on the same line; where the operand is a
       * guess (after `}`, yield, await, of), both readings. */
      if (!token->newline_before && uncertain)
        operand = forked (lx, (guint) start, operand);
      if (operand && !token->newline_before)
        token->aux = AUX_POSTFIX;
    }
  else if (strcmp (text, "*") == 0 && is_name (last, "function") && lx->pending_function)
    lx->pending_generator = TRUE;
  return TRUE;
}

/* One token, or the white space and comments before one. */
static gboolean
lex_step (Lexer   *lx,
          GError **error)
{
  gunichar c = char_at (lx, lx->pos);
  gunichar next = char_at (lx, lx->pos + 1);

  if (is_line_terminator (c))
    {
      consume_line_terminator (lx);
      return TRUE;
    }
  if (is_white_space (c))
    {
      lx->pos += char_len (lx, lx->pos);
      return TRUE;
    }

  /* Comments: line and block comments, a hashbang at the very start, and Annex B's
   * <!-- anywhere and --> first on a line. Those two are comments in a
   * script, not in a module: both readings are checked. */
  if ((c == '/' && next == '/') ||
      (c == '#' && next == '!' && lx->pos == 0) ||
      (c == '<' && next == '!' && lx->len - lx->pos >= 4 && memcmp (lx->src + lx->pos, "<!--", 4) == 0 &&
       forked (lx, (guint) lx->pos, TRUE)) ||
      (c == '-' && next == '-' && char_at (lx, lx->pos + 2) == '>' && lx->line_blank &&
       forked (lx, (guint) lx->pos, TRUE)))
    {
      while (lx->pos < lx->len && !is_line_terminator (char_at (lx, lx->pos)))
        lx->pos += char_len (lx, lx->pos);
      return TRUE;
    }
  if (c == '/' && next == '*')
    {
      guint line = lx->line;
      guint column = column_at (lx, lx->pos);
      gboolean blank = lx->line_blank;

      lx->pos += 2;
      for (;;)
        {
          gunichar d = char_at (lx, lx->pos);

          if (lx->pos >= lx->len)
            return fail_at (error, "EVAL_SYNTAX_ERROR", line, column, _("Unterminated comment"));
          if (d == '*' && char_at (lx, lx->pos + 1) == '/')
            {
              lx->pos += 2;
              break;
            }
          if (is_line_terminator (d))
            {
              consume_line_terminator (lx);
              blank = TRUE;
            }
          else
            lx->pos += char_len (lx, lx->pos);
        }
      lx->line_blank = blank;
      return TRUE;
    }

  if (is_id_start (c) || c == '\\')
    return lex_identifier (lx, error, FALSE);
  if (c == '#' && (is_id_start (next) || next == '\\'))
    return lex_identifier (lx, error, TRUE);
  if (g_ascii_isdigit (c) || (c == '.' && g_ascii_isdigit (next)))
    return lex_number (lx, error);
  if (c == '"' || c == '\'')
    return lex_string (lx, error);
  if (c == '`')
    {
      lx->pos++;
      return lex_template_part (lx, error, TRUE);
    }
  if (c == '/')
    {
      gboolean uncertain;
      gboolean division = operand_ended (lx, &uncertain);

      if (uncertain)
        division = forked (lx, (guint) lx->pos, division);
      if (!division)
        return lex_regex (lx, error);
      {
        gsize start = lx->pos;
        guint line = lx->line;
        guint column = column_at (lx, start);
        gboolean assign = next == '=';

        lx->pos += assign ? 2 : 1;
        add_token (lx, STW_JS_TOKEN_PUNCTUATOR, start, line, column, g_strdup (assign ? "/=" : "/"));
        return TRUE;
      }
    }
  return lex_punctuator (lx, error);
}

static GPtrArray *
tokenize (const char  *code,
          gsize        length,
          const Fork  *overrides,
          guint        n_overrides,
          GArray      *forks,
          GError     **error)
{
  Lexer lx = { 0 };
  g_autoptr(GPtrArray) tokens = g_ptr_array_new_with_free_func (token_free);
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (Frame));

  lx.src = code;
  lx.len = length;
  lx.line = 1;
  lx.col = 1;
  lx.line_blank = TRUE;
  lx.tokens = tokens;
  lx.frames = frames;
  lx.overrides = overrides;
  lx.n_overrides = n_overrides;
  lx.forks = forks;

  while (lx.pos < lx.len)
    if (!lex_step (&lx, error))
      return NULL;

  if (frames->len > 0)
    {
      Frame *frame = &g_array_index (frames, Frame, frames->len - 1);
      StwJsToken *opener = g_ptr_array_index (tokens, frame->token);

      fail_at (error, "EVAL_SYNTAX_ERROR", opener->line, opener->column,
               frame->open == '$' ? _("Unterminated template literal") : _("Unclosed bracket"));
      return NULL;
    }
  return g_steal_pointer (&tokens);
}

static gboolean
check_utf8 (const char  *code,
            gssize      *length,
            GError     **error)
{
  if (*length < 0)
    *length = (gssize) strlen (code);
  if (!g_utf8_validate_len (code, (gsize) *length, NULL))
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            _("The code is not valid UTF-8 text")));
      return FALSE;
    }
  return TRUE;
}

GPtrArray *
_stw_js_tokenize (const char  *code,
                  gssize       length,
                  GError     **error)
{
  g_autoptr(GArray) forks = g_array_new (FALSE, FALSE, sizeof (Fork));

  g_return_val_if_fail (code != NULL || length == 0, NULL);

  if (code == NULL)
    code = "";
  if (!check_utf8 (code, &length, error))
    return NULL;
  return tokenize (code, (gsize) length, NULL, 0, forks, error);
}

/* --- guard ---------------------------------------------------------------- */

typedef struct
{
  GPtrArray  *tokens;
  const char *code_hash;
  GError     *refusal;
} Guard;

#define TOKEN(g, i) ((StwJsToken *) ((i) < (g)->tokens->len ? g_ptr_array_index ((g)->tokens, (i)) : NULL))

/* Names refused wherever they appear as a name: bare, as a property, as a
 * folded computed key, or spelled by a string. */
static const char * const blocked_names[] = {
  "require", "eval", "Function", "child_process", "__proto__", "mainModule",
  /* Loaders that hand out a module, or a binding, without `require`. */
  "getBuiltinModule", "createRequire", "_load", "_linkedBinding",
  /* vm's evaluators: code from a string, past every check made here. */
  "runInThisContext", "runInNewContext", "runInContext", "compileFunction", "Script", NULL
};

/* Members of process that end, kill or reach past the app. */
static const char * const process_members[] = {
  "exit", "reallyExit", "kill", "abort", "binding", "_linkedBinding", "dlopen", "mainModule",
  "execve", NULL
};

static const char * const global_objects[] = {
  "globalThis", "global", "window", "self", NULL
};

static void
refuse (Guard       *g,
        const char  *code,
        const char  *member,
        const char  *what,
        StwJsToken  *at)
{
  g_autoptr(JsonObject) details = json_object_new ();
  GError *error;

  if (g->refusal != NULL)
    return;
  if (strcmp (code, "EVAL_BLOCKED_KEYWORD") == 0)
    error = stw_error_new (code, _("The code contains the blocked keyword “%s” at line %u, column %u"),
                           what, at->line, at->column);
  else
    error = stw_error_new (code, _("The code contains a blocked construct (%s) at line %u, column %u"),
                           what, at->line, at->column);
  json_object_set_string_member (details, member, what);
  json_object_set_int_member (details, "line", at->line);
  json_object_set_int_member (details, "column", at->column);
  if (g->code_hash != NULL)
    json_object_set_string_member (details, "code_hash", g->code_hash);
  stw_error_set_details (error, details);
  g->refusal = error;
}

static char *fold_sum (Guard *g, guint i, guint *next, guint depth);

/* A constant operand: a string, a template whose substitutions are
 * constant, or a parenthesised constant sum. */
static char *
fold_primary (Guard *g,
              guint  i,
              guint *next,
              guint  depth)
{
  StwJsToken *token = TOKEN (g, i);

  if (token == NULL || depth > 32)
    return NULL;
  if ((token->kind == STW_JS_TOKEN_STRING || token->kind == STW_JS_TOKEN_TEMPLATE) && token->value != NULL)
    {
      *next = i + 1;
      return g_strdup (token->value);
    }
  if (token->kind == STW_JS_TOKEN_TEMPLATE_HEAD && token->value != NULL)
    {
      g_autoptr(GString) value = g_string_new (token->value);
      guint j = i + 1;

      for (;;)
        {
          g_autofree char *part = NULL;
          StwJsToken *tail;
          guint k = 0;

          /* fold_sum() sets k only when it folds. */
          part = fold_sum (g, j, &k, depth + 1);
          if (part == NULL)
            return NULL;
          tail = TOKEN (g, k);
          if (tail == NULL || tail->value == NULL ||
              (tail->kind != STW_JS_TOKEN_TEMPLATE_MIDDLE && tail->kind != STW_JS_TOKEN_TEMPLATE_TAIL))
            return NULL;
          g_string_append (value, part);
          g_string_append (value, tail->value);
          if (tail->kind == STW_JS_TOKEN_TEMPLATE_TAIL)
            {
              *next = k + 1;
              return g_string_free (g_steal_pointer (&value), FALSE);
            }
          j = k + 1;
        }
    }
  if (is_punct (token, "("))
    {
      guint k = 0;
      char *value = fold_sum (g, i + 1, &k, depth + 1);

      if (value != NULL && is_punct (TOKEN (g, k), ")"))
        {
          *next = k + 1;
          return value;
        }
      g_free (value);
    }
  return NULL;
}

static char *
fold_sum (Guard *g,
          guint  i,
          guint *next,
          guint  depth)
{
  g_autoptr(GString) value = NULL;
  char *first;
  guint j;

  first = fold_primary (g, i, &j, depth);
  if (first == NULL)
    return NULL;
  value = g_string_new (first);
  g_free (first);
  while (is_punct (TOKEN (g, j), "+"))
    {
      guint k;
      g_autofree char *part = fold_primary (g, j + 1, &k, depth);

      if (part == NULL)
        break;
      g_string_append (value, part);
      j = k;
    }
  *next = j;
  return g_string_free (g_steal_pointer (&value), FALSE);
}

/* The member access that starts at token @i, if any: its name (NULL when
 * computed from something else than literals), and the token after it.
 * Returns FALSE when @i starts no member access. */
static gboolean
member_at (Guard  *g,
           guint   i,
           char  **name,
           guint  *after,
           guint  *name_token)
{
  StwJsToken *token = TOKEN (g, i);
  StwJsToken *next;

  *name = NULL;
  if (token == NULL)
    return FALSE;
  if (is_punct (token, ".") || is_punct (token, "?."))
    {
      next = TOKEN (g, i + 1);
      if (next != NULL && next->kind == STW_JS_TOKEN_IDENTIFIER)
        {
          *name = g_strdup (next->value);
          *after = i + 2;
          *name_token = i + 1;
          return TRUE;
        }
      if (is_punct (token, "?.") && is_punct (next, "["))
        return member_at (g, i + 1, name, after, name_token);
      return FALSE;
    }
  if (is_punct (token, "["))
    {
      guint k;

      *name = fold_sum (g, i + 1, &k, 0);
      if (*name != NULL && k != token->match)
        g_clear_pointer (name, g_free);
      *after = token->match + 1;
      *name_token = i;
      return TRUE;
    }
  return FALSE;
}

/* `constructor` reached as a member: only its `.name` may be read. */
static void
check_constructor (Guard *g,
                   guint  at,
                   guint  after)
{
  g_autofree char *next = NULL;
  guint next_after, next_token;

  if (member_at (g, after, &next, &next_after, &next_token))
    {
      if (next != NULL && strcmp (next, "constructor") == 0)
        {
          refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "constructor-chain", TOKEN (g, at));
          return;
        }
      if (next != NULL && strcmp (next, "name") == 0 && is_punct (TOKEN (g, after), "."))
        return;
    }
  refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "constructor-access", TOKEN (g, at));
}

/* `process`, bare or as a member: only used through a member access, and
 * never one that ends or escapes the process. */
static void
check_process (Guard   *g,
               guint    at,
               guint    after,
               gboolean member)
{
  g_autofree char *next = NULL;
  guint next_after, next_token;
  StwJsToken *before = at > 0 ? TOKEN (g, at - 1) : NULL;

  if (member_at (g, after, &next, &next_after, &next_token))
    {
      if (next == NULL)
        refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "process-computed-member", TOKEN (g, at));
      else if (in_list (next, process_members))
        {
          g_autofree char *keyword = g_strconcat ("process.", next, NULL);

          refuse (g, "EVAL_BLOCKED_KEYWORD", "keyword", keyword, TOKEN (g, at));
        }
      /* Other members are checked where guard_tokens() meets them. */
      return;
    }
  /* Everything else hands the object over: an alias, an argument, a
   * destructuring pattern ({ exit } = process, { process: p } = globalThis),
   * an object key alike. */
  if (!member && is_name (before, "typeof"))
    return;
  refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "process-value", TOKEN (g, at));
}

/* A name met at token @at (the name, or the [ of a folded key); @after
 * is the token after it. */
static void
check_name (Guard      *g,
            const char *name,
            guint       at,
            guint       after,
            gboolean    member)
{
  StwJsToken *token = TOKEN (g, at);
  StwJsToken *next = TOKEN (g, after);

  if (in_list (name, blocked_names))
    {
      const char *keyword = name;
      g_autofree char *owned = NULL;
      StwJsToken *before = at > 0 ? TOKEN (g, at - 1) : NULL;

      if (is_name (before, "new") && strcmp (name, "Function") == 0)
        keyword = "new Function";
      else if (is_punct (next, "(") &&
               (strcmp (name, "require") == 0 || strcmp (name, "eval") == 0 || strcmp (name, "Function") == 0))
        keyword = owned = g_strconcat (name, "(", NULL);
      else if (strcmp (name, "mainModule") == 0)
        keyword = "process.mainModule";
      refuse (g, "EVAL_BLOCKED_KEYWORD", "keyword", keyword, token);
      return;
    }
  if (strcmp (name, "constructor") == 0 && member)
    check_constructor (g, at, after);
  else if (strcmp (name, "constructor") == 0 && !is_punct (next, "("))
    /* Not a class's constructor(…) {}: a pattern, { constructor: C } = f. */
    refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "constructor-access", token);
  else if (strcmp (name, "process") == 0)
    check_process (g, at, after, member);
}

/* Strings, templates and their concatenations that spell a blocked name:
 * what reaches it through Reflect, descriptors, computed keys. */
static void
check_spelled (Guard      *g,
               const char *value,
               guint       at)
{
  if (in_list (value, blocked_names))
    refuse (g, "EVAL_BLOCKED_KEYWORD", "keyword", value, TOKEN (g, at));
  else if (strcmp (value, "node:child_process") == 0)
    refuse (g, "EVAL_BLOCKED_KEYWORD", "keyword", "child_process", TOKEN (g, at));
  else if (strcmp (value, "constructor") == 0)
    refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "constructor-string", TOKEN (g, at));
  else if (strcmp (value, "process") == 0)
    refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "process-string", TOKEN (g, at));
}

static gboolean
is_literal_part (StwJsToken *token)
{
  return token != NULL && token->value != NULL &&
         (token->kind == STW_JS_TOKEN_STRING || token->kind == STW_JS_TOKEN_TEMPLATE ||
          token->kind == STW_JS_TOKEN_TEMPLATE_HEAD || token->kind == STW_JS_TOKEN_TEMPLATE_MIDDLE ||
          token->kind == STW_JS_TOKEN_TEMPLATE_TAIL);
}

#define SPELLED_MAX 24   /* longer than any blocked name */

/* Every run of literal parts joined by +, parentheses or template
 * substitutions: each contiguous stretch of it that spells a name. */
static void
check_literal_runs (Guard *g)
{
  g_autoptr(GArray) run = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n = g->tokens->len;

  for (guint i = 0; i <= n && g->refusal == NULL; i++)
    {
      StwJsToken *token = i < n ? TOKEN (g, i) : NULL;

      if (token != NULL && is_literal_part (token))
        {
          if (token->value[0] != '\0')
            g_array_append_val (run, i);
          continue;
        }
      if (token != NULL && (is_punct (token, "+") || is_punct (token, "(") || is_punct (token, ")")))
        continue;

      /* The run ends here. */
      for (guint s = 0; s < run->len && g->refusal == NULL; s++)
        {
          g_autoptr(GString) value = g_string_new (NULL);

          for (guint e = s; e < run->len && value->len <= SPELLED_MAX && g->refusal == NULL; e++)
            {
              /* The run holds indices of tokens, so never NULL. */
              g_string_append (value, ((StwJsToken *) g_ptr_array_index (g->tokens, g_array_index (run, guint, e)))->value);
              check_spelled (g, value->str, g_array_index (run, guint, s));
            }
        }
      g_array_set_size (run, 0);
    }
}

/* Whether the pattern (or any pattern nested in it) opened by the { or [
 * at @open has a key computed from something else than literals. Too
 * deep to read counts as such. */
static gboolean
pattern_computed (Guard *g,
                  guint  open,
                  guint  depth)
{
  StwJsToken *opener = TOKEN (g, open);
  gboolean object = is_punct (opener, "{");

  if (depth > 32)
    return TRUE;
  for (guint j = open + 1; j < opener->match; j++)
    {
      StwJsToken *token = TOKEN (g, j);
      StwJsToken *before = TOKEN (g, j - 1);

      if (!is_punct (token, "{") && !is_punct (token, "["))
        continue;
      if (object && is_punct (token, "[") && (is_punct (before, "{") || is_punct (before, ",")))
        {
          g_autofree char *name = NULL;
          guint after, name_token;

          if (member_at (g, j, &name, &after, &name_token) && name == NULL)
            return TRUE;
        }
      else if (pattern_computed (g, j, depth + 1))
        return TRUE;
      j = token->match;
    }
  return FALSE;
}

/* A global object at @at destructured (`{ [k]: v } = globalThis`, in
 * parentheses too) with a key that is not constant: a member by another
 * spelling. */
static gboolean
global_destructured (Guard *g,
                     guint  at)
{
  guint i = at;

  while (i > 0 && is_punct (TOKEN (g, i - 1), "("))
    i--;
  if (i < 2 || !is_punct (TOKEN (g, i - 1), "=") || !is_punct (TOKEN (g, i - 2), "}"))
    return FALSE;
  return pattern_computed (g, TOKEN (g, i - 2)->match, 0);
}

static void
guard_tokens (Guard *g)
{
  for (guint i = 0; i < g->tokens->len && g->refusal == NULL; i++)
    {
      StwJsToken *token = TOKEN (g, i);
      StwJsToken *next = TOKEN (g, i + 1);

      if (token->kind == STW_JS_TOKEN_IDENTIFIER)
        {
          gboolean member = is_property (g->tokens, i);

          if (!member && strcmp (token->value, "with") == 0)
            refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "with", token);
          else if (!member && strcmp (token->value, "import") == 0 && is_punct (next, "("))
            refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "dynamic-import", token);
          else if (!member && in_list (token->value, global_objects) &&
                   (is_punct (next, "[") || (is_punct (next, "?.") && is_punct (TOKEN (g, i + 2), "["))))
            {
              g_autofree char *name = NULL;
              guint after, name_token;

              if (member_at (g, i + 1, &name, &after, &name_token) && name == NULL)
                refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "global-computed-member", token);
            }
          else if (!member && in_list (token->value, global_objects) && global_destructured (g, i))
            refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "global-computed-member", token);
          else if (!member && (strcmp (token->value, "setTimeout") == 0 ||
                               strcmp (token->value, "setInterval") == 0 ||
                               strcmp (token->value, "setImmediate") == 0 ||
                               strcmp (token->value, "execScript") == 0) &&
                   is_punct (next, "(") && is_literal_part (TOKEN (g, i + 2)))
            refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "string-timer", token);
          else if (member && strcmp (token->value, "executeJavaScript") == 0 &&
                   is_punct (next, "(") && is_literal_part (TOKEN (g, i + 2)))
            refuse (g, "EVAL_BLOCKED_CONSTRUCT", "construct", "string-code", token);
          if (g->refusal == NULL)
            check_name (g, token->value, i, i + 1, member);
        }
      else if (is_punct (token, "["))
        {
          g_autofree char *name = NULL;
          guint after, name_token;

          if (member_at (g, i, &name, &after, &name_token) && name != NULL)
            check_name (g, name, i, after, TRUE);
        }
    }
  if (g->refusal == NULL)
    check_literal_runs (g);
}

/* Each reading the grammar leaves open is lexed and guarded; a budget
 * bounds the readings. */
#define GUARD_MAX_READINGS 32

typedef struct
{
  const char *code;
  gsize       length;
  const char *code_hash;
  guint       readings;
  gboolean    lexed;           /* some reading lexed */
  GError     *syntax_error;    /* of the first reading */
  GError     *refusal;
} Explore;

static void
explore (Explore *ex,
         GArray  *overrides)
{
  g_autoptr(GArray) forks = g_array_new (FALSE, FALSE, sizeof (Fork));
  g_autoptr(GPtrArray) tokens = NULL;
  g_autoptr(GError) error = NULL;
  guint last = overrides->len > 0 ? g_array_index (overrides, Fork, overrides->len - 1).offset : 0;
  gboolean first = overrides->len == 0;

  ex->readings++;
  tokens = tokenize (ex->code, ex->length, (const Fork *) overrides->data, overrides->len, forks, &error);
  if (tokens == NULL)
    {
      /* Nesting past the bounds is refused in any reading. A reading
       * that does not lex runs nothing, unless none lexes. */
      if (g_error_matches (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT))
        {
          if (ex->refusal == NULL)
            ex->refusal = g_steal_pointer (&error);
          return;
        }
      if (first)
        ex->syntax_error = g_steal_pointer (&error);
    }
  else
    {
      Guard g = { tokens, ex->code_hash, NULL };

      ex->lexed = TRUE;
      guard_tokens (&g);
      if (g.refusal != NULL)
        {
          ex->refusal = g.refusal;
          return;
        }
    }

  for (guint i = 0; i < forks->len && ex->refusal == NULL; i++)
    {
      Fork fork = g_array_index (forks, Fork, i);

      if (!first && fork.offset <= last)
        continue;
      if (ex->readings >= GUARD_MAX_READINGS)
        {
          g_autoptr(JsonObject) details = json_object_new ();

          ex->refusal = stw_error_new_code_literal (STW_ERROR_EVAL_BLOCKED_CONSTRUCT,
                                                    _("The code can be read in too many ways; "
                                                      "add parentheses or semicolons around divisions "
                                                      "and regular expressions"));
          json_object_set_string_member (details, "construct", "ambiguous-syntax");
          json_object_set_int_member (details, "line", 0);
          json_object_set_int_member (details, "column", 0);
          if (ex->code_hash != NULL)
            json_object_set_string_member (details, "code_hash", ex->code_hash);
          stw_error_set_details (ex->refusal, details);
          return;
        }
      fork.choice = !fork.choice;
      g_array_append_val (overrides, fork);
      explore (ex, overrides);
      g_array_set_size (overrides, overrides->len - 1);
    }
}

gboolean
_stw_js_guard_check (const char  *code,
                     gssize       length,
                     const char  *code_hash,
                     GError     **error)
{
  g_autoptr(GArray) overrides = g_array_new (FALSE, FALSE, sizeof (Fork));
  Explore ex = { 0 };

  g_return_val_if_fail (code != NULL || length == 0, FALSE);

  if (code == NULL)
    code = "";
  if (!check_utf8 (code, &length, error))
    return FALSE;

  ex.code = code;
  ex.length = (gsize) length;
  ex.code_hash = code_hash;
  explore (&ex, overrides);

  if (ex.refusal != NULL)
    {
      g_clear_error (&ex.syntax_error);
      g_propagate_error (error, ex.refusal);
      return FALSE;
    }
  if (!ex.lexed)
    {
      JsonObject *details = stw_error_get_details (ex.syntax_error);

      if (code_hash != NULL && details != NULL)
        json_object_set_string_member (details, "code_hash", code_hash);
      g_propagate_error (error, ex.syntax_error);
      return FALSE;
    }
  g_clear_error (&ex.syntax_error);
  return TRUE;
}
