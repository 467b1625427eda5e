/* stw-visual.h: the visual plugin's API — screenshots against baselines
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * StwVisualError:
 * @STW_VISUAL_ERROR_UNSUPPORTED: the session has no window to capture, or the plugin is not loaded
 * @STW_VISUAL_ERROR_SURFACE_UNSUPPORTED: the surface cannot be captured (a whole frame)
 * @STW_VISUAL_ERROR_INVALID_SELECTOR: the selector is not valid CSS
 * @STW_VISUAL_ERROR_UNSTABLE: two captures in a row never agreed
 * @STW_VISUAL_ERROR_CAPTURE_FAILED: the screenshot failed
 * @STW_VISUAL_ERROR_IMAGE_TOO_LARGE: the image has more pixels than the config's `maxPixels`
 * @STW_VISUAL_ERROR_PATH_INVALID: the name is not a plain file name, or the directory leaves
 *   `--app-root`
 * @STW_VISUAL_ERROR_BASELINE_NOT_FOUND: the name has no baseline
 * @STW_VISUAL_ERROR_BASELINE_INVALID: the baseline or its environment cannot be read
 * @STW_VISUAL_ERROR_ENV_MISMATCH: the baseline was taken in another environment
 * @STW_VISUAL_ERROR_MISMATCH: more pixels differ than allowed
 * @STW_VISUAL_ERROR_WRITE_FAILED: the baseline directory could not be written
 *
 * The codes of the visual plugin, in its error domain %STW_VISUAL_ERROR, in
 * the order the plugin registers them. Each value is a wire code:
 * %STW_VISUAL_ERROR_UNSUPPORTED is `visual.UNSUPPORTED`, and
 * stw_error_get_code_name() answers it, also for an error a language binding
 * handed back.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_VISUAL_ERROR_UNSUPPORTED,
  STW_VISUAL_ERROR_SURFACE_UNSUPPORTED,
  STW_VISUAL_ERROR_INVALID_SELECTOR,
  STW_VISUAL_ERROR_UNSTABLE,
  STW_VISUAL_ERROR_CAPTURE_FAILED,
  STW_VISUAL_ERROR_IMAGE_TOO_LARGE,
  STW_VISUAL_ERROR_PATH_INVALID,
  STW_VISUAL_ERROR_BASELINE_NOT_FOUND,
  STW_VISUAL_ERROR_BASELINE_INVALID,
  STW_VISUAL_ERROR_ENV_MISMATCH,
  STW_VISUAL_ERROR_MISMATCH,
  STW_VISUAL_ERROR_WRITE_FAILED,
} StwVisualError;

/**
 * STW_VISUAL_ERROR:
 *
 * The error domain of the visual plugin: its codes are
 * [enum@StagewrightVisual.VisualError].
 *
 * Since: 1.0
 */
#define STW_VISUAL_ERROR (stw_visual_error_quark ())
STW_AVAILABLE_IN_1_0
GQuark stw_visual_error_quark (void);

#define STW_TYPE_VISUAL_ERROR (stw_visual_error_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_visual_error_get_type (void);

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
