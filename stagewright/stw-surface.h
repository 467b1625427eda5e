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
#include "stw-screenshot.h"
#include "stw-target.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

typedef struct _StwSession StwSession;

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
void           stw_surface_capture_screenshot_async  (StwSurface                 *self,
                                                      const StwScreenshotOptions *options,
                                                      GCancellable               *cancellable,
                                                      GAsyncReadyCallback         callback,
                                                      gpointer                    user_data);
STW_AVAILABLE_IN_1_0
StwScreenshot *stw_surface_capture_screenshot_finish (StwSurface                 *self,
                                                      GAsyncResult               *result,
                                                      GError                    **error);
STW_AVAILABLE_IN_1_0
StwScreenshot *stw_surface_capture_screenshot_sync   (StwSurface                 *self,
                                                      const StwScreenshotOptions *options,
                                                      GCancellable               *cancellable,
                                                      GError                    **error);

G_END_DECLS
