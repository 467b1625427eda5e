/* stw-wait.h: waiting for a page, and expecting of it — selectors, states,
 * events, text, values, counts and the URL
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

/**
 * STW_WAIT_MAX_TIMEOUT_MS:
 *
 * The longest a wait or an expectation waits, in milliseconds; longer
 * timeouts are clamped to it.
 *
 * Since: 1.0
 */
#define STW_WAIT_MAX_TIMEOUT_MS 60000

STW_AVAILABLE_IN_1_0
void        stw_surface_wait_for_selector_async (StwSurface          *self,
                                                 const StwTarget     *target,
                                                 const char          *state,
                                                 guint                timeout_ms,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_wait_for_selector_finish (StwSurface     *self,
                                                  GAsyncResult   *result,
                                                  StwElementRef **element,
                                                  GError        **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_wait_for_selector_sync (StwSurface       *self,
                                                const StwTarget  *target,
                                                const char       *state,
                                                guint             timeout_ms,
                                                StwElementRef   **element,
                                                GCancellable     *cancellable,
                                                GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_wait_for_state_async (StwSurface            *self,
                                              const StwTarget       *target,
                                              const StwElementState *state,
                                              guint                  timeout_ms,
                                              GCancellable          *cancellable,
                                              GAsyncReadyCallback    callback,
                                              gpointer               user_data);
STW_AVAILABLE_IN_1_0
StwElementState *stw_surface_wait_for_state_finish (StwSurface     *self,
                                                    GAsyncResult   *result,
                                                    StwElementRef **element,
                                                    GError        **error);
STW_AVAILABLE_IN_1_0
StwElementState *stw_surface_wait_for_state_sync (StwSurface             *self,
                                                  const StwTarget        *target,
                                                  const StwElementState  *state,
                                                  guint                   timeout_ms,
                                                  StwElementRef         **element,
                                                  GCancellable           *cancellable,
                                                  GError                **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_wait_for_event_async (StwSurface          *self,
                                              const char          *event_name,
                                              const StwTarget     *target,
                                              const char          *url_pattern,
                                              const char          *flags,
                                              guint                timeout_ms,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_surface_wait_for_event_finish (StwSurface    *self,
                                               GAsyncResult  *result,
                                               GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_surface_wait_for_event_sync (StwSurface           *self,
                                             const char           *event_name,
                                             const StwTarget      *target,
                                             const char           *url_pattern,
                                             const char           *flags,
                                             guint                timeout_ms,
                                             GCancellable         *cancellable,
                                             GError              **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_expect_text_async (StwSurface          *self,
                                           const StwTarget     *target,
                                           const char          *predicate,
                                           const char          *expected,
                                           const char          *flags,
                                           guint                timeout_ms,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_text_finish (StwSurface     *self,
                                            GAsyncResult   *result,
                                            char          **actual,
                                            StwElementRef **element,
                                            GError        **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_text_sync (StwSurface       *self,
                                          const StwTarget  *target,
                                          const char       *predicate,
                                          const char       *expected,
                                          const char       *flags,
                                          guint             timeout_ms,
                                          char            **actual,
                                          StwElementRef   **element,
                                          GCancellable     *cancellable,
                                          GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_expect_value_async (StwSurface          *self,
                                            const StwTarget     *target,
                                            const char          *predicate,
                                            const char          *expected,
                                            const char          *flags,
                                            guint                timeout_ms,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_value_finish (StwSurface     *self,
                                             GAsyncResult   *result,
                                             char          **actual,
                                             StwElementRef **element,
                                             GError        **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_value_sync (StwSurface       *self,
                                           const StwTarget  *target,
                                           const char       *predicate,
                                           const char       *expected,
                                           const char       *flags,
                                           guint             timeout_ms,
                                           char            **actual,
                                           StwElementRef   **element,
                                           GCancellable     *cancellable,
                                           GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_expect_visible_async (StwSurface          *self,
                                              const StwTarget     *target,
                                              guint                timeout_ms,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_visible_finish (StwSurface     *self,
                                               GAsyncResult   *result,
                                               StwElementRef **element,
                                               GError        **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_visible_sync (StwSurface       *self,
                                             const StwTarget  *target,
                                             guint             timeout_ms,
                                             StwElementRef   **element,
                                             GCancellable     *cancellable,
                                             GError          **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_expect_state_async (StwSurface            *self,
                                            const StwTarget       *target,
                                            const StwElementState *state,
                                            guint                  timeout_ms,
                                            GCancellable          *cancellable,
                                            GAsyncReadyCallback    callback,
                                            gpointer               user_data);
STW_AVAILABLE_IN_1_0
StwElementState *stw_surface_expect_state_finish (StwSurface     *self,
                                                  GAsyncResult   *result,
                                                  StwElementRef **element,
                                                  GError        **error);
STW_AVAILABLE_IN_1_0
StwElementState *stw_surface_expect_state_sync (StwSurface             *self,
                                                const StwTarget        *target,
                                                const StwElementState  *state,
                                                guint                   timeout_ms,
                                                StwElementRef         **element,
                                                GCancellable           *cancellable,
                                                GError                **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_expect_count_async (StwSurface          *self,
                                            JsonObject          *query,
                                            guint                timeout_ms,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_count_finish (StwSurface    *self,
                                             GAsyncResult  *result,
                                             gint64        *actual,
                                             GError       **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_count_sync (StwSurface           *self,
                                           JsonObject           *query,
                                           guint                timeout_ms,
                                           gint64               *actual,
                                           GCancellable         *cancellable,
                                           GError              **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_expect_url_async (StwSurface          *self,
                                          const char          *predicate,
                                          const char          *expected,
                                          const char          *flags,
                                          guint                timeout_ms,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_url_finish (StwSurface    *self,
                                           GAsyncResult  *result,
                                           char         **actual,
                                           GError       **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_expect_url_sync (StwSurface           *self,
                                         const char           *predicate,
                                         const char           *expected,
                                         const char           *flags,
                                         guint                timeout_ms,
                                         char                **actual,
                                         GCancellable         *cancellable,
                                         GError              **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_assert_pattern_async (StwSurface          *self,
                                              const StwTarget     *target,
                                              const char          *attribute,
                                              const char          *predicate,
                                              const char          *expected,
                                              const char          *flags,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_assert_pattern_finish (StwSurface     *self,
                                               GAsyncResult   *result,
                                               char          **actual,
                                               StwElementRef **element,
                                               GError        **error);
STW_AVAILABLE_IN_1_0
gboolean    stw_surface_assert_pattern_sync (StwSurface       *self,
                                             const StwTarget  *target,
                                             const char       *attribute,
                                             const char       *predicate,
                                             const char       *expected,
                                             const char       *flags,
                                             char            **actual,
                                             StwElementRef   **element,
                                             GCancellable     *cancellable,
                                             GError          **error);
G_END_DECLS
