/* stw-snapshot.h: what a surface looks like to an agent — snapshot, find, list
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-enums.h"
#include "stw-element-ref.h"
#include "stw-surface.h"
#include "stw-target.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_SNAPSHOT_OPTIONS (stw_snapshot_options_get_type ())

/**
 * StwSnapshotOptions:
 *
 * What [method@Stagewright.Surface.snapshot_async] lists and how it
 * answers. By default: every entry (at most 2,000), as JSON, in full (the
 * `electron_snapshot` tool's arguments default to text, see
 * [ctor@Stagewright.SnapshotOptions.new_from_json]).
 *
 * Since: 1.0
 */
typedef struct _StwSnapshotOptions StwSnapshotOptions;

STW_AVAILABLE_IN_1_0
GType               stw_snapshot_options_get_type             (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwSnapshotOptions *stw_snapshot_options_new                  (void);
STW_AVAILABLE_IN_1_0
StwSnapshotOptions *stw_snapshot_options_new_from_json        (JsonObject  *object,
                                                               GError     **error);
STW_AVAILABLE_IN_1_0
StwSnapshotOptions *stw_snapshot_options_copy                 (const StwSnapshotOptions *options);
STW_AVAILABLE_IN_1_0
void                stw_snapshot_options_free                 (StwSnapshotOptions *options);
STW_AVAILABLE_IN_1_0
void                stw_snapshot_options_set_interactive_only (StwSnapshotOptions *options,
                                                               gboolean            interactive_only);
STW_AVAILABLE_IN_1_0
gboolean            stw_snapshot_options_get_interactive_only (const StwSnapshotOptions *options);
STW_AVAILABLE_IN_1_0
void                stw_snapshot_options_set_max_entries      (StwSnapshotOptions *options,
                                                               guint               max_entries);
STW_AVAILABLE_IN_1_0
guint               stw_snapshot_options_get_max_entries      (const StwSnapshotOptions *options);
STW_AVAILABLE_IN_1_0
void                stw_snapshot_options_set_format           (StwSnapshotOptions *options,
                                                               StwSnapshotFormat   format);
STW_AVAILABLE_IN_1_0
StwSnapshotFormat   stw_snapshot_options_get_format           (const StwSnapshotOptions *options);
STW_AVAILABLE_IN_1_0
void                stw_snapshot_options_set_since_last       (StwSnapshotOptions *options,
                                                               gboolean            since_last);
STW_AVAILABLE_IN_1_0
gboolean            stw_snapshot_options_get_since_last       (const StwSnapshotOptions *options);
STW_AVAILABLE_IN_1_0
void                stw_snapshot_options_set_diff_format      (StwSnapshotOptions *options,
                                                               StwDiffFormat       diff_format);
STW_AVAILABLE_IN_1_0
StwDiffFormat       stw_snapshot_options_get_diff_format      (const StwSnapshotOptions *options);
STW_AVAILABLE_IN_1_0
void                stw_snapshot_options_set_budget_tokens    (StwSnapshotOptions *options,
                                                               guint               budget_tokens);
STW_AVAILABLE_IN_1_0
guint               stw_snapshot_options_get_budget_tokens    (const StwSnapshotOptions *options);
STW_AVAILABLE_IN_1_0
void                stw_snapshot_options_set_root             (StwSnapshotOptions *options,
                                                               const StwTarget    *root);
STW_AVAILABLE_IN_1_0
const StwTarget    *stw_snapshot_options_get_root             (const StwSnapshotOptions *options);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwSnapshotOptions, stw_snapshot_options_free)

#define STW_TYPE_SNAPSHOT (stw_snapshot_get_type ())

/**
 * StwSnapshot:
 *
 * What [method@Stagewright.Surface.snapshot_async] saw: a full snapshot
 * or, with [method@Stagewright.SnapshotOptions.set_since_last], the
 * changes since the surface's last one; as text or as JSON entries. The
 * text names each element's ref (`[12] button "Save"`); the entries and
 * the diff stay JSON, as their members are open (an element has the
 * states, value and attributes it has).
 *
 * Since: 1.0
 */
typedef struct _StwSnapshot StwSnapshot;

STW_AVAILABLE_IN_1_0
GType        stw_snapshot_get_type            (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwSnapshot *stw_snapshot_ref                 (StwSnapshot       *self);
STW_AVAILABLE_IN_1_0
void         stw_snapshot_unref               (StwSnapshot       *self);
STW_AVAILABLE_IN_1_0
gboolean     stw_snapshot_is_diff             (const StwSnapshot *self);
STW_AVAILABLE_IN_1_0
const char  *stw_snapshot_get_surface_id      (const StwSnapshot *self);
STW_AVAILABLE_IN_1_0
const char  *stw_snapshot_get_text            (const StwSnapshot *self);
STW_AVAILABLE_IN_1_0
guint        stw_snapshot_get_entry_count     (const StwSnapshot *self);
STW_AVAILABLE_IN_1_0
JsonArray   *stw_snapshot_get_entries         (const StwSnapshot *self);
STW_AVAILABLE_IN_1_0
JsonObject  *stw_snapshot_get_diff            (const StwSnapshot *self);
STW_AVAILABLE_IN_1_0
gboolean     stw_snapshot_is_truncated        (const StwSnapshot *self);
STW_AVAILABLE_IN_1_0
gboolean     stw_snapshot_get_renderer_reloaded (const StwSnapshot *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwSnapshot, stw_snapshot_unref)

STW_AVAILABLE_IN_1_0
void        stw_surface_snapshot_async       (StwSurface               *self,
                                              const StwSnapshotOptions *options,
                                              GCancellable             *cancellable,
                                              GAsyncReadyCallback       callback,
                                              gpointer                  user_data);
STW_AVAILABLE_IN_1_0
StwSnapshot *stw_surface_snapshot_finish     (StwSurface    *self,
                                              GAsyncResult  *result,
                                              GError       **error);
STW_AVAILABLE_IN_1_0
StwSnapshot *stw_surface_snapshot_sync       (StwSurface               *self,
                                              const StwSnapshotOptions *options,
                                              GCancellable             *cancellable,
                                              GError                  **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_find_async           (StwSurface          *self,
                                              JsonObject          *filters,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwElementList *stw_surface_find_finish          (StwSurface    *self,
                                              GAsyncResult  *result,
                                              GError       **error);
STW_AVAILABLE_IN_1_0
StwElementList *stw_surface_find_sync            (StwSurface    *self,
                                              JsonObject    *filters,
                                              GCancellable  *cancellable,
                                              GError       **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_list_elements_async  (StwSurface          *self,
                                              const char          *selector,
                                              guint                limit,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwElementList *stw_surface_list_elements_finish (StwSurface    *self,
                                              GAsyncResult  *result,
                                              GError       **error);
STW_AVAILABLE_IN_1_0
StwElementList *stw_surface_list_elements_sync   (StwSurface    *self,
                                              const char    *selector,
                                              guint          limit,
                                              GCancellable  *cancellable,
                                              GError       **error);

G_END_DECLS
