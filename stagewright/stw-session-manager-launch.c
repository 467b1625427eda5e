/* stw-session-manager-launch.c: launching an app the server owns
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>

#include "stw-cdp-pipe.h"
#include "stw-cdp-websocket.h"
#include "stw-confine-private.h"
#include "stw-error-registry.h"
#include "stw-hooks-private.h"
#include "stw-launch-options-private.h"
#include "stw-session-manager-private.h"
#include "stw-soup-private.h"
#include "stw-sync-private.h"

#define DEFAULT_FIRST_WINDOW_MS 30000

/* A launch path: absolute, existing, and inside --app-root when set. */
static char *
check_path (StwSessionManager  *self,
            const char         *field,
            const char         *path,
            gboolean            directory_ok,
            GError            **error)
{
  g_autofree char *real = NULL;

  if (!g_path_is_absolute (path))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_ABSOLUTE_PATH_REQUIRED,
                                                    _("%s must be an absolute path"), field));
      return NULL;
    }
  real = realpath (path, NULL);
  if (real == NULL || (!directory_ok && g_file_test (real, G_FILE_TEST_IS_DIR)))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("%s does not exist: %s"), field, path));
      return NULL;
    }
  return _stw_confine_path (self->app_root, NULL, real, field, error);
}

/* The runtime for @main when no executable is given: the app root's own
 * electron, then one next to @main, then (unless @project_only) PATH's.
 * With --app-root it must resolve inside the root like any other path. */
static char *
find_electron (StwSessionManager  *self,
               const char         *main,
               gboolean            project_only,
               GError            **error)
{
  g_autofree char *main_dir = main == NULL ? NULL
                              : g_file_test (main, G_FILE_TEST_IS_DIR) ? g_strdup (main) : g_path_get_dirname (main);
  const char *roots[] = { self->app_root, project_only ? NULL : main_dir };
  g_autofree char *found = NULL;

  for (guint i = 0; found == NULL && i < G_N_ELEMENTS (roots); i++)
    if (roots[i] != NULL)
      {
        g_autofree char *local = g_build_filename (roots[i], "node_modules", ".bin", "electron", NULL);
        if (g_file_test (local, G_FILE_TEST_IS_EXECUTABLE))
          found = g_steal_pointer (&local);
      }
  if (found == NULL && !project_only)
    found = g_find_program_in_path ("electron");
  if (found == NULL)
    {
      GError *missing = main != NULL
                        ? stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("No Electron runtime found for %s"), main)
                        : stw_error_new_code_literal (STW_ERROR_FILE_NOT_FOUND, _("No Electron runtime in the app root or on PATH"));
      stw_error_set_hint (missing, _("Pass executablePath, or install electron in the app (node_modules/.bin/electron)"));
      g_propagate_error (error, missing);
      return NULL;
    }
  return _stw_confine_path (self->app_root, NULL, found, "runtime", error);
}

/**
 * stw_session_manager_find_runtime:
 * @self: a #StwSessionManager
 * @main: (nullable): an Electron app directory or entry script
 * @error: where to put `FILE_NOT_FOUND`, or `BAD_ARGUMENT` when the runtime
 *   found lies outside the app root
 *
 * The Electron executable a launch with @main and no `executablePath`
 * would run: the app root's `node_modules/.bin/electron`, then one next to
 * @main, then `electron` on `PATH`, confined to the app root (see
 * [method@Stagewright.SessionManager.set_app_root]) like every other path.
 *
 * Returns: (transfer full) (nullable): the resolved path
 *
 * Since: 1.0
 */
char *
stw_session_manager_find_runtime (StwSessionManager  *self,
                                  const char         *main,
                                  GError            **error)
{
  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return find_electron (self, main, FALSE, error);
}

/* --- launch -------------------------------------------------------------- */

typedef struct
{
  StwSessionManager *manager;   /* while a slot is reserved */
  StwLaunchSpec  spec;
  guint          ready_timeout_ms;
  char          *id;
  StwProcess    *process;
  StwTransport  *browser;
  StwTransport  *inspector;
  StwSession    *session;
  guint          connecting;    /* endpoint connections under way */
  gboolean       launched;      /* the endpoints are known: the last connection starts the session */
  gboolean       inspector_connecting; /* started when its line appeared */
  gulong         debugger_waiting_id;
  gboolean       debugger_waiting;     /* Node waits for our inspector to go: the app is exiting */
  GError        *error;
  GCancellable  *cancellable;
  gulong         cancelled_id;
  gboolean       done;          /* answered: later callbacks only clean up */
  StwLaunchOptions *options;    /* for the plugins' launch hooks */
} Launch;

/* The launch no longer counts as in flight (it became a session, or
 * failed), and a cancel no longer concerns it. */
static void
launch_release_slot (Launch *launch)
{
  launch->done = TRUE;
  if (launch->cancelled_id != 0)
    {
      /* Not g_cancellable_disconnect(): this may run inside the handler. */
      g_signal_handler_disconnect (launch->cancellable, launch->cancelled_id);
      launch->cancelled_id = 0;
    }
  if (launch->manager == NULL)
    return;
  launch->manager->launching--;
  g_clear_weak_pointer (&launch->manager);
}

static void
launch_free (Launch *launch)
{
  launch_release_slot (launch);
  if (launch->debugger_waiting_id != 0)
    g_signal_handler_disconnect (launch->process, launch->debugger_waiting_id);
  stw_launch_spec_clear (&launch->spec);
  g_free (launch->id);
  g_clear_object (&launch->process);
  g_clear_object (&launch->browser);
  g_clear_object (&launch->inspector);
  g_clear_object (&launch->session);
  g_clear_object (&launch->cancellable);
  g_clear_error (&launch->error);
  g_clear_object (&launch->options);
  g_free (launch);
}

static void
fail_launch (GTask  *task,
             GError *error)
{
  Launch *launch = g_task_get_task_data (task);

  /* Nothing a failed launch started may stay: kill it, the guard cleans. */
  if (launch->session != NULL)
    stw_session_force_kill (launch->session);
  else if (launch->process != NULL)
    stw_process_kill (launch->process);
  launch_release_slot (launch);
  g_task_return_error (task, error);
}

static void launch_ready      (GTask    *task);
static void on_app_ready_done (GError   *error,
                               gpointer  user_data);

static void
on_session_started (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StwSessionManager *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (launch->done)
    return;   /* cancelled meanwhile: the app is killed already */
  if (!_stw_session_start_finish (STW_SESSION (object), result, &error))
    {
      fail_launch (task, stw_error_new (stw_error_get_code_name (error), "%s", error->message));
      return;
    }
  if (!stw_session_is_running (launch->session))
    {
      fail_launch (task, stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("The app exited during start-up")));
      return;
    }

  /* The plugins' app-ready hooks, then the answer. */
  if (_stw_hooks_wanted (self, STW_HOOK_APP_READY))
    {
      _stw_hooks_run (self, STW_HOOK_APP_READY, launch->session, NULL, launch->options,
                      on_app_ready_done, g_steal_pointer (&task));
      return;
    }
  launch_ready (task);
}

static void
launch_ready (GTask *task)
{
  StwSessionManager *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);

  launch_release_slot (launch);
  _stw_session_manager_add_session (self, launch->session);
  g_task_return_pointer (task, g_object_ref (launch->session), g_object_unref);
}

static void
on_app_ready_done (GError   *error,
                   gpointer  user_data)
{
  g_autoptr(GTask) task = user_data;
  Launch *launch = g_task_get_task_data (task);

  if (launch->done)
    return;
  if (error != NULL)
    {
      fail_launch (task, g_error_copy (error));
      return;
    }
  launch_ready (task);
}

static void
start_session (GTask *task)
{
  StwSessionManager *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);

  if (launch->done)
    {
      g_object_unref (task);
      return;
    }
  if (launch->error != NULL)
    {
      fail_launch (task, g_steal_pointer (&launch->error));
      g_object_unref (task);
      return;
    }

  /* The session watches for it from now on. */
  if (launch->debugger_waiting_id != 0)
    g_signal_handler_disconnect (launch->process, launch->debugger_waiting_id);
  launch->debugger_waiting_id = 0;
  launch->session = _stw_session_new_launched (self, launch->id, launch->process,
                                               launch->browser, launch->inspector);
  _stw_session_start_async (launch->session, launch->spec.timeout_ms, launch->ready_timeout_ms,
                            g_task_get_cancellable (task), on_session_started, task);
}

static void
on_endpoint_connected (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;   /* each connection holds a reference */
  Launch *launch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  StwTransport *transport;

  transport = stw_cdp_websocket_connect_finish (result, &error);
  if (transport == NULL && launch->error == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    launch->error = g_error_copy (error);
  else if (transport == NULL && launch->error == NULL)
    launch->error = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("Cannot connect to the app's DevTools endpoint: %s"),
                                        error->message);
  else if (transport != NULL && launch->process == NULL)
    g_object_unref (transport);   /* the launch failed meanwhile */
  else if (transport != NULL)
    {
      const char *url = stw_cdp_websocket_get_url (STW_CDP_WEBSOCKET (transport));
      if (g_strcmp0 (url, stw_process_get_inspector_url (launch->process)) == 0 && launch->debugger_waiting)
        {
          stw_transport_close (transport);   /* the app is exiting: let Node go */
          g_object_unref (transport);
        }
      else if (g_strcmp0 (url, stw_process_get_inspector_url (launch->process)) == 0)
        {
          launch->inspector = transport;
          stw_process_mark (launch->process, "main process attached");
        }
      else
        {
          launch->browser = transport;
          stw_process_mark (launch->process, "browser connected");
        }
    }

  /* Before the endpoints are known, the launch itself still runs: its
   * callback starts the session when nothing is left to wait for. */
  if (--launch->connecting == 0 && launch->launched)
    start_session (g_object_ref (task));
}

static void
connect_endpoint (GTask      *task,
                  const char *url)
{
  Launch *launch = g_task_get_task_data (task);

  launch->connecting++;
  stw_cdp_websocket_connect_async (url, DEFAULT_CONNECT_MS, g_task_get_cancellable (task),
                                   on_endpoint_connected, g_object_ref (task));
}

/* A main script that fails ends with Node waiting for its inspector
 * clients to disconnect: ours goes, so the app exits and the launch fails
 * as it did before it connected early. */
static void
on_launch_debugger_waiting (StwProcess *process,
                            Launch     *launch)
{
  launch->debugger_waiting = TRUE;
  if (launch->inspector != NULL)
    stw_transport_close (launch->inspector);
}

/* The Node inspector prints its line before Chromium even starts: connect
 * now, while the browser comes up, rather than after its line. */
static void
on_inspector_announced (StwProcess *process,
                        const char *url,
                        gpointer    user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);

  /* Anything else is refused once the endpoints are known. */
  if (launch->done || launch->inspector_connecting || !stw_url_is_loopback (url))
    return;
  launch->inspector_connecting = TRUE;
  /* The same object the launch returns: the timeline goes on with it. */
  g_set_object (&launch->process, process);
  launch->debugger_waiting_id = g_signal_connect (process, "debugger-waiting",
                                                  G_CALLBACK (on_launch_debugger_waiting), launch);
  stw_process_mark (process, "main process: connecting");
  connect_endpoint (task, url);
}

static void
on_process_launched (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  GError *error = NULL;
  const char *browser_url;
  const char *inspector_url;

  if (launch->debugger_waiting_id != 0)
    g_signal_handler_disconnect (launch->process, launch->debugger_waiting_id);
  launch->debugger_waiting_id = 0;
  g_clear_object (&launch->process);
  launch->process = stw_process_launch_finish (result, &error);
  if (launch->process != NULL && launch->inspector_connecting)
    launch->debugger_waiting_id = g_signal_connect (launch->process, "debugger-waiting",
                                                    G_CALLBACK (on_launch_debugger_waiting), launch);
  if (launch->process == NULL || launch->done)
    {
      if (launch->process != NULL)
        stw_process_kill (launch->process);
      if (launch->done)
        {
          g_clear_error (&error);
          g_object_unref (task);
          return;
        }
      launch_release_slot (launch);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }

  browser_url = stw_process_get_browser_url (launch->process);
  inspector_url = stw_process_get_inspector_url (launch->process);
  stw_process_mark (launch->process, "endpoints known");

  /* Whatever the app announced, we only ever connect to this machine. */
  if ((browser_url != NULL && !stw_url_is_loopback (browser_url)) ||
      (inspector_url != NULL && !stw_url_is_loopback (inspector_url)))
    {
      g_autoptr(JsonObject) details = json_object_new ();
      GError *refused = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("The app announced a debugging endpoint that is "
                                                               "not on loopback"));
      json_object_set_string_member (details, "browser_url", browser_url ? browser_url : "");
      json_object_set_string_member (details, "inspector_url", inspector_url ? inspector_url : "");
      json_object_set_string_member (details, "rule", "loopback endpoints only");
      stw_error_set_details (refused, details);
      fail_launch (task, refused);
      g_object_unref (task);
      return;
    }
  if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      fail_launch (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                              _("The launch was cancelled")));
      g_object_unref (task);
      return;
    }

  if (launch->spec.pipe)
    launch->browser = stw_cdp_pipe_new (stw_process_get_pipe_input (launch->process),
                                        stw_process_get_pipe_output (launch->process));

  launch->launched = TRUE;
  if (browser_url != NULL)
    connect_endpoint (task, browser_url);
  if (inspector_url != NULL && !launch->inspector_connecting)
    connect_endpoint (task, inspector_url);
  if (launch->connecting == 0)
    start_session (task);
  else
    g_object_unref (task);   /* the last connection starts the session */
}

/* A cancel is answered here, at once, whatever phase the launch is in
 * (fuse check, waiting for the endpoints, connecting, waiting for the
 * first window, readiness): the slot is free when the answer is given,
 * and what started is killed (stw_process_kill() removes its directories
 * as soon as the group is gone). The phases still in flight watch the
 * cancellable too; their late callbacks see `done` and only clean up (a
 * process that is still starting is killed by the launcher itself).
 * Cancel from the thread that launched. */
static void
on_launch_cancelled (GCancellable *cancellable,
                     gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);

  if (launch->done)
    return;
  fail_launch (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The launch was cancelled")));
}

static void
check_fuses_in_thread (GTask        *task,
                       gpointer      source_object,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  GError *error = NULL;

  if (_stw_process_check_fuses (task_data, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_fuses_checked (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  GError *error = NULL;

  if (launch->done)
    {
      g_object_unref (task);   /* cancelled meanwhile, and answered */
      return;
    }
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      fail_launch (task, error);
      g_object_unref (task);
      return;
    }
  launch->spec.inspector_announced = on_inspector_announced;
  launch->spec.inspector_announced_data = task;
  stw_process_launch_async (&launch->spec, g_task_get_cancellable (task), on_process_launched, task);
}

/* The checks that need no process, in the reference's order. */
static gboolean
prepare_launch (StwSessionManager  *self,
                StwLaunchOptions   *options,
                Launch             *launch,
                GError            **error)
{
  const char *main_path = stw_launch_options_get_main (options);
  const char *exe_path = stw_launch_options_get_executable_path (options);
  const char *cwd = stw_launch_options_get_cwd (options);
  const char *runtime = stw_launch_options_get_runtime (options);
  const char *store = stw_launch_options_get_credential_store (options);
  const char * const *args = stw_launch_options_get_args (options);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *env_keys, *env_values;

  if (!_stw_session_manager_check_capacity (self, stw_launch_options_get_allow_multiple (options), error))
    return FALSE;

  if (runtime != NULL && (!g_str_equal (runtime, "project") || main_path == NULL || self->app_root == NULL))
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            _("runtime \"project\" needs main and a server started with --app-root")));
      return FALSE;
    }
  if (store != NULL && (main_path != NULL || (!g_str_equal (store, "testing") && !g_str_equal (store, "system"))))
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            _("credentialStore (\"testing\" or \"system\") applies to packaged "
                                                              "launches (executablePath without main)")));
      return FALSE;
    }
  if (stw_launch_options_get_preloads (options) != NULL && main_path == NULL)
    {
      g_propagate_error (error, stw_error_new_code_literal (STW_ERROR_BAD_ARGUMENT,
                                                            _("A preload needs main: Electron honours -r only with an app path")));
      return FALSE;
    }

  _stw_launch_options_get_env (options, &env_keys, &env_values);
  if (!_stw_confine_env (self->app_root, cwd, env_keys, env_values, error))
    return FALSE;

  if (main_path == NULL && exe_path == NULL)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give main (an Electron app) or executablePath")));
      return FALSE;
    }
  if (main_path != NULL && (launch->spec.main = check_path (self, "main", main_path, TRUE, error)) == NULL)
    return FALSE;
  if (exe_path != NULL && (launch->spec.executable = check_path (self, "executablePath", exe_path, FALSE, error)) == NULL)
    return FALSE;
  if (cwd != NULL && (launch->spec.cwd = check_path (self, "cwd", cwd, TRUE, error)) == NULL)
    return FALSE;
  if (!_stw_confine_args (self->app_root, launch->spec.cwd, args, error))
    return FALSE;
  if (launch->spec.executable == NULL &&
      (launch->spec.executable = find_electron (self, launch->spec.main, runtime != NULL, error)) == NULL)
    return FALSE;

  /* Like the reference's packaged launch: a test keychain unless the
   * caller chose a store or a --password-store. */
  if (main_path == NULL && g_strcmp0 (store, "system") != 0)
    {
      gboolean chosen = FALSE;
      for (guint i = 0; args != NULL && args[i] != NULL; i++)
        chosen |= g_str_has_prefix (args[i], "--password-store");
      if (!chosen)
        g_ptr_array_add (argv, g_strdup ("--password-store=basic"));
    }
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  launch->spec.args = (char **) g_ptr_array_free (g_steal_pointer (&argv), FALSE);
  launch->spec.preloads = g_strdupv ((char **) stw_launch_options_get_preloads (options));
  launch->spec.env = stw_launch_options_dup_env (options);

  /* Every launch asks for the Node inspector (plain Chromium ignores it);
   * only an app given by main cannot do without one. */
  launch->spec.inspect = TRUE;
  launch->spec.require_inspector = launch->spec.main != NULL;
  launch->spec.pipe = stw_launch_options_get_pipe (options) && launch->spec.main == NULL;
  launch->spec.timeout_ms = stw_launch_options_get_timeout (options);
  if (launch->spec.timeout_ms == 0)
    launch->spec.timeout_ms = DEFAULT_FIRST_WINDOW_MS;
  launch->ready_timeout_ms = stw_launch_options_get_ready_timeout (options);
  /* Every endpoint but the pipe is a WebSocket: refuse before the app runs. */
  if (!launch->spec.pipe && !_stw_soup_load (error))
    return FALSE;
  return TRUE;
}

static void launch_prepared (GTask *task);

static void
on_before_launch_done (GError   *error,
                       gpointer  user_data)
{
  GTask *task = user_data;

  if (error != NULL)
    {
      g_task_return_error (task, g_error_copy (error));
      g_object_unref (task);
      return;
    }
  launch_prepared (task);
}

/**
 * stw_session_manager_launch_async:
 * @self: a #StwSessionManager
 * @options: what to launch
 * @cancellable: (nullable): a #GCancellable; cancelling stops the app's
 *   whole process group and removes its temporary directories at once
 * @callback: called with the new session
 * @user_data: data for @callback
 *
 * Launches an app the way Playwright launches Electron: the runtime
 * ([property@Stagewright.LaunchOptions:executable-path], else an
 * `electron` in the app root, next to `main` or on `PATH`) runs under
 * `--inspect=0 --remote-debugging-port=0`. With an executable alone (a
 * packaged app or plain Chromium) a binary that opens no Node inspector
 * still launches, without main-process operations (its capabilities say
 * why); with `main` it fails with `FUSES_BLOCK_LAUNCH`.
 *
 * Refusals: `ALREADY_RUNNING` (the session cap, or another app live or
 * being launched without [property@Stagewright.LaunchOptions:allow-multiple]),
 * `ABSOLUTE_PATH_REQUIRED`, `FILE_NOT_FOUND`, and `BAD_ARGUMENT` with
 * `details` naming the argument and the rule: a path outside the app root
 * (see [method@Stagewright.SessionManager.set_app_root]), a switch that
 * runs another program or opens a debugger, an environment key that
 * changes how code is loaded.
 *
 * Since: 1.0
 */
void
stw_session_manager_launch_async (StwSessionManager   *self,
                                  StwLaunchOptions    *options,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *task;
  Launch *launch;

  g_return_if_fail (STW_IS_SESSION_MANAGER (self));
  g_return_if_fail (STW_IS_LAUNCH_OPTIONS (options));

  task = g_task_new (self, cancellable, callback, user_data);
  launch = g_new0 (Launch, 1);
  g_task_set_source_tag (task, stw_session_manager_launch_async);
  g_task_set_task_data (task, launch, (GDestroyNotify) launch_free);
  launch->options = g_object_ref (options);

  /* Plugins' before-launch hooks may still change the options. */
  if (_stw_hooks_wanted (self, STW_HOOK_BEFORE_MAIN))
    {
      _stw_hooks_run (self, STW_HOOK_BEFORE_MAIN, NULL, NULL, options, on_before_launch_done, task);
      return;
    }
  launch_prepared (task);
}

static void
launch_prepared (GTask *task)
{
  StwSessionManager *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);
  StwLaunchOptions *options = launch->options;
  GCancellable *cancellable = g_task_get_cancellable (task);
  GError *error = NULL;

  if (!prepare_launch (self, options, launch, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }

  self->launching++;
  g_set_weak_pointer (&launch->manager, self);
  launch->id = _stw_session_manager_next_session_id (self, "app");
  if (cancellable != NULL)
    {
      launch->cancellable = g_object_ref (cancellable);
      /* Never fires here: prepare_launch ran, and the launcher checks first. */
      launch->cancelled_id = g_signal_connect (cancellable, "cancelled", G_CALLBACK (on_launch_cancelled), task);
    }

  /* The reference's fuse preflight for an app run by its runtime: it may
   * read a 200 MB binary once, so not on the main loop. */
  if (launch->spec.main != NULL)
    {
      g_autoptr(GTask) check = g_task_new (self, cancellable, on_fuses_checked, task);
      g_task_set_source_tag (check, check_fuses_in_thread);
      g_task_set_task_data (check, g_strdup (launch->spec.executable), g_free);
      g_task_run_in_thread (check, check_fuses_in_thread);
      return;
    }
  launch->spec.inspector_announced = on_inspector_announced;
  launch->spec.inspector_announced_data = task;
  stw_process_launch_async (&launch->spec, cancellable, on_process_launched, task);
}

/* launch_sync() keeps its JSON options. */
static void
launch_json_async (StwSessionManager   *self,
                   JsonObject          *object,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  GError *error = NULL;
  g_autoptr(StwLaunchOptions) options = stw_launch_options_new_from_json_object (object, &error);

  if (options == NULL)
    {
      g_task_report_error (self, callback, user_data, stw_session_manager_launch_async, error);
      return;
    }
  stw_session_manager_launch_async (self, options, cancellable, callback, user_data);
}

/**
 * stw_session_manager_launch_finish:
 * @self: a #StwSessionManager
 * @result: the result given to the callback
 * @error: where to put the failure
 *
 * Finishes an operation started with
 * [method@Stagewright.SessionManager.launch_async].
 *
 * Returns: (transfer full): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_launch_finish (StwSessionManager  *self,
                                   GAsyncResult       *result,
                                   GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_session_manager_launch_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_session_manager_launch_sync:
 * @self: a #StwSessionManager
 * @options: what to launch and how
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * Blocking [method@Stagewright.SessionManager.launch_async] for scripts and
 * harnesses. It iterates the main context that was thread-default when the
 * manager was made (the one the session's sockets will belong to) until the
 * launch ends.
 *
 * Returns: (transfer full): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_launch_sync (StwSessionManager  *self,
                                 StwLaunchOptions   *options,
                                 GCancellable       *cancellable,
                                 GError            **error)
{
  StwSession *session;
  StwSyncCall call;

  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (!_stw_sync_call_init (&call, self->context))
    return NULL;
  stw_session_manager_launch_async (self, options, cancellable, _stw_sync_call_callback, &call);
  session = stw_session_manager_launch_finish (self, _stw_sync_call_wait (&call), error);
  _stw_sync_call_clear (&call);
  return session;
}

/**
 * stw_session_manager_launch_json_sync:
 * @self: a #StwSessionManager
 * @options_json: (nullable): the launch options as the `electron_launch`
 *   tool takes them, as a JSON object text
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * [method@Stagewright.SessionManager.launch_sync] for a caller that holds
 * the options as the tool's JSON (a harness replaying tool calls, a
 * configuration file); see
 * [ctor@Stagewright.LaunchOptions.new_from_json_object]. Invalid options
 * fail with `BAD_ARGUMENT`.
 *
 * Returns: (transfer full): the session
 *
 * Since: 1.0
 */
StwSession *
stw_session_manager_launch_json_sync (StwSessionManager  *self,
                                      const char         *options_json,
                                      GCancellable       *cancellable,
                                      GError            **error)
{
  g_return_val_if_fail (STW_IS_SESSION_MANAGER (self), NULL);
  return _stw_session_manager_start_sync (self, launch_json_async, options_json, cancellable, error);
}
