/* stw-json.c: JSON parsing and writing hardened for hostile peers
 *
 * json-glib 1.6 has these traps for a protocol peer (see the CDP field
 * notes): a lone UTF-16 surrogate escape decodes to invalid UTF-8 and eats
 * the next character (or fails the whole message), an escaped NUL ends the
 * string early, integers beyond 64 bits wrap or turn into -1, the
 * generator writes NaN, infinities and doubles >= 1e21 as invalid JSON,
 * and the parser recurses once per nesting level. Everything that crosses a process
 * boundary goes through these two functions instead.
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
  while (end - start > 1 && *start == '0')
    start++;
  n_digits = (gsize) (end - start);
  if (n_digits != 19)
    return n_digits > 19;
  return memcmp (start, limit, 19) > 0;
}

/* One pass over the text: refuse excessive nesting; rewrite every unpaired
 * surrogate escape and every \u0000 (which would end the C string early)
 * to \uFFFD, same length, in place on a copy made only when needed; and
 * note where an out-of-range integer needs a ".0" to be read as a double. */
static gboolean
prescan (const char  *data,
         gsize        length,
         char       **repaired,
         gsize       *repaired_length,
         GError     **error)
{
  const char *end = data + length;
  gboolean in_string = FALSE;
  guint depth = 0;
  char *copy = NULL;
  g_autoptr(GArray) widen = NULL;

  for (const char *p = data; p < end; p++)
    {
      char c = *p;

      if (!in_string)
        {
          if (c == '"')
            in_string = TRUE;
          else if (c == '[' || c == '{')
            {
              if (++depth > STW_JSON_MAX_DEPTH)
                {
                  g_free (copy);
                  g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                               "JSON nesting deeper than %d levels", STW_JSON_MAX_DEPTH);
                  return FALSE;
                }
            }
          else if ((c == ']' || c == '}') && depth > 0)
            depth--;
          else if (c == '-' || g_ascii_isdigit (c))
            {
              const char *q = p + 1;

              while (q < end && g_ascii_isdigit (*q))
                q++;
              if (q < end && (*q == '.' || *q == 'e' || *q == 'E'))
                {
                  /* Not an integer: skip the fraction and exponent whole. */
                  while (q < end && (g_ascii_isdigit (*q) || *q == '.' || *q == 'e' ||
                                     *q == 'E' || *q == '+' || *q == '-'))
                    q++;
                }
              else if (integer_overflows (p, q))
                {
                  gsize offset = (gsize) (q - data);

                  if (widen == NULL)
                    widen = g_array_new (FALSE, FALSE, sizeof (gsize));
                  g_array_append_val (widen, offset);
                }
              p = q - 1;
            }
          continue;
        }

      if (c == '"')
        {
          in_string = FALSE;
          continue;
        }
      if (c != '\\' || p + 1 >= end)
        continue;

      p++;
      if (*p != 'u')
        {
          /* json-glib reads "\x41" as "x41"; JSON.parse refuses it. */
          if (strchr ("\"\\/bfnrt", *p) == NULL || *p == '\0')
            {
              g_free (copy);
              g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                           "Invalid escape at byte %" G_GSIZE_FORMAT, (gsize) (p - 1 - data));
              return FALSE;
            }
          continue;
        }

      {
        int unit = read_u_escape (p + 1, end);
        gboolean replace = FALSE;

        if (unit < 0)
          {
            /* Likewise "\uZZZZ" as "ZZZZ". */
            g_free (copy);
            g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                         "Invalid escape at byte %" G_GSIZE_FORMAT, (gsize) (p - 1 - data));
            return FALSE;
          }

        if (unit >= 0xD800 && unit <= 0xDBFF)
          {
            /* A high surrogate must be followed by an escaped low one. */
            const char *next = p + 5;
            int low = (end - next >= 6 && next[0] == '\\' && next[1] == 'u')
                      ? read_u_escape (next + 2, end) : -1;
            if (low >= 0xDC00 && low <= 0xDFFF)
              {
                p = next + 5;
                continue;
              }
            replace = TRUE;
          }
        else if ((unit >= 0xDC00 && unit <= 0xDFFF) || unit == 0)
          replace = TRUE;

        if (replace)
          {
            gsize offset = (gsize) (p + 1 - data);
            if (copy == NULL)
              copy = g_memdup2 (data, length);
            memcpy (copy + offset, "FFFD", 4);
          }
        p += 4;
      }
    }

  *repaired_length = length;
  if (widen != NULL)
    {
      const char *src = copy ? copy : data;
      GString *out = g_string_sized_new (length + 2 * widen->len + 1);
      gsize last = 0;

      for (guint i = 0; i < widen->len; i++)
        {
          gsize offset = g_array_index (widen, gsize, i);

          g_string_append_len (out, src + last, (gssize) (offset - last));
          g_string_append (out, ".0");
          last = offset;
        }
      g_string_append_len (out, src + last, (gssize) (length - last));
      g_free (copy);
      *repaired_length = out->len;
      copy = g_string_free (out, FALSE);
    }

  *repaired = copy;
  return TRUE;
}

JsonNode *
stw_json_parse (const char  *data,
                gssize       length,
                GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autofree char *repaired = NULL;
  gsize repaired_length = 0;
  JsonNode *root;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (length < 0)
    length = (gssize) strlen (data);

  if (!g_utf8_validate_len (data, (gsize) length, NULL))
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                           "Input is not valid UTF-8");
      return NULL;
    }

  if (!prescan (data, (gsize) length, &repaired, &repaired_length, error))
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

gsize
stw_json_utf8_length (const char *str,
                      gsize       n_bytes)
{
  return (gsize) g_utf8_strlen (str, (gssize) n_bytes);
}

static void
append_string (GString    *out,
               const char *str)
{
  g_autofree char *valid = NULL;

  if (str == NULL)
    str = "";
  if (!g_utf8_validate (str, -1, NULL))
    str = valid = g_utf8_make_valid (str, -1);

  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) str; *p; p++)
    {
      switch (*p)
        {
        case '"':  g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
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
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
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
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);
        gboolean first = TRUE;

        g_string_append_c (out, '{');
        for (const GList *l = members; l != NULL; l = l->next)
          {
            if (!first)
              g_string_append_c (out, ',');
            first = FALSE;
            append_string (out, l->data);
            g_string_append_c (out, ':');
            stw_json_append (out, json_object_get_member (object, l->data));
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
