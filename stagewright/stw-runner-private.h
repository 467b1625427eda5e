/* stw-runner-private.h: running agent code (stw-runner.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-surface.h"
#include "stw-transport.h"

G_BEGIN_DECLS

/* The budget of a run when the caller gives none. */
#define STW_RUN_DEFAULT_TIMEOUT_MS 30000

/* Runtime.evaluate's params: by value, awaited, with the inspector's
 * command-line API (require) when @command_line_api. */
JsonObject *_stw_run_evaluate_params (const char *expression,
                                      gboolean    command_line_api);
/* BAD_ARGUMENT for code too long to run. */
gboolean  _stw_run_check_code     (const char    *code,
                                   GError       **error);
/* Runs @code on @task, whose cancellable is the budget, and returns its
 * value on it (_stw_run_finish()): in the main process behind @inspector
 * (`electron, arg`), or in @surface's main world (`arg`). */
void      _stw_run_main_start     (GTask         *task,
                                   StwTransport  *inspector,
                                   const char    *code,
                                   JsonNode      *arg,
                                   guint          timeout_ms);
void      _stw_run_renderer_start (GTask         *task,
                                   StwSurface    *surface,
                                   const char    *code,
                                   JsonNode      *arg,
                                   guint          timeout_ms);
JsonNode *_stw_run_finish         (GAsyncResult  *result,
                                   gboolean      *serialized,
                                   GError       **error);

G_END_DECLS
