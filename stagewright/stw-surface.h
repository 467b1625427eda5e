/* stw-surface.h: something that renders in a session, and its page operations
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
#include "stw-target.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

typedef struct _StwSession StwSession;

/**
 * STW_SCREENSHOT_MAX_SIDE:
 *
 * The largest `maxWidth` or `maxHeight` a screenshot can ask for.
 *
 * Since: 1.0
 */
#define STW_SCREENSHOT_MAX_SIDE 16384

#define STW_TYPE_SCREENSHOT_OPTIONS (stw_screenshot_options_get_type ())

/**
 * StwScreenshotOptions:
 *
 * What [method@Stagewright.Surface.capture_screenshot_async] captures and
 * how it encodes it. By default: the visible viewport, as PNG.
 *
 * Since: 1.0
 */
typedef struct _StwScreenshotOptions StwScreenshotOptions;

STW_AVAILABLE_IN_1_0
GType                 stw_screenshot_options_get_type      (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwScreenshotOptions *stw_screenshot_options_new           (void);
STW_AVAILABLE_IN_1_0
StwScreenshotOptions *stw_screenshot_options_copy          (const StwScreenshotOptions *options);
STW_AVAILABLE_IN_1_0
void                  stw_screenshot_options_free          (StwScreenshotOptions *options);
STW_AVAILABLE_IN_1_0
void                  stw_screenshot_options_set_format    (StwScreenshotOptions *options,
                                                            StwImageFormat        format);
STW_AVAILABLE_IN_1_0
StwImageFormat        stw_screenshot_options_get_format    (const StwScreenshotOptions *options);
STW_AVAILABLE_IN_1_0
void                  stw_screenshot_options_set_quality   (StwScreenshotOptions *options,
                                                            int                   quality);
STW_AVAILABLE_IN_1_0
int                   stw_screenshot_options_get_quality   (const StwScreenshotOptions *options);
STW_AVAILABLE_IN_1_0
void                  stw_screenshot_options_set_clip      (StwScreenshotOptions *options,
                                                            double                x,
                                                            double                y,
                                                            double                width,
                                                            double                height);
STW_AVAILABLE_IN_1_0
gboolean              stw_screenshot_options_get_clip      (const StwScreenshotOptions *options,
                                                            double               *x,
                                                            double               *y,
                                                            double               *width,
                                                            double               *height);
STW_AVAILABLE_IN_1_0
void                  stw_screenshot_options_set_selector  (StwScreenshotOptions *options,
                                                            const char           *selector);
STW_AVAILABLE_IN_1_0
const char           *stw_screenshot_options_get_selector  (const StwScreenshotOptions *options);
STW_AVAILABLE_IN_1_0
void                  stw_screenshot_options_set_full_page (StwScreenshotOptions *options,
                                                            gboolean              full_page);
STW_AVAILABLE_IN_1_0
gboolean              stw_screenshot_options_get_full_page (const StwScreenshotOptions *options);
STW_AVAILABLE_IN_1_0
void                  stw_screenshot_options_set_target    (StwScreenshotOptions *options,
                                                            const StwTarget      *target);
STW_AVAILABLE_IN_1_0
const StwTarget      *stw_screenshot_options_get_target    (const StwScreenshotOptions *options);
STW_AVAILABLE_IN_1_0
void                  stw_screenshot_options_set_max_size  (StwScreenshotOptions *options,
                                                            guint                 max_width,
                                                            guint                 max_height);
STW_AVAILABLE_IN_1_0
gboolean              stw_screenshot_options_get_max_size  (const StwScreenshotOptions *options,
                                                            guint                *max_width,
                                                            guint                *max_height);
STW_AVAILABLE_IN_1_0
StwScreenshotOptions *stw_screenshot_options_new_from_json (JsonObject  *object,
                                                            GError     **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwScreenshotOptions, stw_screenshot_options_free)

STW_AVAILABLE_IN_1_0
gboolean stw_image_get_size (GBytes *image,
                             guint  *width,
                             guint  *height);

STW_AVAILABLE_IN_1_0
char    *stw_screenshot_resolve_path (const char      *app_root,
                                      const char      *screenshot_dir,
                                      const char      *path,
                                      const char      *dir,
                                      StwImageFormat   format,
                                      GError         **error);

#define STW_TYPE_SURFACE (stw_surface_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwSurface, stw_surface, STW, SURFACE, GObject)

STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_id              (StwSurface *self);
STW_AVAILABLE_IN_1_0
StwSurfaceKind  stw_surface_get_kind            (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_parent_id       (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_window_id       (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_title           (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_url             (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_target_id       (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_frame_id        (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_cdp_session_id  (StwSurface *self);
STW_AVAILABLE_IN_1_0
gboolean        stw_surface_is_closed           (StwSurface *self);
STW_AVAILABLE_IN_1_0
StwSession     *stw_surface_dup_session         (StwSurface *self);

STW_AVAILABLE_IN_1_0
void      stw_surface_run_async  (StwSurface          *self,
                                  const char          *code,
                                  JsonNode            *arg,
                                  guint                timeout_ms,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data);
STW_AVAILABLE_IN_1_0
JsonNode *stw_surface_run_finish (StwSurface    *self,
                                  GAsyncResult  *result,
                                  gboolean      *serialized,
                                  GError       **error);
STW_AVAILABLE_IN_1_0
JsonNode *stw_surface_run_sync   (StwSurface    *self,
                                  const char    *code,
                                  JsonNode      *arg,
                                  guint          timeout_ms,
                                  gboolean      *serialized,
                                  GCancellable  *cancellable,
                                  GError       **error);

STW_AVAILABLE_IN_1_0
StwCapabilityFlags stw_surface_get_capabilities (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_get_origin_relation (StwSurface *self);
STW_AVAILABLE_IN_1_0
const char     *stw_surface_kind_to_string      (StwSurfaceKind kind);

STW_AVAILABLE_IN_1_0
void     stw_surface_capture_screenshot_async  (StwSurface                 *self,
                                                const StwScreenshotOptions *options,
                                                GCancellable               *cancellable,
                                                GAsyncReadyCallback         callback,
                                                gpointer                    user_data);
STW_AVAILABLE_IN_1_0
GBytes  *stw_surface_capture_screenshot_finish (StwSurface    *self,
                                                GAsyncResult  *result,
                                                GError       **error);
STW_AVAILABLE_IN_1_0
GBytes  *stw_surface_capture_screenshot_sync   (StwSurface                 *self,
                                                const StwScreenshotOptions *options,
                                                GCancellable               *cancellable,
                                                GError                    **error);

G_END_DECLS
