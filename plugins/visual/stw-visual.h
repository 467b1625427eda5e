/* stw-visual.h: the visual plugin's API — screenshots against baselines
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * STW_VISUAL_MAX_NAME:
 *
 * The longest baseline name, in bytes.
 *
 * Since: 1.0
 */
#define STW_VISUAL_MAX_NAME 100

#define STW_TYPE_VISUAL_CAPTURE (stw_visual_capture_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwVisualCapture, stw_visual_capture, STW, VISUAL_CAPTURE, GObject)

#define STW_TYPE_VISUAL_COMPARISON (stw_visual_comparison_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwVisualComparison, stw_visual_comparison, STW, VISUAL_COMPARISON, GObject)

#define STW_TYPE_VISUAL_PLUGIN (stw_visual_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwVisualPlugin, stw_visual_plugin, STW, VISUAL_PLUGIN, StwPlugin)

STW_AVAILABLE_IN_1_0
StwVisualPlugin     *stw_visual_plugin_new                    (void);
STW_AVAILABLE_IN_1_0
char                *stw_visual_plugin_dup_baseline_dir       (StwVisualPlugin      *self);

STW_AVAILABLE_IN_1_0
void                 stw_visual_plugin_capture_async          (StwVisualPlugin      *self,
                                                               StwSession           *session,
                                                               const char           *name,
                                                               const StwTarget      *target,
                                                               gboolean              full_page,
                                                               GCancellable         *cancellable,
                                                               GAsyncReadyCallback   callback,
                                                               gpointer              user_data);
STW_AVAILABLE_IN_1_0
StwVisualCapture    *stw_visual_plugin_capture_finish         (StwVisualPlugin      *self,
                                                               GAsyncResult         *result,
                                                               GError              **error);
STW_AVAILABLE_IN_1_0
StwVisualCapture    *stw_visual_plugin_capture_sync           (StwVisualPlugin      *self,
                                                               StwSession           *session,
                                                               const char           *name,
                                                               const StwTarget      *target,
                                                               gboolean              full_page,
                                                               GCancellable         *cancellable,
                                                               GError              **error);

STW_AVAILABLE_IN_1_0
void                 stw_visual_plugin_expect_async           (StwVisualPlugin      *self,
                                                               StwSession           *session,
                                                               const char           *name,
                                                               double                threshold,
                                                               gint64                max_diff_pixels,
                                                               double                max_diff_ratio,
                                                               GCancellable         *cancellable,
                                                               GAsyncReadyCallback   callback,
                                                               gpointer              user_data);
STW_AVAILABLE_IN_1_0
StwVisualComparison *stw_visual_plugin_expect_finish          (StwVisualPlugin      *self,
                                                               GAsyncResult         *result,
                                                               GError              **error);
STW_AVAILABLE_IN_1_0
StwVisualComparison *stw_visual_plugin_expect_sync            (StwVisualPlugin      *self,
                                                               StwSession           *session,
                                                               const char           *name,
                                                               double                threshold,
                                                               gint64                max_diff_pixels,
                                                               double                max_diff_ratio,
                                                               GCancellable         *cancellable,
                                                               GError              **error);

STW_AVAILABLE_IN_1_0
void                 stw_visual_plugin_update_baseline_async  (StwVisualPlugin      *self,
                                                               const char           *name,
                                                               GCancellable         *cancellable,
                                                               GAsyncReadyCallback   callback,
                                                               gpointer              user_data);
STW_AVAILABLE_IN_1_0
StwVisualCapture    *stw_visual_plugin_update_baseline_finish (StwVisualPlugin      *self,
                                                               GAsyncResult         *result,
                                                               GError              **error);
STW_AVAILABLE_IN_1_0
StwVisualCapture    *stw_visual_plugin_update_baseline_sync   (StwVisualPlugin      *self,
                                                               const char           *name,
                                                               GCancellable         *cancellable,
                                                               GError              **error);

STW_AVAILABLE_IN_1_0
const char *stw_visual_capture_get_name                (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
const char *stw_visual_capture_get_path                (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
const char *stw_visual_capture_get_baseline_path       (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
gboolean    stw_visual_capture_get_baseline_created    (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
guint       stw_visual_capture_get_width               (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
guint       stw_visual_capture_get_height              (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
guint       stw_visual_capture_get_attempts            (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
const char *stw_visual_capture_get_chromium_version    (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
double      stw_visual_capture_get_device_scale_factor (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
guint       stw_visual_capture_get_viewport_width      (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
guint       stw_visual_capture_get_viewport_height     (StwVisualCapture *self);
STW_AVAILABLE_IN_1_0
const char *stw_visual_capture_get_fonts_fingerprint   (StwVisualCapture *self);

STW_AVAILABLE_IN_1_0
const char *stw_visual_comparison_get_name             (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
gboolean    stw_visual_comparison_get_passed           (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
guint64     stw_visual_comparison_get_mismatched_pixels (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
guint64     stw_visual_comparison_get_anti_aliased_pixels (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
guint64     stw_visual_comparison_get_total_pixels     (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
guint64     stw_visual_comparison_get_allowed_pixels   (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
double      stw_visual_comparison_get_mismatch_ratio   (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
gboolean    stw_visual_comparison_get_size_differs     (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
const char *stw_visual_comparison_get_diff_path        (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
const char *stw_visual_comparison_get_actual_path      (StwVisualComparison *self);
STW_AVAILABLE_IN_1_0
const char *stw_visual_comparison_get_baseline_path    (StwVisualComparison *self);

G_END_DECLS
