/* stw-actions.h: acting on a page with real input, as a person would
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-action-result.h"
#include "stw-surface.h"
#include "stw-target.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_ACTION_OPTIONS (stw_action_options_get_type ())

/**
 * StwActionOptions:
 *
 * How an interaction acts: whether it skips the actionability checks
 * (`force`), how long it waits for the element to become actionable
 * (`timeout-ms`, 5000 by default, at most 30000), and for clicks the
 * mouse button and click count. %NULL options mean the defaults.
 *
 * Since: 1.0
 */
typedef struct _StwActionOptions StwActionOptions;

/**
 * STW_ACTION_TIMEOUT_MAX_MS:
 *
 * The longest actionability wait an interaction accepts.
 *
 * Since: 1.0
 */
#define STW_ACTION_TIMEOUT_MAX_MS 30000

STW_AVAILABLE_IN_1_0
GType             stw_action_options_get_type        (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwActionOptions *stw_action_options_new             (void);
STW_AVAILABLE_IN_1_0
StwActionOptions *stw_action_options_copy            (const StwActionOptions *options);
STW_AVAILABLE_IN_1_0
void              stw_action_options_free            (StwActionOptions *options);
STW_AVAILABLE_IN_1_0
void              stw_action_options_set_force       (StwActionOptions *options,
                                                      gboolean          force);
STW_AVAILABLE_IN_1_0
gboolean          stw_action_options_get_force       (const StwActionOptions *options);
STW_AVAILABLE_IN_1_0
void              stw_action_options_set_timeout_ms  (StwActionOptions *options,
                                                      guint             timeout_ms);
STW_AVAILABLE_IN_1_0
guint             stw_action_options_get_timeout_ms  (const StwActionOptions *options);
STW_AVAILABLE_IN_1_0
void              stw_action_options_set_button      (StwActionOptions *options,
                                                      const char       *button);
STW_AVAILABLE_IN_1_0
const char       *stw_action_options_get_button      (const StwActionOptions *options);
STW_AVAILABLE_IN_1_0
void              stw_action_options_set_click_count (StwActionOptions *options,
                                                      guint             click_count);
STW_AVAILABLE_IN_1_0
guint             stw_action_options_get_click_count (const StwActionOptions *options);
STW_AVAILABLE_IN_1_0
StwActionOptions *stw_action_options_new_from_json   (JsonObject  *object,
                                                      GError     **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwActionOptions, stw_action_options_free)

/* Every interaction below completes with a StwActionResult: the element
 * acted on and what the page reported back. fill_form answers JSON: its
 * fields arrive as JSON too (`{ref|selector, value}`), and it answers the
 * elements filled in that form. */

STW_AVAILABLE_IN_1_0
void        stw_surface_click_async (StwSurface             *self,
                                     const StwTarget        *target,
                                     const StwActionOptions *options,
                                     GCancellable           *cancellable,
                                     GAsyncReadyCallback     callback,
                                     gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_click_finish (StwSurface    *self,
                                      GAsyncResult  *result,
                                      GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_click_sync (StwSurface              *self,
                                    const StwTarget         *target,
                                    const StwActionOptions  *options,
                                    GCancellable            *cancellable,
                                    GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_hover_async (StwSurface             *self,
                                     const StwTarget        *target,
                                     const StwActionOptions *options,
                                     GCancellable           *cancellable,
                                     GAsyncReadyCallback     callback,
                                     gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_hover_finish (StwSurface    *self,
                                      GAsyncResult  *result,
                                      GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_hover_sync (StwSurface              *self,
                                    const StwTarget         *target,
                                    const StwActionOptions  *options,
                                    GCancellable            *cancellable,
                                    GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_drag_async (StwSurface             *self,
                                    const StwTarget        *source,
                                    const StwTarget        *destination,
                                    const StwActionOptions *options,
                                    GCancellable           *cancellable,
                                    GAsyncReadyCallback     callback,
                                    gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_drag_finish (StwSurface    *self,
                                     GAsyncResult  *result,
                                     GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_drag_sync (StwSurface              *self,
                                   const StwTarget         *source,
                                   const StwTarget         *destination,
                                   const StwActionOptions  *options,
                                   GCancellable            *cancellable,
                                   GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_fill_async (StwSurface             *self,
                                    const StwTarget        *target,
                                    const char             *text,
                                    const StwActionOptions *options,
                                    GCancellable           *cancellable,
                                    GAsyncReadyCallback     callback,
                                    gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_fill_finish (StwSurface    *self,
                                     GAsyncResult  *result,
                                     GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_fill_sync (StwSurface              *self,
                                   const StwTarget         *target,
                                   const char              *text,
                                   const StwActionOptions  *options,
                                   GCancellable            *cancellable,
                                   GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_clear_async (StwSurface             *self,
                                     const StwTarget        *target,
                                     const StwActionOptions *options,
                                     GCancellable           *cancellable,
                                     GAsyncReadyCallback     callback,
                                     gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_clear_finish (StwSurface    *self,
                                      GAsyncResult  *result,
                                      GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_clear_sync (StwSurface              *self,
                                    const StwTarget         *target,
                                    const StwActionOptions  *options,
                                    GCancellable            *cancellable,
                                    GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_type_text_async (StwSurface             *self,
                                         const StwTarget        *target,
                                         const char             *text,
                                         const StwActionOptions *options,
                                         GCancellable           *cancellable,
                                         GAsyncReadyCallback     callback,
                                         gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_type_text_finish (StwSurface    *self,
                                          GAsyncResult  *result,
                                          GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_type_text_sync (StwSurface              *self,
                                        const StwTarget         *target,
                                        const char              *text,
                                        const StwActionOptions  *options,
                                        GCancellable            *cancellable,
                                        GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_type_into_editor_async (StwSurface             *self,
                                                const StwTarget        *target,
                                                const char             *text,
                                                gboolean                replace,
                                                const StwActionOptions *options,
                                                GCancellable           *cancellable,
                                                GAsyncReadyCallback     callback,
                                                gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_type_into_editor_finish (StwSurface    *self,
                                                 GAsyncResult  *result,
                                                 GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_type_into_editor_sync (StwSurface              *self,
                                               const StwTarget         *target,
                                               const char              *text,
                                               gboolean                 replace,
                                               const StwActionOptions  *options,
                                               GCancellable            *cancellable,
                                               GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_press_key_async (StwSurface             *self,
                                         const StwTarget        *target,
                                         const char             *key,
                                         const StwActionOptions *options,
                                         GCancellable           *cancellable,
                                         GAsyncReadyCallback     callback,
                                         gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_press_key_finish (StwSurface    *self,
                                          GAsyncResult  *result,
                                          GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_press_key_sync (StwSurface              *self,
                                        const StwTarget         *target,
                                        const char              *key,
                                        const StwActionOptions  *options,
                                        GCancellable            *cancellable,
                                        GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_press_sequence_async (StwSurface             *self,
                                              const StwTarget        *target,
                                              const char * const     *keys,
                                              const StwActionOptions *options,
                                              GCancellable           *cancellable,
                                              GAsyncReadyCallback     callback,
                                              gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_press_sequence_finish (StwSurface    *self,
                                               GAsyncResult  *result,
                                               GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_press_sequence_sync (StwSurface              *self,
                                             const StwTarget         *target,
                                             const char * const      *keys,
                                             const StwActionOptions  *options,
                                             GCancellable            *cancellable,
                                             GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_select_options_async (StwSurface             *self,
                                              const StwTarget        *target,
                                              const char * const     *values,
                                              const StwActionOptions *options,
                                              GCancellable           *cancellable,
                                              GAsyncReadyCallback     callback,
                                              gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_select_options_finish (StwSurface    *self,
                                               GAsyncResult  *result,
                                               GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_select_options_sync (StwSurface              *self,
                                             const StwTarget         *target,
                                             const char * const      *values,
                                             const StwActionOptions  *options,
                                             GCancellable            *cancellable,
                                             GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_set_checked_async (StwSurface             *self,
                                           const StwTarget        *target,
                                           gboolean                checked,
                                           const StwActionOptions *options,
                                           GCancellable           *cancellable,
                                           GAsyncReadyCallback     callback,
                                           gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_set_checked_finish (StwSurface    *self,
                                            GAsyncResult  *result,
                                            GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_set_checked_sync (StwSurface              *self,
                                          const StwTarget         *target,
                                          gboolean                 checked,
                                          const StwActionOptions  *options,
                                          GCancellable            *cancellable,
                                          GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_set_files_async (StwSurface             *self,
                                         const StwTarget        *target,
                                         const char * const     *paths,
                                         const char             *app_root,
                                         const StwActionOptions *options,
                                         GCancellable           *cancellable,
                                         GAsyncReadyCallback     callback,
                                         gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_set_files_finish (StwSurface    *self,
                                          GAsyncResult  *result,
                                          GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_set_files_sync (StwSurface              *self,
                                        const StwTarget         *target,
                                        const char * const      *paths,
                                        const char              *app_root,
                                        const StwActionOptions  *options,
                                        GCancellable            *cancellable,
                                        GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_drop_files_async (StwSurface             *self,
                                          const StwTarget        *target,
                                          const char * const     *paths,
                                          const char             *mime_type,
                                          const char             *app_root,
                                          const StwActionOptions *options,
                                          GCancellable           *cancellable,
                                          GAsyncReadyCallback     callback,
                                          gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_drop_files_finish (StwSurface    *self,
                                           GAsyncResult  *result,
                                           GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_drop_files_sync (StwSurface              *self,
                                         const StwTarget         *target,
                                         const char * const      *paths,
                                         const char              *mime_type,
                                         const char              *app_root,
                                         const StwActionOptions  *options,
                                         GCancellable            *cancellable,
                                         GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_scroll_async (StwSurface             *self,
                                      const StwTarget        *target,
                                      double                  dx,
                                      double                  dy,
                                      const StwActionOptions *options,
                                      GCancellable           *cancellable,
                                      GAsyncReadyCallback     callback,
                                      gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_scroll_finish (StwSurface    *self,
                                       GAsyncResult  *result,
                                       GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_scroll_sync (StwSurface              *self,
                                     const StwTarget         *target,
                                     double                   dx,
                                     double                   dy,
                                     const StwActionOptions  *options,
                                     GCancellable            *cancellable,
                                     GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_scroll_into_view_async (StwSurface             *self,
                                                const StwTarget        *target,
                                                const StwActionOptions *options,
                                                GCancellable           *cancellable,
                                                GAsyncReadyCallback     callback,
                                                gpointer                user_data);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_scroll_into_view_finish (StwSurface    *self,
                                                 GAsyncResult  *result,
                                                 GError       **error);
STW_AVAILABLE_IN_1_0
StwActionResult *stw_surface_scroll_into_view_sync (StwSurface              *self,
                                               const StwTarget         *target,
                                               const StwActionOptions  *options,
                                               GCancellable            *cancellable,
                                               GError                 **error);

STW_AVAILABLE_IN_1_0
void        stw_surface_fill_form_async  (StwSurface             *self,
                                          JsonArray              *fields,
                                          const StwActionOptions *options,
                                          GCancellable           *cancellable,
                                          GAsyncReadyCallback     callback,
                                          gpointer                user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_surface_fill_form_finish (StwSurface    *self,
                                          GAsyncResult  *result,
                                          GError       **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_surface_fill_form_sync   (StwSurface             *self,
                                          JsonArray              *fields,
                                          const StwActionOptions *options,
                                          GCancellable           *cancellable,
                                          GError                **error);

G_END_DECLS
