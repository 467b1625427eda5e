/* stw-a11y.h: the a11y plugin's API — axe-core audits with a ref per finding
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

#define STW_TYPE_A11Y_NODE      (stw_a11y_node_get_type ())
#define STW_TYPE_A11Y_VIOLATION (stw_a11y_violation_get_type ())
#define STW_TYPE_A11Y_AUDIT     (stw_a11y_audit_get_type ())

typedef struct _StwA11yNode      StwA11yNode;
typedef struct _StwA11yViolation StwA11yViolation;
typedef struct _StwA11yAudit     StwA11yAudit;

GType                stw_a11y_node_get_type            (void) G_GNUC_CONST;
StwA11yNode         *stw_a11y_node_ref                 (StwA11yNode *self);
void                 stw_a11y_node_unref               (StwA11yNode *self);
const StwElementRef *stw_a11y_node_get_element         (StwA11yNode *self);
const char * const  *stw_a11y_node_get_target          (StwA11yNode *self);
const char          *stw_a11y_node_get_html            (StwA11yNode *self);
const char          *stw_a11y_node_get_failure_summary (StwA11yNode *self);
const char          *stw_a11y_node_get_impact          (StwA11yNode *self);

GType               stw_a11y_violation_get_type        (void) G_GNUC_CONST;
StwA11yViolation   *stw_a11y_violation_ref             (StwA11yViolation *self);
void                stw_a11y_violation_unref           (StwA11yViolation *self);
const char         *stw_a11y_violation_get_id          (StwA11yViolation *self);
const char         *stw_a11y_violation_get_impact      (StwA11yViolation *self);
const char         *stw_a11y_violation_get_description (StwA11yViolation *self);
const char         *stw_a11y_violation_get_help        (StwA11yViolation *self);
const char         *stw_a11y_violation_get_help_url    (StwA11yViolation *self);
const char * const *stw_a11y_violation_get_tags        (StwA11yViolation *self);
GPtrArray          *stw_a11y_violation_get_nodes       (StwA11yViolation *self);
guint               stw_a11y_violation_get_n_nodes     (StwA11yViolation *self);

GType               stw_a11y_audit_get_type              (void) G_GNUC_CONST;
StwA11yAudit       *stw_a11y_audit_ref                   (StwA11yAudit *self);
void                stw_a11y_audit_unref                 (StwA11yAudit *self);
GPtrArray          *stw_a11y_audit_get_violations        (StwA11yAudit *self);
guint               stw_a11y_audit_get_n_incomplete      (StwA11yAudit *self);
guint               stw_a11y_audit_get_n_passes          (StwA11yAudit *self);
guint               stw_a11y_audit_get_n_inapplicable    (StwA11yAudit *self);
const char         *stw_a11y_audit_get_engine_version    (StwA11yAudit *self);
const char         *stw_a11y_audit_get_surface_id        (StwA11yAudit *self);
guint               stw_a11y_audit_get_n_frames          (StwA11yAudit *self);
guint               stw_a11y_audit_get_n_frames_skipped  (StwA11yAudit *self);
gboolean            stw_a11y_audit_get_truncated         (StwA11yAudit *self);
JsonObject         *stw_a11y_audit_to_json               (StwA11yAudit *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwA11yNode, stw_a11y_node_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwA11yViolation, stw_a11y_violation_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwA11yAudit, stw_a11y_audit_unref)

#define STW_TYPE_A11Y_PLUGIN (stw_a11y_plugin_get_type ())
G_DECLARE_FINAL_TYPE (StwA11yPlugin, stw_a11y_plugin, STW, A11Y_PLUGIN, StwPlugin)

StwA11yPlugin *stw_a11y_plugin_new          (void);

void           stw_a11y_plugin_audit_async  (StwA11yPlugin       *self,
                                             StwSession          *session,
                                             const StwTarget     *scope,
                                             const char * const  *tags,
                                             const char * const  *rules,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
StwA11yAudit  *stw_a11y_plugin_audit_finish (StwA11yPlugin       *self,
                                             GAsyncResult        *result,
                                             GError             **error);

G_END_DECLS
