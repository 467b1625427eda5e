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

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "stw-confine-private.h"
#include "stw-error-registry.h"

static GError *
refusal (const char *argument,
         const char *rule,
         const char *message)
{
  g_autoptr(JsonObject) details = json_object_new ();
  GError *error = stw_error_new ("BAD_ARGUMENT", "%s", message);

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
  refused = stw_error_new ("BAD_ARGUMENT", _("The launch environment may not set these keys"));
  json_object_set_string_member (details, "argument", "env");
  json_object_set_array_member (details, "denied_env_keys", json_array_ref (denied));
  json_object_set_object_member (details, "rules", json_object_ref (rules));
  stw_error_set_details (refused, details);
  g_propagate_error (error, refused);
  return FALSE;
}
