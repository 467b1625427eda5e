/* stw-process.c: StwProcess, an app process the server owns
 *
 * Launch follows Playwright's Electron launcher (DESIGN §5): the app gets
 * `--inspect=0 --remote-debugging-port=0` (or the pipe), and the endpoints
 * are read from its stderr. Ownership is strict, because nothing the
 * server starts may outlive it:
 *
 * - the app runs under a guard, stagewright-guard (its own session, a
 *   socket from the server on its stdin), which is the app's parent and
 *   a child subreaper: whatever the app starts, even detached and in a
 *   session of its own, stays its descendant. When the app exits, or the
 *   socket reaches EOF (the server exited or was SIGKILLed), it kills
 *   every descendant until none is left and removes the temporary
 *   directories; then it exits with the app's status. Its exit is what
 *   the server sees as the app's;
 * - the app leads its own process group (the server's stop signals it),
 *   and gets SIGTERM when the guard dies (PR_SET_PDEATHSIG);
 * - every instance has its own user-data-dir, TMPDIR and XDG_CONFIG_HOME
 *   under one temporary root (Chromium leaks both otherwise);
 * - stdout and stderr are always drained into a bounded log (a full pipe
 *   would block the app) and never reach the server's own stdout.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glib/gi18n-lib.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stw-confine-private.h"
#include "stw-error-registry.h"
#include "stw-process-private.h"

#define LOG_MAX_LINES 400
/* Cheap until the main process has exited; /proc is scanned only then. */
#define GROUP_POLL_MS 10
#define GROUP_GONE_MAX_MS 5000
#define SWEEP_POLL_MS 50
/* How long the app's output may stay open after it exited. */
#define EXIT_DRAIN_MAX_MS 1000

struct _StwProcess
{
  GObject         parent_instance;

  GSubprocess    *subprocess;
  GPid            pid;
  char           *temp_root;
  char           *browser_url;
  char           *inspector_url;
  gboolean        want_inspector;
  gboolean        require_inspector;
  gboolean        want_browser_url;
  char           *inspector_note;
  gulong          cancelled_id;
  GCancellable   *launch_cancellable;
  GInputStream   *pipe_input;     /* CDP replies (fd 4 of the child) */
  GOutputStream  *pipe_output;    /* CDP commands (fd 3 of the child) */
  int             guard_fd;       /* our end of the guard's socket; -1 once closed */

  GQueue          log;            /* char* lines, newest last */
  GCancellable   *cancellable;    /* stops the readers */
  GTask          *launch_task;
  GSource        *launch_timeout;
  GSource        *reaper;         /* after a kill: removes the dirs once the group is gone */
  gint64          reap_deadline_us;
  GMainContext   *context;        /* thread-default when made */
  gint64          started_us;     /* when the launch began: the timeline's zero */
  gboolean        exited;
  gboolean        cleaned;
  guint           readers_open;   /* stdout and stderr until their EOF */
  int             exit_status;
  GSource        *exit_wait;      /* after the exit: until the readers are done, bounded */
  char           *display_problem;
  void          (*inspector_announced) (StwProcess *process,
                                        const char *url,
                                        gpointer    data);
  gpointer        inspector_announced_data;
};

G_DEFINE_FINAL_TYPE (StwProcess, stw_process, G_TYPE_OBJECT)

enum {
  EXITED,
  DEBUGGER_WAITING,
  OUTPUT_LINE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

void
stw_launch_spec_clear (StwLaunchSpec *spec)
{
  g_clear_pointer (&spec->executable, g_free);
  g_clear_pointer (&spec->main, g_free);
  g_clear_pointer (&spec->args, g_strfreev);
  g_clear_pointer (&spec->preloads, g_strfreev);
  g_clear_pointer (&spec->env, g_strfreev);
  g_clear_pointer (&spec->cwd, g_free);
}

/**
 * stw_env_key_is_denied:
 * @key: an environment variable name
 *
 * Whether the launch environment refuses @key (see
 * _stw_confine_env_rule()); the server's own environment loses the same
 * keys before the app inherits it.
 */
gboolean
stw_env_key_is_denied (const char *key)
{
  return _stw_confine_env_rule (key, "") != NULL;
}

static int
rm_one (const char        *path,
        const struct stat *sb,
        int                flag,
        struct FTW        *ftw)
{
  /* Best effort: whatever cannot go is reported by the caller's check. */
  (void) remove (path);
  return 0;
}

static void
remove_tree (const char *path)
{
  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    return;
  nftw (path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether any process other than a zombie is still in @pgid. */
static gboolean
group_has_live_members (GPid pgid)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;

  if (dir == NULL)
    return kill (-pgid, 0) == 0;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *contents = NULL;
      const char *close_paren;
      char state;
      int ppid, pgrp;

      if (!g_ascii_isdigit (name[0]))
        continue;
      path = g_build_filename ("/proc", name, "stat", NULL);
      if (!g_file_get_contents (path, &contents, NULL, NULL))
        continue;
      /* comm may contain spaces and parentheses: parse after the last ')'. */
      close_paren = strrchr (contents, ')');
      if (close_paren == NULL || sscanf (close_paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
        continue;
      if (pgrp == pgid && state != 'Z' && state != 'X')
        return TRUE;
    }
  return FALSE;
}

/* The guard: a session of its own (a terminal's signals are not for it),
 * and SIGTERM, which it reads as "the server is gone", when the server
 * dies (besides the EOF on its socket). */
static void
guard_setup (gpointer user_data)
{
  pid_t parent = (pid_t) GPOINTER_TO_INT (user_data);

  setsid ();
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  /* The server may have died between fork and prctl. */
  if (getppid () != parent)
    raise (SIGTERM);
}

static void
close_guard (StwProcess *self)
{
  if (self->guard_fd >= 0)
    {
      close (self->guard_fd);
      self->guard_fd = -1;
    }
}

static void
log_line (StwProcess *self,
          const char *line)
{
  g_queue_push_tail (&self->log, g_strdup (line));
  while (self->log.length > LOG_MAX_LINES)
    g_free (g_queue_pop_head (&self->log));
}

/**
 * stw_process_dup_log_tail:
 * @self: a #StwProcess
 *
 * What a failure shows of the app's output: its last lines, at most
 * %STW_LOG_TAIL_LINES of them and %STW_LOG_TAIL_BYTES bytes. Enough for
 * the message above a whole stack trace; a line longer than the byte
 * bound keeps its end.
 *
 * Returns: (transfer full): the last lines the app wrote
 */
char *
stw_process_dup_log_tail (StwProcess *self)
{
  GString *text = g_string_new (NULL);
  const GList *first = NULL;
  gsize bytes = 0;
  guint lines = 0;

  for (const GList *l = self->log.tail; l != NULL && lines < STW_LOG_TAIL_LINES; l = l->prev, lines++)
    {
      gsize length = strlen (l->data) + 1;

      if (first != NULL && bytes + length > STW_LOG_TAIL_BYTES)
        break;
      bytes += length;
      first = l;
    }
  for (const GList *l = first; l != NULL; l = l->next)
    {
      const char *line = l->data;
      gsize length = strlen (line);

      if (length >= STW_LOG_TAIL_BYTES)
        {
          line = g_utf8_find_next_char (line + length - STW_LOG_TAIL_BYTES + 1, NULL);
          g_string_append (text, "…");
        }
      g_string_append (text, line);
      g_string_append_c (text, '\n');
    }
  return g_string_free (text, FALSE);
}

static void
finish_launch (StwProcess *self,
               GError     *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->launch_task);

  self->inspector_announced = NULL;
  if (self->launch_timeout != NULL)
    {
      g_source_destroy (self->launch_timeout);
      g_clear_pointer (&self->launch_timeout, g_source_unref);
    }
  if (self->cancelled_id != 0)
    {
      /* Not g_cancellable_disconnect(): this may run inside the handler. */
      g_signal_handler_disconnect (self->launch_cancellable, self->cancelled_id);
      self->cancelled_id = 0;
    }
  g_clear_object (&self->launch_cancellable);
  if (task == NULL)
    {
      g_clear_error (&error);
      return;
    }

  if (error != NULL)
    {
      /* A launch that failed leaves nothing behind, at once: the group is
       * killed now and the directories go as soon as it is gone. */
      stw_process_kill (self);
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, g_object_ref (self), g_object_unref);
}

static void
check_ready (StwProcess *self)
{
  if (self->launch_task == NULL)
    return;
  if (self->want_browser_url && self->browser_url == NULL)
    return;
  if (self->want_inspector && self->inspector_url == NULL)
    {
      GError *error;

      if (!self->want_browser_url)
        return;
      /* Electron starts the Node inspector before the DevTools server, so
       * no inspector line by now means there will be none: the binary's
       * EnableNodeCliInspectArguments fuse is off, or it is no Electron. */
      if (!self->require_inspector)
        {
          self->inspector_note = g_strdup (_("The app opened no Node inspector for --inspect=0 (plain Chromium, "
                                             "or an Electron whose EnableNodeCliInspectArguments fuse is off): "
                                             "main-process operations are unavailable"));
          g_debug ("Process %d: browser endpoint without inspector", (int) self->pid);
          finish_launch (self, NULL);
          return;
        }
      error = stw_error_new_code (STW_ERROR_FUSES_BLOCK_LAUNCH,
                                  _("The binary refuses the Node inspector (--inspect=0), "
                                    "which a launch with main needs"));
      stw_error_set_hint (error, _("Its EnableNodeCliInspectArguments fuse is off: launch it packaged "
                                   "(executablePath without main), attach over CDP, or use a development build."));
      finish_launch (self, error);
      return;
    }
  g_debug ("Process %d: endpoints known", (int) self->pid);
  finish_launch (self, NULL);
}

static char *
match_endpoint (const char *line,
                const char *prefix)
{
  const char *start;
  const char *end;

  if (!g_str_has_prefix (line, prefix))
    return NULL;
  start = line + strlen (prefix);
  if (!g_str_has_prefix (start, "ws://"))
    return NULL;
  end = start;
  while (*end != '\0' && !g_ascii_isspace (*end))
    end++;
  return g_strndup (start, (gsize) (end - start));
}

static void
handle_line (StwProcess *self,
             const char *stream,
             const char *line)
{
  char *url;

  /* What Node says about our own inspector client (connected early, so
   * also when a failing app exits) would push the app's error out of the
   * log tail a failed launch reports. */
  if (!g_str_equal (line, "Debugger attached.") &&
      !g_str_equal (line, "Waiting for the debugger to disconnect...") &&
      !g_str_has_prefix (line, "Debugger ending on ") &&
      !g_str_equal (line, "For help, see: https://nodejs.org/en/docs/inspector"))
    log_line (self, line);
  g_signal_emit (self, signals[OUTPUT_LINE], 0, stream, line);

  if (self->browser_url == NULL && (url = match_endpoint (line, "DevTools listening on ")) != NULL)
    {
      self->browser_url = url;
      stw_process_mark (self, "browser line");
      check_ready (self);
    }
  else if (self->inspector_url == NULL &&
           (url = match_endpoint (line, "Debugger listening on ")) != NULL)
    {
      self->inspector_url = url;
      stw_process_mark (self, "inspector line");
      /* Electron prints it long before the browser's: the caller connects
       * while Chromium starts. Only while the launch is pending. */
      if (self->launch_task != NULL && self->inspector_announced != NULL)
        self->inspector_announced (self, url, self->inspector_announced_data);
      check_ready (self);
    }
  else if (strstr (line, "Waiting for the debugger to disconnect") != NULL)
    g_signal_emit (self, signals[DEBUGGER_WAITING], 0);
  else if (self->launch_task != NULL && self->display_problem == NULL &&
           (strstr (line, "Missing X server") != NULL ||
            strstr (line, "Unable to open X display") != NULL ||
            strstr (line, "cannot open display") != NULL))
    self->display_problem = g_strdup (line);
}

typedef struct
{
  StwProcess       *self;
  GDataInputStream *stream;
  const char       *name;     /* "stdout" or "stderr" (static) */
} Reader;

static void read_next_line (Reader *reader);
static void report_exit (StwProcess *self);

static void
on_line (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Reader *reader = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  gsize length = 0;

  line = g_data_input_stream_read_line_finish_utf8 (reader->stream, result, &length, &error);
  if (line == NULL && error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
    {
      /* Not UTF-8: keep draining, log a placeholder. */
      log_line (reader->self, "(a line that is not UTF-8)");
      read_next_line (reader);
      return;
    }
  if (line == NULL)
    {
      StwProcess *self = reader->self;

      g_object_unref (reader->stream);
      g_free (reader);
      if (--self->readers_open == 0 && self->exit_wait != NULL)
        report_exit (self);
      g_object_unref (self);
      return;
    }

  handle_line (reader->self, reader->name, line);
  read_next_line (reader);
}

static void
read_next_line (Reader *reader)
{
  g_data_input_stream_read_line_async (reader->stream, G_PRIORITY_DEFAULT,
                                       reader->self->cancellable, on_line, reader);
}

static void
drain (StwProcess   *self,
       GInputStream *stream,
       const char   *name)
{
  Reader *reader;

  if (stream == NULL)
    return;
  reader = g_new0 (Reader, 1);
  reader->self = g_object_ref (self);
  reader->stream = g_data_input_stream_new (stream);
  reader->name = name;
  self->readers_open++;
  /* Lines can be long (minified stack traces); the log keeps them bounded. */
  read_next_line (reader);
}

/* The group may still be alive: leave it to the guard, which kills it,
 * waits for it and removes the directories. */
static void
release_to_guard (StwProcess *self)
{
  if (self->cleaned)
    return;
  self->cleaned = TRUE;

  g_debug ("Process group %d handed to its guard", (int) self->pid);
  if (self->pid > 0)
    kill (-self->pid, SIGKILL);
  if (self->guard_fd >= 0)
    close_guard (self);
  else
    remove_tree (self->temp_root);
}

/* Whether one NUL-separated entry of /proc/PID/@file names @temp_root:
 * in environ a TMPDIR that is it or below it, in cmdline any argument
 * with a path below it. */
static gboolean
proc_file_names (const char *pid,
                 const char *file,
                 const char *temp_root)
{
  g_autofree char *path = g_build_filename ("/proc", pid, file, NULL);
  g_autofree char *contents = NULL;
  gboolean is_environ = g_str_equal (file, "environ");
  gsize root_len = strlen (temp_root);
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, NULL))
    return FALSE;  /* gone, a zombie (empty), or not ours to read */
  for (gsize at = 0; at < length; at += strlen (contents + at) + 1)
    {
      const char *entry = contents + at;

      if (is_environ)
        {
          if (g_str_has_prefix (entry, "TMPDIR=") &&
              strncmp (entry + 7, temp_root, root_len) == 0 &&
              (entry[7 + root_len] == '\0' || entry[7 + root_len] == '/'))
            return TRUE;
        }
      else
        {
          const char *found = strstr (entry, temp_root);

          if (found != NULL && found[root_len] == '/')
            return TRUE;
        }
    }
  return FALSE;
}

/* Whether a live process still uses @temp_root. Some helpers leave the
 * group on purpose: Chromium's crashpad handler double-forks and calls
 * setsid(), so it outlives the browser by a second or two and writes its
 * database into our directory meanwhile. The directory is private and
 * freshly made, so its path names our processes exactly; this only
 * checks, it never signals anyone. */
static gboolean
temp_root_in_use (const char *temp_root)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      if (!g_ascii_isdigit (name[0]))
        continue;
      if (proc_file_names (name, "environ", temp_root) || proc_file_names (name, "cmdline", temp_root))
        return TRUE;
    }
  return FALSE;
}

typedef struct
{
  char   *temp_root;
  gint64  deadline_us;
} Sweep;

static void
sweep_free (gpointer data)
{
  Sweep *sweep = data;

  g_free (sweep->temp_root);
  g_free (sweep);
}

static gboolean
on_sweep (gpointer user_data)
{
  Sweep *sweep = user_data;
  gboolean in_use = temp_root_in_use (sweep->temp_root);

  if (!in_use || g_get_monotonic_time () >= sweep->deadline_us)
    {
      remove_tree (sweep->temp_root);
      if (!g_file_test (sweep->temp_root, G_FILE_TEST_EXISTS))
        return G_SOURCE_REMOVE;
      if (g_get_monotonic_time () >= sweep->deadline_us)
        {
          g_warning ("Could not remove %s: a process outside the app's group still writes there",
                     sweep->temp_root);
          return G_SOURCE_REMOVE;
        }
    }
  return G_SOURCE_CONTINUE;
}

/* Removes @temp_root now, and again once the last process outside the
 * group that still uses it has gone (bounded), on @context. */
static void
remove_temp_root (const char   *temp_root,
                  GMainContext *context)
{
  g_autoptr(GSource) source = NULL;
  Sweep *sweep;

  if (temp_root == NULL)
    return;
  remove_tree (temp_root);
  if (!g_file_test (temp_root, G_FILE_TEST_EXISTS) && !temp_root_in_use (temp_root))
    return;

  g_debug ("%s is still in use outside the app's process group; removing it when that ends", temp_root);
  sweep = g_new0 (Sweep, 1);
  sweep->temp_root = g_strdup (temp_root);
  sweep->deadline_us = g_get_monotonic_time () + (gint64) GROUP_GONE_MAX_MS * 1000;
  source = g_timeout_source_new (SWEEP_POLL_MS);
  g_source_set_callback (source, on_sweep, sweep, sweep_free);
  g_source_set_static_name (source, "[stagewright] temp root sweep");
  g_source_attach (source, context);
}

static void
cleanup_after_exit (StwProcess *self)
{
  if (self->cleaned)
    return;
  self->cleaned = TRUE;

  g_debug ("Process group %d is gone; removing %s", (int) self->pid, self->temp_root);
  remove_temp_root (self->temp_root, self->context);

  close_guard (self);
}

/* Reports the exit once what the app wrote last has been read: a launch
 * that fails says why in its log tail. */
static void
report_exit (StwProcess *self)
{
  g_autoptr(StwProcess) hold = g_object_ref (self);
  int status = self->exit_status;

  if (self->exit_wait != NULL)
    {
      g_source_destroy (self->exit_wait);
      g_clear_pointer (&self->exit_wait, g_source_unref);
    }

  if (self->launch_task != NULL)
    {
      g_autofree char *tail = stw_process_dup_log_tail (self);
      g_autoptr(JsonObject) details = json_object_new ();
      GError *error;

      if (self->display_problem != NULL)
        {
          error = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("The app needs a display: %s"),
                                      self->display_problem);
          stw_error_set_hint (error, _("No X display is available. Run the server under Xvfb "
                                       "(xvfb-run -a stagewright) or give the app a headless switch."));
        }
      else
        error = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("The app exited before it could be driven"));

      if (WIFEXITED (status))
        json_object_set_int_member (details, "exit_code", WEXITSTATUS (status));
      else if (WIFSIGNALED (status))
        json_object_set_int_member (details, "signal", WTERMSIG (status));
      json_object_set_string_member (details, "log_tail", tail);
      stw_error_set_details (error, details);
      finish_launch (self, error);
    }

  g_signal_emit (self, signals[EXITED], 0, status);
}

static gboolean
on_exit_wait_over (gpointer user_data)
{
  StwProcess *self = user_data;

  g_debug ("The app's output is still open %d ms after its exit; reporting the exit", EXIT_DRAIN_MAX_MS);
  report_exit (self);
  return G_SOURCE_REMOVE;
}

static void
on_exited (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(StwProcess) self = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  self->exited = TRUE;
  self->exit_status = g_subprocess_get_status (G_SUBPROCESS (object));

  /* The pipes may still hold the app's last lines; a process that
   * outlived it may also keep them open, hence the bound. */
  if (self->readers_open == 0)
    {
      report_exit (self);
      return;
    }
  self->exit_wait = g_timeout_source_new (EXIT_DRAIN_MAX_MS);
  g_source_set_callback (self->exit_wait, on_exit_wait_over, g_object_ref (self), g_object_unref);
  g_source_set_static_name (self->exit_wait, "[stagewright] output drain after exit");
  g_source_attach (self->exit_wait, self->context);
}

static gboolean
on_launch_timeout (gpointer user_data)
{
  StwProcess *self = user_data;
  g_autofree char *tail = stw_process_dup_log_tail (self);
  g_autoptr(JsonObject) details = json_object_new ();
  GError *error;

  g_clear_pointer (&self->launch_timeout, g_source_unref);

  if (self->display_problem != NULL)
    {
      error = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("The app needs a display: %s"), self->display_problem);
      stw_error_set_hint (error, _("No X display is available. Run the server under Xvfb "
                                   "(xvfb-run -a stagewright) or give the app a headless switch."));
    }
  else
    error = stw_error_new_code (STW_ERROR_LAUNCH_TIMEOUT, _("The app did not announce its DevTools endpoints in time"));
  json_object_set_string_member (details, "log_tail", tail);
  stw_error_set_details (error, details);
  finish_launch (self, error);
  return G_SOURCE_REMOVE;
}

static void
on_launch_cancelled (GCancellable *cancellable,
                     gpointer      user_data)
{
  StwProcess *self = user_data;
  GError *error = NULL;

  g_cancellable_set_error_if_cancelled (cancellable, &error);
  finish_launch (self, error);
}

/* Chromium puts its singleton socket in $TMPDIR/org.chromium.Chromium.XXXXXX/
 * SingletonSocket and refuses to start when that exceeds sun_path. */
#define SOCKET_TAIL "/org.chromium.Chromium.XXXXXX/SingletonSocket"
#define SUN_PATH_MAX 107
#define TEMP_ROOT_NAME "stagewright-XXXXXX"
/* A launcher script may nest one more directory in our TMPDIR (Electron's
 * test stand-in does; so do some wrappers): leave room for it. */
#define NESTING_ROOM 32

/**
 * _stw_process_make_temp_root:
 * @error: `LAUNCH_FAILED` with a hint naming `TMPDIR`
 *
 * A private (0700) per-instance directory, which is also the app's TMPDIR:
 * in `$TMPDIR` when Chromium's socket path still fits there, else in `/tmp`.
 *
 * Returns: (transfer full) (nullable): its path
 */
char *
_stw_process_make_temp_root (GError **error)
{
  const char *tmpdir = g_getenv ("TMPDIR");
  const char *bases[3] = { NULL, NULL, NULL };
  guint n = 0;
  int saved = 0;

  if (tmpdir != NULL && *tmpdir == '/')
    bases[n++] = tmpdir;
  if (tmpdir == NULL || g_strcmp0 (tmpdir, "/tmp") != 0)
    bases[n++] = "/tmp";

  /* First with room to spare in any base, then without. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n; i++)
      {
        gsize room = pass == 0 ? NESTING_ROOM : 0;
        g_autofree char *template = g_build_filename (bases[i], TEMP_ROOT_NAME, NULL);

        if (strlen (template) + strlen (SOCKET_TAIL) + room > SUN_PATH_MAX)
          continue;
        if (g_mkdtemp_full (template, 0700) != NULL)
          return g_steal_pointer (&template);
        saved = errno;
      }

  {
    GError *failure = stw_error_new_code (STW_ERROR_LAUNCH_FAILED,
                                          _("No temporary directory short enough for Chromium's "
                                            "socket path can be made (TMPDIR=%s%s%s)"),
                                          tmpdir ? tmpdir : "", saved ? ": " : "", saved ? g_strerror (saved) : "");
    stw_error_set_hint (failure, _("Set TMPDIR to a short, writable directory (Chromium's socket path under "
                                   "it must stay below 108 bytes), or make /tmp writable."));
    g_propagate_error (error, failure);
  }
  return NULL;
}

/* Electron's fuse wire (@electron/fuses): the sentinel, a version byte,
 * a length byte, then one byte per fuse ('0' off, '1' on, 'r' removed). */
#define FUSE_SENTINEL "dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX"
#define FUSE_NODE_CLI_INSPECT 3

G_LOCK_DEFINE_STATIC (fuse_cache);
static GHashTable *fuse_cache;   /* "path dev ino size mtime" → GINT (1 refuses) */

static gboolean
binary_refuses_inspect (const char *executable)
{
  g_autoptr(GMappedFile) mapped = NULL;
  GStatBuf st;
  g_autofree char *key = NULL;
  gpointer cached;
  gboolean refuses = FALSE;

  if (g_stat (executable, &st) != 0)
    return FALSE;
  key = g_strdup_printf ("%s %lu %lu %lld %lld", executable, (gulong) st.st_dev, (gulong) st.st_ino,
                         (long long) st.st_size, (long long) st.st_mtime);
  G_LOCK (fuse_cache);
  if (fuse_cache == NULL)
    fuse_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  cached = g_hash_table_lookup (fuse_cache, key);
  G_UNLOCK (fuse_cache);
  if (cached != NULL)
    return GPOINTER_TO_INT (cached) == 2;

  /* Read-only and once per binary: a mapping, one search. */
  mapped = g_mapped_file_new (executable, FALSE, NULL);
  if (mapped != NULL)
    {
      const char *contents = g_mapped_file_get_contents (mapped);
      gsize length = g_mapped_file_get_length (mapped);
      const char *wire = contents ? memmem (contents, length, FUSE_SENTINEL, strlen (FUSE_SENTINEL)) : NULL;

      if (wire != NULL)
        {
          gsize at = (gsize) (wire - contents) + strlen (FUSE_SENTINEL);
          if (at + 2 + FUSE_NODE_CLI_INSPECT < length &&
              (guchar) contents[at + 1] > FUSE_NODE_CLI_INSPECT)
            refuses = contents[at + 2 + FUSE_NODE_CLI_INSPECT] == '0' ||
                      contents[at + 2 + FUSE_NODE_CLI_INSPECT] == 'r';
        }
    }

  G_LOCK (fuse_cache);
  g_hash_table_replace (fuse_cache, g_steal_pointer (&key), GINT_TO_POINTER (refuses ? 2 : 1));
  G_UNLOCK (fuse_cache);
  return refuses;
}

/**
 * _stw_process_check_fuses:
 * @executable: the runtime that would run an app's main script
 * @error: `FUSES_BLOCK_LAUNCH`
 *
 * The reference's preflight: an Electron whose EnableNodeCliInspectArguments
 * fuse is off cannot give us its main process, so a launch with `main` is
 * refused before anything runs. (A binary without a fuse wire passes; the
 * launch itself still notices a missing inspector.)
 */
gboolean
_stw_process_check_fuses (const char  *executable,
                           GError     **error)
{
  GError *blocked;

  if (!binary_refuses_inspect (executable))
    return TRUE;
  blocked = stw_error_new_code (STW_ERROR_FUSES_BLOCK_LAUNCH,
                                _("%s has its EnableNodeCliInspectArguments fuse off: "
                                  "its main process cannot be driven"), executable);
  stw_error_set_hint (blocked, _("Launch it packaged (executablePath without main), attach over CDP, "
                                 "or use a development build."));
  g_propagate_error (error, blocked);
  return FALSE;
}

/* Whether @path (nullable, maybe relative) lies in the build tree. */
gboolean
_stw_in_build_tree (const char *path)
{
  g_autofree char *real = path != NULL && *path != '\0' ? realpath (path, NULL) : NULL;
  g_autofree char *tree = realpath (STW_ABS_BUILDDIR, NULL);

  return real != NULL && tree != NULL && g_str_has_prefix (real, tree) && real[strlen (tree)] == '/';
}

/* The guard program: $STAGEWRIGHT_GUARD, else the build tree's when this
 * code runs from the build tree (the tests: the library, or a program it is
 * linked into, is there), else the installed one. */
static char *
find_guard (void)
{
  const char *env = g_getenv ("STAGEWRIGHT_GUARD");
  Dl_info info;

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  if ((dladdr ((void *) find_guard, &info) != 0 && _stw_in_build_tree (info.dli_fname)) ||
      _stw_in_build_tree ("/proc/self/exe"))
    return g_strdup (STW_ABS_BUILDDIR "/stagewright/stagewright-guard");
  return g_strdup (STW_GUARD_PATH);
}

#define GUARD_REPORT_MS 5000

/* What the guard runs, on its socket (not its command line: see
 * stagewright-guard.c): the count, the temporary root, the app's argv. */
static void
write_guard_spec (int              fd,
                  const char      *temp_root,
                  const GPtrArray *argv)
{
  g_autoptr(GString) spec = g_string_new (NULL);
  guint n = argv->len - 1;   /* without the NULL */

  g_string_append_printf (spec, "%u", n + 1);
  g_string_append_len (spec, "", 1);
  g_string_append_len (spec, temp_root, strlen (temp_root) + 1);
  for (guint i = 0; i < n; i++)
    g_string_append_len (spec, g_ptr_array_index (argv, i), strlen (g_ptr_array_index (argv, i)) + 1);

  for (gsize done = 0; done < spec->len;)
    {
      ssize_t wrote = send (fd, spec->str + done, spec->len - done, MSG_NOSIGNAL);

      if (wrote < 0 && errno == EINTR)
        continue;
      if (wrote <= 0)
        break;   /* the guard is gone: its report says so */
      done += (gsize) wrote;
    }
}

/* The guard's first word on its socket: "pid N" once the app runs, or
 * "error ERRNO" when it could not be executed. */
static gboolean
read_guard_report (int      fd,
                   GPid    *pid,
                   int     *exec_errno,
                   GError **error)
{
  char line[64];
  gsize used = 0;
  gint64 deadline = g_get_monotonic_time () + (gint64) GUARD_REPORT_MS * 1000;

  while (used == 0 || line[used - 1] != '\n')
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      gint64 left = (deadline - g_get_monotonic_time ()) / 1000;
      ssize_t got;

      if (left <= 0 || used >= sizeof line - 1)
        break;
      if (poll (&pfd, 1, (int) left) < 0 && errno != EINTR)
        break;
      got = read (fd, line + used, sizeof line - 1 - used);
      if (got < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (got <= 0)
        break;
      used += (gsize) got;
    }
  line[used] = '\0';
  *pid = 0;
  *exec_errno = 0;
  if (sscanf (line, "pid %d", pid) == 1 && *pid > 0)
    return TRUE;
  if (sscanf (line, "error %d", exec_errno) == 1)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the launch guard did not report the app's pid");
  return FALSE;
}

static gboolean all_gone (StwProcess *self);

static void
stw_process_finalize (GObject *object)
{
  StwProcess *self = STW_PROCESS (object);

  g_cancellable_cancel (self->cancellable);
  if (self->pid > 0 && !all_gone (self))
    release_to_guard (self);
  else
    cleanup_after_exit (self);

  g_clear_object (&self->subprocess);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_object (&self->pipe_input);
  g_clear_object (&self->pipe_output);
  close_guard (self);
  g_clear_pointer (&self->temp_root, g_free);
  g_clear_pointer (&self->browser_url, g_free);
  g_clear_pointer (&self->inspector_url, g_free);
  g_clear_pointer (&self->display_problem, g_free);
  g_clear_pointer (&self->inspector_note, g_free);
  g_queue_clear_full (&self->log, g_free);

  G_OBJECT_CLASS (stw_process_parent_class)->finalize (object);
}

static void
stw_process_class_init (StwProcessClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_process_finalize;

  signals[EXITED] = g_signal_new ("exited", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  signals[DEBUGGER_WAITING] = g_signal_new ("debugger-waiting", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);
  /* Every line the app writes, as it is read: (stream, line), where
   * stream is "stdout" or "stderr". */
  signals[OUTPUT_LINE] = g_signal_new ("output-line", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
stw_process_init (StwProcess *self)
{
  self->cancellable = g_cancellable_new ();
  self->guard_fd = -1;
  self->context = g_main_context_ref_thread_default ();
  g_queue_init (&self->log);
}

static char **
build_environment (const StwLaunchSpec *spec,
                   const char          *temp_root)
{
  g_auto(GStrv) inherited = g_get_environ ();
  g_autofree char *config = g_build_filename (temp_root, "config", NULL);
  char **env = NULL;

  /* The inherited environment loses the same keys callers may not set. */
  env = g_new0 (char *, 1);
  for (guint i = 0; inherited[i] != NULL; i++)
    {
      g_autofree char *key = g_strndup (inherited[i], strcspn (inherited[i], "="));
      if (_stw_confine_env_rule (key, "") == NULL)
        env = g_environ_setenv (env, key, inherited[i] + strlen (key) + 1, TRUE);
    }
  for (guint i = 0; spec->env != NULL && spec->env[i] != NULL; i++)
    {
      g_autofree char *key = g_strndup (spec->env[i], strcspn (spec->env[i], "="));
      const char *value = strchr (spec->env[i], '=');
      env = g_environ_setenv (env, key, value ? value + 1 : "", TRUE);
    }
  /* Chromium's singleton socket lives in TMPDIR: keep that path short. */
  env = g_environ_setenv (env, "TMPDIR", temp_root, TRUE);
  env = g_environ_setenv (env, "XDG_CONFIG_HOME", config, TRUE);
  return env;
}

/* The child gets the pipe on fds 3 and 4. Keeping the source fds above
 * that range means neither mapping can ever clobber the other's source,
 * whatever order the spawn code duplicates them in. */
static gboolean
move_above_pipe_fds (int      fds[2],
                     GError **error)
{
  for (guint i = 0; i < 2; i++)
    {
      int moved;

      if (fds[i] > 4)
        continue;
      moved = fcntl (fds[i], F_DUPFD_CLOEXEC, 10);
      if (moved < 0)
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
          return FALSE;
        }
      close (fds[i]);
      fds[i] = moved;
    }
  return TRUE;
}

/**
 * stw_process_launch_async:
 * @spec: what to start
 * @cancellable: (nullable): cancels the launch (and kills what started)
 * @callback: called once the endpoints are known, or the launch failed
 * @user_data: data for @callback
 */
void
stw_process_launch_async (const StwLaunchSpec *spec,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(StwProcess) self = g_object_new (STW_TYPE_PROCESS, NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = NULL;
  g_autofree char *profile = NULL;
  g_autofree char *guard = find_guard ();
  int control[2] = { -1, -1 };
  int exec_errno = 0;
  int to_child[2] = { -1, -1 };
  int from_child[2] = { -1, -1 };
  GTask *task;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_process_launch_async);
  self->launch_task = task;
  self->started_us = g_get_monotonic_time ();
  self->inspector_announced = spec->inspector_announced;
  self->inspector_announced_data = spec->inspector_announced_data;

  if (g_cancellable_set_error_if_cancelled (cancellable, &error))
    {
      finish_launch (self, g_steal_pointer (&error));
      return;
    }

  self->temp_root = _stw_process_make_temp_root (&error);
  if (self->temp_root == NULL)
    {
      finish_launch (self, g_steal_pointer (&error));
      return;
    }
  for (guint i = 0; i < 2; i++)
    {
      static const char * const subdirs[] = { "profile", "config" };
      g_autofree char *dir = g_build_filename (self->temp_root, subdirs[i], NULL);
      g_mkdir (dir, 0700);
    }
  profile = g_build_filename (self->temp_root, "profile", NULL);

  g_ptr_array_add (argv, g_strdup (spec->executable));
  if (spec->inspect && !spec->pipe)
    g_ptr_array_add (argv, g_strdup ("--inspect=0"));
  if (spec->pipe)
    g_ptr_array_add (argv, g_strdup ("--remote-debugging-pipe"));
  else
    g_ptr_array_add (argv, g_strdup ("--remote-debugging-port=0"));
  /* Chromium refuses to run as root without it; so does Electron. */
  if (geteuid () == 0)
    g_ptr_array_add (argv, g_strdup ("--no-sandbox"));
  g_ptr_array_add (argv, g_strdup_printf ("--user-data-dir=%s", profile));
  /* Electron's default app preloads each `-r` module given before the app. */
  for (guint i = 0; spec->main != NULL && spec->preloads != NULL && spec->preloads[i] != NULL; i++)
    {
      g_ptr_array_add (argv, g_strdup ("-r"));
      g_ptr_array_add (argv, g_strdup (spec->preloads[i]));
    }
  if (spec->main != NULL)
    g_ptr_array_add (argv, g_strdup (spec->main));
  for (guint i = 0; spec->args != NULL && spec->args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (spec->args[i]));
  g_ptr_array_add (argv, NULL);

  env = build_environment (spec, self->temp_root);

  /* The guard's stdin is a socket: it reports the app's pid there, and
   * its EOF means the server is gone. The app gets /dev/null. */
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0)
    {
      int saved = errno;
      remove_tree (self->temp_root);
      self->cleaned = TRUE;
      finish_launch (self, stw_error_new_code (STW_ERROR_LAUNCH_FAILED,
                                               _("Cannot create the launch guard's socket: %s"),
                                               g_strerror (saved)));
      return;
    }
  self->guard_fd = control[0];
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_take_stdin_fd (launcher, control[1]);
  g_subprocess_launcher_set_environ (launcher, env);
  if (spec->cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, spec->cwd);
  g_subprocess_launcher_set_child_setup (launcher, guard_setup,
                                         GINT_TO_POINTER ((int) getpid ()), NULL);

  if (spec->pipe)
    {
      if (!g_unix_open_pipe (to_child, FD_CLOEXEC, &error) ||
          !g_unix_open_pipe (from_child, FD_CLOEXEC, &error) ||
          !move_above_pipe_fds (to_child, &error) || !move_above_pipe_fds (from_child, &error))
        {
          finish_launch (self, stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("Cannot create the DevTools pipe: %s"),
                                                   error->message));
          return;
        }
      g_subprocess_launcher_take_fd (launcher, to_child[0], 3);
      g_subprocess_launcher_take_fd (launcher, from_child[1], 4);
      self->pipe_output = g_unix_output_stream_new (to_child[1], TRUE);
      self->pipe_input = g_unix_input_stream_new (from_child[0], TRUE);
    }

  self->subprocess = g_subprocess_launcher_spawn (launcher, &error, guard, NULL);
  if (self->subprocess != NULL)
    write_guard_spec (self->guard_fd, self->temp_root, argv);
  if (self->subprocess == NULL)
    {
      GError *failure = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("Cannot run the launch guard %s: %s"),
                                            guard, error->message);

      stw_error_set_hint (failure, _("The installation is incomplete (stagewright-guard is missing), "
                                     "or STAGEWRIGHT_GUARD names no program."));
      close_guard (self);
      remove_tree (self->temp_root);
      self->cleaned = TRUE;
      finish_launch (self, failure);
      return;
    }

  /* The guard forks and execs at once; its report is a matter of
   * microseconds, and the app's pid is what every caller names. */
  if (!read_guard_report (self->guard_fd, &self->pid, &exec_errno, &error) || exec_errno != 0)
    {
      GError *failure;

      if (exec_errno == ENOENT)
        failure = stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("Cannot run %s: %s"), spec->executable,
                                      g_strerror (exec_errno));
      else
        failure = stw_error_new_code (STW_ERROR_LAUNCH_FAILED, _("Cannot run %s: %s"), spec->executable,
                                      exec_errno != 0 ? g_strerror (exec_errno) : error->message);
      /* The guard removes the directories as it exits. */
      self->cleaned = TRUE;
      close_guard (self);
      finish_launch (self, failure);
      return;
    }

  g_subprocess_wait_async (self->subprocess, NULL, on_exited, g_object_ref (self));
  drain (self, g_subprocess_get_stderr_pipe (self->subprocess), "stderr");
  drain (self, g_subprocess_get_stdout_pipe (self->subprocess), "stdout");

  self->want_inspector = spec->inspect && !spec->pipe;
  self->require_inspector = self->want_inspector && spec->require_inspector;
  self->want_browser_url = !spec->pipe;
  stw_process_mark (self, "spawned under its guard");
  if (!self->want_inspector && !self->want_browser_url)
    {
      finish_launch (self, NULL);
      return;
    }

  if (cancellable != NULL)
    {
      self->launch_cancellable = g_object_ref (cancellable);
      self->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_launch_cancelled), self, NULL);
      if (self->launch_task == NULL)
        return;   /* cancelled already: on_launch_cancelled ran */
    }

  self->launch_timeout = g_timeout_source_new (spec->timeout_ms > 0 ? spec->timeout_ms : 30000);
  g_source_set_callback (self->launch_timeout, on_launch_timeout, self, NULL);
  g_source_attach (self->launch_timeout, g_task_get_context (task));
}

/**
 * stw_process_launch_finish:
 * @result: the result given to the callback
 * @error: `LAUNCH_FAILED`, `LAUNCH_TIMEOUT` or `FILE_NOT_FOUND`
 *
 * Returns: (transfer full): the running process
 */
StwProcess *
stw_process_launch_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

GPid
stw_process_get_pid (StwProcess *self)
{
  return self->pid;
}

const char *
stw_process_get_browser_url (StwProcess *self)
{
  return self->browser_url;
}

const char *
stw_process_get_inspector_url (StwProcess *self)
{
  return self->inspector_url;
}

GInputStream *
stw_process_get_pipe_input (StwProcess *self)
{
  return self->pipe_input;
}

GOutputStream *
stw_process_get_pipe_output (StwProcess *self)
{
  return self->pipe_output;
}

const char *
stw_process_get_temp_root (StwProcess *self)
{
  return self->temp_root;
}

/* Why the app has no Node inspector although it was asked for one. */
const char *
stw_process_get_inspector_note (StwProcess *self)
{
  return self->inspector_note;
}

gboolean
stw_process_is_running (StwProcess *self)
{
  return !self->exited;
}

/**
 * stw_process_mark:
 * @self: a #StwProcess
 * @phase: what just happened
 *
 * One line of the launch timeline in the debug log: @phase with its
 * offset from the start of the launch (`G_MESSAGES_DEBUG=Stagewright`).
 */
void
stw_process_mark (StwProcess *self,
                  const char *phase)
{
  g_debug ("Launch %d: +%.1f ms %s", (int) self->pid,
           (double) (g_get_monotonic_time () - self->started_us) / 1000.0, phase);
}

/* --- waiting and terminating --------------------------------------------- */

typedef struct
{
  StwProcess *self;
  GTask      *task;
  GSource    *poll;
  gint64      deadline_us;
  gint64      group_deadline_us;
  gboolean    escalated;
  int         phase;        /* 0 waiting for exit, 1 after SIGTERM, 2 after SIGKILL */
} Waiter;

static void
waiter_free (Waiter *waiter)
{
  if (waiter->poll != NULL)
    {
      g_source_destroy (waiter->poll);
      g_source_unref (waiter->poll);
    }
  g_object_unref (waiter->self);
  g_free (waiter);
}

/* Exited means the main process is gone and so is every other member of
 * its group: only then may the profile be removed (field notes §6.9). */
static gboolean
all_gone (StwProcess *self)
{
  return self->exited && !group_has_live_members (self->pid);
}

static gboolean
on_wait_poll (gpointer user_data)
{
  GTask *task = user_data;
  Waiter *waiter = g_task_get_task_data (task);

  if (all_gone (waiter->self))
    {
      g_clear_pointer (&waiter->poll, g_source_unref);
      cleanup_after_exit (waiter->self);
      g_task_return_boolean (task, TRUE);
      return G_SOURCE_REMOVE;
    }
  if (g_get_monotonic_time () >= waiter->deadline_us)
    {
      g_clear_pointer (&waiter->poll, g_source_unref);
      g_task_return_boolean (task, FALSE);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/**
 * stw_process_wait_async:
 * @self: a #StwProcess
 * @timeout_ms: how long to wait
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with whether the whole group is gone
 * @user_data: data for @callback
 */
void
stw_process_wait_async (StwProcess          *self,
                        guint                timeout_ms,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Waiter *waiter = g_new0 (Waiter, 1);

  g_task_set_source_tag (task, stw_process_wait_async);
  waiter->self = g_object_ref (self);
  waiter->deadline_us = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  g_task_set_task_data (task, waiter, (GDestroyNotify) waiter_free);

  waiter->poll = g_timeout_source_new (GROUP_POLL_MS);
  g_source_set_callback (waiter->poll, on_wait_poll, task, g_object_unref);
  g_source_attach (waiter->poll, g_task_get_context (task));
}

gboolean
stw_process_wait_finish (StwProcess    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_process_wait_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static gboolean
on_terminate_poll (gpointer user_data)
{
  GTask *task = user_data;
  Waiter *waiter = g_task_get_task_data (task);
  StwProcess *self = waiter->self;
  gint64 now = g_get_monotonic_time ();

  if (all_gone (self))
    {
      g_clear_pointer (&waiter->poll, g_source_unref);
      cleanup_after_exit (self);
      g_task_return_boolean (task, TRUE);
      return G_SOURCE_REMOVE;
    }

  if (now < waiter->deadline_us)
    return G_SOURCE_CONTINUE;

  if (waiter->phase == 0)
    {
      waiter->phase = 1;
      if (self->pid > 0)  /* never kill (0, …): that is our own group */
        kill (-self->pid, SIGTERM);
      waiter->deadline_us = now + 2 * G_USEC_PER_SEC;
    }
  else if (waiter->phase == 1)
    {
      waiter->phase = 2;
      waiter->escalated = TRUE;
      if (self->pid > 0)  /* never kill (0, …): that is our own group */
        kill (-self->pid, SIGKILL);
      waiter->deadline_us = now + (gint64) GROUP_GONE_MAX_MS * 1000;
    }
  else
    {
      /* Unkillable (D state); the guard will retry. Report honestly. */
      g_warning ("Process group %d did not go away after SIGKILL", (int) self->pid);
      g_clear_pointer (&waiter->poll, g_source_unref);
      g_task_return_boolean (task, FALSE);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/**
 * stw_process_terminate_async:
 * @self: a #StwProcess
 * @grace_ms: how long the app may still take to exit on its own
 * @callback: called when the whole group is gone
 * @user_data: data for @callback
 *
 * Waits @grace_ms for the app to exit by itself, then SIGTERMs its group,
 * waits two seconds, then SIGKILLs the group (`escalated`), and removes
 * the temporary directories once no member is left.
 */
void
stw_process_terminate_async (StwProcess          *self,
                             guint                grace_ms,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  Waiter *waiter = g_new0 (Waiter, 1);

  g_task_set_source_tag (task, stw_process_terminate_async);
  waiter->self = g_object_ref (self);
  waiter->deadline_us = g_get_monotonic_time () + (gint64) grace_ms * 1000;
  g_task_set_task_data (task, waiter, (GDestroyNotify) waiter_free);

  waiter->poll = g_timeout_source_new (GROUP_POLL_MS);
  g_source_set_callback (waiter->poll, on_terminate_poll, task, g_object_unref);
  g_source_attach (waiter->poll, g_task_get_context (task));
}

gboolean
stw_process_terminate_finish (StwProcess   *self,
                              GAsyncResult *result,
                              gboolean     *escalated)
{
  Waiter *waiter;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_process_terminate_async, FALSE);
  waiter = g_task_get_task_data (G_TASK (result));
  if (escalated != NULL)
    *escalated = waiter->escalated;
  return g_task_propagate_boolean (G_TASK (result), NULL);
}

static gboolean
on_reap_poll (gpointer user_data)
{
  StwProcess *self = user_data;

  /* After SIGKILL no live member is enough: the leader's exit report may
   * wait on a context nobody iterates any more (a finished blocking
   * call's), and zombies write no files. */
  if (all_gone (self) || !group_has_live_members (self->pid))
    cleanup_after_exit (self);
  else if (g_get_monotonic_time () < self->reap_deadline_us)
    return G_SOURCE_CONTINUE;
  else
    g_warning ("Process group %d did not go away after SIGKILL", (int) self->pid);
  /* Unkillable (D state): finalize hands it to the guard, which retries. */
  g_clear_pointer (&self->reaper, g_source_unref);
  return G_SOURCE_REMOVE;
}

/**
 * stw_process_kill:
 * @self: a #StwProcess
 *
 * SIGKILLs the whole group now, and removes the temporary directories as
 * soon as no member is left (polled on the thread-default context the
 * process was made in; the poll keeps @self alive until then). This is
 * the one way every failed, cancelled or abandoned launch ends, so none
 * of them waits for the guard or for a graceful stop's timeouts.
 */
void
stw_process_kill (StwProcess *self)
{
  /* Never kill (0, …): that is our own group; and never a group known to
   * be gone (its id may belong to someone else by now). */
  if (self->pid <= 0 || self->cleaned)
    return;
  /* Also the stragglers of a leader that has exited already. */
  kill (-self->pid, SIGKILL);
  if (self->reaper != NULL)
    return;
  self->reap_deadline_us = g_get_monotonic_time () + (gint64) GROUP_GONE_MAX_MS * 1000;
  self->reaper = g_timeout_source_new (GROUP_POLL_MS);
  g_source_set_callback (self->reaper, on_reap_poll, g_object_ref (self), g_object_unref);
  g_source_attach (self->reaper, self->context);
}
