/* stw-read.h: reading an element — text, value, attribute, box, style,
 * state, existence — and the focused element
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-element-ref.h"
#include "stw-surface.h"
#include "stw-target.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

STW_AVAILABLE_IN_1_0
void        stw_surface_get_text_async            (StwSurface          *self,
                                                   const StwTarget     *target,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
STW_AVAILABLE_IN_1_0
char       *stw_surface_get_text_finish           (StwSurface    *self,
                                                   GAsyncResult  *result,
                                                   StwElementRef **element,
                                                   GError       **error);
STW_AVAILABLE_IN_1_0
char       *stw_surface_get_text_sync             (StwSurface       *self,
                                                   const StwTarget  *target,
                                                   StwElementRef   **element,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_get_value_async           (StwSurface          *self,
                                                   const StwTarget     *target,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
STW_AVAILABLE_IN_1_0
char       *stw_surface_get_value_finish          (StwSurface    *self,
                                                   GAsyncResult  *result,
                                                   StwElementRef **element,
                                                   GError       **error);
STW_AVAILABLE_IN_1_0
char       *stw_surface_get_value_sync            (StwSurface       *self,
                                                   const StwTarget  *target,
                                                   StwElementRef   **element,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_get_attribute_async       (StwSurface          *self,
                                                   const StwTarget     *target,
                                                   const char          *name,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
STW_AVAILABLE_IN_1_0
char       *stw_surface_get_attribute_finish      (StwSurface    *self,
                                                   GAsyncResult  *result,
                                                   StwElementRef **element,
                                                   GError       **error);
STW_AVAILABLE_IN_1_0
char       *stw_surface_get_attribute_sync        (StwSurface       *self,
                                                   const StwTarget  *target,
                                                   const char       *name,
                                                   StwElementRef   **element,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_get_bbox_async            (StwSurface          *self,
                                                   const StwTarget     *target,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwBox     *stw_surface_get_bbox_finish           (StwSurface      *self,
                                                   GAsyncResult    *result,
                                                   StwElementRef  **element,
                                                   GError         **error);
STW_AVAILABLE_IN_1_0
StwBox     *stw_surface_get_bbox_sync             (StwSurface       *self,
                                                   const StwTarget  *target,
                                                   StwElementRef   **element,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_get_computed_style_async  (StwSurface          *self,
                                                   const StwTarget     *target,
                                                   const char * const  *properties,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_surface_get_computed_style_finish (StwSurface     *self,
                                                   GAsyncResult   *result,
                                                   StwElementRef **element,
                                                   GError        **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_surface_get_computed_style_sync   (StwSurface         *self,
                                                   const StwTarget    *target,
                                                   const char * const *properties,
                                                   StwElementRef     **element,
                                                   GCancellable       *cancellable,
                                                   GError            **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_get_state_async           (StwSurface          *self,
                                                   const StwTarget     *target,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwElementState *stw_surface_get_state_finish          (StwSurface    *self,
                                                   GAsyncResult  *result,
                                                   StwElementRef **element,
                                                   GError       **error);
STW_AVAILABLE_IN_1_0
StwElementState *stw_surface_get_state_sync            (StwSurface       *self,
                                                   const StwTarget  *target,
                                                   StwElementRef   **element,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_exists_async              (StwSurface          *self,
                                                   const StwTarget     *target,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_exists_finish             (StwSurface    *self,
                                                   GAsyncResult  *result,
                                                   StwElementRef **element,
                                                   GError       **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_exists_sync               (StwSurface       *self,
                                                   const StwTarget  *target,
                                                   StwElementRef   **element,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_get_focused_element_async  (StwSurface          *self,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwElementRef *stw_surface_get_focused_element_finish (StwSurface    *self,
                                                    GAsyncResult  *result,
                                                    GError       **error);
STW_AVAILABLE_IN_1_0
StwElementRef *stw_surface_get_focused_element_sync   (StwSurface    *self,
                                                    GCancellable  *cancellable,
                                                    GError       **error);

G_END_DECLS
