/* test-refs.c: property tests of the ref table, the reconciliation of
 * snapshot entries with it, and the text renderer
 *
 * A simulated surface: a list of elements (keys never reused, as in the
 * page) mutated at random — insert, remove, rename, reorder, replace with
 * an equal one, reload — then reconciled the way a snapshot does it. The
 * invariants of docs/page-ops.md must hold after every step.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-snapshot-private.h"

#define SURFACE "s1"

typedef struct
{
  gint64  key;
  char   *role;
  char   *name;
} Element;

typedef struct
{
  GRand       *rand;
  StwRefTable *refs;
  GPtrArray   *elements;    /* Element *, in document order */
  gint64       next_key;
  gint64       world;
  GHashTable  *ref_owner;   /* ref -> "world key" it was ever given to, first binding */
} Sim;

static const char * const ROLES[] = { "button", "link", "textbox", "heading", "checkbox", "navigation" };
static const char * const NAMES[] = { "Save", "Delete", "Open", "Close", "Save as", "Name", "" };

static void
element_free (Element *element)
{
  g_free (element->role);
  g_free (element->name);
  g_free (element);
}

static Element *
element_new (Sim *sim)
{
  Element *element = g_new0 (Element, 1);

  element->key = sim->next_key++;
  element->role = g_strdup (ROLES[g_rand_int_range (sim->rand, 0, G_N_ELEMENTS (ROLES))]);
  element->name = g_strdup (NAMES[g_rand_int_range (sim->rand, 0, G_N_ELEMENTS (NAMES))]);
  return element;
}

static GPtrArray *
entries_of (Sim *sim)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);

  for (guint i = 0; i < sim->elements->len; i++)
    {
      Element *element = g_ptr_array_index (sim->elements, i);
      StwSnapEntry *entry = _stw_snap_entry_new ();

      entry->surface_id = g_strdup (SURFACE);
      entry->world_id = sim->world;
      entry->key = element->key;
      entry->role = g_strdup (element->role);
      entry->name = g_strdup (element->name);
      entry->fingerprint = g_strdup_printf ("%s|%s|main", element->role, element->name);
      if (!g_str_equal (element->role, "navigation"))
        entry->flags |= STW_SNAP_REFFED;
      if (g_str_equal (element->role, "button") || g_str_equal (element->role, "link"))
        entry->flags |= STW_SNAP_INTERACTIVE;
      g_ptr_array_add (entries, entry);
    }
  return entries;
}

static void
mutate (Sim *sim)
{
  guint n = sim->elements->len;
  int what = g_rand_int_range (sim->rand, 0, 7);
  guint at = n > 0 ? (guint) g_rand_int_range (sim->rand, 0, (gint32) n) : 0;

  switch (what)
    {
    case 0:   /* insert */
      g_ptr_array_insert (sim->elements, (gint) (n > 0 ? at : 0), element_new (sim));
      break;
    case 1:   /* remove */
      if (n > 0)
        g_ptr_array_remove_index (sim->elements, at);
      break;
    case 2:   /* rename */
      if (n > 0)
        {
          Element *element = g_ptr_array_index (sim->elements, at);
          g_free (element->name);
          element->name = g_strdup (NAMES[g_rand_int_range (sim->rand, 0, G_N_ELEMENTS (NAMES))]);
        }
      break;
    case 3:   /* reorder */
      if (n > 1)
        {
          gpointer element = g_ptr_array_steal_index (sim->elements, at);
          g_ptr_array_insert (sim->elements, g_rand_int_range (sim->rand, 0, (gint32) n - 1), element);
        }
      break;
    case 4:   /* replace with an equal node (a re-render) */
      if (n > 0)
        {
          Element *old = g_ptr_array_index (sim->elements, at);
          Element *copy = g_new0 (Element, 1);

          copy->key = sim->next_key++;
          copy->role = g_strdup (old->role);
          copy->name = g_strdup (old->name);
          sim->elements->pdata[at] = copy;
          element_free (old);
        }
      break;
    case 5:   /* reload: a new world, new keys */
      if (g_rand_int_range (sim->rand, 0, 8) == 0)
        {
          sim->world++;
          for (guint i = 0; i < n; i++)
            ((Element *) g_ptr_array_index (sim->elements, i))->key = sim->next_key++;
        }
      break;
    default:  /* nothing changed */
      break;
    }
}

static GHashTable *
alive_keys (Sim *sim)
{
  GHashTable *alive = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  for (guint i = 0; i < sim->elements->len; i++)
    {
      gint64 *key = g_new (gint64, 1);
      *key = ((Element *) g_ptr_array_index (sim->elements, i))->key;
      g_hash_table_add (alive, key);
    }
  return alive;
}

static void
check_invariants (Sim       *sim,
                  GPtrArray *entries,
                  GPtrArray *previous,
                  guint      max_ref_before)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (entries, i);
      const StwRef *ref;

      /* Every entry that should have a ref has one, and no other does. */
      if (entry->flags & STW_SNAP_REFFED)
        g_assert_cmpuint (entry->ref, >, 0);
      else
        {
          g_assert_cmpuint (entry->ref, ==, 0);
          continue;
        }
      /* Unique. */
      g_assert_false (g_hash_table_contains (seen, GUINT_TO_POINTER (entry->ref)));
      g_hash_table_add (seen, GUINT_TO_POINTER (entry->ref));
      /* The table agrees, and the ref is live. */
      ref = _stw_ref_table_lookup (sim->refs, entry->ref);
      g_assert_nonnull (ref);
      g_assert_false (ref->gone);
      g_assert_cmpint (ref->key, ==, entry->key);
      g_assert_cmpint (ref->world_id, ==, entry->world_id);
      g_assert_cmpuint (_stw_ref_table_find (sim->refs, SURFACE, entry->world_id, entry->key), ==, entry->ref);
      /* A ref new to this snapshot is a number never given before, or an
       * old ref that moved to an element with its fingerprint. */
      if (entry->ref > max_ref_before)
        continue;
      g_assert_cmpstr (ref->fingerprint, ==, entry->fingerprint);
    }

  /* A ref of the previous snapshot whose element is still listed names
   * that same element; one whose element went is gone or moved to an
   * element with its fingerprint. */
  for (guint i = 0; previous != NULL && i < previous->len; i++)
    {
      StwSnapEntry *before = g_ptr_array_index (previous, i);
      const StwRef *ref;
      gboolean still_there = FALSE;

      if (before->ref == 0)
        continue;
      ref = _stw_ref_table_lookup (sim->refs, before->ref);
      for (guint j = 0; j < entries->len; j++)
        {
          StwSnapEntry *entry = g_ptr_array_index (entries, j);
          if (entry->key == before->key && entry->world_id == before->world_id)
            {
              still_there = TRUE;
              g_assert_cmpuint (entry->ref, ==, before->ref);
            }
        }
      if (!still_there && !ref->gone)
        g_assert_cmpstr (ref->fingerprint, ==, before->fingerprint);
      /* A gone ref is refused: no element of the table has it. */
      if (ref->gone)
        {
          for (guint j = 0; j < entries->len; j++)
            g_assert_cmpuint (((StwSnapEntry *) g_ptr_array_index (entries, j))->ref, !=, before->ref);
        }
    }
}

static void
check_text (GPtrArray *entries)
{
  g_autofree char *text = _stw_snapshot_render_text ("T\nitle", "u\"rl", 800, 600, entries);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint folded = 0;

  for (guint i = 0; i < entries->len; i++)
    if (((StwSnapEntry *) g_ptr_array_index (entries, i))->flags & STW_SNAP_IN_SELECT)
      folded++;
  /* A header, then one line per entry (options ride on their select's). */
  g_assert_cmpuint (g_strv_length (lines), ==, entries->len + 1 - folded);
  g_assert_true (g_str_has_prefix (lines[0], "page \"T\\nitle\" url=\"u\\\"rl\" viewport=800x600"));
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_null (strchr (text, '\r'));
  g_assert_null (strstr (text, "\xe2\x80\xa8"));
  for (guint i = 0; i < entries->len; i++)
    {
      StwSnapEntry *entry = g_ptr_array_index (entries, i);
      g_autofree char *mark = g_strdup_printf ("[%u]", entry->ref);

      if (entry->ref != 0)
        g_assert_nonnull (strstr (text, mark));
    }
}

static void
test_reconcile_fuzz (void)
{
  for (guint seed = 1; seed <= 40; seed++)
    {
      Sim sim = { 0 };
      g_autoptr(GPtrArray) previous = NULL;
      guint max_ref = 0;

      sim.rand = g_rand_new_with_seed (seed);
      sim.refs = _stw_ref_table_new ();
      sim.elements = g_ptr_array_new_with_free_func ((GDestroyNotify) element_free);
      sim.next_key = 1;
      sim.world = 1;
      for (guint i = 0; i < 12; i++)
        g_ptr_array_add (sim.elements, element_new (&sim));

      for (guint step = 0; step < 120; step++)
        {
          g_autoptr(GPtrArray) entries = NULL;
          g_autoptr(GHashTable) alive = NULL;
          guint mutations = (guint) g_rand_int_range (sim.rand, 0, 4);

          for (guint m = 0; m < mutations; m++)
            mutate (&sim);
          entries = entries_of (&sim);
          alive = alive_keys (&sim);
          _stw_snapshot_reconcile (sim.refs, SURFACE, sim.world, entries, alive, FALSE);
          check_invariants (&sim, entries, previous, max_ref);
          check_text (entries);
          for (guint i = 0; i < entries->len; i++)
            max_ref = MAX (max_ref, ((StwSnapEntry *) g_ptr_array_index (entries, i))->ref);
          g_clear_pointer (&previous, g_ptr_array_unref);
          previous = g_steal_pointer (&entries);
        }

      g_ptr_array_unref (sim.elements);
      _stw_ref_table_free (sim.refs);
      g_rand_free (sim.rand);
    }
}

/* The rules by example: a replaced node keeps its ref when it is the only
 * candidate; two candidates, or two refs for one, and the ref is gone. */
static void
test_reconcile_rules (void)
{
  StwRefTable *refs = _stw_ref_table_new ();
  g_autoptr(GHashTable) alive = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GPtrArray) first = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);
  g_autoptr(GPtrArray) second = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);
  g_autoptr(GPtrArray) third = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);
  const char *fps[] = { "button|Save|", "button|Open|", "button|Open|" };
  guint save, open_a, open_b;

  for (guint i = 0; i < 3; i++)
    {
      StwSnapEntry *entry = _stw_snap_entry_new ();
      entry->surface_id = g_strdup (SURFACE);
      entry->world_id = 1;
      entry->key = i + 1;
      entry->flags = STW_SNAP_REFFED | STW_SNAP_INTERACTIVE;
      entry->role = g_strdup ("button");
      entry->name = g_strdup (i == 0 ? "Save" : "Open");
      entry->fingerprint = g_strdup (fps[i]);
      g_ptr_array_add (first, entry);
    }
  _stw_snapshot_reconcile (refs, SURFACE, 1, first, NULL, FALSE);
  save = ((StwSnapEntry *) first->pdata[0])->ref;
  open_a = ((StwSnapEntry *) first->pdata[1])->ref;
  open_b = ((StwSnapEntry *) first->pdata[2])->ref;
  g_assert_cmpuint (save, ==, 1);
  g_assert_cmpuint (open_a, ==, 2);
  g_assert_cmpuint (open_b, ==, 3);

  /* Every element replaced by an equal one (keys 4, 5, 6). */
  for (guint i = 0; i < 3; i++)
    {
      StwSnapEntry *entry = _stw_snap_entry_new ();
      entry->surface_id = g_strdup (SURFACE);
      entry->world_id = 1;
      entry->key = i + 4;
      entry->flags = STW_SNAP_REFFED | STW_SNAP_INTERACTIVE;
      entry->role = g_strdup ("button");
      entry->name = g_strdup (i == 0 ? "Save" : "Open");
      entry->fingerprint = g_strdup (fps[i]);
      g_ptr_array_add (second, entry);
      {
        gint64 *key = g_new (gint64, 1);
        *key = entry->key;
        g_hash_table_add (alive, key);
      }
    }
  _stw_snapshot_reconcile (refs, SURFACE, 1, second, alive, FALSE);
  /* The one Save moved; the two Opens are ambiguous: gone, new refs. */
  g_assert_cmpuint (((StwSnapEntry *) second->pdata[0])->ref, ==, save);
  g_assert_true (_stw_ref_table_lookup (refs, open_a)->gone);
  g_assert_true (_stw_ref_table_lookup (refs, open_b)->gone);
  g_assert_cmpuint (((StwSnapEntry *) second->pdata[1])->ref, ==, 4);
  g_assert_cmpuint (((StwSnapEntry *) second->pdata[2])->ref, ==, 5);

  /* An element that is still there but not listed keeps its ref. */
  {
    StwSnapEntry *entry = _stw_snap_entry_new ();
    entry->surface_id = g_strdup (SURFACE);
    entry->world_id = 1;
    entry->key = 4;
    entry->flags = STW_SNAP_REFFED;
    entry->role = g_strdup ("button");
    entry->name = g_strdup ("Save");
    entry->fingerprint = g_strdup (fps[0]);
    g_ptr_array_add (third, entry);
  }
  _stw_snapshot_reconcile (refs, SURFACE, 1, third, alive, FALSE);
  g_assert_cmpuint (((StwSnapEntry *) third->pdata[0])->ref, ==, save);
  g_assert_false (_stw_ref_table_lookup (refs, 4)->gone);
  g_assert_false (_stw_ref_table_lookup (refs, 5)->gone);

  _stw_ref_table_free (refs);
}

/* A surface's new world with the id an earlier document's world had
 * (another renderer process): the old refs no longer name those keys,
 * and a new element with the same key gets a new ref. */
static void
test_forget_world (void)
{
  StwRefTable *refs = _stw_ref_table_new ();
  guint old, other, fresh;

  old = _stw_ref_table_bind (refs, SURFACE, 3, 1, "button|One|", "button", "One");
  other = _stw_ref_table_bind (refs, "other-surface", 3, 1, "button|One|", "button", "One");
  g_assert_cmpuint (_stw_ref_table_find (refs, SURFACE, 3, 1), ==, old);

  _stw_ref_table_forget_world (refs, SURFACE, 3);
  g_assert_cmpuint (_stw_ref_table_find (refs, SURFACE, 3, 1), ==, 0);
  g_assert_cmpint (_stw_ref_table_lookup (refs, old)->world_id, ==, 0);
  g_assert_false (_stw_ref_table_lookup (refs, old)->gone);
  /* Another surface's world 3 is another world. */
  g_assert_cmpuint (_stw_ref_table_find (refs, "other-surface", 3, 1), ==, other);

  fresh = _stw_ref_table_bind (refs, SURFACE, 3, 1, "button|Delete everything|", "button", "Delete everything");
  g_assert_cmpuint (fresh, !=, old);
  g_assert_cmpstr (_stw_ref_table_lookup (refs, old)->name, ==, "One");
  _stw_ref_table_free (refs);
}

static void
test_text_lines (void)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);
  g_autoptr(GString) long_name = g_string_new (NULL);
  g_autofree char *text = NULL;
  StwSnapEntry *entry;

  for (guint i = 0; i < 30; i++)
    g_string_append (long_name, "abcd ");
  entry = _stw_snap_entry_new ();
  entry->role = g_strdup ("button");
  entry->name = g_strdup ("Line one\nline two\u2028three");
  entry->fingerprint = g_strdup ("");
  entry->ref = 7;
  entry->flags = STW_SNAP_DISABLED | STW_SNAP_CHECKABLE;
  g_ptr_array_add (entries, entry);
  entry = _stw_snap_entry_new ();
  entry->role = g_strdup ("combobox");
  entry->name = g_strdup ("Plan");
  entry->value = g_strdup ("Free");
  entry->fingerprint = g_strdup ("");
  entry->ref = 8;
  entry->flags = STW_SNAP_EXPANDABLE;
  g_ptr_array_add (entries, entry);
  entry = _stw_snap_entry_new ();
  entry->role = g_strdup ("option");
  entry->name = g_strdup ("Free");
  entry->value = g_strdup ("free");
  entry->fingerprint = g_strdup ("");
  entry->ref = 9;
  entry->flags = STW_SNAP_IN_SELECT | STW_SNAP_SELECTED;
  g_ptr_array_add (entries, entry);
  entry = _stw_snap_entry_new ();
  entry->role = g_strdup ("heading");
  entry->name = g_strdup (long_name->str);
  entry->fingerprint = g_strdup ("");
  entry->level = 2;
  entry->recently_changed = TRUE;
  g_ptr_array_add (entries, entry);

  text = _stw_snapshot_render_text ("Title", "about:blank", 10, 20, entries);
  g_assert_cmpstr (text, ==,
                   "page \"Title\" url=\"about:blank\" viewport=10x20 entries=4\n"
                   "[7] button \"Line one\\nline two three\" disabled\n"
                   "[8] combobox \"Plan\" value=\"Free\" options: [9]\"Free\"=\"free\"\n"
                   "~[-] heading \"abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd …(150 chars)\" level=2");
}

/* The walker's lines (js/a11y.js `row`): fields, escapes, absent values. */
static void
test_walk_rows (void)
{
  g_autoptr(JsonNode) node = json_from_string (
    "{\"rows\": \"7\\t4587520\\ttextbox\\tNotes \\\\\\\\ here\\ta\\\\tb\\\\nc\\t1\\t1\\t2\\t30\\t40\\t0\\tdesc\\tph\\ttextarea\\n"
    "9\\t131072\\tbutton\\tGo\\t\\t0\\t0\\t0\\t0\\t0\\t0\\t\\t\\tbutton\\n"
    "bad line\", \"contexts\": [\"main\", \"main>form\"]}", NULL);
  g_autoptr(GPtrArray) entries = _stw_snap_entries_from_walk (json_node_get_object (node), "s9", 3, 1);
  StwSnapEntry *a, *b;

  g_assert_cmpuint (entries->len, ==, 2);
  a = g_ptr_array_index (entries, 0);
  b = g_ptr_array_index (entries, 1);
  g_assert_cmpint (a->key, ==, 7);
  g_assert_cmpstr (a->surface_id, ==, "s9");
  g_assert_cmpint (a->world_id, ==, 3);
  g_assert_cmpuint (a->depth, ==, 1);
  g_assert_cmpuint (a->flags, ==, STW_SNAP_REFFED | STW_SNAP_INTERACTIVE);
  g_assert_cmpstr (a->name, ==, "Notes \\ here");
  g_assert_cmpstr (a->value, ==, "a\tb\nc");
  g_assert_cmpstr (a->fingerprint, ==, "textbox|Notes \\ here|main>form");
  g_assert_cmpint (a->x, ==, 1);
  g_assert_cmpint (a->h, ==, 40);
  g_assert_cmpstr (a->description, ==, "desc");
  g_assert_cmpstr (a->placeholder, ==, "ph");
  g_assert_cmpstr (a->tag, ==, "textarea");
  g_assert_null (b->value);
  g_assert_null (b->description);
  g_assert_cmpstr (b->fingerprint, ==, "button|Go|main");
}

static GPtrArray *
buttons (gint64 first_key,
         guint  count)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);

  for (guint i = 0; i < count; i++)
    {
      StwSnapEntry *entry = _stw_snap_entry_new ();

      entry->surface_id = g_strdup (SURFACE);
      entry->world_id = 1;
      entry->key = first_key + i;
      entry->role = g_strdup ("button");
      entry->name = g_strdup ("Many");
      entry->fingerprint = g_strdup ("button|Many|main");
      entry->flags = STW_SNAP_REFFED | STW_SNAP_INTERACTIVE;
      g_ptr_array_add (entries, entry);
    }
  return entries;
}

/* A page with more controls than the live cap keeps every ref the latest
 * snapshot gave: two finds in a row answer the same refs (they did not
 * when the cap was applied in the middle of a reconcile). What the next
 * page's snapshot does not show is forgotten past the cap. */
static void
test_page_above_cap (void)
{
  StwRefTable *refs = _stw_ref_table_new ();
  g_autoptr(GPtrArray) first = buttons (1, 300);
  g_autoptr(GPtrArray) again = buttons (1, 300);
  g_autoptr(GPtrArray) next = buttons (1001, 300);

  _stw_ref_table_set_limits (refs, 100, 10);
  _stw_snapshot_reconcile (refs, SURFACE, 1, first, NULL, FALSE);
  _stw_snapshot_reconcile (refs, SURFACE, 1, again, NULL, FALSE);
  for (guint i = 0; i < first->len; i++)
    {
      guint ref = ((StwSnapEntry *) first->pdata[i])->ref;

      g_assert_cmpuint (ref, ==, ((StwSnapEntry *) again->pdata[i])->ref);
      g_assert_nonnull (_stw_ref_table_lookup (refs, ref));
    }
  g_assert_cmpuint (_stw_ref_table_size (refs), ==, 300);

  _stw_snapshot_reconcile (refs, SURFACE, 1, next, NULL, FALSE);
  for (guint i = 0; i < next->len; i++)
    g_assert_nonnull (_stw_ref_table_lookup (refs, ((StwSnapEntry *) next->pdata[i])->ref));
  g_assert_cmpuint (_stw_ref_table_size (refs), <=, 300 + 10);
  _stw_ref_table_free (refs);
}

/* Issue 16, defect 12: a page that re-renders everything makes new
 * elements at every snapshot. The table stays under its caps with the
 * defaults (no limit set here), forgets gone refs oldest first and live
 * refs last bound longest ago, and a forgotten ref is told from one never
 * given. */
static void
test_bounded (void)
{
  StwRefTable *refs = _stw_ref_table_new ();
  gint64 key = 1;
  guint first = 0, last = 0, max_size = 0;

  /* 40 re-renders of 20,000 buttons, each reconciled as a snapshot. */
  for (guint round = 0; round < 40; round++)
    {
      g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);
      g_autoptr(GHashTable) alive = g_hash_table_new (g_int64_hash, g_int64_equal);

      for (guint i = 0; i < 20000; i++, key++)
        {
          StwSnapEntry *entry = _stw_snap_entry_new ();

          entry->surface_id = g_strdup (SURFACE);
          entry->world_id = 1;
          entry->key = key;
          entry->role = g_strdup ("button");
          entry->name = g_strdup ("Again");
          entry->fingerprint = g_strdup ("button|Again|main");
          entry->flags = STW_SNAP_REFFED | STW_SNAP_INTERACTIVE;
          g_ptr_array_add (entries, entry);
        }
      _stw_snapshot_reconcile (refs, SURFACE, 1, entries, alive, FALSE);
      if (round == 0)
        first = ((StwSnapEntry *) entries->pdata[0])->ref;
      last = ((StwSnapEntry *) entries->pdata[entries->len - 1])->ref;
      max_size = MAX (max_size, _stw_ref_table_size (refs));
      /* What the snapshot just showed is all there, live. */
      for (guint i = 0; i < entries->len; i++)
        {
          const StwRef *ref = _stw_ref_table_lookup (refs, ((StwSnapEntry *) entries->pdata[i])->ref);
          g_assert_nonnull (ref);
          g_assert_false (ref->gone);
        }
    }
  g_test_message ("%u refs given, at most %u held", last, max_size);
  g_assert_cmpuint (last, ==, 40 * 20000);
  /* 20,000 live and at most 5,000 gone. */
  g_assert_cmpuint (max_size, <=, 25000);
  g_assert_null (_stw_ref_table_lookup (refs, first));
  g_assert_true (_stw_ref_table_was_issued (refs, first));
  g_assert_false (_stw_ref_table_was_issued (refs, last + 1));
  g_assert_nonnull (_stw_ref_table_lookup (refs, last));

  /* Live refs past the cap: those bound longest ago go first, once no
   * longer the latest snapshot's (here a snapshot that bound nothing). */
  _stw_ref_table_begin_pass (refs);
  _stw_ref_table_end_pass (refs);
  _stw_ref_table_set_limits (refs, 8, 4);
  {
    guint kept = _stw_ref_table_bind (refs, SURFACE, 1, 1000000, "fp", "button", "Kept");
    guint older[3];

    for (guint i = 0; i < G_N_ELEMENTS (older); i++)
      older[i] = _stw_ref_table_bind (refs, SURFACE, 1, 1000001 + i, "fp", "button", "Other");
    /* Seen again: now the most recent of them. */
    g_assert_cmpuint (_stw_ref_table_bind (refs, SURFACE, 1, 1000000, "fp", "button", "Kept"), ==, kept);
    for (guint i = 0; i < 4; i++)
      _stw_ref_table_bind (refs, SURFACE, 1, 2000000 + i, "fp", "link", "New");
    g_assert_cmpuint (_stw_ref_table_size (refs), <=, 8 + 4);
    g_assert_nonnull (_stw_ref_table_lookup (refs, kept));
    g_assert_null (_stw_ref_table_lookup (refs, older[0]));
    g_assert_cmpuint (_stw_ref_table_find (refs, SURFACE, 1, 1000001), ==, 0);
  }

  /* The session ended: nothing is held, nothing is given again. */
  _stw_ref_table_clear (refs);
  g_assert_cmpuint (_stw_ref_table_size (refs), ==, 0);
  g_assert_null (_stw_ref_table_lookup (refs, last));
  g_assert_true (_stw_ref_table_was_issued (refs, last));
  g_assert_cmpuint (_stw_ref_table_bind (refs, SURFACE, 1, 5, "fp", "button", "After"), >, last);
  _stw_ref_table_free (refs);
}

/* Issue 16: an entry the answer leaves out (past maxEntries) gets no new
 * ref, but keeps the one it has. */
static void
test_unlisted (void)
{
  StwRefTable *refs = _stw_ref_table_new ();
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) _stw_snap_entry_free);
  guint kept;

  kept = _stw_ref_table_bind (refs, SURFACE, 1, 3, "button|Three|main", "button", "Three");
  for (gint64 key = 1; key <= 4; key++)
    {
      StwSnapEntry *entry = _stw_snap_entry_new ();

      entry->surface_id = g_strdup (SURFACE);
      entry->world_id = 1;
      entry->key = key;
      entry->role = g_strdup ("button");
      entry->name = g_strdup_printf ("Button %" G_GINT64_FORMAT, key);
      entry->fingerprint = g_strdup_printf ("button|Button %" G_GINT64_FORMAT "|main", key);
      entry->flags = STW_SNAP_REFFED | STW_SNAP_INTERACTIVE;
      entry->unlisted = key > 1;
      g_ptr_array_add (entries, entry);
    }
  _stw_snapshot_reconcile (refs, SURFACE, 1, entries, NULL, FALSE);
  g_assert_cmpuint (((StwSnapEntry *) entries->pdata[0])->ref, >, 0);
  g_assert_cmpuint (((StwSnapEntry *) entries->pdata[1])->ref, ==, 0);
  g_assert_cmpuint (((StwSnapEntry *) entries->pdata[2])->ref, ==, kept);
  g_assert_cmpuint (((StwSnapEntry *) entries->pdata[3])->ref, ==, 0);
  g_assert_cmpuint (_stw_ref_table_size (refs), ==, 2);
  _stw_ref_table_free (refs);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/refs/reconcile/fuzz", test_reconcile_fuzz);
  g_test_add_func ("/refs/reconcile/rules", test_reconcile_rules);
  g_test_add_func ("/refs/text/lines", test_text_lines);
  g_test_add_func ("/refs/forget-world", test_forget_world);
  g_test_add_func ("/refs/walk/rows", test_walk_rows);
  g_test_add_func ("/refs/bounded", test_bounded);
  g_test_add_func ("/refs/reconcile/unlisted", test_unlisted);
  g_test_add_func ("/refs/bounded/page-above-cap", test_page_above_cap);
  return g_test_run ();
}
