/* stw-proc-private.h: which processes we may signal
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* PID_MAX_LIMIT of 64-bit Linux: no pid is ever this large. */
#define STW_PID_LIMIT 4194304

gboolean _stw_proc_check_pid_range     (gint64       pid,
                                        GError     **error);
GPid     _stw_proc_find_listener       (guint        port);
gboolean _stw_proc_check_endpoint_pid  (GPid         pid,
                                        guint        port,
                                        GPid        *holder,
                                        GError     **error);
gboolean _stw_proc_catches_signal      (GPid         pid,
                                        int          signo);
guint64  _stw_proc_get_start_time      (GPid         pid);
gboolean _stw_proc_is_same             (GPid         pid,
                                        guint64      start_time);
gboolean _stw_proc_check_signal_caught (GPid         pid,
                                        int          signo,
                                        GError     **error);
GArray  *_stw_proc_listening_ports     (GPid         pid);
GPid     _stw_proc_get_parent          (GPid         pid);
GArray  *_stw_proc_endpoint_chain      (guint        port,
                                        GError     **error);

G_END_DECLS
