/* fuzz-json.c: fuzz target for the strict JSON reader
 *
 * Oracle: what stw_json_parse() accepts, stw_json_to_string() writes as
 * JSON that it accepts again, and writing that again gives the same text
 * (a fixed point: non-finite numbers become null once, doubles are
 * written in their shortest exact form); nothing it accepts is invalid
 * UTF-8; nothing crashes, leaks or takes unbounded time or memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fuzz.h"
#include "stw-json-private.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) again = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text_again = NULL;
  g_autoptr(GError) error = NULL;
  gsize length = 0;

  fuzz_init ();

  /* A small bound reaches the size refusal often. */
  node = stw_json_parse_bounded ((const char *) data, (gssize) size,
                                 size % 2 ? STW_JSON_MAX_VALUES : 64, &error);
  if (node == NULL)
    {
      g_assert_nonnull (error);
      return 0;
    }

  /* UTF-8 is checked string by string, not in a pass of its own. */
  if (!g_utf8_validate_len ((const char *) data, size, NULL))
    g_error ("stw_json_parse accepted invalid UTF-8");

  text = stw_json_to_string (node, &length);
  again = stw_json_parse (text, (gssize) length, &error);
  if (again == NULL)
    g_error ("stw_json_parse refuses what stw_json_to_string wrote: %s", error->message);
  text_again = stw_json_to_string (again, NULL);
  if (g_strcmp0 (text, text_again) != 0)
    g_error ("Writing is not a fixed point: %s became %s", text, text_again);
  return 0;
}
