/* stw-dialogs.h: answering the app's dialogs, and stubbing Electron's
 * native dialogs, shell and clipboard
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
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_DIALOG_POLICY (stw_dialog_policy_get_type ())
#define STW_TYPE_DIALOG_LOG    (stw_dialog_log_get_type ())

/**
 * StwDialogPolicy:
 *
 * How the session answers the app's dialogs: an action for each type of
 * page dialog, the text a `prompt` gets, whether the policy is spent after
 * one dialog, and which Electron methods are stubbed in the main process.
 * See [method@Stagewright.Session.dup_dialog_policy].
 *
 * Since: 1.0
 */
typedef struct _StwDialogPolicy StwDialogPolicy;

STW_AVAILABLE_IN_1_0
GType            stw_dialog_policy_get_type        (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwDialogPolicy *stw_dialog_policy_ref             (StwDialogPolicy       *self);
STW_AVAILABLE_IN_1_0
void             stw_dialog_policy_unref           (StwDialogPolicy       *self);
STW_AVAILABLE_IN_1_0
const char      *stw_dialog_policy_get_action      (const StwDialogPolicy *self);
STW_AVAILABLE_IN_1_0
const char      *stw_dialog_policy_get_action_for  (const StwDialogPolicy *self,
                                                    const char            *type);
STW_AVAILABLE_IN_1_0
const char      *stw_dialog_policy_get_prompt_text (const StwDialogPolicy *self);
STW_AVAILABLE_IN_1_0
gboolean         stw_dialog_policy_is_one_shot     (const StwDialogPolicy *self);
STW_AVAILABLE_IN_1_0
const char * const *stw_dialog_policy_get_stubs    (const StwDialogPolicy *self);

/**
 * StwDialogLog:
 *
 * What [method@Stagewright.Session.read_dialog_events_async] read: the
 * events picked, oldest first, how many older ones the session dropped,
 * the policy in force and whether native stubs are available.
 *
 * Since: 1.0
 */
typedef struct _StwDialogLog StwDialogLog;

STW_AVAILABLE_IN_1_0
GType                  stw_dialog_log_get_type       (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwDialogLog          *stw_dialog_log_ref            (StwDialogLog       *self);
STW_AVAILABLE_IN_1_0
void                   stw_dialog_log_unref          (StwDialogLog       *self);
STW_AVAILABLE_IN_1_0
guint                  stw_dialog_log_get_n_events   (const StwDialogLog *self);
STW_AVAILABLE_IN_1_0
const StwDialogEvent  *stw_dialog_log_get_event      (const StwDialogLog *self,
                                                      guint               index);
STW_AVAILABLE_IN_1_0
guint64                stw_dialog_log_get_overflowed (const StwDialogLog *self);
STW_AVAILABLE_IN_1_0
StwDialogPolicy       *stw_dialog_log_get_policy     (const StwDialogLog *self);
STW_AVAILABLE_IN_1_0
gboolean               stw_dialog_log_is_native      (const StwDialogLog *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwDialogPolicy, stw_dialog_policy_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwDialogLog, stw_dialog_log_unref)

/**
 * STW_DIALOG_EVENTS_MAX:
 *
 * How many dialog events (page dialogs and stubbed calls) a session keeps;
 * older ones are dropped and counted as `overflowed`.
 *
 * Since: 1.0
 */
#define STW_DIALOG_EVENTS_MAX 200

G_END_DECLS
