/* test-js-guard.c: the JavaScript lexer and the eval guard
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The payload table (tests/data/eval-payloads.tsv) gives each payload its
 * verdict; each line is one test case. The lexer's own cases check token
 * kinds where a `/` is read either way, positions, decoded values and the
 * bounds on nesting.
 */
#include "config.h"

#include <string.h>

#include "stagewright.h"
#include "stw-js-guard-private.h"

/* The payload table {{{1 */

typedef struct
{
  guint  line;
  char  *verdict;
  char  *detail;
  char  *payload;     /* decoded */
  gsize  length;
} Payload;

static void
payload_free (gpointer data)
{
  Payload *payload = data;

  g_free (payload->verdict);
  g_free (payload->detail);
  g_free (payload->payload);
  g_free (payload);
}

static GPtrArray *
load_payloads (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "eval-payloads.tsv", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *payloads = g_ptr_array_new_with_free_func (payload_free);

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      Payload *payload;

      if (lines[i][0] == '#' || lines[i][0] == '\0')
        continue;
      fields = g_strsplit (lines[i], "\t", 3);
      if (g_strv_length (fields) != 3)
        g_error ("eval-payloads.tsv:%u: expected three tab-separated fields", i + 1);
      payload = g_new0 (Payload, 1);
      payload->line = i + 1;
      payload->verdict = g_strdup (fields[0]);
      payload->detail = g_strdup (fields[1]);
      /* g_strcompress() stops at a \000; the table holds none. */
      payload->payload = g_strcompress (fields[2]);
      payload->length = strlen (payload->payload);
      g_ptr_array_add (payloads, payload);
    }
  return payloads;
}

static const char *
code_for (const char *verdict)
{
  if (strcmp (verdict, "KEYWORD") == 0)
    return "EVAL_BLOCKED_KEYWORD";
  if (strcmp (verdict, "CONSTRUCT") == 0)
    return "EVAL_BLOCKED_CONSTRUCT";
  if (strcmp (verdict, "SYNTAX") == 0)
    return "EVAL_SYNTAX_ERROR";
  if (strcmp (verdict, "BAD") == 0)
    return "BAD_ARGUMENT";
  g_assert_cmpstr (verdict, ==, "ok");
  return NULL;
}

static void
test_payload (gconstpointer data)
{
  const Payload *payload = data;
  const char *expected = code_for (payload->verdict);
  g_autoptr(GError) error = NULL;
  gboolean passed;

  g_test_message ("eval-payloads.tsv:%u: %s", payload->line, payload->payload);
  passed = _stw_js_guard_check (payload->payload, (gssize) payload->length, "hash-of-the-code", &error);

  if (expected == NULL)
    {
      g_assert_no_error (error);
      g_assert_true (passed);
      return;
    }

  g_assert_false (passed);
  g_assert_nonnull (error);
  if (error == NULL)
    return;
  g_test_message ("refused: %s", error->message);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, expected);
  if (g_strcmp0 (stw_error_get_code_name (error), expected) != 0)
    return;

  if (strcmp (payload->verdict, "KEYWORD") == 0 || strcmp (payload->verdict, "CONSTRUCT") == 0)
    {
      JsonObject *details = stw_error_get_details (error);
      const char *member = strcmp (payload->verdict, "KEYWORD") == 0 ? "keyword" : "construct";

      g_assert_nonnull (details);
      if (details == NULL)
        return;
      g_assert_cmpstr (json_object_get_string_member (details, member), ==, payload->detail);
      g_assert_cmpstr (json_object_get_string_member (details, "code_hash"), ==, "hash-of-the-code");
      g_assert_cmpint (json_object_get_int_member (details, "line"), >=, 1);
      g_assert_cmpint (json_object_get_int_member (details, "column"), >=, 1);
      /* The refusal names the keyword, never the code around it. */
      if (payload->length > 24)
        g_assert_null (strstr (error->message, payload->payload));
    }
  if (strcmp (payload->verdict, "SYNTAX") == 0)
    {
      JsonObject *details = stw_error_get_details (error);

      g_assert_nonnull (details);
      if (details != NULL)
        g_assert_cmpstr (json_object_get_string_member (details, "code_hash"), ==, "hash-of-the-code");
    }
}

/* Lexer {{{1 */

static GPtrArray *
tokens_of (const char *code)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *tokens = _stw_js_tokenize (code, -1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (tokens);
  return tokens;
}

/* The kinds, one letter a token: i(dentifier) #(private) p(unctuator)
 * n(umber) s(tring) t(emplate) h(ead) m(iddle) T(ail) r(egex). */
static char *
kinds_of (const char *code)
{
  g_autoptr(GPtrArray) tokens = tokens_of (code);
  GString *kinds = g_string_new (NULL);
  static const char letters[] = "i#pnsthmTr";

  for (guint i = 0; i < tokens->len; i++)
    g_string_append_c (kinds, letters[((StwJsToken *) g_ptr_array_index (tokens, i))->kind]);
  return g_string_free (kinds, FALSE);
}

static void
assert_kinds (const char *code,
              const char *expected)
{
  g_autofree char *kinds = kinds_of (code);

  g_test_message ("%s → %s", code, kinds);
  g_assert_cmpstr (kinds, ==, expected);
}

static void
test_lexer_slash (void)
{
  assert_kinds ("a / b / c", "ipipi");
  assert_kinds ("x = /re/.test(s)", "iprpipip");
  assert_kinds ("f(x)/ 2", "ipippn");
  assert_kinds ("if (x) /re/.test(s)", "ipiprpipip");
  assert_kinds ("while (i--) /re/", "ipippr");
  assert_kinds ("{} /re/", "ppr");
  assert_kinds ("x = {} / 2", "ippppn");
  assert_kinds ("x = function () {} / 2", "ipipppppn");
  assert_kinds ("function f() {} /re/", "iippppr");
  assert_kinds ("a++ / 2", "ippn");
  assert_kinds ("a\n++/re/.lastIndex", "iprpi");
  assert_kinds ("return /re/", "ir");
  assert_kinds ("typeof /re/", "ir");
  assert_kinds ("x.return / 2", "ipipn");
  assert_kinds ("this / 2", "ipn");
  assert_kinds ("[1] / 2", "pnppn");
  assert_kinds ("a /= 2", "ipn");
  assert_kinds ("`a${b}c` / 2", "hiTpn");
  assert_kinds ("/[/]/.source", "rpi");
  assert_kinds ("/\\//g", "r");
  assert_kinds ("a = b ? {} : {}\n/ 2", "ipipppppppn");
  assert_kinds ("lbl: {}\n/re/", "ipppr");
  assert_kinds ("do x(); while (a) /re/", "iipppipipr");
  assert_kinds ("function* g() { yield /re/ }", "ipipppirp");
  assert_kinds ("function g() { var yield = 4; return yield / 2 }", "iipppiipnpiipnp");
}

static void
test_lexer_templates (void)
{
  g_autoptr(GPtrArray) tokens = NULL;
  StwJsToken *token;

  assert_kinds ("`plain`", "t");
  assert_kinds ("`a${b}c${d}e`", "himiT");
  assert_kinds ("`a${`b${c}d`}e`", "hhiTT");
  assert_kinds ("`${ {a: 1}.a }`", "hpipnppiT");
  assert_kinds ("tag`\\unicode`", "it");

  tokens = tokens_of ("`a\\u0062\\x63\\n${x}`");
  token = g_ptr_array_index (tokens, 0);
  g_assert_cmpint (token->kind, ==, STW_JS_TOKEN_TEMPLATE_HEAD);
  g_assert_cmpstr (token->value, ==, "abc\n");

  /* An invalid escape (allowed in tagged templates) has no cooked value. */
  g_clear_pointer (&tokens, g_ptr_array_unref);
  tokens = tokens_of ("tag`\\unicode`");
  g_assert_null (((StwJsToken *) g_ptr_array_index (tokens, 1))->value);
}

static void
test_lexer_values (void)
{
  g_autoptr(GPtrArray) tokens = tokens_of ("\\u0070rocess . \\u{65}xit ( 'a\\x62\\u{63}\\144\\\n' , #p )");
  StwJsToken *token;

  token = g_ptr_array_index (tokens, 0);
  g_assert_cmpint (token->kind, ==, STW_JS_TOKEN_IDENTIFIER);
  g_assert_cmpstr (token->value, ==, "process");
  g_assert_true (token->escaped);
  token = g_ptr_array_index (tokens, 2);
  g_assert_cmpstr (token->value, ==, "exit");
  token = g_ptr_array_index (tokens, 4);
  g_assert_cmpint (token->kind, ==, STW_JS_TOKEN_STRING);
  g_assert_cmpstr (token->value, ==, "abcd");
  token = g_ptr_array_index (tokens, 6);
  g_assert_cmpint (token->kind, ==, STW_JS_TOKEN_PRIVATE_NAME);
  g_assert_cmpstr (token->value, ==, "p");

  /* Unicode names and a surrogate pair spelled as escapes. */
  g_clear_pointer (&tokens, g_ptr_array_unref);
  tokens = tokens_of ("const café = 'x', π = '\\ud83d\\ude00'");
  g_assert_cmpstr (((StwJsToken *) g_ptr_array_index (tokens, 1))->value, ==, "café");
  g_assert_cmpstr (((StwJsToken *) g_ptr_array_index (tokens, 5))->value, ==, "π");
  g_assert_cmpstr (((StwJsToken *) g_ptr_array_index (tokens, 7))->value, ==, "\xf0\x9f\x98\x80");
}

static void
test_lexer_positions (void)
{
  g_autoptr(GPtrArray) tokens = tokens_of ("a\r\n  /* x\n y */ é.b\u2028c `\n${d}`");
  StwJsToken *token;

  token = g_ptr_array_index (tokens, 0);
  g_assert_cmpuint (token->line, ==, 1);
  g_assert_cmpuint (token->column, ==, 1);
  token = g_ptr_array_index (tokens, 1);   /* é */
  g_assert_cmpuint (token->line, ==, 3);
  g_assert_cmpuint (token->column, ==, 7);
  g_assert_true (token->newline_before);
  token = g_ptr_array_index (tokens, 2);   /* . */
  g_assert_cmpuint (token->column, ==, 8);
  token = g_ptr_array_index (tokens, 4);   /* c after U+2028 */
  g_assert_cmpuint (token->line, ==, 4);
  g_assert_cmpuint (token->column, ==, 1);
  token = g_ptr_array_index (tokens, 6);   /* d, inside the template */
  g_assert_cmpuint (token->line, ==, 5);
  g_assert_cmpuint (token->column, ==, 3);

  /* A refusal points at the construct. */
  {
    g_autoptr(GError) error = NULL;
    JsonObject *details;

    g_assert_false (_stw_js_guard_check ("let a = 1;\n  // process.exit()\n  x = process['exit']", -1, NULL, &error));
    details = stw_error_get_details (error);
    g_assert_cmpint (json_object_get_int_member (details, "line"), ==, 3);
    g_assert_cmpint (json_object_get_int_member (details, "column"), ==, 7);
    g_assert_false (json_object_has_member (details, "code_hash"));
  }
  {
    g_autoptr(GError) error = NULL;
    JsonObject *details;

    g_assert_false (_stw_js_guard_check ("x = 1\ny = 'abc", -1, "h", &error));
    g_assert_cmpstr (stw_error_get_code_name (error), ==, "EVAL_SYNTAX_ERROR");
    details = stw_error_get_details (error);
    g_assert_cmpint (json_object_get_int_member (details, "line"), ==, 2);
    g_assert_cmpint (json_object_get_int_member (details, "column"), ==, 5);
  }
}

static void
assert_refused (const char *code,
                gssize      length,
                const char *code_name)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (_stw_js_guard_check (code, length, NULL, &error));
  g_assert_cmpstr (stw_error_get_code_name (error), ==, code_name);
}

static void
test_lexer_bounds (void)
{
  g_autoptr(GString) code = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  /* Templates nest up to the cap, and no further. */
  for (guint i = 0; i < STW_JS_MAX_TEMPLATE_DEPTH; i++)
    g_string_append (code, "`${");
  g_string_append (code, "1");
  for (guint i = 0; i < STW_JS_MAX_TEMPLATE_DEPTH; i++)
    g_string_append (code, "}`");
  g_assert_true (_stw_js_guard_check (code->str, -1, NULL, &error));
  g_assert_no_error (error);
  g_string_prepend (code, "`${");
  g_string_append (code, "}`");
  assert_refused (code->str, -1, "BAD_ARGUMENT");

  /* Brackets too. */
  g_string_truncate (code, 0);
  for (guint i = 0; i < STW_JS_MAX_NESTING + 1; i++)
    g_string_append_c (code, '(');
  assert_refused (code->str, -1, "BAD_ARGUMENT");
  g_string_truncate (code, 0);
  for (guint i = 0; i < STW_JS_MAX_NESTING - 1; i++)
    g_string_append_c (code, '[');
  assert_refused (code->str, -1, "EVAL_SYNTAX_ERROR");   /* unclosed */
  for (guint i = 0; i < STW_JS_MAX_NESTING - 1; i++)
    g_string_append_c (code, ']');
  g_assert_true (_stw_js_guard_check (code->str, -1, NULL, NULL));

  /* Any bytes: invalid UTF-8 and NUL bytes are refused as arguments. */
  assert_refused ("a = '\xff'", -1, "BAD_ARGUMENT");
  {
    static const char with_nul[] = "a = 1\0 + process.exit()";

    assert_refused (with_nul, sizeof with_nul - 1, "BAD_ARGUMENT");
  }
  g_assert_true (_stw_js_guard_check ("", 0, NULL, NULL));
  g_assert_true (_stw_js_guard_check (NULL, 0, NULL, NULL));

  /* Many places read two ways are bounded: HTML-like comments here. */
  g_string_truncate (code, 0);
  for (guint i = 0; i < 12; i++)
    g_string_append (code, "x <!-- y\n");
  assert_refused (code->str, -1, "EVAL_BLOCKED_CONSTRUCT");
}

/* Random text, valid UTF-8 made of JavaScript's own pieces: never a crash,
 * always one of the four answers. */
static void
test_random (void)
{
  static const char * const pieces[] = {
    "process", "exit", "eval", "constructor", "(", ")", "[", "]", "{", "}", "`", "${", "'", "\"",
    "/", "/*", "*/", "//", "\n", "\\", "\\u0065", "+", ".", "?.", "<!--", "-->", "#", "x", "1",
    " ", "é", "\u2028", "=>", "if", "return", "yield", "await", "of", "++", ";", ":", "?", "function",
    "class", "import", "with",
  };
  GRand *rand = g_rand_new_with_seed (0x5eed);

  for (guint n = 0; n < 3000; n++)
    {
      g_autoptr(GString) code = g_string_new (NULL);
      g_autoptr(GError) error = NULL;
      guint length = g_rand_int_range (rand, 0, 40);

      for (guint i = 0; i < length; i++)
        g_string_append (code, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      if (!_stw_js_guard_check (code->str, -1, "h", &error))
        {
          const char *name = stw_error_get_code_name (error);

          g_assert_true (g_strcmp0 (name, "EVAL_SYNTAX_ERROR") == 0 ||
                         g_strcmp0 (name, "EVAL_BLOCKED_KEYWORD") == 0 ||
                         g_strcmp0 (name, "EVAL_BLOCKED_CONSTRUCT") == 0 ||
                         g_strcmp0 (name, "BAD_ARGUMENT") == 0);
        }
    }
  g_rand_free (rand);
}

/* The cap of an eval payload, 100,000 characters, in a few shapes. */
static void
test_large (void)
{
  g_autoptr(GString) code = g_string_new (NULL);

  while (code->len < 100000)
    g_string_append (code, "x = a / b; y = /re/g.test(s); z = `t${u}v`; // c\n");
  g_assert_true (_stw_js_guard_check (code->str, -1, NULL, NULL));

  g_string_truncate (code, 0);
  while (code->len < 100000)
    g_string_append (code, "'a'+");
  g_string_append (code, "'b'");
  g_assert_true (_stw_js_guard_check (code->str, -1, NULL, NULL));

  g_string_truncate (code, 0);
  while (code->len < 100000)
    g_string_append (code, "''+");
  g_string_append (code, "'constr'+''+'uctor'");
  assert_refused (code->str, -1, "EVAL_BLOCKED_CONSTRUCT");
}

/* `test-js-guard --tokens FILE…` prints, a line a file, the file, the
 * guard's verdict (PASS or the code) and the tokens of the first reading
 * as kind:start:end (ERR when it does not lex), for
 * tests/e2e/js-guard-oxc.test.mjs to compare with a real parser. */
static int
dump_tokens (int    argc,
             char **argv)
{
  for (int i = 2; i < argc; i++)
    {
      g_autofree char *contents = NULL;
      g_autoptr(GPtrArray) tokens = NULL;
      g_autoptr(GError) error = NULL;
      gsize length = 0;

      if (!g_file_get_contents (argv[i], &contents, &length, &error))
        g_error ("%s", error->message);
      if (!_stw_js_guard_check (contents, (gssize) length, NULL, &error))
        g_print ("%s\t%s\t", argv[i], stw_error_get_code_name (error));
      else
        g_print ("%s\tPASS\t", argv[i]);
      g_clear_error (&error);
      tokens = _stw_js_tokenize (contents, (gssize) length, NULL);
      if (tokens == NULL)
        g_print ("ERR");
      for (guint t = 0; tokens != NULL && t < tokens->len; t++)
        {
          StwJsToken *token = g_ptr_array_index (tokens, t);

          g_print ("%d:%u:%u ", token->kind, token->start, token->end);
        }
      g_print ("\n");
    }
  return 0;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GPtrArray) payloads = NULL;

  if (argc > 1 && strcmp (argv[1], "--tokens") == 0)
    return dump_tokens (argc, argv);

  g_test_init (&argc, &argv, NULL);
  /* Every payload reports its own mismatch. */
  g_test_set_nonfatal_assertions ();

  payloads = load_payloads ();
  g_assert_cmpuint (payloads->len, >=, 150);
  for (guint i = 0; i < payloads->len; i++)
    {
      Payload *payload = g_ptr_array_index (payloads, i);
      g_autofree char *name = g_strdup_printf ("/js-guard/payload/line-%03u", payload->line);

      g_test_add_data_func (name, payload, test_payload);
    }
  g_test_add_func ("/js-guard/lexer/slash", test_lexer_slash);
  g_test_add_func ("/js-guard/lexer/templates", test_lexer_templates);
  g_test_add_func ("/js-guard/lexer/values", test_lexer_values);
  g_test_add_func ("/js-guard/lexer/positions", test_lexer_positions);
  g_test_add_func ("/js-guard/lexer/bounds", test_lexer_bounds);
  g_test_add_func ("/js-guard/random", test_random);
  g_test_add_func ("/js-guard/large", test_large);

  return g_test_run ();
}
