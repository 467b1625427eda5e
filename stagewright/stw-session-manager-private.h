/* stw-session-manager-private.h: what the session manager's files share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * StwSessionManager is one object in four files, one concept each:
 * stw-session-manager.c is the registry (the live sessions, their ids,
 * lookup, the rules on how many, stop all, what an app reaches);
 * stw-session-manager-launch.c launches; stw-session-manager-attach.c
 * discovers endpoints and attaches to one; stw-session-manager-inject.c
 * injects into a running main process and holds the main-process finder,
 * which attach uses too. The ways to start a session go through the
 * registry, never the other way round.
 */
#pragma once

#include "stw-session-private.h"

G_BEGIN_DECLS

#define DEFAULT_CONNECT_MS 10000

struct _StwSessionManager
{
  GObject     parent_instance;
  GPtrArray  *sessions;
  char       *app_root;
  char       *instance_id; /* prefixes session ids: "ID.app-1-…" */
  guint       next_id;
  guint       launching;   /* launches in flight: they count against the rules */
  GMainContext *context;    /* thread-default when made */
};

/* stw-session-manager.c: the registry. */
void        _stw_session_manager_add_session     (StwSessionManager  *self,
                                                  StwSession         *session);
char       *_stw_session_manager_next_session_id (StwSessionManager  *self,
                                                  const char         *prefix);
gboolean    _stw_session_manager_check_capacity  (StwSessionManager  *self,
                                                  gboolean            allow_multiple,
                                                  GError            **error);

/* A way to start a session from JSON options, and its blocking form:
 * @options_json is parsed (NULL or "" is {}), @start run on the context
 * the manager was made in. */
typedef void (*StwSessionManagerStartFunc) (StwSessionManager   *self,
                                            JsonObject          *options,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
StwSession *_stw_session_manager_start_sync      (StwSessionManager           *self,
                                                  StwSessionManagerStartFunc   start,
                                                  const char                  *options_json,
                                                  GCancellable                *cancellable,
                                                  GError                     **error);

/* stw-session-manager-inject.c: the Node inspector of an app's main
 * process, for inject and for attach. @chain: GPid, nearest first. */
void          _stw_main_find_async  (GArray              *chain,
                                     guint                exclude_port,
                                     guint                timeout_ms,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
/* Returns: (transfer full): the proven inspector of the main process,
 * whose pid goes to @pid */
StwTransport *_stw_main_find_finish (GAsyncResult        *result,
                                     GPid                *pid,
                                     GError             **error);

G_END_DECLS
