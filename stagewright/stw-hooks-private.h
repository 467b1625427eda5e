/* stw-hooks-private.h: plugins' hooks, as the session code runs them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The session code knows no plugin: it asks its manager whether hooks
 * are wanted at a point and runs them (stw-plugin-hooks.c), and the
 * dispatcher that owns the manager supplies its loaded plugins.
 */
#pragma once

#include "stw-session.h"

G_BEGIN_DECLS

typedef enum
{
  STW_HOOK_SURFACE_ATTACHED,
  STW_HOOK_BEFORE_MAIN,
  STW_HOOK_APP_READY,
  STW_HOOK_WORKER_ATTACHED,
} StwHookPoint;

/* @error: (nullable) (transfer none): the first hook that failed. */
typedef void (*StwHooksDoneFunc) (GError   *error,
                                  gpointer  user_data);

gboolean _stw_hooks_wanted (StwSessionManager *manager,
                            StwHookPoint       point);
/* Runs the loaded plugins' hooks at @point one after the other, each
 * bounded to 10 s; @done is called once (maybe at once, when none). */
void     _stw_hooks_run    (StwSessionManager *manager,
                            StwHookPoint       point,
                            StwSession        *session,
                            StwSurface        *surface,
                            StwLaunchOptions  *options,
                            StwHooksDoneFunc   done,
                            gpointer           user_data);

G_END_DECLS
