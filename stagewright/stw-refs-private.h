/* stw-refs-private.h: a session's refs, bound to elements by identity
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* One ref (docs/page-ops.md): the element it names is key @key of the
 * isolated world @world_id of surface @surface_id. A gone ref stays gone:
 * its number is never given to another element. */
typedef struct
{
  guint     ref;
  char     *surface_id;
  gint64    world_id;
  gint64    key;
  char     *fingerprint;
  char     *role;
  char     *name;
  gboolean  gone;
  guint64   seen;       /* when it was last bound (the table's clock) */
} StwRef;

typedef struct _StwRefTable StwRefTable;

/* An element's identity (surface, world, key), hashed and compared the
 * same way wherever elements are indexed. */
static inline guint
_stw_element_identity_hash (const char *surface_id,
                            gint64      world_id,
                            gint64      key)
{
  return g_str_hash (surface_id ? surface_id : "") * 31u +
         g_int64_hash (&world_id) * 1000003u + g_int64_hash (&key);
}

static inline gboolean
_stw_element_identity_equal (const char *surface_a,
                             gint64      world_a,
                             gint64      key_a,
                             const char *surface_b,
                             gint64      world_b,
                             gint64      key_b)
{
  return key_a == key_b && world_a == world_b && g_strcmp0 (surface_a, surface_b) == 0;
}

StwRefTable  *_stw_ref_table_new     (void);
void          _stw_ref_table_free    (StwRefTable *table);
/* Forgets every ref (the session ended); numbers are still never reused. */
void          _stw_ref_table_clear   (StwRefTable *table);
/* How many refs the table keeps at most: live ones (those bound longest
 * ago are forgotten first) and gone ones (oldest first). A forgotten ref
 * is refused like a gone one. */
void          _stw_ref_table_set_limits (StwRefTable *table,
                                         guint        max_live,
                                         guint        max_gone);
/* How many refs, live and gone, the table holds. */
guint         _stw_ref_table_size    (StwRefTable *table);
/* Whether @ref was ever given: a ref that was given and that lookup does
 * not know was forgotten. */
gboolean      _stw_ref_table_was_issued (StwRefTable *table,
                                         guint        ref);

/* The ref with that number, gone or not; NULL when it was never given or
 * was forgotten. */
const StwRef *_stw_ref_table_lookup  (StwRefTable *table,
                                      guint        ref);
/* The live ref of an element, or 0. */
guint         _stw_ref_table_find    (StwRefTable *table,
                                      const char  *surface_id,
                                      gint64       world_id,
                                      gint64       key);
/* A reconcile begins: what it binds from now on is not forgotten to make
 * room, however many refs that is. */
void          _stw_ref_table_begin_pass (StwRefTable *table);
/* The reconcile ends: past a cap, the oldest of what it did not bind goes. */
void          _stw_ref_table_end_pass   (StwRefTable *table);
/* The element's ref, made when it has none; what it knows of the element
 * (fingerprint, role, name) is refreshed. */
guint         _stw_ref_table_bind    (StwRefTable *table,
                                      const char  *surface_id,
                                      gint64       world_id,
                                      gint64       key,
                                      const char  *fingerprint,
                                      const char  *role,
                                      const char  *name);
/* Moves a live ref to another element of its surface (a replaced node
 * whose fingerprint only one element has). */
void          _stw_ref_table_rebind  (StwRefTable *table,
                                      guint        ref,
                                      gint64       world_id,
                                      gint64       key);
/* The element is gone: the ref is refused from now on. */
void          _stw_ref_table_retire  (StwRefTable *table,
                                      guint        ref);
/* The live refs of a surface, in the order they were made (StwRef *,
 * owned by the table). */
GPtrArray    *_stw_ref_table_list    (StwRefTable *table,
                                      const char  *surface_id);
/* Up to @max live refs of @stale's surface that look like it, best first,
 * as `[{ref, role, name}]`. */
JsonArray    *_stw_ref_table_similar (StwRefTable  *table,
                                      const StwRef *stale,
                                      guint         max);
/* The surface made a new world whose id is @world_id: a world of an
 * earlier document had that id too (another renderer process counts
 * anew), so its refs' keys name nothing any more; they keep their
 * fingerprints and may still move to an element of the new world. */
void          _stw_ref_table_forget_world   (StwRefTable *table,
                                             const char  *surface_id,
                                             gint64       world_id);
/* Every ref of a surface is gone (it closed). */
void          _stw_ref_table_retire_surface (StwRefTable *table,
                                             const char  *surface_id);

G_END_DECLS
