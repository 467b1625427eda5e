/* stw-confine.c: what the server lets a launched app touch
 *
 * One place decides, for every launch, which paths the app may be handed
 * (--app-root), which switches a caller may pass (none that runs another
 * program or opens a debugger: the server owns how the app is debugged)
 * and which environment variables may reach it (none that changes how
 * code is loaded or makes the runtime write files).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

#include "stw-confine-private.h"
#include "stw-error-registry.h"

static GError *
refusal (const char *argument,
         const char *rule,
         const char *message)
{
  g_autoptr(JsonObject) details = json_object_new ();
  GError *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "%s", message);

  json_object_set_string_member (details, "argument", argument);
  json_object_set_string_member (details, "rule", rule);
  stw_error_set_details (error, details);
  return error;
}

/* @path made absolute against @base_dir, with every symlink resolved. A
 * path that does not exist yet (a profile to be created) resolves through
 * its longest existing ancestor; the missing rest may not climb ("..").
 * NULL when it cannot be resolved. */
static char *
resolve (const char *base_dir,
         const char *path)
{
  g_autofree char *absolute = NULL;
  g_autofree char *existing = NULL;
  g_autofree char *real = NULL;
  GString *rest = g_string_new (NULL);
  char *slash;

  if (g_path_is_absolute (path))
    absolute = g_strdup (path);
  else
    {
      g_autofree char *cwd = base_dir ? NULL : g_get_current_dir ();
      absolute = g_build_filename (base_dir ? base_dir : cwd, path, NULL);
    }

  existing = g_strdup (absolute);
  while ((real = realpath (existing, NULL)) == NULL)
    {
      slash = strrchr (existing, '/');
      if (slash == NULL || slash == existing)
        {
          g_string_free (rest, TRUE);
          return NULL;
        }
      g_string_prepend (rest, slash);
      *slash = '\0';
    }

  if (strstr (rest->str, "/../") != NULL || g_str_has_suffix (rest->str, "/.."))
    {
      g_string_free (rest, TRUE);
      return NULL;
    }
  g_string_prepend (rest, real);
  return g_string_free (rest, FALSE);
}

/**
 * _stw_confine_path:
 * @root: (nullable): the --app-root, %NULL when there is none
 * @base_dir: (nullable): what a relative @path is relative to (the app's
 *   working directory; %NULL for the server's)
 * @path: a path the server would hand to the app, or use itself
 * @argument: what the caller called it, for the refusal
 * @error: `BAD_ARGUMENT` naming @argument and the rule
 *
 * The one --app-root check: @path, with every symlink resolved, is @root
 * or lies below it (a sibling that merely shares the prefix does not
 * count). Without @root every path is allowed.
 *
 * Returns: (transfer full) (nullable): the resolved path
 */
char *
_stw_confine_path (const char  *root,
                   const char  *base_dir,
                   const char  *path,
                   const char  *argument,
                   GError     **error)
{
  g_autofree char *real = resolve (base_dir, path);
  g_autofree char *real_root = NULL;
  gsize n;

  if (root == NULL)
    return real ? g_steal_pointer (&real) : g_strdup (path);

  real_root = realpath (root, NULL);
  if (real != NULL && real_root != NULL)
    {
      n = strlen (real_root);
      if (g_str_equal (real_root, "/") ||
          (strncmp (real, real_root, n) == 0 && (real[n] == '/' || real[n] == '\0')))
        return g_steal_pointer (&real);
    }

  {
    g_autofree char *message = g_strdup_printf (_("%s lies outside the server's --app-root"), argument);
    g_propagate_error (error, refusal (argument, "inside --app-root", message));
  }
  return NULL;
}

/* Switches that make Chromium or Node run another program, or open a
 * debugger or a DevTools endpoint the server does not own. Matched after
 * the dashes, lower-cased, with '_' as '-' (Node accepts both).
 *
 * --no-sandbox is allowed: it runs nothing else and opens nothing; it
 * only weakens the app's own isolation from the web content it loads,
 * which the caller chose. Containers without user namespaces need it
 * (the server passes it itself when running as root). */
static const char *
switch_rule (const char *name)
{
  static const char * const exact[] = {
    "js-flags",                 /* V8 flags: --allow-natives-syntax, --prof… */
    "gpu-launcher", "ppapi-plugin-launcher", "plugin-launcher",
    "browser-subprocess-path",
    "remote-allow-origins",     /* lets web pages talk to DevTools */
    "wait-for-debugger", "wait-for-debugger-children",
    "renderer-startup-dialog", "gpu-startup-dialog", "utility-startup-dialog",
    "nacl-gdb", "nacl-gdb-script", "nacl-loader-cmd-prefix",
    "debug", "debug-brk", "debug-port",   /* Node's and old Electron's debugger */
    NULL
  };

  static const char * const loaders[] = {
    "require", "r", "import", "loader", "experimental-loader", "experimental-policy",
    "env-file", "snapshot-blob", "openssl-config", "register-pepper-plugins",
    NULL
  };

  if (g_strv_contains (exact, name))
    return "runs another program or opens a debugger";
  if (g_strv_contains (loaders, name))
    return "loads code or configuration into the app's processes";
  if (g_str_has_suffix (name, "-cmd-prefix") || g_str_has_suffix (name, "-launcher"))
    return "runs another program";
  if (g_str_has_prefix (name, "inspect") || g_str_has_prefix (name, "remote-debugging-"))
    return "opens a debugger; the server owns how the app is debugged";
  return NULL;
}

/* Switches whose value is a path (or a list of them). */
static gboolean
switch_takes_path (const char *name)
{
  static const char * const names[] = {
    "user-data-dir", "disk-cache-dir", "log-file", "crash-dumps-dir", "load-extension",
    "disable-extensions-except", "ssl-key-log-file", "log-net-log", "net-log", "trace-startup-file",
    "enable-crash-reporter-dir", "homedir", "user-data", "app-path", "media-cache-dir",
    "diagnostics-dir", "metrics-dir", "trace-to-file-name", "profiling-file", "unsafely-treat-insecure-origin-as-secure",
    /* Node's switches that write files */
    "cpu-prof-dir", "heap-prof-dir", "diagnostic-dir", "redirect-warnings", "trace-event-file-pattern",
    "report-directory", "report-dir", "tls-keylog", "icu-data-dir",
    NULL
  };
  return g_strv_contains (names, name);
}

/* A value that is a URL (other than file:) names no path. */
static gboolean
is_non_file_url (const char *value)
{
  const char *p = value;

  if (!g_ascii_isalpha (*p))
    return FALSE;
  while (g_ascii_isalnum (*p) || *p == '+' || *p == '-' || *p == '.')
    p++;
  return *p == ':' && p - value > 1 && g_ascii_strncasecmp (value, "file:", 5) != 0;
}

static gboolean
confine_value (const char  *root,
               const char  *base_dir,
               const char  *value,
               const char  *argument,
               gboolean     known_path,
               GError     **error)
{
  g_autofree char *real = NULL;
  g_autofree char *path = NULL;

  if (root == NULL || *value == '\0' || is_non_file_url (value))
    return TRUE;

  if (g_ascii_strncasecmp (value, "file:", 5) == 0)
    {
      path = g_filename_from_uri (value, NULL, NULL);
      if (path == NULL)
        path = g_strdup (value + 5);
    }
  else
    path = g_strdup (value);

  if (!known_path)
    {
      /* Any other switch: its value counts as a path when it names an
       * existing file, or when it (or a part of it, for values such as
       * `/alias=/dir` or `a.so;b.so`) is an absolute path, existing or
       * not: a file it would create lands there. */
      g_autofree char *absolute = g_path_is_absolute (path) ? g_strdup (path)
                                  : g_build_filename (base_dir ? base_dir : ".", path, NULL);
      g_auto(GStrv) parts = g_strsplit_set (path, "=,;", -1);

      for (guint i = 0; parts[i] != NULL; i++)
        {
          g_autofree char *part_real = NULL;

          if (!g_path_is_absolute (parts[i]) || g_str_equal (parts[i], path))
            continue;
          part_real = _stw_confine_path (root, base_dir, parts[i], argument, error);
          if (part_real == NULL)
            return FALSE;
        }
      if (!g_path_is_absolute (path) && !g_file_test (absolute, G_FILE_TEST_EXISTS))
        return TRUE;
    }

  real = _stw_confine_path (root, base_dir, path, argument, error);
  return real != NULL;
}

/**
 * _stw_confine_args:
 * @root: (nullable): the --app-root
 * @base_dir: (nullable): the app's working directory
 * @args: (nullable): what the caller appends to the command line
 * @error: `BAD_ARGUMENT` naming the argument and the rule
 *
 * Refuses switches that run another program or open a debugger (always),
 * and with @root, every path handed to the app that lies outside it:
 * positional arguments, values of switches known to take a path, and
 * values of any switch that are absolute paths (or hold them) or name an
 * existing file.
 */
gboolean
_stw_confine_args (const char          *root,
                   const char          *base_dir,
                   const char * const  *args,
                   GError             **error)
{
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    {
      const char *arg = args[i];
      g_autofree char *argument = g_strdup_printf ("args[%u]", i);

      if (arg[0] == '-' && arg[1] != '\0')
        {
          const char *start = arg + (arg[1] == '-' ? 2 : 1);
          const char *equals = strchr (start, '=');
          g_autofree char *raw = equals ? g_strndup (start, (gsize) (equals - start)) : g_strdup (start);
          g_autofree char *name = g_ascii_strdown (raw, -1);
          const char *rule;

          g_strdelimit (name, "_", '-');
          if (*name == '\0')
            continue;   /* "--": what follows is still checked as paths */
          if ((rule = switch_rule (name)) != NULL)
            {
              g_autofree char *message = g_strdup_printf (_("%s (%s) is not allowed: it %s"),
                                                          argument, arg, rule);
              GError *refused = refusal (argument, rule, message);
              JsonObject *details = stw_error_get_details (refused);
              json_object_set_string_member (details, "value", arg);
              g_propagate_error (error, refused);
              return FALSE;
            }
          if (equals != NULL)
            {
              gboolean known = switch_takes_path (name);
              g_auto(GStrv) parts = known ? g_strsplit (equals + 1, ",", -1) : NULL;

              if (parts == NULL)
                {
                  if (!confine_value (root, base_dir, equals + 1, argument, FALSE, error))
                    return FALSE;
                }
              else
                for (guint j = 0; parts[j] != NULL; j++)
                  if (!confine_value (root, base_dir, parts[j], argument, TRUE, error))
                    return FALSE;
            }
          continue;
        }

      /* A positional argument is a path (an app, a file to open). */
      if (!confine_value (root, base_dir, arg, argument, TRUE, error))
        return FALSE;
    }
  return TRUE;
}

/**
 * _stw_confine_env_rule:
 * @key: an environment variable name
 * @value: (nullable): its value; %NULL for an entry that was not KEY=VALUE
 *
 * Keys that change how the app loads code (preloaded modules, injected
 * libraries, a shell's start-up file, a different runtime) or make the
 * runtime write files where it likes are refused; matched
 * case-insensitively.
 *
 * Returns: (nullable): why @key is refused, %NULL when it may pass
 */
const char *
_stw_confine_env_rule (const char *key,
                       const char *value)
{
  /* Node reads more variables every release: only these may pass. */
  static const char * const node_allowed[] = {
    "NODE_ENV", "NODE_DEBUG", "NODE_DEBUG_NATIVE", "NODE_NO_WARNINGS", "NODE_PENDING_DEPRECATION",
    "NODE_DISABLE_COLORS", "NODE_SKIP_PLATFORM_CHECK", NULL
  };
  static const char * const electron_denied[] = {
    "ELECTRON_RUN_AS_NODE",         /* plain Node: runs any script */
    "ELECTRON_NO_ASAR",             /* loads the app from elsewhere */
    "ELECTRON_OVERRIDE_DIST_PATH",  /* runs another Electron */
    "ELECTRON_LOG_FILE",            /* writes a file */
    NULL
  };
  static const char * const shell_denied[] = {
    "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS",
    "GCONV_PATH", "GTK_MODULES", "GTK3_MODULES", "GTK_PATH", "GIO_EXTRA_MODULES",
    "CHROME_DEVEL_SANDBOX", "PYTHONSTARTUP", "PERL5OPT", "RUBYOPT",
    NULL
  };
  g_autofree char *upper = NULL;

  if (*key == '\0')
    return "empty key";
  if (strchr (key, '=') != NULL)
    return "key contains '='";
  if (value == NULL)
    return "not KEY=VALUE";

  upper = g_ascii_strup (key, -1);
  if (g_str_has_prefix (upper, "NODE_") && !g_strv_contains (node_allowed, upper))
    return "changes how Node loads code or writes files";
  if (g_strv_contains (electron_denied, upper))
    return "changes how Electron loads code or writes files";
  if (g_str_has_prefix (upper, "LD_") || g_str_has_prefix (upper, "DYLD_"))
    return "injects libraries";
  if (g_strv_contains (shell_denied, upper) || g_str_has_prefix (upper, "BASH_FUNC_"))
    return "runs code in a shell or loads modules";
  return NULL;
}

/* Whether a relative part of an environment value names a path: it has a
 * '/' (`../outside/home`, `./bin`), is `.` or `..`, is empty inside a list
 * (`PATH=:/usr/bin` searches the working directory), or names something
 * that exists in @base_dir. A bare word that names nothing there (`1`,
 * `production`, `C.UTF-8`) is a plain value. */
static gboolean
relative_part_names_path (const char *base_dir,
                          const char *part,
                          gboolean    in_list)
{
  g_autofree char *cwd = NULL;
  g_autofree char *candidate = NULL;
  GStatBuf st;

  if (*part == '\0')
    return in_list;
  if (strchr (part, '/') != NULL || g_str_equal (part, ".") || g_str_equal (part, ".."))
    return TRUE;
  if (base_dir == NULL)
    base_dir = cwd = g_get_current_dir ();
  candidate = g_build_filename (base_dir, part, NULL);
  return g_lstat (candidate, &st) == 0;
}

/* A value names paths when a component of it (split at ':', ';' and ',',
 * as PATH-like and list-valued variables are) is absolute, `~`-relative, a
 * file URL or a relative path (see relative_part_names_path()); with a
 * root, each of them, resolved against @base_dir (the working directory
 * the app gets, which is what the app resolves it against), must lie
 * inside it. PATH, HOME, TMPDIR, XDG_*, GIO_MODULE_DIR, CHROME_LOG_FILE
 * and their relatives are all caught this way, without a list of names to
 * keep up to date. */
static gboolean
env_value_is_inside (const char *root,
                     const char *base_dir,
                     const char *value)
{
  g_auto(GStrv) parts = g_strsplit_set (value, ":;,", -1);
  gboolean in_list = parts[0] != NULL && parts[1] != NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *part = parts[i];
      g_autofree char *real = NULL;

      if (g_str_equal (part, "file") && parts[i + 1] != NULL && g_str_has_prefix (parts[i + 1], "//"))
        part = parts[++i] + 2;     /* file://PATH was split at its colon */
      if (part[0] == '~')
        return FALSE;              /* the app's HOME: never known to be inside */
      if (part[0] != '/' && !relative_part_names_path (base_dir, part, in_list))
        continue;
      real = _stw_confine_path (root, base_dir, *part == '\0' ? "." : part, "env", NULL);
      if (real == NULL)
        return FALSE;
    }
  return TRUE;
}

/**
 * _stw_confine_env:
 * @root: (nullable): the --app-root: with one, paths in values are confined
 * @base_dir: (nullable): the working directory the app gets (%NULL: the
 *   server's), against which relative paths in values are resolved
 * @keys: (element-type utf8): the caller's keys
 * @values: (element-type utf8): their values (%NULL: not KEY=VALUE)
 * @error: `BAD_ARGUMENT` listing every refused key in
 *   `details.denied_env_keys` (and why, in `details.rules`)
 */
gboolean
_stw_confine_env (const char *root,
                  const char *base_dir,
                  GPtrArray  *keys,
                  GPtrArray  *values,
                  GError    **error)
{
  g_autoptr(JsonArray) denied = json_array_new ();
  g_autoptr(JsonObject) rules = json_object_new ();
  g_autoptr(JsonObject) details = NULL;
  GError *refused;

  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      const char *value = g_ptr_array_index (values, i);
      const char *rule = _stw_confine_env_rule (key, value);

      if (rule == NULL && root != NULL && value != NULL && !env_value_is_inside (root, base_dir, value))
        rule = "with --app-root, every path in a value lies inside the root";
      if (rule != NULL)
        {
          json_array_add_string_element (denied, key);
          json_object_set_string_member (rules, key, rule);
        }
    }
  if (json_array_get_length (denied) == 0)
    return TRUE;

  details = json_object_new ();
  refused = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("The launch environment may not set these keys"));
  json_object_set_string_member (details, "argument", "env");
  json_object_set_array_member (details, "denied_env_keys", json_array_ref (denied));
  json_object_set_object_member (details, "rules", json_object_ref (rules));
  stw_error_set_details (refused, details);
  g_propagate_error (error, refused);
  return FALSE;
}

/* --- opening what was checked -------------------------------------------- */

/* A root's directory, opened once (O_PATH) when the root is first named and
 * held for the life of the process: what is opened later resolves beneath
 * this descriptor, not beneath whatever the root's name means by then. */
typedef struct
{
  int   fd;
  char *real;   /* its path when it was opened, symlinks resolved */
} HeldRoot;

static GMutex held_roots_lock;
static GHashTable *held_roots;   /* the root as named (or "/") → HeldRoot */
static gboolean use_openat2 = TRUE;

static const HeldRoot *
hold_root (const char  *root,
           GError     **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&held_roots_lock);
  HeldRoot *held;
  char *real;
  int fd;

  if (held_roots == NULL)
    held_roots = g_hash_table_new (g_str_hash, g_str_equal);
  held = g_hash_table_lookup (held_roots, root);
  if (held != NULL)
    return held;

  real = realpath (root, NULL);
  fd = real ? open (real, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
  if (fd < 0)
    {
      int saved = errno;

      free (real);
      g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("Cannot open the app root %s: %s"),
                                                    root, g_strerror (saved)));
      return NULL;
    }
  held = g_new0 (HeldRoot, 1);
  held->fd = fd;
  held->real = g_strdup (real);
  free (real);
  /* Held for the life of the process: the roots of a server are few. */
  g_hash_table_insert (held_roots, g_strdup (root), held);
  return held;
}

/**
 * _stw_confine_hold_root:
 * @root: (nullable): the --app-root
 *
 * Opens @root's directory now and keeps it: every later
 * _stw_confine_open() with this @root resolves beneath the directory
 * this was, whatever its name leads to by then. The server calls it when
 * --app-root is set.
 */
void
_stw_confine_hold_root (const char *root)
{
  g_autoptr(GError) error = NULL;

  /* A root that does not exist yet is held when first used; every path
   * checked against it fails until then. */
  if (root != NULL && hold_root (root, &error) == NULL)
    g_debug ("%s", error->message);
}

/**
 * _stw_confine_set_use_openat2:
 * @use: %FALSE to resolve by the component walk even where openat2(2)
 *   exists
 *
 * For tests of the walk kernels without openat2 take.
 */
void
_stw_confine_set_use_openat2 (gboolean use)
{
  use_openat2 = use;
}

/* The fallback where openat2 is missing: one component at a time, never
 * following a symlink and never climbing; a symlink anywhere (swapped in
 * since the path was resolved) fails with ELOOP. */
static int
walk_beneath (int          dir_fd,
              const char  *relative,
              int          flags,
              mode_t       mode)
{
  g_auto(GStrv) split = g_strsplit (relative, "/", -1);
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();
  int fd, next, saved;

  for (guint i = 0; split[i] != NULL; i++)
    {
      if (g_str_equal (split[i], ".."))
        {
          errno = EXDEV;
          return -1;
        }
      if (*split[i] != '\0' && !g_str_equal (split[i], "."))
        g_ptr_array_add (parts, split[i]);
    }
  if (parts->len == 0)
    g_ptr_array_add (parts, (gpointer) ".");

  fd = fcntl (dir_fd, F_DUPFD_CLOEXEC, 0);
  for (guint i = 0; fd >= 0 && i + 1 < parts->len; i++)
    {
      struct stat st;

      next = openat (fd, g_ptr_array_index (parts, i), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next >= 0 && (fstat (next, &st) != 0 || !S_ISDIR (st.st_mode)))
        {
          close (next);
          next = -1;
          errno = ELOOP;   /* O_PATH opened the link itself */
        }
      saved = errno;
      close (fd);
      errno = saved;
      fd = next;
    }
  if (fd < 0)
    return -1;
  next = openat (fd, g_ptr_array_index (parts, parts->len - 1), flags | O_NOFOLLOW | O_CLOEXEC, mode);
  saved = errno;
  close (fd);
  errno = saved;
  return next;
}

/**
 * _stw_confine_openat:
 * @dir_fd: a directory
 * @relative: a path relative to it
 * @flags: open(2) flags
 * @mode: the mode of a file O_CREAT makes
 *
 * Opens @relative beneath @dir_fd and nowhere else: openat2(2) with
 * `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`, or where the kernel lacks it
 * a walk that follows no symlink at all.
 *
 * Returns: a descriptor, or -1 with errno set (EXDEV or ELOOP: the path
 *   leads out of @dir_fd)
 */
int
_stw_confine_openat (int          dir_fd,
                     const char  *relative,
                     int          flags,
                     mode_t       mode)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  if (use_openat2)
    {
      struct open_how how = { 0 };
      int fd = -1;

      how.flags = (guint64) (flags | O_CLOEXEC);
      how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
      /* EAGAIN: a rename raced the resolution; the kernel asks to retry. */
      for (guint tries = 0; tries < 16; tries++)
        {
          fd = (int) syscall (SYS_openat2, dir_fd, *relative ? relative : ".", &how, sizeof how);
          if (fd >= 0 || errno != EAGAIN)
            break;
        }
      if (fd >= 0 || errno != ENOSYS)
        return fd;
    }
#endif
  return walk_beneath (dir_fd, relative, flags, mode);
}

/* @path resolved (as for the check) and made relative to @held's
 * directory; NULL when it lies outside. */
static char *
relative_to (const HeldRoot *held,
             const char     *path)
{
  g_autofree char *real = resolve (NULL, path);
  gsize n = strlen (held->real);

  if (real == NULL)
    return NULL;
  if (g_str_equal (held->real, "/"))
    return g_strdup (real + 1);
  if (strncmp (real, held->real, n) != 0 || (real[n] != '/' && real[n] != '\0'))
    return NULL;
  return g_strdup (real[n] == '/' ? real + n + 1 : "");
}

static GError *
outside_error (const char *argument,
               const char *root)
{
  g_autofree char *message = g_strdup_printf (_("%s lies outside the server's --app-root"), argument);
  GError *error = refusal (argument, "inside --app-root, opened beneath it", message);

  json_object_set_string_member (stw_error_get_details (error), "app_root", root);
  return error;
}

/**
 * _stw_confine_open:
 * @root: (nullable): the --app-root; %NULL: anywhere
 * @path: an absolute path
 * @flags: open(2) flags (O_CLOEXEC is added)
 * @mode: the mode of a file O_CREAT makes
 * @argument: what the caller called @path, for the refusal
 * @error: `ABSOLUTE_PATH_REQUIRED`; `BAD_ARGUMENT` when @path lies
 *   outside @root or a symlink was swapped in since it was resolved;
 *   `FILE_NOT_FOUND` for the rest
 *
 * Opens what was checked: @path is resolved and checked as
 * _stw_confine_path() does, then opened beneath the root's directory held
 * since the root was first named (_stw_confine_hold_root()), so that a
 * directory swapped for a symlink between the check and the open leads
 * nowhere. Without @root it is opened beneath `/`, still never through a
 * magic link (`/proc/self/fd/…`).
 *
 * Returns: a descriptor, or -1
 */
int
_stw_confine_open (const char  *root,
                   const char  *path,
                   int          flags,
                   mode_t       mode,
                   const char  *argument,
                   GError     **error)
{
  const HeldRoot *held;
  g_autofree char *relative = NULL;
  int fd, saved;

  if (!g_path_is_absolute (path))
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_ABSOLUTE_PATH_REQUIRED, _("Not an absolute path: %s"), path));
      return -1;
    }
  held = hold_root (root ? root : "/", error);
  if (held == NULL)
    return -1;
  relative = relative_to (held, path);
  if (relative == NULL && root != NULL)
    {
      g_propagate_error (error, outside_error (argument, root));
      return -1;
    }
  if (relative == NULL)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("No such file: %s"), path));
      return -1;
    }
  fd = _stw_confine_openat (held->fd, relative, flags, mode);
  if (fd >= 0)
    return fd;
  saved = errno;
  if (saved == EXDEV || saved == ELOOP)
    {
      if (root != NULL)
        g_propagate_error (error, outside_error (argument, root));
      else
        g_propagate_error (error, refusal (argument, "no symlink swapped in after the check",
                                           _("The path changed while it was opened")));
      return -1;
    }
  g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("Cannot open %s: %s"), path, g_strerror (saved)));
  return -1;
}

/**
 * _stw_confine_make_dirs:
 * @root: (nullable): the --app-root
 * @path: an absolute directory
 * @mode: the mode of the directories made
 * @error: as _stw_confine_open()
 *
 * g_mkdir_with_parents() beneath the held root: each directory is made
 * and entered by descriptor, following no symlink.
 *
 * Returns: a descriptor of @path (O_PATH), or -1
 */
int
_stw_confine_make_dirs (const char  *root,
                        const char  *path,
                        mode_t       mode,
                        GError     **error)
{
  g_autofree char *relative = NULL;
  g_auto(GStrv) parts = NULL;
  const HeldRoot *held;
  int fd;

  held = hold_root (root ? root : "/", error);
  if (held == NULL)
    return -1;
  relative = g_path_is_absolute (path) ? relative_to (held, path) : NULL;
  if (relative == NULL)
    {
      g_propagate_error (error, root ? outside_error ("dir", root)
                                     : stw_error_new_code (STW_ERROR_ABSOLUTE_PATH_REQUIRED, _("Not an absolute path: %s"), path));
      return -1;
    }
  parts = g_strsplit (relative, "/", -1);
  fd = fcntl (held->fd, F_DUPFD_CLOEXEC, 0);
  for (guint i = 0; fd >= 0 && parts[i] != NULL; i++)
    {
      int next;

      if (*parts[i] == '\0')
        continue;
      if (mkdirat (fd, parts[i], mode) != 0 && errno != EEXIST)
        next = -1;
      else
        next = _stw_confine_openat (fd, parts[i], O_PATH | O_DIRECTORY, 0);
      {
        int saved = errno;
        close (fd);
        errno = saved;
      }
      fd = next;
    }
  if (fd < 0)
    {
      int saved = errno;

      if (saved == EXDEV || saved == ELOOP || saved == ENOTDIR)
        g_propagate_error (error, root ? outside_error ("dir", root)
                                       : refusal ("dir", "no symlink swapped in after the check",
                                                  _("The path changed while it was opened")));
      else
        g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("Cannot create %s: %s"), path, g_strerror (saved)));
    }
  return fd;
}

/* --- files the server reads for a page ----------------------------------- */

/* Filesystems whose files are not data: the kernel's views of processes,
 * devices and itself. A regular file there may be endless, change with
 * every read or describe the server (/proc/self/environ). */
static gboolean
is_pseudo_filesystem (int fd)
{
  static const unsigned long pseudo[] = {
    PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC,
    CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC, DEVPTS_SUPER_MAGIC, PSTOREFS_MAGIC,
    EFIVARFS_MAGIC, SELINUX_MAGIC, SMACK_MAGIC, BINFMTFS_MAGIC, NSFS_MAGIC, PIPEFS_MAGIC,
    SOCKFS_MAGIC, ANON_INODE_FS_MAGIC, RDTGROUP_SUPER_MAGIC, DEVMEM_MAGIC, SECRETMEM_MAGIC,
    0x62656570 /* configfs */, 0x65735543 /* fusectl */,
  };
  struct statfs fs;
  struct stat st, dev, top;

  if (fstatfs (fd, &fs) != 0)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (pseudo); i++)
    if ((unsigned long) fs.f_type == pseudo[i])
      return TRUE;
  /* /dev is devtmpfs, which calls itself tmpfs: tell it by its device
   * when it is a filesystem of its own. */
  return fstat (fd, &st) == 0 && stat ("/dev", &dev) == 0 && stat ("/", &top) == 0 &&
         dev.st_dev != top.st_dev && st.st_dev == dev.st_dev;
}

/**
 * _stw_confine_open_regular:
 * @root: (nullable): the --app-root
 * @path: an absolute path
 * @argument: what the caller called @path
 * @error: as _stw_confine_open(); `FILE_NOT_FOUND` for a directory;
 *   `BAD_ARGUMENT` (`details.rule`) for anything but a regular file on a
 *   filesystem that holds data: FIFOs, sockets, devices, and every file of
 *   /proc, /sys, /dev and their kin (the server's own /proc/self/environ
 *   among them)
 *
 * Opens a file the server reads on a caller's behalf, for reading.
 *
 * Returns: a descriptor, or -1
 */
int
_stw_confine_open_regular (const char  *root,
                           const char  *path,
                           const char  *argument,
                           GError     **error)
{
  struct stat st;
  int fd;

  /* Looked at before it is opened: opening a device or a FIFO can act. */
  if (g_path_is_absolute (path) && stat (path, &st) == 0 && !S_ISREG (st.st_mode) && !S_ISDIR (st.st_mode))
    fd = -2;
  else
    {
      fd = _stw_confine_open (root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0, argument, error);
      if (fd < 0)
        return -1;
      if (fstat (fd, &st) != 0 || S_ISDIR (st.st_mode))
        {
          close (fd);
          g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("No such file: %s"), path));
          return -1;
        }
    }
  if (fd == -2 || !S_ISREG (st.st_mode) || is_pseudo_filesystem (fd))
    {
      g_autofree char *message = g_strdup_printf (_("%s is not a regular file on a disk: %s"), argument, path);
      GError *refused = refusal (argument, "a regular file, not in /proc, /sys or /dev, nor a FIFO, socket or device",
                                 message);

      json_object_set_string_member (stw_error_get_details (refused), "path", path);
      g_propagate_error (error, refused);
      if (fd >= 0)
        close (fd);
      return -1;
    }
  return fd;
}

static GError *
too_large (const char *argument,
           const char *path,
           goffset     max)
{
  g_autofree char *limit = g_format_size_full (max, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *message = g_strdup_printf (_("%s is larger than %s"), path, limit);

  return refusal (argument, "within the size limit", message);
}

/* Copies at most @max bytes of @fd to @out (when >= 0) or @buffer (when
 * not NULL); fails with too_large() past @max, whatever st_size said. */
static gboolean
copy_capped (int          fd,
             int          out,
             GByteArray  *buffer,
             goffset      max,
             const char  *argument,
             const char  *path,
             goffset     *copied,
             GError     **error)
{
  guint8 chunk[64 * 1024];

  *copied = 0;
  for (;;)
    {
      gssize n = read (fd, chunk, sizeof chunk);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("Cannot read %s: %s"), path, g_strerror (saved)));
          return FALSE;
        }
      if (n == 0)
        return TRUE;
      *copied += n;
      if (*copied > max)
        {
          g_propagate_error (error, too_large (argument, path, max));
          return FALSE;
        }
      if (buffer != NULL)
        g_byte_array_append (buffer, chunk, (guint) n);
      for (gssize done = 0; out >= 0 && done < n;)
        {
          gssize w = write (out, chunk + done, (gsize) (n - done));

          if (w < 0 && errno == EINTR)
            continue;
          if (w < 0)
            {
              int saved = errno;
              g_propagate_error (error, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("Cannot copy %s: %s"), path, g_strerror (saved)));
              return FALSE;
            }
          done += w;
        }
    }
}

/**
 * _stw_confine_read_file:
 * @root: (nullable): the --app-root
 * @path: an absolute path
 * @max: the most bytes read; a longer file is refused
 * @argument: what the caller called @path
 * @error: as _stw_confine_open_regular(); `BAD_ARGUMENT` past @max
 *
 * Reads a regular file beneath @root, never more than @max bytes
 * whatever its size claims.
 *
 * Returns: (transfer full) (nullable): the contents
 */
GBytes *
_stw_confine_read_file (const char  *root,
                        const char  *path,
                        goffset      max,
                        const char  *argument,
                        GError     **error)
{
  g_autoptr(GByteArray) buffer = g_byte_array_new ();
  goffset copied = 0;
  gboolean done;
  int fd = _stw_confine_open_regular (root, path, argument, error);

  if (fd < 0)
    return NULL;
  done = copy_capped (fd, -1, buffer, max, argument, path, &copied, error);
  close (fd);
  return done ? g_byte_array_free_to_bytes (g_steal_pointer (&buffer)) : NULL;
}

/**
 * _stw_confine_copy_file:
 * @root: (nullable): the --app-root
 * @path: an absolute path
 * @dest_dir: a private directory of the server's
 * @max: the most bytes copied; a longer file is refused
 * @argument: what the caller called @path
 * @copied: (out): how many bytes were copied
 * @error: as _stw_confine_read_file()
 *
 * Copies a regular file beneath @root into a directory of its own below
 * @dest_dir, under its own name: what a page is handed by path is this
 * copy, which nobody can swap.
 *
 * Returns: (transfer full) (nullable): the copy's path
 */
char *
_stw_confine_copy_file (const char  *root,
                        const char  *path,
                        const char  *dest_dir,
                        goffset      max,
                        const char  *argument,
                        goffset     *copied,
                        GError     **error)
{
  g_autofree char *template = g_build_filename (dest_dir, "XXXXXX", NULL);
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *copy = NULL;
  gboolean done;
  int fd, out;

  fd = _stw_confine_open_regular (root, path, argument, error);
  if (fd < 0)
    return NULL;
  if (g_mkdtemp_full (template, 0700) == NULL ||
      (copy = g_build_filename (template, name, NULL),
       (out = open (copy, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0))
    {
      int saved = errno;
      close (fd);
      g_propagate_error (error, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("Cannot copy %s: %s"), path, g_strerror (saved)));
      return NULL;
    }
  done = copy_capped (fd, out, NULL, max, argument, path, copied, error);
  close (fd);
  if (close (out) != 0 && done)
    {
      int saved = errno;
      g_propagate_error (error, stw_error_new_code (STW_ERROR_INTERNAL_ERROR, _("Cannot copy %s: %s"), path, g_strerror (saved)));
      done = FALSE;
    }
  if (!done)
    {
      g_unlink (copy);
      g_rmdir (template);
      return NULL;
    }
  return g_steal_pointer (&copy);
}

/**
 * _stw_confine_write_file:
 * @root: (nullable): the --app-root
 * @path: an absolute path
 * @contents: what to write
 * @mode: the file's mode
 * @error: as _stw_confine_open(); `FILE_NOT_FOUND` when it cannot be
 *   written
 *
 * Writes @path whole (a new file renamed over the old), through a
 * descriptor of its directory opened beneath @root: nothing lands
 * outside the root, whatever is swapped while it is written.
 */
gboolean
_stw_confine_write_file (const char  *root,
                         const char  *path,
                         GBytes      *contents,
                         mode_t       mode,
                         GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *temp = g_strdup_printf (".%s.%08x", name, g_random_int ());
  gsize length = 0;
  const guint8 *data = g_bytes_get_data (contents, &length);
  int dir_fd, fd, saved = 0;

  dir_fd = _stw_confine_open (root, dir, O_PATH | O_DIRECTORY, 0, "path", error);
  if (dir_fd < 0)
    return FALSE;
  fd = openat (dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0)
    saved = errno;
  for (gsize done = 0; fd >= 0 && saved == 0 && done < length;)
    {
      gssize w = write (fd, data + done, length - done);

      if (w < 0 && errno != EINTR)
        saved = errno;
      else if (w > 0)
        done += (gsize) w;
    }
  if (fd >= 0 && close (fd) != 0 && saved == 0)
    saved = errno;
  if (saved == 0 && renameat (dir_fd, temp, dir_fd, name) != 0)
    saved = errno;
  if (saved != 0 && fd >= 0)
    unlinkat (dir_fd, temp, 0);
  close (dir_fd);
  if (saved != 0)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_FILE_NOT_FOUND, _("Cannot write %s: %s"), path, g_strerror (saved)));
      return FALSE;
    }
  return TRUE;
}

/**
 * _stw_path_is_inside:
 * @path: a path
 * @root: an existing directory
 *
 * The --app-root rule (see _stw_confine_path(), which decides it): @path,
 * with symlinks resolved, is @root or lies below it.
 */
gboolean
_stw_path_is_inside (const char *path,
                     const char *root)
{
  g_autofree char *real = _stw_confine_path (root, NULL, path, "path", NULL);

  return real != NULL;
}
