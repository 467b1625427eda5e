/* stw-action-result.h: what an interaction answers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "stw-element-ref.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_DIALOG_EVENT  (stw_dialog_event_get_type ())
#define STW_TYPE_ACTION_RESULT (stw_action_result_get_type ())

/**
 * StwDialogEvent:
 *
 * A JavaScript dialog the page opened: its type (`alert`, `confirm`,
 * `prompt`, `beforeunload`), its message, and what the session's dialog
 * policy did or will do with it (`accept` or `dismiss`). In a
 * [struct@Stagewright.DialogLog], also a call to a stubbed Electron method
 * the main process recorded.
 *
 * Since: 1.0
 */
typedef struct _StwDialogEvent StwDialogEvent;

STW_AVAILABLE_IN_1_0
GType           stw_dialog_event_get_type    (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwDialogEvent *stw_dialog_event_new         (const char           *type,
                                              const char           *message,
                                              const char           *action);
STW_AVAILABLE_IN_1_0
StwDialogEvent *stw_dialog_event_copy        (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
void            stw_dialog_event_free        (StwDialogEvent       *self);
STW_AVAILABLE_IN_1_0
const char     *stw_dialog_event_get_kind    (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
const char     *stw_dialog_event_get_message (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
const char     *stw_dialog_event_get_action  (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
gint64          stw_dialog_event_get_timestamp     (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
const char     *stw_dialog_event_get_surface_id    (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
const char     *stw_dialog_event_get_window_id     (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
const char     *stw_dialog_event_get_default_value (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
const char     *stw_dialog_event_get_prompt_text   (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
gboolean        stw_dialog_event_is_stubbed_call   (const StwDialogEvent *self);
STW_AVAILABLE_IN_1_0
JsonObject     *stw_dialog_event_to_json     (const StwDialogEvent *self);

/**
 * StwActionResult:
 *
 * What an interaction answers: the element it acted on (for a drag, the
 * destination, and the source beside it), the JavaScript dialog it
 * opened if any, and what the page reported back: the option values a
 * select chose, the file names an input or a drop received, whether the
 * page handled a drop.
 *
 * Since: 1.0
 */
typedef struct _StwActionResult StwActionResult;

STW_AVAILABLE_IN_1_0
GType                 stw_action_result_get_type              (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwActionResult      *stw_action_result_copy                  (const StwActionResult *self);
STW_AVAILABLE_IN_1_0
void                  stw_action_result_free                  (StwActionResult       *self);
STW_AVAILABLE_IN_1_0
const StwElementRef  *stw_action_result_get_target            (const StwActionResult *self);
STW_AVAILABLE_IN_1_0
const StwElementRef  *stw_action_result_get_source            (const StwActionResult *self);
STW_AVAILABLE_IN_1_0
const StwDialogEvent *stw_action_result_get_dialog            (const StwActionResult *self);
STW_AVAILABLE_IN_1_0
const char * const   *stw_action_result_get_values            (const StwActionResult *self);
STW_AVAILABLE_IN_1_0
gboolean              stw_action_result_get_default_prevented (const StwActionResult *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwDialogEvent, stw_dialog_event_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwActionResult, stw_action_result_free)

G_END_DECLS
