/* stw-invocation-private.h: what the dispatcher sees of an invocation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-invocation.h"

G_BEGIN_DECLS

typedef void (*StwInvocationDoneFunc) (StwInvocation *invocation,
                                       gpointer       user_data);

StwInvocation *_stw_invocation_new (StwDispatcher *dispatcher,
                                    StwTool       *tool,
                                    JsonObject    *arguments);
void           _stw_invocation_set_arguments (StwInvocation *self,
                                              JsonObject    *arguments);
void           _stw_invocation_begin (StwInvocation         *self,
                                      StwInvocationDoneFunc  done,
                                      gpointer               user_data);
void           _stw_invocation_abandon (StwInvocation *self);
void           _stw_invocation_set_session (StwInvocation *self,
                                            StwSession    *session);
typedef gboolean (*StwInvocationReachFunc) (GPid     pid,
                                            guint    port,
                                            gpointer user_data);

void           _stw_invocation_set_reach_func (StwInvocation          *self,
                                               StwInvocationReachFunc  func,
                                               gpointer                user_data,
                                               GDestroyNotify          destroy);
void           _stw_invocation_set_client_id (StwInvocation *self,
                                              const char    *client_id);
/* The image content items stw_invocation_add_image() collected, or NULL. */
JsonArray     *_stw_invocation_get_images (StwInvocation *self);

G_END_DECLS
