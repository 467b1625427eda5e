/* stw-cdp.h: raw DevTools access to a surface, for plugins
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

#define STW_TYPE_CDP_SUBSCRIPTION (stw_cdp_subscription_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwCdpSubscription, stw_cdp_subscription, STW, CDP_SUBSCRIPTION, GObject)

STW_AVAILABLE_IN_1_0
void        stw_surface_send_cdp_async       (StwSurface          *self,
                                              const char          *method,
                                              JsonObject          *params,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_surface_send_cdp_finish      (StwSurface    *self,
                                              GAsyncResult  *result,
                                              GError       **error);
STW_AVAILABLE_IN_1_0
void        stw_surface_call_isolated_async  (StwSurface          *self,
                                              const char          *function_declaration,
                                              JsonArray           *arguments,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
STW_AVAILABLE_IN_1_0
JsonNode   *stw_surface_call_isolated_finish (StwSurface    *self,
                                              GAsyncResult  *result,
                                              GError       **error);
STW_AVAILABLE_IN_1_0
void           stw_surface_resolve_element_async  (StwSurface          *self,
                                                   const StwTarget     *target,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
STW_AVAILABLE_IN_1_0
JsonObject    *stw_surface_resolve_element_finish (StwSurface    *self,
                                                   GAsyncResult  *result,
                                                   StwSurface   **element_surface,
                                                   GError       **error);
STW_AVAILABLE_IN_1_0
StwElementRef *stw_surface_bind_element_ref       (StwSurface  *self,
                                                   JsonObject  *handle,
                                                   GError     **error);
STW_AVAILABLE_IN_1_0
StwCdpSubscription *stw_surface_subscribe_cdp (StwSurface *self,
                                               const char *method);

STW_AVAILABLE_IN_1_0
StwSurface *stw_cdp_subscription_get_surface (StwCdpSubscription *self);
STW_AVAILABLE_IN_1_0
const char *stw_cdp_subscription_get_method  (StwCdpSubscription *self);
STW_AVAILABLE_IN_1_0
void        stw_cdp_subscription_cancel      (StwCdpSubscription *self);

G_END_DECLS
