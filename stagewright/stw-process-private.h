/* stw-process-private.h: an app process the server owns
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

struct _StwProcess;

typedef struct
{
  char     *executable;   /* absolute */
  char     *main;         /* nullable: an Electron app dir or entry script */
  char    **args;         /* appended after main */
  char    **preloads;     /* nullable: `-r PATH` each, before main (plugins' own) */
  char    **env;          /* extra KEY=VALUE, already checked */
  char     *cwd;          /* nullable */
  gboolean  inspect;      /* --inspect=0: a Node main process to talk to */
  gboolean  require_inspector; /* no inspector before the browser endpoint: FUSES_BLOCK_LAUNCH */
  gboolean  pipe;         /* --remote-debugging-pipe instead of a port */
  guint     timeout_ms;   /* until the endpoints are known */
  /* Nullable: called with the inspector's URL as soon as its line appears
   * (before the launch finishes), so a caller can connect meanwhile. */
  void    (*inspector_announced) (struct _StwProcess *process,
                                  const char         *url,
                                  gpointer            data);
  gpointer  inspector_announced_data;
} StwLaunchSpec;

void stw_launch_spec_clear (StwLaunchSpec *spec);

/* What a failure shows of the app's output (details.log_tail). */
#define STW_LOG_TAIL_LINES 40
#define STW_LOG_TAIL_BYTES 4096

#define STW_TYPE_PROCESS (stw_process_get_type ())
G_DECLARE_FINAL_TYPE (StwProcess, stw_process, STW, PROCESS, GObject)

void          stw_process_launch_async     (const StwLaunchSpec  *spec,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
StwProcess   *stw_process_launch_finish    (GAsyncResult         *result,
                                            GError              **error);
GPid          stw_process_get_pid          (StwProcess           *self);
const char   *stw_process_get_browser_url  (StwProcess           *self);
const char   *stw_process_get_inspector_url (StwProcess          *self);
GInputStream *stw_process_get_pipe_input   (StwProcess           *self);
GOutputStream *stw_process_get_pipe_output (StwProcess           *self);
const char   *stw_process_get_temp_root    (StwProcess           *self);
const char   *stw_process_get_inspector_note (StwProcess         *self);
gboolean      stw_process_is_running       (StwProcess           *self);
void          stw_process_mark             (StwProcess           *self,
                                            const char           *phase);
char         *stw_process_dup_log_tail     (StwProcess           *self);
void          stw_process_wait_async       (StwProcess           *self,
                                            guint                 timeout_ms,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
gboolean      stw_process_wait_finish      (StwProcess           *self,
                                            GAsyncResult         *result,
                                            GError              **error);
void          stw_process_terminate_async  (StwProcess           *self,
                                            guint                 grace_ms,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
gboolean      stw_process_terminate_finish (StwProcess           *self,
                                            GAsyncResult         *result,
                                            gboolean             *escalated);
void          stw_process_kill             (StwProcess           *self);

gboolean      stw_env_key_is_denied        (const char           *key);

char         *_stw_process_make_temp_root  (GError              **error);
gboolean      _stw_process_check_fuses     (const char           *executable,
                                            GError              **error);

/* Whether @path (nullable, maybe relative) lies in the build tree: code
 * run from there uses the helpers built beside it (the guard, the plugin
 * loaders), not installed ones. */
gboolean _stw_in_build_tree (const char *path);

G_END_DECLS
