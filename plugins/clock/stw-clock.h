/* stw-clock.h: the clock plugin's API — a controllable clock in every renderer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * StwClockError:
 * @STW_CLOCK_ERROR_UNSUPPORTED: the session has no renderer to put a clock in
 * @STW_CLOCK_ERROR_NOT_INSTALLED: the session's clock is not installed
 *
 * The codes of the clock plugin, in its error domain %STW_CLOCK_ERROR, in the
 * order the plugin registers them. Each value is a wire code:
 * %STW_CLOCK_ERROR_UNSUPPORTED is `clock.UNSUPPORTED`, and
 * stw_error_get_code_name() answers it, also for an error a language binding
 * handed back.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_CLOCK_ERROR_UNSUPPORTED,
  STW_CLOCK_ERROR_NOT_INSTALLED,
} StwClockError;

/**
 * STW_CLOCK_ERROR:
 *
 * The error domain of the clock plugin: its codes are
 * [enum@StagewrightClock.ClockError].
 *
 * Since: 1.0
 */
#define STW_CLOCK_ERROR (stw_clock_error_quark ())
STW_AVAILABLE_IN_1_0
GQuark stw_clock_error_quark (void);

#define STW_TYPE_CLOCK_ERROR (stw_clock_error_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_clock_error_get_type (void);

/**
 * STW_CLOCK_MAX_MS:
 *
 * The longest span [method@StagewrightClock.ClockPlugin.advance_async] and
 * [method@StagewrightClock.ClockPlugin.run_for_async] accept: 366 days, in
 * milliseconds.
 */
#define STW_CLOCK_MAX_MS G_GINT64_CONSTANT (31622400000)

/**
 * STW_CLOCK_MAX_TIME_MS:
 *
 * The largest distance from the epoch a time may have, in milliseconds
 * (JavaScript's `Date` range).
 */
#define STW_CLOCK_MAX_TIME_MS G_GINT64_CONSTANT (8640000000000000)

#define STW_TYPE_CLOCK_STATUS (stw_clock_status_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwClockStatus, stw_clock_status, STW, CLOCK_STATUS, GObject)

STW_AVAILABLE_IN_1_0
gboolean stw_clock_status_get_installed     (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
gboolean stw_clock_status_get_paused        (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
gboolean stw_clock_status_get_fixed         (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
gint64   stw_clock_status_get_now           (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
gint64   stw_clock_status_get_ticks         (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
guint    stw_clock_status_get_pending_timers (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
guint    stw_clock_status_get_fired         (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
gboolean stw_clock_status_get_limit_reached (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
guint    stw_clock_status_get_timer_errors  (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
guint    stw_clock_status_get_documents     (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
guint    stw_clock_status_get_max_timers    (StwClockStatus *self);
STW_AVAILABLE_IN_1_0
gboolean stw_clock_status_get_main_process (StwClockStatus *self);
JsonObject *stw_clock_status_to_json        (StwClockStatus *self);

#define STW_TYPE_CLOCK_PLUGIN (stw_clock_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwClockPlugin, stw_clock_plugin, STW, CLOCK_PLUGIN, StwPlugin)

StwClockPlugin *stw_clock_plugin_new (void);

STW_AVAILABLE_IN_1_0
gboolean stw_clock_parse_time (JsonNode   *value,
                               gint64     *ms,
                               GError    **error);

STW_AVAILABLE_IN_1_0
void            stw_clock_plugin_install_async          (StwClockPlugin      *self,
                                                         StwSession          *session,
                                                         GDateTime           *time,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
StwClockStatus *stw_clock_plugin_install_finish         (StwClockPlugin      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
void            stw_clock_plugin_set_time_async         (StwClockPlugin      *self,
                                                         StwSession          *session,
                                                         GDateTime           *time,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
StwClockStatus *stw_clock_plugin_set_time_finish        (StwClockPlugin      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
void            stw_clock_plugin_set_system_time_async  (StwClockPlugin      *self,
                                                         StwSession          *session,
                                                         GDateTime           *time,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
StwClockStatus *stw_clock_plugin_set_system_time_finish (StwClockPlugin      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
void            stw_clock_plugin_advance_async          (StwClockPlugin      *self,
                                                         StwSession          *session,
                                                         gint64               ms,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
StwClockStatus *stw_clock_plugin_advance_finish         (StwClockPlugin      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
void            stw_clock_plugin_run_for_async          (StwClockPlugin      *self,
                                                         StwSession          *session,
                                                         gint64               ms,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
StwClockStatus *stw_clock_plugin_run_for_finish         (StwClockPlugin      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
void            stw_clock_plugin_pause_async            (StwClockPlugin      *self,
                                                         StwSession          *session,
                                                         GDateTime           *time,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
StwClockStatus *stw_clock_plugin_pause_finish           (StwClockPlugin      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
void            stw_clock_plugin_resume_async           (StwClockPlugin      *self,
                                                         StwSession          *session,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
StwClockStatus *stw_clock_plugin_resume_finish          (StwClockPlugin      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
STW_AVAILABLE_IN_1_0
void            stw_clock_plugin_status_async           (StwClockPlugin      *self,
                                                         StwSession          *session,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
StwClockStatus *stw_clock_plugin_status_finish          (StwClockPlugin      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);

STW_AVAILABLE_IN_1_0
StwClockStatus *stw_clock_plugin_install_sync (StwClockPlugin  *self,
                                               StwSession      *session,
                                               GDateTime       *time,
                                               GCancellable    *cancellable,
                                               GError         **error);
STW_AVAILABLE_IN_1_0
StwClockStatus *stw_clock_plugin_set_time_sync (StwClockPlugin  *self,
                                                StwSession      *session,
                                                GDateTime       *time,
                                                GCancellable    *cancellable,
                                                GError         **error);
STW_AVAILABLE_IN_1_0
StwClockStatus *stw_clock_plugin_set_system_time_sync (StwClockPlugin  *self,
                                                       StwSession      *session,
                                                       GDateTime       *time,
                                                       GCancellable    *cancellable,
                                                       GError         **error);
STW_AVAILABLE_IN_1_0
StwClockStatus *stw_clock_plugin_advance_sync (StwClockPlugin  *self,
                                               StwSession      *session,
                                               gint64           ms,
                                               GCancellable    *cancellable,
                                               GError         **error);
STW_AVAILABLE_IN_1_0
StwClockStatus *stw_clock_plugin_run_for_sync (StwClockPlugin  *self,
                                               StwSession      *session,
                                               gint64           ms,
                                               GCancellable    *cancellable,
                                               GError         **error);
STW_AVAILABLE_IN_1_0
StwClockStatus *stw_clock_plugin_pause_sync (StwClockPlugin  *self,
                                             StwSession      *session,
                                             GDateTime       *time,
                                             GCancellable    *cancellable,
                                             GError         **error);
STW_AVAILABLE_IN_1_0
StwClockStatus *stw_clock_plugin_resume_sync (StwClockPlugin  *self,
                                              StwSession      *session,
                                              GCancellable    *cancellable,
                                              GError         **error);
STW_AVAILABLE_IN_1_0
StwClockStatus *stw_clock_plugin_status_sync (StwClockPlugin  *self,
                                              StwSession      *session,
                                              GCancellable    *cancellable,
                                              GError         **error);

G_END_DECLS
