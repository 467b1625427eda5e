/* stw-snapshot-private.h: snapshot entries, ref reconciliation, renderers
 *
 * The pure part of the snapshot (no I/O), so tests can drive it directly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "stw-refs-private.h"
#include "stw-snapshot.h"

G_BEGIN_DECLS

/* The flag bits of a walker entry (js/a11y.js, `F`). */
typedef enum
{
  STW_SNAP_HIDDEN        = 1 << 0,
  STW_SNAP_DISABLED      = 1 << 1,
  STW_SNAP_FOCUSED       = 1 << 2,
  STW_SNAP_BUSY          = 1 << 3,
  STW_SNAP_SHADOW_CLOSED = 1 << 4,
  STW_SNAP_READONLY      = 1 << 5,
  STW_SNAP_REQUIRED      = 1 << 6,
  STW_SNAP_INVALID       = 1 << 7,
  STW_SNAP_CHECKABLE     = 1 << 8,
  STW_SNAP_CHECKED       = 1 << 9,
  STW_SNAP_MIXED         = 1 << 10,
  STW_SNAP_EXPANDABLE    = 1 << 11,
  STW_SNAP_EXPANDED      = 1 << 12,
  STW_SNAP_SELECTABLE    = 1 << 13,
  STW_SNAP_SELECTED      = 1 << 14,
  STW_SNAP_PRESSABLE     = 1 << 15,
  STW_SNAP_PRESSED       = 1 << 16,
  STW_SNAP_REFFED        = 1 << 17,
  STW_SNAP_INTERACTIVE   = 1 << 18,
  STW_SNAP_FRAME         = 1 << 19,
  STW_SNAP_EDITABLE      = 1 << 20,
  STW_SNAP_IN_SELECT     = 1 << 21,
} StwSnapFlags;

/* The flags that are state (what `changed` compares). */
#define STW_SNAP_STATE_MASK (STW_SNAP_HIDDEN | STW_SNAP_DISABLED | STW_SNAP_FOCUSED | STW_SNAP_BUSY | \
                             STW_SNAP_READONLY | STW_SNAP_REQUIRED | STW_SNAP_INVALID | STW_SNAP_CHECKED | \
                             STW_SNAP_MIXED | STW_SNAP_EXPANDED | STW_SNAP_SELECTED | STW_SNAP_PRESSED)

/* One entry of a snapshot: an element of one surface. */
typedef struct
{
  char     *surface_id;
  gint64    world_id;
  gint64    key;
  guint     flags;
  char     *role;
  char     *name;
  char     *value;         /* nullable */
  char     *fingerprint;
  char     *description;   /* nullable */
  char     *placeholder;   /* nullable */
  char     *tag;           /* nullable */
  int       level;         /* headings; 0 otherwise */
  int       x, y, w, h;
  guint     depth;         /* how many frames deep */
  char     *frame_surface_id;  /* a frame owner: the surface shown under it */
  guint     ref;           /* 0: none */
  gboolean  recently_changed;
  gboolean  unlisted;      /* the answer leaves it out: it gets no new ref */
} StwSnapEntry;

StwSnapEntry *_stw_snap_entry_new  (void);
void          _stw_snap_entry_free (StwSnapEntry *entry);

/* Reads a walker answer (`{rows, contexts}`, js/a11y.js `row`) into
 * StwSnapEntry *, each tagged with @surface_id, @world_id and @depth. */
GPtrArray    *_stw_snap_entries_from_walk (JsonObject *walk,
                                           const char *surface_id,
                                           gint64      world_id,
                                           guint       depth);

/* Gives the entries of @surface_id (in @entries) their refs, as
 * docs/page-ops.md says: an element that has a ref keeps it; a ref whose
 * element is no longer alive (not in @alive, a set of gint64 keys of
 * world @world_id, or of another world) moves to the one entry without a
 * ref that has its fingerprint, when it is the only such ref and the only
 * such entry; otherwise it is gone for good. Entries still without a ref
 * get new ones. Only entries flagged STW_SNAP_REFFED get new refs (others
 * show one only when an operation gave them one), unless
 * @ref_all; entries marked `unlisted` never do. */
void          _stw_snapshot_reconcile (StwRefTable *refs,
                                       const char  *surface_id,
                                       gint64       world_id,
                                       GPtrArray   *entries,
                                       GHashTable  *alive,
                                       gboolean     ref_all);

/* One line of the text form (no newline, never contains one). */
char         *_stw_snapshot_entry_line   (const StwSnapEntry *entry);
char         *_stw_snapshot_render_text  (const char *title,
                                          const char *url,
                                          int         width,
                                          int         height,
                                          GPtrArray  *entries);
JsonObject   *_stw_snapshot_entry_json   (const StwSnapEntry *entry);

/* Sets recently_changed on entries of @curr whose name, value or state
 * differ from the same element's in @prev. */
void          _stw_snapshot_mark_changed (GPtrArray *prev,
                                          GPtrArray *curr);
/* The `since:"last"` diff of two snapshots, as JSON (`{added, removed,
 * changed, ref_map, _meta}`) or, with @text, as `diff_text`; fitted into
 * @budget_tokens when non-zero. @truncated says whether items were left
 * out. */
JsonObject   *_stw_snapshot_diff         (GPtrArray     *prev,
                                          GPtrArray     *curr,
                                          StwDiffFormat  format,
                                          guint          budget_tokens,
                                          char         **text,
                                          gboolean      *truncated);

G_END_DECLS
