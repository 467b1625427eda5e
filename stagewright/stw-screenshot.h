/* stw-screenshot.h: screenshots, what they capture and where they go
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

#define STW_TYPE_SCREENSHOT (stw_screenshot_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwScreenshot, stw_screenshot, STW, SCREENSHOT, GObject)

STW_AVAILABLE_IN_1_0
StwScreenshot  *stw_screenshot_new_from_bytes   (GBytes         *bytes,
                                                 GError        **error);
STW_AVAILABLE_IN_1_0
GBytes         *stw_screenshot_get_bytes        (StwScreenshot  *self);
STW_AVAILABLE_IN_1_0
guint           stw_screenshot_get_width        (StwScreenshot  *self);
STW_AVAILABLE_IN_1_0
guint           stw_screenshot_get_height       (StwScreenshot  *self);
STW_AVAILABLE_IN_1_0
StwImageFormat  stw_screenshot_get_format       (StwScreenshot  *self);
STW_AVAILABLE_IN_1_0
const char     *stw_screenshot_get_mime_type    (StwScreenshot  *self);
STW_AVAILABLE_IN_1_0
double          stw_screenshot_get_scale_factor (StwScreenshot  *self);
STW_AVAILABLE_IN_1_0
const char     *stw_screenshot_get_path         (StwScreenshot  *self);
STW_AVAILABLE_IN_1_0
gboolean        stw_screenshot_save             (StwScreenshot  *self,
                                                 const char     *path,
                                                 GError        **error);

G_END_DECLS
