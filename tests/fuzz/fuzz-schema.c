/* fuzz-schema.c: fuzz target for the JSON Schema validator
 *
 * The input is a schema and an instance separated by a NUL byte; without
 * one, the input is an instance checked against a tool-like schema. Every
 * schema StwSchema accepts must validate any instance without crashing,
 * and an instance it calls valid has its defaults applied.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "stagewright.h"
#include "stw-json-private.h"

static const char default_schema[] =
  "{\"type\":\"object\",\"properties\":{"
  "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,\"pattern\":\"^[a-z_]+$\"},"
  "\"count\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000,\"default\":3},"
  "\"ratio\":{\"type\":\"number\",\"exclusiveMinimum\":0},"
  "\"mode\":{\"enum\":[\"fast\",\"slow\",null]},"
  "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":0,\"maxItems\":8},"
  "\"target\":{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"object\",\"required\":[\"ref\"],"
  "\"properties\":{\"ref\":{\"type\":\"integer\"}}}]},"
  "\"flag\":{\"type\":\"boolean\",\"default\":false}},"
  "\"required\":[\"name\"],\"additionalProperties\":false}";

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;
  const char *nul = memchr (data, '\0', size);
  g_autoptr(JsonNode) schema_node = NULL;
  g_autoptr(JsonNode) instance = NULL;
  g_autoptr(StwSchema) schema = NULL;
  g_autoptr(JsonArray) issues = NULL;
  const char *instance_text = text;
  gsize instance_length = size;

  fuzz_init ();

  if (nul != NULL)
    {
      schema_node = stw_json_parse (text, (gssize) (nul - text), NULL);
      instance_text = nul + 1;
      instance_length = size - (gsize) (nul - text) - 1;
    }
  else
    schema_node = stw_json_parse (default_schema, -1, NULL);

  if (schema_node == NULL)
    return 0;
  schema = stw_schema_new (schema_node, NULL);
  if (schema == NULL)
    return 0;

  instance = stw_json_parse (instance_text, (gssize) instance_length, NULL);
  if (instance == NULL)
    return 0;

  if (stw_schema_validate (schema, instance, &issues))
    {
      g_autoptr(JsonNode) with_defaults = stw_schema_apply_defaults (schema, instance);
      g_assert_nonnull (with_defaults);
    }
  else if (issues != NULL)
    g_assert_cmpuint (json_array_get_length (issues), >, 0);
  return 0;
}
