/* stw-a11y.h: the a11y plugin's API — axe-core audits with a ref per finding
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * STW_A11Y_ENGINE_MAX_SIZE:
 *
 * The largest axe-core file the plugin reads, in bytes (16 MiB).
 *
 * Since: 1.0
 */
#define STW_A11Y_ENGINE_MAX_SIZE (16 * 1024 * 1024)

/**
 * STW_A11Y_MAX_NAMES:
 *
 * The most tags, and the most rules, an audit takes.
 *
 * Since: 1.0
 */
#define STW_A11Y_MAX_NAMES 100

/**
 * StwA11yError:
 * @STW_A11Y_ERROR_UNSUPPORTED: no usable axe-core engine (none at the
 *   config's `engine` or the default location, or the file is not axe-core)
 * @STW_A11Y_ERROR_INVALID_SELECTOR: the scope's selector is not valid CSS
 * @STW_A11Y_ERROR_SCOPE_NOT_FOUND: nothing matches the scope's selector, or
 *   the scope's ref is gone
 * @STW_A11Y_ERROR_ENGINE_FAILED: axe-core failed, or the audit did not
 *   finish within the config's `timeoutMs`
 *
 * The codes of the a11y plugin, in its error domain %STW_A11Y_ERROR, in the
 * order the plugin registers them. Each value is a wire code:
 * %STW_A11Y_ERROR_UNSUPPORTED is `a11y.UNSUPPORTED`, and
 * stw_error_get_code_name() answers it, also for an error a language
 * binding handed back.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_A11Y_ERROR_UNSUPPORTED,
  STW_A11Y_ERROR_INVALID_SELECTOR,
  STW_A11Y_ERROR_SCOPE_NOT_FOUND,
  STW_A11Y_ERROR_ENGINE_FAILED,
} StwA11yError;

/**
 * STW_A11Y_ERROR:
 *
 * The error domain of the a11y plugin: its codes are
 * [enum@StagewrightA11y.A11yError].
 *
 * Since: 1.0
 */
#define STW_A11Y_ERROR (stw_a11y_error_quark ())
STW_AVAILABLE_IN_1_0
GQuark stw_a11y_error_quark (void);

#define STW_TYPE_A11Y_ERROR (stw_a11y_error_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_a11y_error_get_type (void);

#define STW_TYPE_A11Y_NODE (stw_a11y_node_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwA11yNode, stw_a11y_node, STW, A11Y_NODE, GObject)

STW_AVAILABLE_IN_1_0
const StwElementRef *stw_a11y_node_get_element         (StwA11yNode *self);
STW_AVAILABLE_IN_1_0
const char * const  *stw_a11y_node_get_target          (StwA11yNode *self);
STW_AVAILABLE_IN_1_0
const char          *stw_a11y_node_get_html            (StwA11yNode *self);
STW_AVAILABLE_IN_1_0
const char          *stw_a11y_node_get_failure_summary (StwA11yNode *self);
STW_AVAILABLE_IN_1_0
const char          *stw_a11y_node_get_impact          (StwA11yNode *self);

#define STW_TYPE_A11Y_VIOLATION (stw_a11y_violation_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwA11yViolation, stw_a11y_violation, STW, A11Y_VIOLATION, GObject)

STW_AVAILABLE_IN_1_0
const char         *stw_a11y_violation_get_id          (StwA11yViolation *self);
STW_AVAILABLE_IN_1_0
const char         *stw_a11y_violation_get_impact      (StwA11yViolation *self);
STW_AVAILABLE_IN_1_0
const char         *stw_a11y_violation_get_description (StwA11yViolation *self);
STW_AVAILABLE_IN_1_0
const char         *stw_a11y_violation_get_help        (StwA11yViolation *self);
STW_AVAILABLE_IN_1_0
const char         *stw_a11y_violation_get_help_url    (StwA11yViolation *self);
STW_AVAILABLE_IN_1_0
const char * const *stw_a11y_violation_get_tags        (StwA11yViolation *self);
STW_AVAILABLE_IN_1_0
GListModel         *stw_a11y_violation_get_nodes       (StwA11yViolation *self);
STW_AVAILABLE_IN_1_0
guint               stw_a11y_violation_get_n_nodes     (StwA11yViolation *self);

#define STW_TYPE_A11Y_REPORT (stw_a11y_report_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwA11yReport, stw_a11y_report, STW, A11Y_REPORT, GObject)

STW_AVAILABLE_IN_1_0
GListModel         *stw_a11y_report_get_violations          (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
guint               stw_a11y_report_get_n_violations        (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
guint               stw_a11y_report_get_n_incomplete        (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
guint               stw_a11y_report_get_n_passes            (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
guint               stw_a11y_report_get_n_inapplicable      (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_a11y_report_get_truncated           (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
const char         *stw_a11y_report_get_surface_id          (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
const char         *stw_a11y_report_get_engine_version      (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
guint               stw_a11y_report_get_n_frames            (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
guint               stw_a11y_report_get_n_frames_skipped    (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
gboolean            stw_a11y_report_get_closed_shadow_roots (StwA11yReport *self);
STW_AVAILABLE_IN_1_0
const char * const *stw_a11y_report_get_notes               (StwA11yReport *self);

#define STW_TYPE_A11Y_PLUGIN (stw_a11y_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwA11yPlugin, stw_a11y_plugin, STW, A11Y_PLUGIN, StwPlugin)

STW_AVAILABLE_IN_1_0
StwA11yPlugin *stw_a11y_plugin_new          (void);

STW_AVAILABLE_IN_1_0
void           stw_a11y_plugin_audit_async  (StwA11yPlugin       *self,
                                             StwSession          *session,
                                             const StwTarget     *scope,
                                             const char * const  *tags,
                                             const char * const  *rules,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwA11yReport *stw_a11y_plugin_audit_finish (StwA11yPlugin       *self,
                                             GAsyncResult        *result,
                                             GError             **error);
STW_AVAILABLE_IN_1_0
StwA11yReport *stw_a11y_plugin_audit_sync   (StwA11yPlugin       *self,
                                             StwSession          *session,
                                             const StwTarget     *scope,
                                             const char * const  *tags,
                                             const char * const  *rules,
                                             GCancellable        *cancellable,
                                             GError             **error);

G_END_DECLS
