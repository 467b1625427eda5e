/* stw-js-guard-private.h: the eval guard, on the tokens of a JavaScript lexer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  STW_JS_TOKEN_IDENTIFIER,      /* names and keywords; value is the decoded name */
  STW_JS_TOKEN_PRIVATE_NAME,    /* #name; value is the decoded name, without # */
  STW_JS_TOKEN_PUNCTUATOR,      /* value is its text */
  STW_JS_TOKEN_NUMBER,
  STW_JS_TOKEN_STRING,          /* value is the cooked string */
  STW_JS_TOKEN_TEMPLATE,        /* `…` without substitutions; value is cooked, or NULL */
  STW_JS_TOKEN_TEMPLATE_HEAD,   /* `…${ */
  STW_JS_TOKEN_TEMPLATE_MIDDLE, /* }…${ */
  STW_JS_TOKEN_TEMPLATE_TAIL,   /* }…` */
  STW_JS_TOKEN_REGEX,
} StwJsTokenKind;

typedef struct
{
  StwJsTokenKind kind;
  guint          line;     /* 1-based */
  guint          column;   /* 1-based, in code points */
  guint          start;    /* byte offsets in the source */
  guint          end;
  char          *value;
  guint          match;    /* for ( [ {: the index of the closing token */
  guint8         aux;      /* lexer's notes on ) } : ++ -- */
  guint          newline_before : 1;
  guint          escaped : 1;       /* an identifier spelled with \u escapes */
  guint          stmt_start : 1;    /* the token begins a statement */
} StwJsToken;

/* The most nested templates, brackets and braces the lexer follows. */
#define STW_JS_MAX_TEMPLATE_DEPTH 64
#define STW_JS_MAX_NESTING        1024

/* Tokens of @code (valid UTF-8, @length bytes or NUL-terminated) in the
 * primary reading (a script, as V8 reads the body of an eval tool), or
 * NULL with EVAL_SYNTAX_ERROR (unterminated string, template, comment or
 * regular expression, an unexpected character, unbalanced brackets) or
 * BAD_ARGUMENT (invalid UTF-8, nesting beyond the bounds above). Free
 * with g_ptr_array_unref(). */
GPtrArray *_stw_js_tokenize (const char  *code,
                             gssize       length,
                             GError     **error);

/* Whether @code may run: the keyword blocklist and the structural rules
 * (listed at the top of stw-js-guard.c) on its tokens, in every reading
 * the lexical grammar leaves open. Refusals are EVAL_BLOCKED_KEYWORD or
 * EVAL_BLOCKED_CONSTRUCT with details {keyword or construct, line, column,
 * code_hash}, EVAL_SYNTAX_ERROR, or BAD_ARGUMENT. @code_hash (nullable)
 * goes into the details as given. */
gboolean _stw_js_guard_check (const char  *code,
                              gssize       length,
                              const char  *code_hash,
                              GError     **error);

G_END_DECLS
