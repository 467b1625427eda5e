/* stagewright-guard: the parent of every app the server launches
 *
 *   stagewright-guard
 *
 * Started by the server with a socket on stdin, on which the server
 * writes what to run: "N\0TEMP_ROOT\0PROGRAM\0ARG\0…", N strings after
 * the count. (Not on the command line, where it would name the app's
 * directories: tools that find an app's processes by those, as Electron's
 * test stand-in does when it exits, must not find its guard.) It becomes a child
 * subreaper, forks and execs PROGRAM (which leads its own process group,
 * stdin /dev/null, stdout and stderr inherited), and writes "pid N\n" on
 * the socket (or "error ERRNO\n" when the exec failed). From then on it
 * reaps whatever is reparented to it. It ends every descendant — the app's
 * group and whatever left it: a detached updater, crashpad's setsid()
 * handler — when either
 *
 * - the app exits (a stop, a crash), or
 * - the socket reaches EOF or the server's death signal arrives (the
 *   server exited, or was SIGKILLed; PR_SET_PDEATHSIG is SIGTERM),
 *
 * first with SIGTERM, then with SIGKILL, until it has no child left; then
 * it removes TEMP_ROOT and exits with the app's status (a signal is
 * raised again). Orphans reparent to the nearest living subreaper
 * ancestor, so nothing the app starts can leave this process's care
 * unless the guard itself is SIGKILLed (docs/architecture.md).
 *
 * Plain C and libc only: it is started on every launch, on the critical
 * path, and must not need anything it could fail to load. It signals only
 * its own descendants, found through /proc/PID/stat's PPid.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TERM_GRACE_MS 1000   /* SIGTERM, then SIGKILL */
#define GIVE_UP_MS    30000  /* an unkillable (D state) descendant */
#define STEP_MS       10
#define SPEC_MAX      (4 << 20)

static pid_t app_pid;
static int   app_status = -1;   /* -1 while it runs */

static long long
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reaps every child that has exited; returns 0 when none is left at all,
 * 1 otherwise. Notes the app's status when it is among them. */
static int
reap (void)
{
  for (;;)
    {
      int status;
      pid_t pid = waitpid (-1, &status, WNOHANG);

      if (pid > 0)
        {
          if (pid == app_pid)
            app_status = status;
          continue;
        }
      if (pid < 0 && errno == EINTR)
        continue;
      return !(pid < 0 && errno == ECHILD);
    }
}

/* Signals every live descendant of this process. The tree is read from
 * each process's PPid; a pid seen here is either our child (not reaped,
 * so not reusable) or a child of one of our descendants. */
static void
signal_descendants (int sig)
{
  pid_t self = getpid ();
  size_t n = 0, cap = 256;
  pid_t *pids = malloc (cap * sizeof *pids);
  pid_t *ppids = malloc (cap * sizeof *ppids);
  char *mark;
  DIR *dir = opendir ("/proc");
  struct dirent *entry;
  int changed;

  if (dir == NULL || pids == NULL || ppids == NULL)
    {
      /* Nothing to walk: at least the app's group. */
      if (app_pid > 0)
        kill (-app_pid, sig);
      if (dir != NULL)
        closedir (dir);
      free (pids);
      free (ppids);
      return;
    }

  while ((entry = readdir (dir)) != NULL)
    {
      char path[300], buf[512];
      const char *paren;
      char state;
      int ppid, fd;
      ssize_t len;

      if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
        continue;
      snprintf (path, sizeof path, "/proc/%s/stat", entry->d_name);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      len = read (fd, buf, sizeof buf - 1);
      close (fd);
      if (len <= 0)
        continue;
      buf[len] = '\0';
      /* comm may hold spaces and parentheses: parse after the last ')'. */
      paren = strrchr (buf, ')');
      if (paren == NULL || sscanf (paren + 1, " %c %d", &state, &ppid) != 2)
        continue;
      if (state == 'Z' || state == 'X')
        continue;
      if (n == cap)
        {
          pid_t *more_pids = realloc (pids, 2 * cap * sizeof *pids);
          pid_t *more_ppids = more_pids ? realloc (ppids, 2 * cap * sizeof *ppids) : NULL;

          if (more_pids != NULL)
            pids = more_pids;
          if (more_ppids == NULL)
            break;
          ppids = more_ppids;
          cap *= 2;
        }
      pids[n] = (pid_t) atoi (entry->d_name);
      ppids[n] = (pid_t) ppid;
      n++;
    }
  closedir (dir);

  /* Mark our descendants: our children first, then theirs, to a fixpoint. */
  mark = calloc (n ? n : 1, 1);
  if (mark != NULL)
    {
      do
        {
          changed = 0;
          for (size_t i = 0; i < n; i++)
            {
              if (mark[i])
                continue;
              if (ppids[i] == self)
                mark[i] = changed = 1;
              else
                for (size_t j = 0; j < n; j++)
                  if (mark[j] && pids[j] == ppids[i])
                    {
                      mark[i] = changed = 1;
                      break;
                    }
            }
        }
      while (changed);
      for (size_t i = 0; i < n; i++)
        if (mark[i] && pids[i] > 1 && pids[i] != self)
          kill (pids[i], sig);
    }
  free (mark);
  free (pids);
  free (ppids);
}

/* Ends every descendant, and returns once none is left (or after
 * GIVE_UP_MS, when one cannot be killed). */
static void
end_descendants (void)
{
  long long started = now_ms ();
  int killing = 0;

  if (!reap ())
    return;
  signal_descendants (SIGTERM);
  for (;;)
    {
      long long elapsed;

      poll (NULL, 0, STEP_MS);
      if (!reap ())
        return;
      elapsed = now_ms () - started;
      if (elapsed >= GIVE_UP_MS)
        return;
      if (elapsed >= TERM_GRACE_MS || killing)
        {
          /* Again each step: a descendant may have forked meanwhile. */
          killing = 1;
          signal_descendants (SIGKILL);
        }
    }
}

static int
remove_one (const char        *path,
            const struct stat *sb,
            int                flag,
            struct FTW        *ftw)
{
  (void) sb;
  (void) flag;
  (void) ftw;
  (void) remove (path);
  return 0;
}

static const char *
basename_of (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash != NULL ? slash + 1 : path;
}

static void
say (int         fd,
     const char *word,
     long        value)
{
  char line[64];
  int len = snprintf (line, sizeof line, "%s %ld\n", word, value);

  while (write (fd, line, (size_t) len) < 0 && errno == EINTR)
    ;
}

/* Every descendant gone, then the app's directories. */
static void
finish (const char *temp_root)
{
  end_descendants ();
  /* Only ever a directory the server made for this app. */
  if (strncmp (basename_of (temp_root), "stagewright-", 12) == 0)
    nftw (temp_root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
exit_like_app (void)
{
  if (app_status != -1 && WIFSIGNALED (app_status))
    {
      struct rlimit none = { 0, 0 };
      int sig = WTERMSIG (app_status);
      sigset_t set;

      setrlimit (RLIMIT_CORE, &none);
      signal (sig, SIG_DFL);
      sigemptyset (&set);
      sigaddset (&set, sig);
      sigprocmask (SIG_UNBLOCK, &set, NULL);
      raise (sig);
    }
  _exit (app_status != -1 && WIFEXITED (app_status) ? WEXITSTATUS (app_status) : 1);
}

/* Reads the launch spec from fd 0; NULL on EOF, a malformed spec or one
 * larger than SPEC_MAX. */
static char **
read_spec (void)
{
  size_t used = 0, cap = 4096;
  char *buf = malloc (cap);
  char **strings;
  long count = -1;
  size_t at, n;

  for (;;)
    {
      ssize_t got;
      size_t nuls = 0;

      if (buf == NULL)
        return NULL;
      /* Complete once the count and that many strings are in. */
      for (size_t i = 0; i < used; i++)
        if (buf[i] == '\0')
          {
            if (count < 0)
              count = strtol (buf, NULL, 10);
            else
              nuls++;
          }
      if (count > 0 && nuls >= (size_t) count)
        break;
      if (used == cap)
        {
          char *more = cap < SPEC_MAX ? realloc (buf, cap * 2) : NULL;

          if (more == NULL)
            {
              free (buf);
              return NULL;
            }
          buf = more;
          cap *= 2;
        }
      count = -1;
      got = read (0, buf + used, cap - used);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        {
          free (buf);
          return NULL;
        }
      used += (size_t) got;
    }

  if (count < 2)
    {
      free (buf);
      return NULL;
    }
  strings = calloc ((size_t) count + 1, sizeof *strings);
  if (strings == NULL)
    return NULL;
  at = strlen (buf) + 1;
  for (n = 0; n < (size_t) count; n++)
    {
      strings[n] = buf + at;
      at += strlen (buf + at) + 1;
    }
  return strings;
}

int
main (int   argc,
      char *argv[])
{
  const char *temp_root;
  char **program;
  char **spec;
  sigset_t mask, old_mask;
  int sfd, devnull, report[2];
  pid_t self = getpid ();
  int err = 0;
  ssize_t got;

  (void) argv;
  if (argc != 1 || (spec = read_spec ()) == NULL)
    {
      fprintf (stderr, "stagewright-guard: runs only under stagewright, which tells it what to run\n");
      return 2;
    }
  temp_root = spec[0];
  program = spec + 1;

  /* Orphans of the app come to us, not to init. */
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) != 0)
    {
      fprintf (stderr, "stagewright-guard: PR_SET_CHILD_SUBREAPER: %s\n", strerror (errno));
      return 1;
    }

  sigemptyset (&mask);
  sigaddset (&mask, SIGCHLD);
  sigaddset (&mask, SIGTERM);   /* the server's death signal */
  sigaddset (&mask, SIGHUP);
  sigaddset (&mask, SIGINT);
  sigprocmask (SIG_BLOCK, &mask, &old_mask);
  sfd = signalfd (-1, &mask, SFD_CLOEXEC);
  devnull = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  if (sfd < 0 || devnull < 0 || pipe2 (report, O_CLOEXEC) != 0)
    {
      fprintf (stderr, "stagewright-guard: %s\n", strerror (errno));
      return 1;
    }

  app_pid = fork ();
  if (app_pid < 0)
    {
      say (0, "error", errno);
      return 1;
    }
  if (app_pid == 0)
    {
      sigprocmask (SIG_SETMASK, &old_mask, NULL);
      setpgid (0, 0);
      prctl (PR_SET_PDEATHSIG, SIGTERM);
      if (getppid () != self)
        raise (SIGTERM);
      dup2 (devnull, 0);
      execvp (program[0], program);
      err = errno;
      while (write (report[1], &err, sizeof err) < 0 && errno == EINTR)
        ;
      _exit (127);
    }
  /* Also from here, so that no signal reaches a group not yet made. */
  setpgid (app_pid, app_pid);
  close (report[1]);
  close (devnull);
  do
    got = read (report[0], &err, sizeof err);
  while (got < 0 && errno == EINTR);
  close (report[0]);
  if (got == sizeof err)
    {
      say (0, "error", err);
      finish (temp_root);
      return 127;
    }
  say (0, "pid", (long) app_pid);

  for (;;)
    {
      struct pollfd fds[2] = { { 0, POLLIN, 0 }, { sfd, POLLIN, 0 } };
      int server_gone = 0;

      if (poll (fds, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (fds[1].revents & POLLIN)
        {
          struct signalfd_siginfo info;

          if (read (sfd, &info, sizeof info) == sizeof info && info.ssi_signo != SIGCHLD)
            server_gone = 1;
          reap ();
          if (app_status != -1)
            break;
        }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
        {
          char buf[64];
          ssize_t len = read (0, buf, sizeof buf);

          /* The server writes nothing: anything but EOF is ignored. */
          if (len == 0 || (len < 0 && errno != EINTR && errno != EAGAIN))
            server_gone = 1;
        }
      if (server_gone)
        break;
    }

  finish (temp_root);
  exit_like_app ();
  return 1;
}
