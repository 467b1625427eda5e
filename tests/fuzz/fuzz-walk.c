/* fuzz-walk.c: fuzz target for what a page's walker answers
 *
 * The snapshot's walker runs in a page (js/a11y.js) and answers rows of
 * tab-separated fields; names and values in them are the page's text. The
 * input is two such answers separated by a NUL byte (a snapshot and the
 * next one). Each is read into entries, given refs, rendered as text and
 * JSON, and the second is diffed against the first. Nothing may crash or
 * leak, every text line is one entry (no raw newline inside it), and no
 * ref is given to two elements.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "stw-refs-private.h"
#include "stw-snapshot-private.h"

static GPtrArray *
read_walk (const char *rows,
           gsize       length)
{
  g_autoptr(JsonObject) walk = json_object_new ();
  g_autoptr(JsonArray) contexts = json_array_new ();
  g_autofree char *text = g_strndup (rows, length);

  json_array_add_string_element (contexts, "");
  json_array_add_string_element (contexts, "main>form");
  json_array_add_string_element (contexts, "list>listitem");
  json_object_set_string_member (walk, "rows", text);
  json_object_set_array_member (walk, "contexts", json_array_ref (contexts));
  return _stw_snap_entries_from_walk (walk, "s1", 7, 0);
}

/* A ref names one element: entries that share a ref share a key (a walk
 * may list an element twice; it keeps one ref). */
static void
check_refs_unique (GPtrArray *entries)
{
  g_autoptr(GHashTable) keys = g_hash_table_new (NULL, NULL);   /* ref -> entry */

  for (guint i = 0; i < entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (entries, i);
      StwSnapEntry *other;

      if (entry->ref == 0)
        continue;
      other = g_hash_table_lookup (keys, GUINT_TO_POINTER (entry->ref));
      if (other != NULL)
        g_assert_cmpint (other->key, ==, entry->key);
      else
        g_hash_table_insert (keys, GUINT_TO_POINTER (entry->ref), entry);
    }
}

static void
check_text (GPtrArray *entries)
{
  g_autofree char *text = _stw_snapshot_render_text ("t", "u", 800, 600, entries);
  guint lines = 1;

  for (const char *p = text; *p != '\0'; p++)
    lines += *p == '\n';
  /* A header line, then at most one line per entry. */
  g_assert_cmpuint (lines, <=, entries->len + 2);
  for (guint i = 0; i < entries->len; i++)
    {
      g_autofree char *line = _stw_snapshot_entry_line (g_ptr_array_index (entries, i));
      g_autoptr(JsonObject) json = _stw_snapshot_entry_json (g_ptr_array_index (entries, i));

      g_assert_null (strchr (line, '\n'));
      g_assert_nonnull (json);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;
  const char *nul = memchr (data, '\0', size);
  StwRefTable *refs = _stw_ref_table_new ();
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;
  g_autoptr(GHashTable) alive = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(JsonObject) diff = NULL;
  g_autofree char *diff_text = NULL;
  gboolean truncated = FALSE;

  fuzz_init ();

  first = read_walk (text, nul ? (gsize) (nul - text) : size);
  second = read_walk (nul ? nul + 1 : "", nul ? size - (gsize) (nul - text) - 1 : 0);

  _stw_snapshot_reconcile (refs, "s1", 7, first, alive, FALSE);
  check_refs_unique (first);
  check_text (first);

  /* The second walk: only its own keys are alive. */
  for (guint i = 0; i < second->len; i++)
    {
      gint64 *key = g_new (gint64, 1);

      *key = ((StwSnapEntry *) g_ptr_array_index (second, i))->key;
      g_hash_table_add (alive, key);
    }
  _stw_snapshot_reconcile (refs, "s1", 7, second, alive, TRUE);
  check_refs_unique (second);
  _stw_snapshot_mark_changed (first, second);
  check_text (second);
  diff = _stw_snapshot_diff (first, second, STW_DIFF_FORMAT_COMPACT, 50, &diff_text, &truncated);
  g_assert_nonnull (diff);

  _stw_ref_table_free (refs);
  return 0;
}
