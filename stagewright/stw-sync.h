/* stw-sync.h: the blocking-call helper, for the `_sync` forms of plugin APIs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>

#include "stw-version-macros.h"

G_BEGIN_DECLS

/**
 * StwSyncCall: (skip)
 *
 * One blocking call in progress, on the caller's stack. Its fields are
 * private. A plugin's `_sync` function uses it exactly as the library's own
 * do (docs/architecture.md, "Blocking calls"):
 *
 * |[<!-- language="C" -->
 * StwSyncCall call;
 * gboolean ret;
 *
 * if (!stw_sync_call_init (&call, session))
 *   return FALSE;
 * stw_foo_plugin_bar_async (self, session, cancellable, stw_sync_call_callback, &call);
 * ret = stw_foo_plugin_bar_finish (self, stw_sync_call_wait (&call), error);
 * stw_sync_call_clear (&call);
 * return ret;
 * ]|
 *
 * Since: 1.0
 */
typedef struct
{
  /*< private >*/
  GMainContext *context;
  GAsyncResult *result;
  gboolean      acquired;
  gpointer      padding[3];
} StwSyncCall;

STW_AVAILABLE_IN_1_0
gboolean      stw_sync_call_init     (StwSyncCall  *call,
                                      gpointer      owner);
STW_AVAILABLE_IN_1_0
void          stw_sync_call_callback (GObject      *source,
                                      GAsyncResult *result,
                                      gpointer      user_data);
STW_AVAILABLE_IN_1_0
GAsyncResult *stw_sync_call_wait     (StwSyncCall  *call);
STW_AVAILABLE_IN_1_0
void          stw_sync_call_clear    (StwSyncCall  *call);

G_END_DECLS
