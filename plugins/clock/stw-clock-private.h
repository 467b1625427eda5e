/* stw-clock-private.h: what the clock plugin's tools share with its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-clock.h"

G_BEGIN_DECLS

/* The operations by name (clock-agent.js's), for the tools. */
void _stw_clock_plugin_run_async (StwClockPlugin      *self,
                                  StwSession          *session,
                                  const char          *op,
                                  gint64               value,
                                  gboolean             has_value,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data);
StwClockStatus *_stw_clock_plugin_run_finish (StwClockPlugin  *self,
                                              GAsyncResult    *result,
                                              GError         **error);
void _stw_clock_plugin_add_tools (StwClockPlugin *self);

G_END_DECLS
