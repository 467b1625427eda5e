/* stw-refs.c: a session's refs, bound to elements by identity
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-refs-private.h"

/* A page that re-renders everything makes new elements, and so new refs,
 * at every snapshot: the table keeps at most this many refs of each kind,
 * oldest first out. A gone ref is kept for a while only to answer
 * REF_NOT_FOUND with similar refs; a forgotten one answers REF_NOT_FOUND
 * without them. Each cap is well above what one snapshot lists (10,000). */
#define DEFAULT_MAX_LIVE 50000
#define DEFAULT_MAX_GONE 5000

struct _StwRefTable
{
  GPtrArray  *refs;     /* StwRef *, by number: numbers only grow, never reused */
  GHashTable *live;     /* ElementId * -> ref (GUINT_TO_POINTER) */
  guint       issued;   /* the last number given */
  guint       n_gone;
  guint       max_live;
  guint       max_gone;
  guint64     clock;    /* counts binds: StwRef.seen */
  guint64     pass;     /* the clock when the latest reconcile began, */
  guint64     pass_end; /* and when it ended: what it bound is kept */
  gboolean    in_pass;  /* forgetting waits for the reconcile's end */
};

/* Which element: a surface's world's key. Looked up thousands of times per
 * snapshot, so a probe on the stack is the key, and nothing is allocated
 * but for an insertion. */
typedef struct
{
  char  *surface_id;
  gint64 world_id;
  gint64 key;
} ElementId;

static guint
element_id_hash (gconstpointer data)
{
  const ElementId *id = data;

  return _stw_element_identity_hash (id->surface_id, id->world_id, id->key);
}

static gboolean
element_id_equal (gconstpointer a,
                  gconstpointer b)
{
  const ElementId *x = a, *y = b;

  return _stw_element_identity_equal (x->surface_id, x->world_id, x->key, y->surface_id, y->world_id, y->key);
}

static ElementId *
element_id_new (const char *surface_id,
                gint64      world_id,
                gint64      key)
{
  ElementId *id = g_new (ElementId, 1);

  id->surface_id = g_strdup (surface_id);
  id->world_id = world_id;
  id->key = key;
  return id;
}

static void
element_id_free (ElementId *id)
{
  g_free (id->surface_id);
  g_free (id);
}

/* A probe for look-ups: borrows @surface_id. */
#define ELEMENT_ID(surface, world, number) \
  ((ElementId) { .surface_id = (char *) (surface), .world_id = (world), .key = (number) })

static void
stw_ref_free (StwRef *ref)
{
  g_free (ref->surface_id);
  g_free (ref->fingerprint);
  g_free (ref->role);
  g_free (ref->name);
  g_free (ref);
}

StwRefTable *
_stw_ref_table_new (void)
{
  StwRefTable *table = g_new0 (StwRefTable, 1);

  table->refs = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_ref_free);
  table->live = g_hash_table_new_full (element_id_hash, element_id_equal, (GDestroyNotify) element_id_free, NULL);
  table->max_live = DEFAULT_MAX_LIVE;
  table->max_gone = DEFAULT_MAX_GONE;
  return table;
}

void
_stw_ref_table_free (StwRefTable *table)
{
  if (table == NULL)
    return;
  g_ptr_array_unref (table->refs);
  g_hash_table_unref (table->live);
  g_free (table);
}

void
_stw_ref_table_clear (StwRefTable *table)
{
  g_return_if_fail (table != NULL);

  g_hash_table_remove_all (table->live);
  g_ptr_array_set_size (table->refs, 0);
  table->n_gone = 0;
}

void
_stw_ref_table_set_limits (StwRefTable *table,
                           guint        max_live,
                           guint        max_gone)
{
  g_return_if_fail (table != NULL);
  g_return_if_fail (max_live > 0);

  table->max_live = max_live;
  table->max_gone = max_gone;
}

guint
_stw_ref_table_size (StwRefTable *table)
{
  g_return_val_if_fail (table != NULL, 0);
  return table->refs->len;
}

gboolean
_stw_ref_table_was_issued (StwRefTable *table,
                           guint        ref)
{
  g_return_val_if_fail (table != NULL, FALSE);
  return ref > 0 && ref <= table->issued;
}

static StwRef *
get_ref (StwRefTable *table,
         guint        ref)
{
  guint low = 0, high = table->refs->len;

  if (ref == 0 || ref > table->issued)
    return NULL;
  /* Nothing forgotten yet: the number is the index. */
  if (table->refs->len == table->issued)
    return g_ptr_array_index (table->refs, ref - 1);
  while (low < high)
    {
      guint middle = low + (high - low) / 2;
      StwRef *candidate = g_ptr_array_index (table->refs, middle);

      if (candidate->ref == ref)
        return candidate;
      if (candidate->ref < ref)
        low = middle + 1;
      else
        high = middle;
    }
  return NULL;
}

const StwRef *
_stw_ref_table_lookup (StwRefTable *table,
                       guint        ref)
{
  g_return_val_if_fail (table != NULL, NULL);
  return get_ref (table, ref);
}

guint
_stw_ref_table_find (StwRefTable *table,
                     const char  *surface_id,
                     gint64       world_id,
                     gint64       key)
{
  ElementId id = ELEMENT_ID (surface_id, world_id, key);

  g_return_val_if_fail (table != NULL, 0);
  return GPOINTER_TO_UINT (g_hash_table_lookup (table->live, &id));
}

static void
set_string (char       **field,
            const char  *value)
{
  if (g_strcmp0 (*field, value) != 0)
    {
      g_free (*field);
      *field = g_strdup (value ? value : "");
    }
}

static void
unindex (StwRefTable *table,
         StwRef      *ref)
{
  ElementId id = ELEMENT_ID (ref->surface_id, ref->world_id, ref->key);

  if (GPOINTER_TO_UINT (g_hash_table_lookup (table->live, &id)) == ref->ref)
    g_hash_table_remove (table->live, &id);
}

static int
compare_stamps (gconstpointer a,
                gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static gboolean
bound_in_pass (StwRefTable  *table,
               const StwRef *ref)
{
  return ref->seen > table->pass && ref->seen <= table->pass_end;
}

/* The stamp at or below which @drop live refs were last seen longest ago,
 * among those the latest reconcile did not see; 0 when there are none. */
static guint64
stale_stamp (StwRefTable *table,
             guint        drop)
{
  g_autoptr(GArray) stamps = g_array_sized_new (FALSE, FALSE, sizeof (guint64), table->refs->len);

  for (guint i = 0; i < table->refs->len; i++)
    {
      StwRef *ref = g_ptr_array_index (table->refs, i);
      if (!ref->gone && !bound_in_pass (table, ref))
        g_array_append_val (stamps, ref->seen);
    }
  if (stamps->len == 0)
    return 0;
  g_array_sort (stamps, compare_stamps);
  return g_array_index (stamps, guint64, MIN (drop, stamps->len) - 1);
}

/* Past a cap, forgets refs down to three quarters of it, so this is one
 * pass over the table now and then: gone refs oldest first, live refs
 * those last bound longest ago. What the latest reconcile bound stays,
 * however many: a page of 100,000 controls keeps its 100,000 refs, and two
 * finds in a row answer the same refs.
 * The newest ref is never forgotten. */
static void
forget_oldest (StwRefTable *table)
{
  guint n_live = table->refs->len - table->n_gone;
  guint drop_live = n_live > table->max_live ? n_live - table->max_live * 3 / 4 : 0;
  guint drop_gone = table->n_gone > table->max_gone ? table->n_gone - table->max_gone * 3 / 4 : 0;
  guint64 stale = drop_live > 0 ? stale_stamp (table, drop_live) : 0;
  guint kept = 0;

  if (drop_live == 0 && drop_gone == 0)
    return;
  for (guint i = 0; i < table->refs->len; i++)
    {
      StwRef *ref = g_ptr_array_index (table->refs, i);
      gboolean forget = i + 1 < table->refs->len &&
                        (ref->gone ? drop_gone > 0 : drop_live > 0 && ref->seen <= stale && !bound_in_pass (table, ref));

      if (!forget)
        {
          table->refs->pdata[kept++] = ref;
          continue;
        }
      if (ref->gone)
        {
          drop_gone--;
          table->n_gone--;
        }
      else
        {
          drop_live--;
          unindex (table, ref);
        }
      stw_ref_free (ref);
    }
  /* The tail now holds moved or freed pointers: drop them unfreed. */
  g_ptr_array_set_free_func (table->refs, NULL);
  g_ptr_array_set_size (table->refs, kept);
  g_ptr_array_set_free_func (table->refs, (GDestroyNotify) stw_ref_free);
}

void
_stw_ref_table_begin_pass (StwRefTable *table)
{
  g_return_if_fail (table != NULL);

  table->pass = table->clock;
  table->in_pass = TRUE;
}

void
_stw_ref_table_end_pass (StwRefTable *table)
{
  g_return_if_fail (table != NULL);

  table->in_pass = FALSE;
  table->pass_end = table->clock;
  forget_oldest (table);
}

guint
_stw_ref_table_bind (StwRefTable *table,
                     const char  *surface_id,
                     gint64       world_id,
                     gint64       key,
                     const char  *fingerprint,
                     const char  *role,
                     const char  *name)
{
  ElementId id = ELEMENT_ID (surface_id, world_id, key);
  StwRef *ref;
  guint number;

  g_return_val_if_fail (table != NULL, 0);
  g_return_val_if_fail (surface_id != NULL && key > 0, 0);

  number = GPOINTER_TO_UINT (g_hash_table_lookup (table->live, &id));
  /* A live number always has its entry; without one, a new ref. */
  if (number == 0 || (ref = get_ref (table, number)) == NULL)
    {
      ref = g_new0 (StwRef, 1);
      ref->ref = number = ++table->issued;
      ref->surface_id = g_strdup (surface_id);
      ref->world_id = world_id;
      ref->key = key;
      g_ptr_array_add (table->refs, ref);
      g_hash_table_insert (table->live, element_id_new (surface_id, world_id, key), GUINT_TO_POINTER (number));
    }
  set_string (&ref->fingerprint, fingerprint);
  set_string (&ref->role, role);
  set_string (&ref->name, name);
  ref->seen = ++table->clock;
  /* Only here, when a ref was made: no caller holds an StwRef across a
   * bind, while retire's callers still read the ref they retired. */
  if (ref->ref == table->issued && !table->in_pass)
    forget_oldest (table);
  return number;
}

void
_stw_ref_table_rebind (StwRefTable *table,
                       guint        number,
                       gint64       world_id,
                       gint64       key)
{
  StwRef *ref;
  guint previous;

  g_return_if_fail (table != NULL);
  ref = get_ref (table, number);
  g_return_if_fail (ref != NULL && !ref->gone);

  unindex (table, ref);
  /* The new element may already have had a ref of its own: it cannot
   * name two things, so that one goes. */
  previous = _stw_ref_table_find (table, ref->surface_id, world_id, key);
  if (previous != 0 && previous != number)
    _stw_ref_table_retire (table, previous);
  ref->world_id = world_id;
  ref->key = key;
  ref->seen = ++table->clock;
  g_hash_table_insert (table->live, element_id_new (ref->surface_id, world_id, key), GUINT_TO_POINTER (number));
}

void
_stw_ref_table_retire (StwRefTable *table,
                       guint        number)
{
  StwRef *ref;

  g_return_if_fail (table != NULL);
  ref = get_ref (table, number);
  if (ref == NULL || ref->gone)
    return;
  unindex (table, ref);
  ref->gone = TRUE;
  table->n_gone++;
}

void
_stw_ref_table_forget_world (StwRefTable *table,
                             const char  *surface_id,
                             gint64       world_id)
{
  g_return_if_fail (table != NULL);

  for (guint i = 0; i < table->refs->len; i++)
    {
      StwRef *ref = g_ptr_array_index (table->refs, i);

      if (ref->gone || ref->world_id != world_id || g_strcmp0 (ref->surface_id, surface_id) != 0)
        continue;
      unindex (table, ref);
      /* World 0 is no world: the key is never looked up again. */
      ref->world_id = 0;
    }
}

void
_stw_ref_table_retire_surface (StwRefTable *table,
                               const char  *surface_id)
{
  g_return_if_fail (table != NULL);

  for (guint i = 0; i < table->refs->len; i++)
    {
      StwRef *ref = g_ptr_array_index (table->refs, i);
      if (!ref->gone && g_strcmp0 (ref->surface_id, surface_id) == 0)
        _stw_ref_table_retire (table, ref->ref);
    }
}

GPtrArray *
_stw_ref_table_list (StwRefTable *table,
                     const char  *surface_id)
{
  GPtrArray *list = g_ptr_array_new ();

  g_return_val_if_fail (table != NULL, list);

  for (guint i = 0; i < table->refs->len; i++)
    {
      StwRef *ref = g_ptr_array_index (table->refs, i);
      if (!ref->gone && g_strcmp0 (ref->surface_id, surface_id) == 0)
        g_ptr_array_add (list, ref);
    }
  return list;
}

/* How much a live ref looks like a stale one: same name first, then a
 * name containing the other, then the same role; closer lengths first. */
static int
likeness (const StwRef *stale,
          const StwRef *candidate)
{
  g_autofree char *a = g_utf8_casefold (stale->name ? stale->name : "", -1);
  g_autofree char *b = g_utf8_casefold (candidate->name ? candidate->name : "", -1);
  int score = 0;

  if (*a != '\0' && g_str_equal (a, b))
    score += 4000;
  else if (*a != '\0' && *b != '\0' && (strstr (a, b) != NULL || strstr (b, a) != NULL))
    score += 2000;
  if (g_strcmp0 (stale->role, candidate->role) == 0)
    score += 1000;
  if (score == 0)
    return -1;
  return score - MIN (999, ABS ((int) strlen (a) - (int) strlen (b)));
}

typedef struct
{
  const StwRef *ref;
  int           score;
} Ranked;

static int
by_score (gconstpointer a,
          gconstpointer b)
{
  const Ranked *x = a, *y = b;

  if (x->score != y->score)
    return y->score - x->score;
  return (int) x->ref->ref - (int) y->ref->ref;
}

JsonArray *
_stw_ref_table_similar (StwRefTable  *table,
                        const StwRef *stale,
                        guint         max)
{
  g_autoptr(GArray) ranked = g_array_new (FALSE, FALSE, sizeof (Ranked));
  JsonArray *similar = json_array_new ();

  g_return_val_if_fail (table != NULL && stale != NULL, similar);

  for (guint i = 0; i < table->refs->len; i++)
    {
      StwRef *ref = g_ptr_array_index (table->refs, i);
      Ranked item = { ref, 0 };

      if (ref->gone || ref == stale || g_strcmp0 (ref->surface_id, stale->surface_id) != 0)
        continue;
      item.score = likeness (stale, ref);
      /* Nothing in common is no suggestion. */
      if (item.score < 0)
        continue;
      g_array_append_val (ranked, item);
    }
  g_array_sort (ranked, by_score);

  for (guint i = 0; i < ranked->len && i < max; i++)
    {
      const StwRef *ref = g_array_index (ranked, Ranked, i).ref;
      JsonObject *entry = json_object_new ();

      json_object_set_int_member (entry, "ref", ref->ref);
      json_object_set_string_member (entry, "role", ref->role);
      json_object_set_string_member (entry, "name", ref->name);
      json_array_add_object_element (similar, entry);
    }
  return similar;
}
