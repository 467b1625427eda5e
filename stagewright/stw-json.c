/* stw-json.c: JSON parsing and writing hardened for hostile peers
 *
 * json-glib 1.6 has these traps for a protocol peer (see the CDP field
 * notes): a lone UTF-16 surrogate escape decodes to invalid UTF-8 and eats
 * the next character (or fails the whole message), an escaped NUL ends the
 * string early, integers beyond 64 bits wrap or turn into -1, the
 * generator writes NaN, infinities and doubles >= 1e21 as invalid JSON,
 * and the parser recurses once per nesting level. It is also lenient where
 * a wire must be strict: it takes comments, single quotes, hex numbers,
 * leading zeros, NaN and Infinity, and content after the value (of
 * `{…}{…}` it keeps the first and drops the second). Everything that
 * crosses a process boundary goes through these functions instead: a
 * strict RFC 8259 pass, bounded in depth and size, then json-glib.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "stw-json-private.h"

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Reads the four hex digits after "\u" at @p, or -1. */
static int
read_u_escape (const char *p,
               const char *end)
{
  int value = 0;

  if (end - p < 4)
    return -1;
  for (int i = 0; i < 4; i++)
    {
      int h = hex_value (p[i]);
      if (h < 0)
        return -1;
      value = value * 16 + h;
    }
  return value;
}

/* json-glib reads integer literals as 64-bit integers without a range
 * check: 9223372036854775808 wraps to INT64_MIN and anything longer
 * becomes -1. JSON.parse reads them as doubles, and so do we. */
static gboolean
integer_overflows (const char *start,
                   const char *end)
{
  const char *limit = "9223372036854775807";
  gsize n_digits;

  if (start < end && *start == '-')
    {
      start++;
      limit = "9223372036854775808";
    }
  n_digits = (gsize) (end - start);
  if (n_digits != 19)
    return n_digits > 19;
  return memcmp (start, limit, 19) > 0;
}

G_DEFINE_QUARK (stw-json-error-quark, stw_json_error)

/* What json-glib 1.6 allocates for a value, in units of about 80 bytes
 * (a JsonNode and its slot), measured with 10-60 MB texts of each kind:
 * 79 bytes per number, 115 per empty array, 295 per empty object and 540
 * per {"a":1} (the member table is made on the first insertion), 166 per
 * member of a big object. String contents cost their length on top. */
#define COST_SCALAR 1
#define COST_ARRAY 2
#define COST_OBJECT 6
#define COST_MEMBER 1

typedef enum
{
  EXPECT_VALUE,           /* top level, after ':' or after ',' in an array */
  EXPECT_VALUE_OR_CLOSE,  /* after '[' */
  EXPECT_KEY,             /* after ',' in an object */
  EXPECT_KEY_OR_CLOSE,    /* after '{' */
  EXPECT_COLON,
  AFTER_VALUE,
} ScanState;

typedef struct
{
  const char *data;
  gsize       length;
  char       *copy;       /* made only when a repair is needed */
  GArray     *widen;      /* offsets where ".0" goes */
} Scan;

static gboolean
syntax_error (GError     **error,
              const Scan  *scan,
              const char  *p,
              const char  *what)
{
  g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
               "Invalid JSON at byte %" G_GSIZE_FORMAT ": %s", (gsize) (p - scan->data), what);
  return FALSE;
}

static inline gboolean
is_json_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Bytes that end a run of plain ASCII string characters: controls, '"',
 * '\\' and the lead and continuation bytes of UTF-8 sequences. */
static const guint8 string_special[256] = {
  [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
  [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
  [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
  [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
  ['"'] = 1, ['\\'] = 1, [0x80 ... 0xff] = 1,
};

/* Outside strings only ASCII can be valid, so UTF-8 is checked here, one
 * sequence at a time, rather than in a pass of its own over the text. */
static gboolean
scan_utf8 (const Scan  *scan,
           const char **pp,
           GError     **error)
{
  const char *end = scan->data + scan->length;
  gunichar c = g_utf8_get_char_validated (*pp, end - *pp);

  /* Also refused: surrogates (CESU-8) and code points past U+10FFFF. */
  if (c == (gunichar) -1 || c == (gunichar) -2 || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
    {
      g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                   "Input is not valid UTF-8 at byte %" G_GSIZE_FORMAT, (gsize) (*pp - scan->data));
      return FALSE;
    }
  *pp = g_utf8_next_char (*pp);
  return TRUE;
}

/* @p is just past the opening quote; on success it is just past the
 * closing one. */
static gboolean
scan_string (Scan        *scan,
             const char **pp,
             GError     **error)
{
  const char *end = scan->data + scan->length;
  const char *p = *pp;

  for (;;)
    {
      /* The common case: plain characters, one table look-up each (20 MB
       * strings arrive in CDP answers). */
      while (p < end && !string_special[(guchar) *p])
        p++;
      if (p == end)
        return syntax_error (error, scan, p, "unterminated string");
      if (*p == '"')
        break;
      if ((guchar) *p >= 0x80)
        {
          if (!scan_utf8 (scan, &p, error))
            return FALSE;
          continue;
        }
      if ((guchar) *p < 0x20)
        return syntax_error (error, scan, p, "control character in a string");

      /* A backslash. json-glib reads "\x41" as "x41" and "\uZZZZ" as
       * "ZZZZ"; RFC 8259 and JSON.parse refuse them. */
      if (p + 1 == end)
        return syntax_error (error, scan, p, "unterminated string");
      if (p[1] != 'u')
        {
          if (strchr ("\"\\/bfnrt", p[1]) == NULL || p[1] == '\0')
            return syntax_error (error, scan, p, "invalid escape");
          p += 2;
          continue;
        }

      {
        int unit = read_u_escape (p + 2, end);
        gboolean replace = FALSE;

        if (unit < 0)
          return syntax_error (error, scan, p, "invalid \\u escape");

        if (unit >= 0xD800 && unit <= 0xDBFF)
          {
            /* A high surrogate must be followed by an escaped low one. */
            const char *next = p + 6;
            int low = (end - next >= 6 && next[0] == '\\' && next[1] == 'u')
                      ? read_u_escape (next + 2, end) : -1;
            if (low >= 0xDC00 && low <= 0xDFFF)
              {
                p = next + 6;
                continue;
              }
            replace = TRUE;
          }
        else if ((unit >= 0xDC00 && unit <= 0xDFFF) || unit == 0)
          replace = TRUE;

        /* A lone surrogate would decode to invalid UTF-8 and \u0000 would
         * end the C string early: both become U+FFFD, same length. */
        if (replace)
          {
            gsize offset = (gsize) (p + 2 - scan->data);
            if (scan->copy == NULL)
              scan->copy = g_memdup2 (scan->data, scan->length);
            memcpy (scan->copy + offset, "FFFD", 4);
          }
        p += 6;
      }
    }

  *pp = p + 1;
  return TRUE;
}

/* RFC 8259 number: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static gboolean
scan_number (Scan        *scan,
             const char **pp,
             GError     **error)
{
  const char *end = scan->data + scan->length;
  const char *start = *pp;
  const char *p = start;
  gboolean integer = TRUE;

  if (*p == '-')
    p++;
  if (p == end || !g_ascii_isdigit (*p))
    return syntax_error (error, scan, start, "invalid number");
  if (*p == '0')
    {
      p++;
      if (p < end && g_ascii_isdigit (*p))
        return syntax_error (error, scan, start, "leading zero in a number");
    }
  else
    while (p < end && g_ascii_isdigit (*p))
      p++;

  if (p < end && *p == '.')
    {
      integer = FALSE;
      p++;
      if (p == end || !g_ascii_isdigit (*p))
        return syntax_error (error, scan, start, "invalid fraction");
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      integer = FALSE;
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      if (p == end || !g_ascii_isdigit (*p))
        return syntax_error (error, scan, start, "invalid exponent");
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }

  if (integer && integer_overflows (start, p))
    {
      gsize offset = (gsize) (p - scan->data);

      if (scan->widen == NULL)
        scan->widen = g_array_new (FALSE, FALSE, sizeof (gsize));
      g_array_append_val (scan->widen, offset);
    }

  *pp = p;
  return TRUE;
}

/* The strict RFC 8259 check, in one pass and without recursion, before
 * json-glib (lenient: comments, single quotes, hex, leading zeros, NaN,
 * trailing content) builds the tree. It also bounds what the tree will
 * cost (@max_cost units, see COST_*) and makes the repairs described in
 * scan_string() and integer_overflows(). */
static gboolean
validate (const char  *data,
          gsize        length,
          gsize        max_cost,
          char       **repaired,
          gsize       *repaired_length,
          GError     **error)
{
  Scan scan = { data, length, NULL, NULL };
  const char *p = data;
  const char *end = data + length;
  ScanState state = EXPECT_VALUE;
  /* '[' or '{' per open level. */
  char stack[STW_JSON_MAX_DEPTH];
  guint depth = 0;
  gsize cost = 0;
  gboolean seen_value = FALSE;

  for (;;)
    {
      char c;

      while (p < end && is_json_space (*p))
        p++;
      if (p == end)
        break;
      c = *p;

      /* Never valid here, but bad UTF-8 is worth telling apart. */
      if ((guchar) c >= 0x80)
        {
          const char *q = p;

          if (!scan_utf8 (&scan, &q, error))
            goto fail;
        }

      switch (state)
        {
        case EXPECT_VALUE_OR_CLOSE:
          if (c == ']')
            {
              depth--;
              p++;
              state = AFTER_VALUE;
              continue;
            }
          G_GNUC_FALLTHROUGH;
        case EXPECT_VALUE:
          if (depth == 0 && seen_value)
            goto fail_trailing;
          seen_value = TRUE;
          if (c == '[' || c == '{')
            {
              if (depth == STW_JSON_MAX_DEPTH)
                {
                  g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                               "JSON nesting deeper than %d levels", STW_JSON_MAX_DEPTH);
                  goto fail;
                }
              stack[depth++] = c;
              cost += c == '[' ? COST_ARRAY : COST_OBJECT;
              p++;
              state = c == '[' ? EXPECT_VALUE_OR_CLOSE : EXPECT_KEY_OR_CLOSE;
            }
          else
            {
              cost += COST_SCALAR;
              if (c == '"')
                {
                  p++;
                  if (!scan_string (&scan, &p, error))
                    goto fail;
                }
              else if (c == '-' || g_ascii_isdigit (c))
                {
                  if (!scan_number (&scan, &p, error))
                    goto fail;
                }
              else if (end - p >= 4 && memcmp (p, "true", 4) == 0)
                p += 4;
              else if (end - p >= 5 && memcmp (p, "false", 5) == 0)
                p += 5;
              else if (end - p >= 4 && memcmp (p, "null", 4) == 0)
                p += 4;
              else
                {
                  syntax_error (error, &scan, p, "expected a value");
                  goto fail;
                }
              state = AFTER_VALUE;
            }
          break;

        case EXPECT_KEY_OR_CLOSE:
          if (c == '}')
            {
              depth--;
              p++;
              state = AFTER_VALUE;
              continue;
            }
          G_GNUC_FALLTHROUGH;
        case EXPECT_KEY:
          if (c != '"')
            {
              syntax_error (error, &scan, p, "expected a member name in double quotes");
              goto fail;
            }
          p++;
          if (!scan_string (&scan, &p, error))
            goto fail;
          cost += COST_MEMBER;
          state = EXPECT_COLON;
          break;

        case EXPECT_COLON:
          if (c != ':')
            {
              syntax_error (error, &scan, p, "expected ':'");
              goto fail;
            }
          p++;
          state = EXPECT_VALUE;
          break;

        case AFTER_VALUE:
          if (depth == 0)
            goto fail_trailing;
          if (c == ',')
            state = stack[depth - 1] == '[' ? EXPECT_VALUE : EXPECT_KEY;
          else if (c == (stack[depth - 1] == '[' ? ']' : '}'))
            depth--;
          else
            {
              syntax_error (error, &scan, p,
                            stack[depth - 1] == '[' ? "expected ',' or ']'" : "expected ',' or '}'");
              goto fail;
            }
          p++;
          break;

        default:
          g_assert_not_reached ();
        }

      if (cost > max_cost)
        {
          g_set_error (error, STW_JSON_ERROR, STW_JSON_ERROR_TOO_LARGE,
                       "JSON message too large: more than %" G_GSIZE_FORMAT " values",
                       max_cost);
          goto fail;
        }
    }

  if (!seen_value)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                           "Empty JSON document");
      goto fail;
    }
  if (state != AFTER_VALUE || depth > 0)
    {
      syntax_error (error, &scan, p, "unexpected end of input");
      goto fail;
    }

  *repaired_length = length;
  if (scan.widen != NULL)
    {
      const char *src = scan.copy ? scan.copy : data;
      GString *out = g_string_sized_new (length + 2 * scan.widen->len + 1);
      gsize last = 0;

      for (guint i = 0; i < scan.widen->len; i++)
        {
          gsize offset = g_array_index (scan.widen, gsize, i);

          g_string_append_len (out, src + last, (gssize) (offset - last));
          g_string_append (out, ".0");
          last = offset;
        }
      g_string_append_len (out, src + last, (gssize) (length - last));
      g_free (scan.copy);
      *repaired_length = out->len;
      scan.copy = g_string_free (out, FALSE);
      g_array_unref (scan.widen);
    }

  *repaired = scan.copy;
  return TRUE;

fail_trailing:
  syntax_error (error, &scan, p, "content after the JSON value");
fail:
  g_free (scan.copy);
  g_clear_pointer (&scan.widen, g_array_unref);
  return FALSE;
}

/**
 * stw_json_get_string:
 * @object: (nullable): an object from a peer's message
 * @member: a member name
 *
 * A string member of a peer's object, when both are there.
 *
 * Returns: (nullable): the string, or %NULL when @object is %NULL or the
 *   member is missing or not a string
 */
const char *
stw_json_get_string (JsonObject *object,
                     const char *member)
{
  return object ? json_object_get_string_member_with_default (object, member, NULL) : NULL;
}

JsonObject *
stw_json_get_object (JsonObject *object,
                     const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

void
stw_json_object_copy_members (JsonObject         *dest,
                              JsonObject         *src,
                              const char * const *except)
{
  g_autoptr(GList) members = src ? json_object_get_members (src) : NULL;

  g_return_if_fail (dest != NULL);

  for (const GList *l = members; l != NULL; l = l->next)
    if (except == NULL || !g_strv_contains (except, l->data))
      json_object_set_member (dest, l->data, json_node_copy (json_object_get_member (src, l->data)));
}

/**
 * stw_json_value_budget:
 * @length: the length of a message's text, in bytes
 *
 * How many values (as stw_json_parse_bounded() counts them) a message of
 * @length bytes may hold: what keeps the parsed tree a small multiple of
 * the text.
 *
 * Returns: the budget, between %STW_JSON_MIN_VALUES and %STW_JSON_MAX_VALUES
 */
gsize
stw_json_value_budget (gsize length)
{
  return CLAMP (length / STW_JSON_BYTES_PER_VALUE, STW_JSON_MIN_VALUES, STW_JSON_MAX_VALUES);
}

/**
 * stw_json_parse_bounded:
 * @data: the text
 * @length: its length, or -1 if NUL-terminated
 * @max_values: the most values the tree may hold (see STW_JSON_MAX_VALUES)
 * @error: a JSON_PARSER_ERROR for text RFC 8259 refuses (INVALID_DATA for
 *   bad UTF-8, PARSE otherwise, depth beyond STW_JSON_MAX_DEPTH included),
 *   or STW_JSON_ERROR_TOO_LARGE
 *
 * Parses exactly one RFC 8259 JSON text, surrounded by optional JSON
 * whitespace, and nothing else.
 *
 * Returns: (transfer full) (nullable): the root node
 */
JsonNode *
stw_json_parse_bounded (const char  *data,
                        gssize       length,
                        gsize        max_values,
                        GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autofree char *repaired = NULL;
  gsize repaired_length = 0;
  JsonNode *root;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (length < 0)
    length = (gssize) strlen (data);

  if (!validate (data, (gsize) length, max_values, &repaired, &repaired_length, error))
    return NULL;

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, repaired ? repaired : data,
                                   (gssize) repaired_length, error))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                           "Empty JSON document");
      return NULL;
    }

  return json_node_ref (root);
}

/**
 * stw_json_parse:
 * @data: the text
 * @length: its length, or -1 if NUL-terminated
 * @error: see stw_json_parse_bounded()
 *
 * stw_json_parse_bounded() with STW_JSON_MAX_VALUES.
 *
 * Returns: (transfer full) (nullable): the root node
 */
JsonNode *
stw_json_parse (const char  *data,
                gssize       length,
                GError     **error)
{
  return stw_json_parse_bounded (data, length, STW_JSON_MAX_VALUES, error);
}

gsize
stw_json_utf8_length (const char *str,
                      gsize       n_bytes)
{
  return (gsize) g_utf8_strlen (str, (gssize) n_bytes);
}

/* Bytes a JSON string cannot hold as they are: controls, '"' and '\\'.
 * Everything else (valid UTF-8 included) is copied in runs. */
static const guint8 needs_escape[256] = {
  [0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

static void
append_string (GString    *out,
               const char *str)
{
  g_autofree char *valid = NULL;
  const guchar *p;

  if (str == NULL)
    str = "";
  if (!g_utf8_validate (str, -1, NULL))
    str = valid = g_utf8_make_valid (str, -1);

  g_string_append_c (out, '"');
  for (p = (const guchar *) str; *p; p++)
    {
      const guchar *run = p;

      while (!needs_escape[*p])
        p++;
      if (p > run)
        g_string_append_len (out, (const char *) run, p - run);
      if (*p == '\0')
        break;
      switch (*p)
        {
        case '"':  g_string_append_len (out, "\\\"", 2); break;
        case '\\': g_string_append_len (out, "\\\\", 2); break;
        case '\n': g_string_append_len (out, "\\n", 2); break;
        case '\r': g_string_append_len (out, "\\r", 2); break;
        case '\t': g_string_append_len (out, "\\t", 2); break;
        case '\b': g_string_append_len (out, "\\b", 2); break;
        case '\f': g_string_append_len (out, "\\f", 2); break;
        default:
          {
            static const char hex[] = "0123456789abcdef";
            char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 0xf] };

            g_string_append_len (out, u, sizeof u);
          }
        }
    }
  g_string_append_c (out, '"');
}

/**
 * stw_json_format_int:
 * @buf: where the text goes (NUL-terminated)
 * @value: a number
 *
 * Writes @value in decimal, as "%" G_GINT64_FORMAT would, without the
 * cost of printf: keys and refs are written thousands of times per
 * snapshot.
 *
 * Returns: the length of the text
 */
gsize
stw_json_format_int (char   buf[STW_JSON_INT_SIZE],
                     gint64 value)
{
  char digits[STW_JSON_INT_SIZE];
  char *p = digits + sizeof digits;
  /* In unsigned arithmetic: -G_MININT64 does not fit a gint64. */
  guint64 magnitude = value < 0 ? (guint64) 0 - (guint64) value : (guint64) value;
  gsize length;

  do
    {
      *--p = (char) ('0' + magnitude % 10);
      magnitude /= 10;
    }
  while (magnitude != 0);
  if (value < 0)
    *--p = '-';
  length = (gsize) (digits + sizeof digits - p);
  memcpy (buf, p, length);
  buf[length] = '\0';
  return length;
}

/**
 * stw_json_append_int:
 * @out: a string
 * @value: a number
 *
 * Appends @value in decimal (see stw_json_format_int()).
 */
void
stw_json_append_int (GString *out,
                     gint64   value)
{
  char buf[STW_JSON_INT_SIZE];

  g_string_append_len (out, buf, (gssize) stw_json_format_int (buf, value));
}

static void
append_double (GString *out,
               double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* JSON has no NaN or infinity; null is what JSON.stringify writes. */
  if (!isfinite (value))
    {
      g_string_append (out, "null");
      return;
    }
  /* Nor does it keep the sign of zero: "-0" reads back as the integer 0,
   * and JSON.stringify writes 0. */
  if (value == 0)
    {
      g_string_append_c (out, '0');
      return;
    }

  /* Shortest of %.15g..%.17g that reads back exactly: 0.1 stays 0.1. */
  for (int precision = 15; precision <= 17; precision++)
    {
      char format[8];
      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buf, sizeof buf, format, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  g_string_append (out, buf);
}

void
stw_json_append (GString  *out,
                 JsonNode *node)
{
  if (node == NULL)
    {
      g_string_append (out, "null");
      return;
    }

  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          stw_json_append_int (out, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          append_double (out, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          append_string (out, json_node_get_string (node));
          break;
        default:
          g_string_append (out, "null");
        }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            stw_json_append (out, json_array_get_element (array, i));
          }
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;
        gboolean first = TRUE;

        /* In insertion order, without a list of the names to allocate
         * and a look-up per member. */
        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        g_string_append_c (out, '{');
        while (json_object_iter_next_ordered (&iter, &name, &member))
          {
            if (!first)
              g_string_append_c (out, ',');
            first = FALSE;
            append_string (out, name);
            g_string_append_c (out, ':');
            stw_json_append (out, member);
          }
        g_string_append_c (out, '}');
      }
      break;

    default:
      g_string_append (out, "null");
    }
}

char *
stw_json_to_string (JsonNode *node,
                    gsize    *length)
{
  GString *out = g_string_sized_new (256);

  stw_json_append (out, node);
  if (length != NULL)
    *length = out->len;
  return g_string_free (out, FALSE);
}

char *
stw_json_object_to_string (JsonObject *object,
                           gsize      *length)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return stw_json_to_string (node, length);
}
