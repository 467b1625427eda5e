/* stw-production.h: validating a packaged Linux Electron app
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * StwProductionError:
 * @STW_PRODUCTION_ERROR_APP_NOT_FOUND: nothing at the path
 * @STW_PRODUCTION_ERROR_NOT_A_BUNDLE: nothing at the path looks like an Electron app
 * @STW_PRODUCTION_ERROR_UNSUPPORTED_ARTIFACT: the file is not an unpacked app directory, an
 *   AppImage or a `.deb`
 *
 * The codes of the production plugin, in its error domain
 * %STW_PRODUCTION_ERROR, in the order the plugin registers them. Each value is
 * a wire code: %STW_PRODUCTION_ERROR_APP_NOT_FOUND is
 * `production.APP_NOT_FOUND`, and stw_error_get_code_name() answers it, also
 * for an error a language binding handed back.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_PRODUCTION_ERROR_APP_NOT_FOUND,
  STW_PRODUCTION_ERROR_NOT_A_BUNDLE,
  STW_PRODUCTION_ERROR_UNSUPPORTED_ARTIFACT,
} StwProductionError;

/**
 * STW_PRODUCTION_ERROR:
 *
 * The error domain of the production plugin: its codes are
 * [enum@StagewrightProduction.ProductionError].
 *
 * Since: 1.0
 */
#define STW_PRODUCTION_ERROR (stw_production_error_quark ())
STW_AVAILABLE_IN_1_0
GQuark stw_production_error_quark (void);

#define STW_TYPE_PRODUCTION_ERROR (stw_production_error_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_production_error_get_type (void);

/**
 * StwProductionStatus:
 * @STW_PRODUCTION_STATUS_PASS: the check passed
 * @STW_PRODUCTION_STATUS_FAIL: the check failed
 * @STW_PRODUCTION_STATUS_UNKNOWN: the check could not tell (a tool is
 *   missing, the artifact lacks what it reads, or a bound was reached)
 *
 * The answer of one check of a [class@StagewrightProduction.Report].
 *
 * Since: 1.0
 */
typedef enum
{
  STW_PRODUCTION_STATUS_PASS,
  STW_PRODUCTION_STATUS_FAIL,
  STW_PRODUCTION_STATUS_UNKNOWN,
} StwProductionStatus;

#define STW_TYPE_PRODUCTION_STATUS (stw_production_status_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_production_status_get_type (void);

#define STW_TYPE_PRODUCTION_CHECK (stw_production_check_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwProductionCheck, stw_production_check, STW, PRODUCTION_CHECK, GObject)

#define STW_TYPE_PRODUCTION_REPORT (stw_production_report_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwProductionReport, stw_production_report, STW, PRODUCTION_REPORT, GObject)

#define STW_TYPE_PRODUCTION_PLUGIN (stw_production_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwProductionPlugin, stw_production_plugin, STW, PRODUCTION_PLUGIN, StwPlugin)

STW_AVAILABLE_IN_1_0
const char          *stw_production_check_get_id       (StwProductionCheck  *self);
STW_AVAILABLE_IN_1_0
StwProductionStatus  stw_production_check_get_status   (StwProductionCheck  *self);
STW_AVAILABLE_IN_1_0
const char          *stw_production_check_get_evidence (StwProductionCheck  *self);

STW_AVAILABLE_IN_1_0
const char          *stw_production_report_get_path     (StwProductionReport *self);
STW_AVAILABLE_IN_1_0
const char          *stw_production_report_get_artifact (StwProductionReport *self);
STW_AVAILABLE_IN_1_0
gboolean             stw_production_report_get_passed   (StwProductionReport *self);
STW_AVAILABLE_IN_1_0
StwProductionCheck **stw_production_report_get_checks   (StwProductionReport *self,
                                                         guint               *n_checks);
STW_AVAILABLE_IN_1_0
StwProductionCheck  *stw_production_report_lookup_check (StwProductionReport *self,
                                                         const char          *id);

STW_AVAILABLE_IN_1_0
StwProductionPlugin *stw_production_plugin_new (void);

STW_AVAILABLE_IN_1_0
void                 stw_production_plugin_validate_async  (StwProductionPlugin *self,
                                                            const char          *path,
                                                            GCancellable        *cancellable,
                                                            GAsyncReadyCallback  callback,
                                                            gpointer             user_data);
STW_AVAILABLE_IN_1_0
StwProductionReport *stw_production_plugin_validate_finish (StwProductionPlugin *self,
                                                            GAsyncResult        *result,
                                                            GError             **error);
STW_AVAILABLE_IN_1_0
StwProductionReport *stw_production_plugin_validate_sync   (StwProductionPlugin *self,
                                                            const char          *path,
                                                            GCancellable        *cancellable,
                                                            GError             **error);

G_END_DECLS
