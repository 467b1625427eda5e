/* stw-targets-private.h: a session's DevTools targets and frame trees
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-session.h"
#include "stw-transport.h"

G_BEGIN_DECLS

/* Follows @browser's targets (Target.attachedToTarget, detachedFromTarget,
 * targetDestroyed, targetInfoChanged) as surfaces of @session. The
 * handlers use @session as their data: disconnect them by it. */
/* Whether new targets pause for the plugins' new-surface hooks. */
gboolean _stw_targets_hooks_wanted   (StwSession   *session);
void     _stw_targets_connect        (StwSession   *session,
                                      StwTransport *browser);

/* Reads every page's frame tree (same-process frames become surfaces,
 * vanished ones close) and the targets' titles and URLs. */
void     _stw_targets_refresh_async  (StwSession          *session,
                                      StwTransport        *browser,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
gboolean _stw_targets_refresh_finish (StwSession    *session,
                                      GAsyncResult  *result,
                                      GError       **error);

G_END_DECLS
