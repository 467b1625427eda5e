/* stw-schema.c: validation of tool arguments against a JSON Schema subset
 *
 * A schema is checked and compiled once, in stw_schema_new(): every keyword
 * is type-checked, patterns are compiled, bounds are parsed, and a `default`
 * must satisfy its own schema. The core tools' schemas, checked by a test
 * instead, are parsed and compiled on first use (_stw_schema_new_deferred()). Validation then walks the instance only where
 * the compiled schema has something to say, so its recursion depth is bounded
 * by the schema's depth, never by the instance's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-schema.h"
#include "stw-schema-private.h"

#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "stw-json-private.h"

/* At most this many issues are reported; see stw_schema_validate(). */
#define MAX_ISSUES 32

/* Subschema nesting accepted by stw_schema_new(). */
#define MAX_SCHEMA_DEPTH 64

/* The JSON types of the `type` keyword, as bits. */
typedef enum
{
  TYPE_OBJECT  = 1 << 0,
  TYPE_ARRAY   = 1 << 1,
  TYPE_STRING  = 1 << 2,
  TYPE_NUMBER  = 1 << 3,
  TYPE_INTEGER = 1 << 4,
  TYPE_BOOLEAN = 1 << 5,
  TYPE_NULL    = 1 << 6,
} TypeFlags;

static const char * const type_names[] = {
  "object", "array", "string", "number", "integer", "boolean", "null",
};

/* A JSON number as json-glib holds it: an int64 or a double. */
typedef struct
{
  gboolean is_int;
  gint64   i;
  double   d;
} Number;

/* number_compare() result when either side is NaN. */
#define NUMBER_UNORDERED 2

typedef struct
{
  gboolean  set;
  Number    value;
  char     *expected;  /* ">= 1", "< 10" */
} Bound;

typedef struct
{
  gint64  value;       /* -1: unset */
  char   *text;        /* the value, printed */
} Count;

typedef struct _SchemaNode SchemaNode;

struct _SchemaNode
{
  /* Borrowed pointers point into the sealed schema JSON owned by StwSchema. */

  gboolean     never;            /* the `false` schema */
  guint        types;            /* TypeFlags; 0: any type */
  char        *type_desc;        /* "string | null", "value" when untyped */

  GPtrArray   *prop_names;       /* (element-type utf8) borrowed; NULL if none */
  GPtrArray   *prop_schemas;     /* (element-type SchemaNode) owned */
  GHashTable  *props;            /* name → SchemaNode, borrowed */
  GPtrArray   *required;         /* (element-type utf8) borrowed; NULL if none */
  GHashTable  *required_set;     /* names in `required` */
  gboolean     additional_forbidden;
  SchemaNode  *additional;       /* additionalProperties as a schema */

  JsonNode    *enum_node;        /* borrowed */
  char        *enum_expected;
  JsonNode    *const_node;       /* borrowed */
  char        *const_expected;

  Bound        minimum;
  Bound        exclusive_minimum;
  Bound        maximum;
  Bound        exclusive_maximum;

  Count        min_length;
  Count        max_length;
  GRegex      *pattern;
  const char  *pattern_source;   /* borrowed */

  SchemaNode  *items;
  Count        min_items;
  Count        max_items;

  GPtrArray   *any_of;           /* (element-type SchemaNode) owned */
  GPtrArray   *one_of;           /* (element-type SchemaNode) owned */

  JsonNode    *default_value;    /* borrowed */
};

struct _StwSchema
{
  gatomicrefcount  ref_count;
  const char      *source;       /* deferred: the JSON text, static */
  JsonNode        *json;         /* sealed; a deferred schema's once parsed */
  SchemaNode      *root;         /* a deferred schema's once compiled */
};

/* A deferred schema is parsed and compiled by the first thread to need it. */
G_LOCK_DEFINE_STATIC (deferred);

G_DEFINE_BOXED_TYPE (StwSchema, stw_schema, stw_schema_ref, stw_schema_unref)

/* JSON helpers {{{1 */

static gboolean
number_from_node (JsonNode *node,
                  Number   *out)
{
  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE)
    return FALSE;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      out->is_int = TRUE;
      out->i = json_node_get_int (node);
      out->d = (double) out->i;
      return TRUE;

    case G_TYPE_DOUBLE:
      out->is_int = FALSE;
      out->i = 0;
      out->d = json_node_get_double (node);
      return TRUE;

    default:
      return FALSE;
    }
}

/* Exact comparison of an int64 with a double, without converting the
 * integer to a (possibly rounded) double. */
static int
compare_int_double (gint64 i,
                    double d)
{
  gint64 whole;
  double fraction;

  if (d != d)
    return NUMBER_UNORDERED;
  /* 2^63 and -2^63 are exact doubles; outside [-2^63, 2^63) a cast is UB. */
  if (d >= 9223372036854775808.0)
    return -1;
  if (d < -9223372036854775808.0)
    return 1;

  whole = (gint64) d;                 /* truncates; exact */
  if (i != whole)
    return i < whole ? -1 : 1;
  fraction = d - (double) whole;      /* exact: same binade or smaller */
  if (fraction > 0)
    return -1;
  if (fraction < 0)
    return 1;
  return 0;
}

/* Returns -1, 0 or 1 as @a is below, equal to or above @b, or
 * NUMBER_UNORDERED when either is NaN. */
static int
number_compare (const Number *a,
                const Number *b)
{
  if (a->is_int && b->is_int)
    return a->i < b->i ? -1 : (a->i > b->i ? 1 : 0);
  if (a->is_int)
    return compare_int_double (a->i, b->d);
  if (b->is_int)
    {
      int c = compare_int_double (b->i, a->d);
      return c == NUMBER_UNORDERED ? c : -c;
    }
  if (a->d != a->d || b->d != b->d)
    return NUMBER_UNORDERED;
  return a->d < b->d ? -1 : (a->d > b->d ? 1 : 0);
}

static gboolean
double_is_integral (double d)
{
  if (!isfinite (d))
    return FALSE;
  /* Every double of magnitude >= 2^53 is an integer. */
  if (d >= 9007199254740992.0 || d <= -9007199254740992.0)
    return TRUE;
  return d == (double) (gint64) d;
}

static char *
number_to_string (const Number *number)
{
  if (number->is_int)
    return g_strdup_printf ("%" G_GINT64_FORMAT, number->i);
  else
    {
      g_autoptr(JsonNode) node = json_node_init_double (json_node_alloc (), number->d);
      return stw_json_to_string (node, NULL);
    }
}

/* The TypeFlags an instance satisfies; 0 for a value json-glib cannot
 * describe (an uninitialised node). NULL counts as JSON null. */
static guint
instance_types (JsonNode *instance)
{
  if (instance == NULL)
    return TYPE_NULL;

  switch (JSON_NODE_TYPE (instance))
    {
    case JSON_NODE_OBJECT:
      return TYPE_OBJECT;
    case JSON_NODE_ARRAY:
      return TYPE_ARRAY;
    case JSON_NODE_NULL:
      return TYPE_NULL;
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (instance))
        {
        case G_TYPE_INT64:
          return TYPE_NUMBER | TYPE_INTEGER;
        case G_TYPE_DOUBLE:
          return TYPE_NUMBER
                 | (double_is_integral (json_node_get_double (instance)) ? TYPE_INTEGER : 0);
        case G_TYPE_BOOLEAN:
          return TYPE_BOOLEAN;
        case G_TYPE_STRING:
          return TYPE_STRING;
        default:
          return 0;
        }
    default:
      return 0;
    }
}

/* The name zod uses for what was received: integers are numbers. */
static const char *
instance_type_name (guint types)
{
  if (types & TYPE_OBJECT)
    return "object";
  if (types & TYPE_ARRAY)
    return "array";
  if (types & TYPE_STRING)
    return "string";
  if (types & TYPE_NUMBER)
    return "number";
  if (types & TYPE_BOOLEAN)
    return "boolean";
  if (types & TYPE_NULL)
    return "null";
  return "unknown";
}

static const char *
node_get_string (JsonNode *node)
{
  const char *str = json_node_get_string (node);

  return str != NULL ? str : "";
}

/* Objects and arrays made with json_node_new() and never set hold NULL;
 * they are treated as empty. */
static guint
object_size (JsonObject *object)
{
  return object != NULL ? json_object_get_size (object) : 0;
}

static guint
array_length (JsonArray *array)
{
  return array != NULL ? json_array_get_length (array) : 0;
}

/* JSON equality as `enum` and `const` need it: numbers compare by value
 * (1 equals 1.0), objects ignore member order. The recursion follows
 * @literal, the schema's side, so its depth is bounded by the schema. */
static gboolean
json_equal (JsonNode *literal,
            JsonNode *instance)
{
  guint literal_types = instance_types (literal);
  guint types = instance_types (instance);

  if (literal_types & TYPE_NUMBER)
    {
      Number a, b;

      if (!(types & TYPE_NUMBER))
        return FALSE;
      number_from_node (literal, &a);
      number_from_node (instance, &b);
      return number_compare (&a, &b) == 0;
    }

  if (literal_types == 0 || literal_types != types)
    return FALSE;

  if (literal_types & TYPE_NULL)
    return TRUE;
  if (literal_types & TYPE_BOOLEAN)
    return !json_node_get_boolean (literal) == !json_node_get_boolean (instance);
  if (literal_types & TYPE_STRING)
    return strcmp (node_get_string (literal), node_get_string (instance)) == 0;

  if (literal_types & TYPE_ARRAY)
    {
      JsonArray *a = json_node_get_array (literal);
      JsonArray *b = json_node_get_array (instance);
      guint n = array_length (a);

      if (n != array_length (b))
        return FALSE;
      for (guint i = 0; i < n; i++)
        if (!json_equal (json_array_get_element (a, i), json_array_get_element (b, i)))
          return FALSE;
      return TRUE;
    }

  if (literal_types & TYPE_OBJECT)
    {
      JsonObject *a = json_node_get_object (literal);
      JsonObject *b = json_node_get_object (instance);
      g_autoptr(GList) members = NULL;

      if (object_size (a) != object_size (b))
        return FALSE;
      if (object_size (a) == 0)
        return TRUE;
      members = json_object_get_members (a);
      for (const GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *other = json_object_get_member (b, l->data);

          if (other == NULL || !json_equal (json_object_get_member (a, l->data), other))
            return FALSE;
        }
      return TRUE;
    }

  return FALSE;
}

/* A fresh, mutable node of the same kind: scalars copied, containers empty. */
static JsonNode *
copy_shallow (JsonNode *src)
{
  JsonNode *copy;

  switch (JSON_NODE_TYPE (src))
    {
    case JSON_NODE_OBJECT:
      copy = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (copy, json_object_new ());
      return copy;

    case JSON_NODE_ARRAY:
      copy = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (copy, json_array_new ());
      return copy;

    case JSON_NODE_NULL:
      return json_node_init_null (json_node_alloc ());

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (src))
        {
        case G_TYPE_INT64:
          return json_node_init_int (json_node_alloc (), json_node_get_int (src));
        case G_TYPE_DOUBLE:
          return json_node_init_double (json_node_alloc (), json_node_get_double (src));
        case G_TYPE_BOOLEAN:
          return json_node_init_boolean (json_node_alloc (), json_node_get_boolean (src));
        case G_TYPE_STRING:
          return json_node_init_string (json_node_alloc (), json_node_get_string (src));
        default:
          return json_node_init_null (json_node_alloc ());
        }

    default:
      return json_node_init_null (json_node_alloc ());
    }
}

typedef struct
{
  JsonNode *src;
  JsonNode *dst;
} CopyFrame;

/* A deep, mutable copy that shares nothing with @src (json_node_copy()
 * shares containers). Iterative, so instance depth costs no stack. */
static JsonNode *
json_deep_copy (JsonNode *src)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (CopyFrame));
  JsonNode *root = copy_shallow (src);
  CopyFrame frame;

  frame.src = src;
  frame.dst = root;
  g_array_append_val (stack, frame);

  while (stack->len > 0)
    {
      CopyFrame top = g_array_index (stack, CopyFrame, stack->len - 1);

      g_array_set_size (stack, stack->len - 1);

      if (JSON_NODE_HOLDS_OBJECT (top.src))
        {
          JsonObject *src_object = json_node_get_object (top.src);
          JsonObject *dst_object = json_node_get_object (top.dst);
          g_autoptr(GList) members = NULL;

          if (object_size (src_object) == 0)
            continue;
          members = json_object_get_members (src_object);
          for (const GList *l = members; l != NULL; l = l->next)
            {
              CopyFrame child;

              child.src = json_object_get_member (src_object, l->data);
              child.dst = copy_shallow (child.src);
              json_object_set_member (dst_object, l->data, child.dst);
              if (JSON_NODE_HOLDS_OBJECT (child.src) || JSON_NODE_HOLDS_ARRAY (child.src))
                g_array_append_val (stack, child);
            }
        }
      else if (JSON_NODE_HOLDS_ARRAY (top.src))
        {
          JsonArray *src_array = json_node_get_array (top.src);
          JsonArray *dst_array = json_node_get_array (top.dst);
          guint n = array_length (src_array);

          for (guint i = 0; i < n; i++)
            {
              CopyFrame child;

              child.src = json_array_get_element (src_array, i);
              child.dst = copy_shallow (child.src);
              json_array_add_element (dst_array, child.dst);
              if (JSON_NODE_HOLDS_OBJECT (child.src) || JSON_NODE_HOLDS_ARRAY (child.src))
                g_array_append_val (stack, child);
            }
        }
    }

  return root;
}

/* Compiled schema nodes {{{1 */

static SchemaNode *
schema_node_new (void)
{
  SchemaNode *node = g_new0 (SchemaNode, 1);

  node->min_length.value = -1;
  node->max_length.value = -1;
  node->min_items.value = -1;
  node->max_items.value = -1;
  return node;
}

static void
schema_node_free (SchemaNode *node)
{
  if (node == NULL)
    return;

  g_free (node->type_desc);
  g_clear_pointer (&node->prop_names, g_ptr_array_unref);
  g_clear_pointer (&node->prop_schemas, g_ptr_array_unref);
  g_clear_pointer (&node->props, g_hash_table_unref);
  g_clear_pointer (&node->required, g_ptr_array_unref);
  g_clear_pointer (&node->required_set, g_hash_table_unref);
  schema_node_free (node->additional);
  g_free (node->enum_expected);
  g_free (node->const_expected);
  g_free (node->minimum.expected);
  g_free (node->exclusive_minimum.expected);
  g_free (node->maximum.expected);
  g_free (node->exclusive_maximum.expected);
  g_free (node->min_length.text);
  g_free (node->max_length.text);
  g_clear_pointer (&node->pattern, g_regex_unref);
  schema_node_free (node->items);
  g_free (node->min_items.text);
  g_free (node->max_items.text);
  g_clear_pointer (&node->any_of, g_ptr_array_unref);
  g_clear_pointer (&node->one_of, g_ptr_array_unref);
  g_free (node);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SchemaNode, schema_node_free)

/* "string | null"; "value" for any type, "never" for the false schema. */
static char *
describe_types (gboolean never,
                guint    types)
{
  GString *desc;

  if (never)
    return g_strdup ("never");
  if (types == 0)
    return g_strdup ("value");

  desc = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (type_names); i++)
    if (types & (1u << i))
      {
        if (desc->len > 0)
          g_string_append (desc, " | ");
        g_string_append (desc, type_names[i]);
      }
  return g_string_free (desc, FALSE);
}

/* Compilation {{{1 */

/* Appends one JSON Pointer (RFC 6901) segment; returns the old length. */
static gsize
pointer_push (GString    *pointer,
              const char *segment)
{
  gsize len = pointer->len;

  g_string_append_c (pointer, '/');
  for (const char *p = segment; *p != '\0'; p++)
    {
      if (*p == '~')
        g_string_append (pointer, "~0");
      else if (*p == '/')
        g_string_append (pointer, "~1");
      else
        g_string_append_c (pointer, *p);
    }
  return len;
}

static gsize
pointer_push_index (GString *pointer,
                    guint    index)
{
  gsize len = pointer->len;

  g_string_append_printf (pointer, "/%u", index);
  return len;
}

static void schema_error (GError    **error,
                          GString    *pointer,
                          const char *format,
                          ...) G_GNUC_PRINTF (3, 4);

static void
schema_error (GError     **error,
              GString     *pointer,
              const char  *format,
              ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("Invalid schema at %s: %s"), pointer->str, message);
}

static SchemaNode *compile_node (JsonNode  *json,
                                 GString   *pointer,
                                 guint      depth,
                                 GError   **error);

static gboolean
is_string (JsonNode *value)
{
  return instance_types (value) == TYPE_STRING;
}

static gboolean
is_boolean (JsonNode *value)
{
  return instance_types (value) == TYPE_BOOLEAN;
}

static guint
type_from_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (type_names); i++)
    if (strcmp (name, type_names[i]) == 0)
      return 1u << i;
  return 0;
}

static gboolean
compile_type (SchemaNode  *node,
              JsonNode    *value,
              GString     *pointer,
              GError     **error)
{
  if (is_string (value))
    {
      const char *name = node_get_string (value);

      node->types = type_from_name (name);
      if (node->types == 0)
        {
          schema_error (error, pointer, _("unknown type “%s”"), name);
          return FALSE;
        }
      return TRUE;
    }

  if (JSON_NODE_HOLDS_ARRAY (value))
    {
      JsonArray *array = json_node_get_array (value);
      guint n = array_length (array);

      if (n == 0)
        {
          schema_error (error, pointer, _("the type list must not be empty"));
          return FALSE;
        }
      for (guint i = 0; i < n; i++)
        {
          JsonNode *element = json_array_get_element (array, i);
          guint flag = is_string (element) ? type_from_name (node_get_string (element)) : 0;

          if (flag == 0 || (node->types & flag))
            {
              pointer_push_index (pointer, i);
              schema_error (error, pointer,
                            flag == 0 ? _("expected the name of a JSON type")
                                      : _("duplicate type"));
              return FALSE;
            }
          node->types |= flag;
        }
      return TRUE;
    }

  schema_error (error, pointer, _("expected a type name or an array of type names"));
  return FALSE;
}

static gboolean
compile_properties (SchemaNode  *node,
                    JsonNode    *value,
                    GString     *pointer,
                    guint        depth,
                    GError     **error)
{
  JsonObject *object;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (value))
    {
      schema_error (error, pointer, _("expected an object mapping names to schemas"));
      return FALSE;
    }

  object = json_node_get_object (value);
  node->prop_names = g_ptr_array_new ();
  node->prop_schemas = g_ptr_array_new_with_free_func ((GDestroyNotify) schema_node_free);
  node->props = g_hash_table_new (g_str_hash, g_str_equal);

  if (object_size (object) == 0)
    return TRUE;

  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      gsize len = pointer_push (pointer, name);
      SchemaNode *child = compile_node (json_object_get_member (object, name),
                                        pointer, depth + 1, error);

      if (child == NULL)
        return FALSE;
      g_string_truncate (pointer, len);

      g_ptr_array_add (node->prop_names, (gpointer) name);
      g_ptr_array_add (node->prop_schemas, child);
      g_hash_table_insert (node->props, (gpointer) name, child);
    }
  return TRUE;
}

static gboolean
compile_required (SchemaNode  *node,
                  JsonNode    *value,
                  GString     *pointer,
                  GError     **error)
{
  JsonArray *array;
  guint n;

  if (!JSON_NODE_HOLDS_ARRAY (value))
    {
      schema_error (error, pointer, _("expected an array of property names"));
      return FALSE;
    }

  array = json_node_get_array (value);
  n = array_length (array);
  node->required = g_ptr_array_new ();
  node->required_set = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *name;

      if (!is_string (element))
        {
          pointer_push_index (pointer, i);
          schema_error (error, pointer, _("expected a property name (a string)"));
          return FALSE;
        }
      name = node_get_string (element);
      if (!g_hash_table_add (node->required_set, (gpointer) name))
        {
          pointer_push_index (pointer, i);
          schema_error (error, pointer, _("“%s” is listed twice"), name);
          return FALSE;
        }
      g_ptr_array_add (node->required, (gpointer) name);
    }
  return TRUE;
}

/* An array of schemas, for anyOf and oneOf. */
static GPtrArray *
compile_schema_list (JsonNode  *value,
                     GString   *pointer,
                     guint      depth,
                     GError   **error)
{
  g_autoptr(GPtrArray) list = NULL;
  JsonArray *array;
  guint n;

  array = JSON_NODE_HOLDS_ARRAY (value) ? json_node_get_array (value) : NULL;
  n = array_length (array);
  if (n == 0)
    {
      schema_error (error, pointer, _("expected a non-empty array of schemas"));
      return NULL;
    }

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) schema_node_free);
  for (guint i = 0; i < n; i++)
    {
      gsize len = pointer_push_index (pointer, i);
      SchemaNode *child = compile_node (json_array_get_element (array, i),
                                        pointer, depth + 1, error);

      if (child == NULL)
        return NULL;
      g_string_truncate (pointer, len);
      g_ptr_array_add (list, child);
    }
  return g_steal_pointer (&list);
}

static gboolean
compile_bound (Bound       *bound,
               const char  *op,
               JsonNode    *value,
               GString     *pointer,
               GError     **error)
{
  g_autofree char *text = NULL;

  /* 1e400 parses as infinity: no usable bound. */
  if (!number_from_node (value, &bound->value)
      || (!bound->value.is_int && !isfinite (bound->value.d)))
    {
      schema_error (error, pointer, _("expected a finite number"));
      return FALSE;
    }
  bound->set = TRUE;
  text = number_to_string (&bound->value);
  bound->expected = g_strdup_printf ("%s %s", op, text);
  return TRUE;
}

/* A non-negative integer; integral doubles are accepted, huge ones clamped. */
static gboolean
compile_count (Count       *count,
               JsonNode    *value,
               GString     *pointer,
               GError     **error)
{
  Number number;

  if (!number_from_node (value, &number))
    goto fail;

  if (number.is_int)
    count->value = number.i;
  else if (double_is_integral (number.d) && number.d >= 0)
    count->value = number.d >= 9223372036854775807.0 ? G_MAXINT64 : (gint64) number.d;
  else
    goto fail;

  if (count->value < 0)
    goto fail;

  count->text = g_strdup_printf ("%" G_GINT64_FORMAT, count->value);
  return TRUE;

fail:
  schema_error (error, pointer, _("expected a non-negative integer"));
  return FALSE;
}

static gboolean
compile_pattern (SchemaNode  *node,
                 JsonNode    *value,
                 GString     *pointer,
                 GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (!is_string (value))
    {
      schema_error (error, pointer, _("expected a regular expression (a string)"));
      return FALSE;
    }

  node->pattern_source = node_get_string (value);
  /* GRegex (PCRE2) reads past the end of invalid UTF-8. */
  if (!g_utf8_validate (node->pattern_source, -1, NULL))
    {
      schema_error (error, pointer, _("the regular expression is not valid UTF-8"));
      return FALSE;
    }
  /* ECMA-262 `$` does not match before a trailing newline. */
  node->pattern = g_regex_new (node->pattern_source, G_REGEX_DOLLAR_ENDONLY, 0, &local_error);
  if (node->pattern == NULL)
    {
      schema_error (error, pointer, _("invalid regular expression: %s"), local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Checks one keyword; @pointer already names it. */
static gboolean
compile_keyword (SchemaNode  *node,
                 const char  *keyword,
                 JsonNode    *value,
                 GString     *pointer,
                 guint        depth,
                 GError     **error)
{
  if (strcmp (keyword, "type") == 0)
    return compile_type (node, value, pointer, error);

  if (strcmp (keyword, "properties") == 0)
    return compile_properties (node, value, pointer, depth, error);

  if (strcmp (keyword, "required") == 0)
    return compile_required (node, value, pointer, error);

  if (strcmp (keyword, "additionalProperties") == 0)
    {
      if (is_boolean (value))
        {
          node->additional_forbidden = !json_node_get_boolean (value);
          return TRUE;
        }
      node->additional = compile_node (value, pointer, depth + 1, error);
      return node->additional != NULL;
    }

  if (strcmp (keyword, "items") == 0)
    {
      if (JSON_NODE_HOLDS_ARRAY (value))
        {
          schema_error (error, pointer,
                        _("the array form of items is not supported; use a single schema"));
          return FALSE;
        }
      node->items = compile_node (value, pointer, depth + 1, error);
      return node->items != NULL;
    }

  if (strcmp (keyword, "anyOf") == 0)
    {
      node->any_of = compile_schema_list (value, pointer, depth, error);
      return node->any_of != NULL;
    }

  if (strcmp (keyword, "oneOf") == 0)
    {
      node->one_of = compile_schema_list (value, pointer, depth, error);
      return node->one_of != NULL;
    }

  if (strcmp (keyword, "enum") == 0)
    {
      if (!JSON_NODE_HOLDS_ARRAY (value) || array_length (json_node_get_array (value)) == 0)
        {
          schema_error (error, pointer, _("expected a non-empty array of values"));
          return FALSE;
        }
      node->enum_node = value;
      node->enum_expected = stw_json_to_string (value, NULL);
      return TRUE;
    }

  if (strcmp (keyword, "const") == 0)
    {
      node->const_node = value;
      node->const_expected = stw_json_to_string (value, NULL);
      return TRUE;
    }

  if (strcmp (keyword, "minimum") == 0)
    return compile_bound (&node->minimum, ">=", value, pointer, error);
  if (strcmp (keyword, "exclusiveMinimum") == 0)
    return compile_bound (&node->exclusive_minimum, ">", value, pointer, error);
  if (strcmp (keyword, "maximum") == 0)
    return compile_bound (&node->maximum, "<=", value, pointer, error);
  if (strcmp (keyword, "exclusiveMaximum") == 0)
    return compile_bound (&node->exclusive_maximum, "<", value, pointer, error);

  if (strcmp (keyword, "minLength") == 0)
    return compile_count (&node->min_length, value, pointer, error);
  if (strcmp (keyword, "maxLength") == 0)
    return compile_count (&node->max_length, value, pointer, error);
  if (strcmp (keyword, "minItems") == 0)
    return compile_count (&node->min_items, value, pointer, error);
  if (strcmp (keyword, "maxItems") == 0)
    return compile_count (&node->max_items, value, pointer, error);

  if (strcmp (keyword, "pattern") == 0)
    return compile_pattern (node, value, pointer, error);

  if (strcmp (keyword, "default") == 0)
    {
      node->default_value = value;
      return TRUE;
    }

  /* Annotations: checked for shape, otherwise ignored. */
  if (strcmp (keyword, "description") == 0
      || strcmp (keyword, "title") == 0
      || strcmp (keyword, "$schema") == 0
      || strcmp (keyword, "$comment") == 0
      || strcmp (keyword, "format") == 0)
    {
      if (!is_string (value))
        {
          schema_error (error, pointer, _("expected a string"));
          return FALSE;
        }
      return TRUE;
    }

  if (strcmp (keyword, "examples") == 0)
    {
      if (!JSON_NODE_HOLDS_ARRAY (value))
        {
          schema_error (error, pointer, _("expected an array"));
          return FALSE;
        }
      return TRUE;
    }

  if (strcmp (keyword, "deprecated") == 0
      || strcmp (keyword, "readOnly") == 0
      || strcmp (keyword, "writeOnly") == 0)
    {
      if (!is_boolean (value))
        {
          schema_error (error, pointer, _("expected a boolean"));
          return FALSE;
        }
      return TRUE;
    }

  /* Extension annotations (OpenAPI's convention), e.g. a plugin's
   * “x-stagewright-safe”: they do not constrain anything. */
  if (g_str_has_prefix (keyword, "x-"))
    return TRUE;

  schema_error (error, pointer, _("unknown or unsupported keyword “%s”"), keyword);
  return FALSE;
}

/* FALSE when no number lies between @lower and @upper. */
static gboolean
bounds_overlap (const Bound *lower,
                gboolean     lower_exclusive,
                const Bound *upper,
                gboolean     upper_exclusive)
{
  int c;

  if (!lower->set || !upper->set)
    return TRUE;
  c = number_compare (&lower->value, &upper->value);
  if (c > 0)
    return FALSE;
  if (c == 0 && (lower_exclusive || upper_exclusive))
    return FALSE;
  return TRUE;
}

static gboolean
check_consistency (SchemaNode  *node,
                   GString     *pointer,
                   GError     **error)
{
  struct {
    const Bound *lower;
    gboolean     lower_exclusive;
    const char  *lower_name;
    const Bound *upper;
    gboolean     upper_exclusive;
    const char  *upper_name;
  } pairs[] = {
    { &node->minimum, FALSE, "minimum", &node->maximum, FALSE, "maximum" },
    { &node->minimum, FALSE, "minimum", &node->exclusive_maximum, TRUE, "exclusiveMaximum" },
    { &node->exclusive_minimum, TRUE, "exclusiveMinimum", &node->maximum, FALSE, "maximum" },
    { &node->exclusive_minimum, TRUE, "exclusiveMinimum", &node->exclusive_maximum, TRUE, "exclusiveMaximum" },
  };
  struct {
    const Count *min;
    const char  *min_name;
    const Count *max;
    const char  *max_name;
  } counts[] = {
    { &node->min_length, "minLength", &node->max_length, "maxLength" },
    { &node->min_items, "minItems", &node->max_items, "maxItems" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    if (!bounds_overlap (pairs[i].lower, pairs[i].lower_exclusive,
                         pairs[i].upper, pairs[i].upper_exclusive))
      {
        pointer_push (pointer, pairs[i].lower_name);
        schema_error (error, pointer, _("%s (%s) leaves no room below %s (%s)"),
                      pairs[i].lower_name, pairs[i].lower->expected,
                      pairs[i].upper_name, pairs[i].upper->expected);
        return FALSE;
      }

  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    if (counts[i].min->value >= 0 && counts[i].max->value >= 0
        && counts[i].min->value > counts[i].max->value)
      {
        pointer_push (pointer, counts[i].min_name);
        schema_error (error, pointer, _("%s (%s) is greater than %s (%s)"),
                      counts[i].min_name, counts[i].min->text,
                      counts[i].max_name, counts[i].max->text);
        return FALSE;
      }

  return TRUE;
}

static gboolean schema_node_check (SchemaNode *node,
                                   JsonNode   *instance,
                                   gboolean    int32_integers);

static SchemaNode *
compile_node (JsonNode  *json,
              GString   *pointer,
              guint      depth,
              GError   **error)
{
  g_autoptr(SchemaNode) node = NULL;
  g_autoptr(GList) members = NULL;
  JsonObject *object;

  if (depth > MAX_SCHEMA_DEPTH)
    {
      schema_error (error, pointer, _("subschemas nested deeper than %d levels"), MAX_SCHEMA_DEPTH);
      return NULL;
    }

  node = schema_node_new ();

  /* `true` accepts everything, `false` nothing. */
  if (is_boolean (json))
    {
      node->never = !json_node_get_boolean (json);
      node->type_desc = describe_types (node->never, 0);
      return g_steal_pointer (&node);
    }

  if (!JSON_NODE_HOLDS_OBJECT (json))
    {
      schema_error (error, pointer, _("expected a schema (an object or a boolean)"));
      return NULL;
    }

  object = json_node_get_object (json);
  if (object_size (object) > 0)
    members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *keyword = l->data;
      gsize len = pointer_push (pointer, keyword);

      if (!compile_keyword (node, keyword, json_object_get_member (object, keyword),
                            pointer, depth, error))
        return NULL;
      g_string_truncate (pointer, len);
    }

  if (!check_consistency (node, pointer, error))
    return NULL;

  node->type_desc = describe_types (FALSE, node->types);

  /* A default the schema itself rejects is a bug in the tool, not in the
   * agent's call: refuse it here rather than hand it to a handler. */
  if (node->default_value != NULL && !schema_node_check (node, node->default_value, FALSE))
    {
      pointer_push (pointer, "default");
      schema_error (error, pointer, _("the default does not satisfy its own schema"));
      return NULL;
    }

  return g_steal_pointer (&node);
}

/* Validation {{{1 */

typedef struct
{
  JsonArray *issues;      /* (nullable): NULL when only the verdict matters */
  GString   *path;        /* dotted path of the value being checked;
                           * NULL when issues are not collected */
  gboolean   overflow;    /* an issue was dropped for lack of room */
  gboolean   int32_integers;  /* tool arguments: see _stw_schema_validate_arguments() */
} Validation;

/* After a failure: whether to stop looking for more. */
static gboolean
validation_stop (const Validation *v)
{
  return v->issues == NULL || v->overflow;
}

/* Path segments are only tracked while issues are collected. */
static gsize
path_push (Validation *v,
           const char *segment)
{
  gsize len;

  if (v->issues == NULL)
    return 0;
  len = v->path->len;
  if (len > 0)
    g_string_append_c (v->path, '.');
  g_string_append (v->path, segment);
  return len;
}

static gsize
path_push_index (Validation *v,
                 guint       index)
{
  gsize len;

  if (v->issues == NULL)
    return 0;
  len = v->path->len;
  g_string_append_printf (v->path, len > 0 ? ".%u" : "%u", index);
  return len;
}

static void
path_pop (Validation *v,
          gsize       len)
{
  if (v->issues != NULL)
    g_string_truncate (v->path, len);
}

static JsonObject *add_issue (Validation *v,
                              const char *code,
                              const char *expected,
                              const char *format,
                              ...) G_GNUC_PRINTF (4, 5);

/* Records an issue at the current path. Returns it (to add members to),
 * or NULL when issues are not collected or there is no room left. */
static JsonObject *
add_issue (Validation *v,
           const char *code,
           const char *expected,
           const char *format,
           ...)
{
  g_autofree char *message = NULL;
  JsonObject *issue;
  va_list args;

  if (v->issues == NULL)
    return NULL;
  if (json_array_get_length (v->issues) >= MAX_ISSUES)
    {
      v->overflow = TRUE;
      return NULL;
    }

  issue = json_object_new ();
  json_object_set_string_member (issue, "field", v->path->str);
  json_object_set_string_member (issue, "code", code);
  if (expected != NULL)
    json_object_set_string_member (issue, "expected", expected);

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  json_object_set_string_member (issue, "message", message);

  json_array_add_object_element (v->issues, issue);
  return issue;
}

static gboolean validate_node (Validation *v,
                               SchemaNode *node,
                               JsonNode   *instance);

static gboolean
bound_accepts (const Bound  *bound,
               const Number *number,
               gboolean      lower,
               gboolean      exclusive)
{
  int c;

  if (!bound->set)
    return TRUE;
  c = number_compare (number, &bound->value);
  if (c == NUMBER_UNORDERED)
    return FALSE;
  if (lower)
    return exclusive ? c > 0 : c >= 0;
  return exclusive ? c < 0 : c <= 0;
}

static const Bound int32_minimum = { TRUE, { TRUE, G_MININT32, (double) G_MININT32 }, (char *) ">= -2147483648" };
static const Bound int32_maximum = { TRUE, { TRUE, G_MAXINT32, (double) G_MAXINT32 }, (char *) "<= 2147483647" };

static gboolean
validate_number (Validation *v,
                 SchemaNode *node,
                 JsonNode   *instance)
{
  const Bound *failed = NULL;
  gboolean valid = TRUE;
  Number number;

  number_from_node (instance, &number);

  if (!bound_accepts (&node->minimum, &number, TRUE, FALSE))
    failed = &node->minimum;
  else if (!bound_accepts (&node->exclusive_minimum, &number, TRUE, TRUE))
    failed = &node->exclusive_minimum;
  if (failed != NULL)
    {
      valid = FALSE;
      /* Translators: %s is a bound such as ">= 1" or "< 10" */
      add_issue (v, "too_small", failed->expected, _("Number must be %s"), failed->expected);
      if (validation_stop (v))
        return FALSE;
    }

  failed = NULL;
  if (!bound_accepts (&node->maximum, &number, FALSE, FALSE))
    failed = &node->maximum;
  else if (!bound_accepts (&node->exclusive_maximum, &number, FALSE, TRUE))
    failed = &node->exclusive_maximum;
  if (failed != NULL)
    {
      valid = FALSE;
      /* Translators: %s is a bound such as "<= 30000" or "< 10" */
      add_issue (v, "too_big", failed->expected, _("Number must be %s"), failed->expected);
      if (validation_stop (v))
        return FALSE;
    }

  /* Tool arguments: an integer without a declared bound is a 32-bit one. */
  if (v->int32_integers && (node->types & TYPE_INTEGER) && !(node->types & TYPE_NUMBER))
    {
      if (!node->minimum.set && !node->exclusive_minimum.set && !bound_accepts (&int32_minimum, &number, TRUE, FALSE))
        {
          valid = FALSE;
          add_issue (v, "too_small", int32_minimum.expected, _("Number must be %s"), int32_minimum.expected);
        }
      else if (!node->maximum.set && !node->exclusive_maximum.set &&
               !bound_accepts (&int32_maximum, &number, FALSE, FALSE))
        {
          valid = FALSE;
          add_issue (v, "too_big", int32_maximum.expected, _("Number must be %s"), int32_maximum.expected);
        }
    }

  return valid;
}

static gulong
count_for_plural (const Count *count)
{
  return (gulong) MIN ((guint64) count->value, (guint64) G_MAXULONG);
}

static gboolean
validate_string (Validation *v,
                 SchemaNode *node,
                 JsonNode   *instance)
{
  const char *str = node_get_string (instance);
  gboolean valid = TRUE;

  if (node->min_length.value >= 0 || node->max_length.value >= 0)
    {
      /* Code points, as JSON Schema counts; json-glib strings end at the
       * first NUL, so that is where counting ends too. */
      guint64 length = stw_json_utf8_length (str, strlen (str));

      if (node->min_length.value >= 0 && length < (guint64) node->min_length.value)
        {
          g_autofree char *expected = g_strdup_printf (">= %s", node->min_length.text);

          valid = FALSE;
          add_issue (v, "too_small", expected,
                     g_dngettext (GETTEXT_PACKAGE,
                                  "String must contain at least %s character",
                                  "String must contain at least %s characters",
                                  count_for_plural (&node->min_length)),
                     node->min_length.text);
          if (validation_stop (v))
            return FALSE;
        }

      if (node->max_length.value >= 0 && length > (guint64) node->max_length.value)
        {
          g_autofree char *expected = g_strdup_printf ("<= %s", node->max_length.text);

          valid = FALSE;
          add_issue (v, "too_big", expected,
                     g_dngettext (GETTEXT_PACKAGE,
                                  "String must contain at most %s character",
                                  "String must contain at most %s characters",
                                  count_for_plural (&node->max_length)),
                     node->max_length.text);
          if (validation_stop (v))
            return FALSE;
        }
    }

  if (node->pattern != NULL)
    {
      /* GRegex refuses invalid UTF-8; such a string matches no pattern. A
       * match error (backtracking limit) counts as a mismatch too. */
      gboolean matched = g_utf8_validate (str, -1, NULL)
                         && g_regex_match_full (node->pattern, str, -1, 0, 0, NULL, NULL);

      if (!matched)
        {
          valid = FALSE;
          add_issue (v, "invalid_format", node->pattern_source,
                     _("String must match the pattern “%s”"), node->pattern_source);
        }
    }

  return valid;
}

static gboolean
validate_array (Validation *v,
                SchemaNode *node,
                JsonNode   *instance)
{
  JsonArray *array = json_node_get_array (instance);
  guint n = array_length (array);
  gboolean valid = TRUE;

  if (node->min_items.value >= 0 && (guint64) n < (guint64) node->min_items.value)
    {
      g_autofree char *expected = g_strdup_printf (">= %s", node->min_items.text);

      valid = FALSE;
      add_issue (v, "too_small", expected,
                 g_dngettext (GETTEXT_PACKAGE,
                              "Array must contain at least %s item",
                              "Array must contain at least %s items",
                              count_for_plural (&node->min_items)),
                 node->min_items.text);
      if (validation_stop (v))
        return FALSE;
    }

  if (node->max_items.value >= 0 && (guint64) n > (guint64) node->max_items.value)
    {
      g_autofree char *expected = g_strdup_printf ("<= %s", node->max_items.text);

      valid = FALSE;
      add_issue (v, "too_big", expected,
                 g_dngettext (GETTEXT_PACKAGE,
                              "Array must contain at most %s item",
                              "Array must contain at most %s items",
                              count_for_plural (&node->max_items)),
                 node->max_items.text);
      if (validation_stop (v))
        return FALSE;
    }

  if (node->items != NULL)
    for (guint i = 0; i < n; i++)
      {
        gsize len = path_push_index (v, i);
        gboolean ok = validate_node (v, node->items, json_array_get_element (array, i));

        path_pop (v, len);
        if (!ok)
          {
            valid = FALSE;
            if (validation_stop (v))
              return FALSE;
          }
      }

  return valid;
}

static void
report_missing (Validation *v,
                const char *name,
                const char *expected)
{
  gsize len = path_push (v, name);

  add_issue (v, "invalid_type", expected, _("Required property “%s” is missing"), name);
  path_pop (v, len);
}

static gboolean
validate_object (Validation *v,
                 SchemaNode *node,
                 JsonNode   *instance)
{
  JsonObject *object = json_node_get_object (instance);
  gboolean valid = TRUE;

  /* Declared properties first, in schema order, missing ones included... */
  if (node->prop_names != NULL)
    for (guint i = 0; i < node->prop_names->len; i++)
      {
        const char *name = g_ptr_array_index (node->prop_names, i);
        SchemaNode *child = g_ptr_array_index (node->prop_schemas, i);
        JsonNode *member = object != NULL ? json_object_get_member (object, name) : NULL;
        gboolean ok = TRUE;

        if (member != NULL)
          {
            gsize len = path_push (v, name);

            ok = validate_node (v, child, member);
            path_pop (v, len);
          }
        else if (node->required_set != NULL && g_hash_table_contains (node->required_set, name))
          {
            ok = FALSE;
            report_missing (v, name, child->type_desc);
          }

        if (!ok)
          {
            valid = FALSE;
            if (validation_stop (v))
              return FALSE;
          }
      }

  /* ...then required names that have no schema, in `required` order... */
  if (node->required != NULL)
    for (guint i = 0; i < node->required->len; i++)
      {
        const char *name = g_ptr_array_index (node->required, i);

        if (node->props != NULL && g_hash_table_contains (node->props, name))
          continue;
        if (object != NULL && json_object_has_member (object, name))
          continue;

        valid = FALSE;
        report_missing (v, name, "value");
        if (validation_stop (v))
          return FALSE;
      }

  /* ...then undeclared members, in instance order. */
  if ((node->additional_forbidden || node->additional != NULL) && object_size (object) > 0)
    {
      g_autoptr(GList) members = json_object_get_members (object);

      for (const GList *l = members; l != NULL; l = l->next)
        {
          const char *name = l->data;
          gboolean ok;
          gsize len;

          if (node->props != NULL && g_hash_table_contains (node->props, name))
            continue;

          len = path_push (v, name);
          if (node->additional_forbidden)
            {
              ok = FALSE;
              add_issue (v, "unrecognized_keys", NULL, _("Unrecognized key “%s”"), name);
            }
          else
            ok = validate_node (v, node->additional, json_object_get_member (object, name));
          path_pop (v, len);

          if (!ok)
            {
              valid = FALSE;
              if (validation_stop (v))
                return FALSE;
            }
        }
    }

  return valid;
}

/* The verdict alone, for union branches and defaults. */
static gboolean
schema_node_check (SchemaNode *node,
                   JsonNode   *instance,
                   gboolean    int32_integers)
{
  Validation v = { NULL, NULL, FALSE, int32_integers };

  return validate_node (&v, node, instance);
}

static gboolean enum_contains (JsonNode *enum_node,
                               JsonNode *instance);

/* Whether @instance passes a branch's type, `const` and `enum`: the checks
 * that make the rest of a branch moot (zod's "not aborted"). */
static gboolean
branch_admits (const SchemaNode *branch,
               JsonNode         *instance,
               guint             types)
{
  if (branch->never)
    return FALSE;
  if (branch->types != 0 && (branch->types & types) == 0)
    return FALSE;
  if (branch->const_node != NULL && !json_equal (branch->const_node, instance))
    return FALSE;
  if (branch->enum_node != NULL && !enum_contains (branch->enum_node, instance))
    return FALSE;
  return TRUE;
}

/* "string | integer" when every branch has a type; NULL when some branch
 * accepts any type, as the list would then say nothing. */
static char *
describe_union (GPtrArray *branches)
{
  guint types = 0;

  for (guint i = 0; i < branches->len; i++)
    {
      const SchemaNode *branch = g_ptr_array_index (branches, i);

      if (branch->never)
        continue;
      if (branch->types == 0)
        return NULL;
      types |= branch->types;
    }
  return types != 0 ? describe_types (FALSE, types) : NULL;
}

static gboolean
validate_union (Validation *v,
                GPtrArray  *branches,
                gboolean    exactly_one,
                JsonNode   *instance,
                guint       types)
{
  g_autofree char *expected = NULL;
  SchemaNode *candidate = NULL;
  guint n_candidates = 0;
  guint matched = 0;
  JsonObject *issue;

  for (guint i = 0; i < branches->len; i++)
    if (schema_node_check (g_ptr_array_index (branches, i), instance, v->int32_integers))
      {
        matched++;
        if (!exactly_one)
          return TRUE;
      }

  if (matched == 1)
    return TRUE;
  if (v->issues == NULL)
    return FALSE;

  if (matched > 1)
    {
      issue = add_issue (v, "invalid_union", NULL,
                         _("Value matches %u alternatives, but exactly one is allowed"),
                         matched);
    }
  else
    {
      /* When only one branch accepts this kind of value, its own issues say
       * far more than "no alternative matched" (zod 4 does the same). */
      for (guint i = 0; i < branches->len; i++)
        if (branch_admits (g_ptr_array_index (branches, i), instance, types))
          {
            candidate = g_ptr_array_index (branches, i);
            n_candidates++;
          }
      if (n_candidates == 1)
        return validate_node (v, candidate, instance);

      expected = describe_union (branches);
      issue = add_issue (v, "invalid_union", expected,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "Value does not match the %u allowed alternative",
                                      "Value does not match any of the %u allowed alternatives",
                                      branches->len),
                         branches->len);
    }

  if (issue != NULL)
    {
      json_object_set_int_member (issue, "branches", branches->len);
      if (exactly_one)
        json_object_set_int_member (issue, "matched", matched);
    }
  return FALSE;
}

static gboolean
enum_contains (JsonNode *enum_node,
               JsonNode *instance)
{
  JsonArray *values = json_node_get_array (enum_node);
  guint n = array_length (values);

  for (guint i = 0; i < n; i++)
    if (json_equal (json_array_get_element (values, i), instance))
      return TRUE;
  return FALSE;
}

static gboolean
validate_node (Validation *v,
               SchemaNode *node,
               JsonNode   *instance)
{
  guint types = instance_types (instance);
  gboolean valid = TRUE;

  if (node->never)
    {
      add_issue (v, "invalid_type", "never", _("No value is allowed here"));
      return FALSE;
    }

  /* A value of the wrong type, or outside enum/const, fails alone: checking
   * its other keywords would only add noise. */
  if (node->types != 0 && (types & node->types) == 0)
    {
      /* Translators: both are JSON type names, such as "string" or
       * "integer | null"; they are not translated */
      add_issue (v, "invalid_type", node->type_desc, _("Expected %s, received %s"),
                 node->type_desc, instance_type_name (types));
      return FALSE;
    }

  if (node->const_node != NULL && !json_equal (node->const_node, instance))
    {
      add_issue (v, "invalid_value", node->const_expected,
                 _("Invalid value: expected %s"), node->const_expected);
      return FALSE;
    }

  if (node->enum_node != NULL && !enum_contains (node->enum_node, instance))
    {
      /* Translators: %s is a JSON array of the allowed values */
      add_issue (v, "invalid_value", node->enum_expected,
                 _("Invalid value: expected one of %s"), node->enum_expected);
      return FALSE;
    }

  if (types & TYPE_NUMBER)
    valid = validate_number (v, node, instance);
  else if (types & TYPE_STRING)
    valid = validate_string (v, node, instance);
  else if (types & TYPE_ARRAY)
    valid = validate_array (v, node, instance);
  else if (types & TYPE_OBJECT)
    valid = validate_object (v, node, instance);
  if (!valid && validation_stop (v))
    return FALSE;

  if (node->any_of != NULL && !validate_union (v, node->any_of, FALSE, instance, types))
    {
      valid = FALSE;
      if (validation_stop (v))
        return FALSE;
    }

  if (node->one_of != NULL && !validate_union (v, node->one_of, TRUE, instance, types))
    valid = FALSE;

  return valid;
}

/* Defaults {{{1 */

/* Fills in missing defaulted properties of @instance, a private mutable
 * copy; recursion follows the schema. */
static void
apply_defaults (SchemaNode *node,
                JsonNode   *instance)
{
  if (JSON_NODE_HOLDS_OBJECT (instance) && node->prop_names != NULL)
    {
      JsonObject *object = json_node_get_object (instance);

      for (guint i = 0; i < node->prop_names->len; i++)
        {
          const char *name = g_ptr_array_index (node->prop_names, i);
          SchemaNode *child = g_ptr_array_index (node->prop_schemas, i);
          JsonNode *member = json_object_get_member (object, name);

          if (member == NULL && child->default_value != NULL)
            {
              member = json_deep_copy (child->default_value);
              json_object_set_member (object, name, member);
            }
          /* A filled-in default gets its own nested defaults too. */
          if (member != NULL)
            apply_defaults (child, member);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (instance) && node->items != NULL)
    {
      JsonArray *array = json_node_get_array (instance);
      guint n = array_length (array);

      for (guint i = 0; i < n; i++)
        apply_defaults (node->items, json_array_get_element (array, i));
    }
}

/* Deferred schemas {{{1 */

/* Parses a deferred schema, and with @compile compiles it, once: whichever
 * thread comes first. */
static gboolean
deferred_ensure (StwSchema  *self,
                 gboolean    compile,
                 GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean ok = TRUE;

  if (compile ? g_atomic_pointer_get (&self->root) != NULL : g_atomic_pointer_get (&self->json) != NULL)
    return TRUE;

  G_LOCK (deferred);
  if (self->json == NULL)
    {
      JsonNode *json = stw_json_parse (self->source, -1, &local_error);

      if (json == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("Invalid schema: %s"), local_error->message);
          ok = FALSE;
        }
      else
        {
          json_node_seal (json);
          g_atomic_pointer_set (&self->json, json);
        }
    }
  if (ok && compile && self->root == NULL)
    {
      g_autoptr(GString) pointer = g_string_new ("#");
      SchemaNode *root = compile_node (self->json, pointer, 0, error);

      if (root == NULL)
        ok = FALSE;
      else
        g_atomic_pointer_set (&self->root, root);
    }
  G_UNLOCK (deferred);
  return ok;
}

/* Only the core tools defer their schemas, and a test compiles every one
 * of them (tests/test-core-schemas.c): failing here is a bug of ours. */
static SchemaNode *
schema_get_root (StwSchema *self)
{
  g_autoptr(GError) error = NULL;

  if (!deferred_ensure (self, TRUE, &error))
    g_error ("A core input schema is invalid: %s", error->message);
  return self->root;
}

static JsonNode *
schema_get_json (StwSchema *self)
{
  g_autoptr(GError) error = NULL;

  if (!deferred_ensure (self, FALSE, &error))
    g_error ("A core input schema is invalid: %s", error->message);
  return self->json;
}

/**
 * _stw_schema_new_deferred:
 * @json: a JSON Schema as JSON text, static: it must outlive the schema
 *
 * A schema that is parsed on first use (stw_schema_get_node()) and compiled
 * on first validation, so that a server that registers many tools does not
 * compile every schema at start. For schemas a test has checked (the core
 * tools'): a deferred schema that turns out invalid aborts.
 *
 * Returns: (transfer full): the schema
 */
StwSchema *
_stw_schema_new_deferred (const char *json)
{
  StwSchema *self;

  g_return_val_if_fail (json != NULL, NULL);

  self = g_new0 (StwSchema, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->source = json;
  return self;
}

/**
 * _stw_schema_check:
 * @self: a schema
 * @error: return location for a #GError
 *
 * Parses and compiles @self now if it was deferred, reporting what
 * stw_schema_new_from_string() would have reported.
 *
 * Returns: %TRUE when the schema is valid
 */
gboolean
_stw_schema_check (StwSchema  *self,
                   GError    **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return deferred_ensure (self, TRUE, error);
}

/**
 * _stw_schema_is_compiled:
 * @self: a schema
 *
 * Returns: whether @self has been compiled (always, unless it was deferred
 *   and nothing has validated against it yet)
 */
gboolean
_stw_schema_is_compiled (StwSchema *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return g_atomic_pointer_get (&self->root) != NULL;
}

/* Public API {{{1 */

/**
 * stw_schema_new:
 * @schema: a JSON Schema
 * @error: return location for a #GError
 *
 * Checks and compiles @schema. Every keyword must be one of the supported
 * subset (see #StwSchema) with a value of the right shape: a `pattern` must
 * compile, `minimum` must not exceed `maximum`, `enum` must not be empty,
 * every `default` must satisfy its own schema, and so on. Boolean schemas
 * (`true`, `false`) are accepted wherever a schema is. Keywords starting
 * with `x-` are annotations that constrain nothing (a plugin's
 * `x-stagewright-safe`, see [class@Stagewright.Plugin]).
 *
 * @schema is not modified. An immutable (sealed) node is shared; a mutable
 * one is copied, so later changes to it do not affect the schema.
 *
 * Returns: (transfer full) (nullable): the compiled schema, or %NULL with
 *   @error set to %G_IO_ERROR_INVALID_DATA, its message naming the JSON
 *   Pointer of the offending keyword (for example
 *   `#/properties/clip/properties/width/minimum`)
 *
 * Since: 1.0
 */
StwSchema *
stw_schema_new (JsonNode  *schema,
                GError   **error)
{
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GString) pointer = NULL;
  SchemaNode *root;
  StwSchema *self;

  g_return_val_if_fail (schema != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (json_node_is_immutable (schema))
    json = json_node_ref (schema);
  else
    {
      json = json_deep_copy (schema);
      json_node_seal (json);
    }

  pointer = g_string_new ("#");
  root = compile_node (json, pointer, 0, error);
  if (root == NULL)
    return NULL;

  self = g_new0 (StwSchema, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->json = g_steal_pointer (&json);
  self->root = root;
  return self;
}

/**
 * stw_schema_new_from_string:
 * @json: a JSON Schema as JSON text
 * @error: return location for a #GError
 *
 * Parses @json and compiles it like stw_schema_new().
 *
 * Returns: (transfer full) (nullable): the compiled schema, or %NULL with
 *   @error set to %G_IO_ERROR_INVALID_DATA when @json is not JSON or not a
 *   valid schema
 *
 * Since: 1.0
 */
StwSchema *
stw_schema_new_from_string (const char  *json,
                            GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (json != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  node = stw_json_parse (json, -1, &local_error);
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("Invalid schema: %s"), local_error->message);
      return NULL;
    }

  return stw_schema_new (node, error);
}

/**
 * stw_schema_ref:
 * @self: a #StwSchema
 *
 * Acquires a reference. Safe to call from any thread.
 *
 * Returns: (transfer full): @self
 *
 * Since: 1.0
 */
StwSchema *
stw_schema_ref (StwSchema *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * stw_schema_unref:
 * @self: (transfer full): a #StwSchema
 *
 * Releases a reference; the last one frees the schema.
 *
 * Since: 1.0
 */
void
stw_schema_unref (StwSchema *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_clear_pointer (&self->root, schema_node_free);
  g_clear_pointer (&self->json, json_node_unref);
  g_free (self);
}

/**
 * stw_schema_get_node:
 * @self: a #StwSchema
 *
 * Gets the schema JSON exactly as it was given, which is what `tools/list`
 * shows: an agent sees the very schema its arguments are validated against.
 *
 * Returns: (transfer none): the schema, an immutable (sealed) node
 *
 * Since: 1.0
 */
JsonNode *
stw_schema_get_node (StwSchema *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return schema_get_json (self);
}

static gboolean schema_validate (StwSchema  *self,
                                 JsonNode   *instance,
                                 gboolean    int32_integers,
                                 JsonArray **issues);

/**
 * stw_schema_validate:
 * @self: a #StwSchema
 * @instance: (nullable): the value to check; %NULL is checked as JSON `null`
 * @issues: (out) (optional) (nullable) (transfer full): return location for
 *   the issues, or %NULL
 *
 * Checks @instance against the schema. Defaults are not applied: call
 * stw_schema_apply_defaults() first when a missing defaulted property is to
 * be accepted.
 *
 * On failure @issues is set to an array of issue objects, shaped like zod 4
 * issues as `BAD_ARGUMENT` details carry them:
 *
 * - `field`: dotted path of the offending value (`clip.width`, `args.0`);
 *   the empty string for the instance itself
 * - `code`: `invalid_type` (wrong JSON type, or a missing required property,
 *   whose `expected` is the property's declared type or `value`),
 *   `unrecognized_keys` (one issue per key not allowed by
 *   `additionalProperties: false`; `field` is the key's path),
 *   `invalid_value` (`enum`/`const`; `expected` is the allowed value(s) as
 *   JSON), `too_small`/`too_big` (number bounds, string length in code
 *   points, array size; `expected` like `>= 1` or `< 10`), `invalid_format`
 *   (`pattern`; `expected` is the pattern), `invalid_union` (no `anyOf`
 *   branch matched, or not exactly one `oneOf` branch; with `branches`, the
 *   branch count, and for `oneOf` also `matched`)
 * - `expected`: present when meaningful, always a string
 * - `message`: one short translated sentence
 *
 * When a union fails and exactly one branch accepts the value's JSON type
 * (and `const`/`enum`, if it has them), that branch's own issues are
 * reported instead of `invalid_union`: `0` against
 * `anyOf: [{type: string}, {type: integer, minimum: 1}]` is `too_small`.
 *
 * Issues come in a deterministic order: for each object, its declared
 * properties in schema order (present ones checked, missing required ones
 * reported), then required names without a schema, then undeclared members
 * in instance order.
 *
 * At most 32 issues are returned. When there were more, the 32nd is replaced
 * by one with code `too_many_issues` and an empty `field`.
 *
 * Returns: %TRUE if @instance is valid (and @issues is set to %NULL)
 *
 * Since: 1.0
 */
gboolean
stw_schema_validate (StwSchema  *self,
                     JsonNode   *instance,
                     JsonArray **issues)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return schema_validate (self, instance, FALSE, issues);
}

/**
 * _stw_schema_validate_arguments:
 * @self: a tool's input schema
 * @instance: (nullable): the arguments of a call
 * @issues: (out) (optional) (transfer full): as stw_schema_validate()
 *
 * stw_schema_validate() with the dispatcher's rule for tool arguments: an
 * `integer` without a declared `minimum`/`maximum` is a 32-bit integer,
 * so a handler reading it into an int or a guint never narrows a value
 * that was validated (`{index: 4294967296}` is not index 0). A tool that
 * takes larger integers declares its bounds.
 *
 * Returns: %TRUE when @instance is valid
 */
gboolean
_stw_schema_validate_arguments (StwSchema  *self,
                                JsonNode   *instance,
                                JsonArray **issues)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return schema_validate (self, instance, TRUE, issues);
}

static gboolean
schema_validate (StwSchema  *self,
                 JsonNode   *instance,
                 gboolean    int32_integers,
                 JsonArray **issues)
{
  g_autoptr(JsonNode) null_node = NULL;
  g_autoptr(JsonArray) found = NULL;
  g_autoptr(GString) path = NULL;
  Validation v = { NULL, NULL, FALSE, int32_integers };
  SchemaNode *root = schema_get_root (self);

  if (issues != NULL)
    *issues = NULL;

  if (instance == NULL)
    instance = null_node = json_node_init_null (json_node_alloc ());

  if (issues == NULL)
    return validate_node (&v, root, instance);

  v.issues = found = json_array_new ();
  v.path = path = g_string_new (NULL);
  if (validate_node (&v, root, instance))
    return TRUE;

  if (v.overflow)
    {
      JsonObject *marker = json_object_new ();
      g_autofree char *message = g_strdup_printf (_("Too many issues; only the first %u are shown"),
                                                  MAX_ISSUES - 1);

      json_array_remove_element (found, MAX_ISSUES - 1);
      json_object_set_string_member (marker, "field", "");
      json_object_set_string_member (marker, "code", "too_many_issues");
      json_object_set_string_member (marker, "message", message);
      json_array_add_object_element (found, marker);
    }

  *issues = g_steal_pointer (&found);
  return FALSE;
}

/**
 * stw_schema_apply_defaults:
 * @self: a #StwSchema
 * @instance: (nullable): the value to complete, or %NULL when none was given
 *
 * Returns a deep copy of @instance in which every missing property that has
 * a `default` is filled in with a copy of it, recursively: into nested
 * objects that are present (or were just filled in) and into array items.
 * Defaults inside `anyOf`/`oneOf` branches are not applied. @instance is not
 * modified, and the copy shares nothing with it.
 *
 * When @instance is %NULL the result starts from the schema's own `default`,
 * or else from an empty object when the schema describes an object (its
 * `type` allows `object`, or it has no `type` but has `properties`).
 *
 * Returns: (transfer full) (nullable): the completed value; %NULL only when
 *   @instance is %NULL and the schema offers no starting value
 *
 * Since: 1.0
 */
JsonNode *
stw_schema_apply_defaults (StwSchema *self,
                           JsonNode  *instance)
{
  SchemaNode *root;
  JsonNode *result;

  g_return_val_if_fail (self != NULL, NULL);

  root = schema_get_root (self);
  if (instance != NULL)
    result = json_deep_copy (instance);
  else if (root->default_value != NULL)
    result = json_deep_copy (root->default_value);
  else if ((root->types & TYPE_OBJECT) != 0
           || (root->types == 0 && !root->never && root->prop_names != NULL))
    {
      result = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (result, json_object_new ());
    }
  else
    return NULL;

  apply_defaults (root, result);
  return result;
}
